"""The console's data: one snapshot of the data directory's queue managers as an administrator
sees them through their command servers (PCF inquiries, as runCommandJSON's displays: never display text), and
the workload algorithm's latest choices from their control interface. The page
(web/static/console/) draws it: queue managers, queues with a depth sparkline, channels, and
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

from mqlite import pymqi
from mqlite.web import displays as D
from mqlite.web import mqsc as M
from mqlite.web.qmgrs import BROKEN, control, known, pcf_for, state

# The displays a snapshot takes (as runCommandJSON's, answered from PCF: web/displays.py), and
# the fields the page draws of each.
DISPLAYS = {
    "queues": ("qlocal", ["curdepth", "maxdepth", "cluster"]),
    "channels": ("channel", ["chltype", "cluster"]),
    "chstatus": ("chstatus", ["status", "conname"]),
    "clusqmgrs": ("clusqmgr", ["qmtype", "status", "cluster", "channel", "deftype"]),
    "qclusters": ("qcluster", ["clusqmgr", "cluster"]),
}
KEEP_SECONDS = 1.0
FIELDS = {
    "queues": ("queue", "curdepth", "maxdepth", "cluster"),
    "channels": ("channel", "chltype", "cluster"),
    "chstatus": ("channel", "chltype", "status", "conname"),
    "clusqmgrs": ("clusqmgr", "qmtype", "status", "cluster", "channel", "deftype"),
    "qclusters": ("queue", "clusqmgr", "cluster"),
}


def rows(qm: Any, user: str, qualifier: str, wanted: list[str], keep: tuple[str, ...]) -> list[dict[str, Any]]:
    """The objects a display shows, with the fields the console draws (none for a refusal)."""
    ask = D.request({"command": "display", "qualifier": qualifier, "name": "*", "responseParameters": wanted})
    assert ask is not None
    try:
        answers = pcf_for(qm, "", user).run(ask.display.inquiry, ask.params)
    except pymqi.MQMIError as e:
        if e.reason in BROKEN:
            raise
        return []
    out = []
    for values in answers:
        params = M.fields_item(D.shown(ask.display, values, ask.keep))["parameters"]
        out.append({k: params[k] for k in keep if k in params})
    return out


def qmgr_view(qm: Any, name: str, user: str) -> dict[str, Any]:
    """One running queue manager's part of the snapshot (``user``: MQWebUser's context)."""
    view: dict[str, Any] = {"name": name, "state": "running"}
    for key, (qualifier, wanted) in DISPLAYS.items():
        found = rows(qm, user, qualifier, wanted, FIELDS[key])
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
