"""Automatic client reconnect (MQCNO_RECONNECT, MQCNO_RECONNECT_Q_MGR, the CLNTCONN's DEFRECON and
mqclient.ini's ``CHANNELS`` stanza), as IBM's client does it (docs/pymqi.md).

When a reconnectable client connection breaks, the call that found it waits while the connection
is made again (the delays of ``ReconDelay``, until ``MQReconnectTimeout``), to the same queue
manager (MQCNO_RECONNECT_Q_MGR: its QMID must match) or to any the connection's CONNAME list or
channel table leads to (MQCNO_RECONNECT). Then what the application had open is opened again
(queues, the queue manager object, subscriptions resumed or made again, consumers' handles), and
the call goes on: re-sent with the new handles, except an MQPUT or MQPUT1 outside syncpoint and an
MQCMIT whose outcome is not known (MQRC_CALL_INTERRUPTED, as MQ answers). A unit of work that had
work in it was backed out by the queue manager: the next MQCMIT answers MQRC_BACKED_OUT. The
event handler (MQCB MQCBT_EVENT_HANDLER) is told MQRC_RECONNECTING before the first attempt, then
MQRC_RECONNECTED or MQRC_RECONNECT_FAILED.

The choice and the settings are pure functions (``mode``, ``client_ini``, ``delays``).
"""
from __future__ import annotations

import os
import random
import re
import struct
import time
from typing import Any, Callable, Protocol

from mqlite.cmq import CMQC, CMQXC
from mqlite.cmq.structs import OD
from mqlite.net import protocol as P
from mqlite.net import verbs as V
from mqlite.net.client import Transport, TransportError, parse_conname
from mqlite.pymqi.errors import MQMIError, check_reply


# A connection refused for these goes on to the next address of the CONNAME list, as MQ's does.
_NEXT_ADDRESS = frozenset({CMQC.MQRC_Q_MGR_NOT_AVAILABLE, CMQC.MQRC_CHANNEL_NOT_AVAILABLE, CMQC.MQRC_HOST_NOT_AVAILABLE,
                           CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_Q_MGR_NAME_ERROR, CMQC.MQRC_Q_MGR_QUIESCING,
                           CMQC.MQRC_Q_MGR_STOPPING})


def first_answer(conname: str, hello: Callable[[Transport], None], context: Any) -> Transport:
    """The first address of a CONNAME list whose queue manager takes the connection (``hello``):
    one that refuses the channel (stopped, or another queue manager there) does not end the
    attempt, as it did when only the TCP connection was tried in turn."""
    try:
        addresses = [f"{host}({port})" for host, port in parse_conname(conname)]
    except TransportError as e:
        raise MQMIError(CMQC.MQCC_FAILED, e.reason) from None
    last: MQMIError | None = None
    for address in addresses:
        try:
            transport = Transport.tcp(address, tls=context)
            hello(transport)
            return transport
        except TransportError as e:
            last = MQMIError(CMQC.MQCC_FAILED, e.reason, detail=e.detail)
        except MQMIError as e:
            if e.reason not in _NEXT_ADDRESS:
                raise
            last = e
    assert last is not None
    raise last


class Connection(Protocol):
    """The connection (pymqi/qmgr.py's Connection) as reconnecting uses it."""
    _transport: Transport | None
    _connect_args: tuple[str, tuple[Any, ...], dict[str, Any]] | None
    _name: str
    _qmobj: int | None
    _queues: Any
    _subs: Any
    _orphans: list[tuple[int, int]]
    _async: Any
    _dirty: bool
    _unit_broken: bool

    def _call(self, ftype: int, payload: bytes) -> bytes: ...

    def _send(self, ftype: int, payload: bytes) -> None: ...

    def _told(self, comp: int, reason: int, delay: int) -> None: ...

TIMEOUT = 1800.0                                       # MQReconnectTimeout's default, seconds
DEFAULT_DELAYS = ((1000, 200), (2000, 200), (4000, 1000))   # ReconDelay's default: (ms, random ms up to)
_WORDS = {"YES": CMQC.MQCNO_RECONNECT, "QMGR": CMQC.MQCNO_RECONNECT_Q_MGR, "NO": 0,
          "DISABLED": CMQC.MQCNO_RECONNECT_DISABLED}
_ANY = CMQC.MQCNO_RECONNECT | CMQC.MQCNO_RECONNECT_Q_MGR | CMQC.MQCNO_RECONNECT_DISABLED
_FIRST = struct.Struct("<i")
_HOBJ_FIRST = frozenset({P.PUT, P.GET, P.GET_BATCH, P.CLOSE, P.INQ, P.SET, P.SUB, P.SUBRQ, P.BROWSE_BATCH, P.STREAM})


