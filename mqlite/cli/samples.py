"""IBM's sample programs amqsput, amqsget, amqsgbr, amqsreq, amqspub and amqssub (and their client
builds, amqsputc ...), with their arguments, prompts, output and exit codes, so that tutorials and scripts
that call them by name run against mqlite (issue 65 item 4; the others are still to come).

    amqsput  QName [QMgrName [OpenOptions [CloseOptions [TargetQMgr [DynamicQName]]]]]
    amqsget  QName [QMgrName [OpenOptions [CloseOptions]]]
    amqsgbr  QName [QMgrName]
    amqsreq  QName [QMgrName [ReplyToQ]]
    amqspub  TopicString [QMgrName [PutOptions]]
    amqssub  TopicString [QMgrName [SubscribeOptions]]

amqsput puts each line of standard input as a message (MQFMT_STRING, outside syncpoint) until an
empty line or the end of input; amqsget gets and prints each message as ``message <text>``,
waiting 15 seconds for more, then ``no more messages``. The server builds connect by local
bindings (MQSERVER and CCDTs are a client's, as with MQ's server libraries); the client builds
take MQSERVER or a CCDT (MQCCDTURL, MQCHLLIB/MQCHLTAB, else the table ``runmqsc -n`` keeps in the
data directory, where an MQ client looks by default). MQSAMP_USER_ID: the user to authenticate as,
after ``Enter password:`` is answered. A failed MQCONNX ends the program with its reason code as
the exit status; other failures are printed and the program ends normally, as IBM's samples do.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq.structs import text

CLIENT_VARS = ("MQSERVER", "MQCCDTURL", "MQCHLLIB", "MQCHLTAB")
WAIT_MS = 15000          # amqsget waits this long for the next message
BUFFER = 65535           # amqsget's buffer: a longer message fails its MQGET (2080)


def _write(text: str | bytes) -> None:
    out = sys.stdout.buffer
    out.write(text.encode() if isinstance(text, str) else text)
    out.write(b"\n")
    out.flush()


def _password() -> str:
    """``Enter password:``, answered on the terminal without echo, or a line of standard input.
    On a terminal the echo is turned off for the answer without discarding what was typed ahead
    (getpass flushes it: a script that types the password and the messages at once, as
    ibm-mq-cli's put does through a pty, lost its messages)."""
    # As the samples' fgets: the prompt, no new line (the terminal's echo gives one), the answer
    # read from the binary buffer that amqsput's lines are read from next (a text wrapper's
    # read-ahead would take them with the password).
    sys.stdout.write("Enter password: ")
    sys.stdout.flush()
    if not sys.stdin.isatty():
        return sys.stdin.buffer.readline().rstrip(b"\n").decode(errors="replace")
    import termios
    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    quiet = termios.tcgetattr(fd)
    quiet[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        line = sys.stdin.buffer.readline()
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, old)
        sys.stdout.write("\n")
        sys.stdout.flush()
    return line.rstrip(b"\r\n").decode(errors="replace")


def _connect(qmgr: str, client: bool) -> Any:
    """MQCONNX as the sample's build makes it; MQMIError when it fails."""
    from mqlite import pymqi
    from mqlite.cli.clientmqsc import table_path
    if client:
        if not any(os.environ.get(v, "").strip() for v in CLIENT_VARS):
            default = table_path({})
            if not os.path.exists(default):
                raise pymqi.MQMIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NAME_ERROR)
            os.environ["MQCCDTURL"] = default
    else:
        for v in CLIENT_VARS:
            os.environ.pop(v, None)
    user = os.environ.get("MQSAMP_USER_ID", "")
    password = _password() if user else None
    qm = pymqi.QueueManager(None)
    if user:
        qm.connect_with_options(qmgr, user=user, password=password)
    else:
        qm.connect(qmgr)
    return qm


def _int(argv: list[str], i: int, default: int) -> int:
    try:
        return int(argv[i]) if len(argv) > i and argv[i] else default
    except ValueError:
        return default


