"""Queue statistics (STATQ, STATINT): the figures MQ keeps for each local queue, written as a
statistics message (MQCFH Type MQCFT_STATISTICS, Command MQCMD_STATISTICS_Q) to
SYSTEM.ADMIN.STATISTICS.QUEUE at the end of each interval.

What MQ documents and this follows:

- Whether a queue's figures are kept is decided when it is opened (MQ: "statistics messages are
  generated only for queues that are opened after statistics collection has been enabled"): the
  queue's STATQ, or the queue manager's when the queue's is QMGR; the queue manager's NONE turns
  collection off whatever the queue says (``queue_statistics_on``). A handle opened while it is on
  carries the queue's ``QueueStats`` and records what is done through it; there is nothing on the
  path of a handle opened while it is off.
- A message holds one group (MQGACF_Q_STATISTICS_DATA) per queue used in the interval, in MQ's
  order and types: QName, CreationDate/Time, QueueType, QueueDefinitionType, QMinDepth, QMaxDepth,
  AvgTimeOnQ (microseconds, nonpersistent and persistent: MQCFIL64), PutCount and Put1Count (by
  persistence), PutFailCount, Put1FailCount, PutBytes (MQCFIL64), GetCount, GetBytes,
  GetFailCount, BrowseCount, BrowseBytes, BrowseFailCount, NonQueuedMsgCount, ExpiredMsgCount,
  PurgedMsgCount (the layout of a statistics message recorded from IBM MQ 9.1, which DataDog's check
  parses).
- The interval is STATINT seconds; RESET QMGR TYPE(STATISTICS) ends it at once; the queue manager
  ends one when it ends. A queue nobody used in the interval has no group, and an interval in which
  no queue was used writes no message.
- Writing the message never fails what the queue manager was doing: a statistics queue that is
  full, inhibited or missing loses the message (as MQ's event and statistics writers do).

Counting, by the MQI call through a handle that keeps figures: MQPUT and MQPUT1 (their bytes are
the message data's, by the message's persistence), a failed one (any reason), MQGET and browse
(bytes, by persistence; MQRC_NO_MSG_AVAILABLE counts as a failure, as MQ's GetFailCount does),
the depth seen after each (its minimum and maximum), and each got message's time on the queue."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import MD, OD, PMO, pad
from mqlite.engine.clock import mq_date_time
from mqlite.engine.status import md_put_time

STATISTICS_QUEUE = "SYSTEM.ADMIN.STATISTICS.QUEUE"


def channel_statistics_on(qmgr_statchl: int, channel_statchl: int) -> bool:
    """MQ's rule for STATCHL: the queue manager's NONE turns every channel off; a channel's QMGR
    takes the queue manager's level (LOW, MEDIUM or HIGH: on); its own OFF is off, any level on."""
    if qmgr_statchl == C.MQMON_NONE:
        return False
    level = qmgr_statchl if channel_statchl == C.MQMON_Q_MGR else channel_statchl
    return level in (C.MQMON_LOW, C.MQMON_MEDIUM, C.MQMON_HIGH)


