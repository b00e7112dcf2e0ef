"""Where features meet: transport (bindings, TCP, TLS) x persistence x syncpoint x the putting verb
(MQPUT, MQPUT1, asynchronous MQPUT) x the getting verb (MQGET, MQGET with read-ahead, browse) x the
destination (local, alias, remote and cluster queues; a topic with a managed, a provided and an
administrative subscription). Every case checks the replies and every field of the MQMD that comes
back against ``expected_md``, a model of MQ's rules written out below, rather than one path each.

One queue manager (a real server process) serves all three transports; the connections are kept
for the module, so that the 756 cases take seconds.
"""
from __future__ import annotations

import datetime
import getpass
import itertools
import os
import re
import sys

import pytest

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.testing import Harness, free_port
from tests.server.test_tls import PKI

QM = "QMCOMBO"
TRANSPORTS = ("bindings", "tcp", "tls")
PUTS = ("put", "put1", "async")
GETS = ("get", "read_ahead", "browse")
QUEUES = {"local": "Q.LOCAL", "alias": "Q.ALIAS", "remote": "Q.REMOTE", "cluster": "Q.CLUS"}
TOPICS = ("managed", "provided", "admin", "admin_alias")
# Where the message is read: the queue a queue destination resolves to, or a subscription's queue.
READ_FROM = {"local": "Q.LOCAL", "alias": "Q.ALIAS", "remote": "Q.LOCAL", "cluster": "Q.CLUS",
             "provided": "Q.SUBP", "admin": "Q.SUBA", "admin_alias": "Q.SUBB"}
# DEFPRTY of the first definition a name resolves through: a message put with MQPRI_PRIORITY_AS_Q_DEF
# takes it (MQ: an alias's or a remote definition's own DEFPRTY, not the target's).
DEFPRTY = {"local": 2, "alias": 3, "remote": 4, "cluster": 5}
TOPIC_DEFPRTY = 6           # T.COMBO's: a publication put with MQPRI_PRIORITY_AS_TOPIC_DEF
PROVIDED_CORREL = b"COMBO.PROVIDED.CORRELID."
EXPIRY = 36000              # tenths of a second: an hour
REPLY_TO = "COMBO.REPLY"


def mqsc(pem: str, port: int) -> str:
    return f"""ALTER QMGR SSLKEYR('{pem}') REPOS(COMBO)
REFRESH SECURITY TYPE(SSL)
DEFINE CHANNEL(TLS.SVRCONN) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(OPTIONAL)
DEFINE CHANNEL(COMBO.{QM}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1({port})') CLUSTER(COMBO)
DEFINE QLOCAL(Q.LOCAL) DEFPRTY(2)
DEFINE QALIAS(Q.ALIAS) TARGET(Q.LOCAL) DEFPRTY(3)
DEFINE QREMOTE(Q.REMOTE) RNAME(Q.LOCAL) RQMNAME({QM}) DEFPRTY(4)
DEFINE QLOCAL(Q.CLUS) CLUSTER(COMBO) DEFPRTY(5)
DEFINE TOPIC(T.COMBO) TOPICSTR('combo') DEFPRTY({TOPIC_DEFPRTY})
DEFINE QLOCAL(Q.SUBP) DEFPRTY(7)
DEFINE QLOCAL(Q.SUBA) DEFPRTY(1)
DEFINE SUB(COMBO.ADMIN) TOPICSTR('combo/admin') DEST(Q.SUBA) PUBPRTY(ASQDEF)
DEFINE QLOCAL(Q.SUBB) DEFPRTY(0)
DEFINE QALIAS(Q.SUBB.ALIAS) TARGET(Q.SUBB) DEFPRTY(9)
DEFINE SUB(COMBO.ADMIN.ALIAS) TOPICSTR('combo/admin_alias') DEST(Q.SUBB.ALIAS) PUBPRTY(ASQDEF)
"""


