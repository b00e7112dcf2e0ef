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
consumer acking each message, (c) publishes in AMQP transactions of 50. Its run of a case follows
mqlite's in each round (runs alternate, the peer's with them), so that the two medians of a ratio
come from the same minutes.

Concurrency (d): 1, 8 and 32 producer processes (--producers), each putting --per persistent
messages outside syncpoint on BENCH.SYNC, every put acknowledged after its fsync, all started
together once every process is connected; then 8 consumer processes get them all (persistent
gets outside syncpoint, each also acknowledged after its fsync). The rate is all messages over
the wall time from the common start to the last finish. RabbitMQ gets the same: publisher
processes each waiting for every confirm, then 8 consumers acking each message.

CPU per message: each phase also records the CPU its clients used (this process, or the sum of the
worker processes) and the broker's (the mqlite server process; RabbitMQ's Erlang VM, read from
/proc), in µs per message: what a shared machine or a CI runner pays, which a quiet machine's
rates hide. With --hog N, N processes spin on the CPU for the whole run beside both brokers (the
contended variant).

Prints medians of --runs runs per figure, in msgs/s and CPU µs per message.  Usage:
    python bench/putget.py [--n 20000] [--np 5000] [--runs 3] [--producers 1,8,32] [--per 400]
                           [--hog 0] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import cpu_hogs, cpu_seconds, mqlite_cmd, rabbit_available, rabbit_pid  # noqa: E402

from mqlite.cli.proc import free_port  # noqa: E402
from mqlite.paths import QMPaths  # noqa: E402
from mqlite.testing import OPEN_SECURITY  # noqa: E402

BODY = b"x" * 1024
QM = "BENCH.QM"
BIG = "BENCH.BIG"


def rate(n: int, seconds: float) -> float:
    return n / seconds if seconds > 0 else float("inf")


class Phase:
    """A put or get phase of ``n`` messages run in this process: its wall time, this process's CPU
    (the client's) and the CPU of the broker process ``broker`` (None: not measured)."""

    def __init__(self, n: int, broker: int | None) -> None:
        self.n, self.broker = n, broker

    def __enter__(self) -> "Phase":
        self.b0 = cpu_seconds(self.broker) if self.broker else 0.0
        self.c0, self.t0 = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.t0
        self.client = time.process_time() - self.c0
        self.server = cpu_seconds(self.broker) - self.b0 if self.broker else float("nan")

    def figures(self) -> dict[str, float]:
        """msgs/s, and CPU µs per message of the clients and the broker."""
        return {"rate": rate(self.n, self.seconds), "client_us": self.client / self.n * 1e6,
                "server_us": self.server / self.n * 1e6}


# --- mqlite -------------------------------------------------------------------------------------
Figures = dict[str, dict[str, float]]     # "put"/"get": Phase.figures()


def mq_run(qmgr, pymqi, C, queue: str, n: int, persistent: bool, uow: int, server: int) -> Figures:
    q = pymqi.Queue(qmgr, queue, C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF)
    md = pymqi.MD(Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT)
    pmo = pymqi.PMO(Options=C.MQPMO_SYNCPOINT if uow else C.MQPMO_NO_SYNCPOINT)
    with Phase(n, server) as put:
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
    gmo = pymqi.GMO(Options=C.MQGMO_SYNCPOINT if uow else C.MQGMO_NO_SYNCPOINT)
    with Phase(n, server) as get:
        for i in range(n):
            gmd = pymqi.MD()
            q.get(2048, gmd, gmo)
            if uow and (i + 1) % uow == 0:
                qmgr.commit()
        if uow:
            qmgr.commit()
    q.close()
    return {"put": put.figures(), "get": get.figures()}


