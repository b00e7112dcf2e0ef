"""Security through real queue-manager processes and client connections: MQ's defaults on a new
queue manager, IBM's developer configuration, CONNAUTH, CHLAUTH and object authority, each with the
reason code and error-log message MQ gives."""
from __future__ import annotations

import time

import pytest

from mqlite import pymqi
from mqlite.cmq import CMQC
from mqlite.testing import Harness, run_mqlite
from tests.server.security_rig import DEV_MQSC, _connect, _log, _reason, _subscribe


def test_a_new_queue_manager_is_secured_as_ibm_mqs(secured):
    out = secured.mqsc("DISPLAY CHLAUTH(*)\nDISPLAY QMGR CHLAUTH CONNAUTH\n"
                       "DISPLAY AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) CHCKCLNT CHCKLOCL ADOPTCTX FAILDLAY\n").stdout
    for text in ("CHLAUTH(SYSTEM.*)", "USERSRC(NOACCESS)", "CHLAUTH(SYSTEM.ADMIN.SVRCONN)", "USERLIST(*MQADMIN)",
                 "CHLAUTH(ENABLED)", "CONNAUTH(SYSTEM.DEFAULT.AUTHINFO.IDPWOS)", "CHCKCLNT(REQDADM)",
                 "CHCKLOCL(OPTIONAL)", "ADOPTCTX(YES)", "FAILDLAY(1)"):
        assert text in out, text
    # The tests run as the user who created it: an administrator, blocked over client channels.
    assert _reason(lambda: _connect(secured, "APP.SVRCONN")) == CMQC.MQRC_NOT_AUTHORIZED
    assert "AMQ9776E" in _log(secured)
    # SYSTEM.* channels: nobody.
    assert _reason(lambda: _connect(secured, "SYSTEM.DEF.SVRCONN", "app", "passw0rd")) == CMQC.MQRC_NOT_AUTHORIZED
    assert "AMQ9777E" in _log(secured)
    # The MQCSP user is the one the client flows: a non-administrator with no authority records,
    # so no connect authority.
    assert _reason(lambda: _connect(secured, "APP.SVRCONN", "app", "passw0rd")) == CMQC.MQRC_NOT_AUTHORIZED
    assert "Entity 'app' has insufficient authority to access object QMSEC.\nEXPLANATION:\nObject type qmgr." in _log(secured)
    # An ALTER of the AUTHINFO in force takes effect only with REFRESH SECURITY TYPE(CONNAUTH).
    secured.mqsc("ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) AUTHTYPE(IDPWOS) CHCKCLNT(REQUIRED)\n", check=True)
    secured.mqsc("SET CHLAUTH('APP.SVRCONN') TYPE(BLOCKUSER) USERLIST('nobody')\n", check=True)
    # (an administrator, let in by CHLAUTH now, without a password: REQDADM still refuses it)
    assert _reason(lambda: _connect(secured, "APP.SVRCONN")) == CMQC.MQRC_NOT_AUTHORIZED
    assert "CHCKCLNT(REQDADM)" in _log(secured) and "CHCKCLNT(REQUIRED)" not in _log(secured)
    secured.mqsc("REFRESH SECURITY TYPE(CONNAUTH)\n", check=True)
    assert _reason(lambda: _connect(secured, "APP.SVRCONN")) == CMQC.MQRC_NOT_AUTHORIZED
    assert "CHCKCLNT(REQUIRED)" in _log(secured)
    secured.mqsc("SET CHLAUTH('APP.SVRCONN') TYPE(BLOCKUSER) ACTION(REMOVEALL)\n"
                 "ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) AUTHTYPE(IDPWOS) CHCKCLNT(REQDADM)\n"
                 "REFRESH SECURITY TYPE(CONNAUTH)\n", check=True)
    # Over bindings, the OS user (an administrator) is let in.
    secured.bindings().disconnect()


