"""MQTT channels through a real queue manager process with MQ's security on, driven by real MQTT
clients (paho-mqtt, mosquitto_pub and mosquitto_sub) and raw sockets: QoS 0, 1 and 2, retained
publications, clean and persistent sessions (across endmqm -i and strmqm), wills, keep-alive,
MQTT and MQI applications reaching each other, identity and authority, DISPLAY CHSTATUS and PURGE
CHANNEL CLIENTID, and bad input answered as MQTT says with the queue manager still running."""
from __future__ import annotations

import os
import queue
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from mqlite import pymqi
from mqlite.cli.proc import free_port
from mqlite.mqtt import codec as K
from mqlite.testing import Harness, run_mqlite

WAIT = 10.0


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    os.environ["MQLITE_MQTT_CONNECT_WAIT"] = "1.5"
    h = Harness(str(tmp_path_factory.mktemp("mqtt")), security=True)
    try:
        port, port2 = free_port(), free_port()
        qm = h.add("MQTTQM", f"DEFINE CHANNEL(MQTT.APP) CHLTYPE(MQTT) PORT({port}) LOCLADDR('127.0.0.1') "
                             "MCAUSER('mqttapp')\n"
                             f"DEFINE CHANNEL(MQTT.USERS) CHLTYPE(MQTT) PORT({port2}) LOCLADDR('127.0.0.1') "
                             "PROTOCOL(MQTTV311)\n"
                             "DEFINE TOPIC(OPEN) TOPICSTR('open')\n"
                             "ALTER SERVICE(SYSTEM.MQXR.SERVICE) CONTROL(QMGR)\n"
                             "START SERVICE(SYSTEM.MQXR.SERVICE)\n")
        env = dict(os.environ, MQLITE_DATA=h.data_dir)
        for user, password in (("mqttapp", "passw0rd"), ("alice", "alicepw"), ("nobody", "nobodypw")):
            assert run_mqlite("setmqusr", "-m", "MQTTQM", "-u", user, "-p", password, "-g", f"{user}grp",
                              env=env).returncode == 0
        grants = [("mqttapp", "qmgr", "", "+connect"), ("mqttapp", "topic", "SYSTEM.BASE.TOPIC", "+pub +sub"),
                  ("alice", "qmgr", "", "+connect"), ("alice", "topic", "OPEN", "+pub +sub")]
        for user, kind, name, auths in grants:
            r = run_mqlite("setmqaut", "-m", "MQTTQM", "-t", kind, *(["-n", name] if name else []), "-p", user,
                           *auths.split(), env=env)
            assert r.returncode == 0, r.stdout + r.stderr
        yield {"qm": qm, "port": port, "users_port": port2, "env": env}
    finally:
        h.close()
        os.environ.pop("MQLITE_MQTT_CONNECT_WAIT", None)


