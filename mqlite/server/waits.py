"""Waiting MQGETs: who is woken when a message comes, and waking a wait when its client says
something.

A queue's condition counts its waiters, and how many of them are *plain* (an MQGET that takes
any message: no selector, no match on identifiers, no browse, no group order). When every waiter
is plain a new message wakes one of them, and a waiter that got one passes the wake on while the
queue has more; otherwise all wake and each looks (waking 100 waiters for each message cost ~3 ms
a message: bench/aio.py).

A CANCEL (the asyncio face's task was cancelled) or the end of the connection wakes a wait at
once: one thread per process polls the sockets of the connections in a wait (epoll, one-shot);
without epoll a wait notices within its slice."""
from __future__ import annotations

import select
import socket
import threading
from typing import Any, Callable


class QueueCondition(threading.Condition):
    """The condition a queue's waiting MQGETs (and the server's own readers) wait on; every
    attribute is read and written under its lock (the engine's)."""

    def __init__(self, lock: Any) -> None:
        super().__init__(lock)
        self.waiters = 0        # threads in wait()
        self.plain = 0          # MQGETs waiting here that take any message
        self.listeners: list[QueueCondition] = []   # asynchronous consumers' waits that span queues (all wake)

    def wait(self, timeout: float | None = None) -> bool:
        self.waiters += 1
        try:
            return super().wait(timeout)
        finally:
            self.waiters -= 1

    def rouse(self) -> None:
        """Wake every waiter, from a thread that does not hold the lock (a client spoke)."""
        with self:
            self.notify_all()

    def wake_all(self) -> None:
        """Every waiter and listener looks again (the queue manager is ending)."""
        self.notify_all()
        for other in self.listeners:
            other.notify_all()

    def wake(self) -> None:
        """A message is there: one plain waiter is enough when all are plain. A wait of an
        asynchronous consumer on several queues (server/consume.py) listens to each of them."""
        if self.waiters and self.waiters <= self.plain:
            self.notify(1)
        else:
            self.notify_all()
        for other in self.listeners:
            other.notify_all()


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
        fd = sock.fileno()
        if fd < 0:
            return                      # closed: the wait's own check finds that
        with self.lock:
            try:
                ep.register(fd, select.EPOLLIN | select.EPOLLRDHUP | select.EPOLLONESHOT)
            except OSError:
                return                  # (the wait notices within its slice)
            self.waiting[fd] = wake
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="mqget-waits", daemon=True)
                self.thread.start()

    def unwatch(self, sock: socket.socket) -> None:
        ep = self.epoll
        if ep is None:
            return
        fd = sock.fileno()
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
