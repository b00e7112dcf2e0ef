"""How AMQP 1.0 links and messages map onto MQ, as IBM MQ's AMQP channels document it, as pure
functions over Qpid Proton's ``Message``:

- An ATTACH's capabilities name the object: ``topic`` (the default when none is known),
  ``temporary-queue``, ``queue``; with several, topic wins, then temporary-queue, then queue.
- A link's address is a topic string under the channel's TPROOT (``private:<topic>`` a private
  subscription, the same as a plain one; ``share:<name>:<topic>`` a shared one), or a queue name
  with the queue capability; ``distribution-mode`` ``copy`` browses a queue, anything else gets
  (``move``).
- A receiving link's subscription: MQ's name for it (``:private:<container>:<topic>``,
  ``:share:<name>:<topic>``) when it is shared or outlives its link, and for how long it does.
- A message: ``durable`` is persistence, ``priority`` Priority, ``ttl`` (milliseconds) Expiry
  (tenths), application-properties the MQ message properties (an MQRFH2 ``usr`` folder), a
  string body MQSTR and any other body bytes (MQFMT_NONE), CCSID 1208, PutApplType MQAT_AMQP;
  ``correlation_id`` (up to 24 bytes) CorrelId, ``reply_to`` ReplyToQ; a uuid or ulong
  message-id or correlation-id is rejected, as MQ rejects it. Back: the same, the topic of a
  publication as ``subject`` and ``address``, the BackoutCount as ``delivery-count``.
- A delivery's outcome (``disposition``): each delivery is settled on its own, whatever happens to
  the others got with it (rules numbered there)."""
from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import Any, NamedTuple

from cproton import pn_message_get_content_type
from cproton_ffi import ffi
from cproton_ffi import lib as pn
from proton import Data, Message, symbol

from mqlite.cmq import CMQC as C
from mqlite.cmq.structs import MD
from mqlite.props import rfh2
from mqlite.props.values import Properties

TOPIC, QUEUE = "topic", "queue"


def kind_of(capabilities: list[str]) -> str:
    """The object an ATTACH's capabilities name: topic unless queue (or temporary-queue) is
    there without topic."""
    caps = {str(c) for c in capabilities}
    if "topic" in caps:
        return TOPIC
    return QUEUE if caps & {"queue", "temporary-queue"} else TOPIC


def topic_of(address: str) -> str:
    """The topic string an address names (``private:`` is a private subscription's)."""
    return address[len("private:"):] if address.startswith("private:") else address


class Sub(NamedTuple):
    topic: str
    name: str | None            # MQ's subscription name; None: a non-durable one, the link's own
    shared: bool
    linger: int                 # once its last link has gone: kept this long (SubExpiry), 0: removed


def subscription(address: str, container: str, link_name: str, shared: bool, expiry_policy: str,
                 timeout: int) -> Sub:
    """A receiving link's subscription, as MQ's AMQP channels make it. ``share:<name>:<topic>``,
    or the ``shared`` capability (Qpid JMS's shared subscriptions: the share is the link's name up
    to a ``|``), is shared by every link that names it, whatever its client. It outlives its links
    forever with the source's expiry-policy ``never``, or for its ``timeout`` (seconds) with any
    other; without either it ends with its (last) link. Shared or outliving, it is a durable MQ
    subscription named ``:share:<name>:<topic>`` or ``:private:<container id>:<topic>``."""
    share = None
    if address.startswith("share:") and address.count(":") >= 2:
        share, topic = address[len("share:"):].split(":", 1)
    else:
        topic = topic_of(address)
        if shared:
            share = link_name.split("|", 1)[0]
    linger = C.MQEI_UNLIMITED if expiry_policy == "never" else max(0, int(timeout)) * 10
    if share is not None:
        return Sub(topic, f":share:{share}:{topic}", True, linger)
    return Sub(topic, f":private:{container}:{topic}" if linger else None, False, linger)


class Unmappable(ValueError):
    """A message MQ's AMQP channels reject: a message-id or correlation-id that is a uuid or a
    ulong (MQ's mapping of incoming messages)."""


