"""End-to-end throughput over one channel: put on QM1, get on QM2, 1 KiB messages, BATCHSZ(50).

A producer process puts N messages to a remote queue definition on QM1 while a consumer process
gets them from the target queue on QM2; throughput is N over the time from the first put to the
last get, latency is put-to-get per message (the producer stamps the time in the body).
Persistent: the producer puts in units of work of 50 on a queue definition with DEFPRESP(ASYNC)
(MQ's pattern for persistent throughput) and the consumer gets under syncpoint, committing every
50. Nonpersistent: DEFPRESP(ASYNC) puts outside syncpoint, read-ahead gets (DEFREADA(YES)), the
channel with NPMSPEED(FAST).

    python bench/channel.py [--n 20000] [--runs 3] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BODY = 1024
STAMP = struct.Struct("<d")


def producer(conname: str, n: int, persistent: bool, start: "mp.Event", out: "mp.Queue") -> None:
    from mqlite import pymqi
    from mqlite.pymqi import CMQC as C
    qmgr = pymqi.connect("QM1", "APP.SVRCONN", conname)
    q = pymqi.Queue(qmgr, "REMOTE.Q", C.MQOO_OUTPUT)
    md = pymqi.MD(Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT)
    pmo = pymqi.PMO(Options=C.MQPMO_SYNCPOINT if persistent else C.MQPMO_NO_SYNCPOINT)
    pad = b"x" * (BODY - STAMP.size)
    start.wait()
    t0 = time.time()
    for i in range(n):
        md.MsgId = C.MQMI_NONE
        q.put(STAMP.pack(time.time()) + pad, md, pmo)
        if persistent and i % 50 == 49:
            qmgr.commit()
    if persistent:
        qmgr.commit()
    sts = qmgr.stat()
    out.put(("producer", t0, time.time(), sts.PutFailureCount))
    qmgr.disconnect()


def consumer(conname: str, n: int, persistent: bool, start: "mp.Event", out: "mp.Queue") -> None:
    from mqlite import pymqi
    from mqlite.pymqi import CMQC as C
    qmgr = pymqi.connect("QM2", "APP.SVRCONN", conname)
    q = pymqi.Queue(qmgr, "TARGET.Q", C.MQOO_INPUT_AS_Q_DEF)
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT | (C.MQGMO_SYNCPOINT if persistent else C.MQGMO_NO_SYNCPOINT),
                    WaitInterval=30000)
    lat = []
    start.set()
    for i in range(n):
        body = q.get(2048, pymqi.MD(), gmo)
        lat.append(time.time() - STAMP.unpack_from(body)[0])
        if persistent and i % 50 == 49:
            qmgr.commit()
    if persistent:
        qmgr.commit()
    out.put(("consumer", time.time(), lat))
    qmgr.disconnect()


def run_once(qm1, qm2, n: int, persistent: bool) -> dict[str, float]:
    ctx = mp.get_context("spawn")
    start, out = ctx.Event(), ctx.Queue()
    pc = ctx.Process(target=consumer, args=(qm2.conname, n, persistent, start, out))
    pp = ctx.Process(target=producer, args=(qm1.conname, n, persistent, start, out))
    pc.start()
    pp.start()
    results = {}
    for _ in range(2):
        item = out.get(timeout=600)
        results[item[0]] = item
    pp.join()
    pc.join()
    _, t0, _t1, failures = results["producer"]
    _, t_end, lat = results["consumer"]
    if failures:
        raise RuntimeError(f"{failures} puts failed")
    lat.sort()
    return {"msgs_per_s": n / (t_end - t0), "p50_ms": lat[len(lat) // 2] * 1000,
            "p99_ms": lat[int(len(lat) * 0.99)] * 1000}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    from mqlite.testing import Harness
    results: dict[str, dict[str, float]] = {}
    with Harness() as h:
        qm2 = h.add("QM2", "DEFINE QLOCAL(TARGET.Q) MAXDEPTH(1000000) DEFREADA(YES)\n"
                           "DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR) BATCHSZ(50)\n")
        qm1 = h.add("QM1", "DEFINE QLOCAL(QM2) USAGE(XMITQ) MAXDEPTH(1000000)\n"
                           f"DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('{qm2.conname}') XMITQ(QM2) "
                           "BATCHSZ(50) NPMSPEED(FAST)\n"
                           "DEFINE QREMOTE(REMOTE.Q) RNAME(TARGET.Q) RQMNAME(QM2) XMITQ(QM2) DEFPRESP(ASYNC)\n")
        for label, persistent in (("persistent", True), ("nonpersistent", False)):
            runs = [run_once(qm1, qm2, args.n, persistent) for _ in range(args.runs)]
            results[label] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    print(f"{'case':16} {'msgs/s':>10} {'p50 ms':>8} {'p99 ms':>8}")
    for k, v in results.items():
        print(f"{k:16} {v['msgs_per_s']:10.0f} {v['p50_ms']:8.1f} {v['p99_ms']:8.1f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
