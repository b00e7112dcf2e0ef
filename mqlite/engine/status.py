"""A local queue's status as DISPLAY QSTATUS TYPE(QUEUE) and PCF Inquire Queue Status show it, its
statistics since RESET QSTATS, and online monitoring (MONQ): the fields declared once
(``QSTATUS_FIELDS``: MQSC keyword, PCF parameter), their values computed here for both.

Monitoring as MQ does it: the queue's MONQ, or the queue manager's when the queue says QMGR (and
NONE at the queue manager turns it off whatever the queue says). While it is on, MSGAGE is the age
in seconds of the oldest message on the queue and QTIME two averages of the time the messages got
from it spent there, in microseconds: a short-term one (each get weighs 1/4) and a long-term one
(1/32). While it is off they are blank in MQSC and -1 in PCF, as MQ answers."""
from __future__ import annotations

import calendar
from typing import Any, Iterable

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq.structs import MD
from mqlite.engine.clock import mq_date_time
from mqlite.engine.fields import Field, enum
from mqlite.engine.message import Message
from mqlite.engine.queue import QueueState
from mqlite.objects.model import MQObject

SHORT, LONG = 1 / 4, 1 / 32              # QTIME's weights of the latest message
_MONQ = enum({C.MQMON_Q_MGR: "QMGR", C.MQMON_OFF: "OFF", C.MQMON_LOW: "LOW", C.MQMON_MEDIUM: "MEDIUM",
              C.MQMON_HIGH: "HIGH", C.MQMON_NONE: "NONE"})


def _blank_if_off(value: Any) -> str:
    return "" if value == -1 else str(value)


def _qtime(value: Any) -> str:
    short, long_ = value
    return " , " if short < 0 else f"{short}, {long_}"


QSTATUS_FIELDS = (                       # in DISPLAY QSTATUS's order
    Field("CURDEPTH", C.MQIA_CURRENT_Q_DEPTH),
    Field("IPPROCS", C.MQIA_OPEN_INPUT_COUNT),
    Field("LGETDATE", F.MQCACF_LAST_GET_DATE, 12),
    Field("LGETTIME", F.MQCACF_LAST_GET_TIME, 8),
    Field("LPUTDATE", F.MQCACF_LAST_PUT_DATE, 12),
    Field("LPUTTIME", F.MQCACF_LAST_PUT_TIME, 8),
    # the log extent media recovery of the queue needs: blank with circular logging (mqlite's)
    Field("MEDIALOG", F.MQCACF_MEDIA_LOG_EXTENT_NAME, F.MQ_LOG_EXTENT_NAME_LENGTH),
    Field("MONQ", C.MQIA_MONITORING_Q, word=_MONQ),
    Field("MSGAGE", F.MQIACF_OLDEST_MSG_AGE, word=_blank_if_off),
    Field("OPPROCS", C.MQIA_OPEN_OUTPUT_COUNT),
    Field("QTIME", F.MQIACF_Q_TIME_INDICATOR, word=_qtime),
    Field("UNCOM", F.MQIACF_UNCOMMITTED_MSGS, word=lambda v: "NO" if v == 0 else str(v)),
)


def monitoring(obj: MQObject | None, qmgr: MQObject) -> int:
    """The monitoring level in force for a queue: its MONQ, or the queue manager's for QMGR; the
    queue manager's NONE turns it off everywhere."""
    at_qmgr = qmgr["MONQ"]
    if at_qmgr == C.MQMON_NONE:
        return C.MQMON_OFF
    level = obj.attrs.get("MONQ", C.MQMON_Q_MGR) if obj is not None else C.MQMON_Q_MGR
    return at_qmgr if level == C.MQMON_Q_MGR else level


def put_time(m: Message) -> float | None:
    """When a message was put, from its descriptor's PutDate and PutTime (GMT, to hundredths)."""
    return md_put_time(m.md)


_DAYS: dict[bytes, float] = {}
_LAST: list[Any] = [b"", 0.0]           # the last put second seen: its 14 digits and its start
_PUT_AT = MD.field_slice("PutDate").start
assert MD.field_slice("PutTime").start == _PUT_AT + 8


