"""The nodes an AMQP link can make at a queue manager, as IBM MQ's AMQP channels make them:
temporary queues (dynamic nodes, from the channel's TMPMODEL and TMPQPRFX), shared subscriptions
(``share:<name>:<topic>``) and subscriptions that outlive their link (expiry-policy ``never`` or a
timeout), each checked through MQSC and MQI applications as well as the AMQP client."""
from __future__ import annotations

import re
import socket
import time
from typing import Any

import pytest
from proton import Message, Terminus
from proton.reactor import DurableSubscription, ReceiverOption
from proton.utils import BlockingConnection, BlockingReceiver

from mqlite import pymqi
from tests.amqp.conftest import WAIT, Capability, connect


def subs(rig: dict[str, Any], pattern: str) -> list[str]:
    out = rig["qm"].mqsc(f"DISPLAY SUB('{pattern}') SUBTYPE\n").stdout
    return re.findall(r"^\s*SUB\((.*?)\)\s", out, re.M)


def publish(rig: dict[str, Any], topic: str, bodies: list[bytes], persistent: bool = True) -> None:
    qm = rig["qm"].bindings()
    try:
        t = pymqi.Topic(qm, topic_string=topic)
        t.open(open_opts=pymqi.CMQC.MQOO_OUTPUT)
        for b in bodies:
            t.pub(b, pymqi.MD(Format=pymqi.CMQC.MQFMT_STRING, Persistence=1 if persistent else 0))
        t.close()
    finally:
        qm.disconnect()


def detach(c: BlockingConnection, rcv: BlockingReceiver) -> None:
    """DETACH without closing the node (the client means to come back); a link attached after it
    is answered once the queue manager has taken the detach (frames are taken in order)."""
    rcv.link.detach()
    c.create_sender("after/detach").close()


def drain(rcv: BlockingReceiver, quiet: float = 0.5) -> list[str]:
    got = []
    while True:
        try:
            m = rcv.receive(timeout=quiet)
        except Exception:                       # (proton.Timeout: nothing more came)
            return got
        got.append(m.body)
        rcv.accept()


def test_a_temporary_queue_is_made_from_the_channels_model_and_goes_with_its_link(rig: dict[str, Any]) -> None:
    c = connect(rig)
    rcv = c.create_receiver(None, dynamic=True, credit=10)
    name = rcv.link.remote_source.address
    assert name.startswith("AMQP.") and rcv.link.remote_source.dynamic
    shown = rig["qm"].mqsc(f"DISPLAY QLOCAL('{name}') DEFTYPE\n").stdout
    assert "DEFTYPE(TEMPDYN)" in shown
    # An MQI application replies to it (the request/reply pattern), and so does another AMQP client.
    qm = rig["qm"].bindings()
    q = pymqi.Queue(qm, name, pymqi.CMQC.MQOO_OUTPUT)
    q.put(b"reply from mqi", pymqi.MD(Format=pymqi.CMQC.MQFMT_STRING))
    q.close()
    qm.disconnect()
    other = connect(rig)
    other.create_sender(name, options=Capability("queue")).send(Message(body="reply from amqp"))
    other.close()
    assert sorted(drain(rcv)) == ["reply from amqp", "reply from mqi"]
    rcv.close()
    assert "AMQ8147E" in rig["qm"].mqsc(f"DISPLAY QLOCAL('{name}')\n").stdout      # gone with its link
    c.close()


def test_a_temporary_queue_is_refused_when_the_model_is_missing(rig: dict[str, Any]) -> None:
    rig["qm"].mqsc("ALTER CHANNEL(AMQP.APPS) CHLTYPE(AMQP) TMPMODEL('NO.SUCH.MODEL')\n"
                   "STOP CHANNEL(AMQP.APPS)\nSTART CHANNEL(AMQP.APPS)\n")
    try:
        c = connect(rig)
        with pytest.raises(Exception) as e:
            c.create_receiver(None, dynamic=True)
        assert "amqp:not-found" in str(e.value)
        c.close()
    finally:
        rig["qm"].mqsc("ALTER CHANNEL(AMQP.APPS) CHLTYPE(AMQP) TMPMODEL('SYSTEM.DEFAULT.MODEL.QUEUE')\n"
                       "STOP CHANNEL(AMQP.APPS)\nSTART CHANNEL(AMQP.APPS)\n")
    assert rig["qm"].running()


