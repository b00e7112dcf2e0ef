"""One AMQP 1.0 connection to an AMQP channel: mqlite answers its SASL layer (who the client is:
server/amqpident.py), then Qpid Proton's engine speaks AMQP (frames, sessions, links, credit, settlement) and
this maps its links' messages onto MQI calls under the engine lock (each link's MQ object:
server/amqplinks.py; messages: amqp/mapping.py):

- a link the client sends on: MQPUT to its object; an unsettled transfer is accepted once its
  message is durable (the journal writer makes it so while this thread reads on: the client's
  in-flight window is the group commit), refused with ``rejected`` and MQ's reason otherwise;
- a link the client receives on: gets from its queue or subscription (``copy``: browses), as
  much as the link's credit allows, under syncpoint; each delivery's outcome is its own
  (amqp/mapping.py's ``disposition``): one released, modified or never settled goes back to its
  queue alone, one rejected is moved as MQ moves a poison message, and the unit of work, holding
  only accepted gets by then, is committed once every delivery has its outcome; a link the client
  asked to be settled at once gets outside syncpoint (at most once)."""
from __future__ import annotations

import os
import select
import socket
import ssl
import threading
import time
from typing import Any

from cproton import pn_delivery
from cproton_ffi import ffi
from cproton_ffi import lib as pn
from proton import Collector, Condition, Connection, Delivery, Event, Message, Transport

from mqlite.amqp import mapping as A
from mqlite.amqp import sasl
from mqlite.catalogue import entry as log_entry
from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import GMO, MD, PMO
from mqlite.engine.clock import mq_date_time
from mqlite.engine.core import Conn
from mqlite.engine.deadletter import move_poison
from mqlite.security.users import Principal
from mqlite.server import amqpident as ident
from mqlite.server import amqplinks as links
from mqlite.server.protosvc import start_tls

_PMO = PMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING).pack()
HEADER_WAIT = 10.0                      # seconds for the protocol headers and SASL
POLL = 0.02                             # how often links with credit look for messages
IDLE_POLL = 0.5


_OUTCOMES = {pn.PN_ACCEPTED: "accepted", pn.PN_RELEASED: "released", pn.PN_MODIFIED: "modified",
             pn.PN_REJECTED: "rejected"}
_ENDPOINT_EVENTS = {pn.PN_CONNECTION_REMOTE_OPEN, pn.PN_SESSION_REMOTE_OPEN, pn.PN_LINK_REMOTE_OPEN,
                    pn.PN_LINK_REMOTE_CLOSE, pn.PN_LINK_REMOTE_DETACH, pn.PN_SESSION_REMOTE_CLOSE, pn.PN_CONNECTION_REMOTE_CLOSE}


