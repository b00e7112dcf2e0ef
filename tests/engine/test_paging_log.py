"""Queues deeper than memory over the recovery log: the state machine of ``test_paging`` against a
file store whose applier is held back, so the pager reads SQLite while puts and deletes are in the
log only (rows there that the engine already removed, rows missing that it holds), MSGDLVSQ changes
lay a queue out again (the store settled first), and restarts reopen the store from its files.
Without ``Store.settle`` in the pager's counts it fails within a hundred examples (a persistent
put still in the log, then MSGDLVSQ changed: the queue's depth comes out one short)."""
from __future__ import annotations

import shutil
import tempfile

from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, rule

from mqlite.cmq import CMQC as C
from mqlite.engine.clock import FakeClock
from mqlite.engine.qmgr import QueueManager
from mqlite.mqsc.commands import Executor
from mqlite.store import log as log_mod
from mqlite.store.pager import StorePager
from mqlite.store.sqlite import Store
from tests.conftest import Engine
from tests.engine.test_paging import TINY, Model, PagedQueue


def _engine(path: str) -> Engine:
    e = Engine.__new__(Engine)
    e.clock = FakeClock()
    e.store = Store(path)
    e.pager = StorePager(e.store)
    e.qm = QueueManager("QM1", e.store, e.clock, e.pager, TINY)
    e.qm.create()
    e.mqsc_exec = Executor(e.qm)
    e.conn = e.qm.connect("pytest", C.MQAT_UNIX, "tester")
    return e


class PagedQueueOnLog(PagedQueue):
    def __init__(self) -> None:
        RuleBasedStateMachine.__init__(self)
        self.dir = tempfile.mkdtemp(prefix="mqlite-paging-log-")
        self.path = f"{self.dir}/qmgr.db"
        self.saved = log_mod.APPLY_DELAY
        log_mod.APPLY_DELAY = 3600.0          # rows applied only when a reader needs them (settle)
        self.e = _engine(self.path)
        self.e.mqsc("DEFINE QLOCAL(Q)")
        self._open()
        self.m = Model()
        self.n = 0
        self.late = 0

    @rule()
    def apply_rows(self) -> None:
        """The applier catches up (as it does by itself after APPLY_DELAY)."""
        self.e.store.settle()
        assert self.e.store.applier is not None and self.e.store.applier.idle

    def _reopened(self) -> Store:
        """An orderly end (the store closed: rows applied, log emptied), then the store opened
        again from its files."""
        self.e.store.close()
        self.e.pager.close()
        return Store(self.path)

    def teardown(self) -> None:
        try:
            self.e.store.close()
            self.e.pager.close()
        finally:
            log_mod.APPLY_DELAY = self.saved
            shutil.rmtree(self.dir, ignore_errors=True)


PagedQueueOnLog.TestCase.settings = settings(max_examples=100, stateful_step_count=40, deadline=None,
                                             suppress_health_check=[HealthCheck.too_slow])
TestPagedQueueOnLog = PagedQueueOnLog.TestCase
