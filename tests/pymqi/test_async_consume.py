"""Issue 65 item 1: asynchronous consume (MQCB, MQCTL) in the pymqi and ibmmq faces, against a
queue manager running as a process, over a client channel and local bindings: consumers on
queues and subscriptions, selection, syncpoint in the callback, the control calls, the event
handler, the calls allowed and refused, and messages held for a consumer given back."""
from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite import ibmmq, pymqi
from mqlite.cmq import CMQC as C
from mqlite.pymqi import cbrules as consume
from mqlite.cli.proc import python_module, same_code
from mqlite.testing import Harness

MQSC = ("DEFINE QLOCAL(A.Q)\nDEFINE QLOCAL(B.Q)\nDEFINE QLOCAL(SYNC.Q) BOTHRESH(5) BOQNAME(BACK.Q)\n"
        "DEFINE QLOCAL(BACK.Q)\nDEFINE QLOCAL(SEL.Q)\nDEFINE QLOCAL(HELD.Q)\nDEFINE QLOCAL(BIG.Q)\n"
        "DEFINE QLOCAL(BR.Q)\nDEFINE QLOCAL(INH.Q)\nDEFINE QLOCAL(KILL.Q)\n"
        "DEFINE TOPIC(PRICES) TOPICSTR('prices')\n")


@pytest.fixture(scope="module")
def qm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with Harness(str(tmp_path_factory.mktemp("consume")), channel="APP.SVRCONN") as h:
        yield h.add("CBQM", MQSC)


@pytest.fixture(params=["client", "bindings"])
def conn(request: Any, qm: Any) -> Iterator[Any]:
    c = qm.client() if request.param == "client" else qm.bindings()
    yield c
    try:
        c.disconnect()
    except Exception:
        pass


class Calls:
    """A callback that notes every call: (queue name, CallType, Reason, State, message)."""

    def __init__(self, then: Any = None) -> None:
        self.seen: list[tuple[Any, ...]] = []
        self.then = then
        self.done = threading.Event()

    def __call__(self, **kw: Any) -> None:
        cbc = kw["cbc"]
        q = kw["queue"]
        self.seen.append((q.get_name() if q is not None else None, cbc.CallType, cbc.Reason, cbc.State, kw["msg"]))
        if self.then is not None:
            self.then(self, **kw)

    def messages(self) -> list[bytes]:
        return [m for _q, t, _r, _s, m in self.seen if t == C.MQCBCT_MSG_REMOVED]

    def wait_for(self, n: int, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.messages()) < n and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(self.messages()) >= n, self.seen


def put(qm: Any, queue: str, *bodies: bytes, **md: Any) -> None:
    c = qm.bindings()
    q = pymqi.Queue(c, queue)
    for b in bodies:
        q.put(b, pymqi.MD(**md))
    q.close()
    c.disconnect()


def depth(qm: Any, queue: str) -> int:
    c = qm.bindings()
    q = pymqi.Queue(c, queue, C.MQOO_INQUIRE)
    try:
        return q.inquire(C.MQIA_CURRENT_Q_DEPTH)
    finally:
        q.close()
        c.disconnect()


ALL_CALLS = C.MQCBDO_REGISTER_CALL | C.MQCBDO_START_CALL | C.MQCBDO_STOP_CALL | C.MQCBDO_DEREGISTER_CALL


