"""MQI semantics in the sans-IO engine, with a fake clock: each test asserts MQ's reason codes."""
from __future__ import annotations

import pytest

from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.headers import XQH
from mqlite.cmq.structs import GMO, MD, OD, PMO, text
from tests.conftest import Engine

IO = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT
ALL = IO | C.MQOO_BROWSE | C.MQOO_INQUIRE | C.MQOO_SET


def reason(fn, *args, **kw) -> int:
    with pytest.raises(MQIError) as e:
        fn(*args, **kw)
    return e.value.reason


def test_put_get_fifo_within_priority_and_priority_order(eng: Engine):
    h, _ = eng.open("Q1", IO)
    for i, prio in enumerate([0, 5, 0, 9, 5]):
        eng.put(h.hobj, f"m{i}".encode(), Priority=prio)
    got = [eng.get(h.hobj).body for _ in range(5)]
    assert got == [b"m3", b"m1", b"m4", b"m0", b"m2"]
    assert reason(eng.get, h.hobj) == C.MQRC_NO_MSG_AVAILABLE


def test_msgdlvsq_fifo_ignores_priority(eng: Engine):
    eng.mqsc("DEFINE QLOCAL(QF) MSGDLVSQ(FIFO)")
    h, _ = eng.open("QF", IO)
    for i, prio in enumerate([0, 9, 3]):
        eng.put(h.hobj, f"m{i}".encode(), Priority=prio)
    assert [eng.get(h.hobj).body for _ in range(3)] == [b"m0", b"m1", b"m2"]


def test_put_fills_descriptor_and_defaults_from_queue(eng: Engine):
    eng.mqsc("DEFINE QLOCAL(QD) DEFPRTY(4) DEFPSIST(YES)")
    h, _ = eng.open("QD", IO)
    md, pmo = eng.put(h.hobj, b"x")
    assert md.MsgId[:4] == b"AMQ " and len(md.MsgId) == 24
    assert len(md.PutDate) == 8 and len(md.PutTime) == 8
    assert text(md.ReplyToQMgr) == "QM1"
    assert text(pmo.ResolvedQName) == "QD" and text(pmo.ResolvedQMgrName) == "QM1"
    r = eng.get(h.hobj)
    assert r.md.Priority == 4 and r.md.Persistence == C.MQPER_PERSISTENT
    assert text(r.md.UserIdentifier) == "tester" and text(r.md.PutApplName) == "pytest"
    assert r.md.MsgId == md.MsgId


def test_match_msgid_correlid_and_groupid(eng: Engine):
    h, _ = eng.open("Q1", IO)
    eng.put(h.hobj, b"a", CorrelId=b"C1".ljust(24, b"\0"))
    md_b, _ = eng.put(h.hobj, b"b", CorrelId=b"C2".ljust(24, b"\0"))
    eng.put(h.hobj, b"c", CorrelId=b"C2".ljust(24, b"\0"))
    assert eng.get(h.hobj, CorrelId=b"C2".ljust(24, b"\0")).body == b"b"
    assert reason(eng.get, h.hobj, MsgId=md_b.MsgId) == C.MQRC_NO_MSG_AVAILABLE
    # With MatchOptions none, the MsgId in the MD is ignored.
    assert eng.get(h.hobj, match=C.MQMO_NONE, MsgId=md_b.MsgId).body == b"a"
    assert reason(eng.get, h.hobj, match=0x1000) == C.MQRC_MATCH_OPTIONS_ERROR


def test_browse_first_next_and_under_cursor(eng: Engine):
    h, _ = eng.open("Q1", IO | C.MQOO_BROWSE)
    for i in range(3):
        eng.put(h.hobj, f"m{i}".encode())
    assert eng.get(h.hobj, C.MQGMO_BROWSE_FIRST).body == b"m0"
    assert eng.get(h.hobj, C.MQGMO_BROWSE_NEXT).body == b"m1"
    # The message under the cursor is removed by a destructive get that names it.
    assert eng.get(h.hobj, C.MQGMO_MSG_UNDER_CURSOR).body == b"m1"
    assert reason(eng.get, h.hobj, C.MQGMO_MSG_UNDER_CURSOR) == C.MQRC_NO_MSG_UNDER_CURSOR
    assert eng.get(h.hobj, C.MQGMO_BROWSE_NEXT).body == b"m2"
    assert reason(eng.get, h.hobj, C.MQGMO_BROWSE_NEXT) == C.MQRC_NO_MSG_AVAILABLE
    assert eng.qm.queues["Q1"].depth == 2
    assert reason(eng.get, h.hobj, C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT) == C.MQRC_OPTIONS_ERROR


