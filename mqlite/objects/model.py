"""Object definitions and the system default objects crtmqm creates."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqlite.cmq import CMQC
from mqlite.objects.attrs import CHANNEL_TYPES, QUEUE_KINDS, TABLE

# The object namespaces: names are unique within each.
QUEUE, CHANNEL, NAMELIST, LISTENER, QMGR = "QUEUE", "CHANNEL", "NAMELIST", "LISTENER", "QMGR"
IDPWOS_DEFAULT = "SYSTEM.DEFAULT.AUTHINFO.IDPWOS"


def namespace(kind: str) -> str:
    if kind in QUEUE_KINDS:
        return QUEUE
    if kind in CHANNEL_TYPES:
        return CHANNEL
    return kind


@dataclass
class MQObject:
    """One definition: its kind (QLOCAL, SDR, NAMELIST, ...), name and attribute values."""

    kind: str
    name: str
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def objtype(self) -> str:
        return namespace(self.kind)

    def __getitem__(self, key: str) -> Any:
        return self.attrs[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.attrs.get(key, default)

    def copy(self, name: str | None = None) -> "MQObject":
        return MQObject(self.kind, name or self.name,
                        {k: (list(v) if isinstance(v, list) else v) for k, v in self.attrs.items()})

    def to_record(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "attrs": self.attrs}

    @classmethod
    def from_record(cls, rec: dict[str, Any]) -> "MQObject":
        obj = cls(rec["kind"], rec["name"], TABLE.defaults(rec["kind"]))
        obj.attrs.update(rec["attrs"])
        return obj


# Where DEFINE takes the attributes it is not given.
DEFAULT_OBJECT = {
    "QLOCAL": "SYSTEM.DEFAULT.LOCAL.QUEUE", "QMODEL": "SYSTEM.DEFAULT.MODEL.QUEUE",
    "QALIAS": "SYSTEM.DEFAULT.ALIAS.QUEUE", "QREMOTE": "SYSTEM.DEFAULT.REMOTE.QUEUE",
    "SDR": "SYSTEM.DEF.SENDER", "SVR": "SYSTEM.DEF.SERVER", "RCVR": "SYSTEM.DEF.RECEIVER",
    "RQSTR": "SYSTEM.DEF.REQUESTER", "SVRCONN": "SYSTEM.DEF.SVRCONN", "CLNTCONN": "SYSTEM.DEF.CLNTCONN",
    "CLUSSDR": "SYSTEM.DEF.CLUSSDR", "CLUSRCVR": "SYSTEM.DEF.CLUSRCVR", "AMQP": "SYSTEM.DEF.AMQP",
    "NAMELIST": "SYSTEM.DEFAULT.NAMELIST", "LISTENER": "SYSTEM.DEFAULT.LISTENER.TCP",
    "TOPIC": "SYSTEM.DEFAULT.TOPIC", "PROCESS": "SYSTEM.DEFAULT.PROCESS", "SERVICE": "SYSTEM.DEF.SERVICE",
    "COMMINFO": "SYSTEM.DEFAULT.COMMINFO.MULTICAST",
}

_XMITQ = {"USAGE": CMQC.MQUS_TRANSMISSION}

# The system objects crtmqm creates besides the defaults above: (kind, name, attribute overrides).
SYSTEM_OBJECTS: list[tuple[str, str, dict[str, Any]]] = [
    ("QLOCAL", "SYSTEM.DEFAULT.INITIATION.QUEUE", {"DESCR": "Default initiation queue"}),
    ("QLOCAL", "SYSTEM.DEAD.LETTER.QUEUE", {"DESCR": "IBM MQ Default Dead Letter Queue", "MAXDEPTH": 640000}),
    ("QLOCAL", "SYSTEM.ADMIN.COMMAND.QUEUE", {"DESCR": "IBM MQ Admin Command Queue"}),
    ("QLOCAL", "SYSTEM.CHANNEL.INITQ", {"DESCR": "IBM MQ Channel Initiation Queue"}),
    ("QLOCAL", "SYSTEM.CHANNEL.SYNCQ", {"DESCR": "IBM MQ Channel Synchronisation Queue", "DEFPSIST": 1}),
    ("QLOCAL", "SYSTEM.CLUSTER.COMMAND.QUEUE", {"DESCR": "IBM MQ Cluster Command Queue", "DEFPSIST": 1}),
    ("QLOCAL", "SYSTEM.CLUSTER.REPOSITORY.QUEUE", {"DESCR": "IBM MQ Cluster Repository Queue",
                                                   "DEFPSIST": 1, "MAXDEPTH": 999999999}),
    ("QLOCAL", "SYSTEM.CLUSTER.HISTORY.QUEUE", {"DESCR": "IBM MQ Cluster History Queue"}),
    ("QLOCAL", "SYSTEM.INTER.QMGR.PUBS", {"DESCR": "IBM MQ publications from other queue managers",
                                          "MAXDEPTH": 999999999}),
    ("QLOCAL", "SYSTEM.INTER.QMGR.CONTROL", {"DESCR": "IBM MQ publish/subscribe hierarchy control",
                                             "MAXDEPTH": 999999999}),
    ("QLOCAL", "SYSTEM.CLUSTER.TRANSMIT.QUEUE", {"DESCR": "IBM MQ Default XMITQ", "DEFPSIST": 1,
                                                 "MAXDEPTH": 999999999, **_XMITQ}),
    ("QMODEL", "SYSTEM.CLUSTER.TRANSMIT.MODEL.QUEUE", {"DESCR": "IBM MQ Cluster XMITQ model",
                                                       "DEFTYPE": CMQC.MQQDT_PERMANENT_DYNAMIC,
                                                       "DEFPSIST": 1, "MAXDEPTH": 999999999, **_XMITQ}),
    ("QMODEL", "SYSTEM.MQSC.REPLY.QUEUE", {"DESCR": "IBM MQ MQSC reply queue"}),
    # Where a queue manager reports on itself: its statistics and accounting messages, its event
    # messages (one queue per kind of event), activity reports and trace-route replies. Tools open
    # them whether or not anything is collected yet (DataDog's check reads the statistics queue
    # on every run; 2085 there fails the run).
    *[("QLOCAL", f"SYSTEM.ADMIN.{name}", {"DESCR": f"IBM MQ {descr}"}) for name, descr in (
        ("ACCOUNTING.QUEUE", "Accounting Queue"), ("ACTIVITY.QUEUE", "Activity Queue"),
        ("CHANNEL.EVENT", "Channel Event Queue"), ("COMMAND.EVENT", "Command Event Queue"),
        ("CONFIG.EVENT", "Configuration Event Queue"), ("LOGGER.EVENT", "Logger Event Queue"),
        ("PERFM.EVENT", "Performance Event Queue"), ("PUBSUB.EVENT", "Publish/Subscribe Event Queue"),
        ("QMGR.EVENT", "Queue Manager Event Queue"), ("STATISTICS.QUEUE", "Statistics Queue"),
        ("TRACE.ROUTE.QUEUE", "Trace Route Queue"), ("TRACE.ACTIVITY.QUEUE", "Activity Trace Queue"))],
    # The queues IBM's crtmqm makes for its own components on Linux (a published DISPLAY QLOCAL(*)
    # of an MQ 8/9 queue manager): the OAM's and CHLAUTH's stores, the pub/sub engine's state and
    # retained publications, the queued pub/sub broker's control queues, the XA and CICS bridges'
    # queues, AMS's policy queues, selection and internal replies. mqlite keeps that state in its
    # own store; the queues exist so that scripts and tools that name, alter or display them work
    # (their attributes are MQ's defaults: docs/mqsc.md lists the difference).
    *[("QLOCAL", f"SYSTEM.{name}", {}) for name in (
        "AUTH.DATA.QUEUE", "BROKER.CONTROL.QUEUE", "BROKER.INTER.BROKER.COMMUNICATIONS", "CHLAUTH.DATA.QUEUE",
        "CICS.INITIATION.QUEUE", "DOTNET.XARECOVERY.QUEUE", "DURABLE.SUBSCRIBER.QUEUE", "HIERARCHY.STATE",
        "INTER.QMGR.FANREQ", "INTERNAL.REPLY.QUEUE", "PENDING.DATA.QUEUE", "PROTECTION.ERROR.QUEUE",
        "PROTECTION.POLICY.QUEUE", "RETAINED.PUB.QUEUE", "SELECTION.EVALUATION.QUEUE",
        "SELECTION.VALIDATION.QUEUE")],
    ("QMODEL", "SYSTEM.DURABLE.MODEL.QUEUE", {"DESCR": "IBM MQ durable subscription model",
                                             "DEFTYPE": CMQC.MQQDT_PERMANENT_DYNAMIC}),
    ("SVRCONN", "SYSTEM.AUTO.SVRCONN", {}),
    # (no SYSTEM.ADMIN.SVRCONN: IBM's crtmqm does not make it; scripts DEFINE it without REPLACE)
    ("RCVR", "SYSTEM.AUTO.RECEIVER", {}),
    ("QMODEL", "SYSTEM.NDURABLE.MODEL.QUEUE", {"DESCR": "IBM MQ non-durable subscription model"}),
    # The root of the topic tree: every ASPARENT resolves to these in the end.
    ("TOPIC", "SYSTEM.BASE.TOPIC", {
        "DESCR": "Base topic for ASPARENT resolution", "PUB": CMQC.MQTA_PUB_ALLOWED, "SUB": CMQC.MQTA_SUB_ALLOWED,
        "DEFPSIST": CMQC.MQPER_NOT_PERSISTENT, "DEFPRTY": 0, "DEFPRESP": CMQC.MQPRT_SYNC_RESPONSE,
        "DURSUB": CMQC.MQSUB_DURABLE_ALLOWED, "MDURMDL": "SYSTEM.DURABLE.MODEL.QUEUE",
        "MNDURMDL": "SYSTEM.NDURABLE.MODEL.QUEUE", "PMSGDLV": CMQC.MQDLV_ALL_DUR, "NPMSGDLV": CMQC.MQDLV_ALL_AVAIL,
        "USEDLQ": CMQC.MQUSEDLQ_YES, "PUBSCOPE": CMQC.MQSCOPE_ALL, "SUBSCOPE": CMQC.MQSCOPE_ALL,
        "MCAST": CMQC.MQMC_DISABLED}),
    # The queued publish/subscribe interface's stream queues and the namelist that lists them, as
    # MQ's crtmqm makes them (MQ File Transfer's coordination set-up copies the default stream with
    # LIKE and adds its own to the namelist). mqlite has no queued pub/sub daemon reading them.
    ("QLOCAL", "SYSTEM.BROKER.DEFAULT.STREAM", {}),
    ("QLOCAL", "SYSTEM.BROKER.ADMIN.STREAM", {}),
    ("NAMELIST", "SYSTEM.QPUBSUB.QUEUE.NAMELIST", {
        "DESCR": "A list of queues for the queued Pub/Sub interface to monitor",
        "NAMES": ["SYSTEM.BROKER.DEFAULT.STREAM", "SYSTEM.BROKER.ADMIN.STREAM"]}),
    ("AUTHINFO", "SYSTEM.DEFAULT.AUTHINFO.CRLLDAP", {"AUTHTYPE": CMQC.MQAIT_CRL_LDAP}),
    ("AUTHINFO", "SYSTEM.DEFAULT.AUTHINFO.OCSP", {"AUTHTYPE": CMQC.MQAIT_OCSP}),
    # IBM MQ 9's default: the authenticated user becomes the connection's (ADOPTCTX(YES)).
    ("AUTHINFO", IDPWOS_DEFAULT, {"AUTHTYPE": CMQC.MQAIT_IDPW_OS, "ADOPTCTX": 1}),
    ("AUTHINFO", "SYSTEM.DEFAULT.AUTHINFO.IDPWLDAP", {"AUTHTYPE": CMQC.MQAIT_IDPW_LDAP}),
]


def system_default_objects() -> list[MQObject]:
    """Every object crtmqm creates, in creation order (defaults first)."""
    out: list[MQObject] = []
    for kind, name in DEFAULT_OBJECT.items():
        obj = MQObject(kind, name, TABLE.defaults(kind))
        if kind == "QMODEL":
            obj.attrs["DEFTYPE"] = CMQC.MQQDT_TEMPORARY_DYNAMIC
        out.append(obj)
    for kind, name, overrides in SYSTEM_OBJECTS:
        obj = MQObject(kind, name, TABLE.defaults(kind))
        obj.attrs.update(overrides)
        if kind == "NAMELIST":
            obj.attrs["NAMCOUNT"] = len(obj.attrs.get("NAMES", []))
        out.append(obj)
    return out
