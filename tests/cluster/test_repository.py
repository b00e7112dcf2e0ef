"""The cluster repository's records and subscriptions, sans-IO, on a fake clock (seed 003)."""
from __future__ import annotations

import json

from mqlite.cluster.repository import DAY, QMGR, QUEUE, Repository
from mqlite.cluster.wlm import Request, UseRecord, choose
from mqlite.cmq import CMQCFC
from mqlite.engine.clock import FakeClock

C = "SALES"


class Net:
    """Queue managers that hand each other their outboxes (JSON on the way, as on the wire)."""

    def __init__(self, fulls: list[str], partials: dict[str, str]) -> None:
        self.clock = FakeClock()
        self.qms: dict[str, Repository] = {}
        self.sent: list[tuple[str, str, dict]] = []
        for f in fulls:
            r = Repository(f, self.clock.now, full_for={C}, manual={C: [x for x in fulls if x != f]})
            self.qms[f] = r
        for p, first_full in partials.items():
            self.qms[p] = Repository(p, self.clock.now, manual={C: [first_full]})
        for name, r in self.qms.items():       # each publishes itself (its CLUSRCVR)
            r.publish(C, QMGR, name, {"QMTYPE": "REPOS" if C in r.full_for else "NORMAL",
                                      "CONNAME": f"{name.lower()}(1414)"})
        self.run()

    def run(self) -> int:
        moved = 0
        while True:
            batch = [(name, to, msg) for name, r in self.qms.items() for to, msg in r.outbox]
            for r in self.qms.values():
                r.outbox.clear()
            if not batch:
                return moved
            for frm, to, msg in batch:
                self.sent.append((frm, to, msg))
                if to in self.qms:               # a queue manager that is down gets nothing
                    self.qms[to].receive(json.loads(json.dumps(msg)))
            moved += len(batch)
            assert moved < 10_000, "cluster messages keep going round"

    def tick(self, days: float) -> None:
        self.clock.advance(days * DAY)
        for r in self.qms.values():
            r.tick()
        self.run()

    def hosts(self, qm: str, name: str) -> list[str]:
        return [r.key.owner for r in self.qms[qm].lookup(QUEUE, name)]


def cluster() -> Net:
    return Net(["FR1", "FR2"], {"PR1": "FR1", "PR2": "FR2", "PR3": "FR1", "PR4": "FR2"})


def test_partials_learn_the_full_repositories_and_fulls_hold_everything():
    net = cluster()
    for p in ("PR1", "PR2", "PR3", "PR4"):
        assert net.qms[p].full_repositories(C) in (["FR1", "FR2"], ["FR2", "FR1"])
    for f in ("FR1", "FR2"):
        assert sorted(r.key.owner for r in net.qms[f].records.values() if r.key.kind == QMGR) == \
            ["FR1", "FR2", "PR1", "PR2", "PR3", "PR4"]
    # a partial holds only the full repositories' records and its own
    assert sorted(r.key.owner for r in net.qms["PR1"].records.values()) == ["FR1", "FR2", "PR1"]


