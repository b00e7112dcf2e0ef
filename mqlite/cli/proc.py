"""Running the ``mqlite`` command from Python, and finding a free loopback port: shared by
``mqlite up``/``demo``, the test harness and the benchmarks."""
from __future__ import annotations

import os
import random
import socket
import subprocess
import time

from mqlite.paths import python_module, same_code

_handed_out: set[int] = set()


def free_port() -> int:
    """A loopback port to listen on later. Taken below the kernel's ephemeral range, so that the
    outgoing connections of queue managers already running (whose source ports come from that
    range) cannot take it in the meantime; never the same port twice in one process. Under
    pytest-xdist each worker takes from a slice of its own, so that two workers' tests cannot pick
    the same port between choosing it and listening on it (PYTEST_XDIST_WORKER, gw0, gw1, ...)."""
    low, high = 20000, 32767
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range", encoding="ascii") as f:
            first = int(f.read().split()[0])
        if first - 1 > low + 1000:
            high = first - 1
    except (OSError, ValueError, IndexError):
        pass
    low, high = _worker_slice(low, high)
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


def _worker_slice(low: int, high: int) -> tuple[int, int]:
    worker, count = os.environ.get("PYTEST_XDIST_WORKER", ""), os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if not (worker.startswith("gw") and worker[2:].isdigit() and count.isdigit() and int(count) > 1):
        return low, high
    size = (high - low + 1) // int(count)
    first = low + (int(worker[2:]) % int(count)) * size
    return first, first + size - 1


def run_mqlite(*args: str, stdin: str | None = None, timeout: float = 60,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run the ``mqlite`` command (crtmqm, runmqsc, ...) with this interpreter."""
    return subprocess.run(python_module("mqlite.cli.main", *args), input=stdin, text=True,
                          capture_output=True, timeout=timeout, env=same_code(env))


def start_server(name: str, extra: tuple[str, ...] = (), timeout: float = 60.0) -> str:
    """Start queue manager ``name``'s server process (what strmqm does) and wait until it says it
    is ready: "" then, else the line it ended with ("" replaced by "no answer")."""
    proc = subprocess.Popen(python_module("mqlite.server.main", name, *extra), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True, close_fds=True,
                            env=same_code())
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    line = b""
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line or line.strip() == b"READY" or line.startswith(b"ERROR"):
            break
    proc.stdout.close()
    if line.strip() == b"READY":
        return ""
    return line.decode(errors="replace").strip() or "no answer"