def test_two_consumers_take_turns_with_their_control_calls_and_2033_after_the_wait(qm: Any, conn: Any) -> None:
    put(qm, "A.Q", b"a1", b"a2", b"a3")
    put(qm, "B.Q", b"b1", b"b2")
    calls = Calls()
    a = pymqi.Queue(conn, "A.Q", C.MQOO_INPUT_SHARED)
    b = pymqi.Queue(conn, "B.Q", C.MQOO_INPUT_SHARED)
    a.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackFunction=calls, Options=ALL_CALLS),
         gmo=pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=400))
    b.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackFunction=calls, Options=ALL_CALLS),
         gmo=pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=C.MQWI_UNLIMITED))
    assert [s[:2] for s in calls.seen] == [("A.Q", C.MQCBCT_REGISTER_CALL), ("B.Q", C.MQCBCT_REGISTER_CALL)]
    conn.ctl(C.MQOP_START, pymqi.CTLO())
    calls.wait_for(5)
    put(qm, "B.Q", b"b3")                          # pushed when it arrives: nobody polls
    calls.wait_for(6)
    # Another thread's call while started: 2500; MQCTL STOP from it is allowed.
    with pytest.raises(pymqi.MQMIError) as e:
        a.put(b"no")
    assert e.value.reason == C.MQRC_HCONN_ASYNC_ACTIVE
    deadline = time.monotonic() + 5
    while not any(t == C.MQCBCT_EVENT_CALL for _q, t, *_ in calls.seen) and time.monotonic() < deadline:
        time.sleep(0.02)
    conn.ctl(C.MQOP_STOP, pymqi.CTLO())
    seen = [s[:3] for s in calls.seen]
    assert seen[:4] == [("A.Q", C.MQCBCT_REGISTER_CALL, 0), ("B.Q", C.MQCBCT_REGISTER_CALL, 0),
                        ("A.Q", C.MQCBCT_START_CALL, 0), ("B.Q", C.MQCBCT_START_CALL, 0)]
    # In turn while both hold messages, each queue's in order.
    assert [m for m in calls.messages()][:4] == [b"a1", b"b1", b"a2", b"b2"]
    assert sorted(calls.messages()) == [b"a1", b"a2", b"a3", b"b1", b"b2", b"b3"]
    # A.Q's wait interval (400 ms) ends with no message: its consumer is told 2033, B.Q's never.
    assert ("A.Q", C.MQCBCT_EVENT_CALL, C.MQRC_NO_MSG_AVAILABLE) in seen
    assert not any(q == "B.Q" and t == C.MQCBCT_EVENT_CALL for q, t, _r in seen)
    assert seen[-2:] == [("A.Q", C.MQCBCT_STOP_CALL, 0), ("B.Q", C.MQCBCT_STOP_CALL, 0)]
    assert conn.inquire(C.MQCA_Q_MGR_NAME).strip() == b"CBQM"   # stopped: the application's again
    a.close()
    assert calls.seen[-1][:2] == ("A.Q", C.MQCBCT_DEREGISTER_CALL)
    b.cb(operation=C.MQOP_DEREGISTER)
    assert calls.seen[-1][:2] == ("B.Q", C.MQCBCT_DEREGISTER_CALL)
    with pytest.raises(pymqi.MQMIError) as e:
        b.cb(operation=C.MQOP_DEREGISTER)
    assert e.value.reason == C.MQRC_CALLBACK_NOT_REGISTERED
    b.close()
    assert depth(qm, "A.Q") == 0 and depth(qm, "B.Q") == 0


def test_selection_by_correlid_and_by_selector(qm: Any, conn: Any) -> None:
    put(qm, "SEL.Q", b"one", CorrelId=b"A" * 24)
    put(qm, "SEL.Q", b"two", CorrelId=b"B" * 24)
    put(qm, "SEL.Q", b"three", CorrelId=b"A" * 24)
    c2 = qm.bindings()
    sel = pymqi.Queue(c2)
    od = pymqi.OD(ObjectName=b"SEL.Q")
    od.SelectionString = b"JMSCorrelationID = 'ID:" + (b"42" * 24) + b"'"
    by_corr, by_sel = Calls(), Calls()
    q = pymqi.Queue(conn, "SEL.Q", C.MQOO_INPUT_SHARED)
    q.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackFunction=by_corr), md=pymqi.MD(CorrelId=b"A" * 24),
         gmo=pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=C.MQWI_UNLIMITED, MatchOptions=C.MQMO_MATCH_CORREL_ID,
                       Version=C.MQGMO_VERSION_2))
    conn.ctl(C.MQOP_START, pymqi.CTLO())
    by_corr.wait_for(2)
    conn.ctl(C.MQOP_STOP, pymqi.CTLO())
    assert by_corr.messages() == [b"one", b"three"]
    q.close()
    # A handle opened with a selector: the queue manager's MQGET selects (no read-ahead there).
    sel.open(od, C.MQOO_INPUT_SHARED)
    sel.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackFunction=by_sel),
           gmo=pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=C.MQWI_UNLIMITED))
    c2.ctl(C.MQOP_START, pymqi.CTLO())
    by_sel.wait_for(1)
    c2.ctl(C.MQOP_STOP, pymqi.CTLO())
    assert by_sel.messages() == [b"two"]
    sel.close()
    c2.disconnect()
    assert depth(qm, "SEL.Q") == 0


