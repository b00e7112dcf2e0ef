"""100 concurrent consumers: one asyncio event loop (mqlite.aio) against 100 threads with the
pymqi face, in the same run, on the same queue manager (issue 40).

Each consumer has a connection of its own and gets with a wait from one queue, one message per
MQGET (the faces' plain gets: no read-ahead on either side). Two phases per run:

- live: the consumers are waiting when a producer process puts --msgs nonpersistent 256-byte
  messages (asynchronous puts); the time is from the first message got to the last;
- drain: --msgs messages are on the queue when the consumers start.

Printed: messages a second (median of --runs), and what the consumers' process spent: CPU
seconds per 10,000 messages and its thread count. Also the asyncio face's ``async for``
(read-ahead) in the drain phase.

    python bench/aio.py [--consumers 100] [--msgs 5000] [--runs 3] [--json out.json]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import mqlite_cmd  # noqa: E402

from mqlite.cli.proc import free_port  # noqa: E402
from mqlite.paths import QMPaths  # noqa: E402
from mqlite.testing import OPEN_SECURITY  # noqa: E402

QM, QUEUE, CHANNEL = "AIO.QM", "BENCH.AIO", "BENCH.SVRCONN"
BODY = b"x" * 256


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def threads_now() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("Threads:"))


def produce(conname: str, n: int) -> None:
    """The producer process: n asynchronous puts, then MQSTAT to see them all done."""
    from mqlite import pymqi
    from mqlite.pymqi import CMQC as C
    qmgr = pymqi.connect(QM, CHANNEL, conname)
    q = pymqi.Queue(qmgr, QUEUE, C.MQOO_OUTPUT)
    pmo = pymqi.PMO(Options=C.MQPMO_ASYNC_RESPONSE | C.MQPMO_NO_SYNCPOINT)
    for _ in range(n):
        q.put(BODY, pymqi.MD(), pmo)
    qmgr.stat(C.MQSTAT_TYPE_ASYNC_ERROR)
    q.close()
    qmgr.disconnect()


def start_producer(conname: str, n: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, __file__, "--produce", conname, "--msgs", str(n)])


# --- 100 threads, the pymqi face ------------------------------------------------------------------
def threaded(conname: str, consumers: int, n: int, live: bool) -> tuple[float, float, int]:
    from mqlite import pymqi
    from mqlite.pymqi import CMQC as C
    got = 0
    first = [0.0]                       # when the first message was got
    lock = threading.Lock()
    done = threading.Event()
    ready = threading.Barrier(consumers + 1)

    def consume() -> None:
        nonlocal got
        qmgr = pymqi.connect(QM, CHANNEL, conname)
        q = pymqi.Queue(qmgr, QUEUE, C.MQOO_INPUT_SHARED)
        gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=200)
        ready.wait()
        while not done.is_set():
            try:
                q.get(None, pymqi.MD(), gmo)
            except pymqi.MQMIError as e:
                if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                    continue
                raise
            with lock:
                got += 1
                if got == 1:
                    first[0] = time.perf_counter()
                if got == n:
                    done.set()
        q.close()
        qmgr.disconnect()
    workers = [threading.Thread(target=consume) for _ in range(consumers)]
    for w in workers:
        w.start()
    ready.wait()
    count = threads_now()
    c0, t0 = cpu(), time.perf_counter()
    producer = start_producer(conname, n) if live else None
    done.wait(300)
    elapsed, used = time.perf_counter() - (first[0] if live else t0), cpu() - c0
    for w in workers:
        w.join()
    if producer is not None:
        producer.wait()
    return n / elapsed, used / n * 10000, count


# --- one event loop, the asyncio face -------------------------------------------------------------
def evented(conname: str, consumers: int, n: int, live: bool, read_ahead: bool = False) -> tuple[float, float, int]:
    from mqlite import aio
    from mqlite.pymqi import CMQC as C

    async def main() -> tuple[float, float, int]:
        conns = await asyncio.gather(*(aio.connect(QM, CHANNEL, conname) for _ in range(consumers)))
        queues = await asyncio.gather(*(c.open(QUEUE, C.MQOO_INPUT_SHARED) for c in conns))
        got = 0
        first = 0.0
        done = asyncio.Event()

        def one() -> None:
            nonlocal got, first
            got += 1
            if got == 1:
                first = time.perf_counter()
            if got == n:
                done.set()

        async def consume(q: aio.Queue) -> None:
            if read_ahead:
                async for _m in q.messages(read_ahead=16):
                    one()
                return
            while True:
                await q.get()
                one()
        count = threads_now()
        tasks = []
        if live:                        # waiting when the producer starts
            tasks = [asyncio.create_task(consume(q)) for q in queues]
            await asyncio.sleep(0.2)
        c0, t0 = cpu(), time.perf_counter()
        producer = start_producer(conname, n) if live else None
        if not live:                    # the messages are there: timed from the consumers' start
            tasks = [asyncio.create_task(consume(q)) for q in queues]
        await asyncio.wait_for(done.wait(), 300)
        elapsed, used = time.perf_counter() - (first if live else t0), cpu() - c0
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*(c.close() for c in conns))
        if producer is not None:
            await asyncio.to_thread(producer.wait)
        return n / elapsed, used / n * 10000, count
    return asyncio.run(main())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--consumers", type=int, default=100)
    ap.add_argument("--msgs", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--produce")
    args = ap.parse_args()
    if args.produce:
        produce(args.produce, args.msgs)
        return 0
    os.environ["MQLITE_DATA"] = tempfile.mkdtemp(prefix="mqlite-bench-aio-")
    os.environ["MQSNOAUT"] = "yes"
    port = free_port()
    conname = f"127.0.0.1({port})"
    mqlite_cmd("crtmqm", "-p", str(port), QM)
    with open(QMPaths.of(QM).ini, "a", encoding="utf-8") as f:
        f.write(f"CHANNELS:\n   MaxChannels={args.consumers + 32}\n")   # as an MQ administrator would
    mqlite_cmd("strmqm", QM)
    rows: dict[str, list[tuple[float, float, int]]] = {}
    try:
        mqlite_cmd("runmqsc", QM, stdin=OPEN_SECURITY + f"DEFINE QLOCAL({QUEUE}) MAXDEPTH(1000000)\n"
                   f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(SVRCONN)\n")
        cases = [
            ("live: pymqi face, threads", lambda: threaded(conname, args.consumers, args.msgs, True)),
            ("live: asyncio face, one loop", lambda: evented(conname, args.consumers, args.msgs, True)),
            ("drain: pymqi face, threads", lambda: threaded(conname, args.consumers, args.msgs, False)),
            ("drain: asyncio face, one loop", lambda: evented(conname, args.consumers, args.msgs, False)),
            ("drain: asyncio async for (read-ahead)",
             lambda: evented(conname, args.consumers, args.msgs, False, read_ahead=True)),
        ]
        for _ in range(args.runs):
            for name, case in cases:
                if name.startswith("drain"):
                    produce(conname, args.msgs)
                rows.setdefault(name, []).append(case())
    finally:
        mqlite_cmd("endmqm", "-i", QM)
    print(f"{args.consumers} consumers, {args.msgs} messages of {len(BODY)} bytes, median of {args.runs} runs")
    print(f"{'':40} {'msgs/s':>9} {'cpu s/10k':>10} {'threads':>8}")
    out = {}
    for name, results in rows.items():
        rate = statistics.median(r[0] for r in results)
        cost = statistics.median(r[1] for r in results)
        count = max(r[2] for r in results)
        out[name] = {"msgs_per_s": rate, "cpu_s_per_10k": cost, "threads": count}
        print(f"{name:40} {rate:9.0f} {cost:10.2f} {count:8d}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