class World:
    def __init__(self, h: Harness, qm, trust: str) -> None:
        self.h, self.qm, self.trust = h, qm, trust
        self.conns: dict[str, pymqi.QueueManager] = {}
        self.admin_correl = {}
        for dest, sub in (("admin", "COMBO.ADMIN"), ("admin_alias", "COMBO.ADMIN.ALIAS")):
            out = qm.mqsc(f"DISPLAY SUB({sub}) DESTCORL\n").stdout
            self.admin_correl[dest] = bytes.fromhex(re.search(r"DESTCORL\(([0-9A-F]{48})\)", out).group(1))

    def conn(self, transport: str) -> pymqi.QueueManager:
        c = self.conns.get(transport)
        if c is None:
            if transport == "bindings":
                c = self.qm.bindings()
            elif transport == "tcp":
                c = self.qm.client()
            else:
                cd = pymqi.CD(ChannelName=b"TLS.SVRCONN", ConnectionName=self.qm.conname.encode(),
                              SSLCipherSpec=b"ANY_TLS12_OR_HIGHER")
                c = pymqi.QueueManager(None)
                c.connect_with_options(QM, cd=cd, sco=pymqi.SCO(KeyRepository=self.trust.encode()))
            self.conns[transport] = c
        return c


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    pki = PKI(str(tmp_path_factory.mktemp("pki")))
    server = pki.repo("qm", QM)
    trust = pki.repo("trust", None)
    with Harness(str(tmp_path_factory.mktemp("data"))) as h:
        port = free_port()
        qm = h.add(QM, mqsc(server, port), port=port)
        w = World(h, qm, trust)
        yield w
        for c in w.conns.values():
            c.disconnect()


def expected_md(dest: str, persistent: bool, user: str, appl: str, sub_correl: bytes) -> dict:
    """The MQMD an application gets for a message put with ``put_md`` below: MQ's rules.
    - Priority put as MQPRI_PRIORITY_AS_Q_DEF: the DEFPRTY of the first definition on the way (a
      queue), or the topic's DEFPRTY (a publication); then a subscription's PubPriority decides
      a copy's: MQPRI_PRIORITY_AS_Q_DEF, pymqi's SD default, gives the managed queue's DEFPRTY
      (its model's, 0); the provided one asks for 8; the administrative ones PUBPRTY(ASQDEF),
      the DEFPRTY of the first definition on the way (an alias's, not its target's).
    - CorrelId: the putter's on a queue; a publication's copy carries the subscription's
      SubCorrelId (generated, or the application's own with MQSO_SET_CORREL_ID).
    - Persistence as put, except that a temporary dynamic queue (the managed subscription here is
      non-durable: its queue is one) holds no persistent message.
    - ReplyToQMgr: blank with a ReplyToQ is the local queue manager's name.
    - Identity context: the putting user (or, on a copy, the subscriber, the same user here);
      origin context: the putting application, on copies too."""
    topic = dest in TOPICS
    if not topic:
        priority = DEFPRTY[dest]
    elif dest == "managed":
        priority = 0                # PubPriority AS_Q_DEF (pymqi's SD default): the model queue's DEFPRTY 0
    elif dest == "provided":
        priority = 8
    elif dest == "admin":
        priority = 1                # PUBPRTY(ASQDEF): Q.SUBA's DEFPRTY
    else:
        priority = 9                # PUBPRTY(ASQDEF) through an alias: the alias's DEFPRTY, not Q.SUBB's
    return {
        "StrucId": b"MD  ", "Report": C.MQRO_NONE, "MsgType": C.MQMT_DATAGRAM, "Feedback": C.MQFB_NONE,
        "Encoding": C.MQENC_NATIVE, "CodedCharSetId": 1208, "Format": C.MQFMT_STRING, "Priority": priority,
        "Persistence": int(persistent and dest != "managed"),
        "CorrelId": sub_correl if topic else b"COMBO.PUT.CORRELID......", "BackoutCount": 0,
        "ReplyToQ": REPLY_TO.ljust(48).encode(), "ReplyToQMgr": QM.ljust(48).encode(),
        "UserIdentifier": user[:12].ljust(12).encode(), "ApplIdentityData": b" " * 32,
        "PutApplType": C.MQAT_UNIX, "PutApplName": appl[-28:].ljust(28).encode(),
        "ApplOriginData": b"    ", "GroupId": b"\0" * 24, "MsgSeqNumber": 1, "Offset": 0,
        "MsgFlags": C.MQMF_NONE, "OriginalLength": C.MQOL_UNDEFINED,
    }


def put_md(persistent: bool) -> pymqi.MD:
    return pymqi.MD(Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT,
                    Format=C.MQFMT_STRING, CodedCharSetId=1208, Expiry=EXPIRY,
                    CorrelId=b"COMBO.PUT.CORRELID......", ReplyToQ=REPLY_TO.encode())


CASES = list(itertools.product(TRANSPORTS, (False, True), (False, True), PUTS, GETS, (*QUEUES, *TOPICS)))


