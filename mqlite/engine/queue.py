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
from mqlite.cmq.packedmd import PackedMD
from mqlite.cmq.structs import MD
from mqlite.engine.ports import Pager, StoredRow

LANES = 10
PRIORITIES = tuple(range(LANES))
PAGE = 256                    # messages read from disk at a time
# qm.ini TuningParameters DefaultQBufferSize / DefaultPQBufferSize: bytes of nonpersistent and of
# persistent messages (descriptor and data) each queue keeps in memory before paging to the store.
DEFAULT_BUFFERS = (8 << 20, 8 << 20)
MD_SIZE = len(MD().pack())    # a descriptor's bytes, counted with the data against the buffers


class Message:
    __slots__ = ("seq", "md", "body", "expiry_at", "persistent", "lane", "_packed", "props")

    def __init__(self, seq: int, md: MD, body: bytes, expiry_at: float | None, persistent: bool, lane: int) -> None:
        self.seq = seq
        self.md = md
        self.body = body
        self.expiry_at = expiry_at
        self.persistent = persistent
        self.lane = lane
        self._packed: bytes | None = None
        self.props: dict[str, Any] | None = None       # its properties, read once when a selector asks

    def packed_md(self) -> bytes:
        """The descriptor in MQ's layout, packed once (a backout changes it: see ``touch``)."""
        if self._packed is None:
            self._packed = self.md.pack()
        return self._packed

    def touch(self) -> None:
        self._packed = None

    @property
    def size(self) -> int:
        """What the message counts against its queue's buffer: descriptor and data."""
        return MD_SIZE + len(self.body)

    @property
    def order(self) -> tuple[int, int]:
        """Position in queue order: smaller comes first."""
        return (-self.lane, self.seq)

    def expired(self, now: float) -> bool:
        return self.expiry_at is not None and now >= self.expiry_at


