"""Report messages in the engine alone: a report is journalled after what it confirms, and the
call's reply waits for it (issue 18: reports survive kill -9 exactly like their messages)."""
from __future__ import annotations

from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import MD, PMO
from mqlite.engine.ports import DelMsg, PutMsg
from tests.conftest import Engine


def journal(e: Engine) -> list[tuple[str, str, int]]:
    """Record (operation, queue, ticket) of everything the engine journals from now on."""
    log: list[tuple[str, str, int]] = []
    append, extend = e.store.append, e.store.extend

    def entry(op, t):
        return ("put", op.queue, t) if isinstance(op, PutMsg) else ("del", "", t) if isinstance(op, DelMsg) else (op, "", t)

    def one(op):
        t = append(op)
        log.append(entry(op, t))
        return t

    def many(ops):
        t = extend(ops)
        log.extend(entry(op, t) for op in ops)
        return t
    e.store.append, e.store.extend = one, many
    return log


def test_reports_are_journalled_after_what_they_confirm(eng: Engine):
    eng.mqsc("DEFINE QLOCAL(REPLY.Q)")
    h, _ = eng.open("Q1", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    log = journal(eng)
    report = dict(Persistence=C.MQPER_PERSISTENT, ReplyToQ=b"REPLY.Q")
    # Outside syncpoint: the message, then its COA; the put's reply waits for the COA too.
    eng.put(h.hobj, b"a", Report=C.MQRO_COA, **report)
    assert [x[:2] for x in log] == [("put", "Q1"), ("put", "REPLY.Q")]
    assert eng.conn.ticket == log[-1][2]
    # In a unit of work: the unit's operations, then the reports of MQCMIT (COA of the put, COD
    # of the get), and MQCMIT's reply waits for them.
    log.clear()
    eng.qm.put(eng.conn, h.hobj, MD(Report=C.MQRO_COA | C.MQRO_COD, **report), PMO(Options=C.MQPMO_SYNCPOINT),
               b"b")
    eng.qm.commit(eng.conn)
    assert [x[:2] for x in log] == [("put", "Q1"), ("put", "REPLY.Q")]
    assert eng.conn.ticket == log[-1][2]
    log.clear()
    eng.get(h.hobj, C.MQGMO_SYNCPOINT)              # the COA-only message "a"
    eng.get(h.hobj, C.MQGMO_SYNCPOINT)              # "b", which asks for COD
    assert log == []
    eng.qm.commit(eng.conn)
    assert [x[:2] for x in log] == [("del", ""), ("del", ""), ("put", "REPLY.Q")]
    assert eng.conn.ticket == log[-1][2]


def test_an_expiry_report_for_a_message_that_expired_on_its_way(eng: Engine):
    """A message that expires on a transmission queue: the report is about the application's
    message (its data and Format), not about the MQXQH in front of it."""
    eng.mqsc("DEFINE QLOCAL(REPLY.Q)\nDEFINE QLOCAL(XQ) USAGE(XMITQ)\n"
             "DEFINE QREMOTE(FAR.Q) RNAME(Q) RQMNAME(FAR) XMITQ(XQ)")
    far, _ = eng.open("FAR.Q", C.MQOO_OUTPUT)
    eng.put(far.hobj, b"too slow", Report=C.MQRO_EXPIRATION_WITH_FULL_DATA, ReplyToQ=b"REPLY.Q", Expiry=5,
            Format=C.MQFMT_STRING)
    eng.clock.advance(1)
    xq, _ = eng.open("XQ", C.MQOO_INPUT_SHARED)
    try:
        eng.get(xq.hobj)
        raise AssertionError("the expired message was got")
    except MQIError as e:
        assert e.reason == C.MQRC_NO_MSG_AVAILABLE
    reply, _ = eng.open("REPLY.Q", C.MQOO_INPUT_SHARED)
    r = eng.get(reply.hobj)
    assert (r.body, r.md.Feedback, r.md.Format) == (b"too slow", C.MQFB_EXPIRATION, C.MQFMT_STRING)
