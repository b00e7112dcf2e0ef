"""The command server: PCF through pymqi's PCFExecute, malformed PCF, escape MQSC, runmqsc -c and -w."""
from __future__ import annotations

import json
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite import pymqi
from mqlite.cmq import pcf
from mqlite.pymqi import CMQC, CMQCFC
from mqlite.testing import Harness, run_mqlite


@pytest.fixture
def harness(tmp_path):
    h = Harness(str(tmp_path / "data"))
    yield h
    h.close()


@pytest.fixture
def admin(harness):
    qm = harness.add("PCFQM", "DEFINE QLOCAL(APP.A) MAXDEPTH(10) DESCR('first')\nDEFINE QLOCAL(APP.B)\n"
                              "DEFINE QALIAS(APP.ALIAS) TARGET(APP.A)\nDEFINE NAMELIST(NL1) NAMES(X, Y)\n")
    conn = qm.client()
    p = pymqi.PCFExecute(conn)
    yield qm, conn, p
    p.disconnect()
    conn.disconnect()


def rc(fn, *args) -> int:
    with pytest.raises(pymqi.MQMIError) as e:
        fn(*args)
    return e.value.reason


def test_create_inquire_change_delete(admin):
    qm, conn, p = admin
    p.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"PCF.Q", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL, CMQC.MQIA_MAX_Q_DEPTH: 42,
                      CMQC.MQCA_Q_DESC: b"made by PCF", CMQC.MQIA_DEF_PERSISTENCE: CMQC.MQPER_PERSISTENT})
    (q,) = p.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"PCF.Q"})
    assert q[CMQC.MQCA_Q_NAME].strip() == b"PCF.Q" and q[CMQC.MQIA_Q_TYPE] == CMQC.MQQT_LOCAL
    assert (q[CMQC.MQIA_MAX_Q_DEPTH], q[CMQC.MQCA_Q_DESC].strip(), q[CMQC.MQIA_DEF_PERSISTENCE]) == (
        42, b"made by PCF", 1)
    assert "MAXDEPTH(42)" in qm.mqsc("DISPLAY QLOCAL(PCF.Q) MAXDEPTH").stdout
    p.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: b"PCF.Q", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL, CMQC.MQIA_MAX_Q_DEPTH: 7})
    (q,) = p.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"PCF.Q", CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQIA_MAX_Q_DEPTH]})
    assert q == {CMQC.MQCA_Q_NAME: b"PCF.Q".ljust(48), CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL, CMQC.MQIA_MAX_Q_DEPTH: 7}
    assert rc(p.MQCMD_CREATE_Q, {CMQC.MQCA_Q_NAME: b"PCF.Q", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL}) == \
        CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS
    p.MQCMD_COPY_Q({CMQCFC.MQCACF_FROM_Q_NAME: b"PCF.Q", CMQCFC.MQCACF_TO_Q_NAME: b"PCF.COPY",
                    CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
    assert p.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"PCF.COPY"})[0][CMQC.MQIA_MAX_Q_DEPTH] == 7
    q = pymqi.Queue(conn, "PCF.Q")
    q.put(b"x")
    q.close()
    assert rc(p.MQCMD_DELETE_Q, {CMQC.MQCA_Q_NAME: b"PCF.Q"}) == CMQC.MQRC_Q_NOT_EMPTY
    p.MQCMD_CLEAR_Q({CMQC.MQCA_Q_NAME: b"PCF.Q"})
    p.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: b"PCF.Q"})
    assert rc(p.MQCMD_INQUIRE_Q, {CMQC.MQCA_Q_NAME: b"PCF.Q"}) == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_errors_name_the_parameter(admin):
    _qm, conn, p = admin
    with pytest.raises(pymqi.MQMIError) as e:
        p.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: b"APP.A", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL, CMQC.MQIA_DEF_PRIORITY: 10})
    assert e.value.reason == CMQCFC.MQRCCF_ATTR_VALUE_ERROR
    assert e.value.response[CMQCFC.MQIACF_PARAMETER_ID] == CMQC.MQIA_DEF_PRIORITY
    assert rc(p.MQCMD_CREATE_Q, {CMQC.MQCA_Q_NAME: b"NOTYPE"}) == CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL
    assert rc(p.MQCMD_CHANGE_Q, {CMQC.MQCA_Q_NAME: b"APP.A", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                                 CMQC.MQCA_BASE_Q_NAME: b"X"}) == CMQCFC.MQRCCF_CFST_PARM_ID_ERROR
    assert rc(p.MQCMD_CHANGE_Q, {CMQC.MQCA_Q_NAME: b"APP.A", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                                 CMQC.MQIA_MAX_Q_DEPTH: b"ten"}) == CMQCFC.MQRCCF_STRUCTURE_TYPE_ERROR
    assert rc(p.MQCMD_CHANGE_Q, {CMQC.MQCA_Q_NAME: b"APP.A", CMQC.MQIA_Q_TYPE: CMQC.MQQT_ALIAS}) == \
        CMQCFC.MQRCCF_OBJECT_WRONG_TYPE
    h = pymqi.Queue(conn, "APP.B", CMQC.MQOO_OUTPUT)
    assert rc(p.MQCMD_DELETE_Q, {CMQC.MQCA_Q_NAME: b"APP.B"}) == CMQCFC.MQRCCF_OBJECT_OPEN
    h.close()
    # Cluster commands on a queue manager in no cluster: refused, with the MQSC reason in the log.
    assert rc(p.MQCMD_REFRESH_CLUSTER, {CMQC.MQCA_CLUSTER_NAME: b"C"}) == CMQCFC.MQRCCF_COMMAND_FAILED
    assert rc(p.MQCMD_SUSPEND_Q_MGR_CLUSTER, {CMQC.MQCA_CLUSTER_NAME: b"C", CMQC.MQCA_CLUSTER_NAMELIST: b"NL1"}) \
        == CMQCFC.MQRCCF_CLUSTER_NAME_CONFLICT
    assert rc(p.MQCMD_INQUIRE_CLUSTER_Q_MGR, {CMQC.MQCA_CLUSTER_Q_MGR_NAME: b"*"}) == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_cluster_attribute_conflicts_have_their_own_reasons(admin):
    _qm, _conn, p = admin
    local = {CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL}
    assert rc(p.MQCMD_CREATE_Q, {CMQC.MQCA_Q_NAME: b"CQ", **local, CMQC.MQCA_CLUSTER_NAME: b"SALES",
                                 CMQC.MQCA_CLUSTER_NAMELIST: b"NL1"}) == CMQCFC.MQRCCF_CLUSTER_NAME_CONFLICT
    assert rc(p.MQCMD_CREATE_Q, {CMQC.MQCA_Q_NAME: b"CQ", **local, CMQC.MQCA_CLUS_CHL_NAME: b"SALES.*"}) == \
        CMQCFC.MQRCCF_CLUS_XMIT_Q_USAGE_ERROR
    assert rc(p.MQCMD_CHANGE_Q_MGR, {CMQC.MQCA_REPOSITORY_NAME: b"SALES",
                                     CMQC.MQCA_REPOSITORY_NAMELIST: b"NL1"}) == CMQCFC.MQRCCF_REPOS_NAME_CONFLICT
    assert rc(p.MQCMD_CHANGE_Q_MGR, {CMQC.MQCA_DEF_XMIT_Q_NAME: b"SYSTEM.CLUSTER.TRANSMIT.QUEUE"}) == \
        CMQCFC.MQRCCF_DEF_XMIT_Q_CLUS_ERROR
    p.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"CXQ", **local, CMQC.MQIA_USAGE: CMQC.MQUS_TRANSMISSION,
                      CMQC.MQCA_CLUS_CHL_NAME: b"SALES.*"})
    (q,) = p.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"CXQ", CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQCA_CLUS_CHL_NAME]})
    assert q[CMQC.MQCA_CLUS_CHL_NAME] == b"SALES.*".ljust(20)


