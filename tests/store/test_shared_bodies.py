"""Bodies stored once (store/sqlite.py): the puts of one write that carry the same bytes object (a
publication's copies to its durable subscribers) keep one row in ``bodies``; every reader gets the
whole message back, and the body goes with the last message that names it."""
from __future__ import annotations

import os

from mqlite.cmq.structs import MD
from mqlite.engine.ports import DelMsg, PurgeQueue, PutMsg
from mqlite.store.pager import StorePager
from mqlite.store.rows import SHARE_MIN
from mqlite.store.sqlite import Store

PRIOS = tuple(range(10))


def _copies(store: Store, first: int, queues: list[str], body: bytes) -> None:
    """One publication's persistent copies, journalled together as the engine does at commit."""
    store.extend([PutMsg(first + i, q, MD(Priority=0).pack(), body, None) for i, q in enumerate(queues)])


def _count(store: Store, table: str) -> int:
    return store.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # type: ignore[no-any-return]


def test_copies_share_one_body_until_the_last_is_removed(tmp_path: os.PathLike[str]) -> None:
    path = os.path.join(tmp_path, "qmgr.db")
    store = Store(path)
    queues = [f"SUB.{k}" for k in range(5)]
    body = os.urandom(SHARE_MIN * 4)
    _copies(store, 1, queues, body)
    store.append(PutMsg(6, "PLAIN", MD(Priority=0).pack(), bytes(bytearray(body)), None))   # equal, not the same: inline
    store.settle()
    assert _count(store, "bodies") == 1
    assert store.db.execute("SELECT count(*) FROM messages WHERE bref = 1").fetchone()[0] == 5
    store.close()

    # Read back after a restart through each queue (page) and by position (load), checksums intact.
    store = Store(path)
    pager = StorePager(store)
    for k, q in enumerate(queues):
        (row,) = pager.page(q, PRIOS, 0, None, 10)
        assert (row.seq, row.body, row.damaged) == (k + 1, body, False)
    assert {seq: row.body for seq, (_q, row) in pager.load([2, 6]).items()} == {2: body, 6: body}

    store.append(DelMsg(1))
    store.extend([DelMsg(2), DelMsg(3), DelMsg(4)])
    store.settle()
    assert _count(store, "bodies") == 1                                  # SUB.4's copy still names it
    store.append(DelMsg(5))
    store.settle()
    assert _count(store, "bodies") == 0
    assert [r.body for r in pager.page("PLAIN", PRIOS, 0, None, 10)] == [body]
    store.close()


def test_small_bodies_are_kept_with_each_row(tmp_path: os.PathLike[str]) -> None:
    store = Store(os.path.join(tmp_path, "qmgr.db"))
    _copies(store, 1, ["A", "B", "C"], b"x" * (SHARE_MIN - 1))
    store.settle()
    assert _count(store, "bodies") == 0
    assert [r.body for r in StorePager(store).page("B", PRIOS, 0, None, 10)] == [b"x" * (SHARE_MIN - 1)]
    store.close()


def test_purge_and_damage_leave_no_body_behind(tmp_path: os.PathLike[str]) -> None:
    store = Store(os.path.join(tmp_path, "qmgr.db"))
    first, second = os.urandom(1000), os.urandom(1000)
    _copies(store, 1, ["A", "A", "B"], first)
    _copies(store, 4, ["A", "C"], second)
    store.settle()
    assert _count(store, "bodies") == 2
    store.append(PurgeQueue("A"))
    store.settle()
    assert _count(store, "bodies") == 2                                  # B and C still name one each
    # C's copy fails its checksum when read: moved to the damaged table with its whole body.
    store.db.execute("UPDATE messages SET crc = crc + 1 WHERE queue = 'C'")
    (row,) = StorePager(store).page("C", PRIOS, 0, None, 10)
    assert row.damaged
    store.settle()
    assert store.db.execute("SELECT seq, body FROM damaged").fetchall() == [(5, second)]
    assert _count(store, "bodies") == 1
    store.append(PurgeQueue("B"))
    store.settle()
    assert _count(store, "bodies") == 0 and _count(store, "messages") == 0
    store.close()


def test_a_store_made_before_shared_bodies_gains_them_at_open(tmp_path: os.PathLike[str]) -> None:
    path = os.path.join(tmp_path, "qmgr.db")
    store = Store(path)
    store.append(PutMsg(1, "OLD", MD(Priority=0).pack(), b"old message" * 40, None))
    store.settle()
    with store.db:                      # as an earlier mqlite left it: no bref column, no bodies table
        store.db.execute("DROP INDEX messages_bref")
        store.db.execute("ALTER TABLE messages DROP COLUMN bref")
        store.db.execute("DROP TABLE bodies")
    store.close()
    store = Store(path)
    _copies(store, 2, ["N1", "N2"], b"new" * 200)
    store.settle()
    pager = StorePager(store)
    assert [r.body for r in pager.page("OLD", PRIOS, 0, None, 10)] == [b"old message" * 40]
    assert [r.body for r in pager.page("N2", PRIOS, 0, None, 10)] == [b"new" * 200]
    assert _count(store, "bodies") == 1
    store.close()