def test_developer_configuration_applies_and_does_what_it_says(secured):
    r = secured.mqsc(DEV_MQSC)
    assert r.returncode == 0, r.stdout               # every command processed: runmqsc's exit 0
    assert "TOPICSTR(dev/)" in secured.mqsc("DISPLAY TOPIC(DEV.BASE.TOPIC) TOPICSTR\n").stdout
    qm = _connect(secured, "DEV.APP.SVRCONN", "app", "passw0rd")
    q = pymqi.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_BROWSE)
    q.put(b"hello")
    md = pymqi.MD()
    assert q.get(None, md) == b"hello"
    assert md.UserIdentifier.rstrip() == b"app"          # the adopted user is the context
    q.close()
    # Everything else is refused with 2035 and nothing changes.
    for name, opts in (("SYSTEM.ADMIN.COMMAND.QUEUE", CMQC.MQOO_OUTPUT), ("SYSTEM.DEAD.LETTER.QUEUE", CMQC.MQOO_INPUT_SHARED),
                       ("DEV.QUEUE.1", CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT),
                       ("DEV.QUEUE.1", CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_IDENTITY_CONTEXT),
                       ("DEV.QUEUE.1", CMQC.MQOO_SET)):
        assert _reason(lambda n=name, o=opts: pymqi.Queue(qm, n, o)) == CMQC.MQRC_NOT_AUTHORIZED, name
    assert _reason(lambda: qm.put1("DEV.QUEUE.1", b"x", pymqi.MD(),
                                   pymqi.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT))) == CMQC.MQRC_NOT_AUTHORIZED
    log = _log(secured)
    assert "Entity 'app' has insufficient authority to access object SYSTEM.ADMIN.COMMAND.QUEUE" in log
    assert "unauthorized: setall" in log
    qm.disconnect()
    # The admin maps to mqm on the admin channel (the more specific BLOCKUSER lets it in).
    adm = _connect(secured, "DEV.ADMIN.SVRCONN", "admin", "passw0rd")
    pymqi.Queue(adm, "SYSTEM.DEAD.LETTER.QUEUE", CMQC.MQOO_INQUIRE).close()
    adm.disconnect()
    # The app channel's CHCKCLNT(REQUIRED): no password, no entry.
    assert _reason(lambda: _connect(secured, "DEV.APP.SVRCONN")) == CMQC.MQRC_NOT_AUTHORIZED
    assert "AMQ5540E" in _log(secured) and "CHCKCLNT(REQUIRED)" in _log(secured)
    # Every other channel meets the back-stop rule.
    assert _reason(lambda: _connect(secured, "APP.SVRCONN", "app", "passw0rd")) == CMQC.MQRC_NOT_AUTHORIZED


