"""The mqlite PySpark data source (batch) against a real queue manager, on a local[2] SparkSession."""
from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.spark import wait_settled
from mqlite.testing import Harness
from tests.helpers import depth

# `make test` installs the spark extra (pyspark[sql], pinned pandas and pyarrow); a missing pyspark
# or Java is a failure here, not a skip.


@pytest.fixture(scope="module")
def qm() -> Iterator[Any]:
    h = Harness()
    try:
        yield h.add("SPQM", "DEFINE QLOCAL(IN.Q) MAXDEPTH(100000)\nDEFINE QLOCAL(OUT.Q) MAXDEPTH(100000)\n"
                            "DEFINE QLOCAL(EMPTY.Q)\nDEFINE QLOCAL(SMALL.Q) MAXDEPTH(3)\n"
                            "DEFINE QLOCAL(ALL.Q) MAXDEPTH(100000)\nDEFINE QLOCAL(HELD.Q)\n"
                            "DEFINE QLOCAL(PROPS.IN)\nDEFINE QLOCAL(PROPS.OUT)\n")
    finally:
        h.close()


def options(qm: Any, queue: str) -> dict[str, str]:
    return {"queueManager": qm.name, "channel": qm.harness.channel, "conname": qm.conname, "queue": queue}


def test_batch_read_browses_every_message_with_its_descriptor(qm: Any, spark: Any) -> None:
    conn = qm.client()
    q = pymqi.Queue(conn, "IN.Q", C.MQOO_OUTPUT)
    for i in range(250):
        md = pymqi.MD(Format=C.MQFMT_STRING, Priority=i % 10, CorrelId=b"C%03d" % i,
                      Persistence=C.MQPER_PERSISTENT if i % 2 else C.MQPER_NOT_PERSISTENT)
        q.put(f"order {i}", md)
    q.put(b"\x00\x01binary", pymqi.MD())
    q.close()
    df = spark.read.format("mqlite").options(**options(qm, "IN.Q")).option("batchSize", "64").load()
    rows = df.collect()
    assert len(rows) == 251
    texts = sorted(r.text for r in rows if r.text is not None)
    assert len(texts) == 250 and "order 0" in texts and "order 249" in texts
    # Rows come in arrival order (their positions), priority aside; browsing removes nothing.
    assert [r.text for r in rows[:3]] == ["order 0", "order 1", "order 2"]
    positions = [r.position for r in rows]
    assert positions == sorted(positions) and len(set(positions)) == 251
    first = next(r for r in rows if r.text == "order 7")
    assert (first.priority, first.persistence, first.format, first.queue, first.qmgr) == (7, 1, "MQSTR", "IN.Q",
                                                                                        "SPQM")
    assert bytes(first.correl_id).rstrip(b"\0") == b"C007" and first.put_timestamp is not None
    binary = next(r for r in rows if r.text is None)
    assert bytes(binary.body) == b"\x00\x01binary" and binary.format == ""
    depth = pymqi.Queue(conn, "IN.Q", C.MQOO_INQUIRE)
    assert depth.inquire(C.MQIA_CURRENT_Q_DEPTH) == 251
    conn.disconnect()
    assert spark.read.format("mqlite").options(**options(qm, "EMPTY.Q")).load().count() == 0


def test_batch_write_puts_rows_with_their_fields(qm: Any, spark: Any) -> None:
    df = spark.createDataFrame([(f"reply {i}", i % 10, f"K{i}") for i in range(100)],
                               "body string, priority int, correl_id string").repartition(2)
    df.write.format("mqlite").options(**options(qm, "OUT.Q")).mode("append").save()
    conn = qm.client()
    q = pymqi.Queue(conn, "OUT.Q", C.MQOO_INPUT_SHARED)
    got = []
    while True:
        md = pymqi.MD()
        try:
            got.append((q.get(None, md).decode(), md.Priority, md.CorrelId.rstrip(b"\0"), md.Format))
        except pymqi.MQMIError as e:
            assert e.reason == C.MQRC_NO_MSG_AVAILABLE
            break
    conn.disconnect()
    assert len(got) == 100 and len({g[0] for g in got}) == 100
    assert all(p == int(b.split()[1]) % 10 and c == f"K{b.split()[1]}".encode() and f == C.MQFMT_STRING
               for b, p, c, f in got)


