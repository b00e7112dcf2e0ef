"""A queue manager's part in its clusters, without I/O.

:class:`ClusterState` sits between the queue manager's definitions and the sans-IO
:class:`~mqlite.cluster.repository.Repository`:

- it turns the local definitions into the records this queue manager publishes (one queue-manager
  record per cluster of each CLUSRCVR, one queue record per cluster of each clustered queue) and
  publishes what changed (:meth:`sync`);
- it answers the questions name resolution and MQPUT ask: is a name a cluster queue, which route
  reaches a cluster queue manager, which instance gets the next message (the workload algorithm
  over :meth:`Repository.destinations`), which transmission queue a cluster-sender channel uses;
- it builds the auto-defined CLUSSDR channels from the CLUSRCVR records of other queue managers;
- it hands the server's repository-manager thread what must be sent (:meth:`outgoing`), as
  (channel, remote queue manager, message) triples.

Transmission queues: by default every cluster-sender channel takes its messages from
SYSTEM.CLUSTER.TRANSMIT.QUEUE by CorrelId (the channel name); with DEFCLXQ(CHANNEL) each channel has
its own permanent dynamic SYSTEM.CLUSTER.TRANSMIT.<channel> made from the model queue; a local
transmission queue whose CLCHNAME matches the channel name (``*`` anywhere) takes precedence over
both. When several CLCHNAME values match, the most specific wins: an exact name first, then the
pattern whose literal characters come first reading left to right (at the first position where the
patterns differ, a literal character beats ``*``), then the longer pattern, then the queue name.
A channel's association changes only when it starts (nothing is in flight then), and the messages
for it on its previous queue move to the new one in the same step.
"""
from __future__ import annotations

from collections import deque
from typing import Any, Protocol

from mqlite.cluster import pubsub, routelog, wlm
from mqlite.cluster.repository import QMGR, QUEUE, TOPIC, Record, Repository
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq.errors import MQIError
from mqlite.objects.attrs import TABLE
from mqlite.objects.model import MQObject
from mqlite.objects.names import wildcard_match

RECENT_CHOICES = 50                 # workload choices remembered a cluster queue
RECENT_QUEUES = 256


class ChannelFacts(Protocol):
    """What the cluster state asks of whoever runs the queue manager (``engine.hooks.Hooks``
    answers): channel states for the workload algorithm, and the CONNAME a CLUSRCVR left blank."""

    def channel_state(self, channel: str) -> str: ...

    def channel_generation(self) -> int: ...

    def default_conname(self) -> str: ...


class Host(Protocol):
    """What the cluster state needs of its queue manager: its name and clock, its definitions,
    and which cluster transmission queues hold messages for which channel. Nothing that creates
    or changes an object: the decisions here only read."""
    name: str
    clock: Any
    qmgr: MQObject
    objects: dict[str, dict[str, MQObject]]
    queues: dict[str, Any]

    @property
    def hooks(self) -> ChannelFacts: ...

    def queue(self, name: str) -> MQObject | None: ...

    def correl_ids(self, queue: str) -> set[bytes]: ...

SCTQ = "SYSTEM.CLUSTER.TRANSMIT.QUEUE"
CMDQ = "SYSTEM.CLUSTER.COMMAND.QUEUE"
XMIT_MODEL = "SYSTEM.CLUSTER.TRANSMIT.MODEL.QUEUE"
XMIT_PREFIX = "SYSTEM.CLUSTER.TRANSMIT."
RESOLVE_WAIT = 10.0          # seconds an MQOPEN waits for a full repository's answer
REJOIN_GUARD = 10.0          # seconds a full repository ignores a queue manager it force-removed
FORCE_REMOVED = "FORCEREMOVED"   # marks the deletion records RESET CLUSTER ACTION(FORCEREMOVE) makes

