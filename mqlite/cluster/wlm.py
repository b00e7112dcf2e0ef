"""MQ's cluster workload management algorithm, as a pure decision over a list of destinations.

The cluster cache (not this module) knows which instances of a queue exist, over which channels,
and in what state; it hands :func:`choose` a tuple of :class:`Destination` and gets back the one to
use. The rules run in the order of MQ 8.0/9.x (docs/clusters.md lists them with their sources):

 1. remote instances and channels that share no cluster with this queue manager go;
 2. remote channels not in a cluster of the queue go;
 3. channels with a CLWLRANK below the highest go;
 4. queues with a CLWLRANK below the highest go;
 5. put-disabled instances go if any put-enabled one remains (if none does: the local instance,
    whose own MQPUT then fails with 2051, else MQRC_CLUSTER_PUT_INHIBITED);
 6. the local instance is used if CLWLUSEQ says LOCAL (queue, or QMGR deferring to the queue
    manager) or the message arrived over a cluster channel;
 8. resumed queue managers are preferred to suspended ones;
 9-12. channel state tiers: INACTIVE/RUNNING, then BINDING/INITIALIZING/STARTING/STOPPING, then
    RETRYING, then REQUESTING/PAUSED/STOPPED — the best tier that is not empty;
 14. per queue manager, the routes with the highest NETPRTY;
 15. the highest channel CLWLPRTY; 16. the highest queue CLWLPRTY;
 17. at most CLWLMRUC channels, the most recently used;
 18. the least recently used, weighted by CLWLWGHT (DestSeqFactor, then DestSeqNumber).

Rule 7 and 13 concern cluster PCF (publish/subscribe) messages and are not part of choosing a
queue instance. The only state is the per-channel use record of rule 18, :class:`UseRecord`,
which is read by :func:`choose` and updated by the caller with :meth:`UseRecord.charge`, so the
decision itself is a function of its arguments.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F

USEQ_LOCAL, USEQ_QMGR, USEQ_ANY = "LOCAL", "QMGR", "ANY"

# Rules 9-12: lower is better. A local instance has no channel and is always in the first tier.
STATE_TIER = {F.MQCHS_INACTIVE: 0, F.MQCHS_RUNNING: 0,
              F.MQCHS_BINDING: 1, F.MQCHS_INITIALIZING: 1, F.MQCHS_STARTING: 1, F.MQCHS_STOPPING: 1,
              F.MQCHS_RETRYING: 2,
              F.MQCHS_REQUESTING: 3, F.MQCHS_PAUSED: 3, F.MQCHS_STOPPED: 3}

# Options that need a local queue at the end of name resolution (input, browse, set): such an open
# never chooses a cluster instance elsewhere.
NEEDS_LOCAL = (C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE | C.MQOO_BROWSE | C.MQOO_SET)


class WorkloadError(Exception):
    """No destination can be chosen; ``reason`` is the MQRC for the MQOPEN or MQPUT."""

    def __init__(self, reason: int, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Destination:
    """One instance of a cluster queue (or a clustered queue-manager alias) and the route to it.

    ``channel`` names the CLUSSDR route; for the local instance it is this queue manager's
    CLUSRCVR in the queue's cluster, whose CLWLPRTY/CLWLRANK/CLWLWGHT/NETPRTY then apply, as MQ
    applies them to the local destination.
    """

    qmgr: str
    channel: str
    clusters: frozenset[str]                 # clusters the instance is advertised in
    channel_clusters: frozenset[str]         # clusters of the route (the target's CLUSRCVR)
    local: bool = False
    alias: bool = False                      # a queue-manager alias rather than a queue
    q_rank: int = 0
    q_priority: int = 0
    put_enabled: bool = True
    useq: str = USEQ_QMGR                    # the queue's CLWLUSEQ (local instances only)
    ch_rank: int = 0
    ch_priority: int = 0
    ch_weight: int = 50
    netprty: int = 0
    suspended: bool = False
    status: int = F.MQCHS_INACTIVE


@dataclass(frozen=True, slots=True)
class Request:
    """What the queue manager making the choice brings to it."""

    local_clusters: frozenset[str]
    qmgr_useq: str = USEQ_LOCAL              # the queue manager's CLWLUSEQ
    mruc: int = 999_999_999                  # the queue manager's CLWLMRUC
    from_cluster_channel: bool = False       # the message arrived over a cluster channel


@dataclass
class UseRecord:
    """Rule 18's record, shared by every cluster queue: per channel, DestSeqFactor and
    DestSeqNumber. ``reset`` is for the cluster cache when CLWL attributes change or a new
    destination becomes available."""

    factor: dict[str, int] = field(default_factory=dict)
    number: dict[str, int] = field(default_factory=dict)
    last: int = 0
    # choose()'s memo of shortlist(), keyed by the identity of the destinations tuple
    shortlists: dict[int, tuple[tuple[Destination, ...], Request, tuple[Destination, ...]]] = field(
        default_factory=dict, repr=False)

    def charge(self, dest: Destination) -> None:
        ch = dest.channel
        self.factor[ch] = self.factor.get(ch, 0) + 1000 // max(1, min(99, dest.ch_weight))
        self.last += 1
        self.number[ch] = self.last

    def reset(self) -> None:
        self.factor.clear()


def _keep_max(dests: list[Destination], key: str, which: str) -> list[Destination]:
    """Keep the destinations of kind ``which`` ('channel' rules apply to every destination,
    'queue' rules only to queue instances) whose attribute ``key`` is the highest."""
    if which == "queue":
        queues = [d for d in dests if not d.alias]
        if not queues:
            return dests
        top = max(getattr(d, key) for d in queues)
        return [d for d in dests if d.alias or getattr(d, key) == top]
    top = max(getattr(d, key) for d in dests)
    return [d for d in dests if getattr(d, key) == top]


def shortlist(dests: tuple[Destination, ...] | list[Destination], req: Request) -> tuple[Destination, ...]:
    """Rules 1 to 16: the destinations left for rules 17 and 18 (one, if the choice is already made).

    This depends only on the destinations and the request, so callers may keep its result for as
    long as they hand over the same destinations; :func:`choose` does so.
    """
    local_cl = req.local_clusters
    # Rules 1 and 2: cluster membership.
    cands = [d for d in dests if d.local
             or (d.clusters & local_cl and d.channel_clusters & local_cl and d.channel_clusters & d.clusters)]
    if not cands:
        raise WorkloadError(C.MQRC_NO_DESTINATIONS_AVAILABLE, "no instance shares a cluster with this queue manager")
    if len(cands) > 1:
        # Rules 3 and 4: ranks are taken before channel status, so unreachable ranks still count.
        cands = _keep_max(cands, "ch_rank", "channel")
        cands = _keep_max(cands, "q_rank", "queue")
    # Rule 5: put-enabled instances.
    enabled = [d for d in cands if d.put_enabled]
    if not enabled:
        for d in cands:
            if d.local:
                return (d,)         # MQ opens the local instance; its MQPUT gets MQRC_PUT_INHIBITED
        raise WorkloadError(C.MQRC_CLUSTER_PUT_INHIBITED, "every instance of the queue is put-inhibited")
    cands = enabled
    # Rule 6: local preference.
    for d in cands:
        if d.local:
            useq = req.qmgr_useq if d.useq == USEQ_QMGR else d.useq
            if useq == USEQ_LOCAL or req.from_cluster_channel:
                return (d,)
            break
    if len(cands) == 1:
        return tuple(cands)
    # Rule 8: resumed before suspended.
    resumed = [d for d in cands if not d.suspended]
    if resumed and len(resumed) < len(cands):
        cands = resumed
    # Rules 9-12: the best channel-state tier.
    tiers = [0 if d.local else STATE_TIER.get(d.status, 3) for d in cands]
    best = min(tiers)
    if best or max(tiers):
        cands = [d for d, t in zip(cands, tiers, strict=True) if t == best]
    if len(cands) > 1:
        # Rule 14: per queue manager, its routes with the highest NETPRTY.
        top: dict[str, int] = {}
        for d in cands:
            if d.netprty > top.get(d.qmgr, -1):
                top[d.qmgr] = d.netprty
        cands = [d for d in cands if d.netprty == top[d.qmgr]]
        # Rules 15 and 16: channel priority, then queue priority.
        cands = _keep_max(cands, "ch_priority", "channel")
        cands = _keep_max(cands, "q_priority", "queue")
    return tuple(cands)


def choose(dests: tuple[Destination, ...], req: Request, used: UseRecord) -> Destination:
    """The destination MQ's algorithm picks; raises WorkloadError(2270 or 2268) when there is none."""
    memo = used.shortlists.get(id(dests))
    if memo is not None and memo[0] is dests and memo[1] is req:
        cands = memo[2]
    else:
        cands = shortlist(dests, req)
        if len(used.shortlists) >= 4096:
            used.shortlists.clear()
        used.shortlists[id(dests)] = (dests, req, cands)
    if len(cands) == 1:
        return cands[0]
    number = used.number
    # Rule 17: at most CLWLMRUC channels, the most recently used.
    if len(cands) > req.mruc:
        cands = tuple(sorted(cands, key=lambda d: (-number.get(d.channel, 0), d.channel))[:req.mruc])
    # Rule 18: the least recently used, weighted: lowest DestSeqFactor, then DestSeqNumber, then name.
    factor = used.factor
    best = cands[0]
    bkey = (factor.get(best.channel, 0), number.get(best.channel, 0), best.channel)
    for d in cands[1:]:
        ch = d.channel
        f = factor.get(ch, 0)
        if f > bkey[0]:
            continue
        key = (f, number.get(ch, 0), ch)
        if key < bkey:
            best, bkey = d, key
    return best


