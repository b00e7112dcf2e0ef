"""Overlapping clusters on real processes: CLUSNL on channels and queues, REPOSNL, and an
ObjectQMgrName reached through a channel of another cluster.

A is the full repository of SALES and INV (REPOSNL); B is a partial in SALES, C a partial in INV,
D a partial in both (CLUSNL on its channels). D hosts QX in both clusters and QI in INV only. E is a
partial in SALES whose manual CLUSSDR is named TO.+QMNAME+: it does not know the full repository's
name when it is defined.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.testing import Harness, free_port
from tests.helpers import depth, drain, put_reason, wait_until

FAST_RETRY = "SHORTRTY(60) SHORTTMR(1) LONGTMR(5)"


@pytest.fixture(scope="module")
def clusters() -> Iterator[Harness]:
    h = Harness()
    try:
        ports = {n: free_port() for n in "ABCDE"}

        def rcvr(n: str, where: str) -> str:
            return f"DEFINE CHANNEL(TO.{n}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({ports[n]})') {where} {FAST_RETRY}\n"

        def to_a(where: str) -> str:
            return f"DEFINE CHANNEL(TO.A) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1({ports['A']})') {where} {FAST_RETRY}\n"

        both = "DEFINE NAMELIST(BOTH) NAMES(SALES, INV)\n"
        h.add("A", both + "ALTER QMGR REPOSNL(BOTH)\n" + rcvr("A", "CLUSNL(BOTH)"), port=ports["A"])
        h.add("B", rcvr("B", "CLUSTER(SALES)") + to_a("CLUSTER(SALES)"), port=ports["B"])
        h.add("C", rcvr("C", "CLUSTER(INV)") + to_a("CLUSTER(INV)"), port=ports["C"])
        h.add("D", both + rcvr("D", "CLUSNL(BOTH)") + to_a("CLUSNL(BOTH)")
              + "DEFINE QLOCAL(QX) CLUSNL(BOTH)\nDEFINE QLOCAL(QI) CLUSTER(INV)\n", port=ports["D"])
        h.add("E", rcvr("E", "CLUSTER(SALES)") + f"DEFINE CHANNEL(TO.+QMNAME+) CHLTYPE(CLUSSDR) "
              f"CONNAME('127.0.0.1({ports['A']})') CLUSTER(SALES) {FAST_RETRY}\n", port=ports["E"])
        yield h
    finally:
        h.close()


def test_a_queue_manager_in_two_clusters_is_listed_once_per_cluster(clusters: Harness) -> None:
    def rows() -> list[tuple[str, str]]:
        out = clusters.qm("A").mqsc("DISPLAY CLUSQMGR(*) QMTYPE").stdout
        return sorted(re.findall(r"CLUSQMGR\((\w+)\)\s+CHANNEL\(\S+\)\s+CLUSTER\((\w+)\)", out))
    want = [("A", "INV"), ("A", "SALES"), ("B", "SALES"), ("C", "INV"), ("D", "INV"), ("D", "SALES"),
            ("E", "SALES")]
    wait_until(lambda: rows() == want, what="A to hold every member of both clusters")
    wait_until(lambda: len(re.findall(r"CLUSQMGR\(D\)", clusters.qm("A").mqsc("DISPLAY QCLUSTER(QX)").stdout)) == 2,
               what="QX advertised in both clusters")
    out = clusters.qm("A").mqsc("DISPLAY QCLUSTER(QX) CLUSTER").stdout
    assert sorted(re.findall(r"\bCLUSTER\((\w+)\)", out)) == ["INV", "SALES"]


def test_clusnl_queue_reached_from_either_cluster(clusters: Harness) -> None:
    for member in ("B", "C", "E"):
        conn = clusters.qm(member).client()
        wait_until(lambda conn=conn: put_reason(conn, "QX", C.MQOO_OUTPUT) == 0, what=f"QX from {member}")
        conn.disconnect()
    wait_until(lambda: depth(clusters, "D", "QX") == 3, what="the three messages on D")
    drain(clusters, "D", "QX")


def test_a_manual_clussdr_named_with_qmname(clusters: Harness) -> None:
    out = clusters.qm("E").mqsc("DISPLAY CLUSQMGR(*) QMTYPE DEFTYPE").stdout
    assert re.findall(r"CLUSQMGR\((\w+)\)", out) == ["A", "D", "E"]      # A, and D which E used for QX
    assert "QMTYPE(REPOS)" in out.split("CLUSQMGR(A)")[1].split("AMQ8441I")[0]


def test_a_queue_in_another_cluster_is_unknown_but_its_host_is_reachable(clusters: Harness) -> None:
    conn = clusters.qm("B").client()
    # QI is advertised only in INV, which B is not in.
    assert put_reason(conn, "QI", C.MQOO_OUTPUT) == C.MQRC_UNKNOWN_OBJECT_NAME
    # Naming D as ObjectQMgrName reaches it through the SALES channel, whatever QI's cluster.
    q = pymqi.Queue(conn, pymqi.OD(ObjectName=b"QI", ObjectQMgrName=b"D"), C.MQOO_OUTPUT)
    q.put(b"via SALES")
    q.close()
    conn.disconnect()
    conn = clusters.qm("C").client()
    assert put_reason(conn, "QI", C.MQOO_OUTPUT) == 0
    conn.disconnect()
    wait_until(lambda: depth(clusters, "D", "QI") == 2, what="both messages on D's QI")
    assert sorted(drain(clusters, "D", "QI")) == [b"via SALES", b"x"]


def test_suspend_in_one_cluster_only(clusters: Harness) -> None:
    d = clusters.qm("D")
    d.mqsc("SUSPEND QMGR CLUSTER(INV)", check=True)
    try:
        def seen() -> list[tuple[str, str]]:
            out = clusters.qm("A").mqsc("DISPLAY CLUSQMGR(D) SUSPEND").stdout
            return re.findall(r"CLUSTER\((\w+)\)\s+SUSPEND\((\w+)\)", out)
        wait_until(lambda: seen() == [("INV", "YES"), ("SALES", "NO")], what="D suspended in INV only")
        assert "AMQ9400E" in clusters.qm("B").mqsc("SUSPEND QMGR CLUSTER(INV)").stdout
    finally:
        d.mqsc("RESUME QMGR CLUSTER(INV)", check=True)