def test_browse_needs_browse_option(eng: Engine):
    h, _ = eng.open("Q1", IO)
    eng.put(h.hobj)
    assert reason(eng.get, h.hobj, C.MQGMO_BROWSE_FIRST) == C.MQRC_NOT_OPEN_FOR_BROWSE
    ho, _ = eng.open("Q1", C.MQOO_OUTPUT)
    assert reason(eng.get, ho.hobj) == C.MQRC_NOT_OPEN_FOR_INPUT
    hi, _ = eng.open("Q1", C.MQOO_INPUT_SHARED)
    assert reason(eng.put, hi.hobj) == C.MQRC_NOT_OPEN_FOR_OUTPUT


def test_truncation_failed_leaves_message_and_accepted_removes_it(eng: Engine):
    h, _ = eng.open("Q1", IO)
    eng.put(h.hobj, b"0123456789")
    r = eng.get(h.hobj, max_length=4)
    assert (r.comp, r.reason, r.data_length, r.body) == (C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_FAILED, 10, b"0123")
    assert eng.qm.queues["Q1"].depth == 1
    r = eng.get(h.hobj, C.MQGMO_ACCEPT_TRUNCATED_MSG, max_length=4)
    assert (r.reason, r.data_length, r.body) == (C.MQRC_TRUNCATED_MSG_ACCEPTED, 10, b"0123")
    assert eng.qm.queues["Q1"].depth == 0


def test_put_and_get_inhibited_anywhere_on_the_path(eng: Engine):
    eng.mqsc("DEFINE QALIAS(A1) TARGET(Q1)")
    h, _ = eng.open("A1", IO)
    eng.put(h.hobj, b"x")
    eng.mqsc("ALTER QLOCAL(Q1) PUT(DISABLED)")
    assert reason(eng.put, h.hobj) == C.MQRC_PUT_INHIBITED
    eng.mqsc("ALTER QLOCAL(Q1) PUT(ENABLED)")
    eng.mqsc("ALTER QALIAS(A1) PUT(DISABLED)")
    assert reason(eng.put, h.hobj) == C.MQRC_PUT_INHIBITED
    eng.mqsc("ALTER QALIAS(A1) GET(DISABLED)")
    assert reason(eng.get, h.hobj) == C.MQRC_GET_INHIBITED
    eng.mqsc("ALTER QALIAS(A1) GET(ENABLED)")
    eng.mqsc("ALTER QLOCAL(Q1) GET(DISABLED)")
    assert reason(eng.get, h.hobj) == C.MQRC_GET_INHIBITED


def test_maxdepth_and_maxmsgl(eng: Engine):
    eng.mqsc("DEFINE QLOCAL(QS) MAXDEPTH(2) MAXMSGL(10)")
    h, _ = eng.open("QS", IO)
    eng.put(h.hobj, b"1")
    eng.put(h.hobj, b"2")
    assert reason(eng.put, h.hobj, b"3") == C.MQRC_Q_FULL
    eng.get(h.hobj)
    assert reason(eng.put, h.hobj, b"x" * 11) == C.MQRC_MSG_TOO_BIG_FOR_Q
    eng.mqsc("ALTER QMGR MAXMSGL(32768)")
    eng.mqsc("ALTER QLOCAL(QS) MAXMSGL(100000)")
    assert reason(eng.put, h.hobj, b"x" * 40000) == C.MQRC_MSG_TOO_BIG_FOR_Q_MGR


def test_expiry_counts_down_and_expired_messages_are_discarded(eng: Engine):
    h, _ = eng.open("Q1", IO | C.MQOO_BROWSE)
    eng.put(h.hobj, b"short", Expiry=50)          # five seconds
    eng.put(h.hobj, b"long", Expiry=600)
    eng.clock.advance(2.0)
    r = eng.get(h.hobj, C.MQGMO_BROWSE_FIRST)
    assert r.body == b"short" and r.md.Expiry == 30
    eng.clock.advance(3.5)
    r = eng.get(h.hobj)
    assert r.body == b"long" and r.md.Expiry == 545
    assert eng.qm.queues["Q1"].depth == 0
    assert reason(eng.put, h.hobj, Expiry=0) == C.MQRC_EXPIRY_ERROR


