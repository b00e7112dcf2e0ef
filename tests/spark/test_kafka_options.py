"""Issue 68: what a user of Spark's Kafka source expects of a source, on the reader classes as Spark
drives them (no session: the calls Spark makes, in its order) against a real queue manager —
startingOffsets/endingOffsets, a selector, failOnDataLoss, the lag in ``latestOffset``, and a
Trigger.AvailableNow run's last batch removed when the run ends."""
from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxRows
from pyspark.sql.types import LongType, MapType, StringType, StructField, StructType

from mqlite import pymqi
from mqlite.pymqi import CMQC as C
from mqlite.spark.options import MQLiteError, Options
from mqlite.spark.read import BatchReader, read_range
from mqlite.spark.source import MQLiteDataSource
from mqlite.spark.stream import StreamReader
from mqlite.testing import Harness
from tests.spark.test_spark_stream import depth

QUEUES = ("OFFSETS.Q", "SELECT.Q", "LOSS.Q", "LAG.Q", "NOW.Q", "LATEST.Q", "SLOSS.Q", "TYPED.Q")


@pytest.fixture(scope="module")
def qm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    h = Harness(str(tmp_path_factory.mktemp("kafka")), channel="APP.SVRCONN")
    try:
        yield h.add("KQM", "".join(f"DEFINE QLOCAL({q}) MAXDEPTH(10000)\n" for q in QUEUES))
    finally:
        h.close()


def schema() -> StructType:
    """The columns these tests read (parsing SCHEMA's DDL needs a JVM)."""
    return StructType([StructField("text", StringType()), StructField("position", LongType())])


def opts(qm: Any, queue: str, **extra: str) -> Options:
    return Options.of({"queueManager": qm.name, "channel": "APP.SVRCONN", "conname": qm.conname, "queue": queue,
                       **extra})


def put(qm: Any, queue: str, bodies: list[str], **props: Any) -> None:
    conn = qm.client()
    q = pymqi.Queue(conn, queue, C.MQOO_OUTPUT)
    for b in bodies:
        pmo = pymqi.PMO()
        if props:
            msg = pymqi.MessageHandle(conn)
            for k, v in props.items():
                value, ptype = v if isinstance(v, tuple) else (v(b) if callable(v) else v, C.MQTYPE_STRING)
                msg.properties.set(k, value, ptype)
            pmo = pymqi.PMO(Version=C.MQPMO_VERSION_3, OriginalMsgHandle=msg.msg_handle)
        q.put(b.encode(), pymqi.MD(Format=C.MQFMT_STRING), pmo)
    conn.disconnect()


def get(qm: Any, queue: str, n: int) -> None:
    conn = qm.client()
    q = pymqi.Queue(conn, queue, C.MQOO_INPUT_SHARED)
    for _ in range(n):
        q.get()
    conn.disconnect()


def texts(o: Options, parts: list[Any]) -> list[str]:
    out: list[str] = []
    for part in parts:
        for batch in read_range(o, schema(), part):
            out += batch.column("text").to_pylist()
    return out


def batch_read(o: Options) -> list[str]:
    return texts(o, list(BatchReader(o, schema()).partitions()))


def positions(qm: Any, queue: str) -> list[int]:
    o = opts(qm, queue)
    out: list[int] = []
    for part in BatchReader(o, schema()).partitions():
        for batch in read_range(o, schema(), part):
            out += batch.column("position").to_pylist()
    return out


def test_a_batch_read_between_offsets(qm: Any) -> None:
    put(qm, "OFFSETS.Q", [f"m{i}" for i in range(10)])
    at = positions(qm, "OFFSETS.Q")
    got = batch_read(opts(qm, "OFFSETS.Q", startingOffsets=json.dumps({"KQM": at[3]}),
                          endingOffsets=json.dumps({"KQM": at[7]})))
    assert got == ["m3", "m4", "m5", "m6"]
    assert batch_read(opts(qm, "OFFSETS.Q", startingOffsets="earliest", endingOffsets='{"KQM": -1}')) == \
        [f"m{i}" for i in range(10)]
    # A queue manager the JSON does not name reads from its earliest to its latest.
    assert len(batch_read(opts(qm, "OFFSETS.Q", endingOffsets='{"OTHER": 5}'))) == 10
    with pytest.raises(MQLiteError, match="startingOffsets 'latest' .* is for streams"):
        MQLiteDataSource({"queueManager": "KQM", "queue": "OFFSETS.Q", "startingOffsets": "latest"}).reader(schema())


