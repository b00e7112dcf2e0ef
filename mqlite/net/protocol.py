"""The mqlite wire protocol: framing and the encodings of MQI calls (see docs/protocol.md).

A frame is a 4-byte big-endian length (of what follows), a 1-byte frame type and a payload.
MQI structures travel in their MQ binary layouts (MQMD 364 bytes, MQOD 424, MQPMO 184, MQGMO 112),
so client and server agree on every field; integers are little-endian (the layouts' native order).
"""
from __future__ import annotations

import json
import socket
import struct
from typing import Any

from mqlite.cmq.structs import GMO, MD, OD, PMO

PROTOCOL_VERSION = 1
MAX_FRAME = 110 * 1024 * 1024          # a 100 MB message plus headers
HEADER = struct.Struct(">IB")

# Frame types --------------------------------------------------------------------------------------
HELLO, HELLO_OK, ERROR = 0x01, 0x02, 0x03
OPEN, CLOSE, PUT, PUT1, GET, INQ, SET, CMIT, BACK, DISC = range(0x10, 0x1A)
MQSC, CONTROL = 0x20, 0x21
REPLY = 0x80                           # a reply carries the request type | REPLY

MD_LEN, OD_LEN, PMO_LEN, GMO_LEN = MD().get_length(), OD().get_length(), PMO().get_length(), GMO().get_length()
II = struct.Struct("<ii")
III = struct.Struct("<iii")
I1 = struct.Struct("<i")


class ProtocolError(Exception):
    """Bytes that are not a valid frame: the connection is closed and the error logged."""


def recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("connection closed")
        buf += chunk
    return bytes(buf)


def recv_frame(sock: socket.socket, max_frame: int = MAX_FRAME) -> tuple[int, bytes]:
    head = sock.recv(5)
    if len(head) < 5:
        if not head:
            raise ConnectionError("connection closed")
        head += recv_exact(sock, 5 - len(head))
    length, ftype = HEADER.unpack(head)
    if length < 1 or length > max_frame:
        raise ProtocolError(f"frame length {length} outside 1..{max_frame}")
    n = length - 1
    if n == 0:
        return ftype, b""
    data = sock.recv(n)
    if len(data) < n:
        if not data:
            raise ConnectionError("connection closed")
        data += recv_exact(sock, n - len(data))
    return ftype, data


def frame(ftype: int, payload: bytes = b"") -> bytes:
    return HEADER.pack(len(payload) + 1, ftype) + payload


def send_frame(sock: socket.socket, ftype: int, payload: bytes = b"") -> None:
    if len(payload) < 65536:
        sock.sendall(HEADER.pack(len(payload) + 1, ftype) + payload)
    else:
        sock.sendall(HEADER.pack(len(payload) + 1, ftype))
        sock.sendall(payload)


def encode_json(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def decode_json(data: bytes) -> Any:
    try:
        return json.loads(data.decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ProtocolError(f"bad JSON payload: {e}") from None


# MQINQ values: each is 'i' + int32, or 's' + uint32 length + bytes ------------------------------
def encode_values(values: list[Any]) -> bytes:
    out = bytearray(I1.pack(len(values)))
    for v in values:
        if isinstance(v, int):
            out += b"i" + I1.pack(v)
        else:
            b = v.encode() if isinstance(v, str) else bytes(v)
            out += b"s" + I1.pack(len(b)) + b
    return bytes(out)


def decode_values(data: bytes, offset: int = 0) -> tuple[list[Any], int]:
    try:
        (n,) = I1.unpack_from(data, offset)
        offset += 4
        if n < 0 or n > 256:
            raise ProtocolError("bad value count")
        out: list[Any] = []
        for _ in range(n):
            tag = data[offset:offset + 1]
            offset += 1
            (x,) = I1.unpack_from(data, offset)
            offset += 4
            if tag == b"i":
                out.append(x)
            elif tag == b"s":
                if x < 0 or offset + x > len(data):
                    raise ProtocolError("bad string length")
                out.append(data[offset:offset + x])
                offset += x
            else:
                raise ProtocolError("bad value tag")
        return out, offset
    except struct.error as e:
        raise ProtocolError(f"truncated values: {e}") from None