def test_generic_inquiries_filters_and_status(admin):
    _qm, conn, p = admin
    pymqi.Queue(conn, "APP.B").put(b"one")
    names = p.MQCMD_INQUIRE_Q_NAMES({CMQC.MQCA_Q_NAME: b"APP.*"})[0]
    assert [n.strip() for n in names[CMQCFC.MQCACF_Q_NAMES]] == [b"APP.A", b"APP.ALIAS", b"APP.B"]
    assert names[CMQCFC.MQIACF_Q_TYPES] == [CMQC.MQQT_LOCAL, CMQC.MQQT_ALIAS, CMQC.MQQT_LOCAL]
    locals_ = p.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"APP.*", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
    assert [q[CMQC.MQCA_Q_NAME].strip() for q in locals_] == [b"APP.A", b"APP.B"]
    deep = p.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"APP.*", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL},
                             [pymqi.Filter(CMQC.MQIA_CURRENT_Q_DEPTH).greater(0)])
    assert [q[CMQC.MQCA_Q_NAME].strip() for q in deep] == [b"APP.B"]
    (st,) = p.MQCMD_INQUIRE_Q_STATUS({CMQC.MQCA_Q_NAME: b"APP.B"})
    assert (st[CMQC.MQIA_CURRENT_Q_DEPTH], st[CMQCFC.MQIACF_UNCOMMITTED_MSGS]) == (1, 0)
    (mgr,) = p.MQCMD_INQUIRE_Q_MGR()
    assert mgr[CMQC.MQCA_Q_MGR_NAME].strip() == b"PCFQM" and mgr[CMQC.MQIA_MAX_UNCOMMITTED_MSGS] == 10000
    p.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_MAX_UNCOMMITTED_MSGS: 500})
    assert p.MQCMD_INQUIRE_Q_MGR()[0][CMQC.MQIA_MAX_UNCOMMITTED_MSGS] == 500
    (nl,) = p.MQCMD_INQUIRE_NAMELIST({CMQC.MQCA_NAMELIST_NAME: b"NL*"})
    assert [n.strip() for n in nl[CMQC.MQCA_NAMES]] == [b"X", b"Y"] and nl[CMQC.MQIA_NAME_COUNT] == 2
    assert p.MQCMD_PING_Q_MGR() == []
    assert conn.is_connected


