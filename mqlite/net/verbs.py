"""One codec per MQI verb on the wire, used by both ends: pymqi builds a request and reads the
reply with the same class the server uses to read that request and build its reply.

Each verb is a class of static methods: ``request``/``parse_request`` and ``reply``/``parse_reply``.
A parse of a request that does not fit the layout raises ``ProtocolError`` (the server closes the
connection); every reply begins with the completion and reason codes (``status``), and a failed
call's reply is only those (``failed``). MQ structures travel in their binary layouts
(``cmq.structs``); integers are little-endian. docs/protocol.md draws each layout.
"""
from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from typing import Any

from mqlite.cmq.packedmd import PackedMD
from mqlite.cmq.structs import GMO, MD, OD, PMO
from mqlite.net.protocol import (
    GMO_LEN,
    I1,
    II,
    III,
    MD_LEN,
    OD_LEN,
    PMO_LEN,
    STREAM_REQ,
    ProtocolError,
    decode_json,
    decode_values,
    encode_json,
    encode_values,
)

OK = II.pack(0, 0)
Q = struct.Struct("<q")
QQQ = struct.Struct("<qqq")
BATCH_REQ = struct.Struct("<iiiii")        # hobj, consumed, max_msgs, max_bytes, flags
BROWSE_REQ = struct.Struct("<iiii")        # hobj, first, max_msgs, max_bytes
_NO_PROPS = struct.pack("<i", -1)


def status(comp: int, reason: int) -> bytes:
    """A reply with nothing but the completion and reason codes (a failed call's whole reply)."""
    return II.pack(comp, reason)


# --- messages in a list (read-ahead batches, bulk browse, position reads) ---------------------------
def messages(items: Iterable[tuple[bytes, bytes, bool]], count: int) -> bytes:
    """count, then per message: packed MQMD, data length, read-ahead flag, data."""
    parts = [III.pack(0, 0, count)]
    for md, body, ahead in items:
        parts.append(md)
        parts.append(II.pack(len(body), 1 if ahead else 0))
        parts.append(body)
    return b"".join(parts)


def parse_messages(reply: bytes) -> list[tuple[bytes, bytes, bool]]:
    count = III.unpack_from(reply)[2]
    out = []
    unpack = II.unpack_from
    off = 12
    for _ in range(count):
        end = off + MD_LEN
        n, ahead = unpack(reply, end)
        start = end + 8
        out.append((reply[off:end], reply[start:start + n], ahead == 1))
        off = start + n
    return out


def _strings(values: Sequence[bytes]) -> bytes:
    """MQCHARV strings beside a structure: each a length and its bytes."""
    return b"".join(I1.pack(len(v)) + v for v in values)


def _parse_strings(p: bytes, off: int, count: int, verb: str) -> list[bytes]:
    out = []
    for _ in range(count):
        if len(p) < off + 4:
            raise ProtocolError(f"{verb} payload length")
        (n,) = I1.unpack_from(p, off)
        if n < 0 or len(p) < off + 4 + n:
            raise ProtocolError(f"{verb} payload length")
        out.append(p[off + 4:off + 4 + n])
        off += 4 + n
    if off != len(p):
        raise ProtocolError(f"{verb} payload length")
    return out


class Open:
    """MQOPEN: options, MQOD, and the MQOD's SelectionString and ObjectString (each a length and
    UTF-8); the reply gives the handle, the queue's defaults (OPEN_* flags) and the MQOD back with
    the resolved names."""
    @staticmethod
    def request(options: int, od: OD) -> bytes:
        return I1.pack(options) + od.pack() + _strings((od.get_vs("SelectionString"), od.get_vs("ObjectString")))

    @staticmethod
    def parse_request(p: bytes) -> tuple[int, OD]:
        if len(p) < 4 + OD_LEN:
            raise ProtocolError("OPEN payload length")
        od = OD.from_bytes(p[4:4 + OD_LEN])
        for name, value in zip(("SelectionString", "ObjectString"), _parse_strings(p, 4 + OD_LEN, 2, "OPEN")):
            if value:
                od.set_vs(name, value)
        return I1.unpack_from(p)[0], od

    @staticmethod
    def reply(hobj: int, flags: int, od: OD) -> bytes:
        return III.pack(0, 0, hobj) + I1.pack(flags) + od.pack()

    @staticmethod
    def parse_reply(reply: bytes, od: OD) -> tuple[int, int]:
        """(hobj, flags); the MQOD is updated in place."""
        hobj, flags = II.unpack_from(reply, 8)
        od.unpack(reply[16:16 + OD_LEN])
        return hobj, flags


