"""Issue 68: a task with more rows than the queue manager's MAXUMSGS lets one unit of work hold
failed with 2024 and wrote nothing. The writer now prepares a unit each MAXUMSGS rows; the driver
commits a task's units together (all or none, as before), and a failure backs out every one."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.pymqi import CMQC as C
from mqlite.spark.options import MQLiteError, Options
from mqlite.spark.write import Writing
from mqlite.testing import Harness


class Row:
    def __init__(self, **values: Any) -> None:
        self.values = values

    def asDict(self) -> dict[str, Any]:  # noqa: N802 - pyspark's Row method
        return dict(self.values)


@pytest.fixture(scope="module")
def qm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    h = Harness(str(tmp_path_factory.mktemp("units")), channel="APP.SVRCONN")
    try:
        yield h.add("WRQM", "ALTER QMGR MAXUMSGS(50)\nDEFINE QLOCAL(OUT.Q)\nDEFINE QLOCAL(SMALL.Q) MAXDEPTH(100)\n")
    finally:
        h.close()


def writing(qm: Any, queue: str, scope: str) -> Writing:
    opts = Options.of({"queueManager": qm.name, "channel": "APP.SVRCONN", "conname": qm.conname, "queue": queue})
    return Writing(opts, ["body"], "test-writer", scope)


def depth(conn: Any, queue: str) -> int:
    return int(pymqi.Queue(conn, queue, C.MQOO_INQUIRE).inquire(C.MQIA_CURRENT_Q_DEPTH))


def test_a_task_past_maxumsgs_prepares_units_that_commit_together(qm: Any) -> None:
    w = writing(qm, "OUT.Q", "test-writer/a")
    done = w.write_task(Row(body=f"row {i}") for i in range(120))
    assert done.count == 120 and len(done.xids) == 3                   # 50 + 50 + 20
    conn = qm.client()
    assert len(conn.prepared_units()) == 3
    got = pymqi.Queue(conn, "OUT.Q", C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE)
    with pytest.raises(pymqi.MQMIError) as e:
        got.get()
    assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE                  # nothing visible before the commit
    out = w.resolve([done], commit=True, end=True)
    assert out["committed"] == 3 and conn.prepared_units() == []
    assert [got.get().decode() for _ in range(120)] == [f"row {i}" for i in range(120)]
    conn.disconnect()


def test_a_failure_after_a_unit_was_prepared_backs_every_unit_out(qm: Any) -> None:
    w = writing(qm, "SMALL.Q", "test-writer/b")
    with pytest.raises(MQLiteError, match=r"MQRC_Q_FULL \(2053\)"):
        w.write_task(Row(body=f"row {i}") for i in range(150))      # the third unit finds SMALL.Q full
    conn = qm.client()
    w.resolve([], commit=False, end=True)                             # the job's abort
    assert conn.prepared_units() == [] and depth(conn, "SMALL.Q") == 0
    conn.disconnect()
