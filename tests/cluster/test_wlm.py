"""The cluster workload algorithm, one rule at a time, as a pure function (mqlite.cluster.wlm)."""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite.cluster.wlm import (
    USEQ_ANY,
    USEQ_LOCAL,
    USEQ_QMGR,
    Destination,
    Request,
    UseRecord,
    WorkloadError,
    binding,
    choose,
    chooses_at_put,
    needs_local_instance,
)
from mqlite.cmq import CMQC, CMQCFC

SALES = frozenset({"SALES"})
REQ = Request(local_clusters=SALES)


def remote(qm: str, **kw) -> Destination:
    return Destination(qmgr=qm, channel=f"TO.{qm}", clusters=SALES, channel_clusters=SALES, **kw)


def local(qm: str = "QM1", **kw) -> Destination:
    return Destination(qmgr=qm, channel=f"TO.{qm}", clusters=SALES, channel_clusters=SALES, local=True, **kw)


def pick(dests, req=REQ, used=None) -> str:
    return choose(tuple(dests), req, used or UseRecord()).qmgr


def spread(dests, n, req=REQ) -> list[str]:
    used = UseRecord()
    out = []
    for _ in range(n):
        d = choose(tuple(dests), req, used)
        used.charge(d)
        out.append(d.qmgr)
    return out


def test_round_robin_matches_mq_transcript():
    # 4 instances, CLWLUSEQ(ANY): 20 puts give 5 each; one instance holds messages 1, 5, 9, 13, 17.
    dests = [local("A", useq=USEQ_ANY), remote("B"), remote("C"), remote("D")]
    order = spread(dests, 20)
    assert Counter(order) == {"A": 5, "B": 5, "C": 5, "D": 5}
    first = order[0]
    assert [i + 1 for i, q in enumerate(order) if q == first] == [1, 5, 9, 13, 17]


def test_rule1_and_2_cluster_membership():
    other = frozenset({"OTHER"})
    outsider = Destination("X", "TO.X", clusters=other, channel_clusters=other)
    assert pick([outsider, remote("B")]) == "B"
    # the queue is in SALES but the only route to its host is a channel of another cluster
    wrong_route = Destination("Y", "TO.Y", clusters=SALES, channel_clusters=other)
    assert pick([wrong_route, remote("B")]) == "B"
    with pytest.raises(WorkloadError) as e:
        pick([outsider, wrong_route])
    assert e.value.reason == CMQC.MQRC_NO_DESTINATIONS_AVAILABLE
    # a queue-manager in two clusters is reached through a channel of the shared one
    both = frozenset({"SALES", "OTHER"})
    assert pick([Destination("Z", "TO.Z", clusters=both, channel_clusters=SALES)]) == "Z"


def test_rule3_channel_rank_beats_channel_state():
    # rank is taken before status: a stopped channel of higher rank still wins (messages wait)
    dests = [remote("B", ch_rank=2, status=CMQCFC.MQCHS_STOPPED), remote("C", ch_rank=1, status=CMQCFC.MQCHS_RUNNING)]
    assert set(spread(dests, 6)) == {"B"}


def test_rule4_queue_rank():
    assert set(spread([remote("B", q_rank=1), remote("C", q_rank=5), remote("D", q_rank=5)], 6)) == {"C", "D"}


def test_rule5_put_disabled_instances():
    assert set(spread([remote("B", put_enabled=False), remote("C"), remote("D")], 6)) == {"C", "D"}
    with pytest.raises(WorkloadError) as e:
        pick([remote("B", put_enabled=False), remote("C", put_enabled=False)])
    assert e.value.reason == CMQC.MQRC_CLUSTER_PUT_INHIBITED
    # with a local instance the local one is chosen (its own put then fails with 2051)
    assert pick([local("A", put_enabled=False), remote("C", put_enabled=False)]) == "A"
    # a put-disabled local instance is not preferred over enabled remote ones
    assert set(spread([local("A", put_enabled=False, useq=USEQ_LOCAL), remote("C")], 4)) == {"C"}


