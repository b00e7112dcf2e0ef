"""Publish/subscribe across a cluster, the engine's part (the decisions are mqlite.cluster.pubsub's):
the topic tree with the clustered topics other members define, publications forwarded to other
members' SYSTEM.INTER.QMGR.PUBS over the cluster channels (inside the publisher's unit of work),
publications arriving from there delivered here, and the proxy subscriptions this queue manager's
own subscriptions need. ``ClusterTopics`` is the queue manager's ``qm.pubcluster``, a ``Relay`` of
``PubSub``."""
from __future__ import annotations

from typing import Any

from mqlite.catalogue import message
from mqlite.cluster import pubsub as cps
from mqlite.cluster.state import STATE_CODE
from mqlite.cmq import CMQCFC as F
from mqlite.cmq.structs import MD, PMO
from mqlite.engine.core import C, Conn, Handle
from mqlite.engine.pubhier import Hierarchy
from mqlite.engine.pubsub import Forward, PubSub, PubSubHost
from mqlite.engine.resolve import REMOTE, Resolved
from mqlite.pubsub import topics


class ClusterTopics:
    """Cluster topics for one queue manager; ``host_use`` is the workload algorithm's memory of
    which topic host it sent each topic's publications to."""

    def __init__(self, qm: PubSubHost, ps: PubSub, hier: Hierarchy) -> None:
        self.qm = qm
        self.ps = ps
        self.hier = hier
        self.host_use: dict[Any, Any] = {}

    def targets(self, topic: str, came_from: str, opts: int) -> list[tuple[Forward, str]]:
        if not self.qm.cluster.known_topics():
            return []
        return [(self.forward, m) for m in self.forwards(topic, came_from, opts)[1]]

    def clustered_topic(self, topic: str) -> cps.ClusterTopic | None:
        known = self.qm.cluster.known_topics()
        return cps.clustered(self.ps.tree(), known, topic) if known else None

    def forwards(self, topic: str, came_from: str, opts: int) -> tuple[cps.ClusterTopic | None, list[str]]:
        """The members a publication on ``topic`` goes to from here (none with PUBSCOPE(QMGR) or
        MQPMO_SCOPE_QMGR)."""
        ct = self.clustered_topic(topic)
        if ct is None or opts & C.MQPMO_SCOPE_QMGR or \
                topics.resolved(self.ps.tree(), topic, "PUBSCOPE") == C.MQSCOPE_QMGR:
            return ct, []
        use = self.host_use
        if came_from and came_from in self.hier.relations.relatives():
            came_from = ""   # from a hierarchy relative: it enters the cluster here, as if published here
        return ct, cps.forward_to(ct, self.qm.name, topic, came_from, self.qm.cluster.proxies, self._member_status, use)

    def _member_status(self, qmgr: str) -> int:
        channel = self.qm.cluster.route(qmgr)
        if channel is None:
            return F.MQCHS_STOPPED
        return STATE_CODE.get(self.qm.hooks.channel_state(channel), F.MQCHS_INACTIVE)

    def forward(self, conn: Conn, target: str, topic: str, md: MD, body: bytes, opts: int = 0,
                            kind: str = "") -> None:
        """One copy of a publication to ``target``'s SYSTEM.INTER.QMGR.PUBS, through the cluster
        transmission queue, in the connection's unit of work (``opts``: the publication's
        MQPMO options, MQPMO_RETAIN marking it one to retain; ``kind``: cluster.pubsub's)."""
        kind = kind or (cps.RETAINED if opts & C.MQPMO_RETAIN else cps.PUBLICATION)
        channel = self.qm.cluster.route(target)
        if channel is None:
            self.qm.log(message("MQL8026W", topic=topic, target=target))
            return
        xq = self.qm.routing.cluster_xmitq(channel)
        res = Resolved(REMOTE, xq, cps.PUBSQ, target, (xq,), cps.PUBSQ, target, channel)
        h = Handle(0, xq, None, C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT, res, self.qm.queues[xq])
        h.dest = self.qm.destination(res)
        envelope = md.copy()
        envelope.Format = cps.FORMAT
        self.qm.put_on_handle(conn, h, envelope, PMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_SET_ALL_CONTEXT),
                     cps.wrap(topic, self.qm.name, body, kind, md.Format), owned=True)

    def publish_inbound(self, conn: Conn, md: MD, data: bytes) -> int:
        """A publication another member forwarded (from SYSTEM.INTER.QMGR.PUBS, under the agent's
        syncpoint): delivered to the subscriptions here and, at a topic host, forwarded on.
        Returns how many copies went out."""
        topic, origin, kind, fmt, body = cps.unwrap(data)
        if fmt:
            md.Format = fmt                     # (the publisher's, from its envelope)
        if kind == cps.RESENT:
            held = self.ps.retained.get(topic)
            if held is not None and MD.from_bytes(held[0]).MsgId == md.MsgId:
                return 0                     # held already: its subscribers here have had it
            self.ps.retain(conn, topic, md, body, origin)
            sent = 0
            for sub in list(self.ps.subscriptions.values()):
                if sub.matches(topic) and not sub.options & (C.MQSO_NEW_PUBLICATIONS_ONLY
                                                             | C.MQSO_PUBLICATIONS_ON_REQUEST):
                    self.ps.deliver(conn, sub, topic, md, body, syncpoint=True, retained=True)
                    sent += 1
            # In a hierarchy the proxy that asked for it may stand for queue managers further on.
            for r in self.hier.relatives_for(topic, origin, 0):
                self.hier.forward(conn, r, topic, md, body, kind=cps.RESENT)
            return sent
        opts = C.MQPMO_SYNCPOINT
        if kind == cps.RETAINED:
            self.ps.retain(conn, topic, md, body, origin)
            opts |= C.MQPMO_RETAIN
        return self.ps.distribute(conn, topic, md, body, opts, came_from=origin)

    def resend_retained(self, conn: Conn, origin: str, cluster: str, added: frozenset[tuple[str, bool]]) -> int:
        """``origin`` placed new proxy subscriptions here: send it the retained publications they
        match, those published here (at a topic host, any it holds), as MQ does for a new proxy."""
        sent = 0
        for topic, (md_bytes, body, _persistent) in sorted(self.ps.retained.items()):
            ct = self.clustered_topic(topic)
            if ct is None or ct.cluster != cluster or origin == self.ps.retained_origin.get(topic):
                continue
            mine = topic not in self.ps.retained_origin or (
                ct.route == F.MQCLROUTE_TOPIC_HOST and self.qm.name in ct.hosts)
            if mine and any(cps.sub_matches(t, ch, topic) for t, ch in added):
                self.forward(conn, origin, topic, MD.from_bytes(md_bytes), body, kind=cps.RESENT)
                sent += 1
        return sent

    def wanted_proxies(self) -> dict[tuple[str, str], set[tuple[str, bool]]]:
        """The proxy subscriptions this queue manager's subscriptions need, by (target, cluster)."""
        cl = self.qm.cluster
        known = cl.known_topics()
        if not known:
            return {}
        subs = {(s.topic, s.char_wildcards) for s in self.ps.subscriptions.values()
                if not s.options & C.MQSO_SCOPE_QMGR}
        # A queue manager in a hierarchy too joins the two: its relatives' proxies stand for
        # subscribers it serves, so they go into the cluster beside its own.
        subs.update(*self.hier.relations.held.values())
        return cps.proxy_targets(self.ps.tree(), known, self.qm.name, cl.repo.members, subs)
