"""Message properties: names, typed values, MQ's conversion rules, and the set a message handle holds.

A property is a name, an MQTYPE and a value. Names follow MQ's rules (``check_name``); a name
with no folder (no dot) is a user property, the same property as ``usr.<name>``. The JMS
synonyms MQ accepts are mapped to the folders they live in. ``Root.MQMD.<field>`` names read the
message descriptor. Values are Python objects: bool, bytes, int, float, str or None (MQTYPE_NULL);
``convert`` applies MQINQMP's MQIMPO_CONVERT_TYPE table and raises ``PropertyError`` with MQ's
reason code where MQ refuses.
"""
from __future__ import annotations

import math
import re
import struct
from collections.abc import Iterator
from typing import Any

from mqlite.cmq import CMQC as C

INT_RANGES = {C.MQTYPE_INT8: 8, C.MQTYPE_INT16: 16, C.MQTYPE_INT32: 32, C.MQTYPE_INT64: 64}
TYPES = frozenset({C.MQTYPE_BOOLEAN, C.MQTYPE_BYTE_STRING, C.MQTYPE_INT8, C.MQTYPE_INT16, C.MQTYPE_INT32,
                   C.MQTYPE_INT64, C.MQTYPE_FLOAT32, C.MQTYPE_FLOAT64, C.MQTYPE_STRING, C.MQTYPE_NULL})
KEYWORDS = frozenset({"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE"})
# The JMS names an MQI application may set, and the folder property each stands for.
JMS_SETTABLE = {"JMSCorrelationID": "jms.Cid", "JMSReplyTo": "jms.Rto", "JMSType": "mcd.Type",
                "JMSXGroupID": "jms.Gid", "JMSXGroupSeq": "jms.Seq"}
# The JMS names that can only be read: the descriptor field or folder property each stands for.
JMS_READ = {"JMSMessageID": "Root.MQMD.MsgId", "JMSPriority": "Root.MQMD.Priority",
            "JMSDeliveryMode": "Root.MQMD.Persistence", "JMSExpiration": "Root.MQMD.Expiry",
            "JMSTimestamp": "jms.Tms", "JMSDestination": "jms.Dst", "JMSRedelivered": "Root.MQMD.BackoutCount",
            "JMSXDeliveryCount": "Root.MQMD.BackoutCount", "JMSXAppID": "Root.MQMD.PutApplName",
            "JMSXUserID": "Root.MQMD.UserIdentifier",
            # What publish/subscribe sets on a publication (the mqps folder).
            "MQTopicString": "mqps.Top", "MQSubUserData": "mqps.Sud", "MQIsRetained": "mqps.Ret"}
_IDENT = re.compile(r"[A-Za-z_$\u00c0-\uffff][\w$\u00c0-\uffff]*\Z")
MD_PREFIX = "Root.MQMD."


class PropertyError(Exception):
    """An MQ property call refused, with MQ's reason code (completion MQCC_FAILED)."""

    def __init__(self, reason: int) -> None:
        super().__init__(reason)
        self.reason = reason


def canonical(name: str) -> str:
    """The name a property is kept under: ``usr.`` dropped (a bare name is a user property) and a
    JMS synonym replaced by its folder property."""
    if name.startswith("usr.") and "." not in name[4:]:
        return name[4:]
    return JMS_SETTABLE.get(name) or JMS_READ.get(name) or name


def check_name(name: str, setting: bool = True) -> str:
    """MQ's property-name rules (2442 MQRC_PROPERTY_NAME_ERROR, 2513 for the length); returns the
    canonical name."""
    if not name or len(name) > C.MQ_MAX_PROPERTY_NAME_LENGTH:
        raise PropertyError(C.MQRC_PROPERTY_NAME_LENGTH_ERR)
    if name.startswith(MD_PREFIX):
        if setting:
            raise PropertyError(C.MQRC_PROPERTY_NAME_ERROR)
        return name
    if name.startswith(("JMS", "usr.JMS")):
        bare = name.removeprefix("usr.")
        if bare in JMS_SETTABLE or (not setting and bare in JMS_READ):
            return canonical(bare)
        raise PropertyError(C.MQRC_PROPERTY_NAME_ERROR)
    parts = name.split(".")
    if any(not p for p in parts):
        raise PropertyError(C.MQRC_PROPERTY_NAME_ERROR)           # "a..b", ".a", "a."
    if parts[0] in ("Body", "Root"):
        raise PropertyError(C.MQRC_PROPERTY_NAME_ERROR)
    if parts[-1].upper() in KEYWORDS and (len(parts) == 1 or (len(parts) == 2 and parts[0] == "usr")):
        raise PropertyError(C.MQRC_PROPERTY_NAME_ERROR)
    if parts[0].lower().startswith("mq") and parts[0] != "mq_usr" and len(parts) > 2:
        raise PropertyError(C.MQRC_PROPERTY_NAME_ERROR)
    if not all(_IDENT.match(p) for p in parts):
        raise PropertyError(C.MQRC_PROPERTY_NAME_ERROR)
    return canonical(name)