@pytest.mark.parametrize(("q_useq", "qm_useq", "from_channel", "only_local"), [
    (USEQ_LOCAL, USEQ_ANY, False, True),
    (USEQ_QMGR, USEQ_LOCAL, False, True),
    (USEQ_QMGR, USEQ_ANY, False, False),
    (USEQ_ANY, USEQ_LOCAL, False, False),
    (USEQ_ANY, USEQ_ANY, True, True),        # arrived over a cluster channel: the local instance
])
def test_rule6_local_preference(q_useq, qm_useq, from_channel, only_local):
    req = Request(local_clusters=SALES, qmgr_useq=qm_useq, from_cluster_channel=from_channel)
    got = set(spread([local("A", useq=q_useq), remote("B"), remote("C")], 9, req))
    assert got == ({"A"} if only_local else {"A", "B", "C"})


def test_rule8_suspended_last_but_still_used_alone():
    assert set(spread([remote("B", suspended=True), remote("C"), remote("D")], 6)) == {"C", "D"}
    assert set(spread([remote("B", suspended=True), remote("C", suspended=True)], 4)) == {"B", "C"}


def test_rules9_to_12_channel_state_tiers():
    S = CMQCFC
    tiers = [S.MQCHS_RUNNING, S.MQCHS_STARTING, S.MQCHS_RETRYING, S.MQCHS_STOPPED]
    for best in range(4):
        dests = [remote(f"Q{i}", status=s) for i, s in enumerate(tiers[best:], start=best)]
        assert set(spread(dests, 4)) == {f"Q{best}"}
    # INACTIVE counts as good as RUNNING; BINDING, INITIALIZING and STOPPING with STARTING
    assert set(spread([remote("B", status=S.MQCHS_INACTIVE), remote("C", status=S.MQCHS_RUNNING)], 4)) == {"B", "C"}
    mid = [remote(n, status=s) for n, s in (("B", S.MQCHS_BINDING), ("C", S.MQCHS_INITIALIZING),
                                              ("D", S.MQCHS_STOPPING), ("E", S.MQCHS_PAUSED))]
    assert set(spread(mid, 6)) == {"B", "C", "D"}


def test_rule14_netprty_per_queue_manager():
    # two routes to B: the higher NETPRTY one; C is unaffected by B's priorities
    dests = [remote("B", netprty=1), replace(remote("B", netprty=4), channel="TO.B.FAST"), remote("C")]
    used = UseRecord()
    chans = set()
    for _ in range(6):
        d = choose(tuple(dests), REQ, used)
        used.charge(d)
        chans.add(d.channel)
    assert chans == {"TO.B.FAST", "TO.C"}


def test_rules15_and_16_priorities_after_status():
    # channel priority only among available destinations: the higher one is RETRYING, so C
    dests = [remote("B", ch_priority=9, status=CMQCFC.MQCHS_RETRYING), remote("C", ch_priority=1), remote("D")]
    assert set(spread(dests, 4)) == {"C"}
    assert set(spread([remote("B", q_priority=3), remote("C", q_priority=7)], 4)) == {"C"}
    # channel priority is weighed before queue priority
    assert pick([remote("B", ch_priority=2, q_priority=0), remote("C", ch_priority=1, q_priority=9)]) == "B"


def test_rule17_mruc_limits_the_channels_in_use():
    dests = [remote(n) for n in "BCDE"]
    order = spread(dests, 12, Request(local_clusters=SALES, mruc=2))
    assert len(set(order)) == 2 and Counter(order).most_common()[0][1] == 6


def test_rule18_weights():
    order = spread([remote("B", ch_weight=75), remote("C", ch_weight=25)], 400)
    counts = Counter(order)
    assert 280 <= counts["B"] <= 320 and counts["B"] + counts["C"] == 400
    used = UseRecord()
    d = choose((remote("B"),), REQ, used)
    used.charge(d)
    assert used.factor == {"TO.B": 20} and used.number == {"TO.B": 1}
    used.reset()
    assert used.factor == {} and used.number == {"TO.B": 1}


