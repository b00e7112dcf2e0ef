"""pymqi's behaviour where mqlite's differed (issue 17, item 2), each against a real queue manager."""
from __future__ import annotations

import re
import struct
import threading
import time

import pytest

from mqlite import ibmmq, pymqi
from mqlite.cmq import pcf
from mqlite.pymqi import CMQC, CMQCFC
from tests.conftest import RunningQM
from tests.helpers import reason


def status(qm: RunningQM, attr: str, q: str = "TEST.Q") -> int:
    out = qm.mqsc(f"DISPLAY QSTATUS({q}) {attr}").stdout
    return int(re.findall(rf"{attr}\((\d+)\)", out)[0])


def test_queue_objects_that_are_collected_close_their_handles(running_qm: RunningQM):
    qm = running_qm.client()
    for _ in range(400):
        pymqi.Queue(qm, "TEST.Q").put(b"x")
    assert (status(running_qm, "OPPROCS"), status(running_qm, "CURDEPTH")) == (0, 400)
    # A queue collected while its connection is inside a call (the cyclic collector can run
    # anywhere) is closed with the next call, not re-entrantly.
    q = pymqi.Queue(qm, "TEST.Q", CMQC.MQOO_OUTPUT)
    assert status(running_qm, "OPPROCS") == 1
    with qm._transport.lock:
        del q
    assert status(running_qm, "OPPROCS") == 1
    qm.inquire(CMQC.MQCA_Q_MGR_NAME)
    assert status(running_qm, "OPPROCS") == 0
    qm.disconnect()


def test_maxhands_is_enforced_per_connection(running_qm: RunningQM):
    qm, other = running_qm.client(), running_qm.client()
    held = [pymqi.Queue(qm, "TEST.Q", CMQC.MQOO_OUTPUT) for _ in range(256)]
    assert reason(pymqi.Queue, qm, "TEST.Q", CMQC.MQOO_OUTPUT) == (2, CMQC.MQRC_HANDLE_NOT_AVAILABLE)
    pymqi.Queue(other, "TEST.Q", CMQC.MQOO_OUTPUT).put(b"another connection has its own 256")
    held.pop().close()
    held.append(pymqi.Queue(qm, "TEST.Q", CMQC.MQOO_OUTPUT))
    running_qm.mqsc("ALTER QMGR MAXHANDS(300)")
    held += [pymqi.Queue(qm, "TEST.Q", CMQC.MQOO_OUTPUT) for _ in range(44)]
    assert reason(pymqi.Queue, qm, "TEST.Q", CMQC.MQOO_OUTPUT) == (2, CMQC.MQRC_HANDLE_NOT_AVAILABLE)
    qm.disconnect()
    other.disconnect()


def test_descriptor_character_fields_come_back_blank_padded(running_qm: RunningQM):
    qm = running_qm.client()
    q = pymqi.Queue(qm, "TEST.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_SET_ALL_CONTEXT)
    q.put(b"no format")
    md = pymqi.MD()
    q.get(None, md)
    assert md.Format == CMQC.MQFMT_NONE == b" " * 8
    assert (md.ReplyToQ, md.ApplOriginData) == (b" " * 48, b" " * 4)
    q.put(b"set context", pymqi.MD(PutApplName=b"app\0junk", UserIdentifier=b"alice", Format=b"MQSTR"),
          pymqi.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT))
    md = pymqi.MD()
    q.get(None, md)
    assert (md.PutApplName, md.UserIdentifier, md.Format) == (b"app".ljust(28), b"alice".ljust(12), b"MQSTR   ")
    q.put(b"no context", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_NO_CONTEXT))
    md = pymqi.MD()
    q.get(None, md)
    assert (md.UserIdentifier, md.PutApplName, md.PutDate) == (b" " * 12, b" " * 28, b" " * 8)
    qm.disconnect()