class Client:
    """A paho-mqtt client, connected, with what it receives in a queue."""

    def __init__(self, port: int, client_id: str, clean: bool = True, username: str | None = None,
                 password: str | None = None, will: tuple[str, bytes] | None = None, keepalive: int = 60,
                 protocol: int = mqtt.MQTTv311, transport: str = "tcp") -> None:
        self.got: queue.Queue[mqtt.MQTTMessage] = queue.Queue()
        self.connected: queue.Queue[tuple[Any, Any]] = queue.Queue()
        self.c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean,
                             protocol=protocol, transport=transport)   # type: ignore[arg-type]
        if username is not None:
            self.c.username_pw_set(username, password)
        if will is not None:
            self.c.will_set(will[0], will[1], qos=1)
        self.c.on_message = lambda _c, _u, m: self.got.put(m)
        self.c.on_connect = lambda _c, _u, flags, rc, _p: self.connected.put((flags, rc))
        self.dropped = threading.Event()       # the server ended the connection (paho then reconnects)
        self.c.on_disconnect = lambda *_a: self.dropped.set()
        self._prepare(self.c)
        self.c.connect("127.0.0.1", port, keepalive)
        self.c.loop_start()
        self.flags, self.rc = self.connected.get(timeout=WAIT)

    def _prepare(self, c: mqtt.Client) -> None:
        """Before CONNECT (TLS settings, in tests/mqtt/test_mqtt_tls.py)."""

    def subscribe(self, topic: str, qos: int) -> list[int]:
        done: queue.Queue[list[Any]] = queue.Queue()
        self.c.on_subscribe = lambda _c, _u, _mid, codes, _p: done.put(codes)
        self.c.subscribe(topic, qos)
        return [int(getattr(c, "value", c)) for c in done.get(timeout=WAIT)]

    def publish(self, topic: str, payload: bytes, qos: int, retain: bool = False) -> None:
        self.c.publish(topic, payload, qos, retain).wait_for_publish(WAIT)

    def take(self, n: int, wait: float = WAIT) -> list[mqtt.MQTTMessage]:
        return [self.got.get(timeout=wait) for _ in range(n)]

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def test_qos_levels_between_mqtt_clients(rig: dict[str, Any]) -> None:
    sub = Client(rig["port"], "qos.sub")
    assert sub.rc == 0 and sub.subscribe("fleet/+/speed", 2) == [2]
    pub = Client(rig["port"], "qos.pub")
    for qos in (0, 1, 2):
        pub.publish(f"fleet/truck{qos}/speed", f"{50 + qos}".encode(), qos)
    got = sorted(((m.topic, m.payload, m.qos) for m in sub.take(3)))
    # Each reaches the QoS 2 subscriber at the lower of its own QoS and the subscription's (MQTT
    # 3.1.1 4.3): QoS 0 is a nonpersistent message, QoS 1 and 2 persistent ones, the QoS 1 one
    # carrying its QoS with it.
    assert got == [("fleet/truck0/speed", b"50", 0), ("fleet/truck1/speed", b"51", 1), ("fleet/truck2/speed", b"52", 2)]
    # ... and a QoS 1 subscriber gets a QoS 2 publication at 1.
    low = Client(rig["port"], "qos.low")
    assert low.subscribe("fleet/#", 1) == [1]
    pub.publish("fleet/truck3/speed", b"53", 2)
    pub.publish("fleet/truck4/speed", b"54", 1)
    assert sorted((m.payload, m.qos) for m in low.take(2)) == [(b"53", 1), (b"54", 1)]
    assert sorted((m.payload, m.qos) for m in sub.take(2)) == [(b"53", 2), (b"54", 1)]
    low.close()
    pub.publish("fleet/truck9/position", b"elsewhere", 1)
    with pytest.raises(queue.Empty):
        sub.take(1, wait=0.5)
    sub.close()
    pub.close()


