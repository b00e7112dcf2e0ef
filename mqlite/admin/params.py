"""The parameters of PCF commands, as every handler reads them: a required one (``need``), the
attribute parameters of a create or change converted by the attribute table (``values``), the
attributes an inquiry asks for (``wanted``) and encodes (``encode_attrs``), its filters
(``passes``, ``passes_values``), a queue type and a checked name. Pure functions over a decoded
``pcf.Message``; a fault is a ``CommandError`` carrying MQ's MQRCCF reason and the parameter."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.cmq.structs import text
from mqlite.engine.fields import Field
from mqlite.objects.attrs import ENUM, FLAG, INT, LIST, QTYPE_VALUES, TABLE, Attr, AttrError
from mqlite.objects.attrs import convert as convert_value
from mqlite.objects.attrs import encode_attrs as encode_attrs  # (the handlers' p.encode_attrs)
from mqlite.objects.names import filter_match, valid_name

QTYPE_KIND = {v: k for k, v in QTYPE_VALUES.items()}
# Parameters of commands that are not object attributes.
CONTROL_PARMS = {C.MQCA_Q_NAME, C.MQIA_Q_TYPE, F.MQIACF_REPLACE, F.MQIACF_PURGE, F.MQIACF_FORCE,
                 F.MQIACF_Q_ATTRS, F.MQIACF_Q_MGR_ATTRS, F.MQIACF_CHANNEL_ATTRS, F.MQCACF_FROM_Q_NAME,
                 F.MQCACF_TO_Q_NAME, F.MQCACH_CHANNEL_NAME, F.MQIACH_CHANNEL_TYPE, C.MQCA_NAMELIST_NAME,
                 F.MQIACF_Q_STATUS_TYPE, F.MQIACF_Q_STATUS_ATTRS, F.MQIACF_MODE, F.MQIACH_CHANNEL_STATUS}


class CommandError(Exception):
    """A command refused: MQ's reason (MQRC_* or MQRCCF_*), and the parameter at fault."""

    def __init__(self, reason: int, parameter: int = 0, detail: str = "") -> None:
        super().__init__(detail or str(reason))
        self.reason = reason
        self.parameter = parameter


class EscapeFailed(CommandError):
    """An MQSC command in escape PCF that failed: its response text still goes back."""

    def __init__(self, status: str, params: list[bytes]) -> None:
        super().__init__(F.MQRCCF_PARM_SYNTAX_ERROR if status == "syntax" else F.MQRCCF_COMMAND_FAILED)
        self.params = params


def s(value: Any) -> str:
    """A string parameter's value as text."""
    return text(value) if isinstance(value, (bytes, bytearray)) else str(value)


def trimmed(value: Any) -> str:
    """A string parameter as text, blanks and nulls trimmed ("" when absent)."""
    return text(value) if isinstance(value, (bytes, bytearray)) else str(value or "").strip()


def need(msg: pcf.Message, selector: int) -> Any:
    value = msg.first(selector)
    if value is None:
        raise CommandError(F.MQRCCF_PARM_COUNT_TOO_SMALL, selector, f"parameter {selector} is required")
    return value


def values(msg: pcf.Message, kind: str, control: frozenset[int] = frozenset()) -> dict[str, Any]:
    """Attribute parameters of a create/change command, converted by the attribute table
    (``control``: the command's own parameters besides ``CONTROL_PARMS``)."""
    out: dict[str, Any] = {}
    for ptype, sel, value in msg.params:
        if sel in CONTROL_PARMS or sel in control or ptype in (F.MQCFT_INTEGER_FILTER, F.MQCFT_STRING_FILTER):
            continue
        attr = TABLE.by_selector(kind, sel)
        if attr is None or not attr.alterable:
            raise CommandError(F.MQRCCF_CFIN_PARM_ID_ERROR if ptype == F.MQCFT_INTEGER
                               else F.MQRCCF_CFST_PARM_ID_ERROR, sel)
        out[attr.name] = convert(attr, ptype, sel, value)
    return out


def convert(attr: Attr, ptype: int, sel: int, value: Any) -> Any:
    """One attribute parameter's value as the attribute table holds it (type and range checked)."""
    numeric = attr.kind in (INT, ENUM, FLAG)
    if attr.intlist and ptype == F.MQCFT_INTEGER_LIST and len(value) == 1:     # COMPHDR, SUITEB
        ptype, value = F.MQCFT_INTEGER, value[0]
    if numeric != (ptype == F.MQCFT_INTEGER) or (attr.kind == LIST) != (ptype == F.MQCFT_STRING_LIST):
        raise CommandError(F.MQRCCF_STRUCTURE_TYPE_ERROR, sel, f"{attr.name} given as type {ptype}")
    try:
        if attr.kind == FLAG:
            if value not in (0, 1):
                raise AttrError("flag")
            return value
        if attr.kind == LIST:
            return convert_value(attr, [s(v) for v in value])
        return convert_value(attr, value if numeric else s(value))
    except AttrError:
        raise CommandError(F.MQRCCF_ATTR_VALUE_ERROR, sel, f"value {value!r} for {attr.name}") from None


