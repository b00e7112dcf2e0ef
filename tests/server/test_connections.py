"""Connections are bounded: hostile frame headers, MAXMSGL of a client channel, MAXINST/MAXINSTC,
MAXHANDS, the HELLO deadline, a client that stops mid-frame, malformed HELLOs and a listener that
runs out of file descriptors. A real queue manager on loopback; every case bounded in time."""
from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.net import protocol as P
from mqlite.testing import Harness


@pytest.fixture(scope="module")
def qm() -> Iterator[Any]:
    old = os.environ.get("MQLITE_FRAME_TIMEOUT")
    os.environ["MQLITE_FRAME_TIMEOUT"] = "2"          # the server started below inherits it
    h = Harness()
    try:
        yield h.add("CONNQM", "DEFINE QLOCAL(Q1)\n"
                              "DEFINE CHANNEL(SMALL.SVRCONN) CHLTYPE(SVRCONN) MAXMSGL(1000)\n"
                              "DEFINE CHANNEL(TWO.SVRCONN) CHLTYPE(SVRCONN) MAXINST(2)\n"
                              "DEFINE CHANNEL(ONE.SVRCONN) CHLTYPE(SVRCONN) MAXINSTC(1)\n"
                              "DEFINE CHANNEL(HB.SVRCONN) CHLTYPE(SVRCONN) HBINT(1)\n"
                              "DEFINE QLOCAL(HB.Q)\n")
    finally:
        h.close()
        if old is None:
            os.environ.pop("MQLITE_FRAME_TIMEOUT", None)
        else:
            os.environ["MQLITE_FRAME_TIMEOUT"] = old


def log_text(qm: Any) -> str:
    with open(os.path.join(qm.harness.data_dir, "qmgrs", qm.name, "errors", "AMQERR01.LOG")) as f:
        return f.read()


def raw(qm: Any, hello: dict[str, Any] | bytes | None = None) -> socket.socket:
    """A socket to the listener, past HELLO when one is given."""
    s = socket.create_connection(("127.0.0.1", qm.port), timeout=10)
    if hello is not None:
        payload = hello if isinstance(hello, bytes) else json.dumps(hello).encode()
        s.sendall(P.frame(P.HELLO, payload))
        if isinstance(hello, dict):
            ftype, _ = P.recv_frame(s)
            assert ftype == P.HELLO_OK
    return s


def good_hello(qm: Any, channel: str | None = None) -> dict[str, Any]:
    return {"proto": P.PROTOCOL_VERSION, "kind": "client", "qmgr": qm.name, "channel": channel or qm.harness.channel,
            "appl": "hostile", "appl_type": C.MQAT_UNIX, "user": "u"}


def closed_by_server(s: socket.socket, within: float) -> bool:
    s.settimeout(within)
    try:
        while True:
            if not s.recv(65536):
                return True
    except (socket.timeout, TimeoutError):
        return False
    except ConnectionError:
        return True


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def test_hostile_headers_do_not_take_memory(qm: Any) -> None:
    """Ten connections each claim a 4 MB frame (within the channel's MAXMSGL) and send 215 bytes;
    ten more claim 100 MB (beyond it) and are closed at once with AMQ9504E."""
    pid = qm.pid()
    before = rss_kib(pid)
    held = []
    for _ in range(10):
        s = raw(qm, good_hello(qm))
        s.sendall(struct.pack(">IB", 4 << 20, P.PUT) + b"x" * 210)
        held.append(s)
    time.sleep(0.5)
    grown = rss_kib(pid) - before
    assert grown < 16 * 1024, f"server RSS grew {grown} KiB for ten 215-byte connections"
    for _ in range(10):
        s = raw(qm, good_hello(qm))
        s.sendall(struct.pack(">IB", 100 << 20, P.PUT))
        assert closed_by_server(s, 5)
        s.close()
    assert "frame length 104857600 outside" in log_text(qm)
    # The 4 MB frames never finished: each connection is dropped after the frame timeout (2 s here).
    assert all(closed_by_server(s, 10) for s in held)
    for s in held:
        s.close()
    assert rss_kib(pid) - before < 16 * 1024
    conn = qm.client()                     # the queue manager serves on
    conn.disconnect()