def test_a_shared_subscription_is_one_mq_subscription_its_links_share(rig: dict[str, Any]) -> None:
    a, b = connect(rig), connect(rig)
    ra = a.create_receiver("share:workers:jobs/#", credit=3)
    rb = b.create_receiver("share:workers:jobs/#", credit=3)
    assert subs(rig, ":share:*") == [":share:workers:jobs/#"]     # one subscription, in MQ's name
    publish(rig, "jobs/a", [b"j%d" % i for i in range(12)])
    got = drain(ra) + drain(rb) + drain(ra)
    assert sorted(got) == sorted(f"j{i}" for i in range(12))      # each once, between them
    ra.close()
    assert subs(rig, ":share:*") == [":share:workers:jobs/#"]     # b still holds it
    publish(rig, "jobs/b", [b"late"])
    assert drain(rb) == ["late"]
    rb.close()
    assert subs(rig, ":share:*") == []                            # the last link removes it
    a.close()
    b.close()


def test_a_durable_subscription_outlives_its_link_and_its_connection(rig: dict[str, Any]) -> None:
    c = BlockingConnection(f"amqp://127.0.0.1:{rig['port']}", user="app", password="apppw",
                           allowed_mechs="PLAIN", timeout=WAIT, container_id="news-reader")
    rcv = c.create_receiver("news/+", credit=10, name="news", options=DurableSubscription())
    name = ":private:news-reader:news/+"
    assert subs(rig, ":private:news-reader:*") == [name]
    detach(c, rcv)
    c.close()                                   # the client is gone; its subscription is not
    assert subs(rig, ":private:news-reader:*") == [name]
    publish(rig, "news/today", [b"while away 1", b"while away 2"])
    publish(rig, "news/today", [b"nonpersistent too"], persistent=False)
    c = BlockingConnection(f"amqp://127.0.0.1:{rig['port']}", user="app", password="apppw",
                           allowed_mechs="PLAIN", timeout=WAIT, container_id="news-reader")
    rcv = c.create_receiver("news/+", credit=10, name="news", options=DurableSubscription())
    assert drain(rcv) == ["while away 1", "while away 2", "nonpersistent too"]
    rcv.close()                                 # closed, not detached: the client is done with it
    assert subs(rig, ":private:news-reader:*") == []
    c.close()


def test_a_plain_subscription_ends_with_its_link_and_a_timeout_keeps_one_that_long(rig: dict[str, Any]) -> None:
    c = connect(rig)
    rcv = c.create_receiver("weather/#", credit=5)
    assert len(subs(rig, "*")) >= 1 and subs(rig, ":private:*") == []      # non-durable, unnamed
    detach(c, rcv)

    class Timeout2(ReceiverOption):
        def apply(self, receiver: Any) -> None:
            receiver.source.expiry_policy = Terminus.EXPIRE_WITH_LINK
            receiver.source.timeout = 2
    rcv = c.create_receiver("alerts/#", credit=5, options=Timeout2())
    container = c.conn.container
    assert subs(rig, f":private:{container}:*") == [f":private:{container}:alerts/#"]
    detach(c, rcv)
    assert subs(rig, f":private:{container}:*") == [f":private:{container}:alerts/#"]   # kept ...
    deadline = time.monotonic() + 15
    while subs(rig, f":private:{container}:*") and time.monotonic() < deadline:
        time.sleep(0.5)
    assert subs(rig, f":private:{container}:*") == []                                  # ... 2 s
    c.close()


