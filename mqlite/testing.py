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

from mqlite.cli.proc import free_port, run_mqlite, start_server
from mqlite.mqsc.parser import split_commands
from mqlite.net.client import ControlSession
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
    _control: ControlSession | None = field(default=None, repr=False)
    _socket: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        self._socket = QMPaths.of(self.name).socket      # (read now: MQLITE_DATA is the harness's)

    @property
    def conname(self) -> str:
        return f"127.0.0.1({self.port})"

    def mqsc(self, text: str, check: bool = False) -> subprocess.CompletedProcess:
        """Run MQSC through runmqsc; with ``check`` a failing command raises."""
        r = run_mqlite("runmqsc", self.name, stdin=text)
        if check and r.returncode != 0:
            raise AssertionError(f"MQSC on {self.name} failed:\n{r.stdout}")
        return r

    def command(self, text: str) -> tuple[str, list[str]]:
        """One MQSC command over the queue manager's control socket (no runmqsc process: about a
        millisecond): its status ("ok", "error", "syntax") and response lines."""
        if self._control is None:
            self._control = ControlSession(self._socket, self.name, "mqlite-testing")
        return self._control.mqsc(text)

    def command_script(self, text: str) -> None:
        """Every command of an MQSC script over the control socket; AssertionError on the first
        that fails."""
        for cmd in split_commands(text):
            status, lines = self.command(cmd.text)
            if status != "ok":
                raise AssertionError(f"MQSC on {self.name} failed:\n{cmd.text}\n" + "\n".join(lines))

    def drop_control(self) -> None:
        if self._control is not None:
            try:
                self._control.close()
            except OSError:
                pass
            self._control = None

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
        # (what strmqm does, without its process: forked by the warm starter when it can, issue 69)
        from mqlite.server.warm import STARTER
        failed = STARTER.start(self.name) if os.environ.get("MQLITE_WARM_START", "1") != "0" else None
        if failed is None:
            failed = start_server(self.name)
        if failed:
            raise RuntimeError(f"strmqm {self.name}: {failed}")

    def stop(self) -> None:
        self.drop_control()
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
        self.drop_control()
        if self.in_process:
            raise RuntimeError("kill9 needs a queue manager running as a process")
        pid = self.pid()
        if pid:
            os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 10
            while self.pid() and time.monotonic() < deadline:
                time.sleep(0.01)
            try:
                os.waitpid(pid, os.WNOHANG)            # (reaped, when this process started it)
            except ChildProcessError:
                pass


def _crtmqm(name: str, port: int, secure: bool, qsg: str | None, qsg_store: str | None) -> None:
    """crtmqm -p PORT -u SYSTEM.DEAD.LETTER.QUEUE in this process; without ``secure``, as
    MQSNOAUT=yes makes it."""
    from mqlite.cli.create import crtmqm_here
    failed = crtmqm_here(name, port, "SYSTEM.DEAD.LETTER.QUEUE", qsg, qsg_store, secure)
    if failed:
        raise RuntimeError(f"crtmqm {name}: {failed}")


class Harness:
    def __init__(self, data_dir: str | None = None, channel: str = "APP.SVRCONN", security: bool = False,
                 own_dir: bool | None = None) -> None:
        self.security = security
        # close() removes the directory if it is the harness's: by default, when it was made here.
        self._own_dir = data_dir is None if own_dir is None else own_dir
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
        secure = self.security if security is None else security
        _crtmqm(name, port, secure, qsg, qsg_store)
        qm = QM(name, port, self, in_process)
        qm.start()
        self.qms[name] = qm
        script = ("" if secure else OPEN_SECURITY) + f"DEFINE CHANNEL({self.channel}) CHLTYPE(SVRCONN) REPLACE\n" + mqsc
        if in_process:
            qm.mqsc(script, check=True)
        else:
            qm.command_script(script)
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