def _run(name: str, argv: list[str], body: Callable[[Any, list[str]], int | None], client: bool,
         echo_qmgr: bool = False, missing: str = "queue name", connx: str = "MQCONNX") -> int:
    from mqlite import pymqi
    _write(f"Sample {name} start")
    if not argv:
        _write(f"Required parameter missing - {missing}")
        return 99
    if echo_qmgr:
        _write(argv[1] if len(argv) > 1 else "")        # (amqsgbr names the queue manager it was given)
    try:
        qm = _connect(argv[1] if len(argv) > 1 else "", client)
    except pymqi.MQMIError as e:
        _write(f"{connx} ended with reason code {e.reason}")
        return int(e.reason)
    try:
        ended = body(qm, argv)
    finally:
        try:
            qm.disconnect()
        except pymqi.MQMIError as e:
            _write(f"MQDISC ended with reason code {e.reason}")
    if ended is not None:                # the sample stopped early with this exit status
        return ended
    _write(f"Sample {name} end")
    return 0


def _close(q: Any, options: int) -> None:
    from mqlite import pymqi
    try:
        q.close(options)
    except pymqi.MQMIError as e:
        _write(f"MQCLOSE ended with reason code {e.reason}")


def _put(qm: Any, argv: list[str]) -> None:
    from mqlite import pymqi
    qname = argv[0]
    od = pymqi.OD(ObjectName=qname.encode(), ObjectQMgrName=(argv[4] if len(argv) > 4 else "").encode(),
                  DynamicQName=(argv[5] if len(argv) > 5 else "AMQSPUT0.*").encode())
    _write(f"target queue is {qname}")
    try:
        q = pymqi.Queue(qm, od, _int(argv, 2, C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING))
    except pymqi.MQMIError as e:
        _write(f"MQOPEN ended with reason code {e.reason}")
        _write("unable to open queue for output")
        return
    _put_each(q, (raw.rstrip(b"\n") for raw in sys.stdin.buffer),
              pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING))
    _close(q, _int(argv, 3, C.MQCO_NONE))


def _put_each(q: Any, pieces: Iterable[bytes], pmo: Any) -> None:
    """amqsput's and amqspub's loop: each piece an MQSTR message until an empty one or a failed
    MQPUT (its reason said)."""
    from mqlite import pymqi
    for piece in pieces:
        if not piece:
            break
        try:
            q.put(piece, pymqi.MD(Format=C.MQFMT_STRING), pmo)
        except pymqi.MQMIError as e:
            _write(f"MQPUT ended with reason code {e.reason}")
            break


def _get(qm: Any, argv: list[str]) -> None:
    from mqlite import pymqi
    try:
        q = pymqi.Queue(qm, argv[0], _int(argv, 2, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_FAIL_IF_QUIESCING))
    except pymqi.MQMIError as e:
        _write(f"MQOPEN ended with reason code {e.reason}")
        _write("unable to open queue for input")
        return
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT | C.MQGMO_CONVERT | C.MQGMO_FAIL_IF_QUIESCING,
                    WaitInterval=WAIT_MS)
    while True:
        md = pymqi.MD(Encoding=C.MQENC_NATIVE, CodedCharSetId=C.MQCCSI_Q_MGR)
        try:
            data = q.get(BUFFER, md, gmo)
        except pymqi.MQMIError as e:
            _write("no more messages" if e.reason == C.MQRC_NO_MSG_AVAILABLE
                   else f"MQGET ended with reason code {e.reason}")
            break
        _write(b"message <" + data.split(b"\0", 1)[0] + b">")
    _close(q, _int(argv, 3, C.MQCO_NONE))


def _browse(qm: Any, argv: list[str]) -> None:
    """amqsgbr: every message browsed in order, without waiting, the first 65,535 bytes of each."""
    from mqlite import pymqi
    try:
        q = pymqi.Queue(qm, argv[0], C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING)
    except pymqi.MQMIError as e:
        _write(f"MQOPEN ended with reason code {e.reason}")
        _write("unable to open queue for input")
        return
    gmo = pymqi.GMO(Version=C.MQGMO_VERSION_2, MatchOptions=C.MQMO_NONE,
                    Options=C.MQGMO_NO_WAIT | C.MQGMO_BROWSE_NEXT | C.MQGMO_ACCEPT_TRUNCATED_MSG)
    n = 0
    while True:
        md = pymqi.MD(Version=C.MQMD_VERSION_2, Encoding=C.MQENC_NATIVE, CodedCharSetId=C.MQCCSI_Q_MGR)
        try:
            data = q.get(BUFFER, md, gmo)
            truncated = False
        except pymqi.MQMIError as e:
            if e.reason != C.MQRC_TRUNCATED_MSG_ACCEPTED:
                _write("no more messages" if e.reason == C.MQRC_NO_MSG_AVAILABLE
                       else f"MQGET ended with reason code {e.reason}")
                break
            data, truncated = getattr(e, "message", b"") or b"", True
        if n == 0:
            resolved = gmo.ResolvedQName
            name = (resolved.decode() if isinstance(resolved, bytes) else str(resolved)).rstrip("\0 ") or argv[0]
            _write(f"Messages for {name:<48.48}")
        n += 1
        _write(f"{n} <".encode() + data.split(b"\0", 1)[0] + b">")
        if truncated:
            _write("  --- truncated")
    _close(q, C.MQCO_NONE)


