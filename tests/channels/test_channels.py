"""Distributed queuing between real queue-manager processes: channels, hops, dead letters, crashes."""
from __future__ import annotations

import json
import os
import socket
import struct
import threading
import time

import pytest

from mqlite import pymqi
from mqlite.cmq.headers import DLH
from mqlite.cmq.structs import text
from mqlite.net import protocol as P
from mqlite.pymqi import CMQC, CMQCFC
from mqlite.testing import Harness, free_port

WAIT = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=10000)


@pytest.fixture
def harness(tmp_path):
    h = Harness(str(tmp_path / "data"))
    yield h
    h.close()


def sender(name: str, to, xmitq: str, extra: str = "") -> str:
    return (f"DEFINE QLOCAL({xmitq}) USAGE(XMITQ) REPLACE\n"
            f"DEFINE CHANNEL({name}) CHLTYPE(SDR) CONNAME('{to.conname}') XMITQ({xmitq}) SHORTTMR(1) {extra}\n")


def pair(harness: Harness, qm2_mqsc: str = "", chl_extra: str = "", rcvr_extra: str = ""):
    qm2 = harness.add("QM2", f"DEFINE QLOCAL(TARGET.Q) MAXDEPTH(100000)\n"
                             f"DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR) {rcvr_extra}\n" + qm2_mqsc)
    qm1 = harness.add("QM1", sender("QM1.TO.QM2", qm2, "QM2", chl_extra)
                      + "DEFINE QREMOTE(REMOTE.Q) RNAME(TARGET.Q) RQMNAME(QM2) XMITQ(QM2)\n")
    return qm1, qm2


def get_all(qm, queue: str, n: int, timeout: float = 20.0) -> list[bytes]:
    c = qm.client()
    q = pymqi.Queue(c, queue)
    out = []
    deadline = time.monotonic() + timeout
    while len(out) < n and time.monotonic() < deadline:
        try:
            out.append(q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=500)))
        except pymqi.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    q.close()
    c.disconnect()
    return out


def depth(qm, queue: str) -> int:
    c = qm.bindings()
    d = pymqi.Queue(c, queue, CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    c.disconnect()
    return d


def log_of(qm) -> str:
    with open(os.path.join(qm.harness.data_dir, "qmgrs", qm.name, "errors", "AMQERR01.LOG")) as f:
        return f.read()


def wait_for(pred, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.1)
    return False


def test_two_queue_managers_message_and_context_arrive(harness):
    qm1, qm2 = pair(harness)
    c1 = qm1.client()
    q = pymqi.Queue(c1, "REMOTE.Q")
    sent = []
    for i in range(30):
        md = pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT if i % 3 else CMQC.MQPER_NOT_PERSISTENT,
                      CorrelId=b"%024d" % i, MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"REPLIES")
        q.put(b"m%d" % i, md)
        sent.append(md)
    c2 = qm2.client()
    g = pymqi.Queue(c2, "TARGET.Q")
    for i in range(30):
        md = pymqi.MD(CorrelId=b"%024d" % i)
        assert g.get(None, md, pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=10000, Version=2,
                                          MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)) == b"m%d" % i
        assert md.MsgId == sent[i].MsgId and md.PutDate == sent[i].PutDate
        assert md.ReplyToQMgr.strip() == b"QM1" and md.ReplyToQ.strip() == b"REPLIES"
        assert md.UserIdentifier == sent[i].UserIdentifier and md.PutApplName == sent[i].PutApplName
    c1.disconnect()
    c2.disconnect()
    out = qm1.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2) ALL").stdout
    assert "STATUS(RUNNING)" in out and "RQMNAME(QM2)" in out and "CURSEQNO(20)" in out and "INDOUBT(NO)" in out
    assert "CHLTYPE(RCVR)" in qm2.mqsc("DISPLAY CHSTATUS(*)").stdout
    assert depth(qm1, "QM2") == 0


def test_request_reply_across_queue_managers(harness):
    qm1, qm2 = pair(harness)
    qm2.mqsc(sender("QM2.TO.QM1", qm1, "QM1"), check=True)
    qm1.mqsc("DEFINE CHANNEL(QM2.TO.QM1) CHLTYPE(RCVR)\nDEFINE QLOCAL(REPLY.Q)\n", check=True)
    c1 = qm1.client()
    req_md = pymqi.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"REPLY.Q")
    pymqi.Queue(c1, "REMOTE.Q").put(b"what time is it?", req_md)
    c2 = qm2.client()
    md = pymqi.MD()
    assert pymqi.Queue(c2, "TARGET.Q").get(None, md, WAIT) == b"what time is it?"
    reply_od = pymqi.OD(ObjectName=md.ReplyToQ, ObjectQMgrName=md.ReplyToQMgr)
    c2.put1(reply_od, b"noon", pymqi.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=md.MsgId))
    rmd = pymqi.MD(CorrelId=req_md.MsgId)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=10000, Version=2, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
    assert pymqi.Queue(c1, "REPLY.Q").get(None, rmd, gmo) == b"noon"
    c1.disconnect()
    c2.disconnect()


