"""Programmable Command Format: the binary layouts of MQCFH and its parameter structures.

A PCF message is an MQCFH (36 bytes) followed by ParameterCount parameters, each starting with its
Type and StrucLength. Integers are in the native (little-endian) encoding; strings are padded to a
multiple of four bytes. Both the command server and ``PCFExecute`` use this module.
"""
from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mqlite.cmq import CMQCFC as F

CFH = struct.Struct("<9i")
I2 = struct.Struct("<ii")
I3 = struct.Struct("<iii")
I4 = struct.Struct("<iiii")
I5 = struct.Struct("<iiiii")
I6 = struct.Struct("<iiiiii")


class PCFError(ValueError):
    """A malformed PCF message; ``reason`` is the MQRCCF code to answer with."""

    def __init__(self, reason: int, detail: str, parameter: int = 0) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.parameter = parameter


@dataclass
class Header:
    type: int = F.MQCFT_COMMAND
    struc_length: int = F.MQCFH_STRUC_LENGTH
    version: int = F.MQCFH_VERSION_1
    command: int = 0
    msg_seq_number: int = 1
    control: int = F.MQCFC_LAST
    comp_code: int = 0
    reason: int = 0
    parameter_count: int = 0

    def pack(self) -> bytes:
        return CFH.pack(self.type, self.struc_length, self.version, self.command, self.msg_seq_number,
                        self.control, self.comp_code, self.reason, self.parameter_count)


@dataclass
class Filter:
    """An integer or string filter (MQCFIF / MQCFSF): selector, MQCFOP operator, value."""

    selector: int
    operator: int
    value: Any


@dataclass
class Message:
    header: Header
    params: list[tuple[int, int, Any]] = field(default_factory=list)   # (type, selector, value)

    def first(self, selector: int, default: Any = None) -> Any:
        for _t, sel, value in self.params:
            if sel == selector:
                return value
        return default


def _pad4(b: bytes) -> bytes:
    return b + b" " * (-len(b) % 4)


def _pad_nul(b: bytes) -> bytes:
    return b + b"\0" * (-len(b) % 4)


def enc_int(selector: int, value: int) -> bytes:
    return I4.pack(F.MQCFT_INTEGER, F.MQCFIN_STRUC_LENGTH, selector, value)


def enc_int64(selector: int, value: int) -> bytes:
    return I4.pack(F.MQCFT_INTEGER64, 24, selector, 0) + struct.pack("<q", value)


def enc_int64_list(selector: int, values: list[int]) -> bytes:
    return I4.pack(F.MQCFT_INTEGER64_LIST, 16 + 8 * len(values), selector, len(values)) + struct.pack(
        f"<{len(values)}q", *values)


def enc_str(selector: int, value: bytes | str, ccsid: int = 0, nul: bool = False) -> bytes:
    """An MQCFST; the string is padded to four bytes with blanks (``nul``: with NULs, as pymqi's CFST)."""
    b = value.encode() if isinstance(value, str) else value
    body = _pad_nul(b) if nul else _pad4(b)
    return I5.pack(F.MQCFT_STRING, 20 + len(body), selector, ccsid, len(b)) + body


def enc_int_list(selector: int, values: list[int]) -> bytes:
    return I4.pack(F.MQCFT_INTEGER_LIST, 16 + 4 * len(values), selector, len(values)) + \
        struct.pack(f"<{len(values)}i", *values)


def enc_str_list(selector: int, values: Sequence[bytes | str], ccsid: int = 0) -> bytes:
    bs = [v.encode() if isinstance(v, str) else v for v in values]
    width = max((len(b) for b in bs), default=0)
    body = _pad4(b"".join(b.ljust(width) for b in bs))
    return I6.pack(F.MQCFT_STRING_LIST, 24 + len(body), selector, ccsid, len(bs), width) + body


def enc_bytes(selector: int, value: bytes) -> bytes:
    body = _pad_nul(value)
    return I4.pack(F.MQCFT_BYTE_STRING, 16 + len(body), selector, len(value)) + body


def enc_group(selector: int, params: list[bytes]) -> bytes:
    """An MQCFGR: its own 16 bytes, followed by the ``params`` it counts."""
    return I4.pack(F.MQCFT_GROUP, 16, selector, len(params)) + b"".join(params)


def raw_params(data: bytes) -> list[bytes]:
    """A PCF message's parameters as they were sent, one bytes each (a group with its members),
    for an event that replicates a command's data."""
    count = CFH.unpack_from(data, 0)[8]

    def take(off: int) -> int:
        ptype, length = struct.unpack_from("<2i", data, off)
        end = off + length
        if ptype == F.MQCFT_GROUP:
            for _ in range(struct.unpack_from("<i", data, off + 12)[0]):
                end = take(end)
        return end
    out, off = [], CFH.size
    for _ in range(count):
        end = take(off)
        out.append(data[off:end])
        off = end
    return out


