"""The PySpark data source ``mqlite``: queues as DataFrames, batch and streaming (issue 6).

    from mqlite.spark import register
    register(spark)                                   # spark.dataSource.register(MQLiteDataSource)
    opts = dict(queueManager="QM1", channel="APP.SVRCONN", conname="127.0.0.1(1414)", queue="ORDERS")
    df = spark.read.format("mqlite").options(**opts).load()                  # browse (mode "get": remove)
    stream = spark.readStream.format("mqlite").options(**opts).load()       # exactly once
    df.write.format("mqlite").options(**opts).mode("append").save()
    df.writeStream.format("mqlite").options(**opts).option("checkpointLocation", path).start()

Options mirror ``pymqi.connect`` (queueManager, channel, conname, user, password) plus ``queue``;
see docs/spark.md for the rest. Everything runs through the client API: the classes carry only
their options (Spark pickles them) and connect inside their methods.

Reading rests on the queue manager's *positions* (mqlite's stream extension): every message gets
a position when it is put, and ``stream_mark`` gives the end of a range no open unit of work can
still add to. A partition is one queue instance and a range [start, end) of positions, browsed
again identically if Spark replays it; a stream's ``commit(end)`` removes what lies below ``end``.

Writing prepares each task's puts as a two-phase unit of work in the queue manager; the driver's
``commit`` commits every task's unit in one transaction (for a stream, only if that batch id was
not committed before), ``abort`` backs them out. A failure is an exception whose message names
MQ's reason code, e.g. ``MQRC_UNKNOWN_OBJECT_NAME (2085)``.
"""
from __future__ import annotations

import datetime
import hashlib
import logging
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
    InputPartition,
    WriterCommitMessage,
)
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows, SupportsTriggerAvailableNow
from pyspark.sql.types import StructType

NAME = "mqlite"
LOG = logging.getLogger("mqlite.spark")

SCHEMA = ("body binary, text string, msg_id binary, correl_id binary, group_id binary, msg_seq_number int, "
          "put_timestamp timestamp, persistence int, priority int, format string, reply_to_q string, "
          "reply_to_qmgr string, user_identifier string, put_appl_name string, backout_count int, expiry int, "
          "queue string, qmgr string, position bigint")

# Columns a write takes, with the MQMD field each one fills.
WRITABLE = {"correl_id": "CorrelId", "group_id": "GroupId", "msg_id": "MsgId", "msg_seq_number": "MsgSeqNumber",
            "msg_flags": "MsgFlags", "priority": "Priority", "persistence": "Persistence", "reply_to_q": "ReplyToQ",
            "reply_to_qmgr": "ReplyToQMgr", "format": "Format", "expiry": "Expiry"}
_BYTES = {"CorrelId", "GroupId", "MsgId", "ReplyToQ", "ReplyToQMgr", "Format"}
_REQUIRED = ("queueManager", "queue")
_BINDS = {"asqdef": 0, "open": 0x4000, "notfixed": 0x8000, "group": 0x400000}   # MQOO_BIND_*
READ_CHUNK = 5000            # messages per round trip when reading a range
_GROUPED = 0x08 | 0x10       # MQMF_MSG_IN_GROUP | MQMF_LAST_MSG_IN_GROUP


class MQLiteError(Exception):
    """A failed MQ call or a bad option; the message starts with the MQ reason where there is one."""


def _reason_text(e: Any) -> str:
    """``MQRC_NAME (number)`` of an MQMIError, or of a reason number."""
    from mqlite import pymqi
    reason = e if isinstance(e, int) else e.reason
    name = pymqi.MQMIError._rc_names.get(reason, "")
    return f"{name} ({reason})" if name else f"reason {reason}"


def _positive(opts: dict[str, str], key: str, default: int) -> int:
    try:
        n = int(opts.get(key.lower(), default))
    except ValueError:
        n = 0
    if n <= 0:
        raise MQLiteError(f"{key} must be a positive integer, not {opts.get(key.lower())!r}")
    return n


