"""Real queue-manager processes: control commands, runmqsc, pymqi over TCP and local bindings."""
from __future__ import annotations

import os
import socket
import struct
import threading
import time

import pytest

from mqlite import pymqi
from mqlite.pymqi import CMQC
from tests.conftest import RunningQM, free_port, mqlite


def test_control_commands(data_dir):
    port = free_port()
    r = mqlite("crtmqm", "-p", str(port), "QM.A")
    assert r.returncode == 0 and "IBM MQ queue manager created." in r.stdout
    assert mqlite("crtmqm", "QM.A").returncode == 8
    assert mqlite("crtmqm", "BAD NAME").returncode == 72
    assert mqlite("crtmqm", "Q" * 49).returncode == 72
    assert "STATUS(Ended normally)" in mqlite("dspmq").stdout
    r = mqlite("strmqm", "QM.A")
    assert r.returncode == 0 and "started" in r.stdout
    r = mqlite("strmqm", "QM.A")
    assert r.returncode == 5 and "running" in r.stderr
    assert mqlite("dspmq", "-m", "QM.A").stdout.split() == ["QMNAME(QM.A)", "STATUS(Running)"]
    assert mqlite("dltmqm", "QM.A").returncode == 5
    for cmd in ("strmqm", "endmqm", "dltmqm"):
        r = mqlite(cmd, "NOPE")
        assert r.returncode == 16 and "AMQ8118E" in r.stderr
    r = mqlite("endmqm", "-i", "QM.A")
    assert r.returncode == 0 and "ended" in r.stdout
    assert mqlite("endmqm", "QM.A").returncode == 40
    assert mqlite("dltmqm", "QM.A").returncode == 0
    assert "QM.A" not in mqlite("dspmq").stdout


def test_strmqm_on_a_busy_port_says_so_and_does_not_start(data_dir):
    """The queue manager's listener cannot bind: strmqm answers with MQ's AMQ9218E (the error log
    has it too) and a failure, and nothing is left running (it said "started" before)."""
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    port = busy.getsockname()[1]
    try:
        assert mqlite("crtmqm", "-p", str(port), "QM.BUSY").returncode == 0
        r = mqlite("strmqm", "QM.BUSY")
        assert r.returncode == 71 and "started" not in r.stdout
        assert f"AMQ9218E: The TCP/IP listener program could not bind to port number {port}." in r.stderr
        assert "STATUS(Ended normally)" in mqlite("dspmq", "-m", "QM.BUSY").stdout
        log = open(os.path.join(data_dir, "qmgrs", "QM.BUSY", "errors", "AMQERR01.LOG"), encoding="utf-8").read()
        assert "AMQ9218E" in log
    finally:
        busy.close()
    r = mqlite("strmqm", "QM.BUSY")                   # the port free again, it starts
    assert r.returncode == 0 and "started" in r.stdout
    assert mqlite("endmqm", "-i", "QM.BUSY").returncode == 0


