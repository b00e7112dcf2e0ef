"""A subscription as DISPLAY SUB and SBSTATUS show it and PCF Inquire Subscription and Inquire
Subscription Status answer it: the fields declared once for both forms (``SUB_FIELDS``,
``SBSTATUS_FIELDS``, in the display's order) and their values for a subscription (``sub_row``,
``sbstatus_row``: PCF's numbers and strings, which the fields' words turn into MQSC's)."""
from __future__ import annotations

from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.engine.clock import mq_date_time
from mqlite.engine.fields import Field, enum, hex_upper


def _actconn(value: Any) -> str:
    """ACTCONN: the connection that has the subscription open (blank for none)."""
    return hex_upper(value) if any(bytes(value)) else ""


_YES_NO = {C.MQSUB_DURABLE_YES: "YES", C.MQSUB_DURABLE_NO: "NO"}
_SUBTYPE = {F.MQSUBTYPE_API: "API", F.MQSUBTYPE_ADMIN: "ADMIN", F.MQSUBTYPE_PROXY: "PROXY"}
SUB_FIELDS = (
    Field("SUBID", F.MQBACF_SUB_ID, word=hex_upper, binary=True),
    Field("SUB", F.MQCACF_SUB_NAME, -1),
    Field("TOPICSTR", C.MQCA_TOPIC_STRING, -1),
    Field("TOPICOBJ", C.MQCA_TOPIC_NAME, 48),
    Field("DEST", F.MQCACF_DESTINATION, 48),
    Field("DESTQMGR", F.MQCACF_DESTINATION_Q_MGR, 48),
    Field("DESTCLAS", F.MQIACF_DESTINATION_CLASS, word=enum({C.MQDC_MANAGED: "MANAGED", C.MQDC_PROVIDED: "PROVIDED"})),
    Field("DURABLE", F.MQIACF_DURABLE_SUBSCRIPTION, word=enum(_YES_NO)),
    Field("SUBTYPE", F.MQIACF_SUB_TYPE, word=enum(_SUBTYPE)),
    Field("USERDATA", F.MQCACF_SUB_USER_DATA, -1),
    Field("SUBUSER", F.MQCACF_SUB_USER_ID, 12),
    Field("VARUSER", F.MQIACF_VARIABLE_USER_ID, word=enum({C.MQVU_ANY_USER: "ANY", C.MQVU_FIXED_USER: "FIXED"})),
    Field("WSCHEMA", F.MQIACF_WILDCARD_SCHEMA, word=enum({C.MQWS_CHAR: "CHAR", C.MQWS_TOPIC: "TOPIC"})),
    Field("EXPIRY", F.MQIACF_EXPIRY, word=lambda v: "UNLIMITED" if v == C.MQEI_UNLIMITED else str(v)),
    Field("REQONLY", F.MQIACF_REQUEST_ONLY, word=enum({C.MQRU_PUBLISH_ON_REQUEST: "YES", C.MQRU_PUBLISH_ALL: "NO"})),
    Field("SELECTOR", F.MQCACF_SUB_SELECTOR, -1),
    Field("PUBPRTY", F.MQIACF_PUB_PRIORITY, word=enum({C.MQPRI_PRIORITY_AS_PUBLISHED: "ASPUB",
                                                       C.MQPRI_PRIORITY_AS_Q_DEF: "ASQDEF"})),
    Field("PSPROP", F.MQIACF_PUBSUB_PROPERTIES, word=enum({C.MQPSPROP_NONE: "NONE", C.MQPSPROP_COMPAT: "COMPAT",
                                                           C.MQPSPROP_RFH2: "RFH2", C.MQPSPROP_MSGPROP: "MSGPROP"})),
    Field("PUBACCT", F.MQBACF_ACCOUNTING_TOKEN, word=hex_upper, binary=True),
    Field("PUBAPPID", F.MQCACF_APPL_IDENTITY_DATA, 32),
    Field("SUBLEVEL", F.MQIACF_SUB_LEVEL),
    Field("SUBSCOPE", F.MQIACF_SUBSCRIPTION_SCOPE, word=enum({C.MQTSCOPE_QMGR: "QMGR", C.MQTSCOPE_ALL: "ALL"})),
    Field("DESTCORL", F.MQBACF_DESTINATION_CORREL_ID, word=hex_upper, binary=True),
    Field("CRDATE", C.MQCA_CREATION_DATE, 12),
    Field("CRTIME", C.MQCA_CREATION_TIME, 8),
)
SBSTATUS_FIELDS = (
    Field("SUB", F.MQCACF_SUB_NAME, -1),
    Field("SUBID", F.MQBACF_SUB_ID, word=hex_upper, binary=True),
    Field("DURABLE", F.MQIACF_DURABLE_SUBSCRIPTION, word=enum(_YES_NO)),
    Field("SUBTYPE", F.MQIACF_SUB_TYPE, word=enum(_SUBTYPE)),
    Field("NUMMSGS", F.MQIACF_MESSAGE_COUNT),
    Field("LMSGDATE", F.MQCACF_LAST_MSG_DATE, 12),
    Field("LMSGTIME", F.MQCACF_LAST_MSG_TIME, 8),
    Field("RESMDATE", C.MQCA_RESUME_DATE, 12),
    Field("RESMTIME", C.MQCA_RESUME_TIME, 8),
    Field("ACTCONN", F.MQBACF_CONNECTION_ID, word=_actconn, binary=True),
)
_SUBTYPES = {"API": F.MQSUBTYPE_API, "ADMIN": F.MQSUBTYPE_ADMIN, "PROXY": F.MQSUBTYPE_PROXY}


