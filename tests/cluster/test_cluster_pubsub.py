"""Cluster publish/subscribe decisions, sans-IO (mqlite.cluster.pubsub), and clustered topic records
in the repository (pushed to every member)."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mqlite.cluster.pubsub import (
    ClusterTopic,
    Proxies,
    clustered,
    fixed_prefix,
    forward_to,
    proxy_targets,
    unwrap,
    wrap,
)
from mqlite.cluster.repository import QMGR, TOPIC
from mqlite.cmq import CMQC
from mqlite.cmq import CMQCFC as F
from mqlite.objects.attrs import TABLE
from mqlite.objects.model import MQObject
from tests.cluster.test_repository import C, Net

DIRECT, TOPICHOST = F.MQCLROUTE_DIRECT, F.MQCLROUTE_TOPIC_HOST
MEMBERS = ["FR1", "FR2", "PR1", "PR2", "PR3"]


def node(name: str, topicstr: str, cluster: str = "", **attrs: object) -> MQObject:
    obj = MQObject("TOPIC", name, TABLE.defaults("TOPIC"))
    obj.attrs.update(TOPICSTR=topicstr, CLUSTER=cluster, **attrs)
    return obj


def tree(*objs: MQObject) -> dict[str, MQObject]:
    base = node("SYSTEM.BASE.TOPIC", "", SUBSCOPE=CMQC.MQSCOPE_ALL, PUBSCOPE=CMQC.MQSCOPE_ALL)
    return {"": base, **{o["TOPICSTR"]: o for o in objs}}


SPORTS = ClusterTopic("SPORTS", C, "sports", DIRECT, ("FR1",))
PRICES = ClusterTopic("PRICES", C, "prices", TOPICHOST, ("FR2", "PR3"))
KNOWN = {"sports": SPORTS, "prices": PRICES}
NODES = tree(node("SPORTS", "sports", C), node("PRICES", "prices", C, CLROUTE=TOPICHOST))


def members(_cluster: str) -> list[str]:
    return MEMBERS


def test_fixed_prefix():
    assert fixed_prefix("sports/football", False) == "sports/football"
    assert fixed_prefix("sports/#", False) == "sports"
    assert fixed_prefix("sports/+/scores", False) == "sports"
    assert fixed_prefix("#", False) == ""
    assert fixed_prefix("sports/foot*", True) == "sports"
    assert fixed_prefix("spo?ts", True) == ""


def test_a_topic_is_clustered_under_the_nearest_node_that_sets_cluster():
    nodes = tree(node("SPORTS", "sports", C), node("LOCAL", "sports/local"))
    assert clustered(nodes, KNOWN, "sports/football/scores") == SPORTS
    assert clustered(nodes, KNOWN, "sports/local/x") == SPORTS         # CLUSTER inherited (blank below)
    assert clustered(nodes, KNOWN, "weather") is None


def test_proxy_targets_direct_to_every_member_topichost_to_the_hosts():
    want = proxy_targets(NODES, KNOWN, "PR2", members, [("sports/football", False), ("prices/#", False),
                                                          ("weather/#", False)])
    assert want == {**{(m, C): {("sports/football", False)} for m in MEMBERS if m != "PR2"},
                    ("FR2", C): {("sports/football", False), ("prices/#", False)},
                    ("PR3", C): {("sports/football", False), ("prices/#", False)}}
    # A wildcard above a clustered topic reaches it; SUBSCOPE(QMGR) on the topic keeps it local.
    assert ("FR1", C) in proxy_targets(NODES, KNOWN, "PR2", members, [("#", False)])
    # PROXYSUB(FORCE): a proxy for the whole subtree with no subscription at all.
    forced = {"sports": ClusterTopic("SPORTS", C, "sports", DIRECT, ("FR1",),
                                     {"PROXYSUB": CMQC.MQTA_PROXY_SUB_FORCE})}
    assert proxy_targets(NODES, forced, "PR2", members, []) == {(m, C): {("sports/#", False)}
                                                               for m in MEMBERS if m != "PR2"}
    assert proxy_targets(NODES, {"sports": SPORTS}, "PR2", members, []) == {}
    local = tree(node("SPORTS", "sports", C, SUBSCOPE=CMQC.MQSCOPE_QMGR))
    assert proxy_targets(local, {"sports": SPORTS}, "PR2", members, [("sports/x", False)]) == {}


def test_forward_direct_and_topichost():
    p = Proxies()
    p.receive({"from": "PR2", "cluster": C, "subs": [["sports/#", False], ["prices/#", False]]})
    p.receive({"from": "PR3", "cluster": C, "subs": [["sports/tennis", False]]})
    status = {"FR2": F.MQCHS_RUNNING, "PR3": F.MQCHS_RUNNING}
    use: dict[str, int] = {}
    assert forward_to(SPORTS, "PR1", "sports/football", "", p, status.get, use) == ["PR2"]
    assert forward_to(SPORTS, "PR1", "sports/tennis", "", p, status.get, use) == ["PR2", "PR3"]
    assert forward_to(SPORTS, "PR2", "sports/tennis", "PR1", p, status.get, use) == []     # arrived: local only
    # TOPICHOST from a non-host: one host, alternating; a retrying host is passed over.
    picks = [forward_to(PRICES, "PR1", "prices/gold", "", p, status.get, use)[0] for _ in range(4)]
    assert sorted(picks) == ["FR2", "FR2", "PR3", "PR3"]
    status["PR3"] = F.MQCHS_RETRYING
    assert {forward_to(PRICES, "PR1", "prices/gold", "", p, status.get, use)[0] for _ in range(3)} == {"FR2"}
    # At a host: on to the members with proxies, not back where it came from, never host to host.
    assert forward_to(PRICES, "FR2", "prices/gold", "PR1", p, status.get, use) == ["PR2"]
    assert forward_to(PRICES, "FR2", "prices/gold", "PR2", p, status.get, use) == []
    assert forward_to(PRICES, "FR2", "prices/gold", "PR3", p, status.get, use) == []


def test_proxies_sent_as_whole_sets_withdrawn_and_resent():
    p = Proxies()
    out = p.outgoing("PR2", {("FR1", C): {("a/#", False)}})
    assert out == [("FR1", {"type": "proxies", "from": "PR2", "cluster": C, "subs": [["a/#", False]]})]
    assert p.outgoing("PR2", {("FR1", C): {("a/#", False)}}) == []        # nothing changed: nothing sent
    assert p.outgoing("PR2", {})[0][1]["subs"] == []                       # the last one ended: withdrawn
    p.outgoing("PR2", {("FR1", C): {("b", False)}})
    p.resend()                                                             # REFRESH CLUSTER
    assert p.outgoing("PR2", {("FR1", C): {("b", False)}})[0][1]["subs"] == [["b", False]]
    # After a restart each target is sent its set again, an empty one included.
    q = Proxies()
    q.restore(p.snapshot())
    assert q.outgoing("PR2", {})[0][1]["subs"] == []
    held = Proxies()
    held.receive({"from": "PR2", "cluster": C, "subs": [["b", False]]})
    held.receive({"from": "PR2", "cluster": C, "subs": []})
    assert held.held == {} and held.origins(C, "b") == []


@given(st.text(max_size=40), st.text(max_size=20), st.binary(max_size=64))
def test_wrap_round_trip(topic, origin, body):
    origin, topic = origin.replace("\0", ""), topic.replace("\0", "")
    assert unwrap(wrap(topic, origin, body)) == (topic, origin, "P", b"", body)
    assert unwrap(wrap(topic, origin, body, "P", b"MQHRF2  ")) == (topic, origin, "P", b"MQHRF2  ", body)
    assert unwrap(wrap(topic, origin, body, "S"))[2] == "S"


def test_topic_records_reach_every_member_without_subscribing():
    net = Net(["FR1", "FR2"], {"PR1": "FR1", "PR2": "FR2", "PR3": "FR1"})
    # Before any topic, a partial knows only the full repositories and itself.
    assert {k.owner for k in net.qms["PR1"].records if k.kind == QMGR} == {"FR1", "FR2", "PR1"}
    net.qms["PR3"].publish(C, TOPIC, "PRICES", {"TOPICSTR": "prices", "CLROUTE": TOPICHOST})
    net.run()
    for name, r in net.qms.items():
        assert [k.owner for k in r.records if k.kind == TOPIC] == ["PR3"], name
        # ...and, the cluster having a topic, every member's queue-manager record.
        assert {k.owner for k in r.records if k.kind == QMGR} == {"FR1", "FR2", "PR1", "PR2", "PR3"}, name
    net.qms["PR3"].publish(C, TOPIC, "PRICES", {"TOPICSTR": "prices"}, deleted=True)
    net.run()
    assert all(not r.has_topics(C) for r in net.qms.values())


def test_psclus_disabled_takes_no_part_in_cluster_publish_subscribe(eng):
    assert eng.mqsc_exec.run("DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1(1)') CLUSTER(NEWS)").status == "ok"
    assert eng.mqsc_exec.run("DEFINE TOPIC(SPORTS) TOPICSTR('sports') CLUSTER(NEWS)").status == "ok"
    cl = eng.qm.cluster
    assert set(cl.known_topics()) == {"sports"}
    assert any(kind == TOPIC for _c, kind, _n in cl.desired())
    assert eng.mqsc_exec.run("ALTER QMGR PSCLUS(DISABLED)").status == "ok"
    assert cl.known_topics() == {} and not any(kind == TOPIC for _c, kind, _n in cl.desired())
    assert "PSCLUS(DISABLED)" in "\n".join(eng.mqsc_exec.run("DISPLAY QMGR PSCLUS").lines)
    assert eng.mqsc_exec.run("ALTER QMGR PSCLUS(ENABLED)").status == "ok"
    assert set(cl.known_topics()) == {"sports"}
