"""Who a connection is, and whether it may come in: CHLAUTH for client channels, CONNAUTH, then
``connect`` authority. Called from ``greet`` (server.hello) with the session ``s``; the decisions
are mqlite.security's pure functions, read under the server's lock, while password checks and
FAILDLAY run outside it.

Order, as MQ's: CHLAUTH's address block and mapping rule (the identities the client flowed);
CONNAUTH with CHCKCLNT (a mapping rule's CHCKCLNT may tighten it) or CHCKLOCL; the user the
connection runs as (a mapping rule's MCAUSER, else the authenticated user if ADOPTCTX(YES), else
the SVRCONN's MCAUSER, else the asserted one); CHLAUTH's BLOCKUSER on that user; ``connect`` authority on
the queue manager. Every refusal answers MQRC_NOT_AUTHORIZED (2035) and writes MQ's messages to
the error log; none says whether a user exists."""
from __future__ import annotations

import socket
import struct
import time
from typing import Any

from mqlite.catalogue import entry, message
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import CMQZC as Z
from mqlite.cmq.CMQXC import MQSCA_REQUIRED
from mqlite.engine.qmgr import QueueManager
from mqlite.security import chlauth, connauth, tls
from mqlite.security.users import Principal, os_user_of_uid, verify_password
from mqlite.server import ldapauth

_LEVEL = {F.MQCHK_NONE: "NONE", F.MQCHK_OPTIONAL: "OPTIONAL", F.MQCHK_REQUIRED: "REQUIRED",
          F.MQCHK_REQUIRED_ADMIN: "REQDADM"}


class Refused(Exception):
    """A connection refused. ``qualifier`` (MQRQ_CONN_NOT_AUTHORIZED, MQRQ_CSP_NOT_AUTHORIZED) when
    it raises a Not Authorized (type 1) event for ``user`` (and the MQCSP's ``csp_user``); a
    channel blocked by CHLAUTH raises none."""

    def __init__(self, why: str, delay: float = 0.0, qualifier: int = 0, user: str = "", csp_user: str = "",
                 blocked: int = 0) -> None:
        super().__init__(why)
        self.why = why
        self.delay = delay
        self.qualifier = qualifier
        self.user = user
        self.csp_user = csp_user
        self.blocked = blocked              # a CHLAUTH refusal: its Channel Blocked ReasonQualifier


def peer_user(sock: socket.socket) -> str:
    """The operating-system user at the other end of a Unix socket (it cannot be asserted)."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return os_user_of_uid(uid)


def peer_pid(sock: socket.socket) -> int:
    """The process at the other end of a Unix socket."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[0])


def check_tls(s: Any, chl: Any, remote_spec: str) -> tuple[int, str, str] | None:
    """The SVRCONN's TLS settings against the connection (security.tls.check_channel): (reason for
    the client, msgid, text) when they do not agree: 2393 for CipherSpecs, 2059 for certificates."""
    found = tls.check_channel(chl.name, chl["SSLCIPH"], chl["SSLCAUTH"] == MQSCA_REQUIRED, chl["SSLPEER"], s.sock,
                              remote_spec)
    if found is None:
        return None
    what, msgid, text = found
    return (C.MQRC_SSL_INITIALIZATION_ERROR if what == "spec" else C.MQRC_Q_MGR_NOT_AVAILABLE), msgid, text


