"""The asyncio connection: MQCONN over a client channel or local bindings, MQOPEN, MQSUB,
MQPUT1, units of work, MQDISC."""
from __future__ import annotations

import asyncio
import contextvars
import itertools
import os
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mqlite.aio.queue import FOREVER, Message, Queue
from mqlite.aio.wire import Wire, broken
from mqlite.cmq import CMQC, structs
from mqlite.cmq.structs import MD, OD, PMO
from mqlite.cmq.subs import SD
from mqlite.net import protocol as P
from mqlite.net import verbs as V
from mqlite.net.client import parse_conname
from mqlite.paths import QMPaths
from mqlite.pymqi.errors import MQMIError, PYIFError, check_reply
from mqlite.pymqi.qmgr import _qmgr_from_mqserver, bindings_qmgr, hello_fields, message_body, new_msg_id
from mqlite.security import tls

# The connection whose unit of work the current task (and the tasks it starts) is in.
_UNIT: contextvars.ContextVar[Connection | None] = contextvars.ContextVar("mqlite_aio_unit", default=None)


async def connect(qmgr: str = "", channel: str | None = None, conname: str | None = None, *,
                  user: str | None = None, password: str | None = None, cipher: str = "",
                  key_repository: str = "", cert_label: str = "", appl: str = "",
                  timeout: float = 10.0) -> Connection:
    """MQCONN. With ``channel`` and ``conname`` (``host(port)``, a comma-separated list tried in
    turn) a client connection; with neither, MQSERVER if set, else local bindings to ``qmgr``.
    ``cipher`` (a CipherSpec) makes it TLS, with the key repository from ``key_repository`` or
    MQSSLKEYR and the certificate labelled ``cert_label`` (or MQCERTLABL)."""
    if channel is None and conname is None and (env := _qmgr_from_mqserver()) is not None:
        channel, conname = env
    wire: Wire
    if conname is not None:
        if not channel:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_CHANNEL_CONFIG_ERROR, detail="no channel named")
        context = None
        if cipher:
            try:
                context = tls.client_context(cipher, key_repository or os.environ.get("MQSSLKEYR", ""),
                                             cert_label or os.environ.get("MQCERTLABL", ""))
            except tls.TLSConfigError as e:
                raise MQMIError(CMQC.MQCC_FAILED, getattr(CMQC, e.reason_name)) from None
        wire = await _open_tcp(conname, context, timeout)
        kind: dict[str, Any] = {"kind": "client", "channel": channel, "maxmsgl": 104857600, "hbint": 1,
                                "sslciph": cipher}
    else:
        qmgr = bindings_qmgr(qmgr)
        loop = asyncio.get_running_loop()
        try:
            _t, wire = await loop.create_unix_connection(Wire, QMPaths.of(qmgr).socket)
        except OSError:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE) from None
        kind = {"kind": "bindings"}
    hello = {**hello_fields(qmgr, appl, 0, user), "password": password, "proto": P.PROTOCOL_VERSION, **kind}
    try:
        answer = await asyncio.wait_for(wire.post(P.HELLO, P.encode_json(hello)), timeout)
        body = P.decode_json(answer[1:])
    except MQMIError:
        wire.close()
        raise
    except (asyncio.TimeoutError, P.ProtocolError):
        wire.close()
        raise broken("no answer to the connection request") from None
    if answer[0] != P.HELLO_OK:
        wire.close()
        raise MQMIError(CMQC.MQCC_FAILED, int(body.get("reason", CMQC.MQRC_UNEXPECTED_ERROR)))
    return Connection(wire, body, qmgr)


async def _open_tcp(conname: str, context: Any, timeout: float) -> Wire:
    loop = asyncio.get_running_loop()
    last: Exception | None = None
    for host, port in parse_conname(conname):
        try:
            _t, wire = await asyncio.wait_for(
                loop.create_connection(Wire, host, port, ssl=context, server_hostname="" if context else None),
                timeout)
            return wire
        except OSError as e:
            if context is not None and isinstance(e, ssl.SSLError):
                raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_SSL_INITIALIZATION_ERROR, detail=str(e)) from None
            last = e
        except asyncio.TimeoutError as e:
            last = e
    raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_HOST_NOT_AVAILABLE, detail=str(last))


