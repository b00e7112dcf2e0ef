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

from mqlite.cmq import CMQC as C
from mqlite.spark.options import (
    LATEST,
    LOG,
    MQLiteError,
    Options,
    offset_for,
    open_queue,
    reason_text,
)
from mqlite.spark.read import MIN_SPLIT, Range, instances, oldest_age, read_range

COUNT_ALL = 2**31 - 1     # a mark's limit that only counts: no range is that long


def at(offsets: dict[str, Any], qmgr: str) -> int:
    """An instance's position in a stream's offsets (0 for an instance they do not name yet)."""
    value = offsets.get(qmgr, 0)
    return int(value["at"]) if isinstance(value, dict) else int(value)


def floor(offsets: dict[str, Any], qmgr: str) -> int:
    """The position an instance's stream started from: its commits remove nothing below it."""
    value = offsets.get(qmgr, 0)
    return int(value["from"]) if isinstance(value, dict) else 0


def offset(first: int, position: int) -> Any:
    """An instance's offset: the position, or with a stream that did not start at the earliest
    (startingOffsets) ``{"from": first, "at": position}``, the start kept in Spark's offset log
    so that a restarted query's commits leave alone what lay below it."""
    return {"from": first, "at": position} if first else position


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
        self._planned: dict[str, tuple[int, int, int]] = {}   # the last range marked: (start, end, count)
        self._last: dict[str, int] = {}                   # the end of the last batch planned

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_queues"] = {}
        return state

    def _queue(self, qmgr: str) -> Any:
        held = self._queues.get(qmgr)
        if held is None:
            conn = self.opts.connect(qmgr, self._hosts.get(qmgr, ""))
            held = conn, open_queue(conn, self.opts.queue, C.MQOO_BROWSE | C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE, qmgr,
                                    "a stream", selector=self.opts.selector)
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

    def initialOffset(self) -> dict[str, Any]:
        """Where a new query starts (a restarted one resumes from its checkpoint instead): each
        instance's earliest position, or with startingOffsets ``latest`` (-1) the queue's end now,
        past every message already on it."""
        out: dict[str, Any] = {}
        for name in self._refresh():
            given = offset_for(self.opts.starting, name)
            first = (self._call(name, lambda q: q.stream_mark(0).end, "marking") if given == LATEST
                     else max(0, given))
            out[name] = offset(first, first)
        return out

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxRows(self.opts.max_per_trigger) if self.opts.max_per_trigger else ReadAllAvailable()

    def latestOffset(self, start: dict[str, Any], limit: ReadLimit) -> dict[str, Any]:
        names = sorted(set(self._refresh()) | set(start))
        # maxMessagesPerTrigger is shared evenly between the instances (at least one each);
        # without it the range is counted all the same when failOnDataLoss wants the count.
        share = max(1, limit.max_rows // len(names)) if isinstance(limit, ReadMaxRows) else 0
        count = share or (COUNT_ALL if self.opts.fail_on_data_loss else 0)
        if self._target is not None and start and all(at(start, n) >= self._target.get(n, 0) for n in self._target):
            self._settle_available_now(start)
        out = {}
        for name in names:
            begin = at(start, name)
            end = begin                     # an instance that went away keeps its offset
            if name in self._hosts:
                mark = self._call(name, lambda q, b=begin: q.stream_mark(b, count), "marking")
                end = mark.end
                self._say_held(name, mark)
                if self._target is not None:
                    end = max(begin, min(end, self._target.get(name, begin)))   # AvailableNow
                self._planned[name] = (begin, end, mark.count if end == mark.end else -1)
            out[name] = offset(floor(start, name), end)
        self._last = {name: at(out, name) for name in out}
        return out

    def _settle_available_now(self, start: dict[str, Any]) -> None:
        """Spark tells a source that a batch is done when it plans the next one, so the last batch
        of a Trigger.AvailableNow run would stay on the queue. Spark asks for the latest offset
        from ``start`` only once every batch up to ``start`` is in its commit log (a restarted
        query reruns an uncommitted batch first), and an AvailableNow run whose start has reached
        its target asks for the last time: the batch ending there is removed now, as the next
        batch's planning would have removed it."""
        LOG.info("the last batch of an AvailableNow run on %s is removed at %s", self.opts.queue, start)
        self.commit(start)

    def reportLatestOffset(self) -> dict[str, Any] | None:
        """The query's progress (``latestOffset``): for each instance the position at the queue's
        end, how far that is past the end of the last batch planned (``behind``, in positions),
        the queue's depth, and the age in seconds of its oldest message — the stream's lag."""
        out: dict[str, Any] = {}
        # Only over the connections the stream holds: Spark may ask for its last progress after
        # stop(), and a connection made then would be left open, holding the queue in use.
        for name in sorted(n for n in self._hosts if n in self._queues):
            end = self._call(name, lambda q: q.stream_mark(0).end, "marking")
            depth = self._call(name, lambda q: q.inquire(C.MQIA_CURRENT_Q_DEPTH), "inquiring")
            oldest = self._call(name, lambda q: q.stream_read(0, end, 1), "reading the oldest message of")
            out[name] = {"position": end, "behind": max(0, end - int(self._last.get(name, end))), "depth": depth,
                         "oldestAgeSeconds": oldest_age(oldest[0][1]) if oldest else 0}
        return out or None

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

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> list[InputPartition]:
        """Each instance's range of the micro-batch, split for the executors to browse in parallel
        (the driver's commit removes it whole, so a split changes nothing for exactly once): into
        as many pieces as the application runs tasks at once, of at least MIN_SPLIT messages."""
        from mqlite.spark.settle import parallelism
        tasks = parallelism()
        out: list[InputPartition] = []
        for name in end:
            first, stop = at(start, name), at(end, name)
            if stop <= first:
                continue
            host = self._hosts.get(name, "")
            planned = self._planned.get(name)
            left = planned[2] if planned is not None and planned[:2] == (first, stop) else -1
            if tasks > 1 and name in self._hosts:
                depth = self._call(name, lambda q: q.inquire(C.MQIA_CURRENT_Q_DEPTH), "inquiring")
                size = max(MIN_SPLIT, -(-depth // tasks))
                while depth > size:
                    mark = self._call(name, lambda q, f=first, n=size: q.stream_mark(f, n), "marking")
                    cut = min(stop, mark.end)
                    if cut <= first or cut >= stop:
                        break
                    counted = mark.count if cut == mark.end else -1
                    out.append(Range(name, host, self.opts.queue, first, cut, expected=counted))
                    left = left - counted if left >= 0 and counted >= 0 else -1
                    first, depth = cut, depth - size
            out.append(Range(name, host, self.opts.queue, first, stop, expected=left))
        return out

    def read(self, partition: InputPartition) -> Iterator[Any]:
        assert isinstance(partition, Range)
        return read_range(self.opts, self.schema, partition)

    def commit(self, end: dict[str, Any]) -> None:
        if not self._hosts:
            self._refresh()                 # a restarted query may commit before it marks
        for name in end:
            if name in self._hosts:
                self._call(name, lambda q, s=at(end, name), f=floor(end, name): q.stream_delete(s, f),
                           "removing the committed messages of")

    def stop(self) -> None:
        for name in list(self._queues):
            self._drop(name)