def test_a_client_channel_carries_messages_up_to_its_maxmsgl(qm: Any) -> None:
    conn = qm.client("SMALL.SVRCONN")
    q = pymqi.Queue(conn, "Q1", C.MQOO_OUTPUT)
    q.put(b"x" * 1000)
    with pytest.raises(pymqi.MQMIError) as e:
        q.put(b"x" * 1001)
    assert e.value.reason == C.MQRC_DATA_LENGTH_ERROR
    with pytest.raises(pymqi.MQMIError) as e:
        conn.put1("Q1", b"x" * 5000)
    assert e.value.reason == C.MQRC_DATA_LENGTH_ERROR
    conn._transport.info["maxmsgl"] = None  # a client that does not check: the server answers the same
    with pytest.raises(pymqi.MQMIError) as e:
        q.put(b"x" * 1001)
    assert e.value.reason == C.MQRC_DATA_LENGTH_ERROR
    q.close()
    q = pymqi.Queue(conn, "Q1", C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE)
    assert q.inquire(C.MQIA_CURRENT_Q_DEPTH) == 1 and len(q.get()) == 1000
    conn.disconnect()


def test_maxinst_maxinstc_and_maxhands(qm: Any) -> None:
    two = [qm.client("TWO.SVRCONN") for _ in range(2)]
    with pytest.raises(pymqi.MQMIError) as e:
        qm.client("TWO.SVRCONN")
    assert e.value.reason == C.MQRC_CHANNEL_NOT_AVAILABLE
    two.pop().disconnect()
    two.append(qm.client("TWO.SVRCONN"))   # an instance ended: room for another
    one = qm.client("ONE.SVRCONN")
    with pytest.raises(pymqi.MQMIError) as e:
        qm.client("ONE.SVRCONN")
    assert e.value.reason == C.MQRC_CHANNEL_NOT_AVAILABLE
    for c in two + [one]:
        c.disconnect()
    qm.mqsc("ALTER QMGR MAXHANDS(3)", check=True)
    try:
        conn = qm.client()
        handles = [pymqi.Queue(conn, "Q1", C.MQOO_OUTPUT) for _ in range(3)]
        with pytest.raises(pymqi.MQMIError) as e:
            pymqi.Queue(conn, "Q1", C.MQOO_OUTPUT)
        assert e.value.reason == C.MQRC_HANDLE_NOT_AVAILABLE
        handles[0].close()
        pymqi.Queue(conn, "Q1", C.MQOO_OUTPUT).close()
        conn.disconnect()
    finally:
        qm.mqsc("ALTER QMGR MAXHANDS(256)", check=True)


def test_the_hello_deadline_covers_the_whole_hello(qm: Any) -> None:
    """A HELLO sent a byte every half second is dropped at the 10-second deadline, not accepted."""
    s = raw(qm)
    data = P.frame(P.HELLO, json.dumps(good_hello(qm)).encode())
    start = time.monotonic()
    try:
        for b in data:
            s.sendall(bytes([b]))
            time.sleep(0.5)
            if time.monotonic() - start > 14:
                break
    except (BrokenPipeError, ConnectionError):
        pass
    assert closed_by_server(s, 5)
    assert time.monotonic() - start < 16
    s.close()


