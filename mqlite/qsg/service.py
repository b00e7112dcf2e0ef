"""A member's side of its queue-sharing group, around the engine.

At start the member joins (heartbeat row), takes back what it had claimed before a failure, and
brings its shared definitions and group-object copies up to date; then three loops run:

- the watcher wakes MQGETs waiting on shared queues when another member changed the store
  (SQLite: ``PRAGMA data_version`` polling; PostgreSQL: ``LISTEN``);
- housekeeping notices changed definitions (a version number), refreshes the list of members,
  writes the heartbeat, sweeps expired shared messages, and recovers failed peers: a member whose
  heartbeat is older than ``PEER_TIMEOUT`` has its claimed messages released;
- the IGQ agent (``igq.py``).
"""
from __future__ import annotations

import threading
import time
from typing import Any

from mqlite.catalogue import entry, message
from mqlite.cmq import CMQC
from mqlite.engine import admin
from mqlite.engine.host import Host
from mqlite.engine.shared import QSG_XMITQ
from mqlite.objects.model import QUEUE, MQObject
from mqlite.qsg.igq import IGQAgent
from mqlite.store.shared import SharedStore, open_shared

STORE_KEY = "qsg_store"
PEER_TIMEOUT = 30.0
HEARTBEAT = 2.0
SHARED_DISP, COPY_DISP = CMQC.MQQSGD_SHARED, CMQC.MQQSGD_COPY


def system_objects(qm: Any) -> int:
    """The group's system objects, defined by the first member: SYSTEM.QSG.TRANSMIT.QUEUE, a shared
    transmission queue as MQ's CSQ4INSS sample defines it (100 MB messages)."""
    if any(n == QSG_XMITQ for _ns, n, _d, _r in qm.shared.objects()):
        return 0
    admin.define(qm, "QLOCAL", QSG_XMITQ, {"USAGE": 1, "CFSTRUCT": "CSQSYSAPPL", "MAXMSGL": 104857600,
                                            "INDXTYPE": 2, "DEFPSIST": 1,
                                            "DESCR": "Shared transmission queue for intra-group queuing"},
                 disp=SHARED_DISP)
    return 1


class QSGService:
    def __init__(self, srv: Host, qsg: str, location: str) -> None:
        self.srv = srv
        self.qsg = qsg
        self.store: SharedStore = open_shared(qsg, location)
        self.stop_event = threading.Event()
        self.objver = -1
        self.threads: list[threading.Thread] = []
        self.igq = IGQAgent(srv, self.store)
        self.igq.refresh = self.refresh

    # --- lifecycle ---------------------------------------------------------------------------------
    def attach(self) -> None:
        """Before recovery: the engine needs the store to register shared queues."""
        self.srv.qm.shared = self.store

    def start(self) -> None:
        srv = self.srv
        name = srv.name
        self.store.join(name, time.time())
        released = self.store.release_owner(name)
        if released:
            srv.log.write(*entry("MQL7001I", released=released))
        self.refresh()
        for target, tname in ((self._watch, "qsg-watch"), (self._housekeep, "qsg-housekeeping")):
            t = threading.Thread(target=target, name=tname, daemon=True)
            t.start()
            self.threads.append(t)
        self.igq.start()

    def stop(self) -> None:
        self.stop_event.set()
        self.igq.stop()
        for t in self.threads:
            t.join(5)
        try:
            self.store.leave(self.srv.name, time.time())
        finally:
            self.store.close()

    # --- definitions -------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Bring shared definitions, group objects and their copies, and the member list up to date."""
        version = self.store.object_version()
        objs = self.store.objects()
        members = self.store.members()
        qm = self.srv.qm
        with self.srv.lock:
            qm.qsg_members = frozenset(m for m, _state, _hb in members if m != qm.name)
            shared = {(ns, n): MQObject.from_record(rec) for ns, n, disp, rec in objs if disp == "SHARED"}
            groups = {(ns, n): MQObject.from_record(rec) for ns, n, disp, rec in objs if disp == "GROUP"}
            for obj in [o for o in qm.objects[QUEUE].values() if o.attrs.get("QSGDISP") == SHARED_DISP]:
                if (QUEUE, obj.name) not in shared:
                    qm.forget_object(QUEUE, obj.name)
            for (ns, n), obj in shared.items():
                current = qm.lookup(ns, n)
                if current is not None and current.attrs.get("QSGDISP") != SHARED_DISP:
                    qm.log(message("MQL7008W", name=n))
                    continue
                if current is None or current.to_record() != obj.to_record():
                    qm.install_object(obj)
            qm.group_objects = groups
            for (ns, n), obj in groups.items():
                if not admin.make_copy(qm, obj):
                    qm.log(message("MQL7009W", name=n))
            for obj in [o for o in qm.objects[QUEUE].values() if o.attrs.get("QSGDISP") == COPY_DISP]:
                if (QUEUE, obj.name) not in groups and not qm.in_use(obj.name):
                    qm.remove_object(obj)
            ticket = qm.store.last_ticket
        qm.store.sync(ticket)
        self.objver = version

    # --- loops -------------------------------------------------------------------------------------
    def _watch(self) -> None:
        w = self.store.watcher()
        srv = self.srv
        try:
            while not self.stop_event.is_set():
                if not w.wait(0.5):
                    continue
                with srv.lock:
                    for name, qs in srv.qm.queues.items():
                        if qs.shared:
                            cond = srv.conds.get(name)
                            if cond is not None:
                                cond.notify_all()
        except Exception as e:  # noqa: BLE001 - a lost database connection: log, keep the member up
            srv.log.write(*entry("MQL7002E"), repr(e))
        finally:
            w.close()

    def _housekeep(self) -> None:
        last_beat = last_peer = 0.0
        while not self.stop_event.wait(0.5):
            now = time.time()
            try:
                if self.store.object_version() != self.objver:
                    self.refresh()
                if now - last_beat >= HEARTBEAT:
                    last_beat = now
                    self.store.heartbeat(self.srv.name, now)
                    members = self.store.members()
                    with self.srv.lock:
                        self.srv.qm.qsg_members = frozenset(m for m, _s, _h in members if m != self.srv.name)
                    self.store.expire(self.srv.qm.clock.now())
                if now - last_peer >= 5.0:
                    last_peer = now
                    for dead in self.store.recover_peers(self.srv.name, now - PEER_TIMEOUT):
                        self.srv.log.write(*entry("MQL7003I", dead=dead))
            except Exception as e:  # noqa: BLE001 - keep trying: the store may come back
                self.srv.log.write(*entry("MQL7004E"), repr(e))