def test_syncpoint_in_the_callback_commit_and_backout(qm: Any, conn: Any) -> None:
    """Units of work inside the callback: a backed-out message comes again (BackoutCount 1), the
    messages held ahead when a unit ends go back uncounted; every message is taken exactly once."""
    put(qm, "SYNC.Q", *[b"m%02d" % i for i in range(20)], Persistence=C.MQPER_PERSISTENT)
    counts: dict[bytes, list[int]] = {}

    def work(calls: Calls, **kw: Any) -> None:
        if kw["cbc"].CallType != C.MQCBCT_MSG_REMOVED:
            return
        msg, md = kw["msg"], kw["md"]
        counts.setdefault(msg, []).append(md.BackoutCount)
        if msg == b"m07" and md.BackoutCount == 0:
            kw["queue_manager"].backout()
        elif len(calls.messages()) % 3 == 0:
            kw["queue_manager"].commit()
    calls = Calls(work)
    q = pymqi.Queue(conn, "SYNC.Q", C.MQOO_INPUT_SHARED)
    q.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackFunction=calls),
         gmo=pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_SYNCPOINT, WaitInterval=300))
    conn.ctl(C.MQOP_START, pymqi.CTLO())
    deadline = time.monotonic() + 10
    while len(counts) < 20 and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.4)
    conn.ctl(C.MQOP_STOP, pymqi.CTLO())
    conn.commit()
    assert sorted(counts) == [b"m%02d" % i for i in range(20)]
    assert counts[b"m07"][:2] == [0, 1]
    assert all(v == [0] for k, v in counts.items() if k not in (b"m07",) and k < b"m05"), counts
    q.close()
    assert depth(qm, "SYNC.Q") == 0


def test_start_wait_and_the_rules_of_mqctl(qm: Any, conn: Any) -> None:
    with pytest.raises(pymqi.MQMIError) as e:
        conn.ctl(C.MQOP_START_WAIT, pymqi.CTLO())
    assert e.value.reason == C.MQRC_NO_CALLBACKS_ACTIVE
    with pytest.raises(pymqi.MQMIError) as e:
        conn.ctl(C.MQOP_RESUME, pymqi.CTLO())
    assert e.value.reason == C.MQRC_OPERATION_NOT_ALLOWED
    put(qm, "A.Q", b"1", b"2", b"3", b"4")
    inner: list[int] = []

    def stop_at_three(calls: Calls, **kw: Any) -> None:
        if kw["cbc"].CallType != C.MQCBCT_MSG_REMOVED:
            return
        try:
            kw["queue_manager"].ctl(C.MQOP_START_WAIT, pymqi.CTLO())
        except pymqi.MQMIError as err:
            inner.append(err.reason)
        if len(calls.messages()) == 3:
            kw["queue_manager"].ctl(C.MQOP_STOP, pymqi.CTLO())
    calls = Calls(stop_at_three)
    q = pymqi.Queue(conn, "A.Q", C.MQOO_INPUT_SHARED)
    q.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackFunction=calls),
         gmo=pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=C.MQWI_UNLIMITED))
    conn.ctl(C.MQOP_START_WAIT, pymqi.CTLO())     # returns when the callback stops the connection
    assert calls.messages() == [b"1", b"2", b"3"]
    assert inner == [C.MQRC_ENVIRONMENT_ERROR] * 3
    assert depth(qm, "A.Q") == 1                   # the fourth, read ahead, was given back
    # A consumer suspending itself under START_WAIT: MQCTL returns 2521 (a warning).
    q.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(
        CallbackFunction=lambda **kw: kw["queue_manager"].ctl(C.MQOP_SUSPEND, pymqi.CTLO())
        if kw["cbc"].CallType == C.MQCBCT_MSG_REMOVED else None),
        gmo=pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=C.MQWI_UNLIMITED))
    with pytest.raises(pymqi.MQMIError) as e:
        conn.ctl(C.MQOP_START_WAIT, pymqi.CTLO())
    assert (e.value.comp, e.value.reason) == (C.MQCC_WARNING, C.MQRC_CONNECTION_SUSPENDED)
    with pytest.raises(pymqi.MQMIError) as e:
        conn.ctl(C.MQOP_START, pymqi.CTLO())
    assert e.value.reason == C.MQRC_OPERATION_NOT_ALLOWED
    conn.ctl(C.MQOP_STOP, pymqi.CTLO())
    assert depth(qm, "A.Q") == 0
    # A suspended consumer is not an active one.
    q.cb(operation=C.MQOP_SUSPEND)
    with pytest.raises(pymqi.MQMIError) as e:
        conn.ctl(C.MQOP_START_WAIT, pymqi.CTLO())
    assert e.value.reason == C.MQRC_NO_CALLBACKS_ACTIVE
    with pytest.raises(pymqi.MQMIError) as e:
        conn.ctl(12345, pymqi.CTLO())
    assert e.value.reason == C.MQRC_OPERATION_ERROR
    q.close()


