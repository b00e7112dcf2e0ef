"""PCF commands on queues: Inquire Queue (and Names, Status), Create, Copy, Change, Delete
and Clear Queue, over the administration functions MQSC uses (``engine.admin``)."""
from __future__ import annotations

from mqlite.admin import params as p
from mqlite.admin.context import Admin
from mqlite.admin.params import CommandError
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.cmq.structs import pad
from mqlite.engine import admin
from mqlite.objects.attrs import QTYPE_VALUES
from mqlite.objects.model import MQObject
from mqlite.objects.names import generic_match


def matching_queues(a: Admin, msg: pcf.Message) -> list[MQObject]:
    pattern = p.s(p.need(msg, C.MQCA_Q_NAME))
    kind = p.queue_kind(msg, required=False)
    found = [o for n, o in sorted(a.qm.objects["QUEUE"].items())
             if generic_match(pattern, n) and (kind is None or o.kind == kind)]
    if not found and "*" not in pattern:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCA_Q_NAME)
    return found


def inquire_q(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    wanted = p.wanted(msg, F.MQIACF_Q_ATTRS)
    out = []
    for obj in matching_queues(a, msg):
        values = admin.display_values(a.qm, obj)
        if not p.passes(msg, obj.kind, values, {}):
            continue
        params = [pcf.enc_str(C.MQCA_Q_NAME, pad(obj.name, 48)), pcf.enc_int(C.MQIA_Q_TYPE, QTYPE_VALUES[obj.kind])]
        out.append(params + p.encode_attrs(obj.kind, values, wanted))
    if not out:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCA_Q_NAME)
    return out


def inquire_q_names(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    objs = matching_queues(a, msg)
    return [[pcf.enc_str_list(F.MQCACF_Q_NAMES, [pad(o.name, 48) for o in objs]),
             pcf.enc_int_list(F.MQIACF_Q_TYPES, [QTYPE_VALUES[o.kind] for o in objs])]]


def inquire_q_status(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    out = []
    for obj in matching_queues(a, msg):
        qs = a.qm.queues.get(obj.name)
        if qs is None:
            continue
        out.append([pcf.enc_str(C.MQCA_Q_NAME, pad(obj.name, 48)),
                    pcf.enc_int(C.MQIA_CURRENT_Q_DEPTH, qs.depth),
                    pcf.enc_int(C.MQIA_OPEN_INPUT_COUNT, qs.input_shared + qs.input_exclusive),
                    pcf.enc_int(C.MQIA_OPEN_OUTPUT_COUNT, qs.output),
                    pcf.enc_int(F.MQIACF_UNCOMMITTED_MSGS, qs.uncommitted)])
    if not out:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCA_Q_NAME)
    return out


def create_q(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    return _define_q(a, msg, p.s(p.need(msg, C.MQCA_Q_NAME)), None)


def copy_q(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    src = p.s(p.need(msg, F.MQCACF_FROM_Q_NAME))
    return _define_q(a, msg, p.s(p.need(msg, F.MQCACF_TO_Q_NAME)), src)


def _define_q(a: Admin, msg: pcf.Message, name: str, like: str | None) -> list[list[bytes]]:
    kind = p.queue_kind(msg, required=True)
    assert kind is not None
    replace = msg.first(F.MQIACF_REPLACE, F.MQRP_NO) == F.MQRP_YES
    a.run(admin.define, kind, name, p.values(msg, kind), like, replace)
    return [[]]


def change_q(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    name = p.s(p.need(msg, C.MQCA_Q_NAME))
    kind = p.queue_kind(msg, required=True)
    assert kind is not None
    a.run(admin.alter, kind, name, p.values(msg, kind))
    return [[]]


def delete_q(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    name = p.s(p.need(msg, C.MQCA_Q_NAME))
    obj = a.qm.queue(name)
    if obj is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCA_Q_NAME)
    kind = p.queue_kind(msg, required=False) or obj.kind
    a.run(admin.delete, kind, name, msg.first(F.MQIACF_PURGE, F.MQPO_NO) == F.MQPO_YES)
    return [[]]


def clear_q(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    a.run(admin.clear, p.s(p.need(msg, C.MQCA_Q_NAME)))
    return [[]]
