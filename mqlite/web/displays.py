"""runCommandJSON's DISPLAY commands answered from PCF inquiries, never from MQSC display text
(issue 62: in text, a value a client chose — a DESCR, an APPLTAG, a subscription's user data —
could pose as other fields). A display is the inquiry it stands for (``DISPLAYS``): its request
built from the body (name, the kind of object or status asked for, a WHERE as a PCF filter), each
answer read back as DISPLAY's KEY(value) fields by the table that declares the parameter once for
both forms (the attribute table for definitions, the ``Field`` tables for status). A display this
table does not hold, or with parameters PCF cannot carry, still goes as MQSC (``request`` answers
None)."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mqlite.admin.channels import CHSTATUS_FIELDS
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.engine import applstatus, topicstatus
from mqlite.engine.connections import CONN_FIELDS, HANDLE_FIELDS, QHANDLE_FIELDS
from mqlite.engine.fields import Field
from mqlite.engine.status import QSTATUS_FIELDS
from mqlite.engine.subfields import SBSTATUS_FIELDS, SUB_FIELDS
from mqlite.mqsc.cluster import CLUSQMGR_FIELDS, QCLUSTER_FIELDS
from mqlite.mqsc.display import QSG_ONLY
from mqlite.mqsc.parser import condition
from mqlite.mqsc.status import LSSTATUS_FIELDS, QMSTATUS_FIELDS, SVSTATUS_FIELDS
from mqlite.objects.attrbase import ENUM, FLAG, INT
from mqlite.objects.attrs import CHLTYPE_VALUES, QTYPE_VALUES, TABLE
from mqlite.objects.layout import display_order
from mqlite.objects.names import MQSC_OPS
from mqlite.pymqi.pcf import Filter
from mqlite.web import pcffields as PF

Values = Mapping[int, Any]


@dataclass(frozen=True)
class Display:
    """One kind of DISPLAY as a PCF inquiry."""
    inquiry: int
    name: int                                  # the parameter naming the object (0: none)
    head: tuple[str, ...]                      # the keywords DISPLAY shows first, in its order
    read: Callable[[Values], dict[str, str]]   # an answer as fields by MQSC keyword
    kinds: tuple[str, ...] = ()                # the attribute table's kinds (definitions)
    fields: tuple[Field, ...] = ()             # the status fields, in DISPLAY's order (status)
    fixed: tuple[tuple[int, Any], ...] = ()    # parameters the inquiry always has
    # a parameter (``type``, ``chltype``) -> its value -> the inquiry's parameters for it
    types: Mapping[str, Mapping[str, tuple[tuple[int, Any], ...]]] = field(default_factory=dict)
    # a parameter naming what to show (``cluster``, ``channel``) -> the inquiry's string parameter
    names: Mapping[str, int] = field(default_factory=dict)


def definition(kind: str, head: tuple[str, ...], name: int) -> Callable[[Values], dict[str, str]]:
    def read(values: Values) -> dict[str, str]:
        out = {head[0]: PF.text(values.get(name, b""))}
        if kind == "TOPIC":                     # (its type is the inquiry's, not an attribute's)
            out["TYPE"] = "CLUSTER" if values.get(C.MQIA_TOPIC_TYPE) == C.MQTOPT_CLUSTER else "LOCAL"
        out = PF.attributes(kind, values, out)
        if kind == "QMGR" and not out.get("QSGNAME", "").strip():
            out = {k: v for k, v in out.items() if k not in QSG_ONLY}    # (as DISPLAY QMGR shows them)
        return out
    return read


def status(fields: tuple[Field, ...], name: int, keyword: str) -> Callable[[Values], dict[str, str]]:
    def read(values: Values) -> dict[str, str]:
        return PF.status_fields(fields, values, name, keyword)
    return read


def _connection(values: Values) -> dict[str, str]:
    """DISPLAY CONN's CONN (the identifier's last 8 bytes) and EXTCONN (its first 16), in hex."""
    conn = bytes(values.get(F.MQBACF_CONNECTION_ID, b""))
    kind = "HANDLE" if values.get(F.MQIACF_CONN_INFO_TYPE) == F.MQIACF_CONN_INFO_HANDLE else "CONN"
    return {"CONN": conn[16:].hex().upper(), "EXTCONN": conn[:16].hex().upper(), "TYPE": kind}


def _conn_read(values: Values) -> dict[str, str]:
    return PF.status_fields(CONN_FIELDS + HANDLE_FIELDS, values, F.MQBACF_CONNECTION_ID, "CONN") | _connection(values)


def _qmstatus(values: Values) -> dict[str, str]:
    return PF.status_fields(QMSTATUS_FIELDS[1:], values, C.MQCA_Q_MGR_NAME, "QMNAME") | {"TYPE": "QMGR"}


_APPL_TYPES = {F.MQIACF_APPL_INFO_APPL: "APPL", F.MQIACF_APPL_INFO_QMGR: "QMGR", F.MQIACF_APPL_INFO_LOCAL: "LOCAL"}


def _apstatus(values: Values) -> dict[str, str]:
    kind = _APPL_TYPES.get(int(values.get(F.MQIACF_APPL_INFO_TYPE, F.MQIACF_APPL_INFO_APPL)), "APPL")
    return PF.status_fields(applstatus.TYPES[kind], values, F.MQCACF_APPL_NAME, "APPLNAME") | {"TYPE": kind}


def _tpstatus(values: Values) -> dict[str, str]:
    """A topic node's status, or one subscription's or publisher's on it (TYPE SUB, PUB)."""
    kind = "SUB" if F.MQBACF_SUB_ID in values else "PUB" if F.MQBACF_CONNECTION_ID in values else "TOPIC"
    return PF.status_fields(topicstatus.FIELDS[kind][1:], values, C.MQCA_TOPIC_STRING, "TOPICSTR")


