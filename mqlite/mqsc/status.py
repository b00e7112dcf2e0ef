"""MQSC's status displays: DISPLAY QSTATUS (TYPE QUEUE and HANDLE), CHSTATUS, LSSTATUS, SVSTATUS and
QMSTATUS: a part of the Executor (mqsc.commands), whose DISPLAY dispatches here. The fields of
LSSTATUS, SVSTATUS and QMSTATUS are declared here once for MQSC and PCF."""
from __future__ import annotations

import os
import socket
from typing import TYPE_CHECKING, Any

from mqlite.catalogue import message
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.engine.clock import mq_date_time
from mqlite.engine.connections import QHANDLE_FIELDS, qhandle_row
from mqlite.engine.fields import Field, enum, mqsc_items
from mqlite.engine.status import QSTATUS_FIELDS, qstatus_row
from mqlite.mqsc.base import Part
from mqlite.mqsc.cluster import row_where
from mqlite.mqsc.parser import Command
from mqlite.mqsc.result import ERROR, Result, SyntaxProblem, format_fields
from mqlite.objects.names import generic_match
from mqlite.paths import QMPaths, installation

if TYPE_CHECKING:
    from mqlite.engine.qmgr import QueueManager

QSTATUS_HEADER = message("AMQ8450I")
CHSTATUS_HEADER = message("AMQ8417I")
LSSTATUS_HEADER = message("AMQ8631I")
SVSTATUS_HEADER = message("AMQ8632I")
CHSTATUS_DEFAULT = ["CHANNEL", "CHLTYPE", "CLIENTID", "CONNAME", "CONNECTIONS", "CURRENT", "RQMNAME", "STATUS",
                    "SUBSTATE", "XMITQ"]
CHSTATUS_ALL = CHSTATUS_DEFAULT + ["BATCHES", "CURSEQNO", "INDOUBT", "LONGRTS", "LSTLUWID", "LSTSEQNO", "MSGS",
                                   "SHORTRTS",
                                   # a SVRCONN instance's (a row shows those it has)
                                   "BYTSRCVD", "BYTSSENT", "CHSTADA", "CHSTATI", "CURSHCNV", "HBINT", "LSTMSGDA",
                                   "LSTMSGTI", "MAXSHCNV", "MCAUSER", "RAPPLTAG", "BUFSSENT", "BUFSRCVD",
                                   "MCASTAT", "SSLRKEYS",
                                   # an MQTT client's (DISPLAY CHSTATUS CHLTYPE(MQTT) CLIENTID)
                                   "INDOUBTIN", "INDOUBTOUT", "KAINT", "LMSGDATE", "LMSGTIME", "MSGRCVD", "MSGSNT",
                                   "PROTOCOL", "SUBCOUNT"]


_STATUS = enum({C.MQSVC_STATUS_STOPPED: "STOPPED", C.MQSVC_STATUS_STARTING: "STARTING",
               C.MQSVC_STATUS_RUNNING: "RUNNING", C.MQSVC_STATUS_STOPPING: "STOPPING",
               C.MQSVC_STATUS_RETRYING: "RETRYING"})
_CONTROL = enum({C.MQSVC_CONTROL_MANUAL: "MANUAL", C.MQSVC_CONTROL_Q_MGR: "QMGR",
                 C.MQSVC_CONTROL_Q_MGR_START: "STARTONLY"})
