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
)


def prefix(qmgr: str) -> str:
    return f"$SYS/MQ/INFO/QMGR/{qmgr}/Monitor/"


def data_topic(qmgr: str, cls: MonitorClass, typ: MonitorType) -> str:
    return f"{prefix(qmgr)}{cls.name}/{typ.name}"


def _message(params: list[bytes]) -> bytes:
    return pcf.encode(pcf.Header(type=F.MQCFT_STATISTICS, command=F.MQCMD_NONE), params)


def classes_message(qmgr: str) -> bytes:
    """METADATA/CLASSES: a group per class, with the topic of its types."""
    return _message([pcf.enc_group(F.MQGACF_MONITOR_CLASS, [
        pcf.enc_int(F.MQIAMO_MONITOR_CLASS, c.id), pcf.enc_str(F.MQCAMO_MONITOR_CLASS, c.name),
        pcf.enc_str(F.MQCAMO_MONITOR_DESC, c.desc), pcf.enc_int(F.MQIAMO_MONITOR_FLAGS, F.MQIAMO_MONITOR_FLAGS_NONE),
        pcf.enc_str(C.MQCA_TOPIC_STRING, f"{prefix(qmgr)}METADATA/{c.name}/TYPES")]) for c in CLASSES])


def types_message(qmgr: str, cls: MonitorClass) -> bytes:
    """METADATA/<class>/TYPES: the class, then a group per type, with the topic of its elements."""
    return _message([pcf.enc_int(F.MQIAMO_MONITOR_CLASS, cls.id),
                     pcf.enc_int(F.MQIAMO_MONITOR_FLAGS, F.MQIAMO_MONITOR_FLAGS_NONE)] + [
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


def data_message(cls: MonitorClass, typ: MonitorType, interval_us: int, values: dict[str, int]) -> bytes:
    """One interval's values of a type: the ids, the interval, each element by its id."""
    return _message([pcf.enc_int(F.MQIAMO_MONITOR_CLASS, cls.id), pcf.enc_int(F.MQIAMO_MONITOR_TYPE, typ.id),
                     pcf.enc_int64(F.MQIAMO64_MONITOR_INTERVAL, interval_us)]
                    + [pcf.enc_int64(e.id, int(values.get(e.key, 0))) for e in typ.elements])
