"""Queues read by position (mqlite's extension, for the Spark source): ``Streams``, the queue
manager's ``qm.streams``, over ``StreamsHost``."""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from mqlite.cmq.errors import MQIError
from mqlite.engine.arrivals import Arrivals
from mqlite.engine.batch import out_md
from mqlite.engine.clock import Clock
from mqlite.engine.core import INPUT_OPTS, C, Conn, Handle
from mqlite.engine.departures import Departures
from mqlite.engine.ports import Journal
from mqlite.engine.message import Message
from mqlite.engine.queue import QueueState, last_below, positions, take_range
from mqlite.engine.resolve import Resolved
from mqlite.engine.uow import UnitsOfWork
from mqlite.objects.model import MQObject


class StreamsHost(Protocol):
    """What reading a queue by position needs of the queue manager."""
    queues: dict[str, QueueState]
    conns: dict[int, Conn]
    qmgr: MQObject
    store: Journal
    clock: Clock
    arrivals: Arrivals
    departures: Departures

    @property
    def uow(self) -> UnitsOfWork: ...

    def handle(self, conn: Conn, hobj: int) -> Handle: ...

    def check_get_allowed(self, res: Resolved) -> None: ...

    def with_selector(self, h: Handle, base: Callable[[Message], bool] | None) -> Callable[[Message], bool]: ...


class Streams:
    def __init__(self, qm: StreamsHost) -> None:
        self.qm = qm

    def _stream_queue(self, conn: Conn, hobj: int, need: int,
                      reason: int) -> tuple[QueueState, Callable[[Message], bool] | None]:
        """The handle's queue, and what its selection string picks (None: every message): a
        handle opened with a selector reads, counts and removes only the messages it selects."""
        h = self.qm.handle(conn, hobj)
        if not h.options & need:
            raise MQIError(reason)
        qs = h.qstate
        if h.res is None or qs is None or qs.shared or qs is not self.qm.queues.get(h.res.queue):
            raise MQIError(C.MQRC_FUNCTION_NOT_SUPPORTED, detail="a stream reads a local queue of this queue manager")
        self.qm.check_get_allowed(h.res)
        return qs, (self.qm.with_selector(h, None) if h.selector is not None else None)

    def stable_position(self, qs: QueueState) -> int:
        """No message below this position can still appear on the queue: the lowest position of a
        put in an open or prepared unit of work, else the next position to be given out."""
        low = self.qm.arrivals.seq + 1
        for entries in [c.uow for c in self.qm.conns.values()] + [u.entries for u in self.qm.uow.prepared.values()]:
            for kind, q, m in entries:
                if q is qs and kind == "put" and m.seq < low:
                    low = m.seq
        return low

    def mark(self, conn: Conn, hobj: int, start: int, max_msgs: int,
                    committed: bool = False) -> tuple[int, int, int]:
        """The end of the next range to read from ``start``, the messages in it, and how many
        committed messages lie beyond it only because an open or prepared unit of work holds a
        lower position (a stream cannot pass them without risking a gap; the reader says so).
        The range ends past the last message that is stable — with ``committed``, past the last
        committed one (a batch read: a snapshot, no offsets to keep) — or past the ``max_msgs``-th
        (when positive); ``start`` when there is nothing new. Without a limit the count is not
        taken (-1). With a selector only the messages it picks are counted."""
        qs, picked = self._stream_queue(conn, hobj, C.MQOO_BROWSE, C.MQRC_NOT_OPEN_FOR_BROWSE)
        limit = self.qm.arrivals.seq + 1 if committed else self.stable_position(qs)
        held = 0 if limit > self.qm.arrivals.seq else sum(1 for _m in positions(qs, max(start, limit), self.qm.arrivals.seq + 1))
        if max_msgs <= 0:
            last = last_below(qs, limit)
            return (start, 0, held) if last is None or last < start else (last + 1, -1, held)
        end, n = start, 0
        for m in positions(qs, start, limit):
            end = m.seq + 1
            if picked is None or picked(m):
                n += 1
                if n >= max_msgs:
                    break
        return end, n, held

    def read(self, conn: Conn, hobj: int, start: int, end: int, max_msgs: int,
                    max_bytes: int) -> list[tuple[int, bytes, bytes]]:
        """Browse the messages whose positions are in [start, end), in position (arrival) order,
        up to ``max_msgs`` or ``max_bytes``: (position, packed MQMD, data) each. Read again, a
        range gives the same messages unless something removed them."""
        qs, picked = self._stream_queue(conn, hobj, C.MQOO_BROWSE, C.MQRC_NOT_OPEN_FOR_BROWSE)
        now = self.qm.clock.now()
        out: list[tuple[int, bytes, bytes]] = []
        size = 0
        for m in positions(qs, start, end):
            if picked is not None and not picked(m):
                continue
            out.append((m.seq, out_md(m, now), m.body))
            size += len(m.body)
            if len(out) >= max_msgs or size >= max_bytes:
                break
        return out

    def delete(self, conn: Conn, hobj: int, start: int, end: int, syncpoint: bool = False) -> int:
        """Remove every message whose position is in [start, end) (a stream reader's commit: start
        0): outside any unit of work, durable once the caller syncs ``conn.ticket``; with
        ``syncpoint`` as gets in the connection's unit of work (a batch read's task, which prepares
        it), MQRC_SYNCPOINT_LIMIT_REACHED (2024) with nothing removed when MAXUMSGS would be passed."""
        qs, picked = self._stream_queue(conn, hobj, INPUT_OPTS, C.MQRC_NOT_OPEN_FOR_INPUT)
        if picked is None:
            gone = take_range(qs, start, end)
        else:
            gone = [m for m in positions(qs, start, end) if picked(m)]
            for m in gone:
                qs.remove(m)
        if syncpoint:
            if len(conn.uow) + len(gone) > self.qm.qmgr["MAXUMSGS"]:
                for m in gone:
                    qs.insert(m)
                raise MQIError(C.MQRC_SYNCPOINT_LIMIT_REACHED,
                               detail=f"{len(gone)} messages in the range, MAXUMSGS {self.qm.qmgr['MAXUMSGS']}")
            self.qm.departures.held_together(conn, qs, gone, self.qm.clock.now())
        else:
            self.qm.departures.gone_together(conn, gone)
        qs.deq += len(gone)
        if gone:
            qs.last_get = self.qm.clock.now()
        return len(gone)
