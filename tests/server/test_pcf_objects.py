"""PCF on every kind of definition (admin/objects.py) and on who is connected (Inquire and Stop
Connection, DISPLAY CONN, STOP CONN), through pymqi's PCFExecute against a real queue manager,
with MQSC's view of the same object checked beside each change."""
from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.pymqi import CMQC, CMQCFC, CMQXC
from mqlite.testing import Harness

C, F, X = CMQC, CMQCFC, CMQXC


@pytest.fixture(scope="module")
def qm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    h = Harness(str(tmp_path_factory.mktemp("pcfobj")))
    try:
        yield h.add("OBJQM", "DEFINE QLOCAL(CONN.Q)\nDEFINE NAMELIST(NL.ONE) NAMES(A,B) DESCR('one')\n"
                             "DEFINE LISTENER(L.ONE) TRPTYPE(TCP) PORT(0) CONTROL(MANUAL)\n")
    finally:
        h.close()


@pytest.fixture
def pcf(qm: Any) -> Iterator[Any]:
    conn = qm.bindings()
    p = pymqi.PCFExecute(conn)
    yield p
    p.disconnect()
    conn.disconnect()


def rc(fn: Any, *args: Any) -> int:
    with pytest.raises(pymqi.MQMIError) as e:
        fn(*args)
    return e.value.reason


# --- one family for every kind of definition --------------------------------------------------
# (name parameter, create, copy, change, delete, inquire, names command or None, names list,
#  from/to parameters, the type parameter and value a create needs, an attribute set and read back
#  (selector, value, MQSC keyword and display), the MQSC object word)
KINDS = [
    ("channel", F.MQCACH_CHANNEL_NAME, F.MQCMD_CREATE_CHANNEL, F.MQCMD_COPY_CHANNEL, F.MQCMD_CHANGE_CHANNEL,
     F.MQCMD_DELETE_CHANNEL, F.MQCMD_INQUIRE_CHANNEL, F.MQCMD_INQUIRE_CHANNEL_NAMES, F.MQCACH_CHANNEL_NAMES,
     (F.MQCACF_FROM_CHANNEL_NAME, F.MQCACF_TO_CHANNEL_NAME), (F.MQIACH_CHANNEL_TYPE, C.MQCHT_SVRCONN),
     (F.MQIACH_MAX_INSTANCES, 7, "MAXINST(7)"), "CHANNEL"),
    ("namelist", C.MQCA_NAMELIST_NAME, F.MQCMD_CREATE_NAMELIST, F.MQCMD_COPY_NAMELIST, F.MQCMD_CHANGE_NAMELIST,
     F.MQCMD_DELETE_NAMELIST, F.MQCMD_INQUIRE_NAMELIST, F.MQCMD_INQUIRE_NAMELIST_NAMES, F.MQCACF_NAMELIST_NAMES,
     (F.MQCACF_FROM_NAMELIST_NAME, F.MQCACF_TO_NAMELIST_NAME), None,
     (C.MQCA_NAMELIST_DESC, b"made by PCF", "DESCR(made by PCF)"), "NAMELIST"),
    ("listener", F.MQCACH_LISTENER_NAME, F.MQCMD_CREATE_LISTENER, F.MQCMD_COPY_LISTENER, F.MQCMD_CHANGE_LISTENER,
     F.MQCMD_DELETE_LISTENER, F.MQCMD_INQUIRE_LISTENER, None, None,
     (F.MQCACF_FROM_LISTENER_NAME, F.MQCACF_TO_LISTENER_NAME), None,
     (F.MQIACH_BACKLOG, 42, "BACKLOG(42)"), "LISTENER"),
    ("authinfo", C.MQCA_AUTH_INFO_NAME, F.MQCMD_CREATE_AUTH_INFO, F.MQCMD_COPY_AUTH_INFO, F.MQCMD_CHANGE_AUTH_INFO,
     F.MQCMD_DELETE_AUTH_INFO, F.MQCMD_INQUIRE_AUTH_INFO, F.MQCMD_INQUIRE_AUTH_INFO_NAMES, F.MQCACF_AUTH_INFO_NAMES,
     (F.MQCACF_FROM_AUTH_INFO_NAME, F.MQCACF_TO_AUTH_INFO_NAME), (C.MQIA_AUTH_INFO_TYPE, C.MQAIT_IDPW_OS),
     (C.MQIA_AUTHENTICATION_FAIL_DELAY, 3, "FAILDLAY(3)"), "AUTHINFO"),
    ("process", C.MQCA_PROCESS_NAME, F.MQCMD_CREATE_PROCESS, F.MQCMD_COPY_PROCESS, F.MQCMD_CHANGE_PROCESS,
     F.MQCMD_DELETE_PROCESS, F.MQCMD_INQUIRE_PROCESS, F.MQCMD_INQUIRE_PROCESS_NAMES, F.MQCACF_PROCESS_NAMES,
     (F.MQCACF_FROM_PROCESS_NAME, F.MQCACF_TO_PROCESS_NAME), None,
     (C.MQIA_APPL_TYPE, C.MQAT_WINDOWS, "APPLTYPE(WINDOWS)"), "PROCESS"),
    ("service", C.MQCA_SERVICE_NAME, F.MQCMD_CREATE_SERVICE, F.MQCMD_COPY_SERVICE, F.MQCMD_CHANGE_SERVICE,
     F.MQCMD_DELETE_SERVICE, F.MQCMD_INQUIRE_SERVICE, None, None,
     (F.MQCACF_FROM_SERVICE_NAME, F.MQCACF_TO_SERVICE_NAME), None,
     (C.MQIA_SERVICE_CONTROL, C.MQSVC_CONTROL_Q_MGR, "CONTROL(QMGR)"), "SERVICE"),
    ("comminfo", C.MQCA_COMM_INFO_NAME, F.MQCMD_CREATE_COMM_INFO, F.MQCMD_COPY_COMM_INFO, F.MQCMD_CHANGE_COMM_INFO,
     F.MQCMD_DELETE_COMM_INFO, F.MQCMD_INQUIRE_COMM_INFO, None, None,
     (F.MQCACF_FROM_COMM_INFO_NAME, F.MQCACF_TO_COMM_INFO_NAME), None,
     (F.MQIACH_PORT, 2001, "PORT(2001)"), "COMMINFO"),
]


