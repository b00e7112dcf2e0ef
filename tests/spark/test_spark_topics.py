"""The mqlite data source with topics, on a local[2] SparkSession against a real queue manager:
readStream on a topic subscribes durably and streams the publications exactly once across query
restarts; df.write with a topic publishes."""
from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.testing import Harness


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    h = Harness()
    try:
        h.add("TPQM")
        yield h
    finally:
        h.close()


@pytest.fixture
def workdir() -> Iterator[str]:
    d = tempfile.mkdtemp(prefix="mqlite-spark-topic-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def publish(qm: Any, topic: str, bodies: list[str]) -> None:
    conn = qm.client()
    with pymqi.Topic(conn, topic_string=topic) as t:
        for b in bodies:
            t.pub(b.encode(), pymqi.MD(Format=C.MQFMT_STRING, Persistence=C.MQPER_PERSISTENT))
    conn.disconnect()


def run(spark: Any, opts: dict[str, str], out: str, chk: str) -> None:
    df = spark.readStream.format("mqlite").options(**opts).load().select("text")
    q = df.writeStream.format("parquet").option("path", out).option("checkpointLocation", chk) \
        .trigger(availableNow=True).start()
    q.awaitTermination(120)
    assert q.exception() is None


def test_topic_stream_subscribes_and_resumes(harness: Harness, spark: Any, workdir: str) -> None:
    qm = harness.qm("TPQM")
    opts = {"queueManager": qm.name, "channel": harness.channel, "conname": qm.conname, "topic": "sales/#",
            "subscription": "SALES.STREAM"}
    out, chk = os.path.join(workdir, "out"), os.path.join(workdir, "chk")
    run(spark, opts, out, chk)                      # the first run makes the durable subscription
    publish(qm, "sales/eu", [f"eu {i}" for i in range(30)])
    publish(qm, "sales/us", [f"us {i}" for i in range(20)])
    publish(qm, "stock/eu", ["not subscribed"])
    run(spark, opts, out, chk)
    publish(qm, "sales/eu", [f"eu {i}" for i in range(30, 40)])
    run(spark, opts, out, chk)
    texts = sorted(r.text for r in spark.read.parquet(out).collect())
    assert texts == sorted([f"eu {i}" for i in range(40)] + [f"us {i}" for i in range(20)])
    assert "SUB(SALES.STREAM)" in qm.mqsc("DISPLAY SUB(SALES.STREAM)\n").stdout
    with pytest.raises(Exception, match="read as a stream"):
        spark.read.format("mqlite").options(**opts).load().collect()


def test_dataframe_write_publishes(harness: Harness, spark: Any) -> None:
    qm = harness.qm("TPQM")
    conn = qm.client()
    sub = pymqi.Subscription(conn)
    sd = pymqi.SD(Options=C.MQSO_CREATE | C.MQSO_MANAGED)
    sd.set_vs("ObjectString", "prices/#")
    sub.sub(sub_desc=sd)
    df = spark.createDataFrame([(f"price {i}",) for i in range(25)], "body string")
    df.write.format("mqlite").option("queueManager", qm.name).option("channel", harness.channel) \
        .option("conname", qm.conname).option("topic", "prices/fruit").mode("append").save()
    got = []
    while True:
        try:
            got.append(sub.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_WAIT)))
        except pymqi.MQMIError as e:
            assert e.reason == C.MQRC_NO_MSG_AVAILABLE
            break
    assert sorted(got) == sorted(f"price {i}".encode() for i in range(25))
    sub.close(close_sub_queue=True)
    conn.disconnect()