# DISPLAY LSSTATUS, SVSTATUS and QMSTATUS as PCF Inquire Listener Status, Service Status and Queue
# Manager Status answer them: declared once for both (admin/control.py encodes its replies with
# them, mqweb reads them back), in the display's order.
LSSTATUS_FIELDS = (
    Field("LISTENER", F.MQCACH_LISTENER_NAME, 48), Field("STATUS", F.MQIACH_LISTENER_STATUS, word=_STATUS),
    Field("PID", F.MQIACF_PROCESS_ID), Field("STARTDA", F.MQCACH_LISTENER_START_DATE, 12),
    Field("STARTTI", F.MQCACH_LISTENER_START_TIME, 8), Field("DESCR", F.MQCACH_LISTENER_DESC, 64),
    Field("TRPTYPE", F.MQIACH_XMIT_PROTOCOL_TYPE, word=enum({C.MQXPT_TCP: "TCP", C.MQXPT_LU62: "LU62",
                                                            C.MQXPT_NETBIOS: "NETBIOS", C.MQXPT_SPX: "SPX"})),
    Field("CONTROL", F.MQIACH_LISTENER_CONTROL, word=_CONTROL), Field("IPADDR", F.MQCACH_IP_ADDRESS, 48),
    Field("PORT", F.MQIACH_PORT), Field("BACKLOG", F.MQIACH_BACKLOG),
)
SVSTATUS_FIELDS = (
    Field("SERVICE", C.MQCA_SERVICE_NAME, 32), Field("STATUS", F.MQIACF_SERVICE_STATUS, word=_STATUS),
    Field("PID", F.MQIACF_PROCESS_ID),
    Field("SERVTYPE", C.MQIA_SERVICE_TYPE, word=enum({C.MQSVC_TYPE_COMMAND: "COMMAND", C.MQSVC_TYPE_SERVER: "SERVER"})),
    Field("STARTDA", F.MQCACF_SERVICE_START_DATE, 12), Field("STARTTI", F.MQCACF_SERVICE_START_TIME, 8),
    Field("CONTROL", C.MQIA_SERVICE_CONTROL, word=_CONTROL),
    Field("STARTCMD", C.MQCA_SERVICE_START_COMMAND, 255), Field("STARTARG", C.MQCA_SERVICE_START_ARGS, 255),
    Field("STOPCMD", C.MQCA_SERVICE_STOP_COMMAND, 255), Field("STOPARG", C.MQCA_SERVICE_STOP_ARGS, 255),
    Field("DESCR", C.MQCA_SERVICE_DESC, 64), Field("STDOUT", C.MQCA_STDOUT_DESTINATION, 255),
    Field("STDERR", C.MQCA_STDERR_DESTINATION, 255),
)
_FS = enum({F.MQFS_SHARED: "SHARED"})        # a file system's size (MB) or use (%); SHARED: the queue manager's
# In MQ 9.4's order on Linux (DISPLAY QMSTATUS ALL of an MQ 9.4.2 queue manager). Left out: what
# MQ's own log has and mqlite's recovery log does not have in that form (the checkpoint figures
# CHKPTCNT/CHKPTOPS/CHKPTSZ, the LSNs DISKLSN/LOGSTRL/LOGSTRDA/LOGSTRTI, extents LOGEXTSZ/LOGPRIM/
# LOGSEC/LOGINUSE/LOGUTIL/REUSESZ), LDAPCONN and QUORUM (docs/mqsc.md).
QMSTATUS_FIELDS = (
    Field("QMNAME", C.MQCA_Q_MGR_NAME, 48),
    Field("STATUS", F.MQIACF_Q_MGR_STATUS, word=enum({F.MQQMSTA_STARTING: "STARTING", F.MQQMSTA_RUNNING: "RUNNING",
                                                      F.MQQMSTA_QUIESCING: "QUIESCING"})),
    Field("AUTOCLUS", F.MQIACF_AUTO_CLUSTER_TYPE, word=enum({F.MQAUTOCLUS_TYPE_NONE: "NONE",
                                                              F.MQAUTOCLUS_TYPE_UNIFORM: "UNIFORM"})),
    Field("CHINIT", F.MQIACF_CHINIT_STATUS, word=_STATUS),
    Field("CMDSERV", F.MQIACF_CMD_SERVER_STATUS, word=_STATUS),
    Field("CONNS", F.MQIACF_CONNECTION_COUNT),
    Field("DATFSSZ", F.MQIACF_DATA_FS_SIZE, word=_FS), Field("DATFSUSE", F.MQIACF_DATA_FS_IN_USE, word=_FS),
    Field("DATPATH", F.MQCACF_Q_MGR_DATA_PATH, 1024),
    Field("GRPLSN", F.MQCACF_NHA_GROUP_LSN, 64), Field("GRPNAME", F.MQCACF_NHA_GROUP_NAME, 48),
    Field("GRPROLE", F.MQIACF_NHA_GROUP_ROLE, word=enum({F.MQNHAGRPROLE_NOT_CONFIGURED: "NOTCONFIG",
                                                          F.MQNHAGRPROLE_LIVE: "LIVE", F.MQNHAGRPROLE_RECOVERY: "RECOVERY"})),
    Field("HOSTNAME", F.MQCACF_HOST_NAME, 256), Field("INSTANCE", F.MQCACF_NHA_INSTANCE_NAME, 48),
    Field("INSTDESC", C.MQCA_INSTALLATION_DESC, 64), Field("INSTNAME", C.MQCA_INSTALLATION_NAME, 16),
    Field("INSTPATH", C.MQCA_INSTALLATION_PATH, 256),
    Field("LOGFSSZ", F.MQIACF_LOG_FS_SIZE, word=_FS), Field("LOGFSUSE", F.MQIACF_LOG_FS_IN_USE, word=_FS),
    Field("LOGPATH", F.MQCACF_LOG_PATH, 1024),
    Field("LOGTYPE", F.MQIACF_LOG_TYPE, word=enum({F.MQLOGTYPE_CIRCULAR: "CIRCULAR", F.MQLOGTYPE_LINEAR: "LINEAR",
                                                    F.MQLOGTYPE_REPLICATED: "REPLICATED"})),
    Field("QMFSSZ", F.MQIACF_Q_MGR_FS_SIZE), Field("QMFSUSE", F.MQIACF_Q_MGR_FS_IN_USE),
    Field("STANDBY", F.MQIACF_PERMIT_STANDBY, word=enum({F.MQSTDBY_NOT_PERMITTED: "NOPERMIT",
                                                         F.MQSTDBY_PERMITTED: "PERMIT"})),
    Field("STARTDA", F.MQCACF_Q_MGR_START_DATE, 12), Field("STARTTI", F.MQCACF_Q_MGR_START_TIME, 8),
    Field("UNICLUS", F.MQCACF_UNIFORM_CLUSTER_NAME, 48),
)


