"""Where the entry points meet the engine: MQI over a client channel and over bindings (with an
alternate user), mqweb's messaging API, an AMQP channel and an MQTT channel, each sending one
message x destination (a queue, an alias of it, a topic with a durable subscription whose topic
says USEDLQ(NO), one whose topic says USEDLQ(YES), a topic with a non-durable subscription) x
authority (the user may; the user may not) x delivery trouble (none; the final queue full,
put-inhibited, or shorter than the message) x persistence.

Each case checks the answer its protocol gives (MQ's reason code; HTTP status and reasonCode; the
AMQP outcome or the refused link; PUBACK or the ended MQTT connection), the Not Authorized events
written, where the message is (the destination queue, the dead-letter queue, nowhere) and that
nothing acknowledged is missing, against ``expected``: MQ's rules written out once (queue puts;
PMSGDLV ALLDUR and NPMSGDLV ALLAVAIL at SYSTEM.BASE.TOPIC; USEDLQ). These are the seams issue 61
found: a topic open for an alternate user that skipped its authority check, a persistent
publication a durable subscription could not take acknowledged and lost.
"""
from __future__ import annotations

import base64
import itertools
import os
import queue as queue_mod
import threading
import urllib.error
import urllib.request
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from proton import Delivery, Message
from proton.utils import BlockingConnection, LinkDetached, SendException

from mqlite import pymqi
from mqlite.cli.proc import free_port
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.testing import Harness, run_mqlite
from tests.amqp.conftest import Capability
from tests.helpers import admin_messages
from tests.web.conftest import web_user

QM = "QMEDGE"
WAIT = 10.0
ENTRIES = ("client", "bindings", "rest", "amqp", "mqtt")
# destination -> (what is put to: a queue name or a topic string, the queue the message lands on)
DESTS = {"queue": ("E.Q", "E.Q"), "alias": ("E.ALIAS", "E.Q"), "durable": ("edge/dur", "E.SUB.DUR"),
         "durable_dlq": ("edge/dlq", "E.SUB.DLQ"), "nondurable": ("edge/nd", "E.SUB.ND")}
TOPICS = ("durable", "durable_dlq", "nondurable")
TROUBLE = {"none": "", "full": "MAXDEPTH(1)", "inhibited": "PUT(DISABLED)", "too_long": "MAXMSGL(100)"}
QUEUE_REASON = {"full": C.MQRC_Q_FULL, "inhibited": C.MQRC_PUT_INHIBITED, "too_long": C.MQRC_MSG_TOO_BIG_FOR_Q}
BODY = b"x" * 200
PASSWORDS = {"app": "app-pw-1", "stranger": "stranger-pw-1"}


def expected(dest: str, allowed: bool, trouble: str, persistent: bool) -> tuple[int, str | None]:
    """MQ's answer (the reason code, 0 for success) and where the message is then ("dest",
    "dlq" or None)."""
    if not allowed:
        return C.MQRC_NOT_AUTHORIZED, None
    if trouble == "none":
        return 0, "dest"
    if dest not in TOPICS:
        return QUEUE_REASON[trouble], None
    if dest == "durable_dlq":
        return 0, "dlq"                       # USEDLQ(YES) and a DEADQ: the copy is dead-lettered
    if dest == "durable" and persistent:
        return C.MQRC_PUBLICATION_FAILURE, None   # PMSGDLV(ALLDUR): nobody gets it
    return 0, None                            # ALLAVAIL, or ALLDUR and a non-durable subscriber: missed


CASES = [c for c in itertools.product(TROUBLE, ENTRIES, DESTS, (True, False), (True, False))
         if not (c[1] == "mqtt" and c[2] not in TOPICS)            # MQTT reaches topics only
         and not (c[0] != "none" and not c[3])]                    # trouble: with the authority to see it


def _ids(c: tuple[Any, ...]) -> str:
    trouble, entry, dest, allowed, persistent = c
    return f"{entry}-{dest}-{'allowed' if allowed else 'refused'}-{trouble}-{'P' if persistent else 'NP'}"


