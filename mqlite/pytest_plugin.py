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
from mqlite.paths import QMPaths
from mqlite.testing import QM, Harness
from mqlite.web.mqsc import _value, blocks

SESSION_QMGR = "MQTEST"
DEV_USERS = {"app": "app-passw0rd", "admin": "admin-passw0rd"}     # (mq_security's users)
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

    def __init__(self, qm: QM, channel: str, user: tuple[str, str] | None = None) -> None:
        self.qm = qm
        self.name, self.host, self.port = qm.name, "127.0.0.1", qm.port
        self.channel = channel
        self.user = user                            # (connect()'s user and password when none is given)

    @property
    def conname(self) -> str:
        return f"{self.host}({self.port})"

    # --- connecting ---------------------------------------------------------------------------
    def connect(self, user: str | None = None, password: str | None = None) -> Any:
        """A pymqi (mqlite.pymqi) client connection through the client channel."""
        from mqlite import pymqi
        if user is None and self.user is not None:
            user, password = self.user
        return pymqi.connect(self.name, self.channel, self.conname, user, password)

    def ibmmq_connect(self, user: str | None = None, password: str | None = None) -> Any:
        """The same through IBM's ``ibmmq`` face (mqlite.ibmmq)."""
        from mqlite import ibmmq
        if user is None and self.user is not None:
            user, password = self.user
        return ibmmq.connect(self.name, self.channel, self.conname, user, password)

    async def aio_connect(self, user: str | None = None, password: str | None = None) -> Any:
        """The same through the asyncio face (mqlite.aio): ``conn = await mq_qmgr.aio_connect()``."""
        from mqlite import aio
        if user is None and self.user is not None:
            user, password = self.user
        return await aio.connect(self.name, self.channel, self.conname, user=user, password=password)

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
    config.addinivalue_line("markers", "mq_security: a queue manager of the test's own with security on, as IBM's "
                                       "developer image has it (users app and admin, DEV objects)")


def _start_mqsc(config: pytest.Config) -> str:
    path = config.getoption("--mq-mqsc")
    if not path:
        return ""
    with open(path, encoding="utf-8") as f:
        return f.read().rstrip("\n") + "\n"


def _harness(config: pytest.Config) -> Harness:
    """A harness in a directory of its own (on /dev/shm with --mq-tmpfs), removed at its close
    once its queue managers have ended."""
    base = "/dev/shm" if config.getoption("--mq-tmpfs") and os.path.isdir("/dev/shm") else None
    return Harness(tempfile.mkdtemp(prefix="mqlite-pytest-", dir=base), channel=CHANNEL, own_dir=True)


@pytest.fixture(scope="session")
def _mq_harness(pytestconfig: pytest.Config) -> Iterator[Harness]:
    h = _harness(pytestconfig)
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
    secure = request.node.get_closest_marker("mq_security")
    if fresh is None and extra is None and secure is None:
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
    if secure is not None:
        # As IBM's developer image: the OAM, CHLAUTH and CONNAUTH on, the users app and admin, the
        # DEV objects; connect() is app's through DEV.APP.SVRCONN.
        from mqlite.cli.dev import developer_objects
        qm = harness.add(name, "", security=True)
        developer_objects(QMPaths.of(name), dict(DEV_USERS))
        if mqsc:
            qm.command_script(mqsc)
        own = TestQueueManager(qm, "DEV.APP.SVRCONN", ("app", DEV_USERS["app"]))
    else:
        own = TestQueueManager(harness.add(name, mqsc), CHANNEL)
    _environment(own, monkeypatch, str(tmp_path))
    try:
        yield own
    finally:
        own.close()
        own.qm.stop()


# --- clusters and the clock -------------------------------------------------------------------
class TestCluster:
    """A cluster made for a test: its members by name (``members["FR1"]``, TestQueueManager)."""
    __test__ = False

    def __init__(self, name: str, members: dict[str, TestQueueManager]) -> None:
        self.name, self.members = name, members

    def __getitem__(self, member: str) -> TestQueueManager:
        return self.members[member]


