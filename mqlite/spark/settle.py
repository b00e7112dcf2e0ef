"""Settling batch reads in mode "get": a driver-side listener commits the tasks' prepared units
when the SQL execution that read them has succeeded, and backs them out when it failed.

A task of a get-mode read removes its range as gets in a unit of work and prepares the unit under
``mqlite-read/<read>/<action>/<partition>/<attempt>``, after backing out any unit an earlier
attempt of the same partition prepared (its messages come back and are read again). The action
is ``sql-<id>`` inside an SQL execution (DataFrame actions), else ``stage-<id>`` (RDD jobs, which
PySpark's ``df.foreach``/``foreachPartition``/``df.rdd`` run). Nothing leaves the queue until
:class:`ReadSettler`, a ``SparkListenerInterface`` implemented in the driver's Python process over
py4j, sees the action end — ``SparkListenerSQLExecutionEnd``, or ``SparkListenerJobEnd`` of the
job that ran the stage: then every unit under ``mqlite-read/<read>/<action>/`` is committed (the
action succeeded) or backed out, and the prefix closed so that a straggling attempt cannot leave a
unit in doubt. An SQL execution ends after its output is committed (a file write's job commit
included), so it is the safer point; a job is what RDD actions have.

The planner runs in a Python worker that the driver's JVM starts, not in the driver's Python
process, so the two meet in a directory: ``register(spark)`` makes
``<tmp>/mqlite-spark-<uid>/<driver JVM pid>/`` and the planner finds it by walking up its own
process ancestors to that JVM; each get-mode read leaves there a record of its queue manager
instances (file mode 0600: it holds the connection options).
"""
from __future__ import annotations

import atexit
import dataclasses
import json
import os
import shutil
import subprocess
import tempfile
import threading
import uuid
from pathlib import Path
from typing import Any

from mqlite.paths import pid_alive, process_parent
from mqlite.spark.options import LOG, MQLiteError, Options, reason_text

XID_ROOT = "mqlite-read"
MAX_PENDING = 10_000     # settlements kept to try again while a queue manager is unreachable
ROOT = Path(tempfile.gettempdir()) / f"mqlite-spark-{os.getuid()}"


def xid_prefix(read_id: str, action: str, partition: int | None = None) -> str:
    """The prefix of a read's prepared units in one action (and one partition of it)."""
    base = f"{XID_ROOT}/{read_id}/{action}/"
    return base if partition is None else f"{base}{partition}/"


# --- the planner's side: finding the driver's directory ----------------------------------------
def _parent(pid: int) -> int:
    """The parent of a process; 0 when it is gone or unknown."""
    if Path("/proc/self/stat").exists():
        return process_parent(pid) or 0
    try:                                  # no /proc (macOS): ps knows the parent
        out = subprocess.run(["ps", "-o", "ppid=", "-p", str(pid)], capture_output=True, text=True, timeout=5,
                             check=False)
        return int(out.stdout.strip() or 0)
    except (OSError, ValueError, subprocess.SubprocessError):
        return 0


def driver_dir() -> Path | None:
    """The directory of the driver this process works for: the first ancestor process that has
    one under :data:`ROOT` (the planner's JVM); None when ``register`` was not called there."""
    pid = os.getpid()
    for _ in range(64):
        if (ROOT / str(pid)).is_dir():
            return ROOT / str(pid)
        pid = _parent(pid)
        if pid <= 1:
            return None
    return None


def parallelism() -> int:
    """How many tasks the application runs at once (the driver's defaultParallelism, recorded by
    ``register``), else this host's CPU count: reads are spread over that many partitions."""
    where = driver_dir()
    if where is not None:
        try:
            return max(1, int((where / "parallelism").read_text()))
        except (OSError, ValueError):
            pass
    return max(1, os.cpu_count() or 1)


def record_read(opts: Options, instances: list[tuple[str, str]]) -> str:
    """Leave a record of a get-mode read for the driver's listener; returns the read's id."""
    where = driver_dir()
    if where is None:
        raise MQLiteError("mode 'get' removes messages only once the action that read them has succeeded, "
                          "which a listener in the driver decides: call mqlite.spark.register(spark) in the "
                          "driver before reading (or read with mode 'browse')")
    read_id = uuid.uuid4().hex[:16]
    path = where / f"read-{read_id}.json"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump({"read": read_id, "options": dataclasses.asdict(opts), "instances": instances}, f)
    return read_id


