"""What-if routing, notebook style: record the SALES cluster's workload decisions, ask Spark what a
heavier weight on PR1 would change, then make the change live and compare.

    python examples/whatif/run.py [--orders 1000] [--weight 80]

1. `mqlite up examples/sales --ports auto`, then `mqlite whatif record FR1 on`.
2. FR1 puts --orders messages to SALES.ORDERS with MQOO_BIND_NOT_FIXED; recording goes off.
3. Spark reads FR1's routing log as a DataFrame and replays it through the workload algorithm twice:
   as recorded (every decision reproduced) and with `ALTER CHANNEL(SALES.PR1) CHLTYPE(CLUSRCVR)
   CLWLWGHT(--weight)`: the distribution per instance, the messages that would move, the channels.
4. The same command is run on PR1, the same traffic put again, and the live split printed beside
   the prediction. Exit status 0 when the replay reproduced every decision and the prediction is
   within 2% of the live run.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)


def put(conname: str, n: int) -> None:
    from mqlite import pymqi
    from mqlite.cmq import CMQC as C
    conn = pymqi.connect("FR1", "DEV.APP.SVRCONN", conname)
    q = pymqi.Queue(conn, "SALES.ORDERS", C.MQOO_OUTPUT | C.MQOO_BIND_NOT_FIXED)
    for i in range(n):
        q.put(f"order {i}".encode())
    q.close()
    conn.disconnect()


def depth(name: str) -> int:
    from mqlite.cli.proc import run_mqlite
    shown = run_mqlite("runmqsc", name, stdin="DISPLAY QLOCAL(SALES.ORDERS) CURDEPTH\n").stdout
    found = re.search(r"CURDEPTH\((\d+)\)", shown)
    return int(found.group(1)) if found else 0


def arrived(n: int) -> dict[str, int]:
    deadline = time.monotonic() + 60
    while (got := {q: depth(q) for q in ("PR1", "PR2")}) and sum(got.values()) < n:
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {got} of {n} messages arrived")
        time.sleep(0.2)
    return got


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--orders", type=int, default=1000)
    ap.add_argument("--weight", type=int, default=80)
    args = ap.parse_args()
    os.environ.setdefault("MQLITE_DATA", tempfile.mkdtemp(prefix="mqlite-whatif-"))
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    from mqlite.cli import topology
    from mqlite.cli.proc import run_mqlite
    from mqlite.spark.whatif import outcomes

    sales = os.path.join(ROOT, "examples", "sales")
    change = f"ALTER CHANNEL(SALES.PR1) CHLTYPE(CLUSRCVR) CLWLWGHT({args.weight})"
    print("$ mqlite up examples/sales --ports auto")
    members = topology.up(sales, auto_ports=True)
    fr1 = f"127.0.0.1({next(m.port for m in members if m.name == 'FR1')})"
    spark = None
    try:
        print("$ mqlite whatif record FR1 on")
        log = run_mqlite("whatif", "record", "FR1", "on").stdout.split(": ", 1)[1].strip()
        put(fr1, args.orders)
        run_mqlite("whatif", "record", "FR1", "off")
        recorded = arrived(args.orders)
        print(f"put {args.orders} orders from FR1 (BIND_NOT_FIXED): {recorded}")

        spark = (SparkSession.builder.master("local[2]").appName("mqlite-whatif")
                 .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        same = outcomes(spark, log)
        reproduced = same.filter("NOT moved").count() / same.count()
        print(f"replayed as recorded: {100 * reproduced:.1f}% of the decisions reproduced")
        df = outcomes(spark, log, [change])
        print(f"replayed with {change}:")
        df.groupBy("queue", "predicted_qmgr").count().orderBy("predicted_qmgr").show()
        df.filter("moved").groupBy("qmgr", "predicted_qmgr", "predicted_channel").count().show()
        share = df.filter("predicted_qmgr = 'PR1'").count() / args.orders

        print(f"$ runmqsc PR1 <<< '{change}'")
        for name in ("PR1", "PR2"):
            run_mqlite("runmqsc", name, stdin="CLEAR QLOCAL(SALES.ORDERS)\n")
        run_mqlite("runmqsc", "PR1", stdin=change + "\n")
        deadline = time.monotonic() + 60
        while f"CLWLWGHT({args.weight})" not in run_mqlite("runmqsc", "FR1",
                                                           stdin="DISPLAY CLUSQMGR(PR1) CLWLWGHT\n").stdout:
            if time.monotonic() > deadline:
                raise RuntimeError("FR1 did not learn PR1's new weight")
            time.sleep(0.2)
        put(fr1, args.orders)
        live = arrived(args.orders)["PR1"] / args.orders
        print(f"PR1's share: predicted {100 * share:.1f}%, live {100 * live:.1f}%")
        return 0 if reproduced == 1.0 and abs(share - live) <= 0.02 else 1
    finally:
        if spark is not None:
            spark.stop()
        print("$ mqlite down examples/sales --delete")
        topology.down(sales, delete=True)


if __name__ == "__main__":
    sys.exit(main())
