"""The log's applier (store/log.py): a message put and removed among the frames of one run is never
written to qmgr.db (``cancelled``), and what is applied leaves the tables as every operation would;
the puts not yet applied are found per queue (``Store.unwritten``)."""
from __future__ import annotations

import sqlite3
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite.cmq.structs import MD
from mqlite.engine.ports import DelMsg, MoveDamaged, Prepare, PreparedRow, PurgeQueue, PutMsg, SaveMeta, SetBackout
from mqlite.store import log as log_mod
from mqlite.store.log import Removals, cancelled
from mqlite.store.rows import BODY
from mqlite.store.sqlite import MemoryStore, Store

# A few positions and queues, so that puts, removals and the rest meet; bodies drawn from a few
# objects long enough to be shared (a publication's copies carry one bytes object).
_seqs = st.integers(1, 4)
_queues = st.sampled_from(["A", "B"])
_bodies = st.sampled_from([b"x" * 300, b"y" * 300, b"short"])
_op = st.one_of(
    st.builds(PutMsg, _seqs, _queues, st.sampled_from([b"md-1", b"md-2"]), _bodies, st.none()),
    st.builds(DelMsg, _seqs), st.builds(DelMsg, _seqs),
    st.builds(SetBackout, _seqs, st.integers(1, 9)),
    st.builds(MoveDamaged, _seqs),
    st.builds(PurgeQueue, _queues),
    st.builds(SaveMeta, st.just("k"), st.text(max_size=3)),
    st.builds(Prepare, st.just("xid"), st.just(1.0), st.lists(st.builds(
        PreparedRow, st.just("get"), _seqs, _queues, st.none(), st.none(), st.none()), max_size=2)))


def removed(frames: list[list]) -> set[int]:
    """The simple model of ``Removals``: the messages these frames remove, less any they also set
    aside as damaged or name in a prepared unit."""
    gone = {op.seq for ops in frames for op in ops if isinstance(op, DelMsg)}
    kept = {op.seq for ops in frames for op in ops if isinstance(op, MoveDamaged)} | {
        r.seq for ops in frames for op in ops if isinstance(op, Prepare) for r in op.rows}
    return gone - kept


def _tables(store: MemoryStore) -> tuple[list, list, list, list, int]:
    db = store.db
    return (db.execute(f"SELECT seq, queue, md, {BODY}, backout FROM messages ORDER BY seq").fetchall(),
            db.execute("SELECT seq, queue, md, body FROM damaged ORDER BY rowid").fetchall(),
            db.execute("SELECT xid, kind, seq FROM prepared ORDER BY rowid").fetchall(),
            db.execute("SELECT key, value FROM meta WHERE key='k'").fetchall(),
            db.execute("SELECT count(*) FROM bodies WHERE id NOT IN "
                       "(SELECT bref FROM messages WHERE bref IS NOT NULL)").fetchone()[0])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_op, max_size=12), min_size=1, max_size=4))
def test_applying_the_cancelled_runs_leaves_the_tables_as_every_operation_would(runs) -> None:
    """Against SQLite itself: runs of operations applied one transaction each, with and without
    what ``cancelled`` leaves out (pairs within a run, and puts the later runs remove), give the
    same messages (data, BackoutCount), damaged and prepared rows, and no body left that no
    message uses."""
    every, fewer = MemoryStore(), MemoryStore()
    seen: set[int] = set()        # a position is put once (the queue manager never reuses one)
    runs = [[op for op in ops if type(op) is not PutMsg or not (op.seq in seen or seen.add(op.seq))]
            for ops in runs]
    for i, ops in enumerate(runs):
        every._commit(list(ops))
        kept = cancelled(list(ops), Removals(runs[i + 1:]))
        assert len(kept) <= len(ops)
        fewer._commit(kept)
    assert _tables(fewer) == _tables(every)
    assert _tables(fewer)[4] == 0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_op, max_size=8), max_size=12), st.lists(st.integers(0, 3), max_size=12))
