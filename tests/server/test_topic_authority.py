"""A topic opened, published to with MQPUT1 or subscribed to for an alternate user: the checks are
the alternate user's on the topic's closest administrative node, exactly as for a queue (altusr on
the queue manager first, then pub, sub or resume), with the Not Authorized event naming the user
who was refused. Through a real queue manager and client connections."""
from __future__ import annotations

from mqlite import pymqi
from mqlite.cmq import CMQC
from mqlite.cmq import CMQCFC as F
from mqlite.testing import run_mqlite
from tests.server.security_rig import DEV_MQSC, _connect, _log, _reason

SPORT = "DEFINE TOPIC(SPORT) TOPICSTR('sport') REPLACE\n"


def _topic_od(topic: str, alt: str) -> pymqi.OD:
    od = pymqi.OD(Version=CMQC.MQOD_VERSION_4, ObjectType=CMQC.MQOT_TOPIC, AlternateUserId=alt.encode())
    od.set_vs("ObjectString", topic)
    return od


def _sd(topic: str, alt: str, name: str = "", options: int = 0) -> pymqi.SD:
    sd = pymqi.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_ALTERNATE_USER_AUTHORITY
                  | (CMQC.MQSO_DURABLE if name else 0) | options, AlternateUserId=alt.encode())
    sd.set_vs("ObjectString", topic)
    if name:
        sd.set_vs("SubName", name)
    return sd


def _events(qm) -> list:
    from tests.helpers import admin_messages
    return admin_messages(qm, "SYSTEM.ADMIN.QMGR.EVENT")


def test_a_topic_is_checked_for_the_alternate_user_at_every_call(secured):
    secured.mqsc(DEV_MQSC + SPORT, check=True)
    admin = secured.bindings()
    sd = pymqi.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_DURABLE)
    sd.set_vs("ObjectString", "sport/#")
    sd.set_vs("SubName", "WATCH")
    watcher = pymqi.Subscription(admin, sub_desc=sd)
    app = _connect(secured, "DEV.APP.SVRCONN", "app", "passw0rd")
    pub = CMQC.MQOO_OUTPUT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY
    alt_put1 = pymqi.PMO(Options=CMQC.MQPMO_ALTERNATE_USER_AUTHORITY | CMQC.MQPMO_NO_SYNCPOINT)
    # Without altusr on the queue manager nothing is opened for anyone else.
    assert _reason(lambda: pymqi.Topic(app, topic_string="sport/football").open(
        open_opts=pub, topic_desc=_topic_od("sport/football", "admin"))) == CMQC.MQRC_NOT_AUTHORIZED
    assert "unauthorized: altusr" in _log(secured)
    run_mqlite("setmqaut", "-m", secured.name, "-t", "qmgr", "-p", "app", "+altusr")
    secured.mqsc("ALTER QMGR AUTHOREV(ENABLED)\n", check=True)
    _events(secured)
    try:
        # app has pub under dev/ (DEV.BASE.TOPIC) and nothing on SPORT: refused for app as the
        # alternate user at MQOPEN, MQPUT1 and MQSUB, as the same calls are without it.
        assert _reason(lambda: app.put1(_topic_od("sport/football", "app"), b"goal", pymqi.MD(), alt_put1)) \
            == CMQC.MQRC_NOT_AUTHORIZED
        t = pymqi.Topic(app)
        assert _reason(lambda: t.open(open_opts=pub, topic_desc=_topic_od("sport/football", "app"))) \
            == CMQC.MQRC_NOT_AUTHORIZED
        assert _reason(lambda: pymqi.Subscription(app, sub_desc=_sd("sport/football", "app"))) \
            == CMQC.MQRC_NOT_AUTHORIZED
        assert "Entity 'app' has insufficient authority to access object SPORT.\nEXPLANATION:\nObject type topic." in _log(secured)
        got = _events(secured)
        assert [dict((p, v) for _t, p, v in params)[F.MQIACF_REASON_QUALIFIER] for _c, params in got] \
            == [F.MQRQ_OPEN_NOT_AUTHORIZED, F.MQRQ_OPEN_NOT_AUTHORIZED, F.MQRQ_SUB_NOT_AUTHORIZED]
        for _c, params in got:
            p = dict((k, v) for _t, k, v in params)
            assert p[F.MQCACF_USER_IDENTIFIER] == "app"
            assert [n.strip() for n in p[CMQC.MQCA_ADMIN_TOPIC_NAME]] == ["SPORT"]
        # A stranger as the alternate user: refused on dev/ too, where app itself may publish.
        app.put1(_topic_od("dev/", ""), b"app's own", pymqi.MD(), pymqi.PMO())
        assert _reason(lambda: app.put1(_topic_od("dev/", "stranger"), b"x", pymqi.MD(), alt_put1)) \
            == CMQC.MQRC_NOT_AUTHORIZED
        assert "Entity 'stranger' has insufficient authority to access object DEV.BASE.TOPIC.\nEXPLANATION:\nObject type topic." in _log(secured)
        # The alternate user's authority is what counts: admin (mqm) may, so app may for admin.
        app.put1(_topic_od("sport/football", "admin"), b"for admin", pymqi.MD(), alt_put1)
        t = pymqi.Topic(app)
        t.open(open_opts=pub, topic_desc=_topic_od("sport/tennis", "admin"))
        t.pub(b"opened for admin")
        t.close()
        s = pymqi.Subscription(app, sub_desc=_sd("sport/rugby", "admin"))
        s.close()
        # A context option on a topic needs its own authority on the topic too.
        assert _reason(lambda: pymqi.Topic(app).open(
            open_opts=CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT,
            topic_desc=_topic_od("dev/", ""))) == CMQC.MQRC_NOT_AUTHORIZED
        assert "unauthorized: setall" in _log(secured)
    finally:
        secured.mqsc("ALTER QMGR AUTHOREV(DISABLED)\n", check=True)
        app.disconnect()
    # The watcher has the two publications made for admin, none of the refused ones.
    bodies = []
    gmo = pymqi.GMO(Options=CMQC.MQGMO_NO_WAIT)
    while True:
        try:
            bodies.append(watcher.get(None, pymqi.MD(), gmo))
        except pymqi.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            break
    assert sorted(bodies) == [b"for admin", b"opened for admin"]
    watcher.close(sub_close_options=CMQC.MQCO_REMOVE_SUB)
    admin.disconnect()
