"""Where a queue's messages beyond its buffers are read from: the engine's ``Pager`` port.

Persistent messages are the journal's own rows in ``qmgr.db``. They are read through a
connection of their own (WAL: it sees what was committed, and never waits for the writer), to
which the ``put`` operations appended but not yet committed are added (``Store.unwritten``), so a
page is read without waiting for an fsync under the engine lock. A row whose checksum fails is
not served: a ``damaged`` operation moves it aside and ``on_damaged`` reports it (AMQ7472W). A
page SQLite cannot read (a damaged b-tree) makes the read fail with MQRC_OBJECT_DAMAGED for that
queue alone, reported once by ``on_unreadable`` (AMQ7472W); the queue manager serves the rest.

Nonpersistent messages that leave memory are written to ``scratch.db`` beside it: no journal, no
fsync, deleted at every start (a restart discards nonpersistent messages, as in MQ).

Messages of one lane are read in position order with ``(queue, prio)`` ranges, one per priority
the lane covers, merged here; a get by MsgId, CorrelId or GroupId reads through the index of that
identifier's key instead of the whole lane.
"""
from __future__ import annotations

import heapq
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.engine.errors import MQIError
from mqlite.engine.ports import StoredRow
from mqlite.engine.queue import DEFAULT_BUFFERS
from mqlite.store.sqlite import BODY, Store, checksum, id_key, loaded_md, md_keys

_SCRATCH = """
CREATE TABLE spill (seq INTEGER PRIMARY KEY, queue TEXT NOT NULL, prio INTEGER NOT NULL, md BLOB NOT NULL,
                    body BLOB NOT NULL, expiry_at REAL, msgh INTEGER, corh INTEGER, grph INTEGER);
CREATE INDEX spill_lane ON spill (queue, prio);
CREATE INDEX spill_msgid ON spill (queue, msgh);
CREATE INDEX spill_correlid ON spill (queue, corh) WHERE corh IS NOT NULL;
CREATE INDEX spill_groupid ON spill (queue, grph) WHERE grph IS NOT NULL;
"""

_ID_COLUMNS = ("msgh", "corh", "grph")
MAX_BUFFER = 104857600        # MQ's limit for both buffer sizes
SPILL_BATCH = 256             # nonpersistent messages written to the scratch file at a time


def queue_buffers(ini: dict[str, dict[str, str]], log: Callable[..., Any]) -> tuple[int, int]:
    """(DefaultQBufferSize, DefaultPQBufferSize) from qm.ini's TuningParameters stanza; a value
    that is not a number of bytes from 0 to 100 MB is reported and the default used."""
    tuning = ini.get("TuningParameters", {})
    out = []
    for key, default in zip(("DefaultQBufferSize", "DefaultPQBufferSize"), DEFAULT_BUFFERS, strict=True):
        raw = tuning.get(key)
        value = int(raw) if raw is not None and raw.isdigit() else -1
        if raw is not None and not 0 <= value <= MAX_BUFFER:
            log("MQL8001W", f"qm.ini TuningParameters {key}={raw} is not valid.",
                f"A buffer size is a number of bytes from 0 to {MAX_BUFFER}; {default} is used.")
            value = default
        out.append(default if raw is None else value)
    return out[0], out[1]


