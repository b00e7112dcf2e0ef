"""pymqi's own publish/subscribe tests (its tests/test_pubsub.py cases: managed and provided,
durable and non-durable, one to many, RFH2 publications), through a real queue-manager process and
client connections; and a durable subscription across a restart."""
from __future__ import annotations

import os
import sqlite3

import pytest

from mqlite import ibmmq, pymqi
from mqlite.store.sqlite import Store
from mqlite.testing import Harness

WAIT = 15000


@pytest.fixture(scope="module")
def qm(tmp_path_factory):
    with Harness(str(tmp_path_factory.mktemp("data"))) as h:
        yield h.add("QMPS", "DEFINE QLOCAL(PROVIDED.Q)\nDEFINE TOPIC(SPORT) TOPICSTR('sport')\n")


def get_opts() -> pymqi.GMO:
    return pymqi.GMO(Options=pymqi.CMQC.MQGMO_NO_SYNCPOINT | pymqi.CMQC.MQGMO_FAIL_IF_QUIESCING
                     | pymqi.CMQC.MQGMO_WAIT, WaitInterval=WAIT)


def desc(name: str, topic: str, options: int) -> pymqi.SD:
    sd = pymqi.SD(Options=options)
    sd.set_vs("SubName", name)
    sd.set_vs("ObjectString", topic)
    return sd


def publish(c, topic: str, msg: bytes, *opts) -> None:
    with pymqi.Topic(c, topic_string=topic) as t:
        t.open(open_opts=pymqi.CMQC.MQOO_OUTPUT)
        t.pub(msg, *opts)


