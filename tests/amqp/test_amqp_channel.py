"""AMQP 1.0 channels through a real queue manager process with MQ's security on, driven by Apache
Qpid Proton's Python client: the queue and topic capabilities, message mapping both ways with MQI
applications, accept / release / browse, at-most-once links, SASL PLAIN and ANONYMOUS through
CONNAUTH, CHLAUTH and the OAM, DISPLAY CHSTATUS, and bad input answered with the queue manager
still running."""
from __future__ import annotations

import socket
from typing import Any

import pytest
from proton import ConnectionException, Message
from proton.handlers import MessagingHandler
from proton.reactor import AtMostOnce, Container
from proton.utils import BlockingConnection, LinkDetached

from mqlite import pymqi
from mqlite.amqp import sasl
from mqlite.cli.proc import free_port
from tests.amqp.conftest import WAIT, Capability, connect, depth, mq_get


def test_a_queue_both_ways_with_mq_applications(rig: dict[str, Any]) -> None:
    c = connect(rig)
    snd = c.create_sender("ORDERS", options=Capability("queue"))
    snd.send(Message(body="order 1", durable=True, priority=7, properties={"region": "EU", "qty": 3}))
    snd.send(Message(body=b"\x00\x01binary", durable=False))
    got = mq_get(rig, "ORDERS")
    assert got is not None
    md, body = got
    assert body == b"order 1" and md.Format == pymqi.CMQC.MQFMT_STRING and md.Persistence == 1
    assert md.Priority == 7 and md.PutApplType == pymqi.CMQC.MQAT_AMQP and md.CodedCharSetId == 1208
    md, body = mq_get(rig, "ORDERS") or (None, b"")
    assert body == b"\x00\x01binary" and md.Format == pymqi.CMQC.MQFMT_NONE and md.Persistence == 0
    # An MQI put reaches an AMQP receiver with its properties; accepted, it is gone.
    qm = rig["qm"].bindings()
    q = pymqi.Queue(qm, "ORDERS", pymqi.CMQC.MQOO_OUTPUT)
    q.put(b"from mqi", pymqi.MD(Format=pymqi.CMQC.MQFMT_STRING, Persistence=1))
    q.close()
    qm.disconnect()
    rcv = c.create_receiver("ORDERS", credit=10, options=Capability("queue"))
    m = rcv.receive(timeout=WAIT)
    assert (m.body, m.durable) == ("from mqi", True)
    rcv.accept()
    c.close()
    assert depth(rig, "ORDERS") == 0


class Burst(MessagingHandler):
    """A sender that keeps as many unsettled transfers in flight as the channel's credit allows
    (Proton's event loop, as an application sending at speed does): their outcomes counted."""

    def __init__(self, url: str, address: str, n: int, durable: bool) -> None:
        super().__init__()
        self.url, self.address, self.n, self.durable = url, address, n, durable
        self.sent = self.accepted = self.rejected = 0

    def on_start(self, event: Any) -> None:
        self.conn = event.container.connect(self.url, user="app", password="apppw", allowed_mechs="PLAIN",
                                            reconnect=False)
        event.container.create_sender(self.conn, self.address, options=Capability("queue"))
        self.timer = event.container.schedule(WAIT * 3, self)     # (a bound: the test fails, not hangs)

    def on_timer_task(self, event: Any) -> None:
        self.conn.close()

    def on_sendable(self, event: Any) -> None:
        while event.sender.credit and self.sent < self.n:
            event.sender.send(Message(body=b"b" * 1024, durable=self.durable, properties={"i": self.sent}))
            self.sent += 1

    def on_accepted(self, event: Any) -> None:
        self.accepted += 1
        self._done(event)

    def on_rejected(self, event: Any) -> None:
        self.rejected += 1
        self._done(event)

    def _done(self, event: Any) -> None:
        if self.accepted + self.rejected == self.n:
            self.timer.cancel()
            event.connection.close()