@dataclass(frozen=True)
class _Options:
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

    @staticmethod
    def of(options: Any) -> _Options:
        opts = {str(k).lower(): str(v) for k, v in dict(options).items()}
        missing = [k for k in _REQUIRED if k.lower() not in opts]
        if missing:
            raise MQLiteError(f"option {missing[0]!r} is required by the {NAME} data source")
        mode = opts.get("mode", "browse").lower()
        if mode not in ("browse", "get"):
            raise MQLiteError(f"mode {mode!r} is not one of 'browse' (non-destructive) and 'get' (destructive)")
        instances = opts.get("instances", "local").lower()
        if instances not in ("local", "cluster"):
            raise MQLiteError(f"instances {instances!r} is not one of 'local' and 'cluster'")
        bind = opts.get("bind", "asqdef").lower().replace("_", "")
        if bind not in _BINDS:
            raise MQLiteError(f"bind {bind!r} is not one of {', '.join(_BINDS)}")
        if bool(opts.get("channel")) != bool(opts.get("conname")):
            raise MQLiteError("give channel and conname together (a client connection), or neither (bindings)")
        if instances == "cluster" and not opts.get("conname"):
            raise MQLiteError("instances 'cluster' needs a client connection (channel and conname)")
        per_trigger = _positive(opts, "maxMessagesPerTrigger", 1) if "maxmessagespertrigger" in opts else 0
        writer = opts.get("writerid") or (opts.get("checkpointlocation", "") and "spark-" + hashlib.sha1(
            (opts["checkpointlocation"] + "\0" + opts["queue"]).encode()).hexdigest()[:20])
        return _Options(opts["queuemanager"], opts["queue"], opts.get("channel", ""), opts.get("conname", ""),
                        opts.get("user", ""), opts.get("password", ""), mode, _positive(opts, "batchSize", 10000),
                        instances, per_trigger, _BINDS[bind], writer, _positive(opts, "partitionSize", 25000))

    def connect(self, qmgr: str = "", conname: str = "") -> Any:
        from mqlite import pymqi
        qmgr, conname = qmgr or self.qmgr, conname or self.conname
        try:
            if not self.channel:
                return pymqi.connect(qmgr)
            return pymqi.connect(qmgr, self.channel, conname, self.user or None, self.password or None)
        except pymqi.MQMIError as e:
            raise MQLiteError(f"{_reason_text(e)}: cannot connect to queue manager {qmgr} through "
                              f"{self.channel or 'local bindings'} {conname}".rstrip()) from None


def _open(conn: Any, queue: str, options: int, qmgr: str, purpose: str) -> Any:
    from mqlite import pymqi
    try:
        return pymqi.Queue(conn, queue, options)
    except pymqi.MQMIError as e:
        raise MQLiteError(f"{_reason_text(e)}: cannot open queue {queue} on {qmgr} for {purpose}") from None


class MQLiteDataSource(DataSource):
    """``spark.read``/``readStream`` ``.format("mqlite")`` and ``df.write``/``writeStream``."""

    @classmethod
    def name(cls) -> str:
        return NAME

    def schema(self) -> str:
        return SCHEMA

    def reader(self, schema: StructType) -> DataSourceReader:
        return _BatchReader(_Options.of(self.options), schema)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        opts = _Options.of(self.options)
        if opts.mode != "browse":
            raise MQLiteError("a stream removes messages when Spark commits them: leave mode at 'browse'")
        return _StreamReader(opts, schema)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        return _BatchWriter(*self._writing(schema, overwrite), uuid.uuid4().hex[:20])

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        opts, fields = self._writing(schema, overwrite)
        if not opts.writer_id:
            raise MQLiteError("a streaming write needs a checkpointLocation (or a writerId option) to record "
                              "its committed batches under")
        return _StreamWriter(opts, fields, opts.writer_id)

    def _writing(self, schema: StructType, overwrite: bool) -> tuple[_Options, list[str]]:
        if overwrite:
            raise MQLiteError("mode 'overwrite' would clear the queue; use mode 'append'")
        fields = [f.name for f in schema.fields]
        if "body" not in fields:
            raise MQLiteError("a DataFrame written to a queue needs a 'body' column")
        unknown = [f for f in fields if f != "body" and f not in WRITABLE]
        if unknown:
            raise MQLiteError(f"column {unknown[0]!r} is not a message field the {NAME} data source writes "
                              f"(body, {', '.join(sorted(WRITABLE))})")
        return _Options.of(self.options), fields


