"""`mqlite up DIR` and `mqlite down DIR`: a set of queue managers described by a directory.

DIR holds ``cluster.ini`` (one section per queue manager, in start order, with its listener
``port``) and ``<name>.mqsc`` for each. ``up`` creates the queue managers that do not exist yet
(``crtmqm -p PORT -u SYSTEM.DEAD.LETTER.QUEUE``), starts them, runs their MQSC and, for a cluster,
waits until every member knows every full repository. ``--ports auto`` swaps the ports of the
file for free ones, in the listeners and in every CONNAME. ``down`` ends them in reverse order
(``--delete`` also deletes them).
"""
from __future__ import annotations

import configparser
import os
import re
import time
from dataclasses import dataclass

from mqlite.cli.proc import free_port, run_mqlite


@dataclass
class Member:
    name: str
    port: int
    mqsc: str


def load(directory: str, auto_ports: bool = False) -> list[Member]:
    ini = configparser.ConfigParser()
    path = os.path.join(directory, "cluster.ini")
    if not ini.read(path):
        raise FileNotFoundError(f"{path} not found")
    members = []
    for name in ini.sections():
        with open(os.path.join(directory, f"{name}.mqsc"), encoding="utf-8") as f:
            members.append(Member(name, ini.getint(name, "port"), f.read()))
    if auto_ports:
        swap = {m.port: free_port() for m in members}
        for m in members:
            m.port = swap[m.port]
            m.mqsc = re.sub(r"\((\d+)\)", lambda mo: f"({swap.get(int(mo.group(1)), int(mo.group(1)))})", m.mqsc)
    return members


def full_repositories(members: list[Member]) -> set[str]:
    return {m.name for m in members if re.search(r"ALTER\s+QMGR\s+.*REPOS\(", m.mqsc, re.I)}


def up(directory: str, auto_ports: bool = False, timeout: float = 60.0) -> list[Member]:
    members = load(directory, auto_ports)
    for m in members:
        r = run_mqlite("crtmqm", "-p", str(m.port), "-u", "SYSTEM.DEAD.LETTER.QUEUE", m.name)
        if r.returncode not in (0, 8):          # 8: it exists already
            raise RuntimeError(f"crtmqm {m.name}: {r.stdout}{r.stderr}")
        r = run_mqlite("strmqm", m.name)
        if r.returncode not in (0, 5):          # 5: running already
            raise RuntimeError(f"strmqm {m.name}: {r.stdout}{r.stderr}")
        _follow_port(m)
        r = run_mqlite("runmqsc", "-e", m.name, stdin=m.mqsc)
        if r.returncode != 0:
            raise RuntimeError(f"MQSC of {m.name} failed:\n{r.stdout}")
        print(f"{m.name}: running, listener on 127.0.0.1({m.port})")
    fulls = full_repositories(members)
    if fulls:
        deadline = time.monotonic() + timeout
        for m in members:
            while not fulls <= {n for n, t in cluster_view(m.name).items() if t == "REPOS"}:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{m.name} did not learn the full repositories {sorted(fulls)} in time")
                time.sleep(0.2)
        print(f"cluster converged: every member knows the full repositories {', '.join(sorted(fulls))}")
    return members


LISTENER = "SYSTEM.LISTENER.TCP.1"          # (crtmqm -p's listener)


def _follow_port(m: Member) -> None:
    """A queue manager made by an earlier ``up`` (crtmqm's -p applies only when it is made) has its
    listener moved to this run's port, so that the CONNAMEs the MQSC now gives are where it listens."""
    shown = run_mqlite("runmqsc", "-e", m.name, stdin=f"DISPLAY LISTENER({LISTENER}) PORT\n").stdout
    found = re.search(r"\bPORT\((\d+)\)", shown)
    if found is None or int(found.group(1)) == m.port:
        return
    r = run_mqlite("runmqsc", "-e", m.name, stdin=f"STOP LISTENER({LISTENER}) IGNSTATE(YES)\n"
                                               f"ALTER LISTENER({LISTENER}) TRPTYPE(TCP) PORT({m.port})\n"
                                               f"START LISTENER({LISTENER})\n")
    if r.returncode != 0:
        raise RuntimeError(f"{m.name}: its listener could not move to port {m.port}:\n{r.stdout}")
    print(f"{m.name}: listener moved from port {found.group(1)} to {m.port}")


def cluster_view(qmgr: str) -> dict[str, str]:
    """The cluster queue managers ``qmgr`` knows, each with its QMTYPE (REPOS or NORMAL)."""
    out = run_mqlite("runmqsc", "-e", qmgr, stdin="DISPLAY CLUSQMGR(*) QMTYPE\n").stdout
    return dict(re.findall(r"CLUSQMGR\(([^)\s]+)\)\s+CHANNEL\(\S+\)\s+CLUSTER\(\S+\)\s+QMTYPE\((\w+)\)", out))


def down(directory: str, delete: bool = False) -> int:
    members = load(directory)
    code = 0
    for m in reversed(members):
        r = run_mqlite("endmqm", "-i", m.name)
        print((r.stdout + r.stderr).strip() or f"{m.name} ended")
        if delete:
            run_mqlite("dltmqm", m.name)
        code = max(code, 0 if r.returncode in (0, 16, 40) else r.returncode)
    return code


def web() -> int:
    """``mqlite up DIR --web``: mqweb for the data directory too (strmqweb, unless it runs), and
    the console's URLs."""
    from mqlite.web import server  # (Starlette and uvicorn only where mqweb is used)
    if server.running_pid() is None and server.start() != 0:
        return 1
    for url in server.urls():
        print(f"console: {url.replace('/ibmmq/rest/', '/ibmmq/console/')}")
    return 0
