"""The ``mqlite`` command: MQ's control commands as subcommands.

Exit codes follow MQ's control commands: 0 done, 5 queue manager running, 8 already exists,
16 does not exist, 20 runmqsc could not run, 40 not available, 71 unexpected error,
72 queue manager name error; runmqsc returns 0, 10 or 20.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import sys
import time
from typing import Any

from mqlite.catalogue import message
from mqlite.cli import amqsmon as cli_amqsmon
from mqlite.cli import amqsrua as cli_amqsrua
from mqlite.cli import config as cli_config
from mqlite.cli import runmqsc as cli_runmqsc
from mqlite.cli import security as cli_security
from mqlite.cli import trigmon as cli_trigmon
from mqlite.cli import amqsbcg as cli_amqsbcg
from mqlite.cli import amqsevt as cli_amqsevt
from mqlite.cli import samples_srv as cli_samples_srv
from mqlite.cli import samples as cli_samples
from mqlite.cli import whatif as cli_whatif
from mqlite.cli.clientmqsc import display_blocks
from mqlite.cli.create import NAME_ERROR, NOT_AVAILABLE, NOT_EXIST, RUNNING, UNEXPECTED, crtmqm
from mqlite.cli.dev import add_dev_command
from mqlite.cli.proc import start_server
from mqlite.cli.web import add_web_commands
from mqlite.net.client import ControlSession, control_call
from mqlite.objects.names import valid_name
from mqlite.paths import QMPaths, all_qmgrs
from mqlite.qsg.service import STORE_KEY as QSG_STORE_KEY
from mqlite.store.shared import open_shared
from mqlite.store.sqlite import Store

START_TIMEOUT = 60.0


def _paths(name: str) -> QMPaths | int:
    if not valid_name(name, "QMGR"):
        print(message("AMQ7048E"), file=sys.stderr)
        return NAME_ERROR
    paths = QMPaths.of(name)
    if not paths.exists():
        print(message("AMQ8118E"), file=sys.stderr)
        return NOT_EXIST
    return paths


def _stopped_paths(name: str) -> QMPaths | int:
    """The queue manager's paths when it exists and is not running, else the exit code."""
    paths = _paths(name)
    if isinstance(paths, QMPaths) and paths.running_pid():
        print(f"IBM MQ queue manager '{name}' running.", file=sys.stderr)
        return RUNNING
    return paths


# --- strmqm -------------------------------------------------------------------------------------
def strmqm(args: argparse.Namespace) -> int:
    paths = _stopped_paths(args.qmgr)
    if isinstance(paths, int):
        return paths
    print(f"IBM MQ queue manager '{args.qmgr}' starting.")
    failed = start_server(args.qmgr, ("--accept-damage",) if args.accept_damage else (), START_TIMEOUT)
    if failed:
        print(f"IBM MQ queue manager '{args.qmgr}' could not start: {failed.removeprefix('ERROR ')} "
              f"See {paths.errors}/AMQERR01.LOG.", file=sys.stderr)
        return UNEXPECTED
    print(f"IBM MQ queue manager '{args.qmgr}' started.")
    return 0


# --- endmqm -------------------------------------------------------------------------------------
def _control(paths: QMPaths, op: dict) -> dict | None:
    return control_call(paths.socket, paths.name, op, "endmqm")


