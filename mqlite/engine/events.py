"""Instrumentation events: PCF event messages (MQCFH Type MQCFT_EVENT, the event's Command and
Reason, MQCC_WARNING, then its documented parameters in order) put to MQ's event queues when the
queue manager's switch for the kind of event is ENABLED (docs/instrumentation.md lists them all).

Which events, and what decides each, read like MQ's rules:

- Queue manager events, to SYSTEM.ADMIN.QMGR.EVENT: an MQI call that fails with the event's reason
  raises it (INHIBTEV, LOCALEV, REMOTEEV: ``QMGR_EVENTS``); a refused authority check raises Not
  Authorized of its type (AUTHOREV: ``AUTHORITY_EVENTS``); STRSTPEV at start and end.
- Performance events, to SYSTEM.ADMIN.PERFM.EVENT, when PERFMEV is ENABLED: queue depth High, Low
  and Full (``depth_event``) and service interval High and OK (``service_event``), each switching
  the queue's own switches as MQ does after it (``DEPTH_RULES``), with the queue's event
  statistics (those of Reset Queue Statistics), which it resets.
- Channel events (CHLEV, SSLEV), to SYSTEM.ADMIN.CHANNEL.EVENT: started, stopped, stopped by
  user, blocked, SSL errors.
- Configuration and command events (CONFIGEV, CMDEV) carry who issued the command (``Issuer``).
- Writing an event never fails the operation that caused it: an event queue that is full,
  inhibited or missing loses the event, as MQ loses it.

The parameters of each event are declared once, in the order MQ's documentation gives for it."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import MD, OD, PMO, pad, text
from mqlite.objects.attrs import CHLTYPE_VALUES, QTYPE_VALUES, encode_attrs
from mqlite.objects.model import MQObject
from mqlite.security.pcfform import OBJTYPE_MQOT, chlauth_params, entity_params

MQEVR_ENABLED = F.MQEVR_ENABLED
QMGR_EVENT_QUEUE = "SYSTEM.ADMIN.QMGR.EVENT"
PERFM_EVENT_QUEUE = "SYSTEM.ADMIN.PERFM.EVENT"
CONFIG_EVENT_QUEUE = "SYSTEM.ADMIN.CONFIG.EVENT"
CHANNEL_EVENT_QUEUE = "SYSTEM.ADMIN.CHANNEL.EVENT"
COMMAND_EVENT_QUEUE = "SYSTEM.ADMIN.COMMAND.EVENT"

# reason -> (the queue manager's switch, the event data in MQ's order). Tokens: QMGR (QMgrName),
# QNAME (QName from the MQOD), APPLTYPE, APPLNAME, OBJQMGR (ObjectQMgrName, only when the MQOD named
# another queue manager), CLIENT (ConnName and ChannelName, only for a client connection).
_XMITQ_EVENT = ("QMGR", "QNAME", "XMITQ", "APPLTYPE", "APPLNAME", "OBJQMGR", "CLIENT")
_XMITQ_TYPE_EVENT = ("QMGR", "QNAME", "XMITQ", "QTYPE", "APPLTYPE", "APPLNAME", "OBJQMGR", "CLIENT")
QMGR_EVENTS: dict[int, tuple[str, tuple[str, ...]]] = {
    C.MQRC_PUT_INHIBITED: ("INHIBTEV", ("QMGR", "QNAME", "APPLTYPE", "APPLNAME", "OBJQMGR", "CLIENT")),
    C.MQRC_GET_INHIBITED: ("INHIBTEV", ("QMGR", "QNAME", "APPLTYPE", "APPLNAME", "CLIENT")),
    C.MQRC_UNKNOWN_OBJECT_NAME: ("LOCALEV", ("QMGR", "APPLTYPE", "APPLNAME", "QNAME", "OBJQMGR", "CLIENT")),
    C.MQRC_UNKNOWN_ALIAS_BASE_Q: ("LOCALEV", ("QMGR", "QNAME", "BASE", "APPLTYPE", "APPLNAME", "OBJQMGR", "BASETYPE",
                                              "CLIENT")),
    C.MQRC_ALIAS_BASE_Q_TYPE_ERROR: ("LOCALEV", ("QMGR", "QNAME", "BASE", "QTYPE", "APPLTYPE", "APPLNAME", "OBJQMGR",
                                                 "CLIENT")),
    C.MQRC_UNKNOWN_REMOTE_Q_MGR: ("REMOTEEV", ("QMGR", "QNAME", "APPLTYPE", "APPLNAME", "OBJQMGR", "CLIENT")),
    C.MQRC_REMOTE_Q_NAME_ERROR: ("REMOTEEV", ("QMGR", "QNAME", "APPLTYPE", "APPLNAME", "OBJQMGR", "CLIENT")),
    C.MQRC_UNKNOWN_XMIT_Q: ("REMOTEEV", _XMITQ_EVENT),
    C.MQRC_XMIT_Q_TYPE_ERROR: ("REMOTEEV", _XMITQ_TYPE_EVENT),
    C.MQRC_XMIT_Q_USAGE_ERROR: ("REMOTEEV", _XMITQ_EVENT),
    C.MQRC_UNKNOWN_DEF_XMIT_Q: ("REMOTEEV", _XMITQ_EVENT),
    C.MQRC_DEF_XMIT_Q_TYPE_ERROR: ("REMOTEEV", _XMITQ_TYPE_EVENT),
    C.MQRC_DEF_XMIT_Q_USAGE_ERROR: ("REMOTEEV", _XMITQ_EVENT),
}


# MQRQ_* -> the Not Authorized event's data in MQ's order (types 1 to 6). Type 2's object is one
# of QNAME, PROCESS, or TOPIC with ADMINTOPICS (the topic objects whose authority was checked);
# type 3's the permanent dynamic queue MQCLOSE would delete; type 6's the subscription's
# destination queue (OBJQMGR when on another queue manager) and the options asked of it.
AUTHORITY_EVENTS: dict[int, tuple[str, ...]] = {
    F.MQRQ_CONN_NOT_AUTHORIZED: ("QMGR", "RQ", "USER", "APPLTYPE", "APPLNAME", "CLIENT"),
    F.MQRQ_CSP_NOT_AUTHORIZED: ("QMGR", "RQ", "USER", "APPLTYPE", "APPLNAME", "CLIENT", "CSPUSER"),
    F.MQRQ_OPEN_NOT_AUTHORIZED: ("QMGR", "RQ", "OPTIONS", "USER", "APPLTYPE", "APPLNAME", "OBJQMGR", "QNAME",
                                 "PROCESS", "TOPIC", "ADMINTOPICS", "CLIENT"),
    F.MQRQ_CLOSE_NOT_AUTHORIZED: ("QMGR", "RQ", "USER", "APPLTYPE", "APPLNAME", "QNAME", "CLIENT"),
    F.MQRQ_CMD_NOT_AUTHORIZED: ("QMGR", "RQ", "COMMAND", "USER"),
    F.MQRQ_SUB_NOT_AUTHORIZED: ("QMGR", "RQ", "SUBOPTIONS", "USER", "APPLTYPE", "APPLNAME", "TOPIC", "ADMINTOPICS",
                                "CLIENT"),
    F.MQRQ_SUB_DEST_NOT_AUTHORIZED: ("QMGR", "RQ", "SUBOPTIONS", "USER", "APPLTYPE", "APPLNAME", "TOPIC", "OBJQMGR",
                                     "QNAME", "DESTOPTIONS", "CLIENT"),
}


def event_params(tokens: tuple[str, ...], qmgr: str, conn: Any, **v: Any) -> list[bytes]:
    """An event's parameters from its tokens, in their order. The application's type, name,
    connection name and channel come from ``v`` (appltype, applname, conname, channel) or else
    from ``conn``; a token whose value is absent (an object of another type, ObjectQMgrName naming
    this queue manager, CLIENT for a local application) is left out, as MQ leaves it out."""
    def get(key: str, attr: str, default: Any) -> Any:
        if key in v:
            return v[key]
        return getattr(conn, attr, default) if conn is not None else default
    out: list[bytes] = []
    for token in tokens:
        if token == "QMGR":
            out.append(pcf.enc_str(C.MQCA_Q_MGR_NAME, pad(qmgr, 48)))
        elif token == "RQ":
            out.append(pcf.enc_int(F.MQIACF_REASON_QUALIFIER, v["rq"]))
        elif token == "OPTIONS":
            out.append(pcf.enc_int(F.MQIACF_OPEN_OPTIONS, v["options"]))
        elif token == "DESTOPTIONS":
            out.append(pcf.enc_int(F.MQIACF_OPEN_OPTIONS, v["dest_options"]))
        elif token == "SUBOPTIONS":
            out.append(pcf.enc_int(F.MQIACF_SUB_OPTIONS, v["options"]))
        elif token == "COMMAND":
            out.append(pcf.enc_int(F.MQIACF_COMMAND, v["command"]))
        elif token == "USER":
            out.append(pcf.enc_str(F.MQCACF_USER_IDENTIFIER, pad(v["user"], 12)))
        elif token == "CSPUSER":
            out.append(pcf.enc_str(F.MQCACF_CSP_USER_IDENTIFIER, v["csp_user"]))
        elif token == "APPLTYPE":
            out.append(pcf.enc_int(C.MQIA_APPL_TYPE, get("appltype", "appl_type", C.MQAT_UNIX)))
        elif token == "APPLNAME":
            out.append(pcf.enc_str(F.MQCACF_APPL_NAME, pad(get("applname", "appl_name", ""), 28)))
        elif token == "OBJQMGR":
            objqmgr = v.get("objqmgr", "")
            if objqmgr and objqmgr != qmgr:
                out.append(pcf.enc_str(F.MQCACF_OBJECT_Q_MGR_NAME, pad(objqmgr, 48)))
        elif token == "XMITQ" and v.get("xmitq") is not None:
            out.append(pcf.enc_str(C.MQCA_XMIT_Q_NAME, pad(v["xmitq"], 48)))
        elif token == "QTYPE" and v.get("qtype") is not None:
            out.append(pcf.enc_int(C.MQIA_Q_TYPE, v["qtype"]))
        elif token == "BASE" and v.get("base") is not None:
            out.append(pcf.enc_str(C.MQCA_BASE_OBJECT_NAME, pad(v["base"], 48)))
        elif token == "BASETYPE" and v.get("base_type") is not None:
            out.append(pcf.enc_int(C.MQIA_BASE_TYPE, v["base_type"]))
        elif token == "QNAME" and v.get("qname") is not None:
            out.append(pcf.enc_str(C.MQCA_Q_NAME, pad(v["qname"], 48)))
        elif token == "PROCESS" and v.get("process") is not None:
            out.append(pcf.enc_str(C.MQCA_PROCESS_NAME, pad(v["process"], 48)))
        elif token == "TOPIC" and v.get("topic") is not None:
            out.append(pcf.enc_str(C.MQCA_TOPIC_STRING, v["topic"]))
        elif token == "ADMINTOPICS" and v.get("admin_topics") is not None:
            out.append(pcf.enc_str_list(C.MQCA_ADMIN_TOPIC_NAME, [pad(n, 48) for n in v["admin_topics"]]))
        elif token == "CLIENT":
            channel = get("channel", "channel", "")
            if channel:
                out.append(pcf.enc_str(F.MQCACH_CONNECTION_NAME, pad(get("conname", "conname", ""), 264)))
                out.append(pcf.enc_str(F.MQCACH_CHANNEL_NAME, pad(channel, 20)))
    return out


def event_version(command: int) -> int:
    """An event's MQCFH Version, as IBM's "MQCFH - PCF header" gives it: 2 for configuration
    events, 3 for command events, 1 for every other event."""
    if command == F.MQCMD_CONFIG_EVENT:
        return F.MQCFH_VERSION_2
    return F.MQCFH_VERSION_3 if command == F.MQCMD_COMMAND_EVENT else F.MQCFH_VERSION_1


def event_message(command: int, reason: int, params: list[bytes], seq: int = 1, last: bool = True) -> bytes:
    """An event message's data: MQCFH (MQCFT_EVENT, MQCC_WARNING, the reason; ``seq`` and ``last``
    for the two messages of a Change Object event) and its parameters."""
    header = pcf.Header(type=F.MQCFT_EVENT, version=event_version(command), command=command, msg_seq_number=seq,
                        comp_code=C.MQCC_WARNING, control=F.MQCFC_LAST if last else F.MQCFC_NOT_LAST, reason=reason)
    return pcf.encode(header, params)


# --- who issued a command: configuration and command events' origin -----------------------------
@dataclass(frozen=True)
class Issuer:
    """The origin of a command or call (MQEVO_*): runmqsc (CONSOLE), a command message (MSG, with
    the message's context), an application's MQSET, or the queue manager itself (INTERNAL)."""
    user: str
    origin: int
    qmgr: str = ""
    accounting_token: bytes = b""
    identity: str = ""
    appl_type: int = 0
    appl_name: str = ""
    appl_origin: str = ""

    @staticmethod
    def of_message(md: MD, qmgr: str) -> Issuer:
        """A command message's issuer: its MQMD's user and context (EventQMgr: ReplyToQMgr)."""
        return Issuer(text(md.UserIdentifier), F.MQEVO_MSG, text(md.ReplyToQMgr) or qmgr, bytes(md.AccountingToken),
                      text(md.ApplIdentityData), md.PutApplType, text(md.PutApplName), text(md.ApplOriginData))

    def params(self, qmgr: str) -> list[bytes]:
        """EventUserId, EventOrigin, EventQMgr, then for a command message its context."""
        out = [pcf.enc_str(F.MQCACF_EVENT_USER_ID, pad(self.user, 12)), pcf.enc_int(F.MQIACF_EVENT_ORIGIN, self.origin),
               pcf.enc_str(F.MQCACF_EVENT_Q_MGR, pad(self.qmgr or qmgr, 48))]
        if self.origin == F.MQEVO_MSG:
            out += [pcf.enc_bytes(F.MQBACF_EVENT_ACCOUNTING_TOKEN, self.accounting_token.ljust(32, b"\0")[:32]),
                    pcf.enc_str(F.MQCACF_EVENT_APPL_IDENTITY, pad(self.identity, 32)),
                    pcf.enc_int(F.MQIACF_EVENT_APPL_TYPE, self.appl_type),
                    pcf.enc_str(F.MQCACF_EVENT_APPL_NAME, pad(self.appl_name, 28)),
                    pcf.enc_str(F.MQCACF_EVENT_APPL_ORIGIN, pad(self.appl_origin, 4))]
        return out


INTERNAL = Issuer("mqm", F.MQEVO_INTERNAL)

# A definition's namespace -> its ObjectType and name parameter in configuration events.
CONFIG_OBJECTS: dict[str, tuple[int, int, int]] = {
    "QUEUE": (C.MQOT_Q, C.MQCA_Q_NAME, 48), "CHANNEL": (C.MQOT_CHANNEL, F.MQCACH_CHANNEL_NAME, 20),
    "NAMELIST": (C.MQOT_NAMELIST, C.MQCA_NAMELIST_NAME, 48), "PROCESS": (C.MQOT_PROCESS, C.MQCA_PROCESS_NAME, 48),
    "QMGR": (C.MQOT_Q_MGR, C.MQCA_Q_MGR_NAME, 48), "AUTHINFO": (C.MQOT_AUTH_INFO, C.MQCA_AUTH_INFO_NAME, 48),
    "TOPIC": (C.MQOT_TOPIC, C.MQCA_TOPIC_NAME, 48), "LISTENER": (C.MQOT_LISTENER, F.MQCACH_LISTENER_NAME, 48),
    "SERVICE": (C.MQOT_SERVICE, C.MQCA_SERVICE_NAME, 32), "COMMINFO": (C.MQOT_COMM_INFO, C.MQCA_COMM_INFO_NAME, 48),
}


def definition_values(queues: dict[str, Any], obj: MQObject) -> dict[str, Any]:
    """A definition's attributes with the runtime ones (CURDEPTH, IPPROCS, OPPROCS) filled in
    from the queue's state (``queues``: the queue manager's), as DISPLAY and events show them."""
    values = dict(obj.attrs)
    qs = queues.get(obj.name) if obj.kind == "QLOCAL" and values.get("QSGDISP") != C.MQQSGD_GROUP else None
    if qs is not None:
        values["CURDEPTH"] = qs.depth
        values["IPPROCS"] = qs.input_shared + qs.input_exclusive
        values["OPPROCS"] = qs.output
    return values


def object_params(obj: MQObject, values: dict[str, Any]) -> list[bytes]:
    """ObjectType, ObjectName, Disposition, then the definition's attributes (a queue's or a
    channel's type first, as an inquiry answers)."""
    otype, selector, width = CONFIG_OBJECTS[obj.objtype]
    out = [pcf.enc_int(F.MQIACF_OBJECT_TYPE, otype), pcf.enc_str(selector, pad(obj.name, width)),
           pcf.enc_int(C.MQIA_QSG_DISP, int(obj.attrs.get("QSGDISP", C.MQQSGD_Q_MGR)))]
    if obj.objtype == "QUEUE":
        out.append(pcf.enc_int(C.MQIA_Q_TYPE, QTYPE_VALUES[obj.kind]))
    elif obj.objtype == "CHANNEL":
        out.append(pcf.enc_int(F.MQIACH_CHANNEL_TYPE, CHLTYPE_VALUES[obj.kind]))
    return out + encode_attrs(obj.kind, values, None)


