"""runmqsc: MQSC read from standard input, each command sent to a running queue manager (through
its control socket, or as escape PCF to the command server for -c and -w) and answered as MQ's
runmqsc answers; -v checks each command without running it."""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

from mqlite.catalogue import message
from mqlite.mqsc.parser import MQSCSyntaxError, parse, split_commands
from mqlite.mqsc.shape import BANNER
from mqlite.net import protocol as P
from mqlite.net.ccdt import location as ccdt_location
from mqlite.net.client import ControlSession, TransportError
from mqlite.objects.names import valid_name
from mqlite.paths import QMPaths


def _escape_sender(qmgr: Any, target: str, wait: float) -> Callable[[str], Any]:
    """MQSC commands as escape PCF to a command server (this queue manager's, or ``target``'s)."""
    from mqlite import pymqi
    from mqlite.cmq import CMQCFC
    from mqlite.mqsc.result import Result
    pcf = pymqi.PCFExecute(qmgr, model_queue_name=b"SYSTEM.MQSC.REPLY.QUEUE", dynamic_queue_name=b"MQSC.*",
                           response_wait_interval=int(wait * 1000), command_queue_qmgr=target.encode())

    def send(text: str) -> Any:
        try:
            replies = pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                                        CMQCFC.MQCACF_ESCAPE_TEXT: text.encode()})
            body = replies[0].get(CMQCFC.MQCACF_ESCAPE_TEXT, b"") if replies else b""
            return Result(body.decode(errors="replace").splitlines())
        except pymqi.MQMIError as e:
            if e.reason == pymqi.CMQC.MQRC_NO_MSG_AVAILABLE:
                return Result([message("AMQ8416E")], "error")
            response = getattr(e, "response", {}) or {}
            body = response.get(CMQCFC.MQCACF_ESCAPE_TEXT, b"")
            lines = body.decode(errors="replace").splitlines() or [f"Reason {e.reason}: {e.errorAsString()}"]
            return Result(lines, "syntax" if e.reason == CMQCFC.MQRCCF_PARM_SYNTAX_ERROR else "error")
    return send


def _verifier() -> Callable[[str], Any]:
    """runmqsc -v: each command checked as the queue manager checks it (keywords, values, the
    attribute table) against a scratch queue manager in memory, so nothing real changes and no
    queue manager need exist; only syntax errors are reported, as MQ's -v does."""
    from mqlite.engine.clock import Clock
    from mqlite.engine.qmgr import QueueManager
    from mqlite.engine.queue import DEFAULT_BUFFERS
    from mqlite.mqsc.commands import Executor
    from mqlite.mqsc.result import Result
    from mqlite.store.sqlite import MemoryStore
    store: Any = MemoryStore()          # a journal in memory (MemoryStore is the tests' one too)
    scratch = QueueManager("VERIFY", store, Clock(), None, DEFAULT_BUFFERS)
    scratch.create()
    executor = Executor(scratch)

    def verify(text: str) -> Any:
        try:
            parse(text)
        except MQSCSyntaxError as e:
            return Result([message("AMQ8405I"),
                           e.segment], "syntax")
        result = executor.run(text)
        return result if result.status == "syntax" else Result([])
    return verify


def client_table(script: str, quiet: bool) -> int:
    """runmqsc -n: the commands run against the local client channel definition table (as MQ,
    every other option is ignored with -n but -e)."""
    from mqlite.cli.clientmqsc import ClientTable, table_path
    from mqlite.mqsc.result import summary
    path = table_path(dict(os.environ))
    try:
        table = ClientTable(path)
    except (OSError, ValueError) as e:
        print(f"Starting local MQSC for '{os.path.basename(path)}'.\n\n")
        # MQ's message for a channel table it cannot read (the file is not in the expected format).
        print(message("AMQ9555E"))
        print(f"The file {path} does not have the expected format: {e}")
        return 20
    print(f"Starting local MQSC for '{os.path.basename(path)}'.\n\n")
    lines, code = summary(_each_command(script, not quiet, table.run))
    for line in lines:
        print(line)
    return code


def _each_command(script: str, echo: bool, run: Callable[[str], Any]) -> list[Any]:
    """Each command of the script echoed (numbered, as runmqsc numbers them), run and answered,
    until END (or its synonyms EXIT and QUIT); the results, for the summary."""
    results: list[Any] = []
    for cmd in split_commands(script):
        if echo:
            for i, line in enumerate(cmd.lines):
                print((f"{len(results) + 1:>6} : " if i == 0 else "       : ") + line)
        if cmd.text.upper() in ("END", "EXIT", "QUIT"):
            break
        result = run(cmd.text)
        results.append(result)
        for line in result.lines:
            print(line)
        print()
    return results


def runmqsc(args: argparse.Namespace) -> int:
    from mqlite import pymqi
    from mqlite.mqsc.result import Result, summary
    qmgr = args.qmgr or ""
    script = sys.stdin.read()
    print(BANNER)
    if getattr(args, "n", False):
        return client_table(script, args.e)
    send: Callable[[str], Any] | None = None
    closer: Callable[[], None] = lambda: None
    try:
        if args.c or args.w is not None:
            # Client mode (MQSERVER) or remote administration through a local queue manager.
            local = args.m if args.w is not None else qmgr
            if args.c and not os.environ.get("MQSERVER") and not ccdt_location("", os.environ):
                # -c is a client connection: MQSERVER or a CCDT (MQCCDTURL, MQCHLLIB/MQCHLTAB)
                # defines its channel, as with MQ; without either there is none to make
                raise TransportError(pymqi.CMQC.MQRC_Q_MGR_NAME_ERROR, "runmqsc -c needs MQSERVER or a CCDT")
            conn = pymqi.QueueManager(None)
            conn.connect(local)       # MQSERVER makes it a client connection, as with MQ
            send = _escape_sender(conn, qmgr if args.w is not None else "", args.w if args.w else 30.0)
            closer = conn.disconnect
        elif not args.v:
            paths = QMPaths.of(qmgr) if qmgr and valid_name(qmgr, "QMGR") else None
            if paths is None or not paths.exists() or not paths.running_pid():
                raise TransportError(2059, "not running")
            session = ControlSession(paths.socket, qmgr, "runmqsc")

            def send(text: str) -> Any:
                status, lines = session.mqsc(text)
                return Result(lines, status)
            closer = session.close
    except (TransportError, pymqi.MQMIError, pymqi.PYIFError):
        print(f"Starting MQSC for queue manager {qmgr}.\n\n")
        print(message("AMQ8146E"))
        return 20
    print(f"Starting MQSC for queue manager {qmgr}.\n\n")
    run: Callable[[str], Any] = send if send is not None else _verifier()
    try:
        results = _each_command(script, not args.e, run)
    except (TransportError, P.ProtocolError, pymqi.MQMIError, pymqi.PYIFError):
        print(message("AMQ8146E"))
        return 20
    lines, code = summary(results)
    for line in lines:
        print(line)
    try:
        closer()
    except Exception:
        pass
    return code
