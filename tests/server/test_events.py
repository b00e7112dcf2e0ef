"""Instrumentation events through a real queue manager: each event message read by hand (MQCFH,
then each parameter), asserting its Type, Command, Reason and parameters in MQ's order; the
switches that turn them on and off; MQ's queue depth rules; an event queue that cannot take the
message changing nothing for the application."""
from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.pymqi import CMQC as C
from mqlite.pymqi import CMQCFC as F
from mqlite.testing import Harness, run_mqlite
from tests.helpers import parse_pcf, reason

QMGR_EVENTS = "SYSTEM.ADMIN.QMGR.EVENT"
PERFM_EVENTS = "SYSTEM.ADMIN.PERFM.EVENT"


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    h = Harness(str(tmp_path_factory.mktemp("events")), channel="APP.SVRCONN")
    try:
        yield h
    finally:
        h.close()


@pytest.fixture(scope="module")
def qm(harness: Harness) -> Any:
    return harness.add("EVQM", "DEFINE QLOCAL(INHIBITED) PUT(DISABLED) GET(DISABLED)\n"
                               "DEFINE QLOCAL(DEEP) MAXDEPTH(10) QDEPTHHI(50) QDEPTHLO(20) QDPHIEV(ENABLED)\n")


def events(conn: Any, queue: str) -> list[tuple[tuple[int, ...], list[tuple[int, int, Any]]]]:
    q = pymqi.Queue(conn, queue)
    out = []
    while True:
        md = pymqi.MD()
        try:
            body = q.get(None, md)
        except pymqi.MQMIError as e:
            assert e.reason == C.MQRC_NO_MSG_AVAILABLE
            break
        assert md.Format == C.MQFMT_EVENT and md.MsgType == C.MQMT_DATAGRAM
        out.append(parse_pcf(body))
    q.close()
    return out


def test_queue_manager_events_and_their_switches(qm: Any) -> None:
    c = qm.client()
    try:
        events(c, QMGR_EVENTS)                        # whatever start-up wrote (Queue Manager Active)
        # All switched off (MQ's defaults): failures raise nothing.
        assert reason(pymqi.Queue, c, "NO.SUCH.Q", C.MQOO_OUTPUT)[1] == C.MQRC_UNKNOWN_OBJECT_NAME
        assert events(c, QMGR_EVENTS) == []
        qm.mqsc("ALTER QMGR LOCALEV(ENABLED) INHIBTEV(ENABLED) REMOTEEV(ENABLED)\n", check=True)
        assert reason(pymqi.Queue, c, "NO.SUCH.Q", C.MQOO_OUTPUT)[1] == C.MQRC_UNKNOWN_OBJECT_NAME
        assert reason(c.put1, "ALSO.MISSING", b"x")[1] == C.MQRC_UNKNOWN_OBJECT_NAME
        assert reason(pymqi.Queue(c, "INHIBITED").put, b"x")[1] == C.MQRC_PUT_INHIBITED
        assert reason(pymqi.Queue(c, "INHIBITED", C.MQOO_INPUT_SHARED).get)[1] == C.MQRC_GET_INHIBITED
        od = pymqi.OD(ObjectName=b"ANY.Q", ObjectQMgrName=b"NOWHERE")
        assert reason(pymqi.Queue, c, od, C.MQOO_OUTPUT)[1] == C.MQRC_UNKNOWN_REMOTE_Q_MGR
        got = events(c, QMGR_EVENTS)
        assert [(cfh[0], cfh[3], cfh[6], cfh[7]) for cfh, _p in got] == [
            (F.MQCFT_EVENT, F.MQCMD_Q_MGR_EVENT, C.MQCC_WARNING, C.MQRC_UNKNOWN_OBJECT_NAME),
            (F.MQCFT_EVENT, F.MQCMD_Q_MGR_EVENT, C.MQCC_WARNING, C.MQRC_UNKNOWN_OBJECT_NAME),
            (F.MQCFT_EVENT, F.MQCMD_Q_MGR_EVENT, C.MQCC_WARNING, C.MQRC_PUT_INHIBITED),
            (F.MQCFT_EVENT, F.MQCMD_Q_MGR_EVENT, C.MQCC_WARNING, C.MQRC_GET_INHIBITED),
            (F.MQCFT_EVENT, F.MQCMD_Q_MGR_EVENT, C.MQCC_WARNING, C.MQRC_UNKNOWN_REMOTE_Q_MGR)]
        assert {cfh[2] for cfh, _p in got} == {F.MQCFH_VERSION_1}      # every other event: version 1
        unknown, _put1, inhibited, _get, remote = [[(p, v) for _t, p, v in params] for _c, params in got]
        # Unknown Object Name: QMgrName, ApplType, ApplName, QName, then the client's ConnName and
        # ChannelName (MQ's order for that event).
        assert [p for p, _v in unknown] == [C.MQCA_Q_MGR_NAME, C.MQIA_APPL_TYPE, F.MQCACF_APPL_NAME, C.MQCA_Q_NAME,
                                            F.MQCACH_CONNECTION_NAME, F.MQCACH_CHANNEL_NAME]
        assert dict(unknown)[C.MQCA_Q_NAME] == "NO.SUCH.Q" and dict(unknown)[F.MQCACH_CHANNEL_NAME] == "APP.SVRCONN"
        assert dict(unknown)[C.MQCA_Q_MGR_NAME] == "EVQM"
        # Put Inhibited: QName comes second.
        assert [p for p, _v in inhibited][:4] == [C.MQCA_Q_MGR_NAME, C.MQCA_Q_NAME, C.MQIA_APPL_TYPE,
                                                  F.MQCACF_APPL_NAME]
        # The MQOD named another queue manager: ObjectQMgrName is there.
        assert dict(remote)[F.MQCACF_OBJECT_Q_MGR_NAME] == "NOWHERE"
        assert F.MQCACF_OBJECT_Q_MGR_NAME not in dict(unknown)
    finally:
        qm.mqsc("ALTER QMGR LOCALEV(DISABLED) INHIBTEV(DISABLED) REMOTEEV(DISABLED)\n", check=True)
        c.disconnect()