@pytest.mark.parametrize("face", ["pymqi", "ibmmq"])
def test_a_message_put_as_mqccsi_q_mgr_carries_the_queue_managers_ccsid(running_qm: RunningQM, face: str):
    """MQMD CodedCharSetId MQCCSI_Q_MGR (0, the default) is the queue manager's CCSID in the
    stored message, as MQ writes it at MQPUT: for the plain put, the full one (a put that asks for
    more), MQPUT1, a publication's copy; a CCSID the application gave is kept."""
    api = pymqi if face == "pymqi" else ibmmq
    qm = running_qm.client()
    ccsid = pymqi.QueueManager.inquire(qm, CMQC.MQIA_CODED_CHAR_SET_ID)
    assert ccsid not in (0, CMQC.MQCCSI_Q_MGR)
    q = api.Queue(qm, "TEST.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_SET_ALL_CONTEXT)
    q.put(b"plain")
    q.put(b"full", api.MD(), api.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT | CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    qm.put1("TEST.Q", b"put1")
    q.put(b"own", api.MD(CodedCharSetId=37))
    got = []
    for _ in range(4):
        md = api.MD()
        got.append((q.get(None, md), md.CodedCharSetId))
    assert got == [(b"plain", ccsid), (b"full", ccsid), (b"put1", ccsid), (b"own", 37)]
    q.close()
    sub = api.Subscription(qm)
    sub.sub(sub_opts=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED, topic_string="ccsid/t")
    topic = api.Topic(qm, topic_string="ccsid/t")
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    topic.pub(b"published")
    topic.close()
    md = api.MD()
    assert sub.get(None, md, api.GMO(Options=CMQC.MQGMO_NO_WAIT)) == b"published" and md.CodedCharSetId == ccsid
    sub.close()
    qm.disconnect()


def test_mqinq_of_a_selector_for_another_queue_type_warns(running_qm: RunningQM):
    qm = running_qm.client()
    q = pymqi.Queue(qm, "TEST.Q")
    assert reason(q.inquire, CMQC.MQCA_REMOTE_Q_NAME) == (CMQC.MQCC_WARNING, CMQC.MQRC_SELECTOR_NOT_FOR_TYPE)
    assert reason(q.inquire, [CMQC.MQIA_CURRENT_Q_DEPTH, CMQC.MQCA_BASE_Q_NAME]) == (1, 2068)
    assert reason(q.inquire, 99999) == (CMQC.MQCC_FAILED, CMQC.MQRC_SELECTOR_ERROR)
    assert q.inquire(CMQC.MQIA_MAX_Q_DEPTH) == 5000
    # The queue manager's own selectors, MQCA_VERSION among them; a queue's is an error there.
    assert qm.inquire(CMQC.MQCA_VERSION) == b"09040000"
    assert qm.inquire([CMQC.MQIA_COMMAND_LEVEL, CMQC.MQIA_MAX_HANDLES]) == {CMQC.MQIA_COMMAND_LEVEL: 940,
                                                                        CMQC.MQIA_MAX_HANDLES: 256}
    assert reason(qm.inquire, CMQC.MQIA_CURRENT_Q_DEPTH) == (CMQC.MQCC_FAILED, CMQC.MQRC_SELECTOR_ERROR)
    assert "VERSION(09040000)" in running_qm.mqsc("DISPLAY QMGR VERSION").stdout
    qm.disconnect()


def test_any_attribute_can_be_set_on_a_structure_and_only_fields_travel(running_qm: RunningQM):
    qm = running_qm.client()
    md = pymqi.MD()
    md.MsgType = CMQC.MQMT_REQUEST
    md.ReplyToQ = "TEST.Q"
    md.ReportOptions = CMQC.MQRO_COPY_MSG_ID_TO_CORREL_ID     # as IBM's request sample does
    pymqi.Queue(qm, "TEST.Q").put("request", md)
    got = pymqi.MD()
    assert pymqi.Queue(qm, "TEST.Q").get(None, got) == b"request"
    assert (got.MsgType, got.Report, got.ReplyToQ.rstrip()) == (CMQC.MQMT_REQUEST, CMQC.MQRO_NONE, b"TEST.Q")
    qm.disconnect()


def test_connect_options_handle_sharing_and_credentials(running_qm: RunningQM):
    conninfo = f"127.0.0.1({running_qm.port})"
    cd = pymqi.CD(ChannelName=b"TEST.SVRCONN", ConnectionName=conninfo.encode())
    qm = pymqi.QueueManager(None)
    qm.connect_with_options(running_qm.name, cd=cd)
    # No handle-share option: a second MQCONNX on a connected object is MQRC_ALREADY_CONNECTED.
    assert reason(qm.connect_with_options, running_qm.name, cd=cd) == (CMQC.MQCC_WARNING,
                                                                       CMQC.MQRC_ALREADY_CONNECTED)
    for _ in range(3):      # as pymqi's connect_options example: each call a new shared connection
        qm.connect_with_options(running_qm.name, cd=cd, opts=CMQC.MQCNO_HANDLE_SHARE_BLOCK)
    assert qm.is_connected
    qm.disconnect()
    # The MQCSP user is the connection's: it is the identity of what it puts.
    csp = pymqi.CSP(CSPUserId=b"alice", CSPPassword=b"secret")
    cno = pymqi.CNO(Options=CMQC.MQCNO_HANDLE_SHARE_NO_BLOCK)
    qm.connect_with_options(running_qm.name, cd=cd, csp=csp, cno=cno)
    pymqi.Queue(qm, "TEST.Q").put(b"from alice")
    md = pymqi.MD()
    pymqi.Queue(qm, "TEST.Q").get(None, md)
    assert md.UserIdentifier == b"alice".ljust(12)
    # MQCNO_HANDLE_SHARE_NO_BLOCK: a call while another thread's is in progress fails at once.
    waiting = pymqi.Queue(qm, "TEST.Q", CMQC.MQOO_INPUT_AS_Q_DEF)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=1500)
    got: list[tuple[int, int]] = []
    t = threading.Thread(target=lambda: got.append(reason(waiting.get, None, pymqi.MD(), gmo)))
    t.start()
    time.sleep(0.4)
    assert reason(qm.inquire, CMQC.MQCA_Q_MGR_NAME) == (CMQC.MQCC_FAILED, CMQC.MQRC_CALL_IN_PROGRESS)
    t.join()
    assert got == [(CMQC.MQCC_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE)] and qm.is_connected
    qm.disconnect()


def test_queue_and_queue_manager_as_context_managers(running_qm: RunningQM):
    qm = pymqi.QueueManager(None)
    with qm.connect_tcp_client(running_qm.name, pymqi.CD(), "TEST.SVRCONN", f"127.0.0.1({running_qm.port})"):
        with pymqi.Queue(qm, "TEST.Q") as q:
            q.put(b"in a with block")
            assert status(running_qm, "OPPROCS") == 1
        assert status(running_qm, "OPPROCS") == 0
        deferred = pymqi.Queue(qm).open("TEST.Q")          # no options: opened by the first call
        assert status(running_qm, "IPPROCS") == 0
        assert deferred.get() == b"in a with block"
        assert status(running_qm, "IPPROCS") == 1
    assert not qm.is_connected
    with qm:                                                # connects again as before
        assert qm.is_connected
    assert not qm.is_connected
    with pytest.raises(RuntimeError, match="the block's error"):
        with qm, pymqi.Queue(qm, "TEST.Q"):
            raise RuntimeError("the block's error")
    assert not qm.is_connected


def _user_message(*params: bytes, kind: int = CMQCFC.MQCFT_USER, command: int = 0) -> bytes:
    return pcf.encode(pcf.Header(type=kind, command=command), list(params))


def test_pcf_unpack_groups_filters_and_application_messages(running_qm: RunningQM):
    qm = running_qm.client()
    q = pymqi.Queue(qm, "TEST.Q", CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    stats = [pymqi.CFST(Parameter=CMQC.MQCA_Q_MGR_NAME, String=b"QM1").pack()]
    for name, depth, times in ((b"SYSTEM.ADMIN.COMMAND.QUEUE", 10, [1, 2, 3]), (b"APP.Q", 20, [111, 222])):
        stats += [pymqi.CFGR(Parameter=CMQCFC.MQGACF_Q_STATISTICS_DATA, ParameterCount=3).pack(),
                  pymqi.CFST(Parameter=CMQC.MQCA_Q_NAME, String=name).pack(),
                  pymqi.CFIN64(Parameter=CMQCFC.MQIAMO_Q_MIN_DEPTH, Value=depth).pack(),
                  pymqi.CFIL64(Parameter=CMQCFC.MQIAMO64_AVG_Q_TIME, Values=times).pack()]
    header = pymqi.CFH(Type=CMQCFC.MQCFT_STATISTICS, Command=CMQCFC.MQCMD_STATISTICS_Q, ParameterCount=3).pack()
    q.put(header + b"".join(stats), pymqi.MD(Format=CMQC.MQFMT_PCF))
    values, cfh = pymqi.PCFExecute.unpack(q.get())
    assert (cfh.Type, cfh.Command) == (CMQCFC.MQCFT_STATISTICS, CMQCFC.MQCMD_STATISTICS_Q)
    assert values == {CMQC.MQCA_Q_MGR_NAME: b"QM1\0",        # pymqi keeps the padding to four bytes
                      CMQCFC.MQGACF_Q_STATISTICS_DATA: [
                          {CMQC.MQCA_Q_NAME: b"SYSTEM.ADMIN.COMMAND.QUEUE\0\0", CMQCFC.MQIAMO_Q_MIN_DEPTH: 10,
                           CMQCFC.MQIAMO64_AVG_Q_TIME: [1, 2, 3]},
                          {CMQC.MQCA_Q_NAME: b"APP.Q\0\0\0", CMQCFC.MQIAMO_Q_MIN_DEPTH: 20,
                           CMQCFC.MQIAMO64_AVG_Q_TIME: [111, 222]}]}
    filters = [pcf.enc_group(CMQCFC.MQGACF_COMMAND_DATA, [
        pymqi.CFIF(Parameter=CMQC.MQIA_CURRENT_Q_DEPTH, Operator=CMQCFC.MQCFOP_GREATER, FilterValue=0).pack(),
        pymqi.CFSF(Parameter=CMQC.MQCA_Q_DESC, Operator=CMQCFC.MQCFOP_LIKE, FilterValue=b"test*").pack()])]
    q.put(_user_message(*filters, kind=CMQCFC.MQCFT_EVENT, command=CMQCFC.MQCMD_COMMAND_EVENT))
    values, _ = pymqi.PCFExecute.unpack(q.get())
    (data,) = values[CMQCFC.MQGACF_COMMAND_DATA]
    assert data[CMQC.MQIA_CURRENT_Q_DEPTH] == (CMQCFC.MQCFOP_GREATER, 0)
    assert data[CMQC.MQCA_Q_DESC][0] == CMQCFC.MQCFOP_LIKE and data[CMQC.MQCA_Q_DESC][1].rstrip(b"\0") == b"test*"
    for values_ in ([], [1], [1, 2, 3, 4, 5]):
        q.put(_user_message(pymqi.CFIL(Parameter=1, Values=values_).pack()))
        assert pymqi.PCFExecute.unpack(q.get())[0] == {1: values_}
    failed = struct.pack("<9i", CMQCFC.MQCFT_RESPONSE, 36, 1, CMQCFC.MQCMD_INQUIRE_Q, 1, 1, 2, 2085, 0)
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.PCFExecute.unpack(failed)
    assert (e.value.comp, e.value.reason) == (2, 2085)
    qm.disconnect()


def test_pcfexecute_arguments_filters_and_disconnect(running_qm: RunningQM):
    running_qm.mqsc("DEFINE QLOCAL(PCF.FULL) DESCR('IBM MQ test queue')\nDEFINE QLOCAL(PCF.EMPTY) DESCR('other')\n"
                    "DEFINE QLOCAL(MY.REPLIES)")
    qm = running_qm.client()
    pymqi.Queue(qm, "PCF.FULL").put(b"x")
    p = pymqi.PCFExecute(qm, response_wait_interval=15000)
    assert p.reply_queue and p.reply_queue_name.startswith(b"PYMQPCF.")
    # The filtered attribute comes back even when the attribute list does not name it.
    rows = p.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"PCF.*", CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQCA_Q_DESC]},
                             [pymqi.Filter(CMQC.MQIA_CURRENT_Q_DEPTH).greater(0)])
    assert [(r[CMQC.MQCA_Q_NAME].strip(), r[CMQC.MQIA_CURRENT_Q_DEPTH]) for r in rows] == [(b"PCF.FULL", 1)]
    rows = p.MQCMD_INQUIRE_Q([pymqi.CFST(Parameter=CMQC.MQCA_Q_NAME, String=b"PCF.*"),
                              pymqi.CFIL(Parameter=CMQCFC.MQIACF_Q_ATTRS, Values=[CMQC.MQIA_CURRENT_Q_DEPTH])],
                             [pymqi.CFSF(Parameter=CMQC.MQCA_Q_DESC, Operator=CMQCFC.MQCFOP_LIKE,
                                         FilterValue=b"IBM MQ*")])
    assert [r[CMQC.MQCA_Q_DESC].strip() for r in rows] == [b"IBM MQ test queue"]
    p.disconnect()
    assert not p.reply_queue and not p.reply_queue_name and qm.is_connected
    # A reply queue of the application's own instead of a dynamic one.
    own = pymqi.PCFExecute(qm, model_queue_name=None, reply_queue_name=b"MY.REPLIES", command_timeout=5000)
    assert own.reply_queue_name == b"MY.REPLIES"
    assert own.MQCMD_PING_Q_MGR() == []
    own.disconnect()
    qm.disconnect()


