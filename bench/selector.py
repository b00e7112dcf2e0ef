"""Gets through a message selector (issue 18): --n messages (default 100,000) with properties on one
queue, one in ten matching ``colour = 'red' AND size > 5``; a consumer opens the queue with that
SelectionString and gets every match (outside syncpoint, over a client connection). Beside it the
same consumer getting the same number of messages with no selector from a queue that holds only
those, so the cost of selection reads as the difference. Also the put/get rate of messages with
five properties against the same messages with none (the issue's 25% budget), and with the
application reading all five after each get (properties are read from their folders when first
asked for, so this is the whole cost).

RabbitMQ has no selectors (a headers exchange filters when routing, not when consuming), so it is
not run here; bench/putget.py has it beside mqlite for plain put/get.

Prints medians of --runs runs, in msgs/s.  Usage:
    python bench/selector.py [--n 100000] [--runs 3] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import mqlite_cmd  # noqa: E402

from mqlite.cli.proc import free_port
from mqlite.testing import OPEN_SECURITY

QM = "BENCH.SEL"
BODY = b"x" * 256


def fill(qm, pymqi, C, queue: str, n: int, every: int, props: int = 2) -> None:
    """n messages, one in ``every`` red (``every`` 1: all red), asynchronous puts."""
    q = pymqi.Queue(qm, queue, C.MQOO_OUTPUT)
    mh = pymqi.MessageHandle(qm)
    pmo = pymqi.PMO(Options=C.MQPMO_ASYNC_RESPONSE, OriginalMsgHandle=mh.msg_handle)
    for i in range(n):
        mh.properties.set("colour", "red" if i % every == 0 else "blue")
        mh.properties.set("size", 10, C.MQTYPE_INT32)
        q.put(BODY, pymqi.MD(), pmo)
    q.close()
    qm.stat()


def drain(qm, pymqi, C, queue: str, selection: str | None) -> tuple[int, float]:
    od = pymqi.OD(ObjectName=queue.encode())
    if selection:
        od.set_vs("SelectionString", selection)
    q = pymqi.Queue(qm, od, C.MQOO_INPUT_SHARED)
    gmo = pymqi.GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_NO_PROPERTIES)
    got = 0
    t0 = time.perf_counter()
    while True:
        try:
            q.get(None, pymqi.MD(), gmo)
        except pymqi.MQMIError as e:
            if e.reason != C.MQRC_NO_MSG_AVAILABLE:
                raise
            break
        got += 1
    dt = time.perf_counter() - t0
    q.close()
    return got, dt


def putget(qm, pymqi, C, queue: str, n: int, nprops: int, read: bool = False) -> tuple[float, float]:
    """Sync put then sync get of n messages with ``nprops`` properties (into a handle on the get;
    ``read``: the application then reads every property of each message it got)."""
    q = pymqi.Queue(qm, queue, C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF)
    put_h, get_h = pymqi.MessageHandle(qm), pymqi.MessageHandle(qm)
    for i in range(nprops):
        put_h.properties.set(f"p{i}", f"value{i}" if i % 2 else i, C.MQTYPE_STRING if i % 2 else C.MQTYPE_INT32)
    pmo = pymqi.PMO(OriginalMsgHandle=put_h.msg_handle if nprops else 0)
    gmo = pymqi.GMO(MsgHandle=get_h.msg_handle if nprops else 0)
    t0 = time.perf_counter()
    for _ in range(n):
        q.put(BODY, pymqi.MD(), pmo)
    t1 = time.perf_counter()
    names = [f"p{i}" for i in range(nprops)] if read else []
    for _ in range(n):
        q.get(None, pymqi.MD(), gmo)
        for name in names:
            get_h.properties.get(name)
    t2 = time.perf_counter()
    q.close()
    return n / (t1 - t0), n / (t2 - t1)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--np", type=int, default=5000, help="messages for the properties put/get case")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json")
    a = ap.parse_args()
    os.environ["MQLITE_DATA"] = tempfile.mkdtemp(prefix="mqlite-bench-")
    port = free_port()
    # Measured open, as the tests' queue managers are: no OAM, no CHLAUTH, no CONNAUTH (bench/security.py
    # measures what security costs).
    os.environ["MQSNOAUT"] = "yes"
    mqlite_cmd("crtmqm", "-p", str(port), QM)
    mqlite_cmd("strmqm", QM)
    out: dict[str, list[float]] = {"selector": [], "plain": [], "put0": [], "get0": [], "put5": [], "get5": [],
                                "get5read": []}
    try:
        mqlite_cmd("runmqsc", QM, stdin=OPEN_SECURITY + "DEFINE QLOCAL(SEL.Q) MAXDEPTH(999999)\nDEFINE QLOCAL(PLAIN.Q) "
                   "MAXDEPTH(999999)\nDEFINE QLOCAL(PG.Q) MAXDEPTH(999999)\n"
                   "DEFINE CHANNEL(BENCH.SVRCONN) CHLTYPE(SVRCONN)\n")
        from mqlite import pymqi
        from mqlite.pymqi import CMQC as C
        qm = pymqi.connect(QM, "BENCH.SVRCONN", f"127.0.0.1({port})")
        for run in range(a.runs):
            fill(qm, pymqi, C, "SEL.Q", a.n, 10)
            got, dt = drain(qm, pymqi, C, "SEL.Q", "colour = 'red' AND size > 5")
            assert got == a.n // 10, got
            out["selector"].append(got / dt)
            drain(qm, pymqi, C, "SEL.Q", None)
            fill(qm, pymqi, C, "PLAIN.Q", a.n // 10, 1)
            got, dt = drain(qm, pymqi, C, "PLAIN.Q", None)
            out["plain"].append(got / dt)
            for nprops in (0, 5):
                p, g = putget(qm, pymqi, C, "PG.Q", a.np, nprops)
                out[f"put{nprops}"].append(p)
                out[f"get{nprops}"].append(g)
            out["get5read"].append(putget(qm, pymqi, C, "PG.Q", a.np, 5, read=True)[1])
            print(f"run {run + 1}: " + ", ".join(f"{k} {v[-1]:,.0f}" for k, v in out.items()), flush=True)
        qm.disconnect()
    finally:
        mqlite_cmd("endmqm", "-i", QM)
    med = {k: statistics.median(v) for k, v in out.items()}
    print(f"\nmedians over {a.runs} runs, msgs/s:")
    print(f"  gets through a selector, 1 in 10 of {a.n:,}: {med['selector']:,.0f}   "
          f"(no selector, {a.n // 10:,} on the queue: {med['plain']:,.0f})")
    print(f"  sync put/get, no properties: {med['put0']:,.0f} / {med['get0']:,.0f}; "
          f"five properties: {med['put5']:,.0f} / {med['get5']:,.0f} "
          f"({med['put5'] / med['put0']:.0%} / {med['get5'] / med['get0']:.0%} of plain); "
          f"getting and reading all five: {med['get5read']:,.0f} ({med['get5read'] / med['get0']:.0%})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"runs": out, "medians": med}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
