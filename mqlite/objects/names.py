"""MQ's object naming rules."""
from __future__ import annotations

import re

_NAME = re.compile(r"[A-Za-z0-9._/%]+\Z")

LIMITS = {"QUEUE": 48, "QMGR": 48, "NAMELIST": 48, "LISTENER": 48, "CHANNEL": 20, "CLUSTER": 48}


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