def test_malformed_hellos_are_protocol_errors(qm: Any) -> None:
    bad = [b"[" * 100000 + b"]" * 100000,
           json.dumps(dict(good_hello(qm), appl_type="seven")).encode(),
           json.dumps(dict(good_hello(qm), channel=["x"])).encode(),
           json.dumps(dict(good_hello(qm), maxmsgl=1.5)).encode(),
           b"\xff\xfe"]
    for payload in bad:
        s = raw(qm, payload)
        assert closed_by_server(s, 5)
        s.close()
    # A message channel's CH_MSG shorter than its headers.
    s = raw(qm)
    s.sendall(P.frame(P.HELLO, json.dumps({"proto": P.PROTOCOL_VERSION, "kind": "channel"}).encode()))
    closed_by_server(s, 2)
    s.close()
    text = log_text(qm)
    assert text.count("AMQ9504E") >= len(bad) and "AMQ6184W" not in text


def test_the_listener_survives_running_out_of_file_descriptors(qm: Any) -> None:
    pid = qm.pid()
    soft = int(subprocess.run(["prlimit", f"--pid={pid}", "--nofile", "--output=SOFT", "--noheadings"],
                              capture_output=True, text=True, check=True).stdout.split()[0])
    in_use = len(os.listdir(f"/proc/{pid}/fd"))
    subprocess.run(["prlimit", f"--pid={pid}", f"--nofile={in_use + 5}:"], check=True)   # the soft limit
    socks = []
    try:
        for _ in range(12):
            socks.append(socket.create_connection(("127.0.0.1", qm.port), timeout=5))
        deadline = time.monotonic() + 10
        while "AMQ9213E" not in log_text(qm) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "AMQ9213E: A communications error for TCP/IP occurred." in log_text(qm)
    finally:
        for s in socks:
            s.close()
        subprocess.run(["prlimit", f"--pid={pid}", f"--nofile={soft}:"], check=True)
    deadline = time.monotonic() + 10
    while True:                            # the listener accepts again once descriptors are free
        try:
            conn = qm.client()
            break
        except pymqi.MQMIError:
            assert time.monotonic() < deadline
            time.sleep(0.2)
    q = pymqi.Queue(conn, "Q1", C.MQOO_OUTPUT)
    q.put(b"after")
    conn.disconnect()


def hb_client(qm: Any) -> Any:
    cd = pymqi.CD(ChannelName=b"HB.SVRCONN", ConnectionName=qm.conname.encode(), HeartbeatInterval=1)
    conn = pymqi.QueueManager(None)
    conn.connect_with_options(qm.name, cd=cd)
    return conn


def test_an_idle_client_answers_heartbeats(qm: Any) -> None:
    """HBINT(1) on both ends: the queue manager asks the idle client every second; pymqi's
    heartbeat thread answers, so a connection idle for 8 s (past HBINT + the 5 s answer time) is
    still there."""
    conn = hb_client(qm)
    assert conn._transport.info["hbint"] == 1
    q = pymqi.Queue(conn, "Q1", C.MQOO_OUTPUT)
    time.sleep(8)
    q.put(b"still connected")
    conn.disconnect()
    assert "timed out from host" not in log_text(qm)


def test_a_stopped_client_loses_its_syncpoint_gets(qm: Any) -> None:
    """A client that holds 50 messages under syncpoint and is then SIGSTOPped answers no heartbeat:
    the queue manager ends the conversation (AMQ9259E) and backs the gets out, so another
    application gets all 50 within seconds (before: held for as long as the process lived)."""
    import signal
    import sys
    conn = qm.client()
    q = pymqi.Queue(conn, "HB.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    for i in range(50):
        q.put(b"held %d" % i)
    script = (
        "import sys, time\n"
        "from mqlite import pymqi\n"
        "from mqlite.cmq import CMQC as C\n"
        f"cd = pymqi.CD(ChannelName=b'HB.SVRCONN', ConnectionName=b'{qm.conname}', HeartbeatInterval=1)\n"
        "qm = pymqi.QueueManager(None)\n"
        f"qm.connect_with_options('{qm.name}', cd=cd)\n"
        "q = pymqi.Queue(qm, 'HB.Q', C.MQOO_INPUT_SHARED)\n"
        "for _ in range(50):\n"
        "    q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_SYNCPOINT))\n"
        "print('HELD', flush=True)\n"
        "time.sleep(120)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "HELD"
        os.kill(proc.pid, signal.SIGSTOP)
        start = time.monotonic()
        got = [q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=30000)) for _ in range(50)]
        assert sorted(got) == sorted(b"held %d" % i for i in range(50))
        assert time.monotonic() - start < 30
        assert "AMQ9259E: Connection timed out from host" in log_text(qm)
    finally:
        proc.kill()
        os.kill(proc.pid, signal.SIGCONT)
        proc.wait(10)
        conn.disconnect()