@pytest.mark.parametrize("face", ["pymqi", "ibmmq"])
def test_the_mqmd_after_mqput_holds_its_answer(running_qm: RunningQM, face: str):
    """After MQPUT the MQMD holds the fields the queue manager set (kept packed until one is read:
    MD.hold); reused, it puts again what it holds with what was set since, and matches a get."""
    mod = ibmmq if face == "ibmmq" else pymqi
    qm = mod.connect(running_qm.name, "TEST.SVRCONN", f"127.0.0.1({running_qm.port})")
    q = mod.Queue(qm, "TEST.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        for persistence in (CMQC.MQPER_NOT_PERSISTENT, CMQC.MQPER_PERSISTENT):
            for sync in (CMQC.MQPMO_NO_SYNCPOINT, CMQC.MQPMO_SYNCPOINT):
                md = mod.MD(Persistence=persistence)
                md.ReportOptions = "no field"           # an attribute that is no field stays
                q.put(b"first", md, mod.PMO(Options=sync))
                first = md.MsgId
                assert len(first) == 24 and first != CMQC.MQMI_NONE and md.Persistence == persistence
                assert md.PutDate.isdigit() and len(md.PutTime) == 8 and md.ReportOptions == "no field"
                q.put(b"same id", md, mod.PMO(Options=sync))      # the MsgId it holds goes again
                assert md.MsgId == first
                md.MsgId = CMQC.MQMI_NONE
                q.put("second", md, mod.PMO(Options=sync))        # a str: MQSTR over what it holds
                second = md.MsgId
                assert second not in (first, CMQC.MQMI_NONE) and md.Format == CMQC.MQFMT_STRING
                qm.commit()
                got = mod.MD()
                got.MsgId = second
                assert q.get(None, got, mod.GMO(MatchOptions=CMQC.MQMO_MATCH_MSG_ID)) == b"second"
                q.put(b"read back", md)                           # the same MQMD, then got with it
                assert q.get(None, md, mod.GMO(MatchOptions=CMQC.MQMO_MATCH_MSG_ID)) == b"read back"
                assert md.Persistence == persistence
                md = mod.MD()
                for body in (b"first", b"same id"):
                    assert q.get(None, md) == body
                    md = mod.MD()
                assert md.Persistence == CMQC.MQPER_PERSISTENCE_AS_Q_DEF
    finally:
        q.close()
        qm.disconnect()
