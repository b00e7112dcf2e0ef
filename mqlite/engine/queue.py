"""A local queue's messages: priority lanes in arrival order, matching and browse positions.

Messages are ordered by (priority descending, arrival ascending); with MSGDLVSQ(FIFO) all share one
lane.  A message that is put or got inside an open unit of work is outside the lanes (invisible)
but still counts in the depth, as in MQ.
"""
from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections import deque
from itertools import islice
from typing import Callable, Iterator

from mqlite.cmq import CMQC
from mqlite.cmq.structs import MD

LANES = 10


class Message:
    __slots__ = ("seq", "md", "body", "expiry_at", "persistent", "lane", "_packed")

    def __init__(self, seq: int, md: MD, body: bytes, expiry_at: float | None, persistent: bool, lane: int) -> None:
        self.seq = seq
        self.md = md
        self.body = body
        self.expiry_at = expiry_at
        self.persistent = persistent
        self.lane = lane
        self._packed: bytes | None = None

    def packed_md(self) -> bytes:
        """The descriptor in MQ's layout, packed once (a backout changes it: see ``touch``)."""
        if self._packed is None:
            self._packed = self.md.pack()
        return self._packed

    def touch(self) -> None:
        self._packed = None

    @property
    def order(self) -> tuple[int, int]:
        """Position in queue order: smaller comes first."""
        return (-self.lane, self.seq)

    def expired(self, now: float) -> bool:
        return self.expiry_at is not None and now >= self.expiry_at


class QueueState:
    """Runtime state of one local queue (its definition lives in the object registry)."""

    __slots__ = ("name", "lanes", "visible", "uncommitted", "fifo", "input_shared", "input_exclusive",
                 "output", "browse", "inquire", "refs", "last_put", "last_get", "enq", "deq", "top")
    shared = False                # a shared queue (engine/shared.py) keeps its messages elsewhere

    def __init__(self, name: str, fifo: bool = False) -> None:
        self.name = name
        self.lanes: list[deque[Message]] = [deque() for _ in range(LANES)]
        self.visible = 0
        self.uncommitted = 0          # messages put or got in units of work not yet ended
        self.fifo = fifo
        self.input_shared = 0
        self.input_exclusive = 0
        self.output = 0
        self.browse = 0
        self.inquire = 0
        self.refs = 0                 # open handles that have this queue on their resolution path
        self.last_put = 0.0
        self.last_get = 0.0
        self.enq = 0
        self.deq = 0
        self.top = 0                  # no lane above this one holds a message

    @property
    def depth(self) -> int:
        return self.visible + self.uncommitted

    def lane_for(self, priority: int) -> int:
        return 0 if self.fifo else priority

    def insert(self, msg: Message) -> None:
        if msg.lane > self.top:
            self.top = msg.lane
        lane = self.lanes[msg.lane]
        if not lane or lane[-1].seq < msg.seq:
            lane.append(msg)
        else:
            # A message coming back (backout) or committed late keeps its arrival position.
            lane.insert(next((i for i, m in enumerate(lane) if m.seq > msg.seq), len(lane)), msg)
        self.visible += 1

    def insert_many(self, msgs: list[Message]) -> None:
        """Insert several messages (a unit of work's puts at commit): each lane takes its new
        messages in one merge, not one search each, when they fall among the ones it holds (units
        of work committed out of their put order)."""
        by_lane: dict[int, list[Message]] = {}
        for m in msgs:
            by_lane.setdefault(m.lane, []).append(m)
        for lane_no, new in by_lane.items():
            new.sort(key=_seq)
            lane = self.lanes[lane_no]
            if not lane or lane[-1].seq < new[0].seq:
                lane.extend(new)
            else:
                self.lanes[lane_no] = deque(heapq.merge(lane, new, key=_seq))
            if lane_no > self.top:
                self.top = lane_no
        self.visible += len(msgs)

    def remove(self, msg: Message) -> None:
        lane = self.lanes[msg.lane]
        if lane and lane[0] is msg:
            lane.popleft()
        else:
            lane.remove(msg)
        self.visible -= 1

    def __iter__(self) -> Iterator[Message]:
        for lane in reversed(self.lanes):
            yield from lane

    def after(self, order: tuple[int, int] | None) -> Iterator[Message]:
        """Messages strictly after a browse position, in queue order."""
        if order is None:
            yield from self
            return
        lane_no, seq = -order[0], order[1]
        for i in range(min(lane_no, LANES - 1), -1, -1):
            lane = self.lanes[i]
            if i == lane_no:
                # A lane is in arrival (seq) order: find the cursor by bisection instead of walking
                # past every message before it, which made browsing a deep queue quadratic.
                for j in range(bisect_right(lane, seq, key=_seq), len(lane)):
                    yield lane[j]
            else:
                yield from lane

    def find(self, now: float, expired: Callable[[Message], None],
             match: Callable[[Message], bool] | None = None,
             start: tuple[int, int] | None = None) -> Message | None:
        """The first live message (after ``start``) that ``match`` accepts; expired ones are discarded."""
        dead: list[Message] = []
        found = None
        for m in (self.after(start) if start is not None else self):
            if m.expiry_at is not None and now >= m.expiry_at:
                dead.append(m)
                continue
            if match is None or match(m):
                found = m
                break
        for m in dead:
            self.remove(m)
            expired(m)
        return found

    def first_fast(self) -> Message | None:
        lanes = self.lanes
        top = self.top
        while top > 0 and not lanes[top]:
            top -= 1
        self.top = top
        lane = lanes[top]
        return lane[0] if lane else None

    def purge(self) -> list[Message]:
        out = list(self)
        for lane in self.lanes:
            lane.clear()
        self.visible = 0
        self.top = 0
        return out

    def reorder(self, fifo: bool) -> None:
        """MSGDLVSQ changed: lay the messages out again."""
        msgs = sorted(self, key=lambda m: m.seq)
        self.fifo = fifo
        for lane in self.lanes:
            lane.clear()
        self.visible = 0
        self.top = 0
        for m in msgs:
            m.lane = self.lane_for(m.md.Priority)
            self.insert(m)


