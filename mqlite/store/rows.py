"""The messages table's rows and the journal's operations applied to them, for the SQLite store
(``store.sqlite``): how a stored descriptor is kept (compressed) and keyed (priority and
identifier keys for the indexes), a row's checksum, and ``Rows.apply``, one small method per kind
of journal record inside the store's transaction (runs of puts and of deletes as one
``executemany`` each; a body several puts of one run carry written once)."""
from __future__ import annotations

import sqlite3
import sys
import time
import zlib
from collections.abc import Callable
from typing import Any

from mqlite.cmq.structs import MD
from mqlite.engine.ports import (
    DelMsg,
    DropChsync,
    DropObject,
    JournalOp,
    MoveDamaged,
    Prepare,
    PurgeQueue,
    PutMsg,
    Resolve,
    SaveChsync,
    SaveMeta,
    SaveObject,
    SetBackout,
)

BODY = ("CASE WHEN messages.bref IS NULL THEN messages.body "
        "ELSE (SELECT b.body FROM bodies AS b WHERE b.id = messages.bref) END")
SHARE_MIN = 256               # bytes: a shorter body is cheaper stored with each row

_PRIO = MD.field_slice("Priority")
_MSGID, _CORRELID, _GROUPID = MD.field_slice("MsgId"), MD.field_slice("CorrelId"), MD.field_slice("GroupId")
_NULL_ID = bytes(24)


ID_KEYS = "2"      # the version of ``id_key`` the stored keys were made with (meta "id_keys")


def id_key(ident: bytes) -> int:
    """An identifier's key in the store's indexes (a match is checked on the descriptor): a hash
    of its first 20 bytes above its last four. Identifiers a queue manager generates are its
    prefix and a counter, so their keys grow as messages arrive, and a deep queue's index is
    written and emptied at its ends, a few pages per commit. A CRC-32 of the whole identifier
    (version 1) scattered them: every put and get of a unit of work touched its own index page,
    three times the work at depth (docs/performance.md)."""
    return (zlib.crc32(ident[:20]) & 0x7FFFFFFF) << 32 | int.from_bytes(ident[20:24], "big")


def md_keys(md: bytes) -> tuple[int, int, int | None, int | None]:
    """(priority, MsgId key, CorrelId key, GroupId key) of a packed MQMD: null identifiers have no key."""
    correl, group = md[_CORRELID], md[_GROUPID]
    return (int.from_bytes(md[_PRIO], sys.byteorder, signed=True), id_key(md[_MSGID]),
            id_key(correl) if correl != _NULL_ID else None, id_key(group) if group != _NULL_ID else None)


def stored_md(md: bytes) -> bytes:
    """A descriptor as the messages table keeps it: compressed (a packed MQMD is 364 bytes,
    mostly blank padding; compressed it is about a third of that), unless that is no shorter."""
    z = zlib.compressobj(1, zlib.DEFLATED, 9, 2)     # a 512-byte window: 4.6 µs, not 6.9 (zlib.compress)
    packed = z.compress(md) + z.flush()
    return packed if len(packed) < len(md) else md


def loaded_md(kept: bytes) -> bytes:
    """The packed MQMD of a stored descriptor: one kept as it was begins with its StrucId."""
    return kept if kept[:4] == b"MD  " or not kept else zlib.decompress(kept)


def checksum(md: bytes, body: bytes) -> int:
    """A stored message's CRC-32 (descriptor, then data): computed when it is written, by the
    journal's writer outside the engine's lock, and checked when it is read back."""
    return zlib.crc32(body, zlib.crc32(md))


# Rows are written and removed a run at a time, one statement per CHUNK (each statement SQLite
# runs is a release and a retaking of the GIL: one per row made the log's applier hand the GIL
# back and forth with the sessions' threads).
CHUNK = 256
_INSERT_MESSAGES = ("INSERT OR REPLACE INTO messages(seq, queue, md, body, expiry_at, crc, prio, msgh, corh, grph, "
                    "bref) VALUES ")


def _chunks(items: list[Any]) -> list[list[Any]]:
    return [items[i:i + CHUNK] for i in range(0, len(items), CHUNK)]


