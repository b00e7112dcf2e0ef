"""The recovery log (store/log.py): kill -9 during group commits and during persistent fan-out loses
nothing acknowledged and doubles nothing; a damaged log refuses the start; frames round-trip."""
from __future__ import annotations

import errno
import os
import sqlite3
import threading
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite import pymqi
from mqlite.engine.ports import (
    DelMsg,
    DropChsync,
    DropObject,
    MoveDamaged,
    Prepare,
    PreparedRow,
    PurgeQueue,
    PutMsg,
    Resolve,
    SaveChsync,
    SaveMeta,
    SaveObject,
    SetBackout,
)
from mqlite.pymqi import CMQC
from mqlite.store import log as log_mod
from mqlite.store.log import RecoveryLog, decode, encode
from mqlite.store.sqlite import Store
from tests.conftest import mqlite
from tests.server.test_durability import drain


def _broken(e: pymqi.MQMIError) -> bool:
    return e.reason in (CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_Q_MGR_NOT_AVAILABLE, CMQC.MQRC_HOST_NOT_AVAILABLE)


def test_kill9_during_group_commits_loses_nothing_acknowledged(tmp_path) -> None:
    """Eight producers put persistent messages outside syncpoint (each answered once durable: their
    writes share frames); the server is killed -9 while they run. After strmqm the queue holds every
    acknowledged message once, and at most the one message each producer had in flight besides."""
    from mqlite.testing import Harness
    with Harness(data_dir=str(tmp_path)) as h:
        qm = h.add("GCQM", "DEFINE QLOCAL(GC.Q) DEFPSIST(YES) MAXDEPTH(1000000)\n")
        acked: list[set[bytes]] = [set() for _ in range(8)]
        tried: list[set[bytes]] = [set() for _ in range(8)]
        errors: list[BaseException] = []
        started = threading.Barrier(9)

        def producer(k: int) -> None:
            conn = qm.client()
            q = pymqi.Queue(conn, "GC.Q", CMQC.MQOO_OUTPUT)
            started.wait()
            try:
                for i in range(100_000):
                    body = b"p%d-%06d" % (k, i)
                    tried[k].add(body)
                    q.put(body)
                    acked[k].add(body)
            except pymqi.MQMIError as e:
                if not _broken(e):
                    errors.append(e)
            except BaseException as e:          # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=producer, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        started.wait()
        time.sleep(1.5)
        qm.kill9()
        for t in threads:
            t.join(30)
        assert not errors, errors[:3]
        assert sum(map(len, acked)) > 200, [len(a) for a in acked]
        assert mqlite("strmqm", "GCQM").returncode == 0
        conn = qm.client()
        got = drain(conn, "GC.Q")
        conn.disconnect()
        assert len(got) == len(set(got))                                  # nothing doubled
        for k in range(8):
            mine = {b for b in got if b.startswith(b"p%d-" % k)}
            assert acked[k] <= mine <= tried[k]                           # nothing acknowledged lost
            assert len(mine - acked[k]) <= 1                              # one in flight at most
            # each producer's messages in the order it put them
            order = [b for b in got if b.startswith(b"p%d-" % k)]
            assert order == sorted(order)


