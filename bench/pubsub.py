"""Publish/subscribe fan-out (issue 20), with RabbitMQ's fanout and topic exchanges (pika) in the
same run when it is reachable.

One publisher publishes --n messages of 1 KiB to a topic with K subscribers (K in --subs, default
1, 10 and 100), each message its own (a number in front: equal data let a server share work
between publications that real ones do not); then one consumer takes every copy from every
subscriber. The figure is copies delivered per second: n x K over the time from the first publish
to the last copy taken.

- mqlite: K managed subscriptions on the topic string ``bench/fanout``, read ahead (nonpersistent:
  non-durable, published with MQPMO_ASYNC_RESPONSE; persistent: durable, each publication answered
  after its fsync as MQPUT outside syncpoint is, taken in units of work of 200: mqlite reads ahead
  under syncpoint, docs/design.md), through a client connection.
- RabbitMQ: a fanout exchange (and, for the wildcard case, a topic exchange bound with
  ``bench.#``) with K queues (persistent: durable queues, persistent messages, publisher confirms),
  taken by one consumer with auto-ack.

Prints medians of --runs runs, and for mqlite the two halves apart (ms a publication while
publishing, copies/s while consuming).  Usage:
    python bench/pubsub.py [--n 2000] [--subs 1,10,100] [--runs 3] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import mqlite_cmd, rabbit_available  # noqa: E402

from mqlite.cli.proc import free_port, run_mqlite
from mqlite.testing import OPEN_SECURITY

BODY = b"x" * 1024
TAIL = BODY[8:]                 # each publication is a number in front of it
QM = "BENCH.PS"


def mqlite_run(pymqi, C, port: int, n: int, k: int, persistent: bool, wildcard: bool,
               phases: list[tuple[float, float]] | None = None) -> float:
    """Copies/s; ``phases`` is given (ms a publication, copies/s consumed) as well."""
    conn = pymqi.connect(QM, "BENCH.SVRCONN", f"127.0.0.1({port})")
    subs = []
    for i in range(k):
        opts = C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_READ_AHEAD | (C.MQSO_DURABLE if persistent else 0)
        sd = pymqi.SD(Options=opts)
        sd.set_vs("ObjectString", "bench/#" if wildcard else "bench/fanout")
        if persistent:
            sd.set_vs("SubName", f"BENCH.{i}")
        subs.append(pymqi.Subscription(conn, sub_desc=sd))
    md = pymqi.MD(Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT)
    # Nonpersistent: asynchronous put (MQ's fire-and-forget, as an unconfirmed AMQP publish);
    # persistent: each publication answered once it is on disk, as a confirmed publish.
    pmo = pymqi.PMO(Options=0 if persistent else C.MQPMO_ASYNC_RESPONSE)
    topic = pymqi.Topic(conn, topic_string="bench/fanout")
    topic.open(open_opts=C.MQOO_OUTPUT)
    t0 = time.perf_counter()
    for i in range(n):
        md.MsgId = b""
        topic.pub(b"%08d" % i + TAIL, md, pmo)
    if not persistent:
        conn.stat()                     # every asynchronous publication has been delivered
    t1 = time.perf_counter()
    # Persistent copies are taken in units of work of 200 (one fsync each), nonpersistent ones
    # outside syncpoint: the ways an MQ consumer takes many messages; both read ahead.
    gmo = pymqi.GMO(Options=C.MQGMO_NO_WAIT | (C.MQGMO_SYNCPOINT if persistent else 0))
    for sub in subs:
        for i in range(n):
            sub.get(None, pymqi.MD(), gmo)
            if persistent and i % 200 == 199:
                conn.commit()
        if persistent:
            conn.commit()
    elapsed = time.perf_counter() - t0
    if phases is not None:
        phases.append(((t1 - t0) * 1000 / n, n * k / (t0 + elapsed - t1)))
    topic.close()
    for sub in subs:
        sub.close(sub_close_options=C.MQCO_REMOVE_SUB, close_sub_queue=True)
    conn.disconnect()
    return n * k / elapsed


def rabbit_run(n: int, k: int, persistent: bool, wildcard: bool) -> float:
    import pika
    conn = pika.BlockingConnection(pika.ConnectionParameters("127.0.0.1", 5672))
    ch = conn.channel()
    exchange = "mqlite.bench.topic" if wildcard else "mqlite.bench.fanout"
    ch.exchange_delete(exchange)
    ch.exchange_declare(exchange, "topic" if wildcard else "fanout", durable=persistent)
    queues = []
    for i in range(k):
        q = f"mqlite.bench.sub.{i}"
        ch.queue_delete(q)
        ch.queue_declare(q, durable=persistent)
        ch.queue_bind(q, exchange, "bench.#" if wildcard else "")
        queues.append(q)
    props = pika.BasicProperties(delivery_mode=2 if persistent else 1)
    if persistent:
        ch.confirm_delivery()
    t0 = time.perf_counter()
    for i in range(n):
        # confirmed: returns once the broker has it
        ch.basic_publish(exchange, "bench.fanout", b"%08d" % i + TAIL, props)
    got = 0
    ch.basic_qos(prefetch_count=1000)
    for q in queues:
        for _m, _p, _b in ch.consume(q, auto_ack=True):
            got += 1
            if got % n == 0:
                break
        ch.cancel()
    elapsed = time.perf_counter() - t0
    for q in queues:
        ch.queue_delete(q)
    ch.exchange_delete(exchange)
    conn.close()
    return n * k / elapsed


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--subs", default="1,10,100")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    counts = [int(x) for x in args.subs.split(",")]
    os.environ["MQLITE_DATA"] = tempfile.mkdtemp(prefix="mqlite-bench-ps-")
    os.environ["MQSNOAUT"] = "yes"
    port = free_port()
    mqlite_cmd("crtmqm", "-p", str(port), QM)
    mqlite_cmd("strmqm", QM)
    rabbit = rabbit_available()
    results: dict[str, list[float]] = {}
    phases: dict[str, list[tuple[float, float]]] = {}
    try:
        mqlite_cmd("runmqsc", QM, stdin=OPEN_SECURITY + "DEFINE CHANNEL(BENCH.SVRCONN) CHLTYPE(SVRCONN)\n"
                   "ALTER QMODEL(SYSTEM.DURABLE.MODEL.QUEUE) MAXDEPTH(1000000)\n"
                   "ALTER QMODEL(SYSTEM.NDURABLE.MODEL.QUEUE) MAXDEPTH(1000000)\n")
        from mqlite import pymqi
        from mqlite.cmq import CMQC as C
        for _run in range(args.runs):
            for persistent in (False, True):
                for k in counts:
                    for wildcard in (False, True):
                        label = f"{'persistent' if persistent else 'nonpersistent'} k={k} " \
                                f"{'wildcard' if wildcard else 'exact'}"
                        n = args.n if not persistent else max(200, args.n // 4)
                        results.setdefault("mqlite " + label, []).append(
                            mqlite_run(pymqi, C, port, n, k, persistent, wildcard, phases.setdefault(label, [])))
                        if rabbit:
                            results.setdefault("rabbitmq " + label, []).append(rabbit_run(n, k, persistent, wildcard))
    finally:
        run_mqlite("endmqm", "-i", QM)
    print(f"{'case':<44}{'copies/s':>12}")
    summary = {k: statistics.median(v) for k, v in results.items()}
    for key, value in summary.items():
        print(f"{key:<44}{value:>12,.0f}")
    # The two halves of mqlite's figure: publishing (each publication answered) and consuming.
    halves = {label: (statistics.median(p for p, _c in v), statistics.median(c for _p, c in v))
              for label, v in phases.items() if v}
    for label, (pub_ms, consumed) in halves.items():
        print(f"mqlite {label}: publishing {pub_ms:.2f} ms a publication, consuming {consumed:,.0f} copies/s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"n": args.n, "runs": args.runs, "summary": summary, "all": results, "halves": halves},
                      f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
