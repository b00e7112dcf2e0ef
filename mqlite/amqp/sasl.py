"""AMQP 1.0's SASL layer (section 5.3) as the queue manager answers it, sans-IO: the frames a server
sends (sasl-mechanisms, sasl-outcome) and reads (sasl-init), encoded with Qpid Proton's AMQP type
codec. mqlite answers SASL itself because Proton built without Cyrus SASL cannot check a PLAIN
password at a server; the AMQP layer after it is Proton's (docs/amqp.md)."""
from __future__ import annotations

import struct
from dataclasses import dataclass

from proton import Data, symbol

SASL_HEADER = b"AMQP\x03\x01\x00\x00"
AMQP_HEADER = b"AMQP\x00\x01\x00\x00"
MECHANISMS, INIT, OUTCOME = 0x40, 0x41, 0x44
OK, AUTH = 0, 1                      # sasl-outcome codes: ok, authentication failed
MAX_FRAME = 65536                    # a SASL frame bigger than this is refused


class SaslError(ValueError):
    """A SASL frame that breaks the specification: the connection is closed."""


@dataclass
class Init:
    mechanism: str
    response: bytes


def frame(code: int, put: list) -> bytes:
    """A SASL frame (type 1) carrying the described list ``code`` with the fields ``put`` writes."""
    d = Data()
    d.put_described()
    d.enter()
    d.put_ulong(code)
    d.put_list()
    d.enter()
    for p in put:
        p(d)
    d.exit()
    d.exit()
    body = d.encode()
    return struct.pack(">IBBH", 8 + len(body), 2, 1, 0) + body


def mechanisms(names: list[str]) -> bytes:
    def put(d: Data) -> None:
        d.put_array(False, Data.SYMBOL)
        d.enter()
        for n in names:
            d.put_symbol(symbol(n))
        d.exit()
    return frame(MECHANISMS, [put])


def outcome(code: int) -> bytes:
    return frame(OUTCOME, [lambda d: d.put_ubyte(code)])


def frame_size(head: bytes) -> int:
    """A frame's size from its first four bytes (checked against MAX_FRAME)."""
    (size,) = struct.unpack(">I", head)
    if not 8 <= size <= MAX_FRAME:
        raise SaslError(f"a SASL frame of {size} bytes")
    return int(size)


def read_init(frame_bytes: bytes) -> Init:
    """The sasl-init frame (its whole bytes, header included): the mechanism and initial response."""
    if len(frame_bytes) < 8 or frame_bytes[5] != 1:
        raise SaslError("not a SASL frame")
    doff = frame_bytes[4] * 4
    d = Data()
    try:
        d.decode(frame_bytes[doff:])
        d.rewind()
        if d.next() != Data.DESCRIBED:
            raise SaslError("the frame body is not a described type")
        d.enter()
        d.next()
        if d.get_ulong() != INIT:
            raise SaslError("the client did not send sasl-init")
        d.next()
        d.enter()
        d.next()
        mechanism = str(d.get_symbol())
        response = b""
        if d.next() == Data.BINARY:
            response = bytes(d.get_binary())
    except SaslError:
        raise
    except Exception as e:          # (Proton's codec: DataException, TypeError)
        raise SaslError(f"sasl-init could not be read: {e}") from None
    return Init(mechanism, response)


def plain(response: bytes) -> tuple[str, str] | None:
    """PLAIN's initial response (RFC 4616: authzid NUL authcid NUL passwd): (user, password)."""
    parts = response.split(b"\0")
    if len(parts) != 3 or not parts[1]:
        return None
    try:
        return parts[1].decode("utf-8"), parts[2].decode("utf-8")
    except UnicodeDecodeError:
        return None