def _qstatus(values: Values) -> dict[str, str]:
    """A queue's status (TYPE QUEUE) or one handle's on it (TYPE HANDLE)."""
    handle = values.get(F.MQIACF_Q_STATUS_TYPE) == F.MQIACF_Q_HANDLE
    return PF.status_fields(QHANDLE_FIELDS if handle else QSTATUS_FIELDS, values, C.MQCA_Q_NAME, "QUEUE") | \
        {"TYPE": "HANDLE" if handle else "QUEUE"}


_QUEUE_TYPES = {k: ((C.MQIA_Q_TYPE, v),) for k, v in QTYPE_VALUES.items()} | {"ALL": ()}
_CHANNEL_TYPES = {k: ((F.MQIACH_CHANNEL_TYPE, v),) for k, v in CHLTYPE_VALUES.items()} | {"ALL": ()}
_QUEUE_KINDS = tuple(QTYPE_VALUES)
_Q = (F.MQCMD_INQUIRE_Q, C.MQCA_Q_NAME, ("QUEUE", "TYPE"), PF.queue_fields, _QUEUE_KINDS)


def _queues(kind: str | None) -> Display:
    if kind is None:
        return Display(*_Q, types={"type": _QUEUE_TYPES})
    return Display(*_Q, fixed=((C.MQIA_Q_TYPE, QTYPE_VALUES[kind]),))


def _defined(kind: str, inquiry: int, name: int, head: tuple[str, ...] = ()) -> Display:
    head = (kind, *head)
    return Display(inquiry, name, head, definition(kind, head, name), (kind,))


