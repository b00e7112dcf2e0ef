"""One AMQP 1.0 connection to an AMQP channel: mqlite answers its SASL layer (amqp/sasl.py: PLAIN
checked as CONNAUTH checks a client's password, ANONYMOUS as the channel's MCAUSER, both through
CHLAUTH and connect authority as a client channel's are; ANONYMOUS without MCAUSER is no one, and
refused), then Qpid Proton's engine speaks AMQP
(frames, sessions, links, credit, settlement) and this maps its links onto MQI calls under the
engine lock (amqp/mapping.py):

- a link the client sends on: MQPUT to the topic (under the channel's TPROOT) or, with the queue
  capability, the queue; an unsettled transfer is accepted once its message is durable (one sync
  for the transfers that came together), refused with ``rejected`` and MQ's reason otherwise;
- a link the client receives on: a managed non-durable subscription to the topic, or gets from
  the queue (``copy``: browses); as much as the link's credit allows, got under syncpoint and
  committed once every unsettled delivery is accepted (backed out, so sent again, when one was
  released, modified or rejected); a link the client asked to be settled at once gets outside
  syncpoint (at most once)."""
from __future__ import annotations

import os
import select
import socket
import time
from typing import Any

from proton import Collector, Condition, Connection, Delivery, Event, Link, Message, Terminus, Transport

from mqlite.amqp import mapping as A
from mqlite.amqp import sasl
from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import GMO, MD, OD, PMO
from mqlite.cmq.subs import SD
from mqlite.engine.clock import mq_date_time
from mqlite.engine.core import Conn
from mqlite.security.users import Principal
from mqlite.server import auth

HEADER_WAIT = 10.0                      # seconds for the protocol headers and SASL
LINK_CREDIT = 100                       # credit a link the client sends on is given
POLL = 0.02                             # how often links with credit look for messages
IDLE_POLL = 0.5
CONDITIONS = {C.MQRC_UNKNOWN_OBJECT_NAME: "amqp:not-found", C.MQRC_NOT_AUTHORIZED: "amqp:unauthorized-access",
              C.MQRC_PUT_INHIBITED: "amqp:resource-locked", C.MQRC_GET_INHIBITED: "amqp:resource-locked",
              C.MQRC_Q_FULL: "amqp:resource-limit-exceeded", C.MQRC_MSG_TOO_BIG_FOR_Q: "amqp:link:message-size-exceeded"}


class Refused(Exception):
    pass


