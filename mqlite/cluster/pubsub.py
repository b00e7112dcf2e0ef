"""Publish/subscribe across a cluster, without I/O: clustered topic records, proxy subscriptions and
where a publication goes (docs/pubsub.md, "Cluster topics").

- A TOPIC object with CLUSTER(name) on a member of that cluster is published as a TOPIC record
  (:func:`topic_records`); every member gets it (the full repositories push topic records to all
  members, see ``repository``). Members treat a cached record as an administrative node of their
  own topic tree (:func:`tree_nodes`), unless they define an object with the same TOPICSTR.
- A topic string is *clustered* when the nearest node at or above it that sets CLUSTER does
  (:func:`clustered`). Its route is that node's CLROUTE; its hosts are the members defining it.
- A subscription on this queue manager whose topic lies in a clustered subtree, or above a
  clustered topic (a wildcard such as ``sport/#`` above ``sport/football``), needs a *proxy
  subscription* elsewhere (a clustered topic with PROXYSUB(FORCE) needs ``<topic>/#`` whether
  or not anyone subscribes), unless SUBSCOPE(QMGR) or MQSO_SCOPE_QMGR keep it local: with
  CLROUTE(DIRECT) at every other member of the cluster, with CLROUTE(TOPICHOST) at every host of
  the topic (:func:`proxy_targets`). A queue manager sends each target the whole set of its
  proxies per cluster whenever that set changes (:class:`Proxies`), so a lost or repeated message
  does no harm and REFRESH CLUSTER just sends them all again.
- A publication on a clustered topic (unless PUBSCOPE(QMGR) or MQPMO_SCOPE_QMGR) is delivered to
  the local subscribers and (:func:`forward_to`): DIRECT, to each member holding a matching proxy
  from it; TOPICHOST, from a queue manager that is not a host to one host (a channel that is not
  retrying or stopped first, then the least used), and from a host to each member with a matching
  proxy other than the one the publication came from. A publication that arrived from another
  member under DIRECT, or from a host under TOPICHOST, is delivered locally only.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mqlite.cluster.repository import TOPIC, Record
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.pubsub import topics
from mqlite.pubsub.matching import char_match, topic_match

PUBSQ = "SYSTEM.INTER.QMGR.PUBS"
HEADER = b"MQLPUB1\0"
# What a clustered topic's record carries (what the other members' topic trees need).
TOPIC_ATTRS = ("TOPICSTR", "DESCR", "CLROUTE", "PUBSCOPE", "SUBSCOPE", "PUB", "SUB", "DEFPSIST", "DEFPRTY",
               "DEFPRESP", "DURSUB", "PMSGDLV", "NPMSGDLV", "PROXYSUB", "USEDLQ")
_RESEND = frozenset({("", True)})     # "sent, but what is not known": differs from any set wanted
_UNUSABLE = (F.MQCHS_RETRYING, F.MQCHS_STOPPED, F.MQCHS_PAUSED, F.MQCHS_STOPPING)


@dataclass(frozen=True)
class ClusterTopic:
    name: str
    cluster: str
    topicstr: str
    route: int                       # CLROUTE: MQCLROUTE_DIRECT or MQCLROUTE_TOPIC_HOST
    hosts: tuple[str, ...]           # the members that define it
    attrs: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)


def topic_records(objects: Iterable[Any], member_of: frozenset[str], qmid: str) -> dict[tuple[str, str, str], dict[str, Any]]:
    """The TOPIC records this queue manager publishes: one per clustered topic object, in a cluster
    it is a member of."""
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    for obj in objects:
        c = obj.attrs.get("CLUSTER")
        if c and c in member_of and obj["TOPICSTR"]:
            a = {k: obj.attrs.get(k) for k in TOPIC_ATTRS}
            a["QMID"] = qmid
            out[(c, TOPIC, obj.name)] = a
    return out


def cluster_topics(records: Iterable[Record], local: Iterable[Any], qmgr: str,
                   member_of: frozenset[str]) -> dict[str, ClusterTopic]:
    """The clustered topics this queue manager knows, by topic string: from live records of the
    clusters it is in, and its own clustered topic objects. Hosts that disagree on attributes: the
    latest published record's win (MQ reports the conflict as AMQ9465W)."""
    found: dict[str, list[tuple[float, str, str, str, Mapping[str, Any]]]] = {}
    for r in records:
        if r.key.kind == TOPIC and r.key.cluster in member_of and r.key.owner != qmgr:
            found.setdefault(r.attrs.get("TOPICSTR", ""), []).append(
                (r.published, r.key.owner, r.key.name, r.key.cluster, r.attrs))
    for obj in local:
        c = obj.attrs.get("CLUSTER")
        if c and c in member_of and obj["TOPICSTR"]:
            found.setdefault(obj["TOPICSTR"], []).append((float("inf"), qmgr, obj.name, c, obj.attrs))
    out = {}
    for topicstr, entries in found.items():
        if not topicstr:
            continue
        _t, _o, name, cluster, attrs = max(entries, key=lambda e: e[0])
        hosts = tuple(sorted({e[1] for e in entries if e[3] == cluster}))
        out[topicstr] = ClusterTopic(name, cluster, topicstr, int(attrs.get("CLROUTE", F.MQCLROUTE_DIRECT)), hosts,
                                     attrs)
    return out


