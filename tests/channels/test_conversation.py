"""The channel conversation (mqlite.channels.conversation) driven with bytes and no sockets: two
ends talking, every event out of turn refused, sequence numbers wrapping, frames split anywhere,
and random conversations against a small model of the rules."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite.channels.conversation import (
    NEED_DATA,
    PAUSED,
    RECEIVER,
    SENDER,
    Close,
    Confirm,
    Conversation,
    EndBatch,
    Heartbeat,
    HeartbeatReply,
    Message,
    Ping,
    PingReply,
    next_seq,
)
from mqlite.cmq.headers import XQH_LEN
from mqlite.net import protocol as P

MD = b"M" * P.MD_LEN
BODY = b"X" * XQH_LEN + b"data"


def events(conv: Conversation) -> list[object]:
    out = []
    while True:
        ev = conv.next_event()
        if ev is NEED_DATA or ev is PAUSED:
            out.append(ev)
            return out
        out.append(ev)


def test_a_batch_a_confirmation_and_a_heartbeat_between_two_ends():
    snd, rcv = Conversation(SENDER), Conversation(RECEIVER)
    wire = b"".join([snd.send(Message(7, MD, BODY)), snd.send(Message(None, MD, BODY + b"!")),
                     snd.send(Message(8, MD, BODY)), snd.send(EndBatch(8, 7, "LUW1", [101, 102]))])
    assert snd.state == "AWAITING_CONFIRM"
    rcv.receive_data(wire)
    got = events(rcv)
    assert got == [Message(7, MD, BODY), Message(None, MD, BODY + b"!"), Message(8, MD, BODY),
                   EndBatch(8, 7, "LUW1", [101, 102], []), PAUSED]
    assert rcv.state == "MUST_CONFIRM"
    snd.receive_data(rcv.send(Confirm(True, last=8, luwid="LUW1")))
    assert events(snd) == [Confirm(True, 0, "", 8, "LUW1"), NEED_DATA] and snd.state == "IDLE"
    rcv.receive_data(snd.send(Heartbeat()))
    assert events(rcv) == [Heartbeat(), PAUSED]
    snd.receive_data(rcv.send(HeartbeatReply()))
    assert events(snd) == [HeartbeatReply(), NEED_DATA]
    rcv.receive_data(snd.send(Close()))
    assert events(rcv)[0] == Close() and rcv.state == snd.state == "CLOSED"


def test_a_refusal_travels_with_its_reason():
    snd, rcv = Conversation(SENDER), Conversation(RECEIVER)
    rcv.receive_data(snd.send(Message(1, MD, BODY)) + snd.send(EndBatch(1, 1, "L", [5])))
    events(rcv)
    snd.receive_data(rcv.send(Confirm(False, reason=2053, text="queue full")))
    assert snd.next_event() == Confirm(False, 2053, "queue full", 0, "")


def test_sequence_numbers_wrap_at_seqwrap():
    assert next_seq(5, 5) == 1 and next_seq(4, 5) == 5
    snd, rcv = Conversation(SENDER, seqwrap=5), Conversation(RECEIVER, seqwrap=5)
    wire = b"".join(snd.send(Message(s, MD, BODY)) for s in (4, 5, 1, 2))
    assert snd.batch_bounds() == (4, 2, 4)
    wire += snd.send(EndBatch(2, 4, "W", [1, 2, 3, 4]))
    rcv.receive_data(wire)
    assert [getattr(e, "seq", None) for e in events(rcv)[:4]] == [4, 5, 1, 2]
    with pytest.raises(P.ProtocolError, match="outside 1..5"):
        Conversation(SENDER, seqwrap=5).send(Message(6, MD, BODY))


@pytest.mark.parametrize("steps, refused", [
    # the sender's own events out of turn
    ([("s", Message(1, MD, BODY)), ("s", Heartbeat())], "Heartbeat out of turn"),
    ([("s", Message(1, MD, BODY)), ("s", Message(3, MD, BODY))], "sequence number 3 after 1"),
    ([("s", Message(1, MD, BODY)), ("s", EndBatch(1, 1, "L", [1, 2]))], "keys 2 for a batch of 1"),
    ([("s", Message(2, MD, BODY)), ("s", EndBatch(2, 1, "L", [1]))], "batch end first 1 last 2"),
    ([("s", EndBatch(0, 0, "L", []))], "EndBatch out of turn"),
    ([("s", Message(1, MD, BODY)), ("s", EndBatch(1, 1, "L", [1])), ("s", Message(None, MD, BODY))],
     "fast message out of turn"),
    ([("s", Heartbeat()), ("s", Message(1, MD, BODY))], "batch message out of turn"),
    ([("s", Confirm(True))], "Confirm out of turn"),
    ([("s", Message(1, MD, BODY)), ("s", Close())], "Close out of turn"),
    # what the sender hears out of turn
    ([("r", Confirm(True))], "Confirm out of turn"),
    ([("r", HeartbeatReply())], "HeartbeatReply out of turn"),
    ([("r", Message(1, MD, BODY))], "batch message out of turn"),
])
def test_the_sender_refuses_what_is_out_of_turn(steps, refused):
    snd = Conversation(SENDER)
    with pytest.raises(P.ProtocolError, match=refused):
        for where, ev in steps:
            if where == "s":
                snd.send(ev)
            else:
                snd.receive_data(_bytes_of(ev))
                snd.next_event()


def _bytes_of(ev: object) -> bytes:
    """``ev`` as the other end would put it on the wire (whatever its state)."""
    if isinstance(ev, Confirm):
        return P.frame(P.CH_END | P.REPLY, P.encode_json({"ok": ev.ok}))
    if isinstance(ev, HeartbeatReply):
        return P.frame(P.CH_HEARTBEAT | P.REPLY)
    if isinstance(ev, Heartbeat):
        return P.frame(P.CH_HEARTBEAT)
    if isinstance(ev, Close):
        return P.frame(P.CH_CLOSE)
    if isinstance(ev, EndBatch):
        return P.frame(P.CH_END, P.encode_json({"last": ev.last, "first": ev.first, "luwid": ev.luwid,
                                                "keys": ev.keys}))
    assert isinstance(ev, Message)
    return P.frame(P.CH_MSG, P.II.pack(P.CH_FAST if ev.seq is None else 0, ev.seq or 0) + ev.md + ev.body)


@pytest.mark.parametrize("frames, refused", [
    ([Message(1, MD, BODY), Heartbeat()], "Heartbeat out of turn"),
    ([Message(1, MD, BODY), Close()], "Close out of turn"),
    ([Message(1, MD, BODY), Message(1, MD, BODY)], "sequence number 1 after 1"),
    ([EndBatch(3, 3, "L", [1])], "EndBatch out of turn"),
    ([Message(1, MD, BODY), EndBatch(1, 1, "L", [])], "keys 0 for a batch of 1"),
    ([Confirm(True)], "Confirm out of turn"),
])
def test_the_receiver_refuses_what_is_out_of_turn(frames, refused):
    rcv = Conversation(RECEIVER)
    rcv.receive_data(b"".join(_bytes_of(f) for f in frames))
    with pytest.raises(P.ProtocolError, match=refused):
        events(rcv)


def test_a_receiver_owes_its_confirmation_before_it_hears_more():
    rcv = Conversation(RECEIVER)
    rcv.receive_data(_bytes_of(Message(1, MD, BODY)) + _bytes_of(EndBatch(1, 1, "L", [9]))
                     + _bytes_of(Message(2, MD, BODY)))
    assert events(rcv)[-1] is PAUSED
    assert rcv.next_event() is PAUSED                      # still: nothing until the Confirm
    with pytest.raises(P.ProtocolError, match="HeartbeatReply out of turn"):
        rcv.send(HeartbeatReply())
    rcv.send(Confirm(True))
    assert rcv.next_event() == Message(2, MD, BODY)


@pytest.mark.parametrize("frame, refused", [
    (P.frame(P.CH_MSG, b"short"), "shorter than its headers"),
    (P.frame(P.CH_MSG, P.II.pack(0x10, 1) + MD + BODY), "flags 0x10"),
    (P.frame(P.CH_END, P.encode_json({"last": "1", "keys": []})), "last"),
    (P.frame(P.CH_END, P.encode_json({"last": 1, "keys": ["1"]})), "keys"),
    (P.frame(P.CH_END, P.encode_json(["not", "a", "dict"])), "batch end"),
    (P.frame(P.CH_END, b"{not json"), "bad JSON payload"),
    (P.frame(P.CH_HEARTBEAT, b"x"), "carries 1 bytes"),
    (P.frame(0x4F, b""), "frame type 0x4f"),
    (P.HEADER.pack(0, P.CH_MSG), "frame length 0"),
])
def test_every_field_that_arrives_is_checked(frame, refused):
    rcv = Conversation(RECEIVER)
    with pytest.raises(P.ProtocolError, match=refused):
        rcv.receive_data(frame)
        events(rcv)


def test_ping_and_its_answer():
    snd, rcv = Conversation(SENDER), Conversation(RECEIVER)
    rcv.receive_data(snd.send(Ping(b"abc")))
    assert events(rcv) == [Ping(b"abc"), PAUSED]
    snd.receive_data(rcv.send(PingReply(b"abc")))
    assert snd.next_event() == PingReply(b"abc") and snd.state == "IDLE"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["fast", "msg", "end", "beat", "answer"]), max_size=40),
       st.integers(1, 7), st.integers(1, 9), st.randoms(use_true_random=False))
def test_random_conversations_follow_the_model(ops, seqwrap, start, rnd):
    """A sender and a receiver exchange random steps; a small model of the rules says which steps
    the sender may take. Allowed ones go through both ends (bytes split at random places); refused
    ones raise and change nothing."""
    start = min(start, seqwrap)
    snd, rcv = Conversation(SENDER, seqwrap), Conversation(RECEIVER, seqwrap)
    state, seq, batch = "IDLE", start - 1 if start > 1 else seqwrap, []    # the model
    first = None
    for op in ops:
        if op == "answer":
            # The receiver answers what it owes, the sender hears it.
            got = events(rcv)
            if state in ("AWAITING_CONFIRM", "AWAITING_REPLY"):
                assert got[-1] is PAUSED
                reply = Confirm(True) if state == "AWAITING_CONFIRM" else HeartbeatReply()
                snd.receive_data(rcv.send(reply))
                assert events(snd) == [reply, NEED_DATA]
                state = "IDLE"
            else:
                assert got[-1] is NEED_DATA
            continue
        allowed = {"fast": state in ("IDLE", "IN_BATCH"), "msg": state in ("IDLE", "IN_BATCH"),
                   "end": state == "IN_BATCH", "beat": state == "IDLE"}[op]
        if op == "fast":
            ev: object = Message(None, MD, BODY)
        elif op == "msg":
            ev = Message(next_seq(seq, seqwrap), MD, BODY)
        elif op == "end":
            ev = EndBatch(seq, first if first is not None else 0, "L", [0] * len(batch))
        else:
            ev = Heartbeat()
        before = snd.state
        if not allowed:
            with pytest.raises(P.ProtocolError):
                snd.send(ev)               # type: ignore[arg-type]
            assert snd.state == before
            continue
        data = snd.send(ev)                # type: ignore[arg-type]
        while data:                        # the receiver gets the bytes in random pieces
            cut = rnd.randint(1, len(data))
            rcv.receive_data(data[:cut])
            data = data[cut:]
        if op == "msg":
            seq = ev.seq                   # type: ignore[union-attr]
            if state == "IDLE":
                first, batch = seq, []
            batch.append(seq)
            state = "IN_BATCH"
        elif op == "end":
            state, first, batch = "AWAITING_CONFIRM", None, []
        elif op == "beat":
            state = "AWAITING_REPLY"
        assert snd.state == state
