"""Connections that have not yet said who they are (a TLS handshake, MQI's HELLO, AMQP's headers
and SASL, MQTT's CONNECT): each door's listener registers a new connection here until it is
authenticated. At most ``cap`` wait at once across the queue manager; one more shuts the oldest
waiting one down. Each also has its door's time limit (10 s), so a flood of connections that send
nothing, or half a header, holds neither a slot for long nor one a real client needs: a client
that completes its handshake in milliseconds is only pushed out if ``cap`` connections arrive
within those milliseconds. (MQ bounds the same with its listener's backlog, MaxChannels and the
channel's MAXINST and MAXINSTC; those count here too, once a connection says which channel.)"""
from __future__ import annotations

import itertools
import os
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from mqlite.catalogue import entry

CAP = int(os.environ.get("MQLITE_MAX_HANDSHAKES", "256"))
LOG_EVERY = 60.0               # seconds between error-log lines about connections shut down


class Handshakes:
    def __init__(self, log: Callable[..., None], cap: int = CAP) -> None:
        self.cap = cap
        self.log = log
        self._lock = threading.Lock()
        self._waiting: OrderedDict[int, Any] = OrderedDict()   # token -> the connection (its .sock)
        self._tokens = itertools.count(1)
        self.shut = 0                  # connections shut down for want of room, ever
        self._told = 0                 # ... of which the error log has heard
        self._told_at = 0.0

    @contextmanager
    def pending(self, conn: Any) -> Iterator[None]:
        """While the body runs ``conn`` (whose ``sock`` may change, wrapped for TLS) is a
        connection not yet authenticated."""
        token = next(self._tokens)
        oldest = None
        with self._lock:
            self._waiting[token] = conn
            if len(self._waiting) > self.cap:
                _t, oldest = self._waiting.popitem(last=False)
                self.shut += 1
        if oldest is not None:
            _shut(oldest)
            self._tell()
        try:
            yield
        finally:
            with self._lock:
                self._waiting.pop(token, None)

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def _tell(self) -> None:
        now = time.monotonic()
        if now - self._told_at < LOG_EVERY:
            return
        with self._lock:
            n, self._told, self._told_at = self.shut - self._told, self.shut, now
        self.log(*entry("MQL9513W", n=n),
                 f"More than {self.cap} connections were waiting to say who they are (MQLITE_MAX_HANDSHAKES); "
                 "the oldest were closed to make room for new ones.")


def _shut(conn: Any) -> None:
    try:
        conn.sock.shutdown(socket.SHUT_RDWR)
    except (OSError, AttributeError, ValueError):
        pass
