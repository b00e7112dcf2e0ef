"""amqsrua: MQ's sample that reads the resource-usage publications. It learns what the queue
manager publishes from the retained metadata under ``$SYS/MQ/INFO/QMGR/<qm>/Monitor/METADATA``
(classes, their types, each type's elements), lists the classes or a class's types when it is
not told which, then subscribes to the chosen type's data topic and prints each publication as
IBM's sample does: the interval, then one line per element, formatted by its unit.

    mqlite amqsrua -m QMGR [-c CLASS] [-t TYPE] [-o OBJECT] [-n COUNT]

Without ``-c`` it prints the classes and ends; with ``-c`` and no ``-t``, the class's types. A
class published per object (STATQ, STATAPP) needs ``-o``, the queue or application, a '/' in it
written '&' in the topic as the sample writes it; each line then starts with the object's name."""
from __future__ import annotations

import argparse
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf

META = "$SYS/MQ/INFO/QMGR/{}/Monitor/METADATA/"


def groups(msg: pcf.Message, selector: int) -> list[dict[int, Any]]:
    return [{sel: v for _t, sel, v in value} for _t, sel, value in msg.params if sel == selector]


def text(v: Any) -> str:
    return bytes(v).decode(errors="replace").strip(" \0") if isinstance(v, (bytes, bytearray)) else str(v)


def element_line(desc: str, datatype: int, value: int, interval_us: int) -> str:
    """One element as the sample prints it, by its unit."""
    if datatype == F.MQIAMO_MONITOR_PERCENT:
        return f"{desc} {value / 100:.2f}%"
    if datatype == F.MQIAMO_MONITOR_HUNDREDTHS:
        return f"{desc} {value / 100:.2f}"
    if datatype == F.MQIAMO_MONITOR_MB:
        return f"{desc} {value}MB"
    if datatype == F.MQIAMO_MONITOR_GB:
        return f"{desc} {value}GB"
    if datatype == F.MQIAMO_MONITOR_MICROSEC:
        return f"{desc} {value} uSec"
    if datatype == F.MQIAMO_MONITOR_DELTA and interval_us > 0:
        return f"{desc} {value} {value * 1_000_000 // interval_us}/sec"
    return f"{desc} {value}"


def interval_text(interval_us: int) -> str:
    seconds, millis = divmod(interval_us // 1000, 1000)
    minutes, seconds = divmod(seconds, 60)
    return (f"{minutes} minutes," if minutes else "") + f"{seconds}.{millis:03d} seconds"


class Reader:
    def __init__(self, qmgr: Any) -> None:
        from mqlite import pymqi
        self.pymqi = pymqi
        self.qmgr = qmgr

    def retained(self, topic: str) -> pcf.Message:
        """The retained publication on ``topic`` (the metadata), waiting up to 10 s as the sample does."""
        sub = self.subscribe(topic)
        try:
            return self.next(sub, 10000)
        finally:
            sub.close()

    def subscribe(self, topic: str) -> Any:
        pymqi = self.pymqi
        sd = pymqi.SD(Options=C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_MANAGED | C.MQSO_FAIL_IF_QUIESCING)
        sd.set_vs("ObjectString", topic)
        return pymqi.Subscription(self.qmgr, sub_desc=sd)

    def next(self, sub: Any, wait_ms: int) -> pcf.Message:
        gmo = self.pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=wait_ms)
        return pcf.decode(bytes(sub.get(None, self.pymqi.MD(), gmo)), any_type=True)


def amqsrua(args: argparse.Namespace) -> int:
    from mqlite import pymqi
    qmgr = pymqi.QueueManager(None)
    qmgr.connect(args.m or "")
    try:
        reader = Reader(qmgr)
        name = text(pymqi.Queue(qmgr, pymqi.OD(ObjectType=C.MQOT_Q_MGR), C.MQOO_INQUIRE).inquire(C.MQCA_Q_MGR_NAME))
        meta = META.format(name)
        classes = groups(reader.retained(meta + "CLASSES"), F.MQGACF_MONITOR_CLASS)
        chosen = next((c for c in classes if text(c[F.MQCAMO_MONITOR_CLASS]) == args.c), None)
        if chosen is None:
            for c in classes:
                print(f"{text(c[F.MQCAMO_MONITOR_CLASS])} : {text(c[F.MQCAMO_MONITOR_DESC])}")
            return 0 if args.c is None else 1
        types = groups(reader.retained(text(chosen[C.MQCA_TOPIC_STRING])), F.MQGACF_MONITOR_TYPE)
        typ = next((t for t in types if text(t[F.MQCAMO_MONITOR_TYPE]) == args.t), None)
        if typ is None:
            for t in types:
                print(f"{text(t[F.MQCAMO_MONITOR_TYPE])} : {text(t[F.MQCAMO_MONITOR_DESC])}")
            return 0 if args.t is None else 1
        meta_elements = reader.retained(text(typ[C.MQCA_TOPIC_STRING]))
        elements = {g[F.MQIAMO_MONITOR_ELEMENT]: g for g in groups(meta_elements, F.MQGACF_MONITOR_ELEMENT)}
        data = text(meta_elements.first(C.MQCA_TOPIC_STRING))
        if "%s" in data:
            if not args.o:
                print(f"amqsrua: class {args.c} is published per object: name one with -o")
                return 1
            data = data.replace("%s", args.o.replace("/", "&"))
        sub = reader.subscribe(data)
        try:
            for _ in range(args.n):
                msg = reader.next(sub, int(max(args.w, 1) * 1000))
                interval = msg.first(F.MQIAMO64_MONITOR_INTERVAL, 0)
                print(f"Publication received Interval:{interval_text(interval)}")
                obj = msg.first(C.MQCA_Q_NAME) or msg.first(F.MQCACF_APPL_NAME)
                lead = f"{text(obj):<48}" if obj else ""
                for ptype, sel, value in msg.params:
                    if sel in (F.MQIAMO_MONITOR_CLASS, F.MQIAMO_MONITOR_TYPE, F.MQIAMO64_MONITOR_INTERVAL) \
                            or ptype == F.MQCFT_STRING:
                        continue
                    element = elements.get(sel)
                    if element is None:
                        print(f"Parameter({sel}) Value({value}) not recognised")
                    else:
                        print(lead + element_line(text(element[F.MQCAMO_MONITOR_DESC]),
                                                  element[F.MQIAMO_MONITOR_DATATYPE], value, interval))
                print(flush=True)
        finally:
            sub.close()
    except pymqi.MQMIError as e:
        print(f"amqsrua: reason {e.reason}")
        return 1
    finally:
        qmgr.disconnect()
    return 0
