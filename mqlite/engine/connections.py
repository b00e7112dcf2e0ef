"""Who is connected: each connection's facts and its handles as DISPLAY CONN and PCF Inquire
Connection show them. The fields are declared once (``CONN_FIELDS``, ``HANDLE_FIELDS``: the MQSC
keyword, the PCF parameter, how a number reads as a word), and ``conn_row``/``handle_rows`` give
their values for one connection, so the two commands cannot disagree."""
from __future__ import annotations

import struct
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq.structs import pad
from mqlite.engine.clock import mq_date_time
from mqlite.engine.core import Conn, Handle
from mqlite.engine.fields import Field, enum, flags


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

