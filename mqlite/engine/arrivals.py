"""Where a message joins a local queue: the one owner of it (issue 64). Every path that adds a
message to a queue of this queue manager — MQPUT and MQPUT1 (engine/put.py, engine/plainput.py),
a publication's copies (engine/pubsub.py), the segments the queue manager cuts (engine/segments.py),
a unit of work's commit (engine/uow.py), a message moved to another transmission queue
(engine/route.py) — numbers it here and makes it visible here: in the queue's index, counted,
journalled when persistent (``PutMsg``, written nowhere else), confirmed on arrival when it asks
(COA), and the queue's waiters and triggers told. Before this, each path did these steps itself
(the number at six sites, the journal record at five), and a path that forgot one lost a message
or a report.

A message put in a unit of work is numbered at its put and made visible at the commit, with the
unit's other operations journalled in one write (``record``, ``committed``). Shared queues keep
their messages in the group's store (engine/put.py ``_enqueue`` hands them there)."""
from __future__ import annotations

from typing import Protocol

from mqlite.cmq import CMQC as C
from mqlite.cmq.structs import MD
from mqlite.engine.core import Conn
from mqlite.engine.departures import Departures
from mqlite.engine.message import Message
from mqlite.engine.ports import Journal, JournalOp, PutMsg
from mqlite.engine.queue import QueueState


class Confirmations(Protocol):
    """Who sends a confirmation of arrival (engine/report.py ``Reports``)."""

    def send(self, conn: Conn | None, md: MD, data: bytes, kind: str, feedback: int = C.MQFB_NONE,
             queue: str = "") -> None: ...


class ArrivalsHost(Protocol):
    store: Journal

    @property
    def reports(self) -> Confirmations: ...

    def message_available(self, queue: str) -> None: ...


class Arrivals:
    def __init__(self, host: ArrivalsHost) -> None:
        self.host = host
        self.seq = 0            # the last number given; recovery starts it above every earlier run's

    def message(self, qs: QueueState, md: MD, body: bytes, expiry_at: float | None, persistent: bool,
                priority: int) -> Message:
        """A new message for ``qs``, numbered."""
        self.seq += 1
        return Message(self.seq, md, body, expiry_at, persistent, qs.lane_for(priority))

    def packed(self, qs: QueueState, md: bytes, body: bytes, expiry_at: float | None, persistent: bool,
               priority: int) -> Message:
        """A new message for ``qs`` whose descriptor is the packed ``md``, numbered."""
        self.seq += 1
        return Message.packed(self.seq, md, body, expiry_at, persistent, qs.lane_for(priority))

    def hold(self, conn: Conn, qs: QueueState, msg: Message, now: float) -> None:
        """A message put in the connection's unit of work: counted as uncommitted, visible at the
        commit (``committed``)."""
        qs.last_put = now
        if not conn.uow:
            conn.uow_since = now
        conn.uow.append(("put", qs, msg))
        qs.uncommitted += 1
        qs.note_depth()

    def arrive(self, conn: Conn, qs: QueueState, msg: Message, now: float, coa: bool | None = None) -> None:
        """A message put outside a unit of work: visible now. ``coa``: whether it asks for a
        confirmation of arrival, when the caller knows (None: its descriptor says)."""
        qs.last_put = now
        qs.insert(msg)
        qs.enq += 1
        if msg.persistent:
            conn.ticket = self.host.store.append(self.record(qs, msg))
        if coa if coa is not None else msg.md.peek("Report") & C.MQRO_COA:
            self.host.reports.send(conn, msg.md, msg.body, "coa", queue=qs.name)
        self.host.message_available(qs.name)

    def arrive_together(self, conn: Conn, qs: QueueState, msgs: list[Message], now: float) -> None:
        """Messages put outside a unit of work that become visible together, journalled in one
        write (kill -9 leaves all or none): the segments of one message."""
        qs.last_put = now
        self.committed(qs, msgs)
        ops: list[JournalOp] = [self.record(qs, m) for m in msgs if m.persistent]
        if ops:
            conn.ticket = self.host.store.extend(ops)
        for m in msgs:
            if m.md.peek("Report") & C.MQRO_COA:
                self.host.reports.send(conn, m.md, m.body, "coa", queue=qs.name)
        self.host.message_available(qs.name)

    def committed(self, qs: QueueState, msgs: list[Message]) -> None:
        """A unit of work's puts to ``qs`` made visible (their records are the unit's to write)."""
        if len(msgs) == 1:
            qs.insert(msgs[0])
        else:
            qs.insert_many(msgs)
        qs.enq += len(msgs)

    @staticmethod
    def record(qs: QueueState, msg: Message) -> PutMsg:
        """The journal's record of a persistent message on ``qs``."""
        return PutMsg(msg.seq, qs.name, msg.packed_md(), msg.body, msg.expiry_at)

    def relocate(self, conn: Conn, src: QueueState, m: Message, dst: QueueState, md: MD, body: bytes) -> Message:
        """Move a visible message to another queue in one step: a new number, and for a persistent
        one the old record deleted and the new one written."""
        src.remove(m)
        new = self.message(dst, md, body, m.expiry_at, m.persistent, md.Priority)
        dst.insert(new)
        if m.persistent:
            self.host.store.append(Departures.record(m))
            conn.ticket = self.host.store.append(self.record(dst, new))
        return new
