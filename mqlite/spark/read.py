"""Batch reads: a queue's instances, ranges of positions read in parallel, rows decoded column by
column."""
from __future__ import annotations

import datetime
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pyspark.sql.datasource import (
    DataSourceReader,
    InputPartition,
)
from pyspark.sql.types import StructType

from mqlite.cmq import CMQC as C
from mqlite.cmq.convert import text_of
from mqlite.props.deliver import HANDLE, deliver
from mqlite.props.rfh2 import NATIVE, RFH2_FORMAT, properties_of
from mqlite.props.values import to_text
from mqlite.spark.options import (
    LATEST,
    LOG,
    READ_CHUNK,
    MQLiteError,
    Options,
    abandon,
    offset_for,
    open_queue,
    reason_text,
)


# --- reading -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Instance:
    """One queue manager that hosts the queue (the connected one, or a cluster instance)."""
    qmgr: str
    conname: str


@dataclass
class Range(InputPartition):
    """Positions [start, end) of the queue on one instance. ``read_id`` (a get-mode batch read):
    remove them once read, in a unit of work prepared for the driver's listener to settle, as
    partition ``index`` of the read."""
    qmgr: str
    conname: str
    queue: str
    start: int
    end: int
    read_id: str = ""
    index: int = 0
    expected: int = -1       # the messages counted in the range when it was planned (-1: not counted)


MIN_SPLIT = 1000        # messages: a range is split for parallel reads only into pieces this large


def instances(opts: Options, conn: Any) -> list[Instance]:
    """The queue's instances: the connected queue manager's own queue, or with instances=cluster
    every queue manager hosting the cluster queue, as the connected one's cluster cache (filled
    from a full repository when the queue is opened) knows them, each with its CLUSRCVR CONNAME."""
    if opts.instances == "local":
        return [Instance(opts.qmgr, opts.conname)]
    from mqlite import pymqi
    from mqlite.cmq import CMQCFC as F
    q = open_queue(conn, opts.queue, C.MQOO_OUTPUT, opts.qmgr, "output (to look up its cluster instances)")
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
            out.append(Instance(name, opts.conname if name == opts.qmgr else conname))
    except pymqi.MQMIError as e:
        raise MQLiteError(f"{reason_text(e)}: cannot list the cluster instances of {opts.queue}") from None
    finally:
        if pcf.reply_queue is not None:
            pcf.reply_queue.close()
    if not out:
        raise MQLiteError(f"MQRC_UNKNOWN_OBJECT_NAME (2085): {opts.queue} has no cluster instances known to "
                          f"{opts.qmgr}")
    return out


