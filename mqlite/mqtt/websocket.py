"""MQTT over WebSockets as an MQTT channel with PROTOCOL(HTTP) serves it (MQ Telemetry since 7.5.0.1;
MQTT 3.1.1 section 6), sans-IO: the opening handshake (RFC 6455 4.2: an HTTP GET with Upgrade:
websocket, answered 101 with Sec-WebSocket-Accept and the ``mqtt`` subprotocol) and the frames
(5.2: the client's masked, ours not). MQTT packets travel in binary frames, which may hold several
packets or part of one; a text frame is a protocol error (MQTT-6.0.0-1). A ping is answered with
a pong; a close ends the connection."""
from __future__ import annotations

import base64
import hashlib
import struct
from collections.abc import Iterator

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
SUBPROTOCOLS = ("mqtt", "mqttv3.1")          # (MQTT 3.1.1's name, and 3.1's that Paho JavaScript sends)
MAX_REQUEST = 8192
CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


class WebSocketError(ValueError):
    """A handshake or frame that breaks RFC 6455 or MQTT's rules for it: the connection ends."""


def is_http(first: bytes) -> bool:
    """Whether a connection's first bytes are an HTTP request rather than an MQTT CONNECT."""
    return first[:4] == b"GET "


def accept_key(key: str) -> str:
    return base64.b64encode(hashlib.sha1(key.encode("ascii") + GUID).digest()).decode("ascii")


def handshake(request: bytes) -> bytes:
    """The answer to a complete opening request (up to its blank line): 101 Switching Protocols, or
    WebSocketError (the caller answers 400 and closes)."""
    try:
        lines = request.decode("latin-1").split("\r\n")
    except UnicodeDecodeError:                  # (latin-1 decodes any byte: kept for clarity)
        raise WebSocketError("the request is not text") from None
    method = lines[0].split(" ")
    if len(method) != 3 or method[0] != "GET" or not method[2].startswith("HTTP/1.1"):
        raise WebSocketError(f"not a WebSocket opening request: {lines[0][:80]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            break
        name, sep, value = line.partition(":")
        if not sep:
            raise WebSocketError(f"a malformed header line: {line[:80]!r}")
        headers[name.strip().lower()] = value.strip()
    if "websocket" not in headers.get("upgrade", "").lower() or \
            "upgrade" not in headers.get("connection", "").lower():
        raise WebSocketError("no Upgrade: websocket")
    key = headers.get("sec-websocket-key", "")
    try:
        if len(base64.b64decode(key, validate=True)) != 16:
            raise ValueError
    except ValueError:
        raise WebSocketError("no valid Sec-WebSocket-Key") from None
    offered = [p.strip() for p in headers.get("sec-websocket-protocol", "").split(",")]
    chosen = next((p for p in offered if p in SUBPROTOCOLS), None)
    if chosen is None:
        raise WebSocketError("the client does not offer the mqtt subprotocol")      # MQTT-6.0.0-3
    return ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Accept: {accept_key(key)}\r\nSec-WebSocket-Protocol: {chosen}\r\n\r\n").encode("ascii")


REFUSED = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


def frame(opcode: int, payload: bytes) -> bytes:
    """One final, unmasked frame (a server's)."""
    n = len(payload)
    if n < 126:
        head = struct.pack(">BB", 0x80 | opcode, n)
    elif n < 1 << 16:
        head = struct.pack(">BBH", 0x80 | opcode, 126, n)
    else:
        head = struct.pack(">BBQ", 0x80 | opcode, 127, n)
    return head + payload


class FrameDecoder:
    """The client's frames from a byte stream: ``feed`` bytes, then ``frames`` yields (opcode,
    payload) of each whole one, unmasked. A client frame must be masked (5.1); one announced
    over ``max_frame`` bytes, a fragmented control frame or a text frame is a WebSocketError."""

    def __init__(self, max_frame: int) -> None:
        self.max_frame = max_frame
        self.buf = bytearray()
        self.fragment_opcode: int | None = None
        self.fragments = bytearray()

    def feed(self, data: bytes) -> None:
        self.buf += data

    def frames(self) -> Iterator[tuple[int, bytes]]:
        while True:
            got = self._one()
            if got is None:
                return
            fin, opcode, payload = got
            if opcode >= CLOSE:                 # control frames: never fragmented
                if not fin or len(payload) > 125:
                    raise WebSocketError("a fragmented or oversized control frame")
                yield opcode, payload
                continue
            if opcode == TEXT:
                raise WebSocketError("a text frame (MQTT travels in binary frames)")      # MQTT-6.0.0-1
            if opcode == CONTINUATION:
                if self.fragment_opcode is None:
                    raise WebSocketError("a continuation with nothing to continue")
            elif self.fragment_opcode is not None:
                raise WebSocketError("a new message inside a fragmented one")
            else:
                self.fragment_opcode = opcode
            self.fragments += payload
            if len(self.fragments) > self.max_frame:
                raise WebSocketError("a message over the largest packet")
            if fin:
                data, self.fragments, self.fragment_opcode = bytes(self.fragments), bytearray(), None
                yield BINARY, data

    def _one(self) -> tuple[bool, int, bytes] | None:
        b = self.buf
        if len(b) < 2:
            return None
        fin, opcode, masked, n = b[0] & 0x80, b[0] & 0x0F, b[1] & 0x80, b[1] & 0x7F
        if b[0] & 0x70:
            raise WebSocketError("reserved bits set")
        if opcode not in (CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG):
            raise WebSocketError(f"unknown opcode {opcode}")
        if not masked:
            raise WebSocketError("a client frame that is not masked")
        at = 2
        if n == 126:
            if len(b) < 4:
                return None
            n, at = struct.unpack_from(">H", b, 2)[0], 4
        elif n == 127:
            if len(b) < 10:
                return None
            n, at = struct.unpack_from(">Q", b, 2)[0], 10
        if n > self.max_frame:
            raise WebSocketError(f"a frame of {n} bytes announced")
        if len(b) < at + 4 + n:
            return None
        mask = bytes(b[at:at + 4])
        data = bytes(b[at + 4:at + 4 + n])
        del b[:at + 4 + n]
        if n:
            key = (mask * (n // 4 + 1))[:n]
            data = (int.from_bytes(data, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")
        return bool(fin), opcode, data
