"""The asyncio end of mqlite's wire protocol: one connection's frames on an event loop.

Calls are answered in order, so a call is a future queued behind the ones sent before it. One
call at a time is in progress on the queue manager (as on an MQ connection handle): a call holds
the connection's lock from its request to its answer. A call whose task is cancelled before the
answer comes keeps the lock until it does (the queue manager is still working on it), and a
waiting MQGET is told to stop (CANCEL); what the answer brings is then handed to the call's
``late`` handler, which gives back any message the answer carries. Heartbeats from the queue
manager are answered as they arrive.
"""
from __future__ import annotations

import asyncio
from collections import deque
from typing import Callable

from mqlite.cmq import CMQC
from mqlite.net import protocol as P
from mqlite.pymqi.errors import MQMIError

Late = Callable[[bytes | None], None]      # a cancelled call's answer (None: the connection broke)


def broken(detail: str = "") -> MQMIError:
    return MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_CONNECTION_BROKEN, detail=detail)


class Wire(asyncio.Protocol):
    """The frames of one connection: requests written, answers matched to their futures in order."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.pending: deque[tuple[asyncio.Future[bytes], int, Late | None]] = deque()
        self.lock = asyncio.Lock()
        self.error: MQMIError | None = None
        self.writable: asyncio.Future[None] | None = None     # set while the socket's buffer is full

    # --- asyncio.Protocol -------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if self.error is not None:
            return                      # broken: what still arrives is dropped
        buf = self.buf
        buf += data
        pos = 0
        try:
            while len(buf) - pos >= 5:
                length, ftype = P.HEADER.unpack_from(buf, pos)
                if length < 1 or length > P.MAX_FRAME:
                    raise P.ProtocolError(f"frame length {length}")
                end = pos + 4 + length
                if len(buf) < end:
                    break
                payload = bytes(buf[pos + 5:end])
                pos = end
                self._frame(ftype, payload)
                if self.error is not None:
                    return
        except P.ProtocolError as e:
            self._fail(broken(str(e)))
        finally:
            del buf[:pos]

    def _frame(self, ftype: int, payload: bytes) -> None:
        if ftype == P.HEARTBEAT:
            self.write(P.HEARTBEAT | P.REPLY, b"")
            return
        if not self.pending:
            raise P.ProtocolError(f"frame {ftype:#x} answers nothing")
        fut, expect, late = self.pending[0]
        if expect == P.HELLO and ftype in (P.HELLO_OK, P.ERROR):
            payload = bytes((ftype,)) + payload         # the connection's answer: accepted or refused
        elif ftype != expect | P.REPLY:
            raise P.ProtocolError(f"answer type {ftype:#x} to {expect:#x}")   # (the call fails with the rest)
        self.pending.popleft()
        if fut.cancelled():
            if late is not None:
                try:
                    late(payload)
                except MQMIError:
                    pass                # (the connection broke meanwhile: its calls all fail)
        else:
            fut.set_result(payload)

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(broken(str(exc) if exc else "connection closed"))

    def pause_writing(self) -> None:
        if self.writable is None:
            self.writable = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        w, self.writable = self.writable, None
        if w is not None and not w.done():
            w.set_result(None)

    def _fail(self, error: MQMIError) -> None:
        if self.error is None:
            self.error = error
        pending, self.pending = self.pending, deque()
        for fut, _expect, late in pending:
            if fut.cancelled():
                if late is not None:
                    late(None)
            elif not fut.done():
                fut.set_exception(self.error)
        self.resume_writing()
        if self.transport is not None:
            self.transport.close()

    # --- requests ---------------------------------------------------------------------------------
    def write(self, ftype: int, payload: bytes) -> None:
        if self.error is not None:
            raise self.error
        assert self.transport is not None
        self.transport.write(P.frame(ftype, payload))

    def post(self, ftype: int, payload: bytes, late: Late | None = None) -> asyncio.Future[bytes]:
        """Send a request now; its answer is the future's (or, if nobody awaits it, ``late``'s)."""
        self.write(ftype, payload)
        fut: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self.pending.append((fut, ftype, late))
        return fut

    async def call(self, ftype: int, payload: bytes, waiting: bool = False, late: Late | None = None) -> bytes:
        """A request and its answer. ``waiting``: an MQGET that may wait, told to stop when the
        task is cancelled. ``late``: what to do with the answer of a call cancelled before it came."""
        await self.lock.acquire()
        try:
            fut = self.post(ftype, payload, self._releasing(late))
        except BaseException:
            self.lock.release()
            raise
        try:
            reply = await fut
        except asyncio.CancelledError:
            if fut.cancelled():
                # The answer is still to come: the lock is released when it does (``_releasing``).
                if waiting and self.error is None:
                    self.write(P.CANCEL, b"")
                raise
            try:                        # the answer came as the task was cancelled
                if late is not None and fut.exception() is None:
                    late(fut.result())
            finally:
                self.lock.release()
            raise
        except BaseException:
            self.lock.release()
            raise
        self.lock.release()
        return reply

    def _releasing(self, late: Late | None) -> Late:
        def answered(reply: bytes | None) -> None:
            try:
                if late is not None:
                    late(reply)
            finally:
                self.lock.release()
        return answered

    async def drained(self) -> None:
        """Backpressure: wait while the socket's send buffer is over its high-water mark."""
        while self.writable is not None:
            await asyncio.shield(self.writable)
        if self.error is not None:
            raise self.error

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()
