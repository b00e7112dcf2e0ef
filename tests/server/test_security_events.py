"""Security's instrumentation events through a real queue manager and client connections: Not
Authorized (AUTHOREV, types 1 to 6) and Channel Blocked, each written as MQ writes it, parameter by
parameter; none while the switch is off."""
from __future__ import annotations

from mqlite import pymqi
from mqlite.cmq import CMQC
from mqlite.testing import run_mqlite
from tests.server.security_rig import DEV_MQSC, _connect, _reason, _subscribe


def _events(qm) -> list:
    """The queue manager events waiting on SYSTEM.ADMIN.QMGR.EVENT, read by hand."""
    from tests.helpers import admin_messages
    return admin_messages(qm, "SYSTEM.ADMIN.QMGR.EVENT")


def test_authority_events_say_who_was_refused_what(secured):
    """AUTHOREV: Not Authorized types 1 (connect; MQCSP password), 2 (MQOPEN, MQPUT1), 4 (a
    command) and 5 (MQSUB) as MQ writes them, each parameter in MQ's order; none while DISABLED."""
    from mqlite.cmq import CMQCFC as F
    secured.mqsc(DEV_MQSC + "DEFINE QLOCAL(SECRET.Q) REPLACE\n"
                 "SET AUTHREC PROFILE('SYSTEM.ADMIN.COMMAND.QUEUE') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(PUT,INQ)\n"
                 "SET AUTHREC PROFILE('SYSTEM.DEFAULT.MODEL.QUEUE') PRINCIPAL('app') OBJTYPE(QUEUE) "
                 "AUTHADD(GET,INQ,DSP)\n", check=True)
    r = run_mqlite("setmqusr", "-m", secured.name, "-u", "noconn", "--password-stdin", "-g", "nogroup",
                   stdin="passw0rd\n")
    assert r.returncode == 0, r.stdout + r.stderr
    _events(secured)
    app = _connect(secured, "DEV.APP.SVRCONN", "app", "passw0rd")
    assert _reason(lambda: pymqi.Queue(app, "SECRET.Q", CMQC.MQOO_OUTPUT)) == CMQC.MQRC_NOT_AUTHORIZED
    assert _events(secured) == []                      # AUTHOREV(DISABLED), MQ's default
    secured.mqsc("ALTER QMGR AUTHOREV(ENABLED)\n", check=True)
    try:
        assert _reason(lambda: _connect(secured, "DEV.APP.SVRCONN", "app", "wrong")) == CMQC.MQRC_NOT_AUTHORIZED
        assert _reason(lambda: _connect(secured, "DEV.APP.SVRCONN", "noconn", "passw0rd")) \
            == CMQC.MQRC_NOT_AUTHORIZED
        assert _reason(lambda: pymqi.Queue(app, "SECRET.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE)) \
            == CMQC.MQRC_NOT_AUTHORIZED
        assert _reason(lambda: app.put1("SECRET.Q", b"x")) == CMQC.MQRC_NOT_AUTHORIZED
        assert _reason(lambda: _subscribe(app, "secret/stuff")) == CMQC.MQRC_NOT_AUTHORIZED
        pcf = pymqi.PCFExecute(app)
        assert _reason(lambda: pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: b"SECRET.Q"})) == CMQC.MQRC_NOT_AUTHORIZED
        pcf.disconnect()
        got = _events(secured)
    finally:
        secured.mqsc("ALTER QMGR AUTHOREV(DISABLED)\n", check=True)
        app.disconnect()
    assert [(cfh[0], cfh[3], cfh[7]) for cfh, _p in got] == [(F.MQCFT_EVENT, F.MQCMD_Q_MGR_EVENT,
                                                               CMQC.MQRC_NOT_AUTHORIZED)] * 6
    csp, conn, opened, put1, sub, command = [[(p, v) for _t, p, v in params] for _c, params in got]
    client = [(F.MQCACH_CONNECTION_NAME, "127.0.0.1"), (F.MQCACH_CHANNEL_NAME, "DEV.APP.SVRCONN")]
    assert [p for p, _v in csp] == [CMQC.MQCA_Q_MGR_NAME, F.MQIACF_REASON_QUALIFIER, F.MQCACF_USER_IDENTIFIER,
                                    CMQC.MQIA_APPL_TYPE, F.MQCACF_APPL_NAME, F.MQCACH_CONNECTION_NAME,
                                    F.MQCACH_CHANNEL_NAME, F.MQCACF_CSP_USER_IDENTIFIER]
    assert dict(csp)[F.MQIACF_REASON_QUALIFIER] == F.MQRQ_CSP_NOT_AUTHORIZED
    assert dict(csp)[F.MQCACF_CSP_USER_IDENTIFIER] == "app" and csp[-3:-1] == client
    assert conn[:3] == [(CMQC.MQCA_Q_MGR_NAME, "QMSEC"), (F.MQIACF_REASON_QUALIFIER, F.MQRQ_CONN_NOT_AUTHORIZED),
                        (F.MQCACF_USER_IDENTIFIER, "noconn")] and conn[-2:] == client
    assert [p for p, _v in opened] == [CMQC.MQCA_Q_MGR_NAME, F.MQIACF_REASON_QUALIFIER, F.MQIACF_OPEN_OPTIONS,
                                       F.MQCACF_USER_IDENTIFIER, CMQC.MQIA_APPL_TYPE, F.MQCACF_APPL_NAME,
                                       CMQC.MQCA_Q_NAME, F.MQCACH_CONNECTION_NAME, F.MQCACH_CHANNEL_NAME]
    assert dict(opened)[F.MQIACF_REASON_QUALIFIER] == F.MQRQ_OPEN_NOT_AUTHORIZED
    assert dict(opened)[F.MQIACF_OPEN_OPTIONS] == CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE
    assert dict(opened)[F.MQCACF_USER_IDENTIFIER] == "app" and dict(opened)[CMQC.MQCA_Q_NAME] == "SECRET.Q"
    assert dict(put1)[F.MQIACF_OPEN_OPTIONS] & CMQC.MQOO_OUTPUT and dict(put1)[CMQC.MQCA_Q_NAME] == "SECRET.Q"
    assert [p for p, _v in sub] == [CMQC.MQCA_Q_MGR_NAME, F.MQIACF_REASON_QUALIFIER, F.MQIACF_SUB_OPTIONS,
                                    F.MQCACF_USER_IDENTIFIER, CMQC.MQIA_APPL_TYPE, F.MQCACF_APPL_NAME,
                                    CMQC.MQCA_TOPIC_STRING, CMQC.MQCA_ADMIN_TOPIC_NAME, F.MQCACH_CONNECTION_NAME,
                                    F.MQCACH_CHANNEL_NAME]
    assert dict(sub)[F.MQIACF_REASON_QUALIFIER] == F.MQRQ_SUB_NOT_AUTHORIZED
    assert dict(sub)[CMQC.MQCA_TOPIC_STRING] == "secret/stuff"
    assert dict(sub)[CMQC.MQCA_ADMIN_TOPIC_NAME] == ["SYSTEM.BASE.TOPIC"]
    assert command == [(CMQC.MQCA_Q_MGR_NAME, "QMSEC"), (F.MQIACF_REASON_QUALIFIER, F.MQRQ_CMD_NOT_AUTHORIZED),
                       (F.MQIACF_COMMAND, F.MQCMD_DELETE_Q), (F.MQCACF_USER_IDENTIFIER, "app")]