# --- reading -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Instance:
    """One queue manager that hosts the queue (the connected one, or a cluster instance)."""
    qmgr: str
    conname: str


@dataclass
class _Range(InputPartition):
    """Positions [start, end) of the queue on one instance; ``remove``: delete them once read."""
    qmgr: str
    conname: str
    queue: str
    start: int
    end: int
    remove: bool = False


def _instances(opts: _Options, conn: Any) -> list[_Instance]:
    """The queue's instances: the connected queue manager's own queue, or with instances=cluster
    every queue manager hosting the cluster queue, as the connected one's cluster cache (filled
    from a full repository when the queue is opened) knows them, each with its CLUSRCVR CONNAME."""
    if opts.instances == "local":
        return [_Instance(opts.qmgr, opts.conname)]
    from mqlite import pymqi
    from mqlite.cmq import CMQC as C
    from mqlite.cmq import CMQCFC as F
    q = _open(conn, opts.queue, C.MQOO_OUTPUT, opts.qmgr, "output (to look up its cluster instances)")
    q.close()
    pcf = pymqi.PCFExecute(conn)
    try:
        (reply,) = pcf.MQCMD_ESCAPE({F.MQIACF_ESCAPE_TYPE: F.MQET_MQSC,
                                     F.MQCACF_ESCAPE_TEXT: f"DISPLAY QCLUSTER({opts.queue}) CLUSQMGR".encode()})
        text = reply[F.MQCACF_ESCAPE_TEXT].decode(errors="replace")
        names = sorted(set(re.findall(r"CLUSQMGR\(([^)]*)\)", text)))
        out = []
        for name in names:
            rows = pcf.MQCMD_INQUIRE_CLUSTER_Q_MGR({C.MQCA_CLUSTER_Q_MGR_NAME: name.encode()})
            conname = next((r[F.MQCACH_CONNECTION_NAME].decode().strip() for r in rows
                            if r.get(F.MQCACH_CONNECTION_NAME, b"").strip()), "")
            out.append(_Instance(name, opts.conname if name == opts.qmgr else conname))
    except pymqi.MQMIError as e:
        raise MQLiteError(f"{_reason_text(e)}: cannot list the cluster instances of {opts.queue}") from None
    finally:
        pcf._reply_queue.close()
    if not out:
        raise MQLiteError(f"MQRC_UNKNOWN_OBJECT_NAME (2085): {opts.queue} has no cluster instances known to "
                          f"{opts.qmgr}")
    return out


