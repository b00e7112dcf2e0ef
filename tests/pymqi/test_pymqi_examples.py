"""Application code in the style of pymqi's examples, run against a real queue manager unchanged."""
from __future__ import annotations

from mqlite import pymqi
from tests.conftest import RunningQM


def test_connect_tcp_client_put_get_correl_id(running_qm: RunningQM):
    queue_manager, channel = "TESTQM", "TEST.SVRCONN"
    conn_info = "127.0.0.1(%s)" % running_qm.port
    qmgr = pymqi.QueueManager(None)
    qmgr.connect_tcp_client(queue_manager, pymqi.CD(), channel, conn_info)

    put_queue = pymqi.Queue(qmgr, "TEST.Q")
    correl_id = b"a" * 24
    put_md = pymqi.MD()
    put_md.CorrelId = correl_id
    put_queue.put(b"Hello from correl-id example", put_md)
    put_queue.close()

    get_queue = pymqi.Queue(qmgr, "TEST.Q")
    get_md = pymqi.MD()
    get_md.CorrelId = correl_id
    gmo = pymqi.GMO()
    gmo.Options = pymqi.CMQC.MQGMO_WAIT | pymqi.CMQC.MQGMO_FAIL_IF_QUIESCING
    gmo.MatchOptions = pymqi.CMQC.MQMO_MATCH_CORREL_ID
    gmo.Version = pymqi.CMQC.MQGMO_VERSION_2
    gmo.WaitInterval = 5000
    assert get_queue.get(None, get_md, gmo) == b"Hello from correl-id example"
    get_queue.close()
    qmgr.disconnect()


def test_dynamic_queue_and_checking_cc_and_rc(running_qm: RunningQM):
    qmgr = pymqi.connect("TESTQM", "TEST.SVRCONN", "127.0.0.1(%s)" % running_qm.port, "app", "passw0rd")
    dyn_od = pymqi.OD()
    dyn_od.ObjectName = b"SYSTEM.DEFAULT.MODEL.QUEUE"
    dyn_od.DynamicQName = b"EXAMPLES.*"
    dyn_queue = pymqi.Queue(qmgr, dyn_od)
    dyn_queue.open(dyn_od, pymqi.CMQC.MQOO_INPUT_EXCLUSIVE | pymqi.CMQC.MQOO_OUTPUT)
    queue_name = dyn_od.ObjectName.strip()
    assert queue_name.startswith(b"EXAMPLES.")
    dyn_queue.put(b"to myself")
    md = pymqi.MD()
    assert dyn_queue.get(None, md) == b"to myself"
    assert md.UserIdentifier.strip() == b"app"
    try:
        dyn_queue.get()
    except pymqi.MQMIError as e:
        assert e.comp == pymqi.CMQC.MQCC_FAILED and e.reason == pymqi.CMQC.MQRC_NO_MSG_AVAILABLE
    else:
        raise AssertionError("expected MQRC_NO_MSG_AVAILABLE")
    dyn_queue.close()
    qmgr.disconnect()


def test_syncpoint_backout_example(running_qm: RunningQM):
    qmgr = pymqi.connect("TESTQM", "TEST.SVRCONN", "127.0.0.1(%s)" % running_qm.port)
    queue = pymqi.Queue(qmgr, "TEST.Q", pymqi.CMQC.MQOO_INPUT_SHARED | pymqi.CMQC.MQOO_OUTPUT)
    pmo = pymqi.PMO(Options=pymqi.CMQC.MQPMO_SYNCPOINT)
    queue.put(b"first", None, pmo)
    qmgr.commit()
    gmo = pymqi.GMO(Options=pymqi.CMQC.MQGMO_SYNCPOINT)
    md = pymqi.MD()
    assert queue.get(None, md, gmo) == b"first"
    qmgr.backout()
    md = pymqi.MD()
    assert queue.get(None, md, gmo) == b"first" and md.BackoutCount == 1
    qmgr.commit()
    queue.close()
    qmgr.disconnect()


def test_connect_options_loop_browse_and_list_queues(running_qm: RunningQM):
    # pymqi's connect_options example: connecting again and again with handle sharing.
    cd = pymqi.CD()
    cd.ChannelName = b"TEST.SVRCONN"
    cd.ConnectionName = ("127.0.0.1(%s)" % running_qm.port).encode()
    cd.ChannelType = pymqi.CMQC.MQCHT_CLNTCONN
    cd.TransportType = pymqi.CMQC.MQXPT_TCP
    qmgr = pymqi.QueueManager(None)
    for _ in range(10):
        qmgr.connect_with_options("TESTQM", cd=cd, opts=pymqi.CMQC.MQCNO_HANDLE_SHARE_BLOCK)
        qmgr.connect_with_options("TESTQM", cd=cd, opts=pymqi.CMQC.MQCNO_HANDLE_SHARE_BLOCK)
    queue = pymqi.Queue(qmgr, "TEST.Q")
    for i in range(3):
        queue.put(b"message %d" % i)
    queue.close()

    # Browsing, as the browse example does: the messages stay on the queue.
    browse = pymqi.Queue(qmgr, "TEST.Q", pymqi.CMQC.MQOO_BROWSE)
    gmo = pymqi.GMO(Options=pymqi.CMQC.MQGMO_BROWSE_NEXT)
    seen = []
    while True:
        try:
            seen.append(browse.get(None, pymqi.MD(), gmo))
        except pymqi.MQMIError as e:
            if e.comp == pymqi.CMQC.MQCC_FAILED and e.reason == pymqi.CMQC.MQRC_NO_MSG_AVAILABLE:
                break
            raise
    browse.close()
    assert seen == [b"message 0", b"message 1", b"message 2"]

    # Listing queues with PCF, as the dis_queues example does.
    pcf = pymqi.PCFExecute(qmgr)
    rows = pcf.MQCMD_INQUIRE_Q({pymqi.CMQC.MQCA_Q_NAME: b"TEST.*", pymqi.CMQC.MQIA_Q_TYPE: pymqi.CMQC.MQQT_LOCAL})
    named = [pymqi.PCFExecute.stringify_keys(r) for r in rows]
    assert [(r["MQCA_Q_NAME"].strip(), r["MQIA_CURRENT_Q_DEPTH"]) for r in named] == [(b"TEST.Q", 3)]
    pcf.disconnect()
    qmgr.disconnect()
