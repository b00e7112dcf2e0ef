"""PCF commands on definitions, one family for every kind of object: Create, Copy, Change,
Delete, Inquire and Inquire Names of queues, channels, namelists, listeners, authentication
information objects and topics. What differs between kinds is data — a ``Kind``: its name
parameter, the parameter that gives its type (MQIA_Q_TYPE, MQIACH_CHANNEL_TYPE, ...), the
attribute list an inquiry takes, the list Inquire Names answers with, Copy's from/to names. The
attributes themselves come from the attribute table (``objects.attrs``) through ``params``, and
the changes go through ``engine.admin`` as MQSC's do, so a PCF command and its MQSC twin cannot
disagree."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mqlite.admin import params as p
from mqlite.admin.context import Admin
from mqlite.admin.params import CommandError
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.cmq.structs import pad
from mqlite.engine import admin
from mqlite.objects.attrs import CHLTYPE_VALUES, QTYPE_VALUES, TABLE
from mqlite.objects.model import MQObject
from mqlite.objects.names import generic_match

Handler = Callable[[Admin, pcf.Message], list[list[bytes]]]


@dataclass(frozen=True)
class Kind:
    """How PCF names one kind of object."""
    ns: str                                 # the namespace its definitions live in
    name: int                               # its name parameter
    width: int                              # the name's length in replies
    attrs: int                              # Inquire's list of attributes wanted
    names: int | None                       # Inquire Names' reply (None: MQ has no such command)
    copy: tuple[int, int]                   # Copy's from and to name parameters
    type_parm: int | None = None            # the parameter giving its type
    types: dict[str, int] = field(default_factory=dict)   # kind -> type_parm's value
    type_all: int | None = None             # type_parm's value for "every type" in an inquiry
    type_error: int = F.MQRCCF_PARM_VALUE_ERROR            # an unknown type
    type_attr: str | None = None            # the attribute type_parm sets (AUTHINFO's AUTHTYPE)
    names_types: int | None = None          # Inquire Names' list of types beside the names
    type_required: bool = True              # Create needs type_parm (when the kind has one)
    shown: dict[str, int] = field(default_factory=dict)   # kinds an inquiry reports that no PCF verb takes

    def kind_of(self, value: int, listed: bool = False) -> str:
        """The kind ``value`` of type_parm names (``listed``: an inquiry's, which may name ``shown``)."""
        if self.type_attr is not None:
            attr = TABLE.attrs(self.ns)[self.type_attr]
            if value not in attr.values.values():
                raise CommandError(self.type_error, self.type_parm or 0)
            return self.ns
        for kind, v in (self.types | self.shown if listed else self.types).items():
            if v == value:
                return kind
        raise CommandError(self.type_error, self.type_parm or 0)

    def type_value(self, obj: MQObject) -> int:
        if self.type_attr is not None:
            return int(obj[self.type_attr])
        value = self.types.get(obj.kind)
        return value if value is not None else self.shown[obj.kind]

    @property
    def control(self) -> frozenset[int]:
        """The command's own parameters, which are not attributes."""
        own = {self.name, self.attrs, *self.copy, F.MQIACF_REPLACE, F.MQIACF_PURGE, F.MQIACF_IGNORE_STATE}
        if self.type_parm is not None:
            own.add(self.type_parm)          # (an AUTHINFO's type is set from it by _values)
        return frozenset(own)


QUEUE = Kind("QUEUE", C.MQCA_Q_NAME, 48, F.MQIACF_Q_ATTRS, F.MQCACF_Q_NAMES,
             (F.MQCACF_FROM_Q_NAME, F.MQCACF_TO_Q_NAME), C.MQIA_Q_TYPE, dict(QTYPE_VALUES), C.MQQT_ALL,
             F.MQRCCF_Q_TYPE_ERROR, names_types=F.MQIACF_Q_TYPES)
CHANNEL = Kind("CHANNEL", F.MQCACH_CHANNEL_NAME, 20, F.MQIACF_CHANNEL_ATTRS, F.MQCACH_CHANNEL_NAMES,
               (F.MQCACF_FROM_CHANNEL_NAME, F.MQCACF_TO_CHANNEL_NAME), F.MQIACH_CHANNEL_TYPE,
               {k: v for k, v in CHLTYPE_VALUES.items() if k != "AMQP"}, C.MQCHT_ALL, F.MQRCCF_CHANNEL_TYPE_ERROR,
               shown={"AMQP": CHLTYPE_VALUES["AMQP"]})   # (defined with MQSC; an inquiry lists it)
NAMELIST = Kind("NAMELIST", C.MQCA_NAMELIST_NAME, 48, F.MQIACF_NAMELIST_ATTRS, F.MQCACF_NAMELIST_NAMES,
                (F.MQCACF_FROM_NAMELIST_NAME, F.MQCACF_TO_NAMELIST_NAME), types={"NAMELIST": 0})
LISTENER = Kind("LISTENER", F.MQCACH_LISTENER_NAME, 48, F.MQIACF_LISTENER_ATTRS, None,
                (F.MQCACF_FROM_LISTENER_NAME, F.MQCACF_TO_LISTENER_NAME), types={"LISTENER": 0})
AUTHINFO = Kind("AUTHINFO", C.MQCA_AUTH_INFO_NAME, 48, F.MQIACF_AUTH_INFO_ATTRS, F.MQCACF_AUTH_INFO_NAMES,
                (F.MQCACF_FROM_AUTH_INFO_NAME, F.MQCACF_TO_AUTH_INFO_NAME), C.MQIA_AUTH_INFO_TYPE,
                type_all=C.MQAIT_ALL, type_error=F.MQRCCF_PARM_VALUE_ERROR, type_attr="AUTHTYPE")
TOPIC = Kind("TOPIC", C.MQCA_TOPIC_NAME, 48, F.MQIACF_TOPIC_ATTRS, F.MQCACF_TOPIC_NAMES,
             (F.MQCACF_FROM_TOPIC_NAME, F.MQCACF_TO_TOPIC_NAME), C.MQIA_TOPIC_TYPE, {"TOPIC": C.MQTOPT_LOCAL},
             C.MQTOPT_ALL)
PROCESS = Kind("PROCESS", C.MQCA_PROCESS_NAME, 48, F.MQIACF_PROCESS_ATTRS, F.MQCACF_PROCESS_NAMES,
               (F.MQCACF_FROM_PROCESS_NAME, F.MQCACF_TO_PROCESS_NAME), types={"PROCESS": 0})
SERVICE = Kind("SERVICE", C.MQCA_SERVICE_NAME, 32, F.MQIACF_SERVICE_ATTRS, None,
               (F.MQCACF_FROM_SERVICE_NAME, F.MQCACF_TO_SERVICE_NAME), types={"SERVICE": 0})
COMMINFO = Kind("COMMINFO", C.MQCA_COMM_INFO_NAME, 48, F.MQIACF_COMM_INFO_ATTRS, None,
                (F.MQCACF_FROM_COMM_INFO_NAME, F.MQCACF_TO_COMM_INFO_NAME), C.MQIA_COMM_INFO_TYPE,
                type_error=F.MQRCCF_COMM_INFO_TYPE_ERROR, type_attr="TYPE", type_required=False)
KINDS = (QUEUE, CHANNEL, NAMELIST, LISTENER, AUTHINFO, TOPIC, PROCESS, SERVICE, COMMINFO)


# --- the handlers, made for a kind --------------------------------------------------------------
def _type(k: Kind, msg: pcf.Message, required: bool, listed: bool = False) -> str | None:
    """The kind the command's type parameter names (None: not given, or "all")."""
    if k.type_parm is None:
        return next(iter(k.types))
    value = msg.first(k.type_parm)
    if value is None:
        if required:
            raise CommandError(F.MQRCCF_PARM_COUNT_TOO_SMALL, k.type_parm)
        return None
    if k.type_all is not None and value == k.type_all and not required:
        return None
    return k.kind_of(value, listed)


def _values(k: Kind, msg: pcf.Message, kind: str) -> dict[str, Any]:
    values = p.values(msg, kind, k.control)
    if k.type_attr is not None and k.type_parm is not None and msg.first(k.type_parm) is not None:
        values[k.type_attr] = msg.first(k.type_parm)
    return values


def _existing(a: Admin, k: Kind, name: str, selector: int) -> MQObject:
    obj = a.qm.lookup(k.ns, name)
    if obj is None:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, selector)
    return obj


