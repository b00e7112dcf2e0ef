"""A storm of logins with wrong passwords (issue 62): each check is a 16 MiB scrypt, and 64 at once
took the queue manager from 36 MB to 594 MB, 470 MB of it kept (64 AMQP logins peaked at 854 MB).
Now checks run two at a time on threads of their own and give their memory back, and so do
connection threads as they end: the queue manager's resident size stays bounded during a storm
and storm after storm returns to where it was, every login is refused (2035, or SASL's auth
outcome), and a right password still gets in."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

from proton import ConnectionException
from proton.utils import BlockingConnection

from mqlite import pymqi
from mqlite.cli.proc import free_port
from mqlite.pymqi import CMQC
from mqlite.testing import Harness, run_mqlite

STORM = 64


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _where(pid: int) -> str:
    """Where the resident size is (for a failure's message): the threads, and the resident MB of
    the heap, of mappings the size of a thread's stack, of other anonymous mappings, of files."""
    kinds = {"heap": 0, "stacks": 0, "anon": 0, "files": 0}
    kind, size = "anon", 0
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = line.split()
            if "-" in head[0] and not head[0].endswith(":"):
                lo, hi = (int(x, 16) for x in head[0].split("-"))
                size = hi - lo
                kind = ("heap" if head[-1] == "[heap]" else "files" if len(head) >= 6 and head[5].startswith("/")
                        else "stacks" if size in (8 << 20, 8 << 20 | 4096) else "anon")
            elif head[0] == "Rss:":
                kinds[kind] += int(head[1])
    with open(f"/proc/{pid}/status") as f:
        threads = next(line.split()[1] for line in f if line.startswith("Threads:"))
    return f"threads {threads}, " + ", ".join(f"{k} {v / 1024:.1f} MB" for k, v in kinds.items())


def _storm(pid: int, login: Callable[[], object]) -> tuple[list[object], float]:
    """STORM logins at once; what each answered and the peak resident size meanwhile (MB)."""
    answers: list[object] = []
    peak = [_rss_mb(pid)]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _rss_mb(pid))
            time.sleep(0.02)
    watcher = threading.Thread(target=watch)
    watcher.start()
    threads = [threading.Thread(target=lambda: answers.append(login())) for _ in range(STORM)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    done.set()
    watcher.join()
    return answers, peak[0]


def _settled_rss(pid: int, limit: float) -> float:
    deadline = time.monotonic() + 30            # (a loaded machine ends the storm's threads late)
    while (rss := _rss_mb(pid)) > limit and time.monotonic() < deadline:
        time.sleep(0.2)
    return rss


def test_a_login_storm_with_wrong_passwords_leaves_memory_where_it_was() -> None:
    with Harness(security=True) as h:
        amqp = free_port()
        qm = h.add("QMSTORM", f"DEFINE CHANNEL(AMQP.S) CHLTYPE(AMQP) PORT({amqp}) LOCLADDR('127.0.0.1')\n"
                              "START SERVICE(SYSTEM.AMQP.SERVICE)\n")
        r = run_mqlite("setmqusr", "-m", "QMSTORM", "-u", "app", "--password-stdin", "-g", "mqclient",
                       stdin="passw0rd\n")
        assert r.returncode == 0, r.stdout + r.stderr
        assert run_mqlite("setmqaut", "-m", "QMSTORM", "-t", "qmgr", "-p", "app", "+connect").returncode == 0
        cd = pymqi.CD(ChannelName=h.channel.encode(), ConnectionName=qm.conname.encode())

        def mqi(password: str) -> object:
            conn = pymqi.QueueManager(None)
            try:
                conn.connect_with_options("QMSTORM", user="app", password=password, cd=cd)
            except pymqi.MQMIError as e:
                return e.reason
            conn.disconnect()
            return 0

        def amqp_login() -> object:
            try:
                BlockingConnection(f"amqp://127.0.0.1:{amqp}", user="app", password="wrong",
                                   allowed_mechs="PLAIN", timeout=30).close()
            except ConnectionException:
                return "refused"
            return "in"

        assert mqi("passw0rd") == 0
        pid = qm.pid()
        assert pid is not None
        # A first storm of each kind leaves the allocator's caches (thread stacks, arenas) at their
        # working size, once: some 15 MB after 64 AMQP connections. From there on a storm costs
        # nothing that stays, however many come.
        # How many threads allocate at once in a storm (and so how many allocator arenas it warms)
        # depends on how busy the machine is: the warm-up goes on until a pair of storms leaves
        # the size where it was (at most three pairs; a leak would go on growing, and fail below).
        first = _rss_mb(pid)
        before = first
        for _warm in range(3):
            _storm(pid, lambda: mqi("wrong"))
            _storm(pid, amqp_login)
            time.sleep(1.5)
            warmed, before = before, _rss_mb(pid)
            if before <= warmed * 1.05:
                break
        assert before - first < 40, (first, before, _where(pid))
        settled = []
        for _round in range(3):
            answers, peak = _storm(pid, lambda: mqi("wrong"))
            assert answers == [CMQC.MQRC_NOT_AUTHORIZED] * STORM
            assert peak - before < 100, (before, peak)            # (was +558 MB)
            answers, peak = _storm(pid, amqp_login)
            assert answers == ["refused"] * STORM
            assert peak - before < 100, (before, peak)            # (was +818 MB)
            settled.append(_settled_rss(pid, before * 1.1))
        # Storm after storm it returns to where it was: the last round keeps no more than the one
        # before it (a leak grows round by round), and none stays far above the warmed size (a busy
        # machine can warm a little more of the allocator in a later storm than in the warm-up, once).
        assert settled[-1] <= settled[-2] * 1.05 + 1, (before, settled, _where(pid))
        assert max(settled) <= before + 25, (before, settled, _where(pid))
        assert mqi("passw0rd") == 0