DISPLAYS: dict[str, Display] = {
    "QUEUE": _queues(None), **{k: _queues(k) for k in _QUEUE_KINDS},
    "CHANNEL": Display(F.MQCMD_INQUIRE_CHANNEL, F.MQCACH_CHANNEL_NAME, ("CHANNEL", "CHLTYPE"), PF.channel_fields,
                       tuple(CHLTYPE_VALUES), types={"chltype": _CHANNEL_TYPES}),
    "NAMELIST": _defined("NAMELIST", F.MQCMD_INQUIRE_NAMELIST, C.MQCA_NAMELIST_NAME),
    "LISTENER": _defined("LISTENER", F.MQCMD_INQUIRE_LISTENER, F.MQCACH_LISTENER_NAME),
    "AUTHINFO": _defined("AUTHINFO", F.MQCMD_INQUIRE_AUTH_INFO, C.MQCA_AUTH_INFO_NAME, ("AUTHTYPE",)),
    "PROCESS": _defined("PROCESS", F.MQCMD_INQUIRE_PROCESS, C.MQCA_PROCESS_NAME),
    "SERVICE": _defined("SERVICE", F.MQCMD_INQUIRE_SERVICE, C.MQCA_SERVICE_NAME),
    "COMMINFO": _defined("COMMINFO", F.MQCMD_INQUIRE_COMM_INFO, C.MQCA_COMM_INFO_NAME),
    "TOPIC": _defined("TOPIC", F.MQCMD_INQUIRE_TOPIC, C.MQCA_TOPIC_NAME, ("TYPE",)),
    "QMGR": Display(F.MQCMD_INQUIRE_Q_MGR, 0, ("QMNAME",), definition("QMGR", ("QMNAME",), C.MQCA_Q_MGR_NAME),
                    ("QMGR",)),
    "QCLUSTER": Display(F.MQCMD_INQUIRE_Q, C.MQCA_Q_NAME, ("QUEUE", "TYPE", "CLUSQMGR", "CLUSTER"), PF.queue_fields,
                        fields=QCLUSTER_FIELDS, fixed=((C.MQIA_Q_TYPE, C.MQQT_CLUSTER),),
                        names={"cluster": C.MQCA_CLUSTER_NAME, "clusqmgr": C.MQCA_CLUSTER_Q_MGR_NAME}),
    "CLUSQMGR": Display(F.MQCMD_INQUIRE_CLUSTER_Q_MGR, C.MQCA_CLUSTER_Q_MGR_NAME, ("CLUSQMGR", "CHANNEL", "CLUSTER"),
                        status(CLUSQMGR_FIELDS, C.MQCA_CLUSTER_Q_MGR_NAME, "CLUSQMGR"), fields=CLUSQMGR_FIELDS,
                        names={"cluster": C.MQCA_CLUSTER_NAME, "channel": F.MQCACH_CHANNEL_NAME}),
    "SUB": Display(F.MQCMD_INQUIRE_SUBSCRIPTION, F.MQCACF_SUB_NAME, ("SUBID", "SUB"),
                   status(SUB_FIELDS, F.MQCACF_SUB_NAME, "SUB"), fields=SUB_FIELDS),
    "SBSTATUS": Display(F.MQCMD_INQUIRE_SUB_STATUS, F.MQCACF_SUB_NAME, ("SUB", "SUBID"),
                        status(SBSTATUS_FIELDS, F.MQCACF_SUB_NAME, "SUB"), fields=SBSTATUS_FIELDS),
    "LSSTATUS": Display(F.MQCMD_INQUIRE_LISTENER_STATUS, F.MQCACH_LISTENER_NAME, ("LISTENER",),
                        status(LSSTATUS_FIELDS[1:], F.MQCACH_LISTENER_NAME, "LISTENER"), fields=LSSTATUS_FIELDS),
    "SVSTATUS": Display(F.MQCMD_INQUIRE_SERVICE_STATUS, C.MQCA_SERVICE_NAME, ("SERVICE",),
                        status(SVSTATUS_FIELDS[1:], C.MQCA_SERVICE_NAME, "SERVICE"), fields=SVSTATUS_FIELDS),
    "QMSTATUS": Display(F.MQCMD_INQUIRE_Q_MGR_STATUS, 0, ("QMNAME", "TYPE"), _qmstatus, fields=QMSTATUS_FIELDS),
    "APSTATUS": Display(F.MQCMD_INQUIRE_APPL_STATUS, F.MQCACF_APPL_NAME, ("APPLNAME", "TYPE"), _apstatus,
                        fields=tuple({f.keyword: f for t in applstatus.TYPES.values() for f in t}.values()),
                        types={"type": {k: ((F.MQIACF_APPL_INFO_TYPE, v),) for v, k in _APPL_TYPES.items()}}),
    "TPSTATUS": Display(F.MQCMD_INQUIRE_TOPIC_STATUS, C.MQCA_TOPIC_STRING, ("TOPICSTR",), _tpstatus,
                        fields=tuple({f.keyword: f for t in topicstatus.FIELDS.values() for f in t}.values()),
                        types={"type": {k: ((F.MQIACF_TOPIC_STATUS_TYPE, v),) for k, v in topicstatus.TYPES.items()}}),
    "QSTATUS": Display(F.MQCMD_INQUIRE_Q_STATUS, C.MQCA_Q_NAME, ("QUEUE", "TYPE"),
                       _qstatus, fields=QSTATUS_FIELDS + QHANDLE_FIELDS,
                       types={"type": {"QUEUE": ((F.MQIACF_Q_STATUS_TYPE, F.MQIACF_Q_STATUS),),
                                       "HANDLE": ((F.MQIACF_Q_STATUS_TYPE, F.MQIACF_Q_HANDLE),)}}),
    "CHSTATUS": Display(F.MQCMD_INQUIRE_CHANNEL_STATUS, F.MQCACH_CHANNEL_NAME, ("CHANNEL", "CHLTYPE"),
                        status(CHSTATUS_FIELDS, F.MQCACH_CHANNEL_NAME, "CHANNEL"), fields=CHSTATUS_FIELDS),
    "CONN": Display(F.MQCMD_INQUIRE_CONNECTION, F.MQBACF_GENERIC_CONNECTION_ID, ("CONN", "EXTCONN", "TYPE"),
                    _conn_read, fields=CONN_FIELDS + HANDLE_FIELDS,
                    types={"type": {"CONN": ((F.MQIACF_CONN_INFO_TYPE, F.MQIACF_CONN_INFO_CONN),),
                                    "HANDLE": ((F.MQIACF_CONN_INFO_TYPE, F.MQIACF_CONN_INFO_HANDLE),),
                                    "ALL": ((F.MQIACF_CONN_INFO_TYPE, F.MQIACF_CONN_INFO_ALL),)}}),
}


