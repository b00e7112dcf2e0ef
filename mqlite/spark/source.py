"""The ``mqlite`` data source: what Spark calls to read and write a queue."""
from __future__ import annotations

import json
import uuid
from typing import Any

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
)
from pyspark.sql.types import StructType

from mqlite.spark.options import (
    LATEST,
    LOG,
    NAME,
    SCHEMA,
    WRITABLE,
    MQLiteError,
    Options,
    subscribe,
)
from mqlite.spark.read import BatchReader
from mqlite.spark.stream import StreamReader
from mqlite.spark.write import BatchWriter, StreamWriter


class MQLiteDataSource(DataSource):
    """``spark.read``/``readStream`` ``.format("mqlite")`` and ``df.write``/``writeStream``."""

    @classmethod
    def name(cls) -> str:
        return NAME

    def schema(self) -> str:
        return SCHEMA

    def reader(self, schema: StructType) -> DataSourceReader:
        opts = Options.of(self.options)
        if opts.topic:
            raise MQLiteError("a topic is read as a stream (readStream), through a durable subscription")
        if opts.starting == "latest" or opts.starting.startswith("{") and LATEST in json.loads(opts.starting).values():
            raise MQLiteError("startingOffsets 'latest' (-1) is for streams: a batch read from the end reads nothing")
        if opts.push_filters:
            from mqlite.spark.pushdown import FilteringReader
            return FilteringReader(opts, schema)
        return BatchReader(opts, schema)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        opts = Options.of(self.options)
        if opts.mode != "browse":
            raise MQLiteError("a stream removes messages when Spark commits them: leave mode at 'browse'")
        given = {str(k).lower() for k in dict(self.options)}
        for batch_only in ("endingOffsets", "pushFilters"):
            if batch_only.lower() in given:
                raise MQLiteError(f"option {batch_only!r} is for batch reads: a stream runs on (and takes a selector)")
        if opts.topic:
            if opts.instances == "cluster":
                raise MQLiteError("a topic stream reads its subscription on one queue manager: instances 'local'")
            opts = subscribe(opts)
        return StreamReader(opts, schema)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        return BatchWriter(*self._writing(schema, overwrite), uuid.uuid4().hex[:20])

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        opts, fields = self._writing(schema, overwrite)
        if not opts.writer_id:
            raise MQLiteError("a streaming write needs a checkpointLocation (or a writerId option) to record "
                              "its committed batches under")
        return StreamWriter(opts, fields, opts.writer_id)

    def _writing(self, schema: StructType, overwrite: bool) -> tuple[Options, list[str]]:
        if overwrite:
            raise MQLiteError("mode 'overwrite' would clear the queue; use mode 'append'")
        fields = [f.name for f in schema.fields]
        if "body" not in fields:
            raise MQLiteError("a DataFrame written to a queue needs a 'body' column")
        unknown = [f for f in fields if f not in ("body", "properties") and f not in WRITABLE]
        if unknown:
            raise MQLiteError(f"column {unknown[0]!r} is not a message field the {NAME} data source writes "
                              f"(body, properties, {', '.join(sorted(WRITABLE))})")
        return Options.of(self.options), fields



def register(spark: Any) -> None:
    """Register the ``mqlite`` format with a SparkSession, and the driver-side listener that
    settles batch reads in mode "get" when their action ends (mqlite.spark.settle)."""
    from mqlite.spark.settle import install
    spark.dataSource.register(MQLiteDataSource)
    if getattr(spark, "_jsc", None) is None:
        # A Spark Connect client: no driver JVM in this process to listen to.
        LOG.warning("no driver-side listener in a Spark Connect client: batch reads in mode 'get' will fail")
        return
    install(spark)