def tree_nodes(local_nodes: Mapping[str, Any], known: Mapping[str, ClusterTopic],
               make: Callable[[ClusterTopic], Any]) -> dict[str, Any]:
    """The topic tree's administrative nodes: the local objects, and a node made by ``make`` for each
    clustered topic known from another member whose topic string has no local object."""
    if not known:
        return dict(local_nodes)
    out = dict(local_nodes)
    for topicstr, ct in known.items():
        if topicstr not in out:
            out[topicstr] = make(ct)
    return out


def clustered(nodes: Mapping[str, Any], known: Mapping[str, ClusterTopic], topic: str) -> ClusterTopic | None:
    """The clustered topic ``topic`` falls under: the nearest node at or above it that sets
    CLUSTER, if that node is a known clustered topic."""
    for node in topics.ancestors(topic):
        obj = nodes.get(node)
        if obj is not None and obj.attrs.get("CLUSTER"):
            return known.get(node)
    return None


def fixed_prefix(topic: str, char_wildcards: bool) -> str:
    """The part of a subscription's topic string before any wildcard, cut at a level boundary."""
    if char_wildcards:
        cut = min([i for i in (topic.find("*"), topic.find("?")) if i >= 0], default=-1)
        if cut < 0:
            return topic
        head = topic[:cut]
        return head.rsplit("/", 1)[0] if "/" in head else ""
    levels = []
    for level in topic.split("/"):
        if level in ("#", "+"):
            break
        levels.append(level)
    return "/".join(levels)


def sub_matches(pattern: str, char_wildcards: bool, topic: str) -> bool:
    return char_match(pattern, topic) if char_wildcards else topic_match(pattern, topic)


def proxy_targets(nodes: Mapping[str, Any], known: Mapping[str, ClusterTopic], qmgr: str, members: Callable[[str], list[str]],
                  subs: Iterable[tuple[str, bool]]) -> dict[tuple[str, str], set[tuple[str, bool]]]:
    """Which proxy subscriptions this queue manager wants where: (target, cluster) -> {(topic
    string, character wildcards)}, for its subscriptions ``subs`` (those not kept local)."""
    want: dict[tuple[str, str], set[tuple[str, bool]]] = {}
    # PROXYSUB(FORCE) on a clustered topic: a wildcard proxy for its whole subtree, subscribers or not.
    forced = [(f"{ct.topicstr}/#", False) for ct in known.values()
              if ct.attrs.get("PROXYSUB") == C.MQTA_PROXY_SUB_FORCE]
    for topic, char in [*subs, *forced]:
        prefix = fixed_prefix(topic, char)
        covering: list[ClusterTopic] = []
        ct = clustered(nodes, known, prefix)
        if ct is not None:
            covering.append(ct)
        if topic != prefix:         # a wildcard: the clustered topics below its fixed part it can match
            covering += [k for s, k in known.items() if s.startswith(prefix) and s != prefix and k is not ct
                         and (sub_matches(topic, char, s) or _could_match_below(topic, char, s))]
        for ct in covering:
            if topics.resolved(nodes, ct.topicstr, "SUBSCOPE") == C.MQSCOPE_QMGR:
                continue
            targets = members(ct.cluster) if ct.route == F.MQCLROUTE_DIRECT else list(ct.hosts)
            for t in targets:
                if t != qmgr:
                    want.setdefault((t, ct.cluster), set()).add((topic, char))
    return want


def _could_match_below(pattern: str, char: bool, topicstr: str) -> bool:
    """Whether ``pattern`` can match a topic string below ``topicstr`` (its subtree)."""
    return sub_matches(pattern, char, topicstr + "/x") or (not char and pattern.endswith("/#")
                                                           and topicstr.startswith(pattern[:-2]))


