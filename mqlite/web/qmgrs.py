"""How mqweb reaches the queue managers of its data directory: through their normal interfaces,
never their stores. ``Connections`` keeps MQI connections (local bindings, through the pymqi
face) by queue manager, made as mqweb's own user (the server context MQWebAdmin and
MQWebAdminRO run in); an MQWebUser's operations go through the same connections in the caller's
context: commands carry the caller's user id as their identity context, which the command
server checks, and queues are opened with the caller as the alternate user. A connection is
taken for one request and given back; one that broke is dropped.

``registry_check`` asks the queue managers' control interface (the one setmqusr uses) whether a
user and password are right, and the user's groups.

Administration is the command server's: ``mqsc`` sends a PCF Escape (MQCMD_ESCAPE) carrying the
MQSC text and returns the response text and whether the command succeeded, as MQ's mqweb does."""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mqlite import pymqi
from mqlite.catalogue import message
from mqlite.net.client import control_call
from mqlite.paths import QMPaths, all_qmgrs
from mqlite.pymqi import CMQC, CMQCFC

BROKEN = (CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_Q_MGR_NOT_AVAILABLE, CMQC.MQRC_HCONN_ERROR,
          CMQC.MQRC_Q_MGR_QUIESCING, CMQC.MQRC_Q_MGR_STOPPING, CMQC.MQRC_CONNECTION_QUIESCING)
IDLE_PER_KEY = 16
KEPT_LIMIT = 32                    # queue handles a connection keeps open
HANDLE_IDLE = 0.5                  # seconds a kept handle stays open unused
QUIESCE_EVERY = 4                  # sweeps between asking idle connections' queue managers (1 s)
GATEWAY_WAIT_MS = 20000            # how long a remote queue manager's answer is waited for
NO_TEXT = {CMQC.MQRC_NOT_AUTHORIZED: message("AMQ8135E")}    # runmqsc's words for a refused command


class NotFound(LookupError):
    """No queue manager of that name in the data directory."""


class NotRunning(RuntimeError):
    """The queue manager exists but is not running."""


class Refused(PermissionError):
    """The queue manager refused mqweb's connection (MQRC_NOT_AUTHORIZED at MQCONN)."""


def state(name: str) -> str:
    """A queue manager's state as mqweb reports it: "running" or "ended"."""
    return "running" if QMPaths.of(name).running_pid() else "ended"


def known() -> list[str]:
    return all_qmgrs()


def control(name: str, op: dict[str, Any]) -> dict[str, Any] | None:
    return control_call(QMPaths.of(name).socket, name, op, "mqweb")


def registry_check(user: str, password: str, hint: str = "") -> tuple[str, tuple[str, ...]] | None:
    """The user (as the registry names it) and its groups when the password is right, else None.
    Asked of the running queue managers, ``hint`` (the one the request names) first; the first
    that knows the user decides."""
    names = [n for n in known() if n != hint]
    for name in ([hint] if hint in known() else []) + names:
        if state(name) != "running":
            continue
        reply = control(name, {"op": "authenticate", "user": user, "password": password})
        if not reply or not reply.get("ok") or not reply.get("known"):
            continue
        return (str(reply["user"]), tuple(reply["groups"])) if reply.get("valid") else None
    return None


class KeptHandles:
    """A connection's open queue handles by what opened them, kept while requests keep using them:
    a DELETE or GET then costs its gets alone, not an MQOPEN and MQCLOSE as well. Closed after
    HANDLE_IDLE seconds unused (``close_idle``), before mqweb runs a command that changes
    something, and when the connection ends."""

    def __init__(self) -> None:
        self.entries: dict[tuple[Any, ...], tuple[Any, float]] = {}      # key: (handle, last used)

    def get(self, qm: Any, od: Any, key: tuple[Any, ...], options: int) -> Any:
        """The handle for ``key``, opened with ``od`` and ``options`` at first use."""
        entry = self.entries.get(key)
        q = entry[0] if entry is not None else None
        if q is None:
            if len(self.entries) >= KEPT_LIMIT:
                self.drop(next(iter(self.entries.values()))[0])
            q = pymqi.Queue(qm, od, options)
        self.entries[key] = (q, time.monotonic())
        return q

    def drop(self, q: Any) -> None:
        """Close a kept handle (one that failed, or an idle one)."""
        for key in [k for k, v in self.entries.items() if v[0] is q]:
            del self.entries[key]
        try:
            q.close()
        except pymqi.MQMIError:
            pass

    def close_idle(self, idle_for: float) -> None:
        stale = time.monotonic() - idle_for
        for q in [v[0] for v in self.entries.values() if v[1] <= stale]:
            self.drop(q)