@pytest.mark.parametrize("durable", [True, False])
def test_a_burst_of_transfers_in_flight_all_reach_the_queue(rig: dict[str, Any], durable: bool) -> None:
    """Thousands of unsettled transfers at once (more bytes in one read than Proton's input
    buffer takes): each accepted once its message is on the queue, none lost or twice."""
    h = Burst(f"amqp://127.0.0.1:{rig['port']}", "ORDERS", 3000, durable)
    Container(h).run()
    assert (h.accepted, h.rejected) == (3000, 0)
    assert depth(rig, "ORDERS") == 3000
    seen = []
    while (got := mq_get(rig, "ORDERS")) is not None:
        assert got[0].Persistence == (1 if durable else 0)
        seen.append(got)
    assert len(seen) == 3000


def test_release_brings_a_message_back_and_copy_browses(rig: dict[str, Any]) -> None:
    c = connect(rig)
    c.create_sender("ORDERS", options=Capability("queue")).send(Message(body="keep me", durable=True))
    browser = c.create_receiver("ORDERS", credit=10, options=Capability("queue", copy=True))
    assert browser.receive(timeout=WAIT).body == "keep me"       # (a browsed copy comes settled)
    browser.close()
    assert depth(rig, "ORDERS") == 1                    # a browse takes nothing
    rcv = c.create_receiver("ORDERS", credit=1, options=Capability("queue"))
    assert rcv.receive(timeout=WAIT).body == "keep me"
    rcv.release()                                       # not taken: it comes again
    assert rcv.receive(timeout=WAIT).body == "keep me"
    rcv.accept()
    c.close()
    assert depth(rig, "ORDERS") == 0