@dataclass
class Proxies:
    """The proxy subscriptions this queue manager holds for others, and those it sent."""
    held: dict[tuple[str, str], frozenset[tuple[str, bool]]] = field(default_factory=dict)   # (origin, cluster)
    sent: dict[tuple[str, str], frozenset[tuple[str, bool]]] = field(default_factory=dict)   # (target, cluster)
    generation: int = 0

    def receive(self, msg: Mapping[str, Any]) -> frozenset[tuple[str, bool]]:
        """A member's whole set of proxies in a cluster; returns those that are new."""
        key = (str(msg["from"]), str(msg["cluster"]))
        subs = frozenset((str(t), bool(c)) for t, c in msg["subs"])
        added = subs - self.held.get(key, frozenset())
        if subs:
            self.held[key] = subs
        else:
            self.held.pop(key, None)
        self.generation += 1
        return added

    def outgoing(self, qmgr: str, want: Mapping[tuple[str, str], set[tuple[str, bool]]]) -> list[tuple[str, dict[str, Any]]]:
        """The messages that bring each target's proxies from what was sent to what is wanted."""
        out = []
        for key in sorted(set(want) | {k for k, v in self.sent.items() if v}):
            now = frozenset(want.get(key, ()))
            if self.sent.get(key, frozenset()) != now:
                self.sent[key] = now
                out.append((key[0], {"type": "proxies", "from": qmgr, "cluster": key[1],
                                     "subs": sorted([t, c] for t, c in now)}))
        return out

    def resend(self) -> None:
        """Send every target its set again (REFRESH CLUSTER resynchronises proxy subscriptions)."""
        self.sent = {k: _RESEND for k in self.sent}

    def origins(self, cluster: str, topic: str) -> list[str]:
        """The members holding a proxy in ``cluster`` that matches a publication on ``topic``."""
        return sorted(o for (o, c), subs in self.held.items()
                      if c == cluster and any(sub_matches(t, ch, topic) for t, ch in subs))

    def snapshot(self) -> dict[str, Any]:
        """What a restart keeps: the proxies held, and the targets proxies were sent to (after a
        restart each is sent its set again, an empty one to withdraw what it holds)."""
        return {"held": [[o, c, sorted([t, ch] for t, ch in s)] for (o, c), s in self.held.items()],
                "sent_to": sorted([t, c] for (t, c), s in self.sent.items() if s)}

    def restore(self, snap: Mapping[str, Any]) -> None:
        self.held = {(o, c): frozenset((t, bool(ch)) for t, ch in s) for o, c, s in snap.get("held", [])}
        self.sent = {(t, c): _RESEND for t, c in snap.get("sent_to", [])}
        self.generation += 1


def forward_to(ct: ClusterTopic, qmgr: str, topic: str, came_from: str, proxies: Proxies,
               channel_status: Callable[[str], int], use: dict[str, int]) -> list[str]:
    """The members a publication on ``topic`` (under the clustered topic ``ct``) goes to from here:
    ``came_from`` is the member it arrived from ('' when published here)."""
    if ct.route == F.MQCLROUTE_DIRECT:
        return [] if came_from else [o for o in proxies.origins(ct.cluster, topic) if o != qmgr]
    if qmgr in ct.hosts:
        if came_from in ct.hosts:
            return []           # a host delivers what another host sent it locally only
        return [o for o in proxies.origins(ct.cluster, topic) if o not in (qmgr, came_from)]
    if came_from:
        return []
    hosts = [h for h in ct.hosts if h != qmgr]
    if not hosts:
        return []
    best = min(hosts, key=lambda h: (channel_status(h) in _UNUSABLE, use.get(h, 0), h))
    use[best] = use.get(best, 0) + 1
    return [best]


PUBLICATION, RETAINED, RESENT = "P", "R", "S"    # a publication; one to retain; a retained one sent again


FORMAT = b"MQLPUB  "            # a forwarded publication's Format (the publisher's is in its envelope)


def wrap(topic: str, origin: str, body: bytes, kind: str = PUBLICATION, fmt: bytes = b"") -> bytes:
    """A publication on its way to another member's SYSTEM.INTER.QMGR.PUBS: a small header (what it
    is, the member it comes from, the topic string, the publisher's Format) before the
    publisher's data. ``kind``: PUBLICATION; RETAINED, published with MQPMO_RETAIN (the member
    keeps it as the topic's retained publication too); RESENT, a retained publication sent again
    to a member that placed a new proxy subscription (delivered there only if it does not hold it
    yet). The message's own Format is FORMAT on the way: an envelope whose publisher's data is an
    MQRFH2 (a publication with properties) is not an MQRFH2 itself."""
    head = f"{kind}{origin}\0{topic}" + (f"\0{fmt.decode('latin-1')}" if fmt else "")
    data = head.encode()
    return HEADER + len(data).to_bytes(4, "big") + data + body


def unwrap(data: bytes) -> tuple[str, str, str, bytes, bytes]:
    """(topic string, origin, kind, the publisher's Format (b"" when the envelope has none), the
    publisher's data); ValueError if it is not a forwarded publication."""
    if not data.startswith(HEADER) or len(data) < len(HEADER) + 5:
        raise ValueError("not a forwarded publication")
    n = int.from_bytes(data[len(HEADER):len(HEADER) + 4], "big")
    start = len(HEADER) + 4
    head = data[start:start + n].decode()
    kind, (origin, _, rest) = head[:1], head[1:].partition("\0")
    topic, _, fmt = rest.partition("\0")
    if kind not in (PUBLICATION, RETAINED, RESENT):
        raise ValueError(f"unknown forwarded publication kind {kind!r}")
    return topic, origin, kind, fmt.encode("latin-1"), data[start + n:]
