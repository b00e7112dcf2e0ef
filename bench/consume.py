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
    finally:
        mqlite_cmd("endmqm", "-i", QM)
        mqlite_cmd("dltmqm", QM)
    for case, rows in results.items():
        for k, v in rows.items():
            if isinstance(v, dict) and "msgs_per_s" in v:
                print(f"{case:14} {k:10} {v['msgs_per_s']:10.0f} msgs/s  {v['cpu_us_per_msg']:6.1f} µs CPU/msg (client)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
