"""MQINQ and MQSET: ``Inquiry``, the queue manager's ``qm.inquiry``, over ``InquiryHost``; the
queue manager's ``inquire`` and ``set`` call it."""
from __future__ import annotations

from typing import Any, Protocol

from mqlite.cluster.state import ClusterState
from mqlite.cmq import CMQCFC as F
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import pad, text
from mqlite.engine.core import C, Conn, Handle
from mqlite.engine.events import Events, Issuer
from mqlite.engine.ports import Journal
from mqlite.engine.queue import QueueState
from mqlite.objects.attrs import QTYPE_VALUES, QUEUE_KINDS, TABLE
from mqlite.objects.model import QMGR, MQObject


class InquiryHost(Protocol):
    """What MQINQ and MQSET need of the queue manager."""
    name: str
    qmgr: MQObject
    objects: dict[str, dict[str, MQObject]]
    queues: dict[str, QueueState]
    cluster: ClusterState
    store: Journal
    events: Events

    def handle(self, conn: Conn, hobj: int) -> Handle: ...

    def queue(self, name: str) -> MQObject | None: ...

    def replace_object(self, obj: MQObject) -> None: ...


class Inquiry:
    def __init__(self, qm: InquiryHost) -> None:
        self.qm = qm

    def inquire(self, conn: Conn, hobj: int, selectors: list[int]) -> list[int | bytes]:
        return self.inquire_reason(conn, hobj, selectors)[0]

    def inquire_reason(self, conn: Conn, hobj: int, selectors: list[int]) -> tuple[list[int | bytes], int]:
        """MQINQ: the values and the reason: MQRC_NONE, or MQRC_SELECTOR_NOT_FOR_TYPE (a warning)
        when a selector of a queue belongs to another type of queue; its value is then
        MQIAV_NOT_APPLICABLE, or asterisks for a character attribute, as MQ returns them."""
        h = self.qm.handle(conn, hobj)
        if not h.options & C.MQOO_INQUIRE:
            raise MQIError(C.MQRC_NOT_OPEN_FOR_INQUIRE)
        if h.stats is not None:
            h.stats.inquired()
        obj = self._handle_object(h)
        out: list[int | bytes] = []
        reason = C.MQRC_NONE
        for sel in selectors:
            if obj.kind in QUEUE_KINDS and TABLE.by_selector(obj.kind, sel) is None:
                other = _other_queue_attr(obj.kind, sel)
                if other is not None:
                    reason = C.MQRC_SELECTOR_NOT_FOR_TYPE
                    out.append(b"*" * (other.length or 48) if C.MQCA_FIRST <= sel <= C.MQCA_LAST
                               else C.MQIAV_NOT_APPLICABLE)
                    continue
            out.append(self._inq_one(h, obj, sel))
        return out, reason

    def _inq_one(self, h: Handle, obj: MQObject, sel: int) -> int | bytes:
        if obj.kind == QMGR:
            if sel == C.MQCA_Q_MGR_NAME:
                return pad(self.qm.name, 48)
        else:
            if sel in (C.MQCA_Q_NAME, C.MQCA_NAMELIST_NAME):
                return pad(obj.name, 48)
            if sel == C.MQIA_Q_TYPE and h.cluster_name and h.obj is None:
                return C.MQQT_CLUSTER
            if sel == C.MQIA_Q_TYPE and obj.kind in QTYPE_VALUES:
                return QTYPE_VALUES[obj.kind]
            qs = self.qm.queues.get(obj.name) if obj.kind == "QLOCAL" else None
            if qs is not None:
                if sel == C.MQIA_CURRENT_Q_DEPTH:
                    return qs.depth
                if sel == C.MQIA_OPEN_INPUT_COUNT:
                    return qs.input_shared + qs.input_exclusive
                if sel == C.MQIA_OPEN_OUTPUT_COUNT:
                    return qs.output
        attr = TABLE.by_selector(obj.kind, sel)
        if attr is None:
            raise MQIError(C.MQRC_SELECTOR_ERROR)
        value = obj.attrs[attr.name]
        if attr.kind == "list":
            return b"".join(pad(v, 48) for v in value)
        if isinstance(value, str):
            length = attr.length or {"CRDATE": 12, "ALTDATE": 12, "CRTIME": 8, "ALTTIME": 8}.get(attr.name, 48)
            return pad(value, length)
        number: int = value
        return number

    def set(self, conn: Conn, hobj: int, selectors: list[int], values: list[Any]) -> None:
        h = self.qm.handle(conn, hobj)
        if not h.options & C.MQOO_SET:
            raise MQIError(C.MQRC_NOT_OPEN_FOR_SET)
        obj = self._handle_object(h)
        changes = {}
        for sel, value in zip(selectors, values, strict=False):
            attr = TABLE.by_selector(obj.kind, sel)
            if attr is None or not attr.mqset:
                raise MQIError(C.MQRC_SELECTOR_ERROR)
            if attr.kind == "str":
                value = text(value) if isinstance(value, (bytes, str)) else value
                if not isinstance(value, str) or len(value) > attr.length:
                    raise MQIError(C.MQRC_CHAR_ATTR_LENGTH_ERROR)
            elif attr.kind == "enum" and value not in attr.values.values():
                raise MQIError(C.MQRC_INHIBIT_VALUE_ERROR if attr.name in ("PUT", "GET") else C.MQRC_SELECTOR_ERROR)
            elif attr.kind == "int" and not (isinstance(value, int) and attr.lo <= value <= attr.hi):
                raise MQIError(C.MQRC_SELECTOR_ERROR)
            elif attr.kind == "flag":
                if value not in (0, 1):
                    raise MQIError(C.MQRC_SELECTOR_ERROR)
            changes[attr.name] = value
        if h.stats is not None:
            h.stats.altered()
        new = obj.copy()
        new.attrs.update(changes)
        events = self.qm.events
        before = events.before(obj)
        self.qm.replace_object(new)
        with events.issued(Issuer(conn.user, F.MQEVO_MQSET)):
            events.configured(C.MQRC_CONFIG_CHANGE_OBJECT, new, before)
        conn.ticket = self.qm.store.last_ticket

    def _handle_object(self, h: Handle) -> MQObject:
        """The definition a handle refers to, as it is now (MQSET or ALTER may have replaced it)."""
        if h.res is None:
            if h.obj is None:
                return self.qm.qmgr
            current = self.qm.objects["NAMELIST"].get(h.name)
        elif h.obj is None and h.cluster_name:
            return self.qm.cluster.definition(h.cluster_name)
        else:
            current = self.qm.queue(h.res.path[0])
        if current is None:
            raise MQIError(C.MQRC_Q_DELETED)
        return current


def _other_queue_attr(kind: str, sel: int) -> Any:
    """The attribute a queue selector names on another type of queue (MQINQ's warning case)."""
    for other in QUEUE_KINDS:
        if other != kind:
            attr = TABLE.by_selector(other, sel)
            if attr is not None:
                return attr
    return None
