"""What the benchmark scripts share: running an mqlite control command, whether RabbitMQ (the
peer they measure beside) is there, the CPU a process has used (a broker's, read from /proc) and a
CPU hog for the contended runs. The scripts run as ``python bench/<name>.py``, so this module
sits beside them on sys.path and puts the repository in front of it."""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Iterator

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mqlite.cli.proc import run_mqlite  # noqa: E402


def mqlite_cmd(*args: str, stdin: str | None = None, env: dict[str, str] | None = None, timeout: float = 600) -> str:
    """A control command's output; RuntimeError unless it ended with 0 or 10 (runmqsc: some
    commands failed, as the scripts expect for their DELETEs)."""
    p = run_mqlite(*args, stdin=stdin, timeout=timeout, env=env)
    if p.returncode not in (0, 10):
        raise RuntimeError(f"mqlite {' '.join(args)} failed: {p.stdout}{p.stderr}")
    return p.stdout


def rabbit_available() -> bool:
    """pika installed and RabbitMQ listening on 127.0.0.1:5672."""
    try:
        import pika  # noqa: F401
        with socket.create_connection(("127.0.0.1", 5672), timeout=1):
            return True
    except (ImportError, OSError):
        return False


def cpu_seconds(pid: int) -> float:
    """A process's user and system CPU so far, all its threads (/proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rabbit_pid() -> int | None:
    """The RabbitMQ broker's Erlang VM (beam.smp running the rabbit application), or None."""
    out = subprocess.run(["pgrep", "-f", "beam.smp.*rabbit"], capture_output=True, text=True).stdout.split()
    return int(out[0]) if out else None


@contextlib.contextmanager
def cpu_hogs(n: int) -> Iterator[None]:
    """``n`` processes each spinning on the CPU while the block runs (a contended machine: a build
    or a test run beside the brokers); none when ``n`` is 0."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()
