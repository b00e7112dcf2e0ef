"""One consumer taking a full queue: MQ's asynchronous consume (MQCB/MQCTL) beside a read-ahead
MQGET loop and RabbitMQ's pika consumer (prefetch 200, each message acknowledged), in the same run.

(a) N nonpersistent 1 KiB messages are put (asynchronous put), then one consumer takes them all:
    - mqlite ``async consumer``: a callback registered with Queue.cb, MQCTL START, the rate from
      the START to the callback's Nth message (on the client's consuming thread);
    - mqlite ``read-ahead get``: MQGET in a loop on a DEFREADA(YES) queue;
    - RabbitMQ: ``basic_consume`` with prefetch 200, ``basic_ack`` of each message, the rate from
      the consume to the Nth delivery.
    Also the client's CPU per message (this process's, the consumer's work only).
(a') the same with persistent messages (the consumer's messages held until the callback returns:
    a kill of the consumer loses none) beside RabbitMQ's durable queue.
(b) Reconnect: a client connected with MQCNO_RECONNECT_Q_MGR and a consumer started; the queue
    manager is killed (kill -9) and started again; the time from the restart being ready to the
    event handler's MQRC_RECONNECTED, p50 and p99 of --restarts restarts.

    python bench/consume.py [--n 50000] [--runs 3] [--restarts 20] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import mqlite_cmd, rabbit_available  # noqa: E402

from mqlite.cli.proc import free_port  # noqa: E402
from mqlite.testing import OPEN_SECURITY  # noqa: E402

BODY = b"x" * 1024
QM = "BENCH.CB"


def fill(pymqi: Any, C: Any, qmgr: Any, n: int, persistent: bool) -> None:
    q = pymqi.Queue(qmgr, "BENCH.Q", C.MQOO_OUTPUT)
    md = pymqi.MD(Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT)
    pmo = pymqi.PMO(Options=C.MQPMO_ASYNC_RESPONSE | (C.MQPMO_SYNCPOINT if persistent else 0))
    for i in range(n):
        md.MsgId = C.MQMI_NONE
        q.put(BODY, md, pmo)
        if persistent and (i + 1) % 500 == 0:
            qmgr.commit()
    qmgr.commit()
    qmgr.stat()
    q.close()


def mq_async(pymqi: Any, C: Any, qmgr: Any, n: int) -> tuple[float, float]:
    """(msgs/s, client CPU µs per message) of one asynchronous consumer."""
    done = threading.Event()
    count = [0]

    def consumer(**kw: Any) -> None:
        if kw["cbc"].CallType == C.MQCBCT_MSG_REMOVED:
            count[0] += 1
            if count[0] == n:
                done.set()
    q = pymqi.Queue(qmgr, "BENCH.Q", C.MQOO_INPUT_AS_Q_DEF)
    q.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackFunction=consumer),
         gmo=pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=C.MQWI_UNLIMITED))
    cpu0, t0 = time.process_time(), time.perf_counter()
    qmgr.ctl(C.MQOP_START, pymqi.CTLO())
    if not done.wait(600):
        raise RuntimeError(f"the consumer took {count[0]} of {n}")
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    qmgr.ctl(C.MQOP_STOP, pymqi.CTLO())
    q.close()
    return n / elapsed, cpu / n * 1e6


def mq_get(pymqi: Any, C: Any, qmgr: Any, n: int) -> tuple[float, float]:
    q = pymqi.Queue(qmgr, "BENCH.Q", C.MQOO_INPUT_AS_Q_DEF)
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=5000)
    cpu0, t0 = time.process_time(), time.perf_counter()
    for _ in range(n):
        q.get(2048, pymqi.MD(), gmo)
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    q.close()
    return n / elapsed, cpu / n * 1e6


def rabbit(n: int, persistent: bool) -> tuple[float, float]:
    import pika
    conn = pika.BlockingConnection(pika.ConnectionParameters("127.0.0.1", 5672))
    ch = conn.channel()
    name = "mqlite.bench.consume"
    ch.queue_delete(name)
    ch.queue_declare(name, durable=persistent)
    props = pika.BasicProperties(delivery_mode=2 if persistent else 1)
    if persistent:
        ch.confirm_delivery()
    for _ in range(n):
        ch.basic_publish("", name, BODY, props)
    ch.basic_qos(prefetch_count=200)
    got = [0]
    cpu0, t0 = time.process_time(), time.perf_counter()

    def on_message(chan: Any, method: Any, _props: Any, _body: bytes) -> None:
        chan.basic_ack(method.delivery_tag)
        got[0] += 1
        if got[0] == n:
            chan.stop_consuming()
    ch.basic_consume(name, on_message)
    ch.start_consuming()
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    ch.queue_delete(name)
    conn.close()
    return n / elapsed, cpu / n * 1e6


def consumers(pymqi: Any, C: Any, port: int, n: int, runs: int, persistent: bool) -> dict[str, dict[str, float]]:
    out: dict[str, list[tuple[float, float]]] = {"async": [], "get": [], "rabbitmq": []}
    peer = rabbit_available()
    for run in range(runs):
        qmgr = pymqi.connect(QM, "BENCH.SVRCONN", f"127.0.0.1({port})")
        order = ["async", "get"] if run % 2 == 0 else ["get", "async"]
        for which in order:
            fill(pymqi, C, qmgr, n, persistent)
            out[which].append((mq_async if which == "async" else mq_get)(pymqi, C, qmgr, n))
        qmgr.disconnect()
        if peer:
            out["rabbitmq"].append(rabbit(n, persistent))
    return {k: {"msgs_per_s": statistics.median(r for r, _ in v), "cpu_us_per_msg": statistics.median(c for _, c in v)}
            for k, v in out.items() if v}


def restarts(pymqi: Any, C: Any, port: int, count: int) -> dict[str, float]:
    """(b): kill -9 and strmqm ``count`` times under a started consumer; the time from the queue
    manager ready again to the event handler's MQRC_RECONNECTED, and from then to the consumer
    having a message put after the restart."""
    import signal

    from mqlite.cli.proc import start_server
    from mqlite.paths import QMPaths
    ini = os.path.join(os.environ["MQLITE_DATA"], "mqclient.ini")
    with open(ini, "w", encoding="utf-8") as f:
        f.write("CHANNELS:\n  ReconDelay=(20,0)\n  MQReconnectTimeout=120\n")
    os.environ["MQCLNTCF"] = ini
    c = pymqi.QueueManager(None)
    c.connect_with_options(QM, cd=pymqi.CD(ChannelName=b"BENCH.SVRCONN", ConnectionName=f"127.0.0.1({port})".encode()),
                           opts=C.MQCNO_RECONNECT_Q_MGR)
    back, got = threading.Event(), threading.Event()
    want = [b""]
    c.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackType=C.MQCBT_EVENT_HANDLER, CallbackFunction=lambda **kw:
                                                  back.set() if kw["cbc"].Reason == C.MQRC_RECONNECTED else None))
    q = pymqi.Queue(c, "BENCH.Q", C.MQOO_INPUT_AS_Q_DEF)
    # (a message the consumer had when the queue manager was killed, not yet acknowledged, comes
    # again after the restart: the one waited for is the one put after it)
    q.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackFunction=lambda **kw: got.set()
                                                  if kw["msg"] == want[0] else None))
    c.ctl(C.MQOP_START, pymqi.CTLO())
    paths = QMPaths.of(QM)
    to_back, to_message = [], []
    for i in range(count):
        want[0] = b"after restart %d" % i
        back.clear()
        got.clear()
        pid = paths.running_pid()
        assert pid
        os.kill(pid, signal.SIGKILL)
        while paths.running_pid():
            time.sleep(0.005)
        failed = start_server(QM)
        if failed:
            raise RuntimeError(failed)
        ready = time.perf_counter()
        if not back.wait(60):
            raise RuntimeError("no MQRC_RECONNECTED")
        reconnected = time.perf_counter()
        p = pymqi.connect(QM, "BENCH.SVRCONN", f"127.0.0.1({port})")
        pq = pymqi.Queue(p, "BENCH.Q", C.MQOO_OUTPUT)
        put_at = time.perf_counter()
        pq.put(want[0])
        if not got.wait(60):
            raise RuntimeError("the consumer did not get the message put after the restart")
        pq.close()
        p.disconnect()
        to_back.append(max(0.0, reconnected - ready) * 1000)
        to_message.append((time.perf_counter() - put_at) * 1000)
    c.ctl(C.MQOP_STOP, pymqi.CTLO())
    c.disconnect()

    def pct(v: list[float], p: float) -> float:
        v = sorted(v)
        return v[min(len(v) - 1, int(round(p * (len(v) - 1))))]
    return {"reconnected_ms_p50": pct(to_back, 0.5), "reconnected_ms_p99": pct(to_back, 0.99),
            "message_ms_p50": pct(to_message, 0.5), "message_ms_p99": pct(to_message, 0.99), "restarts": count}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=50000)
    ap.add_argument("--np", type=int, default=10000, help="messages for the persistent run")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--restarts", type=int, default=20)
    ap.add_argument("--json")
    args = ap.parse_args()
    os.environ["MQLITE_DATA"] = tempfile.mkdtemp(prefix="mqlite-bench-")
    os.environ["MQSNOAUT"] = "yes"
    port = free_port()
    mqlite_cmd("crtmqm", "-p", str(port), QM)
    mqlite_cmd("strmqm", QM)
    results: dict[str, Any] = {}
    try:
        mqlite_cmd("runmqsc", QM, stdin=OPEN_SECURITY + "DEFINE QLOCAL(BENCH.Q) MAXDEPTH(1000000) DEFREADA(YES)\n"
                                                     "DEFINE CHANNEL(BENCH.SVRCONN) CHLTYPE(SVRCONN)\n")
        from mqlite import pymqi
        from mqlite.pymqi import CMQC as C
        results["nonpersistent"] = consumers(pymqi, C, port, args.n, args.runs, False)
        results["persistent"] = consumers(pymqi, C, port, args.np, args.runs, True)
        if args.restarts:
            results["reconnect"] = restarts(pymqi, C, port, args.restarts)
    finally:
        mqlite_cmd("endmqm", "-i", QM)
        mqlite_cmd("dltmqm", QM)
    for case, rows in results.items():
        for k, v in rows.items():
            if isinstance(v, dict) and "msgs_per_s" in v:
                print(f"{case:14} {k:10} {v['msgs_per_s']:10.0f} msgs/s  {v['cpu_us_per_msg']:6.1f} µs CPU/msg (client)")
    if "reconnect" in results:
        r = results["reconnect"]
        print(f"reconnect after {r['restarts']} kill -9 + restarts: ready -> MQRC_RECONNECTED p50 "
              f"{r['reconnected_ms_p50']:.0f} ms p99 {r['reconnected_ms_p99']:.0f} ms; a message put then reaches "
              f"the consumer p50 {r['message_ms_p50']:.1f} ms p99 {r['message_ms_p99']:.1f} ms")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