# --- when the algorithm runs: the MQOPEN binding options ---------------------------------------
def binding(open_options: int, defbind: int) -> int:
    """The binding in force for a handle, as an MQBND_* value: the MQOO_BIND_* option given, or the
    queue's DEFBIND for MQOO_BIND_AS_Q_DEF. (Two bind options at once are refused earlier, 2046.)"""
    if open_options & C.MQOO_BIND_ON_OPEN:
        return C.MQBND_BIND_ON_OPEN
    if open_options & C.MQOO_BIND_NOT_FIXED:
        return C.MQBND_BIND_NOT_FIXED
    if open_options & C.MQOO_BIND_ON_GROUP:
        return C.MQBND_BIND_ON_GROUP
    return defbind


def chooses_at_put(bind: int, in_group: bool, logical_order: bool, starts_group: bool) -> bool:
    """Whether an MQPUT runs the algorithm again (True) or uses the handle's destination (False).

    BIND_ON_OPEN chooses once, at MQOPEN. BIND_NOT_FIXED chooses at every put. BIND_ON_GROUP chooses
    when a group starts and keeps the group together; a message that is not in a group, or a group
    put without MQPMO_LOGICAL_ORDER, is routed as BIND_NOT_FIXED.
    """
    if bind == C.MQBND_BIND_ON_OPEN:
        return False
    if bind == C.MQBND_BIND_ON_GROUP and in_group and logical_order:
        return starts_group
    return True


def needs_local_instance(open_options: int) -> bool:
    """Opening for input, browse or set needs a local instance of the queue; output, inquire and
    the bind options do not (reference §2.6)."""
    return bool(open_options & NEEDS_LOCAL)