class Sub:
    """MQSUB: the destination queue's handle (0: managed), MQSD, and its strings (ObjectString,
    SubName, SubUserData, SelectionString); the reply gives the subscription's handle, the
    destination queue's handle and its OPEN_* flags (read-ahead), and the MQSD back with its
    strings but SubName (what MQSO_RESUME returns: SubCorrelId, PubPriority, SubExpiry, and the
    resumed subscription's ObjectString, SubUserData and SelectionString)."""
    STRINGS = ("ObjectString", "SubName", "SubUserData", "SelectionString")
    RETURNED = ("ObjectString", "SubUserData", "SelectionString")

    @staticmethod
    def request(hobj: int, sd: Any) -> bytes:
        return I1.pack(hobj) + sd.pack() + _strings([sd.get_vs(n) for n in Sub.STRINGS])

    @staticmethod
    def parse_request(p: bytes) -> tuple[int, Any]:
        from mqlite.cmq.subs import SD
        size = SD().get_length()
        if len(p) < 4 + size:
            raise ProtocolError("SUB payload length")
        sd = SD.from_bytes(p[4:4 + size])
        for name, value in zip(Sub.STRINGS, _parse_strings(p, 4 + size, len(Sub.STRINGS), "SUB")):
            sd.set_vs(name, value)
        return I1.unpack_from(p)[0], sd

    @staticmethod
    def reply(hsub: int, hobj: int, flags: int, sd: Any) -> bytes:
        return III.pack(0, 0, hsub) + II.pack(hobj, flags) + sd.pack() + _strings([sd.get_vs(n) for n in Sub.RETURNED])

    @staticmethod
    def parse_reply(reply: bytes, sd: Any) -> tuple[int, int, int]:
        """(hsub, hobj, the queue handle's OPEN_* flags); the MQSD is updated in place."""
        hsub, hobj, flags = III.unpack_from(reply, 8)
        size = sd.get_length()
        vs = dict(sd.__dict__.get("_vs", {}))
        sd.unpack(reply[20:20 + size])
        objstr, user_data, selector = _parse_strings(reply, 20 + size, len(Sub.RETURNED), "SUB reply")
        for name, value in vs.items():
            sd.set_vs(name, value)
        if objstr:
            sd.set_vs("ObjectString", objstr)
        sd.set_vs("SubUserData", user_data)
        sd.set_vs("SelectionString", selector)
        return hsub, hobj, flags


class SubRq:
    """MQSUBRQ: the subscription's handle and the action; the reply gives how many publications
    were sent (MQSRO NumPubs)."""
    @staticmethod
    def request(hsub: int, action: int) -> bytes:
        return II.pack(hsub, action)

    @staticmethod
    def parse_request(p: bytes) -> tuple[int, int]:
        if len(p) != 8:
            raise ProtocolError("SUBRQ payload length")
        return II.unpack(p)      # type: ignore[return-value]

    @staticmethod
    def reply(count: int) -> bytes:
        return III.pack(0, 0, count)

    @staticmethod
    def parse_reply(reply: bytes) -> int:
        return int(III.unpack_from(reply)[2])


