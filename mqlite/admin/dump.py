"""dmpmqcfg: a queue manager's configuration as the MQSC (or setmqaut commands) that recreate it —
ALTER QMGR, a DEFINE ... REPLACE for every object, SET AUTHREC for every authority record, SET
CHLAUTH for every channel authentication rule, DEFINE SUB for every administrative or durable
subscription — in MQ's order and layout. Attributes come from the attribute table: by default
those that differ from the table's default for their kind (``all_attrs``: every one, as
``dmpmqcfg -a``), never a display-only one, and never a secret (an LDAP or channel password is left
for the administrator to set again, as MQ leaves it)."""
from __future__ import annotations

import getpass
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.engine.clock import mq_date_time
from mqlite.engine.qmgr import QueueManager
from mqlite.objects.attrs import ENUM, FLAG, INT, LIST, TABLE, Attr
from mqlite.objects.model import QMGR, MQObject
from mqlite.objects.names import generic_match
from mqlite.pubsub.subscription import Subscription
from mqlite.security import chlauth
from mqlite.security.authority import names_of
from mqlite.security.chlauth import Rule

# dmpmqcfg's object order, and -t's names for each kind.
ORDER = ("AUTHINFO", "QUEUE", "NAMELIST", "PROCESS", "CHANNEL", "LISTENER", "SERVICE", "COMMINFO", "TOPIC")
TYPES = {"authinfo": {"AUTHINFO"}, "channel": {"CHANNEL"}, "clntconn": {"CHANNEL"}, "comminfo": {"COMMINFO"},
         "listener": {"LISTENER"}, "namelist": {"NAMELIST"}, "process": {"PROCESS"}, "queue": {"QUEUE"},
         "qmgr": {QMGR}, "service": {"SERVICE"}, "topic": {"TOPIC"}}
SECRETS = frozenset({"LDAPPWD", "PASSWORD", "INITKEY", "KEYRPWD"})
# What DEFINE needs of a kind although the attribute cannot be altered afterwards.
REQUIRED = {"TOPIC": ("TOPICSTR",), "AUTHINFO": ("AUTHTYPE",), "COMMINFO": ("TYPE",)}
EXTENTS = ("all", "object", "authrec", "chlauth", "sub", "policy")
FORMATS = ("mqsc", "1line", "setmqaut")


@dataclass(frozen=True)
class Options:
    """dmpmqcfg's flags: -a, -o, -x, -n, -t."""
    all_attrs: bool = False
    fmt: str = "mqsc"
    extent: str = "all"
    name: str = "*"
    otype: str = "all"


def quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def optional(key: str, value: str) -> list[str]:
    """A string parameter written only when it has a value."""
    return [f"{key}({quoted(value)})"] if value else []


def item(attr: Attr, value: Any) -> str:
    """One attribute as DEFINE takes it (strings quoted, enumerations as their words)."""
    if attr.kind == FLAG:
        return attr.name if value else attr.flag_off
    if attr.kind == ENUM or (attr.kind == INT and attr.values and value in attr.values.values()):
        return f"{attr.name}({attr.word(value)})"
    if attr.kind == LIST:
        return f"{attr.name}({','.join(quoted(v) for v in value)})"
    if attr.kind == INT:
        return f"{attr.name}({value})"
    return f"{attr.name}({quoted(str(value))})"


def statement(head: str, items: list[str], tail: str, fmt: str) -> list[str]:
    """An MQSC command in dmpmqcfg's layout: one attribute a line with '+' continuations, or
    (``1line``) all on one line."""
    parts = [head, *items, tail] if tail else [head, *items]
    if fmt == "1line":
        return [" ".join(parts)]
    return [parts[0] + (" +" if len(parts) > 1 else "")] + [
        "   " + p + (" +" if i < len(parts) - 2 else "") for i, p in enumerate(parts[1:])]


def object_items(obj: MQObject, all_attrs: bool) -> list[str]:
    kind = obj.kind
    needed = REQUIRED.get(kind, ())
    out = []
    for name, attr in sorted(TABLE.attrs(kind).items()):
        if name in SECRETS or name == "QSGDISP" or (not attr.alterable and name not in needed):
            continue
        value = obj.attrs.get(name, attr.default_for(kind))
        if all_attrs or name in needed or value != attr.default_for(kind):
            out.append(item(attr, value))
    return out


def _objects(qm: QueueManager, opts: Options, wanted: set[str]) -> Iterable[str]:
    for ns in ORDER:
        if ns not in wanted:
            continue
        for name, obj in sorted(qm.objects[ns].items()):
            if not generic_match(opts.name, name):
                continue
            if obj.kind == "QLOCAL" and obj["DEFTYPE"] == C.MQQDT_TEMPORARY_DYNAMIC:
                continue                    # gone when its creator disconnects: not configuration
            if opts.otype == "clntconn" and obj.kind != "CLNTCONN":
                continue
            head = f"DEFINE {obj.kind if ns != 'CHANNEL' else 'CHANNEL'}({quoted(name)})"
            if ns == "CHANNEL":
                head += f" CHLTYPE({obj.kind})"
            yield from statement(head, object_items(obj, opts.all_attrs), "REPLACE", opts.fmt)


def _qmgr(qm: QueueManager, opts: Options) -> list[str]:
    items = object_items(qm.qmgr, opts.all_attrs)
    return statement("ALTER QMGR", items, "FORCE", opts.fmt)


