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
from typing import Any, Callable, Iterator

from mqlite.cmq import CMQC
from mqlite.cmq.structs import MD
from mqlite.engine.message import LANES, Message, seq_of
from mqlite.engine.paging import DiskPart, Ids
from mqlite.engine.ports import Pager, StoredRow

PRIORITIES = tuple(range(LANES))
# qm.ini TuningParameters DefaultQBufferSize / DefaultPQBufferSize: bytes of nonpersistent and of
# persistent messages (descriptor and data) each queue keeps in memory before paging to the store.
DEFAULT_BUFFERS = (8 << 20, 8 << 20)
_NOTHING = (0,) * LANES       # the part on disk of a queue without a pager


class QueueState:
    """Runtime state of one local queue (its definition lives in the object registry).

    **Deeper than memory.** Given a pager (the store's, ``engine.ports.Pager``), a queue keeps in
    memory only a prefix of each lane and the rest in its part on disk (``engine.paging.DiskPart``,
    ``disk``). A new message goes to memory while the lane has no part on disk and the queue's
    buffer for its kind (MQ's DefaultQBufferSize for nonpersistent, DefaultPQBufferSize for
    persistent messages) has room; once a lane has a part on disk, every later message of that
    lane joins it, so memory always holds the front. The messages of open units of work are never
    paged: they are held by the unit. Without a pager (an engine on its own) everything stays in
    memory and ``disk`` is None.
    """

    __slots__ = ("name", "lanes", "visible", "uncommitted", "fifo", "input_shared", "input_exclusive",
                 "output", "browse", "inquire", "refs", "last_put", "last_get", "enq", "deq", "top",
                 "disk", "qbuf", "pqbuf", "mem", "pmem", "inserts", "selecting", "recent", "high_depth", "reset_at",
                 "monitored", "qtime", "stats", "trig_sent", "svc_started")
    shared = False                # a shared queue (engine/shared.py) keeps its messages elsewhere

    def __init__(self, name: str, fifo: bool = False, pager: Pager | None = None,
                 buffers: tuple[int, int] = DEFAULT_BUFFERS) -> None:
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
        self.disk = DiskPart(name, pager, self) if pager is not None else None
        self.qbuf, self.pqbuf = buffers       # bytes of nonpersistent / persistent messages in memory
        self.mem = 0                  # bytes of nonpersistent messages held in the lanes
        self.pmem = 0                 # bytes of persistent messages held in the lanes
        self.inserts = 0              # messages made visible, counted
        self.selecting = 0            # open handles with a selector: while any, ``recent`` is kept
        self.recent: deque[tuple[int, tuple[int, int]]] = deque(maxlen=4096)   # (count, order) of inserts
        # Statistics since RESET QSTATS (enq and deq above count too), and online monitoring
        # (MONQ in force: the time messages spent on the queue, engine/status.py).
        self.high_depth = 0
        self.reset_at = 0.0
        self.monitored = False
        self.stats: Any = None            # QueueStats while statistics are kept (engine/statistics.py)
        # When a FIRST trigger message was written (trigger.py); the service interval timer (events.py).
        self.trig_sent: float | None = None
        self.svc_started: float | None = None
        self.qtime: list[float] | None = None     # short- and long-term averages, seconds

    @property
    def depth(self) -> int:
        return self.visible + self.uncommitted

    @property
    def paged(self) -> int:                 # messages of this queue that are on disk only
        return self.disk.count if self.disk is not None else 0

    def lane_for(self, priority: int) -> int:
        return 0 if self.fifo else priority

    def prios(self, lane_no: int) -> tuple[int, ...]:     # the priorities whose messages a lane holds
        return PRIORITIES if self.fifo else (lane_no,)

    # --- memory's share (the part on disk's Owner) ------------------------------------------------
    def full(self, msg: Message) -> bool:
        if msg.persistent:
            return self.pmem + msg.size > self.pqbuf
        return self.mem + msg.size > self.qbuf

    def held(self, msg: Message, sign: int) -> None:
        if msg.persistent:
            self.pmem += sign * msg.size
        else:
            self.mem += sign * msg.size

    def room(self, persistent: bool) -> int:
        """Bytes memory's buffer for the kind has left (negative: over it)."""
        return self.pqbuf - self.pmem if persistent else self.qbuf - self.mem

    def held_bytes(self, persistent: bool, nbytes: int) -> None:
        """``nbytes`` of messages of the kind came into memory (a page read from disk)."""
        if persistent:
            self.pmem += nbytes
        else:
            self.mem += nbytes

    def lost(self) -> None:
        self.visible -= 1

    def note_depth(self) -> None:
        """The depth may have risen: HighQDepth since the last reset."""
        depth = self.visible + self.uncommitted
        if depth > self.high_depth:
            self.high_depth = depth

    # --- into the queue ---------------------------------------------------------------------------
    def insert(self, msg: Message) -> None:
        self.inserts += 1
        if self.selecting:
            self.recent.append((self.inserts, msg.order))
        lane_no = msg.lane
        if lane_no > self.top:
            self.top = lane_no
        lane = self.lanes[lane_no]
        disk = self.disk
        if disk is not None:
            cut = disk.cut[lane_no]
            if cut is not None and msg.seq > cut:
                disk.add(msg)
                self.visible = depth = self.visible + 1
                depth += self.uncommitted
                if depth > self.high_depth:         # note_depth, inline: the hot path
                    self.high_depth = depth
                return
        if not lane or lane[-1].seq < msg.seq:
            if disk is not None and msg.seq > disk.high[lane_no] and self.full(msg):
                # The part on disk begins here. Every position up to the cut was in memory (or is
                # held by a unit of work, its row still stored): none of them is ever read back.
                disk.cut[lane_no] = msg.seq - 1
                disk.add(msg)
                self.visible += 1
                self.note_depth()           # (once per lane going to disk: no need to inline)
                return
            lane.append(msg)
            if disk is not None and msg.seq > disk.high[lane_no]:
                disk.high[lane_no] = msg.seq
        else:
            # A message coming back (backout) or committed late keeps its arrival position.
            lane.insert(bisect_left(lane, msg.seq, key=seq_of), msg)
        if disk is not None:
            self.held(msg, 1)
        self.visible = depth = self.visible + 1
        depth += self.uncommitted
        if depth > self.high_depth:                 # note_depth, inline: every put passes here
            self.high_depth = depth

    def insert_many(self, msgs: list[Message]) -> None:
        """Insert several messages (a unit of work's puts at commit): each lane takes its new
        messages in one merge, not one search each, when they fall among the ones it holds (units
        of work committed out of their put order)."""
        by_lane: dict[int, list[Message]] = {}
        for m in msgs:
            by_lane.setdefault(m.lane, []).append(m)
            self.inserts += 1
            if self.selecting:
                self.recent.append((self.inserts, m.order))
        for lane_no, new in by_lane.items():
            new.sort(key=seq_of)
            lane = self.lanes[lane_no]
            # Those that fall among the messages held in memory (the cut is never below the last
            # of them) are merged in one pass; the rest are the tail, appended or sent to disk.
            n = bisect_left(new, lane[-1].seq, key=seq_of) if lane else 0
            if n:
                self.lanes[lane_no] = deque(heapq.merge(lane, new[:n], key=seq_of))
                self.visible += n
                self.note_depth()
                if self.disk is not None:
                    for m in new[:n]:
                        self.held(m, 1)
                self.top = max(self.top, lane_no)
            tail = new[n:]
            disk = self.disk
            for i, m in enumerate(tail):
                cut = disk.cut[lane_no] if disk is not None else None
                if disk is not None and cut is not None and m.seq > cut:
                    # The rest follow it onto the part on disk (in position order): written together.
                    rest = tail[i:]
                    disk.add_many(rest)
                    self.visible += len(rest)
                    self.note_depth()
                    self.top = max(self.top, lane_no)
                    break
                self.insert(m)

    # --- out of the queue -------------------------------------------------------------------------
    def remove(self, msg: Message) -> None:
        lane_no = msg.lane
        disk = self.disk
        if disk is not None:
            cut = disk.cut[lane_no]
            if cut is not None and msg.seq > cut:
                self.visible -= 1
                disk.take(msg)
                return
        lane = self.lanes[lane_no]
        if lane and lane[0] is msg:
            lane.popleft()
        else:
            i = bisect_left(lane, msg.seq, key=seq_of)
            if i == len(lane) or lane[i].seq != msg.seq:
                raise ValueError(f"message {msg.seq} is not on {self.name}")
            del lane[i]
        self.visible -= 1
        if disk is not None:
            self.held(msg, -1)

    def purge(self) -> int:
        """Remove every visible message (the caller journals the persistent ones' removal)."""
        n = self.visible
        for lane in self.lanes:
            lane.clear()
        if self.disk is not None:
            if self.disk.count:
                self.disk.pager.unspill_queue(self.name)
            self.disk.reset()
        self.mem = self.pmem = 0
        self.visible = 0
        self.top = 0
        return n

    def discard(self) -> None:
        """The queue is deleted: its spilled nonpersistent messages go too."""
        if self.disk is not None and self.disk.count:
            self.disk.pager.unspill_queue(self.name)

    def stored_message(self, row: StoredRow) -> Message:
        """A message read back from the store (recovery of what units of work hold)."""
        assert self.disk is not None
        return self.disk.stored_message(row)

    # --- reading ----------------------------------------------------------------------------------
    def _front(self, lane_no: int) -> deque[Message]:
        """The lane with its front in memory: read from disk when memory has none of it."""
        lane = self.lanes[lane_no]
        if not lane and self.disk is not None and self.disk.ondisk[lane_no]:
            self.disk.page_in(lane_no, lane)
        return lane

    def _lane(self, lane_no: int, after: int = -1, ids: Ids | None = None) -> Iterator[Message]:
        """A lane's messages with positions above ``after``: memory's first, then the disk's."""
        if after < 0:
            yield from self._front(lane_no)
        else:
            lane = self.lanes[lane_no]
            yield from islice(lane, bisect_right(lane, after, key=seq_of), None)
        if self.disk is not None and self.disk.ondisk[lane_no]:
            yield from self.disk.read(lane_no, after, ids=ids)

    def __iter__(self) -> Iterator[Message]:
        disk = self.disk
        lanes = self.lanes
        for i in range(LANES - 1, -1, -1):
            if lanes[i] or disk is not None and disk.ondisk[i]:     # (an empty lane: no generator made)
                yield from self._lane(i)

    def after(self, order: tuple[int, int] | None) -> Iterator[Message]:
        """Messages strictly after a browse position, in queue order."""
        if order is None:
            yield from self
            return
        lane_no, seq = -order[0], order[1]
        for i in range(min(lane_no, LANES - 1), -1, -1):
            # A lane is in arrival (seq) order: the cursor is found by bisection instead of walking
            # past every message before it, which made browsing a deep queue quadratic.
            yield from self._lane(i, seq if i == lane_no else -1)

    def of_group(self, gid: bytes) -> Iterator[Message]:
        """The messages with this GroupId (a group's, or a segmented message's), in queue order;
        the part on disk read through the store's GroupId index."""
        for i in range(LANES - 1, -1, -1):
            for m in self._lane(i, ids=(None, None, gid)):
                if m.md.GroupId == gid:
                    yield m

    def find(self, now: float, expired: Callable[[Message], None],
             match: Callable[[Message], bool] | None = None,
             start: tuple[int, int] | None = None, ids: Ids | None = None) -> Message | None:
        """The first live message (after ``start``) that ``match`` accepts; expired ones are
        discarded. ``ids`` (MsgId, CorrelId, GroupId wanted, None for any) lets the part on disk be
        searched through the store's indexes instead of read through."""
        dead: list[Message] = []
        found = None
        if ids is not None and not any(ids):
            ids = None
        if start is None and ids is not None and self.paged:
            source: Iterator[Message] = (m for i in range(LANES - 1, -1, -1) for m in self._lane(i, ids=ids))
        else:
            source = self.after(start) if start is not None else iter(self)
        for m in source:
            if m.expiry_at is not None and now >= m.expiry_at:
                dead.append(m)
                continue
            if match is None or match(m):
                found = m
                break
        for m in dead:
            self.remove(m)
            expired(m)
        if dead and self.stats is not None:
            self.stats.expired += len(dead)
        return found

    def nothing_before(self, order: tuple[int, int], since: int) -> bool:
        """No message made visible after insert number ``since`` lies before ``order`` (a selecting
        handle may resume its scan there)."""
        if self.inserts == since:
            return True
        if not self.recent or self.recent[0][0] > since + 1:
            return False                       # not all recorded: assume the worst
        return all(o > order for n, o in self.recent if n > since)

    def heads(self) -> Iterator[Message]:
        """The first message of each lane that has one (the oldest of each: a lane is in arrival
        order)."""
        for i in range(LANES - 1, -1, -1):
            for m in self._lane(i):
                yield m
                break

    def first_fast(self) -> Message | None:
        lanes = self.lanes
        top = self.top
        ondisk = self.disk.ondisk if self.disk is not None else _NOTHING
        while top > 0 and not lanes[top] and not ondisk[top]:
            top -= 1
        self.top = top
        lane = lanes[top]
        if not lane and ondisk[top]:
            lane = self._front(top)
        return lane[0] if lane else None

    # --- a new layout -----------------------------------------------------------------------------
    def reorder(self, fifo: bool, held: tuple[Message, ...] = ()) -> None:
        """MSGDLVSQ changed: lay the messages out again. With a part on disk, every message goes
        to disk (nonpersistent ones spilled) and each new lane is counted from the store; ``held``
        are the stored persistent messages units of work hold (their rows are still there)."""
        self.inserts += 1              # every position may change: selecting scans start again
        self.recent.clear()
        if self.disk is None or not self.disk.count:
            msgs = sorted(self, key=seq_of)
            self.fifo = fifo
            for lane in self.lanes:
                lane.clear()
            self.visible = 0
            self.top = 0
            self.mem = self.pmem = 0
            for m in msgs:
                m.lane = self.lane_for(m.md.Priority)
                self.insert(m)
            return
        for lane in self.lanes:
            self.disk.set_aside(lane)
            lane.clear()
        self.fifo = fifo
        self.mem = self.pmem = 0
        self.restore(self.disk.pager.counts(self.name))
        for m in held:
            self.hold(m)

    def restore(self, counts: dict[int, int]) -> None:
        """Count the messages the store holds for this queue (``counts``: by priority) as the
        lanes' parts on disk, reading none of them: a start, or a new layout."""
        assert self.disk is not None
        ondisk = [0] * LANES
        for prio, n in counts.items():
            ondisk[self.lane_for(prio)] += n
        self.disk.restore(ondisk)
        self.visible = sum(ondisk) + sum(len(lane) for lane in self.lanes)
        self.top = max((i for i in range(LANES) if ondisk[i] or self.lanes[i]), default=0)

    def hold(self, msg: Message) -> None:
        """A stored persistent message that a unit of work holds (its row is still in the store)
        is not on the queue: ``msg.lane`` is set for this layout."""
        msg.lane = self.lane_for(msg.md.Priority)
        self.remove(msg)


