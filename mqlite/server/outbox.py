"""A connection's replies on their way out (server/session.py), in the order of their calls, each
sent once the journal ticket it waits for is durable.

Whoever makes a ticket durable sends the replies it covers: the journal writer after its fsync,
the dispatcher or the session's own thread when the ticket already is. None of those shared
threads may ever wait for a client: every send here is non-blocking, under the lock, and what
does not fit (a client slow to read, or one that reads nothing) waits in the queue for room,
sent by a thread of this connection's own (``_drain_thread``) or by the session's thread when it
has to wait anyway (``drain``: a large reply, MQDISC's answer). The lock is never held while
waiting, so the journal writer sending another reply of this connection never waits either.

TLS connections queue nothing: their record layer is written by their own thread only, after
the fsync (session.py ``_reply``)."""
from __future__ import annotations

import select
import socket
import threading
from collections import deque
from typing import Any, Callable

ROOM_CHECK = 1.0       # a wait for room looks this often whether the connection has gone


class Outbox:
    """One connection's replies not yet sent, and the bytes they come to."""

    def __init__(self, sock: socket.socket, store: Any, peer: str) -> None:
        self.sock = sock
        self.store = store
        self.peer = peer
        self.lock = threading.Lock()
        self.entries: deque[tuple[int, bytes]] = deque()    # (ticket, frame bytes not yet sent)
        self.bytes = 0
        self.draining = False        # a thread of its own waits for room for the head

    def add(self, due: int, data: bytes) -> int:
        """Queue ``data`` to go once ``due`` is durable (and after everything queued before it):
        the ticket it waits for."""
        with self.lock:
            if self.entries:
                due = max(due, self.entries[-1][0])
            self.entries.append((due, data))
            self.bytes += len(data)
        return due

    def flush(self, spawn: bool = True) -> None:
        """Send, without blocking, the replies whose tickets are durable. If the client has no
        room for them, the rest waits: with ``spawn``, for a thread of this connection's own."""
        durable = self.store.durable_ticket
        with self.lock:
            out = self.entries
            while out and out[0][0] <= durable:
                ticket, data = out[0]
                try:
                    sent = self.sock.send(data, socket.MSG_DONTWAIT)
                except BlockingIOError:
                    sent = 0
                except OSError:
                    out.clear()          # the connection is gone: its thread sees that too
                    self.bytes = 0
                    return
                self.bytes -= sent
                if sent < len(data):
                    out[0] = (ticket, data[sent:])
                    if spawn and not self.draining:
                        self.draining = True
                        threading.Thread(target=self._drain_thread, name=f"reply-{self.peer}", daemon=True).start()
                    return
                out.popleft()

    def drain(self, keep: int, gone: Callable[[], bool]) -> None:
        """(The session's own thread, everything queued durable.) Send until at most ``keep``
        bytes wait; ConnectionError if the connection ends meanwhile."""
        while True:
            self.flush(spawn=False)
            if self.bytes <= keep:
                break
            if gone():
                raise ConnectionError("the connection ended with replies unsent")
            self._room()
        if self.bytes:
            self.flush()

    def heartbeat(self, data: bytes, tls: bool, busy: Callable[[], bool]) -> bool:
        """Send a heartbeat unless ``busy()`` (asked under the lock) or replies wait; whether it went."""
        with self.lock:
            if busy() or self.entries:
                return False
            if tls:
                self.sock.sendall(data)      # (TLS: written whole by one thread at a time)
                return True
            self.entries.append((0, data))
            self.bytes += len(data)
        self.flush()
        return True

    def _room(self) -> None:
        p = select.poll()
        try:
            p.register(self.sock, select.POLLOUT)
            p.poll(int(ROOM_CHECK * 1000))
        except (OSError, ValueError):
            pass                         # (closed: the next send says so)

    def _drain_thread(self) -> None:
        while True:
            with self.lock:
                if not self.entries or self.entries[0][0] > self.store.durable_ticket:
                    self.draining = False    # (a later ticket's fsync sends the rest)
                    return
            self._room()
            self.flush(spawn=False)
