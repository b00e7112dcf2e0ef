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


def test_topic_stream_sees_mqtt_and_amqp_publications(harness: Harness, spark: Any, workdir: str) -> None:
    """Issue 38's interoperability: publications from an MQTT client (paho-mqtt, QoS 1) and an
    AMQP client (Qpid Proton) are MQ publications, so a Spark topic stream sees them, with their
    persistence and (AMQP's application-properties) their properties."""
    import paho.mqtt.client as mqtt
    from proton import Message
    from proton.utils import BlockingConnection

    from mqlite.cli.proc import free_port
    qm = harness.qm("TPQM")
    mport, aport = free_port(), free_port()
    qm.mqsc(f"DEFINE CHANNEL(MQTT.S) CHLTYPE(MQTT) PORT({mport}) LOCLADDR('127.0.0.1')\n"
            f"DEFINE CHANNEL(AMQP.S) CHLTYPE(AMQP) PORT({aport}) LOCLADDR('127.0.0.1') MCAUSER('app')\n"
            "START SERVICE(SYSTEM.MQXR.SERVICE)\nSTART SERVICE(SYSTEM.AMQP.SERVICE)\n", check=True)
    opts = {"queueManager": qm.name, "channel": harness.channel, "conname": qm.conname, "topic": "iot/#",
            "subscription": "IOT.STREAM"}
    out, chk = os.path.join(workdir, "out"), os.path.join(workdir, "chk")

    def stream() -> None:
        df = spark.readStream.format("mqlite").options(**opts).load().selectExpr(
            "cast(body as string) as data", "persistence", "properties")
        q = df.writeStream.format("parquet").option("path", out).option("checkpointLocation", chk) \
            .trigger(availableNow=True).start()
        q.awaitTermination(120)
        assert q.exception() is None
    stream()                                        # the first run makes the durable subscription
    device = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="spark.device")
    device.connect("127.0.0.1", mport)
    device.loop_start()
    for i in range(5):
        device.publish("iot/mqtt", f"mqtt {i}".encode(), 1).wait_for_publish(10)
    device.disconnect()
    device.loop_stop()
    c = BlockingConnection(f"amqp://127.0.0.1:{aport}", allowed_mechs="ANONYMOUS", timeout=10)
    snd = c.create_sender("iot/amqp")
    for i in range(5):
        snd.send(Message(body=f"amqp {i}", durable=True, properties={"n": i}))
    c.close()
    stream()
    rows = spark.read.parquet(out).where("data is not null").collect()
    assert sorted(r.data for r in rows) == sorted([f"mqtt {i}" for i in range(5)] + [f"amqp {i}" for i in range(5)])
    assert all(r.persistence == 1 for r in rows)                   # QoS 1 and durable: persistent
    assert sorted(r.properties["n"] for r in rows if r.data.startswith("amqp")) == ["0", "1", "2", "3", "4"]
