"""Connection authentication (CONNAUTH): whether a connection's user id and password are
checked, and what a check's outcome means. Pure: ``verify`` does the checking.

The AUTHINFO object the queue manager's CONNAUTH names says how strict to be: CHCKCLNT for
client connections, CHCKLOCL for local bindings.

- NONE: nothing is checked; a password given is ignored.
- OPTIONAL: a user id and password given are checked; none given is accepted.
- REQUIRED: a user id and password must be given, and are checked.
- REQDADM: an administrator must give them; anyone else as OPTIONAL.

A CHLAUTH rule's CHCKCLNT(REQUIRED|REQDADM) tightens CHCKCLNT for the connections it matches
(ignored when CHCKCLNT is NONE). Every refusal is MQRC_NOT_AUTHORIZED (2035), the same whether the
user is unknown or the password wrong; ADOPTCTX(YES) makes the authenticated user the
connection's user.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mqlite.catalogue import entry

LEVELS = ("NONE", "OPTIONAL", "REQUIRED", "REQDADM")
_STRICT = {"OPTIONAL": 0, "REQDADM": 1, "REQUIRED": 2}


@dataclass(frozen=True)
class Outcome:
    ok: bool
    user: str                     # the user the connection runs as
    log: tuple[tuple[str, str], ...] = ()   # (msgid, text) for the error log
    checked: bool = False         # a password was checked (and passed, if ok)


def level_for(authinfo_level: str, chlauth_chckclnt: str) -> str:
    """CHCKCLNT after a CHLAUTH rule's CHCKCLNT (ASQMGR: as the queue manager)."""
    if authinfo_level == "NONE" or chlauth_chckclnt in ("", "ASQMGR"):
        return authinfo_level
    return max(authinfo_level, chlauth_chckclnt, key=lambda v: _STRICT.get(v, 0))


def check(level: str, adopt: bool, asserted: str, user: str | None, password: str | None, appl: str,
          is_admin: Callable[[str], bool], verify: Callable[[str, str], bool]) -> Outcome:
    """The CONNAUTH decision. ``asserted``: the user the connection would otherwise run as;
    ``user``/``password``: what MQCSP (or the client) supplied."""
    if level == "NONE":
        return Outcome(True, asserted)
    supplied = bool(user) and password is not None
    who = user or asserted
    if not supplied:
        required = level == "REQUIRED" or (level == "REQDADM" and is_admin(asserted))
        if not required:
            return Outcome(True, asserted)
        return Outcome(False, asserted, (
            entry("AMQ5540E", appl=appl),
            entry("AMQ5541E", level=level),
        ))
    assert user is not None and password is not None
    if not verify(user, password):
        return Outcome(False, asserted, (
            entry("AMQ5534E", username=who),
        ))
    return Outcome(True, user if adopt else asserted, checked=True)
