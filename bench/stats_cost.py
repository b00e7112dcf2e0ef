"""What statistics and accounting cost: the put/get of bench/putget.py (1 KiB nonpersistent
messages over a client connection, on a queue with MQ's defaults and on one with DEFPRESP(ASYNC)
DEFREADA(YES)) with statistics on (the queue's STATQ(ON) and the queue manager's STATMQI(ON)),
with accounting on (ACCTMQI(ON) ACCTQ(ON), statistics off) and with both off, STATINT(1) and
ACCTINT(1) (statistics messages and intermediate accounting records every second while it runs).
The three are run in turn, the order rotated every run, the attributes switched by runmqsc and a
new connection made before each (accounting is decided at MQCONN), and the medians compared:
issue 36 asks for them within 5%.

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
                   "ALTER QMGR STATQ(OFF) STATINT(1) ACCTINT(1)\n")
        from mqlite import pymqi
        from mqlite.pymqi import CMQC as C
        modes = {"ON": ("STATMQI(ON) ACCTMQI(OFF) ACCTQ(OFF)", "ON"),
                 "OFF": ("STATMQI(OFF) ACCTMQI(OFF) ACCTQ(OFF)", "OFF"),
                 "ACCT": ("STATMQI(OFF) ACCTMQI(ON) ACCTQ(ON)", "OFF")}
        names = list(modes)
        for kind in ("SYNC", "TUNED"):
            rates: dict[str, tuple[list[float], list[float]]] = {m: ([], []) for m in modes}
            for run in range(args.runs):
                for mode in names[run % 3:] + names[:run % 3]:
                    attrs, statq = modes[mode]
                    mqlite_cmd("runmqsc", QM, stdin=f"ALTER QMGR {attrs}\n")
                    qmgr = pymqi.connect(QM, "BENCH.SVRCONN", f"127.0.0.1({port})")
                    p, g = mq_run(qmgr, pymqi, C, f"{kind}.{statq}", args.n, False, 0)
                    qmgr.disconnect()
                    rates[mode][0].append(p)
                    rates[mode][1].append(g)
            for mode, (puts, gets) in rates.items():
                results[f"{kind.lower()}_{mode.lower()}"] = {"put": statistics.median(puts),
                                                            "get": statistics.median(gets)}
    finally:
        mqlite_cmd("endmqm", "-i", QM)
    print(f"{'case':24} {'put msgs/s':>12} {'get msgs/s':>12}")
    for name, r in results.items():
        print(f"{name:24} {r['put']:12.0f} {r['get']:12.0f}")
    for kind in ("sync", "tuned"):
        off = results[f"{kind}_off"]
        for mode, what in (("on", "STATQ(ON) STATMQI(ON)"), ("acct", "ACCTMQI(ON) ACCTQ(ON)")):
            r = results[f"{kind}_{mode}"]
            print(f"{kind}: {what} is {r['put'] / off['put']:.1%} of off for puts, {r['get'] / off['get']:.1%} for gets")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