# The mq_amqp folder keeps what an AMQP message carries that no MQMD field holds, for AMQP
# receivers (MQ's own folder name; PROPCTL(COMPAT) does not give it to MQI applications).
BODY = "mq_amqp.Bdy"                    # how the data encodes a body that is neither text nor bytes
PRP = {"id": "mq_amqp.Prp.Mid", "user_id": "mq_amqp.Prp.Uid", "subject": "mq_amqp.Prp.Sbj",
       "content_type": "mq_amqp.Prp.Cty", "correlation_id": "mq_amqp.Prp.Cid", "creation_time": "mq_amqp.Prp.Ctm"}
VALUE, SEQUENCE = "amqp-value", "amqp-sequence"


def body_section(msg: Message) -> tuple[bytes, bytes, str]:
    """The MQ data for an AMQP body: (Format, data, how it is encoded). A string amqp-value is
    MQSTR in UTF-8, a data section (or a binary amqp-value) the bytes themselves, no body no
    data; any other amqp-value (a map, a list, a number, a boolean, a timestamp ...) or an
    amqp-sequence is kept whole, AMQP-encoded, so that it reaches an AMQP receiver as it was sent
    (an MQI application sees the encoded bytes, MQFMT_NONE)."""
    body = msg.body
    if isinstance(body, str):
        return C.MQFMT_STRING, body.encode("utf-8"), ""
    if isinstance(body, (bytes, bytearray, memoryview)):
        return C.MQFMT_NONE, bytes(body), ""
    if body is None:
        return C.MQFMT_NONE, b"", ""
    d = Data()
    d.put_object(body)
    return C.MQFMT_NONE, d.encode(), SEQUENCE if msg.inferred and isinstance(body, list) else VALUE


def _decoded(data: bytes, how: str) -> tuple[Any, bool]:
    """A body ``body_section`` encoded: its value and whether it was an amqp-sequence."""
    d = Data()
    d.decode(data)
    d.next()
    return d.get_object(), how == SEQUENCE


def to_mq(msg: Message) -> tuple[MD, bytes]:
    """An AMQP message as the descriptor and data an MQPUT takes (Unmappable: rejected)."""
    mid, cid = msg.id, msg.correlation_id
    for ident in (mid, cid):
        if isinstance(ident, (uuid.UUID, int)):        # (Proton gives a ulong back as an int)
            raise Unmappable(f"a {type(ident).__name__} message-id or correlation-id")
    fmt, data, how = body_section(msg)
    md = _descriptor(fmt, bool(msg.durable), 4 if msg.priority is None else msg.priority, msg.ttl or 0.0,
                     msg.reply_to)
    correl = cid.encode("utf-8") if isinstance(cid, str) else cid
    if isinstance(correl, (bytes, bytearray)) and 0 < len(correl) <= 24:
        md.CorrelId = bytes(correl).ljust(24, b"\0")
    props = Properties()
    items: dict[Any, Any] = dict(msg.properties or {})
    for k, v in items.items():
        props.set(str(k), _value(v))                # (PropertyError: a name MQ refuses)
    if how:
        props.set(BODY, how, validate=False)
    # (Proton gives an unset content-type as the symbol 'None': asked of the C message instead)
    section = {"id": mid, "user_id": msg.user_id, "subject": msg.subject,
               "content_type": pn_message_get_content_type(msg._msg), "correlation_id": cid,
               "creation_time": msg.creation_time}
    for field, name in PRP.items():
        value = section[field]
        if isinstance(value, memoryview):           # (Proton's binary message-id)
            value = bytes(value)
        if value is not None and value != b"" and value != "" and value != 0:
            props.set(name, value if isinstance(value, (bytes, str)) else
                      int(value * 1000) if field == "creation_time" else str(value), validate=False)
    if props:
        fmt2, enc, ccsid, data = rfh2.join(props, md.Format, md.Encoding, md.CodedCharSetId, data)
        md.Format, md.Encoding, md.CodedCharSetId = fmt2, enc, ccsid
    return md, data


