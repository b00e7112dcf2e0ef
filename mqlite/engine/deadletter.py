"""The dead-letter step for a message that cannot be delivered (a receiving MCA, a sending MCA with
a message too big for its channel, the IGQ agent): onto the queue manager's DEADQ behind an MQDLH,
as MQ's agents do. Engine calls only: the caller holds the engine's lock."""
from __future__ import annotations

from typing import Callable, Protocol

from mqlite.catalogue import message
from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.headers import DLH
from mqlite.cmq.structs import MD, OD, PMO, pad
from mqlite.engine.clock import Clock
from mqlite.engine.core import Conn, Handle, put_date_time, qmgr_authority
from mqlite.objects.model import MQObject


class DeadLetterHost(Protocol):
    """What the dead-letter step needs of the queue manager."""
    name: str
    qmgr: MQObject
    clock: Clock

    def log(self, text: str, explanation: str = "") -> None: ...

    def put(self, conn: Conn, hobj: int, md: MD, pmo: PMO, body: bytes, owned: bool = False) -> int: ...

    def report(self, conn: Conn | None, md: MD, data: bytes, kind: str, feedback: int = C.MQFB_NONE,
               queue: str | None = None) -> None: ...


def dead_letter(qm: DeadLetterHost, conn: Conn, handle: Callable[[bytes, bytes], Handle], md: MD, data: bytes, dest_q: str,
                dest_qm: str, reason: int, syncpoint: bool, use_dlq: bool, who: str) -> str:
    """Put the message to the dead-letter queue (``handle`` opens it, or returns the caller's open
    handle). Returns "" when it is there, else why it could not be (no DEADQ, USEDLQ(NO), the DLQ
    refused it); a message put there is logged as AMQ9544W naming ``who``.

    First, as MQ does: an exception report when the message asks for one (MQRO_EXCEPTION), and
    with MQRO_DISCARD_MSG the message is discarded instead of dead-lettered."""
    if md.Report & C.MQRO_EXCEPTION and md.MsgType != C.MQMT_REPORT:
        qm.report(conn, md, data, "exception", reason)
    if md.Report & C.MQRO_DISCARD_MSG:
        qm.log(message("AMQ9544E"),
               f"Message discarded (MQRO_DISCARD_MSG) by {who}. Reason {reason} for {dest_q} on {dest_qm}.")
        return ""
    deadq = qm.qmgr["DEADQ"]
    why = f"Reason {reason} for {dest_q} on {dest_qm}."
    if not deadq or not use_dlq:
        return why + (" USEDLQ(NO)." if deadq else " No dead-letter queue (DEADQ) is defined.")
    date, tm = put_date_time(qm.clock.now())
    dlh = DLH(Reason=reason, DestQName=pad(dest_q, 48), DestQMgrName=pad(dest_qm, 48), Encoding=md.Encoding,
              CodedCharSetId=md.CodedCharSetId, Format=md.Format, PutApplType=C.MQAT_QMGR,
              PutApplName=pad(qm.name, 28), PutDate=date, PutTime=tm)
    dmd = md.copy()
    dmd.Format = C.MQFMT_DEAD_LETTER_HEADER
    dmd.Encoding = C.MQENC_NATIVE
    dmd.CodedCharSetId = qm.qmgr["CCSID"]
    opts = (C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT) | C.MQPMO_SET_ALL_CONTEXT
    try:
        h = handle(deadq.encode(), b"")
        qm.put(conn, h.hobj, dmd, PMO(Options=opts), dlh.pack() + data)
    except MQIError as e:
        return why + f" The dead-letter queue {deadq} refused it with reason {e.reason}."
    qm.log(message("AMQ9544E"), f"Message put to the dead-letter queue {deadq} by {who}. {why}")
    return ""


class AgentHost(DeadLetterHost, Protocol):
    """What an agent needs to open the dead-letter queue itself and put elsewhere (moving a poison
    message, a report generator, a publication's copy)."""

    def queue(self, name: str) -> MQObject | None: ...

    def open(self, conn: Conn, od: OD, options: int) -> Handle: ...

    def close(self, conn: Conn, hobj: int, options: int = 0) -> None: ...

    def put1(self, conn: Conn, od: OD, md: MD, pmo: PMO, body: bytes) -> int: ...


def move_poison(qm: AgentHost, conn: Conn, queue: str, md: MD, data: bytes, who: str) -> str:
    """A message got from ``queue`` under syncpoint that is not to be delivered again, put in the
    same unit of work where MQ's poison-message handling puts it: the queue's backout requeue
    queue (BOQNAME), else the dead-letter queue behind an MQDLH with reason
    MQRC_BACKOUT_THRESHOLD_REACHED. Returns "" when it is there (its get then consumes it), else
    why not (the caller gives it back to its queue). With the queue manager's authority, as MQ's
    agents move messages."""
    obj = qm.queue(queue)
    boq = obj["BOQNAME"] if obj is not None else ""
    with qmgr_authority(conn):
        if boq:
            try:
                qm.put1(conn, OD(ObjectName=pad(boq, 48)), md.copy(),
                        PMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_SET_ALL_CONTEXT), data)
                qm.log(message("AMQ9544E"), f"Message put to the backout requeue queue {boq} by {who}.")
                return ""
            except MQIError as e:
                refused = f" The backout requeue queue {boq} refused it with reason {e.reason}."
        else:
            refused = ""
        why = dead_letter_opened(qm, conn, md, data, queue, qm.name, C.MQRC_BACKOUT_THRESHOLD_REACHED, True, who)
    return why + refused if why else ""


def dead_letter_opened(qm: AgentHost, conn: Conn, md: MD, data: bytes, dest_q: str, dest_qm: str, reason: int,
                       syncpoint: bool, who: str) -> str:
    """``dead_letter`` for a caller with no handle of its own: the dead-letter queue opened on
    ``conn`` for the one put, and closed."""
    opened: list[Handle] = []

    def handle(q: bytes, m: bytes) -> Handle:
        h = qm.open(conn, OD(ObjectName=q, ObjectQMgrName=m), C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT)
        opened.append(h)
        return h
    try:
        return dead_letter(qm, conn, handle, md, data, dest_q, dest_qm, reason, syncpoint, True, who)
    finally:
        for h in opened:
            qm.close(conn, h.hobj)
