"""Name resolution (seed 004) row by row, on the pure function with a tiny view of definitions."""
from __future__ import annotations

from typing import Any

import pytest

from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.engine.resolve import CLUSTER, LOCAL, MODEL, REMOTE, resolve
from mqlite.objects.attrs import TABLE
from mqlite.objects.model import MQObject

OUT = C.MQOO_OUTPUT


class View:
    def __init__(self, defs: dict[str, tuple[str, dict[str, Any]]], defxmitq: str = "",
                 cluster_queues: set[str] | None = None, cluster_qmgrs: dict[str, str] | None = None,
                 cluster_aliases: set[str] | None = None) -> None:
        self.qmgr_name = "QM1"
        self.cluster_queues = cluster_queues or set()      # names with instances on other queue managers
        self.cluster_aliases = cluster_aliases or set()    # queue-manager aliases advertised by others
        self.cluster_qmgrs = cluster_qmgrs or {}           # cluster queue manager -> its CLUSRCVR
        self.defs = {}
        for name, (kind, attrs) in defs.items():
            obj = MQObject(kind, name, TABLE.defaults(kind))
            obj.attrs.update(attrs)
            self.defs[name] = obj
        self.attrs = {"DEFXMITQ": defxmitq, "QSGNAME": "", "IGQ": C.MQIGQ_DISABLED, "SQQMNAME": C.MQSQQM_USE}
        self.members: set[str] = set()                     # other members of the queue-sharing group

    def queue(self, name: str):
        return self.defs.get(name)

    def qmgr_attr(self, key: str):
        return self.attrs[key]

    def cluster_queue(self, name: str) -> bool:
        return name in self.cluster_queues

    def cluster_qmgr_alias(self, name: str) -> bool:
        return name in self.cluster_aliases

    def cluster_route(self, qmgr: str):
        ch = self.cluster_qmgrs.get(qmgr)
        return None if ch is None else ("SYSTEM.CLUSTER.TRANSMIT.QUEUE", ch)

    def qsg_member(self, qmgr: str) -> bool:
        return qmgr in self.members


XQ = {"USAGE": C.MQUS_TRANSMISSION}


def rc(view: View, name: str, qmgr: str = "", options: int = OUT) -> int:
    with pytest.raises(MQIError) as e:
        resolve(view, name, qmgr, options)
    return e.value.reason


def test_local_queue_blank_or_local_qmgr():
    v = View({"Q1": ("QLOCAL", {})})
    for qm in ("", "QM1"):
        r = resolve(v, "Q1", qm, OUT | C.MQOO_INPUT_SHARED)
        assert (r.kind, r.queue, r.resolved_q, r.resolved_qm, r.path) == (LOCAL, "Q1", "Q1", "QM1", ("Q1",))


def test_model_queue():
    v = View({"M": ("QMODEL", {})})
    assert resolve(v, "M", "", C.MQOO_INPUT_EXCLUSIVE).kind == MODEL


def test_alias_resolves_to_base_with_qmgr_unchanged():
    v = View({"A": ("QALIAS", {"TARGET": "Q1"}), "Q1": ("QLOCAL", {})})
    r = resolve(v, "A", "", C.MQOO_INPUT_SHARED)
    assert (r.queue, r.path) == ("Q1", ("A", "Q1"))


def test_alias_errors():
    v = View({"A0": ("QALIAS", {"TARGET": "NOPE"}), "A1": ("QALIAS", {"TARGET": "A2"}),
              "A2": ("QALIAS", {"TARGET": "Q1"}), "A3": ("QALIAS", {"TARGET": "M"}),
              "Q1": ("QLOCAL", {}), "M": ("QMODEL", {})})
    assert rc(v, "A0") == C.MQRC_UNKNOWN_ALIAS_BASE_Q
    assert rc(v, "A1") == C.MQRC_ALIAS_BASE_Q_TYPE_ERROR       # an alias may not resolve to a local alias
    assert rc(v, "A3") == C.MQRC_ALIAS_BASE_Q_TYPE_ERROR


