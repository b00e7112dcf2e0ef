"""Fixtures: an in-process engine with a fake clock, and real queue-manager server processes."""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass

import pytest

from mqlite.cmq import CMQC as C
from mqlite.cmq.structs import GMO, MD, OD, PMO
from mqlite.engine.clock import FakeClock
from mqlite.engine.qmgr import QueueManager
from mqlite.engine.queue import DEFAULT_BUFFERS
from mqlite.mqsc.commands import Executor
from mqlite.store.pager import StorePager
from mqlite.store.sqlite import MemoryStore
from mqlite.testing import OPEN_SECURITY, free_port, run_mqlite

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# The test helpers users get too: one copy of each.
mqlite = run_mqlite

PG_URL = os.environ.get("MQLITE_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def require_pg() -> str:
    """The PostgreSQL test database's URL; unreachable, the test is skipped on a developer machine
    and fails in CI (CI=true), where the Makefile's services are expected to be up."""
    try:
        import psycopg
        with psycopg.connect(PG_URL, connect_timeout=3) as c:
            c.execute("SELECT 1")
        return PG_URL
    except Exception as e:  # noqa: BLE001
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is required in CI for the shared store: {e!r}")
        pytest.skip(f"PostgreSQL not reachable: {e!r}")


class Engine:
    """A queue manager engine in this process, with MQSC, a fake clock and helpers for MQI calls."""

    def __init__(self, name: str = "QM1", buffers: tuple[int, int] | None = None) -> None:
        """``buffers``: page queues beyond these many bytes (nonpersistent, persistent) to the store."""
        self.clock = FakeClock()
        self.store = MemoryStore()
        self.pager = StorePager(self.store) if buffers is not None else None
        self.qm = QueueManager(name, self.store, self.clock, self.pager, buffers or DEFAULT_BUFFERS)
        self.qm.create()
        self.mqsc_exec = Executor(self.qm)
        self.conn = self.qm.connect("pytest", C.MQAT_UNIX, "tester")

    def mqsc(self, text: str):
        from mqlite.mqsc.parser import split_commands
        results = [self.mqsc_exec.run(c.text) for c in split_commands(text)]
        return results[0] if len(results) == 1 else results

    def open(self, name: str, options: int, qmgr: str = "", conn=None, **od_fields):
        od = OD(ObjectName=name.encode(), ObjectQMgrName=qmgr.encode(), **od_fields)
        h = self.qm.open(conn or self.conn, od, options)
        return h, od

    def put(self, hobj: int, body: bytes = b"msg", conn=None, pmo_options: int = 0, **md_fields):
        md = MD(**md_fields)
        pmo = PMO(Options=pmo_options)
        self.qm.put(conn or self.conn, hobj, md, pmo, body)
        return md, pmo

    def get(self, hobj: int, options: int = 0, max_length: int = 100000, conn=None, match: int | None = None,
            **md_fields):
        gmo = GMO(Options=options)
        if match is not None:
            gmo.Version = C.MQGMO_VERSION_2
            gmo.MatchOptions = match
        return self.qm.get(conn or self.conn, hobj, MD(**md_fields), gmo, max_length)


@pytest.fixture
def eng() -> Engine:
    e = Engine()
    e.mqsc("DEFINE QLOCAL(Q1)")
    return e


@dataclass
class RunningQM:
    name: str
    port: int
    data: str

    def mqsc(self, text: str) -> subprocess.CompletedProcess:
        return mqlite("runmqsc", self.name, stdin=text)

    def client(self, channel: str = "TEST.SVRCONN"):
        from mqlite import pymqi
        return pymqi.connect(self.name, channel, f"127.0.0.1({self.port})")

    def bindings(self):
        from mqlite import pymqi
        return pymqi.connect(self.name)

    def pid(self) -> int | None:
        from mqlite.paths import QMPaths
        return QMPaths.of(self.name).running_pid()


@pytest.fixture
def data_dir(tmp_path, monkeypatch) -> str:
    d = str(tmp_path / "mqdata")
    monkeypatch.setenv("MQLITE_DATA", d)
    return d


@pytest.fixture
def running_qm(data_dir):
    """A queue manager created and started with the mqlite commands, with TEST.Q and TEST.SVRCONN,
    open to every client as mqlite.testing.Harness makes them (tests/server/test_security.py tests
    the secured defaults)."""
    name = "TESTQM"
    port = free_port()
    r = run_mqlite("crtmqm", "-p", str(port), "-u", "SYSTEM.DEAD.LETTER.QUEUE", name,
                   env={**os.environ, "MQSNOAUT": "yes"})
    assert r.returncode == 0, r.stderr
    r = mqlite("strmqm", name)
    assert r.returncode == 0, r.stdout + r.stderr
    qm = RunningQM(name, port, data_dir)
    r = qm.mqsc(OPEN_SECURITY + "DEFINE QLOCAL(TEST.Q)\nDEFINE CHANNEL(TEST.SVRCONN) CHLTYPE(SVRCONN)\n")
    assert r.returncode == 0, r.stdout
    yield qm
    if qm.pid():
        mqlite("endmqm", "-i", name)


@pytest.fixture(scope="session")
def spark():
    """One local[2] SparkSession for the Spark tests, with the mqlite format registered; executors
    run this interpreter (it has pyarrow and mqlite). `make test` installs pyspark: a missing
    pyspark or Java is a failure, not a skip."""
    import sys

    from pyspark.sql import SparkSession

    from mqlite.spark import register
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (SparkSession.builder.master("local[2]").appName("mqlite-tests")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    register(session)
    yield session
    session.stop()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (`make test` runs two workers, --dist loadgroup), the tests of a module
    that share a module- or class-scoped fixture run on one worker, in their order (some build on
    what the one before left: a cluster that has converged, a queue manager configured), and the
    Spark tests share one worker and its SparkSession (a second JVM would take the other core from
    the rest). Every other test goes wherever a worker is free."""
    for item in items:
        if "/tests/spark/" in str(item.path).replace(os.sep, "/"):
            item.add_marker(pytest.mark.xdist_group("spark"))
            continue
        defs = getattr(item, "_fixtureinfo", None)
        scopes = {d[-1].scope for d in defs.name2fixturedefs.values() if d} if defs is not None else set()
        if scopes & {"module", "class", "package"}:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
