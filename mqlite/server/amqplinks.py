"""The MQ object behind each AMQP link of a connection (server/amqpconn.py), as IBM MQ's AMQP
channels map them (docs/amqp.md; the rules are amqp/mapping.py's):

- a link the client sends on: the queue (``queue`` capability), a new temporary queue (a dynamic
  target), or the topic under the channel's TPROOT, opened for output;
- a link the client receives on: the queue (``copy``: browsed), a new temporary queue (a dynamic
  source: made from the channel's TMPMODEL, named from TMPQPRFX, deleted with the link), or a
  subscription. A plain one lives as long as its link (a non-durable MQ subscription). One that
  outlives it (an expiry-policy of ``never`` or a timeout) or is shared (``share:<name>:<topic>``
  or the ``shared`` capability) is a durable MQ subscription named as MQ names it
  (``:private:<container>:<topic>``, ``:share:<name>:<topic>``): each link holds its managed queue
  open, and the last to go removes it, or leaves it to expire after the timeout.

Every open and subscribe is made as the client's identity, so the OAM judges it; a refusal
detaches the link with MQ's reason as its condition."""
from __future__ import annotations

from typing import Any

from proton import Array, Condition, Link, Terminus

from mqlite.amqp import mapping as A
from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import OD
from mqlite.cmq.subs import SD

AMQPConnection = Any                    # (server/amqpconn.py's, which imports this module)

LINK_CREDIT = 500                       # credit a link the client sends on is given
CONDITIONS = {C.MQRC_UNKNOWN_OBJECT_NAME: "amqp:not-found", C.MQRC_NOT_AUTHORIZED: "amqp:unauthorized-access",
              C.MQRC_PUT_INHIBITED: "amqp:resource-locked", C.MQRC_GET_INHIBITED: "amqp:resource-locked",
              C.MQRC_Q_FULL: "amqp:resource-limit-exceeded", C.MQRC_MSG_TOO_BIG_FOR_Q: "amqp:link:message-size-exceeded",
              C.MQRC_OBJECT_IN_USE: "amqp:resource-locked", C.MQRC_SUBSCRIPTION_IN_USE: "amqp:resource-locked",
              C.MQRC_HANDLE_NOT_AVAILABLE: "amqp:resource-limit-exceeded", C.MQRC_FORMAT_ERROR: "amqp:decode-error"}
_EXPIRY = {Terminus.EXPIRE_WITH_LINK: "link-detach", Terminus.EXPIRE_WITH_SESSION: "session-end",
           Terminus.EXPIRE_WITH_CONNECTION: "connection-close", Terminus.EXPIRE_NEVER: "never"}


def condition(reason: int, what: str) -> Condition:
    return Condition(CONDITIONS.get(reason, "amqp:internal-error"), f"MQ reason {reason} for '{what}'")


def capabilities(term: Terminus) -> list[str]:
    data = term.capabilities
    if data is None or not data.next():
        return []
    obj = data.get_object()
    if isinstance(obj, Array):                  # (an AMQP array of symbols, as rhea sends them)
        obj = obj.elements
    return [str(c) for c in (obj if isinstance(obj, (list, tuple)) else [obj])]


def attach(c: AMQPConnection, link: Link) -> None:
    """ATTACH: the link's MQ object opened (or made), the link answered with its address."""
    sending = link.is_sender                   # (ours: the client receives on it)
    term = link.remote_source if sending else link.remote_target
    caps = capabilities(term)
    address = term.address or ""
    entry: dict[str, Any] = {"sender": sending, "kind": A.kind_of(caps), "address": address, "link": link,
                             "settled": link.remote_snd_settle_mode == Link.SND_SETTLED}
    if c.conn is None:                          # (OPEN was refused: USECLTID's identity may not connect)
        return refuse(link, Condition("amqp:unauthorized-access", "the connection was refused"))
    if not term.dynamic and not address:
        return refuse(link, Condition("amqp:invalid-field", "a link needs an address or a dynamic node"))
    try:
        with c.srv.lock:
            if term.dynamic:
                _temporary_queue(c, entry)
            elif sending:
                _open_source(c, link, entry, caps)
            else:
                entry["hobj"] = c.srv.qm.open(c.conn, _od(c, entry["kind"], address), C.MQOO_OUTPUT).hobj
    except MQIError as e:
        return refuse(link, condition(e.reason, address or "a temporary queue"))
    c.handles[link._impl] = entry
    mine = link.source if sending else link.target
    mine.address = entry["address"]
    if term.dynamic:
        mine.dynamic = True
    if entry.get("browse"):
        link.source.distribution_mode = Terminus.DIST_MODE_COPY
    link.open()
    if not sending:
        link.flow(LINK_CREDIT)


def refuse(link: Link, why: Condition) -> None:
    link.condition = why
    link.open()
    link.close()


def _od(c: AMQPConnection, kind: str, address: str) -> OD:
    if kind == A.QUEUE:
        return OD(ObjectName=address.encode())
    od = OD(ObjectType=C.MQOT_TOPIC, ObjectName=c.channel.obj["TPROOT"].encode())
    od.set_vs("ObjectString", A.topic_of(address))
    return od


