"""Issue 69: while several applications are busy, their connections are parked with one thread
(server/dispatch.py) that serves the quick requests itself; everything else goes back to the
connection's own thread. What is served either way must be what the thread alone served: the
same replies in the same order, waits that wait, large messages, heartbeats, STOP CONN, a broken
frame ending only its connection, and a client that reads none of its replies stalling nobody."""
from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.cmq.structs import GMO, MD, OD
from mqlite.engine.connections import conn_name
from mqlite.net import protocol as P
from mqlite.net import verbs as V
from mqlite.testing import Harness

pytestmark = pytest.mark.xdist_group("dispatch")


@pytest.fixture(scope="module")
def qm() -> Iterator[Any]:
    with Harness() as h:
        yield h.add("DISPQM", "DEFINE QLOCAL(BUSY.Q) MAXDEPTH(100000)\n"
                              "DEFINE QLOCAL(WAIT.Q)\n"
                              "DEFINE QLOCAL(BIG.Q) MAXMSGL(4194304)\n"
                              "DEFINE QLOCAL(HOSTILE.Q) MAXDEPTH(100000)\n"
                              "ALTER QMGR MAXMSGL(4194304)\n"
                              "ALTER CHANNEL(APP.SVRCONN) CHLTYPE(SVRCONN) MAXMSGL(4194304)\n"
                              "DEFINE CHANNEL(HB.SVRCONN) CHLTYPE(SVRCONN) HBINT(1)\n"
                              "DEFINE CHANNEL(VICTIM.SVRCONN) CHLTYPE(SVRCONN)\n", in_process=True)


class Busy:
    """``n`` applications each putting and getting persistent messages on a queue of its own
    name (BUSY.Q, by CorrelId) until stopped: the sessions in use that make the server park
    connections. Each checks every message it gets back."""

    def __init__(self, qm: Any, n: int = 3) -> None:
        self.qm, self.stop, self.errors, self.rounds = qm, threading.Event(), [], [0] * n
        self.threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(n)]

    def _run(self, i: int) -> None:
        try:
            qmgr = self.qm.client()
            q = pymqi.Queue(qmgr, "BUSY.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE)
            correl = b"busy%02d" % i + b"\0" * 18
            n = 0
            while not self.stop.is_set() and n < 20000:
                body = b"%d-%d" % (i, n)
                q.put(body, pymqi.MD(Persistence=C.MQPER_PERSISTENT, CorrelId=correl))
                got = q.get(None, pymqi.MD(CorrelId=correl), pymqi.GMO(MatchOptions=C.MQMO_MATCH_CORREL_ID))
                if got != body:
                    self.errors.append((i, n, body, got))
                    return
                q.inquire(C.MQIA_CURRENT_Q_DEPTH)
                n += 1
                self.rounds[i] = n
            q.close()
            qmgr.disconnect()
        except Exception as e:  # noqa: BLE001 (reported by the test)
            self.errors.append((i, repr(e)))

    def __enter__(self) -> "Busy":
        for t in self.threads:
            t.start()
        # The server counts the sessions in use twice a second: parking begins after that.
        deadline = time.monotonic() + 30
        while self.qm.server.in_use < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert self.qm.server.in_use >= 2
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(60)
        assert not self.errors, self.errors[:3]


def served(qm: Any) -> int:
    return qm.server.dispatcher.served


def test_busy_connections_are_served_by_the_dispatcher(qm: Any) -> None:
    before = served(qm)
    with Busy(qm) as busy:
        start = list(busy.rounds)
        deadline = time.monotonic() + 30
        while min(b - a for a, b in zip(start, busy.rounds)) < 30 and time.monotonic() < deadline:
            time.sleep(0.05)
    # every application went on (30 rounds each: a put, a get by CorrelId, an inquire), and most of
    # those calls were served by the dispatcher, not the connections' threads
    assert min(b - a for a, b in zip(start, busy.rounds)) >= 30, busy.rounds
    assert served(qm) - before >= 30
    assert "CURDEPTH(0)" in qm.mqsc("DISPLAY QLOCAL(BUSY.Q) CURDEPTH").stdout


def test_a_get_that_must_wait_waits_on_its_own_thread(qm: Any) -> None:
    consumer = qm.client()
    producer = qm.client()
    with Busy(qm):
        q = pymqi.Queue(consumer, "WAIT.Q")
        # nothing there: the wait runs its interval and ends with 2033
        t0 = time.monotonic()
        with pytest.raises(pymqi.MQMIError) as e:
            q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=400))
        assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE
        assert time.monotonic() - t0 >= 0.38
        # a message put during the wait is the one it gets
        timer = threading.Timer(0.3, lambda: pymqi.Queue(producer, "WAIT.Q").put(b"came"))
        timer.start()
        t0 = time.monotonic()
        got = q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=10000))
        timer.join()
        assert got == b"came" and 0.25 <= time.monotonic() - t0 < 9
        q.close()
    consumer.disconnect()
    producer.disconnect()


