"""Running the ``mqlite`` command from Python, and finding a free loopback port: shared by
``mqlite up``/``demo``, the test harness and the benchmarks."""
from __future__ import annotations

import random
import socket
import subprocess
import sys

_handed_out: set[int] = set()


def free_port() -> int:
    """A loopback port to listen on later. Taken below the kernel's ephemeral range, so that the
    outgoing connections of queue managers already running (whose source ports come from that
    range) cannot take it in the meantime; never the same port twice in one process."""
    low, high = 20000, 32767
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range", encoding="ascii") as f:
            first = int(f.read().split()[0])
        if first - 1 > low + 1000:
            high = first - 1
    except (OSError, ValueError, IndexError):
        pass
    for _ in range(200):
        port = random.randint(low, high)
        if port in _handed_out:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _handed_out.add(port)
        return port
    with socket.socket() as s:              # a crowded range: let the kernel choose
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_mqlite(*args: str, stdin: str | None = None, timeout: float = 60,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run the ``mqlite`` command (crtmqm, runmqsc, ...) with this interpreter."""
    return subprocess.run([sys.executable, "-m", "mqlite.cli.main", *args], input=stdin, text=True,
                          capture_output=True, timeout=timeout, env=env)
