"""Spark benchmark (issue 6): 1 KiB messages read into a DataFrame, streamed from a queue to Parquet
and written from a DataFrame, each beside a plain client loop doing the same work against the same
queue manager.

(a) batch read: the queue holds --msgs messages; `spark.read.format("mqlite")...load().count()`
    browses them all (the count forces every row through Arrow into Spark), against a client loop
    browsing the same messages with MQGET. (c) stream to Parquet: --msgs messages streamed with
    `readStream` (Trigger.AvailableNow, a fresh checkpoint) into Parquet files and removed from the
    queue as Spark commits, against a client loop that gets them in units of work of 5,000 and
    writes each unit as a Parquet file (pyarrow) before committing it. (b) batch write: a DataFrame
    of --msgs rows (body, priority) written with `df.write.format("mqlite")` by two tasks, and by
    one (`coalesce(1)`), against a client loop
    putting the same messages in one unit of work. (d) destructive read to Parquet: --msgs messages
    read with `mode=get` and written as Parquet, the read settled (removed) when the action ends
    (issue 33), against the client loop of (c). (e) Spark's own JSON file source as the yardstick
    (issue 68), the same rows as JSON lines on local disk: a read summing the bodies' lengths
    (beside the same query on the queue), a write by two tasks (beside (b)), an AvailableNow
    stream to Parquet (beside (c)), a read written as Parquet (beside (d)). Medians of --runs
    runs; the SparkSession is started once, outside the timings.

    python bench/spark.py [--msgs 50000] [--runs 3]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--msgs", type=int, default=50_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    from mqlite import pymqi
    from mqlite.cmq import CMQC as C
    from mqlite.spark import register, wait_settled
    from mqlite.testing import Harness

    body = b"x" * 1024
    with Harness() as h:
        # A task's rows are one unit of work: MAXUMSGS must hold a partition's worth.
        qm = h.add("SPARKQM", "ALTER QMGR MAXUMSGS(999999999)\n"
                              "DEFINE QLOCAL(BENCH.IN) MAXDEPTH(999999999) DEFREADA(YES)\n"
                              "DEFINE QLOCAL(BENCH.OUT) MAXDEPTH(999999999)\n"
                              "DEFINE QLOCAL(BENCH.STREAM) MAXDEPTH(999999999) DEFREADA(YES)\n")
        opts = {"queueManager": qm.name, "channel": h.channel, "conname": qm.conname}
        conn = qm.client()
        pmo = pymqi.PMO(Options=C.MQPMO_SYNCPOINT)

        def fill(queue: str) -> None:
            qm.mqsc(f"CLEAR QLOCAL({queue})", check=True)
            q = pymqi.Queue(conn, queue, C.MQOO_OUTPUT)
            for i in range(args.msgs):
                q.put(body, pymqi.MD(Persistence=C.MQPER_PERSISTENT), pmo)
                if i % 500 == 499:
                    conn.commit()
            conn.commit()
            q.close()
        fill("BENCH.IN")
        work = tempfile.mkdtemp(prefix="mqlite-bench-spark-")
        spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        register(spark)
        # Warm up: one whole read, so that both Python workers have started and imported pyarrow
        # and mqlite (Spark reuses them); the timings are then the steady state.
        spark.read.format("mqlite").options(**opts, queue="BENCH.IN").load().count()
        results: dict[str, list[float]] = {"a_spark_read": [], "a_client_browse": [], "b_spark_write": [],
                                           "b_spark_write_1task": [], "b_client_put": [], "c_spark_stream": [],
                                           "c_client_get": [], "d_spark_get": [], "e_mqlite_read_sum": [],
                                           "e_json_read_sum": [], "e_json_write": [], "e_json_stream": [],
                                           "e_json_to_parquet": []}
        json_in = os.path.join(work, "json-in")
        spark.range(args.msgs).selectExpr("repeat('x', 1024) AS body", "CAST(id % 10 AS INT) AS priority") \
            .write.json(json_in)
        json_schema = "body string, priority int"
        for run in range(args.runs):
            t0 = time.perf_counter()
            n = spark.read.format("mqlite").options(**opts, queue="BENCH.IN").load().count()
            results["a_spark_read"].append(n / (time.perf_counter() - t0))
            assert n == args.msgs, n
            t0 = time.perf_counter()
            bq = pymqi.Queue(conn, "BENCH.IN", C.MQOO_BROWSE)
            option, seen = C.MQGMO_BROWSE_FIRST, 0
            while True:
                try:
                    bq.get(None, pymqi.MD(), pymqi.GMO(Options=option | C.MQGMO_NO_WAIT))
                except pymqi.MQMIError:
                    break
                option = C.MQGMO_BROWSE_NEXT
                seen += 1
            bq.close()
            results["a_client_browse"].append(seen / (time.perf_counter() - t0))
            df = spark.range(args.msgs).selectExpr("repeat('x', 1024) AS body", "CAST(id % 10 AS INT) AS priority")
            df.cache().count()
            t0 = time.perf_counter()
            df.write.format("mqlite").options(**opts, queue="BENCH.OUT").mode("append").save()
            results["b_spark_write"].append(args.msgs / (time.perf_counter() - t0))
            qm.mqsc("CLEAR QLOCAL(BENCH.OUT)", check=True)
            t0 = time.perf_counter()         # the same rows from one task (issue 68: two were ~100x slower)
            df.coalesce(1).write.format("mqlite").options(**opts, queue="BENCH.OUT").mode("append").save()
            results["b_spark_write_1task"].append(args.msgs / (time.perf_counter() - t0))
            qm.mqsc("CLEAR QLOCAL(BENCH.OUT)", check=True)
            t0 = time.perf_counter()
            oq = pymqi.Queue(conn, "BENCH.OUT", C.MQOO_OUTPUT)
            for i in range(args.msgs):
                oq.put(body, pymqi.MD(Priority=i % 10, Format=C.MQFMT_STRING), pmo)
            conn.commit()
            oq.close()
            results["b_client_put"].append(args.msgs / (time.perf_counter() - t0))
            qm.mqsc("CLEAR QLOCAL(BENCH.OUT)", check=True)
            results["c_spark_stream"].append(stream_to_parquet(spark, opts, fill, work, run, args.msgs))
            results["c_client_get"].append(get_to_parquet(conn, fill, work, run, args.msgs))
            fill("BENCH.STREAM")
            out = os.path.join(work, f"d{run}")
            t0 = time.perf_counter()
            spark.read.format("mqlite").options(**opts, queue="BENCH.STREAM", mode="get").load() \
                .select("body", "put_timestamp", "position").write.parquet(out)
            wait_settled(spark)
            results["d_spark_get"].append(args.msgs / (time.perf_counter() - t0))
            left = pymqi.Queue(conn, "BENCH.STREAM", C.MQOO_INQUIRE).inquire(C.MQIA_CURRENT_Q_DEPTH)
            assert left == 0 and spark.read.parquet(out).count() == args.msgs, left
            yardstick(spark, opts, df, json_in, json_schema, work, run, args.msgs, results)
        spark.stop()
        conn.disconnect()
        shutil.rmtree(work, ignore_errors=True)
    for name, rates in results.items():
        print(f"{name:18} median {statistics.median(rates):>10,.0f} msgs/s  runs: "
              f"{', '.join(f'{r:,.0f}' for r in rates)}")


def yardstick(spark: Any, opts: dict[str, str], df: Any, json_in: str, schema: str, work: str, run: int, n: int,
              results: dict[str, list[float]]) -> None:
    """(e): Spark's JSON file source doing what (a) to (d) do, and the same summing read on the queue."""
    total = n * 1024
    t0 = time.perf_counter()
    got = spark.read.format("mqlite").options(**opts, queue="BENCH.IN").load().selectExpr("sum(length(body))")
    assert got.collect()[0][0] == total
    results["e_mqlite_read_sum"].append(n / (time.perf_counter() - t0))
    t0 = time.perf_counter()
    assert spark.read.schema(schema).json(json_in).selectExpr("sum(length(body))").collect()[0][0] == total
    results["e_json_read_sum"].append(n / (time.perf_counter() - t0))
    t0 = time.perf_counter()
    df.write.json(os.path.join(work, f"json-out{run}"))
    results["e_json_write"].append(n / (time.perf_counter() - t0))
    out, chk = os.path.join(work, f"js{run}"), os.path.join(work, f"js{run}.chk")
    t0 = time.perf_counter()
    q = (spark.readStream.schema(schema).json(json_in).writeStream.format("parquet").option("path", out)
         .option("checkpointLocation", chk).trigger(availableNow=True).start())
    q.awaitTermination()
    results["e_json_stream"].append(n / (time.perf_counter() - t0))
    out = os.path.join(work, f"jp{run}")
    t0 = time.perf_counter()
    spark.read.schema(schema).json(json_in).select("body").write.parquet(out)
    results["e_json_to_parquet"].append(n / (time.perf_counter() - t0))


