"""Issue 68: Spark's filters on descriptor columns pushed down as an MQ selection string. Spark does
not evaluate a pushed filter again, so a filter is taken only when the selector keeps exactly the
rows Spark would: checked against a model (the filter applied to the column as the reader decodes
it) over random descriptors and filters; and end to end through a Spark session."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyspark.sql.datasource import (
    EqualTo,
    Filter,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    IsNull,
    LessThan,
    LessThanOrEqual,
    Not,
    StringContains,
    StringEndsWith,
    StringStartsWith,
)

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.cmq.structs import MD
from mqlite.props.selector import compile_selector, md_lookup
from mqlite.spark.options import Options
from mqlite.spark.pushdown import IDENTIFIER, INTEGER, TEXT, FilteringReader, clause
from mqlite.spark.read import decode_columns
from mqlite.testing import Harness

_FIELD = {"priority": "Priority", "persistence": "Persistence", "msg_type": "MsgType", "report": "Report",
          "feedback": "Feedback", "msg_seq_number": "MsgSeqNumber", "msg_flags": "MsgFlags", "reply_to_q": "ReplyToQ",
          "reply_to_qmgr": "ReplyToQMgr", "user_identifier": "UserIdentifier", "put_appl_name": "PutApplName",
          "msg_id": "MsgId", "correl_id": "CorrelId", "group_id": "GroupId"}
_NAMES = st.text(alphabet="AB%_!'. x", max_size=6)
_IDS = st.sampled_from([b"\0" * 24, b"A" * 24, b"\x01\x02" + b"\0" * 22])


def _md(values: dict[str, Any]) -> MD:
    return MD(**{_FIELD[k]: (v.encode() if isinstance(v, str) else v) for k, v in values.items()})


@st.composite
def messages(draw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {c: draw(st.integers(0, 9)) for c in INTEGER}
    out.update({c: draw(_NAMES) for c in TEXT})
    out.update({c: draw(_IDS) for c in IDENTIFIER})
    return out


@st.composite
def filters(draw: Any) -> Filter:
    column = draw(st.sampled_from(sorted(INTEGER) + sorted(TEXT) + sorted(IDENTIFIER) + ["text", "position"]))
    value: Any = (draw(st.integers(-1, 10)) if column in INTEGER or column == "position" else
                  draw(_IDS) if column in IDENTIFIER else draw(_NAMES))
    kind = draw(st.sampled_from([EqualTo, GreaterThan, GreaterThanOrEqual, LessThan, LessThanOrEqual, In,
                                 StringStartsWith, StringEndsWith, StringContains, IsNull]))
    if kind is IsNull:
        f: Filter = IsNull((column,))
    elif kind is In:
        f = In((column,), (value, draw(_IDS) if column in IDENTIFIER else value))
    else:
        f = kind((column,), value)
    return Not(f) if draw(st.booleans()) else f


def _spark_keeps(f: Filter, row: dict[str, Any]) -> bool:
    """What Spark's filter keeps, on the row as the reader decodes it (no column is null here)."""
    if isinstance(f, Not):
        return not _spark_keeps(f.child, row)
    v = row[f.attribute[0]]
    if isinstance(f, IsNull):
        return v is None
    if isinstance(f, In):
        return v in f.value
    tests = {EqualTo: lambda: v == f.value, GreaterThan: lambda: v > f.value, GreaterThanOrEqual: lambda: v >= f.value,
             LessThan: lambda: v < f.value, LessThanOrEqual: lambda: v <= f.value,
             StringStartsWith: lambda: v.startswith(f.value), StringEndsWith: lambda: v.endswith(f.value),
             StringContains: lambda: f.value in v}
    return bool(tests[type(f)]())


@settings(max_examples=400, deadline=None)
@given(filters(), messages())
def test_a_pushed_filter_selects_exactly_what_spark_keeps(f: Filter, values: dict[str, Any]) -> None:
    text = clause(f)
    if text is None:
        return                          # left to Spark
    md = _md(values)
    row = {k: v[0] for k, v in decode_columns([(1, md.pack(), b"")], "Q", "QM", list(_FIELD)).items()}
    assert (compile_selector(text)(md_lookup(md, {})) is True) == _spark_keeps(f, row), text