def test_prebuilt_parameters_and_collected_responses(admin):
    """pymqi's CF* objects as the argument list, and ibmmq's responses= that keeps every reply."""
    _qm, _conn, p = admin
    got = p.MQCMD_INQUIRE_Q([pymqi.CFST(Parameter=CMQC.MQCA_Q_NAME, String=b"APP.*"),
                             pymqi.CFIN(Parameter=CMQC.MQIA_Q_TYPE, Value=CMQC.MQQT_LOCAL),
                             pymqi.CFIL(Parameter=CMQCFC.MQIACF_Q_ATTRS, Values=[CMQC.MQIA_MAX_Q_DEPTH]),
                             pymqi.CFSF(Parameter=CMQC.MQCA_Q_DESC, Operator=CMQCFC.MQCFOP_LIKE, FilterValue=b"fir*")])
    assert [(q[CMQC.MQCA_Q_NAME].strip(), q[CMQC.MQIA_MAX_Q_DEPTH]) for q in got] == [(b"APP.A", 10)]
    got = p.MQCMD_INQUIRE_Q([pymqi.CFST(Parameter=CMQC.MQCA_Q_NAME, String=b"APP.*"),
                             pymqi.CFIF(Parameter=CMQC.MQIA_MAX_Q_DEPTH, Operator=CMQCFC.MQCFOP_GREATER,
                                        FilterValue=10)])
    assert [q[CMQC.MQCA_Q_NAME].strip() for q in got] == [b"APP.B"]
    responses = []
    with pytest.raises(pymqi.MQMIError) as e:
        p.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: b"APP.A", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                          CMQC.MQIA_MAX_Q_DEPTH: -5}, responses=responses)
    assert e.value.reason == CMQCFC.MQRCCF_ATTR_VALUE_ERROR
    ((values, cfh),) = responses
    assert (cfh.CompCode, cfh.Reason, cfh.Control) == (CMQC.MQCC_FAILED, CMQCFC.MQRCCF_ATTR_VALUE_ERROR,
                                                      CMQCFC.MQCFC_LAST)
    assert values[CMQCFC.MQIACF_PARAMETER_ID] == CMQC.MQIA_MAX_Q_DEPTH
    # a filter on something no queue has is an error, not an empty answer
    assert rc(p.MQCMD_INQUIRE_Q, [pymqi.CFST(Parameter=CMQC.MQCA_Q_NAME, String=b"*"),
                                  pymqi.CFIF(Parameter=4242, Operator=CMQCFC.MQCFOP_EQUAL, FilterValue=1)]) == \
        CMQCFC.MQRCCF_CFIF_PARM_ID_ERROR


