"""Durable state of one queue manager: its recovery log and SQLite (WAL mode), with group commit.

The engine appends *operations* to an in-memory journal while it holds its own lock, so the
journal order is the order the engine made the changes.  ``sync(ticket)`` makes everything up to a
ticket durable: the first caller becomes the leader and writes every pending operation as one
frame of the recovery log (``store/log.py``: one append, one fdatasync); callers that arrive
meanwhile find their ticket covered by the next leader's frame.  The log's applier writes the rows
into SQLite behind it (``settle`` waits for that). Nothing is durable that the engine did not
journal, and a reply to an application is sent only after ``sync`` returned for its ticket. The
in-memory store (engine tests) has no log: its leader writes the rows at once.

Operations are the typed records of ``engine.ports`` (``PutMsg``, ``DelMsg``, ``SetBackout``,
``PurgeQueue``, ``MoveDamaged``, ``SaveObject``, ``DropObject``, ``SaveMeta``, ``SaveChsync``,
``DropChsync``, ``Prepare``, ``Resolve``): each says what it changes, and ``_write`` has one small
method per type. A channel's sync record is written in the same transaction as the unit of work it
describes; a prepared unit keeps its rows until its ``Resolve``.

A full disk loses nothing that was acknowledged. The engine asks :meth:`Store.room` before it
accepts new persistent data (a persistent put, a commit or prepare that writes some): the answer is
no while the free space, less twice what was accepted and not yet written (the WAL and then the
database hold it), would fall below ``reserve``, so the application gets MQRC_RESOURCE_PROBLEM
with nothing changed. If a write fails all the same (another program filled the disk, an I/O
error), its operations are not dropped: the store is *stalled*, refuses new data, and the leader
retries the write until it succeeds; callers waiting on those tickets are answered only then (or,
if the queue manager ends first, never: their connections break and nothing they did was
acknowledged). ``on_state`` tells the server when writing stops and resumes (its error log).
"""
from __future__ import annotations

import heapq
import itertools
import json
import os
import sqlite3
import threading
import time
from typing import Any, Callable, Iterator

from mqlite import memory
from mqlite.engine.ports import (
    JournalOp,
    PutMsg,
)
from mqlite.store.log import APPLY_BYTES, Applier, RecoveryLog, cancelled
from mqlite.store.rows import ID_KEYS, Rows, loaded_md, md_keys

_SCHEMA = """
CREATE TABLE IF NOT EXISTS objects (ns TEXT NOT NULL, name TEXT NOT NULL, rec TEXT NOT NULL,
                                    PRIMARY KEY (ns, name));
CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY, queue TEXT NOT NULL, md BLOB NOT NULL,
                                     body BLOB NOT NULL, expiry_at REAL, backout INTEGER DEFAULT 0, crc INTEGER,
                                     prio INTEGER, msgh INTEGER, corh INTEGER, grph INTEGER, bref INTEGER);
CREATE TABLE IF NOT EXISTS bodies (id INTEGER PRIMARY KEY, body BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS damaged (seq INTEGER, queue TEXT, md BLOB, body BLOB, expiry_at REAL, found REAL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chsync (name TEXT PRIMARY KEY, rec TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS prepared (xid TEXT NOT NULL, at REAL NOT NULL, kind TEXT NOT NULL, seq INTEGER,
                                     queue TEXT, md BLOB, body BLOB, expiry_at REAL);
CREATE INDEX IF NOT EXISTS prepared_xid ON prepared (xid);
"""

# Read back in order a lane at a time, and found by MsgId, CorrelId or GroupId (each a CRC-32 of
# the identifier, none for a null CorrelId or GroupId), for queues deeper than memory.
_INDEXES = """
CREATE INDEX IF NOT EXISTS messages_lane ON messages (queue, prio);
CREATE INDEX IF NOT EXISTS messages_msgh ON messages (msgh);
CREATE INDEX IF NOT EXISTS messages_correlid ON messages (queue, corh) WHERE corh IS NOT NULL;
CREATE INDEX IF NOT EXISTS messages_groupid ON messages (queue, grph) WHERE grph IS NOT NULL;
CREATE INDEX IF NOT EXISTS messages_bref ON messages (bref) WHERE bref IS NOT NULL;
"""

