"""Queue statistics (STATQ, STATINT, RESET QMGR TYPE(STATISTICS)) through a real queue manager:
the messages on SYSTEM.ADMIN.STATISTICS.QUEUE parsed by hand (MQCFH, then each parameter), the
counts equal to what the test did, MQ's on/off rules, and a statistics queue that cannot take the
message changing nothing for the applications."""
from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.pymqi import CMQC as C
from mqlite.pymqi import CMQCFC as F
from mqlite.testing import Harness, run_mqlite
from tests.helpers import parse_pcf as parse

STATQ = "SYSTEM.ADMIN.STATISTICS.QUEUE"


@pytest.fixture(scope="module")
def qm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    h = Harness(str(tmp_path_factory.mktemp("stats")), channel="APP.SVRCONN")
    try:
        yield h.add("STATSQM", "DEFINE QLOCAL(COUNTED) DEFPSIST(NO)\nDEFINE QLOCAL(NOT.COUNTED) STATQ(OFF)\n"
                               "DEFINE QLOCAL(ALWAYS.COUNTED) STATQ(ON)\nALTER QMGR STATINT(600)\n")
    finally:
        h.close()


def collect(qm: Any, conn: Any) -> list[tuple[tuple[int, ...], list[tuple[int, int, Any]]]]:
    """End the interval and take every statistics message written."""
    assert "AMQ8005I" in qm.mqsc("RESET QMGR TYPE(STATISTICS)\n").stdout
    q = pymqi.Queue(conn, STATQ)
    out = []
    while True:
        try:
            md = pymqi.MD()
            out.append(parse(q.get(None, md)))
            assert md.Format.strip() == C.MQFMT_ADMIN.strip() and md.MsgType == C.MQMT_DATAGRAM
        except pymqi.MQMIError as e:
            assert e.reason == C.MQRC_NO_MSG_AVAILABLE
            break
    q.close()
    return out


def groups(messages: list) -> dict[str, dict[int, Any]]:
    out = {}
    for _cfh, params in messages:
        for ptype, par, value in params:
            if ptype == F.MQCFT_GROUP:
                assert par == F.MQGACF_Q_STATISTICS_DATA
                g = {p: v for _t, p, v in value}
                out[g[C.MQCA_Q_NAME]] = g
    return out