def test_properties_column_read_and_written(qm: Any, spark: Any) -> None:
    """Issue 18, item 4: a message's properties come as a map column, the data without its MQRFH2;
    a DataFrame's properties column is put as message properties (read back through a handle)."""
    conn = qm.client()
    mh = pymqi.MessageHandle(conn)
    mh.properties.set("colour", "red")
    mh.properties.set("size", 7, C.MQTYPE_INT32)
    pymqi.Queue(conn, "PROPS.IN", C.MQOO_OUTPUT).put("with properties", pymqi.MD(),
                                                 pymqi.PMO(OriginalMsgHandle=mh.msg_handle))
    rows = spark.read.format("mqlite").options(**options(qm, "PROPS.IN")).load().collect()
    assert [(r.text, r.format, r.properties) for r in rows] == [
        ("with properties", "MQSTR", {"colour": "red", "size": "7"})]
    df = spark.createDataFrame([("hello", {"region": "eu", "tier": "gold"})], "body string, properties map<string,string>")
    df.write.format("mqlite").options(**options(qm, "PROPS.OUT")).mode("append").save()
    got = pymqi.MessageHandle(conn)
    md = pymqi.MD()
    body = pymqi.Queue(conn, "PROPS.OUT", C.MQOO_INPUT_SHARED).get(None, md, pymqi.GMO(MsgHandle=got.msg_handle))
    assert (body, md.Format, got.properties.get("region"), got.properties.get("tier")) == (
        b"hello", C.MQFMT_STRING, "eu", "gold")
    pymqi.Queue(conn, "PROPS.IN", C.MQOO_INPUT_SHARED).get()
    conn.disconnect()


def test_bad_options_fail_with_mq_reasons(qm: Any, spark: Any) -> None:
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException

    def failure(fn: Any) -> str:
        with pytest.raises((PySparkException, Py4JJavaError, Exception)) as e:
            fn()
        return str(e.value)
    assert "MQRC_UNKNOWN_OBJECT_NAME (2085)" in failure(
        lambda: spark.read.format("mqlite").options(**options(qm, "NO.SUCH.Q")).load().collect())
    bad_channel = dict(options(qm, "IN.Q"), channel="NO.SUCH.CHANNEL")
    assert "(2540)" in failure(lambda: spark.read.format("mqlite").options(**bad_channel).load().collect())
    df = spark.createDataFrame([("x", 1)], "body string, colour int")
    assert "column 'colour'" in failure(
        lambda: df.write.format("mqlite").options(**options(qm, "OUT.Q")).mode("append").save())
    assert "needs one of the options 'queue' and 'topic'" in failure(
        lambda: spark.read.format("mqlite").option("queueManager", qm.name).load().collect())
    # A put that fails backs out the task's unit of work, and the job's abort backs out the units
    # other tasks had prepared: SMALL.Q (MAXDEPTH 3) keeps nothing, nothing stays in doubt.
    rows = spark.createDataFrame([(f"m{i}",) for i in range(5)], "body string").repartition(2)
    assert "MQRC_Q_FULL (2053)" in failure(
        lambda: rows.write.format("mqlite").options(**options(qm, "SMALL.Q")).mode("append").save())
    conn = qm.client()
    assert pymqi.Queue(conn, "SMALL.Q", C.MQOO_INQUIRE).inquire(C.MQIA_CURRENT_Q_DEPTH) == 0
    assert conn.prepared_units() == []
    conn.disconnect()


