"""Creation and recovery, the object registry: ``Registry``, the queue manager's ``qm.registry``,
over ``engine.mqicore.CoreState`` (the queue manager binds its public methods as its own:
mqlite.engine.qmgr)."""
from __future__ import annotations

import json
import time
from dataclasses import replace
from typing import Any, Callable, TypeVar

from mqlite.catalogue import message
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import MD
from mqlite.engine.clock import mq_date_time
from mqlite.engine.core import C, Prepared
from mqlite.engine.message import Message
from mqlite.engine.mqicore import CoreState
from mqlite.engine.ports import DropObject, PurgeQueue, QueueFull, SaveMeta, SaveObject, SharedStoreError
from mqlite.engine.pubhier import PSCHILD_NS
from mqlite.engine.pubsub import RETAINED_NS, SUB_NS
from mqlite.engine.queue import QueueState
from mqlite.engine.shared import SHARED, SharedQueueState
from mqlite.engine.status import monitoring
from mqlite.objects.attrs import TABLE
from mqlite.objects.model import IDPWOS_DEFAULT, QMGR, QUEUE, MQObject, system_default_objects
from mqlite.security.state import DEFAULT_RULES
from mqlite.security.state import NAMESPACES as SECURITY_NAMESPACES
from mqlite.security.users import ADMIN_GROUP

T = TypeVar("T")