def mode(cno_options: int, channel_default: int, ini_default: str | None) -> int:
    """MQ's order: mqclient.ini's DefRecon=DISABLED turns reconnection off whatever is asked;
    otherwise the MQCNO's option, else the channel definition's DEFRECON (MQRCN_*), else
    DefRecon. The answer: MQCNO_RECONNECT, MQCNO_RECONNECT_Q_MGR or 0."""
    ini = _WORDS.get((ini_default or "").strip().upper(), 0)
    if ini == CMQC.MQCNO_RECONNECT_DISABLED:
        return 0
    asked = cno_options & _ANY
    if not asked:
        asked = {CMQXC.MQRCN_YES: CMQC.MQCNO_RECONNECT, CMQXC.MQRCN_Q_MGR: CMQC.MQCNO_RECONNECT_Q_MGR,
                 CMQXC.MQRCN_DISABLED: CMQC.MQCNO_RECONNECT_DISABLED}.get(channel_default, 0) or ini
    return 0 if asked & CMQC.MQCNO_RECONNECT_DISABLED else asked & (CMQC.MQCNO_RECONNECT | CMQC.MQCNO_RECONNECT_Q_MGR)


def client_ini(env: dict[str, str] | os._Environ[str] = os.environ) -> dict[str, dict[str, str]]:
    """mqclient.ini's stanzas (``NAME:`` then ``Key=Value`` lines), from MQCLNTCF, else the
    current directory's, else $HOME/.mqclient.ini: {stanza: {key: value}} (upper-case stanza)."""
    for path in (env.get("MQCLNTCF", ""), "mqclient.ini", os.path.join(env.get("HOME", ""), ".mqclient.ini")):
        if path and os.path.isfile(path):
            break
    else:
        return {}
    out: dict[str, dict[str, str]] = {}
    stanza: dict[str, str] | None = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.split("#", 1)[0].split(";", 1)[0].strip()
            if not line:
                continue
            if line.endswith(":") and "=" not in line:
                stanza = out.setdefault(line[:-1].strip().upper(), {})
            elif "=" in line and stanza is not None:
                k, v = line.split("=", 1)
                stanza[k.strip()] = v.strip()
    return out


def delays(text: str | None) -> tuple[tuple[int, int], ...]:
    """ReconDelay: ``(delay,random)(delay,random)...`` in milliseconds; the last goes on repeating."""
    found = tuple((int(a), int(b or 0)) for a, b in re.findall(r"\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)", text or ""))
    return found or DEFAULT_DELAYS


def settings(env: dict[str, str] | os._Environ[str] = os.environ) -> tuple[str | None, float, tuple[tuple[int, int], ...]]:
    """(DefRecon, MQReconnectTimeout in seconds, ReconDelay) from mqclient.ini's CHANNELS stanza."""
    ch = {k.upper(): v for k, v in client_ini(env).get("CHANNELS", {}).items()}
    try:
        timeout = float(ch.get("MQRECONNECTTIMEOUT", TIMEOUT))
    except ValueError:
        timeout = TIMEOUT
    return ch.get("DEFRECON"), timeout, delays(ch.get("RECONDELAY"))


