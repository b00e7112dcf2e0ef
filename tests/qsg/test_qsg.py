"""Queue-sharing groups: members as real processes on the SQLite and on the PostgreSQL shared store.

Every test runs on both stores. PostgreSQL is the local server (127.0.0.1:5432, trust auth); without
it the PostgreSQL runs are skipped on a developer machine and fail in CI (CI=true).
"""
from __future__ import annotations

import os
import random
import string
import threading
import time
from typing import Any, Callable

import pytest

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.cmq.headers import DLH
from mqlite.store.shared import open_shared
from mqlite.testing import Harness
from tests.conftest import require_pg
from tests.helpers import reason

XMITQ = "SYSTEM.QSG.TRANSMIT.QUEUE"


@pytest.fixture(params=["sqlite", "postgresql"])
def group(request: Any, tmp_path: Any) -> Any:
    """(harness, qsg name, store location or None): a fresh group on the store under test."""
    # A random name (a group per test on a shared PostgreSQL), never one of the members' names
    # (QSGA..QSGD), which MQ refuses as a group name.
    qsg = "Q" + "".join(random.choices(string.ascii_uppercase.replace("S", ""), k=3))
    url = None
    if request.param == "postgresql":
        url = require_pg()
    with Harness() as h:
        yield h, qsg, url
    if url is not None:
        store = open_shared(qsg, url)
        store.drop_group()
        store.close()


def members(g: Any, *names: str, mqsc: str = "") -> list[Any]:
    h, qsg, url = g
    return [h.add(n, mqsc, qsg=qsg, qsg_store=url) for n in names]


def until(cond: Callable[[], Any], timeout: float = 10.0, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or cond}")
        time.sleep(0.05)


def depth(conn: Any, queue: str) -> int:
    q = pymqi.Queue(conn, queue, C.MQOO_INQUIRE)
    try:
        return int(q.inquire(C.MQIA_CURRENT_Q_DEPTH))
    finally:
        q.close()


def known(qm: Any, queue: str) -> bool:
    return "AMQ8409I" in qm.mqsc(f"DISPLAY QUEUE({queue})").stdout


def get_all(conn: Any, queue: str, wait_ms: int = 0) -> list[bytes]:
    q = pymqi.Queue(conn, queue)
    out = []
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT if wait_ms else C.MQGMO_NO_WAIT, WaitInterval=wait_ms)
    try:
        while True:
            out.append(q.get(None, pymqi.MD(), gmo))
    except pymqi.MQMIError as e:
        assert e.reason == C.MQRC_NO_MSG_AVAILABLE
    q.close()
    return out


