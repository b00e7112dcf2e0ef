"""runmqsc's output in IBM MQ's shape, line by line (mqlite/mqsc/shape.py), for every DISPLAY type
through a real queue manager and `mqlite runmqsc`, and each type's attribute order as MQ 9.4
prints it (objects/layout.py, from MQ's own output); the shape checker itself against lines laid
out as MQ lays them out and lines that are not."""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite.mqsc.shape import BANNER, attribute_line, problems
from mqlite.objects.attrs import TABLE
from mqlite.objects.layout import DISPLAY_ORDER
from mqlite.testing import Harness

SETUP = """DEFINE QLOCAL(SHAPE.Q) DESCR('a queue') TRIGGER INITQ(SYSTEM.DEFAULT.INITIATION.QUEUE)
DEFINE QMODEL(SHAPE.MODEL)
DEFINE QALIAS(SHAPE.ALIAS) TARGET(SHAPE.Q)
DEFINE QREMOTE(SHAPE.REMOTE) RNAME(R) RQMNAME(QMX) XMITQ(SHAPE.Q)
DEFINE NAMELIST(SHAPE.NL) NAMES(FIRST.QUEUE.NAME,SECOND.QUEUE.NAME,THIRD)
DEFINE PROCESS(SHAPE.PROC) APPLICID('/bin/true')
DEFINE SERVICE(SHAPE.SVC) SERVTYPE(SERVER) STARTCMD('/bin/sleep') STARTARG('30') STOPCMD('/bin/true')
DEFINE LISTENER(SHAPE.LSTR) TRPTYPE(TCP) PORT(0) CONTROL(MANUAL)
DEFINE TOPIC(SHAPE.TOPIC) TOPICSTR('shape/news')
DEFINE SUB(SHAPE.SUB) TOPICSTR('shape/news') DEST(SHAPE.Q)
DEFINE CHANNEL(SHAPE.SDR) CHLTYPE(SDR) CONNAME('127.0.0.1(1)') XMITQ(SHAPE.Q)
DEFINE CHANNEL(SHAPE.CLNT) CHLTYPE(CLNTCONN) CONNAME('127.0.0.1(1)')
SET CHLAUTH('SHAPE.*') TYPE(BLOCKUSER) USERLIST('nobody')
START LISTENER(SHAPE.LSTR)
START SERVICE(SHAPE.SVC)
"""
# Every DISPLAY type, with ALL: objects, then statuses.
DISPLAYS = ["DISPLAY QMGR ALL", "DISPLAY QLOCAL(SHAPE.Q) ALL", "DISPLAY QMODEL(SHAPE.MODEL) ALL",
            "DISPLAY QALIAS(SHAPE.ALIAS) ALL", "DISPLAY QREMOTE(SHAPE.REMOTE) ALL", "DISPLAY QUEUE(*)",
            "DISPLAY CHANNEL(*) ALL", "DISPLAY NAMELIST(*) ALL", "DISPLAY PROCESS(*) ALL", "DISPLAY SERVICE(*) ALL",
            "DISPLAY LISTENER(*) ALL", "DISPLAY TOPIC(*) ALL", "DISPLAY AUTHINFO(*) ALL", "DISPLAY COMMINFO(*) ALL",
            "DISPLAY SUB(SHAPE.SUB) ALL", "DISPLAY CHLAUTH(*) ALL", "DISPLAY AUTHREC",
            "DISPLAY QSTATUS(SHAPE.Q) ALL", "DISPLAY QSTATUS(SHAPE.Q) TYPE(HANDLE) ALL", "DISPLAY LSSTATUS(*) ALL",
            "DISPLAY SVSTATUS(*) ALL", "DISPLAY QMSTATUS ALL", "DISPLAY CONN(*) ALL", "DISPLAY SBSTATUS(SHAPE.SUB) ALL",
            "DISPLAY TPSTATUS('shape/news') ALL", "DISPLAY PUBSUB ALL", "DISPLAY CHSTATUS(*) ALL"]