def test_subscription_on_first_use_answer_and_later_changes_pushed():
    net = cluster()
    net.qms["PR2"].publish(C, QUEUE, "CLUSTER.Q1", {"DEFBIND": "NOTFIXED"})
    net.qms["PR3"].publish(C, QUEUE, "CLUSTER.Q1", {"DEFBIND": "NOTFIXED"})
    net.run()
    assert net.hosts("PR1", "CLUSTER.Q1") == []           # a partial knows nothing it has not asked for
    assert net.qms["PR1"].interest([C], QUEUE, "CLUSTER.Q1") is False
    net.sent.clear()
    net.run()
    subs = sorted((to, m["kind"], m["name"]) for frm, to, m in net.sent if frm == "PR1" and m["type"] == "subscribe")
    # one subscription for the name at each of the two full repositories, and none for the hosts'
    # own records: each answer carries them (as MQ's full repository answers a query for a queue),
    # and the full repository holds the partial's subscription to them from then on
    assert subs == [("FR1", QUEUE, "CLUSTER.Q1"), ("FR2", QUEUE, "CLUSTER.Q1")]
    answers = [m for frm, to, m in net.sent if to == "PR1" and m["type"] == "answer"]
    assert len(answers) == 2 and all(sorted((d["kind"], d["owner"]) for d in a["records"]) ==
                                     [(QMGR, "PR2"), (QMGR, "PR3"), (QUEUE, "PR2"), (QUEUE, "PR3")] for a in answers)
    assert {("PR1", C, QMGR, "PR2"), ("PR1", C, QMGR, "PR3")} <= set(net.qms["FR1"].held)
    assert net.qms["PR1"].interest([C], QUEUE, "CLUSTER.Q1") is True
    assert net.hosts("PR1", "CLUSTER.Q1") == ["PR2", "PR3"]
    # ... and the hosts' own records came with them, for the channels to them
    assert {r.key.owner for r in net.qms["PR1"].records.values() if r.key.kind == QMGR} >= {"PR2", "PR3"}
    # an alteration, a new instance and a deletion reach the subscriber through the full repositories
    net.qms["PR2"].publish(C, QUEUE, "CLUSTER.Q1", {"DEFBIND": "OPEN"})
    net.qms["PR4"].publish(C, QUEUE, "CLUSTER.Q1", {"DEFBIND": "NOTFIXED"})
    net.qms["PR3"].publish(C, QUEUE, "CLUSTER.Q1", {}, deleted=True)
    net.run()
    assert net.hosts("PR1", "CLUSTER.Q1") == ["PR2", "PR4"]
    assert net.qms["PR1"].lookup(QUEUE, "CLUSTER.Q1")[0].attrs == {"DEFBIND": "OPEN"}
    # a change to a host's own record (its CLUSRCVR) reaches the partial through the subscription
    # the full repositories hold for it since their answer
    net.qms["PR2"].publish(C, QMGR, "PR2", {"QMTYPE": "NORMAL", "CONNAME": "pr2(1415)"})
    net.run()
    assert net.qms["PR1"].lookup(QMGR, "PR2")[0].attrs["CONNAME"] == "pr2(1415)"
    # a name nobody defines is answered with none
    assert net.qms["PR1"].interest([C], QUEUE, "NOT.THERE") is False
    net.run()
    assert net.qms["PR1"].interest([C], QUEUE, "NOT.THERE") is True and net.hosts("PR1", "NOT.THERE") == []


def test_unused_subscriptions_expire_at_both_ends_used_ones_are_renewed():
    net = cluster()
    net.qms["PR2"].publish(C, QUEUE, "Q.USED", {})
    net.qms["PR2"].publish(C, QUEUE, "Q.IDLE", {})
    net.run()
    for name in ("Q.USED", "Q.IDLE"):
        net.qms["PR1"].interest([C], QUEUE, name)
    net.run()
    net.tick(10)
    net.qms["PR1"].interest([C], QUEUE, "Q.USED")          # used again within the 27 days
    net.tick(18)                                           # day 28: the used one is renewed
    assert net.qms["PR1"].subs[(C, QUEUE, "Q.USED")].made == net.clock.now()
    net.tick(3)                                            # day 31: the idle one has expired
    assert (C, QUEUE, "Q.IDLE") not in net.qms["PR1"].subs
    assert net.hosts("PR1", "Q.IDLE") == []
    held = {k[3] for f in ("FR1", "FR2") for k in net.qms[f].held if k[0] == "PR1"}
    assert "Q.USED" in held and "Q.IDLE" not in held
    # with its subscription gone, a change to Q.IDLE no longer reaches PR1
    net.qms["PR2"].publish(C, QUEUE, "Q.IDLE", {"DESCR": "changed"})
    net.run()
    assert net.hosts("PR1", "Q.IDLE") == [] and net.hosts("PR1", "Q.USED") == ["PR2"]


def test_records_are_republished_and_silent_members_age_out():
    net = cluster()
    net.qms["PR2"].publish(C, QUEUE, "Q1", {})
    net.run()
    net.tick(28)                                           # everyone republishes after 27 days
    rec = net.qms["FR1"].lookup(QUEUE, "Q1")[0]
    assert rec.published == net.clock.now()
    # PR2 falls silent: its records expire 30 days after the last publication, are kept in grace
    # for 60 more days, then are gone (membership lost after 90 days)
    del net.qms["PR2"]
    for _ in range(4):
        net.tick(7)                                        # day 56: 28 days after the republication
    assert net.qms["FR1"].lookup(QUEUE, "Q1")
    net.tick(3)                                            # day 59: expired, not handed out
    assert net.qms["FR1"].lookup(QUEUE, "Q1") == []
    assert any(k.owner == "PR2" for k in net.qms["FR1"].records)
    net.tick(60)                                           # grace over: removed
    assert not any(k.owner == "PR2" for k in net.qms["FR1"].records)


