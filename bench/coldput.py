"""What a client's persistent put costs when the caches are cold, as they are for a producer woken
among eight others and the server on two cores (``bench/ceiling.py``): instructions and the cache
lines it misses, counted by ``valgrind --tool=cachegrind`` (this machine's VM has no hardware
counters). A pymqi ``Queue.put`` and the raw producer of ``bench/ceiling.py`` (the same PUT frame
sent as made once, its reply read by length) each put with the reply already waiting in a
socketpair, after every cache line of 4 MiB was written (L2 is 1 MiB a core here). A run with the
eviction alone is taken away, and each figure is the difference of two run lengths divided by
their difference, so start-up and the queue manager's connection cost nothing. The simulated
caches: L1 32 KiB 8-way, and the "last level" the L2 (1 MiB, 16-way), whose misses are what a
producer pays again after each wake-up.

    python bench/coldput.py [--n 200,600] [--modes mq,raw]

It needs valgrind (Debian's package ``valgrind``) and takes about a minute and a half.
"""
from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile

EVENTS = ("Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw")


def child(mode: str, n: int, port: int) -> None:
    """(Under valgrind.) ``n`` puts of ``mode`` ('none': the eviction alone), each after the caches
    were evicted."""
    from ceiling import QM

    from mqlite import pymqi
    from mqlite.net import protocol as P
    from mqlite.net.client import HEARTBEATS
    from mqlite.pymqi import CMQC as C
    spare = bytes(2 << 20)      # glibc's mmap threshold raised, as in a process that has run a while
    del spare
    evict = bytearray(4 << 20)
    ones = b"\x01" * (len(evict) // 64)
    qmgr = pymqi.connect(QM, "BENCH.SVRCONN", f"127.0.0.1({port})")
    q = pymqi.Queue(qmgr, "BENCH.SYNC", C.MQOO_OUTPUT)
    md = pymqi.MD(Persistence=C.MQPER_PERSISTENT)
    body = b"x" * 1024
    t = qmgr._transport
    assert t is not None
    HEARTBEATS.transports.discard(t)       # (its thread would read the waiting reply)
    replies: list[tuple[int, bytes]] = []
    read = t.reader.read

    def keep() -> tuple[int, bytes]:
        replies.append(read())
        return replies[-1]

    t.reader.read = keep        # type: ignore[method-assign]
    q.put(body, md)
    del t.reader.read
    reply = P.frame(*replies[-1])
    a, b = socket.socketpair()
    t.sock = t.reader.sock = a
    t.reader.spin = 0
    b.sendall(reply)
    md.MsgId = C.MQMI_NONE
    q.put(body, md)
    request = b.recv(1 << 20)

    def mq() -> None:
        md.MsgId = C.MQMI_NONE
        q.put(body, md)

    def raw() -> None:
        a.sendall(request)
        a.recv(65536)

    put = {"mq": mq, "raw": raw, "none": None}[mode]
    for _ in range(n):
        if put is not None:
            b.sendall(reply)
        evict[::64] = ones
        if put is not None:
            put()
            b.recv(1 << 20)
    os._exit(0)


def totals(path: str) -> list[int]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("summary:"):
                return [int(x) for x in line.split()[1:]]
    raise ValueError(f"no summary in {path}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", default="200,600", help="two run lengths")
    ap.add_argument("--modes", default="mq,raw")
    args = ap.parse_args()
    n1, n2 = (int(x) for x in args.n.split(","))
    modes = args.modes.split(",")
    from ceiling import mqlite_qm
    per: dict[str, list[float]] = {}
    with mqlite_qm() as (port, _pid, _clear), tempfile.TemporaryDirectory(prefix="mqlite-coldput-") as d:
        for mode in ["none", *modes]:
            runs = []
            for n in (n1, n2):
                out = os.path.join(d, f"{mode}.{n}")
                subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--I1=32768,8,64",
                                "--D1=32768,8,64", "--LL=1048576,16,64", f"--cachegrind-out-file={out}",
                                sys.executable, __file__, "--child", mode, str(n), str(port)],
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                runs.append(totals(out))
            per[mode] = [(b - a) / (n2 - n1) for a, b in zip(*runs)]
    print("a put with cold caches (cachegrind; the eviction alone taken away), per put:")
    print(f"{'':>6} {'instructions':>13} {'L2 misses':>10} {'of code':>8} {'data read':>10} {'data written':>13}")
    for mode in modes:
        v = {e: per[mode][i] - per["none"][i] for i, e in enumerate(EVENTS)}
        print(f"{mode:>6} {v['Ir']:13,.0f} {v['ILmr'] + v['DLmr'] + v['DLmw']:10,.0f} {v['ILmr']:8,.0f} "
              f"{v['DLmr']:10,.0f} {v['DLmw']:13,.0f}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    sys.exit(main())
