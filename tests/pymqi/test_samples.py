"""Issue 65 item 4 (first part): IBM's amqsput and amqsget, and their client builds amqsputc and
amqsgetc, as commands of their own: arguments, output, exit codes and MQSAMP_USER_ID as IBM's
samples have them, the server builds by local bindings and the client builds through MQSERVER."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite.cmq import CMQC as C
from mqlite.testing import Harness, run_mqlite


@pytest.fixture(scope="module")
def qm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with Harness(str(tmp_path_factory.mktemp("samples")), channel="APP.SVRCONN") as h:
        yield h.add("SAMPQM", "DEFINE QLOCAL(SAMP.Q)\nDEFINE QLOCAL(EMPTY.Q)\nDEFINE QLOCAL(REQ.Q)\n"
                              "DEFINE QLOCAL(MY.REPLY)\n")


def test_amqsput_then_amqsgbr_then_amqsget_by_bindings(qm: Any) -> None:
    r = run_mqlite("amqsput", "SAMP.Q", "SAMPQM", stdin="first message\nsecond message\n\nafter the blank line\n")
    assert (r.returncode, r.stdout) == (0, "Sample AMQSPUT0 start\ntarget queue is SAMP.Q\nSample AMQSPUT0 end\n")
    r = run_mqlite("amqsgbr", "SAMP.Q", "SAMPQM")
    assert (r.returncode, r.stdout) == (0, "Sample AMQSGBR0 (browse) start\nSAMPQM\n" + f"Messages for {'SAMP.Q':<48}\n"
                                           "1 <first message>\n2 <second message>\nno more messages\n"
                                           "Sample AMQSGBR0 (browse) end\n")
    r = run_mqlite("amqsget", "SAMP.Q", "SAMPQM")
    assert (r.returncode, r.stdout) == (0, "Sample AMQSGET0 start\nmessage <first message>\nmessage <second message>\n"
                                           "no more messages\nSample AMQSGET0 end\n")


def test_failures_answer_as_the_samples_do(qm: Any) -> None:
    assert run_mqlite("amqsput").stdout == "Sample AMQSPUT0 start\nRequired parameter missing - queue name\n"
    assert run_mqlite("amqsput").returncode == 99
    r = run_mqlite("amqsput", "NO.SUCH.Q", "SAMPQM", stdin="x\n")
    assert (r.returncode, r.stdout) == (0, "Sample AMQSPUT0 start\ntarget queue is NO.SUCH.Q\n"
                                           "MQOPEN ended with reason code 2085\nunable to open queue for output\n"
                                           "Sample AMQSPUT0 end\n")
    r = run_mqlite("amqsget", "SAMP.Q", "NO.SUCH.QM")
    assert r.stdout == "Sample AMQSGET0 start\nMQCONNX ended with reason code 2058\n"
    assert r.returncode == 2058 % 256                    # exit(reason), as the C samples end
    # The client builds need MQSERVER or a CCDT: with neither (and no default table) 2058.
    r = run_mqlite("amqsputc", "SAMP.Q", "SAMPQM", stdin="x\n",
                   env={k: v for k, v in os.environ.items() if not k.startswith("MQ")} | {"MQLITE_DATA": qm.harness.data_dir})
    assert "MQCONNX ended with reason code 2058" in r.stdout


def test_client_builds_through_mqserver_with_a_password_prompt(qm: Any) -> None:
    env = dict(os.environ, MQSERVER=f"APP.SVRCONN/TCP/{qm.conname}", MQSAMP_USER_ID="app")
    r = run_mqlite("amqsputc", "EMPTY.Q", "SAMPQM", stdin="passw0rd\nover the client channel\n", env=env)
    # The samples read the password with fgets after a prompt with no new line: piped, the next
    # line of output follows it.
    assert r.stdout == ("Sample AMQSPUT0 start\nEnter password: target queue is EMPTY.Q\nSample AMQSPUT0 end\n"), \
        r.stdout + r.stderr
    r = run_mqlite("amqsgetc", "EMPTY.Q", "SAMPQM", stdin="passw0rd\n", env=env)
    assert r.stdout.startswith("Sample AMQSGET0 start\nEnter password: message <over the client channel>\n")


def test_the_samples_are_commands_by_their_names() -> None:
    """Installed as console scripts, so that scripts calling amqsputc by name run (ibm-mq-cli)."""
    bindir = os.path.dirname(sys.executable)
    for name in ("amqsput", "amqsputc", "amqsget", "amqsgetc", "amqsgbr", "amqsgbrc", "amqsreq", "amqsreqc",
                 "amqspub", "amqspubc", "amqssub", "amqssubc", "amqsbcg", "amqsbcgc"):
        found = shutil.which(name, path=bindir)
        assert found is not None, f"{name} is not installed beside {sys.executable} (make .venv/.installed)"
    r = subprocess.run([os.path.join(bindir, "amqsput")], capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout) == (99, "Sample AMQSPUT0 start\nRequired parameter missing - queue name\n")


def test_amqsreq_sends_requests_and_shows_the_replies(qm: Any) -> None:
    """A server (this test's thread) answers each request on its ReplyToQ, the first one with a
    reply longer than amqsreq's 64 bytes; amqsreq shows the first 64 and then waits out its 15 s."""
    import threading

    from mqlite import pymqi
    from mqlite.cmq import CMQC as C
    answered: list[bytes] = []

    def server() -> None:
        conn = qm.client()
        q = pymqi.Queue(conn, "REQ.Q", C.MQOO_INPUT_SHARED)
        for i in range(2):
            md = pymqi.MD()
            data = q.get(None, md, pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=30000))
            answered.append(data)
            assert md.MsgType == C.MQMT_REQUEST and md.Report == C.MQRO_EXCEPTION_WITH_DATA
            body = data.upper() * (20 if i == 0 else 1)
            pymqi.Queue(conn, md.ReplyToQ.rstrip(b" \0").decode(), C.MQOO_OUTPUT).put(
                body, pymqi.MD(MsgType=C.MQMT_REPLY, CorrelId=md.MsgId, Format=C.MQFMT_STRING))
        conn.disconnect()
    t = threading.Thread(target=server)
    t.start()
    r = run_mqlite("amqsreq", "REQ.Q", "SAMPQM", "MY.REPLY", stdin="ping\nsecond\n\nnot sent\n")
    t.join(30)
    assert answered == [b"ping", b"second"]
    assert r.returncode == 0 and r.stdout == (
        "Sample AMQSREQ0 start\nserver queue is REQ.Q\nreplies to MY.REPLY\n"
        "MQGET ended with reason code 2079\n" + f"response <{('PING' * 20)[:64]}>\n"
        "response <SECOND>\nno more replies\nSample AMQSREQ0 end\n"), r.stdout


