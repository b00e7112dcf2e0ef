"""One thread that serves the quick requests of every parked connection (server/session.py).

Each client or bindings connection has a thread of its own, which blocks in ``recv`` between
requests. With several applications busy at once that costs each request a thread woken by the
kernel and a turn at the interpreter lock taken from the others: with 8 consumers each getting
persistent messages, a quarter of the server's CPU was the kernel switching threads.

So while more than one session is in use a session's thread *parks* its connection here between
requests and sleeps. This thread waits on all parked sockets at once (epoll, level-triggered)
and, when requests arrive, serves the quick ones itself, one after the other under one waking:
MQGET, MQPUT, MQPUT1, read-ahead batches, MQINQ, MQCMIT and MQBACK. What they journalled is
made durable by one write at the end of the round (looking once more, without waiting, for
requests that came meanwhile), and their replies go right after it (session.py ``_reply``): one
fsync for the round, and no other thread woken for it. Anything else hands the connection back to
its own thread, which serves the request as before: a frame of another kind or not yet whole, a
reply that must be sent from its thread (a large one, one with work after it), an MQGET that has
to wait for a message, a call that waits for a cluster's answer (``WouldBlock``), an error, and
the end of the connection. TLS connections are never parked (their record layer is read and
written by their own thread only)."""
from __future__ import annotations

import select
import threading
from typing import Any

from mqlite.net import protocol as P
from mqlite.store.sqlite import StoreUnavailable

# Frame types served here: each answers at once (or raises WouldBlock) under the engine lock, or
# (a heartbeat's answer, a CANCEL after its wait ended) is passed over.
QUICK = frozenset((P.GET, P.PUT, P.PUT1, P.GET_BATCH, P.INQ, P.CMIT, P.BACK, P.HEARTBEAT | P.REPLY, P.CANCEL))
ROUND_REQUESTS = 64      # a round's write comes after this many replies owed, whatever still arrives
# (MQLITE_PARK=no in the server's environment keeps every connection on its own thread: session.py)
_READY = select.EPOLLIN if hasattr(select, "EPOLLIN") else 0


class WouldBlock(Exception):
    """A request served by the dispatcher would have to wait (for a message, for a cluster's
    answer): its connection's own thread serves it again from the start."""


class Dispatcher:
    """The parked connections and the thread that serves them."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.due = 0                            # the journal ticket this round's replies wait for
        self.owed = 0                           # replies of the round waiting for it
        self.epoll = select.epoll() if hasattr(select, "epoll") else None
        self.lock = threading.Lock()
        self.parked: dict[int, Any] = {}       # fd -> Session, while this thread owns it
        self.thread: threading.Thread | None = None
        self.served = 0                         # requests served here (what the tests look at)

    @property
    def usable(self) -> bool:
        return self.epoll is not None

    def park(self, session: Any) -> bool:
        """Take ``session`` (its thread then waits for ``session.unparked``); False if it cannot be."""
        ep = self.epoll
        fd = session.sock.fileno()
        if ep is None or fd < 0:
            return False
        with self.lock:
            try:
                ep.register(fd, _READY)
            except OSError:
                return False
            self.parked[fd] = session
            session.parked_fd = fd                  # (what ``unpark`` looks it up by)
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="dispatcher", daemon=True)
                self.thread.start()
        return True

    def unpark(self, session: Any) -> bool:
        """(The session's own thread, tired of waiting: its connection was killed.) Take it back
        if this thread is not serving it now; False if it is (its hand-back follows)."""
        fd = session.parked_fd
        with self.lock:
            if self.parked.get(fd) is not session:
                return False
            del self.parked[fd]
            self._forget(fd)
        return True

    def owe(self, ticket: int) -> None:
        """(This thread, serving.) A reply waits for ``ticket``: written at the end of the round."""
        self.owed += 1
        if ticket > self.due:
            self.due = ticket

    def _forget(self, fd: int) -> None:
        assert self.epoll is not None
        try:
            self.epoll.unregister(fd)
        except (OSError, ValueError):
            pass

    def _run(self) -> None:
        ep = self.epoll
        assert ep is not None
        timeout = 1.0
        while True:
            try:
                events = ep.poll(timeout)
            except InterruptedError:
                continue
            if self.due and (not events or self.owed >= ROUND_REQUESTS):
                self._write()
            for fd, ev in events:
                with self.lock:
                    s = self.parked.pop(fd, None)
                if s is None:
                    continue
                try:
                    keep = ev == _READY and s.serve_parked()
                except BaseException as e:      # (serve_parked hands back its own errors: a defect)
                    s.handed, keep = ("error", e), False
                with self.lock:
                    if keep:
                        self.parked[fd] = s
                    else:
                        self._forget(fd)
                if not keep:
                    s.unparked.set()
            # Replies waiting for a write: look once more, without waiting, for requests that came
            # meanwhile, and write for all of them together once there are none (or enough).
            timeout = 0.0 if self.due else 1.0

    def _write(self) -> None:
        """One frame and one fsync for every request of the round; their replies go with it."""
        due, self.due, self.owed = self.due, 0, 0
        try:
            self.store.sync(due)
        except StoreUnavailable:
            pass         # the queue manager is ending with a write it could not make
