"""The client end of the wire protocol: a connection over TCP (client) or a Unix socket (bindings)."""
from __future__ import annotations

import re
import socket
import ssl
import threading
import time
import weakref
from collections import deque
from typing import Any, Callable

from mqlite.cmq import CMQC as C
from mqlite.net import protocol as P, unixsock

_CONNAME = re.compile(r"\s*([^()\s,]+)\s*(?:\(\s*(\d+)\s*\))?\s*\Z")


class TransportError(Exception):
    def __init__(self, reason: int, detail: str = "", unsent: bool = False) -> None:
        super().__init__(f"reason {reason}: {detail}")
        self.reason = reason
        self.detail = detail
        self.unsent = unsent      # the connection was found broken before the request was sent


class TransportBusy(Exception):
    """Another thread's call is in progress on a connection that must not wait for it."""


def parse_conname(conname: str) -> list[tuple[str, int]]:
    """MQ's CONNAME: ``host(port)``, a comma-separated list of them, port 1414 when omitted."""
    out = []
    for part in conname.split(","):
        if not part.strip():
            continue
        m = _CONNAME.match(part)
        if m is None:
            raise TransportError(C.MQRC_CHANNEL_CONFIG_ERROR, f"bad connection name {part!r}")
        out.append((m.group(1), int(m.group(2) or 1414)))
    if not out:
        raise TransportError(C.MQRC_CHANNEL_CONFIG_ERROR, "empty connection name")
    return out


def _refused_as(e: BaseException) -> int:
    """A client's TLS handshake that failed: the queue manager refused this end's certificate (its
    alert names it) is 2059, as MQ's client says; anything else (no CipherSpec in common, a server
    certificate this end does not trust) 2393."""
    if isinstance(e, ssl.SSLError) and not isinstance(e, ssl.SSLCertVerificationError) and (
            "CERTIFICATE" in (e.reason or "") or "UNKNOWN_CA" in (e.reason or "")):
        return C.MQRC_Q_MGR_NOT_AVAILABLE
    return C.MQRC_SSL_INITIALIZATION_ERROR


