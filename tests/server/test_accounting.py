"""Accounting (ACCTMQI, ACCTQ, ACCTINT, ACCTCONO) through a real queue manager: the messages on
SYSTEM.ADMIN.ACCOUNTING.QUEUE parsed by hand (MQCFH, then each parameter), their counts what the
application did, MQ's on/off and override rules, intermediate records, a queue accounting record
split at 100 queues, and an accounting queue that cannot take them changing nothing."""
from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.engine.accounting import connection_levels, queue_accounting_on
from mqlite.pymqi import CMQC as C
from mqlite.pymqi import CMQCFC as F
from mqlite.testing import Harness, run_mqlite
from tests.helpers import parse_pcf as parse

ACCTQ = "SYSTEM.ADMIN.ACCOUNTING.QUEUE"
MANY = 101


@pytest.fixture(scope="module")
def qm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    h = Harness(str(tmp_path_factory.mktemp("acct")), channel="APP.SVRCONN")
    many = "".join(f"DEFINE QLOCAL(MANY.{i:03d})\n" for i in range(MANY))
    try:
        yield h.add("ACCTQM", "DEFINE QLOCAL(ACCT.Q) DEFPSIST(NO)\nDEFINE QLOCAL(ACCT.OFF) ACCTQ(OFF)\n"
                              "DEFINE QLOCAL(ACCT.ON) ACCTQ(ON)\nDEFINE QALIAS(ACCT.ALIAS) TARGET(ACCT.Q)\n"
                              "ALTER QMGR ACCTINT(600)\n" + many)
    finally:
        h.close()


@pytest.fixture
def reader(qm: Any) -> Iterator[Any]:
    """A connection made while nothing is accounted (its own record never mixes in)."""
    qm.mqsc("ALTER QMGR ACCTMQI(OFF) ACCTQ(OFF) ACCTCONO(DISABLED) ACCTINT(600)\n", check=True)
    c = qm.client()
    drain(c)
    yield c
    qm.mqsc("ALTER QMGR ACCTMQI(OFF) ACCTQ(OFF) ACCTCONO(DISABLED) ACCTINT(600)\n"
            "ALTER QLOCAL(SYSTEM.ADMIN.ACCOUNTING.QUEUE) PUT(ENABLED)\n", check=True)
    c.disconnect()


def drain(conn: Any, wait_for: int = 0, timeout: float = 10.0) -> list[tuple[tuple[int, ...], list[Any]]]:
    """Take every accounting message written; with ``wait_for``, wait (bounded) until that many
    have been taken."""
    q = pymqi.Queue(conn, ACCTQ)
    out: list[tuple[tuple[int, ...], list[Any]]] = []
    deadline = time.monotonic() + timeout
    try:
        while True:
            md = pymqi.MD()
            try:
                out.append(parse(q.get(None, md, pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=200))))
                assert md.Format.strip() == C.MQFMT_ADMIN.strip() and md.MsgType == C.MQMT_DATAGRAM
            except pymqi.MQMIError as e:
                assert e.reason == C.MQRC_NO_MSG_AVAILABLE
                if len(out) >= wait_for or time.monotonic() > deadline:
                    return out
    finally:
        q.close()


def values(params: list[tuple[int, int, Any]]) -> dict[int, Any]:
    return {p: v for _t, p, v in params if _t != F.MQCFT_GROUP}


def queue_groups(messages: list[Any]) -> dict[str, dict[int, Any]]:
    out = {}
    for cfh, params in messages:
        if cfh[3] != F.MQCMD_ACCOUNTING_Q:
            continue
        for ptype, par, value in params:
            if ptype == F.MQCFT_GROUP:
                assert par == F.MQGACF_Q_ACCOUNTING_DATA
                g = {p: v for _t, p, v in value}
                out[g[C.MQCA_Q_NAME]] = g
    return out


def of(messages: list[Any], command: int) -> list[Any]:
    return [(cfh, params) for cfh, params in messages if cfh[3] == command]


