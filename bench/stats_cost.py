"""What statistics cost: the put/get of bench/putget.py (1 KiB nonpersistent messages over a
client connection, on a queue with MQ's defaults and on one with DEFPRESP(ASYNC) DEFREADA(YES))
with statistics on (the queue's STATQ(ON) and the queue manager's STATMQI(ON)) and off (STATQ(OFF)
and STATMQI(OFF)), STATINT(1) (statistics messages every second while it runs). The two are run in
turn, the order swapped every run, STATMQI switched by runmqsc before each, and the medians
compared: issue 36 asks for them within 5%.

    python bench/stats_cost.py [--n 20000] [--runs 5] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import mqlite_cmd  # noqa: E402
from putget import mq_run  # noqa: E402

from mqlite.cli.proc import free_port  # noqa: E402
from mqlite.testing import OPEN_SECURITY  # noqa: E402

QM = "BENCH.STATS"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", help="write the medians here")
    args = ap.parse_args()
    os.environ["MQLITE_DATA"] = tempfile.mkdtemp(prefix="mqlite-bench-")
    os.environ["MQSNOAUT"] = "yes"
    port = free_port()
    mqlite_cmd("crtmqm", "-p", str(port), QM)
    mqlite_cmd("strmqm", QM)
    results: dict[str, dict[str, float]] = {}
    try:
        define = ""
        for stat in ("ON", "OFF"):
            define += (f"DEFINE QLOCAL(SYNC.{stat}) MAXDEPTH(1000000) STATQ({stat})\n"
                       f"DEFINE QLOCAL(TUNED.{stat}) MAXDEPTH(1000000) STATQ({stat}) DEFPRESP(ASYNC) DEFREADA(YES)\n")
        mqlite_cmd("runmqsc", QM, stdin=OPEN_SECURITY + define + "DEFINE CHANNEL(BENCH.SVRCONN) CHLTYPE(SVRCONN)\n"
                   "ALTER QMGR STATQ(OFF) STATINT(1)\n")
        from mqlite import pymqi
        from mqlite.pymqi import CMQC as C
        qmgr = pymqi.connect(QM, "BENCH.SVRCONN", f"127.0.0.1({port})")
        for kind in ("SYNC", "TUNED"):
            rates: dict[str, tuple[list[float], list[float]]] = {"ON": ([], []), "OFF": ([], [])}
            for run in range(args.runs):
                order = ("ON", "OFF") if run % 2 == 0 else ("OFF", "ON")
                for stat in order:
                    mqlite_cmd("runmqsc", QM, stdin=f"ALTER QMGR STATMQI({stat})\n")
                    p, g = mq_run(qmgr, pymqi, C, f"{kind}.{stat}", args.n, False, 0)
                    rates[stat][0].append(p)
                    rates[stat][1].append(g)
            for stat, (puts, gets) in rates.items():
                results[f"{kind.lower()}_statq_{stat.lower()}"] = {"put": statistics.median(puts),
                                                                   "get": statistics.median(gets)}
        qmgr.disconnect()
    finally:
        mqlite_cmd("endmqm", "-i", QM)
    print(f"{'case':24} {'put msgs/s':>12} {'get msgs/s':>12}")
    for name, r in results.items():
        print(f"{name:24} {r['put']:12.0f} {r['get']:12.0f}")
    for kind in ("sync", "tuned"):
        on, off = results[f"{kind}_statq_on"], results[f"{kind}_statq_off"]
        print(f"{kind}: STATQ(ON) STATMQI(ON) is {on['put'] / off['put']:.1%} of OFF for puts, "
              f"{on['get'] / off['get']:.1%} for gets")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
