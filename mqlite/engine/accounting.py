"""Accounting (ACCTMQI, ACCTQ, ACCTINT, ACCTCONO): what each application did through its
connection, written as accounting messages (MQCFH Type MQCFT_ACCOUNTING) to
SYSTEM.ADMIN.ACCOUNTING.QUEUE when it disconnects, and every ACCTINT seconds while it stays
connected and keeps working (MQ's intermediate records, numbered by SeqNumber).

MQ's rules, as decisions here:

- Whether a connection is accounted is decided when it connects (``connection_levels``): the
  queue manager's ACCTMQI, and its ACCTQ as the level the connection's queues with ACCTQ(QMGR)
  take; with ACCTCONO(ENABLED) the MQCNO's MQCNO_ACCOUNTING_MQI_* and MQCNO_ACCOUNTING_Q_* options
  override both, except that the queue manager's ACCTQ(NONE) is never overridden. The queue
  manager's own connections are never accounted.
- Whether a queue is accounted for a connection is decided when the connection opens it
  (``queue_accounting_on``): NONE is off; a queue's ON or OFF decides; its QMGR takes the
  connection's level. Only local queues are accounted: an alias counts against its base queue, a
  remote queue against its transmission queue (the queue a handle resolves to).
- An MQI accounting message (MQCMD_ACCOUNTING_MQI) carries the connection's MQI calls and, summed
  over the queues it used, its puts, gets and browses with the smallest and largest message. A
  queue accounting message (MQCMD_ACCOUNTING_Q) carries one QAccountingData group per accounted
  queue used in the interval, at most 100 a message (more messages, MQCFH MsgSeqNumber counting
  them, the last with Control MQCFC_LAST).
- Nothing is measured for a connection that is not accounted: its handles carry no recorder; an
  accounted handle records into its connection's ``QueueAccount`` beside the queue's statistics
  (``Recorders`` when both are kept). Writing a record never fails what caused it: a full or
  inhibited accounting queue loses the message, as MQ loses it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import MD, OD, PMO, pad
from mqlite.engine.clock import mq_date_time
from mqlite.engine.mqistats import MQICounts
from mqlite.engine.status import md_put_time

ACCOUNTING_QUEUE = "SYSTEM.ADMIN.ACCOUNTING.QUEUE"
GROUPS_PER_MESSAGE = 100


def connection_levels(acctmqi: int, acctq: int, acctcono: int, options: int) -> tuple[bool, int]:
    """At MQCONN: whether the connection's MQI calls are accounted, and the ACCTQ level its queues
    with ACCTQ(QMGR) take (MQMON_ON, MQMON_OFF or MQMON_NONE)."""
    mqi = acctmqi == C.MQMON_ON
    level = acctq
    if acctcono == C.MQMON_ENABLED:
        if options & C.MQCNO_ACCOUNTING_MQI_ENABLED:
            mqi = True
        elif options & C.MQCNO_ACCOUNTING_MQI_DISABLED:
            mqi = False
        if level != C.MQMON_NONE:
            if options & C.MQCNO_ACCOUNTING_Q_ENABLED:
                level = C.MQMON_ON
            elif options & C.MQCNO_ACCOUNTING_Q_DISABLED:
                level = C.MQMON_OFF
    return mqi, level


def queue_accounting_on(level: int, queue_acctq: int) -> bool:
    """At MQOPEN: whether the queue is accounted for a connection whose level is ``level``."""
    if level == C.MQMON_NONE:
        return False
    if queue_acctq == C.MQMON_Q_MGR:
        return level == C.MQMON_ON
    return queue_acctq == C.MQMON_ON


N = TypeVar("N", int, float)


def _low(current: N, value: N, count: int) -> N:
    """The smallest value seen, ``value`` being the ``count``-th."""
    return value if count == 1 or value < current else current


def _sized(total: list[int], low: list[int], high: list[int], p: int, length: int, count: int) -> None:
    """One message's length into a (nonpersistent, persistent) byte total, minimum and maximum,
    the message being the ``count``-th of its persistence."""
    total[p] += length
    low[p] = _low(low[p], length, count)
    if length > high[p]:
        high[p] = length


@dataclass(slots=True)
class QueueAccount:
    """What one connection did to one queue in the interval; pairs by persistence
    (nonpersistent, persistent), as MQ's lists are. ``reported``: the queue's own group is
    written (ACCTQ); otherwise its figures serve the MQI accounting alone."""
    name: str
    reported: bool
    opens: int = 0
    opened_at: float = 0.0          # first opened (in this interval, or before it if still open)
    closed_at: float = 0.0          # last closed in the interval (0: not closed)
    open_handles: int = 0
    puts: list[int] = field(default_factory=lambda: [0, 0])
    put1s: list[int] = field(default_factory=lambda: [0, 0])
    put_fails: int = 0
    put1_fails: int = 0
    put_bytes: list[int] = field(default_factory=lambda: [0, 0])
    put_min: list[int] = field(default_factory=lambda: [0, 0])
    put_max: list[int] = field(default_factory=lambda: [0, 0])
    gets: list[int] = field(default_factory=lambda: [0, 0])
    get_fails: int = 0
    get_bytes: list[int] = field(default_factory=lambda: [0, 0])
    get_min: list[int] = field(default_factory=lambda: [0, 0])
    get_max: list[int] = field(default_factory=lambda: [0, 0])
    browses: list[int] = field(default_factory=lambda: [0, 0])
    browse_fails: int = 0
    browse_bytes: list[int] = field(default_factory=lambda: [0, 0])
    browse_min: list[int] = field(default_factory=lambda: [0, 0])
    browse_max: list[int] = field(default_factory=lambda: [0, 0])
    qtime_min: list[float] = field(default_factory=lambda: [0.0, 0.0])
    qtime_sum: list[float] = field(default_factory=lambda: [0.0, 0.0])
    qtime_max: list[float] = field(default_factory=lambda: [0.0, 0.0])
    timed: list[int] = field(default_factory=lambda: [0, 0])
    used: bool = False

    # --- the recorder's calls (the same as engine/statistics.py's QueueStats) -----------------
    def opened(self, now: float) -> None:
        self.used = True
        self.opens += 1
        self.open_handles += 1
        if not self.opened_at:
            self.opened_at = now

    def closed(self, now: float) -> None:
        self.open_handles -= 1
        self.closed_at = now

    def inquired(self) -> None:
        pass                                # (counted by the MQI accounting, not by queue)

    def altered(self) -> None:
        pass

    def put(self, persistent: bool, length: int, depth: int, put1: bool) -> None:
        p = int(persistent)
        counts = self.put1s if put1 else self.puts
        counts[p] += 1
        _sized(self.put_bytes, self.put_min, self.put_max, p, length, self.puts[p] + self.put1s[p])
        self.used = True

    def put_failed(self, put1: bool) -> None:
        self.used = True
        if put1:
            self.put1_fails += 1
        else:
            self.put_fails += 1

    def got_message(self, msg: Any, length: int, depth: int, now: float) -> None:
        p = 1 if msg.persistent else 0
        self.gets[p] += 1
        _sized(self.get_bytes, self.get_min, self.get_max, p, length, self.gets[p])
        t = md_put_time(msg.md)
        if t is not None:
            spent = now - t if now > t else 0.0
            self.timed[p] += 1
            self.qtime_sum[p] += spent
            self.qtime_min[p] = _low(self.qtime_min[p], spent, self.timed[p])
            if spent > self.qtime_max[p]:
                self.qtime_max[p] = spent
        self.used = True

    def browsed(self, persistent: bool, length: int) -> None:
        p = int(persistent)
        self.browses[p] += 1
        _sized(self.browse_bytes, self.browse_min, self.browse_max, p, length, self.browses[p])
        self.used = True

    def get_failed(self, browse: bool) -> None:
        self.used = True
        if browse:
            self.browse_fails += 1
        else:
            self.get_fails += 1

    def restart(self) -> bool:
        """The figures for the next interval, in place (the handles still open record into
        it): a queue still open keeps its open time; False for one closed (dropped)."""
        if self.open_handles <= 0:
            return False
        fresh = QueueAccount(self.name, self.reported, opened_at=self.opened_at, open_handles=self.open_handles)
        for name in self.__slots__:
            setattr(self, name, getattr(fresh, name))
        return True

    def group(self, obj: Any) -> bytes:
        """This queue's MQGACF_Q_ACCOUNTING_DATA group, in MQ's order."""
        od, ot = mq_date_time(self.opened_at)
        micro = 1_000_000
        params = [
            pcf.enc_str(C.MQCA_Q_NAME, pad(self.name, 48)),
            pcf.enc_str(C.MQCA_CREATION_DATE, pad(obj["CRDATE"] if obj is not None else "", 12)),
            pcf.enc_str(C.MQCA_CREATION_TIME, pad(obj["CRTIME"] if obj is not None else "", 8)),
            pcf.enc_int(C.MQIA_Q_TYPE, C.MQQT_LOCAL),
            pcf.enc_int(C.MQIA_DEFINITION_TYPE, obj["DEFTYPE"] if obj is not None else C.MQQDT_PREDEFINED),
            pcf.enc_int(F.MQIAMO_OPENS, self.opens),
            pcf.enc_str(F.MQCAMO_OPEN_DATE, od), pcf.enc_str(F.MQCAMO_OPEN_TIME, ot)]
        if self.closed_at:
            cd, ct = mq_date_time(self.closed_at)
            params += [pcf.enc_str(F.MQCAMO_CLOSE_DATE, cd), pcf.enc_str(F.MQCAMO_CLOSE_TIME, ct)]
        params += [
            pcf.enc_int_list(F.MQIAMO_PUTS, self.puts), pcf.enc_int(F.MQIAMO_PUTS_FAILED, self.put_fails),
            pcf.enc_int_list(F.MQIAMO_PUT1S, self.put1s), pcf.enc_int(F.MQIAMO_PUT1S_FAILED, self.put1_fails),
            pcf.enc_int64_list(F.MQIAMO64_PUT_BYTES, self.put_bytes),
            pcf.enc_int_list(F.MQIAMO_PUT_MIN_BYTES, self.put_min),
            pcf.enc_int_list(F.MQIAMO_PUT_MAX_BYTES, self.put_max),
            pcf.enc_int_list(F.MQIAMO_GETS, self.gets), pcf.enc_int(F.MQIAMO_GETS_FAILED, self.get_fails),
            pcf.enc_int64_list(F.MQIAMO64_GET_BYTES, self.get_bytes),
            pcf.enc_int_list(F.MQIAMO_GET_MIN_BYTES, self.get_min),
            pcf.enc_int_list(F.MQIAMO_GET_MAX_BYTES, self.get_max),
            pcf.enc_int_list(F.MQIAMO_BROWSES, self.browses),
            pcf.enc_int(F.MQIAMO_BROWSES_FAILED, self.browse_fails),
            pcf.enc_int64_list(F.MQIAMO64_BROWSE_BYTES, self.browse_bytes),
            pcf.enc_int_list(F.MQIAMO_BROWSE_MIN_BYTES, self.browse_min),
            pcf.enc_int_list(F.MQIAMO_BROWSE_MAX_BYTES, self.browse_max),
            pcf.enc_int64_list(F.MQIAMO64_Q_TIME_MIN, [int(v * micro) for v in self.qtime_min]),
            pcf.enc_int64_list(F.MQIAMO64_Q_TIME_AVG, [int(self.qtime_sum[i] * micro / self.timed[i])
                                                        if self.timed[i] else 0 for i in (0, 1)]),
            pcf.enc_int64_list(F.MQIAMO64_Q_TIME_MAX, [int(v * micro) for v in self.qtime_max])]
        return pcf.enc_group(F.MQGACF_Q_ACCOUNTING_DATA, params)


class Recorders:
    """A handle whose queue keeps statistics and whose connection is accounted records into
    both (the handle's ``stats`` is this, or the one that is kept)."""
    __slots__ = ("a", "b")

    def __init__(self, a: Any, b: Any) -> None:
        self.a, self.b = a, b

    def opened(self, now: float) -> None:
        self.a.opened(now)
        self.b.opened(now)

    def closed(self, now: float) -> None:
        self.a.closed(now)
        self.b.closed(now)

    def inquired(self) -> None:
        self.a.inquired()
        self.b.inquired()

    def altered(self) -> None:
        self.a.altered()
        self.b.altered()

    def put(self, persistent: bool, length: int, depth: int, put1: bool) -> None:
        self.a.put(persistent, length, depth, put1)
        self.b.put(persistent, length, depth, put1)

    def put_failed(self, put1: bool) -> None:
        self.a.put_failed(put1)
        self.b.put_failed(put1)

    def got_message(self, msg: Any, length: int, depth: int, now: float) -> None:
        self.a.got_message(msg, length, depth, now)
        self.b.got_message(msg, length, depth, now)

    def browsed(self, persistent: bool, length: int) -> None:
        self.a.browsed(persistent, length)
        self.b.browsed(persistent, length)

    def get_failed(self, browse: bool) -> None:
        self.a.get_failed(browse)
        self.b.get_failed(browse)


@dataclass(slots=True)
class ConnAccount:
    """One accounted connection's interval: its MQI calls (``calls``, counted as the server
    serves them), its queues, the interval's start and the record's sequence number."""
    mqi: bool
    level: int
    start: float
    calls: MQICounts = field(default_factory=MQICounts)
    queues: dict[str, QueueAccount] = field(default_factory=dict)
    seq: int = 0
    active: bool = False            # some MQI call was made in the interval

    def queue(self, name: str, reported: bool) -> QueueAccount:
        qa = self.queues.get(name)
        if qa is None:
            qa = self.queues[name] = QueueAccount(name, reported)
        elif reported:
            qa.reported = True
        return qa


def _sum(queues: list[QueueAccount], attr: str) -> list[int]:
    return [sum(getattr(q, attr)[i] for q in queues) for i in (0, 1)]


def _extreme(queues: list[QueueAccount], attr: str, counts: tuple[str, ...], low: bool) -> int:
    """The smallest (``low``) or largest message of the connection, over both persistences."""
    seen: list[int] = [getattr(q, attr)[i] for q in queues for i in (0, 1) if sum(getattr(q, c)[i] for c in counts)]
    if not seen:
        return 0
    return min(seen) if low else max(seen)


def _header(qm: Any, conn: Any, acct: ConnAccount, end: float) -> list[bytes]:
    sd, st = mq_date_time(acct.start)
    ed, et = mq_date_time(end)
    return [pcf.enc_str(C.MQCA_Q_MGR_NAME, pad(qm.name, 48)), pcf.enc_str(F.MQCAMO_START_DATE, sd),
            pcf.enc_str(F.MQCAMO_START_TIME, st), pcf.enc_str(F.MQCAMO_END_DATE, ed),
            pcf.enc_str(F.MQCAMO_END_TIME, et), pcf.enc_int(C.MQIA_COMMAND_LEVEL, qm.qmgr["CMDLEVEL"]),
            pcf.enc_bytes(F.MQBACF_CONNECTION_ID, conn.conn_id), pcf.enc_int(F.MQIACF_SEQUENCE_NUMBER, acct.seq),
            pcf.enc_str(F.MQCACF_APPL_NAME, pad(conn.appl_name, 28)), pcf.enc_int(F.MQIACF_PROCESS_ID, conn.pid),
            pcf.enc_int(F.MQIACF_THREAD_ID, conn.tid), pcf.enc_str(F.MQCACF_USER_IDENTIFIER, pad(conn.user, 12))]


def mqi_message(qm: Any, conn: Any, acct: ConnAccount, end: float, disc: int | None) -> bytes:
    """The MQI accounting message of ``acct``'s interval ending at ``end``; ``disc`` (an
    MQDISCONNECT_* value) for the record written at disconnect."""
    calls, queues = acct.calls, list(acct.queues.values())
    cd, ct = mq_date_time(conn.started)
    params = _header(qm, conn, acct, end) + [pcf.enc_str(F.MQCAMO_CONN_DATE, cd),
                                              pcf.enc_str(F.MQCAMO_CONN_TIME, ct)]
    if conn.channel:
        params += [pcf.enc_str(F.MQCACH_CONNECTION_NAME, pad(conn.conname, 264)),
                   pcf.enc_str(F.MQCACH_CHANNEL_NAME, pad(conn.channel, 20))]
    if disc is not None:
        dd, dt = mq_date_time(end)
        params += [pcf.enc_str(F.MQCAMO_DISC_DATE, dd), pcf.enc_str(F.MQCAMO_DISC_TIME, dt),
                   pcf.enc_int(F.MQIAMO_DISC_TYPE, disc)]
    puts, gets, browses = ("puts", "put1s"), ("gets",), ("browses",)
    params += [
        pcf.enc_int_list(F.MQIAMO_OPENS, calls.opens), pcf.enc_int_list(F.MQIAMO_OPENS_FAILED, calls.open_fails),
        pcf.enc_int_list(F.MQIAMO_CLOSES, calls.closes), pcf.enc_int_list(F.MQIAMO_CLOSES_FAILED, calls.close_fails),
        pcf.enc_int_list(F.MQIAMO_PUTS, _sum(queues, "puts")),
        pcf.enc_int(F.MQIAMO_PUTS_FAILED, sum(q.put_fails for q in queues)),
        pcf.enc_int_list(F.MQIAMO_PUT1S, _sum(queues, "put1s")),
        pcf.enc_int(F.MQIAMO_PUT1S_FAILED, sum(q.put1_fails for q in queues)),
        pcf.enc_int64_list(F.MQIAMO64_PUT_BYTES, _sum(queues, "put_bytes")),
        pcf.enc_int(F.MQIAMO_PUT_MIN_BYTES, _extreme(queues, "put_min", puts, True)),
        pcf.enc_int(F.MQIAMO_PUT_MAX_BYTES, _extreme(queues, "put_max", puts, False)),
        pcf.enc_int_list(F.MQIAMO_GETS, _sum(queues, "gets")),
        pcf.enc_int(F.MQIAMO_GETS_FAILED, sum(q.get_fails for q in queues)),
        pcf.enc_int64_list(F.MQIAMO64_GET_BYTES, _sum(queues, "get_bytes")),
        pcf.enc_int(F.MQIAMO_GET_MIN_BYTES, _extreme(queues, "get_min", gets, True)),
        pcf.enc_int(F.MQIAMO_GET_MAX_BYTES, _extreme(queues, "get_max", gets, False)),
        pcf.enc_int_list(F.MQIAMO_BROWSES, _sum(queues, "browses")),
        pcf.enc_int(F.MQIAMO_BROWSES_FAILED, sum(q.browse_fails for q in queues)),
        pcf.enc_int64_list(F.MQIAMO64_BROWSE_BYTES, _sum(queues, "browse_bytes")),
        pcf.enc_int(F.MQIAMO_BROWSE_MIN_BYTES, _extreme(queues, "browse_min", browses, True)),
        pcf.enc_int(F.MQIAMO_BROWSE_MAX_BYTES, _extreme(queues, "browse_max", browses, False)),
        pcf.enc_int(F.MQIAMO_COMMITS, calls.commits), pcf.enc_int(F.MQIAMO_COMMITS_FAILED, calls.commit_fails),
        pcf.enc_int(F.MQIAMO_BACKOUTS, calls.backs),
        pcf.enc_int_list(F.MQIAMO_INQS, calls.inqs), pcf.enc_int_list(F.MQIAMO_INQS_FAILED, calls.inq_fails),
        pcf.enc_int_list(F.MQIAMO_SETS, calls.sets), pcf.enc_int_list(F.MQIAMO_SETS_FAILED, calls.set_fails),
        pcf.enc_int(F.MQIAMO_SUBS_DUR, calls.subs_dur), pcf.enc_int(F.MQIAMO_SUBS_NDUR, calls.subs_ndur),
        pcf.enc_int(F.MQIAMO_SUBS_FAILED, calls.sub_fails),
        pcf.enc_int(F.MQIAMO_SUBRQS, calls.subrqs), pcf.enc_int(F.MQIAMO_SUBRQS_FAILED, calls.subrq_fails),
        pcf.enc_int(F.MQIAMO_STATS, calls.stats), pcf.enc_int(F.MQIAMO_STATS_FAILED, calls.stat_fails)]
    return pcf.encode(pcf.Header(type=F.MQCFT_ACCOUNTING, version=F.MQCFH_VERSION_3,
                                 command=F.MQCMD_ACCOUNTING_MQI), params)


def queue_messages(qm: Any, conn: Any, acct: ConnAccount, end: float) -> list[bytes]:
    """The queue accounting messages of the interval: the accounted queues used, 100 a message."""
    groups = [qa.group(qm.queue(qa.name)) for _, qa in sorted(acct.queues.items()) if qa.reported and qa.used]
    out = []
    for i in range(0, len(groups), GROUPS_PER_MESSAGE):
        part = groups[i:i + GROUPS_PER_MESSAGE]
        last = i + GROUPS_PER_MESSAGE >= len(groups)
        header = pcf.Header(type=F.MQCFT_ACCOUNTING, version=F.MQCFH_VERSION_3, command=F.MQCMD_ACCOUNTING_Q,
                            msg_seq_number=i // GROUPS_PER_MESSAGE + 1,
                            control=F.MQCFC_LAST if last else F.MQCFC_NOT_LAST)
        out.append(pcf.encode(header, _header(qm, conn, acct, end) + [pcf.enc_int(F.MQIAMO_OBJECT_COUNT, len(part))]
                              + part))
    return out


class Accounting:
    """The queue manager's accounting writer: records each accounted connection's interval at
    MQDISC and every ACCTINT seconds, through a queue manager connection of its own (``start``
    connects it, before an ending queue manager would refuse it)."""

    def __init__(self, qm: Any) -> None:
        self.qm = qm
        self.agent: Any = None

    def start(self) -> None:
        if self.agent is None:
            try:
                self.agent = self.qm.agent()
            except MQIError:
                pass

    def connected(self, conn: Any) -> None:
        """MQCONN: the connection's accounting, as the queue manager's attributes and its MQCNO
        options decide (nothing for a connection that is not accounted)."""
        q = self.qm.qmgr
        mqi, level = connection_levels(q["ACCTMQI"], q["ACCTQ"], q["ACCTCONO"], conn.conn_opts)
        conn.acct_level = level
        if mqi:
            conn.acct = ConnAccount(True, level, conn.started)

    def for_queue(self, conn: Any, name: str, obj: Any) -> QueueAccount | None:
        """MQOPEN of local queue ``name`` (definition ``obj``): the connection's record of it, or
        None when neither its MQI calls nor the queue are accounted."""
        reported = obj is not None and queue_accounting_on(conn.acct_level, obj["ACCTQ"])
        acct: ConnAccount | None = conn.acct
        if acct is None:
            if not reported:
                return None
            acct = conn.acct = ConnAccount(False, conn.acct_level, self.qm.clock.now())
        elif not (reported or acct.mqi):
            return None
        return acct.queue(name, reported)

    def record(self, conn: Any, now: float, disc: int | None = None) -> int:
        """Write the connection's accounting messages for the interval ending ``now`` (at
        disconnect ``disc`` says how it ended) and start the next; returns how many were put."""
        acct = conn.acct
        bodies = queue_messages(self.qm, conn, acct, now)
        if acct.mqi:
            bodies.insert(0, mqi_message(self.qm, conn, acct, now, disc))
        n = sum(self._put(body) for body in bodies)
        acct.seq += 1
        acct.start, acct.active = now, False
        acct.calls = MQICounts()
        acct.queues = {name: qa for name, qa in acct.queues.items() if qa.restart()}
        return n

    def due(self, now: float) -> int:
        """The intermediate records of the connections accounted for ACCTINT seconds or more
        that did something in that time (a connection that did nothing has nothing to record)."""
        interval = self.qm.qmgr["ACCTINT"]
        n = 0
        for conn in list(self.qm.conns.values()):
            acct = conn.acct
            if acct is not None and now - acct.start >= interval:
                if acct.active or any(qa.used for qa in acct.queues.values()):
                    n += self.record(conn, now)
                else:
                    acct.start = now
        return n

    def _put(self, body: bytes) -> int:
        if self.agent is None:
            return 0
        md = MD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_DATAGRAM, Persistence=C.MQPER_NOT_PERSISTENT)
        try:
            self.qm.put1(self.agent, OD(ObjectName=pad(ACCOUNTING_QUEUE, 48)), md, PMO(Options=C.MQPMO_NO_SYNCPOINT),
                         body)
        except MQIError:
            return 0
        return 1
