"""The queue manager's recovery log: what makes a commit durable, with ``qmgr.db`` brought up to
date behind it (docs/design.md, "The recovery log").

A commit (one group-commit batch of journal operations) is one *frame* appended to the active
extent of the log and one ``fdatasync``: a few kilobytes written in order, however many queues the
operations touch. The rows of ``qmgr.db`` are written behind it by the ``Applier`` thread, a run of
frames at a time in one SQLite transaction that also records the last frame it covers
(``meta.log_applied``); an extent whose frames are all applied is deleted. Opening the store
applies the frames after ``log_applied`` before anything is read, so recovery sees what every
acknowledged commit did.

Layout (little-endian): each extent ``S<n>.LOG`` begins with ``MQLX``, a version, a random salt,
the LSN of its first frame, the bytes the extent was made durable with (its zeros written ahead of
the frames and synced before any frame: a crash never shortens it) and a CRC-32 of the header; a
frame is ``MQLF``, the payload's length, its LSN (frames are numbered
from 1 with no gap), a CRC-32 of the LSN and payload seeded with the extent's salt, then the payload:
the operations, each ``(tag, *fields)``, in ``marshal``'s format. A frame cut short by a crash was
never acknowledged (its ``fdatasync`` did not return) and is dropped. Beside the directory, the log
control file (``<dir>.ctl``, MQ's ``amqhlctl.lfh``) names the extents the log holds, rewritten (and
synced) before an extent is begun, released or dropped. ``damage`` reads all this as MQ reads its
log at restart: a broken frame with intact ones after it, an extent shorter than its header says,
a damaged header, a gap in the LSNs, or an extent the control file names that is not there are
each acknowledged work lost, which strmqm refuses (AMQ7017S) as it does a damaged WAL.
"""
from __future__ import annotations

import errno
import json
import os
import secrets
import struct
import threading
import time
import zlib
from collections import deque
from itertools import islice
from typing import Callable, Iterator

from mqlite.engine.ports import JournalOp, PutMsg
from mqlite.store.frames import Removals, cancelled, decode, encode

__all__ = ["Applier", "RecoveryLog", "Removals", "cancelled", "decode", "encode"]

EXTENT_HEADER = struct.Struct("<4sIIQQI")    # magic, version, salt, first LSN, bytes made durable, CRC-32
OLD_HEADER = struct.Struct("<4sIIQ")         # version 1 (before the size and CRC): read, not written
FRAME_HEADER = struct.Struct("<4sIQI")       # magic, payload length, LSN, CRC-32
VERSION = 2
CONTROL = struct.Struct("<4sII")             # the control file: magic, version, CRC-32 of the JSON after it
EXTENT_BYTES = 4 << 20       # an extent is made this long (zeros) when begun, and a new one begun once
                             # the active one's frames reach it (the old one goes once applied: the
                             # log holds what qmgr.db lacks, not a history)
FILL_BYTES = 1 << 20         # zeros written ahead of a frame that runs past it (see append)
BEHIND_OPS = 50_000          # the writer waits while the applier is this far behind ...
BEHIND_BYTES = 64 << 20      # ... or holds this many bytes of message data not yet in qmgr.db
RETRY_SECONDS = 0.5
APPLY_DELAY = 1.0            # a frame waits this long before its rows are written (a message put and got
                             # meanwhile is never written there: ``cancelled``), the applier running at
APPLY_EVERY = 0.05           # most this often (one SQLite commit for many frames) ...
APPLY_OPS = 20_000           # ... unless this many operations wait, or this many bytes of message
APPLY_BYTES = 16 << 20       # data, or a reader needs them now
IDLE_SHRINK = 10.0           # an applier with nothing to apply this long after a run gives memory back (on_idle)


def _crc(salt: int, lsn: int, payload: bytes) -> int:
    return zlib.crc32(payload, zlib.crc32(lsn.to_bytes(8, "little"), salt))


class _Extent:
    __slots__ = ("path", "salt", "first", "last", "declared")

    def __init__(self, path: str, salt: int, first: int, declared: int) -> None:
        self.path, self.salt, self.first, self.last = path, salt, first, first - 1
        self.declared = declared     # the bytes its header says are durable