def test_close_and_subscription_destination_refusals_raise_their_events(secured):
    """Not Authorized type 3: MQCLOSE deleting a permanent dynamic queue through a handle that did
    not create it, without ``dlt`` (2035, the queue still there; with ``dlt`` it goes); type 6:
    MQSUB to a queue the application provides without ``put`` on it (2035, no subscription; with
    ``put`` it is made). Each event's parameters in MQ's order."""
    from mqlite.cmq import CMQCFC as F
    secured.mqsc(DEV_MQSC + "DEFINE QMODEL(PERM.MODEL) DEFTYPE(PERMDYN) REPLACE\n"
                 "DEFINE QLOCAL(APP.DEST) REPLACE\n"
                 "SET AUTHREC PROFILE('APP.DEST') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(GET,BROWSE,INQ)\n"
                 "SET AUTHREC PROFILE('PERM.Q1') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(INQ)\n"
                 "ALTER QMGR AUTHOREV(ENABLED)\n", check=True)
    admin = _connect(secured, "DEV.ADMIN.SVRCONN", "admin", "passw0rd")
    app = _connect(secured, "DEV.APP.SVRCONN", "app", "passw0rd")
    try:
        made = pymqi.Queue(admin, pymqi.OD(ObjectName=b"PERM.MODEL", DynamicQName=b"PERM.Q1"), CMQC.MQOO_INPUT_SHARED)
        made.close()
        _events(secured)
        q = pymqi.Queue(app, "PERM.Q1", CMQC.MQOO_INQUIRE)
        assert _reason(lambda: q.close(CMQC.MQCO_DELETE)) == CMQC.MQRC_NOT_AUTHORIZED
        assert "QUEUE(PERM.Q1)" in secured.mqsc("DISPLAY QLOCAL(PERM.Q1)\n").stdout
        dest = pymqi.Queue(app, "APP.DEST", CMQC.MQOO_INPUT_SHARED)
        sd = pymqi.SD(Options=CMQC.MQSO_CREATE)
        sd.set_vs("ObjectString", "dev/")                # DEV.BASE.TOPIC's: app may subscribe
        sub = pymqi.Subscription(app)
        assert _reason(lambda: sub.sub(sub_desc=sd, sub_queue=dest)) == CMQC.MQRC_NOT_AUTHORIZED
        got = _events(secured)
        assert "AMQ8098E" in secured.mqsc("DISPLAY SUB(*) WHERE(DEST EQ 'APP.DEST')\n").stdout   # none made
        secured.mqsc("SET AUTHREC PROFILE('PERM.Q1') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(DLT)\n"
                     "SET AUTHREC PROFILE('APP.DEST') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(PUT)\n", check=True)
        q.close(CMQC.MQCO_DELETE)
        assert "AMQ8147E" in secured.mqsc("DISPLAY QLOCAL(PERM.Q1)\n").stdout
        sub.sub(sub_desc=sd, sub_queue=dest)
        sub.close()
        assert _events(secured) == []
    finally:
        secured.mqsc("ALTER QMGR AUTHOREV(DISABLED)\n", check=True)
        app.disconnect()
        admin.disconnect()
    assert [(cfh[3], cfh[7]) for cfh, _p in got] == [(F.MQCMD_Q_MGR_EVENT, CMQC.MQRC_NOT_AUTHORIZED)] * 2
    close, subdest = [[(p, v) for _t, p, v in params] for _c, params in got]
    client = [(F.MQCACH_CONNECTION_NAME, "127.0.0.1"), (F.MQCACH_CHANNEL_NAME, "DEV.APP.SVRCONN")]
    assert close == [(CMQC.MQCA_Q_MGR_NAME, "QMSEC"), (F.MQIACF_REASON_QUALIFIER, F.MQRQ_CLOSE_NOT_AUTHORIZED),
                     (F.MQCACF_USER_IDENTIFIER, "app"), (CMQC.MQIA_APPL_TYPE, CMQC.MQAT_UNIX),
                     (F.MQCACF_APPL_NAME, close[4][1]), (CMQC.MQCA_Q_NAME, "PERM.Q1"), *client]
    assert [p for p, _v in subdest] == [CMQC.MQCA_Q_MGR_NAME, F.MQIACF_REASON_QUALIFIER, F.MQIACF_SUB_OPTIONS,
                                        F.MQCACF_USER_IDENTIFIER, CMQC.MQIA_APPL_TYPE, F.MQCACF_APPL_NAME,
                                        CMQC.MQCA_TOPIC_STRING, CMQC.MQCA_Q_NAME, F.MQIACF_OPEN_OPTIONS,
                                        F.MQCACH_CONNECTION_NAME, F.MQCACH_CHANNEL_NAME]
    v = dict(subdest)
    assert v[F.MQIACF_REASON_QUALIFIER] == F.MQRQ_SUB_DEST_NOT_AUTHORIZED and v[CMQC.MQCA_TOPIC_STRING] == "dev/"
    assert v[CMQC.MQCA_Q_NAME] == "APP.DEST" and v[F.MQIACF_OPEN_OPTIONS] == CMQC.MQOO_OUTPUT
    assert v[F.MQIACF_SUB_OPTIONS] == CMQC.MQSO_CREATE


