"""The queue-manager server: the engine behind listeners, one thread per connection.

Why threads rather than an event loop: every MQI call is a request and a reply on one connection,
and a thread blocked in ``recv`` costs nothing while it waits; per call a thread does less work
than an event loop's callbacks, which is what the put/get rates are made of. The engine stays
sans-IO: calls into it are serialised by one lock, MQGET waits sleep on a per-queue condition of
that lock, and durability (group commit) happens after the lock is released so concurrent callers
share one fsync."""
from __future__ import annotations

import errno
import json
import os
import socket
import ssl
import threading
import traceback
import time
from typing import Any

from mqlite.catalogue import entry
from mqlite.channels.limits import channel_limits
from mqlite.channels.manager import ChannelManager
from mqlite.cluster import operations
from mqlite.cmq import CMQC as C
from mqlite.engine.clock import Clock, OffsetClock
from mqlite.engine.qmgr import QueueManager
from mqlite.memory import then_trim
from mqlite.mqsc.commands import Executor
from mqlite.net import unixsock
from mqlite.objects.model import MQObject
from mqlite.paths import QMPaths, clock_file, process_start, read_ini
from mqlite.qsg.service import STORE_KEY as QSG_STORE_KEY
from mqlite.qsg.service import QSGService
from mqlite.security import tls
from mqlite.server import svrconn
from mqlite.server.cmdserver import CommandServer
from mqlite.server.dispatch import Dispatcher
from mqlite.server.errlog import ErrorLog
from mqlite.server.handshakes import Handshakes
from mqlite.server.hooks import ServerHooks
from mqlite.server.listener import Listener, check_ports, listener_status, start_listener, stop_listener
from mqlite.server.monitor import StatisticsInterval, store_state
from mqlite.server.protocols import protocol_services
from mqlite.server.protosvc import handshake_failed
from mqlite.server.psagent import PubSubAgent
from mqlite.server.repman import CACHE_KEY, RepositoryManager
from mqlite.server.resources import ResourceMonitor
from mqlite.server.services import ServiceRunner
from mqlite.server.session import HELLO_TIMEOUT, Session
from mqlite.server.waits import QueueCondition
from mqlite.store.check import open_store
from mqlite.store.pager import StorePager, queue_buffers
from mqlite.store.sqlite import StoreUnavailable

IN_USE = 1.0              # a session is in use if it made a call in the last this many seconds
ACCEPT_BACKOFF = 0.2      # after accept() fails for want of descriptors, before trying again
HEARTBEAT_TICK = 0.5      # how often idle client conversations are looked at for heartbeats