def test_subscription_consumer_and_the_ibmmq_face(qm: Any) -> None:
    c = ibmmq.connect("CBQM", "APP.SVRCONN", qm.conname)
    sub = ibmmq.Subscription(c)
    sd = ibmmq.SD(Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_NON_DURABLE)
    sd.set_vs("ObjectString", b"prices/fruit")
    sub.sub(sd)
    calls = Calls()
    cbd = ibmmq.CBD()
    cbd.CallbackFunction = calls
    cbd.CallbackArea = b"my area"
    sub.get_sub_queue().cb(operation=C.MQOP_REGISTER, cbd=cbd, md=ibmmq.MD(),
                           gmo=ibmmq.GMO(Options=C.MQGMO_WAIT, WaitInterval=C.MQWI_UNLIMITED))
    areas: list[Any] = []
    c.cb(operation=C.MQOP_REGISTER, cbd=ibmmq.CBD(CallbackType=C.MQCBT_EVENT_HANDLER,
                                                    CallbackFunction=lambda **kw: areas.append(kw)))
    ctlo = ibmmq.CTLO()
    ctlo.ConnectionArea = b"conn area"
    c.ctl(C.MQOP_START, ctlo)
    p = ibmmq.connect("CBQM", "APP.SVRCONN", qm.conname)
    t = ibmmq.Topic(p, topic_string="prices/fruit")
    t.open(open_opts=C.MQOO_OUTPUT)
    for price in (b"apple 1", b"pear 2"):
        t.pub(price)
    calls.wait_for(2)
    c.ctl(C.MQOP_STOP, ctlo)
    assert calls.messages() == [b"apple 1", b"pear 2"]
    assert areas == []                               # nothing happened to the connection
    t.close()
    p.disconnect()
    sub.close(sub_close_options=0, close_sub_queue=True)
    c.disconnect()


def test_area_and_context_given_to_the_callback(qm: Any) -> None:
    c = qm.client()
    put(qm, "A.Q", b"hello", Priority=7)
    got: list[Any] = []

    def fn(**kw: Any) -> None:
        cbc = kw["cbc"]
        if cbc.CallType == C.MQCBCT_MSG_REMOVED:
            got.append((cbc.CallbackArea, cbc.ConnectionArea, cbc.DataLength, kw["md"].Priority,
                        kw["gmo"].ReturnedLength, kw["queue_manager"] is c, cbc.Hobj == kw["queue"].get_handle()))
            cbc.CallbackArea = "changed by the callback"
    q = pymqi.Queue(c, "A.Q", C.MQOO_INPUT_SHARED)
    q.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackFunction=fn, CallbackArea={"mine": 1}))
    c.ctl(C.MQOP_START, pymqi.CTLO(ConnectionArea=[1, 2]))
    put(qm, "A.Q", b"again")
    deadline = time.monotonic() + 10
    while len(got) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    c.ctl(C.MQOP_STOP, pymqi.CTLO())
    assert got == [({"mine": 1}, [1, 2], 5, 7, 5, True, True),
                   ("changed by the callback", [1, 2], 5, 0, 5, True, True)]
    q.close()
    c.disconnect()


