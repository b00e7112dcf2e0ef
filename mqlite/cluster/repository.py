"""The cluster repository: records, subscriptions and their lifetimes, without any I/O.

A :class:`Repository` is one queue manager's cluster cache and repository-manager logic. It is fed
local changes (:meth:`publish`), messages from other queue managers (:meth:`receive`), uses of a
name (:meth:`interest`) and the passing of time (:meth:`tick`), and it leaves what must be sent in
:attr:`outbox` as ``(queue manager, message)`` pairs; the server's repository-manager thread carries
those over SYSTEM.CLUSTER.COMMAND.QUEUE. Messages are plain dicts (JSON on the wire).

What it does (seed 003; reference §5):

- A queue manager publishes its own records (itself, from its CLUSRCVR; its cluster queues) to up
  to two full repositories of the cluster; a full repository keeps every record it receives,
  republishes new information to the other full repositories, and pushes it to the queue managers
  that subscribed to that name.
- A partial repository keeps only what it subscribed to (and the full repositories it talks to).
  The first use of a name creates a subscription per cluster, sent to up to two full repositories,
  which answer with the matching records, or with none, and keep the subscription to push later
  definitions, alterations and deletions of that name.
- Clustered topics (TOPIC records) go to every member, not on first use: a full repository pushes
  each topic record to every queue manager of the cluster it knows, and, once a cluster has a
  clustered topic, every queue-manager record too, so that each member can reach each other one
  (publish/subscribe's proxy subscriptions and publications flow between any two members, as in
  MQ's DIRECT routing). A member that (re)joins such a cluster is sent the cluster's topic and
  queue-manager records.
- Lifetimes: records live 30 days and their owner republishes them after 27; an expired record is
  no longer used or handed out, kept for a 60-day grace and then removed, which is the 90 days after
  which a silent queue manager is no longer a member. A subscription lasts 30 days; after 27 it is
  renewed if the name was used since it was made, otherwise it expires at both ends.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mqlite.cluster.wlm import Destination
from mqlite.cmq import CMQCFC as F

DAY = 86_400.0
RECORD_LIFE = 30 * DAY
REPUBLISH_AFTER = 27 * DAY
GRACE = 60 * DAY
SUB_LIFE = 30 * DAY
RESUBSCRIBE_AFTER = 27 * DAY
FULL_REPOS_PER_PUBLICATION = 2

QMGR, QUEUE, TOPIC = "QMGR", "QUEUE", "TOPIC"


@dataclass(frozen=True, order=True)
class Key:
    cluster: str
    kind: str           # QMGR, QUEUE or TOPIC
    name: str           # the queue manager's, the queue's or the topic object's name
    owner: str          # the queue manager the record is about / that hosts the queue or topic


@dataclass
class Record:
    key: Key
    attrs: dict[str, Any]
    version: int         # the owner's counter: a higher version replaces a lower one
    published: float     # when the owner last (re)published it
    deleted: bool = False

    @property
    def expires(self) -> float:
        return self.published + RECORD_LIFE

    def to_wire(self) -> dict[str, Any]:
        k = self.key
        return {"cluster": k.cluster, "kind": k.kind, "name": k.name, "owner": k.owner, "attrs": self.attrs,
                "version": self.version, "published": self.published, "deleted": self.deleted}

    @staticmethod
    def from_wire(d: dict[str, Any]) -> Record:
        return Record(Key(d["cluster"], d["kind"], d["name"], d["owner"]), dict(d["attrs"]), int(d["version"]),
                      float(d["published"]), bool(d["deleted"]))


@dataclass
class Subscription:
    """This queue manager's interest in a name in one cluster, held at ``targets``."""

    cluster: str
    kind: str
    name: str
    made: float
    targets: list[str]
    used: bool = False
    answered: bool = False

    @property
    def expires(self) -> float:
        return self.made + SUB_LIFE


