"""The command server: PCF (and MQSC in escape PCF) arriving on SYSTEM.ADMIN.COMMAND.QUEUE.

Each request is answered on its ReplyToQ/ReplyToQMgr with MQ's response messages: an MQCFH of type
MQCFT_RESPONSE per object, MQCFC_LAST on the last one, CompCode and Reason (MQRC_* or MQRCCF_*)
saying how it went. The attribute table and the administration functions are the ones MQSC uses.
"""
from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import GMO, MD, OD, PMO, pad, text
from mqlite.engine import admin
from mqlite.engine.admin import AdminError
from mqlite.engine.host import Host
from mqlite.mqsc.commands import Executor
from mqlite.objects.attrs import CHLTYPE_VALUES, ENUM, FLAG, INT, LIST, QTYPE_VALUES, TABLE, Attr, AttrError, convert
from mqlite.objects.model import QMGR, MQObject
from mqlite.objects.names import filter_match, generic_match, valid_name
from mqlite.security.authority import names_of
from mqlite.server import cmdauth
from mqlite.server.cmdpubsub import PubSubCommands
from mqlite.server.cmdsecurity import AuthRecCommands

COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"
QTYPE_KIND = {v: k for k, v in QTYPE_VALUES.items()}
CHLTYPE_KIND = {v: k for k, v in CHLTYPE_VALUES.items()}
CHSTATUS = {"INACTIVE": F.MQCHS_INACTIVE, "BINDING": F.MQCHS_BINDING, "STARTING": F.MQCHS_STARTING,
            "RUNNING": F.MQCHS_RUNNING, "STOPPING": F.MQCHS_STOPPING, "RETRYING": F.MQCHS_RETRYING,
            "STOPPED": F.MQCHS_STOPPED, "PAUSED": F.MQCHS_PAUSED, "INITIALIZING": F.MQCHS_INITIALIZING}
QMDT = {"CLUSSDR": F.MQQMDT_EXPLICIT_CLUSTER_SENDER, "CLUSSDRA": F.MQQMDT_AUTO_CLUSTER_SENDER,
        "CLUSRCVR": F.MQQMDT_CLUSTER_RECEIVER, "CLUSSDRB": F.MQQMDT_AUTO_EXP_CLUSTER_SENDER}
ADMIN_REASON = {admin.NOT_FOUND: C.MQRC_UNKNOWN_OBJECT_NAME, admin.EXISTS: F.MQRCCF_OBJECT_ALREADY_EXISTS,
                admin.IN_USE: F.MQRCCF_OBJECT_OPEN, admin.NOT_EMPTY: C.MQRC_Q_NOT_EMPTY,
                admin.WRONG_TYPE: F.MQRCCF_OBJECT_WRONG_TYPE, admin.BAD_NAME: F.MQRCCF_OBJECT_NAME_ERROR,
                admin.CONFLICT: F.MQRCCF_PARM_CONFLICT}
# Parameters of commands that are not object attributes.
CONTROL_PARMS = {C.MQCA_Q_NAME, C.MQIA_Q_TYPE, F.MQIACF_REPLACE, F.MQIACF_PURGE, F.MQIACF_FORCE,
                 F.MQIACF_Q_ATTRS, F.MQIACF_Q_MGR_ATTRS, F.MQIACF_CHANNEL_ATTRS, F.MQCACF_FROM_Q_NAME,
                 F.MQCACF_TO_Q_NAME, F.MQCACH_CHANNEL_NAME, F.MQIACH_CHANNEL_TYPE, C.MQCA_NAMELIST_NAME,
                 F.MQIACF_Q_STATUS_TYPE, F.MQIACF_Q_STATUS_ATTRS, F.MQIACF_MODE, F.MQIACH_CHANNEL_STATUS}


class CommandError(Exception):
    def __init__(self, reason: int, parameter: int = 0, detail: str = "") -> None:
        super().__init__(detail or str(reason))
        self.reason = reason
        self.parameter = parameter


def _s(value: Any) -> str:
    return text(value) if isinstance(value, (bytes, bytearray)) else str(value)


