"""Queues read by position and two-phase units of work: the engine (with a property-based model)
and a real server (pymqi extensions, restart after kill -9, dspmqtrn/rsvmqtrn)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite import pymqi
from mqlite.cli.proc import run_mqlite
from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.testing import Harness
from tests.conftest import Engine
from tests.helpers import drain

READER = C.MQOO_BROWSE | C.MQOO_INPUT_SHARED


def reason(fn, *args) -> int:
    with pytest.raises((MQIError, pymqi.MQMIError)) as e:
        fn(*args)
    return e.value.reason


def drain_stream(eng: Engine, hobj: int, start: int, max_msgs: int = 0) -> tuple[list[bytes], int]:
    """One reader step as the Spark source takes it: mark, read the range, delete below its end."""
    end, _, _ = eng.qm.streams.mark(eng.conn, hobj, start, max_msgs)
    got = [body for _pos, _md, body in eng.qm.streams.read(eng.conn, hobj, start, end, 10**6, 1 << 30)]
    eng.qm.streams.delete(eng.conn, hobj, start, end)
    return got, end


# Steps of the model: a producer (one of three connections) puts with or without syncpoint, commits,
# backs out or prepares and resolves; a stream reader takes what is stable whenever it likes.
STEP = st.one_of(
    st.tuples(st.just("put"), st.integers(0, 2), st.booleans(), st.integers(0, 9)),
    st.tuples(st.just("commit"), st.integers(0, 2)),
    st.tuples(st.just("backout"), st.integers(0, 2)),
    st.tuples(st.just("prepare"), st.integers(0, 2), st.booleans()),
    st.tuples(st.just("read"), st.integers(0, 4)),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(STEP, max_size=60))
def test_a_stream_reads_every_committed_message_once_in_arrival_order(steps) -> None:
    eng = Engine()
    eng.mqsc("DEFINE QLOCAL(SQ)")
    conns = [eng.qm.connect("producer") for _ in range(3)]
    outs = [eng.qm.open(c, pymqi.OD(ObjectName=b"SQ"), C.MQOO_OUTPUT).hobj for c in conns]
    reader = eng.open("SQ", READER)[0].hobj
    pending: list[list[bytes]] = [[], [], []]
    committed: list[bytes] = []
    read: list[bytes] = []
    start, n = 0, 0
    for step in steps:
        kind = step[0]
        if kind == "put":
            _, i, sync, prio = step
            n += 1
            body = b"m%d" % n
            eng.put(outs[i], body, conn=conns[i], Priority=prio, pmo_options=C.MQPMO_SYNCPOINT if sync else 0)
            (pending[i] if sync else committed).append(body)
        elif kind == "commit":
            eng.qm.commit(conns[step[1]])
            committed += pending[step[1]]
            pending[step[1]] = []
        elif kind == "backout":
            eng.qm.backout(conns[step[1]])
            pending[step[1]] = []
        elif kind == "prepare":
            _, i, commit = step
            xid = f"x{n}-{i}"
            eng.qm.prepare(conns[i], xid)
            assert [u["xid"] for u in eng.qm.prepared_units()] == [xid]
            eng.qm.resolve_prepared(conns[i], [xid] if commit else [], [] if commit else [xid])
            if commit:
                committed += pending[i]
            pending[i] = []
        else:
            got, start = drain_stream(eng, reader, start, step[1])
            read += got
    for c in conns:
        eng.qm.commit(c)
    for p in pending:
        committed += p
    while True:
        got, start = drain_stream(eng, reader, start)
        if not got:
            break
        read += got
    # Every committed message exactly once; the ones a single producer put without syncpoint come
    # in the order it put them; nothing is left behind.
    assert sorted(read) == sorted(committed) and len(set(read)) == len(read)
    assert eng.qm.queues["SQ"].depth == 0


def test_mark_waits_for_an_open_unit_and_limits(eng: Engine) -> None:
    r = eng.open("Q1", READER)[0].hobj
    w = eng.open("Q1", C.MQOO_OUTPUT)[0].hobj
    other = eng.qm.connect("other")
    ow = eng.qm.open(other, pymqi.OD(ObjectName=b"Q1"), C.MQOO_OUTPUT).hobj
    eng.put(w, b"a")
    eng.put(ow, b"held", conn=other, pmo_options=C.MQPMO_SYNCPOINT)
    eng.put(w, b"b", Priority=9)
    end, count, held = eng.qm.streams.mark(eng.conn, r, 0, 0)
    assert [b for _p, _m, b in eng.qm.streams.read(eng.conn, r, 0, end, 100, 1 << 20)] == [b"a"]
    assert held == 1                    # "b" waits behind the open unit's put
    # A batch read (committed) takes every committed message, the held put aside.
    snap, _, held = eng.qm.streams.mark(eng.conn, r, 0, 0, True)
    assert held == 0 and [b for _p, _m, b in eng.qm.streams.read(eng.conn, r, 0, snap, 100, 1 << 20)] == [b"a", b"b"]
    eng.qm.commit(other)
    end2, count, held = eng.qm.streams.mark(eng.conn, r, end, 1)
    assert held == 0
    assert count == 1 and [b for _p, _m, b in eng.qm.streams.read(eng.conn, r, end, end2, 100, 1 << 20)] == [b"held"]
    assert eng.qm.streams.mark(eng.conn, r, end2, 0)[1] == -1
    assert eng.qm.streams.delete(eng.conn, r, 0, end2) == 2 and eng.qm.queues["Q1"].depth == 1
    # A range in the middle of the queue goes alone (a batch read in mode "get", one range a task).
    for body in (b"c", b"d", b"e"):
        eng.put(w, body, Priority=3)
    rows = eng.qm.streams.read(eng.conn, r, end2, 1 << 62, 100, 1 << 20)
    assert [b for _p, _m, b in rows] == [b"b", b"c", b"d", b"e"]
    assert eng.qm.streams.delete(eng.conn, r, rows[2][0], rows[3][0]) == 1
    assert [b for _p, _m, b in eng.qm.streams.read(eng.conn, r, 0, 1 << 62, 100, 1 << 20)] == [b"b", b"c", b"e"]
    # Browse and input are needed, as for MQGET; a remote queue cannot be read by position.
    assert reason(eng.qm.streams.mark, eng.conn, w, 0, 0) == C.MQRC_NOT_OPEN_FOR_BROWSE
    b_only = eng.open("Q1", C.MQOO_BROWSE)[0].hobj
    assert reason(eng.qm.streams.delete, eng.conn, b_only, 0, end2) == C.MQRC_NOT_OPEN_FOR_INPUT
    eng.mqsc("DEFINE QLOCAL(XQ) USAGE(XMITQ)\nDEFINE QREMOTE(RQ) RNAME(A) RQMNAME(QM2) XMITQ(XQ)")
    assert reason(eng.open, "RQ", C.MQOO_BROWSE) == C.MQRC_OPTION_NOT_VALID_FOR_TYPE
    eng.mqsc("ALTER QLOCAL(Q1) GET(DISABLED)")
    assert reason(eng.qm.streams.read, eng.conn, r, 0, 1 << 62, 10, 100) == C.MQRC_GET_INHIBITED


def test_prepare_errors(eng: Engine) -> None:
    w = eng.open("Q1", C.MQOO_OUTPUT)[0].hobj
    eng.put(w, b"a", pmo_options=C.MQPMO_SYNCPOINT)
    assert eng.qm.prepare(eng.conn, "t1") == 1
    assert eng.qm.queues["Q1"].depth == 1 and eng.qm.queues["Q1"].visible == 0
    assert reason(eng.qm.prepare, eng.conn, "t1") == C.MQRC_UOW_IN_PROGRESS
    assert reason(eng.qm.prepare, eng.conn, "") == C.MQRC_UOW_NOT_AVAILABLE
    assert reason(eng.qm.resolve_prepared, eng.conn, ["t1", "t2"]) == C.MQRC_UOW_NOT_AVAILABLE
    assert eng.qm.queues["Q1"].visible == 0           # the unknown XID changed nothing
    # An empty unit can be prepared and resolved too (a Spark task with no rows).
    assert eng.qm.prepare(eng.conn, "empty") == 0
    out = eng.qm.resolve_prepared(eng.conn, ["t1"], backout_prefix="empty")
    assert out == {"outcome": "committed", "committed": 1, "backed_out": 1}
    assert eng.qm.prepared_units() == [] and eng.qm.queues["Q1"].visible == 1


def test_prepared_units_survive_kill_and_are_resolved_by_the_commands() -> None:
    with Harness() as h:
        qm = h.add("XAQM", "DEFINE QLOCAL(T.Q) DEFPSIST(YES)\n")
        c = qm.client()
        q = pymqi.Queue(c, "T.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE | C.MQOO_BROWSE)
        for i in range(5):
            q.put(b"old%d" % i)
        q.get()                                         # old0, under no syncpoint
        got = q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_SYNCPOINT))
        assert got == b"old1"
        for i in range(3):
            q.put(b"new%d" % i, pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        assert c.prepare("spark-writer/task-1") == 4
        q.put(b"x", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        assert c.prepare("spark-writer/task-2") == 1
        assert reason(c.prepare, "spark-writer/task-2") == C.MQRC_UOW_IN_PROGRESS
        qm.kill9()
        qm.start()
        c = qm.client()
        q = pymqi.Queue(c, "T.Q", C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE | C.MQOO_BROWSE)
        # Depth counts the held get and the prepared puts; none of them can be got yet.
        assert q.inquire(C.MQIA_CURRENT_Q_DEPTH) == 8
        assert [u["xid"] for u in c.prepared_units()] == ["spark-writer/task-1", "spark-writer/task-2"]
        out = run_mqlite("dspmqtrn", "-m", "XAQM").stdout
        assert "Transaction number 0,1." in out and "XID: spark-writer/task-1" in out
        assert "1 put(s), 0 get(s) on T.Q" in out
        r = run_mqlite("rsvmqtrn", "-m", "XAQM", "-c", "0,1")
        assert r.returncode == 0 and "spark-writer/task-1 committed" in r.stdout
        assert run_mqlite("rsvmqtrn", "-m", "XAQM", "-b", "spark-writer/task-2").returncode == 0
        assert run_mqlite("rsvmqtrn", "-m", "XAQM", "-b", "nothing").returncode == 40
        assert "no matching transactions" in run_mqlite("dspmqtrn", "-m", "XAQM").stdout
        c.disconnect()
        # old1 was got by the committed unit: gone; the backed-out put never appears.
        assert drain(h, "XAQM", "T.Q") == [b"old2", b"old3", b"old4", b"new0", b"new1", b"new2"]


def test_a_transaction_number_names_the_same_unit_after_others_are_resolved() -> None:
    """Issue 68: dspmqtrn lists A, B and C as 0,1, 0,2 and 0,3; backing out 0,1 (A) must leave
    0,2 naming B, as the operator read it (it named C: the numbers were positions in the list).
    Units prepared later take new numbers; a restart numbers the survivors in prepare order."""
    with Harness() as h:
        qm = h.add("XAQM3", "DEFINE QLOCAL(T.Q) DEFPSIST(YES)\n")
        c = qm.client()
        q = pymqi.Queue(c, "T.Q", C.MQOO_OUTPUT)
        for unit in "ABC":
            q.put(unit.encode(), pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
            c.prepare(f"unit-{unit}")
        listing = run_mqlite("dspmqtrn", "-m", "XAQM3").stdout
        assert [line for line in listing.splitlines() if "Transaction number" in line or "XID" in line] == [
            "Transaction number 0,1.", "    XID: unit-A", "Transaction number 0,2.", "    XID: unit-B",
            "Transaction number 0,3.", "    XID: unit-C"]
        assert "unit-A backed out" in run_mqlite("rsvmqtrn", "-m", "XAQM3", "-b", "0,1").stdout
        r = run_mqlite("rsvmqtrn", "-m", "XAQM3", "-c", "0,2")
        assert r.returncode == 0 and "unit-B committed" in r.stdout
        assert run_mqlite("rsvmqtrn", "-m", "XAQM3", "-c", "0,1").returncode == 40     # A is gone, 0,1 with it
        q.put(b"D", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        c.prepare("unit-D")
        assert [(u["number"], u["xid"]) for u in c.prepared_units()] == [(3, "unit-C"), (4, "unit-D")]
        c.disconnect()
        qm.kill9()
        qm.start()
        out = run_mqlite("dspmqtrn", "-m", "XAQM3").stdout
        assert "Transaction number 0,1." in out and "XID: unit-C" in out and "XID: unit-D" in out
        assert run_mqlite("rsvmqtrn", "-m", "XAQM3", "-b", "0,1").returncode == 0
        assert run_mqlite("rsvmqtrn", "-m", "XAQM3", "-c", "0,2").returncode == 0
        assert drain(h, "XAQM3", "T.Q") == [b"B", b"D"]


def test_a_batch_mark_turns_a_replayed_commit_into_a_backout() -> None:
    with Harness() as h:
        qm = h.add("XAQM2", "DEFINE QLOCAL(T.Q) DEFPSIST(YES)\n")
        c = qm.client()
        q = pymqi.Queue(c, "T.Q", C.MQOO_OUTPUT | C.MQOO_INQUIRE)
        for attempt in range(2):
            q.put(b"row", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
            c.prepare(f"w1/a{attempt}")
        # The first attempt's unit is abandoned: the commit backs it out by the prefix.
        out = c.resolve_prepared(["w1/a1"], backout_prefix="w1/", mark=("w1", 7))
        assert out == {"outcome": "committed", "committed": 1, "backed_out": 1}
        q.put(b"row", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        c.prepare("w1/replay")
        qm.kill9()
        qm.start()
        c = qm.client()
        out = c.resolve_prepared(["w1/replay"], backout_prefix="w1/", mark=("w1", 7))
        assert out["outcome"] == "duplicate" and out["backed_out"] == 1
        assert pymqi.Queue(c, "T.Q", C.MQOO_INQUIRE).inquire(C.MQIA_CURRENT_Q_DEPTH) == 1
        assert reason(c.resolve_prepared, ["w1/replay"]) == C.MQRC_UOW_NOT_AVAILABLE
        # A job that ends closes its prefix: a straggler's prepare (after a restart too) is
        # backed out with 2003 and leaves nothing in doubt; other prefixes are not touched.
        q = pymqi.Queue(c, "T.Q", C.MQOO_OUTPUT | C.MQOO_INQUIRE)
        c.resolve_prepared([], [], backout_prefix="job1/", end_prefix=True)
        qm.kill9()
        qm.start()
        c = qm.client()
        q = pymqi.Queue(c, "T.Q", C.MQOO_OUTPUT | C.MQOO_INQUIRE)
        q.put(b"late", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        assert reason(c.prepare, "job1/task-9") == C.MQRC_BACKED_OUT
        assert c.prepared_units() == [] and q.inquire(C.MQIA_CURRENT_Q_DEPTH) == 1
        q.put(b"other", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        assert c.prepare("job2/task-1") == 1
        c.resolve_prepared(["job2/task-1"])
        assert q.inquire(C.MQIA_CURRENT_Q_DEPTH) == 2
        c.disconnect()


def test_closed_prefixes_are_forgotten_after_a_week(eng: Engine) -> None:
    w = eng.open("Q1", C.MQOO_OUTPUT)[0].hobj
    eng.qm.resolve_prepared(eng.conn, [], backout_prefix="old/", end_prefix=True)
    eng.put(w, b"a", pmo_options=C.MQPMO_SYNCPOINT)
    assert reason(eng.qm.prepare, eng.conn, "old/1") == C.MQRC_BACKED_OUT
    eng.clock.advance(8 * 86400)
    eng.qm.resolve_prepared(eng.conn, [], backout_prefix="new/", end_prefix=True)
    assert not any(k.startswith("XAEND:old/") for k in eng.qm.uow.chsync)
    eng.put(w, b"b", pmo_options=C.MQPMO_SYNCPOINT)
    assert eng.qm.prepare(eng.conn, "old/2") == 1


def test_a_range_removed_under_syncpoint_is_prepared_and_settled_by_prefix() -> None:
    """A batch read's task in mode "get": the range goes as gets in the task's unit of work,
    prepared under the job's XID prefix; a retry backs the earlier attempt out by its prefix and
    reads the same messages again; the driver commits by the job's prefix (kill -9 between)."""
    with Harness() as h:
        qm = h.add("XAQM3", "DEFINE QLOCAL(R.Q) DEFPSIST(YES) MAXDEPTH(100)\nALTER QMGR MAXUMSGS(5)\n")
        c = qm.client()
        w = pymqi.Queue(c, "R.Q", C.MQOO_OUTPUT)
        for i in range(6):
            w.put(f"m{i}".encode(), pymqi.MD(Persistence=i % 2))    # persistent and not
        r = pymqi.Queue(c, "R.Q", READER | C.MQOO_INQUIRE)
        end = r.stream_mark(0, committed=True).end
        # More than MAXUMSGS in one unit: 2024 and nothing removed.
        assert reason(r.stream_delete, end, 0, True) == C.MQRC_SYNCPOINT_LIMIT_REACHED
        assert r.inquire(C.MQIA_CURRENT_Q_DEPTH) == 6
        rows = r.stream_read(0, end)
        mid = rows[3][0]
        assert r.stream_delete(mid, 0, True) == 3
        assert [b for _p, _m, b in r.stream_read(0, end)] == [b"m3", b"m4", b"m5"]
        c.prepare("read-1/exec-0/part-0/attempt-1")
        assert c.prepared_units()[0]["gets"] == 3 and r.inquire(C.MQIA_CURRENT_Q_DEPTH) == 6
        c.disconnect()
        qm.kill9()
        qm.start()
        c = qm.client()
        r = pymqi.Queue(c, "R.Q", READER)
        # The persistent gets were prepared durably: still held after kill -9 (the nonpersistent
        # messages went with the restart, as MQ's do).
        assert [b for _p, _m, b in r.stream_read(0, end)] == [b"m3", b"m5"]
        # The retry backs the first attempt out by the partition's prefix, reads the same range.
        c.resolve_prepared(backout_prefix="read-1/exec-0/part-0/")
        again = r.stream_read(0, mid)
        assert [b for _p, _m, b in again] == [b"m1"] and again[0][0] == rows[1][0]
        assert pymqi.MD().unpack(again[0][1]).BackoutCount == 1
        assert r.stream_delete(mid, 0, True) == 1
        c.prepare("read-1/exec-0/part-0/attempt-2")
        assert r.stream_delete(end, mid, True) == 2
        c.prepare("read-1/exec-0/part-1/attempt-3")
        # The action succeeded: the driver commits every unit of the execution and closes it.
        out = c.resolve_prepared(commit_prefix="read-1/exec-0/", end_prefix=True)
        assert out == {"outcome": "committed", "committed": 2, "backed_out": 0}
        assert r.stream_read(0, 1 << 62) == [] and c.prepared_units() == []
        w = pymqi.Queue(c, "R.Q", C.MQOO_OUTPUT)
        w.put(b"late", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        assert reason(c.prepare, "read-1/exec-0/part-1/attempt-4") == C.MQRC_BACKED_OUT
        assert pymqi.Queue(c, "R.Q", C.MQOO_INQUIRE).inquire(C.MQIA_CURRENT_Q_DEPTH) == 0
        c.disconnect()