def _wait_ended(paths: QMPaths, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not paths.running_pid():
            return True
        time.sleep(0.05)
    return False


def endmqm(args: argparse.Namespace) -> int:
    paths = _paths(args.qmgr)
    if isinstance(paths, int):
        return paths
    pid = paths.running_pid()
    if not pid:
        print(message("AMQ8146E"), file=sys.stderr)
        return NOT_AVAILABLE
    if args.p:
        print(f"IBM MQ queue manager '{args.qmgr}' ending.")
        os.kill(pid, signal.SIGTERM)
        if not _wait_ended(paths, 5):
            os.kill(pid, signal.SIGKILL)
            _wait_ended(paths, 5)
        print(f"IBM MQ queue manager '{args.qmgr}' ended.")
        return 0
    immediate = bool(args.i)
    if _control(paths, {"op": "end", "immediate": immediate, "reconnect": bool(args.r)}) is None:
        print(message("AMQ8146E"), file=sys.stderr)
        return NOT_AVAILABLE
    if immediate:
        # "Control is returned after the queue manager ends" (it said 'ended' after 60 s whether
        # or not it had: a queue manager hung in its end was then reported ended).
        print(f"IBM MQ queue manager '{args.qmgr}' ending.", flush=True)
        while not _wait_ended(paths, 3600):
            pass
        print(f"IBM MQ queue manager '{args.qmgr}' ended.")
        return 0
    print("Quiesce request accepted. The queue manager will stop when all outstanding work is complete.")
    if args.w:
        print(f"Waiting for queue manager '{args.qmgr}' to end.")
        while not _wait_ended(paths, 3600):
            pass
        print(f"IBM MQ queue manager '{args.qmgr}' ended.")
    return 0


# --- dltmqm / dspmq ------------------------------------------------------------------------------
def dltmqm(args: argparse.Namespace) -> int:
    paths = _stopped_paths(args.qmgr)
    if isinstance(paths, int):
        return paths
    _leave_group(paths)
    shutil.rmtree(paths.root)
    print(f"IBM MQ queue manager '{args.qmgr}' deleted.")
    return 0


def _leave_group(paths: QMPaths) -> None:
    """dltmqm of a group member: its row in the group goes (its shared definitions stay)."""
    store = Store(paths.db)
    try:
        qsg, location = store.meta("qsg_name"), store.meta(QSG_STORE_KEY)
    finally:
        store.close()
    if not qsg or not location:
        return
    try:
        shared = open_shared(qsg, location)
        shared.remove_member(paths.name)
        shared.close()
    except Exception as e:  # noqa: BLE001 - the queue manager is deleted all the same
        print(message("MQL7023W", name=paths.name, qsg=qsg, e=e), file=sys.stderr)


def status_of(paths: QMPaths) -> str:
    if paths.running_pid():
        reply = _control(paths, {"op": "status"})
        if reply and reply.get("status") == "Quiescing":
            return "Quiescing"
        return "Running"
    if os.path.exists(paths.pid):
        return "Ended unexpectedly"
    return "Ended normally"


def dspmq(args: argparse.Namespace) -> int:
    names = [args.m] if args.m else all_qmgrs()
    if args.m:
        p = _paths(args.m)
        if isinstance(p, int):
            return p
    for name in names:
        print(f"QMNAME({name})".ljust(59) + f"STATUS({status_of(QMPaths.of(name))})")
    return 0


# --- dspmqtrn / rsvmqtrn -------------------------------------------------------------------------
def _trn_connect(name: str) -> Any:
    """A local-bindings connection for the transaction commands (the queue manager must run)."""
    from mqlite import pymqi
    p = _paths(name)
    if isinstance(p, int):
        return p
    if not p.running_pid():
        print(message("AMQ8146E"))
        return 16
    try:
        return pymqi.connect(name)
    except pymqi.MQMIError as e:
        print(message("AMQ8146E"), f"(reason {e.reason})")
        return 16


def dspmqtrn(args: argparse.Namespace) -> int:
    """The prepared (in-doubt) units of work, each by its transaction number (given when it was
    prepared: resolving one does not renumber the others)."""
    conn = _trn_connect(args.m)
    if isinstance(conn, int):
        return conn
    try:
        units = conn.prepared_units()
    finally:
        conn.disconnect()
    if not units:
        print("There are no matching transactions.")
        return 0
    for u in units:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(u["at"]))
        print(f"Transaction number 0,{u['number']}.")
        print(f"    XID: {u['xid']}")
        print(f"    prepared {when} UTC: {u['puts']} put(s), {u['gets']} get(s) on {', '.join(u['queues']) or '-'}")
    return 0


