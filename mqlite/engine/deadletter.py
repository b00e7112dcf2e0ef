"""The dead-letter step for a message that cannot be delivered (a receiving MCA, a sending MCA with
a message too big for its channel, the IGQ agent): onto the queue manager's DEADQ behind an MQDLH,
as MQ's agents do. Engine calls only: the caller holds the engine's lock."""
from __future__ import annotations

from typing import Callable, Protocol

from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.headers import DLH
from mqlite.cmq.structs import MD, PMO, pad
from mqlite.engine.clock import Clock
from mqlite.engine.core import Conn, Handle, put_date_time
from mqlite.objects.model import MQObject


class DeadLetterHost(Protocol):
    """What the dead-letter step needs of the queue manager."""
    name: str
    qmgr: MQObject
    clock: Clock

    def log(self, text: str) -> None: ...

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
        qm.log(f"AMQ9544W: Message discarded (MQRO_DISCARD_MSG) by {who}. Reason {reason} for {dest_q} on {dest_qm}.")
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
    qm.log(f"AMQ9544W: Message put to the dead-letter queue {deadq} by {who}. {why}")
    return ""
