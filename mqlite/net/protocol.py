"""The mqlite wire protocol: framing and the encodings of MQI calls (see docs/protocol.md).

A frame is a 4-byte big-endian length (of what follows), a 1-byte frame type and a payload.
MQI structures travel in their MQ binary layouts (MQMD 364 bytes, MQOD 424, MQPMO 184, MQGMO 112),
so client and server agree on every field; integers are little-endian (the layouts' native order).
"""
from __future__ import annotations

import json
import os
import select
import socket
import ssl
import struct
import time
from typing import Any

from mqlite.cmq.structs import GMO, MD, OD, PMO

PROTOCOL_VERSION = 5          # 2: OPEN carries the SelectionString, GET replies the handle's properties;
                              # 3: the SUB reply gives back SubUserData and SelectionString too;
                              # 4: PUT1 carries the MQOD's ObjectString (MQPUT1 to a topic string)
                              # 5: CONSUME (asynchronous consume: one wait for several handles)
MAX_FRAME = 110 * 1024 * 1024          # a 100 MB message plus headers
HEADER = struct.Struct(">IB")

# Frame types --------------------------------------------------------------------------------------
HELLO, HELLO_OK, ERROR = 0x01, 0x02, 0x03
OPEN, CLOSE, PUT, PUT1, GET, INQ, SET, CMIT, BACK, DISC = range(0x10, 0x1A)
PUT_ASYNC, GET_BATCH, STAT = 0x1A, 0x1B, 0x1C   # MQ's asynchronous put, read-ahead and MQSTAT
BROWSE_BATCH = 0x1D                             # mqlite: browse up to N messages in one round trip
STREAM = 0x1E                                   # mqlite: a queue read by position (mark, read, delete)
XA = 0x1F                                       # mqlite: two-phase units of work (prepare, resolve, list)
STREAM_MARK, STREAM_READ, STREAM_DELETE, STREAM_MARK_COMMITTED, STREAM_DELETE_SYNCPOINT = 0, 1, 2, 3, 4
STREAM_REQ = struct.Struct("<iiqqii")           # hobj, operation, start, end, max_msgs, max_bytes
OPEN_ASYNC_PUT, OPEN_READ_AHEAD = 0x1, 0x2      # flags in the OPEN reply: the queue's defaults
OPEN_HOLD = 0x4                                 # ... and the handle can take held gets (BATCH_HOLD)
BATCH_SPECULATIVE = 0x1                         # GET_BATCH sent ahead: take no persistent message
BATCH_SYNCPOINT = 0x2                           # GET_BATCH under syncpoint: messages join the unit of work
BATCH_HOLD = 0x4                                # every message held until acknowledged, persistent ones too
BATCH_ACK = 0x8                                 # only acknowledge the consumed messages (held ones stay held)
MQSC, CONTROL = 0x20, 0x21
HEARTBEAT = 0x22                       # a client connection's heartbeat (server asks, client answers | REPLY)
SUB, SUBRQ = 0x23, 0x24                # MQSUB and MQSUBRQ
CANCEL = 0x25                          # end the MQGET wait in progress (no reply; ignored when none is)
CONSUME = 0x26                         # asynchronous consume: read-ahead batches and gets for several handles,
                                       # answered when any has something (or the wait ends, or CANCEL)
CONSUME_BATCH, CONSUME_GET = 0, 1      # the kinds of a CONSUME entry: a GET_BATCH request or a GET request
CH_MSG, CH_END, CH_HEARTBEAT, CH_PING, CH_CLOSE = 0x40, 0x41, 0x42, 0x43, 0x44   # message channels
CH_FAST = 0x1                          # CH_MSG flag: a fast nonpersistent message, outside the batch
REPLY = 0x80                           # a reply carries the request type | REPLY

MD_LEN, OD_LEN, PMO_LEN, GMO_LEN = MD().get_length(), OD().get_length(), PMO().get_length(), GMO().get_length()
II = struct.Struct("<ii")
III = struct.Struct("<iii")
I1 = struct.Struct("<i")


class ProtocolError(Exception):
    """Bytes that are not a valid frame: the connection is closed and the error logged."""


