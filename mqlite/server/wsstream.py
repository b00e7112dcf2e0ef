"""A connection that opened with a WebSocket handshake, as the socket an MQTT client's code reads
and writes (mqlite/mqtt/websocket.py has the rules): ``recv`` gives what the client's binary
frames carry, ``sendall`` sends one binary frame; pings are answered, a close ends it. Anything
else (timeouts, TLS's peer certificate, shutdown) is the socket's."""
from __future__ import annotations

import socket
import ssl
import threading
from typing import Any

from mqlite.mqtt import websocket as W


class WebSocketStream:
    def __init__(self, sock: socket.socket | ssl.SSLSocket, first: bytes, max_frame: int) -> None:
        self.sock = sock
        self.lock = threading.Lock()            # (the reader answers pings while a delivery sends)
        self.decoder = W.FrameDecoder(max_frame)
        self.pending = bytearray()
        self.closed = False
        request = first
        while b"\r\n\r\n" not in request:
            if len(request) > W.MAX_REQUEST:
                break
            more = sock.recv(W.MAX_REQUEST)
            if not more:
                raise ConnectionError("the client closed the connection during the handshake")
            request += more
        end = request.find(b"\r\n\r\n")
        try:
            if end < 0:
                raise W.WebSocketError("an opening request over 8 KiB")
            answer = W.handshake(request[:end + 4])
        except W.WebSocketError:
            sock.sendall(W.REFUSED)
            raise
        sock.sendall(answer)
        self.decoder.feed(request[end + 4:])

    def recv(self, n: int) -> bytes:
        while not self.pending:
            if self.closed:
                return b""
            for opcode, payload in self.decoder.frames():
                if opcode == W.BINARY:
                    self.pending += payload
                elif opcode == W.PING:
                    self._send(W.frame(W.PONG, payload))
                elif opcode == W.CLOSE:
                    self._send(W.frame(W.CLOSE, payload[:2]))
                    self.closed = True
                    break
            if self.pending or self.closed:
                continue
            data = self.sock.recv(65536)
            if not data:
                return b""
            self.decoder.feed(data)
        out = bytes(self.pending[:n])
        del self.pending[:n]
        return out

    def sendall(self, data: bytes) -> None:
        self._send(W.frame(W.BINARY, data))

    def _send(self, data: bytes) -> None:
        with self.lock:
            self.sock.sendall(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sock, name)