@pytest.mark.parametrize("kind", KINDS, ids=[k[0] for k in KINDS])
def test_every_kind_is_created_copied_changed_inquired_and_deleted(qm: Any, pcf: Any, kind: tuple) -> None:
    (word, name, create, copy, change, delete, inquire, names_cmd, names_list, (frm, to), type_parm,
     (sel, value, shown), mqsc) = kind
    run = pcf.run
    base = f"PCF.{word.upper()}".encode()
    typed = {type_parm[0]: type_parm[1]} if type_parm else {}
    run(create, {name: base, **typed, sel: value})
    (got,) = run(inquire, {name: base})
    assert got[name].strip() == base and got[sel] == (value.ljust(64) if isinstance(value, bytes) else value)
    assert shown in qm.mqsc(f"DISPLAY {mqsc}({base.decode()}) ALL").stdout
    # A second create is refused (4001), and REPLACE replaces.
    assert rc(run, create, {name: base, **typed}) == F.MQRCCF_OBJECT_ALREADY_EXISTS
    run(create, {name: base, **typed, sel: value, F.MQIACF_REPLACE: F.MQRP_YES})
    # Copy takes the source's attributes; change alters one and leaves the copy as it was.
    run(copy, {frm: base, to: base + b".COPY"})
    changed = b"changed" if isinstance(value, bytes) else value + 1
    run(change, {name: base, sel: changed, **typed})
    (orig,) = run(inquire, {name: base, _attrs(inquire): [sel]})
    (cp,) = run(inquire, {name: base + b".COPY"})
    assert orig[sel] == (changed.ljust(64) if isinstance(changed, bytes) else changed)
    assert cp[sel] == (value.ljust(64) if isinstance(value, bytes) else value)
    # Generic inquiries, and the names command where MQ has one.
    found = run(inquire, {name: base + b"*"})
    assert sorted(r[name].strip() for r in found) == [base, base + b".COPY"]
    if names_cmd is not None:
        (listed,) = run(names_cmd, {name: base + b"*"})
        assert [n.strip() for n in listed[names_list]] == [base, base + b".COPY"]
        assert run(names_cmd, {name: b"NO.SUCH*"}) == [{names_list: []}]
    # Unknown names and wrong attributes get MQ's reasons, and nothing changes.
    assert rc(run, inquire, {name: b"NO.SUCH.OBJECT"}) == C.MQRC_UNKNOWN_OBJECT_NAME
    assert rc(run, change, {name: b"NO.SUCH.OBJECT", **typed}) == C.MQRC_UNKNOWN_OBJECT_NAME
    assert rc(run, copy, {frm: b"NO.SUCH.OBJECT", to: b"X"}) == C.MQRC_UNKNOWN_OBJECT_NAME
    assert rc(run, change, {name: base, C.MQIA_MAX_Q_DEPTH: 5, **typed}) == F.MQRCCF_CFIN_PARM_ID_ERROR
    (after,) = run(inquire, {name: base, _attrs(inquire): [sel]})
    assert after[sel] == orig[sel]
    run(delete, {name: base})
    run(delete, {name: base + b".COPY"})
    assert rc(run, inquire, {name: base}) == C.MQRC_UNKNOWN_OBJECT_NAME
    assert rc(run, delete, {name: base}) == C.MQRC_UNKNOWN_OBJECT_NAME


def _attrs(inquire: int) -> int:
    return {F.MQCMD_INQUIRE_CHANNEL: F.MQIACF_CHANNEL_ATTRS, F.MQCMD_INQUIRE_NAMELIST: F.MQIACF_NAMELIST_ATTRS,
            F.MQCMD_INQUIRE_LISTENER: F.MQIACF_LISTENER_ATTRS,
            F.MQCMD_INQUIRE_AUTH_INFO: F.MQIACF_AUTH_INFO_ATTRS, F.MQCMD_INQUIRE_PROCESS: F.MQIACF_PROCESS_ATTRS,
            F.MQCMD_INQUIRE_SERVICE: F.MQIACF_SERVICE_ATTRS,
            F.MQCMD_INQUIRE_COMM_INFO: F.MQIACF_COMM_INFO_ATTRS}[inquire]


def test_types_are_checked_and_selected(pcf: Any) -> None:
    """A channel needs its type to be created, a wrong one is 3034; an inquiry's type selects;
    an AUTHINFO's type cannot change (4002) and selects too."""
    run = pcf.run
    assert rc(run, F.MQCMD_CREATE_CHANNEL, {F.MQCACH_CHANNEL_NAME: b"T.CHL"}) == F.MQRCCF_PARM_COUNT_TOO_SMALL
    assert rc(run, F.MQCMD_CREATE_CHANNEL, {F.MQCACH_CHANNEL_NAME: b"T.CHL", F.MQIACH_CHANNEL_TYPE: 99}) == \
        F.MQRCCF_CHANNEL_TYPE_ERROR
    run(F.MQCMD_CREATE_CHANNEL, {F.MQCACH_CHANNEL_NAME: b"T.CHL", F.MQIACH_CHANNEL_TYPE: C.MQCHT_RECEIVER})
    rcvrs = run(F.MQCMD_INQUIRE_CHANNEL, {F.MQCACH_CHANNEL_NAME: b"*", F.MQIACH_CHANNEL_TYPE: C.MQCHT_RECEIVER})
    assert {r[F.MQIACH_CHANNEL_TYPE] for r in rcvrs} == {C.MQCHT_RECEIVER}
    assert b"T.CHL" in [r[F.MQCACH_CHANNEL_NAME].strip() for r in rcvrs]
    assert rc(run, F.MQCMD_CHANGE_CHANNEL, {F.MQCACH_CHANNEL_NAME: b"T.CHL",
                                            F.MQIACH_CHANNEL_TYPE: C.MQCHT_SENDER}) == F.MQRCCF_OBJECT_WRONG_TYPE
    # Compression is an integer list in PCF, as MQ carries it; statistics attributes are answered.
    (ch,) = run(F.MQCMD_INQUIRE_CHANNEL, {F.MQCACH_CHANNEL_NAME: b"T.CHL"})
    assert ch[F.MQIACH_HDR_COMPRESSION] == [X.MQCOMPRESS_NONE] and ch[C.MQIA_STATISTICS_CHANNEL] == C.MQMON_Q_MGR
    run(F.MQCMD_CHANGE_CHANNEL, {F.MQCACH_CHANNEL_NAME: b"T.CHL", F.MQIACH_CHANNEL_TYPE: C.MQCHT_RECEIVER,
                                 F.MQIACH_MSG_COMPRESSION: [X.MQCOMPRESS_ZLIBFAST]})
    (ch,) = run(F.MQCMD_INQUIRE_CHANNEL, {F.MQCACH_CHANNEL_NAME: b"T.CHL"})
    assert ch[F.MQIACH_MSG_COMPRESSION] == [X.MQCOMPRESS_ZLIBFAST]
    (qmgr,) = run(F.MQCMD_INQUIRE_Q_MGR, {})
    assert qmgr[C.MQIA_STATISTICS_Q] == C.MQMON_OFF and qmgr[C.MQIA_SUITE_B_STRENGTH] == [C.MQ_SUITE_B_NONE]
    run(F.MQCMD_DELETE_CHANNEL, {F.MQCACH_CHANNEL_NAME: b"T.CHL"})
    run(F.MQCMD_CREATE_AUTH_INFO, {C.MQCA_AUTH_INFO_NAME: b"T.AI", C.MQIA_AUTH_INFO_TYPE: C.MQAIT_OCSP})
    assert rc(run, F.MQCMD_CHANGE_AUTH_INFO, {C.MQCA_AUTH_INFO_NAME: b"T.AI",
                                              C.MQIA_AUTH_INFO_TYPE: C.MQAIT_IDPW_OS}) == F.MQRCCF_OBJECT_WRONG_TYPE
    ocsp = run(F.MQCMD_INQUIRE_AUTH_INFO_NAMES, {C.MQCA_AUTH_INFO_NAME: b"*", C.MQIA_AUTH_INFO_TYPE: C.MQAIT_OCSP})
    assert [n.strip() for n in ocsp[0][F.MQCACF_AUTH_INFO_NAMES]] == [b"SYSTEM.DEFAULT.AUTHINFO.OCSP", b"T.AI"]
    run(F.MQCMD_DELETE_AUTH_INFO, {C.MQCA_AUTH_INFO_NAME: b"T.AI"})


