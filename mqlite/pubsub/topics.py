"""The topic tree's administrative nodes and ASPARENT resolution: pure functions over the topic
objects (their TOPICSTR and attributes).

A topic string names a node of the tree; its levels are separated by ``/``. An administrative
topic object (DEFINE TOPIC) sits at the node its TOPICSTR names. An attribute of a node that is
ASPARENT (or blank, for the model queues and CLUSTER) takes the value of the nearest node above it
with an administrative object that sets it, and finally SYSTEM.BASE.TOPIC's, the root (TOPICSTR
'')."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mqlite.cmq import CMQC

BASE = "SYSTEM.BASE.TOPIC"
# The "as parent" value of each inherited attribute.
AS_PARENT: dict[str, Any] = {
    "PUB": CMQC.MQTA_PUB_AS_PARENT, "SUB": CMQC.MQTA_SUB_AS_PARENT, "DEFPSIST": CMQC.MQPER_PERSISTENCE_AS_PARENT,
    "DEFPRTY": CMQC.MQPRI_PRIORITY_AS_PARENT, "DEFPRESP": CMQC.MQPRT_RESPONSE_AS_PARENT,
    "DURSUB": CMQC.MQSUB_DURABLE_AS_PARENT, "MDURMDL": "", "MNDURMDL": "", "PMSGDLV": CMQC.MQDLV_AS_PARENT,
    "NPMSGDLV": CMQC.MQDLV_AS_PARENT, "USEDLQ": CMQC.MQUSEDLQ_AS_PARENT, "PUBSCOPE": CMQC.MQSCOPE_AS_PARENT,
    "SUBSCOPE": CMQC.MQSCOPE_AS_PARENT, "MCAST": CMQC.MQMC_AS_PARENT, "CLUSTER": "", "COMMINFO": "",
}


def ancestors(topic: str) -> list[str]:
    """The node itself, then each node above it, ending at the root ''."""
    out = [topic] if topic else []
    while "/" in topic:
        topic = topic.rsplit("/", 1)[0]
        out.append(topic)
    if topic:
        out.append("")
    return out or [""]


def by_string(objects: Iterable[Any]) -> dict[str, Any]:
    """The administrative node of each topic string (SYSTEM.BASE.TOPIC at the root; other objects
    with a blank TOPICSTR, such as SYSTEM.DEFAULT.TOPIC, sit nowhere in the tree)."""
    out: dict[str, Any] = {}
    for obj in objects:
        if obj["TOPICSTR"] or obj.name == BASE:
            out[obj["TOPICSTR"]] = obj
    return out


def admin_node(nodes: Mapping[str, Any], topic: str) -> Any:
    """The nearest administrative topic object at or above ``topic``."""
    for node in ancestors(topic):
        obj = nodes.get(node)
        if obj is not None:
            return obj
    return None


def resolved(nodes: Mapping[str, Any], topic: str, attr: str) -> Any:
    """The value of ``attr`` at ``topic``: the nearest administrative node's that is not ASPARENT."""
    unset = AS_PARENT[attr]
    for node in ancestors(topic):
        obj = nodes.get(node)
        if obj is not None and obj[attr] != unset:
            return obj[attr]
    return unset


def resolved_all(nodes: Mapping[str, Any], topic: str) -> dict[str, Any]:
    return {attr: resolved(nodes, topic, attr) for attr in AS_PARENT}
