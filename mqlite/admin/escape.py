"""Escape PCF: an MQSC command run by the queue manager's executor, its response text returned."""
from __future__ import annotations

from mqlite.admin import params as p
from mqlite.admin.context import Admin
from mqlite.admin.params import CommandError, EscapeFailed
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf


def escape(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    if p.need(msg, F.MQIACF_ESCAPE_TYPE) != F.MQET_MQSC:
        raise CommandError(F.MQRCCF_ESCAPE_TYPE_ERROR, F.MQIACF_ESCAPE_TYPE)
    command = p.s(p.need(msg, F.MQCACF_ESCAPE_TEXT))
    result = a.executor.run(command)
    params = [pcf.enc_int(F.MQIACF_ESCAPE_TYPE, F.MQET_MQSC),
              pcf.enc_str(F.MQCACF_ESCAPE_TEXT, "\n".join(result.lines))]
    if result.status != "ok":
        raise EscapeFailed(result.status, params)
    return [params]