class Close:
    """MQCLOSE: handle, options, and the read-ahead messages the client consumed (the rest go back)."""
    @staticmethod
    def request(hobj: int, options: int, consumed: int) -> bytes:
        return III.pack(hobj, options, consumed)

    @staticmethod
    def parse_request(p: bytes) -> tuple[int, int, int]:
        if len(p) != 12:
            raise ProtocolError("CLOSE payload length")
        return III.unpack(p)      # type: ignore[return-value]


class Put:
    """MQPUT: handle, MQPMO, MQMD, data; the reply gives MQMD and MQPMO back (MsgId, resolved
    names). PUT_ASYNC carries the same request and gets no reply."""
    @staticmethod
    def request(hobj: int, pmo: PMO | bytes, md: MD, body: bytes) -> bytes:
        """``pmo`` may come packed (a client's default put options, packed once)."""
        return b"".join((I1.pack(hobj), pmo if isinstance(pmo, bytes) else pmo.pack(), md.pack(), body))

    @staticmethod
    def split_request(p: bytes) -> tuple[int, bytes, bytes, bytes]:
        """The request's handle, its MQPMO and MQMD still packed, and its data."""
        if len(p) < 4 + PMO_LEN + MD_LEN:
            raise ProtocolError("PUT payload length")
        return I1.unpack_from(p)[0], p[4:4 + PMO_LEN], p[4 + PMO_LEN:4 + PMO_LEN + MD_LEN], p[4 + PMO_LEN + MD_LEN:]

    @staticmethod
    def reply_packed(comp: int, reason: int, md_pmo: bytes) -> bytes:
        """The reply of a put whose MQMD and MQPMO are packed already (``md_pmo``, in that order)."""
        return II.pack(comp, reason) + md_pmo

    @staticmethod
    def parse_reply(reply: bytes, md: MD, pmo: PMO | None) -> tuple[int, int]:
        """The MQMD's output fields into ``md`` (held packed: ``MD.hold``), the MQPMO's into ``pmo``
        (None: nobody will read them)."""
        md.hold(reply[8:8 + MD_LEN])
        if pmo is not None:
            pmo.unpack(reply, 8 + MD_LEN)
        return II.unpack_from(reply)      # type: ignore[return-value]


class Put1:
    """MQPUT1: MQOD, MQPMO, MQMD, the MQOD's ObjectString (a length and UTF-8: a topic named by
    its string), data; the reply gives all three structures back."""
    BASE = OD_LEN + PMO_LEN + MD_LEN

    @staticmethod
    def request(od: OD, pmo: PMO, md: MD, body: bytes) -> bytes:
        return od.pack() + pmo.pack() + md.pack() + _strings((od.get_vs("ObjectString"),)) + body

    @staticmethod
    def parse_request(p: bytes) -> tuple[OD, PMO, MD, bytes]:
        if len(p) < Put1.BASE + 4:
            raise ProtocolError("PUT1 payload length")
        od = OD.from_bytes(p[:OD_LEN])
        (n,) = I1.unpack_from(p, Put1.BASE)
        if n < 0 or len(p) < Put1.BASE + 4 + n:
            raise ProtocolError("PUT1 payload length")
        if n:
            od.set_vs("ObjectString", p[Put1.BASE + 4:Put1.BASE + 4 + n])
        return (od, PMO.from_bytes(p[OD_LEN:OD_LEN + PMO_LEN]),
                MD.from_bytes(p[OD_LEN + PMO_LEN:Put1.BASE]), p[Put1.BASE + 4 + n:])

    @staticmethod
    def reply(comp: int, reason: int, od: OD, md: MD, pmo: PMO) -> bytes:
        return II.pack(comp, reason) + od.pack() + md.pack() + pmo.pack()

    @staticmethod
    def parse_reply(reply: bytes, od: OD, md: MD, pmo: PMO) -> tuple[int, int]:
        off = 8
        od.unpack(reply, off)
        off += OD_LEN
        md.unpack(reply, off)
        pmo.unpack(reply, off + MD_LEN)
        return II.unpack_from(reply)      # type: ignore[return-value]


