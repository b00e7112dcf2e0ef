"""PCF commands on the queue manager: Inquire and Change Queue Manager, Ping Queue Manager."""
from __future__ import annotations

from mqlite.admin import params as p
from mqlite.admin.context import Admin
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.cmq.structs import pad
from mqlite.engine import admin
from mqlite.objects.model import QMGR


def ping_q_mgr(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    return [[]]

def inquire_q_mgr(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    params = [pcf.enc_str(C.MQCA_Q_MGR_NAME, pad(a.qm.name, 48))]
    return [params + p.encode_attrs(QMGR, a.qm.qmgr.attrs, p.wanted(msg, F.MQIACF_Q_MGR_ATTRS))]


def change_q_mgr(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    a.run(admin.alter, QMGR, a.qm.name, p.values(msg, QMGR))
    return [[]]