def test_an_application_s_calls_are_recorded_when_it_disconnects(qm: Any, reader: Any) -> None:
    """ACCTMQI(ON) ACCTQ(ON): at MQDISC one MQI accounting message with the connection's calls,
    its puts and gets by persistence with the smallest and largest message, and one queue
    accounting message with a group per queue it used (an alias counted against its base)."""
    qm.mqsc("ALTER QMGR ACCTMQI(ON) ACCTQ(ON)\n", check=True)
    app = qm.client()
    q = pymqi.Queue(app, "ACCT.ALIAS", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_BROWSE | C.MQOO_INQUIRE)
    q.put(b"a" * 10, pymqi.MD(Persistence=C.MQPER_NOT_PERSISTENT))
    q.put(b"b" * 20, pymqi.MD(Persistence=C.MQPER_NOT_PERSISTENT))
    app.put1("ACCT.Q", b"c" * 30, pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_BROWSE_FIRST))
    q.get(None, None, pymqi.GMO(Options=C.MQGMO_SYNCPOINT))
    app.commit()
    assert q.inquire(C.MQIA_INHIBIT_PUT) == C.MQQA_PUT_ALLOWED
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.Queue(app, "NO.SUCH.QUEUE", C.MQOO_OUTPUT)
    assert e.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    off = pymqi.Queue(app, "ACCT.OFF")
    off.put(b"not in the queue record")
    q.close()
    app.disconnect()
    messages = drain(reader, wait_for=2)
    assert len(messages) == 2
    (cfh, mqi), = of(messages, F.MQCMD_ACCOUNTING_MQI)
    assert cfh[0] == F.MQCFT_ACCOUNTING and cfh[2] == F.MQCFH_VERSION_3 and cfh[5] == F.MQCFC_LAST
    assert [p for _t, p, _v in mqi][:12] == [
        C.MQCA_Q_MGR_NAME, F.MQCAMO_START_DATE, F.MQCAMO_START_TIME, F.MQCAMO_END_DATE, F.MQCAMO_END_TIME,
        C.MQIA_COMMAND_LEVEL, F.MQBACF_CONNECTION_ID, F.MQIACF_SEQUENCE_NUMBER, F.MQCACF_APPL_NAME,
        F.MQIACF_PROCESS_ID, F.MQIACF_THREAD_ID, F.MQCACF_USER_IDENTIFIER]
    v = values(mqi)
    assert v[C.MQCA_Q_MGR_NAME] == "ACCTQM" and len(v[F.MQBACF_CONNECTION_ID]) == 24
    assert v[F.MQBACF_CONNECTION_ID][:8] == b"AMQCACCT"
    assert v[F.MQIACF_SEQUENCE_NUMBER] == 0 and v[F.MQCACH_CHANNEL_NAME] == "APP.SVRCONN"
    assert v[F.MQCACH_CONNECTION_NAME] == "127.0.0.1"
    assert v[F.MQIAMO_DISC_TYPE] == F.MQDISCONNECT_NORMAL
    assert v[F.MQIAMO_OPENS][C.MQOT_Q] == 2 and v[F.MQIAMO_OPENS_FAILED][C.MQOT_Q] == 1
    assert v[F.MQIAMO_CLOSES][C.MQOT_Q] == 1 and off   # (ACCT.OFF's handle closed by MQDISC: not a call)
    assert v[F.MQIAMO_PUTS] == [3, 0] and v[F.MQIAMO_PUT1S] == [0, 1] and v[F.MQIAMO_PUTS_FAILED] == 0
    assert v[F.MQIAMO64_PUT_BYTES] == [10 + 20 + 23, 30]
    assert v[F.MQIAMO_PUT_MIN_BYTES] == 10 and v[F.MQIAMO_PUT_MAX_BYTES] == 30
    assert v[F.MQIAMO_GETS] == [1, 0] and v[F.MQIAMO64_GET_BYTES] == [10, 0]
    assert v[F.MQIAMO_GET_MIN_BYTES] == 10 and v[F.MQIAMO_GET_MAX_BYTES] == 10
    assert v[F.MQIAMO_BROWSES] == [1, 0] and v[F.MQIAMO_BROWSE_MAX_BYTES] == 10
    assert v[F.MQIAMO_COMMITS] == 1 and v[F.MQIAMO_BACKOUTS] == 0
    assert v[F.MQIAMO_INQS][C.MQOT_Q] == 1
    (cfh, qparams), = of(messages, F.MQCMD_ACCOUNTING_Q)
    assert cfh[0] == F.MQCFT_ACCOUNTING and cfh[4] == 1 and cfh[5] == F.MQCFC_LAST
    qv = values(qparams)
    assert qv[F.MQBACF_CONNECTION_ID] == v[F.MQBACF_CONNECTION_ID] and qv[F.MQIAMO_OBJECT_COUNT] == 1
    g = queue_groups(messages)
    assert list(g) == ["ACCT.Q"]                      # the alias's base; ACCT.OFF has ACCTQ(OFF)
    a = g["ACCT.Q"]
    assert a[F.MQIAMO_OPENS] == 2 and a[C.MQIA_DEFINITION_TYPE] == C.MQQDT_PREDEFINED   # MQOPEN, MQPUT1
    assert a[F.MQCAMO_CLOSE_DATE] == a[F.MQCAMO_OPEN_DATE]
    assert a[F.MQIAMO_PUTS] == [2, 0] and a[F.MQIAMO_PUT1S] == [0, 1]
    assert a[F.MQIAMO_PUT_MIN_BYTES] == [10, 30] and a[F.MQIAMO_PUT_MAX_BYTES] == [20, 30]
    assert a[F.MQIAMO_GETS] == [1, 0] and a[F.MQIAMO_GET_MIN_BYTES] == [10, 0]
    assert a[F.MQIAMO_BROWSES] == [1, 0] and a[F.MQIAMO64_BROWSE_BYTES] == [10, 0]
    assert 0 <= a[F.MQIAMO64_Q_TIME_MIN][0] <= a[F.MQIAMO64_Q_TIME_AVG][0] <= a[F.MQIAMO64_Q_TIME_MAX][0] < 60_000_000