def test_shared_queue_across_three_members(group: Any) -> None:
    h, qsg, _url = group
    a, b, c = members(group, "QSGA", "QSGB", "QSGC")
    r = a.mqsc("DEFINE QLOCAL(SQ1) QSGDISP(SHARED) CFSTRUCT(APP1) MAXDEPTH(5)")
    assert "AMQ8006I" in r.stdout
    # A shared queue needs a CFSTRUCT; a second definition of the name is refused everywhere.
    assert "CFSTRUCT" in a.mqsc("DEFINE QLOCAL(SQ2) QSGDISP(SHARED)").stdout
    until(lambda: known(b, "SQ1") and known(c, "SQ1"), what="SQ1 on every member")
    assert "AMQ8150E" in b.mqsc("DEFINE QLOCAL(SQ1) QSGDISP(SHARED) CFSTRUCT(APP1)").stdout
    assert "AMQ8150E" in c.mqsc("DEFINE QLOCAL(SQ1)").stdout
    assert "QSGDISP(SHARED)" in b.mqsc("DISPLAY QLOCAL(SQ1) CFSTRUCT").stdout

    ca, cb, cc = a.client(), b.client(), c.client()
    # ObjectQMgrName blank, the local queue manager or the group: the same queue, resolved to the group.
    for i, qmname in enumerate(("", "QSGA", qsg)):
        od = pymqi.OD(ObjectName=b"SQ1", ObjectQMgrName=qmname.encode())
        q = pymqi.Queue(ca, od, C.MQOO_OUTPUT)
        q.put(b"m%d" % i, pymqi.MD(Persistence=i % 2, Priority=i))
        assert od.ResolvedQMgrName.strip() == qsg.encode()
        q.close()
    assert [depth(x, "SQ1") for x in (ca, cb, cc)] == [3, 3, 3]

    # Browse on B (priority order), then a get inside a unit of work on B, backed out: C gets it
    # with its BackoutCount raised; a commit removes for good.
    qb = pymqi.Queue(cb, "SQ1", C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)
    seen = []
    opts = C.MQGMO_BROWSE_FIRST
    try:
        while True:
            seen.append(qb.get(None, pymqi.MD(), pymqi.GMO(Options=opts)))
            opts = C.MQGMO_BROWSE_NEXT
    except pymqi.MQMIError as e:
        assert e.reason == C.MQRC_NO_MSG_AVAILABLE
    assert seen == [b"m2", b"m1", b"m0"]
    md = pymqi.MD()
    assert qb.get(None, md, pymqi.GMO(Options=C.MQGMO_SYNCPOINT)) == b"m2"
    assert depth(cc, "SQ1") == 3          # claimed, still counted
    qc = pymqi.Queue(cc, "SQ1")
    assert qc.get() == b"m1"              # C cannot see the claimed one
    cb.backout()
    md = pymqi.MD()
    assert qc.get(None, md) == b"m2" and md.BackoutCount == 1
    md = pymqi.MD()
    assert qb.get(None, md, pymqi.GMO(Options=C.MQGMO_SYNCPOINT)) == b"m0"
    cb.commit()
    assert depth(ca, "SQ1") == 0

    # MAXDEPTH is the group's: 5 messages whoever puts them, the sixth 2053.
    for i, conn in enumerate((ca, cb, cc, ca, cb)):
        pymqi.Queue(conn, "SQ1").put(b"x%d" % i)
    with pytest.raises(pymqi.MQMIError) as ei:
        pymqi.Queue(cc, "SQ1").put(b"too many")
    assert ei.value.reason == C.MQRC_Q_FULL
    # A waiting MQGET on C is woken by a put on A.
    assert len(get_all(cc, "SQ1")) == 5
    got: list[bytes] = []
    t = threading.Thread(target=lambda: got.append(
        pymqi.Queue(c.client(), "SQ1").get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=10000))))
    t.start()
    time.sleep(0.5)
    t0 = time.monotonic()
    pymqi.Queue(ca, "SQ1").put(b"wake up")
    t.join(10)
    assert got == [b"wake up"] and time.monotonic() - t0 < 2.0

    # Administration: the disposition must be named; not empty refuses DELETE; then all forget it.
    pymqi.Queue(ca, "SQ1").put(b"left")
    assert "AMQ8147E" in b.mqsc("ALTER QLOCAL(SQ1) MAXDEPTH(9)").stdout
    assert "AMQ8008I" in b.mqsc("ALTER QLOCAL(SQ1) QSGDISP(SHARED) MAXDEPTH(9)").stdout
    until(lambda: "MAXDEPTH(9)" in c.mqsc("DISPLAY QLOCAL(SQ1) MAXDEPTH").stdout, what="ALTER seen on C")
    assert "AMQ8148E" in c.mqsc("DELETE QLOCAL(SQ1) QSGDISP(SHARED)").stdout    # open on C
    for conn in (ca, cb, cc):
        conn.disconnect()
    assert "AMQ8143E" in c.mqsc("DELETE QLOCAL(SQ1) QSGDISP(SHARED)").stdout
    assert "AMQ8007I" in c.mqsc("DELETE QLOCAL(SQ1) QSGDISP(SHARED) PURGE").stdout
    until(lambda: not known(a, "SQ1") and not known(b, "SQ1"), what="SQ1 gone everywhere")