def test_kill9_during_persistent_fan_out_keeps_every_copy_of_every_acknowledged_publication(tmp_path) -> None:
    """A publisher publishes persistent publications (each answered once durable) to 20 durable
    subscriptions; killed -9 mid-way. After strmqm every subscription's queue holds the same
    publications, in order: every acknowledged one, and at most the one in flight."""
    from mqlite.testing import Harness
    with Harness(data_dir=str(tmp_path)) as h:
        qm = h.add("FOQM", "".join(f"DEFINE QLOCAL(FO.Q{k})\nDEFINE SUB(FO.S{k}) TOPICSTR('fo/t') DEST(FO.Q{k})\n"
                                   for k in range(20)))
        acked: list[bytes] = []
        tried: list[bytes] = []
        errors: list[BaseException] = []

        def publisher() -> None:
            conn = qm.client()
            topic = pymqi.Topic(conn, topic_string="fo/t")
            topic.open(open_opts=CMQC.MQOO_OUTPUT)
            md = pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT)
            try:
                for i in range(100_000):
                    body = b"pub-%06d-" % i + b"f" * 600
                    tried.append(body)
                    md.MsgId = b""
                    topic.pub(body, md)
                    acked.append(body)
            except pymqi.MQMIError as e:
                if not _broken(e):
                    errors.append(e)
            except BaseException as e:          # noqa: BLE001 - reported below
                errors.append(e)

        t = threading.Thread(target=publisher)
        t.start()
        time.sleep(2.0)
        qm.kill9()
        t.join(30)
        assert not errors, errors[:3]
        assert len(acked) > 20, len(acked)
        assert mqlite("strmqm", "FOQM").returncode == 0
        conn = qm.client()
        copies = [drain(conn, f"FO.Q{k}") for k in range(20)]
        conn.disconnect()
        first = copies[0]
        assert all(c == first for c in copies), [len(c) for c in copies]   # every copy, or none
        assert first[:len(acked)] == acked                                  # every acknowledged one, in order
        assert first == tried[:len(first)] and len(first) - len(acked) <= 1


def test_a_damaged_log_frame_refuses_the_start_and_accept_damage_keeps_the_intact_frames(tmp_path) -> None:
    """A byte flipped in a frame in the middle of the recovery log of a killed queue manager: strmqm
    refuses with AMQ7017S; --accept-damage starts from the frames before the damage (a prefix of
    the acknowledged messages), says so (MQL7017W) and keeps the damaged extent beside the log."""
    from mqlite.testing import Harness
    with Harness(data_dir=str(tmp_path)) as h:
        qm = h.add("LOGQM", "DEFINE QLOCAL(L.Q) DEFPSIST(YES)\n")
        conn = qm.client()
        q = pymqi.Queue(conn, "L.Q", CMQC.MQOO_OUTPUT)
        for i in range(100):
            q.put(b"acknowledged-%03d-" % i + b"l" * 1000)
        conn.disconnect()
        qm.kill9()
        qdir = tmp_path / "qmgrs" / "LOGQM"
        # the rows are applied behind the log: forget them, as if the applier had not run
        db = sqlite3.connect(qdir / "qmgr.db")
        db.execute("DELETE FROM messages WHERE queue='L.Q'")
        db.execute("DELETE FROM meta WHERE key='log_applied'")
        db.commit()
        db.close()
        (extent,) = sorted((qdir / "qmgr.db-log").iterdir())
        raw = bytearray(extent.read_bytes())
        frames, at = [], raw.find(b"MQLF")
        while at != -1:
            frames.append(at)
            at = raw.find(b"MQLF", at + 1)
        assert len(frames) >= 50
        raw[frames[len(frames) // 2] + log_mod.FRAME_HEADER.size + 3] ^= 0xFF     # inside a frame in the middle
        extent.write_bytes(bytes(raw))
        r = mqlite("strmqm", "LOGQM")
        assert r.returncode != 0 and "AMQ7017S" in r.stdout + r.stderr
        assert "committed frames follow" in (qdir / "errors" / "AMQERR01.LOG").read_text()
        r = mqlite("strmqm", "--accept-damage", "LOGQM")
        assert r.returncode == 0, r.stdout + r.stderr
        conn = qm.client()
        got = drain(conn, "L.Q")
        conn.disconnect()
        assert 0 < len(got) < 100 and got == [b"acknowledged-%03d-" % i + b"l" * 1000 for i in range(len(got))]
        assert "MQL7017W" in (qdir / "errors" / "AMQERR01.LOG").read_text()
        assert any(".damaged-" in p.name for p in (qdir / "qmgr.db-log").iterdir())


# --- the log and its applier, in process ----------------------------------------------------------

_ids = st.integers(min_value=1, max_value=2 ** 62)
_names = st.text(min_size=1, max_size=20)
_ops = st.one_of(
    st.builds(PutMsg, _ids, _names, st.binary(max_size=400), st.binary(max_size=2000),
              st.none() | st.floats(allow_nan=False)),
    st.builds(DelMsg, _ids), st.builds(SetBackout, _ids, st.integers(0, 999)), st.builds(PurgeQueue, _names),
    st.builds(MoveDamaged, _ids), st.builds(SaveObject, _names, _names, st.text()),
    st.builds(DropObject, _names, _names), st.builds(SaveMeta, _names, st.text()),
    st.builds(SaveChsync, _names, st.text()), st.builds(DropChsync, _names), st.builds(Resolve, _names),
    st.builds(Prepare, _names, st.floats(allow_nan=False), st.lists(st.builds(
        PreparedRow, st.sampled_from(["put", "get"]), _ids, _names, st.none() | st.binary(max_size=50),
        st.none() | st.binary(max_size=50), st.none() | st.floats(allow_nan=False)), max_size=3)))


@settings(max_examples=200, deadline=None)
@given(st.lists(_ops, max_size=20))
def test_a_frame_gives_back_the_operations_it_was_made_of(ops) -> None:
    assert decode(encode(ops)) == ops


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(_ops, min_size=1, max_size=5), min_size=1, max_size=6), st.data())
def test_a_torn_last_frame_is_dropped_and_is_not_damage(tmp_path_factory, frames, data) -> None:
    """Any cut of the last frame (a write the crash interrupted: never acknowledged; its bytes from
    the cut on are the zeros the extent was made with) loses that frame alone; the frames before it
    come back, and it is not reported as damage. (A cut within zeros the frame ends with changes
    nothing: that frame is whole and comes back too; hypothesis found one, a SaveMeta of an empty
    value.)"""
    d = str(tmp_path_factory.mktemp("log"))
    log = RecoveryLog(d)
    for ops in frames:
        log.append(ops)
    log.close()
    (path,) = [os.path.join(d, n) for n in os.listdir(d)]
    sizes = [log_mod.FRAME_HEADER.size + len(encode(ops)) for ops in frames]
    size = log_mod.EXTENT_HEADER.size + sum(sizes)       # (zeros follow the frames)
    last = sizes[-1]
    cut = data.draw(st.integers(min_value=size - last, max_value=size - 1))
    with open(path, "r+b") as f:
        f.seek(cut)
        torn = f.read(size - cut).strip(b"\0") != b""      # (a frame ending in zeros cut in them is whole)
        f.seek(cut)
        f.write(bytes(size - cut))
    back = RecoveryLog(d)
    assert [ops for _lsn, ops in back.frames()] == (frames[:-1] if torn else frames)
    assert back.damage() is None