def test_amqsreq_without_its_model_reply_queue_or_server_queue(qm: Any) -> None:
    # No SYSTEM.SAMPLE.REPLY (IBM's amqscos0.tst defines it): nothing is sent, nothing waited for.
    r = run_mqlite("amqsreq", "REQ.Q", "SAMPQM", stdin="not sent\n")
    assert (r.returncode, r.stdout) == (0, "Sample AMQSREQ0 start\nserver queue is REQ.Q\n"
                                           "MQOPEN ended with reason code 2085\nunable to open reply queue\n"
                                           "Sample AMQSREQ0 end\n")
    r = run_mqlite("amqsreq", "NO.SUCH.Q", "SAMPQM")
    assert (r.returncode, r.stdout) == (2085 % 256, "Sample AMQSREQ0 start\nserver queue is NO.SUCH.Q\n"
                                                   "MQOPEN ended with reason code 2085\n"
                                                   "unable to open server queue for output\n")


def test_amqssub_receives_what_amqspub_publishes(qm: Any) -> None:
    """amqssub subscribes (non-durable, managed) and waits 30 s for each publication; amqspub
    publishes each line, a line longer than its 99-byte buffer in two pieces."""
    import time

    from mqlite.cli.proc import python_module, same_code
    sub = subprocess.Popen(python_module("mqlite.cli.main", "amqssub", "samples/news", "SAMPQM"),
                           stdout=subprocess.PIPE, text=True, env=same_code(None))
    assert sub.stdout is not None
    try:
        assert sub.stdout.readline() == "Sample AMQSSUBA start\n"
        assert sub.stdout.readline() == "Calling MQGET : 30 seconds wait time\n"
        time.sleep(0.5)
        long = "x" * 120
        r = run_mqlite("amqspub", "samples/news", "SAMPQM", stdin=f"first news\n{long}\n\nnot published\n")
        assert (r.returncode, r.stdout) == (0, "Sample AMQSPUBA start\ntarget topic is samples/news\n"
                                               "Sample AMQSPUBA end\n")
        out, _ = sub.communicate(timeout=60)
    finally:
        sub.kill()
    assert sub.returncode == 0
    assert out == ("message <first news>\nCalling MQGET : 30 seconds wait time\n"
                   f"message <{long[:99]}>\nCalling MQGET : 30 seconds wait time\n"
                   f"message <{long[99:]}>\nCalling MQGET : 30 seconds wait time\n"
                   "no more messages\nSample AMQSSUBA end\n")
    assert run_mqlite("amqspub").stdout == "Sample AMQSPUBA start\nRequired parameter missing - topic string\n"


