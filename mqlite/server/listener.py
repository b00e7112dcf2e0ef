"""A TCP listener (a LISTENER object): a socket and the thread that accepts on it, handing each
connection to the server's accept loop."""
from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from mqlite.catalogue import entry, message
from mqlite.cmq import CMQC as C
from mqlite.objects.model import MQObject


class Listener:
    """A TCP listener (a LISTENER object) accepting client connections."""

    def __init__(self, accept_loop: Callable[[socket.socket, str], None], obj: MQObject) -> None:
        self.obj = obj
        host = obj["IPADDR"] or "127.0.0.1"
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, obj["PORT"]))
        self.sock.listen(obj["BACKLOG"] or 128)
        self.port = self.sock.getsockname()[1]
        self.started = time.time()
        self.thread = threading.Thread(target=accept_loop, args=(self.sock, "tcp"),
                                       name=f"listener-{obj.name}", daemon=True)
        self.thread.start()

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class PortBusy(OSError):
    """A listener the queue manager starts with cannot bind its port: strmqm refuses (AMQ9218E)."""


def check_ports(objs: list[MQObject], log: Callable[..., None]) -> None:
    """PortBusy (MQ's AMQ9218E, logged) for the first listener that starts with the queue manager
    (CONTROL QMGR or STARTONLY) and cannot bind its port now: another program has it."""
    for obj in objs:
        if obj["CONTROL"] not in (C.MQSVC_CONTROL_Q_MGR, C.MQSVC_CONTROL_Q_MGR_START) or not obj["PORT"]:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((obj["IPADDR"] or "127.0.0.1", obj["PORT"]))
            except OSError as e:
                log(*entry("AMQ9218E", port=obj['PORT']),
                    f"Listener {obj.name}: {e.strerror or e}. Another program may be using the port.")
                raise PortBusy(message("AMQ9218E", port=obj['PORT'])) from None


def start_listener(listeners: dict[str, Listener], obj: MQObject, accept_loop: Callable[[socket.socket, str], None],
                   log: Callable[..., None]) -> str | None:
    """START LISTENER: None, or why it did not start."""
    if obj.name in listeners:
        return message("AMQ8730W")
    try:
        listeners[obj.name] = Listener(accept_loop, obj)
    except OSError as e:
        log(*entry("AMQ9218E", port=obj['PORT']),
            f"Listener {obj.name}: {e.strerror or e}. Another program may be using the port.")
        return message("AMQ9218E", port=obj['PORT'])
    return None


def stop_listener(listeners: dict[str, Listener], name: str) -> str | None:
    lst = listeners.pop(name, None)
    if lst is None:
        return message("MQL0003E")
    lst.close()
    return None


def listener_status(listeners: dict[str, Listener], name: str) -> dict[str, Any] | None:
    lst = listeners.get(name)
    return None if lst is None else {"PORT": lst.port, "STATUS": "RUNNING", "STARTED": lst.started}

