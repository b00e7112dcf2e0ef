"""The example pipeline: orders streamed from the SALES cluster queue into Parquet, aggregated per
minute, and the aggregates put to a reply queue.

    python examples/pipeline/run.py [--orders 2000] [--keep DIR]

1. `mqlite up examples/sales --ports auto`: the SALES cluster (full repositories FR1 and FR2,
   partial repositories PR1 and PR2, each hosting an instance of SALES.ORDERS); FR1 gets a local
   reply queue, SALES.AGGREGATES.
2. A producer on FR1 puts --orders JSON orders to SALES.ORDERS with MQOO_BIND_NOT_FIXED: the
   workload algorithm spreads them over PR1 and PR2.
3. Spark (local[2]) streams SALES.ORDERS with `instances=cluster` (the instances are found through
   FR1, a full repository: one partition per hosting queue manager) into Parquet, exactly once,
   with Trigger.AvailableNow, in batches of at most 500 orders; then a second run of the same query
   (same checkpoint) picks up orders put meanwhile.
4. A batch job reads the Parquet files, sums the orders per minute and item, and writes one JSON
   message per aggregate to SALES.AGGREGATES on FR1 (all or nothing: the tasks' puts are prepared
   and committed when the job succeeds).
5. The aggregates are got from SALES.AGGREGATES and printed, checked against the orders put; the
   cluster is ended and deleted. Exit status 0 when every order was counted exactly once.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

ITEMS = ("apples", "pears", "plums", "figs")


def produce(pymqi: object, conname: str, first: int, count: int) -> dict[str, int]:
    """Put orders first..first+count-1 from FR1; returns the amount put per item."""
    from mqlite.cmq import CMQC as C
    conn = pymqi.connect("FR1", "DEV.APP.SVRCONN", conname)            # type: ignore[attr-defined]
    q = pymqi.Queue(conn, "SALES.ORDERS", C.MQOO_OUTPUT | C.MQOO_BIND_NOT_FIXED)   # type: ignore[attr-defined]
    totals: dict[str, int] = {}
    for i in range(first, first + count):
        item = ITEMS[i % len(ITEMS)]
        amount = 1 + i % 7
        totals[item] = totals.get(item, 0) + amount
        md = pymqi.MD(Format=C.MQFMT_STRING, Persistence=C.MQPER_PERSISTENT)  # type: ignore[attr-defined]
        q.put(json.dumps({"order": i, "item": item, "amount": amount}), md)
    q.close()
    conn.disconnect()
    return totals


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--orders", type=int, default=2000)
    ap.add_argument("--keep", help="keep the Parquet files and checkpoint in this directory")
    args = ap.parse_args()
    os.environ.setdefault("MQLITE_DATA", tempfile.mkdtemp(prefix="mqlite-pipeline-"))
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    from mqlite import pymqi
    from mqlite.cli import topology
    from mqlite.cli.proc import run_mqlite
    from mqlite.cmq import CMQC as C
    from mqlite.spark import register

    sales = os.path.join(ROOT, "examples", "sales")
    work = args.keep or tempfile.mkdtemp(prefix="mqlite-pipeline-work-")
    print("$ mqlite up examples/sales --ports auto")
    members = topology.up(sales, auto_ports=True)
    port = {m.name: m.port for m in members}
    fr1 = f"127.0.0.1({port['FR1']})"
    spark = None
    try:
        run_mqlite("runmqsc", "-e", "FR1", stdin="DEFINE QLOCAL(SALES.AGGREGATES) DEFPSIST(YES) REPLACE\n")
        half = args.orders // 2
        expected = produce(pymqi, fr1, 0, half)
        print(f"put {half} orders to SALES.ORDERS from FR1 (BIND_NOT_FIXED)")
        spark = (SparkSession.builder.master("local[2]").appName("mqlite-pipeline")
                 .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        register(spark)
        opts = {"queueManager": "FR1", "channel": "DEV.APP.SVRCONN", "conname": fr1, "queue": "SALES.ORDERS",
                "instances": "cluster", "maxMessagesPerTrigger": "500"}
        parquet, checkpoint = os.path.join(work, "orders"), os.path.join(work, "orders.chk")
        schema = "order int, item string, amount int"

        def stream() -> int:
            orders = (spark.readStream.format("mqlite").options(**opts).load()
                      .select(F.from_json("text", schema).alias("o"), "put_timestamp", "qmgr")
                      .select("o.*", "put_timestamp", "qmgr"))
            q = (orders.writeStream.format("parquet").option("path", parquet)
                 .option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
            q.awaitTermination()
            return sum(p["numInputRows"] for p in q.recentProgress)

        deadline = time.monotonic() + 30
        streamed = 0
        while streamed < half and time.monotonic() < deadline:   # the channels are still delivering
            streamed += stream()
        print(f"streamed {streamed} orders into {parquet}")
        more = produce(pymqi, fr1, half, args.orders - half)
        for item, amount in more.items():
            expected[item] = expected.get(item, 0) + amount
        while streamed < args.orders and time.monotonic() < deadline + 30:
            streamed += stream()
        print(f"streamed {streamed} orders in all (the same checkpoint, restarted)")
        stored = spark.read.parquet(parquet)
        print("orders per instance:", {r.qmgr: r["count"] for r in stored.groupBy("qmgr").count().collect()})
        per_minute = (stored.groupBy(F.window("put_timestamp", "1 minute").start.alias("minute"), "item")
                      .agg(F.count("*").alias("orders"), F.sum("amount").alias("amount")))
        replies = per_minute.select(F.to_json(F.struct(F.date_format("minute", "yyyy-MM-dd'T'HH:mm'Z'")
                                                       .alias("minute"), "item", "orders", "amount")).alias("body"))
        replies.write.format("mqlite").options(queueManager="FR1", channel="DEV.APP.SVRCONN", conname=fr1,
                                               queue="SALES.AGGREGATES").mode("append").save()
        conn = pymqi.connect("FR1", "DEV.APP.SVRCONN", fr1)
        q = pymqi.Queue(conn, "SALES.AGGREGATES", C.MQOO_INPUT_SHARED)
        got: dict[str, int] = {}
        count = 0
        print("aggregates got from SALES.AGGREGATES:")
        while True:
            try:
                agg = json.loads(q.get())
            except pymqi.MQMIError as e:
                if e.reason != C.MQRC_NO_MSG_AVAILABLE:
                    raise
                break
            print(f"  {agg}")
            got[agg["item"]] = got.get(agg["item"], 0) + agg["amount"]
            count += agg["orders"]
        conn.disconnect()
        ok = got == expected and count == args.orders
        print(f"{count} orders aggregated; amounts per item {'match' if ok else 'DO NOT match'} what was put: "
              f"{expected}")
        return 0 if ok else 1
    finally:
        if spark is not None:
            spark.stop()
        print("$ mqlite down examples/sales --delete")
        topology.down(sales, delete=True)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
