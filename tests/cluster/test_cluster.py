"""A cluster of real queue-manager processes: two full repositories and four partial ones.

FR1 and FR2 hold full repositories for SALES and point at each other with manual CLUSSDRs; PR1 and
PR2 have one manual CLUSSDR to FR1, PR3 and PR4 one to FR2. Everything else (the other full
repository, the other members, the cluster-sender channels between partials) is learnt. The tests
run in order on one cluster; the last one moves every clock 31 days on.
"""
from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.testing import Harness, free_port
from tests.helpers import clusqmgr, depth, drain, open_q, put_reason, wait_until

FULL = ("FR1", "FR2")
PARTIAL = ("PR1", "PR2", "PR3", "PR4")
MANUAL = {"FR1": "FR2", "FR2": "FR1", "PR1": "FR1", "PR2": "FR1", "PR3": "FR2", "PR4": "FR2"}
FAST_RETRY = "SHORTRTY(60) SHORTTMR(1) LONGTMR(5)"


def cluster_mqsc(name: str, ports: dict[str, int]) -> str:
    out = []
    if name in FULL:
        out.append("ALTER QMGR REPOS(SALES)")
    out.append(f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({ports[name]})') "
               f"CLUSTER(SALES) {FAST_RETRY}")
    t = MANUAL[name]
    out.append(f"DEFINE CHANNEL(TO.{t}) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1({ports[t]})') CLUSTER(SALES) {FAST_RETRY}")
    if name in PARTIAL:
        out.append("DEFINE QLOCAL(Q1) CLUSTER(SALES) DEFBIND(NOTFIXED)")
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Harness]:
    h = Harness()
    try:
        ports = {n: free_port() for n in FULL + PARTIAL}
        for n in FULL + PARTIAL:
            h.add(n, cluster_mqsc(n, ports), port=ports[n])
        yield h
    finally:
        h.close()


def test_cluster_converges(cluster: Harness) -> None:
    everyone = {n: ("REPOS" if n in FULL else "NORMAL") for n in FULL + PARTIAL}
    for fr in FULL:
        wait_until(lambda fr=fr: clusqmgr(cluster, fr) == everyone, what=f"{fr} to know every member")
    for pr in PARTIAL:
        # A partial knows itself and both full repositories, although it names only one of them.
        wait_until(lambda pr=pr: {k: v for k, v in clusqmgr(cluster, pr).items()} ==
                   {"FR1": "REPOS", "FR2": "REPOS", pr: "NORMAL"}, what=f"{pr} to know both full repositories")
    out = cluster.qm("FR1").mqsc("DISPLAY CLUSQMGR(PR1) DEFTYPE\nDISPLAY CLUSQMGR(FR2) DEFTYPE\n"
                                 "DISPLAY CLUSQMGR(FR1) DEFTYPE").stdout
    assert re.findall(r"DEFTYPE\((\w+)\)", out) == ["CLUSSDRA", "CLUSSDRB", "CLUSRCVR"]


