"""Security control commands: setmqaut, dspmqaut, dmpmqaut (IBM MQ's, with their flags) and
mqlite's own setmqusr/dspmqusr for the queue manager's user registry (IBM MQ uses the operating
system's users; mqlite keeps its own, see docs/security.md). All go to the running queue manager
over local bindings, as an administrator."""
from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Callable
from typing import Any

from mqlite.catalogue import message
from mqlite.security.authority import SHORT_TYPES
from mqlite.security.users import hash_password

NOT_AVAILABLE, FAILED = 72, 20


def _auth_args(rest: list[str]) -> tuple[list[str], list[str], bool]:
    """setmqaut's +auth/-auth words (and -remove)."""
    add, remove, remove_all = [], [], False
    for word in rest:
        if word == "-remove":
            remove_all = True
        elif word.startswith("+"):
            add.append(word[1:])
        elif word.startswith("-"):
            remove.append(word[1:])
        else:
            raise ValueError(word)
    return add, remove, remove_all


def _call(control: Callable[[Any, dict[str, Any]], dict[str, Any] | None], paths: Any,
          op: dict[str, Any]) -> dict[str, Any] | None:
    reply = control(paths, op)
    if reply is None:
        print(message("AMQ8146E"), file=sys.stderr)
    elif not reply.get("ok"):
        print(reply.get("msg", message("AMQ7026E")), file=sys.stderr)
        return None
    return reply


def _objtype(t: str) -> str:
    objtype = SHORT_TYPES.get(t.lower())
    if objtype is None:
        raise SystemExit(f"{message('AMQ7095E')} ({t})")
    return objtype


def setmqaut(args: argparse.Namespace, rest: list[str], control: Callable[..., Any], paths: Any) -> int:
    try:
        add, remove, remove_all = _auth_args(rest)
    except ValueError as e:
        print(message("AMQ7096E"), f"({e})", file=sys.stderr)
        return FAILED
    entities = [(p, False) for p in args.p or []] + [(g, True) for g in args.g or []]
    if not entities:
        print(message("AMQ7026E"), file=sys.stderr)
        return FAILED
    reply = control(paths, {"op": "setaut", "objtype": _objtype(args.t), "profile": args.n or "",
                             "entities": entities, "add": add, "remove": remove, "remove_all": remove_all})
    if reply is None:
        print(message("AMQ8146E"), file=sys.stderr)
        return FAILED
    if not reply.get("ok"):
        print(reply.get("msg"), file=sys.stderr)
        return int(reply.get("rc", FAILED))       # 36: a principal or group the system does not know
    print("The setmqaut command completed successfully.")
    return 0


def dspmqaut(args: argparse.Namespace, control: Callable[..., Any], paths: Any) -> int:
    entity = (args.p, False) if args.p else (args.g, True) if args.g else None
    if entity is None:
        print(message("AMQ7026E"), file=sys.stderr)
        return FAILED
    reply = _call(control, paths, {"op": "dspaut", "objtype": _objtype(args.t), "name": args.n or "",
                                   "entity": entity})
    if reply is None:
        return FAILED
    print(f"Entity {entity[0]} has the following authorizations for object {args.n or args.m}:")
    for a in reply["auth"]:
        print(f"\t{a}")
    return 0


def dmpmqaut(args: argparse.Namespace, control: Callable[..., Any], paths: Any) -> int:
    reply = _call(control, paths, {"op": "dmpaut", "objtype": _objtype(args.t) if args.t else None,
                                   "profile": args.n, "entity": args.p or args.g})
    if reply is None:
        return FAILED
    for row in reply["rows"]:
        print(f"profile:     {row['profile']}")
        print(f"object type: {row['objtype'].lower()}")
        print(f"entity:      {row['entity']}")
        print(f"entity type: {'group' if row['group'] else 'principal'}")
        print(f"authority:   {' '.join(row['auth'])}")
        print("- - - - - - - - - - - - - - - - -")
    return 0


def setmqusr(args: argparse.Namespace, control: Callable[..., Any], paths: Any) -> int:
    """mqlite's registry: -u USER [-p PASSWORD | --password-stdin] [-g GROUP ...] [-r GROUP ...] [-d]."""
    op: dict[str, Any] = {"op": "setusr", "user": args.u, "add": args.g or [], "remove": args.r or [],
                          "delete": args.d}
    password = args.p
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    elif args.prompt:
        password = getpass.getpass(f"Password for {args.u}: ")
    if password is not None:
        op["hash"] = hash_password(password)     # the password itself never leaves this process
    if _call(control, paths, op) is None:
        return FAILED
    print(f"User {args.u} {'deleted' if args.d else 'set'}.")
    return 0


def dspmqusr(args: argparse.Namespace, control: Callable[..., Any], paths: Any) -> int:
    reply = _call(control, paths, {"op": "dspusr"})
    if reply is None:
        return FAILED
    for name, u in reply["users"].items():
        print(f"USER({name})  PASSWORD({'SET' if u['password'] else 'NONE'})  GROUPS({','.join(u['groups'])})")
    return 0


def add_parsers(sub: Any, run: Callable[[str, argparse.Namespace], int]) -> None:
    p = sub.add_parser("setmqaut", help="grant or revoke authority (IBM MQ's flags: -m -n -t -p/-g +auth -auth)")
    p.add_argument("-m", required=True)
    p.add_argument("-n")
    p.add_argument("-t", required=True)
    p.add_argument("-p", action="append")
    p.add_argument("-g", action="append")
    p.set_defaults(fn=lambda a: run("setmqaut", a))
    p = sub.add_parser("dspmqaut", help="display the authority an entity has on an object")
    p.add_argument("-m", required=True)
    p.add_argument("-n")
    p.add_argument("-t", required=True)
    p.add_argument("-p")
    p.add_argument("-g")
    p.set_defaults(fn=lambda a: run("dspmqaut", a))
    p = sub.add_parser("dmpmqaut", help="dump authority records")
    p.add_argument("-m", required=True)
    p.add_argument("-n")
    p.add_argument("-t")
    p.add_argument("-p")
    p.add_argument("-g")
    p.set_defaults(fn=lambda a: run("dmpmqaut", a))
    p = sub.add_parser("setmqusr", help="mqlite: set a user of the queue manager's registry (password, groups)")
    p.add_argument("-m", required=True)
    p.add_argument("-u", required=True)
    p.add_argument("-p", help="the password (better: --password-stdin or --prompt)")
    p.add_argument("--password-stdin", action="store_true")
    p.add_argument("--prompt", action="store_true")
    p.add_argument("-g", action="append", help="add to this group")
    p.add_argument("-r", action="append", help="remove from this group")
    p.add_argument("-d", action="store_true", help="delete the user")
    p.set_defaults(fn=lambda a: run("setmqusr", a))
    p = sub.add_parser("dspmqusr", help="mqlite: display the queue manager's user registry")
    p.add_argument("-m", required=True)
    p.set_defaults(fn=lambda a: run("dspmqusr", a))


COMMANDS = {"setmqaut": setmqaut, "dspmqaut": dspmqaut, "dmpmqaut": dmpmqaut, "setmqusr": setmqusr,
            "dspmqusr": dspmqusr}


def split_setmqaut(argv: list[str]) -> tuple[list[str], list[str]]:
    """setmqaut's authority words (+put, -get, -remove) apart from its flags (-m QM, -p fred):
    argparse would read -put as -p ut."""
    flags, words = [], []
    for word in argv:
        (words if word.startswith("+") or (word.startswith("-") and len(word) > 2) else flags).append(word)
    return flags, words
