"""Administration of definitions: DEFINE, ALTER, DELETE, CLEAR.

Both MQSC and PCF go through these functions with attribute values already converted by the
attribute table, so the rules (LIKE, REPLACE, defaults from the SYSTEM.DEFAULT objects, objects in
use or not empty) are written once.  Failures raise AdminError with a code the callers turn into an
AMQ message or an MQRCCF reason.
"""
from __future__ import annotations

from typing import Any

from mqlite.cmq import CMQC, CMQCFC
from mqlite.engine.events import definition_values
from mqlite.engine.qmgr import QueueManager
from mqlite.objects.attrs import QUEUE_KINDS, TABLE
from mqlite.objects.model import DEFAULT_OBJECT, QMGR, MQObject, namespace
from mqlite.objects.names import valid_name

NOT_FOUND, EXISTS, IN_USE, NOT_EMPTY, WRONG_TYPE, BAD_NAME, CONFLICT = (
    "NOT_FOUND", "EXISTS", "IN_USE", "NOT_EMPTY", "WRONG_TYPE", "BAD_NAME", "CONFLICT")
RUNTIME = ("CRDATE", "CRTIME", "ALTDATE", "ALTTIME", "CURDEPTH", "IPPROCS", "OPPROCS", "NAMCOUNT", "QSGDISP")
# QSGDISP as MQSC spells it, and its MQQSGD value.
DISPS = {"QMGR": CMQC.MQQSGD_Q_MGR, "COPY": CMQC.MQQSGD_COPY, "SHARED": CMQC.MQQSGD_SHARED,
         "GROUP": CMQC.MQQSGD_GROUP}


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


def _disp_of(obj: MQObject) -> int:
    return obj.attrs.get("QSGDISP", CMQC.MQQSGD_Q_MGR)  # type: ignore[no-any-return]


def _check_disp(qm: QueueManager, kind: str, name: str, disp: int) -> None:
    if disp == CMQC.MQQSGD_Q_MGR:
        return
    if qm.shared is None:
        raise AdminError(CONFLICT, name, f"{qm.name} is not a member of a queue-sharing group.",
                         CMQCFC.MQRCCF_Q_MGR_NOT_IN_QSG)
    if kind not in QUEUE_KINDS:
        raise AdminError(CONFLICT, name, "QSGDISP other than QMGR is supported for queues only.")
    if disp == CMQC.MQQSGD_SHARED and kind != "QLOCAL":
        raise AdminError(CONFLICT, name, "QSGDISP(SHARED) is valid for local queues only.")


def define(qm: QueueManager, kind: str, name: str, values: dict[str, Any],
           like: str | None = None, replace: bool = False, disp: int = CMQC.MQQSGD_Q_MGR) -> MQObject:
    """DEFINE with a disposition: QMGR (this queue manager's store), SHARED (a shared queue in the
    group's store), GROUP (a group definition, with a COPY made here and on every member) or COPY
    (a local copy of an existing group definition)."""
    _check_disp(qm, kind, name, disp)
    if disp == CMQC.MQQSGD_GROUP:
        return _define_group(qm, kind, name, values, like, replace)
    if disp == CMQC.MQQSGD_COPY:
        group = qm.group_objects.get((namespace(kind), name))
        if group is None or group.kind != kind:
            raise AdminError(NOT_FOUND, name, "QSGDISP(COPY) needs a QSGDISP(GROUP) definition of that name.")
        values = {k: v for k, v in group.attrs.items() if k not in RUNTIME}
    return _define(qm, kind, name, values, like, replace, disp)


def _define(qm: QueueManager, kind: str, name: str, values: dict[str, Any],
            like: str | None, replace: bool, disp: int) -> MQObject:
    ns = namespace(kind)
    # A manual CLUSSDR may name its full repository by the +QMNAME+ construction (not on z/OS):
    # the name the full repository's CLUSRCVR turns out to have replaces it after connection.
    plain = name.replace("+QMNAME+", "Q", 1) if kind == "CLUSSDR" else name
    if not valid_name(plain, ns) or len(name) > 20 and ns == "CHANNEL":
        raise AdminError(BAD_NAME, name)
    existing = qm.lookup(ns, name)
    if existing is not None and (not replace or existing.kind != kind or _disp_of(existing) != disp):
        raise AdminError(EXISTS, name)
    attrs = _attributes(qm, kind, values, qm.lookup(ns, like) if like is not None else None, like, existing)
    if kind == "QLOCAL" and "DEFTYPE" not in values:
        attrs["DEFTYPE"] = CMQC.MQQDT_PREDEFINED     # not a model's DEFTYPE from LIKE or the default
    attrs["QSGDISP"] = disp
    _check(kind, attrs, name)
    obj = MQObject(kind, name, attrs)
    if disp == CMQC.MQQSGD_SHARED:
        if not attrs.get("CFSTRUCT"):
            raise AdminError(CONFLICT, name, "QSGDISP(SHARED) needs a CFSTRUCT name.",
                             CMQCFC.MQRCCF_CF_STRUC_ERROR)
        if existing is None:
            # Another member may have defined it a moment ago: the store decides.
            created = qm.shared_call(qm.group.put_object, ns, name, "SHARED",
                                      obj.to_record(), True)
            if not created:
                raise AdminError(EXISTS, name)
    before = qm.events.before(existing)
    if existing is not None:
        qm.replace_object(obj)
    else:
        qm.add_object(obj)
    # DEFINE REPLACE of an existing definition is a change, as MQ reports it.
    qm.events.configured(CMQC.MQRC_CONFIG_CHANGE_OBJECT if existing else CMQC.MQRC_CONFIG_CREATE_OBJECT, obj, before)
    return obj


