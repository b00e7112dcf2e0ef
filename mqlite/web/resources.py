"""The administrative REST API's v1 queue resource (``/admin/qmgr/{qmgr}/queue[/{name}]``) as pure
functions over MQSC: the JSON attribute names declared once (``QUEUE``, ``STATUS``), a display's
fields turned into MQ's nested JSON (``queue_json``, ``status_json``), the ``attributes``,
``status`` and ``filter`` query parameters, and a POST or PATCH body turned into the DEFINE or
ALTER it stands for (``define_command``, ``alter_command``), every value checked and quoted as
the MQSC endpoint's are (web/mqsc.py), so a body cannot inject MQSC.

The names are IBM's, as its mqweb answers ``GET .../queue/Q1?attributes=*&status=*`` (transcripts
of MQ 9.2 in the wild): groups ``general``, ``storage``, ``trigger``, ``extended``,
``applicationDefaults``, ``cluster``, ``events``, ``dataCollection``, ``timestamps``, ``alias``,
``remote``; enumerations as camel-case words (``asQmgr``, ``nonPersistent``, ``onOpen``)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from collections.abc import Mapping
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.web.mqsc import BadRequest, quoted

# MQSC's queue types and the REST API's words for them.
TYPES = {"QLOCAL": "local", "QALIAS": "alias", "QREMOTE": "remote", "QMODEL": "model", "QCLUSTER": "cluster"}
QUALIFIER = {v: k for k, v in TYPES.items()}


@dataclass(frozen=True)
class Attr:
    """One JSON attribute: its ``group.name`` path, the MQSC keyword it is, and how its value
    reads: ``int``, ``str``, ``bool`` (``words`` = (the MQSC word for true, for false)), or
    ``enum`` (``words`` = pairs of MQSC word and JSON word)."""
    path: str
    key: str
    kind: str = "str"
    words: tuple[str, ...] = ()

    def to_json(self, raw: str) -> Any:
        if self.kind == "int":
            return int(raw) if re.fullmatch(r"-?\d+", raw) else raw
        if self.kind == "bool":
            return raw == self.words[0]
        if self.kind == "enum":
            return dict(zip(self.words[::2], self.words[1::2])).get(raw, raw.lower())
        return raw

    def to_mqsc(self, value: Any) -> str:
        """The MQSC keyword and value for a JSON value; a value of the wrong kind is BadRequest."""
        if self.kind == "int":
            if not isinstance(value, int) or isinstance(value, bool):
                raise _bad_value(self.path)
            return f"{self.key}({value})"
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise _bad_value(self.path)
            word = self.words[0] if value else self.words[1]
            return word if self.key == "" else f"{self.key}({word})"
        if self.kind == "enum":
            back = dict(zip(self.words[1::2], self.words[::2]))
            if not isinstance(value, str) or value not in back:
                raise _bad_value(self.path)
            return f"{self.key}({back[value]})"
        if not isinstance(value, str):
            raise _bad_value(self.path)
        return f"{self.key}({quoted(value)})"


def _bad_value(path: str) -> BadRequest:
    return BadRequest("MQWB0115E", f"The value given for the attribute {path} is not valid.")


QMGR_WORDS = ("QMGR", "asQmgr")
# The queue's attributes, in MQ's groups. A bare MQSC word (SHARE/NOSHARE, TRIGGER/NOTRIGGER) has
# an empty keyword and its two words. The events.serviceInterval pair is one MQSC attribute
# (QSVCIEV), handled by name.
QUEUE = (
    Attr("general.description", "DESCR"),
    Attr("general.inhibitPut", "PUT", "bool", ("DISABLED", "ENABLED")),
    Attr("general.inhibitGet", "GET", "bool", ("DISABLED", "ENABLED")),
    Attr("general.isTransmissionQueue", "USAGE", "bool", ("XMITQ", "NORMAL")),
    Attr("storage.maximumDepth", "MAXDEPTH", "int"),
    Attr("storage.maximumMessageLength", "MAXMSGL", "int"),
    Attr("storage.messageDeliverySequence", "MSGDLVSQ", "enum", ("PRIORITY", "priority", "FIFO", "fifo")),
    Attr("storage.nonPersistentMessageClass", "NPMCLASS", "enum", ("NORMAL", "normal", "HIGH", "high")),
    Attr("trigger.enabled", "", "bool", ("TRIGGER", "NOTRIGGER")),
    Attr("trigger.type", "TRIGTYPE", "enum", ("FIRST", "first", "EVERY", "every", "DEPTH", "depth",
                                              "NONE", "none")),
    Attr("trigger.depth", "TRIGDPTH", "int"),
    Attr("trigger.messagePriority", "TRIGMPRI", "int"),
    Attr("trigger.data", "TRIGDATA"),
    Attr("trigger.initiationQueueName", "INITQ"),
    Attr("trigger.processName", "PROCESS"),
    Attr("extended.allowSharedInput", "", "bool", ("SHARE", "NOSHARE")),
    Attr("extended.backoutThreshold", "BOTHRESH", "int"),
    Attr("extended.backoutRequeueQueueName", "BOQNAME"),
    Attr("extended.supportDistributionLists", "DISTL", "bool", ("YES", "NO")),
    Attr("extended.enableMediaImageOperations", "IMGRCOVQ", "enum", (*QMGR_WORDS, "YES", "yes", "NO", "no")),
    Attr("extended.custom", "CUSTOM"),
    Attr("applicationDefaults.putResponse", "DEFPRESP", "enum", ("SYNC", "synchronous", "ASYNC", "asynchronous")),
    Attr("applicationDefaults.messagePriority", "DEFPRTY", "int"),
    Attr("applicationDefaults.messagePersistence", "DEFPSIST", "enum", ("NO", "nonPersistent", "YES", "persistent")),
    Attr("applicationDefaults.clusterBind", "DEFBIND", "enum", ("OPEN", "onOpen", "NOTFIXED", "notFixed",
                                                                 "GROUP", "onGroup")),
    Attr("applicationDefaults.sharedInput", "DEFSOPT", "bool", ("SHARED", "EXCL")),
    Attr("applicationDefaults.readAhead", "DEFREADA", "enum", ("NO", "no", "YES", "yes", "DISABLED", "disabled")),
    Attr("applicationDefaults.messagePropertyControl", "PROPCTL", "enum", (
        "COMPAT", "compatible", "NONE", "none", "ALL", "all", "FORCE", "force", "V6COMPAT", "v6compatible")),
    Attr("cluster.name", "CLUSTER"),
    Attr("cluster.namelist", "CLUSNL"),
    Attr("cluster.workloadPriority", "CLWLPRTY", "int"),
    Attr("cluster.workloadRank", "CLWLRANK", "int"),
    Attr("cluster.workloadQueueUse", "CLWLUSEQ", "enum", (*QMGR_WORDS, "LOCAL", "local", "ANY", "any")),
    Attr("cluster.transmissionQueueForChannelName", "CLCHNAME"),
    Attr("events.depth.highEnabled", "QDPHIEV", "bool", ("ENABLED", "DISABLED")),
    Attr("events.depth.highPercentage", "QDEPTHHI", "int"),
    Attr("events.depth.lowEnabled", "QDPLOEV", "bool", ("ENABLED", "DISABLED")),
    Attr("events.depth.lowPercentage", "QDEPTHLO", "int"),
    Attr("events.depth.fullEnabled", "QDPMAXEV", "bool", ("ENABLED", "DISABLED")),
    Attr("events.serviceInterval.duration", "QSVCINT", "int"),
    Attr("dataCollection.accounting", "ACCTQ", "enum", (*QMGR_WORDS, "ON", "on", "OFF", "off")),
    Attr("dataCollection.monitoring", "MONQ", "enum", (*QMGR_WORDS, "OFF", "off", "LOW", "low",
                                                        "MEDIUM", "medium", "HIGH", "high")),
    Attr("dataCollection.statistics", "STATQ", "enum", (*QMGR_WORDS, "ON", "on", "OFF", "off")),
    Attr("alias.targetName", "TARGET"),
    Attr("alias.targetType", "TARGTYPE", "enum", ("QUEUE", "queue", "TOPIC", "topic")),
    Attr("remote.queueName", "RNAME"),
    Attr("remote.qmgrName", "RQMNAME"),
    Attr("remote.transmissionQueueName", "XMITQ"),
)
SERVICE_EVENTS = {"events.serviceInterval.highEnabled": "HIGH", "events.serviceInterval.okEnabled": "OK"}
TIMESTAMPS = {"timestamps.created": ("CRDATE", "CRTIME"), "timestamps.altered": ("ALTDATE", "ALTTIME"),
              "timestamps.clustered": ("CLUSDATE", "CLUSTIME")}
BY_PATH = {a.path: a for a in QUEUE}
GROUPS = sorted({p.split(".")[0] for p in [*BY_PATH, *SERVICE_EVENTS, *TIMESTAMPS]})

# DISPLAY QSTATUS TYPE(QUEUE)'s fields as the ``status`` object.
STATUS_INTS = {"currentDepth": "CURDEPTH", "openInputCount": "IPPROCS", "openOutputCount": "OPPROCS"}
STATUS_PATHS = ("currentDepth", "openInputCount", "openOutputCount", "uncommittedMessages", "oldestMessageAge",
                "lastGet", "lastPut", "onQueueTime", "monitoringRate", "mediaRecoveryLogExtent")
MONITORING = {"OFF": "off", "LOW": "low", "MEDIUM": "medium", "HIGH": "high", "QMGR": "asQmgr", "NONE": "off"}

_WORD = re.compile(r"\s*([A-Z][A-Z0-9]*)")


def words(text: str) -> dict[str, str]:
    """A display's ``KEY(value)`` fields and bare words (``SHARE``: the word as its own value),
    the value's padding trimmed. A value may hold balanced parentheses."""
    out: dict[str, str] = {}
    i, n = 0, len(text)
    while i < n:
        m = _WORD.match(text, i)
        if m is None:
            i += 1
            continue
        key, j = m.group(1), m.end()
        if j < n and text[j] == "(":
            depth, k = 1, j + 1
            while k < n and depth:
                depth += {"(": 1, ")": -1}.get(text[k], 0)
                k += 1
            out[key] = text[j + 1:k - 1].strip()
            i = k
        else:
            out[f"={key}"] = key                  # a bare word, kept apart from KEY(value)s
            i = j
    return out