def test_escape_mqsc_and_channels(admin):
    qm, _conn, p = admin
    (r,) = p.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                           CMQCFC.MQCACF_ESCAPE_TEXT: b"DEFINE QLOCAL(BY.ESCAPE)"})
    assert r[CMQCFC.MQCACF_ESCAPE_TEXT].rstrip() == b"AMQ8006I: IBM MQ queue created."   # pymqi keeps the padding
    with pytest.raises(pymqi.MQMIError) as e:
        p.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC, CMQCFC.MQCACF_ESCAPE_TEXT: b"DEFINE QLOCAL("})
    assert e.value.reason == CMQCFC.MQRCCF_PARM_SYNTAX_ERROR
    chls = p.MQCMD_INQUIRE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"*", CMQCFC.MQIACH_CHANNEL_TYPE: CMQC.MQCHT_SVRCONN})
    assert b"APP.SVRCONN" in [c[CMQCFC.MQCACH_CHANNEL_NAME].strip() for c in chls]
    qm.mqsc("DEFINE QLOCAL(XQ) USAGE(XMITQ)\nDEFINE CHANNEL(TO.NOWHERE) CHLTYPE(SDR) CONNAME('127.0.0.1(1)') "
            "XMITQ(XQ)", check=True)
    assert rc(p.MQCMD_INQUIRE_CHANNEL_STATUS, {CMQCFC.MQCACH_CHANNEL_NAME: b"TO.NOWHERE"}) == \
        CMQCFC.MQRCCF_CHL_STATUS_NOT_FOUND
    p.MQCMD_STOP_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"TO.NOWHERE"})
    (st,) = p.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME: b"TO.NOWHERE"})
    assert st[CMQCFC.MQIACH_CHANNEL_STATUS] == CMQCFC.MQCHS_STOPPED
    assert rc(p.MQCMD_START_CHANNEL, {CMQCFC.MQCACH_CHANNEL_NAME: b"NONE.SUCH"}) == CMQCFC.MQRCCF_CHANNEL_NOT_FOUND


def raw_command(conn, body: bytes, fmt: bytes = pymqi.CMQC.MQFMT_ADMIN) -> list[tuple[dict, object]]:
    """Send bytes to the command queue as they are; return the decoded replies."""
    od = pymqi.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"RAW.*")
    reply = pymqi.Queue(conn, od, CMQC.MQOO_INPUT_EXCLUSIVE)
    md = pymqi.MD(Format=fmt, MsgType=CMQC.MQMT_REQUEST, ReplyToQ=od.ObjectName)
    conn.put1(b"SYSTEM.ADMIN.COMMAND.QUEUE", body, md)
    out = []
    while True:
        rmd = pymqi.MD(CorrelId=md.MsgId)
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=5000, Version=2, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
        values, cfh = pymqi.PCFExecute._unpack(reply.get(None, rmd, gmo), False)   # failed replies too
        out.append((values, cfh))
        if cfh.Control == CMQCFC.MQCFC_LAST:
            reply.close()
            return out