def test_alias_to_remote_definition_is_output_only():
    v = View({"A": ("QALIAS", {"TARGET": "R"}), "R": ("QREMOTE", {"RNAME": "T", "RQMNAME": "QM2"}),
              "QM2": ("QLOCAL", XQ)})
    r = resolve(v, "A", "", OUT)
    assert (r.kind, r.queue, r.remote_q, r.remote_qm, r.path) == (REMOTE, "QM2", "T", "QM2", ("A", "R", "QM2"))
    assert rc(v, "A", "", C.MQOO_INPUT_SHARED) == C.MQRC_OPTION_NOT_VALID_FOR_TYPE


def test_remote_definition_with_xmitq():
    v = View({"R": ("QREMOTE", {"RNAME": "T", "RQMNAME": "QM2", "XMITQ": "X"}), "X": ("QLOCAL", XQ)})
    r = resolve(v, "R", "", OUT | C.MQOO_INQUIRE)
    assert (r.kind, r.queue, r.resolved_q, r.resolved_qm) == (REMOTE, "X", "T", "QM2")


def test_remote_definition_transmission_queue_named_like_rqmname():
    v = View({"R": ("QREMOTE", {"RNAME": "T", "RQMNAME": "QM2"}), "QM2": ("QLOCAL", XQ)})
    assert resolve(v, "R", "", OUT).queue == "QM2"


def test_remote_definition_falls_back_to_defxmitq():
    v = View({"R": ("QREMOTE", {"RNAME": "T", "RQMNAME": "QM9"}), "DX": ("QLOCAL", XQ)}, defxmitq="DX")
    r = resolve(v, "R", "", OUT)
    assert (r.queue, r.remote_qm) == ("DX", "QM9")


def test_remote_definition_errors():
    v = View({"R1": ("QREMOTE", {"RNAME": "T", "RQMNAME": "QM2", "XMITQ": "NOPE"}),
              "R2": ("QREMOTE", {"RNAME": "T", "RQMNAME": "QM2", "XMITQ": "A"}),
              "R3": ("QREMOTE", {"RNAME": "T", "RQMNAME": "QM2", "XMITQ": "N"}),
              "R4": ("QREMOTE", {"RNAME": "T", "RQMNAME": "QM9"}),
              "QMA": ("QREMOTE", {"RQMNAME": "QM2"}),
              "A": ("QALIAS", {"TARGET": "N"}), "N": ("QLOCAL", {})})
    assert rc(v, "R1") == C.MQRC_UNKNOWN_XMIT_Q
    assert rc(v, "R2") == C.MQRC_XMIT_Q_TYPE_ERROR
    assert rc(v, "R3") == C.MQRC_XMIT_Q_USAGE_ERROR
    assert rc(v, "R4") == C.MQRC_UNKNOWN_REMOTE_Q_MGR        # no xmitq and no DEFXMITQ
    assert rc(v, "QMA") == C.MQRC_REMOTE_Q_NAME_ERROR        # a queue-manager alias opened as a queue


def test_defxmitq_errors():
    v = View({}, defxmitq="NOPE")
    assert rc(v, "T", "QM9") == C.MQRC_UNKNOWN_DEF_XMIT_Q
    v = View({"A": ("QALIAS", {"TARGET": "X"})}, defxmitq="A")
    assert rc(v, "T", "QM9") == C.MQRC_DEF_XMIT_Q_TYPE_ERROR
    v = View({"N": ("QLOCAL", {})}, defxmitq="N")
    assert rc(v, "T", "QM9") == C.MQRC_DEF_XMIT_Q_USAGE_ERROR


def test_remote_definition_to_local_qmgr_reaches_local_queue():
    v = View({"R": ("QREMOTE", {"RNAME": "Q1", "RQMNAME": "QM1"}), "Q1": ("QLOCAL", {}),
              "R2": ("QREMOTE", {"RNAME": "R", "RQMNAME": "QM1"})})
    r = resolve(v, "R", "", OUT)
    assert (r.kind, r.queue, r.path) == (LOCAL, "Q1", ("R", "Q1"))
    assert rc(v, "R2") == C.MQRC_UNKNOWN_OBJECT_NAME          # must not resolve to a remote queue again


def test_qmgr_alias_in_object_qmgr_name():
    v = View({"QMA": ("QREMOTE", {"RQMNAME": "QM2", "XMITQ": "X"}), "X": ("QLOCAL", XQ),
              "QMB": ("QREMOTE", {"RQMNAME": "QM3"}), "QM3": ("QLOCAL", XQ)})
    r = resolve(v, "T", "QMA", OUT)
    assert (r.queue, r.remote_q, r.remote_qm, r.path) == ("X", "T", "QM2", ("QMA", "X"))
    r = resolve(v, "T", "QMB", OUT)
    assert (r.queue, r.remote_qm) == ("QM3", "QM3")