def _temporary_queue(c: AMQPConnection, entry: dict[str, Any]) -> None:
    """A dynamic node: a queue made from the channel's TMPMODEL (a temporary dynamic model: gone
    when the link's handle closes), named from TMPQPRFX; the link's address is its name."""
    obj = c.channel.obj
    od = OD(ObjectName=obj["TMPMODEL"].encode(), DynamicQName=obj["TMPQPRFX"].encode())
    opts = C.MQOO_INPUT_EXCLUSIVE if entry["sender"] else C.MQOO_OUTPUT
    entry["hobj"] = c.srv.qm.open(c.conn, od, opts).hobj
    entry["kind"], entry["address"] = A.QUEUE, od.ObjectName.decode().rstrip(" \0")


def _open_source(c: AMQPConnection, link: Link, entry: dict[str, Any], caps: list[str]) -> None:
    qm, conn = c.srv.qm, c.conn
    if entry["kind"] == A.QUEUE:
        browse = link.remote_source.distribution_mode == Terminus.DIST_MODE_COPY
        entry["browse"] = browse
        entry["hobj"] = qm.open(conn, OD(ObjectName=entry["address"].encode()),
                                C.MQOO_BROWSE if browse else C.MQOO_INPUT_SHARED).hobj
        return
    src = link.remote_source
    sub = A.subscription(entry["address"], c.container, link.name, "shared" in caps,
                         _EXPIRY.get(src.expiry_policy, "session-end"), src.timeout)
    entry["topic"] = sub.topic
    if sub.name is None:                        # lives as long as the link: a non-durable subscription
        h, qh = qm.subscribe(conn, _sd(c, sub.topic, C.MQSO_CREATE), 0)
        entry["sub"], entry["hobj"] = h.hobj, qh
        return
    # Durable, in MQ's name: made, or resumed (its expiry cancelled); the link holds its managed
    # queue, not the subscription, so that other links (a share) may resume it too.
    sd = _sd(c, sub.topic, C.MQSO_CREATE | C.MQSO_ALTER | C.MQSO_DURABLE
             | (C.MQSO_ANY_USERID if sub.shared else C.MQSO_FIXED_USERID))
    sd.set_vs("SubName", sub.name)
    sd.SubExpiry = C.MQEI_UNLIMITED
    h, qh = qm.subscribe(conn, sd, 0)
    qm.close(conn, h.hobj, C.MQCO_NONE)
    entry.update(hobj=qh, durable=sub.name, linger=sub.linger, shared=sub.shared)
    users = c.channel.service.sub_users
    users[sub.name] = users.get(sub.name, 0) + 1


def _sd(c: AMQPConnection, topic: str, opts: int) -> SD:
    sd = SD(Options=opts | C.MQSO_MANAGED | C.MQSO_WILDCARD_TOPIC | C.MQSO_FAIL_IF_QUIESCING,
            ObjectName=c.channel.obj["TPROOT"].encode())
    sd.set_vs("ObjectString", topic)
    return sd


def detach(c: AMQPConnection, link: Link, closed: bool) -> None:
    """DETACH (``closed``: the client is done with the node) or the connection's end: the link's
    handles closed; its subscription removed, or left as its lifetime says."""
    entry = c.handles.pop(link._impl, None)
    if entry is not None and c.conn is not None:
        c.forget_link(link._impl)
        with c.srv.lock:
            release(c, entry, closed)
    if closed:
        link.close()
    else:
        link.detach()


def fail(c: AMQPConnection, entry: dict[str, Any], reason: int) -> None:
    """A link whose MQ object failed (its queue deleted, gets inhibited): detached with MQ's
    reason as its condition; the connection and its other links go on."""
    link = entry["link"]
    c.handles.pop(link._impl, None)
    c.forget_link(link._impl)
    with c.srv.lock:
        release(c, entry, closed=False)
    link.condition = condition(reason, entry["address"])
    link.close()


def release(c: AMQPConnection, entry: dict[str, Any], closed: bool) -> None:
    """(Engine lock held.) A non-durable subscription first, then its managed queue; the last
    link of a durable one removes it (``closed``, or no lifetime of its own) or sets it to expire."""
    qm, conn = c.srv.qm, c.conn
    for key in ("sub", "hobj"):
        if key in entry:
            try:
                qm.close(conn, entry[key], C.MQCO_REMOVE_SUB if key == "sub" else C.MQCO_NONE)
            except MQIError:
                pass
    name = entry.get("durable")
    users = c.channel.service.sub_users
    if name is None or users.get(name, 0) > 1:
        if name is not None:
            users[name] -= 1
        return
    users.pop(name, None)
    linger = entry["linger"]
    sd = _sd(c, entry["topic"], C.MQSO_RESUME | C.MQSO_DURABLE | (C.MQSO_ALTER if linger and not closed else 0)
             | (C.MQSO_ANY_USERID if entry["shared"] else C.MQSO_FIXED_USERID))
    sd.set_vs("SubName", name)
    if linger and not closed:
        sd.SubExpiry = linger
    try:
        h, qh = qm.subscribe(conn, sd, 0)
        qm.close(conn, qh, C.MQCO_NONE)
        qm.close(conn, h.hobj, C.MQCO_REMOVE_SUB if closed or not linger else C.MQCO_NONE)
    except MQIError as e:
        if e.reason != C.MQRC_NO_SUBSCRIPTION:      # (removed meanwhile: DELETE SUB)
            raise
