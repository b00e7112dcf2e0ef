"""Resource-usage publications (MQ 9): what the queue manager says about its resources under
``$SYS/MQ/INFO/QMGR/<qm>/Monitor/...``, the way IBM's amqsrua sample and the Prometheus exporter's
discovery (mq-metric-samples, through mq-golang's mqmetric) read it.

The publications describe themselves, so a reader needs to know only where the description
starts:

- ``.../Monitor/METADATA/CLASSES`` (retained): one MQGACF_MONITOR_CLASS group per class: its id
  (MQIAMO_MONITOR_CLASS), name (MQCAMO_MONITOR_CLASS), description (MQCAMO_MONITOR_DESC), flags
  (MQIAMO_MONITOR_FLAGS) and the topic of its types (MQCA_TOPIC_STRING).
- ``.../Monitor/METADATA/<class>/TYPES`` (retained): the class id and flags, then one
  MQGACF_MONITOR_TYPE group per type: id, name, description, the topic of its elements.
- ``.../Monitor/METADATA/<class>/<type>`` (retained): the class and type ids, the data topic
  (MQCA_TOPIC_STRING), one MQGACF_MONITOR_ELEMENT group per element: id, datatype (the unit:
  MQIAMO_MONITOR_UNIT, DELTA, HUNDREDTHS, PERCENT in hundredths of a per cent, MB, ...) and
  description.
- ``.../Monitor/<class>/<type>``: each interval, the class and type ids, the interval in
  microseconds (MQIAMO64_MONITOR_INTERVAL), then each element's value as an MQCFIN64 whose
  Parameter is the element id.

The classes, types and elements are declared once (``CLASSES``) with MQ's ids, names and element
descriptions (the descriptions are what the exporter turns into metric names). What each element
measures is named by a key the server's sampler fills in (server/resources.py)."""
from __future__ import annotations

from dataclasses import dataclass

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf

UNIT, DELTA, HUNDREDTHS, PERCENT, MB = (F.MQIAMO_MONITOR_UNIT, F.MQIAMO_MONITOR_DELTA, F.MQIAMO_MONITOR_HUNDREDTHS,
                                        F.MQIAMO_MONITOR_PERCENT, F.MQIAMO_MONITOR_MB)


@dataclass(frozen=True)
class Element:
    id: int
    datatype: int
    desc: str
    key: str                        # the sampler's name for the value


@dataclass(frozen=True)
class MonitorType:
    id: int
    name: str
    desc: str
    elements: tuple[Element, ...]


@dataclass(frozen=True)
class MonitorClass:
    id: int
    name: str
    desc: str
    types: tuple[MonitorType, ...]
    per_object: bool = False        # MQIAMO_MONITOR_FLAGS_OBJNAME: published per object, %s in its topics
    object_param: int = C.MQCA_Q_NAME   # the parameter naming the object in each publication


def _e(*elements: tuple[int, int, str, str]) -> tuple[Element, ...]:
    return tuple(Element(*e) for e in elements)


# STATMQI's and STATQ's puts and gets, as the queue figures' running totals name them (0 is
# nonpersistent, 1 persistent; *_all both).
_PUTS = ((0, DELTA, "Interval total MQPUT/MQPUT1 count", "puts_all"),
         (1, DELTA, "Interval total MQPUT/MQPUT1 byte count", "put_bytes_all"),
         (2, DELTA, "Non-persistent message MQPUT count", "puts0"), (3, DELTA, "Persistent message MQPUT count", "puts1"),
         (4, DELTA, "Failed MQPUT count", "put_fails"),
         (5, DELTA, "Non-persistent message MQPUT1 count", "put1s0"),
         (6, DELTA, "Persistent message MQPUT1 count", "put1s1"), (7, DELTA, "Failed MQPUT1 count", "put1_fails"),
         (8, DELTA, "Put non-persistent messages - byte count", "put_bytes0"),
         (9, DELTA, "Put persistent messages - byte count", "put_bytes1"), (10, DELTA, "MQSTAT count", "stats"))
