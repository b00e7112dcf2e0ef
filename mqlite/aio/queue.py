"""An open queue in the asyncio face: put, get with a wait, ``async for`` with read-ahead.

Gets are held (docs/asyncio.md): the queue manager sends the messages of a get or a read-ahead
batch and keeps them off the queue, the face's own, until it hears they were consumed; a task
cancelled before the face handed a message over gives it back, in its place. Outside syncpoint a
nonpersistent message is acknowledged with the face's next request (as MQ's read-ahead does); a
persistent one (or one asking for COD) is acknowledged as it is handed over, when its removal is
journalled. Under syncpoint the messages are in the unit of work and the ones not handed over go
back before MQCMIT or MQBACK. A queue the queue manager cannot hold messages for (a shared queue,
a selector) is read with plain MQGETs.
"""
from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import AsyncIterator
from typing import Any, Protocol

from mqlite.aio.wire import Wire
from mqlite.cmq import CMQC
from mqlite.cmq.segments import statuses
from mqlite.cmq.structs import GMO, MD, PMO
from mqlite.net import protocol as P
from mqlite.net import verbs as V
from mqlite.net.protocol import II
from mqlite.pymqi.errors import MQMIError, PYIFError, check_reply
from mqlite.pymqi.queue import async_put_request, is_async_put
from mqlite.pymqi.readahead import ServerGet, converts

FOREVER = math.inf
MAX_MSG = 104857600
BATCH_BYTES = 1 << 20
_PLAIN_GET = ~(CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_SYNCPOINT
               | CMQC.MQGMO_FAIL_IF_QUIESCING | CMQC.MQGMO_PROPERTIES_AS_Q_DEF | CMQC.MQGMO_CONVERT)


class Message:
    """A message got: its data and its MQMD."""
    __slots__ = ("body", "md")

    def __init__(self, body: bytes, md: MD) -> None:
        self.body = body
        self.md = md

    def __repr__(self) -> str:
        return f"Message({self.body[:40]!r}, MsgId={self.md.MsgId.hex()})"


def _wait_gmo(gmo: GMO, wait: float, syncpoint: bool) -> GMO:
    opts = gmo.Options & ~(CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_SYNCPOINT)
    opts |= CMQC.MQGMO_SYNCPOINT if syncpoint else CMQC.MQGMO_NO_SYNCPOINT
    if wait > 0:
        opts |= CMQC.MQGMO_WAIT
        gmo.WaitInterval = CMQC.MQWI_UNLIMITED if wait == FOREVER else max(1, int(wait * 1000))
    gmo.Options = opts | CMQC.MQGMO_FAIL_IF_QUIESCING
    return gmo


class Owner(Protocol):
    """What a queue needs of its connection (mqlite.aio.conn.Connection)."""
    _wire: Wire
    _queues: set[Queue]
    info: dict[str, Any]                # the queue manager's HELLO answer (its CCSID: MQGMO_CONVERT's MQCCSI_Q_MGR)

    def _live(self) -> Wire: ...

    def _syncpoint(self, given: bool | None) -> bool: ...

    def _new_id(self) -> bytes: ...

    def _message(self, body: bytes | str, md: MD, pmo: PMO, syncpoint: bool | None) -> bytes: ...