def type_of(value: Any) -> int:
    """The MQTYPE a Python value is set as when the caller names none."""
    if value is None:
        return C.MQTYPE_NULL
    if isinstance(value, bool):
        return C.MQTYPE_BOOLEAN
    if isinstance(value, int):
        return C.MQTYPE_INT64
    if isinstance(value, float):
        return C.MQTYPE_FLOAT64
    if isinstance(value, (bytes, bytearray)):
        return C.MQTYPE_BYTE_STRING
    if isinstance(value, str):
        return C.MQTYPE_STRING
    raise PropertyError(C.MQRC_PROPERTY_TYPE_ERROR)


def coerce(value: Any, ptype: int) -> Any:
    """A value given to MQSETMP, checked against its declared type (2467 for an unknown type,
    2473 for a value that is not of the type)."""
    if ptype not in TYPES:
        raise PropertyError(C.MQRC_PROP_TYPE_NOT_SUPPORTED)
    if ptype == C.MQTYPE_NULL:
        return None
    if ptype == C.MQTYPE_STRING:
        if isinstance(value, (bytes, bytearray)):
            value = bytes(value).split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
        if not isinstance(value, str):
            raise PropertyError(C.MQRC_PROPERTY_TYPE_ERROR)
        return value
    if ptype == C.MQTYPE_BYTE_STRING:
        if isinstance(value, str):
            value = value.encode("utf-8")
        if not isinstance(value, (bytes, bytearray)):
            raise PropertyError(C.MQRC_PROPERTY_TYPE_ERROR)
        return bytes(value)
    if ptype == C.MQTYPE_BOOLEAN:
        if isinstance(value, (bool, int)):
            return bool(value)
        raise PropertyError(C.MQRC_PROPERTY_TYPE_ERROR)
    if ptype in INT_RANGES:
        if isinstance(value, bool) or not isinstance(value, int):
            raise PropertyError(C.MQRC_PROPERTY_TYPE_ERROR)
        if not _fits(value, ptype):
            raise PropertyError(C.MQRC_PROPERTY_TYPE_ERROR)
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PropertyError(C.MQRC_PROPERTY_TYPE_ERROR)
    return _float32(float(value)) if ptype == C.MQTYPE_FLOAT32 else float(value)


def _fits(value: int, ptype: int) -> bool:
    bits = INT_RANGES[ptype]
    return -(1 << (bits - 1)) <= value < (1 << (bits - 1))


def _float32(value: float) -> float:
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        raise PropertyError(C.MQRC_PROP_CONV_NOT_SUPPORTED) from None


def to_text(ptype: int, value: Any) -> str:
    """A value as MQ writes it in a string (an RFH2 folder, or a conversion to MQTYPE_STRING)."""
    if ptype == C.MQTYPE_BOOLEAN:
        return "TRUE" if value else "FALSE"
    if ptype == C.MQTYPE_BYTE_STRING:
        return value.hex().upper()
    if ptype in (C.MQTYPE_FLOAT32, C.MQTYPE_FLOAT64):
        return repr(float(value)) if math.isfinite(value) else str(value)
    if ptype == C.MQTYPE_NULL:
        return ""
    return str(value)


def _parse_number(text: str, ptype: int) -> Any:
    t = text.strip()
    try:
        if ptype in INT_RANGES:
            v = int(t, 10)
            if not _fits(v, ptype):
                raise PropertyError(C.MQRC_PROP_CONV_NOT_SUPPORTED)
            return v
        v = float(t)
    except ValueError:
        raise PropertyError(C.MQRC_PROP_NUMBER_FORMAT_ERROR) from None
    return _float32(v) if ptype == C.MQTYPE_FLOAT32 else v


def convert(ptype: int, value: Any, want: int) -> tuple[int, Any]:
    """MQINQMP with MQIMPO_CONVERT_TYPE: the value as type ``want``. MQ's table: anything converts
    to a string; a string converts to a boolean ("TRUE"/"FALSE"/"1"/"0") or a number when it reads
    as one (else 2472); numbers convert among themselves when the value fits (else 2470); a boolean
    converts to an integer (0/1); a byte string converts to nothing but a string; null stays null."""
    if want in (C.MQTYPE_AS_SET, ptype) or ptype == C.MQTYPE_NULL:
        return ptype, value
    if want not in TYPES:
        raise PropertyError(C.MQRC_PROPERTY_TYPE_ERROR)
    if want == C.MQTYPE_STRING:
        return want, to_text(ptype, value)
    if ptype == C.MQTYPE_BYTE_STRING:
        raise PropertyError(C.MQRC_PROP_CONV_NOT_SUPPORTED)
    if ptype == C.MQTYPE_STRING:
        if want == C.MQTYPE_BOOLEAN:
            t = value.strip().upper()
            if t in ("TRUE", "1"):
                return want, True
            if t in ("FALSE", "0"):
                return want, False
            raise PropertyError(C.MQRC_PROP_NUMBER_FORMAT_ERROR)
        if want == C.MQTYPE_BYTE_STRING:
            raise PropertyError(C.MQRC_PROP_CONV_NOT_SUPPORTED)
        return want, _parse_number(value, want)
    if want == C.MQTYPE_BOOLEAN:
        return want, bool(value)
    if want == C.MQTYPE_BYTE_STRING:
        raise PropertyError(C.MQRC_PROP_CONV_NOT_SUPPORTED)
    if want in INT_RANGES:
        if isinstance(value, float):
            if not math.isfinite(value) or value != int(value):
                raise PropertyError(C.MQRC_PROP_CONV_NOT_SUPPORTED)
            value = int(value)
        value = int(value)
        if not _fits(value, want):
            raise PropertyError(C.MQRC_PROP_CONV_NOT_SUPPORTED)
        return want, value
    return want, _float32(float(value)) if want == C.MQTYPE_FLOAT32 else float(value)