_GETS = ((0, DELTA, "Interval total destructive get- count", "gets_all"),
         (1, DELTA, "Interval total destructive get - byte count", "get_bytes_all"),
         (2, DELTA, "Non-persistent message destructive get - count", "gets0"),
         (3, DELTA, "Persistent message destructive get - count", "gets1"),
         (4, DELTA, "Failed MQGET - count", "get_fails"),
         (5, DELTA, "Got non-persistent messages - byte count", "get_bytes0"),
         (6, DELTA, "Got persistent messages - byte count", "get_bytes1"),
         (7, DELTA, "Non-persistent message browse - count", "browses0"),
         (8, DELTA, "Persistent message browse - count", "browses1"), (9, DELTA, "Failed browse count", "browse_fails"),
         (10, DELTA, "Non-persistent message browse - byte count", "browse_bytes0"),
         (11, DELTA, "Persistent message browse - byte count", "browse_bytes1"),
         (12, DELTA, "Expired message count", "expired"), (13, DELTA, "Purged queue count", "purged"))


CLASSES = (
    MonitorClass(0, "CPU", "Platform central processing units", (
        MonitorType(0, "SystemSummary", "CPU performance - platform wide", (
            Element(0, PERCENT, "User CPU time percentage", "cpu_user"),
            Element(1, PERCENT, "System CPU time percentage", "cpu_system"),
            Element(2, HUNDREDTHS, "CPU load - one minute average", "load1"),
            Element(3, HUNDREDTHS, "CPU load - five minute average", "load5"),
            Element(4, HUNDREDTHS, "CPU load - fifteen minute average", "load15"),
            Element(5, PERCENT, "RAM free percentage", "ram_free"),
            Element(6, MB, "RAM total bytes", "ram_total"))),
        MonitorType(1, "QMgrSummary", "CPU performance - running queue manager", (
            Element(0, PERCENT, "User CPU time - percentage estimate for queue manager", "qm_cpu_user"),
            Element(1, PERCENT, "System CPU time - percentage estimate for queue manager", "qm_cpu_system"),
            Element(2, MB, "RAM total bytes - estimate for queue manager", "qm_ram"))))),
    MonitorClass(1, "DISK", "Platform persistent data stores", (
        MonitorType(1, "QMgrSummary", "Disk usage - running queue managers", (
            Element(0, MB, "Queue Manager file system - bytes in use", "fs_used"),
            Element(1, PERCENT, "Queue Manager file system - free space", "fs_free"))),
        MonitorType(2, "Log", "Disk usage - queue manager recovery log", (
            Element(0, UNIT, "Log - bytes in use", "log_in_use"),
            Element(2, UNIT, "Log file system - bytes in use", "fs_bytes_used"),
            Element(3, UNIT, "Log file system - bytes max", "fs_bytes_max"))))),
    MonitorClass(2, "STATMQI", "API usage statistics", (
        MonitorType(0, "CONNDISC", "MQCONN and MQDISC", _e(
            (0, DELTA, "MQCONN/MQCONNX count", "conns"), (1, DELTA, "Failed MQCONN/MQCONNX count", "conn_fails"),
            (2, UNIT, "Concurrent connections - high water mark", "conns_hwm"), (3, DELTA, "MQDISC count", "discs"))),
        MonitorType(1, "OPENCLOSE", "MQOPEN and MQCLOSE", _e(
            (0, DELTA, "MQOPEN count", "opens"), (1, DELTA, "Failed MQOPEN count", "open_fails"),
            (2, DELTA, "MQCLOSE count", "closes"), (3, DELTA, "Failed MQCLOSE count", "close_fails"))),
        MonitorType(2, "INQSET", "MQINQ and MQSET", _e(
            (0, DELTA, "MQINQ count", "inqs"), (1, DELTA, "Failed MQINQ count", "inq_fails"),
            (2, DELTA, "MQSET count", "sets"), (3, DELTA, "Failed MQSET count", "set_fails"))),
        MonitorType(3, "PUT", "MQPUT", _e(*_PUTS)),
        MonitorType(4, "GET", "MQGET", _e(*_GETS)),
        MonitorType(5, "SYNCPOINT", "Commit and rollback", _e(
            (0, DELTA, "Commit count", "commits"), (2, DELTA, "Rollback count", "backs"))),
        MonitorType(6, "SUBSCRIBE", "Subscribe", _e(
            (0, DELTA, "Create durable subscription count", "subs_dur"),
            (3, DELTA, "Create non-durable subscription count", "subs_ndur"),
            (6, DELTA, "Failed create/alter/resume subscription count", "sub_fails"),
            (10, DELTA, "MQSUBRQ count", "subrqs"), (11, DELTA, "Failed MQSUBRQ count", "subrq_fails"))))),
    MonitorClass(3, "STATQ", "API per-queue usage statistics", (
        MonitorType(0, "OPENCLOSE", "MQOPEN and MQCLOSE", _e(
            (0, DELTA, "MQOPEN count", "opens"), (1, DELTA, "MQCLOSE count", "closes"))),
        MonitorType(1, "INQSET", "MQINQ and MQSET", _e((0, DELTA, "MQINQ count", "inqs"), (1, DELTA, "MQSET count", "sets"))),
        MonitorType(2, "PUT", "MQPUT and MQPUT1", _e(
            (0, DELTA, "MQPUT/MQPUT1 count", "puts_all"), (1, DELTA, "MQPUT byte count", "put_bytes_all"),
            (2, DELTA, "MQPUT non-persistent message count", "puts0"), (3, DELTA, "MQPUT persistent message count", "puts1"),
            (4, DELTA, "MQPUT1 non-persistent message count", "put1s0"),
            (5, DELTA, "MQPUT1 persistent message count", "put1s1"),
            (6, DELTA, "non-persistent byte count", "put_bytes0"), (7, DELTA, "persistent byte count", "put_bytes1"))),
        MonitorType(3, "GET", "MQGET and browse", _e(
            (0, DELTA, "MQGET count", "gets_all"), (1, DELTA, "MQGET byte count", "get_bytes_all"),
            (2, DELTA, "destructive MQGET non-persistent message count", "gets0"),
            (3, DELTA, "destructive MQGET persistent message count", "gets1"),
            (4, DELTA, "destructive MQGET non-persistent byte count", "get_bytes0"),
            (5, DELTA, "destructive MQGET persistent byte count", "get_bytes1"),
            (6, DELTA, "MQGET browse non-persistent message count", "browses0"),
            (7, DELTA, "MQGET browse persistent message count", "browses1"),
            (8, DELTA, "MQGET browse non-persistent byte count", "browse_bytes0"),
            (9, DELTA, "MQGET browse persistent byte count", "browse_bytes1"),
            (10, DELTA, "destructive MQGET fails", "get_fails"), (13, DELTA, "MQGET browse fails", "browse_fails"))),
        MonitorType(4, "GENERAL", "General queue metrics", _e(
            (0, DELTA, "messages expired", "expired"), (1, DELTA, "queue purged count", "purged"),
            (2, F.MQIAMO_MONITOR_MICROSEC, "average queue time", "qtime_avg"), (3, UNIT, "Queue depth", "depth")))),
        per_object=True),
    # Per application name (DISPLAY APSTATUS's): its instances now, and those started and ended in
    # the interval. mqlite has no uniform clusters: no shortfall and no moves (0).
    MonitorClass(4, "STATAPP", "Per-application statistics", (
        MonitorType(0, "INSTANCE", "Application instance statistics", _e(
            (0, UNIT, "Instance count", "instances"), (1, UNIT, "Movable instance count", "movable"),
            (2, UNIT, "Instance shortfall count", "shortfall"), (3, DELTA, "Instances started", "started"),
            (4, DELTA, "Initiated outbound instance moves", "moves_initiated"),
            (5, DELTA, "Completed outbound instance moves", "moves_completed"),
            (6, DELTA, "Instances ended during reconnect", "ended_reconnect"),
            (7, DELTA, "Instances ended", "ended"))),),
        per_object=True, object_param=F.MQCACF_APPL_NAME),
)


