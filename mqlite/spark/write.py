"""Writes: each task's rows prepared as a two-phase unit of work, resolved by the driver."""
from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pyspark.sql.datasource import (
    DataSourceStreamWriter,
    DataSourceWriter,
    WriterCommitMessage,
)

from mqlite.cmq.convert import codec_of
from mqlite.props.rfh2 import join
from mqlite.props.values import Properties
from mqlite.spark.options import (
    BINDS,
    BYTE_FIELDS,
    GROUPED,
    WRITABLE,
    MQLiteError,
    Options,
    abandon,
    open_queue,
    reason_text,
)


# --- writing -----------------------------------------------------------------------------------
@dataclass
class Prepared(WriterCommitMessage):
    """One task's puts, prepared on the queue manager as units of work under ``xids`` (more than
    one when the task had more rows than the queue manager's MAXUMSGS lets one unit hold)."""
    xids: list[str]
    count: int


@dataclass
class Writing:
    """What writing a batch or a stream has in common: each task's rows put under syncpoint and
    prepared under an XID of ``scope`` (this job, or this run of a stream, inside the writer's
    ``prefix``); the driver resolves them all in one call. Ending the scope (an abort, a batch
    job's commit) closes it on the queue manager, so a task still running then cannot leave a
    prepared unit behind: its prepare is backed out (2003)."""
    opts: Options
    fields: list[str]
    prefix: str
    scope: str

    def write_task(self, iterator: Iterator[Any]) -> Prepared:
        from mqlite import pymqi
        from mqlite.cmq import CMQC as C
        conn = self.opts.connect()
        task = f"{self.scope}/{uuid.uuid4().hex}"
        xids: list[str] = []
        count = in_unit = 0
        try:
            limit = int(conn.inquire(C.MQIA_MAX_UNCOMMITTED_MSGS))
            q = open_queue(conn, self.opts.queue, C.MQOO_OUTPUT | self.opts.bind, self.opts.qmgr, "output",
                           self.opts.topic)
            # Asynchronous puts (MQ's put response type ASYNC) inside the unit of work: no round
            # trip per row; MQSTAT then tells whether any failed, before anything is prepared.
            # With bind=group a row whose msg_flags say it is in a group is put in logical order:
            # the queue manager numbers the group and keeps it on one cluster instance.
            grouped = self.opts.bind == BINDS["group"]
            pmo = pymqi.PMO()
            for row in iterator:
                if in_unit == limit:
                    # A unit holds at most MAXUMSGS messages: this one is prepared, the next begins.
                    # The driver commits the task's units together, so the rows stay all or none.
                    xids.append(self._prepare(conn, f"{task}/{len(xids)}", count))
                    in_unit = 0
                body, md = _message(row.asDict())
                pmo.Options = C.MQPMO_SYNCPOINT | C.MQPMO_ASYNC_RESPONSE | (
                    0 if md.MsgId.strip(b"\0") else C.MQPMO_NEW_MSG_ID) | (
                    C.MQPMO_LOGICAL_ORDER if grouped and md.MsgFlags & GROUPED else 0)
                try:
                    q.put(body, md, pmo)
                except pymqi.MQMIError as e:
                    raise MQLiteError(f"{reason_text(e)}: put to {self.opts.target} failed; this task's "
                                      "puts were backed out") from None
                count += 1
                in_unit += 1
            xids.append(self._prepare(conn, f"{task}/{len(xids)}", count))
            q.close()
        except BaseException:
            # Any failure (a row that does not convert, a failing UDF upstream, an interrupt) backs
            # the task's puts out.
            abandon(conn, backout=True)
            raise
        conn.disconnect()
        return Prepared(xids, count)

    def _prepare(self, conn: Any, xid: str, count: int) -> str:
        """The asynchronous puts so far checked (MQSTAT), then the unit prepared under ``xid``."""
        from mqlite import pymqi
        status = conn.stat()
        if status.PutFailureCount:
            raise MQLiteError(f"{reason_text(status.Reason)}: {status.PutFailureCount} of {count} puts to "
                              f"{self.opts.target} failed; this task's puts were backed out")
        try:
            conn.prepare(xid)
        except pymqi.MQMIError as e:
            raise MQLiteError(f"{reason_text(e)}: preparing this task's puts to {self.opts.target} failed; "
                              "they were backed out") from None
        return xid

    def resolve(self, messages: list[Any], commit: bool, mark: tuple[str, int] | None = None,
                end: bool = False) -> dict[str, Any]:
        """Commit (or back out) the tasks' prepared units, and back out any other unit of this
        writer's prefix (a failed attempt's): one store transaction on the queue manager. With
        ``end`` the scope is closed as well (the units backed out are then the scope's)."""
        from mqlite import pymqi
        xids = [x for m in messages if isinstance(m, Prepared) for x in m.xids]
        conn = self.opts.connect()
        try:
            return conn.resolve_prepared(xids if commit else [], [] if commit else xids,
                                         backout_prefix=(self.scope if end else self.prefix) + "/", mark=mark,
                                         end_prefix=end)
        except pymqi.MQMIError as e:
            raise MQLiteError(f"{reason_text(e)}: {'committing' if commit else 'backing out'} the prepared "
                              f"puts to {self.opts.target} failed") from None
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
        if name in BYTE_FIELDS:
            v = v.encode() if isinstance(v, str) else bytes(v)
            setattr(md, name, v.ljust(8) if name == "Format" else v)
        else:
            setattr(md, name, int(v))
    body = values.get("body")
    if isinstance(body, str):
        if values.get("format") is None:
            md.Format = C.MQFMT_STRING
        # A string is written in the row's ccsid when it has one (and MQ's 1208, UTF-8, otherwise).
        if values.get("ccsid") is None:
            md.CodedCharSetId = 1208
        codec = codec_of(md.CodedCharSetId or 1208, md.Encoding)
        if codec is None:
            raise MQLiteError(f"MQRC_SOURCE_CCSID_ERROR (2111): a string body cannot be written in CCSID "
                              f"{md.CodedCharSetId}: give the body as binary, or a known ccsid")
        body = body.encode(codec, "replace")
    data = b"" if body is None else bytes(body)
    if values.get("properties"):
        # A map of name → value: each set as MQSETMP sets it (strings; None is a null property),
        # carried in an MQRFH2 as a message handle's properties are.
        props = Properties()
        for k, v in dict(values["properties"]).items():
            props.set(k, None if v is None else str(v))
        md.Format, md.Encoding, md.CodedCharSetId, data = join(props, md.Format, md.Encoding,
                                                              md.CodedCharSetId, data)
    return data, md


