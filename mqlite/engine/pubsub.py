"""Publish/subscribe in the engine: MQOPEN of a topic and MQPUT as a publication, its copies to
the matching subscriptions, retained publications, and the state they share. ``PubSub`` is the
queue manager's ``qm.pubsub``; it holds that state and reaches the rest of the queue manager
through ``PubSubHost``, the narrow view declared here. Subscriptions are made, resumed, altered and
ended in mqlite.engine.subscribe (``qm.subs``); administrative ones in pubadmin; publications go on
to other queue managers through the relays (``Relay``) that pubcluster and pubhier register.

A subscription names a topic string (with topic-based or character-based wildcards) and a
destination queue: one the application opened, or a *managed* queue the queue manager makes from
the topic's model queue (MNDURMDL: temporary dynamic, gone with the subscription; MDURMDL: permanent
dynamic for a durable one). A publication is delivered to every matching subscription's queue as
a copy with the subscription's SubCorrelId as CorrelId and the properties MQ sets (MQTopicString,
MQSubUserData, MQIsRetained) in an ``mqps`` folder, inside the publisher's unit of work when it
published under syncpoint. Publications go with the queue manager's authority: the publisher needs
``pub`` on the topic, the subscriber ``sub`` (``sub`` or ``resume`` to resume a subscription it owns).
A copy's identity context is the subscription's (its user, or what MQSO_SET_IDENTITY_CONTEXT gave),
its origin context the publisher's. A subscription belongs to its user (MQSO_FIXED_USERID, the
default for MQSUB: another user gets 2434) unless MQSO_ANY_USERID (VARUSER(ANY), the default for
DEFINE SUB) lets another user with ``sub`` take it over.
Durable subscriptions and persistent retained publications are kept in the store (namespaces SUB
and RETAINED) and come back at restart; non-durable ones end with MQCLOSE or the connection.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

from mqlite.catalogue import message
from mqlite.cluster import pubsub as cps
from mqlite.cluster.state import ClusterState
from mqlite.cmq.errors import MQIError
from mqlite.cmq.packedmd import md_for_copy
from mqlite.cmq.structs import MD, OD, PMO, pad, text
from mqlite.engine.arrivals import Arrivals
from mqlite.engine.authority import Authority
from mqlite.engine.clock import Clock, IdGenerator
from mqlite.engine.core import C, Conn, Destination, Handle, qmgr_authority
from mqlite.engine.deadletter import dead_letter_opened
from mqlite.engine.hooks import Hooks
from mqlite.engine.message import Message
from mqlite.engine.ports import DropObject, Journal, JournalOp, SaveObject
from mqlite.engine.queue import QueueState
from mqlite.engine.resolve import LOCAL, Resolved
from mqlite.engine.route import Routing
from mqlite.objects.attrs import TABLE
from mqlite.objects.model import MQObject
from mqlite.props import rfh2
from mqlite.props.deliver import Shared
from mqlite.props.values import Properties
from mqlite.pubsub import delivery, topics
from mqlite.pubsub.matching import in_admin_branch
from mqlite.pubsub.subscription import Subscription

SUB_NS, RETAINED_NS = "SUB", "RETAINED"
_TOPIC_OPEN = (C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING | C.MQOO_ALTERNATE_USER_AUTHORITY | C.MQOO_PASS_IDENTITY_CONTEXT
               | C.MQOO_PASS_ALL_CONTEXT | C.MQOO_SET_IDENTITY_CONTEXT | C.MQOO_SET_ALL_CONTEXT)


def cluster_node(ct: cps.ClusterTopic) -> MQObject:
    """A clustered topic another member defines, as a node of this queue manager's topic tree."""
    obj = MQObject("TOPIC", ct.name, TABLE.defaults("TOPIC"))
    obj.attrs.update({k: v for k, v in ct.attrs.items() if k in obj.attrs and v is not None})
    obj.attrs["CLUSTER"] = ct.cluster
    return obj


