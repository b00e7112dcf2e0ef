"""Nonpersistent messages out of memory: an append-only scratch log with its index in memory.

A nonpersistent message is never forced to disk, and a restart discards it, so spilling one need
cost little more than keeping it (MQ writes them to its queue file without forcing). Records are
appended to segment files (``SEGMENT`` bytes each) through a write buffer flushed in large
sequential writes; no fsync, no journal, no b-tree. What stays in memory is a compact index per
(queue, priority) in position order — arrays of positions, file locations, record lengths and
(for a queue that is read by identifier) 32-bit hashes of MsgId, CorrelId and GroupId: 20 bytes
a message, 32 with the hashes. A page of the lane is a bisect and one read of the contiguous
records; a get by identifier scans an array in C.

A record is ``<descriptor length, expiry>`` then the packed MQMD and the data. Taking messages
out marks their index entries dead (the lane's head moves past a page read back into memory);
a segment whose last live record has gone is deleted, and the current one rewound. The log's
directory is emptied at every start.
"""
from __future__ import annotations

import errno
import math
import os
import shutil
import struct
import tempfile
import zlib
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence

from mqlite.cmq.structs import MD
from mqlite.engine.ports import StoredRow

SEGMENT = 16 << 20            # bytes of records per segment file before the next one starts
WRITE_CHUNK = 1 << 20         # records are written when this much is waiting
TRIM = 1024                   # a lane's dead front is cut off when it is this long and half the lane
_IOV_MAX = os.sysconf("SC_IOV_MAX") if hasattr(os, "sysconf") else 16
_HEAD = struct.Struct("<Id")  # descriptor length, expiry time (NaN: none)
_IDS = (MD.field_slice("MsgId"), MD.field_slice("CorrelId"), MD.field_slice("GroupId"))   # in a packed MQMD
_NULL_ID = bytes(24)


def id_hash(ident: bytes) -> int:
    """An identifier's 32-bit key in the index (0: the null identifier); a match is checked on the
    descriptor by the caller."""
    return 0 if ident == _NULL_ID else (zlib.crc32(ident) or 1)

PLACE_RATIO = 16      # late rows are put in place while the lane holds this many times more; else sorted

class _Lane:
    """The spilled messages of one (queue, priority), in position order from ``head``; a dead
    entry (taken out) has location -1."""
    __slots__ = ("seqs", "locs", "lens", "keys", "head", "live")

    def __init__(self) -> None:
        self.seqs = array("q")
        self.locs = array("q")
        self.lens = array("L")
        self.keys = (array("L"), array("L"), array("L"))      # MsgId, CorrelId, GroupId hashes
        self.head = 0
        self.live = 0

    def columns(self) -> tuple[array[int], ...]:
        return (self.seqs, self.locs, self.lens, *self.keys)


class _Segment:
    __slots__ = ("fd", "path", "size", "live")

    def __init__(self, fd: int, path: str) -> None:
        self.fd = fd
        self.path = path
        self.size = 0            # bytes of records, written or waiting in the buffer
        self.live = 0            # records in it still on a queue


def _writev_whole(fd: int, parts: list[bytes], at: int) -> int:
    """``parts`` written at ``at`` whole (their length), or OSError: a ``pwritev`` on a disk
    filling up writes what fits and says so, and the records after a short write would be read
    back from where they are not."""
    want = sum(map(len, parts))
    n = os.pwritev(fd, parts, at)
    done = n
    while done < want:
        if n <= 0:
            raise OSError(errno.ENOSPC, "no room for the scratch log's records")
        skip, rest = done, []
        for p in parts:                                   # (rare: what the short write left)
            if skip >= len(p):
                skip -= len(p)
                continue
            rest.append(p[skip:] if skip else p)
            skip = 0
        parts = rest
        n = os.pwritev(fd, parts, at + done)
        done += max(n, 0)
    return done


