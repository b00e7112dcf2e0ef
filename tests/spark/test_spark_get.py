"""Issue 33, item 6: a batch read in mode "get" removes messages only once the action that read them
has succeeded — a failed job, a task retried after it had read its range, an executor JVM killed
with kill -9 on a standalone cluster lose nothing and read nothing twice; reads are spread over
the application's tasks."""
from __future__ import annotations

import dataclasses
import itertools
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.cli.proc import free_port
from mqlite.cmq import CMQC as C
from mqlite.spark import wait_settled
from mqlite.spark.settle import install
from mqlite.testing import Harness
from tests.helpers import depth, wait_until

JOB = Path(__file__).with_name("get_job.py")


@pytest.fixture(scope="module")
def qm() -> Iterator[Any]:
    h = Harness()
    try:
        yield h.add("GETQM", "DEFINE QLOCAL(GET.Q) MAXDEPTH(100000)\nDEFINE QLOCAL(SPREAD.Q) MAXDEPTH(100000)\n"
                             "DEFINE QLOCAL(RETRY.Q) MAXDEPTH(100000)\nDEFINE QLOCAL(KILL.Q) MAXDEPTH(100000)\n")
    finally:
        h.close()


def options(qm: Any, queue: str, **more: str) -> dict[str, str]:
    return {"queueManager": qm.name, "channel": qm.harness.channel, "conname": qm.conname, "queue": queue,
            "mode": "get", **more}


def fill(qm: Any, queue: str, n: int) -> None:
    """n messages, persistent and not alternately (the prepared units hold both kinds)."""
    conn = qm.client()
    q = pymqi.Queue(conn, queue, C.MQOO_OUTPUT)
    pmo = pymqi.PMO(Options=C.MQPMO_ASYNC_RESPONSE | C.MQPMO_NEW_MSG_ID)
    for i in range(n):
        q.put(b"m%05d" % i, pymqi.MD(Persistence=i % 2), pmo)
    conn.stat()
    conn.disconnect()


def in_doubt(qm: Any) -> list[Any]:
    conn = qm.client()
    try:
        return conn.prepared_units()
    finally:
        conn.disconnect()


def fail_after_reading(spark: Any, foreach_partition: Any) -> list[tuple[str, bool, int]]:
    """Run a job whose every task reads its whole range and then fails; once the listener has
    settled it, what the listener did: (prefix, committed, units) each."""
    def read_then_fail(rows: Any) -> None:
        for _ in rows:
            pass
        raise RuntimeError("failing after the whole range was read")
    settler = install(spark)
    before = len(settler.settled)
    with pytest.raises(Exception, match="failing after the whole range was read"):
        foreach_partition(read_then_fail)
    wait_settled(spark)
    return settler.settled[before:]


def test_a_job_that_fails_after_reading_removes_nothing(qm: Any, spark: Any) -> None:
    """Every task reads its whole range, then the job fails (local mode: no retry): the prepared
    removals are backed out when the job ends. The same DataFrame read again succeeds and takes
    every message once."""
    fill(qm, "GET.Q", 3000)
    df = spark.read.format("mqlite").options(**options(qm, "GET.Q", partitionSize="1000")).load()

    settled = fail_after_reading(spark, df.foreachPartition)
    assert depth(qm.harness, qm.name, "GET.Q") == 3000 and in_doubt(qm) == []
    # Tasks had prepared their removals before failing: the listener backed them out.
    assert any(not committed and n for _p, committed, n in settled)
    rows = df.select("msg_id", "backout_count").collect()
    assert len(rows) == 3000 and len({bytes(r.msg_id) for r in rows}) == 3000
    assert {r.backout_count for r in rows} <= {0, 1}      # backed out once if the failed task got that far
    wait_settled(spark)
    assert depth(qm.harness, qm.name, "GET.Q") == 0 and in_doubt(qm) == []