@pytest.fixture(scope="module")
def qm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    h = Harness(str(tmp_path_factory.mktemp("shape")))
    try:
        yield h.add("SHAPEQM", SETUP)
    finally:
        h.close()


FLAGS_OFF = {"NOTRIGGER": "TRIGGER", "NOHARDENBO": "HARDENBO", "NOSHARE": "SHARE", "NOSYNCPT": "SYNCPT"}


def _blocks(out: str) -> list[list[str]]:
    """Each DISPLAY block's attribute keywords, in the order printed (a flag by its attribute)."""
    blocks: list[list[str]] = []
    for line in out.splitlines():
        if re.match(r"^AMQ\d{4}I: Display", line):
            blocks.append([])
        elif blocks and line.startswith("   ") and not line.startswith("    "):
            body = line[3:]
            items = [body[:40].rstrip(), body[40:]] if len(body) > 40 and body[39] == " " else [body.rstrip()]
            for item in filter(None, items):
                word = re.match(r"[A-Z][A-Z0-9]*", item).group(0)   # type: ignore[union-attr]
                blocks[-1].append(FLAGS_OFF.get(word, word))
    return blocks


def test_every_display_type_has_mqs_shape(qm: Any) -> None:
    r = qm.mqsc("\n".join(DISPLAYS) + "\n")
    assert problems(r.stdout, own_ids=True) == []
    # mqlite's own ids left: DISPLAY COMMINFO's header, MQ's id for it not verified (docs/mqsc.md)
    assert set(re.findall(r"^(MQL\d{4}[IEWST]):", r.stdout, re.M)) == {"MQL8007I"}
    assert r.stdout.splitlines()[0] == BANNER and "Copyright" in BANNER     # what scripts drop it by
    # The two that find nothing: no channel is running, and the queue manager runs without the OAM.
    assert r.returncode == 10 and r.stdout.rstrip().endswith("2 valid MQSC commands could not be processed.")
    assert "AMQ8420I: Channel Status not found." in r.stdout and "AMQ8459I: Not found." in r.stdout
    # Every type printed something in DISPLAY's layout.
    for command in DISPLAYS:
        if "HANDLE" in command:
            continue                                       # (no handle is open: MQ too prints none)
        out = qm.mqsc(command + "\n").stdout
        assert re.search(r"^   [A-Z]", out, re.M) or "AMQ8420I" in out or "AMQ8459I" in out, command


@pytest.mark.parametrize("command, kind", [
    ("DISPLAY QMGR ALL", "QMGR"), ("DISPLAY QLOCAL(SHAPE.Q) ALL", "QLOCAL"), ("DISPLAY QMODEL(SHAPE.MODEL) ALL", "QMODEL"),
    ("DISPLAY QALIAS(SHAPE.ALIAS) ALL", "QALIAS"), ("DISPLAY QREMOTE(SHAPE.REMOTE) ALL", "QREMOTE"),
    ("DISPLAY CHANNEL(SYSTEM.DEF.SVRCONN) ALL", "SVRCONN"), ("DISPLAY CHANNEL(SYSTEM.DEF.RECEIVER) ALL", "RCVR"),
    ("DISPLAY CHANNEL(SYSTEM.DEF.REQUESTER) ALL", "RQSTR"), ("DISPLAY CHANNEL(SYSTEM.DEF.SENDER) ALL", "SDR"),
    ("DISPLAY CHANNEL(SYSTEM.DEF.SERVER) ALL", "SVR"), ("DISPLAY CHANNEL(SYSTEM.DEF.CLUSSDR) ALL", "CLUSSDR"),
    ("DISPLAY CHANNEL(SYSTEM.DEF.CLUSRCVR) ALL", "CLUSRCVR"), ("DISPLAY CHANNEL(SYSTEM.DEF.CLNTCONN) ALL", "CLNTCONN"),
    ("DISPLAY CHANNEL(SYSTEM.DEF.AMQP) ALL", "AMQP"), ("DISPLAY LISTENER(SHAPE.LSTR) ALL", "LISTENER"),
    ("DISPLAY NAMELIST(SHAPE.NL) ALL", "NAMELIST")])
