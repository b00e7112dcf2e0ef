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
        if came_from and came_from in self.hierarchy.relatives():                 # type: ignore[attr-defined]
            came_from = ""   # from a hierarchy relative: it enters the cluster here, as if published here
        return ct, cps.forward_to(ct, self.name, topic, came_from, self.cluster.proxies, self._member_status, use)

    def _member_status(self, qmgr: str) -> int:
        channel = self.cluster.route(qmgr)
        if channel is None:
            return F.MQCHS_STOPPED
        return STATE_CODE.get(self.hooks.channel_state(channel), F.MQCHS_INACTIVE)

    def forward_publication(self, conn: Conn, target: str, topic: str, md: MD, body: bytes, opts: int = 0,
                            kind: str = "") -> None:
        """One copy of a publication to ``target``'s SYSTEM.INTER.QMGR.PUBS, through the cluster
        transmission queue, in the connection's unit of work (``opts``: the publication's
        MQPMO options, MQPMO_RETAIN marking it one to retain; ``kind``: cluster.pubsub's)."""
        kind = kind or (cps.RETAINED if opts & C.MQPMO_RETAIN else cps.PUBLICATION)
        channel = self.cluster.route(target)
        if channel is None:
            self.log(f"MQL8021W: A publication on {topic} could not be sent to {target}: "  # type: ignore[attr-defined]
                     "no cluster channel leads there.")
            return
        xq = self.cluster_xmitq(channel)  # type: ignore[attr-defined]
        res = Resolved(REMOTE, xq, cps.PUBSQ, target, (xq,), cps.PUBSQ, target, channel)
        h = Handle(0, xq, None, C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT, res, self.queues[xq])
        self._put(conn, h, md.copy(), PMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_SET_ALL_CONTEXT),  # type: ignore[attr-defined]
                  cps.wrap(topic, self.name, body, kind), owned=True)

    def publish_inbound(self, conn: Conn, md: MD, data: bytes) -> int:
        """A publication another member forwarded (from SYSTEM.INTER.QMGR.PUBS, under the agent's
        syncpoint): delivered to the subscriptions here and, at a topic host, forwarded on.
        Returns how many copies went out."""
        topic, origin, kind, body = cps.unwrap(data)
        if kind == cps.RESENT:
            held = self.retained.get(topic)                                      # type: ignore[attr-defined]
            if held is not None and MD.from_bytes(held[0]).MsgId == md.MsgId:
                return 0                     # held already: its subscribers here have had it
            self._retain(conn, topic, md, body, origin)                          # type: ignore[attr-defined]
            sent = 0
            for sub in list(self.subscriptions.values()):                        # type: ignore[attr-defined]
                if sub.matches(topic) and not sub.options & (C.MQSO_NEW_PUBLICATIONS_ONLY
                                                             | C.MQSO_PUBLICATIONS_ON_REQUEST):
                    self._deliver(conn, sub, topic, md, body, syncpoint=True, retained=True)  # type: ignore[attr-defined]
                    sent += 1
            # In a hierarchy the proxy that asked for it may stand for queue managers further on.
            for r in self.hierarchy_targets(topic, origin, 0):                    # type: ignore[attr-defined]
                self.forward_to_relative(conn, r, topic, md, body, kind=cps.RESENT)  # type: ignore[attr-defined]
            return sent
        opts = C.MQPMO_SYNCPOINT
        if kind == cps.RETAINED:
            self._retain(conn, topic, md, body, origin)                          # type: ignore[attr-defined]
            opts |= C.MQPMO_RETAIN
        return self.distribute(conn, topic, md, body, opts, came_from=origin)   # type: ignore[attr-defined, no-any-return]

    def resend_retained(self, conn: Conn, origin: str, cluster: str, added: frozenset[tuple[str, bool]]) -> int:
        """``origin`` placed new proxy subscriptions here: send it the retained publications they
        match, those published here (at a topic host, any it holds), as MQ does for a new proxy."""
        sent = 0
        for topic, (md_bytes, body, _persistent) in sorted(self.retained.items()):   # type: ignore[attr-defined]
            ct = self.clustered_topic(topic)
            if ct is None or ct.cluster != cluster or origin == self.retained_origin.get(topic):  # type: ignore[attr-defined]
                continue
            mine = topic not in self.retained_origin or (                       # type: ignore[attr-defined]
                ct.route == F.MQCLROUTE_TOPIC_HOST and self.name in ct.hosts)
            if mine and any(cps.sub_matches(t, ch, topic) for t, ch in added):
                self.forward_publication(conn, origin, topic, MD.from_bytes(md_bytes), body, kind=cps.RESENT)
                sent += 1
        return sent

    def pubsub_status(self) -> tuple[int, int, int]:
        """DISPLAY PUBSUB's TYPE(LOCAL) figures: (MQPS_STATUS_* from PSMODE, subscriptions here with
        the proxy subscriptions held for other members, topic nodes in use: administrative,
        subscribed to, retained, and the levels above them)."""
        mode = self.qmgr["PSMODE"]                                         # type: ignore[attr-defined]
        status = {C.MQPSM_DISABLED: F.MQPS_STATUS_INACTIVE, C.MQPSM_COMPAT: F.MQPS_STATUS_COMPAT}.get(
            mode, F.MQPS_STATUS_ACTIVE)
        proxies = sum(len(v) for v in self.cluster.proxies.held.values())
        proxies += sum(len(v) for v in self.hierarchy.held.values())         # type: ignore[attr-defined]
        used = {s.topic for s in self.subscriptions.values()} | set(self.retained) | set(self._tree())  # type: ignore[attr-defined]
        nodes = {n for t in used for n in topics.ancestors(t)}
        return status, len(self.subscriptions) + proxies, len(nodes)         # type: ignore[attr-defined]

    def subscriptions_changed(self) -> None:
        """A subscription was made or ended: in a cluster with clustered topics, the repository
        manager brings the proxy subscriptions up to date at once (and a hierarchy's agent at its
        next round, which looks at this count)."""
        self._pubsub()["gen"] += 1                                        # type: ignore[attr-defined]
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
        # A queue manager in a hierarchy too joins the two: its relatives' proxies stand for
        # subscribers it serves, so they go into the cluster beside its own.
        subs.update(*self.hierarchy.held.values())                               # type: ignore[attr-defined]
        return cps.proxy_targets(self._tree(), known, self.name, cl.repo.members, subs)
