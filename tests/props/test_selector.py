"""The selector language (issue 18, item 5): MQ's documented semantics row by row, three-valued
logic, 2459 with the offset of the fault, and a fuzzed parser that never does anything else."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite.cmq import CMQC as C
from mqlite.cmq.structs import MD
from mqlite.props.selector import SelectorError, compile_selector, md_lookup

PROPS = {"colour": (C.MQTYPE_STRING, "red"), "size": (C.MQTYPE_INT32, 7), "weight": (C.MQTYPE_FLOAT64, 2.5),
         "ok": (C.MQTYPE_BOOLEAN, True), "code": (C.MQTYPE_STRING, "A_1%"), "mcd.Type": (C.MQTYPE_STRING, "order"),
         "grp.a": (C.MQTYPE_INT64, 10)}
MDESC = MD(Priority=4, Persistence=C.MQPER_PERSISTENT, MsgId=b"\x01" * 24)


def ev(text: str):
    return compile_selector(text)(md_lookup(MDESC, PROPS))


@pytest.mark.parametrize("text,want", [
    ("colour = 'red'", True), ("colour <> 'red'", False), ("usr.colour = 'red'", True),
    ("size > 5 AND weight < 3", True), ("size >= 8 OR weight = 2.5", True), ("NOT size = 7", False),
    ("size = 7.0", True), ("size + 3 = 10", True), ("size * 2 - 4 / 2 = 12", True), ("-size = -7", True),
    ("size BETWEEN 7 AND 9", True), ("size NOT BETWEEN 1 AND 6", True), ("weight BETWEEN 3 AND 4", False),
    ("colour IN ('blue', 'red')", True), ("colour NOT IN ('blue', 'red')", False),
    ("colour LIKE 'r%'", True), ("colour LIKE '_e_'", True), ("colour NOT LIKE 'r%'", False),
    ("code LIKE 'A!_1!%' ESCAPE '!'", True), ("code LIKE 'A!_2%' ESCAPE '!'", False),
    ("missing IS NULL", True), ("colour IS NOT NULL", True), ("ok = TRUE", True), ("ok", True),
    ("Root.MQMD.Priority = 4", True), ("JMSPriority > 3", True), ("JMSDeliveryMode = 'PERSISTENT'", True),
    ("JMSMessageID = 'ID:" + "01" * 24 + "'", True), ("JMSType = 'order'", True), ("grp.a = 10", True),
    # Unknown (NULL) is not true: the message is not selected either way.
    ("missing = 1", None), ("NOT missing = 1", None), ("missing = 1 OR size = 7", True),
    ("missing = 1 AND size = 7", None), ("missing = 1 AND size = 8", False), ("missing IN ('a')", None),
    # Comparisons of different kinds, and ordering of strings or booleans, are unknown.
    ("colour = 1", None), ("colour > 'a'", None), ("ok > FALSE", None), ("size / 0 = 1", None),
    ("COLOUR = 'red'", None), ("colour = 'RED'", False),
    ("size = 7 and (colour = 'blue' or weight > 1)", True),
])
def test_selector_semantics(text, want):
    assert ev(text) is want


@pytest.mark.parametrize("text,offset", [
    ("size >", 6), ("colour = 'x", 9), ("(size = 1", 9), ("size = 1 2", 9), ("NOT", 3), ("a IN ()", 6),
    ("a LIKE b", 7), ("a IS 5", 5), ("size == 1", 6), ("#", 0), ("a LIKE 'x' ESCAPE 'ab'", 18), ("", 0),
    ("a NOT = 1", 6), ("a BETWEEN 1", 11),
])
def test_syntax_errors_give_2459_with_the_offset(text, offset):
    with pytest.raises(SelectorError) as e:
        compile_selector(text)
    assert (e.value.reason, e.value.offset) == (C.MQRC_SELECTOR_SYNTAX_ERROR, offset)


_pieces = st.sampled_from(["colour", "size", "weight", "ok", "missing", "'red'", "'r%'", "7", "2.5", "-", "+", "*",
                           "/", "=", "<>", "<", ">=", "(", ")", ",", "AND", "OR", "NOT", "BETWEEN", "IN", "LIKE",
                           "ESCAPE", "IS", "NULL", "TRUE", "FALSE", "'", "Root.MQMD.Priority", "1e3", "."])


@settings(max_examples=2000, deadline=None)
@given(st.one_of(st.lists(_pieces, max_size=12).map(" ".join), st.text(max_size=40)))
def test_the_parser_never_crashes(text):
    """Any string: 2459, or a selector that evaluates to True, False or unknown."""
    try:
        f = compile_selector(text)
    except SelectorError as e:
        assert e.reason == C.MQRC_SELECTOR_SYNTAX_ERROR and 0 <= e.offset <= len(text)
        return
    f(md_lookup(MDESC, PROPS))          # evaluates without raising; only True selects (engine/get.py)