def test_amqsbcg_dumps_descriptor_properties_dead_letter_header_and_data(qm: Any) -> None:
    """amqsbcg's layout, from MQ 9.4's amqsbcg0.c: the MQMD field by field, the properties with
    PropOption 1, a dead-letter header, the data sixteen bytes a line (in a UTF-8 locale the
    character column is widened by MB_CUR_MAX, 6), and the summary."""
    from mqlite import pymqi
    from mqlite.cmq import CMQC as C
    from mqlite.cmq.headers import DLH
    qm.mqsc("DEFINE QLOCAL(BCG.Q)\n", check=True)
    conn = qm.client()
    q = pymqi.Queue(conn, "BCG.Q", C.MQOO_OUTPUT)
    msg = pymqi.MessageHandle(conn)
    msg.properties.set("colour", "red")
    msg.properties.set("count", 7, C.MQTYPE_INT32)
    q.put(b"Browse me", pymqi.MD(Format=C.MQFMT_STRING, Priority=4),
          pymqi.PMO(Version=C.MQPMO_VERSION_3, OriginalMsgHandle=msg.msg_handle))
    dlh = DLH(Reason=C.MQRC_Q_FULL, DestQName=b"FULL.Q".ljust(48), DestQMgrName=b"SAMPQM".ljust(48),
              Format=C.MQFMT_STRING, PutApplName=b"amqsbcg test".ljust(28), PutDate=b"20261206", PutTime=b"12000000")
    q.put(dlh.pack() + b"0123456789abcdefXYZ", pymqi.MD(Format=C.MQFMT_DEAD_LETTER_HEADER))
    conn.disconnect()
    env = dict(os.environ, LC_ALL="C.UTF-8")
    r = run_mqlite("amqsbcg", "BCG.Q", "SAMPQM", "1", env=env)
    out = r.stdout
    assert r.returncode == 0 and out.startswith("\nAMQSBCG0 - starts here\n**********************\n \n"
                                                " MQOPEN - 'BCG.Q'\n MQCRTMH\n \n \n"
                                                " MQGET of message number 1, CompCode:0 Reason:0\n"
                                                "****Message descriptor****\n\n"
                                                "  StrucId  : 'MD  '  Version : 2\n"
                                                "  Report   : 0  MsgType : 8\n"
                                                "  Expiry   : -1  Feedback : 0\n"), out
    assert "\n  Format : 'MQSTR   '\n  Priority : 4  Persistence : 0\n" in out
    assert "\n  ReplyToQMgr    : 'SAMPQM" + " " * 42 + "'\n  ** Identity Context\n" in out
    assert "\n \n****Message properties****\n\n  colour : 'red'\n  count : 7\n \n****   Message      ****\n" in out
    assert ("\n length - 9 of 9 bytes\n \n00000000:  4272 6F77 7365 206D 65" + " " * 28 + "'Browse me       '\n") in out
    assert ("\n****Dead Letter Header****\n\n  StrucId  : 'DLH '  Version : 1\n"
            "  Reason   : 2053 [MQRC_Q_FULL]\n  DestQName      : 'FULL.Q" + " " * 42 + "'\n") in out
    assert "\n  PutDate  : '20261206'    PutTime  : '12000000'\n \n****   Message      ****\n" in out
    assert ("\n length - 19 of 19 bytes\n \n00000000:  3031 3233 3435 3637 3839 6162 6364 6566"
            + " " * 11 + "'0123456789abcdef'\n00000010:  5859 5A" + " " * 43 + "'XYZ             '\n") in out
    assert out.endswith("\n \n \n No more messages \n\n****   Summary      ****\n 2 messages browsed.\n"
                        " Smallest message 9 bytes.\n Largest message 191 bytes.\n Average message 100 bytes.\n"
                        "\n MQDLTMH\n MQCLOSE\n MQDISC\n")
    # In the C locale the character column is not widened (PropOption 2: no properties in the data).
    plain = run_mqlite("amqsbcg", "BCG.Q", "SAMPQM", "2", env=dict(os.environ, LC_ALL="C")).stdout
    assert "\n00000000:  4272 6F77 7365 206D 65" + " " * 18 + "'Browse me       '\n" not in out
    assert "00000000:  4272 6F77 7365 206D 65" + " " * 18 + "'Browse me       '" in plain
    r = run_mqlite("amqsbcg", "BCG.Q", "SAMPQM", "7")
    assert (r.returncode, r.stdout) == (4, "\nAMQSBCG0 - starts here\n**********************\n PropOption \"7\" "
                                           "invalid - specify 0-4\n\n  Usage: amqsbcg QName [ QMgrName ] "
                                           "[ PropOption ]\n\n")
    r = run_mqlite("amqsbcg", "NO.SUCH.Q", "SAMPQM")
    assert (r.returncode, r.stdout) == (2, "\nAMQSBCG0 - starts here\n**********************\n \n"
                                           " MQOPEN - 'NO.SUCH.Q'\n MQOPEN failed with CompCode:2, Reason:2085\n"
                                           " MQDISC\n")