def test_units_of_work_commit_backout_and_backout_count(eng: Engine):
    h, _ = eng.open("Q1", IO)
    eng.put(h.hobj, b"a", pmo_options=C.MQPMO_SYNCPOINT)
    other = eng.qm.connect("other")
    h2, _ = eng.open("Q1", IO, conn=other)
    assert reason(eng.get, h2.hobj, conn=other) == C.MQRC_NO_MSG_AVAILABLE   # not yet committed
    assert eng.qm.queues["Q1"].depth == 1 and eng.qm.queues["Q1"].uncommitted == 1
    eng.qm.commit(eng.conn)
    r = eng.get(h2.hobj, C.MQGMO_SYNCPOINT, conn=other)
    assert r.body == b"a" and r.md.BackoutCount == 0
    eng.qm.backout(other)
    r = eng.get(h2.hobj, C.MQGMO_SYNCPOINT, conn=other)
    assert r.md.BackoutCount == 1
    eng.qm.commit(other)
    assert eng.qm.queues["Q1"].depth == 0


def test_put_backout_discards_and_disconnect_commits(eng: Engine):
    h, _ = eng.open("Q1", IO)
    eng.put(h.hobj, b"gone", pmo_options=C.MQPMO_SYNCPOINT)
    eng.qm.backout(eng.conn)
    assert eng.qm.queues["Q1"].depth == 0
    c2 = eng.qm.connect("app")
    h2, _ = eng.open("Q1", IO, conn=c2)
    eng.put(h2.hobj, b"kept", conn=c2, pmo_options=C.MQPMO_SYNCPOINT)
    eng.qm.disconnect(c2, commit=True)
    c3 = eng.qm.connect("app")
    h3, _ = eng.open("Q1", IO, conn=c3)
    eng.put(h3.hobj, b"broken", conn=c3, pmo_options=C.MQPMO_SYNCPOINT)
    eng.qm.disconnect(c3, commit=False)   # a broken connection backs out
    assert [eng.get(h.hobj).body] == [b"kept"]
    assert eng.qm.queues["Q1"].depth == 0


def test_maxumsgs_limits_a_unit_of_work(eng: Engine):
    eng.mqsc("ALTER QMGR MAXUMSGS(3)")
    h, _ = eng.open("Q1", IO)
    for _ in range(3):
        eng.put(h.hobj, pmo_options=C.MQPMO_SYNCPOINT)
    assert reason(eng.put, h.hobj, pmo_options=C.MQPMO_SYNCPOINT) == C.MQRC_SYNCPOINT_LIMIT_REACHED
    eng.qm.commit(eng.conn)
    assert eng.qm.queues["Q1"].depth == 3


def test_input_sharing_rules(eng: Engine):
    eng.mqsc("DEFINE QLOCAL(QX) DEFSOPT(EXCL)\nDEFINE QLOCAL(QN) NOSHARE")
    h, _ = eng.open("Q1", C.MQOO_INPUT_SHARED)
    eng.open("Q1", C.MQOO_INPUT_AS_Q_DEF)
    assert reason(eng.open, "Q1", C.MQOO_INPUT_EXCLUSIVE) == C.MQRC_OBJECT_IN_USE
    eng.open("QX", C.MQOO_INPUT_AS_Q_DEF)                  # DEFSOPT(EXCL): exclusive
    assert reason(eng.open, "QX", C.MQOO_INPUT_SHARED) == C.MQRC_OBJECT_IN_USE
    eng.open("QN", C.MQOO_INPUT_SHARED)                    # NOSHARE makes it exclusive anyway
    assert reason(eng.open, "QN", C.MQOO_INPUT_SHARED) == C.MQRC_OBJECT_IN_USE
    eng.qm.close(eng.conn, h.hobj)