# --- the driver's side: the listener -----------------------------------------------------------
class ReadSettler:
    """A Spark listener (py4j callback) that settles get-mode reads when SQL executions end."""

    def __init__(self, where: Path, sc: Any) -> None:
        self.where = where
        self.sc = sc
        self.lock = threading.Lock()
        self.conns: dict[tuple[str, ...], Any] = {}
        self.pending: list[tuple[str, dict[str, Any], tuple[str, str], bool]] = []   # to try again
        self.unreachable: set[tuple[str, str]] = set()      # instances the last try could not reach
        self.settled: list[tuple[str, bool, int]] = []     # (prefix, committed, units): for tests
        self.jobs: dict[int, list[int]] = {}                # RDD jobs running: their stage ids

    # SparkListenerInterface: every other callback is a no-op.
    def onOtherEvent(self, event: Any) -> None:
        try:
            if event.getClass().getSimpleName() != "SparkListenerSQLExecutionEnd":
                return
            error = event.errorMessage()
            failed = bool(error.isDefined() and error.get())
            self.settle([f"sql-{event.executionId()}"], not failed)
        except Exception:  # noqa: BLE001 - a listener must not throw into Spark's event bus
            LOG.exception("settling the mode 'get' reads of an SQL execution failed")

    def onJobStart(self, event: Any) -> None:
        try:
            props = event.properties()
            if props is None or props.getProperty("spark.sql.execution.id") is None:
                ids = event.stageIds()
                self.jobs[int(event.jobId())] = [int(ids.apply(i)) for i in range(ids.length())]
        except Exception:  # noqa: BLE001
            LOG.exception("noting the stages of a Spark job failed")

    def onJobEnd(self, event: Any) -> None:
        try:
            stages = self.jobs.pop(int(event.jobId()), None)
            if stages:
                ok = event.jobResult().getClass().getSimpleName().startswith("JobSucceeded")
                self.settle([f"stage-{s}" for s in stages], ok)
        except Exception:  # noqa: BLE001
            LOG.exception("settling the mode 'get' reads of a Spark job failed")

    def onApplicationEnd(self, event: Any) -> None:
        self.close()

    def onExecutorAdded(self, event: Any) -> None:
        self.note_parallelism()

    def onExecutorRemoved(self, event: Any) -> None:
        self.note_parallelism()

    def note_parallelism(self) -> None:
        """Record the driver's defaultParallelism (it grows as a cluster's executors register)."""
        try:
            (self.where / "parallelism").write_text(str(self.sc.defaultParallelism))
        except Exception:  # noqa: BLE001 - the directory or the context is going away
            pass

    def __getattr__(self, name: str) -> Any:
        if name.startswith("on"):
            return lambda *args: None
        raise AttributeError(name)

    def hashCode(self) -> int:
        return id(self) & 0x7FFFFFFF

    def equals(self, other: Any) -> bool:
        return other is self

    def toString(self) -> str:
        return f"mqlite ReadSettler({self.where})"

    class Java:
        implements = ["org.apache.spark.scheduler.SparkListenerInterface"]

    def settle(self, actions: list[str], ok: bool) -> None:
        """Commit (``ok``) or back out every unit the registered reads prepared in ``actions``, on
        each of their instances; what cannot be reached now is tried again at the next end."""
        with self.lock:
            work, self.pending = self.pending, []
            for path in sorted(self.where.glob("read-*.json")):
                try:
                    rec = json.loads(path.read_text())
                except (OSError, ValueError):
                    continue
                for action in actions:
                    prefix = xid_prefix(rec["read"], action)
                    work += [(prefix, rec["options"], (q, c), ok) for q, c in rec["instances"]]
            failed: set[tuple[str, str]] = set()
            for prefix, options, inst, commit in work:
                if inst in failed:                     # one failed try per instance and action end
                    self.pending.append((prefix, options, inst, commit))
                    continue
                try:
                    n = self._resolve(options, inst, prefix, commit)
                except MQLiteError as e:
                    failed.add(inst)
                    if inst not in self.unreachable:
                        LOG.warning("%s: mode 'get' reads on %s stay in doubt until it can be reached (tried "
                                    "again as each action ends; mqlite rsvmqtrn settles them too)", e, inst[0])
                    self.pending.append((prefix, options, inst, commit))
                    continue
                if n:
                    self.settled.append((prefix, commit, n))
            self.unreachable = failed
            if len(self.pending) > MAX_PENDING:
                dropped = self.pending[:-MAX_PENDING]
                self.pending = self.pending[-MAX_PENDING:]
                LOG.warning("no longer trying to settle %d mode 'get' prefixes on unreachable queue managers "
                            "(from %s*): settle their units with mqlite rsvmqtrn", len(dropped), dropped[0][0])

    def _resolve(self, options: dict[str, Any], inst: tuple[str, str], prefix: str, commit: bool) -> int:
        from mqlite import pymqi
        opts = Options(**options)
        key = (inst[0], inst[1], opts.channel, opts.user, opts.password)
        for attempt in (0, 1):
            conn = self.conns.get(key)
            try:
                if conn is None:
                    conn = self.conns[key] = opts.connect(*inst)
                how = {"commit_prefix": prefix} if commit else {"backout_prefix": prefix}
                out = conn.resolve_prepared(**how)
                n = int(out["committed"]) + int(out["backed_out"])
                if n:
                    # The execution used this read: close its prefix so that a straggling attempt
                    # cannot prepare under it later (one that did meanwhile is settled with it).
                    out = conn.resolve_prepared(**how, end_prefix=True)
                    n += int(out["committed"]) + int(out["backed_out"])
                return n
            except (pymqi.MQMIError, pymqi.PYIFError) as e:
                self._forget(key)
                if attempt:
                    raise MQLiteError(f"{reason_text(e) if isinstance(e, pymqi.MQMIError) else e}: "
                                      f"settling {prefix}* on {inst[0]} failed") from None
        return 0

    def _forget(self, key: tuple[str, ...]) -> None:
        conn = self.conns.pop(key, None)
        if conn is not None:
            try:
                conn.disconnect()
            except Exception:  # noqa: BLE001 - already gone
                pass

    def close(self) -> None:
        with self.lock:
            for key in list(self.conns):
                self._forget(key)
            shutil.rmtree(self.where, ignore_errors=True)