def test_rdd_jobs_are_settled_when_their_job_ends(qm: Any, spark: Any) -> None:
    """PySpark runs df.foreachPartition and df.rdd actions as RDD jobs, outside any SQL execution:
    their reads are settled when the job that ran the stage ends."""
    fill(qm, "GET.Q", 1500)
    df = spark.read.format("mqlite").options(**options(qm, "GET.Q")).load()

    settled = fail_after_reading(spark, df.rdd.foreachPartition)
    assert depth(qm.harness, qm.name, "GET.Q") == 1500 and in_doubt(qm) == []
    assert any("/stage-" in p and not committed and n for p, committed, n in settled)
    assert df.rdd.count() == 1500
    wait_settled(spark)
    assert depth(qm.harness, qm.name, "GET.Q") == 0 and in_doubt(qm) == []


def test_reads_are_spread_over_the_tasks(qm: Any, spark: Any) -> None:
    """A batch read and a stream's micro-batch are split into as many ranges as the application
    runs tasks at once (ranges of at least MIN_SPLIT messages), covering the range exactly."""
    from mqlite.spark import SCHEMA, MQLiteDataSource
    from mqlite.spark.read import MIN_SPLIT
    from mqlite.spark.settle import parallelism
    fill(qm, "SPREAD.Q", 3000)
    browse = dict(options(qm, "SPREAD.Q"), mode="browse")
    assert spark.read.format("mqlite").options(**browse).load().rdd.getNumPartitions() == min(
        2, 3000 // MIN_SPLIT)                                   # the session's defaultParallelism: 2
    tasks = parallelism()                                       # this process is not under the JVM
    reader = MQLiteDataSource(browse).streamReader(SCHEMA)
    start = reader.initialOffset()
    from pyspark.sql.datasource import ReadAllAvailable
    end = reader.latestOffset(start, ReadAllAvailable())
    parts = reader.partitions(start, end)
    assert len(parts) == max(1, min(tasks, 3000 // MIN_SPLIT))
    assert parts[0].start == start[qm.name] and parts[-1].end == end[qm.name]
    assert all(a.end == b.start for a, b in itertools.pairwise(parts))
    conn = qm.client()
    q = pymqi.Queue(conn, "SPREAD.Q", C.MQOO_BROWSE)
    counts = [len(q.stream_read(p.start, p.end, 10_000)) for p in parts]
    assert sum(counts) == 3000 and min(counts) >= MIN_SPLIT
    reader.commit(end)
    reader.stop()
    assert depth(qm.harness, qm.name, "SPREAD.Q") == 0
    conn.disconnect()


def run_job(master: str, opts: dict[str, str], marks: Path, how: str, timeout: float = 240,
            on_start: Any = None) -> str:
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYTHONPATH=str(JOB.parents[2]))
    proc = subprocess.Popen([sys.executable, str(JOB), master, json.dumps(opts), str(marks), how],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        if on_start is not None:
            on_start()
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err[-3000:]
    return out


def test_a_task_retried_after_reading_its_range_reads_it_again(qm: Any, tmp_path: Path) -> None:
    """local[2,4] (retries on): partition 0's first attempt reads its range and fails; the retry
    backs that attempt's prepared removal out and reads the same messages. Before issue 33 the
    first attempt had removed them: the job succeeded with the range missing."""
    fill(qm, "RETRY.Q", 4000)
    out = run_job("local[2,4]", options(qm, "RETRY.Q"), tmp_path, "fail-once")
    assert "ROWS 4000 4000" in out
    assert depth(qm.harness, qm.name, "RETRY.Q") == 0 and in_doubt(qm) == []


class Standalone:
    """A standalone Spark cluster on loopback: a master and one worker with two cores."""

    def __init__(self, where: Path) -> None:
        import pyspark
        spark_class = str(Path(pyspark.__file__).parent / "bin" / "spark-class")
        env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", SPARK_WORKER_DIR=str(where / "work"),
                   PYSPARK_PYTHON=sys.executable, SPARK_HOME=str(Path(pyspark.__file__).parent))
        self.port = free_port()
        self.logs = [where / "master.log", where / "worker.log"]
        self.procs = [
            subprocess.Popen([spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                              "--port", str(self.port), "--webui-port", str(free_port())],
                             stdout=open(self.logs[0], "w"), stderr=subprocess.STDOUT, env=env,
                             start_new_session=True)]
        self.procs.append(
            subprocess.Popen([spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                              "--cores", "2", "--memory", "2g", "--webui-port", str(free_port()), self.url],
                             stdout=open(self.logs[1], "w"), stderr=subprocess.STDOUT, env=env,
                             start_new_session=True))
        wait_until(lambda: "Successfully registered with master" in self.logs[1].read_text(), 90,
                   "the Spark worker registered with its master")

    @property
    def url(self) -> str:
        return f"spark://127.0.0.1:{self.port}"

    def close(self) -> None:
        for p in self.procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()


def test_an_executor_killed_after_its_task_read_loses_nothing(qm: Any, tmp_path: Path) -> None:
    """The issue's reproduction: a standalone cluster (master, one worker, two executors of one
    core), 20,000 messages read in mode get, one executor JVM killed with kill -9 after its task
    has read (and, before issue 33, removed) its range but before the task has ended. Spark runs
    the lost task again elsewhere; every message comes out once and the queue ends empty (before:
    the job succeeded with the range missing and the queue empty)."""
    fill(qm, "KILL.Q", 20_000)
    cluster = Standalone(tmp_path)
    marks = tmp_path / "marks"
    marks.mkdir()
    killed: list[int] = []

    def kill_one() -> None:
        wait_until(lambda: any(marks.iterdir()), 120, "a task read its range")
        first = min(marks.iterdir())
        pid = int(first.read_text())
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)
    try:
        out = run_job(cluster.url, options(qm, "KILL.Q"), marks, "hold", on_start=kill_one)
    finally:
        cluster.close()
    assert killed and "ROWS 20000 20000" in out
    retried = {m.name.split("-")[0] for m in marks.iterdir() if not m.name.endswith("-0")}
    assert retried, "no task was run again after the executor was killed"
    assert depth(qm.harness, qm.name, "KILL.Q") == 0 and in_doubt(qm) == []


def test_the_listener_tries_an_unreachable_queue_manager_again(qm: Any, tmp_path: Path, caplog: Any) -> None:
    """The driver's side without Spark: a read's units on a queue manager that is down when the
    action ends are settled at a later end, with one warning for the outage, not one per try."""
    from mqlite.spark.options import Options
    from mqlite.spark.settle import ReadSettler, xid_prefix
    h = Harness()
    try:
        down = h.add("DOWNQM", "DEFINE QLOCAL(D.Q) DEFPSIST(YES)\n")
        opts = Options.of(dict(options(down, "D.Q")))
        (tmp_path / "read-r1.json").write_text(json.dumps(
            {"read": "r1", "options": dataclasses.asdict(opts), "instances": [[down.name, down.conname]]}))
        conn = down.client()
        q = pymqi.Queue(conn, "D.Q", C.MQOO_OUTPUT | C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)
        for i in range(3):
            q.put(b"p%d" % i)
        assert q.stream_delete(q.stream_mark(0, committed=True).end, 0, syncpoint=True) == 3
        conn.prepare(xid_prefix("r1", "sql-7", 0) + "1")
        conn.disconnect()
        down.kill9()
        settler = ReadSettler(tmp_path, None)
        with caplog.at_level("WARNING", logger="mqlite.spark"):
            settler.settle(["sql-7"], True)
            settler.settle(["sql-8"], True)
        said = [r.getMessage() for r in caplog.records if "stay in doubt" in r.getMessage()]
        assert len(said) == 1 and "DOWNQM" in said[0] and len(settler.pending) == 2
        down.start()
        settler.settle(["sql-9"], True)
        assert settler.settled == [(xid_prefix("r1", "sql-7"), True, 1)] and settler.pending == []
        assert depth(h, "DOWNQM", "D.Q") == 0 and in_doubt(down) == []
        settler.close()
    finally:
        h.close()