class Edge:
    """The queue manager, mqweb and one kept client of each kind per user."""

    def __init__(self, h: Harness, qm: Any, env: dict[str, str], ports: dict[str, int]) -> None:
        self.h, self.qm, self.env, self.ports = h, qm, env, ports
        self.admin = qm.bindings()
        self.clients: dict[str, Any] = {}
        self.amqp: dict[str, BlockingConnection] = {}
        self.senders: dict[tuple[str, str], Any] = {}
        self.links = 0
        self.mqtt: dict[str, Any] = {}
        self.trouble = "none"
        # The non-durable subscription: held by this connection for the module, to E.SUB.ND.
        nd = pymqi.Queue(self.admin, "E.SUB.ND", C.MQOO_OUTPUT)
        sd = pymqi.SD(Options=C.MQSO_CREATE)
        sd.set_vs("ObjectString", "edge/nd")
        self.nd_sub = pymqi.Subscription(self.admin)
        self.nd_sub.sub(sub_desc=sd, sub_queue=nd)
        self.deadq = qm.mqsc("DISPLAY QMGR DEADQ\n").stdout.split("DEADQ(")[1].split(")")[0].strip()
        assert self.deadq

    def set_trouble(self, trouble: str) -> None:
        if trouble == self.trouble:
            return
        for q in ("E.Q", "E.SUB.DUR", "E.SUB.DLQ", "E.SUB.ND"):
            self.qm.mqsc(f"ALTER QLOCAL({q}) PUT(ENABLED) MAXDEPTH(5000) MAXMSGL(4194304)\n", check=True)
            self.drain(q)                       # (its handles held open by the clients: no CLEAR)
            if TROUBLE[trouble]:
                self.qm.mqsc(f"ALTER QLOCAL({q}) {TROUBLE[trouble]}\n", check=True)
            if trouble == "full":
                pymqi.Queue(self.admin, q, C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT).put(b"filler")
        self.trouble = trouble

    def drain(self, queue: str) -> list[bytes]:
        q = pymqi.Queue(self.admin, queue, C.MQOO_INPUT_SHARED)
        out = []
        try:
            while True:
                try:
                    out.append(q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_WAIT)))
                except pymqi.MQMIError as e:
                    assert e.reason == C.MQRC_NO_MSG_AVAILABLE
                    return out
        finally:
            q.close()

    # --- the entry points: each returns MQ's reason as that protocol shows it (0: accepted) ----
    def client(self, user: str) -> Any:
        if user not in self.clients:
            self.clients[user] = pymqi.connect(QM, "E.SVRCONN", self.qm.conname, user, PASSWORDS[user])
        return self.clients[user]

    def send(self, entry: str, user: str, dest: str, body: bytes, persistent: bool) -> Any:
        return getattr(self, f"_send_{entry}")(user, dest, body, persistent)

    def _mqi(self, conn: Any, dest: str, body: bytes, persistent: bool, alt: str = "") -> int:
        name = DESTS[dest][0]
        od = pymqi.OD(AlternateUserId=alt.encode())
        if dest in TOPICS:
            od.ObjectType, od.Version = C.MQOT_TOPIC, C.MQOD_VERSION_4
            od.set_vs("ObjectString", name)
        else:
            od.ObjectName = name.encode()
        pmo = pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT | (C.MQPMO_ALTERNATE_USER_AUTHORITY if alt else 0))
        try:
            conn.put1(od, body, pymqi.MD(Persistence=int(persistent)), pmo)
        except pymqi.MQMIError as e:
            return e.reason
        return 0

    def _send_client(self, user: str, dest: str, body: bytes, persistent: bool) -> int:
        return self._mqi(self.client(user), dest, body, persistent)

    def _send_bindings(self, user: str, dest: str, body: bytes, persistent: bool) -> int:
        # An administrator's connection, acting for the user as its alternate user (mqweb's way).
        return self._mqi(self.admin, dest, body, persistent, alt=user)

    def _send_rest(self, user: str, dest: str, body: bytes, persistent: bool) -> tuple[int, int]:
        kind = "topic" if dest in TOPICS else "queue"
        url = f"http://127.0.0.1:{self.ports['web']}/ibmmq/rest/v2/messaging/qmgr/{QM}/{kind}/{DESTS[dest][0]}/message"
        auth = base64.b64encode(f"{user}:{PASSWORDS[user]}".encode()).decode()
        req = urllib.request.Request(url, data=body, method="POST", headers={
            "Authorization": f"Basic {auth}", "ibm-mq-rest-csrf-token": "x", "Content-Type": "text/plain",
            "ibm-mq-md-persistence": "persistent" if persistent else "nonPersistent"})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, 0
        except urllib.error.HTTPError as e:
            import json
            return e.code, json.loads(e.read())["error"][0].get("reasonCode", 0)

    def _send_amqp(self, user: str, dest: str, body: bytes, persistent: bool) -> str:
        if user not in self.amqp:
            self.amqp[user] = BlockingConnection(f"amqp://127.0.0.1:{self.ports['amqp']}", user=user,
                                                 password=PASSWORDS[user], allowed_mechs="PLAIN", timeout=WAIT)
        key = (user, dest)
        try:
            if key not in self.senders:
                address = DESTS[dest][0]
                self.links += 1                 # (a refused link's name stays taken on its connection)
                self.senders[key] = self.amqp[user].create_sender(
                    address, name=f"edge-{self.links}", options=Capability("topic" if dest in TOPICS else "queue"))
            self.senders[key].send(Message(body=body, durable=persistent))
        except LinkDetached as e:
            self.senders.pop(key, None)
            return f"refused:{e.link.remote_condition.name if e.link.remote_condition else ''}"
        except SendException as e:
            return "rejected" if e.state == Delivery.REJECTED else f"unexpected:{e.state}"
        return "accepted"

    def _send_mqtt(self, user: str, dest: str, body: bytes, persistent: bool) -> str:
        c = self.mqtt.get(user)
        if c is None or c.dropped.is_set():
            c = self.mqtt[user] = _Mqtt(self.ports["mqtt"], f"edge.{user}", user, PASSWORDS[user])
        info = c.client.publish(DESTS[dest][0], body, 1 if persistent else 0)
        if persistent:
            deadline = WAIT
            while not info.is_published() and not c.dropped.is_set() and deadline > 0:
                c.dropped.wait(0.02)
                deadline -= 0.02
            return "puback" if info.is_published() else "dropped"
        # QoS 0 has no acknowledgement: a refusal shows as the connection ending.
        return "dropped" if c.dropped.wait(0.5) else "sent"

    def close(self) -> None:
        for c in self.mqtt.values():
            c.close()
        for a in self.amqp.values():
            try:
                a.close()
            except Exception:  # noqa: BLE001
                pass
        for c in self.clients.values():
            c.disconnect()
        self.nd_sub.close()
        self.admin.disconnect()