class QueueState:
    """Runtime state of one local queue (its definition lives in the object registry).

    **Deeper than memory.** Given a pager (the store's, ``engine.ports.Pager``), a queue keeps in
    memory only a prefix of each lane: the messages whose positions are at most the lane's *cut*.
    The rest (positions above the cut) stay in the store — persistent ones in the queue manager's
    journal, nonpersistent ones spilled to its scratch file — and are read back in order, a page at
    a time, as the head moves (``_page_in``). A new message goes to memory while the lane has no
    part on disk and the queue's buffer for its kind (MQ's DefaultQBufferSize for nonpersistent,
    DefaultPQBufferSize for persistent messages) has room; once a lane has a part on disk, every
    later message of that lane joins it, so memory always holds the front. A message taken out of
    the part on disk (a get by MsgId, a unit of work's prepared get, a stream range) is remembered
    in the lane's ``gone`` set until the cut passes it, because its row goes away only when the
    journal says so. The messages of open units of work are never paged: they are held by the
    unit. Without a pager (an engine on its own) everything stays in memory.
    """

    __slots__ = ("name", "lanes", "visible", "uncommitted", "fifo", "input_shared", "input_exclusive",
                 "output", "browse", "inquire", "refs", "last_put", "last_get", "enq", "deq", "top",
                 "pager", "qbuf", "pqbuf", "mem", "pmem", "cut", "high", "ondisk", "gone", "backouts", "inserts",
                 "selecting", "recent")
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
        self.pager = pager
        self.qbuf, self.pqbuf = buffers       # bytes of nonpersistent / persistent messages in memory
        self.mem = 0                  # bytes of nonpersistent messages held in the lanes
        self.pmem = 0                 # bytes of persistent messages held in the lanes
        self.cut: list[int | None] = [None] * LANES   # per lane: positions above this are on disk
        self.high = [-1] * LANES      # per lane: the highest position ever held in memory
        self.ondisk = [0] * LANES     # per lane: messages on disk (not counting ``gone``)
        self.gone: list[set[int]] = [set() for _ in range(LANES)]
        self.backouts: dict[int, int] = {}   # BackoutCount of paged-out persistent messages not hardened
        self.inserts = 0              # messages made visible, counted
        self.selecting = 0            # open handles with a selector: while any, ``recent`` is kept
        self.recent: deque[tuple[int, tuple[int, int]]] = deque(maxlen=4096)   # (count, order) of inserts

    @property
    def depth(self) -> int:
        return self.visible + self.uncommitted

    @property
    def paged(self) -> int:
        """Messages of this queue that are on disk only."""
        return sum(self.ondisk)

    def lane_for(self, priority: int) -> int:
        return 0 if self.fifo else priority

    def _prios(self, lane_no: int) -> tuple[int, ...]:
        return PRIORITIES if self.fifo else (lane_no,)

    # --- into the queue ---------------------------------------------------------------------------
    def insert(self, msg: Message) -> None:
        self.inserts += 1
        if self.selecting:
            self.recent.append((self.inserts, msg.order))
        lane_no = msg.lane
        if lane_no > self.top:
            self.top = lane_no
        lane = self.lanes[lane_no]
        cut = self.cut[lane_no]
        if cut is not None and msg.seq > cut:
            self._to_disk(msg)
            return
        if not lane or lane[-1].seq < msg.seq:
            if self.pager is not None and msg.seq > self.high[lane_no] and self._full(msg):
                # The part on disk begins here. Every position up to the cut was in memory (or is
                # held by a unit of work, its row still stored): none of them is ever read back.
                self.cut[lane_no] = msg.seq - 1
                self._to_disk(msg)
                return
            lane.append(msg)
            if msg.seq > self.high[lane_no]:
                self.high[lane_no] = msg.seq
        else:
            # A message coming back (backout) or committed late keeps its arrival position.
            lane.insert(bisect_left(lane, msg.seq, key=_seq), msg)
        if self.pager is not None:
            self._held(msg, 1)
        self.visible += 1

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
            new.sort(key=_seq)
            lane = self.lanes[lane_no]
            # Those that fall among the messages held in memory (the cut is never below the last
            # of them) are merged in one pass; the rest are the tail, appended or sent to disk.
            n = bisect_left(new, lane[-1].seq, key=_seq) if lane else 0
            if n:
                self.lanes[lane_no] = deque(heapq.merge(lane, new[:n], key=_seq))
                self.visible += n
                if self.pager is not None:
                    for m in new[:n]:
                        self._held(m, 1)
                self.top = max(self.top, lane_no)
            for m in new[n:]:
                self.insert(m)

    def _full(self, msg: Message) -> bool:
        if msg.persistent:
            return self.pmem + msg.size > self.pqbuf
        return self.mem + msg.size > self.qbuf

    def _held(self, msg: Message, sign: int) -> None:
        if msg.persistent:
            self.pmem += sign * msg.size
        else:
            self.mem += sign * msg.size

    def _to_disk(self, msg: Message) -> None:
        """``msg`` joins its lane's part on disk: a persistent message's row is (or will be, the
        journal is in order) in the store; a nonpersistent one is written to the scratch file."""
        assert self.pager is not None
        lane_no = msg.lane
        if msg.persistent:
            self.gone[lane_no].discard(msg.seq)
            if msg.md.BackoutCount:
                self.backouts[msg.seq] = msg.md.BackoutCount
        else:
            self.pager.spill(self.name, [(msg.seq, msg.md.Priority, msg.packed_md(), msg.body, msg.expiry_at)])
        self.ondisk[lane_no] += 1
        self.visible += 1

    # --- out of the queue -------------------------------------------------------------------------
    def remove(self, msg: Message) -> None:
        lane_no = msg.lane
        cut = self.cut[lane_no]
        if cut is not None and msg.seq > cut:
            assert self.pager is not None
            self.visible -= 1
            self.ondisk[lane_no] -= 1
            if msg.persistent:
                self.gone[lane_no].add(msg.seq)
            else:
                self.pager.unspill(self.name, msg.md.Priority, [msg.seq])
            return
        lane = self.lanes[lane_no]
        if lane and lane[0] is msg:
            lane.popleft()
        else:
            i = bisect_left(lane, msg.seq, key=_seq)
            if i == len(lane) or lane[i].seq != msg.seq:
                raise ValueError(f"message {msg.seq} is not on {self.name}")
            del lane[i]
        self.visible -= 1
        if self.pager is not None:
            self._held(msg, -1)

    def purge(self) -> int:
        """Remove every visible message (the caller journals the persistent ones' removal)."""
        n = self.visible
        for lane in self.lanes:
            lane.clear()
        if self.pager is not None and self.paged:
            self.pager.unspill_queue(self.name)
        self._reset_paging()
        self.visible = 0
        self.top = 0
        return n

    def _reset_paging(self) -> None:
        self.mem = self.pmem = 0
        self.cut = [None] * LANES
        self.high = [-1] * LANES
        self.ondisk = [0] * LANES
        self.gone = [set() for _ in range(LANES)]
        self.backouts.clear()

    def discard(self) -> None:
        """The queue is deleted: its spilled nonpersistent messages go too."""
        if self.pager is not None and self.paged:
            self.pager.unspill_queue(self.name)

    # --- paging -----------------------------------------------------------------------------------
    def _page_in(self, lane_no: int) -> None:
        """Read the front of the lane's part on disk into memory, up to the buffers (at least one
        message). Rows that went away meanwhile (``gone``) are passed over; damaged ones the pager
        has set aside (and reported) no longer count."""
        assert self.pager is not None
        cut = self.cut[lane_no]
        assert cut is not None
        lane, gone = self.lanes[lane_no], self.gone[lane_no]
        rows = self.pager.page(self.name, self._prios(lane_no), cut, None, PAGE + len(gone))
        last = cut
        loaded = False                      # nonpersistent ones read: their scratch rows go
        for row in rows:
            if row.seq in gone:
                gone.discard(row.seq)
                last = row.seq
                continue
            if row.damaged:
                self._lost(lane_no, row.seq)
                last = row.seq
                continue
            msg = self.stored_message(row)
            if lane and self._full(msg):
                break
            lane.append(msg)
            self._held(msg, 1)
            self.ondisk[lane_no] -= 1
            last = row.seq
            loaded = loaded or not row.persistent
        if loaded:
            self.pager.unspill_range(self.name, self._prios(lane_no), cut, last)
        if last > self.high[lane_no]:
            self.high[lane_no] = last
        if self.ondisk[lane_no] < 0 or (not rows and self.ondisk[lane_no]):
            # The count and the store disagree: say so rather than serve a queue that is wrong.
            raise RuntimeError(f"queue {self.name} lane {lane_no}: {self.ondisk[lane_no]} paged messages "
                               "not where the count says")
        if not self.ondisk[lane_no]:
            self.cut[lane_no] = None            # nothing live left on disk: the lane is all in memory
            gone.clear()
        else:
            self.cut[lane_no] = last
            if gone:
                gone.difference_update([s for s in gone if s <= last])

    def _lost(self, lane_no: int, seq: int) -> None:
        """A message of the lane's part on disk failed its checksum (the pager reported it and
        journalled its move aside): it is off the queue, like one taken out of order."""
        self.ondisk[lane_no] -= 1
        self.visible -= 1
        self.gone[lane_no].add(seq)

    def stored_message(self, row: StoredRow) -> Message:
        """A message read back from the store, with the highest BackoutCount it has had."""
        md = PackedMD.of(row.md)            # decoded only if a field is used (a read-ahead get uses none)
        changed = False
        if row.persistent:
            count = md.peek("BackoutCount")
            top = max(count, row.backout, self.backouts.pop(row.seq, 0))
            if top != count:
                md.BackoutCount = top
                changed = True
        msg = Message(row.seq, md, row.body, row.expiry_at, row.persistent, self.lane_for(md.peek("Priority")))
        if not changed:
            msg._packed = row.md            # unchanged: never packed again
        return msg

    def _from_disk(self, lane_no: int, after: int, before: int | None = None,
                   ids: tuple[bytes | None, bytes | None, bytes | None] | None = None) -> Iterator[Message]:
        """The messages of the lane's part on disk with positions in (after, before), in order,
        read a page at a time and not kept in memory (a browse, a match, a stream range)."""
        cut = self.cut[lane_no]
        if cut is None or self.pager is None or not self.ondisk[lane_no]:
            return
        after = max(after, cut)
        gone = self.gone[lane_no]
        # A reader that stops at the first match (a selector, a MsgId) usually needs few rows: the
        # first read is small and the next ones grow to a page.
        size = 16
        while True:
            if ids is not None:
                rows = self.pager.find(self.name, self._prios(lane_no), after, ids, size)
            else:
                rows = self.pager.page(self.name, self._prios(lane_no), after, before, size)
            for row in rows:
                if before is not None and row.seq >= before:
                    return
                if row.seq in gone:
                    continue
                if row.damaged:
                    self._lost(lane_no, row.seq)
                else:
                    yield self.stored_message(row)
            if len(rows) < size:
                return
            after = rows[-1].seq
            size = min(PAGE, size * 4)

    def _front(self, lane_no: int) -> deque[Message]:
        """The lane with its front in memory: read from disk when memory has none of it."""
        lane = self.lanes[lane_no]
        if not lane and self.ondisk[lane_no]:
            self._page_in(lane_no)
        return lane

    # --- reading ----------------------------------------------------------------------------------
    def _lane(self, lane_no: int, after: int = -1, ids: tuple[bytes | None, bytes | None, bytes | None] | None = None
              ) -> Iterator[Message]:
        """A lane's messages with positions above ``after``: memory's first, then the disk's."""
        if after < 0:
            yield from self._front(lane_no)
        else:
            lane = self.lanes[lane_no]
            yield from islice(lane, bisect_right(lane, after, key=_seq), None)
        if self.ondisk[lane_no]:
            yield from self._from_disk(lane_no, after, ids=ids)

    def __iter__(self) -> Iterator[Message]:
        for i in range(LANES - 1, -1, -1):
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
             start: tuple[int, int] | None = None,
             ids: tuple[bytes | None, bytes | None, bytes | None] | None = None) -> Message | None:
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
        return found

    def nothing_before(self, order: tuple[int, int], since: int) -> bool:
        """No message made visible after insert number ``since`` lies before ``order`` (a selecting
        handle may resume its scan there)."""
        if self.inserts == since:
            return True
        if not self.recent or self.recent[0][0] > since + 1:
            return False                       # not all recorded: assume the worst
        return all(o > order for n, o in self.recent if n > since)

    def first_fast(self) -> Message | None:
        lanes = self.lanes
        top = self.top
        ondisk = self.ondisk
        while top > 0 and not lanes[top] and not ondisk[top]:
            top -= 1
        self.top = top
        lane = lanes[top]
        if not lane and ondisk[top]:
            lane = self._front(top)
        return lane[0] if lane else None

    def reorder(self, fifo: bool, held: tuple[Message, ...] = ()) -> None:
        """MSGDLVSQ changed: lay the messages out again. With a part on disk, every message goes
        to disk (nonpersistent ones spilled) and each new lane is counted from the store; ``held``
        are the stored persistent messages units of work hold (their rows are still there)."""
        self.inserts += 1              # every position may change: selecting scans start again
        self.recent.clear()
        if self.pager is None or not self.paged:
            msgs = sorted(self, key=_seq)
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
            spill = [(m.seq, m.md.Priority, m.packed_md(), m.body, m.expiry_at) for m in lane if not m.persistent]
            if spill:
                self.pager.spill(self.name, spill)
            for m in lane:
                if m.persistent and m.md.BackoutCount:
                    self.backouts[m.seq] = m.md.BackoutCount
            lane.clear()
        self.fifo = fifo
        self.mem = self.pmem = 0
        self.restore(self.pager.counts(self.name))
        for m in held:
            self.hold(m)

    def restore(self, counts: dict[int, int]) -> None:
        """Count the messages the store holds for this queue (``counts``: by priority) as the
        lanes' parts on disk, reading none of them: a start, or a new layout."""
        ondisk = [0] * LANES
        for prio, n in counts.items():
            ondisk[self.lane_for(prio)] += n
        self.cut = [-1 if n else None for n in ondisk]
        self.high = [-1] * LANES
        self.ondisk = ondisk
        self.gone = [set() for _ in range(LANES)]
        self.visible = sum(ondisk) + sum(len(lane) for lane in self.lanes)
        self.top = max((i for i in range(LANES) if ondisk[i] or self.lanes[i]), default=0)

    def hold(self, msg: Message) -> None:
        """A stored persistent message that a unit of work holds (its row is still in the store)
        is not on the queue: ``msg.lane`` is set for this layout."""
        msg.lane = self.lane_for(msg.md.Priority)
        self.remove(msg)

    # --- positions (the Spark source's streams) ---------------------------------------------------
    def positions(self, start: int, end: int) -> Iterator[Message]:
        """The visible messages with ``start <= position < end`` in position (arrival) order,
        priority aside: each lane is already in that order, so the lanes are merged."""
        runs = [self._lane(i, start - 1) for i in range(LANES) if self.lanes[i] or self.ondisk[i]]
        if not runs:
            return
        ordered = runs[0] if len(runs) == 1 else heapq.merge(*runs, key=_seq)
        for m in ordered:
            if m.seq >= end:
                return
            yield m

    def last_below(self, end: int) -> int | None:
        """The highest position below ``end`` of a visible message."""
        best = None
        for i in range(LANES):
            lane = self.lanes[i]
            if self.ondisk[i] and self.pager is not None:
                cut = self.cut[i]
                assert cut is not None
                seq = self.pager.last_below(self.name, self._prios(i), cut, end, self.gone[i])
                if seq is not None:
                    best = seq if best is None else max(best, seq)
                    continue
            if lane and lane[0].seq < end:
                m = lane[-1] if lane[-1].seq < end else lane[bisect_left(lane, end, key=_seq) - 1]
                best = m.seq if best is None else max(best, m.seq)
        return best

    def take_range(self, start: int, end: int) -> list[Message]:
        """Remove every visible message whose position is in [start, end) and return them."""
        gone: list[Message] = []
        for i, lane in enumerate(self.lanes):
            if lane and lane[0].seq < end and lane[-1].seq >= start:
                if lane[0].seq >= start:
                    while lane and lane[0].seq < end:       # the usual case: the front of the lane
                        gone.append(lane.popleft())
                else:
                    kept = deque(m for m in lane if not start <= m.seq < end)
                    gone.extend(m for m in lane if start <= m.seq < end)
                    self.lanes[i] = kept
        if self.pager is not None:
            for m in gone:
                self._held(m, -1)
        self.visible -= len(gone)
        for i in range(LANES):
            if self.ondisk[i]:
                for m in list(self._from_disk(i, start - 1, end)):
                    self.remove(m)
                    gone.append(m)
        return gone


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
