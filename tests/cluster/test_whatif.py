"""Issue 68: what-if routing. A queue manager records its workload decisions (``mqlite whatif
record``); the replay runs them through the same pure function, wlm.choose. Over a recorded run of
the SALES cluster the replay with the recorded configuration reproduces every decision; a changed
CLWLWGHT's prediction matches a live run of the same traffic within 2%; the Spark job gives what
the command gives."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite.cluster import routelog, wlm
from mqlite.cmq import CMQCFC as F
from tests.helpers import wait_until

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SALES = os.path.join(ROOT, "examples", "sales")
N = 400


def _dest(qmgr: str, weight: int = 50, **kw: Any) -> wlm.Destination:
    return wlm.Destination(qmgr=qmgr, channel=f"TO.{qmgr}", clusters=frozenset({"C"}),
                           channel_clusters=frozenset({"C"}), ch_weight=weight, **kw)


def _record(tmp: str, dests: tuple[wlm.Destination, ...], n: int, resets: tuple[int, ...] = ()) -> str:
    """A routing log written as ClusterState writes it, for n choices over ``dests``."""
    path = os.path.join(tmp, "routing.jsonl")
    use, req = wlm.UseRecord(), wlm.Request(local_clusters=frozenset({"C"}))
    use.charge(dests[0])                      # recording starts mid-life: the use record is carried
    rec = routelog.Recorder(path, "QM0", use, 0.0)
    for i in range(n):
        if i in resets:
            use.reset()
            rec.reset()
        d = wlm.choose(dests, req, use)
        use.charge(d)
        rec.choice("Q", dests, req, d, len(use.shortlists[id(dests)][2]), float(i))
    rec.close()
    return path


def _replay(path: str, *changes: str) -> routelog.Summary:
    with open(path, encoding="utf-8") as f:
        return routelog.summarise(routelog.replay(routelog.read_log(f), [routelog.parse_change(c) for c in changes]))


def test_the_replay_reproduces_and_predicts(tmp_path: Any) -> None:
    dests = (_dest("QA"), _dest("QB"), _dest("QC", status=F.MQCHS_RETRYING))
    path = _record(str(tmp_path), dests, 300, resets=(100,))
    same = _replay(path)
    assert (same.choices, same.moved, same.reproduced) == (300, 0, 1.0)
    assert same.recorded == {("Q", "QA"): 150, ("Q", "QB"): 150}       # QC retrying: rules 9-12
    heavier = _replay(path, "ALTER CHANNEL(TO.QA) CLWLWGHT(80)")
    # Rule 18 charges 1000 // weight: 12 for QA, 20 for QB, so QA takes 20 of every 32.
    assert abs(heavier.predicted[("Q", "QA")] - 300 * 20 / 32) <= 2
    # Message by message, some move each way; the channels carry the moved ones to where they go.
    assert sum(heavier.channels.values()) == heavier.moved
    assert heavier.moves[("Q", "QB", "QA")] - heavier.moves[("Q", "QA", "QB")] == heavier.predicted[("Q", "QA")] - 150
    stopped = _replay(path, "STOP QMGR(QB)")
    assert stopped.predicted == {("Q", "QA"): 300}
    added = _replay(path, "ADD QMGR(QD) LIKE(QA)")
    assert added.predicted == {("Q", "QA"): 100, ("Q", "QB"): 100, ("Q", "QD"): 100}
    assert _replay(path, "ALTER QUEUE(Q) QMGR(QA) PUT(DISABLED)").predicted == {("Q", "QB"): 300}
    assert _replay(path, "ALTER QUEUE(OTHER) QMGR(QA) PUT(DISABLED)").moved == 0


@pytest.mark.parametrize("text,why", [("ALTER CHANNEL(X) CLWLWGHT(0)", "CLWLWGHT(0) is not in 1 to 99"),
                                      ("ALTER CHANNEL(X) COLOUR(RED)", "ALTER CHANNEL takes"),
                                      ("DELETE QMGR(X)", "not a change the replay knows"),
                                      ("ALTER CHANNEL(X) CLWLWGHT(5) junk", "not a change")])
def test_a_bad_change_is_refused(text: str, why: str) -> None:
    with pytest.raises(routelog.ChangeError, match=re.escape(why)):
        routelog.parse_change(text)


# --- the SALES cluster, live --------------------------------------------------------------------
def mqlite(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mqlite.cli.main", *args], capture_output=True, text=True,
                          timeout=180, input=stdin)


@pytest.fixture(scope="module")
def sales(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, int]]:
    from mqlite.cli import topology
    old = os.environ.get("MQLITE_DATA")
    os.environ["MQLITE_DATA"] = str(tmp_path_factory.mktemp("whatif"))
    try:
        members = topology.up(SALES, auto_ports=True)
        ports = {m.name: m.port for m in members}
        wait_until(lambda: mqlite("runmqsc", "FR1", stdin="DISPLAY QCLUSTER(SALES.ORDERS)\n").stdout.count(
            "CLUSQMGR(") == 2, 60, "FR1 to know both instances of SALES.ORDERS")
        yield ports
    finally:
        topology.down(SALES, delete=True)
        if old is None:
            os.environ.pop("MQLITE_DATA", None)
        else:
            os.environ["MQLITE_DATA"] = old


def _put(port: int, n: int) -> None:
    from mqlite import pymqi
    from mqlite.cmq import CMQC as C
    conn = pymqi.connect("FR1", "DEV.APP.SVRCONN", f"127.0.0.1({port})")
    q = pymqi.Queue(conn, "SALES.ORDERS", C.MQOO_OUTPUT | C.MQOO_BIND_NOT_FIXED)
    for i in range(n):
        q.put(f"order {i}".encode())
    q.close()
    conn.disconnect()


def _depths() -> dict[str, int]:
    out = {}
    for name in ("PR1", "PR2"):
        shown = mqlite("runmqsc", name, stdin="DISPLAY QLOCAL(SALES.ORDERS) CURDEPTH\n").stdout
        out[name] = int(re.search(r"CURDEPTH\((\d+)\)", shown).group(1))
    return out


def test_a_recorded_run_of_sales_replayed(sales: dict[str, int], spark: Any, tmp_path: Any) -> None:
    r = mqlite("whatif", "record", "FR1", "on")
    assert r.returncode == 0 and r.stdout.startswith("Routing log of FR1 on: "), r.stdout + r.stderr
    log = r.stdout.split(": ", 1)[1].strip()
    _put(sales["FR1"], N)
    assert mqlite("whatif", "record", "FR1", "off").returncode == 0
    wait_until(lambda: sum(_depths().values()) == N, 60, f"{N} orders on PR1 and PR2")
    recorded = _depths()

    # The recorded configuration reproduces every decision, and the log agrees with the queues.
    same = _replay(log)
    assert (same.choices, same.moved) == (N, 0)
    assert {q: n for (_queue, q), n in same.recorded.items()} == recorded
    r = mqlite("whatif", "replay", "FR1")
    assert r.returncode == 0 and r.stdout.startswith(f"{N} recorded choices; 0 would move (0.0%)"), r.stdout

    # A changed weight, predicted, then made live with the same traffic.
    change = "ALTER CHANNEL(SALES.PR1) CHLTYPE(CLUSRCVR) CLWLWGHT(80)"     # the replay's change, and PR1's MQSC
    predicted = _replay(log, change)
    share = predicted.predicted[("SALES.ORDERS", "PR1")] / N
    assert predicted.channels["SALES.PR1"] > predicted.channels.get("SALES.PR2", 0)
    r = mqlite("whatif", "replay", "FR1", "--change", change)
    assert "Channels that would carry them:" in r.stdout and "SALES.PR1" in r.stdout, r.stdout

    # The Spark job over the log gives the same outcomes as the command.
    df = __import__("mqlite.spark.whatif", fromlist=["outcomes"]).outcomes(spark, log, [change])
    got = {(row.predicted_qmgr, row.moved): row["count"] for row in df.groupBy("predicted_qmgr", "moved").count().collect()}
    assert sum(got.values()) == N and got.get(("PR1", True), 0) == predicted.channels["SALES.PR1"]
    assert sum(n for (q, _m), n in got.items() if q == "PR1") == predicted.predicted[("SALES.ORDERS", "PR1")]

    for name in ("PR1", "PR2"):
        assert mqlite("runmqsc", name, stdin="CLEAR QLOCAL(SALES.ORDERS)\n").returncode == 0
    r = mqlite("runmqsc", "PR1", stdin=change + "\n")
    assert r.returncode == 0, r.stdout
    wait_until(lambda: "CLWLWGHT(80)" in mqlite("runmqsc", "FR1", stdin="DISPLAY CLUSQMGR(PR1) CLWLWGHT\n").stdout,
               60, "FR1 to see PR1's new weight")
    _put(sales["FR1"], N)
    wait_until(lambda: sum(_depths().values()) == N, 60, f"{N} orders on PR1 and PR2")
    live = _depths()["PR1"] / N
    assert abs(live - share) <= 0.02, (live, share)
