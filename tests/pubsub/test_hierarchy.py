"""A publish/subscribe hierarchy of real queue-manager processes, set up as IBM's scenario 2 (each
pair joined by sender/receiver channels over a transmission queue named after the other queue
manager): PARENT with the children CHILD1 and CHILD2. A publication on one child reaches the
subscribers on the parent and the other child through the proxy subscriptions, exactly once,
also after the parent is killed -9; a retained publication reaches a later subscriber; a loop is
refused. The tests run in order on one hierarchy.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.testing import Harness, free_port
from tests.helpers import depth, drain, wait_until

NAMES = ("PARENT", "CHILD1", "CHILD2")
LINKS = {"PARENT": ("CHILD1", "CHILD2"), "CHILD1": ("PARENT",), "CHILD2": ("PARENT",)}
FAST_RETRY = "SHORTRTY(60) SHORTTMR(1) LONGTMR(5) DISCINT(0)"


def channels(name: str, ports: dict[str, int]) -> str:
    out = []
    for other in LINKS[name]:
        out += [f"DEFINE QLOCAL({other}) USAGE(XMITQ)",
                f"DEFINE CHANNEL({name}.TO.{other}) CHLTYPE(SDR) CONNAME('127.0.0.1({ports[other]})') "
                f"XMITQ({other}) {FAST_RETRY}",
                f"DEFINE CHANNEL({other}.TO.{name}) CHLTYPE(RCVR)"]
    return "\n".join(out + ["DEFINE QLOCAL(SUBQ)", "DEFINE QLOCAL(OTHERQ)"]) + "\n"


@pytest.fixture(scope="module")
def tree() -> Iterator[Harness]:
    h = Harness()
    try:
        ports = {n: free_port() for n in NAMES}
        for n in NAMES:
            h.add(n, channels(n, ports), port=ports[n])
        for n in NAMES:
            for other in LINKS[n]:
                h.qm(n).mqsc(f"START CHANNEL({n}.TO.{other})\n")
        yield h
    finally:
        h.close()


def pubsub(h: Harness, qm: str, kind: str) -> dict[str, str]:
    """QMNAME -> STATUS of DISPLAY PUBSUB TYPE(kind) on ``qm``."""
    out = h.qm(qm).mqsc(f"DISPLAY PUBSUB TYPE({kind})").stdout
    return dict(re.findall(r"QMNAME\((\S+?)\).*?STATUS\((\S+?)\)", out, re.S))


def publish(h: Harness, qm: str, topic: str, bodies: list[bytes], pmo_options: int = 0) -> None:
    conn = h.qm(qm).client()
    try:
        t = pymqi.Topic(conn, topic_string=topic)
        t.open(open_opts=C.MQOO_OUTPUT)
        for b in bodies:
            t.pub(b, pymqi.MD(Persistence=C.MQPER_PERSISTENT), pymqi.PMO(Options=pmo_options))
        t.close()
    finally:
        conn.disconnect()


def test_children_join_the_parent(tree: Harness) -> None:
    for child in ("CHILD1", "CHILD2"):
        assert tree.qm(child).mqsc("ALTER QMGR PARENT(PARENT)\n").returncode == 0
    for child in ("CHILD1", "CHILD2"):
        wait_until(lambda c=child: pubsub(tree, c, "PARENT") == {"PARENT": "ACTIVE"}, timeout=30,
                   what=f"{child} to be an active child of PARENT")
    wait_until(lambda: pubsub(tree, "PARENT", "CHILD") == {"CHILD1": "ACTIVE", "CHILD2": "ACTIVE"}, timeout=30,
               what="PARENT to list both children")
    assert "PARENT(PARENT)" in tree.qm("CHILD1").mqsc("DISPLAY QMGR PARENT\n").stdout
    # TYPE(ALL): this queue manager and its relations; PCF Inquire Pub/Sub Status answers the same.
    assert set(pubsub(tree, "PARENT", "ALL")) == {"PARENT", "CHILD1", "CHILD2"}
    conn = tree.qm("PARENT").client()
    try:
        rows = pymqi.PCFExecute(conn).MQCMD_INQUIRE_PUBSUB_STATUS(
            {pymqi.CMQCFC.MQIACF_PS_STATUS_TYPE: pymqi.CMQCFC.MQPSST_CHILD})
        assert {(r[C.MQCA_Q_MGR_NAME].strip(), r[pymqi.CMQCFC.MQIACF_PUBSUB_STATUS]) for r in rows} == {
            (b"CHILD1", pymqi.CMQCFC.MQPS_STATUS_ACTIVE), (b"CHILD2", pymqi.CMQCFC.MQPS_STATUS_ACTIVE)}
    finally:
        conn.disconnect()


def test_publications_follow_the_proxy_subscriptions(tree: Harness) -> None:
    tree.qm("CHILD2").mqsc("DEFINE SUB(ALLNEWS) TOPICSTR('news/#') DEST(SUBQ)\n", check=True)
    tree.qm("PARENT").mqsc("DEFINE SUB(SPORT) TOPICSTR('news/sport') DEST(SUBQ)\n", check=True)
    # CHILD1 learns of both through its parent (CHILD2's proxy travels up and down the tree).
    wait_until(lambda: re.search(r"QMNAME\(PARENT\).*?SUBCOUNT\(2\)",
                                 tree.qm("CHILD1").mqsc("DISPLAY PUBSUB TYPE(PARENT)").stdout, re.S),
               timeout=30, what="CHILD1 to hold PARENT's two proxy subscriptions")
    out = tree.qm("CHILD1").mqsc("DISPLAY SUB(*) SUBTYPE(PROXY)").stdout
    assert "SUB(SYSTEM.PROXY.PARENT HIERARCHY news/#)" in out and "TOPICSTR(news/sport)" in out
    bodies = [f"story {i}".encode() for i in range(10)]
    publish(tree, "CHILD1", "news/sport", bodies)
    publish(tree, "CHILD1", "news/weather", [b"rain"])
    publish(tree, "CHILD1", "news/local", [b"stays"], C.MQPMO_SCOPE_QMGR)
    wait_until(lambda: depth(tree, "CHILD2", "SUBQ") == 11 and depth(tree, "PARENT", "SUBQ") == 10, timeout=30,
               what="the publications at CHILD2 and PARENT")
    assert sorted(drain(tree, "CHILD2", "SUBQ")) == sorted(bodies + [b"rain"])
    assert sorted(drain(tree, "PARENT", "SUBQ")) == sorted(bodies)
    # Nothing comes back to the publisher's queue manager, and nothing is repeated.
    publish(tree, "CHILD2", "news/sport", [b"from the other side"])
    wait_until(lambda: depth(tree, "PARENT", "SUBQ") == 1, timeout=30, what="CHILD2's publication at PARENT")
    assert depth(tree, "CHILD2", "SUBQ") == 1 and depth(tree, "CHILD1", "SUBQ") == 0
    drain(tree, "CHILD2", "SUBQ")
    drain(tree, "PARENT", "SUBQ")


def test_a_retained_publication_reaches_a_later_subscriber_across_the_tree(tree: Harness) -> None:
    # Published on CHILD1 with nobody subscribed anywhere: it stays there, retained.
    publish(tree, "CHILD1", "prices/gold", [b"1900"], C.MQPMO_RETAIN)
    # CHILD2's new subscription sends its proxy up; CHILD1 sends the retained publication down the
    # path (PARENT keeps it on the way), and CHILD2's subscriber gets it.
    tree.qm("CHILD2").mqsc("DEFINE SUB(PRICES) TOPICSTR('prices/#') DEST(OTHERQ)\n", check=True)
    wait_until(lambda: depth(tree, "CHILD2", "OTHERQ") == 1, timeout=30, what="the retained price at CHILD2")
    assert drain(tree, "CHILD2", "OTHERQ") == [b"1900"]
    assert "RETAINED(YES)" in tree.qm("PARENT").mqsc("DISPLAY TPSTATUS('prices/gold') RETAINED").stdout
    tree.qm("CHILD2").mqsc("DELETE SUB(PRICES)\n", check=True)


def test_the_parent_killed_and_restarted(tree: Harness) -> None:
    tree.qm("PARENT").kill9()
    tree.qm("PARENT").start()
    for n in ("PARENT",):
        for other in LINKS[n]:
            tree.qm(n).mqsc(f"START CHANNEL({n}.TO.{other})\n")
    # The parent remembers its children and asks them for their proxies again.
    wait_until(lambda: pubsub(tree, "PARENT", "CHILD") == {"CHILD1": "ACTIVE", "CHILD2": "ACTIVE"}, timeout=30,
               what="PARENT's children after its restart")
    wait_until(lambda: re.search(r"QMNAME\(CHILD2\).*?SUBCOUNT\(1\)",
                                 tree.qm("PARENT").mqsc("DISPLAY PUBSUB TYPE(CHILD)").stdout, re.S),
               timeout=30, what="CHILD2's proxy at PARENT again")
    bodies = [f"after {i}".encode() for i in range(5)]
    publish(tree, "CHILD1", "news/sport", bodies)
    wait_until(lambda: depth(tree, "CHILD2", "SUBQ") == 5 and depth(tree, "PARENT", "SUBQ") == 5, timeout=40,
               what="publications through the restarted parent")
    assert sorted(drain(tree, "CHILD2", "SUBQ")) == sorted(bodies)


def test_a_loop_is_refused_and_parent_can_be_removed(tree: Harness) -> None:
    # PARENT naming its own child as parent would make a loop: CHILD1 refuses it.
    tree.qm("PARENT").mqsc("ALTER QMGR PARENT(CHILD1)\n", check=True)
    wait_until(lambda: pubsub(tree, "PARENT", "PARENT") == {"CHILD1": "REFUSED"}, timeout=30,
               what="CHILD1 to refuse PARENT as a child")
    assert pubsub(tree, "CHILD1", "CHILD") == {}
    tree.qm("PARENT").mqsc("ALTER QMGR PARENT(' ')\n", check=True)
    wait_until(lambda: pubsub(tree, "PARENT", "PARENT") == {}, timeout=30, what="PARENT's parent relation to go")
    # A child that leaves is forgotten by its parent; its publications stay at home.
    tree.qm("CHILD2").mqsc("ALTER QMGR PARENT(' ')\n", check=True)
    wait_until(lambda: pubsub(tree, "PARENT", "CHILD") == {"CHILD1": "ACTIVE"}, timeout=30,
               what="CHILD2 to leave")
    publish(tree, "CHILD1", "news/sport", [b"after CHILD2 left"])
    wait_until(lambda: depth(tree, "PARENT", "SUBQ") == 6, timeout=30, what="the publication at PARENT")
    assert depth(tree, "CHILD2", "SUBQ") == 0