def test_three_queue_managers_multi_hop_through_qmgr_alias(harness):
    qmc = harness.add("QMC", "DEFINE QLOCAL(FINAL.Q)\nDEFINE CHANNEL(QMB.TO.QMC) CHLTYPE(RCVR)\n")
    qmb = harness.add("QMB", sender("QMB.TO.QMC", qmc, "QMC")
                      + "DEFINE CHANNEL(QMA.TO.QMB) CHLTYPE(RCVR)\n"
                      + "DEFINE QREMOTE(C.ALIAS) RQMNAME(QMC) XMITQ(QMC)\n")
    qma = harness.add("QMA", sender("QMA.TO.QMB", qmb, "QMB")
                      + "DEFINE QREMOTE(VIA.B) RNAME(FINAL.Q) RQMNAME(C.ALIAS) XMITQ(QMB)\n"
                      + "ALTER QMGR DEFXMITQ(QMB)\n")
    ca = qma.client()
    pymqi.Queue(ca, "VIA.B").put(b"through a queue-manager alias on QMB")
    ca.put1(pymqi.OD(ObjectName=b"FINAL.Q", ObjectQMgrName=b"QMC"), b"addressed to QMC, via DEFXMITQ")
    ca.disconnect()
    got = sorted(get_all(qmc, "FINAL.Q", 2))
    assert got == [b"addressed to QMC, via DEFXMITQ", b"through a queue-manager alias on QMB"]
    assert depth(qmb, "QMC") == 0 and depth(qma, "QMB") == 0


def test_receiver_that_starts_late_is_retried(harness):
    port = free_port()
    qm1 = harness.add("QM1", "DEFINE QLOCAL(QM2) USAGE(XMITQ)\n"
                             f"DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ(QM2) "
                             "SHORTRTY(30) SHORTTMR(1)\n"
                             "DEFINE QREMOTE(REMOTE.Q) RNAME(TARGET.Q) RQMNAME(QM2) XMITQ(QM2)\n")
    c1 = qm1.client()
    pymqi.Queue(c1, "REMOTE.Q").put(b"patience", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    c1.disconnect()
    assert wait_for(lambda: "STATUS(RETRYING)" in qm1.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2)").stdout)
    assert "AMQ9202E" in log_of(qm1)
    qm2 = harness.add("QM2", "DEFINE QLOCAL(TARGET.Q)\nDEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR)\n", port=port)
    assert get_all(qm2, "TARGET.Q", 1) == [b"patience"]


def dead_letters(qm) -> list[tuple[DLH, bytes]]:
    out = []
    for body in get_all(qm, "SYSTEM.DEAD.LETTER.QUEUE", depth(qm, "SYSTEM.DEAD.LETTER.QUEUE"), timeout=3):
        out.append((DLH().unpack(body[:172]), body[172:]))
    return out


def test_dead_letter_paths(harness):
    qm1, qm2 = pair(harness, "DEFINE QLOCAL(FULL.Q) MAXDEPTH(1)\nDEFINE QLOCAL(SHUT.Q) PUT(DISABLED)\n"
                             "DEFINE QLOCAL(SMALL.Q) MAXMSGL(10)\nALTER QMGR DEADQ(SYSTEM.DEAD.LETTER.QUEUE)\n",
                    rcvr_extra="MRRTY(2) MRTMR(100)")
    qm1.mqsc("DEFINE QREMOTE(TO.NOWHERE) RNAME(NO.SUCH.Q) RQMNAME(QM2) XMITQ(QM2)\n"
             "DEFINE QREMOTE(TO.FULL) RNAME(FULL.Q) RQMNAME(QM2) XMITQ(QM2)\n"
             "DEFINE QREMOTE(TO.SHUT) RNAME(SHUT.Q) RQMNAME(QM2) XMITQ(QM2)\n"
             "DEFINE QREMOTE(TO.SMALL) RNAME(SMALL.Q) RQMNAME(QM2) XMITQ(QM2)\n", check=True)
    c1 = qm1.client()
    persistent = pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT, Format=CMQC.MQFMT_STRING)
    for q, body in (("TO.NOWHERE", b"lost?"), ("TO.FULL", b"one fits"), ("TO.FULL", b"two do not"),
                    ("TO.SHUT", b"inhibited"), ("TO.SMALL", b"far too big for SMALL.Q")):
        pymqi.Queue(c1, q).put(body, persistent.copy())
    c1.disconnect()
    assert wait_for(lambda: depth(qm2, "SYSTEM.DEAD.LETTER.QUEUE") == 4)
    dl = dead_letters(qm2)
    assert get_all(qm2, "FULL.Q", 1) == [b"one fits"]
    by_body = {body: dlh for dlh, body in dl}
    assert set(by_body) == {b"lost?", b"two do not", b"inhibited", b"far too big for SMALL.Q"}
    assert by_body[b"lost?"].Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert by_body[b"two do not"].Reason == CMQC.MQRC_Q_FULL
    assert by_body[b"inhibited"].Reason == CMQC.MQRC_PUT_INHIBITED
    assert by_body[b"far too big for SMALL.Q"].Reason == CMQC.MQRC_MSG_TOO_BIG_FOR_Q
    d = by_body[b"lost?"]
    assert (text(d.DestQName), text(d.DestQMgrName), d.PutApplType, text(d.PutApplName), d.Format) == (
        "NO.SUCH.Q", "QM2", CMQC.MQAT_QMGR, "QM2", CMQC.MQFMT_STRING)
    assert depth(qm1, "QM2") == 0


