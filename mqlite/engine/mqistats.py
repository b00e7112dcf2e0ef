"""MQI statistics (STATMQI): the queue manager's count of the MQI calls its applications made in
an interval, written as a statistics message (MQCFH Type MQCFT_STATISTICS, Command
MQCMD_STATISTICS_MQI) to SYSTEM.ADMIN.STATISTICS.QUEUE at the end of each STATINT interval while
the queue manager's STATMQI is ON.

Where each figure comes from, so nothing is counted twice and nothing new sits on the message path:

- MQCONN, MQDISC (normal; implicit: the application went without MQDISC; queue manager: it
  ended the connection as it ended), MQOPEN and MQCLOSE (by object type), MQINQ and MQSET (by the object type of the
  handle), MQCMIT, MQBACK, MQSUB (durable, nondurable), MQSUBRQ and MQSTAT are counted as the server
  serves them (``MQICounts.call``); the queue manager's own connections are not counted.
- MQPUT, MQPUT1, MQGET and browse (by persistence, their bytes, their failures) and the expired
  and purged messages are the sums of the queue figures of the interval (engine/statistics.py's
  ``QueueStats``): while STATMQI is ON every queue handle opened keeps them, whether or not the
  queue's own statistics are reported (STATQ).
- The lists MQ indexes by object type (OpenCount, CloseCount, InqCount, SetCount and their
  failures) have one entry per MQOT_* value up to MQOT_TOPIC (index 0 unused), by persistence
  two entries (nonpersistent, persistent), DiscCount three (normal, implicit, queue manager).
  Figures MQ returns "when available" that mqlite does not count (callbacks, MQCTL, publications
  to topics) are left out."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.engine.statistics import statistics_message

OBJECT_TYPES = C.MQOT_TOPIC + 1          # the length of a list indexed by object type
DISC_NORMAL, DISC_IMPLICIT, DISC_Q_MGR = 0, 1, 2


def _per_type() -> list[int]:
    return [0] * OBJECT_TYPES


@dataclass(slots=True)
class MQICounts:
    """The MQI calls of one interval (the message path's figures are the queues', added at the end)."""
    conns: int = 0
    conn_fails: int = 0
    conns_max: int = 0
    discs: list[int] = field(default_factory=lambda: [0, 0, 0])
    opens: list[int] = field(default_factory=_per_type)
    open_fails: list[int] = field(default_factory=_per_type)
    closes: list[int] = field(default_factory=_per_type)
    close_fails: list[int] = field(default_factory=_per_type)
    inqs: list[int] = field(default_factory=_per_type)
    inq_fails: list[int] = field(default_factory=_per_type)
    sets: list[int] = field(default_factory=_per_type)
    set_fails: list[int] = field(default_factory=_per_type)
    commits: int = 0
    commit_fails: int = 0
    backs: int = 0
    subs_dur: int = 0
    subs_ndur: int = 0
    sub_fails: int = 0
    subrqs: int = 0
    subrq_fails: int = 0
    stats: int = 0
    stat_fails: int = 0
    # The counts of the intervals already ended, each list summed (the resource-usage publisher
    # reads running totals: ``totals``), and its own high-water mark of connections.
    carried: dict[str, int] = field(default_factory=dict)
    published_max: int = 0

    def reset(self, connections: int) -> None:
        """A new interval: every count back to nought (carried into the running totals); the
        most connections at once starts at the number connected now."""
        carried, published_max = self.totals(), self.published_max
        fresh = MQICounts(conns_max=connections)
        for name in self.__slots__:
            setattr(self, name, getattr(fresh, name))
        self.carried, self.published_max = carried, published_max

    def totals(self) -> dict[str, int]:
        """Every count since the queue manager started, by name, a list as its sum."""
        out = dict(self.carried)
        for name in self.__slots__:
            if name in ("carried", "conns_max", "published_max"):
                continue
            value = getattr(self, name)
            out[name] = out.get(name, 0) + (sum(value) if isinstance(value, list) else value)
        return out

    def connected(self, connections: int) -> None:
        self.conns += 1
        if connections > self.conns_max:
            self.conns_max = connections
        if connections > self.published_max:
            self.published_max = connections

    def call(self, ok: str, failed: str, succeeded: bool, index: int | None = None) -> None:
        """One call, counted as ``ok`` or ``failed`` (a list's entry ``index``, or a count; a
        failure MQ does not count has no name)."""
        name = ok if succeeded else failed
        if not name:
            return
        if index is None:
            setattr(self, name, getattr(self, name) + 1)
        elif 0 <= index < OBJECT_TYPES:
            getattr(self, name)[index] += 1

    def message(self, qmgr: str, cmdlevel: int, start: float, end: float, queues: list[Any]) -> bytes:
        """The MQI statistics message, the put and get figures summed from ``queues`` (the
        QueueStats of the interval), in MQ's order."""
        def total(attr: str) -> list[int]:
            return [sum(getattr(q, attr)[i] for q in queues) for i in (0, 1)]

        def count(attr: str) -> int:
            return sum(getattr(q, attr) for q in queues)
        params = [
            pcf.enc_int(F.MQIAMO_CONNS, self.conns), pcf.enc_int(F.MQIAMO_CONNS_FAILED, self.conn_fails),
            pcf.enc_int(F.MQIAMO_CONNS_MAX, self.conns_max), pcf.enc_int_list(F.MQIAMO_DISCS, self.discs),
            pcf.enc_int_list(F.MQIAMO_OPENS, self.opens), pcf.enc_int_list(F.MQIAMO_OPENS_FAILED, self.open_fails),
            pcf.enc_int_list(F.MQIAMO_CLOSES, self.closes),
            pcf.enc_int_list(F.MQIAMO_CLOSES_FAILED, self.close_fails),
            pcf.enc_int_list(F.MQIAMO_INQS, self.inqs), pcf.enc_int_list(F.MQIAMO_INQS_FAILED, self.inq_fails),
            pcf.enc_int_list(F.MQIAMO_SETS, self.sets), pcf.enc_int_list(F.MQIAMO_SETS_FAILED, self.set_fails),
            pcf.enc_int_list(F.MQIAMO_PUTS, total("puts")), pcf.enc_int(F.MQIAMO_PUTS_FAILED, count("put_fails")),
            pcf.enc_int_list(F.MQIAMO_PUT1S, total("put1s")),
            pcf.enc_int(F.MQIAMO_PUT1S_FAILED, count("put1_fails")),
            pcf.enc_int64_list(F.MQIAMO64_PUT_BYTES, total("put_bytes")),
            pcf.enc_int_list(F.MQIAMO_GETS, total("gets")),
            pcf.enc_int64_list(F.MQIAMO64_GET_BYTES, total("get_bytes")),
            pcf.enc_int(F.MQIAMO_GETS_FAILED, count("get_fails")),
            pcf.enc_int_list(F.MQIAMO_BROWSES, total("browses")),
            pcf.enc_int64_list(F.MQIAMO64_BROWSE_BYTES, total("browse_bytes")),
            pcf.enc_int(F.MQIAMO_BROWSES_FAILED, count("browse_fails")),
            pcf.enc_int(F.MQIAMO_COMMITS, self.commits), pcf.enc_int(F.MQIAMO_COMMITS_FAILED, self.commit_fails),
            pcf.enc_int(F.MQIAMO_BACKOUTS, self.backs),
            pcf.enc_int(F.MQIAMO_MSGS_EXPIRED, count("expired")), pcf.enc_int(F.MQIAMO_MSGS_PURGED, count("purged")),
            pcf.enc_int(F.MQIAMO_SUBS_DUR, self.subs_dur), pcf.enc_int(F.MQIAMO_SUBS_NDUR, self.subs_ndur),
            pcf.enc_int(F.MQIAMO_SUBS_FAILED, self.sub_fails),
            pcf.enc_int(F.MQIAMO_SUBRQS, self.subrqs), pcf.enc_int(F.MQIAMO_SUBRQS_FAILED, self.subrq_fails),
            pcf.enc_int(F.MQIAMO_STATS, self.stats), pcf.enc_int(F.MQIAMO_STATS_FAILED, self.stat_fails)]
        return statistics_message(F.MQCMD_STATISTICS_MQI, qmgr, cmdlevel, start, end, params, objects=False)


def handle_type(h: Any) -> int:
    """The object type of what a handle has open (MQINQ and MQSET are counted by it)."""
    if h is None:
        return 0
    if h.topic is not None:
        return C.MQOT_TOPIC
    if h.res is not None:
        return C.MQOT_Q
    if h.obj is not None and h.obj.objtype == "NAMELIST":
        return C.MQOT_NAMELIST
    return C.MQOT_Q_MGR
