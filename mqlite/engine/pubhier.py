"""Publish/subscribe hierarchies, the engine's part (the rules are mqlite.pubsub.hierarchy's): the
parent and children of this queue manager, the control messages to their SYSTEM.INTER.QMGR.CONTROL,
and publications forwarded to their SYSTEM.INTER.QMGR.PUBS through ordinary name resolution (a
transmission queue or queue-manager alias named after each), inside the publisher's unit of work.
The publish/subscribe agent (server.psagent) drives it: it reads both queues and calls
``hierarchy_round``. Part of the engine's QueueManager (mqlite.engine.qmgr)."""
from __future__ import annotations

import json
from typing import Any

from mqlite.cluster import pubsub as cps
from mqlite.cmq import CMQCFC as F
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import MD, OD, PMO, pad
from mqlite.engine.core import C, Conn, qmgr_authority
from mqlite.engine.ports import DropObject, SaveObject
from mqlite.pubsub import hierarchy as hier
from mqlite.pubsub import topics

PSCHILD_NS = "PSCHILD"
RETRY = 5.0                     # seconds between joins while the parent cannot be reached
STATUS_CODE = {hier.STARTING: F.MQPS_STATUS_STARTING, hier.ACTIVE: F.MQPS_STATUS_ACTIVE,
               hier.ERROR: F.MQPS_STATUS_ERROR, hier.REFUSED: F.MQPS_STATUS_REFUSED}