def test_the_removals_kept_as_frames_come_and_go_are_those_of_the_frames_waiting(frames, takes) -> None:
    """The applier's ``Removals`` (frames added as they are handed, taken away a run at a time from
    the front, a failed run's put back) answers as the frames still waiting would, counted afresh:
    the same messages removed for good, and no count left for a message no waiting frame names."""
    later, waiting = Removals(), []
    for i, ops in enumerate(frames):
        later.add(ops)
        waiting.append(ops)
        run = waiting[:takes[i] if i < len(takes) else 0]
        for o in run:
            later.drop(o)
        if i % 3 == 2:                     # the run failed: its frames wait again, in front
            for o in run:
                later.add(o)
        else:
            waiting = waiting[len(run):]
        fresh = Removals(waiting)
        assert (later.gone, later.kept) == (fresh.gone, fresh.kept)
        assert {seq for seq in range(1, 5) if seq in later} == removed(waiting)
        kept = cancelled([PutMsg(s, "Q", b"md", b"x", None) for s in range(1, 5)], later)
        assert [op.seq for op in kept] == [s for s in range(1, 5) if s not in removed(waiting)]


def test_a_put_and_its_removal_in_one_run_leave_the_rest_in_order() -> None:
    p1, p2, p3 = (PutMsg(s, "Q", b"md", b"m%d" % s, None) for s in (1, 2, 3))
    ops = [p1, p2, SetBackout(1, 1), DelMsg(1), p3, DelMsg(7), SetBackout(2, 1)]
    assert cancelled(ops) == [p2, p3, DelMsg(7), SetBackout(2, 1)]
    # a message set aside as damaged, or held by a prepared unit, in between keeps its rows
    held = Prepare("x", 1.0, [PreparedRow("get", 1, "Q", None, None, None)])
    assert cancelled([p1, held, DelMsg(1)]) == [p1, held, DelMsg(1)]
    assert cancelled([p1, MoveDamaged(1), DelMsg(1)]) == [p1, MoveDamaged(1), DelMsg(1)]
    # put again after its removal: the second put stays; put twice, then removed: neither
    assert cancelled([p1, DelMsg(1), p1]) == [p1]
    assert cancelled([p1, p1._replace(body=b"again"), DelMsg(1)]) == []
    assert cancelled([]) == []
    # a put whose removal is in a later frame is left out; its removal, applied later, is nothing
    later = [[p3], [DelMsg(2), DelMsg(3), MoveDamaged(3)]]
    assert {seq for seq in (1, 2, 3) if seq in Removals(later)} == removed(later) == {2}
    assert cancelled([p1, p2, SetBackout(2, 1)], Removals(later)) == [p1]


def test_messages_put_and_got_between_two_runs_never_reach_qmgr_db(tmp_path, monkeypatch) -> None:
    """With the applier gathering (APPLY_DELAY), puts and gets committed meanwhile reach SQLite
    as nothing; a message still on the queue is written; the pager meanwhile finds the unapplied
    puts of the queue it asks for, in order, and none of another queue."""
    monkeypatch.setattr(log_mod, "APPLY_DELAY", 3600.0)
    store = Store(str(tmp_path / "qmgr.db"))
    assert store.applier is not None
    applied: list[list] = []
    real = store.applier._apply
    monkeypatch.setattr(store.applier, "_apply", lambda ops, lsn: (applied.append(list(ops)), real(ops, lsn)))
    for seq in range(1, 11):
        store.sync(store.append(PutMsg(seq, "A" if seq % 2 else "B", b"md", b"data%d" % seq, None)))
    for seq in range(1, 10):
        store.sync(store.append(DelMsg(seq)))
    assert [op.seq for op in store.unwritten("B")] == [2, 4, 6, 8, 10]
    assert [op.seq for op in store.unwritten("A")] == [1, 3, 5, 7, 9]
    store.settle()
    assert store.unwritten("A") == [] and store.unwritten("B") == []
    assert applied == [[PutMsg(10, "B", b"md", b"data10", None)]]
    assert store.db.execute("SELECT seq FROM messages").fetchall() == [(10,)]
    store.close()
    again = Store(str(tmp_path / "qmgr.db"))
    assert again.db.execute("SELECT seq, queue FROM messages").fetchall() == [(10, "B")]
    again.close()


def _failing_applier(error: BaseException) -> log_mod.Applier:
    def apply(ops: list, top: int) -> None:
        raise error
    return log_mod.Applier(apply, lambda lsn: None, lambda why: whys.append(why))


whys: list[str] = []


