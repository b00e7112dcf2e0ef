"""Report messages (issue 18, item 6) and properties across queue managers (item 4), through
``from mqlite import pymqi`` against real queue-manager processes."""
from __future__ import annotations

import time

from mqlite import pymqi
from mqlite.pymqi import CMQC as C
from tests.channels.test_channels import WAIT, harness, pair, sender  # noqa: F401  (harness: a fixture)
from tests.conftest import RunningQM
from tests.helpers import reason

REPORT_WAIT = pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=10000)


def test_coa_cod_and_expiry_reports(running_qm: RunningQM):
    running_qm.mqsc("DEFINE QLOCAL(REPLY.Q)")
    qm = running_qm.client()
    put, get = pymqi.Queue(qm, "TEST.Q", C.MQOO_OUTPUT), pymqi.Queue(qm, "TEST.Q", C.MQOO_INPUT_SHARED)
    replies = pymqi.Queue(qm, "REPLY.Q", C.MQOO_INPUT_SHARED)
    md = pymqi.MD(Report=C.MQRO_COA | C.MQRO_COD_WITH_DATA, ReplyToQ=b"REPLY.Q", Persistence=C.MQPER_PERSISTENT)
    put.put(b"x" * 150, md)
    coa = pymqi.MD()
    assert replies.get(None, coa) == b""                           # COA: at once, no data asked for
    assert (coa.MsgType, coa.Feedback, coa.CorrelId, coa.Persistence, coa.Format) == (
        C.MQMT_REPORT, C.MQFB_COA, md.MsgId, C.MQPER_PERSISTENT, C.MQFMT_NONE)
    assert coa.MsgId != md.MsgId and coa.PutApplName.strip() == running_qm.name.encode()
    assert reason_of(replies.get, None, pymqi.MD()) == C.MQRC_NO_MSG_AVAILABLE   # no COD before the get
    get.get(None, pymqi.MD())
    cod = pymqi.MD()
    assert replies.get(None, cod) == b"x" * 100                    # COD_WITH_DATA: the first 100 bytes
    assert cod.Feedback == C.MQFB_COD
    # In a unit of work: COA at MQCMIT (not before), COD at MQCMIT, none after a backout.
    md = pymqi.MD(Report=C.MQRO_COA | C.MQRO_COD | C.MQRO_PASS_MSG_ID | C.MQRO_PASS_CORREL_ID,
                  ReplyToQ=b"REPLY.Q", CorrelId=b"C" * 24)
    put.put(b"uow", md, pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
    assert reason_of(replies.get, None, pymqi.MD()) == C.MQRC_NO_MSG_AVAILABLE
    qm.commit()
    coa = pymqi.MD()
    replies.get(None, coa)
    assert (coa.Feedback, coa.MsgId, coa.CorrelId) == (C.MQFB_COA, md.MsgId, b"C" * 24)
    get.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_SYNCPOINT))
    qm.backout()
    assert reason_of(replies.get, None, pymqi.MD()) == C.MQRC_NO_MSG_AVAILABLE
    get.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_SYNCPOINT))
    qm.commit()
    assert pymqi.MD() and replies.get(None, cod := pymqi.MD()) == b"" and cod.Feedback == C.MQFB_COD
    # Expiry: when the expired message is found, with all of its data if asked.
    md = pymqi.MD(Report=C.MQRO_EXPIRATION_WITH_FULL_DATA, ReplyToQ=b"REPLY.Q", Expiry=1)
    put.put(b"too late", md)
    time.sleep(0.3)
    assert reason_of(get.get, None, pymqi.MD()) == C.MQRC_NO_MSG_AVAILABLE
    exp = pymqi.MD()
    assert replies.get(None, exp) == b"too late" and exp.Feedback == C.MQFB_EXPIRATION
    # A report asked for without a ReplyToQ: 2027, nothing put. One that cannot be delivered goes to
    # the dead-letter queue; the original put still succeeds.
    assert reason_of(put.put, b"x", pymqi.MD(Report=C.MQRO_COA)) == C.MQRC_MISSING_REPLY_TO_Q
    put.put(b"y", pymqi.MD(Report=C.MQRO_COA, ReplyToQ=b"NO.SUCH.Q"))
    dlq = pymqi.Queue(qm, "SYSTEM.DEAD.LETTER.QUEUE", C.MQOO_INPUT_SHARED)
    dmd = pymqi.MD()
    dlq.get(None, dmd)
    assert (dmd.Format, dmd.MsgType, dmd.Feedback) == (C.MQFMT_DEAD_LETTER_HEADER, C.MQMT_REPORT, C.MQFB_COA)
    qm.disconnect()