def test_message_too_big_for_channel_is_dead_lettered_at_the_sending_end(harness):
    qm1, qm2 = pair(harness, chl_extra="MAXMSGL(4000)")
    c1 = qm1.client()
    q = pymqi.Queue(c1, "REMOTE.Q")
    q.put(b"y" * 5000, pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    q.put(b"small", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    c1.disconnect()
    assert get_all(qm2, "TARGET.Q", 1) == [b"small"]
    assert wait_for(lambda: depth(qm1, "SYSTEM.DEAD.LETTER.QUEUE") == 1)
    (dlh, body), = dead_letters(qm1)
    assert dlh.Reason == CMQC.MQRC_MSG_TOO_BIG_FOR_CHANNEL and body == b"y" * 5000
    assert (text(dlh.DestQName), text(dlh.DestQMgrName)) == ("TARGET.Q", "QM2")
    assert depth(qm1, "QM2") == 0


def test_no_dead_letter_queue_stops_channel_and_keeps_message(harness):
    qm1, qm2 = pair(harness, "ALTER QMGR DEADQ(' ')\n")
    qm1.mqsc("DEFINE QREMOTE(TO.NOWHERE) RNAME(NO.SUCH.Q) RQMNAME(QM2) XMITQ(QM2)\n", check=True)
    c1 = qm1.client()
    pymqi.Queue(c1, "TO.NOWHERE").put(b"keep me", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    c1.disconnect()
    assert wait_for(lambda: "STATUS(STOPPED)" in qm1.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2)").stdout)
    assert depth(qm1, "QM2") == 1
    assert "AMQ9544E" in log_of(qm1) and "AMQ9544E" in log_of(qm2)
    # the operator makes a place for it and restarts the channel
    qm2.mqsc("DEFINE QLOCAL(NO.SUCH.Q)", check=True)
    assert "AMQ8018I" in qm1.mqsc("START CHANNEL(QM1.TO.QM2)").stdout
    assert get_all(qm2, "NO.SUCH.Q", 1) == [b"keep me"]


def test_fast_nonpersistent_without_dead_letter_queue_is_discarded(harness):
    qm1, qm2 = pair(harness, "ALTER QMGR DEADQ(' ')\n")
    qm1.mqsc("DEFINE QREMOTE(TO.NOWHERE) RNAME(NO.SUCH.Q) RQMNAME(QM2) XMITQ(QM2)\n", check=True)
    c1 = qm1.client()
    pymqi.Queue(c1, "TO.NOWHERE").put(b"fast", pymqi.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
    pymqi.Queue(c1, "REMOTE.Q").put(b"still flows")
    c1.disconnect()
    assert get_all(qm2, "TARGET.Q", 1) == [b"still flows"]
    assert "AMQ9599W" in log_of(qm2)
    assert "STATUS(RUNNING)" in qm1.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2)").stdout


def test_usedlq_no_treats_undeliverable_as_failure(harness):
    qm1, qm2 = pair(harness, rcvr_extra="USEDLQ(NO)")
    qm1.mqsc("DEFINE QREMOTE(TO.NOWHERE) RNAME(NO.SUCH.Q) RQMNAME(QM2) XMITQ(QM2)\n", check=True)
    c1 = qm1.client()
    pymqi.Queue(c1, "TO.NOWHERE").put(b"x", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    c1.disconnect()
    assert wait_for(lambda: "STATUS(STOPPED)" in qm1.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2)").stdout)
    assert depth(qm1, "QM2") == 1 and depth(qm2, "SYSTEM.DEAD.LETTER.QUEUE") == 0


def test_channel_commands(harness):
    qm1, qm2 = pair(harness)
    assert "AMQ8020I: Ping IBM MQ channel complete." in qm1.mqsc("PING CHANNEL(QM1.TO.QM2)").stdout
    r = qm1.mqsc("STOP CHANNEL(QM1.TO.QM2)")
    assert "AMQ8019I" in r.stdout
    assert "STATUS(STOPPED)" in qm1.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2)").stdout
    c1 = qm1.client()
    pymqi.Queue(c1, "REMOTE.Q").put(b"waits", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    time.sleep(1)
    assert depth(qm1, "QM2") == 1                              # a stopped channel does not start
    qm1.stop()
    qm1.start()                                                # and stays stopped across a restart
    assert "STATUS(STOPPED)" in qm1.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2)").stdout
    assert "AMQ8018I" in qm1.mqsc("START CHANNEL(QM1.TO.QM2)").stdout
    assert get_all(qm2, "TARGET.Q", 1) == [b"waits"]
    r = qm1.mqsc("STOP CHANNEL(QM1.TO.QM2) MODE(FORCE) STATUS(INACTIVE)")
    assert r.returncode == 0
    assert wait_for(lambda: "AMQ8420I" in qm1.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2)").stdout)
    assert "AMQ8227E: Channel NOPE not found." in qm1.mqsc("START CHANNEL(NOPE)").stdout
    assert qm1.mqsc("STOP CHANNEL(QM1.TO.QM2) MODE(BOGUS)").returncode == 10
    assert "AMQ8024I" in qm1.mqsc("RESOLVE CHANNEL(QM1.TO.QM2) ACTION(COMMIT)").stdout
    assert "AMQ8405I" in qm1.mqsc("RESOLVE CHANNEL(QM1.TO.QM2)").stdout
    c1.disconnect()


def test_sequence_number_mismatch_and_reset(harness):
    qm1, qm2 = pair(harness)
    c1 = qm1.client()
    pymqi.Queue(c1, "REMOTE.Q").put(b"one", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    assert get_all(qm2, "TARGET.Q", 1) == [b"one"]
    qm1.mqsc("STOP CHANNEL(QM1.TO.QM2) STATUS(INACTIVE)")
    wait_for(lambda: "AMQ8420I" in qm2.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2)").stdout)
    assert "AMQ8023I" in qm2.mqsc("RESET CHANNEL(QM1.TO.QM2) SEQNUM(500)").stdout
    pymqi.Queue(c1, "REMOTE.Q").put(b"two", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    assert wait_for(lambda: "AMQ9526E" in log_of(qm2))           # the receiver refuses: 1 != 499
    assert depth(qm1, "QM2") == 1
    qm1.mqsc("STOP CHANNEL(QM1.TO.QM2)")
    assert wait_for(lambda: "STATUS(STOPPED)" in qm1.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2)").stdout)
    assert "AMQ8023I" in qm1.mqsc("RESET CHANNEL(QM1.TO.QM2) SEQNUM(500)").stdout
    qm1.mqsc("START CHANNEL(QM1.TO.QM2)")
    assert get_all(qm2, "TARGET.Q", 1) == [b"two"]
    assert "CURSEQNO(500)" in qm1.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2) ALL").stdout
    c1.disconnect()


def test_sequence_numbers_wrap_at_seqwrap_inside_a_batch(harness):
    """SEQWRAP(100): a batch that runs 96..100 then 1..5 is one batch whose first and last the
    receiver checks (both conversations follow the sender's SEQWRAP, sent in its HELLO)."""
    qm1, qm2 = pair(harness, chl_extra="SEQWRAP(100) BATCHSZ(10)", rcvr_extra="SEQWRAP(100)")
    qm1.mqsc("STOP CHANNEL(QM1.TO.QM2)")
    assert wait_for(lambda: "STATUS(STOPPED)" in qm1.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2)").stdout)
    assert "AMQ8023I" in qm1.mqsc("RESET CHANNEL(QM1.TO.QM2) SEQNUM(96)").stdout
    c1 = qm1.client()
    q = pymqi.Queue(c1, "REMOTE.Q")
    for i in range(12):
        q.put(b"m%d" % i, pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    qm1.mqsc("START CHANNEL(QM1.TO.QM2)")
    assert get_all(qm2, "TARGET.Q", 12) == [b"m%d" % i for i in range(12)]
    assert wait_for(lambda: "CURSEQNO(7)" in qm1.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2) ALL").stdout)
    assert "AMQ9504E" not in log_of(qm2)
    c1.disconnect()


def channel_hello(qm, **fields) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", qm.port))
    hello = {"proto": P.PROTOCOL_VERSION, "kind": "channel", **fields}
    P.send_frame(s, P.HELLO, P.encode_json(hello))
    return s


def test_protocol_negative_cases(harness):
    qm1, qm2 = pair(harness)
    c1 = qm1.client()
    pymqi.Queue(c1, "REMOTE.Q").put(b"established", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    assert get_all(qm2, "TARGET.Q", 1) == [b"established"]
    # a channel that is not defined here
    s = channel_hello(qm2, channel="NO.SUCH.CHL", from_qmgr="QM1")
    ftype, payload = P.recv_frame(s)
    assert ftype == P.ERROR and json.loads(payload)["msgid"] == "AMQ9519E"
    s.close()
    # a peer that claims another queue manager's name on an established channel
    qm1.mqsc("STOP CHANNEL(QM1.TO.QM2) STATUS(INACTIVE)")
    wait_for(lambda: "AMQ8420I" in qm2.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2)").stdout)
    s = channel_hello(qm2, channel="QM1.TO.QM2", from_qmgr="IMPOSTER", seq=1)
    ftype, payload = P.recv_frame(s)
    assert ftype == P.ERROR and json.loads(payload)["msgid"] == "AMQ9535E"
    s.close()
    # garbage, a truncated frame and an oversized frame inside an accepted channel session
    for junk in (b"\xff" * 64, struct.pack(">IB", 50, P.CH_MSG) + b"short",
                 struct.pack(">IB", 0x7FFFFFF0, P.CH_MSG)):
        s = channel_hello(qm2, channel="QM1.TO.QM2", from_qmgr="QM1", seq=1)
        ftype, _ = P.recv_frame(s)
        assert ftype == P.HELLO_OK
        s.sendall(junk)
        s.close()
        time.sleep(0.3)
    # fields of the wrong type in the channel's HELLO and in a batch's end (a peer that speaks the
    # protocol badly): each answered with AMQ9504E and the connection closed, no traceback
    hostile_hellos = ({"batchsz": "fifty"}, {"seq": "1"}, {"seq": [1]}, {"reset": "yes"}, {"from_qmgr": 7})
    for fields in hostile_hellos:
        s = channel_hello(qm2, **{"channel": "QM1.TO.QM2", "from_qmgr": "QM1", "seq": 1, **fields})
        with pytest.raises((ConnectionError, OSError, P.ProtocolError)):
            P.recv_frame(s)
        s.close()
    hostile_ends = ([1, 2], {"keys": None, "last": "x"}, {"keys": [[1]]}, {"keys": [], "durable": {"a": 1}},
                    {"keys": [], "last": 1.5})
    for end in hostile_ends:
        s = channel_hello(qm2, channel="QM1.TO.QM2", from_qmgr="QM1", seq=1)
        ftype, _ = P.recv_frame(s)
        assert ftype == P.HELLO_OK
        P.send_frame(s, P.CH_END, json.dumps(end).encode())
        with pytest.raises((ConnectionError, OSError, P.ProtocolError)):
            P.recv_frame(s)
        s.close()
    log = log_of(qm2)
    assert "AMQ9519E" in log and "AMQ9535E" in log
    assert log.count("AMQ9504E") >= 2 + len(hostile_hellos) + len(hostile_ends)
    assert "AMQ6184W" not in log
    # nothing was lost or changed: the real sender carries on
    qm1.mqsc("START CHANNEL(QM1.TO.QM2)")
    pymqi.Queue(c1, "REMOTE.Q").put(b"after the noise", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    assert get_all(qm2, "TARGET.Q", 1) == [b"after the noise"]
    c1.disconnect()


def restart_with(qm, ini: str) -> None:
    """Add ``ini`` to the queue manager's qm.ini and restart it."""
    with open(os.path.join(qm.harness.data_dir, "qmgrs", qm.name, "qm.ini"), "a", encoding="utf-8") as f:
        f.write(ini)
    qm.stop()
    qm.start()


TINY_BUFFERS = "TuningParameters:\n   DefaultQBufferSize=4096\n   DefaultPQBufferSize=4096\n"


@pytest.mark.parametrize("buffers", ["default", "tiny"])
def test_kill9_either_end_mid_stream_delivers_each_message_once(harness, buffers):
    """With tiny buffers (issue 16) both the transmission queue and the target queue are read
    back from the store a page at a time while the channel's batches move and both ends die."""
    qm1, qm2 = pair(harness, chl_extra="BATCHSZ(20)")
    if buffers == "tiny":
        restart_with(qm2, TINY_BUFFERS)
        restart_with(qm1, TINY_BUFFERS)
    n = 3000
    c1 = qm1.client()
    q = pymqi.Queue(c1, "REMOTE.Q")
    pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    for i in range(n):
        q.put(b"%06d" % i, pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT), pmo)
        if i % 100 == 99:
            c1.commit()
    c1.commit()
    c1.disconnect()
    assert wait_for(lambda: depth(qm2, "TARGET.Q") >= n // 4, 30)
    qm2.kill9()                                   # the receiver dies mid-stream
    time.sleep(0.5)
    qm2.start()
    assert wait_for(lambda: depth(qm2, "TARGET.Q") >= n // 2, 60)
    qm1.kill9()                                   # then the sender
    qm1.start()
    assert wait_for(lambda: depth(qm1, "QM2") == 0, 90)
    got = get_all(qm2, "TARGET.Q", n + 10, timeout=15)
    assert len(got) == n and len(set(got)) == n, (len(got), len(set(got)))
    assert sorted(got) == [b"%06d" % i for i in range(n)]
    assert "INDOUBT(NO)" in qm1.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2) ALL").stdout or \
        "AMQ8420I" in qm1.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2)").stdout


def test_harness_in_process_and_shared_clock(harness):
    qm = harness.add("INPROC", "DEFINE QLOCAL(EXP.Q)", in_process=True)
    c = qm.client()
    pymqi.Queue(c, "EXP.Q").put(b"ten seconds", pymqi.MD(Expiry=100))
    harness.advance_clock(11)
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.Queue(c, "EXP.Q").get()
    assert e.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    c.disconnect()


def test_ping_to_a_silent_partner_does_not_hold_up_the_queue_manager(harness):
    # A "partner" that accepts the connection and never says a word.
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)
    port = silent.getsockname()[1]
    qm = harness.add("QM1", f"DEFINE QLOCAL(XQ) USAGE(XMITQ)\nDEFINE QLOCAL(WORK.Q)\n"
                            f"DEFINE CHANNEL(TO.SILENT) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ(XQ)\n")
    conn = qm.client()
    result = {}
    pinger = threading.Thread(target=lambda: result.update(r=qm.mqsc("PING CHANNEL(TO.SILENT)")))
    pinger.start()
    peer, _ = silent.accept()           # the ping is now waiting for the handshake answer
    t0 = time.monotonic()
    q = pymqi.Queue(conn, "WORK.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    q.put(b"still served")
    assert q.get() == b"still served"
    q.close()
    assert time.monotonic() - t0 < 2.0   # not the 10 s the ping may wait
    peer.close()                        # the partner goes away: the ping fails, as MQ's would
    pinger.join(30)
    assert "AMQ9202E" in result["r"].stdout and result["r"].returncode == 10
    silent.close()
    conn.disconnect()


def test_channel_statistics_count_what_the_channel_moved(harness):
    """STATCHL: a statistics message (MQCMD_STATISTICS_CHANNEL) at each end, a group for the channel
    with the messages and bytes it moved in the interval, at the sending end its batches (one of
    three messages, short of BATCHSZ) and their network time; nothing once it moved nothing more."""
    from tests.helpers import parse_pcf
    qm1, qm2 = pair(harness, "ALTER QMGR STATCHL(HIGH)\n")
    qm1.mqsc("ALTER QMGR STATCHL(MEDIUM)\n", check=True)
    c1 = qm1.client()
    q = pymqi.Queue(c1, "REMOTE.Q")
    for i in range(3):                                  # one unit of work: one batch of three
        q.put(b"payload %d" % i, pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    c1.commit()
    c1.disconnect()
    assert len(get_all(qm2, "TARGET.Q", 3)) == 3

    def channel_groups(qm):
        assert "AMQ8005I" in qm.mqsc("RESET QMGR TYPE(STATISTICS)\n").stdout
        c = qm.bindings()
        q = pymqi.Queue(c, "SYSTEM.ADMIN.STATISTICS.QUEUE")
        out = []
        while True:
            try:
                cfh, params = parse_pcf(q.get())
            except pymqi.MQMIError:
                break
            if cfh[3] == CMQCFC.MQCMD_STATISTICS_CHANNEL:
                out += [{p: v for _t, p, v in g} for t, par, g in params if t == CMQCFC.MQCFT_GROUP]
        c.disconnect()
        return out
    for qm, chltype, rqm in ((qm1, CMQC.MQCHT_SENDER, "QM2"), (qm2, CMQC.MQCHT_RECEIVER, "QM1")):
        (g,) = channel_groups(qm)
        assert g[CMQCFC.MQCACH_CHANNEL_NAME] == "QM1.TO.QM2" and g[CMQCFC.MQIACH_CHANNEL_TYPE] == chltype
        assert g[CMQCFC.MQIAMO_MSGS] == 3 and g[CMQCFC.MQIAMO64_BYTES] >= 3 * len(b"payload 0")
        assert g[CMQCFC.MQIAMO_PUT_RETRIES] == 0 and g[CMQC.MQCA_REMOTE_Q_MGR_NAME] in ("", rqm)
        if chltype == CMQC.MQCHT_SENDER:
            assert (g[CMQCFC.MQIAMO_FULL_BATCHES], g[CMQCFC.MQIAMO_INCOMPLETE_BATCHES],
                    g[CMQCFC.MQIAMO_AVG_BATCH_SIZE]) == (0, 1, 3)
            assert 0 < g[CMQCFC.MQIAMO_NET_TIME_MIN] == g[CMQCFC.MQIAMO_NET_TIME_AVG] \
                == g[CMQCFC.MQIAMO_NET_TIME_MAX] < 30_000_000
        else:
            assert CMQCFC.MQIAMO_FULL_BATCHES not in g and CMQCFC.MQIAMO_NET_TIME_AVG not in g
        assert channel_groups(qm) == []               # the next interval: nothing moved


def test_channel_events_report_starts_and_stops(harness):
    """CHLEV: Channel Started at both ends (XmitQName only at the sending end), Channel Stopped OK
    when the channel ends after DISCINT, Channel Stopped By User after STOP CHANNEL, Channel
    Stopped DISABLED with the error's identifier when a sender runs out of retries; with
    EXCEPTION only the last of these."""
    from tests.helpers import admin_messages

    def channel_events(qm):
        got = admin_messages(qm, "SYSTEM.ADMIN.CHANNEL.EVENT")
        assert all(cfh[3] == CMQCFC.MQCMD_CHANNEL_EVENT for cfh, _p in got)
        return [(cfh[7], [(p, v) for _t, p, v in params]) for cfh, params in got]

    def reasons(qm, n):
        got = []
        assert wait_for(lambda: got.extend(channel_events(qm)) or len(got) >= n), got
        return got
    qm1, qm2 = pair(harness, "ALTER QMGR CHLEV(ENABLED)\n", chl_extra="DISCINT(1)")
    qm1.mqsc("ALTER QMGR CHLEV(ENABLED)\n"
             "DEFINE QLOCAL(NOWHERE) USAGE(XMITQ)\n"
             f"DEFINE CHANNEL(TO.NOWHERE) CHLTYPE(SDR) CONNAME('127.0.0.1({free_port()})') XMITQ(NOWHERE) "
             "SHORTRTY(1) SHORTTMR(1) LONGRTY(0)\n", check=True)
    c1 = qm1.client()
    pymqi.Queue(c1, "REMOTE.Q").put(b"one")
    assert get_all(qm2, "TARGET.Q", 1) == [b"one"]
    (started, stopped) = reasons(qm1, 2)              # started, then stopped after DISCINT(1)
    assert started == (CMQC.MQRC_CHANNEL_STARTED, [
        (CMQC.MQCA_Q_MGR_NAME, "QM1"), (CMQCFC.MQCACH_CHANNEL_NAME, "QM1.TO.QM2"),
        (CMQCFC.MQCACH_XMIT_Q_NAME, "QM2"), (CMQCFC.MQCACH_CONNECTION_NAME, qm2.conname)])
    assert stopped[0] == CMQC.MQRC_CHANNEL_STOPPED
    assert [p for p, _v in stopped[1]] == [
        CMQC.MQCA_Q_MGR_NAME, CMQCFC.MQIACF_REASON_QUALIFIER, CMQCFC.MQCACH_CHANNEL_NAME,
        CMQCFC.MQIACF_ERROR_IDENTIFIER, CMQCFC.MQIACF_AUX_ERROR_DATA_INT_1, CMQCFC.MQIACF_AUX_ERROR_DATA_INT_2,
        CMQCFC.MQCACF_AUX_ERROR_DATA_STR_1, CMQCFC.MQCACF_AUX_ERROR_DATA_STR_2, CMQCFC.MQCACF_AUX_ERROR_DATA_STR_3,
        CMQCFC.MQCACH_XMIT_Q_NAME, CMQCFC.MQCACH_CONNECTION_NAME]
    assert dict(stopped[1])[CMQCFC.MQIACF_REASON_QUALIFIER] == CMQCFC.MQRQ_CHANNEL_STOPPED_OK
    assert dict(stopped[1])[CMQCFC.MQIACF_ERROR_IDENTIFIER] == 0
    (rstarted, rstopped) = reasons(qm2, 2)
    assert rstarted[0] == CMQC.MQRC_CHANNEL_STARTED and CMQCFC.MQCACH_XMIT_Q_NAME not in dict(rstarted[1])
    assert rstopped[0] == CMQC.MQRC_CHANNEL_STOPPED
    # Running again, then STOP CHANNEL.
    pymqi.Queue(c1, "REMOTE.Q").put(b"two")
    assert get_all(qm2, "TARGET.Q", 1) == [b"two"]
    assert reasons(qm1, 1)[0][0] == CMQC.MQRC_CHANNEL_STARTED
    qm1.mqsc("STOP CHANNEL(QM1.TO.QM2)\n", check=True)
    (by_user,) = reasons(qm1, 1)
    # Channel Stopped's data, its error fields zero (MQ: the stop came from a command, not an error).
    assert by_user[0] == CMQC.MQRC_CHANNEL_STOPPED_BY_USER
    assert [p for p, _v in by_user[1]] == [p for p, _v in stopped[1]]
    assert dict(by_user[1])[CMQCFC.MQIACF_REASON_QUALIFIER] == CMQCFC.MQRQ_CHANNEL_STOPPED_DISABLED
    assert dict(by_user[1])[CMQCFC.MQIACF_ERROR_IDENTIFIER] == 0
    assert dict(by_user[1])[CMQCFC.MQCACH_CHANNEL_NAME] == "QM1.TO.QM2"
    # EXCEPTION: only a channel stopped by an error (here, out of retries: no partner listens).
    qm1.mqsc("ALTER QMGR CHLEV(EXCEPTION)\n", check=True)
    pymqi.Queue(c1, "NOWHERE").put(b"lost")
    (disabled,) = reasons(qm1, 1)
    assert disabled[0] == CMQC.MQRC_CHANNEL_STOPPED
    assert dict(disabled[1])[CMQCFC.MQIACF_REASON_QUALIFIER] == CMQCFC.MQRQ_CHANNEL_STOPPED_DISABLED
    assert dict(disabled[1])[CMQCFC.MQIACF_ERROR_IDENTIFIER] == 0x20009202      # AMQ9202E
    assert dict(disabled[1])[CMQCFC.MQCACH_CHANNEL_NAME] == "TO.NOWHERE"
    c1.disconnect()


@pytest.mark.parametrize("old,new,by_user,error,expected", [
    ("STARTING", "RUNNING", False, "", (CMQC.MQRC_CHANNEL_STARTED, 0)),
    ("INACTIVE", "RUNNING", False, "", (CMQC.MQRC_CHANNEL_STARTED, 0)),       # a receiver's instance
    ("PAUSED", "RUNNING", False, "", None),                                   # message retry ends
    ("RUNNING", "PAUSED", False, "", None),
    ("RUNNING", "INACTIVE", False, "", (CMQC.MQRC_CHANNEL_STOPPED, CMQCFC.MQRQ_CHANNEL_STOPPED_OK)),
    ("RUNNING", "INACTIVE", False, "AMQ9208E", (CMQC.MQRC_CHANNEL_STOPPED, CMQCFC.MQRQ_CHANNEL_STOPPED_ERROR)),
    ("RUNNING", "RETRYING", False, "AMQ9202E", (CMQC.MQRC_CHANNEL_STOPPED, CMQCFC.MQRQ_CHANNEL_STOPPED_RETRY)),
    ("RUNNING", "STOPPED", False, "AMQ9526E", (CMQC.MQRC_CHANNEL_STOPPED, CMQCFC.MQRQ_CHANNEL_STOPPED_ERROR)),
    ("RUNNING", "STOPPED", True, "", (CMQC.MQRC_CHANNEL_STOPPED_BY_USER, CMQCFC.MQRQ_CHANNEL_STOPPED_DISABLED)),
    ("RUNNING", "INACTIVE", True, "", (CMQC.MQRC_CHANNEL_STOPPED_BY_USER, CMQCFC.MQRQ_CHANNEL_STOPPED_DISABLED)),
    ("BINDING", "STOPPED", False, "AMQ9202E", (CMQC.MQRC_CHANNEL_STOPPED, CMQCFC.MQRQ_CHANNEL_STOPPED_DISABLED)),
    ("INACTIVE", "STOPPED", True, "", None),                                  # STOP CHANNEL of an idle one
    ("RETRYING", "BINDING", False, "AMQ9202E", None),
])
def test_channel_event_rule(old, new, by_user, error, expected):
    from mqlite.channels.status import channel_event
    assert channel_event(old, new, by_user, error) == expected