# CLUSRCVR attributes an auto-defined CLUSSDR takes over (besides CONNAME), and the workload ones.
CHANNEL_ATTRS = ("CONNAME", "BATCHSZ", "BATCHINT", "DISCINT", "HBINT", "SHORTRTY", "SHORTTMR", "LONGRTY",
                 "LONGTMR", "MRRTY", "MRTMR", "NPMSPEED", "MAXMSGL", "SEQWRAP", "USEDLQ", "DESCR",
                 "CLWLRANK", "CLWLPRTY", "CLWLWGHT", "NETPRTY")
QUEUE_ATTRS = ("DESCR", "PUT", "DEFBIND", "DEFPSIST", "DEFPRTY", "DEFPRESP", "CLWLRANK", "CLWLPRTY")
DEFINITION_ATTRS = ("DESCR", "DEFBIND", "DEFPSIST", "DEFPRTY", "DEFPRESP", "CLWLRANK", "CLWLPRTY")
CLUSQT = {"QLOCAL": "QLOCAL", "QALIAS": "QALIAS", "QREMOTE": "QREMOTE"}
STATE_CODE = {"INACTIVE": F.MQCHS_INACTIVE, "BINDING": F.MQCHS_BINDING, "STARTING": F.MQCHS_STARTING,
              "RUNNING": F.MQCHS_RUNNING, "STOPPING": F.MQCHS_STOPPING, "RETRYING": F.MQCHS_RETRYING,
              "STOPPED": F.MQCHS_STOPPED, "REQUESTING": F.MQCHS_REQUESTING, "PAUSED": F.MQCHS_PAUSED,
              "INITIALIZING": F.MQCHS_INITIALIZING}
USEQ = {C.MQCLWL_USEQ_LOCAL: wlm.USEQ_LOCAL, C.MQCLWL_USEQ_ANY: wlm.USEQ_ANY, C.MQCLWL_USEQ_AS_Q_MGR: wlm.USEQ_QMGR}


class ClusterPending(MQIError):
    """MQOPEN of a name a full repository has not answered for yet: the server waits (up to
    RESOLVE_WAIT) for the answer and opens again; without a server to wait, it is a 2085."""

    def __init__(self, kind: str, name: str) -> None:
        super().__init__(C.MQRC_UNKNOWN_OBJECT_NAME, detail=f"{name}: waiting for a full repository")
        self.kind = kind
        self.name = name


def correl_of(channel: str) -> bytes:
    """The CorrelId that marks a message on a cluster transmission queue for ``channel``."""
    return channel.encode("ascii").ljust(20, b" ").ljust(24, b"\0")


def specificity(pattern: str) -> tuple[Any, ...]:
    """Sort key for matching CLCHNAME patterns: smaller is more specific (see the module text)."""
    return ("*" in pattern, tuple(c == "*" for c in pattern), -len(pattern))


