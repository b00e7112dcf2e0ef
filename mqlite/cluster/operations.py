"""A cluster member's operations on its cache that are not decisions: REFRESH CLUSTER and RESET
CLUSTER ACTION(FORCEREMOVE) (run by MQSC and PCF through ``mqsc.cluster``), and the cache saved
and restored across restarts (the repository manager and the server). Functions over a
``ClusterState``, beside it rather than in it."""
from __future__ import annotations

from typing import Any

from mqlite.cluster.repository import QMGR, QUEUE, Record, Subscription
from mqlite.cluster.state import FORCE_REMOVED, ClusterState
from mqlite.objects.names import generic_match


def refresh(cl: ClusterState, cluster: str, repos: bool) -> int:
    """REFRESH CLUSTER: forget what was learnt about others in ``cluster`` (generic) and ask
    again. Own records stay; full repositories' records stay unless ``repos``; a full
    repository keeps everything it holds. The records of queue managers whose cluster-sender
    channel has messages on a cluster transmission queue stay too, so that no
    message is stranded. The names this queue manager had subscribed to are subscribed to
    afresh, so the cache is rebuilt from the full repositories at once. Returns how many
    records were dropped."""
    repo = cl.repo
    dropped = 0
    waiting = cl.channels_with_work()
    for key, rec in list(repo.records.items()):
        if not generic_match(cluster, key.cluster) or key.owner == cl.qm.name:
            continue
        if key.cluster in repo.full_for:
            continue
        if key.kind == QMGR and ((rec.attrs.get("QMTYPE") == "REPOS" and not repos)
                                 or rec.attrs.get("CHANNEL") in waiting):
            continue
        repo._drop(key)
        dropped += 1
    interest = sorted(k for k in repo.subs if generic_match(cluster, k[0]))
    for skey in interest:
        del repo.subs[skey]
    if repos:
        cl.bootstrapped = {k for k in cl.bootstrapped
                             if not any(generic_match(cluster, c) for c in
                                        cl.clusters_of(cl.qm.objects["CHANNEL"].get(k[0])))}
    # Publish again, so full repositories send the information back.
    for key, rec in sorted(repo.records.items()):
        if key.owner == cl.qm.name and generic_match(cluster, key.cluster) and not rec.deleted:
            repo.publish(key.cluster, key.kind, key.name, rec.attrs)
    repo.manual = cl.manual_targets()
    for c, kind, name in interest:
        if c not in repo.full_for:
            repo._subscribe(c, kind, name)
    cl.use.reset()
    if cl.routing is not None:
        cl.routing.reset()                 # the routing log says so: a replay clears its record too
    cl.proxies.resend()            # proxy subscriptions are sent again, as MQ resynchronises them
    return dropped

def force_remove(cl: ClusterState, cluster: str, qmname: str = "", qmid: str = "", queues: bool = False) -> int:
    """RESET CLUSTER ACTION(FORCEREMOVE) at a full repository: the queue manager's records become
    deletions spread to the cluster; its queues too with QUEUES(YES) (else they expire)."""
    repo = cl.repo
    owners = {r.key.owner for r in cl.qmgr_records(cluster)
              if (qmname and r.key.owner == qmname) or (qmid and r.attrs.get("QMID") == qmid)}
    n = 0
    for owner in owners:
        cl.removed[owner] = cl.qm.clock.now()
        for key, rec in sorted(repo.records.items()):
            if key.cluster != cluster or key.owner != owner or rec.deleted:
                continue
            if key.kind == QUEUE and not queues:
                continue
            gone = Record(key, {**rec.attrs, FORCE_REMOVED: True}, rec.version + 1, cl.qm.clock.now(),
                          deleted=True)
            repo._put(gone)
            repo._spread(gone, came_from=None)
            n += 1
    return n

def snapshot(cl: ClusterState) -> dict[str, Any]:
    repo = cl.repo
    return {"records": [r.to_wire() for r in repo.records.values()],
            "subs": [[s.cluster, s.kind, s.name, s.made, s.targets, s.used, s.answered]
                     for s in repo.subs.values()],
            "held": [[*k, v] for k, v in repo.held.items()], "version": repo._version,
            "suspended": sorted(cl.suspended), "assoc": cl.assoc, "bootstrapped": sorted(cl.bootstrapped),
            "proxies": cl.proxies.snapshot()}

def restore(cl: ClusterState, snap: dict[str, Any]) -> None:
    repo = cl.repo
    for d in snap.get("records", []):
        rec = Record.from_wire(d)
        repo.records[rec.key] = rec
    for c, k, n, made, targets, used, answered in snap.get("subs", []):
        repo.subs[(c, k, n)] = Subscription(c, k, n, made, list(targets), used, answered)
    for who, c, k, n, exp in snap.get("held", []):
        repo.held[(who, c, k, n)] = exp
    repo._version = int(snap.get("version", 0))
    repo.generation += 1
    cl.suspended = set(snap.get("suspended", []))
    cl.assoc = dict(snap.get("assoc", {}))
    cl.bootstrapped = {tuple(x) for x in snap.get("bootstrapped", [])}
    cl.proxies.restore(snap.get("proxies", {}))