def _authrecs(qm: QueueManager, opts: Options) -> Iterable[str]:
    for objtype, profile, entity, bits in qm.security.records.matching():
        if not generic_match(opts.name, profile) and objtype != QMGR:
            continue
        names = [n.lower() for n in names_of(bits) if n != "NONE"]
        if opts.fmt == "setmqaut":
            who = f"-g {quoted(entity.name)}" if entity.group else f"-p {quoted(entity.name)}"
            target = "" if objtype == QMGR else f"-n {quoted(profile)} "
            rights = " ".join("+" + n for n in names) or "-all"
            yield f"setmqaut -m {quoted(qm.name)} {target}-t {objtype.lower()} {who} {rights}"
            continue
        who = f"GROUP({quoted(entity.name)})" if entity.group else f"PRINCIPAL({quoted(entity.name)})"
        where = "" if objtype == QMGR else f"PROFILE({quoted(profile)}) "
        rights = ",".join(n.upper() for n in names) or "NONE"
        yield f"SET AUTHREC {where}{who} OBJTYPE({objtype}) AUTHADD({rights})"


_RULE_FIELDS = {"ADDRESS": "address", "CLNTUSER": "clntuser", "QMNAME": "qmname", "SSLPEER": "sslpeer",
                "SSLCERTI": "sslcerti", "USERSRC": "usersrc", "MCAUSER": "mcauser", "CHCKCLNT": "chckclnt"}
def rule_items(rule: Rule) -> list[str]:
    out = [f"TYPE({rule.type})"]
    for key in chlauth.PARAMS[rule.type]:
        if key in ("USERLIST", "ADDRLIST"):
            values = rule.userlist if key == "USERLIST" else rule.addrlist
            out.append(f"{key}({','.join(quoted(v) for v in values)})")
            continue
        value = getattr(rule, _RULE_FIELDS[key])
        if key in ("USERSRC", "CHCKCLNT"):
            out.append(f"{key}({value})")
        elif value:
            out.append(f"{key}({quoted(value)})")
    out += optional("DESCR", rule.descr) + optional("CUSTOM", rule.custom)
    out.append(f"WARN({'YES' if rule.warn else 'NO'})")
    return out


def _chlauth(qm: QueueManager, opts: Options) -> Iterable[str]:
    for rule in qm.security.rules:
        if generic_match(opts.name, rule.profile):
            yield from statement(f"SET CHLAUTH({quoted(rule.profile)})", rule_items(rule), "ACTION(REPLACE)",
                                 opts.fmt)


_PSPROP = {C.MQPSPROP_NONE: "NONE", C.MQPSPROP_COMPAT: "COMPAT", C.MQPSPROP_RFH2: "RFH2"}


def sub_items(s: Subscription, qmgr: str) -> list[str]:
    out = [f"TOPICSTR({quoted(s.topic)})", *optional("TOPICOBJ", s.topicobj),
           "DESTCLAS(MANAGED)" if s.managed else f"DEST({quoted(s.queue)})"]
    # (this queue manager's own name as DESTQMGR is left out: the dump may be replayed elsewhere)
    out += optional("DESTQMGR", s.qmgr if not s.managed and s.qmgr != qmgr else "")
    out += optional("USERDATA", s.user_data) + optional("SUBUSER", s.user) + optional("SELECTOR", s.selector)
    out.append(f"WSCHEMA({'CHAR' if s.char_wildcards else 'TOPIC'})")
    out.append(f"VARUSER({'ANY' if s.options & C.MQSO_ANY_USERID else 'FIXED'})")
    out.append(f"REQONLY({'YES' if s.options & C.MQSO_PUBLICATIONS_ON_REQUEST else 'NO'})")
    out.append("PUBPRTY(ASPUB)" if s.priority == C.MQPRI_PRIORITY_AS_PUBLISHED else
               "PUBPRTY(ASQDEF)" if s.priority == C.MQPRI_PRIORITY_AS_Q_DEF else f"PUBPRTY({s.priority})")
    out.append(f"PSPROP({_PSPROP.get(s.psprop, 'MSGPROP')})")
    out.append(f"SUBLEVEL({s.sublevel})")
    return out


def _subs(qm: QueueManager, opts: Options) -> Iterable[str]:
    for s in sorted(qm.pubsub.subscriptions.values(), key=lambda s: s.name):
        if not s.durable or not s.name or s.subtype == "PROXY" or s.name.startswith("SYSTEM."):
            continue
        if generic_match(opts.name, s.name):
            yield from statement(f"DEFINE SUB({quoted(s.name)})", sub_items(s, qm.name), "REPLACE", opts.fmt)


def dump(qm: QueueManager, opts: Options, command: str = "dmpmqcfg", now: float = 0.0) -> list[str]:
    """The configuration as dmpmqcfg writes it, with its header of comments."""
    d, t = mq_date_time(now or qm.clock.now())
    level = qm.qmgr["CMDLEVEL"]
    lines = ["*" * 79, f"* Script generated on {d}   at {t}",
             f"* Script generated by user '{_user()}' on host '{socket.gethostname()}'",
             f"* Queue manager name: {qm.name}", "* Queue manager platform: UNIX",
             f"* Queue manager command level: ({level}/{level})", f"* Command issued: {command}", "*" * 79]
    wanted = set(ORDER) | {QMGR} if opts.otype == "all" else TYPES.get(opts.otype, set())
    if opts.fmt != "setmqaut":
        if opts.extent in ("all", "object"):
            if QMGR in wanted:
                lines += _qmgr(qm, opts)
            lines += _objects(qm, opts, wanted)
        if opts.extent in ("all", "sub") and opts.otype == "all":
            lines += _subs(qm, opts)
    if opts.extent in ("all", "authrec") and (opts.otype == "all" or opts.fmt == "setmqaut"):
        lines += _authrecs(qm, opts)
    if opts.extent in ("all", "chlauth") and opts.otype == "all" and opts.fmt != "setmqaut":
        lines += _chlauth(qm, opts)
    return lines


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "mqm"