def _tmc2(queue: str, qmgr: str) -> str:
    from mqlite.engine.trigger import mqtmc2
    return mqtmc2({"QName": queue, "ProcessName": "PROC", "TriggerData": "", "ApplType": 6,
                   "ApplId": "amqsinq", "EnvData": "", "UserData": ""}, qmgr)


def test_amqsinq_and_amqsset_answer_the_requests_their_trigger_names(qm: Any) -> None:
    """The triggered servers: a reply per request naming a queue, a report (Feedback 2085, with
    the data under MQRO_EXCEPTION_WITH_DATA) for a queue that is not there, a datagram passed
    over; they end when the queue has been empty five seconds."""
    from mqlite import pymqi
    qm.command_script("DEFINE QLOCAL(INQ.REQ)\nDEFINE QLOCAL(INQ.REPLY)\nDEFINE QLOCAL(INQ.TARGET) GET(DISABLED)\n")
    c = qm.bindings()
    try:
        pymqi.Queue(c, "SAMP.Q").put(b"on the target")   # (SAMP.Q: read by the inquiry)
        req = pymqi.Queue(c, "INQ.REQ", C.MQOO_OUTPUT)
        for body, report in ((b"SAMP.Q", 0), (b"INQ.TARGET", 0), (b"NO.SUCH.Q", C.MQRO_EXCEPTION_WITH_DATA)):
            req.put(body, pymqi.MD(MsgType=C.MQMT_REQUEST, ReplyToQ=b"INQ.REPLY", Report=report))
        req.put(b"a datagram", pymqi.MD())
        r = run_mqlite("amqsinq", _tmc2("INQ.REQ", "SAMPQM"))
        assert (r.returncode, r.stdout) == (0, "Sample AMQSINQ0 start\n" + "SAMPQM".ljust(48) + "\n"
                                               "SAMP.Q\nINQ.TARGET\nNO.SUCH.Q\na datagram\n"
                                               "  -- not a request and discarded\n"
                                               "MQGET ended with reason code 2033\nSample AMQSINQ0 end\n"), r.stdout
        replies = pymqi.Queue(c, "INQ.REPLY")
        got = []
        for _ in range(3):
            md = pymqi.MD()
            got.append((replies.get(None, md), md.MsgType, md.Feedback))
        assert got == [(b"SAMP.Q has 1 messages, used by 0 jobs", C.MQMT_REPLY, 0),
                       (b"INQ.TARGET has 0 messages, used by 0 jobs; GET inhibited", C.MQMT_REPLY, 0),
                       (b"NO.SUCH.Q", C.MQMT_REPORT, C.MQRC_UNKNOWN_OBJECT_NAME)]
        # amqsset: PUT inhibited by MQSET, said in the reply.
        req.put(b"INQ.TARGET", pymqi.MD(MsgType=C.MQMT_REQUEST, ReplyToQ=b"INQ.REPLY"))
        r = run_mqlite("amqsset", _tmc2("INQ.REQ", "SAMPQM"))
        assert r.stdout.startswith("Sample AMQSSET0 start\n") and r.stdout.endswith("Sample AMQSSET0 end\n")
        assert replies.get() == b"INQ.TARGET PUT inhibited"
        status, lines = qm.command("DISPLAY QLOCAL(INQ.TARGET) PUT")
        assert "PUT(DISABLED)" in " ".join(lines)
        pymqi.Queue(c, "SAMP.Q").get()
    finally:
        c.disconnect()
    # Not started by a trigger: its messages and exit codes.
    r = run_mqlite("amqsinq")
    assert (r.returncode, r.stdout) == (99, "Sample AMQSINQ0 start\nMissing parameter - start program by MQI trigger\n")
    r = run_mqlite("amqsset", "SAMP.Q")
    assert (r.returncode, r.stdout) == (2, "Sample AMQSSET0 start\nParameter supplied is not a trigger message\n"
                                           "This program must be started by MQI trigger\n")