def rsvmqtrn(args: argparse.Namespace) -> int:
    """Commit (-c) or back out (-b) one prepared unit, by its XID or its dspmqtrn number (0,N)."""
    from mqlite import pymqi
    conn = _trn_connect(args.m)
    if isinstance(conn, int):
        return conn
    try:
        xid = args.c or args.b
        number = re.fullmatch(r"0,(\d+)", xid)
        if number:
            xid = next((u["xid"] for u in conn.prepared_units() if u["number"] == int(number.group(1))), "")
        try:
            conn.resolve_prepared([xid] if args.c else [], [xid] if args.b else [])
        except pymqi.MQMIError as e:
            print(f"Transaction {args.c or args.b} is not in doubt (reason {e.reason}).")
            return 40
    finally:
        conn.disconnect()
    print(f"Transaction {xid} {'committed' if args.c else 'backed out'}.")
    return 0


def ccdt(args: argparse.Namespace) -> int:
    """mqlite ccdt QMGR [-o FILE]: the queue manager's CLNTCONN channels as a JSON CCDT (MQ writes
    them to its binary AMQCLCHL.TAB; clients here read the JSON form: MQCCDTURL=FILE)."""
    import json

    from mqlite.net import ccdt as table
    paths = _running_paths(args.qmgr)
    if isinstance(paths, int):
        return paths
    with ControlSession(paths.socket, args.qmgr, "mqlite ccdt") as session:
        _status, lines = session.mqsc("DISPLAY CHANNEL(*) CHLTYPE(CLNTCONN) ALL")
    channels = display_blocks(lines, "AMQ8414I")             # each channel's block begins there
    written = [c for c in channels if c.get("CONNAME")]       # (SYSTEM.DEF.CLNTCONN's blank CONNAME: none)
    text = json.dumps(table.write(written), indent=2) + "\n"
    if args.o:
        with open(args.o, "w", encoding="utf-8") as f:
            f.write(text)
        print(message("MQL0040I", n_written=len(written), qmgr=args.qmgr, o=args.o))
    else:
        sys.stdout.write(text)
    return 0


def demo(args: argparse.Namespace) -> int:
    from mqlite.cli.demo import main as demo_main
    return demo_main()


def doctor(args: argparse.Namespace) -> int:
    from mqlite.cli.doctor import main as doctor_main
    return doctor_main()