def test_qmgr_alias_to_local_qmgr():
    v = View({"ME": ("QREMOTE", {"RQMNAME": "QM1"}), "Q1": ("QLOCAL", {})})
    r = resolve(v, "Q1", "ME", OUT)
    assert (r.kind, r.queue, r.path) == (LOCAL, "Q1", ("ME", "Q1"))
    assert rc(v, "Q1", "ME", C.MQOO_INPUT_SHARED) == C.MQRC_OPTION_NOT_VALID_FOR_TYPE


def test_object_qmgr_name_is_a_local_transmission_queue():
    v = View({"QM2": ("QLOCAL", XQ), "N": ("QLOCAL", {})})
    r = resolve(v, "T", "QM2", OUT)
    assert (r.kind, r.queue, r.resolved_q, r.resolved_qm) == (REMOTE, "QM2", "T", "QM2")
    assert rc(v, "T", "N") == C.MQRC_XMIT_Q_USAGE_ERROR


def test_unknown_remote_qmgr():
    v = View({})
    assert rc(v, "T", "QM9") == C.MQRC_UNKNOWN_REMOTE_Q_MGR


def test_input_browse_set_inquire_on_remote_qmgr_need_local():
    v = View({"QM2": ("QLOCAL", XQ)})
    for opt in (C.MQOO_INPUT_SHARED, C.MQOO_BROWSE, C.MQOO_SET, C.MQOO_INQUIRE):
        assert rc(v, "T", "QM2", opt) == C.MQRC_OPTION_NOT_VALID_FOR_TYPE


def test_unknown_object():
    assert rc(View({}), "NOPE") == C.MQRC_UNKNOWN_OBJECT_NAME


# --- the cluster rows of seed 004 ------------------------------------------------------------------
SCTQ = "SYSTEM.CLUSTER.TRANSMIT.QUEUE"
CL = {"CLUSTER": "SALES"}


def test_clustered_local_queue_blank_qmgr_goes_to_the_workload_algorithm():
    v = View({"Q1": ("QLOCAL", CL)}, cluster_queues={"Q1"})
    r = resolve(v, "Q1", "", OUT)
    assert (r.kind, r.queue, r.resolved_q, r.path) == (CLUSTER, "Q1", "Q1", ("Q1",))
    # Input, browse and set use the local instance; with no other instance the local queue is plain.
    assert resolve(v, "Q1", "", C.MQOO_INPUT_SHARED).kind == LOCAL
    assert resolve(View({"Q1": ("QLOCAL", CL)}), "Q1", "", OUT).kind == LOCAL


def test_clustered_local_queue_local_qmgr_named_uses_the_local_queue():
    v = View({"Q1": ("QLOCAL", {"CLUSNL": "NL"})}, cluster_queues={"Q1"})
    r = resolve(v, "Q1", "QM1", OUT)
    assert (r.kind, r.queue, r.resolved_qm) == (LOCAL, "Q1", "QM1")


def test_no_local_object_cluster_queue_found_or_not():
    v = View({}, cluster_queues={"CQ"})
    r = resolve(v, "CQ", "", OUT | C.MQOO_INQUIRE)
    assert (r.kind, r.resolved_q, r.path) == (CLUSTER, "CQ", ())
    for opt in (C.MQOO_INPUT_SHARED, C.MQOO_BROWSE, C.MQOO_SET):
        assert rc(v, "CQ", "", opt) == C.MQRC_UNKNOWN_OBJECT_NAME    # needs a local instance
    assert rc(v, "CQ", "QM1") == C.MQRC_UNKNOWN_OBJECT_NAME           # local qmgr named: not the cluster's
    assert rc(v, "OTHER") == C.MQRC_UNKNOWN_OBJECT_NAME


