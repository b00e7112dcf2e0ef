"""A PCF inquiry's answer as the MQSC fields a display shows, for the v1 resources (issue 62: they
were read from MQSC display text, where a value a client chose, such as a queue's DESCR, could pose
as other fields). Each parameter is found in the table that declares it once for both forms (the
attribute table for definitions, ``engine.status``'s fields for status) and given its MQSC form
there: an enumeration's word, a flag's bare keyword (kept as ``=WORD``, as ``resources.words``
keeps it), a string with its padding trimmed. A parameter no table declares is left out."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.engine.fields import Field
from mqlite.mqsc.cluster import QCLUSTER_FIELDS
from mqlite.objects.attrbase import ENUM, FLAG, INT, LIST
from mqlite.objects.attrs import CHLTYPE_VALUES, QTYPE_VALUES, TABLE
from mqlite.cmq import CMQCFC as F

QTYPE_KIND = {v: k for k, v in QTYPE_VALUES.items()} | {C.MQQT_CLUSTER: "QCLUSTER"}
CHLTYPE_KIND = {v: k for k, v in CHLTYPE_VALUES.items()}


def text(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace").rstrip(" \0")
    return str(value)


def queue_fields(values: Mapping[int, Any]) -> dict[str, str]:
    """One queue of an Inquire Queue answer: QUEUE, TYPE and its attributes by MQSC keyword."""
    kind = QTYPE_KIND.get(int(values.get(C.MQIA_Q_TYPE, C.MQQT_LOCAL)), "QLOCAL")
    if kind == "QCLUSTER":           # (a cluster queue instance: DISPLAY QCLUSTER's fields)
        return status_fields(QCLUSTER_FIELDS[1:], values, C.MQCA_Q_NAME, "QUEUE")
    return attributes(kind, values, {"QUEUE": text(values.get(C.MQCA_Q_NAME, b"")), "TYPE": kind})


def channel_fields(values: Mapping[int, Any]) -> dict[str, str]:
    """One channel of an Inquire Channel answer: CHANNEL, CHLTYPE and its attributes by keyword."""
    kind = CHLTYPE_KIND.get(int(values.get(F.MQIACH_CHANNEL_TYPE, 0)), "")
    out = {"CHANNEL": text(values.get(F.MQCACH_CHANNEL_NAME, b"")), "CHLTYPE": kind}
    return attributes(kind, values, out) if kind else out


def attributes(kind: str, values: Mapping[int, Any], out: dict[str, str]) -> dict[str, str]:
    for sel, value in values.items():
        attr = TABLE.by_selector(kind, sel)
        if attr is None or attr.name in out:
            continue
        if isinstance(value, list) and attr.kind != LIST:
            value = value[0] if value else 0                    # (an attribute PCF carries as a list of one)
        if attr.kind == FLAG:
            word = attr.name if value else attr.flag_off
            out[f"={word}"] = word
        elif attr.kind == ENUM or (attr.kind == INT and attr.values and value in attr.values.values()):
            out[attr.name] = attr.word(int(value))
        elif attr.kind == LIST:
            out[attr.name] = ",".join(text(v) for v in value)
        else:
            out[attr.name] = text(value)
    return out


def status_fields(fields: Iterable[Field], values: Mapping[int, Any], name_selector: int,
                  name_keyword: str) -> dict[str, str]:
    """One object of a status inquiry's answer by MQSC keyword (``fields``: the display's table)."""
    out = {name_keyword: text(values.get(name_selector, b""))}
    for f in fields:
        if f.selector in values:
            value = values[f.selector]
            value = text(value) if isinstance(value, (bytes, bytearray)) and not f.binary else value
            out[f.keyword] = f.mqsc(value) if f.word is not None else text(value)
    return out
