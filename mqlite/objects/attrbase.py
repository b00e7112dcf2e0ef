"""The attribute table's vocabulary and machinery: object kinds and the groups of them an
attribute applies to, the ``Attr`` declaration, the value words shared by many attributes, the
look-ups over a list of declarations (``AttrTable``) and the conversion of a value to its stored
form. The declarations themselves are in ``objects.attrs``, which re-exports these names."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqlite.cmq import CMQC, CMQXC
from mqlite.cmq import CMQCFC as CH

# Object kinds -----------------------------------------------------------------------------------
QLOCAL, QMODEL, QALIAS, QREMOTE = "QLOCAL", "QMODEL", "QALIAS", "QREMOTE"
QMGR, NAMELIST, LISTENER, AUTHINFO, TOPIC = "QMGR", "NAMELIST", "LISTENER", "AUTHINFO", "TOPIC"
PROCESS, SERVICE, COMMINFO = "PROCESS", "SERVICE", "COMMINFO"
CHANNEL_TYPES = ("SDR", "SVR", "RCVR", "RQSTR", "CLNTCONN", "SVRCONN", "CLUSSDR", "CLUSRCVR", "AMQP", "MQTT")


@dataclass(frozen=True)
class ProtocolChannel:
    """A kind of channel run by a protocol service of the queue manager's own rather than by an
    MCA: its service (server/protocols.py makes it), and what PURGE CHANNEL says of it."""
    service: str                # the SERVICE object that runs these channels
    client_state: str           # what PURGE CHANNEL discards of a client ("session", "state")
    purge_needs_client: bool    # PURGE CHANNEL of one needs CLIENTID (else: every client's)


# The protocol channel kinds (a new one: a row here, its service in server/protocols.py, its
# attributes in objects/attrs.py; docs/where.md).
PROTOCOL_CHANNELS = {"MQTT": ProtocolChannel("SYSTEM.MQXR.SERVICE", "session", True),
                     "AMQP": ProtocolChannel("SYSTEM.AMQP.SERVICE", "state", False)}

QUEUE_KINDS = (QLOCAL, QMODEL, QALIAS, QREMOTE)

Q_ALL = frozenset(QUEUE_KINDS)
LM = frozenset({QLOCAL, QMODEL})
LMA = frozenset({QLOCAL, QMODEL, QALIAS})
LAR = frozenset({QLOCAL, QALIAS, QREMOTE})
L = frozenset({QLOCAL})
M = frozenset({QMODEL})
A = frozenset({QALIAS})
R = frozenset({QREMOTE})
QM = frozenset({QMGR})
NL = frozenset({NAMELIST})
LS = frozenset({LISTENER})
AI = frozenset({AUTHINFO})
TP = frozenset({TOPIC})
PR = frozenset({PROCESS})
SV = frozenset({SERVICE})
CI = frozenset({COMMINFO})
CH_ALL = frozenset(CHANNEL_TYPES) - PROTOCOL_CHANNELS.keys()
MQTT = frozenset({"MQTT"})   # telemetry channels: their own attributes (MQ 9.4 DEFINE CHANNEL (MQTT))
AMQP = frozenset({"AMQP"})   # AMQP 1.0 channels: theirs (MQ 9.4 DEFINE CHANNEL (AMQP))
CH_MSG = frozenset({"SDR", "SVR", "RCVR", "RQSTR", "CLUSSDR", "CLUSRCVR"})
CH_SEND = frozenset({"SDR", "SVR", "CLUSSDR", "CLUSRCVR"})
CH_RECV = frozenset({"RCVR", "RQSTR", "CLUSSDR", "CLUSRCVR"})
CH_CONN = frozenset({"SDR", "SVR", "RQSTR", "CLNTCONN", "CLUSSDR", "CLUSRCVR"})
CH_CLUS = frozenset({"CLUSSDR", "CLUSRCVR"})
CH_XMIT = frozenset({"SDR", "SVR"})
CH_CLIENT = frozenset({"SVRCONN", "CLNTCONN"})

CHLTYPE_VALUES = {
    "SDR": CMQC.MQCHT_SENDER, "SVR": CMQC.MQCHT_SERVER, "RCVR": CMQC.MQCHT_RECEIVER,
    "RQSTR": CMQC.MQCHT_REQUESTER, "CLNTCONN": CMQC.MQCHT_CLNTCONN, "SVRCONN": CMQC.MQCHT_SVRCONN,
    "CLUSSDR": CMQC.MQCHT_CLUSSDR, "CLUSRCVR": CMQC.MQCHT_CLUSRCVR, "AMQP": CMQXC.MQCHT_AMQP,
    "MQTT": CMQXC.MQCHT_MQTT,
}
QTYPE_VALUES = {QLOCAL: CMQC.MQQT_LOCAL, QMODEL: CMQC.MQQT_MODEL, QALIAS: CMQC.MQQT_ALIAS,
                QREMOTE: CMQC.MQQT_REMOTE}

STR, INT, ENUM, FLAG, LIST = "str", "int", "enum", "flag", "list"
MAXINT = 999_999_999


@dataclass(frozen=True)
class Attr:
    name: str
    kind: str
    applies: frozenset[str]
    default: Any = None
    selector: int | None = None
    length: int = 0
    lo: int = 0
    hi: int = MAXINT
    values: dict[str, int] = field(default_factory=dict)
    flag_off: str = ""          # for FLAG attributes: the keyword meaning "off" (NOSHARE)
    synonyms: tuple[str, ...] = ()
    alterable: bool = True      # False: display only (CURDEPTH, CRDATE, QMID, ...)
    mqset: bool = False         # may be changed by MQSET
    defaults: dict[str, Any] = field(default_factory=dict)  # per-kind default overrides
    generic: bool = False        # value may hold * wildcards (CLCHNAME)
    intlist: bool = False        # PCF carries it as an integer list (MQCFIL) of one value (COMPHDR, SUITEB)

    def default_for(self, kind: str) -> Any:
        value = self.defaults.get(kind, self.default)
        return list(value) if isinstance(value, list) else value

    def word(self, value: int) -> str:
        """The MQSC word for an enumeration value."""
        for word, v in self.values.items():
            if v == value:
                return word
        return str(value)

    def render(self, value: Any) -> str:
        """The attribute as DISPLAY prints it: KEYWORD(value), or a bare keyword for flags."""
        if self.kind == FLAG:
            return self.name if value else self.flag_off
        if self.kind == ENUM:
            return f"{self.name}({self.word(value)})"
        if self.kind == LIST:
            inner = ",".join(value)
            return f"{self.name}({inner})"
        if self.kind == INT and self.values and value in self.values.values():
            return f"{self.name}({self.word(value)})"
        if self.kind == STR:
            if value == "":
                return f"{self.name}( )"
            return f"{self.name}({value})"
        return f"{self.name}({value})"


def _enum(*pairs: tuple[str, int]) -> dict[str, int]:
    return dict(pairs)


ENABLED_DISABLED_GET = _enum(("ENABLED", CMQC.MQQA_GET_ALLOWED), ("DISABLED", CMQC.MQQA_GET_INHIBITED))
ENABLED_DISABLED_PUT = _enum(("ENABLED", CMQC.MQQA_PUT_ALLOWED), ("DISABLED", CMQC.MQQA_PUT_INHIBITED))
NO_YES = _enum(("NO", 0), ("YES", 1))
SERVICE_CONTROL = _enum(("MANUAL", CMQC.MQSVC_CONTROL_MANUAL), ("QMGR", CMQC.MQSVC_CONTROL_Q_MGR),
                        ("STARTONLY", CMQC.MQSVC_CONTROL_Q_MGR_START))
MON_LEVELS = _enum(("OFF", CMQC.MQMON_OFF), ("LOW", CMQC.MQMON_LOW), ("MEDIUM", CMQC.MQMON_MEDIUM),
                   ("HIGH", CMQC.MQMON_HIGH))
ENABLED_DISABLED_EV = _enum(("ENABLED", CH.MQEVR_ENABLED), ("DISABLED", CH.MQEVR_DISABLED))
DELIVERY = _enum(("ASPARENT", CMQC.MQDLV_AS_PARENT), ("ALL", CMQC.MQDLV_ALL), ("ALLDUR", CMQC.MQDLV_ALL_DUR),
                 ("ALLAVAIL", CMQC.MQDLV_ALL_AVAIL))
SCOPES = _enum(("ASPARENT", CMQC.MQSCOPE_AS_PARENT), ("QMGR", CMQC.MQSCOPE_QMGR), ("ALL", CMQC.MQSCOPE_ALL))
CHECKS = _enum(("NONE", CH.MQCHK_NONE), ("OPTIONAL", CH.MQCHK_OPTIONAL), ("REQUIRED", CH.MQCHK_REQUIRED),
               ("REQDADM", CH.MQCHK_REQUIRED_ADMIN))
OFF_ON = _enum(("OFF", CMQC.MQMON_OFF), ("ON", CMQC.MQMON_ON))
DISABLED_ENABLED = _enum(("DISABLED", CMQC.MQMON_DISABLED), ("ENABLED", CMQC.MQMON_ENABLED))
RECORDING = _enum(("DISABLED", CMQC.MQRECORDING_DISABLED), ("MSG", CMQC.MQRECORDING_MSG),
                  ("QUEUE", CMQC.MQRECORDING_Q))
CAPABILITY = _enum(("DISABLED", CMQC.MQCAP_NOT_SUPPORTED), ("ENABLED", CMQC.MQCAP_SUPPORTED))
IMGRCOV = _enum(("NO", CMQC.MQIMGRCOV_NO), ("YES", CMQC.MQIMGRCOV_YES))
QMGR_MANUAL = _enum(("QMGR", CMQC.MQSVC_CONTROL_Q_MGR), ("MANUAL", CMQC.MQSVC_CONTROL_MANUAL))
S = CMQC


class AttrTable:
    """Look-ups over ATTRS by (kind, keyword) and by selector."""

    def __init__(self, attrs: list[Attr]) -> None:
        self.by_kind: dict[str, dict[str, Attr]] = {}
        self.keywords: dict[str, dict[str, Attr]] = {}   # kind -> keyword or synonym -> Attr
        self.selectors: dict[str, dict[int, Attr]] = {}
        kinds = set(QUEUE_KINDS) | {QMGR, NAMELIST, LISTENER, AUTHINFO, TOPIC, PROCESS, SERVICE, COMMINFO} \
            | set(CHANNEL_TYPES)
        for kind in kinds:
            self.by_kind[kind] = {}
            self.keywords[kind] = {}
            self.selectors[kind] = {}
        for a in attrs:
            for kind in a.applies:
                self.by_kind[kind][a.name] = a
                self.keywords[kind][a.name] = a
                for syn in a.synonyms:
                    self.keywords[kind][syn] = a
                if a.kind == FLAG:
                    self.keywords[kind][a.flag_off] = a
                if a.selector is not None:
                    self.selectors[kind][a.selector] = a

    def attrs(self, kind: str) -> dict[str, Attr]:
        return self.by_kind[kind]

    def lookup(self, kind: str, keyword: str) -> Attr | None:
        return self.keywords[kind].get(keyword)

    def by_selector(self, kind: str, selector: int) -> Attr | None:
        return self.selectors[kind].get(selector)

    def selector_anywhere(self, selector: int) -> bool:
        return any(selector in sels for sels in self.selectors.values())

    def defaults(self, kind: str) -> dict[str, Any]:
        return {name: a.default_for(kind) for name, a in self.by_kind[kind].items()}


class AttrError(ValueError):
    """A value that does not fit its attribute; ``msg`` is the MQSC-style explanation."""


def convert(attr: Attr, raw: Any) -> Any:
    """Turn a parsed MQSC value (or a Python value from PCF/MQSET) into the stored form."""
    if attr.kind == STR:
        value = str(raw).rstrip(" ")
        if len(value) > attr.length:
            raise AttrError(f"Value for {attr.name} is longer than {attr.length} characters.")
        return value
    if attr.kind == INT:
        if attr.values and str(raw).strip().upper() in attr.values:     # DEFPRTY(ASPARENT)
            return attr.values[str(raw).strip().upper()]
        if isinstance(raw, int) and raw in attr.values.values():
            return raw
        try:
            number = int(str(raw).strip())
        except ValueError:
            raise AttrError(f"Value for {attr.name} is not a number.") from None
        if not attr.lo <= number <= attr.hi:
            raise AttrError(f"Value {number} for {attr.name} is outside the range {attr.lo} to {attr.hi}.")
        return number
    if attr.kind == ENUM:
        if isinstance(raw, int):
            if raw in attr.values.values():
                return raw
            raise AttrError(f"Value {raw} is not valid for {attr.name}.")
        word = str(raw).strip().upper()
        if word not in attr.values:
            raise AttrError(f"Value {word} is not valid for {attr.name}.")
        return attr.values[word]
    if attr.kind == LIST:
        items = raw if isinstance(raw, list) else [raw]
        out = []
        for item in items:
            v = str(item).rstrip(" ")
            if len(v) > attr.length:
                raise AttrError(f"Name {v} in {attr.name} is longer than {attr.length} characters.")
            if attr.values:                     # a list of words (MQTT's PROTOCOL)
                v = v.upper()
                if v not in attr.values:
                    raise AttrError(f"Value {v} is not valid for {attr.name}.")
            if v:
                out.append(v)
        return out
    if attr.kind == FLAG:
        return 1 if raw else 0
    raise AssertionError(attr.kind)
