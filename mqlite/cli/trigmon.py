"""runmqtrm: MQ's trigger monitor for Unix. It holds an initiation queue open for input (so that
the queue manager writes trigger messages to it: engine/trigger.py), waits for each MQTM, and
starts the application its process definition names the way MQ's runmqtrm does on Unix: the
command ``APPLICID 'MQTMC2' ENVRDATA`` run by the shell, waited for (an ENVRDATA ending in ``&``
runs it in the background), with the MQTMC2 (the trigger message in character form, with the
queue manager's name) as its one quoted argument. A process whose APPLTYPE is not UNIX is reported
and skipped, as MQ's monitor does for an application type it cannot start.

    mqlite runmqtrm [-m QMGR] [-q INITQ]

It ends when the queue manager ends (or quiesces), or on SIGINT/SIGTERM."""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.engine.trigger import mqtmc2, unpack_mqtm

WAIT_MS = 2000
_STOP = (C.MQRC_Q_MGR_QUIESCING, C.MQRC_Q_MGR_STOPPING, C.MQRC_CONNECTION_QUIESCING, C.MQRC_CONNECTION_STOPPING,
         C.MQRC_CONNECTION_BROKEN, C.MQRC_Q_MGR_NOT_AVAILABLE)


def _stamp() -> str:
    return time.strftime("%m/%d/%Y  %I:%M:%S %p")


def runmqtrm(args: argparse.Namespace) -> int:
    from mqlite import pymqi
    initq = args.q or "SYSTEM.DEFAULT.INITIATION.QUEUE"
    try:
        qmgr = pymqi.QueueManager(None)
        qmgr.connect(args.m or "")
        q = pymqi.Queue(qmgr, initq, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_FAIL_IF_QUIESCING)
        name = qmgr.inquire(C.MQCA_Q_MGR_NAME).decode().strip() if hasattr(qmgr, "inquire") else args.m
    except pymqi.MQMIError as e:
        print(f"{_stamp()} : IBM MQ trigger monitor could not start: reason {e.reason}.", flush=True)
        return 20 if e.reason in _STOP else 10
    print(f"{_stamp()} : IBM MQ trigger monitor started.\n", flush=True)
    try:
        while True:
            print("__________________________________________________", flush=True)
            print(f"{_stamp()} : Waiting for a trigger message\n", flush=True)
            body = _next(pymqi, q)
            if body is None:
                return 0
            _start(body, name)
    except KeyboardInterrupt:
        return 0
    finally:
        try:
            q.close()
            qmgr.disconnect()
        except pymqi.MQMIError:
            pass


def _next(pymqi: Any, q: Any) -> bytes | None:
    """The next trigger message, or None when the queue manager is ending."""
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_FAIL_IF_QUIESCING | C.MQGMO_NO_SYNCPOINT
                    | C.MQGMO_ACCEPT_TRUNCATED_MSG, WaitInterval=WAIT_MS)
    # A message longer than an MQTM is not one: its first 4 KiB are enough to say so.
    while True:
        try:
            return bytes(q.get(4096, pymqi.MD(), gmo))
        except pymqi.MQMIError as e:
            if e.reason == C.MQRC_TRUNCATED_MSG_ACCEPTED:
                return bytes(getattr(e, "message", b"") or b"")
            if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                continue
            if e.reason in _STOP:
                return None
            raise


def _start(body: bytes, qmgr: str) -> None:
    try:
        tm = unpack_mqtm(body)
    except ValueError:
        print(f"{_stamp()} : The message is not a trigger message (MQTM); it is discarded.\n", flush=True)
        return
    if tm["ApplType"] not in (C.MQAT_UNIX, C.MQAT_DEFAULT):
        print(f"{_stamp()} : Application type {tm['ApplType']} of process {tm['ProcessName']} cannot be "
              "started by this trigger monitor.\n", flush=True)
        return
    command = f"{tm['ApplId']} '{mqtmc2(tm, qmgr)}' {tm['EnvData']}".rstrip()
    print(command, flush=True)
    try:
        subprocess.run(command, shell=True, check=False)
    except OSError as e:
        print(f"{_stamp()} : The application could not be started: {e}.\n", flush=True)
        return
    print("End of application trigger.\n", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(prog="runmqtrm")
    ap.add_argument("-m")
    ap.add_argument("-q")
    sys.exit(runmqtrm(ap.parse_args()))