class _Mqtt:
    def __init__(self, port: int, cid: str, user: str, password: str) -> None:
        self.dropped = threading.Event()
        connected: queue_mod.Queue[int] = queue_mod.Queue()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=cid, clean_session=True,
                                  protocol=mqtt.MQTTv311)   # type: ignore[arg-type]
        self.client.username_pw_set(user, password)
        self.client.on_connect = lambda _c, _u, _f, rc, _p: connected.put(int(getattr(rc, "value", rc)))
        self.client.on_disconnect = lambda *_a: self.dropped.set()
        self.client.reconnect_delay_set(60, 120)       # (a dropped client stays dropped: a new one is made)
        self.client.connect("127.0.0.1", port, 60)
        self.client.loop_start()
        assert connected.get(timeout=WAIT) == 0

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory) -> Any:
    h = Harness(str(tmp_path_factory.mktemp("edge")), security=True)
    ports = {"amqp": free_port(), "mqtt": free_port(), "web": free_port()}
    env = dict(os.environ, MQLITE_DATA=h.data_dir)
    try:
        qm = h.add(QM, f"""ALTER QMGR CHLAUTH(DISABLED)
DEFINE QLOCAL(E.Q)
DEFINE QALIAS(E.ALIAS) TARGET(E.Q)
DEFINE TOPIC(E.DUR) TOPICSTR('edge/dur') USEDLQ(NO)
DEFINE TOPIC(E.DLQ) TOPICSTR('edge/dlq') USEDLQ(YES)
DEFINE TOPIC(E.ND) TOPICSTR('edge/nd') USEDLQ(NO)
DEFINE QLOCAL(E.SUB.DUR)
DEFINE QLOCAL(E.SUB.DLQ)
DEFINE QLOCAL(E.SUB.ND)
DEFINE SUB(E.DUR.SUB) TOPICSTR('edge/dur') DEST(E.SUB.DUR)
DEFINE SUB(E.DLQ.SUB) TOPICSTR('edge/dlq') DEST(E.SUB.DLQ)
DEFINE CHANNEL(E.SVRCONN) CHLTYPE(SVRCONN)
DEFINE CHANNEL(E.AMQP) CHLTYPE(AMQP) PORT({ports['amqp']}) LOCLADDR('127.0.0.1')
DEFINE CHANNEL(E.MQTT) CHLTYPE(MQTT) PORT({ports['mqtt']}) LOCLADDR('127.0.0.1')
START SERVICE(SYSTEM.AMQP.SERVICE)
ALTER SERVICE(SYSTEM.MQXR.SERVICE) CONTROL(QMGR)
START SERVICE(SYSTEM.MQXR.SERVICE)
""")
        web_user(env, QM, "app", PASSWORDS["app"], "apps", "MQWebUserGroup")
        web_user(env, QM, "stranger", PASSWORDS["stranger"], "strangers", "MQWebUserGroup")
        for args in (["-t", "qmgr", "-g", "apps", "+connect", "+inq"], ["-t", "qmgr", "-g", "strangers", "+connect"],
                     ["-n", "E.Q", "-t", "queue", "-g", "apps", "+put"],
                     ["-n", "E.ALIAS", "-t", "queue", "-g", "apps", "+put"],
                     *(["-n", t, "-t", "topic", "-g", "apps", "+pub"] for t in ("E.DUR", "E.DLQ", "E.ND"))):
            r = run_mqlite("setmqaut", "-m", QM, *args, env=env)
            assert r.returncode == 0, r.stdout + r.stderr
        for key, value in (("httpHost", "127.0.0.1"), ("httpPort", str(ports["web"])), ("httpsPort", "-1")):
            assert run_mqlite("setmqweb", "properties", "-k", key, "-v", value, env=env).returncode == 0
        assert run_mqlite("strmqweb", env=env).returncode == 0
        qm.mqsc("ALTER QMGR AUTHOREV(ENABLED)\n", check=True)
        e = Edge(h, qm, env, ports)
        yield e
        e.close()
    finally:
        run_mqlite("endmqweb", env=env)
        h.close()


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_an_entry_point_meets_the_engine(edge: Edge, case: tuple[Any, ...]) -> None:
    trouble, entry, dest, allowed, persistent = case
    edge.set_trouble(trouble)
    admin_messages(edge.qm, "SYSTEM.ADMIN.QMGR.EVENT")                  # (earlier cases' events)
    body = BODY + _ids(case).encode()
    user = "app" if allowed else "stranger"
    reason, where = expected(dest, allowed, trouble, persistent)
    got = edge.send(entry, user, dest, body, persistent)
    # The answer, as each protocol gives MQ's.
    if entry in ("client", "bindings"):
        assert got == reason
    elif entry == "rest":
        status = {0: 201, C.MQRC_NOT_AUTHORIZED: 403, C.MQRC_Q_FULL: 503, C.MQRC_PUT_INHIBITED: 403,
                  C.MQRC_MSG_TOO_BIG_FOR_Q: 413, C.MQRC_PUBLICATION_FAILURE: 500}[reason]
        assert got == (status, reason)
    elif entry == "amqp":
        if reason == C.MQRC_NOT_AUTHORIZED:
            assert got == "refused:amqp:unauthorized-access"            # the link is refused at ATTACH
        else:
            assert got == ("accepted" if reason == 0 else "rejected")
    else:
        if reason == 0:
            assert got == ("puback" if persistent else "sent")
        else:
            assert got == "dropped"                                     # MQTT 3.1.1's only refusal
    # Where it is: nothing acknowledged is missing, nothing refused is anywhere.
    final = DESTS[dest][1]
    landed = [b for b in edge.drain(final) if b.endswith(body) or b == body]
    dead = [b for b in edge.drain(edge.deadq) if b.endswith(body)]
    assert (len(landed), len(dead)) == {"dest": (1, 0), "dlq": (0, 1), None: (0, 0)}[where]
    if trouble == "full":
        pymqi.Queue(edge.admin, final, C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT).put(b"filler")   # (full again)
    # A refusal for authority writes one Not Authorized event naming the user; nothing else does.
    events = admin_messages(edge.qm, "SYSTEM.ADMIN.QMGR.EVENT")
    refused = [dict((p, v) for _t, p, v in params) for cfh, params in events if cfh[7] == C.MQRC_NOT_AUTHORIZED]
    if allowed:
        assert refused == []
    else:
        assert len(refused) == 1 and refused[0][F.MQIACF_REASON_QUALIFIER] == F.MQRQ_OPEN_NOT_AUTHORIZED
        assert refused[0][F.MQCACF_USER_IDENTIFIER] == "stranger"