def test_topic_authority_under_the_developer_configuration(secured):
    assert secured.mqsc(DEV_MQSC).returncode == 0
    qm = _connect(secured, "DEV.APP.SVRCONN", "app", "passw0rd")
    # IBM's samples publish on DEV.BASE.TOPIC's own topic string.
    sub = _subscribe(qm, "dev/", "APP.NEWS")
    topic = pymqi.Topic(qm, topic_string="dev/")
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    topic.pub(b"headline")
    md = pymqi.MD()
    assert sub.get(None, md) == b"headline"
    assert md.UserIdentifier.rstrip() == b"app"          # the subscription's user: MQ's publication context
    # Elsewhere the topic resolves to SYSTEM.BASE.TOPIC, where app has nothing.
    other = pymqi.Topic(qm, topic_string="other/news")
    assert _reason(lambda: other.open(open_opts=CMQC.MQOO_OUTPUT)) == CMQC.MQRC_NOT_AUTHORIZED
    assert _reason(lambda: _subscribe(qm, "other/#")) == CMQC.MQRC_NOT_AUTHORIZED
    # A provided queue with MQSO_SET_IDENTITY_CONTEXT needs setid on it, at MQSUB and at MQSO_ALTER.
    q2 = pymqi.Queue(qm, "DEV.QUEUE.2", CMQC.MQOO_INPUT_AS_Q_DEF)
    setid = CMQC.MQSO_SET_IDENTITY_CONTEXT

    def provided(options: int) -> pymqi.Subscription:
        sd = pymqi.SD(Options=options)
        sd.set_vs("ObjectString", "dev/")
        sd.set_vs("SubName", "APP.PROVIDED")
        return pymqi.Subscription(qm).sub(sub_desc=sd, sub_queue=q2)

    assert _reason(lambda: provided(CMQC.MQSO_CREATE | CMQC.MQSO_DURABLE | setid)) == CMQC.MQRC_NOT_AUTHORIZED
    provided(CMQC.MQSO_CREATE | CMQC.MQSO_DURABLE).close(sub_close_options=CMQC.MQCO_KEEP_SUB)
    assert _reason(lambda: provided(CMQC.MQSO_ALTER | CMQC.MQSO_DURABLE | setid)) == CMQC.MQRC_NOT_AUTHORIZED
    provided(CMQC.MQSO_ALTER | CMQC.MQSO_DURABLE).close(sub_close_options=CMQC.MQCO_REMOVE_SUB)
    q2.close()
    assert "insufficient authority to access object SYSTEM.BASE.TOPIC.\nEXPLANATION:\nObject type topic." in _log(secured)
    sub.close(sub_close_options=CMQC.MQCO_KEEP_SUB)
    # resume without sub resumes what app owns, but does not alter it; without either, 2035.
    secured.mqsc("SET AUTHREC PROFILE('DEV.**') PRINCIPAL('app') OBJTYPE(TOPIC) AUTHRMV(SUB) AUTHADD(RESUME)\n")
    try:
        resumed = _subscribe(qm, "", "APP.NEWS", CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE)
        resumed.close(sub_close_options=CMQC.MQCO_KEEP_SUB)
        assert _reason(lambda: _subscribe(qm, "", "APP.NEWS", CMQC.MQSO_ALTER | CMQC.MQSO_DURABLE)) \
            == CMQC.MQRC_NOT_AUTHORIZED
        secured.mqsc("SET AUTHREC PROFILE('DEV.**') PRINCIPAL('app') OBJTYPE(TOPIC) AUTHRMV(RESUME)\n")
        assert _reason(lambda: _subscribe(qm, "", "APP.NEWS", CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE)) \
            == CMQC.MQRC_NOT_AUTHORIZED
    finally:
        secured.mqsc("SET AUTHREC PROFILE('DEV.**') PRINCIPAL('app') OBJTYPE(TOPIC) AUTHADD(SUB) AUTHRMV(RESUME)\n")
    # Another user cannot take over app's subscription (MQSO_FIXED_USERID, MQSUB's default).
    adm = _connect(secured, "DEV.ADMIN.SVRCONN", "admin", "passw0rd")
    assert _reason(lambda: _subscribe(adm, "", "APP.NEWS", CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE)) \
        == CMQC.MQRC_IDENTITY_MISMATCH
    adm.disconnect()
    gone = _subscribe(qm, "", "APP.NEWS", CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE)
    gone.close(sub_close_options=CMQC.MQCO_REMOVE_SUB)
    topic.close()
    qm.disconnect()


def test_bad_credentials_look_alike_and_wait_faildlay(secured):
    secured.mqsc(DEV_MQSC, check=True)
    before = _log(secured)
    timings = []
    for user, password in (("app", "wrong"), ("nosuchuser", "wrong")):
        t = time.monotonic()
        assert _reason(lambda u=user, p=password: _connect(secured, "DEV.APP.SVRCONN", u, p)) == CMQC.MQRC_NOT_AUTHORIZED
        timings.append(time.monotonic() - t)
    assert all(t >= 0.95 for t in timings)             # FAILDLAY(1)
    new = _log(secured)[len(before):]
    assert "User ID 'app' authentication failed" in new and "User ID 'nosuchuser' authentication failed" in new
    assert "wrong" not in new and "passw0rd" not in new
    # Hashes never show: not in DISPLAY, not in the registry listing.
    out = run_mqlite("dspmqusr", "-m", secured.name).stdout
    assert "PASSWORD(SET)" in out and "scrypt" not in out