def _stamp(t: float) -> tuple[str, str]:
    return mq_date_time(t) if t else ("", "")


def lsstatus_row(name: str, obj: Any, st: dict[str, Any]) -> dict[str, Any]:
    """LSSTATUS_FIELDS' values for a running listener (``st``: its status from the services)."""
    d, t = _stamp(float(st.get("STARTED") or 0.0))
    return {"LISTENER": name, "STATUS": _STATUS.value_of(str(st.get("STATUS", "RUNNING"))) or C.MQSVC_STATUS_RUNNING,
            "PID": os.getpid(), "STARTDA": d, "STARTTI": t, "DESCR": obj["DESCR"], "TRPTYPE": obj["TRPTYPE"],
            "CONTROL": obj["CONTROL"], "IPADDR": obj["IPADDR"], "PORT": int(st["PORT"]), "BACKLOG": obj["BACKLOG"]}


def svstatus_row(name: str, obj: Any, st: dict[str, Any]) -> dict[str, Any]:
    """SVSTATUS_FIELDS' values for a running service (``st``: its process and when it started)."""
    d, t = _stamp(float(st.get("STARTED") or 0.0))
    return {"SERVICE": name, "STATUS": _STATUS.value_of(str(st.get("STATUS", "RUNNING"))) or C.MQSVC_STATUS_RUNNING,
            "PID": int(st["PID"]), "SERVTYPE": obj["SERVTYPE"], "STARTDA": d, "STARTTI": t, "CONTROL": obj["CONTROL"],
            "STARTCMD": obj["STARTCMD"], "STARTARG": obj["STARTARG"], "STOPCMD": obj["STOPCMD"],
            "STOPARG": obj["STOPARG"], "DESCR": obj["DESCR"], "STDOUT": obj["STDOUT"], "STDERR": obj["STDERR"]}


def file_system(path: str, home: str | None = None) -> tuple[int, int]:
    """(size in MB, percent used) of the file system holding ``path``, as QMFSSZ/QMFSUSE show it;
    with ``home``, (MQFS_SHARED, MQFS_SHARED) when it is the same file system as ``home``'s."""
    def existing(p: str) -> str:
        while not os.path.exists(p) and os.path.dirname(p) != p:
            p = os.path.dirname(p)
        return p
    path = existing(path)
    try:
        st = os.statvfs(path)
        if home is not None and os.stat(path).st_dev == os.stat(existing(home)).st_dev:
            return F.MQFS_SHARED, F.MQFS_SHARED
    except OSError:
        return 0, 0
    size = st.f_blocks * st.f_frsize
    used = (st.f_blocks - st.f_bfree) * st.f_frsize
    return size // (1024 * 1024), (100 * used // size) if size else 0