def test_the_rules_for_what_is_accounted(qm: Any, reader: Any) -> None:
    """ACCTQ: the queue manager's NONE turns every queue off; a queue's ON is accounted under the
    queue manager's OFF, its OFF never, its QMGR as the queue manager's; ACCTMQI(OFF) writes no
    MQI record; nothing at all when both are off."""
    def run() -> list[Any]:
        app = qm.client()
        for name in ("ACCT.Q", "ACCT.ON", "ACCT.OFF"):
            pymqi.Queue(app, name).put(b"x")
        app.disconnect()
        return drain(reader, wait_for=1, timeout=3)

    qm.mqsc("ALTER QMGR ACCTMQI(OFF) ACCTQ(OFF)\n", check=True)
    messages = run()
    assert [cfh[3] for cfh, _p in messages] == [F.MQCMD_ACCOUNTING_Q] and list(queue_groups(messages)) == ["ACCT.ON"]
    qm.mqsc("ALTER QMGR ACCTQ(ON)\n", check=True)
    assert list(queue_groups(run())) == ["ACCT.ON", "ACCT.Q"]
    qm.mqsc("ALTER QMGR ACCTQ(NONE)\n", check=True)
    assert run() == []
    qm.mqsc("ALTER QMGR ACCTQ(OFF)\nALTER QLOCAL(ACCT.ON) ACCTQ(QMGR)\n", check=True)
    try:
        assert run() == []
    finally:
        qm.mqsc("ALTER QLOCAL(ACCT.ON) ACCTQ(ON)\n", check=True)


