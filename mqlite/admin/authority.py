"""What authority an administrative command needs, after MQ's tables on distributed platforms:
for a PCF command, what its declaration in the command table says (``admin.commands``); for MQSC
in Escape PCF, ``mqsc_needs``, a pure function from the command to (object type, object name,
authority) needs.

- Inquiries need ``dsp`` on the object named (on the queue manager for a generic name, since each
  object found would need it); DEFINE/CREATE and COPY need ``crt`` (on the queue manager: MQ keeps
  it on the object type's @class profile); ALTER/CHANGE ``chg``; DELETE ``dlt``; CLEAR ``clr``;
  START/STOP/PING/RESOLVE CHANNEL ``ctrl`` and RESET CHANNEL ``ctrlx`` on the channel.
- Queue-manager-wide commands (ALTER QMGR, security, cluster commands, REFRESH) need ``chg`` or
  ``ctrl`` on the queue manager; DISPLAY AUTHREC/CHLAUTH ``dsp`` on it.
Members of mqm need nothing; a command that needs what its user lacks is answered
MQRC_NOT_AUTHORIZED and changes nothing."""
from __future__ import annotations

from mqlite.cmq import CMQZC as Z
from mqlite.mqsc.parser import MQSCSyntaxError, parse

Need = tuple[str, str, int]
QMGR = "QMGR"

_QUEUE_TYPES = {"QUEUE", "QLOCAL", "QALIAS", "QREMOTE", "QMODEL", "QSTATUS", "QCLUSTER"}
_MQSC_OBJTYPE = {**{t: "QUEUE" for t in _QUEUE_TYPES}, "CHANNEL": "CHANNEL", "CHSTATUS": "CHANNEL",
                 "NAMELIST": "NAMELIST", "LISTENER": "LISTENER", "LSSTATUS": "LISTENER", "AUTHINFO": "AUTHINFO",
                 "TOPIC": "TOPIC", "TPSTATUS": "TOPIC", "PROCESS": "PROCESS", "SERVICE": "SERVICE",
                 "COMMINFO": "COMMINFO"}
_VERB_AUTH = {"DISPLAY": Z.MQZAO_DISPLAY, "ALTER": Z.MQZAO_CHANGE, "DELETE": Z.MQZAO_DELETE,
              "CLEAR": Z.MQZAO_CLEAR, "START": Z.MQZAO_CONTROL, "STOP": Z.MQZAO_CONTROL, "PING": Z.MQZAO_CONTROL,
              "RESOLVE": Z.MQZAO_CONTROL, "RESET": Z.MQZAO_CONTROL_EXTENDED}

def object_need(objtype: str, name: str, auth: int, qmgr: str) -> Need:
    """A generic name is checked as dsp on the queue manager (each object found would need dsp)."""
    if not name or name.endswith("*"):
        return QMGR, qmgr, auth if auth == Z.MQZAO_DISPLAY else auth | Z.MQZAO_DISPLAY
    return objtype, name, auth


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
    verb_auth = _VERB_AUTH.get(verb)
    if objtype is None or verb_auth is None:
        return [(QMGR, qmgr, Z.MQZAO_ALL_ADMIN)]
    return [object_need(objtype, name, verb_auth, qmgr)]