class CommandServer(threading.Thread, AuthRecCommands, PubSubCommands):
    def __init__(self, srv: Host, executor: Executor) -> None:
        super().__init__(name="command-server", daemon=True)
        self.srv = srv
        self.executor = executor
        self.services = executor.services
        self.qm = srv.qm
        self.stop_event = threading.Event()
        self.handlers: dict[int, Callable[[pcf.Message], list[list[bytes]]]] = {
            F.MQCMD_INQUIRE_Q: self.inquire_q, F.MQCMD_INQUIRE_Q_NAMES: self.inquire_q_names,
            F.MQCMD_INQUIRE_Q_STATUS: self.inquire_q_status, F.MQCMD_CREATE_Q: self.create_q,
            F.MQCMD_CHANGE_Q: self.change_q, F.MQCMD_COPY_Q: self.copy_q, F.MQCMD_DELETE_Q: self.delete_q,
            F.MQCMD_CLEAR_Q: self.clear_q, F.MQCMD_INQUIRE_Q_MGR: self.inquire_q_mgr,
            F.MQCMD_CHANGE_Q_MGR: self.change_q_mgr, F.MQCMD_PING_Q_MGR: lambda m: [[]],
            F.MQCMD_INQUIRE_CHANNEL: self.inquire_channel, F.MQCMD_INQUIRE_CHANNEL_STATUS: self.inquire_chstatus,
            F.MQCMD_START_CHANNEL: self.start_channel, F.MQCMD_STOP_CHANNEL: self.stop_channel,
            F.MQCMD_PING_CHANNEL: self.ping_channel, F.MQCMD_INQUIRE_NAMELIST: self.inquire_namelist,
            F.MQCMD_ESCAPE: self.escape, F.MQCMD_INQUIRE_CLUSTER_Q_MGR: self.inquire_cluster_q_mgr,
            F.MQCMD_REFRESH_CLUSTER: self.refresh_cluster, F.MQCMD_RESET_CLUSTER: self.reset_cluster,
            F.MQCMD_SUSPEND_Q_MGR_CLUSTER: lambda m: self.suspend_resume(m, True),
            F.MQCMD_RESUME_Q_MGR_CLUSTER: lambda m: self.suspend_resume(m, False),
            F.MQCMD_SET_AUTH_REC: self.set_auth_rec, F.MQCMD_DELETE_AUTH_REC: self.delete_auth_rec,
            F.MQCMD_INQUIRE_AUTH_RECS: self.inquire_auth_recs, F.MQCMD_INQUIRE_ENTITY_AUTH: self.inquire_entity_auth,
            F.MQCMD_SET_CHLAUTH_REC: self.set_chlauth_rec, F.MQCMD_INQUIRE_CHLAUTH_RECS: self.inquire_chlauth_recs,
            F.MQCMD_CREATE_TOPIC: self.create_topic, F.MQCMD_CHANGE_TOPIC: self.change_topic,
            F.MQCMD_DELETE_TOPIC: self.delete_topic, F.MQCMD_INQUIRE_TOPIC: self.inquire_topic,
            F.MQCMD_CREATE_SUBSCRIPTION: self.create_subscription,
            F.MQCMD_CHANGE_SUBSCRIPTION: self.change_subscription,
            F.MQCMD_DELETE_SUBSCRIPTION: self.delete_subscription,
            F.MQCMD_INQUIRE_SUBSCRIPTION: self.inquire_subscription, F.MQCMD_INQUIRE_PUBSUB_STATUS: self.inquire_pubsub_status,
            F.MQCMD_CLEAR_TOPIC_STRING: self.clear_topic_string,
        }
        self.fail = CommandError

    # --- the loop ----------------------------------------------------------------------------
    def run(self) -> None:
        srv, qm = self.srv, self.qm
        with srv.lock:
            self.conn = qm.connect("amqpcsea", C.MQAT_QMGR, "mqm")
            try:
                self.hobj = qm.open(self.conn, OD(ObjectName=COMMAND_QUEUE.encode()), C.MQOO_INPUT_SHARED).hobj
            except MQIError as e:
                srv.log.write("MQL0010E", "The command server could not open "
                              f"{COMMAND_QUEUE} (reason {e.reason}); it is not running.")
                return
        while not self.stop_event.is_set():
            with srv.lock:
                try:
                    r = qm.get(self.conn, self.hobj, MD(), GMO(), 100 * 1024 * 1024)
                except MQIError as e:
                    if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                        srv.cond_for(COMMAND_QUEUE).wait(0.5)
                        continue
                    srv.log.write("MQL0011E", f"The command server could not get a command: reason {e.reason}.")
                    self.stop_event.wait(1)
                    continue
                ticket = self.conn.ticket
            if ticket:
                srv.store.sync(ticket)
            self.serve(r.md, r.body)

    def stop(self) -> None:
        self.stop_event.set()

    def serve(self, md: MD, body: bytes) -> None:
        command = 0
        try:
            if md.Format not in (C.MQFMT_ADMIN, C.MQFMT_PCF):
                raise CommandError(F.MQRCCF_MD_FORMAT_ERROR, detail=f"Format {md.Format!r}")
            msg = pcf.decode(body)
            command = msg.header.command
            if msg.header.type not in (F.MQCFT_COMMAND, F.MQCFT_COMMAND_XR):
                raise CommandError(F.MQRCCF_CFH_TYPE_ERROR)
            handler = self.handlers.get(command)
            if handler is None:
                raise CommandError(F.MQRCCF_CFH_COMMAND_ERROR, detail=f"command {command}")
            with self.srv.lock:
                self.authorize(md, command, msg)
                objects = handler(msg)
            replies = [(C.MQCC_OK, 0, params) for params in objects] or [(C.MQCC_OK, 0, [])]
        except pcf.PCFError as e:
            replies = [(C.MQCC_FAILED, e.reason, [pcf.enc_int(F.MQIACF_PARAMETER_ID, e.parameter)]
                        if e.parameter else [])]
            self.srv.log.write("MQL0012E", f"A malformed PCF command was rejected with reason {e.reason}.", e.detail)
        except EscapeFailed as e:
            replies = [(C.MQCC_FAILED, e.reason, e.params)]
        except CommandError as e:
            replies = [(C.MQCC_FAILED, e.reason, [pcf.enc_int(F.MQIACF_PARAMETER_ID, e.parameter)]
                        if e.parameter else [])]
        except Exception as e:  # noqa: BLE001 - a defect: answer, log, keep serving
            self.srv.log.write("MQL9999E", "The command server failed on a command.", traceback.format_exc())
            replies = [(C.MQCC_FAILED, F.MQRCCF_COMMAND_FAILED, [pcf.enc_str(F.MQCACF_ESCAPE_TEXT, str(e)[:200])])]
        self.reply(md, command, replies)

    def authorize(self, md: MD, command: int, msg: pcf.Message) -> None:
        """The command's user (the request's UserIdentifier) must hold what the command needs
        (server.cmdauth); else MQRC_NOT_AUTHORIZED, with AMQ8077W, and nothing runs."""
        sec = self.qm.security
        user = text(md.UserIdentifier)
        principal = sec.principal(user)
        if principal.admin or not sec.oam:
            return
        if command == F.MQCMD_ESCAPE:
            needs = cmdauth.mqsc_needs(_s(msg.first(F.MQCACF_ESCAPE_TEXT, "")), self.qm.name)
        else:
            sel = cmdauth.pcf_name_selector(command)
            needs = cmdauth.pcf_needs(command, _s(msg.first(sel, "")).strip() if sel else "", self.qm.name)
        for objtype, name, auth in needs:
            missing = auth & ~sec.authority(principal, objtype, name)
            if missing:
                words = ", ".join(names_of(missing)).lower()
                self.qm.log(f"AMQ8077W: Entity '{user}' has insufficient authority to access object {name} "
                            f"({objtype.lower()}). The following requested permissions are unauthorized: {words}.")
                raise CommandError(C.MQRC_NOT_AUTHORIZED, detail=f"{user} lacks {words} on {name}")

    def reply(self, req: MD, command: int, replies: list[tuple[int, int, list[bytes]]]) -> None:
        rq = text(req.ReplyToQ)
        if not rq:
            return
        srv, qm = self.srv, self.qm
        correl = req.CorrelId if req.Report & C.MQRO_PASS_CORREL_ID else req.MsgId
        with srv.lock:
            for i, (comp, reason, params) in enumerate(replies, 1):
                header = pcf.Header(type=F.MQCFT_RESPONSE, command=command, msg_seq_number=i,
                                    control=F.MQCFC_LAST if i == len(replies) else F.MQCFC_NOT_LAST,
                                    comp_code=comp, reason=reason)
                md = MD(MsgType=C.MQMT_REPLY, Format=C.MQFMT_ADMIN, CorrelId=correl, Persistence=req.Persistence,
                        Priority=req.Priority if req.Priority >= 0 else -1,
                        Expiry=req.Expiry if req.Report & C.MQRO_PASS_DISCARD_AND_EXPIRY else -1)
                od = OD(ObjectName=pad(rq, 48), ObjectQMgrName=req.ReplyToQMgr)
                try:
                    qm.put1(self.conn, od, md, PMO(Options=C.MQPMO_NO_SYNCPOINT), pcf.encode(header, params))
                except MQIError as e:
                    srv.log.write("MQL0013W", f"The command server could not reply to {rq}: reason {e.reason}.")
                    return
            ticket = self.conn.ticket
        if ticket:
            srv.store.sync(ticket)

    # --- parameters -------------------------------------------------------------------------
    @staticmethod
    def need(msg: pcf.Message, selector: int) -> Any:
        value = msg.first(selector)
        if value is None:
            raise CommandError(F.MQRCCF_PARM_COUNT_TOO_SMALL, selector, f"parameter {selector} is required")
        return value

    def values(self, msg: pcf.Message, kind: str) -> dict[str, Any]:
        """Attribute parameters of a create/change command, converted by the attribute table."""
        out: dict[str, Any] = {}
        for ptype, sel, value in msg.params:
            if sel in CONTROL_PARMS or ptype in (F.MQCFT_INTEGER_FILTER, F.MQCFT_STRING_FILTER):
                continue
            attr = TABLE.by_selector(kind, sel)
            if attr is None or not attr.alterable:
                raise CommandError(F.MQRCCF_CFIN_PARM_ID_ERROR if ptype == F.MQCFT_INTEGER
                                   else F.MQRCCF_CFST_PARM_ID_ERROR, sel)
            out[attr.name] = self.convert(attr, ptype, sel, value)
        return out

    @staticmethod
    def convert(attr: Attr, ptype: int, sel: int, value: Any) -> Any:
        numeric = attr.kind in (INT, ENUM, FLAG)
        if numeric != (ptype == F.MQCFT_INTEGER) or (attr.kind == LIST) != (ptype == F.MQCFT_STRING_LIST):
            raise CommandError(F.MQRCCF_STRUCTURE_TYPE_ERROR, sel, f"{attr.name} given as type {ptype}")
        try:
            if attr.kind == FLAG:
                if value not in (0, 1):
                    raise AttrError("flag")
                return value
            if attr.kind == LIST:
                return convert(attr, [_s(v) for v in value])
            return convert(attr, value if numeric else _s(value))
        except AttrError:
            raise CommandError(F.MQRCCF_ATTR_VALUE_ERROR, sel, f"value {value!r} for {attr.name}") from None

    @staticmethod
    def encode_attrs(kind: str, values: dict[str, Any], wanted: list[int] | None) -> list[bytes]:
        out = []
        for name, attr in sorted(TABLE.attrs(kind).items()):
            if attr.selector is None or (wanted is not None and attr.selector not in wanted):
                continue
            value = values.get(name, attr.default_for(kind))
            if attr.kind == LIST:
                out.append(pcf.enc_str_list(attr.selector, [pad(v, attr.length or 48) for v in value]))
            elif isinstance(value, str):
                out.append(pcf.enc_str(attr.selector, pad(value, attr.length or 48)))
            else:
                out.append(pcf.enc_int(attr.selector, int(value)))
        return out

    @staticmethod
    def wanted(msg: pcf.Message, selector: int) -> list[int] | None:
        """The attributes an inquire asks for (None: all), with the attribute of each filter: MQ
        returns the filtered attribute whether or not the list names it."""
        attrs = msg.first(selector)
        if attrs is None or F.MQIACF_ALL in attrs:
            return None
        return list(attrs) + [sel for ptype, sel, _v in msg.params
                              if ptype in (F.MQCFT_INTEGER_FILTER, F.MQCFT_STRING_FILTER)]

    @staticmethod
    def passes(msg: pcf.Message, kind: str, values: dict[str, Any], extra: dict[int, Any]) -> bool:
        """MQCFIF/MQCFSF filters of an inquire."""
        for ptype, sel, flt in msg.params:
            if ptype not in (F.MQCFT_INTEGER_FILTER, F.MQCFT_STRING_FILTER):
                continue
            attr = TABLE.by_selector(kind, sel)
            if sel in extra:
                have = extra[sel]
            elif attr is not None:
                have = values.get(attr.name, attr.default_for(kind))
            elif TABLE.selector_anywhere(sel):
                return False            # an attribute other kinds of object have: this one does not match
            else:
                raise CommandError(F.MQRCCF_CFIF_PARM_ID_ERROR if ptype == F.MQCFT_INTEGER_FILTER
                                   else F.MQRCCF_CFSF_PARM_ID_ERROR, sel)
            want = flt.value if ptype == F.MQCFT_INTEGER_FILTER else _s(flt.value)
            try:
                if not filter_match(flt.operator, have, want):
                    return False
            except (KeyError, TypeError):
                raise CommandError(F.MQRCCF_CFIF_OPERATOR_ERROR if ptype == F.MQCFT_INTEGER_FILTER
                                   else F.MQRCCF_CFSF_OPERATOR_ERROR, sel) from None
        return True

    def admin(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(self.qm, *args)
        except AdminError as e:
            raise CommandError(e.reason or ADMIN_REASON.get(e.code, F.MQRCCF_COMMAND_FAILED), detail=e.detail) from None

    def queue_kind(self, msg: pcf.Message, required: bool) -> str | None:
        qtype = msg.first(C.MQIA_Q_TYPE)
        if qtype is None:
            if required:
                raise CommandError(F.MQRCCF_PARM_COUNT_TOO_SMALL, C.MQIA_Q_TYPE)
            return None
        if qtype == C.MQQT_ALL:
            return None
        if qtype not in QTYPE_KIND:
            raise CommandError(F.MQRCCF_Q_TYPE_ERROR, C.MQIA_Q_TYPE)
        return QTYPE_KIND[qtype]

    # --- queues -----------------------------------------------------------------------------
    def matching_queues(self, msg: pcf.Message) -> list[MQObject]:
        pattern = _s(self.need(msg, C.MQCA_Q_NAME))
        kind = self.queue_kind(msg, required=False)
        found = [o for n, o in sorted(self.qm.objects["QUEUE"].items())
                 if generic_match(pattern, n) and (kind is None or o.kind == kind)]
        if not found and "*" not in pattern:
            raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCA_Q_NAME)
        return found

    def inquire_q(self, msg: pcf.Message) -> list[list[bytes]]:
        wanted = self.wanted(msg, F.MQIACF_Q_ATTRS)
        out = []
        for obj in self.matching_queues(msg):
            values = admin.display_values(self.qm, obj)
            if not self.passes(msg, obj.kind, values, {}):
                continue
            params = [pcf.enc_str(C.MQCA_Q_NAME, pad(obj.name, 48)), pcf.enc_int(C.MQIA_Q_TYPE, QTYPE_VALUES[obj.kind])]
            out.append(params + self.encode_attrs(obj.kind, values, wanted))
        if not out:
            raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCA_Q_NAME)
        return out

    def inquire_q_names(self, msg: pcf.Message) -> list[list[bytes]]:
        objs = self.matching_queues(msg)
        return [[pcf.enc_str_list(F.MQCACF_Q_NAMES, [pad(o.name, 48) for o in objs]),
                 pcf.enc_int_list(F.MQIACF_Q_TYPES, [QTYPE_VALUES[o.kind] for o in objs])]]

    def inquire_q_status(self, msg: pcf.Message) -> list[list[bytes]]:
        out = []
        for obj in self.matching_queues(msg):
            qs = self.qm.queues.get(obj.name)
            if qs is None:
                continue
            out.append([pcf.enc_str(C.MQCA_Q_NAME, pad(obj.name, 48)),
                        pcf.enc_int(C.MQIA_CURRENT_Q_DEPTH, qs.depth),
                        pcf.enc_int(C.MQIA_OPEN_INPUT_COUNT, qs.input_shared + qs.input_exclusive),
                        pcf.enc_int(C.MQIA_OPEN_OUTPUT_COUNT, qs.output),
                        pcf.enc_int(F.MQIACF_UNCOMMITTED_MSGS, qs.uncommitted)])
        if not out:
            raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCA_Q_NAME)
        return out

    def create_q(self, msg: pcf.Message) -> list[list[bytes]]:
        return self._define_q(msg, _s(self.need(msg, C.MQCA_Q_NAME)), None)

    def copy_q(self, msg: pcf.Message) -> list[list[bytes]]:
        src = _s(self.need(msg, F.MQCACF_FROM_Q_NAME))
        return self._define_q(msg, _s(self.need(msg, F.MQCACF_TO_Q_NAME)), src)

    def _define_q(self, msg: pcf.Message, name: str, like: str | None) -> list[list[bytes]]:
        kind = self.queue_kind(msg, required=True)
        assert kind is not None
        replace = msg.first(F.MQIACF_REPLACE, F.MQRP_NO) == F.MQRP_YES
        self.admin(admin.define, kind, name, self.values(msg, kind), like, replace)
        return [[]]

    def change_q(self, msg: pcf.Message) -> list[list[bytes]]:
        name = _s(self.need(msg, C.MQCA_Q_NAME))
        kind = self.queue_kind(msg, required=True)
        assert kind is not None
        self.admin(admin.alter, kind, name, self.values(msg, kind))
        return [[]]

    def delete_q(self, msg: pcf.Message) -> list[list[bytes]]:
        name = _s(self.need(msg, C.MQCA_Q_NAME))
        obj = self.qm.queue(name)
        if obj is None:
            raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCA_Q_NAME)
        kind = self.queue_kind(msg, required=False) or obj.kind
        self.admin(admin.delete, kind, name, msg.first(F.MQIACF_PURGE, F.MQPO_NO) == F.MQPO_YES)
        return [[]]

    def clear_q(self, msg: pcf.Message) -> list[list[bytes]]:
        self.admin(admin.clear, _s(self.need(msg, C.MQCA_Q_NAME)))
        return [[]]

    # --- queue manager, namelists -------------------------------------------------------------
    def inquire_q_mgr(self, msg: pcf.Message) -> list[list[bytes]]:
        params = [pcf.enc_str(C.MQCA_Q_MGR_NAME, pad(self.qm.name, 48))]
        return [params + self.encode_attrs(QMGR, self.qm.qmgr.attrs, self.wanted(msg, F.MQIACF_Q_MGR_ATTRS))]

    def change_q_mgr(self, msg: pcf.Message) -> list[list[bytes]]:
        self.admin(admin.alter, QMGR, self.qm.name, self.values(msg, QMGR))
        return [[]]

    def inquire_namelist(self, msg: pcf.Message) -> list[list[bytes]]:
        pattern = _s(self.need(msg, C.MQCA_NAMELIST_NAME))
        out = []
        for name, obj in sorted(self.qm.objects["NAMELIST"].items()):
            if generic_match(pattern, name):
                out.append([pcf.enc_str(C.MQCA_NAMELIST_NAME, pad(name, 48))]
                           + self.encode_attrs("NAMELIST", obj.attrs, None))
        if not out:
            raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCA_NAMELIST_NAME)
        return out

    # --- channels -----------------------------------------------------------------------------
    def inquire_channel(self, msg: pcf.Message) -> list[list[bytes]]:
        pattern = _s(self.need(msg, F.MQCACH_CHANNEL_NAME))
        ctype = msg.first(F.MQIACH_CHANNEL_TYPE, C.MQCHT_ALL)
        wanted = self.wanted(msg, F.MQIACF_CHANNEL_ATTRS)
        out = []
        for name, obj in sorted(self.qm.objects["CHANNEL"].items()):
            if generic_match(pattern, name) and ctype in (C.MQCHT_ALL, CHLTYPE_VALUES[obj.kind]):
                if not self.passes(msg, obj.kind, obj.attrs, {}):
                    continue
                out.append([pcf.enc_str(F.MQCACH_CHANNEL_NAME, pad(name, 20)),
                            pcf.enc_int(F.MQIACH_CHANNEL_TYPE, CHLTYPE_VALUES[obj.kind])]
                           + self.encode_attrs(obj.kind, obj.attrs, wanted))
        if not out:
            raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, F.MQCACH_CHANNEL_NAME)
        return out

    def inquire_chstatus(self, msg: pcf.Message) -> list[list[bytes]]:
        pattern = _s(self.need(msg, F.MQCACH_CHANNEL_NAME))
        out = []
        for st in self.services.channel_status(pattern):
            out.append([pcf.enc_str(F.MQCACH_CHANNEL_NAME, pad(st["CHANNEL"], 20)),
                        pcf.enc_int(F.MQIACH_CHANNEL_TYPE, CHLTYPE_VALUES[st["CHLTYPE"]]),
                        pcf.enc_int(F.MQIACH_CHANNEL_STATUS, CHSTATUS.get(st["STATUS"], F.MQCHS_INACTIVE)),
                        pcf.enc_str(F.MQCACH_CONNECTION_NAME, pad(st["CONNAME"], 264)),
                        pcf.enc_str(F.MQCACH_XMIT_Q_NAME, pad(st["XMITQ"], 48)),
                        pcf.enc_str(C.MQCA_REMOTE_Q_MGR_NAME, pad(st["RQMNAME"], 48)),
                        pcf.enc_int(F.MQIACH_MSGS, st["MSGS"]), pcf.enc_int(F.MQIACH_BATCHES, st["BATCHES"]),
                        pcf.enc_int(F.MQIACH_CURRENT_SEQ_NUMBER, st["CURSEQNO"]),
                        pcf.enc_int(F.MQIACH_LAST_SEQ_NUMBER, st["LSTSEQNO"]),
                        pcf.enc_int(F.MQIACH_INDOUBT_STATUS, 1 if st["INDOUBT"] == "YES" else 0)])
        if not out:
            raise CommandError(F.MQRCCF_CHL_STATUS_NOT_FOUND, F.MQCACH_CHANNEL_NAME)
        return out

    def _channel_op(self, msg: pcf.Message, run: Callable[..., str | None], *args: Any) -> list[list[bytes]]:
        name = _s(self.need(msg, F.MQCACH_CHANNEL_NAME))
        if self.qm.lookup("CHANNEL", name) is None:
            raise CommandError(F.MQRCCF_CHANNEL_NOT_FOUND, F.MQCACH_CHANNEL_NAME)
        err = run(name, *args)
        if err:
            reason = F.MQRCCF_CHANNEL_IN_USE if "AMQ9514E" in err else (
                F.MQRCCF_HOST_NOT_AVAILABLE if "AMQ9202E" in err else F.MQRCCF_COMMAND_FAILED)
            raise CommandError(reason, detail=err)
        return [[]]

    def start_channel(self, msg: pcf.Message) -> list[list[bytes]]:
        return self._channel_op(msg, self.services.start_channel)

    def stop_channel(self, msg: pcf.Message) -> list[list[bytes]]:
        mode = "FORCE" if msg.first(F.MQIACF_MODE, F.MQMODE_QUIESCE) == F.MQMODE_FORCE else "QUIESCE"
        status = "INACTIVE" if msg.first(F.MQIACH_CHANNEL_STATUS) == F.MQCHS_INACTIVE else "STOPPED"
        return self._channel_op(msg, self.services.stop_channel, mode, status)

    def ping_channel(self, msg: pcf.Message) -> list[list[bytes]]:
        return self._channel_op(msg, self.services.ping_channel)

    # --- clusters -------------------------------------------------------------------------------
    def inquire_cluster_q_mgr(self, msg: pcf.Message) -> list[list[bytes]]:
        """The rows of DISPLAY CLUSQMGR, with MQ's PCF selectors and values."""
        pattern = _s(self.need(msg, C.MQCA_CLUSTER_Q_MGR_NAME))
        cluster = _s(msg.first(C.MQCA_CLUSTER_NAME, "*")) or "*"
        channel = _s(msg.first(F.MQCACH_CHANNEL_NAME, "*")) or "*"
        wanted = self.wanted(msg, F.MQIACF_CLUSTER_Q_MGR_ATTRS)
        out = []
        for row in self.executor.clusqmgr_rows():
            if not (generic_match(pattern, row["CLUSQMGR"]) and generic_match(cluster, row["CLUSTER"])
                    and generic_match(channel, row["CHANNEL"])):
                continue
            values = {C.MQCA_Q_MGR_IDENTIFIER: pad(row.get("QMID", ""), 48),
                      F.MQIACF_Q_MGR_DEFINITION_TYPE: QMDT[row["DEFTYPE"]],
                      F.MQIACF_Q_MGR_TYPE: F.MQQMT_REPOSITORY if row["QMTYPE"] == "REPOS" else F.MQQMT_NORMAL,
                      F.MQIACF_SUSPEND: F.MQSUS_YES if row["SUSPEND"] == "YES" else F.MQSUS_NO,
                      F.MQIACH_CHANNEL_STATUS: CHSTATUS.get(row["STATUS"], F.MQCHS_INACTIVE),
                      F.MQCACH_CONNECTION_NAME: pad(str(row.get("CONNAME", "")), 264),
                      F.MQCACH_XMIT_Q_NAME: pad(str(row.get("XMITQ", "")), 48),
                      C.MQCA_CLUSTER_DATE: pad(row.get("CLUSDATE", ""), 12),
                      C.MQCA_CLUSTER_TIME: pad(row.get("CLUSTIME", ""), 8)}
            for key, sel in (("CLWLRANK", F.MQIACH_CLWL_CHANNEL_RANK), ("CLWLPRTY", F.MQIACH_CLWL_CHANNEL_PRIORITY),
                             ("CLWLWGHT", F.MQIACH_CLWL_CHANNEL_WEIGHT), ("NETPRTY", F.MQIACH_NETWORK_PRIORITY)):
                if key in row:
                    values[sel] = int(row[key])
            if not self.passes_values(msg, values):
                continue
            params = [pcf.enc_str(C.MQCA_CLUSTER_Q_MGR_NAME, pad(row["CLUSQMGR"], 48)),
                      pcf.enc_str(C.MQCA_CLUSTER_NAME, pad(row["CLUSTER"], 48)),
                      pcf.enc_str(F.MQCACH_CHANNEL_NAME, pad(row["CHANNEL"], 20))]
            for sel, value in values.items():
                if wanted is None or sel in wanted:
                    params.append(pcf.enc_int(sel, value) if isinstance(value, int) else pcf.enc_str(sel, value))
            out.append(params)
        if not out:
            raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCA_CLUSTER_Q_MGR_NAME)
        return out

    @staticmethod
    def passes_values(msg: pcf.Message, values: dict[int, Any]) -> bool:
        """MQCFIF/MQCFSF filters over a response's own parameters (selector -> value)."""
        for ptype, sel, flt in msg.params:
            if ptype not in (F.MQCFT_INTEGER_FILTER, F.MQCFT_STRING_FILTER):
                continue
            if sel not in values:
                raise CommandError(F.MQRCCF_CFIF_PARM_ID_ERROR if ptype == F.MQCFT_INTEGER_FILTER
                                   else F.MQRCCF_CFSF_PARM_ID_ERROR, sel)
            have = values[sel]
            want = flt.value if ptype == F.MQCFT_INTEGER_FILTER else _s(flt.value)
            try:
                if not filter_match(flt.operator, _s(have).rstrip() if isinstance(have, bytes) else have, want):
                    return False
            except (KeyError, TypeError):
                raise CommandError(F.MQRCCF_CFIF_OPERATOR_ERROR if ptype == F.MQCFT_INTEGER_FILTER
                                   else F.MQRCCF_CFSF_OPERATOR_ERROR, sel) from None
        return True

    def _name_parm(self, msg: pcf.Message, selector: int, objtype: str = "QUEUE", generic: bool = False) -> str:
        """A name parameter, checked against MQ's naming rules (it goes into an MQSC command)."""
        name = _s(msg.first(selector, "")).strip()
        base = name[:-1] if generic and name.endswith("*") else name
        if base and not valid_name(base, objtype):
            raise CommandError(F.MQRCCF_OBJECT_NAME_ERROR, selector)
        return name

    def _mqsc(self, text_: str) -> list[list[bytes]]:
        """Run the MQSC equivalent of a cluster command; its message text goes back on failure."""
        result = self.executor.run(text_)
        if result.status != "ok":
            raise CommandError(F.MQRCCF_COMMAND_FAILED, detail=" ".join(result.lines))
        return [[]]

    def refresh_cluster(self, msg: pcf.Message) -> list[list[bytes]]:
        cluster = self._name_parm(msg, C.MQCA_CLUSTER_NAME, "CLUSTER", generic=True)
        if not cluster:
            raise CommandError(F.MQRCCF_PARM_COUNT_TOO_SMALL, C.MQCA_CLUSTER_NAME)
        repos = msg.first(F.MQIACF_REFRESH_REPOSITORY, F.MQCFO_REFRESH_REPOSITORY_NO)
        if repos not in (F.MQCFO_REFRESH_REPOSITORY_YES, F.MQCFO_REFRESH_REPOSITORY_NO):
            raise CommandError(F.MQRCCF_PARM_VALUE_ERROR, F.MQIACF_REFRESH_REPOSITORY)
        yes = repos == F.MQCFO_REFRESH_REPOSITORY_YES
        return self._mqsc(f"REFRESH CLUSTER({cluster}) REPOS({'YES' if yes else 'NO'})")

    def reset_cluster(self, msg: pcf.Message) -> list[list[bytes]]:
        cluster = self._name_parm(msg, C.MQCA_CLUSTER_NAME, "CLUSTER")
        if not cluster:
            raise CommandError(F.MQRCCF_PARM_COUNT_TOO_SMALL, C.MQCA_CLUSTER_NAME)
        if self.need(msg, F.MQIACF_ACTION) != F.MQACT_FORCE_REMOVE:
            raise CommandError(F.MQRCCF_ACTION_VALUE_ERROR, F.MQIACF_ACTION)
        qmname = self._name_parm(msg, C.MQCA_Q_MGR_NAME)
        qmid = _s(msg.first(C.MQCA_Q_MGR_IDENTIFIER, "")).strip()
        if bool(qmname) == bool(qmid):
            raise CommandError(F.MQRCCF_PARM_CONFLICT if qmname else F.MQRCCF_PARM_COUNT_TOO_SMALL,
                               C.MQCA_Q_MGR_IDENTIFIER)
        if qmid and not all(c.isalnum() or c in "._-" for c in qmid):
            raise CommandError(F.MQRCCF_PARM_VALUE_ERROR, C.MQCA_Q_MGR_IDENTIFIER)
        queues = msg.first(F.MQIACF_REMOVE_QUEUES, F.MQCFO_REMOVE_QUEUES_NO)
        if queues not in (F.MQCFO_REMOVE_QUEUES_YES, F.MQCFO_REMOVE_QUEUES_NO):
            raise CommandError(F.MQRCCF_PARM_VALUE_ERROR, F.MQIACF_REMOVE_QUEUES)
        who = f"QMNAME({qmname})" if qmname else f"QMID({qmid})"
        yes = queues == F.MQCFO_REMOVE_QUEUES_YES
        return self._mqsc(f"RESET CLUSTER({cluster}) ACTION(FORCEREMOVE) {who} QUEUES({'YES' if yes else 'NO'})")

    def suspend_resume(self, msg: pcf.Message, suspend: bool) -> list[list[bytes]]:
        cluster = self._name_parm(msg, C.MQCA_CLUSTER_NAME, "CLUSTER")
        namelist = self._name_parm(msg, C.MQCA_CLUSTER_NAMELIST)
        if cluster and namelist:
            raise CommandError(F.MQRCCF_CLUSTER_NAME_CONFLICT, C.MQCA_CLUSTER_NAMELIST)
        if not cluster and not namelist:
            raise CommandError(F.MQRCCF_PARM_COUNT_TOO_SMALL, C.MQCA_CLUSTER_NAME)
        which = f"CLUSTER({cluster})" if cluster else f"CLUSNL({namelist})"
        if not suspend:
            return self._mqsc(f"RESUME QMGR {which}")
        mode = msg.first(F.MQIACF_MODE, F.MQMODE_QUIESCE)
        if mode not in (F.MQMODE_QUIESCE, F.MQMODE_FORCE):
            raise CommandError(F.MQRCCF_MODE_VALUE_ERROR, F.MQIACF_MODE)
        return self._mqsc(f"SUSPEND QMGR {which} MODE({'FORCE' if mode == F.MQMODE_FORCE else 'QUIESCE'})")

    # --- MQSC in escape PCF --------------------------------------------------------------------
    def escape(self, msg: pcf.Message) -> list[list[bytes]]:
        if self.need(msg, F.MQIACF_ESCAPE_TYPE) != F.MQET_MQSC:
            raise CommandError(F.MQRCCF_ESCAPE_TYPE_ERROR, F.MQIACF_ESCAPE_TYPE)
        command = _s(self.need(msg, F.MQCACF_ESCAPE_TEXT))
        result = self.executor.run(command)
        params = [pcf.enc_int(F.MQIACF_ESCAPE_TYPE, F.MQET_MQSC),
                  pcf.enc_str(F.MQCACF_ESCAPE_TEXT, "\n".join(result.lines))]
        if result.status != "ok":
            raise EscapeFailed(result.status, params)
        return [params]


class EscapeFailed(CommandError):
    """An MQSC command in escape PCF that failed: its response text still goes back."""

    def __init__(self, status: str, params: list[bytes]) -> None:
        super().__init__(F.MQRCCF_PARM_SYNTAX_ERROR if status == "syntax" else F.MQRCCF_COMMAND_FAILED)
        self.params = params