def plain_to_mq(m: Any, data: bytearray) -> tuple[MD, bytes] | None:
    """``to_mq`` of the encoded message ``data``, decoded into the Proton message ``m`` (a
    ``pn_message_t`` the caller keeps) and read through Proton's C API, for a message with nothing
    that becomes a property: no message-id, correlation-id, user-id, subject, content-type,
    creation-time or application-properties, and a body of bytes, text or nothing. None for any
    other message (``to_mq`` maps it) or one that does not decode (``to_mq``'s decoding says why).
    Proton's Python ``Message`` made and read for each transfer cost more than the MQPUT's
    mapping itself."""
    pn.pn_message_clear(m)
    if pn.pn_message_decode(m, ffi.from_buffer(data), len(data)) < 0:
        return None
    if (pn.pn_message_get_id(m).type != pn.PN_NULL or pn.pn_message_get_correlation_id(m).type != pn.PN_NULL
            or pn.pn_message_get_user_id(m).size or pn.pn_message_get_subject(m) != ffi.NULL
            or pn.pn_message_get_content_type(m) != ffi.NULL or pn.pn_message_get_creation_time(m)):
        return None
    props = pn.pn_message_properties(m)
    pn.pn_data_rewind(props)
    if pn.pn_data_next(props):
        return None
    body = pn.pn_message_body(m)
    pn.pn_data_rewind(body)
    fmt, out = C.MQFMT_NONE, b""
    if pn.pn_data_next(body):
        kind = pn.pn_data_type(body)
        if kind == pn.PN_BINARY:
            got = pn.pn_data_get_binary(body)
            out = ffi.buffer(got.start, got.size)[:]
        elif kind == pn.PN_STRING:
            got = pn.pn_data_get_string(body)
            out = ffi.buffer(got.start, got.size)[:]
            try:
                out.decode("utf-8")
            except UnicodeDecodeError:
                return None                         # (to_mq's decoding refuses it)
            fmt = C.MQFMT_STRING
        else:
            return None
        if pn.pn_data_next(body):
            return None
    reply_to = pn.pn_message_get_reply_to(m)
    return _descriptor(fmt, bool(pn.pn_message_is_durable(m)), pn.pn_message_get_priority(m),
                       float(pn.pn_message_get_ttl(m)) / 1000.0,           # (as Proton's ``ttl``: seconds)
                       None if reply_to == ffi.NULL else ffi.string(reply_to).decode("utf-8")), out


def _descriptor(fmt: bytes, durable: bool, priority: int, ttl: float, reply_to: str | None) -> MD:
    """The MQMD of an AMQP message (``to_mq``, ``plain_to_mq``): its durability as Persistence,
    its priority (0-9) as Priority, its ttl (seconds) as Expiry (tenths), its reply-to as
    ReplyToQ when a queue name can hold it."""
    md = MD(Format=fmt, CodedCharSetId=1208, PutApplType=C.MQAT_AMQP,
            Persistence=C.MQPER_PERSISTENT if durable else C.MQPER_NOT_PERSISTENT,
            Priority=min(max(int(priority), 0), 9))
    if ttl:
        md.Expiry = max(1, int(ttl * 10))
    if reply_to and len(reply_to) <= 48:
        md.ReplyToQ = reply_to.encode("utf-8")
    return md


def put_epoch(date: bytes, time_: bytes) -> float | None:
    """An MQMD's PutDate (YYYYMMDD) and PutTime (HHMMSSTH, GMT) as seconds since the epoch."""
    try:
        d, t = date.decode("ascii"), time_.decode("ascii")
        stamp = datetime(int(d[:4]), int(d[4:6]), int(d[6:8]), int(t[:2]), int(t[2:4]), int(t[4:6]),
                         int(t[6:8]) * 10000, tzinfo=timezone.utc)
    except (ValueError, UnicodeDecodeError):
        return None
    return stamp.timestamp()