def test_rows_are_applied_behind_the_log_and_a_failing_apply_keeps_the_frames(tmp_path, monkeypatch) -> None:
    """sync() returns once the frame is durable; the applier writes the rows after it. While qmgr.db
    cannot be written (a full disk) the frames stay in the log, the store refuses new data and the
    unapplied puts are still read (unwritten); a store opened after a crash applies them."""
    monkeypatch.setattr(log_mod, "RETRY_SECONDS", 0.05)
    path = str(tmp_path / "qmgr.db")
    store = Store(path)
    assert store.applier is not None
    real = store._commit
    failing = [True]

    def commit(ops, lsn=0):
        if failing[0]:
            raise sqlite3.OperationalError("database or disk is full")
        return real(ops, lsn)
    monkeypatch.setattr(store.applier, "_apply", commit)
    ticket = store.append(PutMsg(1, "Q", b"md", b"body", None))
    store.sync(ticket)
    deadline = time.monotonic() + 5
    while not store.stalled and time.monotonic() < deadline:
        time.sleep(0.01)
    assert store.stalled and not store.room(100)
    assert [op.seq for op in store.unwritten("Q")] == [1]
    assert store.db.execute("SELECT count(*) FROM messages").fetchone()[0] == 0
    # a crash now: the next open applies the frame
    again = Store(path)
    assert again.db.execute("SELECT seq FROM messages").fetchall() == [(1,)]
    assert os.listdir(path + "-log") == []
    again.close()
    failing[0] = False
    store.settle()
    assert store.unwritten("Q") == [] and not store.applier.failed and not store.stalled
    store.close()