def value_length(ptype: int, value: Any) -> int:
    """The property's length as MQINQMP reports it (DataLength): bytes of the value."""
    if ptype == C.MQTYPE_STRING:
        return len(value.encode("utf-8", "surrogateescape"))
    if ptype == C.MQTYPE_BYTE_STRING:
        return len(value)
    if ptype == C.MQTYPE_NULL:
        return 0
    return {C.MQTYPE_BOOLEAN: 4, C.MQTYPE_INT8: 1, C.MQTYPE_INT16: 2, C.MQTYPE_INT32: 4, C.MQTYPE_INT64: 8,
            C.MQTYPE_FLOAT32: 4, C.MQTYPE_FLOAT64: 8}[ptype]


def matches(pattern: str, name: str) -> bool:
    """MQINQMP's wildcards: ``%`` alone is every property; ``folder.%`` every property in a folder
    (``usr.%`` the user properties)."""
    if pattern == "%":
        return True
    folder = pattern[:-2]
    return "." not in name if folder == "usr" else name.startswith(folder + ".")


# Descriptor fields that are identifiers (byte strings as properties); the other character fields
# read as strings without their padding.
_MD_BYTES = frozenset({"MsgId", "CorrelId", "GroupId", "AccountingToken"})


def md_property(md: Any, field: str) -> tuple[int, Any] | None:
    """``Root.MQMD.<field>`` of a descriptor as a property (type, value), or None for no such field."""
    if field in ("StrucId", "Version") or field not in md.field_names():
        return None
    value = md.peek(field)
    if isinstance(value, bytes):
        if field in _MD_BYTES:
            return C.MQTYPE_BYTE_STRING, value
        return C.MQTYPE_STRING, value.split(b"\0", 1)[0].rstrip(b" ").decode("ascii", "replace")
    return C.MQTYPE_INT32, value


class Properties:
    """The properties of one message handle, in the order they were set."""

    __slots__ = ("items", "version")

    def __init__(self, items: dict[str, tuple[int, Any]] | None = None) -> None:
        self.items: dict[str, tuple[int, Any]] = dict(items) if items else {}
        self.version = 0              # changes with every set and delete

    def __len__(self) -> int:
        return len(self.items)

    def __bool__(self) -> bool:
        return bool(self.items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Properties) and self.items == other.items

    def __repr__(self) -> str:
        return f"Properties({self.items!r})"

    def set(self, name: str, value: Any, ptype: int | None = None, validate: bool = True) -> None:
        key = check_name(name) if validate else canonical(name)
        ptype = type_of(value) if ptype is None else ptype
        value = coerce(value, ptype)
        prefix = key + "."
        # Mixed content (a.b and a.b.c both set) is refused, as MQ does.
        for other in self.items:
            if other.startswith(prefix) or key.startswith(other + "."):
                raise PropertyError(C.MQRC_MIXED_CONTENT_NOT_ALLOWED)
        self.items[key] = (ptype, value)
        self.version += 1

    def delete(self, name: str) -> None:
        key = canonical(name)
        if key not in self.items:
            raise PropertyError(C.MQRC_PROPERTY_NOT_AVAILABLE)
        del self.items[key]
        self.version += 1

    def find(self, pattern: str, after: int = -1) -> tuple[int, str, int, Any] | None:
        """The first property matching ``pattern`` past position ``after``: (position, name, type,
        value)."""
        if pattern != "%" and not pattern.endswith(".%"):
            key = canonical(pattern)
            got = self.items.get(key)
            if got is None:
                return None
            pos = list(self.items).index(key)
            return (pos, key, got[0], got[1]) if pos > after else None
        for pos, (name, (ptype, value)) in enumerate(self.items.items()):
            if pos > after and matches(pattern, name):
                return pos, name, ptype, value
        return None

    def __iter__(self) -> Iterator[tuple[str, int, Any]]:
        for name, (ptype, value) in self.items.items():
            yield name, ptype, value

    def values(self) -> dict[str, Any]:
        """name → value (``MessageHandle.get_all_properties``)."""
        return {name: v for name, (_t, v) in self.items.items()}
