"""MQSC: splitting a script into commands and parsing one command.

MQ's lexical rules: keywords are case-insensitive; unquoted values are folded to upper case;
quoted strings keep their case and '' stands for one quote; a line ending in ``-`` continues with
the next line as it is, one ending in ``+`` continues from the next line's first non-blank
character; a line starting with ``*`` is a comment; ``;`` ends a command early.
"""
from __future__ import annotations

from dataclasses import dataclass, field

VERBS = {
    "DEFINE": "DEFINE", "DEF": "DEFINE", "ALTER": "ALTER", "ALT": "ALTER", "DELETE": "DELETE",
    "DEL": "DELETE", "DISPLAY": "DISPLAY", "DIS": "DISPLAY", "CLEAR": "CLEAR", "PING": "PING",
    "START": "START", "STA": "START", "STOP": "STOP", "END": "END", "REFRESH": "REFRESH", "REF": "REFRESH",
    "RESET": "RESET", "RESOLVE": "RESOLVE", "RESO": "RESOLVE", "RESUME": "RESUME", "SUSPEND": "SUSPEND",
    "SET": "SET", "PURGE": "PURGE",
}
OBJECTS = {
    "QLOCAL": "QLOCAL", "QL": "QLOCAL", "QALIAS": "QALIAS", "QA": "QALIAS", "QREMOTE": "QREMOTE",
    "QR": "QREMOTE", "QMODEL": "QMODEL", "QM": "QMODEL", "QUEUE": "QUEUE", "Q": "QUEUE",
    "CHANNEL": "CHANNEL", "CHL": "CHANNEL", "NAMELIST": "NAMELIST", "NL": "NAMELIST",
    "LISTENER": "LISTENER", "LSTR": "LISTENER", "QMGR": "QMGR", "QSTATUS": "QSTATUS", "QS": "QSTATUS",
    "CHSTATUS": "CHSTATUS", "CHS": "CHSTATUS", "LSSTATUS": "LSSTATUS", "QMSTATUS": "QMSTATUS",
    "CLUSQMGR": "CLUSQMGR", "QCLUSTER": "QCLUSTER", "QC": "QCLUSTER", "CLUSTER": "CLUSTER",
    "AUTHINFO": "AUTHINFO", "CHLAUTH": "CHLAUTH", "AUTHREC": "AUTHREC", "SECURITY": "SECURITY",
    "TOPIC": "TOPIC", "TPSTATUS": "TPSTATUS", "TPS": "TPSTATUS", "SUB": "SUB", "SBSTATUS": "SBSTATUS",
    "PUBSUB": "PUBSUB", "TOPICSTR": "TOPICSTR", "CONN": "CONN",
    "PROCESS": "PROCESS", "PRO": "PROCESS", "SERVICE": "SERVICE", "COMMINFO": "COMMINFO",
    "SVSTATUS": "SVSTATUS", "APSTATUS": "APSTATUS", "APS": "APSTATUS",
}


class MQSCSyntaxError(ValueError):
    """A command that does not parse; ``segment`` is the text up to the point of the error."""

    def __init__(self, segment: str, reason: str = "") -> None:
        super().__init__(reason or "syntax error")
        self.segment = segment
        self.reason = reason


@dataclass
class Param:
    keyword: str
    value: str | None = None        # None: a bare keyword such as REPLACE or NOSHARE
    quoted: bool = False
    items: list[str] | None = None  # the comma-separated values, for list parameters
    text: str = ""                  # the source text of this parameter, for error messages


@dataclass
class Command:
    verb: str
    objtype: str = ""
    name: str | None = None
    name_quoted: bool = False
    params: list[Param] = field(default_factory=list)
    text: str = ""

    def param(self, keyword: str) -> Param | None:
        for p in self.params:
            if p.keyword == keyword:
                return p
        return None


@dataclass
class ScriptCommand:
    """One command as read from a script: its joined text and the source lines for the echo."""

    text: str
    lines: list[str]


def split_commands(script: str) -> list[ScriptCommand]:
    out: list[ScriptCommand] = []
    buf = ""
    lines: list[str] = []
    strip_next = False          # the previous line ended in '+': drop the next line's leading blanks
    for raw in script.splitlines():
        line = raw.rstrip()
        if line.startswith("*") or not line.strip():
            # Comments and blank lines are passed over, inside a continued command too (runmqsc
            # reads on to the line that continues it).
            if lines:
                lines.append(raw)
            continue
        lines.append(raw)
        piece = line.lstrip() if strip_next else line
        strip_next = False
        if piece.endswith("-"):
            buf += piece[:-1]
            continue
        if piece.endswith("+"):
            buf += piece[:-1]
            strip_next = True
            continue
        buf += piece
        if buf.rstrip().endswith(";"):
            buf = buf.rstrip()[:-1]
        out.append(ScriptCommand(buf.strip(), lines))
        buf, lines = "", []
    if lines and buf.strip():
        out.append(ScriptCommand(buf.strip(), lines))
    return out


