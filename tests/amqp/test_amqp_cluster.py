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
from tests.helpers import depth, drain, wait_until
from tests.pubsub.test_cluster_pubsub import publish

RETRY = "SHORTRTY(60) SHORTTMR(1) LONGTMR(5)"


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[Harness, int]]:
    h = Harness()
    try:
        ports = {"CA": free_port(), "CB": free_port()}
        amqp_port = free_port()
        for name, other in (("CA", "CB"), ("CB", "CA")):
            h.add(name, f"ALTER QMGR REPOS(LIVE)\n"
                        f"DEFINE CHANNEL(TO.{name}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({ports[name]})') CLUSTER(LIVE) {RETRY}\n"
                        f"DEFINE CHANNEL(TO.{other}) CHLTYPE(CLUSSDR) CONNAME('127.0.0.1({ports[other]})') CLUSTER(LIVE) {RETRY}\n"
                        "DEFINE QLOCAL(SUBQ)\n"
                        + ("DEFINE TOPIC(SCORES) TOPICSTR('scores') CLUSTER(LIVE)\n" if name == "CA" else
                           f"DEFINE CHANNEL(AMQP.CB) CHLTYPE(AMQP) PORT({amqp_port}) LOCLADDR('127.0.0.1') "
                           "MCAUSER('app')\nSTART SERVICE(SYSTEM.AMQP.SERVICE)\n"), port=ports[name])
        yield h, amqp_port
    finally:
        h.close()


def test_publications_cross_the_cluster_both_ways(pair: tuple[Harness, int]) -> None:
    h, port = pair
    wait_until(lambda: "CLUSTER(LIVE)" in h.qm("CB").mqsc("DISPLAY TPSTATUS('scores') CLUSTER\n").stdout,
               timeout=40, what="CB to know the clustered topic")
    h.qm("CA").mqsc("DEFINE SUB(SCORES.CA) TOPICSTR('scores/#') DEST(SUBQ)\n", check=True)
    c = BlockingConnection(f"amqp://127.0.0.1:{port}", allowed_mechs="ANONYMOUS", timeout=WAIT)
    fan = c.create_receiver("scores/+", credit=10)

    def proxied(qm: str, origin: str) -> bool:
        return f"DESTQMGR({origin})" in h.qm(qm).mqsc("DISPLAY SUB(*) SUBTYPE(PROXY) DESTQMGR\n").stdout
    wait_until(lambda: proxied("CB", "CA") and proxied("CA", "CB"), timeout=40, what="the proxy subscriptions")
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
