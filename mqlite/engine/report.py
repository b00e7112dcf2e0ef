"""Report messages: confirm on arrival (COA), confirm on delivery (COD) and expiration, built as MQ
documents them and put to the original message's ReplyToQ at ReplyToQMgr like any other message
(so a report for a message from another queue manager goes back over the channels).

``wanted`` and ``build`` are pure: which report a message's Report field asks for, and the report's
descriptor and data. ``Reports`` (the queue manager's ``qm.reports``) sends them at the moments
MQ does: COA when the message is placed on its destination queue (at MQCMIT for a put in a unit of
work), COD when an application removes it (at MQCMIT for a get in a unit of work), expiration when
an expired message is found and discarded, exception when an agent cannot deliver it (the
dead-letter step, ``engine.deadletter``). A report that cannot be put goes to the dead-letter
queue; one that cannot go there either is dropped and logged, never failing the original call.
"""
from __future__ import annotations

from typing import Protocol

from mqlite.catalogue import message
from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.segments import SEGMENT_FLAGS
from mqlite.cmq.structs import MD, OD, PMO, pad, text
from mqlite.engine.core import Conn, put_date_time
from mqlite.engine.deadletter import AgentHost, dead_letter_opened

# kind: (the report, with the first 100 bytes, with all the data) options, and its Feedback.
KINDS = {
    "coa": ((C.MQRO_COA, C.MQRO_COA_WITH_DATA, C.MQRO_COA_WITH_FULL_DATA), C.MQFB_COA),
    "cod": ((C.MQRO_COD, C.MQRO_COD_WITH_DATA, C.MQRO_COD_WITH_FULL_DATA), C.MQFB_COD),
    "expiry": ((C.MQRO_EXPIRATION, C.MQRO_EXPIRATION_WITH_DATA, C.MQRO_EXPIRATION_WITH_FULL_DATA),
               C.MQFB_EXPIRATION),
    # Feedback: the reason the message could not be delivered.
    "exception": ((C.MQRO_EXCEPTION, C.MQRO_EXCEPTION_WITH_DATA, C.MQRO_EXCEPTION_WITH_FULL_DATA), C.MQFB_NONE),
}
ANY_REPORT = (C.MQRO_COA_WITH_FULL_DATA | C.MQRO_COD_WITH_FULL_DATA | C.MQRO_EXPIRATION_WITH_FULL_DATA
              | C.MQRO_EXCEPTION_WITH_FULL_DATA | C.MQRO_PAN | C.MQRO_NAN)


def wanted(report: int, kind: str) -> int:
    """0: no report of this kind; 1: a report without data; 2: with the first 100 bytes; 3: with
    all of the data (each option includes the ones before it, as MQ defines their bits)."""
    (plain, some, full), _fb = KINDS[kind]
    if report & full == full:
        return 3
    if report & some == some:
        return 2
    return 1 if report & plain else 0


def build(orig: MD, data: bytes, kind: str, level: int, qmgr: str, now: float,
          feedback: int = C.MQFB_NONE) -> tuple[MD, bytes]:
    """The report for ``orig`` (MQ's report-message descriptor rules)."""
    report = orig.Report
    date, tm = put_date_time(now)
    md = MD(Version=C.MQMD_VERSION_2, MsgType=C.MQMT_REPORT, Feedback=feedback or KINDS[kind][1],
            Priority=orig.Priority, Persistence=orig.Persistence,
            MsgId=orig.MsgId if report & C.MQRO_PASS_MSG_ID else b"",
            CorrelId=orig.CorrelId if report & C.MQRO_PASS_CORREL_ID else orig.MsgId,
            ReplyToQ=b"", ReplyToQMgr=pad(qmgr, 48), UserIdentifier=orig.UserIdentifier,
            AccountingToken=orig.AccountingToken, ApplIdentityData=orig.ApplIdentityData,
            PutApplType=C.MQAT_QMGR, PutApplName=pad(qmgr, 28), PutDate=date, PutTime=tm,
            ApplOriginData=orig.ApplOriginData, GroupId=orig.GroupId, MsgSeqNumber=orig.MsgSeqNumber,
            Offset=orig.Offset, MsgFlags=orig.MsgFlags & ~C.MQMF_SEGMENTATION_ALLOWED,
            # A report on a segment says how long that segment was (MQ: OriginalLength).
            OriginalLength=len(data) if orig.MsgFlags & SEGMENT_FLAGS else C.MQOL_UNDEFINED)
    if report & C.MQRO_PASS_DISCARD_AND_EXPIRY:
        md.Report = report & C.MQRO_DISCARD_MSG
        md.Expiry = orig.Expiry
    if level > 1:
        md.Format, md.Encoding, md.CodedCharSetId = orig.Format, orig.Encoding, orig.CodedCharSetId
        return md, data if level == 3 else data[:100]
    md.Format = C.MQFMT_NONE
    return md, b""


class ReportsHost(AgentHost, Protocol):
    """What sending reports needs of the queue manager, beyond an agent's dead-letter steps."""

    def connect(self, appl_name: str = "", appl_type: int = C.MQAT_UNIX, user: str = "") -> Conn: ...


class Reports:
    """Sends reports as the queue manager's report agent (``agent``, connected on first use)."""

    def __init__(self, qm: ReportsHost) -> None:
        self.qm = qm
        self.agent: Conn | None = None

    def send(self, conn: Conn | None, md: MD, data: bytes, kind: str, feedback: int = C.MQFB_NONE,
             queue: str | None = None) -> None:
        """Send the ``kind`` report ``md`` asks for, if it asks for one (``feedback``: an exception
        report's reason). ``queue``: where the message arrived or was taken; arriving at or leaving
        a transmission queue confirms nothing (the message is on its way). The caller has already
        journalled the message's own change: the report is never durable before what it reports."""
        level = wanted(md.peek("Report"), kind)
        if not level or (queue is not None and not self._is_destination(queue)):
            return
        md = md.copy()
        dest_q, dest_qm = text(md.ReplyToQ), text(md.ReplyToQMgr)
        if not dest_q:
            return
        qm = self.qm
        rmd, rdata = build(md, data, kind, level, qm.name, qm.clock.now(), feedback)
        agent = self.agent
        if agent is None:
            agent = self.agent = qm.connect("AMQRRMFA", C.MQAT_QMGR, "mqm")
        try:
            qm.put1(agent, OD(ObjectName=pad(dest_q, 48), ObjectQMgrName=pad(dest_qm, 48)), rmd,
                    PMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_SET_ALL_CONTEXT), rdata)
        except MQIError as e:
            why = dead_letter_opened(qm, agent, rmd, rdata, dest_q, dest_qm, e.reason, False, "the report generator")
            if why:
                qm.log(message("MQL8028W", kind=kind, dest_q=dest_q, dest_qm=dest_qm, why=why))
        if conn is not None and agent.ticket > conn.ticket:
            conn.ticket = agent.ticket              # the report is as durable as the call's reply

    def _is_destination(self, qname: str) -> bool:
        """A queue messages arrive at for an application (not a transmission queue)."""
        q = self.qm.queue(qname)
        return q is not None and q["USAGE"] != C.MQUS_TRANSMISSION
