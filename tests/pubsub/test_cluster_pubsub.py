"""Publish/subscribe across a cluster of real queue-manager processes: two full repositories (FR1,
FR2) and three partial ones (PR1-PR3) in cluster NEWS.

- SPORTS (topic string 'sports', CLROUTE(DIRECT)) is defined on FR1 only: every member learns it,
  subscriptions on PR2 and PR3 place proxy subscriptions on the other members, and a publication
  on PR1 goes straight to PR2 and PR3.
- PRICES ('prices', CLROUTE(TOPICHOST)) is defined on FR2 and PR3: proxies go to those two hosts
  only, and a publication on PR1 goes through one of them to the subscriber on PR2. PR3 killed -9:
  publications move to FR2, and nothing is lost or repeated once PR3 is back.
The tests run in order on one cluster.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.props import rfh2
from mqlite.props.values import Properties
from mqlite.testing import Harness, free_port
from tests.helpers import depth, drain, wait_until

FULL = ("FR1", "FR2")
PARTIAL = ("PR1", "PR2", "PR3")
MANUAL = {"FR1": "FR2", "FR2": "FR1", "PR1": "FR1", "PR2": "FR1", "PR3": "FR2"}
FAST_RETRY = "SHORTRTY(60) SHORTTMR(1) LONGTMR(5)"
TOPICS = {"FR1": "DEFINE TOPIC(SPORTS) TOPICSTR('sports') CLUSTER(NEWS)",
          "FR2": "DEFINE TOPIC(PRICES) TOPICSTR('prices') CLUSTER(NEWS) CLROUTE(TOPICHOST)",
          "PR3": "DEFINE TOPIC(PRICES) TOPICSTR('prices') CLUSTER(NEWS) CLROUTE(TOPICHOST)"}


def member_mqsc(name: str, ports: dict[str, int]) -> str:
    out = ["ALTER QMGR REPOS(NEWS)"] if name in FULL else []
    t = MANUAL[name]
    out += [f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({ports[name]})') CLUSTER(NEWS) {FAST_RETRY}",
            f"DEFINE CHANNEL(TO.{t}) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1({ports[t]})') CLUSTER(NEWS) {FAST_RETRY}",
            "DEFINE QLOCAL(SUBQ)", "DEFINE QLOCAL(PRICEQ)", "DEFINE QLOCAL(LOCALQ)"]
    if name in TOPICS:
        out.append(TOPICS[name])
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def news() -> Iterator[Harness]:
    h = Harness()
    try:
        ports = {n: free_port() for n in FULL + PARTIAL}
        for n in FULL + PARTIAL:
            h.add(n, member_mqsc(n, ports), port=ports[n])
        yield h
    finally:
        h.close()


def cluster_topics(h: Harness, qm: str) -> set[tuple[str, str, str]]:
    """(topic object, topic string, host) of every clustered topic ``qm`` knows."""
    out = h.qm(qm).mqsc("DISPLAY TOPIC(*) TYPE(CLUSTER) CLROUTE").stdout
    blocks = out.split("AMQ8633I: Display topic details.")[1:]
    return {re.findall(r"TOPIC\((\S+?)\)\s.*?TOPICSTR\((\S*?)\).*?CLUSQMGR\((\S+?)\)", b, re.S)[0] for b in blocks}


def proxies(h: Harness, qm: str) -> set[tuple[str, str]]:
    """(origin, topic string) of the proxy subscriptions ``qm`` holds."""
    out = h.qm(qm).mqsc("DISPLAY SUB(*) SUBTYPE(PROXY)").stdout
    blocks = out.split("AMQ8096I: IBM MQ subscription inquired.")[1:]
    return {(o, t) for b in blocks for t, o in re.findall(r"TOPICSTR\((\S+?)\).*?DESTQMGR\((\S+?)\)", b, re.S)}


def publish(h: Harness, qm: str, topic: str, bodies: list[bytes], persistent: bool = True) -> None:
    conn = h.qm(qm).client()
    try:
        t = pymqi.Topic(conn, topic_string=topic)
        t.open(open_opts=C.MQOO_OUTPUT)
        for b in bodies:
            t.pub(b, pymqi.MD(Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT))
        t.close()
    finally:
        conn.disconnect()


def test_clustered_topics_reach_every_member(news: Harness) -> None:
    want = {("SPORTS", "sports", "FR1"), ("PRICES", "prices", "FR2"), ("PRICES", "prices", "PR3")}
    for qm in FULL + PARTIAL:
        wait_until(lambda qm=qm: cluster_topics(news, qm) == want, timeout=40, what=f"{qm} to know the cluster topics")
    # A member that defines no topic sees the clustered one as part of its own topic tree.
    out = news.qm("PR2").mqsc("DISPLAY TPSTATUS('sports') CLUSTER CLROUTE").stdout
    assert "CLUSTER(NEWS)" in out and "CLROUTE(DIRECT)" in out


def test_direct_route_publisher_and_subscribers_on_different_partials(news: Harness) -> None:
    news.qm("PR2").mqsc("DEFINE SUB(FOOTBALL) TOPICSTR('sports/football') DEST(SUBQ)\n", check=True)
    news.qm("PR3").mqsc("DEFINE SUB(ALLSPORT) TOPICSTR('sports/#') DEST(SUBQ)\n"
                        "DEFINE SUB(JUSTHERE) TOPICSTR('local/news') DEST(LOCALQ)\n", check=True)
    # DIRECT: every other member holds the proxies, the publisher's partial PR1 among them.
    wait_until(lambda: {("PR2", "sports/football"), ("PR3", "sports/#")} <= proxies(news, "PR1"),
               timeout=30, what="PR1 to hold proxy subscriptions from PR2 and PR3")
    assert not any(t == "local/news" for _o, t in proxies(news, "PR1"))    # not a clustered topic
    bodies = [f"goal {i}".encode() for i in range(20)]
    publish(news, "PR1", "sports/football", bodies)
    publish(news, "PR1", "sports/tennis", [b"ace"])
    publish(news, "PR1", "local/news", [b"stays on PR1"])
    wait_until(lambda: depth(news, "PR2", "SUBQ") == 20 and depth(news, "PR3", "SUBQ") == 21, timeout=30,
               what="the publications at PR2 and PR3")
    assert sorted(drain(news, "PR2", "SUBQ")) == sorted(bodies)
    assert sorted(drain(news, "PR3", "SUBQ")) == sorted(bodies + [b"ace"])
    assert depth(news, "PR3", "LOCALQ") == 0
    # Ending the subscription withdraws its proxy.
    news.qm("PR2").mqsc("DELETE SUB(FOOTBALL)\n", check=True)
    wait_until(lambda: ("PR2", "sports/football") not in proxies(news, "PR1"), timeout=30,
               what="the proxy of the deleted subscription to go")
    assert "SUBTYPE(PROXY)" in news.qm("FR2").mqsc("DISPLAY SUB(*) SUBTYPE(ALL)").stdout
    out = news.qm("PR1").mqsc("DISPLAY PUBSUB ALL").stdout
    assert "QMNAME(PR1)" in out and "STATUS(ACTIVE)" in out and re.search(r"SUBCOUNT\([1-9]", out)


def test_subscope_qmgr_keeps_a_subscription_local(news: Harness) -> None:
    conn = news.qm("PR2").client()
    try:
        sd = pymqi.SD(Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_SCOPE_QMGR)
        sd.set_vs("ObjectString", "sports/golf")
        sub = pymqi.Subscription(conn)
        sub.sub(sub_desc=sd)
        # MQPMO_SCOPE_QMGR keeps a publication on its queue manager: PR3's 'sports/#' does not get it.
        pconn = news.qm("PR1").client()
        try:
            t = pymqi.Topic(pconn, topic_string="sports/golf")
            t.open(open_opts=C.MQOO_OUTPUT)
            t.pub(b"local only", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SCOPE_QMGR))
            t.close()
        finally:
            pconn.disconnect()
        publish(news, "PR1", "sports/golf", [b"birdie"])
        wait_until(lambda: depth(news, "PR3", "SUBQ") == 1, timeout=30, what="the PR3 copy of sports/golf")
        with pytest.raises(pymqi.MQMIError) as e:
            sub.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=1000))
        assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE
        sub.close(sub_close_options=C.MQCO_REMOVE_SUB)
    finally:
        conn.disconnect()
    assert drain(news, "PR3", "SUBQ") == [b"birdie"]


def test_a_publication_with_properties_crosses_the_cluster(news: Harness) -> None:
    """A publication whose data is an MQRFH2 (message properties) travels inside the cluster's
    envelope and arrives with its properties (it was refused with 2334 when the envelope kept the
    publisher's MQHRF2 Format)."""
    props = Properties()
    props.set("ball", "red")
    fmt, enc, ccsid, data = rfh2.join(props, C.MQFMT_STRING, C.MQENC_NATIVE, 1208, b"over")
    conn = news.qm("PR1").client()
    try:
        t = pymqi.Topic(conn, topic_string="sports/cricket")
        t.open(open_opts=C.MQOO_OUTPUT)
        t.pub(data, pymqi.MD(Format=fmt, Encoding=enc, CodedCharSetId=ccsid))
        t.close()
    finally:
        conn.disconnect()
    wait_until(lambda: depth(news, "PR3", "SUBQ") == 1, timeout=30, what="the PR3 copy of sports/cricket")
    conn = news.qm("PR3").client()
    try:
        q = pymqi.Queue(conn, "SUBQ", C.MQOO_INPUT_SHARED)
        hmsg = pymqi.MessageHandle(conn)
        gmo = pymqi.GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_PROPERTIES_IN_HANDLE)
        gmo.MsgHandle = hmsg.msg_handle
        md = pymqi.MD()
        assert q.get(None, md, gmo) == b"over"
        assert md.Format == C.MQFMT_STRING and hmsg.properties.get("ball") == "red"
        q.close()
    finally:
        conn.disconnect()


