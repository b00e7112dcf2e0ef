"""mqweb's MQSC translation as pure functions: a runCommandJSON request becomes MQSC that MQSC's
own parser reads back to the same verb, object, name and values (whatever a value holds: quotes,
parentheses, spaces), so nothing can be injected; and MQSC response text becomes MQ's items."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlite.mqsc.parser import parse
from mqlite.mqsc.result import format_fields
from mqlite.web.mqsc import BadRequest, blocks, command_text, json_items, overall, text_items

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=60)
NAME = st.from_regex(r"[A-Z][A-Z0-9._]{0,20}", fullmatch=True)


@given(name=NAME, descr=TEXT, depth=st.integers(min_value=0, max_value=999999999))
def test_a_request_becomes_mqsc_that_parses_back_to_it(name: str, descr: str, depth: int) -> None:
    text = command_text({"command": "define", "qualifier": "qlocal", "name": name,
                         "parameters": {"descr": descr, "maxdepth": depth, "replace": "yes"}})
    cmd = parse(text)
    assert (cmd.verb, cmd.objtype, cmd.name) == ("DEFINE", "QLOCAL", name)
    params = {p.keyword: p for p in cmd.params}
    assert params["DESCR"].value == descr and params["MAXDEPTH"].value == str(depth)
    assert params["REPLACE"].value is None and set(params) == {"DESCR", "MAXDEPTH", "REPLACE"}


@given(names=st.lists(NAME, min_size=1, max_size=5))
def test_a_list_value_parses_back_item_by_item(names: list[str]) -> None:
    cmd = parse(command_text({"command": "define", "qualifier": "namelist", "name": "NL",
                              "parameters": {"names": names}}))
    assert cmd.param("NAMES").items == names


@pytest.mark.parametrize("body", [
    {"command": "display", "qualifier": "qlocal", "name": "A) DELETE QLOCAL(B"},
    {"command": "display", "qualifier": "qlocal", "name": "A'"},
    {"command": "display", "qualifier": "qlocal", "name": "x" * 49},
    {"command": "alter", "qualifier": "qlocal", "name": "A", "parameters": {"DESCR) PUT(DISABLED": "x"}},
    {"command": "alter", "qualifier": "qlocal", "name": "A", "parameters": {"descr": "a\nDELETE QLOCAL(B)"}},
    {"command": "alter", "qualifier": "qlocal", "name": "A", "parameters": {"descr": {"nested": 1}}},
    {"command": "define; delete", "qualifier": "qlocal", "name": "A"},
    {"command": "display", "qualifier": "qlocal", "name": "A", "responseParameters": ["all) PUT(DISABLED"]},
    {"command": "define", "qualifier": "qlocal", "name": "A", "responseParameters": ["descr"]},
    {"command": "alter", "qualifier": "qmgr", "name": "A"},
    {"qualifier": "qlocal", "name": "A"},
])
def test_requests_that_could_smuggle_mqsc_are_refused(body: dict) -> None:
    with pytest.raises(BadRequest):
        command_text(body)


@given(values=st.lists(st.tuples(st.from_regex(r"[A-Z][A-Z0-9]{0,10}", fullmatch=True),
                                 st.text(alphabet="abc XYZ019.-()/,", max_size=20)), min_size=1, max_size=8))
def test_display_fields_read_back_as_formatted(values: list[tuple[str, str]]) -> None:
    """format_fields (what DISPLAY prints) read back by blocks(): the same keys and values, in order,
    for values with balanced parentheses."""
    values = [(k, v) for k, v in values if v.count("(") == v.count(")") and _balanced(v)]
    items = [f"{k}({v})" for k, v in values]
    text = "\n".join(["AMQ8409I: Display Queue details."] + format_fields(items))
    (block,) = blocks(text)
    assert block.fields == values


def _balanced(v: str) -> bool:
    depth = 0
    for c in v:
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth < 0:
            return False
    return depth == 0


def test_items_and_overall_codes() -> None:
    ok = "AMQ8409I: Display Queue details.\n   QUEUE(A)   TYPE(QLOCAL)\n   CURDEPTH(3)   DESCR(007)\n"
    items = json_items(ok, True)
    assert items == [{"completionCode": 0, "reasonCode": 0,
                      "parameters": {"queue": "A", "type": "QLOCAL", "curdepth": 3, "descr": "007"}}]
    assert overall(items) == (0, 0)
    refused = json_items("AMQ8147E: IBM MQ object B not found.", False)
    assert refused == [{"completionCode": 2, "reasonCode": 2085, "message": ["AMQ8147E: IBM MQ object B not found."]}]
    assert overall(refused) == (2, 3008)
    assert text_items("AMQ8150E: IBM MQ object already exists.", False)[0]["reasonCode"] == 4001
