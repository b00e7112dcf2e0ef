"""What the protocol services share (SYSTEM.MQXR.SERVICE for MQTT channels, server/mqxr.py;
SYSTEM.AMQP.SERVICE for AMQP ones, server/amqpsvc.py): the service's start time and its running
channels by name. START SERVICE starts every channel of the type that STOP CHANNEL did not stop;
START CHANNEL needs the service running; STOP SERVICE ends them all."""
from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from mqlite.objects.model import MQObject


class Listening(Protocol):
    """One running channel: its listener and the connections it serves."""

    def start(self) -> None: ...

    def close(self) -> None: ...


def accept_loop(sock: socket.socket, closing: Callable[[], bool], serve: Callable[[socket.socket, str], None]) -> None:
    """A channel's listener: each connection (TCP_NODELAY) handed to ``serve`` with its peer as
    host(port), until the socket is closed."""
    while not closing():
        try:
            conn, addr = sock.accept()
        except OSError:
            return
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        serve(conn, f"{addr[0]}({addr[1]})")


class ProtocolService:
    """A built-in service's channels of one type (``kind``): ``listener(obj)`` makes one channel's
    listener, listening (OSError, or a refusal the service words in ``refusal``); ``prepare`` is
    what the service makes before its channels start."""
    service = ""                        # the SERVICE object's name
    kind = ""                           # the channels' CHLTYPE

    def __init__(self, srv: Any, listener: Callable[[MQObject], Listening]) -> None:
        self.srv = srv
        self.listener = listener
        self.started = 0.0
        self.channels: dict[str, Any] = {}
        self.lock = threading.Lock()

    def refusal(self, obj: MQObject, e: Exception) -> str | None:
        """The words for a listener that could not be made because of ``e`` (None: not ours)."""
        return None

    def prepare(self) -> None:
        """What the service makes before its channels start (engine lock held)."""

    def start(self) -> str | None:
        if self.started:
            return None
        qm = self.srv.qm
        with self.srv.lock:
            self.prepare()
            names = [o.name for o in qm.objects["CHANNEL"].values() if o.kind == self.kind]
            stopped = {n for n in names if qm.uow.record(n).get("stopped")}
        self.started = time.time()
        for name in names:
            if name not in stopped:
                err = self.start_channel(name)
                if err:
                    self.srv.log.write("AMQ9212E", f"{self.kind} channel {name} could not start: {err}")
        return None

    def stop(self) -> str | None:
        for name in list(self.channels):
            self._end(name)
        self.started = 0.0
        return None

    def status(self) -> dict[str, Any] | None:
        return {"STATUS": "RUNNING", "PID": os.getpid(), "STARTED": self.started} if self.started else None

    def start_channel(self, name: str) -> str | None:
        obj = self.srv.qm.objects["CHANNEL"].get(name)
        if obj is None:
            return f"AMQ8147E: IBM MQ object {name} not found."
        if not self.started:
            return f"AMQ8148E: The service {self.service} is not running: START SERVICE({self.service})."
        with self.lock:
            if name in self.channels:
                return None
            try:
                ch = self.listener(obj)
            except OSError as e:
                return f"AMQ9212E: {self.kind} channel {name} cannot listen on port {obj['PORT']}: {e}."
            except Exception as e:
                why = self.refusal(obj, e)
                if why is None:
                    raise
                return why
            self.channels[name] = ch
        ch.start()
        return None

    def stop_channel(self, name: str) -> str | None:
        if name not in self.channels:
            return f"MQL0007E: Channel {name} is not currently active."
        self._end(name)
        return None

    def _end(self, name: str) -> None:
        with self.lock:
            ch = self.channels.pop(name, None)
        if ch is not None:
            ch.close()