class Get:
    """MQGET: handle, buffer length, MQGMO, MQMD; the reply: codes, the message's whole length,
    MQGMO, MQMD, the length of the properties for the MQGET's message handle (an MQRFH2 of
    property folders; -1 when the get gave no handle), those properties, and the data (truncated
    to the buffer)."""
    @staticmethod
    def request(hobj: int, maxlen: int, gmo: GMO, md: MD) -> bytes:
        return II.pack(hobj, maxlen) + gmo.pack() + md.pack()

    @staticmethod
    def parse_request(p: bytes) -> tuple[int, int, GMO, MD]:
        if len(p) != 8 + GMO_LEN + MD_LEN:
            raise ProtocolError("GET payload length")
        hobj, maxlen = II.unpack_from(p)
        # The MQMD of a request is read for the identifiers it matches on, if at all (``peek``):
        # decoding all of it was 6 µs, a fifth of the server's work for a round-trip MQGET.
        return hobj, maxlen, GMO.from_bytes(p[8:8 + GMO_LEN]), PackedMD.of(p[8 + GMO_LEN:])

    @staticmethod
    def reply(comp: int, reason: int, data_length: int, gmo: GMO, md: MD, body: bytes,
              props: bytes | None = None) -> bytes:
        head = III.pack(comp, reason, data_length) + gmo.pack() + md.pack()
        if props is None:
            return head + _NO_PROPS + body
        return head + I1.pack(len(props)) + props + body

    @staticmethod
    def parse_reply(reply: bytes, gmo: GMO, md: MD) -> tuple[int, int, int, bytes, bytes | None]:
        """(comp, reason, data length, data, properties); MQGMO and MQMD are updated in place."""
        comp, reason, data_length = III.unpack_from(reply)
        gmo.unpack(reply, 12)
        off = 12 + GMO_LEN + MD_LEN
        md.hold(reply[12 + GMO_LEN:off])
        (n,) = I1.unpack_from(reply, off)
        if n < 0:
            return comp, reason, data_length, reply[off + 4:], None
        return comp, reason, data_length, reply[off + 4 + n:], reply[off + 4:off + 4 + n]


class GetBatch:
    """Read-ahead: acknowledge the messages consumed, then take up to max_msgs in one reply (a list
    of ``messages``); max_msgs 0 gives the messages the client holds back to the queue."""
    @staticmethod
    def request(hobj: int, consumed: int, max_msgs: int, max_bytes: int, flags: int, gmo: GMO) -> bytes:
        return BATCH_REQ.pack(hobj, consumed, max_msgs, max_bytes, flags) + gmo.pack()

    @staticmethod
    def parse_request(p: bytes) -> tuple[int, int, int, int, int, GMO]:
        if len(p) != BATCH_REQ.size + GMO_LEN:
            raise ProtocolError("GET_BATCH payload length")
        return (*BATCH_REQ.unpack_from(p), GMO.from_bytes(p[BATCH_REQ.size:]))   # type: ignore[return-value]

    reply = staticmethod(messages)
    parse_reply = staticmethod(parse_messages)


class Consume:
    """Asynchronous consume: a wait (milliseconds, -1 unlimited, 0 none) and entries, each a kind
    (CONSUME_BATCH: a GET_BATCH request; CONSUME_GET: a GET request, its MQGMO without a wait) and
    its request; the reply has one entry per request entry: empty when it found nothing, else the
    reply that verb gives (a failed one: only the codes)."""
    @staticmethod
    def request(wait_ms: int, entries: Sequence[tuple[int, bytes]]) -> bytes:
        parts = [II.pack(wait_ms, len(entries))]
        for kind, payload in entries:
            parts.append(II.pack(kind, len(payload)))
            parts.append(payload)
        return b"".join(parts)

    @staticmethod
    def parse_request(p: bytes) -> tuple[int, list[tuple[int, bytes]]]:
        if len(p) < 8:
            raise ProtocolError("CONSUME payload length")
        wait_ms, n = II.unpack_from(p)
        return wait_ms, _parse_entries(p, 8, n, "CONSUME")

    @staticmethod
    def reply(answers: Sequence[bytes]) -> bytes:
        parts = [III.pack(0, 0, len(answers))]
        for a in answers:
            parts.append(I1.pack(len(a)))
            parts.append(a)
        return b"".join(parts)

    @staticmethod
    def parse_reply(reply: bytes) -> list[bytes]:
        n = III.unpack_from(reply)[2]
        out = []
        off = 12
        for _ in range(n):
            (size,) = I1.unpack_from(reply, off)
            out.append(reply[off + 4:off + 4 + size])
            off += 4 + size
        return out


