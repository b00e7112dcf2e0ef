"""PCF cluster commands: Inquire Cluster Queue Manager, Refresh and Reset Cluster, Suspend
and Resume Queue Manager Cluster (the last three through their MQSC twins, one set of rules)."""
from __future__ import annotations

from mqlite.admin import params as p
from mqlite.admin.context import Admin
from mqlite.admin.params import CommandError
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.mqsc.cluster import CLUSQMGR_FIELDS, QCLUSTER_FIELDS, pcf_row
from mqlite.objects.names import generic_match

QMDT = {"CLUSSDR": F.MQQMDT_EXPLICIT_CLUSTER_SENDER, "CLUSSDRA": F.MQQMDT_AUTO_CLUSTER_SENDER,
        "CLUSRCVR": F.MQQMDT_CLUSTER_RECEIVER, "CLUSSDRB": F.MQQMDT_AUTO_EXP_CLUSTER_SENDER}


def suspend_q_mgr_cluster(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    return suspend_resume(a, msg, True)


def resume_q_mgr_cluster(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    return suspend_resume(a, msg, False)

def inquire_cluster_q_mgr(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """The rows of DISPLAY CLUSQMGR, with MQ's PCF selectors and values (CLUSQMGR_FIELDS)."""
    pattern = p.s(p.need(msg, C.MQCA_CLUSTER_Q_MGR_NAME))
    cluster = p.s(msg.first(C.MQCA_CLUSTER_NAME, "*")) or "*"
    channel = p.s(msg.first(F.MQCACH_CHANNEL_NAME, "*")) or "*"
    wanted = p.wanted(msg, F.MQIACF_CLUSTER_Q_MGR_ATTRS)
    named = (C.MQCA_CLUSTER_Q_MGR_NAME, C.MQCA_CLUSTER_NAME, F.MQCACH_CHANNEL_NAME)
    out = []
    for row in a.executor.cluster.clusqmgr_rows():
        if not (generic_match(pattern, row["CLUSQMGR"]) and generic_match(cluster, row["CLUSTER"])
                and generic_match(channel, row["CHANNEL"])):
            continue
        present = pcf_row(CLUSQMGR_FIELDS, row)
        fields = [f for f in CLUSQMGR_FIELDS if f.keyword in present]
        values = p.field_values(fields, present)
        if p.passes_values(msg, values):
            out.append(p.encode_values(values, None if wanted is None else [*named, *wanted]))
    if not out:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCA_CLUSTER_Q_MGR_NAME)
    return out


def inquire_cluster_queues(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
    """Inquire Queue with QType MQQT_CLUSTER: the cluster queues this queue manager knows, one
    reply per live instance (its own included), as DISPLAY QCLUSTER shows them (QCLUSTER_FIELDS)."""
    pattern = p.s(p.need(msg, C.MQCA_Q_NAME))
    cluster = p.s(msg.first(C.MQCA_CLUSTER_NAME, "*")) or "*"
    owner = p.s(msg.first(C.MQCA_CLUSTER_Q_MGR_NAME, "*")) or "*"
    wanted = p.wanted(msg, F.MQIACF_Q_ATTRS)
    out = []
    for row in a.executor.cluster.qcluster_rows():
        if not (generic_match(pattern, row["QUEUE"]) and generic_match(cluster, row["CLUSTER"])
                and generic_match(owner, row["CLUSQMGR"])):
            continue
        present = pcf_row(QCLUSTER_FIELDS, row | {"TYPE": C.MQQT_CLUSTER})
        values = p.field_values([f for f in QCLUSTER_FIELDS if f.keyword in present], present)
        if p.passes_values(msg, values):
            out.append(p.encode_values(values, None if wanted is None else [C.MQCA_Q_NAME, C.MQIA_Q_TYPE, *wanted]))
    if not out:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCA_Q_NAME)
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
