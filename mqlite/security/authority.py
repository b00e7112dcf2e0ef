"""Object authority (MQ's OAM): authority names and bits, authority records, and the check.

An authority record grants an *entity* (a principal, that is a user, or a group) a set of
authorities on the objects of one type whose names match a *profile* (generic or not). The
authority a user has on an object is, for each of its entities (the user itself and each of its
groups), that of the most specific profile matching the object's name, united over the entities.
Administrators (members of ``mqm``) have every authority without records. Pure data and functions:
the engine keeps a :class:`Records` and asks :func:`effective`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from mqlite.cmq import CMQZC as Z
from mqlite.security.patterns import oam_match, oam_specificity

# MQSC / setmqaut authority names -> MQZAO bits.
AUTH_BITS: dict[str, int] = {
    "CONNECT": Z.MQZAO_CONNECT, "BROWSE": Z.MQZAO_BROWSE, "GET": Z.MQZAO_INPUT, "PUT": Z.MQZAO_OUTPUT,
    "INQ": Z.MQZAO_INQUIRE, "SET": Z.MQZAO_SET, "PASSID": Z.MQZAO_PASS_IDENTITY_CONTEXT,
    "PASSALL": Z.MQZAO_PASS_ALL_CONTEXT, "SETID": Z.MQZAO_SET_IDENTITY_CONTEXT, "SETALL": Z.MQZAO_SET_ALL_CONTEXT,
    "ALTUSR": Z.MQZAO_ALTERNATE_USER_AUTHORITY, "PUB": Z.MQZAO_PUBLISH, "SUB": Z.MQZAO_SUBSCRIBE,
    "RESUME": Z.MQZAO_RESUME, "CRT": Z.MQZAO_CREATE, "DLT": Z.MQZAO_DELETE, "DSP": Z.MQZAO_DISPLAY,
    "CHG": Z.MQZAO_CHANGE, "CLR": Z.MQZAO_CLEAR, "CTRL": Z.MQZAO_CONTROL, "CTRLX": Z.MQZAO_CONTROL_EXTENDED,
    "SYSTEM": Z.MQZAO_SYSTEM,
}
GROUPS: dict[str, int] = {"ALL": Z.MQZAO_ALL, "ALLADM": Z.MQZAO_ALL_ADMIN, "ALLMQI": Z.MQZAO_ALL_MQI,
                          "NONE": Z.MQZAO_NONE}
# The order dspmqaut and DISPLAY AUTHREC list them in.
ORDER = ("ALTUSR", "BROWSE", "CHG", "CLR", "CONNECT", "CRT", "CTRL", "CTRLX", "DLT", "DSP", "GET", "INQ",
         "PASSALL", "PASSID", "PUB", "PUT", "RESUME", "SET", "SETALL", "SETID", "SUB", "SYSTEM")

_MQI = Z.MQZAO_ALL_MQI
_ADM = Z.MQZAO_ALL_ADMIN
_Q_MQI = (Z.MQZAO_BROWSE | Z.MQZAO_INPUT | Z.MQZAO_OUTPUT | Z.MQZAO_INQUIRE | Z.MQZAO_SET
          | Z.MQZAO_PASS_IDENTITY_CONTEXT | Z.MQZAO_PASS_ALL_CONTEXT | Z.MQZAO_SET_IDENTITY_CONTEXT
          | Z.MQZAO_SET_ALL_CONTEXT)
_OBJ_ADM = Z.MQZAO_DELETE | Z.MQZAO_DISPLAY | Z.MQZAO_CHANGE
# What each object type's records may hold (MQ refuses others: AMQ8064E-style / MQRCCF_...).
APPLICABLE: dict[str, int] = {
    "QMGR": (Z.MQZAO_CONNECT | Z.MQZAO_INQUIRE | Z.MQZAO_SET | Z.MQZAO_SET_IDENTITY_CONTEXT
             | Z.MQZAO_SET_ALL_CONTEXT | Z.MQZAO_ALTERNATE_USER_AUTHORITY | Z.MQZAO_CREATE | Z.MQZAO_DISPLAY
             | Z.MQZAO_CHANGE | Z.MQZAO_DELETE | Z.MQZAO_CONTROL | Z.MQZAO_SYSTEM),
    "QUEUE": _Q_MQI | _OBJ_ADM | Z.MQZAO_CLEAR | Z.MQZAO_CREATE,
    "TOPIC": (Z.MQZAO_PUBLISH | Z.MQZAO_SUBSCRIBE | Z.MQZAO_RESUME | Z.MQZAO_PASS_IDENTITY_CONTEXT
              | Z.MQZAO_PASS_ALL_CONTEXT | Z.MQZAO_SET_IDENTITY_CONTEXT | Z.MQZAO_SET_ALL_CONTEXT
              | _OBJ_ADM | Z.MQZAO_CLEAR | Z.MQZAO_CONTROL | Z.MQZAO_CREATE),
    "CHANNEL": _OBJ_ADM | Z.MQZAO_CONTROL | Z.MQZAO_CONTROL_EXTENDED | Z.MQZAO_CREATE,
    "CLNTCONN": _OBJ_ADM | Z.MQZAO_CREATE,
    "NAMELIST": Z.MQZAO_INQUIRE | _OBJ_ADM | Z.MQZAO_CREATE,
    "PROCESS": Z.MQZAO_INQUIRE | _OBJ_ADM | Z.MQZAO_CREATE,
    "AUTHINFO": Z.MQZAO_INQUIRE | _OBJ_ADM | Z.MQZAO_CREATE,
    "LISTENER": _OBJ_ADM | Z.MQZAO_CONTROL | Z.MQZAO_CREATE,
    "SERVICE": _OBJ_ADM | Z.MQZAO_CONTROL | Z.MQZAO_CREATE,
    "COMMINFO": _OBJ_ADM | Z.MQZAO_CREATE,
    "RQMNAME": Z.MQZAO_OUTPUT | Z.MQZAO_INQUIRE | Z.MQZAO_PASS_IDENTITY_CONTEXT | Z.MQZAO_PASS_ALL_CONTEXT
               | Z.MQZAO_SET_IDENTITY_CONTEXT | Z.MQZAO_SET_ALL_CONTEXT,
}
OBJTYPES = tuple(APPLICABLE)
# setmqaut/dspmqaut -t names -> OBJTYPE.
SHORT_TYPES = {"q": "QUEUE", "queue": "QUEUE", "qmgr": "QMGR", "chl": "CHANNEL", "channel": "CHANNEL",
               "clntconn": "CLNTCONN", "authinfo": "AUTHINFO", "lstr": "LISTENER", "listener": "LISTENER",
               "nl": "NAMELIST", "namelist": "NAMELIST", "prcs": "PROCESS", "process": "PROCESS",
               "srvc": "SERVICE", "service": "SERVICE", "topic": "TOPIC", "top": "TOPIC", "comminfo": "COMMINFO",
               "rqmname": "RQMNAME"}


class AuthorityError(ValueError):
    """An authority name unknown, or not applicable to the object type."""


def bits_of(names: list[str], objtype: str) -> int:
    """The bits for a list of authority names (MQSC words or setmqaut's, any case). ALL, ALLADM and
    ALLMQI mean those of them that apply to the object type."""
    applicable = APPLICABLE[objtype]
    out = 0
    for raw in names:
        name = raw.strip().upper()
        if name in GROUPS:
            out |= GROUPS[name] & applicable
            continue
        bit = AUTH_BITS.get(name)
        if bit is None:
            raise AuthorityError(f"{raw} is not an authority")
        if not bit & applicable:
            raise AuthorityError(f"{raw.lower()} is not valid for objects of type {objtype}")
        out |= bit
    return out


def names_of(bits: int) -> list[str]:
    """The authority names in ``bits``, in MQ's display order (NONE for none)."""
    names = [n for n in ORDER if bits & AUTH_BITS[n]]
    return names or ["NONE"]


@dataclass(frozen=True)
class Entity:
    """Who a record is for: a principal (``group`` False) or a group."""
    name: str
    group: bool


@dataclass
class Records:
    """Every authority record: (objtype, profile, entity) -> bits."""
    table: dict[tuple[str, str, Entity], int] = field(default_factory=dict)

    def set(self, objtype: str, profile: str, entity: Entity, add: int, remove: int) -> int:
        key = (objtype, profile, entity)
        bits = (self.table.get(key, 0) | add) & ~remove
        self.table[key] = bits
        return bits

    def delete(self, objtype: str, profile: str, entity: Entity) -> bool:
        return self.table.pop((objtype, profile, entity), None) is not None

    def matching(self, objtype: str | None = None, profile: str | None = None,
                 entity: Entity | None = None) -> list[tuple[str, str, Entity, int]]:
        return sorted(((t, p, e, b) for (t, p, e), b in self.table.items()
                       if (objtype is None or t == objtype) and (profile is None or p == profile)
                       and (entity is None or e == entity)),
                      key=lambda r: (r[0], r[1], r[2].group, r[2].name))


def effective(records: Records, objtype: str, name: str, entities: list[Entity]) -> int:
    """The authority the entities together have on the named object: for each entity the record of
    the most specific profile that matches, united over the entities."""
    out = 0
    for entity in entities:
        best: tuple[object, int] | None = None
        for (t, profile, e), bits in records.table.items():
            if t != objtype or e != entity or not oam_match(profile, name):
                continue
            key = oam_specificity(profile)
            if best is None or key < best[0]:   # type: ignore[operator]
                best = (key, bits)
        if best is not None:
            out |= best[1]
    return out
