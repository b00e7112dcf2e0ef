"""Running MQSC commands against an engine and answering in runmqsc's words.

Each command returns its response lines and a status: ``ok``, ``error`` (a valid command that
could not be processed) or ``syntax`` (a command with a syntax error).  A failed command changes
nothing.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mqlite.catalogue import message
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.engine import admin
from mqlite.engine.admin import AdminError
from mqlite.engine.clock import mq_date_time
from mqlite.engine.qmgr import QueueManager
from mqlite.mqsc.base import Part
from mqlite.mqsc.cluster import ClusterCommands
from mqlite.mqsc.connections import ConnectionCommands
from mqlite.mqsc.display import ObjectDisplay
from mqlite.mqsc.parser import Command, MQSCSyntaxError, _upto, parse
from mqlite.mqsc.result import ERROR, OK, SYNTAX, Result, SyntaxProblem
from mqlite.mqsc.security import SecurityCommands
from mqlite.mqsc.services import NoServices, Services
from mqlite.mqsc.status import StatusCommands
from mqlite.mqsc.topics import PubSubStatus, SubscriptionCommands, TopicCommands, TopicStringInUse
from mqlite.objects.attrbase import PROTOCOL_CHANNELS
from mqlite.objects.attrs import (
    CHLTYPE_VALUES,
    QUEUE_KINDS,
)
from mqlite.objects.model import QMGR, namespace
from mqlite.objects.names import generic_match

MSG = {
    ("DEFINE", "QUEUE"): message("AMQ8006I"),
    ("ALTER", "QUEUE"): message("AMQ8008I"),
    ("DELETE", "QUEUE"): message("AMQ8007I"),
    ("DEFINE", "CHANNEL"): message("AMQ8014I"),
    ("ALTER", "CHANNEL"): message("AMQ8016I"),
    ("DELETE", "CHANNEL"): message("AMQ8015I"),
    ("DEFINE", "NAMELIST"): message("AMQ8552I"),
    ("ALTER", "NAMELIST"): message("AMQ8551I"),
    ("DELETE", "NAMELIST"): message("AMQ8553I"),
    ("DEFINE", "LISTENER"): message("AMQ8626I"),
    ("ALTER", "LISTENER"): message("AMQ8623I"),
    ("DELETE", "LISTENER"): message("AMQ8628I"),
    ("ALTER", "QMGR"): message("AMQ8005I"),
    ("DEFINE", "AUTHINFO"): message("AMQ8563I"),
    ("ALTER", "AUTHINFO"): message("AMQ8567I"),
    ("DELETE", "AUTHINFO"): message("AMQ8564I"),
    ("DEFINE", "TOPIC"): message("AMQ8690I"),
    ("ALTER", "TOPIC"): message("AMQ8691I"),
    ("DELETE", "TOPIC"): message("AMQ8692I"),
    ("DEFINE", "PROCESS"): message("AMQ8010I"),
    ("ALTER", "PROCESS"): message("AMQ8012I"),
    ("DELETE", "PROCESS"): message("AMQ8011I"),
    # (ids not yet checked against MQ's catalogue are mqlite's own: issue 35's catalogue table)
    ("DEFINE", "SERVICE"): message("AMQ8625I"),
    ("ALTER", "SERVICE"): message("MQL8002I"),
    ("DELETE", "SERVICE"): message("MQL8003I"),
    ("DEFINE", "COMMINFO"): message("AMQ8858I"),
    ("ALTER", "COMMINFO"): message("MQL8005I"),
    ("DELETE", "COMMINFO"): message("MQL8006I"),
}
DEFINABLE = set(QUEUE_KINDS) | {"CHANNEL", "NAMELIST", "LISTENER", "AUTHINFO", "TOPIC", "PROCESS", "SERVICE",
                                "COMMINFO"}


# MQSC verbs and object types as PCF names them (MQCMD_<verb>_<object>), for command events.
_PCF_VERB = {"DEFINE": "CREATE", "ALTER": "CHANGE", "DISPLAY": "INQUIRE"}
_PCF_OBJECT = {"QLOCAL": "Q", "QREMOTE": "Q", "QALIAS": "Q", "QMODEL": "Q", "QUEUE": "Q", "QMGR": "Q_MGR",
               "QSTATUS": "Q_STATUS", "CHSTATUS": "CHANNEL_STATUS", "SUB": "SUBSCRIPTION", "SBSTATUS": "SUB_STATUS",
               "TPSTATUS": "TOPIC_STATUS", "AUTHINFO": "AUTH_INFO", "COMMINFO": "COMM_INFO", "CONN": "CONNECTION",
               "LSSTATUS": "LISTENER_STATUS", "SVSTATUS": "SERVICE_STATUS", "QMSTATUS": "Q_MGR_STATUS",
               "CLUSQMGR": "CLUSTER_Q_MGR", "AUTHREC": "AUTH_RECS", "CHLAUTH": "CHLAUTH_RECS",
               "APSTATUS": "APPL_STATUS", "PUBSUB": "PUBSUB_STATUS"}


# REFRESH QMGR's OBJECT: the namespaces (or kinds of queue) it takes.
_ALL_DEFINITIONS = ("QMGR", "QUEUE", "CHANNEL", "NAMELIST", "PROCESS", "AUTHINFO", "TOPIC", "LISTENER", "SERVICE",
                    "COMMINFO")
REFRESH_OBJECTS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "ALL": (_ALL_DEFINITIONS, None), **{kind: (("QUEUE",), kind) for kind in ("QLOCAL", "QALIAS", "QMODEL", "QREMOTE")},
    **{ns: ((ns,), None) for ns in _ALL_DEFINITIONS}, "AUTHREC": ((), None), "CHLAUTH": ((), None)}


def pcf_equivalent(text: str) -> tuple[int, bool]:
    """The PCF command an MQSC command is (MQCMD_ESCAPE, which carries MQSC, when PCF has no
    twin), and whether it only displays."""
    try:
        cmd = parse(text)
    except MQSCSyntaxError:
        return F.MQCMD_ESCAPE, False
    name = f"MQCMD_{_PCF_VERB.get(cmd.verb, cmd.verb)}_{_PCF_OBJECT.get(cmd.objtype, cmd.objtype)}"
    if cmd.verb in ("SUSPEND", "RESUME"):
        name += "_CLUSTER"                  # SUSPEND QMGR CLUSTER(...): Suspend Queue Manager Cluster
    # (DISPLAY AUTHREC is Inquire Authority Records; SET AUTHREC, Set Authority Record.)
    return int(getattr(F, name, getattr(F, name.rstrip("S"), F.MQCMD_ESCAPE))), cmd.verb == "DISPLAY"


def _syntax(cmd_text: str, segment: str | None = None, reason: str = "") -> Result:
    lines = [message("AMQ8405I"),
             segment if segment is not None else cmd_text]
    if reason:
        lines.append(reason)
    return Result(lines, SYNTAX)


class Executor(Part):
    """Runs MQSC commands: DEFINE, ALTER, DELETE, CLEAR, PING, START, STOP, RESET and RESOLVE of
    objects here; the rest by the group of commands they belong to, each a part it holds."""

    def __init__(self, qm: QueueManager, services: Services | None = None) -> None:
        super().__init__(qm, services or NoServices())
        self.security = SecurityCommands(qm, self.services)
        self.cluster = ClusterCommands(qm, self.services, self.security)
        self.topics = TopicCommands(qm, self.services)
        self.pubsub = PubSubStatus(qm, self.services)
        self.subs = SubscriptionCommands(qm, self.services)
        self.status = StatusCommands(qm, self.services)
        self.conns = ConnectionCommands(qm, self.services)
        self.display = ObjectDisplay(qm, self.services, self.cluster, self.security)
        self.verbs: dict[str, Callable[[Command], Result]] = {
            "END": self._end, "DEFINE": self._define, "ALTER": self._alter, "DELETE": self._delete,
            "CLEAR": self._clear, "PING": self._ping, "START": self._start, "STOP": self._stop,
            "RESET": self._reset, "RESOLVE": self._resolve, "DISPLAY": self._display,
            "SET": self.security.run_set, "SUSPEND": self.cluster.suspend, "RESUME": self.cluster.resume,
            "REFRESH": self._refresh, "PURGE": self._purge}

    def run(self, text: str) -> Result:
        try:
            cmd = parse(text)
        except MQSCSyntaxError as e:
            return _syntax(text, e.segment, e.reason)
        handler = self.verbs.get(cmd.verb)
        if handler is None:
            return Result([message("MQL0001E", verb=cmd.verb, objtype=cmd.objtype)],
                          ERROR)
        try:
            return handler(cmd)
        except SyntaxProblem as e:
            return _syntax(text, _upto(text, e.segment), e.reason)
        except AdminError as e:
            # (a name MQ cannot have is a syntax error to runmqsc: counted with them)
            return Result(self._admin_message(cmd, e), SYNTAX if e.code == admin.BAD_NAME else ERROR)

    def _end(self, cmd: Command) -> Result:
        return Result([], OK)

    def _refresh(self, cmd: Command) -> Result:
        return self._refresh_qmgr(cmd) if cmd.objtype == "QMGR" else self.cluster.refresh(cmd)

    def _refresh_qmgr(self, cmd: Command) -> Result:
        """REFRESH QMGR TYPE(CONFIGEV) [OBJECT(type)] [NAME(generic)] [INCLINT(minutes)]: a Refresh
        Object configuration event for each definition chosen (with INCLINT, only those changed in
        that many minutes), authority record and CHLAUTH record (OBJECT(AUTHREC), OBJECT(CHLAUTH),
        or ALL), as monitoring tools ask to learn a queue manager's configuration."""
        for p in cmd.params:
            if p.keyword not in ("TYPE", "OBJECT", "NAME", "INCLINT"):
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for REFRESH QMGR.")
        if cmd.param("TYPE") is None:
            raise SyntaxProblem(cmd.text, cmd.text, "TYPE is required.")
        if self.word(cmd, "TYPE", ("CONFIGEV", "EARLY", "EXPIRY", "PROXYSUB"), "") != "CONFIGEV":
            return self.unsupported(cmd)
        word = self.word(cmd, "OBJECT", tuple(REFRESH_OBJECTS), "ALL")
        namespaces, kind = REFRESH_OBJECTS[word]
        name = cmd.param("NAME")
        pattern = name.value if name is not None and name.value else "*"
        inclint = cmd.param("INCLINT")
        minutes = int(inclint.value or "0") if inclint is not None and (inclint.value or "").isdigit() else 0
        if inclint is not None and not 0 < minutes <= 999999:
            raise SyntaxProblem(cmd.text, inclint.text, "INCLINT must be a number of minutes, 1 to 999999.")
        qm = self.qm
        if qm.qmgr["CONFIGEV"] != F.MQEVR_ENABLED:
            return Result([message("MQL8012E")],
                          ERROR)
        since = mq_date_time(qm.clock.now() - minutes * 60) if minutes else ("", "")
        objects = [qm.qmgr] if "QMGR" in namespaces else []
        objects += [o for ns in namespaces if ns != "QMGR" for o in qm.objects.get(ns, {}).values()]
        for obj in sorted(objects, key=lambda o: (o.objtype, o.name)):
            if (kind is None or obj.kind == kind) and generic_match(pattern, obj.name) and \
                    (obj.attrs.get("ALTDATE", ""), obj.attrs.get("ALTTIME", "")) >= since:
                qm.events.configured(C.MQRC_CONFIG_REFRESH_OBJECT, obj)
        # Authority records (which have no alteration time: not with INCLINT) and CHLAUTH records.
        refreshed = C.MQRC_CONFIG_REFRESH_OBJECT
        if word in ("ALL", "AUTHREC") and not minutes:
            for rec in qm.security.records.matching():
                if generic_match(pattern, rec[1]):
                    qm.events.security_changed("AUTHREC", None, rec, refreshed)
        if word in ("ALL", "CHLAUTH"):
            for rule in sorted(qm.security.rules, key=lambda r: (r.profile, r.key())):
                if generic_match(pattern, rule.profile) and (rule.altdate, rule.alttime) >= since:
                    qm.events.security_changed("CHLAUTH", None, rule, refreshed)
        return Result([message("MQL8013I")])

    # --- answers -------------------------------------------------------------------------------
    def _admin_message(self, cmd: Command, e: AdminError) -> list[str]:
        name = e.name or (cmd.name or "")
        if e.code == admin.NOT_FOUND or e.code == admin.WRONG_TYPE:
            lines = [message("AMQ8147E", name=name)]
        elif e.code == admin.EXISTS:
            lines = [message("AMQ8150E")]
        elif e.code == admin.IN_USE:
            lines = [message("AMQ8148E")]
        elif e.code == admin.NOT_EMPTY:
            lines = [message("AMQ8143E", name=name)]
        elif e.code == admin.BAD_NAME:
            lines = [message("AMQ8405I"), cmd.text,
                     f"The name {name} is not a valid IBM MQ object name."]
        else:
            lines = [message("MQL0002E", detail=e.detail)]
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
            return self.subs.define_sub(cmd)
        if cmd.objtype not in DEFINABLE:
            raise SyntaxProblem(cmd.text, cmd.text, f"DEFINE {cmd.objtype} is not valid.")
        name = self.need_name(cmd)
        kind = self._kind_of(cmd)
        values = self.values(cmd, kind, {"LIKE", "REPLACE", "NOREPLACE", "CHLTYPE", "QSGDISP", "AUTHTYPE", "TOPICSTR"})
        if kind == "AUTHINFO":
            values["AUTHTYPE"] = self.security.authtype(cmd)
        elif kind == "TOPIC":
            try:
                values["TOPICSTR"] = self.topics.topicstr(cmd, name)
            except TopicStringInUse as e:
                why = message("MQL0015E", other=e.other)
                return Result([why], ERROR)
        like = cmd.param("LIKE")
        if like is not None and like.value is None:
            raise SyntaxProblem(cmd.text, like.text, "LIKE needs an object name.")
        replace = cmd.param("REPLACE") is not None
        if replace and cmd.param("NOREPLACE") is not None:
            raise SyntaxProblem(cmd.text, cmd.text, "REPLACE and NOREPLACE are exclusive.")
        admin.define(self.qm, kind, name, values, like.value if like else None, replace,
                     self.disp(cmd, ("QMGR", "SHARED", "GROUP", "COPY")))
        return Result([MSG[("DEFINE", namespace(kind))]])

    def _alter(self, cmd: Command) -> Result:
        if cmd.objtype == "QMGR":
            if cmd.name is not None:
                raise SyntaxProblem(cmd.text, cmd.text, "ALTER QMGR takes no name.")
            values = self.values(cmd, QMGR, {"FORCE"})
            admin.alter(self.qm, QMGR, self.qm.name, values)
            return Result([MSG[("ALTER", "QMGR")]])
        if cmd.objtype == "SUB":
            return self.subs.define_sub(cmd, alter=True)
        if cmd.objtype not in DEFINABLE:
            raise SyntaxProblem(cmd.text, cmd.text, f"ALTER {cmd.objtype} is not valid.")
        name = self.need_name(cmd)
        kind = self._kind_of(cmd)
        values = self.values(cmd, kind, {"CHLTYPE", "FORCE", "QSGDISP", "AUTHTYPE"})
        if kind == "AUTHINFO":
            existing = self.qm.lookup("AUTHINFO", name)
            if existing is not None and existing["AUTHTYPE"] != self.security.authtype(cmd):
                return Result([message("AMQ8144E")],
                              ERROR)
        admin.alter(self.qm, kind, name, values, self.disp(cmd, ("QMGR", "SHARED", "GROUP", "COPY")))
        return Result([MSG[("ALTER", namespace(kind))]])

    def _delete(self, cmd: Command) -> Result:
        if cmd.objtype == "AUTHREC":
            return self.security.set_authrec(cmd, delete=True)
        if cmd.objtype == "SUB":
            return self.subs.delete_sub(cmd)
        if cmd.objtype not in DEFINABLE:
            raise SyntaxProblem(cmd.text, cmd.text, f"DELETE {cmd.objtype} is not valid.")
        name = self.need_name(cmd)
        extra = {"QSGDISP", "CHLTYPE"} | ({"PURGE", "NOPURGE"} if cmd.objtype == "QLOCAL" else set())
        for p in cmd.params:
            if p.keyword not in extra:
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for DELETE {cmd.objtype}.")
        purge = cmd.param("PURGE") is not None
        admin.delete(self.qm, cmd.objtype, name, purge, self.disp(cmd, ("QMGR", "SHARED", "GROUP", "COPY")))
        return Result([MSG[("DELETE", namespace(cmd.objtype))]])

    def _clear(self, cmd: Command) -> Result:
        if cmd.objtype == "TOPICSTR":
            return self.pubsub.clear_topicstr(cmd)
        if cmd.objtype != "QLOCAL":
            raise SyntaxProblem(cmd.text, cmd.text, "CLEAR takes QLOCAL or TOPICSTR.")
        name = self.need_name(cmd)
        for p in cmd.params:
            if p.keyword not in ("QSGDISP", "CMDSCOPE"):
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for CLEAR QLOCAL.")
        admin.clear(self.qm, name, self.disp(cmd, ("QMGR", "SHARED")))
        return Result([message("AMQ8022I")])

    # --- PING / START / STOP ----------------------------------------------------------------
    def _ping(self, cmd: Command) -> Result:
        if cmd.objtype == "CHANNEL":
            return self._channel_op(cmd, {"DATALEN": set()}, self.services.ping_channel,
                                    message("AMQ8020I"))
        if cmd.objtype != "QMGR" or cmd.params:
            raise SyntaxProblem(cmd.text, cmd.text, "PING takes QMGR here.")
        return Result([message("AMQ8415I")])

    def _channel_op(self, cmd: Command, allowed: dict[str, set[str]], run: Callable[..., str | None],
                    done: str, *args: Any, already: tuple[str, ...] = (), missing: str = "") -> Result:
        """A channel operation; with IGNSTATE(YES) a channel already in one of the ``already``
        states (START of a running one, STOP of a stopped one) is success, as MQ answers.
        ``missing``: the id of the message for a channel not defined, where MQ has its own (START
        CHANNEL: AMQ8227E, seen in MQ 9.1's runmqsc); otherwise AMQ8147E."""
        name = self.need_name(cmd)
        for p in cmd.params:
            choices = allowed.get(p.keyword)
            if choices is None or (choices and (p.value or "").upper() not in choices):
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid here.")
        if self.qm.lookup("CHANNEL", name) is None and self.qm.cluster.auto_channel(name) is None:
            if missing:
                return Result([message(missing, name=name)], ERROR)
            raise AdminError(admin.NOT_FOUND, name)
        if already and self._ignstate(cmd):
            states = {st["STATUS"] for st in self.services.channel_status(name) if st["CHANNEL"] == name}
            if (states or {"INACTIVE"}) <= set(already):
                return Result([done])
        err = run(name, *args)
        if err:
            return Result([err], ERROR)
        return Result([done])

    def _ignstate(self, cmd: Command) -> bool:
        return self.word(cmd, "IGNSTATE", ("YES", "NO"), "NO") == "YES"

    def _listener_op(self, cmd: Command, start: bool) -> Result:
        name = self.need_name(cmd)
        for p in cmd.params:
            if p.keyword not in ("IGNSTATE", "CMDSCOPE"):
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid here.")
        obj = self.qm.lookup("LISTENER", name)
        if obj is None:
            raise AdminError(admin.NOT_FOUND, name)
        done = message("AMQ8021I") if start else \
            message("AMQ8706I")
        running = self.services.listener_status(name) is not None
        if running == start and self._ignstate(cmd):
            return Result([done])           # already as asked, and IGNSTATE(YES): success
        err = self.services.start_listener(obj) if start else self.services.stop_listener(name)
        if err:
            return Result([err], ERROR)
        return Result([done])

    def _service_op(self, cmd: Command, start: bool) -> Result:
        """START/STOP SERVICE: its program run (server/services.py); IGNSTATE(YES) as for listeners."""
        name = self.need_name(cmd)
        for p in cmd.params:
            if p.keyword not in ("IGNSTATE", "CMDSCOPE"):
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid here.")
        obj = self.qm.lookup("SERVICE", name)
        if obj is None:
            raise AdminError(admin.NOT_FOUND, name)
        done = message("AMQ8733I") if start else \
            message("AMQ8732I")
        running = self.services.service_status(name) is not None
        if obj["SERVTYPE"] == C.MQSVC_TYPE_SERVER and running == start and self._ignstate(cmd):
            return Result([done])
        err = self.services.start_service(obj) if start else self.services.stop_service(obj)
        if err:
            return Result([err], ERROR)
        return Result([done])

    def _start(self, cmd: Command) -> Result:
        if cmd.objtype == "CHANNEL":
            return self._channel_op(cmd, {"CHLTYPE": set(), "IGNSTATE": {"YES", "NO"}}, self.services.start_channel,
                                    message("AMQ8018I"), already=("RUNNING",),
                                    missing="AMQ8227E")
        if cmd.objtype == "SERVICE":
            return self._service_op(cmd, start=True)
        if cmd.objtype != "LISTENER":
            return self.unsupported(cmd)
        return self._listener_op(cmd, start=True)

    def _stop(self, cmd: Command) -> Result:
        if cmd.objtype == "CONN":
            return self.conns.stop_conn(cmd)
        if cmd.objtype == "CHANNEL":
            mode = (p.value or "QUIESCE").upper() if (p := cmd.param("MODE")) else "QUIESCE"
            status = (p.value or "STOPPED").upper() if (p := cmd.param("STATUS")) else "STOPPED"
            return self._channel_op(cmd, {"MODE": {"QUIESCE", "FORCE", "TERMINATE"},
                                          "STATUS": {"STOPPED", "INACTIVE"}, "CHLTYPE": set(),
                                          "IGNSTATE": {"YES", "NO"}},
                                    self.services.stop_channel, message("AMQ8019I"),
                                    "QUIESCE" if mode == "QUIESCE" else "FORCE", status,
                                    already=("STOPPED", "INACTIVE"))
        if cmd.objtype == "SERVICE":
            return self._service_op(cmd, start=False)
        if cmd.objtype != "LISTENER":
            return self.unsupported(cmd)
        return self._listener_op(cmd, start=False)

    def _purge(self, cmd: Command) -> Result:
        """PURGE CHANNEL(name) CHLTYPE(MQTT|AMQP) CLIENTID(id): a client's state discarded (its
        connection ended, its subscriptions and the messages waiting for it gone). An AMQP
        channel's without CLIENTID: every client's."""
        if cmd.objtype != "CHANNEL":
            return self.unsupported(cmd)
        p = cmd.param("CLIENTID")
        obj = self.qm.lookup("CHANNEL", self.need_name(cmd))
        kinds = " and ".join(PROTOCOL_CHANNELS)
        if obj is not None and obj.kind not in PROTOCOL_CHANNELS:
            raise SyntaxProblem(cmd.text, cmd.text, f"PURGE CHANNEL is for {kinds} channels.")
        # (an unknown channel: the first kind's rules, and then 'not found' from the service)
        kind = obj.kind if obj is not None else next(iter(PROTOCOL_CHANNELS))
        if (p is None or not p.value) and PROTOCOL_CHANNELS[kind].purge_needs_client:
            raise SyntaxProblem(cmd.text, cmd.text, f"PURGE CHANNEL of an {kind} channel needs CLIENTID.")
        return self._channel_op(cmd, {"CLIENTID": set(), "CHLTYPE": {kind} if obj else set(PROTOCOL_CHANNELS)},
                                self.services.purge_channel,
                                message("MQL8025I", kind=kind, client_state=PROTOCOL_CHANNELS[kind].client_state),
                                p.value if p is not None and p.value else "*")

    def _reset(self, cmd: Command) -> Result:
        if cmd.objtype == "CLUSTER":
            return self.cluster.reset_cluster(cmd)
        if cmd.objtype == "QMGR":
            # RESET QMGR TYPE(STATISTICS): the statistics interval ends now and a new one starts.
            if self.word(cmd, "TYPE", ("STATISTICS",), "") != "STATISTICS" or len(cmd.params) != 1:
                raise SyntaxProblem(cmd.text, cmd.text, "RESET QMGR needs TYPE(STATISTICS).")
            self.services.write_statistics()
            return Result([message("AMQ8005I")])
        if cmd.objtype != "CHANNEL":
            return self.unsupported(cmd)
        p = cmd.param("SEQNUM")
        try:
            seqnum = int(p.value) if p is not None and p.value is not None else 1
        except ValueError:
            raise SyntaxProblem(cmd.text, p.text if p else cmd.text, "SEQNUM must be a number.") from None
        if not 1 <= seqnum <= 999999999:
            raise SyntaxProblem(cmd.text, p.text if p else cmd.text, "SEQNUM must be 1 to 999999999.")
        return self._channel_op(cmd, {"SEQNUM": set()}, self.services.reset_channel,
                                message("AMQ8023I"), seqnum)

    def _resolve(self, cmd: Command) -> Result:
        p = cmd.param("ACTION")
        if cmd.objtype != "CHANNEL":
            return self.unsupported(cmd)
        if p is None or (p.value or "").upper() not in ("COMMIT", "BACKOUT"):
            raise SyntaxProblem(cmd.text, cmd.text, "ACTION(COMMIT) or ACTION(BACKOUT) is required.")
        return self._channel_op(cmd, {"ACTION": {"COMMIT", "BACKOUT"}}, self.services.resolve_channel,
                                message("AMQ8024I"), (p.value or "").upper())

    # --- DISPLAY ------------------------------------------------------------------------------
    def _display(self, cmd: Command) -> Result:
        ot = cmd.objtype
        if ot == "QMGR":
            return self.display.qmgr(cmd)
        if ot in ("QUEUE", "QLOCAL", "QALIAS", "QREMOTE", "QMODEL"):
            return self.display.objects(cmd, "QUEUE")
        if ot == "TOPIC" and (self.word(cmd, "TYPE", ("LOCAL", "CLUSTER", "ALL"), "LOCAL") == "CLUSTER"):
            return self.cluster.display_topic_cluster(cmd)
        if ot in ("CHANNEL", "NAMELIST", "LISTENER", "AUTHINFO", "TOPIC", "PROCESS", "SERVICE", "COMMINFO"):
            return self.display.objects(cmd, ot)
        if ot == "TPSTATUS":
            return self.topics.display_tpstatus(cmd)
        if ot == "PUBSUB":
            return self.pubsub.display_pubsub(cmd)
        if ot == "SUB":
            return self.subs.display_sub(cmd)
        if ot == "SBSTATUS":
            return self.subs.display_sbstatus(cmd)
        if ot == "CHLAUTH":
            return self.security.display_chlauth(cmd)
        if ot == "AUTHREC":
            return self.security.display_authrec(cmd)
        if ot == "QSTATUS":
            return self.status.display_qstatus(cmd)
        if ot == "LSSTATUS":
            return self.status.display_lsstatus(cmd)
        if ot == "CONN":
            return self.conns.display_conn(cmd)
        if ot == "SVSTATUS":
            return self.status.display_svstatus(cmd)
        if ot == "QMSTATUS":
            return self.status.display_qmstatus(cmd)
        if ot == "APSTATUS":
            return self.conns.display_apstatus(cmd)
        if ot == "CHSTATUS":
            return self.status.display_chstatus(cmd)
        if ot == "CLUSQMGR":
            return self.cluster.display_clusqmgr(cmd)
        if ot == "QCLUSTER":
            return self.cluster.display_qcluster(cmd)
        return self.unsupported(cmd)
