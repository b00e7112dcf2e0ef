"""MQSD (subscription descriptor) and MQSRO (subscription request options), with MQ's binary
layouts (64-bit), as pymqi and ibmmq have them. The MQCHARV strings (ObjectString, SubName,
SubUserData, SelectionString, ResObjectString) are set and read with ``set_vs``/``get_vs``, as
on an MQOD; the wire carries them beside the structure (net.verbs.Sub)."""
from __future__ import annotations

from mqlite.cmq import CMQC
from mqlite.cmq.structs import MQStruct, _charv

VS_FIELDS = ("ObjectString", "SubName", "SubUserData", "SelectionString", "ResObjectString")


class SD(MQStruct):
    """MQSD version 1 (344 bytes on 64-bit)."""

    _fields = [
        ("StrucId", CMQC.MQSD_STRUC_ID, "4s"),
        ("Version", CMQC.MQSD_VERSION_1, "i"),
        ("Options", CMQC.MQSO_NON_DURABLE, "i"),
        ("ObjectName", b"", "48s"),
        ("AlternateUserId", b"", "12s"),
        ("AlternateSecurityId", b"", "40s"),
        ("SubExpiry", CMQC.MQEI_UNLIMITED, "i"),
        *_charv("ObjectString"),
        *_charv("SubName"),
        *_charv("SubUserData"),
        ("SubCorrelId", b"", "24s"),
        ("PubPriority", CMQC.MQPRI_PRIORITY_AS_Q_DEF, "i"),      # pymqi and ibmmq: as the queue's default
        ("PubAccountingToken", b"", "32s"),
        ("PubApplIdentityData", b"", "32s"),
        *_charv("SelectionString"),
        ("SubLevel", 1, "i"),
        *_charv("ResObjectString"),
    ]


class SRO(MQStruct):
    """MQSRO version 1."""

    _fields = [
        ("StrucId", CMQC.MQSRO_STRUC_ID, "4s"),
        ("Version", CMQC.MQSRO_VERSION_1, "i"),
        ("Options", CMQC.MQSRO_NONE, "i"),
        ("NumPubs", 0, "i"),
    ]
