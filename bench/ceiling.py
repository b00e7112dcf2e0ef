"""What group commit can reach from Python on this machine, whatever the queue manager does.

A minimal server: producer processes send 1,100-byte requests over loopback and wait for each
answer; the server does some CPU work per request where it arrives (the engine's share), hands it
to one writer thread, which does its own share per request (the journal's), appends the batch to a
plain file, ``fdatasync``s it and then answers every request in the batch. No SQLite, no MQ
structures. ``--work-us`` lists the work to model: a number W is W µs where a request arrives and
2W in the writer (``0`` is the ceiling of the model itself); ``mqlite`` is mqlite's own CPU per
persistent put, measured in this run on this machine (``measure_mqlite_work``): parsing the
request, the engine's put and the answer where it arrives; the journal's Python and the applier's
SQLite rows, without the write and fdatasync the model does itself, in the writer. Two ways of
serving the connections: a thread per connection (as mqlite's server) and one selector loop. With
``--mqlite`` the same producers, as pymqi applications putting persistent 1 KiB messages outside
syncpoint, also run against a real queue manager, so that mqlite's distance from the ceiling is
measured in the same run, and so do producers as cheap as the model's sending mqlite's PUT frame
(``raw_mq_producer``: the server alone on the model's terms): every row runs once a round, the
rounds in turn. Each cell gives the rate, then the server's CPU per request (from /proc) and the
producers' (``time.process_time`` around their loops), of the round with the median rate.

    python bench/ceiling.py [--producers 1,8] [--per 3000] [--work-us 0,13,mqlite] [--runs 3] [--mqlite] [--json out.json]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing as mp
import os
import selectors
import shutil
import socket
import statistics
import struct
import sys
import tempfile
import threading
import time
from typing import Any, Callable, Iterator

from _common import cpu_seconds

HEADER = struct.Struct("!I")
REQUEST = HEADER.pack(1100) + b"x" * 1100


def busy(seconds: float) -> None:
    """``seconds`` of this thread's CPU: mqlite's work is measured in thread CPU time, so the model
    spends it the same way (a wall-clock loop would count as work the time the thread spent
    descheduled, which eight producers and a server on two cores make common)."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


class Writer:
    """Group commit: whatever arrived while the last write ran goes in the next, one fdatasync."""

    def __init__(self, path: str, work: float) -> None:
        """``work``: seconds of CPU per request, before the write."""
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
            busy(self.work * len(batch))
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


def producer(port: int, n: int, go: Any, out: Any) -> None:
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    out.put(None)
    go.wait()
    cpu = time.process_time()
    for _ in range(n):
        s.sendall(REQUEST)
        if not s.recv(16):
            raise SystemExit("server went away")
    out.put((time.time(), time.process_time() - cpu))
    s.close()


def mq_producer(port: int, n: int, go: Any, out: Any) -> None:
    """The same producer as a pymqi application: persistent puts outside syncpoint, each answered
    after its fsync (bench/putget.py's part d)."""
    from mqlite import pymqi
    from mqlite.pymqi import CMQC as C
    qmgr = pymqi.connect(QM, "BENCH.SVRCONN", f"127.0.0.1({port})")
    q = pymqi.Queue(qmgr, "BENCH.SYNC", C.MQOO_OUTPUT)
    md = pymqi.MD(Persistence=C.MQPER_PERSISTENT)
    body = b"x" * 1024
    out.put(None)
    go.wait()
    cpu = time.process_time()
    for _ in range(n):
        md.MsgId = C.MQMI_NONE
        q.put(body, md)
    out.put((time.time(), time.process_time() - cpu))
    q.close()
    qmgr.disconnect()


def raw_mq_producer(port: int, n: int, go: Any, out: Any) -> None:
    """mqlite's server with producers as cheap as the model's: connected and the queue opened
    through pymqi, then the same PUT frame (persistent, 1 KiB, a new MsgId each time) sent as it was
    made once and each reply read by its length, holding the connection's lock so that nothing
    else reads the socket. It tells the server's distance from the ceiling apart from the client
    library's CPU, which shares the two cores with it."""
    from mqlite import pymqi
    from mqlite.net import protocol as P
    from mqlite.net import verbs as V
    from mqlite.pymqi import CMQC as C
    qmgr = pymqi.connect(QM, "BENCH.SVRCONN", f"127.0.0.1({port})")
    q = pymqi.Queue(qmgr, "BENCH.SYNC", C.MQOO_OUTPUT)
    q.put(b"x", pymqi.MD())
    transport = qmgr._transport
    assert transport is not None and not transport.reader.buffered()
    request = P.frame(P.PUT, V.Put.request(q._Queue__qHandle, pymqi.PMO(),   # type: ignore[attr-defined]
                                           pymqi.MD(Persistence=C.MQPER_PERSISTENT), b"x" * 1024))
    s = transport.sock
    out.put(None)
    go.wait()
    with transport.lock:
        cpu = time.process_time()
        for _ in range(n):
            s.sendall(request)
            reply = s.recv(65536)
            while len(reply) < 4 + HEADER.unpack_from(reply)[0]:
                reply += s.recv(65536)
            if reply[4] != P.PUT | P.REPLY or reply[5:9] != bytes(4):
                raise SystemExit(f"unexpected reply {reply[:13]!r}")
        cpu = time.process_time() - cpu
    out.put((time.time(), cpu))
    q.close()
    qmgr.disconnect()


