"""Durability under load: six to eight processes putting, committing and getting persistent
messages (in and outside syncpoint) when the queue manager is killed -9; after the restart nothing
acknowledged is lost, nothing uncommitted appears, nothing doubles (moved from test_durability.py,
which keeps the single-application cases)."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import time

from tests.conftest import ROOT, RunningQM, mqlite
from tests.server.test_durability import drain, kill9


WORKER = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, {root!r})
    from mqlite import pymqi
    from mqlite.pymqi import CMQC
    role, port, out, wid = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    log = open(out, "a", buffering=1)
    def note(line):
        log.write(line + "\\n"); log.flush(); os.fsync(log.fileno())
    qmgr = pymqi.connect("TESTQM", "TEST.SVRCONN", "127.0.0.1(%d)" % port)
    note("connected")
    persistent = pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT)
    try:
        if role == "single":          # persistent puts outside syncpoint
            q = pymqi.Queue(qmgr, "LOAD.Q")
            for i in range(10**6):
                body = "S%s-%d" % (wid, i)
                note("try " + body)
                q.put(body.encode(), pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
                note("ack " + body)
        elif role == "batch":         # persistent puts in units of work of 10
            q = pymqi.Queue(qmgr, "LOAD.Q")
            pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
            for b in range(10**6):
                for j in range(10):
                    body = "B%s-%d-%d" % (wid, b, j)
                    note("try " + body)
                    q.put(body.encode(), pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT), pmo)
                note("commit B%s-%d" % (wid, b))
                qmgr.commit()
                note("ack B%s-%d" % (wid, b))
        elif role == "nosync":        # persistent gets outside syncpoint: each logged before its answer
            q = pymqi.Queue(qmgr, "LOAD.Q")
            gmo = pymqi.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_WAIT, WaitInterval=100)
            while True:
                note("asking")
                try:
                    note("got " + q.get(None, pymqi.MD(), gmo).decode())
                except pymqi.MQMIError as e:
                    if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                        raise
        else:                         # consumer in units of work of 5
            q = pymqi.Queue(qmgr, "LOAD.Q")
            gmo = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_WAIT, WaitInterval=100)
            while True:
                got = []
                for _ in range(5):
                    try:
                        got.append(q.get(None, pymqi.MD(), gmo).decode())
                    except pymqi.MQMIError as e:
                        if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                            raise
                        break
                if got:
                    note("pending " + " ".join(got))
                    qmgr.commit()
                    note("done " + " ".join(got))
    except pymqi.MQMIError as e:
        note("ended %d" % e.reason)
""")


def test_kill9_under_load_loses_nothing_acknowledged_and_doubles_nothing(running_qm: RunningQM, tmp_path):
    running_qm.mqsc("DEFINE QLOCAL(LOAD.Q) MAXDEPTH(1000000)")
    script = tmp_path / "worker.py"
    script.write_text(WORKER.format(root=ROOT))
    roles = ["single", "single", "batch", "batch", "consumer", "consumer", "nosync", "nosync"]
    logs = [tmp_path / f"{i}-{role}.log" for i, role in enumerate(roles)]
    procs = [subprocess.Popen([sys.executable, str(script), role, str(running_qm.port), str(log), str(i)])
             for i, (role, log) in enumerate(zip(roles, logs))]
    try:
        # The crash comes once every worker is connected and the work is under way (a fixed 2.5 s
        # was not enough on a loaded machine: a worker killed before its first connect wrote no log).
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            texts = [log.read_text() if log.exists() else "" for log in logs]
            if all("connected" in t for t in texts) and sum(t.count("\nack ") for t in texts) > 60 \
                    and sum(t.count("\ndone ") for t in texts) > 25 and sum(t.count("\ngot ") for t in texts) > 25:
                break
            time.sleep(0.1)
        kill9(running_qm)
        for p in procs:
            p.wait(timeout=30)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert mqlite("strmqm", running_qm.name).returncode == 0
    qmgr = running_qm.client()
    remaining = [b.decode() for b in drain(qmgr, "LOAD.Q")]
    qmgr.disconnect()

    tried, acked, consumed, in_doubt = set(), set(), [], set()
    batch_size = {}
    for log in logs:
        pending: list[str] = []
        for line in log.read_text().splitlines():
            kind, _, rest = line.partition(" ")
            if kind == "try":
                tried.add(rest)
                if rest.startswith("B"):
                    b = rest.rsplit("-", 1)[0]
                    batch_size[b] = batch_size.get(b, 0) + 1
            elif kind == "ack" and rest.startswith("S"):
                acked.add(rest)
            elif kind == "ack":
                acked.update(f"{rest}-{j}" for j in range(10))
            elif kind == "pending":
                pending = rest.split()
            elif kind == "done":
                consumed.extend(rest.split())
                pending = []
            elif kind == "got":
                consumed.append(rest)
        in_doubt.update(pending)     # a consumer's commit that the crash interrupted
    assert all(log.read_text().rstrip().splitlines()[-1].startswith("ended") for log in logs)
    assert len(acked) > 50 and len(consumed) > 20, (len(acked), len(consumed))
    final = consumed + remaining
    # nothing doubles
    assert len(final) == len(set(final))
    # nothing appears that was not put
    assert set(final) <= tried
    # Nothing acknowledged is lost, and units of work are all or nothing: a batch is wholly there
    # or wholly absent (one the crash cut short before its commit is absent). A message in an
    # interrupted consumer commit may be gone with it (in doubt); and so may the one an MQGET
    # outside syncpoint took as the crash came, its answer unsent: as in MQ, it was got. So at
    # most one message for each such get in flight is unaccounted for. (A get answered was logged
    # first: its message never comes back, "nothing doubles" above.)
    present = set(final) | in_doubt
    lost = acked - present
    for b, n in batch_size.items():
        members = {f"{b}-{j}" for j in range(n)}
        if members & present:            # committed: every one of them was there
            lost |= members - present
    in_flight = sum(1 for role, log in zip(roles, logs)
                    if role == "nosync" and log.read_text().rstrip().splitlines()[-2] == "asking")
    assert len(lost) <= in_flight, (sorted(lost)[:10], in_flight)