class AMQPConnection:
    """The connection's thread (``run``): SASL, then the Proton engine and the MQI."""

    def __init__(self, channel: Any, sock: socket.socket, peer: str) -> None:
        self.channel, self.srv, self.sock, self.peer = channel, channel.srv, sock, peer
        self.server = self.srv                  # (what server.auth reads of a session)
        self.tls = False
        self.container = ""
        self.principal: Principal | None = None
        self.conn: Conn | None = None
        self.handles: dict[Link, dict[str, Any]] = {}     # link -> its MQ handle and what it is
        self.unsettled: dict[Delivery, bool] = {}        # our deliveries waiting for an outcome
        self.back_out = False
        self.held: list[Delivery] = []                   # the client's transfers waiting for a sync
        self.due = 0
        self.ended = False
        self.started_at = time.time()
        self.sent = self.received = 0
        self.tag = 0

    # --- the connection ---------------------------------------------------------------------------
    def run(self) -> None:
        srv = self.srv
        try:
            self.sock.settimeout(HEADER_WAIT)
            header = self._sasl()
            if header is None:
                return
            self.sock.settimeout(None)
            self._engine(header)
        except (sasl.SaslError, socket.timeout, Refused) as e:
            srv.log.write("AMQ9504E", f"A protocol error was detected on AMQP channel '{self.channel.obj.name}' "
                                      f"from {self.peer}.", f"{e}. The connection was closed.")
        except (ConnectionError, OSError):
            pass
        except Exception:       # a defect: log it, end this connection, keep the queue manager running
            import traceback
            srv.log.write("MQL9999E", f"Unexpected error serving AMQP client {self.peer}.", traceback.format_exc())
        finally:
            self._finish()

    def _recv(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            data = self.sock.recv(n - len(out))
            if not data:
                raise ConnectionError("the client closed the connection")
            out += data
        return out

    def _sasl(self) -> bytes | None:
        """The SASL exchange (or none: an AMQP header straight away is ANONYMOUS); the AMQP header
        that follows, or None when the client was refused."""
        header = self._recv(8)
        if header == sasl.AMQP_HEADER:
            return header if self._admit(None, None) else None
        if header != sasl.SASL_HEADER:
            self.sock.sendall(sasl.SASL_HEADER)
            raise Refused(f"protocol header {header!r} is not AMQP 1.0's")
        self.sock.sendall(sasl.SASL_HEADER + sasl.mechanisms(["PLAIN", "ANONYMOUS"]))
        head = self._recv(4)
        init = sasl.read_init(head + self._recv(sasl.frame_size(head) - 4))
        creds = sasl.plain(init.response) if init.mechanism == "PLAIN" else None
        if init.mechanism not in ("PLAIN", "ANONYMOUS") or (init.mechanism == "PLAIN" and creds is None):
            self.sock.sendall(sasl.outcome(sasl.AUTH))
            return None
        ok = self._admit(*(creds or (None, None)))
        self.sock.sendall(sasl.outcome(sasl.OK if ok else sasl.AUTH))
        if not ok:
            return None
        header = self._recv(8)
        if header != sasl.AMQP_HEADER:
            raise Refused(f"after SASL, header {header!r} is not AMQP 1.0's")
        return header

    def _admit(self, user: str | None, password: str | None) -> bool:
        """Who the client is, as a client channel's is checked (server/auth.identify: CHLAUTH,
        CONNAUTH, connect authority); a refusal is SASL's auth outcome, after FAILDLAY."""
        obj, srv = self.channel.obj, self.srv
        # ANONYMOUS asserts no one: the channel's MCAUSER is who it is (none: no one, refused).
        req: dict[str, Any] = {"os_user": user or "", "appl": "amqp"}
        if user is not None:
            req.update(user=user, password=password)
        try:
            self.principal = auth.identify(self, req, obj)
        except auth.Refused as e:
            with srv.lock:
                srv.qm.mqi.conn_fails += 1
                if e.blocked:
                    srv.qm.events.channel_blocked(e.blocked, obj.name, self.peer.split("(")[0], user=e.user)
                if e.qualifier:
                    srv.qm.events.not_authorized(e.qualifier, user=e.user, csp_user=e.csp_user, appltype=C.MQAT_AMQP,
                                                 applname="amqp", channel=obj.name, conname=self.peer.split("(")[0])
            auth.refuse_later(e.delay)
            return False
        return True

    def _engine(self, header: bytes) -> None:
        self.transport = t = Transport(Transport.SERVER)
        self.proton = pconn = Connection()
        collector = Collector()
        pconn.collect(collector)
        t.bind(pconn)
        t.max_frame_size = 65536
        t.push(header)
        while not self.ended:
            self._events(collector)
            self._pump()
            self._flush()
            if t.closed:
                return
            wait = POLL if any(h["sender"] and link.credit > 0 for link, h in self.handles.items()) else IDLE_POLL
            readable, _, _ = select.select([self.sock], [], [], wait)
            if readable:
                data = self.sock.recv(65536)
                if not data:
                    t.close_tail()
                    self._events(collector)
                    return
                t.push(data)
            t.tick(time.monotonic())

    def _flush(self) -> None:
        if self.held:
            self.srv.store.sync(self.due)
            for d in self.held:
                d.update(Delivery.ACCEPTED)
                d.settle()
            self.held = []
        t = self.transport
        while t.pending() > 0:
            out = t.peek(t.pending()) or b""
            self.sock.sendall(out)
            t.pop(len(out))

    # --- events -----------------------------------------------------------------------------------
    def _events(self, collector: Collector) -> None:
        while (ev := collector.peek()) is not None:
            e: Any = ev                             # (Proton's event attributes are typed Optional)
            kind = e.type
            if kind == Event.CONNECTION_REMOTE_OPEN:
                self._open(e.connection)
            elif kind == Event.SESSION_REMOTE_OPEN:
                e.session.open()
            elif kind == Event.LINK_REMOTE_OPEN:
                self._attach(e.link)
            elif kind == Event.DELIVERY:
                self._delivery(e.delivery)
            elif kind == Event.LINK_REMOTE_CLOSE:
                self._detach(e.link)
            elif kind == Event.SESSION_REMOTE_CLOSE:
                e.session.close()
            elif kind == Event.CONNECTION_REMOTE_CLOSE:
                e.connection.close()
            collector.pop()

    def _open(self, pconn: Connection) -> None:
        """OPEN: the MQI connection, named by the client's container id."""
        self.container = pconn.remote_container or ""
        srv, obj = self.srv, self.channel.obj
        assert self.principal is not None
        with srv.lock:
            self.conn = srv.qm.connect(self.container[-28:], C.MQAT_AMQP, self.principal.user, channel=obj.name,
                                       conname=self.peer.split("(")[0], pid=os.getpid())
            self.conn.principal = self.principal
        pconn.container = srv.name
        pconn.open()

    def _attach(self, link: Link) -> None:
        """ATTACH: the MQ object the link names, opened as the client's identity; a refusal
        detaches it with MQ's reason as the condition."""
        sending = link.is_sender                   # (ours: the client receives on it)
        term = link.remote_source if sending else link.remote_target
        caps = []
        data = term.capabilities
        if data is not None and data.next():
            obj = data.get_object()
            caps = list(obj) if isinstance(obj, (list, tuple)) else [obj]
        kind = A.kind_of(caps)
        address = term.address or ""
        entry: dict[str, Any] = {"sender": sending, "kind": kind, "address": address}
        if term.dynamic or not address:
            link.condition = Condition("amqp:not-implemented", "temporary queues (a dynamic node) are not there yet")
            link.open()
            link.close()
            return
        try:
            with self.srv.lock:
                if sending:
                    self._open_source(link, entry)
                else:
                    entry["hobj"] = self.srv.qm.open(self.conn, self._od(kind, address), C.MQOO_OUTPUT).hobj
        except MQIError as e:
            link.condition = Condition(CONDITIONS.get(e.reason, "amqp:internal-error"),
                                       f"MQ reason {e.reason} for '{address}'")
            link.open()
            link.close()
            return
        self.handles[link] = entry
        (link.source if sending else link.target).address = address
        if sending and kind == A.QUEUE and entry.get("browse"):
            link.source.distribution_mode = Terminus.DIST_MODE_COPY
        link.open()
        if not sending:
            link.flow(LINK_CREDIT)

    def _od(self, kind: str, address: str) -> OD:
        if kind == A.QUEUE:
            return OD(ObjectName=address.encode())
        od = OD(ObjectType=C.MQOT_TOPIC, ObjectName=self.channel.obj["TPROOT"].encode())
        od.set_vs("ObjectString", A.topic_of(address))
        return od

    def _open_source(self, link: Link, entry: dict[str, Any]) -> None:
        qm, conn = self.srv.qm, self.conn
        if entry["kind"] == A.QUEUE:
            browse = link.remote_source.distribution_mode == Terminus.DIST_MODE_COPY
            entry["browse"] = browse
            entry["hobj"] = qm.open(conn, OD(ObjectName=entry["address"].encode()),
                                    C.MQOO_BROWSE if browse else C.MQOO_INPUT_SHARED).hobj
        else:
            sd = SD(Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_WILDCARD_TOPIC | C.MQSO_FAIL_IF_QUIESCING,
                    ObjectName=self.channel.obj["TPROOT"].encode())
            sd.set_vs("ObjectString", A.topic_of(entry["address"]))
            h, qh = qm.subscribe(conn, sd, 0)
            entry["sub"], entry["hobj"] = h.hobj, qh
        entry["settled"] = link.remote_snd_settle_mode == Link.SND_SETTLED

    def _detach(self, link: Link) -> None:
        entry = self.handles.pop(link, None)
        if entry is not None and self.conn is not None:
            with self.srv.lock:               # (a topic's subscription first, then its managed queue)
                for key in ("sub", "hobj"):
                    if key in entry:
                        try:
                            self.srv.qm.close(self.conn, entry[key], C.MQCO_REMOVE_SUB if key == "sub" else 0)
                        except MQIError:
                            pass
        link.close()

    def _delivery(self, d: Delivery) -> None:
        link = d.link
        if link.is_receiver:
            if d.readable and not d.partial:
                self._transfer(link, d)
            return
        if d in self.unsettled and d.remote_state:      # the client's outcome for one we sent
            if d.remote_state != Delivery.ACCEPTED:
                self.back_out = True
            del self.unsettled[d]
            d.settle()
            if not self.unsettled:
                self._settle_unit()

    def _transfer(self, link: Link, d: Delivery) -> None:
        """A message the client sent: MQPUT to the link's object."""
        data = link.recv(d.pending)
        link.advance()
        self.received += 1
        entry = self.handles.get(link)
        msg = Message()
        reason = 0
        try:
            msg.decode(data)
            md, body = A.to_mq(msg)
            if len(body) > self.channel.obj["MAXMSGL"]:
                raise MQIError(C.MQRC_MSG_TOO_BIG_FOR_Q)
            assert entry is not None and self.conn is not None
            with self.srv.lock:
                self.srv.qm.put(self.conn, entry["hobj"], md, PMO(Options=C.MQPMO_NO_SYNCPOINT
                                                                  | C.MQPMO_FAIL_IF_QUIESCING), body)
                self.due = max(self.due, self.conn.ticket)
        except MQIError as e:
            reason = e.reason
        except Exception:                           # (a message Proton cannot decode)
            reason = C.MQRC_FORMAT_ERROR
        if reason:
            d.local.condition = Condition(CONDITIONS.get(reason, "amqp:internal-error"), f"MQ reason {reason}")
            d.update(Delivery.REJECTED)
            d.settle()
        elif not d.settled:                         # (Proton: settled by the client)
            self.held.append(d)                     # accepted once durable (``_flush``)
        else:
            d.settle()
        if link.credit < LINK_CREDIT // 2:
            link.flow(LINK_CREDIT - link.credit)

    # --- sending ----------------------------------------------------------------------------------
    def _pump(self) -> None:
        """Messages for the links the client receives on, as far as their credit goes."""
        for link, entry in list(self.handles.items()):
            if not entry["sender"] or link.credit <= 0 or self.conn is None:
                continue
            while link.credit > 0:
                got = self._get(entry)
                if got is None:
                    break
                md, body = got
                self.tag += 1
                d = link.delivery(str(self.tag))
                link.send(A.from_mq(md, body).encode())
                link.advance()
                self.sent += 1
                if entry["settled"] or entry.get("browse"):
                    d.settle()
                else:
                    self.unsettled[d] = True

    def _get(self, entry: dict[str, Any]) -> tuple[MD, bytes] | None:
        assert self.conn is not None
        browse = entry.get("browse")
        sync = not browse and not entry["settled"]
        opts = (C.MQGMO_BROWSE_NEXT if browse else C.MQGMO_SYNCPOINT if sync else C.MQGMO_NO_SYNCPOINT) \
            | C.MQGMO_NO_WAIT | C.MQGMO_PROPERTIES_FORCE_MQRFH2 | C.MQGMO_FAIL_IF_QUIESCING
        with self.srv.lock:
            try:
                r = self.srv.qm.get(self.conn, entry["hobj"], MD(), GMO(Options=opts), self.srv.qm.qmgr["MAXMSGL"])
            except MQIError as e:
                if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                    return None
                raise
        return r.md, r.body

    def _settle_unit(self) -> None:
        """Every delivery of the unit of work has its outcome: MQCMIT, or MQBACK when one was not
        accepted (the messages come again)."""
        assert self.conn is not None
        with self.srv.lock:
            if self.back_out:
                self.srv.qm.backout(self.conn)
            else:
                self.srv.qm.commit(self.conn)
        self.back_out = False

    # --- the end ----------------------------------------------------------------------------------
    def end(self) -> None:
        """Ended from outside (STOP CHANNEL, PURGE CHANNEL, the queue manager ending)."""
        self.ended = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _finish(self) -> None:
        srv = self.srv
        with srv.lock:
            if self.conn is not None and self.conn.hconn in srv.qm.conns:
                srv.qm.disconnect(self.conn, commit=False)
        srv.store.sync()
        try:
            self.sock.close()
        except OSError:
            pass
        self.channel.connections.discard(self)

    def status_row(self) -> dict[str, Any]:
        started = mq_date_time(self.started_at)
        return {"CHANNEL": self.channel.obj.name, "CHLTYPE": "AMQP", "CLIENTID": self.container,
                "CONNAME": self.peer.split("(")[0], "STATUS": "RUNNING", "MSGSNT": self.sent,
                "MSGRCVD": self.received, "CHSTADA": started[0], "CHSTATI": started[1],
                "MCAUSER": self.conn.user if self.conn is not None else ""}