def test_topics_with_mqi_publishers_and_subscribers(rig: dict[str, Any]) -> None:
    c = connect(rig)
    rcv = c.create_receiver("prices/fx", credit=10)        # no capability: a topic
    qm = rig["qm"].bindings()
    try:
        sub = pymqi.Subscription(qm)
        sub.sub(sub_opts=pymqi.CMQC.MQSO_CREATE | pymqi.CMQC.MQSO_MANAGED | pymqi.CMQC.MQSO_DURABLE,
                sub_name="FX.WATCH", topic_string="prices/fx")
        c.create_sender("prices/fx").send(Message(body="1.08", durable=True))
        assert rcv.receive(timeout=WAIT).body == "1.08"      # its own link's subscription
        rcv.accept()
        md = pymqi.MD()
        body = sub.get(None, md, pymqi.GMO(Options=pymqi.CMQC.MQGMO_WAIT | pymqi.CMQC.MQGMO_NO_PROPERTIES,
                                          WaitInterval=5000))
        assert body == b"1.08" and md.Persistence == 1
        t = pymqi.Topic(qm, topic_string="prices/fx")
        t.open(open_opts=pymqi.CMQC.MQOO_OUTPUT)
        t.pub(b"1.09", pymqi.MD(Format=pymqi.CMQC.MQFMT_STRING))
        t.close()
        m = rcv.receive(timeout=WAIT)
        assert (m.body, m.subject) == ("1.09", "prices/fx")
        rcv.accept()
        sub.close(sub_close_options=pymqi.CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    finally:
        qm.disconnect()
        c.close()


def test_at_most_once_links(rig: dict[str, Any]) -> None:
    c = connect(rig)
    c.create_sender("ORDERS", options=Capability("queue")).send(Message(body="once", durable=True))
    rcv = c.create_receiver("ORDERS", credit=5, options=[Capability("queue"), AtMostOnce()])
    assert rcv.receive(timeout=WAIT).body == "once"      # settled as sent: gone at once
    assert depth(rig, "ORDERS") == 0
    c.close()


def test_security(rig: dict[str, Any]) -> None:
    with pytest.raises(ConnectionException):
        connect(rig, password="wrong")                    # CONNAUTH: SASL's auth outcome
    eve = connect(rig, user="eve", password="evepw")       # may connect, nothing more
    with pytest.raises(LinkDetached) as e:
        eve.create_sender("SECRET", options=Capability("queue"))
    assert "unauthorized-access" in str(e.value)
    with pytest.raises(LinkDetached):
        eve.create_receiver("prices/#", credit=1)
    eve.close()
    # ANONYMOUS on a channel with MCAUSER runs as it; without one it is no one, and refused.
    anon = BlockingConnection(f"amqp://127.0.0.1:{rig['anon']}", allowed_mechs="ANONYMOUS", timeout=WAIT)
    anon.create_sender("ORDERS", options=Capability("queue")).send(Message(body="anon", durable=True))
    anon.close()
    assert (mq_get(rig, "ORDERS") or (None, b""))[1] == b"anon"
    with pytest.raises(ConnectionException):
        BlockingConnection(f"amqp://127.0.0.1:{rig['port']}", allowed_mechs="ANONYMOUS", timeout=WAIT)


def test_chstatus_and_conn(rig: dict[str, Any]) -> None:
    c = connect(rig)
    c.create_sender("ORDERS", options=Capability("queue"))
    container = c.conn.container
    shown = rig["qm"].mqsc("DISPLAY CHSTATUS(AMQP.APPS)\n").stdout
    assert "CHLTYPE(AMQP)" in shown and "CONNECTIONS(1)" in shown
    shown = rig["qm"].mqsc(f"DISPLAY CHSTATUS(AMQP.APPS) CLIENTID('{container}') ALL\n").stdout
    assert f"CLIENTID({container})" in shown and "MCAUSER(app)" in shown
    c.close()
    assert "STATUS(STOPPED)" in rig["qm"].mqsc("STOP CHANNEL(AMQP.APPS)\nDISPLAY CHSTATUS(AMQP.APPS)\n").stdout
    assert "AMQ8018I" in rig["qm"].mqsc("START CHANNEL(AMQP.APPS)\n").stdout
    connect(rig).close()


@pytest.mark.parametrize("data", [b"HTTP/1.1 200\r\n\r\n", sasl.SASL_HEADER + b"\x7f\xff\xff\xff" + b"x" * 20,
                                  sasl.AMQP_HEADER + b"\x00\x00\x00\x10\x02\x00\x00\x00garbage!"])
def test_bad_input_closes_the_connection_only(rig: dict[str, Any], data: bytes) -> None:
    s = socket.create_connection(("127.0.0.1", rig["port"]), timeout=WAIT)
    s.sendall(data)
    s.settimeout(5)
    try:
        while s.recv(4096):
            pass
    except socket.timeout:
        pytest.fail("the connection was not closed")
    except ConnectionResetError:
        pass                                             # (closed with our bytes unread: a reset)
    s.close()
    c = connect(rig)                                     # the channel serves the next one
    c.close()
    assert rig["qm"].running()


def test_system_def_amqp_gives_new_channels_their_defaults(rig: dict[str, Any]) -> None:
    qm = rig["qm"]
    shown = qm.mqsc("DISPLAY CHANNEL(SYSTEM.DEF.AMQP) ALL\n").stdout
    assert "CHLTYPE(AMQP)" in shown and "PORT(5672)" in shown
    # A default definition: the service does not start it (nothing listens on 5672 for it).
    assert "AMQ8420I" in qm.mqsc("DISPLAY CHSTATUS(SYSTEM.DEF.AMQP)\n").stdout
    port = free_port()
    qm.mqsc("ALTER CHANNEL(SYSTEM.DEF.AMQP) CHLTYPE(AMQP) MAXMSGL(1000) TMPQPRFX('TMP.*')\n"
            f"DEFINE CHANNEL(AMQP.NEW) CHLTYPE(AMQP) PORT({port}) LOCLADDR('127.0.0.1')\n", check=True)
    try:
        shown = qm.mqsc("DISPLAY CHANNEL(AMQP.NEW) MAXMSGL TMPQPRFX\n").stdout
        assert "MAXMSGL(1000)" in shown and "TMPQPRFX(TMP.*)" in shown
    finally:
        qm.mqsc("DELETE CHANNEL(AMQP.NEW)\nALTER CHANNEL(SYSTEM.DEF.AMQP) CHLTYPE(AMQP) MAXMSGL(4194304) "
                "TMPQPRFX('AMQP.*')\n")


def test_a_receiver_closed_with_unsettled_deliveries_gives_them_back(rig: dict[str, Any]) -> None:
    """Deliveries the client never settled, on a link it closes, come again (at least once), and
    the connection's other links go on committing."""
    rig["qm"].mqsc("CLEAR QLOCAL(ORDERS)\n")
    c = connect(rig)
    snd = c.create_sender("ORDERS", options=Capability("queue"))
    for i in range(3):
        snd.send(Message(body=f"u{i}", durable=True))
    rcv = c.create_receiver("ORDERS", credit=3, options=Capability("queue"))
    assert rcv.receive(timeout=WAIT).body == "u0"          # (got, never settled)
    rcv.close()
    again = c.create_receiver("ORDERS", credit=10, options=Capability("queue"))
    bodies = []
    for _ in range(3):
        bodies.append(again.receive(timeout=WAIT).body)
        again.accept()
    assert sorted(bodies) == ["u0", "u1", "u2"]
    c.close()
    assert depth(rig, "ORDERS") == 0


def _fill(rig: dict[str, Any], c: Any, n: int, prefix: str) -> None:
    rig["qm"].mqsc("CLEAR QLOCAL(ORDERS)\n")
    snd = c.create_sender("ORDERS", options=Capability("queue"))
    for i in range(n):
        snd.send(Message(body=f"{prefix}{i}", durable=True))
    snd.close()


@pytest.mark.parametrize("end", ["link", "connection"])
def test_accepted_deliveries_stay_consumed_when_the_rest_come_back(rig: dict[str, Any], end: str) -> None:
    """Accept 3 of 10 prefetched, then close the receiver (or the whole connection): the 3 are
    gone for good, the 7 never settled are back (it was 10: the whole unit was backed out)."""
    c = connect(rig)
    _fill(rig, c, 10, "m")
    rcv = c.create_receiver("ORDERS", credit=10, options=Capability("queue"))
    taken = []
    for _ in range(3):
        taken.append(rcv.receive(timeout=WAIT).body)
        rcv.accept()
    if end == "link":
        rcv.close()
        assert depth(rig, "ORDERS") == 7
        # ... and a release of one delivery gives back that one alone.
        again = c.create_receiver("ORDERS", credit=1, options=Capability("queue"))
        first = again.receive(timeout=WAIT)
        again.accept()
        second = again.receive(timeout=WAIT)
        again.release(delivered=False)
        again.close()
        assert first.body not in taken and depth(rig, "ORDERS") == 6
        assert second.delivery_count == 1                  # (back once, unsettled on the closed link)
    c.close()
    assert depth(rig, "ORDERS") == (6 if end == "link" else 7)
    left = set()
    while (got := mq_get(rig, "ORDERS")) is not None:
        left.add(got[1].decode())
        assert got[0].BackoutCount == 1               # (sent, never settled: as MQBACK leaves it;
                                                       # the one released came back uncounted)
    assert not left & set(taken) and len(left) == (6 if end == "link" else 7)


def test_a_rejected_delivery_is_not_delivered_again(rig: dict[str, Any]) -> None:
    """Rejected: moved to the queue's BOQNAME (poison), not sent again; with no BOQNAME and no
    DEADQ it stays, its BackoutCount raised, and once that reaches BOTHRESH it is poison too."""
    c = connect(rig)
    deadq = ""
    _fill(rig, c, 2, "p")
    rig["qm"].mqsc("DEFINE QLOCAL(ORDERS.BACKOUT) REPLACE\nALTER QLOCAL(ORDERS) BOQNAME(ORDERS.BACKOUT)\n")
    try:
        rcv = c.create_receiver("ORDERS", credit=1, options=Capability("queue"))
        assert rcv.receive(timeout=WAIT).body == "p0"
        rcv.reject()
        assert rcv.receive(timeout=WAIT).body == "p1"      # the next one, not p0 again
        rcv.accept()
        rcv.close()
        assert depth(rig, "ORDERS") == 0 and depth(rig, "ORDERS.BACKOUT") == 1
        md, body = mq_get(rig, "ORDERS.BACKOUT") or (None, b"")
        assert body == b"p0" and md.Persistence == 1
        # No backout queue: the dead-letter queue, behind an MQDLH saying why (2362).
        deadq = rig["qm"].mqsc("DISPLAY QMGR DEADQ\n").stdout.split("DEADQ(")[1].split(")")[0].strip()
        assert deadq
        rig["qm"].mqsc(f"CLEAR QLOCAL({deadq})\nALTER QLOCAL(ORDERS) BOQNAME(' ')\n")
        _fill(rig, c, 1, "d")
        rcv = c.create_receiver("ORDERS", credit=1, options=Capability("queue"))
        assert rcv.receive(timeout=WAIT).body == "d0"
        rcv.reject()
        rcv.close()
        md, body = mq_get(rig, deadq) or (None, b"")
        assert md.Format == pymqi.CMQC.MQFMT_DEAD_LETTER_HEADER and body.endswith(b"d0")
        assert int.from_bytes(body[8:12], "little") == 2362            # MQDLH Reason
        # Neither: nowhere to move it, so it comes again, counted, until BOTHRESH(2) makes it
        # poison and a BOQNAME takes it.
        rig["qm"].mqsc("ALTER QMGR DEADQ(' ')\nALTER QLOCAL(ORDERS) BOTHRESH(2)\n")
        _fill(rig, c, 1, "q")
        rcv = c.create_receiver("ORDERS", credit=1, options=Capability("queue"))
        m = rcv.receive(timeout=WAIT)
        rcv.reject()
        m = rcv.receive(timeout=WAIT)
        assert (m.body, m.delivery_count) == ("q0", 1)
        rig["qm"].mqsc("ALTER QLOCAL(ORDERS) BOQNAME(ORDERS.BACKOUT)\n")
        rcv.release()                                      # (modified, not failed: no count)
        m = rcv.receive(timeout=WAIT)
        assert (m.body, m.delivery_count) == ("q0", 1)
        rcv.close()
        assert depth(rig, "ORDERS") == 0 and depth(rig, "ORDERS.BACKOUT") == 1   # never settled, count 2
    finally:
        rig["qm"].mqsc(f"ALTER QMGR DEADQ({deadq})\n" if deadq else "")
        rig["qm"].mqsc("ALTER QLOCAL(ORDERS) BOQNAME(' ') BOTHRESH(0)\nDELETE QLOCAL(ORDERS.BACKOUT) PURGE\n")
        c.close()


def test_structured_bodies_and_properties_travel_through_mq(rig: dict[str, Any]) -> None:
    """A map body (it came back as Python's repr text) and an amqp-sequence reach an AMQP
    receiver as sent, with their message-id, user-id, subject, content-type, string correlation-id
    and creation-time; an MQI application's message gets its MsgId and UserIdentifier as its
    message-id and user-id."""
    rig["qm"].mqsc("CLEAR QLOCAL(ORDERS)\n")
    c = connect(rig)
    snd = c.create_sender("ORDERS", options=Capability("queue"))
    sent = Message(body={"sku": "A-1", "qty": 3, "tags": ["x", "y"]}, id="order-17", subject="new",
                   correlation_id="a correlation id longer than twenty-four bytes", durable=True)
    sent.content_type = "application/x-map"
    sent.creation_time = 1700000000.5
    snd.send(sent)
    seq = Message(body=[1, "two", 3.0])
    seq.inferred = True
    snd.send(seq)
    qm = rig["qm"].bindings()
    q = pymqi.Queue(qm, "ORDERS", pymqi.CMQC.MQOO_OUTPUT)
    q.put(b"from mqi", pymqi.MD(Format=pymqi.CMQC.MQFMT_STRING))
    q.close()
    qm.disconnect()
    rcv = c.create_receiver("ORDERS", credit=10, options=Capability("queue"))
    got = rcv.receive(timeout=WAIT)
    rcv.accept()
    assert got.body == {"sku": "A-1", "qty": 3, "tags": ["x", "y"]}
    assert (got.id, got.subject, got.content_type) == ("order-17", "new", "application/x-map")
    assert got.correlation_id == "a correlation id longer than twenty-four bytes"
    assert got.creation_time == 1700000000.5
    got = rcv.receive(timeout=WAIT)
    rcv.accept()
    assert got.body == [1, "two", 3.0] and got.inferred
    got = rcv.receive(timeout=WAIT)
    rcv.accept()
    import getpass
    assert got.body == "from mqi" and bytes(got.id).startswith(b"AMQ AMQPQM")   # MQ's MsgId
    assert bytes(got.user_id) == getpass.getuser().encode()[:12]            # the bindings user
    c.close()
