"""The administrative REST API's MQSC endpoint, as pure functions: a ``runCommandJSON`` request
turned into the MQSC command it stands for (``command_text``), the queue manager's MQSC response
text turned back into MQ's ``commandResponse`` items (``text_items`` for ``runCommand``,
``json_items`` for ``runCommandJSON``), and the overall completion and reason codes.

The request is checked before anything reaches the queue manager, so nothing can be injected
into the MQSC: the verb and qualifier must be MQSC words, the name an MQ object name (or a generic
one), each parameter's key a keyword, and every value is quoted (a quote doubled), as MQSC reads
a quoted string back exactly. A request that fails the check is a ``BadRequest`` (HTTP 400)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mqlite.objects.attrs import ATTRS, LIST, STR

# The MQSC verbs and the object qualifiers runCommandJSON accepts (MQ's list, less the z/OS-only
# displays it refuses in JSON form).
VERBS = ("ALTER", "CLEAR", "DEFINE", "DELETE", "DISPLAY", "END", "MOVE", "PING", "PURGE", "RECOVER", "REFRESH",
         "RESET", "RESOLVE", "RESUME", "SET", "START", "STOP", "SUSPEND", "ARCHIVE", "BACKUP", "RESCUE", "RVERIFY")
QUALIFIERS = ("APSTATUS", "AUTHINFO", "AUTHREC", "AUTHSERV", "CHANNEL", "CHINIT", "CHLAUTH", "CHSTATUS", "CLUSQMGR",
              "CMDSERV", "COMMINFO", "CONN", "ENTAUTH", "LISTENER", "LSSTATUS", "NAMELIST", "POLICY", "PROCESS",
              "PUBSUB", "QALIAS", "QLOCAL", "QMGR", "QMODEL", "QMSTATUS", "QREMOTE", "QSTATUS", "QUEUE", "SBSTATUS",
              "SECURITY", "SERVICE", "SUB", "SVSTATUS", "TOPIC", "TPSTATUS", "LISTENER", "CLUSTER", "QMGRMAP",
              "QCLUSTER")
NAMELESS = ("QMGR", "QMSTATUS", "CMDSERV", "PUBSUB", "SECURITY", "CHINIT", "AUTHSERV")
# Names that are not object names: a topic string (# and + its wildcards), a subscription's or an
# application's name (any characters), quoted like every value.
FREE_NAMES = ("TPSTATUS", "SUB", "SBSTATUS", "APSTATUS")
# Keywords that take no value: {"replace": "yes"} is REPLACE, {"replace": "no"} NOREPLACE.
FLAGS = ("REPLACE", "PURGE", "FORCE", "ALL", "IGNSTATE", "REMOVEALL")
_NAME = re.compile(r"^[A-Za-z0-9._/%*]{1,48}$")
_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9]{0,31}$")
# The answer's AMQ messages -> the reason MQ's mqweb reports for an item that failed.
REASONS = {"AMQ8147E": 2085, "AMQ8227E": 4032, "AMQ8150E": 4001, "AMQ8148E": 2042, "AMQ8143E": 2055, "AMQ8135E": 2035,
           "AMQ8145E": 2059, "AMQ8146E": 2058, "AMQ8101S": 3008, "AMQ8405I": 3008,
           "AMQ8420I": 3065, "AMQ8098E": 2428,
           "MQL8010I": 3252}
COMMAND_FAILED = 3008                   # MQRCCF_COMMAND_FAILED: the overall reason of a refusal
# How a displayed value goes into JSON: the attribute table's lists as arrays (and CHLAUTH's
# user and address lists), its strings as strings whatever they hold, other whole numbers as numbers.
LISTS = frozenset({a.name for a in ATTRS if a.kind == LIST} | {"USERLIST", "ADDRLIST"})
STRINGS = frozenset(a.name for a in ATTRS if a.kind == STR) - LISTS


class BadRequest(ValueError):
    """A request that cannot be turned into MQSC: MQ's message id and text for the HTTP 400."""

    def __init__(self, message_id: str, message: str) -> None:
        super().__init__(message)
        self.message_id = message_id


def quoted(value: Any) -> str:
    if isinstance(value, bool):
        value = "YES" if value else "NO"
    text = str(value)
    if any(c in text for c in "\r\n\0"):
        raise BadRequest("MQWB1104E", "Unknown arguments specified.")
    return "'" + text.replace("'", "''") + "'"


def read_only(command: str) -> bool:
    """Whether an MQSC command only reads (DISPLAY, as MQSC abbreviates it too: MQWebAdminRO's)."""
    words = command.split(None, 1)
    return bool(words) and len(words[0]) >= 3 and "DISPLAY".startswith(words[0].upper())


