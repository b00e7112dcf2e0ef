"""Name resolution (seed 004) row by row, on the pure function with a tiny view of definitions."""
from __future__ import annotations

from typing import Any

import pytest

from mqlite.cmq import CMQC as C
from mqlite.engine.errors import MQIError
from mqlite.engine.resolve import LOCAL, MODEL, REMOTE, resolve
from mqlite.objects.attrs import TABLE
from mqlite.objects.model import MQObject

OUT = C.MQOO_OUTPUT


class View:
    def __init__(self, defs: dict[str, tuple[str, dict[str, Any]]], defxmitq: str = "",
                 cluster_queues: set[str] | None = None, cluster_qmgrs: dict[str, str] | None = None) -> None:
        self.qmgr_name = "QM1"
        self.cluster_queues = cluster_queues or set()      # names with instances on other queue managers
        self.cluster_qmgrs = cluster_qmgrs or {}           # cluster queue manager -> its CLUSRCVR
        self.defs = {}
        for name, (kind, attrs) in defs.items():
            obj = MQObject(kind, name, TABLE.defaults(kind))
            obj.attrs.update(attrs)
            self.defs[name] = obj
        self.attrs = {"DEFXMITQ": defxmitq}

    def queue(self, name: str):
        return self.defs.get(name)

    def qmgr_attr(self, key: str):
        return self.attrs[key]

    def cluster_queue(self, name: str) -> bool:
        return name in self.cluster_queues

    def cluster_route(self, qmgr: str):
        ch = self.cluster_qmgrs.get(qmgr)
        return None if ch is None else ("SYSTEM.CLUSTER.TRANSMIT.QUEUE", ch)


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