@pytest.mark.parametrize("options", [
    0,                                                             # no access option
    C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE,
    C.MQOO_BIND_ON_OPEN | C.MQOO_BIND_NOT_FIXED | C.MQOO_OUTPUT,
    C.MQOO_SAVE_ALL_CONTEXT | C.MQOO_OUTPUT,
    C.MQOO_SET_ALL_CONTEXT | C.MQOO_INPUT_SHARED,
    C.MQOO_CO_OP | C.MQOO_OUTPUT,
    C.MQOO_READ_AHEAD | C.MQOO_NO_READ_AHEAD | C.MQOO_INPUT_SHARED,
    0x40000000,
])
def test_open_option_errors(eng: Engine, options: int):
    assert reason(eng.open, "Q1", options) == C.MQRC_OPTIONS_ERROR


def test_queue_manager_object_inquire_only(eng: Engine):
    od = OD(ObjectType=C.MQOT_Q_MGR)
    h = eng.qm.open(eng.conn, od, C.MQOO_INQUIRE)
    vals = eng.qm.inquire(eng.conn, h.hobj, [C.MQCA_Q_MGR_NAME, C.MQIA_MAX_UNCOMMITTED_MSGS, C.MQIA_COMMAND_LEVEL])
    assert vals == [b"QM1".ljust(48), 10000, 940]
    assert reason(eng.qm.open, eng.conn, OD(ObjectType=C.MQOT_Q_MGR), C.MQOO_OUTPUT) == C.MQRC_OPTION_NOT_VALID_FOR_TYPE
    assert reason(eng.qm.open, eng.conn, OD(ObjectType=C.MQOT_Q_MGR, ObjectQMgrName=b"OTHER"),
                  C.MQOO_INQUIRE) == C.MQRC_UNKNOWN_OBJECT_Q_MGR
    assert reason(eng.qm.open, eng.conn, OD(ObjectType=77), C.MQOO_INQUIRE) == C.MQRC_OBJECT_TYPE_ERROR


def test_inquire_and_set(eng: Engine):
    h, _ = eng.open("Q1", ALL)
    eng.put(h.hobj)
    vals = eng.qm.inquire(eng.conn, h.hobj, [C.MQIA_CURRENT_Q_DEPTH, C.MQCA_Q_NAME, C.MQIA_Q_TYPE,
                                              C.MQIA_INHIBIT_PUT, C.MQIA_OPEN_INPUT_COUNT])
    assert vals == [1, b"Q1".ljust(48), C.MQQT_LOCAL, C.MQQA_PUT_ALLOWED, 1]
    assert reason(eng.qm.inquire, eng.conn, h.hobj, [99999]) == C.MQRC_SELECTOR_ERROR
    eng.qm.set(eng.conn, h.hobj, [C.MQIA_INHIBIT_PUT], [C.MQQA_PUT_INHIBITED])
    assert reason(eng.put, h.hobj) == C.MQRC_PUT_INHIBITED
    assert eng.qm.queue("Q1")["PUT"] == C.MQQA_PUT_INHIBITED
    assert reason(eng.qm.set, eng.conn, h.hobj, [C.MQIA_MAX_Q_DEPTH], [5]) == C.MQRC_SELECTOR_ERROR
    assert reason(eng.qm.set, eng.conn, h.hobj, [C.MQIA_INHIBIT_GET], [7]) == C.MQRC_INHIBIT_VALUE_ERROR
    hp, _ = eng.open("Q1", C.MQOO_OUTPUT)
    assert reason(eng.qm.set, eng.conn, hp.hobj, [C.MQIA_INHIBIT_PUT], [0]) == C.MQRC_NOT_OPEN_FOR_SET
    assert reason(eng.qm.inquire, eng.conn, hp.hobj, [C.MQIA_CURRENT_Q_DEPTH]) == C.MQRC_NOT_OPEN_FOR_INQUIRE


def test_temporary_dynamic_queue_from_model(eng: Engine):
    h, od = eng.open("SYSTEM.DEFAULT.MODEL.QUEUE", IO, DynamicQName=b"REPLY.*")
    name = text(od.ObjectName)
    assert name.startswith("REPLY.") and len(od.ObjectName) == 48 and od.ObjectName.endswith(b" ")
    assert eng.qm.queue(name)["DEFTYPE"] == C.MQQDT_TEMPORARY_DYNAMIC
    eng.put(h.hobj, b"np", Persistence=C.MQPER_NOT_PERSISTENT)
    assert reason(eng.put, h.hobj, Persistence=C.MQPER_PERSISTENT) == C.MQRC_PERSISTENT_NOT_ALLOWED
    eng.qm.close(eng.conn, h.hobj)
    assert eng.qm.queue(name) is None


