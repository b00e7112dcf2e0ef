"""Many connections: an active client's put/get latency with and without 1,000 idle client
connections open on the same queue manager, and what the idle connections cost the server.

The active client does --n round trips (an MQPUT and an MQGET of a 1 KiB nonpersistent message,
MQ's default synchronous calls) and reports p50/p99 of each round trip. Then --idle further
connections are opened (each an MQCONN over the SVRCONN channel, then silent) and the active
client runs again. The server's resident memory (VmRSS) and thread count are read from /proc
before and after. Target (issue 16): p99 with the idle connections within 2x of p99 without.

    python bench/connections.py [--idle 1000] [--n 3000] [--runs 3] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import mqlite_cmd  # noqa: E402

from mqlite.cli.proc import free_port  # noqa: E402
from mqlite.paths import QMPaths  # noqa: E402
from mqlite.testing import OPEN_SECURITY  # noqa: E402

QM = "CONN.QM"
BODY = b"x" * 1024


def server_stats() -> tuple[int, int]:
    """(VmRSS in KiB, threads) of the queue manager's server process."""
    with open(QMPaths.of(QM).pid, encoding="ascii") as f:
        pid = int(f.read().split()[0])
    rss = threads = 0
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    return rss, threads


def active(pymqi, C, conname: str, n: int) -> tuple[float, float]:
    """p50 and p99 of a put+get round trip, in milliseconds."""
    qmgr = pymqi.connect(QM, "BENCH.SVRCONN", conname)
    q = pymqi.Queue(qmgr, "BENCH.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF)
    md = pymqi.MD()
    lat = []
    for _ in range(n):
        t0 = time.perf_counter()
        md.MsgId = C.MQMI_NONE
        q.put(BODY, md)
        q.get(2048, pymqi.MD(), pymqi.GMO())
        lat.append(time.perf_counter() - t0)
    q.close()
    qmgr.disconnect()
    lat.sort()
    return lat[len(lat) // 2] * 1000, lat[int(len(lat) * 0.99)] * 1000


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--idle", type=int, default=1000)
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, args.idle * 2 + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))   # the server inherits it from here
    if want < args.idle + 64:
        raise SystemExit(f"RLIMIT_NOFILE {hard} is too low for {args.idle} connections")
    os.environ["MQLITE_DATA"] = tempfile.mkdtemp(prefix="mqlite-bench-")
    port = free_port()
    conname = f"127.0.0.1({port})"
    # Measured open, as the tests' queue managers are: no OAM, no CHLAUTH, no CONNAUTH (bench/security.py
    # measures what security costs).
    os.environ["MQSNOAUT"] = "yes"
    mqlite_cmd("crtmqm", "-p", str(port), QM)
    with open(QMPaths.of(QM).ini, "a", encoding="utf-8") as f:
        # As an MQ administrator would: MaxChannels (100 by default) room for every connection.
        f.write(f"CHANNELS:\n   MaxChannels={args.idle + 16}\n")
    mqlite_cmd("strmqm", QM)
    results: dict[str, float] = {}
    idle = []
    try:
        mqlite_cmd("runmqsc", QM, stdin=OPEN_SECURITY + "DEFINE QLOCAL(BENCH.Q)\nDEFINE CHANNEL(BENCH.SVRCONN) CHLTYPE(SVRCONN)\n")
        from mqlite import pymqi
        from mqlite.pymqi import CMQC as C
        active(pymqi, C, conname, 200)                     # warm up
        base = [active(pymqi, C, conname, args.n) for _ in range(args.runs)]
        rss0, threads0 = server_stats()
        t0 = time.perf_counter()
        for _ in range(args.idle):
            idle.append(pymqi.connect(QM, "BENCH.SVRCONN", conname))
        connect_s = time.perf_counter() - t0
        time.sleep(1.0)
        rss1, threads1 = server_stats()
        loaded = [active(pymqi, C, conname, args.n) for _ in range(args.runs)]
        results = {
            "p50_ms_alone": statistics.median(p for p, _ in base),
            "p99_ms_alone": statistics.median(p for _, p in base),
            "p50_ms_with_idle": statistics.median(p for p, _ in loaded),
            "p99_ms_with_idle": statistics.median(p for _, p in loaded),
            "server_rss_mib_before": rss0 / 1024, "server_rss_mib_with_idle": rss1 / 1024,
            "server_kib_per_idle_connection": (rss1 - rss0) / max(1, args.idle),
            "server_threads_before": threads0, "server_threads_with_idle": threads1,
            "idle_connects_per_s": args.idle / connect_s,
        }
    finally:
        for q in idle:
            try:
                q.disconnect()
            except Exception:  # noqa: BLE001 - ending anyway
                pass
        mqlite_cmd("endmqm", "-i", QM)
        mqlite_cmd("dltmqm", QM)
    for k, v in results.items():
        print(f"{k:34} {v:12.2f}")
    print(f"p99 with {args.idle} idle connections / alone: "
          f"{results['p99_ms_with_idle'] / results['p99_ms_alone']:.2f}x")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