class AMQPConnection:
    """The connection's thread (``run``): SASL, then the Proton engine and the MQI."""

    def __init__(self, channel: Any, sock: socket.socket, peer: str) -> None:
        self.channel, self.srv, self.sock, self.peer = channel, channel.srv, sock, peer
        self.server = self.srv                  # (what server.auth reads of a session)
        self.tls = False
        self.container = ""
        self.principal: Principal | None = None
        self.conn: Conn | None = None
        self.handles: dict[Any, dict[str, Any]] = {}      # link (Proton's pointer) -> what it is
        self.unsettled: dict[Any, tuple[str, Any]] = {}  # our deliveries waiting for an outcome: queue, message
        self.held: list[tuple[int, Delivery]] = []       # the client's transfers waiting to be durable
        self.asked = 0                                   # the ticket the journal writer was asked for
        self.wake_r, self.wake_w = socket.socketpair()   # (the journal writer: a ticket is durable)
        self.pn_message = ffi.gc(pn.pn_message(), pn.pn_message_free)   # (each transfer decoded into it)
        self.done = threading.Event()                    # the connection has ended (PURGE CHANNEL)
        self.ended = False
        self.started_at = time.time()
        self.sent = self.received = 0
        self.tag = 0

    # --- the connection ---------------------------------------------------------------------------
    def run(self) -> None:
        srv = self.srv
        try:
            self.sock.settimeout(HEADER_WAIT)
            with srv.handshakes.pending(self):
                if self.channel.tls is not None:
                    tls_sock = start_tls(srv, self.channel.obj, self.channel.tls, self.sock, self.peer, "AMQP")
                    if tls_sock is None:
                        return
                    self.sock, self.tls = tls_sock, True
                header = ident.sasl_exchange(self)
                if header is None:
                    return
            self.sock.settimeout(None)
            self._engine(header)
        except (sasl.SaslError, socket.timeout, ident.Refused, UnicodeDecodeError) as e:   # (bad UTF-8: a decode-error)
            srv.log.write(*log_entry("AMQ9504E", channel=self.channel.obj.name),
                          f"{e} (AMQP client {self.peer}). The connection was closed.")
        except (ConnectionError, OSError):
            pass
        except Exception:       # a defect: log it, end this connection, keep the queue manager running
            import traceback
            srv.log.write(*log_entry("AMQ6184W", qmgr=srv.name),
                          f"Unexpected error serving AMQP client {self.peer}.\n{traceback.format_exc()}")
        finally:
            self._finish()

    def _engine(self, header: bytes) -> None:
        self.transport = t = Transport(Transport.SERVER)
        self.proton = pconn = Connection()
        collector = Collector()
        pconn.collect(collector)
        t.bind(pconn)
        t.max_frame_size = 65536
        if self.channel.obj["AMQPKA"] > 0:      # AMQPKA: the idle timeout this end declares (AUTO: none)
            t.idle_timeout = self.channel.obj["AMQPKA"] / 1000
        t.push(header)
        deadline = time.monotonic() + HEADER_WAIT
        # poll(), not select(): select cannot watch a descriptor above 1023, and a queue manager
        # with some hundreds of connections has them.
        poller = select.poll()
        poller.register(self.wake_r, select.POLLIN)
        poller.register(self.sock, select.POLLIN)
        wake_fd, sock_fd, watching = self.wake_r.fileno(), self.sock.fileno(), True
        while not self.ended:
            self._events(collector)
            self._pump()
            self._flush()
            if t.closed:
                return
            if self.conn is None and time.monotonic() > deadline:
                raise ident.Refused(f"no OPEN within {HEADER_WAIT:g} seconds")
            wait = POLL if any(h["sender"] and h["link"].credit > 0 for h in self.handles.values()) else IDLE_POLL
            room = t.capacity()                 # (what Proton's input buffer takes: no more is read)
            if room < 0:
                return
            buffered = room and isinstance(self.sock, ssl.SSLSocket) and self.sock.pending()
            if watching != bool(room):
                watching = bool(room)
                poller.modify(sock_fd, select.POLLIN if watching else 0)
            ready = {fd for fd, _ev in poller.poll(0 if buffered else int(wait * 1000))}
            if wake_fd in ready:
                self.wake_r.recv(4096)
            if (room and sock_fd in ready) or buffered:     # (TLS: what its record layer holds is not in poll's view)
                data = self.sock.recv(room)
                if not data:
                    t.close_tail()
                    self._events(collector)
                    return
                t.push(data)
            t.tick(time.monotonic())

    def _flush(self) -> None:
        """The transfers whose messages are durable accepted, the journal writer asked to make the
        rest durable (this thread goes on reading while it writes: the client's in-flight window is
        the group commit), and what Proton has to send sent."""
        if self.held:
            store = self.srv.store
            last = self.held[-1][0]
            if last > self.asked:
                self.asked = last
                if not store.when_durable(last, self._wake, hand_off=True):
                    self._accept(last)
            self._accept(store.durable_ticket)
        t = self.transport
        while t.pending() > 0:
            out = t.peek(t.pending()) or b""
            self.sock.sendall(out)
            t.pop(len(out))

    def _accept(self, durable: int) -> None:
        while self.held and self.held[0][0] <= durable:
            d = self.held.pop(0)[1]
            pn.pn_delivery_update(d, pn.PN_ACCEPTED)
            pn.pn_delivery_settle(d)

    def _wake(self) -> None:
        """(The journal writer, once the ticket asked for is durable.)"""
        try:
            self.wake_w.send(b"\0", socket.MSG_DONTWAIT)
        except OSError:                                 # (full: a wake-up is waiting already)
            pass

    # --- events -----------------------------------------------------------------------------------
    def _events(self, collector: Collector) -> None:
        """Proton's events. A delivery's (one a message) are read through Proton's C API, as
        pointers: its Python wrappers cost more than the message's MQPUT (docs/amqp.md)."""
        impl = collector._impl
        while (ev := pn.pn_collector_peek(impl)) != ffi.NULL:
            kind = pn.pn_event_type(ev)
            if kind == pn.PN_DELIVERY:
                self._delivery(pn.pn_event_delivery(ev))
            elif kind in _ENDPOINT_EVENTS:
                self._endpoint(Event.wrap(ev))
            pn.pn_collector_pop(impl)

    def _endpoint(self, e: Any) -> None:            # (Proton's event attributes are typed Optional)
        kind = e.type
        if kind == Event.CONNECTION_REMOTE_OPEN:
            self._open(e.connection)
        elif kind == Event.SESSION_REMOTE_OPEN:
            e.session.open()
        elif kind == Event.LINK_REMOTE_OPEN:
            links.attach(self, e.link)
        elif kind in (Event.LINK_REMOTE_CLOSE, Event.LINK_REMOTE_DETACH):
            links.detach(self, e.link, kind == Event.LINK_REMOTE_CLOSE)
        elif kind == Event.SESSION_REMOTE_CLOSE:
            e.session.close()
        elif kind == Event.CONNECTION_REMOTE_CLOSE:
            e.connection.close()

    def _open(self, pconn: Connection) -> None:
        """OPEN: the MQI connection, named by the client's container id. With USECLTID(YES) and
        no MCAUSER, the container id is who the OAM judges the client as (as an MQTT channel's)."""
        self.container = pconn.remote_container or ""
        srv, obj = self.srv, self.channel.obj
        with srv.lock:
            if not ident.at_open(self):
                pconn.condition = Condition("amqp:unauthorized-access", f"MQ reason {C.MQRC_NOT_AUTHORIZED}")
                pconn.open()
                pconn.close()
                return
            assert self.principal is not None
            self.conn = srv.qm.connect(self.container[-28:], C.MQAT_AMQP, self.principal.user, channel=obj.name,
                                       conname=self.peer.split("(")[0], pid=os.getpid())
            self.conn.principal = self.principal
        pconn.container = srv.name
        pconn.open()

    def _delivery(self, d: Any) -> None:
        link = pn.pn_delivery_link(d)
        if pn.pn_link_is_receiver(link):
            if pn.pn_delivery_readable(d) and not pn.pn_delivery_partial(d):
                self._transfer(link, d)
            return
        state = pn.pn_delivery_remote_state(d)
        if state and d in self.unsettled:              # the client's outcome for one we sent
            queue, held = self.unsettled.pop(d)
            failed = state == pn.PN_MODIFIED and bool(pn.pn_disposition_is_failed(pn.pn_delivery_remote(d)))
            pn.pn_delivery_settle(d)
            self._outcome(queue, held, _OUTCOMES.get(state, "released"), failed)
            if not self.unsettled:
                self._settle_unit()

    def _outcome(self, queue: str, held: Any, outcome: str, failed: bool) -> None:
        """One delivery's outcome applied to its get alone (amqp/mapping.py's ``disposition``)."""
        assert self.conn is not None
        qm = self.srv.qm
        with self.srv.lock:
            obj = qm.queue(queue)
            what = A.disposition(outcome, failed, held.md.BackoutCount, obj["BOTHRESH"] if obj is not None else 0)
            if what == A.CONSUME:
                return
            if what == A.POISON:
                why = move_poison(qm, self.conn, queue, held.md.copy(), held.body,
                                  f"AMQP channel '{self.channel.obj.name}'")
                if not why:
                    return                      # (its get, still in the unit, now consumes it)
                self.srv.log.write(*log_entry("MQL9001W", channel=self.channel.obj.name, queue=queue), why)
            qm.give_back(self.conn, held, what != A.REQUEUE)

    def _transfer(self, link: Any, d: Any) -> None:
        """A message the client sent: MQPUT to the link's object."""
        size = pn.pn_delivery_pending(d)
        data = bytearray(size)
        pn.pn_link_recv(link, ffi.from_buffer(data), size)
        pn.pn_link_advance(link)
        self.received += 1
        entry = self.handles.get(link)
        reason = ticket = 0
        try:
            plain = A.plain_to_mq(self.pn_message, data)
            if plain is None:
                msg = Message()
                msg.decode(bytes(data))
                plain = A.to_mq(msg)
            md, body = plain
            if len(body) > self.channel.obj["MAXMSGL"]:
                raise MQIError(C.MQRC_MSG_TOO_BIG_FOR_Q)
            assert entry is not None and self.conn is not None
            with self.srv.lock:
                # As a client's MQPUT is made: packed, so that a plain one (a queue, no reply-to
                # queue) is made on the packed descriptor; nobody reads the answer.
                self.srv.qm.put_request(self.conn, entry["hobj"], md.pack(), _PMO, body, answered=False)
                ticket = self.conn.ticket
        except MQIError as e:
            reason = e.reason
        except Exception:                           # (a message Proton cannot decode, or MQ cannot map)
            reason = C.MQRC_FORMAT_ERROR
        if reason:
            refused = Delivery.wrap(d)
            assert refused is not None
            refused.local.condition = links.condition(reason, entry["address"] if entry else "")
            refused.update(Delivery.REJECTED)
            refused.settle()
        elif not pn.pn_delivery_settled(d):         # (settled: the client sent it settled)
            self.held.append((ticket, d))           # accepted once durable (``_flush``)
        else:
            pn.pn_delivery_settle(d)
        credit = pn.pn_link_credit(link)
        if credit < links.LINK_CREDIT // 2:
            pn.pn_link_flow(link, links.LINK_CREDIT - credit)

    # --- sending ----------------------------------------------------------------------------------
    def _pump(self) -> None:
        """Messages for the links the client receives on, as far as their credit goes."""
        for link, entry in list(self.handles.items()):
            if not entry["sender"] or self.conn is None:
                continue
            while pn.pn_link_credit(link) > 0:
                try:
                    got = self._get(entry)
                except MQIError as e:
                    if e.reason != C.MQRC_SYNCPOINT_LIMIT_REACHED:      # (MAXUMSGS: wait for outcomes)
                        links.fail(self, entry, e.reason)             # (its queue deleted, get inhibited)
                    break
                if got is None:
                    break
                md, body, held = got
                self.tag += 1
                d = pn_delivery(link, str(self.tag))
                data = A.from_mq(md, body).encode()
                pn.pn_link_send(link, ffi.from_buffer(data), len(data))
                pn.pn_link_advance(link)
                self.sent += 1
                if held is None:
                    pn.pn_delivery_settle(d)
                else:
                    self.unsettled[d] = held

    def _get(self, entry: dict[str, Any]) -> tuple[MD, bytes, tuple[str, Any] | None] | None:
        """The next message for a link: its descriptor and data, and for a get under syncpoint
        its queue and the engine's message (what its outcome acts on)."""
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
            held = None
            if sync:
                _kind, qs, msg = self.conn.uow[-1]         # (the get just made)
                held = (qs.name, msg)
        return r.md, r.body, held

    def forget_link(self, link: Any) -> None:
        """A link the client receives on went (detached, or failed) with deliveries it never
        settled: those go back to their queue (they come again, at least once); the ones it
        accepted stay consumed."""
        gone = [d for d in self.unsettled if pn.pn_delivery_link(d) == link]
        if not gone:
            return
        for d in gone:
            queue, held = self.unsettled.pop(d)
            self._outcome(queue, held, "unsettled", False)
        if not self.unsettled:
            self._settle_unit()

    def _settle_unit(self) -> None:
        """Every delivery of the unit of work has its outcome: MQCMIT of the gets accepted (the
        others are back on their queues already, or moved in the unit itself)."""
        assert self.conn is not None
        with self.srv.lock:
            self.srv.qm.commit(self.conn)

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
        if self.conn is not None and self.conn.hconn in srv.qm.conns and self.unsettled:
            # What the client accepted stays consumed; what it never settled goes back.
            for queue, held in list(self.unsettled.values()):
                self._outcome(queue, held, "unsettled", False)
            self.unsettled.clear()
            self._settle_unit()
        with srv.lock:
            if self.conn is not None and self.conn.hconn in srv.qm.conns:
                for entry in list(self.handles.values()):     # (a subscription per its lifetime)
                    try:
                        links.release(self, entry, closed=False)
                    except MQIError as e:
                        srv.log.write(*log_entry("AMQ6184W", qmgr=srv.name),
                                      f"AMQP client {self.peer}: its link to '{entry['address']}' could not be "
                                      f"released (reason {e.reason}).")
                self.handles.clear()
                srv.qm.disconnect(self.conn, commit=False)
        srv.store.sync()
        for s in (self.sock, self.wake_r, self.wake_w):
            try:
                s.close()
            except OSError:
                pass
        self.channel.connections.discard(self)
        self.done.set()

    def status_row(self) -> dict[str, Any]:
        started = mq_date_time(self.started_at)
        return {"CHANNEL": self.channel.obj.name, "CHLTYPE": "AMQP", "CLIENTID": self.container,
                "CONNAME": self.peer.split("(")[0], "STATUS": "RUNNING", "MSGSNT": self.sent,
                "MSGRCVD": self.received, "CHSTADA": started[0], "CHSTATI": started[1],
                "MCAUSER": self.conn.user if self.conn is not None else ""}