def _value(v: Any) -> bool | int | float | str | bytes:
    """An application property's value as an MQ property's: AMQP's sized numbers (Proton's uint,
    ulong, byte, ...) as integers, float32 as a float, symbols and chars as strings; anything else
    (a timestamp, a uuid, a list) as its text."""
    if isinstance(v, bool):
        return bool(v)
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return float(v)
    return bytes(v) if isinstance(v, bytes) else str(v)


def from_mq(md: MD, body: bytes) -> Message:
    """A message got from MQ (properties as an MQRFH2) as an AMQP message. An AMQP message's own
    message-id, user-id, subject, content-type, correlation-id and creation-time come back as it
    sent them (its mq_amqp folder); any other message's are made from its MQMD, as MQ's table for
    outgoing messages says: MsgId, UserIdentifier and CorrelId as binary, PutDate and PutTime as
    the creation-time."""
    props = rfh2.properties_of(md.Format, md.Encoding, body)
    part = rfh2.split(md.Format, md.Encoding, md.CodedCharSetId, body)
    data = part.data
    how = props.get(BODY, (0, ""))[1]
    if how in (VALUE, SEQUENCE):
        value, sequence = _decoded(data, how)
        msg = Message(body=value, durable=md.Persistence == C.MQPER_PERSISTENT, priority=md.Priority)
        msg.inferred = sequence
    else:
        text_body = part.format == C.MQFMT_STRING
        msg = Message(body=data.decode("utf-8", "replace") if text_body else data,
                      durable=md.Persistence == C.MQPER_PERSISTENT, priority=md.Priority)
    if md.Expiry > 0:
        msg.ttl = md.Expiry / 10
    msg.delivery_count = md.BackoutCount
    if md.CorrelId.strip(b"\0"):
        msg.correlation_id = bytes(md.CorrelId)
    if any(name in props for name in PRP.values()):
        for field, name in PRP.items():
            if name in props:
                value = props[name][1]
                setattr(msg, field, value / 1000 if field == "creation_time" else
                        symbol(value) if field == "content_type" else value)
    elif md.PutApplType != C.MQAT_AMQP:
        msg.id = bytes(md.MsgId)
        who = md.UserIdentifier.rstrip(b" \0")
        if who:
            msg.user_id = bytes(who)
        put = put_epoch(md.PutDate, md.PutTime)
        if put is not None:
            msg.creation_time = put
    reply_to = md.ReplyToQ.rstrip(b" \0")
    if reply_to:
        msg.reply_to = reply_to.decode("utf-8", "replace")
    user: dict[str, Any] = {}
    for name, (_t, value) in props.items():
        if name == "mqps.Top":
            msg.subject = msg.address = str(value)
        elif "." not in name:                   # the usr folder's (other folders are MQ's own)
            user[name] = value
    if user:
        setattr(msg, "properties", user)            # (Proton's stub types the attribute None)
    return msg


CONSUME, REQUEUE, RETRY, POISON = "consume", "requeue", "retry", "poison"


def disposition(outcome: str, delivery_failed: bool, backout_count: int, bothresh: int) -> str:
    """What becomes of a message sent on a receiving link, by the client's outcome for it:

    1. ``accepted``: consumed (its get is committed with the others' outcomes).
    2. ``released``: back on its queue as it was (BackoutCount unchanged): AMQP's "not processed".
    3. ``modified``: back on its queue; with ``delivery-failed`` its BackoutCount is raised first
       (``undeliverable-here`` cannot bar one link from a queue: it is as plain modified).
    4. ``rejected``: the message is bad and is not delivered again: *poison*, moved to the queue's
       BOQNAME, else the dead-letter queue (MQ's poison-message handling, as MQ's JMS classes do
       it); only when neither takes it is it back on its queue, BackoutCount raised.
    5. A delivery never settled when its link or connection goes: back, BackoutCount raised (what
       MQBACK of its get would do).
    6. Back with its BackoutCount raised to the queue's BOTHRESH (when not 0): poison too.
    """
    if outcome == "accepted":
        return CONSUME
    if outcome == "rejected":
        return POISON
    if outcome == "released" or (outcome == "modified" and not delivery_failed):
        return REQUEUE
    return POISON if 0 < bothresh <= backout_count + 1 else RETRY
