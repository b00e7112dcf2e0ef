"""Who an AMQP client is (server/amqpconn.py's connection): the SASL exchange mqlite answers itself
(amqp/sasl.py's frames) and the identity it gives, as a client channel's is judged.

- PLAIN is checked as CONNAUTH checks a client's password (server/auth.identify: CHLAUTH,
  CONNAUTH and ADOPTCTX, connect authority).
- ANONYMOUS, or no SASL at all, is the channel's MCAUSER; without one it is no one, and refused.
- EXTERNAL, offered on TLS to a client whose certificate TLS verified, runs as CHLAUTH's
  SSLPEERMAP (or MCAUSER) makes it, as ANONYMOUS does.
- USECLTID(YES) without MCAUSER: the container id runs, judged at OPEN (``at_open``).
A refusal is SASL's auth outcome after FAILDLAY, with its events (Channel Blocked, Not
Authorized)."""
from __future__ import annotations

from typing import Any

from mqlite.amqp import sasl as S
from mqlite.cmq import CMQC as C
from mqlite.server import auth

AMQPConnection = Any                    # (server/amqpconn.py's, which imports this module)


class Refused(Exception):
    """A protocol breach around the handshakes (a header that is not AMQP 1.0's, no OPEN in
    time): the connection is closed, AMQ9504E logged."""


def _recv(c: AMQPConnection, n: int) -> bytes:
    out = b""
    while len(out) < n:
        data = c.sock.recv(n - len(out))
        if not data:
            raise ConnectionError("the client closed the connection")
        out += data
    return out


def sasl_exchange(c: AMQPConnection) -> bytes | None:
    """The SASL exchange (or none: an AMQP header straight away is ANONYMOUS); the AMQP header
    that follows, or None when the client was refused."""
    header = _recv(c, 8)
    if header == S.AMQP_HEADER:
        return header if _admit(c, None, None) else None
    if header != S.SASL_HEADER:
        c.sock.sendall(S.SASL_HEADER)
        raise Refused(f"protocol header {header!r} is not AMQP 1.0's")
    cert = c.tls and bool(c.sock.getpeercert())
    offered = (["EXTERNAL"] if cert else []) + ["PLAIN", "ANONYMOUS"]
    c.sock.sendall(S.SASL_HEADER + S.mechanisms(offered))
    head = _recv(c, 4)
    init = S.read_init(head + _recv(c, S.frame_size(head) - 4))
    creds = S.plain(init.response) if init.mechanism == "PLAIN" else None
    if init.mechanism not in offered or (init.mechanism == "PLAIN" and creds is None):
        c.sock.sendall(S.outcome(S.AUTH))
        return None
    ok = _admit(c, *(creds or (None, None)))
    c.sock.sendall(S.outcome(S.OK if ok else S.AUTH))
    if not ok:
        return None
    header = _recv(c, 8)
    if header != S.AMQP_HEADER:
        raise Refused(f"after SASL, header {header!r} is not AMQP 1.0's")
    return header


def _admit(c: AMQPConnection, user: str | None, password: str | None) -> bool:
    """Who the client is, as a client channel's is checked (server/auth.identify: CHLAUTH,
    CONNAUTH, connect authority); a refusal is SASL's auth outcome, after FAILDLAY."""
    obj, srv = c.channel.obj, c.srv
    if user is None and by_client_id(c):
        return True                         # ANONYMOUS, USECLTID(YES): judged at OPEN, as its container id
    # ANONYMOUS asserts no one: the channel's MCAUSER is who it is (none: no one, refused).
    req: dict[str, Any] = {"os_user": user or "", "appl": "amqp"}
    if user is not None:
        req.update(user=user, password=password)
    try:
        c.principal = auth.identify(c, req, obj)
    except auth.Refused as e:
        with srv.lock:
            refused(c, e)
        auth.refuse_later(e.delay)
        return False
    return True


def by_client_id(c: AMQPConnection) -> bool:
    """USECLTID(YES) without MCAUSER: the client's container id is who it runs as."""
    obj = c.channel.obj
    return obj["USECLTID"] == 1 and not obj["MCAUSER"].strip()


def refused(c: AMQPConnection, e: auth.Refused) -> None:
    """(Engine lock held.) A client refused: counted, and its event put (Channel Blocked, Not
    Authorized)."""
    qm, obj = c.srv.qm, c.channel.obj
    qm.mqi.conn_fails += 1
    if e.blocked:
        qm.events.channel_blocked(e.blocked, obj.name, c.peer.split("(")[0], user=e.user)
    if e.qualifier:
        qm.events.not_authorized(e.qualifier, user=e.user, csp_user=e.csp_user, appltype=C.MQAT_AMQP,
                                 applname="amqp", channel=obj.name, conname=c.peer.split("(")[0])


def at_open(c: AMQPConnection) -> bool:
    """(Engine lock held.) OPEN, with USECLTID(YES) and no MCAUSER: the container id is who the
    client runs as (as an MQTT channel's client id). After ANONYMOUS, CHLAUTH and the OAM judge
    it; after PLAIN, CONNAUTH has checked the user and the OAM judges the container id. False:
    refused (its events put)."""
    if not by_client_id(c):
        return True
    try:
        if c.principal is None:
            c.principal = auth.identify(c, {"os_user": c.container[:12], "appl": "amqp"}, c.channel.obj)
        else:
            c.principal = c.srv.qm.security.principal(c.container[:12])
            auth.may_connect(c.srv.qm, c.principal)
    except auth.Refused as e:
        refused(c, e)
        return False
    return True