def test_permanent_dynamic_queue_close_delete(eng: Engine):
    eng.mqsc("DEFINE QMODEL(PM) DEFTYPE(PERMDYN)")
    h, od = eng.open("PM", IO, DynamicQName=b"PERM.Q1")
    assert text(od.ObjectName) == "PERM.Q1"
    eng.put(h.hobj, b"x")
    assert reason(eng.qm.close, eng.conn, h.hobj, C.MQCO_DELETE) == C.MQRC_Q_NOT_EMPTY
    eng.qm.close(eng.conn, h.hobj, C.MQCO_DELETE_PURGE)
    assert eng.qm.queue("PERM.Q1") is None
    assert reason(eng.open, "PM", IO, DynamicQName=b"BAD*NAME") == C.MQRC_DYNAMIC_Q_NAME_ERROR
    h1, _ = eng.open("Q1", IO)
    assert reason(eng.qm.close, eng.conn, h1.hobj, C.MQCO_DELETE) == C.MQRC_OPTION_NOT_VALID_FOR_TYPE


def test_put1_to_model_is_q_type_error(eng: Engine):
    assert reason(eng.qm.put1, eng.conn, OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE"), MD(), PMO(), b"x") == \
        C.MQRC_Q_TYPE_ERROR
    eng.qm.put1(eng.conn, OD(ObjectName=b"Q1"), MD(), PMO(), b"x")
    assert eng.qm.queues["Q1"].depth == 1


def test_logical_order_groups(eng: Engine):
    h, _ = eng.open("Q1", IO)
    eng.put(h.hobj, b"solo")
    for i in range(3):
        flags = C.MQMF_LAST_MSG_IN_GROUP if i == 2 else C.MQMF_MSG_IN_GROUP
        md, _ = eng.put(h.hobj, f"g{i}".encode(), pmo_options=C.MQPMO_LOGICAL_ORDER, MsgFlags=flags)
        assert md.MsgSeqNumber == i + 1
    gid = md.GroupId
    g = C.MQGMO_LOGICAL_ORDER
    r = eng.get(h.hobj, g, match=C.MQMO_NONE)
    assert r.body == b"solo" and r.gmo.GroupStatus == C.MQGS_NOT_IN_GROUP
    seen = []
    for _ in range(3):
        r = eng.get(h.hobj, g, match=C.MQMO_NONE)
        seen.append((r.body, r.md.GroupId == gid, r.gmo.GroupStatus))
    assert seen == [(b"g0", True, C.MQGS_MSG_IN_GROUP), (b"g1", True, C.MQGS_MSG_IN_GROUP),
                    (b"g2", True, C.MQGS_LAST_MSG_IN_GROUP)]


def test_all_msgs_available_waits_for_complete_group(eng: Engine):
    h, _ = eng.open("Q1", IO)
    eng.put(h.hobj, b"g1", pmo_options=C.MQPMO_LOGICAL_ORDER, MsgFlags=C.MQMF_MSG_IN_GROUP)
    opts = C.MQGMO_LOGICAL_ORDER | C.MQGMO_ALL_MSGS_AVAILABLE
    assert reason(eng.get, h.hobj, opts, match=C.MQMO_NONE) == C.MQRC_NO_MSG_AVAILABLE
    eng.put(h.hobj, b"g2", pmo_options=C.MQPMO_LOGICAL_ORDER, MsgFlags=C.MQMF_LAST_MSG_IN_GROUP)
    assert eng.get(h.hobj, opts, match=C.MQMO_NONE).body == b"g1"


def test_remote_put_goes_to_xmitq_behind_mqxqh(eng: Engine):
    eng.mqsc("DEFINE QLOCAL(QM2) USAGE(XMITQ)\nDEFINE QREMOTE(R1) RNAME(TARGET.Q) RQMNAME(QM2)")
    h, od = eng.open("R1", C.MQOO_OUTPUT)
    assert (text(od.ResolvedQName), text(od.ResolvedQMgrName)) == ("TARGET.Q", "QM2")
    eng.put(h.hobj, b"payload", CorrelId=b"C" * 24, Format=C.MQFMT_STRING)
    hx, _ = eng.open("QM2", C.MQOO_INPUT_SHARED)
    r = eng.get(hx.hobj)
    assert r.md.Format == C.MQFMT_XMIT_Q_HEADER
    xqh = XQH.from_bytes(r.body)
    assert xqh.StrucId == b"XQH " and xqh.Version == 1
    assert text(xqh.RemoteQName) == "TARGET.Q" and text(xqh.RemoteQMgrName) == "QM2"
    assert xqh.MsgDesc.CorrelId == b"C" * 24 and xqh.MsgDesc.Format == C.MQFMT_STRING
    assert r.body[428:] == b"payload"


def test_reply_to_qmgr_from_remote_definition(eng: Engine):
    eng.mqsc("DEFINE QLOCAL(QM2) USAGE(XMITQ)\nDEFINE QREMOTE(REPLY.ALIAS) RNAME(REAL.REPLY) RQMNAME(QM2)")
    h, _ = eng.open("Q1", IO)
    eng.put(h.hobj, b"req", MsgType=C.MQMT_REQUEST, ReplyToQ=b"REPLY.ALIAS")
    r = eng.get(h.hobj)
    assert text(r.md.ReplyToQMgr) == "QM2" and text(r.md.ReplyToQ) == "REAL.REPLY"
    assert reason(eng.put, h.hobj, MsgType=C.MQMT_REQUEST) == C.MQRC_MISSING_REPLY_TO_Q


def test_cannot_delete_queue_in_use_through_alias(eng: Engine):
    eng.mqsc("DEFINE QALIAS(A1) TARGET(Q1)")
    h, _ = eng.open("A1", C.MQOO_OUTPUT)
    r = eng.mqsc("DELETE QLOCAL(Q1)")
    assert r.status == "error" and r.lines[0].startswith("AMQ8148E")
    r = eng.mqsc("DELETE QALIAS(A1)")
    assert r.lines[0].startswith("AMQ8148E")
    eng.qm.close(eng.conn, h.hobj)
    assert eng.mqsc("DELETE QALIAS(A1)").status == "ok"


def test_deleted_queue_answers_q_deleted(eng: Engine):
    eng.mqsc("DEFINE QMODEL(PM2) DEFTYPE(PERMDYN)")
    h, od = eng.open("PM2", IO, DynamicQName=b"DYN.X")
    c2 = eng.qm.connect("other")
    h2, _ = eng.open("DYN.X", IO, conn=c2)
    eng.qm.close(c2, h2.hobj)
    eng.qm.close(eng.conn, h.hobj, C.MQCO_DELETE)
    assert eng.qm.queue("DYN.X") is None


def test_async_put_outcomes_and_failed_uow(eng: Engine):
    eng.mqsc("DEFINE QLOCAL(QA) MAXDEPTH(1) DEFPRESP(ASYNC)")
    h, _ = eng.open("QA", IO)
    assert h.async_put
    eng.qm.put_async(eng.conn, h.hobj, MD().pack(), PMO().pack(), b"1")
    eng.qm.put_async(eng.conn, h.hobj, MD().pack(), PMO().pack(), b"2")      # queue full
    st = eng.qm.stat(eng.conn)
    assert (st["ok"], st["fail"], st["reason"], st["comp"]) == (1, 1, C.MQRC_Q_FULL, C.MQCC_FAILED)
    eng.get(h.hobj)
    eng.qm.put_async(eng.conn, h.hobj, MD().pack(), PMO(Options=C.MQPMO_SYNCPOINT).pack(), b"a")
    eng.qm.put_async(eng.conn, h.hobj, MD().pack(), PMO(Options=C.MQPMO_SYNCPOINT).pack(), b"b")   # full: UOW fails
    assert reason(eng.qm.commit, eng.conn) == C.MQRC_BACKED_OUT
    assert eng.qm.queues["QA"].depth == 0



@pytest.mark.parametrize("fields", [{}, {"MsgType": C.MQMT_REQUEST, "ReplyToQ": b"REPLY.Q", "Priority": 7,
                                         "Report": C.MQRO_PASS_MSG_ID}])
def test_an_async_put_stores_what_the_answered_put_stores(eng: Engine, fields: dict):
    """An asynchronous put is made unanswered (``answered=False``: no answer packed, and off the
    plain path the engine keeps the decoded MQMD): the plain and the full path store what the
    same put answered stores, the queue manager's context and a new MsgId included."""
    eng.mqsc("DEFINE QLOCAL(QA2) DEFPRESP(ASYNC)")
    h, _ = eng.open("QA2", IO)
    md, pmo = MD(Persistence=C.MQPER_PERSISTENT, **fields).pack(), PMO().pack()
    eng.qm.put_async(eng.conn, h.hobj, md, pmo, b"async")
    warning, answer = eng.qm.put_request(eng.conn, h.hobj, md, pmo, b"answered")
    assert warning == C.MQRC_NONE and len(answer) == len(md) + len(pmo)
    got = [eng.get(h.hobj) for _ in range(2)]
    assert [g.body for g in got] == [b"async", b"answered"]
    names = [n for n in MD.field_names() if n not in ("MsgId", "PutDate", "PutTime")]
    assert [getattr(got[0].md, n) for n in names] == [getattr(got[1].md, n) for n in names]
    assert got[0].md.PutApplName.strip() and got[0].md.ReplyToQMgr.strip() == eng.qm.name.encode()
    assert got[0].md.MsgId.strip(b"\0") and got[0].md.MsgId != got[1].md.MsgId
    assert (got[0].md.ReplyToQ.strip(), got[0].md.Priority) == (fields.get("ReplyToQ", b""), fields.get("Priority", 0))

def test_read_ahead_batches_and_release(eng: Engine):
    eng.mqsc("DEFINE QLOCAL(RA) DEFREADA(YES)")
    h, _ = eng.open("RA", IO)
    assert h.read_ahead_ok
    for i in range(5):
        eng.put(h.hobj, f"m{i}".encode(), Persistence=C.MQPER_NOT_PERSISTENT)
    eng.put(h.hobj, b"p", Persistence=C.MQPER_PERSISTENT)
    batch = eng.qm.get_batch(eng.conn, h.hobj, 0, 3, 1 << 20, GMO())
    assert [b for _md, b, _a in batch] == [b"m0", b"m1", b"m2"]
    assert eng.qm.queues["RA"].depth == 3
    # two consumed; the third goes back to its place when released
    eng.qm.settle(eng.conn, h.hobj, 2, release=True)
    assert [eng.get(h.hobj).body for _ in range(3)] == [b"m2", b"m3", b"m4"]
    assert eng.qm.get_batch(eng.conn, h.hobj, 0, 3, 1 << 20, GMO(), speculative=True) == []
    batch = eng.qm.get_batch(eng.conn, h.hobj, 0, 3, 1 << 20, GMO())
    assert [(b, a) for _md, b, a in batch] == [(b"p", False)]   # a persistent message is got, not read ahead


def test_held_batches_hold_persistent_and_cod_until_acknowledged(eng: Engine):
    """BATCH_HOLD (the asyncio face): persistent and COD messages are held like the rest; nothing is
    journalled or reported until they are acknowledged, and a release puts them back in order."""
    eng.mqsc("DEFINE QLOCAL(HQ)\nDEFINE QLOCAL(HQ.REPLY)")
    h, _ = eng.open("HQ", IO)
    eng.put(h.hobj, b"p0", Persistence=C.MQPER_PERSISTENT)
    eng.put(h.hobj, b"c1", Persistence=C.MQPER_NOT_PERSISTENT, Report=C.MQRO_COD, ReplyToQ=b"HQ.REPLY")
    eng.put(h.hobj, b"p2", Persistence=C.MQPER_PERSISTENT)
    before = eng.store.last_ticket
    batch = eng.qm.get_batch(eng.conn, h.hobj, 0, 3, 1 << 20, GMO(), hold=True)
    assert [(b, a) for _md, b, a in batch] == [(b"p0", True), (b"c1", True), (b"p2", True)]
    assert eng.store.last_ticket == before and eng.qm.queues["HQ"].depth == 0
    assert eng.qm.queues["HQ.REPLY"].depth == 0
    eng.qm.settle(eng.conn, h.hobj, 2, release=False)          # p0 and c1 handed over
    assert eng.store.last_ticket > before                       # p0's removal journalled
    assert eng.qm.queues["HQ.REPLY"].depth == 1                 # c1's COD sent
    eng.qm.settle(eng.conn, h.hobj, 0, release=True)            # p2 goes back
    assert [eng.get(h.hobj).body for _ in range(1)] == [b"p2"]
    od = OD(ObjectName=b"HQ", Version=C.MQOD_VERSION_4)
    od.set_vs("SelectionString", b"JMSPriority > 4")
    sel = eng.qm.open(eng.conn, od, IO)
    assert reason(eng.qm.get_batch, eng.conn, sel.hobj, 0, 3, 1 << 20, GMO(), False, False, True) \
        == C.MQRC_OPTIONS_ERROR


def test_packed_descriptor_decodes_on_first_use():
    from mqlite.cmq.packedmd import PackedMD
    raw = MD(MsgId=b"M" * 24, Priority=6, Format=C.MQFMT_STRING).pack()
    md = PackedMD.of(raw)
    assert md.pack() is raw                         # untouched: the same bytes go on
    assert md.Priority == 6 and md.MsgId == b"M" * 24
    md.BackoutCount = 2
    assert MD.from_bytes(md.pack()).BackoutCount == 2 and md.copy().Format == C.MQFMT_STRING


def test_put_packed_keeps_priority_persistence_expiry_and_matching(eng: Engine):
    h, _ = eng.open("Q1", IO | C.MQOO_SET_ALL_CONTEXT)
    for i, prio in enumerate((1, 8)):
        raw = MD(MsgId=b"%024d" % i, Priority=prio, Persistence=C.MQPER_PERSISTENT, Expiry=100,
                 PutApplName=b"origin").pack()
        eng.qm.put_packed(eng.conn, h.hobj, raw, b"m%d" % i, syncpoint=False)
    eng.clock.advance(3)
    r = eng.get(h.hobj, MsgId=b"%024d" % 0)         # matching decodes the stored descriptor
    assert (r.body, r.md.Priority, r.md.Expiry, text(r.md.PutApplName)) == (b"m0", 1, 70, "origin")
    assert eng.store.last_ticket > 0
    eng.mqsc("ALTER QLOCAL(Q1) PUT(DISABLED)")
    assert reason(eng.qm.put_packed, eng.conn, h.hobj, MD().pack(), b"x", False) == C.MQRC_PUT_INHIBITED
    eng.mqsc("ALTER QLOCAL(Q1) PUT(ENABLED) MAXDEPTH(1)")
    assert reason(eng.qm.put_packed, eng.conn, h.hobj, MD().pack(), b"x", False) == C.MQRC_Q_FULL


def test_matching_reads_packed_descriptors_and_ones_changed_since(eng: Engine):
    """MsgId, CorrelId and GroupId are matched on the stored bytes of a packed descriptor, and on
    the fields once a backout has changed it (its bytes no longer current)."""
    h, _ = eng.open("Q1", IO | C.MQOO_SET_ALL_CONTEXT)
    for i in range(3):
        raw = MD(MsgId=b"%024d" % i, CorrelId=b"C%d" % (i % 2) + b"\0" * 22, GroupId=b"G" * 24).pack()
        eng.qm.put_packed(eng.conn, h.hobj, raw, b"m%d" % i, syncpoint=False)
    assert eng.get(h.hobj, CorrelId=b"C1".ljust(24, b"\0")).body == b"m1"
    assert eng.get(h.hobj, C.MQGMO_SYNCPOINT, CorrelId=b"C0".ljust(24, b"\0")).body == b"m0"
    eng.qm.backout(eng.conn)                        # m0 back, its BackoutCount changed
    r = eng.get(h.hobj, MsgId=b"%024d" % 0)
    assert (r.body, r.md.BackoutCount) == (b"m0", 1)
    assert reason(eng.get, h.hobj, match=C.MQMO_MATCH_GROUP_ID, GroupId=b"H" * 24) == C.MQRC_NO_MSG_AVAILABLE
    assert eng.get(h.hobj, match=C.MQMO_MATCH_GROUP_ID, GroupId=b"G" * 24).body == b"m2"