def _attributes(qm: QueueManager, kind: str, values: dict[str, Any], liked: MQObject | None, like: str | None,
                existing: MQObject | None) -> dict[str, Any]:
    """A new definition's attributes: the table's defaults, then the LIKE object's (or the system
    default object's), the creation date of a definition being replaced, then the values given."""
    if like is not None:
        if liked is None:
            raise AdminError(NOT_FOUND, like)
        if liked.kind != kind:
            raise AdminError(WRONG_TYPE, like)
        base: MQObject | None = liked
    else:
        default = DEFAULT_OBJECT.get(kind, "")
        if kind == "AUTHINFO":   # each AUTHTYPE has its default object
            word = TABLE.attrs(kind)["AUTHTYPE"].word(values.get("AUTHTYPE", CMQC.MQAIT_IDPW_OS))
            default = f"SYSTEM.DEFAULT.AUTHINFO.{word}"
        base = qm.lookup(namespace(kind), default)
    attrs = TABLE.defaults(kind)
    if base is not None:
        attrs.update({k: (list(v) if isinstance(v, list) else v) for k, v in base.attrs.items()
                      if k in attrs and k not in RUNTIME})
    if existing is not None:
        attrs.update({k: v for k, v in existing.attrs.items() if k in ("CRDATE", "CRTIME")})
    attrs.update(values)
    return attrs


def _define_group(qm: QueueManager, kind: str, name: str, values: dict[str, Any],
                  like: str | None, replace: bool) -> MQObject:
    ns = namespace(kind)
    if not valid_name(name, ns):
        raise AdminError(BAD_NAME, name)
    existing = qm.group_objects.get((ns, name))
    if existing is not None and (not replace or existing.kind != kind):
        raise AdminError(EXISTS, name)
    liked = (qm.group_objects.get((ns, like)) or qm.lookup(ns, like)) if like is not None else None
    attrs = _attributes(qm, kind, values, liked, like, existing)
    attrs["QSGDISP"] = CMQC.MQQSGD_GROUP
    _check(kind, attrs, name)
    obj = MQObject(kind, name, attrs)
    qm.stamp_definition(obj, created=existing is None)
    if not qm.shared_call(qm.group.put_object, ns, name, "GROUP", obj.to_record(),
                           existing is None):
        raise AdminError(EXISTS, name)
    qm.group_objects[(ns, name)] = obj
    make_copy(qm, obj)
    return obj


def make_copy(qm: QueueManager, group: MQObject) -> bool:
    """This member's QSGDISP(COPY) of a group definition (made or brought up to date); False when
    a definition of another disposition holds the name here."""
    ns = group.objtype
    local = qm.lookup(ns, group.name)
    copy = group.copy()
    copy.attrs["QSGDISP"] = CMQC.MQQSGD_COPY
    if local is None:
        qm.add_object(copy)
        return True
    if _disp_of(local) != CMQC.MQQSGD_COPY:
        return False
    same = {k: v for k, v in local.attrs.items() if k not in RUNTIME} == {
        k: v for k, v in copy.attrs.items() if k not in RUNTIME}
    if not same or local.kind != copy.kind:
        if local.kind != copy.kind:
            if qm.in_use(group.name):
                return False
            qm.remove_object(local)
            qm.add_object(copy)
        else:
            for k in ("CRDATE", "CRTIME"):
                copy.attrs[k] = local.attrs.get(k, copy.attrs.get(k))
            qm.replace_object(copy)
    return True


