"""mqlite's pytest plugin (the ``pytest11`` entry point ``mqlite``): a running queue manager for
a test with no set-up (docs/testing.md).

    def test_order_is_queued(mq_qmgr):
        mq_qmgr.mqsc("DEFINE QLOCAL(ORDERS)")
        qm = mq_qmgr.connect()                       # a pymqi client connection
        pymqi.Queue(qm, "ORDERS").put(b"order 1")
        assert mq_qmgr.depth("ORDERS") == 1

- ``mq_qmgr`` is the session's queue manager, reused: after each test the objects the test
  defined are deleted and the queues it filled are cleared. ``@pytest.mark.mq_fresh`` gives a
  test one of its own, ``@pytest.mark.mq_mqsc("...")`` one with that MQSC applied.
- A queue manager is a real server process on a free loopback port, so ``kill()`` is a SIGKILL
  and ``restart()`` recovers from the store as ``strmqm`` does.
- For code under test that reads IBM's variables, MQSERVER and MQCCDTURL (a JSON CCDT) name it
  for the test's duration.
- Options: ``--mq-mqsc FILE`` (MQSC applied to every queue manager at its start) and
  ``--mq-tmpfs`` (their data on /dev/shm)."""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite.mqsc.parser import split_commands
from mqlite.testing import QM, Harness
from mqlite.web.mqsc import _value, blocks

SESSION_QMGR = "MQTEST"
CHANNEL = "DEV.APP.SVRCONN"
# What a test may define that the session's queue manager forgets after it: MQSC's object types,
# each with the DISPLAY that lists them and the DELETE that removes one.
KEPT_APART = (("QUEUE", "QUEUE", "QLOCAL"), ("TOPIC", "TOPIC", "TOPIC"), ("SUB", "SUB", "SUB"),
              ("NAMELIST", "NAMELIST", "NAMELIST"), ("PROCESS", "PROCESS", "PROCESS"))


class MQSCError(AssertionError):
    """An MQSC command that failed: its response lines."""


class TestQueueManager:
    """A running queue manager for a test: where it listens, its client channel, and what a test
    does with it (connect, MQSC, depth, kill and restart)."""
    __test__ = False                                # (not a test class, whatever its name)

    def __init__(self, qm: QM, channel: str) -> None:
        self.qm = qm
        self.name, self.host, self.port = qm.name, "127.0.0.1", qm.port
        self.channel = channel

    @property
    def conname(self) -> str:
        return f"{self.host}({self.port})"

    # --- connecting ---------------------------------------------------------------------------
    def connect(self, user: str | None = None, password: str | None = None) -> Any:
        """A pymqi (mqlite.pymqi) client connection through the client channel."""
        from mqlite import pymqi
        return pymqi.connect(self.name, self.channel, self.conname, user, password)

    def ibmmq_connect(self, user: str | None = None, password: str | None = None) -> Any:
        """The same through IBM's ``ibmmq`` face (mqlite.ibmmq)."""
        from mqlite import ibmmq
        return ibmmq.connect(self.name, self.channel, self.conname, user, password)

    # --- administering ------------------------------------------------------------------------
    def mqsc(self, text: str, check: bool = True) -> list[dict[str, Any]]:
        """Run MQSC (one command or a script) and return the fields of every object a DISPLAY
        showed, as dicts (whole numbers as ints, lists as lists). With ``check`` a command that
        fails raises MQSCError with its response."""
        shown: list[dict[str, Any]] = []
        for cmd in split_commands(text):
            status, lines = self.qm.command(cmd.text)
            if check and status != "ok":
                raise MQSCError(f"{cmd.text}\n" + "\n".join(lines))
            shown += [{k: _value(k, v) for k, v in b.fields} for b in blocks("\n".join(lines)) if b.fields]
        return shown

    def depth(self, queue: str) -> int:
        """The queue's CURDEPTH."""
        (q,) = self.mqsc(f"DISPLAY QLOCAL({queue}) CURDEPTH")
        return int(q["CURDEPTH"])

    # --- failures -----------------------------------------------------------------------------
    def kill(self) -> None:
        """SIGKILL the queue manager's process (a crash: nothing is flushed or ended)."""
        self.qm.kill9()

    def restart(self) -> None:
        """Start it again (after ``kill()``: recovery from its store, as strmqm's), or end it with
        ``endmqm -i`` and start it."""
        if self.qm.running():
            self.qm.stop()
        self.qm.start()

    def close(self) -> None:
        self.qm.drop_control()


