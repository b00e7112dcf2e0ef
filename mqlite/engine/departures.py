"""Where a message leaves a local queue for good or for a unit of work: the one owner of a
departure's journal record (``DelMsg``, written nowhere else) and of a get's unit-of-work entry
(issue 64), the counterpart of engine/arrivals.py. MQGET (engine/get.py), a read-ahead or a
channel's batch (engine/batch.py), a range taken together (engine/stream.py), an in-doubt batch
resolved (engine/uow.py), expiry and a message moved (engine/arrivals.py ``relocate``) go through
it. The caller chooses the message and takes it out of the queue's lanes; here it is held in the
unit of work (``held``: gone at the commit, back at a backout) or gone (``gone``: a persistent one's
record deleted, the connection's ticket the write to wait for before the reply).

Shared queues keep their messages in the group's store: a get from one settles there."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from mqlite.engine.core import Conn
from mqlite.engine.message import Message
from mqlite.engine.ports import DelMsg, Journal, JournalOp
from mqlite.engine.queue import QueueState


class DeparturesHost(Protocol):
    store: Journal


class Departures:
    def __init__(self, host: DeparturesHost) -> None:
        self.host = host

    @staticmethod
    def held(conn: Conn, qs: QueueState, msg: Message, now: float) -> None:
        """Taken in the connection's unit of work (MAXUMSGS is the caller's to check)."""
        if not conn.uow:
            conn.uow_since = now
        conn.uow.append(("get", qs, msg))
        qs.uncommitted += 1

    @staticmethod
    def held_together(conn: Conn, qs: QueueState, msgs: list[Message], now: float) -> None:
        if msgs and not conn.uow:
            conn.uow_since = now
        conn.uow.extend(("get", qs, m) for m in msgs)
        qs.uncommitted += len(msgs)

    def gone(self, conn: Conn | None, msg: Message) -> None:
        """Taken for good (outside a unit of work, or expired): a persistent one's record deleted."""
        if msg.persistent:
            ticket = self.host.store.append(DelMsg(msg.seq))
            if conn is not None:
                conn.ticket = ticket

    def gone_together(self, conn: Conn | None, msgs: Iterable[Message]) -> None:
        """Messages taken for good together, their records deleted in one write."""
        ops: list[JournalOp] = [DelMsg(m.seq) for m in msgs if m.persistent]
        if ops:
            ticket = self.host.store.extend(ops)
            if conn is not None:
                conn.ticket = ticket

    @staticmethod
    def record(msg: Message) -> DelMsg:
        """The journal's record of a message gone, for a unit of work's one write."""
        return DelMsg(msg.seq)
