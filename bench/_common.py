"""What the benchmark scripts share: running an mqlite control command, and whether RabbitMQ (the
peer they measure beside) is there. The scripts run as ``python bench/<name>.py``, so this module
sits beside them on sys.path and puts the repository in front of it."""
from __future__ import annotations

import os
import socket
import sys

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