def _converged(cluster: TestCluster, fulls: list[str], queues: dict[str, list[str]]) -> bool:
    """Every member knows both the full repositories and, for each cluster queue, every
    instance (each member has opened it once, so a partial repository has asked for it)."""
    for qm in cluster.members.values():
        known = {str(r.get("CLUSQMGR")) for r in qm.mqsc("DISPLAY CLUSQMGR(*)", check=False)}
        if not set(fulls) <= known:
            return False
        for queue, hosts in queues.items():
            shown = {str(r.get("CLUSQMGR")) for r in qm.mqsc(f"DISPLAY QCLUSTER('{queue}') CLUSQMGR", check=False)}
            if not set(hosts) <= shown:
                return False
    return True


@pytest.fixture
def mq_cluster(pytestconfig: pytest.Config) -> Iterator[Any]:
    """A factory: ``mq_cluster(full=["FR1", "FR2"], partial=["PR1"], queues={"ORDERS": ["PR1"]})``
    makes the queue managers (processes, free ports), joins them in one cluster (each full
    repository a cluster-sender to the first, each partial one to a full repository), defines the
    cluster queues on their hosts and returns once every member knows every instance."""
    import time
    harnesses: list[Harness] = []

    def make(full: list[str] | tuple[str, ...] = ("FR1", "FR2"), partial: list[str] | tuple[str, ...] = (),
             queues: dict[str, list[str]] | None = None, name: str = "TESTCL", timeout: float = 60.0) -> TestCluster:
        from mqlite.cli.proc import free_port
        h = _harness(pytestconfig)
        harnesses.append(h)
        names = [*full, *partial]
        ports = {n: free_port() for n in names}
        queues = queues or {}
        retry = "SHORTRTY(60) SHORTTMR(1) LONGTMR(5)"
        members: dict[str, TestQueueManager] = {}
        for n in names:
            target = full[0] if n != full[0] else (full[1] if len(full) > 1 else None)
            mqsc = (f"ALTER QMGR REPOS({name})\n" if n in full else "") + \
                f"DEFINE CHANNEL(TO.{n}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({ports[n]})') CLUSTER({name}) {retry}\n"
            if target is not None:
                mqsc += (f"DEFINE CHANNEL(TO.{target}) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1({ports[target]})') "
                         f"CLUSTER({name}) {retry}\n")
            mqsc += "".join(f"DEFINE QLOCAL('{q}') CLUSTER({name})\n" for q, hosts in queues.items() if n in hosts)
            members[n] = TestQueueManager(h.add(n, _start_mqsc(pytestconfig) + mqsc, port=ports[n]), CHANNEL)
        cluster = TestCluster(name, members)
        deadline = time.monotonic() + timeout
        opened: set[tuple[str, str]] = set()
        while not _converged(cluster, list(full), queues):
            for n, qm in members.items():          # (a partial repository learns a queue when it is used)
                for q in queues:
                    if (n, q) not in opened and _opens(qm, q):
                        opened.add((n, q))
            if time.monotonic() > deadline:
                raise AssertionError(f"cluster {name} did not converge in {timeout:g} s")
            time.sleep(0.2)
        return cluster

    try:
        yield make
    finally:
        for h in reversed(harnesses):
            h.close()


def _opens(qm: TestQueueManager, queue: str) -> bool:
    from mqlite import pymqi
    conn = qm.connect()
    try:
        pymqi.Queue(conn, queue, pymqi.CMQC.MQOO_OUTPUT | pymqi.CMQC.MQOO_BIND_NOT_FIXED).close()
        return True
    except pymqi.MQMIError:
        return False
    finally:
        conn.disconnect()


class TestClock:
    """A queue manager in this process whose clock a test moves (``advance``): message expiry,
    subscription expiry, a cluster's records ageing, without waiting."""
    __test__ = False

    def __init__(self, harness: Harness, qmgr: TestQueueManager) -> None:
        self.harness, self.qmgr = harness, qmgr

    def advance(self, seconds: float) -> None:
        self.harness.advance_clock(seconds)


@pytest.fixture
def mq_clock(pytestconfig: pytest.Config) -> Iterator[TestClock]:
    """A queue manager of the test's own, in this process, with a clock the test moves
    (``mq_clock.qmgr``, ``mq_clock.advance(seconds)``)."""
    h = _harness(pytestconfig)
    try:
        yield TestClock(h, TestQueueManager(h.add("MQCLOCK", _start_mqsc(pytestconfig), in_process=True), CHANNEL))
    finally:
        h.close()