def test_an_event_queue_that_cannot_take_the_event_changes_nothing(qm: Any) -> None:
    c = qm.client()
    try:
        events(c, QMGR_EVENTS)                        # whatever start-up wrote: the test may run first
        qm.mqsc(f"ALTER QMGR LOCALEV(ENABLED)\nALTER QLOCAL({QMGR_EVENTS}) PUT(DISABLED)\n", check=True)
        assert reason(pymqi.Queue, c, "NO.SUCH.Q", C.MQOO_OUTPUT)[1] == C.MQRC_UNKNOWN_OBJECT_NAME
        pymqi.Queue(c, "DEEP").put(b"still works")
        qm.mqsc(f"ALTER QLOCAL({QMGR_EVENTS}) PUT(ENABLED)\n", check=True)
        assert events(c, QMGR_EVENTS) == []            # lost, as MQ loses it
        pymqi.Queue(c, "DEEP", C.MQOO_INPUT_SHARED).get()
    finally:
        qm.mqsc("ALTER QMGR LOCALEV(DISABLED)\n", check=True)
        c.disconnect()


def test_queue_depth_events_follow_mqs_rules(qm: Any) -> None:
    """High at 50% of MAXDEPTH(10) disables itself and enables Low and Full; Full disables itself
    and enables Low; Low (20%) disables itself and enables High and Full. Each carries the queue's
    event statistics, which it resets."""
    c = qm.client()
    try:
        events(c, PERFM_EVENTS)
        q = pymqi.Queue(c, "DEEP", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        q.put(b"m")
        q.get()
        assert events(c, PERFM_EVENTS) == []           # PERFMEV(DISABLED): nothing
        qm.mqsc("ALTER QMGR PERFMEV(ENABLED)\n", check=True)
        admin = qm.bindings()
        pymqi.PCFExecute(admin).MQCMD_RESET_Q_STATS({C.MQCA_Q_NAME: b"DEEP"})   # the event statistics from nought
        admin.disconnect()
        for _ in range(10):
            q.put(b"m")
        assert reason(q.put, b"over")[1] == C.MQRC_Q_FULL
        for _ in range(9):
            q.get()
        got = events(c, PERFM_EVENTS)
        assert [(cfh[3], cfh[7]) for cfh, _p in got] == [(F.MQCMD_PERFM_EVENT, C.MQRC_Q_DEPTH_HIGH),
                                                         (F.MQCMD_PERFM_EVENT, C.MQRC_Q_FULL),
                                                         (F.MQCMD_PERFM_EVENT, C.MQRC_Q_DEPTH_LOW)]
        stats = [{p: v for _t, p, v in params} for _c, params in got]
        assert [list(s) for s in stats][0] == [C.MQCA_Q_MGR_NAME, C.MQCA_BASE_Q_NAME, C.MQIA_TIME_SINCE_RESET,
                                               C.MQIA_HIGH_Q_DEPTH, C.MQIA_MSG_ENQ_COUNT, C.MQIA_MSG_DEQ_COUNT]
        assert all(s[C.MQCA_BASE_Q_NAME] == "DEEP" for s in stats)
        # High at the fifth put; Full after five more (the counts reset at High); Low at depth 2,
        # after eight gets (reset at Full).
        assert [(s[C.MQIA_HIGH_Q_DEPTH], s[C.MQIA_MSG_ENQ_COUNT], s[C.MQIA_MSG_DEQ_COUNT]) for s in stats] == \
            [(5, 5, 0), (10, 5, 0), (10, 0, 8)]
        out = qm.mqsc("DISPLAY QLOCAL(DEEP) QDPHIEV QDPLOEV QDPMAXEV\n").stdout
        assert "QDPHIEV(ENABLED)" in out and "QDPLOEV(DISABLED)" in out and "QDPMAXEV(ENABLED)" in out
        q.get()
    finally:
        qm.mqsc("ALTER QMGR PERFMEV(DISABLED)\n", check=True)
        c.disconnect()


def test_start_and_stop_events(harness: Harness) -> None:
    """STRSTPEV (ENABLED by default): Queue Manager Active at strmqm, Not Active (quiescing, for
    a controlled end) at endmqm; the event queue made persistent here so that one survives."""
    qm = harness.add("STRSTP", f"ALTER QLOCAL({QMGR_EVENTS}) DEFPSIST(YES)\nALTER QMGR STATQ(ON) STATINT(1)\n")
    c = qm.client()
    pymqi.Queue(c, "SYSTEM.DEFAULT.LOCAL.QUEUE").put(b"counted")     # statistics to write at the end
    c.disconnect()
    started = time.monotonic()
    run_mqlite("endmqm", qm.name)                   # controlled: quiesce
    while qm.running():
        assert time.monotonic() - started < 15, "endmqm did not end the queue manager"
        time.sleep(0.1)
    qm.start()
    c = qm.bindings()
    try:
        got = events(c, QMGR_EVENTS)
        reasons = [cfh[7] for cfh, _p in got]
        assert reasons[-2:] == [C.MQRC_Q_MGR_NOT_ACTIVE, C.MQRC_Q_MGR_ACTIVE]
        not_active = {p: v for _t, p, v in got[-2][1]}
        assert not_active == {C.MQCA_Q_MGR_NAME: "STRSTP", F.MQIACF_REASON_QUALIFIER: F.MQRQ_Q_MGR_QUIESCING}
    finally:
        c.disconnect()


def test_configuration_and_command_events_say_who_changed_what(qm: Any) -> None:
    """CONFIGEV: Create, Change (two messages: before, after) and Delete Object from runmqsc
    (MQEVO_CONSOLE), a PCF command message (MQEVO_MSG, with its context) and MQSET (MQEVO_MQSET),
    each with the definition's attributes; CMDEV: each command that succeeded, MQSC as its text,
    PCF as its parameters, NODISPLAY leaving out inquiries, a failed command leaving no event."""
    import getpass
    c = qm.client()
    me = getpass.getuser()[:12]
    qm.mqsc("ALTER QMGR CONFIGEV(ENABLED) CMDEV(ENABLED)\n", check=True)
    try:
        events(c, "SYSTEM.ADMIN.CONFIG.EVENT")
        events(c, "SYSTEM.ADMIN.COMMAND.EVENT")
        qm.mqsc("DEFINE QLOCAL(CFG.Q) MAXDEPTH(7)\n", check=True)
        pcf = pymqi.PCFExecute(c)
        pcf.MQCMD_CHANGE_Q({C.MQCA_Q_NAME: b"CFG.Q", C.MQIA_Q_TYPE: C.MQQT_LOCAL, C.MQIA_MAX_Q_DEPTH: 9})
        q = pymqi.Queue(c, "CFG.Q", C.MQOO_SET)
        q.set(C.MQIA_INHIBIT_PUT, C.MQQA_PUT_INHIBITED)
        q.close()
        assert qm.mqsc("DELETE QLOCAL(NO.SUCH.CFG.Q)\n").returncode != 0
        qm.mqsc("DELETE QLOCAL(CFG.Q)\n", check=True)
        config = events(c, "SYSTEM.ADMIN.CONFIG.EVENT")
        commands = events(c, "SYSTEM.ADMIN.COMMAND.EVENT")
        qm.mqsc("ALTER QMGR CMDEV(NODISPLAY)\n", check=True)
        events(c, "SYSTEM.ADMIN.COMMAND.EVENT")
        qm.mqsc("DISPLAY QMGR DESCR\n", check=True)
        pcf.MQCMD_INQUIRE_Q_MGR({F.MQIACF_Q_MGR_ATTRS: [C.MQCA_Q_MGR_DESC]})
        assert events(c, "SYSTEM.ADMIN.COMMAND.EVENT") == []
        pcf.disconnect()
    finally:
        qm.mqsc("ALTER QMGR CONFIGEV(DISABLED) CMDEV(DISABLED)\n", check=True)
        c.disconnect()
    # Configuration: create; change as two messages (sequence 1 not last, 2 last) twice; delete.
    # MQCFH Version: 2 for configuration events, 3 for command events (IBM's "MQCFH - PCF header").
    assert {cfh[2] for cfh, _p in config} == {F.MQCFH_VERSION_2}
    assert {cfh[2] for cfh, _p in commands} == {F.MQCFH_VERSION_3}
    assert [(cfh[3], cfh[4], cfh[5], cfh[7]) for cfh, _p in config] == [
        (F.MQCMD_CONFIG_EVENT, 1, F.MQCFC_LAST, C.MQRC_CONFIG_CREATE_OBJECT),
        (F.MQCMD_CONFIG_EVENT, 1, F.MQCFC_NOT_LAST, C.MQRC_CONFIG_CHANGE_OBJECT),
        (F.MQCMD_CONFIG_EVENT, 2, F.MQCFC_LAST, C.MQRC_CONFIG_CHANGE_OBJECT),
        (F.MQCMD_CONFIG_EVENT, 1, F.MQCFC_NOT_LAST, C.MQRC_CONFIG_CHANGE_OBJECT),
        (F.MQCMD_CONFIG_EVENT, 2, F.MQCFC_LAST, C.MQRC_CONFIG_CHANGE_OBJECT),
        (F.MQCMD_CONFIG_EVENT, 1, F.MQCFC_LAST, C.MQRC_CONFIG_DELETE_OBJECT)]
    created, before, after, unset, inhibited, deleted = [[(p, v) for _t, p, v in ps] for _c, ps in config]
    assert created[:6] == [(F.MQCACF_EVENT_USER_ID, me), (F.MQIACF_EVENT_ORIGIN, F.MQEVO_CONSOLE),
                           (F.MQCACF_EVENT_Q_MGR, "EVQM"), (F.MQIACF_OBJECT_TYPE, C.MQOT_Q),
                           (C.MQCA_Q_NAME, "CFG.Q"), (C.MQIA_QSG_DISP, C.MQQSGD_Q_MGR)]
    assert dict(created)[C.MQIA_Q_TYPE] == C.MQQT_LOCAL and dict(created)[C.MQIA_MAX_Q_DEPTH] == 7
    # A command message's context: its user, then its accounting token, identity, application.
    assert [p for p, _v in before[:8]] == [F.MQCACF_EVENT_USER_ID, F.MQIACF_EVENT_ORIGIN, F.MQCACF_EVENT_Q_MGR,
                                           F.MQBACF_EVENT_ACCOUNTING_TOKEN, F.MQCACF_EVENT_APPL_IDENTITY,
                                           F.MQIACF_EVENT_APPL_TYPE, F.MQCACF_EVENT_APPL_NAME,
                                           F.MQCACF_EVENT_APPL_ORIGIN]
    assert dict(before)[F.MQIACF_EVENT_ORIGIN] == F.MQEVO_MSG and dict(before)[F.MQCACF_EVENT_USER_ID] == me
    assert dict(before)[C.MQIA_MAX_Q_DEPTH] == 7 and dict(after)[C.MQIA_MAX_Q_DEPTH] == 9
    assert dict(unset)[F.MQIACF_EVENT_ORIGIN] == F.MQEVO_MQSET
    assert dict(unset)[C.MQIA_INHIBIT_PUT] == C.MQQA_PUT_ALLOWED
    assert dict(inhibited)[C.MQIA_INHIBIT_PUT] == C.MQQA_PUT_INHIBITED
    assert dict(deleted)[C.MQCA_Q_NAME] == "CFG.Q" and dict(deleted)[F.MQIACF_EVENT_ORIGIN] == F.MQEVO_CONSOLE
    # Commands: the MQSC DEFINE, the PCF Change Queue, the MQSC DELETE (not the one that failed).
    assert [(cfh[3], cfh[7]) for cfh, _p in commands] == [(F.MQCMD_COMMAND_EVENT, C.MQRC_COMMAND_MQSC),
                                                         (F.MQCMD_COMMAND_EVENT, C.MQRC_COMMAND_PCF),
                                                         (F.MQCMD_COMMAND_EVENT, C.MQRC_COMMAND_MQSC)]
    (define, changed, delete) = [ps for _c, ps in commands]
    assert [(t, p) for t, p, _v in define] == [(F.MQCFT_GROUP, F.MQGACF_COMMAND_CONTEXT),
                                               (F.MQCFT_GROUP, F.MQGACF_COMMAND_DATA)]
    context, data = define[0][2], define[1][2]
    assert [(p, v) for _t, p, v in context] == [(F.MQCACF_EVENT_USER_ID, me), (F.MQIACF_EVENT_ORIGIN, F.MQEVO_CONSOLE),
                                                (F.MQCACF_EVENT_Q_MGR, "EVQM"), (F.MQIACF_COMMAND, F.MQCMD_CREATE_Q)]
    assert [(p, v) for _t, p, v in data] == [(F.MQCACF_COMMAND_MQSC, "DEFINE QLOCAL(CFG.Q) MAXDEPTH(7)")]
    assert dict((p, v) for _t, p, v in changed[0][2])[F.MQIACF_COMMAND] == F.MQCMD_CHANGE_Q
    assert dict((p, v) for _t, p, v in changed[1][2]) == {C.MQCA_Q_NAME: "CFG.Q", C.MQIA_Q_TYPE: C.MQQT_LOCAL,
                                                         C.MQIA_MAX_Q_DEPTH: 9}
    assert dict((p, v) for _t, p, v in delete[0][2])[F.MQIACF_COMMAND] == F.MQCMD_DELETE_Q


def test_alias_and_transmission_queue_events(qm: Any) -> None:
    """LOCALEV: Unknown Alias Base Queue and Alias Base Queue Type Error; REMOTEEV: Unknown
    Transmission Queue, Transmission Queue Type and Usage Errors, Unknown Default Transmission
    Queue, each with the names MQ's event data gives (base, transmission queue, its type)."""
    c = qm.client()
    qm.mqsc("DEFINE QALIAS(ALIAS.NOBASE) TARGET(NOT.THERE)\nDEFINE QALIAS(ALIAS.MODEL) TARGET(SYSTEM.DEFAULT.MODEL.QUEUE)\n"
            "DEFINE QREMOTE(R.NOXQ) RNAME(X) RQMNAME(FAR) XMITQ(NO.SUCH.XMITQ)\n"
            "DEFINE QREMOTE(R.BADXQ) RNAME(X) RQMNAME(FAR) XMITQ(ALIAS.NOBASE)\n"
            "DEFINE QLOCAL(PLAIN.LOCAL)\nALTER QMGR DEFXMITQ(NO.DEFAULT.XQ) LOCALEV(ENABLED) REMOTEEV(ENABLED)\n",
            check=True)
    try:
        events(c, QMGR_EVENTS)
        for name, qmgr, expected in (("ALIAS.NOBASE", "", C.MQRC_UNKNOWN_ALIAS_BASE_Q),
                                     ("ALIAS.MODEL", "", C.MQRC_ALIAS_BASE_Q_TYPE_ERROR),
                                     ("R.NOXQ", "", C.MQRC_UNKNOWN_XMIT_Q),
                                     ("R.BADXQ", "", C.MQRC_XMIT_Q_TYPE_ERROR),
                                     ("Q", "PLAIN.LOCAL", C.MQRC_XMIT_Q_USAGE_ERROR),
                                     ("Q", "ELSEWHERE", C.MQRC_UNKNOWN_DEF_XMIT_Q)):
            od = pymqi.OD(ObjectName=name.encode(), ObjectQMgrName=qmgr.encode())
            assert reason(pymqi.Queue, c, od, C.MQOO_OUTPUT)[1] == expected, name
        got = [(cfh[7], {p: v for _t, p, v in params}, [p for _t, p, _v in params])
               for cfh, params in events(c, QMGR_EVENTS)]
    finally:
        qm.mqsc("ALTER QMGR DEFXMITQ(' ') LOCALEV(DISABLED) REMOTEEV(DISABLED)\n", check=True)
        c.disconnect()
    assert [r for r, _v, _o in got] == [C.MQRC_UNKNOWN_ALIAS_BASE_Q, C.MQRC_ALIAS_BASE_Q_TYPE_ERROR,
                                        C.MQRC_UNKNOWN_XMIT_Q, C.MQRC_XMIT_Q_TYPE_ERROR, C.MQRC_XMIT_Q_USAGE_ERROR,
                                        C.MQRC_UNKNOWN_DEF_XMIT_Q]
    nobase, model, noxq, badxq, usage, nodef = got
    assert nobase[2] == [C.MQCA_Q_MGR_NAME, C.MQCA_Q_NAME, C.MQCA_BASE_OBJECT_NAME, C.MQIA_APPL_TYPE,
                         F.MQCACF_APPL_NAME, C.MQIA_BASE_TYPE, F.MQCACH_CONNECTION_NAME, F.MQCACH_CHANNEL_NAME]
    assert nobase[1][C.MQCA_Q_NAME] == "ALIAS.NOBASE" and nobase[1][C.MQCA_BASE_OBJECT_NAME] == "NOT.THERE"
    assert nobase[1][C.MQIA_BASE_TYPE] == C.MQOT_Q
    assert model[1][C.MQCA_BASE_OBJECT_NAME] == "SYSTEM.DEFAULT.MODEL.QUEUE" and model[1][C.MQIA_Q_TYPE] == C.MQQT_MODEL
    assert noxq[2][:3] == [C.MQCA_Q_MGR_NAME, C.MQCA_Q_NAME, C.MQCA_XMIT_Q_NAME]
    assert noxq[1][C.MQCA_XMIT_Q_NAME] == "NO.SUCH.XMITQ"
    assert badxq[1][C.MQCA_XMIT_Q_NAME] == "ALIAS.NOBASE" and badxq[1][C.MQIA_Q_TYPE] == C.MQQT_ALIAS
    assert usage[1][C.MQCA_XMIT_Q_NAME] == "PLAIN.LOCAL" and usage[1][F.MQCACF_OBJECT_Q_MGR_NAME] == "PLAIN.LOCAL"
    assert nodef[1][C.MQCA_XMIT_Q_NAME] == "NO.DEFAULT.XQ" and nodef[1][F.MQCACF_OBJECT_Q_MGR_NAME] == "ELSEWHERE"


def test_queue_service_interval_events(qm: Any) -> None:
    """PERFMEV with QSVCIEV: Queue Service Interval High when a put or get finds the timer (started
    by a put to an empty queue, restarted by each get) past QSVCINT; QSVCIEV then becomes OK, and a
    get within QSVCINT of the last one raises Queue Service Interval OK, setting it back to HIGH."""
    qm.mqsc("DEFINE QLOCAL(SERVICED) QSVCINT(300) QSVCIEV(HIGH)\nALTER QMGR PERFMEV(ENABLED)\n", check=True)
    c = qm.client()
    try:
        events(c, PERFM_EVENTS)
        q = pymqi.Queue(c, "SERVICED", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        q.put(b"1")                                    # the timer starts: the queue was empty
        q.put(b"2")
        assert events(c, PERFM_EVENTS) == []           # within the interval
        time.sleep(0.5)
        q.put(b"3")                                    # past it: High
        assert "QSVCIEV(OK)" in qm.mqsc("DISPLAY QLOCAL(SERVICED) QSVCIEV\n").stdout
        q.get()                                        # restarts the timer (too late for OK)
        q.get()                                        # within the interval of the last get: OK
        q.close()
        got = events(c, PERFM_EVENTS)
    finally:
        qm.mqsc("ALTER QMGR PERFMEV(DISABLED)\n", check=True)
        c.disconnect()
    assert [(cfh[3], cfh[7]) for cfh, _p in got] == [(F.MQCMD_PERFM_EVENT, C.MQRC_Q_SERVICE_INTERVAL_HIGH),
                                                    (F.MQCMD_PERFM_EVENT, C.MQRC_Q_SERVICE_INTERVAL_OK)]
    high = {p: v for _t, p, v in got[0][1]}
    assert high[C.MQCA_BASE_Q_NAME] == "SERVICED" and high[C.MQIA_MSG_ENQ_COUNT] == 3
    assert "QSVCIEV(HIGH)" in qm.mqsc("DISPLAY QLOCAL(SERVICED) QSVCIEV\n").stdout


@pytest.mark.parametrize("setting,started,now,got,expected", [
    (F.MQQSIE_HIGH, None, 10.0, False, None),          # no timer: the queue was empty
    (F.MQQSIE_HIGH, 9.0, 10.0, False, "HIGH"),         # 1000 ms > 500 ms, at a put
    (F.MQQSIE_HIGH, 9.0, 10.0, True, "HIGH"),          # ... or at a get
    (F.MQQSIE_HIGH, 9.8, 10.0, True, None),            # within the interval, High enabled: nothing
    (F.MQQSIE_OK, 9.8, 10.0, True, "OK"),              # a get within the interval
    (F.MQQSIE_OK, 9.8, 10.0, False, None),             # a put is not service
    (F.MQQSIE_OK, 9.0, 10.0, True, None),              # a get too late
    (F.MQQSIE_NONE, 9.0, 10.0, True, None),
])
def test_service_interval_rule(setting: int, started: float | None, now: float, got: bool, expected: str | None) -> None:
    from mqlite.engine.events import service_event
    assert service_event(setting, started, now, 500, got) == expected


def test_refresh_queue_manager_writes_refresh_object_events(qm: Any) -> None:
    """REFRESH QMGR TYPE(CONFIGEV) and PCF Refresh Queue Manager: a Refresh Object event (2370)
    for each definition OBJECT and NAME choose, with its attributes; refused while CONFIGEV is off."""
    r = qm.mqsc("REFRESH QMGR TYPE(CONFIGEV)\n")
    assert r.returncode != 0 and "MQL8012E" in r.stdout
    assert "AMQ8405I" in qm.mqsc("REFRESH QMGR\n").stdout          # TYPE is required: a syntax error
    qm.mqsc("DEFINE QLOCAL(RF.A) DESCR('first')\nDEFINE QLOCAL(RF.B)\nDEFINE QALIAS(RF.ALIAS) TARGET(RF.A)\n"
            "ALTER QMGR CONFIGEV(ENABLED)\n", check=True)
    c = qm.client()
    try:
        events(c, "SYSTEM.ADMIN.CONFIG.EVENT")
        assert "MQL8013I" in qm.mqsc("REFRESH QMGR TYPE(CONFIGEV) OBJECT(QLOCAL) NAME(RF.*)\n").stdout
        by_mqsc = events(c, "SYSTEM.ADMIN.CONFIG.EVENT")
        pcf = pymqi.PCFExecute(c)
        pcf.MQCMD_REFRESH_Q_MGR({F.MQIACF_REFRESH_TYPE: F.MQRT_CONFIGURATION, F.MQIACF_OBJECT_TYPE: C.MQOT_Q_MGR})
        with pytest.raises(pymqi.MQMIError) as e:
            pcf.MQCMD_REFRESH_Q_MGR({F.MQIACF_REFRESH_TYPE: F.MQRT_EXPIRY})
        assert e.value.reason == F.MQRCCF_PARM_VALUE_ERROR
        pcf.disconnect()
        by_pcf = events(c, "SYSTEM.ADMIN.CONFIG.EVENT")
    finally:
        qm.mqsc("ALTER QMGR CONFIGEV(DISABLED)\n", check=True)
        c.disconnect()
    assert [cfh[7] for cfh, _p in by_mqsc] == [C.MQRC_CONFIG_REFRESH_OBJECT] * 2
    refreshed = [{p: v for _t, p, v in params} for _c, params in by_mqsc]
    assert [g[C.MQCA_Q_NAME] for g in refreshed] == ["RF.A", "RF.B"]
    assert refreshed[0][C.MQCA_Q_DESC] == "first" and refreshed[0][F.MQIACF_EVENT_ORIGIN] == F.MQEVO_CONSOLE
    ((cfh, params),) = by_pcf
    qmgr = {p: v for _t, p, v in params}
    assert cfh[7] == C.MQRC_CONFIG_REFRESH_OBJECT and qmgr[F.MQIACF_OBJECT_TYPE] == C.MQOT_Q_MGR
    assert qmgr[C.MQCA_Q_MGR_NAME] == "EVQM" and qmgr[F.MQIACF_EVENT_ORIGIN] == F.MQEVO_MSG


def test_authority_and_chlauth_records_raise_configuration_events(qm: Any) -> None:
    """CONFIGEV for security records: SET AUTHREC creating a record (Create), changing it (Change:
    the record before, then after), DELETE AUTHREC (Delete), each with ObjectType MQOT_AUTH_REC, the
    profile, its object type, the entity and its authorities (EventQMgr first, as MQ lists it);
    SET CHLAUTH ADD, REPLACE and REMOVE alike with ObjectType MQOT_CHLAUTH and the record as an
    inquiry shows it; REFRESH QMGR OBJECT(AUTHREC) and OBJECT(CHLAUTH) a Refresh event for each."""
    c = qm.client()
    qm.mqsc("ALTER QMGR CONFIGEV(ENABLED)\n", check=True)
    try:
        events(c, "SYSTEM.ADMIN.CONFIG.EVENT")
        qm.mqsc("SET AUTHREC PROFILE('RF.**') OBJTYPE(QUEUE) GROUP('mqm') AUTHADD(PUT)\n"
                "SET AUTHREC PROFILE('RF.**') OBJTYPE(QUEUE) GROUP('mqm') AUTHADD(GET)\n"
                "DELETE AUTHREC PROFILE('RF.**') OBJTYPE(QUEUE) GROUP('mqm')\n"
                "SET CHLAUTH('RF.CHL') TYPE(ADDRESSMAP) ADDRESS('10.1.2.3') USERSRC(CHANNEL) DESCR('one')\n"
                "SET CHLAUTH('RF.CHL') TYPE(ADDRESSMAP) ADDRESS('10.1.2.3') USERSRC(CHANNEL) DESCR('two') "
                "ACTION(REPLACE)\n"
                "SET CHLAUTH('RF.CHL') TYPE(ADDRESSMAP) ADDRESS('10.1.2.3') ACTION(REMOVE)\n", check=True)
        changed = events(c, "SYSTEM.ADMIN.CONFIG.EVENT")
        qm.mqsc("SET AUTHREC PROFILE('RF.KEPT') OBJTYPE(TOPIC) GROUP('mqm') AUTHADD(SUB)\n"
                "SET CHLAUTH('RF.KEPT') TYPE(BLOCKUSER) USERLIST('nobody')\n", check=True)
        events(c, "SYSTEM.ADMIN.CONFIG.EVENT")
        assert "MQL8013I" in qm.mqsc("REFRESH QMGR TYPE(CONFIGEV) OBJECT(AUTHREC) NAME(RF.*)\n").stdout
        assert "MQL8013I" in qm.mqsc("REFRESH QMGR TYPE(CONFIGEV) OBJECT(CHLAUTH) NAME(RF.*)\n").stdout
        refreshed = events(c, "SYSTEM.ADMIN.CONFIG.EVENT")
    finally:
        qm.mqsc("ALTER QMGR CONFIGEV(DISABLED)\nDELETE AUTHREC PROFILE('RF.KEPT') OBJTYPE(TOPIC) GROUP('mqm')\n"
                "SET CHLAUTH('RF.KEPT') TYPE(BLOCKUSER) ACTION(REMOVEALL)\n", check=True)
        c.disconnect()
    create, change = C.MQRC_CONFIG_CREATE_OBJECT, C.MQRC_CONFIG_CHANGE_OBJECT
    delete, refresh = C.MQRC_CONFIG_DELETE_OBJECT, C.MQRC_CONFIG_REFRESH_OBJECT
    assert [(cfh[3], cfh[7], cfh[4], cfh[5]) for cfh, _p in changed] == [
        (F.MQCMD_CONFIG_EVENT, create, 1, F.MQCFC_LAST), (F.MQCMD_CONFIG_EVENT, change, 1, F.MQCFC_NOT_LAST),
        (F.MQCMD_CONFIG_EVENT, change, 2, F.MQCFC_LAST), (F.MQCMD_CONFIG_EVENT, delete, 1, F.MQCFC_LAST)] * 2
    auth = [params for _c, params in changed[:4]]
    assert [p for _t, p, _v in auth[0]] == [
        F.MQCACF_EVENT_Q_MGR, F.MQCACF_EVENT_USER_ID, F.MQIACF_EVENT_ORIGIN, F.MQIACF_OBJECT_TYPE,
        F.MQCACF_AUTH_PROFILE_NAME, F.MQIACF_AUTH_REC_TYPE, F.MQCACF_ENTITY_NAME, F.MQIACF_ENTITY_TYPE,
        F.MQIACF_AUTHORIZATION_LIST]
    a = [{p: v for _t, p, v in params} for params in auth]
    assert a[0][F.MQIACF_OBJECT_TYPE] == C.MQOT_AUTH_REC and a[0][F.MQCACF_AUTH_PROFILE_NAME] == "RF.**"
    assert a[0][F.MQIACF_AUTH_REC_TYPE] == C.MQOT_Q and a[0][F.MQCACF_ENTITY_NAME] == "mqm"
    assert a[0][F.MQIACF_ENTITY_TYPE] == 2 and a[0][F.MQIACF_EVENT_ORIGIN] == F.MQEVO_CONSOLE   # MQZAET_GROUP
    assert [sorted(x[F.MQIACF_AUTHORIZATION_LIST]) for x in a] == [
        [F.MQAUTH_OUTPUT], [F.MQAUTH_OUTPUT], sorted([F.MQAUTH_OUTPUT, F.MQAUTH_INPUT]),
        sorted([F.MQAUTH_OUTPUT, F.MQAUTH_INPUT])]
    chl = [{p: v for _t, p, v in params} for _c, params in changed[4:]]
    assert all(x[F.MQIACF_OBJECT_TYPE] == C.MQOT_CHLAUTH and x[F.MQCACH_CHANNEL_NAME] == "RF.CHL" for x in chl)
    assert [x[F.MQCACH_DESC] for x in chl] == ["one", "one", "two", "two"]
    assert chl[0][F.MQIACF_CHLAUTH_TYPE] == F.MQCAUT_ADDRESSMAP and chl[0][F.MQCACH_CONNECTION_NAME] == "10.1.2.3"
    assert [(cfh[7], {p: v for _t, p, v in params}[F.MQIACF_OBJECT_TYPE]) for cfh, params in refreshed] == [
        (refresh, C.MQOT_AUTH_REC), (refresh, C.MQOT_CHLAUTH)]