def _stamp(date: str, time: str) -> str | None:
    """MQSC's local date and time (2021-03-04, 05.30.10) as the REST API's UTC ISO 8601 stamp."""
    if not date or not time:
        return None
    local = datetime.strptime(f"{date} {time}", "%Y-%m-%d %H.%M.%S").astimezone()
    return local.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _put(tree: dict[str, Any], path: str, value: Any) -> None:
    *groups, leaf = path.split(".")
    for g in groups:
        tree = tree.setdefault(g, {})
    tree[leaf] = value


def _bare(fields: dict[str, str], attr: Attr) -> str | None:
    for word in attr.words:
        if f"={word}" in fields:
            return word
    return None


def queue_json(fields: dict[str, str]) -> dict[str, Any]:
    """A DISPLAY QUEUE's fields (``words``) as the REST API's queue object, every group the
    queue's type has."""
    out: dict[str, Any] = {"name": fields["QUEUE"], "type": TYPES.get(fields.get("TYPE", ""), "local")}
    for a in QUEUE:
        raw = _bare(fields, a) if a.key == "" else fields.get(a.key)
        if raw is not None:
            _put(out, a.path, a.to_json(raw))
    if "QSVCIEV" in fields:
        for path, word in SERVICE_EVENTS.items():
            _put(out, path, fields["QSVCIEV"] == word)
    for path, (d, t) in TIMESTAMPS.items():
        stamp = _stamp(fields.get(d, ""), fields.get(t, ""))
        if stamp:
            _put(out, path, stamp)
    return out


