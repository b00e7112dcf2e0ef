"""PCF commands on channels besides their definitions (``admin.objects``): Inquire Channel Status, Start, Stop and Ping
Channel (through the MQSC services, which drive the channel initiator)."""
from __future__ import annotations

from typing import Any, Callable

from mqlite.admin import params as p
from mqlite.admin.context import Admin
from mqlite.admin.params import CommandError
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.cmq.structs import pad
from mqlite.objects.attrs import CHLTYPE_VALUES

CHSTATUS = {"INACTIVE": F.MQCHS_INACTIVE, "BINDING": F.MQCHS_BINDING, "STARTING": F.MQCHS_STARTING,
            "RUNNING": F.MQCHS_RUNNING, "STOPPING": F.MQCHS_STOPPING, "RETRYING": F.MQCHS_RETRYING,
            "STOPPED": F.MQCHS_STOPPED, "PAUSED": F.MQCHS_PAUSED, "INITIALIZING": F.MQCHS_INITIALIZING}

# What a status row may have besides the common part (a message channel's batches and sequence
# numbers, a SVRCONN instance's counters, a sender's retries), as PCF names them: (parameter, string
# length or 0 for a number).
_MORE = {"BATCHES": (F.MQIACH_BATCHES, 0), "CURSEQNO": (F.MQIACH_CURRENT_SEQ_NUMBER, 0),
         "LSTSEQNO": (F.MQIACH_LAST_SEQ_NUMBER, 0),
         "SHORTRTS": (F.MQIACH_SHORT_RETRIES_LEFT, 0), "LONGRTS": (F.MQIACH_LONG_RETRIES_LEFT, 0),
         "BYTSSENT": (F.MQIACH_BYTES_SENT, 0), "BYTSRCVD": (F.MQIACH_BYTES_RECEIVED, 0),
         "LSTMSGDA": (F.MQCACH_LAST_MSG_DATE, 12), "LSTMSGTI": (F.MQCACH_LAST_MSG_TIME, 8),
         "CHSTADA": (F.MQCACH_CHANNEL_START_DATE, 12), "CHSTATI": (F.MQCACH_CHANNEL_START_TIME, 8),
         "CURSHCNV": (F.MQIACH_CURRENT_SHARING_CONVS, 0), "MAXSHCNV": (F.MQIACH_MAX_SHARING_CONVS, 0),
         "RAPPLTAG": (F.MQCACH_REMOTE_APPL_TAG, 28), "MCAUSER": (F.MQCACH_MCA_USER_ID, 64),
         "HBINT": (F.MQIACH_HB_INTERVAL, 0), "BUFSSENT": (F.MQIACH_BUFFERS_SENT, 0),
         "BUFSRCVD": (F.MQIACH_BUFFERS_RCVD, 0), "SSLRKEYS": (F.MQIACH_SSL_KEY_RESETS, 0)}
_MCASTAT = {"RUNNING": F.MQMCAS_RUNNING, "STOPPED": F.MQMCAS_STOPPED}


def inquire_chstatus(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    pattern = p.s(p.need(msg, F.MQCACH_CHANNEL_NAME))
    out = []
    for st in a.services.channel_status(pattern):
        out.append([pcf.enc_str(F.MQCACH_CHANNEL_NAME, pad(st["CHANNEL"], 20)),
                    pcf.enc_int(F.MQIACH_CHANNEL_TYPE, CHLTYPE_VALUES[st["CHLTYPE"]]),
                    pcf.enc_int(F.MQIACH_CHANNEL_STATUS, CHSTATUS.get(st["STATUS"], F.MQCHS_INACTIVE)),
                    pcf.enc_str(F.MQCACH_CONNECTION_NAME, pad(st["CONNAME"], 264)),
                    pcf.enc_str(F.MQCACH_XMIT_Q_NAME, pad(st["XMITQ"], 48)),
                    pcf.enc_str(C.MQCA_REMOTE_Q_MGR_NAME, pad(st["RQMNAME"], 48)),
                    pcf.enc_int(F.MQIACH_MSGS, st["MSGS"])]
                   + ([pcf.enc_int(F.MQIACH_INDOUBT_STATUS, 1 if st["INDOUBT"] == "YES" else 0)]
                      if "INDOUBT" in st else [])
                   + [pcf.enc_int(sel, int(st[key])) if not width else pcf.enc_str(sel, pad(str(st[key]), width))
                      for key, (sel, width) in _MORE.items() if key in st]
                   + ([pcf.enc_int(F.MQIACH_MCA_STATUS, _MCASTAT[st["MCASTAT"]])] if "MCASTAT" in st else []))
    if not out:
        raise CommandError(F.MQRCCF_CHL_STATUS_NOT_FOUND, F.MQCACH_CHANNEL_NAME)
    return out


def channel_op(a: Admin, msg: pcf.Message, run: Callable[..., str | None], *args: Any) -> list[list[bytes]]:
    name = p.s(p.need(msg, F.MQCACH_CHANNEL_NAME))
    if a.qm.lookup("CHANNEL", name) is None:
        raise CommandError(F.MQRCCF_CHANNEL_NOT_FOUND, F.MQCACH_CHANNEL_NAME)
    err = run(name, *args)
    if err:
        reason = F.MQRCCF_CHANNEL_IN_USE if "AMQ9514E" in err else (
            F.MQRCCF_HOST_NOT_AVAILABLE if "AMQ9202E" in err else F.MQRCCF_COMMAND_FAILED)
        raise CommandError(reason, detail=err)
    return [[]]


def start_channel(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    return channel_op(a, msg, a.services.start_channel)


def stop_channel(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    mode = "FORCE" if msg.first(F.MQIACF_MODE, F.MQMODE_QUIESCE) == F.MQMODE_FORCE else "QUIESCE"
    status = "INACTIVE" if msg.first(F.MQIACH_CHANNEL_STATUS) == F.MQCHS_INACTIVE else "STOPPED"
    return channel_op(a, msg, a.services.stop_channel, mode, status)


def ping_channel(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    return channel_op(a, msg, a.services.ping_channel)
