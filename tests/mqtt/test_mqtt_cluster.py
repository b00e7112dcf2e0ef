"""An MQTT publication is an MQ publication: a clustered topic carries it to another queue manager
of the cluster, and an MQI publication on one reaches an MQTT subscriber on another (two full
repositories, real processes)."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from mqlite.cli.proc import free_port
from mqlite.testing import Harness
from tests.helpers import depth, drain, wait_until
from tests.mqtt.test_mqtt_channel import Client
from tests.pubsub.test_cluster_pubsub import publish

RETRY = "SHORTRTY(60) SHORTTMR(1) LONGTMR(5)"


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[Harness, int]]:
    h = Harness()
    try:
        ports = {"CA": free_port(), "CB": free_port()}
        mqtt_port = free_port()
        for name, other in (("CA", "CB"), ("CB", "CA")):
            h.add(name, f"ALTER QMGR REPOS(LIVE)\n"
                        f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({ports[name]})') CLUSTER(LIVE) {RETRY}\n"
                        f"DEFINE CHANNEL(TO.{other}) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1({ports[other]})') CLUSTER(LIVE) {RETRY}\n"
                        "DEFINE QLOCAL(SUBQ)\n"
                        + ("DEFINE TOPIC(SCORES) TOPICSTR('scores') CLUSTER(LIVE)\n" if name == "CA" else
                           f"DEFINE CHANNEL(MQTT.CB) CHLTYPE(MQTT) PORT({mqtt_port}) LOCLADDR('127.0.0.1')\n"
                           "START SERVICE(SYSTEM.MQXR.SERVICE)\n"), port=ports[name])
        yield h, mqtt_port
    finally:
        h.close()


def test_publications_cross_the_cluster_both_ways(pair: tuple[Harness, int]) -> None:
    h, port = pair
    wait_until(lambda: "CLUSTER(LIVE)" in h.qm("CB").mqsc("DISPLAY TPSTATUS('scores') CLUSTER\n").stdout,
               timeout=40, what="CB to know the clustered topic")
    h.qm("CA").mqsc("DEFINE SUB(SCORES.CA) TOPICSTR('scores/#') DEST(SUBQ)\n", check=True)
    fan = Client(port, "cluster.fan")
    assert fan.subscribe("scores/+", 1) == [1]
    # MQTT on CB -> an MQ subscriber on CA, over the cluster.
    def proxied(qm: str, origin: str) -> bool:
        return f"DESTQMGR({origin})" in h.qm(qm).mqsc("DISPLAY SUB(*) SUBTYPE(PROXY) DESTQMGR\n").stdout
    wait_until(lambda: proxied("CB", "CA") and proxied("CA", "CB"), timeout=40, what="the proxy subscriptions")
    fan.publish("scores/final", b"3-1", 1)
    wait_until(lambda: depth(h, "CA", "SUBQ") == 1, timeout=30, what="the MQTT publication at CA")
    assert drain(h, "CA", "SUBQ") == [b"3-1"]
    # An MQI publication on CA -> the MQTT subscriber on CB (and its own publication came back too).
    got = fan.take(1)
    assert got[0].payload == b"3-1"
    publish(h, "CA", "scores/half", [b"1-1"])
    (m,) = fan.take(1, wait=30)
    assert (m.topic, m.payload, m.qos) == ("scores/half", b"1-1", 1)
    fan.close()