def create(k: Kind) -> Handler:
    def handler(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
        name = p.trimmed(p.need(msg, k.name))
        kind = _type(k, msg, required=k.type_required) or k.ns
        assert kind is not None
        replace = msg.first(F.MQIACF_REPLACE, F.MQRP_NO) == F.MQRP_YES
        a.run(admin.define, kind, name, _values(k, msg, kind), None, replace)
        return [[]]
    return handler


def copy(k: Kind) -> Handler:
    def handler(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
        src = p.trimmed(p.need(msg, k.copy[0]))
        name = p.trimmed(p.need(msg, k.copy[1]))
        source = _existing(a, k, src, k.copy[0])
        kind = _type(k, msg, required=False) or source.kind
        if kind != source.kind and k.type_attr is None:
            raise CommandError(F.MQRCCF_OBJECT_WRONG_TYPE, k.type_parm or 0)
        replace = msg.first(F.MQIACF_REPLACE, F.MQRP_NO) == F.MQRP_YES
        a.run(admin.define, kind, name, _values(k, msg, kind), src, replace)
        return [[]]
    return handler


def _target(a: Admin, k: Kind, msg: pcf.Message) -> tuple[str, MQObject, str]:
    """The existing definition a Change or Delete names: (name, definition, kind)."""
    name = p.trimmed(p.need(msg, k.name))
    obj = _existing(a, k, name, k.name)
    return name, obj, _type(k, msg, required=False) or obj.kind


def change(k: Kind) -> Handler:
    def handler(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
        name, obj, kind = _target(a, k, msg)
        if kind != obj.kind:
            raise CommandError(F.MQRCCF_OBJECT_WRONG_TYPE, k.type_parm or 0)
        values = _values(k, msg, kind)
        if k.type_attr is not None and values.pop(k.type_attr, obj[k.type_attr]) != obj[k.type_attr]:
            raise CommandError(F.MQRCCF_OBJECT_WRONG_TYPE, k.type_parm or 0)
        a.run(admin.alter, kind, name, values)
        return [[]]
    return handler


def delete(k: Kind) -> Handler:
    def handler(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
        name, _obj, kind = _target(a, k, msg)
        if k.ns == "QUEUE":
            a.run(admin.delete, kind, name, msg.first(F.MQIACF_PURGE, F.MQPO_NO) == F.MQPO_YES)
        else:
            a.run(admin.delete, kind, name)
        return [[]]
    return handler


def matching(a: Admin, k: Kind, msg: pcf.Message) -> list[MQObject]:
    """The definitions an inquiry's name (generic or not) and type select, in name order."""
    pattern = p.trimmed(p.need(msg, k.name))
    kind = _type(k, msg, required=False, listed=True) if k.type_parm is not None else None
    if kind is not None and k.type_attr is not None:
        want = msg.first(k.type_parm or 0)
        chosen = [o for n, o in sorted(a.qm.objects[k.ns].items())
                  if generic_match(pattern, n) and o[k.type_attr] == want]
    else:
        chosen = [o for n, o in sorted(a.qm.objects[k.ns].items())
                  if generic_match(pattern, n) and (kind is None or o.kind == kind)]
    if k.ns == "LISTENER" and msg.first(F.MQIACH_XMIT_PROTOCOL_TYPE) is not None:
        chosen = [o for o in chosen if o["TRPTYPE"] == msg.first(F.MQIACH_XMIT_PROTOCOL_TYPE)]
    if not chosen and "*" not in pattern:
        raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, k.name)
    return chosen


def inquire(k: Kind) -> Handler:
    def handler(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
        wanted = p.wanted(msg, k.attrs)
        out = []
        for obj in matching(a, k, msg):
            values = admin.display_values(a.qm, obj)
            if not p.passes(msg, obj.kind, values, {}):
                continue
            params = [pcf.enc_str(k.name, pad(obj.name, k.width))]
            if k.type_parm is not None and k.type_attr is None:
                params.append(pcf.enc_int(k.type_parm, k.type_value(obj)))
            out.append(params + p.encode_attrs(obj.kind, values, wanted))
        if not out:
            raise CommandError(C.MQRC_UNKNOWN_OBJECT_NAME, k.name)
        return out
    return handler


def inquire_names(k: Kind) -> Handler:
    assert k.names is not None
    names = k.names

    def handler(a: Admin, msg: pcf.Message) -> list[list[bytes]]:
        objs = matching(a, k, msg)
        params = [pcf.enc_str_list(names, [pad(o.name, k.width) for o in objs])]
        if k.names_types is not None:
            params.append(pcf.enc_int_list(k.names_types, [k.type_value(o) for o in objs]))
        return [params]
    return handler


def family(k: Kind, commands: dict[str, int]) -> dict[int, Handler]:
    """The handlers of a kind's commands, by MQCMD_* value (``commands``: verb -> command)."""
    makers: dict[str, Callable[[Kind], Handler]] = {
        "CREATE": create, "COPY": copy, "CHANGE": change, "DELETE": delete, "INQUIRE": inquire,
        "INQUIRE_NAMES": inquire_names}
    return {command: makers[verb](k) for verb, command in commands.items()}