def test_an_end_whose_last_apply_fails_with_no_message_is_not_waited_for_forever() -> None:
    """A queue manager ending (``closing``) whose qmgr.db write fails stops applying, and ``stop``
    returns, its frames left in the log for the next start: even when the error's text is empty
    (it was taken for "works again" and the end waited for ever, endmqm -i saying 'ended' after
    its 60 s with the queue manager still running)."""
    whys.clear()
    ap = _failing_applier(AssertionError())
    ap.closing = True
    ap.hand(1, [DelMsg(1)])
    t0 = time.monotonic()
    assert ap.stop() is False
    assert time.monotonic() - t0 < 5
    assert whys and whys[0] == "AssertionError()"


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_an_applier_thread_that_died_is_not_waited_for() -> None:
    """Whatever ends the applier's thread (here an error its loop does not catch), settling and
    stopping return, False: nothing that was handed over is claimed applied."""
    ap = _failing_applier(KeyboardInterrupt())
    ap.hand(1, [DelMsg(1)])
    assert ap._thread is not None
    ap._thread.join(5)
    assert not ap._thread.is_alive()
    t0 = time.monotonic()
    assert ap.settle() is False and ap.stop() is False
    assert time.monotonic() - t0 < 5


def test_a_checkpoint_the_full_disk_refuses_keeps_the_log_and_the_applier(tmp_path, monkeypatch) -> None:
    """The checkpoint after a run (what lets the log's extents go) failing with SQLITE_FULL: the
    extents stay, the applier goes on applying later frames, and the end is clean; the next
    start finds every message. (It ended the applier's thread: seen as AMQ6184W in the full-disk
    test, and as an end that waited for ever.)"""
    store = Store(str(tmp_path / "qmgr.db"))
    assert store.applier is not None and store.log is not None
    full = [True]
    real = store._checkpoint

    def checkpoint() -> None:
        if full[0]:
            raise sqlite3.OperationalError("database or disk is full")
        real()
    monkeypatch.setattr(store, "_checkpoint", checkpoint)
    monkeypatch.setattr(store.log, "releasable", lambda applied: True)
    released: list[int] = []
    monkeypatch.setattr(store.log, "release", lambda applied: released.append(applied))
    store.sync(store.append(PutMsg(1, "A", b"md", b"one", None)))
    store.settle()
    assert released == [] and store.applier._thread is not None and store.applier._thread.is_alive()
    full[0] = False
    store.sync(store.append(PutMsg(2, "A", b"md", b"two", None)))
    store.settle()
    deadline = time.monotonic() + 5             # (the release follows the run's commit)
    while not released and time.monotonic() < deadline:
        time.sleep(0.01)
    assert released and store.applier._thread.is_alive()
    t0 = time.monotonic()
    store.close()
    assert time.monotonic() - t0 < 10
    again = Store(str(tmp_path / "qmgr.db"))
    assert again.db.execute("SELECT seq FROM messages ORDER BY seq").fetchall() == [(1,), (2,)]
    again.close()


def _sqlite_memory() -> int:
    """The bytes SQLite has allocated in this process (sqlite3_memory_used: every connection's
    page cache among them), from the library the sqlite3 module uses."""
    import ctypes
    lib = ctypes.CDLL("libsqlite3.so.0")
    lib.sqlite3_memory_used.restype = ctypes.c_int64
    return int(lib.sqlite3_memory_used())


def test_the_applier_gives_its_page_cache_back_once_idle_and_not_before(tmp_path, monkeypatch) -> None:
    """Issue 69: the queue manager's RSS at depth was SQLite's page cache (up to 64 MiB, filled as
    the applier writes a deep queue's rows) kept for ever. An applier that has had nothing to
    apply for IDLE_SHRINK after a run releases it, and not sooner; what was written reads back
    whole after the release."""
    monkeypatch.setattr(log_mod, "IDLE_SHRINK", 2.0)
    store = Store(str(tmp_path / "qmgr.db"))
    before = _sqlite_memory()
    md = MD(Persistence=1, Priority=0).pack()
    seq = 0
    for _ in range(40):                                        # 40,000 messages of 1 KiB, 1,000 a frame
        for _ in range(1000):
            seq += 1
            store.append(PutMsg(seq, "DEEP", md, b"x" * 1024, None))
        store.sync()
    store.settle()
    grown = _sqlite_memory() - before
    assert grown > 8 << 20, grown                              # the rows' pages are in the cache
    time.sleep(0.3)                                            # idle, but not for IDLE_SHRINK yet
    assert _sqlite_memory() - before > grown // 2
    deadline = time.monotonic() + 10
    while _sqlite_memory() - before > 4 << 20 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _sqlite_memory() - before <= 4 << 20, _sqlite_memory() - before
    store.append(PutMsg(seq + 1, "DEEP", md, b"y", None))       # and the store goes on
    store.sync()
    store.close()
    again = Store(str(tmp_path / "qmgr.db"))
    try:
        assert again.message_counts() == {"DEEP": {0: seq + 1}}
    finally:
        again.close()
