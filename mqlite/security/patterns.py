"""Name and address patterns, as MQ's security rules match them. Pure functions, no state.

- **OAM profiles** (SET AUTHREC PROFILE, setmqaut -n): ``?`` is one character other than ``.``,
  ``*`` is any number of characters within one qualifier, ``**`` is any number of whole
  qualifiers (zero included: ``A.**`` matches ``A``). Of several matching profiles the most
  specific applies: compared left to right, where they first differ a non-generic character beats
  a generic one, and ``?`` beats ``*`` beats ``**``.
- **CHLAUTH channel profiles, queue-manager names, user names**: ``*`` anywhere is any number of
  characters, dots included. More specific: compared left to right, a non-generic character beats
  ``*``.
- **CHLAUTH addresses** (ADDRESS, ADDRLIST): an IPv4 or IPv6 address whose parts may be ``*`` (one
  or more whole parts) or a range ``a-b``; a single ``*`` is any address.
"""
from __future__ import annotations

import functools
import ipaddress
import re

# --- OAM profiles --------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _oam_regex(profile: str) -> re.Pattern[str]:
    quals = profile.split(".")
    out = ""
    for i, q in enumerate(quals):
        last = i == len(quals) - 1
        if q == "**":
            if len(quals) == 1:
                out += r".*"
            elif i == 0:
                out += r"(?:[^.]*\.)*" if not last else ""
            elif last:
                out += r"(?:\.[^.]*)*"
            else:
                out += r"(?:\.[^.]*)*\."
            continue
        if i > 0 and quals[i - 1] != "**":
            out += r"\."
        out += "".join(r"[^.]" if c == "?" else r"[^.]*" if c == "*" else re.escape(c) for c in q)
    return re.compile(out + r"\Z", re.DOTALL)


def oam_match(profile: str, name: str) -> bool:
    """Whether the OAM profile (generic or not) covers the object name."""
    if profile == name:
        return True
    return bool(_oam_regex(profile).match(name))


_OAM_RANK = {"?": 1, "*": 2, "**": 3}


def _oam_symbols(profile: str) -> list[tuple[int, str]]:
    """The profile as (rank, character) symbols: rank 0 for a plain character."""
    out: list[tuple[int, str]] = []
    i = 0
    while i < len(profile):
        if profile.startswith("**", i):
            out.append((3, "**"))
            i += 2
        elif profile[i] in "*?":
            out.append((_OAM_RANK[profile[i]], profile[i]))
            i += 1
        else:
            out.append((0, profile[i]))
            i += 1
    return out


def oam_specificity(profile: str) -> tuple[tuple[int, ...], int]:
    """A sort key: the most specific profile sorts first. Left to right, a plain character (0)
    before ``?`` (1) before ``*`` (2) before ``**`` (3); a longer profile, all else equal, first."""
    ranks = tuple(r for r, _c in _oam_symbols(profile))
    return ranks + (4,), -len(profile)


# --- CHLAUTH names -------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def _star_regex(pattern: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else re.escape(c) for c in pattern) + r"\Z", re.DOTALL)


def star_match(pattern: str, name: str) -> bool:
    """A CHLAUTH channel profile, QMNAME or SSLPEER value: ``*`` is any run of characters."""
    return pattern == name or ("*" in pattern and bool(_star_regex(pattern).match(name)))


def star_specificity(pattern: str) -> tuple[int, ...]:
    """Sort key, most specific first: left to right a plain character (0) before ``*`` (1); a
    longer pattern, all else equal, first."""
    return tuple(1 if c == "*" else 0 for c in pattern) + (2,)


# --- CHLAUTH addresses ---------------------------------------------------------------------------


class AddressPatternError(ValueError):
    """An ADDRESS or ADDRLIST value that is not a valid generic IP address (MQRCCF 3364)."""


def _v4_parts(pattern: str) -> list[str]:
    parts = pattern.split(".")
    if len(parts) > 4 or not all(parts):
        raise AddressPatternError(pattern)
    for p in parts:
        if p == "*":
            continue
        lo, _, hi = p.partition("-")
        for v in (lo, hi) if hi else (lo,):
            if not v.isdigit() or int(v) > 255:
                raise AddressPatternError(pattern)
        if hi and int(lo) > int(hi):
            raise AddressPatternError(pattern)
    if "*" not in parts and len(parts) != 4:
        raise AddressPatternError(pattern)
    return parts


def check_address_pattern(pattern: str) -> None:
    """Raise AddressPatternError unless ``pattern`` is a generic IP address MQ accepts."""
    if pattern == "*":
        return
    if ":" in pattern:
        if not all(p == "*" or re.fullmatch(r"[0-9A-Fa-f]{1,4}(-[0-9A-Fa-f]{1,4})?", p)
                   for p in pattern.split(":")):
            raise AddressPatternError(pattern)
        return
    _v4_parts(pattern)
    if pattern.count("*") > 1 and "*.*" in pattern:
        raise AddressPatternError(pattern)


def _part_match(pat: str, value: str, base: int) -> bool:
    lo, dash, hi = pat.partition("-")
    v = int(value, base)
    if dash:
        return int(lo, base) <= v <= int(hi, base)
    return int(lo, base) == v


def _parts_match(pats: list[str], vals: list[str], base: int) -> bool:
    """``*`` stands for one or more whole parts."""
    if not pats:
        return not vals
    head = pats[0]
    if head == "*":
        return any(_parts_match(pats[1:], vals[k:], base) for k in range(1, len(vals) + 1))
    return bool(vals) and _part_match(head, vals[0], base) and _parts_match(pats[1:], vals[1:], base)


def address_match(pattern: str, address: str) -> bool:
    """Whether the connection's IP address (dotted IPv4 or IPv6 text) matches the pattern."""
    if pattern == "*":
        return True
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if isinstance(ip, ipaddress.IPv4Address):
        if ":" in pattern:
            return False
        return _parts_match(pattern.split("."), str(ip).split("."), 10)
    if ":" not in pattern:
        return False
    vals = [f"{int(x, 16):x}" for x in ip.exploded.split(":")]
    return _parts_match([p.lower() for p in pattern.split(":")], vals, 16)


def address_specificity(pattern: str) -> tuple[int, int, int]:
    """Sort key, most specific first: an exact address, then ranges, then ``*`` patterns; among
    those, more literal parts first, then fewer ranges."""
    parts = re.split(r"[.:]", pattern)
    stars = parts.count("*")
    ranges = sum(1 for p in parts if "-" in p)
    literal = len(parts) - stars - ranges
    return (2 if stars else 1 if ranges else 0), -literal, ranges