def test_counts_are_what_the_application_did(qm: Any) -> None:
    qm.mqsc("ALTER QMGR STATQ(ON)\n", check=True)
    c = qm.client()
    try:
        collect(qm, c)                                     # a clean interval
        out = pymqi.Queue(c, "COUNTED")
        for _ in range(3):
            out.put(b"x" * 10)                             # nonpersistent (DEFPSIST(NO))
        out.put(b"y" * 7, pymqi.MD(Persistence=C.MQPER_PERSISTENT))
        c.put1("COUNTED", b"z" * 5)
        pymqi.Queue(c, "NOT.COUNTED").put(b"never")
        inq = pymqi.Queue(c, "COUNTED", C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
        inq.get(None, None, pymqi.GMO(Options=C.MQGMO_BROWSE_FIRST))
        for _ in range(5):
            inq.get()
        with pytest.raises(pymqi.MQMIError) as e:
            inq.get()
        assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE
        qm.mqsc("ALTER QLOCAL(COUNTED) PUT(DISABLED)\n", check=True)
        with pytest.raises(pymqi.MQMIError) as e:
            out.put(b"refused")                             # a failed put
        assert e.value.reason == C.MQRC_PUT_INHIBITED
        qm.mqsc("ALTER QLOCAL(COUNTED) PUT(ENABLED)\n", check=True)
        msgs = collect(qm, c)
        assert len(msgs) == 1
        cfh, params = msgs[0]
        assert cfh[:4] == (F.MQCFT_STATISTICS, 36, 3, F.MQCMD_STATISTICS_Q) and cfh[5] == F.MQCFC_LAST
        head = {p: v for t, p, v in params if t != F.MQCFT_GROUP}
        assert head[C.MQCA_Q_MGR_NAME] == "STATSQM" and head[C.MQIA_COMMAND_LEVEL] == 940
        assert head[F.MQIAMO_OBJECT_COUNT] == len([p for p in params if p[0] == F.MQCFT_GROUP])
        assert [p for _t, p, _v in params[:7]] == [C.MQCA_Q_MGR_NAME, F.MQCAMO_START_DATE, F.MQCAMO_START_TIME,
                                                    F.MQCAMO_END_DATE, F.MQCAMO_END_TIME, C.MQIA_COMMAND_LEVEL,
                                                    F.MQIAMO_OBJECT_COUNT]
        g = groups(msgs)
        assert "NOT.COUNTED" not in g
        q = g["COUNTED"]
        assert q[F.MQIAMO_PUTS] == [3, 1] and q[F.MQIAMO_PUT1S] == [1, 0]
        assert q[F.MQIAMO64_PUT_BYTES] == [35, 7] and q[F.MQIAMO_PUTS_FAILED] == 1
        assert q[F.MQIAMO_GETS] == [4, 1] and q[F.MQIAMO64_GET_BYTES] == [35, 7]
        assert q[F.MQIAMO_GETS_FAILED] == 1
        assert q[F.MQIAMO_BROWSES] == [1, 0] and q[F.MQIAMO64_BROWSE_BYTES] == [10, 0]
        assert (q[F.MQIAMO_Q_MIN_DEPTH], q[F.MQIAMO_Q_MAX_DEPTH]) == (0, 5)
        assert q[C.MQIA_Q_TYPE] == C.MQQT_LOCAL and q[C.MQIA_DEFINITION_TYPE] == C.MQQDT_PREDEFINED
        assert all(t >= 0 for t in q[F.MQIAMO64_AVG_Q_TIME])
        assert (q[F.MQIAMO_MSGS_EXPIRED], q[F.MQIAMO_MSGS_PURGED], q[F.MQIAMO_MSGS_NOT_QUEUED]) == (0, 0, 0)
        # A message that expires on the queue and one CLEAR QLOCAL removes.
        out.put(b"short", pymqi.MD(Expiry=1))
        time.sleep(0.3)
        with pytest.raises(pymqi.MQMIError):
            inq.get()                                       # passes over the expired one: 2033
        out.put(b"cleared")
        out.close()
        inq.close()                                         # CLEAR QLOCAL needs the queue not open (MQ's rule)
        assert "AMQ8022I" in qm.mqsc("CLEAR QLOCAL(COUNTED)\n").stdout
        q = groups(collect(qm, c))["COUNTED"]
        assert (q[F.MQIAMO_MSGS_EXPIRED], q[F.MQIAMO_MSGS_PURGED]) == (1, 1)
        # Nothing used since but the statistics queue itself (read by collect, as any queue is
        # counted when it is read): the next interval has no other group.
        assert set(groups(collect(qm, c))) <= {STATQ}
    finally:
        c.disconnect()
        qm.mqsc("ALTER QMGR STATQ(OFF)\n", check=True)


def test_mq_rules_for_queue_and_queue_manager_values(qm: Any) -> None:
    c = qm.client()
    try:
        collect(qm, c)
        # STATQ(OFF) at the queue manager: only the queue that says ON is counted.
        pymqi.Queue(c, "COUNTED").put(b"a")
        pymqi.Queue(c, "ALWAYS.COUNTED").put(b"a")
        assert set(groups(collect(qm, c))) == {"ALWAYS.COUNTED"}
        # NONE: nothing at all, whatever the queue says.
        qm.mqsc("ALTER QMGR STATQ(NONE)\n", check=True)
        pymqi.Queue(c, "ALWAYS.COUNTED").put(b"a")
        assert collect(qm, c) == []
        # A handle opened before collection was turned on is not counted (MQ: queues opened after).
        early = pymqi.Queue(c, "COUNTED", C.MQOO_OUTPUT)
        qm.mqsc("ALTER QMGR STATQ(ON)\n", check=True)
        early.put(b"a")
        pymqi.Queue(c, "COUNTED").put(b"b")
        g = groups(collect(qm, c))
        assert g["COUNTED"][F.MQIAMO_PUTS] == [1, 0]
        early.close()
    finally:
        c.disconnect()
        qm.mqsc("ALTER QMGR STATQ(OFF)\n", check=True)
        for q in ("COUNTED", "ALWAYS.COUNTED"):
            qm.mqsc(f"CLEAR QLOCAL({q})\n")


def test_the_interval_ends_by_itself_and_a_full_statistics_queue_changes_nothing(qm: Any) -> None:
    c = qm.client()
    try:
        collect(qm, c)
        qm.mqsc("ALTER QMGR STATQ(ON) STATINT(1)\n", check=True)
        pymqi.Queue(c, "COUNTED").put(b"timed")
        q = pymqi.Queue(c, STATQ)
        deadline = time.monotonic() + 10
        while True:
            try:
                body = q.get()
                break
            except pymqi.MQMIError:
                assert time.monotonic() < deadline, "no statistics message after STATINT"
                time.sleep(0.2)
        assert groups([parse(body)])["COUNTED"][F.MQIAMO_PUTS] == [1, 0]
        # The statistics queue cannot take the message: the application sees nothing of it.
        qm.mqsc(f"ALTER QMGR STATINT(600)\nALTER QLOCAL({STATQ}) PUT(DISABLED)\n", check=True)
        pymqi.Queue(c, "COUNTED").put(b"still fine")
        assert "AMQ8005I" in qm.mqsc("RESET QMGR TYPE(STATISTICS)\n").stdout
        qm.mqsc(f"ALTER QLOCAL({STATQ}) PUT(ENABLED)\n", check=True)
        assert collect(qm, c) == []                        # that interval's message was lost, as in MQ
        pymqi.Queue(c, "COUNTED").put(b"counted again")
        assert groups(collect(qm, c))["COUNTED"][F.MQIAMO_PUTS] == [1, 0]
    finally:
        c.disconnect()
        qm.mqsc("ALTER QMGR STATQ(OFF) STATINT(600)\n", check=True)


def test_reset_queue_manager_through_pcf(qm: Any) -> None:
    conn = qm.bindings()
    pcf = pymqi.PCFExecute(conn)
    try:
        qm.mqsc("ALTER QMGR STATQ(ON)\n", check=True)
        pymqi.Queue(conn, "COUNTED").put(b"p")
        pcf.MQCMD_RESET_Q_MGR({F.MQIACF_ACTION: F.MQACT_COLLECT_STATISTICS})
        assert groups([parse(pymqi.Queue(conn, STATQ).get())])["COUNTED"][F.MQIAMO_PUTS] == [1, 0]
        with pytest.raises(pymqi.MQMIError) as e:
            pcf.MQCMD_RESET_Q_MGR({F.MQIACF_ACTION: F.MQACT_ADVANCE_LOG})
        assert e.value.reason == F.MQRCCF_PARM_VALUE_ERROR
        assert "AMQ8005I" in qm.mqsc("RESET QMGR TYPE(STATISTICS)\n").stdout
        assert "AMQ8405I" in qm.mqsc("RESET QMGR TYPE(NONSENSE)\n").stdout
    finally:
        pcf.disconnect()
        conn.disconnect()
        qm.mqsc("ALTER QMGR STATQ(OFF)\nCLEAR QLOCAL(COUNTED)\n")


def test_amqsmon_prints_them_as_ibms_sample(qm: Any) -> None:
    c = qm.client()
    try:
        collect(qm, c)
        qm.mqsc("ALTER QMGR STATQ(ON)\n", check=True)
        pymqi.Queue(c, "COUNTED").put(b"seen by amqsmon")
        assert "AMQ8005I" in qm.mqsc("RESET QMGR TYPE(STATISTICS)\n").stdout
        r = run_mqlite("amqsmon", "-m", qm.name, "-t", "statistics", "-b")
        assert r.returncode == 0, r.stdout + r.stderr
        block = r.stdout.split("QueueName: 'COUNTED'")[1].split("QueueStatistics:")[0]
        assert "MonitoringType: QueueStatistics" in r.stdout and "QueueManager: 'STATSQM'" in r.stdout
        assert "PutCount: [1, 0]" in block and "PutBytes: [15, 0]" in block and "QueueType: Local" in block
        assert collect(qm, c) != []                      # -b browsed: the message is still there
    finally:
        c.disconnect()
        qm.mqsc("ALTER QMGR STATQ(OFF)\nCLEAR QLOCAL(COUNTED)\n")


def test_mqi_statistics_count_the_calls_made(qm: Any) -> None:
    """STATMQI(ON): one MQCMD_STATISTICS_MQI message per interval, its counts those of the calls
    the applications made (by object type, by persistence, failures apart), whatever the queues'
    STATQ; nothing while STATMQI is OFF."""
    qm.mqsc("ALTER QMGR STATMQI(ON) STATQ(OFF)\nCLEAR QLOCAL(NOT.COUNTED)\n", check=True)
    c = qm.client()
    try:
        read = len(collect(qm, c))                # a clean interval; reading it counts in the next
        app = qm.client()
        q = pymqi.Queue(app, "NOT.COUNTED", C.MQOO_OUTPUT | C.MQOO_INQUIRE | C.MQOO_INPUT_SHARED)
        q.put(b"a" * 10, pymqi.MD(Persistence=C.MQPER_NOT_PERSISTENT))
        q.put(b"b" * 20, pymqi.MD(Persistence=C.MQPER_NOT_PERSISTENT))
        app.put1("NOT.COUNTED", b"c" * 30, pymqi.MD(Persistence=C.MQPER_PERSISTENT))
        assert q.inquire(C.MQIA_CURRENT_Q_DEPTH) == 3
        with pytest.raises(pymqi.MQMIError):
            pymqi.Queue(app, "NO.SUCH.QUEUE", C.MQOO_OUTPUT)
        q.get(None, None, pymqi.GMO(Options=C.MQGMO_SYNCPOINT))
        app.commit()
        q.get(None, None, pymqi.GMO(Options=C.MQGMO_SYNCPOINT))
        app.backout()
        qmgr = pymqi.Queue(app, pymqi.OD(ObjectType=C.MQOT_Q_MGR), C.MQOO_INQUIRE)
        qmgr.inquire(C.MQCA_Q_MGR_NAME)
        qmgr.close()
        q.close()
        app.disconnect()
        messages = collect(qm, c)
    finally:
        qm.mqsc("ALTER QMGR STATMQI(OFF)\n", check=True)
        c.disconnect()
    (mqi,) = [params for cfh, params in messages if cfh[3] == F.MQCMD_STATISTICS_MQI]
    v = {p: val for _t, p, val in mqi}
    assert [p for _t, p, _v in mqi][:6] == [C.MQCA_Q_MGR_NAME, F.MQCAMO_START_DATE, F.MQCAMO_START_TIME,
                                            F.MQCAMO_END_DATE, F.MQCAMO_END_TIME, C.MQIA_COMMAND_LEVEL]
    assert F.MQIAMO_OBJECT_COUNT not in v
    assert v[F.MQIAMO_CONNS] == 1 and v[F.MQIAMO_CONNS_FAILED] == 0 and v[F.MQIAMO_CONNS_MAX] >= 2
    assert v[F.MQIAMO_DISCS] == [1, 0, 0]
    # The test's queue, the queue manager, and (counted here) the statistics queue read after the last interval.
    assert v[F.MQIAMO_OPENS][C.MQOT_Q] == 2 and v[F.MQIAMO_OPENS][C.MQOT_Q_MGR] == 1
    assert v[F.MQIAMO_OPENS_FAILED][C.MQOT_Q] == 1
    assert v[F.MQIAMO_CLOSES][C.MQOT_Q] == 2 and v[F.MQIAMO_CLOSES][C.MQOT_Q_MGR] == 1
    assert v[F.MQIAMO_INQS][C.MQOT_Q] == 1 and v[F.MQIAMO_INQS][C.MQOT_Q_MGR] == 1
    assert v[F.MQIAMO_PUTS] == [2, 0] and v[F.MQIAMO_PUT1S] == [0, 1]
    assert v[F.MQIAMO64_PUT_BYTES] == [30, 30]
    assert v[F.MQIAMO_GETS] == [read + 2, 0]           # the statistics read, then a, b (a backed-out get counts)
    assert v[F.MQIAMO_GETS_FAILED] == 1                                        # collect's last, empty get
    assert v[F.MQIAMO_COMMITS] == 1 and v[F.MQIAMO_BACKOUTS] == 1
    # STATQ(OFF): the queues' figures fed the MQI statistics but no queue statistics message.
    assert [cfh[3] for cfh, _p in messages] == [F.MQCMD_STATISTICS_MQI]
    c = qm.client()
    try:
        pymqi.Queue(c, "NOT.COUNTED").put(b"off")
        assert [cfh[3] for cfh, _p in collect(qm, c)] == []                   # STATMQI(OFF): nothing
    finally:
        c.disconnect()
