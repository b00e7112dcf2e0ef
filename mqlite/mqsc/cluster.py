"""MQSC for clusters: DISPLAY CLUSQMGR, DISPLAY QCLUSTER (and QUEUE ... CLUSINFO), SUSPEND and
RESUME QMGR, REFRESH CLUSTER, RESET CLUSTER: a part of the Executor; the cluster state is the
engine's (``qm.cluster``) and channel states come from the server's services."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from mqlite.catalogue import message
from mqlite.cluster import operations
from mqlite.cluster.repository import QUEUE, TOPIC
from mqlite.cluster.state import channel_matches
from mqlite.cmq import CMQC, CMQCFC
from mqlite.engine.fields import Field, enum
from mqlite.engine.clock import mq_date_time
from mqlite.mqsc.base import Part
from mqlite.mqsc.parser import condition
from mqlite.mqsc.result import ERROR, Result, SyntaxProblem, format_fields
from mqlite.objects.attrs import TABLE
from mqlite.objects.names import MQSC_OPS, filter_match, generic_match

if TYPE_CHECKING:
    from mqlite.engine.qmgr import QueueManager
    from mqlite.mqsc.parser import Command, Param
    from mqlite.mqsc.security import SecurityCommands
    from mqlite.mqsc.services import Services

CLUSQMGR_HEADER = message("AMQ8441I")
QUEUE_HEADER = message("AMQ8409I")
TOPIC_HEADER = message("AMQ8633I")
CTOPIC_ATTRS = ("CLROUTE", "CLUSDATE", "CLUSTIME", "QMID", "PUBSCOPE", "SUBSCOPE", "PUB", "SUB", "DEFPSIST",
                "DEFPRTY", "DURSUB", "PROXYSUB", "DESCR")
CLUSQMGR_ATTRS = ("CLUSDATE", "CLUSTIME", "DEFTYPE", "QMID", "QMTYPE", "STATUS", "SUSPEND", "VERSION", "XMITQ",
                  "CONNAME", "BATCHSZ", "DISCINT", "HBINT", "SHORTRTY", "SHORTTMR", "LONGRTY", "LONGTMR",
                  "NPMSPEED", "MAXMSGL", "CLWLPRTY", "CLWLRANK", "CLWLWGHT", "NETPRTY", "DESCR")
QCLUSTER_ATTRS = ("CLUSDATE", "CLUSQT", "CLUSTIME", "QMID", "DEFBIND", "DEFPRTY", "DEFPSIST", "DEFPRESP",
                  "PUT", "CLWLPRTY", "CLWLRANK", "CLWLUSEQ", "DESCR")
ENUMS = {"DEFBIND": {CMQC.MQBND_BIND_ON_OPEN: "OPEN", CMQC.MQBND_BIND_NOT_FIXED: "NOTFIXED",
                     CMQC.MQBND_BIND_ON_GROUP: "GROUP"},
         "DEFPSIST": {0: "NO", 1: "YES"},
         "PUT": {CMQC.MQQA_PUT_ALLOWED: "ENABLED", CMQC.MQQA_PUT_INHIBITED: "DISABLED"},
         "DEFPRESP": {CMQC.MQPRT_SYNC_RESPONSE: "SYNC", CMQC.MQPRT_ASYNC_RESPONSE: "ASYNC"},
         "NPMSPEED": {CMQC.MQNPMS_FAST: "FAST", CMQC.MQNPMS_NORMAL: "NORMAL"},
         "CLWLUSEQ": {CMQC.MQCLWL_USEQ_AS_Q_MGR: "QMGR", CMQC.MQCLWL_USEQ_ANY: "ANY", CMQC.MQCLWL_USEQ_LOCAL: "LOCAL"}}


# A channel's STATUS words and PCF's MQCHS_* numbers (DISPLAY CHSTATUS and CLUSQMGR, and PCF's).
CHSTATUS_WORDS = {CMQCFC.MQCHS_INACTIVE: "INACTIVE", CMQCFC.MQCHS_BINDING: "BINDING",
                  CMQCFC.MQCHS_STARTING: "STARTING", CMQCFC.MQCHS_RUNNING: "RUNNING",
                  CMQCFC.MQCHS_STOPPING: "STOPPING", CMQCFC.MQCHS_RETRYING: "RETRYING",
                  CMQCFC.MQCHS_STOPPED: "STOPPED", CMQCFC.MQCHS_PAUSED: "PAUSED",
                  CMQCFC.MQCHS_INITIALIZING: "INITIALIZING"}

# The rows of DISPLAY QCLUSTER and DISPLAY CLUSQMGR as PCF Inquire Queue (QType MQQT_CLUSTER) and
# Inquire Cluster Queue Manager answer them: declared once for the reply (admin/) and for mqweb's
# reading of it, in the display's order.
QCLUSTER_FIELDS = (
    Field("QUEUE", CMQC.MQCA_Q_NAME, 48), Field("TYPE", CMQC.MQIA_Q_TYPE, word=enum({CMQC.MQQT_CLUSTER: "QCLUSTER"})),
    Field("CLUSQMGR", CMQC.MQCA_CLUSTER_Q_MGR_NAME, 48), Field("CLUSTER", CMQC.MQCA_CLUSTER_NAME, 48),
    Field("CLUSDATE", CMQC.MQCA_CLUSTER_DATE, 12),
    Field("CLUSQT", CMQC.MQIA_CLUSTER_Q_TYPE, word=enum({CMQC.MQCQT_LOCAL_Q: "QLOCAL", CMQC.MQCQT_ALIAS_Q: "QALIAS",
                                                        CMQC.MQCQT_REMOTE_Q: "QREMOTE",
                                                        CMQC.MQCQT_Q_MGR_ALIAS: "QMGR"})),
    Field("CLUSTIME", CMQC.MQCA_CLUSTER_TIME, 8), Field("QMID", CMQC.MQCA_Q_MGR_IDENTIFIER, 48),
    Field("DEFBIND", CMQC.MQIA_DEF_BIND, word=enum(ENUMS["DEFBIND"])), Field("DEFPRTY", CMQC.MQIA_DEF_PRIORITY),
    Field("DEFPSIST", CMQC.MQIA_DEF_PERSISTENCE, word=enum(ENUMS["DEFPSIST"])),
    Field("DEFPRESP", CMQC.MQIA_DEF_PUT_RESPONSE_TYPE, word=enum(ENUMS["DEFPRESP"])),
    Field("PUT", CMQC.MQIA_INHIBIT_PUT, word=enum(ENUMS["PUT"])), Field("CLWLPRTY", CMQC.MQIA_CLWL_Q_PRIORITY),
    Field("CLWLRANK", CMQC.MQIA_CLWL_Q_RANK), Field("CLWLUSEQ", CMQC.MQIA_CLWL_USEQ, word=enum(ENUMS["CLWLUSEQ"])),
    Field("DESCR", CMQC.MQCA_Q_DESC, 64),
)
CLUSQMGR_FIELDS = (
    Field("CLUSQMGR", CMQC.MQCA_CLUSTER_Q_MGR_NAME, 48), Field("CHANNEL", CMQCFC.MQCACH_CHANNEL_NAME, 20),
    Field("CLUSTER", CMQC.MQCA_CLUSTER_NAME, 48), Field("CLUSDATE", CMQC.MQCA_CLUSTER_DATE, 12),
    Field("CLUSTIME", CMQC.MQCA_CLUSTER_TIME, 8),
    Field("DEFTYPE", CMQCFC.MQIACF_Q_MGR_DEFINITION_TYPE, word=enum({
        CMQCFC.MQQMDT_EXPLICIT_CLUSTER_SENDER: "CLUSSDR", CMQCFC.MQQMDT_AUTO_CLUSTER_SENDER: "CLUSSDRA",
        CMQCFC.MQQMDT_CLUSTER_RECEIVER: "CLUSRCVR", CMQCFC.MQQMDT_AUTO_EXP_CLUSTER_SENDER: "CLUSSDRB"})),
    Field("QMID", CMQC.MQCA_Q_MGR_IDENTIFIER, 48),
    Field("QMTYPE", CMQCFC.MQIACF_Q_MGR_TYPE, word=enum({CMQCFC.MQQMT_REPOSITORY: "REPOS",
                                                         CMQCFC.MQQMT_NORMAL: "NORMAL"})),
    Field("STATUS", CMQCFC.MQIACH_CHANNEL_STATUS, word=enum(CHSTATUS_WORDS)),
    Field("SUSPEND", CMQCFC.MQIACF_SUSPEND, word=enum({CMQCFC.MQSUS_YES: "YES", CMQCFC.MQSUS_NO: "NO"})),
    Field("VERSION", CMQC.MQCA_VERSION, 8), Field("XMITQ", CMQCFC.MQCACH_XMIT_Q_NAME, 48),
    Field("CONNAME", CMQCFC.MQCACH_CONNECTION_NAME, 264), Field("BATCHSZ", CMQCFC.MQIACH_BATCH_SIZE),
    Field("DISCINT", CMQCFC.MQIACH_DISC_INTERVAL), Field("HBINT", CMQCFC.MQIACH_HB_INTERVAL),
    Field("SHORTRTY", CMQCFC.MQIACH_SHORT_RETRY), Field("SHORTTMR", CMQCFC.MQIACH_SHORT_TIMER),
    Field("LONGRTY", CMQCFC.MQIACH_LONG_RETRY), Field("LONGTMR", CMQCFC.MQIACH_LONG_TIMER),
    Field("NPMSPEED", CMQCFC.MQIACH_NPM_SPEED, word=enum(ENUMS["NPMSPEED"])),
    Field("MAXMSGL", CMQCFC.MQIACH_MAX_MSG_LENGTH), Field("CLWLPRTY", CMQCFC.MQIACH_CLWL_CHANNEL_PRIORITY),
    Field("CLWLRANK", CMQCFC.MQIACH_CLWL_CHANNEL_RANK), Field("CLWLWGHT", CMQCFC.MQIACH_CLWL_CHANNEL_WEIGHT),
    Field("NETPRTY", CMQCFC.MQIACH_NETWORK_PRIORITY), Field("DESCR", CMQCFC.MQCACH_DESC, 64),
)


def pcf_row(fields: tuple[Field, ...], row: dict[str, Any]) -> dict[str, Any]:
    """A display row as its fields' PCF values: an enumeration's word as its number."""
    out: dict[str, Any] = {}
    for f in fields:
        value = row.get(f.keyword)
        if value is None:
            continue
        if isinstance(value, str) and isinstance(f.word, enum):
            value = f.word.value_of(value.upper())
            if value is None:
                continue
        out[f.keyword] = value
    return out


def _item(key: str, value: Any) -> str:
    if isinstance(value, int) and key in ENUMS:
        value = ENUMS[key].get(value, value)
    return f"{key}({value})" if value != "" else f"{key}( )"


def row_where(cmd: Command, p: Param, known: tuple[str, ...]) -> Callable[[dict[str, Any]], bool]:
    """A WHERE clause over rows of strings and numbers (DISPLAY CLUSQMGR, QCLUSTER, CHSTATUS)."""
    parts = condition(p.value or "")
    if parts is None or parts[0] not in known or parts[1] not in MQSC_OPS:
        raise SyntaxProblem(cmd.text, p.text, "WHERE needs: attribute operator value.")
    key, op, want = parts[0], MQSC_OPS[parts[1]], parts[2].upper()

    def test(row: dict[str, Any]) -> bool:
        have = row.get(key, "")
        if isinstance(have, int) and not isinstance(have, bool) and want.lstrip("-").isdigit():
            return filter_match(op, have, int(want))
        value = ENUMS.get(key, {}).get(have, have) if isinstance(have, int) else have
        return filter_match(op, str(value).upper(), want)
    return test


class ClusterCommands(Part):
    """The cluster commands of the MQSC executor."""

    def __init__(self, qm: QueueManager, services: Services, security: SecurityCommands) -> None:
        super().__init__(qm, services)
        self.security = security

    # --- DISPLAY CLUSQMGR and DISPLAY QCLUSTER: rows of strings, filtered and rendered alike ------
    def _display_rows(self, cmd: Command, header: str, keys: tuple[str, ...],
                      attrs: tuple[str, ...], filters: tuple[str, ...], rows: list[dict[str, Any]],
                      strict: bool = True) -> list[str]:
        """Render ``rows`` for a cluster DISPLAY: the name (generic), the filter parameters given
        with a value (generic), WHERE, then ``keys`` always and ``attrs`` as requested or ALL.
        ``strict`` False: other parameters were checked by the caller (DISPLAY QUEUE ... CLUSINFO)."""
        pattern = self.need_name(cmd)
        all_, wanted, where = False, [], None
        tests = {keys[0]: pattern}
        for p in cmd.params:
            if p.keyword == "ALL":
                all_ = True
            elif p.keyword in filters and p.value is not None:
                tests[p.keyword] = p.value
            elif p.keyword == "WHERE":
                where = row_where(cmd, p, keys + attrs)
            elif p.keyword in attrs + keys and p.value is None:
                wanted.append(p.keyword)
            elif strict and p.keyword not in ("CMDSCOPE", "CLUSINFO", "TYPE"):
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid here.")
        lines: list[str] = []
        for row in rows:
            if not all(generic_match(v, str(row.get(k, ""))) for k, v in tests.items()):
                continue
            if where is not None and not where(row):
                continue
            names = [n for n in (attrs if all_ else sorted(dict.fromkeys(wanted))) if n not in keys]
            lines.append(header)
            lines.extend(format_fields([_item(k, row.get(k, "")) for k in keys + tuple(names)]))
        return lines

    def display_clusqmgr(self, cmd: Command) -> Any:
        lines = self._display_rows(cmd, CLUSQMGR_HEADER, ("CLUSQMGR", "CHANNEL", "CLUSTER"), CLUSQMGR_ATTRS,
                                   ("CLUSTER", "CHANNEL"), self.clusqmgr_rows())
        if not lines:
            return Result([message("AMQ8147E", name=cmd.name)], ERROR)
        return Result(lines)

    def _channel_state(self, channel: str) -> str:
        st = self.services.channel_status(channel)
        return str(st[0]["STATUS"]) if st else "INACTIVE"

    def clusqmgr_rows(self) -> list[dict[str, Any]]:
        """One row per (cluster queue manager, cluster) this queue manager knows, and one
        SYSTEM.TEMPQMGR row per manual CLUSSDR whose full repository has not answered yet."""
        qm, cl = self.qm, self.qm.cluster
        rows = []
        manual = [ch.name for ch in cl.manual_senders()]
        for rec in cl.qmgr_records():
            a, owner = rec.attrs, rec.key.owner
            ch = str(a.get("CHANNEL", ""))
            if owner == qm.name:
                deftype = "CLUSRCVR"
            else:
                deftype = "CLUSSDRB" if any(channel_matches(m, ch, owner) for m in manual) else "CLUSSDRA"
            d, t = mq_date_time(rec.published)
            row = {k: a[k] for k in CLUSQMGR_ATTRS if k in a}
            row.update(CLUSQMGR=owner, CHANNEL=ch, CLUSTER=rec.key.cluster, CLUSDATE=d, CLUSTIME=t, DEFTYPE=deftype,
                       STATUS=self._channel_state(ch), QMTYPE=a.get("QMTYPE", "NORMAL"),
                       SUSPEND=a.get("SUSPEND", "NO"),
                       XMITQ=cl.assoc.get(ch, cl.xmitq_for(ch)) if owner != qm.name else "")
            rows.append(row)
        for sdr in cl.manual_senders():
            if any(channel_matches(sdr.name, r["CHANNEL"], r["CLUSQMGR"]) for r in rows if r["CLUSQMGR"] != qm.name):
                continue
            for c in cl.clusters_of(sdr):
                rows.append({"CLUSQMGR": f"SYSTEM.TEMPQMGR.{sdr['CONNAME']}"[:48], "CHANNEL": sdr.name, "CLUSTER": c,
                             "DEFTYPE": "CLUSSDR", "QMTYPE": "REPOS", "CONNAME": sdr["CONNAME"],
                             "STATUS": self._channel_state(sdr.name), "SUSPEND": "NO",
                             "XMITQ": cl.xmitq_for(sdr.name)})
        rows.sort(key=lambda r: (r["CLUSQMGR"], r["CLUSTER"]))
        return rows

    def qcluster_lines(self, cmd: Command, strict: bool = True) -> list[str]:
        """DISPLAY QCLUSTER, and the cluster part of DISPLAY QUEUE ... CLUSINFO: one entry per
        live instance this queue manager knows (its own included)."""
        return self._display_rows(cmd, QUEUE_HEADER, ("QUEUE", "TYPE", "CLUSQMGR", "CLUSTER"), QCLUSTER_ATTRS,
                                  ("CLUSTER", "CLUSQMGR"), self.qcluster_rows(), strict)

    def qcluster_rows(self) -> list[dict[str, Any]]:
        """One row per live cluster queue instance this queue manager knows (its own included)."""
        cl = self.qm.cluster
        rows = []
        for k, rec in sorted(cl.repo.records.items(), key=lambda kv: (kv[0].name, kv[0].owner, kv[0].cluster)):
            if k.kind == QUEUE and cl.repo.live(rec):
                d, t = mq_date_time(rec.published)
                rows.append(dict(rec.attrs, QUEUE=k.name, TYPE="QCLUSTER", CLUSQMGR=k.owner, CLUSTER=k.cluster,
                                 CLUSDATE=d, CLUSTIME=t))
        return rows

    def display_qcluster(self, cmd: Command) -> Any:
        lines = self.qcluster_lines(cmd)
        if not lines:
            return Result([message("AMQ8147E", name=cmd.name)], ERROR)
        return Result(lines)

    # --- SUSPEND / RESUME QMGR, REFRESH / RESET CLUSTER -----------------------------------------
    def _options(self, cmd: Command, allowed: dict[str, tuple[str, ...]]) -> dict[str, str]:
        """The command's parameters, each one of ``allowed`` with a value among its choices (any
        value when there are none); anything else is a syntax error, as runmqsc gives it."""
        out = {}
        for p in cmd.params:
            choices = allowed.get(p.keyword)
            value = p.value or ""
            if choices is None or not value or (choices and value.upper() not in choices):
                want = f" ({' or '.join(choices)})" if choices else ""
                raise SyntaxProblem(cmd.text, p.text, f"{p.keyword} is not valid here{want}.")
            out[p.keyword] = value.upper() if choices else value
        return out

    def _clusters_param(self, cmd: Command, opts: dict[str, str]) -> list[str]:
        if ("CLUSTER" in opts) == ("CLUSNL" in opts):
            raise SyntaxProblem(cmd.text, cmd.text, "Give CLUSTER(name) or CLUSNL(namelist), one of them.")
        if "CLUSTER" in opts:
            return [opts["CLUSTER"]]
        obj = self.qm.objects["NAMELIST"].get(opts["CLUSNL"])
        if obj is None:
            raise SyntaxProblem(cmd.text, cmd.text, f"Namelist {opts['CLUSNL']} not found.")
        return list(obj["NAMES"])

    def suspend(self, cmd: Command) -> Any:
        return self._suspend_resume(cmd, True)

    def resume(self, cmd: Command) -> Any:
        return self._suspend_resume(cmd, False)

    def _suspend_resume(self, cmd: Command, suspend: bool) -> Any:
        if cmd.objtype != "QMGR":
            return self.unsupported(cmd)
        allowed: dict[str, tuple[str, ...]] = {"CLUSTER": (), "CLUSNL": ()}
        if suspend:
            allowed["MODE"] = ("QUIESCE", "FORCE")
        opts = self._options(cmd, allowed)
        clusters = self._clusters_param(cmd, opts)
        cl = self.qm.cluster
        missing = [c for c in clusters if c not in cl.member_of()]
        if missing:
            return Result([message("AMQ9400E", name=self.qm.name, cluster=missing[0])], ERROR)
        for c in clusters:
            (cl.suspended.add if suspend else cl.suspended.discard)(c)
        cl.changed()
        cl.sync()
        if opts.get("MODE") == "FORCE":
            # MODE(FORCE): every cluster channel of those clusters, inbound and outbound, is stopped.
            chans = cl.receivers() + cl.manual_senders() + cl.auto_channels()
            for name in sorted({ch.name for ch in chans if set(cl.clusters_of(ch)) & set(clusters)}):
                self.services.stop_channel(name, "FORCE", "STOPPED")
        return Result([message("AMQ8558I") if suspend
                       else message("AMQ8559I")])

    def refresh(self, cmd: Command) -> Any:
        if cmd.objtype == "SECURITY":
            return self.security.refresh_security(cmd)
        if cmd.objtype != "CLUSTER":
            return self.unsupported(cmd)
        pattern = self.need_name(cmd)
        want_repos = self._options(cmd, {"REPOS": ("YES", "NO")}).get("REPOS") == "YES"
        cl = self.qm.cluster
        if want_repos and any(generic_match(pattern, c) for c in cl.full_for()):
            return Result([message("AMQ9406E", pattern=pattern)], ERROR)
        if not any(generic_match(pattern, c) for c in cl.member_of()):
            return Result([message("AMQ9400E", name=self.qm.name, cluster=pattern)], ERROR)
        operations.refresh(cl, pattern, want_repos)
        return Result([message("AMQ8573I")])

    def reset_cluster(self, cmd: Command) -> Any:
        cluster = self.need_name(cmd)
        opts = self._options(cmd, {"ACTION": ("FORCEREMOVE",), "QMNAME": (), "QMID": (), "QUEUES": ("YES", "NO")})
        if "ACTION" not in opts:
            raise SyntaxProblem(cmd.text, cmd.text, "ACTION(FORCEREMOVE) is required.")
        if ("QMNAME" in opts) == ("QMID" in opts):
            raise SyntaxProblem(cmd.text, cmd.text, "Give QMNAME or QMID, one of them.")
        cl = self.qm.cluster
        if cluster not in cl.full_for():
            return Result([message("AMQ9419E", cluster=cluster)], ERROR)
        name = opts.get("QMNAME", "")
        if name:
            qmids = {r.attrs.get("QMID") for r in cl.qmgr_records(cluster) if r.key.owner == name}
            if len(qmids) > 1:
                return Result([message("AMQ9426E", name=name, cluster=cluster)], ERROR)
        n = operations.force_remove(cl, cluster, qmname=name, qmid=opts.get("QMID", ""), queues=opts.get("QUEUES") == "YES")
        if not n:
            return Result([message("AMQ9427E", value=name or opts.get('QMID'), cluster=cluster)],
                          ERROR)
        return Result([message("MQL0020I")])

    def display_topic_cluster(self, cmd: Command) -> Result:
        """DISPLAY TOPIC(...) TYPE(CLUSTER): the clustered topics of the cluster cache, one entry per
        host (this queue manager's own included)."""
        cl = self.qm.cluster
        table = TABLE.attrs("TOPIC")
        rows = []
        for k, rec in sorted(cl.repo.records.items(), key=lambda kv: (kv[0].name, kv[0].owner, kv[0].cluster)):
            if k.kind == TOPIC and cl.repo.live(rec):
                d, t = mq_date_time(rec.published)
                row: dict[str, Any] = {a: table[a].render(rec.attrs[a]) for a in CTOPIC_ATTRS
                                       if a in table and rec.attrs.get(a) is not None}
                row.update(TOPIC=k.name, TYPE="CLUSTER", TOPICSTR=rec.attrs.get("TOPICSTR", ""), CLUSTER=k.cluster,
                           CLUSQMGR=k.owner, CLUSDATE=d, CLUSTIME=t, QMID=rec.attrs.get("QMID", ""),
                           DESCR=rec.attrs.get("DESCR") or "")
                rows.append(row)
        lines = self._display_rows(cmd, TOPIC_HEADER, ("TOPIC", "TYPE", "TOPICSTR", "CLUSTER", "CLUSQMGR"),
                                   CTOPIC_ATTRS, ("CLUSTER", "CLUSQMGR", "TOPICSTR"), rows)
        if not lines:
            return Result([message("AMQ8147E", name=cmd.name)], ERROR)
        return Result(lines)
