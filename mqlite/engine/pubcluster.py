"""Publish/subscribe across a cluster, the engine's part (the decisions are mqlite.cluster.pubsub's):
the topic tree with the clustered topics other members define, publications forwarded to other
members' SYSTEM.INTER.QMGR.PUBS over the cluster channels (inside the publisher's unit of work),
publications arriving from there delivered here, and the proxy subscriptions this queue manager's
own subscriptions need. Part of the engine's QueueManager (mqlite.engine.qmgr)."""
from __future__ import annotations

from typing import Any

from mqlite.cluster import pubsub as cps
from mqlite.cluster.state import STATE_CODE
from mqlite.cmq import CMQCFC as F
from mqlite.cmq.structs import MD, PMO
from mqlite.engine.core import C, Conn, Handle
from mqlite.engine.resolve import REMOTE, Resolved
from mqlite.objects.attrs import TABLE
from mqlite.objects.model import MQObject
from mqlite.pubsub import topics


def _node(ct: cps.ClusterTopic) -> MQObject:
    """A clustered topic another member defines, as a node of this queue manager's topic tree."""
    obj = MQObject("TOPIC", ct.name, TABLE.defaults("TOPIC"))
    obj.attrs.update({k: v for k, v in ct.attrs.items() if k in obj.attrs and v is not None})
    obj.attrs["CLUSTER"] = ct.cluster
    return obj


class PubClusterMixin:
    name: str
    objects: dict[str, dict[str, Any]]
    cluster: Any
    queues: dict[str, Any]
    hooks: Any

    def _tree(self) -> dict[str, Any]:
        """The topic tree's administrative nodes: local topic objects and the clustered topics of
        the clusters this queue manager is in (kept until a definition or the cache changes)."""
        cl = self.cluster
        stamp = (cl.gen, cl.repo.generation)
        memo = self.__dict__.get("_tree_memo")
        if memo is not None and memo[0] == stamp:
            return memo[1]                   # type: ignore[no-any-return]
        local = topics.by_string(self.objects["TOPIC"].values())
        nodes = cps.tree_nodes(local, cl.known_topics(), _node)
        self.__dict__["_tree_memo"] = (stamp, nodes)
        return nodes

    def clustered_topic(self, topic: str) -> cps.ClusterTopic | None:
        known = self.cluster.known_topics()
        return cps.clustered(self._tree(), known, topic) if known else None

    def cluster_forwards(self, topic: str, came_from: str, opts: int) -> tuple[cps.ClusterTopic | None, list[str]]:
        """The members a publication on ``topic`` goes to from here (none with PUBSCOPE(QMGR) or
        MQPMO_SCOPE_QMGR)."""
        ct = self.clustered_topic(topic)
        if ct is None or opts & C.MQPMO_SCOPE_QMGR or \
                topics.resolved(self._tree(), topic, "PUBSCOPE") == C.MQSCOPE_QMGR:
            return ct, []
        use = self.__dict__.setdefault("_host_use", {})
        return ct, cps.forward_to(ct, self.name, topic, came_from, self.cluster.proxies, self._member_status, use)

    def _member_status(self, qmgr: str) -> int:
        channel = self.cluster.route(qmgr)
        if channel is None:
            return F.MQCHS_STOPPED
        return STATE_CODE.get(self.hooks.channel_state(channel), F.MQCHS_INACTIVE)

    def forward_publication(self, conn: Conn, target: str, topic: str, md: MD, body: bytes) -> None:
        """One copy of a publication to ``target``'s SYSTEM.INTER.QMGR.PUBS, through the cluster
        transmission queue, in the connection's unit of work."""
        channel = self.cluster.route(target)
        if channel is None:
            self.log(f"MQL8021W: A publication on {topic} could not be sent to {target}: "  # type: ignore[attr-defined]
                     "no cluster channel leads there.")
            return
        xq = self.cluster.xmitq_now(channel)
        res = Resolved(REMOTE, xq, cps.PUBSQ, target, (xq,), cps.PUBSQ, target, channel)
        h = Handle(0, xq, None, C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT, res, self.queues[xq])
        self._put(conn, h, md.copy(), PMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_SET_ALL_CONTEXT),  # type: ignore[attr-defined]
                  cps.wrap(topic, self.name, body), owned=True)

    def publish_inbound(self, conn: Conn, md: MD, data: bytes) -> int:
        """A publication another member forwarded (from SYSTEM.INTER.QMGR.PUBS, under the agent's
        syncpoint): delivered to the subscriptions here and, at a topic host, forwarded on.
        Returns how many copies went out."""
        topic, origin, body = cps.unwrap(data)
        return self.distribute(conn, topic, md, body, C.MQPMO_SYNCPOINT, came_from=origin)  # type: ignore[attr-defined, no-any-return]

    def subscriptions_changed(self) -> None:
        """A subscription was made or ended: in a cluster with clustered topics, the repository
        manager brings the proxy subscriptions up to date at once."""
        if self.cluster.known_topics():
            self.hooks.object_changed(None, "SUB", "")

    def wanted_proxies(self) -> dict[tuple[str, str], set[tuple[str, bool]]]:
        """The proxy subscriptions this queue manager's subscriptions need, by (target, cluster)."""
        cl = self.cluster
        known = cl.known_topics()
        if not known:
            return {}
        subs = {(s.topic, s.char_wildcards) for s in self.subscriptions.values()  # type: ignore[attr-defined]
                if not s.options & C.MQSO_SCOPE_QMGR}
        return cps.proxy_targets(self._tree(), known, self.name, cl.repo.members, subs)