def _tokens(text: str) -> list[tuple[str, str | None, bool, str]]:
    """(word, value-in-parentheses or None, value-was-quoted, source text) for each parameter."""
    out = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t,":
            i += 1
        if i >= n:
            break
        start = i
        if text[i] == "(":
            raise MQSCSyntaxError(text[: i + 1], "unexpected parenthesis")
        if text[i] == "'":
            raise MQSCSyntaxError(text[: i + 1], "unexpected quoted string")
        while i < n and text[i] not in " \t(),'":
            i += 1
        word = text[start:i]
        if i < n and text[i] in ")'":
            raise MQSCSyntaxError(text[: i + 1], "unbalanced parenthesis")
        j = i
        while j < n and text[j] in " \t":
            j += 1
        value = None
        quoted = False
        if j < n and text[j] == "(":
            value, quoted, i = _paren_value(text, j)
        out.append((word, value, quoted, text[start:i]))
    return out


def _paren_value(text: str, i: int) -> tuple[str, bool, int]:
    """The contents of parentheses starting at text[i] == '('; returns (value, quoted, next index)."""
    assert text[i] == "("
    i += 1
    n = len(text)
    parts: list[str] = []
    quoted = False
    depth = 0
    while i < n:
        c = text[i]
        if c == "'":
            quoted = True
            i += 1
            s = []
            while True:
                if i >= n:
                    raise MQSCSyntaxError(text, "unterminated quoted string")
                if text[i] == "'":
                    if i + 1 < n and text[i + 1] == "'":
                        s.append("'")
                        i += 2
                        continue
                    i += 1
                    break
                s.append(text[i])
                i += 1
            parts.append("\0Q" + "".join(s) + "\0E")
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return "".join(parts), quoted, i + 1
            depth -= 1
        parts.append(c)
        i += 1
    raise MQSCSyntaxError(text, "unbalanced parentheses")


def split_items(value: str) -> list[tuple[str, bool]]:
    """Comma-separated items of a parameter value, each with whether it was quoted.

    Unquoted items are folded to upper case, as MQSC does for every unquoted value.
    """
    items: list[tuple[str, bool]] = []
    cur = ""
    quoted = False
    i = 0
    while i < len(value):
        if value.startswith("\0Q", i):
            end = value.index("\0E", i)
            if not quoted:
                cur = cur.strip()
            cur += value[i + 2:end]
            quoted = True
            i = end + 2
            continue
        c = value[i]
        if c == ",":
            items.append((cur if quoted else cur.strip().upper(), quoted))
            cur, quoted = "", False
        else:
            cur += c
        i += 1
    if cur.strip() or quoted or items:
        items.append((cur if quoted else cur.strip().upper(), quoted))
    return items


def _condition(value: str) -> tuple[str, bool]:
    """A WHERE condition as its words: unquoted ones folded to upper case, a quoted value kept
    in its quotes with its case (WHERE(DESCR EQ 'ab') compares with 'ab', WHERE(DESCR EQ ab)
    with AB), and whether it had one."""
    out, quoted, i = "", False, 0
    while i < len(value):
        if value.startswith("\0Q", i):
            end = value.index("\0E", i)
            out += "'" + value[i + 2:end].replace("'", "''") + "'"
            quoted = True
            i = end + 2
            continue
        out += value[i].upper()
        i += 1
    return out.strip(), quoted


def condition(value: str) -> tuple[str, str, str] | None:
    """A WHERE condition's attribute, operator and value (a quoted value unquoted, with its case);
    None when it is not three words."""
    parts = value.split(None, 2)
    if len(parts) != 3:
        return None
    raw = parts[2]
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        raw = raw[1:-1].replace("''", "'")
    return parts[0].upper(), parts[1].upper(), raw


def _plain(value: str) -> tuple[str, bool]:
    """A single-valued parameter: its text with quotes removed, and whether it was quoted."""
    items = split_items(value)
    if len(items) == 1:
        return items[0]
    return ",".join(v for v, _q in items), any(q for _v, q in items)


def parse(text: str) -> Command:
    """Parse one command; raises MQSCSyntaxError with the segment MQ would show."""
    toks = _tokens(text)
    if not toks:
        raise MQSCSyntaxError(text, "empty command")
    word, value, quoted, _src = toks[0]
    verb = VERBS.get(word.upper())
    if verb is None or value is not None:
        raise MQSCSyntaxError(text[: len(word)], "unknown command")
    cmd = Command(verb, text=text)
    rest = toks[1:]
    if verb == "END":
        if rest:
            raise MQSCSyntaxError(text, "END takes no parameters")
        return cmd
    if not rest:
        raise MQSCSyntaxError(text, "object type missing")
    word, value, quoted, src = rest[0]
    objtype = OBJECTS.get(word.upper())
    if objtype is None:
        raise MQSCSyntaxError(text[: text.upper().index(word.upper()) + len(word)], "unknown object type")
    cmd.objtype = objtype
    if value is not None:
        name, nquoted = _plain(value)
        cmd.name = name
        cmd.name_quoted = nquoted
    seen: set[str] = set()
    for word, value, _quoted, src in rest[1:]:
        kw = word.upper()
        if kw in seen:
            raise MQSCSyntaxError(_upto(text, src), f"keyword {kw} repeated")
        seen.add(kw)
        p = Param(kw, text=src)
        if value is not None and kw == "WHERE":
            p.value, p.quoted = _condition(value)
            p.items = [p.value]
        elif value is not None:
            items = split_items(value)
            p.items = [v for v, _q in items]
            p.quoted = any(q for _v, q in items)
            p.value = items[0][0] if len(items) == 1 else ",".join(p.items)
        cmd.params.append(p)
    return cmd


def _upto(text: str, src: str) -> str:
    idx = text.find(src)
    return text[: idx + len(src)] if idx >= 0 else text
