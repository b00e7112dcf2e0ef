"""A hierarchy joined to a cluster, as MQ allows: HUB and MEMBER are the full repositories of
cluster NEWS (topic 'news' clustered, CLROUTE(DIRECT)); CHILD is HUB's child in a hierarchy and
not in the cluster. Subscribers on either side get the publications made on the other, through
HUB, each once."""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.testing import Harness, free_port
from tests.helpers import depth, drain, wait_until

FAST_RETRY = "SHORTRTY(60) SHORTTMR(1) LONGTMR(5)"


def cluster_member(name: str, other: str, ports: dict[str, int]) -> str:
    return (f"ALTER QMGR REPOS(NEWS)\n"
            f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({ports[name]})') CLUSTER(NEWS) {FAST_RETRY}\n"
            f"DEFINE CHANNEL(TO.{other}) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1({ports[other]})') CLUSTER(NEWS) {FAST_RETRY}\n")


def point_to_point(name: str, other: str, ports: dict[str, int]) -> str:
    return (f"DEFINE QLOCAL({other}) USAGE(XMITQ)\n"
            f"DEFINE CHANNEL({name}.{other}) CHLTYPE(SDR) CONNAME('127.0.0.1({ports[other]})') XMITQ({other}) "
            f"{FAST_RETRY} DISCINT(0)\n"
            f"DEFINE CHANNEL({other}.{name}) CHLTYPE(RCVR)\n")


@pytest.fixture(scope="module")
def joined() -> Iterator[Harness]:
    h = Harness()
    try:
        ports = {n: free_port() for n in ("HUB", "MEMBER", "CHILD")}
        h.add("HUB", cluster_member("HUB", "MEMBER", ports) + point_to_point("HUB", "CHILD", ports)
              + "DEFINE TOPIC(NEWS) TOPICSTR('news') CLUSTER(NEWS)\nDEFINE QLOCAL(SUBQ)\n", port=ports["HUB"])
        h.add("MEMBER", cluster_member("MEMBER", "HUB", ports) + "DEFINE QLOCAL(SUBQ)\n", port=ports["MEMBER"])
        h.add("CHILD", point_to_point("CHILD", "HUB", ports) + "DEFINE QLOCAL(SUBQ)\n", port=ports["CHILD"])
        for qm, channel in (("HUB", "HUB.CHILD"), ("CHILD", "CHILD.HUB")):
            h.qm(qm).mqsc(f"START CHANNEL({channel})\n")
        h.qm("CHILD").mqsc("ALTER QMGR PARENT(HUB)\n", check=True)
        yield h
    finally:
        h.close()


def publish(h: Harness, qm: str, topic: str, bodies: list[bytes]) -> None:
    conn = h.qm(qm).client()
    try:
        t = pymqi.Topic(conn, topic_string=topic)
        t.open(open_opts=C.MQOO_OUTPUT)
        for b in bodies:
            t.pub(b, pymqi.MD(Persistence=C.MQPER_PERSISTENT))
        t.close()
    finally:
        conn.disconnect()


def held_by(h: Harness, qm: str, kind: str) -> int:
    out = h.qm(qm).mqsc(f"DISPLAY PUBSUB TYPE({kind})").stdout
    found = re.findall(r"SUBCOUNT\((\d+)\)", out)
    return int(found[0]) if found else -1


def test_a_cluster_subscriber_gets_what_a_hierarchy_child_publishes(joined: Harness) -> None:
    wait_until(lambda: "STATUS(ACTIVE)" in joined.qm("CHILD").mqsc("DISPLAY PUBSUB TYPE(PARENT)").stdout,
               timeout=30, what="CHILD to join HUB")
    joined.qm("MEMBER").mqsc("DEFINE SUB(M) TOPICSTR('news/#') DEST(SUBQ)\n", check=True)
    # MEMBER's cluster proxy reaches HUB, which passes it on to its child.
    wait_until(lambda: held_by(joined, "CHILD", "PARENT") == 1, timeout=40, what="CHILD to hold HUB's proxy")
    bodies = [f"from the child {i}".encode() for i in range(5)]
    publish(joined, "CHILD", "news/a", bodies)
    wait_until(lambda: depth(joined, "MEMBER", "SUBQ") == 5, timeout=30, what="the publications at MEMBER")
    assert sorted(drain(joined, "MEMBER", "SUBQ")) == sorted(bodies)


def test_a_hierarchy_subscriber_gets_what_a_cluster_member_publishes(joined: Harness) -> None:
    joined.qm("CHILD").mqsc("DEFINE SUB(C) TOPICSTR('news/b') DEST(SUBQ)\n", check=True)
    # CHILD's proxy reaches HUB through the hierarchy; HUB places it in the cluster, at MEMBER.
    wait_until(lambda: "TOPICSTR(news/b)" in joined.qm("MEMBER").mqsc("DISPLAY SUB(*) SUBTYPE(PROXY)").stdout,
               timeout=40, what="MEMBER to hold HUB's proxy for CHILD")
    bodies = [f"from the cluster {i}".encode() for i in range(5)]
    publish(joined, "MEMBER", "news/b", bodies)
    wait_until(lambda: depth(joined, "CHILD", "SUBQ") == 5, timeout=30, what="the publications at CHILD")
    assert sorted(drain(joined, "CHILD", "SUBQ")) == sorted(bodies)
    # MEMBER's own subscriber had them from its own queue manager, once.
    assert sorted(drain(joined, "MEMBER", "SUBQ")) == sorted(bodies)
    assert depth(joined, "HUB", "SUBQ") == 0
