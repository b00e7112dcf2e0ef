"""Streaming reads: offsets per queue manager, ranges browsed on the executors, commit removes."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pyspark.sql.datasource import (
    DataSourceStreamReader,
    InputPartition,
)
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows, SupportsTriggerAvailableNow
from pyspark.sql.types import StructType

from mqlite.spark.options import (
    LOG,
    MQLiteError,
    Options,
    open_queue,
    reason_text,
)
from mqlite.spark.read import MIN_SPLIT, Range, instances, read_range


class StreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Offsets are {queue manager: position}; partitions are ranges browsed on the executors;
    ``commit(end)`` removes what lies below each end (on the driver)."""

    def __init__(self, opts: Options, schema: StructType) -> None:
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
            held = conn, open_queue(conn, self.opts.queue, C.MQOO_BROWSE | C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE, qmgr,
                                    "a stream")
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
                    text = reason_text(e) if reason else str(e)
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
            found = instances(self.opts, None)
        else:
            conn = self.opts.connect()
            try:
                found = instances(self.opts, conn)
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
        """Each instance's range of the micro-batch, split for the executors to browse in parallel
        (the driver's commit removes it whole, so a split changes nothing for exactly once): into
        as many pieces as the application runs tasks at once, of at least MIN_SPLIT messages."""
        from mqlite.cmq import CMQC as C
        from mqlite.spark.settle import parallelism
        tasks = parallelism()
        out: list[InputPartition] = []
        for name, stop in end.items():
            first, stop = int(start.get(name, 0)), int(stop)
            if stop <= first:
                continue
            host = self._hosts.get(name, "")
            if tasks > 1 and name in self._hosts:
                depth = self._call(name, lambda q: q.inquire(C.MQIA_CURRENT_Q_DEPTH), "inquiring")
                size = max(MIN_SPLIT, -(-depth // tasks))
                while depth > size:
                    cut = min(stop, self._call(name, lambda q, f=first, n=size: q.stream_mark(f, n).end, "marking"))
                    if cut <= first or cut >= stop:
                        break
                    out.append(Range(name, host, self.opts.queue, first, cut))
                    first, depth = cut, depth - size
            out.append(Range(name, host, self.opts.queue, first, stop))
        return out

    def read(self, partition: InputPartition) -> Iterator[Any]:
        assert isinstance(partition, Range)
        return read_range(self.opts, self.schema, partition)

    def commit(self, end: dict[str, int]) -> None:
        if not self._hosts:
            self._refresh()                 # a restarted query may commit before it marks
        for name, stop in end.items():
            if name in self._hosts:
                self._call(name, lambda q, s=int(stop): q.stream_delete(s), "removing the committed messages of")

    def stop(self) -> None:
        for name in list(self._queues):
            self._drop(name)