def test_runmqsc_output_and_exit_codes(running_qm: RunningQM):
    r = running_qm.mqsc("DEFINE QLOCAL(RQ) +\n  DESCR('two lines')\nDISPLAY QLOCAL(RQ) DESCR\n")
    assert r.returncode == 0
    assert "     1 : DEFINE QLOCAL(RQ) +" in r.stdout and "       :   DESCR('two lines')" in r.stdout
    assert "AMQ8006I: IBM MQ queue created." in r.stdout and "DESCR(two lines)" in r.stdout
    assert r.stdout.rstrip().endswith("2 MQSC commands read.\nNo commands have a syntax error.\n"
                                      "All valid MQSC commands were processed.")
    r = running_qm.mqsc("DEFINE QLOCAL(RQ)\nDEFINE QLOCAL(X\nPING QMGR\n")
    assert r.returncode == 10
    assert "One command has a syntax error." in r.stdout
    assert "One valid MQSC command could not be processed." in r.stdout
    r = mqlite("runmqsc", "NOT.THERE", stdin="PING QMGR\n")
    assert r.returncode == 20 and "AMQ8146E" in r.stdout
    r = mqlite("runmqsc", "-v", "NOT.THERE", stdin="PING QMGR\nDEFINE QLOCAL(\n")
    assert r.returncode == 10
    # -v checks each command as the queue manager would (keywords, values), runs nothing, and
    # reports only syntax errors: an object that does not exist is not one.
    r = mqlite("runmqsc", "-v", running_qm.name, stdin="DEFINE QLOCAL(VERIFIED.ONLY)\nDEFINE QLOCAL(V2) BADATTR(1)\n"
               "ALTER QLOCAL(NOT.THERE) MAXDEPTH(10)\nDEFINE QLOCAL(V3) MAXDEPTH(-5)\n")
    assert r.returncode == 10 and "2 commands have a syntax error." in r.stdout
    assert "BADATTR is not valid for QLOCAL." in r.stdout and "outside the range" in r.stdout
    assert "AMQ8147E" not in r.stdout and "AMQ8006I" not in r.stdout
    assert "AMQ8147E" in running_qm.mqsc("DISPLAY QLOCAL(VERIFIED.ONLY)\n").stdout


def test_deferred_open_rules(running_qm: RunningQM):
    qmgr = running_qm.client()
    q = pymqi.Queue(qmgr, "TEST.Q")
    q.put(b"x")                                   # deferred open with MQOO_OUTPUT only
    with pytest.raises(pymqi.MQMIError) as e:
        q.get()
    assert e.value.reason == CMQC.MQRC_NOT_OPEN_FOR_INPUT
    with pytest.raises(pymqi.PYIFError):
        q.open("TEST.Q")
    with pytest.raises(pymqi.PYIFError):
        pymqi.Queue(qmgr).put(b"no descriptor")
    qmgr.disconnect()


def test_client_put_get_readme_style(running_qm: RunningQM):
    qmgr = running_qm.client()
    pymqi.Queue(qmgr, "TEST.Q").put("Hello from Python!")
    q = pymqi.Queue(qmgr, "TEST.Q")
    md = pymqi.MD()
    gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING, WaitInterval=5000)
    body = q.get(None, md, gmo)
    assert body == b"Hello from Python!"
    assert md.Format == CMQC.MQFMT_STRING and md.CodedCharSetId == 1208
    with pytest.raises(pymqi.MQMIError) as e:
        q.get(None, pymqi.MD(), pymqi.GMO())
    assert (e.value.comp, e.value.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE)
    assert str(e.value) == "MQI Error. Comp: 2, Reason 2033: FAILED: MQRC_NO_MSG_AVAILABLE"
    with pytest.raises(TypeError):
        pymqi.Queue(qmgr, "TEST.Q").put(12345)
    q.close()
    with pytest.raises(pymqi.PYIFError):
        q.close()
    assert qmgr.is_connected
    assert qmgr.inquire(CMQC.MQCA_Q_MGR_NAME).strip() == b"TESTQM"
    qmgr.disconnect()
    assert not qmgr.is_connected


def test_bindings_connection_and_request_reply(running_qm: RunningQM):
    qmgr = running_qm.bindings()
    od = pymqi.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"REPLIES.*")
    reply_q = pymqi.Queue(qmgr, od, CMQC.MQOO_INPUT_EXCLUSIVE)
    reply_name = od.ObjectName.strip()
    assert reply_name.startswith(b"REPLIES.")
    req = pymqi.Queue(qmgr, "TEST.Q")
    put_md = pymqi.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=reply_name)
    req.put(b"ping", put_md)
    # a responder: get the request, reply with CorrelId = request MsgId
    resp = running_qm.client()
    rq = pymqi.Queue(resp, "TEST.Q")
    in_md = pymqi.MD()
    assert rq.get(None, in_md) == b"ping"
    assert in_md.ReplyToQMgr.strip() == b"TESTQM"
    resp.put1(in_md.ReplyToQ, b"pong", pymqi.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=in_md.MsgId))
    md = pymqi.MD(CorrelId=put_md.MsgId)
    gmo = pymqi.GMO(Version=2, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID, Options=CMQC.MQGMO_WAIT, WaitInterval=3000)
    assert reply_q.get(None, md, gmo) == b"pong"
    reply_q.close()
    r = running_qm.mqsc(f"DISPLAY QLOCAL({reply_name.decode()})")
    assert "AMQ8147E" in r.stdout             # the temporary dynamic queue went with the close
    resp.disconnect()
    qmgr.disconnect()


