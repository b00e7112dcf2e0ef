"""A message channel's conversation after its handshake, as a sans-IO protocol (after h11).

Both ends of a message channel hold a ``Conversation``: the sending MCA as ``SENDER``, the
receiving one as ``RECEIVER``. It has no socket, thread, clock or engine. ``receive_data`` takes
bytes as they arrived (``receive_frame`` a frame the MCA's ``FrameReader`` has already split), and
``next_event`` returns the next event from the partner, ``NEED_DATA`` when more bytes are needed,
or ``PAUSED`` when this end owes an answer first. ``send`` takes an event of this end and returns
the bytes to write. What is on the wire is ``net.protocol``'s frames: CH_MSG (a header of flags and
sequence number, then the packed MQMD and the MQXQH with the data), CH_END and its reply (JSON),
CH_HEARTBEAT and CH_PING with their replies, and CH_CLOSE.

The rules, the same at both ends (an event out of turn is a ``ProtocolError`` naming both):

- A sender is ``IDLE`` between batches. A batch message (one with a sequence number) puts it
  ``IN_BATCH``; its messages' sequence numbers follow each other, wrapping from SEQWRAP to 1. Fast
  nonpersistent messages (no sequence number) may go at any time but while a confirmation or a
  heartbeat's answer is awaited. ``EndBatch`` closes the batch (``AWAITING_CONFIRM``): its
  ``first``, ``last`` and key count must be those of the batch's messages, and only a ``Confirm``
  may come back. A ``Heartbeat`` or ``Ping`` goes only while ``IDLE`` and waits for its reply.
  ``Close`` ends the conversation from ``IDLE``.
- A receiver mirrors it: after an ``EndBatch`` it must ``send`` its ``Confirm`` before it hears
  more, and it answers a heartbeat or a ping before anything else.

Every field that arrives is checked (types, lengths, counts) before an event is made of it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqlite.cmq.headers import XQH_LEN
from mqlite.net import protocol as P

SENDER, RECEIVER = "SENDER", "RECEIVER"
IDLE, IN_BATCH, AWAITING_CONFIRM, MUST_CONFIRM, AWAITING_REPLY, MUST_REPLY, CLOSED = (
    "IDLE", "IN_BATCH", "AWAITING_CONFIRM", "MUST_CONFIRM", "AWAITING_REPLY", "MUST_REPLY", "CLOSED")
_MSG_MIN = 8 + P.MD_LEN + XQH_LEN
_MD_END = 8 + P.MD_LEN
_II = P.II
_FAST_HEAD = P.II.pack(P.CH_FAST, 0)


def _message_frame(flags_seq: bytes, md: bytes, body: bytes) -> bytes:
    """A CH_MSG frame: net.protocol's header (length, type), flags and sequence, MQMD, data."""
    return P.HEADER.pack(9 + len(md) + len(body), P.CH_MSG) + flags_seq + md + body


class NeedData:
    def __repr__(self) -> str:
        return "NEED_DATA"


class Paused:
    def __repr__(self) -> str:
        return "PAUSED"


NEED_DATA, PAUSED = NeedData(), Paused()


@dataclass(slots=True)
class Message:
    """A message: ``seq`` None for a fast nonpersistent one (outside the batch)."""
    seq: int | None
    md: bytes
    body: bytes


@dataclass(slots=True)
class EndBatch:
    """The end of a batch: its sequence numbers, its LUWID, the message keys (one per batch
    message) and the LUWIDs of earlier batches whose commit is now durable at the sender."""
    last: int
    first: int
    luwid: str
    keys: list[int]
    durable: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Confirm:
    ok: bool
    reason: int = 0
    text: str = ""
    last: int = 0
    luwid: str = ""


@dataclass(slots=True)
class Heartbeat:
    pass


@dataclass(slots=True)
class HeartbeatReply:
    pass


@dataclass(slots=True)
class Ping:
    data: bytes = b""


@dataclass(slots=True)
class PingReply:
    data: bytes = b""


@dataclass(slots=True)
class Close:
    pass


Event = Message | EndBatch | Confirm | Heartbeat | HeartbeatReply | Ping | PingReply | Close


def next_seq(seq: int, seqwrap: int) -> int:
    """The sequence number after ``seq``: 1 after SEQWRAP."""
    return seq + 1 if seq < seqwrap else 1


