"""Put/get throughput over a client connection, with RabbitMQ (pika) in the same run.

One producer puts N messages of 1 KiB, then one consumer gets them, for:
  (a) nonpersistent, (b) persistent outside syncpoint, (c) persistent in units of work of 50.
Each mqlite case runs against two queues: BENCH.SYNC with MQ's defaults (every MQPUT and MQGET
waits for its answer) and BENCH.TUNED with DEFPRESP(ASYNC) DEFREADA(YES), MQ's documented settings
for throughput (asynchronous put, read-ahead of nonpersistent messages).  The application code is
the same for both.  Case (b) is measured on BENCH.SYNC only: each put is acknowledged after its fsync,
which is what a publisher-confirmed persistent publish is compared with.
RabbitMQ on 127.0.0.1:5672 gets the same workload when it is reachable: (a) transient publishes
and an auto-ack consumer, (b) persistent publishes each confirmed (publisher confirms) and a
consumer acking each message, (c) publishes in AMQP transactions of 50.

Prints medians of --runs runs per figure, in msgs/s.  Usage:
    python bench/putget.py [--n 20000] [--np 5000] [--runs 3] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mqlite.cli.proc import free_port, run_mqlite  # noqa: E402

BODY = b"x" * 1024
QM = "BENCH.QM"


def mqlite_cmd(*args: str, stdin: str | None = None) -> str:
    p = run_mqlite(*args, stdin=stdin, timeout=300)
    if p.returncode not in (0, 10):
        raise RuntimeError(f"mqlite {' '.join(args)} failed: {p.stdout}{p.stderr}")
    return p.stdout


def rate(n: int, seconds: float) -> float:
    return n / seconds if seconds > 0 else float("inf")


# --- mqlite -------------------------------------------------------------------------------------
def mq_run(qmgr, pymqi, C, queue: str, n: int, persistent: bool, uow: int) -> tuple[float, float]:
    q = pymqi.Queue(qmgr, queue, C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF)
    md = pymqi.MD(Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT)
    pmo = pymqi.PMO(Options=C.MQPMO_SYNCPOINT if uow else C.MQPMO_NO_SYNCPOINT)
    t0 = time.perf_counter()
    for i in range(n):
        md.MsgId = C.MQMI_NONE
        q.put(BODY, md, pmo)
        if uow and (i + 1) % uow == 0:
            qmgr.commit()
    if uow:
        qmgr.commit()
    sts = qmgr.stat()   # MQSTAT: every asynchronous put has been processed (and none failed)
    if sts.PutFailureCount:
        raise RuntimeError(f"{sts.PutFailureCount} asynchronous puts failed: reason {sts.Reason}")
    put_s = time.perf_counter() - t0
    gmo = pymqi.GMO(Options=C.MQGMO_SYNCPOINT if uow else C.MQGMO_NO_SYNCPOINT)
    t0 = time.perf_counter()
    for i in range(n):
        gmd = pymqi.MD()
        q.get(2048, gmd, gmo)
        if uow and (i + 1) % uow == 0:
            qmgr.commit()
    if uow:
        qmgr.commit()
    get_s = time.perf_counter() - t0
    q.close()
    return rate(n, put_s), rate(n, get_s)


# --- RabbitMQ -----------------------------------------------------------------------------------
def rabbit_available() -> bool:
    try:
        import pika  # noqa: F401
    except ImportError:
        return False
    try:
        with socket.create_connection(("127.0.0.1", 5672), timeout=1):
            return True
    except OSError:
        return False


def rabbit_run(n: int, mode: str) -> tuple[float, float]:
    import pika
    conn = pika.BlockingConnection(pika.ConnectionParameters("127.0.0.1", 5672))
    ch = conn.channel()
    qname = "mqlite.bench"
    ch.queue_delete(qname)
    ch.queue_declare(qname, durable=(mode != "np"))
    props = pika.BasicProperties(delivery_mode=2 if mode != "np" else 1)
    t0 = time.perf_counter()
    if mode == "np":
        for _ in range(n):
            ch.basic_publish("", qname, BODY, props)
    elif mode == "confirm":
        ch.confirm_delivery()
        for _ in range(n):
            ch.basic_publish("", qname, BODY, props)  # returns once the broker confirmed it
    else:  # "tx": AMQP transactions of 50
        ch.tx_select()
        for i in range(n):
            ch.basic_publish("", qname, BODY, props)
            if (i + 1) % 50 == 0:
                ch.tx_commit()
        ch.tx_commit()
    put_s = time.perf_counter() - t0
    got = 0
    t0 = time.perf_counter()
    if mode == "np":
        ch.basic_qos(prefetch_count=500)
        for _m, _p, _b in ch.consume(qname, auto_ack=True):
            got += 1
            if got == n:
                break
    else:
        ch.basic_qos(prefetch_count=50)
        for m, _p, _b in ch.consume(qname, auto_ack=False):
            got += 1
            if mode == "tx":
                if got % 50 == 0 or got == n:
                    ch.basic_ack(m.delivery_tag, multiple=True)
                    ch.tx_commit()
            else:
                ch.basic_ack(m.delivery_tag)
            if got == n:
                break
    get_s = time.perf_counter() - t0
    ch.cancel()
    ch.queue_delete(qname)
    conn.close()
    return rate(n, put_s), rate(n, get_s)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000, help="messages for the nonpersistent run")
    ap.add_argument("--np", type=int, default=5000, help="messages for the persistent runs")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", help="write the medians here")
    args = ap.parse_args()
    os.environ["MQLITE_DATA"] = tempfile.mkdtemp(prefix="mqlite-bench-")
    port = free_port()
    mqlite_cmd("crtmqm", "-p", str(port), QM)
    mqlite_cmd("strmqm", QM)
    results: dict[str, dict[str, float]] = {}
    try:
        mqlite_cmd("runmqsc", QM, stdin="DEFINE QLOCAL(BENCH.SYNC) MAXDEPTH(1000000)\n"
                                        "DEFINE QLOCAL(BENCH.TUNED) MAXDEPTH(1000000) DEFPRESP(ASYNC) DEFREADA(YES)\n"
                                        "DEFINE CHANNEL(BENCH.SVRCONN) CHLTYPE(SVRCONN)\n")
        from mqlite import pymqi
        from mqlite.pymqi import CMQC as C
        qmgr = pymqi.connect(QM, "BENCH.SVRCONN", f"127.0.0.1({port})")
        cases = [("a_nonpersistent", "BENCH.TUNED", args.n, False, 0),
                 ("a_nonpersistent_sync", "BENCH.SYNC", args.n, False, 0),
                 ("b_persistent", "BENCH.SYNC", args.np, True, 0),
                 ("c_persistent_uow50", "BENCH.TUNED", args.np, True, 50),
                 ("c_persistent_uow50_sync", "BENCH.SYNC", args.np, True, 50)]
        for name, queue, n, pers, uow in cases:
            puts, gets = [], []
            for _ in range(args.runs):
                p, g = mq_run(qmgr, pymqi, C, queue, n, pers, uow)
                puts.append(p)
                gets.append(g)
            results[f"mqlite_{name}"] = {"put": statistics.median(puts), "get": statistics.median(gets)}
        qmgr.disconnect()
    finally:
        mqlite_cmd("endmqm", "-i", QM)
        mqlite_cmd("dltmqm", QM)
    if rabbit_available():
        for name, n, mode in (("a_nonpersistent", args.n, "np"), ("b_persistent", args.np, "confirm"),
                              ("c_persistent_uow50", args.np, "tx")):
            puts, gets = [], []
            for _ in range(args.runs):
                p, g = rabbit_run(n, mode)
                puts.append(p)
                gets.append(g)
            results[f"rabbitmq_{name}"] = {"put": statistics.median(puts), "get": statistics.median(gets)}
    else:
        print("RabbitMQ not reachable on 127.0.0.1:5672 (or pika missing): peer figures skipped")
    print(f"{'case':36} {'put msgs/s':>12} {'get msgs/s':>12}")
    for k, v in results.items():
        print(f"{k:36} {v['put']:12.0f} {v['get']:12.0f}")
    for case in ("a_nonpersistent", "b_persistent"):
        m, r = results.get(f"mqlite_{case}"), results.get(f"rabbitmq_{case}")
        if m and r:
            print(f"ratio {case}: put {m['put'] / r['put']:.2f}x  get {m['get'] / r['get']:.2f}x")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
