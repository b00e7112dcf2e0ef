"""The repository manager: the thread that runs a queue manager's cluster work.

It reads the cluster control messages other queue managers send to SYSTEM.CLUSTER.COMMAND.QUEUE,
hands them to the sans-IO cluster state, publishes local definition changes, lets time pass
(record and subscription lifetimes, on the queue manager's clock), and puts what must be sent on
the cluster transmission queue for the right cluster-sender channel, addressed to
SYSTEM.CLUSTER.COMMAND.QUEUE on the target queue manager. Gets and puts of one round are one unit
of work, and the cluster cache is saved with it, so a crash neither loses nor repeats a message.
MQOPEN calls waiting for a full repository's answer are woken after each round.
"""
from __future__ import annotations

import json
import threading
import traceback
from typing import Any

from mqlite.catalogue import entry
from mqlite.channels.manager import ChannelManager
from mqlite.cluster import operations
from mqlite.cluster.state import CMDQ
from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import GMO, OD
from mqlite.engine.host import Host
from mqlite.engine.ports import SaveMeta

TICK = 1.0            # seconds between lifetime checks when nothing else happens
CACHE_KEY = "cluster.cache"


class RepositoryManager(threading.Thread):
    def __init__(self, srv: Host, channels: ChannelManager) -> None:
        super().__init__(name="repository-manager", daemon=True)
        self.srv = srv
        self.qm = srv.qm
        self.channels = channels
        self.stop_event = threading.Event()
        self.answered = threading.Condition(srv.lock)    # MQOPENs waiting for full repositories
        self.kick = False
        self._saved_gen = -1

    def stop(self) -> None:
        self.stop_event.set()
        with self.srv.lock:
            self.srv.cond_for(CMDQ).notify_all()

    def poke(self) -> None:
        """Something changed (a definition, the clock): run a round soon. Engine lock held."""
        self.kick = True
        self.srv.cond_for(CMDQ).notify_all()

    def run(self) -> None:
        srv, qm = self.srv, self.qm
        with srv.lock:
            conn = qm.connect("amqrrmfa", C.MQAT_QMGR, "mqm")
            try:
                hobj = qm.open(conn, OD(ObjectName=CMDQ.encode()), C.MQOO_INPUT_EXCLUSIVE).hobj
            except MQIError as e:
                srv.log.write(*entry("AMQ9411E", cmdq=CMDQ, reason=e.reason),
                              "Clustering is not available on this queue manager.")
                return
        gmo = GMO(Options=C.MQGMO_SYNCPOINT)
        while not self.stop_event.is_set():
            with srv.lock:
                try:
                    got = self._round(conn, hobj, gmo)
                except Exception as e:       # a defect: log it, keep the queue manager running
                    srv.log.write(*entry("AMQ6184W", qmgr=srv.name),
                                  f"Repository manager error: {e}.\n{traceback.format_exc()}")
                    qm.backout(conn)
                    got = 0
                ticket = conn.ticket
            if ticket:
                srv.store.sync(ticket)
            with srv.lock:
                self.answered.notify_all()
                if not got and not self.kick and not self.stop_event.is_set():
                    srv.cond_for(CMDQ).wait(TICK)
        with srv.lock:
            qm.disconnect(conn, commit=False)

    def _round(self, conn: Any, hobj: int, gmo: GMO) -> int:
        qm, cl = self.qm, self.qm.cluster
        self.kick = False
        got = 0
        for r in qm.drain(conn, hobj, gmo, 500):
            got += 1
            try:
                msg = json.loads(r.body)
                if not isinstance(msg, dict):
                    raise ValueError("not an object")
                added = cl.receive(msg)
                if added:
                    qm.pubcluster.resend_retained(conn, str(msg["from"]), str(msg["cluster"]), added)
            except (ValueError, KeyError, TypeError) as e:
                self.srv.log.write(*entry("AMQ9430E"),
                                   f"{e.__class__.__name__}: {e}")
        cl.tick()
        cl.sync()
        proxied = cl.send_proxies(qm.pubcluster.wanted_proxies())
        qm.routing.prune_not_fixed()
        for channel, st in list(self.channels.status.items()):
            if st.chltype == "CLUSSDR" and st.state in ("RETRYING", "STOPPED"):
                moved = qm.routing.reroute(conn, channel)
                if moved:
                    self.srv.log.write(*entry("AMQ9486I", moved=moved, channel=channel),
                                       "The channel cannot reach its queue manager; the messages were put "
                                       "with BIND_NOT_FIXED.")
        for channel, target, msg in cl.outgoing():
            qm.routing.send_cluster(conn, channel, target, CMDQ, json.dumps(msg, separators=(",", ":")).encode())
        if cl.repo.generation != self._saved_gen or got or proxied:
            self._saved_gen = cl.repo.generation
            qm.store.append(SaveMeta(CACHE_KEY, json.dumps(operations.snapshot(cl), separators=(",", ":"))))
        qm.commit(conn)
        conn.ticket = qm.store.last_ticket
        return got