class PubSubHost(Protocol):
    """What publish/subscribe needs of its queue manager (``engine.qmgr.QueueManager`` is one):
    its definitions and state, and the MQI steps a copy of a publication goes through."""
    name: str
    objects: dict[str, dict[str, MQObject]]
    qmgr: MQObject
    store: Journal
    clock: Clock
    ids: IdGenerator
    conns: dict[int, Conn]
    queues: dict[str, QueueState]
    cluster: ClusterState
    hooks: Hooks
    arrivals: Arrivals

    def message_available(self, queue: str) -> None: ...

    def queue(self, name: str) -> MQObject | None: ...

    def log(self, text: str, explanation: str = "") -> None: ...

    @property
    def authority(self) -> Authority: ...

    def open(self, conn: Conn, od: OD, options: int) -> Handle: ...

    def handle(self, conn: Conn, hobj: int) -> Handle: ...

    def new_handle(self, conn: Conn, name: str, obj: MQObject | None, options: int,
                   res: Resolved | None, qs: QueueState | None) -> Handle: ...

    def resolve(self, conn: Conn, name: str, qmname: str, options: int) -> Resolved: ...

    def instantiate_model(self, conn: Conn | None, od: OD, model: MQObject) -> MQObject: ...

    def in_use(self, name: str) -> bool: ...

    def remove_object(self, obj: MQObject, purge: bool = True) -> None: ...

    def put1(self, conn: Conn, od: OD, md: MD, pmo: PMO, body: bytes) -> int: ...

    def put_on_handle(self, conn: Conn, h: Handle, md: MD, pmo: PMO, body: bytes, owned: bool = False) -> int: ...

    def destination(self, res: Resolved | None) -> Destination: ...

    def check_put(self, conn: Conn, res: Resolved, qs: QueueState, body_len: int, header_len: int,
                  syncpoint: bool, segmentable: bool = False) -> MQObject: ...

    def need_room(self, body_len: int) -> None: ...

    def enqueue(self, conn: Conn, qs: QueueState, msg: Message, syncpoint: bool, now: float) -> None: ...

    def set_context(self, conn: Conn, d: dict[str, Any], opts: int, now: float) -> None: ...

    def fill_reply_to(self, d: dict[str, Any]) -> None: ...

    def commit(self, conn: Conn) -> None: ...

    def backout(self, conn: Conn) -> None: ...

    def backout_since(self, conn: Conn, mark: int) -> None: ...

    def put(self, conn: Conn, hobj: int, md: MD, pmo: PMO, body: bytes, owned: bool = False) -> int: ...

    def close(self, conn: Conn, hobj: int, options: int = 0) -> None: ...

    def report(self, conn: Conn | None, md: MD, data: bytes, kind: str, feedback: int = C.MQFB_NONE,
               queue: str | None = None) -> None: ...

    @property
    def routing(self) -> Routing: ...


Forward = Callable[[Conn, str, str, MD, bytes, int], None]
# A local queue a subscription's copies go to: its resolution, state and definition, the longest
# message the path takes (-1: a definition on it inhibits puts), the first definition's DEFPRTY.
CopyDestination = tuple[Resolved, QueueState, MQObject, int, int]


class Relay(Protocol):
    """Where a publication goes beyond this queue manager (cluster members, hierarchy relatives):
    ``targets`` gives (how to forward, to whom) for one publication."""

    def targets(self, topic: str, came_from: str, opts: int) -> list[tuple[Forward, str]]: ...