def status_json(fields: dict[str, str]) -> dict[str, Any]:
    """A DISPLAY QSTATUS TYPE(QUEUE)'s fields as the ``status`` object. What monitoring does not
    give (MSGAGE and QTIME blank while it is off) is -1, as PCF reports MQMON_NOT_AVAILABLE; a
    queue never got from or put to has no ``lastGet`` or ``lastPut``."""
    out: dict[str, Any] = {k: int(fields.get(v) or 0) for k, v in STATUS_INTS.items()}
    uncom = fields.get("UNCOM", "NO")
    out["uncommittedMessages"] = 0 if uncom == "NO" else int(uncom) if uncom.isdigit() else 1
    age = fields.get("MSGAGE", "")
    out["oldestMessageAge"] = int(age) if age.isdigit() else -1
    for name, (d, t) in (("lastGet", ("LGETDATE", "LGETTIME")), ("lastPut", ("LPUTDATE", "LPUTTIME"))):
        stamp = _stamp(fields.get(d, ""), fields.get(t, ""))
        if stamp:
            out[name] = stamp
    short, _, long_ = fields.get("QTIME", "").partition(",")
    out["onQueueTime"] = {"shortSamplePeriod": int(short) if short.strip().isdigit() else -1,
                          "longSamplePeriod": int(long_) if long_.strip().isdigit() else -1}
    out["monitoringRate"] = MONITORING.get(fields.get("MONQ", "OFF"), "off")
    if fields.get("MEDIALOG"):
        out["mediaRecoveryLogExtent"] = fields["MEDIALOG"]
    return out