def _request(qm: Any, argv: list[str]) -> int | None:
    """amqsreq: each line a request to the server queue, replies to ``argv[2]`` (or a dynamic
    queue from the model SYSTEM.SAMPLE.REPLY, deleted at the end); then the replies shown, the
    first 64 bytes of each, waiting a minute for the first and 15 seconds for each next."""
    from mqlite import pymqi
    qname = argv[0]
    _write(f"server queue is {qname}")
    try:
        server = pymqi.Queue(qm, qname, C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING)
    except pymqi.MQMIError as e:
        _write(f"MQOPEN ended with reason code {e.reason}")
        _write("unable to open server queue for output")
        return int(e.reason)                 # (IBM's sample ends here, without its end line)
    named = len(argv) > 2
    odr = pymqi.OD(ObjectName=(argv[2] if named else "SYSTEM.SAMPLE.REPLY").encode(),
                   DynamicQName=b"" if named else b"*")
    reply: Any = None
    try:
        reply = pymqi.Queue(qm, odr, C.MQOO_INPUT_EXCLUSIVE | C.MQOO_FAIL_IF_QUIESCING)
        reply_name = text(odr.ObjectName)
        _write(f"replies to {reply_name}")
    except pymqi.MQMIError as e:
        _write(f"MQOPEN ended with reason code {e.reason}")
        _write("unable to open reply queue")
    if reply is not None:
        pmo = pymqi.PMO(Options=C.MQPMO_NEW_MSG_ID | C.MQPMO_NO_SYNCPOINT)
        for raw in sys.stdin.buffer:
            line = raw.rstrip(b"\n")
            if not line:
                break
            md = pymqi.MD(MsgType=C.MQMT_REQUEST, Report=C.MQRO_EXCEPTION_WITH_DATA, ReplyToQ=reply_name.encode(),
                          Format=C.MQFMT_STRING)
            try:
                server.put(line, md, pmo)
            except pymqi.MQMIError as e:
                _write(f"MQPUT ended with reason code {e.reason}")
                break
        gmo = pymqi.GMO(Version=C.MQGMO_VERSION_2, MatchOptions=C.MQMO_NONE, WaitInterval=60000,
                        Options=C.MQGMO_WAIT | C.MQGMO_CONVERT | C.MQGMO_ACCEPT_TRUNCATED_MSG)
        while True:
            md = pymqi.MD(Encoding=C.MQENC_NATIVE, CodedCharSetId=C.MQCCSI_Q_MGR)
            try:
                data = reply.get(64, md, gmo)
            except pymqi.MQMIError as e:
                if e.comp == C.MQCC_FAILED:
                    _write("no more replies" if e.reason == C.MQRC_NO_MSG_AVAILABLE
                           else f"MQGET ended with reason code {e.reason}")
                    break
                _write(f"MQGET ended with reason code {e.reason}")          # a warning: truncated
                data = getattr(e, "message", b"") or b""
            gmo.WaitInterval = 15000
            _write(b"response <" + data[:64].split(b"\0", 1)[0] + b">")
            if md.MsgType == C.MQMT_REPORT:
                _write(f"  report with feedback = {md.Feedback}")
    try:
        server.close()
    except pymqi.MQMIError as e:
        _write(f"MQCLOSE (server) ended with reason code {e.reason}")
    if reply is not None:
        try:
            reply.close(C.MQCO_NONE if named else C.MQCO_DELETE)
        except pymqi.MQMIError as e:
            _write(f"MQCLOSE (reply) ended with reason code {e.reason}")
    return None