def stream_to_parquet(spark: object, opts: dict[str, str], fill: object, work: str, run: int, n: int) -> float:
    fill("BENCH.STREAM")                                    # type: ignore[operator]
    out, chk = os.path.join(work, f"s{run}"), os.path.join(work, f"s{run}.chk")
    t0 = time.perf_counter()
    q = (spark.readStream.format("mqlite").options(**opts, queue="BENCH.STREAM").load()  # type: ignore[attr-defined]
         .select("body", "put_timestamp", "position").writeStream.format("parquet").option("path", out)
         .option("checkpointLocation", chk).trigger(availableNow=True).start())
    q.awaitTermination()
    rate = n / (time.perf_counter() - t0)
    got = spark.read.parquet(out).count()                   # type: ignore[attr-defined]
    assert got == n, got
    return rate


def get_to_parquet(conn: object, fill: object, work: str, run: int, n: int) -> float:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from mqlite import pymqi
    from mqlite.cmq import CMQC as C
    fill("BENCH.STREAM")                                    # type: ignore[operator]
    out = os.path.join(work, f"c{run}")
    os.makedirs(out)
    t0 = time.perf_counter()
    q = pymqi.Queue(conn, "BENCH.STREAM", C.MQOO_INPUT_SHARED)
    gmo = pymqi.GMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_NO_WAIT)
    got, part = 0, 0
    while True:
        bodies, stamps = [], []
        for _ in range(5000):
            md = pymqi.MD()
            try:
                bodies.append(q.get(None, md, gmo))
            except pymqi.MQMIError:
                break
            stamps.append(md.PutDate + md.PutTime)
        if not bodies:
            break
        pq.write_table(pa.table({"body": bodies, "put": stamps}), os.path.join(out, f"part-{part}.parquet"))
        conn.commit()                                       # type: ignore[attr-defined]
        got += len(bodies)
        part += 1
    q.close()
    assert got == n, got
    return n / (time.perf_counter() - t0)


if __name__ == "__main__":
    main()