def test_malformed_pcf_is_answered_and_the_command_server_carries_on(admin):
    _qm, conn, p = admin
    good = pcf.Header(command=CMQCFC.MQCMD_INQUIRE_Q)
    name = pcf.enc_str(CMQC.MQCA_Q_NAME, b"APP.A")
    cases = [
        (struct.pack("<9i", 1, 40, 1, CMQCFC.MQCMD_PING_Q_MGR, 1, 1, 0, 0, 0), CMQCFC.MQRCCF_CFH_LENGTH_ERROR),
        (pcf.encode(pcf.Header(command=9999), []), CMQCFC.MQRCCF_CFH_COMMAND_ERROR),
        (pcf.encode(good, [name])[:-6], CMQCFC.MQRCCF_CFST_LENGTH_ERROR),
        (pcf.encode(good, [name])[:40], CMQCFC.MQRCCF_CFH_PARM_COUNT_ERROR),
        (b"short", CMQCFC.MQRCCF_MSG_LENGTH_ERROR),
        (pcf.encode(good, [struct.pack("<iiii", 77, 16, CMQC.MQCA_Q_NAME, 0)]), CMQCFC.MQRCCF_STRUCTURE_TYPE_ERROR),
        (pcf.encode(good, [struct.pack("<iiii", 3, 12, CMQC.MQIA_Q_TYPE, 1)]), CMQCFC.MQRCCF_CFIN_LENGTH_ERROR),
        # a billion empty strings in 24 bytes must not make the server build a billion-item list
        (pcf.encode(good, [struct.pack("<6i", CMQCFC.MQCFT_STRING_LIST, 24, CMQCFC.MQCACF_Q_NAMES, 0, 2**30, 0)]),
         CMQCFC.MQRCCF_CFSL_STRING_LENGTH_ERR),
        (pcf.encode(pcf.Header(command=CMQCFC.MQCMD_CHANGE_Q), [name, pcf.enc_int(CMQC.MQIA_Q_TYPE, 1),
                                                               pcf.enc_str(CMQC.MQIA_MAX_Q_DEPTH, b"9")]),
         CMQCFC.MQRCCF_STRUCTURE_TYPE_ERROR),
    ]
    for body, reason in cases:
        (_values, cfh), = raw_command(conn, body)
        assert (cfh.CompCode, cfh.Reason) == (CMQC.MQCC_FAILED, reason), body[:40]
    (_values, cfh), = raw_command(conn, pcf.encode(pcf.Header(command=CMQCFC.MQCMD_PING_Q_MGR), []), b"MQSTR   ")
    assert cfh.Reason == CMQCFC.MQRCCF_MD_FORMAT_ERROR
    # still serving
    assert p.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"APP.A"})[0][CMQC.MQIA_MAX_Q_DEPTH] == 10


def test_runmqsc_client_mode_and_remote_administration(harness, monkeypatch, tmp_path):
    qm2 = harness.add("QM2", "DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR)\n")
    qm1 = harness.add("QM1", f"DEFINE QLOCAL(QM2) USAGE(XMITQ)\nDEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) "
                             f"CONNAME('{qm2.conname}') XMITQ(QM2)\nDEFINE CHANNEL(QM2.TO.QM1) CHLTYPE(RCVR)\n")
    qm2.mqsc(f"DEFINE QLOCAL(QM1) USAGE(XMITQ)\nDEFINE CHANNEL(QM2.TO.QM1) CHLTYPE(SDR) "
             f"CONNAME('{qm1.conname}') XMITQ(QM1)\n", check=True)
    monkeypatch.setenv("MQSERVER", f"APP.SVRCONN/TCP/{qm1.conname}")
    r = run_mqlite("runmqsc", "-c", "QM1", stdin="DEFINE QLOCAL(VIA.CLIENT)\nDISPLAY QLOCAL(VIA.CLIENT)\n")
    assert r.returncode == 0, r.stdout
    assert "AMQ8006I: IBM MQ queue created." in r.stdout and "QUEUE(VIA.CLIENT)" in r.stdout
    r = run_mqlite("runmqsc", "-c", "QM1", stdin="DEFINE QLOCAL(VIA.CLIENT)\n")
    assert r.returncode == 10 and "AMQ8150E" in r.stdout
    monkeypatch.delenv("MQSERVER")
    r = run_mqlite("runmqsc", "-c", "QM1", stdin="DISPLAY QMGR\n")      # -c without a client channel
    assert r.returncode == 20 and "AMQ8146E" in r.stdout
    # ... or with its channel from a JSON CCDT, as MQ's runmqsc -c reads one.
    (tmp_path / "ccdt.json").write_text(json.dumps({"channel": [{
        "name": "APP.SVRCONN", "type": "clientConnection",
        "clientConnection": {"queueManager": "QM1", "connection": [{"host": "127.0.0.1", "port": qm1.port}]}}]}))
    monkeypatch.setenv("MQCCDTURL", f"file://{tmp_path / 'ccdt.json'}")
    r = run_mqlite("runmqsc", "-c", "QM1", stdin="DISPLAY QLOCAL(VIA.CLIENT)\n")
    assert r.returncode == 0 and "QUEUE(VIA.CLIENT)" in r.stdout, r.stdout
    monkeypatch.delenv("MQCCDTURL")
    r = run_mqlite("runmqsc", "-w", "20", "-m", "QM1", "QM2", stdin="DEFINE QLOCAL(MADE.REMOTELY)\nPING QMGR\n")
    assert r.returncode == 0, r.stdout
    assert "Starting MQSC for queue manager QM2." in r.stdout and "AMQ8006I" in r.stdout
    assert "QUEUE(MADE.REMOTELY)" in qm2.mqsc("DISPLAY QLOCAL(MADE.REMOTELY)").stdout