def test_authority_records_survive_a_restart_and_the_control_commands(secured):
    secured.mqsc(DEV_MQSC, check=True)
    r = run_mqlite("setmqaut", "-m", secured.name, "-n", "DEV.QUEUE.1", "-t", "q", "-p", "app", "+setid", "+passid")
    assert r.returncode == 0, r.stderr
    secured.stop()
    secured.start()
    # The most specific profile alone counts for an entity: DEV.QUEUE.1's record hides DEV.**'s.
    out = run_mqlite("dspmqaut", "-m", secured.name, "-n", "DEV.QUEUE.1", "-t", "q", "-p", "app").stdout
    assert out.split("\n", 1)[1].split() == ["passid", "setid"]
    run_mqlite("setmqaut", "-m", secured.name, "-n", "DEV.QUEUE.1", "-t", "q", "-p", "app", "+put", "+get", "+inq")
    out = run_mqlite("dspmqaut", "-m", secured.name, "-n", "DEV.QUEUE.1", "-t", "q", "-p", "app").stdout
    assert out.split("\n", 1)[1].split() == ["get", "inq", "passid", "put", "setid"]
    out = run_mqlite("dmpmqaut", "-m", secured.name, "-t", "q", "-p", "app").stdout
    assert "profile:     DEV.**" in out and "profile:     DEV.QUEUE.1" in out
    qm = _connect(secured, "DEV.APP.SVRCONN", "app", "passw0rd")
    opts = CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_IDENTITY_CONTEXT
    assert _reason(lambda: pymqi.Queue(qm, "DEV.QUEUE.1", opts)) == CMQC.MQRC_NOT_AUTHORIZED   # setid on the qmgr too
    assert "QMSEC.\nEXPLANATION:\nObject type qmgr. The following requested permissions are unauthorized: setid" in _log(secured)
    run_mqlite("setmqaut", "-m", secured.name, "-t", "qmgr", "-p", "app", "+setid")
    md = pymqi.MD(UserIdentifier=b"someone")
    pymqi.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_IDENTITY_CONTEXT).put(
        b"as someone", md, pymqi.PMO(Options=CMQC.MQPMO_SET_IDENTITY_CONTEXT))
    got = pymqi.MD()
    pymqi.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_INPUT_SHARED).get(None, got)
    assert got.UserIdentifier.rstrip() == b"someone"
    qm.disconnect()
    r = run_mqlite("setmqaut", "-m", secured.name, "-n", "DEV.QUEUE.1", "-t", "q", "-p", "app", "-remove")
    assert r.returncode == 0
    out = secured.mqsc("DISPLAY AUTHREC PROFILE(DEV.QUEUE.1) OBJTYPE(QUEUE) PRINCIPAL('app') MATCH(EXACT)\n").stdout
    assert "AUTHLIST(NONE)" in out
    r = run_mqlite("setmqaut", "-m", secured.name, "-n", "DEV.QUEUE.1", "-t", "q", "-p", "app", "+connect")
    assert r.returncode == 20 and "AMQ7096E" in r.stderr


def test_authority_for_a_principal_or_group_nobody_knows_is_refused_and_nothing_changes(secured):
    """MQ's OAM: setmqaut answers AMQ7026E with exit code 36, SET AUTHREC the same message,
    PCF MQRC_UNKNOWN_ENTITY (2292). Known are the OS's users and groups, the registry's users
    and their groups, and mqm."""
    before = secured.mqsc("DISPLAY AUTHREC\n").stdout
    for who in (("-p", "nosuchuser"), ("-g", "nosuchgroup")):
        r = run_mqlite("setmqaut", "-m", secured.name, "-n", "DEV.QUEUE.1", "-t", "q", *who, "+put")
        assert r.returncode == 36 and "AMQ7026E" in r.stderr, r.stdout + r.stderr
    out = secured.mqsc("SET AUTHREC PROFILE('DEV.**') OBJTYPE(QUEUE) GROUP('nosuchgroup') AUTHADD(PUT)\n").stdout
    assert "AMQ7026E: A principal or group name was invalid." in out
    p = pymqi.PCFExecute(secured.bindings())
    from mqlite.cmq import CMQCFC
    assert _reason(lambda: p.MQCMD_SET_AUTH_REC({CMQCFC.MQCACF_AUTH_PROFILE_NAME: b"DEV.**",
                                                 CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q,
                                                 CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES: [b"nosuchuser"],
                                                 CMQCFC.MQIACF_AUTH_ADD_AUTHS: [CMQCFC.MQAUTH_OUTPUT]})) \
        == CMQC.MQRC_UNKNOWN_ENTITY
    assert secured.mqsc("DISPLAY AUTHREC\n").stdout == before            # nothing changed
    # Known: a registry user's group, the OS's root user and group, mqm.
    for who in (("-g", "mqclient"), ("-p", "root"), ("-g", "root"), ("-g", "mqm")):
        r = run_mqlite("setmqaut", "-m", secured.name, "-n", "KNOWN.Q", "-t", "q", *who, "+inq")
        assert r.returncode == 0, r.stdout + r.stderr