def test_a_connection_overrides_the_queue_manager_under_acctcono(qm: Any, reader: Any) -> None:
    """ACCTCONO(ENABLED): MQCNO_ACCOUNTING_MQI_ENABLED and MQCNO_ACCOUNTING_Q_ENABLED turn
    accounting on for that connection; under ACCTCONO(DISABLED) they are ignored."""
    def run(options: int) -> list[int]:
        cd = pymqi.CD(ChannelName=b"APP.SVRCONN", ConnectionName=qm.conname.encode())
        app = pymqi.QueueManager(None)
        app.connect_with_options(qm.name, cd=cd, cno=pymqi.CNO(Options=options))
        pymqi.Queue(app, "ACCT.Q").put(b"x")
        app.disconnect()
        return sorted(cfh[3] for cfh, _p in drain(reader, wait_for=1, timeout=3))

    both = C.MQCNO_ACCOUNTING_MQI_ENABLED | C.MQCNO_ACCOUNTING_Q_ENABLED
    assert run(both) == []                                      # ACCTCONO(DISABLED)
    qm.mqsc("ALTER QMGR ACCTCONO(ENABLED)\n", check=True)
    assert run(both) == [F.MQCMD_ACCOUNTING_MQI, F.MQCMD_ACCOUNTING_Q]
    assert run(C.MQCNO_ACCOUNTING_MQI_ENABLED) == [F.MQCMD_ACCOUNTING_MQI]
    qm.mqsc("ALTER QMGR ACCTMQI(ON) ACCTQ(ON)\n", check=True)
    assert run(C.MQCNO_ACCOUNTING_MQI_DISABLED | C.MQCNO_ACCOUNTING_Q_DISABLED) == []
    assert run(C.MQCNO_NONE) == [F.MQCMD_ACCOUNTING_MQI, F.MQCMD_ACCOUNTING_Q]


def test_a_long_running_connection_writes_intermediate_records(qm: Any, reader: Any) -> None:
    """ACCTINT: a connection that keeps working is recorded every interval (SeqNumber counting
    them, no disconnect fields), then at MQDISC; an interval in which it did nothing writes
    nothing."""
    qm.mqsc("ALTER QMGR ACCTMQI(ON) ACCTINT(1)\n", check=True)
    app = qm.client()
    q = pymqi.Queue(app, "ACCT.Q")
    q.put(b"first")
    first = drain(reader, wait_for=1, timeout=10)
    assert len(first) == 1
    v = values(first[0][1])
    assert v[F.MQIACF_SEQUENCE_NUMBER] == 0 and F.MQIAMO_DISC_TYPE not in v and v[F.MQIAMO_PUTS] == [1, 0]
    time.sleep(2.5)                                             # idle: no record
    assert drain(reader, timeout=0) == []
    q.put(b"second")
    q.put(b"third")
    q.close()
    app.disconnect()
    last = drain(reader, wait_for=1, timeout=10)
    assert len(last) == 1
    v = values(last[0][1])
    assert v[F.MQIACF_SEQUENCE_NUMBER] >= 1 and v[F.MQIAMO_DISC_TYPE] == F.MQDISCONNECT_NORMAL
    assert v[F.MQIAMO_PUTS] == [2, 0] and v[F.MQIAMO_CLOSES][C.MQOT_Q] == 1


def test_more_than_100_queues_take_two_queue_accounting_messages(qm: Any, reader: Any) -> None:
    """At most 100 QAccountingData groups a message: 101 queues make two, MsgSeqNumber 1 and 2,
    the first MQCFC_NOT_LAST."""
    qm.mqsc("ALTER QMGR ACCTQ(ON)\n", check=True)
    app = qm.client()
    for i in range(MANY):
        app.put1(f"MANY.{i:03d}", b"x")
    app.disconnect()
    messages = drain(reader, wait_for=2)
    assert [(cfh[3], cfh[4], cfh[5]) for cfh, _p in messages] == [
        (F.MQCMD_ACCOUNTING_Q, 1, F.MQCFC_NOT_LAST), (F.MQCMD_ACCOUNTING_Q, 2, F.MQCFC_LAST)]
    assert [values(p)[F.MQIAMO_OBJECT_COUNT] for _c, p in messages] == [100, 1]
    assert len(queue_groups(messages)) == MANY


