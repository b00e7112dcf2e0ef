"""Issue 65 item 2: automatic client reconnect, against queue managers running as processes killed
with kill -9 and ended with endmqm -r: what is reconnectable (MQCNO, DEFRECON, mqclient.ini),
handles and subscriptions opened again, units of work backed out, the event handler's news, and
under producers and consumers nothing acknowledged lost and nothing taken twice."""
from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQXC as X
from mqlite.pymqi import reconnect
from mqlite.testing import Harness, run_mqlite
from tests import helpers


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    base = tmp_path_factory.mktemp("reconnect")
    ini = base / "mqclient.ini"
    ini.write_text("CHANNELS:\n   ReconDelay=(50,0)\n   MQReconnectTimeout=20\n")
    mp = pytest.MonkeyPatch()
    mp.setenv("MQCLNTCF", str(ini))
    with Harness(str(base / "data"), channel="APP.SVRCONN") as h:
        qm = h.add("RCQM", "DEFINE QLOCAL(RC.Q) MAXDEPTH(100000)\nDEFINE QLOCAL(UOW.Q)\nDEFINE QLOCAL(H.Q)\n"
                           "DEFINE TOPIC(NEWS) TOPICSTR('news')\nDEFINE QLOCAL(RA.Q) DEFREADA(YES)\n")
        other = h.add("OTHERQM", "DEFINE QLOCAL(RC.Q)\n")
        yield qm, other, ini
    mp.undo()


def connect(qm: Any, opts: int = C.MQCNO_RECONNECT_Q_MGR, conname: str | None = None, name: str = "RCQM") -> Any:
    c = pymqi.QueueManager(None)
    c.connect_with_options(name, cd=pymqi.CD(ChannelName=b"APP.SVRCONN",
                                             ConnectionName=(conname or qm.conname).encode()), opts=opts)
    return c


def events_of(c: Any) -> list[int]:
    seen: list[int] = []
    c.cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(CallbackType=C.MQCBT_EVENT_HANDLER,
                                                  CallbackFunction=lambda **kw: seen.append(kw["cbc"].Reason)))
    return seen


def bounce(qm: Any, pause: float = 0.3) -> None:
    qm.kill9()
    time.sleep(pause)
    qm.start()


def drain(qm: Any, queue: str) -> list[bytes]:
    return helpers.drain(qm.harness, qm.name, queue)


@pytest.mark.parametrize("cno, channel, ini, want", [
    (0, 0, None, 0),
    (C.MQCNO_RECONNECT, 0, None, C.MQCNO_RECONNECT),
    (0, X.MQRCN_Q_MGR, None, C.MQCNO_RECONNECT_Q_MGR),
    (0, 0, "YES", C.MQCNO_RECONNECT),
    (C.MQCNO_RECONNECT_DISABLED, X.MQRCN_YES, "YES", 0),        # the application's word first
    (C.MQCNO_RECONNECT_Q_MGR, X.MQRCN_YES, None, C.MQCNO_RECONNECT_Q_MGR),
    (0, X.MQRCN_DISABLED, "YES", 0),
    (C.MQCNO_RECONNECT, 0, "DISABLED", 0),                      # DefRecon=DISABLED overrides all
    (0, X.MQRCN_NO, "QMGR", C.MQCNO_RECONNECT_Q_MGR),           # DEFRECON(NO) is "as the default"
])
def test_which_connections_reconnect(cno: int, channel: int, ini: str | None, want: int) -> None:
    assert reconnect.mode(cno, channel, ini) == want


def test_mqclient_ini_settings(tmp_path: Any) -> None:
    ini = tmp_path / "mqclient.ini"
    ini.write_text("# a comment\nCHANNELS:\n  DefRecon=QMGR\n  MQReconnectTimeout=90\n"
                   "  ReconDelay=(500,100)(1000)\nTCP:\n  KeepAlive=YES\n")
    assert reconnect.settings({"MQCLNTCF": str(ini)}) == ("QMGR", 90.0, ((500, 100), (1000, 0)))
    assert reconnect.settings({"MQCLNTCF": str(tmp_path / "none.ini"), "HOME": str(tmp_path)}) == \
        (None, 1800.0, reconnect.DEFAULT_DELAYS)


