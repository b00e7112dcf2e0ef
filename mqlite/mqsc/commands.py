"""Running MQSC commands against an engine and answering in runmqsc's words.

Each command returns its response lines and a status: ``ok``, ``error`` (a valid command that
could not be processed) or ``syntax`` (a command with a syntax error).  A failed command changes
nothing.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mqlite.cmq import CMQC
from mqlite.engine import admin
from mqlite.engine.admin import AdminError
from mqlite.engine.qmgr import QueueManager
from mqlite.mqsc.cluster import ClusterCommands
from mqlite.mqsc.parser import Command, MQSCSyntaxError, Param, _upto, parse
from mqlite.mqsc.result import ERROR, OK, SYNTAX, Result, SyntaxProblem, format_fields
from mqlite.mqsc.security import SecurityCommands
from mqlite.mqsc.services import NoServices, Services
from mqlite.mqsc.status import StatusCommands
from mqlite.mqsc.topics import PubSubStatus, SubscriptionCommands, TopicCommands, TopicStringInUse
from mqlite.objects.attrs import (
    CHANNEL_TYPES,
    CHLTYPE_VALUES,
    ENUM,
    FLAG,
    INT,
    LIST,
    QUEUE_KINDS,
    TABLE,
    Attr,
    AttrError,
    convert,
)
from mqlite.objects.model import QMGR, MQObject, namespace
from mqlite.objects.names import MQSC_OPS, filter_match, generic_match

MSG = {
    ("DEFINE", "QUEUE"): "AMQ8006I: IBM MQ queue created.",
    ("ALTER", "QUEUE"): "AMQ8008I: IBM MQ queue changed.",
    ("DELETE", "QUEUE"): "AMQ8007I: IBM MQ queue deleted.",
    ("DEFINE", "CHANNEL"): "AMQ8014I: IBM MQ channel created.",
    ("ALTER", "CHANNEL"): "AMQ8016I: IBM MQ channel changed.",
    ("DELETE", "CHANNEL"): "AMQ8015I: IBM MQ channel deleted.",
    ("DEFINE", "NAMELIST"): "AMQ8552I: IBM MQ namelist created.",
    ("ALTER", "NAMELIST"): "AMQ8551I: IBM MQ namelist changed.",
    ("DELETE", "NAMELIST"): "AMQ8553I: IBM MQ namelist deleted.",
    ("DEFINE", "LISTENER"): "AMQ8626I: IBM MQ listener created.",
    ("ALTER", "LISTENER"): "AMQ8627I: IBM MQ listener changed.",
    ("DELETE", "LISTENER"): "AMQ8628I: IBM MQ listener deleted.",
    ("ALTER", "QMGR"): "AMQ8005I: IBM MQ queue manager changed.",
    ("DEFINE", "AUTHINFO"): "AMQ8563I: IBM MQ authentication information object created.",
    ("ALTER", "AUTHINFO"): "AMQ8567I: IBM MQ authentication information changed.",
    ("DELETE", "AUTHINFO"): "AMQ8564I: IBM MQ authentication information object deleted.",
    ("DEFINE", "TOPIC"): "AMQ8690I: IBM MQ topic created.",
    ("ALTER", "TOPIC"): "AMQ8691I: IBM MQ topic changed.",
    ("DELETE", "TOPIC"): "AMQ8692I: IBM MQ topic deleted.",
}
DISPLAY_HEADER = {
    "QUEUE": "AMQ8409I: Display Queue details.",
    "QMGR": "AMQ8408I: Display Queue Manager details.",
    "CHANNEL": "AMQ8414I: Display Channel details.",
    "NAMELIST": "AMQ8550I: Display namelist details.",
    "LISTENER": "AMQ8630I: Display listener information details.",
    "AUTHINFO": "AMQ8566I: Display authentication information details.",
    "TOPIC": "AMQ8633I: Display topic details.",
}
DEFINABLE = set(QUEUE_KINDS) | {"CHANNEL", "NAMELIST", "LISTENER", "AUTHINFO", "TOPIC"}
QUEUE_DISPLAY_TYPES = {"QLOCAL", "QALIAS", "QREMOTE", "QMODEL", "QCLUSTER", "ALL"}


def _syntax(cmd_text: str, segment: str | None = None, reason: str = "") -> Result:
    lines = ["AMQ8405I: Syntax error detected at or near end of command segment below:-",
             segment if segment is not None else cmd_text]
    if reason:
        lines.append(reason)
    return Result(lines, SYNTAX)


@dataclass(frozen=True)
class Where:
    """A DISPLAY's WHERE clause: the attribute it filters on (always displayed), and its test."""
    attr: str
    test: Callable[[str, dict[str, Any]], bool]