class WebConnection(pymqi.QueueManager):
    """One of mqweb's connections: a pymqi connection with what mqweb keeps on it, its queue
    handles and its PCFExecute objects (one reply queue each) by remote queue manager and user."""

    def __init__(self) -> None:
        super().__init__(None)
        self.handles = KeptHandles()
        self.pcfs: dict[tuple[str, str], Any] = {}


def _answers(qm: Any) -> bool:
    """Whether the connection's queue manager still serves it: an MQOPEN of the queue manager
    with MQOO_FAIL_IF_QUIESCING (2161 while it quiesces; a broken connection is over too)."""
    try:
        pymqi.Queue(qm, pymqi.OD(ObjectType=CMQC.MQOT_Q_MGR),
                    CMQC.MQOO_INQUIRE | CMQC.MQOO_FAIL_IF_QUIESCING).close()
    except pymqi.MQMIError as e:
        return e.reason not in BROKEN
    except Exception:  # noqa: BLE001 - the socket went: not a connection to keep
        return False
    return True


class Connections:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.idle: dict[str, list[WebConnection]] = {}
        self.ended = threading.Event()
        self.sweeper: threading.Thread | None = None

    def sweep(self, idle_for: float = HANDLE_IDLE) -> None:
        """Close the kept queue handles of the connections not in use that have been idle
        ``idle_for`` seconds (0: all of them)."""
        with self.lock:
            for pool in self.idle.values():
                for qm in pool:
                    qm.handles.close_idle(idle_for)

    def _sweeping(self) -> None:
        ticks = 0
        while not self.ended.wait(HANDLE_IDLE / 2):
            self.sweep()
            ticks += 1
            if ticks % QUIESCE_EVERY == 0:
                self.leave_quiescing()

    def leave_quiescing(self) -> None:
        """Disconnect the idle connections of queue managers that are quiescing (endmqm), as MQ's
        own applications do when told so: a kept connection must not hold a controlled end."""
        with self.lock:
            kept = [(key, qm) for key, pool in self.idle.items() for qm in pool]
        gone = [(key, qm) for key, qm in kept if not _answers(qm)]
        if not gone:
            return
        with self.lock:
            for key, qm in gone:
                pool = self.idle.get(key, [])
                if qm in pool:
                    pool.remove(qm)
        for _key, qm in gone:
            try:
                qm.disconnect()
            except Exception:  # noqa: BLE001 - a broken connection goes anyway
                pass

    def _connect(self, qmgr: str) -> WebConnection:
        if qmgr not in known():
            raise NotFound(qmgr)
        if state(qmgr) != "running":
            raise NotRunning(qmgr)
        qm = WebConnection()
        cno = pymqi.CNO(Version=CMQC.MQCNO_VERSION_7, ApplName=b"mqweb")
        try:
            qm.connect_with_options(qmgr, cno=cno)
        except pymqi.MQMIError as e:
            if e.reason == CMQC.MQRC_NOT_AUTHORIZED:
                raise Refused(qmgr) from None
            if e.reason in BROKEN:
                raise NotRunning(qmgr) from None
            raise
        return qm

    @contextmanager
    def connection(self, qmgr: str, fresh: bool = False) -> Iterator[WebConnection]:
        """A connection to ``qmgr`` for the length of a request (``fresh``: a new one, not one
        kept from an earlier request)."""
        key = qmgr
        with self.lock:
            if self.sweeper is None:
                self.sweeper = threading.Thread(target=self._sweeping, name="mqweb-sweeper", daemon=True)
                self.sweeper.start()
            pool = self.idle.get(key) or []
            qm = pool.pop() if pool and not fresh else None
        if qm is None:
            qm = self._connect(qmgr)
        healthy = True
        try:
            yield qm
        except pymqi.MQMIError as e:
            healthy = e.reason not in BROKEN
            raise
        except Exception:
            healthy = False
            raise
        finally:
            with self.lock:
                pool = self.idle.setdefault(key, [])
                if healthy and len(pool) < IDLE_PER_KEY:
                    pool.append(qm)
                    qm = None
            if qm is not None:
                try:
                    qm.disconnect()
                except Exception:  # noqa: BLE001 - a broken connection goes anyway
                    pass

    def close(self) -> None:
        self.ended.set()
        with self.lock:
            pools, self.idle = list(self.idle.values()), {}
        for pool in pools:
            for qm in pool:
                try:
                    qm.disconnect()
                except Exception:  # noqa: BLE001
                    pass