def prefix(qmgr: str) -> str:
    return f"$SYS/MQ/INFO/QMGR/{qmgr}/Monitor/"


def data_topic(qmgr: str, cls: MonitorClass, typ: MonitorType, obj: str = "%s") -> str:
    """A type's data topic: of one object (a queue's name for STATQ, an application's for
    STATAPP, a '/' in it written '&' as MQ writes it; ``%s`` in the metadata)."""
    if not cls.per_object:
        return f"{prefix(qmgr)}{cls.name}/{typ.name}"
    return f"{prefix(qmgr)}{cls.name}/{obj.replace('/', '&')}/{typ.name}"


def _message(params: list[bytes]) -> bytes:
    return pcf.encode(pcf.Header(type=F.MQCFT_STATISTICS, command=F.MQCMD_NONE), params)


def _flags(cls: MonitorClass) -> int:
    return F.MQIAMO_MONITOR_FLAGS_OBJNAME if cls.per_object else F.MQIAMO_MONITOR_FLAGS_NONE


def classes_message(qmgr: str) -> bytes:
    """METADATA/CLASSES: a group per class, with the topic of its types."""
    return _message([pcf.enc_group(F.MQGACF_MONITOR_CLASS, [
        pcf.enc_int(F.MQIAMO_MONITOR_CLASS, c.id), pcf.enc_str(F.MQCAMO_MONITOR_CLASS, c.name),
        pcf.enc_str(F.MQCAMO_MONITOR_DESC, c.desc), pcf.enc_int(F.MQIAMO_MONITOR_FLAGS, _flags(c)),
        pcf.enc_str(C.MQCA_TOPIC_STRING, f"{prefix(qmgr)}METADATA/{c.name}/TYPES")]) for c in CLASSES])