def test_purge_channel_ends_a_client_and_removes_its_subscriptions(rig: dict[str, Any]) -> None:
    c = BlockingConnection(f"amqp://127.0.0.1:{rig['port']}", user="app", password="apppw",
                           allowed_mechs="PLAIN", timeout=WAIT, container_id="purge-me")
    c.create_receiver("audit/#", credit=1, options=DurableSubscription())
    keep = connect(rig)                                     # another client: untouched
    keep_rcv = keep.create_receiver("share:audit:audit/#", credit=1)
    assert subs(rig, ":private:purge-me:*") == [":private:purge-me:audit/#"]
    out = rig["qm"].mqsc("PURGE CHANNEL(AMQP.APPS) CHLTYPE(AMQP) CLIENTID('purge-me')\n").stdout
    assert "MQL8025I" in out
    assert subs(rig, ":private:purge-me:*") == []
    assert subs(rig, ":share:audit:*") == [":share:audit:audit/#"]
    shown = rig["qm"].mqsc("DISPLAY CHSTATUS(AMQP.APPS) CLIENTID('purge-me')\n").stdout
    assert "CLIENTID(purge-me)" not in shown
    publish(rig, "audit/x", [b"still served"])
    assert drain(keep_rcv) == ["still served"]
    keep_rcv.close()
    keep.close()
    with pytest.raises(Exception):
        c.close()                                           # (its connection is gone)
    # MQ's answers to what PURGE CHANNEL cannot do.
    assert "AMQ8147E" in rig["qm"].mqsc("PURGE CHANNEL(NO.SUCH) CHLTYPE(AMQP) CLIENTID('x')\n").stdout
    assert "One command has a syntax error" in rig["qm"].mqsc("PURGE CHANNEL(AMQP.APPS) CHLTYPE(MQTT) "
                                                             "CLIENTID('x')\n").stdout


def test_usecltid_makes_the_container_id_the_identity(rig: dict[str, Any]) -> None:
    url = f"amqp://127.0.0.1:{rig['cid']}"
    c = BlockingConnection(url, allowed_mechs="ANONYMOUS", timeout=WAIT, container_id="app")
    c.create_sender("ORDERS", options=Capability("queue")).send(Message(body="as app", durable=True))
    rcv = c.create_receiver("ORDERS", credit=1, options=Capability("queue"))
    assert rcv.receive(timeout=WAIT).body == "as app"
    rcv.accept()
    # AMQPKA(1000) milliseconds: closed after 1 s of silence; OPEN asks for a frame every half of it.
    assert c.conn.transport.remote_idle_timeout == 0.5
    c.close()
    with pytest.raises(Exception) as e:                      # no connect authority for this one
        BlockingConnection(url, allowed_mechs="ANONYMOUS", timeout=WAIT, container_id="stranger")
    assert "unauthorized-access" in str(e.value)


def test_amqpka_closes_a_client_that_goes_silent(rig: dict[str, Any]) -> None:
    """A client that opens and then sends nothing, not even empty frames, is closed once AMQPKA
    (1 s here) has passed."""
    from proton import Connection, Transport
    t, conn = Transport(), Connection()
    t.sasl().allowed_mechs("ANONYMOUS")
    conn.container = "app"
    t.bind(conn)
    conn.open()
    s = socket.create_connection(("127.0.0.1", rig["cid"]), timeout=WAIT)
    start = time.monotonic()
    closed = False
    while time.monotonic() - start < 8 and not closed:
        out = t.peek(t.pending()) if t.pending() > 0 else b""
        if out:
            s.sendall(out)
            t.pop(len(out))
        s.settimeout(0.5)
        try:
            data = s.recv(4096)
        except socket.timeout:
            continue
        if not data:
            closed = True
        else:
            t.push(data)                    # (read, never answered with a frame of ours)
    s.close()
    assert closed and 0.9 < time.monotonic() - start < 6
    assert rig["qm"].running()
