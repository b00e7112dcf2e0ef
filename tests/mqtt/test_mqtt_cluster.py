"""An MQTT publication is an MQ publication: a clustered topic carries it to another queue manager
of the cluster, and an MQI publication on one reaches an MQTT subscriber on another (two full
repositories, real processes)."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from mqlite.cli.proc import free_port
from mqlite.testing import Harness
from tests.helpers import depth, drain, proxied, scores_cluster, wait_until
from tests.mqtt.test_mqtt_channel import Client
from tests.pubsub.test_cluster_pubsub import publish


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[Harness, int]]:
    port = free_port()
    with scores_cluster(f"DEFINE CHANNEL(MQTT.CB) CHLTYPE(MQTT) PORT({port}) LOCLADDR('127.0.0.1')\n"
                        "START SERVICE(SYSTEM.MQXR.SERVICE)\n") as h:
        yield h, port


def test_publications_cross_the_cluster_both_ways(pair: tuple[Harness, int]) -> None:
    h, port = pair
    fan = Client(port, "cluster.fan")
    assert fan.subscribe("scores/+", 1) == [1]
    # MQTT on CB -> an MQ subscriber on CA, over the cluster.
    wait_until(lambda: proxied(h, "CB", "CA") and proxied(h, "CA", "CB"), timeout=40, what="the proxy subscriptions")
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