def test_connection_errors(running_qm: RunningQM, data_dir):
    with pytest.raises(pymqi.MQMIError) as e:
        running_qm.client("NO.SUCH.CHANNEL")
    assert e.value.reason == CMQC.MQRC_UNKNOWN_CHANNEL_NAME
    running_qm.mqsc("DEFINE CHANNEL(A.SENDER) CHLTYPE(SDR) CONNAME('x(1)') XMITQ(X)")
    with pytest.raises(pymqi.MQMIError) as e:
        running_qm.client("A.SENDER")
    assert e.value.reason == CMQC.MQRC_CHANNEL_CONFIG_ERROR
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.connect("OTHERQM", "TEST.SVRCONN", f"127.0.0.1({running_qm.port})")
    assert e.value.reason == CMQC.MQRC_Q_MGR_NAME_ERROR
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.connect("TESTQM", "TEST.SVRCONN", f"127.0.0.1({free_port()})")
    assert e.value.reason == CMQC.MQRC_HOST_NOT_AVAILABLE
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.connect("NOT.CREATED")
    assert e.value.reason == CMQC.MQRC_Q_MGR_NAME_ERROR
    # a connection name list is tried in order
    qmgr = pymqi.connect("TESTQM", "TEST.SVRCONN", f"127.0.0.1({free_port()}),127.0.0.1({running_qm.port})")
    qmgr.disconnect()


def test_mqserver_environment_variable(running_qm: RunningQM, monkeypatch):
    monkeypatch.setenv("MQSERVER", f"TEST.SVRCONN/TCP/127.0.0.1({running_qm.port})")
    qmgr = pymqi.QueueManager("TESTQM")
    assert qmgr.get_handle() > 0
    qmgr.disconnect()


def test_waiting_get_is_woken_by_a_put(running_qm: RunningQM):
    getter = running_qm.client()
    q = pymqi.Queue(getter, "TEST.Q")
    result = {}

    def wait() -> None:
        t = time.monotonic()
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=CMQC.MQWI_UNLIMITED)
        result["body"] = q.get(None, pymqi.MD(), gmo)
        result["waited"] = time.monotonic() - t

    th = threading.Thread(target=wait)
    th.start()
    time.sleep(0.7)
    putter = running_qm.bindings()
    putter.put1("TEST.Q", b"wake up")
    th.join(10)
    assert result["body"] == b"wake up" and result["waited"] >= 0.6
    gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=300)
    t = time.monotonic()
    with pytest.raises(pymqi.MQMIError) as e:
        q.get(None, pymqi.MD(), gmo)
    assert e.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE and 0.25 < time.monotonic() - t < 2.0
    getter.disconnect()
    putter.disconnect()