def test_amqsevt_formats_the_events_as_ibms_does(qm: Any) -> None:
    """amqsevt: each event message with its type and reason names and numbers, the time from the
    MQMD, the parameters with MQ's names made readable and values decoded; -d keeps the names as
    defined; a message that is no event shown as its first 40 bytes; -w ends on 2033."""
    from mqlite import pymqi
    qm.command_script("ALTER QMGR INHIBTEV(ENABLED)\nDEFINE QLOCAL(EVT.INH) PUT(DISABLED)\nDEFINE QLOCAL(EVT.COPY)\n")
    c = qm.bindings()
    try:
        with pytest.raises(pymqi.MQMIError):
            pymqi.Queue(c, "EVT.INH").put(b"refused")
        md = pymqi.MD()
        pymqi.Queue(c, "SYSTEM.ADMIN.QMGR.EVENT", C.MQOO_BROWSE).get(None, md, pymqi.GMO(
            Options=C.MQGMO_BROWSE_FIRST))
        pymqi.Queue(c, "EVT.COPY").put("not an event, just text that goes on for more than forty bytes")
    finally:
        c.disconnect()
    r = run_mqlite("amqsevt", "-m", "SAMPQM", "-q", "SYSTEM.ADMIN.QMGR.EVENT", "-b", "-w", "1")
    out = r.stdout
    stamp = f"{md.PutDate.decode()[:4]}/{md.PutDate.decode()[4:6]}/{md.PutDate.decode()[6:8]}"
    assert out.startswith("Sample AMQSEVT start\n\n\nPress ENTER to end\n\n**** Message #1 (")
    assert "on Queue SYSTEM.ADMIN.QMGR.EVENT ****\nEvent Type                       : Queue Mgr Event [44]\n" in out
    block = out[out.index("Reason                           : Put Inhibited [2051]"):]
    assert block.splitlines()[1].startswith(f"Event created                    : {stamp} ")
    assert block.splitlines()[1].endswith(" GMT")
    assert block.splitlines()[2:5] == ["  Queue Mgr Name                 : SAMPQM", "  Queue Name                     : EVT.INH",
                                       "  Appl Type                      : Unix"], block
    assert out.endswith("**** Event Call Reason = MQRC_NO_MSG_AVAILABLE [2033] ****\nEnding consumer.\n\n"
                        "Sample AMQSEVT end\n")
    r = run_mqlite("amqsevt", "-m", "SAMPQM", "-q", "SYSTEM.ADMIN.QMGR.EVENT", "-b", "-d", "-w", "1")
    assert "Reason                                 : MQRC_PUT_INHIBITED [2051]" in r.stdout
    assert "  MQCA_Q_NAME                          : EVT.INH" in r.stdout
    r = run_mqlite("amqsevt", "-m", "SAMPQM", "-q", "EVT.COPY", "-w", "1")
    assert ("Message is not a recognised event format.\n  Message format MQSTR   :\n"
            "not an event, just text that goes on for\n......plus 22 bytes.\n") in r.stdout
    r = run_mqlite("amqsevt", "-x")
    assert r.stdout.startswith("Sample AMQSEVT start\n\nUsage: amqsevt [-m Qmgr] [-r d|r|m] [-b] [-c] [-d] \n")


