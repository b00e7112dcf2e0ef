"""Filter pushdown: Spark's filters on descriptor columns become an MQ selection string, which the
queue manager evaluates when the range is read (engine/stream.py), so unselected messages never
leave it. A filter is taken only where the selector gives exactly Spark's answer (Spark does not
evaluate a pushed filter again): integer fields with every comparison, text fields with equality
and LIKE, identifiers with equality — through the forms MQ's selectors read them in."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from pyspark.sql.datasource import (
    EqualTo,
    Filter,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    LessThan,
    LessThanOrEqual,
    Not,
    StringContains,
    StringEndsWith,
    StringStartsWith,
)

from mqlite.spark.read import BatchReader

# Columns whose value is the stored descriptor's field as a selector reads it. Not here: format,
# encoding and ccsid (a message with properties is stored as MQHRF2, read as its data's), expiry
# (counted down when read), backout_count, and the columns that are not descriptor fields.
INTEGER = {"priority": "Root.MQMD.Priority", "persistence": "Root.MQMD.Persistence", "msg_type": "Root.MQMD.MsgType",
           "report": "Root.MQMD.Report", "feedback": "Root.MQMD.Feedback", "msg_seq_number": "Root.MQMD.MsgSeqNumber",
           "msg_flags": "Root.MQMD.MsgFlags"}
TEXT = {"reply_to_q": "Root.MQMD.ReplyToQ", "reply_to_qmgr": "Root.MQMD.ReplyToQMgr",
        "user_identifier": "Root.MQMD.UserIdentifier", "put_appl_name": "Root.MQMD.PutApplName"}
IDENTIFIER = {"msg_id": "JMSMessageID", "correl_id": "JMSCorrelationID", "group_id": "JMSXGroupID"}
_COMPARE = {EqualTo: "=", GreaterThan: ">", GreaterThanOrEqual: ">=", LessThan: "<", LessThanOrEqual: "<="}
_LIKE = {StringStartsWith: "{}%", StringEndsWith: "%{}", StringContains: "%{}%"}


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _literal(column: str, value: Any) -> str | None:
    """The selector literal of a filter's value for a column, None if it cannot be one exactly."""
    if column in INTEGER:
        ok = isinstance(value, int) and not isinstance(value, bool) and -2**31 <= value < 2**31
        return str(value) if ok else None
    if column in TEXT:
        return _quoted(value) if isinstance(value, str) and value.isascii() else None
    if column in IDENTIFIER:
        return _quoted("ID:" + bytes(value).hex()) if isinstance(value, (bytes, bytearray)) else None
    return None


def clause(f: Filter) -> str | None:
    """The selection string that selects exactly the rows ``f`` keeps, or None."""
    inner = f.child if isinstance(f, Not) else f
    path: tuple[str, ...] = getattr(inner, "attribute", ())
    given: Any = getattr(inner, "value", None)
    if len(path) != 1:
        return None
    column = path[0]
    name = INTEGER.get(column) or TEXT.get(column) or IDENTIFIER.get(column)
    if name is None:
        return None
    out = None
    if type(inner) in _COMPARE and (column in INTEGER or type(inner) is EqualTo):
        value = _literal(column, given)
        out = None if value is None else f"{name} {_COMPARE[type(inner)]} {value}"
    elif isinstance(inner, In) and inner.value:
        values = [_literal(column, v) for v in inner.value]
        out = None if None in values else "(" + " OR ".join(f"{name} = {v}" for v in values) + ")"
    elif type(inner) in _LIKE and column in TEXT and isinstance(given, str) and given.isascii():
        escaped = given.replace("!", "!!").replace("%", "!%").replace("_", "!_")
        out = f"{name} LIKE {_quoted(_LIKE[type(inner)].format(escaped))} ESCAPE '!'"
    if out is None or not isinstance(f, Not):
        return out
    return f"NOT ({out})" if type(inner) is EqualTo or isinstance(inner, In) else None


class FilteringReader(BatchReader):
    """A batch reader that takes Spark's filters (option ``pushFilters``: Spark then needs
    ``spark.sql.python.filterPushdown.enabled``, and says so when it is not set)."""

    def pushFilters(self, filters: list[Filter]) -> Iterable[Filter]:
        taken: list[str] = []
        left: list[Filter] = []
        for f in filters:
            text = clause(f)
            if text is None:
                left.append(f)
            else:
                taken.append(text)
        if taken:
            parts = ([f"({self.opts.selector})"] if self.opts.selector else []) + taken
            self.opts = replace(self.opts, selector=" AND ".join(parts))
        return left
