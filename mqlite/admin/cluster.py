"""PCF cluster commands: Inquire Cluster Queue Manager, Refresh and Reset Cluster, Suspend
and Resume Queue Manager Cluster (the last three through their MQSC twins, one set of rules)."""
from __future__ import annotations

from mqlite.admin import params as p
from mqlite.admin.channels import CHSTATUS
from mqlite.admin.context import Admin
from mqlite.admin.params import CommandError
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.cmq.structs import pad
from mqlite.objects.names import generic_match

QMDT = {"CLUSSDR": F.MQQMDT_EXPLICIT_CLUSTER_SENDER, "CLUSSDRA": F.MQQMDT_AUTO_CLUSTER_SENDER,
        "CLUSRCVR": F.MQQMDT_CLUSTER_RECEIVER, "CLUSSDRB": F.MQQMDT_AUTO_EXP_CLUSTER_SENDER}


def suspend_q_mgr_cluster(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    return suspend_resume(a, msg, True)


def resume_q_mgr_cluster(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    return suspend_resume(a, msg, False)

def inquire_cluster_q_mgr(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """The rows of DISPLAY CLUSQMGR, with MQ's PCF selectors and values."""
    pattern = p.s(p.need(msg, C.MQCA_CLUSTER_Q_MGR_NAME))
    cluster = p.s(msg.first(C.MQCA_CLUSTER_NAME, "*")) or "*"
    channel = p.s(msg.first(F.MQCACH_CHANNEL_NAME, "*")) or "*"
    wanted = p.wanted(msg, F.MQIACF_CLUSTER_Q_MGR_ATTRS)
    out = []
    for row in a.executor.cluster.clusqmgr_rows():
        if not (generic_match(pattern, row["CLUSQMGR"]) and generic_match(cluster, row["CLUSTER"])
                and generic_match(channel, row["CHANNEL"])):
            continue
        values: dict[int, int | bytes | str] = {C.MQCA_Q_MGR_IDENTIFIER: pad(row.get("QMID", ""), 48),
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
        if not p.passes_values(msg, values):
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


def refresh_cluster(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    cluster = p.name_parm(msg, C.MQCA_CLUSTER_NAME, "CLUSTER", generic=True)
    if not cluster:
        raise CommandError(F.MQRCCF_PARM_COUNT_TOO_SMALL, C.MQCA_CLUSTER_NAME)
    repos = msg.first(F.MQIACF_REFRESH_REPOSITORY, F.MQCFO_REFRESH_REPOSITORY_NO)
    if repos not in (F.MQCFO_REFRESH_REPOSITORY_YES, F.MQCFO_REFRESH_REPOSITORY_NO):
        raise CommandError(F.MQRCCF_PARM_VALUE_ERROR, F.MQIACF_REFRESH_REPOSITORY)
    yes = repos == F.MQCFO_REFRESH_REPOSITORY_YES
    return a.mqsc(f"REFRESH CLUSTER({cluster}) REPOS({'YES' if yes else 'NO'})")


def reset_cluster(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    cluster = p.name_parm(msg, C.MQCA_CLUSTER_NAME, "CLUSTER")
    if not cluster:
        raise CommandError(F.MQRCCF_PARM_COUNT_TOO_SMALL, C.MQCA_CLUSTER_NAME)
    if p.need(msg, F.MQIACF_ACTION) != F.MQACT_FORCE_REMOVE:
        raise CommandError(F.MQRCCF_ACTION_VALUE_ERROR, F.MQIACF_ACTION)
    qmname = p.name_parm(msg, C.MQCA_Q_MGR_NAME)
    qmid = p.s(msg.first(C.MQCA_Q_MGR_IDENTIFIER, "")).strip()
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
    return a.mqsc(f"RESET CLUSTER({cluster}) ACTION(FORCEREMOVE) {who} QUEUES({'YES' if yes else 'NO'})")


def suspend_resume(a: Admin, msg: pcf.Message, suspend: bool) -> list[list[bytes]]:
    cluster = p.name_parm(msg, C.MQCA_CLUSTER_NAME, "CLUSTER")
    namelist = p.name_parm(msg, C.MQCA_CLUSTER_NAMELIST)
    if cluster and namelist:
        raise CommandError(F.MQRCCF_CLUSTER_NAME_CONFLICT, C.MQCA_CLUSTER_NAMELIST)
    if not cluster and not namelist:
        raise CommandError(F.MQRCCF_PARM_COUNT_TOO_SMALL, C.MQCA_CLUSTER_NAME)
    which = f"CLUSTER({cluster})" if cluster else f"CLUSNL({namelist})"
    if not suspend:
        return a.mqsc(f"RESUME QMGR {which}")
    mode = msg.first(F.MQIACF_MODE, F.MQMODE_QUIESCE)
    if mode not in (F.MQMODE_QUIESCE, F.MQMODE_FORCE):
        raise CommandError(F.MQRCCF_MODE_VALUE_ERROR, F.MQIACF_MODE)
    return a.mqsc(f"SUSPEND QMGR {which} MODE({'FORCE' if mode == F.MQMODE_FORCE else 'QUIESCE'})")
