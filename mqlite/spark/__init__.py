"""The PySpark data source ``mqlite``: queues as DataFrames (issue 6, first part: batch).

    from mqlite.spark import register
    register(spark)                                   # spark.dataSource.register(MQLiteDataSource)
    df = (spark.read.format("mqlite").option("queueManager", "QM1").option("channel", "APP.SVRCONN")
          .option("conname", "127.0.0.1(1414)").option("queue", "ORDERS").load())
    df.write.format("mqlite").option(...).option("queue", "REPLIES").mode("append").save()

Options mirror ``pymqi.connect`` (queueManager, channel, conname, user, password) plus ``queue``.
Reading browses the queue (non-destructive; ``mode`` ``browse``, the only mode built so far) and
hands the rows to Spark as Arrow record batches of ``batchSize`` rows (default 10,000). Writing
puts each task's rows in one unit of work, committed when the task has put them all; the columns
are ``body`` (binary or string) and, optionally, the MQMD columns of :data:`WRITABLE`.

Everything runs on the executors through the client API only, so the classes carry nothing but
their options (Spark pickles them); connections are made inside ``read`` and ``write``. A failure
is an exception whose message names MQ's reason code, e.g. ``MQRC_UNKNOWN_OBJECT_NAME (2085)``.
"""
from __future__ import annotations

import datetime
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pyspark.sql.datasource import DataSource, DataSourceReader, DataSourceWriter, InputPartition, WriterCommitMessage
from pyspark.sql.types import StructType

NAME = "mqlite"

SCHEMA = ("body binary, text string, msg_id binary, correl_id binary, group_id binary, msg_seq_number int, "
          "put_timestamp timestamp, persistence int, priority int, format string, reply_to_q string, "
          "reply_to_qmgr string, user_identifier string, put_appl_name string, backout_count int, expiry int, "
          "queue string, qmgr string")

# Columns a write takes, with the MQMD field each one fills.
WRITABLE = {"correl_id": "CorrelId", "group_id": "GroupId", "msg_id": "MsgId", "msg_seq_number": "MsgSeqNumber",
            "priority": "Priority", "persistence": "Persistence", "reply_to_q": "ReplyToQ",
            "reply_to_qmgr": "ReplyToQMgr", "format": "Format", "expiry": "Expiry"}
_BYTES = {"CorrelId", "GroupId", "MsgId", "ReplyToQ", "ReplyToQMgr", "Format"}
_REQUIRED = ("queueManager", "queue")


class MQLiteError(Exception):
    """A failed MQ call or a bad option; the message starts with the MQ reason where there is one."""


def _reason_text(e: Any) -> str:
    from mqlite import pymqi
    name = pymqi.MQMIError._rc_names.get(e.reason, "")
    return f"{name} ({e.reason})" if name else f"reason {e.reason}"


@dataclass(frozen=True)
class _Options:
    qmgr: str
    queue: str
    channel: str
    conname: str
    user: str
    password: str
    mode: str
    batch_size: int

    @staticmethod
    def of(options: Any) -> _Options:
        opts = {str(k).lower(): str(v) for k, v in dict(options).items()}
        missing = [k for k in _REQUIRED if k.lower() not in opts]
        if missing:
            raise MQLiteError(f"option {missing[0]!r} is required by the {NAME} data source")
        mode = opts.get("mode", "browse").lower()
        if mode != "browse":
            raise MQLiteError(f"mode {mode!r} is not available: reads browse the queue (mode 'browse')")
        try:
            batch = int(opts.get("batchsize", "10000"))
        except ValueError:
            batch = 0
        if batch <= 0:
            raise MQLiteError(f"batchSize must be a positive integer, not {opts.get('batchsize')!r}")
        if bool(opts.get("channel")) != bool(opts.get("conname")):
            raise MQLiteError("give channel and conname together (a client connection), or neither (bindings)")
        return _Options(opts["queuemanager"], opts["queue"], opts.get("channel", ""), opts.get("conname", ""),
                        opts.get("user", ""), opts.get("password", ""), mode, batch)

    def connect(self) -> Any:
        from mqlite import pymqi
        try:
            if not self.channel:
                return pymqi.connect(self.qmgr)
            return pymqi.connect(self.qmgr, self.channel, self.conname, self.user or None, self.password or None)
        except pymqi.MQMIError as e:
            raise MQLiteError(f"{_reason_text(e)}: cannot connect to queue manager {self.qmgr} through "
                              f"{self.channel or 'local bindings'} {self.conname}".rstrip()) from None


class MQLiteDataSource(DataSource):
    """``spark.read.format("mqlite")`` and ``df.write.format("mqlite")``."""

    @classmethod
    def name(cls) -> str:
        return NAME

    def schema(self) -> str:
        return SCHEMA

    def reader(self, schema: StructType) -> DataSourceReader:
        return _BrowseReader(_Options.of(self.options), schema)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        if overwrite:
            raise MQLiteError("mode 'overwrite' would clear the queue; use mode 'append'")
        fields = [f.name for f in schema.fields]
        if "body" not in fields:
            raise MQLiteError("a DataFrame written to a queue needs a 'body' column")
        unknown = [f for f in fields if f != "body" and f not in WRITABLE]
        if unknown:
            raise MQLiteError(f"column {unknown[0]!r} is not a message field the {NAME} data source writes "
                              f"(body, {', '.join(sorted(WRITABLE))})")
        return _Writer(_Options.of(self.options), fields)


@dataclass
class _QueuePartition(InputPartition):
    queue: str