def qmstatus_row(qm: QueueManager) -> dict[str, Any]:
    """QMSTATUS_FIELDS' values for the queue manager: its start, the file systems of its data and
    log (SHARED when they are its own), no Native HA group and no automatic cluster."""
    inst = installation()
    d, t = mq_date_time(qm.started)
    paths = QMPaths.of(qm.name)
    qmfs = file_system(paths.root)
    datfs, logfs = file_system(paths.root, paths.root), file_system(paths.log, paths.root)
    return {"QMNAME": qm.name, "STATUS": F.MQQMSTA_RUNNING, "AUTOCLUS": F.MQAUTOCLUS_TYPE_NONE,
            "CHINIT": C.MQSVC_STATUS_RUNNING, "CMDSERV": C.MQSVC_STATUS_RUNNING, "CONNS": len(qm.conns),
            "DATFSSZ": datfs[0], "DATFSUSE": datfs[1], "DATPATH": paths.root, "GRPLSN": "", "GRPNAME": "",
            "GRPROLE": F.MQNHAGRPROLE_NOT_CONFIGURED, "HOSTNAME": socket.gethostname(), "INSTANCE": "",
            "INSTDESC": inst["INSTDESC"], "INSTNAME": inst["INSTNAME"], "INSTPATH": inst["INSTPATH"],
            "LOGFSSZ": logfs[0], "LOGFSUSE": logfs[1], "LOGPATH": paths.log, "LOGTYPE": F.MQLOGTYPE_CIRCULAR,
            "QMFSSZ": qmfs[0], "QMFSUSE": qmfs[1], "STANDBY": F.MQSTDBY_NOT_PERMITTED, "STARTDA": d, "STARTTI": t,
            "UNICLUS": ""}


