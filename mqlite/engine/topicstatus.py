"""A topic-tree node as DISPLAY TPSTATUS shows it and PCF Inquire Topic Status answers it, for
each of its status types: TOPIC (the node's attributes resolved up the tree, its administrative
topic, how many publish and subscribe there, whether it holds a retained publication), SUB (each
subscription on it) and PUB (each application publishing on it). The fields are declared once
for both forms (``FIELDS``), the rows computed once (``rows``)."""
from __future__ import annotations

from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.engine.fields import Field, enum, hex_upper
from mqlite.engine.subfields import SBSTATUS_FIELDS, SUB_FIELDS, sbstatus_row
from mqlite.objects.attrbase import ENUM, INT, STR
from mqlite.objects.attrs import TABLE
from mqlite.pubsub import topics
from mqlite.pubsub.matching import topic_match

# The attributes TYPE(TOPIC) shows resolved (ASPARENT followed up the tree), in its order.
RESOLVED = ("CLUSTER", "COMMINFO", "DEFPRESP", "DEFPRTY", "DEFPSIST", "DURSUB", "MCAST", "MDURMDL",
            "MNDURMDL", "NPMSGDLV", "PMSGDLV", "PUB", "PUBSCOPE", "SUB", "SUBSCOPE", "USEDLQ")


def _attribute(name: str) -> Field:
    """A topic attribute as a status field: its parameter, length and words from the table."""
    attr = TABLE.attrs("TOPIC")[name]
    assert attr.selector is not None
    if attr.kind == STR:
        return Field(name, attr.selector, attr.length or 48)
    words = {v: k for k, v in (attr.values or {}).items()}
    return Field(name, attr.selector, word=enum(words) if attr.kind in (ENUM, INT) and words else None)


_TOPICSTR = Field("TOPICSTR", C.MQCA_TOPIC_STRING, -1)
_BY = {f.keyword: f for f in SUB_FIELDS + SBSTATUS_FIELDS}
FIELDS: dict[str, tuple[Field, ...]] = {
    "TOPIC": (_TOPICSTR, Field("ADMIN", C.MQCA_ADMIN_TOPIC_NAME, 48), *(_attribute(a) for a in RESOLVED),
              _attribute("CLROUTE"), Field("PUBCOUNT", C.MQIA_PUB_COUNT), Field("SUBCOUNT", C.MQIA_SUB_COUNT),
              Field("RETAINED", F.MQIACF_RETAINED_PUBLICATION, word=enum({F.MQQSO_YES: "YES", F.MQQSO_NO: "NO"}))),
    "SUB": (_TOPICSTR, _BY["SUBID"], _BY["SUBUSER"], _BY["DURABLE"], _BY["SUBTYPE"], _BY["RESMDATE"],
            _BY["RESMTIME"], _BY["LMSGDATE"], _BY["LMSGTIME"], _BY["NUMMSGS"]),
    "PUB": (_TOPICSTR, Field("ACTCONN", F.MQBACF_CONNECTION_ID, word=hex_upper, binary=True)),
}
TYPES = {"TOPIC": F.MQIACF_TOPIC_STATUS, "SUB": F.MQIACF_TOPIC_SUB, "PUB": F.MQIACF_TOPIC_PUB}


def nodes(qm: Any) -> list[str]:
    """The tree's nodes: administrative objects', subscriptions', publishers' and retained
    publications' topic strings, and the levels above them."""
    used = set(qm.pubsub.tree()) | {s.topic for s in qm.pubsub.subscriptions.values()} | \
        {h.topic for c in qm.conns.values() for h in c.handles.values() if h.topic is not None} | \
        set(qm.pubsub.retained)
    return sorted({n for s in used if s is not None for n in topics.ancestors(s) if n})


def matching(qm: Any, pattern: str) -> list[str]:
    """The nodes a TPSTATUS name chooses: a topic string with # and + as whole levels, or one node."""
    tree = qm.pubsub.tree()
    every = nodes(qm)
    if "#" in pattern or "+" in pattern:
        return [n for n in every if topic_match(pattern, n)]
    return [pattern] if pattern in every or pattern in tree else []


def rows(qm: Any, node: str, kind: str) -> list[dict[str, Any]]:
    """FIELDS[kind]'s values for ``node``: one row for TOPIC, one a subscription or publisher."""
    if kind == "SUB":
        out = []
        for s in qm.pubsub.subscriptions.values():
            if s.topic == node:
                st, sub = sbstatus_row(s, None), {"SUBUSER": s.user}
                out.append({"TOPICSTR": node, **{k: st[k] for k in st if k in _BY}, **sub})
        return out
    publishers = [c for c in qm.conns.values() for h in c.handles.values() if h.topic == node]
    if kind == "PUB":
        return [{"TOPICSTR": node, "ACTCONN": bytes(c.conn_id)} for c in publishers]
    tree = qm.pubsub.tree()
    admin = tree.get(node)
    row: dict[str, Any] = {"TOPICSTR": node, "ADMIN": admin.name if admin is not None else ""}
    row.update(topics.resolved_all(tree, node))
    row["CLROUTE"] = topics.admin_node(tree, node)["CLROUTE"]
    row.update(PUBCOUNT=len(publishers), SUBCOUNT=sum(1 for s in qm.pubsub.subscriptions.values() if s.topic == node),
               RETAINED=F.MQQSO_YES if node in qm.pubsub.retained else F.MQQSO_NO)
    return [row]
