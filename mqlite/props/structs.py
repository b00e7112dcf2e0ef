"""The message-property call structures (MQCMHO, MQDMHO, MQSMPO, MQIMPO, MQDMPO, MQPD) in MQ's
layouts (64-bit Linux), declared as the other MQ structures are (``mqlite.cmq.structs``)."""
from __future__ import annotations

from mqlite.cmq import CMQC
from mqlite.cmq.structs import MQStruct, _charv


class CMHO(MQStruct):
    """MQCMHO: options of MQCRTMH (12 bytes)."""
    _fields = [("StrucId", CMQC.MQCMHO_STRUC_ID, "4s"), ("Version", CMQC.MQCMHO_VERSION_1, "i"),
               ("Options", CMQC.MQCMHO_DEFAULT_VALIDATION, "i")]


class DMHO(MQStruct):
    """MQDMHO: options of MQDLTMH (12 bytes)."""
    _fields = [("StrucId", CMQC.MQDMHO_STRUC_ID, "4s"), ("Version", CMQC.MQDMHO_VERSION_1, "i"),
               ("Options", CMQC.MQDMHO_NONE, "i")]


class SMPO(MQStruct):
    """MQSMPO: options of MQSETMP (20 bytes)."""
    _fields = [("StrucId", CMQC.MQSMPO_STRUC_ID, "4s"), ("Version", CMQC.MQSMPO_VERSION_1, "i"),
               ("Options", CMQC.MQSMPO_SET_FIRST, "i"), ("ValueEncoding", CMQC.MQENC_NATIVE, "i"),
               ("ValueCCSID", CMQC.MQCCSI_APPL, "i")]


class IMPO(MQStruct):
    """MQIMPO: options of MQINQMP (64 bytes)."""
    _fields = [("StrucId", CMQC.MQIMPO_STRUC_ID, "4s"), ("Version", CMQC.MQIMPO_VERSION_1, "i"),
               ("Options", CMQC.MQIMPO_INQ_FIRST, "i"), ("RequestedEncoding", CMQC.MQENC_NATIVE, "i"),
               ("RequestedCCSID", CMQC.MQCCSI_APPL, "i"), ("ReturnedEncoding", CMQC.MQENC_NATIVE, "i"),
               ("ReturnedCCSID", 0, "i"), ("Reserved1", 0, "i"), *_charv("ReturnedName"),
               ("TypeString", b"", "8s")]


class DMPO(MQStruct):
    """MQDMPO: options of MQDLTMP (12 bytes)."""
    _fields = [("StrucId", CMQC.MQDMPO_STRUC_ID, "4s"), ("Version", CMQC.MQDMPO_VERSION_1, "i"),
               ("Options", CMQC.MQDMPO_DEL_FIRST, "i")]


class PD(MQStruct):
    """MQPD: a property's descriptor (24 bytes)."""
    _fields = [("StrucId", CMQC.MQPD_STRUC_ID, "4s"), ("Version", CMQC.MQPD_VERSION_1, "i"),
               ("Options", CMQC.MQPD_NONE, "i"), ("Support", CMQC.MQPD_SUPPORT_OPTIONAL, "i"),
               ("Context", CMQC.MQPD_NO_CONTEXT, "i"), ("CopyOptions", CMQC.MQCOPY_DEFAULT, "i")]