@dataclass(frozen=True)
class Ask:
    """A display as its inquiry: the parameters, the filter, and the keywords asked for (None: all)."""
    display: Display
    params: dict[int, Any]
    filters: list[Filter]
    keep: list[str] | None


def request(body: Mapping[str, Any]) -> Ask | None:
    """A runCommandJSON display as its PCF inquiry; None when it must go as MQSC (a qualifier not
    in ``DISPLAYS``, a parameter or WHERE PCF cannot carry)."""
    qualifier = str(body.get("qualifier") or "").upper()
    d = DISPLAYS.get(qualifier)
    if str(body.get("command") or "").lower() != "display" or d is None:
        return None
    params: dict[int, Any] = dict(d.fixed)
    if d.name:
        name = str(body.get("name") or "*")
        if d.inquiry == F.MQCMD_INQUIRE_CONNECTION:
            if name.rstrip("*") and not _hex(name.rstrip("*")):
                return None
            params[d.name] = bytes.fromhex(name.rstrip("*")) if name != "*" else b""
        else:
            params[d.name] = name.encode()
    filters: list[tuple[Filter, str]] = []
    for key, value in dict(body.get("parameters") or {}).items():
        key = str(key).lower()
        if key in d.types and isinstance(value, str) and value.upper() in d.types[key]:
            params.update(d.types[key][value.upper()])
        elif key in d.names and isinstance(value, str):
            params[d.names[key]] = value.encode()
        elif key == "where" and isinstance(value, str) and (tested := where(d, value)) is not None:
            filters.append(tested)
        else:
            return None
    wanted = body.get("responseParameters")
    keep = None if wanted is None or any(str(w).lower() == "all" for w in wanted) else [str(w).upper() for w in wanted]
    if keep is not None:
        keep += [key for _f, key in filters]        # (MQ shows the attribute a WHERE tests)
    return Ask(d, params, [f for f, _key in filters], keep)


def _hex(text: str) -> bool:
    return len(text) % 2 == 0 and all(c in "0123456789abcdefABCDEF" for c in text)


def where(d: Display, text: str) -> tuple[Filter, str] | None:
    """A WHERE condition as the PCF filter MQ's mqweb would send (and the keyword it tests): the
    attribute's parameter, the operator, the value as the attribute takes it (an enumeration's
    word as its number, a flag's as 1 or 0). None when it is not one (MQSC then answers it, with
    its syntax error for a condition that is wrong)."""
    parts = condition(text)
    if parts is None or parts[1] not in MQSC_OPS:
        return None
    key, op, raw = parts
    value: Any = None
    attr = next((TABLE.lookup(k, key) for k in d.kinds if TABLE.lookup(k, key)), None)
    f = next((f for f in d.fields if f.keyword == key), None)
    if attr is not None and attr.selector is not None:
        selector = attr.selector
        if attr.kind == FLAG:
            value = 1 if raw.upper() == attr.name else 0
        elif attr.kind in (INT, ENUM) and attr.values and raw.upper() in attr.values:
            value = attr.values[raw.upper()]
        elif attr.kind in (INT, ENUM):
            value = int(raw) if raw.lstrip("-").isdigit() and attr.kind == INT else None
        else:
            value = raw
    elif f is not None:
        selector, value = f.selector, f.value_of(raw)
    if value is None:
        return None
    flt = Filter(selector)
    flt.operator, flt.value = MQSC_OPS[op], value
    return flt, key


def shown(d: Display, values: Values, keep: list[str] | None) -> list[tuple[str, str]]:
    """One answer as DISPLAY's KEY(value) fields: the head first, then the rest (those in
    ``keep``, or all), a definition's as DISPLAY ALL shows its kind (objects/layout.py: MQ's order,
    without what MQ does not show), a status's as its table reads; a flag's bare word is not a
    KEY(value) and is left out, as reading display text leaves it."""
    shown = d.read(values)
    head = [k for k in d.head if k in shown]
    rest = [k for k in shown if not k.startswith("=") and k not in head]
    if keep is not None:
        rest = [k for k in rest if k in keep]
    elif not d.fields:
        kind = d.kinds[0] if len(d.kinds) == 1 else shown.get("TYPE") or shown.get("CHLTYPE") or ""
        rest = display_order(kind, rest)
    return [(k, shown[k]) for k in head + rest]
