"""A warm starter for queue-manager servers: the test harness's fresh queue managers (issue 69).

A server process spent almost all of its start importing mqlite (300 of 350 ms; its own start is
about 15 ms). The warm starter is one process per test process that imports what a server needs
once, then forks a server for each queue manager asked for: the child becomes a session leader,
takes the asker's environment, and runs ``mqlite.server.main`` as ``strmqm`` would, a real process
of its own (kill -9, endmqm, its pid file and error log as ever). ``python -m mqlite.server.warm``
reads one request a line on standard input (JSON: name, environment, arguments) and answers each
with the server's first line (``READY``, or ``ERROR ...``).

A setting read when a module is imported (the ``MQLITE_*`` tunables: frame timeout, spin, handshake
cap, ...) is the warm starter's: an asker whose differ, or another ``PYTHONPATH``, is refused
(``start`` answers None) and starts its server the ordinary way."""
from __future__ import annotations

import atexit
import importlib
import json
import os
import signal
import subprocess
import sys
import threading
import traceback
from typing import Any

from mqlite.paths import python_module, same_code


def _import_time(env: dict[str, str]) -> dict[str, str]:
    """What of an environment a server reads when its modules are imported."""
    return {k: v for k, v in env.items() if (k.startswith("MQLITE_") and k != "MQLITE_DATA") or k == "PYTHONPATH"}


class Starter:
    """The asking side: the warm process, started when first needed, ended at exit."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.env: dict[str, str] = {}
        self.lock = threading.Lock()

    def start(self, name: str, extra: tuple[str, ...] = ()) -> str | None:
        """Start ``name``'s server: "" when it is ready, else the line it ended with; None when
        this environment cannot use the warm process (start it the ordinary way)."""
        env = same_code()
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                self.proc = subprocess.Popen(python_module("mqlite.server.warm"), stdin=subprocess.PIPE,
                                             stdout=subprocess.PIPE, start_new_session=True, close_fds=True, env=env)
                self.env = _import_time(env)
                atexit.register(self.close)
            if _import_time(env) != self.env:
                return None
            assert self.proc.stdin is not None and self.proc.stdout is not None
            try:
                self.proc.stdin.write(json.dumps({"name": name, "env": env, "extra": list(extra)}).encode() + b"\n")
                self.proc.stdin.flush()
                line = self.proc.stdout.readline()
            except OSError:
                line = b""
        if line.strip() == b"READY":
            return ""
        return line.decode(errors="replace").strip() or "no answer"

    def close(self) -> None:
        with self.lock:
            if self.proc is not None and self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.proc = None


STARTER = Starter()


def _reap(*_: Any) -> None:
    """Collect the servers that ended (a zombie server is not running: paths.pid_alive)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def _child(request: dict[str, Any], write: int) -> None:
    """In the forked child: become the server ``strmqm`` would have started."""
    from mqlite.server import main as server
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)      # (its own children are its to wait for)
        os.setsid()
        os.environ.clear()
        os.environ.update(request["env"])
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(write, 1)
        os.dup2(write, 2)
        os.close(write)
        os.close(devnull)
        code = server.main([request["name"], *request.get("extra", [])])
    except BaseException:                                   # (what an ordinary start would have printed)
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        os._exit(code)


def serve() -> int:
    importlib.import_module("mqlite.server.main")          # what every server imports, once
    signal.signal(signal.SIGCHLD, _reap)
    out = sys.stdout.buffer
    for raw in sys.stdin.buffer:
        request = json.loads(raw)
        read, write = os.pipe()
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            _child(request, write)
        os.close(write)
        line = b""
        with os.fdopen(read, "rb") as first:
            for line in first:
                if line.strip() == b"READY" or line.startswith(b"ERROR"):
                    break
        line = line.strip()
        if line and line != b"READY" and not line.startswith(b"ERROR"):
            line = b"ERROR " + line                         # (the last it said: a traceback's last line)
        out.write((line or b"ERROR no answer") + b"\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(serve())
