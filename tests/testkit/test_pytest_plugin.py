"""mqlite's pytest plugin as a user uses it: a test project in a temporary directory, run by pytest
in a subprocess (pytester), the plugin found through its ``pytest11`` entry point alone (no import,
no conftest): the session's queue manager reused and forgotten between tests, a fresh one on a
marker, kill -9 and restart, MQSC results as data, IBM's environment variables."""
from __future__ import annotations

import pytest

pytest_plugins = ("pytester",)


def run(pytester: pytest.Pytester, source: str, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_user=source)
    return pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", *args)


def test_the_session_queue_manager_is_reused_and_forgotten_between_tests(pytester: pytest.Pytester) -> None:
    result = run(pytester, '''
import os
from mqlite import pymqi

def test_first(mq_qmgr):
    mq_qmgr.mqsc("DEFINE QLOCAL(ORDERS)\\nDEFINE QALIAS(ORDERS.ALIAS) TARGET(ORDERS)")
    qm = mq_qmgr.connect()
    q = pymqi.Queue(qm, "ORDERS.ALIAS", pymqi.CMQC.MQOO_OUTPUT)
    q.put(b"order 1")
    q.close()
    qm.disconnect()
    assert mq_qmgr.depth("ORDERS") == 1
    assert os.environ["MQSERVER"] == f"{mq_qmgr.channel}/TCP/{mq_qmgr.conname}"

def test_second_starts_clean(mq_qmgr):
    assert mq_qmgr.mqsc("DISPLAY QUEUE(ORDERS*)", check=False) == []      # both deleted after the first
    mq_qmgr.mqsc("DEFINE QLOCAL(ORDERS)")                                   # so this is no REPLACE
    assert mq_qmgr.depth("ORDERS") == 0
    (q,) = mq_qmgr.mqsc("DISPLAY QLOCAL(ORDERS) MAXDEPTH DEFPSIST")
    assert q["QUEUE"] == "ORDERS" and q["MAXDEPTH"] == 5000

def test_mqserver_reaches_it_as_ibms_samples_do(mq_qmgr):
    from mqlite import pymqi
    qm = pymqi.QueueManager(None)
    qm.connect(mq_qmgr.name)                      # MQSERVER: a client connection
    assert qm.inquire(pymqi.CMQC.MQCA_Q_MGR_NAME).strip() == mq_qmgr.name.encode()
    qm.disconnect()
''')
    result.assert_outcomes(passed=3)


def test_a_fresh_queue_manager_survives_kill_9_and_mqsc_failures_raise(pytester: pytest.Pytester) -> None:
    result = run(pytester, '''
import pytest
from mqlite import pymqi
from mqlite.pytest_plugin import MQSCError

@pytest.mark.mq_fresh
def test_crash(mq_qmgr):
    import time
    assert mq_qmgr.name != "MQTEST"
    mq_qmgr.mqsc("DEFINE QLOCAL(KEPT)")
    qm = mq_qmgr.connect()
    q = pymqi.Queue(qm, "KEPT", pymqi.CMQC.MQOO_OUTPUT)
    q.put(b"durable", pymqi.MD(Persistence=pymqi.CMQC.MQPER_PERSISTENT))
    q.put(b"fleeting", pymqi.MD(Persistence=pymqi.CMQC.MQPER_NOT_PERSISTENT))
    started = time.monotonic()
    mq_qmgr.kill()                    # (returns once the process is gone: it was 10 s, a zombie counted alive)
    assert time.monotonic() - started <= 0.5
    mq_qmgr.restart()
    assert mq_qmgr.depth("KEPT") == 1

@pytest.mark.mq_mqsc("DEFINE QLOCAL(GIVEN) MAXDEPTH(7)")
def test_marker_mqsc(mq_qmgr):
    (q,) = mq_qmgr.mqsc("DISPLAY QLOCAL(GIVEN) MAXDEPTH")
    assert q["MAXDEPTH"] == 7
    with pytest.raises(MQSCError, match="AMQ8147E"):
        mq_qmgr.mqsc("DISPLAY QLOCAL(MISSING)")
''')
    result.assert_outcomes(passed=2)


def test_start_mqsc_option(pytester: pytest.Pytester) -> None:
    pytester.makefile(".mqsc", setup="DEFINE QLOCAL(FROM.FILE)\n")
    result = run(pytester, '''
def test_file_applied(mq_qmgr):
    assert mq_qmgr.depth("FROM.FILE") == 0
''', "--mq-mqsc", "setup.mqsc")
    result.assert_outcomes(passed=1)


def test_a_cluster_and_a_movable_clock(pytester: pytest.Pytester) -> None:
    result = run(pytester, '''
from mqlite import pymqi
C = pymqi.CMQC

def test_cluster(mq_cluster):
    cl = mq_cluster(full=["FR1", "FR2"], partial=["PR1"], queues={"ORDERS": ["FR2", "PR1"]})
    conn = cl["FR1"].connect()                     # FR1 hosts no instance: the workload spreads the puts
    q = pymqi.Queue(conn, "ORDERS", C.MQOO_OUTPUT | C.MQOO_BIND_NOT_FIXED)
    for i in range(20):
        q.put(b"o%d" % i)
    q.close()
    conn.disconnect()
    import time
    deadline = time.monotonic() + 30
    while cl["FR2"].depth("ORDERS") + cl["PR1"].depth("ORDERS") < 20 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert cl["FR2"].depth("ORDERS") + cl["PR1"].depth("ORDERS") == 20
    assert cl["FR2"].depth("ORDERS") > 0 and cl["PR1"].depth("ORDERS") > 0

def test_clock(mq_clock):
    qm = mq_clock.qmgr
    qm.mqsc("DEFINE QLOCAL(SHORTLIVED)")
    conn = qm.connect()
    q = pymqi.Queue(conn, "SHORTLIVED", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    q.put(b"soon gone", pymqi.MD(Expiry=50))        # five seconds
    mq_clock.advance(60)
    try:
        q.get()
        raise AssertionError("the expired message was got")
    except pymqi.MQMIError as e:
        assert e.reason == C.MQRC_NO_MSG_AVAILABLE
    q.close()
    conn.disconnect()
''')
    result.assert_outcomes(passed=2)


def test_security_as_the_developer_image_has_it(pytester: pytest.Pytester) -> None:
    result = run(pytester, '''
import pytest
from mqlite import pymqi
from mqlite.pytest_plugin import DEV_USERS
C = pymqi.CMQC

@pytest.mark.mq_security
def test_secured(mq_qmgr):
    assert mq_qmgr.channel == "DEV.APP.SVRCONN"
    conn = mq_qmgr.connect()                              # app, with its password
    q = pymqi.Queue(conn, "DEV.QUEUE.1", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    q.put(b"hello")
    assert q.get() == b"hello"
    q.close()
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.Queue(conn, "SYSTEM.DEFAULT.LOCAL.QUEUE", C.MQOO_OUTPUT)
    assert e.value.reason == C.MQRC_NOT_AUTHORIZED
    conn.disconnect()
    with pytest.raises(pymqi.MQMIError) as e:
        mq_qmgr.connect("admin", DEV_USERS["admin"])      # an administrator on the application channel
    assert e.value.reason == C.MQRC_NOT_AUTHORIZED
    admin = pymqi.connect(mq_qmgr.name, "DEV.ADMIN.SVRCONN", mq_qmgr.conname, "admin", DEV_USERS["admin"])
    admin.disconnect()
''')
    result.assert_outcomes(passed=1)