_INSTALLED: dict[int, ReadSettler] = {}


def install(spark: Any) -> ReadSettler:
    """Register the listener with the session's SparkContext (once per context), make the
    driver's directory, and clear directories left by drivers that are gone."""
    from pyspark.java_gateway import ensure_callback_server_started
    sc = spark.sparkContext
    pid = int(sc._jvm.java.lang.ProcessHandle.current().pid())
    settler = _INSTALLED.get(pid)
    if settler is not None and settler.sc is sc and settler.where.is_dir():
        return settler
    ROOT.mkdir(mode=0o700, exist_ok=True)
    for old in ROOT.iterdir():
        if old.name.isdigit() and int(old.name) != pid and not pid_alive(int(old.name)):
            shutil.rmtree(old, ignore_errors=True)
    where = ROOT / str(pid)
    where.mkdir(mode=0o700, exist_ok=True)
    ensure_callback_server_started(sc._gateway)
    settler = ReadSettler(where, sc)
    settler.note_parallelism()
    sc._jsc.sc().addSparkListener(settler)
    _INSTALLED[pid] = settler

    def remove() -> None:
        try:
            sc._jsc.sc().removeSparkListener(settler)
        except Exception:  # noqa: BLE001 - the JVM may be gone at exit
            pass
        settler.close()
    atexit.register(remove)
    return settler


SETTLE_WAIT_MS = 120_000    # Spark's own default is 10 s, which a loaded machine's listener can overrun


def wait_settled(spark: Any, timeout_ms: int = SETTLE_WAIT_MS) -> None:
    """Block until Spark's listener bus has delivered every event so far (the settling of the
    reads of finished actions included), for at most ``timeout_ms`` (a TimeoutException then)."""
    spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(timeout_ms)
