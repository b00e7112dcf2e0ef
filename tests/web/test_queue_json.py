"""The v1 queue resource's translation as pure functions (web/resources.py): a POST or PATCH body
becomes MQSC that MQSC's own parser reads back to the same values whatever a string holds; every
declared attribute's JSON value goes to MQSC and back unchanged; a display's fields and bare words
(SHARE, NOTRIGGER) read back as printed; filters against a simple model."""
from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from mqlite.mqsc.parser import parse
from mqlite.mqsc.result import format_fields
from mqlite.web import resources as R
from tests.web.test_mqsc_json import NAME, TEXT, _balanced


@given(name=NAME, descr=TEXT, depth=st.integers(min_value=0, max_value=999999999), put=st.booleans())
def test_a_body_becomes_mqsc_that_parses_back_to_it(name: str, descr: str, depth: int, put: bool) -> None:
    cmd = parse(R.define_command({"name": name, "general": {"description": descr, "inhibitPut": put},
                                  "storage": {"maximumDepth": depth}}))
    assert (cmd.verb, cmd.objtype, cmd.name) == ("DEFINE", "QLOCAL", name)
    params = {p.keyword: p.value for p in cmd.params}
    assert params == {"DESCR": descr, "MAXDEPTH": str(depth), "PUT": "DISABLED" if put else "ENABLED"}


def _sample(a: R.Attr) -> list[Any]:
    if a.kind == "int":
        return [0, 7]
    if a.kind == "bool":
        return [True, False]
    if a.kind == "enum":
        return list(a.words[1::2])
    return ["", "x (y) 'z'"]


def test_every_attribute_goes_to_mqsc_and_back() -> None:
    """Each declared attribute's JSON values: into ALTER's MQSC, parsed by MQSC, printed as DISPLAY
    prints it, read back (words, queue_json): the same JSON value."""
    for a in R.QUEUE:
        for value in _sample(a):
            qtype = "alias" if a.path.startswith("alias.") else "remote" if a.path.startswith("remote.") else "local"
            body: dict[str, Any] = {}
            R._put(body, a.path, value)
            cmd = parse(R.alter_command("Q", qtype, body, ""))
            (p,) = cmd.params
            shown = p.keyword if p.value is None else f"{p.keyword}({p.value})"
            fields = R.words(" ".join(["QUEUE(Q)", f"TYPE({R.QUALIFIER[qtype]})", shown]))
            got = R.queue_json(fields)
            for part in a.path.split("."):
                got = got[part]
            assert got == value, (a.path, value, shown)


@given(values=st.lists(st.tuples(st.from_regex(r"[A-Z][A-Z0-9]{0,10}", fullmatch=True),
                                 st.text(alphabet="abc XYZ019.-()/,", max_size=20)), min_size=1, max_size=8),
       bare=st.lists(st.sampled_from(["SHARE", "NOSHARE", "TRIGGER", "NOTRIGGER", "NOHARDENBO"]), max_size=3))
def test_display_fields_and_bare_words_read_back(values: list[tuple[str, str]], bare: list[str]) -> None:
    values = [(k, v) for k, v in values if _balanced(v) and k not in bare]
    items = [f"{k}({v})" for k, v in values] + bare
    fields = R.words(" ".join(format_fields(items)))
    assert {k: v for k, v in fields.items() if not k.startswith("=")} == {k: v.strip() for k, v in dict(values).items()}
    assert {k[1:] for k in fields if k.startswith("=")} == set(bare)


@given(depths=st.lists(st.integers(min_value=0, max_value=20), max_size=10), bound=st.integers(0, 20),
       op=st.sampled_from(sorted(R.OPERATORS)))
def test_a_filter_keeps_what_the_comparison_says(depths: list[int], bound: int, op: str) -> None:
    objs = [{"name": f"Q{i}", "status": {"currentDepth": d}} for i, d in enumerate(depths)]
    f = R.Filter.parse(f"status.currentDepth:{op}:{bound}", R.all_paths())
    model = {"lessThan": int.__lt__, "greaterThan": int.__gt__, "lessThanOrEqualTo": int.__le__,
             "greaterThanOrEqualTo": int.__ge__, "equalTo": int.__eq__, "notEqualTo": int.__ne__}[op]
    assert [o["name"] for o in objs if f.keeps(o)] == [o["name"] for o in objs if model(o["status"]["currentDepth"],
                                                                                        bound)]


@given(addresses=st.lists(st.tuples(st.from_regex(r"[a-z0-9][a-z0-9.-]{0,20}", fullmatch=True),
                                    st.one_of(st.none(), st.integers(1, 65535))), max_size=4))
def test_a_conname_reads_as_its_addresses(addresses: list[tuple[str, int | None]]) -> None:
    conname = ",".join(h if p is None else f"{h}({p})" for h, p in addresses)
    assert R.connections(conname) == [{"host": h} | ({"port": p} if p is not None else {}) for h, p in addresses]
    assert R.connections("a(b)c") == [{"host": "a(b)c"}]