def test_channel_blocked_events(secured):
    """CHLEV: Channel Blocked with MQ's ReasonQualifier for a channel mapped to no access, a user
    BLOCKUSER lists (with the user) and an address BLOCKADDR lists (no channel name: it is refused
    before it says one)."""
    from mqlite.cmq import CMQCFC as F
    from tests.helpers import admin_messages
    secured.mqsc(DEV_MQSC, check=True)

    def blocked():
        return [[(p, v) for _t, p, v in params] for cfh, params in admin_messages(secured, "SYSTEM.ADMIN.CHANNEL.EVENT")
                if cfh[7] == CMQC.MQRC_CHANNEL_BLOCKED]
    secured.mqsc("ALTER QMGR CHLEV(ENABLED)\n", check=True)
    try:
        blocked()
        assert _reason(lambda: _connect(secured, "SYSTEM.DEF.SVRCONN", "app", "passw0rd")) == CMQC.MQRC_NOT_AUTHORIZED
        secured.mqsc("SET CHLAUTH('DEV.APP.SVRCONN') TYPE(BLOCKUSER) USERLIST('app') ACTION(REPLACE)\n", check=True)
        try:
            assert _reason(lambda: _connect(secured, "DEV.APP.SVRCONN", "app", "passw0rd")) \
                == CMQC.MQRC_NOT_AUTHORIZED
        finally:
            secured.mqsc("SET CHLAUTH('DEV.APP.SVRCONN') TYPE(BLOCKUSER) ACTION(REMOVE)\n", check=True)
        secured.mqsc("SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('127.0.0.1') ACTION(REPLACE)\n", check=True)
        try:
            assert _reason(lambda: _connect(secured, "DEV.APP.SVRCONN", "app", "passw0rd")) \
                == CMQC.MQRC_NOT_AUTHORIZED
        finally:
            secured.mqsc("SET CHLAUTH('*') TYPE(BLOCKADDR) ACTION(REMOVE)\n", check=True)
        got = blocked()
    finally:
        secured.mqsc("ALTER QMGR CHLEV(DISABLED)\n", check=True)
    _connect(secured, "DEV.APP.SVRCONN", "app", "passw0rd").disconnect()        # the rules are gone again
    noaccess, user, address = got
    assert noaccess == [(CMQC.MQCA_Q_MGR_NAME, "QMSEC"), (F.MQIACF_REASON_QUALIFIER, F.MQRQ_CHANNEL_BLOCKED_NOACCESS),
                        (F.MQCACH_CHANNEL_NAME, "SYSTEM.DEF.SVRCONN"), (F.MQCACH_CONNECTION_NAME, "127.0.0.1")]
    assert user == [(CMQC.MQCA_Q_MGR_NAME, "QMSEC"), (F.MQIACF_REASON_QUALIFIER, F.MQRQ_CHANNEL_BLOCKED_USERID),
                    (F.MQCACH_CHANNEL_NAME, "DEV.APP.SVRCONN"), (F.MQCACF_USER_IDENTIFIER, "app"),
                    (F.MQCACH_CONNECTION_NAME, "127.0.0.1")]
    assert address == [(CMQC.MQCA_Q_MGR_NAME, "QMSEC"), (F.MQIACF_REASON_QUALIFIER, F.MQRQ_CHANNEL_BLOCKED_ADDRESS),
                       (F.MQCACH_CONNECTION_NAME, "127.0.0.1")]