def depth_event(qs: Any, obj: Any, rising: bool, full: bool = False) -> str | None:
    """MQ's queue depth rule: which event a depth change raises (``rising``: a put; ``full``: a
    put refused as the queue is full), if its switch is on: "HIGH", "LOW", "FULL" or None."""
    if full:
        return "FULL" if obj["QDPMAXEV"] == F.MQEVR_ENABLED else None
    depth, maxdepth = qs.depth, obj["MAXDEPTH"]
    if rising:
        if obj["QDPHIEV"] == F.MQEVR_ENABLED and maxdepth and depth * 100 >= obj["QDEPTHHI"] * maxdepth:
            return "HIGH"
        return None
    if obj["QDPLOEV"] == F.MQEVR_ENABLED and depth * 100 <= obj["QDEPTHLO"] * maxdepth:
        return "LOW"
    return None


def service_event(setting: int, started: float | None, now: float, interval_ms: int, got: bool) -> str | None:
    """MQ's queue service interval rule, checked at each put and each get of the queue: "HIGH"
    when the timer (started by a put to an empty queue, restarted by each get) has run longer than
    QSVCINT and QSVCIEV is HIGH; "OK" when a get comes within QSVCINT and QSVCIEV is OK; else None."""
    if started is None:
        return None
    over = (now - started) * 1000 > interval_ms
    if setting == F.MQQSIE_HIGH and over:
        return "HIGH"
    if setting == F.MQQSIE_OK and got and not over:
        return "OK"
    return None


