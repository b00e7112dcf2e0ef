"""A queue deeper than memory: put N 1 KiB persistent messages in units of 500, restart the queue
manager, get them all back under syncpoint; then M nonpersistent messages beyond the buffer.
RabbitMQ (a durable classic queue v2 and a quorum queue) does the same work in the same run.

Prints, for mqlite: put and get rates near the start (the first window, ~10k deep) and at the
deepest point (the last put window, the first get window), the server's largest RSS, strmqm's
time at full depth, and the store's bytes per message; for RabbitMQ the same rates.

    python bench/deep.py --count 1000000 --np-count 1000000 --rabbit-count 200000
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import mqlite_cmd, rabbit_available  # noqa: E402

from mqlite.cli.proc import free_port  # noqa: E402
from mqlite.testing import OPEN_SECURITY  # noqa: E402

BODY = b"x" * 1024
QM = "DEEP.QM"
UNIT = 500
PROGRESS = 0        # --progress: every this many windows, a line on stderr


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Windows:
    """Rates over consecutive windows of ``size`` messages, and the largest RSS seen at each."""

    def __init__(self, size: int, pid: int | None, label: str = "") -> None:
        self.size, self.pid, self.label = size, pid, label
        self.rates: list[float] = []
        self.peak = 0.0
        self._t = time.perf_counter()
        self._n = 0

    def tick(self, n: int = 1) -> None:
        self._n += n
        if self._n >= self.size:
            now = time.perf_counter()
            self.rates.append(self._n / (now - self._t))
            if self.pid:
                self.peak = max(self.peak, rss_mib(self.pid))
            if PROGRESS and self.label and len(self.rates) % PROGRESS == 0:
                # A long run says how it is going (stderr), so that a run cut short still tells.
                print(f"{self.label}: {len(self.rates) * self.size:,} done, last window {self.rates[-1]:,.0f}/s, "
                      f"largest RSS {self.peak:.1f} MiB", file=sys.stderr, flush=True)
            self._t, self._n = now, 0


def mqlite_deep(n: int, np_count: int, window: int) -> dict[str, float]:
    from mqlite import pymqi
    from mqlite.paths import QMPaths
    from mqlite.pymqi import CMQC as C
    port = free_port()
    # Measured open, as the tests' queue managers are: no OAM, no CHLAUTH, no CONNAUTH (bench/security.py
    # measures what security costs).
    os.environ["MQSNOAUT"] = "yes"
    mqlite_cmd("crtmqm", "-p", str(port), QM)
    mqlite_cmd("strmqm", QM)
    paths = QMPaths.of(QM)
    out: dict[str, float] = {}
    try:
        mqlite_cmd("runmqsc", QM, stdin=OPEN_SECURITY + "DEFINE QLOCAL(DEEP.Q) MAXDEPTH(999999999)\n"
                                         "DEFINE CHANNEL(BENCH.SVRCONN) CHLTYPE(SVRCONN)\n")
        pid = paths.running_pid()
        assert pid
        out["rss_start_mib"] = rss_mib(pid)
        qmgr = pymqi.connect(QM, "BENCH.SVRCONN", f"127.0.0.1({port})")
        q = pymqi.Queue(qmgr, "DEEP.Q", C.MQOO_OUTPUT)
        md = pymqi.MD(Persistence=C.MQPER_PERSISTENT)
        pmo = pymqi.PMO(Options=C.MQPMO_SYNCPOINT)
        w = Windows(window, pid, "mqlite persistent put")
        t0 = time.perf_counter()
        for i in range(n):
            md.MsgId = C.MQMI_NONE
            q.put(BODY, md, pmo)
            if (i + 1) % UNIT == 0:
                qmgr.commit()
                w.tick(UNIT)
        qmgr.commit()
        out["put_all_per_s"] = n / (time.perf_counter() - t0)
        out["put_first_window_per_s"], out["put_last_window_per_s"] = w.rates[0], w.rates[-1]
        out["rss_peak_put_mib"] = w.peak
        qmgr.disconnect()
        mqlite_cmd("endmqm", "-i", QM)
        size = sum(os.path.getsize(p) for p in (paths.db, paths.db + "-wal") if os.path.exists(p))
        out["disk_bytes_per_msg"] = size / n
        t0 = time.perf_counter()
        mqlite_cmd("strmqm", QM)
        out["strmqm_s"] = time.perf_counter() - t0
        if PROGRESS:
            print(f"strmqm at {n:,} deep: {out['strmqm_s']:.2f} s; disk {out['disk_bytes_per_msg']:.0f} bytes a message",
                  file=sys.stderr, flush=True)
        pid = paths.running_pid()
        assert pid
        out["rss_after_start_mib"] = rss_mib(pid)
        qmgr = pymqi.connect(QM, "BENCH.SVRCONN", f"127.0.0.1({port})")
        q = pymqi.Queue(qmgr, "DEEP.Q", C.MQOO_INPUT_SHARED)
        gmo = pymqi.GMO(Options=C.MQGMO_SYNCPOINT)
        w = Windows(window, pid, "mqlite persistent get")
        t0 = time.perf_counter()
        for i in range(n):
            q.get(2048, pymqi.MD(), gmo)
            if (i + 1) % UNIT == 0:
                qmgr.commit()
                w.tick(UNIT)
        qmgr.commit()
        out["get_all_per_s"] = n / (time.perf_counter() - t0)
        out["get_first_window_per_s"], out["get_last_window_per_s"] = w.rates[0], w.rates[-1]
        out["rss_peak_get_mib"] = w.peak
        if np_count:
            q = pymqi.Queue(qmgr, "DEEP.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
            md = pymqi.MD(Persistence=C.MQPER_NOT_PERSISTENT)
            w = Windows(window, pid)
            t0 = time.perf_counter()
            for _ in range(np_count):
                md.MsgId = C.MQMI_NONE
                q.put(BODY, md)
                w.tick()
            out["np_put_per_s"] = np_count / (time.perf_counter() - t0)
            out["np_put_first_window_per_s"], out["np_put_last_window_per_s"] = w.rates[0], w.rates[-1]
            gw = Windows(window, pid)
            t0 = time.perf_counter()
            for _ in range(np_count):
                q.get(2048, pymqi.MD(), pymqi.GMO())
                gw.tick()
            out["np_get_per_s"] = np_count / (time.perf_counter() - t0)
            out["rss_peak_np_mib"] = max(w.peak, gw.peak)
        qmgr.disconnect()
    finally:
        mqlite_cmd("endmqm", "-i", QM)
        mqlite_cmd("dltmqm", QM)
    return out


def rabbit_deep(n: int, kind: str, window: int) -> dict[str, float]:
    """Publish ``n`` persistent messages in AMQP transactions of 500 (a classic queue) or with
    publisher confirms every 500 (a quorum queue, which has no transactions), then consume them,
    acknowledging every 500."""
    import pika
    conn = pika.BlockingConnection(pika.ConnectionParameters("127.0.0.1", 5672, heartbeat=0))
    ch = conn.channel()
    qname = f"mqlite.deep.{kind}"
    ch.queue_delete(qname)
    args = {"x-queue-type": "quorum"} if kind == "quorum" else {"x-queue-version": 2}
    ch.queue_declare(qname, durable=True, arguments=args)
    props = pika.BasicProperties(delivery_mode=2)
    out: dict[str, float] = {}
    w = Windows(window, None)
    t0 = time.perf_counter()
    if kind == "quorum":
        ch.confirm_delivery()       # a blocking channel waits for each confirm: batches go unconfirmed in between
        for i in range(n):
            ch.basic_publish("", qname, BODY, props, mandatory=False)
            if (i + 1) % UNIT == 0:
                w.tick(UNIT)
    else:
        ch.tx_select()
        for i in range(n):
            ch.basic_publish("", qname, BODY, props)
            if (i + 1) % UNIT == 0:
                ch.tx_commit()
                w.tick(UNIT)
        ch.tx_commit()
    out["put_all_per_s"] = n / (time.perf_counter() - t0)
    out["put_first_window_per_s"], out["put_last_window_per_s"] = w.rates[0], w.rates[-1]
    # Consumed on a channel of its own: on the transacted one, acknowledgements would wait for a
    # commit and the prefetch window would never open again.
    ch = conn.channel()
    ch.basic_qos(prefetch_count=UNIT)
    got = 0
    w = Windows(window, None)
    t0 = time.perf_counter()
    for method, _p, _b in ch.consume(qname, auto_ack=False):
        got += 1
        if got % UNIT == 0 or got == n:
            ch.basic_ack(method.delivery_tag, multiple=True)
            w.tick(UNIT)
        if got == n:
            break
    ch.cancel()
    out["get_all_per_s"] = n / (time.perf_counter() - t0)
    out["get_first_window_per_s"], out["get_last_window_per_s"] = w.rates[0], w.rates[-1]
    ch.queue_delete(qname)
    conn.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=1_000_000, help="persistent messages (the issue's target: 10M)")
    ap.add_argument("--np-count", type=int, default=1_000_000, help="nonpersistent messages beyond the buffer")
    ap.add_argument("--rabbit-count", type=int, default=200_000, help="messages for each RabbitMQ queue (0: none)")
    ap.add_argument("--window", type=int, default=10_000, help="messages per rate window")
    ap.add_argument("--json", help="write the figures here too")
    ap.add_argument("--progress", type=int, default=0, help="a line on stderr every this many windows (0: none)")
    args = ap.parse_args()
    global PROGRESS
    PROGRESS = args.progress
    data = tempfile.mkdtemp(prefix="mqlite-deep-", dir=os.environ.get("MQLITE_BENCH_DIR"))
    os.environ["MQLITE_DATA"] = data
    results: dict[str, dict[str, float]] = {}

    def report(who: str, figures: dict[str, float]) -> None:
        """Each system's figures as soon as they are in (a long run keeps what it measured)."""
        results[who] = figures
        print(who, flush=True)
        for k, v in figures.items():
            print(f"  {k:30} {v:14.1f}", flush=True)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(results, f, indent=2)

    try:
        report("mqlite", mqlite_deep(args.count, args.np_count, args.window))
    finally:
        shutil.rmtree(data, ignore_errors=True)
    if args.rabbit_count and rabbit_available():
        for kind in ("classic_v2", "quorum"):
            report(f"rabbitmq_{kind}", rabbit_deep(args.rabbit_count, kind, args.window))
    elif args.rabbit_count:
        print("RabbitMQ not reachable on 127.0.0.1:5672 (or pika missing): peer figures skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