def wanted(param: str | None, groups: tuple[str, ...] | list[str], leaves: set[str], what: str) -> set[str] | None:
    """The ``attributes`` (or ``status``) query parameter as the set of paths to keep: None for
    all (``*``, or the status parameter's bare ``status``), else groups and ``group.name`` paths;
    an unknown one is BadRequest."""
    if param is None:
        return set()
    picked: set[str] = set()
    for item in (p.strip() for p in param.split(",")):
        if item == "*" or (what == "status" and item == "status"):
            return None
        if item in groups or item in leaves:
            picked.add(item)
        else:
            raise BadRequest("MQWB0116E", f"The {what} query parameter names '{item}', which is not one of the "
                                          f"resource's {'status attributes' if what == 'status' else 'attributes'}.")
    return picked


def project(obj: dict[str, Any], keep: set[str] | None, prefix: str = "") -> dict[str, Any]:
    """``obj`` with only the groups and paths in ``keep`` (all when None)."""
    if keep is None:
        return obj
    out: dict[str, Any] = {}
    for key, value in obj.items():
        path = f"{prefix}{key}"
        if path in keep:
            out[key] = value
        elif isinstance(value, dict) and any(k.startswith(path + ".") for k in keep):
            sub = project(value, keep, path + ".")
            if sub:
                out[key] = sub
    return out


OPERATORS = {"lessThan": lambda a, b: a < b, "greaterThan": lambda a, b: a > b,
             "lessThanOrEqualTo": lambda a, b: a <= b, "greaterThanOrEqualTo": lambda a, b: a >= b,
             "equalTo": lambda a, b: a == b, "notEqualTo": lambda a, b: a != b}


@dataclass(frozen=True)
class Filter:
    """``filter=path:operator:value`` (``status.currentDepth:greaterThan:0``); a string value may
    end in ``*`` (generic, equalTo and notEqualTo only)."""
    path: str
    op: str
    value: str

    @staticmethod
    def parse(text: str, known: set[str]) -> Filter:
        parts = text.split(":", 2)
        if len(parts) != 3 or parts[1] not in OPERATORS or parts[0] not in known:
            raise BadRequest("MQWB0117E", f"The filter '{text}' is not valid: it must be attribute:operator:value "
                                          f"with an operator of {', '.join(OPERATORS)}.")
        return Filter(*parts)

    def keeps(self, obj: dict[str, Any]) -> bool:
        value: Any = obj
        for part in self.path.split("."):
            if not isinstance(value, dict) or part not in value:
                return False
            value = value[part]
        want: Any = self.value
        if isinstance(value, bool):
            want = self.value.lower() == "true"
        elif isinstance(value, int):
            if not re.fullmatch(r"-?\d+", self.value):
                return False
            want = int(self.value)
        elif isinstance(value, str) and self.value.endswith("*") and self.op in ("equalTo", "notEqualTo"):
            hit = value.startswith(self.value[:-1])
            return hit if self.op == "equalTo" else not hit
        try:
            return bool(OPERATORS[self.op](value, want))
        except TypeError:
            return False