class Queue:
    """A queue handle of an asyncio connection (``await conn.open(...)``)."""

    def __init__(self, conn: Owner, hobj: int, name: str, flags: int) -> None:
        self.conn = conn
        self.hobj: int | None = hobj
        self.name = name
        self.holds = bool(flags & P.OPEN_HOLD)          # gets can be held (see the module's docstring)
        self.async_put = bool(flags & P.OPEN_ASYNC_PUT)  # DEFPRESP(ASYNC)
        self.buffer: deque[tuple[bytes, bytes, bool]] = deque()   # held messages not yet handed over
        self.consumed = 0               # held messages handed over and not yet acknowledged
        self.under_sync = False         # the held messages were taken under syncpoint
        self.prefetch: asyncio.Future[bytes] | None = None
        self.stash: deque[Message] = deque()   # a plain MQGET's message that came after its task was cancelled

    def _handle(self) -> int:
        if self.hobj is None:
            raise PYIFError("the queue is closed")
        return self.hobj

    # --- put ----------------------------------------------------------------------------------
    async def put(self, body: bytes | str, md: MD | None = None, pmo: PMO | None = None, *,
                  syncpoint: bool | None = None) -> MD:
        """MQPUT; the descriptor comes back with MsgId and the rest set. ``syncpoint``: default
        inside ``conn.unit_of_work()``, else not. An asynchronous put (MQPMO_ASYNC_RESPONSE, or a
        queue with DEFPRESP(ASYNC)) waits only while the connection's send buffer is full."""
        hobj = self._handle()
        md = md if md is not None else MD()
        pmo = pmo if pmo is not None else PMO()
        data = self.conn._message(body, md, pmo, syncpoint)
        wire = self.conn._live()
        if is_async_put(pmo.Options, self.async_put):
            request = async_put_request(hobj, pmo, md, data, self.conn._new_id)
            if wire.lock.locked():       # nothing may follow a waiting MQGET: take a turn
                async with wire.lock:
                    wire.write(P.PUT_ASYNC, request)
            else:
                wire.write(P.PUT_ASYNC, request)
            await wire.drained()
            return md
        reply = await wire.call(P.PUT, V.Put.request(hobj, pmo, md, data))
        check_reply(reply)
        comp, reason = V.Put.parse_reply(reply, md, pmo)
        if comp:
            raise MQMIError(comp, reason)
        return md

    # --- get ----------------------------------------------------------------------------------
    async def get(self, wait: float = FOREVER, md: MD | None = None, gmo: GMO | None = None, *,
                  syncpoint: bool | None = None, max_length: int | None = None) -> Message:
        """MQGET, waiting up to ``wait`` seconds (default: until a message comes or the task is
        cancelled; 0: not at all). 2033 (MQRC_NO_MSG_AVAILABLE) when none came in time."""
        sync = self.conn._syncpoint(syncpoint)
        gmo = _wait_gmo(gmo if gmo is not None else GMO(), wait, sync)
        md = md if md is not None else MD()
        plain = (self.holds and max_length is None and not gmo.Options & _PLAIN_GET and not gmo.MsgHandle
                 and md.MsgId.strip(b"\0") == b"" and md.CorrelId.strip(b"\0") == b"")
        if plain:
            try:
                return await self._held(gmo, md, sync, 1)
            except ServerGet:
                pass                # (MQGMO_CONVERT of data in another CCSID: the queue manager's MQGET)
        if self.stash and md.MsgId.strip(b"\0") == b"" and md.CorrelId.strip(b"\0") == b"":
            m = self.stash.popleft()
            md.unpack(m.md.pack())
            return Message(m.body, md)
        await self._settle()
        hobj = self._handle()
        length = max_length if max_length is not None else MAX_MSG
        reply = await self.conn._live().call(P.GET, V.Get.request(hobj, length, gmo, md),
                                             waiting=bool(gmo.Options & CMQC.MQGMO_WAIT), late=self._late_get)
        check_reply(reply)
        comp, reason, data_length, body, _props = V.Get.parse_reply(reply, gmo, md)
        if comp:
            raise MQMIError(comp, reason, message=body, original_length=data_length)
        return Message(body, md)

    def _late_get(self, reply: bytes | None) -> None:
        """A plain MQGET's answer after its task was cancelled: a message it brings is kept for the
        next get (the queue manager has already taken it)."""
        if reply is None or II.unpack_from(reply)[0] == CMQC.MQCC_FAILED:
            return
        md, gmo = MD(), GMO()
        _comp, _reason, _n, body, _props = V.Get.parse_reply(reply, gmo, md)
        self.stash.append(Message(body, md))

    async def _held(self, gmo: GMO, md: MD, sync: bool, want: int) -> Message:
        """A get served from the held messages, asking for more (with the get's wait) when none is."""
        if self.buffer and self.under_sync != sync:
            await self._settle()
        if not self.buffer:
            await self._prefetched()
        if not self.buffer:
            self.under_sync = sync
            hobj = self._handle()
            wire = self.conn._live()
            flags = P.BATCH_HOLD | (P.BATCH_SYNCPOINT if sync else 0)
            request = V.GetBatch.request(hobj, self.consumed, want, BATCH_BYTES, flags, gmo)
            self.consumed = 0
            reply = await wire.call(P.GET_BATCH, request, waiting=bool(gmo.Options & CMQC.MQGMO_WAIT),
                                    late=self._late_batch)
            check_reply(reply)
            self.buffer.extend(V.GetBatch.parse_reply(reply))
        if gmo.Options & CMQC.MQGMO_CONVERT and converts(self.buffer[0][0], md.CodedCharSetId,
                                                         int(self.conn.info.get("ccsid", 1208))):
            raise ServerGet
        return await self._take(md, gmo)

    def _late_batch(self, reply: bytes | None) -> None:
        """A held get's answer after its task was cancelled: what it brings goes back to the queue."""
        if reply is None or II.unpack_from(reply)[0] == CMQC.MQCC_FAILED or self.hobj is None:
            return
        if V.GetBatch.parse_reply(reply):
            self._release_now()

    async def _prefetched(self) -> None:
        """Wait for the batch asked for ahead, if one is (its answer fills the buffer)."""
        if self.prefetch is not None:
            try:
                await asyncio.shield(self.prefetch)
            except MQMIError:
                pass                    # (the connection broke: the next call says so)

    def _acknowledgement(self, release: bool) -> bytes:
        """GET_BATCH acknowledging the messages handed over; with ``release`` the rest held go back."""
        request = V.GetBatch.request(self._handle(), self.consumed, 0, 0, 0 if release else P.BATCH_ACK, GMO())
        self.consumed = 0
        return request

    def _release_now(self) -> None:
        """Give back every held message not handed over (the caller has the connection's turn)."""
        self.buffer.clear()
        self.conn._live().post(P.GET_BATCH, self._acknowledgement(release=True)).cancel()   # (only a status comes back)

    async def _take(self, md: MD, gmo: GMO) -> Message:
        """Hand over the first held message; a persistent one outside syncpoint is acknowledged
        now (its removal journalled), in the same turn of the event loop as it is handed over."""
        md_bytes, body, ahead = self.buffer[0]
        md.hold(md_bytes)
        if ahead and not self.under_sync and (md.peek("Persistence") == CMQC.MQPER_PERSISTENT
                                              or md.peek("Report") & CMQC.MQRO_COD):
            wire = self.conn._live()
            if wire.lock.locked():
                await wire.lock.acquire()           # cancelled here: the message stays first in the buffer
                wire.lock.release()
            self.buffer.popleft()
            self.consumed += 1
            wire.post(P.GET_BATCH, self._acknowledgement(release=False)).cancel()
        else:
            self.buffer.popleft()
            self.consumed += ahead
        flags = md.MsgFlags
        gmo.GroupStatus, gmo.SegmentStatus, gmo.Segmentation = statuses(flags)
        gmo.ReturnedLength = len(body)
        return Message(body, md)

    async def _settle(self) -> None:
        """Give back held messages not handed over (a get they cannot serve, a close)."""
        await self._prefetched()
        if not self.buffer or self.hobj is None:
            return
        self.buffer.clear()
        check_reply(await self.conn._live().call(P.GET_BATCH, self._acknowledgement(release=True)))

    # --- async for ----------------------------------------------------------------------------
    def __aiter__(self) -> AsyncIterator[Message]:
        return self.messages()

    async def messages(self, wait: float = FOREVER, read_ahead: int = 64, *,
                       syncpoint: bool | None = None) -> AsyncIterator[Message]:
        """The messages as they come, ``read_ahead`` at a time held ready (backpressure: no more are
        asked for while those wait to be handed over). Ends when none came for ``wait`` seconds.
        Leaving the loop (break, an exception, cancellation) gives back the ones not handed over."""
        try:
            while True:
                sync = self.conn._syncpoint(syncpoint)
                if not self.holds or sync:
                    want = 1        # under syncpoint each message joins the unit as it is asked for
                else:
                    want = max(1, read_ahead)
                    if self.buffer and len(self.buffer) <= want // 2 and self.prefetch is None:
                        self._ask_ahead(want)
                try:
                    if self.holds:
                        msg = await self._held(_wait_gmo(GMO(), wait, sync), MD(), sync, want)
                    else:
                        msg = await self.get(wait, syncpoint=sync)
                except MQMIError as e:
                    if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                        return
                    raise
                yield msg
        finally:
            if self.hobj is not None and self.conn._wire.error is None and (self.buffer or self.prefetch):
                await self._settle()

    def _ask_ahead(self, want: int) -> None:
        """Ask for the next batch while the application works through this one (no wait: nothing
        may follow a waiting call, and this one is answered at once)."""
        wire = self.conn._live()
        if wire.lock.locked() or self.hobj is None:
            return
        request = V.GetBatch.request(self.hobj, self.consumed, want - len(self.buffer), BATCH_BYTES,
                                     P.BATCH_HOLD | P.BATCH_SPECULATIVE, GMO())
        self.consumed = 0
        fut = wire.post(P.GET_BATCH, request)
        self.prefetch = fut
        fut.add_done_callback(self._fill)

    def _fill(self, fut: asyncio.Future[bytes]) -> None:
        self.prefetch = None
        if fut.cancelled() or fut.exception() is not None:
            return
        reply = fut.result()
        if II.unpack_from(reply)[0] != CMQC.MQCC_FAILED:
            self.buffer.extend(V.GetBatch.parse_reply(reply))

    # --- unit of work, inquire, close ---------------------------------------------------------
    def _end_of_unit(self) -> tuple[int, int] | None:
        """At MQCMIT/MQBACK: (handle, consumed) for messages held under syncpoint."""
        if self.hobj is None or not self.under_sync or not (self.buffer or self.consumed):
            return None
        pair = (self.hobj, self.consumed)
        self.buffer.clear()
        self.consumed = 0
        return pair

    async def inquire(self, selector: int) -> Any:
        """MQINQ of one attribute (the queue opened with MQOO_INQUIRE)."""
        reply = await self.conn._live().call(P.INQ, V.Inq.request(self._handle(), [selector]))
        check_reply(reply)
        return V.Inq.parse_reply(reply)[0]

    async def close(self, options: int = CMQC.MQCO_NONE) -> None:
        """MQCLOSE; held messages not handed over go back to the queue."""
        if self.hobj is None:
            return
        await self._prefetched()
        hobj, self.hobj = self.hobj, None
        self.buffer.clear()
        consumed, self.consumed = self.consumed, 0
        self.conn._queues.discard(self)
        if self.conn._wire.error is not None:
            return
        check_reply(await self.conn._wire.call(P.CLOSE, V.Close.request(hobj, options, consumed)))

    async def __aenter__(self) -> Queue:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
