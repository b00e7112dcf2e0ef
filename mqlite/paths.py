"""Where a queue manager's files live: $MQLITE_DATA (default ~/.mqlite)/qmgrs/<name>/; and where this mqlite's code is,
for the processes it starts."""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass


def data_root() -> str:
    return os.path.abspath(os.path.expanduser(os.environ.get("MQLITE_DATA", "~/.mqlite")))


def installation() -> dict[str, str]:
    """The installation every queue manager here belongs to, as DISPLAY QMSTATUS (INSTNAME,
    INSTPATH, INSTDESC) and mqweb's /admin/installation report it: one per Python environment, the
    name MQ gives its first installation, the path mqlite is installed at."""
    return {"INSTNAME": "Installation1", "INSTPATH": os.path.dirname(os.path.abspath(__file__)),
            "INSTDESC": "mqlite, the IBM MQ queue-manager model in Python"}


def _dir_name(qmgr: str) -> str:
    # MQ maps '.' and '/' in directory names; '/' cannot appear in a file name here.
    return qmgr.replace("/", "&")


@dataclass(frozen=True)
class QMPaths:
    name: str
    root: str

    @classmethod
    def of(cls, name: str) -> "QMPaths":
        return cls(name, os.path.join(data_root(), "qmgrs", _dir_name(name)))

    @property
    def db(self) -> str:
        return os.path.join(self.root, "qmgr.db")

    @property
    def log(self) -> str:
        """Where the recovery log is (LOGPATH): the store's write-ahead log beside ``db``."""
        return self.root + os.sep

    @property
    def config(self) -> str:
        return os.path.join(self.root, "qm.json")

    @property
    def ini(self) -> str:
        """qm.ini: the queue manager's configuration stanzas (``TuningParameters``), MQ's syntax."""
        return os.path.join(self.root, "qm.ini")

    @property
    def scratch(self) -> str:
        """Where nonpersistent messages beyond their queue's buffer go; emptied at every start."""
        return os.path.join(self.root, "scratch")

    @property
    def pid(self) -> str:
        return os.path.join(self.root, "qmgr.pid")

    @property
    def socket(self) -> str:
        return os.path.join(self.root, "qmgr.sock")

    @property
    def errors(self) -> str:
        return os.path.join(self.root, "errors")

    def exists(self) -> bool:
        return os.path.exists(self.config)

    def write_config(self, cfg: dict) -> None:
        tmp = self.config + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(cfg, f, indent=2)
        os.replace(tmp, self.config)

    def running_pid(self) -> int | None:
        """The server's process id when it is running, else None.

        The pid file holds the process id and its start time, so a pid reused by another process
        after a crash is not taken for the queue manager.
        """
        try:
            with open(self.pid, encoding="ascii") as f:
                fields = f.read().split()
            pid = int(fields[0])
            started = fields[1] if len(fields) > 1 else None
        except (OSError, ValueError, IndexError):
            return None
        if not pid_alive(pid):
            return None
        if started is not None and process_start(pid) not in (None, started):
            return None
        return pid


def pid_alive(pid: int) -> bool:
    """A process with this id exists and has not ended (one of another user's counts; a zombie,
    ended but not yet reaped by its parent, does not: a killed queue manager whose parent is a
    test is one until the test reaps it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    state = _stat(pid)
    return not (state and state[0] in ("Z", "X"))


def _stat(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the command name (Linux); empty when unknown."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def process_start(pid: int) -> str | None:
    """A process's start time in clock ticks since boot (Linux), to tell reused pids apart."""
    fields = _stat(pid)
    return fields[19] if len(fields) > 19 else None


def process_parent(pid: int) -> int | None:
    """A process's parent's id (Linux); None when /proc does not say."""
    fields = _stat(pid)
    return int(fields[1]) if len(fields) > 1 else None


def clock_file() -> str:
    """The shared clock offset of every queue manager under this data root (testing)."""
    return os.path.join(data_root(), "clock.offset")


def all_qmgrs() -> list[str]:
    base = os.path.join(data_root(), "qmgrs")
    out = []
    if os.path.isdir(base):
        for d in sorted(os.listdir(base)):
            cfg = os.path.join(base, d, "qm.json")
            if os.path.exists(cfg):
                with open(cfg, encoding="utf-8") as f:
                    out.append(json.load(f)["name"])
    return out


def read_ini(path: str) -> dict[str, dict[str, str]]:
    """An MQ configuration file (qm.ini, mqs.ini): stanzas ``Name:`` followed by ``Key=Value``
    lines, comments after ``;`` or ``#``. Keys keep their case; a missing file is empty."""
    out: dict[str, dict[str, str]] = {}
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return out
    stanza: dict[str, str] | None = None
    for raw in lines:
        line = raw.split(";", 1)[0].split("#", 1)[0].strip()
        if not line:
            continue
        if line.endswith(":") and "=" not in line:
            stanza = out.setdefault(line[:-1].strip(), {})
        elif "=" in line and stanza is not None:
            key, value = line.split("=", 1)
            stanza[key.strip()] = value.strip()
    return out


DEFAULT_QM_INI = """\
; qm.ini: this queue manager's configuration, read when it starts (MQ's stanza syntax).
TuningParameters:
   ; Bytes of nonpersistent / persistent messages (descriptor and data) each local queue keeps
   ; in memory; the rest stay in qmgr.db (persistent) or scratch/ (nonpersistent) and are read
   ; back in order as the queue is served. 0 to 104857600.
   DefaultQBufferSize=8388608
   DefaultPQBufferSize=8388608
CHANNELS:
   ; Channel instances that may be current at once (client connections through a SVRCONN
   ; count, one each), and of those, active. 1 to 65535; MaxActiveChannels defaults to
   ; MaxChannels. Beyond them a client's MQCONN gets 2537 and AMQ9513E is logged.
   MaxChannels=100
"""


# The directory this process imported mqlite from: a child runs the same code.
CODE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def python_module(module: str, *args: str) -> list[str]:
    """The command line that runs ``module`` with this interpreter, without the working
    directory first on the module path (``-P``): with ``same_code``'s environment the child
    imports the mqlite this process did, wherever it is started from."""
    return [sys.executable, "-P", "-m", module, *args]


def same_code(env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (this process's by default) with the root of this process's mqlite first on
    PYTHONPATH. (``python -m`` puts the working directory first: a benchmark or a test run from
    one checkout with PYTHONPATH naming another used to start the first one's servers.)"""
    out = dict(os.environ if env is None else env)
    rest = out.get("PYTHONPATH", "")
    out["PYTHONPATH"] = CODE_ROOT + (os.pathsep + rest if rest else "")
    return out
