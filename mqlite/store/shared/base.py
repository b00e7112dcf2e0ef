"""The shared store of a queue-sharing group: SQLite (one host) or PostgreSQL (several hosts).

Every row carries the group's name, so one database can hold several groups.  The same SQL runs on
both; ``Dialect`` holds what differs.  Each public method is one transaction, so a member that dies
leaves nothing half-done; what a member holds (claimed messages) is marked with its name and is
released when it restarts or by a peer once its heartbeat is stale.

Messages: ``state`` is 'V' (visible) or 'G' (got inside a unit of work that has not ended).  A
message put inside a unit of work is not written before MQCMIT.  ``depth`` keeps a counter per queue
in the same transactions, so MAXDEPTH is checked without counting rows.

This module: its SQL (one text for both databases), and the abstract store and watcher; the
records it exchanges with the engine are the engine's (``engine.ports``).
"""
from __future__ import annotations

import json
import threading
from abc import ABC, abstractmethod
from typing import Any, Iterator

from mqlite.engine.ports import NewMessage, QueueFull, Row, Select

TABLES = """
CREATE TABLE IF NOT EXISTS qsg_members (qsg TEXT NOT NULL, qmgr TEXT NOT NULL, state TEXT NOT NULL,
    heartbeat {real} NOT NULL, PRIMARY KEY (qsg, qmgr));
CREATE TABLE IF NOT EXISTS qsg_objects (qsg TEXT NOT NULL, ns TEXT NOT NULL, name TEXT NOT NULL,
    disp TEXT NOT NULL, rec TEXT NOT NULL, PRIMARY KEY (qsg, ns, name, disp));
CREATE TABLE IF NOT EXISTS qsg_meta (qsg TEXT NOT NULL, key TEXT NOT NULL, value {int} NOT NULL,
    PRIMARY KEY (qsg, key));
CREATE TABLE IF NOT EXISTS qsg_depth (qsg TEXT NOT NULL, queue TEXT NOT NULL, depth {int} NOT NULL,
    PRIMARY KEY (qsg, queue));
CREATE TABLE IF NOT EXISTS qsg_msgs (id {serial}, qsg TEXT NOT NULL, queue TEXT NOT NULL,
    prio INTEGER NOT NULL, md {blob} NOT NULL, body {blob} NOT NULL, expiry_at {real},
    persistent INTEGER NOT NULL, target TEXT NOT NULL DEFAULT '', msgid {blob} NOT NULL,
    correlid {blob} NOT NULL, groupid {blob} NOT NULL, seqno INTEGER NOT NULL, first INTEGER NOT NULL,
    state TEXT NOT NULL DEFAULT 'V', owner TEXT NOT NULL DEFAULT '', backout INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS qsg_msgs_prio ON qsg_msgs (qsg, queue, state, prio DESC, id);
CREATE INDEX IF NOT EXISTS qsg_msgs_fifo ON qsg_msgs (qsg, queue, state, id);
CREATE INDEX IF NOT EXISTS qsg_msgs_target ON qsg_msgs (qsg, queue, target, state, id);
CREATE INDEX IF NOT EXISTS qsg_msgs_owner ON qsg_msgs (qsg, owner);
"""

COLS = "id, queue, prio, md, body, expiry_at, persistent, backout"


def _row(t: tuple[Any, ...]) -> Row:
    return Row(t[0], t[1], t[2], bytes(t[3]), bytes(t[4]), t[5], bool(t[6]), t[7])