class _BrowseReader(DataSourceReader):
    def __init__(self, opts: _Options, schema: StructType) -> None:
        self.opts = opts
        self.schema = schema
        self.columns = [f.name for f in schema.fields]

    def partitions(self) -> list[InputPartition]:
        return [_QueuePartition(self.opts.queue)]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        import pyarrow as pa
        from pyspark.sql.pandas.types import to_arrow_schema

        from mqlite import pymqi
        from mqlite.cmq import CMQC as C
        assert isinstance(partition, _QueuePartition)
        conn = self.opts.connect()
        try:
            try:
                q = pymqi.Queue(conn, partition.queue, C.MQOO_BROWSE | C.MQOO_INQUIRE)
            except pymqi.MQMIError as e:
                raise MQLiteError(f"{_reason_text(e)}: cannot open queue {partition.queue} on "
                                  f"{self.opts.qmgr} for browsing") from None
            qmgr_name = self.opts.qmgr
            arrow = to_arrow_schema(self.schema, timezone="UTC")
            rows: dict[str, list[Any]] = {c: [] for c in self.columns}
            first = True
            while True:
                # One round trip per batch of messages (mqlite's browse_batch), not one per message.
                try:
                    batch = q.browse_batch(min(self.opts.batch_size, 5000), first)
                except pymqi.MQMIError as e:
                    raise MQLiteError(f"{_reason_text(e)}: browsing {partition.queue} failed") from None
                first = False
                if not batch:
                    break
                for md_bytes, body in batch:
                    for c, v in _row(pymqi.MD.from_bytes(md_bytes), body, partition.queue, qmgr_name).items():
                        if c in rows:
                            rows[c].append(v)
                if len(rows[self.columns[0]]) >= self.opts.batch_size:
                    yield pa.RecordBatch.from_pydict(rows, schema=arrow)
                    rows = {c: [] for c in self.columns}
            if rows[self.columns[0]]:
                yield pa.RecordBatch.from_pydict(rows, schema=arrow)
            q.close()
        finally:
            conn.disconnect()


def _text(b: bytes) -> str:
    return b.rstrip(b"\0").rstrip(b" ").decode("utf-8", "replace")


def _put_time(md: Any) -> datetime.datetime | None:
    """MQMD PutDate (YYYYMMDD) and PutTime (HHMMSSTH), which MQ gives in UTC."""
    d, t = _text(md.PutDate), _text(md.PutTime)
    try:
        return datetime.datetime(int(d[0:4]), int(d[4:6]), int(d[6:8]), int(t[0:2]), int(t[2:4]), int(t[4:6]),
                                 int(t[6:8] or 0) * 10_000, tzinfo=datetime.timezone.utc)
    except (ValueError, IndexError):
        return None


def _row(md: Any, body: bytes, queue: str, qmgr: str) -> dict[str, Any]:
    fmt = _text(md.Format)
    return {"body": body, "text": body.decode("utf-8", "replace") if fmt == "MQSTR" else None,
            "msg_id": md.MsgId, "correl_id": md.CorrelId, "group_id": md.GroupId,
            "msg_seq_number": md.MsgSeqNumber, "put_timestamp": _put_time(md), "persistence": md.Persistence,
            "priority": md.Priority, "format": fmt, "reply_to_q": _text(md.ReplyToQ),
            "reply_to_qmgr": _text(md.ReplyToQMgr), "user_identifier": _text(md.UserIdentifier),
            "put_appl_name": _text(md.PutApplName), "backout_count": md.BackoutCount, "expiry": md.Expiry,
            "queue": queue, "qmgr": qmgr}


@dataclass
class _Written(WriterCommitMessage):
    count: int


class _Writer(DataSourceWriter):
    def __init__(self, opts: _Options, fields: list[str]) -> None:
        self.opts = opts
        self.fields = fields

    def write(self, iterator: Iterator[Any]) -> WriterCommitMessage:
        from mqlite import pymqi
        from mqlite.cmq import CMQC as C
        conn = self.opts.connect()
        count = 0
        try:
            try:
                q = pymqi.Queue(conn, self.opts.queue, C.MQOO_OUTPUT)
            except pymqi.MQMIError as e:
                raise MQLiteError(f"{_reason_text(e)}: cannot open queue {self.opts.queue} on "
                                  f"{self.opts.qmgr} for output") from None
            pmo = pymqi.PMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_NEW_MSG_ID)
            for row in iterator:
                values = row.asDict()
                body = values.get("body")
                md = pymqi.MD()
                for column, field in WRITABLE.items():
                    v = values.get(column)
                    if v is None:
                        continue
                    if field in _BYTES:
                        v = v.encode() if isinstance(v, str) else bytes(v)
                        setattr(md, field, v.ljust(8) if field == "Format" else v)
                    else:
                        setattr(md, field, int(v))
                if isinstance(body, str):
                    if values.get("format") is None:
                        md.Format = C.MQFMT_STRING
                    body = body.encode("utf-8")
                if "msg_id" in values and values["msg_id"] is not None:
                    pmo.Options &= ~C.MQPMO_NEW_MSG_ID
                try:
                    q.put(b"" if body is None else bytes(body), md, pmo)
                except pymqi.MQMIError as e:
                    conn.backout()
                    raise MQLiteError(f"{_reason_text(e)}: put to {self.opts.queue} failed; this task's "
                                      "puts were backed out") from None
                pmo.Options |= C.MQPMO_NEW_MSG_ID
                count += 1
            conn.commit()
            q.close()
        finally:
            conn.disconnect()
        return _Written(count)


def register(spark: Any) -> None:
    """Register the ``mqlite`` format with a SparkSession."""
    spark.dataSource.register(MQLiteDataSource)
