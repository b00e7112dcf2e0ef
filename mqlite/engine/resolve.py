"""MQOPEN name resolution (seed 004), as a pure function of a view of the definitions.

The function reads like the documented table: the queue-manager name is resolved before the
queue name; each row is a small step.  It returns where messages go (a local queue, a model to
instantiate, or a transmission queue with the remote destination for the MQXQH) and every
definition on the way, so the engine can check PUT(DISABLED) along the whole path and keep the
definitions in use while the handle is open.

Cluster rows ask the view three questions: is a name a cluster queue with instances elsewhere
(``cluster_queue``), is a name a queue-manager alias advertised in a cluster by another queue
manager (``cluster_qmgr_alias``), and which cluster-sender channel and transmission queue reach a
cluster queue manager (``cluster_route``). A cluster queue (or clustered queue-manager alias)
resolves to CLUSTER: the instance is chosen by the workload algorithm at MQOPEN or MQPUT, outside
this function. On a queue manager outside any cluster those questions always answer no, and the
rows never match.

ObjectQMgrName naming the local queue manager, or a remote definition whose RQMNAME is the local
queue manager, keeps resolution local: a clustered local queue is then used as it is (no workload
choice), and an alias must reach a locally defined queue (seed 004, "Local queue manager" rows).
With a blank ObjectQMgrName an alias may resolve to a cluster queue hosted elsewhere, even one with
the alias's own name.

In a queue-sharing group (QSGNAME set) the group's name stands for the local queue manager; a
shared queue resolves with the group as ResolvedQMgrName; ObjectQMgrName naming another member
opens a shared queue locally when SQQMNAME is IGNORE; and a destination queue manager that is
another member goes to SYSTEM.QSG.TRANSMIT.QUEUE, ahead of any other transmission queue, when IGQ
is ENABLED and that queue is defined (``qsg_member`` asks the view who the members are).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from mqlite.cluster.wlm import NEEDS_LOCAL
from mqlite.cmq import CMQC
from mqlite.cmq.errors import MQIError
from mqlite.objects.attrs import QTYPE_VALUES
from mqlite.objects.model import MQObject

LOCAL, MODEL, REMOTE, CLUSTER = "local", "model", "remote", "cluster"
QSG_XMITQ = "SYSTEM.QSG.TRANSMIT.QUEUE"



class View(Protocol):
    qmgr_name: str

    def queue(self, name: str) -> MQObject | None: ...

    def qmgr_attr(self, key: str) -> Any: ...

    def cluster_queue(self, name: str) -> bool: ...

    def cluster_qmgr_alias(self, name: str) -> bool: ...

    def cluster_route(self, qmgr: str) -> tuple[str, str] | None: ...

    def qsg_member(self, qmgr: str) -> bool: ...


@dataclass(frozen=True)
class Resolved:
    kind: str                 # LOCAL, MODEL, REMOTE or CLUSTER
    queue: str                # the local queue, the model, or the transmission queue
    resolved_q: str           # MQOD ResolvedQName
    resolved_qm: str          # MQOD ResolvedQMgrName
    path: tuple[str, ...]     # every queue definition passed through, ending with ``queue``
    remote_q: str = ""        # MQXQH RemoteQName when kind is REMOTE
    remote_qm: str = ""       # MQXQH RemoteQMgrName when kind is REMOTE (CLUSTER: a clustered qmgr alias)
    channel: str = ""         # the cluster-sender channel, when the transmission queue is a cluster one


def resolve(view: View, name: str, qmgr: str, options: int) -> Resolved:
    """Resolve MQOD ObjectName/ObjectQMgrName for ``options``; raise MQIError as MQOPEN would."""
    local = view.qmgr_name
    qsg = view.qmgr_attr("QSGNAME")
    if qsg and qmgr == qsg:
        qmgr = local          # the group's name means this queue manager
    if qmgr and qmgr != local and qsg and view.qsg_member(qmgr) \
            and view.qmgr_attr("SQQMNAME") == CMQC.MQSQQM_IGNORE and _shared(view.queue(name)):
        qmgr = local          # SQQMNAME(IGNORE): another member's shared queue is opened here
    if qmgr and qmgr != local:
        if options & (NEEDS_LOCAL | CMQC.MQOO_INQUIRE):
            raise MQIError(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE, detail="remote destination needs output only")
        return _by_qmgr_name(view, name, qmgr, ())
    return _by_queue_name(view, name, options, (), via_alias=False, local_only=qmgr == local)


def _by_queue_name(view: View, name: str, options: int, path: tuple[str, ...],
                   via_alias: bool, local_only: bool, via_remote: bool = False) -> Resolved:
    """Rows with ObjectQMgrName blank or the local queue manager. ``local_only``: the local queue
    manager was named (directly or as a remote definition's RQMNAME), so no cluster rows apply."""
    local = view.qmgr_name
    cluster_ok = not local_only and not options & NEEDS_LOCAL
    obj = view.queue(name)
    if obj is None:
        if cluster_ok and view.cluster_queue(name):
            # A cluster queue with no local definition: any instance, through the cluster.
            return Resolved(CLUSTER, "", name, "", path)
        raise MQIError(CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q if via_alias else CMQC.MQRC_UNKNOWN_OBJECT_NAME,
                       detail=name, event={"base": name, "base_type": CMQC.MQOT_Q})
    kind = obj.kind
    if kind == "QLOCAL":
        if cluster_ok and (obj["CLUSTER"] or obj["CLUSNL"]) and view.cluster_queue(name):
            # The local instance of a cluster queue that has others: the workload algorithm decides
            # (CLWLUSEQ, put-disabled instances), the local instance among them.
            return Resolved(CLUSTER, name, name, "", path + (name,))
        if _shared(obj):
            return Resolved(LOCAL, name, name, view.qmgr_attr("QSGNAME"), path + (name,))
        return Resolved(LOCAL, name, name, local, path + (name,))
    if kind == "QMODEL":
        if via_alias or via_remote:
            raise MQIError(CMQC.MQRC_ALIAS_BASE_Q_TYPE_ERROR, detail=f"{name} is a model queue",
                           event={"base": name, "qtype": CMQC.MQQT_MODEL})
        return Resolved(MODEL, name, name, local, path + (name,))
    if kind == "QALIAS":
        if via_alias or via_remote:
            # An alias may not resolve to another locally defined alias.
            raise MQIError(CMQC.MQRC_ALIAS_BASE_Q_TYPE_ERROR, detail=f"{name} is an alias queue",
                           event={"base": name, "qtype": CMQC.MQQT_ALIAS})
        if obj["TARGTYPE"] != CMQC.MQOT_Q:
            raise MQIError(CMQC.MQRC_UNKNOWN_OBJECT_NAME, detail=f"{name} targets a topic")
        if obj["TARGET"] == name:
            # A (clustered) alias named like its base: only the instances elsewhere can be meant.
            if cluster_ok and view.cluster_queue(name):
                return Resolved(CLUSTER, "", name, "", path + (name,))
            raise MQIError(CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q, detail=f"{name} names itself as its base",
                           event={"base": name, "base_type": CMQC.MQOT_Q})
        return _by_queue_name(view, obj["TARGET"], options, path + (name,), via_alias=True, local_only=local_only)
    if kind == "QREMOTE":
        if via_remote:
            raise MQIError(CMQC.MQRC_UNKNOWN_OBJECT_NAME, detail=f"{name} would resolve to a remote queue again")
        if options & NEEDS_LOCAL:
            raise MQIError(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE, detail=f"{name} is a remote queue")
        rname, rqm = obj["RNAME"], obj["RQMNAME"]
        if not rname:
            raise MQIError(CMQC.MQRC_REMOTE_Q_NAME_ERROR, detail=f"{name} has no RNAME")
        path = path + (name,)
        if not rqm:
            raise MQIError(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR, detail=f"{name} has no RQMNAME")
        if rqm == local or rqm == view.qmgr_attr("QSGNAME"):
            return _by_queue_name(view, rname, options & ~CMQC.MQOO_INQUIRE, path, via_alias=False,
                                  local_only=True, via_remote=True)
        igq = _igq(view, rname, rqm, path)
        if igq is not None:
            return igq
        if obj["XMITQ"]:
            xq = _xmitq(view, obj["XMITQ"], CMQC.MQRC_UNKNOWN_XMIT_Q, CMQC.MQRC_XMIT_Q_TYPE_ERROR,
                        CMQC.MQRC_XMIT_Q_USAGE_ERROR)
            return Resolved(REMOTE, xq, rname, rqm, path + (xq,), rname, rqm)
        return _by_qmgr_name(view, rname, rqm, path)
    raise MQIError(CMQC.MQRC_UNKNOWN_OBJECT_NAME, detail=name)


def _by_qmgr_name(view: View, qname: str, qmgr: str, path: tuple[str, ...], alias_used: bool = False) -> Resolved:
    """Rows with ObjectQMgrName naming something other than the local queue manager."""
    local = view.qmgr_name
    if qmgr == local or qmgr == view.qmgr_attr("QSGNAME"):
        # A queue-manager alias (or remote definition) that leads back here: the local queue.
        return _by_queue_name(view, qname, CMQC.MQOO_OUTPUT, path, via_alias=False, local_only=True, via_remote=True)
    igq = _igq(view, qname, qmgr, path)
    if igq is not None:
        return igq
    obj = view.queue(qmgr)
    if obj is not None and obj.kind == "QREMOTE" and not obj["RNAME"] and not alias_used:
        # Queue-manager alias: resolve again with ObjectQMgrName = RemoteQMgrName.
        path = path + (qmgr,)
        target = obj["RQMNAME"] or local
        igq = _igq(view, qname, target, path)
        if igq is not None:
            return igq
        if target != local and obj["XMITQ"]:
            xq = _xmitq(view, obj["XMITQ"], CMQC.MQRC_UNKNOWN_XMIT_Q, CMQC.MQRC_XMIT_Q_TYPE_ERROR,
                        CMQC.MQRC_XMIT_Q_USAGE_ERROR)
            return Resolved(REMOTE, xq, qname, target, path + (xq,), qname, target)
        return _by_qmgr_name(view, qname, target, path, alias_used=True)
    if obj is not None and obj.kind == "QLOCAL":
        # ObjectQMgrName names a local transmission queue.
        if obj["USAGE"] != CMQC.MQUS_TRANSMISSION:
            raise MQIError(CMQC.MQRC_XMIT_Q_USAGE_ERROR, detail=f"{qmgr} is not a transmission queue",
                           event={"xmitq": qmgr})
        return Resolved(REMOTE, qmgr, qname, qmgr, path + (qmgr,), qname, qmgr)
    if obj is not None and not alias_used:
        raise MQIError(CMQC.MQRC_XMIT_Q_TYPE_ERROR, detail=f"{qmgr} is not a local queue",
                       event={"xmitq": qmgr, "qtype": QTYPE_VALUES[obj.kind]})
    route = view.cluster_route(qmgr)
    if route is not None:
        # A cluster queue manager: its cluster-sender channel, whatever cluster it shares, ahead of
        # the default transmission queue.
        xq, channel = route
        return Resolved(REMOTE, xq, qname, qmgr, path + (xq,), qname, qmgr, channel)
    if view.cluster_qmgr_alias(qmgr):
        # A queue-manager alias advertised in a cluster: the workload algorithm picks a host of it,
        # and the message carries the alias as its destination queue manager.
        return Resolved(CLUSTER, "", qname, "", path, qname, qmgr)
    defxmitq = view.qmgr_attr("DEFXMITQ")
    if not defxmitq:
        raise MQIError(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR, detail=qmgr)
    xq = _xmitq(view, defxmitq, CMQC.MQRC_UNKNOWN_DEF_XMIT_Q, CMQC.MQRC_DEF_XMIT_Q_TYPE_ERROR,
                CMQC.MQRC_DEF_XMIT_Q_USAGE_ERROR)
    return Resolved(REMOTE, xq, qname, qmgr, path + (xq,), qname, qmgr)


def _shared(obj: MQObject | None) -> bool:
    return obj is not None and obj.kind == "QLOCAL" and obj.attrs.get("QSGDISP") == CMQC.MQQSGD_SHARED


def _igq(view: View, qname: str, qmgr: str, path: tuple[str, ...]) -> Resolved | None:
    """Intra-group queuing: another member of the group, with IGQ enabled here and the shared
    transmission queue defined, is reached through SYSTEM.QSG.TRANSMIT.QUEUE."""
    if not view.qmgr_attr("QSGNAME") or qmgr == view.qmgr_name or not view.qsg_member(qmgr):
        return None
    if view.qmgr_attr("IGQ") != CMQC.MQIGQ_ENABLED:
        return None
    xq = view.queue(QSG_XMITQ)
    if not _shared(xq) or xq["USAGE"] != CMQC.MQUS_TRANSMISSION:  # type: ignore[index]
        return None
    return Resolved(REMOTE, QSG_XMITQ, qname, qmgr, path + (QSG_XMITQ,), qname, qmgr)


def _xmitq(view: View, name: str, unknown: int, wrong_type: int, wrong_usage: int) -> str:
    obj = view.queue(name)
    if obj is None:
        raise MQIError(unknown, detail=name, event={"xmitq": name})
    if obj.kind != "QLOCAL":
        raise MQIError(wrong_type, detail=name, event={"xmitq": name, "qtype": QTYPE_VALUES[obj.kind]})
    if obj["USAGE"] != CMQC.MQUS_TRANSMISSION:
        raise MQIError(wrong_usage, detail=name, event={"xmitq": name})
    return name