def managed_sub(conn, topic: str):
    sd = pymqi.SD(Options=C.MQSO_CREATE | C.MQSO_MANAGED)
    sd.set_vs("ObjectString", topic)
    sub = pymqi.Subscription(conn)
    sub.sub(sub_desc=sd)
    return sub


def test_retained_publications_across_the_cluster(news: Harness) -> None:
    # PR3's 'sports/#' proxy at PR1 takes the retained publication to PR3, which keeps it too.
    conn = news.qm("PR1").client()
    try:
        t = pymqi.Topic(conn, topic_string="sports/results")
        t.open(open_opts=C.MQOO_OUTPUT)
        t.pub(b"2-1", pymqi.MD(Persistence=C.MQPER_PERSISTENT), pymqi.PMO(Options=C.MQPMO_RETAIN))
        t.close()
    finally:
        conn.disconnect()
    wait_until(lambda: depth(news, "PR3", "SUBQ") == 1, timeout=30, what="the publication at PR3")
    assert drain(news, "PR3", "SUBQ") == [b"2-1"]
    assert "RETAINED(YES)" in news.qm("PR3").mqsc("DISPLAY TPSTATUS('sports/results') RETAINED").stdout
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=20000)
    # A new subscriber on PR3 gets it from PR3's own copy; one on PR2 (no proxy there before) from
    # PR1, which sends its retained publications to a new proxy subscription.
    for qm in ("PR3", "PR2"):
        conn = news.qm(qm).client()
        try:
            sub = managed_sub(conn, "sports/results")
            md = pymqi.MD()
            assert sub.get(None, md, gmo) == b"2-1", qm
            sub.close(sub_close_options=C.MQCO_REMOVE_SUB)
        finally:
            conn.disconnect()
    assert "RETAINED(YES)" in news.qm("PR2").mqsc("DISPLAY TPSTATUS('sports/results') RETAINED").stdout


