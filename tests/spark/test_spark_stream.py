"""The mqlite data source streaming, on a local[2] SparkSession against real queue managers:
queue to Parquet restarted from its checkpoint, maxMessagesPerTrigger, a queue manager killed
(-9) mid-stream, exactly-once streaming writes with a replayed batch, and a cluster queue read on
every instance."""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.cli.proc import free_port
from mqlite.cmq import CMQC as C
from mqlite.spark import wait_settled
from mqlite.testing import Harness
from tests.conftest import ROOT
from tests.helpers import wait_until


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    h = Harness()
    try:
        h.add("STQM", "DEFINE QLOCAL(ORDERS) MAXDEPTH(100000) DEFPSIST(YES)\n"
                      "DEFINE QLOCAL(OUT) MAXDEPTH(100000) DEFPSIST(YES)\n"
                      "DEFINE QLOCAL(KILLQ) MAXDEPTH(100000) DEFPSIST(YES)\n"
                      "DEFINE QLOCAL(CUTQ) DEFPSIST(YES)\n")
        yield h
    finally:
        h.close()


@pytest.fixture
def workdir() -> Iterator[str]:
    d = tempfile.mkdtemp(prefix="mqlite-spark-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def options(qm: Any, queue: str) -> dict[str, str]:
    return {"queueManager": qm.name, "channel": qm.harness.channel, "conname": qm.conname, "queue": queue}


def put(qm: Any, queue: str, bodies: list[str]) -> None:
    conn = qm.client()
    q = pymqi.Queue(conn, queue, C.MQOO_OUTPUT)
    for b in bodies:
        q.put(b, pymqi.MD(Format=C.MQFMT_STRING, Persistence=C.MQPER_PERSISTENT))
    conn.disconnect()


def depth(qm: Any, queue: str) -> int:
    conn = qm.client()
    try:
        return pymqi.Queue(conn, queue, C.MQOO_INQUIRE).inquire(C.MQIA_CURRENT_Q_DEPTH)
    finally:
        conn.disconnect()


def to_parquet(spark: Any, opts: dict[str, str], out: str, chk: str, **extra: str) -> Any:
    df = spark.readStream.format("mqlite").options(**opts, **extra).load().select("text", "qmgr", "position")
    return df.writeStream.format("parquet").option("path", out).option("checkpointLocation", chk) \
        .trigger(availableNow=True).start()


def test_stream_to_parquet_restarts_from_its_checkpoint(harness: Harness, spark: Any, workdir: str) -> None:
    qm = harness.qm("STQM")
    out, chk = os.path.join(workdir, "out"), os.path.join(workdir, "chk")
    put(qm, "ORDERS", [f"order {i}" for i in range(300)])
    # A unit of work still open holds the stream back at its first put; what came before flows.
    held = qm.client()
    pymqi.Queue(held, "ORDERS", C.MQOO_OUTPUT).put(b"late", pymqi.MD(Format=C.MQFMT_STRING),
                                                   pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
    put(qm, "ORDERS", [f"after {i}" for i in range(10)])
    q = to_parquet(spark, options(qm, "ORDERS"), out, chk, maxMessagesPerTrigger="120")
    q.awaitTermination(120)
    assert q.exception() is None
    sizes = [p["numInputRows"] for p in q.recentProgress if p["numInputRows"]]
    assert sizes == [120, 120, 60]
    held.commit()
    held.disconnect()
    put(qm, "ORDERS", [f"order {i}" for i in range(300, 500)])
    q = to_parquet(spark, options(qm, "ORDERS"), out, chk)
    q.awaitTermination(120)
    assert q.exception() is None
    texts = [r.text for r in spark.read.parquet(out).collect()]
    expected = [f"order {i}" for i in range(500)] + [f"after {i}" for i in range(10)] + ["late"]
    assert sorted(texts) == sorted(expected)
    # Spark commits a batch to the source when it plans the next one; an AvailableNow run's last
    # batch is removed when the run ends (it stayed until the next run before issue 68).
    assert depth(qm, "ORDERS") == 0
    progress = q.lastProgress["sources"][0]
    assert json.loads(progress["latestOffset"])["STQM"]["behind"] == 0
    q = to_parquet(spark, options(qm, "ORDERS"), out, chk)
    q.awaitTermination(60)
    assert len(spark.read.parquet(out).collect()) == 511


def test_queue_manager_killed_mid_stream(harness: Harness, spark: Any, workdir: str) -> None:
    qm = harness.qm("STQM")
    out, chk = os.path.join(workdir, "out"), os.path.join(workdir, "chk")
    n = 4000
    put(qm, "KILLQ", [f"k{i}" for i in range(n)])
    q = to_parquet(spark, options(qm, "KILLQ"), out, chk, maxMessagesPerTrigger="200")
    wait_until(lambda: len([p for p in q.recentProgress if p["numInputRows"]]) >= 3, 120, "three batches")
    qm.kill9()
    try:
        with pytest.raises(Exception) as failure:
            q.awaitTermination(120)
        assert "(2538)" in str(failure.value) or "(2009)" in str(failure.value)
    finally:
        qm.start()                  # the module's other tests use this queue manager
    q = to_parquet(spark, options(qm, "KILLQ"), out, chk, maxMessagesPerTrigger="1000")
    q.awaitTermination(180)
    assert q.exception() is None
    texts = [r.text for r in spark.read.parquet(out).collect()]
    # Every persistent message exactly once, across the crash.
    assert len(texts) == n and set(texts) == {f"k{i}" for i in range(n)}


def test_a_read_whose_queue_manager_dies_reports_the_broken_connection(harness: Harness) -> None:
    """An executor's read cut off by the queue manager's death fails with MQ's reason, not with
    the error of ending a connection that is already gone."""
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    from mqlite.spark import MQLiteError
    from mqlite.spark.options import Options
    from mqlite.spark.read import Range, read_range
    qm = harness.qm("STQM")
    put(qm, "CUTQ", [f"r{i}" for i in range(300)])
    opts = Options.of({**options(qm, "CUTQ"), "batchSize": "100"})
    schema = StructType([StructField("text", StringType()), StructField("position", LongType())])
    batches = read_range(opts, schema, Range(qm.name, qm.conname, "CUTQ", 0, 1 << 60))
    assert next(batches).num_rows == 100
    qm.kill9()
    try:
        with pytest.raises(MQLiteError, match=r"\((2009|2162)\): reading CUTQ on STQM failed"):
            list(batches)
    finally:
        qm.start()


def test_streaming_write_is_exactly_once_when_a_batch_is_replayed(harness: Harness, spark: Any,
                                                                  workdir: str) -> None:
    qm = harness.qm("STQM")
    src, chk = os.path.join(workdir, "src"), os.path.join(workdir, "chk")
    spark.createDataFrame([(f"reply {i}", i % 10) for i in range(200)], "body string, priority int") \
        .repartition(3).write.parquet(src)

    def run() -> None:
        df = spark.readStream.schema("body string, priority int").parquet(src)
        q = df.writeStream.format("mqlite").options(**options(qm, "OUT")).option("checkpointLocation", chk) \
            .trigger(availableNow=True).start()
        q.awaitTermination(120)
        assert q.exception() is None
    run()
    assert depth(qm, "OUT") == 200
    # Forget that batch 0 was committed: Spark replays it on the next start (as after a crash
    # between the sink's commit and the commit log). Its puts are prepared again, then backed out.
    for name in ("0", ".0.crc"):
        os.remove(os.path.join(chk, "commits", name))
    run()
    assert depth(qm, "OUT") == 200
    conn = qm.client()
    assert conn.prepared_units() == []
    conn.disconnect()


def test_streaming_option_errors(harness: Harness, spark: Any, workdir: str) -> None:
    qm = harness.qm("STQM")
    with pytest.raises(Exception) as e:
        to_parquet(spark, options(qm, "ORDERS"), os.path.join(workdir, "g"), os.path.join(workdir, "gc"),
                   mode="get").awaitTermination(60)
    assert "leave mode at 'browse'" in str(e.value)
    with pytest.raises(Exception) as e:
        to_parquet(spark, options(qm, "ORDERS"), os.path.join(workdir, "g"), os.path.join(workdir, "gc"),
                   endingOffsets='{"STQM": 5}').awaitTermination(60)
    assert "option 'endingOffsets' is for batch reads" in str(e.value)
    q = to_parquet(spark, options(qm, "NO.SUCH.Q"), os.path.join(workdir, "o"), os.path.join(workdir, "c"))
    with pytest.raises(Exception) as failure:
        q.awaitTermination(60)
    assert "MQRC_UNKNOWN_OBJECT_NAME (2085)" in str(failure.value)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Harness]:
    h = Harness()
    try:
        ports = {"CLA": free_port(), "CLB": free_port()}
        retry = "SHORTRTY(60) SHORTTMR(1) LONGTMR(5)"       # the second one starts a moment later
        for me, other in (("CLA", "CLB"), ("CLB", "CLA")):
            h.add(me, f"ALTER QMGR REPOS(SPK)\n"
                      f"DEFINE CHANNEL(TO.{me}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({ports[me]})') "
                      f"CLUSTER(SPK) {retry}\n"
                      f"DEFINE CHANNEL(TO.{other}) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1({ports[other]})') "
                      f"CLUSTER(SPK) {retry}\nDEFINE QLOCAL(ORDERS) CLUSTER(SPK) DEFPSIST(YES) MAXDEPTH(100000)\n",
                  port=ports[me])
        for name in ("CLA", "CLB"):
            wait_until(lambda n=name: h.qm(n).mqsc("DISPLAY QCLUSTER(ORDERS)").stdout.count("CLUSQMGR(") == 2,
                       30, f"{name} to know both instances")
        yield h
    finally:
        h.close()


def test_cluster_queue_read_on_every_instance(cluster: Harness, spark: Any, workdir: str) -> None:
    a, b = cluster.qm("CLA"), cluster.qm("CLB")
    put(a, "ORDERS", [f"a{i}" for i in range(30)])
    put(b, "ORDERS", [f"b{i}" for i in range(20)])
    opts = dict(options(a, "ORDERS"), instances="cluster")
    df = spark.read.format("mqlite").options(**opts).load()
    assert df.rdd.getNumPartitions() == 2
    rows = df.select("text", "qmgr").collect()
    assert sorted((r.qmgr, r.text) for r in rows) == sorted([("CLA", f"a{i}") for i in range(30)]
                                                            + [("CLB", f"b{i}") for i in range(20)])
    out, chk = os.path.join(workdir, "out"), os.path.join(workdir, "chk")
    q = to_parquet(spark, opts, out, chk)
    q.awaitTermination(120)
    assert q.exception() is None
    put(b, "ORDERS", ["b-late"])
    q = to_parquet(spark, opts, out, chk)
    q.awaitTermination(120)
    got = spark.read.parquet(out).select("qmgr", "text").collect()
    assert len(got) == 51 and ("CLB", "b-late") in [(r.qmgr, r.text) for r in got]
    # A destructive batch read takes what it read from both instances.
    t0 = time.monotonic()
    left = spark.read.format("mqlite").options(**opts, mode="get").load().count()
    wait_settled(spark)
    assert left == 0 and time.monotonic() - t0 < 60      # the streams' last batches went when they ended
    assert depth(a, "ORDERS") == 0 and depth(b, "ORDERS") == 0
    # Written to the cluster queue with bind=notfixed (and CLWLUSEQ(ANY), so that CLA's own instance
    # is one choice among two), the rows of each task are spread over both instances.
    a.mqsc("ALTER QLOCAL(ORDERS) CLWLUSEQ(ANY)", check=True)
    rows = spark.createDataFrame([(f"w{i}",) for i in range(40)], "body string").repartition(2)
    rows.write.format("mqlite").options(**options(a, "ORDERS"), bind="notfixed").mode("append").save()
    wait_until(lambda: depth(a, "ORDERS") + depth(b, "ORDERS") == 40, 30, "40 rows on the two instances")
    assert depth(a, "ORDERS") > 0 and depth(b, "ORDERS") > 0
    spark.read.format("mqlite").options(**opts, mode="get").load().count()
    wait_settled(spark)
    # With bind=group each group of rows (msg_flags: in group, then last in group) stays together.
    last, member = C.MQMF_LAST_MSG_IN_GROUP, C.MQMF_MSG_IN_GROUP
    grouped = spark.createDataFrame([(f"g{g}-{i}", last if i == 2 else member) for g in range(4) for i in range(3)],
                                    "body string, msg_flags int").coalesce(1)
    grouped.write.format("mqlite").options(**options(a, "ORDERS"), bind="group").mode("append").save()
    wait_until(lambda: depth(a, "ORDERS") + depth(b, "ORDERS") == 12, 30, "12 grouped rows on the instances")
    rows = spark.read.format("mqlite").options(**opts).load().select("body", "group_id", "msg_seq_number",
                                                                      "qmgr").collect()
    groups: dict[bytes, set[str]] = {}
    for r in rows:
        groups.setdefault(bytes(r.group_id), set()).add(r.qmgr)
        assert bytes(r.body).decode().endswith(f"-{r.msg_seq_number - 1}")
    assert len(groups) == 4 and all(len(where) == 1 for where in groups.values())
    # A remote queue definition on CLA naming CLB's queue: the committed rows cross the channel.
    spark.read.format("mqlite").options(**opts, mode="get").load().count()
    wait_settled(spark)
    a.mqsc("DEFINE QREMOTE(TO.B.ORDERS) RNAME(ORDERS) RQMNAME(CLB)", check=True)
    spark.createDataFrame([(f"r{i}",) for i in range(10)], "body string").write.format("mqlite") \
        .options(**options(a, "TO.B.ORDERS")).mode("append").save()
    wait_until(lambda: depth(b, "ORDERS") == 10, 30, "10 rows through the remote definition")
    assert depth(a, "ORDERS") == 0


def test_example_pipeline_runs_end_to_end(workdir: str) -> None:
    """`make pipeline`: the SALES cluster, orders streamed from both instances into Parquet,
    aggregated, the aggregates put to a reply queue and checked (exit status 0)."""
    import subprocess
    env = dict(os.environ, MQLITE_DATA=os.path.join(workdir, "data"))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "pipeline", "run.py"), "--orders", "400"],
                       capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "400 orders aggregated; amounts per item match" in r.stdout
    per_instance = [line for line in r.stdout.splitlines() if line.startswith("orders per instance:")]
    assert per_instance and "'PR1'" in per_instance[0] and "'PR2'" in per_instance[0]
