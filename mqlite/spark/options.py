"""The data source's options, its schema and columns, errors, and opening a queue."""
from __future__ import annotations

import difflib
import hashlib
import json
import logging
from dataclasses import dataclass
from typing import Any

from mqlite.paths import data_root

NAME = "mqlite"
LOG = logging.getLogger("mqlite.spark")

SCHEMA = ("body binary, text string, msg_id binary, correl_id binary, group_id binary, msg_seq_number int, "
          "put_timestamp timestamp, persistence int, priority int, format string, reply_to_q string, "
          "reply_to_qmgr string, user_identifier string, put_appl_name string, backout_count int, expiry int, "
          "queue string, qmgr string, position bigint, properties map<string,string>, msg_type int, report int, "
          "feedback int, msg_flags int, encoding int, ccsid int, property_values variant")

# Columns a write takes, with the MQMD field each one fills.
WRITABLE = {"correl_id": "CorrelId", "group_id": "GroupId", "msg_id": "MsgId", "msg_seq_number": "MsgSeqNumber",
            "msg_flags": "MsgFlags", "priority": "Priority", "persistence": "Persistence", "reply_to_q": "ReplyToQ",
            "reply_to_qmgr": "ReplyToQMgr", "format": "Format", "expiry": "Expiry", "msg_type": "MsgType",
            "report": "Report", "feedback": "Feedback", "encoding": "Encoding", "ccsid": "CodedCharSetId"}
BYTE_FIELDS = {"CorrelId", "GroupId", "MsgId", "ReplyToQ", "ReplyToQMgr", "Format"}
_REQUIRED = ("queueManager",)
# Every option the data source reads (Spark's option names are case-insensitive), and the ones
# Spark itself passes to a source (``load(path)``'s path).
KNOWN = ("queueManager", "queue", "topic", "channel", "conname", "user", "password", "mode", "batchSize",
         "instances", "bind", "maxMessagesPerTrigger", "writerId", "checkpointLocation", "partitionSize",
         "subscription", "startingOffsets", "endingOffsets", "selector", "failOnDataLoss", "pushFilters", "path")
BINDS = {"asqdef": 0, "open": 0x4000, "notfixed": 0x8000, "group": 0x400000}   # MQOO_BIND_*
READ_CHUNK = 5000            # messages per round trip when reading a range
GROUPED = 0x08 | 0x10       # MQMF_MSG_IN_GROUP | MQMF_LAST_MSG_IN_GROUP


class MQLiteError(Exception):
    """A failed MQ call or a bad option; the message starts with the MQ reason where there is one."""


def reason_text(e: Any) -> str:
    """``MQRC_NAME (number)`` of an MQMIError, or of a reason number."""
    from mqlite.pymqi.errors import RC_NAMES
    reason = e if isinstance(e, int) else e.reason
    name = RC_NAMES.get(reason, "")
    return f"{name} ({reason})" if name else f"reason {reason}"


def unknown(names: list[str]) -> None:
    """An option the data source does not read is refused, with the nearest known name: a typo
    (``maxMessagePerTrigger``) would otherwise be ignored and its default taken silently."""
    known = {k.lower(): k for k in KNOWN}
    for key in sorted(names):
        if key.lower() not in known:
            near = difflib.get_close_matches(key.lower(), known, n=1, cutoff=0.6)
            hint = f"; did you mean {known[near[0]]!r}?" if near else f" (its options: {', '.join(KNOWN[:-1])})"
            raise MQLiteError(f"option {key!r} is not an option of the {NAME} data source{hint}")


def _positive(opts: dict[str, str], key: str, default: int) -> int:
    try:
        n = int(opts.get(key.lower(), default))
    except ValueError:
        n = 0
    if n <= 0:
        raise MQLiteError(f"{key} must be a positive integer, not {opts.get(key.lower())!r}")
    return n


def _flag(opts: dict[str, str], key: str, default: bool) -> bool:
    value = opts.get(key.lower(), str(default)).strip().lower()
    if value not in ("true", "false"):
        raise MQLiteError(f"{key} must be true or false, not {opts.get(key.lower())!r}")
    return value == "true"


EARLIEST, LATEST = -2, -1        # Kafka's codes for the ends in startingOffsets/endingOffsets JSON