def test_managed_durable_and_non_durable(qm):
    c = qm.client()
    for options in (pymqi.CMQC.MQSO_CREATE | pymqi.CMQC.MQSO_DURABLE | pymqi.CMQC.MQSO_MANAGED,
                    pymqi.CMQC.MQSO_CREATE | pymqi.CMQC.MQSO_MANAGED):
        topic = f"/UNITTEST/PUBSUB/API/MANAGED/{options}"
        sub = pymqi.Subscription(c)
        with sub.sub(sub_desc=desc(f"Managed {options}", topic, options)):
            publish(c, topic, b"Hello World in " + topic.encode())
            data = sub.get(None, pymqi.MD(), get_opts())
            sub.close(sub_close_options=pymqi.CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
        assert data == b"Hello World in " + topic.encode()
    c.disconnect()


def test_resume_returns_the_subscriptions_durability_and_destination_class(qm):
    """MQSUB with MQSO_RESUME alone gives back, in the MQSD's Options, whether the subscription is
    durable and managed (pymqi's suite decides from them whether to delete the queue it reads)."""
    C = pymqi.CMQC
    qm.mqsc("DEFINE SUB(RESUMED.MANAGED) TOPICSTR('resume/managed') DESTCLAS(MANAGED)\n"
            "DEFINE SUB(RESUMED.PROVIDED) TOPICSTR('resume/provided') DEST(PROVIDED.Q)\n", check=True)
    c = qm.client()
    try:
        for name, managed in (("RESUMED.MANAGED", True), ("RESUMED.PROVIDED", False)):
            sd = pymqi.SD(Options=C.MQSO_RESUME)
            sd.set_vs("SubName", name)
            sub = pymqi.Subscription(c)
            sub.sub(sub_desc=sd, sub_queue=None if managed else pymqi.Queue(c, "PROVIDED.Q", C.MQOO_INPUT_AS_Q_DEF))
            assert sd.Options & C.MQSO_DURABLE and bool(sd.Options & C.MQSO_MANAGED) == managed
            assert sd.Options & C.MQSO_RESUME
            sub.close(sub_close_options=C.MQCO_KEEP_SUB)
    finally:
        c.disconnect()
        qm.mqsc("DELETE SUB(RESUMED.MANAGED)\nDELETE SUB(RESUMED.PROVIDED)\n")


def test_one_to_many(qm):
    c = qm.client()
    topic = "/UNITTEST/PUBSUB/API/MANY"
    subs = []
    for n in range(5):
        s = pymqi.Subscription(c)
        s.sub(sub_desc=desc(f"Many {n}", topic, pymqi.CMQC.MQSO_CREATE | pymqi.CMQC.MQSO_DURABLE
                             | pymqi.CMQC.MQSO_MANAGED))
        subs.append(s)
    publish(c, topic, b"to all five")
    for s in subs:
        assert s.get(None, pymqi.MD(), get_opts()) == b"to all five"
        s.close(sub_close_options=pymqi.CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    c.disconnect()


def test_provided_queue_and_rfh2_publication(qm):
    c = qm.client()
    topic = "/UNITTEST/PUBSUB/API/PROVIDED"
    queue = pymqi.Queue(c, "PROVIDED.Q", pymqi.CMQC.MQOO_INPUT_AS_Q_DEF)
    sub = pymqi.Subscription(c)
    sub.sub(sub_desc=desc("Provided", topic, pymqi.CMQC.MQSO_CREATE), sub_queue=queue)
    rfh2 = pymqi.RFH2(StrucId=pymqi.CMQC.MQRFH_STRUC_ID, Version=pymqi.CMQC.MQRFH_VERSION_2, StrucLength=188,
                      Encoding=273, CodedCharSetId=1208, Format=pymqi.CMQC.MQFMT_STRING, Flags=0,
                      NameValueCCSID=1208)
    rfh2.add_folder(b"<testFolder><testVar>testValue</testVar></testFolder>")
    rfh2.add_folder(b"<mcd><Msd>xmlnsc</Msd></mcd>")
    with pymqi.Topic(c, topic_string=topic) as t:
        t.open(open_opts=pymqi.CMQC.MQOO_OUTPUT)
        t.pub_rfh2(b"behind an RFH2", pymqi.MD(Format=pymqi.CMQC.MQFMT_RF_HEADER_2, Encoding=273,
                                                CodedCharSetId=1208), pymqi.PMO(), [rfh2])
    headers: list = []
    data = sub.get_rfh2(None, pymqi.MD(Version=pymqi.CMQC.MQMD_VERSION_2), get_opts(), headers)
    assert data == b"behind an RFH2"
    folders = b"".join(h.pack() for h in headers)
    assert b"testValue" in folders and b"<Top>" + topic.encode() + b"</Top>" in folders
    sub.close(close_sub_queue=True)
    c.disconnect()


def test_wildcards_topic_object_user_data_and_subrq(qm):
    c = qm.client()
    sd = desc("", "football/#", pymqi.CMQC.MQSO_CREATE | pymqi.CMQC.MQSO_MANAGED)
    sd.ObjectName = b"SPORT"                   # the topic object's 'sport' and then '/football/#'
    football = pymqi.Subscription(c, sub_desc=sd)
    sd = pymqi.SD(Options=pymqi.CMQC.MQSO_CREATE | pymqi.CMQC.MQSO_MANAGED | pymqi.CMQC.MQSO_PUBLICATIONS_ON_REQUEST)
    sd.set_vs("ObjectString", "sport/tennis")
    sd.set_vs("SubUserData", "tennis fan")
    on_request = pymqi.Subscription(c, sub_desc=sd)
    with pymqi.Topic(c, topic_name="SPORT", topic_string="football/results") as t:
        t.pub(b"2-1")
    assert football.get(None, pymqi.MD(), get_opts()) == b"2-1"
    publish(c, "sport/tennis", b"6-4 6-3", pymqi.MD(), pymqi.PMO(Options=pymqi.CMQC.MQPMO_RETAIN))
    with pytest.raises(pymqi.MQMIError) as e:
        on_request.get(None, pymqi.MD(), pymqi.GMO(Options=pymqi.CMQC.MQGMO_NO_WAIT))
    assert e.value.reason == pymqi.CMQC.MQRC_NO_MSG_AVAILABLE
    assert on_request.subrq().NumPubs == 1
    hmsg = pymqi.MessageHandle(c)
    gmo = get_opts()
    gmo.Version, gmo.MsgHandle = pymqi.CMQC.MQGMO_VERSION_4, hmsg.msg_handle
    assert on_request.get(None, pymqi.MD(), gmo) == b"6-4 6-3"
    assert hmsg.properties.get("MQTopicString") == "sport/tennis"
    assert hmsg.properties.get("MQSubUserData") == "tennis fan"
    football.close(close_sub_queue=True)
    on_request.close(close_sub_queue=True)
    c.disconnect()


def test_durable_subscription_survives_restart_and_ibmmq_face(qm):
    c = ibmmq.connect(qm.name, "APP.SVRCONN", qm.conname)
    sd = ibmmq.SD(Options=ibmmq.CMQC.MQSO_CREATE | ibmmq.CMQC.MQSO_DURABLE | ibmmq.CMQC.MQSO_MANAGED)
    sd.set_vs("SubName", "AUDIT")
    sd.set_vs("ObjectString", "orders/#")
    sub = ibmmq.Subscription(c, sub_desc=sd)
    sub.close()                                  # MQCO_NONE keeps a durable subscription
    publish(c, "orders/1", b"persistent order", pymqi.MD(Persistence=pymqi.CMQC.MQPER_PERSISTENT))
    c.disconnect()
    qm.stop()
    qm.start()
    c = qm.client()
    sd = pymqi.SD(Options=pymqi.CMQC.MQSO_RESUME | pymqi.CMQC.MQSO_DURABLE | pymqi.CMQC.MQSO_MANAGED)
    sd.set_vs("SubName", "AUDIT")
    sub = pymqi.Subscription(c, sub_desc=sd)
    assert sd.get_vs("ObjectString") == b"orders/#"
    assert sub.get(None, pymqi.MD(), get_opts()) == b"persistent order"
    sub.close(sub_close_options=pymqi.CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    sd2 = pymqi.SD(Options=pymqi.CMQC.MQSO_RESUME | pymqi.CMQC.MQSO_DURABLE | pymqi.CMQC.MQSO_MANAGED)
    sd2.set_vs("SubName", "AUDIT")
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.Subscription(c, sub_desc=sd2)
    assert e.value.reason == pymqi.CMQC.MQRC_NO_SUBSCRIPTION
    c.disconnect()


def test_admin_subscriptions_and_topics_through_pcf(qm):
    """pymqi's admin cases: a subscription made with PCF Create Subscription (managed, and
    provided), resumed with MQSUB by name; topics through PCF."""
    c = qm.client()
    pcf = pymqi.PCFExecute(c)
    pcf.MQCMD_CREATE_TOPIC({pymqi.CMQC.MQCA_TOPIC_NAME: b"PCF.TOPIC", pymqi.CMQC.MQCA_TOPIC_STRING: b"pcf/topic",
                            pymqi.CMQC.MQIA_TOPIC_DEF_PERSISTENCE: pymqi.CMQC.MQPER_PERSISTENT})
    (t,) = pcf.MQCMD_INQUIRE_TOPIC({pymqi.CMQC.MQCA_TOPIC_NAME: b"PCF.TOPIC"})
    assert t[pymqi.CMQC.MQCA_TOPIC_STRING].strip() == b"pcf/topic"
    assert t[pymqi.CMQC.MQIA_TOPIC_DEF_PERSISTENCE] == pymqi.CMQC.MQPER_PERSISTENT
    for destination_class, queue in ((pymqi.CMQC.MQDC_MANAGED, None), (pymqi.CMQC.MQDC_PROVIDED, b"PROVIDED.Q")):
        name = f"Admin {destination_class}".encode()
        args = {pymqi.CMQCFC.MQCACF_SUB_NAME: name, pymqi.CMQC.MQCA_TOPIC_STRING: b"pcf/topic/admin",
                pymqi.CMQCFC.MQIACF_DESTINATION_CLASS: destination_class}
        if queue:
            args[pymqi.CMQCFC.MQCACF_DESTINATION] = queue
        pcf.MQCMD_CREATE_SUBSCRIPTION(args)
        (info,) = pcf.MQCMD_INQUIRE_SUBSCRIPTION({pymqi.CMQCFC.MQCACF_SUB_NAME: name})
        assert info[pymqi.CMQCFC.MQIACF_SUB_TYPE] == pymqi.CMQCFC.MQSUBTYPE_ADMIN
        assert info[pymqi.CMQCFC.MQIACF_VARIABLE_USER_ID] == pymqi.CMQC.MQVU_ANY_USER      # MQ's default
        sd = desc(name.decode(), "pcf/topic/admin", pymqi.CMQC.MQSO_RESUME)
        sub = pymqi.Subscription(c)
        if queue:
            sub.sub(sub_desc=sd, sub_queue=pymqi.Queue(c, queue.decode(), pymqi.CMQC.MQOO_INPUT_AS_Q_DEF))
        else:
            sub.sub(sub_desc=sd)
        publish(c, "pcf/topic/admin", b"from an admin subscription")
        assert sub.get(None, pymqi.MD(), get_opts()) == b"from an admin subscription"
        sub.close(close_sub_queue=True)
        pcf.MQCMD_DELETE_SUBSCRIPTION({pymqi.CMQCFC.MQCACF_SUB_NAME: name})
    pcf.MQCMD_CREATE_SUBSCRIPTION({pymqi.CMQCFC.MQCACF_SUB_NAME: b"Fixed", pymqi.CMQC.MQCA_TOPIC_STRING: b"pcf/fixed",
                                   pymqi.CMQCFC.MQIACF_DESTINATION_CLASS: pymqi.CMQC.MQDC_MANAGED,
                                   pymqi.CMQCFC.MQCACF_SUB_USER_ID: b"someone",
                                   pymqi.CMQCFC.MQIACF_VARIABLE_USER_ID: pymqi.CMQC.MQVU_FIXED_USER,
                                   pymqi.CMQCFC.MQCACF_SUB_SELECTOR: b"price > 10",
                                   pymqi.CMQCFC.MQIACF_PUB_PRIORITY: 7,
                                   pymqi.CMQCFC.MQIACF_REQUEST_ONLY: pymqi.CMQC.MQRU_PUBLISH_ON_REQUEST})
    (info,) = pcf.MQCMD_INQUIRE_SUBSCRIPTION({pymqi.CMQCFC.MQCACF_SUB_NAME: b"Fixed"})
    assert info[pymqi.CMQCFC.MQIACF_VARIABLE_USER_ID] == pymqi.CMQC.MQVU_FIXED_USER
    assert info[pymqi.CMQCFC.MQCACF_SUB_SELECTOR].strip() == b"price > 10"
    assert info[pymqi.CMQCFC.MQIACF_PUB_PRIORITY] == 7
    assert info[pymqi.CMQCFC.MQIACF_REQUEST_ONLY] == pymqi.CMQC.MQRU_PUBLISH_ON_REQUEST
    assert info[pymqi.CMQCFC.MQCACF_SUB_USER_ID].strip() == b"someone"
    with pytest.raises(pymqi.MQMIError) as e:          # someone else's, fixed to that user
        pymqi.Subscription(c, sub_desc=desc("Fixed", "pcf/fixed", pymqi.CMQC.MQSO_RESUME))
    assert e.value.reason == pymqi.CMQC.MQRC_IDENTITY_MISMATCH
    pcf.MQCMD_DELETE_SUBSCRIPTION({pymqi.CMQCFC.MQCACF_SUB_NAME: b"Fixed"})
    with pytest.raises(pymqi.MQMIError) as e:
        pcf.MQCMD_DELETE_SUBSCRIPTION({pymqi.CMQCFC.MQCACF_SUB_NAME: b"Admin 1"})
    assert e.value.reason == pymqi.CMQC.MQRC_NO_SUBSCRIPTION
    pcf.MQCMD_DELETE_TOPIC({pymqi.CMQC.MQCA_TOPIC_NAME: b"PCF.TOPIC"})
    pcf.disconnect()
    c.disconnect()


def test_pubsub_status_through_pcf_and_mqsc(qm):
    c = qm.client()
    pcf = pymqi.PCFExecute(c)
    F = pymqi.CMQCFC
    sub = pymqi.Subscription(c)
    sub.sub(sub_desc=desc("Status 1", "status/a/b", pymqi.CMQC.MQSO_CREATE | pymqi.CMQC.MQSO_MANAGED))
    (st,) = pcf.MQCMD_INQUIRE_PUBSUB_STATUS({F.MQIACF_PS_STATUS_TYPE: F.MQPSST_LOCAL})
    assert st[pymqi.CMQC.MQCA_Q_MGR_NAME].strip() == b"QMPS"
    assert st[F.MQIACF_PUBSUB_STATUS] == F.MQPS_STATUS_ACTIVE and st[F.MQIACF_PS_STATUS_TYPE] == F.MQPSST_LOCAL
    others = len(qm.mqsc("DISPLAY SUB(*)").stdout.split("AMQ8096I")) - 1
    assert st[pymqi.CMQC.MQIA_SUB_COUNT] == others >= 1
    assert st[pymqi.CMQC.MQIA_TOPIC_NODE_COUNT] >= 3          # '', 'status', 'status/a', 'status/a/b', ...
    # No hierarchy: a parent has nothing to say; a bad status type is MQ's parameter error.
    assert pcf.MQCMD_INQUIRE_PUBSUB_STATUS({F.MQIACF_PS_STATUS_TYPE: F.MQPSST_PARENT}) == []
    with pytest.raises(pymqi.MQMIError) as e:
        pcf.MQCMD_INQUIRE_PUBSUB_STATUS({F.MQIACF_PS_STATUS_TYPE: 99})
    assert e.value.reason == F.MQRCCF_PARM_VALUE_ERROR
    qm.mqsc("ALTER QMGR PSMODE(COMPAT)\n", check=True)
    try:
        out = qm.mqsc("DISPLAY PUBSUB TYPE(LOCAL)").stdout
        assert "AMQ8723I" in out and "STATUS(COMPAT)" in out and "QMNAME(QMPS)" in out
    finally:
        qm.mqsc("ALTER QMGR PSMODE(ENABLED)\n", check=True)
    # Clear Topic String (and CLEAR TOPICSTR): the retained publication goes.
    publish(c, "status/kept", b"retained", pymqi.MD(), pymqi.PMO(Options=pymqi.CMQC.MQPMO_RETAIN))
    assert "RETAINED(YES)" in qm.mqsc("DISPLAY TPSTATUS('status/kept') RETAINED").stdout
    with pytest.raises(pymqi.MQMIError) as e:
        pcf.MQCMD_CLEAR_TOPIC_STRING({pymqi.CMQC.MQCA_TOPIC_STRING: b"status/#", F.MQIACF_CLEAR_TYPE: 99})
    assert e.value.reason == F.MQRCCF_PARM_VALUE_ERROR
    assert "RETAINED(YES)" in qm.mqsc("DISPLAY TPSTATUS('status/kept') RETAINED").stdout
    pcf.MQCMD_CLEAR_TOPIC_STRING({pymqi.CMQC.MQCA_TOPIC_STRING: b"status/#", F.MQIACF_CLEAR_TYPE: F.MQCLRT_RETAINED})
    assert "RETAINED(YES)" not in qm.mqsc("DISPLAY TPSTATUS('status/kept') RETAINED").stdout
    publish(c, "status/kept", b"again", pymqi.MD(), pymqi.PMO(Options=pymqi.CMQC.MQPMO_RETAIN))
    assert "removed" in qm.mqsc("CLEAR TOPICSTR('status/kept') CLRTYPE(RETAINED)\n", check=True).stdout
    assert "RETAINED(YES)" not in qm.mqsc("DISPLAY TPSTATUS('status/kept') RETAINED").stdout
    sub.close(sub_close_options=pymqi.CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    pcf.disconnect()
    c.disconnect()


def test_persistent_publication_reaches_every_durable_subscription_once_across_kill_9(tmp_path):
    with Harness(str(tmp_path / "data")) as h:
        qm = h.add("QMKILL")
        c = qm.client()
        for name in ("D1", "D2", "D3"):
            pymqi.Subscription(c, sub_desc=desc(name, "ledger/#", pymqi.CMQC.MQSO_CREATE | pymqi.CMQC.MQSO_DURABLE
                                                | pymqi.CMQC.MQSO_MANAGED)).close()
        entries = [(b"entry %d " % i) * 40 for i in range(20)]        # long enough to be stored once
        for i in range(20):
            publish(c, f"ledger/{i}", entries[i], pymqi.MD(Persistence=pymqi.CMQC.MQPER_PERSISTENT))
        qm.kill9()
        # Each publication's three copies name one stored body (the store opened as strmqm opens
        # it: the recovery log's frames applied to the tables first).
        store = Store(os.path.join(str(tmp_path / "data"), "qmgrs", "QMKILL", "qmgr.db"))
        db = store.db
        assert db.execute("SELECT count(*), count(DISTINCT bref) FROM messages WHERE bref IS NOT NULL").fetchone() \
            == (60, 20)
        assert db.execute("SELECT count(*) FROM bodies").fetchone() == (20,)
        store.close()
        db = sqlite3.connect(store.path)
        qm.start()
        c = qm.client()
        for name in ("D1", "D2", "D3"):
            sub = pymqi.Subscription(c, sub_desc=desc(name, "", pymqi.CMQC.MQSO_RESUME | pymqi.CMQC.MQSO_MANAGED))
            got = []
            while True:
                try:
                    got.append(sub.get(None, pymqi.MD(), pymqi.GMO(Options=pymqi.CMQC.MQGMO_NO_WAIT)))
                except pymqi.MQMIError as e:
                    assert e.reason == pymqi.CMQC.MQRC_NO_MSG_AVAILABLE
                    break
            assert got == entries, name
            sub.close(sub_close_options=pymqi.CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
        c.disconnect()
        qm.stop()
        assert db.execute("SELECT count(*) FROM bodies").fetchone() == (0,)      # gone with the last copy
        db.close()


def test_resume_without_a_queue_and_alter_to_another_queue(qm):
    """A subscription that names its queue, resumed with pymqi and no sub_queue, reads from that
    queue (MQ opens it for the application) and gets the MQSD back filled in; MQSO_CREATE +
    MQSO_ALTER with another queue moves its next publications there."""
    qm.mqsc("DEFINE QLOCAL(MOVE.Q1)\nDEFINE QLOCAL(MOVE.Q2)\n"
            "DEFINE SUB(MOVE.SUB) TOPICSTR('move/feed') DEST(MOVE.Q1) USERDATA('desk 4') PUBPRTY(6)", check=True)
    c = qm.client()
    sd = pymqi.SD(Options=pymqi.CMQC.MQSO_RESUME | pymqi.CMQC.MQSO_DURABLE)
    sd.set_vs("SubName", "MOVE.SUB")
    sub = pymqi.Subscription(c, sub_desc=sd)
    # The MQSD comes back describing the subscription (MQSO_RESUME's outputs).
    assert (sd.get_vs("ObjectString"), sd.get_vs("SubUserData"), sd.PubPriority) == (b"move/feed", b"desk 4", 6)
    publish(c, "move/feed", b"to the first")
    assert sub.get(None, pymqi.MD(), get_opts()) == b"to the first"
    sub.close(close_sub_queue=True)
    q2 = pymqi.Queue(c, "MOVE.Q2", pymqi.CMQC.MQOO_INPUT_AS_Q_DEF)
    options = pymqi.CMQC.MQSO_CREATE | pymqi.CMQC.MQSO_ALTER | pymqi.CMQC.MQSO_DURABLE
    sub = pymqi.Subscription(c)
    sub.sub(sub_desc=desc("MOVE.SUB", "move/feed", options), sub_queue=q2)
    publish(c, "move/feed", b"to the second")
    assert sub.get(None, pymqi.MD(), get_opts()) == b"to the second"
    sub.close(sub_close_options=pymqi.CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    assert pymqi.Queue(c, "MOVE.Q1", pymqi.CMQC.MQOO_INQUIRE).inquire(pymqi.CMQC.MQIA_CURRENT_Q_DEPTH) == 0
    c.disconnect()
