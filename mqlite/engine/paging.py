"""The part of a queue's lanes kept on disk: queues deeper than memory.

A queue (``engine.queue.QueueState``) keeps in memory only a prefix of each lane: the messages
whose positions are at most the lane's *cut*. The rest (positions above the cut) stay in the store
— persistent ones in the queue manager's journal, nonpersistent ones spilled to its scratch file —
and are read back in order, a page at a time, as the head moves (``page_in``). A message taken out
of the part on disk (a get by MsgId, a unit of work's prepared get, a stream range) is remembered
in the lane's ``gone`` set until the cut passes it, because its row goes away only when the
journal says so. ``DiskPart`` holds that state for one queue; the queue holds the lanes in memory
and their byte counts, which the part reaches through ``Owner``.

A reader that takes from the part on disk again and again (gets by CorrelId from a deep queue: an
MQTT client's publications on SYSTEM.MQTT.TRANSMIT.QUEUE) would read past the same ``gone`` rows
each time, the run growing with every get; the part remembers, per lane and identifiers, the
position up to which every row such a read met was gone (``floors``) and starts there next time.
A message coming back at or below a floor (a backout) forgets the floors; so does the cut moving.
"""
from __future__ import annotations

import struct
from collections import deque
from typing import Iterator, Protocol, Sequence

from mqlite.cmq.packedmd import PackedMD
from mqlite.cmq.structs import MD
from mqlite.engine.message import LANES, MD_SIZE, Message
from mqlite.engine.ports import Pager, StoredRow

PAGE = 256                    # messages read from disk at a time
_PRIORITY, _PRIORITY_AT = struct.Struct("@i"), MD.field_slice("Priority").start    # in a packed MQMD
Ids = tuple[bytes | None, bytes | None, bytes | None]      # MsgId, CorrelId, GroupId wanted


class Owner(Protocol):
    """What the part on disk needs of its queue."""
    def lane_for(self, priority: int) -> int: ...
    def prios(self, lane_no: int) -> tuple[int, ...]: ...
    def room(self, persistent: bool) -> int: ...               # bytes its buffer for the kind has left
    def held_bytes(self, persistent: bool, nbytes: int) -> None: ...   # a page's messages came into memory
    def lost(self) -> None: ...                                # a message left the queue unread


