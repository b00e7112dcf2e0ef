"""How AMQP 1.0 links and messages map onto MQ, as IBM MQ's AMQP channels document it, as pure
functions over Qpid Proton's ``Message``:

- An ATTACH's capabilities name the object: ``topic`` (the default when none is known),
  ``temporary-queue``, ``queue``; with several, topic wins, then temporary-queue, then queue.
- A link's address is a topic string under the channel's TPROOT (``private:<topic>`` a private
  subscription, the same as a plain one here), or a queue name with the queue capability;
  ``distribution-mode`` ``copy`` browses a queue, anything else gets (``move``).
- A message: ``durable`` is persistence, ``priority`` Priority, ``ttl`` (milliseconds) Expiry
  (tenths), application-properties the MQ message properties (an MQRFH2 ``usr`` folder), a
  string body MQSTR and any other body bytes (MQFMT_NONE), CCSID 1208, PutApplType MQAT_AMQP;
  ``correlation_id`` (up to 24 bytes) CorrelId. Back: the same, the topic of a publication as
  ``subject`` and ``address``."""
from __future__ import annotations

from typing import Any

from proton import Message

from mqlite.cmq import CMQC as C
from mqlite.cmq.structs import MD
from mqlite.props import rfh2
from mqlite.props.values import Properties

TOPIC, QUEUE = "topic", "queue"
_TYPES = (bool, int, float, str, bytes)


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


def to_mq(msg: Message) -> tuple[MD, bytes]:
    """An AMQP message as the descriptor and data an MQPUT takes."""
    body = msg.body
    if isinstance(body, str):
        fmt, data = C.MQFMT_STRING, body.encode("utf-8")
    elif isinstance(body, (bytes, bytearray, memoryview)):
        fmt, data = C.MQFMT_NONE, bytes(body)
    elif body is None:
        fmt, data = C.MQFMT_NONE, b""
    else:
        fmt, data = C.MQFMT_STRING, str(body).encode("utf-8")
    md = MD(Format=fmt, CodedCharSetId=1208, PutApplType=C.MQAT_AMQP,
            Persistence=C.MQPER_PERSISTENT if msg.durable else C.MQPER_NOT_PERSISTENT,
            Priority=min(max(int(4 if msg.priority is None else msg.priority), 0), 9))
    if msg.ttl:
        md.Expiry = max(1, int(msg.ttl * 10))         # (Proton's ttl is in seconds)
    cid = msg.correlation_id
    if isinstance(cid, str):
        cid = cid.encode("utf-8")
    if isinstance(cid, (bytes, bytearray)) and 0 < len(cid) <= 24:
        md.CorrelId = bytes(cid).ljust(24, b"\0")
    props = Properties()
    items: dict[Any, Any] = dict(msg.properties or {})
    for k, v in items.items():
        props.set(str(k), v if type(v) in _TYPES else str(v))      # (PropertyError: a name MQ refuses)
    if props:
        fmt2, enc, ccsid, data = rfh2.join(props, md.Format, md.Encoding, md.CodedCharSetId, data)
        md.Format, md.Encoding, md.CodedCharSetId = fmt2, enc, ccsid
    return md, data


def from_mq(md: MD, body: bytes) -> Message:
    """A message got from MQ (properties as an MQRFH2) as an AMQP message."""
    props = rfh2.properties_of(md.Format, md.Encoding, body)
    part = rfh2.split(md.Format, md.Encoding, md.CodedCharSetId, body)
    data = part.data
    text_body = part.format == C.MQFMT_STRING
    msg = Message(body=data.decode("utf-8", "replace") if text_body else data,
                  durable=md.Persistence == C.MQPER_PERSISTENT, priority=md.Priority)
    if md.Expiry > 0:
        msg.ttl = md.Expiry / 10
    if md.CorrelId.strip(b"\0"):
        msg.correlation_id = bytes(md.CorrelId)
    user: dict[str, Any] = {}
    for name, (_t, value) in props.items():
        if name == "mqps.Top":
            msg.subject = msg.address = str(value)
        elif "." not in name:                   # the usr folder's (other folders are MQ's own)
            user[name] = value
    if user:
        setattr(msg, "properties", user)            # (Proton's stub types the attribute None)
    return msg