def test_calls_go_on_after_a_restart_handles_reopened(rig: Any) -> None:
    qm, _other, _ini = rig
    c = connect(qm)
    seen = events_of(c)
    q = pymqi.Queue(c, "H.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_BROWSE | C.MQOO_INQUIRE)
    q.put(b"kept", pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    assert c.inquire(C.MQCA_Q_MGR_NAME).strip() == b"RCQM"
    bounce(qm)
    assert q.inquire(C.MQIA_CURRENT_Q_DEPTH) == 1          # the handle, opened again
    assert c.inquire(C.MQCA_Q_MGR_NAME).strip() == b"RCQM"  # and the queue manager object's
    assert seen == [C.MQRC_RECONNECTING, C.MQRC_RECONNECTED]
    # A get waiting when the queue manager goes goes on waiting, and gets what is put after.
    got: list[bytes] = []
    assert q.get() == b"kept"
    waiter = threading.Thread(target=lambda: got.append(
        q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=20000))))
    waiter.start()
    time.sleep(0.3)
    bounce(qm)
    p = qm.bindings()
    pymqi.Queue(p, "H.Q").put(b"after the restart")
    p.disconnect()
    waiter.join(30)
    assert got == [b"after the restart"]
    # Found gone while idle: the put goes to the queue manager when it is back.
    bounce(qm)
    q.put(b"sent again", pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    assert q.get() == b"sent again"
    # A put outside syncpoint in flight when the queue manager goes (stopped, then killed, with
    # the request sent): its outcome is not known (2549), as MQ says.
    pid = qm.pid()
    os.kill(pid, signal.SIGSTOP)
    outcome: list[int] = []

    def put_in_flight() -> None:
        try:
            q.put(b"unknown", pymqi.MD(Persistence=C.MQPER_PERSISTENT))
            outcome.append(0)
        except pymqi.MQMIError as err:
            outcome.append(err.reason)
    t = threading.Thread(target=put_in_flight)
    t.start()
    time.sleep(0.3)
    qm.kill9()
    qm.start()
    t.join(30)
    assert outcome == [C.MQRC_CALL_INTERRUPTED]
    q.close()
    c.disconnect()


def test_read_ahead_gets_go_on_after_a_restart(rig: Any) -> None:
    """Nonpersistent messages read ahead when the queue manager went are gone with it (as MQ
    says); the gets go on with what is put after the restart."""
    qm, _other, _ini = rig
    c = connect(qm)
    q = pymqi.Queue(c, "RA.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    for i in range(5):
        q.put(b"np%d" % i, pymqi.MD(Persistence=C.MQPER_NOT_PERSISTENT))
    assert q.get() == b"np0"
    bounce(qm)
    q.put(b"persistent", pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=5000)) == b"persistent"
    q.close()
    c.disconnect()


def test_a_unit_of_work_in_flight_is_backed_out(rig: Any) -> None:
    qm, _other, _ini = rig
    c = connect(qm)
    q = pymqi.Queue(c, "UOW.Q", C.MQOO_OUTPUT)
    pmo = pymqi.PMO(Options=C.MQPMO_SYNCPOINT)
    q.put(b"in the unit", pymqi.MD(Persistence=C.MQPER_PERSISTENT), pmo)
    bounce(qm)
    q.put(b"after the restart, same unit", pymqi.MD(Persistence=C.MQPER_PERSISTENT), pmo)
    with pytest.raises(pymqi.MQMIError) as e:
        c.commit()
    assert (e.value.comp, e.value.reason) == (C.MQCC_FAILED, C.MQRC_BACKED_OUT)
    assert drain(qm, "UOW.Q") == []
    q.put(b"next unit", pymqi.MD(Persistence=C.MQPER_PERSISTENT), pmo)
    c.commit()
    assert drain(qm, "UOW.Q") == [b"next unit"]
    q.close()
    c.disconnect()


def test_a_conname_list_passes_over_a_stopped_channel(rig: Any) -> None:
    """The first address answers but its SVRCONN is stopped: the connection goes to the next."""
    qm, other, _ini = rig
    qm.command("STOP CHANNEL(APP.SVRCONN)")
    try:
        c = connect(qm, C.MQCNO_NONE, conname=f"{qm.conname},{other.conname}", name="")
        assert c.inquire(C.MQCA_Q_MGR_NAME).strip() == b"OTHERQM"
        c.disconnect()
    finally:
        qm.command("START CHANNEL(APP.SVRCONN)")


def test_mqmd_timeout_bounds_the_attempts(rig: Any) -> None:
    """MQReconnectTimeout: attempts stop when the next would pass it (MQRC_RECONNECT_FAILED)."""
    qm, _other, _ini = rig
    c = connect(qm)
    c._recon.timeout = 0.5
    seen = events_of(c)
    qm.kill9()
    try:
        started = time.monotonic()
        with pytest.raises(pymqi.MQMIError) as e:
            c.inquire(C.MQCA_Q_MGR_NAME)
        assert e.value.reason == C.MQRC_RECONNECT_FAILED and time.monotonic() - started < 5
        assert seen == [C.MQRC_RECONNECTING, C.MQRC_RECONNECT_FAILED]
    finally:
        qm.start()


def test_not_reconnectable_connections_break(rig: Any) -> None:
    qm, _other, ini = rig
    for opts in (C.MQCNO_NONE, C.MQCNO_RECONNECT_DISABLED):
        c = connect(qm, opts)
        bounce(qm, 0)
        with pytest.raises(pymqi.MQMIError) as e:
            c.inquire(C.MQCA_Q_MGR_NAME)
        assert e.value.reason == C.MQRC_CONNECTION_BROKEN


def test_consumer_and_durable_subscription_go_on_after_endmqm_r(rig: Any) -> None:
    qm, _other, _ini = rig
    c = connect(qm)
    seen = events_of(c)
    sub = pymqi.Subscription(c)
    sd = pymqi.SD(Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_DURABLE | C.MQSO_RESUME)
    sd.set_vs("ObjectString", b"news/today")
    sd.set_vs("SubName", b"RC.DURABLE")
    sub.sub(sd)
    got: list[bytes] = []
    sub.get_sub_queue().cb(operation=C.MQOP_REGISTER, cbd=pymqi.CBD(
        CallbackFunction=lambda **kw: got.append(kw["msg"]) if kw["cbc"].CallType == C.MQCBCT_MSG_REMOVED else None))
    c.ctl(C.MQOP_START, pymqi.CTLO())

    def publish(body: bytes) -> None:
        p = qm.bindings()
        t = pymqi.Topic(p, topic_string="news/today")
        t.open(open_opts=C.MQOO_OUTPUT)
        t.pub(body, pymqi.MD(Persistence=C.MQPER_PERSISTENT))
        t.close()
        p.disconnect()
    publish(b"one")
    deadline = time.monotonic() + 10
    while not got and time.monotonic() < deadline:
        time.sleep(0.02)
    r = run_mqlite("endmqm", "-i", "-r", "RCQM")
    assert r.returncode == 0, r.stdout + r.stderr
    publish_after = threading.Timer(0.2, qm.start)
    publish_after.start()
    publish_after.join()
    publish(b"two")                     # while the consumer is reconnecting or back: kept for it (durable)
    deadline = time.monotonic() + 20
    while len(got) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    c.ctl(C.MQOP_STOP, pymqi.CTLO())
    assert got == [b"one", b"two"]
    assert seen[:1] == [C.MQRC_RECONNECTING] and C.MQRC_RECONNECTED in seen
    sub.close(sub_close_options=C.MQCO_REMOVE_SUB, close_sub_queue=True)
    c.disconnect()


def test_reconnect_to_another_queue_manager_of_the_list(rig: Any) -> None:
    qm, other, _ini = rig
    # MQCNO_RECONNECT with a name that any queue manager answers to: the first of the CONNAME
    # list that answers (OTHERQM while RCQM is down).
    c = connect(qm, C.MQCNO_RECONNECT, conname=f"{qm.conname},{other.conname}", name="")
    seen = events_of(c)
    assert c.inquire(C.MQCA_Q_MGR_NAME).strip() == b"RCQM"
    qm.kill9()
    try:
        assert c.inquire(C.MQCA_Q_MGR_NAME).strip() == b"OTHERQM"
        assert seen == [C.MQRC_RECONNECTING, C.MQRC_RECONNECTED]
    finally:
        qm.start()
    c.disconnect()
    # MQCNO_RECONNECT_Q_MGR will not take another queue manager (its QMID is not the one the
    # connection was made to: MQRC_RECONNECT_QMID_MISMATCH): reconnecting fails at once.
    c = connect(qm, C.MQCNO_RECONNECT_Q_MGR, conname=f"{qm.conname},{other.conname}", name="")
    seen = events_of(c)
    qm.kill9()
    try:
        with pytest.raises(pymqi.MQMIError) as e:
            c.inquire(C.MQCA_Q_MGR_NAME)
        assert e.value.reason == C.MQRC_RECONNECT_FAILED
        assert seen == [C.MQRC_RECONNECTING, C.MQRC_RECONNECT_FAILED]
        with pytest.raises(pymqi.MQMIError) as e:
            c.inquire(C.MQCA_Q_MGR_NAME)
        assert e.value.reason == C.MQRC_RECONNECT_FAILED
    finally:
        qm.start()


def test_kill_9_under_a_producer_and_a_consumer_loses_and_doubles_nothing(rig: Any) -> None:
    """A producer putting persistent messages outside syncpoint and a consumer getting them under
    syncpoint, one commit per message, both reconnectable; the queue manager killed twice under
    them. Every put acknowledged is got exactly once, or is still on the queue, or was in a commit
    whose outcome MQ cannot know (2549); no message is committed twice."""
    qm, _other, _ini = rig
    n = 300
    acked: list[bytes] = []
    unknown_puts: list[bytes] = []
    committed: list[bytes] = []
    unknown_commits: list[bytes] = []
    stop = threading.Event()
    errors: list[BaseException] = []

    news: dict[str, list[int]] = {}

    def produce() -> None:
        try:
            c = connect(qm)
            news["producer"] = events_of(c)
            q = pymqi.Queue(c, "RC.Q", C.MQOO_OUTPUT)
            for i in range(n):
                body = b"msg-%04d" % i
                try:
                    q.put(body, pymqi.MD(Persistence=C.MQPER_PERSISTENT))
                    acked.append(body)
                except pymqi.MQMIError as e:
                    assert e.reason == C.MQRC_CALL_INTERRUPTED, e
                    unknown_puts.append(body)
                time.sleep(0.002)
            q.close()
            c.disconnect()
        except BaseException as e:         # noqa: BLE001 - reported by the test
            errors.append(e)

    def consume() -> None:
        try:
            c = connect(qm)
            news["consumer"] = events_of(c)
            q = pymqi.Queue(c, "RC.Q", C.MQOO_INPUT_SHARED)
            gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_SYNCPOINT, WaitInterval=300)
            while not stop.is_set():
                try:
                    body = q.get(None, pymqi.MD(), gmo)
                except pymqi.MQMIError as e:
                    assert e.reason == C.MQRC_NO_MSG_AVAILABLE, e
                    continue
                try:
                    c.commit()
                    committed.append(body)
                except pymqi.MQMIError as e:
                    assert e.reason in (C.MQRC_BACKED_OUT, C.MQRC_CALL_INTERRUPTED), e
                    if e.reason == C.MQRC_CALL_INTERRUPTED:
                        unknown_commits.append(body)
            q.close()
            c.disconnect()
        except BaseException as e:         # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=produce), threading.Thread(target=consume)]
    for t in threads:
        t.start()
    for _ in range(2):
        time.sleep(0.4)
        bounce(qm, 0.2)
    threads[0].join(120)
    deadline = time.monotonic() + 30
    while len(set(committed) | set(unknown_commits)) < len(acked) and time.monotonic() < deadline:
        time.sleep(0.1)
    stop.set()
    threads[1].join(60)
    assert not errors, errors
    assert news["consumer"].count(C.MQRC_RECONNECTED) == 2 and news["producer"].count(C.MQRC_RECONNECTED) >= 1
    left = drain(qm, "RC.Q")
    assert len(acked) + len(unknown_puts) == n and len(acked) >= n - 4
    assert len(committed) == len(set(committed)), "a message committed twice"
    assert not set(committed) & set(left)
    assert set(acked) <= set(committed) | set(left) | set(unknown_commits)
    assert set(committed) | set(left) <= set(acked) | set(unknown_puts)