def test_mqtt_and_mqi_applications_reach_each_other(rig: dict[str, Any]) -> None:
    qm = rig["qm"].bindings()
    try:
        sub = pymqi.Subscription(qm)
        # (durable: its managed queue is permanent, where a persistent message stays persistent)
        sub.sub(sub_opts=pymqi.CMQC.MQSO_CREATE | pymqi.CMQC.MQSO_MANAGED | pymqi.CMQC.MQSO_WILDCARD_TOPIC
                | pymqi.CMQC.MQSO_DURABLE, sub_name="PLANT.WATCH", topic_string="plant/#")
        mq = Client(rig["port"], "interop")
        assert mq.subscribe("orders/+", 1) == [1]
        mq.publish("plant/line1", b"running", 1)
        mq.publish("plant/line2", b"idle", 0)
        got = {}
        for _ in range(2):
            md = pymqi.MD()
            body = sub.get(None, md, pymqi.GMO(Options=pymqi.CMQC.MQGMO_WAIT, WaitInterval=5000))
            got[body] = md.Persistence
        assert got == {b"running": pymqi.CMQC.MQPER_PERSISTENT, b"idle": pymqi.CMQC.MQPER_NOT_PERSISTENT}
        # An MQI publisher reaches the MQTT subscriber: persistent at the subscription's QoS 1.
        topic = pymqi.Topic(qm, topic_string="orders/42")
        topic.open(open_opts=pymqi.CMQC.MQOO_OUTPUT)
        topic.pub(b"widgets", pymqi.MD(Persistence=pymqi.CMQC.MQPER_PERSISTENT))
        topic.pub(b"gadgets", pymqi.MD(Persistence=pymqi.CMQC.MQPER_NOT_PERSISTENT))
        topic.close()
        got2 = sorted((m.topic, m.payload, m.qos) for m in mq.take(2))
        assert got2 == [("orders/42", b"gadgets", 0), ("orders/42", b"widgets", 1)]
        mq.close()
        sub.close(sub_close_options=pymqi.CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    finally:
        qm.disconnect()


def test_a_publication_a_durable_subscriber_cannot_take_is_not_acknowledged(rig: dict[str, Any]) -> None:
    """A QoS 1 publication is persistent; PMSGDLV(ALLDUR) says it must reach every durable
    subscription or none. Exactly 4 MiB of payload is over the subscriber's queue's MAXMSGL once
    the mqps header is in front: the publisher gets no PUBACK (MQTT 3.1.1's refusal: the
    connection ends), and nobody receives it (it was PUBACKed and lost)."""
    sub = Client(rig["port"], "big.sub", clean=False)
    assert sub.subscribe("big/+", 1) == [1]
    pub = Client(rig["port"], "big.pub")
    pub.c.reconnect_delay_set(30, 60)                   # (paho would send it again on reconnecting)
    info = pub.c.publish("big/one", b"x" * (4 * 1024 * 1024), 1)
    assert pub.dropped.wait(WAIT)
    assert not info.is_published()
    pub.c.loop_stop()
    with pytest.raises(queue.Empty):
        sub.take(1, wait=1.0)
    # A publication that fits is acknowledged and delivered, on the same subscription.
    pub = Client(rig["port"], "big.pub2")
    pub.publish("big/two", b"y" * 1024, 1)
    assert [(m.topic, len(m.payload)) for m in sub.take(1)] == [("big/two", 1024)]
    pub.close()
    sub.close()
    Client(rig["port"], "big.sub", clean=True).close()


def test_retained_publications(rig: dict[str, Any]) -> None:
    pub = Client(rig["port"], "ret.pub")
    pub.publish("status/boiler", b"hot", 1, retain=True)
    late = Client(rig["port"], "ret.late")
    assert late.subscribe("status/#", 1) == [1]
    (m,) = late.take(1)
    assert (m.topic, m.payload, m.retain) == ("status/boiler", b"hot", True)
    pub.publish("status/boiler", b"warm", 1)           # not retained: sent live, retain flag off
    (m,) = late.take(1)
    assert (m.payload, m.retain) == (b"warm", False)
    pub.publish("status/boiler", b"", 1, retain=True)  # an empty retained publication clears it
    later = Client(rig["port"], "ret.later")
    later.subscribe("status/#", 1)
    with pytest.raises(queue.Empty):
        later.take(1, wait=0.5)
    for c in (pub, late, later):
        c.close()


def test_a_persistent_session_survives_the_client_and_the_queue_manager(rig: dict[str, Any]) -> None:
    c = Client(rig["port"], "durable.1", clean=False)
    assert c.flags.session_present is False and c.subscribe("alerts/#", 1) == [1]
    c.close()
    pub = Client(rig["port"], "durable.pub")
    for i in range(3):
        pub.publish(f"alerts/{i}", f"alert {i}".encode(), 1)
    pub.close()
    shown = rig["qm"].mqsc("DISPLAY SUB('durable.1:alerts/#') DEST DURABLE\n").stdout
    assert "DURABLE(YES)" in shown and "DEST(SYSTEM.MQTT.TRANSMIT.QUEUE)" in shown
    rig["qm"].stop()                                   # endmqm -i
    rig["qm"].start()                                  # the service is CONTROL(QMGR): it starts too
    c = Client(rig["port"], "durable.1", clean=False)
    assert c.flags.session_present is True
    assert sorted(m.payload for m in c.take(3)) == [b"alert 0", b"alert 1", b"alert 2"]
    c.close()
    # A clean session throws the persistent one away: no session, nothing waiting.
    c = Client(rig["port"], "durable.1", clean=True)
    assert c.flags.session_present is False
    c.close()
    assert "AMQ8147E" in rig["qm"].mqsc("DISPLAY SUB('durable.1:alerts/#')\n").stdout or \
        "not found" in rig["qm"].mqsc("DISPLAY SUB('durable.1:alerts/#')\n").stdout


def test_a_will_is_published_when_a_client_vanishes(rig: dict[str, Any]) -> None:
    watcher = Client(rig["port"], "will.watch")
    watcher.subscribe("wills/#", 1)
    doomed = Client(rig["port"], "will.doomed", will=("wills/doomed", b"gone"))
    doomed.c.loop_stop()
    doomed.c.socket().close()                          # no DISCONNECT
    (m,) = watcher.take(1)
    assert (m.topic, m.payload) == ("wills/doomed", b"gone")
    polite = Client(rig["port"], "will.polite", will=("wills/polite", b"gone"))
    polite.close()                                     # DISCONNECT: no will
    with pytest.raises(queue.Empty):
        watcher.take(1, wait=0.5)
    watcher.close()


def raw_connect(port: int, client_id: str, keepalive: int = 60, **kw: Any) -> tuple[socket.socket, bytes]:
    s = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    s.sendall(K.encode(K.Connect(client_id, True, keepalive, kw.pop("protocol", "MQTTV311"), **kw)))
    return s, s.recv(4)


def closed_within(s: socket.socket, seconds: float) -> bool:
    s.settimeout(seconds)
    try:
        while s.recv(4096):
            pass
        return True
    except (socket.timeout, TimeoutError):
        return False
    except OSError:
        return True


def test_keep_alive_ends_a_silent_client(rig: dict[str, Any]) -> None:
    watcher = Client(rig["port"], "ka.watch")
    watcher.subscribe("ka/#", 0)
    s, ack = raw_connect(rig["port"], "ka.silent", keepalive=1, will=K.Publish("ka/silent", b"timed out", 0))
    assert ack == K.connack(False, K.ACCEPTED)
    start = time.monotonic()
    assert closed_within(s, 5) and time.monotonic() - start < 3      # 1.5 x the keep-alive
    (m,) = watcher.take(1)
    assert m.payload == b"timed out"
    watcher.close()


def test_identity_and_authority(rig: dict[str, Any]) -> None:
    port = rig["users_port"]                           # no MCAUSER: the MQTT user name is the identity
    alice = Client(port, "alice.1", username="alice", password="alicepw")
    assert alice.rc == 0
    shown = rig["qm"].mqsc("DISPLAY CHSTATUS(MQTT.USERS) CLIENTID('alice.1') ALL\n").stdout
    assert "MCAUSER(alice)" in shown and "PROTOCOL(MQTTV311)" in shown
    alice.close()
    bad = Client(port, "alice.2", username="alice", password="wrong")
    assert str(bad.rc) == "Bad user name or password"  # CONNACK 4
    bad.c.loop_stop()
    nobody = Client(port, "nobody.1", username="nobody", password="nobodypw")
    assert str(nobody.rc) == "Not authorized"          # CONNACK 5: no connect authority
    nobody.c.loop_stop()
    events = rig["qm"].mqsc("DISPLAY QLOCAL(SYSTEM.ADMIN.QMGR.EVENT) CURDEPTH\n").stdout
    assert "CURDEPTH(0)" not in events                 # the Not Authorized event (type 1)
    v3 = Client(port, "old.client", username="alice", password="alicepw", protocol=mqtt.MQTTv31)
    assert str(v3.rc) == "Unsupported protocol version"  # CONNACK 1: MQTT.USERS takes MQTTV311 only
    v3.c.loop_stop()
    # alice has pub and sub on the topic object OPEN ('open') alone: SUBACK 0x80 elsewhere, and a
    # publication elsewhere ends her connection (MQTT 3.1.1 has no refusal for one publication).
    alice = Client(port, "alice.3", username="alice", password="alicepw")
    assert alice.subscribe("secret/#", 1) == [0x80]
    assert alice.subscribe("open/#", 1) == [1]
    alice.publish("open/news", b"fine", 1)
    assert alice.take(1)[0].payload == b"fine"
    alice.c.publish("secret/plans", b"x", 1)
    assert alice.dropped.wait(WAIT)
    alice.c.loop_stop()


def test_chstatus_purge_stop_and_start(rig: dict[str, Any]) -> None:
    qm = rig["qm"]
    c = Client(rig["port"], "purge.me", clean=False)
    c.subscribe("purge/#", 1)
    shown = qm.mqsc("DISPLAY CHSTATUS(MQTT.APP)\n").stdout
    assert "CHLTYPE(MQTT)" in shown and "CONNECTIONS(" in shown and "STATUS(RUNNING)" in shown
    shown = qm.mqsc("DISPLAY CHSTATUS(MQTT.APP) CLIENTID('purge.*') ALL\n").stdout
    assert "CLIENTID(purge.me)" in shown and "SUBCOUNT(1)" in shown and "MCAUSER(mqttapp)" in shown
    c.c.loop_stop()                                    # (no reconnecting)
    assert "MQL8025I" in qm.mqsc("PURGE CHANNEL(MQTT.APP) CHLTYPE(MQTT) CLIENTID('purge.me')\n").stdout
    assert closed_within(c.c.socket(), WAIT)
    assert "not found" in qm.mqsc("DISPLAY SUB('purge.me:purge/#')\n").stdout.lower() or \
        "AMQ8147E" in qm.mqsc("DISPLAY SUB('purge.me:purge/#')\n").stdout
    assert "AMQ8019I" in qm.mqsc("STOP CHANNEL(MQTT.APP)\n").stdout
    assert "STATUS(STOPPED)" in qm.mqsc("DISPLAY CHSTATUS(MQTT.APP)\n").stdout
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", rig["port"]), timeout=2).recv(1)
    assert "AMQ8018I" in qm.mqsc("START CHANNEL(MQTT.APP)\n").stdout
    back = Client(rig["port"], "purge.back")
    assert back.rc == 0
    back.close()
    shown = qm.mqsc("DISPLAY SVSTATUS(SYSTEM.MQXR.SERVICE)\n").stdout
    assert "STATUS(RUNNING)" in shown


@pytest.mark.parametrize("case,data", [
    ("garbage", b"\xff\xfe\x00garbage"),
    ("not connect first", K.encode(K.Simple(K.PINGREQ))),
    ("huge", bytes([0x10, 0xFF, 0xFF, 0xFF, 0x7F])),
    ("bad protocol name", bytes([0x10, 13, 0, 4]) + b"MQTX" + bytes([4, 2, 0, 60, 0, 1]) + b"a"),
    ("nothing", b""),
])
def test_bad_input_closes_the_connection_and_nothing_else(rig: dict[str, Any], case: str, data: bytes) -> None:
    watcher = Client(rig["port"], "bad.watch")
    s = socket.create_connection(("127.0.0.1", rig["port"]), timeout=WAIT)
    if data:
        s.sendall(data)
    assert closed_within(s, 4), case                   # "nothing": CONNECT_WAIT (1.5 s here) runs out
    watcher.subscribe("still/#", 1)
    other = Client(rig["port"], "bad.other")
    other.publish("still/alive", b"yes", 1)
    assert watcher.take(1)[0].payload == b"yes"
    other.close()
    watcher.close()
    assert rig["qm"].running()


def test_an_unknown_protocol_level_and_client_ids(rig: dict[str, Any]) -> None:
    s = socket.create_connection(("127.0.0.1", rig["port"]), timeout=WAIT)
    s.sendall(bytes([0x10, 13, 0, 4]) + b"MQTT" + bytes([5, 2, 0, 60, 0, 1]) + b"a")   # MQTT 5
    assert s.recv(4) == K.connack(False, K.BAD_VERSION)
    s.close()
    s, ack = raw_connect(rig["port"], "x" * 24)
    assert ack == K.connack(False, K.ID_REJECTED)
    s.close()
    s = socket.create_connection(("127.0.0.1", rig["port"]), timeout=WAIT)
    s.sendall(K.encode(K.Connect("", False, 60, "MQTTV311")))        # no id and a persistent session
    assert s.recv(4) == K.connack(False, K.ID_REJECTED)
    s.close()
    anon = Client(rig["port"], "")                    # no id, clean: the server gives one
    assert anon.rc == 0
    anon.close()


def test_the_mosquitto_command_line_clients(rig: dict[str, Any]) -> None:
    if not shutil.which("mosquitto_sub"):
        pytest.fail("mosquitto_sub is missing: run tools/services.sh (make services)")
    sub = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(rig["port"]), "-t", "cli/#", "-q", "1",
                            "-v", "-C", "2", "-i", "cli.sub"], stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + WAIT
        while "cli.sub" not in rig["qm"].mqsc("DISPLAY CHSTATUS(MQTT.APP) CLIENTID('cli.sub')\n").stdout:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        for topic, message, qos in (("cli/a", "one", "1"), ("cli/b", "two", "2")):
            r = subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(rig["port"]), "-t", topic, "-m",
                                message, "-q", qos, "-i", "cli.pub"], capture_output=True, text=True, timeout=WAIT)
            assert r.returncode == 0, r.stderr
        out, _ = sub.communicate(timeout=WAIT)
        assert out.splitlines() == ["cli/a one", "cli/b two"]
    finally:
        sub.kill()