def test_topic_copy_needs_its_own_topic_string(qm: Any, pcf: Any) -> None:
    run = pcf.run
    run(F.MQCMD_CREATE_TOPIC, {C.MQCA_TOPIC_NAME: b"T.TOP", C.MQCA_TOPIC_STRING: b"t/one",
                               C.MQIA_DEF_PRIORITY: 6})
    assert rc(run, F.MQCMD_COPY_TOPIC, {F.MQCACF_FROM_TOPIC_NAME: b"T.TOP", F.MQCACF_TO_TOPIC_NAME: b"T.TOP2",
                                        C.MQCA_TOPIC_STRING: b"t/one"}) == F.MQRCCF_TOPICSTR_ALREADY_EXISTS
    run(F.MQCMD_COPY_TOPIC, {F.MQCACF_FROM_TOPIC_NAME: b"T.TOP", F.MQCACF_TO_TOPIC_NAME: b"T.TOP2",
                             C.MQCA_TOPIC_STRING: b"t/two"})
    assert "DEFPRTY(6)" in qm.mqsc("DISPLAY TOPIC(T.TOP2) DEFPRTY").stdout
    (names,) = run(F.MQCMD_INQUIRE_TOPIC_NAMES, {C.MQCA_TOPIC_NAME: b"T.TOP*"})
    assert [n.strip() for n in names[F.MQCACF_TOPIC_NAMES]] == [b"T.TOP", b"T.TOP2"]
    (t,) = run(F.MQCMD_INQUIRE_TOPIC, {C.MQCA_TOPIC_NAME: b"T.TOP2"})
    assert t[C.MQIA_TOPIC_TYPE] == C.MQTOPT_LOCAL and t[C.MQCA_TOPIC_STRING].strip() == b"t/two"
    for n in (b"T.TOP", b"T.TOP2"):
        run(F.MQCMD_DELETE_TOPIC, {C.MQCA_TOPIC_NAME: n})


def test_channel_attributes_mq_returns(pcf: Any) -> None:
    """Inquire Channel answers SHARECNV, KAINT, MAXINST and MAXINSTC of a SVRCONN (DataDog reads them)."""
    (ch,) = pcf.run(F.MQCMD_INQUIRE_CHANNEL, {F.MQCACH_CHANNEL_NAME: b"SYSTEM.DEF.SVRCONN"})
    assert (ch[F.MQIACH_SHARING_CONVERSATIONS], ch[F.MQIACH_KEEP_ALIVE_INTERVAL], ch[F.MQIACH_MAX_INSTANCES],
            ch[F.MQIACH_MAX_INSTS_PER_CLIENT]) == (10, -1, 999999999, 999999999)


def test_a_generic_inquiry_lists_amqp_channels_with_their_type(pcf: Any) -> None:
    """An AMQP channel (defined with MQSC) is listed by Inquire Channel with ChannelType MQCHT_AMQP;
    IBM's ibmmq example dis_channels.py (SYSTEM.*) got 3008 while the type had no PCF value."""
    chls = pcf.run(F.MQCMD_INQUIRE_CHANNEL, {F.MQCACH_CHANNEL_NAME: b"SYSTEM.*"})
    types = {c[F.MQCACH_CHANNEL_NAME].strip(): c[F.MQIACH_CHANNEL_TYPE] for c in chls}
    assert types[b"SYSTEM.DEF.AMQP"] == X.MQCHT_AMQP and types[b"SYSTEM.DEF.SVRCONN"] == C.MQCHT_SVRCONN
    (names,) = pcf.run(F.MQCMD_INQUIRE_CHANNEL_NAMES, {F.MQCACH_CHANNEL_NAME: b"SYSTEM.DEF.*"})
    assert b"SYSTEM.DEF.AMQP" in [n.strip() for n in names[F.MQCACH_CHANNEL_NAMES]]
    amqp = pcf.run(F.MQCMD_INQUIRE_CHANNEL, {F.MQCACH_CHANNEL_NAME: b"*", F.MQIACH_CHANNEL_TYPE: X.MQCHT_AMQP})
    assert [c[F.MQCACH_CHANNEL_NAME].strip() for c in amqp] == [b"SYSTEM.DEF.AMQP"]
    assert rc(pcf.run, F.MQCMD_CREATE_CHANNEL, {F.MQCACH_CHANNEL_NAME: b"T.AMQP",      # (MQSC defines them)
                                                F.MQIACH_CHANNEL_TYPE: X.MQCHT_AMQP}) == F.MQRCCF_CHANNEL_TYPE_ERROR


# --- who is connected -------------------------------------------------------------------------
def _client_conn(pcf: Any, appl: bytes) -> bytes:
    conns = pcf.run(F.MQCMD_INQUIRE_CONNECTION, {F.MQBACF_GENERIC_CONNECTION_ID: b""})
    return next(c[F.MQBACF_CONNECTION_ID] for c in conns if c[F.MQCACF_APPL_TAG].strip() == appl
                and c[F.MQCACH_CHANNEL_NAME].strip())


