"""Object authority checks (the OAM) and connection authentication's configuration: ``Authority``,
the queue manager's ``qm.authority``, over the security state (mqlite.security) it is given.

A connection carries the principal it runs as (``Conn.principal``; None for the queue manager's
own agents, which have every authority). MQCONN needs ``connect`` on the queue manager; MQOPEN
needs, per option, inq/browse/get/put/set and the context authorities on the name opened (an alias
or remote definition itself, a model queue, the transmission queue when ObjectQMgrName names
another queue manager, SYSTEM.CLUSTER.TRANSMIT.QUEUE for a cluster queue), and setid/setall on
the queue manager too. A refusal is MQRC_NOT_AUTHORIZED (2035) with AMQ8077W in the error log. What
a principal has on an object is cached on the connection until the security state changes."""
from __future__ import annotations

from typing import Protocol

from mqlite.catalogue import message
from mqlite.cmq import CMQZC as Z
from mqlite.cmq.errors import MQIError
from mqlite.engine.core import C, Conn
from mqlite.objects.model import MQObject
from mqlite.security.authority import AUTH_BITS, Entity, bits_of
from mqlite.security.state import SecurityState

# MQOPEN options -> the authority each needs on the object.
_OPEN_AUTH = ((C.MQOO_INQUIRE, Z.MQZAO_INQUIRE), (C.MQOO_BROWSE, Z.MQZAO_BROWSE),
              (C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE, Z.MQZAO_INPUT),
              (C.MQOO_OUTPUT, Z.MQZAO_OUTPUT), (C.MQOO_SET, Z.MQZAO_SET),
              (C.MQOO_PASS_IDENTITY_CONTEXT, Z.MQZAO_PASS_IDENTITY_CONTEXT),
              (C.MQOO_PASS_ALL_CONTEXT, Z.MQZAO_PASS_ALL_CONTEXT),
              (C.MQOO_SET_IDENTITY_CONTEXT, Z.MQZAO_SET_IDENTITY_CONTEXT),
              (C.MQOO_SET_ALL_CONTEXT, Z.MQZAO_SET_ALL_CONTEXT))
_QMGR_TOO = Z.MQZAO_SET_IDENTITY_CONTEXT | Z.MQZAO_SET_ALL_CONTEXT
_WORD = {bit: name.lower() for name, bit in AUTH_BITS.items()}


def open_authority(options: int, objtype: str = "QUEUE") -> int:
    """The authorities MQOPEN's options need on an object; on a topic, output is ``pub``."""
    need = 0
    for opts, bit in _OPEN_AUTH:
        if options & opts:
            need |= bit
    if objtype == "TOPIC" and need & Z.MQZAO_OUTPUT:
        need = need & ~Z.MQZAO_OUTPUT | Z.MQZAO_PUBLISH
    return need


class AuthorityHost(Protocol):
    """What authority checks need of the queue manager: its name and definitions, and where a
    refusal is logged."""
    name: str
    objects: dict[str, dict[str, MQObject]]
    qmgr: MQObject

    def log(self, text: str, explanation: str = "") -> None: ...


class Authority:
    def __init__(self, qm: AuthorityHost, security: SecurityState) -> None:
        self.qm = qm
        self.security = security

    def authority_of(self, conn: Conn, objtype: str, name: str) -> int:
        """Every authority bit the connection's principal has on the object (cached)."""
        p = conn.principal
        if p is None:
            return -1
        sec = self.security
        if conn.auth_version != sec.version:
            conn.auth_cache.clear()
            conn.auth_version = sec.version
        key = (objtype, name)
        bits = conn.auth_cache.get(key)
        if bits is None:
            bits = conn.auth_cache[key] = sec.authority(p, objtype, name)
        return bits

    def authority_for(self, conn: Conn, objtype: str, name: str, alt_user: str = "") -> int:
        """What the connection's principal has on the object, or with ``alt_user`` that user."""
        if conn.principal is None:
            return -1
        if alt_user:
            return self.security.authority(self.security.principal(alt_user), objtype, name)
        return self.authority_of(conn, objtype, name)

    def authorize(self, conn: Conn, objtype: str, name: str, need: int, alt_user: str = "") -> None:
        """2035 unless the connection (or, with ``alt_user``, that user) has every authority in
        ``need`` on the object."""
        if conn.principal is None or not need:
            return
        who = alt_user or conn.principal.user
        have = self.authority_for(conn, objtype, name, alt_user)
        missing = need & ~have
        if missing:
            words = ", ".join(_WORD.get(b, str(b)) for b in _bits(missing))
            self.qm.log(message("AMQ8077W", entity=who, name=name),
                        f"Object type {objtype.lower()}. The following requested permissions are unauthorized: {words}.")
            raise MQIError(C.MQRC_NOT_AUTHORIZED, detail=f"{who} lacks {words} on {name}", checked=(objtype, name, who))

    def authorize_open(self, conn: Conn, objtype: str, name: str, options: int, alt_user: str = "") -> None:
        """MQOPEN's checks (a topic's on its administrative topic object); with
        MQOO_ALTERNATE_USER_AUTHORITY the connection needs altusr on the queue manager and the
        checks are made for the alternate user (MQOD AlternateUserId)."""
        if conn.principal is None:
            return
        alt = self.alternate(conn, alt_user, bool(options & C.MQOO_ALTERNATE_USER_AUTHORITY))
        need = open_authority(options, objtype)
        self.authorize(conn, objtype, name, need, alt)
        if objtype != "QMGR" and need & _QMGR_TOO:
            self.authorize(conn, "QMGR", self.qm.name, need & _QMGR_TOO, alt)

    def alternate(self, conn: Conn, alt_user: str, asked: bool) -> str:
        """The user whose authority is checked in place of the connection's when an MQOD's, MQSD's
        or MQPMO's option asks for it: the connection needs ``altusr`` on the queue manager (2035)."""
        if not asked or conn.principal is None:
            return ""
        self.authorize(conn, "QMGR", self.qm.name, Z.MQZAO_ALTERNATE_USER_AUTHORITY)
        return alt_user

    def grant_creator(self, conn: Conn, queue: str) -> None:
        """The creator of a dynamic queue has every authority on it, as MQ grants."""
        p = conn.principal
        if p is not None and not p.admin and self.security.oam:
            self.security.set_authrec("QUEUE", queue, Entity(p.user, False), bits_of(["ALL"], "QUEUE"), 0)

    # --- CONNAUTH -------------------------------------------------------------------------------
    def refresh_connauth(self) -> str:
        """Take the AUTHINFO that the queue manager's CONNAUTH names as the one in force (at start
        and on REFRESH SECURITY TYPE(CONNAUTH)); an error message if it cannot be used."""
        name = self.qm.qmgr["CONNAUTH"]
        if not name:
            self.security.connauth = None
            return ""
        obj = self.qm.objects["AUTHINFO"].get(name)
        if obj is None or obj["AUTHTYPE"] not in (C.MQAIT_IDPW_OS, C.MQAIT_IDPW_LDAP):
            self.security.connauth = None
            return message("MQL0016E", name=name)
        self.security.connauth = dict(obj.attrs)
        return ""


def _bits(mask: int) -> list[int]:
    return [1 << i for i in range(mask.bit_length()) if mask >> i & 1]

