"""MQ's object naming rules."""
from __future__ import annotations

import re
from typing import Any

from mqlite.cmq import CMQCFC as F

_NAME = re.compile(r"[A-Za-z0-9._/%]+\Z")

LIMITS = {"QUEUE": 48, "QMGR": 48, "NAMELIST": 48, "LISTENER": 48, "CHANNEL": 20, "CLUSTER": 48, "SERVICE": 32}


def valid_name(name: str, objtype: str = "QUEUE") -> bool:
    """True when ``name`` follows MQ's rules: 1..limit characters from A-Z a-z 0-9 . _ / %."""
    return 0 < len(name) <= LIMITS.get(objtype, 48) and bool(_NAME.match(name))


def generic_match(pattern: str, name: str) -> bool:
    """MQSC generic names: a trailing ``*`` matches any suffix; ``*`` alone matches everything."""
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return name == pattern


def wildcard_match(pattern: str, name: str) -> bool:
    """A generic channel name (CLCHNAME) with ``*`` anywhere standing for any characters."""
    regex = "".join(".*" if c == "*" else re.escape(c) for c in pattern)
    return re.fullmatch(regex, name) is not None


# MQSC WHERE operators, as the PCF filter operators (MQCFOP_*) they are.
MQSC_OPS = {"LT": F.MQCFOP_LESS, "EQ": F.MQCFOP_EQUAL, "LE": F.MQCFOP_NOT_GREATER, "GT": F.MQCFOP_GREATER,
            "NE": F.MQCFOP_NOT_EQUAL, "GE": F.MQCFOP_NOT_LESS, "LK": F.MQCFOP_LIKE, "NL": F.MQCFOP_NOT_LIKE}


def filter_match(op: int, have: Any, want: Any) -> bool:
    """One filter condition, as MQSC WHERE and PCF filters apply it. LIKE/NOT_LIKE take a generic
    name; an unknown operator raises KeyError, values that do not compare raise TypeError."""
    if op in (F.MQCFOP_LIKE, F.MQCFOP_NOT_LIKE):
        return generic_match(str(want), str(have)) == (op == F.MQCFOP_LIKE)
    if op == F.MQCFOP_EQUAL:
        return bool(have == want)
    if op == F.MQCFOP_NOT_EQUAL:
        return bool(have != want)
    compare = {F.MQCFOP_LESS: have.__lt__, F.MQCFOP_GREATER: have.__gt__, F.MQCFOP_NOT_LESS: have.__ge__,
               F.MQCFOP_NOT_GREATER: have.__le__}[op]
    result = compare(want)
    if result is NotImplemented:
        raise TypeError(f"{have!r} and {want!r} do not compare")
    return bool(result)