def test_persistent_shared_messages_survive_a_member_killed(group: Any) -> None:
    a, b = members(group, "QSGA", "QSGB")
    a.mqsc("DEFINE QLOCAL(SQ) QSGDISP(SHARED) CFSTRUCT(APP1)", check=True)
    until(lambda: known(b, "SQ"))
    ca = a.client()
    q = pymqi.Queue(ca, "SQ")
    for i in range(20):
        q.put(b"p%d" % i, pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    # A holds five inside a unit of work when it dies: they come back for B, counted as backed out.
    qin = pymqi.Queue(ca, "SQ", C.MQOO_INPUT_SHARED)
    for _ in range(5):
        qin.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_SYNCPOINT))
    a.kill9()
    cb = b.client()
    assert depth(cb, "SQ") == 20
    a.start()
    got = until(lambda: get_all(cb, "SQ") or None, what="messages after A restarted")
    more = get_all(cb, "SQ")
    assert sorted(got + more) == sorted(b"p%d" % i for i in range(20))


def test_group_objects_give_every_member_a_copy(group: Any) -> None:
    a, b, c = members(group, "QSGA", "QSGB", "QSGC")
    assert "AMQ8006I" in a.mqsc("DEFINE QLOCAL(GQ) QSGDISP(GROUP) MAXDEPTH(7)").stdout
    for m in (a, b, c):
        until(lambda m=m: "QSGDISP(COPY)" in m.mqsc("DISPLAY QLOCAL(GQ)").stdout, what=f"COPY on {m.name}")
    out = b.mqsc("DISPLAY QLOCAL(GQ) QSGDISP(ALL) MAXDEPTH").stdout
    assert "QSGDISP(GROUP)" in out and "QSGDISP(COPY)" in out
    assert "QSGDISP(GROUP)" not in b.mqsc("DISPLAY QLOCAL(GQ)").stdout     # LIVE: no group objects
    # Each copy is a queue of its own member.
    pymqi.Queue(b.client(), "GQ").put(b"on B")
    assert depth(c.client(), "GQ") == 0
    # ALTER of the group object reaches every copy; of a copy, only that member.
    assert "AMQ8008I" in c.mqsc("ALTER QLOCAL(GQ) QSGDISP(GROUP) MAXDEPTH(8)").stdout
    for m in (a, b, c):
        until(lambda m=m: "MAXDEPTH(8)" in m.mqsc("DISPLAY QLOCAL(GQ) MAXDEPTH").stdout, what=f"ALTER on {m.name}")
    assert "AMQ8147E" in a.mqsc("ALTER QLOCAL(GQ) MAXDEPTH(3)").stdout       # QMGR: not this one
    assert "AMQ8008I" in a.mqsc("ALTER QLOCAL(GQ) QSGDISP(COPY) MAXDEPTH(3)").stdout
    # A member started later gets its copy at start-up.
    (d,) = members(group, "QSGD")
    assert "QSGDISP(COPY)" in d.mqsc("DISPLAY QLOCAL(GQ)").stdout
    assert "AMQ8007I" in a.mqsc("DELETE QLOCAL(GQ) QSGDISP(GROUP)").stdout
    for m in (a, c, d):
        until(lambda m=m: not known(m, "GQ"), what=f"copy removed on {m.name}")
    # B's copy holds a message: MQ keeps a copy that is in use or not empty? Ours goes when unused.
    until(lambda: not known(b, "GQ"), what="copy removed on B")


