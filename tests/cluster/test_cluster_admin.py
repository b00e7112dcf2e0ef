"""Cluster administration on real processes: transmission queues (DEFCLXQ, CLCHNAME), clustered
queue-manager aliases, REFRESH CLUSTER, RESET CLUSTER, SUSPEND MODE(FORCE), promotion and demotion
of a full repository, and MQOPEN when no full repository answers (2189).

FR1 and FR2 are the full repositories of SALES; PR1 (DEFCLXQ(CHANNEL)) and PR2 are partials with
one manual CLUSSDR to FR1 each. The tests run in order on the one cluster.
"""
from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.testing import Harness, free_port
from tests.helpers import clusqmgr, depth, drain, open_q, put_reason, wait_until

FULL = ("FR1", "FR2")
NAMES = ("FR1", "FR2", "PR1", "PR2")
FAST_RETRY = "SHORTRTY(60) SHORTTMR(1) LONGTMR(5)"


def member_mqsc(name: str, ports: dict[str, int], manual: str, extra: str = "") -> str:
    out = [extra] if extra else []
    out.append(f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({ports[name]})') "
               f"CLUSTER(SALES) {FAST_RETRY}")
    out.append(f"DEFINE CHANNEL(TO.{manual}) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1({ports[manual]})') "
               f"CLUSTER(SALES) {FAST_RETRY}")
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Harness]:
    h = Harness()
    try:
        ports = {n: free_port() for n in NAMES}
        h.add("FR1", member_mqsc("FR1", ports, "FR2", "ALTER QMGR REPOS(SALES)"), port=ports["FR1"])
        h.add("FR2", member_mqsc("FR2", ports, "FR1", "ALTER QMGR REPOS(SALES)"), port=ports["FR2"])
        h.add("PR1", member_mqsc("PR1", ports, "FR1", "ALTER QMGR DEFCLXQ(CHANNEL)"), port=ports["PR1"])
        h.add("PR2", member_mqsc("PR2", ports, "FR1"), port=ports["PR2"])
        for n in NAMES:
            wait_until(lambda n=n: {"FR1", "FR2", n} <= set(clusqmgr(h, n)), what=f"{n} to join")
        yield h
    finally:
        h.close()


def chstatus(h: Harness, qm: str, channel: str, attr: str) -> str:
    out = h.qm(qm).mqsc(f"DISPLAY CHSTATUS({channel}) {attr}").stdout
    found = re.findall(rf"\b{attr}\(([^)]*)\)", out)
    return found[0].strip() if found else ""


def test_defclxq_channel_gives_each_cluster_sender_its_own_queue(cluster: Harness) -> None:
    cluster.qm("PR2").mqsc("DEFINE QLOCAL(QA) CLUSTER(SALES)", check=True)
    conn = cluster.qm("PR1").client()
    wait_until(lambda: put_reason(conn, "QA", C.MQOO_OUTPUT) == 0, what="QA usable from PR1")
    for _ in range(4):
        pymqi.Queue(conn, "QA", C.MQOO_OUTPUT).put(b"a")
    conn.disconnect()
    wait_until(lambda: depth(cluster, "PR2", "QA") == 5, what="5 messages on PR2")
    out = cluster.qm("PR1").mqsc("DISPLAY QLOCAL(SYSTEM.CLUSTER.TRANSMIT.TO.*) CLCHNAME DEFTYPE USAGE").stdout
    # One queue per channel used: the two full repositories (PR1 publishes to both) and PR2.
    assert sorted(re.findall(r"QUEUE\((SYSTEM\.CLUSTER\.TRANSMIT\.TO\.\w+)\)", out)) == [
        "SYSTEM.CLUSTER.TRANSMIT.TO.FR1", "SYSTEM.CLUSTER.TRANSMIT.TO.FR2", "SYSTEM.CLUSTER.TRANSMIT.TO.PR2"]
    assert "CLCHNAME(TO.PR2)" in out and out.count("DEFTYPE(PERMDYN)") == 3 and out.count("USAGE(XMITQ)") == 3
    assert chstatus(cluster, "PR1", "TO.PR2", "XMITQ") == "SYSTEM.CLUSTER.TRANSMIT.TO.PR2"
    assert depth(cluster, "PR1", "SYSTEM.CLUSTER.TRANSMIT.QUEUE") == 0
    # Applications cannot put to the automatically created cluster transmission queues either.
    conn = cluster.qm("PR1").client()
    assert put_reason(conn, "SYSTEM.CLUSTER.TRANSMIT.TO.PR2", C.MQOO_OUTPUT) == C.MQRC_XMIT_Q_USAGE_ERROR
    conn.disconnect()
    drain(cluster, "PR2", "QA")