class ClusterState:
    def __init__(self, qm: Host) -> None:
        self.qm = qm
        self.repo = Repository(qm.name, qm.clock.now)
        self.use = wlm.UseRecord()
        # The workload algorithm's latest choices a cluster queue: (time, chosen queue manager),
        # for mqweb's cluster view (the control op ``wlmrecent``); at most RECENT_QUEUES queues.
        self.recent: dict[str, deque[tuple[float, str]]] = {}
        self.routing: routelog.Recorder | None = None   # the routing log, while it is recorded
        self.suspended: set[str] = set()             # SUSPEND QMGR: the clusters this one is suspended in
        self.removed: dict[str, float] = {}          # RESET CLUSTER: queue manager -> when (rejoin guard)
        self.assoc: dict[str, str] = {}              # channel -> transmission queue it is associated with
        self.unrouted: list[tuple[str, dict[str, Any]]] = []
        # Store numbers of messages on cluster transmission queues put with BIND_NOT_FIXED: they may
        # be re-routed if their channel cannot reach its queue manager (kept in memory only: after
        # a restart they wait for their channel, as BIND_ON_OPEN messages do).
        self.not_fixed: set[int] = set()
        self.bootstrapped: set[tuple[str, str]] = set()
        self._xq_cache: dict[str, str] = {}
        self._xq_gen = -1
        self.gen = 0                                 # grows with every local definition change
        self._local_memo: dict[str, tuple[int, wlm.Destination | None]] = {}
        self._def_memo: dict[str, tuple[int, MQObject]] = {}
        self._filtered: tuple[tuple[wlm.Destination, ...], tuple[wlm.Destination, ...]] = ((), ())
        self._req_memo: dict[tuple[Any, ...], wlm.Request] = {}
        self._member: tuple[int, frozenset[str]] = (-1, frozenset())
        self.proxies = pubsub.Proxies()              # proxy subscriptions held for others, and sent
        self._topics: tuple[tuple[int, int], dict[str, pubsub.ClusterTopic]] = ((-1, -1), {})

    # --- the local definitions ------------------------------------------------------------------
    def changed(self) -> None:
        self.gen += 1

    def clusters_of(self, obj: MQObject | None) -> list[str]:
        if obj is None:
            return []
        if obj.attrs.get("CLUSTER"):
            return [obj["CLUSTER"]]
        nl = obj.attrs.get("CLUSNL")
        if nl:
            names = self.qm.objects["NAMELIST"].get(nl)
            return list(names["NAMES"]) if names is not None else []
        return []

    def full_for(self) -> set[str]:
        q = self.qm.qmgr
        if q["REPOS"]:
            return {q["REPOS"]}
        if q["REPOSNL"]:
            nl = self.qm.objects["NAMELIST"].get(q["REPOSNL"])
            return set(nl["NAMES"]) if nl is not None else set()
        return set()

    def receivers(self) -> list[MQObject]:
        return sorted((c for c in self.qm.objects["CHANNEL"].values() if c.kind == "CLUSRCVR"), key=lambda c: c.name)

    def manual_senders(self) -> list[MQObject]:
        return sorted((c for c in self.qm.objects["CHANNEL"].values() if c.kind == "CLUSSDR"), key=lambda c: c.name)

    def member_of(self) -> frozenset[str]:
        """The clusters this queue manager is in: those of its CLUSRCVR channels."""
        if self._member[0] != self.gen:
            self._member = (self.gen, frozenset(c for ch in self.receivers() for c in self.clusters_of(ch)))
        return self._member[1]

    @property
    def active(self) -> bool:
        return bool(self.member_of()) or bool(self.repo.records)

    def desired(self) -> dict[tuple[str, str, str], dict[str, Any]]:
        """The records this queue manager should be publishing now."""
        qm = self.qm
        full = self.full_for()
        out: dict[tuple[str, str, str], dict[str, Any]] = {}
        for ch in self.receivers():
            for c in self.clusters_of(ch):
                a = {k: ch[k] for k in CHANNEL_ATTRS}
                a["CONNAME"] = a["CONNAME"] or self.qm.hooks.default_conname()
                a.update(CHANNEL=ch.name, QMTYPE="REPOS" if c in full else "NORMAL", QMID=qm.qmgr["QMID"],
                         SUSPEND="YES" if c in self.suspended else "NO", VERSION=qm.qmgr["VERSION"])
                out.setdefault((c, QMGR, qm.name), a)
        member = {k[0] for k in out}
        for obj in qm.objects["QUEUE"].values():
            if obj.kind not in CLUSQT:
                continue
            for c in self.clusters_of(obj):
                if c not in member:
                    continue
                a = {k: obj.attrs.get(k) for k in QUEUE_ATTRS if k in obj.attrs}
                qt = CLUSQT[obj.kind]
                if obj.kind == "QREMOTE" and not obj["RNAME"]:
                    qt = "QMGR"
                a.update(CLUSQT=qt, QMID=qm.qmgr["QMID"],
                         PUT="ENABLED" if obj["PUT"] == C.MQQA_PUT_ALLOWED else "DISABLED")
                if obj.kind == "QLOCAL":
                    a["CLWLUSEQ"] = obj["CLWLUSEQ"]
                out[(c, QUEUE, obj.name)] = a
        if qm.qmgr["PSCLUS"] == C.MQPSCLUS_ENABLED:       # PSCLUS(DISABLED): no clustered topics here
            out.update(pubsub.topic_records(qm.objects["TOPIC"].values(), frozenset(member), qm.qmgr["QMID"]))
        return out

    def known_topics(self) -> dict[str, pubsub.ClusterTopic]:
        """The clustered topics of the clusters this queue manager is in, by topic string (none
        with PSCLUS(DISABLED): it takes no part in publish/subscribe across its clusters)."""
        stamp = (self.gen, self.repo.generation)
        if self._topics[0] != stamp and self.qm.qmgr["PSCLUS"] != C.MQPSCLUS_ENABLED:
            self._topics = (stamp, {})
        elif self._topics[0] != stamp:
            records = [r for r in self.repo.records.values() if r.key.kind == TOPIC and self.repo.live(r)]
            self._topics = (stamp, pubsub.cluster_topics(records, self.qm.objects["TOPIC"].values(), self.qm.name,
                                                         self.member_of()) if records or self.member_of() else {})
        return self._topics[1]

    def send_proxies(self, want: dict[tuple[str, str], set[tuple[str, bool]]]) -> int:
        """Proxy subscriptions to send (or withdraw) so that each target holds ``want``'s."""
        msgs = self.proxies.outgoing(self.qm.name, want)
        self.repo.outbox.extend(msgs)
        return len(msgs)

    def sync(self) -> None:
        """Publish what changed in the local definitions since the last call."""
        repo = self.repo
        repo.full_for = self.full_for()
        repo.manual = self.manual_targets()
        want = self.desired()
        mine = {(k.cluster, k.kind, k.name): r for k, r in repo.records.items() if k.owner == self.qm.name}
        for key, attrs in sorted(want.items()):
            r = mine.get(key)
            if r is None or r.deleted or r.attrs != attrs:
                repo.publish(*key, attrs)
        for key, r in sorted(mine.items()):
            if key not in want and not r.deleted:
                repo.publish(*key, r.attrs, deleted=True)

    def manual_targets(self) -> dict[str, list[str]]:
        """Per cluster, the queue managers the manual CLUSSDR channels lead to (known once their
        CLUSRCVR record has arrived: a CLUSSDR is named after its target's CLUSRCVR)."""
        out: dict[str, list[str]] = {}
        for ch in self.manual_senders():
            for c in self.clusters_of(ch):
                for rec in self.qmgr_records(c, in_grace=True):
                    # (never this queue manager itself: TO.+QMNAME+ would match its own CLUSRCVR)
                    if rec.key.owner != self.qm.name and channel_matches(ch.name, rec.attrs.get("CHANNEL", ""),
                                                                          rec.key.owner):
                        out.setdefault(c, []).append(rec.key.owner)
        return out

    def qmgr_records(self, cluster: str | None = None, in_grace: bool = False) -> list[Record]:
        return [r for k, r in sorted(self.repo.records.items())
                if k.kind == QMGR and (cluster is None or k.cluster == cluster)
                and (self.repo.live(r) or (in_grace and not r.deleted))]

    # --- what to send ---------------------------------------------------------------------------
    def bootstrap(self) -> list[tuple[str, dict[str, Any]]]:
        """Messages for the far end of manual CLUSSDR channels whose target is not known yet: this
        queue manager's own records, so the full repository there learns of it and answers."""
        out = []
        targets = self.repo.manual
        for ch in self.manual_senders():
            clusters = [c for c in self.clusters_of(ch) if c in self.member_of()]
            known = any(targets.get(c) for c in clusters)
            key = (ch.name, ch["CONNAME"])
            if not clusters or known or key in self.bootstrapped:
                continue
            recs = [r.to_wire() for k, r in sorted(self.repo.records.items())
                    if k.owner == self.qm.name and k.cluster in clusters]
            if recs:
                self.bootstrapped.add(key)
                out.append((ch.name, {"type": "publish", "from": self.qm.name, "records": recs, "hello": True}))
        return out

    def outgoing(self) -> list[tuple[str, str, dict[str, Any]]]:
        """What the repository manager must send now: (channel, queue manager, message)."""
        out: list[tuple[str, str, dict[str, Any]]] = [(ch, "", m) for ch, m in self.bootstrap()]
        pending, self.repo.outbox, self.unrouted = self.unrouted + self.repo.outbox, [], []
        for target, msg in pending:
            ch = self.route(target)
            if ch is None:
                if len(self.unrouted) < 10_000:
                    self.unrouted.append((target, msg))
                continue
            out.append((ch, target, msg))
        return out

    # --- routes, channels and transmission queues -----------------------------------------------
    def route(self, qmgr: str) -> str | None:
        """The cluster-sender channel to a cluster queue manager: its CLUSRCVR's name, preferring a
        cluster this queue manager is in; None when it is not a known cluster queue manager."""
        if qmgr == self.qm.name:
            return None
        best = None
        # Expired records in their grace period still give the way: the queue manager is probably
        # still there and republishing.
        for rec in self.qmgr_records(in_grace=True):
            if rec.key.owner != qmgr or not rec.attrs.get("CHANNEL"):
                continue
            if rec.key.cluster in self.member_of():
                return str(rec.attrs["CHANNEL"])
            best = best or str(rec.attrs["CHANNEL"])
        return best

    def auto_channel(self, name: str) -> MQObject | None:
        """The auto-defined CLUSSDR channel ``name`` (from the target's CLUSRCVR record), unless a
        manual definition of that name exists."""
        if name in self.qm.objects["CHANNEL"]:
            return None
        for rec in self.qmgr_records():
            if rec.attrs.get("CHANNEL") == name and rec.key.owner != self.qm.name:
                obj = MQObject("CLUSSDR", name, TABLE.defaults("CLUSSDR"))
                obj.attrs.update({k: v for k, v in rec.attrs.items() if k in CHANNEL_ATTRS})
                obj.attrs["CLUSTER"] = rec.key.cluster
                return obj
        return None

    def auto_channels(self) -> list[MQObject]:
        names = sorted({str(r.attrs["CHANNEL"]) for r in self.qmgr_records()
                        if r.key.owner != self.qm.name and r.attrs.get("CHANNEL")})
        return [c for c in (self.auto_channel(n) for n in names) if c is not None]

    def xmitq_for(self, channel: str) -> str:
        """The transmission queue the channel would be associated with if it started now."""
        if self._xq_gen != self.gen:
            self._xq_cache.clear()
            self._xq_gen = self.gen
        hit = self._xq_cache.get(channel)
        if hit is not None:
            return hit
        qm = self.qm
        best: tuple[Any, ...] | None = None
        for obj in qm.objects["QUEUE"].values():
            pat = obj.attrs.get("CLCHNAME") if obj.kind == "QLOCAL" else None
            if pat and obj["USAGE"] == C.MQUS_TRANSMISSION and wildcard_match(pat, channel):
                key = (specificity(pat), obj.name)
                if best is None or key < best:
                    best = key
        if best is not None:
            name = str(best[1])
        elif qm.qmgr["DEFCLXQ"] == F.MQCLXQ_CHANNEL:
            name = (XMIT_PREFIX + channel)[:48]
        else:
            name = SCTQ
        self._xq_cache[channel] = name
        return name

    def xmitq_now(self, channel: str) -> str:
        """Where a message for ``channel`` goes now: the queue the channel is associated with, or,
        before it has ever started, the one it will use (the engine makes it if it is missing:
        ``engine.route``'s ``cluster_xmitq``)."""
        q = self.assoc.get(channel)
        if q is not None and self.qm.queue(q) is not None:
            return q
        return self.xmitq_for(channel)

    def associate(self, channel: str, xmitq: str) -> None:
        """The cluster-sender ``channel`` now takes its messages from ``xmitq`` (it started, or
        recovery found its record)."""
        if self.assoc.get(channel) != xmitq:
            self.assoc[channel] = xmitq
            self.changed()               # cached put targets for this channel name the old queue

    def channels_with_work(self) -> set[str]:
        """The cluster-sender channels that have messages waiting on a cluster transmission queue."""
        return {correl.rstrip(b"\0").rstrip(b" ").decode("ascii", "replace")
                for q in self.qm.queues if self.is_cluster_xmitq(q) for correl in self.qm.correl_ids(q)}

    def is_cluster_xmitq(self, name: str) -> bool:
        obj = self.qm.queue(name)
        return name == SCTQ or (obj is not None and obj.kind == "QLOCAL" and bool(obj.attrs.get("CLCHNAME")))

    # --- cluster queues: resolution and the workload algorithm ----------------------------------
    def definition(self, name: str) -> MQObject:
        """What MQOPEN, MQPUT and MQINQ use as the definition of a cluster queue that is not
        defined here: a local-queue shape with the attributes of its first live instance's record
        (MQ advises the same DEFPSIST, DEFPRTY and DEFBIND on every instance)."""
        memo = self._def_memo.get(name)
        if memo is not None and memo[0] == self.repo.generation:
            return memo[1]
        obj = MQObject("QLOCAL", name, TABLE.defaults("QLOCAL"))
        recs = self.repo.lookup(QUEUE, name)
        if recs:
            obj.attrs.update({k: v for k, v in recs[0].attrs.items() if k in DEFINITION_ATTRS})
        self._def_memo[name] = (self.repo.generation, obj)
        return obj

    def remote_instances(self, name: str, qmgr_alias: bool = False) -> bool:
        """Whether another queue manager hosts an instance of cluster queue ``name`` (with
        ``qmgr_alias``: advertises a queue-manager alias of that name) in a cluster shared with this one."""
        return any(r.key.owner != self.qm.name and (r.attrs.get("CLUSQT") == "QMGR") == qmgr_alias
                   for r in self.repo.lookup(QUEUE, name) if r.key.cluster in self.member_of())

    def interest(self, kind: str, name: str) -> bool:
        """An application uses ``name``: subscribe where needed. True when every cluster this queue
        manager is a partial repository in has answered for it."""
        clusters = sorted(self.member_of())
        if not clusters:
            return True
        return self.repo.interest(clusters, kind, name)

    def local_destination(self, name: str) -> wlm.Destination | None:
        memo = self._local_memo.get(name)
        if memo is not None and memo[0] == self.gen:
            return memo[1]
        dest = None
        obj = self.qm.queue(name)
        if obj is not None and obj.kind == "QALIAS" and obj["TARGET"] == name:
            obj = None                  # an alias named like its base leads to the other instances only
        clusters = frozenset(self.clusters_of(obj)) & self.member_of() if obj is not None else frozenset()
        if obj is not None and clusters:
            rcv = next((ch for ch in self.receivers() if set(self.clusters_of(ch)) & clusters), None)
            a = rcv.attrs if rcv is not None else {}
            dest = wlm.Destination(
                qmgr=self.qm.name, channel=rcv.name if rcv is not None else self.qm.name, clusters=clusters,
                channel_clusters=frozenset(self.clusters_of(rcv)), local=True,
                alias=obj.kind == "QREMOTE" and not obj["RNAME"], q_rank=obj["CLWLRANK"],
                q_priority=obj["CLWLPRTY"], put_enabled=obj["PUT"] == C.MQQA_PUT_ALLOWED,
                useq=USEQ.get(obj.attrs.get("CLWLUSEQ", C.MQCLWL_USEQ_AS_Q_MGR), wlm.USEQ_QMGR),
                ch_rank=a.get("CLWLRANK", 0), ch_priority=a.get("CLWLPRTY", 0), ch_weight=a.get("CLWLWGHT", 50),
                netprty=a.get("NETPRTY", 0), suspended=bool(clusters & self.suspended))
        self._local_memo[name] = (self.gen, dest)
        return dest

    def destinations(self, name: str) -> tuple[wlm.Destination, ...]:
        local = self.local_destination(name)
        member = self.member_of()
        dests = self.repo.destinations(name, local, self._state_code, self.qm.hooks.channel_generation())
        if self._filtered[0] is dests:
            return self._filtered[1]
        # Instances in clusters this queue manager is not in do not count (rule 1); the result is
        # kept per tuple, so that the workload algorithm's shortlist memo keeps working.
        kept = dests if all(d.local or d.clusters & member for d in dests) else tuple(
            d for d in dests if d.local or d.clusters & member)
        self._filtered = (dests, kept)
        return kept

    def _state_code(self, channel: str) -> int:
        return STATE_CODE.get(self.qm.hooks.channel_state(channel), F.MQCHS_INACTIVE)

    def request(self, from_cluster_channel: bool = False) -> wlm.Request:
        q = self.qm.qmgr
        key = (self.member_of(), q["CLWLUSEQ"], q["CLWLMRUC"], from_cluster_channel)
        req = self._req_memo.get(key)
        if req is None:
            req = wlm.Request(local_clusters=key[0], qmgr_useq=USEQ.get(q["CLWLUSEQ"], wlm.USEQ_LOCAL),
                              mruc=q["CLWLMRUC"], from_cluster_channel=from_cluster_channel)
            self._req_memo[key] = req
        return req

    def choose(self, name: str) -> wlm.Destination:
        """Run the workload algorithm for one message (or one MQOPEN) to cluster queue ``name``."""
        dests = self.destinations(name)
        if not dests:
            raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME, detail=f"{name} is no longer in any cluster")
        try:
            d = wlm.choose(dests, self.request(), self.use)
        except wlm.WorkloadError as e:
            raise MQIError(e.reason, detail=str(e)) from None
        self.use.charge(d)
        if self.routing is not None:
            req = self.request()
            self.routing.choice(name, dests, req, d, len(self.use.shortlists[id(dests)][2]), self.qm.clock.now())
        recent = self.recent.get(name)
        if recent is None:
            if len(self.recent) >= RECENT_QUEUES:
                self.recent.pop(next(iter(self.recent)))
            recent = self.recent[name] = deque(maxlen=RECENT_CHOICES)
        recent.append((self.qm.clock.now(), d.qmgr))
        return d

    # --- repository-manager operations ----------------------------------------------------------
    def receive(self, msg: dict[str, Any]) -> frozenset[tuple[str, bool]]:
        """A cluster control message; for proxy subscriptions, returns those that are new (the
        caller sends the matching retained publications)."""
        # RESET CLUSTER's rejoin guard, at every full repository the forced removal reaches: for 10
        # seconds nothing the removed queue manager sends, or publishes about itself, is taken in.
        now = self.qm.clock.now()
        records = msg.get("records")
        records = records if isinstance(records, list) else []
        for d in records:
            if isinstance(d, dict) and d.get("deleted") and (d.get("attrs") or {}).get(FORCE_REMOVED):
                self.removed.setdefault(d.get("owner", ""), now)
        guarded = {q for q, t in self.removed.items() if now - t < REJOIN_GUARD}
        if msg.get("from", "") in guarded:
            return frozenset()
        if msg.get("type") == "proxies":
            return self.proxies.receive(msg)
        if guarded and records:
            msg = dict(msg, records=[d for d in records if not isinstance(d, dict) or d.get("deleted")
                                     or d.get("owner") not in guarded])
        self.repo.receive(msg)
        self.repo.manual = self.manual_targets()
        return frozenset()

    def tick(self) -> None:
        self.repo.tick()


def channel_matches(manual: str, clusrcvr: str, owner: str) -> bool:
    """Whether a manual CLUSSDR named ``manual`` leads to the queue manager ``owner`` whose CLUSRCVR
    is ``clusrcvr``: the same name, or ``+QMNAME+`` in it standing for the queue manager's name."""
    if "+QMNAME+" in manual:
        return manual.replace("+QMNAME+", owner)[:20] == clusrcvr
    return manual == clusrcvr