class BatchWriter(DataSourceWriter):
    """Every task prepares its puts; they become visible together when the job has succeeded."""

    def __init__(self, opts: Options, fields: list[str], job: str) -> None:
        self.writing = Writing(opts, fields, f"spark-batch-{job}", f"spark-batch-{job}")

    def write(self, iterator: Iterator[Any]) -> WriterCommitMessage:
        return self.writing.write_task(iterator)

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        self.writing.resolve(messages, commit=True, end=True)

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        self.writing.resolve(messages, commit=False, end=True)


class StreamWriter(DataSourceStreamWriter):
    """Exactly once: a micro-batch's units are committed with a record of its batch id under the
    writer id (from the checkpoint location); a batch Spark replays after a crash finds its id
    recorded and its new puts are backed out instead."""

    def __init__(self, opts: Options, fields: list[str], writer_id: str) -> None:
        # One scope per run of the query: an abort closes this run's, a restart writes in a new one.
        self.writing = Writing(opts, fields, writer_id, f"{writer_id}/run-{uuid.uuid4().hex[:12]}")

    def write(self, iterator: Iterator[Any]) -> WriterCommitMessage:
        return self.writing.write_task(iterator)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        self.writing.resolve(messages, commit=True, mark=(self.writing.prefix, batchId))

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        self.writing.resolve(messages, commit=False, end=True)