class Registry:
    """The definitions (``qm.registry``): creation and recovery, the object registry, the shared store's calls."""

    def __init__(self, qm: CoreState) -> None:
        self.qm = qm
        self._members_read = float("-inf")       # when qsg_member last read the group's members

    # --- creation and recovery ------------------------------------------------------------------
    def create(self, deadq: str = "", qmid: str | None = None, admin: str = "", oam: bool = True) -> int:
        """Lay down the system objects of a new queue manager (crtmqm). Returns how many.
        Security as a new IBM MQ queue manager's (docs/security.md): CONNAUTH naming the IDPWOS
        default, MQ's three default CHLAUTH rules, the OAM on unless ``oam`` is False (MQSNOAUT);
        ``admin``, the user creating it, goes into the registry's mqm group."""
        now = self.qm.clock.now()
        self.qm.qmgr.attrs["QMID"] = qmid or f"{self.qm.name}_{time.strftime('%Y-%m-%d_%H.%M.%S', time.gmtime(now))}"
        self.qm.qmgr.attrs["DEADQ"] = deadq
        self.qm.qmgr.attrs["CONNAUTH"] = IDPWOS_DEFAULT
        self.stamp_definition(self.qm.qmgr, created=True)
        self.save(self.qm.qmgr)
        objs = system_default_objects()
        for obj in objs:
            self.add_object(obj)
        sec = self.qm.security
        for rule in DEFAULT_RULES:
            d, t = self._date_time()
            sec.put_rule(replace(rule, altdate=d, alttime=t, userlist=list(rule.userlist)))
        if admin:
            sec.set_user(admin, None, [ADMIN_GROUP])
        if not oam:
            sec.oam = False
            self.qm.store.append(SaveMeta("noaut", "1"))
        self.qm.store.sync()
        return len(objs)

    def recover(self) -> dict[str, int]:
        """Rebuild state from the store after a start (or a crash): definitions, then messages."""
        self.qm.security.oam = self.qm.store.meta("noaut") != "1"
        for ns, _name, rec in self.qm.store.objects():
            if ns in SECURITY_NAMESPACES:
                self.qm.security.load(ns, rec)
                continue
            if ns in (SUB_NS, RETAINED_NS):
                self.qm.pubsub.load(ns, rec)
                continue
            if ns == PSCHILD_NS:
                self.qm.pubhier.load_child(rec)
                continue
            obj = MQObject.from_record(rec)
            if ns == QMGR:
                self.qm.qmgr = obj
                continue
            self._register(obj)
        self._refresh_monitoring()
        self.qm.uow.chsync = dict(self.qm.store.chsync())
        # The messages are counted, not read: each queue reads its front when it is first served
        # (a start takes as long with ten million messages as with ten). So they can only come
        # back through a pager: without one, recovering would lose them.
        if self.qm.pager is None:
            raise ValueError("recovering a queue manager's messages needs a pager (engine.ports.Pager)")
        restored = 0
        for queue, by_prio in self.qm.store.message_counts().items():
            qs = self.qm.queues.get(queue)
            if qs is None or qs.shared:
                self.qm.store.append(PurgeQueue(queue))
                continue
            qs.restore(by_prio)
            restored += sum(by_prio.values())
        self._recover_prepared()
        problem = self.qm.authority.refresh_connauth()
        if problem:
            self.qm.log(problem)
        # Message numbers never repeat, even for nonpersistent messages lost in a crash: channels use
        # them as message keys. Start above every earlier run (time-based floor, 1000 per ms).
        self.qm.arrivals.seq = max(self.qm.store.max_seq(), int(self.qm.clock.now() * 1000) * 1000)
        self.qm.store.sync()
        return {"messages": restored, "queues": len(self.qm.queues)}

    def _held_stored(self, qs: QueueState) -> tuple[Message, ...]:
        """The persistent messages of ``qs`` that units of work (open or prepared) and read-ahead
        hold: off the queue, their rows still stored."""
        held = [e[2] for c in self.qm.conns.values() for e in c.uow if e[0] == "get" and e[1] is qs]
        held += [m for u in self.qm.uow.prepared.values() for kind, q, m in u.entries if kind == "get" and q is qs]
        held += [m for c in self.qm.conns.values() for h in c.handles.values() if h.qstate is qs
                 for m, _sp in h.read_ahead]
        return tuple({m.seq: m for m in held if m.persistent}.values())

    def damaged(self, seq: int, queue: str) -> None:
        """A stored message read back did not match its checksum (the pager set it aside)."""
        self.qm.log(message("AMQ7472W", name=queue, type="queue"),
                    f"Stored message {seq} does not match its checksum; it was moved aside to the damaged table "
                    "of qmgr.db and is not served.")

    def unreadable(self, queue: str, why: str) -> None:
        """The store's pages holding a queue's messages could not be read (SQLite found damage)."""
        self.qm.log(message("AMQ7472W", name=queue, type="queue"),
                    f"Its stored messages cannot be read ({why}). Applications get MQRC_OBJECT_DAMAGED (2101) for what "
                    "is stored of it; the queue manager goes on serving the other objects. Restore qmgr.db from a "
                    "backup, or empty the queue.")

    def _recover_prepared(self) -> None:
        """Prepared units of work come back as they were: their puts counted in the depth but not
        visible, the messages they got held out of the queues."""
        rows = list(self.qm.store.prepared())
        gets = [r[3] for r in rows if r[2] == "get" and r[3] is not None]
        stored = self.qm.pager.load(gets) if gets and self.qm.pager is not None else {}
        for xid, at, kind, seq, queue, md_bytes, body, expiry_at in rows:
            unit = self.qm.uow.prepared.setdefault(xid, Prepared(xid, at, []))
            qs = self.qm.queues.get(queue or "")
            if qs is None or seq is None:
                continue
            if kind == "put":
                md = MD.from_bytes(md_bytes or b"")
                unit.entries.append(("put", qs, Message(seq, md, body or b"", expiry_at, True,
                                                        qs.lane_for(md.Priority))))
                qs.uncommitted += 1
            elif kind == "get":
                found = stored.get(seq)
                if found is not None and found[0] == qs.name:
                    msg = qs.stored_message(found[1])
                    qs.hold(msg)
                    qs.uncommitted += 1
                    unit.entries.append(("get", qs, msg))
        self.qm.uow.number_recovered()

    # --- definitions ------------------------------------------------------------------------------
    def queue(self, name: str) -> MQObject | None:
        return self.qm.objects[QUEUE].get(name)

    def queue_defined(self, name: str) -> MQObject:
        """A queue definition that resolution has found (2085 if it went meanwhile)."""
        obj = self.qm.objects[QUEUE].get(name)
        if obj is None:
            raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME, detail=name)
        return obj

    def qmgr_attr(self, key: str) -> Any:
        return self.qm.qmgr.attrs[key]

    def cluster_queue(self, name: str) -> bool:
        cl = self.qm.cluster
        return cl.active and cl.remote_instances(name)

    def cluster_qmgr_alias(self, name: str) -> bool:
        cl = self.qm.cluster
        return cl.active and cl.remote_instances(name, qmgr_alias=True)

    def qsg_member(self, qmgr: str) -> bool:
        """Whether ``qmgr`` is another member of this queue manager's group. A name the member list
        does not hold is looked up in the shared store, at most every half second: a member that
        joined since the server's last refresh is known at once, as MQ's members know each other."""
        if qmgr in self.qm.qsg_members:
            return True
        if self.qm.shared is None or not qmgr.strip():
            return False
        now = self.qm.clock.now()
        if now - self._members_read < 0.5:
            return False
        self._members_read = now
        members = self.shared_call(self.qm.shared.members)
        self.qm.qsg_members = frozenset(m for m, _state, _hb in members if m != self.qm.name)
        return qmgr in self.qm.qsg_members

    def cluster_route(self, qmgr: str) -> tuple[str, str] | None:
        cl = self.qm.cluster
        channel = cl.route(qmgr) if cl.active else None
        return None if channel is None else (self.qm.routing.cluster_xmitq(channel), channel)

    def lookup(self, ns: str, name: str) -> MQObject | None:
        if ns == QMGR:
            return self.qm.qmgr
        return self.qm.objects[ns].get(name)

    def stamp_definition(self, obj: MQObject, created: bool) -> None:
        d, t = self._date_time()
        if created and "CRDATE" in TABLE.attrs(obj.kind):
            obj.attrs["CRDATE"], obj.attrs["CRTIME"] = d, t
        if "ALTDATE" in TABLE.attrs(obj.kind):
            obj.attrs["ALTDATE"], obj.attrs["ALTTIME"] = d, t

    def _date_time(self) -> tuple[str, str]:
        return mq_date_time(self.qm.clock.now())

    def _register(self, obj: MQObject) -> None:
        self.qm.objects[obj.objtype][obj.name] = obj
        if obj.kind == "QLOCAL" and obj.name not in self.qm.queues:
            fifo = obj["MSGDLVSQ"] == C.MQMDS_FIFO
            if obj.attrs.get("QSGDISP") == C.MQQSGD_SHARED:
                if self.qm.shared is None:
                    raise MQIError(C.MQRC_CF_NOT_AVAILABLE, detail=f"{obj.name} is shared; not in a group")
                self.qm.queues[obj.name] = SharedQueueState(obj.name, self.qm.shared, fifo)
            else:
                self.qm.queues[obj.name] = QueueState(obj.name, fifo, self.qm.pager, self.qm.buffers)
            self.qm.queues[obj.name].reset_at = self.qm.clock.now()
        if obj.kind == "QLOCAL" and obj.name in self.qm.queues:
            self.qm.queues[obj.name].monitored = monitoring(obj, self.qm.qmgr) != C.MQMON_OFF

    def save(self, obj: MQObject) -> None:
        if obj.kind == "QLOCAL" and obj["DEFTYPE"] == C.MQQDT_TEMPORARY_DYNAMIC:
            return
        ns = QMGR if obj.kind == QMGR else obj.objtype
        if obj.attrs.get("QSGDISP") == C.MQQSGD_SHARED:
            self.shared_call(self.qm.group.put_object, ns, obj.name, SHARED, obj.to_record(), False)
            return
        self.qm.store.append(SaveObject(ns, obj.name, json.dumps(obj.to_record())))

    def add_object(self, obj: MQObject) -> None:
        self.stamp_definition(obj, created=True)
        self._register(obj)
        self.save(obj)
        self.qm.cluster.changed()
        self.qm.hooks.object_changed(obj, obj.objtype, obj.name)

    def _refresh_monitoring(self) -> None:
        """Whether each queue is monitored (MONQ in force: engine/status.py)."""
        for name, qs in self.qm.queues.items():
            qs.monitored = monitoring(self.qm.objects[QUEUE].get(name), self.qm.qmgr) != C.MQMON_OFF

    def replace_object(self, obj: MQObject) -> None:
        """An ALTER or DEFINE REPLACE: same name, new attribute values."""
        old = self.lookup(obj.objtype if obj.kind != QMGR else QMGR, obj.name)
        self.stamp_definition(obj, created=False)
        if obj.kind == QMGR:
            self.qm.qmgr = obj
            self._refresh_monitoring()                 # MONQ at the queue manager: every queue's
        else:
            if old is not None and old.kind != obj.kind and old.kind == "QLOCAL":
                self.qm.queues.pop(obj.name, None)
            self._register(obj)
            qs = self.qm.queues.get(obj.name)
            if qs is not None and qs.fifo != (obj["MSGDLVSQ"] == C.MQMDS_FIFO):
                if qs.paged:
                    # Every stored message is read back in the new layout: the store must hold
                    # exactly what the queue does (removals written), less what units of work hold.
                    self.qm.store.sync()
                qs.reorder(obj["MSGDLVSQ"] == C.MQMDS_FIFO, self._held_stored(qs))
        self.save(obj)
        self.qm.cluster.changed()
        self.qm.hooks.object_changed(obj, obj.objtype, obj.name)

    def remove_object(self, obj: MQObject, purge: bool = True) -> None:
        ns = obj.objtype
        if self.qm.security.records.table:
            self.qm.security.delete_object_records(ns, obj.name)   # its own records go with it
        self.qm.objects[ns].pop(obj.name, None)
        qs = self.qm.queues.pop(obj.name, None) if obj.kind == "QLOCAL" else None
        if qs is not None and qs.shared:
            self.shared_call(self.qm.group.delete_object, ns, obj.name, SHARED, True)
        elif qs is not None:
            qs.discard()
            self.qm.store.append(PurgeQueue(obj.name))
        shared = obj.attrs.get("QSGDISP") == C.MQQSGD_SHARED   # its definition went with the store's
        if not shared and not (obj.kind == "QLOCAL" and obj["DEFTYPE"] == C.MQQDT_TEMPORARY_DYNAMIC):
            self.qm.store.append(DropObject(ns, obj.name))
        self.qm.cluster.changed()
        self.qm.hooks.object_changed(None, ns, obj.name)

    def forget_object(self, ns: str, name: str) -> None:
        """A shared definition another member deleted (or replaced by a private one): drop it here,
        with nothing written anywhere."""
        obj = self.qm.objects[ns].pop(name, None)
        if obj is not None and obj.kind == "QLOCAL":
            self.qm.queues.pop(name, None)
        self.qm.cluster.changed()
        self.qm.hooks.object_changed(None, ns, name)

    def install_object(self, obj: MQObject) -> None:
        """A shared definition (or a group object's copy) that another member made or changed."""
        old = self.qm.objects[obj.objtype].get(obj.name)
        if old is not None and old.kind != obj.kind and old.kind == "QLOCAL":
            self.qm.queues.pop(obj.name, None)
        self._register(obj)
        qs = self.qm.queues.get(obj.name)
        if qs is not None and qs.fifo != (obj["MSGDLVSQ"] == C.MQMDS_FIFO):
            qs.fifo = obj["MSGDLVSQ"] == C.MQMDS_FIFO
        self.qm.cluster.changed()
        self.qm.hooks.object_changed(obj, obj.objtype, obj.name)

    def shared_call(self, fn: Callable[..., T], *args: Any) -> T:
        """A call to the shared store; its failure is MQ's answer for an unavailable structure."""
        try:
            return fn(*args)
        except QueueFull as e:
            raise MQIError(C.MQRC_Q_FULL, detail=e.queue) from None
        except SharedStoreError as e:
            raise MQIError(C.MQRC_CF_NOT_AVAILABLE, detail=str(e)) from None
        except Exception as e:  # noqa: BLE001 - a database driver's own errors
            if isinstance(e, MQIError):
                raise
            self.qm.log(message("MQL7006E"), repr(e))
            raise MQIError(C.MQRC_CF_STRUC_FAILED, detail=str(e)) from None

    def in_use(self, name: str) -> bool:
        qs = self.qm.queues.get(name)
        if qs is not None and (qs.refs or qs.uncommitted):
            return True
        return any(h.res is not None and name in h.res.path for c in self.qm.conns.values() for h in c.handles.values())

    def clear_queue(self, name: str) -> int:
        qs = self.qm.queues[name]
        if qs.shared:
            return self.shared_call(self.qm.group.clear, name)
        n = qs.purge()
        self.qm.store.append(PurgeQueue(name))
        if qs.stats is not None:
            qs.stats.purged += n
            qs.stats.depth(0)
        return n
