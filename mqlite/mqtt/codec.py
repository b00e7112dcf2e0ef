"""MQTT 3.1 and 3.1.1 packets as bytes and back, sans-IO (h11's shape): ``Decoder.feed`` takes
whatever the socket gave and ``next()`` returns whole packets as small typed objects; ``encode``
turns a packet the server sends into bytes. A packet that breaks the specification is a
``ProtocolError``, on which the server closes the connection, as MQTT 3.1.1 section 4.8 says.

Written here rather than taken from a library: the packets are few and fixed, the libraries on
PyPI are clients (paho-mqtt) or whole asyncio brokers (amqtt) whose codecs are not separable, and
the decoder must bound what a client can make the server hold (``max_packet``)."""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

CONNECT, CONNACK, PUBLISH, PUBACK, PUBREC, PUBREL, PUBCOMP = 1, 2, 3, 4, 5, 6, 7
SUBSCRIBE, SUBACK, UNSUBSCRIBE, UNSUBACK, PINGREQ, PINGRESP, DISCONNECT = 8, 9, 10, 11, 12, 13, 14
# CONNACK return codes (3.1.1 table 3.1)
ACCEPTED, BAD_VERSION, ID_REJECTED, UNAVAILABLE, BAD_CREDENTIALS, NOT_AUTHORIZED = 0, 1, 2, 3, 4, 5
SUB_FAILURE = 0x80
MAX_REMAINING = 268_435_455
PROTOCOLS = {("MQIsdp", 3): "MQTTV3", ("MQTT", 4): "MQTTV311"}


class ProtocolError(ValueError):
    """The peer broke the protocol: the connection is closed without an answer."""


@dataclass
class Connect:
    client_id: str
    clean: bool
    keepalive: int
    protocol: str                       # MQTTV3 (3.1, "MQIsdp" level 3) or MQTTV311 ("MQTT" level 4)
    will: Publish | None = None
    username: str | None = None
    password: bytes | None = None


@dataclass
class Publish:
    topic: str
    payload: bytes
    qos: int = 0
    retain: bool = False
    dup: bool = False
    packet_id: int = 0


@dataclass
class Ack:
    """PUBACK, PUBREC, PUBREL, PUBCOMP and UNSUBACK: a type and a packet identifier."""
    kind: int
    packet_id: int


@dataclass
class Subscribe:
    packet_id: int
    filters: list[tuple[str, int]] = field(default_factory=list)


@dataclass
class Unsubscribe:
    packet_id: int
    filters: list[str] = field(default_factory=list)


@dataclass
class Simple:
    """PINGREQ, PINGRESP and DISCONNECT: a type alone."""
    kind: int


Packet = Connect | Publish | Ack | Subscribe | Unsubscribe | Simple


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def take(self, n: int) -> bytes:
        if self.at + n > len(self.data):
            raise ProtocolError("the packet is shorter than its fields")
        out = self.data[self.at:self.at + n]
        self.at += n
        return out

    def u8(self) -> int:
        return self.take(1)[0]

    def u16(self) -> int:
        return int(struct.unpack(">H", self.take(2))[0])

    def binary(self) -> bytes:
        return self.take(self.u16())

    def string(self) -> str:
        raw = self.binary()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError("a string is not UTF-8") from None
        if "\0" in text:
            raise ProtocolError("a string holds U+0000")
        return text

    def rest(self) -> bytes:
        out = self.data[self.at:]
        self.at = len(self.data)
        return out

    def done(self) -> bool:
        return self.at >= len(self.data)


def valid_filter(f: str) -> bool:
    """A topic filter as 3.1.1 section 4.7 allows: not empty; '#' only as the whole last level;
    '+' only as a whole level."""
    if not f:
        return False
    levels = f.split("/")
    for i, level in enumerate(levels):
        if "#" in level and (level != "#" or i != len(levels) - 1):
            return False
        if "+" in level and level != "+":
            return False
    return True


def _packet(kind: int, flags: int, body: bytes) -> Packet:
    r = _Reader(body)
    if kind == CONNECT:
        name, level = r.string(), r.u8()
        protocol = PROTOCOLS.get((name, level))
        if protocol is None:
            if name in ("MQTT", "MQIsdp"):
                return Connect("", True, 0, f"unsupported:{level}")
            raise ProtocolError(f"protocol name {name!r} is not MQTT")
        cflags, keepalive = r.u8(), r.u16()
        if cflags & 1:
            raise ProtocolError("the CONNECT flags' reserved bit is set")
        will_qos = (cflags >> 3) & 3
        if will_qos == 3 or (not cflags & 4 and (will_qos or cflags & 0x20)):
            raise ProtocolError("the will's flags are inconsistent")
        client_id = r.string()
        will = None
        if cflags & 4:
            topic = r.string()
            if not topic or "+" in topic or "#" in topic:
                raise ProtocolError("the will topic is not a topic name")
            will = Publish(topic, r.binary(), will_qos, bool(cflags & 0x20))
        username = r.string() if cflags & 0x80 else None
        if cflags & 0x40 and username is None and protocol == "MQTTV311":
            raise ProtocolError("a password without a user name")
        password = r.binary() if cflags & 0x40 else None
        return Connect(client_id, bool(cflags & 2), keepalive, protocol, will, username, password)
    if kind == PUBLISH:
        qos = (flags >> 1) & 3
        if qos == 3 or (qos == 0 and flags & 8):
            raise ProtocolError("the PUBLISH flags are not valid")
        topic = r.string()
        if not topic or "+" in topic or "#" in topic:
            raise ProtocolError("the PUBLISH topic is not a topic name")
        packet_id = r.u16() if qos else 0
        if qos and not packet_id:
            raise ProtocolError("packet identifier 0")
        return Publish(topic, r.rest(), qos, bool(flags & 1), bool(flags & 8), packet_id)
    if kind in (PUBACK, PUBREC, PUBREL, PUBCOMP, UNSUBACK):
        return Ack(kind, r.u16())
    if kind == SUBSCRIBE:
        sub = Subscribe(r.u16())
        while not r.done():
            f, qos = r.string(), r.u8()
            if qos & ~3 or qos == 3:
                raise ProtocolError("a requested QoS is not 0, 1 or 2")
            sub.filters.append((f, qos))
        if not sub.filters:
            raise ProtocolError("SUBSCRIBE with no topic filter")
        return sub
    if kind == UNSUBSCRIBE:
        unsub = Unsubscribe(r.u16())
        while not r.done():
            unsub.filters.append(r.string())
        if not unsub.filters:
            raise ProtocolError("UNSUBSCRIBE with no topic filter")
        return unsub
    if kind in (PINGREQ, PINGRESP, DISCONNECT):
        return Simple(kind)
    raise ProtocolError(f"packet type {kind} is not one a server receives")