class PubHierarchyMixin:
    name: str
    qmgr: Any
    clock: Any
    store: Any

    @property
    def hierarchy(self) -> hier.Relations:
        rel = self.__dict__.get("_hier")
        if rel is None:
            rel = self.__dict__["_hier"] = hier.Relations()
        return rel                                                        # type: ignore[no-any-return]

    def load_child(self, rec: dict[str, Any]) -> None:
        """Recovery: a child that joined (a parent remembers its children across restarts)."""
        self.hierarchy.children.add(rec["name"])

    def hierarchy_targets(self, topic: str, came_from: str, opts: int) -> list[str]:
        """The parent and children a publication on ``topic`` goes to (none with PUBSCOPE(QMGR) or
        MQPMO_SCOPE_QMGR)."""
        rel = self.__dict__.get("_hier")
        if rel is None or not rel.held or opts & C.MQPMO_SCOPE_QMGR or \
                topics.resolved(self._tree(), topic, "PUBSCOPE") == C.MQSCOPE_QMGR:  # type: ignore[attr-defined]
            return []
        return hier.forward_targets(rel, topic, came_from)

    def forward_to_relative(self, conn: Conn, target: str, topic: str, md: MD, body: bytes, opts: int = 0,
                            kind: str = "") -> None:
        """A publication to a relative's SYSTEM.INTER.QMGR.PUBS, in the connection's unit of work,
        with the publisher's context (``kind``: as cluster.pubsub's wrap)."""
        kind = kind or (cps.RETAINED if opts & C.MQPMO_RETAIN else cps.PUBLICATION)
        try:
            self._as_qmgr(conn, target, cps.PUBSQ, md.copy(), cps.wrap(topic, self.name, body, kind))
        except MQIError as e:
            self.log(f"MQL8021W: A publication on {topic} could not be sent to {target} "   # type: ignore[attr-defined]
                     f"(reason {e.reason}).")

    def _as_qmgr(self, conn: Conn, target: str, queue: str, md: MD, data: bytes) -> None:
        with qmgr_authority(conn):
            self.put1(conn, OD(ObjectName=pad(queue, 48), ObjectQMgrName=pad(target, 48)), md,  # type: ignore[attr-defined]
                      PMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_SET_ALL_CONTEXT), data)

    def _control(self, conn: Conn, target: str, msg: dict[str, Any]) -> bool:
        """A control message to ``target``'s SYSTEM.INTER.QMGR.CONTROL, persistent, in the agent's
        unit of work; False (the relation in ERROR, logged) when nothing leads there."""
        md = MD(Persistence=C.MQPER_PERSISTENT, Format=pad("MQSTR", 8))
        try:
            self._as_qmgr(conn, target, hier.CONTROLQ, md, hier.encode(msg))
        except MQIError as e:
            rel = self.hierarchy
            if target != rel.parent or rel.parent_status != hier.ERROR:
                self.log(f"MQL8022E: The publish/subscribe hierarchy connection to {target} failed: "  # type: ignore[attr-defined]
                         f"a message to its {hier.CONTROLQ} could not be put (reason {e.reason}). Define a "
                         f"transmission queue or queue-manager alias named {target}.")
            if target == rel.parent:
                rel.parent_status = hier.ERROR
                self.__dict__["_hier_retry"] = self.clock.now() + RETRY
            return False
        return True

    def _own_proxies(self) -> set[tuple[str, bool]]:
        """What this queue manager needs from its relatives for itself: its subscriptions' topic
        strings and, in a cluster too, the proxy subscriptions cluster members placed here."""
        tree = self._tree()                                                 # type: ignore[attr-defined]
        own = {(s.topic, s.char_wildcards) for s in self.subscriptions.values()   # type: ignore[attr-defined]
               if not s.options & C.MQSO_SCOPE_QMGR
               and topics.resolved(tree, cps.fixed_prefix(s.topic, s.char_wildcards), "SUBSCOPE") != C.MQSCOPE_QMGR}
        own.update(*self.cluster.proxies.held.values())                      # type: ignore[attr-defined]
        return own

    def hierarchy_start(self, conn: Conn) -> None:
        """At start: join the parent again (it answers with its ancestors), and ask each child for
        its proxy subscriptions (none are kept across a restart)."""
        rel = self.hierarchy
        for child in sorted(rel.children):
            self._control(conn, child, hier.message(hier.HELLO, self.name))
        self.__dict__["_hier_parent"] = ""             # hierarchy_round joins the PARENT

    def hierarchy_round(self, conn: Conn) -> int:
        """Bring the hierarchy up to date: PARENT changed (leave the old parent, join the new one),
        a join retried, and each relative's proxy subscriptions. Returns the messages sent."""
        rel = self.hierarchy
        sent = 0
        parent = self.qmgr["PARENT"].strip()
        joined = self.__dict__.get("_hier_parent")
        retry = parent == rel.parent and rel.parent_status == hier.ERROR and \
            self.clock.now() >= self.__dict__.get("_hier_retry", 0.0)
        if parent != joined or retry:
            if joined and joined != parent:
                if rel.parent_status not in (hier.ERROR, hier.REFUSED):
                    self._control(conn, joined, hier.message(hier.LEAVE, self.name))
                    sent += 1
                if joined not in rel.children:
                    rel.forget(joined)
            if parent != joined:
                rel.parent, rel.parent_status, rel.ancestors = parent, hier.STARTING, ()
                self.__dict__["_hier_parent"] = parent
            if parent in rel.children or parent == self.name:
                rel.parent_status = hier.REFUSED
                self.log(f"MQL8023W: {parent} cannot be the parent of {self.name}: "   # type: ignore[attr-defined]
                         "it would make a loop in the hierarchy.")
            elif parent:
                want = self._wanted_by(parent)
                # A retry keeps ERROR until the join is put, so that the failure is logged once.
                if self._control(conn, parent, hier.message(hier.JOIN, self.name, proxies=want)):
                    rel.sent[parent] = want
                    rel.parent_status = hier.STARTING
                sent += 1
        # Each relative's set again only when something it is made of may have changed.
        cl = self.cluster                                                  # type: ignore[attr-defined]
        stamp = (self._pubsub()["gen"], cl.gen, cl.repo.generation, cl.proxies.generation,  # type: ignore[attr-defined]
                 self.__dict__.get("_hier_ver", 0))
        if (rel.parent or rel.children) and (sent or stamp != self.__dict__.get("_hier_stamp")):
            self.__dict__["_hier_stamp"] = stamp
            for target, msg in rel.outgoing(self._own_proxies(), self.name):
                sent += self._control(conn, target, msg)
        return sent

    def _wanted_by(self, relative: str) -> frozenset[tuple[str, bool]]:
        return self.hierarchy.wanted(self._own_proxies()).get(relative, frozenset())

    def control_inbound(self, conn: Conn, data: bytes) -> None:
        """A control message from a parent or child (ValueError if it is not one)."""
        rel = self.hierarchy
        msg = hier.decode(data)
        children = set(rel.children)
        before = rel.held.get(msg["from"], frozenset())
        answers, problem = hier.receive(rel, self.name, msg)
        self.__dict__["_hier_ver"] = self.__dict__.get("_hier_ver", 0) + 1
        added = rel.held.get(msg["from"], frozenset()) - before
        if added:
            self.resend_retained_to_relative(conn, msg["from"], added)
        if problem:
            self.log(f"MQL8023W: {problem}")                                # type: ignore[attr-defined]
        for target, answer in answers:
            self._control(conn, target, answer)
        for child in rel.children - children:
            self._journal(conn, SaveObject(PSCHILD_NS, child, json.dumps({"name": child})))   # type: ignore[attr-defined]
        for child in children - rel.children:
            self._journal(conn, DropObject(PSCHILD_NS, child))             # type: ignore[attr-defined]

    def resend_retained_to_relative(self, conn: Conn, relative: str, added: frozenset[tuple[str, bool]]) -> int:
        """A relative placed new proxy subscriptions here: send it the retained publications held
        here that they match (not those it sent), as a cluster member does for a new proxy."""
        sent = 0
        for topic, (md_bytes, body, _persistent) in sorted(self.retained.items()):   # type: ignore[attr-defined]
            if self.retained_origin.get(topic) == relative:                           # type: ignore[attr-defined]
                continue
            if any(hier.matches(p, topic) for p in added):
                self.forward_to_relative(conn, relative, topic, MD.from_bytes(md_bytes), body, kind=cps.RESENT)
                sent += 1
        return sent

    def hierarchy_status(self) -> list[tuple[str, str, int, int]]:
        """DISPLAY PUBSUB's PARENT and CHILD entries: (type, queue manager, MQPS_STATUS_*, proxy
        subscriptions it holds here)."""
        rel = self.__dict__.get("_hier")
        if rel is None:
            return []
        up = [("PARENT", rel.parent, STATUS_CODE[rel.parent_status], len(rel.held.get(rel.parent, ())))] \
            if rel.parent else []
        return up + [("CHILD", c, F.MQPS_STATUS_ACTIVE, len(rel.held.get(c, ()))) for c in sorted(rel.children)]