class Connection:
    """An asyncio connection to a queue manager (``await aio.connect(...)``). One call is in
    progress on it at a time, as on an MQ connection handle: tasks that share it take turns, and
    a waiting get holds it; concurrent consumers each have a connection of their own."""

    def __init__(self, wire: Wire, info: dict[str, Any], asked: str) -> None:
        self._wire = wire
        self.name: str = info.get("qmgr", asked)
        self.info = info
        self._queues: set[Queue] = set()
        self._ids = itertools.count(1)

    def _live(self) -> Wire:
        if self._wire.error is not None:
            raise self._wire.error
        return self._wire

    def _new_id(self) -> bytes:
        return new_msg_id(self.name, self._ids)

    def _message(self, body: bytes | str, md: MD, pmo: PMO, syncpoint: bool | None) -> bytes:
        """A put's data (as the pymqi face makes it: a str is MQSTR in 1208; 2010 beyond the
        channel's MAXMSGL), its MQPMO set to the syncpoint asked for, or the unit's."""
        pmo.Options = (pmo.Options & ~(CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NO_SYNCPOINT)) | (
            CMQC.MQPMO_SYNCPOINT if self._syncpoint(syncpoint) else CMQC.MQPMO_NO_SYNCPOINT)
        return message_body(body, md, self.info)

    def _syncpoint(self, given: bool | None) -> bool:
        return given if given is not None else _UNIT.get() is self

    @property
    def connected(self) -> bool:
        return self._wire.error is None

    # --- objects ------------------------------------------------------------------------------
    async def open(self, name: str | OD, options: int = CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT
                   | CMQC.MQOO_FAIL_IF_QUIESCING) -> Queue:
        """MQOPEN of a queue (or an MQOD: a topic, a remote queue, a model's dynamic queue)."""
        od = name if isinstance(name, OD) else OD(ObjectName=name.encode())
        reply = await self._live().call(P.OPEN, V.Open.request(options, od))
        check_reply(reply)
        hobj, flags = V.Open.parse_reply(reply, od)
        q = Queue(self, hobj, structs.text(od.ResolvedQName or od.ObjectName) if options & CMQC.MQOO_INPUT_AS_Q_DEF
                  else structs.text(od.ObjectName), flags)
        self._queues.add(q)
        return q

    async def open_topic(self, topic: str, options: int = CMQC.MQOO_OUTPUT | CMQC.MQOO_FAIL_IF_QUIESCING) -> Queue:
        """MQOPEN of a topic string, to publish on it with ``put``."""
        od = OD(ObjectType=CMQC.MQOT_TOPIC, Version=CMQC.MQOD_VERSION_4)
        od.set_vs("ObjectString", topic.encode())
        return await self.open(od, options)

    async def subscribe(self, topic: str, *, name: str | None = None, durable: bool = False,
                        sd: SD | None = None) -> Subscription:
        """MQSUB with a managed queue: a non-durable subscription, or with ``durable`` one named
        ``name`` (created, or resumed if it exists). ``sd`` gives a descriptor of your own."""
        if sd is None:
            opts = CMQC.MQSO_MANAGED | CMQC.MQSO_FAIL_IF_QUIESCING
            if durable:
                if not name:
                    raise PYIFError("a durable subscription needs a name")
                opts |= CMQC.MQSO_DURABLE | CMQC.MQSO_CREATE | CMQC.MQSO_RESUME
            else:
                opts |= CMQC.MQSO_NON_DURABLE | CMQC.MQSO_CREATE
            sd = SD(Options=opts)
            sd.set_vs("ObjectString", topic.encode())
            if name:
                sd.set_vs("SubName", name.encode())
        reply = await self._live().call(P.SUB, V.Sub.request(0, sd))
        check_reply(reply)
        hsub, hobj, flags = V.Sub.parse_reply(reply, sd)
        queue = Queue(self, hobj, topic, flags)
        self._queues.add(queue)
        return Subscription(self, hsub, queue, sd)

    async def put1(self, name: str | OD, body: bytes | str, md: MD | None = None, pmo: PMO | None = None, *,
                   syncpoint: bool | None = None) -> MD:
        """MQPUT1: open, put one message, close."""
        od = name if isinstance(name, OD) else OD(ObjectName=name.encode())
        md = md if md is not None else MD()
        pmo = pmo if pmo is not None else PMO()
        data = self._message(body, md, pmo, syncpoint)
        reply = await self._live().call(P.PUT1, V.Put1.request(od, pmo, md, data))
        check_reply(reply)
        comp, reason = V.Put1.parse_reply(reply, od, md, pmo)
        if comp:
            raise MQMIError(comp, reason)
        return md

    # --- units of work ------------------------------------------------------------------------
    @asynccontextmanager
    async def unit_of_work(self) -> AsyncIterator[Connection]:
        """A unit of work: puts and gets in the block (and in tasks it starts) are under
        syncpoint unless they say otherwise; MQCMIT at the end, MQBACK if the block raises or is
        cancelled (held messages not handed over go back first, either way)."""
        if _UNIT.get() is self:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_UOW_IN_PROGRESS)
        token = _UNIT.set(self)
        try:
            yield self
        except BaseException:
            _UNIT.reset(token)
            if self._wire.error is None:
                await asyncio.shield(self._end_unit(P.BACK))
            raise
        _UNIT.reset(token)
        await self._end_unit(P.CMIT)

    async def commit(self) -> None:
        await self._end_unit(P.CMIT)

    async def backout(self) -> None:
        await self._end_unit(P.BACK)

    async def _end_unit(self, ftype: int) -> None:
        pairs = [p for p in (q._end_of_unit() for q in list(self._queues)) if p is not None]
        if ftype == P.BACK:
            for q in self._queues:
                q.stash.clear()         # a kept message of the unit is back on its queue
        check_reply(await self._live().call(ftype, V.EndUnit.request(pairs)))

    # --- the end ------------------------------------------------------------------------------
    async def close(self) -> None:
        """MQDISC: open queues closed (held messages not handed over go back), units backed out."""
        wire = self._wire
        if wire.error is None:
            try:
                for q in list(self._queues):
                    await q.close()
                await wire.call(P.DISC, b"")
            except MQMIError:
                pass
        wire.close()
        self._queues.clear()

    async def __aenter__(self) -> Connection:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class Subscription:
    """A subscription with a managed queue: ``get``, ``async for``, ``close``."""

    def __init__(self, conn: Connection, hsub: int, queue: Queue, sd: SD) -> None:
        self.conn = conn
        self.hsub: int | None = hsub
        self.queue = queue
        self.sd = sd

    async def get(self, wait: float = FOREVER, **kw: Any) -> Message:
        return await self.queue.get(wait, **kw)

    def __aiter__(self) -> AsyncIterator[Message]:
        return self.queue.messages()

    def messages(self, wait: float = FOREVER, read_ahead: int = 64) -> AsyncIterator[Message]:
        return self.queue.messages(wait, read_ahead)

    async def close(self, remove: bool = False) -> None:
        """MQCLOSE of the subscription (a durable one stays unless ``remove``), then of its queue."""
        if self.hsub is None:
            return
        hsub, self.hsub = self.hsub, None
        opts = CMQC.MQCO_REMOVE_SUB if remove else CMQC.MQCO_NONE
        if self.conn._wire.error is None:
            check_reply(await self.conn._wire.call(P.CLOSE, V.Close.request(hsub, opts, 0)))
        await self.queue.close()

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
