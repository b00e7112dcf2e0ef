"""PCF publish/subscribe commands: Create, Copy and Change Topic (their topic string is the
command's own; Delete, Inquire and Inquire Names are ``admin.objects``'), Inquire Pub/Sub Status,
Clear Topic String, and Create/Change/Delete/Inquire Subscription over the engine's
administrative subscriptions."""
from __future__ import annotations

from typing import Any

from mqlite.admin import params as prm
from mqlite.admin.context import Admin
from mqlite.admin.objects import TOPIC
from mqlite.admin.params import CommandError
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import pad
from mqlite.engine import admin
from mqlite.engine.subfields import SUB_FIELDS, sub_row
from mqlite.objects.names import generic_match


def _topic_values(a: Admin, msg: pcf.Message) -> dict[str, Any]:
    """The attribute parameters (the names and TopicString are the command's own)."""
    return prm.values(msg, "TOPIC", TOPIC.control | {C.MQCA_TOPIC_STRING})


def create_topic(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    return _define_topic(a, msg, prm.trimmed(prm.need(msg, C.MQCA_TOPIC_NAME)), None)


def copy_topic(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """Copy Topic: a new topic object like another, with a topic string of its own (required,
    since no two topic objects may share one)."""
    src = prm.trimmed(prm.need(msg, F.MQCACF_FROM_TOPIC_NAME))
    if a.qm.lookup("TOPIC", src) is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, F.MQCACF_FROM_TOPIC_NAME)
    return _define_topic(a, msg, prm.trimmed(prm.need(msg, F.MQCACF_TO_TOPIC_NAME)), src)


def _define_topic(a: Admin, msg: pcf.Message, name: str, like: str | None) -> list[list[bytes]]:
    values = _topic_values(a, msg)
    topicstr = prm.trimmed(msg.first(C.MQCA_TOPIC_STRING))
    if not topicstr:
        raise CommandError(F.MQRCCF_PARM_COUNT_TOO_SMALL, C.MQCA_TOPIC_STRING, "TopicString is required")
    if any(o["TOPICSTR"] == topicstr and o.name != name for o in a.qm.objects["TOPIC"].values()):
        raise CommandError(F.MQRCCF_TOPICSTR_ALREADY_EXISTS, C.MQCA_TOPIC_STRING)
    values["TOPICSTR"] = topicstr
    replace = msg.first(F.MQIACF_REPLACE, F.MQRP_NO) == F.MQRP_YES
    a.run(admin.define, "TOPIC", name, values, like, replace)
    return [[]]


def change_topic(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    if msg.first(C.MQCA_TOPIC_STRING) is not None:
        raise CommandError(F.MQRCCF_CFST_PARM_ID_ERROR, C.MQCA_TOPIC_STRING, "TopicString cannot be changed")
    a.run(admin.alter, "TOPIC", prm.trimmed(prm.need(msg, C.MQCA_TOPIC_NAME)), _topic_values(a, msg))
    return [[]]


def inquire_pubsub_status(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """Inquire Pub/Sub Status: this queue manager's engine (MQPSST_LOCAL), its hierarchy
    connections (MQPSST_PARENT, MQPSST_CHILD), or all (MQPSST_ALL), as DISPLAY PUBSUB."""
    kind = msg.first(F.MQIACF_PS_STATUS_TYPE, F.MQPSST_ALL)
    if kind not in (F.MQPSST_ALL, F.MQPSST_LOCAL, F.MQPSST_PARENT, F.MQPSST_CHILD):
        raise CommandError(F.MQRCCF_PARM_VALUE_ERROR, F.MQIACF_PS_STATUS_TYPE)
    out = []
    if kind in (F.MQPSST_ALL, F.MQPSST_LOCAL):
        status, subcount, tpcount = a.qm.pubadmin.pubsub_status()
        out.append([pcf.enc_str(C.MQCA_Q_MGR_NAME, pad(a.qm.name, 48)),
                    pcf.enc_int(F.MQIACF_PS_STATUS_TYPE, F.MQPSST_LOCAL), pcf.enc_int(F.MQIACF_PUBSUB_STATUS, status),
                    pcf.enc_int(C.MQIA_SUB_COUNT, subcount), pcf.enc_int(C.MQIA_TOPIC_NODE_COUNT, tpcount)])
    for rtype, qmname, status, subcount in a.qm.pubhier.status():
        code = F.MQPSST_PARENT if rtype == "PARENT" else F.MQPSST_CHILD
        if kind in (F.MQPSST_ALL, code):
            out.append([pcf.enc_str(C.MQCA_Q_MGR_NAME, pad(qmname, 48)), pcf.enc_int(F.MQIACF_PS_STATUS_TYPE, code),
                        pcf.enc_int(F.MQIACF_PUBSUB_STATUS, status), pcf.enc_int(C.MQIA_SUB_COUNT, subcount)])
    return out


def clear_topic_string(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """Clear Topic String: ClearType MQCLRT_RETAINED (required), Scope MQCLRS_LOCAL (the only
    one on distributed platforms), as CLEAR TOPICSTR."""
    topic = prm.trimmed(prm.need(msg, C.MQCA_TOPIC_STRING))
    if prm.need(msg, F.MQIACF_CLEAR_TYPE) != F.MQCLRT_RETAINED:
        raise CommandError(F.MQRCCF_PARM_VALUE_ERROR, F.MQIACF_CLEAR_TYPE)
    if msg.first(F.MQIACF_CLEAR_SCOPE, F.MQCLRS_LOCAL) != F.MQCLRS_LOCAL:
        raise CommandError(F.MQRCCF_PARM_VALUE_ERROR, F.MQIACF_CLEAR_SCOPE)
    a.qm.pubadmin.clear_retained(topic)
    return [[]]


def create_subscription(a: Admin, msg: pcf.Message, alter: bool = False) -> list[list[bytes]]:
    name = prm.trimmed(prm.need(msg, F.MQCACF_SUB_NAME))
    existing = next((s for s in a.qm.pubsub.subscriptions.values() if s.name == name), None)
    if alter and existing is None:
        raise CommandError(C.MQRC_NO_SUBSCRIPTION, F.MQCACF_SUB_NAME)
    managed = msg.first(F.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED if existing is not None and existing.managed
                        else C.MQDC_PROVIDED) == C.MQDC_MANAGED
    varuser = msg.first(F.MQIACF_VARIABLE_USER_ID)
    if varuser not in (None, C.MQVU_ANY_USER, C.MQVU_FIXED_USER):
        raise CommandError(F.MQRCCF_PARM_VALUE_ERROR, F.MQIACF_VARIABLE_USER_ID)
    try:
        a.qm.pubadmin.define_subscription(
            name, existing.topic if existing is not None and alter else prm.trimmed(msg.first(C.MQCA_TOPIC_STRING)),
            "" if alter else prm.trimmed(msg.first(C.MQCA_TOPIC_NAME)),
            prm.trimmed(msg.first(F.MQCACF_DESTINATION)) or (existing.queue if existing is not None else ""),
            prm.trimmed(msg.first(F.MQCACF_DESTINATION_Q_MGR)) or (existing.qmgr if existing is not None else ""),
            managed, prm.trimmed(msg.first(F.MQCACF_SUB_USER_DATA)) or (existing.user_data if existing is not None else ""),
            bool(existing.char_wildcards) if existing is not None else False,
            replace=alter or msg.first(F.MQIACF_REPLACE, F.MQRP_NO) == F.MQRP_YES,
            user=prm.trimmed(msg.first(F.MQCACF_SUB_USER_ID)),
            any_user=None if varuser is None else varuser == C.MQVU_ANY_USER, given=_sub_settings(msg))
    except MQIError as e:
        raise CommandError(e.reason, F.MQCACF_SUB_NAME) from None
    return [[]]


def change_subscription(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    return create_subscription(a, msg, alter=True)


def delete_subscription(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """Delete Subscription: by MQCACF_SUB_NAME or by MQBACF_SUB_ID (MQ takes either)."""
    subid = msg.first(F.MQBACF_SUB_ID)
    try:
        if subid is not None:
            a.qm.pubadmin.delete_subscription("", bytes(subid).hex())
        else:
            a.qm.pubadmin.delete_subscription(prm.trimmed(prm.need(msg, F.MQCACF_SUB_NAME)))
    except MQIError as e:
        raise CommandError(e.reason, F.MQBACF_SUB_ID if subid is not None else F.MQCACF_SUB_NAME) from None
    return [[]]


def inquire_subscription(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """Inquire Subscription, by SubName (generic) or SubId: what DISPLAY SUB shows (SUB_FIELDS)."""
    pattern = prm.trimmed(msg.first(F.MQCACF_SUB_NAME)) or "*"
    subid = msg.first(F.MQBACF_SUB_ID)
    wanted = prm.wanted(msg, F.MQIACF_SUB_ATTRS)
    now = a.qm.clock.now()
    out = []
    for s in sorted(a.qm.pubsub.subscriptions.values(), key=lambda s: s.name or s.subid):
        if subid is not None and bytes(subid) != bytes.fromhex(s.subid):
            continue
        if subid is None and not generic_match(pattern, s.name):
            continue
        values = prm.field_values(SUB_FIELDS, sub_row(s, now))
        if prm.passes_values(msg, values):
            out.append(prm.encode_values(values, None if wanted is None
                                         else [F.MQCACF_SUB_NAME, F.MQBACF_SUB_ID, *wanted]))
    if not out:
        raise CommandError(C.MQRC_NO_SUBSCRIPTION, F.MQCACF_SUB_NAME)
    return out


def _sub_settings(msg: pcf.Message) -> dict[str, Any]:
    """PCF Create/Change Subscription's other parameters as define_subscription takes them."""
    given: dict[str, Any] = {}
    for param, key in ((F.MQCACF_SUB_SELECTOR, "SELECTOR"), (F.MQCACF_APPL_IDENTITY_DATA, "PUBAPPID")):
        if msg.first(param) is not None:
            given[key] = prm.trimmed(msg.first(param))
    for param, key in ((F.MQIACF_PUB_PRIORITY, "PUBPRTY"), (F.MQIACF_EXPIRY, "EXPIRY"),
                       (F.MQIACF_PUBSUB_PROPERTIES, "PSPROP"), (F.MQIACF_SUB_LEVEL, "SUBLEVEL")):
        if msg.first(param) is not None:
            given[key] = int(msg.first(param))
    if msg.first(F.MQIACF_REQUEST_ONLY) is not None:
        given["REQONLY"] = msg.first(F.MQIACF_REQUEST_ONLY) == C.MQRU_PUBLISH_ON_REQUEST
    if msg.first(F.MQIACF_SUBSCRIPTION_SCOPE) is not None:
        given["SUBSCOPE"] = C.MQSCOPE_QMGR if msg.first(F.MQIACF_SUBSCRIPTION_SCOPE) == C.MQTSCOPE_QMGR else C.MQSCOPE_ALL
    for param, key, size in ((F.MQBACF_ACCOUNTING_TOKEN, "PUBACCT", 32), (F.MQBACF_DESTINATION_CORREL_ID, "DESTCORL", 24)):
        if msg.first(param) is not None:
            given[key] = bytes(msg.first(param))[:size].ljust(size, b"\0").hex()
    return given