class Conversation:
    """One end of a channel's conversation (``role`` SENDER or RECEIVER)."""

    def __init__(self, role: str, seqwrap: int = 999_999_999, max_frame: int = P.MAX_FRAME) -> None:
        if role not in (SENDER, RECEIVER):
            raise ValueError(role)
        self.role = role
        self.seqwrap = seqwrap
        self.max_frame = max_frame
        self.state = IDLE
        self._buf = bytearray()
        self._frames: list[tuple[int, bytes]] = []     # received, not yet taken by next_event
        self._at = 0
        self._first: int | None = None       # the batch under way: its first and last sequence numbers
        self._last = 0
        self._count = 0                       # and its messages

    # --- what this end sends ---------------------------------------------------------------------
    def send(self, event: Event) -> bytes:
        """The bytes that carry ``event`` from this end; ProtocolError if it is out of turn."""
        if isinstance(event, Message):
            return self.send_message(event.seq, event.md, event.body)
        if isinstance(event, EndBatch):
            self._end_batch(event, SENDER)
            return P.frame(P.CH_END, P.encode_json({"last": event.last, "first": event.first, "luwid": event.luwid,
                                                    "keys": event.keys, "durable": event.durable}))
        if isinstance(event, Confirm):
            self._expect(RECEIVER, MUST_CONFIRM, event)
            self.state = IDLE
            answer: dict[str, Any] = {"ok": event.ok}
            if event.ok:
                answer.update(last=event.last, luwid=event.luwid)
            else:
                answer.update(reason=event.reason, text=event.text)
            return P.frame(P.CH_END | P.REPLY, P.encode_json(answer))
        if isinstance(event, (Heartbeat, Ping)):
            self._expect(SENDER, IDLE, event)
            self.state = AWAITING_REPLY
            return P.frame(P.CH_HEARTBEAT, b"") if isinstance(event, Heartbeat) else P.frame(P.CH_PING, event.data)
        if isinstance(event, (HeartbeatReply, PingReply)):
            self._expect(RECEIVER, MUST_REPLY, event)
            self.state = IDLE
            if isinstance(event, HeartbeatReply):
                return P.frame(P.CH_HEARTBEAT | P.REPLY, b"")
            return P.frame(P.CH_PING | P.REPLY, event.data)
        if isinstance(event, Close):
            self._expect(SENDER, IDLE, event)
            self.state = CLOSED
            return P.frame(P.CH_CLOSE, b"")
        raise TypeError(f"not a channel event: {event!r}")

    def send_message(self, seq: int | None, md: bytes, body: bytes) -> bytes:
        """``send(Message(seq, md, body))`` without making the event: the MCA's per-message path."""
        if seq is None:
            if self.state is not IDLE and self.state is not IN_BATCH:
                self._fast_allowed()
            return _message_frame(_FAST_HEAD, md, body)
        self._batch_message(seq, SENDER)
        return _message_frame(_II.pack(0, seq), md, body)

    # --- what the partner sends ------------------------------------------------------------------
    def receive_data(self, data: bytes) -> None:
        """Bytes from the partner, as they arrived: complete frames become events."""
        buf = self._buf
        buf += data
        at = 0
        while len(buf) - at >= 5:
            length, ftype = P.HEADER.unpack_from(buf, at)
            if length < 1 or length > self.max_frame:
                raise P.ProtocolError(f"frame length {length} outside 1..{self.max_frame}")
            if len(buf) - at < 4 + length:
                break
            self.receive_frame(ftype, bytes(buf[at + 5:at + 4 + length]))
            at += 4 + length
        del buf[:at]

    def receive_frame(self, ftype: int, payload: bytes) -> None:
        """One frame from the partner (split already, by the MCA's FrameReader)."""
        self._frames.append((ftype, payload))

    def next_event(self) -> Event | NeedData | Paused:
        """The partner's next event, NEED_DATA when none is complete, PAUSED while this end owes
        an answer (a receiver's Confirm or a heartbeat's reply)."""
        if self.state is MUST_CONFIRM or self.state is MUST_REPLY:
            return PAUSED
        frames = self._frames
        if self._at >= len(frames):
            if frames:
                frames.clear()
                self._at = 0
            return NEED_DATA
        ftype, payload = frames[self._at]
        self._at += 1
        return self._take(ftype, payload)

    def event_of(self, ftype: int, payload: bytes) -> Event | Paused:
        """``receive_frame`` and ``next_event`` in one step, for an MCA that reads a frame at a time
        (the event the frame carries; PAUSED if this end owes an answer, the frame kept)."""
        if self._at < len(self._frames) or self.state is MUST_CONFIRM or self.state is MUST_REPLY:
            self.receive_frame(ftype, payload)
            got = self.next_event()
            assert not isinstance(got, NeedData)
            return got
        return self._take(ftype, payload)

    @property
    def buffered(self) -> bool:
        """Frames or bytes from the partner not yet taken."""
        return self._at < len(self._frames) or bool(self._buf)

    # --- the rules --------------------------------------------------------------------------------
    def _take(self, ftype: int, payload: bytes) -> Event:
        """The event a frame from the partner carries, every field checked, this end's state
        moved by it (ProtocolError if it is malformed or out of turn)."""
        if ftype == P.CH_MSG:
            if len(payload) < _MSG_MIN:
                raise P.ProtocolError("channel message shorter than its headers")
            flags, seq = _II.unpack_from(payload)
            if flags == P.CH_FAST:
                if self.state is not IDLE and self.state is not IN_BATCH:
                    self._fast_allowed()
                return Message(None, payload[8:_MD_END], payload[_MD_END:])
            if flags:
                raise P.ProtocolError(f"channel message flags {flags:#x}")
            self._batch_message(seq, RECEIVER)
            return Message(seq, payload[8:_MD_END], payload[_MD_END:])
        event = self._event(ftype, payload)
        if isinstance(event, EndBatch):
            self._end_batch(event, RECEIVER)
        elif isinstance(event, Confirm):
            self._expect(SENDER, AWAITING_CONFIRM, event)
            self.state = IDLE
        elif isinstance(event, (Heartbeat, Ping)):
            self._expect(RECEIVER, IDLE, event)
            self.state = MUST_REPLY
        elif isinstance(event, (HeartbeatReply, PingReply)):
            self._expect(SENDER, AWAITING_REPLY, event)
            self.state = IDLE
        else:
            self._expect(RECEIVER, IDLE, event)
            self.state = CLOSED
        return event

    @staticmethod
    def _event(ftype: int, payload: bytes) -> Event:
        """A frame other than a message as the event it carries, every field checked."""
        if ftype == P.CH_END:
            info = P.checked(P.decode_json(payload), "batch end", keys="ints", durable="strs", last="int",
                             first="int", luwid="str")
            last = info.get("last") or 0
            return EndBatch(last, info.get("first", last) or last, info.get("luwid") or "",
                            list(info.get("keys") or []), list(info.get("durable") or []))
        if ftype == P.CH_END | P.REPLY:
            reply = P.checked(P.decode_json(payload), "batch confirmation", ok="bool", reason="int", text="str",
                              last="int", luwid="str")
            return Confirm(bool(reply.get("ok")), reply.get("reason") or 0, reply.get("text") or "",
                           reply.get("last") or 0, reply.get("luwid") or "")
        if ftype in (P.CH_HEARTBEAT, P.CH_HEARTBEAT | P.REPLY, P.CH_CLOSE):
            if payload:
                raise P.ProtocolError(f"frame {ftype:#x} carries {len(payload)} bytes")
            return HeartbeatReply() if ftype & P.REPLY else (Heartbeat() if ftype == P.CH_HEARTBEAT else Close())
        if ftype == P.CH_PING:
            return Ping(payload)
        if ftype == P.CH_PING | P.REPLY:
            return PingReply(payload)
        raise P.ProtocolError(f"frame type {ftype:#x} on a message channel")

    def _expect(self, role: str, state: str, event: Event) -> None:
        if self.role != role or self.state != state:
            raise P.ProtocolError(f"{type(event).__name__} out of turn: {self.role} is {self.state}")

    def _fast_allowed(self) -> None:
        """A fast message travels between batch messages, never while an answer is owed."""
        if self.state not in (IDLE, IN_BATCH):
            raise P.ProtocolError(f"a fast message out of turn: {self.role} is {self.state}")

    def _batch_message(self, seq: int, at: str) -> None:
        """A batch message sent (``at`` SENDER) or received (``at`` RECEIVER)."""
        state = self.state
        if self.role != at or (state is not IDLE and state is not IN_BATCH):
            raise P.ProtocolError(f"a batch message out of turn: {self.role} is {state}")
        if state is IN_BATCH:
            if seq != (self._last + 1 if self._last < self.seqwrap else 1):
                raise P.ProtocolError(f"sequence number {seq} after {self._last}")
        else:
            if not 1 <= seq <= self.seqwrap:
                raise P.ProtocolError(f"sequence number {seq} outside 1..{self.seqwrap}")
            self._first, self._count, self.state = seq, 0, IN_BATCH
        self._last = seq
        self._count += 1

    def _end_batch(self, event: EndBatch, at: str) -> None:
        if self.role != at or self.state != IN_BATCH:
            raise P.ProtocolError(f"EndBatch out of turn: {self.role} is {self.state}")
        if (event.first, event.last) != (self._first, self._last) or len(event.keys) != self._count:
            raise P.ProtocolError(f"batch end first {event.first} last {event.last} keys {len(event.keys)} for a batch "
                                  f"of {self._count} messages {self._first}..{self._last}")
        self.state = AWAITING_CONFIRM if self.role == SENDER else MUST_CONFIRM
        self._first, self._count = None, 0

    def batch_bounds(self) -> tuple[int, int, int]:
        """The batch under way: (first, last sequence number, messages); ProtocolError if none."""
        if self.state != IN_BATCH or self._first is None:
            raise P.ProtocolError(f"no batch under way: {self.role} is {self.state}")
        return self._first, self._last, self._count