def _publish(qm: Any, argv: list[str]) -> None:
    """amqspub: each line of standard input (in pieces of at most 99 bytes, as its 100-byte buffer
    reads them) published on the topic string, until an empty line or the end of input."""
    from mqlite import pymqi
    options = C.MQPMO_FAIL_IF_QUIESCING | C.MQPMO_NO_SYNCPOINT
    if len(argv) > 2:
        options = _int(argv, 2, 0)
        _write(f"publish options are {options}")
    topic = argv[0]
    _write(f"target topic is {topic}")
    od = pymqi.OD(ObjectType=C.MQOT_TOPIC, Version=C.MQOD_VERSION_4)
    od.set_vs("ObjectString", topic)
    try:
        q = pymqi.Queue(qm, od, C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING)
    except pymqi.MQMIError as e:
        _write(f"MQOPEN ended with reason code {e.reason}")
        _write("unable to open topic for publish")
        return
    _put_each(q, _pieces(99), pymqi.PMO(Options=options))
    _close(q, C.MQCO_NONE)


def _pieces(size: int) -> Any:
    """Standard input as fgets with a buffer of ``size`` + 1 reads it: lines of at most ``size``
    bytes, a longer line in several pieces, the new line dropped; b"" at the end of input."""
    while True:
        piece = sys.stdin.buffer.readline(size)
        if piece.endswith(b"\n"):
            piece = piece[:-1]
        elif not piece:
            yield b""
            return
        yield piece


def _subscribe(qm: Any, argv: list[str]) -> None:
    """amqssub: a non-durable managed subscription, and each publication shown as it arrives,
    waiting 30 seconds for the next."""
    from mqlite import pymqi
    options = C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_FAIL_IF_QUIESCING | C.MQSO_MANAGED
    if len(argv) > 2:
        options = _int(argv, 2, 0)
        _write(f"MQSUB SD.Options are {options}")
    sd = pymqi.SD(Options=options)
    sd.set_vs("ObjectString", argv[0])
    try:
        sub = pymqi.Subscription(qm, sub_desc=sd)
    except pymqi.MQMIError as e:
        _write(f"MQSUB ended with reason code {e.reason}")
        _write("unable to subscribe to topic")
        return
    q = sub.get_sub_queue()
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT | C.MQGMO_CONVERT | C.MQGMO_NO_PROPERTIES,
                    WaitInterval=30000)
    while True:
        _write(f"Calling MQGET : {gmo.WaitInterval // 1000} seconds wait time")
        md = pymqi.MD(Encoding=C.MQENC_NATIVE, CodedCharSetId=C.MQCCSI_Q_MGR)
        try:
            data = q.get(1023, md, gmo)
        except pymqi.MQMIError as e:
            _write("no more messages" if e.reason == C.MQRC_NO_MSG_AVAILABLE
                   else f"MQGET ended with reason code {e.reason}")
            if e.comp == C.MQCC_FAILED:
                break
            data = getattr(e, "message", b"") or b""
        _write(b"message <" + data.split(b"\0", 1)[0] + b">")
    for step in (lambda: sub.close(), lambda: q.close()):
        try:
            step()
        except pymqi.MQMIError as e:
            _write(f"MQCLOSE ended with reason code {e.reason}")


def amqsput(argv: list[str], client: bool = False) -> int:
    return _run("AMQSPUT0", argv, _put, client)


def amqsget(argv: list[str], client: bool = False) -> int:
    return _run("AMQSGET0", argv, _get, client)


def amqsreq(argv: list[str], client: bool = False) -> int:
    return _run("AMQSREQ0", argv, _request, client)


def amqspub(argv: list[str], client: bool = False) -> int:
    return _run("AMQSPUBA", argv, _publish, client, missing="topic string", connx="MQCONN")


def amqssub(argv: list[str], client: bool = False) -> int:
    return _run("AMQSSUBA", argv, _subscribe, client, missing="topic string", connx="MQCONN")


def amqsgbr(argv: list[str], client: bool = False) -> int:
    return _run("AMQSGBR0 (browse)", argv, _browse, client, echo_qmgr=True)


# Console scripts (pyproject.toml): the programs by IBM's names, server and client builds.
def _command(program: Callable[..., int], client: bool) -> Callable[[], None]:
    def main() -> None:
        sys.exit(program(sys.argv[1:], client=client))
    return main


amqsput_main, amqsputc_main = _command(amqsput, False), _command(amqsput, True)
amqsget_main, amqsgetc_main = _command(amqsget, False), _command(amqsget, True)
amqsgbr_main, amqsgbrc_main = _command(amqsgbr, False), _command(amqsgbr, True)
amqsreq_main, amqsreqc_main = _command(amqsreq, False), _command(amqsreq, True)
amqspub_main, amqspubc_main = _command(amqspub, False), _command(amqspub, True)
amqssub_main, amqssubc_main = _command(amqssub, False), _command(amqssub, True)
