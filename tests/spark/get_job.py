"""A get-mode batch read run as its own Spark application, for tests/spark/test_spark_get.py.

    python get_job.py MASTER OPTIONS_JSON MARKS_DIR HOW

HOW is ``fail-once`` (partition 0's first attempt fails after it has read its whole range) or
``hold`` (each task reads its whole range — in mode get, removing it — then writes
``MARKS_DIR/<partition>-<attempt>`` with its executor JVM's pid and holds its rows a few seconds
before handing them on, for the test to kill that JVM: the issue's lost range). Prints
``ROWS <rows> <distinct msg ids>`` once the action has ended and the read has been settled.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from pyspark.sql import SparkSession

from mqlite.spark import register, wait_settled


def executor_pid() -> int:
    """The JVM this Python worker serves (its nearest ancestor called java)."""
    pid = os.getppid()
    while pid > 1:
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat[stat.index("(") + 1:stat.rindex(")")] == "java":
            return pid
        pid = int(stat[stat.rindex(")") + 2:].split()[1])
    return 0


def main() -> None:
    master, opts, marks, how = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], sys.argv[4]
    builder = (SparkSession.builder.master(master).appName("mqlite-get-job").config("spark.ui.enabled", "false")
               .config("spark.task.maxFailures", "4"))
    if master.startswith("spark://"):
        builder = (builder.config("spark.executor.cores", "1").config("spark.cores.max", "2")
                   .config("spark.executor.memory", "512m").config("spark.default.parallelism", "2"))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    register(spark)

    def tasks(batches):  # no hints: Spark would take them for a pandas function's
        from pyspark import TaskContext
        ctx = TaskContext.get()
        if how == "hold":
            held = list(batches)          # the data source's task has read (and removed) its range
            Path(marks, f"{ctx.partitionId()}-{ctx.attemptNumber()}").write_text(str(executor_pid()))
            time.sleep(4)
            batches = iter(held)
        yield from batches
        if how == "fail-once" and ctx.partitionId() == 0 and ctx.attemptNumber() == 0:
            raise RuntimeError("failing after the whole range was read (first attempt)")

    df = spark.read.format("mqlite").options(**opts).load().select("msg_id", "body")
    rows = df.mapInArrow(tasks, df.schema).collect()
    wait_settled(spark)
    print("ROWS", len(rows), len({bytes(r.msg_id) for r in rows}), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