def test_igq_delivers_and_resolves(group: Any) -> None:
    h, qsg, _url = group
    a, b, c = members(group, "QSGA", "QSGB", "QSGC", mqsc="DEFINE QLOCAL(LQ)")
    ca = a.client()
    # IGQ disabled and no other route to another member: 2087.
    with pytest.raises(pymqi.MQMIError) as ei:
        pymqi.Queue(ca, pymqi.OD(ObjectName=b"LQ", ObjectQMgrName=b"QSGB"), C.MQOO_OUTPUT)
    assert ei.value.reason == C.MQRC_UNKNOWN_REMOTE_Q_MGR
    assert "AMQ8005I" in a.mqsc("ALTER QMGR IGQ(ENABLED) IGQAUT(CTX) IGQUSER(igqagent)").stdout
    out = a.mqsc("DISPLAY QMGR IGQ IGQAUT IGQUSER SQQMNAME QSGNAME").stdout
    for want in ("IGQ(ENABLED)", "IGQAUT(CTX)", "IGQUSER(IGQAGENT)", "SQQMNAME(USE)", f"QSGNAME({qsg})"):
        assert want in out
    od = pymqi.OD(ObjectName=b"LQ", ObjectQMgrName=b"QSGB")
    q = pymqi.Queue(ca, od, C.MQOO_OUTPUT)
    assert od.ResolvedQMgrName.strip() == b"QSGB"
    sent = {}
    for i in range(60):
        md = pymqi.MD(Persistence=i % 2, Priority=i % 10, CorrelId=b"c%d" % i)
        q.put(b"igq%d" % i, md)
        sent[b"igq%d" % i] = md.MsgId
    # A queue-manager alias and a remote definition to a member take IGQ too, ahead of their XMITQ.
    a.mqsc("DEFINE QLOCAL(XQ) USAGE(XMITQ)\nDEFINE QREMOTE(TOC) RNAME(LQ) RQMNAME(QSGC) XMITQ(XQ)", check=True)
    pymqi.Queue(ca, "TOC").put(b"for C", pymqi.MD(Persistence=1))
    cb = b.client()
    got = {}
    qb = pymqi.Queue(cb, "LQ")
    for _ in range(60):
        md = pymqi.MD()
        body = qb.get(None, md, pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=10000))
        got[body] = md
    assert set(got) == set(sent)
    assert all(got[b].MsgId == sent[b] for b in sent)                      # context passed on
    assert got[b"igq7"].Persistence == 1 and got[b"igq7"].CorrelId.rstrip(b"\0") == b"c7"
    assert got[b"igq7"].PutApplName.strip() != b""
    assert get_all(c.client(), "LQ", 10000)[:1] == [b"for C"], (depth(ca, "XQ"), depth(ca, XMITQ))
    assert depth(ca, "XQ") == 0 and depth(ca, XMITQ) == 0

    # SQQMNAME: another member's name for a shared queue goes there (USE) or stays here (IGNORE).
    a.mqsc("DEFINE QLOCAL(SQ) QSGDISP(SHARED) CFSTRUCT(APP1)", check=True)
    until(lambda: known(c, "SQ"))
    cc = c.client()
    c.mqsc("ALTER QMGR IGQ(ENABLED)", check=True)
    od = pymqi.OD(ObjectName=b"SQ", ObjectQMgrName=b"QSGB")
    pymqi.Queue(cc, od, C.MQOO_OUTPUT).put(b"via B")
    assert od.ResolvedQMgrName.strip() == b"QSGB"
    c.mqsc("ALTER QMGR SQQMNAME(IGNORE)", check=True)
    od = pymqi.OD(ObjectName=b"SQ", ObjectQMgrName=b"QSGB")
    pymqi.Queue(cc, od, C.MQOO_OUTPUT).put(b"direct")
    assert od.ResolvedQMgrName.strip() == qsg.encode()
    got_sq = sorted(get_all(cb, "SQ", 5000) + get_all(cb, "SQ", 2000))
    assert got_sq == [b"direct", b"via B"], (depth(cc, XMITQ), _log("QSGB"))


def _log(qmgr: str) -> str:
    with open(os.path.join(os.environ["MQLITE_DATA"], "qmgrs", qmgr, "errors", "AMQERR01.LOG")) as f:
        return f.read()[-3000:]