def test_a_reader_polls_only_while_a_core_is_free(monkeypatch: pytest.MonkeyPatch) -> None:
    """The polling rule (docs/design.md): every core busy when /proc/loadavg counts more runnable
    threads than the cores (this reader, the thread that answers it and one more on two cores:
    a CPU hog beside them); the reading is kept for 20 ms; unreadable means not busy."""
    import io
    readings = iter([b"0.50 0.40 0.30 9/200 1234\n", b"0.50 0.40 0.30 1/200 1234\n",
                     b"0.50 0.40 0.30 2/200 1234\n", b"1.50 0.40 0.30 3/200 1234\n"])
    monkeypatch.setattr(P, "_CPUS", 2)
    monkeypatch.setattr(P, "open", lambda *_a, **_k: io.BytesIO(next(readings)), raising=False)
    monkeypatch.setattr(P, "_load", [0.0, False])
    assert P.cores_busy() is True
    assert P.cores_busy() is True                 # within 20 ms: the same reading, no new one
    P._load[0] = 0.0
    assert P.cores_busy() is False                # 1 runnable of 2 cores
    P._load[0] = 0.0
    assert P.cores_busy() is False                # 2 of 2: the reader and the server answering it
    P._load[0] = 0.0
    assert P.cores_busy() is True                 # 3 of 2: one more (a CPU hog) and polling takes its core
    P._load[0] = 0.0
    monkeypatch.setattr(P, "open", lambda *_a, **_k: (_ for _ in ()).throw(OSError("no /proc")), raising=False)
    assert P.cores_busy() is False