def test_broken_connection_backs_out(running_qm: RunningQM):
    qmgr = running_qm.client()
    q = pymqi.Queue(qmgr, "TEST.Q")
    q.put(b"uncommitted", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qmgr._transport.sock.close()   # the application vanishes without MQDISC
    qmgr._transport = None
    time.sleep(0.3)
    other = running_qm.bindings()
    q2 = pymqi.Queue(other, "TEST.Q", CMQC.MQOO_INQUIRE)
    assert q2.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 0
    # and a normal MQDISC commits
    c = running_qm.client()
    pymqi.Queue(c, "TEST.Q").put(b"committed", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    c.disconnect()
    assert q2.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 1
    other.disconnect()


def test_truncation_through_pymqi(running_qm: RunningQM):
    qmgr = running_qm.client()
    q = pymqi.Queue(qmgr, "TEST.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    q.put(b"x" * 10000)
    with pytest.raises(pymqi.MQMIError) as e:
        q.get(100)
    assert (e.value.reason, e.value.original_length, e.value.message) == (
        CMQC.MQRC_TRUNCATED_MSG_FAILED, 10000, b"x" * 100)
    assert q.get() == b"x" * 10000       # maxLength None: the whole message
    q.put(b"y" * 50)
    with pytest.raises(pymqi.MQMIError) as e:
        q.get(10, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG))
    assert e.value.reason == CMQC.MQRC_TRUNCATED_MSG_ACCEPTED and e.value.comp == CMQC.MQCC_WARNING
    with pytest.raises(pymqi.MQMIError) as e:
        q.get()
    assert e.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    qmgr.disconnect()


def test_browse_and_inquire_set_through_pymqi(running_qm: RunningQM):
    qmgr = running_qm.client()
    q = pymqi.Queue(qmgr, "TEST.Q", CMQC.MQOO_BROWSE | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET)
    for i in range(3):
        q.put(f"m{i}".encode())
    md, gmo = pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)
    seen = [q.get(None, md, gmo)]
    gmo.Options = CMQC.MQGMO_BROWSE_NEXT
    while True:
        md = pymqi.MD()
        try:
            seen.append(q.get(None, md, gmo))
        except pymqi.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            break
    assert seen == [b"m0", b"m1", b"m2"]
    assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 3
    assert q.inquire([CMQC.MQIA_MAX_Q_DEPTH, CMQC.MQCA_Q_NAME]) == {
        CMQC.MQIA_MAX_Q_DEPTH: 5000, CMQC.MQCA_Q_NAME: b"TEST.Q".ljust(48)}
    q.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
    with pytest.raises(pymqi.MQMIError) as e:
        q.put(b"no")
    assert e.value.reason == CMQC.MQRC_PUT_INHIBITED
    assert "PUT(DISABLED)" in running_qm.mqsc("DISPLAY QLOCAL(TEST.Q) PUT").stdout
    qmgr.disconnect()


def test_browse_batch_extension(running_qm: RunningQM):
    """Queue.browse_batch (mqlite's bulk browse): MQGET(BROWSE_FIRST/NEXT)'s order and cursor, in
    batches; GET(DISABLED) and a handle not open for browse answer as MQGET would."""
    qmgr = running_qm.client()
    q = pymqi.Queue(qmgr, "TEST.Q", CMQC.MQOO_BROWSE | CMQC.MQOO_OUTPUT)
    for i in range(25):
        q.put(b"b%02d" % i, pymqi.MD(Priority=9 if i in (7, 20) else 0, CorrelId=b"c%d" % i))
    got, first = [], True
    while True:
        batch = q.browse_batch(10, first)
        first = False
        if not batch:
            break
        assert len(batch) <= 10
        got.extend(batch)
    bodies = [b for _md, b in got]
    assert bodies == [b"b07", b"b20"] + [b"b%02d" % i for i in range(25) if i not in (7, 20)]
    assert pymqi.MD.from_bytes(got[0][0]).CorrelId.rstrip(b"\0") == b"c7"
    with pytest.raises(pymqi.MQMIError) as e:       # the cursor is at the end for MQGET too
        q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_BROWSE_NEXT))
    assert e.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    assert [b for _m, b in q.browse_batch(3, first=True)] == [b"b07", b"b20", b"b00"]
    md = pymqi.MD()
    assert q.get(None, md, pymqi.GMO(Options=CMQC.MQGMO_BROWSE_NEXT)) == b"b01"   # continues after the batch
    running_qm.mqsc("ALTER QLOCAL(TEST.Q) GET(DISABLED)")
    with pytest.raises(pymqi.MQMIError) as e:
        q.browse_batch(5, first=True)
    assert e.value.reason == CMQC.MQRC_GET_INHIBITED
    running_qm.mqsc("ALTER QLOCAL(TEST.Q) GET(ENABLED)")
    out = pymqi.Queue(qmgr, "TEST.Q", CMQC.MQOO_OUTPUT)
    out.put(b"x")
    with pytest.raises(pymqi.MQMIError) as e:
        out.browse_batch(5, first=True)
    assert e.value.reason == CMQC.MQRC_NOT_OPEN_FOR_BROWSE
    qmgr.disconnect()