def test_alias_to_a_cluster_queue_elsewhere_only_with_blank_qmgr():
    v = View({"A": ("QALIAS", {"TARGET": "CQ"}), "CA": ("QALIAS", {"TARGET": "CQ", **CL})},
             cluster_queues={"CQ"})
    for name in ("A", "CA"):
        r = resolve(v, name, "", OUT)
        assert (r.kind, r.resolved_q, r.path) == (CLUSTER, "CQ", (name,))
        # ObjectQMgrName = the local queue manager: the alias must not resolve to a cluster queue
        # that is not locally defined.
        assert rc(v, name, "QM1") == C.MQRC_UNKNOWN_ALIAS_BASE_Q


def test_alias_to_a_clustered_alias_hosted_elsewhere():
    # CQA is an alias advertised by another queue manager: a remote cluster alias is allowed as base.
    v = View({"A": ("QALIAS", {"TARGET": "CQA"}), "LA": ("QALIAS", {"TARGET": "Q1"}),
              "B": ("QALIAS", {"TARGET": "LA"}), "Q1": ("QLOCAL", {})}, cluster_queues={"CQA", "LA"})
    assert resolve(v, "A", "", OUT).kind == CLUSTER
    # A locally defined alias is never a base, even when other queue managers advertise that name.
    assert rc(v, "B") == C.MQRC_ALIAS_BASE_Q_TYPE_ERROR


def test_clustered_alias_named_like_its_base():
    v = View({"Q1": ("QALIAS", {"TARGET": "Q1", **CL})}, cluster_queues={"Q1"})
    r = resolve(v, "Q1", "", OUT)
    assert (r.kind, r.resolved_q, r.path) == (CLUSTER, "Q1", ("Q1",))
    # With the local queue manager named it cannot resolve to the cluster queue of the same name.
    assert rc(v, "Q1", "QM1") == C.MQRC_UNKNOWN_ALIAS_BASE_Q
    assert rc(View({"Q1": ("QALIAS", {"TARGET": "Q1", **CL})}), "Q1") == C.MQRC_UNKNOWN_ALIAS_BASE_Q


def test_remote_definition_to_the_local_qmgr_does_not_use_the_cluster():
    v = View({"R": ("QREMOTE", {"RNAME": "CQ", "RQMNAME": "QM1"})}, cluster_queues={"CQ"})
    assert rc(v, "R") == C.MQRC_UNKNOWN_OBJECT_NAME


def test_cluster_qmgr_ahead_of_defxmitq_whatever_its_cluster():
    v = View({"DX": ("QLOCAL", XQ), "R": ("QREMOTE", {"RNAME": "B", "RQMNAME": "QMX"})}, defxmitq="DX",
             cluster_qmgrs={"QMX": "TO.QMX"})
    r = resolve(v, "T", "QMX", OUT)
    assert (r.kind, r.queue, r.remote_q, r.remote_qm, r.channel) == (REMOTE, SCTQ, "T", "QMX", "TO.QMX")
    r = resolve(v, "R", "", OUT)                      # seed 000: DEFINE QREMOTE(A) RNAME(B) RQMNAME(QMX)
    assert (r.queue, r.remote_q, r.remote_qm, r.path) == (SCTQ, "B", "QMX", ("R", SCTQ))
    assert resolve(v, "T", "QM9", OUT).queue == "DX"  # no cluster objects found: DEFXMITQ


def test_local_definitions_win_over_cluster_queue_managers():
    # A transmission queue or a queue-manager alias named like a cluster queue manager is used first.
    v = View({"QMX": ("QLOCAL", XQ), "QMY": ("QREMOTE", {"RQMNAME": "QMX"})}, cluster_qmgrs={"QMX": "TO.QMX"})
    assert resolve(v, "T", "QMX", OUT).queue == "QMX"
    r = resolve(v, "T", "QMY", OUT)
    assert (r.queue, r.remote_qm, r.path) == ("QMX", "QMX", ("QMY", "QMX"))
    v = View({"QMY": ("QREMOTE", {"RQMNAME": "QMX"})}, cluster_qmgrs={"QMX": "TO.QMX"})
    r = resolve(v, "T", "QMY", OUT)                    # a local qmgr alias to a cluster queue manager
    assert (r.queue, r.remote_qm, r.channel) == (SCTQ, "QMX", "TO.QMX")


def test_clustered_qmgr_alias_found():
    v = View({}, cluster_aliases={"GW"})
    r = resolve(v, "T", "GW", OUT)
    assert (r.kind, r.resolved_q, r.remote_q, r.remote_qm) == (CLUSTER, "T", "T", "GW")
    assert rc(v, "T", "GW", C.MQOO_INQUIRE) == C.MQRC_OPTION_NOT_VALID_FOR_TYPE