def test_round_robin_over_four_instances(cluster: Harness) -> None:
    wait_until(lambda: len(re.findall(r"CLUSQMGR\(PR", cluster.qm("FR1").mqsc("DISPLAY QCLUSTER(Q1)").stdout)) == 4,
               what="FR1 to hold the four instances of Q1")
    conn, q = open_q(cluster, "FR1", "Q1", C.MQOO_OUTPUT | C.MQOO_BIND_NOT_FIXED)
    # Rules 9-12 put a channel that is STARTING or BINDING behind the INACTIVE and RUNNING ones, so
    # the rotation is exact only while no channel is on its way up: bring FR1's four cluster-sender
    # channels to RUNNING first (they stay up for DISCINT). Instances passed over meanwhile were
    # charged less (rule 18's DestSeqFactor), so top them up: with every channel in one tier, each
    # extra message goes to the least used instance until all four have had the same number.
    for _ in range(8):
        q.put(b"warm", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
    conn.commit()
    wait_until(lambda: len(re.findall(r"STATUS\(RUNNING\)", cluster.qm("FR1").mqsc(
        "DISPLAY CHSTATUS(TO.PR*) STATUS").stdout)) == 4, what="FR1's channels to PR1-PR4 to be running")
    wait_until(lambda: sum(depth(cluster, p, "Q1") for p in PARTIAL) == 8, what="8 warm-up messages delivered")
    counts = [depth(cluster, p, "Q1") for p in PARTIAL]
    for _ in range(4 * max(counts) - 8):
        q.put(b"warm")
    wait_until(lambda: [depth(cluster, p, "Q1") for p in PARTIAL] == [max(counts)] * 4,
               what="the least used instances topped up")
    for p in PARTIAL:
        drain(cluster, p, "Q1")
    for i in range(1, 21):
        q.put(str(i).encode(), pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    conn.disconnect()
    wait_until(lambda: sum(depth(cluster, p, "Q1") for p in PARTIAL) == 20, what="20 messages delivered")
    got = {p: [int(m) for m in drain(cluster, p, "Q1")] for p in PARTIAL}
    assert sorted(len(v) for v in got.values()) == [5, 5, 5, 5]
    assert [1, 5, 9, 13, 17] in got.values()
    assert sorted(sum(got.values(), [])) == list(range(1, 21))


def test_bind_on_open_and_on_group(cluster: Harness) -> None:
    conn, q = open_q(cluster, "FR2", "Q1", C.MQOO_OUTPUT | C.MQOO_BIND_ON_OPEN)
    chosen = q._od.ResolvedQMgrName.rstrip(b" \0").decode() if hasattr(q, "_od") else None
    for i in range(6):
        q.put(b"open-%d" % i)
    conn.disconnect()
    wait_until(lambda: sum(depth(cluster, p, "Q1") for p in PARTIAL) == 6, what="6 bound messages")
    held = {p: len(drain(cluster, p, "Q1")) for p in PARTIAL}
    assert sorted(held.values()) == [0, 0, 0, 6]
    if chosen:
        assert held[chosen] == 6
    # BIND_ON_GROUP: each group of three lands on one instance; the next group may go elsewhere.
    conn, q = open_q(cluster, "FR2", "Q1", C.MQOO_OUTPUT | C.MQOO_BIND_ON_GROUP)
    for g in range(4):
        for i in range(3):
            flags = C.MQMF_LAST_MSG_IN_GROUP if i == 2 else C.MQMF_MSG_IN_GROUP
            q.put(b"g%d-%d" % (g, i), pymqi.MD(MsgFlags=flags), pymqi.PMO(Options=C.MQPMO_LOGICAL_ORDER))
    conn.disconnect()
    wait_until(lambda: sum(depth(cluster, p, "Q1") for p in PARTIAL) == 12, what="12 grouped messages")
    groups: dict[str, set[str]] = {}
    for p in PARTIAL:
        for m in drain(cluster, p, "Q1"):
            groups.setdefault(m.decode().split("-")[0], set()).add(p)
    assert all(len(where) == 1 for where in groups.values()), groups
    assert len(set().union(*groups.values())) == 4          # the four groups went round the instances


def test_local_instance_first_unless_clwluseq_any(cluster: Harness) -> None:
    conn, q = open_q(cluster, "PR2", "Q1", C.MQOO_OUTPUT | C.MQOO_BIND_NOT_FIXED)
    for _ in range(4):
        q.put(b"local")
    conn.disconnect()
    assert depth(cluster, "PR2", "Q1") == 4
    drain(cluster, "PR2", "Q1")
    cluster.qm("PR2").mqsc("ALTER QLOCAL(Q1) CLWLUSEQ(ANY)", check=True)
    # Opening Q1 subscribed to its other instances: wait for the full repository's answer.
    wait_until(lambda: len(re.findall(r"CLUSQMGR\(PR", cluster.qm("PR2").mqsc("DISPLAY QCLUSTER(Q1)").stdout)) == 4,
               what="PR2 to learn the other instances of Q1")
    try:
        conn, q = open_q(cluster, "PR2", "Q1", C.MQOO_OUTPUT | C.MQOO_BIND_NOT_FIXED)
        for _ in range(8):
            q.put(b"any")
        conn.disconnect()
        wait_until(lambda: sum(depth(cluster, p, "Q1") for p in PARTIAL) == 8, what="8 messages")
        remote = sum(len(drain(cluster, p, "Q1")) for p in ("PR1", "PR3", "PR4"))
        local = len(drain(cluster, "PR2", "Q1"))
        # Round-robin over the four, except that a channel still starting ranks below the local
        # instance (channel-state tiers): the remote instances get some, not necessarily six.
        assert remote > 0 and local + remote == 8
    finally:
        cluster.qm("PR2").mqsc("ALTER QLOCAL(Q1) CLWLUSEQ(QMGR)", check=True)


def test_unknown_name_on_a_partial_is_2085_after_the_answer(cluster: Harness) -> None:
    conn = cluster.qm("PR3").client()
    t0 = time.monotonic()
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.Queue(conn, "NO.SUCH.QUEUE", C.MQOO_OUTPUT)
    assert e.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    assert time.monotonic() - t0 < 10
    # Input needs a local instance: a cluster queue hosted elsewhere is 2085 for MQOO_INPUT.
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.Queue(conn, "Q1.ELSEWHERE", C.MQOO_INPUT_SHARED)
    assert e.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    conn.disconnect()


def test_a_partials_first_open_of_a_queue_hosted_elsewhere_puts_at_once(cluster: Harness) -> None:
    """The full repository's answer to a partial's first MQOPEN of a cluster queue carries the
    hosts' queue-manager records with the queue's (as MQ's does): the open and its first put
    succeed, with no second round trip for where the hosts are (they did not: the answer held the
    queue records only, so the first put failed 2085 and a retry a moment later worked)."""
    for host in ("PR1", "PR2"):
        cluster.qm(host).mqsc("DEFINE QLOCAL(Q3.FIRST) CLUSTER(SALES)", check=True)
    for fr in FULL:
        wait_until(lambda fr=fr: len(re.findall(r"CLUSQMGR\(PR", cluster.qm(fr).mqsc(
            "DISPLAY QCLUSTER(Q3.FIRST)").stdout)) == 2, what=f"{fr} to hold both instances of Q3.FIRST")
    conn = cluster.qm("PR3").client()
    q = pymqi.Queue(conn, "Q3.FIRST", C.MQOO_OUTPUT | C.MQOO_BIND_NOT_FIXED)
    for i in range(4):
        q.put(b"first %d" % i)
    q.close()
    bound = pymqi.Queue(conn, "Q3.FIRST", C.MQOO_OUTPUT | C.MQOO_BIND_ON_OPEN)
    bound.put(b"bound")
    bound.close()
    conn.disconnect()
    wait_until(lambda: depth(cluster, "PR1", "Q3.FIRST") + depth(cluster, "PR2", "Q3.FIRST") == 5,
               what="the five messages on PR1 and PR2")
    got = sorted(drain(cluster, "PR1", "Q3.FIRST") + drain(cluster, "PR2", "Q3.FIRST"))
    assert got == [b"bound", b"first 0", b"first 1", b"first 2", b"first 3"]
    for host in ("PR1", "PR2"):
        cluster.qm(host).mqsc("DELETE QLOCAL(Q3.FIRST) PURGE", check=True)


def test_definitions_reach_the_subscriber(cluster: Harness) -> None:
    conn = cluster.qm("PR4").client()
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.Queue(conn, "Q2", C.MQOO_OUTPUT)           # subscribes to Q2 at the full repositories
    assert e.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    cluster.qm("PR1").mqsc("DEFINE QLOCAL(Q2) CLUSTER(SALES)", check=True)

    wait_until(lambda: put_reason(conn, "Q2", C.MQOO_OUTPUT) == 0,
               what="PR4 to learn Q2 from the full repositories' push")
    wait_until(lambda: depth(cluster, "PR1", "Q2") == 1, what="the message on PR1")
    cluster.qm("PR1").mqsc("ALTER QLOCAL(Q2) PUT(DISABLED)", check=True)
    wait_until(lambda: put_reason(conn, "Q2", C.MQOO_OUTPUT | C.MQOO_BIND_ON_OPEN) == C.MQRC_CLUSTER_PUT_INHIBITED,
               what="2268 once the alteration arrives")
    cluster.qm("PR1").mqsc("DELETE QLOCAL(Q2) PURGE", check=True)
    wait_until(lambda: put_reason(conn, "Q2", C.MQOO_OUTPUT) == C.MQRC_UNKNOWN_OBJECT_NAME,
               what="2085 once the deletion arrives")
    conn.disconnect()


def test_withdrawn_queue_fails_next_not_fixed_put(cluster: Harness) -> None:
    cluster.qm("PR2").mqsc("DEFINE QLOCAL(Q3) CLUSTER(SALES)", check=True)
    conn = cluster.qm("PR3").client()
    q = wait_until(lambda: pymqi.Queue(conn, "Q3", C.MQOO_OUTPUT | C.MQOO_BIND_NOT_FIXED), what="Q3 known")
    q.put(b"before")
    cluster.qm("PR2").mqsc("ALTER QLOCAL(Q3) CLUSTER(' ')", check=True)

    def refused() -> bool:
        try:
            q.put(b"after")
        except pymqi.MQMIError as e:
            return e.reason == C.MQRC_UNKNOWN_OBJECT_NAME
        return False
    wait_until(refused, what="2085 on the open NOT_FIXED handle")
    conn.disconnect()


def test_displays_and_protected_objects(cluster: Harness) -> None:
    out = cluster.qm("FR1").mqsc("DISPLAY QCLUSTER(Q1) CLUSQT QMID").stdout
    assert sorted(re.findall(r"CLUSQMGR\((\w+)\)", out)) == ["PR1", "PR2", "PR3", "PR4"]
    assert out.count("CLUSQT(QLOCAL)") == 4 and out.count("TYPE(QCLUSTER)") == 4
    out = cluster.qm("PR1").mqsc("DISPLAY QUEUE(Q1) CLUSINFO").stdout
    assert "TYPE(QLOCAL)" in out and "TYPE(QCLUSTER)" in out
    # WHERE and the CLUSTER filter select rows; VERSION comes from each queue manager's CMDLEVEL.
    out = cluster.qm("FR1").mqsc("DISPLAY CLUSQMGR(*) WHERE(QMTYPE EQ REPOS) VERSION").stdout
    assert sorted(re.findall(r"CLUSQMGR\((\w+)\)", out)) == ["FR1", "FR2"] and out.count("VERSION(09040000)") == 2
    assert "AMQ8147E" in cluster.qm("FR1").mqsc("DISPLAY CLUSQMGR(*) CLUSTER(OTHER)").stdout
    r = cluster.qm("FR1").mqsc("REFRESH CLUSTER(SALES) FORCE(YES)\nSUSPEND QMGR CLUSTER(SALES) MODE(SOON)")
    assert r.stdout.count("AMQ8405I") == 2 and "suspend queue manager cluster accepted" not in r.stdout
    # MQINQ on a cluster queue with no instance here answers from its cluster records.
    conn = cluster.qm("FR1").client()
    q = pymqi.Queue(conn, "Q1", C.MQOO_INQUIRE)
    assert q.inquire(C.MQIA_Q_TYPE) == C.MQQT_CLUSTER
    assert q.inquire(C.MQIA_DEF_BIND) == C.MQBND_BIND_NOT_FIXED
    q.close()
    conn.disconnect()
    # Auto-defined cluster-sender channels cannot be altered or deleted.
    r = cluster.qm("FR1").mqsc("ALTER CHANNEL(TO.PR1) CHLTYPE(CLUSSDR) BATCHSZ(10)\nDELETE CHANNEL(TO.PR1)")
    assert r.stdout.count("AMQ8147E") == 2 and r.returncode == 10
    out = cluster.qm("FR1").mqsc("DISPLAY CHSTATUS(TO.PR1) XMITQ").stdout
    assert "XMITQ(SYSTEM.CLUSTER.TRANSMIT.QUEUE)" in out
    # Applications cannot put to a cluster transmission queue.
    conn = cluster.qm("FR1").client()
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.Queue(conn, "SYSTEM.CLUSTER.TRANSMIT.QUEUE", C.MQOO_OUTPUT)
    assert e.value.reason == C.MQRC_XMIT_Q_USAGE_ERROR
    conn.disconnect()


def test_suspend_and_resume(cluster: Harness) -> None:
    cluster.qm("PR1").mqsc("SUSPEND QMGR CLUSTER(SALES)", check=True)
    try:
        wait_until(lambda: "SUSPEND(YES)" in cluster.qm("FR2").mqsc("DISPLAY CLUSQMGR(PR1) SUSPEND").stdout,
                   what="FR2 to see PR1 suspended")
        conn, q = open_q(cluster, "FR2", "Q1", C.MQOO_OUTPUT | C.MQOO_BIND_NOT_FIXED)
        for _ in range(6):
            q.put(b"s")
        conn.disconnect()
        wait_until(lambda: sum(depth(cluster, p, "Q1") for p in PARTIAL) == 6, what="6 messages")
        assert depth(cluster, "PR1", "Q1") == 0
    finally:
        cluster.qm("PR1").mqsc("RESUME QMGR CLUSTER(SALES)", check=True)
    for p in PARTIAL:
        drain(cluster, p, "Q1")
    wait_until(lambda: "SUSPEND(NO)" in cluster.qm("FR2").mqsc("DISPLAY CLUSQMGR(PR1) SUSPEND").stdout,
               what="FR2 to see PR1 resumed")


def test_killed_partial_not_fixed_messages_rerouted_nothing_lost(cluster: Harness) -> None:
    """PR4 is killed while FR2 streams persistent NOT_FIXED messages to Q1: what was waiting for
    PR4 on the cluster transmission queue goes to the other instances; the batch that was in flight
    (in doubt) waits for PR4 to come back. In the end every message is on exactly one instance."""
    n = 300
    conn, q = open_q(cluster, "FR2", "Q1", C.MQOO_OUTPUT | C.MQOO_BIND_NOT_FIXED)
    md = pymqi.MD(Persistence=C.MQPER_PERSISTENT)
    for i in range(n):
        if i == n // 3:
            cluster.qm("PR4").kill9()
        q.put(b"%d" % i, md)
        md.MsgId = b""
    conn.disconnect()
    # Only an in-doubt batch (at most BATCHSZ messages) may stay behind for PR4.
    wait_until(lambda: depth(cluster, "FR2", "SYSTEM.CLUSTER.TRANSMIT.QUEUE") <= 50, timeout=30,
               what="messages for PR4 re-routed")
    held_back = depth(cluster, "FR2", "SYSTEM.CLUSTER.TRANSMIT.QUEUE")
    cluster.qm("PR4").start()
    wait_until(lambda: sum(depth(cluster, p, "Q1") for p in PARTIAL) == n, timeout=30,
               what=f"all {n} delivered once PR4 is back ({held_back} were in doubt)")
    got = sorted(int(m) for p in PARTIAL for m in drain(cluster, p, "Q1"))
    assert got == list(range(n))
    assert depth(cluster, "FR2", "SYSTEM.CLUSTER.TRANSMIT.QUEUE") == 0


def test_full_repository_down_partials_work_from_cache(cluster: Harness) -> None:
    cluster.qm("PR1").mqsc("DEFINE QLOCAL(Q4) CLUSTER(SALES)", check=True)
    conn = cluster.qm("PR3").client()
    wait_until(lambda: put_reason(conn, "Q4", C.MQOO_OUTPUT) == 0, what="Q4 usable from PR3")
    cluster.qm("FR2").kill9()                          # PR3's own full repository
    pymqi.Queue(conn, "Q4", C.MQOO_OUTPUT).put(b"2")   # from the cache
    cluster.qm("PR2").mqsc("DEFINE QLOCAL(Q5) CLUSTER(SALES)", check=True)
    # PR3 subscribes at both full repositories it knows: FR1 answers while FR2 is down.
    wait_until(lambda: put_reason(conn, "Q5", C.MQOO_OUTPUT) == 0, what="Q5 through FR1")
    cluster.qm("FR2").start()
    cluster.qm("PR2").mqsc("DEFINE QLOCAL(Q6) CLUSTER(SALES)", check=True)
    wait_until(lambda: put_reason(conn, "Q6", C.MQOO_OUTPUT) == 0, what="Q6 after the restart")
    conn.disconnect()
    wait_until(lambda: (depth(cluster, "PR1", "Q4"), depth(cluster, "PR2", "Q5"), depth(cluster, "PR2", "Q6"))
               == (2, 1, 1), what="every message delivered")


def test_subscriptions_renewed_when_used_and_expire_when_not(cluster: Harness) -> None:
    cluster.qm("PR1").mqsc("DEFINE QLOCAL(Q7) CLUSTER(SALES)", check=True)
    conn = cluster.qm("PR4").client()
    wait_until(lambda: put_reason(conn, "Q7", C.MQOO_OUTPUT) == 0, what="Q7 usable from PR4")
    pymqi.Queue(conn, "Q7", C.MQOO_OUTPUT).put(b"y")      # a use after the subscription was made
    assert "CLUSQMGR(PR1)" in cluster.qm("PR4").mqsc("DISPLAY QCLUSTER(Q7)").stdout
    # 31 days on: every record was republished at 27 days; PR4's subscription was used, so renewed.
    cluster.advance_clock(31 * 86400)
    wait_until(lambda: clusqmgr(cluster, "FR1").get("PR4") == "NORMAL", what="PR4 still a member")
    wait_until(lambda: "CLUSQMGR(PR1)" in cluster.qm("PR4").mqsc("DISPLAY QCLUSTER(Q7)").stdout,
               what="PR4 to hold Q7 again after the renewal")
    # Another 31 days without using Q7: the subscription expires and PR4 forgets Q7.
    cluster.advance_clock(31 * 86400)
    wait_until(lambda: "AMQ8147E" in cluster.qm("PR4").mqsc("DISPLAY QCLUSTER(Q7)").stdout,
               what="PR4 to drop Q7 with its expired subscription")
    # Using the name again subscribes again.
    wait_until(lambda: put_reason(conn, "Q7", C.MQOO_OUTPUT) == 0, what="Q7 after expiry")
    conn.disconnect()
    wait_until(lambda: depth(cluster, "PR1", "Q7") == 3, what="the three messages on PR1")


def test_readme_main_job_runs_the_sales_cluster(tmp_path: Any) -> None:
    """`mqlite demo` (make run): up examples/sales on free ports, the three bindings, down."""
    import os
    import subprocess
    import sys
    # The user's data directory has a FR1 of their own, which the demo must leave alone (it used
    # MQLITE_DATA when exported, and ended with dltmqm of FR1, FR2, PR1 and PR2); its own directory
    # is removed at the end (it left an empty one each run).
    users, temp = tmp_path / "users", tmp_path / "tmp"
    temp.mkdir()
    env = dict(os.environ, MQLITE_DATA=str(users), TMPDIR=str(temp))
    assert subprocess.run([sys.executable, "-m", "mqlite.cli.main", "crtmqm", "FR1"], env=env,
                          capture_output=True).returncode == 0
    r = subprocess.run([sys.executable, "-m", "mqlite.cli.main", "demo"], capture_output=True, text=True,
                       timeout=180, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert os.path.isdir(users / "qmgrs" / "FR1") and list(temp.iterdir()) == []
    out = r.stdout
    assert "cluster converged: every member knows the full repositories FR1, FR2" in out
    assert out.count("QMTYPE(REPOS)") == 2 and out.count("QMTYPE(NORMAL)") == 2
    not_fixed = re.findall(r"got on PR\d: (\[.*?\])", out.split("MQOO_BIND_NOT_FIXED")[1].split("$ python")[0])
    assert sorted(not_fixed) == ["['BIND_NOT_FIXED order 1', 'BIND_NOT_FIXED order 3', 'BIND_NOT_FIXED order 5']",
                                 "['BIND_NOT_FIXED order 2', 'BIND_NOT_FIXED order 4', 'BIND_NOT_FIXED order 6']"]
    on_open = re.findall(r"got on PR\d: (\[.*?\])", out.split("MQOO_BIND_ON_OPEN")[1].split("$ python")[0])
    assert "[]" in on_open and len(on_open) == 2
    assert out.count("ended.") == 4


def test_up_again_with_auto_ports_moves_the_listeners(tmp_path: Any) -> None:
    """`mqlite up DIR --ports auto` a second time picks new ports and rewrites the CONNAMEs: the
    listeners follow (they stayed on the old ports, so every cluster sender retried while up said
    the cluster had converged), and the cluster works on the new ports."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, MQLITE_DATA=str(tmp_path))
    sales = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                         "examples", "sales")

    def mqlite(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "mqlite.cli.main", *args], capture_output=True, text=True,
                              timeout=180, env=env, input=stdin)
    try:
        assert mqlite("up", sales, "--ports", "auto").returncode == 0
        r = mqlite("up", sales, "--ports", "auto")
        assert r.returncode == 0, r.stdout + r.stderr
        moved = dict(re.findall(r"(\w+): listener moved from port \d+ to (\d+)", r.stdout))
        assert sorted(moved) == ["FR1", "FR2", "PR1", "PR2"], r.stdout
        for name, port in moved.items():
            shown = mqlite("runmqsc", name, stdin="DISPLAY LSSTATUS(SYSTEM.LISTENER.TCP.1) PORT\n").stdout
            assert f"PORT({port})" in shown
        # FR1 reaches PR1 and PR2 on their new ports: its cluster senders to them run.
        assert mqlite("runmqsc", "FR1", stdin="START CHANNEL(SALES.PR1)\nSTART CHANNEL(SALES.PR2)\n").returncode == 0
        wait_until(lambda: mqlite("runmqsc", "FR1", stdin="DISPLAY CHSTATUS(SALES.PR*) STATUS\n").stdout.count(
            "STATUS(RUNNING)") == 2, what="FR1's senders to PR1 and PR2 running on the new ports")
    finally:
        mqlite("down", sales, "--delete")