def read_range(opts: Options, schema: StructType, part: Range) -> Iterator[Any]:
    """Arrow record batches of the messages in the partition's range (executor side). For a
    get-mode read the range is then removed as gets in a unit of work prepared under the read's
    XID for this action and partition (mqlite.spark.settle), after backing out what an
    earlier attempt of the partition prepared: nothing leaves the queue before the action ends."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    columns = [f.name for f in schema.fields]
    arrow = to_arrow_schema(schema, timezone="UTC")
    prefix = _attempt_prefix(part) if part.read_id else ""
    conn = opts.connect(part.qmgr, part.conname)
    try:
        if prefix:
            _call(lambda: conn.resolve_prepared(backout_prefix=prefix), "backing out an earlier attempt's removal "
                  f"from {part.queue}")
        access = C.MQOO_BROWSE | (C.MQOO_INPUT_SHARED if prefix else 0)
        q = open_queue(conn, part.queue, access, part.qmgr, "reading", selector=opts.selector)
        pending: list[tuple[int, bytes, bytes]] = []
        start, got = part.start, 0
        while start < part.end:
            batch = _call(lambda s=start: q.stream_read(s, part.end, min(opts.batch_size, READ_CHUNK)),
                          f"reading {part.queue} on {part.qmgr}")
            if not batch:
                break
            pending += batch
            got += len(batch)
            start = batch[-1][0] + 1
            if len(pending) >= opts.batch_size:
                yield pa.RecordBatch.from_pydict(decode_columns(pending, part.queue, part.qmgr, columns), schema=arrow)
                pending = []
        if pending:
            yield pa.RecordBatch.from_pydict(decode_columns(pending, part.queue, part.qmgr, columns), schema=arrow)
        if not prefix:
            # (In mode get, consumers competing for the queue's messages are MQ's way, not a loss:
            # what another application got is simply absent from the read.)
            data_loss(opts, part, got)
        if prefix:
            # Every row has been handed to Spark: the range goes in a unit of work, prepared.
            from pyspark import TaskContext
            _call(lambda: q.stream_delete(part.end, part.start, syncpoint=True),
                  f"removing what was read from {part.queue}")
            _call(lambda: conn.prepare(prefix + str(TaskContext.get().taskAttemptId())),
                  f"preparing the removal of what was read from {part.queue}")
        q.close()
    except BaseException:
        abandon(conn, backout=bool(prefix))     # a failed or abandoned attempt removes nothing
        raise
    conn.disconnect()


def data_loss(opts: Options, part: Range, got: int) -> None:
    """Fewer messages read than the range held when it was planned: another application got them,
    or they expired, before this read. With failOnDataLoss (the default, as Kafka's source) the
    read fails; otherwise it is logged and the read goes on."""
    if part.expected < 0 or got >= part.expected:
        return
    text = (f"data loss: {part.expected - got} of the {part.expected} messages in positions [{part.start}, "
            f"{part.end}) of {part.queue} on {part.qmgr} were removed after the range was planned and before "
            "it was read (another application got them, or they expired)")
    if opts.fail_on_data_loss:
        raise MQLiteError(text + "; set failOnDataLoss to false to read on without them")
    LOG.warning("%s; read on without them (failOnDataLoss false)", text)


def _attempt_prefix(part: Range) -> str:
    from pyspark import TaskContext

    from mqlite.spark.settle import xid_prefix
    ctx = TaskContext.get()
    if ctx is None:
        raise MQLiteError("mode 'get' reads only in a Spark task (the driver's listener settles them)")
    execution = ctx.getLocalProperty("spark.sql.execution.id")
    action = f"sql-{execution}" if execution is not None else f"stage-{ctx.stageId()}"
    return xid_prefix(part.read_id, action, part.index)


def _call(fn: Any, what: str) -> Any:
    from mqlite import pymqi
    try:
        return fn()
    except pymqi.MQMIError as e:
        raise MQLiteError(f"{reason_text(e)}: {what} failed") from None


class BatchReader(DataSourceReader):
    def __init__(self, opts: Options, schema: StructType) -> None:
        self.opts = opts
        self.schema = schema

    def partitions(self) -> list[InputPartition]:
        """Everything committed on each instance now, split into ranges (the driver marks the
        boundaries; executors read the ranges in parallel): as many as the application runs tasks
        at once, of at least MIN_SPLIT and at most ``partitionSize`` messages — in mode get also
        at most the instance's MAXUMSGS, a range being one unit of work."""
        from mqlite.spark.settle import parallelism, record_read
        get = self.opts.mode == "get"
        conn = self.opts.connect()
        try:
            found = instances(self.opts, conn)
            read_id = record_read(self.opts, [(i.qmgr, i.conname) for i in found]) if get else ""
            tasks = parallelism()
            parts: list[InputPartition] = []
            for inst in found:
                c = conn if inst.qmgr == self.opts.qmgr else self.opts.connect(inst.qmgr, inst.conname)
                try:
                    q = open_queue(c, self.opts.queue, C.MQOO_BROWSE | C.MQOO_INQUIRE, inst.qmgr, "browsing",
                                   selector=self.opts.selector)
                    # A batch read is a snapshot of what is committed now (endingOffsets may bound
                    # it lower): a unit of work in doubt holds back nothing but its own puts.
                    end = q.stream_mark(0, committed=True).end
                    bound = offset_for(self.opts.ending, inst.qmgr, LATEST)
                    if bound != LATEST:
                        end = min(end, bound)
                    start = max(0, offset_for(self.opts.starting, inst.qmgr))
                    depth = q.inquire(C.MQIA_CURRENT_Q_DEPTH)
                    size = min(self.opts.partition_size, max(MIN_SPLIT, -(-depth // tasks)))
                    if get:
                        size = min(size, c.inquire(C.MQIA_MAX_UNCOMMITTED_MSGS))
                    while start < end:
                        mark = q.stream_mark(start, size, committed=True)
                        stop = min(end, mark.end)
                        if stop <= start:
                            break
                        counted = mark.count if stop == mark.end else -1
                        parts.append(Range(inst.qmgr, inst.conname, self.opts.queue, start, stop, read_id, len(parts),
                                           counted))
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
        return read_range(self.opts, self.schema, partition) if isinstance(partition, Range) else iter(())



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


def oldest_age(packed_md: bytes) -> int:
    """Whole seconds since a message was put (its MQMD PutDate and PutTime), 0 if unreadable."""
    from mqlite.cmq.structs import MD
    md = MD.from_bytes(packed_md)
    put = _put_time(md.PutDate + md.PutTime)
    if put is None:
        return 0
    return max(0, int((datetime.datetime.now(datetime.timezone.utc) - put).total_seconds()))


def typed_value(ptype: int, value: Any) -> Any:
    """A property's value as the ``property_values`` variant holds it: integers, floating point,
    booleans, strings and null as themselves; a byte string as its hex (variants built from JSON
    have no bytes), as MQ writes one in a string."""
    if ptype == C.MQTYPE_BYTE_STRING:
        return to_text(ptype, value)
    if ptype in (C.MQTYPE_FLOAT32, C.MQTYPE_FLOAT64) and not math.isfinite(value):
        return str(value)                  # JSON has no NaN or infinity
    return value


def _variant(typed: str | None) -> dict[str, bytes] | None:
    """A variant column's value (Arrow's value/metadata pair) of the properties' JSON."""
    if typed is None:
        return None
    from pyspark.sql.variant_utils import VariantBuilder
    value, metadata = VariantBuilder().build(typed)
    return {"value": value, "metadata": metadata}


def _decoded(values: list[Any], fn: Any) -> list[Any]:
    """``fn`` of every value, computed once per distinct value (names and stamps repeat a lot)."""
    done = {v: fn(v) for v in set(values)}
    return [done[v] for v in values]


def decode_columns(batch: list[tuple[int, bytes, bytes]], queue: str, qmgr: str,
                   wanted: list[str]) -> dict[str, list[Any]]:
    """The columns of a batch of (position, packed MQMD, body), decoded column by column: one
    struct unpack per descriptor, text fields decoded once per distinct value."""
    from mqlite.cmq.structs import MD
    unpack = MD.layout().unpack_from
    fields = dict(zip(MD.field_names(), zip(*[unpack(md) for _p, md, _b in batch]), strict=True))
    bodies = [b for _p, _md, b in batch]
    n = len(batch)
    props: list[dict[str, str] | None] = [None] * n
    typed: list[str | None] = [None] * n      # the properties with their types, as JSON
    if RFH2_FORMAT in fields["Format"]:
        # Messages with properties: the properties go to their column and the data is what an
        # application with a message handle gets (mqlite.props.deliver's HANDLE).
        fmt, enc, ccsid = list(fields["Format"]), list(fields["Encoding"]), list(fields["CodedCharSetId"])
        for i, f in enumerate(fmt):
            if f == RFH2_FORMAT:
                got = deliver(HANDLE, f, enc[i], ccsid[i], bodies[i])
                bodies[i], fmt[i], enc[i], ccsid[i] = got.data, got.format, got.encoding, got.ccsid
                if got.props:
                    found = properties_of(RFH2_FORMAT, NATIVE, got.props)
                    props[i] = {k: to_text(t, v) for k, (t, v) in found.items()}
                    typed[i] = json.dumps({k: typed_value(t, v) for k, (t, v) in found.items()})
        fields["Format"], fields["Encoding"], fields["CodedCharSetId"] = tuple(fmt), tuple(enc), tuple(ccsid)
    formats = _decoded(list(fields["Format"]), _text)
    out: dict[str, list[Any]] = {}
    for c in wanted:
        if c == "body":
            out[c] = bodies
        elif c == "text":
            out[c] = [text_of(b, cc, e) if f == "MQSTR" else None
                      for b, f, cc, e in zip(bodies, formats, fields["CodedCharSetId"], fields["Encoding"])]
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
        elif c == "properties":
            out[c] = [list(p.items()) if p else None for p in props]
        elif c == "property_values":
            out[c] = _decoded(typed, _variant)
        else:
            name, raw = _READ[c]
            out[c] = list(fields[name]) if raw else _decoded(list(fields[name]), _text)
    return out


# Read columns taken straight from an MQMD field: (field, as it is) or text decoded from it.
_READ = {"msg_id": ("MsgId", True), "correl_id": ("CorrelId", True), "group_id": ("GroupId", True),
         "msg_seq_number": ("MsgSeqNumber", True), "persistence": ("Persistence", True),
         "priority": ("Priority", True), "reply_to_q": ("ReplyToQ", False), "reply_to_qmgr": ("ReplyToQMgr", False),
         "user_identifier": ("UserIdentifier", False), "put_appl_name": ("PutApplName", False),
         "backout_count": ("BackoutCount", True), "expiry": ("Expiry", True), "msg_type": ("MsgType", True),
         "report": ("Report", True), "feedback": ("Feedback", True), "msg_flags": ("MsgFlags", True),
         "encoding": ("Encoding", True), "ccsid": ("CodedCharSetId", True)}
