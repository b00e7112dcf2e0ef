"""One MQTT client's connection to the queue manager, its reading side: CONNECT and who the client
is, PUBLISH, SUBSCRIBE, UNSUBSCRIBE, PING, the will and the end (server/mqttdelivery.py sends it
what waits for it).

A client is an MQI connection of the queue manager (DISPLAY CONN shows it, APPLTAG its
ClientIdentifier, CHANNEL the MQTT channel) under the identity mqtt.session.identity gives. Its
PUBLISH is an MQPUT to the topic string (the OAM's pub authority), its SUBSCRIBE an MQSUB (sub
authority) delivering to SYSTEM.MQTT.TRANSMIT.QUEUE: a message is never lost between the queue
and the client, and one the client did not acknowledge before it went is sent again (DUP) when it
comes back with its session."""
from __future__ import annotations

import os
import socket
import ssl
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any, Protocol

from mqlite.catalogue import entry
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import CMQZC as Z
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import GMO, MD, OD, PMO
from mqlite.cmq.subs import SD
from mqlite.engine.clock import mq_date_time
from mqlite.engine.core import Conn, qmgr_authority
from mqlite.engine.qmgr import QueueManager
from mqlite.mqtt import codec as K
from mqlite.mqtt import session as S
from mqlite.mqtt import websocket as W
from mqlite.objects.model import MQObject
from mqlite.props import rfh2
from mqlite.props.values import Properties
from mqlite.pubsub import topics
from mqlite.security.users import Principal, os_user_of_uid, verify_password
from mqlite.server import auth
from mqlite.server.mqttdelivery import Delivery, Lane
from mqlite.server.ports import ProtocolHost
from mqlite.server.protosvc import start_tls
from mqlite.server.wsstream import WebSocketStream

APPL_TYPE = C.MQAT_JAVA                 # MQ's telemetry service is a Java program
CONNECT_WAIT = float(os.environ.get("MQLITE_MQTT_CONNECT_WAIT", "10"))   # seconds a new connection has to send CONNECT
def _qos1_header() -> tuple[bytes, int, int, bytes]:
    """The MQRFH2 a QoS 1 publication's payload goes behind (made once): Format, Encoding, CCSID."""
    props = Properties()
    props.set(S.PUBLISHED_QOS, 1, validate=False)
    return rfh2.join(props, C.MQFMT_NONE, C.MQENC_NATIVE, 1208, b"")


_QOS1 = _qos1_header()


def _descriptor(qos: int) -> MD:
    """The MQMD of a publication at ``qos`` (a copy of it is put: the put fills in the rest)."""
    md = MD(Format=C.MQFMT_NONE, CodedCharSetId=1208, Persistence=S.persistence(qos))
    if qos == 1:                        # (persistent, as QoS 2 is: the QoS goes with it, in _QOS1)
        md.Format, md.Encoding, md.CodedCharSetId, _head = _QOS1
    return md


_MDS = {qos: _descriptor(qos) for qos in (0, 1, 2)}
_OPTIONS = C.MQPMO_NO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING
TOPIC_HANDLES = 64                      # topics a client keeps open for its publications
PUBLISH_BATCH = 64                      # publications read together put under one hold of the engine lock


class Channel(Protocol):
    """What a client needs of the MQTT channel it came in on (server/mqxr.Channel)."""
    srv: ProtocolHost
    obj: MQObject
    tls: ssl.SSLContext | None
    clients: dict[str, "Client"]


