"""Shared queues in the engine: a queue whose messages live in the group's shared store.

The engine holds no messages for a shared queue; it keeps the open counts (IPPROCS/OPPROCS of this
member) and the puts of units of work not yet committed, and asks the shared store (a port given to
the queue manager, as its own store is) for everything else.  What the store must offer is the
``SharedPort`` protocol (``engine.ports``); ``mqlite.store.shared`` implements it on SQLite and
PostgreSQL.
"""
from __future__ import annotations

from mqlite.engine.ports import NewMessage, Row, SharedPort
from mqlite.engine.queue import QueueState
from mqlite.engine.resolve import QSG_XMITQ

__all__ = ["QSG_XMITQ", "SharedPort", "SharedQueueState", "SharedPut", "SharedGot"]
SHARED, GROUP, COPY = "SHARED", "GROUP", "COPY"


class SharedQueueState(QueueState):
    """A shared queue as one member sees it: the depth is the store's plus this member's
    uncommitted puts (messages got inside units of work stay counted in the store)."""

    __slots__ = ("port", "_seen", "_seen_at")
    shared = True
    FRESH = 0.05      # seconds a depth read for a put inside a unit of work stays good

    def __init__(self, name: str, port: SharedPort, fifo: bool = False) -> None:
        super().__init__(name, fifo)
        self.port = port
        self._seen = 0
        self._seen_at = -1.0

    @property
    def depth(self) -> int:
        return self.port.depth(self.name) + self.uncommitted

    def recent_depth(self, now: float) -> int:
        """The depth for MAXDEPTH checks of puts inside units of work: read from the store at most
        every ``FRESH`` seconds (other members' puts in between are not seen; a put outside
        syncpoint is checked exactly, in its own transaction)."""
        if not 0 <= now - self._seen_at < self.FRESH:
            self._seen = self.port.depth(self.name)
            self._seen_at = now
        return self._seen + self.uncommitted


class SharedPut:
    """A put to a shared queue inside a unit of work: written at MQCMIT."""

    __slots__ = ("new", "seq", "persistent")

    def __init__(self, new: NewMessage) -> None:
        self.new = new
        self.seq = 0
        self.persistent = new.persistent


class SharedGot:
    """A message got from a shared queue inside a unit of work: claimed in the store."""

    __slots__ = ("row", "seq", "persistent")

    def __init__(self, row: Row) -> None:
        self.row = row
        self.seq = 0
        self.persistent = row.persistent