def test_async_put_and_read_ahead_keep_order_and_lose_nothing(running_qm: RunningQM):
    running_qm.mqsc("DEFINE QLOCAL(FAST.Q) DEFPRESP(ASYNC) DEFREADA(YES) MAXDEPTH(100000)")
    qmgr = running_qm.client()
    q = pymqi.Queue(qmgr, "FAST.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    ids = []
    for i in range(3000):
        md = pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT if i % 500 == 0 else CMQC.MQPER_NOT_PERSISTENT)
        q.put(b"%d" % i, md)
        ids.append(md.MsgId)
    sts = qmgr.stat()
    assert (sts.PutSuccessCount, sts.PutFailureCount) == (3000, 0)
    got = []
    for _ in range(1000):
        md = pymqi.MD()
        got.append(int(q.get(None, md)))
        assert md.MsgId == ids[got[-1]]
    q.close()           # the messages read ahead but not consumed go back
    q2 = pymqi.Queue(qmgr, "FAST.Q", CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INQUIRE)
    assert q2.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 2000
    for _ in range(2000):
        got.append(int(q2.get(None)))
    assert got == list(range(3000))
    qmgr.disconnect()


def test_async_put_errors_reported_by_stat(running_qm: RunningQM):
    running_qm.mqsc("DEFINE QLOCAL(SMALL.Q) DEFPRESP(ASYNC) MAXDEPTH(2)")
    qmgr = running_qm.client()
    q = pymqi.Queue(qmgr, "SMALL.Q", CMQC.MQOO_OUTPUT)
    for _ in range(5):
        q.put(b"x")
    sts = qmgr.stat()
    assert (sts.CompCode, sts.Reason, sts.PutSuccessCount, sts.PutFailureCount) == (
        CMQC.MQCC_FAILED, CMQC.MQRC_Q_FULL, 2, 3)
    assert sts.ObjectName.strip() == b"SMALL.Q"
    qmgr.disconnect()


def closed_by_server(s: socket.socket) -> bool:
    s.settimeout(5)
    try:
        return s.recv(10) == b""
    except ConnectionResetError:
        return True


def test_error_log_records_rejections_and_bad_frames(running_qm: RunningQM):
    with pytest.raises(pymqi.MQMIError):
        running_qm.client("NO.SUCH.CHANNEL")
    with socket.create_connection(("127.0.0.1", running_qm.port)) as s:
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        assert closed_by_server(s)
    with socket.create_connection(("127.0.0.1", running_qm.port)) as s:
        s.sendall(struct.pack(">IB", 0x7FFFFFFF, 1))   # an oversized frame
        assert closed_by_server(s)
    with socket.create_connection(("127.0.0.1", running_qm.port)) as s:
        s.sendall(struct.pack(">IB", 100, 1) + b"{")   # truncated, then the peer goes away
    running_qm.mqsc("DELETE QLOCAL(NOT.THERE)")
    time.sleep(0.3)
    log = open(os.path.join(running_qm.data, "qmgrs", "TESTQM", "errors", "AMQERR01.LOG")).read()
    assert "AMQ9519E: Channel 'NO.SUCH.CHANNEL' not found." in log
    assert log.count("AMQ9504E") >= 2
    assert "DELETE QLOCAL(NOT.THERE)" in log and "AMQ8147E" in log
    # and the queue manager is still serving
    qmgr = running_qm.client()
    qmgr.disconnect()


