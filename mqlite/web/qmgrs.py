"""How mqweb reaches the queue managers of its data directory: through their normal interfaces,
never their stores. ``Connections`` keeps MQI connections (local bindings, through the pymqi
face) by queue manager and caller, the caller's user and password given as the connection's
MQCSP, so the queue manager's CONNAUTH rules judge the caller and its OAM what the caller does.
A connection is taken for one request and given back; one that broke is dropped.

Administration is the command server's: ``mqsc`` sends a PCF Escape (MQCMD_ESCAPE) carrying the
MQSC text and returns the response text and whether the command succeeded, as MQ's mqweb does."""
from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mqlite import pymqi
from mqlite.paths import QMPaths, all_qmgrs
from mqlite.pymqi import CMQC, CMQCFC

BROKEN = (CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_Q_MGR_NOT_AVAILABLE, CMQC.MQRC_HCONN_ERROR,
          CMQC.MQRC_Q_MGR_QUIESCING, CMQC.MQRC_Q_MGR_STOPPING, CMQC.MQRC_CONNECTION_QUIESCING)
IDLE_PER_KEY = 4
GATEWAY_WAIT_MS = 20000            # how long a remote queue manager's answer is waited for


class NotFound(LookupError):
    """No queue manager of that name in the data directory."""


class NotRunning(RuntimeError):
    """The queue manager exists but is not running."""


class Refused(PermissionError):
    """The queue manager refused the caller's credentials (MQRC_NOT_AUTHORIZED at MQCONN)."""


def state(name: str) -> str:
    """A queue manager's state as mqweb reports it: "running" or "ended"."""
    return "running" if QMPaths.of(name).running_pid() else "ended"


def known() -> list[str]:
    return all_qmgrs()


class Connections:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.idle: dict[tuple[str, str, str], list[Any]] = {}

    @staticmethod
    def _key(qmgr: str, user: str, password: str) -> tuple[str, str, str]:
        # (the password is kept only as a digest, to tell callers apart)
        return qmgr, user, hashlib.sha256(password.encode()).hexdigest()

    def _connect(self, qmgr: str, user: str, password: str) -> Any:
        if qmgr not in known():
            raise NotFound(qmgr)
        if state(qmgr) != "running":
            raise NotRunning(qmgr)
        qm = pymqi.QueueManager(None)
        cno = pymqi.CNO(Version=CMQC.MQCNO_VERSION_7, ApplName=b"mqweb")
        try:
            qm.connect_with_options(qmgr, user=user or None, password=password if user else None, cno=cno)
        except pymqi.MQMIError as e:
            if e.reason == CMQC.MQRC_NOT_AUTHORIZED:
                raise Refused(user) from None
            if e.reason in BROKEN:
                raise NotRunning(qmgr) from None
            raise
        return qm

    @contextmanager
    def connection(self, qmgr: str, user: str, password: str, fresh: bool = False) -> Iterator[Any]:
        """A connection to ``qmgr`` as the caller for the length of a request (``fresh``: a new
        one, not one kept from an earlier request)."""
        key = self._key(qmgr, user, password)
        with self.lock:
            pool = self.idle.get(key) or []
            qm = pool.pop() if pool and not fresh else None
        if qm is None:
            qm = self._connect(qmgr, user, password)
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


def mqsc(qm: Any, command: str, remote: str = "") -> tuple[str, bool]:
    """Run one MQSC command through the command server (PCF Escape): its response text, and
    whether it succeeded. ``remote``: the queue manager the command is for when ``qm`` is a
    gateway (the command goes to its SYSTEM.ADMIN.COMMAND.QUEUE through the gateway's channels,
    the answer comes back to a queue on the gateway)."""
    attr = "_mqweb_pcf_" + remote              # one reply queue a connection and target, made at first use
    pcf = getattr(qm, attr, None)
    if pcf is None:
        pcf = pymqi.PCFExecute(qm, response_wait_interval=GATEWAY_WAIT_MS if remote else 30000,
                               command_queue_qmgr=remote.encode())
        setattr(qm, attr, pcf)
    responses: list[tuple[dict[int, Any], Any]] = []
    ok = True
    try:
        pcf.run(CMQCFC.MQCMD_ESCAPE, {CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                                      CMQCFC.MQCACF_ESCAPE_TEXT: command.encode()}, responses=responses)
    except pymqi.MQMIError as e:
        if remote and e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
            raise NoAnswer(remote) from None
        if not responses or e.reason in BROKEN:
            raise
        ok = False
    texts = []
    for values, _cfh in responses:
        text = values.get(CMQCFC.MQCACF_ESCAPE_TEXT, b"")
        texts.append(text.decode("utf-8", "replace") if isinstance(text, (bytes, bytearray)) else str(text))
    return "\n".join(t.rstrip() for t in texts if t), ok
