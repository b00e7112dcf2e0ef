"""One client or local-bindings connection of the queue-manager server (server/server.py), served
by a thread of its own: the HELLO, then frame after frame through server/verbs.py's ``DISPATCH``,
each engine call under the engine lock (``call``), each reply sent once what the call journalled
is durable (``_reply``, handed to the journal writer when it is small)."""
from __future__ import annotations

import os
import socket
import threading
import time
import traceback
from typing import Any

from mqlite.catalogue import entry
from mqlite.cluster.state import RESOLVE_WAIT, ClusterPending
from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.engine.core import Conn
from mqlite.net import protocol as P, verbs as V
from mqlite.server.hello import greet
from mqlite.server.ports import SessionHost
from mqlite.server.consume import consume
from mqlite.server.dispatch import QUICK, WouldBlock
from mqlite.server.outbox import Outbox
from mqlite.server.verbs import DISPATCH
from mqlite.store.sqlite import StoreUnavailable

ASYNC_SHARED_BATCH = 200  # asynchronous puts to shared queues written in one transaction at most
SPIN_SESSIONS = 1         # the server polls for requests only while one session is in use
FRAME_TIMEOUT = float(os.environ.get("MQLITE_FRAME_TIMEOUT", "60"))   # a frame begun must go on arriving
FRAME_OVERHEAD = 65536    # what a request carries beside the message (descriptors, options)
DEFER_MAX = 65536         # a session reads its next request while no more than this waits to be sent
HELLO_TIMEOUT = 10.0      # the whole HELLO must arrive within this
HANDLERS = {**DISPATCH, P.CONSUME: consume}
PARK = os.environ.get("MQLITE_PARK", "yes") != "no"    # park busy connections with the dispatcher
PARK_CHECK = 1.0          # a parked thread looks this often whether its connection was killed