def test_chlauth_runcheck_and_bad_input_changes_nothing(secured):
    secured.mqsc(DEV_MQSC, check=True)
    out = secured.mqsc("DISPLAY CHLAUTH(DEV.ADMIN.SVRCONN) MATCH(RUNCHECK) ADDRESS('10.0.0.1') CLNTUSER('admin')\n").stdout
    assert "TYPE(USERMAP)" in out and "MCAUSER(mqm)" in out
    out = secured.mqsc("DISPLAY CHLAUTH(OTHER.SVRCONN) MATCH(RUNCHECK) ADDRESS('10.0.0.1') CLNTUSER('x')\n").stdout
    assert "Back-stop rule" in out
    before = secured.mqsc("DISPLAY CHLAUTH(*)\n").stdout
    for bad in ("SET CHLAUTH('X') TYPE(ADDRESSMAP) ADDRESS('300.1.1.1') USERSRC(CHANNEL)",
                "SET CHLAUTH('X') TYPE(USERMAP) CLNTUSER('a*') USERSRC(CHANNEL)",
                "SET CHLAUTH('X') TYPE(BLOCKADDR) ADDRLIST('1.2.3.4')",
                "SET CHLAUTH('X') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(MAP)",
                "SET AUTHREC PROFILE('X') OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(CONNECT)"):
        r = secured.mqsc(bad + "\n")
        assert r.returncode == 10, bad
    assert secured.mqsc("DISPLAY CHLAUTH(*)\n").stdout == before
    assert secured.running()


def test_chlauth_on_message_channels(tmp_path):
    """A QMGRMAP rule refuses a partner queue manager (AMQ9777E at the receiving end); with MQ's
    default rules a receiver with a non-SYSTEM name runs (BLOCKUSER is for client channels)."""
    with Harness(str(tmp_path / "data"), security=True) as h:
        qm2 = h.add("QM2", "DEFINE QLOCAL(TARGET.Q)\nDEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR)\n"
                           "SET CHLAUTH('QM1.TO.*') TYPE(QMGRMAP) QMNAME('QM1') USERSRC(NOACCESS)\n")
        qm1 = h.add("QM1", f"DEFINE QLOCAL(QM2) USAGE(XMITQ)\nDEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) "
                           f"CONNAME('{qm2.conname}') XMITQ(QM2) SHORTTMR(1)\n"
                           "DEFINE QREMOTE(REMOTE.Q) RNAME(TARGET.Q) RQMNAME(QM2) XMITQ(QM2)\n")
        c1 = qm1.bindings()
        pymqi.Queue(c1, "REMOTE.Q").put(b"through", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
        qm1.mqsc("START CHANNEL(QM1.TO.QM2)\n")
        deadline = time.monotonic() + 15
        while "AMQ9777E" not in _log(qm2) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "blocked from queue manager QM1" in _log(qm2)
        c2 = qm2.bindings()
        target = pymqi.Queue(c2, "TARGET.Q", CMQC.MQOO_INPUT_SHARED)
        assert _reason(lambda: target.get()) == CMQC.MQRC_NO_MSG_AVAILABLE
        qm2.mqsc("SET CHLAUTH('QM1.TO.*') TYPE(QMGRMAP) QMNAME('QM1') ACTION(REMOVE)\n", check=True)
        assert target.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=15000)) == b"through"
        c1.disconnect()
        c2.disconnect()


def test_the_command_server_checks_the_authority_of_each_command(secured):
    """A user who may put to SYSTEM.ADMIN.COMMAND.QUEUE still needs dsp/chg/crt/dlt/ctrl on what
    each command touches: refused with 2035, AMQ8077W, nothing changed (PCF and Escape alike)."""
    from mqlite.cmq import CMQCFC
    secured.mqsc(DEV_MQSC + "SET AUTHREC PROFILE('SYSTEM.ADMIN.COMMAND.QUEUE') PRINCIPAL('app') OBJTYPE(QUEUE) "
                            "AUTHADD(PUT,INQ)\nSET AUTHREC PROFILE('SYSTEM.DEFAULT.MODEL.QUEUE') PRINCIPAL('app') "
                            "OBJTYPE(QUEUE) AUTHADD(GET,INQ,DSP)\n", check=True)
    qm = _connect(secured, "DEV.APP.SVRCONN", "app", "passw0rd")
    p = pymqi.PCFExecute(qm)
    assert _reason(lambda: p.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"DEV.QUEUE.1"})) == CMQC.MQRC_NOT_AUTHORIZED
    assert _reason(lambda: p.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: b"DEV.QUEUE.1"})) == CMQC.MQRC_NOT_AUTHORIZED
    assert _reason(lambda: p.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                                           CMQCFC.MQCACF_ESCAPE_TEXT: b"DELETE QLOCAL(DEV.QUEUE.1)"})) \
        == CMQC.MQRC_NOT_AUTHORIZED
    assert _reason(lambda: p.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                                           CMQCFC.MQCACF_ESCAPE_TEXT: b"SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('app') "
                                                                      b"AUTHADD(ALL)"})) == CMQC.MQRC_NOT_AUTHORIZED
    assert "unauthorized: dlt" in _log(secured)
    assert "DEV.QUEUE.1" in secured.mqsc("DISPLAY QLOCAL(DEV.QUEUE.1)\n").stdout
    run_mqlite("setmqaut", "-m", secured.name, "-n", "DEV.QUEUE.1", "-t", "q", "-p", "app", "+dsp", "+put")
    (q,) = p.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"DEV.QUEUE.1"})
    assert q[CMQC.MQCA_Q_NAME].strip() == b"DEV.QUEUE.1"
    p.disconnect()
    qm.disconnect()