def test_truncation_browse_and_get_inhibited(qm: Any, conn: Any) -> None:
    put(qm, "BIG.Q", b"0123456789")
    calls = Calls()
    q = pymqi.Queue(conn, "BIG.Q", C.MQOO_INPUT_SHARED)
    q.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackFunction=calls, MaxMsgLength=4),
         gmo=pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=C.MQWI_UNLIMITED))
    conn.ctl(C.MQOP_START, pymqi.CTLO())
    deadline = time.monotonic() + 10
    while not calls.seen and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)
    conn.ctl(C.MQOP_STOP, pymqi.CTLO())
    # Too big and not ACCEPT_TRUNCATED: passed as not removed, the consumer suspended until the
    # application acts (only once, not again and again).
    assert calls.seen == [("BIG.Q", C.MQCBCT_MSG_NOT_REMOVED, C.MQRC_TRUNCATED_MSG_FAILED,
                           C.MQCS_SUSPENDED_USER_ACTION, b"0123")]
    q.cb(operation=C.MQOP_REGISTER | C.MQOP_RESUME, cbd=pymqi.CBD(CallbackFunction=calls, MaxMsgLength=4),
         gmo=pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_ACCEPT_TRUNCATED_MSG, WaitInterval=C.MQWI_UNLIMITED))
    conn.ctl(C.MQOP_START, pymqi.CTLO())
    calls.wait_for(1)
    conn.ctl(C.MQOP_STOP, pymqi.CTLO())
    assert calls.seen[-1] == ("BIG.Q", C.MQCBCT_MSG_REMOVED, C.MQRC_TRUNCATED_MSG_ACCEPTED, C.MQCS_NONE, b"0123")
    q.close()
    # A browsing consumer: each message once, not removed.
    put(qm, "BR.Q", b"x", b"y")
    browse = Calls()
    q = pymqi.Queue(conn, "BR.Q", C.MQOO_BROWSE)
    q.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackFunction=browse),
         gmo=pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_BROWSE_FIRST, WaitInterval=300))
    conn.ctl(C.MQOP_START, pymqi.CTLO())
    deadline = time.monotonic() + 10
    while not any(s[1] == C.MQCBCT_EVENT_CALL for s in browse.seen) and time.monotonic() < deadline:
        time.sleep(0.02)
    conn.ctl(C.MQOP_STOP, pymqi.CTLO())
    assert [(s[1], s[4]) for s in browse.seen][:3] == [(C.MQCBCT_MSG_NOT_REMOVED, b"x"), (C.MQCBCT_MSG_NOT_REMOVED, b"y"),
                                                       (C.MQCBCT_EVENT_CALL, None)]
    q.close()
    assert depth(qm, "BR.Q") == 2
    c = qm.bindings()
    pymqi.Queue(c, "BR.Q").get()
    pymqi.Queue(c, "BR.Q").get()
    c.disconnect()
    # GET(DISABLED): the consumer is told 2016 and tries again after a while.
    qm.command("ALTER QLOCAL(INH.Q) GET(DISABLED)")
    inh = Calls()
    q = pymqi.Queue(conn, "INH.Q", C.MQOO_INPUT_SHARED)
    q.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackFunction=inh))
    conn.ctl(C.MQOP_START, pymqi.CTLO())
    deadline = time.monotonic() + 10
    while not inh.seen and time.monotonic() < deadline:
        time.sleep(0.01)
    put(qm, "INH.Q", b"later")
    qm.command("ALTER QLOCAL(INH.Q) GET(ENABLED)")
    inh.wait_for(1)
    conn.ctl(C.MQOP_STOP, pymqi.CTLO())
    assert inh.seen[0][1:4] == (C.MQCBCT_EVENT_CALL, C.MQRC_GET_INHIBITED, C.MQCS_SUSPENDED_TEMPORARY)
    assert inh.messages() == [b"later"]
    q.close()


def test_quiesce_close_and_a_callback_that_raises(qm: Any) -> None:
    c = qm.client()
    put(qm, "HELD.Q", b"h1", b"h2", b"h3")
    events: list[tuple[int, int]] = []
    flags: list[int] = []
    closed: list[int] = []

    def slow(**kw: Any) -> None:
        cbc = kw["cbc"]
        if cbc.CallType != C.MQCBCT_MSG_REMOVED:
            return
        flags.append(cbc.Flags)
        if kw["msg"] == b"h1":
            try:
                kw["queue"].close(C.MQCO_QUIESCE)
            except pymqi.MQMIError as e:
                closed.append(e.reason)
        if kw["msg"] == b"h2":
            raise ValueError("the application's own error")
    q = pymqi.Queue(c, "HELD.Q", C.MQOO_INPUT_SHARED)
    q.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackFunction=slow))
    c.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackType=C.MQCBT_EVENT_HANDLER,
                                                  CallbackFunction=lambda **kw: events.append(
                                                      (kw["cbc"].CallType, kw["cbc"].Reason))))
    c.ctl(C.MQOP_START, pymqi.CTLO())
    deadline = time.monotonic() + 10
    while len(flags) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    c.ctl(C.MQOP_STOP, pymqi.CTLO())
    assert closed == [C.MQRC_READ_AHEAD_MSGS]
    assert flags == [0, 0, C.MQCBCF_READA_BUFFER_EMPTY]
    assert events == [(C.MQCBCT_EVENT_CALL, C.MQRC_CALLBACK_ROUTINE_ERROR)]
    q.close(C.MQCO_QUIESCE)                          # nothing held now: closed
    c.disconnect()
    assert depth(qm, "HELD.Q") == 0