def discard_session(srv: ProtocolHost, client_id: str) -> None:
    """A client's durable subscriptions and the publications waiting for it, gone."""
    qm = srv.qm
    with srv.lock:
        for sub in [s for s in qm.pubsub.subscriptions.values() if s.durable and S.owns(client_id, s.name)]:
            try:
                qm.pubadmin.delete_subscription(sub.name)
            except MQIError:
                pass
        conn = qm.connect("mqxr", C.MQAT_QMGR)
        try:
            h = qm.open(conn, OD(ObjectName=S.TRANSMIT_QUEUE.encode()), C.MQOO_INPUT_SHARED)
            key = S.client_key(client_id)
            while True:
                try:
                    qm.get(conn, h.hobj, MD(CorrelId=key), GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_ACCEPT_TRUNCATED_MSG,
                                                                  MatchOptions=C.MQMO_MATCH_CORREL_ID), 0)
                except MQIError as e:
                    if e.reason != C.MQRC_TRUNCATED_MSG_ACCEPTED:
                        break
        finally:
            qm.disconnect(conn)
        ticket = conn.ticket
    srv.store.sync(ticket)


class Client:
    """One MQTT client connection: its reading thread (``run``); its delivering thread is a
    ``Delivery``'s."""

    def __init__(self, channel: Channel, sock: socket.socket, peer: str) -> None:
        self.channel, self.srv, self.peer = channel, channel.srv, peer
        self.sock: socket.socket | WebSocketStream = sock       # (TLS's or WebSocket's wrapping, once begun)
        self.server = self.srv                  # (what server.auth reads of a session)
        self.tls = False
        self.websocket = False
        self.client_id = ""
        self.protocol = ""
        self.keepalive = 0
        self.will: K.Publish | None = None
        self.clean = True
        self.conn: Conn | None = None
        self.lanes: list[Lane] = []
        self.topics: dict[str, int] = {}        # topic string -> the handle its publications are put with
        self.inbound_qos2: set[int] = set()
        self.held: list[bytes] = []             # PUBACKs and PUBRECs waiting for their publications' sync
        self.due = 0                            # the store ticket they wait for
        self.out = S.Outbound()
        self.cond = threading.Condition()
        self.send_lock = threading.Lock()
        self.closed = False
        self.started_at = time.time()
        self.last_msg = 0.0
        self.sent = self.received = 0
        self.deliverer: threading.Thread | None = None
        self.connacked = threading.Event()      # the delivery waits for the CONNACK to have gone

    # --- the reading side ------------------------------------------------------------------------
    def run(self) -> None:
        srv = self.srv
        decoder = K.Decoder(max_packet=srv.qm.qmgr["MAXMSGL"] + 65536)
        clean_end = False
        try:
            self.sock.settimeout(CONNECT_WAIT)
            with srv.handshakes.pending(self):
                if self.channel.tls is not None and not self._start_tls():
                    return
                self._transport(decoder)
                first = self._next(decoder)
                if not isinstance(first, K.Connect):
                    raise K.ProtocolError("the first packet is not CONNECT")
                if not self._connect(first):
                    return
            self.sock.settimeout(self.keepalive * 1.5 if self.keepalive else None)
            while not self.closed:
                packet: K.Packet | None = self._next(decoder)
                if isinstance(packet, K.Publish):
                    # The publications that came together (up to PUBLISH_BATCH), under one hold of
                    # the engine lock: the delivery threads take it from this one once a batch.
                    with srv.lock:
                        for _ in range(PUBLISH_BATCH):
                            if not isinstance(packet, K.Publish):
                                break
                            self._take(packet)
                            packet = decoder.next()
                if packet is None:
                    continue
                if isinstance(packet, K.Simple) and packet.kind == K.DISCONNECT:
                    clean_end = True
                    return
                self._handle(packet)
        except (K.ProtocolError, W.WebSocketError, socket.timeout) as e:
            if not self.closed:
                srv.log.write(*entry("AMQ9504E", channel=self.channel.obj.name),
                              f"{e} (MQTT client {self.peer}). The connection was closed.")
        except (ConnectionError, OSError):
            pass
        except Exception:       # a defect: log it, end this client, keep the queue manager running
            srv.log.write(*entry("AMQ6184W", qmgr=srv.name), f"Unexpected error serving MQTT client {self.peer}.\n"
                                                                f"{traceback.format_exc()}")
        finally:
            self.close(publish_will=not clean_end)

    def _transport(self, decoder: K.Decoder) -> None:
        """MQTT straight on the socket, or in WebSocket frames when the first bytes are an HTTP
        request: PROTOCOL says which the channel takes (HTTP: WebSockets; MQTTV3, MQTTV311: TCP)."""
        protocols = self.channel.obj["PROTOCOL"]
        first = self.sock.recv(65536)
        if not first:
            raise ConnectionError("the client closed the connection")
        if W.is_http(first):
            if "HTTP" not in protocols:
                self.sock.sendall(W.REFUSED)
                raise K.ProtocolError("a WebSocket request on a channel without PROTOCOL(HTTP)")
            assert isinstance(self.sock, socket.socket)          # (TLS's, if any: an SSLSocket is one)
            self.sock = WebSocketStream(self.sock, first, decoder.max_packet)
            self.websocket = True
            return
        if not {"MQTTV3", "MQTTV311"} & set(protocols):
            raise K.ProtocolError("MQTT over TCP on a channel with PROTOCOL(HTTP) only")
        decoder.feed(first)

    def _start_tls(self) -> bool:
        assert isinstance(self.sock, socket.socket)              # (TLS begins before anything else)
        tls_sock = start_tls(self.srv, self.channel.obj, self.channel.tls, self.sock, self.peer, "MQTT")
        if tls_sock is None:
            return False
        self.sock, self.tls = tls_sock, True
        return True

    def _next(self, decoder: K.Decoder) -> K.Packet:
        """The next packet; before waiting for more bytes, the acknowledgements held back are sent
        once what they acknowledge is durable (one sync for all the publications that came
        together: the group commit a client's in-flight window allows)."""
        while True:
            packet = decoder.next()
            if packet is not None:
                return packet
            if self.held:
                self.srv.store.sync(self.due)
                acks, self.held = b"".join(self.held), []
                self.send(acks)
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("the client closed the connection")
            decoder.feed(data)

    def send(self, data: bytes) -> None:
        with self.send_lock:
            self.sock.sendall(data)

    def _connect(self, c: K.Connect) -> bool:
        """CONNECT: the protocol, the ClientIdentifier, who the client is; CONNACK."""
        srv, obj = self.srv, self.channel.obj
        if c.protocol not in obj["PROTOCOL"] and not self.websocket:       # (HTTP: WebSockets carry either)
            self.send(K.connack(False, K.BAD_VERSION))
            return False
        cid = c.client_id or (S.generated_client_id() if c.clean else "")
        if not S.valid_client_id(cid):
            self.send(K.connack(False, K.ID_REJECTED))
            return False
        code, principal = self._identify(cid, c.username, c.password)
        if principal is None:
            self.send(K.connack(False, code))
            return False
        self.client_id, self.protocol, self.keepalive, self.will = cid, c.protocol, c.keepalive, c.will
        self.clean = c.clean
        old = self.channel.clients.get(cid)
        if old is not None:                     # the same ClientIdentifier again: the old one goes
            old.close(publish_will=True)
            old.join()
        if c.clean:
            discard_session(srv, cid)
        with srv.lock:
            qm = srv.qm
            present = not c.clean and any(s.durable and S.owns(cid, s.name) for s in qm.pubsub.subscriptions.values())
            self.conn = conn = qm.connect(cid, APPL_TYPE, principal.user, channel=obj.name,
                                          conname=self.peer.split("(")[0], pid=os.getpid(),
                                          tid=threading.get_native_id())
            conn.principal = principal
            # The transmission queue is the service's, as MQ's telemetry service uses it: its
            # handles are opened with the queue manager's authority, the client's own is checked
            # on the topics it publishes and subscribes to. (Its puts are outside syncpoint, so
            # the delivery's unit of work on the same connection holds only its gets.)
            with qmgr_authority(conn):
                self.put_queue = qm.open(conn, OD(ObjectName=S.TRANSMIT_QUEUE.encode()), C.MQOO_OUTPUT).hobj
            # Two units of work take turns delivering (``Lane``): one fills while the other's
            # messages are being acknowledged, so the client is never left waiting for a commit.
            # The second is a connection of the client's own, as DISPLAY CONN shows.
            second = qm.connect(cid, APPL_TYPE, principal.user, channel=obj.name, conname=self.peer.split("(")[0],
                                pid=os.getpid(), tid=threading.get_native_id())
            second.principal = principal
            for lc in (conn, second):
                with qmgr_authority(lc):
                    self.lanes.append(Lane(lc, qm.open(lc, OD(ObjectName=S.TRANSMIT_QUEUE.encode()),
                                                       C.MQOO_INPUT_SHARED).hobj))
        # The delivery is running before the client is known by its ClientIdentifier: the next
        # connection of the same id, which ends this one and joins it, may come as soon as the
        # CONNACK has gone (it found a thread not yet started, under load).
        self.deliverer = threading.Thread(target=Delivery(self).run, name="mqtt-deliver", daemon=True)
        self.deliverer.start()
        self.channel.clients[cid] = self
        self.send(K.connack(present, K.ACCEPTED))
        self.connacked.set()
        return True

    def _identify(self, cid: str, username: str | None, password: bytes | None) -> tuple[int, Principal | None]:
        """Who the client is (mqtt.session.identity), or the CONNACK code that refuses it. A user
        name is checked with its password against the queue manager's users, as CONNAUTH checks a
        client's (a wrong one waits FAILDLAY, then 4); the identity then needs connect authority
        (5 without it, with MQ's Not Authorized event). CHLAUTH's rules are for the queue
        manager's own channels: MQ's telemetry service does not apply them, nor does this."""
        srv, obj = self.srv, self.channel.obj
        sec = srv.qm.security
        if username is not None:
            with srv.lock:
                stored, info = sec.password_hash(username), sec.connauth
            if password is None or not verify_password(stored, password.decode("utf-8", "replace")):
                srv.log.write(*entry("AMQ5534E", username=username),
                              f"MQTT client '{cid}' on channel '{obj.name}' from {self.peer}.")
                auth.refuse_later(float(info["FAILDLAY"]) if info is not None else 1.0)
                return K.BAD_CREDENTIALS, None
        user = S.identity(obj["MCAUSER"], obj["USECLTID"] == 1, cid, username, os_user_of_uid(os.getuid()))
        with srv.lock:
            principal = sec.principal(user[:12])
            try:
                auth.may_connect(srv.qm, principal)
            except auth.Refused:
                srv.qm.mqi.conn_fails += 1
                srv.qm.events.not_authorized(F.MQRQ_CONN_NOT_AUTHORIZED, user=user, appltype=APPL_TYPE,
                                             applname=cid[-28:], channel=obj.name, conname=self.peer.split("(")[0])
                return K.NOT_AUTHORIZED, None
        return K.ACCEPTED, principal

    def _take(self, p: K.Publish) -> None:
        """PUBLISH: published, its acknowledgement held back until it is durable (``_next``:
        the acknowledgements go in the order their publications came, as MQTT 4.6 asks). A QoS 2
        one sent again before its PUBREL was published already: PUBREC again, after the first."""
        self.received += 1
        self.last_msg = time.time()
        if p.qos == 2 and p.packet_id in self.inbound_qos2:
            self.held.append(K.encode(K.Ack(K.PUBREC, p.packet_id)))
            return
        self._publish(p)
        if p.qos == 1:
            self.held.append(K.encode(K.Ack(K.PUBACK, p.packet_id)))
        elif p.qos == 2:
            self.inbound_qos2.add(p.packet_id)
            self.held.append(K.encode(K.Ack(K.PUBREC, p.packet_id)))

    def _handle(self, p: K.Packet) -> None:
        if isinstance(p, K.Publish):
            self._take(p)
        elif isinstance(p, K.Ack):
            if p.kind == K.PUBREL:
                self.inbound_qos2.discard(p.packet_id)
                self.send(K.encode(K.Ack(K.PUBCOMP, p.packet_id)))
                return
            kind = {K.PUBACK: "PUBACK", K.PUBREC: "PUBREC", K.PUBCOMP: "PUBCOMP"}.get(p.kind, "")
            with self.cond:
                known = self.out.acked(kind, p.packet_id)
                self.cond.notify_all()
            if known and p.kind == K.PUBREC:
                self.send(K.encode(K.Ack(K.PUBREL, p.packet_id)))
        elif isinstance(p, K.Subscribe):
            self.send(K.suback(p.packet_id, [self._subscribe(f, q) for f, q in p.filters]))
        elif isinstance(p, K.Unsubscribe):
            for f in p.filters:
                self._unsubscribe(f)
            self.send(K.encode(K.Ack(K.UNSUBACK, p.packet_id)))
        elif isinstance(p, K.Simple) and p.kind == K.PINGREQ:
            self.send(K.encode(K.Simple(K.PINGRESP)))
        else:
            raise K.ProtocolError(f"{type(p).__name__} after CONNECT")

    def _engine(self, fn: Callable[[Any, Conn], Any], sync: bool = True) -> Any:
        """``fn(qm, conn)`` under the engine lock, its journal entries durable before returning
        (or, without ``sync``, before the acknowledgements held back go: ``_next``)."""
        conn = self.conn
        assert conn is not None
        with self.srv.lock:
            result = fn(self.srv.qm, conn)
            ticket = conn.ticket
        if sync:
            self.srv.store.sync(ticket)
        else:
            self.due = max(self.due, ticket)
        return result

    def _publish(self, p: K.Publish) -> None:
        """PUBLISH: an MQPUT to the topic string (retained: MQPMO_RETAIN; an empty retained one
        clears the topic's retained publication, as MQTT says). A refusal ends the connection:
        MQTT 3.1.1 has no way to refuse one publication."""
        def put(qm: QueueManager, conn: Conn) -> None:
            hobj = self.topics.get(p.topic)
            if hobj is None:                    # (kept open: the next publication on it needs no MQOPEN)
                od = OD(ObjectType=C.MQOT_TOPIC)
                od.set_vs("ObjectString", p.topic)
                hobj = qm.open(conn, od, C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING).hobj
                if len(self.topics) >= TOPIC_HANDLES:
                    qm.close(conn, self.topics.pop(next(iter(self.topics))))
                self.topics[p.topic] = hobj
            if p.retain and not p.payload:
                qm.pubadmin.clear_retained(p.topic)
                return
            qm.put(conn, hobj, _MDS[p.qos].copy(), PMO(Options=_OPTIONS | (C.MQPMO_RETAIN if p.retain else 0)),
                   _QOS1[3] + p.payload if p.qos == 1 else p.payload)
        try:
            self._engine(put, sync=False)
        except MQIError as e:
            raise K.ProtocolError(f"the publication on '{p.topic}' was refused with reason {e.reason}") from None

    def _subscribe(self, topic_filter: str, qos: int) -> int:
        """One SUBSCRIBE filter: an MQSUB (replacing one of the same filter), the granted QoS or
        0x80 when it is refused (a bad filter, no authority). Every subscription is made durable
        and its handle closed at once, so a client may have thousands without holding thousands
        of handles (MAXHANDS); a clean session's are removed when it ends (``close``)."""
        if not K.valid_filter(topic_filter):
            return K.SUB_FAILURE
        qos = min(qos, 2)
        name = S.sub_name(self.client_id, topic_filter)

        def sub(qm: QueueManager, conn: Conn) -> int:
            # sub authority on the topic, as the client; the delivery to the service's queue, as
            # the queue manager (MQSUB would otherwise ask the client for put on it).
            qm.authority.authorize(conn, "TOPIC", topics.admin_node(qm.pubsub.tree(), topic_filter).name,
                                   Z.MQZAO_SUBSCRIBE)
            if any(s.name == name for s in qm.pubsub.subscriptions.values()):
                qm.pubadmin.delete_subscription(name)
            sd = SD(Options=C.MQSO_CREATE | C.MQSO_WILDCARD_TOPIC | C.MQSO_SET_CORREL_ID | C.MQSO_FAIL_IF_QUIESCING
                    | C.MQSO_DURABLE, SubCorrelId=S.client_key(self.client_id),
                    PubPriority=C.MQPRI_PRIORITY_AS_PUBLISHED)
            sd.set_vs("ObjectString", topic_filter)
            sd.set_vs("SubName", name)
            sd.set_vs("SubUserData", S.sub_user_data(qos))
            with qmgr_authority(conn):
                h, _q = qm.subscribe(conn, sd, self.put_queue)
                qm.close(conn, h.hobj)           # (MQCO_NONE: the durable subscription stays)
            return qos
        try:
            granted: int = self._engine(sub)
        except MQIError:
            return K.SUB_FAILURE
        with self.cond:
            self.cond.notify_all()
        return granted

    def _unsubscribe(self, topic_filter: str) -> None:
        """UNSUBSCRIBE: the subscription removed, whether this connection made it or an earlier
        one of the same persistent session did."""
        name = S.sub_name(self.client_id, topic_filter)

        def unsub(qm: QueueManager, conn: Conn) -> None:
            if any(s.name == name for s in qm.pubsub.subscriptions.values()):
                qm.pubadmin.delete_subscription(name)
        self._engine(unsub)

    # --- the end -----------------------------------------------------------------------------------
    def close(self, publish_will: bool) -> None:
        """End the connection (once): the will published when it ended without DISCONNECT, the
        client's MQI connections ended (non-durable subscriptions with them; the delivery's
        unit of work backed out)."""
        with self.cond:
            if self.closed:
                return
            self.closed = True
            self.cond.notify_all()
        self.connacked.set()
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        if publish_will and self.will is not None and self.conn is not None:
            try:
                self._publish(self.will)
            except K.ProtocolError as e:
                self.srv.log.write(*entry("AMQ9504E", channel=self.channel.obj.name),
                                   f"The will of MQTT client {self.client_id} was not published: {e}")
        srv = self.srv
        with srv.lock:
            for conn in {id(c): c for c in [self.conn, *(ln.conn for ln in self.lanes)] if c is not None}.values():
                if conn.hconn in srv.qm.conns:
                    srv.qm.disconnect(conn, commit=False)
        srv.store.sync()
        if self.clean and self.client_id and self.conn is not None:
            discard_session(srv, self.client_id)     # a clean session's subscriptions end with it
        if self.channel.clients.get(self.client_id) is self:
            del self.channel.clients[self.client_id]

    def join(self) -> None:
        if self.deliverer is not None and self.deliverer is not threading.current_thread():
            self.deliverer.join(5)

    def status_row(self) -> dict[str, Any]:
        """DISPLAY CHSTATUS CLIENTID's fields for this client."""
        started = mq_date_time(self.started_at)
        last = mq_date_time(self.last_msg) if self.last_msg else ("", "")
        user = self.conn.user if self.conn is not None else ""
        return {"CHANNEL": self.channel.obj.name, "CHLTYPE": "MQTT", "CLIENTID": self.client_id,
                "CONNAME": self.peer.split("(")[0], "STATUS": "RUNNING", "PROTOCOL": self.protocol,
                "KAINT": self.keepalive, "MSGSNT": self.sent, "MSGRCVD": self.received, "LMSGDATE": last[0],
                "LMSGTIME": last[1], "CHSTADA": started[0], "CHSTATI": started[1], "SUBCOUNT": sum(1 for s in self.srv.qm.pubsub.subscriptions.values() if S.owns(self.client_id, s.name)),
                "INDOUBTOUT": len(self.out.pending), "INDOUBTIN": len(self.inbound_qos2), "MCAUSER": user}