def wanted_ids(md: MD, match_options: int) -> tuple[bytes | None, bytes | None, bytes | None, int | None]:
    """(MsgId, CorrelId, GroupId, MsgSeqNumber) that MQGET's MatchOptions ask for; None: any (an
    identifier of all nulls matches any message, as in MQ)."""
    def ident(value: bytes, option: int, none: bytes) -> bytes | None:
        want = value.ljust(24, b"\0")[:24]
        return want if match_options & option and want != none else None
    return (ident(md.MsgId, CMQC.MQMO_MATCH_MSG_ID, CMQC.MQMI_NONE),
            ident(md.CorrelId, CMQC.MQMO_MATCH_CORREL_ID, CMQC.MQCI_NONE),
            ident(md.GroupId, CMQC.MQMO_MATCH_GROUP_ID, CMQC.MQGI_NONE),
            md.MsgSeqNumber if match_options & CMQC.MQMO_MATCH_MSG_SEQ_NUMBER else None)


def matcher(md: MD, match_options: int) -> Callable[[Message], bool] | None:
    """The selection MQGET's MatchOptions ask for, or None when any message will do."""
    tests: list[Callable[[Message], bool]] = []
    want, wantc, wantg, wants = wanted_ids(md, match_options)
    if want is not None:
        tests.append(lambda m: m.md.MsgId == want)
    if wantc is not None:
        tests.append(lambda m: m.md.CorrelId == wantc)
    if wantg is not None:
        tests.append(lambda m: m.md.GroupId == wantg)
    if wants is not None:
        tests.append(lambda m: m.md.MsgSeqNumber == wants)
    if match_options & CMQC.MQMO_MATCH_OFFSET:
        wanto = md.Offset
        tests.append(lambda m: m.md.Offset == wanto)
    if not tests:
        return None
    if len(tests) == 1:
        return tests[0]
    return lambda m: all(t(m) for t in tests)


def _seq(m: Message) -> int:
    return m.seq


def in_position_order(qs: QueueState, start: int, end: int) -> Iterator[Message]:
    """The visible messages with ``start <= position < end`` in position (arrival) order, priority
    aside: each lane is already in that order, so the lanes are merged."""
    runs = []
    for lane in qs.lanes:
        if lane and lane[-1].seq >= start and lane[0].seq < end:
            i = bisect_left(lane, start, key=_seq)
            runs.append(islice(lane, i, None))
    ordered = runs[0] if len(runs) == 1 else heapq.merge(*runs, key=_seq)
    for m in ordered:
        if m.seq >= end:
            return
        yield m


def stream_last(lane: deque[Message], end: int) -> Message | None:
    """The lane's last message with a position below ``end``."""
    if not lane or lane[0].seq >= end:
        return None
    if lane[-1].seq < end:
        return lane[-1]
    return lane[bisect_left(lane, end, key=_seq) - 1]