def recv_frame(sock: socket.socket, max_frame: int = MAX_FRAME, deadline: float | None = None) -> tuple[int, bytes]:
    """One frame. With ``deadline`` (time.monotonic()) the whole frame must arrive by then, however
    it is cut up (a HELLO sent a byte at a time does not get a new timeout per byte)."""
    def take(n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise socket.timeout("frame not complete in time")
                sock.settimeout(left)
            chunk = sock.recv(min(n - len(buf), 65536))
            if not chunk:
                raise ConnectionError("connection closed")
            buf += chunk
        return bytes(buf)
    length, ftype = HEADER.unpack(take(5))
    if length < 1 or length > max_frame:
        raise ProtocolError(f"frame length {length} outside 1..{max_frame}")
    return ftype, take(length - 1) if length > 1 else b""


# Before a blocking recv, poll the socket for this long: waking a sleeping thread costs far more
# than a request/reply on loopback (measured: 11k round trips/s blocking, 72k polling first).
# A client waits for one answer it needs (a persistent put's answer comes after an fsync, so its
# window is longer); the server polls for the next request only briefly.
SPIN = float(os.environ.get("MQLITE_SPIN_US", "800")) / 1e6
SERVER_SPIN = float(os.environ.get("MQLITE_SERVER_SPIN_US", "200")) / 1e6
SLOW_SHARE = 0.75       # answers taking this share of the window or more, on average, are not polled for


_CPUS = os.cpu_count() or 1
_LOAD_EVERY = 0.02            # seconds between readings of the machine's load
_load = [0.0, False]          # (when read, every core busy)


def cores_busy() -> bool:
    """Whether there are more runnable threads than cores (this one included): on two cores, the
    reader and the thread answering it are two, and one more (a build, a CPU hog, another client)
    means polling takes the CPU the answer needs. /proc/loadavg's count of runnable threads, read
    at most every 20 ms; where it cannot be read, no."""
    now = time.monotonic()
    if now - _load[0] > _LOAD_EVERY:
        _load[0] = now
        try:
            with open("/proc/loadavg", "rb") as f:
                _load[1] = int(f.read().split()[3].split(b"/")[0]) > _CPUS
        except (OSError, ValueError, IndexError):
            _load[1] = False
    return bool(_load[1])


def starts_tls(sock: socket.socket, timeout: float) -> bool:
    """Whether a new connection opens with a TLS handshake record (0x16) rather than a frame."""
    if not readable(sock, timeout):
        return False
    return sock.recv(1, socket.MSG_PEEK) == b"\x16"


def peer_closed(sock: socket.socket) -> bool:
    """Whether the partner has closed its end (or the connection is broken), without reading
    anything: poll for the hang-up, so that a TLS socket, which cannot peek, is asked too."""
    p = select.poll()
    p.register(sock, select.POLLRDHUP | select.POLLHUP | select.POLLERR)
    try:
        return bool(p.poll(0))
    except (OSError, ValueError):
        return True


def readable(sock: socket.socket, timeout: float) -> bool:
    """Whether the socket has something to read (or was closed) within ``timeout`` seconds
    (poll, not select: descriptors above 1023 are fine). A TLS socket may hold decrypted bytes."""
    pending = getattr(sock, "pending", None)
    if pending is not None and pending():
        return True
    p = select.poll()
    p.register(sock, select.POLLIN)
    return bool(p.poll(max(0, int(timeout * 1000))))


class FrameReader:
    """Reads frames through a buffer, so frames that arrive together cost one ``recv``."""

    # What one recv asks for: below glibc's mmap threshold (128 KiB), so that the buffer comes from
    # the heap. A reader that asked for 256 KiB had each recv's buffer mmapped, shrunk (mremap)
    # and unmapped, with two page faults, until a poll that found nothing happened to free one
    # whole and raised the threshold: 8 consumers that never polled spent 40% more CPU a get.
    # Larger frames are read into a buffer of their own size (``preallocate``) or gathered.
    CHUNK = 65536

    def __init__(self, sock: socket.socket, max_frame: int = MAX_FRAME, spin: float = 0.0,
                 frame_timeout: float | None = None, preallocate: int = 0) -> None:
        """``preallocate``: a frame up to this length is read straight into a buffer of its size
        (a client reading the server's read-ahead batches); larger ones, and every frame when 0
        (a server reading what clients claim), are gathered as they arrive."""
        self.sock = sock
        self.preallocate = preallocate
        self.max_frame = max_frame
        self.frame_timeout = frame_timeout   # a frame begun must go on arriving (None: wait forever)
        self.spin = spin
        self.buf = b""
        self.pos = 0
        self.wait = 0.0       # how long reads have taken (moving average, seconds): see _recv
        if isinstance(sock, ssl.SSLSocket):
            # TLS: no MSG_DONTWAIT through ssl; poll its descriptor and what it has decrypted.
            self._poll = select.poll()
            self._poll.register(sock, select.POLLIN)
            self._nowait = self._nowait_tls
        else:
            self._nowait = lambda n, _recv=sock.recv, _flags=socket.MSG_DONTWAIT: _recv(n, _flags)

    def read(self) -> tuple[int, bytes]:
        while True:
            buf, pos = self.buf, self.pos
            avail = len(buf) - pos
            need = 5
            if avail >= 5:
                length, ftype = HEADER.unpack_from(buf, pos)
                if length < 1 or length > self.max_frame:
                    raise ProtocolError(f"frame length {length} outside 1..{self.max_frame}")
                need = 4 + length
                if avail >= need:
                    self.pos = pos + need
                    return ftype, buf[pos + 5:pos + need]
            if avail >= 5 and self.CHUNK < need <= self.preallocate:
                # A frame of up to a few MiB (a read-ahead batch): read straight into its place.
                payload = bytearray(need - 5)
                view = memoryview(payload)
                have = avail - 5
                view[:have] = memoryview(buf)[pos + 5:pos + avail]
                while have < need - 5:
                    have += self._partial_recv_into(view[have:])
                self.buf, self.pos = b"", 0
                return ftype, bytes(payload)
            if avail >= 5 and need > self.CHUNK:
                # A large frame: gathered as it arrives (memory grows with the bytes received, not
                # with the length a header claims), each read bounded by ``frame_timeout``.
                payload = bytearray(buf[pos + 5:pos + avail])
                left = need - avail
                while left > 0:
                    chunk = self._partial_recv(min(left, 1 << 20))
                    payload += chunk
                    left -= len(chunk)
                self.buf, self.pos = b"", 0
                return ftype, bytes(payload)
            chunk = self._recv(max(self.CHUNK, need - avail), partial=avail > 0)
            if not chunk:
                raise ConnectionError("connection closed")
            if avail:
                parts = [buf[pos:], chunk]
                while sum(map(len, parts)) < need:   # a frame larger than what arrived: gather it
                    more = self._recv(max(self.CHUNK, need - sum(map(len, parts))), partial=True)
                    if not more:
                        raise ConnectionError("connection closed")
                    parts.append(more)
                self.buf = b"".join(parts)
            else:
                self.buf = chunk
            self.pos = 0

    def _recv(self, n: int, partial: bool = False) -> bytes:
        """Poll for up to ``spin`` seconds, then block, but only while answers have been coming
        quickly: ``wait`` follows how long reads take (a moving average, each reading capped at
        twice the window so that one long MQGET wait is soon forgotten). Answers that take most of
        the window or longer (an fsync behind each under load, a slow partner) are waited for
        asleep, and so is every read while all cores are busy: polling would only take the CPU
        the answer needs. Inside a frame (``partial``) a read lasts ``frame_timeout`` at most."""
        if partial and self.frame_timeout is not None:
            return self._partial_recv(n)
        if self.spin <= 0:
            return self.sock.recv(n)
        begin = time.perf_counter()
        data = None
        if self.wait < self.spin * SLOW_SHARE and not cores_busy():
            end = begin + self.spin
            nowait = self._nowait
            while True:
                try:
                    data = nowait(n)
                    break
                except BlockingIOError:
                    if time.perf_counter() > end:
                        break
        if data is None:
            data = self.sock.recv(n)
        self.wait = 0.75 * self.wait + 0.25 * min(time.perf_counter() - begin, 2 * self.spin)
        return data

    def _nowait_tls(self, n: int) -> bytes:
        sock = self.sock
        assert isinstance(sock, ssl.SSLSocket)
        if sock.pending() or self._poll.poll(0):
            return sock.recv(n)
        raise BlockingIOError

    def _partial_recv(self, n: int) -> bytes:
        """A read inside a frame: a partner that stops sending for ``frame_timeout`` is broken.
        (select, not a socket timeout: a socket in timeout mode would make the polls above block.)"""
        self._rest_arriving()
        data = self.sock.recv(n)
        if not data:
            raise ConnectionError("connection closed")
        return data

    def _partial_recv_into(self, view: memoryview) -> int:
        """``_partial_recv`` into the frame's own buffer: how many bytes arrived."""
        self._rest_arriving()
        n = self.sock.recv_into(view)
        if not n:
            raise ConnectionError("connection closed")
        return n

    def _rest_arriving(self) -> None:
        if self.frame_timeout is not None and not readable(self.sock, self.frame_timeout):
            raise ProtocolError(f"a frame was not completed within {self.frame_timeout:g} s")

    def buffered(self) -> bool:
        return len(self.buf) > self.pos

    def fill(self) -> int:
        """What has arrived, read without waiting onto the end of the buffer: how many bytes (0:
        the partner closed; BlockingIOError: nothing had arrived)."""
        data = self.sock.recv(self.CHUNK, socket.MSG_DONTWAIT)
        if data:
            self.buf = self.buf[self.pos:] + data if self.pos < len(self.buf) else data
            self.pos = 0
        return len(data)

    def whole(self) -> tuple[int, bytes] | None:
        """The next frame if it has arrived whole, else None (nothing is read from the socket)."""
        buf, pos = self.buf, self.pos
        if len(buf) - pos < 5:
            return None
        length, ftype = HEADER.unpack_from(buf, pos)
        if length < 1 or length > self.max_frame:
            raise ProtocolError(f"frame length {length} outside 1..{self.max_frame}")
        if len(buf) - pos < 4 + length:
            return None
        self.pos = pos + 4 + length
        return ftype, buf[pos + 5:pos + 4 + length]

    def take_buffered(self, ftype: int) -> bytes | None:
        """The next frame's payload if it is of type ``ftype`` and has arrived whole, else None
        (nothing is read from the socket): a run of frames already here, handled together."""
        buf, pos = self.buf, self.pos
        if len(buf) - pos < 5:
            return None
        length, kind = HEADER.unpack_from(buf, pos)
        if kind != ftype or len(buf) - pos < 4 + length or not 1 <= length <= self.max_frame:
            return None
        self.pos = pos + 4 + length
        return buf[pos + 5:pos + 4 + length]


def frame(ftype: int, payload: bytes = b"") -> bytes:
    return HEADER.pack(len(payload) + 1, ftype) + payload


def send_frame(sock: socket.socket, ftype: int, payload: bytes = b"") -> None:
    if len(payload) < 65536:
        sock.sendall(HEADER.pack(len(payload) + 1, ftype) + payload)
    else:
        sock.sendall(HEADER.pack(len(payload) + 1, ftype))
        sock.sendall(payload)


_KINDS: dict[str, Any] = {
    "str": lambda v: isinstance(v, str),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool) and -(1 << 63) <= v < (1 << 63),
    "bool": lambda v: isinstance(v, (bool, int)),
    "strs": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "ints": lambda v: isinstance(v, list) and all(_KINDS["int"](x) for x in v),
}


def checked(obj: Any, what: str, **kinds: str) -> dict[str, Any]:
    """A JSON object from a peer, with each named field absent, null or of its kind ('str', 'int',
    'bool', 'strs' and 'ints': lists of them); anything else is a protocol error, never a traceback."""
    if not isinstance(obj, dict):
        raise ProtocolError(f"{what} is not an object: {obj!r:.100}")
    for key, kind in kinds.items():
        v = obj.get(key)
        if v is not None and not _KINDS[kind](v):
            raise ProtocolError(f"{what} field {key} is not of type {kind}: {v!r:.100}")
    return obj


def encode_json(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def decode_json(data: bytes) -> Any:
    try:
        return json.loads(data.decode())
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ProtocolError(f"bad JSON payload: {e.__class__.__name__}: {e}"[:300]) from None


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