# A body several messages of one write carry (a publication's copies to its durable subscribers)
# is stored once in ``bodies``; their rows name it in ``bref`` and keep an empty ``body``. A reader
# selects this expression for the body. The body goes when the last row naming it does.
PAGE_SIZE = 4096
DEFAULT_RESERVE = 8 << 20     # bytes of free disk a queue manager keeps back (MQLITE_DISK_RESERVE)
RETRY_SECONDS = 0.5           # a stalled write is tried again this often
FREE_EVERY = 0.05             # seconds between readings of the free space after commits (statvfs)


class StoreUnavailable(Exception):
    """A write could not be made durable and the store was closed first: nothing covered by it
    was acknowledged."""


class _Tables:
    """What a store reads back from its tables (at a start: recovery), and its upkeep there."""

    db: sqlite3.Connection
    log: RecoveryLog | None
    _commit: Callable[[list[JournalOp], int], None]

    def objects(self) -> Iterator[tuple[str, str, dict[str, Any]]]:
        for ns, name, rec in self.db.execute("SELECT ns, name, rec FROM objects ORDER BY rowid"):
            yield ns, name, json.loads(rec)

    def message_counts(self) -> dict[str, dict[int, int]]:
        """How many messages the store holds, by queue and priority (recovery reads no message:
        a queue's messages are read back a page at a time as it is served)."""
        out: dict[str, dict[int, int]] = {}
        for queue, prio, n in self.db.execute("SELECT queue, prio, count(*) FROM messages GROUP BY queue, prio"):
            out.setdefault(queue, {})[prio] = n
        return out

    def chsync(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for name, rec in self.db.execute("SELECT name, rec FROM chsync"):
            yield name, json.loads(rec)

    def prepared(self) -> Iterator[tuple[str, float, str, int | None, str | None, bytes | None, bytes | None,
                                         float | None]]:
        yield from self.db.execute("SELECT xid, at, kind, seq, queue, md, body, expiry_at FROM prepared "
                                   "ORDER BY rowid")

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def max_seq(self) -> int:
        row = self.db.execute("SELECT MAX(seq) FROM messages UNION ALL SELECT MAX(seq) FROM prepared").fetchall()
        return max(r[0] or 0 for r in row)

    def _fill_keys(self) -> None:
        """A store made before paging, or with an earlier ``id_key``: fill the priority and
        identifier keys from each stored descriptor (once), and note the version."""
        rows = [(*md_keys(loaded_md(md)), seq) for seq, md in self.db.execute("SELECT seq, md FROM messages")]
        with self.db:
            self.db.executemany("UPDATE messages SET prio=?, msgh=?, corh=?, grph=? WHERE seq=?", rows)
            self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('id_keys', ?)", (ID_KEYS,))

    def _checkpoint(self) -> None:
        """Make every committed row durable in qmgr.db (SQLite syncs the WAL before it copies it)."""
        self.db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def _checkpointed(self) -> bool:
        """``_checkpoint``, or False when SQLite could not (a full disk, an I/O error): then the log
        keeps what the rows came from, and a later checkpoint tries again."""
        try:
            self._checkpoint()
        except (sqlite3.OperationalError, OSError):
            return False
        return True

    def _recover(self) -> None:
        """Apply the log's frames after the last one qmgr.db holds (an end without close: a crash,
        kill -9), a run at a time, each checkpointed (the WAL is reused, not grown by the whole
        log: a small disk has room for this as it had for the queue manager's running), then
        start the log afresh."""
        assert self.log is not None
        # The WAL left by a crash keeps its frames until a checkpoint copies them: before one,
        # recovery's first commit would be appended after them, growing the WAL on a disk that may
        # have room for no more (a consumer's removals are not refused on a full disk). Once copied,
        # SQLite writes the WAL again from its start.
        self._checkpoint()
        applied = int(self.meta("log_applied") or 0)
        top, run = applied, []
        for lsn, ops in self.log.frames():
            if lsn <= applied:
                continue
            run.extend(ops)
            top = lsn
            if len(run) >= 10_000:
                self._commit(cancelled(run), top)
                self._checkpoint()
                run = []
        if run:
            self._commit(cancelled(run), top)
        self._checkpoint()
        self.log.reset(top + 1)


class Store(_Tables):
    threaded = True      # a journal-writer thread takes over writes (MemoryStore: callers only)

    def __init__(self, path: str, synchronous: str = "FULL", reserve: int | None = None) -> None:
        self.path = path
        self._dir = None if path == ":memory:" else os.path.dirname(os.path.abspath(path))
        self.reserve = int(os.environ.get("MQLITE_DISK_RESERVE", DEFAULT_RESERVE)) if reserve is None else reserve
        if self._dir is not None:
            # The data is the owner's alone (MQ's data directories are mqm's): the database and
            # its WAL are created readable and writable by the owner only.
            os.chmod(self._dir, 0o700)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            os.close(fd)
            os.chmod(path, 0o600)
        old_umask = os.umask(0o077)
        try:
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            # SQLite's default 4 KiB pages for a new store: 16 KiB pages held more 1.4 KB rows each
            # (1,553 bytes a message on disk against 2,112) but made every one-message commit write
            # four times the bytes (persistent puts 36% slower); the compressed descriptor gets 4
            # KiB pages to 1,427 bytes (docs/performance.md).
            self.db.execute(f"PRAGMA page_size={PAGE_SIZE}")
            self.db.execute("PRAGMA journal_mode=WAL")
        finally:
            os.umask(old_umask)
        self.db.execute(f"PRAGMA synchronous={synchronous}")
        self.db.executescript(_SCHEMA)
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(messages)")}
        if "crc" not in columns:
            self.db.execute("ALTER TABLE messages ADD COLUMN crc INTEGER")   # a store made before checksums
        if "prio" not in columns:
            for col in ("prio", "msgh", "corh", "grph"):                     # a store made before paging
                self.db.execute(f"ALTER TABLE messages ADD COLUMN {col} INTEGER")
        if "bref" not in columns:
            self.db.execute("ALTER TABLE messages ADD COLUMN bref INTEGER")  # a store made before shared bodies
        self.rows = Rows(self.db.execute("SELECT 1 FROM bodies LIMIT 1").fetchone() is not None)
        if self.meta("id_keys") != ID_KEYS:
            self._fill_keys()
        # The MsgId index was (queue, msgh): a publication's copies to many queues then wrote an
        # index page per queue. Keyed by the identifier alone, generated MsgIds only append to it.
        self.db.execute("DROP INDEX IF EXISTS messages_msgid")
        self.db.executescript(_INDEXES)
        # The recovery log (store/log.py): a commit is a frame appended to it, and its applier
        # writes the rows behind it. The in-memory store writes its rows at once.
        self.log: RecoveryLog | None = None
        self.applier: Applier | None = None
        if self._dir is not None:
            # The rows are written behind the log without an fsync each (synchronous=NORMAL: a WAL
            # commit is made durable by the next checkpoint, which syncs the WAL first); a log
            # extent is dropped only after a checkpoint covers what it held (_release).
            self.db.execute("PRAGMA synchronous=NORMAL")
            # A run the applier writes can touch thousands of pages (a fan-out's copies land in a
            # page of each subscriber's queue): SQLite's default 2 MiB cache spilled them mid-run.
            self.db.execute("PRAGMA cache_size=-65536")
            self.log = RecoveryLog(path + "-log")
            self._recover()
            self.applier = Applier(self._commit, self._release, self._apply_failed, self._rested)
        self._inflight: list[JournalOp] = []      # operations being written (not yet committed)
        self._pending: list[JournalOp] = []
        self._appended = 0           # tickets handed out
        self._durable = 0            # tickets covered by a commit
        self._append_lock = threading.Lock()
        # The turn to write, and the journal writer that takes it when callers leave work behind.
        self._lock = threading.Lock()
        self._done = threading.Condition(self._lock)     # tickets became durable (or the store failed)
        self._turn = threading.Condition(self._lock)     # the journal writer may take the turn
        self._n_waiting = 0                  # threads waiting in sync()
        self._wanted = 0
        self._callbacks: list[tuple[int, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self._writer: threading.Thread | None = None
        self._stop = False
        self._failed = ""                    # the write that failed as the store was abandoned
        self._writing = False                # a thread has the turn to write
        # Space accounting: bytes accepted so far, and how many of them the last free-space reading
        # already reflects (they had been written when it was taken).
        self._accepted = 0
        self._reflected = 0
        self._free = self._free_bytes()
        self._free_at = time.monotonic()
        self.full = False                    # room() is answering no
        self.stalled = ""                    # why the last write failed, until one succeeds
        self._closing = False
        self.on_state: Callable[[str, str], None] = lambda state, why: None   # "full", "stalled", "ok"

    # --- journal -------------------------------------------------------------------------------
    def append(self, op: JournalOp) -> int:
        with self._append_lock:
            self._pending.append(op)
            self._appended += 1
            return self._appended

    def extend(self, ops: list[JournalOp]) -> int:
        with self._append_lock:
            self._pending.extend(ops)
            self._appended += len(ops)
            return self._appended

    # --- room on disk ----------------------------------------------------------------------------
    def _free_bytes(self) -> int:
        if self._dir is None:
            return 1 << 62
        st = os.statvfs(self._dir)
        free = st.f_bavail * st.f_frsize
        if self.applier is not None:     # on a small disk few frames gather (room() counts them twice more)
            self.applier.gather_bytes = min(APPLY_BYTES, free // 8)
        return free

    def room(self, nbytes: int) -> bool:
        """May ``nbytes`` of new persistent data be accepted? (Called by the engine, under its lock,
        before it changes anything.)"""
        if self._dir is None:
            return True
        if not self.stalled:
            # Written twice (SQLite's WAL, then the database), three times with the log.
            # The frames not yet applied still need the WAL's and the database's room.
            need = (2 if self.log is None else 3) * (self._accepted - self._reflected + nbytes) + self.reserve \
                + (2 * self.applier.behind_bytes if self.applier is not None else 0)
            if self._free < need:
                self._free = self._free_bytes()          # another program may have freed some (cheap)
            if self._free >= need:
                self._accepted += nbytes
                if self.full:
                    self.full = False
                    self.on_state("ok", "")
                return True
            why = f"{self._free >> 10} KiB free, {self.reserve >> 10} KiB kept in reserve"
        else:
            why = self.stalled
        if not self.full:
            self.full = True
            self.on_state("full", why)
        return False

    @property
    def last_ticket(self) -> int:
        return self._appended

    @property
    def durable_ticket(self) -> int:
        return self._durable

    def sync(self, ticket: int | None = None) -> None:
        """Return once every operation up to ``ticket`` (default: all so far) is durable."""
        if ticket is None:
            ticket = self._appended
        if self._durable >= ticket:
            return
        with self._lock:
            self._wanted = max(self._wanted, ticket)
            lead = self._take_turn()
        while True:
            if lead:
                self._lead()
            with self._lock:
                self._n_waiting += 1
                try:
                    while self._durable < ticket and self._writing and not self._failed:
                        self._done.wait()
                finally:
                    self._n_waiting -= 1
                if self._durable >= ticket:
                    return
                if self._failed:
                    raise StoreUnavailable(self._failed)
                lead = self._take_turn()

    def when_durable(self, ticket: int, fn: Callable[[], None], hand_off: bool = False, defer: bool = False) -> bool:
        """Make ``ticket`` durable and then have ``fn()`` called, without waiting here. When no
        write is under way this thread writes at once and the answer is False: the ticket is
        durable, ``fn`` is not kept, the caller goes on (one writer and nobody waiting: no thread
        handoff). Otherwise ``fn`` is kept (True) and called, in ticket order, by whichever thread
        writes the ticket: it must be short and must not block (a reply sent, say). With
        ``hand_off`` the journal writer writes it even when nobody is writing, so this thread goes
        on with its next work during the fsync (a connection whose client has more in flight).
        With ``defer`` nothing is written yet: the caller makes it durable later (``sync``), with
        whatever else it gathered meanwhile (the dispatcher: one write for a round of requests)."""
        if self._durable >= ticket:
            return False
        with self._lock:
            if self._durable >= ticket:
                return False
            if defer:
                heapq.heappush(self._callbacks, (ticket, next(self._order), fn))
                return True
            self._wanted = max(self._wanted, ticket)
            if hand_off and self.threaded:
                heapq.heappush(self._callbacks, (ticket, next(self._order), fn))
                if self._writer is None:
                    self._writer = threading.Thread(target=self._write_loop, name="journal-writer", daemon=True)
                    self._writer.start()
                self._turn.notify()
                return True
            lead = self._take_turn()
            if not lead:
                heapq.heappush(self._callbacks, (ticket, next(self._order), fn))
        if lead:
            self._lead()
            if self._durable < ticket:
                raise StoreUnavailable(self._failed)
            return False
        return True

    def _take_turn(self) -> bool:
        """(Lock held.) Take the turn to write if nobody has it. If somebody has, the journal
        writer (started the first time it is needed) takes the next turn when this one ends."""
        if not self._writing:
            self._writing = True
            return True
        if self.threaded and self._writer is None:
            self._writer = threading.Thread(target=self._write_loop, name="journal-writer", daemon=True)
            self._writer.start()
        return False

    def _end_turn(self, ok: bool) -> None:
        """(Lock held.) Give the turn back: wake whoever waits for a ticket, and the journal
        writer if more is wanted. Nobody is woken for nothing: one application alone never
        switches threads."""
        self._writing = False
        if self._n_waiting:
            self._done.notify_all()
        if ok and self._wanted > self._durable and self._writer is not None:
            self._turn.notify()

    def _lead(self) -> None:
        """Write what is pending (this thread has the turn), then give the turn back (the
        in-memory store, which has no writer thread, goes on writing while more is wanted)."""
        while True:
            ok = self._write_pending()
            with self._lock:
                if ok and not self.threaded and self._wanted > self._durable:
                    continue
                self._end_turn(ok)
                return

    def _write_loop(self) -> None:
        """The journal writer: while tickets are wanted and nobody else is writing, write
        everything appended so far in one transaction (one fsync), running the callbacks it
        covers. Work appended while a write is under way goes in the next one, so callers share
        fsyncs."""
        while True:
            with self._lock:
                while not self._stop and (self._wanted <= self._durable or self._writing):
                    self._turn.wait()
                if self._stop and (self._wanted <= self._durable or self._writing):
                    return
                self._writing = True
            ok = self._write_pending()
            with self._lock:
                self._end_turn(ok)
            if not ok:
                return

    def _write_pending(self) -> bool:
        """Write what is pending and mark it durable, then run the callbacks it covers; False if
        the store was abandoned meanwhile."""
        if self.applier is not None:
            self.applier.wait_room()                 # qmgr.db is not left far behind the log
        with self._append_lock:
            ops, self._pending = self._pending, []
            self._inflight = ops
            top = self._appended
            accepted = self._accepted
        lsn = 0
        while ops:
            try:
                lsn = self._write(ops)
                break
            except (sqlite3.OperationalError, OSError) as e:    # SQLITE_FULL, ENOSPC, EIO, ...
                if not self.stalled:
                    self.stalled = str(e)
                    self.on_state("stalled", self.stalled)
                if self._closing:
                    with self._append_lock:
                        self._pending[:0] = ops
                        self._inflight = []
                    with self._lock:
                        self._failed = str(e)
                    return False
                time.sleep(RETRY_SECONDS)
        with self._append_lock:
            if lsn and self.applier is not None:
                self.applier.hand(lsn, ops)          # (in the same breath: never out of unwritten())
            self._inflight = []
        ready = []
        with self._lock:
            self._durable = max(self._durable, top)
            while self._callbacks and self._callbacks[0][0] <= top:
                ready.append(heapq.heappop(self._callbacks)[2])
        for fn in ready:
            fn()
        # The free space is read again at most every FREE_EVERY seconds, or at once when what was
        # accepted since the last reading is a good part of it (room() reads it too when short).
        now = time.monotonic()
        if now - self._free_at >= FREE_EVERY or 8 * (accepted - self._reflected) >= self._free:
            self._free, self._reflected, self._free_at = self._free_bytes(), accepted, now
        if self.stalled:
            self.stalled = ""
            if not self.full:                        # else room() says so when it accepts again
                self.on_state("ok", "")
        return True

    def _write(self, ops: list[JournalOp]) -> int:
        """Make ``ops`` durable: a frame of the log (its LSN), or (in memory) the rows at once (0)."""
        if self.log is not None:
            return self.log.append(ops)
        self._commit(ops)
        return 0

    def _commit(self, ops: list[JournalOp], lsn: int = 0) -> None:
        """Write ``ops`` into the tables in one transaction, noting the log's frame ``lsn`` they
        end with (the applier, and recovery)."""
        cur = self.db.cursor()
        cur.execute("BEGIN")
        try:
            self.rows.apply(cur, ops)
            if lsn:
                cur.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('log_applied', ?)", (str(lsn),))
            cur.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:          # SQLite may have rolled back already (SQLITE_FULL)
                cur.execute("ROLLBACK")
            raise

    def _rested(self) -> None:
        """(The applier, idle IDLE_SHRINK seconds after a run.) Give back the memory its runs
        filled: the page cache of this connection (up to cache_size, 64 MiB: a deep queue's rows
        and indexes pass through it) is released and the allocator's free pages returned to the
        system. The next run reads its pages again (from the system's file cache, mostly)."""
        try:
            self.db.execute("PRAGMA shrink_memory")
        except sqlite3.Error:
            return
        memory.trim()

    def _apply_failed(self, why: str) -> None:
        """(The applier.) qmgr.db could not be written (``why``): its frames stay in the log and
        are tried again, and meanwhile no new persistent data is accepted (room()); "": it can."""
        if why and not self.stalled:
            self.stalled = why
            self.on_state("stalled", why)
        elif not why and self.stalled:
            self.stalled = ""
            if not self.full:
                self.on_state("ok", "")

    def settle(self) -> None:
        """Return once qmgr.db holds everything made durable so far (the applier has caught up):
        for a reader of the tables that needs them exact (a queue laid out again)."""
        self.sync()
        if self.applier is not None and not self.applier.settle():
            raise StoreUnavailable(self.applier.failed or "the store was closed")

    def _release(self, applied: int) -> None:
        """(The applier, after a commit up to frame ``applied``.) Extents of the log it covers go,
        once a checkpoint has made those rows durable."""
        assert self.log is not None
        # (A checkpoint that fails on a full disk ended the applier's thread, and the queue
        # manager's end then waited for it for ever: the extents are kept until one succeeds.)
        if self.log.releasable(applied) and self._checkpointed():
            self.log.release(applied)

    def unwritten(self, queue: str) -> list[PutMsg]:
        """The ``put`` operations for ``queue`` appended but not yet committed (being written or
        waiting): a reader of the database adds them to what it finds there."""
        if self._durable >= self._appended and (self.applier is None or self.applier.idle):
            return []
        with self._append_lock:
            waiting = self.applier.unapplied(queue) if self.applier is not None else []
            ops = self._inflight + self._pending
        return waiting + [op for op in ops if type(op) is PutMsg and op.queue == queue]

    def abandon(self) -> None:
        """The queue manager is ending: a stalled write stops being retried (its waiters get
        StoreUnavailable: nothing of theirs was acknowledged)."""
        self._closing = True
        if self.applier is not None:
            self.applier.closing = True

    def close(self) -> None:
        """Write everything, bring qmgr.db up to date and empty the log (a clean end: the next
        start has nothing to recover); what cannot be applied stays in the log for that start."""
        try:
            self.sync()
        finally:
            with self._lock:
                self._stop = True
                self._turn.notify_all()
            if self._writer is not None and self._writer is not threading.current_thread():
                self._writer.join(5)
            if self.applier is not None and self.log is not None:
                if self.applier.stop() and not self._pending and self._checkpointed():
                    self.log.reset(self.log.next_lsn)
                self.log.close()
            self.db.close()


class MemoryStore(Store):
    """An in-memory store for engine tests: same journal, nothing on disk."""

    def __init__(self) -> None:
        super().__init__(":memory:", synchronous="OFF")

    threaded = False
