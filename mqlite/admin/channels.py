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
from mqlite.engine.fields import Field, enum
from mqlite.mqsc.cluster import CHSTATUS_WORDS
from mqlite.objects.attrs import CHLTYPE_VALUES

CHSTATUS = {w: v for v, w in CHSTATUS_WORDS.items()}

_MCASTAT = {"RUNNING": F.MQMCAS_RUNNING, "STOPPED": F.MQMCAS_STOPPED}
_SUBSTATE = {"OTHER": F.MQCHSSTATE_OTHER, "ENDBATCH": F.MQCHSSTATE_END_OF_BATCH, "SEND": F.MQCHSSTATE_SENDING,
             "RECEIVE": F.MQCHSSTATE_RECEIVING, "SERIALIZE": F.MQCHSSTATE_SERIALIZING,
             "RESYNCH": F.MQCHSSTATE_RESYNCHING, "HEARTBEAT": F.MQCHSSTATE_HEARTBEATING,
             "SCYEXIT": F.MQCHSSTATE_IN_SCYEXIT, "RCVEXIT": F.MQCHSSTATE_IN_RCVEXIT,
             "SENDEXIT": F.MQCHSSTATE_IN_SENDEXIT, "MSGEXIT": F.MQCHSSTATE_IN_MSGEXIT,
             "MREXIT": F.MQCHSSTATE_IN_MREXIT, "CHADEXIT": F.MQCHSSTATE_IN_CHADEXIT,
             "NETCONNECT": F.MQCHSSTATE_NET_CONNECTING, "SSLHANDSHK": F.MQCHSSTATE_SSL_HANDSHAKING,
             "NAMESERVER": F.MQCHSSTATE_NAME_SERVER, "MQPUT": F.MQCHSSTATE_IN_MQPUT, "MQGET": F.MQCHSSTATE_IN_MQGET,
             "MQICALL": F.MQCHSSTATE_IN_MQI_CALL, "COMPRESS": F.MQCHSSTATE_COMPRESSING}
_WORDS = {"CHLTYPE": CHLTYPE_VALUES, "STATUS": CHSTATUS, "INDOUBT": {"NO": 0, "YES": 1}, "MCASTAT": _MCASTAT,
          "SUBSTATE": _SUBSTATE}

# Inquire Channel Status's fields, declared once for the reply and for mqweb's reading of it (issue
# 62): the common part, then what a row may have besides (a message channel's batches and sequence
# numbers, a SVRCONN instance's counters, a sender's retries), in DISPLAY CHSTATUS ALL's order.
CHSTATUS_FIELDS = (
    Field("CHANNEL", F.MQCACH_CHANNEL_NAME, 20),
    Field("CHLTYPE", F.MQIACH_CHANNEL_TYPE, word=enum({v: k for k, v in CHLTYPE_VALUES.items()})),
    Field("CONNAME", F.MQCACH_CONNECTION_NAME, 264),
    Field("RQMNAME", C.MQCA_REMOTE_Q_MGR_NAME, 48),
    Field("STATUS", F.MQIACH_CHANNEL_STATUS, word=enum(CHSTATUS_WORDS)),
    Field("SUBSTATE", F.MQIACH_CHANNEL_SUBSTATE, word=enum({v: k for k, v in _SUBSTATE.items()})),
    Field("XMITQ", F.MQCACH_XMIT_Q_NAME, 48),
    Field("BATCHES", F.MQIACH_BATCHES), Field("CURSEQNO", F.MQIACH_CURRENT_SEQ_NUMBER),
    Field("INDOUBT", F.MQIACH_INDOUBT_STATUS, word=enum({0: "NO", 1: "YES"})),
    Field("LONGRTS", F.MQIACH_LONG_RETRIES_LEFT), Field("LSTSEQNO", F.MQIACH_LAST_SEQ_NUMBER),
    Field("MSGS", F.MQIACH_MSGS), Field("SHORTRTS", F.MQIACH_SHORT_RETRIES_LEFT),
    Field("BYTSRCVD", F.MQIACH_BYTES_RECEIVED), Field("BYTSSENT", F.MQIACH_BYTES_SENT),
    Field("CHSTADA", F.MQCACH_CHANNEL_START_DATE, 12), Field("CHSTATI", F.MQCACH_CHANNEL_START_TIME, 8),
    Field("CURSHCNV", F.MQIACH_CURRENT_SHARING_CONVS), Field("HBINT", F.MQIACH_HB_INTERVAL),
    Field("LSTMSGDA", F.MQCACH_LAST_MSG_DATE, 12), Field("LSTMSGTI", F.MQCACH_LAST_MSG_TIME, 8),
    Field("MAXSHCNV", F.MQIACH_MAX_SHARING_CONVS), Field("MCAUSER", F.MQCACH_MCA_USER_ID, 64),
    Field("RAPPLTAG", F.MQCACH_REMOTE_APPL_TAG, 28), Field("BUFSSENT", F.MQIACH_BUFFERS_SENT),
    Field("BUFSRCVD", F.MQIACH_BUFFERS_RCVD),
    Field("MCASTAT", F.MQIACH_MCA_STATUS, word=enum({v: k for k, v in _MCASTAT.items()})),
    Field("SSLRKEYS", F.MQIACH_SSL_KEY_RESETS),
)


def inquire_chstatus(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    pattern = p.s(p.need(msg, F.MQCACH_CHANNEL_NAME))
    out = []
    for st in a.services.channel_status(pattern):
        # (the row's words as PCF's numbers, a STATUS the table lacks as INACTIVE; a field the row
        # has no value for, or a blank word, is left out)
        row = {f.keyword: _WORDS[f.keyword].get(st[f.keyword], 0) if f.keyword in _WORDS else st[f.keyword]
               for f in CHSTATUS_FIELDS
               if st.get(f.keyword) is not None and (f.keyword not in _WORDS or str(st[f.keyword]).strip())}
        out.append(p.encode_fields([f for f in CHSTATUS_FIELDS if f.keyword in row], row, None))
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