def _parse_entries(p: bytes, off: int, n: int, verb: str) -> list[tuple[int, bytes]]:
    out = []
    if n < 0 or n > 4096:
        raise ProtocolError(f"{verb} entry count {n}")
    for _ in range(n):
        if off + 8 > len(p):
            raise ProtocolError(f"{verb} payload length")
        kind, size = II.unpack_from(p, off)
        off += 8
        if size < 0 or off + size > len(p):
            raise ProtocolError(f"{verb} entry length")
        out.append((kind, p[off:off + size]))
        off += size
    if off != len(p):
        raise ProtocolError(f"{verb} payload length")
    return out


class BrowseBatch:
    """mqlite's bulk browse: up to max_msgs messages from the browse cursor (``first``: from the
    start) in one reply (a list of ``messages``)."""
    @staticmethod
    def request(hobj: int, first: bool, max_msgs: int, max_bytes: int) -> bytes:
        return BROWSE_REQ.pack(hobj, int(first), max_msgs, max_bytes)

    @staticmethod
    def parse_request(p: bytes) -> tuple[int, int, int, int]:
        if len(p) != BROWSE_REQ.size:
            raise ProtocolError("BROWSE_BATCH payload length")
        return BROWSE_REQ.unpack(p)       # type: ignore[return-value]

    @staticmethod
    def reply(batch: Sequence[tuple[bytes, bytes]]) -> bytes:
        return messages(((md, body, False) for md, body in batch), len(batch))

    @staticmethod
    def parse_reply(reply: bytes) -> list[tuple[bytes, bytes]]:
        return [(md, body) for md, body, _ in parse_messages(reply)]


class Stream:
    """mqlite's queue read by position: one request layout for its operations (STREAM_MARK,
    STREAM_MARK_COMMITTED, STREAM_READ, STREAM_DELETE, STREAM_DELETE_SYNCPOINT); the mark answers
    (end, count, held), the delete how many it removed, the read a list of (position, MQMD, data)."""
    @staticmethod
    def request(hobj: int, op: int, start: int, end: int, max_msgs: int, max_bytes: int) -> bytes:
        return STREAM_REQ.pack(hobj, op, start, end, max_msgs, max_bytes)

    @staticmethod
    def parse_request(p: bytes) -> tuple[int, int, int, int, int, int]:
        if len(p) != STREAM_REQ.size:
            raise ProtocolError("STREAM payload length")
        return STREAM_REQ.unpack(p)       # type: ignore[return-value]

    @staticmethod
    def mark_reply(end: int, count: int, held: int) -> bytes:
        return III.pack(0, 0, 1) + QQQ.pack(end, count, held)

    @staticmethod
    def parse_mark_reply(reply: bytes) -> tuple[int, int, int]:
        return QQQ.unpack_from(reply, 12)     # type: ignore[return-value]

    @staticmethod
    def delete_reply(removed: int) -> bytes:
        return III.pack(0, 0, 1) + Q.pack(removed)

    @staticmethod
    def parse_delete_reply(reply: bytes) -> int:
        return int(Q.unpack_from(reply, 12)[0])

    @staticmethod
    def read_reply(batch: Sequence[tuple[int, bytes, bytes]]) -> bytes:
        parts = [III.pack(0, 0, len(batch))]
        for seq, md, body in batch:
            parts.append(Q.pack(seq))
            parts.append(md)
            parts.append(II.pack(len(body), 0))
            parts.append(body)
        return b"".join(parts)

    @staticmethod
    def parse_read_reply(reply: bytes) -> list[tuple[int, bytes, bytes]]:
        count = III.unpack_from(reply)[2]
        out = []
        off = 12
        for _ in range(count):
            pos = Q.unpack_from(reply, off)[0]
            off += 8
            md_end = off + MD_LEN
            n = II.unpack_from(reply, md_end)[0]
            body = md_end + 8
            out.append((pos, reply[off:md_end], reply[body:body + n]))
            off = body + n
        return out


