"""MQMDs kept as the bytes they came in: read a field without decoding the rest (``PackedMD``),
and replace the fields an MQGET's property conversion changes (``md_with_format``)."""
from __future__ import annotations

import struct
from typing import Any

from mqlite.cmq.structs import MD


class PackedMD(MD):
    """An MQMD that keeps its packed bytes and decodes them only when a field is first used
    (``MD.held``), and decodes them before any field is set: while a PackedMD holds its bytes they
    are the whole descriptor, so the server may store or send them on as they are.

    A message that crosses a channel is stored and sent on with its descriptor as it came; most are
    never looked into, so most never pay for decoding.
    """

    @classmethod
    def of(cls, raw: bytes) -> "PackedMD":
        return cls.held(raw)

    def __setattr__(self, name: str, value: Any) -> None:
        self.decoded()
        super().__setattr__(name, value)


_ENC_AT, _FMT_AT = MD.field_slice("Encoding").start, MD.field_slice("Format")
_ENC_CCSID = struct.Struct("@ii")
assert MD.field_slice("CodedCharSetId").start == _ENC_AT + 4 == _FMT_AT.start - 4


_REPORT_AT = MD.field_slice("Report").start
assert _REPORT_AT == 8 and _ENC_AT == 24 and _FMT_AT.start == 32
_REPORT_TO_FORMAT = struct.Struct("@8xi12xii8s")


def report_and_format(raw: bytes) -> tuple[int, int, int, bytes]:
    """Report, Encoding, CodedCharSetId and Format of a packed MQMD in one read: what an MQGET
    decides on for every message."""
    return _REPORT_TO_FORMAT.unpack_from(raw)


def md_with_format(raw: bytes, fmt: bytes, encoding: int, ccsid: int) -> bytes:
    """A packed MQMD with its Encoding, CodedCharSetId and Format replaced (what an MQGET that
    takes the properties out of the data changes), without unpacking the rest."""
    return b"".join((raw[:_ENC_AT], _ENC_CCSID.pack(encoding, ccsid), fmt[:8].ljust(8, b" "), raw[_FMT_AT.stop:]))


# A publication's copies differ only in these two runs of fields: MsgId and CorrelId (48 bytes
# together), and the identity context (UserIdentifier, AccountingToken, ApplIdentityData: 76).
_IDS_AT, _IDENTITY_AT = MD.field_slice("MsgId").start, MD.field_slice("UserIdentifier").start
assert MD.field_slice("CorrelId").start == _IDS_AT + 24
assert MD.field_slice("ApplIdentityData").stop == _IDENTITY_AT + 76


def identity_block(user: bytes, accounting_token: bytes, appl_identity: bytes) -> bytes:
    """The identity context fields as they lie in a packed MQMD."""
    return user[:12].ljust(12, b" ") + accounting_token[:32].ljust(32, b"\0") + appl_identity[:32].ljust(32, b" ")


def md_for_copy(template: bytes, msg_id: bytes, correl_id: bytes, identity: bytes) -> bytes:
    """A packed MQMD made from ``template`` with its MsgId, CorrelId (24 bytes each) and identity
    context (``identity_block``) replaced: one copy of a publication, without packing the rest."""
    return b"".join((template[:_IDS_AT], msg_id, correl_id, template[_IDS_AT + 48:_IDENTITY_AT], identity,
                     template[_IDENTITY_AT + 76:]))
