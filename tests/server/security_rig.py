"""The rig security's tests share: IBM's developer configuration, a secured queue manager's
error log, client connections and the reason code of a refused call."""
from __future__ import annotations

import os

import pytest

from mqlite import pymqi
from mqlite.cmq import CMQC
from mqlite.paths import QMPaths

# IBM's developer configuration (mq-container's 10-dev.mqsc.tpl, ChckClnt REQUIRED).
DEV_MQSC = """
DEFINE QLOCAL('DEV.QUEUE.1') REPLACE
DEFINE QLOCAL('DEV.QUEUE.2') REPLACE
DEFINE QLOCAL('DEV.QUEUE.3') REPLACE
DEFINE QLOCAL('DEV.DEAD.LETTER.QUEUE') REPLACE
ALTER QMGR DEADQ('DEV.DEAD.LETTER.QUEUE')
DEFINE TOPIC('DEV.BASE.TOPIC') TOPICSTR('dev/') REPLACE
DEFINE AUTHINFO('DEV.AUTHINFO') AUTHTYPE(IDPWOS) CHCKCLNT(REQDADM) CHCKLOCL(OPTIONAL) ADOPTCTX(YES) REPLACE
ALTER QMGR CONNAUTH('DEV.AUTHINFO')
REFRESH SECURITY(*) TYPE(CONNAUTH)
DEFINE CHANNEL('DEV.ADMIN.SVRCONN') CHLTYPE(SVRCONN) REPLACE
DEFINE CHANNEL('DEV.APP.SVRCONN') CHLTYPE(SVRCONN) MCAUSER('app') REPLACE
SET CHLAUTH('*') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(NOACCESS) DESCR('Back-stop rule - Blocks everyone') ACTION(REPLACE)
SET CHLAUTH('DEV.APP.SVRCONN') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) CHCKCLNT(REQUIRED) +
    DESCR('Allows connection via APP channel') ACTION(REPLACE)
SET CHLAUTH('DEV.ADMIN.SVRCONN') TYPE(BLOCKUSER) USERLIST('nobody') DESCR('Allows admins on ADMIN channel') ACTION(REPLACE)
SET CHLAUTH('DEV.ADMIN.SVRCONN') TYPE(USERMAP) CLNTUSER('admin') USERSRC(CHANNEL) +
    DESCR('Allows admin user to connect via ADMIN channel') ACTION(REPLACE)
SET CHLAUTH('DEV.ADMIN.SVRCONN') TYPE(USERMAP) CLNTUSER('admin') USERSRC(MAP) MCAUSER ('mqm') +
    DESCR ('Allow admin as MQ-admin') ACTION(REPLACE)
SET AUTHREC PRINCIPAL('app') OBJTYPE(QMGR) AUTHADD(CONNECT,INQ)
SET AUTHREC PROFILE('DEV.**') PRINCIPAL('app') OBJTYPE(QUEUE) AUTHADD(BROWSE,GET,INQ,PUT)
SET AUTHREC PROFILE('DEV.**') PRINCIPAL('app') OBJTYPE(TOPIC) AUTHADD(PUB,SUB)
"""


def _log(qm) -> str:
    d = QMPaths.of(qm.name).root
    return "".join(open(os.path.join(d, "errors", f), encoding="utf-8").read()
                   for f in sorted(os.listdir(os.path.join(d, "errors"))))


def _connect(qm, channel: str, user: str | None = None, password: str | None = None):
    q = pymqi.QueueManager(None)
    kw = {} if user is None else {"user": user, "password": password}
    q.connect_tcp_client(qm.name, pymqi.CD(), channel, qm.conname, **kw)
    return q


def _reason(fn) -> int:
    with pytest.raises(pymqi.MQMIError) as e:
        fn()
    return e.value.reason


def _subscribe(qm, topic: str, name: str = "", options: int = 0):
    sd = pymqi.SD(Options=options or CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | (CMQC.MQSO_DURABLE if name else 0))
    if topic:
        sd.set_vs("ObjectString", topic)
    if name:
        sd.set_vs("SubName", name)
    return pymqi.Subscription(qm, sub_desc=sd)