class Transport:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.lock = threading.Lock()
        self.send_lock = threading.Lock()     # a frame is written whole (CANCEL comes from other threads)
        self.no_block = False
        self.probe = False        # look for a hang-up before each request (a reconnectable connection)
        self.info: dict[str, Any] = {}
        self.reader = P.FrameReader(sock, spin=P.SPIN, preallocate=4 << 20)
        # Requests sent ahead whose replies have not been read yet, in order: (type, consumer).
        self.pending: deque[tuple[int, Callable[[bytes], None]]] = deque()

    @classmethod
    def tcp(cls, conname: str, timeout: float = 10.0, tls: ssl.SSLContext | None = None) -> "Transport":
        """A connection to the first address of CONNAME that answers; with ``tls``, TLS from the
        first byte (a handshake the server cannot complete is MQRC_SSL_INITIALIZATION_ERROR)."""
        last: Exception | None = None
        for host, port in parse_conname(conname):
            try:
                sock = socket.create_connection((host, port), timeout=timeout)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError as e:
                last = e
                continue
            if tls is not None:
                try:
                    sock = tls.wrap_socket(sock)
                except (ssl.SSLError, OSError) as e:
                    sock.close()
                    raise TransportError(_refused_as(e), str(e)) from None
            sock.settimeout(None)
            return cls(sock)
        raise TransportError(C.MQRC_HOST_NOT_AVAILABLE, str(last))

    @classmethod
    def unix(cls, path: str) -> "Transport":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            unixsock.connect(sock, path)
        except OSError as e:
            sock.close()
            raise TransportError(C.MQRC_Q_MGR_NOT_AVAILABLE, str(e)) from None
        return cls(sock)

    def hello(self, **fields: Any) -> dict[str, Any]:
        fields["proto"] = P.PROTOCOL_VERSION
        try:
            P.send_frame(self.sock, P.HELLO, P.encode_json(fields))
            ftype, payload = self._read()
        except ssl.SSLError as e:
            # The queue manager refused this end's certificate: with TLS 1.3 the client's
            # handshake is over before the server has checked it, and its alert comes here.
            self.close()
            raise TransportError(C.MQRC_Q_MGR_NOT_AVAILABLE, str(e)) from None
        except (OSError, ConnectionError, P.ProtocolError) as e:
            self.close()
            raise TransportError(C.MQRC_CONNECTION_BROKEN, str(e)) from None
        body = P.decode_json(payload)
        if ftype == P.ERROR:
            self.close()
            raise TransportError(int(body.get("reason", C.MQRC_UNEXPECTED_ERROR)), "connection refused")
        if ftype != P.HELLO_OK:
            self.close()
            raise TransportError(C.MQRC_CONNECTION_BROKEN, f"unexpected frame {ftype:#x}")
        self.info = body
        if body.get("hbint"):
            HEARTBEATS.add(self, int(body["hbint"]))
        return body

    def _read(self) -> tuple[int, bytes]:
        """The next frame that is not a heartbeat; heartbeats are answered on the way."""
        while True:
            ftype, payload = self.reader.read()
            if ftype != P.HEARTBEAT:
                return ftype, payload
            with self.send_lock:
                P.send_frame(self.sock, P.HEARTBEAT | P.REPLY)

    def answer_heartbeat(self) -> None:
        """Called by the heartbeat thread: if the connection is idle and the queue manager asked
        whether this client is alive, say yes. Never waits for the connection."""
        if not self.lock.acquire(blocking=False):
            return                          # a call is in progress: it answers any heartbeat itself
        try:
            if self.pending or not (self.reader.buffered() or P.readable(self.sock, 0)):
                return
            self._read_idle()
        except (OSError, ConnectionError, P.ProtocolError):
            self.close()                    # the next call reports the broken connection (2009)
        finally:
            self.lock.release()

    def _read_idle(self) -> None:
        ftype, _ = self.reader.read()
        if ftype == P.HEARTBEAT:
            with self.send_lock:
                P.send_frame(self.sock, P.HEARTBEAT | P.REPLY)
        else:
            raise P.ProtocolError(f"unexpected frame {ftype:#x} on an idle connection")

    def _locked(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` with the socket to itself; a failure on it breaks the connection (2009).
        With ``no_block`` (MQCNO_HANDLE_SHARE_NO_BLOCK) a call while another thread's is in
        progress raises TransportBusy instead of waiting. A plain call rather than a generator
        context manager: every MQI call comes through here, and contextlib's cost about a tenth of
        a put's client CPU."""
        if not self.lock.acquire(blocking=not self.no_block):
            raise TransportBusy()
        try:
            return fn(*args)
        except (OSError, ConnectionError, P.ProtocolError) as e:
            self.close()
            raise TransportError(C.MQRC_CONNECTION_BROKEN, str(e)) from None
        finally:
            self.lock.release()

    def call(self, ftype: int, payload: bytes) -> bytes:
        return self._locked(self._exchange, ftype, payload)

    def _unsent(self) -> None:
        """A reconnectable connection whose queue manager went while it was idle: the request
        that would go now is known not to have reached it (reconnect.py may send it again)."""
        if self.sock.fileno() < 0 or P.peer_closed(self.sock):
            self.close()
            raise TransportError(C.MQRC_CONNECTION_BROKEN, "closed before the request", unsent=True)

    def _exchange(self, ftype: int, payload: bytes) -> bytes:
        if self.probe:
            self._unsent()
        with self.send_lock:
            P.send_frame(self.sock, ftype, payload)
        if self.pending:
            self._drain()
        rtype, reply = self._read()
        if rtype != ftype | P.REPLY:
            raise P.ProtocolError(f"reply type {rtype:#x} to {ftype:#x}")
        return reply

    def post(self, ftype: int, payload: bytes, consumer: Callable[[bytes], None]) -> None:
        """Send a request now and hand its reply to ``consumer`` when it is read (by ``collect``
        or by the next ``call``): requests are answered in order, so nothing waits in between."""
        self._locked(self._post, ftype, payload, consumer)

    def _post(self, ftype: int, payload: bytes, consumer: Callable[[bytes], None]) -> None:
        with self.send_lock:
            P.send_frame(self.sock, ftype, payload)
        self.pending.append((ftype, consumer))

    def collect(self) -> None:
        self._locked(self._drain)

    def _drain(self) -> None:
        while self.pending:
            ftype, consumer = self.pending[0]
            rtype, reply = self._read()
            self.pending.popleft()
            if rtype != ftype | P.REPLY:
                raise P.ProtocolError(f"reply type {rtype:#x} to {ftype:#x}")
            consumer(reply)

    def send(self, ftype: int, payload: bytes) -> None:
        """A request that has no reply (an asynchronous put)."""
        self._locked(self._send, ftype, payload)

    def _send(self, ftype: int, payload: bytes) -> None:
        if self.probe:
            self._unsent()
        with self.send_lock:
            P.send_frame(self.sock, ftype, payload)

    def cancel(self) -> None:
        """End the wait of the call in progress on another thread (CANCEL: the queue manager
        answers that call at once). Never waits for the connection."""
        try:
            with self.send_lock:
                P.send_frame(self.sock, P.CANCEL)
        except OSError:
            pass

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


class _Heartbeats:
    """One daemon thread per process that answers the queue manager's heartbeats on idle client
    connections (pymqi code is single-threaded and reads its socket only inside a call; a client
    whose process is stopped cannot answer, which is the point)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.transports: "weakref.WeakSet[Transport]" = weakref.WeakSet()
        self.period = 1.0
        self.thread: threading.Thread | None = None

    def add(self, transport: Transport, hbint: int) -> None:
        with self.lock:
            self.transports.add(transport)
            self.period = min(self.period, max(0.05, hbint / 4))
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, name="mqlite-heartbeats", daemon=True)
                self.thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(self.period)
            with self.lock:
                live = [t for t in self.transports if t.sock.fileno() >= 0]
            for t in live:
                t.answer_heartbeat()


HEARTBEATS = _Heartbeats()


class ControlSession:
    """An administration session over local bindings (runmqsc's, the control commands', the test
    harness's): MQSC commands and control operations, one at a time."""

    def __init__(self, socket_path: str, qmgr: str, appl: str) -> None:
        self.transport = Transport.unix(socket_path)
        self.transport.hello(qmgr=qmgr, control=True, appl=appl)     # (closes the transport if refused)

    def mqsc(self, text: str) -> tuple[str, list[str]]:
        """One MQSC command: its status ("ok", "error", "syntax") and response lines."""
        reply = P.decode_json(self.transport.call(P.MQSC, text.encode()))
        return reply["status"], reply["lines"]

    def control(self, op: dict[str, Any]) -> Any:
        return P.decode_json(self.transport.call(P.CONTROL, P.encode_json(op)))

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> "ControlSession":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def control_call(socket_path: str, qmgr: str, op: dict[str, Any], appl: str) -> dict[str, Any] | None:
    """One control operation (the control commands' and mqweb's way in over local bindings): the
    queue manager's JSON answer, or None when it cannot be reached."""
    try:
        with ControlSession(socket_path, qmgr, appl) as session:
            reply = session.control(op)
    except (TransportError, P.ProtocolError, OSError):
        return None
    return reply if isinstance(reply, dict) else None
