"""CANCEL on the wire, as the queue manager takes it: ending a waiting MQGET at once with 2033,
passed over when no wait is in progress, and any other frame during a wait a protocol error that
ends only that connection."""
from __future__ import annotations

import os
import time
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq.structs import GMO, MD, OD
from mqlite.net import protocol as P
from mqlite.net import verbs as V
from mqlite.net.client import Transport
from mqlite.paths import QMPaths


def _open(qm: Any, queue: str) -> tuple[Transport, int]:
    t = Transport.tcp(qm.conname)
    t.hello(qmgr=qm.name, channel=qm.channel, kind="client", appl="wire-test", user="tester")
    reply = t.call(P.OPEN, V.Open.request(C.MQOO_INPUT_SHARED, OD(ObjectName=queue.encode())))
    hobj, flags = V.Open.parse_reply(reply, OD())
    assert flags & P.OPEN_HOLD
    return t, hobj


def _waiting_get(hobj: int) -> bytes:
    gmo = GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=C.MQWI_UNLIMITED)
    return V.Get.request(hobj, 1000, gmo, MD())


def test_cancel_ends_a_wait_and_is_passed_over_otherwise(mq_qmgr: Any) -> None:
    mq_qmgr.mqsc("DEFINE QLOCAL(WIRE.C)")
    t, hobj = _open(mq_qmgr, "WIRE.C")
    try:
        P.send_frame(t.sock, P.CANCEL)                 # no wait in progress: nothing happens
        reply = t.call(P.GET, V.Get.request(hobj, 1000, GMO(Options=C.MQGMO_NO_WAIT), MD()))
        assert V.II.unpack_from(reply) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
        P.send_frame(t.sock, P.GET, _waiting_get(hobj))
        time.sleep(0.3)
        start = time.monotonic()
        P.send_frame(t.sock, P.CANCEL)
        ftype, reply = t.reader.read()
        assert time.monotonic() - start < 0.4            # woken, not found at the next slice (0.5 s)
        assert ftype == P.GET | P.REPLY
        assert V.II.unpack_from(reply) == (C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)
        assert mq_qmgr.depth("WIRE.C") == 0
    finally:
        t.close()


def test_another_frame_during_a_wait_ends_that_connection_only(mq_qmgr: Any) -> None:
    mq_qmgr.mqsc("DEFINE QLOCAL(WIRE.X)")
    t, hobj = _open(mq_qmgr, "WIRE.X")
    try:
        P.send_frame(t.sock, P.GET, _waiting_get(hobj))
        time.sleep(0.2)
        P.send_frame(t.sock, P.OPEN, V.Open.request(C.MQOO_OUTPUT, OD(ObjectName=b"WIRE.X")))
        t.sock.settimeout(5)
        assert t.sock.recv(100) == b""                  # closed by the queue manager
    finally:
        t.close()
    log = open(os.path.join(QMPaths.of(mq_qmgr.name).errors, "AMQERR01.LOG"), encoding="utf-8").read()
    assert "while an MQGET waits" in log
    other, _ = _open(mq_qmgr, "WIRE.X")                # the queue manager goes on
    other.close()
