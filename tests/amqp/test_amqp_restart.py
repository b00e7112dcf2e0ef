"""AMQP clients across a queue manager's end: `endmqm -i` + `strmqm` keeps durable messages and a
durable subscription with what was published to it (nonpersistent messages go, as MQ's do), and
after a kill -9 every transfer the channel accepted is on the queue (at least once)."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from proton import Message
from proton.reactor import DurableSubscription
from proton.utils import BlockingConnection

from mqlite.cli.proc import free_port
from mqlite.testing import Harness
from tests.amqp.conftest import WAIT, Capability
from tests.amqp.test_amqp_nodes import drain
from tests.helpers import depth, wait_until


@pytest.fixture(scope="module")
def restart_rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    port = free_port()
    with Harness(str(tmp_path_factory.mktemp("restart"))) as h:
        qm = h.add("AMQPRST", f"DEFINE CHANNEL(AMQP.RST) CHLTYPE(AMQP) PORT({port}) LOCLADDR('127.0.0.1') "
                              "MCAUSER('app')\nALTER SERVICE(SYSTEM.AMQP.SERVICE) CONTROL(QMGR)\n"
                              "START SERVICE(SYSTEM.AMQP.SERVICE)\nDEFINE QLOCAL(KEPT)\n")
        yield {"h": h, "qm": qm, "port": port}


def connect(rig: dict[str, Any], container: str | None = None) -> BlockingConnection:
    kw = {"container_id": container} if container else {}
    return BlockingConnection(f"amqp://127.0.0.1:{rig['port']}", allowed_mechs="ANONYMOUS", timeout=WAIT, **kw)


def restart(rig: dict[str, Any]) -> None:
    rig["qm"].stop()
    rig["qm"].start()
    wait_until(lambda: "STATUS(RUNNING)" in rig["qm"].mqsc("DISPLAY SVSTATUS(SYSTEM.AMQP.SERVICE)\n").stdout,
               timeout=20, what="the AMQP service to start with the queue manager")


def test_durable_messages_and_a_durable_subscription_outlive_endmqm(restart_rig: dict[str, Any]) -> None:
    c = connect(restart_rig, "keeper")
    snd = c.create_sender("KEPT", options=Capability("queue"))
    for i in range(5):
        snd.send(Message(body=f"durable {i}", durable=True))
        snd.send(Message(body=f"fleeting {i}", durable=False))
    rcv = c.create_receiver("alerts/#", credit=10, name="alerts", options=DurableSubscription())
    rcv.link.detach()
    c.create_sender("after/detach").close()
    c.close()
    publish = connect(restart_rig)
    publish.create_sender("alerts/fire").send(Message(body="while away", durable=True))
    publish.close()
    restart(restart_rig)
    c = connect(restart_rig, "keeper")
    got = drain(c.create_receiver("KEPT", credit=20, options=Capability("queue")))
    assert got == [f"durable {i}" for i in range(5)]            # the nonpersistent ones went with the end
    assert drain(c.create_receiver("alerts/#", credit=10, name="alerts", options=DurableSubscription())) \
        == ["while away"]
    c.close()


def test_every_accepted_transfer_survives_kill_9(restart_rig: dict[str, Any]) -> None:
    accepted: list[int] = []
    stop = threading.Event()

    def sender() -> None:
        try:
            c = connect(restart_rig)
            snd = c.create_sender("KEPT", options=Capability("queue"))
            for i in range(100000):
                if stop.is_set():
                    return
                snd.send(Message(body=f"k{i}", durable=True))    # (returns once accepted)
                accepted.append(i)
        except Exception:
            return                                               # (the queue manager died under it)
    t = threading.Thread(target=sender, daemon=True)
    t.start()
    wait_until(lambda: len(accepted) >= 300, timeout=30, what="300 transfers accepted")
    restart_rig["qm"].kill9()
    stop.set()
    t.join(WAIT)
    sent = len(accepted)
    restart(restart_rig)
    kept = depth(restart_rig["h"], "AMQPRST", "KEPT")
    assert sent <= kept <= sent + 1                              # accepted ones all there (one more in flight)
    restart_rig["qm"].mqsc("CLEAR QLOCAL(KEPT)\n")