def encode_fields(fields: Iterable[Field], row: dict[str, Any], wanted: list[int] | None) -> list[bytes]:
    """A status row's fields (``engine.fields``) as PCF parameters, those ``wanted`` (None: all)."""
    return encode_values(field_values(fields, row), wanted)


def encode_values(values: dict[int, Any], wanted: list[int] | None) -> list[bytes]:
    """Parameters by selector (``field_values``) as PCF: numbers, lists of numbers, strings."""
    out = []
    for sel, value in values.items():
        if wanted is not None and sel not in wanted:
            continue
        if isinstance(value, list):
            out.append(pcf.enc_int_list(sel, value))
        elif isinstance(value, int):
            out.append(pcf.enc_int(sel, value))
        elif isinstance(value, bytes) and F.MQBACF_FIRST <= sel <= F.MQBACF_LAST_USED:
            out.append(pcf.enc_bytes(sel, value))
        else:
            out.append(pcf.enc_str(sel, value))
    return out


def field_values(fields: Iterable[Field], row: dict[str, Any]) -> dict[int, Any]:
    """A status row's fields by PCF parameter, as a filter compares them."""
    return {f.selector: f.pcf_value(row[f.keyword]) for f in fields}


def wanted(msg: pcf.Message, selector: int) -> list[int] | None:
    """The attributes an inquire asks for (None: all), with the attribute of each filter: MQ
    returns the filtered attribute whether or not the list names it."""
    attrs = msg.first(selector)
    if attrs is None or F.MQIACF_ALL in attrs:
        return None
    return list(attrs) + [sel for ptype, sel, _v in msg.params
                          if ptype in (F.MQCFT_INTEGER_FILTER, F.MQCFT_STRING_FILTER)]


def passes(msg: pcf.Message, kind: str, values: dict[str, Any], extra: dict[int, Any]) -> bool:
    """MQCFIF/MQCFSF filters of an inquire."""
    for ptype, sel, flt in msg.params:
        if ptype not in (F.MQCFT_INTEGER_FILTER, F.MQCFT_STRING_FILTER):
            continue
        attr = TABLE.by_selector(kind, sel)
        if sel in extra:
            have = extra[sel]
        elif attr is not None:
            have = values.get(attr.name, attr.default_for(kind))
        elif TABLE.selector_anywhere(sel):
            return False            # an attribute other kinds of object have: this one does not match
        else:
            raise CommandError(F.MQRCCF_CFIF_PARM_ID_ERROR if ptype == F.MQCFT_INTEGER_FILTER
                               else F.MQRCCF_CFSF_PARM_ID_ERROR, sel)
        want = flt.value if ptype == F.MQCFT_INTEGER_FILTER else s(flt.value)
        try:
            if not filter_match(flt.operator, have, want):
                return False
        except (KeyError, TypeError):
            raise CommandError(F.MQRCCF_CFIF_OPERATOR_ERROR if ptype == F.MQCFT_INTEGER_FILTER
                               else F.MQRCCF_CFSF_OPERATOR_ERROR, sel) from None
    return True


def passes_values(msg: pcf.Message, values: dict[int, Any]) -> bool:
    """MQCFIF/MQCFSF filters over a response's own parameters (selector -> value)."""
    for ptype, sel, flt in msg.params:
        if ptype not in (F.MQCFT_INTEGER_FILTER, F.MQCFT_STRING_FILTER):
            continue
        if sel not in values:
            raise CommandError(F.MQRCCF_CFIF_PARM_ID_ERROR if ptype == F.MQCFT_INTEGER_FILTER
                               else F.MQRCCF_CFSF_PARM_ID_ERROR, sel)
        have = values[sel]
        want = flt.value if ptype == F.MQCFT_INTEGER_FILTER else s(flt.value)
        try:
            if not filter_match(flt.operator, s(have).rstrip() if isinstance(have, bytes) else have, want):
                return False
        except (KeyError, TypeError):
            raise CommandError(F.MQRCCF_CFIF_OPERATOR_ERROR if ptype == F.MQCFT_INTEGER_FILTER
                               else F.MQRCCF_CFSF_OPERATOR_ERROR, sel) from None
    return True


def queue_kind(msg: pcf.Message, required: bool) -> str | None:
    qtype = msg.first(C.MQIA_Q_TYPE)
    if qtype is None:
        if required:
            raise CommandError(F.MQRCCF_PARM_COUNT_TOO_SMALL, C.MQIA_Q_TYPE)
        return None
    if qtype == C.MQQT_ALL:
        return None
    if qtype not in QTYPE_KIND:
        raise CommandError(F.MQRCCF_Q_TYPE_ERROR, C.MQIA_Q_TYPE)
    return QTYPE_KIND[qtype]


def name_parm(msg: pcf.Message, selector: int, objtype: str = "QUEUE", generic: bool = False) -> str:
    """A name parameter, checked against MQ's naming rules (it goes into an MQSC command)."""
    name = s(msg.first(selector, "")).strip()
    base = name[:-1] if generic and name.endswith("*") else name
    if base and not valid_name(base, objtype):
        raise CommandError(F.MQRCCF_OBJECT_NAME_ERROR, selector)
    return name