def reason_of(fn, *args) -> int:
    return reason(fn, *args)[1]


def test_reports_and_properties_cross_queue_managers(harness):  # noqa: F811
    """A message with properties and COA/COD put on QM1 for a queue on QM2: it arrives with its
    properties, and both reports come back over the channel to QM1's reply queue."""
    qm1, qm2 = pair(harness)
    qm2.mqsc(sender("QM2.TO.QM1", qm1, "QM1"), check=True)
    qm1.mqsc("DEFINE CHANNEL(QM2.TO.QM1) CHLTYPE(RCVR)\nDEFINE QLOCAL(REPLY.Q)\n", check=True)
    c1, c2 = qm1.client(), qm2.client()
    mh = pymqi.MessageHandle(c1)
    mh.properties.set("colour", "red")
    mh.properties.set("n", 7, C.MQTYPE_INT32)
    md = pymqi.MD(Report=C.MQRO_COA | C.MQRO_COD, ReplyToQ=b"REPLY.Q", Persistence=C.MQPER_PERSISTENT)
    pymqi.Queue(c1, "REMOTE.Q").put(b"travelling", md, pymqi.PMO(OriginalMsgHandle=mh.msg_handle))
    got = pymqi.MessageHandle(c2)
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=10000, MsgHandle=got.msg_handle)
    assert pymqi.Queue(c2, "TARGET.Q").get(None, pymqi.MD(), gmo) == b"travelling"
    assert (got.properties.get("colour"), got.properties.get("n")) == ("red", 7)
    replies = pymqi.Queue(c1, "REPLY.Q")
    feedback = set()
    for _ in range(2):
        rmd = pymqi.MD()
        replies.get(None, rmd, REPORT_WAIT)
        assert (rmd.MsgType, rmd.CorrelId, rmd.PutApplName.strip()) == (C.MQMT_REPORT, md.MsgId, b"QM2")
        feedback.add(rmd.Feedback)
    assert feedback == {C.MQFB_COA, C.MQFB_COD}
    c1.disconnect()
    c2.disconnect()


def test_exception_report_and_discard_when_a_channel_cannot_deliver(harness):  # noqa: F811
    """A message for a queue QM2 does not have: with MQRO_EXCEPTION_WITH_DATA and MQRO_DISCARD_MSG
    the receiving end discards it and sends an exception report (Feedback: the reason) back over the
    channel; the channel goes on, and a later message arrives."""
    qm1, qm2 = pair(harness)
    qm2.mqsc(sender("QM2.TO.QM1", qm1, "QM1"), check=True)
    qm1.mqsc("DEFINE CHANNEL(QM2.TO.QM1) CHLTYPE(RCVR)\nDEFINE QLOCAL(REPLY.Q)\n"
             "DEFINE QREMOTE(BAD.Q) RNAME(NO.SUCH.Q) RQMNAME(QM2) XMITQ(QM2)\n", check=True)
    c1 = qm1.client()
    md = pymqi.MD(Report=C.MQRO_EXCEPTION_WITH_DATA | C.MQRO_DISCARD_MSG, ReplyToQ=b"REPLY.Q")
    pymqi.Queue(c1, "BAD.Q").put(b"z" * 300, md)
    pymqi.Queue(c1, "REMOTE.Q").put(b"after")
    rmd = pymqi.MD()
    assert pymqi.Queue(c1, "REPLY.Q").get(None, rmd, REPORT_WAIT) == b"z" * 100
    assert (rmd.MsgType, rmd.Feedback, rmd.CorrelId) == (C.MQMT_REPORT, C.MQRC_UNKNOWN_OBJECT_NAME, md.MsgId)
    c2 = qm2.client()
    assert pymqi.Queue(c2, "TARGET.Q").get(None, pymqi.MD(), WAIT) == b"after"
    c1.disconnect()
    c2.disconnect()