def test_every_declared_pcf_command_is_refused_without_its_authority(secured):
    """Every command in the administration package's table is checked before its handler runs:
    a user with no administrative authority ('app': connect and inq on the queue manager, MQI
    authorities on DEV.**) gets 2035 for each, and nothing changes."""
    from mqlite.admin.commands import COMMANDS
    from mqlite.cmq import CMQCFC
    secured.mqsc(DEV_MQSC + "SET AUTHREC PROFILE('SYSTEM.ADMIN.COMMAND.QUEUE') PRINCIPAL('app') OBJTYPE(QUEUE) "
                            "AUTHADD(PUT,INQ)\nSET AUTHREC PROFILE('SYSTEM.DEFAULT.MODEL.QUEUE') PRINCIPAL('app') "
                            "OBJTYPE(QUEUE) AUTHADD(GET,INQ,DSP)\n", check=True)
    before = secured.mqsc("DISPLAY QLOCAL(DEV.QUEUE.2) ALL\n").stdout
    names = {"QUEUE": b"DEV.QUEUE.2", "CHANNEL": b"DEV.APP.SVRCONN", "TOPIC": b"DEV.BASE.TOPIC",
             "NAMELIST": b"DEV.NAMELIST", "AUTHINFO": b"DEV.AUTHINFO", "LISTENER": b"SYSTEM.DEFAULT.LISTENER.TCP",
             "PROCESS": b"SYSTEM.DEFAULT.PROCESS", "SERVICE": b"SYSTEM.DEF.SERVICE",
             "COMMINFO": b"SYSTEM.DEFAULT.COMMINFO.MULTICAST"}
    by_code = {v: k for k, v in vars(CMQCFC).items() if k.startswith("MQCMD_") and isinstance(v, int)}
    qm = _connect(secured, "DEV.APP.SVRCONN", "app", "passw0rd")
    p = pymqi.PCFExecute(qm)
    refused = []
    for code, cmd in sorted(COMMANDS.items()):
        if code == CMQCFC.MQCMD_ESCAPE:
            continue                # what an MQSC command needs: test_the_command_server_checks_...
        args = {cmd.name: names[cmd.on]} if cmd.on != "QMGR" else {}
        try:
            getattr(p, by_code[code])(args)
        except pymqi.MQMIError as e:
            if e.reason == CMQC.MQRC_NOT_AUTHORIZED:
                refused.append(code)
    assert [by_code[c] for c in sorted(COMMANDS) if c not in refused and c != CMQCFC.MQCMD_ESCAPE] == []
    assert _log(secured).count("AMQ8077W") >= len(refused)
    assert secured.mqsc("DISPLAY QLOCAL(DEV.QUEUE.2) ALL\n").stdout.replace(" ", "") \
        .split("ALTDATE")[0] == before.replace(" ", "").split("ALTDATE")[0]
    p.disconnect()
    qm.disconnect()