def topology(args: argparse.Namespace) -> int:
    """mqlite up DIR / mqlite down DIR."""
    from mqlite.cli import topology as t
    try:
        if args.command == "up":
            t.up(args.dir, auto_ports=args.ports == "auto")
            return t.web() if args.web else 0
        return t.down(args.dir, delete=args.delete)
    except (OSError, RuntimeError) as e:
        print(message("MQL0030E", e=e), file=sys.stderr)
        return UNEXPECTED


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="mqlite", description="mqlite: IBM MQ's queue-manager model in Python.")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("crtmqm", help="create a queue manager")
    p.add_argument("-p", type=int, help="TCP port of the queue manager's listener")
    p.add_argument("-u", help="dead-letter queue name (DEADQ)")
    p.add_argument("-d", help="default transmission queue (DEFXMITQ)")
    p.add_argument("--qsg", help="join this queue-sharing group (1-4 characters)")
    p.add_argument("--qsgstore", help="the group's shared store: a SQLite file (default"
                   " $MQLITE_DATA/qsg/<QSG>.db) or a postgresql:// URL")
    p.add_argument("qmgr")
    p.set_defaults(fn=crtmqm)
    p = sub.add_parser("strmqm", help="start a queue manager in the background")
    p.add_argument("--accept-damage", action="store_true",
                   help="start from what is intact when the store's log has lost committed work")
    p.add_argument("qmgr")
    p.set_defaults(fn=strmqm)
    p = sub.add_parser("endmqm", help="end a queue manager")
    g = p.add_mutually_exclusive_group()
    g.add_argument("-c", action="store_true", help="controlled (quiesce): return at once")
    g.add_argument("-w", action="store_true", help="controlled, and wait until it has ended")
    g.add_argument("-i", action="store_true", help="immediate")
    g.add_argument("-p", action="store_true", help="preemptive")
    p.add_argument("-r", action="store_true", help="reconnectable clients reconnect (to another queue manager, "
                                                   "or to this one when it is back)")
    p.add_argument("qmgr")
    p.set_defaults(fn=endmqm)
    p = sub.add_parser("dltmqm", help="delete a queue manager")
    p.add_argument("qmgr")
    p.set_defaults(fn=dltmqm)
    p = sub.add_parser("dspmq", help="display queue managers and their status")
    p.add_argument("-m", help="only this queue manager")
    p.set_defaults(fn=dspmq)
    p = sub.add_parser("dspmqtrn", help="display the prepared (in-doubt) units of work")
    p.add_argument("-e", action="store_true", help="externally coordinated ones (the only kind mqlite has)")
    p.add_argument("-m", required=True, help="the queue manager")
    p.set_defaults(fn=dspmqtrn)
    p = sub.add_parser("rsvmqtrn", help="commit or back out a prepared unit of work")
    p.add_argument("-m", required=True, help="the queue manager")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("-c", metavar="TRANSACTION", help="commit it (its XID, or 0,N from dspmqtrn)")
    how.add_argument("-b", metavar="TRANSACTION", help="back it out")
    p.set_defaults(fn=rsvmqtrn)
    p = sub.add_parser("runmqsc", help="run MQSC commands read from standard input")
    p.add_argument("-n", action="store_true", help="no queue manager: CLNTCONN channels and AUTHINFO in the local "
                                                   "client channel definition table (MQCHLLIB/MQCHLTAB)")
    p.add_argument("-e", action="store_true", help="do not echo the commands")
    p.add_argument("-v", action="store_true", help="verify syntax only, do not run")
    p.add_argument("-c", action="store_true", help="client mode: connect as a client (MQSERVER)")
    p.add_argument("-w", type=float, help="remote: wait this many seconds for each answer from QMGR's command server")
    p.add_argument("-m", help="with -w: the local queue manager that relays the commands")
    p.add_argument("qmgr", nargs="?")
    p.set_defaults(fn=cli_runmqsc.runmqsc)
    p = sub.add_parser("amqsmon", help="print the statistics or accounting messages, as MQ's amqsmon sample")
    p.add_argument("-m", help="queue manager")
    p.add_argument("-t", choices=("statistics", "accounting"), default="statistics")
    p.add_argument("-b", action="store_true", help="browse: leave the messages")
    p.add_argument("-w", type=float, help="wait this many seconds for more")
    p.set_defaults(fn=lambda a: cli_amqsmon.amqsmon(a))
    add_web_commands(sub)
    add_dev_command(sub)
    p = sub.add_parser("amqsrua", help="print the resource-usage publications, as MQ's amqsrua sample")
    p.add_argument("-m", help="queue manager")
    p.add_argument("-c", help="class (CPU, DISK): without it the classes are listed")
    p.add_argument("-t", help="type within the class: without it the class's types are listed")
    p.add_argument("-o", help="the object of a per-object class (STATQ's queue, STATAPP's application)")
    p.add_argument("-n", type=int, default=1, help="publications to print (default 1)")
    p.add_argument("-w", type=float, default=30.0, help="seconds to wait for each publication")
    p.set_defaults(fn=lambda a: cli_amqsrua.amqsrua(a))
    p = sub.add_parser("runmqtrm", help="the trigger monitor: start the applications trigger messages name")
    p.add_argument("-m", help="queue manager (default: the default queue manager)")
    p.add_argument("-q", help="initiation queue (default SYSTEM.DEFAULT.INITIATION.QUEUE)")
    p.set_defaults(fn=lambda a: cli_trigmon.runmqtrm(a))
    p = sub.add_parser("ccdt", help="write the queue manager's CLNTCONN channels as a JSON CCDT")
    p.add_argument("-o", help="write to this file (default: standard output)")
    p.add_argument("qmgr")
    p.set_defaults(fn=ccdt)
    p = sub.add_parser("up", help="create and start the queue managers of a directory (cluster.ini + MQSC files)")
    p.add_argument("dir")
    p.add_argument("--ports", choices=("file", "auto"), default="file",
                   help="auto: free ports instead of those in cluster.ini (CONNAMEs follow)")
    p.add_argument("--web", action="store_true", help="also start mqweb (strmqweb) and print the console's URLs")
    p.set_defaults(fn=topology)
    p = sub.add_parser("down", help="end the queue managers of a directory")
    p.add_argument("dir")
    p.add_argument("--delete", action="store_true", help="delete them too")
    p.set_defaults(fn=topology)
    p = sub.add_parser("demo", help="the main job: the SALES cluster of examples/sales, puts and gets, then down "
                                    "(in a data directory of its own, on free ports)")
    p.set_defaults(fn=demo)
    p = sub.add_parser("doctor", help="check what this machine has for mqlite and say how to get what is missing")
    p.set_defaults(fn=doctor)
    cli_whatif.add_parser(sub)
    for prog, fn, client in (("amqsput", cli_samples.amqsput, False), ("amqsputc", cli_samples.amqsput, True),
                             ("amqsget", cli_samples.amqsget, False), ("amqsgetc", cli_samples.amqsget, True),
                             ("amqsgbr", cli_samples.amqsgbr, False), ("amqsgbrc", cli_samples.amqsgbr, True),
                             ("amqsreq", cli_samples.amqsreq, False), ("amqsreqc", cli_samples.amqsreq, True),
                             ("amqspub", cli_samples.amqspub, False), ("amqspubc", cli_samples.amqspub, True),
                             ("amqssub", cli_samples.amqssub, False), ("amqssubc", cli_samples.amqssub, True),
                             ("amqsbcg", cli_amqsbcg.amqsbcg, False), ("amqsbcgc", cli_amqsbcg.amqsbcg, True),
                             ("amqsinq", cli_samples_srv.amqsinq, False), ("amqsinqc", cli_samples_srv.amqsinq, True),
                             ("amqsset", cli_samples_srv.amqsset, False), ("amqssetc", cli_samples_srv.amqsset, True),
                             ("amqsevt", cli_amqsevt.amqsevt, False)):
        p = sub.add_parser(prog, help=f"IBM's sample {prog}, with its arguments and output (also a command of its own)")
        p.add_argument("args", nargs=argparse.REMAINDER)
        p.set_defaults(fn=lambda a, f=fn, c=client: f(a.args, client=c))
    cli_security.add_parsers(sub, _security)
    cli_config.add_parsers(sub, _security)
    return ap


def _running_paths(name: str) -> QMPaths | int:
    """The paths of a queue manager that is running, else the exit code that says why."""
    paths = _paths(name)
    if isinstance(paths, int):
        return paths
    if not paths.running_pid():
        print(message("AMQ8146E"), file=sys.stderr)
        return NOT_AVAILABLE
    return paths


def _security(name: str, args: argparse.Namespace) -> int:
    paths = _running_paths(args.m)
    if isinstance(paths, int):
        return paths
    fn: Any = cli_security.COMMANDS.get(name) or cli_config.COMMANDS[name]
    if name == "setmqaut":
        return int(fn(args, args.auth_words, _control, paths))
    return int(fn(args, _control, paths))


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    words: list[str] = []
    if argv[:1] == ["setmqaut"]:
        argv, words = cli_security.split_setmqaut(argv)
    if argv[:1] == ["amqsevt"]:
        return cli_amqsevt.amqsevt(argv[1:])      # (its options are its own: -m, -q, ... as IBM's getopt)
    args = build_parser().parse_args(argv)
    args.auth_words = words
    try:
        return int(args.fn(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