class DiskPart:
    """One queue's messages beyond its buffers, lane by lane."""

    __slots__ = ("name", "pager", "owner", "cut", "high", "ondisk", "gone", "backouts", "floors")

    def __init__(self, name: str, pager: Pager, owner: Owner) -> None:
        self.name = name
        self.pager = pager
        self.owner = owner
        self.cut: list[int | None] = [None] * LANES   # per lane: positions above this are on disk
        self.high = [-1] * LANES      # per lane: the highest position ever held in memory
        self.ondisk = [0] * LANES     # per lane: messages on disk (not counting ``gone``)
        self.gone: list[set[int]] = [set() for _ in range(LANES)]
        self.backouts: dict[int, int] = {}   # BackoutCount of paged-out persistent messages not hardened
        self.floors: dict[tuple[int, Ids | None], int] = {}     # (lane, ids) -> all met up to here are gone

    @property
    def count(self) -> int:
        """Messages of the queue that are on disk only."""
        return sum(self.ondisk)

    def reset(self) -> None:
        """The queue is empty (purged): nothing on disk."""
        self.cut = [None] * LANES
        self.high = [-1] * LANES
        self.ondisk = [0] * LANES
        self.gone = [set() for _ in range(LANES)]
        self.backouts.clear()
        self.floors.clear()

    def restore(self, ondisk: list[int]) -> None:
        """``ondisk`` messages per lane are in the store and none in memory's lanes belong after
        them: a start, or a new layout."""
        self.cut = [-1 if n else None for n in ondisk]
        self.high = [-1] * LANES
        self.ondisk = ondisk
        self.gone = [set() for _ in range(LANES)]
        self.floors.clear()

    # --- in and out -------------------------------------------------------------------------------
    def add(self, msg: Message) -> None:
        """``msg`` joins its lane's part on disk: a persistent message's row is (or will be, the
        journal is in order) in the store; a nonpersistent one is written to the scratch file."""
        row = self._joins(msg)
        if row is not None:
            self.pager.spill(self.name, [row])

    def add_many(self, msgs: Sequence[Message]) -> None:
        """``add`` for several messages (a unit of work's puts at commit), the nonpersistent ones
        written to the scratch file together."""
        rows = [row for row in map(self._joins, msgs) if row is not None]
        if rows:
            self.pager.spill(self.name, rows)

    def _joins(self, msg: Message) -> tuple[int, int, bytes, bytes, float | None] | None:
        """``msg`` counted in its lane's part on disk; the scratch file's row a nonpersistent one
        is written as."""
        lane_no = msg.lane
        if self.floors and msg.seq <= max(self.floors.values()):
            self.floors.clear()             # (a message back below a floor: reads start at the cut again)
        self.ondisk[lane_no] += 1
        if not msg.persistent:
            return msg.seq, msg.md.peek("Priority"), msg.packed_md(), msg.body, msg.expiry_at
        self.gone[lane_no].discard(msg.seq)
        backouts = msg.md.peek("BackoutCount")      # (a descriptor kept packed is not decoded)
        if backouts:
            self.backouts[msg.seq] = backouts
        return None

    def take(self, msg: Message) -> None:
        """``msg``, read from the part on disk, leaves it."""
        self.ondisk[msg.lane] -= 1
        if msg.persistent:
            self.gone[msg.lane].add(msg.seq)
        else:
            self.pager.unspill(self.name, msg.md.peek("Priority"), [msg.seq])

    def set_aside(self, lane: deque[Message]) -> None:
        """The lane's messages in memory go to the store for a new layout: nonpersistent ones
        spilled, persistent ones' backout counts kept (their rows are there)."""
        spill = [(m.seq, m.md.Priority, m.packed_md(), m.body, m.expiry_at) for m in lane if not m.persistent]
        if spill:
            self.pager.spill(self.name, spill)
        for m in lane:
            if m.persistent and m.md.BackoutCount:
                self.backouts[m.seq] = m.md.BackoutCount

    def _lost(self, lane_no: int, seq: int) -> None:
        """A message of the lane's part on disk failed its checksum (the pager reported it and
        journalled its move aside): it is off the queue, like one taken out of order."""
        self.ondisk[lane_no] -= 1
        self.gone[lane_no].add(seq)
        self.owner.lost()

    # --- reading ----------------------------------------------------------------------------------
    def stored_message(self, row: StoredRow) -> Message:
        """A message read back from the store, with the highest BackoutCount it has had. A
        nonpersistent one (spilled: no backout count kept) keeps its descriptor packed, made an
        MQMD object only if a field is used (a read-ahead get uses none)."""
        if not row.persistent:
            raw = row.md
            return Message.packed(row.seq, raw, row.body, row.expiry_at, False,
                                  self.owner.lane_for(_PRIORITY.unpack_from(raw, _PRIORITY_AT)[0]))
        md = PackedMD.of(row.md)
        count = md.peek("BackoutCount")
        top = max(count, row.backout, self.backouts.pop(row.seq, 0))
        if top != count:
            md.BackoutCount = top
        msg = Message(row.seq, md, row.body, row.expiry_at, True, self.owner.lane_for(md.peek("Priority")))
        if top == count:
            msg.raw_md = row.md            # unchanged: never packed again
        return msg

    def page_in(self, lane_no: int, lane: deque[Message]) -> None:
        """Read the front of the lane's part on disk into ``lane`` (memory's, empty or nearly),
        up to the buffers (at least one message). Rows that went away meanwhile (``gone``) are
        passed over; damaged ones the pager has set aside (and reported) no longer count."""
        cut = self.cut[lane_no]
        assert cut is not None
        gone = self.gone[lane_no]
        owner = self.owner
        prios = owner.prios(lane_no)
        before = len(lane)
        rows = self.pager.page(self.name, prios, cut, None, PAGE + len(gone))
        self.floors.clear()                 # (the cut moves)
        last = cut
        # Memory's room for each kind (nonpersistent, persistent), counted here and told to the
        # queue once for the page.
        room = [owner.room(False), owner.room(True)]
        took = [0, 0]
        for row in rows:
            if row.seq in gone:
                gone.discard(row.seq)
                last = row.seq
                continue
            if row.damaged:
                self._lost(lane_no, row.seq)
                last = row.seq
                continue
            kind = row.persistent
            size = MD_SIZE + len(row.body)
            if lane and size > room[kind]:
                break
            room[kind] -= size
            took[kind] += size
            lane.append(self.stored_message(row))
            last = row.seq
        self.ondisk[lane_no] -= len(lane) - before
        for kind in (False, True):
            if took[kind]:
                owner.held_bytes(kind, took[kind])
        if took[False]:                     # nonpersistent ones read: their scratch rows go
            self.pager.unspill_range(self.name, prios, cut, last)
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

    def read(self, lane_no: int, after: int, before: int | None = None, ids: Ids | None = None) -> Iterator[Message]:
        """The messages of the lane's part on disk with positions in (after, before), in order,
        read a page at a time and not kept in memory (a browse, a match, a stream range)."""
        cut = self.cut[lane_no]
        if cut is None or not self.ondisk[lane_no]:
            return
        key = (lane_no, ids)
        floor = self.floors.get(key)
        base = cut if floor is None else max(cut, floor)      # every row up to here is gone
        # A read from the front (not a browse cursor's later start) may start at the floor, and
        # raises it while every row it meets is gone.
        all_gone = after <= base
        after = max(after, base)
        gone = self.gone[lane_no]
        prios = self.owner.prios(lane_no)
        # A reader that stops at the first match (a selector, a MsgId) usually needs few rows: the
        # first read is small and the next ones grow to a page.
        size = 16
        while True:
            if ids is not None:
                rows = self.pager.find(self.name, prios, after, ids, size)
            else:
                rows = self.pager.page(self.name, prios, after, before, size)
            for row in rows:
                if before is not None and row.seq >= before:
                    return
                if row.seq in gone:
                    if all_gone:
                        if len(self.floors) >= 64:
                            self.floors.clear()
                        self.floors[key] = row.seq
                    continue
                all_gone = False
                if row.damaged:
                    self._lost(lane_no, row.seq)
                else:
                    yield self.stored_message(row)
            if len(rows) < size:
                return
            after = rows[-1].seq
            size = min(PAGE, size * 4)

    def last_below(self, lane_no: int, end: int) -> int | None:
        """The highest position below ``end`` of a message of the lane's part on disk."""
        cut = self.cut[lane_no]
        assert cut is not None
        return self.pager.last_below(self.name, self.owner.prios(lane_no), cut, end, self.gone[lane_no])