def test_alternate_user_authority_and_chcklocl(secured):
    secured.mqsc(DEV_MQSC, check=True)
    qm = _connect(secured, "DEV.APP.SVRCONN", "app", "passw0rd")
    opts = CMQC.MQOO_OUTPUT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY
    # altusr on the queue manager first; then the checks are the alternate user's.
    assert _reason(lambda: pymqi.Queue(qm, pymqi.OD(ObjectName=b"DEV.QUEUE.1", AlternateUserId=b"app"), opts)) \
        == CMQC.MQRC_NOT_AUTHORIZED
    assert "unauthorized: altusr" in _log(secured)
    run_mqlite("setmqaut", "-m", secured.name, "-t", "qmgr", "-p", "app", "+altusr")
    pymqi.Queue(qm, pymqi.OD(ObjectName=b"DEV.QUEUE.1", AlternateUserId=b"app"), opts).close()
    assert _reason(lambda: pymqi.Queue(qm, pymqi.OD(ObjectName=b"DEV.QUEUE.1", AlternateUserId=b"stranger"),
                                       opts)) == CMQC.MQRC_NOT_AUTHORIZED
    assert "Entity 'stranger' has insufficient authority to access object DEV.QUEUE.1" in _log(secured)
    qm.disconnect()
    # CHCKLOCL(REQUIRED): local bindings need a user and password too.
    secured.mqsc("ALTER AUTHINFO('DEV.AUTHINFO') AUTHTYPE(IDPWOS) CHCKLOCL(REQUIRED)\nREFRESH SECURITY TYPE(CONNAUTH)\n",
                 check=True)
    try:
        assert _reason(lambda: pymqi.connect(secured.name)) == CMQC.MQRC_NOT_AUTHORIZED
        local = pymqi.QueueManager(None)
        local.connect_with_options(secured.name, user="app", password="passw0rd")
        pymqi.Queue(local, "DEV.QUEUE.1").put(b"local app")
        local.disconnect()
    finally:
        secured.mqsc("ALTER AUTHINFO('DEV.AUTHINFO') AUTHTYPE(IDPWOS) CHCKLOCL(OPTIONAL)\n"
                     "REFRESH SECURITY TYPE(CONNAUTH)\n", check=True)
    secured.bindings().disconnect()


def test_the_ibmmq_face_gets_the_same_answers(secured):
    from mqlite import ibmmq
    secured.mqsc(DEV_MQSC, check=True)
    with pytest.raises(ibmmq.MQMIError) as e:
        ibmmq.connect(secured.name, "DEV.APP.SVRCONN", secured.conname, "app", "not-it")
    assert e.value.reason == ibmmq.CMQC.MQRC_NOT_AUTHORIZED
    qm = ibmmq.connect(secured.name, "DEV.APP.SVRCONN", secured.conname, "app", "passw0rd")
    with pytest.raises(ibmmq.MQMIError) as e:
        ibmmq.Queue(qm, "SYSTEM.DEAD.LETTER.QUEUE", ibmmq.CMQC.MQOO_BROWSE)
    assert e.value.reason == ibmmq.CMQC.MQRC_NOT_AUTHORIZED
    qm.disconnect()