def channel_group(name: str, chltype: int, rqmname: str, conname: str, msgs: int, nbytes: int,
                  batches: Any = None) -> bytes:
    """One channel's MQGACF_CHL_STATISTICS_DATA group: ChannelName, ChannelType, RemoteQmgr,
    ConnectionName, Msgs, Bytes, for a sending channel's ``batches`` (channels/status.py's
    BatchFigures) NetTimeMin/Avg/Max (microseconds, when a batch was confirmed), FullBatches,
    IncompleteBatches and AverageBatchSize, then PutRetries (mqlite's receiver does not retry
    puts: 0), in MQ's order."""
    params = [pcf.enc_str(F.MQCACH_CHANNEL_NAME, pad(name, 20)), pcf.enc_int(F.MQIACH_CHANNEL_TYPE, chltype),
              pcf.enc_str(C.MQCA_REMOTE_Q_MGR_NAME, pad(rqmname, 48)),
              pcf.enc_str(F.MQCACH_CONNECTION_NAME, pad(conname, 264)),
              pcf.enc_int(F.MQIAMO_MSGS, msgs), pcf.enc_int64(F.MQIAMO64_BYTES, nbytes)]
    if batches is not None and batches.net_n:
        params += [pcf.enc_int(F.MQIAMO_NET_TIME_MIN, batches.net_min),
                   pcf.enc_int(F.MQIAMO_NET_TIME_AVG, batches.net_sum // batches.net_n),
                   pcf.enc_int(F.MQIAMO_NET_TIME_MAX, batches.net_max)]
    count = batches.full + batches.incomplete if batches is not None else 0
    if count:
        params += [pcf.enc_int(F.MQIAMO_FULL_BATCHES, batches.full),
                   pcf.enc_int(F.MQIAMO_INCOMPLETE_BATCHES, batches.incomplete),
                   pcf.enc_int(F.MQIAMO_AVG_BATCH_SIZE, round(batches.msgs / count))]
    params.append(pcf.enc_int(F.MQIAMO_PUT_RETRIES, 0))
    return pcf.enc_group(F.MQGACF_CHL_STATISTICS_DATA, params)


def queue_statistics_on(qmgr_statq: int, queue_statq: int) -> bool:
    """MQ's rule for STATQ: the queue manager's NONE turns every queue off; otherwise a queue's ON
    or OFF decides, and its QMGR takes the queue manager's ON or OFF."""
    if qmgr_statq == C.MQMON_NONE:
        return False
    if queue_statq == C.MQMON_Q_MGR:
        return qmgr_statq == C.MQMON_ON
    return queue_statq == C.MQMON_ON


TOTALLED = ("puts", "put1s", "put_bytes", "put_fails", "put1_fails", "gets", "get_bytes", "get_fails", "browses",
            "browse_bytes", "browse_fails", "expired", "purged", "qtime", "timed", "opens", "closes", "inqs", "sets")


@dataclass(slots=True)
class QueueStats:
    """One queue's figures since its last statistics message. Pairs are (nonpersistent,
    persistent), as MQ's lists are."""
    min_depth: int = 0
    max_depth: int = 0
    used: bool = False
    puts: list[int] = field(default_factory=lambda: [0, 0])
    put1s: list[int] = field(default_factory=lambda: [0, 0])
    put_bytes: list[int] = field(default_factory=lambda: [0, 0])
    put_fails: int = 0
    put1_fails: int = 0
    gets: list[int] = field(default_factory=lambda: [0, 0])
    get_bytes: list[int] = field(default_factory=lambda: [0, 0])
    get_fails: int = 0
    browses: list[int] = field(default_factory=lambda: [0, 0])
    browse_bytes: list[int] = field(default_factory=lambda: [0, 0])
    browse_fails: int = 0
    not_queued: int = 0
    expired: int = 0
    purged: int = 0
    qtime: list[float] = field(default_factory=lambda: [0.0, 0.0])     # seconds, summed
    timed: list[int] = field(default_factory=lambda: [0, 0])
    opens: int = 0                  # MQOPEN, MQCLOSE, MQINQ, MQSET through a counted handle
    closes: int = 0
    inqs: int = 0
    sets: int = 0
    # The counts of the intervals already ended, added up (the resource-usage publisher reads
    # running totals: ``totals``), and whether a resource-usage subscriber watches the queue.
    carried: dict[str, float] = field(default_factory=dict)

    def reset(self, depth: int) -> None:
        """A new interval: every count back to nought, the depth range the depth now (the
        counts carried into the running totals). In place: the handles that record into it keep
        doing so."""
        carried = self.totals()
        fresh = QueueStats(depth, depth)
        for name in self.__slots__:
            setattr(self, name, getattr(fresh, name))
        self.carried = carried

    def totals(self) -> dict[str, float]:
        """Every count since the figures were first kept, by name (lists by persistence as
        ``name0`` and ``name1``)."""
        out = dict(self.carried)
        for name in TOTALLED:
            value = getattr(self, name)
            if isinstance(value, list):
                for i, v in enumerate(value):
                    out[f"{name}{i}"] = out.get(f"{name}{i}", 0) + v
            else:
                out[name] = out.get(name, 0) + value
        return out

    def depth(self, depth: int) -> None:
        self.used = True
        if depth < self.min_depth:
            self.min_depth = depth
        if depth > self.max_depth:
            self.max_depth = depth

    def opened(self, now: float) -> None:
        self.opens += 1

    def closed(self, now: float) -> None:
        self.closes += 1

    def inquired(self) -> None:
        self.inqs += 1

    def altered(self) -> None:
        self.sets += 1

    def put(self, persistent: bool, length: int, depth: int, put1: bool) -> None:
        p = int(persistent)
        (self.put1s if put1 else self.puts)[p] += 1
        self.put_bytes[p] += length
        self.depth(depth)

    def put_failed(self, put1: bool) -> None:
        self.used = True
        if put1:
            self.put1_fails += 1
        else:
            self.put_fails += 1

    def got(self, persistent: bool, length: int, depth: int, spent: float | None) -> None:
        p = 1 if persistent else 0
        self.gets[p] += 1
        self.get_bytes[p] += length
        if spent is not None:
            self.qtime[p] += spent
            self.timed[p] += 1
        self.used = True
        if depth < self.min_depth:          # a get only lowers the depth: the maximum stands
            self.min_depth = depth

    def got_message(self, msg: Any, length: int, depth: int, now: float) -> None:
        """A message taken by MQGET: ``got``, its time on the queue from its put time."""
        t = md_put_time(msg.md)
        self.got(msg.persistent, length, depth, None if t is None else (now - t if now > t else 0.0))

    def browsed(self, persistent: bool, length: int) -> None:
        self.used = True
        p = int(persistent)
        self.browses[p] += 1
        self.browse_bytes[p] += length

    def get_failed(self, browse: bool) -> None:
        self.used = True
        if browse:
            self.browse_fails += 1
        else:
            self.get_fails += 1

    def group(self, name: str, obj: Any) -> bytes:
        """This queue's MQGACF_Q_STATISTICS_DATA group."""
        avg = [int(self.qtime[i] * 1_000_000 / self.timed[i]) if self.timed[i] else 0 for i in (0, 1)]
        return pcf.enc_group(F.MQGACF_Q_STATISTICS_DATA, [
            pcf.enc_str(C.MQCA_Q_NAME, pad(name, 48)),
            pcf.enc_str(C.MQCA_CREATION_DATE, pad(obj["CRDATE"] if obj is not None else "", 12)),
            pcf.enc_str(C.MQCA_CREATION_TIME, pad(obj["CRTIME"] if obj is not None else "", 8)),
            pcf.enc_int(C.MQIA_Q_TYPE, C.MQQT_LOCAL),
            pcf.enc_int(C.MQIA_DEFINITION_TYPE, obj["DEFTYPE"] if obj is not None else C.MQQDT_PREDEFINED),
            pcf.enc_int(F.MQIAMO_Q_MIN_DEPTH, self.min_depth),
            pcf.enc_int(F.MQIAMO_Q_MAX_DEPTH, self.max_depth),
            pcf.enc_int64_list(F.MQIAMO64_AVG_Q_TIME, avg),
            pcf.enc_int_list(F.MQIAMO_PUTS, self.puts),
            pcf.enc_int(F.MQIAMO_PUTS_FAILED, self.put_fails),
            pcf.enc_int_list(F.MQIAMO_PUT1S, self.put1s),
            pcf.enc_int(F.MQIAMO_PUT1S_FAILED, self.put1_fails),
            pcf.enc_int64_list(F.MQIAMO64_PUT_BYTES, self.put_bytes),
            pcf.enc_int_list(F.MQIAMO_GETS, self.gets),
            pcf.enc_int64_list(F.MQIAMO64_GET_BYTES, self.get_bytes),
            pcf.enc_int(F.MQIAMO_GETS_FAILED, self.get_fails),
            pcf.enc_int_list(F.MQIAMO_BROWSES, self.browses),
            pcf.enc_int64_list(F.MQIAMO64_BROWSE_BYTES, self.browse_bytes),
            pcf.enc_int(F.MQIAMO_BROWSES_FAILED, self.browse_fails),
            pcf.enc_int(F.MQIAMO_MSGS_NOT_QUEUED, self.not_queued),
            pcf.enc_int(F.MQIAMO_MSGS_EXPIRED, self.expired),
            pcf.enc_int(F.MQIAMO_MSGS_PURGED, self.purged),
        ])


def statistics_message(command: int, qmgr: str, cmdlevel: int, start: float, end: float,
                       groups: list[bytes], objects: bool = True) -> bytes:
    """A statistics message: MQCFH (MQCFT_STATISTICS, version 3), the queue manager, the
    interval's start and end, the command level, then the object count and one group per object
    (``objects``), or the figures themselves (an MQI statistics message)."""
    sd, st = mq_date_time(start)
    ed, et = mq_date_time(end)
    params = [pcf.enc_str(C.MQCA_Q_MGR_NAME, pad(qmgr, 48)), pcf.enc_str(F.MQCAMO_START_DATE, sd),
              pcf.enc_str(F.MQCAMO_START_TIME, st), pcf.enc_str(F.MQCAMO_END_DATE, ed),
              pcf.enc_str(F.MQCAMO_END_TIME, et), pcf.enc_int(C.MQIA_COMMAND_LEVEL, cmdlevel)]
    if objects:
        params.append(pcf.enc_int(F.MQIAMO_OBJECT_COUNT, len(groups)))
    return pcf.encode(pcf.Header(type=F.MQCFT_STATISTICS, version=F.MQCFH_VERSION_3, command=command),
                      params + groups)


def put_statistics(qm: Any, agent: Any, body: bytes) -> bool:
    """Put one statistics message; False when the statistics queue could not take it (lost, as
    MQ loses it)."""
    md = MD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_DATAGRAM, Persistence=C.MQPER_NOT_PERSISTENT)
    try:
        qm.put1(agent, OD(ObjectName=pad(STATISTICS_QUEUE, 48)), md, PMO(Options=C.MQPMO_NO_SYNCPOINT), body)
    except MQIError:
        return False
    return True