def test_what_is_pushed_and_what_is_left() -> None:
    assert clause(EqualTo(("priority",), 5)) == "Root.MQMD.Priority = 5"
    assert clause(In(("correl_id",), (b"\x01" * 24,))) == "(JMSCorrelationID = 'ID:" + "01" * 24 + "')"
    assert clause(StringStartsWith(("reply_to_q",), "A_%")) == "Root.MQMD.ReplyToQ LIKE 'A!_!%%' ESCAPE '!'"
    assert clause(Not(EqualTo(("persistence",), 1))) == "NOT (Root.MQMD.Persistence = 1)"
    for left in (GreaterThan(("reply_to_q",), "A"), EqualTo(("format",), "MQSTR"), EqualTo(("expiry",), 5),
                 Not(GreaterThan(("priority",), 3)), EqualTo(("priority",), True), EqualTo(("text",), "x"),
                 EqualTo(("properties", "colour"), "red"), EqualTo(("reply_to_q",), "Grüße")):
        assert clause(left) is None, left
    reader = FilteringReader(Options.of({"queueManager": "QM", "queue": "Q", "selector": "colour = 'red'",
                                         "pushFilters": "true"}), None)
    rest = list(reader.pushFilters([EqualTo(("priority",), 5), EqualTo(("text",), "x")]))
    assert rest == [EqualTo(("text",), "x")]
    assert reader.opts.selector == "(colour = 'red') AND Root.MQMD.Priority = 5"


@pytest.fixture(scope="module")
def qm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    h = Harness(str(tmp_path_factory.mktemp("push")), channel="APP.SVRCONN")
    try:
        yield h.add("PQM", "DEFINE QLOCAL(PUSH.Q)\n")
    finally:
        h.close()


def test_filters_pushed_down_in_a_spark_read(qm: Any, spark: Any) -> None:
    from pyspark.sql.functions import col
    conn = qm.client()
    q = pymqi.Queue(conn, "PUSH.Q", C.MQOO_OUTPUT)
    for i in range(20):
        msg = pymqi.MessageHandle(conn)
        msg.properties.set("n", i, C.MQTYPE_INT32)
        q.put(f"p{i}".encode(), pymqi.MD(Format=C.MQFMT_STRING, Priority=i % 10, CorrelId=bytes([i % 2]) * 24),
              pymqi.PMO(Version=C.MQPMO_VERSION_3, OriginalMsgHandle=msg.msg_handle))
    conn.disconnect()
    opts = {"queueManager": qm.name, "channel": "APP.SVRCONN", "conname": qm.conname, "queue": "PUSH.Q"}
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    try:
        df = spark.read.format("mqlite").options(**opts, pushFilters="true").load()
        picked = df.filter((col("priority") >= 7) & (col("correl_id") == bytes([1]) * 24)).select("text")
        assert sorted(r.text for r in picked.collect()) == ["p17", "p19", "p7", "p9"]
        plan = picked._jdf.queryExecution().executedPlan().toString()
        assert "BatchScan mqlite" in plan and ">= 7" not in plan     # the source applied it, not Spark
    finally:
        spark.conf.unset("spark.sql.python.filterPushdown.enabled")
    # Typed property values: an INT32 is an integer in the variant (issue 68: it came back as "7").
    typed = spark.read.format("mqlite").options(**opts).load().selectExpr("property_values:n::int + 1 AS n1")
    assert sorted(r.n1 for r in typed.collect()) == list(range(1, 21))
    # Without Spark's setting, Spark names it rather than ignoring the filters.
    with pytest.raises(Exception, match="spark.sql.python.filterPushdown.enabled"):
        spark.read.format("mqlite").options(**opts, pushFilters="true").load().filter(col("priority") > 1).collect()
