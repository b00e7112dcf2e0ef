"""Who is connected: each connection's facts and its handles as DISPLAY CONN and PCF Inquire
Connection show them. The fields are declared once (``CONN_FIELDS``, ``HANDLE_FIELDS``: the MQSC
keyword, the PCF parameter, how a number reads as a word), and ``conn_row``/``handle_rows`` give
their values for one connection, so the two commands cannot disagree. ``Connections``, the queue
manager's ``qm.connections``, makes and ends them (MQCONN, MQDISC)."""
from __future__ import annotations

import struct
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import pad
from mqlite.engine.clock import mq_date_time
from mqlite.engine.core import Conn, Handle
from mqlite.engine.fields import Field, enum, flags
from mqlite.engine.mqicore import CoreState
from mqlite.engine.mqistats import DISC_IMPLICIT, DISC_NORMAL, DISC_Q_MGR


def connection_id(qmgr: str, started: int, hconn: int) -> bytes:
    """MQ's ConnectionId: 'AMQC', the queue manager's name in 12 characters, then 8 bytes unique
    to the connection (here the queue manager's start time and the connection's number). DISPLAY
    CONN shows the last 8 in hex as CONN and the first 16 as EXTCONN."""
    return b"AMQC" + pad(qmgr[:12], 12) + struct.pack(">II", started & 0xFFFFFFFF, hconn & 0xFFFFFFFF)


def conn_name(conn_id: bytes) -> str:
    """DISPLAY CONN's CONN: the connection's own 8 bytes in hex."""
    return conn_id[16:].hex().upper()


OPEN_OPTIONS = ("MQOO_INPUT_AS_Q_DEF", "MQOO_INPUT_SHARED", "MQOO_INPUT_EXCLUSIVE", "MQOO_BROWSE", "MQOO_OUTPUT",
                "MQOO_INQUIRE", "MQOO_SET", "MQOO_BIND_ON_OPEN", "MQOO_BIND_NOT_FIXED", "MQOO_BIND_ON_GROUP",
                "MQOO_SAVE_ALL_CONTEXT", "MQOO_PASS_IDENTITY_CONTEXT", "MQOO_PASS_ALL_CONTEXT",
                "MQOO_SET_IDENTITY_CONTEXT", "MQOO_SET_ALL_CONTEXT", "MQOO_ALTERNATE_USER_AUTHORITY",
                "MQOO_FAIL_IF_QUIESCING", "MQOO_CO_OP", "MQOO_READ_AHEAD", "MQOO_NO_READ_AHEAD")


CONN_FIELDS = (
    Field("PID", F.MQIACF_PROCESS_ID),
    Field("TID", F.MQIACF_THREAD_ID),
    Field("APPLDESC", F.MQCACF_APPL_DESC, 64),
    Field("APPLTAG", F.MQCACF_APPL_TAG, 28),
    Field("APPLTYPE", C.MQIA_APPL_TYPE, word=enum({C.MQAT_QMGR: "SYSTEM", C.MQAT_USER: "USER"})),
    Field("ASTATE", F.MQIACF_ASYNC_STATE, word=enum({F.MQAS_NONE: "NONE", F.MQAS_STARTED: "STARTED",
                                                       F.MQAS_STOPPED: "STOPPED", F.MQAS_SUSPENDED: "SUSPENDED"})),
    Field("CHANNEL", F.MQCACH_CHANNEL_NAME, 20),
    Field("CONNAME", F.MQCACH_CONNECTION_NAME, 264),
    Field("CONNOPTS", F.MQIACF_CONNECT_OPTIONS, word=flags("MQCNO_", (
        "MQCNO_FASTPATH_BINDING", "MQCNO_HANDLE_SHARE_BLOCK", "MQCNO_HANDLE_SHARE_NO_BLOCK", "MQCNO_SHARED_BINDING",
        "MQCNO_ISOLATED_BINDING", "MQCNO_RECONNECT", "MQCNO_RECONNECT_Q_MGR", "MQCNO_RECONNECT_DISABLED"))),
    Field("USERID", F.MQCACF_USER_IDENTIFIER, 12),
    Field("UOWSTATE", F.MQIACF_UOW_STATE, word=enum({F.MQUOWST_NONE: "NONE", F.MQUOWST_ACTIVE: "ACTIVE",
                                                       F.MQUOWST_PREPARED: "PREPARED",
                                                       F.MQUOWST_UNRESOLVED: "UNRESOLVED"})),
    Field("UOWSTDA", F.MQCACF_UOW_START_DATE, 12),
    Field("UOWSTTI", F.MQCACF_UOW_START_TIME, 8),
    Field("URTYPE", F.MQIACF_UOW_TYPE, word=enum({F.MQUOWT_Q_MGR: "QMGR", F.MQUOWT_XA: "XA"})),
)
HANDLE_FIELDS = (
    Field("OBJNAME", F.MQCACF_OBJECT_NAME, 48),
    Field("OBJTYPE", F.MQIACF_OBJECT_TYPE, word=enum({C.MQOT_Q: "QUEUE", C.MQOT_Q_MGR: "QMGR",
                                                       C.MQOT_TOPIC: "TOPIC"})),
    Field("OPENOPTS", F.MQIACF_OPEN_OPTIONS, word=flags("MQOO_", OPEN_OPTIONS)),
    Field("HSTATE", F.MQIACF_HANDLE_STATE, word=enum({F.MQHSTATE_ACTIVE: "ACTIVE", F.MQHSTATE_INACTIVE: "INACTIVE"})),
    Field("READA", C.MQIA_READ_AHEAD, word=enum({C.MQREADA_NO: "NO", C.MQREADA_YES: "YES",
                                                  C.MQREADA_BACKLOG: "BACKLOG", C.MQREADA_INHIBITED: "INHIBITED"})),
    Field("ASTATE", F.MQIACF_ASYNC_STATE, word=enum({F.MQAS_NONE: "NONE"})),
    Field("SUBNAME", F.MQCACF_SUB_NAME, -1),
)