def offsets_option(opts: dict[str, str], key: str, default: str, ends: tuple[str, ...]) -> str:
    """startingOffsets/endingOffsets as the Kafka source takes them: ``earliest`` or ``latest``
    (those of ``ends`` the option allows), or JSON of a position per queue manager, where -2 is
    the earliest and -1 the latest; returned normalised (a word, or JSON with sorted keys)."""
    raw = opts.get(key.lower(), default).strip()
    if raw.lower() in ends:
        return raw.lower()
    try:
        given = json.loads(raw)
    except ValueError:
        given = None
    if not isinstance(given, dict) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= EARLIEST
                                              for v in given.values()):
        raise MQLiteError(f"{key} must be {' or '.join(repr(e) for e in ends)}, or JSON of a position per queue "
                          f'manager such as {{"QM1": 1200}} (-2 earliest, -1 latest), not {raw!r}')
    if key == "endingOffsets" and EARLIEST in given.values():
        raise MQLiteError('endingOffsets cannot be -2 (earliest): the read would end before it starts')
    return json.dumps({str(k): v for k, v in given.items()}, sort_keys=True)


def offset_for(option: str, qmgr: str, missing: int = EARLIEST) -> int:
    """An instance's position under a normalised startingOffsets/endingOffsets: EARLIEST or
    LATEST for the words, ``missing`` for a queue manager the JSON does not name (Kafka requires
    every partition; instances here are discovered by cluster reads, so the ones not named take
    the option's default end)."""
    if option == "earliest":
        return EARLIEST
    if option == "latest":
        return LATEST
    return int(json.loads(option).get(qmgr, missing))


@dataclass(frozen=True)
class Options:
    qmgr: str
    queue: str
    channel: str
    conname: str
    user: str
    password: str
    mode: str                     # reads: "browse" or "get"
    batch_size: int               # rows per Arrow batch
    instances: str                # "local" or "cluster"
    max_per_trigger: int          # 0: everything available
    bind: int                     # writes: MQOO_BIND_* for a cluster queue
    writer_id: str                # streaming writes: the name their committed batches are recorded under
    partition_size: int           # batch reads: messages per partition (a queue is split into ranges)
    topic: str = ""               # a topic string in place of a queue: streams subscribe, writes publish
    subscription: str = ""        # a topic stream's durable subscription (resumed when the query restarts)
    starting: str = "earliest"    # startingOffsets, normalised (offsets_option)
    ending: str = "latest"        # endingOffsets (batch reads)
    selector: str = ""            # an MQ selection string: reads see only the messages it selects
    fail_on_data_loss: bool = True   # a message counted when a range was planned and gone when read
    push_filters: bool = False    # batch reads take Spark's filters on descriptor columns as a selector

    @property
    def target(self) -> str:
        """What the options name, for messages: the queue, else the topic string."""
        return self.queue or f"topic {self.topic}"

    @staticmethod
    def of(options: Any) -> Options:
        unknown([str(k) for k in dict(options)])
        opts = {str(k).lower(): str(v) for k, v in dict(options).items()}
        missing = [k for k in _REQUIRED if k.lower() not in opts]
        if missing:
            raise MQLiteError(f"option {missing[0]!r} is required by the {NAME} data source")
        if ("queue" in opts) == ("topic" in opts):
            raise MQLiteError(f"the {NAME} data source needs one of the options 'queue' and 'topic'")
        mode = opts.get("mode", "browse").lower()
        if mode not in ("browse", "get"):
            raise MQLiteError(f"mode {mode!r} is not one of 'browse' (non-destructive) and 'get' (destructive)")
        instances = opts.get("instances", "local").lower()
        if instances not in ("local", "cluster"):
            raise MQLiteError(f"instances {instances!r} is not one of 'local' and 'cluster'")
        bind = opts.get("bind", "asqdef").lower().replace("_", "")
        if bind not in BINDS:
            raise MQLiteError(f"bind {bind!r} is not one of {', '.join(BINDS)}")
        if bool(opts.get("channel")) != bool(opts.get("conname")):
            raise MQLiteError("give channel and conname together (a client connection), or neither (bindings)")
        if instances == "cluster" and not opts.get("conname"):
            raise MQLiteError("instances 'cluster' needs a client connection (channel and conname)")
        per_trigger = _positive(opts, "maxMessagesPerTrigger", 1) if "maxmessagespertrigger" in opts else 0
        target = opts.get("queue") or opts["topic"]
        writer = opts.get("writerid") or (opts.get("checkpointlocation", "") and "spark-" + hashlib.sha1(
            (opts["checkpointlocation"] + "\0" + target).encode()).hexdigest()[:20])
        topic = opts.get("topic", "")
        subscription = opts.get("subscription") or (topic and "spark-" + hashlib.sha1(
            (opts["queuemanager"] + "\0" + topic).encode()).hexdigest()[:20])
        return Options(opts["queuemanager"], opts.get("queue", ""), opts.get("channel", ""), opts.get("conname", ""),
                       opts.get("user", ""), opts.get("password", ""), mode, _positive(opts, "batchSize", 10000),
                       instances, per_trigger, BINDS[bind], writer, _positive(opts, "partitionSize", 25000), topic,
                       subscription, offsets_option(opts, "startingOffsets", "earliest", ("earliest", "latest")),
                       offsets_option(opts, "endingOffsets", "latest", ("latest",)), opts.get("selector", "").strip(),
                       _flag(opts, "failOnDataLoss", True), _flag(opts, "pushFilters", False))

    def connect(self, qmgr: str = "", conname: str = "") -> Any:
        from mqlite import pymqi
        qmgr, conname = qmgr or self.qmgr, conname or self.conname
        try:
            if not self.channel:
                return pymqi.connect(qmgr)
            return pymqi.connect(qmgr, self.channel, conname, self.user or None, self.password or None)
        except pymqi.MQMIError as e:
            hint = ""
            if not self.channel and e.reason in (2058, 2059):
                # Local bindings reach a queue manager of this host's data directory only: an
                # executor elsewhere, or one without MQLITE_DATA, finds none.
                hint = (f" (local bindings reach only queue managers on this host under MQLITE_DATA="
                        f"{data_root()}: give executors "
                        "spark.executorEnv.MQLITE_DATA and run them on the queue manager's host, or "
                        "use a client connection with the channel and conname options)")
            raise MQLiteError(f"{reason_text(e)}: cannot connect to queue manager {qmgr} through "
                              f"{self.channel or 'local bindings'} {conname}".rstrip() + hint) from None