class Reconnector:
    """One reconnectable connection's way back: how it was made, and how long it may try."""

    def __init__(self, qmgr: Connection, how: int, qmid: str, timeout: float,
                 schedule: tuple[tuple[int, int], ...]) -> None:
        self.qmgr = qmgr
        self.same_qmgr = how == CMQC.MQCNO_RECONNECT_Q_MGR
        self.qmid = qmid
        self.timeout = timeout
        self.schedule = schedule
        self.failed = False
        self.handles: dict[int, int] = {}       # the broken connection's handles -> the new ones

    def redo(self, ftype: int, payload: bytes, e: TransportError) -> bytes:
        """The call that found the connection broken, once it is made again."""
        q = self.qmgr
        if ftype == P.DISC:
            raise MQMIError(CMQC.MQCC_FAILED, e.reason)
        unit = q._dirty or q._unit_broken
        self.again(e)
        if e.unsent and ftype == P.CMIT:
            q._unit_broken = False          # (not sent: the queue manager backed the unit out)
            if unit:
                raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_BACKED_OUT)
            return _OK
        if ftype in (P.CMIT, P.BACK):
            # The unit was backed out, or committed before the queue manager went: MQCMIT cannot
            # say which (MQRC_CALL_INTERRUPTED); MQBACK's is done either way.
            q._unit_broken = False
            if ftype == P.CMIT and unit:
                raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_CALL_INTERRUPTED)
            return _OK
        if ftype in (P.PUT, P.PUT1, P.PUT_ASYNC) and not e.unsent and not self._syncpoint(ftype, payload):
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_CALL_INTERRUPTED)
        if ftype == P.GET_BATCH:
            hobj, _acked, max_msgs = struct.unpack_from("<iii", payload)
            if max_msgs <= 0:
                return _BATCH_NONE                # nothing is held any more
            payload = struct.pack("<ii", self.handles.get(hobj, hobj), 0) + payload[8:]
        elif ftype in _HOBJ_FIRST or ftype == P.PUT_ASYNC:
            (hobj,) = _FIRST.unpack_from(payload)
            payload = _FIRST.pack(self.handles.get(hobj, hobj)) + payload[4:]
        if ftype == P.PUT_ASYNC:
            q._send(ftype, payload)
            return _OK
        return q._call(ftype, payload)

    @staticmethod
    def _syncpoint(ftype: int, payload: bytes) -> bool:
        at = (P.OD_LEN if ftype == P.PUT1 else 4) + 8       # the MQPMO's Options
        return bool(_FIRST.unpack_from(payload, at)[0] & CMQC.MQPMO_SYNCPOINT)

    def again(self, e: TransportError) -> None:
        """Connect again (the event handler told), reopen what was open; MQRC_RECONNECT_FAILED
        when MQReconnectTimeout passes first."""
        q = self.qmgr
        if self.failed:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_RECONNECT_FAILED)
        q._transport = None
        q._unit_broken = q._unit_broken or q._dirty
        q._dirty = False
        deadline = time.monotonic() + self.timeout
        step = 0
        q._told(CMQC.MQCC_WARNING, CMQC.MQRC_RECONNECTING, self._delay(0))
        while True:
            wait = self._delay(step)
            step += 1
            if time.monotonic() + wait / 1000.0 > deadline:
                self.failed = True
                q._told(CMQC.MQCC_FAILED, CMQC.MQRC_RECONNECT_FAILED, 0)
                raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_RECONNECT_FAILED)
            time.sleep(wait / 1000.0)
            try:
                kind, args, kwargs = q._connect_args or ("connect", (q._name,), {})
                getattr(q, kind)(*args, **kwargs)
            except (MQMIError, TransportError):
                continue
            transport = q._transport
            assert transport is not None
            if self.same_qmgr and self.qmid and transport.info.get("qmid") not in (None, self.qmid):
                # Another queue manager (MQRC_RECONNECT_QMID_MISMATCH): reconnecting has failed.
                transport.close()
                q._transport = None
                self.failed = True
                q._told(CMQC.MQCC_FAILED, CMQC.MQRC_RECONNECT_FAILED, 0)
                raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_RECONNECT_FAILED,
                                detail="MQRC_RECONNECT_QMID_MISMATCH: another queue manager answered")
            try:
                self.handles = reopen_all(q)
            except (MQMIError, TransportError):
                if q._transport is not None:
                    q._transport.close()
                q._transport = None
                continue
            q._told(CMQC.MQCC_OK, CMQC.MQRC_RECONNECTED, 0)
            return

    def _delay(self, step: int) -> int:
        base, spread = self.schedule[min(step, len(self.schedule) - 1)]
        return base + (random.randint(0, spread) if spread else 0)


def reopen_all(q: Connection) -> dict[int, int]:
    """What the application had open, opened again on the new connection: the queue manager
    object (MQINQ's), every open queue (read-ahead and browse cursors start again), the
    subscriptions (resumed when durable, made again when not), the consumers' handles. A queue
    that cannot be opened again (a temporary dynamic queue the restart deleted) keeps its old
    handle, which the queue manager then refuses (MQRC_HOBJ_ERROR). Returns old -> new handles."""
    transport = q._transport
    assert transport is not None
    handles: dict[int, int] = {}
    if q._qmobj is not None:
        od = OD(ObjectType=CMQC.MQOT_Q_MGR)
        reply = transport.call(P.OPEN, V.Open.request(CMQC.MQOO_INQUIRE, od))
        check_reply(reply)
        handles[q._qmobj] = q._qmobj = V.Open.parse_reply(reply, od)[0]
    for queue in list(q._queues):
        moved = queue._reopen()
        if moved is not None:
            handles[moved[0]] = moved[1]
    for sub in list(q._subs):
        sub._resume(handles)
    q._orphans.clear()
    if q._async is not None:
        q._async.remap(handles)
    return handles


_OK = struct.pack("<ii", 0, 0)
_BATCH_NONE = struct.pack("<iii", 0, 0, 0)
