"""Message selectors: MQ's selection-string language (the SQL-92 subset JMS defines) parsed once at
MQOPEN and evaluated against a message's properties and descriptor fields, never its data.

Grammar (keywords in any case)::

    expr  := and  { OR and }                 sum  := prod { (+|-) prod }
    and   := not  { AND not }                prod := unary { (*|/) unary }
    not   := NOT not | test                  unary:= (+|-) unary | primary
    test  := sum [ (= | <> | < | > | <= | >=) sum
                 | [NOT] BETWEEN sum AND sum
                 | [NOT] IN ( literal {, literal} )
                 | [NOT] LIKE 'pattern' [ESCAPE 'c']
                 | IS [NOT] NULL ]
    primary := 'string' | number | TRUE | FALSE | identifier | ( expr )

Identifiers are property names (``colour``, ``usr.colour``, ``mcd.Type``), ``Root.MQMD.<field>``
for a descriptor field, or a JMS name (``JMSPriority``, ``JMSDeliveryMode``, ``JMSMessageID``,
``JMSCorrelationID``, ``JMSType``, ``JMSXGroupID``, ``JMSXGroupSeq``). A property the message does
not have is NULL. Logic is three-valued as JMS defines it (a comparison with NULL is unknown);
a message is selected only when the whole expression is TRUE. Numbers compare with numbers
(integers and floating point together), strings and booleans only with = and <>; a comparison of
different kinds is unknown. A string that does not parse raises ``SelectorError`` with the
offset of the fault (2459 MQRC_SELECTOR_SYNTAX_ERROR).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.props.values import MD_PREFIX, canonical, md_property

Lookup = Callable[[str], Any]          # a name → its value, or None
Expr = Callable[[Lookup], Any]

_TOKEN = re.compile(r"""
    \s*(?:
      (?P<str>'(?:[^']|'')*')
    | (?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[dDfFlL]?)
    | (?P<id>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)
    | (?P<op><>|<=|>=|[=<>(),+\-*/])
    )""", re.VERBOSE)
KEYWORDS = frozenset({"AND", "OR", "NOT", "BETWEEN", "IN", "LIKE", "ESCAPE", "IS", "NULL", "TRUE", "FALSE"})
# JMS header names a selector may use, and what each reads.
_JMS = {"JMSPriority": "Root.MQMD.Priority", "JMSXGroupSeq": "Root.MQMD.MsgSeqNumber", "JMSType": "mcd.Type",
        "JMSMessageID": "JMSMessageID", "JMSCorrelationID": "JMSCorrelationID", "JMSXGroupID": "JMSXGroupID",
        "JMSDeliveryMode": "JMSDeliveryMode"}
# JMS's forms of descriptor fields: identifiers as 'ID:' and hex, persistence as a word.
_JMS_FORM: dict[str, Callable[[Any], Any]] = {
    "JMSMessageID": lambda md: "ID:" + md.MsgId.hex(), "JMSCorrelationID": lambda md: "ID:" + md.CorrelId.hex(),
    "JMSXGroupID": lambda md: "ID:" + md.GroupId.hex(),
    "JMSDeliveryMode": lambda md: "PERSISTENT" if md.Persistence == C.MQPER_PERSISTENT else "NON_PERSISTENT"}


class SelectorError(Exception):
    def __init__(self, offset: int, detail: str) -> None:
        super().__init__(f"{detail} at offset {offset}")
        self.offset = offset
        self.reason = C.MQRC_SELECTOR_SYNTAX_ERROR


def _tokens(text: str) -> list[tuple[str, Any, int]]:
    out: list[tuple[str, Any, int]] = []
    pos = 0
    n = len(text)
    while pos < n:
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None:
            raise SelectorError(len(text) - len(text[pos:].lstrip()), "unexpected character")
        start = m.start(m.lastgroup)   # type: ignore[arg-type]
        kind = m.lastgroup
        value: Any = m.group(kind)     # type: ignore[arg-type]
        if kind == "str":
            value = value[1:-1].replace("''", "'")
        elif kind == "num":
            raw = value.rstrip("dDfFlL")
            value = float(raw) if any(c in raw for c in ".eE") else int(raw)
        elif kind == "id" and value.upper() in KEYWORDS:
            kind, value = "kw", value.upper()
        out.append((kind, value, start))       # type: ignore[arg-type]
        pos = m.end()
    out.append(("end", None, n))
    return out


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _compare(op: str, a: Any, b: Any) -> bool | None:
    if a is None or b is None:
        return None
    if _num(a) and _num(b):
        pass
    elif type(a) is type(b) and isinstance(a, (str, bool, bytes)):
        if op not in ("=", "<>"):
            return None
    else:
        return None
    if op == "=":
        return a == b
    if op == "<>":
        return a != b
    if op == "<":
        return a < b
    if op == ">":
        return a > b
    if op == "<=":
        return a <= b
    return a >= b


def _arith(op: str, a: Any, b: Any) -> Any:
    if not (_num(a) and _num(b)):
        return None
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        return None
    return a / b if isinstance(a, float) or isinstance(b, float) else (a // b if a * b >= 0 else -(-a // b))


def _junction(parts: list[Expr], decisive: bool) -> Expr:
    """OR (``decisive`` True) or AND (False) in JMS's three-valued logic: a part with the decisive
    value decides; else any unknown part (or one that is not a boolean) makes the whole unknown."""
    if len(parts) == 1:
        return parts[0]
    other = not decisive

    def f(get: Lookup) -> bool | None:
        unknown = False
        for p in parts:
            v = p(get)
            if v is decisive:
                return decisive
            if v is not other:
                unknown = True
        return None if unknown else other
    return f


def _arithmetic(op: str, a: Expr, b: Expr) -> Expr:
    return lambda get: _arith(op, a(get), b(get))


def like_pattern(pattern: str, escape: str | None) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if escape is not None and c == escape and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if c == "%" else "." if c == "_" else re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0

    def peek(self) -> tuple[str, Any, int]:
        return self.toks[self.i]

    def take(self) -> tuple[str, Any, int]:
        t = self.toks[self.i]
        self.i += 1
        return t

    def is_kw(self, word: str) -> bool:
        k, v, _ = self.peek()
        return k == "kw" and v == word

    def expect(self, kind: str, value: Any = None) -> tuple[str, Any, int]:
        t = self.take()
        if t[0] != kind or (value is not None and t[1] != value):
            raise SelectorError(t[2], f"expected {value or kind}")
        return t

    def parse(self) -> Expr:
        e = self.orx()
        k, _v, at = self.peek()
        if k != "end":
            raise SelectorError(at, "unexpected text")
        return e

    def orx(self) -> Expr:
        return _junction(self._chain("OR", self.andx), True)

    def andx(self) -> Expr:
        return _junction(self._chain("AND", self.notx), False)

    def _chain(self, word: str, operand: Callable[[], Expr]) -> list[Expr]:
        parts = [operand()]
        while self.is_kw(word):
            self.take()
            parts.append(operand())
        return parts

    def notx(self) -> Expr:
        if self.is_kw("NOT"):
            self.take()
            inner = self.notx()

            def f(get: Lookup) -> bool | None:
                v = inner(get)
                return (not v) if isinstance(v, bool) else None
            return f
        return self.test()

    def test(self) -> Expr:
        left = self.sum()
        k, v, at = self.peek()
        if k == "op" and v in ("=", "<>", "<", ">", "<=", ">="):
            self.take()
            right = self.sum()
            return lambda get: _compare(v, left(get), right(get))
        negate = False
        if self.is_kw("NOT"):
            self.take()
            negate = True
            k, v, at = self.peek()
            if not (k == "kw" and v in ("BETWEEN", "IN", "LIKE")):
                raise SelectorError(at, "expected BETWEEN, IN or LIKE after NOT")
        if self.is_kw("BETWEEN"):
            self.take()
            lo = self.sum()
            self.expect("kw", "AND")
            hi = self.sum()

            def between(get: Lookup) -> bool | None:
                x = left(get)
                a, b = _compare(">=", x, lo(get)), _compare("<=", x, hi(get))
                if a is False or b is False:
                    r: bool | None = False
                elif a is None or b is None:
                    r = None
                else:
                    r = True
                return (not r) if negate and r is not None else r
            return between
        if self.is_kw("IN"):
            self.take()
            self.expect("op", "(")
            items = [self.literal()]
            while self.peek()[:2] == ("op", ","):
                self.take()
                items.append(self.literal())
            self.expect("op", ")")

            def within(get: Lookup) -> bool | None:
                x = left(get)
                if x is None:
                    return None
                r = any(_compare("=", x, i) for i in items)
                return not r if negate else r
            return within
        if self.is_kw("LIKE"):
            self.take()
            _k, pattern, at = self.expect("str")
            escape = None
            if self.is_kw("ESCAPE"):
                self.take()
                _k, escape, at = self.expect("str")
                if len(escape) != 1:
                    raise SelectorError(at, "ESCAPE needs one character")
            rx = like_pattern(pattern, escape)

            def like(get: Lookup) -> bool | None:
                x = left(get)
                if not isinstance(x, str):
                    return None
                r = rx.match(x) is not None
                return not r if negate else r
            return like
        if self.is_kw("IS"):
            self.take()
            isnot = False
            if self.is_kw("NOT"):
                self.take()
                isnot = True
            self.expect("kw", "NULL")
            return lambda get: (left(get) is None) != isnot
        return left

    def sum(self) -> Expr:
        e = self.prod()
        while self.peek()[0] == "op" and self.peek()[1] in ("+", "-"):
            e = _arithmetic(self.take()[1], e, self.prod())
        return e

    def prod(self) -> Expr:
        e = self.unary()
        while self.peek()[0] == "op" and self.peek()[1] in ("*", "/"):
            e = _arithmetic(self.take()[1], e, self.unary())
        return e

    def unary(self) -> Expr:
        k, v, _at = self.peek()
        if k == "op" and v in ("+", "-"):
            self.take()
            inner = self.unary()
            if v == "+":
                return lambda get: inner(get) if _num(inner(get)) else None
            return lambda get: -x if _num(x := inner(get)) else None
        return self.primary()

    def literal(self) -> Any:
        k, v, at = self.take()
        if k == "op" and v == "-" and self.peek()[0] == "num":
            return -self.take()[1]
        if k in ("str", "num"):
            return v
        if k == "kw" and v in ("TRUE", "FALSE"):
            return v == "TRUE"
        raise SelectorError(at, "expected a literal")

    def primary(self) -> Expr:
        k, v, at = self.peek()
        if k in ("str", "num") or (k == "kw" and v in ("TRUE", "FALSE")):
            value = self.literal()
            return lambda get: value
        if k == "id":
            self.take()
            name = _JMS.get(v) or canonical(v)
            return lambda get: get(name)
        if k == "op" and v == "(":
            self.take()
            e = self.orx()
            self.expect("op", ")")
            return e
        raise SelectorError(at, "expected a value")


def compile_selector(text: str) -> Expr:
    """A selection string as a function of a name lookup, giving True, False or None (unknown)."""
    return _Parser(text).parse()


def md_lookup(md: Any, props: Mapping[str, tuple[int, Any]]) -> Lookup:
    """The names a selector reads from one message: its properties, and its descriptor fields."""
    def get(name: str) -> Any:
        if name.startswith(MD_PREFIX):
            got = md_property(md, name[len(MD_PREFIX):])
            return None if got is None else got[1]
        got = props.get(name)
        if got is None:
            form = _JMS_FORM.get(name)
            return form(md) if form is not None else None
        return got[1]
    return get