CONSUMER = """
import sys, time
from mqlite import pymqi
from mqlite.cmq import CMQC as C
c = pymqi.connect("CBQM", "APP.SVRCONN", sys.argv[1])
q = pymqi.Queue(c, "KILL.Q", C.MQOO_INPUT_SHARED)
def fn(**kw):
    if kw["cbc"].CallType == C.MQCBCT_MSG_REMOVED:
        print(kw["msg"].decode(), flush=True)
        time.sleep(60)                      # killed here, with the rest read ahead
q.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackFunction=fn))
c.ctl(C.MQOP_START, pymqi.CTLO())
time.sleep(60)
"""


def test_messages_held_for_a_killed_consumer_go_back(qm: Any) -> None:
    """kill -9 of the consumer's process in its first callback: the message it was given and the
    ones read ahead for it are all on the queue again, persistent and not."""
    bodies = [b"p%d" % i for i in range(10)]
    put(qm, "KILL.Q", *bodies[:5], Persistence=C.MQPER_PERSISTENT)
    put(qm, "KILL.Q", *bodies[5:], Persistence=C.MQPER_NOT_PERSISTENT)
    proc = subprocess.Popen([sys.executable, "-c", CONSUMER, qm.conname], stdout=subprocess.PIPE, text=True,
                            env=same_code())
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "p0"
        assert depth(qm, "KILL.Q") == 0              # all ten held for it
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 10
    while depth(qm, "KILL.Q") < 10 and time.monotonic() < deadline:
        time.sleep(0.05)
    c = qm.bindings()
    q = pymqi.Queue(c, "KILL.Q")
    assert [q.get() for _ in range(10)] == bodies
    q.close()
    c.disconnect()