# --- pytest hooks -----------------------------------------------------------------------------
def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mqlite", "mqlite queue managers for tests")
    group.addoption("--mq-mqsc", metavar="FILE", default=None,
                    help="MQSC applied to every mqlite queue manager when it starts")
    group.addoption("--mq-tmpfs", action="store_true", default=False,
                    help="keep the mqlite queue managers' data on /dev/shm")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "mq_fresh: the test gets a queue manager of its own (mq_qmgr)")
    config.addinivalue_line("markers", "mq_mqsc(text): a queue manager of the test's own with this MQSC applied")


def _start_mqsc(config: pytest.Config) -> str:
    path = config.getoption("--mq-mqsc")
    if not path:
        return ""
    with open(path, encoding="utf-8") as f:
        return f.read().rstrip("\n") + "\n"


def _data_dir(config: pytest.Config) -> str:
    base = "/dev/shm" if config.getoption("--mq-tmpfs") and os.path.isdir("/dev/shm") else None
    return tempfile.mkdtemp(prefix="mqlite-pytest-", dir=base)


@pytest.fixture(scope="session")
def _mq_harness(pytestconfig: pytest.Config) -> Iterator[Harness]:
    h = Harness(_data_dir(pytestconfig), channel=CHANNEL)
    h._own_dir = True                               # (removed at close once its queue managers end)
    try:
        yield h
    finally:
        h.close()


@pytest.fixture(scope="session")
def _mq_session_qmgr(_mq_harness: Harness, pytestconfig: pytest.Config) -> Iterator[tuple[TestQueueManager, dict]]:
    qm = TestQueueManager(_mq_harness.add(SESSION_QMGR, _start_mqsc(pytestconfig)), CHANNEL)
    try:
        yield qm, _inventory(qm)
    finally:
        qm.close()


def _inventory(qm: TestQueueManager) -> dict[str, set[str]]:
    """The names of the objects a test may add, by type."""
    return {kind: {str(r.get(kind, "")) for r in qm.mqsc(f"DISPLAY {display}(*)", check=False)}
            for kind, display, _delete in KEPT_APART}


def _forget(qm: TestQueueManager, before: dict[str, set[str]]) -> None:
    """After a test on the session's queue manager: what it defined deleted, its queues cleared."""
    if not qm.qm.running():
        qm.restart()                                # (the test killed it and did not start it again)
    for kind, display, delete in KEPT_APART:
        for row in qm.mqsc(f"DISPLAY {display}(*)" + (" CURDEPTH" if kind == "QUEUE" else ""), check=False):
            name = str(row.get(kind, ""))
            if not name or name.startswith("SYSTEM."):
                continue
            if name not in before[kind]:
                what = str(row.get("TYPE", delete)) if kind == "QUEUE" else delete
                qm.mqsc(f"DELETE {what}('{name}')" + (" PURGE" if what == "QLOCAL" else ""), check=False)
            elif row.get("CURDEPTH"):
                qm.mqsc(f"CLEAR QLOCAL('{name}')", check=False)


def _environment(qm: TestQueueManager, monkeypatch: pytest.MonkeyPatch, tmp_dir: str) -> None:
    """MQSERVER and MQCCDTURL (a JSON CCDT with the client channel) for code that reads them."""
    monkeypatch.setenv("MQSERVER", f"{qm.channel}/TCP/{qm.conname}")
    ccdt = os.path.join(tmp_dir, "ccdt.json")
    with open(ccdt, "w", encoding="utf-8") as f:
        json.dump({"channel": [{"name": qm.channel, "type": "clientConnection",
                                "clientConnection": {"connection": [{"host": qm.host, "port": qm.port}],
                                                     "queueManager": qm.name}}]}, f)
    monkeypatch.setenv("MQCCDTURL", f"file://{ccdt}")


@pytest.fixture
def mq_qmgr(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
            tmp_path: Any) -> Iterator[TestQueueManager]:
    """A running queue manager for the test (docs/testing.md)."""
    config = request.config
    fresh = request.node.get_closest_marker("mq_fresh")
    extra = request.node.get_closest_marker("mq_mqsc")
    if fresh is None and extra is None:
        qm, before = request.getfixturevalue("_mq_session_qmgr")
        _environment(qm, monkeypatch, str(tmp_path))
        try:
            yield qm
        finally:
            _forget(qm, before)
        return
    harness: Harness = request.getfixturevalue("_mq_harness")
    name = f"MQT{len(harness.qms):05d}"
    mqsc = _start_mqsc(config) + (str(extra.args[0]).rstrip("\n") + "\n" if extra and extra.args else "")
    own = TestQueueManager(harness.add(name, mqsc), CHANNEL)
    _environment(own, monkeypatch, str(tmp_path))
    try:
        yield own
    finally:
        own.close()
        own.qm.stop()