class Inq:
    """MQINQ: handle and selectors; the reply the values (``encode_values``)."""
    @staticmethod
    def request(hobj: int, selectors: Sequence[int]) -> bytes:
        return II.pack(hobj, len(selectors)) + struct.pack(f"<{len(selectors)}i", *selectors)

    @staticmethod
    def parse_request(p: bytes) -> tuple[int, list[int]]:
        try:
            hobj, n = II.unpack_from(p)
            if n < 0 or n > 256 or len(p) != 8 + 4 * n:
                raise ProtocolError("INQ selector count")
            return hobj, list(struct.unpack_from(f"<{n}i", p, 8))
        except struct.error as e:
            raise ProtocolError(f"INQ payload: {e}") from None

    @staticmethod
    def reply(values: list[Any], reason: int = 0) -> bytes:
        """The values; with a reason (MQRC_SELECTOR_NOT_FOR_TYPE), a warning."""
        return (II.pack(1, reason) if reason else OK) + encode_values(values)

    @staticmethod
    def parse_reply(reply: bytes) -> list[Any]:
        return decode_values(reply, 8)[0]


class Set:
    """MQSET: handle, selectors, values."""
    @staticmethod
    def request(hobj: int, selectors: Sequence[int], values: Sequence[Any]) -> bytes:
        return I1.pack(hobj) + encode_values(list(selectors)) + encode_values(list(values))

    @staticmethod
    def parse_request(p: bytes) -> tuple[int, list[int], list[Any]]:
        if len(p) < 8:
            raise ProtocolError("SET payload length")
        (hobj,) = I1.unpack_from(p)
        selectors, off = decode_values(p, 4)
        values, _ = decode_values(p, off)
        if len(selectors) != len(values) or not all(isinstance(x, int) for x in selectors):
            raise ProtocolError("SET selectors and values")
        return hobj, selectors, values


class EndUnit:
    """MQCMIT and MQBACK: the (handle, consumed) pairs of read-ahead messages held under
    syncpoint, which the queue manager gives back before ending the unit of work."""
    @staticmethod
    def request(pairs: Sequence[tuple[int, int]]) -> bytes:
        return (I1.pack(len(pairs)) + b"".join(II.pack(h, n) for h, n in pairs)) if pairs else b""

    @staticmethod
    def parse_request(p: bytes) -> list[tuple[int, int]]:
        try:
            (n,) = I1.unpack_from(p) if p else (0,)
            if n < 0 or len(p) != (4 + 8 * n if p else 0):
                raise ProtocolError("commit payload length")
            return [II.unpack_from(p, 4 + 8 * i) for i in range(n)]    # type: ignore[misc]
        except struct.error as e:
            raise ProtocolError(f"commit payload: {e}") from None


class Json:
    """STAT and XA: a JSON request (XA) and a reply of codes followed by a JSON answer."""
    @staticmethod
    def request(req: Any) -> bytes:
        return encode_json(req)

    @staticmethod
    def parse_request(p: bytes) -> Any:
        return decode_json(p)

    @staticmethod
    def reply(comp: int, reason: int, answer: Any) -> bytes:
        return II.pack(comp, reason) + encode_json(answer)

    @staticmethod
    def parse_reply(reply: bytes) -> Any:
        return decode_json(reply[8:])