def test_igq_dead_letter_paths(group: Any) -> None:
    a, b = members(group, "QSGA", "QSGB")
    a.mqsc("ALTER QMGR IGQ(ENABLED)", check=True)
    ca, cb = a.client(), b.client()
    od = pymqi.OD(ObjectName=b"NOSUCH", ObjectQMgrName=b"QSGB")
    # 1. B has a dead-letter queue: the message goes there behind an MQDLH with reason 2085.
    pymqi.Queue(ca, od, C.MQOO_OUTPUT).put(b"lost", pymqi.MD(Persistence=1))
    dlq = pymqi.Queue(cb, "SYSTEM.DEAD.LETTER.QUEUE")
    md = pymqi.MD()
    body = dlq.get(None, md, pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=10000))
    dlh = DLH.from_bytes(body[:C.MQDLH_LENGTH_1])
    assert dlh.Reason == C.MQRC_UNKNOWN_OBJECT_NAME and dlh.DestQName.strip() == b"NOSUCH"
    assert body[C.MQDLH_LENGTH_1:] == b"lost" and md.Format == C.MQFMT_DEAD_LETTER_HEADER
    # 2. No dead-letter queue: nonpersistent discarded, persistent back on the shared transmission
    #    queue and retried until it can be delivered.
    b.mqsc("ALTER QMGR DEADQ(' ')", check=True)
    q = pymqi.Queue(ca, od, C.MQOO_OUTPUT)
    q.put(b"np", pymqi.MD(Persistence=0))
    q.put(b"keep me", pymqi.MD(Persistence=1))
    time.sleep(1.5)
    assert depth(ca, XMITQ) == 1
    b.mqsc("DEFINE QLOCAL(NOSUCH)", check=True)
    assert get_all(cb, "NOSUCH", 12000) == [b"keep me"]
    assert depth(ca, XMITQ) == 0
    # 3. A full dead-letter queue is the same as none.
    b.mqsc("DEFINE QLOCAL(DLQ) MAXDEPTH(1)\nALTER QMGR DEADQ(DLQ)", check=True)
    pymqi.Queue(cb, "DLQ").put(b"filler")
    od2 = pymqi.OD(ObjectName=b"GONE", ObjectQMgrName=b"QSGB")
    q2 = pymqi.Queue(ca, od2, C.MQOO_OUTPUT)
    q2.put(b"np2", pymqi.MD(Persistence=0))
    q2.put(b"p2", pymqi.MD(Persistence=1))
    time.sleep(1.5)
    assert depth(ca, XMITQ) == 1 and depth(cb, "DLQ") == 1
    assert get_all(cb, "DLQ") == [b"filler"]
    body = get_all(cb, "DLQ", 12000)
    assert len(body) == 1 and body[0].endswith(b"p2")
    log = _log("QSGB")
    assert "MQL7014W" in log and "MQL7013W" in log


def test_inbound_channel_hops_through_igq(group: Any) -> None:
    h, _qsg, _url = group
    a, b = members(group, "QSGA", "QSGB", mqsc="DEFINE QLOCAL(LQ)")
    a.mqsc("ALTER QMGR IGQ(ENABLED)\nDEFINE CHANNEL(X.TO.A) CHLTYPE(RCVR) TRPTYPE(TCP)", check=True)
    x = h.add("OUTX", f"""DEFINE QLOCAL(TOA) USAGE(XMITQ)
DEFINE QREMOTE(RQ) RNAME(LQ) RQMNAME(QSGB) XMITQ(TOA)
DEFINE CHANNEL(X.TO.A) CHLTYPE(SDR) CONNAME('{a.conname}') XMITQ(TOA)
START CHANNEL(X.TO.A)""")
    cx = x.client()
    q = pymqi.Queue(cx, "RQ")
    for i in range(10):
        q.put(b"hop%d" % i, pymqi.MD(Persistence=1))
    got = [get_all(b.client(), "LQ", 15000)]
    assert sorted(got[0]) == sorted(b"hop%d" % i for i in range(10))