# --- reading a queue by position (the Spark source's streams: engine/stream.py) ------------------
def positions(qs: QueueState, start: int, end: int) -> Iterator[Message]:
    """The visible messages with ``start <= position < end`` in position (arrival) order,
    priority aside: each lane is already in that order, so the lanes are merged."""
    ondisk = qs.disk.ondisk if qs.disk is not None else _NOTHING
    runs = [qs._lane(i, start - 1) for i in range(LANES) if qs.lanes[i] or ondisk[i]]
    if not runs:
        return
    ordered = runs[0] if len(runs) == 1 else heapq.merge(*runs, key=seq_of)
    for m in ordered:
        if m.seq >= end:
            return
        yield m


def last_below(qs: QueueState, end: int) -> int | None:
    """The highest position below ``end`` of a visible message."""
    best = None
    for i in range(LANES):
        lane = qs.lanes[i]
        if qs.disk is not None and qs.disk.ondisk[i]:
            seq = qs.disk.last_below(i, end)
            if seq is not None:
                best = seq if best is None else max(best, seq)
                continue
        if lane and lane[0].seq < end:
            m = lane[-1] if lane[-1].seq < end else lane[bisect_left(lane, end, key=seq_of) - 1]
            best = m.seq if best is None else max(best, m.seq)
    return best