Cell = tuple[float, float, float]     # requests/s, server CPU µs per request, producer CPU µs per request
Work = tuple[float, float]            # seconds of CPU per request: where it arrives, in the writer


def drive(target: Callable[..., None], port: int, server_pid: int, producers: int, per: int) -> Cell:
    """Start ``producers`` processes together against ``port`` (once every one has connected); the
    rate over the common start to the last finish, and the CPU each side spent per request meanwhile."""
    ctx = mp.get_context("spawn")
    out, go = ctx.Queue(), ctx.Event()
    procs = [ctx.Process(target=target, args=(port, per, go, out)) for _ in range(producers)]
    for p in procs:
        p.start()
    for _ in procs:
        out.get(timeout=300)
    before = cpu_seconds(server_pid)
    start = time.time()
    go.set()
    done = [out.get(timeout=300) for _ in procs]
    server = cpu_seconds(server_pid) - before
    for p in procs:
        p.join(30)
    n = producers * per
    return n / (max(end for end, _c in done) - start), server / n * 1e6, sum(c for _e, c in done) / n * 1e6


def server_main(mode: str, work: Work, path: str, ready: Any) -> None:
    sys.setswitchinterval(0.0005)        # as mqlite's server
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(128)
    ready.put(lsock.getsockname()[1])
    (serve_threads if mode == "threads" else serve_loop)(lsock, Writer(path, work[1]), work[0])


def run(mode: str, producers: int, per: int, work: Work, path: str) -> Cell:
    ctx = mp.get_context("spawn")
    ready = ctx.Queue()
    srv = ctx.Process(target=server_main, args=(mode, work, path, ready), daemon=True)
    srv.start()
    try:
        port = ready.get(timeout=30)
        assert srv.pid is not None
        return drive(producer, port, srv.pid, producers, per)
    finally:
        srv.kill()
        srv.join(10)


QM = "CEILING.QM"
BATCH = 8          # puts per journal write in the measurement (as the group commit of 8 producers)


