"""CONNAUTH with AUTHTYPE(IDPWLDAP) against a real OpenLDAP server (tests/ldapd.py): users
authenticate with their LDAP passwords, run as their short names, and their LDAP groups carry
authority."""
from __future__ import annotations

import os

import pytest

from mqlite import pymqi
from mqlite.cmq import CMQC
from mqlite.paths import QMPaths
from mqlite.testing import Harness
from tests.ldapd import SUFFIX, slapd  # noqa: F401 - the fixture


@pytest.fixture(scope="module")
def ldapqm(slapd, tmp_path_factory):  # noqa: F811
    with Harness(str(tmp_path_factory.mktemp("data")), security=True) as h:
        qm = h.add("QMLDAP", f"""DEFINE QLOCAL(APP.Q)
DEFINE AUTHINFO(USE.LDAP) AUTHTYPE(IDPWLDAP) CONNAME('127.0.0.1({slapd.port})') SECCOMM(NO) +
       LDAPUSER('cn=admin,{SUFFIX}') LDAPPWD('adminpw') SHORTUSR('uid') BASEDNU('ou=users,{SUFFIX}') +
       CLASSUSR('inetOrgPerson') AUTHORMD(SEARCHGRP) BASEDNG('ou=groups,{SUFFIX}') CLASSGRP('groupOfNames') +
       FINDGRP('member') GRPFIELD('cn') CHCKCLNT(REQUIRED) ADOPTCTX(YES) FAILDLAY(0)
ALTER QMGR CONNAUTH(USE.LDAP)
REFRESH SECURITY TYPE(CONNAUTH)
SET CHLAUTH('APP.SVRCONN') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) ACTION(REPLACE)
SET AUTHREC OBJTYPE(QMGR) GROUP('mqapps') AUTHADD(CONNECT,INQ)
SET AUTHREC PROFILE('APP.*') OBJTYPE(QUEUE) GROUP('mqapps') AUTHADD(PUT,GET,INQ)
""")
        yield qm


def _connect(qm, user: str, password: str):
    q = pymqi.QueueManager(None)
    q.connect_tcp_client(qm.name, pymqi.CD(), "APP.SVRCONN", qm.conname, user=user, password=password)
    return q


def _reason(fn) -> int:
    with pytest.raises(pymqi.MQMIError) as e:
        fn()
    return e.value.reason


def test_ldap_users_authenticate_and_their_groups_give_authority(ldapqm):
    c = _connect(ldapqm, "lapp", "ldappw1")
    q = pymqi.Queue(c, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    q.put(b"from ldap")
    md = pymqi.MD()
    assert q.get(None, md) == b"from ldap"
    assert md.UserIdentifier.rstrip() == b"lapp"
    q.close()
    c.disconnect()
    # The full DN works too.
    _connect(ldapqm, f"uid=lapp,ou=users,{SUFFIX}", "ldappw1").disconnect()


def test_ldap_refusals(ldapqm):
    assert _reason(lambda: _connect(ldapqm, "lapp", "wrong")) == CMQC.MQRC_NOT_AUTHORIZED
    assert _reason(lambda: _connect(ldapqm, "nobody", "ldappw1")) == CMQC.MQRC_NOT_AUTHORIZED
    assert _reason(lambda: _connect(ldapqm, "lapp", "")) == CMQC.MQRC_NOT_AUTHORIZED     # no anonymous bind
    assert _reason(lambda: _connect(ldapqm, "lapp)(uid=*", "x")) == CMQC.MQRC_NOT_AUTHORIZED   # no filter injection
    # Authenticated, but not in mqapps: no connect authority.
    assert _reason(lambda: _connect(ldapqm, "lbob", "ldappw2")) == CMQC.MQRC_NOT_AUTHORIZED
    d = os.path.join(QMPaths.of(ldapqm.name).root, "errors")
    log = ""
    for f in sorted(os.listdir(d)):
        with open(os.path.join(d, f), encoding="utf-8") as fh:
            log += fh.read()
    assert "User ID 'lapp' authentication failed" in log and "Entity 'lbob' has insufficient authority" in log
    assert "ldappw" not in log and "adminpw" not in log
    assert "LDAPPWD(********)" in ldapqm.mqsc("DISPLAY AUTHINFO(USE.LDAP) LDAPPWD\n").stdout
