"""Cluster benchmarks (issue 4). So far: (a) workload decisions per second.

(a) The workload algorithm over 8 instances of a queue, as the cluster cache uses it: the same
    destinations tuple handed over call after call (so rules 1-16 are worked out once and kept)
    and every decision charged to the use record, as an MQPUT does. Reported too: the rate when
    every call brings a new tuple (rules 1-16 run each time), and with varied attributes (ranks,
    priorities, states, weights) so that more rules have work to do.

    python bench/cluster.py [--n 200000] [--runs 5] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mqlite.cmq import CMQCFC
from mqlite.engine.wlm import Destination, Request, UseRecord, choose

SALES = frozenset({"SALES"})


def uniform() -> tuple[Destination, ...]:
    return tuple(Destination(f"QM{i}", f"SALES.QM{i}", SALES, SALES) for i in range(8))


def varied() -> tuple[Destination, ...]:
    states = [CMQCFC.MQCHS_RUNNING, CMQCFC.MQCHS_INACTIVE, CMQCFC.MQCHS_RETRYING, CMQCFC.MQCHS_RUNNING]
    # two RETRYING channels and one suspended queue manager drop out; five weighted ones remain
    return tuple(Destination(f"QM{i}", f"SALES.QM{i}", SALES, SALES, netprty=i % 2, ch_weight=10 + 10 * i,
                             status=states[i % 4], suspended=i == 7)
                 for i in range(8))


def decisions(dests: tuple[Destination, ...], n: int, fresh: bool) -> float:
    req, used = Request(SALES), UseRecord()
    if fresh:   # distinct tuple objects of the same destinations: the shortlist memo never hits
        copies = [tuple(d for d in dests) for _ in range(n)]
        t0 = time.perf_counter()
        for d in copies:
            used.charge(choose(d, req, used))
    else:
        t0 = time.perf_counter()
        for _ in range(n):
            used.charge(choose(dests, req, used))
    return n / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    results = {}
    for name, dests, fresh in (("a_decisions_per_s", uniform(), False),
                               ("a_decisions_per_s_varied", varied(), False),
                               ("a_decisions_per_s_uncached", uniform(), True)):
        n = args.n if not fresh else args.n // 5
        runs = [decisions(dests, n, fresh) for _ in range(args.runs)]
        results[name] = round(statistics.median(runs))
        print(f"{name:32} median {results[name]:>10,} /s  runs: {', '.join(f'{r:,.0f}' for r in runs)}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
