"""What group commit can reach from Python on this machine, whatever the queue manager does.

A minimal server: producer processes send 1,100-byte requests over loopback and wait for each
answer; the server does ``--work-us`` of CPU per request where it arrives (the engine's share),
hands it to one writer thread, which does twice that per request (the journal's share), appends
the batch to a plain file, ``fdatasync``s it and then answers every request in the batch. No
SQLite, no MQ structures. ``--work-us 0`` is the ceiling of the model itself; 13 is about what
mqlite's engine and store cost in-process per persistent put (docs/performance.md, issue 16).
Two ways of serving the connections: a thread per connection (as mqlite's server) and one
selector loop.

    python bench/ceiling.py [--producers 1,8] [--per 3000] [--work-us 0,13] [--runs 3]
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import selectors
import socket
import statistics
import struct
import sys
import tempfile
import threading
import time
from typing import Any, Callable

HEADER = struct.Struct("!I")
REQUEST = HEADER.pack(1100) + b"x" * 1100


def busy(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


class Writer:
    """Group commit: whatever arrived while the last write ran goes in the next, one fdatasync."""

    def __init__(self, path: str, work: float) -> None:
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self.work = work
        self.cond = threading.Condition()
        self.pending: list[tuple[bytes, Callable[[], Any]]] = []
        threading.Thread(target=self._loop, daemon=True).start()

    def submit(self, data: bytes, answer: Callable[[], Any]) -> None:
        with self.cond:
            self.pending.append((data, answer))
            self.cond.notify()

    def _loop(self) -> None:
        while True:
            with self.cond:
                while not self.pending:
                    self.cond.wait()
                batch, self.pending = self.pending, []
            busy(2 * self.work * len(batch))
            os.write(self.fd, b"".join(d for d, _a in batch))
            os.fdatasync(self.fd)
            for _d, answer in batch:
                answer()


def _frames(buf: bytes) -> tuple[list[bytes], bytes]:
    out = []
    while len(buf) >= 4:
        (n,) = HEADER.unpack_from(buf)
        if len(buf) < 4 + n:
            break
        out.append(buf[4:4 + n])
        buf = buf[4 + n:]
    return out, buf


def serve_threads(lsock: socket.socket, writer: Writer, work: float) -> None:
    def serve(c: socket.socket) -> None:
        buf = b""
        while True:
            data = c.recv(65536)
            if not data:
                return
            frames, buf = _frames(buf + data)
            for f in frames:
                busy(work)
                writer.submit(f, lambda c=c: c.send(b"ok", socket.MSG_DONTWAIT))
    while True:
        c, _ = lsock.accept()
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(c,), daemon=True).start()


def serve_loop(lsock: socket.socket, writer: Writer, work: float) -> None:
    sel = selectors.DefaultSelector()
    sel.register(lsock, selectors.EVENT_READ, None)
    bufs: dict[socket.socket, bytes] = {}
    while True:
        for key, _ev in sel.select():
            if key.data is None:
                c, _ = lsock.accept()
                c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                c.setblocking(False)
                sel.register(c, selectors.EVENT_READ, True)
                bufs[c] = b""
                continue
            c = key.fileobj  # type: ignore[assignment]
            data = c.recv(65536)
            if not data:
                sel.unregister(c)
                continue
            frames, bufs[c] = _frames(bufs[c] + data)
            for f in frames:
                busy(work)
                writer.submit(f, lambda c=c: c.send(b"ok"))


def producer(port: int, n: int, start: float, out: Any) -> None:
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    time.sleep(max(0.0, start - time.time()))
    for _ in range(n):
        s.sendall(REQUEST)
        if not s.recv(16):
            raise SystemExit("server went away")
    out.put(time.time())
    s.close()


def server_main(mode: str, work: float, path: str, ready: Any) -> None:
    sys.setswitchinterval(0.0005)        # as mqlite's server
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(128)
    ready.put(lsock.getsockname()[1])
    (serve_threads if mode == "threads" else serve_loop)(lsock, Writer(path, work), work)


def run(mode: str, producers: int, per: int, work: float, path: str) -> float:
    ctx = mp.get_context("spawn")
    ready, out = ctx.Queue(), ctx.Queue()
    srv = ctx.Process(target=server_main, args=(mode, work, path, ready), daemon=True)
    srv.start()
    try:
        port = ready.get(timeout=30)
        start = time.time() + 1.0
        procs = [ctx.Process(target=producer, args=(port, per, start, out)) for _ in range(producers)]
        for p in procs:
            p.start()
        end = max(out.get(timeout=300) for _ in procs)
        for p in procs:
            p.join(30)
        return producers * per / (end - start)
    finally:
        srv.kill()
        srv.join(10)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--producers", default="1,8")
    ap.add_argument("--per", type=int, default=3000)
    ap.add_argument("--work-us", default="0,13")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mqlite-ceiling-") as d:
        path = os.path.join(d, "journal")
        print(f"{'work µs':>8} {'serving':>8} " + " ".join(f"{k:>5} producers" for k in args.producers.split(",")))
        for w in (float(x) for x in args.work_us.split(",")):
            for mode in ("threads", "loop"):
                cells = []
                for k in (int(x) for x in args.producers.split(",")):
                    cells.append(statistics.median(run(mode, k, args.per, w / 1e6, path) for _ in range(args.runs)))
                print(f"{w:8g} {mode:>8} " + " ".join(f"{c:15,.0f}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