def test_local_bindings_that_find_no_queue_manager_say_what_to_set(qm: Any, spark: Any) -> None:
    """Issue 33: with local bindings (no conname) an executor finds a queue manager only on its own
    host under its MQLITE_DATA; the 2058 says so instead of leaving the user to guess."""
    from mqlite.spark.options import MQLiteError, Options
    with pytest.raises(MQLiteError) as e:
        Options.of({"queueManager": "NOT.ON.THIS.HOST", "queue": "IN.Q"}).connect()
    text = str(e.value)
    assert text.startswith("MQRC_Q_MGR_NAME_ERROR (2058): cannot connect to queue manager NOT.ON.THIS.HOST")
    assert "spark.executorEnv.MQLITE_DATA" in text and "channel and conname" in text
    try:
        spark.read.format("mqlite").options(queueManager="NOT.ON.THIS.HOST", queue="IN.Q").load().collect()
        raise AssertionError("a read through bindings to no queue manager succeeded")
    except Exception as err:                       # the driver's planning fails with the same words
        assert "spark.executorEnv.MQLITE_DATA" in str(err)


def test_the_format_is_found_without_register(qm: Any) -> None:
    """Spark imports the pyspark_mqlite module it finds on the path and registers its DefaultSource.
    Mode get needs the driver's listener that only register installs, and says so."""
    import subprocess
    conn = qm.client()
    pymqi.Queue(conn, "EMPTY.Q", C.MQOO_OUTPUT).put(b"one")
    conn.disconnect()
    script = (
        "import os, sys\n"
        "os.environ['PYSPARK_PYTHON'] = sys.executable\n"
        "from pyspark.sql import SparkSession\n"
        "s = SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false').getOrCreate()\n"
        f"opts = {options(qm, 'EMPTY.Q')!r}\n"
        "print('ROWS', s.read.format('mqlite').options(**opts).load().count())\n"
        "try:\n"
        "    s.read.format('mqlite').options(**opts, mode='get').load().count()\n"
        "except Exception as e:\n"
        "    print('GET', 'call mqlite.spark.register(spark) in the driver' in str(e))\n"
        "s.stop()\n")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=180, cwd="/")
    assert "ROWS 1" in r.stdout and "GET True" in r.stdout, r.stdout + r.stderr[-2000:]
    conn = qm.client()
    assert pymqi.Queue(conn, "EMPTY.Q", C.MQOO_INPUT_SHARED).get() == b"one"
    conn.disconnect()


def queue_depth(qm: Any, queue: str) -> int:
    return depth(qm.harness, qm.name, queue)


def test_a_row_that_does_not_convert_backs_out_the_whole_task(qm: Any, spark: Any) -> None:
    """Not an MQ error: a priority that is no number at row 30. Nothing of the task stays (MQDISC
    would have committed rows 0-29), nothing is in doubt."""
    rows = [(f"r{i}", "high" if i == 30 else str(i % 10)) for i in range(60)]
    df = spark.createDataFrame(rows, "body string, priority string").coalesce(1)
    with pytest.raises(Exception) as e:
        df.write.format("mqlite").options(**options(qm, "ALL.Q")).mode("append").save()
    assert "high" in str(e.value)
    assert queue_depth(qm, "ALL.Q") == 0
    conn = qm.client()
    assert conn.prepared_units() == []
    conn.disconnect()


