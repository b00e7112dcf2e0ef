"""The console's data: one snapshot of the data directory's queue managers as an administrator
sees them through their command servers (MQSC DISPLAY, parsed as runCommandJSON parses it), and
the workload algorithm's latest choices from their control interface. The page
(web/static/console.html) draws it: queue managers, queues with a depth sparkline, channels, and
the cluster view (repositories, cluster channels and their states, each cluster queue's
instances, where the workload algorithm sent the last messages); ``/ibmmq/console/api/stream``
sends a snapshot a second as Server-Sent Events.

A snapshot is taken in the caller's context (mqweb's own for MQWebAdmin and MQWebAdminRO, the
user's for MQWebUser, so the OAM decides what an MQWebUser sees), and kept for a second for every
caller with the same context, so that open consoles do not multiply the commands."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from mqlite.web import mqsc as M
from mqlite.web.qmgrs import control, known, mqsc, state

COMMANDS = {
    "queues": "DISPLAY QLOCAL(*) CURDEPTH MAXDEPTH CLUSTER",
    "channels": "DISPLAY CHANNEL(*) CHLTYPE CLUSTER",
    "chstatus": "DISPLAY CHSTATUS(*) STATUS",
    "clusqmgrs": "DISPLAY CLUSQMGR(*) QMTYPE STATUS CLUSTER CHANNEL DEFTYPE",
    "qclusters": "DISPLAY QCLUSTER(*) CLUSQMGR CLUSTER",
}
KEEP_SECONDS = 1.0
FIELDS = {
    "queues": ("queue", "curdepth", "maxdepth", "cluster"),
    "channels": ("channel", "chltype", "cluster"),
    "chstatus": ("channel", "chltype", "status", "conname"),
    "clusqmgrs": ("clusqmgr", "qmtype", "status", "cluster", "channel", "deftype"),
    "qclusters": ("queue", "clusqmgr", "cluster"),
}


def rows(text: str, ok: bool, keep: tuple[str, ...]) -> list[dict[str, Any]]:
    """The objects a DISPLAY answered, with the fields the console draws (none for a refusal)."""
    out = []
    for item in M.json_items(text, ok):
        params = item.get("parameters")
        if params:
            out.append({k: params[k] for k in keep if k in params})
    return out


def qmgr_view(qm: Any, name: str, user: str) -> dict[str, Any]:
    """One running queue manager's part of the snapshot (``user``: MQWebUser's context)."""
    view: dict[str, Any] = {"name": name, "state": "running"}
    for key, command in COMMANDS.items():
        text, ok = mqsc(qm, command, user=user)
        found = rows(text, ok, FIELDS[key])
        if key in ("queues", "channels"):
            found = [r for r in found if not str(r.get(FIELDS[key][0], "")).startswith("SYSTEM.")]
        view[key] = found
    reply = control(name, {"op": "wlmrecent"}) or {}
    view["workload"] = reply.get("recent", {})
    return view


def _view_of(qm: Any, name: str, user: str) -> dict[str, Any]:
    return qmgr_view(qm, name, user)


class Snapshots:
    """Snapshots by context, each kept KEEP_SECONDS."""

    def __init__(self, run: Callable[[str, Callable[[Any], Any]], Any]) -> None:
        self.run = run                     # run(qmgr, fn(connection)): on a pooled connection
        self.lock = threading.Lock()
        self.kept: dict[str, tuple[float, dict[str, Any]]] = {}

    def take(self, user: str) -> dict[str, Any]:
        with self.lock:
            hit = self.kept.get(user)
            if hit and time.monotonic() - hit[0] < KEEP_SECONDS:
                return hit[1]
        qmgrs = []
        for name in known():
            if state(name) != "running":
                qmgrs.append({"name": name, "state": "ended"})
                continue
            try:
                qmgrs.append(self.run(name, partial(_view_of, name=name, user=user)))
            except Exception as e:  # noqa: BLE001 - one queue manager's trouble does not blank the rest
                qmgrs.append({"name": name, "state": "running", "error": str(e) or type(e).__name__})
        snap = {"time": time.time(), "qmgrs": qmgrs}
        with self.lock:
            self.kept[user] = (time.monotonic(), snap)
        return snap