# --- RabbitMQ -----------------------------------------------------------------------------------
def rabbit_run(n: int, mode: str) -> Figures:
    import pika
    conn = pika.BlockingConnection(pika.ConnectionParameters("127.0.0.1", 5672))
    ch = conn.channel()
    qname = "mqlite.bench"
    ch.queue_delete(qname)
    ch.queue_declare(qname, durable=(mode != "np"))
    props = pika.BasicProperties(delivery_mode=2 if mode != "np" else 1)
    broker = rabbit_pid()
    with Phase(n, broker) as put:
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
    got = 0
    with Phase(n, broker) as get:
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
    ch.cancel()
    ch.queue_delete(qname)
    conn.close()
    return {"put": put.figures(), "get": get.figures()}


# --- (d) concurrency: processes started together -------------------------------------------------
def _mq_worker(role: str, port: int, count: int, go: Any, out: Any) -> None:
    from mqlite import pymqi
    from mqlite.pymqi import CMQC as C
    qmgr = pymqi.connect(QM, "BENCH.SVRCONN", f"127.0.0.1({port})")
    q = pymqi.Queue(qmgr, "BENCH.SYNC", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    out.put(None)
    go.wait()
    cpu = time.process_time()
    if role == "put":
        md = pymqi.MD(Persistence=C.MQPER_PERSISTENT)
        for _ in range(count):
            md.MsgId = C.MQMI_NONE
            q.put(BODY, md)
    else:
        gmo = pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_WAIT, WaitInterval=5000)
        for _ in range(count):
            q.get(2048, pymqi.MD(), gmo)
    out.put((time.time(), time.process_time() - cpu))
    q.close()
    qmgr.disconnect()


def _rabbit_worker(role: str, port: int, count: int, go: Any, out: Any) -> None:
    import pika
    conn = pika.BlockingConnection(pika.ConnectionParameters("127.0.0.1", 5672))
    ch = conn.channel()
    out.put(None)
    go.wait()
    cpu = time.process_time()
    if role == "put":
        ch.confirm_delivery()
        props = pika.BasicProperties(delivery_mode=2)
        for _ in range(count):
            ch.basic_publish("", "mqlite.bench.conc", BODY, props)
    else:
        ch.basic_qos(prefetch_count=50)
        got = 0
        for m, _p, _b in ch.consume("mqlite.bench.conc", auto_ack=False):
            ch.basic_ack(m.delivery_tag)
            got += 1
            if got == count:
                break
        ch.cancel()
    out.put((time.time(), time.process_time() - cpu))
    conn.close()


