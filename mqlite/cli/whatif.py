"""``mqlite whatif``: record a queue manager's cluster routing decisions, and replay them through
the workload algorithm under a changed configuration (mqlite.cluster.routelog).

    mqlite whatif record QMGR on|off
    mqlite whatif replay (QMGR | --log FILE) [--change 'ALTER CHANNEL(TO.PR1) CLWLWGHT(80)'] ... [--json]

With no change the replay says how many recorded decisions it reproduces (all, unless the log is
damaged); with changes, where the messages would have gone instead."""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from typing import Any

from mqlite.catalogue import message
from mqlite.cluster import routelog
from mqlite.paths import QMPaths


def add_parser(sub: Any) -> None:
    p = sub.add_parser("whatif", help="record cluster routing decisions and replay them under a changed configuration")
    verbs = p.add_subparsers(dest="verb", required=True)
    r = verbs.add_parser("record", help="turn a queue manager's routing log on or off")
    r.add_argument("qmgr")
    r.add_argument("state", choices=("on", "off"))
    r.set_defaults(fn=record)
    r = verbs.add_parser("replay", help="replay a routing log through the workload algorithm")
    r.add_argument("qmgr", nargs="?", help="the queue manager whose log to replay")
    r.add_argument("--log", help="a routing log file (instead of a queue manager's)")
    r.add_argument("--change", action="append", default=[],
                   help="a change, as MQSC: ALTER CHANNEL(ch) CLWLWGHT(n)|CLWLPRTY(n)|CLWLRANK(n)|NETPRTY(n); "
                        "ALTER QUEUE(q) [QMGR(qm)] CLWLPRTY(n)|CLWLRANK(n)|PUT(DISABLED); STOP QMGR(qm); "
                        "SUSPEND QMGR(qm); RESUME QMGR(qm); ADD QMGR(new) LIKE(qm) [CHANNEL(ch)]")
    r.add_argument("--json", action="store_true", help="print every outcome as a JSON line")
    r.set_defaults(fn=replay)


def log_path(qmgr: str) -> str:
    return os.path.join(QMPaths.of(qmgr).root, "routing", routelog.LOG_NAME)


def record(a: argparse.Namespace) -> int:
    from mqlite.net.client import control_call
    reply = control_call(QMPaths.of(a.qmgr).socket, a.qmgr, {"op": "routing", "on": a.state == "on"}, "mqlite whatif")
    if not reply or not reply.get("ok"):
        print(message("AMQ8146E"), file=sys.stderr)
        return 16
    print(f"Routing log of {a.qmgr} {'on' if reply['on'] else 'off'}: {reply['path']}")
    return 0


def replay(a: argparse.Namespace) -> int:
    if bool(a.qmgr) == bool(a.log):
        print("mqlite whatif replay: give a queue manager or --log FILE", file=sys.stderr)
        return 20
    path = a.log or log_path(a.qmgr)
    try:
        changes = [routelog.parse_change(c) for c in a.change]
        with open(path, encoding="utf-8") as f:
            records = routelog.read_log(f)
    except routelog.ChangeError as e:
        print(f"mqlite whatif replay: {e}", file=sys.stderr)
        return 20
    except (OSError, ValueError, KeyError) as e:
        print(f"mqlite whatif replay: cannot read the routing log {path}: {e}", file=sys.stderr)
        return 20
    outcomes = list(routelog.replay(records, changes))
    if a.json:
        for o in outcomes:
            print(json.dumps(dataclasses.asdict(o)))
        return 0
    for line in routelog.report(routelog.summarise(outcomes)):
        print(line)
    return 0