def test_large_messages_go_through_parked_connections(qm: Any) -> None:
    bodies = [os.urandom(1 << 20), os.urandom(3 << 20), b"small"]
    with Busy(qm):
        qmgr = qm.client()
        q = pymqi.Queue(qmgr, "BIG.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        for body in bodies:
            q.put(body, pymqi.MD(Persistence=C.MQPER_PERSISTENT))
        assert [q.get(None, pymqi.MD(), pymqi.GMO()) for _ in bodies] == bodies
        q.close()
        qmgr.disconnect()


def test_an_idle_parked_client_answers_heartbeats(qm: Any) -> None:
    with Busy(qm):
        qmgr = pymqi.connect(qm.name, "HB.SVRCONN", qm.conname)
        q = pymqi.Queue(qmgr, "WAIT.Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        q.put(b"before")
        time.sleep(3.5)             # HBINT(1): asked several times while parked, answered each time
        assert q.get(None, pymqi.MD(), pymqi.GMO()) == b"before"
        q.close()
        qmgr.disconnect()
    assert "AMQ9259E" not in _log(qm)


def test_stop_conn_ends_a_parked_connection(qm: Any) -> None:
    with Busy(qm):
        victim = pymqi.connect(qm.name, "VICTIM.SVRCONN", qm.conname)
        q = pymqi.Queue(victim, "WAIT.Q", C.MQOO_OUTPUT)
        q.put(b"v")                 # then parked, idle
        time.sleep(0.3)
        session = next(s for s in list(qm.server.sessions) if s.channel == "VICTIM.SVRCONN")
        assert "AMQ8457I" in qm.mqsc(f"STOP CONN({conn_name(session.conn.conn_id)})").stdout
        with pytest.raises(pymqi.MQMIError) as e:
            for _ in range(100):
                q.put(b"after")
                time.sleep(0.05)
        assert e.value.reason == C.MQRC_CONNECTION_BROKEN
    after = qm.client()
    assert pymqi.Queue(after, "WAIT.Q").get(None, pymqi.MD(), pymqi.GMO()) == b"v"
    after.disconnect()


def _log(qm: Any) -> str:
    with open(os.path.join(qm.harness.data_dir, "qmgrs", qm.name, "errors", "AMQERR01.LOG")) as f:
        return f.read()


def _raw_client(qm: Any, queue: str) -> tuple[socket.socket, int]:
    """A connection past HELLO with ``queue`` open for input and output, by hand: (socket, hobj)."""
    s = socket.create_connection(("127.0.0.1", qm.port), timeout=30)
    P.send_frame(s, P.HELLO, P.encode_json({"proto": P.PROTOCOL_VERSION, "kind": "client", "qmgr": qm.name,
                                            "channel": "APP.SVRCONN", "appl": "raw", "appl_type": C.MQAT_UNIX,
                                            "user": "u"}))
    assert P.recv_frame(s)[0] == P.HELLO_OK
    P.send_frame(s, P.OPEN, V.Open.request(C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT, OD(ObjectName=queue.encode())))
    ftype, payload = P.recv_frame(s)
    assert ftype == P.OPEN | P.REPLY and payload[:8] == bytes(8)       # MQCC_OK, MQRC_NONE
    return s, V.Open.parse_reply(payload, OD())[0]


def test_a_broken_frame_from_a_parked_connection_ends_only_it(qm: Any) -> None:
    with Busy(qm) as busy:
        s, _hobj = _raw_client(qm, "WAIT.Q")
        time.sleep(0.3)                          # parked
        s.sendall(b"\x7f\xff\xff\xff\x01")       # a frame length beyond any MAXMSGL
        s.settimeout(10)
        assert s.recv(100) == b""                # closed by the server
        s.close()
        before = list(busy.rounds)
        deadline = time.monotonic() + 30
        while min(b - a for a, b in zip(before, busy.rounds)) < 10 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert min(b - a for a, b in zip(before, busy.rounds)) >= 10
    assert "AMQ9504E" in _log(qm) and "outside 1.." in _log(qm)


def test_a_client_that_reads_no_replies_stalls_nobody(qm: Any) -> None:
    """It asks for 200 persistent messages of 60,000 bytes outside syncpoint and reads none of the
    answers: they fill its socket, and the server holds at most DEFER_MAX more for it. The journal
    writer and the dispatcher never wait for it: the other applications go on as before, and
    when it finally reads, it gets every answer, in order."""
    body = b"h" * 60000
    qmgr = qm.client()
    q = pymqi.Queue(qmgr, "HOSTILE.Q")
    for i in range(200):
        q.put(body[:-4] + b"%04d" % i, pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    q.close()
    qmgr.disconnect()
    with Busy(qm) as busy:
        s, hobj = _raw_client(qm, "HOSTILE.Q")
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        time.sleep(0.3)
        request = P.frame(P.GET, V.Get.request(hobj, 65536, GMO(Options=C.MQGMO_NO_SYNCPOINT), MD()))
        s.sendall(request * 200)
        time.sleep(1.0)                 # its answers are stuck: the others must not be
        before = list(busy.rounds)
        deadline = time.monotonic() + 30
        while min(b - a for a, b in zip(before, busy.rounds)) < 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert min(b - a for a, b in zip(before, busy.rounds)) >= 20, (before, busy.rounds)
        reader = P.FrameReader(s)
        for i in range(200):
            ftype, payload = reader.read()
            assert ftype == P.GET | P.REPLY
            comp, reason, length, data, _props = V.Get.parse_reply(payload, GMO(), MD())
            assert (comp, reason, length) == (0, 0, 60000) and data.endswith(b"%04d" % i), (i, comp, reason)
        s.close()
    assert "CURDEPTH(0)" in qm.mqsc("DISPLAY QLOCAL(HOSTILE.Q) CURDEPTH").stdout


def test_puts_through_put1_and_commit_on_parked_connections(qm: Any) -> None:
    """MQPUT1, syncpoint gets and MQCMIT/MQBACK served by the dispatcher keep MQ's unit-of-work
    rules: backed-out gets come back, committed ones are gone."""
    with Busy(qm):
        qmgr = qm.client()
        for i in range(10):
            qmgr.put1("WAIT.Q", b"p%d" % i, pymqi.MD(Persistence=C.MQPER_PERSISTENT),
                      pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        qmgr.commit()
        q = pymqi.Queue(qmgr, "WAIT.Q")
        sync = pymqi.GMO(Options=C.MQGMO_SYNCPOINT)
        assert [q.get(None, pymqi.MD(), sync) for _ in range(5)] == [b"p%d" % i for i in range(5)]
        qmgr.backout()
        assert [q.get(None, pymqi.MD(), sync) for _ in range(10)] == [b"p%d" % i for i in range(10)]
        qmgr.commit()
        with pytest.raises(pymqi.MQMIError) as e:
            q.get(None, pymqi.MD(), pymqi.GMO())
        assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE
        q.close()
        qmgr.disconnect()

