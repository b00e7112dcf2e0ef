"""An AMQP publication is an MQ publication: a clustered topic carries it to another queue manager
of the cluster, and an MQI publication on one reaches an AMQP receiver on another (two full
repositories, real processes, Qpid Proton's client)."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
from proton import Message
from proton.utils import BlockingConnection

from mqlite.cli.proc import free_port
from mqlite.testing import Harness
from tests.amqp.conftest import WAIT
from tests.helpers import depth, drain, proxied, scores_cluster, wait_until
from tests.pubsub.test_cluster_pubsub import publish


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[Harness, int]]:
    port = free_port()
    with scores_cluster(f"DEFINE CHANNEL(AMQP.CB) CHLTYPE(AMQP) PORT({port}) LOCLADDR('127.0.0.1') "
                        "MCAUSER('app')\nSTART SERVICE(SYSTEM.AMQP.SERVICE)\n") as h:
        yield h, port


def test_publications_cross_the_cluster_both_ways(pair: tuple[Harness, int]) -> None:
    h, port = pair
    c = BlockingConnection(f"amqp://127.0.0.1:{port}", allowed_mechs="ANONYMOUS", timeout=WAIT)
    fan = c.create_receiver("scores/+", credit=10)
    wait_until(lambda: proxied(h, "CB", "CA") and proxied(h, "CA", "CB"), timeout=40, what="the proxy subscriptions")
    # AMQP on CB -> an MQ subscriber on CA, over the cluster, persistent as it was sent.
    c.create_sender("scores/final").send(Message(body="3-1", durable=True, properties={"league": "one"}))
    wait_until(lambda: depth(h, "CA", "SUBQ") == 1, timeout=30, what="the AMQP publication at CA")
    (got,) = drain(h, "CA", "SUBQ")             # (PROPCTL(COMPAT): its usr properties come as an MQRFH2)
    assert got.startswith(b"RFH ") and b"<league>one</league>" in got and got.endswith(b"3-1")
    assert fan.receive(timeout=WAIT).body == "3-1"          # (its own publication, on CB)
    fan.accept()
    # An MQI publication on CA -> the AMQP receiver on CB.
    publish(h, "CA", "scores/half", [b"1-1"])
    m = fan.receive(timeout=30)
    assert (m.body, m.subject) == (b"1-1", "scores/half")
    fan.accept()
    c.close()
