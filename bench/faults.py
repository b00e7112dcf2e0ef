"""Fault runs for issue 14: hostile and careless clients against a real queue manager, and the
disk-full scenario repeated. Prints figures; exits non-zero if the queue manager crashed, hung or
logged an unexpected error.

    python bench/faults.py                      # 3,000 fuzz cases, 50 hostile connections, 3 disk-full runs
    python bench/faults.py --cases 20000 --disk-runs 10

Wire fuzz: each case opens a TCP connection and sends one of: a HELLO with random or malformed
JSON, random bytes, a valid HELLO followed by frames of random type with random or mutated
payloads (taken from real requests: OPEN, PUT, GET, INQ, STREAM, XA, ...), a header claiming a
large length, a frame cut short. After every 100 cases a pymqi client must connect, put and get
within 5 s (else: a hang). Crashes are MQL9999E entries in the error log (a traceback where a
protocol error was due) and a server process that is gone.
Hostile headers: K connections each claim a frame of the channel's MAXMSGL and send 215 bytes;
the server's RSS growth per connection is reported.
Disk full: the tmpfs test of tests/server/test_durability.py, run N times (root needed), each printing
acknowledged / got / present-after-kill -9 counts.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mqlite.net import protocol as P  # noqa: E402
from mqlite.testing import Harness  # noqa: E402
from tests.faults.kit import LogWatch, case, healthy, hello, rss_kib, sample_requests, send  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--hostile", type=int, default=50, help="connections with a claimed large frame")
    ap.add_argument("--disk-runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=300, help="time limit for the fuzz cases")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    failed = False
    with Harness() as h:
        qm = h.add("FUZZQM", "DEFINE QLOCAL(FUZZ.Q)\nDEFINE QLOCAL(FUZZ.HEALTH)\n")
        samples = sample_requests()
        watch = LogWatch(qm)
        hangs, run, crashes, protocol, start = 0, 0, 0, 0, time.monotonic()
        for i in range(args.cases):
            if time.monotonic() - start > args.seconds:
                break
            send(qm, case(rng, qm, samples))
            run += 1
            if i % 100 == 99 or i == args.cases - 1:
                hangs += not healthy(qm)
                text = watch.new()
                crashes += text.count("MQL9999E")
                protocol += text.count("AMQ9504E")
        alive = qm.pid() is not None and healthy(qm)
        print(f"wire fuzz: {run} cases in {time.monotonic() - start:.0f} s, {crashes} unexpected errors (MQL9999E), "
              f"{hangs} failed health checks, {protocol} protocol errors logged (AMQ9504E), "
              f"queue manager {'running' if alive else 'GONE'}")
        failed |= bool(crashes or hangs or not alive)
        # Hostile headers: each connection claims a frame as large as the channel allows.
        pid = qm.pid()
        before = rss_kib(pid)
        socks = []
        for _ in range(args.hostile):
            s = socket.create_connection(("127.0.0.1", qm.port), timeout=5)
            s.sendall(P.frame(P.HELLO, json.dumps(hello(qm, "APP.SVRCONN")).encode()))
            P.recv_frame(s)
            s.sendall(struct.pack(">IB", 4 << 20, P.PUT) + b"x" * 210)
            socks.append(s)
        time.sleep(1)
        grown = rss_kib(pid) - before
        for s in socks:
            s.close()
        print(f"hostile headers: {args.hostile} connections each claiming 4 MiB and sending 215 bytes: server RSS "
              f"{before} -> {before + grown} KiB, {grown / args.hostile:.0f} KiB per connection")
        failed |= grown / max(1, args.hostile) > 1024
    for n in range(args.disk_runs):
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
                            "tests/server/test_durability.py::test_a_full_disk_loses_no_acknowledged_message"],
                           cwd=ROOT, capture_output=True, text=True, timeout=600)
        m = re.search(r"acknowledged (\d+), got (\d+), present after kill -9 (\d+), refused (\d+)", r.stdout)
        if m is None:
            print(f"disk full run {n + 1}: no figures ({r.stdout.strip().splitlines()[-1:]})")
            failed = True
            continue
        acked, got, present, refused = map(int, m.groups())
        print(f"disk full run {n + 1}: acknowledged {acked}, got {got}, present after kill -9 {present} "
              f"(acknowledged - got - present = {acked - got - present}), refused with 2102 in phase 3: {refused}, "
              f"{'passed' if r.returncode == 0 else 'FAILED'}")
        failed |= r.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
