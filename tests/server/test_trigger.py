"""Triggering through a real queue manager: MQ's conditions for FIRST, EVERY and DEPTH, read from
the initiation queue as MQTM messages (the test holding the initiation queue open, as a trigger
monitor does), and `mqlite runmqtrm` starting a real program with the MQTMC2 as its argument."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.engine.trigger import TM_LEN, unpack_mqtm
from mqlite.pymqi import CMQC as C
from mqlite.testing import Harness

INITQ = "SYSTEM.DEFAULT.INITIATION.QUEUE"


@pytest.fixture(scope="module")
def qm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    h = Harness(str(tmp_path_factory.mktemp("trigger")), channel="APP.SVRCONN")
    try:
        yield h.add("TRIGQM", "DEFINE PROCESS(APP.P) APPLICID('/bin/true') USERDATA('user data') ENVRDATA('env')\n"
                              f"DEFINE QLOCAL(FIRST.Q) TRIGGER TRIGTYPE(FIRST) INITQ({INITQ}) PROCESS(APP.P) "
                              "TRIGDATA('for first')\n"
                              f"DEFINE QLOCAL(EVERY.Q) TRIGGER TRIGTYPE(EVERY) INITQ({INITQ}) PROCESS(APP.P)\n"
                              f"DEFINE QLOCAL(DEPTH.Q) TRIGGER TRIGTYPE(DEPTH) TRIGDPTH(3) INITQ({INITQ}) "
                              "PROCESS(APP.P)\n"
                              f"DEFINE QLOCAL(PRIO.Q) TRIGGER TRIGTYPE(EVERY) TRIGMPRI(5) INITQ({INITQ}) PROCESS(APP.P)\n")
    finally:
        h.close()


class Monitor:
    """The test as the trigger monitor: the initiation queue open for input."""

    def __init__(self, conn: Any) -> None:
        self.q = pymqi.Queue(conn, INITQ, C.MQOO_INPUT_SHARED)

    def take(self) -> list[dict[str, Any]]:
        out = []
        while True:
            md = pymqi.MD()
            try:
                body = self.q.get(None, md)
            except pymqi.MQMIError as e:
                assert e.reason == C.MQRC_NO_MSG_AVAILABLE
                return out
            assert md.Format == C.MQFMT_TRIGGER and len(body) == TM_LEN
            out.append(unpack_mqtm(body))

    def close(self) -> None:
        self.q.close()


def drain(conn: Any, name: str) -> int:
    q = pymqi.Queue(conn, name, C.MQOO_INPUT_SHARED)
    n = 0
    while True:
        try:
            q.get()
            n += 1
        except pymqi.MQMIError:
            q.close()
            return n


def test_first_triggers_once_until_an_application_takes_the_queue(qm: Any) -> None:
    c = qm.client()
    try:
        q = pymqi.Queue(c, "FIRST.Q")
        q.put(b"no monitor yet")                      # nobody has the initiation queue open: no trigger
        mon = Monitor(c)
        assert mon.take() == []
        drain(c, "FIRST.Q")
        q.put(b"one")
        q.put(b"two")
        (tm,) = mon.take()
        assert (tm["QName"], tm["ProcessName"], tm["TriggerData"], tm["ApplType"], tm["ApplId"], tm["EnvData"],
                tm["UserData"]) == ("FIRST.Q", "APP.P", "for first", C.MQAT_UNIX, "/bin/true", "env", "user data")
        # The triggered application opens the queue, takes one message and closes it with one
        # left: MQ triggers again on that MQCLOSE.
        got = pymqi.Queue(c, "FIRST.Q", C.MQOO_INPUT_SHARED)
        got.get()
        assert mon.take() == []                        # open for input: no trigger
        got.close()
        assert [t["QName"] for t in mon.take()] == ["FIRST.Q"]
        assert drain(c, "FIRST.Q") == 1
        assert mon.take() == []                        # emptied and closed: nothing to trigger for
        q.put(b"again")                                 # 0 -> 1 with nobody reading: a new trigger
        assert [t["QName"] for t in mon.take()] == ["FIRST.Q"]
        drain(c, "FIRST.Q")
        mon.take()
        # Under syncpoint the message is not there until MQCMIT: the trigger comes with the commit.
        q.put(b"in a unit of work", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        assert mon.take() == []
        c.commit()
        assert [t["QName"] for t in mon.take()] == ["FIRST.Q"]
        drain(c, "FIRST.Q")
        # GET(DISABLED): no trigger.
        mon.take()
        qm.mqsc("ALTER QLOCAL(FIRST.Q) GET(DISABLED)\n", check=True)
        q.put(b"inhibited")
        assert mon.take() == []
        qm.mqsc("ALTER QLOCAL(FIRST.Q) GET(ENABLED)\n", check=True)
        drain(c, "FIRST.Q")
        mon.close()
    finally:
        c.disconnect()


def test_every_depth_and_priority(qm: Any) -> None:
    c = qm.client()
    mon = Monitor(c)
    try:
        for _ in range(3):
            pymqi.Queue(c, "EVERY.Q").put(b"m")
        assert [t["QName"] for t in mon.take()] == ["EVERY.Q"] * 3
        dq = pymqi.Queue(c, "DEPTH.Q")
        dq.put(b"1")
        dq.put(b"2")
        assert mon.take() == []
        dq.put(b"3")
        assert [t["QName"] for t in mon.take()] == ["DEPTH.Q"]
        assert "NOTRIGGER" in qm.mqsc("DISPLAY QLOCAL(DEPTH.Q) TRIGGER\n").stdout   # MQ sets it after a depth trigger
        dq.put(b"4")
        assert mon.take() == []
        pq = pymqi.Queue(c, "PRIO.Q")
        pq.put(b"low", pymqi.MD(Priority=4))
        assert mon.take() == []                        # below TRIGMPRI(5)
        pq.put(b"high", pymqi.MD(Priority=5))
        assert [t["QName"] for t in mon.take()] == ["PRIO.Q"]
    finally:
        mon.close()
        for q in ("EVERY.Q", "DEPTH.Q", "PRIO.Q"):
            drain(c, q)
        c.disconnect()


def test_runmqtrm_starts_the_program_with_the_mqtmc2(qm: Any, tmp_path: Any) -> None:
    """A real trigger monitor process, a real program: its argument is MQ's MQTMC2 (732
    characters: 'TMC ', version '   2', the MQTM's strings, ApplType, the queue manager's name);
    a program that does not exist does not stop the monitor or touch the queue manager."""
    out = tmp_path / "args.txt"
    prog = tmp_path / "app.sh"
    prog.write_text(f'#!/bin/sh\nprintf "%s|%s\\n" "$1" "$2" >> {out}\n')
    prog.chmod(0o755)
    qm.mqsc(f"DEFINE PROCESS(REAL.P) APPLICID('{prog}') ENVRDATA('extra') USERDATA('ud') REPLACE\n"
            f"DEFINE PROCESS(MISSING.P) APPLICID('{tmp_path}/no/such/program') REPLACE\n"
            f"DEFINE QLOCAL(REAL.Q) TRIGGER TRIGTYPE(EVERY) INITQ({INITQ}) PROCESS(REAL.P) TRIGDATA('td') REPLACE\n"
            f"DEFINE QLOCAL(MISSING.Q) TRIGGER TRIGTYPE(EVERY) INITQ({INITQ}) PROCESS(MISSING.P) REPLACE\n",
            check=True)
    env = dict(os.environ, MQLITE_DATA=qm.harness.data_dir)
    mon = subprocess.Popen([sys.executable, "-m", "mqlite.cli.main", "runmqtrm", "-m", qm.name, "-q", INITQ],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    c = qm.client()
    try:
        deadline = time.monotonic() + 15
        while "IPPROCS(1)" not in qm.mqsc(f"DISPLAY QLOCAL({INITQ}) IPPROCS\n").stdout:
            assert time.monotonic() < deadline, "runmqtrm did not open the initiation queue"
            time.sleep(0.1)
        pymqi.Queue(c, "MISSING.Q").put(b"nobody to start")
        pymqi.Queue(c, "REAL.Q").put(b"start it")
        while not out.exists():
            assert time.monotonic() < deadline, "the program was not started"
            time.sleep(0.1)
        tmc2, extra = out.read_text().rstrip("\n").split("|")
        assert len(tmc2) == 732 and tmc2.startswith("TMC    2REAL.Q")
        assert tmc2[8:56].strip() == "REAL.Q" and tmc2[56:104].strip() == "REAL.P"
        assert tmc2[104:168].strip() == "td" and tmc2[168:172] == "   6"
        assert tmc2[172:428].strip() == str(prog) and tmc2[556:684].strip() == "ud"
        assert tmc2[684:].strip() == qm.name and extra == "extra"
    finally:
        mon.terminate()
        log = mon.communicate(timeout=10)[0]
        c.disconnect()
    assert "no/such/program" in log and "End of application trigger." in log
    assert "RUNNING" in qm.mqsc("DISPLAY QMSTATUS\n").stdout