class StorePager:
    def __init__(self, store: Store, scratch_path: str = ":memory:") -> None:
        self.store = store
        if store.path == ":memory:":
            self.db = store.db                     # one in-memory database: the store's own
        else:
            self.db = sqlite3.connect(store.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA query_only=1")
        if scratch_path != ":memory:":
            for suffix in ("", "-journal", "-wal", "-shm"):
                try:
                    os.remove(scratch_path + suffix)
                except FileNotFoundError:
                    pass
        self.scratch = sqlite3.connect(scratch_path, isolation_level=None, check_same_thread=False)
        self.scratch.execute("PRAGMA journal_mode=OFF")
        self.scratch.execute("PRAGMA synchronous=OFF")
        self.scratch.execute("PRAGMA locking_mode=EXCLUSIVE")
        self.scratch.executescript(_SCRATCH)
        self.spilled = 0                          # nonpersistent messages in the scratch file (or on their way)
        # Spilled rows are written a batch at a time, in one transaction, before anything reads
        # the scratch file: one statement and one transaction per message cost more than the put.
        self._to_write: dict[int, tuple[Any, ...]] = {}
        self.on_damaged: Callable[[int, str], None] = lambda seq, queue: None
        self.on_unreadable: Callable[[str, str], None] = lambda queue, why: None
        self._set_aside: set[int] = set()       # damaged rows reported (and their move journalled)
        self._unreadable: set[str] = set()      # queues whose pages SQLite could not read (reported)

    @contextmanager
    def _reading(self, queue: str) -> Iterator[None]:
        """A read of ``queue``'s stored messages: damage SQLite finds in the file is the object's
        damage (2101), said once, never a traceback that breaks the connection."""
        try:
            yield
        except sqlite3.DatabaseError as e:
            if queue not in self._unreadable:
                self._unreadable.add(queue)
                self.on_unreadable(queue, str(e))
            raise MQIError(C.MQRC_OBJECT_DAMAGED, detail=f"qmgr.db cannot be read: {e}") from None

    # --- reading ------------------------------------------------------------------------------
    def page(self, queue: str, prios: tuple[int, ...], after: int, before: int | None,
             limit: int) -> list[StoredRow]:
        with self._reading(queue):
            bound = "" if before is None else " AND seq<?"
            extra: tuple[Any, ...] = () if before is None else (before,)
            runs = []
            for prio in prios:
                args = (queue, prio, after, *extra, limit)
                runs.append(self._stored(queue, self.db.execute(
                    f"SELECT seq, md, {BODY}, expiry_at, backout, crc FROM messages "
                    f"WHERE queue=? AND prio=? AND seq>?{bound} ORDER BY seq LIMIT ?", args)))
                if self.spilled:
                    self._flush()
                    runs.append(self._spilled(self.scratch.execute(
                        f"SELECT seq, md, body, expiry_at FROM spill WHERE queue=? AND prio=? AND seq>?{bound} "
                        "ORDER BY seq LIMIT ?", args)))
            runs.append(self._unwritten(queue, prios, after, before))
            return self._merge(runs, limit)

    def find(self, queue: str, prios: tuple[int, ...], after: int,
             ids: tuple[bytes | None, bytes | None, bytes | None], limit: int) -> list[StoredRow]:
        with self._reading(queue):
            # One identifier's index is enough to narrow the search; the caller matches the rest.
            col, ident = next((c, i) for c, i in zip(_ID_COLUMNS, ids, strict=True) if i is not None)
            key = id_key(ident)
            marks = ",".join("?" * len(prios))
            args = (queue, key, after, *prios, limit)
            runs = [self._stored(queue, self.db.execute(
                f"SELECT seq, md, {BODY}, expiry_at, backout, crc FROM messages "
                f"WHERE queue=? AND {col}=? AND seq>? AND prio IN ({marks}) ORDER BY seq LIMIT ?", args))]
            if self.spilled:
                self._flush()
                runs.append(self._spilled(self.scratch.execute(
                    f"SELECT seq, md, body, expiry_at FROM spill WHERE queue=? AND {col}=? AND seq>? "
                    f"AND prio IN ({marks}) ORDER BY seq LIMIT ?", args)))
            at = _ID_COLUMNS.index(col) + 1
            runs.append([r for r in self._unwritten(queue, prios, after, None) if md_keys(r.md)[at] == key])
            return self._merge(runs, limit)

    def last_below(self, queue: str, prios: tuple[int, ...], after: int, before: int,
                   gone: set[int]) -> int | None:
        with self._reading(queue):
            marks = ",".join("?" * len(prios))
            best = None
            for db, table in ((self.db, "messages"), (self.scratch, "spill")):
                if table == "spill":
                    if not self.spilled:
                        continue
                    self._flush()
                for (seq,) in db.execute(f"SELECT seq FROM {table} WHERE queue=? AND prio IN ({marks}) AND seq>? "
                                         "AND seq<? ORDER BY seq DESC", (queue, *prios, after, before)):
                    if seq not in gone:
                        best = seq if best is None else max(best, seq)
                        break
            for r in self._unwritten(queue, prios, after, before):
                if r.seq not in gone:
                    best = r.seq if best is None else max(best, r.seq)
            return best

    def load(self, seqs: list[int]) -> dict[int, tuple[str, StoredRow]]:
        with self._reading(""):
            out = {}
            for seq in seqs:
                row = self.db.execute(f"SELECT seq, md, {BODY}, expiry_at, backout, crc, queue FROM messages WHERE seq=?",
                                      (seq,)).fetchone()
                if row is not None:
                    out[seq] = (row[6], StoredRow(row[0], loaded_md(row[1]), row[2], row[3], row[4] or 0, True))
            return out

    def counts(self, queue: str) -> dict[int, int]:
        with self._reading(queue):
            out: dict[int, int] = {}
            for prio, n in self.db.execute("SELECT prio, count(*) FROM messages WHERE queue=? GROUP BY prio", (queue,)):
                out[prio] = out.get(prio, 0) + n
            if self.spilled:
                self._flush()
                for prio, n in self.scratch.execute("SELECT prio, count(*) FROM spill WHERE queue=? GROUP BY prio",
                                                    (queue,)):
                    out[prio] = out.get(prio, 0) + n
            return out

    def _stored(self, queue: str, rows: Any) -> list[StoredRow]:
        out = []
        for seq, md, body, expiry_at, backout, crc in rows:
            if crc is not None and crc != checksum(md, body):
                # Flagged every time it is read until the journal has moved it (a page is read
                # ahead of what the queue takes from it), reported and moved once.
                row = StoredRow(seq, md, body, expiry_at, backout or 0, True, damaged=True)
                if seq not in self._set_aside:
                    self._set_aside.add(seq)
                    self.store.append(("damaged", seq))
                    self.on_damaged(seq, queue)
            else:
                row = StoredRow(seq, loaded_md(md), body, expiry_at, backout or 0, True)
            out.append(row)
        return out

    @staticmethod
    def _spilled(rows: Any) -> list[StoredRow]:
        return [StoredRow(seq, md, body, expiry_at, 0, False) for seq, md, body, expiry_at in rows]

    def _unwritten(self, queue: str, prios: tuple[int, ...], after: int, before: int | None) -> list[StoredRow]:
        out = []
        for _tag, seq, _q, md, body, expiry_at in self.store.unwritten(queue):
            if seq > after and (before is None or seq < before) and md_keys(md)[0] in prios:
                out.append(StoredRow(seq, md, body, expiry_at, 0, True))
        out.sort(key=_seq)
        return out

    @staticmethod
    def _merge(runs: list[list[StoredRow]], limit: int) -> list[StoredRow]:
        out: list[StoredRow] = []
        last = None
        for row in heapq.merge(*(r for r in runs if r), key=_seq):
            if row.seq == last:          # committed while it was also read as unwritten
                continue
            out.append(row)
            last = row.seq
            if len(out) >= limit:
                break
        return out

    # --- nonpersistent messages out of memory --------------------------------------------------
    def spill(self, queue: str, rows: list[tuple[int, int, bytes, bytes, float | None]]) -> None:
        for seq, prio, md, body, exp in rows:
            self._to_write[seq] = (seq, queue, prio, md, body, exp)
        self.spilled += len(rows)
        if len(self._to_write) >= SPILL_BATCH:
            self._flush()

    def _flush(self) -> None:
        if not self._to_write:
            return
        rows = [(*r, *md_keys(r[3])[1:]) for r in self._to_write.values()]
        self._to_write.clear()
        with self.scratch:
            self.scratch.execute("BEGIN")
            self.scratch.executemany("INSERT OR REPLACE INTO spill(seq, queue, prio, md, body, expiry_at, msgh, "
                                     "corh, grph) VALUES (?,?,?,?,?,?,?,?,?)", rows)

    def unspill(self, seqs: list[int]) -> None:
        written = [(s,) for s in seqs if self._to_write.pop(s, None) is None]
        if written:
            with self.scratch:
                self.scratch.execute("BEGIN")
                self.scratch.executemany("DELETE FROM spill WHERE seq=?", written)
        self.spilled = max(0, self.spilled - len(seqs))

    def unspill_range(self, queue: str, prios: tuple[int, ...], after: int, upto: int) -> None:
        """The messages of a lane with positions in (after, upto] were read into memory."""
        self._flush()
        with self.scratch:
            self.scratch.execute("BEGIN")
            n = sum(self.scratch.execute("DELETE FROM spill WHERE queue=? AND prio=? AND seq>? AND seq<=?",
                                         (queue, prio, after, upto)).rowcount for prio in prios)
        self.spilled = max(0, self.spilled - n)

    def unspill_queue(self, queue: str) -> None:
        self._flush()
        n = self.scratch.execute("DELETE FROM spill WHERE queue=?", (queue,)).rowcount
        self.spilled = max(0, self.spilled - n)

    def close(self) -> None:
        if self.db is not self.store.db:
            self.db.close()
        self.scratch.close()


def _seq(row: StoredRow) -> int:
    return row.seq