# What each depth event turns off and on afterwards, and its reason code.
DEPTH_RULES = {
    "HIGH": (C.MQRC_Q_DEPTH_HIGH, {"QDPHIEV": F.MQEVR_DISABLED, "QDPLOEV": F.MQEVR_ENABLED,
                                   "QDPMAXEV": F.MQEVR_ENABLED}),
    "LOW": (C.MQRC_Q_DEPTH_LOW, {"QDPLOEV": F.MQEVR_DISABLED, "QDPHIEV": F.MQEVR_ENABLED,
                                 "QDPMAXEV": F.MQEVR_ENABLED}),
    "FULL": (C.MQRC_Q_FULL, {"QDPMAXEV": F.MQEVR_DISABLED, "QDPLOEV": F.MQEVR_ENABLED}),
    # Service interval: High enables OK, OK enables High (QSVCIEV holds one of them).
    "SVC_HIGH": (C.MQRC_Q_SERVICE_INTERVAL_HIGH, {"QSVCIEV": F.MQQSIE_OK}),
    "SVC_OK": (C.MQRC_Q_SERVICE_INTERVAL_OK, {"QSVCIEV": F.MQQSIE_HIGH}),
}


class Events:
    """The queue manager's event writer: one queue manager connection, whose own puts are not
    measured and raise no events. ``issuer``: who issued the command or call being carried out
    (``issued``), the origin of configuration events; the queue manager itself otherwise."""

    def __init__(self, qm: Any) -> None:
        self.qm = qm
        self.agent: Any = None
        self.issuer = INTERNAL

    @contextmanager
    def issued(self, issuer: Issuer) -> Iterator[None]:
        outer, self.issuer = self.issuer, issuer
        try:
            yield
        finally:
            self.issuer = outer

    def enabled(self, switch: str) -> bool:
        return bool(self.qm.qmgr[switch] == F.MQEVR_ENABLED)

    def write(self, queue: str, command: int, reason: int, params: list[bytes], seq: int = 1,
              last: bool = True) -> bool:
        """Put one event message; False when the event queue could not take it (the event is
        lost; the caller's operation goes on)."""
        qm = self.qm
        md = MD(Format=C.MQFMT_EVENT, MsgType=C.MQMT_DATAGRAM, Persistence=C.MQPER_PERSISTENCE_AS_Q_DEF)
        try:
            if self.agent is None:
                self.agent = qm.agent()             # refused while quiescing
            qm.put1(self.agent, OD(ObjectName=pad(queue, 48)), md, PMO(Options=C.MQPMO_NO_SYNCPOINT),
                    event_message(command, reason, params, seq, last))
        except MQIError:
            return False
        return True

    # --- channel events ------------------------------------------------------------------------
    def channel(self, reason: int, qualifier: int, name: str, xmitq: str, conname: str, error: str) -> None:
        """CHLEV: Channel Started, Channel Stopped (with the error that stopped it: ErrorIdentifier
        is its AMQ message's number as MQ codes it, X'2000nnnn'), Channel Stopped By User, Channel
        Not Activated and Channel Activated (a sender waiting for an active slot, then given one),
        each with MQ's data in order. EXCEPTION reports all but Channel Started and Channel
        Stopped OK. XmitQName is given for the channel types that have one (``xmitq`` empty
        otherwise)."""
        switch = self.qm.qmgr["CHLEV"]
        exceptional = reason != C.MQRC_CHANNEL_STARTED and not (
            reason == C.MQRC_CHANNEL_STOPPED and qualifier == F.MQRQ_CHANNEL_STOPPED_OK)
        if switch == F.MQEVR_DISABLED or switch == F.MQEVR_EXCEPTION and not exceptional:
            return
        qmgr = pcf.enc_str(C.MQCA_Q_MGR_NAME, pad(self.qm.name, 48))
        chl = pcf.enc_str(F.MQCACH_CHANNEL_NAME, pad(name, 20))
        where = ([pcf.enc_str(F.MQCACH_XMIT_Q_NAME, pad(xmitq, 48))] if xmitq else []) + \
            [pcf.enc_str(F.MQCACH_CONNECTION_NAME, pad(conname, 264))]
        rq = pcf.enc_int(F.MQIACF_REASON_QUALIFIER, qualifier)
        if reason in (C.MQRC_CHANNEL_STARTED, C.MQRC_CHANNEL_ACTIVATED, C.MQRC_CHANNEL_NOT_ACTIVATED):
            params = [qmgr, chl] + where
        else:
            # Channel Stopped, and Channel Stopped By User with the same data (no error: zeros).
            number = int(error[3:7], 16) + 0x20000000 if error.startswith("AMQ") and error[3:7].isdigit() else 0
            params = [qmgr, rq, chl, pcf.enc_int(F.MQIACF_ERROR_IDENTIFIER, number),
                      pcf.enc_int(F.MQIACF_AUX_ERROR_DATA_INT_1, 0), pcf.enc_int(F.MQIACF_AUX_ERROR_DATA_INT_2, 0),
                      pcf.enc_str(F.MQCACF_AUX_ERROR_DATA_STR_1, pad("", 48)),
                      pcf.enc_str(F.MQCACF_AUX_ERROR_DATA_STR_2, pad("", 48)),
                      pcf.enc_str(F.MQCACF_AUX_ERROR_DATA_STR_3, pad("", 48))] + where
        self.write(CHANNEL_EVENT_QUEUE, F.MQCMD_CHANNEL_EVENT, reason, params)

    def channel_blocked(self, qualifier: int, channel: str, conname: str, user: str = "", rqmgr: str = "") -> None:
        """CHLEV: Channel Blocked (a CHLAUTH rule refused an inbound channel): the channel (not
        for a blocked address: it is refused before it names one), the user for a blocked user,
        the partner's address, and the remote queue manager of a message channel."""
        if self.qm.qmgr["CHLEV"] == F.MQEVR_DISABLED:
            return
        params = [pcf.enc_str(C.MQCA_Q_MGR_NAME, pad(self.qm.name, 48)),
                  pcf.enc_int(F.MQIACF_REASON_QUALIFIER, qualifier)]
        if qualifier != F.MQRQ_CHANNEL_BLOCKED_ADDRESS:
            params.append(pcf.enc_str(F.MQCACH_CHANNEL_NAME, pad(channel, 20)))
        if qualifier == F.MQRQ_CHANNEL_BLOCKED_USERID:
            params.append(pcf.enc_str(F.MQCACF_USER_IDENTIFIER, pad(user, 12)))
        params.append(pcf.enc_str(F.MQCACH_CONNECTION_NAME, pad(conname, 264)))
        if rqmgr:
            params.append(pcf.enc_str(C.MQCA_REMOTE_Q_MGR_NAME, pad(rqmgr, 48)))
        self.write(CHANNEL_EVENT_QUEUE, F.MQCMD_CHANNEL_EVENT, C.MQRC_CHANNEL_BLOCKED, params)

    def ssl_error(self, qualifier: int, channel: str, conname: str, xmitq: str = "", stage: str = "", code: int = 0,
                  peer: str = "") -> None:
        """SSLEV: Channel SSL Error (MQRQ_SSL_HANDSHAKE_ERROR with the failing stage and its return
        code, CIPHER_SPEC_ERROR, CLIENT_AUTH_ERROR, PEER_NAME_ERROR with the name presented), on
        SYSTEM.ADMIN.CHANNEL.EVENT; the channel name only once the channel got far enough to say it."""
        if not self.enabled("SSLEV"):
            return
        params = [pcf.enc_str(C.MQCA_Q_MGR_NAME, pad(self.qm.name, 48)),
                  pcf.enc_int(F.MQIACF_REASON_QUALIFIER, qualifier)]
        if channel:
            params.append(pcf.enc_str(F.MQCACH_CHANNEL_NAME, pad(channel, 20)))
        if xmitq:
            params.append(pcf.enc_str(F.MQCACH_XMIT_Q_NAME, pad(xmitq, 48)))
        params.append(pcf.enc_str(F.MQCACH_CONNECTION_NAME, pad(conname, 264)))
        if qualifier == F.MQRQ_SSL_HANDSHAKE_ERROR:
            params += [pcf.enc_str(F.MQCACH_SSL_HANDSHAKE_STAGE, pad(stage, 32)),
                       pcf.enc_int(F.MQIACH_SSL_RETURN_CODE, code)]
        elif qualifier == F.MQRQ_SSL_PEER_NAME_ERROR:
            params.append(pcf.enc_str(F.MQCACH_SSL_PEER_NAME, peer))
        self.write(CHANNEL_EVENT_QUEUE, F.MQCMD_CHANNEL_EVENT, C.MQRC_CHANNEL_SSL_ERROR, params)

    # --- configuration and command events ------------------------------------------------------
    def before(self, obj: MQObject | None) -> tuple[MQObject, dict[str, Any]] | None:
        """A definition about to change, as a Change Object event's first message shows it (None
        when configuration events are off: nothing is kept)."""
        if obj is None or not self.enabled("CONFIGEV"):
            return None
        return obj, definition_values(self.qm.queues, obj)

    def configured(self, reason: int, obj: MQObject, before: tuple[MQObject, dict[str, Any]] | None = None) -> None:
        """CONFIGEV: Create, Change or Delete Object (``reason``) of a definition, with its
        attributes as an inquiry shows them; a change writes two messages, the definition before
        it (``before``) and after, as MQ does."""
        if not self.enabled("CONFIGEV") or obj.objtype not in CONFIG_OBJECTS:
            return
        if reason == C.MQRC_CONFIG_CHANGE_OBJECT and before is None:
            return                  # the change that switched CONFIGEV on: no "before" was kept
        origin = self.issuer.params(self.qm.name)
        now = object_params(obj, definition_values(self.qm.queues, obj))
        if before is not None:
            self.write(CONFIG_EVENT_QUEUE, F.MQCMD_CONFIG_EVENT, reason, origin + object_params(*before), 1, False)
            self.write(CONFIG_EVENT_QUEUE, F.MQCMD_CONFIG_EVENT, reason, origin + now, 2)
            return
        self.write(CONFIG_EVENT_QUEUE, F.MQCMD_CONFIG_EVENT, reason, origin + now)

    def security_changed(self, kind: str, before: Any, after: Any,
                         reason: int | None = None) -> None:
        """CONFIGEV for an authority record (Create, Change, Delete, Refresh Authority Record:
        EventQMgr first, then ObjectType MQOT_AUTH_REC, ProfileName, AuthorityRecordType, EntityName,
        EntityType, AuthorizationList) or a channel authentication record (ObjectType MQOT_CHLAUTH,
        then the record as Inquire Channel Authentication Records gives it). ``before`` and
        ``after`` are the record before and after (None: it did not exist, or is gone); a change
        writes both, as for objects. The security state tells of each change (its ``observer``)."""
        if not self.enabled("CONFIGEV"):
            return
        if reason is None:
            reason = C.MQRC_CONFIG_CREATE_OBJECT if before is None else \
                C.MQRC_CONFIG_DELETE_OBJECT if after is None else C.MQRC_CONFIG_CHANGE_OBJECT
        origin = self.issuer.params(self.qm.name)
        if kind == "AUTHREC":
            origin = [origin[2], origin[0], origin[1], *origin[3:]]        # EventQMgr first, as MQ lists it

        def record(r: Any) -> list[bytes]:
            if kind == "CHLAUTH":
                return [pcf.enc_int(F.MQIACF_OBJECT_TYPE, C.MQOT_CHLAUTH), *chlauth_params(r)]
            objtype, profile, entity, bits = r
            return [pcf.enc_int(F.MQIACF_OBJECT_TYPE, C.MQOT_AUTH_REC),
                    pcf.enc_str(F.MQCACF_AUTH_PROFILE_NAME, pad(profile, 48)),
                    pcf.enc_int(F.MQIACF_AUTH_REC_TYPE, OBJTYPE_MQOT[objtype]), *entity_params(entity, bits)]
        if before is not None and after is not None:
            self.write(CONFIG_EVENT_QUEUE, F.MQCMD_CONFIG_EVENT, reason, origin + record(before), 1, False)
            self.write(CONFIG_EVENT_QUEUE, F.MQCMD_CONFIG_EVENT, reason, origin + record(after), 2)
            return
        self.write(CONFIG_EVENT_QUEUE, F.MQCMD_CONFIG_EVENT, reason, origin + record(after or before))

    def commanded(self, reason: int, command: int, data: list[bytes], display: bool) -> None:
        """CMDEV: a command that succeeded (MQRC_COMMAND_PCF or MQRC_COMMAND_MQSC), its context
        and its data (the PCF parameters, or the MQSC text); NODISPLAY leaves out inquiries."""
        switch = self.qm.qmgr["CMDEV"]
        if switch == F.MQEVR_DISABLED or switch == F.MQEVR_NO_DISPLAY and display:
            return
        context = self.issuer.params(self.qm.name) + [pcf.enc_int(F.MQIACF_COMMAND, command)]
        self.write(COMMAND_EVENT_QUEUE, F.MQCMD_COMMAND_EVENT, reason,
                   [pcf.enc_group(F.MQGACF_COMMAND_CONTEXT, context), pcf.enc_group(F.MQGACF_COMMAND_DATA, data)])

    # --- queue manager events ------------------------------------------------------------------
    def mqi_failed(self, conn: Any, reason: int, qname: str, objqmgr: str = "", **event: Any) -> None:
        """An MQI call of ``conn`` on ``qname`` failed with ``reason``: its event, if it has one
        and its switch is on (``event``: what the failure noted for it, MQIError.event). The queue
        manager's own connections raise none."""
        spec = QMGR_EVENTS.get(reason)
        if spec is None or conn is None or conn.unmeasured or not self.enabled(spec[0]):
            return
        self.write(QMGR_EVENT_QUEUE, F.MQCMD_Q_MGR_EVENT, reason,
                   event_params(spec[1], self.qm.name, conn, qname=qname, objqmgr=objqmgr, **event))

    def not_authorized(self, qualifier: int, conn: Any = None, **values: Any) -> None:
        """AUTHOREV: a Not Authorized event (MQRC_NOT_AUTHORIZED) of the type ``qualifier`` names
        (MQRQ_CONN/CSP/OPEN/CLOSE/CMD/SUB/SUB_DEST_NOT_AUTHORIZED), its data in MQ's order (``AUTHORITY_EVENTS``).
        ``conn``: the refused application's connection (None for MQCONN and commands, whose
        values are given)."""
        if conn is not None and conn.unmeasured or not self.enabled("AUTHOREV"):
            return
        self.write(QMGR_EVENT_QUEUE, F.MQCMD_Q_MGR_EVENT, C.MQRC_NOT_AUTHORIZED,
                   event_params(AUTHORITY_EVENTS[qualifier], self.qm.name, conn, rq=qualifier, **values))

    def started(self) -> None:
        if self.enabled("STRSTPEV"):
            self.write(QMGR_EVENT_QUEUE, F.MQCMD_Q_MGR_EVENT, C.MQRC_Q_MGR_ACTIVE,
                       [pcf.enc_str(C.MQCA_Q_MGR_NAME, pad(self.qm.name, 48))])

    def stopping(self, quiesce: bool) -> None:
        if self.enabled("STRSTPEV"):
            self.write(QMGR_EVENT_QUEUE, F.MQCMD_Q_MGR_EVENT, C.MQRC_Q_MGR_NOT_ACTIVE,
                       [pcf.enc_str(C.MQCA_Q_MGR_NAME, pad(self.qm.name, 48)),
                        pcf.enc_int(F.MQIACF_REASON_QUALIFIER,
                                    F.MQRQ_Q_MGR_QUIESCING if quiesce else F.MQRQ_Q_MGR_STOPPING)])

    # --- performance events --------------------------------------------------------------------
    def depth(self, qs: Any, rising: bool, full: bool = False) -> None:
        """After a put (``rising``), a get, or a put refused as the queue is full: a queue service
        interval event and a queue depth event if MQ's rules say so (``service_event``,
        ``depth_event``); then the queue's switches as MQ sets them and its event statistics reset."""
        qm = self.qm
        if not self.enabled("PERFMEV") or qs.shared:
            return
        obj = qm.queue(qs.name)
        if obj is None or obj.kind != "QLOCAL":
            return
        if obj["QSVCIEV"] != F.MQQSIE_NONE and not full:
            self._service(qs, obj, not rising)
        kind = depth_event(qs, obj, rising, full)
        if kind is not None:
            self._performance(qs, obj, kind)

    def _service(self, qs: Any, obj: Any, got: bool) -> None:
        """A put or a get of a queue whose service interval is watched: its event, if MQ's rule
        (``service_event``) says so, then the timer: a get restarts it (stops it on an empty
        queue), a put to an empty queue starts it."""
        now = self.qm.clock.now()
        kind = service_event(obj["QSVCIEV"], qs.svc_started, now, obj["QSVCINT"], got)
        if kind is not None:
            self._performance(qs, obj, "SVC_" + kind)
        if got:
            qs.svc_started = now if qs.depth else None
        elif qs.svc_started is None:
            qs.svc_started = now

    def _performance(self, qs: Any, obj: Any, kind: str) -> None:
        """A performance event: the queue's event statistics, then its switches as MQ sets them."""
        qm = self.qm
        reason, switches = DEPTH_RULES[kind]
        now = qm.clock.now()
        since = int(now - (qs.reset_at or now))
        self.write(PERFM_EVENT_QUEUE, F.MQCMD_PERFM_EVENT, reason, [
            pcf.enc_str(C.MQCA_Q_MGR_NAME, pad(qm.name, 48)),
            pcf.enc_str(C.MQCA_BASE_Q_NAME, pad(qs.name, 48)),
            pcf.enc_int(C.MQIA_TIME_SINCE_RESET, since),
            pcf.enc_int(C.MQIA_HIGH_Q_DEPTH, qs.high_depth),
            pcf.enc_int(C.MQIA_MSG_ENQ_COUNT, qs.enq),
            pcf.enc_int(C.MQIA_MSG_DEQ_COUNT, qs.deq)])
        obj.attrs.update(switches)          # the queue's switches change as MQ changes them
        qm.save(obj)
        qs.enq = qs.deq = 0
        qs.high_depth = qs.depth
        qs.reset_at = now
