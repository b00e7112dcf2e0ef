"""dmpmqcfg: a running queue manager's configuration as MQSC (or setmqaut commands), with IBM
MQ's flags: -m, -a (every attribute, not only those that differ from their defaults), -o
mqsc|1line|setmqaut, -x all|object|authrec|chlauth|sub|policy, -n a (generic) name, -t a type."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from mqlite.catalogue import message

FAILED = 20
TYPES = ("all", "authinfo", "channel", "clntconn", "comminfo", "listener", "namelist", "process", "queue",
         "qmgr", "service", "topic")


def dmpmqcfg(args: argparse.Namespace, control: Callable[..., Any], paths: Any) -> int:
    command = "dmpmqcfg " + " ".join(sys.argv[2:]) if len(sys.argv) > 2 else "dmpmqcfg"
    opts = {"all_attrs": args.a, "fmt": args.o, "extent": args.x, "name": args.n, "otype": args.t}
    reply = control(paths, {"op": "dmpcfg", "opts": opts, "command": command})
    if reply is None:
        print(message("AMQ8146E"), file=sys.stderr)
        return FAILED
    if not reply.get("ok"):
        print(reply.get("msg", message("MQL0022E")), file=sys.stderr)
        return FAILED
    for line in reply["lines"]:
        print(line)
    return 0


def add_parsers(sub: Any, run: Callable[[str, argparse.Namespace], int]) -> None:
    p = sub.add_parser("dmpmqcfg", help="dump a queue manager's configuration as MQSC (IBM MQ's flags)")
    p.add_argument("-m", required=True)
    p.add_argument("-a", action="store_true", help="every attribute, not only those that differ from the default")
    p.add_argument("-o", default="mqsc", choices=("mqsc", "1line", "setmqaut"))
    p.add_argument("-x", default="all", choices=("all", "object", "authrec", "chlauth", "sub", "policy"))
    p.add_argument("-n", default="*", help="a name or generic name (ending in *)")
    p.add_argument("-t", default="all", choices=TYPES)
    p.set_defaults(fn=lambda a: run("dmpmqcfg", a))


COMMANDS = {"dmpmqcfg": dmpmqcfg}