class Rows:
    """Writes the journal's operations into the tables; ``sharing``: some message's body is kept
    once for several rows (the bodies table is in use), so deletes look for bodies left unused."""

    def __init__(self, sharing: bool) -> None:
        self.sharing = sharing

    def apply(self, cur: sqlite3.Cursor, ops: list[JournalOp]) -> None:
        """``ops`` in order, inside the caller's transaction."""
        run_type: type | None = None
        run: list[Any] = []
        for op in ops:
            t = type(op)
            if t is PutMsg or t is DelMsg:
                if t is not run_type:
                    self._flush_run(cur, run_type, run)
                    run_type, run = t, []
                run.append(op)
                continue
            self._flush_run(cur, run_type, run)
            run_type, run = None, []
            apply = self._apply.get(t)
            if apply is None:
                raise ValueError(f"unknown journal operation {op!r}")
            apply(self, cur, op)
        self._flush_run(cur, run_type, run)

    def _backout(self, cur: sqlite3.Cursor, op: SetBackout) -> None:
        cur.execute("UPDATE messages SET backout=? WHERE seq=?", (op.backout, op.seq))

    def _purge(self, cur: sqlite3.Cursor, op: PurgeQueue) -> None:
        cur.execute("DELETE FROM messages WHERE queue=?", (op.queue,))
        if self.sharing:
            cur.execute("DELETE FROM bodies WHERE NOT EXISTS (SELECT 1 FROM messages WHERE "
                        "messages.bref = bodies.id)")

    def _damaged(self, cur: sqlite3.Cursor, op: MoveDamaged) -> None:
        cur.execute(f"INSERT INTO damaged(seq, queue, md, body, expiry_at, found) SELECT seq, queue, md, "
                    f"{BODY}, expiry_at, ? FROM messages WHERE seq=?", (time.time(), op.seq))
        self._delete(cur, [DelMsg(op.seq)])

    def _save_object(self, cur: sqlite3.Cursor, op: SaveObject) -> None:
        cur.execute("INSERT OR REPLACE INTO objects(ns, name, rec) VALUES (?,?,?)", op)

    def _drop_object(self, cur: sqlite3.Cursor, op: DropObject) -> None:
        cur.execute("DELETE FROM objects WHERE ns=? AND name=?", op)

    def _save_chsync(self, cur: sqlite3.Cursor, op: SaveChsync) -> None:
        cur.execute("INSERT OR REPLACE INTO chsync(name, rec) VALUES (?,?)", op)

    def _drop_chsync(self, cur: sqlite3.Cursor, op: DropChsync) -> None:
        cur.execute("DELETE FROM chsync WHERE name=?", op)

    def _prepare(self, cur: sqlite3.Cursor, op: Prepare) -> None:
        # An empty unit still leaves a row, so that it can be listed and resolved.
        rows: list[tuple[Any, ...]] = list(op.rows) or [("none", None, None, None, None, None)]
        cur.executemany("INSERT INTO prepared(xid, at, kind, seq, queue, md, body, expiry_at) "
                        "VALUES (?,?,?,?,?,?,?,?)", [(op.xid, op.at, *r) for r in rows])

    def _resolve(self, cur: sqlite3.Cursor, op: Resolve) -> None:
        cur.execute("DELETE FROM prepared WHERE xid=?", op)

    def _save_meta(self, cur: sqlite3.Cursor, op: SaveMeta) -> None:
        cur.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?,?)", op)

    _apply: dict[type, Callable[[Any, sqlite3.Cursor, Any], None]] = {
        SetBackout: _backout, PurgeQueue: _purge, MoveDamaged: _damaged, SaveObject: _save_object,
        DropObject: _drop_object, SaveChsync: _save_chsync, DropChsync: _drop_chsync, Prepare: _prepare,
        Resolve: _resolve, SaveMeta: _save_meta}

    def _flush_run(self, cur: sqlite3.Cursor, run_type: type | None, run: list[Any]) -> None:
        if not run:
            return
        if run_type is DelMsg:
            self._delete(cur, run)
            return
        # A body object that several puts of this run carry is written once (the engine hands a
        # publication's copies one bytes object): it takes the first of their positions as its id.
        uses: dict[int, int] = {}
        if len(run) > 1:
            for op in run:
                if len(op.body) >= SHARE_MIN:
                    uses[id(op.body)] = uses.get(id(op.body), 0) + 1
        shared: dict[int, int] = {}
        bodies, rows = [], []
        for seq, queue, md, body, expiry_at in run:
            bref = None
            if uses.get(id(body), 0) > 1:
                bref = shared.get(id(body))
                if bref is None:
                    bref = shared[id(body)] = seq
                    bodies.append((seq, body))
                kept = md          # (a copy's row is small either way: not worth compressing's 4.5 µs)
            else:
                kept = stored_md(md)
            rows.append((seq, queue, kept, body if bref is None else b"", expiry_at, checksum(kept, body),
                         *md_keys(md), bref))
        if bodies:
            cur.executemany("INSERT OR REPLACE INTO bodies(id, body) VALUES (?,?)", bodies)
            self.sharing = True
        for chunk in _chunks(rows):
            cur.execute(_INSERT_MESSAGES + ",".join(["(?,?,?,?,?,?,?,?,?,?,?)"] * len(chunk)),
                        [v for row in chunk for v in row])

    def _delete(self, cur: sqlite3.Cursor, seqs: list[DelMsg]) -> None:
        """Messages removed for good, and the shared bodies no row names any more."""
        refs: set[int] = set()
        for chunk in _chunks([s for (s,) in seqs]):
            marks = ",".join("?" * len(chunk))
            if self.sharing:
                refs.update(r for (r,) in cur.execute(
                    f"SELECT DISTINCT bref FROM messages WHERE bref IS NOT NULL AND seq IN ({marks})", chunk))
            cur.execute(f"DELETE FROM messages WHERE seq IN ({marks})", chunk)
        for chunk in _chunks(sorted(refs)):
            cur.execute(f"DELETE FROM bodies WHERE id IN ({','.join('?' * len(chunk))}) AND NOT EXISTS "
                        "(SELECT 1 FROM messages WHERE messages.bref = bodies.id)", chunk)