def test_inquire_connection_shows_a_client_its_handles_and_its_unit_of_work(qm: Any, pcf: Any) -> None:
    client = qm.client()
    try:
        q = pymqi.Queue(client, "CONN.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        q.put(b"held", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        appl = pcf.run(F.MQCMD_INQUIRE_CONNECTION, {F.MQBACF_GENERIC_CONNECTION_ID: b""})
        mine = [c for c in appl if c[F.MQCACH_CHANNEL_NAME].strip() == b"APP.SVRCONN"]
        assert len(mine) == 1
        c = mine[0]
        assert c[F.MQBACF_CONNECTION_ID][:16] == b"AMQCOBJQM".ljust(16)
        assert (c[C.MQIA_APPL_TYPE], c[F.MQIACF_UOW_STATE], c[F.MQCACH_CONNECTION_NAME].strip()) == (
            C.MQAT_USER, F.MQUOWST_ACTIVE, b"127.0.0.1")
        assert c[F.MQCACF_UOW_START_DATE].strip() and c[F.MQIACF_PROCESS_ID] > 0
        # The queue manager's own connections are SYSTEM and never match an ApplType(USER) filter.
        users = pcf.run(F.MQCMD_INQUIRE_CONNECTION, {F.MQBACF_GENERIC_CONNECTION_ID: b""},
                        [pymqi.Filter(C.MQIA_APPL_TYPE).equal(C.MQAT_USER)])
        assert all(u[C.MQIA_APPL_TYPE] == C.MQAT_USER for u in users) and len(users) >= 2   # the client, us
        handles = pcf.run(F.MQCMD_INQUIRE_CONNECTION, {F.MQBACF_CONNECTION_ID: c[F.MQBACF_CONNECTION_ID],
                                                       F.MQIACF_CONN_INFO_TYPE: F.MQIACF_CONN_INFO_HANDLE})
        assert [(h[F.MQCACF_OBJECT_NAME].strip(), h[F.MQIACF_OBJECT_TYPE], h[F.MQIACF_OPEN_OPTIONS])
                for h in handles] == [(b"CONN.Q", C.MQOT_Q, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)]
        # The same, in MQSC.
        name = c[F.MQBACF_CONNECTION_ID][16:].hex().upper()
        out = qm.mqsc(f"DISPLAY CONN({name}) TYPE(ALL) ALL").stdout
        for item in (f"CONN({name})", "TYPE(CONN)", "CHANNEL(APP.SVRCONN)", "UOWSTATE(ACTIVE)", "APPLTYPE(USER)",
                     "TYPE(HANDLE)", "OBJNAME(CONN.Q)", "OPENOPTS(MQOO_INPUT_SHARED,MQOO_OUTPUT)"):
            assert item in out, (item, out)
        where = qm.mqsc("DISPLAY CONN(*) WHERE(CHANNEL EQ APP.SVRCONN) APPLTAG").stdout
        assert where.count("AMQ8276I") == 1 and f"CONN({name})" in where
        assert "AMQ8461E" in qm.mqsc("DISPLAY CONN(0000000000000000)").stdout
        q.close()
    finally:
        client.backout()
        client.disconnect()


def test_application_status_counts_instances_and_says_which_could_move(qm: Any, pcf: Any) -> None:
    """Two bindings connections of one process are one instance (NOTCLIENT); a plain client is
    another (NOTRECONN); a client that asked for reconnection is the movable one. MQSC and PCF
    show the same, and a name nobody uses gets MQRCCF_APPL_STATUS_NOT_FOUND."""
    extra = qm.bindings()
    plain = qm.client()
    cd = pymqi.CD(ChannelName=b"APP.SVRCONN", ConnectionName=qm.conname.encode())
    movable = pymqi.QueueManager(None)
    movable.connect_with_options(qm.name, cd=cd, opts=C.MQCNO_RECONNECT)
    try:
        name = os.path.basename(sys.argv[0])[-28:]
        out = qm.mqsc(f"DISPLAY APSTATUS('{name}')\nDISPLAY APSTATUS('{name}') TYPE(LOCAL)\n").stdout
        assert "COUNT(3)" in out and "MOVCOUNT(1)" in out and "BALANCED(NOTAPPLIC)" in out
        local = [b for b in out.split("MQL8015I")[1:] if re.search(r"APPLNAME\([^)]*\)\s+TYPE\(LOCAL\)", b)]
        assert sorted(re.search(r"IMMREASN\((\w+)\)", b).group(1) for b in local) == ["NONE", "NOTCLIENT", "NOTRECONN"]
        assert [("CONNS(2)" in b, "MOVABLE(NO)" in b) for b in local if "NOTCLIENT" in b] == [(True, True)]
        assert [("CONNS(1)" in b, "IMMCOUNT(0)" in b) for b in local if "MOVABLE(YES)" in b] == [(True, True)]
        (appl,) = pcf.run(F.MQCMD_INQUIRE_APPL_STATUS, {F.MQCACF_APPL_NAME: name.encode()})
        assert (appl[F.MQIACF_APPL_COUNT], appl[F.MQIACF_MOVABLE_APPL_COUNT]) == (3, 1)
        rows = pcf.run(F.MQCMD_INQUIRE_APPL_STATUS, {F.MQCACF_APPL_NAME: name.encode(),
                                                      F.MQIACF_APPL_INFO_TYPE: F.MQIACF_APPL_INFO_LOCAL})
        assert sorted(r[F.MQIACF_APPL_IMMOVABLE_REASON] for r in rows) == \
            [F.MQIMMREASON_NONE, F.MQIMMREASON_NOT_CLIENT, F.MQIMMREASON_NOT_RECONNECTABLE]
        assert all(len(r[F.MQBACF_CONN_TAG]) == 24 for r in rows)
        assert rc(pcf.run, F.MQCMD_INQUIRE_APPL_STATUS, {F.MQCACF_APPL_NAME: b"NOBODY.USES.THIS"}) == \
            F.MQRCCF_APPL_STATUS_NOT_FOUND
        assert "MQL8014I" in qm.mqsc("DISPLAY APSTATUS(NOBODY.USES.THIS)\n").stdout
        # The reconnection asked for is the connection's, as DISPLAY CONN shows it.
        assert "MQCNO_RECONNECT" in qm.mqsc("DISPLAY CONN(*) WHERE(CONNOPTS CT MQCNO_RECONNECT) CONNOPTS\n").stdout
    finally:
        for c in (extra, plain, movable):
            c.disconnect()


def test_stop_connection_breaks_it_and_backs_out_its_unit_of_work(qm: Any, pcf: Any) -> None:
    client = qm.client()
    q = pymqi.Queue(client, "CONN.Q", C.MQOO_OUTPUT)
    q.put(b"never committed", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
    conn_id = _client_conn(pcf, _tag())
    pcf.run(F.MQCMD_STOP_CONNECTION, {F.MQBACF_CONNECTION_ID: conn_id})
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            q.put(b"after")
        except pymqi.MQMIError as e:
            assert e.reason == C.MQRC_CONNECTION_BROKEN
            break
        time.sleep(0.05)
    else:
        pytest.fail("the stopped connection still works")
    deadline = time.monotonic() + 10
    while "UNCOM(NO)" not in qm.mqsc("DISPLAY QSTATUS(CONN.Q) UNCOM").stdout and time.monotonic() < deadline:
        time.sleep(0.05)
    out = qm.mqsc("DISPLAY QSTATUS(CONN.Q) CURDEPTH UNCOM").stdout
    assert "CURDEPTH(0)" in out and "UNCOM(NO)" in out
    # Gone from the list; stopping it again, or a connection of the queue manager's own, is refused.
    ids = [c[F.MQBACF_CONNECTION_ID] for c in pcf.run(F.MQCMD_INQUIRE_CONNECTION,
                                                          {F.MQBACF_GENERIC_CONNECTION_ID: b""})]
    assert conn_id not in ids
    assert rc(pcf.run, F.MQCMD_STOP_CONNECTION, {F.MQBACF_CONNECTION_ID: conn_id}) == F.MQRCCF_CONNECTION_ID_ERROR
    system = next(c[F.MQBACF_CONNECTION_ID] for c in pcf.run(F.MQCMD_INQUIRE_CONNECTION,
                                                              {F.MQBACF_GENERIC_CONNECTION_ID: b""})
                  if c[C.MQIA_APPL_TYPE] == C.MQAT_QMGR)
    assert rc(pcf.run, F.MQCMD_STOP_CONNECTION, {F.MQBACF_CONNECTION_ID: system}) == F.MQRCCF_CONN_NOT_STOPPED
    # STOP CONN in MQSC does the same.
    other = qm.client()
    name = _client_conn(pcf, _tag())[16:].hex().upper()
    assert "AMQ8457I" in qm.mqsc(f"STOP CONN({name})").stdout
    with pytest.raises(pymqi.MQMIError) as e:
        for _ in range(200):
            pymqi.Queue(other, "CONN.Q", C.MQOO_OUTPUT).put(b"x")
            time.sleep(0.05)
    assert e.value.reason == C.MQRC_CONNECTION_BROKEN


def _tag() -> bytes:
    import os
    import sys
    return os.path.basename(sys.argv[0] or "python")[-28:].encode()


def test_client_conversations_are_svrconn_instances_in_channel_status(qm: Any, pcf: Any) -> None:
    """While a client is connected its SVRCONN has a status (MQSC and PCF), with the calls it has
    served, the bytes both ways and its application; when it disconnects the status goes (3065)."""
    client = qm.client()
    try:
        q = pymqi.Queue(client, "CONN.Q", C.MQOO_OUTPUT)
        for _ in range(3):
            q.put(b"counted")
        (st,) = pcf.run(F.MQCMD_INQUIRE_CHANNEL_STATUS, {F.MQCACH_CHANNEL_NAME: b"APP.SVRCONN"})
        assert (st[F.MQIACH_CHANNEL_TYPE], st[F.MQIACH_CHANNEL_STATUS]) == (C.MQCHT_SVRCONN, F.MQCHS_RUNNING)
        assert st[F.MQIACH_MSGS] >= 4 and st[F.MQIACH_BYTES_SENT] > 0 and st[F.MQIACH_BYTES_RECEIVED] > 3 * 7
        assert st[F.MQCACH_REMOTE_APPL_TAG].strip() == _tag() and st[F.MQCACH_LAST_MSG_DATE].strip()
        out = qm.mqsc("DISPLAY CHSTATUS(APP.SVRCONN) ALL").stdout
        for item in ("CHLTYPE(SVRCONN)", "STATUS(RUNNING)", "SUBSTATE(RECEIVE)", "CONNAME(127.0.0.1)", "CURSHCNV(1)"):
            assert item in out, (item, out)
        assert "LONGRTS" not in out            # a sender's field, not a server connection's
        q.close()
    finally:
        client.disconnect()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if "AMQ8420I" in qm.mqsc("DISPLAY CHSTATUS(APP.SVRCONN)").stdout:
            break
        time.sleep(0.05)
    assert rc(pcf.run, F.MQCMD_INQUIRE_CHANNEL_STATUS, {F.MQCACH_CHANNEL_NAME: b"APP.SVRCONN"}) == \
        F.MQRCCF_CHL_STATUS_NOT_FOUND


# --- status and operator commands -------------------------------------------------------------
def test_queue_status_monitoring_and_reset_statistics(qm: Any, pcf: Any) -> None:
    """MONQ turns on MSGAGE and QTIME (PCF -1 and MQSC blank without it); Reset Queue Statistics
    gives what happened since the last reset and starts again."""
    run = pcf.run
    qm.mqsc("DEFINE QLOCAL(MON.Q) MONQ(HIGH)\nDEFINE QLOCAL(QUIET.Q)\n", check=True)
    run(F.MQCMD_RESET_Q_STATS, {C.MQCA_Q_NAME: b"MON.Q"})
    client = qm.client()
    try:
        q = pymqi.Queue(client, "MON.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        for i in range(4):
            q.put(b"m%d" % i)
        time.sleep(0.3)
        q.get()
        q.get()
        (st,) = run(F.MQCMD_INQUIRE_Q_STATUS, {C.MQCA_Q_NAME: b"MON.Q"})
        assert (st[C.MQIA_CURRENT_Q_DEPTH], st[C.MQIA_MONITORING_Q], st[F.MQIACF_UNCOMMITTED_MSGS]) == (
            2, C.MQMON_HIGH, 0)
        assert st[F.MQIACF_OLDEST_MSG_AGE] >= 0 and st[F.MQCACF_LAST_GET_DATE].strip()
        short, long_ = st[F.MQIACF_Q_TIME_INDICATOR]
        assert short >= 250_000 and long_ >= 250_000             # microseconds on the queue
        (quiet,) = run(F.MQCMD_INQUIRE_Q_STATUS, {C.MQCA_Q_NAME: b"QUIET.Q"})
        assert quiet[F.MQIACF_OLDEST_MSG_AGE] == -1 and quiet[F.MQIACF_Q_TIME_INDICATOR] == [-1, -1]
        out = qm.mqsc("DISPLAY QSTATUS(QUIET.Q)").stdout
        assert "MSGAGE( )" in out and "QTIME( , )" in out and "MONQ(QMGR)" in out
        assert "MONQ(HIGH)" in qm.mqsc("DISPLAY QSTATUS(MON.Q)").stdout
        # The queue manager's MONQ reaches the queues that say QMGR.
        qm.mqsc("ALTER QMGR MONQ(LOW)", check=True)
        (quiet,) = run(F.MQCMD_INQUIRE_Q_STATUS, {C.MQCA_Q_NAME: b"QUIET.Q"})
        assert quiet[F.MQIACF_OLDEST_MSG_AGE] == 0
        qm.mqsc("ALTER QMGR MONQ(OFF)", check=True)
        # Who has it open.
        (h,) = run(F.MQCMD_INQUIRE_Q_STATUS, {C.MQCA_Q_NAME: b"MON.Q", F.MQIACF_Q_STATUS_TYPE: F.MQIACF_Q_HANDLE})
        assert (h[F.MQIACF_OPEN_INPUT_TYPE], h[F.MQIACF_OPEN_OUTPUT], h[F.MQCACF_APPL_TAG].strip()) == (
            F.MQQSO_SHARED, F.MQQSO_YES, _tag())
        assert run(F.MQCMD_INQUIRE_Q_STATUS, {C.MQCA_Q_NAME: b"MON.Q", F.MQIACF_Q_STATUS_TYPE: F.MQIACF_Q_HANDLE,
                                             F.MQIACF_OPEN_TYPE: F.MQQSOT_INPUT})
        (r,) = run(F.MQCMD_RESET_Q_STATS, {C.MQCA_Q_NAME: b"MON.Q"})
        assert (r[C.MQIA_MSG_ENQ_COUNT], r[C.MQIA_MSG_DEQ_COUNT], r[C.MQIA_HIGH_Q_DEPTH]) == (4, 2, 4)
        (r,) = run(F.MQCMD_RESET_Q_STATS, {C.MQCA_Q_NAME: b"MON.Q"})
        assert (r[C.MQIA_MSG_ENQ_COUNT], r[C.MQIA_MSG_DEQ_COUNT], r[C.MQIA_HIGH_Q_DEPTH]) == (0, 0, 2)
        assert r[C.MQIA_TIME_SINCE_RESET] >= 0
        q.close()
    finally:
        client.disconnect()
    assert rc(run, F.MQCMD_RESET_Q_STATS, {C.MQCA_Q_NAME: b"NO.SUCH.Q"}) == C.MQRC_UNKNOWN_OBJECT_NAME
    qm.mqsc("DEFINE QALIAS(MON.ALIAS) TARGET(MON.Q)", check=True)
    assert rc(run, F.MQCMD_RESET_Q_STATS, {C.MQCA_Q_NAME: b"MON.ALIAS"}) == F.MQRCCF_Q_WRONG_TYPE


def test_queue_manager_and_listener_status_and_control(qm: Any, pcf: Any) -> None:
    run = pcf.run
    (st,) = run(F.MQCMD_INQUIRE_Q_MGR_STATUS)
    assert (st[C.MQCA_Q_MGR_NAME].strip(), st[F.MQIACF_Q_MGR_STATUS], st[F.MQIACF_CMD_SERVER_STATUS]) == (
        b"OBJQM", F.MQQMSTA_RUNNING, C.MQSVC_STATUS_RUNNING)
    assert st[F.MQIACF_CONNECTION_COUNT] >= 1 and st[F.MQCACF_Q_MGR_START_DATE].strip()
    shown = qm.mqsc("DISPLAY QMSTATUS ALL\n").stdout
    assert "AMQ8705I" in shown and "QMNAME(OBJQM)" in shown and "STATUS(RUNNING)" in shown
    assert f"STARTDA({st[F.MQCACF_Q_MGR_START_DATE].strip().decode()})" in shown and "CMDSERV(RUNNING)" in shown
    assert "CONNS(" not in qm.mqsc("DISPLAY QMSTATUS\n").stdout           # STATUS only, unless asked
    # The installation and the log path, as MQ's status carries them (both faces the same).
    import mqlite
    from mqlite.paths import QMPaths
    inst_path = os.path.dirname(os.path.abspath(mqlite.__file__))
    assert st[C.MQCA_INSTALLATION_NAME].strip() == b"Installation1"
    assert st[C.MQCA_INSTALLATION_PATH].strip() == inst_path.encode()
    assert st[C.MQCA_INSTALLATION_DESC].strip().startswith(b"mqlite")
    log_path = st[F.MQCACF_LOG_PATH].strip().decode()
    assert os.path.isdir(log_path) and os.path.exists(os.path.join(log_path, "qmgr.db"))
    assert log_path == QMPaths.of("OBJQM").log
    for field in ("INSTNAME(Installation1)", f"INSTPATH({inst_path})", f"LOGPATH({log_path})", "INSTDESC('mqlite"):
        assert field in shown, field
    (only,) = run(F.MQCMD_INQUIRE_Q_MGR_STATUS, {F.MQIACF_Q_MGR_STATUS_ATTRS: [F.MQCACF_LOG_PATH]})
    assert set(only) == {C.MQCA_Q_MGR_NAME, F.MQCACF_LOG_PATH}
    assert rc(run, F.MQCMD_INQUIRE_LISTENER_STATUS, {F.MQCACH_LISTENER_NAME: b"L.ONE"}) == \
        F.MQRCCF_LSTR_STATUS_NOT_FOUND
    run(F.MQCMD_START_CHANNEL_LISTENER, {F.MQCACH_LISTENER_NAME: b"L.ONE"})
    try:
        (ls,) = run(F.MQCMD_INQUIRE_LISTENER_STATUS, {F.MQCACH_LISTENER_NAME: b"L.*"})
        assert ls[F.MQIACH_LISTENER_STATUS] == C.MQSVC_STATUS_RUNNING and ls[F.MQIACH_PORT] > 0
        assert "STATUS(RUNNING)" in qm.mqsc("DISPLAY LSSTATUS(L.ONE)").stdout
        assert rc(run, F.MQCMD_START_CHANNEL_LISTENER, {F.MQCACH_LISTENER_NAME: b"L.ONE"}) == \
            F.MQRCCF_LISTENER_RUNNING
    finally:
        run(F.MQCMD_STOP_CHANNEL_LISTENER, {F.MQCACH_LISTENER_NAME: b"L.ONE"})
    assert rc(run, F.MQCMD_STOP_CHANNEL_LISTENER, {F.MQCACH_LISTENER_NAME: b"L.ONE"}) == F.MQRCCF_LISTENER_STOPPED
    # runmqsc's IGNSTATE(YES): stopping what is stopped (or starting what runs) is success.
    refused = qm.mqsc("STOP LISTENER(L.ONE)")
    assert refused.returncode == 10 and "not active" in refused.stdout
    ignored = qm.mqsc("STOP LISTENER(L.ONE) IGNSTATE(YES)\nDEFINE CHANNEL(NEVER.RUN) CHLTYPE(SDR) "
                      "CONNAME('127.0.0.1(1)') XMITQ(CONN.Q)\nSTOP CHANNEL(NEVER.RUN) IGNSTATE(YES)\n")
    assert ignored.returncode == 0 and "AMQ8706I" in ignored.stdout and "AMQ8019I" in ignored.stdout, ignored.stdout
    bad = qm.mqsc("STOP LISTENER(L.ONE) IGNSTATE(MAYBE)")
    assert bad.returncode == 10 and "One command has a syntax error" in bad.stdout
    assert rc(run, F.MQCMD_START_CHANNEL_LISTENER, {F.MQCACH_LISTENER_NAME: b"NO.SUCH"}) == \
        C.MQRC_UNKNOWN_OBJECT_NAME
    # Refresh Security by type; channels' reset and resolve checked before anything is done.
    run(F.MQCMD_REFRESH_SECURITY)
    run(F.MQCMD_REFRESH_SECURITY, {F.MQIACF_SECURITY_TYPE: F.MQSECTYPE_CONNAUTH})
    assert rc(run, F.MQCMD_REFRESH_SECURITY, {F.MQIACF_SECURITY_TYPE: 99}) == F.MQRCCF_PARM_VALUE_ERROR
    assert rc(run, F.MQCMD_RESET_CHANNEL, {F.MQCACH_CHANNEL_NAME: b"NO.SUCH"}) == F.MQRCCF_CHANNEL_NOT_FOUND
    assert rc(run, F.MQCMD_RESOLVE_CHANNEL, {F.MQCACH_CHANNEL_NAME: b"APP.SVRCONN", F.MQIACH_IN_DOUBT: 9}) == \
        F.MQRCCF_INDOUBT_VALUE_ERROR
    assert rc(run, F.MQCMD_RESET_CHANNEL, {F.MQCACH_CHANNEL_NAME: b"APP.SVRCONN",
                                          F.MQIACH_MSG_SEQUENCE_NUMBER: 0}) == F.MQRCCF_MSG_SEQ_NUMBER_ERROR


def test_subscription_and_topic_status(qm: Any, pcf: Any) -> None:
    run = pcf.run
    qm.mqsc("DEFINE SUB(ST.SUB) TOPICSTR('st/one') DEST(CONN.Q)", check=True)
    try:
        (s,) = run(F.MQCMD_INQUIRE_SUB_STATUS, {F.MQCACF_SUB_NAME: b"ST.*"})
        assert (s[F.MQCACF_SUB_NAME].strip(), s[F.MQIACF_DURABLE_SUBSCRIPTION], s[F.MQIACF_SUB_TYPE]) == (
            b"ST.SUB", C.MQSUB_DURABLE_YES, F.MQSUBTYPE_ADMIN)
        (by_id,) = run(F.MQCMD_INQUIRE_SUB_STATUS, {F.MQBACF_SUB_ID: s[F.MQBACF_SUB_ID]})
        assert by_id[F.MQCACF_SUB_NAME].strip() == b"ST.SUB"
        (t,) = run(F.MQCMD_INQUIRE_TOPIC_STATUS, {C.MQCA_TOPIC_STRING: b"st/one"})
        assert (t[C.MQIA_SUB_COUNT], t[C.MQIA_PUB_COUNT], t[F.MQIACF_RETAINED_PUBLICATION]) == (1, 0, F.MQQSO_NO)
        found = run(F.MQCMD_INQUIRE_TOPIC_STATUS, {C.MQCA_TOPIC_STRING: b"st/#"})
        assert [r[C.MQCA_TOPIC_STRING].strip() for r in found] == [b"st", b"st/one"]
        assert rc(run, F.MQCMD_INQUIRE_TOPIC_STATUS, {C.MQCA_TOPIC_STRING: b"no/such"}) == \
            F.MQRCCF_TOPIC_STRING_NOT_FOUND
        assert rc(run, F.MQCMD_INQUIRE_SUB_STATUS, {F.MQCACF_SUB_NAME: b"NO.SUCH"}) == C.MQRC_NO_SUBSCRIPTION
    finally:
        qm.mqsc("DELETE SUB(ST.SUB)", check=True)


# --- what monitoring tools read ---------------------------------------------------------------
# DataDog's IBM MQ check (integrations-core, ibm_mq/datadog_checks/ibm_mq/metrics.py) reads these
# from Inquire Queue, Inquire Queue Status, Reset Queue Statistics, Inquire Channel and Inquire
# Channel Status; one missing is a metric lost (or, for the status ones, a KeyError in the check).
QUEUE_ATTRS = (C.MQIA_Q_SERVICE_INTERVAL, C.MQIA_INHIBIT_PUT, C.MQIA_Q_DEPTH_LOW_LIMIT, C.MQIA_INHIBIT_GET,
               C.MQIA_HARDEN_GET_BACKOUT, C.MQIA_Q_SERVICE_INTERVAL_EVENT, C.MQIA_TRIGGER_CONTROL, C.MQIA_USAGE,
               C.MQIA_SCOPE, C.MQIA_Q_TYPE, C.MQIA_MAX_Q_DEPTH, C.MQIA_BACKOUT_THRESHOLD, C.MQIA_Q_DEPTH_HIGH_EVENT,
               C.MQIA_Q_DEPTH_LOW_EVENT, C.MQIA_TRIGGER_MSG_PRIORITY, C.MQIA_CURRENT_Q_DEPTH,
               C.MQIA_Q_DEPTH_MAX_EVENT, C.MQIA_OPEN_INPUT_COUNT, C.MQIA_DEF_PERSISTENCE, C.MQIA_TRIGGER_DEPTH,
               C.MQIA_MAX_MSG_LENGTH, C.MQIA_Q_DEPTH_HIGH_LIMIT, C.MQIA_DEF_PRIORITY, C.MQIA_DEF_INPUT_OPEN_OPTION,
               C.MQIA_MSG_DELIVERY_SEQUENCE, C.MQIA_RETENTION_INTERVAL, C.MQIA_OPEN_OUTPUT_COUNT,
               C.MQIA_TRIGGER_TYPE)
STATUS_ATTRS = (F.MQIACF_OLDEST_MSG_AGE, F.MQIACF_UNCOMMITTED_MSGS)
RESET_ATTRS = (C.MQIA_HIGH_Q_DEPTH, C.MQIA_MSG_DEQ_COUNT, C.MQIA_MSG_ENQ_COUNT, C.MQIA_TIME_SINCE_RESET)
CHANNEL_ATTRS = {"SDR": (F.MQIACH_BATCH_SIZE, F.MQIACH_BATCH_INTERVAL, F.MQIACH_LONG_RETRY, F.MQIACH_LONG_TIMER,
                         F.MQIACH_MAX_MSG_LENGTH, F.MQIACH_SHORT_RETRY, F.MQIACH_DISC_INTERVAL,
                         F.MQIACH_HB_INTERVAL, F.MQIACH_KEEP_ALIVE_INTERVAL, F.MQIACH_NPM_SPEED,
                         F.MQIACH_SHORT_TIMER),
                 "RCVR": (F.MQIACH_MR_COUNT, F.MQIACH_MR_INTERVAL, F.MQIACH_BATCH_SIZE, F.MQIACH_HB_INTERVAL),
                 "CLUSRCVR": (F.MQIACH_NETWORK_PRIORITY,),
                 "SVRCONN": (F.MQIACH_SHARING_CONVERSATIONS, F.MQIACH_MAX_MSG_LENGTH, F.MQIACH_HB_INTERVAL,
                             F.MQIACH_KEEP_ALIVE_INTERVAL, F.MQIACH_DISC_INTERVAL)}
CHSTATUS_ATTRS = (F.MQIACH_BUFFERS_RCVD, F.MQIACH_BUFFERS_SENT, F.MQIACH_BYTES_RECEIVED, F.MQIACH_BYTES_SENT,
                  F.MQIACH_CHANNEL_STATUS, F.MQIACH_MCA_STATUS, F.MQIACH_MSGS, F.MQIACH_SSL_KEY_RESETS)
# A message channel's, never a server-connection channel's: the check's own suite fails on a
# SVRCONN status that has them ("Found metrics that are not asserted").
MESSAGE_CHANNEL_ONLY = (F.MQIACH_BATCHES, F.MQIACH_INDOUBT_STATUS, F.MQIACH_CURRENT_MSGS,
                        F.MQIACH_CURRENT_SEQ_NUMBER, F.MQIACH_LAST_SEQ_NUMBER)


def test_every_field_a_monitoring_tool_reads_is_answered(qm: Any, pcf: Any) -> None:
    run = pcf.run
    qm.mqsc("DEFINE QLOCAL(WATCHED.Q) MONQ(MEDIUM)\n", check=True)
    (q,) = run(F.MQCMD_INQUIRE_Q, {C.MQCA_Q_NAME: b"WATCHED.Q", C.MQIA_Q_TYPE: C.MQQT_ALL})
    assert [s for s in QUEUE_ATTRS if s not in q] == []
    (st,) = run(F.MQCMD_INQUIRE_Q_STATUS, {C.MQCA_Q_NAME: b"WATCHED.Q", C.MQIA_Q_TYPE: C.MQQT_ALL,
                                          F.MQIACF_Q_STATUS_ATTRS: F.MQIACF_ALL})
    assert [s for s in STATUS_ATTRS if s not in st] == [] and st[F.MQIACF_OLDEST_MSG_AGE] > -1
    (reset,) = run(F.MQCMD_RESET_Q_STATS, {C.MQCA_Q_NAME: b"WATCHED.Q"})
    assert [s for s in RESET_ATTRS if s not in reset] == []
    for chltype, selectors in CHANNEL_ATTRS.items():
        name = f"SYSTEM.DEF.{ {'SDR': 'SENDER', 'RCVR': 'RECEIVER'}.get(chltype, chltype) }".encode()
        (ch,) = run(F.MQCMD_INQUIRE_CHANNEL, {F.MQCACH_CHANNEL_NAME: name})
        assert [s for s in selectors if s not in ch] == [], chltype
    client = qm.client()
    try:
        (cs,) = run(F.MQCMD_INQUIRE_CHANNEL_STATUS, {F.MQCACH_CHANNEL_NAME: b"APP.SVRCONN"})
        assert [s for s in CHSTATUS_ATTRS if s not in cs] == []
        assert [s for s in MESSAGE_CHANNEL_ONLY if s in cs] == []
        assert cs[F.MQIACH_MCA_STATUS] == F.MQMCAS_RUNNING and cs[F.MQIACH_BUFFERS_RCVD] >= 1
        # The queues a monitor reads every run exist from crtmqm on: empty, not 2085 (the queue
        # manager event queue has the Queue Manager Active event: STRSTPEV is ENABLED by default).
        for name in ("SYSTEM.ADMIN.STATISTICS.QUEUE", "SYSTEM.ADMIN.ACCOUNTING.QUEUE", "SYSTEM.ADMIN.PERFM.EVENT",
                     "SYSTEM.ADMIN.CHANNEL.EVENT"):
            with pytest.raises(pymqi.MQMIError) as e:
                pymqi.Queue(client, name).get()
            assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE, name
    finally:
        client.disconnect()


# --- services ---------------------------------------------------------------------------------
def test_services_start_stop_and_status(qm: Any, pcf: Any, tmp_path: Any) -> None:
    """A SERVER service runs one process DISPLAY SVSTATUS shows until STOP SERVICE ends it; a
    COMMAND service runs and is left; arguments name the queue manager (+QMNAME+) and output goes
    to STDOUT; PCF's Start/Stop Service and Inquire Service Status give MQ's reasons."""
    out = tmp_path / "command.out"
    qm.mqsc(f"DEFINE SERVICE(SLEEPER) SERVTYPE(SERVER) STARTCMD('/bin/sleep') STARTARG('30')\n"
            f"DEFINE SERVICE(ECHOER) SERVTYPE(COMMAND) STARTCMD('/bin/echo') STARTARG('hello +QMNAME+') "
            f"STDOUT('{out}')\n", check=True)
    run = pcf.run
    assert rc(run, F.MQCMD_INQUIRE_SERVICE_STATUS, {C.MQCA_SERVICE_NAME: b"SLEEPER"}) == F.MQRCCF_SERV_STATUS_NOT_FOUND
    started = qm.mqsc("START SERVICE(SLEEPER)\nSTART SERVICE(ECHOER)\n")
    assert started.returncode == 0, started.stdout
    (st,) = run(F.MQCMD_INQUIRE_SERVICE_STATUS, {C.MQCA_SERVICE_NAME: b"SLEEP*"})
    pid = st[F.MQIACF_PROCESS_ID]
    assert st[F.MQIACF_SERVICE_STATUS] == C.MQSVC_STATUS_RUNNING and os.path.exists(f"/proc/{pid}")
    shown = qm.mqsc("DISPLAY SVSTATUS(*)").stdout
    assert f"PID({pid})" in shown and "SERVICE(SLEEPER)" in shown and "ECHOER" not in shown
    assert rc(run, F.MQCMD_START_SERVICE, {C.MQCA_SERVICE_NAME: b"SLEEPER"}) == F.MQRCCF_SERVICE_RUNNING
    assert qm.mqsc("START SERVICE(SLEEPER) IGNSTATE(YES)").returncode == 0
    deadline = time.monotonic() + 10
    while (not out.exists() or not out.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert out.read_text() == "hello OBJQM\n"
    run(F.MQCMD_STOP_SERVICE, {C.MQCA_SERVICE_NAME: b"SLEEPER"})
    deadline = time.monotonic() + 10
    while "SERVICE(SLEEPER)" in qm.mqsc("DISPLAY SVSTATUS(*)").stdout and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{pid}") or "Z" in open(f"/proc/{pid}/stat").read().split()[2]
    assert rc(run, F.MQCMD_STOP_SERVICE, {C.MQCA_SERVICE_NAME: b"SLEEPER"}) == F.MQRCCF_SERVICE_STOPPED
    assert rc(run, F.MQCMD_START_SERVICE, {C.MQCA_SERVICE_NAME: b"NO.SUCH"}) == C.MQRC_UNKNOWN_OBJECT_NAME
    qm.mqsc("DEFINE SERVICE(EMPTY) SERVTYPE(SERVER)\n", check=True)
    assert rc(run, F.MQCMD_START_SERVICE, {C.MQCA_SERVICE_NAME: b"EMPTY"}) == F.MQRCCF_NO_START_CMD


def test_services_start_and_stop_with_the_queue_manager(tmp_path: Any) -> None:
    """CONTROL(QMGR) and CONTROL(STARTONLY) services start with strmqm; at endmqm the QMGR one's
    STOPCMD runs (with +MQ_SERVER_PID+, the running server's process) and the STARTONLY one is left."""
    marker = tmp_path / "stopped.out"
    with Harness(str(tmp_path / "data")) as h:
        qm = h.add("SVCQM", f"DEFINE SERVICE(WITH.QMGR) SERVTYPE(SERVER) CONTROL(QMGR) STARTCMD('/bin/sleep') "
                            f"STARTARG('30') STOPCMD('/bin/sh') STOPARG('-c \"echo +MQ_SERVER_PID+ > {marker}\"')\n"
                            "DEFINE SERVICE(START.ONLY) SERVTYPE(SERVER) CONTROL(STARTONLY) STARTCMD('/bin/sleep') "
                            "STARTARG('30')\n")
        qm.stop()
        qm.start()
        shown = qm.mqsc("DISPLAY SVSTATUS(*)").stdout
        pids = dict(re.findall(r"SERVICE\(([A-Z.]+)\)\s+STATUS\(RUNNING\)\s+PID\((\d+)\)", shown))
        assert sorted(pids) == ["START.ONLY", "WITH.QMGR"], shown
        qm.stop()
        deadline = time.monotonic() + 10
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.read_text().strip() == pids["WITH.QMGR"]
        os.kill(int(pids["START.ONLY"]), 0)          # still running: STARTONLY is not stopped
        os.kill(int(pids["START.ONLY"]), 15)
        os.kill(int(pids["WITH.QMGR"]), 15)

