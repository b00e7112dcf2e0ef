"""The attribute table: every object attribute declared once.

A declaration names the MQSC keyword, its type and limits, its default, the object kinds it
applies to, and its MQINQ/MQSET selector.  MQSC parsing and validation, DISPLAY output, MQINQ,
MQSET and storage all read this table; nothing else lists attributes.

Values are held internally as MQ holds them: enumerations as their MQ integer constants, strings
without padding, namelist names as a list of strings.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqlite.cmq import CMQC, CMQXC
from mqlite.cmq import CMQCFC as CH

# Object kinds -----------------------------------------------------------------------------------
QLOCAL, QMODEL, QALIAS, QREMOTE = "QLOCAL", "QMODEL", "QALIAS", "QREMOTE"
QMGR, NAMELIST, LISTENER, AUTHINFO, TOPIC = "QMGR", "NAMELIST", "LISTENER", "AUTHINFO", "TOPIC"
PROCESS, SERVICE, COMMINFO = "PROCESS", "SERVICE", "COMMINFO"
CHANNEL_TYPES = ("SDR", "SVR", "RCVR", "RQSTR", "CLNTCONN", "SVRCONN", "CLUSSDR", "CLUSRCVR", "AMQP")
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
CH_ALL = frozenset(CHANNEL_TYPES) - {"AMQP"}
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

ATTRS: list[Attr] = [
    # --- identity and dates (display only) ---
    Attr("DESCR", STR, Q_ALL, "", length=64, selector=S.MQCA_Q_DESC),
    Attr("DESCR", STR, QM, "", length=64, selector=S.MQCA_Q_MGR_DESC),
    Attr("DESCR", STR, NL, "", length=64, selector=S.MQCA_NAMELIST_DESC),
    Attr("DESCR", STR, LS, "", length=64),
    Attr("DESCR", STR, AI, "", length=64, selector=S.MQCA_AUTH_INFO_DESC),
    Attr("DESCR", STR, CH_ALL, "", length=64, selector=CH.MQCACH_DESC),
    Attr("CRDATE", STR, Q_ALL | QM, "", alterable=False, selector=S.MQCA_CREATION_DATE, length=12),
    Attr("CRTIME", STR, Q_ALL | QM, "", alterable=False, selector=S.MQCA_CREATION_TIME, length=8),
    Attr("DESCR", STR, TP, "", length=64, selector=S.MQCA_TOPIC_DESC),
    Attr("ALTDATE", STR, Q_ALL | QM | NL | LS | CH_ALL | AI | TP | PR | SV | CI, "", alterable=False,
         selector=S.MQCA_ALTERATION_DATE, length=12),
    Attr("ALTTIME", STR, Q_ALL | QM | NL | LS | CH_ALL | AI | TP | PR | SV | CI, "", alterable=False,
         selector=S.MQCA_ALTERATION_TIME, length=8),
    # --- queues: common ---
    Attr("PUT", ENUM, Q_ALL, CMQC.MQQA_PUT_ALLOWED, S.MQIA_INHIBIT_PUT, values=ENABLED_DISABLED_PUT, mqset=True),
    Attr("DEFPRTY", INT, Q_ALL, 0, S.MQIA_DEF_PRIORITY, hi=9),
    Attr("DEFPSIST", ENUM, Q_ALL, CMQC.MQPER_NOT_PERSISTENT, S.MQIA_DEF_PERSISTENCE, values=NO_YES),
    Attr("DEFPRESP", ENUM, Q_ALL, CMQC.MQPRT_SYNC_RESPONSE, S.MQIA_DEF_PUT_RESPONSE_TYPE,
         values=_enum(("SYNC", CMQC.MQPRT_SYNC_RESPONSE), ("ASYNC", CMQC.MQPRT_ASYNC_RESPONSE))),
    Attr("DEFREADA", ENUM, LMA, CMQC.MQREADA_NO, S.MQIA_DEF_READ_AHEAD,
         values=_enum(("NO", 0), ("YES", 1), ("DISABLED", 2))),
    Attr("PROPCTL", ENUM, LMA, CMQC.MQPROP_COMPATIBILITY, S.MQIA_PROPERTY_CONTROL,
         values=_enum(("COMPAT", CMQC.MQPROP_COMPATIBILITY), ("NONE", CMQC.MQPROP_NONE), ("ALL", CMQC.MQPROP_ALL),
                      ("FORCE", CMQC.MQPROP_FORCE_MQRFH2), ("V6COMPAT", CMQC.MQPROP_V6COMPAT))),
    Attr("CLUSTER", STR, LAR, "", S.MQCA_CLUSTER_NAME, length=48),
    Attr("CLUSNL", STR, LAR, "", S.MQCA_CLUSTER_NAMELIST, length=48),
    Attr("DEFBIND", ENUM, LAR, CMQC.MQBND_BIND_ON_OPEN, S.MQIA_DEF_BIND,
         values=_enum(("OPEN", 0), ("NOTFIXED", 1), ("GROUP", 2))),
    Attr("CLWLRANK", INT, LAR, 0, S.MQIA_CLWL_Q_RANK, hi=9),
    Attr("CLWLPRTY", INT, LAR, 0, S.MQIA_CLWL_Q_PRIORITY, hi=9),
    # --- local and model queues ---
    Attr("GET", ENUM, LMA, CMQC.MQQA_GET_ALLOWED, S.MQIA_INHIBIT_GET, values=ENABLED_DISABLED_GET, mqset=True),
    Attr("MAXDEPTH", INT, LM, 5000, S.MQIA_MAX_Q_DEPTH),
    Attr("MAXMSGL", INT, LM | QM, 4194304, S.MQIA_MAX_MSG_LENGTH, hi=104857600, defaults={QMGR: 4194304}),
    Attr("MAXMSGL", INT, CH_ALL, 4194304, CH.MQIACH_MAX_MSG_LENGTH, hi=104857600),
    Attr("SHARE", FLAG, LM, 1, S.MQIA_SHAREABILITY, flag_off="NOSHARE"),
    Attr("DEFSOPT", ENUM, LM, CMQC.MQOO_INPUT_SHARED, S.MQIA_DEF_INPUT_OPEN_OPTION,
         values=_enum(("SHARED", CMQC.MQOO_INPUT_SHARED), ("EXCL", CMQC.MQOO_INPUT_EXCLUSIVE))),
    Attr("QSGDISP", ENUM, Q_ALL, CMQC.MQQSGD_Q_MGR, S.MQIA_QSG_DISP, alterable=False,
         values=_enum(("QMGR", CMQC.MQQSGD_Q_MGR), ("COPY", CMQC.MQQSGD_COPY), ("SHARED", CMQC.MQQSGD_SHARED),
                      ("GROUP", CMQC.MQQSGD_GROUP))),
    Attr("CFSTRUCT", STR, LM, "", S.MQCA_CF_STRUC_NAME, length=12),
    Attr("MSGDLVSQ", ENUM, LM, CMQC.MQMDS_PRIORITY, S.MQIA_MSG_DELIVERY_SEQUENCE,
         values=_enum(("PRIORITY", CMQC.MQMDS_PRIORITY), ("FIFO", CMQC.MQMDS_FIFO))),
    Attr("USAGE", ENUM, LM, CMQC.MQUS_NORMAL, S.MQIA_USAGE,
         values=_enum(("NORMAL", CMQC.MQUS_NORMAL), ("XMITQ", CMQC.MQUS_TRANSMISSION))),
    Attr("BOTHRESH", INT, LM, 0, S.MQIA_BACKOUT_THRESHOLD),
    Attr("BOQNAME", STR, LM, "", S.MQCA_BACKOUT_REQ_Q_NAME, length=48),
    Attr("HARDENBO", FLAG, LM, 0, S.MQIA_HARDEN_GET_BACKOUT, flag_off="NOHARDENBO"),
    Attr("TRIGGER", FLAG, LM, 0, S.MQIA_TRIGGER_CONTROL, flag_off="NOTRIGGER", mqset=True),
    Attr("TRIGTYPE", ENUM, LM, CMQC.MQTT_FIRST, S.MQIA_TRIGGER_TYPE, mqset=True,
         values=_enum(("NONE", 0), ("FIRST", 1), ("EVERY", 2), ("DEPTH", 3))),
    Attr("TRIGDPTH", INT, LM, 1, S.MQIA_TRIGGER_DEPTH, lo=1, mqset=True),
    Attr("TRIGMPRI", INT, LM, 0, S.MQIA_TRIGGER_MSG_PRIORITY, hi=9, mqset=True),
    Attr("TRIGDATA", STR, LM, "", S.MQCA_TRIGGER_DATA, length=64, mqset=True),
    Attr("INITQ", STR, LM, "", S.MQCA_INITIATION_Q_NAME, length=48),
    Attr("PROCESS", STR, LM, "", S.MQCA_PROCESS_NAME, length=48),
    Attr("QDEPTHHI", INT, LM, 80, S.MQIA_Q_DEPTH_HIGH_LIMIT, hi=100),
    Attr("QDEPTHLO", INT, LM, 20, S.MQIA_Q_DEPTH_LOW_LIMIT, hi=100),
    Attr("RETINTVL", INT, LM, MAXINT, S.MQIA_RETENTION_INTERVAL),
    Attr("STATQ", ENUM, LM, S.MQMON_Q_MGR, S.MQIA_STATISTICS_Q, values=OFF_ON | {"QMGR": S.MQMON_Q_MGR}),
    Attr("ACCTQ", ENUM, LM, S.MQMON_Q_MGR, S.MQIA_ACCOUNTING_Q, values=OFF_ON | {"QMGR": S.MQMON_Q_MGR}),
    Attr("CAPEXPRY", INT, Q_ALL, S.MQCEX_NOLIMIT, S.MQIA_CAP_EXPIRY, lo=1, values=_enum(("NOLIMIT", S.MQCEX_NOLIMIT))),
    Attr("DISTL", ENUM, LM, 0, S.MQIA_DIST_LISTS, values=NO_YES),
    Attr("MAXFSIZE", INT, LM, S.MQQFS_DEFAULT, S.MQIA_MAX_Q_FILE_SIZE, lo=20, hi=267386880,
         values=_enum(("DEFAULT", S.MQQFS_DEFAULT))),
    Attr("IMGRCOVQ", ENUM, LM, S.MQIMGRCOV_AS_Q_MGR, S.MQIA_MEDIA_IMAGE_RECOVER_Q,
         values=IMGRCOV | {"QMGR": S.MQIMGRCOV_AS_Q_MGR}),
    Attr("NPMCLASS", ENUM, LM, S.MQNPM_CLASS_NORMAL, S.MQIA_NPM_CLASS,
         values=_enum(("NORMAL", S.MQNPM_CLASS_NORMAL), ("HIGH", S.MQNPM_CLASS_HIGH))),
    Attr("STREAMQ", STR, LMA, "", S.MQCA_STREAM_QUEUE_NAME, length=48),
    Attr("STRMQOS", ENUM, LMA, S.MQST_BEST_EFFORT, S.MQIA_STREAM_QUEUE_QOS,
         values=_enum(("BESTEF", S.MQST_BEST_EFFORT), ("MUSTDUP", S.MQST_MUST_DUP))),
    # Performance events and the service interval: kept, shown and answered; no events are raised.
    Attr("QDPHIEV", ENUM, LM, CH.MQEVR_DISABLED, S.MQIA_Q_DEPTH_HIGH_EVENT, values=ENABLED_DISABLED_EV),
    Attr("QDPLOEV", ENUM, LM, CH.MQEVR_DISABLED, S.MQIA_Q_DEPTH_LOW_EVENT, values=ENABLED_DISABLED_EV),
    Attr("QDPMAXEV", ENUM, LM, CH.MQEVR_ENABLED, S.MQIA_Q_DEPTH_MAX_EVENT, values=ENABLED_DISABLED_EV),
    Attr("QSVCINT", INT, LM, MAXINT, S.MQIA_Q_SERVICE_INTERVAL),
    Attr("QSVCIEV", ENUM, LM, CH.MQQSIE_NONE, S.MQIA_Q_SERVICE_INTERVAL_EVENT,
         values=_enum(("HIGH", CH.MQQSIE_HIGH), ("OK", CH.MQQSIE_OK), ("NONE", CH.MQQSIE_NONE))),
    # Online monitoring: a queue's MONQ (QMGR: the queue manager's) turns on MSGAGE and QTIME in
    # its status; a channel's MONCHL likewise for its status (engine/status.py).
    Attr("MONQ", ENUM, LM, S.MQMON_Q_MGR, S.MQIA_MONITORING_Q, values=MON_LEVELS | {"QMGR": S.MQMON_Q_MGR}),
    Attr("MONQ", ENUM, QM, S.MQMON_OFF, S.MQIA_MONITORING_Q, values=MON_LEVELS | {"NONE": S.MQMON_NONE}),
    Attr("MONCHL", ENUM, CH_MSG | {"SVRCONN"}, S.MQMON_Q_MGR, S.MQIA_MONITORING_CHANNEL,
         values=MON_LEVELS | {"QMGR": S.MQMON_Q_MGR}),
    Attr("MONCHL", ENUM, QM, S.MQMON_OFF, S.MQIA_MONITORING_CHANNEL, values=MON_LEVELS | {"NONE": S.MQMON_NONE}),
    Attr("STATCHL", ENUM, CH_MSG, S.MQMON_Q_MGR, S.MQIA_STATISTICS_CHANNEL, values=MON_LEVELS | {"QMGR": S.MQMON_Q_MGR}),
    Attr("SCOPE", ENUM, Q_ALL, CH.MQSCO_Q_MGR, S.MQIA_SCOPE,
         values=_enum(("QMGR", CH.MQSCO_Q_MGR), ("CELL", CH.MQSCO_CELL))),
    Attr("DEFTYPE", ENUM, LM, CMQC.MQQDT_PREDEFINED, S.MQIA_DEFINITION_TYPE,
         values=_enum(("PREDEFINED", 1), ("PERMDYN", 2), ("TEMPDYN", 3), ("SHAREDYN", 4)),
         defaults={QMODEL: CMQC.MQQDT_TEMPORARY_DYNAMIC}),
    Attr("CLCHNAME", STR, L, "", S.MQCA_CLUS_CHL_NAME, length=20, generic=True),
    Attr("CLWLUSEQ", ENUM, L | QM, CMQC.MQCLWL_USEQ_AS_Q_MGR, S.MQIA_CLWL_USEQ,
         values=_enum(("QMGR", CMQC.MQCLWL_USEQ_AS_Q_MGR), ("ANY", CMQC.MQCLWL_USEQ_ANY),
                      ("LOCAL", CMQC.MQCLWL_USEQ_LOCAL)),
         defaults={QMGR: CMQC.MQCLWL_USEQ_LOCAL}),
    Attr("CURDEPTH", INT, L, 0, S.MQIA_CURRENT_Q_DEPTH, alterable=False),
    Attr("IPPROCS", INT, L, 0, S.MQIA_OPEN_INPUT_COUNT, alterable=False),
    Attr("OPPROCS", INT, L, 0, S.MQIA_OPEN_OUTPUT_COUNT, alterable=False),
    # --- alias queues ---
    Attr("TARGET", STR, A, "", S.MQCA_BASE_OBJECT_NAME, length=48, synonyms=("TARGQ",)),
    Attr("TARGTYPE", ENUM, A, CMQC.MQOT_Q, 193, values=_enum(("QUEUE", CMQC.MQOT_Q), ("TOPIC", CMQC.MQOT_TOPIC))),
    # --- remote queues ---
    Attr("RNAME", STR, R, "", S.MQCA_REMOTE_Q_NAME, length=48),
    Attr("RQMNAME", STR, R, "", S.MQCA_REMOTE_Q_MGR_NAME, length=48),
    Attr("XMITQ", STR, R, "", S.MQCA_XMIT_Q_NAME, length=48),
    Attr("XMITQ", STR, CH_XMIT, "", CH.MQCACH_XMIT_Q_NAME, length=48),
    # --- queue manager ---
    Attr("DEADQ", STR, QM, "", S.MQCA_DEAD_LETTER_Q_NAME, length=48),
    Attr("DEFXMITQ", STR, QM, "", S.MQCA_DEF_XMIT_Q_NAME, length=48),
    Attr("MAXUMSGS", INT, QM, 10000, S.MQIA_MAX_UNCOMMITTED_MSGS, lo=1),
    Attr("MAXPRTY", INT, QM, 9, S.MQIA_MAX_PRIORITY, alterable=False),
    Attr("MAXHANDS", INT, QM, 256, S.MQIA_MAX_HANDLES),
    Attr("CCSID", INT, QM, 1208, S.MQIA_CODED_CHAR_SET_ID, lo=1, hi=65535),
    Attr("CMDLEVEL", INT, QM, 940, S.MQIA_COMMAND_LEVEL, alterable=False),
    Attr("VERSION", STR, QM, "09040000", S.MQCA_VERSION, length=8, alterable=False),
    Attr("PLATFORM", ENUM, QM, CMQC.MQPL_UNIX, S.MQIA_PLATFORM, values=_enum(("UNIX", CMQC.MQPL_UNIX)),
         alterable=False),
    Attr("CLWLMRUC", INT, QM, MAXINT, S.MQIA_CLWL_MRU_CHANNELS, lo=1),
    Attr("REPOS", STR, QM, "", S.MQCA_REPOSITORY_NAME, length=48),
    Attr("REPOSNL", STR, QM, "", S.MQCA_REPOSITORY_NAMELIST, length=48),
    Attr("DEFCLXQ", ENUM, QM, CH.MQCLXQ_SCTQ, S.MQIA_DEF_CLUSTER_XMIT_Q_TYPE,
         values=_enum(("SCTQ", CH.MQCLXQ_SCTQ), ("CHANNEL", CH.MQCLXQ_CHANNEL))),
    Attr("IGQ", ENUM, QM, CMQC.MQIGQ_DISABLED, S.MQIA_INTRA_GROUP_QUEUING,
         values=_enum(("ENABLED", CMQC.MQIGQ_ENABLED), ("DISABLED", CMQC.MQIGQ_DISABLED))),
    Attr("IGQAUT", ENUM, QM, CMQC.MQIGQPA_DEFAULT, S.MQIA_IGQ_PUT_AUTHORITY,
         values=_enum(("DEF", 1), ("CTX", 2), ("ONLYIGQ", 3), ("ALTIGQ", 4))),
    Attr("IGQUSER", STR, QM, "", S.MQCA_IGQ_USER_ID, length=12),
    Attr("SQQMNAME", ENUM, QM, CMQC.MQSQQM_USE, S.MQIA_SHARED_Q_Q_MGR_NAME,
         values=_enum(("USE", CMQC.MQSQQM_USE), ("IGNORE", CMQC.MQSQQM_IGNORE))),
    Attr("QSGNAME", STR, QM, "", S.MQCA_QSG_NAME, length=4, alterable=False),
    Attr("QMID", STR, QM, "", S.MQCA_Q_MGR_IDENTIFIER, alterable=False),
    Attr("SYNCPT", FLAG, QM, 1, S.MQIA_SYNCPOINT, alterable=False, flag_off="NOSYNCPT"),
    Attr("COMMANDQ", STR, QM, "SYSTEM.ADMIN.COMMAND.QUEUE", S.MQCA_COMMAND_INPUT_Q_NAME, alterable=False),
    Attr("TRIGINT", INT, QM, MAXINT, S.MQIA_TRIGGER_INTERVAL),
    Attr("DISTL", ENUM, QM, 1, S.MQIA_DIST_LISTS, values=NO_YES, alterable=False),
    Attr("CHLAUTH", ENUM, QM, CH.MQCHLA_ENABLED, S.MQIA_CHLAUTH_RECORDS,
         values=_enum(("ENABLED", CH.MQCHLA_ENABLED), ("DISABLED", CH.MQCHLA_DISABLED))),
    Attr("CONNAUTH", STR, QM, "", S.MQCA_CONN_AUTH, length=48),
    Attr("SSLKEYR", STR, QM, "", S.MQCA_SSL_KEY_REPOSITORY, length=256),
    Attr("CERTLABL", STR, QM, "", S.MQCA_CERT_LABEL, length=64),
    Attr("SCYCASE", ENUM, QM, 1, S.MQIA_SECURITY_CASE, values=_enum(("UPPER", 0), ("MIXED", 1)),
         alterable=False),
    # Events, statistics, accounting and activity recording (issue 36 gives each its effect; until
    # then they are kept, shown and answered: docs/mqsc.md lists them).
    *[Attr(name, ENUM, QM, default, sel, values=ENABLED_DISABLED_EV | extra) for name, default, sel, extra in (
        ("AUTHOREV", CH.MQEVR_DISABLED, S.MQIA_AUTHORITY_EVENT, {}),
        ("CHADEV", CH.MQEVR_DISABLED, S.MQIA_CHANNEL_AUTO_DEF_EVENT, {}),
        ("CHLEV", CH.MQEVR_DISABLED, S.MQIA_CHANNEL_EVENT, {"EXCEPTION": CH.MQEVR_EXCEPTION}),
        ("CMDEV", CH.MQEVR_DISABLED, S.MQIA_COMMAND_EVENT, {"NODISPLAY": CH.MQEVR_NO_DISPLAY}),
        ("CONFIGEV", CH.MQEVR_DISABLED, S.MQIA_CONFIGURATION_EVENT, {}),
        ("INHIBTEV", CH.MQEVR_DISABLED, S.MQIA_INHIBIT_EVENT, {}),
        ("LOCALEV", CH.MQEVR_DISABLED, S.MQIA_LOCAL_EVENT, {}),
        ("LOGGEREV", CH.MQEVR_DISABLED, S.MQIA_LOGGER_EVENT, {}),
        ("PERFMEV", CH.MQEVR_DISABLED, S.MQIA_PERFORMANCE_EVENT, {}),
        ("REMOTEEV", CH.MQEVR_DISABLED, S.MQIA_REMOTE_EVENT, {}),
        ("SSLEV", CH.MQEVR_DISABLED, S.MQIA_SSL_EVENT, {}),
        ("STRSTPEV", CH.MQEVR_ENABLED, S.MQIA_START_STOP_EVENT, {}))],
    Attr("STATINT", INT, QM, 1800, S.MQIA_STATISTICS_INTERVAL, lo=1, hi=604800),
    Attr("STATMQI", ENUM, QM, S.MQMON_OFF, S.MQIA_STATISTICS_MQI, values=OFF_ON),
    Attr("STATQ", ENUM, QM, S.MQMON_OFF, S.MQIA_STATISTICS_Q, values=OFF_ON | {"NONE": S.MQMON_NONE}),
    Attr("STATCHL", ENUM, QM, S.MQMON_OFF, S.MQIA_STATISTICS_CHANNEL, values=MON_LEVELS | {"NONE": S.MQMON_NONE}),
    Attr("STATACLS", ENUM, QM, S.MQMON_Q_MGR, S.MQIA_STATISTICS_AUTO_CLUSSDR,
         values=MON_LEVELS | {"QMGR": S.MQMON_Q_MGR}),
    Attr("ACCTINT", INT, QM, 1800, S.MQIA_ACCOUNTING_INTERVAL, lo=1, hi=604800),
    Attr("ACCTMQI", ENUM, QM, S.MQMON_OFF, S.MQIA_ACCOUNTING_MQI, values=OFF_ON),
    Attr("ACCTQ", ENUM, QM, S.MQMON_OFF, S.MQIA_ACCOUNTING_Q, values=OFF_ON | {"NONE": S.MQMON_NONE}),
    Attr("ACCTCONO", ENUM, QM, S.MQMON_DISABLED, S.MQIA_ACCOUNTING_CONN_OVERRIDE, values=DISABLED_ENABLED),
    Attr("MONACLS", ENUM, QM, S.MQMON_Q_MGR, S.MQIA_MONITORING_AUTO_CLUSSDR,
         values=MON_LEVELS | {"QMGR": S.MQMON_Q_MGR}),
    Attr("ACTIVREC", ENUM, QM, S.MQRECORDING_MSG, S.MQIA_ACTIVITY_RECORDING, values=RECORDING),
    Attr("ROUTEREC", ENUM, QM, S.MQRECORDING_MSG, S.MQIA_TRACE_ROUTE_RECORDING, values=RECORDING),
    Attr("ACTVTRC", ENUM, QM, S.MQMON_OFF, S.MQIA_ACTIVITY_TRACE, values=OFF_ON),
    Attr("ACTVCONO", ENUM, QM, S.MQMON_DISABLED, S.MQIA_ACTIVITY_CONN_OVERRIDE, values=DISABLED_ENABLED),
    # Kept, shown and answered with no effect in mqlite (docs/mqsc.md says why for each).
    Attr("ADVCAP", ENUM, QM, S.MQCAP_NOT_SUPPORTED, S.MQIA_ADVANCED_CAPABILITY, values=CAPABILITY,
         alterable=False),
    Attr("SPLCAP", ENUM, QM, S.MQCAP_NOT_SUPPORTED, S.MQIA_PROT_POLICY_CAPABILITY, values=CAPABILITY,
         alterable=False),
    Attr("AMQPCAP", ENUM, QM, S.MQCAP_NOT_SUPPORTED, S.MQIA_AMQP_CAPABILITY,
         values=_enum(("NO", S.MQCAP_NOT_SUPPORTED), ("YES", S.MQCAP_SUPPORTED))),
    Attr("CERTVPOL", ENUM, QM, S.MQ_CERT_VAL_POLICY_ANY, S.MQIA_CERT_VAL_POLICY,
         values=_enum(("ANY", S.MQ_CERT_VAL_POLICY_ANY), ("RFC5280", S.MQ_CERT_VAL_POLICY_RFC5280))),
    Attr("CHAD", ENUM, QM, S.MQCHAD_DISABLED, S.MQIA_CHANNEL_AUTO_DEF,
         values=_enum(("DISABLED", S.MQCHAD_DISABLED), ("ENABLED", S.MQCHAD_ENABLED))),
    Attr("CHADEXIT", STR, QM, "", S.MQCA_CHANNEL_AUTO_DEF_EXIT, length=128),
    Attr("CLWLEXIT", STR, QM, "", S.MQCA_CLUSTER_WORKLOAD_EXIT, length=128),
    Attr("CLWLDATA", STR, QM, "", S.MQCA_CLUSTER_WORKLOAD_DATA, length=32),
    Attr("CLWLLEN", INT, QM, 100, S.MQIA_CLUSTER_WORKLOAD_LENGTH),
    Attr("IMGINTVL", INT, QM, 60, S.MQIA_MEDIA_IMAGE_INTERVAL, lo=1),
    Attr("IMGLOGLN", INT, QM, S.MQMEDIMGLOGLN_OFF, S.MQIA_MEDIA_IMAGE_LOG_LENGTH, lo=1,
         values=_enum(("OFF", S.MQMEDIMGLOGLN_OFF))),
    Attr("IMGRCOVO", ENUM, QM, S.MQIMGRCOV_YES, S.MQIA_MEDIA_IMAGE_RECOVER_OBJ, values=IMGRCOV),
    Attr("IMGRCOVQ", ENUM, QM, S.MQIMGRCOV_YES, S.MQIA_MEDIA_IMAGE_RECOVER_Q, values=IMGRCOV),
    Attr("IMGSCHED", ENUM, QM, S.MQMEDIMGSCHED_MANUAL, S.MQIA_MEDIA_IMAGE_SCHEDULING,
         values=_enum(("MANUAL", S.MQMEDIMGSCHED_MANUAL), ("AUTO", S.MQMEDIMGSCHED_AUTO))),
    Attr("IPADDRV", ENUM, QM, S.MQIPADDR_IPV4, S.MQIA_IP_ADDRESS_VERSION,
         values=_enum(("IPV4", S.MQIPADDR_IPV4), ("IPV6", S.MQIPADDR_IPV6))),
    Attr("MARKINT", INT, QM, 5000, S.MQIA_MSG_MARK_BROWSE_INTERVAL, values=_enum(("NOLIMIT", -1))),
    Attr("MAXPROPL", INT, QM, S.MQPROP_UNRESTRICTED_LENGTH, S.MQIA_MAX_PROPERTIES_LENGTH, hi=104857600,
         values=_enum(("NOLIMIT", S.MQPROP_UNRESTRICTED_LENGTH))),
    Attr("REVDNS", ENUM, QM, CH.MQRDNS_ENABLED, S.MQIA_REVERSE_DNS_LOOKUP,
         values=_enum(("ENABLED", CH.MQRDNS_ENABLED), ("DISABLED", CH.MQRDNS_DISABLED))),
    Attr("SCHINIT", ENUM, QM, S.MQSVC_CONTROL_Q_MGR, S.MQIA_CHINIT_CONTROL, values=QMGR_MANUAL),
    Attr("SCMDSERV", ENUM, QM, S.MQSVC_CONTROL_Q_MGR, S.MQIA_CMD_SERVER_CONTROL, values=QMGR_MANUAL),
    Attr("SSLCRLNL", STR, QM, "", S.MQCA_SSL_CRL_NAMELIST, length=48),
    Attr("SSLCRYP", STR, QM, "", S.MQCA_SSL_CRYPTO_HARDWARE, length=256),
    Attr("SSLFIPS", ENUM, QM, S.MQSSL_FIPS_NO, S.MQIA_SSL_FIPS_REQUIRED, values=NO_YES),
    Attr("SSLRKEYC", INT, QM, 0, S.MQIA_SSL_RESET_COUNT),
    Attr("SUITEB", ENUM, QM, S.MQ_SUITE_B_NONE, S.MQIA_SUITE_B_STRENGTH, intlist=True,
         values=_enum(("NONE", S.MQ_SUITE_B_NONE), ("128_BIT", S.MQ_SUITE_B_128_BIT),
                      ("192_BIT", S.MQ_SUITE_B_192_BIT))),
    # --- authentication information (AUTHINFO) ---
    Attr("AUTHTYPE", ENUM, AI, CMQC.MQAIT_IDPW_OS, S.MQIA_AUTH_INFO_TYPE, alterable=False,
         values=_enum(("CRLLDAP", CMQC.MQAIT_CRL_LDAP), ("OCSP", CMQC.MQAIT_OCSP), ("IDPWOS", CMQC.MQAIT_IDPW_OS),
                      ("IDPWLDAP", CMQC.MQAIT_IDPW_LDAP))),
    Attr("CHCKCLNT", ENUM, AI, CH.MQCHK_REQUIRED_ADMIN, S.MQIA_CHECK_CLIENT_BINDING, values=CHECKS),
    Attr("CHCKLOCL", ENUM, AI, CH.MQCHK_OPTIONAL, S.MQIA_CHECK_LOCAL_BINDING, values=CHECKS),
    Attr("ADOPTCTX", ENUM, AI, CH.MQADPCTX_NO, S.MQIA_ADOPT_CONTEXT, values=NO_YES),
    Attr("FAILDLAY", INT, AI, 1, S.MQIA_AUTHENTICATION_FAIL_DELAY, hi=60),
    Attr("AUTHENMD", ENUM, AI, 0, S.MQIA_AUTHENTICATION_METHOD, values=_enum(("OS", 0), ("PAM", 1))),
    Attr("CONNAME", STR, AI, "", S.MQCA_AUTH_INFO_CONN_NAME, length=264),
    Attr("SECCOMM", ENUM, AI, 0, S.MQIA_LDAP_SECURE_COMM, values=_enum(("NO", 0), ("YES", 1), ("ANON", 2))),
    Attr("LDAPUSER", STR, AI, "", S.MQCA_LDAP_USER_NAME, length=1024),
    Attr("LDAPPWD", STR, AI, "", S.MQCA_LDAP_PASSWORD, length=32),
    Attr("SHORTUSR", STR, AI, "", S.MQCA_LDAP_SHORT_USER_FIELD, length=128),
    Attr("BASEDNU", STR, AI, "", S.MQCA_LDAP_BASE_DN_USERS, length=1024),
    Attr("CLASSUSR", STR, AI, "inetOrgPerson", S.MQCA_LDAP_USER_OBJECT_CLASS, length=128),
    Attr("USRFIELD", STR, AI, "", S.MQCA_LDAP_USER_ATTR_FIELD, length=128),
    Attr("AUTHORMD", ENUM, AI, 0, S.MQIA_LDAP_AUTHORMD,
         values=_enum(("OS", 0), ("SEARCHGRP", 1), ("SEARCHUSR", 2), ("SRCHGRPSN", 3))),
    Attr("BASEDNG", STR, AI, "", S.MQCA_LDAP_BASE_DN_GROUPS, length=1024),
    Attr("CLASSGRP", STR, AI, "groupOfNames", S.MQCA_LDAP_GROUP_OBJECT_CLASS, length=128),
    Attr("FINDGRP", STR, AI, "", S.MQCA_LDAP_FIND_GROUP_FIELD, length=128),
    Attr("GRPFIELD", STR, AI, "", S.MQCA_LDAP_GROUP_ATTR_FIELD, length=128),
    Attr("NESTGRP", ENUM, AI, 0, S.MQIA_LDAP_NESTGRP, values=_enum(("NO", 0), ("YES", 1))),
    Attr("OCSPURL", STR, AI, "", S.MQCA_AUTH_INFO_OCSP_URL, length=256),
    Attr("PARENT", STR, QM, "", S.MQCA_PARENT, length=48),
    Attr("PSCLUS", ENUM, QM, CMQC.MQPSCLUS_ENABLED, S.MQIA_PUBSUB_CLUSTER,
         values=_enum(("DISABLED", CMQC.MQPSCLUS_DISABLED), ("ENABLED", CMQC.MQPSCLUS_ENABLED))),
    # The queued publish/subscribe interface's tunables (kept and shown; mqlite has no such interface).
    Attr("PSNPMSG", ENUM, QM, CH.MQUNDELIVERED_DISCARD, S.MQIA_PUBSUB_NP_MSG,
         values=_enum(("DISCARD", CH.MQUNDELIVERED_DISCARD), ("KEEP", CH.MQUNDELIVERED_KEEP))),
    Attr("PSNPRES", ENUM, QM, CH.MQUNDELIVERED_NORMAL, S.MQIA_PUBSUB_NP_RESP,
         values=_enum(("NORMAL", CH.MQUNDELIVERED_NORMAL), ("SAFE", CH.MQUNDELIVERED_SAFE),
                      ("DISCARD", CH.MQUNDELIVERED_DISCARD), ("KEEP", CH.MQUNDELIVERED_KEEP))),
    Attr("PSSYNCPT", ENUM, QM, CH.MQSYNCPOINT_IFPER, S.MQIA_PUBSUB_SYNC_PT,
         values=_enum(("IFPER", CH.MQSYNCPOINT_IFPER), ("YES", CH.MQSYNCPOINT_YES))),
    Attr("PSRTYCNT", INT, QM, 5, S.MQIA_PUBSUB_MAXMSG_RETRY_COUNT, lo=0, hi=999999999),
    Attr("TREELIFE", INT, QM, 1800, S.MQIA_TREE_LIFE_TIME, lo=0, hi=604000),
    Attr("PSMODE", ENUM, QM, CMQC.MQPSM_ENABLED, S.MQIA_PUBSUB_MODE,
         values=_enum(("COMPAT", CMQC.MQPSM_COMPAT), ("DISABLED", CMQC.MQPSM_DISABLED), ("ENABLED", CMQC.MQPSM_ENABLED))),
    # --- topics: ASPARENT values are resolved up the topic tree (mqlite.pubsub.topics) ---
    Attr("TOPICSTR", STR, TP, "", S.MQCA_TOPIC_STRING, length=10240, alterable=False),
    Attr("PUB", ENUM, TP, CMQC.MQTA_PUB_AS_PARENT, S.MQIA_INHIBIT_PUB,
         values=_enum(("ASPARENT", CMQC.MQTA_PUB_AS_PARENT), ("ENABLED", CMQC.MQTA_PUB_ALLOWED),
                      ("DISABLED", CMQC.MQTA_PUB_INHIBITED))),
    Attr("SUB", ENUM, TP, CMQC.MQTA_SUB_AS_PARENT, S.MQIA_INHIBIT_SUB,
         values=_enum(("ASPARENT", CMQC.MQTA_SUB_AS_PARENT), ("ENABLED", CMQC.MQTA_SUB_ALLOWED),
                      ("DISABLED", CMQC.MQTA_SUB_INHIBITED))),
    Attr("DEFPSIST", ENUM, TP, CMQC.MQPER_PERSISTENCE_AS_PARENT, S.MQIA_TOPIC_DEF_PERSISTENCE,
         values=_enum(("ASPARENT", CMQC.MQPER_PERSISTENCE_AS_PARENT), ("NO", 0), ("YES", 1))),
    Attr("DEFPRTY", INT, TP, CMQC.MQPRI_PRIORITY_AS_PARENT, S.MQIA_DEF_PRIORITY, lo=0, hi=9,
         values=_enum(("ASPARENT", CMQC.MQPRI_PRIORITY_AS_PARENT))),
    Attr("DEFPRESP", ENUM, TP, CMQC.MQPRT_RESPONSE_AS_PARENT, S.MQIA_DEF_PUT_RESPONSE_TYPE,
         values=_enum(("ASPARENT", CMQC.MQPRT_RESPONSE_AS_PARENT), ("SYNC", CMQC.MQPRT_SYNC_RESPONSE),
                      ("ASYNC", CMQC.MQPRT_ASYNC_RESPONSE))),
    Attr("DURSUB", ENUM, TP, CMQC.MQSUB_DURABLE_AS_PARENT, S.MQIA_DURABLE_SUB,
         values=_enum(("ASPARENT", CMQC.MQSUB_DURABLE_AS_PARENT), ("YES", CMQC.MQSUB_DURABLE_ALLOWED),
                      ("NO", CMQC.MQSUB_DURABLE_INHIBITED))),
    Attr("MDURMDL", STR, TP, "", S.MQCA_MODEL_DURABLE_Q, length=48),
    Attr("MNDURMDL", STR, TP, "", S.MQCA_MODEL_NON_DURABLE_Q, length=48),
    Attr("PMSGDLV", ENUM, TP, CMQC.MQDLV_AS_PARENT, S.MQIA_PM_DELIVERY, values=DELIVERY),
    Attr("NPMSGDLV", ENUM, TP, CMQC.MQDLV_AS_PARENT, S.MQIA_NPM_DELIVERY, values=DELIVERY),
    Attr("PROXYSUB", ENUM, TP, CMQC.MQTA_PROXY_SUB_FIRSTUSE, S.MQIA_PROXY_SUB,
         values=_enum(("FIRSTUSE", CMQC.MQTA_PROXY_SUB_FIRSTUSE), ("FORCE", CMQC.MQTA_PROXY_SUB_FORCE))),
    Attr("WILDCARD", ENUM, TP, CMQC.MQTA_PASSTHRU, S.MQIA_WILDCARD_OPERATION,
         values=_enum(("PASSTHRU", CMQC.MQTA_PASSTHRU), ("BLOCK", CMQC.MQTA_BLOCK))),
    Attr("USEDLQ", ENUM, TP, CMQC.MQUSEDLQ_AS_PARENT, S.MQIA_USE_DEAD_LETTER_Q,
         values=_enum(("ASPARENT", CMQC.MQUSEDLQ_AS_PARENT), ("NO", CMQC.MQUSEDLQ_NO), ("YES", CMQC.MQUSEDLQ_YES))),
    Attr("CLUSTER", STR, TP, "", S.MQCA_CLUSTER_NAME, length=48),
    Attr("CLROUTE", ENUM, TP, CH.MQCLROUTE_DIRECT, S.MQIA_CLUSTER_PUB_ROUTE,
         values=_enum(("DIRECT", CH.MQCLROUTE_DIRECT), ("TOPICHOST", CH.MQCLROUTE_TOPIC_HOST))),
    Attr("PUBSCOPE", ENUM, TP, CMQC.MQSCOPE_AS_PARENT, S.MQIA_PUB_SCOPE, values=SCOPES),
    Attr("SUBSCOPE", ENUM, TP, CMQC.MQSCOPE_AS_PARENT, S.MQIA_SUB_SCOPE, values=SCOPES),
    Attr("COMMINFO", STR, TP, "", S.MQCA_COMM_INFO_NAME, length=48),
    Attr("MCAST", ENUM, TP, CMQC.MQMC_AS_PARENT, S.MQIA_MULTICAST,
         values=_enum(("ASPARENT", CMQC.MQMC_AS_PARENT), ("ENABLED", CMQC.MQMC_ENABLED),
                      ("DISABLED", CMQC.MQMC_DISABLED), ("ONLY", CMQC.MQMC_ONLY))),
    Attr("CUSTOM", STR, TP | Q_ALL | QM | CH_ALL, "", S.MQCA_CUSTOM, length=128),
    Attr("CAPEXPRY", INT, TP, S.MQCEX_AS_PARENT, S.MQIA_CAP_EXPIRY, lo=1,
         values=_enum(("ASPARENT", S.MQCEX_AS_PARENT), ("NOLIMIT", S.MQCEX_NOLIMIT))),
    # --- namelists ---
    Attr("NAMES", LIST, NL, [], S.MQCA_NAMES, length=48),
    Attr("NAMCOUNT", INT, NL, 0, S.MQIA_NAME_COUNT, alterable=False),
    # --- listeners ---
    Attr("TRPTYPE", ENUM, LS | CH_ALL, CMQC.MQXPT_TCP, CH.MQIACH_XMIT_PROTOCOL_TYPE,
         values=_enum(("TCP", CMQC.MQXPT_TCP), ("LU62", CMQC.MQXPT_LU62), ("NETBIOS", 3), ("SPX", 4))),
    Attr("PORT", INT, LS, 0, S.MQIA_LISTENER_PORT_NUMBER, hi=65535),
    Attr("IPADDR", STR, LS, "", CH.MQCACH_IP_ADDRESS, length=48),
    Attr("BACKLOG", INT, LS, 0, CH.MQIACH_BACKLOG),
    Attr("CONTROL", ENUM, LS, S.MQSVC_CONTROL_MANUAL, CH.MQIACH_LISTENER_CONTROL, values=SERVICE_CONTROL),
    # --- channels ---
    Attr("CONNAME", STR, CH_CONN, "", CH.MQCACH_CONNECTION_NAME, length=264),
    Attr("BATCHSZ", INT, CH_MSG, 50, CH.MQIACH_BATCH_SIZE, lo=1, hi=9999),
    Attr("PROPCTL", ENUM, CH_SEND, CMQC.MQPROP_COMPATIBILITY, S.MQIA_PROPERTY_CONTROL,
         values=_enum(("COMPAT", CMQC.MQPROP_COMPATIBILITY), ("NONE", CMQC.MQPROP_NONE), ("ALL", CMQC.MQPROP_ALL))),
    Attr("BATCHINT", INT, CH_SEND, 0, CH.MQIACH_BATCH_INTERVAL),
    Attr("BATCHHB", INT, CH_SEND, 0, CH.MQIACH_BATCH_HB, hi=999999),
    Attr("BATCHLIM", INT, CH_SEND, 5000, CH.MQIACH_BATCH_DATA_LIMIT),
    Attr("DISCINT", INT, CH_SEND | {"SVRCONN"}, 6000, CH.MQIACH_DISC_INTERVAL, hi=999999, defaults={"SVRCONN": 0}),
    Attr("HBINT", INT, CH_ALL, 300, CH.MQIACH_HB_INTERVAL, hi=999999, defaults={"SVRCONN": 300, "CLNTCONN": 300}),
    Attr("SHORTRTY", INT, CH_SEND, 10, CH.MQIACH_SHORT_RETRY),
    Attr("SHORTTMR", INT, CH_SEND, 60, CH.MQIACH_SHORT_TIMER),
    Attr("LONGRTY", INT, CH_SEND, MAXINT, CH.MQIACH_LONG_RETRY),
    Attr("LONGTMR", INT, CH_SEND, 1200, CH.MQIACH_LONG_TIMER),
    Attr("MRRTY", INT, CH_RECV, 10, CH.MQIACH_MR_COUNT),
    Attr("MRTMR", INT, CH_RECV, 1000, CH.MQIACH_MR_INTERVAL),
    Attr("USEDLQ", ENUM, CH_MSG, 2, S.MQIA_USE_DEAD_LETTER_Q, values=_enum(("NO", 1), ("YES", 2))),
    Attr("NPMSPEED", ENUM, CH_MSG, CMQC.MQNPMS_FAST, CH.MQIACH_NPM_SPEED,
         values=_enum(("NORMAL", CMQC.MQNPMS_NORMAL), ("FAST", CMQC.MQNPMS_FAST))),
    Attr("SEQWRAP", INT, CH_MSG, MAXINT, CH.MQIACH_SEQUENCE_NUMBER_WRAP, lo=100),
    Attr("MCAUSER", STR, CH_MSG | {"SVRCONN"}, "", CH.MQCACH_MCA_USER_ID, length=64),
    Attr("MCATYPE", ENUM, CH_SEND | {"RQSTR"}, 1, CH.MQIACH_MCA_TYPE, values=_enum(("PROCESS", 1), ("THREAD", 2)),
         defaults={"CLUSSDR": 2, "CLUSRCVR": 2}),
    Attr("PUTAUT", ENUM, CH_RECV | {"SVRCONN"}, 1, CH.MQIACH_PUT_AUTHORITY,
         values=_enum(("DEF", 1), ("CTX", 2), ("ONLYMCA", 3), ("ALTMCA", 4))),
    Attr("CONVERT", ENUM, CH_SEND, 0, CH.MQIACH_DATA_CONVERSION, values=NO_YES),
    Attr("CLWLRANK", INT, CH_CLUS, 0, CH.MQIACH_CLWL_CHANNEL_RANK, hi=9),
    Attr("CLWLPRTY", INT, CH_CLUS, 0, CH.MQIACH_CLWL_CHANNEL_PRIORITY, hi=9),
    Attr("CLWLWGHT", INT, CH_CLUS, 50, CH.MQIACH_CLWL_CHANNEL_WEIGHT, lo=1, hi=99),
    Attr("NETPRTY", INT, frozenset({"CLUSRCVR"}), 0, CH.MQIACH_NETWORK_PRIORITY, hi=9),
    Attr("SHARECNV", INT, CH_CLIENT, 10, CH.MQIACH_SHARING_CONVERSATIONS),
    Attr("MAXINST", INT, frozenset({"SVRCONN"}), MAXINT, CH.MQIACH_MAX_INSTANCES),
    Attr("MAXINSTC", INT, frozenset({"SVRCONN"}), MAXINT, CH.MQIACH_MAX_INSTS_PER_CLIENT),
    Attr("QMNAME", STR, frozenset({"CLNTCONN"}), "", S.MQCA_Q_MGR_NAME, length=48),
    Attr("CLNTWGHT", INT, frozenset({"CLNTCONN"}), 0, CH.MQIACH_CLIENT_CHANNEL_WEIGHT, hi=99),
    Attr("AFFINITY", ENUM, frozenset({"CLNTCONN"}), CMQXC.MQCAFTY_PREFERRED, CH.MQIACH_CONNECTION_AFFINITY,
         values=_enum(("PREFERRED", CMQXC.MQCAFTY_PREFERRED), ("NONE", CMQXC.MQCAFTY_NONE))),
    Attr("DEFRECON", ENUM, frozenset({"CLNTCONN"}), CMQXC.MQRCN_NO, CH.MQIACH_DEF_RECONNECT,
         values=_enum(("NO", CMQXC.MQRCN_NO), ("YES", CMQXC.MQRCN_YES), ("QMGR", CMQXC.MQRCN_Q_MGR),
                      ("DISABLED", CMQXC.MQRCN_DISABLED))),
    Attr("USERID", STR, frozenset({"SDR", "SVR", "RQSTR", "CLNTCONN"}), "", CH.MQCACH_USER_ID, length=12),
    Attr("PASSWORD", STR, frozenset({"SDR", "SVR", "RQSTR", "CLNTCONN"}), "", None, length=12),
    Attr("SSLCIPH", STR, CH_ALL, "", CH.MQCACH_SSL_CIPHER_SPEC, length=32),
    Attr("SSLCAUTH", ENUM, CH_ALL - {"CLNTCONN", "CLUSSDR"}, CMQXC.MQSCA_REQUIRED, CH.MQIACH_SSL_CLIENT_AUTH,
         values=_enum(("REQUIRED", CMQXC.MQSCA_REQUIRED), ("OPTIONAL", CMQXC.MQSCA_OPTIONAL))),
    Attr("SSLPEER", STR, CH_ALL, "", CH.MQCACH_SSL_PEER_NAME, length=1024),
    Attr("CERTLABL", STR, CH_ALL, "", S.MQCA_CERT_LABEL, length=64),
    Attr("LOCLADDR", STR, CH_CONN, "", CH.MQCACH_LOCAL_ADDRESS, length=48),
    # Exits, compression, LU 6.2 names and AMS policy protection: kept, shown and answered;
    # mqlite loads no exits, compresses nothing and has no LU 6.2 (docs/mqsc.md).
    *[Attr(name, STR, applies, "", sel, length=length) for name, applies, sel, length in (
        ("SCYEXIT", CH_ALL, CH.MQCACH_SEC_EXIT_NAME, 128), ("SCYDATA", CH_ALL, CH.MQCACH_SEC_EXIT_USER_DATA, 32),
        ("SENDEXIT", CH_ALL, CH.MQCACH_SEND_EXIT_NAME, 128), ("SENDDATA", CH_ALL, CH.MQCACH_SEND_EXIT_USER_DATA, 32),
        ("RCVEXIT", CH_ALL, CH.MQCACH_RCV_EXIT_NAME, 128), ("RCVDATA", CH_ALL, CH.MQCACH_RCV_EXIT_USER_DATA, 32),
        ("MSGEXIT", CH_MSG, CH.MQCACH_MSG_EXIT_NAME, 128), ("MSGDATA", CH_MSG, CH.MQCACH_MSG_EXIT_USER_DATA, 32),
        ("MREXIT", CH_RECV, CH.MQCACH_MR_EXIT_NAME, 128), ("MRDATA", CH_RECV, CH.MQCACH_MR_EXIT_USER_DATA, 32),
        ("MCANAME", CH_SEND | {"RQSTR"}, CH.MQCACH_MCA_NAME, 20),
        ("MODENAME", CH_CONN, CH.MQCACH_MODE_NAME, 8), ("TPNAME", CH_CONN, CH.MQCACH_TP_NAME, 64))],
    Attr("COMPHDR", ENUM, CH_ALL, CMQXC.MQCOMPRESS_NONE, CH.MQIACH_HDR_COMPRESSION, intlist=True,
         values=_enum(("NONE", CMQXC.MQCOMPRESS_NONE), ("SYSTEM", CMQXC.MQCOMPRESS_SYSTEM))),
    Attr("COMPMSG", ENUM, CH_ALL, CMQXC.MQCOMPRESS_NONE, CH.MQIACH_MSG_COMPRESSION, intlist=True,
         values=_enum(("NONE", CMQXC.MQCOMPRESS_NONE), ("RLE", CMQXC.MQCOMPRESS_RLE),
                      ("ZLIBFAST", CMQXC.MQCOMPRESS_ZLIBFAST), ("ZLIBHIGH", CMQXC.MQCOMPRESS_ZLIBHIGH),
                      ("LZ4FAST", CMQXC.MQCOMPRESS_LZ4FAST), ("LZ4HIGH", CMQXC.MQCOMPRESS_LZ4HIGH),
                      ("ANY", CMQXC.MQCOMPRESS_ANY))),
    Attr("SPLPROT", ENUM, frozenset({"SDR", "SVR", "RCVR", "RQSTR"}), CMQXC.MQSPL_PASSTHRU, CH.MQIACH_SPL_PROTECTION,
         values=_enum(("PASSTHRU", CMQXC.MQSPL_PASSTHRU), ("REMOVE", CMQXC.MQSPL_REMOVE),
                      ("ASPOLICY", CMQXC.MQSPL_AS_POLICY))),
    # KAINT: TCP keepalive's interval (AUTO: from the heartbeat interval); kept and shown, as on
    # distributed MQ, where it takes effect only on z/OS.
    Attr("KAINT", INT, CH_ALL, CMQXC.MQKAI_AUTO, CH.MQIACH_KEEP_ALIVE_INTERVAL, hi=99999,
         values={"AUTO": CMQXC.MQKAI_AUTO}),
    # --- process definitions (PROCESS): what a trigger message names (triggering: issue 36) ---
    Attr("DESCR", STR, PR, "", S.MQCA_PROCESS_DESC, length=64),
    Attr("APPLICID", STR, PR, "", S.MQCA_APPL_ID, length=256),
    Attr("APPLTYPE", INT, PR, CMQC.MQAT_UNIX, S.MQIA_APPL_TYPE, hi=999999999,
         values=_enum(("CICS", CMQC.MQAT_CICS), ("MVS", CMQC.MQAT_MVS), ("IMS", CMQC.MQAT_IMS),
                      ("OS2", CMQC.MQAT_OS2), ("DOS", CMQC.MQAT_DOS), ("UNIX", CMQC.MQAT_UNIX),
                      ("OS400", CMQC.MQAT_OS400), ("WINDOWS", CMQC.MQAT_WINDOWS),
                      ("WINDOWSNT", CMQC.MQAT_WINDOWS_NT), ("NSK", CMQC.MQAT_NSK),
                      ("NOTESAGENT", CMQC.MQAT_NOTES_AGENT), ("WLM", CMQC.MQAT_WLM), ("DEF", CMQC.MQAT_DEFAULT))),
    Attr("ENVRDATA", STR, PR, "", S.MQCA_ENV_DATA, length=128),
    Attr("USERDATA", STR, PR, "", S.MQCA_USER_DATA, length=128),
    # --- services (SERVICE): programs the queue manager starts and stops (issue 36) ---
    Attr("DESCR", STR, SV, "", S.MQCA_SERVICE_DESC, length=64),
    Attr("CONTROL", ENUM, SV, CMQC.MQSVC_CONTROL_MANUAL, S.MQIA_SERVICE_CONTROL, values=SERVICE_CONTROL),
    Attr("SERVTYPE", ENUM, SV, CMQC.MQSVC_TYPE_COMMAND, S.MQIA_SERVICE_TYPE,
         values=_enum(("SERVER", CMQC.MQSVC_TYPE_SERVER), ("COMMAND", CMQC.MQSVC_TYPE_COMMAND))),
    Attr("STARTCMD", STR, SV, "", S.MQCA_SERVICE_START_COMMAND, length=255),
    Attr("STARTARG", STR, SV, "", S.MQCA_SERVICE_START_ARGS, length=255),
    Attr("STOPCMD", STR, SV, "", S.MQCA_SERVICE_STOP_COMMAND, length=255),
    Attr("STOPARG", STR, SV, "", S.MQCA_SERVICE_STOP_ARGS, length=255),
    Attr("STDOUT", STR, SV, "", S.MQCA_STDOUT_DESTINATION, length=255),
    Attr("STDERR", STR, SV, "", S.MQCA_STDERR_DESTINATION, length=255),
    # --- multicast communication information (COMMINFO): kept and shown; mqlite has no
    # multicast transport, so none of it takes effect (docs/mqsc.md) ---
    Attr("DESCR", STR, CI, "", S.MQCA_COMM_INFO_DESC, length=64),
    Attr("TYPE", ENUM, CI, CMQC.MQCIT_MULTICAST, S.MQIA_COMM_INFO_TYPE,
         values=_enum(("MULTICAST", CMQC.MQCIT_MULTICAST))),
    Attr("GRPADDR", STR, CI, "239.0.0.0", CH.MQCACH_GROUP_ADDRESS, length=264),
    Attr("PORT", INT, CI, 1414, CH.MQIACH_PORT, lo=1, hi=65535),
    Attr("BRIDGE", ENUM, CI, CMQC.MQMCB_ENABLED, S.MQIA_MCAST_BRIDGE,
         values=_enum(("ENABLED", CMQC.MQMCB_ENABLED), ("DISABLED", CMQC.MQMCB_DISABLED))),
    Attr("CCSID", INT, CI, 0, S.MQIA_CODED_CHAR_SET_ID, hi=65535),
    Attr("COMMEV", ENUM, CI, CH.MQEVR_DISABLED, S.MQIA_COMM_EVENT,
         values=_enum(("DISABLED", CH.MQEVR_DISABLED), ("ENABLED", CH.MQEVR_ENABLED),
                      ("EXCEPTION", CH.MQEVR_EXCEPTION))),
    Attr("MCHBINT", INT, CI, 2000, CH.MQIACH_MC_HB_INTERVAL, hi=999999),
    Attr("MCPROP", ENUM, CI, CH.MQMCP_REPLY, CH.MQIACH_MULTICAST_PROPERTIES,
         values=_enum(("ALL", CH.MQMCP_ALL), ("REPLY", CH.MQMCP_REPLY), ("USER", CH.MQMCP_USER),
                      ("NONE", CH.MQMCP_NONE), ("COMPAT", CH.MQMCP_COMPAT))),
    Attr("MONINT", INT, CI, 60, S.MQIA_MONITOR_INTERVAL, hi=999999),
    Attr("MSGHIST", INT, CI, 100, CH.MQIACH_MSG_HISTORY, hi=999999999),
    Attr("NSUBHIST", ENUM, CI, CH.MQNSH_NONE, CH.MQIACH_NEW_SUBSCRIBER_HISTORY,
         values=_enum(("NONE", CH.MQNSH_NONE), ("ALL", CH.MQNSH_ALL))),
]

# Queue CLUSTER/CLUSNL and channel CLUSTER/CLUSNL share the keyword; give channels their own entries.
ATTRS += [
    Attr("CLUSTER", STR, CH_CLUS, "", S.MQCA_CLUSTER_NAME, length=48),
    Attr("CLUSNL", STR, CH_CLUS, "", S.MQCA_CLUSTER_NAMELIST, length=48),
]


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

    def known_anywhere(self, keyword: str) -> bool:
        return any(keyword in kw for kw in self.keywords.values())

    def defaults(self, kind: str) -> dict[str, Any]:
        return {name: a.default_for(kind) for name, a in self.by_kind[kind].items()}


TABLE = AttrTable(ATTRS)


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
            value = int(str(raw).strip())
        except ValueError:
            raise AttrError(f"Value for {attr.name} is not a number.") from None
        if not attr.lo <= value <= attr.hi:
            raise AttrError(f"Value {value} for {attr.name} is outside the range {attr.lo} to {attr.hi}.")
        return value
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
            if v:
                out.append(v)
        return out
    if attr.kind == FLAG:
        return 1 if raw else 0
    raise AssertionError(attr.kind)