def sub_row(s: Any, now: float) -> dict[str, Any]:
    """SUB_FIELDS' values for subscription ``s`` (EXPIRY: what is left, in tenths of a second)."""
    d, t = mq_date_time(s.created)
    return {"SUBID": bytes.fromhex(s.subid), "SUB": s.name, "TOPICSTR": s.topic, "TOPICOBJ": s.topicobj,
            "DEST": s.queue, "DESTQMGR": s.qmgr, "DESTCLAS": C.MQDC_MANAGED if s.managed else C.MQDC_PROVIDED,
            "DURABLE": C.MQSUB_DURABLE_YES if s.durable else C.MQSUB_DURABLE_NO,
            "SUBTYPE": _SUBTYPES.get(s.subtype, F.MQSUBTYPE_API), "USERDATA": s.user_data, "SUBUSER": s.user,
            "VARUSER": C.MQVU_ANY_USER if s.options & C.MQSO_ANY_USERID else C.MQVU_FIXED_USER,
            "WSCHEMA": C.MQWS_CHAR if s.char_wildcards else C.MQWS_TOPIC,
            "EXPIRY": C.MQEI_UNLIMITED if s.expires_at is None else max(0, int((s.expires_at - now) * 10)),
            "REQONLY": C.MQRU_PUBLISH_ON_REQUEST if s.options & C.MQSO_PUBLICATIONS_ON_REQUEST else C.MQRU_PUBLISH_ALL,
            "SELECTOR": s.selector, "PUBPRTY": s.priority, "PSPROP": s.psprop,
            "PUBACCT": bytes.fromhex(s.pub_acct) or bytes(32), "PUBAPPID": s.pub_appl, "SUBLEVEL": s.sublevel,
            "SUBSCOPE": C.MQTSCOPE_QMGR if s.options & C.MQSO_SCOPE_QMGR else C.MQTSCOPE_ALL,
            "DESTCORL": bytes.fromhex(s.correl_id), "CRDATE": d, "CRTIME": t}


def sbstatus_row(s: Any, owner: bytes | None) -> dict[str, Any]:
    """SBSTATUS_FIELDS' values for subscription ``s`` (``owner``: the connection that has it open)."""
    ld, lt = mq_date_time(s.last_msg) if s.last_msg else ("", "")
    rd, rt = mq_date_time(s.resumed or s.created)
    return {"SUB": s.name, "SUBID": bytes.fromhex(s.subid),
            "DURABLE": C.MQSUB_DURABLE_YES if s.durable else C.MQSUB_DURABLE_NO,
            "SUBTYPE": _SUBTYPES.get(s.subtype, F.MQSUBTYPE_API), "NUMMSGS": s.publications,
            "LMSGDATE": ld, "LMSGTIME": lt, "RESMDATE": rd, "RESMTIME": rt, "ACTCONN": owner or bytes(24)}


def owner(conns: Any, sub: Any) -> bytes | None:
    """The connection (of ``conns``, the queue manager's) that has ``sub`` open, if one has."""
    return next((bytes(c.conn_id) for c in conns.values() if any(h.sub is sub for h in c.handles.values())), None)
