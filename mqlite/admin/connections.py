"""PCF Inquire Connection and Stop Connection, over the fields DISPLAY CONN shows
(``engine.connections``): one reply per connection (ConnInfoType CONN), one per open handle
(HANDLE), or both (ALL); filters on any field; a connection named by its 24-byte ConnectionId or
all of them by an empty GenericConnectionId."""
from __future__ import annotations

from typing import Any

from mqlite.admin import params as p
from mqlite.admin.context import Admin
from mqlite.admin.params import CommandError
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.cmq.structs import pad
from mqlite.engine import applstatus
from mqlite.engine.connections import CONN_FIELDS, HANDLE_FIELDS, conn_row, handle_rows
from mqlite.engine.core import Conn

_TYPES = (F.MQIACF_CONN_INFO_CONN, F.MQIACF_CONN_INFO_HANDLE, F.MQIACF_CONN_INFO_ALL)


def _selected(a: Admin, msg: pcf.Message) -> list[Conn]:
    conn_id = msg.first(F.MQBACF_CONNECTION_ID)
    generic = msg.first(F.MQBACF_GENERIC_CONNECTION_ID)
    if conn_id is None and generic is None:
        raise CommandError(F.MQRCCF_PARM_COUNT_TOO_SMALL, F.MQBACF_GENERIC_CONNECTION_ID)
    conns = [c for _h, c in sorted(a.qm.conns.items())]
    if conn_id is not None:
        found = [c for c in conns if c.conn_id == bytes(conn_id)]
        if not found:
            raise CommandError(F.MQRCCF_NONE_FOUND, F.MQBACF_CONNECTION_ID)
        return found
    prefix = bytes(generic or b"").rstrip(b"\0")
    return [c for c in conns if c.conn_id.startswith(prefix)]


_KNOWN = {f.selector for f in CONN_FIELDS + HANDLE_FIELDS}


def _passes(msg: pcf.Message, values: dict[int, Any]) -> bool:
    """The inquiry's filters; one on a field the reply does not have (a handle's, on a
    connection's reply) passes over it."""
    for ptype, sel, _v in msg.params:
        if ptype in (F.MQCFT_INTEGER_FILTER, F.MQCFT_STRING_FILTER) and sel in _KNOWN and sel not in values:
            return False
    return p.passes_values(msg, values)


def inquire_connection(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    info = msg.first(F.MQIACF_CONN_INFO_TYPE, F.MQIACF_CONN_INFO_CONN)
    if info not in _TYPES:
        raise CommandError(F.MQRCCF_PARM_VALUE_ERROR, F.MQIACF_CONN_INFO_TYPE)
    wanted = p.wanted(msg, F.MQIACF_CONNECTION_ATTRS)
    out: list[list[bytes]] = []
    for c in _selected(a, msg):
        head = [pcf.enc_bytes(F.MQBACF_CONNECTION_ID, c.conn_id)]
        row = conn_row(c)
        conn_values = p.field_values(CONN_FIELDS, row)
        if info != F.MQIACF_CONN_INFO_HANDLE and _passes(msg, conn_values):
            out.append(head + [pcf.enc_int(F.MQIACF_CONN_INFO_TYPE, F.MQIACF_CONN_INFO_CONN)]
                       + p.encode_fields(CONN_FIELDS, row, wanted))
        if info != F.MQIACF_CONN_INFO_CONN:
            for h in handle_rows(c):
                if _passes(msg, conn_values | p.field_values(HANDLE_FIELDS, h)):
                    out.append(head + [pcf.enc_int(F.MQIACF_CONN_INFO_TYPE, F.MQIACF_CONN_INFO_HANDLE)]
                               + p.encode_fields(HANDLE_FIELDS, h, wanted))
    if not out:
        raise CommandError(F.MQRCCF_NONE_FOUND)
    return out


_APPL_TYPES = {F.MQIACF_APPL_INFO_APPL: "APPL", F.MQIACF_APPL_INFO_QMGR: "QMGR", F.MQIACF_APPL_INFO_LOCAL: "LOCAL"}


def inquire_appl_status(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """Inquire Application Status: one reply per application (APPL, QMGR) or instance (LOCAL),
    the fields DISPLAY APSTATUS shows (engine.applstatus), filters on any of them."""
    pattern = p.s(p.need(msg, F.MQCACF_APPL_NAME))
    info = msg.first(F.MQIACF_APPL_INFO_TYPE, F.MQIACF_APPL_INFO_APPL)
    if info not in _APPL_TYPES:
        raise CommandError(F.MQRCCF_PARM_VALUE_ERROR, F.MQIACF_APPL_INFO_TYPE)
    kind = _APPL_TYPES[info]
    fields = applstatus.TYPES[kind]
    wanted = p.wanted(msg, F.MQIACF_APPL_INFO_ATTRS)
    out = []
    for row in applstatus.rows(a.qm.conns.values(), pattern, kind, a.qm.name, a.qm.qmgr.attrs.get("QMID", ""),
                               a.qm.clock.now()):
        values = p.field_values(fields, row)
        if p.passes_values(msg, values):
            out.append([pcf.enc_str(F.MQCACF_APPL_NAME, pad(row["APPLNAME"], 28)), pcf.enc_int(F.MQIACF_APPL_INFO_TYPE, info)]
                       + p.encode_values(values, wanted))
    if not out:
        raise CommandError(F.MQRCCF_APPL_STATUS_NOT_FOUND, F.MQCACF_APPL_NAME)
    return out


def stop_connection(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    conn_id = bytes(p.need(msg, F.MQBACF_CONNECTION_ID))
    found = [c for c in a.qm.conns.values() if c.conn_id == conn_id]
    if not found:
        raise CommandError(F.MQRCCF_CONNECTION_ID_ERROR, F.MQBACF_CONNECTION_ID)
    err = a.services.stop_connection(found[0].hconn)
    if err:
        raise CommandError(F.MQRCCF_CONN_NOT_STOPPED, F.MQBACF_CONNECTION_ID, err)
    return [[]]