def test_attributes_come_in_mqs_order(qm: Any, command: str, kind: str) -> None:
    """After the identifying attributes, exactly MQ 9.4's sequence for the type: every attribute MQ
    shows there (mqlite has each of them), none it does not, in MQ's order."""
    (block,) = _blocks(qm.mqsc(command + "\n").stdout)
    ident = 1 if kind in ("QMGR", "LISTENER", "NAMELIST") else 2
    table = TABLE.attrs(kind)
    assert block[ident:] == [a for a in DISPLAY_ORDER[kind] if a in table]
    if not kind.startswith("Q") or kind == "QMGR":
        assert [a for a in DISPLAY_ORDER[kind] if a not in table] == []


def test_mqs_exceptions_to_alphabetical_order(qm: Any) -> None:
    """What the published MQ output shows and an alphabetical sort would not."""
    def follows(block: list[str], a: str, b: str) -> bool:
        return block.index(b) == block.index(a) + 1
    (ql,) = _blocks(qm.mqsc("DISPLAY QLOCAL(SHAPE.Q) ALL\n").stdout)
    assert follows(ql, "CLUSTER", "CLCHNAME") and follows(ql, "DEFPSIST", "DEFPRESP") and follows(ql, "PUT", "PROPCTL")
    assert follows(ql, "MSGDLVSQ", "TRIGGER")                    # printed TRIGGER, here; NOTRIGGER in the same place
    (qmgr,) = _blocks(qm.mqsc("DISPLAY QMGR ALL\n").stdout)
    assert follows(qmgr, "CHLEV", "CHLAUTH") and follows(qmgr, "PSMODE", "PSCLUS") and follows(qmgr, "KEYRPWD", "SSLKEYR")
    assert qmgr[-1] == "XRCAP" and "QSGNAME" not in qmgr and "SCYCASE" not in qmgr      # z/OS's left out
    (ls,) = _blocks(qm.mqsc("DISPLAY LSSTATUS(SHAPE.LSTR) ALL\n").stdout)
    assert ls == ["LISTENER", "STATUS", "PID", "STARTDA", "STARTTI", "DESCR", "TRPTYPE", "CONTROL", "IPADDR", "PORT",
                  "BACKLOG"]
    (qmst,) = _blocks(qm.mqsc("DISPLAY QMSTATUS ALL\n").stdout)
    assert qmst[:5] == ["QMNAME", "TYPE", "STATUS", "AUTOCLUS", "CHINIT"] and qmst[-4:] == ["STANDBY", "STARTDA",
                                                                                          "STARTTI", "UNICLUS"]
    assert qmst[3:] == sorted(qmst[3:])                          # MQ 9.4: alphabetical after STATUS
    (sdr,) = _blocks(qm.mqsc("DISPLAY CHANNEL(SHAPE.SDR) ALL\n").stdout)
    assert "SSLCAUTH" not in sdr and "CUSTOM" not in sdr                           # as MQ 9.4 shows a sender
    assert "CUSTOM(" in qm.mqsc("DISPLAY CHANNEL(SHAPE.SDR) CUSTOM\n").stdout       # asked for by name: shown


def test_a_list_prints_a_value_a_line(qm: Any) -> None:
    out = qm.mqsc("DISPLAY NAMELIST(SHAPE.NL)\n").stdout.splitlines()
    i = out.index("   NAMES(FIRST.QUEUE.NAME")
    assert out[i + 1:i + 3] == ["        ,SECOND.QUEUE.NAME", "        ,THIRD)"]
    assert out[i - 1] == "   NAMELIST(SHAPE.NL)                      NAMCOUNT(3)"


