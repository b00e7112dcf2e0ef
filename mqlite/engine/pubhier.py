"""Publish/subscribe hierarchies, the engine's part (the rules are mqlite.pubsub.hierarchy's): the
parent and children of this queue manager, the control messages to their SYSTEM.INTER.QMGR.CONTROL,
and publications forwarded to their SYSTEM.INTER.QMGR.PUBS through ordinary name resolution (a
transmission queue or queue-manager alias named after each), inside the publisher's unit of work.
The publish/subscribe agent (server.psagent) drives it: it reads both queues and calls
``round``. ``Hierarchy`` is the queue manager's ``qm.pubhier``, a ``Relay`` of ``PubSub``."""
from __future__ import annotations

import json
from typing import Any

from mqlite.catalogue import message
from mqlite.cluster import pubsub as cps
from mqlite.cmq import CMQCFC as F
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import MD, OD, PMO, pad
from mqlite.engine.core import C, Conn, qmgr_authority
from mqlite.engine.ports import DropObject, SaveObject
from mqlite.engine.pubsub import Forward, PubSub, PubSubHost
from mqlite.pubsub import hierarchy as hier
from mqlite.pubsub import topics

PSCHILD_NS = "PSCHILD"
RETRY = 5.0                     # seconds between joins while the parent cannot be reached
STATUS_CODE = {hier.STARTING: F.MQPS_STATUS_STARTING, hier.ACTIVE: F.MQPS_STATUS_ACTIVE,
               hier.ERROR: F.MQPS_STATUS_ERROR, hier.REFUSED: F.MQPS_STATUS_REFUSED}