_FLAGS = {PUBREL: 2, SUBSCRIBE: 2, UNSUBSCRIBE: 2}


class Decoder:
    """Bytes in, whole packets out. ``max_packet`` bounds one packet's remaining length."""

    def __init__(self, max_packet: int = MAX_REMAINING) -> None:
        self.buffer = bytearray()
        self.at = 0                     # where the next packet begins (what is before it is read)
        self.max_packet = max_packet

    def feed(self, data: bytes) -> None:
        if self.at:                     # (the packets read are dropped once a read, not each)
            del self.buffer[:self.at]
            self.at = 0
        self.buffer += data

    def next(self) -> Packet | None:
        """The next whole packet, or None until more bytes come."""
        buf, at = self.buffer, self.at
        end = len(buf)
        if end - at < 2:
            return None
        length, mult, i = 0, 1, at + 1
        while True:
            if i >= end:
                return None
            byte = buf[i]
            length += (byte & 0x7F) * mult
            i += 1
            if not byte & 0x80:
                break
            mult *= 128
            if i - at > 4:
                raise ProtocolError("the remaining length takes more than four bytes")
        if length > self.max_packet:
            raise ProtocolError(f"a packet of {length} bytes is over the limit of {self.max_packet}")
        if end < i + length:
            return None
        kind, flags = buf[at] >> 4, buf[at] & 0x0F
        if kind != PUBLISH and flags != _FLAGS.get(kind, 0):
            raise ProtocolError(f"packet type {kind} with flags {flags:#x}")
        body = bytes(buf[i:i + length])
        self.at = i + length
        return _packet(kind, flags, body)


def _remaining(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n % 128, n // 128
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _string(s: str) -> bytes:
    raw = s.encode("utf-8")
    return struct.pack(">H", len(raw)) + raw


def encode(p: Packet) -> bytes:
    """A packet as bytes (those a server sends, and CONNECT, SUBSCRIBE and UNSUBSCRIBE for tests)."""
    flags = 0
    if isinstance(p, Publish):
        kind, flags = PUBLISH, (8 if p.dup else 0) | (p.qos << 1) | (1 if p.retain else 0)
        body = _string(p.topic) + (struct.pack(">H", p.packet_id) if p.qos else b"") + p.payload
    elif isinstance(p, Ack):
        kind, flags, body = p.kind, _FLAGS.get(p.kind, 0), struct.pack(">H", p.packet_id)
    elif isinstance(p, Subscribe):
        kind, flags = SUBSCRIBE, 2
        body = struct.pack(">H", p.packet_id) + b"".join(_string(f) + bytes([q]) for f, q in p.filters)
    elif isinstance(p, Unsubscribe):
        kind, flags = UNSUBSCRIBE, 2
        body = struct.pack(">H", p.packet_id) + b"".join(_string(f) for f in p.filters)
    elif isinstance(p, Connect):
        kind = CONNECT
        name, level = ("MQIsdp", 3) if p.protocol == "MQTTV3" else ("MQTT", 4)
        cflags = (2 if p.clean else 0) | (0x80 if p.username is not None else 0) | \
            (0x40 if p.password is not None else 0)
        if p.will is not None:
            cflags |= 4 | (p.will.qos << 3) | (0x20 if p.will.retain else 0)
        body = _string(name) + bytes([level, cflags]) + struct.pack(">H", p.keepalive) + _string(p.client_id)
        if p.will is not None:
            body += _string(p.will.topic) + struct.pack(">H", len(p.will.payload)) + p.will.payload
        if p.username is not None:
            body += _string(p.username)
        if p.password is not None:
            body += struct.pack(">H", len(p.password)) + p.password
    else:
        kind, body = p.kind, b""
    return bytes([kind << 4 | flags]) + _remaining(len(body)) + body


def connack(session_present: bool, code: int) -> bytes:
    return bytes([CONNACK << 4, 2, 1 if session_present and code == ACCEPTED else 0, code])


def suback(packet_id: int, codes: list[int]) -> bytes:
    body = struct.pack(">H", packet_id) + bytes(codes)
    return bytes([SUBACK << 4]) + _remaining(len(body)) + body
