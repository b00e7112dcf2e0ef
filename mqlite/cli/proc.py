"""Running the ``mqlite`` command from Python, and finding a free loopback port: shared by
``mqlite up``/``demo``, the test harness and the benchmarks."""
from __future__ import annotations

import socket
import subprocess
import sys


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_mqlite(*args: str, stdin: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run the ``mqlite`` command (crtmqm, runmqsc, ...) with this interpreter."""
    return subprocess.run([sys.executable, "-m", "mqlite.cli.main", *args], input=stdin, text=True,
                          capture_output=True, timeout=timeout)