def take_range(qs: QueueState, start: int, end: int) -> list[Message]:
    """Remove every visible message whose position is in [start, end) and return them."""
    gone: list[Message] = []
    for i, lane in enumerate(qs.lanes):
        if lane and lane[0].seq < end and lane[-1].seq >= start:
            if lane[0].seq >= start:
                while lane and lane[0].seq < end:       # the usual case: the front of the lane
                    gone.append(lane.popleft())
            else:
                kept = deque(m for m in lane if not start <= m.seq < end)
                gone.extend(m for m in lane if start <= m.seq < end)
                qs.lanes[i] = kept
    if qs.disk is not None:
        for m in gone:
            qs.held(m, -1)
    qs.visible -= len(gone)
    if qs.disk is not None:
        for i in range(LANES):
            if qs.disk.ondisk[i]:
                for m in list(qs.disk.read(i, start - 1, end)):
                    qs.remove(m)
                    gone.append(m)
    return gone


_ID_MATCHES = (CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID | CMQC.MQMO_MATCH_GROUP_ID
               | CMQC.MQMO_MATCH_MSG_SEQ_NUMBER)


def wanted_ids(md: MD, match_options: int) -> tuple[bytes | None, bytes | None, bytes | None, int | None]:
    """(MsgId, CorrelId, GroupId, MsgSeqNumber) that MQGET's MatchOptions ask for; None: any (an
    identifier of all nulls matches any message, as in MQ)."""
    def ident(value: bytes, option: int, none: bytes) -> bytes | None:
        want = value.ljust(24, b"\0")[:24]
        return want if match_options & option and want != none else None
    if not match_options & _ID_MATCHES:
        return None, None, None, None
    peek = md.peek                  # (a request's descriptor may be kept packed: PackedMD)
    return (ident(peek("MsgId"), CMQC.MQMO_MATCH_MSG_ID, CMQC.MQMI_NONE),
            ident(peek("CorrelId"), CMQC.MQMO_MATCH_CORREL_ID, CMQC.MQCI_NONE),
            ident(peek("GroupId"), CMQC.MQMO_MATCH_GROUP_ID, CMQC.MQGI_NONE),
            peek("MsgSeqNumber") if match_options & CMQC.MQMO_MATCH_MSG_SEQ_NUMBER else None)


