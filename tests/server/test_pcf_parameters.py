"""Every PCF Inquire command's response, read byte by byte from a real command server: each
parameter is one MQ defines for its structure type (an MQCFIN's id is an MQIA*, an MQCFST's an
MQCA*, an MQCFBS's an MQBACF*, a group's an MQGACF*), none comes twice, and the listener's and
listener status's are exactly the parameters MQ's "Inquire Listener (Response)" and "Inquire
Channel Listener Status (Response)" document for Linux."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.testing import Harness

SETUP = """DEFINE QLOCAL(PP.Q) DESCR('pcf')
DEFINE QALIAS(PP.ALIAS) TARGET(PP.Q)
DEFINE QREMOTE(PP.REMOTE) RNAME(R) RQMNAME(QMX) XMITQ(PP.Q)
DEFINE QMODEL(PP.MODEL)
DEFINE NAMELIST(PP.NL) NAMES(A,B)
DEFINE PROCESS(PP.PROC) APPLICID('/bin/true')
DEFINE SERVICE(PP.SVC) SERVTYPE(SERVER) STARTCMD('/bin/sleep') STARTARG('30') STOPCMD('/bin/true')
DEFINE LISTENER(PP.LSTR) TRPTYPE(TCP) PORT(0) CONTROL(MANUAL)
DEFINE TOPIC(PP.TOPIC) TOPICSTR('pp/news')
DEFINE SUB(PP.SUB) TOPICSTR('pp/news') DEST(PP.Q)
DEFINE CHANNEL(PP.SDR) CHLTYPE(SDR) CONNAME('127.0.0.1(1)') XMITQ(PP.Q)
SET CHLAUTH('PP.*') TYPE(BLOCKUSER) USERLIST('nobody')
START LISTENER(PP.LSTR)
START SERVICE(PP.SVC)
"""
NAME = (C.MQCA_Q_NAME, "*")
INQUIRIES = [
    (F.MQCMD_INQUIRE_Q_MGR, []), (F.MQCMD_INQUIRE_Q_MGR_STATUS, []),
    (F.MQCMD_INQUIRE_Q, [NAME]), (F.MQCMD_INQUIRE_Q_STATUS, [(C.MQCA_Q_NAME, "PP.Q")]),
    (F.MQCMD_INQUIRE_CHANNEL, [(F.MQCACH_CHANNEL_NAME, "*")]),
    (F.MQCMD_INQUIRE_NAMELIST, [(C.MQCA_NAMELIST_NAME, "*")]), (F.MQCMD_INQUIRE_PROCESS, [(C.MQCA_PROCESS_NAME, "*")]),
    (F.MQCMD_INQUIRE_SERVICE, [(C.MQCA_SERVICE_NAME, "*")]),
    (F.MQCMD_INQUIRE_SERVICE_STATUS, [(C.MQCA_SERVICE_NAME, "*")]),
    (F.MQCMD_INQUIRE_LISTENER, [(F.MQCACH_LISTENER_NAME, "*")]),
    (F.MQCMD_INQUIRE_LISTENER_STATUS, [(F.MQCACH_LISTENER_NAME, "*")]),
    (F.MQCMD_INQUIRE_TOPIC, [(C.MQCA_TOPIC_NAME, "*")]), (F.MQCMD_INQUIRE_AUTH_INFO, [(C.MQCA_AUTH_INFO_NAME, "*")]),
    (F.MQCMD_INQUIRE_COMM_INFO, [(C.MQCA_COMM_INFO_NAME, "*")]),
    (F.MQCMD_INQUIRE_SUBSCRIPTION, [(F.MQCACF_SUB_NAME, "PP.SUB")]),
    (F.MQCMD_INQUIRE_SUB_STATUS, [(F.MQCACF_SUB_NAME, "PP.SUB")]),
    (F.MQCMD_INQUIRE_TOPIC_STATUS, [(C.MQCA_TOPIC_STRING, "pp/news")]),
    (F.MQCMD_INQUIRE_CONNECTION, [(F.MQBACF_GENERIC_CONNECTION_ID, b"")]),
    (F.MQCMD_INQUIRE_CHLAUTH_RECS, [(F.MQCACH_CHANNEL_NAME, "*")]),
    (F.MQCMD_INQUIRE_PUBSUB_STATUS, []),
]
# The MQ constant families each PCF structure's parameter ids come from.
FAMILIES = {F.MQCFT_INTEGER: ("MQIA_", "MQIACF_", "MQIACH_", "MQIAMO_"),
            F.MQCFT_INTEGER_LIST: ("MQIA_", "MQIACF_", "MQIACH_", "MQIAMO_"),
            F.MQCFT_INTEGER64: ("MQIAMO64_", "MQIACF_"),
            F.MQCFT_STRING: ("MQCA_", "MQCACF_", "MQCACH_", "MQCAMO_"),
            F.MQCFT_STRING_LIST: ("MQCA_", "MQCACF_", "MQCACH_"),
            F.MQCFT_BYTE_STRING: ("MQBACF_",), F.MQCFT_GROUP: ("MQGACF_",)}


def _names(value: int) -> set[str]:
    return {n for mod in (C, F) for n, v in vars(mod).items() if v == value and n.startswith("MQ")}


@pytest.fixture(scope="module")
def qm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    h = Harness(str(tmp_path_factory.mktemp("pcfparams")))
    try:
        yield h.add("PCFPQM", SETUP)
    finally:
        h.close()


def ask(qm: Any, command: int, params: list[tuple[int, Any]]) -> list[pcf.Message]:
    """The replies to one PCF command, as the bytes came back."""
    conn = qm.bindings()
    try:
        reply = pymqi.Queue(conn, "SYSTEM.DEFAULT.MODEL.QUEUE", C.MQOO_INPUT_EXCLUSIVE)
        reply_name = reply.get_name().encode()           # the temporary dynamic queue MQOPEN made
        body = pcf.encode(pcf.Header(type=F.MQCFT_COMMAND, command=command),
                          [pcf.enc_bytes(k, v) if isinstance(v, bytes) else pcf.enc_str(k, v) for k, v in params])
        md = pymqi.MD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST, ReplyToQ=reply_name)
        pymqi.Queue(conn, "SYSTEM.ADMIN.COMMAND.QUEUE").put(body, md)
        out = []
        while True:
            gmo = pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=10_000)
            msg = pcf.decode(reply.get(None, pymqi.MD(), gmo))
            out.append(msg)
            if msg.header.control == F.MQCFC_LAST:
                return out
    finally:
        conn.disconnect()


def _check(params: list[tuple[int, int, Any]], where: str) -> list[str]:
    bad, seen = [], set()
    for ptype, pid, value in params:
        names = _names(pid)
        if not any(n.startswith(FAMILIES.get(ptype, ("?",))) for n in names):
            bad.append(f"{where}: parameter {pid} ({sorted(names)}) is not one MQ defines for PCF type {ptype}")
        if pid in seen:
            bad.append(f"{where}: parameter {pid} twice")
        seen.add(pid)
        if ptype == F.MQCFT_GROUP:
            bad += _check(value, f"{where} group {pid}")
    return bad


@pytest.mark.parametrize("command, params", INQUIRIES, ids=lambda v: str(v) if isinstance(v, int) else "")
def test_every_response_parameter_is_mqs_for_its_type(qm: Any, command: int, params: list[tuple[int, Any]]) -> None:
    replies = ask(qm, command, params)
    assert replies and all(r.header.comp_code == 0 for r in replies), [(r.header.reason) for r in replies]
    assert all(r.header.type == F.MQCFT_RESPONSE and r.header.command == command for r in replies)
    assert [p for r in replies for p in _check(r.params, str(command))] == []


def test_the_listener_answers_the_documented_parameters(qm: Any) -> None:
    """Inquire Listener (Response) on Linux: ListenerName, AlterationDate, AlterationTime,
    Backlog, IPAddress, ListenerDesc, Port, StartMode, TransportType (Adapter, Commands, LocalName,
    NetbiosNames, Sessions, Socket and TPName are Windows' only). Inquire Channel Listener Status
    (Response): those of the running instance with Status, ProcessId, StartDate and StartTime."""
    (lst,) = [r for r in ask(qm, F.MQCMD_INQUIRE_LISTENER, [(F.MQCACH_LISTENER_NAME, "PP.LSTR")])]
    got = {pid: (ptype, value) for ptype, pid, value in lst.params}
    assert set(got) == {F.MQCACH_LISTENER_NAME, C.MQCA_ALTERATION_DATE, C.MQCA_ALTERATION_TIME, F.MQIACH_BACKLOG,
                        F.MQCACH_IP_ADDRESS, F.MQCACH_LISTENER_DESC, F.MQIACH_PORT, F.MQIACH_LISTENER_CONTROL,
                        F.MQIACH_XMIT_PROTOCOL_TYPE}
    assert got[F.MQIACH_PORT] == (F.MQCFT_INTEGER, 0) and got[F.MQIACH_XMIT_PROTOCOL_TYPE][1] == C.MQXPT_TCP
    (st,) = ask(qm, F.MQCMD_INQUIRE_LISTENER_STATUS, [(F.MQCACH_LISTENER_NAME, "PP.LSTR")])
    status = {pid: value for _t, pid, value in st.params}
    assert set(status) == {F.MQCACH_LISTENER_NAME, F.MQIACH_LISTENER_STATUS, F.MQIACF_PROCESS_ID,
                           F.MQCACH_LISTENER_START_DATE, F.MQCACH_LISTENER_START_TIME, F.MQCACH_LISTENER_DESC,
                           F.MQIACH_XMIT_PROTOCOL_TYPE, F.MQIACH_LISTENER_CONTROL, F.MQCACH_IP_ADDRESS,
                           F.MQIACH_PORT, F.MQIACH_BACKLOG}
    assert status[F.MQIACH_LISTENER_STATUS] == C.MQSVC_STATUS_RUNNING and status[F.MQIACF_PROCESS_ID] > 0
    assert status[F.MQIACH_PORT] > 0                       # the port it listens on (PORT(0): one chosen)