def conn_row(conn: Conn) -> dict[str, Any]:
    """A connection's CONN_FIELDS values, by keyword."""
    date, time_ = mq_date_time(conn.uow_since) if conn.uow and conn.uow_since is not None else ("", "")
    return {"PID": conn.pid, "TID": conn.tid, "APPLDESC": "", "APPLTAG": conn.appl_name,
            "APPLTYPE": C.MQAT_QMGR if conn.appl_type == C.MQAT_QMGR else C.MQAT_USER, "ASTATE": F.MQAS_NONE,
            "CHANNEL": conn.channel, "CONNAME": conn.conname,
            "CONNOPTS": conn.conn_opts, "USERID": conn.user,
            "UOWSTATE": F.MQUOWST_ACTIVE if conn.uow or conn.shared_uow else F.MQUOWST_NONE,
            "UOWSTDA": date, "UOWSTTI": time_, "URTYPE": F.MQUOWT_Q_MGR}


def handle_rows(conn: Conn) -> list[dict[str, Any]]:
    """One row of HANDLE_FIELDS values per handle the connection has open, in the order opened."""
    rows = []
    for h in sorted(conn.handles.values(), key=lambda h: h.hobj):
        rows.append({"OBJNAME": _object_name(h), "OBJTYPE": _object_type(h), "OPENOPTS": h.options,
                     "HSTATE": F.MQHSTATE_ACTIVE if conn.waiting == h.hobj else F.MQHSTATE_INACTIVE,
                     "READA": C.MQREADA_YES if h.read_ahead_ok else C.MQREADA_NO, "ASTATE": F.MQAS_NONE,
                     "SUBNAME": getattr(h.sub, "name", "") if h.sub is not None else ""})
    return rows


def _object_name(h: Handle) -> str:
    if h.sub is not None:
        return str(getattr(h.sub, "queue", "") or h.name)
    return h.name


def _object_type(h: Handle) -> int:
    if h.topic is not None:
        return C.MQOT_TOPIC
    if h.obj is None and h.qstate is None:
        return C.MQOT_Q_MGR
    return C.MQOT_Q


_QSO = enum({F.MQQSO_YES: "YES", F.MQQSO_NO: "NO"})
_BY = {f.keyword: f for f in CONN_FIELDS + HANDLE_FIELDS}
# DISPLAY QSTATUS TYPE(HANDLE) and PCF Inquire Queue Status StatusType MQIACF_Q_HANDLE: who has the
# queue open (its connection's fields) and how (MQOO_* as BROWSE, INPUT, ...), in the display's order.
QHANDLE_FIELDS = (
    _BY["APPLDESC"], _BY["APPLTAG"], _BY["APPLTYPE"], _BY["ASTATE"], Field("BROWSE", F.MQIACF_OPEN_BROWSE, word=_QSO),
    _BY["CHANNEL"], _BY["CONNAME"], _BY["HSTATE"],
    Field("INPUT", F.MQIACF_OPEN_INPUT_TYPE, word=enum({F.MQQSO_NO: "NO", F.MQQSO_SHARED: "SHARED",
                                                        F.MQQSO_EXCLUSIVE: "EXCL"})),
    Field("INQUIRE", F.MQIACF_OPEN_INQUIRE, word=_QSO), Field("OUTPUT", F.MQIACF_OPEN_OUTPUT, word=_QSO),
    _BY["PID"], Field("SET", F.MQIACF_OPEN_SET, word=_QSO), _BY["TID"], _BY["URTYPE"], _BY["USERID"],
)


