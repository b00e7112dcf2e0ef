"""The command server under a monitoring load: PCF inquiries over many queues, through PCFExecute.

A queue manager with N local queues (a client connection, as exporters use): the time of an
INQUIRE_Q of all of them (every attribute, then current depth only), of an INQUIRE_Q_STATUS of all
of them (every status field), of a RESET_Q_STATS of all of them, of an INQUIRE_CONNECTION of every
connection (with --conns clients connected, each with a queue open), and PING_Q_MGR round trips
per second.

    python bench/pcf.py [--queues 1000] [--conns 50] [--runs 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mqlite import pymqi
from mqlite.pymqi import CMQC, CMQCFC
from mqlite.testing import Harness


def timed(fn, runs: int) -> tuple[float, int]:
    times, n = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        n = len(fn())
        times.append(time.perf_counter() - t0)
    return statistics.median(times), n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queues", type=int, default=1000)
    ap.add_argument("--conns", type=int, default=50)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        h = Harness(os.path.join(d, "data"))
        try:
            qm = h.add("PCFBENCH", "".join(f"DEFINE QLOCAL(MON.{i:05d})\n" for i in range(args.queues)))
            conn = qm.client()
            p = pymqi.PCFExecute(conn)
            every = {CMQC.MQCA_Q_NAME: b"MON.*"}
            depth = {CMQC.MQCA_Q_NAME: b"MON.*", CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQIA_CURRENT_Q_DEPTH]}
            status = {CMQC.MQCA_Q_NAME: b"MON.*", CMQCFC.MQIACF_Q_STATUS_ATTRS: [CMQCFC.MQIACF_ALL]}
            conns = {CMQCFC.MQBACF_GENERIC_CONNECTION_ID: b"",
                     CMQCFC.MQIACF_CONN_INFO_TYPE: CMQCFC.MQIACF_CONN_INFO_ALL}
            for label, fn in (("INQUIRE_Q, all attributes", lambda: p.MQCMD_INQUIRE_Q(every)),
                              ("INQUIRE_Q, CURDEPTH only", lambda: p.MQCMD_INQUIRE_Q(depth)),
                              ("INQUIRE_Q_STATUS", lambda: p.MQCMD_INQUIRE_Q_STATUS(status)),
                              ("RESET_Q_STATS", lambda: p.MQCMD_RESET_Q_STATS(every))):
                secs, n = timed(fn, args.runs)
                print(f"{label:28} {n:>6} replies  median {secs * 1000:8.1f} ms")
            # Connections last: the clients' sessions would share the two cores with the inquiries.
            clients = [qm.client() for _ in range(args.conns)]
            opened = [pymqi.Queue(c, f"MON.{i:05d}", CMQC.MQOO_OUTPUT) for i, c in enumerate(clients)]
            secs, n = timed(lambda: p.MQCMD_INQUIRE_CONNECTION(conns), args.runs)
            print(f"{'INQUIRE_CONNECTION, ALL':28} {n:>6} replies  median {secs * 1000:8.1f} ms")
            for q in opened:
                q.close()
            for c in clients:
                c.disconnect()
            pings = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                for _ in range(200):
                    p.MQCMD_PING_Q_MGR()
                pings.append(200 / (time.perf_counter() - t0))
            print(f"{'PING_Q_MGR round trips/s':28} median {statistics.median(pings):10,.0f}")
            p.disconnect()
            conn.disconnect()
        finally:
            h.close()


if __name__ == "__main__":
    main()