def test_authority_records_through_pcf(secured):
    """Set/Inquire/Delete Authority Records and Inquire Entity Authority, as MQ Explorer and pymqi
    administration scripts send them."""
    from mqlite.cmq import CMQCFC, CMQZC
    r = run_mqlite("setmqusr", "-m", secured.name, "-u", "pcfuser", "-g", "pcfgroup")   # the group must exist
    assert r.returncode == 0, r.stdout + r.stderr
    qm = secured.bindings()
    p = pymqi.PCFExecute(qm)
    p.MQCMD_SET_AUTH_REC({CMQCFC.MQCACF_AUTH_PROFILE_NAME: b"PCF.**", CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q,
                          CMQCFC.MQCACF_GROUP_ENTITY_NAMES: [b"pcfgroup"],
                          CMQCFC.MQIACF_AUTH_ADD_AUTHS: [CMQCFC.MQAUTH_OUTPUT, CMQCFC.MQAUTH_BROWSE]})
    (rec,) = p.MQCMD_INQUIRE_AUTH_RECS({CMQCFC.MQIACF_AUTH_OPTIONS: CMQCFC.MQAUTHOPT_NAME_EXPLICIT
                                        | CMQCFC.MQAUTHOPT_ENTITY_SET,
                                        CMQCFC.MQCACF_AUTH_PROFILE_NAME: b"PCF.**",
                                        CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q})
    assert rec[CMQCFC.MQCACF_ENTITY_NAME].strip() == b"pcfgroup"
    assert rec[CMQCFC.MQIACF_ENTITY_TYPE] == CMQZC.MQZAET_GROUP
    assert sorted(rec[CMQCFC.MQIACF_AUTHORIZATION_LIST]) == [CMQCFC.MQAUTH_BROWSE, CMQCFC.MQAUTH_OUTPUT]
    (ent,) = p.MQCMD_INQUIRE_ENTITY_AUTH({CMQCFC.MQCACF_ENTITY_NAME: b"pcfgroup",
                                          CMQCFC.MQIACF_ENTITY_TYPE: CMQZC.MQZAET_GROUP,
                                          CMQCFC.MQCACF_OBJECT_NAME: b"PCF.A.B", CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q})
    assert sorted(ent[CMQCFC.MQIACF_AUTHORIZATION_LIST]) == [CMQCFC.MQAUTH_BROWSE, CMQCFC.MQAUTH_OUTPUT]
    assert "AUTHLIST(BROWSE,PUT)" in secured.mqsc("DISPLAY AUTHREC PROFILE('PCF.**') OBJTYPE(QUEUE)\n").stdout
    assert _reason(lambda: p.MQCMD_SET_AUTH_REC({CMQCFC.MQCACF_AUTH_PROFILE_NAME: b"PCF.**",
                                                 CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q,
                                                 CMQCFC.MQCACF_GROUP_ENTITY_NAMES: [b"pcfgroup"],
                                                 CMQCFC.MQIACF_AUTH_ADD_AUTHS: [CMQCFC.MQAUTH_CONNECT]})) \
        == CMQCFC.MQRCCF_AUTH_VALUE_ERROR
    p.MQCMD_DELETE_AUTH_REC({CMQCFC.MQCACF_AUTH_PROFILE_NAME: b"PCF.**", CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q,
                             CMQCFC.MQCACF_GROUP_ENTITY_NAMES: [b"pcfgroup"]})
    assert "AMQ8459I" in secured.mqsc("DISPLAY AUTHREC PROFILE('PCF.**') OBJTYPE(QUEUE)\n").stdout
    p.disconnect()
    qm.disconnect()


def test_channel_authentication_records_through_pcf(secured):
    from mqlite.cmq import CMQCFC
    qm = secured.bindings()
    p = pymqi.PCFExecute(qm)
    p.MQCMD_SET_CHLAUTH_REC({CMQCFC.MQCACH_CHANNEL_NAME: b"PCF.*", CMQCFC.MQIACF_CHLAUTH_TYPE: CMQCFC.MQCAUT_USERMAP,
                             CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_REPLACE, CMQCFC.MQCACH_CLIENT_USER_ID: b"fred",
                             CMQCFC.MQIACH_USER_SOURCE: CMQC.MQUSRC_MAP, CMQCFC.MQCACH_MCA_USER_ID: b"app"})
    recs = p.MQCMD_INQUIRE_CHLAUTH_RECS({CMQCFC.MQCACH_CHANNEL_NAME: b"PCF.*"})
    assert len(recs) == 1 and recs[0][CMQCFC.MQCACH_CLIENT_USER_ID].strip() == b"fred"
    assert recs[0][CMQCFC.MQCACH_MCA_USER_ID].strip() == b"app"
    assert "CLNTUSER(fred)" in secured.mqsc("DISPLAY CHLAUTH('PCF.*')\n").stdout
    args = {CMQCFC.MQCACH_CHANNEL_NAME: b"PCF.*", CMQCFC.MQIACF_CHLAUTH_TYPE: CMQCFC.MQCAUT_USERMAP,
            CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_ADD, CMQCFC.MQCACH_CLIENT_USER_ID: b"fred",
            CMQCFC.MQIACH_USER_SOURCE: CMQC.MQUSRC_CHANNEL}
    assert _reason(lambda: p.MQCMD_SET_CHLAUTH_REC(args)) == CMQCFC.MQRCCF_CHLAUTH_ALREADY_EXISTS
    args[CMQCFC.MQIACF_ACTION] = CMQCFC.MQACT_REMOVE
    p.MQCMD_SET_CHLAUTH_REC(args)
    assert _reason(lambda: p.MQCMD_SET_CHLAUTH_REC(args)) == CMQCFC.MQRCCF_CHLAUTH_NOT_FOUND
    assert _reason(lambda: p.MQCMD_INQUIRE_CHLAUTH_RECS({CMQCFC.MQCACH_CHANNEL_NAME: b"PCF.*"})) \
        == CMQCFC.MQRCCF_CHLAUTH_NOT_FOUND
    p.disconnect()
    qm.disconnect()