class QMServer:
    def __init__(self, name: str, clock: Clock | None = None, accept_damage: bool = False) -> None:
        self.paths = QMPaths.of(name)
        self.name = name
        self.log = ErrorLog(self.paths.errors, name)
        threading.excepthook = self._thread_died
        self.store = open_store(self.paths.db, self.paths.pid, name, self.log.write, accept_damage)
        self.dispatcher = Dispatcher(self.store)   # serves parked connections' quick requests (server/dispatch.py)
        self.pager = StorePager(self.store, self.paths.scratch)
        ini = read_ini(self.paths.ini)
        self.qm = QueueManager(name, self.store, clock or OffsetClock(clock_file()), self.pager,
                               queue_buffers(ini, self.log.write))
        # One lock serialises the engine. Re-entrant: MQSC commands run under it and channel
        # operations they start take it again.
        self.lock = threading.RLock()
        self.conds: dict[str, QueueCondition] = {}
        self.channels = ChannelManager(self)
        self.channels.limits = channel_limits(ini, self.log.write)
        self.channels.clients = self.client_conversations
        self.repman = RepositoryManager(self, self.channels)
        self.psagent = PubSubAgent(self)
        self.listeners: dict[str, Listener] = {}
        self.channels.protocols = protocol_services(self)
        self.service_runner = ServiceRunner(self.paths, self.log.write,
                                            {p.service: p for p in self.channels.protocols.values()})
        self.qm.hooks = ServerHooks(self.conds, self.channels, self.repman, self.log, self.listeners)
        self.store.on_state = lambda state, why: store_state(self.log, self.name, state, why)
        self.executor = Executor(self.qm, self)
        self.sessions: set["Session"] = set()
        self.in_use = 0                     # sessions in use (IN_USE), counted by the heartbeat thread
        self.sessions_lock = threading.Lock()
        self.handshakes = Handshakes(self.log.write)    # connections not yet authenticated
        self.stopping, self.stopped = threading.Event(), threading.Event()
        self.unix_sock: socket.socket | None = None
        self.tls: ssl.SSLContext | None = None          # the listeners' TLS context (SSLKEYR), if any
        self.tls_for: tuple[str, str] = ("", "")         # the SSLKEYR and CERTLABL it was read from
        self.qsg: QSGService | None = None
        qsg_name, qsg_store = self.store.meta("qsg_name"), self.store.meta(QSG_STORE_KEY)
        if qsg_name and qsg_store:
            self.qsg = QSGService(self, qsg_name, qsg_store)
            self.qsg.attach()

    # --- lifecycle ----------------------------------------------------------------------------
    def start(self) -> None:
        stats = self.qm.recover()
        check_ports(list(self.qm.objects["LISTENER"].values()), self.log.write)    # (PortBusy before anything runs)
        self.refresh_ssl()
        if self.qsg is not None:
            self.qsg.start()
        cache = self.store.meta(CACHE_KEY)
        if cache:
            operations.restore(self.qm.cluster, json.loads(cache))
        self.log.write(*entry("AMQ8003I", name=self.name),
                       f"Recovered {stats['messages']} persistent messages on {stats['queues']} queues.")
        for obj in list(self.qm.objects["LISTENER"].values()):
            if obj["CONTROL"] in (C.MQSVC_CONTROL_Q_MGR, C.MQSVC_CONTROL_Q_MGR_START):
                err = self.start_listener(obj)
                if err:                  # (taken since check_ports looked: ended as any failed start)
                    raise OSError(err)
        self.service_runner.start_with_qmgr(list(self.qm.objects["SERVICE"].values()))
        if os.path.exists(self.paths.socket):
            os.unlink(self.paths.socket)
        us = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unixsock.bind(us, self.paths.socket)
        us.listen(128)
        self.unix_sock = us
        threading.Thread(target=self.accept_loop, args=(us, "bindings"), name="bindings", daemon=True).start()
        threading.Thread(target=self._heartbeats, name="heartbeats", daemon=True).start()
        with open(self.paths.pid, "w", encoding="ascii") as f:
            f.write(f"{os.getpid()} {process_start(os.getpid()) or ''}")
        with self.lock:
            self.channels.startup()
        self.command_server = CommandServer(self, self.executor)
        self.command_server.start()
        self.repman.start()
        self.psagent.start()
        self.statistics = StatisticsInterval(self)
        self.statistics.start()
        self.resources = ResourceMonitor(self).start()
        with self.lock:
            self.qm.events.started()                # STRSTPEV: Queue Manager Active

    def _heartbeats(self) -> None:
        """Client conversations' heartbeats (HBINT), checked twice a second: one thread for all,
        nothing on the request path but a timestamp. It counts the sessions in use too: idle
        connections, however many, do not stop the one busy application's thread polling."""
        while not self.stopping.wait(HEARTBEAT_TICK):
            with self.sessions_lock:
                sessions = list(self.sessions)
            now = time.monotonic()
            self.in_use = sum(1 for s in sessions if s.in_call or now - s.last_heard < IN_USE)
            for s in sessions:
                svrconn.heartbeat(s, now)

    def shutdown(self, immediate: bool, reconnect: bool = False) -> None:
        """End the queue manager: quiesce (wait for applications) or end immediately. With
        ``reconnect`` (endmqm -r) the connections of reconnectable clients end first, at once:
        their clients reconnect, to another queue manager or to this one when it is back."""
        if self.stopping.is_set():
            return
        if reconnect:
            with self.sessions_lock:
                movable = [s for s in self.sessions if s.conn is not None and s.kind == "tcp"
                           and s.conn.conn_opts & (C.MQCNO_RECONNECT | C.MQCNO_RECONNECT_Q_MGR)]
            for s in movable:
                s.kill()
        with self.lock:
            self.qm.events.stopping(not immediate)  # STRSTPEV: Queue Manager Not Active
            self.qm.quiescing = True
            for cond in self.conds.values():
                cond.wake_all()
        self.stopping.set()
        threading.Thread(target=self._finish, args=(immediate,), name="shutdown", daemon=True).start()

    def _finish(self, immediate: bool) -> None:
        if not immediate:
            while True:
                with self.sessions_lock:
                    apps = [s for s in self.sessions if s.conn is not None]
                if not apps:
                    break
                time.sleep(0.05)
        self.channels.shutdown()
        if self.qsg is not None:
            try:
                self.qsg.stop()
            except Exception as e:  # noqa: BLE001 - the shared store may be gone; end anyway
                self.log.write(*entry("MQL7005E"), repr(e))
        if getattr(self, "command_server", None) is not None:
            self.command_server.stop()
        self.repman.stop()
        self.repman.join(5)
        self.psagent.stop()
        self.psagent.join(5)
        for lst in list(self.listeners.values()):
            lst.close()
        self.listeners.clear()
        self.service_runner.stop_with_qmgr(list(self.qm.objects["SERVICE"].values()))
        if self.unix_sock is not None:
            self.unix_sock.close()
        with self.sessions_lock:
            sessions = [s for s in self.sessions if not s.control_only]
        for s in sessions:
            s.kill()   # control sessions (endmqm waiting for its answer) end with the process
        self.statistics.write()             # the last interval's statistics, as MQ writes them at its end
        self.store.abandon()
        with self.lock:
            try:
                self.store.close()
                self.pager.close()
            except StoreUnavailable as e:
                self.log.write(*entry("AMQ7463W", name=self.name),
                               f"Ending with work not written ({e}); none of it was acknowledged.")
        for p in (self.paths.socket, self.paths.pid):
            try:
                os.unlink(p)
            except OSError:
                pass
        self.log.write(*entry("AMQ8004I", name=self.name))
        self.stopped.set()

    # --- Services for MQSC (listeners) --------------------------------------------------------
    def write_statistics(self) -> int:
        """RESET QMGR TYPE(STATISTICS): the statistics interval ends now (server/monitor.py)."""
        return self.statistics.write()

    def start_listener(self, obj: MQObject) -> str | None:
        return start_listener(self.listeners, obj, self.accept_loop, self.log.write)

    def stop_listener(self, name: str) -> str | None:
        return stop_listener(self.listeners, name)

    def listener_status(self, name: str) -> dict[str, Any] | None:
        return listener_status(self.listeners, name)

    def start_service(self, obj: MQObject) -> str | None:
        return self.service_runner.start(obj)

    def stop_service(self, obj: MQObject) -> str | None:
        return self.service_runner.stop(obj)

    def service_status(self, name: str) -> dict[str, Any] | None:
        return self.service_runner.status(name)

    # --- connections --------------------------------------------------------------------------
    def accept_loop(self, sock: socket.socket, kind: str) -> None:
        """Until the socket is closed: a quiescing queue manager goes on answering (dspmq, endmqm
        -i, an application told MQRC_Q_MGR_QUIESCING), not just the first to come."""
        said = False
        while True:
            try:
                s, addr = sock.accept()
            except OSError as e:
                if self.stopping.is_set() or sock.fileno() < 0 or e.errno in (errno.EBADF, errno.EINVAL):
                    return                      # the listener was closed
                # Out of file descriptors (EMFILE/ENFILE), or memory: the pending connection
                # waits in the backlog; the listener keeps going and says so once.
                if not said:
                    self.log.write(*entry("AMQ9213E"),
                                   f"The return code from the TCP/IP accept() call was {e.errno} ({e.strerror}). "
                                   "The listener goes on accepting once resources are available.")
                    said = True
                time.sleep(ACCEPT_BACKOFF)
                continue
            said = False
            if kind == "tcp":
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                # TCP keepalive (qm.ini TCP KeepAlive=Yes, the system's timings as KAINT(AUTO) on
                # distributed MQ): a client whose host vanished is found and its work backed out.
                s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            peer = f"{addr[0]}({addr[1]})" if kind == "tcp" else "bindings"
            session = Session(self, s, kind, peer)
            with self.sessions_lock:
                self.sessions.add(session)
            threading.Thread(target=then_trim(session.run), name=f"conn-{peer}", daemon=True).start()

    def refresh_ssl(self) -> None:
        """(Re)build the TLS context from SSLKEYR and CERTLABL: at start, on REFRESH SECURITY
        TYPE(SSL), and when a TLS connection arrives after they changed with no TLS conversation
        running (``_tls_context``). A repository that cannot be used leaves TLS channels refused,
        and says why."""
        stem = self.qm.qmgr["SSLKEYR"]
        self.tls_for = (stem, self.qm.qmgr["CERTLABL"])
        if not stem:
            self.tls = None
            return
        label = self.qm.qmgr["CERTLABL"] or f"ibmwebspheremq{self.name.lower()}"
        try:
            self.tls = tls.server_context(stem, label)
        except tls.TLSConfigError as e:
            self.tls = None
            self.log.write(*entry("AMQ9657E", channel="*"), e.text)

    def _tls_context(self) -> ssl.SSLContext | None:
        """The context a new TLS connection gets. MQ reads the key repository when a channel first
        needs it and keeps it while TLS channels run: SSLKEYR or CERTLABL altered since it was read
        (or a repository that could not be read) is read again when no TLS conversation is
        running; while one is, only REFRESH SECURITY TYPE(SSL) changes it."""
        wanted = (self.qm.qmgr["SSLKEYR"], self.qm.qmgr["CERTLABL"])
        if wanted != self.tls_for or (self.tls is None and wanted[0]):
            with self.sessions_lock:
                running = any(s.tls for s in self.sessions)
            if not running:
                self.refresh_ssl()
        return self.tls

    def start_tls(self, session: Session) -> bool:
        """A client or channel that opened with a TLS handshake (its first byte 0x16): complete it
        with the listener's context. False: refused (and logged)."""
        context = self._tls_context()
        if context is None:
            self.log.write(*entry("AMQ9657E", channel="????"),
                           f"A TLS connection from {session.peer} was refused: the queue manager has no usable key "
                           "repository (SSLKEYR).")
            return False
        try:
            session.sock.settimeout(HELLO_TIMEOUT)
            session.sock = context.wrap_socket(session.sock, server_side=True)
        except (ssl.SSLError, OSError) as e:
            handshake_failed(self, e, session.peer)       # (the channel has not said its name yet)
            return False
        session.tls = True
        return True

    # --- Services for MQSC (channels) ---------------------------------------------------------
    def start_channel(self, name: str) -> str | None:
        return self.channels.start_channel(name)

    def stop_channel(self, name: str, mode: str, status: str) -> str | None:
        """STOP CHANNEL. A SVRCONN's client conversations end (their next call: 2009, their units
        of work backed out); STATUS(STOPPED) then refuses new ones (2537) until START CHANNEL."""
        chl = self.qm.lookup("CHANNEL", name)
        if chl is None or chl.kind != "SVRCONN":
            return self.channels.stop_channel(name, mode, status)
        with self.sessions_lock:
            ended = svrconn.end_conversations(list(self.sessions), name)
        return None if ended and status != "STOPPED" else self.channels.stop_channel(name, mode, status)

    def ping_channel(self, name: str) -> str | None:
        return self.channels.ping_channel(name)

    def reset_channel(self, name: str, seqnum: int) -> str | None:
        return self.channels.reset_channel(name, seqnum)

    def resolve_channel(self, name: str, action: str) -> str | None:
        return self.channels.resolve_channel(name, action)

    def channel_status(self, pattern: str, client: str | None = None) -> list[dict[str, Any]]:
        """Message and MQTT channels' statuses, then client conversations' as SVRCONN instances."""
        with self.sessions_lock:
            sessions = list(self.sessions) if client is None else []
        return self.channels.channel_status(pattern, client) + svrconn.status_rows(sessions, pattern)

    def stop_connection(self, hconn: int) -> str | None:
        with self.sessions_lock:
            return svrconn.stop_connection(list(self.sessions), hconn)

    def purge_channel(self, name: str, client: str) -> str | None:
        return self.channels.protocols[getattr(self.qm.lookup("CHANNEL", name), "kind", "MQTT")].purge(name, client)

    def _thread_died(self, args: threading.ExceptHookArgs) -> None:
        """A thread ended by an exception nothing caught: in the error log (stderr is /dev/null)."""
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "?"
        self.log.write(*entry("AMQ6184W", qmgr=self.name), f"Unexpected error ended thread {name}.\n" + "".join(
            traceback.format_exception(args.exc_type, args.exc_value, args.exc_traceback)))

    def cond_for(self, queue: str) -> QueueCondition:
        if (cond := self.conds.get(queue)) is None:
            cond = self.conds[queue] = QueueCondition(self.lock)
        return cond

    def client_conversations(self) -> int:
        """Client connections that are channel instances (those through a SVRCONN)."""
        with self.sessions_lock:
            return sum(1 for s in self.sessions if s.channel)

    def forget(self, session: "Session") -> None:
        with self.sessions_lock:
            self.sessions.discard(session)