class SharedStore(ABC):
    """One member's connection to its group's shared store (SQLiteShared or PostgresShared)."""

    kind = ""
    skip_locked = ""

    def __init__(self, qsg: str, location: str) -> None:
        self.qsg = qsg
        self.location = location
        self.lock = threading.RLock()

    # --- dialect hooks -----------------------------------------------------------------------------
    @abstractmethod
    def _tx(self, durable: bool = True, write: bool = True) -> Any:
        """A context manager around one transaction, yielding a cursor. Not ``durable``: the commit
        need not reach the disk before it returns (nonpersistent messages, claims, heartbeats);
        it still survives the failure of the process. Not ``write``: it only reads (and takes no
        write lock)."""

    def _relax(self, cur: Any) -> None:
        """Make the transaction in progress not durable, where the database allows it."""

    @abstractmethod
    def watcher(self) -> "Watcher":
        """A second connection that waits for other members' changes."""

    def _notify(self, cur: Any, queue: str) -> None:
        """Tell the other members that ``queue`` changed (PostgreSQL; SQLite members poll)."""

    @abstractmethod
    def close(self) -> None:
        """Close the connection."""

    # --- members -------------------------------------------------------------------------------
    def join(self, qmgr: str, now: float) -> None:
        with self._tx() as cur:
            cur.execute("DELETE FROM qsg_members WHERE qsg=? AND qmgr=?", (self.qsg, qmgr))
            cur.execute("INSERT INTO qsg_members(qsg, qmgr, state, heartbeat) VALUES (?,?,?,?)",
                        (self.qsg, qmgr, "ACTIVE", now))
            self._bump(cur)     # the other members refresh their member lists at once

    def leave(self, qmgr: str, now: float) -> None:
        with self._tx() as cur:
            cur.execute("UPDATE qsg_members SET state='INACTIVE', heartbeat=? WHERE qsg=? AND qmgr=?",
                        (now, self.qsg, qmgr))

    def remove_member(self, qmgr: str) -> None:
        with self._tx() as cur:
            cur.execute("DELETE FROM qsg_members WHERE qsg=? AND qmgr=?", (self.qsg, qmgr))

    def heartbeat(self, qmgr: str, now: float) -> None:
        with self._tx(durable=False) as cur:
            cur.execute("UPDATE qsg_members SET heartbeat=? WHERE qsg=? AND qmgr=? AND state='ACTIVE'",
                        (now, self.qsg, qmgr))

    def members(self) -> list[tuple[str, str, float]]:
        with self._tx(durable=False, write=False) as cur:
            cur.execute("SELECT qmgr, state, heartbeat FROM qsg_members WHERE qsg=? ORDER BY qmgr", (self.qsg,))
            return [(r[0], r[1], r[2]) for r in cur.fetchall()]

    def recover_peers(self, me: str, stale_before: float) -> list[str]:
        """Peer recovery: members whose heartbeat stopped before ``stale_before`` are marked
        failed and their claimed messages released. Returns their names."""
        with self._tx() as cur:
            cur.execute("SELECT qmgr FROM qsg_members WHERE qsg=? AND state='ACTIVE' AND heartbeat<? AND qmgr<>?",
                        (self.qsg, stale_before, me))
            dead = [r[0] for r in cur.fetchall()]
            for qm in dead:
                self._release_owner(cur, qm)
                cur.execute("UPDATE qsg_members SET state='FAILED' WHERE qsg=? AND qmgr=?", (self.qsg, qm))
            return dead

    # --- definitions -----------------------------------------------------------------------------
    def objects(self) -> list[tuple[str, str, str, dict[str, Any]]]:
        with self._tx(durable=False, write=False) as cur:
            cur.execute("SELECT ns, name, disp, rec FROM qsg_objects WHERE qsg=? ORDER BY ns, name", (self.qsg,))
            return [(r[0], r[1], r[2], json.loads(r[3])) for r in cur.fetchall()]

    def object_version(self) -> int:
        with self._tx(durable=False, write=False) as cur:
            cur.execute("SELECT value FROM qsg_meta WHERE qsg=? AND key='objver'", (self.qsg,))
            r = cur.fetchone()
            return r[0] if r else 0

    def put_object(self, ns: str, name: str, disp: str, rec: dict[str, Any], create: bool) -> bool:
        """Write a shared or group definition; with ``create`` only if none of that name and
        disposition exists (False then)."""
        with self._tx() as cur:
            cur.execute("SELECT 1 FROM qsg_objects WHERE qsg=? AND ns=? AND name=? AND disp=?",
                        (self.qsg, ns, name, disp))
            exists = cur.fetchone() is not None
            if create and exists:
                return False
            if exists:
                cur.execute("UPDATE qsg_objects SET rec=? WHERE qsg=? AND ns=? AND name=? AND disp=?",
                            (json.dumps(rec), self.qsg, ns, name, disp))
            else:
                cur.execute("INSERT INTO qsg_objects(qsg, ns, name, disp, rec) VALUES (?,?,?,?,?)",
                            (self.qsg, ns, name, disp, json.dumps(rec)))
            self._bump(cur)
            return True

    def delete_object(self, ns: str, name: str, disp: str, purge_queue: bool) -> None:
        with self._tx() as cur:
            cur.execute("DELETE FROM qsg_objects WHERE qsg=? AND ns=? AND name=? AND disp=?",
                        (self.qsg, ns, name, disp))
            if purge_queue:
                cur.execute("DELETE FROM qsg_msgs WHERE qsg=? AND queue=?", (self.qsg, name))
                cur.execute("DELETE FROM qsg_depth WHERE qsg=? AND queue=?", (self.qsg, name))
            self._bump(cur)

    def _bump(self, cur: Any) -> None:
        # One statement (an upsert): two members bumping a group that has no row yet must not both
        # insert it (an update-then-insert races on PostgreSQL's READ COMMITTED).
        cur.execute("INSERT INTO qsg_meta(qsg, key, value) VALUES (?, 'objver', 1) ON CONFLICT (qsg, key) "
                    "DO UPDATE SET value = qsg_meta.value + 1", (self.qsg,))

    # --- messages --------------------------------------------------------------------------------
    def depth(self, queue: str) -> int:
        with self._tx(durable=False, write=False) as cur:
            cur.execute("SELECT depth FROM qsg_depth WHERE qsg=? AND queue=?", (self.qsg, queue))
            r = cur.fetchone()
            return r[0] if r else 0

    def put(self, msgs: list[NewMessage], maxdepth: dict[str, int]) -> None:
        """Write messages (one MQPUT outside syncpoint), all or none; QueueFull when a queue would
        pass its MAXDEPTH."""
        if msgs:
            with self._tx(durable=any(m.persistent for m in msgs)) as cur:
                self._insert(cur, msgs, maxdepth)

    def commit(self, msgs: list[NewMessage], delete: list[tuple[int, str]], durable: bool = True) -> None:
        """A unit of work's shared part at MQCMIT: its puts written, its claimed gets deleted.
        Not ``durable`` (only nonpersistent messages): no forced write."""
        with self._tx(durable) as cur:
            if msgs:
                self._insert(cur, msgs, {})
            if delete:
                self._delete(cur, delete)

    def _insert(self, cur: Any, msgs: list[NewMessage], maxdepth: dict[str, int]) -> None:
        counts: dict[str, int] = {}
        for m in msgs:
            counts[m.queue] = counts.get(m.queue, 0) + 1
        for queue, n in sorted(counts.items()):
            self._add_depth(cur, queue, n, maxdepth.get(queue))
        cur.executemany(
            "INSERT INTO qsg_msgs(qsg, queue, prio, md, body, expiry_at, persistent, target, msgid, correlid,"
            " groupid, seqno, first) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [(self.qsg, m.queue, m.prio, m.md, m.body, m.expiry_at, int(m.persistent), m.target, m.msgid,
              m.correlid, m.groupid, m.seqno, int(m.first)) for m in msgs])
        for queue in counts:
            self._notify(cur, queue)

    def _add_depth(self, cur: Any, queue: str, n: int, limit: int | None) -> None:
        cur.execute("INSERT INTO qsg_depth(qsg, queue, depth) VALUES (?,?,?) ON CONFLICT (qsg, queue) "
                    "DO UPDATE SET depth = qsg_depth.depth + excluded.depth RETURNING depth", (self.qsg, queue, n))
        depth = cur.fetchone()[0]
        if limit is not None and n > 0 and depth > limit:
            raise QueueFull(queue)

    def take(self, queue: str, fifo: bool, sel: Select, now: float, mode: str, owner: str = "",
             max_len: int | None = None) -> tuple[Row | None, bool]:
        """The first visible, unexpired message that ``sel`` matches, in queue order.

        ``mode``: 'browse' leaves it; 'claim' marks it got by ``owner`` (inside a unit of work);
        'delete' removes it. With ``max_len``, a longer message is returned but not taken (the
        caller answers 2080). Returns (row, taken).
        """
        where = ["qsg=?", "queue=?", "state='V'", "(expiry_at IS NULL OR expiry_at>?)"]
        args: list[Any] = [self.qsg, queue, now]
        if sel.id is not None:
            where.append("id=?")
            args.append(sel.id)
        for col, val in (("msgid", sel.msgid), ("correlid", sel.correlid), ("groupid", sel.groupid),
                         ("seqno", sel.seqno)):
            if val is not None:
                where.append(f"{col}=?")
                args.append(val)
        if sel.first_of_group:
            where.append("first=1")
        if sel.after is not None:
            prio, mid = sel.after
            if fifo:
                where.append("id>?")
                args.append(mid)
            else:
                where.append("(prio<? OR (prio=? AND id>?))")
                args.extend([prio, prio, mid])
        order = "id" if fifo else "prio DESC, id"
        durable = mode == "delete"
        sql = f"SELECT {COLS} FROM qsg_msgs WHERE {' AND '.join(where)} ORDER BY {order} LIMIT 1"
        if mode != "browse":
            sql += self.skip_locked
        with self._tx(durable) as cur:
            cur.execute(sql, args)
            t = cur.fetchone()
            if t is None:
                return None, False
            row = _row(t)
            if mode == "browse" or (max_len is not None and len(row.body) > max_len):
                return row, False
            if mode == "claim":
                cur.execute("UPDATE qsg_msgs SET state='G', owner=? WHERE id=?", (owner, row.id))
            else:
                if not row.persistent:
                    self._relax(cur)
                cur.execute("DELETE FROM qsg_msgs WHERE id=?", (row.id,))
                self._add_depth(cur, queue, -1, None)
            return row, True

    def read_batch(self, queue: str, target: str, limit: int, now: float, skip: set[int],
                   delete: list[tuple[int, str]] | None = None, durable: bool = True) -> list[Row]:
        """The IGQ agent's read: up to ``limit`` visible messages for ``target`` in arrival order,
        except the ``skip`` ids; in the same transaction the previous batch's ``delete`` (a batch
        costs one transaction of the shared store). Nothing is claimed: only this member's agent
        takes messages for it, and after a failure its batch record tells what was delivered."""
        sql = (f"SELECT {COLS} FROM qsg_msgs WHERE qsg=? AND queue=? AND target=? AND state='V'"
               " AND (expiry_at IS NULL OR expiry_at>?)")
        if skip:
            sql += " AND id NOT IN (%s)" % ",".join(str(int(i)) for i in skip)
        with self._tx(durable and bool(delete), write=bool(delete)) as cur:
            if delete:
                self._delete(cur, delete)
            cur.execute(sql + " ORDER BY id LIMIT ?", (self.qsg, queue, target, now, limit))
            return [_row(t) for t in cur.fetchall()]

    def finish(self, delete: list[tuple[int, str]], release: list[int], durable: bool = True) -> None:
        """End claims: ``delete`` (id, queue) pairs are removed (MQCMIT), ``release`` ids become
        visible again with their BackoutCount raised (MQBACK)."""
        with self._tx(durable and bool(delete)) as cur:
            if delete:
                self._delete(cur, delete)
            if release:
                cur.executemany("UPDATE qsg_msgs SET backout=backout+1, state='V', owner='' WHERE id=?",
                                [(i,) for i in release])
                cur.execute("SELECT DISTINCT queue FROM qsg_msgs WHERE qsg=? AND id IN (%s)"
                            % ",".join(str(int(i)) for i in release), (self.qsg,))
                for (q,) in cur.fetchall():
                    self._notify(cur, q)

    def _delete(self, cur: Any, delete: list[tuple[int, str]]) -> None:
        """Remove messages by id; the depths fall by what was really there, so deleting the same
        ids twice (the IGQ agent after a restart) changes nothing the second time."""
        cur.execute("DELETE FROM qsg_msgs WHERE qsg=? AND id IN (%s) RETURNING queue"
                    % ",".join(str(int(i)) for i, _q in delete), (self.qsg,))
        counts: dict[str, int] = {}
        for (q,) in cur.fetchall():
            counts[q] = counts.get(q, 0) + 1
        for q, n in sorted(counts.items()):
            self._add_depth(cur, q, -n, None)

    def release_owner(self, owner: str) -> int:
        """A member restarts: what it had claimed (inside units of work it never ended) comes back."""
        with self._tx() as cur:
            return self._release_owner(cur, owner)

    def _release_owner(self, cur: Any, owner: str) -> int:
        cur.execute("UPDATE qsg_msgs SET state='V', owner='', backout=backout+1 WHERE qsg=? AND state='G'"
                    " AND (owner=? OR owner LIKE ?)", (self.qsg, owner, owner + "/%"))
        return int(cur.rowcount)

    def expire(self, now: float) -> int:
        """Remove expired visible messages (MQ discards them when it notices; here a sweep)."""
        with self._tx() as cur:
            cur.execute("SELECT queue, COUNT(*) FROM qsg_msgs WHERE qsg=? AND state='V' AND expiry_at IS NOT NULL"
                        " AND expiry_at<=? GROUP BY queue", (self.qsg, now))
            counts = cur.fetchall()
            if not counts:
                return 0
            cur.execute("DELETE FROM qsg_msgs WHERE qsg=? AND state='V' AND expiry_at IS NOT NULL AND expiry_at<=?",
                        (self.qsg, now))
            for q, n in counts:
                self._add_depth(cur, q, -n, None)
            return sum(n for _q, n in counts)

    def clear(self, queue: str) -> int:
        """CLEAR QLOCAL of a shared queue: visible messages go; claimed ones stay with their owners."""
        with self._tx() as cur:
            cur.execute("DELETE FROM qsg_msgs WHERE qsg=? AND queue=? AND state='V'", (self.qsg, queue))
            n = int(cur.rowcount)
            if n:
                self._add_depth(cur, queue, -n, None)
            return n

    def rows(self, queue: str) -> Iterator[Row]:
        """Every message of a queue (tests and tools)."""
        with self._tx(durable=False, write=False) as cur:
            cur.execute(f"SELECT {COLS} FROM qsg_msgs WHERE qsg=? AND queue=? ORDER BY id", (self.qsg, queue))
            out = [_row(t) for t in cur.fetchall()]
        return iter(out)

    def drop_group(self) -> None:
        """Remove every row of this group (tests clean up after themselves)."""
        with self._tx() as cur:
            for table in ("qsg_members", "qsg_objects", "qsg_meta", "qsg_depth", "qsg_msgs"):
                cur.execute(f"DELETE FROM {table} WHERE qsg=?", (self.qsg,))



class Watcher(ABC):
    """Waits until another member may have changed the store."""

    @abstractmethod
    def wait(self, timeout: float) -> bool:
        """True when something changed within ``timeout`` seconds."""

    @abstractmethod
    def close(self) -> None:
        """Close the watcher's connection."""