@pytest.mark.parametrize("key,value,why", [
    ("startingOffsets", "newest", "startingOffsets must be 'earliest' or 'latest', or JSON"),
    ("endingOffsets", "earliest", "endingOffsets must be 'latest', or JSON"),
    ("endingOffsets", '{"KQM": -2}', "endingOffsets cannot be -2"),
    ("startingOffsets", '{"KQM": "x"}', "startingOffsets must be"),
    ("failOnDataLoss", "yes", "failOnDataLoss must be true or false, not 'yes'")])
def test_bad_offsets_options_are_refused(key: str, value: str, why: str) -> None:
    with pytest.raises(MQLiteError, match=why):
        Options.of({"queueManager": "KQM", "queue": "Q", key: value})


def test_a_stream_from_latest_reads_only_what_arrives_and_leaves_the_rest(qm: Any) -> None:
    put(qm, "LATEST.Q", [f"old{i}" for i in range(5)])
    o = opts(qm, "LATEST.Q", startingOffsets="latest")
    r = StreamReader(o, schema())
    start = r.initialOffset()
    put(qm, "LATEST.Q", ["new0", "new1", "new2"])
    end = r.latestOffset(start, ReadAllAvailable())
    assert texts(o, r.partitions(start, end)) == ["new0", "new1", "new2"]
    r.commit(end)
    # The start is kept in the offset, so a restarted query's commits keep it too.
    assert end["KQM"]["from"] == start["KQM"]["at"] > 0
    again = StreamReader(o, schema())
    put(qm, "LATEST.Q", ["new3"])
    last = again.latestOffset(json.loads(json.dumps(end)), ReadAllAvailable())
    again.commit(last)
    assert depth(qm, "LATEST.Q") == 5
    assert batch_read(opts(qm, "LATEST.Q")) == [f"old{i}" for i in range(5)]
    r.stop()
    again.stop()


def test_a_selector_reads_counts_and_removes_only_what_it_selects(qm: Any) -> None:
    put(qm, "SELECT.Q", [f"s{i}" for i in range(12)], colour=lambda b: "red" if int(b[1:]) % 3 == 0 else "blue")
    o = opts(qm, "SELECT.Q", selector="colour = 'red'")
    assert batch_read(o) == ["s0", "s3", "s6", "s9"]
    r = StreamReader(o, schema())
    start = r.initialOffset()
    end = r.latestOffset(start, ReadMaxRows(3))        # three selected messages, not three messages
    assert texts(o, r.partitions(start, end)) == ["s0", "s3", "s6"]
    r.commit(end)
    assert depth(qm, "SELECT.Q") == 9                    # the unselected ones in the range stay
    assert batch_read(opts(qm, "SELECT.Q", selector="colour <> 'red'")) == \
        [f"s{i}" for i in range(12) if i % 3]
    r.stop()
    with pytest.raises(MQLiteError, match=r"^MQRC_SELECTOR_SYNTAX_ERROR \(2459\): cannot open queue SELECT.Q "
                                          r"with selector 'colour =' on KQM"):
        batch_read(opts(qm, "SELECT.Q", selector="colour = "))


def test_failondataloss_fails_a_read_whose_messages_were_taken(qm: Any, caplog: pytest.LogCaptureFixture) -> None:
    put(qm, "LOSS.Q", [f"l{i}" for i in range(10)])
    o = opts(qm, "LOSS.Q")
    parts = list(BatchReader(o, schema()).partitions())
    assert [p.expected for p in parts] == [10]
    get(qm, "LOSS.Q", 2)                      # another application, between plan and read
    with pytest.raises(MQLiteError, match=r"data loss: 2 of the 10 messages in positions .* of LOSS.Q on KQM "
                                          r"were removed .*; set failOnDataLoss to false"):
        texts(o, parts)
    lenient = opts(qm, "LOSS.Q", failOnDataLoss="false")
    with caplog.at_level(logging.WARNING, logger="mqlite.spark"):
        assert texts(lenient, parts) == [f"l{i}" for i in range(2, 10)]
    assert any("data loss: 2 of the 10" in r.getMessage() for r in caplog.records)


