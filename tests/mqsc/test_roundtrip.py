"""Any definition round-trips through DISPLAY: define an object with random attributes, DISPLAY
it with ALL, build a DEFINE from exactly what DISPLAY printed, and the new object displays the
same (its name, dates and times aside). Hypothesis draws the kinds, attributes and values from the
attribute table, so a new attribute is covered the day it is declared."""
from __future__ import annotations

import re
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mqlite.objects.attrs import ENUM, FLAG, INT, LIST, STR, TABLE, Attr
from tests.conftest import Engine

# Kinds and what each DEFINE needs besides its random attributes.
KINDS = {"QLOCAL": "", "QMODEL": "", "QALIAS": " TARGET(SOME.Q)", "QREMOTE": " RNAME(R) RQMNAME(QMX)",
         "NAMELIST": "", "PROCESS": "", "SERVICE": "", "LISTENER": "", "COMMINFO": "",
         "TOPIC": " TOPICSTR('rt/{n}')", "SDR": " CONNAME('h(1)') XMITQ(SOME.Q)", "RCVR": "", "SVRCONN": "",
         "CLNTCONN": " CONNAME('h(1)')", "AUTHINFO": " AUTHTYPE(IDPWOS)"}
# Attributes whose values must name something that exists or follow a grammar the draw does not
# know, or that change what else is valid (tested elsewhere).
SKIP = {"CLUSTER", "CLUSNL", "TARGET", "RNAME", "RQMNAME", "XMITQ", "TOPICSTR", "AUTHTYPE", "CONNAME",
        "INITQ", "PROCESS", "BOQNAME", "CLCHNAME", "USAGE", "DEFSOPT", "SHARE", "DEFTYPE", "QSGDISP",
        "CFSTRUCT", "CUSTOM", "MCANAME", "SSLCIPH", "SSLPEER", "CERTLABL", "LOCLADDR", "MODENAME", "TPNAME",
        "IPADDR", "PORT", "NAMES", "LDAPPWD", "PASSWORD", "MDURMDL", "MNDURMDL", "COMMINFO", "TYPE",
        "MCAUSER", "USERID", "QMNAME", "GRPADDR", "STREAMQ"}
TEXT = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 .", min_size=1, max_size=12)
DISPLAY_NOISE = re.compile(r"^(ALTDATE|ALTTIME|CRDATE|CRTIME|CURDEPTH|IPPROCS|OPPROCS|QUEUE|CHANNEL|NAMELIST|"
                           r"PROCESS|SERVICE|LISTENER|COMMINFO|TOPIC|AUTHINFO|TYPE|CHLTYPE|NAMCOUNT)$")


def _value(attr: Attr) -> st.SearchStrategy[str]:
    """One attribute as MQSC writes it."""
    if attr.kind == FLAG:
        return st.sampled_from([attr.name, attr.flag_off])
    if attr.kind == ENUM:
        return st.sampled_from(sorted(attr.values)).map(lambda w: f"{attr.name}({w})")
    if attr.kind == INT:
        numbers = st.integers(attr.lo, min(attr.hi, attr.lo + 100_000)).map(str)
        words = st.sampled_from(sorted(attr.values)) if attr.values else numbers
        return st.one_of(numbers, words).map(lambda v: f"{attr.name}({v})")
    if attr.kind == STR:
        return TEXT.filter(lambda t: len(t) <= attr.length).map(lambda t: f"{attr.name}('{t}')")
    assert attr.kind == LIST
    return st.lists(st.sampled_from(["A", "B.C", "D"]), max_size=3).map(lambda v: f"{attr.name}({','.join(v)})")


@st.composite
def definitions(draw: Any) -> tuple[str, list[str]]:
    kind = draw(st.sampled_from(sorted(KINDS)))
    table = TABLE.attrs(kind)
    choices = sorted(n for n, a in table.items() if a.alterable and n not in SKIP)
    names = draw(st.lists(st.sampled_from(choices), unique=True, max_size=6)) if choices else []
    return kind, [draw(_value(table[n])) for n in names]


def _shown(e: Engine, kind: str, name: str) -> list[str]:
    """The attributes DISPLAY ... ALL shows of one object, as KEYWORD(value) items."""
    obj = {"SDR": "CHANNEL", "RCVR": "CHANNEL", "SVRCONN": "CHANNEL", "CLNTCONN": "CHANNEL"}.get(kind, kind)
    result = e.mqsc(f"DISPLAY {obj}({name}) ALL")
    assert result.status == "ok", result.lines
    text = " ".join(line.strip() for line in result.lines[1:])
    return re.findall(r"[A-Z][A-Z0-9]*(?:\((?:[^()]|\([^()]*\))*\))?", text)


def _define(kind: str, name: str) -> str:
    if kind in ("SDR", "RCVR", "SVRCONN", "CLNTCONN"):
        return f"DEFINE CHANNEL({name}) CHLTYPE({kind})"
    return f"DEFINE {kind}({name})"


def _as_define_item(item: str, kind: str) -> str | None:
    """A DISPLAY item as DEFINE takes it: strings quoted again, display-only ones left out."""
    m = re.fullmatch(r"([A-Z][A-Z0-9]*)(?:\((.*)\))?", item)
    assert m is not None, item
    key, value = m.group(1), m.group(2)
    attr = TABLE.lookup(kind, key)
    if DISPLAY_NOISE.match(key) or attr is None or not attr.alterable or key in SKIP:
        return None
    if attr.kind == STR:
        value = "" if value is None or value == " " else value
        return f"{key}('{value}')"
    return item


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(definitions())
def test_any_definition_round_trips_through_display(d: tuple[str, list[str]]) -> None:
    kind, items = d
    e = Engine()
    e.mqsc("DEFINE QLOCAL(SOME.Q)")
    extra = KINDS[kind].format(n=1)
    first = e.mqsc(f"{_define(kind, 'RT.FIRST')}{extra} {' '.join(items)}")
    assume(first.status == "ok")           # a combination the rules refuse: tested by their own tests
    shown = _shown(e, kind, "RT.FIRST")
    rebuilt = [i for i in (_as_define_item(item, kind) for item in shown) if i is not None]
    second = e.mqsc(f"{_define(kind, 'RT.SECOND')}{KINDS[kind].format(n=2)} {' '.join(rebuilt)}")
    assert second.status == "ok", (rebuilt, second.lines)

    def comparable(items_: list[str]) -> list[str]:
        return sorted(i for i in items_ if not DISPLAY_NOISE.match(i.split("(")[0]) and not i.startswith("TOPICSTR"))
    assert comparable(_shown(e, kind, "RT.SECOND")) == comparable(shown)