class ScratchLog:
    def __init__(self, path: str | None = None) -> None:
        """``path``: the directory of the segment files, emptied now (None: a temporary one)."""
        self._path = path
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if path is not None:
            shutil.rmtree(path, ignore_errors=True)
        self._lanes: dict[str, dict[int, _Lane]] = {}
        self._by_id: set[str] = set()     # queues read by identifier: their lanes' keys are kept
        self._segments: dict[int, _Segment] = {}
        self._cur: _Segment | None = None
        self._cur_no = -1
        self._parts: list[bytes] = []   # records of the current segment not yet written, in pieces
        self._flushed = 0            # offset in the current segment where they begin
        self.live = 0                # messages in the log

    # --- writing ------------------------------------------------------------------------------
    def _directory(self) -> str:
        if self._path is None:
            if self._tmp is None:
                self._tmp = tempfile.TemporaryDirectory(prefix="mqlite-scratch-")
            return self._tmp.name
        os.makedirs(self._path, exist_ok=True)
        return self._path

    def _next_segment(self) -> _Segment:
        """The current segment is full (or there is none): start the next."""
        self._write()
        self._cur_no += 1
        path = os.path.join(self._directory(), f"{self._cur_no:08d}.seg")
        cur = self._cur = _Segment(os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600), path)
        self._segments[self._cur_no] = cur
        self._flushed = 0
        return cur

    def _write(self) -> None:
        """Write the waiting records: one system call per IOV_MAX pieces, no copy into one buffer."""
        parts = self._parts
        if parts and self._cur is not None:
            for i in range(0, len(parts), _IOV_MAX):
                self._flushed += _writev_whole(self._cur.fd, parts[i:i + _IOV_MAX], self._flushed)
            parts.clear()

    def spill(self, queue: str, rows: list[tuple[int, int, bytes, bytes, float | None]]) -> None:
        """Append nonpersistent messages (position, priority, packed MQMD, data, expiry)."""
        lanes = self._lanes.setdefault(queue, {})
        by_id = queue in self._by_id
        late: dict[int, list[tuple[int, int, int, tuple[int, ...]]]] | None = None   # by lane: rows before its last
        parts = self._parts
        for seq, prio, md, body, expiry in rows:
            size = _HEAD.size + len(md) + len(body)
            seg = self._cur
            if seg is None or (seg.size and seg.size + size > SEGMENT):
                seg = self._next_segment()
            loc = self._cur_no << 32 | seg.size
            parts += (_HEAD.pack(len(md), math.nan if expiry is None else expiry) + md, body)
            seg.size += size
            seg.live += 1
            lane = lanes.get(prio)
            if lane is None:
                lane = lanes[prio] = _Lane()
            hashes = tuple(id_hash(md[at]) for at in _IDS) if by_id else ()
            lane.live += 1
            self.live += 1
            if lane.seqs and seq <= lane.seqs[-1]:
                if late is None:
                    late = {}
                late.setdefault(prio, []).append((seq, loc, size, hashes))   # a late commit, a new layout
                continue
            lane.seqs.append(seq)
            lane.locs.append(loc)
            lane.lens.append(size)
            if by_id:
                for keys, h in zip(lane.keys, hashes):
                    keys.append(h)
        if self._cur is not None and (self._cur.size - self._flushed >= WRITE_CHUNK or len(parts) >= _IOV_MAX):
            self._write()
        if late is not None:
            for prio, entries in late.items():
                self._place(lanes[prio], entries)

    def _place(self, lane: _Lane, entries: list[tuple[int, int, int, tuple[int, ...]]]) -> None:
        """Rows that belong before the lane's last (position, location, length, hashes): a few are
        put in their places (a search and an insert in each column, in C), many are appended and
        the lane sorted once. (Sorting the lane for each late row made a unit of work committed
        behind another past the buffer cost the square of its size: issue 68.)"""
        if len(entries) * PLACE_RATIO > len(lane.seqs) - lane.head:
            for seq, loc, size, hashes in entries:
                lane.seqs.append(seq)
                lane.locs.append(loc)
                lane.lens.append(size)
                for keys, h in zip(lane.keys, hashes):
                    keys.append(h)
            self._sort(lane)
            return
        keyed = bool(entries[0][3]) and len(lane.keys[0]) == len(lane.seqs)
        seqs, locs = lane.seqs, lane.locs
        for seq, loc, size, hashes in entries:
            i = j = bisect_left(seqs, seq, lane.head)
            while j < len(seqs) and seqs[j] == seq and locs[j] == -1:
                j += 1                       # (taken out: dead entries of the same position)
            if j < len(seqs) and seqs[j] == seq:
                self._kill(lane, j)          # spilled again: the later one stays, in the same place
                locs[j], lane.lens[j] = loc, size
                if keyed:
                    for keys, h in zip(lane.keys, hashes):
                        keys[j] = h
                continue
            seqs.insert(i, seq)
            locs.insert(i, loc)
            lane.lens.insert(i, size)
            if keyed:
                for keys, h in zip(lane.keys, hashes):
                    keys.insert(i, h)

    def _sort(self, lane: _Lane) -> None:
        """Put a lane's live entries in position order again; of two with one position (spilled
        again), the later one stays."""
        cols = [c for c in lane.columns() if len(c) == len(lane.seqs)]     # keys: only if kept
        latest: dict[int, int] = {}
        for i in range(lane.head, len(lane.seqs)):
            if lane.locs[i] != -1:
                old = latest.get(lane.seqs[i])
                if old is not None:
                    self._kill(lane, old)
                latest[lane.seqs[i]] = i
        order = sorted(latest.values(), key=lane.seqs.__getitem__)
        for col in cols:
            col[:] = array(col.typecode, [col[i] for i in order])
        lane.head = 0

    # --- reading ------------------------------------------------------------------------------
    def _read(self, lane: _Lane, picked: Sequence[int]) -> list[StoredRow]:
        """The records of entries ``picked`` (indexes into the lane), read in as few calls as
        the file layout allows: entries next to each other in one segment are read at once."""
        out: list[StoredRow] = []
        locs, lens, seqs = lane.locs, lane.lens, lane.seqs
        unpack_head, head = _HEAD.unpack_from, _HEAD.size
        n, k = len(picked), 0
        while k < n:
            i = picked[k]
            no, off = locs[i] >> 32, locs[i] & 0xFFFFFFFF
            end, j = off + lens[i], k + 1
            while j < n and locs[picked[j]] == (no << 32 | end):
                end += lens[picked[j]]
                j += 1
            data = self._bytes(no, off, end - off)      # (slices of bytes are bytes: one copy each)
            at = 0
            for m in range(k, j):
                e = picked[m]
                mdlen, expiry = unpack_head(data, at)
                body_at = at + head + mdlen
                md = data[at + head:body_at]
                at += lens[e]
                out.append(StoredRow(seqs[e], md, data[body_at:at],
                                     None if expiry != expiry else expiry, 0, False))     # (NaN: none)
            k = j
        return out

    def _bytes(self, no: int, off: int, size: int) -> bytes:
        if no == self._cur_no and off + size > self._flushed:     # not all written yet
            self._write()
        return os.pread(self._segments[no].fd, size, off)

    def _lane(self, queue: str, prio: int) -> _Lane | None:
        lanes = self._lanes.get(queue)
        return lanes.get(prio) if lanes else None

    def _runs(self, queue: str, prios: tuple[int, ...],
              pick: Callable[[_Lane], Sequence[int]]) -> list[list[StoredRow]]:
        """Per priority lane with live entries, the records of the entries ``pick`` chooses."""
        runs = []
        for prio in prios:
            lane = self._lane(queue, prio)
            if lane is not None and lane.live:
                picked = pick(lane)
                if picked:
                    runs.append(self._read(lane, picked))
        return runs

    def page(self, queue: str, prios: tuple[int, ...], after: int, before: int | None,
             limit: int) -> list[list[StoredRow]]:
        """Per priority, up to ``limit`` messages with positions in (after, before), in order."""
        def pick(lane: _Lane) -> Sequence[int]:
            seqs, locs = lane.seqs, lane.locs
            i, n = bisect_right(seqs, after, lane.head), len(seqs)
            if before is None and -1 not in locs[i:i + limit]:
                return range(i, min(n, i + limit))      # (a queue's head read back: all live, in order)
            picked: list[int] = []
            while i < n and len(picked) < limit and (before is None or seqs[i] < before):
                if locs[i] != -1:
                    picked.append(i)
                i += 1
            return picked
        return self._runs(queue, prios, pick)

    def find(self, queue: str, prios: tuple[int, ...], after: int, column: int, ident: bytes,
             limit: int) -> list[list[StoredRow]]:
        """Per priority, up to ``limit`` messages after ``after`` whose identifier ``column`` (0
        MsgId, 1 CorrelId, 2 GroupId) hashes as ``ident`` does (the caller matches exactly)."""
        key = id_hash(ident)
        if queue not in self._by_id:
            self._keep_keys(queue)

        def pick(lane: _Lane) -> list[int]:
            keys, locs = lane.keys[column], lane.locs
            i = bisect_right(lane.seqs, after, lane.head)
            picked: list[int] = []
            while len(picked) < limit:
                try:
                    i = keys.index(key, i)
                except ValueError:
                    break
                if locs[i] != -1:
                    picked.append(i)
                i += 1
            return picked
        return self._runs(queue, prios, pick)

    def _keep_keys(self, queue: str) -> None:
        """The queue is read by identifier: hash its spilled messages' identifiers now (read back
        from the log, once) and every later one's as it is spilled. A queue only ever read in order
        never pays for them."""
        self._by_id.add(queue)
        for lane in self._lanes.get(queue, {}).values():
            live = [i for i in range(len(lane.seqs)) if lane.locs[i] != -1]
            hashes = {i: [id_hash(row.md[at]) for at in _IDS] for i, row in zip(live, self._read(lane, live))}
            for c, keys in enumerate(lane.keys):
                keys[:] = array("L", [hashes[i][c] if i in hashes else 0 for i in range(len(lane.seqs))])

    def last_below(self, queue: str, prios: tuple[int, ...], after: int, before: int,
                   gone: set[int]) -> int | None:
        best = None
        for prio in prios:
            lane = self._lane(queue, prio)
            if lane is None or not lane.live:
                continue
            seqs, locs = lane.seqs, lane.locs
            j = bisect_left(seqs, before, lane.head) - 1
            while j >= lane.head and seqs[j] > after:
                if locs[j] != -1 and seqs[j] not in gone:
                    best = seqs[j] if best is None else max(best, seqs[j])
                    break
                j -= 1
        return best

    def counts(self, queue: str) -> dict[int, int]:
        return {prio: lane.live for prio, lane in self._lanes.get(queue, {}).items() if lane.live}

    # --- taking out ---------------------------------------------------------------------------
    def _kill(self, lane: _Lane, i: int) -> None:
        no = lane.locs[i] >> 32
        lane.locs[i] = -1
        lane.live -= 1
        self.live -= 1
        self._release(no, 1)

    def _release(self, no: int, n: int) -> None:
        """``n`` records of segment ``no`` are no longer on a queue."""
        seg = self._segments[no]
        seg.live -= n
        if not seg.live:
            if no == self._cur_no:           # rewound: nothing in it is on a queue
                self._parts.clear()
                self._flushed = seg.size = 0
            else:
                os.close(seg.fd)
                os.remove(seg.path)
                del self._segments[no]

    def _tidy(self, queue: str, prio: int, lane: _Lane) -> None:
        seqs, locs = lane.seqs, lane.locs
        n, h = len(seqs), lane.head
        while h < n and locs[h] == -1:
            h += 1
        lane.head = h
        if not lane.live:
            del self._lanes[queue][prio]
            if not self._lanes[queue]:
                del self._lanes[queue]
        elif h >= TRIM and 2 * h >= n:
            for col in lane.columns():
                del col[:h]
            lane.head = 0

    def unspill(self, queue: str, prio: int, seqs: list[int]) -> None:
        """Messages taken out one at a time (a get by identifier, an expiry)."""
        lane = self._lane(queue, prio)
        if lane is None:
            return
        for seq in seqs:
            i = bisect_left(lane.seqs, seq, lane.head)
            if i < len(lane.seqs) and lane.seqs[i] == seq and lane.locs[i] != -1:
                self._kill(lane, i)
        self._tidy(queue, prio, lane)

    def unspill_range(self, queue: str, prios: tuple[int, ...], after: int, upto: int) -> None:
        """The messages of a lane with positions in (after, upto] were read into memory."""
        for prio in prios:
            lane = self._lane(queue, prio)
            if lane is None:
                continue
            seqs, locs = lane.seqs, lane.locs
            i = bisect_right(seqs, after, lane.head)
            j = bisect_right(seqs, upto, i)
            run = locs[i:j]
            if run and -1 not in run and min(run) >> 32 == max(run) >> 32:
                # A page read back from the head: all live, in one segment, marked in one go.
                no = run[0] >> 32
                locs[i:j] = array("q", [-1]) * (j - i)
                lane.live -= j - i
                self.live -= j - i
                self._release(no, j - i)
                self._tidy(queue, prio, lane)
                continue
            per_segment: dict[int, int] = {}
            killed = 0
            for k in range(i, j):
                loc = locs[k]
                if loc != -1:
                    locs[k] = -1
                    per_segment[loc >> 32] = per_segment.get(loc >> 32, 0) + 1
                    killed += 1
            lane.live -= killed
            self.live -= killed
            for no, k in per_segment.items():
                self._release(no, k)
            self._tidy(queue, prio, lane)

    def unspill_queue(self, queue: str) -> None:
        for prio, lane in list(self._lanes.get(queue, {}).items()):
            for i in range(lane.head, len(lane.seqs)):
                if lane.locs[i] != -1:
                    self._kill(lane, i)
            self._tidy(queue, prio, lane)
        self._by_id.discard(queue)

    def files(self) -> list[str]:
        """The segment files the log has now (for tests and operations)."""
        return [seg.path for seg in self._segments.values()]

    def close(self) -> None:
        for seg in self._segments.values():
            os.close(seg.fd)
        self._segments.clear()
        self._lanes.clear()
        self._parts.clear()
        if self._tmp is not None:
            self._tmp.cleanup()
        elif self._path is not None:
            shutil.rmtree(self._path, ignore_errors=True)