def test_topichost_route_and_a_host_killed(news: Harness) -> None:
    news.qm("PR2").mqsc("DEFINE SUB(PRICES) TOPICSTR('prices/#') DEST(PRICEQ)\n", check=True)
    # TOPICHOST: the proxy goes to the two hosts only.
    for host in ("FR2", "PR3"):
        wait_until(lambda host=host: ("PR2", "prices/#") in proxies(news, host), timeout=30,
                   what=f"{host} to hold PR2's proxy")
    assert ("PR2", "prices/#") not in proxies(news, "PR1")
    sent = [f"price {i}".encode() for i in range(10)]
    publish(news, "PR1", "prices/gold", sent)
    wait_until(lambda: depth(news, "PR2", "PRICEQ") == 10, timeout=30, what="10 prices at PR2 through the hosts")
    news.qm("PR3").kill9()
    later = [f"after {i}".encode() for i in range(20)]
    publish(news, "PR1", "prices/gold", later[:2])       # one may wait for PR3; its channel then retries
    wait_until(lambda: "RETRYING" in news.qm("PR1").mqsc("DISPLAY CHSTATUS(TO.PR3) STATUS").stdout, timeout=30,
               what="PR1's channel to PR3 to retry")
    publish(news, "PR1", "prices/gold", later[2:])
    wait_until(lambda: depth(news, "PR2", "PRICEQ") >= 10 + 18, timeout=30, what="prices through FR2 while PR3 is down")
    news.qm("PR3").start()
    wait_until(lambda: depth(news, "PR2", "PRICEQ") == 30, timeout=60, what="every price, once, after PR3 returns")
    assert sorted(drain(news, "PR2", "PRICEQ")) == sorted(sent + later)
