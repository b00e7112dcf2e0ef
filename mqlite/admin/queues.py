"""PCF commands on queues besides their definitions (``admin.objects``): Inquire Queue Status and
Clear Queue, over the administration functions MQSC uses (``engine.admin``)."""
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


def inquire_q_status(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    out = []
    for obj in matching(a, QUEUE, msg):
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


def clear_q(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    a.run(admin.clear, p.s(p.need(msg, C.MQCA_Q_NAME)))
    return [[]]