def test_garbage_after_connect_closes_only_that_connection(running_qm: RunningQM):
    qmgr = running_qm.client()
    q = pymqi.Queue(qmgr, "TEST.Q")
    q.put(b"keep me")
    qmgr._transport.sock.sendall(b"\x00\x00\x00\x05\xee garbage")
    with pytest.raises(pymqi.MQMIError) as e:
        q.put(b"after garbage")
    assert e.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    other = running_qm.client()
    assert pymqi.Queue(other, "TEST.Q").get() == b"keep me"
    other.disconnect()


def test_listener_start_stop_via_mqsc(running_qm: RunningQM):
    port = free_port()
    r = running_qm.mqsc(f"DEFINE LISTENER(EXTRA) TRPTYPE(TCP) PORT({port})\nSTART LISTENER(EXTRA)\n"
                        "DISPLAY LSSTATUS(EXTRA)\n")
    assert r.returncode == 0 and f"PORT({port})" in r.stdout
    c = pymqi.connect("TESTQM", "TEST.SVRCONN", f"127.0.0.1({port})")
    c.disconnect()
    r = running_qm.mqsc("STOP LISTENER(EXTRA)\n")
    assert r.returncode == 0
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.connect("TESTQM", "TEST.SVRCONN", f"127.0.0.1({port})")
    assert e.value.reason == CMQC.MQRC_HOST_NOT_AVAILABLE


def test_quiesce_ends_after_applications_leave(running_qm: RunningQM):
    qmgr = running_qm.client()
    q = pymqi.Queue(qmgr, "TEST.Q")
    r = mqlite("endmqm", running_qm.name)
    assert r.returncode == 0 and "Quiesce request accepted" in r.stdout
    time.sleep(0.3)
    for _ in range(3):               # each is answered while it quiesces, not only the first
        assert "STATUS(Quiescing)" in mqlite("dspmq", timeout=15).stdout
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.connect(running_qm.name)
    assert e.value.reason == CMQC.MQRC_Q_MGR_QUIESCING
    with pytest.raises(pymqi.MQMIError) as e:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING,
                                           WaitInterval=5000))
    assert e.value.reason == CMQC.MQRC_Q_MGR_QUIESCING
    with pytest.raises(pymqi.MQMIError) as e:
        running_qm.client()
    assert e.value.reason == CMQC.MQRC_Q_MGR_QUIESCING
    # MQOPEN with MQOO_FAIL_IF_QUIESCING fails with 2161 (it opened); without it, it opens.
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.Queue(qmgr, "TEST.Q", CMQC.MQOO_INQUIRE | CMQC.MQOO_FAIL_IF_QUIESCING)
    assert e.value.reason == CMQC.MQRC_Q_MGR_QUIESCING
    pymqi.Queue(qmgr, "TEST.Q", CMQC.MQOO_INQUIRE).close()
    qmgr.disconnect()
    deadline = time.monotonic() + 10
    while running_qm.pid() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "STATUS(Ended normally)" in mqlite("dspmq").stdout


def count_batch_requests(qmgr: pymqi.QueueManager) -> list[bool]:
    """Every request the connection sends from now on, True for a read-ahead batch (GET_BATCH),
    whether waited for (call) or sent ahead (post)."""
    from mqlite.net import protocol as P
    transport = qmgr._transport
    batches: list[bool] = []

    def counting(send):
        def counted(ftype, *args):
            batches.append(ftype == P.GET_BATCH)
            return send(ftype, *args)
        return counted

    transport.call, transport.post = counting(transport.call), counting(transport.post)
    return batches