def test_a_client_that_never_acknowledges_holds_a_bounded_window(rig: dict[str, Any]) -> None:
    """200 QoS 1 messages in flight at most (two units of work of 100), the rest waiting on the
    transmission queue; the messages not acknowledged come again, marked DUP, to the next
    connection of the session."""
    s, ack = raw_connect(rig["port"], "flood.sink")
    s.close()
    s = socket.create_connection(("127.0.0.1", rig["port"]), timeout=WAIT)
    s.sendall(K.encode(K.Connect("flood.sink", False, 60, "MQTTV311")))
    assert s.recv(4)[:2] == bytes([0x20, 2])
    s.sendall(K.encode(K.Subscribe(1, [("flood/#", 1)])))
    assert s.recv(5) == K.suback(1, [1])
    pub = Client(rig["port"], "flood.pub")
    for i in range(300):
        pub.c.publish(f"flood/{i % 7}", b"x" * 100, 1)
    pub.c.publish("flood/last", b"last", 1).wait_for_publish(WAIT)
    pub.close()
    d = K.Decoder()
    got: list[K.Publish] = []
    s.settimeout(1.0)
    try:
        while True:
            data = s.recv(65536)
            if not data:
                break
            d.feed(data)
            while (p := d.next()) is not None:
                if isinstance(p, K.Publish):
                    got.append(p)
    except (socket.timeout, TimeoutError):
        pass
    assert len(got) == 200 and all(p.qos == 1 and not p.dup for p in got)
    shown = rig["qm"].mqsc("DISPLAY CHSTATUS(MQTT.APP) CLIENTID('flood.sink') ALL\n").stdout
    assert "INDOUBTOUT(200)" in shown
    s.close()                                          # none acknowledged: all 301 wait again
    again = Client(rig["port"], "flood.sink", clean=False)
    msgs = again.take(301)
    assert sum(m.dup for m in msgs) == 200 and msgs[-1].payload == b"last"
    again.close()
    Client(rig["port"], "flood.sink", clean=True).close()   # (the session goes)