def test_kill9_during_igq_traffic_loses_and_doubles_nothing(group: Any) -> None:
    a, b = members(group, "QSGA", "QSGB", mqsc="DEFINE QLOCAL(LQ) MAXDEPTH(100000)")
    a.mqsc("ALTER QMGR IGQ(ENABLED)", check=True)
    n = 1500
    done = threading.Event()
    errors: list[BaseException] = []

    def produce() -> None:
        try:
            conn = a.client()
            q = pymqi.Queue(conn, pymqi.OD(ObjectName=b"LQ", ObjectQMgrName=b"QSGB"), C.MQOO_OUTPUT)
            for i in range(n):
                q.put(b"k%05d" % i, pymqi.MD(Persistence=C.MQPER_PERSISTENT))
            conn.disconnect()
        except BaseException as e:  # noqa: BLE001
            errors.append(e)
        finally:
            done.set()

    t = threading.Thread(target=produce)
    t.start()
    for kills in range(2):
        # Kill B while its agent is delivering.
        until(lambda: b.running() and depth(b.client(), "LQ") > 200 * (kills + 1), 60, "deliveries on B")
        b.kill9()
        time.sleep(0.3)
        b.start()
    done.wait(120)
    t.join()
    assert not errors
    cb = b.client()
    until(lambda: depth(cb, "LQ") >= n and depth(cb, XMITQ) == 0, 60, "all delivered")
    bodies = get_all(cb, "LQ")
    assert len(bodies) == n and len(set(bodies)) == n
    assert set(bodies) == {b"k%05d" % i for i in range(n)}


def test_igq_record_of_two_batches_survives_its_first_use(group: Any) -> None:
    """After a crash the IGQ agent's batch record may name two batches (one delivered, one being
    deleted) that are still on the shared transmission queue. The record that the next delivery
    writes replaces it: the agent must delete every id it names first, or the second batch's
    messages would be delivered again. Here 400 messages sit on the queue and B's record says all
    400 were delivered already: none may arrive."""
    import json
    import sqlite3

    from mqlite.paths import QMPaths
    h, qsg, url = group
    a, b = members(group, "QSGA", "QSGB", mqsc="DEFINE QLOCAL(LQ)")
    a.mqsc("ALTER QMGR IGQ(ENABLED)", check=True)
    b.stop()
    conn = a.client()
    q = pymqi.Queue(conn, pymqi.OD(ObjectName=b"LQ", ObjectQMgrName=b"QSGB"), C.MQOO_OUTPUT)
    for i in range(400):
        q.put(b"r%03d" % i, pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    conn.disconnect()
    store = open_shared(qsg, url or os.path.join(h.data_dir, "qsg", f"{qsg}.db"))
    ids = [r.id for r in store.rows(XMITQ)]
    store.close()
    assert len(ids) == 400
    db = sqlite3.connect(QMPaths.of("QSGB").db)
    db.execute("INSERT OR REPLACE INTO chsync(name, rec) VALUES (?, ?)", ("SYSTEM.QSG.IGQ", json.dumps({"ids": ids})))
    db.commit()
    db.close()
    b.start()
    cb = b.client()
    until(lambda: depth(cb, XMITQ) == 0, 30, "the recorded messages deleted")
    time.sleep(0.5)
    assert depth(cb, "LQ") == 0


def test_shared_queues_do_not_segment(group: Any) -> None:
    """As on z/OS (docs/segments.md): MQMF_SEGMENTATION_ALLOWED is accepted and ignored on a shared
    queue (too big stays 2030), and an application's segment is refused with 2365."""
    (a,) = members(group, "QSGA")
    a.mqsc("DEFINE QLOCAL(SEGQ) QSGDISP(SHARED) CFSTRUCT(APP1) MAXMSGL(100)", check=True)
    conn = a.client()
    q = pymqi.Queue(conn, "SEGQ", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    assert reason(q.put, b"x" * 300, pymqi.MD(MsgFlags=C.MQMF_SEGMENTATION_ALLOWED)) == (
        C.MQCC_FAILED, C.MQRC_MSG_TOO_BIG_FOR_Q)
    assert reason(q.put, b"x" * 50, pymqi.MD(MsgFlags=C.MQMF_SEGMENT)) == (
        C.MQCC_FAILED, C.MQRC_SEGMENTS_NOT_SUPPORTED)
    md = pymqi.MD(MsgFlags=C.MQMF_SEGMENTATION_ALLOWED)
    q.put(b"fits", md)                                    # allowed, not needed: put as it is
    got = pymqi.MD()
    assert q.get(None, got) == b"fits" and got.GroupId == md.GroupId != b"\0" * 24
    conn.disconnect()
