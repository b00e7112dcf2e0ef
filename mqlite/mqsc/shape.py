"""Whether runmqsc's output has IBM MQ's shape, line by line: what a script that reads runmqsc's
output (Ansible's modules, monitoring scripts, the tests of public MQSC corpora) relies on.

MQ's runmqsc prints a banner, ``Starting MQSC for queue manager NAME.``, each command echoed
after its number (``     1 : DEFINE ...``; comment and continuation lines after ``       : ``),
then its messages (``AMQnnnnS: text``, the id in MQ's catalogue) and, for DISPLAY, attribute lines:
three blanks, then two attributes a line, the second at column 43; an attribute of 38 characters or
more alone, an attribute without a partner padded to its field (37 characters), a list's further
values each on a line of its own under the first (``        ,NAME``). Then its summary: commands
read, syntax errors, commands that could not be processed. A syntax error (AMQ8405I) is followed by
the command up to the error and a line saying what is wrong, in any words.

``problems(text)`` lists every line that breaks the shape, with why; mqlite's ``MQL`` ids
(docs/mqsc.md) are reported so that a corpus run can count them; mqlite's banner (its first line)
is its own, with the word Copyright that scripts drop it by, as IBM's."""
from __future__ import annotations

import re

from mqlite.catalogue import MESSAGES

# runmqsc's first line: IBM's names its product and copyright; mqlite's its own, with the word that
# scripts filtering runmqsc's output drop it by (grep -v Copyright).
IBM_BANNER = "5724-H72 (C) Copyright IBM Corp."
BANNER = "mqlite MQSC (C) Copyright the mqlite authors, for IBM MQ's runmqsc."
_ECHO = re.compile(r"^ {0,5}\d{1,6} : ")
_COMMENT = re.compile(r"^ {7}: ")
_MESSAGE = re.compile(r"^((?:AMQ|MQL)\d{4}[IEWST]): ")
_ITEM = re.compile(r"^[A-Z][A-Z0-9]*(?:\(.*\))?$")
_SUMMARY = re.compile(r"^(?:One MQSC command read\.|\d+ MQSC commands read\.|No commands have a syntax error\."
                      r"|One command has a syntax error\.|\d+ commands have a syntax error\."
                      r"|All valid MQSC commands were processed\.|One valid MQSC command could not be processed\."
                      r"|\d+ valid MQSC commands could not be processed\.)$")
WIDE = 38


def _item_problem(item: str) -> str:
    return "" if _ITEM.match(item) else f"not an attribute: {item!r}"


def attribute_line(line: str) -> str:
    """Why an attribute line of a DISPLAY breaks MQ's layout ("" when it keeps it)."""
    if not line.startswith("   ") or line[3:4] in (" ", ""):
        if re.match(r"^ {4,},\S", line):
            return ""                                   # a list's further value
        return "an attribute line begins with three blanks"
    body = line[3:]
    first = body[:40].rstrip()
    if len(body) > 40 and body[39] == " " and body[40] != " " and first.count("(") == first.count(")"):
        if len(first) >= WIDE:
            return f"{first!r} is {len(first)} characters: MQ prints it alone"
        return _item_problem(first) or _item_problem(body[40:])
    item = body.rstrip()
    if re.match(r"^[A-Z][A-Z0-9]*(\([^()]*\))? +[A-Z]", item):
        return f"two attributes not at MQ's columns: {item!r}"
    if item.count("(") > item.count(")"):
        return _item_problem(item + ")")                # the first line of a list a value a line
    if len(item) < WIDE and body != item.ljust(WIDE - 1):
        return f"{item!r} alone is padded to 37 characters by MQ"
    if len(item) >= WIDE and body != item:
        return f"{item!r} alone has no padding in MQ"
    return _item_problem(item)


def problems(text: str, own_ids: bool = False) -> list[str]:
    """Every line of runmqsc's output ``text`` that is not in MQ's shape, as ``line N: why``;
    with ``own_ids`` mqlite's documented MQL ids pass (counted apart by the caller)."""
    out: list[str] = []
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    in_syntax = False                  # after AMQ8405I: the command and what is wrong, in any words
    for n, line in enumerate(lines, 1):
        def bad(why: str) -> None:
            out.append(f"line {n}: {why}: {line!r}")
        if n == 1:
            if not line.startswith((IBM_BANNER, BANNER)):
                bad("not runmqsc's banner (scripts drop the line with Copyright)")
            continue
        if line == "" or line.startswith("Starting MQSC for queue manager ") or _SUMMARY.match(line):
            in_syntax = False
            continue
        if _ECHO.match(line) or _COMMENT.match(line) or line == "       :":
            in_syntax = False
            continue
        m = _MESSAGE.match(line)
        if m:
            mid = m.group(1)
            if mid not in MESSAGES:
                bad(f"{mid} is not in MQ's catalogue as mqlite knows it")
            elif mid.startswith("MQL") and not own_ids:
                bad(f"{mid} is mqlite's own id")
            in_syntax = mid == "AMQ8405I"
            continue
        if in_syntax:
            continue
        why = attribute_line(line)
        if why:
            bad(why)
    return out