def abandon(conn: Any, backout: bool) -> None:
    """After a failure: the connection's unit of work backed out (MQDISC alone would commit it,
    as MQ does on a normal end) and the connection ended, quietly, so that the failure that
    brought us here is the one reported. A connection already broken needs neither: the queue
    manager backs its unit of work out."""
    from mqlite import pymqi
    for step in ((conn.backout,) if backout else ()) + (conn.disconnect,):
        try:
            step()
        except (pymqi.MQMIError, pymqi.PYIFError):
            pass


def open_queue(conn: Any, queue: str, options: int, qmgr: str, purpose: str, topic: str = "",
               selector: str = "") -> Any:
    """The queue (or, with ``topic``, the topic string, for publishing) opened; with ``selector``
    the handle sees only the messages that selection string selects (MQOD SelectionString)."""
    from mqlite import pymqi
    try:
        if topic:
            od = pymqi.OD(ObjectType=pymqi.CMQC.MQOT_TOPIC, Version=pymqi.CMQC.MQOD_VERSION_4)
            od.set_vs("ObjectString", topic)
            return pymqi.Queue(conn, od, pymqi.CMQC.MQOO_OUTPUT)
        if selector:
            od = pymqi.OD(ObjectName=queue.encode(), Version=pymqi.CMQC.MQOD_VERSION_4)
            od.set_vs("SelectionString", selector)
            return pymqi.Queue(conn, od, options)
        return pymqi.Queue(conn, queue, options)
    except pymqi.MQMIError as e:
        what = f"topic {topic}" if topic else f"queue {queue}"
        sel = f" with selector {selector!r}" if selector else ""
        raise MQLiteError(f"{reason_text(e)}: cannot open {what}{sel} on {qmgr} for {purpose}") from None


def subscribe(opts: Options) -> Options:
    """A topic stream's durable subscription, made or resumed (managed: the queue manager keeps
    the publications on a queue of its own); the options then name that queue, which the stream
    reads by position like any other."""
    from dataclasses import replace

    from mqlite import pymqi
    conn = opts.connect()
    try:
        sd = pymqi.SD(Options=pymqi.CMQC.MQSO_CREATE | pymqi.CMQC.MQSO_RESUME | pymqi.CMQC.MQSO_DURABLE
                      | pymqi.CMQC.MQSO_MANAGED)
        sd.set_vs("SubName", opts.subscription)
        sd.set_vs("ObjectString", opts.topic)
        sub = pymqi.Subscription(conn, sub_desc=sd)
        name = sub.get_sub_queue().inquire(pymqi.CMQC.MQCA_Q_NAME)
        sub.close(close_sub_queue=True)
    except pymqi.MQMIError as e:
        raise MQLiteError(f"{reason_text(e)}: cannot subscribe to {opts.topic} on {opts.qmgr} as "
                          f"{opts.subscription}") from None
    finally:
        conn.disconnect()
    return replace(opts, queue=name.decode().strip() if isinstance(name, bytes) else str(name).strip())