def types_message(qmgr: str, cls: MonitorClass) -> bytes:
    """METADATA/<class>/TYPES: the class, then a group per type, with the topic of its elements."""
    return _message([pcf.enc_int(F.MQIAMO_MONITOR_CLASS, cls.id), pcf.enc_int(F.MQIAMO_MONITOR_FLAGS, _flags(cls))] + [
        pcf.enc_group(F.MQGACF_MONITOR_TYPE, [
            pcf.enc_int(F.MQIAMO_MONITOR_TYPE, t.id), pcf.enc_str(F.MQCAMO_MONITOR_TYPE, t.name),
            pcf.enc_str(F.MQCAMO_MONITOR_DESC, t.desc),
            pcf.enc_str(C.MQCA_TOPIC_STRING, f"{prefix(qmgr)}METADATA/{cls.name}/{t.name}")]) for t in cls.types])


def elements_message(qmgr: str, cls: MonitorClass, typ: MonitorType) -> bytes:
    """METADATA/<class>/<type>: the class and type, the data topic, a group per element."""
    return _message([pcf.enc_int(F.MQIAMO_MONITOR_CLASS, cls.id), pcf.enc_int(F.MQIAMO_MONITOR_TYPE, typ.id),
                     pcf.enc_str(C.MQCA_TOPIC_STRING, data_topic(qmgr, cls, typ))] + [
        pcf.enc_group(F.MQGACF_MONITOR_ELEMENT, [
            pcf.enc_int(F.MQIAMO_MONITOR_ELEMENT, e.id), pcf.enc_int(F.MQIAMO_MONITOR_DATATYPE, e.datatype),
            pcf.enc_str(F.MQCAMO_MONITOR_DESC, e.desc)]) for e in typ.elements])


def data_message(cls: MonitorClass, typ: MonitorType, interval_us: int, values: dict[str, float],
                 obj: str = "") -> bytes:
    """One interval's values of a type: the ids, the interval, the object (STATQ's queue,
    STATAPP's application), each element by its id."""
    head = [pcf.enc_int(F.MQIAMO_MONITOR_CLASS, cls.id), pcf.enc_int(F.MQIAMO_MONITOR_TYPE, typ.id),
            pcf.enc_int64(F.MQIAMO64_MONITOR_INTERVAL, interval_us)]
    if obj:
        head.append(pcf.enc_str(cls.object_param, obj))
    return _message(head + [pcf.enc_int64(e.id, int(values.get(e.key, 0))) for e in typ.elements])


def deltas(now: dict[str, float], then: dict[str, float]) -> dict[str, float]:
    """An interval's counts from two readings of running totals, with the sums the elements name:
    puts, put1s and gets of both persistences (``*_all``) and the average time on the queue in
    microseconds (``qtime_avg``)."""
    d = {k: max(v - then.get(k, 0), 0) for k, v in now.items()}   # (a deleted queue takes its counts away)
    d["puts_all"] = sum(d.get(k, 0) for k in ("puts0", "puts1", "put1s0", "put1s1"))
    d["put_bytes_all"] = d.get("put_bytes0", 0) + d.get("put_bytes1", 0)
    d["gets_all"] = d.get("gets0", 0) + d.get("gets1", 0)
    d["get_bytes_all"] = d.get("get_bytes0", 0) + d.get("get_bytes1", 0)
    timed = d.get("timed0", 0) + d.get("timed1", 0)
    d["qtime_avg"] = (d.get("qtime0", 0) + d.get("qtime1", 0)) * 1_000_000 / timed if timed else 0
    return d
