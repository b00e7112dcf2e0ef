"""Where a queue's messages beyond its buffers are read from: the engine's ``Pager`` port.

Persistent messages are the journal's own rows in ``qmgr.db``. They are read through a
connection of their own (WAL: it sees what was committed, and never waits for the writer), to
which the ``put`` operations appended but not yet committed are added (``Store.unwritten``), so a
page is read without waiting for an fsync under the engine lock. A row whose checksum fails is
not served: a ``damaged`` operation moves it aside and ``on_damaged`` reports it (AMQ7472W). A
page SQLite cannot read (a damaged b-tree) makes the read fail with MQRC_OBJECT_DAMAGED for that
queue alone, reported once by ``on_unreadable`` (AMQ7472W); the queue manager serves the rest.

Nonpersistent messages that leave memory are appended to the scratch log beside it
(``store/scratch.py``: segment files with their index in memory; no journal, no fsync), emptied at
every start (a restart discards nonpersistent messages, as in MQ).

Messages of one lane are read in position order with ``(queue, prio)`` ranges, one per priority
the lane covers, merged here; a get by MsgId, CorrelId or GroupId reads through the index of that
identifier's key instead of the whole lane.
"""
from __future__ import annotations

import heapq
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from mqlite.catalogue import entry
from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.engine.ports import MoveDamaged, StoredRow
from mqlite.engine.queue import DEFAULT_BUFFERS
from mqlite.store.rows import BODY, checksum, id_key, loaded_md, md_keys
from mqlite.store.scratch import ScratchLog
from mqlite.store.sqlite import Store

_ID_COLUMNS = ("msgh", "corh", "grph")
MAX_BUFFER = 104857600        # MQ's limit for both buffer sizes


def queue_buffers(ini: dict[str, dict[str, str]], log: Callable[..., Any]) -> tuple[int, int]:
    """(DefaultQBufferSize, DefaultPQBufferSize) from qm.ini's TuningParameters stanza; a value
    that is not a number of bytes from 0 to 100 MB is reported and the default used."""
    tuning = ini.get("TuningParameters", {})
    out = []
    for key, default in zip(("DefaultQBufferSize", "DefaultPQBufferSize"), DEFAULT_BUFFERS, strict=True):
        raw = tuning.get(key)
        value = int(raw) if raw is not None and raw.isdigit() else -1
        if raw is not None and not 0 <= value <= MAX_BUFFER:
            log(*entry("MQL8001W", stanza="TuningParameters", key=key, raw=raw),
                f"A buffer size is a number of bytes from 0 to {MAX_BUFFER}; {default} is used.")
            value = default
        out.append(default if raw is None else value)
    return out[0], out[1]


