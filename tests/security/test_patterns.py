"""Generic profiles, CHLAUTH names and addresses, each against a simple model of MQ's rule."""
from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite.security.patterns import (
    address_match,
    address_specificity,
    check_address_pattern,
    oam_match,
    oam_specificity,
    star_match,
)

QUAL = st.text(alphabet="AB?*", min_size=0, max_size=3)
NAME_QUAL = st.text(alphabet="AB", min_size=1, max_size=3)


def _qual_match(p: str, q: str) -> bool:
    """One qualifier: ? is one character, * any run (no dots inside a qualifier)."""
    if not p:
        return not q
    if p[0] == "*":
        return any(_qual_match(p[1:], q[k:]) for k in range(len(q) + 1))
    return bool(q) and (p[0] == "?" or p[0] == q[0]) and _qual_match(p[1:], q[1:])


def model_oam(profile: str, name: str) -> bool:
    """MQ's rule qualifier by qualifier: ** is any number (zero included) of whole qualifiers."""
    ps, ns = profile.split("."), name.split(".")

    def go(i: int, j: int) -> bool:
        if i == len(ps):
            return j == len(ns)
        if ps[i] == "**":
            return any(go(i + 1, k) for k in range(j, len(ns) + 1))
        return j < len(ns) and _qual_match(ps[i], ns[j]) and go(i + 1, j + 1)
    return go(0, 0)


@settings(max_examples=400)
@given(st.lists(st.one_of(QUAL.filter(bool), st.just("**")), min_size=1, max_size=4),
       st.lists(NAME_QUAL, min_size=1, max_size=4))
def test_oam_profiles_match_as_the_model(pquals, nquals):
    profile, name = ".".join(pquals), ".".join(nquals)
    if profile.count("**") > 1 or any("**" in q and q != "**" for q in pquals):
        return                      # MQ allows ** once, as a whole qualifier
    assert oam_match(profile, name) == model_oam(profile, name), (profile, name)


def test_oam_examples_from_mq():
    assert oam_match("AB.*", "AB.CD") and oam_match("AB.C*", "AB.CD")
    assert oam_match("DEV.**", "DEV.QUEUE.1") and oam_match("DEV.**", "DEV")
    assert not oam_match("DEV.*", "DEV.QUEUE.1")
    assert oam_match("**.REPLY", "A.B.REPLY") and oam_match("A.**.Z", "A.Z") and oam_match("**", "X.Y")
    assert oam_match("A?C", "ABC") and not oam_match("A?C", "A.C")
    # MQ's example: for AB.CD, AB.C* is more specific than AB.*; and ? beats * beats **.
    order = sorted(["AB.*", "AB.C*", "AB.**", "AB.?D", "AB.CD"], key=oam_specificity)
    assert order == ["AB.CD", "AB.C*", "AB.?D", "AB.*", "AB.**"]   # C beats ? at the first difference


@given(st.text(alphabet="AB.*", max_size=6), st.text(alphabet="AB.", max_size=6))
def test_chlauth_names_match_as_fnmatch_star(pattern, name):
    regex = "".join(".*" if c == "*" else re.escape(c) for c in pattern)
    assert star_match(pattern, name) == bool(re.fullmatch(regex, name, re.DOTALL))


OCTET = st.integers(0, 255)


@st.composite
def v4_pattern(draw):
    parts = []
    for _ in range(4):
        kind = draw(st.sampled_from(["num", "range", "star"]))
        if kind == "num":
            parts.append(str(draw(OCTET)))
        elif kind == "range":
            lo = draw(OCTET)
            parts.append(f"{lo}-{draw(st.integers(lo, 255))}")
        else:
            parts.append("*")
    text = ".".join(parts)
    while "*.*" in text:            # a run of stars is written as one
        text = text.replace("*.*", "*")
    return text


def model_address(pattern: str, addr: str) -> bool:
    pats, vals = pattern.split("."), [int(v) for v in addr.split(".")]

    def part(p: str, v: int) -> bool:
        lo, dash, hi = p.partition("-")
        return int(lo) <= v <= int(hi) if dash else int(lo) == v

    def go(i: int, j: int) -> bool:
        if i == len(pats):
            return j == len(vals)
        if pats[i] == "*":
            return any(go(i + 1, k) for k in range(j + 1, len(vals) + 1))
        return j < len(vals) and part(pats[i], vals[j]) and go(i + 1, j + 1)
    return go(0, 0)


@settings(max_examples=300)
@given(v4_pattern(), st.tuples(OCTET, OCTET, OCTET, OCTET))
def test_addresses_match_as_the_model(pattern, octets):
    addr = ".".join(map(str, octets))
    check_address_pattern(pattern)
    assert address_match(pattern, addr) == model_address(pattern, addr), (pattern, addr)


def test_address_examples_from_mq():
    assert address_match("192.0.2.*", "192.0.2.7") and address_match("192.0.*", "192.0.9.9")
    assert address_match("192.0.*.2", "192.0.77.2") and address_match("192.0.2.1-8", "192.0.2.8")
    assert not address_match("192.0.2.1-8", "192.0.2.9") and address_match("*", "10.0.0.1")
    assert address_match("127.0.0.1", "::ffff:127.0.0.1")
    assert address_match("2001:DB8:0:0:0:0:0:*", "2001:db8::5")
    assert sorted(["*", "10.0.0.1-5", "10.0.0.3", "10.*"], key=address_specificity)[:2] == ["10.0.0.3", "10.0.0.1-5"]