_ID_SLICES = {name: MD.field_slice(name) for name in ("MsgId", "CorrelId", "GroupId")}


def _same_id(field: str, want: bytes) -> Callable[[Message], bool]:
    """Whether a message's MsgId, CorrelId or GroupId is ``want``: read from its packed
    descriptor when it is held so (a publication's copy is), without decoding the rest."""
    where = _ID_SLICES[field]

    def test(m: Message) -> bool:
        raw = m.raw_md
        if raw is not None:
            return raw[where] == want
        return bool(m.md.peek(field) == want)
    return test


def matcher(md: MD, match_options: int, wanted: tuple[bytes | None, bytes | None, bytes | None, int | None]
            | None = None) -> Callable[[Message], bool] | None:
    """The selection MQGET's MatchOptions ask for, or None when any message will do (``wanted``:
    ``wanted_ids``' answer, when the caller has it)."""
    tests: list[Callable[[Message], bool]] = []
    want, wantc, wantg, wants = wanted if wanted is not None else wanted_ids(md, match_options)
    for field, value in (("MsgId", want), ("CorrelId", wantc), ("GroupId", wantg)):
        if value is not None:
            tests.append(_same_id(field, value))
    if wants is not None:
        tests.append(lambda m: m.md.MsgSeqNumber == wants)
    if match_options & CMQC.MQMO_MATCH_OFFSET:
        wanto = md.peek("Offset")
        tests.append(lambda m: m.md.Offset == wanto)
    if not tests:
        return None
    if len(tests) == 1:
        return tests[0]
    return lambda m: all(t(m) for t in tests)