def enc_int_filter(selector: int, operator: int, value: int) -> bytes:
    return I5.pack(F.MQCFT_INTEGER_FILTER, 20, selector, operator, value)


def enc_str_filter(selector: int, operator: int, value: bytes | str, ccsid: int = 0, nul: bool = False) -> bytes:
    b = value.encode() if isinstance(value, str) else value
    body = _pad_nul(b) if nul else _pad4(b)
    return I6.pack(F.MQCFT_STRING_FILTER, 24 + len(body), selector, operator, ccsid, len(b)) + body


def enc_bytes_filter(selector: int, operator: int, value: bytes) -> bytes:
    body = _pad_nul(value)
    return I5.pack(F.MQCFT_BYTE_STRING_FILTER, 20 + len(body), selector, operator, len(value)) + body


def encode(header: Header, params: list[bytes]) -> bytes:
    header.parameter_count = len(params)
    return header.pack() + b"".join(params)


_COMMAND_TYPES = frozenset((F.MQCFT_COMMAND, F.MQCFT_COMMAND_XR, F.MQCFT_RESPONSE, F.MQCFT_XR_MSG, F.MQCFT_XR_ITEM,
                           F.MQCFT_XR_SUMMARY, F.MQCFT_EVENT, F.MQCFT_STATISTICS, F.MQCFT_ACCOUNTING))


def decode(data: bytes, any_type: bool = False, padded: bool = False) -> Message:
    """Parse a PCF message; raises PCFError with the MQRCCF reason for what is wrong. With
    ``any_type`` every MQCFH Type is read (MQCFT_USER, MQCFT_REPORT, ...: messages an application
    reads, not commands); with ``padded`` strings keep the padding of their StrucLength (pymqi's
    values)."""
    if len(data) < F.MQCFH_STRUC_LENGTH:
        raise PCFError(F.MQRCCF_MSG_LENGTH_ERROR, f"message of {len(data)} bytes is shorter than an MQCFH")
    h = Header(*CFH.unpack_from(data))
    if h.struc_length != F.MQCFH_STRUC_LENGTH:
        raise PCFError(F.MQRCCF_CFH_LENGTH_ERROR, f"MQCFH StrucLength {h.struc_length}")
    if h.version not in (1, 2, 3):
        raise PCFError(F.MQRCCF_CFH_VERSION_ERROR, f"MQCFH Version {h.version}")
    if h.type not in _COMMAND_TYPES and not any_type:
        raise PCFError(F.MQRCCF_CFH_TYPE_ERROR, f"MQCFH Type {h.type}")
    if h.parameter_count < 0:
        raise PCFError(F.MQRCCF_CFH_PARM_COUNT_ERROR, f"ParameterCount {h.parameter_count}")
    msg = Message(h)
    off, _ = _decode_params(data, F.MQCFH_STRUC_LENGTH, h.parameter_count, msg.params, 0, padded)
    if off != len(data):
        raise PCFError(F.MQRCCF_MSG_LENGTH_ERROR, f"{len(data) - off} bytes after the last parameter")
    return msg


MAX_GROUP_DEPTH = 16


def _decode_params(data: bytes, off: int, count: int, out: list[tuple[int, int, Any]],
                   depth: int = 0, padded: bool = False) -> tuple[int, int]:
    if depth > MAX_GROUP_DEPTH:
        raise PCFError(F.MQRCCF_CFGR_PARM_COUNT_ERROR, f"groups nested deeper than {MAX_GROUP_DEPTH}")
    for _ in range(count):
        if off + 8 > len(data):
            raise PCFError(F.MQRCCF_CFH_PARM_COUNT_ERROR, "fewer parameters than ParameterCount")
        ptype, length = I2.unpack_from(data, off)
        if length < 12 or off + length > len(data) or length % 4:
            raise PCFError(_length_error(ptype), f"parameter of type {ptype} with StrucLength {length}")
        sel = struct.unpack_from("<i", data, off + 8)[0]
        try:
            value, used = _decode_one(data, off, ptype, length, sel, out, depth, padded)
        except struct.error:
            raise PCFError(_length_error(ptype), f"parameter {sel} is truncated", sel) from None
        if used != length and ptype != F.MQCFT_GROUP:
            raise PCFError(_length_error(ptype), f"parameter {sel}: StrucLength {length}, content {used}", sel)
        off += length if ptype != F.MQCFT_GROUP else used
        if ptype != F.MQCFT_GROUP:
            out.append((ptype, sel, value))
    return off, count


