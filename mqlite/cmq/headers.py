"""The MQ headers that travel in front of message data on a queue: MQXQH (a message on a
transmission queue) and MQDLH (a message on the dead-letter queue), with the offsets in a packed
MQXQH that an MCA reads directly."""
from __future__ import annotations

from typing import Any

from mqlite.cmq import CMQC
from mqlite.cmq.structs import MD, MD1, MQStruct


class XQH(MQStruct):
    """MQXQH: the header in front of every message on a transmission queue (428 bytes).

    ``MsgDesc`` is the original message descriptor, an ``MD1`` packed after the four fixed fields.
    """

    _fields = [
        ("StrucId", CMQC.MQXQH_STRUC_ID, "4s"),
        ("Version", CMQC.MQXQH_VERSION_1, "i"),
        ("RemoteQName", b"", "48s"),
        ("RemoteQMgrName", b"", "48s"),
    ]

    def __init__(self, **kw: Any) -> None:
        self.__dict__["MsgDesc"] = MD1()
        super().__init__(**kw)

    def get_length(self) -> int:
        return CMQC.MQXQH_CURRENT_LENGTH

    def pack(self) -> bytes:
        return super().pack() + self.MsgDesc.pack()

    def unpack(self, buf: bytes, offset: int = 0) -> "XQH":
        if len(buf) - offset < CMQC.MQXQH_CURRENT_LENGTH:
            raise ValueError(f"XQH: buffer of {len(buf) - offset} bytes, need {CMQC.MQXQH_CURRENT_LENGTH}")
        super().unpack(buf[offset:offset + 104])
        self.__dict__["MsgDesc"] = MD1.from_bytes(buf[offset + 104:offset + CMQC.MQXQH_CURRENT_LENGTH])
        return self

    @classmethod
    def from_bytes(cls, buf: bytes) -> "XQH":
        obj = cls()
        return obj.unpack(buf)


# Where an MQXQH keeps what an MCA needs, read straight from the packed header: the destination
# names, and the original Format and CorrelId (on a cluster transmission queue the message's own
# CorrelId names the channel). All from the layouts above.
XQH_LEN = CMQC.MQXQH_CURRENT_LENGTH
XQH_FIXED = XQH._struct                            # the fields before the embedded MQMD
XQH_REMOTE_Q = XQH.field_slice("RemoteQName")
XQH_REMOTE_QM = XQH.field_slice("RemoteQMgrName")
_MD_FORMAT, _MD_CORREL = MD.field_slice("Format"), MD.field_slice("CorrelId")
XQH_ORIG_FORMAT = slice(XQH_FIXED.size + _MD_FORMAT.start, XQH_FIXED.size + _MD_FORMAT.stop)
XQH_ORIG_CORREL = slice(XQH_FIXED.size + _MD_CORREL.start, XQH_FIXED.size + _MD_CORREL.stop)


def original_md(md_bytes: bytes, body: bytes) -> bytes:
    """The packed MQMD a message on a transmission queue had before: its own descriptor with the
    Format and CorrelId its MQXQH (the start of ``body``) kept."""
    return (md_bytes[:_MD_FORMAT.start] + body[XQH_ORIG_FORMAT] + md_bytes[_MD_FORMAT.stop:_MD_CORREL.start]
            + body[XQH_ORIG_CORREL] + md_bytes[_MD_CORREL.stop:])


class DLH(MQStruct):
    """MQDLH: the header in front of a message on the dead-letter queue (172 bytes)."""

    _fields = [
        ("StrucId", CMQC.MQDLH_STRUC_ID, "4s"),
        ("Version", CMQC.MQDLH_VERSION_1, "i"),
        ("Reason", CMQC.MQRC_NONE, "i"),
        ("DestQName", b"", "48s"),
        ("DestQMgrName", b"", "48s"),
        ("Encoding", CMQC.MQENC_NATIVE, "i"),
        ("CodedCharSetId", CMQC.MQCCSI_UNDEFINED, "i"),
        ("Format", CMQC.MQFMT_NONE, "8s"),
        ("PutApplType", CMQC.MQAT_NO_CONTEXT, "i"),
        ("PutApplName", b"", "28s"),
        ("PutDate", b"", "8s"),
        ("PutTime", b"", "8s"),
    ]