def concurrent(worker: object, port: int, broker: int | None, producers: int, per: int,
               consumers: int = 8) -> Figures:
    """The put and get figures of ``producers`` processes putting ``per`` each, then ``consumers``
    processes getting them all: the rate over the wall time from the common start to the last end,
    the CPU of all the worker processes and of the broker ``broker`` per message."""
    import multiprocessing as mp
    ctx = mp.get_context("spawn")
    figures: Figures = {}
    total = producers * per
    shares = [total // consumers + (1 if i < total % consumers else 0) for i in range(consumers)]
    for role, counts in (("put", [per] * producers), ("get", shares)):
        out, go = ctx.Queue(), ctx.Event()
        procs = [ctx.Process(target=worker, args=(role, port, c, go, out)) for c in counts]
        for p in procs:
            p.start()
        for _ in procs:                 # every process started and connected before the common start
            out.get(timeout=600)
        b0 = cpu_seconds(broker) if broker else 0.0
        start = time.time()
        go.set()
        ends = [out.get(timeout=600) for _ in procs]
        server = cpu_seconds(broker) - b0 if broker else float("nan")
        for p in procs:
            p.join(60)
            if p.exitcode != 0:
                raise RuntimeError(f"a {role} process failed (exit {p.exitcode})")
        figures[role] = {"rate": rate(total, max(e for e, _ in ends) - start),
                         "client_us": sum(c for _, c in ends) / total * 1e6, "server_us": server / total * 1e6}
    return figures


def rabbit_concurrent(producers: int, per: int) -> Figures:
    """``concurrent`` against RabbitMQ, on a durable queue declared for the run and deleted after."""
    import pika
    conn = pika.BlockingConnection(pika.ConnectionParameters("127.0.0.1", 5672))
    conn.channel().queue_declare("mqlite.bench.conc", durable=True)
    try:
        return concurrent(_rabbit_worker, 5672, rabbit_pid(), producers, per)
    finally:
        conn.channel().queue_delete("mqlite.bench.conc")
        conn.close()


# RabbitMQ's workload for each mqlite case that has one (rabbit_run's modes)
RABBIT_MODES = {"a_nonpersistent": "np", "b_persistent": "confirm", "c_persistent_uow50": "tx"}


def big_buffers_qm() -> int:
    """A second queue manager, BENCH.BIG, with DefaultQBufferSize at MQ's maximum (100 MiB): case
    (a) on it keeps every message in memory. Returns its port."""
    port = free_port()
    mqlite_cmd("crtmqm", "-p", str(port), BIG)
    ini = QMPaths.of(BIG).ini
    with open(ini, encoding="utf-8") as f:
        text = f.read()
    with open(ini, "w", encoding="utf-8") as f:
        f.write(text.replace("DefaultQBufferSize=8388608", "DefaultQBufferSize=104857600"))
    mqlite_cmd("strmqm", BIG)
    mqlite_cmd("runmqsc", BIG, stdin=OPEN_SECURITY + "DEFINE QLOCAL(BENCH.TUNED) MAXDEPTH(1000000) DEFPRESP(ASYNC) "
                                                     "DEFREADA(YES)\nDEFINE CHANNEL(BENCH.SVRCONN) CHLTYPE(SVRCONN)\n")
    return port


def medians(runs: list[Figures]) -> dict[str, float]:
    """The median of each figure over runs, flat: put, get (msgs/s), put_client_us, put_server_us,
    get_client_us, get_server_us (CPU µs per message)."""
    out = {}
    for phase in ("put", "get"):
        out[phase] = statistics.median(r[phase]["rate"] for r in runs)
        for who in ("client_us", "server_us"):
            out[f"{phase}_{who}"] = statistics.median(r[phase][who] for r in runs)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000, help="messages for the nonpersistent run")
    ap.add_argument("--np", type=int, default=5000, help="messages for the persistent runs")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--parts", default="abcd", help="which cases to run")
    ap.add_argument("--producers", default="1,8,32", help="(d): producer process counts ('' to skip)")
    ap.add_argument("--per", type=int, default=400, help="(d): persistent messages per producer")
    ap.add_argument("--hog", type=int, default=0, help="processes spinning on the CPU beside both brokers")
    ap.add_argument("--json", help="write the medians here")
    args = ap.parse_args()
    os.environ["MQLITE_DATA"] = tempfile.mkdtemp(prefix="mqlite-bench-")
    port = free_port()
    # Measured open, as the tests' queue managers are: no OAM, no CHLAUTH, no CONNAUTH (bench/security.py
    # measures what security costs).
    os.environ["MQSNOAUT"] = "yes"
    mqlite_cmd("crtmqm", "-p", str(port), QM)
    mqlite_cmd("strmqm", QM)
    big_port = big_buffers_qm() if "a" in args.parts else 0
    servers = {QM: QMPaths.of(QM).running_pid()}
    if big_port:
        servers[BIG] = QMPaths.of(BIG).running_pid()
    results: dict[str, dict[str, float]] = {}
    rabbit = rabbit_available()
    try:
        mqlite_cmd("runmqsc", QM, stdin=OPEN_SECURITY + "DEFINE QLOCAL(BENCH.SYNC) MAXDEPTH(1000000)\n"
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
        # Case (a) also runs on BENCH.BIG, whose buffers hold the whole burst, a run on each in
        # turn: with the defaults (8 MiB) most of the burst is spilled and read back, and the
        # spill must cost little more than keeping it.
        big = pymqi.connect(BIG, "BENCH.SVRCONN", f"127.0.0.1({big_port})") if "a" in args.parts else None
        with cpu_hogs(args.hog):
            for name, queue, n, pers, uow in cases:
                if name[0] not in args.parts:
                    continue
                runs: dict[str, list[Figures]] = {"mqlite": [], "big": [], "rabbitmq": []}
                # With BENCH.BIG too, the two go first in turn: the same one first every time measured
                # the order as much as the buffers. RabbitMQ's run of the same case follows each round,
                # so that both sides of a ratio come from the same minutes (the machine's speed moves by
                # half within an hour: run at the end, the peer's figures came from another one).
                pair = [(qmgr, QM), (big, BIG)] if big is not None and name == "a_nonpersistent" else [(qmgr, QM)]
                for run in range(args.runs):
                    for which, qm_name in pair if run % 2 == 0 else pair[::-1]:
                        runs["mqlite" if qm_name == QM else "big"].append(
                            mq_run(which, pymqi, C, queue, n, pers, uow, servers[qm_name]))
                    if rabbit and name in RABBIT_MODES:
                        runs["rabbitmq"].append(rabbit_run(n, RABBIT_MODES[name]))
                results[f"mqlite_{name}"] = medians(runs["mqlite"])
                if runs["big"]:
                    results["mqlite_a_nonpersistent_100MiB"] = medians(runs["big"])
                if runs["rabbitmq"]:
                    results[f"rabbitmq_{name}"] = medians(runs["rabbitmq"])
            if big is not None:
                big.disconnect()
            qmgr.disconnect()
            for k in [int(x) for x in args.producers.split(",") if x.strip() and "d" in args.parts]:
                sides: dict[str, list[Figures]] = {"mqlite": [], "rabbitmq": []}
                for _ in range(args.runs):
                    sides["mqlite"].append(concurrent(_mq_worker, port, servers[QM], k, args.per))
                    if rabbit:
                        sides["rabbitmq"].append(rabbit_concurrent(k, args.per))
                for side, figures in sides.items():
                    if figures:
                        results[f"{side}_d_persistent_{k}_producers"] = medians(figures)
    finally:
        for name in (QM, BIG) if big_port else (QM,):
            mqlite_cmd("endmqm", "-i", name)
            mqlite_cmd("dltmqm", name)
    if not rabbit:
        print("RabbitMQ not reachable on 127.0.0.1:5672 (or pika missing): peer figures skipped")
    print(f"{'case':36} {'put msgs/s':>11} {'get msgs/s':>11}   CPU µs/msg: put client+server, get client+server")
    for k, v in results.items():
        print(f"{k:36} {v['put']:11.0f} {v['get']:11.0f}   {v['put_client_us']:6.0f} + {v['put_server_us']:<6.0f}"
              f" {v['get_client_us']:6.0f} + {v['get_server_us']:<6.0f}")
    m, b = results.get("mqlite_a_nonpersistent"), results.get("mqlite_a_nonpersistent_100MiB")
    if m and b:
        print(f"spill: default buffers / 100 MiB buffers: put {m['put'] / b['put']:.0%}  get {m['get'] / b['get']:.0%}")
    for case in ["a_nonpersistent", "b_persistent", "c_persistent_uow50"] + [f"d_persistent_{k}_producers" for k in
                                                        [int(x) for x in args.producers.split(",") if x.strip()]]:
        m, r = results.get(f"mqlite_{case}"), results.get(f"rabbitmq_{case}")
        if m and r:
            cpu = {ph: (m[f"{ph}_client_us"] + m[f"{ph}_server_us"]) / (r[f"{ph}_client_us"] + r[f"{ph}_server_us"])
                   for ph in ("put", "get")}
            print(f"ratio {case}: put {m['put'] / r['put']:.2f}x  get {m['get'] / r['get']:.2f}x;"
                  f" CPU per message put {cpu['put']:.2f}x  get {cpu['get']:.2f}x")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
