"""Wakes a waiting MQGET when its client says something: a CANCEL (the asyncio face's task was
cancelled) or the end of the connection. One thread per process polls the sockets of the
connections in a wait (epoll, one-shot); without epoll a wait notices within its slice."""
from __future__ import annotations

import select
import socket
import threading
from typing import Callable


class WaitWatch:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.waiting: dict[int, Callable[[], None]] = {}
        self.epoll = select.epoll() if hasattr(select, "epoll") else None
        self.thread: threading.Thread | None = None

    def watch(self, sock: socket.socket, wake: Callable[[], None]) -> None:
        """Call ``wake`` (once) when ``sock`` becomes readable or is closed by the peer."""
        ep = self.epoll
        if ep is None:
            return
        try:
            fd = sock.fileno()
            with self.lock:
                self.waiting[fd] = wake
                ep.register(fd, select.EPOLLIN | select.EPOLLRDHUP | select.EPOLLONESHOT)
                if self.thread is None:
                    self.thread = threading.Thread(target=self._run, name="mqget-waits", daemon=True)
                    self.thread.start()
        except (OSError, ValueError):
            with self.lock:
                self.waiting.pop(fd, None)

    def unwatch(self, sock: socket.socket) -> None:
        ep = self.epoll
        if ep is None:
            return
        try:
            fd = sock.fileno()
        except (OSError, ValueError):
            return
        with self.lock:
            if self.waiting.pop(fd, None) is None:
                return
            try:
                ep.unregister(fd)
            except (OSError, ValueError):
                pass

    def _run(self) -> None:
        assert self.epoll is not None
        while True:
            for fd, _events in self.epoll.poll():
                with self.lock:
                    wake = self.waiting.get(fd)
                if wake is not None:
                    wake()       # outside our lock: it takes the engine's (which unwatch is called under)


WAITS = WaitWatch()
