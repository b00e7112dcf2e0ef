"""The resource-usage publisher (engine/resources.py declares what is published): at start the
metadata, retained, under ``$SYS/MQ/INFO/QMGR/<qm>/Monitor/METADATA/``; then every
MonitorPublishHeartBeat seconds (qm.ini TuningParameters, 10 by default, as MQ's), one publication
per type that someone subscribes to, with the values sampled for the interval: the machine's CPU
and memory from /proc, the queue manager process's CPU time and resident memory, the file system
and the store files of the queue manager's data directory. A type nobody subscribes to costs
nothing but the check."""
from __future__ import annotations

import os
import shutil
import threading
import time
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import MD, OD, PMO
from mqlite.engine.applstatus import instances
from mqlite.engine.resources import (
    CLASSES,
    classes_message,
    data_message,
    data_topic,
    deltas,
    elements_message,
    prefix,
    types_message,
)
from mqlite.paths import read_ini
from mqlite.server.ports import MonitorHost

DEFAULT_INTERVAL = 10.0


def interval_of(ini: dict[str, dict[str, str]]) -> float:
    """qm.ini TuningParameters MonitorPublishHeartBeat: seconds between publications (1 to 3600)."""
    raw = ini.get("TuningParameters", {}).get("MonitorPublishHeartBeat", "")
    try:
        return min(max(float(raw), 0.2), 3600.0) if raw else DEFAULT_INTERVAL
    except ValueError:
        return DEFAULT_INTERVAL


def _cpu_times() -> tuple[int, int, int]:
    """The machine's (user, system, total) CPU ticks so far (/proc/stat's first line)."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return 0, 0, 0
    return fields[0] + fields[1], fields[2], sum(fields[:8])


def _meminfo() -> dict[str, int]:
    out = {}
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                key, _, rest = line.partition(":")
                out[key] = int(rest.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return out


class Sampler:
    """The values of one interval, each as its element's unit wants it (per cent in hundredths)."""

    def __init__(self, root: str, store_files: list[str]) -> None:
        self.root = root
        self.store_files = store_files
        self.last = (time.monotonic(), _cpu_times(), os.times())

    def sample(self) -> tuple[float, dict[str, int]]:
        now, cpu, proc = time.monotonic(), _cpu_times(), os.times()
        then, cpu0, proc0 = self.last
        self.last = (now, cpu, proc)
        elapsed = max(now - then, 1e-6)
        ticks = max(cpu[2] - cpu0[2], 1)
        capacity = elapsed * (os.cpu_count() or 1)          # CPU seconds the machine had
        mem = _meminfo()
        total, available = mem.get("MemTotal", 0), mem.get("MemAvailable", 0)
        load = os.getloadavg()
        disk = shutil.disk_usage(self.root)
        try:
            with open("/proc/self/statm", encoding="ascii") as f:
                rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            rss = 0
        values = {
            "cpu_user": (cpu[0] - cpu0[0]) * 10000 // ticks, "cpu_system": (cpu[1] - cpu0[1]) * 10000 // ticks,
            "load1": int(load[0] * 100), "load5": int(load[1] * 100), "load15": int(load[2] * 100),
            "ram_free": available * 10000 // total if total else 0, "ram_total": total // 1048576,
            "qm_cpu_user": int((proc.user - proc0.user) * 10000 / capacity),
            "qm_cpu_system": int((proc.system - proc0.system) * 10000 / capacity),
            "qm_ram": rss // 1048576,
            "fs_used": disk.used // 1048576, "fs_free": disk.free * 10000 // disk.total if disk.total else 0,
            "log_in_use": sum(os.path.getsize(p) for p in self.store_files if os.path.exists(p)),
            "fs_bytes_used": disk.used, "fs_bytes_max": disk.total,
        }
        return elapsed, values


