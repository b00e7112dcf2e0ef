"""Intra-group queuing against a channel, between the same two queue managers.

QM1 and QM2 are members of one queue-sharing group and are also joined by a sender/receiver
channel. The workload is bench/channel.py's (1 KiB messages from a producer on QM1 to a consumer
on QM2 through the remote definition REMOTE.Q; persistent in units of work of 50, nonpersistent
with asynchronous puts and read-ahead); only the route changes: with ``ALTER QMGR IGQ(ENABLED)`` on
QM1 the messages go through SYSTEM.QSG.TRANSMIT.QUEUE and QM2's IGQ agent, with IGQ(DISABLED)
through the transmission queue QM2 and the channel's two agents. Both shared stores are measured
(SQLite; PostgreSQL when reachable). Medians of ``--runs``.

    python bench/igq.py [--n 10000] [--runs 3] [--stores sqlite,postgresql] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import string
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from channel import run_once  # noqa: E402  (bench/channel.py: the same producer and consumer)

PG_URL = os.environ.get("MQLITE_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def measure(store: str, n: int, runs: int) -> dict[str, dict[str, float]]:
    from mqlite.store.shared import open_shared
    from mqlite.testing import Harness
    qsg = "B" + "".join(random.choices(string.ascii_uppercase, k=3))
    url = PG_URL if store == "postgresql" else None
    out: dict[str, dict[str, float]] = {}
    try:
        with Harness() as h:
            qm2 = h.add("QM2", "DEFINE QLOCAL(TARGET.Q) MAXDEPTH(1000000) DEFREADA(YES)\n"
                               "DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR) BATCHSZ(50)\n", qsg=qsg, qsg_store=url)
            qm1 = h.add("QM1", "DEFINE QLOCAL(QM2) USAGE(XMITQ) MAXDEPTH(1000000)\n"
                               f"DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('{qm2.conname}') XMITQ(QM2) "
                               "BATCHSZ(50) NPMSPEED(FAST)\n"
                               "DEFINE QREMOTE(REMOTE.Q) RNAME(TARGET.Q) RQMNAME(QM2) XMITQ(QM2) DEFPRESP(ASYNC)\n",
                        qsg=qsg, qsg_store=url)
            qm1.mqsc("ALTER QLOCAL(SYSTEM.QSG.TRANSMIT.QUEUE) QSGDISP(SHARED) MAXDEPTH(1000000)", check=True)
            for label, persistent in (("persistent", True), ("nonpersistent", False)):
                for route, igq in (("igq", "ENABLED"), ("channel", "DISABLED")):
                    qm1.mqsc(f"ALTER QMGR IGQ({igq})", check=True)
                    rs = [run_once(qm1, qm2, n, persistent) for _ in range(runs)]
                    out[f"{label} {route}"] = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
    finally:
        if url is not None:
            s = open_shared(qsg, url)
            s.drop_group()
            s.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--stores", default="sqlite,postgresql")
    ap.add_argument("--json")
    args = ap.parse_args()
    results: dict[str, dict[str, float]] = {}
    for store in args.stores.split(","):
        if store == "postgresql":
            try:
                import psycopg
                psycopg.connect(PG_URL, connect_timeout=3).close()
            except Exception as e:  # noqa: BLE001
                print(f"postgresql: not reachable ({e}); skipped")
                continue
        for k, v in measure(store, args.n, args.runs).items():
            results[f"{store} {k}"] = v
    print(f"{'store / case / route':36} {'msgs/s':>10} {'p50 ms':>8} {'p99 ms':>8}")
    for k, v in results.items():
        print(f"{k:36} {v['msgs_per_s']:10.0f} {v['p50_ms']:8.1f} {v['p99_ms']:8.1f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