def command_text(body: dict[str, Any]) -> str:
    """The MQSC a ``runCommandJSON`` request stands for: COMMAND QUALIFIER('name') KEY('value') ...
    then, for a DISPLAY, the response parameters asked for ("all" by default)."""
    verb = str(body.get("command") or "").upper()
    qualifier = str(body.get("qualifier") or "").upper()
    if not verb or not qualifier:
        raise BadRequest("MQWB1102E", "Mandatory arguments missing from command.")
    if verb not in VERBS or qualifier not in QUALIFIERS:
        raise BadRequest("MQWB1104E", "Unknown arguments specified.")
    parts = [verb, qualifier]
    name = body.get("name")
    if qualifier in NAMELESS:
        if name not in (None, ""):
            raise BadRequest("MQWB1104E", "Unknown arguments specified.")
    elif qualifier in FREE_NAMES:        # (a topic string, a subscription's or application's name: quoted)
        if not isinstance(name, str) or not name or len(name) > 10240 or any(c in name for c in "\r\n\0"):
            raise BadRequest("MQWB1102E" if not name else "MQWB1104E",
                             "Mandatory arguments missing from command." if not name else "Unknown arguments specified.")
        parts[-1] += f"({quoted(name)})"
    else:
        if not isinstance(name, str) or not _NAME.match(name):
            raise BadRequest("MQWB1102E" if not name else "MQWB1104E",
                             "Mandatory arguments missing from command." if not name else "Unknown arguments specified.")
        parts[-1] += f"({quoted(name)})"
    parameters = body.get("parameters") or {}
    if not isinstance(parameters, dict):
        raise BadRequest("MQWB1104E", "Unknown arguments specified.")
    for key, value in parameters.items():
        if not isinstance(key, str) or not _KEY.match(key):
            raise BadRequest("MQWB1104E", "Unknown arguments specified.")
        word = key.upper()
        if word in FLAGS and isinstance(value, str) and value.lower() in ("yes", "no"):
            parts.append(word if value.lower() == "yes" else "NO" + word)
        elif isinstance(value, list):
            parts.append(f"{word}({','.join(quoted(v) for v in value)})")
        elif isinstance(value, (dict, type(None))):
            raise BadRequest("MQWB1103E", f"No value specified for argument {key}.")
        else:
            parts.append(f"{word}({value})" if isinstance(value, int) and not isinstance(value, bool)
                         else f"{word}({quoted(value)})")
    wanted = body.get("responseParameters")
    if wanted is not None:
        if not isinstance(wanted, list) or not all(isinstance(w, str) and _KEY.match(w) for w in wanted):
            raise BadRequest("MQWB1104E", "Unknown arguments specified.")
        if verb != "DISPLAY":
            raise BadRequest("MQWB1101E", "Argument responseParameters requires other prerequisite arguments.")
        parts += [w.upper() for w in wanted]
    elif verb == "DISPLAY":
        parts.append("ALL")
    return " ".join(parts)


@dataclass
class Block:
    """One MQSC response: its AMQ message (with the lines that continue it, such as the segment
    a syntax error shows) and the KEY(value) fields under it."""
    message: list[str]
    fields: list[tuple[str, str]]


def blocks(text: str) -> list[Block]:
    """MQSC response text split into responses: each begins with an AMQ message line; the
    indented lines after it carry its KEY(value) fields (a value may hold balanced parentheses
    and spaces; a list's further values, a line each, join its first), other lines continue its
    message."""
    out: list[Block] = []
    for line in re.sub(r"\n +(?=,)", "", text).splitlines():
        if not line.strip():
            continue
        if re.match(r"^(?:AMQ|MQL)\d{4}[A-Z]:", line) or not out:
            out.append(Block([line.strip()], []))
        elif line.startswith(" ") and fields(line):
            out[-1].fields += fields(line)
        else:
            out[-1].message.append(line.strip())
    return out


def fields(line: str) -> list[tuple[str, str]]:
    out = []
    i, n = 0, len(line)
    while i < n:
        m = re.compile(r"\s*([A-Z][A-Z0-9]*)\(").match(line, i)
        if m is None:
            bare = re.compile(r"\s*[A-Z][A-Z0-9]*(?=\s|$)").match(line, i)   # (a flag's bare word: NOSHARE)
            if bare is None or bare.end() == i:
                break
            i = bare.end()
            continue
        depth, j = 1, m.end()
        while j < n and depth:
            depth += {"(": 1, ")": -1}.get(line[j], 0)
            j += 1
        out.append((m.group(1), line[m.end():j - 1]))
        i = j
    return out


def _value(key: str, raw: str) -> Any:
    v = raw.strip()
    if key in LISTS:
        return [s.strip().strip("'") for s in v.split(",") if s.strip()] if v else []
    if key not in STRINGS and re.fullmatch(r"-?\d+", v) and len(v) < 19 and not (len(v) > 1 and v.startswith("0") and v != "0"):
        return int(v)
    return v


def _reason(message: str) -> int:
    return REASONS.get(message[:8], COMMAND_FAILED)


def text_items(text: str, ok: bool) -> list[dict[str, Any]]:
    """``runCommand``: one item, the response text line by line."""
    lines = [line for line in text.splitlines() if line.strip()]
    if ok:
        return [{"completionCode": 0, "reasonCode": 0, "text": lines}]
    first = next((line for line in lines if re.match(r"^AMQ\d{4}[A-Z]:", line)), "")
    return [{"completionCode": 2, "reasonCode": _reason(first), "text": lines}]


def fields_item(fields: list[tuple[str, str]]) -> dict[str, Any]:
    """One object a display showed, as runCommandJSON's item: its fields keyed by lowercase MQSC
    name (whole numbers as numbers unless the attribute is a string, lists as arrays)."""
    return {"completionCode": 0, "reasonCode": 0, "parameters": {k.lower(): _value(k, v) for k, v in fields}}


def json_items(text: str, ok: bool) -> list[dict[str, Any]]:
    """``runCommandJSON``: one item per MQSC response; a display's fields as ``parameters`` with
    lowercase keys (whole numbers as numbers, lists as arrays), any other response's lines as
    ``message``."""
    items = []
    for b in blocks(text):
        if b.fields:
            items.append(fields_item(b.fields))
        elif ok:
            items.append({"completionCode": 0, "reasonCode": 0, "message": b.message})
        else:
            items.append({"completionCode": 2, "reasonCode": _reason(b.message[0]), "message": b.message})
    return items


def overall(items: list[dict[str, Any]]) -> tuple[int, int]:
    """overallCompletionCode and overallReasonCode: 0 and 0, or the worst item's completion code
    with MQRCCF_COMMAND_FAILED."""
    worst = max((int(i["completionCode"]) for i in items), default=0)
    return (worst, COMMAND_FAILED) if worst else (0, 0)
