"""PCF status inquiries and operator commands besides queues', channels' definitions and
connections': the queue manager's status, listeners (Inquire Listener Status, Start and Stop
Channel Listener), Reset and Resolve Channel, Refresh Security, and subscription and topic status.
Each answers as MQ documents the command, from the same state the MQSC twin shows."""
from __future__ import annotations

from typing import Any

from mqlite.admin import params as p
from mqlite.admin.channels import channel_op
from mqlite.admin.context import Admin
from mqlite.admin.params import CommandError
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.engine import topicstatus
from mqlite.engine.subfields import SBSTATUS_FIELDS, owner, sbstatus_row
from mqlite.mqsc.status import (
    LSSTATUS_FIELDS,
    QMSTATUS_FIELDS,
    SVSTATUS_FIELDS,
    lsstatus_row,
    qmstatus_row,
    svstatus_row,
)
from mqlite.objects.names import generic_match


# --- the queue manager --------------------------------------------------------------------------
def inquire_q_mgr_status(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """Inquire Queue Manager Status: what DISPLAY QMSTATUS shows (QMSTATUS_FIELDS)."""
    wanted = p.wanted(msg, F.MQIACF_Q_MGR_STATUS_ATTRS)
    values = p.field_values(QMSTATUS_FIELDS, qmstatus_row(a.qm))
    return [p.encode_values(values, None if wanted is None else [C.MQCA_Q_MGR_NAME, *wanted])]


# --- listeners ----------------------------------------------------------------------------------
def inquire_listener_status(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """Inquire Listener Status: what DISPLAY LSSTATUS shows (LSSTATUS_FIELDS), a running listener each."""
    pattern = p.trimmed(p.need(msg, F.MQCACH_LISTENER_NAME))
    wanted = p.wanted(msg, F.MQIACF_LISTENER_STATUS_ATTRS)
    out = []
    for name, obj in sorted(a.qm.objects["LISTENER"].items()):
        st = a.services.listener_status(name) if generic_match(pattern, name) else None
        if st is None:
            continue
        values = p.field_values(LSSTATUS_FIELDS, lsstatus_row(name, obj, st))
        if p.passes_values(msg, values):
            out.append(p.encode_values(values, None if wanted is None else [F.MQCACH_LISTENER_NAME, *wanted]))
    if not out:
        raise CommandError(F.MQRCCF_LSTR_STATUS_NOT_FOUND, F.MQCACH_LISTENER_NAME)
    return out


def start_channel_listener(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    name = p.trimmed(p.need(msg, F.MQCACH_LISTENER_NAME))
    obj = a.qm.lookup("LISTENER", name)
    if obj is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, F.MQCACH_LISTENER_NAME)
    if a.services.listener_status(name) is not None:
        raise CommandError(F.MQRCCF_LISTENER_RUNNING, F.MQCACH_LISTENER_NAME)
    err = a.services.start_listener(obj)
    if err:
        raise CommandError(F.MQRCCF_LISTENER_NOT_STARTED, F.MQCACH_LISTENER_NAME, err)
    return [[]]


def stop_channel_listener(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    name = p.trimmed(p.need(msg, F.MQCACH_LISTENER_NAME))
    if a.qm.lookup("LISTENER", name) is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, F.MQCACH_LISTENER_NAME)
    if a.services.stop_listener(name):
        raise CommandError(F.MQRCCF_LISTENER_STOPPED, F.MQCACH_LISTENER_NAME)
    return [[]]


# --- services -----------------------------------------------------------------------------------
def _service(a: Admin, msg: pcf.Message) -> Any:
    obj = a.qm.lookup("SERVICE", p.trimmed(p.need(msg, C.MQCA_SERVICE_NAME)))
    if obj is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCA_SERVICE_NAME)
    return obj


def start_service(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    obj = _service(a, msg)
    if obj["SERVTYPE"] == C.MQSVC_TYPE_SERVER and a.services.service_status(obj.name) is not None:
        raise CommandError(F.MQRCCF_SERVICE_RUNNING, C.MQCA_SERVICE_NAME)
    if not obj["STARTCMD"]:
        raise CommandError(F.MQRCCF_NO_START_CMD, C.MQCA_SERVICE_NAME)
    err = a.services.start_service(obj)
    if err:
        raise CommandError(F.MQRCCF_COMMAND_FAILED, C.MQCA_SERVICE_NAME, err)
    return [[]]


def stop_service(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    obj = _service(a, msg)
    if not obj["STOPCMD"] and a.services.service_status(obj.name) is None:
        raise CommandError(F.MQRCCF_SERVICE_STOPPED, C.MQCA_SERVICE_NAME)
    err = a.services.stop_service(obj)
    if err:
        raise CommandError(F.MQRCCF_COMMAND_FAILED, C.MQCA_SERVICE_NAME, err)
    return [[]]


def inquire_service_status(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """Inquire Service Status: what DISPLAY SVSTATUS shows (SVSTATUS_FIELDS), a running service each."""
    pattern = p.trimmed(p.need(msg, C.MQCA_SERVICE_NAME))
    wanted = p.wanted(msg, F.MQIACF_SERVICE_STATUS_ATTRS)
    out = []
    for name, obj in sorted(a.qm.objects["SERVICE"].items()):
        st = a.services.service_status(name) if generic_match(pattern, name) else None
        if st is None:
            continue
        values = p.field_values(SVSTATUS_FIELDS, svstatus_row(name, obj, st))
        if p.passes_values(msg, values):
            out.append(p.encode_values(values, None if wanted is None else [C.MQCA_SERVICE_NAME, *wanted]))
    if not out:
        raise CommandError(F.MQRCCF_SERV_STATUS_NOT_FOUND, C.MQCA_SERVICE_NAME)
    return out


# --- channels -----------------------------------------------------------------------------------
def reset_channel(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    seq = msg.first(F.MQIACH_MSG_SEQUENCE_NUMBER, 1)
    if not 1 <= seq <= 999_999_999:
        raise CommandError(F.MQRCCF_MSG_SEQ_NUMBER_ERROR, F.MQIACH_MSG_SEQUENCE_NUMBER)
    return channel_op(a, msg, a.services.reset_channel, seq)


def resolve_channel(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    action = p.need(msg, F.MQIACH_IN_DOUBT)
    if action not in (F.MQIDO_COMMIT, F.MQIDO_BACKOUT):
        raise CommandError(F.MQRCCF_INDOUBT_VALUE_ERROR, F.MQIACH_IN_DOUBT)
    return channel_op(a, msg, a.services.resolve_channel, "COMMIT" if action == F.MQIDO_COMMIT else "BACKOUT")


# --- security -----------------------------------------------------------------------------------
_SECURITY_TYPES = {F.MQSECTYPE_AUTHSERV: "AUTHSERV", F.MQSECTYPE_SSL: "SSL", F.MQSECTYPE_CONNAUTH: "CONNAUTH"}


def reset_q_mgr(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """Reset Queue Manager with Action MQACT_COLLECT_STATISTICS: the statistics interval ends now
    (RESET QMGR TYPE(STATISTICS)); the log and publish/subscribe actions are not mqlite's."""
    action = p.need(msg, F.MQIACF_ACTION)
    if action != F.MQACT_COLLECT_STATISTICS:
        raise CommandError(F.MQRCCF_PARM_VALUE_ERROR, F.MQIACF_ACTION)
    return a.mqsc("RESET QMGR TYPE(STATISTICS)")


# Refresh Queue Manager's ObjectType as REFRESH QMGR's OBJECT names it.
_REFRESH_OBJECTS = {C.MQOT_ALL: "ALL", C.MQOT_Q: "QUEUE", C.MQOT_LOCAL_Q: "QLOCAL", C.MQOT_ALIAS_Q: "QALIAS",
                    C.MQOT_MODEL_Q: "QMODEL", C.MQOT_REMOTE_Q: "QREMOTE", C.MQOT_Q_MGR: "QMGR",
                    C.MQOT_CHANNEL: "CHANNEL", C.MQOT_NAMELIST: "NAMELIST", C.MQOT_PROCESS: "PROCESS",
                    C.MQOT_AUTH_INFO: "AUTHINFO", C.MQOT_TOPIC: "TOPIC", C.MQOT_LISTENER: "LISTENER",
                    C.MQOT_SERVICE: "SERVICE", C.MQOT_COMM_INFO: "COMMINFO", C.MQOT_AUTH_REC: "AUTHREC",
                    C.MQOT_CHLAUTH: "CHLAUTH"}


def refresh_q_mgr(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """Refresh Queue Manager with RefreshType MQRT_CONFIGURATION: Refresh Object events for the
    definitions ObjectType, ObjectName and RefreshInterval choose (REFRESH QMGR TYPE(CONFIGEV))."""
    if p.need(msg, F.MQIACF_REFRESH_TYPE) != F.MQRT_CONFIGURATION:
        raise CommandError(F.MQRCCF_PARM_VALUE_ERROR, F.MQIACF_REFRESH_TYPE)
    word = _REFRESH_OBJECTS.get(msg.first(F.MQIACF_OBJECT_TYPE, C.MQOT_ALL))
    if word is None:
        raise CommandError(F.MQRCCF_OBJECT_TYPE_MISSING, F.MQIACF_OBJECT_TYPE)
    name = p.trimmed(msg.first(F.MQCACF_OBJECT_NAME, b"*")) or "*"
    interval = msg.first(F.MQIACF_REFRESH_INTERVAL, 0)
    return a.mqsc(f"REFRESH QMGR TYPE(CONFIGEV) OBJECT({word}) NAME('{name}')"
                  + (f" INCLINT({interval})" if interval else ""))


def refresh_security(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """Refresh Security: the OAM's cache (AUTHSERV, the default), the TLS key repository (SSL) or
    connection authentication's settings (CONNAUTH), as REFRESH SECURITY does."""
    kind = _SECURITY_TYPES.get(msg.first(F.MQIACF_SECURITY_TYPE, F.MQSECTYPE_AUTHSERV))
    if kind is None:
        raise CommandError(F.MQRCCF_PARM_VALUE_ERROR, F.MQIACF_SECURITY_TYPE)
    return a.mqsc(f"REFRESH SECURITY TYPE({kind})")


# --- publish/subscribe --------------------------------------------------------------------------
def inquire_sub_status(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """Inquire Subscription Status, by SubName (generic) or SubId: what DISPLAY SBSTATUS shows
    (SBSTATUS_FIELDS)."""
    name = msg.first(F.MQCACF_SUB_NAME)
    subid = msg.first(F.MQBACF_SUB_ID)
    if name is None and subid is None:
        raise CommandError(F.MQRCCF_PARM_COUNT_TOO_SMALL, F.MQCACF_SUB_NAME)
    pattern = p.trimmed(name) if name is not None else ""
    qm = a.qm
    out = []
    for s in sorted(qm.pubsub.subscriptions.values(), key=lambda s: (s.name, s.subid)):
        if subid is not None and bytes.fromhex(s.subid) != bytes(subid):
            continue
        if name is not None and not generic_match(pattern, s.name):
            continue
        values = p.field_values(SBSTATUS_FIELDS, sbstatus_row(s, owner(qm.conns, s)))
        if p.passes_values(msg, values):
            out.append(p.encode_values(values, None))
    if not out:
        raise CommandError(C.MQRC_NO_SUBSCRIPTION, F.MQCACF_SUB_NAME)
    return out


def inquire_topic_status(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """Inquire Topic Status of StatusType TOPIC (a node's resolved attributes, publisher and
    subscriber counts, retained publication, administrative topic), SUB (each subscription on it)
    or PUB (each publisher): what DISPLAY TPSTATUS shows (engine.topicstatus)."""
    kind = {v: k for k, v in topicstatus.TYPES.items()}.get(msg.first(F.MQIACF_TOPIC_STATUS_TYPE,
                                                                     F.MQIACF_TOPIC_STATUS))
    if kind is None:
        raise CommandError(F.MQRCCF_PARM_VALUE_ERROR, F.MQIACF_TOPIC_STATUS_TYPE)
    chosen = topicstatus.matching(a.qm, p.trimmed(p.need(msg, C.MQCA_TOPIC_STRING)))
    if not chosen:
        raise CommandError(F.MQRCCF_TOPIC_STRING_NOT_FOUND, C.MQCA_TOPIC_STRING)
    fields = topicstatus.FIELDS[kind]
    out = []
    for node in chosen:
        for row in topicstatus.rows(a.qm, node, kind):
            values = p.field_values([f for f in fields if f.keyword in row], row)
            if p.passes_values(msg, values):
                out.append(p.encode_values(values, None))
    return out
