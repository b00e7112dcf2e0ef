"""The journal's group commit (store/sqlite.py): a caller that finds nobody writing writes at once;
callers that arrive during a write hand over (a callback, or a wait) and share the next fsync."""
from __future__ import annotations

import os
import threading

import pytest

from mqlite.engine.ports import PutMsg
from mqlite.store.sqlite import Store


def _store(tmp_path: os.PathLike[str]) -> tuple[Store, list[int]]:
    store = Store(os.path.join(str(tmp_path), "qmgr.db"))
    writes: list[int] = []
    real = store._write

    def counted(ops: list[tuple[object, ...]]) -> int:
        writes.append(len(ops))
        return real(ops)
    store._write = counted          # type: ignore[method-assign]
    return store, writes


def _put(store: Store, seq: int) -> int:
    return store.append(PutMsg(seq, "Q", b"md", b"body%d" % seq, None))


def test_a_caller_alone_writes_itself_and_is_answered_at_once(tmp_path: os.PathLike[str]) -> None:
    store, writes = _store(tmp_path)
    called: list[int] = []
    ticket = _put(store, 1)
    assert store.when_durable(ticket, lambda: called.append(1)) is False   # written here, not kept
    assert store.durable_ticket >= ticket and writes == [1] and called == []
    assert store._writer is None            # no thread was needed
    store.close()


def test_many_connections_share_fsyncs_and_callbacks_run_once_in_ticket_order(tmp_path: os.PathLike[str]) -> None:
    store, writes = _store(tmp_path)
    lock = threading.Lock()
    answered: list[int] = []
    durable_when_answered: list[bool] = []
    n_threads, per_thread = 8, 150

    def producer(k: int) -> None:
        for i in range(per_thread):
            with lock:                       # appends in ticket order, as under the engine lock
                ticket = _put(store, k * per_thread + i + 1)

            def answer(t: int = ticket) -> None:
                durable_when_answered.append(store.durable_ticket >= t)
                answered.append(t)
            if not store.when_durable(ticket, answer):
                answer()
            if i % 10 == 0:
                store.sync(ticket)           # the waiting kind too

    threads = [threading.Thread(target=producer, args=(k,)) for k in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    store.sync()
    total = n_threads * per_thread
    assert sorted(answered) == list(range(1, total + 1))      # each answered exactly once
    assert all(durable_when_answered)                          # never before its write
    assert sum(writes) == total                                # every operation written once
    assert len(writes) < total                                 # and fsyncs were shared
    store.settle()                                             # (the rows are written behind the log)
    rows = store.db.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    assert rows == total
    store.close()


def test_callbacks_kept_for_a_ticket_run_in_ticket_order(tmp_path: os.PathLike[str]) -> None:
    store, _writes = _store(tmp_path)
    order: list[int] = []
    with store._lock:
        store._writing = True               # as if another thread were writing now
    t1, t2 = _put(store, 1), _put(store, 2)
    assert store.when_durable(t2, lambda: order.append(t2)) is True
    assert store.when_durable(t1, lambda: order.append(t1)) is True
    assert store._writer is not None         # started for the work left behind
    with store._lock:
        store._end_turn(True)                # that write ends: the journal writer takes over
    store.sync(t2)
    deadline = threading.Event()
    for _ in range(100):
        if len(order) == 2:
            break
        deadline.wait(0.01)
    assert order == [t1, t2]
    store.close()


def test_a_store_keyed_by_the_first_id_key_is_rekeyed_once_at_open(tmp_path: os.PathLike[str]) -> None:
    """Stores written before ``id_key`` version 2 held a CRC-32 of each identifier: opened now,
    every key is made again from the stored descriptor, so a get by MsgId still finds its message
    deep in the store."""
    import zlib

    from mqlite.cmq.structs import MD
    from mqlite.store.pager import StorePager
    from mqlite.store.rows import ID_KEYS, id_key
    path = os.path.join(tmp_path, "qmgr.db")
    s = Store(path)
    ids = [b"AMQ QM1         " + i.to_bytes(8, "big") for i in range(1, 51)]
    for seq, msgid in enumerate(ids, 1):
        s.append(PutMsg(seq, "Q", MD(MsgId=msgid, CorrelId=msgid, Priority=5).pack(), b"m%d" % seq, None))
    s.sync()
    with s.db:      # as version 1 left them
        s.db.execute("UPDATE messages SET msgh=?, corh=? WHERE seq=?", (zlib.crc32(ids[41]), zlib.crc32(ids[41]), 42))
        s.db.execute("DELETE FROM meta WHERE key='id_keys'")
    s.close()
    s = Store(path)
    assert s.meta("id_keys") == ID_KEYS
    assert s.db.execute("SELECT msgh, corh FROM messages WHERE seq=42").fetchone() == (id_key(ids[41]),) * 2
    found = StorePager(s).find("Q", tuple(range(10)), 0, (ids[41], None, None), 5)
    assert [r.body for r in found] == [b"m42"]
    s.close()


def test_free_space_is_read_after_commits_at_most_every_so_often_unless_it_runs_short(
        tmp_path: os.PathLike[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """statvfs after every commit cost each commit a system call and a turn of the interpreter
    lock: it is read at most every FREE_EVERY seconds, and at once when what was accepted since the
    last reading is an eighth of the free space or more (room() reads it too when short)."""
    store, _writes = _store(tmp_path)
    readings: list[int] = []
    free = [1 << 40]

    def free_bytes() -> int:
        readings.append(1)
        return free[0]
    monkeypatch.setattr(store, "_free_bytes", free_bytes)
    monkeypatch.setattr("mqlite.store.sqlite.FREE_EVERY", 60.0)
    for seq in range(1, 21):
        assert store.room(1000)
        store.sync(_put(store, seq))
    assert readings == []                     # 20 commits, well within the minute: no reading
    store._free_at -= 61.0
    store.sync(_put(store, 21))
    assert len(readings) == 1                 # the interval passed: read once
    free[0] = 8 * 1000                        # a nearly full disk: 1,000 bytes is an eighth of it
    store._free = free[0]
    assert store.room(1000) is False          # MQ's reserve is not there: refused, nothing written
    store.reserve = 0
    assert store.room(1000)
    store.sync(_put(store, 22))
    assert len(readings) == 3                 # room() read it, and so did the commit after
    store.close()


def test_a_hand_off_is_written_by_the_journal_writer_while_the_caller_goes_on(tmp_path: os.PathLike[str]) -> None:
    """``hand_off``: nobody is writing, yet the caller does not write: the journal writer does,
    then runs the callback (an AMQP connection reads its client's next transfers meanwhile)."""
    store, writes = _store(tmp_path)
    done = threading.Event()
    by: list[str] = []
    ticket = _put(store, 1)

    def durable() -> None:
        by.append(threading.current_thread().name)
        done.set()
    assert store.when_durable(ticket, durable, hand_off=True) is True
    assert done.wait(10) and store.durable_ticket >= ticket and writes == [1]
    assert by == ["journal-writer"]
    assert store.when_durable(ticket, durable, hand_off=True) is False     # durable already: not kept
    store.close()