def test_failondataloss_in_a_stream(qm: Any) -> None:
    put(qm, "SLOSS.Q", [f"l{i}" for i in range(6)])
    o = opts(qm, "SLOSS.Q")
    r = StreamReader(o, schema())
    start = r.initialOffset()
    end = r.latestOffset(start, ReadAllAvailable())
    parts = r.partitions(start, end)
    get(qm, "SLOSS.Q", 1)
    with pytest.raises(MQLiteError, match="data loss: 1 of the 6 messages"):
        texts(o, parts)
    r.stop()


def test_the_lag_is_in_the_latest_offset(qm: Any) -> None:
    put(qm, "LAG.Q", [f"g{i}" for i in range(10)])
    r = StreamReader(opts(qm, "LAG.Q"), schema())
    start = r.initialOffset()
    end = r.latestOffset(start, ReadMaxRows(4))
    lag = r.reportLatestOffset()
    assert lag is not None and set(lag) == {"KQM"}
    assert lag["KQM"]["depth"] == 10 and lag["KQM"]["behind"] == 6
    assert lag["KQM"]["position"] == end["KQM"] + 6 and 0 <= lag["KQM"]["oldestAgeSeconds"] < 60
    r.stop()


def test_an_available_now_runs_last_batch_is_removed_when_the_run_ends(qm: Any) -> None:
    """Spark's calls for a run of two batches: commit(end of batch 1) comes when batch 2 is
    planned, and nothing ever commits batch 2; the run's last latestOffset (no new data) does."""
    put(qm, "NOW.Q", [f"n{i}" for i in range(7)])
    r = StreamReader(opts(qm, "NOW.Q"), schema())
    start = r.initialOffset()
    r.prepareForTriggerAvailableNow()
    put(qm, "NOW.Q", ["after the run's target"])
    first = r.latestOffset(start, ReadMaxRows(4))
    second = r.latestOffset(first, ReadMaxRows(4))
    r.commit(first)
    assert depth(qm, "NOW.Q") == 4
    assert r.latestOffset(second, ReadMaxRows(4)) == second       # nothing more: the run ends
    assert depth(qm, "NOW.Q") == 1
    assert batch_read(opts(qm, "NOW.Q")) == ["after the run's target"]
    r.stop()


def test_property_values_keep_their_types(qm: Any) -> None:
    from pyspark.sql.types import VariantType, VariantVal
    put(qm, "TYPED.Q", ["t"], count=(7, C.MQTYPE_INT32), ratio=(1.5, C.MQTYPE_FLOAT64), ok=(True, C.MQTYPE_BOOLEAN),
        colour="red", raw=(b"\x01\xab", C.MQTYPE_BYTE_STRING), nothing=(None, C.MQTYPE_NULL))
    put(qm, "TYPED.Q", ["plain"])
    o = opts(qm, "TYPED.Q")
    cols = StructType([StructField("properties", MapType(StringType(), StringType())),
                       StructField("property_values", VariantType())])
    (batch,) = [b for part in BatchReader(o, cols).partitions() for b in read_range(o, cols, part)]
    texts_, typed = batch.column("properties").to_pylist(), batch.column("property_values").to_pylist()
    assert dict(texts_[0]) == {"count": "7", "ratio": "1.5", "ok": "TRUE", "colour": "red", "raw": "01AB",
                               "nothing": ""}
    value = VariantVal(typed[0]["value"], typed[0]["metadata"]).toPython()
    assert value == {"count": 7, "ratio": 1.5, "ok": True, "colour": "red", "raw": "01AB", "nothing": None}
    assert type(value["count"]) is int and texts_[1] is None and typed[1] is None