class StorePager:
    def __init__(self, store: Store, scratch_path: str | None = None) -> None:
        """``scratch_path``: the scratch log's directory (None: a temporary one)."""
        self.store = store
        if store.path == ":memory:":
            self.db = store.db                     # one in-memory database: the store's own
        else:
            self.db = sqlite3.connect(store.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA query_only=1")
        self.scratch = ScratchLog(scratch_path)
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
            # What the log holds but qmgr.db may not yet is taken first: a frame applied between
            # the two reads is then in both (merged), never in neither.
            unwritten = self._unwritten(queue, prios, after, before)
            bound = "" if before is None else " AND seq<?"
            extra: tuple[Any, ...] = () if before is None else (before,)
            runs = [self._stored(queue, self.db.execute(
                f"SELECT seq, md, {BODY}, expiry_at, backout, crc FROM messages "
                f"WHERE queue=? AND prio=? AND seq>?{bound} ORDER BY seq LIMIT ?", (queue, prio, after, *extra, limit)))
                for prio in prios]
            if self.scratch.live:
                runs += self.scratch.page(queue, prios, after, before, limit)
            runs.append(unwritten)
            return self._merge(runs, limit)

    def find(self, queue: str, prios: tuple[int, ...], after: int,
             ids: tuple[bytes | None, bytes | None, bytes | None], limit: int) -> list[StoredRow]:
        with self._reading(queue):
            # One identifier's index is enough to narrow the search; the caller matches the rest.
            col, ident = next((c, i) for c, i in zip(_ID_COLUMNS, ids, strict=True) if i is not None)
            key = id_key(ident)
            at = _ID_COLUMNS.index(col)
            unwritten = [r for r in self._unwritten(queue, prios, after, None) if md_keys(r.md)[at + 1] == key]
            marks = ",".join("?" * len(prios))
            args = (queue, key, after, *prios, limit)
            runs = [self._stored(queue, self.db.execute(
                f"SELECT seq, md, {BODY}, expiry_at, backout, crc FROM messages "
                f"WHERE queue=? AND {col}=? AND seq>? AND prio IN ({marks}) ORDER BY seq LIMIT ?", args))]
            if self.scratch.live:
                runs += self.scratch.find(queue, prios, after, at, ident, limit)
            runs.append(unwritten)
            return self._merge(runs, limit)

    def last_below(self, queue: str, prios: tuple[int, ...], after: int, before: int,
                   gone: set[int]) -> int | None:
        with self._reading(queue):
            marks = ",".join("?" * len(prios))
            unwritten = self._unwritten(queue, prios, after, before)
            best = self.scratch.last_below(queue, prios, after, before, gone) if self.scratch.live else None
            for (seq,) in self.db.execute(f"SELECT seq FROM messages WHERE queue=? AND prio IN ({marks}) AND seq>? "
                                          "AND seq<? ORDER BY seq DESC", (queue, *prios, after, before)):
                if seq not in gone:
                    best = seq if best is None else max(best, seq)
                    break
            for r in unwritten:
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
        self.store.settle()                  # (the rows of everything logged, deletes included)
        with self._reading(queue):
            out: dict[int, int] = {}
            for prio, n in self.db.execute("SELECT prio, count(*) FROM messages WHERE queue=? GROUP BY prio", (queue,)):
                out[prio] = out.get(prio, 0) + n
            for prio, n in self.scratch.counts(queue).items():
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
                    self.store.append(MoveDamaged(seq))
                    self.on_damaged(seq, queue)
            else:
                row = StoredRow(seq, loaded_md(md), body, expiry_at, backout or 0, True)
            out.append(row)
        return out

    def _unwritten(self, queue: str, prios: tuple[int, ...], after: int, before: int | None) -> list[StoredRow]:
        out = []
        for seq, _q, md, body, expiry_at in self.store.unwritten(queue):
            if seq > after and (before is None or seq < before) and md_keys(md)[0] in prios:
                out.append(StoredRow(seq, md, body, expiry_at, 0, True))
        out.sort(key=_seq)
        return out

    @staticmethod
    def _merge(runs: list[list[StoredRow]], limit: int) -> list[StoredRow]:
        full = [r for r in runs if r]
        if len(full) <= 1:               # one kind of row (a queue of nonpersistent messages): as read
            return full[0][:limit] if full else []
        out: list[StoredRow] = []
        last = None
        for row in heapq.merge(*full, key=_seq):
            if row.seq == last:          # committed while it was also read as unwritten
                continue
            out.append(row)
            last = row.seq
            if len(out) >= limit:
                break
        return out

    # --- nonpersistent messages out of memory --------------------------------------------------
    def spill(self, queue: str, rows: list[tuple[int, int, bytes, bytes, float | None]]) -> None:
        self.scratch.spill(queue, rows)

    def unspill(self, queue: str, prio: int, seqs: list[int]) -> None:
        self.scratch.unspill(queue, prio, seqs)

    def unspill_range(self, queue: str, prios: tuple[int, ...], after: int, upto: int) -> None:
        self.scratch.unspill_range(queue, prios, after, upto)

    def unspill_queue(self, queue: str) -> None:
        self.scratch.unspill_queue(queue)

    def close(self) -> None:
        if self.db is not self.store.db:
            self.db.close()
        self.scratch.close()


def _seq(row: StoredRow) -> int:
    return row.seq
