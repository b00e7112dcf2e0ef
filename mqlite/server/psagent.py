"""The publish/subscribe agent: delivers the publications other queue managers (cluster members, a
hierarchy's parent and children) forward to SYSTEM.INTER.QMGR.PUBS, and keeps the hierarchy's
relations through SYSTEM.INTER.QMGR.CONTROL (MQ's queued pub/sub daemon plays this part).

Each round gets what is there under syncpoint, hands every publication to the engine
(``publish_inbound``: the subscriptions here, and onward to the queue managers with proxies) and
every control message (``control_inbound``), brings the hierarchy up to date
(``hierarchy_round``: PARENT changes, proxy subscriptions) and commits: a publication arrives at
every subscriber here exactly once, or stays on the queue.
"""
from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import Any

from mqlite.catalogue import entry
from mqlite.cluster.pubsub import PUBSQ
from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import GMO, OD
from mqlite.engine.core import Conn
from mqlite.engine.host import Host
from mqlite.engine.qmgr import QueueManager
from mqlite.objects.attrs import TABLE
from mqlite.objects.model import MQObject
from mqlite.pubsub.hierarchy import CONTROLQ

BATCH = 200
IDLE_WAIT = 1.0
HIERARCHY_WAIT = 0.2            # in a hierarchy: how soon a new subscription's proxy goes out


def ensure_queue(qm: QueueManager) -> None:
    """SYSTEM.INTER.QMGR.PUBS and .CONTROL, for a queue manager made before they were among
    crtmqm's objects."""
    for name, descr in ((PUBSQ, "IBM MQ publications from other queue managers"),
                        (CONTROLQ, "IBM MQ publish/subscribe hierarchy control")):
        if qm.queue(name) is None:
            obj = MQObject("QLOCAL", name, TABLE.defaults("QLOCAL"))
            obj.attrs.update(DESCR=descr, MAXDEPTH=999999999)
            qm.add_object(obj)


class PubSubAgent(threading.Thread):
    def __init__(self, srv: Host) -> None:
        super().__init__(name="pubsub-agent", daemon=True)
        self.srv = srv
        self.qm = srv.qm
        self.stop_event = threading.Event()

    def stop(self) -> None:
        self.stop_event.set()
        with self.srv.lock:
            self.srv.cond_for(PUBSQ).notify_all()

    def run(self) -> None:
        srv, qm = self.srv, self.qm
        with srv.lock:
            ensure_queue(qm)
            conn = qm.connect("amqfqpub", C.MQAT_QMGR, "mqm")
            try:
                hobj = qm.open(conn, OD(ObjectName=PUBSQ.encode()), C.MQOO_INPUT_EXCLUSIVE).hobj
                ctl = qm.open(conn, OD(ObjectName=CONTROLQ.encode()), C.MQOO_INPUT_EXCLUSIVE).hobj
            except MQIError as e:
                srv.log.write(*entry("AMQ5806E", reason=e.reason),
                              "Publications from other queue managers are not delivered.")
                return
            qm.pubhier.start(conn)
            qm.commit(conn)
        gmo = GMO(Options=C.MQGMO_SYNCPOINT)
        while not self.stop_event.is_set():
            failed = False
            with srv.lock:
                try:
                    got = self._round(conn, hobj, ctl, gmo)
                except Exception as e:       # log it, back out (the publication stays), keep running
                    srv.log.write(*entry("AMQ6184W", qmgr=srv.name),
                                  f"Publish/subscribe agent error: {e}.\n{traceback.format_exc()}")
                    qm.backout(conn)
                    got, failed = 0, True
                ticket = conn.ticket
            if ticket:
                srv.store.sync(ticket)
            if not got:
                with srv.lock:
                    if not self.stop_event.is_set() and (failed or not qm.queues[PUBSQ].visible):
                        rel = qm.pubhier.relations
                        srv.cond_for(PUBSQ).wait(HIERARCHY_WAIT if rel.parent or rel.children
                                                 or qm.qmgr["PARENT"].strip() else IDLE_WAIT)
        with srv.lock:
            qm.disconnect(conn, commit=False)

    def _round(self, conn: Conn, hobj: int, ctl: int, gmo: GMO) -> int:
        qm = self.qm
        qm.pubsub.expire_subscriptions(conn)    # (on time, at least once a second: not only when published to)
        got = self._drain(conn, ctl, gmo, BATCH, lambda r: qm.pubhier.control_inbound(conn, r.body),
                          f"A message on {CONTROLQ} is not a control message and was discarded.")
        sent = qm.pubhier.round(conn)
        got += self._drain(conn, hobj, gmo, BATCH - got, lambda r: qm.pubcluster.publish_inbound(conn, r.md, r.body),
                           f"A message on {PUBSQ} is not a publication and was discarded.")
        if got or sent:
            qm.commit(conn)
            conn.ticket = qm.store.last_ticket
        return got

    def _drain(self, conn: Conn, hobj: int, gmo: GMO, limit: int, handle: Callable[[Any], object],
               discarded: str) -> int:
        """Up to ``limit`` messages from the queue, each handed to ``handle`` under syncpoint; one
        that is not what the queue is for is logged and taken off (the round commits)."""
        got = 0
        for r in self.qm.drain(conn, hobj, gmo, limit):
            got += 1
            try:
                handle(r)
            except ValueError as e:
                self.srv.log.write(*entry("MQL8027W"), f"{discarded} {e}")
        return got
