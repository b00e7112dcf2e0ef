"""MQSC's status displays: DISPLAY QSTATUS (TYPE QUEUE and HANDLE), CHSTATUS and LSSTATUS: a part
of the Executor (mqsc.commands), whose DISPLAY dispatches here."""
from __future__ import annotations

from mqlite.cmq import CMQC
from mqlite.engine.clock import mq_date_time
from mqlite.engine.status import QSTATUS_FIELDS, qstatus_row
from mqlite.mqsc.base import Part
from mqlite.mqsc.cluster import row_where
from mqlite.mqsc.parser import Command
from mqlite.mqsc.result import ERROR, Result, SyntaxProblem, format_fields
from mqlite.objects.names import generic_match
from mqlite.paths import QMPaths, installation

QSTATUS_HEADER = "AMQ8450I: Display queue status details."
CHSTATUS_HEADER = "AMQ8417I: Display Channel Status details."
LSSTATUS_HEADER = "AMQ8631I: Display listener status details."
SVSTATUS_HEADER = "MQL8011I: Display service status details."
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
                                 "LGETTIME", "LPUTDATE", "LPUTTIME", "MONQ", "MSGAGE", "QTIME",
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
                        # MQ's handle status fields (the MQOO_* options as its BROWSE, INPUT, ...).
                        items = [f"QUEUE({name})", "TYPE(HANDLE)", "APPLDESC( )", f"APPLTAG({conn.appl_name})",
                                 f"APPLTYPE({'SYSTEM' if conn.appl_type == CMQC.MQAT_QMGR else 'USER'})",
                                 "ASTATE(NONE)", f"BROWSE({'YES' if h.options & CMQC.MQOO_BROWSE else 'NO'})",
                                 f"CHANNEL({conn.channel or ' '})", f"CONNAME({conn.conname or ' '})",
                                 f"HSTATE({'ACTIVE' if conn.uow else 'INACTIVE'})",
                                 f"INPUT({ {'S': 'SHARED', 'X': 'EXCL'}.get(h.input_mode, 'NO') })",
                                 f"INQUIRE({'YES' if h.options & CMQC.MQOO_INQUIRE else 'NO'})",
                                 f"OUTPUT({'YES' if h.options & CMQC.MQOO_OUTPUT else 'NO'})", f"PID({conn.pid})",
                                 f"SET({'YES' if h.options & CMQC.MQOO_SET else 'NO'})", f"TID({conn.tid or '*'})",
                                 "URTYPE(QMGR)", f"USERID({conn.user})"]
                        lines.extend(format_fields(items))
        if not found:
            return Result([f"AMQ8147E: IBM MQ object {pattern} not found."], ERROR)
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
            return Result(["AMQ8420I: Channel Status not found."], ERROR)
        return Result(lines)

    def display_qmstatus(self, cmd: Command) -> Result:
        """DISPLAY QMSTATUS [ALL | attributes]: the queue manager's status (what PCF Inquire Queue
        Manager Status answers: admin/control.py)."""
        fields = {"CHINIT": "RUNNING", "CMDSERV": "RUNNING", "CONNS": str(len(self.qm.conns)),
                  "STANDBY": "NOPERMIT", "STATUS": "RUNNING", "LOGPATH": QMPaths.of(self.qm.name).log}
        fields.update(installation())
        fields["STARTDA"], fields["STARTTI"] = mq_date_time(self.qm.started)
        wanted = [p.keyword for p in cmd.params if p.value is None and p.keyword != "ALL"]
        for p in cmd.params:
            if p.keyword not in fields and p.keyword not in ("ALL", "TYPE", "QMNAME"):
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid for DISPLAY QMSTATUS.")
        all_ = cmd.param("ALL") is not None
        shown = sorted(k for k in fields if all_ or k in wanted or k == "STATUS")
        return Result(["AMQ8705I: Display Queue Manager Status Details."]
                      + format_fields([f"QMNAME({self.qm.name})", "TYPE(QMGR)"]
                                      + [f"{k}({_quoted(fields[k])})" for k in shown]))

    def display_svstatus(self, cmd: Command) -> Result:
        """DISPLAY SVSTATUS: the running SERVER services (COMMAND services have no status)."""
        pattern = self.need_name(cmd)
        lines: list[str] = []
        for name in sorted(self.qm.objects["SERVICE"]):
            st = self.services.service_status(name) if generic_match(pattern, name) else None
            if st is None:
                continue
            d, t = mq_date_time(st["STARTED"])
            lines.append(SVSTATUS_HEADER)
            lines.extend(format_fields([f"SERVICE({name})", f"STATUS({st['STATUS']})", f"PID({st['PID']})",
                                        f"STARTDA({d})", f"STARTTI({t})"]))
        if not lines:
            return Result([f"MQL8010I: No running service matches {pattern}."], ERROR)
        return Result(lines)

    def display_lsstatus(self, cmd: Command) -> Result:
        pattern = self.need_name(cmd)
        lines: list[str] = []
        for name in sorted(self.qm.objects["LISTENER"]):
            if not generic_match(pattern, name):
                continue
            st = self.services.listener_status(name)
            if st is None:
                continue
            lines.append(LSSTATUS_HEADER)
            lines.extend(format_fields([f"LISTENER({name})", f"STATUS({st['STATUS']})", f"PORT({st['PORT']})",
                                        "TRPTYPE(TCP)"]))
        if not lines:
            return Result([f"AMQ8147E: IBM MQ object {pattern} not found."], ERROR)
        return Result(lines)


def _quoted(value: str) -> str:
    """A status value as runmqsc shows it: in quotes when it has blanks (INSTDESC's text)."""
    return "'" + value.replace("'", "''") + "'" if " " in value or "'" in value else value
