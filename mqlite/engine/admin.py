"""Administration of definitions: DEFINE, ALTER, DELETE, CLEAR.

Both MQSC and PCF go through these functions with attribute values already converted by the
attribute table, so the rules (LIKE, REPLACE, defaults from the SYSTEM.DEFAULT objects, objects in
use or not empty) are written once.  Failures raise AdminError with a code the callers turn into an
AMQ message or an MQRCCF reason.
"""
from __future__ import annotations

from typing import Any

from mqlite.cmq import CMQC, CMQCFC
from mqlite.engine.qmgr import QueueManager
from mqlite.objects.attrs import QUEUE_KINDS, TABLE
from mqlite.objects.model import DEFAULT_OBJECT, QMGR, MQObject, namespace
from mqlite.objects.names import valid_name

NOT_FOUND, EXISTS, IN_USE, NOT_EMPTY, WRONG_TYPE, BAD_NAME, CONFLICT = (
    "NOT_FOUND", "EXISTS", "IN_USE", "NOT_EMPTY", "WRONG_TYPE", "BAD_NAME", "CONFLICT")
RUNTIME = ("CRDATE", "CRTIME", "ALTDATE", "ALTTIME", "CURDEPTH", "IPPROCS", "OPPROCS", "NAMCOUNT")


class AdminError(Exception):
    """``code`` says what kind of failure; ``reason``, where MQ has a specific MQRCCF code for it."""

    def __init__(self, code: str, name: str = "", detail: str = "", reason: int = 0) -> None:
        super().__init__(f"{code} {name} {detail}".strip())
        self.code = code
        self.name = name
        self.detail = detail
        self.reason = reason


SCTQ = "SYSTEM.CLUSTER.TRANSMIT.QUEUE"


def _check(kind: str, attrs: dict[str, Any], name: str) -> None:
    if attrs.get("CLUSTER") and attrs.get("CLUSNL"):
        raise AdminError(CONFLICT, name, "CLUSTER and CLUSNL cannot both be set.",
                         CMQCFC.MQRCCF_CLUSTER_NAME_CONFLICT)
    if kind == QMGR:
        if attrs.get("REPOS") and attrs.get("REPOSNL"):
            raise AdminError(CONFLICT, name, "REPOS and REPOSNL cannot both be set.",
                             CMQCFC.MQRCCF_REPOS_NAME_CONFLICT)
        if attrs.get("DEFXMITQ") == SCTQ:
            raise AdminError(CONFLICT, name, f"{SCTQ} is for clustering only and cannot be the DEFXMITQ.",
                             CMQCFC.MQRCCF_DEF_XMIT_Q_CLUS_ERROR)
    if attrs.get("CLCHNAME") and attrs.get("USAGE") != CMQC.MQUS_TRANSMISSION:
        raise AdminError(CONFLICT, name, "CLCHNAME can be set only on a transmission queue, USAGE(XMITQ).",
                         CMQCFC.MQRCCF_CLUS_XMIT_Q_USAGE_ERROR)
    if kind == "QREMOTE" and attrs.get("XMITQ") and attrs["XMITQ"] == name:
        raise AdminError(CONFLICT, name, "XMITQ cannot name the remote queue definition itself.")
    if kind == "NAMELIST":
        attrs["NAMCOUNT"] = len(attrs.get("NAMES", []))


def define(qm: QueueManager, kind: str, name: str, values: dict[str, Any],
           like: str | None = None, replace: bool = False) -> MQObject:
    ns = namespace(kind)
    # A manual CLUSSDR may name its full repository by the +QMNAME+ construction (not on z/OS):
    # the name the full repository's CLUSRCVR turns out to have replaces it after connection.
    plain = name.replace("+QMNAME+", "Q", 1) if kind == "CLUSSDR" else name
    if not valid_name(plain, ns) or len(name) > 20 and ns == "CHANNEL":
        raise AdminError(BAD_NAME, name)
    existing = qm.lookup(ns, name)
    if existing is not None and (not replace or existing.kind != kind):
        raise AdminError(EXISTS, name)
    if like is not None:
        base = qm.lookup(ns, like)
        if base is None:
            raise AdminError(NOT_FOUND, like)
        if base.kind != kind:
            raise AdminError(WRONG_TYPE, like)
    else:
        base = qm.lookup(ns, DEFAULT_OBJECT.get(kind, ""))
    attrs = TABLE.defaults(kind)
    if base is not None:
        attrs.update({k: (list(v) if isinstance(v, list) else v) for k, v in base.attrs.items()
                      if k in attrs and k not in RUNTIME})
    if kind in ("QLOCAL",) and attrs.get("DEFTYPE") != CMQC.MQQDT_PREDEFINED:
        attrs["DEFTYPE"] = CMQC.MQQDT_PREDEFINED
    if existing is not None:
        attrs.update({k: v for k, v in existing.attrs.items() if k in ("CRDATE", "CRTIME")})
    attrs.update(values)
    _check(kind, attrs, name)
    obj = MQObject(kind, name, attrs)
    if existing is not None:
        qm.replace_object(obj)
    else:
        qm.add_object(obj)
    return obj


def alter(qm: QueueManager, kind: str, name: str, values: dict[str, Any]) -> MQObject:
    if kind == QMGR:
        new = qm.qmgr.copy()
        new.attrs.update(values)
        _check(kind, new.attrs, qm.name)
        qm.replace_object(new)
        return new
    existing = qm.lookup(namespace(kind), name)
    if existing is None:
        raise AdminError(NOT_FOUND, name)
    if existing.kind != kind:
        raise AdminError(WRONG_TYPE, name)
    new = existing.copy()
    new.attrs.update(values)
    _check(kind, new.attrs, name)
    if kind == "QLOCAL" and existing["USAGE"] != new["USAGE"] and qm.queues[name].depth:
        raise AdminError(NOT_EMPTY, name, "USAGE cannot change while the queue holds messages.")
    qm.replace_object(new)
    return new


def delete(qm: QueueManager, kind: str, name: str, purge: bool = False) -> None:
    ns = namespace(kind)
    existing = qm.lookup(ns, name)
    if existing is None:
        raise AdminError(NOT_FOUND, name)
    if kind in QUEUE_KINDS and existing.kind != kind:
        raise AdminError(WRONG_TYPE, name)
    if ns == "CHANNEL" and kind in TABLE.by_kind and existing.kind != kind and kind != "CHANNEL":
        raise AdminError(WRONG_TYPE, name)
    if ns == "QUEUE" and qm.in_use(name):
        raise AdminError(IN_USE, name)
    if existing.kind == "QLOCAL" and qm.queues[name].depth and not purge:
        raise AdminError(NOT_EMPTY, name)
    qm.remove_object(existing)


def clear(qm: QueueManager, name: str) -> int:
    existing = qm.queue(name)
    if existing is None:
        raise AdminError(NOT_FOUND, name)
    if existing.kind != "QLOCAL":
        raise AdminError(WRONG_TYPE, name)
    if qm.in_use(name):
        raise AdminError(IN_USE, name)
    return qm.clear_queue(name)


def display_values(qm: QueueManager, obj: MQObject) -> dict[str, Any]:
    """An object's attributes with the runtime ones (CURDEPTH, IPPROCS, ...) filled in."""
    values = dict(obj.attrs)
    qs = qm.queues.get(obj.name) if obj.kind == "QLOCAL" else None
    if qs is not None:
        values["CURDEPTH"] = qs.depth
        values["IPPROCS"] = qs.input_shared + qs.input_exclusive
        values["OPPROCS"] = qs.output
    return values
