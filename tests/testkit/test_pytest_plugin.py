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
    assert mq_qmgr.name != "MQTEST"
    mq_qmgr.mqsc("DEFINE QLOCAL(KEPT)")
    qm = mq_qmgr.connect()
    q = pymqi.Queue(qm, "KEPT", pymqi.CMQC.MQOO_OUTPUT)
    q.put(b"durable", pymqi.MD(Persistence=pymqi.CMQC.MQPER_PERSISTENT))
    q.put(b"fleeting", pymqi.MD(Persistence=pymqi.CMQC.MQPER_NOT_PERSISTENT))
    mq_qmgr.kill()
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