def test_a_clean_close_leaves_no_log_and_the_frames_keep_counting(tmp_path) -> None:
    path = str(tmp_path / "qmgr.db")
    store = Store(path)
    store.sync(store.append(PutMsg(1, "Q", b"md", b"one", None)))
    store.sync(store.append(DelMsg(1)))
    store.close()
    assert os.listdir(path + "-log") == []
    again = Store(path)
    assert again.meta("log_applied") == "2" and again.log is not None and again.log.next_lsn == 3
    again.close()


def test_frames_run_on_across_extents_and_a_break_inside_one_is_damage(tmp_path, monkeypatch) -> None:
    """Extents filled with zeros ahead of their frames end where the next extent begins: every
    frame comes back across them. A frame broken inside an extent that later extents follow is
    damage, and the frames before it are what --accept-damage keeps."""
    monkeypatch.setattr(log_mod, "EXTENT_BYTES", 4096)
    monkeypatch.setattr(log_mod, "FILL_BYTES", 8192)
    d = str(tmp_path / "log")
    log = RecoveryLog(d)
    frames = [[PutMsg(i, "Q", b"md", b"b" * 700, None), DelMsg(i)] for i in range(1, 40)]
    for ops in frames:
        log.append(ops)
    log.close()
    paths = sorted(os.listdir(d))
    assert len(paths) > 3
    back = RecoveryLog(d)
    assert [ops for _lsn, ops in back.frames()] == frames and back.damage() is None
    second = os.path.join(d, paths[1])
    raw = bytearray(open(second, "rb").read())
    at = raw.find(b"MQLF")
    raw[at + log_mod.FRAME_HEADER.size + 5] ^= 0xFF          # the second extent's first frame
    open(second, "wb").write(bytes(raw))
    back = RecoveryLog(d)
    kept = [ops for _lsn, ops in back.frames()]
    assert kept == frames[:len(kept)] and 0 < len(kept) < len(frames)
    assert "later extents follow" in (back.damage() or "")


def test_zeros_a_filling_disk_takes_only_part_of_never_count_as_written(tmp_path, monkeypatch) -> None:
    """On a disk filling up, ``pwrite`` writes what fits and says so (only the next call fails with
    ENOSPC). An extent's zeros, begun or extended, that were taken as written whole left a header
    saying the extent was longer than the file: after kill -9 the queue manager would not start
    (AMQ7017S, "cut short"; seen once in the full-disk test). A short write is a failed one: the
    header says only what is there, every frame comes back and the log is not damaged."""
    monkeypatch.setattr(log_mod, "EXTENT_BYTES", 16384)
    monkeypatch.setattr(log_mod, "FILL_BYTES", 16384)
    real = os.pwrite
    cut = {"at": -1, "short": 0}

    def filling(fd: int, data, at: int) -> int:
        data = bytes(data)
        if len(data) >= 2048 and data.count(0) == len(data):     # a run of zeros: the extent's
            if at == cut["at"]:
                raise OSError(errno.ENOSPC, "No space left on device")
            n = real(fd, data[:len(data) // 2], at)               # half fits
            cut["at"], cut["short"] = at + n, cut["short"] + 1
            return n
        return real(fd, data, at)
    monkeypatch.setattr(os, "pwrite", filling)
    d = str(tmp_path / "log")
    log = RecoveryLog(d)
    frames = [[PutMsg(i, "Q", b"md", b"b" * 1500, None)] for i in range(1, 60)]   # past several extents' ends
    for ops in frames:
        log.append(ops)
    log.close()
    monkeypatch.setattr(os, "pwrite", real)
    assert cut["short"] >= 2                                      # a begun extent's zeros and a frame's fill
    back = RecoveryLog(d)
    assert back.damage() is None
    assert [ops for _lsn, ops in back.frames()] == frames