class PubSub:
    """Publish/subscribe's state and publications: the subscriptions (``subscriptions``, by
    identifier), the retained publications and where they came from, and what is kept to make
    publishing cheap. ``gen`` counts the changes to the subscriptions (``subscriptions_changed``);
    the topics each matches (``_matched``) and the soonest SubExpiry (``_expiry``) hold while it
    stays; ``_dests`` holds each destination queue's resolution while no definition changes
    (cluster.gen); ``_heads``, the MQRFH2 put in front of data that has none of its own;
    ``_tree_memo``, the topic tree while neither the definitions nor the cluster cache change, with
    the attributes resolved in it."""

    def __init__(self, qm: PubSubHost) -> None:
        self.qm = qm
        self.subscriptions: dict[str, Subscription] = {}
        self.retained: dict[str, tuple[bytes, bytes, bool]] = {}
        self.retained_origin: dict[str, str] = {}     # the member a retained publication came from
        self.relays: list[Relay] = []
        self.gen = 0
        self._matched: tuple[int, dict[str, list[Subscription]]] = (0, {})
        self._expiry: tuple[int, float | None] = (-1, None)
        self._dests: dict[tuple[str, str], tuple[int, CopyDestination | None]] = {}
        self._heads: dict[tuple[Any, ...], tuple[bytes, int, int, bytes]] = {}
        self._tree_memo: tuple[tuple[int, int], dict[str, Any], dict[tuple[str, str], Any]] | None = None

    def load(self, ns: str, rec: dict[str, Any]) -> None:
        """Recovery: a durable subscription or a persistent retained publication."""
        if ns == SUB_NS:
            sub = Subscription(**rec)
            self.subscriptions[sub.subid] = sub
            self.gen += 1
        elif ns == RETAINED_NS:
            self.retained[rec["topic"]] = (bytes.fromhex(rec["md"]), bytes.fromhex(rec["body"]), True)
            if rec.get("origin"):
                self.retained_origin[rec["topic"]] = rec["origin"]

    def tree(self) -> dict[str, Any]:
        """The topic tree's administrative nodes: local topic objects and the clustered topics of
        the clusters this queue manager is in (kept until a definition or the cache changes)."""
        cl = self.qm.cluster
        stamp = (cl.gen, cl.repo.generation)
        memo = self._tree_memo
        if memo is not None and memo[0] == stamp:
            return memo[1]
        local = topics.by_string(self.qm.objects["TOPIC"].values())
        nodes = cps.tree_nodes(local, cl.known_topics(), cluster_node)
        self._tree_memo = (stamp, nodes, {})
        return nodes

    def resolved(self, topic: str, attr: str) -> Any:
        """``attr`` at ``topic`` (topics.resolved), kept while the tree stays the same."""
        nodes = self.tree()
        assert self._tree_memo is not None          # (tree() made it)
        known = self._tree_memo[2]
        key = (topic, attr)
        if key in known:
            return known[key]
        if len(known) >= 4096:
            known.clear()
        value = known[key] = topics.resolved(nodes, topic, attr)
        return value

    def subscriptions_changed(self) -> None:
        """A subscription was made or ended: in a cluster with clustered topics, the repository
        manager brings the proxy subscriptions up to date at once (and a hierarchy's agent at its
        next round, which looks at ``gen``)."""
        self.gen += 1
        if self.qm.cluster.known_topics():
            self.qm.hooks.object_changed(None, "SUB", "")

    def topic_string(self, object_name: str, object_string: str) -> str:
        """The topic string an MQOD or MQSD names: the topic object's TOPICSTR, then the
        ObjectString after a '/' (2085 for an unknown object, 2425 for neither)."""
        base = ""
        if object_name:
            obj = self.qm.objects["TOPIC"].get(object_name)
            if obj is None:
                raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
            base = obj["TOPICSTR"]
        if not base and not object_string:
            raise MQIError(C.MQRC_TOPIC_STRING_ERROR)
        if base and object_string:
            return base.rstrip("/") + "/" + object_string
        return base or object_string

    def admin_object(self, topic: str) -> Any:
        return topics.admin_node(self.tree(), topic)

    def check_enabled(self) -> None:
        """2531 while ALTER QMGR PSMODE(DISABLED) stops the publish/subscribe engine."""
        if self.qm.qmgr["PSMODE"] == C.MQPSM_DISABLED:
            raise MQIError(C.MQRC_PUBSUB_INHIBITED)

    # --- MQOPEN of a topic ------------------------------------------------------------------------
    def open_topic(self, conn: Conn, od: OD, options: int) -> Handle:
        if options & ~_TOPIC_OPEN or not options & C.MQOO_OUTPUT:
            raise MQIError(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        self.check_enabled()
        topic = self.topic_string(text(od.ObjectName), od.get_vs("ObjectString").decode("utf-8", "replace"))
        if in_admin_branch(topic) and conn.appl_type != C.MQAT_QMGR:
            raise MQIError(C.MQRC_ADMIN_TOPIC_STRING_ERROR, detail=f"{topic}: only the queue manager publishes there")
        admin = self.admin_object(topic)
        self.qm.authority.authorize_open(conn, "TOPIC", admin.name, options, text(od.AlternateUserId))
        h = self.qm.new_handle(conn, topic, admin, options, None, None)
        h.topic = topic
        return h

    # --- MQPUT to a topic: a publication ---------------------------------------------------------
    def publish(self, conn: Conn, h: Handle, md: MD, pmo: PMO, body: bytes) -> int:
        topic = h.topic
        assert topic is not None
        if self.resolved(topic, "PUB") == C.MQTA_PUB_INHIBITED:
            raise MQIError(C.MQRC_PUT_INHIBITED)
        opts = pmo.Options
        if md.Persistence == C.MQPER_PERSISTENCE_AS_TOPIC_DEF:
            md.Persistence = self.resolved(topic, "DEFPSIST")
        if md.Priority == C.MQPRI_PRIORITY_AS_TOPIC_DEF:
            md.Priority = self.resolved(topic, "DEFPRTY")
        elif md.Priority > 9:
            md.Priority = 9
        elif md.Priority < -1:
            raise MQIError(C.MQRC_PRIORITY_ERROR)
        if md.Persistence not in (0, 1):
            raise MQIError(C.MQRC_PERSISTENCE_ERROR)
        if not md.MsgId.strip(b"\0") or opts & C.MQPMO_NEW_MSG_ID:
            md.MsgId = self.qm.ids.next()
        d = md.__dict__
        self.qm.set_context(conn, d, opts, self.qm.clock.now())
        self.qm.fill_reply_to(d)
        if opts & C.MQPMO_SUPPRESS_REPLYTO:
            # The subscribers' copies (and a retained one) carry no reply-to queue; the
            # publisher's own MQMD keeps it.
            md = md.copy()
            md.__dict__.update(ReplyToQ=pad("", 48), ReplyToQMgr=pad("", 48))
        if md.CodedCharSetId == C.MQCCSI_Q_MGR:
            # The copies carry the queue manager's CCSID, as MQPUT to a queue stores it; the
            # publisher's MQMD keeps what it gave (CodedCharSetId is an input field).
            md = md.copy()
            md.CodedCharSetId = self.qm.qmgr["CCSID"]
        reason = self.distribute(conn, topic, md, body, opts, hconn=conn.hconn)
        if opts & C.MQPMO_RETAIN:           # (a publication that failed is not retained either)
            self.retain(conn, topic, md, body)
        return reason

    def distribute(self, conn: Conn, topic: str, md: MD, body: bytes, opts: int, hconn: int = 0,
                   came_from: str = "") -> int:
        """A publication's copies: to every matching subscription here, to the other members of a
        cluster that need it (mqlite.cluster.pubsub) and to the parent and children that do
        (mqlite.pubsub.hierarchy), in one unit of work. ``came_from``: the queue manager that
        forwarded it here ('' when published here)."""
        self.expire_subscriptions(conn)
        targets = [sub for sub in self._matching(topic)
                   if not (opts & C.MQPMO_NOT_OWN_SUBS and sub.owner == hconn)
                   # PUBLICATIONS_ON_REQUEST: delivered only on MQSUBRQ, from the retained publication.
                   and not sub.options & C.MQSO_PUBLICATIONS_ON_REQUEST]
        if any(sub.selector for sub in targets):
            props = rfh2.properties_of(md.Format, md.Encoding, body) if md.Format == rfh2.RFH2_FORMAT else {}
            targets = [sub for sub in targets if sub.selects(md, props)]
        members = [target for relay in self.relays for target in relay.targets(topic, came_from, opts)]
        cache: dict[Any, Any] = {"now": self.qm.clock.now()}
        rule = self.delivery_rule(topic, md.Persistence == C.MQPER_PERSISTENT) if targets else C.MQDLV_ALL_AVAIL
        cache["rule"] = rule
        if opts & C.MQPMO_SYNCPOINT:
            # Inside the publisher's unit of work: a publication that fails takes back only its own copies.
            mark = len(conn.uow)
            try:
                for sub in targets:
                    self.deliver(conn, sub, topic, md, body, syncpoint=True, retained=False, cache=cache)
                for forward, member in members:
                    forward(conn, member, topic, md, body, opts)
            except MQIError:
                self.qm.backout_since(conn, mark)
                raise
        elif not members and md.Persistence != C.MQPER_PERSISTENT and not delivery.all_or_none(rule):
            # Nonpersistent, outside syncpoint, NPMSGDLV(ALLAVAIL): each copy is put on its own,
            # visible at once (none outlives a restart, and all appear under the one engine lock);
            # a subscriber that cannot take its copy does not stop the others'.
            for sub in targets:
                self.deliver(conn, sub, topic, md, body, syncpoint=False, retained=False, cache=cache)
        elif len(targets) == 1 and not members:
            # One copy outside syncpoint: its own put is all or nothing already (its record is one
            # write), so it needs no unit of work around it.
            self.deliver(conn, targets[0], topic, md, body, syncpoint=False, retained=False, cache=cache)
        elif targets or members:
            # Outside syncpoint the copies still go in one unit of work of their own, journalled in
            # one write: after a crash every subscriber has the publication, or none has.
            saved = conn.uow, conn.shared_uow, conn.uow_failed
            conn.uow, conn.shared_uow, conn.uow_failed = [], False, False
            try:
                for sub in targets:
                    self.deliver(conn, sub, topic, md, body, syncpoint=True, retained=False, cache=cache)
                for forward, member in members:
                    forward(conn, member, topic, md, body, opts)
                self.qm.commit(conn)
            except BaseException:
                self.qm.backout(conn)
                raise
            finally:
                conn.uow, conn.shared_uow, conn.uow_failed = saved
        if not targets and not members and opts & C.MQPMO_WARN_IF_NO_SUBS_MATCHED:
            return C.MQRC_NO_SUBS_MATCHED
        return C.MQRC_NONE

    def end_subscription(self, conn: Conn | None, sub: Subscription) -> None:
        """A subscription ends (MQCLOSE, MQDISC, DELETE SUB, SubExpiry): a durable one leaves the
        store, a managed queue no handle uses goes with it."""
        self.subscriptions.pop(sub.subid, None)
        self.subscriptions_changed()
        if sub.durable:
            self.journal(conn, DropObject(SUB_NS, sub.subid))
        if sub.managed:
            obj = self.qm.queue(sub.queue)
            if obj is not None and not self.qm.in_use(sub.queue):
                self.qm.remove_object(obj)

    def in_use(self, sub: Subscription) -> bool:
        """A handle of some connection has ``sub`` (MQSUB made or resumed it)."""
        return any(h.sub is sub for c in self.qm.conns.values() for h in c.handles.values())

    def expire_subscriptions(self, conn: Conn | None) -> None:
        """Subscriptions past their SubExpiry end (a durable one with its managed queue)."""
        now = self.qm.clock.now()
        memo = self._expiry
        if memo[0] != self.gen:
            soonest = min((s.expires_at for s in self.subscriptions.values() if s.expires_at is not None), default=None)
            memo = self._expiry = (self.gen, soonest)
        if memo[1] is None or now < memo[1]:
            return                                  # none due yet (kept until a subscription is made or ends)
        for sub in [s for s in self.subscriptions.values() if s.expires_at is not None and s.expires_at <= now]:
            if not self.in_use(sub):
                self.end_subscription(conn, sub)

    def has_subscribers(self, topic: str) -> bool:
        """Whether a publication on ``topic`` would reach anyone (the resource publisher asks)."""
        return bool(self._matching(topic))

    def _matching(self, topic: str) -> list[Subscription]:
        """The subscriptions whose topic matches ``topic``, kept per topic string until a
        subscription is made or ends (``subscriptions_changed``)."""
        memo = self._matched
        if memo[0] != self.gen:
            memo = self._matched = (self.gen, {})
        got = memo[1].get(topic)
        if got is None:
            if len(memo[1]) > 10_000:
                memo[1].clear()
            got = memo[1][topic] = [sub for sub in self.subscriptions.values() if sub.matches(topic)]
        return got

    def journal(self, conn: Conn | None, op: JournalOp) -> None:
        """A pub/sub change into the store; the caller's reply waits until it is durable."""
        ticket = self.qm.store.append(op)
        if conn is not None and ticket > conn.ticket:
            conn.ticket = ticket

    def retain(self, conn: Conn, topic: str, md: MD, body: bytes, origin: str = "") -> None:
        """The topic's retained publication; ``origin``: the cluster member it was forwarded from."""
        persistent = md.Persistence == C.MQPER_PERSISTENT
        self.retained[topic] = (md.pack(), body, persistent)
        if origin:
            self.retained_origin[topic] = origin
        else:
            self.retained_origin.pop(topic, None)
        if persistent:
            self.journal(conn, SaveObject(RETAINED_NS, topic, json.dumps(
                {"topic": topic, "md": md.pack().hex(), "body": body.hex(), "origin": origin})))
        else:
            self.journal(conn, DropObject(RETAINED_NS, topic))

    def _publication_data(self, md: MD, body: bytes, topic: str, user_data: str, retained: bool,
                          cache: dict[Any, Any]) -> tuple[bytes, int, int, bytes, Shared]:
        """The data a copy carries: the publisher's, with the mqps properties in front (made once
        per publication for each distinct SubUserData), and what the copies carrying it share
        (Message.shared: the data as MQGETs return it, worked out once)."""
        key = (user_data, retained)
        got: tuple[bytes, int, int, bytes, Shared] | None = cache.get(key)
        if got is not None:
            return got
        # The header chain put in front of the data depends only on the topic, the SubUserData, the
        # descriptor's Format, Encoding and CCSID and the publisher's own MQRFH2 headers (none, or the
        # same ones publication after publication, as an MQTT or JMS publisher sends them), so it is
        # kept across publications; the publisher's data after them is not looked at.
        end = rfh2.chain_length(md.Format, md.Encoding, body) if md.Format == rfh2.RFH2_FORMAT else 0
        if end < 0:                 # (a chain that does not read: the whole data, as MQ's rules answer it)
            got = cache[key] = (*_with_mqps(md.Format, md.Encoding, md.CodedCharSetId, body, topic, user_data,
                                            retained), {})
            return got
        heads = self._heads
        hkey = (topic, user_data, retained, md.Format, md.Encoding, md.CodedCharSetId, body[:end])
        head = heads.get(hkey)
        if head is None:
            if len(heads) > 1024:
                heads.clear()
            head = heads[hkey] = _with_mqps(md.Format, md.Encoding, md.CodedCharSetId, body[:end], topic,
                                            user_data, retained)
        got = cache[key] = (head[0], head[1], head[2], head[3] + body[end:], {})
        return got

    def delivery_rule(self, topic: str, persistent: bool) -> int:
        """PMSGDLV or NPMSGDLV at the publication's topic (mqlite.pubsub.delivery)."""
        return int(self.resolved(topic, delivery.rule_attr(persistent)))

    def deliver(self, conn: Conn, sub: Subscription, topic: str, md: MD, body: bytes, syncpoint: bool,
                 retained: bool, cache: dict[Any, Any] | None = None) -> None:
        """One copy of a publication to the subscription's queue, with the queue manager's authority.
        ``cache``: what the copies of one publication share (their data, their descriptors' template,
        the delivery rule). A copy its queue refuses goes to the dead-letter queue, or fails the
        whole publication with 2502, or is missed, as mqlite.pubsub.delivery's rules say."""
        cache = {"now": self.qm.clock.now()} if cache is None else cache
        fmt, enc, ccsid, data, shared = self._publication_data(md, body, topic, sub.user_data, retained, cache)
        try:
            self._put_copy(conn, sub, md, fmt, enc, ccsid, data, shared, syncpoint, retained, cache)
        except MQIError as e:
            undeliverable(self.qm, conn, sub, topic, copy_md(md, sub, fmt, enc, ccsid), data, e.reason, syncpoint,
                          cache.get("rule", C.MQDLV_ALL_AVAIL), self.tree())
            return
        sub.publications += 1
        sub.last_msg = cache["now"]

    def _copy_destination(self, conn: Conn, sub: Subscription) -> CopyDestination | None:
        """Where the subscription's copies go when that is a local queue of this queue manager: (its
        resolution, its state, its definition, and the longest message the definitions on the path
        take, -1 when one of them inhibits puts). Kept by destination name while no definition
        changes (cluster.gen counts every DEFINE, ALTER, DELETE, ALTER QMGR included): a local
        queue's resolution and those checks depend on them alone. None for any other destination
        (MQPUT1 takes the copy there)."""
        qm = self.qm
        gen = qm.cluster.gen
        dests = self._dests
        key = (sub.queue, sub.qmgr)
        hit = dests.get(key)
        if hit is not None and hit[0] == gen:
            return hit[1]
        res = qm.resolve(conn, sub.queue, sub.qmgr if sub.qmgr != qm.name else "", C.MQOO_OUTPUT)
        qs = qm.queues.get(res.queue) if res.kind == LOCAL else None
        dest = None
        if qs is not None and not qs.shared:
            target = self.qm.queue(res.queue)
            assert target is not None        # a local queue's state has its definition
            defs = list(map(self.qm.queue, res.path))
            inhibited = any(d is not None and d["PUT"] == C.MQQA_PUT_INHIBITED for d in defs)
            first = defs[0] if defs and defs[0] is not None else target
            dest = (res, qs, target, -1 if inhibited else min(self.qm.qmgr["MAXMSGL"], target["MAXMSGL"]),
                    first["DEFPRTY"])
        if len(dests) > 100_000:
            dests.clear()
        dests[key] = (gen, dest)
        return dest

    def _put_copy(self, conn: Conn, sub: Subscription, md: MD, fmt: bytes, enc: int, ccsid: int, data: bytes,
                  shared: Shared, syncpoint: bool, retained: bool, cache: dict[Any, Any]) -> None:
        """The copy onto a local queue directly, with MQPUT's checks; through MQPUT1 (as the queue
        manager) to any other destination."""
        # PubPriority: 0-9, as published (-3), or as the destination queue's default (-1, which
        # MQPUT1 resolves on the way to another queue manager).
        qm = self.qm                    # the innermost step of every copy: one attribute read
        priority = sub.priority if sub.priority >= C.MQPRI_PRIORITY_AS_Q_DEF else md.Priority
        dest = self._copy_destination(conn, sub)
        if dest is None:
            copy = copy_md(md, sub, fmt, enc, ccsid)
            copy.MsgId, copy.Priority = qm.ids.next(), priority
            with qmgr_authority(conn):
                qm.put1(conn, OD(ObjectName=pad(sub.queue, 48), ObjectQMgrName=pad(sub.qmgr, 48)), copy,
                        PMO(Options=C.MQPMO_SET_ALL_CONTEXT | (C.MQPMO_SYNCPOINT if syncpoint
                                                               else C.MQPMO_NO_SYNCPOINT)), data)
            return
        res, qs, target, limit, defprty = dest
        # MQPUT's checks (_check_put decides every refusal): skipped only when the definitions kept
        # with the destination and the queue's depth show that none of them can refuse this copy.
        if limit < 0 or len(data) > limit or qs.depth >= target["MAXDEPTH"] \
                or (syncpoint and len(conn.uow) >= qm.qmgr["MAXUMSGS"]):
            target = qm.check_put(conn, res, qs, len(data), 0, syncpoint)
        if priority == C.MQPRI_PRIORITY_AS_Q_DEF:
            priority = defprty          # the first definition's on the way (an alias's), as MQPUT takes it
        # A temporary dynamic queue holds no persistent message.
        persistent = md.Persistence == C.MQPER_PERSISTENT and target["DEFTYPE"] != C.MQQDT_TEMPORARY_DYNAMIC
        if persistent:
            qm.need_room(len(data))
        # The copies of one publication share a descriptor but for MsgId, CorrelId and identity
        # context: packed once (per SubUserData, priority and persistence), spliced for each.
        key = ("md", sub.user_data, retained, priority, persistent)
        template = cache.get(key)
        if template is None:
            copy = md.copy()
            copy.__dict__.update(Format=fmt, Encoding=enc, CodedCharSetId=ccsid, Priority=priority,
                                 Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT)
            template = cache[key] = copy.pack()
        correl, identity = sub.copy_block()
        packed = md_for_copy(template, qm.ids.next(), correl, identity)
        now = cache["now"]
        expiry_at = None if md.Expiry == C.MQEI_UNLIMITED else now + md.Expiry / 10.0
        msg = qm.arrivals.packed(qs, packed, data, expiry_at, persistent, priority)
        msg.shared = shared
        if syncpoint:
            qm.arrivals.hold(conn, qs, msg, now)
        else:
            qm.arrivals.arrive(conn, qs, msg, now, bool(md.Report & C.MQRO_COA))


def undeliverable(qm: PubSubHost, conn: Conn, sub: Subscription, topic: str, copy: MD, data: bytes, reason: int,
                  syncpoint: bool, rule: int, tree: dict[str, Any]) -> None:
    """A copy the subscriber's queue refused with ``reason``: to the dead-letter queue, or the whole
    publication fails (2502), or the subscriber misses it, as mqlite.pubsub.delivery's rules say."""
    if delivery.dead_letter_first(topics.resolved(tree, topic, "USEDLQ"), qm.qmgr["DEADQ"]):
        copy.MsgId = qm.ids.next()
        with qmgr_authority(conn):
            why = dead_letter_opened(qm, conn, copy, data, sub.queue, sub.qmgr, reason, syncpoint,
                                     f"the publication of {topic}")
        if not why:
            return
    if delivery.fails_publication(rule, sub.durable):
        raise MQIError(C.MQRC_PUBLICATION_FAILURE,
                       detail=f"subscription '{sub.name or sub.subid}' (queue {sub.queue}) refused it: {reason}")
    qm.log(message("MQL8020W", topic=topic, value=sub.name or sub.subid, queue=sub.queue, reason=reason))


def copy_md(md: MD, sub: Subscription, fmt: bytes, enc: int, ccsid: int) -> MD:
    """A copy's MQMD as MQPUT1 puts it elsewhere: the publisher's, with the subscription's CorrelId
    and identity context and the data's format (its MsgId is given on the way)."""
    copy = md.copy()
    d = copy.__dict__
    d.update(sub.copy_fields())
    d["Format"], d["Encoding"], d["CodedCharSetId"] = fmt, enc, ccsid
    return copy


def _with_mqps(fmt: bytes, encoding: int, ccsid: int, body: bytes, topic: str, user_data: str,
               retained: bool) -> tuple[bytes, int, int, bytes]:
    props = Properties()
    props.set("mqps.Top", topic, validate=False)
    if user_data:
        props.set("mqps.Sud", user_data, validate=False)
    if retained:
        props.set("mqps.Ret", True, validate=False)
    split = rfh2.split(fmt, encoding, ccsid, body)
    return rfh2.join(props, split.format, split.encoding, split.ccsid, split.data,
                     rfh2.build_folders(props) + split.folders)