def test_queue_manager_alias_ignores_queue_rules():
    alias = Destination("QMA", "TO.QMA", clusters=SALES, channel_clusters=SALES, alias=True)
    assert set(spread([alias, remote("B", q_rank=9), remote("C", q_rank=1)], 6)) == {"QMA", "B"}


DEST = st.builds(
    remote, st.sampled_from(["B", "C", "D", "E", "F", "G"]),
    q_rank=st.integers(0, 2), q_priority=st.integers(0, 2), put_enabled=st.booleans(),
    ch_rank=st.integers(0, 2), ch_priority=st.integers(0, 2), ch_weight=st.integers(1, 99),
    netprty=st.integers(0, 2), suspended=st.booleans(),
    status=st.sampled_from([CMQCFC.MQCHS_RUNNING, CMQCFC.MQCHS_RETRYING, CMQCFC.MQCHS_STOPPED, CMQCFC.MQCHS_STARTING]))


@settings(max_examples=300, deadline=None)
@given(st.lists(DEST, min_size=1, max_size=8, unique_by=lambda d: d.qmgr), st.integers(1, 40))
def test_properties(dests, n):
    """The choice is always an input, put-enabled when any is, of the highest channel rank; and with
    identical attributes the counts never differ by more than one (strict round-robin)."""
    used = UseRecord()
    for _ in range(n):
        try:
            d = choose(tuple(dests), REQ, used)
        except WorkloadError as e:
            assert e.reason == CMQC.MQRC_CLUSTER_PUT_INHIBITED
            return
        assert d in dests
        assert d.ch_rank == max(x.ch_rank for x in dests)
        if any(x.put_enabled for x in dests):
            assert d.put_enabled
        used.charge(d)
    same = [remote(x.qmgr) for x in dests]
    counts = Counter(spread(same, n))
    assert max(counts.values()) - min(counts.get(x.qmgr, 0) for x in same) <= 1


def test_binding_options_and_when_the_algorithm_runs():
    assert binding(CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_ON_OPEN, CMQC.MQBND_BIND_NOT_FIXED) == CMQC.MQBND_BIND_ON_OPEN
    assert binding(CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED, CMQC.MQBND_BIND_ON_OPEN) == CMQC.MQBND_BIND_NOT_FIXED
    assert binding(CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_ON_GROUP, CMQC.MQBND_BIND_ON_OPEN) == CMQC.MQBND_BIND_ON_GROUP
    for defbind in (CMQC.MQBND_BIND_ON_OPEN, CMQC.MQBND_BIND_NOT_FIXED, CMQC.MQBND_BIND_ON_GROUP):
        assert binding(CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_AS_Q_DEF, defbind) == defbind
    # (bind, in group, logical order, starts group) -> the algorithm runs for this put
    assert not chooses_at_put(CMQC.MQBND_BIND_ON_OPEN, False, False, False)
    assert chooses_at_put(CMQC.MQBND_BIND_NOT_FIXED, True, True, False)
    assert chooses_at_put(CMQC.MQBND_BIND_ON_GROUP, True, True, True)
    assert not chooses_at_put(CMQC.MQBND_BIND_ON_GROUP, True, True, False)     # the rest of the group follows
    assert chooses_at_put(CMQC.MQBND_BIND_ON_GROUP, False, True, False)        # not in a group: NOT_FIXED
    assert chooses_at_put(CMQC.MQBND_BIND_ON_GROUP, True, False, False)        # no LOGICAL_ORDER: NOT_FIXED
    for opt in (CMQC.MQOO_INPUT_AS_Q_DEF, CMQC.MQOO_INPUT_SHARED, CMQC.MQOO_INPUT_EXCLUSIVE, CMQC.MQOO_BROWSE,
                CMQC.MQOO_SET):
        assert needs_local_instance(opt | CMQC.MQOO_OUTPUT)
    for opt in (CMQC.MQOO_OUTPUT, CMQC.MQOO_INQUIRE, CMQC.MQOO_BIND_ON_OPEN, CMQC.MQOO_BIND_NOT_FIXED,
                CMQC.MQOO_BIND_ON_GROUP):
        assert not needs_local_instance(opt)