@dataclass
class Repository:
    qmgr: str
    clock: Callable[[], float]
    full_for: set[str] = field(default_factory=set)            # clusters this one is a full repository for
    # full repositories named on manual CLUSSDR channels: cluster -> queue managers
    manual: dict[str, list[str]] = field(default_factory=dict)
    records: dict[Key, Record] = field(default_factory=dict)
    subs: dict[tuple[str, str, str], Subscription] = field(default_factory=dict)
    # at a full repository, the subscriptions of others: (subscriber, cluster, kind, name) -> expiry
    held: dict[tuple[str, str, str, str], float] = field(default_factory=dict)
    outbox: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    generation: int = 0                  # grows whenever a record is added, replaced or removed
    _version: int = 0
    _dest_memo: dict[str, tuple[Any, float, tuple[Destination, ...]]] = field(default_factory=dict, repr=False)

    def _put(self, rec: Record) -> None:
        self.records[rec.key] = rec
        self.generation += 1

    def _drop(self, key: Key) -> None:
        del self.records[key]
        self.generation += 1

    # --- what is known -------------------------------------------------------------------------
    def live(self, rec: Record) -> bool:
        return not rec.deleted and self.clock() < rec.expires

    def lookup(self, kind: str, name: str, cluster: str | None = None) -> list[Record]:
        """Records in use: not deleted, not expired."""
        return sorted((r for k, r in self.records.items()
                       if k.kind == kind and k.name == name and (cluster is None or k.cluster == cluster)
                       and self.live(r)), key=lambda r: r.key)

    def has_topics(self, cluster: str) -> bool:
        """Whether ``cluster`` has a clustered topic (a live TOPIC record)."""
        return any(k.cluster == cluster and k.kind == TOPIC and self.live(r) for k, r in self.records.items())

    def members(self, cluster: str) -> list[str]:
        """The other queue managers of ``cluster`` this repository knows (live QMGR records)."""
        return sorted({k.owner for k, r in self.records.items()
                       if k.cluster == cluster and k.kind == QMGR and k.owner != self.qmgr and self.live(r)})

    def full_repositories(self, cluster: str) -> list[str]:
        """Other full repositories of ``cluster``: manual CLUSSDR targets first, then those learnt."""
        # An expired full repository record (in its grace period) still says where to publish: its
        # owner republishes it at about the same time as everyone else.
        learnt = sorted(k.owner for k, r in self.records.items()
                        if k.cluster == cluster and k.kind == QMGR and not r.deleted
                        and r.attrs.get("QMTYPE") == "REPOS")
        out: list[str] = []
        for q in [*self.manual.get(cluster, []), *learnt]:
            if q != self.qmgr and q not in out:
                out.append(q)
        return out

    def destinations(self, name: str, local: Destination | None = None,
                     status: Callable[[str], int] = lambda _channel: F.MQCHS_INACTIVE,
                     status_generation: int = 0) -> tuple[Destination, ...]:
        """The instances of cluster queue ``name`` as the workload algorithm wants them: one
        :class:`Destination` per route (the host's CLUSRCVR channel, per cluster it is in) to each
        other queue manager hosting a live instance, plus ``local`` (the caller builds the local
        instance from its own queue and CLUSRCVR). The same tuple object comes back for as long as
        nothing it was built from has changed: no record (``generation``), no channel state
        (``status_generation``, the channel manager's counter), no expiry reached.

        Record attributes used: queues CLWLRANK, CLWLPRTY, PUT (ENABLED/DISABLED); queue managers
        CHANNEL (their CLUSRCVR), CLWLRANK, CLWLPRTY, CLWLWGHT, NETPRTY, SUSPEND (YES/NO).
        """
        now = self.clock()
        stamp = (self.generation, status_generation, local)
        memo = self._dest_memo.get(name)
        if memo is not None and memo[0] == stamp and now < memo[1]:
            return memo[2]
        by_owner: dict[str, list[Record]] = {}
        valid_until = float("inf")
        for rec in self.lookup(QUEUE, name):
            if rec.key.owner != self.qmgr:
                by_owner.setdefault(rec.key.owner, []).append(rec)
                valid_until = min(valid_until, rec.expires)
        out: list[Destination] = [local] if local is not None else []
        for owner, recs in sorted(by_owner.items()):
            q = recs[0].attrs
            routes: dict[str, tuple[set[str], dict[str, Any]]] = {}
            for rec in self.lookup(QMGR, owner):
                if rec.key.owner == owner and rec.attrs.get("CHANNEL"):
                    routes.setdefault(rec.attrs["CHANNEL"], (set(), rec.attrs))[0].add(rec.key.cluster)
                    valid_until = min(valid_until, rec.expires)
            for channel, (clusters, a) in sorted(routes.items()):
                out.append(Destination(
                    qmgr=owner, channel=channel, clusters=frozenset(r.key.cluster for r in recs),
                    channel_clusters=frozenset(clusters), q_rank=int(q.get("CLWLRANK", 0)),
                    q_priority=int(q.get("CLWLPRTY", 0)), put_enabled=q.get("PUT", "ENABLED") == "ENABLED",
                    ch_rank=int(a.get("CLWLRANK", 0)), ch_priority=int(a.get("CLWLPRTY", 0)),
                    ch_weight=int(a.get("CLWLWGHT", 50)), netprty=int(a.get("NETPRTY", 0)),
                    suspended=a.get("SUSPEND") == "YES", status=status(channel)))
        result = tuple(out)
        self._dest_memo[name] = (stamp, valid_until, result)
        return result

    # --- local changes -------------------------------------------------------------------------
    def publish(self, cluster: str, kind: str, name: str, attrs: dict[str, Any], deleted: bool = False) -> None:
        """This queue manager defined, altered or deleted something it owns in ``cluster``."""
        # versions grow with time as well, so they keep growing across a restart of this queue manager
        self._version = max(self._version + 1, int(self.clock() * 1000))
        rec = Record(Key(cluster, kind, name, self.qmgr), dict(attrs), self._version, self.clock(), deleted)
        self._put(rec)
        self._spread(rec, came_from=None)
        if cluster in self.full_for and kind == QMGR:
            self._announce(rec, self.qmgr)         # partials hold full repositories' records unasked
        if cluster in self.full_for and kind == TOPIC and not deleted and sum(
                1 for k, r in self.records.items() if k.cluster == cluster and k.kind == TOPIC and self.live(r)) == 1:
            self._share_topics(cluster, self.members(cluster))

    def _spread(self, rec: Record, came_from: str | None) -> None:
        cluster = rec.key.cluster
        msg = {"type": "publish", "from": self.qmgr, "records": [rec.to_wire()]}
        if cluster in self.full_for:
            # every other full repository (not back where it came from), and the subscribers
            sent = {came_from, rec.key.owner, self.qmgr}
            for q in self.full_repositories(cluster):
                if q not in sent:
                    sent.add(q)
                    self.outbox.append((q, msg))
            now = self.clock()
            for (who, cl, kind, name), expiry in sorted(self.held.items()):
                if cl == cluster and kind == rec.key.kind and name == rec.key.name and expiry > now \
                        and who not in sent:
                    sent.add(who)
                    self.outbox.append((who, msg))
            if rec.key.kind == TOPIC or (rec.key.kind == QMGR and self.has_topics(cluster)):
                for q in self.members(cluster):        # topics, and members of topic clusters: everyone
                    if q not in sent:
                        sent.add(q)
                        self.outbox.append((q, msg))
        elif rec.key.owner == self.qmgr:
            for q in self.full_repositories(cluster)[:FULL_REPOS_PER_PUBLICATION]:
                self.outbox.append((q, msg))

    # --- uses ----------------------------------------------------------------------------------
    def interest(self, clusters: list[str], kind: str, name: str) -> bool:
        """An application uses ``name`` (MQOPEN). Returns True when every cluster it is a partial
        repository in has answered, so the caller knows whether to wait for an answer."""
        answered = True
        for cluster in clusters:
            if cluster in self.full_for:
                continue
            key = (cluster, kind, name)
            sub = self.subs.get(key)
            if sub is None or self.clock() >= sub.expires:
                sub = self._subscribe(cluster, kind, name)    # this first use makes it; later ones keep it
            else:
                sub.used = True
            for rec in self.lookup(kind, name, cluster):
                host = self.subs.get((cluster, QMGR, rec.key.owner))
                if host is not None:
                    host.used = True
            answered = answered and sub.answered
        return answered

    def any_answered(self, kind: str, name: str) -> bool:
        """Whether a full repository answered a subscription to ``name`` in any cluster."""
        return any(sub.answered for (_c, k, n), sub in self.subs.items() if k == kind and n == name)

    def _subscribe(self, cluster: str, kind: str, name: str) -> Subscription:
        targets = self.full_repositories(cluster)[:FULL_REPOS_PER_PUBLICATION]
        sub = Subscription(cluster, kind, name, self.clock(), targets)
        self.subs[(cluster, kind, name)] = sub
        for q in targets:
            self.outbox.append((q, {"type": "subscribe", "from": self.qmgr, "cluster": cluster, "kind": kind,
                                    "name": name, "expires": sub.expires}))
        return sub

    # --- messages from others ------------------------------------------------------------------
    def receive(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "publish":
            # topic records first: they decide whether the queue-manager records beside them are wanted
            for d in sorted(msg["records"], key=lambda d: d.get("kind") != TOPIC):
                self._learn(Record.from_wire(d), msg["from"], welcome=not msg.get("hello"))
            if msg.get("hello"):
                # A queue manager (re)joining through a manual CLUSSDR (first start, or REFRESH
                # REPOS(YES)) needs to hear which full repositories the cluster has.
                for cluster in sorted({d["cluster"] for d in msg["records"]} & self.full_for):
                    self._welcome(cluster, msg["from"])
        elif kind == "subscribe":
            self._held_subscription(msg)
        elif kind == "answer":
            records = [Record.from_wire(d) for d in msg["records"]]
            if msg["kind"] == QUEUE:
                # The hosts' records came with the queue's, and the full repository holds this
                # queue manager's subscription to them from now on: subscribed here as answered,
                # with no round trip of its own (learning the queue's records asks for nothing more).
                now = self.clock()
                for rec in records:
                    if rec.key.kind == QMGR:
                        skey = (rec.key.cluster, QMGR, rec.key.owner)
                        host = self.subs.get(skey)
                        if host is None or now >= host.expires:
                            self.subs[skey] = Subscription(*skey, now, [msg["from"]], answered=True)
                        elif msg["from"] not in host.targets:
                            host.targets.append(msg["from"])
            for rec in records:
                self._learn(rec, msg["from"])
            sub = self.subs.get((msg["cluster"], msg["kind"], msg["name"]))
            if sub is not None:
                sub.answered = True
        else:
            raise ValueError(f"unknown cluster message type {kind!r}")

    def _wanted(self, rec: Record) -> bool:
        k = rec.key
        if k.cluster in self.full_for or k.owner == self.qmgr or k in self.records or k.kind == TOPIC:
            return True           # (a change to a record held here is always taken in)
        if k.kind == QMGR and self.has_topics(k.cluster):
            return True
        if k.kind == QMGR and (rec.attrs.get("QMTYPE") == "REPOS" or k.owner in self.manual.get(k.cluster, [])):
            return True
        sub = self.subs.get((k.cluster, k.kind, k.name))
        return sub is not None and self.clock() < sub.expires

    def _learn(self, rec: Record, came_from: str, welcome: bool = True) -> None:
        if rec.key.owner == self.qmgr or not self._wanted(rec):
            return
        old = self.records.get(rec.key)
        if old is not None and (old.version, old.published) >= (rec.version, rec.published):
            return                       # nothing new: stop here, so republication cannot loop
        self._put(rec)
        k = rec.key
        new_full = (k.kind == QMGR and rec.attrs.get("QMTYPE") == "REPOS" and not rec.deleted
                    and (old is None or old.attrs.get("QMTYPE") != "REPOS" or old.deleted))
        if k.cluster in self.full_for:
            first_topic = k.kind == TOPIC and not rec.deleted and sum(
                1 for kk, r in self.records.items() if kk.cluster == k.cluster and kk.kind == TOPIC and self.live(r)) == 1
            self._spread(rec, came_from)
            if welcome and old is None and k.kind == QMGR and came_from == k.owner:
                self._welcome(k.cluster, k.owner)
            if k.kind == QMGR and came_from == k.owner and self.has_topics(k.cluster):
                self._share_topics(k.cluster, [k.owner])      # (re)joined, or refreshed: all it needs
            if first_topic:
                self._share_topics(k.cluster, self.members(k.cluster))
            if new_full and came_from == k.owner:
                self._catch_up(k.cluster, k.owner)
            if new_full:
                self._announce(rec, came_from)
        elif new_full and k.owner in self.full_repositories(k.cluster)[:FULL_REPOS_PER_PUBLICATION]:
            self._introduce(k.cluster, k.owner)
        elif k.kind == QUEUE and not rec.deleted and (k.cluster, QMGR, k.owner) not in self.subs:
            # a partial needs the host's own record (its CLUSRCVR: where and how to send) too
            self._subscribe(k.cluster, QMGR, k.owner)

    def _welcome(self, cluster: str, newcomer: str) -> None:
        """A queue manager joined through this full repository: tell it which full repositories
        the cluster has, so that it publishes and subscribes to two of them from now on."""
        fulls = [r.to_wire() for k, r in sorted(self.records.items())
                 if k.cluster == cluster and k.kind == QMGR and r.attrs.get("QMTYPE") == "REPOS" and self.live(r)]
        if fulls:
            self.outbox.append((newcomer, {"type": "publish", "from": self.qmgr, "records": fulls}))

    def _share_topics(self, cluster: str, targets: list[str]) -> None:
        """A cluster with clustered topics: send ``targets`` every live topic and queue-manager record
        of the cluster (each one's own records excepted)."""
        recs = [r for k, r in sorted(self.records.items())
                if k.cluster == cluster and k.kind in (QMGR, TOPIC) and self.live(r)]
        for q in targets:
            mine = [r.to_wire() for r in recs if r.key.owner != q]
            if mine and q != self.qmgr:
                self.outbox.append((q, {"type": "publish", "from": self.qmgr, "records": mine}))

    def _catch_up(self, cluster: str, full: str) -> None:
        """Another full repository appeared (new, or promoted): send it everything held for the
        cluster, so that all full repositories hold the same."""
        recs = [r.to_wire() for k, r in sorted(self.records.items()) if k.cluster == cluster and k.owner != full]
        if recs:
            self.outbox.append((full, {"type": "publish", "from": self.qmgr, "records": recs}))

    def _announce(self, rec: Record, came_from: str) -> None:
        """A full repository learnt of another full repository: every partial repository it knows
        hears of it too, so that it can publish and subscribe there."""
        msg = {"type": "publish", "from": self.qmgr, "records": [rec.to_wire()]}
        for k, r in sorted(self.records.items()):
            if k.cluster == rec.key.cluster and k.kind == QMGR and r.attrs.get("QMTYPE") != "REPOS" \
                    and k.owner not in (self.qmgr, rec.key.owner, came_from) and not r.deleted:
                self.outbox.append((k.owner, msg))

    def _introduce(self, cluster: str, full: str) -> None:
        """A partial repository learnt a full repository it should use: publish its own records
        there, and the subscriptions that went to fewer than two full repositories."""
        own = [r.to_wire() for k, r in sorted(self.records.items()) if k.cluster == cluster and k.owner == self.qmgr]
        if own:
            self.outbox.append((full, {"type": "publish", "from": self.qmgr, "records": own}))
        for (cl, kind, name), sub in sorted(self.subs.items()):
            if cl == cluster and full not in sub.targets and len(sub.targets) < FULL_REPOS_PER_PUBLICATION:
                sub.targets.append(full)
                self.outbox.append((full, {"type": "subscribe", "from": self.qmgr, "cluster": cl, "kind": kind,
                                           "name": name, "expires": sub.expires}))

    def _held_subscription(self, msg: dict[str, Any]) -> None:
        who, cluster, kind, name = msg["from"], msg["cluster"], msg["kind"], msg["name"]
        if cluster not in self.full_for:
            return
        expires = float(msg["expires"])
        self.held[(who, cluster, kind, name)] = expires
        found = self.lookup(kind, name, cluster)
        if kind == QUEUE:
            # As MQ's full repository answers a query for a queue: with the records of the queue
            # managers that host it (their CLUSRCVRs: where to send), so the asking partial can
            # put as soon as the answer is in, and hears of changes to them from now on.
            for owner in sorted({r.key.owner for r in found} - {who}):
                hosts = self.lookup(QMGR, owner, cluster)
                if hosts:
                    self.held[(who, cluster, QMGR, owner)] = expires
                    found += hosts
        self.outbox.append((who, {"type": "answer", "from": self.qmgr, "cluster": cluster, "kind": kind,
                                  "name": name, "records": [r.to_wire() for r in found]}))

    # --- time ----------------------------------------------------------------------------------
    def tick(self) -> None:
        now = self.clock()
        for key, rec in list(self.records.items()):
            if key.owner == self.qmgr:
                if now >= rec.published + REPUBLISH_AFTER:
                    if rec.deleted:
                        self._drop(key)
                    else:
                        self.publish(key.cluster, key.kind, key.name, rec.attrs)
            elif now >= rec.expires + GRACE:
                self._drop(key)
        for skey, sub in list(self.subs.items()):
            if now >= sub.made + RESUBSCRIBE_AFTER and sub.used:
                self._subscribe(*skey).answered = sub.answered    # renewed: a fresh 30 days
            elif now >= sub.expires:
                del self.subs[skey]
                for k in [k for k in self.records if (k.cluster, k.kind, k.name) == skey and k.owner != self.qmgr
                          and skey[0] not in self.full_for]:
                    self._drop(k)
        for hkey, expiry in list(self.held.items()):
            if now >= expiry:
                del self.held[hkey]