class Session:
    """One client or bindings connection, served by its own thread."""

    def __init__(self, server: SessionHost, sock: socket.socket, kind: str, peer: str) -> None:
        self.server = server
        self.sock = sock
        self.kind = kind
        self.peer = peer
        self.conn: Conn | None = None
        self.control_only = False
        self.control_user = ""
        self.closed = False
        self.reader: P.FrameReader | None = None
        self.after_reply: Any = None     # work to start once the current reply has been sent
        self.channel = ""                # the SVRCONN a client connected through
        self.maxmsgl: int | None = None  # a client channel's negotiated MAXMSGL (bindings: none)
        self.hbint = 0                   # a client channel's negotiated heartbeat interval (0: none)
        self.hb_sent = 0.0               # when a heartbeat went to the client that has not answered
        self.last_heard = time.monotonic()
        self.in_call = True              # between reading a request and sending its reply
        self.tls = False                 # the connection is TLS (self.sock an SSLSocket)
        self.due = 0                     # journal ticket the current call's reply must wait for
        self.outbox = Outbox(sock, server.store, peer)    # replies on their way, in order
        # DISPLAY CHSTATUS of a SVRCONN instance: when it began, the calls served (MSGS), bytes.
        self.started_at = time.time()
        self.calls = 0
        self.bytes_in = 0
        self.bytes_out = 0
        self.frames_out = 0
        # Parked with the dispatcher between requests (server/dispatch.py): served there, or handed back.
        self.inline = False              # a request being served by the dispatcher's thread
        self.handed: tuple[Any, ...] | None = None   # what the dispatcher handed back to do first
        self.unparked = threading.Event()
        self.parked_fd = -1

    def kill(self) -> None:
        self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def run(self) -> None:
        srv = self.server
        try:
            with srv.handshakes.pending(self):
                if self.kind == "tcp" and P.starts_tls(self.sock, HELLO_TIMEOUT) and not srv.start_tls(self):
                    return
                ftype, payload = P.recv_frame(self.sock, max_frame=65536, deadline=time.monotonic() + HELLO_TIMEOUT)
                if ftype != P.HELLO:
                    raise P.ProtocolError(f"first frame type {ftype:#x} is not HELLO")
                self.calls, self.bytes_in = 1, len(payload)      # MQCONN counts as a call, as in MQ
                if not greet(self, P.decode_json(payload)):
                    return
            self.sock.settimeout(None)
            self.outbox.sock = self.sock          # (wrapped by TLS in the handshake)
            limit = P.MAX_FRAME if self.maxmsgl is None else self.maxmsgl + FRAME_OVERHEAD
            reader = P.FrameReader(self.sock, max_frame=limit, frame_timeout=FRAME_TIMEOUT)
            self.reader = reader
            while not self.closed:
                handed = self._park() if self._parkable() else None
                if handed is None:
                    # Poll briefly for the next request only while a single application is busy:
                    # with more, polling threads take the interpreter lock and CPU from the others.
                    reader.spin = P.SERVER_SPIN if min(srv.in_use, len(srv.sessions)) <= SPIN_SESSIONS else 0.0
                    self.in_call = False
                    ftype, payload = reader.read()
                    self._heard(payload)
                elif handed[0] == "error":
                    raise handed[1]
                elif handed[0] == "reply":
                    self._reply(handed[1], handed[2], wait=True)
                    self._after()
                    continue
                else:
                    ftype, payload = handed[1], handed[2]
                if not self._serve(ftype, payload):
                    return
        except P.ProtocolError as e:
            srv.log.write(*entry("AMQ9504E", channel=self.channel or "????"),
                          f"{e} (from {self.peer}). The connection was closed; the queue manager continues.")
        except (ConnectionError, OSError, socket.timeout) as e:
            if self.conn is not None and not self.closed and not srv.stopping.is_set():
                srv.log.write(*entry("AMQ9209E", peer=self.peer),
                              f"The application ended without MQDISC ({e.__class__.__name__}); "
                              "its unit of work was backed out.")
        except StoreUnavailable:
            pass            # the queue manager is ending with a write it could not make: not answered
        except Exception:  # a defect: log it, drop this connection, keep the queue manager running
            srv.log.write(*entry("AMQ6184W", qmgr=srv.qm.name),
                          f"Unexpected error serving {self.peer}.\n{traceback.format_exc()}")
        finally:
            if self.conn is not None:
                with srv.lock:
                    if self.conn.hconn in srv.qm.conns:
                        srv.qm.disconnect(self.conn, commit=False)
                try:
                    srv.store.sync()
                except StoreUnavailable:
                    pass
            self.conn = None
            try:
                self.sock.close()
            except OSError:
                pass
            srv.forget(self)

    def _heard(self, payload: bytes) -> None:
        """A request arrived: the call in progress, DISPLAY CHSTATUS's figures, the heartbeat."""
        self.in_call = True
        self.last_heard, self.hb_sent = time.monotonic(), 0.0
        self.calls += 1
        self.bytes_in += len(payload)

    def _serve(self, ftype: int, payload: bytes) -> bool:
        """Serve one request; False once the connection has ended (MQDISC)."""
        srv = self.server
        if ftype == P.HEARTBEAT | P.REPLY or ftype == P.CANCEL:    # (a CANCEL after its wait ended)
            return True
        if ftype == P.DISC:
            if self.conn is not None:
                self.call(self._disconnect)
            # The instance ends with MQDISC, before its answer: a connection made as soon as the
            # application has it must find the slot free (MAXINST, MAXINSTC, MaxChannels).
            srv.forget(self)
            self._reply(ftype, V.status(C.MQCC_OK, 0), wait=True)
            return False
        handler = HANDLERS.get(ftype)
        if handler is None:
            raise P.ProtocolError(f"unknown frame type {ftype:#x}")
        conn = self.conn
        if conn is not None and conn.shared_async and ftype != P.PUT_ASYNC:
            with srv.lock:      # the application's next call sees its asynchronous puts done
                srv.qm.flush_shared_async(conn)
        if self.control_only != (ftype in (P.MQSC, P.CONTROL)):
            raise P.ProtocolError(f"frame type {ftype:#x} not allowed on this connection")
        reply = handler(self, payload)
        reader = self.reader
        if reply is not None:
            if self.inline and (self.after_reply is not None or self.outbox.bytes + len(reply) + 5 > DEFER_MAX):
                self.handed = ("reply", ftype, reply)    # sent by its own thread, after waiting
                return True
            self._reply(ftype, reply, wait=self.after_reply is not None)
            self._after()
        elif self.conn is not None and reader is not None and not reader.buffered():
            if self.conn.shared_async:
                with srv.lock:
                    srv.qm.flush_shared_async(self.conn)
            if self.conn.ticket:
                srv.store.sync(self.conn.ticket)   # a burst of asynchronous puts has ended
        elif self.conn is not None and len(self.conn.shared_async) >= ASYNC_SHARED_BATCH:
            with srv.lock:
                srv.qm.flush_shared_async(self.conn)
        return True

    def _after(self) -> None:
        if self.after_reply is not None:
            self.after_reply()
            self.after_reply = None

    # --- parked between requests (server/dispatch.py) ------------------------------------------
    def _parkable(self) -> bool:
        """Whether to park this connection with the dispatcher until its next request: while
        several sessions are in use (one alone polls instead), for an MQI connection on plain TCP
        or bindings with nothing already read."""
        srv = self.server
        reader = self.reader
        return (PARK and not self.tls and self.conn is not None and not self.control_only
                and reader is not None and not reader.buffered()
                and min(srv.in_use, len(srv.sessions)) > SPIN_SESSIONS and srv.dispatcher.usable)

    def _park(self) -> tuple[Any, ...] | None:
        """Wait, parked, until the dispatcher hands the connection back: what it handed (a frame
        to serve, a reply to send, an error to raise), or None (read the next request here)."""
        dispatcher = self.server.dispatcher
        self.in_call = False
        self.handed = None
        self.unparked.clear()
        if not dispatcher.park(self):
            return None
        while not self.unparked.wait(PARK_CHECK):
            if self.closed and dispatcher.unpark(self):
                return None
        handed, self.handed = self.handed, None
        return handed

    def serve_parked(self) -> bool:
        """(The dispatcher's thread.) Read what has arrived and serve the quick requests in it;
        True to stay parked, False to hand the connection back to its thread (``handed``: what
        it is to do first; None: read from the socket)."""
        reader = self.reader
        assert reader is not None
        try:
            if not reader.fill():
                return False                  # the partner closed: its thread finds that
        except BlockingIOError:
            return True
        except OSError:
            return False
        dispatcher = self.server.dispatcher
        while True:
            try:
                frame = reader.whole()
            except P.ProtocolError as e:
                self.handed = ("error", e)
                return False
            if frame is None:
                return not reader.buffered()    # a frame begun: its thread reads the rest, timed
            ftype, payload = frame
            self._heard(payload)
            if ftype not in QUICK:
                self.handed = ("frame", ftype, payload)
                return False
            self.inline = True
            try:
                self._serve(ftype, payload)
            except WouldBlock:
                self.handed = ("frame", ftype, payload)
            except Exception as e:   # its thread raises it where it would have arisen
                self.handed = ("error", e)
            finally:
                self.inline = False
            if self.handed is not None:
                return False
            dispatcher.served += 1
            self.in_call = False
            if not reader.buffered():
                return True

    # --- calls --------------------------------------------------------------------------------
    def call(self, fn: Any, *args: Any) -> Any:
        """Run an engine call under the lock, then make its journal entries durable before replying."""
        srv = self.server
        conn = self.conn
        assert conn is not None
        with srv.lock:
            try:
                result = fn(conn, *args)
            except ClusterPending as e:
                if self.inline:
                    raise WouldBlock from None
                # The first use of a cluster name on a partial repository: wait (up to 10 s) for a
                # full repository's answer, then try once more.
                deadline = time.monotonic() + RESOLVE_WAIT
                cl = srv.qm.cluster
                while not cl.repo.any_answered(e.kind, e.name) and time.monotonic() < deadline \
                        and not srv.stopping.is_set():
                    srv.repman.answered.wait(min(0.5, max(0.0, deadline - time.monotonic())))
                conn.cluster_waited = True
                try:
                    result = fn(conn, *args)
                finally:
                    conn.cluster_waited = False
            ticket = conn.ticket
        if ticket > self.due:
            self.due = ticket          # the reply goes once this is durable (``_reply``)
        return result

    def _reply(self, ftype: int, reply: bytes, wait: bool = False) -> None:
        """Send a reply once what the call journalled is durable (server/outbox.py). It joins the
        connection's outbox and goes with the fsync that covers it, sent by whichever thread
        makes that: the journal writer, this thread when it writes itself (nobody else is
        writing), or the dispatcher once it has served its round of requests. This thread goes
        back to reading requests at once, unless the reply must have gone first (``wait``:
        MQDISC's answer, work to start after it) or the replies waiting come to more than
        DEFER_MAX (a large message, a client slow to read): then it waits for them to go. A TLS
        connection's replies are sent from here after the fsync: its record layer must not be
        written from two threads."""
        due, self.due = self.due, 0
        store = self.server.store
        data = P.frame(ftype | P.REPLY, reply)
        self.bytes_out += len(data)
        self.frames_out += 1
        if self.tls:
            store.sync(due)
            with self.outbox.lock:
                self.sock.sendall(data)
            return
        outbox = self.outbox
        due = outbox.add(due, data)
        if not self.inline and (wait or outbox.bytes > DEFER_MAX):
            store.sync(due)
            outbox.drain(0 if wait else DEFER_MAX, lambda: self.closed)
        elif self.inline and due > store.durable_ticket:
            # (The dispatcher makes one write for its round of requests, once it has served them.)
            if store.when_durable(due, outbox.flush, defer=True):
                self.server.dispatcher.owe(due)
            else:
                outbox.flush()
        elif due <= store.durable_ticket or not store.when_durable(due, outbox.flush):
            outbox.flush()

    def _disconnect(self, conn: Conn) -> None:
        self.server.qm.disconnect(conn, commit=True)
        self.conn = None

    def failed(self, e: MQIError) -> bytes:
        return V.status(e.comp, e.reason)

    def answer(self, fn: Any, *args: Any) -> bytes:
        """An engine call whose reply is only the completion and reason codes."""
        try:
            self.call(fn, *args)
        except MQIError as e:
            return self.failed(e)
        return V.status(C.MQCC_OK, 0)