class StatusCommands(Part):
    """DISPLAY QSTATUS, CHSTATUS and LSSTATUS."""

    def display_qstatus(self, cmd: Command) -> Result:
        pattern = self.need_name(cmd)
        tp = cmd.param("TYPE")
        stype = (tp.value or "").upper() if tp is not None else "QUEUE"
        if stype not in ("QUEUE", "HANDLE"):
            raise SyntaxProblem(cmd.text, tp.text if tp else cmd.text, "TYPE must be QUEUE or HANDLE.")
        for p in cmd.params:
            if p.keyword not in ("TYPE", "ALL", "CURDEPTH", "IPPROCS", "OPPROCS", "UNCOM", "LGETDATE",
                                 "LGETTIME", "LPUTDATE", "LPUTTIME", "MEDIALOG", "MONQ", "MSGAGE", "QTIME",
                                 "OPENTYPE", "CMDSCOPE", "APPLTAG", "APPLTYPE", "APPLDESC", "ASTATE", "BROWSE",
                                 "CHANNEL", "CONNAME", "HSTATE", "INPUT", "INQUIRE", "OUTPUT", "PID", "QMURID",
                                 "SET", "TID", "URID", "URTYPE", "USERID", "WHERE"):
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for DISPLAY QSTATUS.")
        wp = cmd.param("WHERE")
        where = row_where(cmd, wp, tuple(f.keyword for f in QSTATUS_FIELDS)) if wp is not None else None
        if where is not None and stype != "QUEUE":
            raise SyntaxProblem(cmd.text, wp.text if wp else cmd.text, "WHERE is for TYPE(QUEUE).")
        lines: list[str] = []
        found = False
        for name, qs in sorted(self.qm.queues.items()):
            if not generic_match(pattern, name):
                continue
            found = True
            if stype == "QUEUE":
                row = qstatus_row(qs, self.qm.queue(name), self.qm.clock.now())
                if where is not None and not where({f.keyword: f.mqsc(row[f.keyword]) if f.word else row[f.keyword]
                                                    for f in QSTATUS_FIELDS}):
                    continue
                lines.append(QSTATUS_HEADER)
                items = [f"QUEUE({name})", "TYPE(QUEUE)"]
                for f in QSTATUS_FIELDS:
                    text = f.mqsc(row[f.keyword])
                    items.append(f"{f.keyword}({text})" if text != "" else f"{f.keyword}( )")
                lines.extend(format_fields(items))
            else:
                for conn in self.qm.conns.values():
                    for h in conn.handles.values():
                        if h.qstate is not qs:
                            continue
                        lines.append(QSTATUS_HEADER)
                        lines.extend(format_fields([f"QUEUE({name})", "TYPE(HANDLE)"]
                                                   + mqsc_items(QHANDLE_FIELDS, qhandle_row(conn, h))))
        if not found:
            return Result([message("AMQ8147E", name=pattern)], ERROR)
        return Result(lines)

    def display_chstatus(self, cmd: Command) -> Result:
        pattern = self.need_name(cmd)
        wanted: list[str] = []
        all_ = False
        where = None
        for p in cmd.params:
            if p.keyword == "ALL":
                all_ = True
            elif p.keyword in CHSTATUS_ALL and p.value is None:
                wanted.append(p.keyword)
            elif p.keyword == "WHERE":
                where = row_where(cmd, p, tuple(CHSTATUS_ALL))
            elif p.keyword not in ("CURRENT", "CHLTYPE", "CMDSCOPE") and not (p.keyword == "CLIENTID" and p.value):
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for DISPLAY CHSTATUS.")
        names = CHSTATUS_ALL if all_ else CHSTATUS_DEFAULT + [w for w in wanted if w not in CHSTATUS_DEFAULT]
        lines: list[str] = []
        client = cmd.param("CLIENTID")
        for st in self.services.channel_status(pattern, client.value if client is not None else None):
            if where is not None and not where(st):
                continue
            items = [n if st[n] is None else (f"{n}({st[n]})" if st[n] != "" else f"{n}( )") for n in names
                     if n in st]
            lines.append(CHSTATUS_HEADER)
            lines.extend(format_fields(items))
        if not lines:
            return Result([message("AMQ8420I")], ERROR)
        return Result(lines)

    def display_qmstatus(self, cmd: Command) -> Result:
        """DISPLAY QMSTATUS [ALL | attributes]: the queue manager's status (QMSTATUS_FIELDS, which PCF
        Inquire Queue Manager Status answers too)."""
        known = {f.keyword for f in QMSTATUS_FIELDS}
        for p in cmd.params:
            if p.keyword not in known and p.keyword not in ("ALL", "TYPE"):
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for DISPLAY QMSTATUS.")
        all_ = cmd.param("ALL") is not None
        wanted = {p.keyword for p in cmd.params if p.value is None}
        row = qmstatus_row(self.qm)
        rest = [f for f in QMSTATUS_FIELDS[1:] if all_ or f.keyword in wanted or f.keyword == "STATUS"]
        return Result([message("AMQ8705I")]
                      + format_fields([f"QMNAME({self.qm.name})", "TYPE(QMGR)"]
                                      + [f"{f.keyword}({_quoted(f.mqsc(row[f.keyword]))})" for f in rest]))

    def display_svstatus(self, cmd: Command) -> Result:
        """DISPLAY SVSTATUS: the running SERVER services (COMMAND services have no status), every
        field of SVSTATUS_FIELDS (mqlite shows them all whatever is asked for)."""
        pattern = self.need_name(cmd)
        lines: list[str] = []
        for name, obj in sorted(self.qm.objects["SERVICE"].items()):
            st = self.services.service_status(name) if generic_match(pattern, name) else None
            if st is None:
                continue
            lines.append(SVSTATUS_HEADER)
            lines.extend(format_fields(mqsc_items(SVSTATUS_FIELDS, svstatus_row(name, obj, st))))
        if not lines:
            return Result([message("MQL8010I", name=pattern)], ERROR)
        return Result(lines)

    def display_lsstatus(self, cmd: Command) -> Result:
        """DISPLAY LSSTATUS: the running listeners, every field of LSSTATUS_FIELDS."""
        pattern = self.need_name(cmd)
        lines: list[str] = []
        for name, obj in sorted(self.qm.objects["LISTENER"].items()):
            if not generic_match(pattern, name):
                continue
            st = self.services.listener_status(name)
            if st is None:
                continue
            lines.append(LSSTATUS_HEADER)
            lines.extend(format_fields(mqsc_items(LSSTATUS_FIELDS, lsstatus_row(name, obj, st))))
        if not lines:
            return Result([message("AMQ8147E", name=pattern)], ERROR)
        return Result(lines)


def _quoted(value: str) -> str:
    """A status value as runmqsc shows it: in quotes when it has blanks (INSTDESC's text), a blank
    for none (GRPNAME( ))."""
    if not value:
        return " "
    return "'" + value.replace("'", "''") + "'" if " " in value or "'" in value else value