def test_thousands_of_topics_and_filters(rig: dict[str, Any]) -> None:
    c = Client(rig["port"], "many.topics")
    for i in range(0, 2000, 200):
        done: queue.Queue[Any] = queue.Queue()
        c.c.on_subscribe = lambda _c, _u, _mid, codes, _p: done.put(codes)
        c.c.subscribe([(f"many/{j}", 0) for j in range(i, i + 200)])
        assert len(done.get(timeout=WAIT)) == 200
    for j in range(0, 2000, 97):
        c.publish(f"many/{j}", str(j).encode(), 1)
    got = sorted(int(m.payload) for m in c.take(len(range(0, 2000, 97))))
    assert got == list(range(0, 2000, 97))
    shown = rig["qm"].mqsc("DISPLAY CHSTATUS(MQTT.APP) CLIENTID('many.topics') SUBCOUNT\n").stdout
    assert "SUBCOUNT(2000)" in shown
    c.close()
    assert "not found" in rig["qm"].mqsc("DISPLAY SUB('many.topics:many/1')\n").stdout.lower() or \
        "AMQ8147E" in rig["qm"].mqsc("DISPLAY SUB('many.topics:many/1')\n").stdout


def test_an_mqi_application_reaches_one_client_by_its_identifier(rig: dict[str, Any]) -> None:
    """MQPUT with ObjectQMgrName = the ClientIdentifier, through a queue manager alias to
    SYSTEM.MQTT.TRANSMIT.QUEUE (MQ's documented way): the client gets it on the topic named by the
    queue name, at QoS 1 when persistent; another client gets nothing."""
    rig["qm"].mqsc("DEFINE QREMOTE('direct.one') RNAME(' ') RQMNAME('direct.one') "
                   "XMITQ(SYSTEM.MQTT.TRANSMIT.QUEUE)\n", check=True)
    one = Client(rig["port"], "direct.one")
    other = Client(rig["port"], "direct.two")
    qm = rig["qm"].bindings()
    try:
        od = pymqi.OD(ObjectName=b"commands/reboot", ObjectQMgrName=b"direct.one")
        q = pymqi.Queue(qm, od, pymqi.CMQC.MQOO_OUTPUT)
        q.put(b"now", pymqi.MD(Persistence=pymqi.CMQC.MQPER_PERSISTENT))
        q.put(b"later", pymqi.MD(Persistence=pymqi.CMQC.MQPER_NOT_PERSISTENT))
        q.close()
    finally:
        qm.disconnect()
    got = [(m.topic, m.payload, m.qos) for m in one.take(2)]
    assert got == [("commands/reboot", b"now", 1), ("commands/reboot", b"later", 0)]
    with pytest.raises(queue.Empty):
        other.take(1, wait=0.5)
    one.close()
    other.close()