# --- queue-sharing groups (seed 004's QSG note and rows, seed 002) ----------------------------------
SHARED_Q = {"QSGDISP": C.MQQSGD_SHARED, "CFSTRUCT": "APP1"}
QSG_XQ = {"QSGDISP": C.MQQSGD_SHARED, "CFSTRUCT": "CSQSYSAPPL", "USAGE": C.MQUS_TRANSMISSION}


def qsg_view(igq: bool = False, sqqmname: int = C.MQSQQM_USE, **defs: tuple[str, dict[str, Any]]) -> View:
    v = View({"SQ": ("QLOCAL", SHARED_Q), "LQ": ("QLOCAL", {}),
              "SYSTEM.QSG.TRANSMIT.QUEUE": ("QLOCAL", QSG_XQ), **defs})
    v.attrs.update(QSGNAME="QSG1", IGQ=C.MQIGQ_ENABLED if igq else C.MQIGQ_DISABLED, SQQMNAME=sqqmname)
    v.members = {"QM2", "QM3"}
    return v


def test_shared_queue_by_blank_local_or_group_name_resolves_to_the_group():
    v = qsg_view()
    for qm in ("", "QM1", "QSG1"):
        r = resolve(v, "SQ", qm, OUT | C.MQOO_INPUT_SHARED)
        assert (r.kind, r.queue, r.resolved_qm) == (LOCAL, "SQ", "QSG1")
    # The group name stands for the local queue manager for a private queue too.
    assert resolve(v, "LQ", "QSG1", OUT).resolved_qm == "QM1"


def test_igq_to_another_member_ahead_of_every_other_transmission_queue():
    v = qsg_view(igq=True, QM2=("QLOCAL", XQ), XQ=("QLOCAL", XQ),
                 R=("QREMOTE", {"RNAME": "LQ", "RQMNAME": "QM2", "XMITQ": "XQ"}),
                 ALIAS=("QREMOTE", {"RNAME": "", "RQMNAME": "QM3", "XMITQ": "XQ"}))
    for name, qm, target in (("LQ", "QM2", "QM2"), ("R", "", "QM2"), ("LQ", "ALIAS", "QM3")):
        r = resolve(v, name, qm, OUT)
        assert (r.kind, r.queue, r.remote_q, r.remote_qm) == (REMOTE, "SYSTEM.QSG.TRANSMIT.QUEUE", "LQ", target)
    # Not a member: the usual transmission queue.
    v.attrs["DEFXMITQ"] = "XQ"
    assert resolve(v, "LQ", "QM9", OUT).queue == "XQ"


def test_igq_disabled_member_without_route_is_2087():
    v = qsg_view(igq=False)
    assert rc(v, "LQ", "QM2") == C.MQRC_UNKNOWN_REMOTE_Q_MGR
    v.defs.pop("SYSTEM.QSG.TRANSMIT.QUEUE")
    v.attrs["IGQ"] = C.MQIGQ_ENABLED                 # enabled but the shared transmission queue is missing
    assert rc(v, "LQ", "QM2") == C.MQRC_UNKNOWN_REMOTE_Q_MGR
    v.defs["QM2"] = MQObject("QLOCAL", "QM2", {**TABLE.defaults("QLOCAL"), **XQ})
    assert resolve(v, "LQ", "QM2", OUT).queue == "QM2"  # another route exists: the channel's


def test_sqqmname_ignore_opens_another_members_shared_queue_here():
    use = resolve(qsg_view(igq=True), "SQ", "QM2", OUT)
    assert (use.kind, use.queue, use.resolved_qm) == (REMOTE, "SYSTEM.QSG.TRANSMIT.QUEUE", "QM2")
    ign = resolve(qsg_view(igq=True, sqqmname=C.MQSQQM_IGNORE), "SQ", "QM2", OUT)
    assert (ign.kind, ign.queue, ign.resolved_qm) == (LOCAL, "SQ", "QSG1")
    # IGNORE concerns shared queues only: a private queue name still goes to QM2.
    assert resolve(qsg_view(igq=True, sqqmname=C.MQSQQM_IGNORE), "LQ", "QM2", OUT).kind == REMOTE