def identify(s: Any, req: dict[str, Any], chl: Any) -> Principal:
    """The principal the connection runs as, or Refused. ``chl``: the SVRCONN (None: bindings)."""
    srv = s.server
    qm = srv.qm
    sec = qm.security
    log = srv.log.write
    client = chl is not None
    os_user = peer_user(s.sock) if not client else str(req.get("os_user") or req.get("user") or "")[:12]
    password = req.get("password")
    csp_user = str(req.get("user") or "") if password is not None else ""
    # The user a client flows: its MQCSP user if it gave one, else its OS user (as MQ's CLNTUSER).
    flowed = csp_user or os_user
    address = s.peer.split("(")[0] if client else ""
    mcauser = chl["MCAUSER"] if client else ""
    rules_on = client and qm.qmgr["CHLAUTH"] == F.MQCHLA_ENABLED
    with srv.lock:
        cert = s.sock.getpeercert() if getattr(s, "tls", False) else None
        partner = chlauth.Partner(chl.name if client else "", True, address, flowed, sslpeer=tls.subject_dn(cert),
                                  sslcerti=tls.issuer_dn(cert))
        first = chlauth.decide(sec.rules, partner, mcauser, sec.is_admin) if rules_on else None
        info = sec.connauth
        stored = sec.password_hash(csp_user) if csp_user else None
        admin_asserted = sec.is_admin(flowed)
    if first is not None and not first.allowed:    # blocked at channel start, before MQCONN
        log(*entry(first.msgid), f"Channel {chl.name}, connection {s.peer}: {first.why}.")
        raise Refused(first.why, blocked=chlauth.blocked_qualifier(first), user=flowed)
    for w in first.warnings if first is not None else ():
        log(*entry("AMQ9787W", w=w))
    # CONNAUTH.
    adopted = ""
    if info is not None:
        level = _LEVEL[info["CHCKCLNT" if client else "CHCKLOCL"]]
        if first is not None:
            level = connauth.level_for(level, first.chckclnt)
        found: list[ldapauth.LdapUser] = []

        def verify(u: str, p: str) -> bool:
            if info["AUTHTYPE"] != C.MQAIT_IDPW_LDAP:
                return verify_password(stored, p)
            who = ldapauth.authenticate(info, u, p)
            if who is not None:
                found.append(who)
            return who is not None

        outcome = connauth.check(level, info["ADOPTCTX"] == F.MQADPCTX_YES, flowed, csp_user or None,
                                 password if csp_user else None, str(req.get("appl") or ""),
                                 lambda _u: admin_asserted, verify)
        if not outcome.ok:
            for msgid, text in outcome.log:
                log(msgid, text, f"Connection from {s.peer or 'local bindings'} refused: "
                                 f"MQRC_NOT_AUTHORIZED ({C.MQRC_NOT_AUTHORIZED}).")
            raise Refused("authentication failed", delay=float(info["FAILDLAY"]), qualifier=F.MQRQ_CSP_NOT_AUTHORIZED,
                          user=flowed, csp_user=csp_user)
        if outcome.checked and info["ADOPTCTX"] == F.MQADPCTX_YES:
            adopted = outcome.user
        if found:       # LDAP: the entry's short name is the user, its LDAP groups count as its groups
            adopted = found[0].short if adopted else adopted
            with srv.lock:
                if sec.external_groups.get(found[0].short) != found[0].groups:
                    sec.external_groups[found[0].short] = found[0].groups
                    sec.changed()
    with srv.lock:
        if rules_on:
            final = chlauth.decide(sec.rules, partner, mcauser, sec.is_admin, run_as=adopted or flowed,
                                   adopted=bool(adopted))
            if not final.allowed:
                log(*entry(final.msgid), f"Channel {chl.name}, connection {s.peer}, user '{final.user}': {final.why}.")
                raise Refused(final.why, blocked=chlauth.blocked_qualifier(final), user=final.user or adopted or flowed)
            user = final.user
        else:
            user = adopted or mcauser or flowed
        principal = sec.principal(user)
        may_connect(srv.qm, principal)
    return principal


def may_connect(qm: QueueManager, principal: Principal) -> None:
    """(Engine lock held.) Refused (Not Authorized type 1), with AMQ8077W logged, unless the OAM
    lets ``principal`` connect."""
    sec = qm.security
    if sec.oam and not principal.admin and not sec.authority(principal, "QMGR", qm.name) & Z.MQZAO_CONNECT:
        qm.log(message("AMQ8077W", entity=principal.user, name=qm.name),
               "Object type qmgr. The following requested permissions are unauthorized: connect.")
        raise Refused(f"{principal.user} has no connect authority", qualifier=F.MQRQ_CONN_NOT_AUTHORIZED,
                      user=principal.user)


def refuse_later(delay: float) -> None:
    """FAILDLAY: an authentication failure is answered only after this many seconds."""
    if delay > 0:
        time.sleep(delay)