def test_reads_and_writes_in_a_row_with_a_failing_job_and_a_unit_in_doubt(qm: Any, spark: Any) -> None:
    """A job that fails while another task is still writing leaves nothing in doubt (the straggler's
    prepare comes after the abort closed the job); a unit in doubt from elsewhere holds back its own
    puts only: batch reads before and after it see every committed message."""
    import time

    from pyspark.sql.functions import col, udf
    from pyspark.sql.types import StringType
    opts = options(qm, "ALL.Q")
    spark.createDataFrame([(f"ok{i}",) for i in range(10)], "body string").write.format("mqlite") \
        .options(**opts).mode("append").save()

    @udf(StringType())
    def slow_or_bad(body):  # no hints: Spark would read them as a pandas UDF's
        if body == "bad":
            raise ValueError("a failing UDF")
        time.sleep(2)                      # the other task is still writing when the job fails
        return body
    rows = [("bad",)] + [(f"late{i}",) for i in range(24)]
    failing = spark.createDataFrame(rows, "body string").repartition(2).select(slow_or_bad(col("body")).alias("body"))
    with pytest.raises(Exception):
        failing.write.format("mqlite").options(**opts).mode("append").save()
    time.sleep(4)                          # a straggler would have prepared by now
    conn = qm.client()
    assert conn.prepared_units() == []
    assert queue_depth(qm, "ALL.Q") == 10
    # The same race without Spark's timing: a task that prepares after its job was aborted.
    from pyspark.sql import Row

    from mqlite.spark import MQLiteDataSource, MQLiteError
    writer = MQLiteDataSource(opts).writer(spark.createDataFrame([("x",)], "body string").schema, False)
    first = writer.write(iter([Row(body="t1")]))
    writer.abort([first])
    with pytest.raises(MQLiteError, match=r"MQRC_BACKED_OUT \(2003\)"):
        writer.write(iter([Row(body="straggler")] * 24))
    assert conn.prepared_units() == [] and queue_depth(qm, "ALL.Q") == 10
    # A unit in doubt from another writer, put before more committed messages.
    q = pymqi.Queue(conn, "ALL.Q", C.MQOO_OUTPUT)
    q.put(b"in doubt", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
    conn.prepare("someone-else/1")
    q.put(b"after", pymqi.MD(Format=C.MQFMT_STRING))
    assert sorted(r.text for r in spark.read.format("mqlite").options(**opts).load().collect()) == \
        sorted([f"ok{i}" for i in range(10)] + ["after"])
    spark.createDataFrame([("more",)], "body string").write.format("mqlite").options(**opts).mode("append").save()
    assert spark.read.format("mqlite").options(**opts).load().count() == 12
    conn.resolve_prepared(["someone-else/1"])
    assert spark.read.format("mqlite").options(**opts, mode="get").load().count() == 13
    wait_settled(spark)
    assert queue_depth(qm, "ALL.Q") == 0
    conn.disconnect()


def test_a_stream_held_back_by_a_unit_in_doubt_says_why(qm: Any, caplog: Any) -> None:
    """The stream's driver side (no Spark needed): it reads up to the unit in doubt, and logs how
    many committed messages wait behind it and which XID to settle."""
    from pyspark.sql.datasource import ReadAllAvailable

    from mqlite.spark import SCHEMA, MQLiteDataSource
    reader = MQLiteDataSource(options(qm, "HELD.Q")).streamReader(SCHEMA)
    conn = qm.client()
    q = pymqi.Queue(conn, "HELD.Q", C.MQOO_OUTPUT)
    q.put(b"before")
    q.put(b"in doubt", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
    conn.prepare("writer-x/1")
    q.put(b"after 1")
    q.put(b"after 2")
    start = reader.initialOffset()
    with caplog.at_level("WARNING", logger="mqlite.spark"):
        end = reader.latestOffset(start, ReadAllAvailable())
        reader.latestOffset(start, ReadAllAvailable())        # said once per stall, not per trigger
    held = [r.getMessage() for r in caplog.records if "held back" in r.getMessage()]
    assert len(held) == 1 and "2 committed messages on HELD.Q at SPQM" in held[0] and "writer-x/1" in held[0]
    assert end[qm.name] > start[qm.name]                     # "before" is readable
    conn.resolve_prepared(["writer-x/1"])
    caplog.clear()
    with caplog.at_level("WARNING", logger="mqlite.spark"):
        later = reader.latestOffset(end, ReadAllAvailable())
    assert later[qm.name] > end[qm.name] and not caplog.records
    reader.stop()
    conn.disconnect()