def _changes(body: dict[str, Any], qtype: str, current_svc: str) -> list[str]:
    """A body's attributes (``{"general": {"description": ...}, ...}``) as MQSC keywords for a
    queue of ``qtype``; ``name`` and ``type`` are the caller's."""
    out: list[str] = []
    svc = {"HIGH": False, "OK": False, **{current_svc: True}} if current_svc in ("HIGH", "OK") else \
        {"HIGH": False, "OK": False}
    touched = False
    for group, values in body.items():
        if group in ("name", "type"):
            continue
        if group not in GROUPS or group in ("timestamps", "status") or not isinstance(values, dict):
            raise BadRequest("MQWB0118E", f"The attribute '{group}' is not a queue attribute that can be set.")
        for path, value in _leaves(group, values):
            if path in SERVICE_EVENTS:
                if not isinstance(value, bool):
                    raise _bad_value(path)
                svc[SERVICE_EVENTS[path]] = value
                touched = True
            elif path in BY_PATH and _applies(BY_PATH[path], qtype):
                out.append(BY_PATH[path].to_mqsc(value))
            else:
                raise BadRequest("MQWB0118E", f"The attribute '{path}' is not one a {qtype} queue has that can "
                                              f"be set.")
    if touched:
        if svc["HIGH"] and svc["OK"]:
            raise BadRequest("MQWB0115E", "events.serviceInterval.highEnabled and okEnabled cannot both be true.")
        out.append(f"QSVCIEV({'HIGH' if svc['HIGH'] else 'OK' if svc['OK'] else 'NONE'})")
    return out


def _leaves(prefix: str, values: dict[str, Any]) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, value in values.items():
        path = f"{prefix}.{key}"
        if isinstance(value, dict):
            out += _leaves(path, value)
        else:
            out.append((path, value))
    return out


# Which groups a queue type has (MQSC refuses the others' keywords anyway; this says it first).
_ONLY = {"alias": ("alias.",), "remote": ("remote.",)}
_NOT = {"alias": ("storage.", "trigger.", "extended.", "events.", "dataCollection.", "remote.",
                  "general.isTransmissionQueue", "applicationDefaults.sharedInput", "cluster.workloadQueueUse",
                  "cluster.transmissionQueueForChannelName"),
        "remote": ("storage.", "trigger.", "extended.", "events.", "dataCollection.", "alias.", "general.inhibitGet",
                   "general.isTransmissionQueue", "applicationDefaults.sharedInput", "applicationDefaults.readAhead",
                   "applicationDefaults.messagePropertyControl", "cluster.workloadQueueUse",
                   "cluster.transmissionQueueForChannelName"),
        "local": ("alias.", "remote."), "model": ("alias.", "remote.", "cluster.", "applicationDefaults.clusterBind")}


def _applies(attr: Attr, qtype: str) -> bool:
    return not any(attr.path.startswith(p) for p in _NOT.get(qtype, ()))


def _name(name: Any) -> str:
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9._/%]{1,48}", name):
        raise BadRequest("MQWB0119E", "The queue name is missing or not a valid MQ object name.")
    return name


def define_command(body: dict[str, Any], like: str | None = None) -> str:
    """POST's body as DEFINE Qxxx('name') [LIKE('q')] attributes (the type ``local`` by default)."""
    name = _name(body.get("name"))
    qtype = body.get("type", "local")
    if qtype not in ("local", "alias", "remote", "model"):
        raise BadRequest("MQWB0115E", f"The queue type '{qtype}' cannot be created: local, alias, remote or model.")
    parts = [f"DEFINE {QUALIFIER[qtype]}({quoted(name)})"]
    if like is not None:
        parts.append(f"LIKE({quoted(_name(like))})")
    return " ".join(parts + _changes(body, qtype, ""))


def alter_command(name: str, qtype: str, body: dict[str, Any], current_svc: str) -> str:
    """PATCH's body as ALTER Qxxx('name') attributes for the queue's type (``type`` in the body,
    if given, must be the queue's)."""
    if body.get("type", qtype) != qtype or "name" in body and body["name"] != name:
        raise BadRequest("MQWB0118E", "The name and type of a queue cannot be changed.")
    changes = _changes(body, qtype, current_svc)
    if not changes:
        raise BadRequest("MQWB0118E", "The request body names no attribute to change.")
    return " ".join([f"ALTER {QUALIFIER[qtype]}({quoted(_name(name))})", *changes])


def all_paths() -> set[str]:
    """Every attribute path a filter may name (the status object's as ``status.x``)."""
    return {"name", "type", *BY_PATH, *SERVICE_EVENTS, *TIMESTAMPS,
            *(f"status.{p}" for p in STATUS_PATHS), "status.onQueueTime.shortSamplePeriod",
            "status.onQueueTime.longSamplePeriod"}