def test_a_burst_of_publications_read_together(rig: dict[str, Any]) -> None:
    """150 QoS 1 publications and a QoS 2 one sent twice (before its PUBREL) in one write: the
    server reads them together and puts them in batches under one hold of the engine lock; each
    is acknowledged once, in order, the duplicate answered with PUBREC and not published again,
    and a subscriber gets the 151, the QoS 1 ones in the order they were sent (paho hands a QoS 2
    message on at its PUBREL)."""
    sub = Client(rig["port"], "burst.sub")
    assert sub.subscribe("burst/#", 2) == [2]
    s, ack = raw_connect(rig["port"], "burst.pub")
    assert ack[:2] == bytes([0x20, 2]) and ack[3] == 0
    burst = [K.Publish(f"burst/{i % 3}", b"%d" % i, 1, False, False, i + 1) for i in range(150)]
    burst[75:75] = [K.Publish("burst/two", b"two", 2, False, False, 500)] * 2
    s.sendall(b"".join(K.encode(p) for p in burst))
    d = K.Decoder()
    acks: list[tuple[int, int]] = []
    while len(acks) < 152:
        data = s.recv(65536)
        assert data, f"the connection ended after {len(acks)} acknowledgements"
        d.feed(data)
        while (p := d.next()) is not None:
            assert isinstance(p, K.Ack)
            acks.append((p.kind, p.packet_id))
    assert acks[:75] == [(K.PUBACK, i + 1) for i in range(75)]
    assert acks[75:77] == [(K.PUBREC, 500)] * 2 and acks[77:] == [(K.PUBACK, i + 1) for i in range(75, 150)]
    got = [(m.topic, m.payload, m.qos) for m in sub.take(151)]
    assert [g for g in got if g[2] == 1] == [(f"burst/{i % 3}", b"%d" % i, 1) for i in range(150)]
    assert [g for g in got if g[2] == 2] == [("burst/two", b"two", 2)]
    with pytest.raises(queue.Empty):
        sub.take(1, wait=0.5)
    s.sendall(K.encode(K.Ack(K.PUBREL, 500)))
    s.close()
    sub.close()
