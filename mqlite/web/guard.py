"""The HTTP connections of mqweb's server, bounded (issue 62): uvicorn waits for a request's header
as long as the client likes and answers 503 to everyone once ``limit_concurrency`` connections are
open, so 1,050 connections that sent nothing kept every other client out for as long as they
stayed. Here a new connection has HEADER_WAIT seconds for its first request's header, and one
kept alive has uvicorn's keep-alive time (30 s) from its last response for the whole of the next
header (a header sent a byte at a time, the slowloris kind, is closed either way: uvicorn's own
keep-alive timer stops at the first byte). At most IDLE connections may sit without a request in
progress; one more closes the oldest of them. A client that sends its request as it connects is
never the oldest for long."""
from __future__ import annotations

import asyncio
import os
from collections import OrderedDict
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol   # (httptools is pinned: pyproject's web)

HEADER_WAIT = float(os.environ.get("MQLITE_WEB_HEADER_WAIT", "10"))
IDLE = int(os.environ.get("MQLITE_WEB_IDLE", "256"))

_idle: OrderedDict[int, "GuardedHTTP"] = OrderedDict()     # (the event loop's thread only)


class GuardedHTTP(HttpToolsProtocol):
    """uvicorn's HTTP protocol with a time limit on each request's header and a bound on the
    connections that have no request in progress."""

    def connection_made(self, transport: Any) -> None:      # (uvicorn narrows asyncio.Protocol's BaseTransport)
        super().connection_made(transport)
        self._header_timer: asyncio.TimerHandle | None = None
        self._waiting(HEADER_WAIT)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._busy():
            _idle.pop(id(self), None)
            self._stop_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self._busy():
            self._waiting(float(getattr(self, "timeout_keep_alive", HEADER_WAIT)))

    def connection_lost(self, exc: Exception | None) -> None:
        _idle.pop(id(self), None)
        self._stop_timer()
        super().connection_lost(exc)

    # ---------------------------------------------------------------------------------------------
    def _busy(self) -> bool:
        cycle: Any = getattr(self, "cycle", None)
        return cycle is not None and not cycle.response_complete

    def _waiting(self, wait: float) -> None:
        """No request in progress: the next header has ``wait`` seconds, and this connection is the
        newest of the idle ones (the oldest closed if there are too many)."""
        _idle.pop(id(self), None)
        _idle[id(self)] = self
        while len(_idle) > IDLE:
            _key, oldest = _idle.popitem(last=False)
            oldest._close()
        self._stop_timer()
        self._header_timer = self.loop.call_later(wait, self._too_slow)

    def _too_slow(self) -> None:
        self._header_timer = None
        if not self._busy():
            _idle.pop(id(self), None)
            self._close()

    def _stop_timer(self) -> None:
        timer = getattr(self, "_header_timer", None)
        if timer is not None:
            timer.cancel()
            self._header_timer = None

    def _close(self) -> None:
        transport: Any = getattr(self, "transport", None)
        if transport is not None and not transport.is_closing():
            transport.abort()