# DISPLAY QMSTATUS's fields as GET /admin/qmgr's ``status`` object (IBM's PCF equivalents table:
# started, channelInitiatorState, ldapConnectionState, connectionCount).
QMGR_STATUS = ("started", "channelInitiatorState", "ldapConnectionState", "connectionCount")
_CHINIT = {C.MQSVC_STATUS_STOPPED: "stopped", C.MQSVC_STATUS_STARTING: "starting",
           C.MQSVC_STATUS_RUNNING: "running", C.MQSVC_STATUS_STOPPING: "stopping"}
_LDAP = {F.MQLDAPC_CONNECTED: "connected", F.MQLDAPC_ERROR: "error", F.MQLDAPC_INACTIVE: "disconnected"}


def qmgr_status_json(values: Mapping[int, Any]) -> dict[str, Any]:
    """Inquire Queue Manager Status's answer as the qmgr resource's ``status``."""
    out: dict[str, Any] = {}
    started = _stamp(_text(values.get(F.MQCACF_Q_MGR_START_DATE, b"")), _text(values.get(F.MQCACF_Q_MGR_START_TIME, b"")))
    if started:
        out["started"] = started
    out["channelInitiatorState"] = _CHINIT.get(values.get(F.MQIACF_CHINIT_STATUS, C.MQSVC_STATUS_STOPPED), "stopped")
    out["ldapConnectionState"] = _LDAP.get(values.get(F.MQIACF_LDAP_CONNECTION_STATUS, F.MQLDAPC_INACTIVE),
                                           "disconnected")
    out["connectionCount"] = int(values.get(F.MQIACF_CONNECTION_COUNT, 0))
    return out


def _text(value: Any) -> str:
    return bytes(value).decode("utf-8", "replace").strip(" \0") if isinstance(value, (bytes, bytearray)) else str(value)


# The v1 channel resource (GET only, as MQ's): TCP message channels of these types. Its names as
# IBM documents them: ``{type}.connection`` (host and port from CONNAME) and
# ``{type}.transmissionQueueName`` always returned, and ``clusterRouting``.
CHANNEL_TYPES = {"SDR": "sender", "RCVR": "receiver", "SVR": "server", "RQSTR": "requester",
                 "CLUSSDR": "clusterSender", "CLUSRCVR": "clusterReceiver"}
CLUSTER_ROUTING = {"workloadPriority": "CLWLPRTY", "workloadRank": "CLWLRANK", "workloadWeight": "CLWLWGHT",
                   "networkPriority": "NETPRTY"}
_CONNECTION = re.compile(r"^\s*([^(),\s]+)\s*(?:\(\s*(\d+)\s*\))?\s*$")


def connections(conname: str) -> list[dict[str, Any]]:
    """CONNAME as ``connection``: one {host, port} per comma-separated address; [] when empty; one
    {host: the whole CONNAME} when it does not read as host(port) addresses."""
    if not conname.strip():
        return []
    out: list[dict[str, Any]] = []
    for part in conname.split(","):
        m = _CONNECTION.match(part)
        if m is None:
            return [{"host": conname}]
        out.append({"host": m.group(1)} | ({"port": int(m.group(2))} if m.group(2) else {}))
    return out


def channel_json(fields: dict[str, str]) -> dict[str, Any] | None:
    """A DISPLAY CHANNEL's fields as the channel object, or None for a channel the resource does
    not return (another type, or not TCP)."""
    kind = CHANNEL_TYPES.get(fields.get("CHLTYPE", ""))
    if kind is None or fields.get("TRPTYPE", "TCP") != "TCP":
        return None
    out: dict[str, Any] = {"name": fields["CHANNEL"], "type": kind}
    own: dict[str, Any] = {}
    if "CONNAME" in fields:
        own["connection"] = connections(fields["CONNAME"])
    if "XMITQ" in fields:
        own["transmissionQueueName"] = fields["XMITQ"]
    if own:
        out[kind] = own
    routing = {k: int(fields[v]) for k, v in CLUSTER_ROUTING.items() if fields.get(v, "").isdigit()}
    if routing:
        out["clusterRouting"] = routing
    return out
