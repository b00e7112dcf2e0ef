"""The PySpark data source ``mqlite``: queues as DataFrames, batch and streaming (issue 6).

    from mqlite.spark import register
    register(spark)                 # the format, and the listener that settles mode "get" reads
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

This module is the face: ``options`` (options, schema, errors), ``source`` (the DataSource),
``read`` (batch reads and row decoding), ``settle`` (the driver's listener that settles get-mode
reads), ``stream`` (streaming reads), ``write`` (writes).
"""
from __future__ import annotations

from mqlite.spark.options import SCHEMA, MQLiteError
from mqlite.spark.settle import wait_settled
from mqlite.spark.source import MQLiteDataSource, register

__all__ = ["SCHEMA", "MQLiteDataSource", "MQLiteError", "register", "wait_settled"]
