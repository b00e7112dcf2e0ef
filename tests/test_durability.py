"""Durability: what MQPUT/MQCMIT acknowledged survives kill -9; nothing uncommitted appears; nothing doubles."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

from mqlite import pymqi
from mqlite.pymqi import CMQC
from tests.conftest import ROOT, RunningQM, mqlite


def drain(qmgr, queue: str) -> list[bytes]:
    q = pymqi.Queue(qmgr, queue)
    out = []
    while True:
        try:
            out.append(q.get(None, pymqi.MD(), pymqi.GMO()))
        except pymqi.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            q.close()
            return out


def kill9(qm: RunningQM) -> None:
    pid = qm.pid()
    assert pid
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while qm.pid() and time.monotonic() < deadline:
        time.sleep(0.02)


def test_restart_keeps_persistent_messages_and_definitions(running_qm: RunningQM):
    running_qm.mqsc("DEFINE QLOCAL(KEEP.Q) DESCR('kept') MAXDEPTH(77)\nALTER QMGR DEADQ(KEEP.Q)\n")
    qmgr = running_qm.client()
    q = pymqi.Queue(qmgr, "KEEP.Q")
    q.put(b"persistent", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    q.put(b"nonpersistent", pymqi.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
    q.put(b"uncommitted", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT),
          pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    kill9(running_qm)
    assert mqlite("strmqm", running_qm.name).returncode == 0
    out = running_qm.mqsc("DISPLAY QLOCAL(KEEP.Q) DESCR MAXDEPTH CURDEPTH\nDISPLAY QMGR DEADQ\n").stdout
    assert "DESCR(kept)" in out and "MAXDEPTH(77)" in out and "CURDEPTH(1)" in out and "DEADQ(KEEP.Q)" in out
    qmgr = running_qm.client()
    assert drain(qmgr, "KEEP.Q") == [b"persistent"]
    qmgr.disconnect()


def test_get_in_open_unit_of_work_comes_back_after_crash(running_qm: RunningQM):
    qmgr = running_qm.client()
    pymqi.Queue(qmgr, "TEST.Q").put(b"work", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    q = pymqi.Queue(qmgr, "TEST.Q")
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == b"work"
    kill9(running_qm)
    assert mqlite("strmqm", running_qm.name).returncode == 0
    qmgr = running_qm.client()
    md = pymqi.MD()
    assert pymqi.Queue(qmgr, "TEST.Q").get(None, md) == b"work"
    qmgr.disconnect()


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
    roles = ["single", "single", "batch", "batch", "consumer", "consumer"]
    logs = [tmp_path / f"{i}-{role}.log" for i, role in enumerate(roles)]
    procs = [subprocess.Popen([sys.executable, str(script), role, str(running_qm.port), str(log), str(i)])
             for i, (role, log) in enumerate(zip(roles, logs))]
    try:
        time.sleep(2.5)
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
        in_doubt.update(pending)     # a consumer's commit that the crash interrupted
    assert all(log.read_text().rstrip().splitlines()[-1].startswith("ended") for log in logs)
    assert len(acked) > 50 and len(consumed) > 20, (len(acked), len(consumed))
    final = consumed + remaining
    # nothing doubles
    assert len(final) == len(set(final))
    # nothing appears that was not put
    assert set(final) <= tried
    # nothing acknowledged is lost (a message in an interrupted consumer commit may be gone with it)
    missing = acked - set(final)
    assert missing <= in_doubt, sorted(missing)[:10]
    # units of work are all or nothing: a batch is wholly there or wholly absent (a batch the crash
    # cut short before its commit is absent)
    present = set(final) | in_doubt
    for b, n in batch_size.items():
        count = sum(1 for j in range(n) if f"{b}-{j}" in present)
        assert count in (0, 10), (b, count, n)