def md_put_time(md: Any) -> float | None:
    """When a message was put, from a descriptor's PutDate and PutTime (GMT, to hundredths). A
    packed descriptor (or its bytes) is read where the two lie, unpacking nothing. The start of the
    last second seen is kept: on the get path, messages put in the same second cost a slice and a
    comparison; a new second, a little arithmetic; a new day, one ``calendar.timegm``."""
    raw = md if isinstance(md, bytes) else md.__dict__.get("_raw")   # (a PackedMD: its bytes are all of it)
    stamp = raw[_PUT_AT:_PUT_AT + 16] if raw is not None else md.PutDate + md.PutTime
    last = _LAST
    if stamp[:14] == last[0]:
        second = last[1]
    else:
        if not (len(stamp) == 16 and stamp[:14].isdigit()):
            return None
        date, h = stamp[:8], stamp[8:]
        day = _DAYS.get(date)
        if day is None:
            if len(_DAYS) > 64:
                _DAYS.clear()
            day = _DAYS[date] = calendar.timegm((int(date[:4]), int(date[4:6]), int(date[6:8]), 0, 0, 0))
        second = day + (h[0] * 10 + h[1] - 528) * 3600 + (h[2] * 10 + h[3] - 528) * 60 + h[4] * 10 + h[5] - 528
        last[0], last[1] = stamp[:14], second
    hundredths = stamp[14] * 10 + stamp[15] - 528
    return float(second + hundredths / 100 if 0 <= hundredths < 100 else second)


def note_got(qs: QueueState, msgs: Iterable[Message], now: float) -> None:
    """Messages left a monitored queue: QTIME's averages take in how long they were on it."""
    for m in msgs:
        t = put_time(m)
        if t is None:
            continue
        spent = max(0.0, now - t)
        if qs.qtime is None:
            qs.qtime = [spent, spent]
        else:
            qs.qtime[0] += (spent - qs.qtime[0]) * SHORT
            qs.qtime[1] += (spent - qs.qtime[1]) * LONG


def oldest_age(qs: QueueState, now: float) -> int:
    """MSGAGE: seconds since the oldest message on the queue was put (0 when it is empty)."""
    times = [t for t in (put_time(m) for m in qs.heads()) if t is not None]
    return int(now - min(times)) if times else 0


def qstatus_row(qs: QueueState, obj: MQObject | None, now: float) -> dict[str, Any]:
    """QSTATUS_FIELDS' values for a queue, by keyword."""
    lget = mq_date_time(qs.last_get) if qs.last_get else ("", "")
    lput = mq_date_time(qs.last_put) if qs.last_put else ("", "")
    monq = obj.attrs.get("MONQ", C.MQMON_Q_MGR) if obj is not None else C.MQMON_Q_MGR
    on = qs.monitored                  # (kept up to date as MONQ changes: engine/definitions.py)
    qtime = [int(v * 1_000_000) for v in qs.qtime] if on and qs.qtime is not None else ([0, 0] if on else [-1, -1])
    return {"CURDEPTH": qs.depth, "IPPROCS": qs.input_shared + qs.input_exclusive, "OPPROCS": qs.output,
            "UNCOM": qs.uncommitted, "LGETDATE": lget[0], "LGETTIME": lget[1], "LPUTDATE": lput[0],
            "LPUTTIME": lput[1], "MEDIALOG": "", "MONQ": monq, "MSGAGE": oldest_age(qs, now) if on else -1, "QTIME": qtime}


def reset_stats(qs: QueueState, now: float) -> dict[str, int]:
    """RESET QSTATS: the statistics since the last reset (or the start), then zeroed: HighQDepth
    starts again from the depth now."""
    since = qs.reset_at or now
    out = {"HIGHQDPH": max(qs.high_depth, qs.depth), "MSGSIN": qs.enq, "MSGSOUT": qs.deq,
           "RESETINT": int(now - since)}
    qs.enq = qs.deq = 0
    qs.high_depth = qs.depth
    qs.reset_at = now
    return out