def test_a_full_repository_needs_no_subscription_and_messages_do_not_loop():
    net = Net(["FR1", "FR2", "FR3"], {"PR1": "FR3"})
    net.qms["PR1"].publish(C, QUEUE, "Q1", {})
    net.sent.clear()
    moved = net.run()
    assert moved <= 2 + 3 * 2                              # to two fulls; each full passes it on once
    for f in ("FR1", "FR2", "FR3"):
        assert [r.key.owner for r in net.qms[f].lookup(QUEUE, "Q1")] == ["PR1"]
        assert net.qms[f].interest([C], QUEUE, "Q1") is True and net.qms[f].subs == {}


def test_a_restarted_owner_still_replaces_its_old_records():
    net = cluster()
    net.qms["PR2"].publish(C, QUEUE, "Q1", {"DESCR": "before"})
    net.qms["PR1"].interest([C], QUEUE, "Q1")
    net.run()
    net.clock.advance(5)
    # PR2 restarts with an empty cache (its own definitions republished by the server at start)
    net.qms["PR2"] = Repository("PR2", net.clock.now, manual={C: ["FR2"]})
    net.qms["PR2"].publish(C, QUEUE, "Q1", {"DESCR": "after"})
    net.run()
    assert [r.attrs for r in net.qms["PR1"].lookup(QUEUE, "Q1")] == [{"DESCR": "after"}]


def test_destinations_for_the_workload_algorithm():
    net = Net(["FR1", "FR2"], {})
    for name in ("PR1", "PR2", "PR3"):
        r = Repository(name, net.clock.now, manual={C: ["FR1"]})
        net.qms[name] = r
        r.publish(C, QMGR, name, {"QMTYPE": "NORMAL", "CHANNEL": f"{C}.{name}", "CLWLWGHT": 50})
    net.run()
    net.qms["PR2"].publish(C, QUEUE, "Q1", {"CLWLRANK": 0})
    net.qms["PR3"].publish(C, QUEUE, "Q1", {"CLWLRANK": 0})
    pr1 = net.qms["PR1"]
    pr1.interest([C], QUEUE, "Q1")
    net.run()
    dests = pr1.destinations("Q1")
    assert [(d.qmgr, d.channel, d.clusters, d.channel_clusters) for d in dests] == [
        ("PR2", f"{C}.PR2", frozenset({C}), frozenset({C})), ("PR3", f"{C}.PR3", frozenset({C}), frozenset({C}))]
    assert pr1.destinations("Q1") is dests                 # unchanged: the same tuple, so the shortlist memo holds
    used, req = UseRecord(), Request(local_clusters=frozenset({C}))
    order = []
    for _ in range(4):
        d = choose(pr1.destinations("Q1"), req, used)
        used.charge(d)
        order.append(d.qmgr)
    assert order == ["PR2", "PR3", "PR2", "PR3"]
    # a channel state change (the channel manager's counter moves) gives a new tuple with the state in it
    states = {f"{C}.PR2": CMQCFC.MQCHS_RETRYING}
    retrying = pr1.destinations("Q1", status=lambda ch: states.get(ch, CMQCFC.MQCHS_RUNNING), status_generation=1)
    assert retrying is not dests and [d.status for d in retrying] == [CMQCFC.MQCHS_RETRYING, CMQCFC.MQCHS_RUNNING]
    assert choose(retrying, req, used).qmgr == "PR3"
    # PR3 puts its instance out of use: a new tuple, and the algorithm leaves it out
    net.qms["PR3"].publish(C, QUEUE, "Q1", {"PUT": "DISABLED"})
    net.run()
    after = pr1.destinations("Q1")
    assert after is not dests and [d.put_enabled for d in after] == [True, False]
    assert {choose(after, req, used).qmgr for _ in range(3)} == {"PR2"}
    # records that expire unrepublished drop out without any message
    net.clock.advance(31 * DAY)
    assert pr1.destinations("Q1") == ()