# --- the codec, property-based ------------------------------------------------------------------

MQRCCF_CODES = {v for k, v in vars(CMQCFC).items() if k.startswith("MQRCCF_")}
SEL = st.integers(1, 9999)
I32 = st.integers(-(2**31), 2**31 - 1)
BLOB = st.binary(max_size=40)


def _param(depth: int):
    leaves = st.one_of(
        st.tuples(SEL, I32).map(lambda t: (pcf.enc_int(*t), [(CMQCFC.MQCFT_INTEGER, t[0], t[1])])),
        st.tuples(SEL, BLOB).map(lambda t: (pcf.enc_str(*t), [(CMQCFC.MQCFT_STRING, t[0], t[1])])),
        st.tuples(SEL, BLOB).map(lambda t: (pcf.enc_bytes(*t), [(CMQCFC.MQCFT_BYTE_STRING, t[0], t[1])])),
        st.tuples(SEL, st.integers(-(2**63), 2**63 - 1)).map(
            lambda t: (pcf.enc_int64(*t), [(CMQCFC.MQCFT_INTEGER64, t[0], t[1])])),
        st.tuples(SEL, st.lists(st.integers(-(2**63), 2**63 - 1), max_size=4)).map(
            lambda t: (pcf.enc_int64_list(*t), [(CMQCFC.MQCFT_INTEGER64_LIST, t[0], t[1])])),
        st.tuples(SEL, st.lists(I32, max_size=6)).map(
            lambda t: (pcf.enc_int_list(*t), [(CMQCFC.MQCFT_INTEGER_LIST, t[0], t[1])])),
        st.tuples(SEL, st.lists(st.binary(min_size=8, max_size=8), max_size=4)).map(
            lambda t: (pcf.enc_str_list(*t), [(CMQCFC.MQCFT_STRING_LIST, t[0], t[1])])),
    )
    if depth == 0:
        return leaves
    group = st.tuples(SEL, st.lists(_param(depth - 1), max_size=3)).map(
        lambda t: (pcf.enc_group(t[0], [b for b, _ in t[1]]),
                   [(CMQCFC.MQCFT_GROUP, t[0], [v for _, vs in t[1] for v in vs])]))
    return st.one_of(leaves, group)


@settings(max_examples=300, deadline=None)
@given(st.lists(_param(2), max_size=6), st.integers(1, 300))
def test_codec_round_trips(params, command):
    """Every parameter type, groups nested two deep, decodes to what was encoded."""
    body = pcf.encode(pcf.Header(command=command), [b for b, _ in params])
    msg = pcf.decode(body)
    assert msg.header.command == command and msg.header.parameter_count == len(params)
    assert msg.params == [v for _, vs in params for v in vs]


@settings(max_examples=500, deadline=None)
@given(st.lists(_param(1), max_size=4), st.data())
def test_damaged_pcf_is_a_pcf_error_and_nothing_else(params, data):
    body = bytearray(pcf.encode(pcf.Header(command=CMQCFC.MQCMD_INQUIRE_Q), [b for b, _ in params]))
    for _ in range(data.draw(st.integers(1, 4))):
        action = data.draw(st.sampled_from(["flip", "cut", "grow"]))
        if action == "flip" and body:
            i = data.draw(st.integers(0, len(body) - 1))
            body[i] = data.draw(st.integers(0, 255))
        elif action == "cut":
            del body[data.draw(st.integers(0, len(body))):]
        else:
            body += data.draw(st.binary(min_size=1, max_size=8))
    try:
        pcf.decode(bytes(body))
    except pcf.PCFError as e:
        assert e.reason in MQRCCF_CODES