def test_clchname_selects_the_transmission_queue_and_switches_on_restart(cluster: Harness) -> None:
    pr2 = cluster.qm("PR2")
    pr2.mqsc("DEFINE QLOCAL(XQ.GENERIC) USAGE(XMITQ) CLCHNAME('TO.P*')", check=True)
    cluster.qm("PR1").mqsc("DEFINE QLOCAL(QB) CLUSTER(SALES)", check=True)
    conn = pr2.client()
    wait_until(lambda: put_reason(conn, "QB", C.MQOO_OUTPUT) == 0, what="QB usable from PR2")
    wait_until(lambda: depth(cluster, "PR1", "QB") == 1, what="the first message on PR1")
    assert chstatus(cluster, "PR2", "TO.PR1", "XMITQ") == "XQ.GENERIC"
    # With the channel stopped, messages wait on the queue it is associated with.
    pr2.mqsc("STOP CHANNEL(TO.PR1) MODE(FORCE)", check=True)
    wait_until(lambda: chstatus(cluster, "PR2", "TO.PR1", "STATUS") == "STOPPED", what="TO.PR1 stopped")
    q = pymqi.Queue(conn, "QB", C.MQOO_OUTPUT | C.MQOO_BIND_NOT_FIXED)
    for i in range(5):
        q.put(b"%d" % i, pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    assert depth(cluster, "PR2", "XQ.GENERIC") == 5
    # An exact CLCHNAME is more specific than the generic one: the association changes when the
    # channel starts again, and the waiting messages move with it.
    pr2.mqsc("DEFINE QLOCAL(XQ.EXACT) USAGE(XMITQ) CLCHNAME(TO.PR1)", check=True)
    assert depth(cluster, "PR2", "XQ.GENERIC") == 5 and depth(cluster, "PR2", "XQ.EXACT") == 0
    pr2.mqsc("START CHANNEL(TO.PR1)", check=True)
    wait_until(lambda: depth(cluster, "PR1", "QB") == 6, what="the 5 waiting messages delivered")
    assert chstatus(cluster, "PR2", "TO.PR1", "XMITQ") == "XQ.EXACT"
    # The handle opened before the switch now puts to the new queue too.
    q.put(b"5", pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    q.close()
    wait_until(lambda: depth(cluster, "PR1", "QB") == 7, what="the message put after the switch")
    assert depth(cluster, "PR2", "XQ.GENERIC") == 0 and depth(cluster, "PR2", "XQ.EXACT") == 0
    assert put_reason(conn, "XQ.EXACT", C.MQOO_OUTPUT) == C.MQRC_XMIT_Q_USAGE_ERROR
    conn.disconnect()
    assert sorted(drain(cluster, "PR1", "QB")) == [b"0", b"1", b"2", b"3", b"4", b"5", b"x"]


def test_qremote_to_a_cluster_qmgr_and_a_clustered_qmgr_alias(cluster: Harness) -> None:
    pr2 = cluster.qm("PR2")
    # PR2 advertises a queue-manager alias GW; LQ is an ordinary local queue, not in the cluster.
    pr2.mqsc("DEFINE QLOCAL(LQ)\nDEFINE QREMOTE(GW) RNAME(' ') RQMNAME(PR2) CLUSTER(SALES)", check=True)
    conn = cluster.qm("PR1").client()
    od = pymqi.OD(ObjectName=b"LQ", ObjectQMgrName=b"GW")
    q = wait_until(lambda: pymqi.Queue(conn, od, C.MQOO_OUTPUT), what="GW known to PR1")
    q.put(b"through the alias")
    q.close()
    # Seed 000: a remote definition whose RQMNAME is a cluster queue manager goes through the
    # cluster transmission queue (no transmission queue named PR2 exists).
    cluster.qm("PR1").mqsc("DEFINE QREMOTE(A) RNAME(LQ) RQMNAME(PR2)", check=True)
    pymqi.Queue(conn, "A", C.MQOO_OUTPUT).put(b"through QREMOTE")
    conn.disconnect()
    wait_until(lambda: depth(cluster, "PR2", "LQ") == 2, what="both messages on PR2's LQ")
    assert sorted(drain(cluster, "PR2", "LQ")) == [b"through QREMOTE", b"through the alias"]
    out = cluster.qm("FR1").mqsc("DISPLAY QCLUSTER(GW) CLUSQT").stdout
    assert "CLUSQT(QMGR)" in out and "CLUSQMGR(PR2)" in out


def test_refresh_cluster_rebuilds_the_cache_and_loses_nothing(cluster: Harness) -> None:
    pr1 = cluster.qm("PR1")
    r = cluster.qm("FR1").mqsc("REFRESH CLUSTER(SALES) REPOS(YES)")
    assert "AMQ9406E" in r.stdout and r.returncode == 10
    assert "AMQ9400E" in pr1.mqsc("REFRESH CLUSTER(NOSUCH)").stdout
    # Messages for PR2 wait on PR1 (its channel stopped) while PR1 refreshes.
    pr1.mqsc("STOP CHANNEL(TO.PR2) MODE(FORCE)", check=True)
    wait_until(lambda: chstatus(cluster, "PR1", "TO.PR2", "STATUS") == "STOPPED", what="TO.PR2 stopped")
    conn, q = open_q(cluster, "PR1", "QA", C.MQOO_OUTPUT | C.MQOO_BIND_NOT_FIXED)
    for i in range(10):
        q.put(b"before %d" % i, pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    r = pr1.mqsc("REFRESH CLUSTER(SALES)")
    assert "AMQ8573I" in r.stdout and r.returncode == 0
    # The cache is rebuilt from the full repositories: the open handle goes on working.
    wait_until(lambda: "CLUSQMGR(PR2)" in pr1.mqsc("DISPLAY QCLUSTER(QA)").stdout, what="QA known again")
    sent = 10
    deadline = time.monotonic() + 20
    while sent < 20 and time.monotonic() < deadline:
        try:
            q.put(b"after %d" % sent, pymqi.MD(Persistence=C.MQPER_PERSISTENT))
            sent += 1
        except pymqi.MQMIError as e:          # MQ allows 2085 while a refresh is in progress
            assert e.reason == C.MQRC_UNKNOWN_OBJECT_NAME
            time.sleep(0.2)
    conn.disconnect()
    assert sent == 20
    pr1.mqsc("START CHANNEL(TO.PR2)", check=True)
    wait_until(lambda: depth(cluster, "PR2", "QA") == 20, what="all 20 messages on PR2")
    assert len(set(drain(cluster, "PR2", "QA"))) == 20
    # REFRESH REPOS(YES) on a partial: the full repositories are found again from the CLUSSDR.
    assert "AMQ8573I" in pr1.mqsc("REFRESH CLUSTER(*) REPOS(YES)").stdout
    wait_until(lambda: {"FR1", "FR2"} <= set(clusqmgr(cluster, "PR1")), what="PR1 to find FR1 and FR2 again")


def test_suspend_mode_force_stops_the_cluster_channels(cluster: Harness) -> None:
    pr2 = cluster.qm("PR2")
    r = pr2.mqsc("SUSPEND QMGR CLUSTER(SALES) MODE(FORCE)")
    assert "AMQ8558I: IBM MQ suspend queue manager cluster accepted." in r.stdout
    try:
        for ch in ("TO.PR2", "TO.FR1"):
            wait_until(lambda ch=ch: chstatus(cluster, "PR2", ch, "STATUS") == "STOPPED", what=f"{ch} stopped")
        wait_until(lambda: "SUSPEND(YES)" in pr2.mqsc("DISPLAY CLUSQMGR(PR2) SUSPEND").stdout,
                   what="PR2 suspended in its own view")
    finally:
        # RESUME does not restart the channels FORCE stopped (as in MQ): start them again.
        pr2.mqsc("RESUME QMGR CLUSTER(SALES)", check=True)
        out = pr2.mqsc("DISPLAY CHSTATUS(*) WHERE(STATUS EQ STOPPED)").stdout
        for ch in sorted(set(re.findall(r"CHANNEL\((\S+?)\)", out))):
            pr2.mqsc(f"START CHANNEL({ch})", check=True)
    wait_until(lambda: "SUSPEND(NO)" in cluster.qm("FR1").mqsc("DISPLAY CLUSQMGR(PR2) SUSPEND").stdout,
               what="FR1 to see PR2 resumed")


def test_reset_cluster_forceremove_and_rejoin_guard(cluster: Harness) -> None:
    fr1 = cluster.qm("FR1")
    r = cluster.qm("PR1").mqsc("RESET CLUSTER(SALES) ACTION(FORCEREMOVE) QMNAME(PR2)")
    assert "AMQ9419E" in r.stdout                               # only on a full repository
    assert "AMQ9427E" in fr1.mqsc("RESET CLUSTER(SALES) ACTION(FORCEREMOVE) QMNAME(NOBODY)").stdout
    assert "AMQ8405I" in fr1.mqsc("RESET CLUSTER(SALES) ACTION(FORCEREMOVE)").stdout
    r = fr1.mqsc("RESET CLUSTER(SALES) ACTION(FORCEREMOVE) QMNAME(PR2) QUEUES(YES)")
    assert r.returncode == 0, r.stdout
    for qm in ("FR1", "FR2"):
        wait_until(lambda qm=qm: "PR2" not in clusqmgr(cluster, qm), what=f"{qm} to forget PR2")
    # QUEUES(YES): PR2's cluster queues went with it; PR1 hears of the deletion.
    conn = cluster.qm("PR1").client()
    wait_until(lambda: put_reason(conn, "QA", C.MQOO_OUTPUT) == C.MQRC_UNKNOWN_OBJECT_NAME, what="QA gone")
    # A refresh within 10 seconds of the reset is ignored by the full repository.
    t_reset = time.monotonic()
    cluster.qm("PR2").mqsc("REFRESH CLUSTER(SALES)", check=True)
    time.sleep(3)
    assert "PR2" not in clusqmgr(cluster, "FR1")
    time.sleep(max(0.0, 10.5 - (time.monotonic() - t_reset)))
    cluster.qm("PR2").mqsc("REFRESH CLUSTER(SALES)", check=True)
    wait_until(lambda: clusqmgr(cluster, "FR1").get("PR2") == "NORMAL", what="PR2 to rejoin")
    wait_until(lambda: put_reason(conn, "QA", C.MQOO_OUTPUT) == 0, what="QA back after the rejoin")
    conn.disconnect()
    wait_until(lambda: depth(cluster, "PR2", "QA") == 1, what="the message on PR2")
    drain(cluster, "PR2", "QA")


def test_promotion_to_and_demotion_from_full_repository(cluster: Harness) -> None:
    pr2 = cluster.qm("PR2")
    cluster.qm("PR1").mqsc("DEFINE QLOCAL(QP) CLUSTER(SALES)", check=True)
    pr2.mqsc("ALTER QMGR REPOS(SALES)", check=True)
    for qm in ("FR1", "FR2", "PR1"):
        wait_until(lambda qm=qm: clusqmgr(cluster, qm).get("PR2") == "REPOS", what=f"{qm} to see PR2 as REPOS")
    # A full repository holds everything without subscribing: QP is there before any use.
    wait_until(lambda: "CLUSQMGR(PR1)" in pr2.mqsc("DISPLAY QCLUSTER(QP)").stdout, what="PR2 to hold QP")
    pr2.mqsc("ALTER QMGR REPOS(' ')", check=True)
    for qm in ("FR1", "FR2"):
        wait_until(lambda qm=qm: clusqmgr(cluster, qm).get("PR2") == "NORMAL", what=f"{qm} to see PR2 demoted")
    conn = pr2.client()
    assert put_reason(conn, "QP", C.MQOO_OUTPUT) == 0
    conn.disconnect()
    wait_until(lambda: depth(cluster, "PR1", "QP") == 1, what="the message on PR1")


def test_cluster_commands_through_pcf(cluster: Harness) -> None:
    conn = cluster.qm("FR1").client()
    p = pymqi.PCFExecute(conn)
    try:
        rows = p.MQCMD_INQUIRE_CLUSTER_Q_MGR({C.MQCA_CLUSTER_Q_MGR_NAME: b"*"})
        got = {r[C.MQCA_CLUSTER_Q_MGR_NAME].strip().decode():
               (r[F.MQIACF_Q_MGR_TYPE], r[F.MQIACF_Q_MGR_DEFINITION_TYPE]) for r in rows}
        assert got == {"FR1": (F.MQQMT_REPOSITORY, F.MQQMDT_CLUSTER_RECEIVER),
                       "FR2": (F.MQQMT_REPOSITORY, F.MQQMDT_AUTO_EXP_CLUSTER_SENDER),
                       "PR1": (F.MQQMT_NORMAL, F.MQQMDT_AUTO_CLUSTER_SENDER),
                       "PR2": (F.MQQMT_NORMAL, F.MQQMDT_AUTO_CLUSTER_SENDER)}
        assert all(r[C.MQCA_CLUSTER_NAME].strip() == b"SALES" for r in rows)
        full = p.MQCMD_INQUIRE_CLUSTER_Q_MGR({C.MQCA_CLUSTER_Q_MGR_NAME: b"*"}, [
            pymqi.Filter(F.MQIACF_Q_MGR_TYPE).equal(F.MQQMT_REPOSITORY)])
        assert sorted(r[C.MQCA_CLUSTER_Q_MGR_NAME].strip() for r in full) == [b"FR1", b"FR2"]
        (pr1,) = p.MQCMD_INQUIRE_CLUSTER_Q_MGR({C.MQCA_CLUSTER_Q_MGR_NAME: b"PR1",
                                                F.MQIACF_CLUSTER_Q_MGR_ATTRS: [F.MQIACF_SUSPEND]})
        assert pr1[F.MQIACF_SUSPEND] == F.MQSUS_NO and F.MQIACF_Q_MGR_TYPE not in pr1
        # Bad parameters: MQ's reasons, naming the parameter.
        bad = [({C.MQCA_CLUSTER_NAME: b"SALES", F.MQIACF_ACTION: 9, C.MQCA_Q_MGR_NAME: b"PR1"},
                F.MQRCCF_ACTION_VALUE_ERROR),
               ({C.MQCA_CLUSTER_NAME: b"SALES", F.MQIACF_ACTION: F.MQACT_FORCE_REMOVE, C.MQCA_Q_MGR_NAME: b"PR1",
                 C.MQCA_Q_MGR_IDENTIFIER: b"PR1_X"}, F.MQRCCF_PARM_CONFLICT),
               ({C.MQCA_CLUSTER_NAME: b"SALES) QMNAME(PR2", F.MQIACF_ACTION: F.MQACT_FORCE_REMOVE,
                 C.MQCA_Q_MGR_NAME: b"PR1"}, F.MQRCCF_OBJECT_NAME_ERROR)]
        for params, reason in bad:
            with pytest.raises(pymqi.MQMIError) as e:
                p.MQCMD_RESET_CLUSTER(params)
            assert e.value.reason == reason
        assert "PR1" in clusqmgr(cluster, "FR1")            # nothing was removed
        with pytest.raises(pymqi.MQMIError) as e:
            p.MQCMD_REFRESH_CLUSTER({C.MQCA_CLUSTER_NAME: b"SALES",
                                     F.MQIACF_REFRESH_REPOSITORY: F.MQCFO_REFRESH_REPOSITORY_YES})
        assert e.value.reason == F.MQRCCF_COMMAND_FAILED  # REPOS(YES) on a full repository
        p.MQCMD_REFRESH_CLUSTER({C.MQCA_CLUSTER_NAME: b"SALES"})
        p.MQCMD_SUSPEND_Q_MGR_CLUSTER({C.MQCA_CLUSTER_NAME: b"SALES"})
        wait_until(lambda: "SUSPEND(YES)" in cluster.qm("FR2").mqsc("DISPLAY CLUSQMGR(FR1) SUSPEND").stdout,
                   what="FR2 to see FR1 suspended through PCF")
        p.MQCMD_RESUME_Q_MGR_CLUSTER({C.MQCA_CLUSTER_NAME: b"SALES"})
        wait_until(lambda: "SUSPEND(NO)" in cluster.qm("FR2").mqsc("DISPLAY CLUSQMGR(FR1) SUSPEND").stdout,
                   what="FR2 to see FR1 resumed")
    finally:
        p.disconnect()
        conn.disconnect()


def test_no_full_repository_answers_2189(cluster: Harness) -> None:
    """Last: both full repositories are ended, so a new name cannot be resolved."""
    for fr in FULL:
        cluster.qm(fr).kill9()
    conn = cluster.qm("PR1").client()
    t0 = time.monotonic()
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.Queue(conn, "NEVER.HEARD.OF", C.MQOO_OUTPUT)
    waited = time.monotonic() - t0
    assert e.value.reason == C.MQRC_CLUSTER_RESOLUTION_ERROR
    assert 9 <= waited < 15
    # What the cache holds still works without them.
    assert put_reason(conn, "QP", C.MQOO_OUTPUT) == 0
    conn.disconnect()
