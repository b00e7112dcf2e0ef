"""What authority an administrative command needs (PCF through the command server, and MQSC in
Escape PCF): a pure function from the command to (object type, object name, authority) needs,
after MQ's tables on distributed platforms.

- Inquiries need ``dsp`` on the object named (on the queue manager for a generic name, since each
  object found would need it); DEFINE/CREATE and COPY need ``crt`` (on the queue manager: MQ keeps
  it on the object type's @class profile); ALTER/CHANGE ``chg``; DELETE ``dlt``; CLEAR ``clr``;
  START/STOP/PING/RESOLVE CHANNEL ``ctrl`` and RESET CHANNEL ``ctrlx`` on the channel.
- Queue-manager-wide commands (ALTER QMGR, security, cluster commands, REFRESH) need ``chg`` or
  ``ctrl`` on the queue manager; DISPLAY AUTHREC/CHLAUTH ``dsp`` on it.
Members of mqm need nothing; a command that needs what its user lacks is answered
MQRC_NOT_AUTHORIZED and changes nothing."""
from __future__ import annotations

from mqlite.cmq import CMQCFC as F
from mqlite.cmq import CMQZC as Z
from mqlite.mqsc.parser import MQSCSyntaxError, parse

Need = tuple[str, str, int]
QMGR = "QMGR"

_QUEUE_TYPES = {"QUEUE", "QLOCAL", "QALIAS", "QREMOTE", "QMODEL", "QSTATUS", "QCLUSTER"}
_MQSC_OBJTYPE = {**{t: "QUEUE" for t in _QUEUE_TYPES}, "CHANNEL": "CHANNEL", "CHSTATUS": "CHANNEL",
                 "NAMELIST": "NAMELIST", "LISTENER": "LISTENER", "LSSTATUS": "LISTENER", "AUTHINFO": "AUTHINFO",
                 "TOPIC": "TOPIC", "TPSTATUS": "TOPIC"}
_VERB_AUTH = {"DISPLAY": Z.MQZAO_DISPLAY, "ALTER": Z.MQZAO_CHANGE, "DELETE": Z.MQZAO_DELETE,
              "CLEAR": Z.MQZAO_CLEAR, "START": Z.MQZAO_CONTROL, "STOP": Z.MQZAO_CONTROL, "PING": Z.MQZAO_CONTROL,
              "RESOLVE": Z.MQZAO_CONTROL, "RESET": Z.MQZAO_CONTROL_EXTENDED}

# PCF commands: (object type, the parameter naming the object, authority).
_PCF: dict[int, tuple[str, int, int]] = {
    F.MQCMD_INQUIRE_Q: ("QUEUE", 2016, Z.MQZAO_DISPLAY),
    F.MQCMD_INQUIRE_Q_NAMES: ("QUEUE", 2016, Z.MQZAO_DISPLAY),
    F.MQCMD_INQUIRE_Q_STATUS: ("QUEUE", 2016, Z.MQZAO_DISPLAY),
    F.MQCMD_CHANGE_Q: ("QUEUE", 2016, Z.MQZAO_CHANGE),
    F.MQCMD_DELETE_Q: ("QUEUE", 2016, Z.MQZAO_DELETE),
    F.MQCMD_CLEAR_Q: ("QUEUE", 2016, Z.MQZAO_CLEAR),
    F.MQCMD_INQUIRE_CHANNEL: ("CHANNEL", F.MQCACH_CHANNEL_NAME, Z.MQZAO_DISPLAY),
    F.MQCMD_INQUIRE_CHANNEL_STATUS: ("CHANNEL", F.MQCACH_CHANNEL_NAME, Z.MQZAO_DISPLAY),
    F.MQCMD_START_CHANNEL: ("CHANNEL", F.MQCACH_CHANNEL_NAME, Z.MQZAO_CONTROL),
    F.MQCMD_STOP_CHANNEL: ("CHANNEL", F.MQCACH_CHANNEL_NAME, Z.MQZAO_CONTROL),
    F.MQCMD_PING_CHANNEL: ("CHANNEL", F.MQCACH_CHANNEL_NAME, Z.MQZAO_CONTROL),
    F.MQCMD_INQUIRE_NAMELIST: ("NAMELIST", 2010, Z.MQZAO_DISPLAY),
    F.MQCMD_INQUIRE_TOPIC: ("TOPIC", 2092, Z.MQZAO_DISPLAY),
    F.MQCMD_CHANGE_TOPIC: ("TOPIC", 2092, Z.MQZAO_CHANGE),
    F.MQCMD_DELETE_TOPIC: ("TOPIC", 2092, Z.MQZAO_DELETE),
}
_PCF_QMGR: dict[int, int] = {
    F.MQCMD_CREATE_Q: Z.MQZAO_CREATE, F.MQCMD_COPY_Q: Z.MQZAO_CREATE, F.MQCMD_INQUIRE_Q_MGR: Z.MQZAO_DISPLAY,
    F.MQCMD_CHANGE_Q_MGR: Z.MQZAO_CHANGE, F.MQCMD_PING_Q_MGR: Z.MQZAO_DISPLAY,
    F.MQCMD_INQUIRE_CLUSTER_Q_MGR: Z.MQZAO_DISPLAY, F.MQCMD_REFRESH_CLUSTER: Z.MQZAO_CONTROL,
    F.MQCMD_RESET_CLUSTER: Z.MQZAO_CONTROL, F.MQCMD_SUSPEND_Q_MGR_CLUSTER: Z.MQZAO_CONTROL,
    F.MQCMD_RESUME_Q_MGR_CLUSTER: Z.MQZAO_CONTROL,
    F.MQCMD_SET_AUTH_REC: Z.MQZAO_CHANGE, F.MQCMD_DELETE_AUTH_REC: Z.MQZAO_CHANGE,
    F.MQCMD_INQUIRE_AUTH_RECS: Z.MQZAO_DISPLAY, F.MQCMD_INQUIRE_ENTITY_AUTH: Z.MQZAO_DISPLAY,
    F.MQCMD_SET_CHLAUTH_REC: Z.MQZAO_CHANGE, F.MQCMD_INQUIRE_CHLAUTH_RECS: Z.MQZAO_DISPLAY,
    F.MQCMD_CREATE_TOPIC: Z.MQZAO_CREATE, F.MQCMD_CREATE_SUBSCRIPTION: Z.MQZAO_CHANGE,
    F.MQCMD_CHANGE_SUBSCRIPTION: Z.MQZAO_CHANGE, F.MQCMD_DELETE_SUBSCRIPTION: Z.MQZAO_CHANGE,
    F.MQCMD_INQUIRE_SUBSCRIPTION: Z.MQZAO_DISPLAY, F.MQCMD_INQUIRE_PUBSUB_STATUS: Z.MQZAO_DISPLAY,
    F.MQCMD_CLEAR_TOPIC_STRING: Z.MQZAO_ALL_ADMIN,     # as CLEAR TOPICSTR in Escape: administrators
}


