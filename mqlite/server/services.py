"""SERVICE objects' programs, as MQ's service agent runs them: START SERVICE runs STARTCMD with
STARTARG (its output appended to STDOUT and STDERR); a SERVER service is one process whose status
DISPLAY SVSTATUS shows until it ends, a COMMAND service is started and left; STOP SERVICE runs
STOPCMD with STOPARG (a SERVER service without a STOPCMD is ended with SIGTERM: mqlite's choice).
CONTROL(QMGR) and CONTROL(STARTONLY) services start with the queue manager; CONTROL(QMGR) ones are
stopped when it ends. A service the queue manager runs itself (SYSTEM.MQXR.SERVICE, the telemetry
service: server/mqxr.py) is a ``Builtin``: START, STOP and DISPLAY SVSTATUS reach it instead of a
program. Arguments name the queue manager as MQ's do: +QMNAME+, +MQ_Q_MGR_DATA_PATH+,
+MQ_Q_MGR_DATA_NAME+, +MQ_DATA_PATH+, +MQ_INSTALL_PATH+, +MQ_SERVER_PID+ (STOPARG: the server's)."""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from typing import IO, Any, Protocol

from mqlite.catalogue import entry, message
from mqlite.cmq import CMQC as C
from mqlite.objects.model import MQObject
from mqlite.paths import QMPaths, data_root

Log = Callable[[str, str, str], None]


def expand(text: str, paths: QMPaths, server_pid: int | None = None) -> str:
    """MQ's replaceable inserts in a service's arguments and output paths."""
    values = {"+QMNAME+": paths.name, "+MQ_Q_MGR_DATA_PATH+": paths.root,
              "+MQ_Q_MGR_DATA_NAME+": os.path.basename(paths.root), "+MQ_DATA_PATH+": data_root(),
              "+MQ_INSTALL_PATH+": sys.prefix, "+MQ_SERVER_PID+": str(server_pid or "")}
    for key, value in values.items():
        text = text.replace(key, value)
    return text


class Builtin(Protocol):
    """A service run inside the queue manager."""

    def start(self) -> str | None: ...

    def stop(self) -> str | None: ...

    def status(self) -> dict[str, Any] | None: ...


class ServiceRunner:
    """The running SERVER services of one queue manager, by name: (process, when it started)."""

    def __init__(self, paths: QMPaths, log: Log, builtin: dict[str, Builtin] | None = None) -> None:
        self.paths = paths
        self.log = log
        self.running: dict[str, tuple[subprocess.Popen[bytes], float]] = {}
        self.builtin = builtin or {}

    def _spawn(self, obj: MQObject, cmd_key: str, arg_key: str,
               server_pid: int | None = None) -> subprocess.Popen[bytes]:
        argv = [expand(obj[cmd_key], self.paths)] + shlex.split(expand(obj[arg_key], self.paths, server_pid))
        outs: list[IO[Any] | int] = []
        for key in ("STDOUT", "STDERR"):
            target = expand(obj[key], self.paths)
            outs.append(open(target, "ab") if target else subprocess.DEVNULL)   # appended, as MQ does
        try:
            return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=outs[0], stderr=outs[1],
                                    start_new_session=True)
        finally:
            for f in outs:
                if not isinstance(f, int):
                    f.close()

    def start(self, obj: MQObject) -> str | None:
        """START SERVICE: None, or why it could not start."""
        if obj.name in self.builtin:
            return self.builtin[obj.name].start()
        if not obj["STARTCMD"]:
            return message("MQL0023E", name=obj.name)
        server = obj["SERVTYPE"] == C.MQSVC_TYPE_SERVER
        if server and self.status(obj.name) is not None:
            return message("MQL0024E", name=obj.name)
        try:
            proc = self._spawn(obj, "STARTCMD", "STARTARG")
        except OSError as e:
            self.log(*entry("AMQ5041E", name=obj.name), f"{obj['STARTCMD']}: {e}")
            return message("MQL0025E", name=obj.name, why=e.strerror or e)
        if server:
            self.running[obj.name] = (proc, time.time())
            self.log(*entry("AMQ5028I", name=obj.name, pid=proc.pid), "")
        else:
            self.log(*entry("AMQ5030I", name=obj.name, pid=proc.pid), "")
        return None

    def stop(self, obj: MQObject) -> str | None:
        """STOP SERVICE: its STOPCMD, or (a SERVER service without one) SIGTERM to its process."""
        if obj.name in self.builtin:
            return self.builtin[obj.name].stop()
        running = self.status(obj.name)
        if obj["STOPCMD"]:
            try:
                self._spawn(obj, "STOPCMD", "STOPARG", running["PID"] if running else None)
            except OSError as e:
                return message("MQL0028E", name=obj.name, why=e.strerror or e)
            return None
        running_now = self.running.get(obj.name)
        if running_now is None:
            return message("MQL0026E", name=obj.name)
        running_now[0].terminate()
        return None

    def status(self, name: str) -> dict[str, Any] | None:
        """A running SERVER service's status (DISPLAY SVSTATUS), or None; one that has ended is
        forgotten, and its end logged."""
        if name in self.builtin:
            return self.builtin[name].status()
        running_now = self.running.get(name)
        if running_now is None:
            return None
        proc, started = running_now
        if proc.poll() is not None:
            del self.running[name]
            self.log(*entry("AMQ5029I", name=name, pid=proc.pid), "")
            return None
        return {"STATUS": "RUNNING", "PID": proc.pid, "STARTED": started}

    def start_with_qmgr(self, services: Iterable[MQObject]) -> None:
        for obj in services:
            if obj["CONTROL"] in (C.MQSVC_CONTROL_Q_MGR, C.MQSVC_CONTROL_Q_MGR_START):
                self.start(obj)

    def stop_with_qmgr(self, services: Iterable[MQObject]) -> None:
        """At endmqm: CONTROL(QMGR) services are stopped; STARTONLY and MANUAL ones run on."""
        for obj in services:
            if obj["CONTROL"] == C.MQSVC_CONTROL_Q_MGR and (obj["STOPCMD"] or obj.name in self.running
                                                            or obj.name in self.builtin):
                self.stop(obj)