def measure_mqlite_work(n: int, out: Any) -> None:
    """mqlite's CPU per persistent 1 KiB put outside syncpoint, in one process (run in a fresh one):
    a store and an engine in a temporary directory, the client's PUT request split, put and
    answered as a session does (thread CPU), every BATCH puts made durable (the journal's CPU, less
    what a bare write and fdatasync of the batch costs, which the model does itself), and the
    applier's CPU writing the rows (the process's CPU beside this thread's, up to ``settle``).
    Puts ``(where it arrives, in the writer)`` in seconds on ``out``."""
    from mqlite.cmq import CMQC as C
    from mqlite.cmq.structs import MD, OD, PMO
    from mqlite.engine.clock import Clock
    from mqlite.engine.qmgr import QueueManager
    from mqlite.engine.queue import DEFAULT_BUFFERS
    from mqlite.mqsc.commands import Executor
    from mqlite.net import verbs as V
    from mqlite.store.pager import StorePager
    from mqlite.store.sqlite import Store
    with tempfile.TemporaryDirectory(prefix="mqlite-work-") as d:
        store = Store(os.path.join(d, "qmgr.db"))
        qm = QueueManager("WORK", store, Clock(), StorePager(store, os.path.join(d, "scratch")), DEFAULT_BUFFERS)
        qm.create()
        Executor(qm).run("DEFINE QLOCAL(Q) MAXDEPTH(1000000)")
        conn = qm.connect("ceiling", C.MQAT_UNIX, "ceiling")
        hobj = qm.open(conn, OD(ObjectName=b"Q"), C.MQOO_OUTPUT).hobj
        request = V.Put.request(hobj, PMO(Options=C.MQPMO_NO_SYNCPOINT), MD(Persistence=C.MQPER_PERSISTENT), b"x" * 1024)

        def puts(k: int) -> tuple[float, float]:
            arrive = journal = 0.0
            for i in range(k):
                t0 = time.thread_time()
                h, pmo, md, body = V.Put.split_request(request)     # as server/verbs.py's _put
                warning, answer = qm.put_request(conn, h, md, pmo, body)
                V.Put.reply_packed(C.MQCC_OK, warning, answer)
                t1 = time.thread_time()
                arrive += t1 - t0
                if (i + 1) % BATCH == 0:
                    store.sync(conn.ticket)
                    journal += time.thread_time() - t1
            return arrive, journal

        puts(2000)
        store.settle()
        p0, t0 = time.process_time(), time.thread_time()
        arrive, journal = puts(n)
        store.settle()
        applier = (time.process_time() - p0) - (time.thread_time() - t0)
        store.close()
        fd = os.open(os.path.join(d, "bare"), os.O_WRONLY | os.O_CREAT, 0o600)
        frame = b"x" * (1200 * BATCH)
        os.pwrite(fd, bytes(1 << 20), 0)
        bare = time.thread_time()
        for i in range(n // BATCH):
            os.pwrite(fd, frame, (i * len(frame)) % (1 << 20))
            os.fdatasync(fd)
        bare = time.thread_time() - bare
        os.close(fd)
    out.put((arrive / n, max(0.0, journal - bare + applier) / n))


def mqlite_work(n: int = 10_000) -> Work:
    """``measure_mqlite_work`` in a fresh process."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    p = ctx.Process(target=measure_mqlite_work, args=(n, out))
    p.start()
    work: Work = out.get(timeout=300)
    p.join(30)
    return work


@contextlib.contextmanager
def mqlite_qm() -> Iterator[tuple[int, int, Callable[[], None]]]:
    """A queue manager of mqlite's for the producers (no security, as the other benchmarks), one
    queue; its port, its server's pid and a function that clears the queue."""
    from _common import mqlite_cmd  # (puts the repository on sys.path)

    from mqlite.cli.proc import free_port
    from mqlite.paths import QMPaths
    from mqlite.testing import OPEN_SECURITY
    data = os.environ["MQLITE_DATA"] = tempfile.mkdtemp(prefix="mqlite-ceiling-")
    os.environ["MQSNOAUT"] = "yes"
    port = free_port()
    mqlite_cmd("crtmqm", "-p", str(port), QM)
    mqlite_cmd("strmqm", QM)
    try:
        mqlite_cmd("runmqsc", QM, stdin=OPEN_SECURITY + "DEFINE QLOCAL(BENCH.SYNC) MAXDEPTH(1000000)\n"
                                        "DEFINE CHANNEL(BENCH.SVRCONN) CHLTYPE(SVRCONN)\n")
        pid = QMPaths.of(QM).running_pid()
        assert pid is not None

        def clear() -> None:
            mqlite_cmd("runmqsc", QM, stdin="CLEAR QLOCAL(BENCH.SYNC)\n")

        yield port, pid, clear
    finally:
        mqlite_cmd("endmqm", "-i", QM)
        mqlite_cmd("dltmqm", QM)
        shutil.rmtree(data, ignore_errors=True)


def median_cell(cells: list[Cell]) -> Cell:
    """The run of median rate (its CPU figures with it)."""
    return sorted(cells)[len(cells) // 2]


def show(label: str, cells: list[Cell]) -> None:
    print(f"{label:>22} " + " ".join(f"{r:9,.0f} ({s:4.0f}, {c:3.0f})" for r, s, c in cells))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--producers", default="1,8")
    ap.add_argument("--per", type=int, default=3000)
    ap.add_argument("--work-us", default="0,13,mqlite", help="numbers (µs where a request arrives, twice "
                    "that in the writer) or 'mqlite' (its measured work)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--mqlite", action="store_true", help="the same producers against a queue manager too")
    ap.add_argument("--json", help="write the rates here (requests/s by row and producer count)")
    args = ap.parse_args()
    producers = [int(x) for x in args.producers.split(",")]
    specs = [x.strip() for x in args.work_us.split(",")]
    got: dict[str, dict[int, list[Cell]]] = {}
    works: list[Work] = []
    with tempfile.TemporaryDirectory(prefix="mqlite-ceiling-") as d, \
            (mqlite_qm() if args.mqlite else contextlib.nullcontext()) as qm:
        path = os.path.join(d, "journal")
        for k in producers:
            # Every row once a round, the rounds in turn: an hour's swings (this machine moves by
            # half between minutes) fall on the model and on mqlite alike.
            for _ in range(args.runs):
                for spec in specs:
                    if spec == "mqlite":
                        work, name = mqlite_work(), "mqlite's"
                        works.append(work)
                    else:
                        work, name = (float(spec) / 1e6, 2 * float(spec) / 1e6), f"{float(spec):g} µs"
                    for mode in ("threads", "loop"):
                        got.setdefault(f"work {name} {mode}", {}).setdefault(k, []).append(
                            run(mode, k, args.per, work, path))
                if qm is not None:
                    for label, producer in (("mqlite", mq_producer), ("mqlite, raw producers", raw_mq_producer)):
                        got.setdefault(label, {}).setdefault(k, []).append(drive(producer, qm[0], qm[1], k, args.per))
                        qm[2]()
    print("requests/s (server CPU µs per request, producers' CPU µs per request), run of median rate")
    if works:
        arrive, writer = (statistics.median(w[i] for w in works) * 1e6 for i in (0, 1))
        print(f"mqlite's work per persistent put, measured in-process (median of {len(works)}): {arrive:.1f} µs "
              f"where it arrives, {writer:.1f} µs in the writer")
    print(f"{'':>22} " + " ".join(f"{k:>5} producers{'':>10}" for k in producers))
    rows: dict[str, dict[str, float]] = {"mqlite work µs": {"arrive": arrive, "writer": writer}} if works else {}
    for label, cells in got.items():
        medians = [median_cell(cells[k]) for k in producers]
        show(label, medians)
        rows[label] = {str(k): c[0] for k, c in zip(producers, medians)}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
