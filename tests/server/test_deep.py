"""Queues deeper than memory through a real queue manager (issue 16): qm.ini's TuningParameters
set tiny buffers, so almost every message is read back from the store, across kill -9."""
from __future__ import annotations

import os
import time

from mqlite import pymqi
from mqlite.paths import QMPaths
from mqlite.pymqi import CMQC
from tests.conftest import RunningQM, mqlite
from tests.faults.kit import rss_kib
from tests.server.test_durability import drain, kill9

TINY_INI = "TuningParameters:\n   DefaultQBufferSize=4096\n   DefaultPQBufferSize=4096\n"


def restart_with(qm: RunningQM, ini: str) -> None:
    with open(QMPaths.of(qm.name).ini, "w", encoding="utf-8") as f:
        f.write(ini)
    assert mqlite("endmqm", "-i", qm.name).returncode == 0
    r = mqlite("strmqm", qm.name)
    assert r.returncode == 0, r.stdout + r.stderr


def depth(qm: RunningQM, queue: str) -> int:
    out = qm.mqsc(f"DISPLAY QLOCAL({queue}) CURDEPTH").stdout
    return int(out.split("CURDEPTH(")[1].split(")")[0])


def test_a_deep_queue_is_served_in_order_from_the_store_across_kill_9(running_qm: RunningQM) -> None:
    restart_with(running_qm, TINY_INI)
    qmgr = running_qm.client()
    q = pymqi.Queue(qmgr, "TEST.Q")
    sync = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    expected: dict[int, list[bytes]] = {p: [] for p in range(10)}
    for i in range(3000):
        prio = (i * 7) % 10
        body = f"{i:05}".encode() * 60                         # 300 bytes
        q.put(body, pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT, Priority=prio), sync)
        expected[prio].append(body)
        if i % 100 == 99:
            qmgr.commit()
    for i in range(500):                                        # gone after the restart
        q.put(b"np%d" % i, pymqi.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
    # A unit of work that is committed, and one that is open when the queue manager dies.
    order = [b for p in range(9, -1, -1) for b in expected[p]]
    gmo = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)
    q = pymqi.Queue(qmgr, "TEST.Q", CMQC.MQOO_INPUT_SHARED)
    got = [q.get(None, pymqi.MD(), gmo) for _ in range(400)]
    qmgr.commit()
    assert got == order[:400]
    held = [q.get(None, pymqi.MD(), gmo) for _ in range(250)]
    assert held == order[400:650]
    assert depth(running_qm, "TEST.Q") == 2600 + 500
    kill9(running_qm)
    assert mqlite("strmqm", running_qm.name).returncode == 0
    assert depth(running_qm, "TEST.Q") == 2600
    scratch = QMPaths.of(running_qm.name).scratch                # the lost nonpersistent ones' records went
    assert not os.path.exists(scratch) or not os.listdir(scratch)
    qmgr = running_qm.client()
    assert drain(qmgr, "TEST.Q") == order[400:]                 # nothing lost, nothing twice, in order
    qmgr.disconnect()


def test_a_get_by_msgid_or_correlid_finds_a_message_deep_in_the_store(running_qm: RunningQM) -> None:
    restart_with(running_qm, TINY_INI)
    qmgr = running_qm.client()
    q = pymqi.Queue(qmgr, "TEST.Q")
    ids = []
    for i in range(2000):
        md = pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT if i % 2 else CMQC.MQPER_NOT_PERSISTENT,
                      CorrelId=b"C%04d" % (i % 50))
        q.put(b"m%d" % i, md)
        ids.append(md.MsgId)
    q = pymqi.Queue(qmgr, "TEST.Q", CMQC.MQOO_INPUT_SHARED)
    md = pymqi.MD(MsgId=ids[1777])
    assert q.get(None, md, pymqi.GMO(MatchOptions=CMQC.MQMO_MATCH_MSG_ID)) == b"m1777"
    md = pymqi.MD(CorrelId=b"C0042")
    gmo = pymqi.GMO(MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
    assert [q.get(None, pymqi.MD(CorrelId=b"C0042"), gmo) for _ in range(40)] == [b"m%d" % i for i in
                                                                                  range(42, 2000, 50)]
    try:
        q.get(None, md, gmo)
        raise AssertionError("a 41st message with CorrelId C0042")
    except pymqi.MQMIError as e:
        assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    # Browsing reads through the part on disk without taking anything.
    browse = pymqi.Queue(qmgr, "TEST.Q", CMQC.MQOO_BROWSE)
    seen = [browse.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))]
    seen += [browse.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_BROWSE_NEXT)) for _ in range(1958)]
    assert len(seen) == 1959 and seen[0] == b"m0" and seen[-1] == b"m1999"
    assert depth(running_qm, "TEST.Q") == 1959
    qmgr.disconnect()


def test_a_bad_buffer_size_in_qm_ini_is_reported_and_the_default_used(running_qm: RunningQM) -> None:
    restart_with(running_qm, "TuningParameters:\n   DefaultQBufferSize=lots\n   DefaultPQBufferSize=999999999\n")
    with open(os.path.join(QMPaths.of(running_qm.name).errors, "AMQERR01.LOG"), encoding="utf-8") as f:
        log = f.read()
    assert "MQL8001W: qm.ini TuningParameters DefaultQBufferSize=lots is not valid." in log
    assert "MQL8001W: qm.ini TuningParameters DefaultPQBufferSize=999999999 is not valid." in log
    qmgr = running_qm.client()
    pymqi.Queue(qmgr, "TEST.Q").put(b"still works")
    assert drain(qmgr, "TEST.Q") == [b"still works"]
    qmgr.disconnect()


def _rss_mib(pid: int) -> float:
    return rss_kib(pid) / 1024


def test_a_deep_queue_s_memory_is_given_back_once_the_queue_manager_is_idle(running_qm: RunningQM) -> None:
    """Issue 69: 50,000 persistent messages deep, the queue manager kept ~90 MB more than it
    started with, for ever: SQLite's page cache (up to 64 MiB) that the log's applier filled
    writing their rows. Idle for IDLE_SHRINK (10 s) after its last run, it gives that back; the
    messages all come back, in order, after it did."""
    pid = running_qm.pid()
    assert pid is not None
    running_qm.mqsc("DEFINE QLOCAL(DEEP.Q) MAXDEPTH(100000)")
    qmgr = running_qm.client()
    q = pymqi.Queue(qmgr, "DEEP.Q")
    sync = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    md = pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT)
    start = _rss_mib(pid)
    n = 20000
    for i in range(n):
        md.MsgId = CMQC.MQMI_NONE
        q.put(b"%06d" % i + b"x" * 1018, md, sync)
        if i % 500 == 499:
            qmgr.commit()
    deep = _rss_mib(pid)
    assert deep - start > 25, (start, deep)                   # 20,000 messages of 1 KiB: their rows' pages
    deadline = time.monotonic() + 60                          # (the last rows applied ~1 s after the puts, then 10 s)
    while _rss_mib(pid) > deep - 20 and time.monotonic() < deadline:
        time.sleep(0.5)
    idle = _rss_mib(pid)
    assert idle <= deep - 20, (start, deep, idle)
    assert depth(running_qm, "DEEP.Q") == n
    got = drain(qmgr, "DEEP.Q")
    assert len(got) == n and all(b[:6] == b"%06d" % i for i, b in enumerate(got))
