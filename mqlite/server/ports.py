"""What the MQI verbs (server/verbs.py) and the HELLO (server/hello.py) use of the session that
serves a connection and of its server: the typed edge between them and server/session.py and
server/server.py, which are the implementations (``Session``, ``QMServer``)."""
from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from typing import Any, Protocol

from mqlite.channels.manager import ChannelManager
from mqlite.engine.core import Conn
from mqlite.engine.qmgr import QueueManager
from mqlite.mqsc.commands import Executor
from mqlite.net import protocol as P
from mqlite.paths import QMPaths
from mqlite.server.errlog import ErrorLog
from mqlite.server.handshakes import Handshakes
from mqlite.server.waits import QueueCondition
from mqlite.store.sqlite import Store


class ProtocolHost(Protocol):
    """The queue-manager server as a protocol channel's service (MQTT, AMQP: server/protocols.py)
    uses it: the engine under its lock, the store, the error log, the handshakes in progress, and
    a queue's condition to wait on."""
    name: str
    qm: QueueManager
    store: Store
    lock: threading.RLock
    log: ErrorLog
    handshakes: Handshakes

    def cond_for(self, queue: str) -> QueueCondition: ...


class MonitorHost(Protocol):
    """The server as its statistics interval (server/monitor.py) and resource monitor
    (server/resources.py) use it."""
    qm: QueueManager
    lock: threading.RLock
    stopping: threading.Event
    paths: QMPaths
    channels: ChannelManager


class ServerPort(Protocol):
    """The queue-manager server, as its sessions' verbs use it."""
    qm: QueueManager
    store: Store
    lock: threading.RLock
    log: ErrorLog
    executor: Executor
    stopping: threading.Event
    sessions_lock: threading.Lock
    paths: QMPaths

    @property
    def sessions(self) -> set[Any]: ...

    def cond_for(self, queue: str) -> QueueCondition: ...

    def shutdown(self, immediate: bool, reconnect: bool = False) -> None: ...


class SessionHost(ServerPort, Protocol):
    """The server as a session's thread uses it besides its verbs: the handshakes it must finish,
    TLS, the sessions in use, cluster answers a call may wait for, and its leaving."""
    handshakes: Handshakes
    in_use: int
    dispatcher: Any

    @property
    def repman(self) -> Any: ...

    def start_tls(self, session: Any) -> bool: ...

    def forget(self, session: Any) -> None: ...


class SessionPort(Protocol):
    """One connection's session, as its verbs use it: the engine connection, the socket, and
    ``call`` (an engine call under the lock, its journal entries due before the reply)."""
    conn: Conn | None
    sock: socket.socket
    reader: P.FrameReader | None
    due: int
    after_reply: Callable[[], None] | None
    maxmsgl: int | None
    control_user: str
    closed: bool
    calls: int
    bytes_in: int
    inline: bool

    @property
    def server(self) -> ServerPort: ...

    def call(self, fn: Callable[..., Any], *args: Any) -> Any: ...

    def failed(self, e: Any) -> bytes: ...

    def answer(self, fn: Callable[..., Any], *args: Any) -> bytes: ...
