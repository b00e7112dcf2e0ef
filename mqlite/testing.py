"""A harness for tests: several queue managers on free loopback ports, MQSC applied, a shared clock.

    from mqlite.testing import Harness

    with Harness() as h:
        qm1 = h.add("QM1", "DEFINE QLOCAL(Q1)")
        qm2 = h.add("QM2", in_process=True)        # a server inside this process
        conn = qm1.client()                         # a pymqi client connection
        h.advance_clock(31 * 86400)                 # every queue manager's clock moves a month

Process mode runs each queue manager as ``mqlite strmqm`` does (so ``kill9()`` is a real SIGKILL);
in-process mode runs the same server in this process's threads (faster, no kill). Every queue
manager gets the client channel ``Harness.channel`` (SVRCONN) and ``DEFINE ... ``-style MQSC.
Without ``data_dir`` the harness works in a temporary directory of its own and removes it at
``close()`` once every queue manager has ended.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

from mqlite.cli.proc import free_port, run_mqlite
from mqlite.paths import QMPaths, clock_file

__all__ = ["OPEN_SECURITY", "QM", "Harness", "free_port", "run_mqlite"]

# What makes a queue manager open to every client: no channel authentication records, no
# connection authentication (the OAM is left out at crtmqm by MQSNOAUT=yes).
OPEN_SECURITY = "ALTER QMGR CHLAUTH(DISABLED) CONNAUTH(' ')\nREFRESH SECURITY TYPE(CONNAUTH)\n"


@dataclass
class QM:
    name: str
    port: int
    harness: "Harness"
    in_process: bool = False
    server: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def conname(self) -> str:
        return f"127.0.0.1({self.port})"

    def mqsc(self, text: str, check: bool = False) -> subprocess.CompletedProcess:
        """Run MQSC through runmqsc; with ``check`` a failing command raises."""
        r = run_mqlite("runmqsc", self.name, stdin=text)
        if check and r.returncode != 0:
            raise AssertionError(f"MQSC on {self.name} failed:\n{r.stdout}")
        return r

    def client(self, channel: str | None = None) -> Any:
        from mqlite import pymqi
        return pymqi.connect(self.name, channel or self.harness.channel, self.conname)

    def bindings(self) -> Any:
        from mqlite import pymqi
        return pymqi.connect(self.name)

    def pid(self) -> int | None:
        return QMPaths.of(self.name).running_pid()

    def running(self) -> bool:
        if self.in_process:
            return self.server is not None and not self.server.stopped.is_set()
        return self.pid() is not None

    def start(self) -> None:
        if self.in_process:
            from mqlite.server.server import QMServer
            self.server = QMServer(self.name)
            self.server.start()
            return
        r = run_mqlite("strmqm", self.name)
        if r.returncode != 0:
            raise RuntimeError(f"strmqm {self.name}: {r.stdout}{r.stderr}")

    def stop(self) -> None:
        if self.in_process:
            if self.server is not None:
                self.server.shutdown(immediate=True)
                self.server.stopped.wait(30)
                self.server = None
            return
        if self.pid():
            run_mqlite("endmqm", "-i", self.name)

    def kill9(self) -> None:
        """SIGKILL the queue manager's process (process mode only) and wait until it is gone."""
        if self.in_process:
            raise RuntimeError("kill9 needs a queue manager running as a process")
        pid = self.pid()
        if pid:
            os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 10
            while self.pid() and time.monotonic() < deadline:
                time.sleep(0.02)


class Harness:
    def __init__(self, data_dir: str | None = None, channel: str = "APP.SVRCONN", security: bool = False) -> None:
        self.security = security
        self._own_dir = data_dir is None          # a directory made here is removed by close()
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="mqlite-harness-")
        self.channel = channel
        self.qms: dict[str, QM] = {}
        self._old_env = os.environ.get("MQLITE_DATA")
        os.environ["MQLITE_DATA"] = self.data_dir

    def add(self, name: str, mqsc: str = "", in_process: bool = False, port: int | None = None,
            qsg: str | None = None, qsg_store: str | None = None, security: bool | None = None) -> QM:
        """Create and start a queue manager with a listener on a free port and the client channel;
        with ``qsg`` a member of that queue-sharing group (shared store ``qsg_store``, default a
        SQLite file in the data directory). Without ``security`` (the harness's default) it is
        created open, as a rig for testing applications: without the OAM (MQSNOAUT), with
        CHLAUTH(DISABLED) and no CONNAUTH; with ``security=True`` as crtmqm makes it."""
        port = port or free_port()
        group = ["--qsg", qsg] + (["--qsgstore", qsg_store] if qsg_store else []) if qsg else []
        secure = self.security if security is None else security
        env = None if secure else {**os.environ, "MQSNOAUT": "yes"}
        r = run_mqlite("crtmqm", "-p", str(port), "-u", "SYSTEM.DEAD.LETTER.QUEUE", *group, name, env=env)
        if r.returncode != 0:
            raise RuntimeError(f"crtmqm {name}: {r.stdout}{r.stderr}")
        qm = QM(name, port, self, in_process)
        qm.start()
        self.qms[name] = qm
        qm.mqsc(("" if secure else OPEN_SECURITY) + f"DEFINE CHANNEL({self.channel}) CHLTYPE(SVRCONN) REPLACE\n"
                + mqsc, check=True)
        return qm

    def qm(self, name: str) -> QM:
        return self.qms[name]

    def advance_clock(self, seconds: float) -> None:
        """Move the clock of every queue manager in this harness forward."""
        path = clock_file()
        try:
            with open(path, encoding="ascii") as f:
                offset = float(f.read().strip() or 0)
        except (OSError, ValueError):
            offset = 0.0
        with open(path + ".tmp", "w", encoding="ascii") as f:
            f.write(str(offset + seconds))
        os.replace(path + ".tmp", path)
        time.sleep(0.25)   # servers re-read the offset at most every 0.2 s

    def close(self) -> None:
        for qm in self.qms.values():
            try:
                qm.stop()
            except Exception:
                pass
        alive = any(qm.running() for qm in self.qms.values())   # (read under this harness's MQLITE_DATA)
        if self._old_env is None:
            os.environ.pop("MQLITE_DATA", None)
        else:
            os.environ["MQLITE_DATA"] = self._old_env
        if self._own_dir and not alive:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self) -> "Harness":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