def _read_range(opts: _Options, schema: StructType, part: _Range) -> Iterator[Any]:
    """Arrow record batches of the messages in the partition's range (executor side)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    from mqlite import pymqi
    from mqlite.cmq import CMQC as C
    columns = [f.name for f in schema.fields]
    arrow = to_arrow_schema(schema, timezone="UTC")
    conn = opts.connect(part.qmgr, part.conname)
    try:
        access = C.MQOO_BROWSE | (C.MQOO_INPUT_SHARED if part.remove else 0)
        q = _open(conn, part.queue, access, part.qmgr, "reading")
        pending: list[tuple[int, bytes, bytes]] = []
        start = part.start
        while start < part.end:
            try:
                batch = q.stream_read(start, part.end, min(opts.batch_size, READ_CHUNK))
            except pymqi.MQMIError as e:
                raise MQLiteError(f"{_reason_text(e)}: reading {part.queue} on {part.qmgr} failed") from None
            if not batch:
                break
            pending += batch
            start = batch[-1][0] + 1
            if len(pending) >= opts.batch_size:
                yield pa.RecordBatch.from_pydict(_columns(pending, part.queue, part.qmgr, columns), schema=arrow)
                pending = []
        if pending:
            yield pa.RecordBatch.from_pydict(_columns(pending, part.queue, part.qmgr, columns), schema=arrow)
        if part.remove:
            # mode "get": the range goes once every row of it has been handed to Spark.
            try:
                q.stream_delete(part.end, part.start)
            except pymqi.MQMIError as e:
                raise MQLiteError(f"{_reason_text(e)}: removing what was read from {part.queue} failed") from None
        q.close()
    finally:
        conn.disconnect()


class _BatchReader(DataSourceReader):
    def __init__(self, opts: _Options, schema: StructType) -> None:
        self.opts = opts
        self.schema = schema

    def partitions(self) -> list[InputPartition]:
        """Everything stable on each instance now, split into ranges of ``partitionSize`` messages
        (the driver marks the boundaries; executors read the ranges in parallel)."""
        from mqlite.cmq import CMQC as C
        conn = self.opts.connect()
        try:
            parts: list[InputPartition] = []
            for inst in _instances(self.opts, conn):
                c = conn if inst.qmgr == self.opts.qmgr else self.opts.connect(inst.qmgr, inst.conname)
                try:
                    q = _open(c, self.opts.queue, C.MQOO_BROWSE, inst.qmgr, "browsing")
                    # A batch read is a snapshot of what is committed now: a unit of work in doubt
                    # (prepared, not resolved) holds back nothing but its own puts.
                    end, start = q.stream_mark(0, committed=True).end, 0
                    while start < end:
                        stop = min(end, q.stream_mark(start, self.opts.partition_size, committed=True).end)
                        if stop <= start:
                            break
                        parts.append(_Range(inst.qmgr, inst.conname, self.opts.queue, start, stop,
                                            self.opts.mode == "get"))
                        start = stop
                    q.close()
                finally:
                    if c is not conn:
                        c.disconnect()
            return parts
        finally:
            conn.disconnect()

    def read(self, partition: InputPartition) -> Iterator[Any]:
        # Spark asks for one partition even when the plan has none (every queue empty).
        return _read_range(self.opts, self.schema, partition) if isinstance(partition, _Range) else iter(())


class _StreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Offsets are {queue manager: position}; partitions are ranges browsed on the executors;
    ``commit(end)`` removes what lies below each end (on the driver)."""

    def __init__(self, opts: _Options, schema: StructType) -> None:
        self.opts = opts
        self.schema = schema
        self._target: dict[str, int] | None = None
        self._hosts: dict[str, str] = {}
        self._queues: dict[str, tuple[Any, Any]] = {}    # driver only: (connection, open queue) per instance
        self._held_said: dict[str, int] = {}              # instances whose held-back stream was logged

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_queues"] = {}
        return state

    def _queue(self, qmgr: str) -> Any:
        from mqlite.cmq import CMQC as C
        held = self._queues.get(qmgr)
        if held is None:
            conn = self.opts.connect(qmgr, self._hosts.get(qmgr, ""))
            held = conn, _open(conn, self.opts.queue, C.MQOO_BROWSE | C.MQOO_INPUT_SHARED, qmgr, "a stream")
            self._queues[qmgr] = held
        return held[1]

    def _call(self, qmgr: str, fn: Any, what: str) -> Any:
        """One call on an instance's queue; a broken connection (a restarted queue manager) is
        made again once before the error fails the query."""
        from mqlite import pymqi
        for attempt in (0, 1):
            try:
                return fn(self._queue(qmgr))
            except (pymqi.MQMIError, pymqi.PYIFError) as e:
                self._drop(qmgr)
                reason = getattr(e, "reason", 0)
                if attempt or reason not in (2009, 2019, 2059, 2162) and not isinstance(e, pymqi.PYIFError):
                    text = _reason_text(e) if reason else str(e)
                    raise MQLiteError(f"{text}: {what} {self.opts.queue} on {qmgr} failed") from None

    def _drop(self, qmgr: str) -> None:
        held = self._queues.pop(qmgr, None)
        if held is not None:
            try:
                held[0].disconnect()
            except Exception:  # noqa: BLE001 - the connection is already gone
                pass

    def _refresh(self) -> list[str]:
        if self.opts.instances == "local":
            found = _instances(self.opts, None)
        else:
            conn = self.opts.connect()
            try:
                found = _instances(self.opts, conn)
            finally:
                conn.disconnect()
        self._hosts = {i.qmgr: i.conname for i in found}
        return sorted(self._hosts)

    def initialOffset(self) -> dict[str, int]:
        return {name: 0 for name in self._refresh()}

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxRows(self.opts.max_per_trigger) if self.opts.max_per_trigger else ReadAllAvailable()

    def latestOffset(self, start: dict[str, int], limit: ReadLimit) -> dict[str, int]:
        names = sorted(set(self._refresh()) | set(start))
        # maxMessagesPerTrigger is shared evenly between the instances (at least one each).
        share = max(1, limit.max_rows // len(names)) if isinstance(limit, ReadMaxRows) else 0
        out = {}
        for name in names:
            begin = int(start.get(name, 0))
            end = begin                     # an instance that went away keeps its offset
            if name in self._hosts:
                mark = self._call(name, lambda q, b=begin: q.stream_mark(b, share), "marking")
                end = mark.end
                self._say_held(name, mark)
                if self._target is not None:
                    end = max(begin, min(end, self._target.get(name, begin)))   # AvailableNow
            out[name] = end
        return out

    def _say_held(self, qmgr: str, mark: Any) -> None:
        """A stream cannot pass a message that an open or prepared unit of work put before the
        committed ones after it (exactly once would lose it): say so, once per stall, naming the
        units in doubt (``mqlite dspmqtrn``/``rsvmqtrn`` settle them)."""
        if not mark.held:
            self._held_said.pop(qmgr, None)
            return
        if self._held_said.get(qmgr) == mark.end:
            return
        self._held_said[qmgr] = mark.end
        units = self._call(qmgr, lambda q: self._queues[qmgr][0].prepared_units(), "listing units in doubt for")
        xids = [u["xid"] for u in units if self.opts.queue in u["queues"]]
        why = (f"prepared units of work in doubt: {', '.join(xids)} (settle them with mqlite rsvmqtrn -m {qmgr})"
               if xids else "an open unit of work of an application that has not committed yet")
        LOG.warning("%d committed messages on %s at %s are held back from the stream at position %d by %s",
                    mark.held, self.opts.queue, qmgr, mark.end, why)

    def prepareForTriggerAvailableNow(self) -> None:
        self._target = {name: self._call(name, lambda q: q.stream_mark(0).end, "marking") for name in self._refresh()}

    def partitions(self, start: dict[str, int], end: dict[str, int]) -> list[InputPartition]:
        return [_Range(name, self._hosts.get(name, ""), self.opts.queue, int(start.get(name, 0)), int(stop))
                for name, stop in end.items() if int(stop) > int(start.get(name, 0))]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        assert isinstance(partition, _Range)
        return _read_range(self.opts, self.schema, partition)

    def commit(self, end: dict[str, int]) -> None:
        if not self._hosts:
            self._refresh()                 # a restarted query may commit before it marks
        for name, stop in end.items():
            if name in self._hosts:
                self._call(name, lambda q, s=int(stop): q.stream_delete(s), "removing the committed messages of")

    def stop(self) -> None:
        for name in list(self._queues):
            self._drop(name)


def _text(b: bytes) -> str:
    return b.rstrip(b"\0").rstrip(b" ").decode("utf-8", "replace")


def _put_time(stamp: bytes) -> datetime.datetime | None:
    """MQMD PutDate + PutTime (YYYYMMDD HHMMSSTH, 16 bytes), which MQ gives in UTC."""
    t = stamp.decode("ascii", "replace")
    try:
        return datetime.datetime(int(t[0:4]), int(t[4:6]), int(t[6:8]), int(t[8:10]), int(t[10:12]), int(t[12:14]),
                                 int(t[14:16] or 0) * 10_000, tzinfo=datetime.timezone.utc)
    except (ValueError, IndexError):
        return None


def _decoded(values: list[Any], fn: Any) -> list[Any]:
    """``fn`` of every value, computed once per distinct value (names and stamps repeat a lot)."""
    done = {v: fn(v) for v in set(values)}
    return [done[v] for v in values]


def _columns(batch: list[tuple[int, bytes, bytes]], queue: str, qmgr: str, wanted: list[str]) -> dict[str, list[Any]]:
    """The columns of a batch of (position, packed MQMD, body), decoded column by column: one
    struct unpack per descriptor, text fields decoded once per distinct value."""
    from mqlite.cmq.structs import MD
    unpack = MD._struct.unpack_from
    fields = dict(zip(MD._names, zip(*[unpack(md) for _p, md, _b in batch]), strict=True))
    bodies = [b for _p, _md, b in batch]
    n = len(batch)
    formats = _decoded(list(fields["Format"]), _text)
    out: dict[str, list[Any]] = {}
    for c in wanted:
        if c == "body":
            out[c] = bodies
        elif c == "text":
            out[c] = [b.decode("utf-8", "replace") if f == "MQSTR" else None for b, f in zip(bodies, formats)]
        elif c == "put_timestamp":
            out[c] = _decoded([d + t for d, t in zip(fields["PutDate"], fields["PutTime"])], _put_time)
        elif c == "format":
            out[c] = formats
        elif c == "queue":
            out[c] = [queue] * n
        elif c == "qmgr":
            out[c] = [qmgr] * n
        elif c == "position":
            out[c] = [p for p, _md, _b in batch]
        else:
            name, raw = _READ[c]
            out[c] = list(fields[name]) if raw else _decoded(list(fields[name]), _text)
    return out


# Read columns taken straight from an MQMD field: (field, as it is) or text decoded from it.
_READ = {"msg_id": ("MsgId", True), "correl_id": ("CorrelId", True), "group_id": ("GroupId", True),
         "msg_seq_number": ("MsgSeqNumber", True), "persistence": ("Persistence", True),
         "priority": ("Priority", True), "reply_to_q": ("ReplyToQ", False), "reply_to_qmgr": ("ReplyToQMgr", False),
         "user_identifier": ("UserIdentifier", False), "put_appl_name": ("PutApplName", False),
         "backout_count": ("BackoutCount", True), "expiry": ("Expiry", True)}


# --- writing -----------------------------------------------------------------------------------
@dataclass
class _Prepared(WriterCommitMessage):
    """One task's puts, prepared on the queue manager under ``xid``."""
    xid: str
    count: int


@dataclass
class _Writing:
    """What writing a batch or a stream has in common: each task's rows put under syncpoint and
    prepared under an XID of ``scope`` (this job, or this run of a stream, inside the writer's
    ``prefix``); the driver resolves them all in one call. Ending the scope (an abort, a batch
    job's commit) closes it on the queue manager, so a task still running then cannot leave a
    prepared unit behind: its prepare is backed out (2003)."""
    opts: _Options
    fields: list[str]
    prefix: str
    scope: str

    def write_task(self, iterator: Iterator[Any]) -> _Prepared:
        from mqlite import pymqi
        from mqlite.cmq import CMQC as C
        conn = self.opts.connect()
        xid = f"{self.scope}/{uuid.uuid4().hex}"
        count = 0
        try:
            q = _open(conn, self.opts.queue, C.MQOO_OUTPUT | self.opts.bind, self.opts.qmgr, "output")
            # Asynchronous puts (MQ's put response type ASYNC) inside the unit of work: no round
            # trip per row; MQSTAT then tells whether any failed, before anything is prepared.
            # With bind=group a row whose msg_flags say it is in a group is put in logical order:
            # the queue manager numbers the group and keeps it on one cluster instance.
            grouped = self.opts.bind == _BINDS["group"]
            pmo = pymqi.PMO()
            for row in iterator:
                body, md = _message(row.asDict())
                pmo.Options = C.MQPMO_SYNCPOINT | C.MQPMO_ASYNC_RESPONSE | (
                    0 if md.MsgId.strip(b"\0") else C.MQPMO_NEW_MSG_ID) | (
                    C.MQPMO_LOGICAL_ORDER if grouped and md.MsgFlags & _GROUPED else 0)
                try:
                    q.put(body, md, pmo)
                except pymqi.MQMIError as e:
                    raise MQLiteError(f"{_reason_text(e)}: put to {self.opts.queue} failed; this task's "
                                      "puts were backed out") from None
                count += 1
            status = conn.stat()
            if status.PutFailureCount:
                raise MQLiteError(f"{_reason_text(status.Reason)}: {status.PutFailureCount} of {count} puts to "
                                  f"{self.opts.queue} failed; this task's puts were backed out")
            try:
                conn.prepare(xid)
            except pymqi.MQMIError as e:
                raise MQLiteError(f"{_reason_text(e)}: preparing this task's puts to {self.opts.queue} failed; "
                                  "they were backed out") from None
            q.close()
        except BaseException:
            # Any failure (a row that does not convert, a failing UDF upstream, an interrupt) backs
            # the task's puts out: MQDISC alone would commit them, as MQ does on a normal end.
            try:
                conn.backout()
            except (pymqi.MQMIError, pymqi.PYIFError):
                pass                      # the connection is gone: the queue manager backs it out
            raise
        finally:
            conn.disconnect()
        return _Prepared(xid, count)

    def resolve(self, messages: list[Any], commit: bool, mark: tuple[str, int] | None = None,
                end: bool = False) -> dict[str, Any]:
        """Commit (or back out) the tasks' prepared units, and back out any other unit of this
        writer's prefix (a failed attempt's): one store transaction on the queue manager. With
        ``end`` the scope is closed as well (the units backed out are then the scope's)."""
        from mqlite import pymqi
        xids = [m.xid for m in messages if isinstance(m, _Prepared)]
        conn = self.opts.connect()
        try:
            return conn.resolve_prepared(xids if commit else [], [] if commit else xids,
                                         backout_prefix=(self.scope if end else self.prefix) + "/", mark=mark,
                                         end_prefix=end)
        except pymqi.MQMIError as e:
            raise MQLiteError(f"{_reason_text(e)}: {'committing' if commit else 'backing out'} the prepared "
                              f"puts to {self.opts.queue} failed") from None
        finally:
            conn.disconnect()


def _message(values: dict[str, Any]) -> tuple[bytes, Any]:
    from mqlite import pymqi
    from mqlite.cmq import CMQC as C
    md = pymqi.MD()
    for column, name in WRITABLE.items():
        v = values.get(column)
        if v is None:
            continue
        if name in _BYTES:
            v = v.encode() if isinstance(v, str) else bytes(v)
            setattr(md, name, v.ljust(8) if name == "Format" else v)
        else:
            setattr(md, name, int(v))
    body = values.get("body")
    if isinstance(body, str):
        if values.get("format") is None:
            md.Format = C.MQFMT_STRING
        body = body.encode("utf-8")
    return (b"" if body is None else bytes(body)), md


class _BatchWriter(DataSourceWriter):
    """Every task prepares its puts; they become visible together when the job has succeeded."""

    def __init__(self, opts: _Options, fields: list[str], job: str) -> None:
        self.writing = _Writing(opts, fields, f"spark-batch-{job}", f"spark-batch-{job}")

    def write(self, iterator: Iterator[Any]) -> WriterCommitMessage:
        return self.writing.write_task(iterator)

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        self.writing.resolve(messages, commit=True, end=True)

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        self.writing.resolve(messages, commit=False, end=True)


class _StreamWriter(DataSourceStreamWriter):
    """Exactly once: a micro-batch's units are committed with a record of its batch id under the
    writer id (from the checkpoint location); a batch Spark replays after a crash finds its id
    recorded and its new puts are backed out instead."""

    def __init__(self, opts: _Options, fields: list[str], writer_id: str) -> None:
        # One scope per run of the query: an abort closes this run's, a restart writes in a new one.
        self.writing = _Writing(opts, fields, writer_id, f"{writer_id}/run-{uuid.uuid4().hex[:12]}")

    def write(self, iterator: Iterator[Any]) -> WriterCommitMessage:
        return self.writing.write_task(iterator)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        self.writing.resolve(messages, commit=True, mark=(self.writing.prefix, batchId))

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        self.writing.resolve(messages, commit=False, end=True)


def register(spark: Any) -> None:
    """Register the ``mqlite`` format with a SparkSession."""
    spark.dataSource.register(MQLiteDataSource)