class Executor(ClusterCommands, SecurityCommands, TopicCommands, SubscriptionCommands, PubSubStatus,
               StatusCommands):
    def __init__(self, qm: QueueManager, services: Services | None = None) -> None:
        self.qm = qm
        self.services = services or NoServices()

    def run(self, text: str) -> Result:
        try:
            cmd = parse(text)
        except MQSCSyntaxError as e:
            return _syntax(text, e.segment, e.reason)
        handler: Callable[[Command], Result] | None = getattr(self, "_" + cmd.verb.lower(), None)
        if handler is None:
            return Result([f"MQL0001E: {cmd.verb} {cmd.objtype} is not supported by this queue manager."],
                          ERROR)
        try:
            return handler(cmd)
        except SyntaxProblem as e:
            return _syntax(text, _upto(text, e.segment), e.reason)
        except AdminError as e:
            return Result(self._admin_message(cmd, e), ERROR)

    def _end(self, cmd: Command) -> Result:
        return Result([], OK)

    # --- parameters ---------------------------------------------------------------------------
    def _values(self, cmd: Command, kind: str, allowed_extra: set[str]) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for p in cmd.params:
            if p.keyword in allowed_extra:
                continue
            attr = TABLE.lookup(kind, p.keyword)
            if attr is None or not attr.alterable:
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for {kind}.")
            values[attr.name] = self._convert(cmd, attr, p)
        return values

    def _convert(self, cmd: Command, attr: Attr, p: Param) -> Any:
        if attr.kind == FLAG:
            if p.value is not None:
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} takes no value.")
            return 1 if p.keyword == attr.name else 0
        if p.value is None:
            raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} needs a value.")
        try:
            if attr.kind == LIST:
                return convert(attr, p.items or [])
            return convert(attr, p.value)
        except AttrError as e:
            raise SyntaxProblem(cmd.text, p.text, str(e)) from None

    def _disp(self, cmd: Command, allowed: tuple[str, ...], default: str = "QMGR") -> Any:
        """The QSGDISP a command names (its MQQSGD value); for DISPLAY also LIVE and ALL (as words)."""
        p = cmd.param("QSGDISP")
        if p is None or (p.value is None and default == "LIVE"):   # DISPLAY ... QSGDISP: the attribute
            word = default
        elif p.value is None or p.value.upper() not in allowed:
            raise SyntaxProblem(cmd.text, p.text, f"QSGDISP must be one of {', '.join(allowed)}.")
        else:
            word = p.value.upper()
        return admin.DISPS.get(word, word)

    def _need_name(self, cmd: Command) -> str:
        if cmd.name is None or cmd.name == "":
            raise SyntaxProblem(cmd.text, cmd.text, "An object name is required.")
        return cmd.name

    def _admin_message(self, cmd: Command, e: AdminError) -> list[str]:
        name = e.name or (cmd.name or "")
        if e.code == admin.NOT_FOUND or e.code == admin.WRONG_TYPE:
            lines = [f"AMQ8147E: IBM MQ object {name} not found."]
        elif e.code == admin.EXISTS:
            lines = ["AMQ8150E: IBM MQ object already exists."]
        elif e.code == admin.IN_USE:
            lines = ["AMQ8148E: IBM MQ object in use."]
        elif e.code == admin.NOT_EMPTY:
            lines = [f"AMQ8143E: IBM MQ queue {name} not empty."]
        elif e.code == admin.BAD_NAME:
            lines = ["AMQ8405I: Syntax error detected at or near end of command segment below:-", cmd.text,
                     f"The name {name} is not a valid IBM MQ object name."]
        else:
            lines = [f"MQL0002E: {e.detail}"]
        if e.detail and e.code not in (admin.BAD_NAME, admin.CONFLICT):
            lines.append(e.detail)
        return lines

    # --- DEFINE / ALTER / DELETE / CLEAR ------------------------------------------------------
    def _kind_of(self, cmd: Command) -> str:
        if cmd.objtype == "CHANNEL":
            p = cmd.param("CHLTYPE")
            if p is None or p.value is None:
                raise SyntaxProblem(cmd.text, cmd.text, "CHLTYPE is required.")
            if p.value.upper() not in CHLTYPE_VALUES:
                raise SyntaxProblem(cmd.text, p.text, f"CHLTYPE({p.value}) is not a channel type.")
            return p.value.upper()
        return cmd.objtype

    def _define(self, cmd: Command) -> Result:
        if cmd.objtype == "SUB":
            return self._define_sub(cmd)
        if cmd.objtype not in DEFINABLE:
            raise SyntaxProblem(cmd.text, cmd.text, f"DEFINE {cmd.objtype} is not valid.")
        name = self._need_name(cmd)
        kind = self._kind_of(cmd)
        values = self._values(cmd, kind, {"LIKE", "REPLACE", "NOREPLACE", "CHLTYPE", "QSGDISP", "AUTHTYPE", "TOPICSTR"})
        if kind == "AUTHINFO":
            values["AUTHTYPE"] = self._authtype(cmd)
        elif kind == "TOPIC":
            try:
                values["TOPICSTR"] = self._topicstr(cmd, name)
            except TopicStringInUse as e:
                why = f"AMQ8147E: The topic string is already used by topic object {e.other} (MQRCCF_TOPICSTR_ALREADY_EXISTS)."
                return Result([why], ERROR)
        like = cmd.param("LIKE")
        if like is not None and like.value is None:
            raise SyntaxProblem(cmd.text, like.text, "LIKE needs an object name.")
        replace = cmd.param("REPLACE") is not None
        if replace and cmd.param("NOREPLACE") is not None:
            raise SyntaxProblem(cmd.text, cmd.text, "REPLACE and NOREPLACE are exclusive.")
        admin.define(self.qm, kind, name, values, like.value if like else None, replace,
                     self._disp(cmd, ("QMGR", "SHARED", "GROUP", "COPY")))
        return Result([MSG[("DEFINE", namespace(kind))]])

    def _alter(self, cmd: Command) -> Result:
        if cmd.objtype == "QMGR":
            if cmd.name is not None:
                raise SyntaxProblem(cmd.text, cmd.text, "ALTER QMGR takes no name.")
            values = self._values(cmd, QMGR, {"FORCE"})
            admin.alter(self.qm, QMGR, self.qm.name, values)
            return Result([MSG[("ALTER", "QMGR")]])
        if cmd.objtype == "SUB":
            return self._define_sub(cmd, alter=True)
        if cmd.objtype not in DEFINABLE:
            raise SyntaxProblem(cmd.text, cmd.text, f"ALTER {cmd.objtype} is not valid.")
        name = self._need_name(cmd)
        kind = self._kind_of(cmd)
        values = self._values(cmd, kind, {"CHLTYPE", "FORCE", "QSGDISP", "AUTHTYPE"})
        if kind == "AUTHINFO":
            existing = self.qm.lookup("AUTHINFO", name)
            if existing is not None and existing["AUTHTYPE"] != self._authtype(cmd):
                return Result(["AMQ8144E: AUTHTYPE of an authentication information object cannot change."],
                              ERROR)
        admin.alter(self.qm, kind, name, values, self._disp(cmd, ("QMGR", "SHARED", "GROUP", "COPY")))
        return Result([MSG[("ALTER", namespace(kind))]])

    def _delete(self, cmd: Command) -> Result:
        if cmd.objtype == "AUTHREC":
            return self._set_authrec(cmd, delete=True)
        if cmd.objtype == "SUB":
            return self._delete_sub(cmd)
        if cmd.objtype not in DEFINABLE:
            raise SyntaxProblem(cmd.text, cmd.text, f"DELETE {cmd.objtype} is not valid.")
        name = self._need_name(cmd)
        extra = {"QSGDISP", "CHLTYPE"} | ({"PURGE", "NOPURGE"} if cmd.objtype == "QLOCAL" else set())
        for p in cmd.params:
            if p.keyword not in extra:
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for DELETE {cmd.objtype}.")
        purge = cmd.param("PURGE") is not None
        admin.delete(self.qm, cmd.objtype, name, purge, self._disp(cmd, ("QMGR", "SHARED", "GROUP", "COPY")))
        return Result([MSG[("DELETE", namespace(cmd.objtype))]])

    def _clear(self, cmd: Command) -> Result:
        if cmd.objtype == "TOPICSTR":
            return self._clear_topicstr(cmd)                          # type: ignore[attr-defined]
        if cmd.objtype != "QLOCAL":
            raise SyntaxProblem(cmd.text, cmd.text, "CLEAR takes QLOCAL or TOPICSTR.")
        name = self._need_name(cmd)
        for p in cmd.params:
            if p.keyword not in ("QSGDISP", "CMDSCOPE"):
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for CLEAR QLOCAL.")
        admin.clear(self.qm, name, self._disp(cmd, ("QMGR", "SHARED")))
        return Result(["AMQ8022I: IBM MQ queue cleared."])

    # --- PING / START / STOP ----------------------------------------------------------------
    def _ping(self, cmd: Command) -> Result:
        if cmd.objtype == "CHANNEL":
            return self._channel_op(cmd, {"DATALEN": set()}, self.services.ping_channel,
                                    "AMQ8020I: Ping IBM MQ channel complete.")
        if cmd.objtype != "QMGR" or cmd.params:
            raise SyntaxProblem(cmd.text, cmd.text, "PING takes QMGR here.")
        return Result(["AMQ8415I: Ping IBM MQ Queue Manager command complete."])

    def _channel_op(self, cmd: Command, allowed: dict[str, set[str]], run: Callable[..., str | None],
                    done: str, *args: Any) -> Result:
        name = self._need_name(cmd)
        for p in cmd.params:
            choices = allowed.get(p.keyword)
            if choices is None or (choices and (p.value or "").upper() not in choices):
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid here.")
        if self.qm.lookup("CHANNEL", name) is None and self.qm.cluster.auto_channel(name) is None:
            raise AdminError(admin.NOT_FOUND, name)
        err = run(name, *args)
        if err:
            return Result([err], ERROR)
        return Result([done])

    def _start(self, cmd: Command) -> Result:
        if cmd.objtype == "CHANNEL":
            return self._channel_op(cmd, {"CHLTYPE": set()}, self.services.start_channel,
                                    "AMQ8018I: Start IBM MQ channel accepted.")
        if cmd.objtype != "LISTENER":
            return self._unsupported(cmd)
        name = self._need_name(cmd)
        obj = self.qm.lookup("LISTENER", name)
        if obj is None:
            raise AdminError(admin.NOT_FOUND, name)
        err = self.services.start_listener(obj)
        if err:
            return Result([err], ERROR)
        return Result(["AMQ8021I: Request to start IBM MQ Listener accepted."])

    def _stop(self, cmd: Command) -> Result:
        if cmd.objtype == "CHANNEL":
            mode = (cmd.param("MODE").value or "QUIESCE").upper() if cmd.param("MODE") else "QUIESCE"
            status = (cmd.param("STATUS").value or "STOPPED").upper() if cmd.param("STATUS") else "STOPPED"
            return self._channel_op(cmd, {"MODE": {"QUIESCE", "FORCE", "TERMINATE"},
                                          "STATUS": {"STOPPED", "INACTIVE"}, "CHLTYPE": set()},
                                    self.services.stop_channel, "AMQ8019I: Stop IBM MQ channel accepted.",
                                    "QUIESCE" if mode == "QUIESCE" else "FORCE", status)
        if cmd.objtype != "LISTENER":
            return self._unsupported(cmd)
        name = self._need_name(cmd)
        if self.qm.lookup("LISTENER", name) is None:
            raise AdminError(admin.NOT_FOUND, name)
        err = self.services.stop_listener(name)
        if err:
            return Result([err], ERROR)
        return Result(["AMQ8706I: Request to stop IBM MQ Listener accepted."])

    def _unsupported(self, cmd: Command) -> Result:
        return Result([f"MQL0001E: {cmd.verb} {cmd.objtype} is not supported by this queue manager yet."],
                      ERROR)

    def _reset(self, cmd: Command) -> Result:
        if cmd.objtype == "CLUSTER":
            return self._reset_cluster(cmd)  # type: ignore[no-any-return]
        if cmd.objtype != "CHANNEL":
            return self._unsupported(cmd)
        p = cmd.param("SEQNUM")
        try:
            seqnum = int(p.value) if p is not None and p.value is not None else 1
        except ValueError:
            raise SyntaxProblem(cmd.text, p.text if p else cmd.text, "SEQNUM must be a number.") from None
        if not 1 <= seqnum <= 999999999:
            raise SyntaxProblem(cmd.text, p.text if p else cmd.text, "SEQNUM must be 1 to 999999999.")
        return self._channel_op(cmd, {"SEQNUM": set()}, self.services.reset_channel,
                                "AMQ8023I: IBM MQ channel reset.", seqnum)

    def _resolve(self, cmd: Command) -> Result:
        p = cmd.param("ACTION")
        if cmd.objtype != "CHANNEL":
            return self._unsupported(cmd)
        if p is None or (p.value or "").upper() not in ("COMMIT", "BACKOUT"):
            raise SyntaxProblem(cmd.text, cmd.text, "ACTION(COMMIT) or ACTION(BACKOUT) is required.")
        return self._channel_op(cmd, {"ACTION": {"COMMIT", "BACKOUT"}}, self.services.resolve_channel,
                                "AMQ8024I: IBM MQ channel resolved.", (p.value or "").upper())

    # --- DISPLAY ------------------------------------------------------------------------------
    def _display(self, cmd: Command) -> Result:
        ot = cmd.objtype
        if ot == "QMGR":
            return self._display_qmgr(cmd)
        if ot in ("QUEUE", "QLOCAL", "QALIAS", "QREMOTE", "QMODEL"):
            return self._display_objects(cmd, "QUEUE", "QUEUE")
        if ot == "TOPIC" and (self._word(cmd, "TYPE", ("LOCAL", "CLUSTER", "ALL"), "LOCAL") == "CLUSTER"):
            return self._display_topic_cluster(cmd)    # type: ignore[no-any-return]
        if ot in ("CHANNEL", "NAMELIST", "LISTENER", "AUTHINFO", "TOPIC"):
            return self._display_objects(cmd, ot, ot)
        if ot == "TPSTATUS":
            return self._display_tpstatus(cmd)
        if ot == "PUBSUB":
            return self._display_pubsub(cmd)
        if ot == "SUB":
            return self._display_sub(cmd)
        if ot == "SBSTATUS":
            return self._display_sbstatus(cmd)
        if ot == "CHLAUTH":
            return self._display_chlauth(cmd)
        if ot == "AUTHREC":
            return self._display_authrec(cmd)
        if ot == "QSTATUS":
            return self._display_qstatus(cmd)
        if ot == "LSSTATUS":
            return self._display_lsstatus(cmd)
        if ot == "CHSTATUS":
            return self._display_chstatus(cmd)
        if ot == "CLUSQMGR":
            return self._display_clusqmgr(cmd)  # type: ignore[no-any-return]
        if ot == "QCLUSTER":
            return self._display_qcluster(cmd)  # type: ignore[no-any-return]
        return self._unsupported(cmd)

    def _requested(self, cmd: Command, kinds: list[str], extra: set[str]) -> tuple[bool, list[str]]:
        """(ALL given, explicitly requested attribute names) for a DISPLAY."""
        all_ = False
        wanted: list[str] = []
        for p in cmd.params:
            if p.keyword in extra:
                continue
            if p.keyword == "ALL":
                all_ = True
                continue
            attr = next((TABLE.lookup(k, p.keyword) for k in kinds if TABLE.lookup(k, p.keyword)), None)
            if attr is None or p.value is not None:
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not a displayable attribute.")
            wanted.append(attr.name)
        return all_, wanted

    def _where(self, cmd: Command, kinds: list[str]) -> Where | None:
        p = cmd.param("WHERE")
        if p is None:
            return None
        if p.value is None:
            raise SyntaxProblem(cmd.text, p.text, "WHERE needs a condition.")
        parts = p.value.split(None, 2)
        if len(parts) != 3:
            raise SyntaxProblem(cmd.text, p.text, "WHERE needs: attribute operator value.")
        key, op, raw = parts[0].upper(), parts[1].upper(), parts[2]
        attr = next((TABLE.lookup(k, key) for k in kinds if TABLE.lookup(k, key)), None)
        if attr is None:
            raise SyntaxProblem(cmd.text, p.text, f"{key} cannot be used in WHERE.")
        if op not in MQSC_OPS:
            raise SyntaxProblem(cmd.text, p.text, f"{op} is not a WHERE operator.")
        if attr.kind == INT:
            try:
                want: Any = int(raw)
            except ValueError:
                raise SyntaxProblem(cmd.text, p.text, f"{raw} is not a number.") from None
        elif attr.kind == ENUM:
            want = attr.values.get(raw.upper())
            if want is None:
                raise SyntaxProblem(cmd.text, p.text, f"{raw} is not a value of {key}.")
        elif attr.kind == FLAG:
            want = 1 if raw.upper() == attr.name else 0
        else:
            want = raw

        def test(kind: str, values: dict[str, Any]) -> bool:
            if attr.name not in values or TABLE.lookup(kind, attr.name) is None:
                return False
            v = values[attr.name]
            if op in ("LK", "NL"):
                return filter_match(MQSC_OPS[op], str(v).upper(), str(want).upper())
            return filter_match(MQSC_OPS[op], v, want)
        return Where(attr.name, test)

    def _display_objects(self, cmd: Command, ns: str, key: str) -> Result:
        pattern = self._need_name(cmd)
        want_type = None
        if ns == "QUEUE":
            kinds = list(QUEUE_KINDS)
            tp = cmd.param("TYPE")
            want_kind = cmd.objtype if cmd.objtype != "QUEUE" else None
            if tp is not None:
                if tp.value is None or tp.value.upper() not in QUEUE_DISPLAY_TYPES:
                    raise SyntaxProblem(cmd.text, tp.text, "TYPE must be QLOCAL, QALIAS, QREMOTE, QMODEL, QCLUSTER or ALL.")
                if tp.value.upper() == "QCLUSTER":
                    return self._display_qcluster(cmd)  # type: ignore[no-any-return]
                if tp.value.upper() != "ALL":
                    want_kind = tp.value.upper()
            extra = {"TYPE", "WHERE", "QSGDISP", "CMDSCOPE", "CLUSINFO"}
        elif ns == "CHANNEL":
            kinds = list(CHANNEL_TYPES)
            tp = cmd.param("CHLTYPE")
            want_kind = tp.value.upper() if tp is not None and tp.value else None
            if want_kind is not None and want_kind not in CHLTYPE_VALUES and want_kind != "ALL":
                raise SyntaxProblem(cmd.text, tp.text if tp else cmd.text, "CHLTYPE is not a channel type.")
            if want_kind == "ALL":
                want_kind = None
            extra = {"CHLTYPE", "WHERE", "QSGDISP", "CMDSCOPE"}
        else:
            kinds = [ns]
            want_kind = None
            extra = {"WHERE", "CMDSCOPE"} | ({"AUTHTYPE"} if ns == "AUTHINFO" else {"TYPE", "CLUSINFO"} if ns == "TOPIC"
                                             else set())
            tp = cmd.param("AUTHTYPE")
            if ns == "AUTHINFO" and tp is not None and (tp.value or "").upper() != "ALL":
                want_type = self._authtype(cmd)
        all_, wanted = self._requested(cmd, kinds, extra)
        where = self._where(cmd, kinds)
        if where is not None:
            wanted.append(where.attr)
        disp = self._disp(cmd, ("LIVE", "ALL", "QMGR", "COPY", "SHARED", "GROUP"), "LIVE") \
            if ns == "QUEUE" else "LIVE"
        pool = [o for _n, o in sorted(self.qm.objects[ns].items())]
        if disp in ("ALL", CMQC.MQQSGD_GROUP):
            pool += [o for (gns, _n), o in sorted(self.qm.group_objects.items()) if gns == ns]
        if want_type is not None:
            pool = [o for o in pool if o["AUTHTYPE"] == want_type]
        objs = [o for o in pool
                if generic_match(pattern, o.name) and (want_kind is None or o.kind == want_kind)
                and (disp in ("LIVE", "ALL") or o.attrs.get("QSGDISP", CMQC.MQQSGD_Q_MGR) == disp)]
        if ns == "QUEUE" and disp in ("ALL", CMQC.MQQSGD_GROUP):
            objs.sort(key=lambda o: o.name)
        lines: list[str] = []
        for obj in objs:
            values = admin.display_values(self.qm, obj)
            if where is not None and not where.test(obj.kind, values):
                continue
            lines.append(DISPLAY_HEADER[ns])
            lines.extend(format_fields(self._render(ns, obj, values, all_, wanted)))
        if ns == "QUEUE" and cmd.param("CLUSINFO") is not None and where is None:
            # CLUSINFO: the cluster queues this queue manager knows, each instance as TYPE(QCLUSTER).
            lines.extend(self._qcluster_lines(cmd, strict=False))
        if not lines:
            if where is not None and objs:
                return Result([])
            return Result([f"AMQ8147E: IBM MQ object {pattern} not found."], ERROR)
        return Result(lines)

    def _render(self, ns: str, obj: MQObject, values: dict[str, Any], all_: bool, wanted: list[str]) -> list[str]:
        table = TABLE.attrs(obj.kind)
        if ns == "QUEUE":
            items = [f"QUEUE({obj.name})", f"TYPE({obj.kind})"]
        elif ns == "CHANNEL":
            items = [f"CHANNEL({obj.name})", f"CHLTYPE({obj.kind})"]
        elif ns == "TOPIC":
            items = [f"TOPIC({obj.name})", "TYPE(LOCAL)"]
        elif ns == "AUTHINFO":
            items = [f"AUTHINFO({obj.name})", table["AUTHTYPE"].render(values["AUTHTYPE"])]
            values = {k: v for k, v in values.items() if k != "LDAPPWD" or not v} | \
                ({"LDAPPWD": "********"} if values.get("LDAPPWD") else {})
        else:
            items = [f"{ns}({obj.name})"]
        names = sorted(table) if all_ else [w for w in dict.fromkeys(wanted) if w in table]
        if ns == "AUTHINFO":
            names = [n for n in names if n != "AUTHTYPE"]
        if ns == "QUEUE" and self.qm.shared is not None and "QSGDISP" not in names:
            names.insert(0, "QSGDISP")   # a group member shows every queue's disposition, as z/OS does
        for n in names:
            items.append(table[n].render(values.get(n, table[n].default_for(obj.kind))))
        return items

    def _display_qmgr(self, cmd: Command) -> Result:
        all_, wanted = self._requested(cmd, [QMGR], {"CMDSCOPE"})
        values = self.qm.qmgr.attrs
        table = TABLE.attrs(QMGR)
        names = sorted(table) if all_ or not wanted else [w for w in dict.fromkeys(wanted)]
        items = [f"QMNAME({self.qm.name})"] + [table[n].render(values[n]) for n in names]
        return Result([DISPLAY_HEADER["QMGR"]] + format_fields(items))