def _object(objtype: str, name: str, auth: int, qmgr: str) -> Need:
    """A generic name is checked as dsp on the queue manager (each object found would need dsp)."""
    if not name or name.endswith("*"):
        return QMGR, qmgr, auth if auth == Z.MQZAO_DISPLAY else auth | Z.MQZAO_DISPLAY
    return objtype, name, auth


def pcf_needs(command: int, name: str, qmgr: str) -> list[Need]:
    """What a PCF command (other than Escape) naming ``name`` needs."""
    if command in _PCF:
        objtype, _sel, auth = _PCF[command]
        return [_object(objtype, name, auth, qmgr)]
    if command in _PCF_QMGR:
        return [(QMGR, qmgr, _PCF_QMGR[command])]
    return [(QMGR, qmgr, Z.MQZAO_ALL_ADMIN)]          # anything else: administrators only


def pcf_name_selector(command: int) -> int | None:
    entry = _PCF.get(command)
    return entry[1] if entry else None


def mqsc_needs(text: str, qmgr: str) -> list[Need]:
    """What an MQSC command (Escape PCF) needs; a command that does not parse needs nothing here
    (it fails on its own)."""
    try:
        cmd = parse(text)
    except MQSCSyntaxError:
        return []
    verb, ot, name = cmd.verb, cmd.objtype, cmd.name or ""
    if ot in ("QMGR", "QMSTATUS") or verb in ("SET", "REFRESH", "SUSPEND", "RESUME") or ot in (
            "CHLAUTH", "AUTHREC", "SECURITY", "CLUSTER", "CLUSQMGR"):
        auth = Z.MQZAO_DISPLAY if verb == "DISPLAY" else Z.MQZAO_CHANGE if verb in ("ALTER", "SET", "DELETE") \
            else Z.MQZAO_CONTROL
        return [(QMGR, qmgr, auth)]
    if verb == "DEFINE":
        needs = [(QMGR, qmgr, Z.MQZAO_CREATE)]
        like = cmd.param("LIKE")
        if like is not None and like.value:
            needs.append((_MQSC_OBJTYPE.get(ot, "QUEUE"), like.value, Z.MQZAO_DISPLAY))
        return needs
    objtype = _MQSC_OBJTYPE.get(ot)
    auth = _VERB_AUTH.get(verb)
    if objtype is None or auth is None:
        return [(QMGR, qmgr, Z.MQZAO_ALL_ADMIN)]
    return [_object(objtype, name, auth, qmgr)]