def _find(qm: QueueManager, kind: str, name: str, disp: int) -> MQObject:
    """The object an ALTER, DELETE or CLEAR with this QSGDISP means (MQ: a definition of another
    disposition is not found)."""
    ns = namespace(kind)
    if disp == CMQC.MQQSGD_GROUP:
        existing = qm.group_objects.get((ns, name))
    else:
        existing = qm.lookup(ns, name)
        if existing is not None and _disp_of(existing) != disp:
            existing = None
    if existing is None:
        raise AdminError(NOT_FOUND, name)
    return existing


def alter(qm: QueueManager, kind: str, name: str, values: dict[str, Any],
          disp: int = CMQC.MQQSGD_Q_MGR) -> MQObject:
    if kind == QMGR:
        old = qm.qmgr
        new = old.copy()
        new.attrs.update(values)
        _check(kind, new.attrs, qm.name)
        before = qm.events.before(old)
        qm.replace_object(new)
        qm.events.configured(CMQC.MQRC_CONFIG_CHANGE_OBJECT, new, before)
        return new
    existing = _find(qm, kind, name, disp)
    if existing.kind != kind:
        raise AdminError(WRONG_TYPE, name)
    new = existing.copy()
    new.attrs.update(values)
    _check(kind, new.attrs, name)
    if disp == CMQC.MQQSGD_GROUP:
        qm.stamp_definition(new, created=False)
        qm.shared_call(qm.group.put_object, new.objtype, name, "GROUP", new.to_record(), False)
        qm.group_objects[(new.objtype, name)] = new
        make_copy(qm, new)
        return new
    if disp == CMQC.MQQSGD_SHARED and not new["CFSTRUCT"]:
        raise AdminError(CONFLICT, name, "QSGDISP(SHARED) needs a CFSTRUCT name.", CMQCFC.MQRCCF_CF_STRUC_ERROR)
    if kind == "QLOCAL" and existing["USAGE"] != new["USAGE"] and qm.queues[name].depth:
        raise AdminError(NOT_EMPTY, name, "USAGE cannot change while the queue holds messages.")
    before = qm.events.before(existing)
    qm.replace_object(new)
    qm.events.configured(CMQC.MQRC_CONFIG_CHANGE_OBJECT, new, before)
    return new


def delete(qm: QueueManager, kind: str, name: str, purge: bool = False,
           disp: int = CMQC.MQQSGD_Q_MGR) -> None:
    ns = namespace(kind)
    existing = _find(qm, kind, name, disp)
    if kind in QUEUE_KINDS and existing.kind != kind:
        raise AdminError(WRONG_TYPE, name)
    if ns == "CHANNEL" and kind in TABLE.by_kind and existing.kind != kind and kind != "CHANNEL":
        raise AdminError(WRONG_TYPE, name)
    if disp == CMQC.MQQSGD_GROUP:
        # The group definition goes; this member's copy with it (the others' when they notice).
        qm.shared_call(qm.group.delete_object, ns, name, "GROUP", False)
        qm.group_objects.pop((ns, name), None)
        local = qm.lookup(ns, name)
        if local is not None and _disp_of(local) == CMQC.MQQSGD_COPY and not qm.in_use(name):
            qm.remove_object(local)
        return
    if ns == "QUEUE" and qm.in_use(name):
        raise AdminError(IN_USE, name)
    if existing.kind == "QLOCAL" and qm.queues[name].depth and not purge:
        raise AdminError(NOT_EMPTY, name)
    qm.remove_object(existing)
    qm.events.configured(CMQC.MQRC_CONFIG_DELETE_OBJECT, existing)


def clear(qm: QueueManager, name: str, disp: int = CMQC.MQQSGD_Q_MGR) -> int:
    existing = _find(qm, "QLOCAL", name, disp) if disp != CMQC.MQQSGD_GROUP else None
    if existing is None:
        raise AdminError(NOT_FOUND, name)
    if existing.kind != "QLOCAL":
        raise AdminError(WRONG_TYPE, name)
    if qm.in_use(name):
        raise AdminError(IN_USE, name)
    return qm.clear_queue(name)


def display_values(qm: QueueManager, obj: MQObject) -> dict[str, Any]:
    """An object's attributes with the runtime ones (CURDEPTH, IPPROCS, ...) filled in; a message
    channel's RESETSEQ: the sequence number a RESET CHANNEL made while it was not running sends at
    its next start (0, shown NO, when none is pending)."""
    values = definition_values(qm.queues, obj)
    if obj.objtype == "CHANNEL" and "RESETSEQ" in TABLE.attrs(obj.kind):
        rec = qm.uow.record(obj.name)
        values["RESETSEQ"] = int(rec.get("seq", 0)) + 1 if rec.get("reset") else 0
    return values