class ResourceMonitor:
    def __init__(self, server: MonitorHost) -> None:
        self.server = server
        self.interval = interval_of(read_ini(server.paths.ini))
        db = server.paths.db
        self.sampler = Sampler(server.paths.root, [db, db + "-wal"])
        self.agent: Any = None
        self.seen: dict[str, dict[str, float]] = {}     # the last running totals read: by queue, "*" (the MQI), "\\0app:" and an application's name
        self.mqi_read: dict[str, float] | None = None
        self.apps_read = False              # STATAPP has read the applications once: new ones count from nought

    def start(self) -> ResourceMonitor:
        """The metadata, retained (the agent connects now, before any quiesce refuses it), then
        the publishing thread."""
        srv = self.server
        qm = srv.qm
        with srv.lock:
            try:
                self.agent = qm.agent()
            except MQIError:
                return self
            meta = prefix(qm.name) + "METADATA/"
            self._publish(meta + "CLASSES", classes_message(qm.name), retain=True)
            for cls in CLASSES:
                self._publish(f"{meta}{cls.name}/TYPES", types_message(qm.name, cls), retain=True)
                for typ in cls.types:
                    self._publish(f"{meta}{cls.name}/{typ.name}", elements_message(qm.name, cls, typ), retain=True)
        threading.Thread(target=self._run, name="resources", daemon=True).start()
        return self

    def _run(self) -> None:
        srv = self.server
        while not srv.stopping.wait(self.interval):
            self.publish()

    def publish(self) -> int:
        """This interval's publications, for the types someone subscribes to. Returns how many.
        STATMQI and STATQ are counts of the interval: the difference between this reading of the
        running totals and the last (a queue or the MQI first seen now has its first reading
        taken, and is published from the next interval on); the queues they need figures of are
        ``qm.watched`` from now on ("*": every queue, for STATMQI)."""
        srv = self.server
        qm = srv.qm
        elapsed, values = self.sampler.sample()
        interval = int(elapsed * 1_000_000)
        sent = 0
        watched: set[str] = set()
        with srv.lock:
            for cls in CLASSES:
                if cls.per_object:
                    # (each object's topics are looked at only while someone subscribes in the class)
                    branch = f"{prefix(qm.name)}{cls.name}/"
                    if not any(sub.topic.startswith(branch) for sub in qm.pubsub.subscriptions.values()):
                        continue
                    for name in self._objects(cls):
                        live = [t for t in cls.types if qm.pubsub.has_subscribers(data_topic(qm.name, cls, t, name))]
                        if not live and cls.name != "STATAPP":   # (every application is read: see _object_counts)
                            continue
                        counts = self._object_counts(cls, name, watched)
                        if counts is None or not live:
                            continue
                        for typ in live:
                            sent += self._publish(data_topic(qm.name, cls, typ, name),
                                                  data_message(cls, typ, interval, counts, name))
                    continue
                for typ in cls.types:
                    topic = data_topic(qm.name, cls, typ)
                    if not qm.pubsub.has_subscribers(topic):
                        continue
                    data: dict[str, float] | None = dict(values)
                    if cls.name == "STATMQI":
                        watched.add("*")
                        data = self._mqi()
                    if data is not None:
                        sent += self._publish(topic, data_message(cls, typ, interval, data))
            self.mqi_read = None
            self.apps_read = any(k.startswith("\0app:") for k in self.seen) or self.apps_read
            qm.mqi.published_max = len(qm.conns)
            qm.watched = watched
        return sent

    def _objects(self, cls: Any) -> list[str]:
        """The objects a per-object class publishes about: STATQ's queues, STATAPP's applications
        (those connected and those that were)."""
        qm = self.server.qm
        if cls.name == "STATAPP":
            return sorted(set(qm.applications) | {c.appl_name for c in qm.conns.values() if c.appl_type != C.MQAT_QMGR})
        return sorted(qm.queues)

    def _object_counts(self, cls: Any, name: str, watched: set[str]) -> dict[str, float] | None:
        """One object's values of the interval (None at its first reading): a queue's counts and
        depth (the queue is ``watched`` from now on), an application's instances now, movable or
        not (engine/applstatus.py's rule), and those started and ended."""
        qm = self.server.qm
        if cls.name == "STATAPP":
            # Every application is read each interval while STATAPP has subscribers, so one that
            # first connects between two readings counts from nought (not from a baseline).
            started, ended = qm.applications.get(name, (0, 0))
            counts = self._interval("\0app:" + name, {"started": started, "ended": ended}, fresh=self.apps_read)
            if counts is not None:
                mine = [i for i in instances(qm.conns.values()) if i.appl == name]
                counts["instances"] = len(mine)
                counts["movable"] = sum(1 for i in mine if not i.immovable)
            return counts
        watched.add(name)
        qs = qm.queues[name]
        counts = self._interval(name, qs.stats.totals() if qs.stats is not None else {})
        if counts is not None:
            counts["depth"] = qs.depth
        return counts

    def _mqi(self) -> dict[str, float] | None:
        """The MQI's counts of the interval (read once per interval, for every STATMQI type): the
        calls the server counted, and the puts and gets every queue's figures add up to."""
        if self.mqi_read is None:
            qm = self.server.qm
            totals: dict[str, float] = dict(qm.mqi.totals())
            for qs in qm.queues.values():
                if qs.stats is not None:
                    for key, value in qs.stats.totals().items():
                        if key not in ("opens", "closes", "inqs", "sets"):
                            totals[key] = totals.get(key, 0) + value
            counts = self._interval("*", totals)
            if counts is not None:
                counts["conns_hwm"] = qm.mqi.published_max
            self.mqi_read = counts or {}
        return self.mqi_read or None

    def _interval(self, key: str, totals: dict[str, float], fresh: bool = False) -> dict[str, float] | None:
        """The counts since the last reading of ``key``'s running totals (None at the first,
        unless ``fresh``: the totals are all new)."""
        then = self.seen.get(key, {} if fresh else None)
        self.seen[key] = totals
        return None if then is None else deltas(totals, then)

    def _publish(self, topic: str, body: bytes, retain: bool = False) -> int:
        """One publication by the agent (engine lock held); 0 when it could not be made (the
        publish/subscribe engine disabled, the queue manager quiescing)."""
        od = OD(ObjectType=C.MQOT_TOPIC, Version=C.MQOD_VERSION_4)
        od.set_vs("ObjectString", topic)
        pmo = PMO(Options=C.MQPMO_NO_SYNCPOINT | (C.MQPMO_RETAIN if retain else 0))
        try:
            self.server.qm.put1(self.agent, od, MD(Format=C.MQFMT_ADMIN, Persistence=C.MQPER_NOT_PERSISTENT), pmo,
                                body)
        except MQIError:
            return 0
        return 1