def _length_error(ptype: int) -> int:
    return {F.MQCFT_INTEGER: F.MQRCCF_CFIN_LENGTH_ERROR, F.MQCFT_STRING: F.MQRCCF_CFST_LENGTH_ERROR,
            F.MQCFT_INTEGER_LIST: F.MQRCCF_CFIL_LENGTH_ERROR, F.MQCFT_INTEGER64_LIST: F.MQRCCF_CFIL_LENGTH_ERROR,
            F.MQCFT_INTEGER64: F.MQRCCF_CFIN_LENGTH_ERROR, F.MQCFT_STRING_LIST: F.MQRCCF_CFSL_TOTAL_LENGTH_ERROR,
            F.MQCFT_BYTE_STRING: F.MQRCCF_CFBS_LENGTH_ERROR, F.MQCFT_GROUP: F.MQRCCF_CFGR_LENGTH_ERROR,
            F.MQCFT_INTEGER_FILTER: F.MQRCCF_CFIF_LENGTH_ERROR,
            F.MQCFT_STRING_FILTER: F.MQRCCF_CFSF_LENGTH_ERROR}.get(ptype, F.MQRCCF_STRUCTURE_TYPE_ERROR)


def _decode_one(data: bytes, off: int, ptype: int, length: int, sel: int,
                out: list[tuple[int, int, Any]], depth: int, padded: bool) -> tuple[Any, int]:
    if ptype == F.MQCFT_INTEGER:
        return struct.unpack_from("<i", data, off + 12)[0], 16
    if ptype == F.MQCFT_INTEGER64:
        return struct.unpack_from("<q", data, off + 16)[0], 24
    if ptype == F.MQCFT_STRING:
        _ccsid, n = struct.unpack_from("<ii", data, off + 12)
        if n < 0 or 20 + n > length:
            raise PCFError(F.MQRCCF_CFST_STRING_LENGTH_ERR, f"string length {n}", sel)
        used = 20 + n + (-n % 4)
        return data[off + 20:off + (used if padded else 20 + n)], used
    if ptype in (F.MQCFT_INTEGER_LIST, F.MQCFT_INTEGER64_LIST):
        (n,) = struct.unpack_from("<i", data, off + 12)
        size, code = (4, "i") if ptype == F.MQCFT_INTEGER_LIST else (8, "q")
        if n < 0 or 16 + size * n > length:
            raise PCFError(F.MQRCCF_CFIL_COUNT_ERROR, f"count {n}", sel)
        return list(struct.unpack_from(f"<{n}{code}", data, off + 16)), 16 + size * n
    if ptype == F.MQCFT_STRING_LIST:
        _ccsid, n, width = struct.unpack_from("<iii", data, off + 12)
        if n > 0 and width <= 0:
            raise PCFError(F.MQRCCF_CFSL_STRING_LENGTH_ERR, f"{n} strings of length {width}", sel)
        if n < 0 or 24 + n * width > length:
            raise PCFError(F.MQRCCF_CFSL_COUNT_ERROR, f"count {n} width {width}", sel)
        items = [data[off + 24 + i * width:off + 24 + (i + 1) * width] for i in range(n)]
        return items, 24 + n * width + (-(n * width) % 4)
    if ptype == F.MQCFT_BYTE_STRING:
        (n,) = struct.unpack_from("<i", data, off + 12)
        if n < 0 or 16 + n > length:
            raise PCFError(F.MQRCCF_CFBS_STRING_LENGTH_ERR, f"length {n}", sel)
        return data[off + 16:off + 16 + n], 16 + n + (-n % 4)
    if ptype == F.MQCFT_INTEGER_FILTER:
        op, value = struct.unpack_from("<ii", data, off + 12)
        return Filter(sel, op, value), 20
    if ptype == F.MQCFT_STRING_FILTER:
        op, _ccsid, n = struct.unpack_from("<iii", data, off + 12)
        if n < 0 or 24 + n > length:
            raise PCFError(F.MQRCCF_CFSF_FILTER_VAL_LEN_ERR, f"filter length {n}", sel)
        used = 24 + n + (-n % 4)
        return Filter(sel, op, data[off + 24:off + (used if padded else 24 + n)]), used
    if ptype == F.MQCFT_BYTE_STRING_FILTER:
        op, n = struct.unpack_from("<ii", data, off + 12)
        if n < 0 or 20 + n > length:
            raise PCFError(F.MQRCCF_CFBF_FILTER_VAL_LEN_ERR, f"filter length {n}", sel)
        return Filter(sel, op, data[off + 20:off + 20 + n]), 20 + n + (-n % 4)
    if ptype == F.MQCFT_GROUP:
        (n,) = struct.unpack_from("<i", data, off + 12)
        group: list[tuple[int, int, Any]] = []
        end, _ = _decode_params(data, off + 16, n, group, depth + 1, padded)
        out.append((ptype, sel, group))
        return group, end - off
    raise PCFError(F.MQRCCF_STRUCTURE_TYPE_ERROR, f"parameter type {ptype}", sel)
