"""Topic-string matching, MQ's rules for subscriptions and DISPLAY TPSTATUS.

Topic-based wildcards (MQSO_WILDCARD_TOPIC, the default): levels are separated by ``/``; ``#``
matches any number of levels, zero included, and ``+`` exactly one level; each must be a whole
level (``a/#``, ``+/b``), elsewhere the character is literal. Character-based wildcards
(MQSO_WILDCARD_CHAR): ``*`` any run of characters, ``?`` one character, ``/`` being a character
like any other, and ``%`` the escape: ``%*``, ``%?`` and ``%%`` stand for the character itself;
``%`` before anything else (or last) makes the topic string invalid (MQRC_TOPIC_STRING_ERROR)."""
from __future__ import annotations

import functools
import re


def in_admin_branch(topic: str) -> bool:
    """A topic string of the queue manager's own branch, $SYS/MQ (SYSTEM.ADMIN.TOPIC): only the
    queue manager publishes there (MQRC_ADMIN_TOPIC_STRING_ERROR for an application)."""
    return topic == "$SYS/MQ" or topic.startswith("$SYS/MQ/")


def admin_blocked(pattern: str, topic: str) -> bool:
    """MQ's isolation of $SYS/MQ (SYSTEM.ADMIN.TOPIC's WILDCARD(BLOCK)): a subscription whose
    wildcards stand higher in the tree than $SYS/MQ matches nothing within it."""
    return in_admin_branch(topic) and not in_admin_branch(pattern)


def topic_match(pattern: str, topic: str) -> bool:
    """Topic-based: ``#`` any number of whole levels (zero included), ``+`` one level."""
    return _levels(tuple(pattern.split("/")), tuple(topic.split("/")))


@functools.lru_cache(maxsize=8192)
def _levels(pat: tuple[str, ...], top: tuple[str, ...]) -> bool:
    if not pat:
        return not top
    head = pat[0]
    if head == "#":
        return any(_levels(pat[1:], top[k:]) for k in range(len(top) + 1))
    if not top:
        return False
    if head == "+" or head == top[0]:
        return _levels(pat[1:], top[1:])
    return False


def char_pattern_valid(pattern: str) -> bool:
    """Every ``%`` escapes ``*``, ``?`` or ``%``."""
    try:
        _char_regex(pattern)
    except ValueError:
        return False
    return True


@functools.lru_cache(maxsize=4096)
def _char_regex(pattern: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "%":
            if i + 1 >= len(pattern) or pattern[i + 1] not in "*?%":
                raise ValueError(f"'%' at {i} escapes nothing")
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if c == "*" else "." if c == "?" else re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def char_match(pattern: str, topic: str) -> bool:
    """Character-based: ``*`` any characters, ``?`` one."""
    return bool(_char_regex(pattern).match(topic))