def test_a_reader_polls_only_while_answers_come_within_its_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader times its reads: answers slower than three quarters of the window, on average,
    are waited for asleep (no poll at all); once answers come quickly again it polls again within
    a few reads, and one very long wait (an MQGET's) counts as twice the window only."""
    monkeypatch.setattr(P, "cores_busy", lambda: False)
    a, b = socket.socketpair()
    try:
        reader = P.FrameReader(a, spin=0.02)
        polls = [0]
        nowait = reader._nowait

        def counted(n: int) -> bytes:
            polls[0] += 1
            return nowait(n)
        reader._nowait = counted

        def answer(after: float) -> int:
            """Read one frame that the partner sends ``after`` seconds from now: the polls made."""
            before = polls[0]
            if after:
                threading.Timer(after, lambda: P.send_frame(b, 0x11, b"x")).start()
            else:
                P.send_frame(b, 0x11, b"x")
            assert reader.read() == (0x11, b"x")
            return polls[0] - before

        assert answer(0) == 1                       # quick answers: polled, found at once
        assert answer(0.1) > 1                     # a slow one: polled through the window, then blocked
        slow = [answer(0.1) for _ in range(6)]
        assert slow[-1] == 0                        # the average is past the window: asleep at once
        assert reader.wait >= 0.02 * P.SLOW_SHARE
        quick = [answer(0) for _ in range(8)]
        assert quick[:2] == [0, 0] and quick[-1] == 1   # polled again after a few quick answers
        answer(0.6)                                 # one long wait (as an MQGET's) ...
        assert reader.wait <= 2 * 0.02             # ... counts as twice the window
        assert [answer(0) for _ in range(6)][-1] == 1
    finally:
        a.close()
        b.close()


def test_stop_channel_ends_a_svrconns_conversations_until_start(qm: Any) -> None:
    """STOP CHANNEL of a SVRCONN: its conversations end (the next call: 2009, a unit of work
    backed out) and, STOPPED, new ones are refused with 2537 (AMQ9558E) until START CHANNEL, which
    is accepted and lets them in; STATUS(INACTIVE) ends them and refuses nobody."""
    qm.mqsc("DEFINE CHANNEL(STOP.SVRCONN) CHLTYPE(SVRCONN) REPLACE\nDEFINE QLOCAL(STOP.Q) REPLACE\n", check=True)
    a = qm.client("STOP.SVRCONN")
    q = pymqi.Queue(a, "STOP.Q", C.MQOO_OUTPUT)
    q.put(b"uncommitted", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
    other = qm.client()                                   # (another channel: untouched)
    assert "AMQ8019I" in qm.mqsc("STOP CHANNEL(STOP.SVRCONN)\n", check=True).stdout
    with pytest.raises(pymqi.MQMIError) as e:
        q.put(b"after stop")
    assert e.value.reason == C.MQRC_CONNECTION_BROKEN
    with pytest.raises(pymqi.MQMIError) as e:
        qm.client("STOP.SVRCONN")
    assert e.value.reason == C.MQRC_CHANNEL_NOT_AVAILABLE
    assert "AMQ9558E" in log_text(qm)
    assert "STATUS(STOPPED)" in qm.mqsc("DISPLAY CHSTATUS(STOP.SVRCONN)\n").stdout
    assert "CURDEPTH(0)" in qm.mqsc("DISPLAY QLOCAL(STOP.Q) CURDEPTH\n").stdout       # backed out
    pymqi.Queue(other, "STOP.Q", C.MQOO_OUTPUT).put(b"other channel")
    assert "AMQ8018I" in qm.mqsc("START CHANNEL(STOP.SVRCONN)\n", check=True).stdout
    b = qm.client("STOP.SVRCONN")
    pymqi.Queue(b, "STOP.Q", C.MQOO_OUTPUT).put(b"after start")
    # STATUS(INACTIVE): the conversation ends, the channel stays available.
    qm.mqsc("STOP CHANNEL(STOP.SVRCONN) STATUS(INACTIVE)\n", check=True)
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.Queue(b, "STOP.Q", C.MQOO_OUTPUT)
    assert e.value.reason == C.MQRC_CONNECTION_BROKEN
    qm.client("STOP.SVRCONN").disconnect()
    other.disconnect()
    assert "CURDEPTH(2)" in qm.mqsc("DISPLAY QLOCAL(STOP.Q) CURDEPTH\n").stdout


def test_a_run_of_frames_already_here_is_taken_without_reading() -> None:
    """``take_buffered``: the server makes asynchronous puts that have already arrived under one
    taking of its lock (server/verbs.py ``_put_async``); a frame of another type, or one not yet
    whole, is left for ``read``, and nothing is read from the socket."""
    a, b = socket.socketpair()
    try:
        reader = P.FrameReader(a)
        b.sendall(P.frame(P.PUT_ASYNC, b"one") + P.frame(P.PUT_ASYNC, b"two") + P.frame(P.STAT, b"")
                  + P.frame(P.PUT_ASYNC, b"three")[:6])
        time.sleep(0.05)
        assert reader.read() == (P.PUT_ASYNC, b"one")
        assert reader.take_buffered(P.PUT_ASYNC) == b"two"
        assert reader.take_buffered(P.PUT_ASYNC) is None            # a STAT is next
        assert reader.read() == (P.STAT, b"")
        assert reader.take_buffered(P.PUT_ASYNC) is None            # not whole yet
        b.sendall(P.frame(P.PUT_ASYNC, b"three")[6:])
        assert reader.read() == (P.PUT_ASYNC, b"three")
        assert reader.take_buffered(P.PUT_ASYNC) is None            # nothing here: no read made
    finally:
        a.close()
        b.close()