def _ids(c) -> str:
    t, pers, sync, put, get, dest = c
    return f"{t}-{'pers' if pers else 'np'}-{'sync' if sync else 'nosync'}-{put}-{get}-{dest}"


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_combination(world, case):
    transport, persistent, sync, put_verb, get_verb, dest = case
    c = world.conn(transport)
    body = f"combo {_ids(case)}".encode()
    topic = f"combo/{dest}"
    sub = sub_correl = None
    reader = None
    gopts = C.MQOO_INPUT_SHARED | C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING
    if get_verb == "read_ahead":
        gopts |= C.MQOO_READ_AHEAD
    if dest == "managed":
        sd = pymqi.SD(Options=C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_MANAGED
                      | (C.MQSO_READ_AHEAD if get_verb == "read_ahead" else 0))
        sd.set_vs("ObjectString", topic)
        sub = pymqi.Subscription(c)
        sub.sub(sub_desc=sd)
        sub_correl = bytes(sub.sub_desc.SubCorrelId)
        assert sub_correl.strip(b"\0"), "MQSUB gives back the CorrelId it generated"
        reader = sub.sub_queue
    else:
        reader = pymqi.Queue(c, READ_FROM[dest], gopts)
        if dest == "provided":
            sd = pymqi.SD(Options=C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_SET_CORREL_ID,
                          SubCorrelId=PROVIDED_CORREL, PubPriority=8)
            sd.set_vs("ObjectString", topic)
            sub = pymqi.Subscription(c)
            sub.sub(sub_desc=sd, sub_queue=reader)
            sub_correl = PROVIDED_CORREL
        elif dest in world.admin_correl:
            sub_correl = world.admin_correl[dest]
    try:
        md = put_md(persistent)
        pmo = pymqi.PMO(Options=(C.MQPMO_SYNCPOINT if sync else C.MQPMO_NO_SYNCPOINT)
                        | (C.MQPMO_ASYNC_RESPONSE if put_verb == "async" else 0))
        od = pymqi.OD(ObjectType=C.MQOT_TOPIC) if dest in TOPICS else pymqi.OD(ObjectName=QUEUES[dest].encode())
        if dest in TOPICS:
            od.set_vs("ObjectString", topic)
        if put_verb == "put1":
            c.put1(od, body, md, pmo)
        else:
            w = pymqi.Queue(c, od, C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING)
            w.put(body, md, pmo)
            w.close()
        put_msgid = bytes(md.MsgId)
        assert len(put_msgid.strip(b"\0")) > 0, "MQPUT gives back the MsgId it made"
        if sync:
            c.commit()
        got_md = pymqi.MD()
        gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_FAIL_IF_QUIESCING
                        | (C.MQGMO_BROWSE_FIRST if get_verb == "browse" else
                           C.MQGMO_SYNCPOINT if sync and get_verb == "get" else C.MQGMO_NO_SYNCPOINT),
                        WaitInterval=5000)
        data = reader.get(None, got_md, gmo)
        assert data == body
        if get_verb == "browse":
            reader.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_NO_SYNCPOINT))
        elif sync and get_verb == "get":
            c.commit()
        check_md(got_md, dest, persistent, put_msgid, sub_correl)
        # Nothing else arrived and nothing is left: exactly one copy of exactly one message.
        with pytest.raises(pymqi.MQMIError) as e:
            reader.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT))
        assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE
    finally:
        if sub is not None:
            sub.close(sub_close_options=C.MQCO_REMOVE_SUB, close_sub_queue=dest == "managed")
        if dest != "managed":
            reader.close()


def check_md(got: pymqi.MD, dest: str, persistent: bool, put_msgid: bytes, sub_correl: bytes | None) -> None:
    want = expected_md(dest, persistent, getpass.getuser(), os.path.basename(sys.argv[0] or "python"),
                       sub_correl or b"")
    have = {k: getattr(got, k) for k in want}
    for k in ("Format", "ReplyToQ", "ReplyToQMgr", "UserIdentifier", "ApplIdentityData", "PutApplName",
              "ApplOriginData", "StrucId"):
        have[k] = bytes(have[k])
        want[k] = bytes(want[k])
    wrong = {k: have[k] for k in want if have[k] != want[k]}
    assert wrong == {}, f"expected {({k: want[k] for k in wrong})}"
    msgid = bytes(got.MsgId)
    assert len(msgid) == 24 and msgid.strip(b"\0")
    if dest in TOPICS:
        assert msgid != put_msgid, "each copy of a publication has a MsgId of its own"
    else:
        assert msgid == put_msgid
    assert 0 < got.Expiry <= EXPIRY and got.Expiry > EXPIRY - 600, got.Expiry
    now = datetime.datetime.now(datetime.UTC)
    stamp = datetime.datetime.strptime(got.PutDate.decode() + got.PutTime.decode()[:6], "%Y%m%d%H%M%S").replace(
        tzinfo=datetime.UTC)
    assert abs((now - stamp).total_seconds()) < 120, (got.PutDate, got.PutTime)
    assert re.fullmatch(rb"\d{8}", bytes(got.PutTime))