class Hierarchy:
    """This queue manager's place in a hierarchy: its relations (``relations``: parent, children,
    the proxy subscriptions each holds here), the PARENT it last joined (``joined``; None before
    the first round), when a failed join is tried again, and what the relatives were last sent."""

    def __init__(self, qm: PubSubHost, ps: PubSub) -> None:
        self.qm = qm
        self.ps = ps
        self.relations = hier.Relations()
        self.joined: str | None = None
        self.retry_at = 0.0
        self.version = 0                # counts control messages received: a relative's set may change
        self.stamp: tuple[Any, ...] | None = None

    def load_child(self, rec: dict[str, Any]) -> None:
        """Recovery: a child that joined (a parent remembers its children across restarts)."""
        self.relations.children.add(rec["name"])

    def relatives_for(self, topic: str, came_from: str, opts: int) -> list[str]:
        """The parent and children a publication on ``topic`` goes to (none with PUBSCOPE(QMGR) or
        MQPMO_SCOPE_QMGR)."""
        rel = self.relations
        if not rel.held or opts & C.MQPMO_SCOPE_QMGR or \
                topics.resolved(self.ps.tree(), topic, "PUBSCOPE") == C.MQSCOPE_QMGR:
            return []
        return hier.forward_targets(rel, topic, came_from)

    def targets(self, topic: str, came_from: str, opts: int) -> list[tuple[Forward, str]]:
        return [(self.forward, r) for r in self.relatives_for(topic, came_from, opts)]

    def forward(self, conn: Conn, target: str, topic: str, md: MD, body: bytes, opts: int = 0,
                kind: str = "") -> None:
        """A publication to a relative's SYSTEM.INTER.QMGR.PUBS, in the connection's unit of work,
        with the publisher's context (``kind``: as cluster.pubsub's wrap)."""
        kind = kind or (cps.RETAINED if opts & C.MQPMO_RETAIN else cps.PUBLICATION)
        try:
            envelope = md.copy()
            envelope.Format = cps.FORMAT
            self._as_qmgr(conn, target, cps.PUBSQ, envelope, cps.wrap(topic, self.qm.name, body, kind, md.Format))
        except MQIError as e:
            self.qm.log(message("MQL8021W", topic=topic, target=target, reason=e.reason))

    def _as_qmgr(self, conn: Conn, target: str, queue: str, md: MD, data: bytes) -> None:
        with qmgr_authority(conn):
            self.qm.put1(conn, OD(ObjectName=pad(queue, 48), ObjectQMgrName=pad(target, 48)), md,
                      PMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_SET_ALL_CONTEXT), data)

    def _control(self, conn: Conn, target: str, msg: dict[str, Any]) -> bool:
        """A control message to ``target``'s SYSTEM.INTER.QMGR.CONTROL, persistent, in the agent's
        unit of work; False (the relation in ERROR, logged) when nothing leads there."""
        md = MD(Persistence=C.MQPER_PERSISTENT, Format=pad("MQSTR", 8))
        try:
            self._as_qmgr(conn, target, hier.CONTROLQ, md, hier.encode(msg))
        except MQIError as e:
            rel = self.relations
            if target != rel.parent or rel.parent_status != hier.ERROR:
                self.qm.log(message("MQL8022E", target=target, controlq=hier.CONTROLQ, reason=e.reason))
            if target == rel.parent:
                rel.parent_status = hier.ERROR
                self.retry_at = self.qm.clock.now() + RETRY
            return False
        return True

    def _own_proxies(self) -> set[tuple[str, bool]]:
        """What this queue manager needs from its relatives for itself: its subscriptions' topic
        strings and, in a cluster too, the proxy subscriptions cluster members placed here."""
        tree = self.ps.tree()
        own = {(s.topic, s.char_wildcards) for s in self.ps.subscriptions.values()
               if not s.options & C.MQSO_SCOPE_QMGR
               and topics.resolved(tree, cps.fixed_prefix(s.topic, s.char_wildcards), "SUBSCOPE") != C.MQSCOPE_QMGR}
        own.update(*self.qm.cluster.proxies.held.values())
        return own

    def start(self, conn: Conn) -> None:
        """At start: join the parent again (it answers with its ancestors), and ask each child for
        its proxy subscriptions (none are kept across a restart)."""
        rel = self.relations
        for child in sorted(rel.children):
            self._control(conn, child, hier.message(hier.HELLO, self.qm.name))
        self.joined = ""             # hierarchy_round joins the PARENT

    def round(self, conn: Conn) -> int:
        """Bring the hierarchy up to date: PARENT changed (leave the old parent, join the new one),
        a join retried, and each relative's proxy subscriptions. Returns the messages sent."""
        rel = self.relations
        sent = 0
        parent = self.qm.qmgr["PARENT"].strip()
        joined = self.joined
        retry = parent == rel.parent and rel.parent_status == hier.ERROR and \
            self.qm.clock.now() >= self.retry_at
        if parent != joined or retry:
            if joined and joined != parent:
                if rel.parent_status not in (hier.ERROR, hier.REFUSED):
                    self._control(conn, joined, hier.message(hier.LEAVE, self.qm.name))
                    sent += 1
                if joined not in rel.children:
                    rel.forget(joined)
            if parent != joined:
                rel.parent, rel.parent_status, rel.ancestors = parent, hier.STARTING, ()
                self.joined = parent
            if parent in rel.children or parent == self.qm.name:
                rel.parent_status = hier.REFUSED
                self.qm.log(message("MQL8023W", problem=f"{parent} cannot be the parent of {self.qm.name}: it would make "
                                                             "a loop in the hierarchy."))
            elif parent:
                want = self._wanted_by(parent)
                # A retry keeps ERROR until the join is put, so that the failure is logged once.
                if self._control(conn, parent, hier.message(hier.JOIN, self.qm.name, proxies=want)):
                    rel.sent[parent] = want
                    rel.parent_status = hier.STARTING
                sent += 1
        # Each relative's set again only when something it is made of may have changed.
        cl = self.qm.cluster
        stamp = (self.ps.gen, cl.gen, cl.repo.generation, cl.proxies.generation,
                 self.version)
        if (rel.parent or rel.children) and (sent or stamp != self.stamp):
            self.stamp = stamp
            for target, msg in rel.outgoing(self._own_proxies(), self.qm.name):
                sent += self._control(conn, target, msg)
        return sent

    def _wanted_by(self, relative: str) -> frozenset[tuple[str, bool]]:
        return self.relations.wanted(self._own_proxies()).get(relative, frozenset())

    def control_inbound(self, conn: Conn, data: bytes) -> None:
        """A control message from a parent or child (ValueError if it is not one)."""
        rel = self.relations
        msg = hier.decode(data)
        children = set(rel.children)
        before = rel.held.get(msg["from"], frozenset())
        answers, problem = hier.receive(rel, self.qm.name, msg)
        self.version += 1
        added = rel.held.get(msg["from"], frozenset()) - before
        if added:
            self.resend_retained(conn, msg["from"], added)
        if problem:
            self.qm.log(message("MQL8023W", problem=problem))
        for target, answer in answers:
            self._control(conn, target, answer)
        for child in rel.children - children:
            self.ps.journal(conn, SaveObject(PSCHILD_NS, child, json.dumps({"name": child})))
        for child in children - rel.children:
            self.ps.journal(conn, DropObject(PSCHILD_NS, child))

    def resend_retained(self, conn: Conn, relative: str, added: frozenset[tuple[str, bool]]) -> int:
        """A relative placed new proxy subscriptions here: send it the retained publications held
        here that they match (not those it sent), as a cluster member does for a new proxy."""
        sent = 0
        for topic, (md_bytes, body, _persistent) in sorted(self.ps.retained.items()):
            if self.ps.retained_origin.get(topic) == relative:
                continue
            if any(hier.matches(p, topic) for p in added):
                self.forward(conn, relative, topic, MD.from_bytes(md_bytes), body, kind=cps.RESENT)
                sent += 1
        return sent

    def status(self) -> list[tuple[str, str, int, int]]:
        """DISPLAY PUBSUB's PARENT and CHILD entries: (type, queue manager, MQPS_STATUS_*, proxy
        subscriptions it holds here)."""
        rel = self.relations
        up = [("PARENT", rel.parent, STATUS_CODE[rel.parent_status], len(rel.held.get(rel.parent, ())))] \
            if rel.parent else []
        return up + [("CHILD", c, F.MQPS_STATUS_ACTIVE, len(rel.held.get(c, ()))) for c in sorted(rel.children)]
