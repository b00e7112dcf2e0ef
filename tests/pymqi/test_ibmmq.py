"""The ibmmq 2.x face: programs written the way IBM's ibmmq samples are, run end to end."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest

from mqlite import ibmmq, pymqi
from mqlite.ibmmq import CMQC, CMQCFC
from tests.conftest import RunningQM


def test_structures_start_at_ibmmq_versions_and_keep_mq_layouts():
    assert (ibmmq.MD().Version, ibmmq.GMO().Version, ibmmq.PMO().Version, ibmmq.OD().Version,
            ibmmq.CD().Version, ibmmq.CNO().Version) == (2, 4, 3, 4, 11, 5)
    assert (pymqi.MD().Version, pymqi.GMO().Version) == (1, 1)
    assert [len(c().pack()) for c in (ibmmq.MD, ibmmq.GMO, ibmmq.PMO, ibmmq.OD, ibmmq.MDE, ibmmq.BNO)] == [
        CMQC.MQMD_CURRENT_LENGTH, CMQC.MQGMO_CURRENT_LENGTH, CMQC.MQPMO_CURRENT_LENGTH, CMQC.MQOD_CURRENT_LENGTH,
        CMQC.MQMDE_CURRENT_LENGTH, CMQC.MQBNO_CURRENT_LENGTH]
    md = ibmmq.MD(ReplyToQ=b"REPLY.Q" + b" " * 41, MsgId=b"\x01" * 24).to_string()
    assert (md.ReplyToQ, md.MsgId) == ("REPLY.Q", b"\x01" * 24)
    assert ibmmq.to_string(b"QM1\0\0  ") == "QM1" and ibmmq.to_string(b"\xff") == b"\xff"
    assert ibmmq.get_versions()["MQ"] == 940


def test_the_mqcd_has_the_fields_its_current_version_announces():
    """ibmmq's CMQXC says MQCD_CURRENT_VERSION 13 (MQ 9.4): its CD has version 12's SPLProtection
    and version 13's QuantumSafeAlgorithm and QuantumSafeRequired (AttributeError before), still
    defaulting to version 11, and packs to MQCD_CURRENT_LENGTH."""
    from mqlite.ibmmq import CMQXC
    cd = ibmmq.CD(QuantumSafeAlgorithm=1, QuantumSafeRequired=1)
    assert CMQXC.MQCD_CURRENT_VERSION == 13 and cd.Version == CMQXC.MQCD_VERSION_11
    assert (cd.SPLProtection, cd.QuantumSafeAlgorithm, cd.QuantumSafeRequired) == (0, 1, 1)
    assert len(cd.pack()) == CMQXC.MQCD_CURRENT_LENGTH
    assert ibmmq.CD().unpack(cd.pack()).QuantumSafeRequired == 1


def test_pub_rfh2_takes_a_str_as_ibmmq_does(running_qm: RunningQM):
    qm = running_qm.client()
    sub = ibmmq.Subscription(qm)
    sub.sub(sub_opts=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED, topic_string="rfh2/str")
    topic = ibmmq.Topic(qm, topic_string="rfh2/str")
    rfh2 = ibmmq.RFH2()
    rfh2.add_folder(b"<usr><colour>blue</colour></usr>")
    topic.pub_rfh2("behind a header", ibmmq.MD(Format=CMQC.MQFMT_RF_HEADER_2), ibmmq.PMO(), [rfh2])
    topic.pub_rfh2("no header")                  # (as pub: MQSTR)
    topic.close()
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2)
    first = sub.get(None, ibmmq.MD(), gmo)
    assert first.endswith(b"behind a header") and b"<colour>blue</colour>" in first
    md = ibmmq.MD()
    assert sub.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)) == b"no header"
    assert md.Format == CMQC.MQFMT_STRING
    sub.close()
    qm.disconnect()


def test_put_get_inquire_set_as_the_samples_do(running_qm: RunningQM):
    csp = ibmmq.CSP()
    csp.CSPUserId, csp.CSPPassword = "app", "passw0rd"
    qmgr = ibmmq.connect(running_qm.name, "TEST.SVRCONN", f"127.0.0.1({running_qm.port})", csp=csp)
    assert qmgr.get_name() == running_qm.name
    q = ibmmq.Queue(qmgr, "TEST.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET)
    assert q.get_name() == "TEST.Q"
    md = ibmmq.MD()
    q.put("Hello from Python!", md)
    attrs = q.inquire([CMQC.MQIA_CURRENT_Q_DEPTH, CMQC.MQCA_Q_NAME])
    assert attrs[CMQC.MQIA_CURRENT_Q_DEPTH] == 1 and q.to_string(attrs[CMQC.MQCA_Q_NAME]) == "TEST.Q"
    q.set({CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_INHIBITED})
    with pytest.raises(ibmmq.MQMIError) as e:
        q.put(b"x")
    assert e.value.reason == CMQC.MQRC_PUT_INHIBITED
    q.set({CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_ALLOWED})
    got = ibmmq.MD()
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING, WaitInterval=2000)
    assert q.get(None, got, gmo) == b"Hello from Python!"
    assert (got.Format, got.CodedCharSetId, got.MsgId) == (CMQC.MQFMT_STRING, 1208, md.MsgId)
    assert got.UserIdentifier.rstrip() == b"app"          # the MQCSP user reached the queue manager
    q.close()
    # Handle sharing is on: a second connection from this thread on the same object is no 2002.
    qmgr.connect_tcp_client(running_qm.name, ibmmq.CD(), "TEST.SVRCONN", f"127.0.0.1({running_qm.port})")
    assert qmgr.is_connected
    bad = ibmmq.CSP()
    bad.UserId = "app"
    with pytest.raises(ibmmq.PYIFError, match="CSPUserId"):
        ibmmq.QueueManager(None).connect_with_options(running_qm.name, csp=bad)
    qmgr.disconnect()


def test_request_and_response_with_a_dynamic_reply_queue(running_qm: RunningQM):
    conninfo = f"127.0.0.1({running_qm.port})"
    running_qm.mqsc("DEFINE QLOCAL(DEV.QUEUE.1)")

    def responder():
        conn = ibmmq.connect(running_qm.name, "TEST.SVRCONN", conninfo)
        requests = ibmmq.Queue(conn, "DEV.QUEUE.1", CMQC.MQOO_INPUT_AS_Q_DEF)
        md = ibmmq.MD()
        body = json.loads(requests.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=10000)))
        reply = ibmmq.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=md.MsgId, Format=CMQC.MQFMT_STRING)
        conn.put1(ibmmq.OD(ObjectName=md.ReplyToQ, ObjectQMgrName=md.ReplyToQMgr),
                  json.dumps({"answer": body["value"] * 2}), reply)
        conn.disconnect()

    t = threading.Thread(target=responder)
    t.start()
    qmgr = ibmmq.connect(running_qm.name, "TEST.SVRCONN", conninfo)
    dyn_od = ibmmq.OD(ObjectName="SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName="REPLY.*")
    replies = ibmmq.Queue(qmgr, dyn_od, CMQC.MQOO_INPUT_EXCLUSIVE)
    md = ibmmq.MD()
    md.ReplyToQ = dyn_od.ObjectName
    md.MsgType = CMQC.MQMT_REQUEST
    md.Format = CMQC.MQFMT_STRING
    md.ReportOptions = CMQC.MQRO_COPY_MSG_ID_TO_CORREL_ID      # as IBM's sample does: not an MQMD field
    ibmmq.Queue(qmgr, "DEV.QUEUE.1").put(json.dumps({"value": 21}), md)
    got = ibmmq.MD(CorrelId=md.MsgId)
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=10000, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
    assert json.loads(replies.get(None, got, gmo)) == {"answer": 42}
    t.join()
    assert got.MsgType == CMQC.MQMT_REPLY
    replies.close()
    qmgr.disconnect()


def test_pcf_strings_are_cut_and_responses_collected(running_qm: RunningQM):
    qmgr = ibmmq.connect(running_qm.name, "TEST.SVRCONN", f"127.0.0.1({running_qm.port})")
    pcf = ibmmq.PCFExecute(qmgr, response_wait_interval=10000)
    (row,) = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: "TEST.Q", CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQCA_Q_NAME]})
    assert row[CMQC.MQCA_Q_NAME].rstrip() == b"TEST.Q" and len(row[CMQC.MQCA_Q_NAME]) == 48   # no pad to 4
    (esc,) = pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                               CMQCFC.MQCACF_ESCAPE_TEXT: b"DEFINE QLOCAL(BY.ESCAPE)"})
    assert esc[CMQCFC.MQCACF_ESCAPE_TEXT] == b"AMQ8006I: IBM MQ queue created."   # pymqi: one blank more
    responses: list = []
    with pytest.raises(ibmmq.MQMIError) as e:
        pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: "NO.SUCH.Q"}, responses=responses)
    assert e.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert responses and responses[0][1].Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    pcf.disconnect()
    qmgr.disconnect()


def test_plain_import_ibmmq_is_opt_in_and_leaves_a_real_ibmmq_alone(running_qm: RunningQM, tmp_path):
    real = tmp_path / "site" / "ibmmq"
    real.mkdir(parents=True)
    (real / "__init__.py").write_text("REAL = True\nCMQC = None\n")
    program = textwrap.dedent(f"""
        import ibmmq as mq
        from ibmmq import CMQC
        print(getattr(mq, "REAL", False), mq.__name__)
        if not getattr(mq, "REAL", False):
            qmgr = mq.connect("{running_qm.name}", "TEST.SVRCONN", "127.0.0.1({running_qm.port})")
            queue = mq.Queue(qmgr, "TEST.Q")
            queue.put("unchanged code")
            print(mq.Queue(qmgr, "TEST.Q").get(), CMQC.MQRC_NO_MSG_AVAILABLE)
            qmgr.disconnect()
        """)

    def run(*path: str) -> str:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
        r = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        return r.stdout

    assert run(str(tmp_path / "site")) == "True ibmmq\n"
    assert run(ibmmq.SHIM_PATH, str(tmp_path / "site")) == "False mqlite.ibmmq\nb'unchanged code' 2033\n"
