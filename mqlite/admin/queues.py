"""PCF commands on queues besides their definitions (``admin.objects``): Inquire Queue Status,
Reset Queue Statistics and Clear Queue."""
from __future__ import annotations

from mqlite.admin import params as p
from mqlite.admin.context import Admin
from mqlite.admin.objects import QUEUE, matching
from mqlite.admin.params import CommandError
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.cmq.structs import pad
from mqlite.engine import admin
from mqlite.engine.connections import QHANDLE_FIELDS, qhandle_row
from mqlite.engine.core import INPUT_OPTS
from mqlite.engine.status import QSTATUS_FIELDS, qstatus_row, reset_stats


def inquire_q_status(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """Inquire Queue Status: StatusType QUEUE (the fields DISPLAY QSTATUS shows, engine/status.py)
    or HANDLE (one reply per open handle: who has it open and how), OpenType selecting handles."""
    kind = msg.first(F.MQIACF_Q_STATUS_TYPE, F.MQIACF_Q_STATUS)
    if kind not in (F.MQIACF_Q_STATUS, F.MQIACF_Q_HANDLE):
        raise CommandError(F.MQRCCF_PARM_VALUE_ERROR, F.MQIACF_Q_STATUS_TYPE)
    open_type = msg.first(F.MQIACF_OPEN_TYPE, F.MQQSOT_ALL)
    wanted = p.wanted(msg, F.MQIACF_Q_STATUS_ATTRS)
    qm = a.qm
    now = qm.clock.now()
    out = []
    for obj in matching(a, QUEUE, msg):
        qs = qm.queues.get(obj.name)
        if qs is None:
            continue
        head = [pcf.enc_str(C.MQCA_Q_NAME, pad(obj.name, 48)), pcf.enc_int(F.MQIACF_Q_STATUS_TYPE, kind)]
        if kind == F.MQIACF_Q_STATUS:
            values = p.field_values(QSTATUS_FIELDS, qstatus_row(qs, obj, now))
            if p.passes_values(msg, values):
                out.append(head + p.encode_values(values, wanted))
            continue
        for conn in sorted(qm.conns.values(), key=lambda c: c.hconn):
            for h in sorted(conn.handles.values(), key=lambda h: h.hobj):
                if h.qstate is not qs or not _open_type(h.options, open_type):
                    continue
                values = p.field_values(QHANDLE_FIELDS, qhandle_row(conn, h))
                if p.passes_values(msg, values):
                    out.append(head + p.encode_values(values, wanted))
    if not out and not any(ptype in (F.MQCFT_INTEGER_FILTER, F.MQCFT_STRING_FILTER) for ptype, _s, _v in msg.params):
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCA_Q_NAME)
    return out


def _open_type(options: int, open_type: int) -> bool:
    if open_type == F.MQQSOT_INPUT:
        return bool(options & INPUT_OPTS)
    if open_type == F.MQQSOT_OUTPUT:
        return bool(options & C.MQOO_OUTPUT)
    return True




def reset_q_stats(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """Reset Queue Statistics: each local queue's HighQDepth, MsgEnqCount, MsgDeqCount and
    TimeSinceReset since the last reset, which this one starts again."""
    out = []
    now = a.qm.clock.now()
    found = matching(a, QUEUE, msg)
    for obj in found:
        qs = a.qm.queues.get(obj.name)
        if qs is None:
            if "*" not in p.trimmed(msg.first(C.MQCA_Q_NAME)):
                raise CommandError(F.MQRCCF_Q_WRONG_TYPE, C.MQCA_Q_NAME)
            continue
        st = reset_stats(qs, now)
        out.append([pcf.enc_str(C.MQCA_Q_NAME, pad(obj.name, 48)), pcf.enc_int(C.MQIA_TIME_SINCE_RESET, st["RESETINT"]),
                    pcf.enc_int(C.MQIA_HIGH_Q_DEPTH, st["HIGHQDPH"]), pcf.enc_int(C.MQIA_MSG_ENQ_COUNT, st["MSGSIN"]),
                    pcf.enc_int(C.MQIA_MSG_DEQ_COUNT, st["MSGSOUT"])])
    if not out:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCA_Q_NAME)
    return out


def clear_q(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    a.run(admin.clear, p.s(p.need(msg, C.MQCA_Q_NAME)))
    return [[]]