def write_queue_statistics(qm: Any, agent: Any, start: float, end: float) -> int:
    """End the interval from ``start`` to ``end``: one statistics message for the queues used in
    it, put to SYSTEM.ADMIN.STATISTICS.QUEUE by ``agent`` (a queue manager connection whose own
    puts are not counted); every queue's figures start again. Returns the number of queues
    reported (0: no message). A put that fails loses the message, as MQ loses it."""
    groups = []
    qmgr_statq = qm.qmgr["STATQ"]
    for name, qs in sorted(qm.queues.items()):
        st = qs.stats
        if st is None:
            continue
        obj = qm.queue(name)
        # Figures kept for the MQI statistics alone (STATMQI) are not the queue's to report.
        if st.used and obj is not None and queue_statistics_on(qmgr_statq, obj["STATQ"]):
            groups.append(st.group(name, obj))
        st.reset(qs.depth)
    if not groups:
        return 0
    body = statistics_message(F.MQCMD_STATISTICS_Q, qm.name, qm.qmgr["CMDLEVEL"], start, end, groups)
    return len(groups) if put_statistics(qm, agent, body) else 0


def get_wait_ended(conn: Any, hobj: int) -> None:
    """An MQGET's wait ran out (the server's waiting loop): one failed get for a counted queue."""
    h = conn.handles.get(hobj)
    if h is not None and h.stats is not None:
        h.stats.get_failed(False)