def test_the_checker_knows_mqs_layout_from_others() -> None:
    good = ["   QUEUE(SYSTEM.ADMIN.TRACE.ROUTE.QUEUE)   TYPE(QLOCAL)",      # a 37-character item paired
            "   QUEUE(SYSTEM.DURABLE.SUBSCRIBER.QUEUE)",                      # a 38-character one alone
            "   TYPE(QLOCAL)" + " " * 25,                                     # alone, padded to its field
            "   CONNAME(10.0.0.1)                       CURRENT",             # a flag as the second
            "   NAMES(A.QUEUE", "        ,B.QUEUE)"]                          # a list
    assert [attribute_line(line) for line in good] == [""] * len(good)
    bad = ["  QUEUE(X)", "   TYPE(QLOCAL)", "   QUEUE(A)  TYPE(QLOCAL)",
           "   QUEUE(SYSTEM.DURABLE.SUBSCRIBER.QUEUE)  TYPE(QLOCAL)", "   queue(x)" + " " * 28]
    assert all(attribute_line(line) for line in bad), [attribute_line(line) for line in bad]
    out = "\n".join([BANNER, "Starting MQSC for queue manager QM1.", "", "", "     1 : DEFINE QLOCAL(X)",
                     "MQL0001E: something", "AMQ9999I: not a message MQ has", "Traceback (most recent call last):",
                     "One MQSC command read.", "No commands have a syntax error.",
                     "One valid MQSC command could not be processed."])
    assert [p.split(":")[0] for p in problems(out)] == ["line 6", "line 7", "line 8"]
    assert problems("5724-H72 (C) Copyright IBM Corp. 1994, 2024.\nStarting MQSC for queue manager QM1.\n") == []


def test_the_responses_scripts_wait_for(qm: Any) -> None:
    """MQ's ids where mqlite once printed its own: a service defined, started, shown and stopped, a
    listener started twice, START CHANNEL of an undefined channel and of a server-connection."""
    r = qm.mqsc("DEFINE SERVICE(SHAPE.SVC2) SERVTYPE(SERVER) STARTCMD('/bin/sleep') STARTARG('30')\n"
                "START SERVICE(SHAPE.SVC2)\nDISPLAY SVSTATUS(SHAPE.SVC2)\nSTOP SERVICE(SHAPE.SVC2)\n"
                "DEFINE LISTENER(SHAPE.LSTR2) TRPTYPE(TCP) PORT(0)\nSTART LISTENER(SHAPE.LSTR2)\n"
                "START LISTENER(SHAPE.LSTR2)\nSTOP LISTENER(SHAPE.LSTR2)\nSTART CHANNEL(NO.SUCH.CHANNEL)\n"
                "DEFINE CHANNEL(SHAPE.SVRCONN) CHLTYPE(SVRCONN)\nSTOP CHANNEL(SHAPE.SVRCONN)\n"
                "START CHANNEL(SHAPE.SVRCONN)\n")
    ids = re.findall(r"^([A-Z]{3}\d{4}[IEW]):", r.stdout, re.M)
    assert ids == ["AMQ8625I", "AMQ8733I", "AMQ8632I", "AMQ8732I", "AMQ8626I", "AMQ8021I", "AMQ8730W", "AMQ8706I",
                   "AMQ8227E", "AMQ8014I", "AMQ8019I", "AMQ8018I"], r.stdout
    assert "AMQ8227E: Channel NO.SUCH.CHANNEL not found." in r.stdout
    assert r.returncode == 10 and "2 valid MQSC commands could not be processed." in r.stdout   # AMQ8730W, AMQ8227E
    shown = qm.mqsc("DISPLAY CHANNEL(SHAPE.SVRCONN) ALL\nDISPLAY CHSTATUS(SHAPE.SVRCONN)\n").stdout
    assert "CHANNEL(SHAPE.SVRCONN)" in shown and "AMQ8420I" in shown      # enabled again: no STOPPED status