def test_amqsevt_formats_groups_lists_filters_and_options() -> None:
    """amqsevta.c's formatEvent on a command event: groups indented (names as defined, spaces for
    underscores), a lone Q as Queue, MQIACF_ALL in an attribute list as "All attributes", filters,
    open options decoded, enumerated values by name, byte strings in hex, string lists a line each."""
    from mqlite.cli.amqsevt import Formatter
    from mqlite.cmq import CMQCFC as F
    from mqlite.cmq import pcf
    from mqlite.cmq.structs import MD
    head = pcf.Header(type=F.MQCFT_EVENT, command=F.MQCMD_COMMAND_EVENT, reason=C.MQRC_COMMAND_PCF)
    data = pcf.encode(head, [
        pcf.enc_group(F.MQGACF_COMMAND_CONTEXT, [pcf.enc_str(F.MQCACF_EVENT_USER_ID, "mqm".ljust(12)),
                                                 pcf.enc_int(F.MQIACF_COMMAND, F.MQCMD_INQUIRE_Q)]),
        pcf.enc_group(F.MQGACF_COMMAND_DATA, [pcf.enc_str(C.MQCA_Q_NAME, "ABC*"),
                                              pcf.enc_int_list(F.MQIACF_Q_ATTRS, [F.MQIACF_ALL]),
                                              pcf.enc_str_filter(C.MQCA_Q_DESC, F.MQCFOP_EQUAL, "x")]),
        pcf.enc_int(F.MQIACF_OPEN_OPTIONS, C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING),
        pcf.enc_int(C.MQIA_DEF_PERSISTENCE, C.MQPER_PERSISTENT), pcf.enc_bytes(F.MQBACF_CORREL_ID, b"\x01\xab"),
        pcf.enc_str_list(C.MQCA_NAMES, ["Q1", "Q2"])])
    md = MD(Format=C.MQFMT_EVENT, PutDate=b"20261207", PutTime=b"01020304", CorrelId=b"\x11" * 24)
    f = Formatter()
    assert f.event(md, data) is False
    assert f.lines == [
        "Event Type                       : Command Event [99]",
        "Reason                           : Command PCF [2413]",
        "Event created                    : 2026/12/07 01:02:03.04 GMT",
        "Correlation ID                   : " + "11" * 24,
        "  COMMAND CONTEXT",
        "    Event User Id                : mqm",
        "    Command                      : Inquire Queue",
        "  COMMAND DATA",
        "    Queue Name                   : ABC*",
        "    Queue Attrs                  : All attributes",
        "    Filter                       : WHERE 'Queue Desc' Equal 'x'",
        "  Open Options                   : 0x00002010 [ fiq out ]",
        "  Def Persistence                : Persistent",
        "  Correl Id                      : 01AB",
        "  Names                          : Q1",
        "                                 : Q2"]