def _extent_header(salt: int, first: int, declared: int) -> bytes:
    fields = struct.pack("<4sIIQQ", b"MQLX", VERSION, salt, first, declared)
    return fields + struct.pack("<I", zlib.crc32(fields))


def _name(first: int) -> str:
    return f"S{first:010d}.LOG"


class RecoveryLog:
    """The extents of one store's log, in a directory of their own, and its control file."""

    def __init__(self, directory: str) -> None:
        self.dir = directory
        self.control = directory + ".ctl"
        os.makedirs(directory, mode=0o700, exist_ok=True)
        self._fd = -1
        self._size = 0               # the end of the active extent's last frame
        self._filled = 0             # its bytes written (zeros ahead of the frames)
        self._active: _Extent | None = None
        self._extents: list[_Extent] = []      # written by this run, oldest first
        # The writer (a new extent) and the applier (releasing old ones) both rewrite the control
        # file from the list: one at a time, or one's rename finds the other's file gone and the
        # file may name a list that never was.
        self._naming = threading.Lock()
        self.next_lsn = 1

    def _paths(self) -> list[str]:
        names = sorted(n for n in os.listdir(self.dir) if n.startswith("S") and n.endswith(".LOG"))
        return [os.path.join(self.dir, n) for n in names]

    # --- reading back (at open) -------------------------------------------------------------------
    def _scan(self) -> Iterator[tuple[str, int, list[JournalOp] | None]]:
        """(path, LSN, operations) of every intact frame in order; at the first broken one,
        (path, offset, None) and no more."""
        expect: int | None = None
        paths = self._paths()
        for i, path in enumerate(paths):
            with open(path, "rb") as f:
                data = f.read()
            header = self._header(data)
            if header is None or (expect is not None and header[1] != expect):
                yield path, 0, None
                return
            salt, expect, _declared, at = header
            while at < len(data):
                ops = self._frame(data, at, salt, expect)
                if ops is None:
                    break
                yield path, expect, ops
                at += FRAME_HEADER.size + FRAME_HEADER.unpack_from(data, at)[1]
                expect += 1
            # An extent's frames end where the next extent begins (its first LSN is the next one:
            # the rest of this one is the zeros filled ahead); anywhere else is a break.
            if at < len(data) and not (i + 1 < len(paths) and self._first(paths[i + 1]) == expect):
                yield path, at, None
                return

    @staticmethod
    def _header(data: bytes) -> tuple[int, int, int, int] | None:
        """(salt, first LSN, bytes declared durable (0: not said), where the frames begin) of an
        extent's bytes, or None if they do not begin with an intact header."""
        if len(data) >= EXTENT_HEADER.size:
            magic, version, salt, first, declared, crc = EXTENT_HEADER.unpack_from(data)
            if magic == b"MQLX" and version == VERSION and zlib.crc32(data[:EXTENT_HEADER.size - 4]) == crc:
                return salt, first, declared, EXTENT_HEADER.size
        if len(data) >= OLD_HEADER.size:
            magic, version, salt, first = OLD_HEADER.unpack_from(data)
            if magic == b"MQLX" and version == 1:
                return salt, first, 0, OLD_HEADER.size
        return None

    def _first(self, path: str) -> int | None:
        with open(path, "rb") as f:
            header = self._header(f.read(EXTENT_HEADER.size))
        return None if header is None else header[1]

    @staticmethod
    def _frame(data: bytes, at: int, salt: int, lsn: int | None) -> list[JournalOp] | None:
        if at + FRAME_HEADER.size > len(data):
            return None
        magic, length, got, crc = FRAME_HEADER.unpack_from(data, at)
        payload = data[at + FRAME_HEADER.size:at + FRAME_HEADER.size + length]
        if magic != b"MQLF" or len(payload) != length or (lsn is not None and got != lsn) \
                or _crc(salt, got, payload) != crc:
            return None
        try:
            return decode(payload)
        except (ValueError, EOFError, TypeError, IndexError):
            return None

    def frames(self) -> Iterator[tuple[int, list[JournalOp]]]:
        """Every intact frame, in order, up to the first broken one (a write cut short by a crash:
        it was never acknowledged)."""
        for _path, lsn, ops in self._scan():
            if ops is None:
                return
            yield lsn, ops

    def listed(self) -> list[int] | None:
        """The first LSNs of the extents the control file names; None if there is no control file
        (a log made before it); ValueError if it is damaged."""
        try:
            with open(self.control, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return None
        if len(data) < CONTROL.size:
            raise ValueError("the log control file is cut short")
        magic, version, crc = CONTROL.unpack_from(data)
        body = data[CONTROL.size:]
        if magic != b"MQLC" or version != 1 or zlib.crc32(body) != crc:
            raise ValueError("the log control file is damaged")
        firsts = json.loads(body)["extents"]
        return [int(n) for n in firsts]

    def damage(self) -> str | None:
        """Why the log lost acknowledged work, or None. MQ's rules for its log at restart: a frame
        broken with intact frames of the same log after it; an extent with a damaged header, or
        shorter than the bytes its header says were made durable (cut short: its frames past the
        cut are gone); an extent the control file names that is not there. A frame torn by the
        crash (the last, never acknowledged) and a header never finished (a crash as an extent was
        begun, before any frame: zeros) are not damage."""
        paths = self._paths()
        try:
            listed = self.listed()
        except ValueError as e:
            return str(e)
        present = {os.path.basename(p) for p in paths}
        named = {_name(first) for first in listed or ()}
        missing = sorted(named - present)
        if missing:
            return f"log extent {missing[0]} is missing (the log control file names it)"
        for path in paths:
            with open(path, "rb") as f:
                data = f.read()
            header = self._header(data)
            if header is None:
                if os.path.basename(path) in named or data.count(0) != len(data):
                    return f"log extent {os.path.basename(path)} has a damaged header"
                continue
            if len(data) < header[2]:
                return (f"log extent {os.path.basename(path)} is cut short: {len(data)} of the {header[2]} "
                        "bytes written to it remain")
        for path, at, ops in self._scan():
            if ops is not None:
                continue
            if path != paths[-1]:
                return f"log extent {os.path.basename(path)} is broken at byte {at} and later extents follow it"
            with open(path, "rb") as f:
                data = f.read()
            header = self._header(data)
            if header is None:
                return None
            salt = header[0]
            found = data.find(b"MQLF", at + 1)
            while found != -1:
                if self._frame(data, found, salt, None) is not None:
                    return (f"log extent {os.path.basename(path)} is broken at byte {at} and committed "
                            f"frames follow at byte {found}")
                found = data.find(b"MQLF", found + 1)
        return None

    def set_aside(self, suffix: str) -> list[str]:
        """Keep a damaged log's extents beside it (strmqm --accept-damage): renamed, not read."""
        self._record([])
        kept = []
        for path in self._paths():
            os.rename(path, path + suffix)
            kept.append(path + suffix)
        return kept

    # --- writing ------------------------------------------------------------------------------------
    def _record(self, firsts: list[int]) -> None:
        """Write the control file naming the extents ``firsts`` (their first LSNs), durably (a new
        file renamed over the old; the directory synced)."""
        body = json.dumps({"extents": firsts}).encode()
        tmp = self.control + ".tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            _write_whole(fd, CONTROL.pack(b"MQLC", 1, zlib.crc32(body)) + body, 0)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.control)
        self._sync_dir(os.path.dirname(self.control) or ".")

    def reset(self, next_lsn: int) -> None:
        """Everything in the log is in qmgr.db: drop its extents; the next frame is ``next_lsn``."""
        self._close_active()
        self._record([])
        for path in self._paths():
            os.unlink(path)
        self._extents.clear()
        self.next_lsn = next_lsn
        self._sync_dir()

    def append(self, ops: list[JournalOp]) -> int:
        """Write ``ops`` as the next frame and make it durable; its LSN. On an error (a full disk)
        the frame's bytes are taken back (zeros within what the header declares, cut off past it)
        and the error raised: the frame was not written."""
        if self._active is None or self._size >= EXTENT_BYTES:
            self._begin(self.next_lsn)
        active = self._active
        assert active is not None
        lsn = self.next_lsn
        payload = encode(ops)
        frame = FRAME_HEADER.pack(b"MQLF", len(payload), lsn, _crc(active.salt, lsn, payload)) + payload
        start = self._size
        if start + len(frame) > self._filled:
            self._fill(start + len(frame))
        try:
            _write_whole(self._fd, frame, start)
            os.fdatasync(self._fd)
        except OSError:
            keep = max(start, active.declared)
            try:
                if start < keep:
                    os.pwrite(self._fd, bytes(min(len(frame), keep - start)), start)
                os.ftruncate(self._fd, keep)
            except OSError:
                pass
            self._filled = keep
            raise
        self._size = start + len(frame)
        self._filled = max(self._filled, self._size)
        active.last = lsn
        self.next_lsn = lsn + 1
        return lsn

    def _fill(self, need: int) -> None:
        """Zeros past ``need`` for a frame that runs past what the extent was made with, synced, and
        the header then says so (made durable with the frame): a frame overwrites blocks the file
        already has, and its fdatasync has no allocation or size to record (108 µs here against 171
        µs appending). On a disk too full for them the frame is appended instead (the header still
        saying the shorter length: a cut there is not seen)."""
        active = self._active
        assert active is not None
        end = max(need, self._filled) + FILL_BYTES
        try:
            _write_whole(self._fd, bytes(end - self._filled), self._filled)
            os.fdatasync(self._fd)
            self._filled = end
        except OSError:
            keep = max(self._size, active.declared)
            try:
                os.ftruncate(self._fd, keep)
            except OSError:
                pass
            self._filled = keep
            return
        active.declared = end
        os.pwrite(self._fd, _extent_header(active.salt, active.first, end), 0)

    def _begin(self, first: int) -> None:
        """A new extent for frames from ``first``: made EXTENT_BYTES long with zeros (as much as the
        disk has room for) and its header, synced, then named in the control file (a crash between
        leaves an extent with no frame that nothing names: not damage)."""
        self._close_active()
        path = os.path.join(self.dir, _name(first))
        salt = secrets.randbits(32)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            try:
                _write_whole(fd, bytes(EXTENT_BYTES - EXTENT_HEADER.size), EXTENT_HEADER.size)
                declared = EXTENT_BYTES
            except OSError:
                os.ftruncate(fd, EXTENT_HEADER.size)
                declared = EXTENT_HEADER.size
            os.pwrite(fd, _extent_header(salt, first, declared), 0)
            os.fsync(fd)
        except OSError:
            os.close(fd)
            os.unlink(path)
            raise
        self._sync_dir()
        with self._naming:
            self._record([e.first for e in self._extents] + [first])
            self._fd, self._size = fd, EXTENT_HEADER.size
            self._filled = declared
            self._active = _Extent(path, salt, first, declared)
            self._extents.append(self._active)

    def releasable(self, applied: int) -> bool:
        """Has an extent (not the active one) all its frames in qmgr.db (``applied``)?"""
        return len(self._extents) > 1 and self._extents[0].last <= applied

    def release(self, applied: int) -> None:
        """Extents whose frames are all in qmgr.db (``applied``, made durable), but the active one,
        go: first from the control file, then from the directory."""
        with self._naming:
            n = 0
            while n < len(self._extents) - 1 and self._extents[n].last <= applied:
                n += 1
            if not n:
                return
            gone, self._extents = self._extents[:n], self._extents[n:]
            self._record([e.first for e in self._extents])
        for extent in gone:
            os.unlink(extent.path)
        self._sync_dir()

    def _close_active(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
        self._fd, self._active = -1, None

    def _sync_dir(self, directory: str | None = None) -> None:
        fd = os.open(directory or self.dir, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def close(self) -> None:
        self._close_active()


def _write_whole(fd: int, data: bytes, at: int) -> None:
    """``data`` written at ``at`` whole, or OSError: a frame, an extent's zeros, the control file.
    A ``pwrite`` on a disk filling up writes what fits and says how much (only the next one fails
    with ENOSPC): an extent's zeros taken as written whole then, its header said it was made
    longer than it is, and after a crash the shorter file read as a log cut short (AMQ7017S); a
    control file cut so would read as damaged."""
    view = memoryview(data)
    while view:
        n = os.pwrite(fd, view, at)
        if n <= 0:
            raise OSError(errno.ENOSPC, "no room on the disk for the recovery log")
        view, at = view[n:], at + n


class Applier:
    """The thread that writes logged frames into qmgr.db, in order, a run of frames per SQLite
    transaction (``apply(ops, last_lsn)``); ``release(lsn)`` is told each LSN that became
    applied, ``on_error(why)`` when applying fails and (``""``) when it works again. Until a frame is applied its operations are here (``unapplied``): the pager adds
    the puts among them to what it reads from qmgr.db."""

    def __init__(self, apply: Callable[[list[JournalOp], int], None], release: Callable[[int], None],
                 on_error: Callable[[str], None], on_idle: Callable[[], None] | None = None) -> None:
        self._apply, self._release, self._on_error, self._on_idle = apply, release, on_error, on_idle
        self._ran = False            # a run applied since the last on_idle
        self._cv = threading.Condition()
        self._queue: deque[tuple[int, list[JournalOp], int, float]] = deque()    # (LSN, ops, weight, when)
        self._ops = 0
        self._bytes = 0
        self._puts: dict[str, deque[PutMsg]] = {}    # per queue, the puts not yet applied, in order
        self._later = Removals()     # what the frames waiting remove (less the run being applied)
        self.gather_bytes = APPLY_BYTES   # message data let gather (the store lowers it on a small disk)
        self._last = 0.0             # when the last run was applied
        self._thread: threading.Thread | None = None
        self._stop = False
        self._hurry = 0              # settle() callers waiting: apply at once
        self._idle = False           # the thread waits for any frame at all
        self.closing = False         # the queue manager is ending: a failing write is not retried
        self.failed = ""             # why the last apply failed, until one succeeds

    def hand(self, lsn: int, ops: list[JournalOp]) -> None:
        """Frame ``lsn`` (``ops``) is durable in the log: apply it."""
        weight = 0
        with self._cv:
            puts = self._puts
            for op in ops:
                if type(op) is PutMsg:
                    weight += len(op.md) + len(op.body)
                    waiting = puts.get(op.queue)
                    if waiting is None:
                        waiting = puts[op.queue] = deque()
                    waiting.append(op)
                else:
                    weight += 64
            self._queue.append((lsn, ops, weight, time.monotonic()))
            self._later.add(ops)
            self._ops += len(ops)
            self._bytes += weight
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="log-applier", daemon=True)
                self._thread.start()
            if self._idle or self._ops >= APPLY_OPS or self._bytes >= self.gather_bytes:
                self._cv.notify_all()        # (gathering frames, it is woken only when there are enough)

    def wait_room(self) -> None:
        """(The log's writer, before it takes more.) Wait while qmgr.db is too far behind."""
        with self._cv:
            while (self._ops > BEHIND_OPS or self._bytes > BEHIND_BYTES) and not self._stop and not self.closing \
                    and (self._thread is None or self._thread.is_alive()):
                self._cv.wait(RETRY_SECONDS)

    def unapplied(self, queue: str) -> list[PutMsg]:
        """The puts for ``queue`` not yet applied, in order."""
        with self._cv:
            return list(self._puts.get(queue, ()))

    @property
    def behind_bytes(self) -> int:
        """Message data in frames not yet applied."""
        return self._bytes

    @property
    def idle(self) -> bool:
        return not self._queue

    def settle(self) -> bool:
        """Wait until everything handed over is in qmgr.db; False if the applier stopped first
        (its frames stay in the log, for the next start to apply)."""
        with self._cv:
            self._hurry += 1
            self._cv.notify_all()
            try:
                while self._queue and not self._stop and not (self.closing and self.failed) \
                        and self._thread is not None and self._thread.is_alive():
                    self._cv.wait(RETRY_SECONDS)
            finally:
                self._hurry -= 1
            return not self._queue

    def stop(self) -> bool:
        """Apply what is left and end the thread; True if everything was applied."""
        done = self.settle()
        with self._cv:
            self._stop = True
            self._cv.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(10)
        return done

    def _pressed(self) -> bool:
        """(Lock held.) Frames are to be applied now, whatever their age."""
        return bool(self._hurry or self._stop or self._ops >= APPLY_OPS or self._bytes >= self.gather_bytes)

    def _take(self) -> int:
        """(Lock held.) How many of the oldest frames the next run applies: all of them for a
        reader or an end; else those that have waited APPLY_DELAY, and more while what would be
        left is over half the limits. The younger ones wait on: a message they put may yet be got
        (``cancelled``), and a removal among them still spares an older frame's put its row."""
        if self._hurry or self._stop:
            return len(self._queue)
        cut = time.monotonic() - APPLY_DELAY
        n, ops, size = 0, self._ops, self._bytes
        for _lsn, o, w, at in self._queue:
            if at > cut and ops < APPLY_OPS // 2 and size < self.gather_bytes // 2:
                break
            n, ops, size = n + 1, ops - len(o), size - w
        return max(n, 1)

    def _loop(self) -> None:
        while True:
            with self._cv:
                self._idle = True
                while not self._queue and not self._stop:
                    if not self._ran or self._on_idle is None:
                        self._cv.wait()
                    elif not self._cv.wait(IDLE_SHRINK) and not self._queue and not self._stop:
                        self._ran = False    # nothing came for IDLE_SHRINK after a run: give memory back,
                        self._cv.release()   # without the lock (the log's writer hands frames meanwhile)
                        try:
                            self._on_idle()
                        finally:
                            self._cv.acquire()
                self._idle = False
                if not self._queue:
                    return
                # One SQLite commit per run of frames, not per frame: its cost (the B-tree pages
                # and WAL frames written) is shared by everything in it. A run begins once the
                # oldest frame has waited APPLY_DELAY and APPLY_EVERY has passed since the last
                # (or too much waits, or a reader needs it): a steady load is applied in small
                # runs, each a second behind, and not in bursts that make the log's fsyncs wait.
                while not self._pressed():
                    left = max(self._queue[0][3] + APPLY_DELAY, self._last + APPLY_EVERY) - time.monotonic()
                    if left <= 0:
                        break
                    self._cv.wait(left)
                n = self._take()
                batch = list(islice(self._queue, n))
                for _lsn, o, _w, _at in batch:
                    self._later.drop(o)      # (frames handed meanwhile join it: later still)
            ops = cancelled([op for _lsn, o, _w, _at in batch for op in o], self._later)
            top = batch[-1][0]
            try:
                self._apply(ops, top)
            except Exception as e:       # SQLITE_FULL, an I/O error: the frames stay in the log
                self.failed = str(e) or repr(e)      # (never "": that says it works again)
                self._on_error(self.failed)
                with self._cv:
                    for _lsn, o, _w, _at in batch:
                        self._later.add(o)   # (waiting again)
                    if self.closing or self._stop:
                        self._cv.notify_all()
                        return
                time.sleep(RETRY_SECONDS)
                continue
            with self._cv:
                puts = self._puts
                for _ in batch:
                    _lsn, o, w, _at = self._queue.popleft()
                    self._ops -= len(o)
                    self._bytes -= w
                    for op in o:
                        if type(op) is PutMsg:
                            waiting = puts[op.queue]
                            waiting.popleft()
                            if not waiting:
                                del puts[op.queue]
                self._cv.notify_all()
            self._last = time.monotonic()
            self._ran = True
            if self.failed:
                self.failed = ""
                self._on_error("")
            try:
                self._release(top)
            except OSError as e:
                # The extents are kept until a later release succeeds; the applier goes on (a
                # thread that ended here left every writer waiting in wait_room for ever).
                self._on_error(f"releasing applied log extents failed: {e}")