def test_an_accounting_queue_that_refuses_changes_nothing(qm: Any, reader: Any) -> None:
    """PUT(DISABLED) on the accounting queue: the records are lost, the application's MQDISC
    succeeds, the queue manager goes on; enabled again, the next one arrives."""
    qm.mqsc("ALTER QMGR ACCTMQI(ON)\nALTER QLOCAL(SYSTEM.ADMIN.ACCOUNTING.QUEUE) PUT(DISABLED)\n", check=True)
    app = qm.client()
    pymqi.Queue(app, "ACCT.Q").put(b"x")
    app.disconnect()
    qm.mqsc("ALTER QLOCAL(SYSTEM.ADMIN.ACCOUNTING.QUEUE) PUT(ENABLED)\n", check=True)
    assert drain(reader, timeout=0) == []
    app = qm.client()
    app.disconnect()
    assert len(drain(reader, wait_for=1)) == 1


def test_amqsmon_prints_accounting_messages(qm: Any, reader: Any) -> None:
    qm.mqsc("ALTER QMGR ACCTMQI(ON) ACCTQ(ON)\n", check=True)
    app = qm.client()
    pymqi.Queue(app, "ACCT.Q").put(b"12345")
    app.disconnect()
    depth = pymqi.Queue(reader, ACCTQ, C.MQOO_INQUIRE)
    deadline = time.monotonic() + 10
    while depth.inquire(C.MQIA_CURRENT_Q_DEPTH) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    depth.close()
    r = run_mqlite("amqsmon", "-m", qm.name, "-t", "accounting")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "MonitoringType: MQIAccounting" in lines and "MonitoringType: QueueAccounting" in lines
    assert "DiscType: Normal" in lines and "PutCount: [1, 0]" in lines and "PutMinBytes: 5" in lines
    assert any(line.startswith("ConnectionId: x'414d5143") for line in lines)
    assert "QueueAccounting: 0" in lines and "  QueueName: 'ACCT.Q'" in lines and "  PutMinBytes: [5, 0]" in lines


@pytest.mark.parametrize("acctmqi,acctq,acctcono,options,expected", [
    (C.MQMON_ON, C.MQMON_OFF, C.MQMON_DISABLED, C.MQCNO_ACCOUNTING_MQI_DISABLED, (True, C.MQMON_OFF)),
    (C.MQMON_OFF, C.MQMON_OFF, C.MQMON_ENABLED, C.MQCNO_ACCOUNTING_MQI_ENABLED, (True, C.MQMON_OFF)),
    (C.MQMON_ON, C.MQMON_ON, C.MQMON_ENABLED, C.MQCNO_ACCOUNTING_MQI_DISABLED | C.MQCNO_ACCOUNTING_Q_DISABLED,
     (False, C.MQMON_OFF)),
    (C.MQMON_OFF, C.MQMON_NONE, C.MQMON_ENABLED, C.MQCNO_ACCOUNTING_Q_ENABLED, (False, C.MQMON_NONE)),
    (C.MQMON_OFF, C.MQMON_OFF, C.MQMON_ENABLED, C.MQCNO_ACCOUNTING_Q_ENABLED, (False, C.MQMON_ON)),
])
def test_connection_levels_follow_mq_s_override_rules(acctmqi: int, acctq: int, acctcono: int, options: int,
                                                      expected: tuple[bool, int]) -> None:
    assert connection_levels(acctmqi, acctq, acctcono, options) == expected


def test_queue_accounting_rule() -> None:
    on, off, none, qmgr = C.MQMON_ON, C.MQMON_OFF, C.MQMON_NONE, C.MQMON_Q_MGR
    assert [queue_accounting_on(level, q) for level in (on, off, none) for q in (on, off, qmgr)] == [
        True, False, True, True, False, False, False, False, False]
