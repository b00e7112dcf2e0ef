"""MQSC for clusters: DISPLAY CLUSQMGR, DISPLAY QCLUSTER (and QUEUE ... CLUSINFO), SUSPEND and
RESUME QMGR, REFRESH CLUSTER, RESET CLUSTER. Mixed into the Executor; the cluster state is the
engine's (``qm.cluster``) and channel states come from the server's services."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlite.cmq import CMQC
from mqlite.engine.cluster import clusdate
from mqlite.engine.repository import QMGR, QUEUE, Record
from mqlite.objects.names import generic_match

if TYPE_CHECKING:
    from mqlite.mqsc.commands import Executor
    from mqlite.mqsc.parser import Command

CLUSQMGR_HEADER = "AMQ8441I: Display Cluster Queue Manager details."
QUEUE_HEADER = "AMQ8409I: Display Queue details."
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


def _item(key: str, value: Any) -> str:
    if isinstance(value, int) and key in ENUMS:
        value = ENUMS[key].get(value, value)
    return f"{key}({value})" if value != "" else f"{key}( )"


class ClusterCommands:
    """The cluster commands of the MQSC executor."""

    def _wanted(self: "Executor", cmd: "Command", allowed: tuple[str, ...], extra: set[str]) -> tuple[bool, list[str]]:
        from mqlite.mqsc.commands import _Syntax
        all_, wanted = False, []
        for p in cmd.params:
            if p.keyword in extra:
                continue
            if p.keyword == "ALL":
                all_ = True
            elif p.keyword in allowed and p.value is None:
                wanted.append(p.keyword)
            else:
                raise _Syntax(cmd.text, p.text, f"{p.keyword} is not valid here.")
        return all_, wanted

    # --- DISPLAY CLUSQMGR ---------------------------------------------------------------------
    def _display_clusqmgr(self: "Executor", cmd: "Command") -> Any:
        from mqlite.mqsc.commands import ERROR, Result, format_fields
        pattern = self._need_name(cmd)
        all_, wanted = self._wanted(cmd, CLUSQMGR_ATTRS, {"CLUSTER", "CHANNEL", "CMDSCOPE", "WHERE"})
        fc = (cmd.param("CLUSTER").value or "*") if cmd.param("CLUSTER") else "*"   # type: ignore[union-attr]
        fch = (cmd.param("CHANNEL").value or "*") if cmd.param("CHANNEL") else "*"  # type: ignore[union-attr]
        lines: list[str] = []
        for row in self._clusqmgr_rows():
            if not (generic_match(pattern, row["CLUSQMGR"]) and generic_match(fc, row["CLUSTER"])
                    and generic_match(fch, row["CHANNEL"])):
                continue
            names = list(CLUSQMGR_ATTRS) if all_ else wanted
            items = [_item("CLUSQMGR", row["CLUSQMGR"]), _item("CHANNEL", row["CHANNEL"]),
                     _item("CLUSTER", row["CLUSTER"])]
            items += [_item(n, row.get(n, "")) for n in sorted(dict.fromkeys(names))]
            lines.append(CLUSQMGR_HEADER)
            lines.extend(format_fields(items))
        if not lines:
            return Result([f"AMQ8147E: IBM MQ object {pattern} not found."], ERROR)
        return Result(lines)

    def _channel_state(self: "Executor", channel: str) -> str:
        st = self.services.channel_status(channel)
        return str(st[0]["STATUS"]) if st else "INACTIVE"

    def _clusqmgr_rows(self: "Executor") -> list[dict[str, Any]]:
        qm, cl = self.qm, self.qm.cluster
        rows = []
        manual = {ch.name for ch in cl.manual_senders()}
        for rec in cl._qmgr_records():
            a = rec.attrs
            owner = rec.key.owner
            ch = str(a.get("CHANNEL", ""))
            if owner == qm.name:
                deftype = "CLUSRCVR"
            else:
                deftype = "CLUSSDRB" if any(_leads(m, ch, owner) for m in manual) else "CLUSSDRA"
            status = self._channel_state(ch)
            d, t = clusdate(rec.published)
            row = {k: a.get(k, "") for k in CLUSQMGR_ATTRS if k in a}
            row.update(CLUSQMGR=owner, CHANNEL=ch, CLUSTER=rec.key.cluster, CLUSDATE=d, CLUSTIME=t, DEFTYPE=deftype,
                       STATUS=status, QMTYPE=a.get("QMTYPE", "NORMAL"), SUSPEND=a.get("SUSPEND", "NO"),
                       VERSION="09040000", XMITQ=cl.assoc.get(ch, cl.xmitq_for(ch)) if owner != qm.name else "")
            rows.append(row)
        known = {r["CHANNEL"] for r in rows}
        for ch in cl.manual_senders():
            if any(_leads(ch.name, k, r["CLUSQMGR"]) for r in rows for k in [r["CHANNEL"]]) or ch.name in known:
                continue
            # A manual CLUSSDR whose full repository has not answered yet: MQ's temporary entry.
            for c in cl.clusters_of(ch):
                rows.append({"CLUSQMGR": f"SYSTEM.TEMPQMGR.{ch['CONNAME']}"[:48], "CHANNEL": ch.name, "CLUSTER": c,
                             "DEFTYPE": "CLUSSDR", "QMTYPE": "REPOS", "CONNAME": ch["CONNAME"],
                             "STATUS": self._channel_state(ch.name), "SUSPEND": "NO",
                             "XMITQ": cl.xmitq_for(ch.name)})
        rows.sort(key=lambda r: (r["CLUSQMGR"], r["CLUSTER"]))
        return rows

    # --- DISPLAY QCLUSTER ---------------------------------------------------------------------
    def _qcluster_lines(self: "Executor", cmd: "Command", pattern: str, all_: bool, wanted: list[str],
                        cluster: str = "*") -> list[str]:
        from mqlite.mqsc.commands import format_fields
        cl = self.qm.cluster
        lines: list[str] = []
        recs: list[Record] = sorted((r for k, r in cl.repo.records.items()
                                     if k.kind == QUEUE and cl.repo.live(r) and generic_match(pattern, k.name)
                                     and generic_match(cluster, k.cluster)),
                                    key=lambda r: (r.key.name, r.key.owner, r.key.cluster))
        for rec in recs:
            a = rec.attrs
            d, t = clusdate(rec.published)
            values = dict(a, CLUSDATE=d, CLUSTIME=t)
            items = [_item("QUEUE", rec.key.name), "TYPE(QCLUSTER)", _item("CLUSQMGR", rec.key.owner),
                     _item("CLUSTER", rec.key.cluster)]
            names = list(QCLUSTER_ATTRS) if all_ else [w for w in wanted if w in QCLUSTER_ATTRS]
            items += [_item(n, values.get(n, "")) for n in sorted(dict.fromkeys(names))]
            lines.append(QUEUE_HEADER)
            lines.extend(format_fields(items))
        return lines

    def _display_qcluster(self: "Executor", cmd: "Command") -> Any:
        from mqlite.mqsc.commands import ERROR, Result
        pattern = self._need_name(cmd)
        all_, wanted = self._wanted(cmd, QCLUSTER_ATTRS + ("CLUSQMGR", "CLUSTER"),
                                    {"CMDSCOPE", "WHERE", "CLUSINFO", "TYPE"})
        lines = self._qcluster_lines(cmd, pattern, all_, wanted)
        if not lines:
            return Result([f"AMQ8147E: IBM MQ object {pattern} not found."], ERROR)
        return Result(lines)

    # --- SUSPEND / RESUME QMGR ----------------------------------------------------------------
    def _clusters_param(self: "Executor", cmd: "Command") -> list[str]:
        from mqlite.mqsc.commands import _Syntax
        c, nl = cmd.param("CLUSTER"), cmd.param("CLUSNL")
        if (c is None) == (nl is None) or (c is not None and not c.value) or (nl is not None and not nl.value):
            raise _Syntax(cmd.text, cmd.text, "Give CLUSTER(name) or CLUSNL(namelist), one of them.")
        if c is not None:
            return [str(c.value)]
        obj = self.qm.objects["NAMELIST"].get(str(nl.value))  # type: ignore[union-attr]
        if obj is None:
            raise _Syntax(cmd.text, nl.text, f"Namelist {nl.value} not found.")  # type: ignore[union-attr]
        return list(obj["NAMES"])

    def _suspend(self: "Executor", cmd: "Command") -> Any:
        return self._suspend_resume(cmd, True)

    def _resume(self: "Executor", cmd: "Command") -> Any:
        return self._suspend_resume(cmd, False)

    def _suspend_resume(self: "Executor", cmd: "Command", suspend: bool) -> Any:
        from mqlite.mqsc.commands import ERROR, Result, _Syntax
        if cmd.objtype != "QMGR":
            return self._unsupported(cmd)
        clusters = self._clusters_param(cmd)
        mode = cmd.param("MODE")
        force = False
        if mode is not None:
            if not suspend or (mode.value or "").upper() not in ("QUIESCE", "FORCE"):
                raise _Syntax(cmd.text, mode.text, "MODE is QUIESCE or FORCE, on SUSPEND only.")
            force = (mode.value or "").upper() == "FORCE"
        cl = self.qm.cluster
        missing = [c for c in clusters if c not in cl.member_of()]
        if missing:
            return Result([f"AMQ9400E: Queue manager {self.qm.name} is not in cluster {missing[0]}."], ERROR)
        for c in clusters:
            (cl.suspended.add if suspend else cl.suspended.discard)(c)
        cl.changed()
        cl.sync()
        if suspend and force:
            # MODE(FORCE): every cluster channel of those clusters, inbound and outbound, is stopped.
            chans = cl.receivers() + cl.manual_senders() + cl.auto_channels()
            for name in sorted({ch.name for ch in chans if set(cl.clusters_of(ch)) & set(clusters)}):
                self.services.stop_channel(name, "FORCE", "STOPPED")
        return Result(["AMQ8560I: IBM MQ suspend queue manager cluster accepted." if suspend
                       else "AMQ8559I: IBM MQ resume queue manager cluster accepted."])

    # --- REFRESH / RESET CLUSTER --------------------------------------------------------------
    def _refresh(self: "Executor", cmd: "Command") -> Any:
        from mqlite.mqsc.commands import ERROR, Result, _Syntax
        if cmd.objtype != "CLUSTER":
            return self._unsupported(cmd)
        pattern = self._need_name(cmd)
        repos = cmd.param("REPOS")
        want_repos = False
        if repos is not None:
            if (repos.value or "").upper() not in ("YES", "NO"):
                raise _Syntax(cmd.text, repos.text, "REPOS is YES or NO.")
            want_repos = (repos.value or "").upper() == "YES"
        cl = self.qm.cluster
        if want_repos and any(generic_match(pattern, c) for c in cl.full_for()):
            return Result([f"AMQ9406E: REFRESH CLUSTER REPOS(YES) is not valid on a full repository for "
                           f"cluster {pattern}."], ERROR)
        if not any(generic_match(pattern, c) for c in cl.member_of()):
            return Result([f"AMQ9400E: Queue manager {self.qm.name} is not in cluster {pattern}."], ERROR)
        cl.refresh(pattern, want_repos)
        return Result(["AMQ8573I: IBM MQ refresh cluster accepted."])

    def _reset_cluster(self: "Executor", cmd: "Command") -> Any:
        from mqlite.mqsc.commands import ERROR, Result, _Syntax
        cluster = self._need_name(cmd)
        action = cmd.param("ACTION")
        if action is None or (action.value or "").upper() != "FORCEREMOVE":
            raise _Syntax(cmd.text, cmd.text, "ACTION(FORCEREMOVE) is required.")
        qmname, qmid = cmd.param("QMNAME"), cmd.param("QMID")
        if (qmname is None) == (qmid is None):
            raise _Syntax(cmd.text, cmd.text, "Give QMNAME or QMID, one of them.")
        queues = cmd.param("QUEUES")
        if queues is not None and (queues.value or "").upper() not in ("YES", "NO"):
            raise _Syntax(cmd.text, queues.text, "QUEUES is YES or NO.")
        cl = self.qm.cluster
        if cluster not in cl.full_for():
            return Result([f"AMQ9419E: RESET CLUSTER can be issued only on a full repository for {cluster}."], ERROR)
        name = str(qmname.value) if qmname is not None else ""
        if name:
            owners = {r.key.owner for r in cl._qmgr_records(cluster) if r.key.owner == name}
            qmids = {r.attrs.get("QMID") for r in cl._qmgr_records(cluster) if r.key.owner == name}
            if len(qmids) > 1:
                return Result([f"AMQ9426E: More than one queue manager named {name} is in cluster {cluster}; "
                               "use QMID."], ERROR)
            if not owners:
                return Result([f"AMQ9427E: Queue manager {name} is not in cluster {cluster}."], ERROR)
        n = cl.force_remove(cluster, qmname=name, qmid=str(qmid.value) if qmid is not None else "",
                            queues=queues is not None and (queues.value or "").upper() == "YES")
        if not n:
            return Result([f"AMQ9427E: Queue manager not found in cluster {cluster}."], ERROR)
        return Result(["MQL0020I: Reset cluster accepted."])


def _leads(manual: str, channel: str, owner: str) -> bool:
    from mqlite.engine.cluster import channel_matches
    return channel_matches(manual, channel, owner)


__all__ = ["ClusterCommands", "QMGR"]