def test_read_ahead_asks_the_next_batch_while_the_application_works_through_this_one(running_qm: RunningQM):
    """Outside syncpoint the next batch is asked for at the first get of a full one, so the queue
    manager makes it while the application consumes this one: one request a batch, and every
    message arrives once, in order."""
    from mqlite.pymqi.readahead import BATCH_MSGS
    running_qm.mqsc("DEFINE QLOCAL(RA.AHEAD) DEFREADA(YES) MAXDEPTH(10000)")
    qmgr = running_qm.client()
    put = pymqi.Queue(qmgr, "RA.AHEAD", CMQC.MQOO_OUTPUT)
    n = 4 * BATCH_MSGS + 100
    for i in range(n):
        put.put(b"%d" % i)
    q = pymqi.Queue(qmgr, "RA.AHEAD", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE)
    batches = count_batch_requests(qmgr)
    got = [int(q.get(None, pymqi.MD()))]
    assert sum(batches) == 2                    # the batch got, and the next one asked for at once
    # (The inquiry follows the request sent ahead on the connection: two batches are off the queue.)
    assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == n - 2 * BATCH_MSGS
    got += [int(q.get(None, pymqi.MD())) for _ in range(n - 1)]
    assert got == list(range(n))
    assert sum(batches) <= n // BATCH_MSGS + 3   # one request a batch (and one that finds the end)
    assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 0
    q.close()
    qmgr.disconnect()


def test_read_ahead_under_syncpoint_asks_no_batch_at_the_unit_boundary(running_qm: RunningQM):
    """Units of 50 under syncpoint: once a unit has taken what the last one did, no batch is asked
    ahead for the MQCMIT to give back; each later unit is one batch, and every message arrives
    once, in order."""
    running_qm.mqsc("DEFINE QLOCAL(RA.UNITS) DEFREADA(YES)")
    qmgr = running_qm.client()
    put = pymqi.Queue(qmgr, "RA.UNITS", CMQC.MQOO_OUTPUT)
    for i in range(500):
        put.put(b"%d" % i, pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    q = pymqi.Queue(qmgr, "RA.UNITS", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE)
    batches = count_batch_requests(qmgr)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)
    got, per_unit = [], []
    for _unit in range(10):
        before = sum(batches)
        got += [int(q.get(None, pymqi.MD(), gmo)) for _ in range(50)]
        qmgr.commit()
        per_unit.append(sum(batches) - before)
    assert got == list(range(500))
    assert per_unit[1:] == [1] * 9              # (the first unit learns the size from 32 up)
    assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 0
    qmgr.disconnect()


def test_read_ahead_under_syncpoint_commits_only_what_was_consumed(running_qm: RunningQM):
    running_qm.mqsc("DEFINE QLOCAL(RA.SYNC) DEFREADA(YES)\nALTER QMGR MAXUMSGS(300)")
    qmgr = running_qm.client()
    put = pymqi.Queue(qmgr, "RA.SYNC", CMQC.MQOO_OUTPUT)
    for i in range(600):
        put.put(b"%d" % i, pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT if i % 2 else CMQC.MQPER_NOT_PERSISTENT))
    q = pymqi.Queue(qmgr, "RA.SYNC", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)
    got = [int(q.get(None, pymqi.MD(), gmo)) for _ in range(10)]
    qmgr.commit()                                   # ten consumed: ten gone, the rest back in order
    assert got == list(range(10)) and q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 590
    md = pymqi.MD()
    assert int(q.get(None, md, gmo)) == 10 and md.BackoutCount == 0
    q.get(None, pymqi.MD(), gmo)
    qmgr.backout()                                  # two consumed come back with BackoutCount 1
    mds = [pymqi.MD() for _ in range(3)]
    assert [int(q.get(None, m, pymqi.GMO())) for m in mds] == [10, 11, 12]
    assert [m.BackoutCount for m in mds] == [1, 1, 0]
    for _ in range(300):                            # MAXUMSGS still limits the unit of work
        q.get(None, pymqi.MD(), gmo)
    with pytest.raises(pymqi.MQMIError) as e:
        q.get(None, pymqi.MD(), gmo)
    assert e.value.reason == CMQC.MQRC_SYNCPOINT_LIMIT_REACHED
    qmgr.backout()
    assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 587
    other = running_qm.client()
    o = pymqi.Queue(other, "RA.SYNC")
    assert int(o.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT))) == 13
    other._transport.sock.close()                   # a broken connection holding messages read ahead
    other._transport = None
    time.sleep(0.3)
    assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 587
    rest = [int(q.get(None)) for _ in range(587)]
    assert rest == list(range(13, 600))
    qmgr.disconnect()