def qhandle_row(conn: Conn, h: Handle) -> dict[str, Any]:
    """QHANDLE_FIELDS' values for handle ``h`` of ``conn`` on a queue."""
    opts = h.options

    def yes(option: int) -> int:
        return F.MQQSO_YES if opts & option else F.MQQSO_NO
    return conn_row(conn) | {
        "HSTATE": F.MQHSTATE_ACTIVE if conn.waiting == h.hobj else F.MQHSTATE_INACTIVE,
        "BROWSE": yes(C.MQOO_BROWSE), "INQUIRE": yes(C.MQOO_INQUIRE), "OUTPUT": yes(C.MQOO_OUTPUT),
        "SET": yes(C.MQOO_SET), "INPUT": {"S": F.MQQSO_SHARED, "X": F.MQQSO_EXCLUSIVE}.get(h.input_mode, F.MQQSO_NO)}


class Connections:
    """MQCONN and MQDISC (the queue manager's ``qm.connections``): the connections by handle, and
    the numbers they are given."""

    def __init__(self, qm: CoreState) -> None:
        self.qm = qm
        self._next_hconn = 1

    def connect(self, appl_name: str = "", appl_type: int = C.MQAT_UNIX, user: str = "", *, channel: str = "",
                conname: str = "", pid: int = 0, tid: int = 0, conn_opts: int = C.MQCNO_SHARED_BINDING) -> Conn:
        """MQCONN(X): a connection, with the facts DISPLAY CONN shows of it (``channel``, ``conname``,
        ``pid``, ``tid``, ``conn_opts``: whoever connects knows them)."""
        if self.qm.quiescing:
            raise MQIError(C.MQRC_Q_MGR_QUIESCING)
        conn = Conn(self._next_hconn, appl_name[-28:], appl_type, user[:12])
        conn.user12, conn.appl28 = pad(conn.user, 12), pad(conn.appl_name, 28)
        conn.started = self.qm.clock.now()
        conn.conn_id = connection_id(self.qm.name, int(self.qm.started), conn.hconn)
        conn.channel, conn.conname, conn.pid, conn.tid, conn.conn_opts = channel, conname, pid, tid, conn_opts
        self._next_hconn += 1
        self.qm.conns[conn.hconn] = conn
        if appl_type != C.MQAT_QMGR:            # (the queue manager's own are not counted)
            self.qm.mqi.connected(len(self.qm.conns))
            self.qm.accounting.connected(conn)
            self.qm.applications.setdefault(conn.appl_name, [0, 0])[0] += 1
        return conn

    def agent(self) -> Conn:
        """A connection of the queue manager's own writers (events, statistics, resource
        publications): its calls are not measured and raise no events. MQRC_Q_MGR_QUIESCING once
        the queue manager is ending."""
        conn = self.connect("amqzmuc0", C.MQAT_QMGR, "mqm")
        conn.unmeasured = True
        return conn

    def conn(self, hconn: int) -> Conn:
        c = self.qm.conns.get(hconn)
        if c is None:
            raise MQIError(C.MQRC_HCONN_ERROR)
        return c

    def disconnect(self, conn: Conn, commit: bool = True) -> None:
        """MQDISC commits (distributed platforms); a broken connection backs out."""
        if self.qm.pubsub.subscriptions:
            self.qm.subs.end_connection_subscriptions(conn)
        for hobj in list(conn.handles):
            self.qm.settle(conn, hobj, 0, release=True)   # messages sent ahead and not consumed go back
        if conn.shared_async:
            try:
                self.qm.flush_shared_async(conn)
            except MQIError:
                pass
        if conn.uow or conn.uow_failed:
            try:
                self.qm.commit(conn) if commit else self.qm.backout(conn)
            except MQIError:
                pass  # MQDISC of a unit of work whose async put failed: backed out, as MQCMIT would
        for hobj in list(conn.handles):
            try:
                self.qm.close(conn, hobj, C.MQCO_NONE)
            except MQIError:
                pass
        self.qm.conns.pop(conn.hconn, None)
        if conn.appl_type != C.MQAT_QMGR:      # (the queue manager's own are not counted)
            # MQDISC; gone without it; or ended by the queue manager as it ends.
            how = DISC_NORMAL if commit else DISC_Q_MGR if self.qm.quiescing else DISC_IMPLICIT
            self.qm.mqi.discs[how] += 1
            self.qm.applications.setdefault(conn.appl_name, [0, 0])[1] += 1
            if conn.acct is not None:
                self.qm.accounting.record(conn, self.qm.clock.now(), how)