class NoAnswer(TimeoutError):
    """A remote queue manager's command server did not answer through the gateway in time."""


class AsUser:
    """The command queue, put to with the caller's user id as the message's identity context: the
    command server checks that user's authority (MQWebUser's context)."""

    def __init__(self, qm: Any, remote: str, user: str) -> None:
        self.user = user.encode("utf-8")[:12]
        self.queue = pymqi.Queue(qm, pymqi.OD(ObjectName=b"SYSTEM.ADMIN.COMMAND.QUEUE", ObjectQMgrName=remote.encode()),
                                 CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_IDENTITY_CONTEXT | CMQC.MQOO_FAIL_IF_QUIESCING)

    def put(self, body: bytes, md: Any, pmo: Any) -> None:
        md.UserIdentifier = self.user
        pmo.Options |= CMQC.MQPMO_SET_IDENTITY_CONTEXT
        self.queue.put(body, md, pmo)


def pcf_for(qm: WebConnection, remote: str = "", user: str = "") -> Any:
    """The connection's PCFExecute for commands to ``remote`` (a queue manager behind a gateway)
    as ``user`` (none: mqweb's own): one reply queue each, made at first use."""
    pcf = qm.pcfs.get((remote, user))
    if pcf is None:
        pcf = pymqi.PCFExecute(qm, response_wait_interval=GATEWAY_WAIT_MS if remote else 30000,
                               dynamic_queue_name=b"SYSTEM.REST.REPLY.*",     # (as MQ's mqweb's replies)
                               command_queue_qmgr=remote.encode(),
                               command_queue=AsUser(qm, remote, user) if user else None)
        qm.pcfs[(remote, user)] = pcf
    return pcf


def mqsc(qm: WebConnection, command: str, remote: str = "", user: str = "") -> tuple[str, bool]:
    """Run one MQSC command through the command server (PCF Escape): its response text, and
    whether it succeeded. ``remote``: the queue manager the command is for when ``qm`` is a
    gateway (the command goes to its SYSTEM.ADMIN.COMMAND.QUEUE through the gateway's channels,
    the answer comes back to a queue on the gateway); ``user``: the caller whose authority the
    command server checks (MQWebUser), none for mqweb's own."""
    pcf = pcf_for(qm, remote, user)
    responses: list[tuple[dict[int, Any], Any]] = []
    ok, reason = True, 0
    try:
        pcf.run(CMQCFC.MQCMD_ESCAPE, {CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                                      CMQCFC.MQCACF_ESCAPE_TEXT: command.encode()}, responses=responses)
    except pymqi.MQMIError as e:
        if remote and e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
            raise NoAnswer(remote) from None
        if not responses or e.reason in BROKEN:
            raise
        ok, reason = False, e.reason
    texts = []
    for values, _cfh in responses:
        text = values.get(CMQCFC.MQCACF_ESCAPE_TEXT, b"")
        texts.append(text.decode("utf-8", "replace") if isinstance(text, (bytes, bytearray)) else str(text))
    out = "\n".join(t.rstrip() for t in texts if t)
    if not out and reason:
        # The command server refused the command itself (no MQSC text): runmqsc's message for it.
        out = NO_TEXT.get(reason, message("AMQ8101S", reason=reason))
    return out, ok