def test_event_handler_told_when_the_queue_manager_goes(tmp_path: Any) -> None:
    with Harness(str(tmp_path), channel="APP.SVRCONN") as h:
        own = h.add("GONEQM", "DEFINE QLOCAL(Q1)\n")
        c = own.client()
        events: list[tuple[int, int, int]] = []
        stops: list[int] = []
        q = pymqi.Queue(c, "Q1", C.MQOO_INPUT_SHARED)
        q.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(
            CallbackFunction=lambda **kw: stops.append(kw["cbc"].Reason)
            if kw["cbc"].CallType == C.MQCBCT_STOP_CALL else None, Options=C.MQCBDO_STOP_CALL),
            gmo=pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_FAIL_IF_QUIESCING, WaitInterval=C.MQWI_UNLIMITED))
        c.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(
            CallbackType=C.MQCBT_EVENT_HANDLER,
            CallbackFunction=lambda **kw: events.append((kw["cbc"].CallType, kw["cbc"].Reason, kw["cbc"].State))))
        c.ctl(C.MQOP_START, pymqi.CTLO())
        time.sleep(0.2)
        own.kill9()
        deadline = time.monotonic() + 10
        while not events and time.monotonic() < deadline:
            time.sleep(0.02)
        assert events == [(C.MQCBCT_EVENT_CALL, C.MQRC_CONNECTION_BROKEN, C.MQCS_STOPPED)]
        assert stops == [C.MQRC_CONNECTION_BROKEN]
        # Quiescing: endmqm (controlled) tells a consumer that asked to fail if quiescing.
        own.start()
        c = own.client()
        events.clear()
        q = pymqi.Queue(c, "Q1", C.MQOO_INPUT_SHARED)
        q.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackFunction=lambda **kw: None),
             gmo=pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_FAIL_IF_QUIESCING, WaitInterval=C.MQWI_UNLIMITED))
        c.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(
            CallbackType=C.MQCBT_EVENT_HANDLER,
            CallbackFunction=lambda **kw: events.append((kw["cbc"].CallType, kw["cbc"].Reason, kw["cbc"].State))))
        c.ctl(C.MQOP_START, pymqi.CTLO())
        ending = subprocess.Popen(python_module("mqlite.cli.main", "endmqm", "GONEQM"), env=same_code(),
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while not events and time.monotonic() < deadline:
            time.sleep(0.02)
        assert events == [(C.MQCBCT_EVENT_CALL, C.MQRC_Q_MGR_QUIESCING, C.MQCS_STOPPED)]
        c.disconnect()
        assert ending.wait(30) == 0


# --- the rules against a small model ------------------------------------------------------------
CTL_OPS = [C.MQOP_START, C.MQOP_START_WAIT, C.MQOP_STOP, C.MQOP_SUSPEND, C.MQOP_RESUME]
CB_OPS = [C.MQOP_REGISTER, C.MQOP_DEREGISTER, C.MQOP_SUSPEND, C.MQOP_RESUME,
          C.MQOP_REGISTER | C.MQOP_SUSPEND, C.MQOP_REGISTER | C.MQOP_RESUME, C.MQOP_SUSPEND | C.MQOP_RESUME]


class Model:
    """The connection and two handles as MQ's MQCB and MQCTL pages describe them, step by step."""

    def __init__(self) -> None:
        self.conn = "stopped"
        self.cbs: dict[int, bool] = {}           # handle -> suspended

    def ctl(self, op: int, inside: bool) -> int:
        active = sum(1 for s in self.cbs.values() if not s)
        if op == C.MQOP_START_WAIT and inside:
            return C.MQRC_ENVIRONMENT_ERROR
        if op in (C.MQOP_START, C.MQOP_START_WAIT) and self.conn == "suspended":
            return C.MQRC_OPERATION_NOT_ALLOWED
        if op == C.MQOP_START_WAIT and self.conn == "started":
            return C.MQRC_OPERATION_NOT_ALLOWED
        if op == C.MQOP_START_WAIT and active == 0:
            return C.MQRC_NO_CALLBACKS_ACTIVE
        if op in (C.MQOP_SUSPEND, C.MQOP_RESUME) and self.conn == "stopped":
            return C.MQRC_OPERATION_NOT_ALLOWED
        self.conn = {C.MQOP_START: "started", C.MQOP_START_WAIT: "started", C.MQOP_STOP: "stopped",
                     C.MQOP_SUSPEND: "suspended", C.MQOP_RESUME: "started"}[op]
        return 0

    def cb(self, h: int, op: int) -> int:
        if op == C.MQOP_SUSPEND | C.MQOP_RESUME:
            return C.MQRC_OPERATION_ERROR
        if op & C.MQOP_REGISTER:
            was = self.cbs.get(h, False)
            self.cbs[h] = True if op & C.MQOP_SUSPEND else (False if op & C.MQOP_RESUME else was)
            return 0
        if h not in self.cbs:
            return C.MQRC_CALLBACK_NOT_REGISTERED
        if op == C.MQOP_DEREGISTER:
            del self.cbs[h]
        else:
            self.cbs[h] = op == C.MQOP_SUSPEND
        return 0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.tuples(st.just("ctl"), st.sampled_from(CTL_OPS), st.booleans()),
                          st.tuples(st.just("cb"), st.sampled_from(CB_OPS), st.sampled_from([1, 2]))),
                max_size=30))
def test_the_callback_state_machine_against_a_model(steps: list[tuple[str, int, Any]]) -> None:
    model = Model()
    state = consume.STOPPED
    regs: dict[int, tuple[bool, bool]] = {}
    for kind, op, arg in steps:
        if kind == "ctl":
            active = sum(1 for r, s in regs.values() if r and not s)
            state, reason = consume.control(state, op, arg, active)
            assert reason == model.ctl(op, arg), (kind, op, arg)
            assert state == model.conn
        else:
            r, s = regs.get(arg, (False, False))
            r2, s2, reason = consume.register(r, s, op)
            assert reason == model.cb(arg, op), (kind, op, arg)
            regs[arg] = (r2, s2)
            assert {h: sus for h, (reg, sus) in regs.items() if reg} == model.cbs
