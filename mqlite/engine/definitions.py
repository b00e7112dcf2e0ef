"""Creation and recovery, the object registry, connections. Part of the engine's QueueManager
(mqlite.engine.qmgr), which combines these classes: their methods reach each other and the
shared state through ``self``."""
from __future__ import annotations

import json
import time
from dataclasses import replace
from typing import Any, Callable, TypeVar

from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import MD, pad
from mqlite.engine.clock import mq_date_time
from mqlite.engine.connections import connection_id
from mqlite.engine.core import (
    C,
    Conn,
    Prepared,
)
from mqlite.engine.message import Message
from mqlite.engine.mqicore import CoreState
from mqlite.engine.mqistats import DISC_IMPLICIT, DISC_NORMAL, DISC_Q_MGR
from mqlite.engine.ports import DropObject, PurgeQueue, QueueFull, SaveMeta, SaveObject, SharedPort, SharedStoreError
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


class DefinitionsMixin(CoreState):
    # --- creation and recovery ------------------------------------------------------------------
    def create(self, deadq: str = "", qmid: str | None = None, admin: str = "", oam: bool = True) -> int:
        """Lay down the system objects of a new queue manager (crtmqm). Returns how many.
        Security as a new IBM MQ queue manager's (docs/security.md): CONNAUTH naming the IDPWOS
        default, MQ's three default CHLAUTH rules, the OAM on unless ``oam`` is False (MQSNOAUT);
        ``admin``, the user creating it, goes into the registry's mqm group."""
        now = self.clock.now()
        self.qmgr.attrs["QMID"] = qmid or f"{self.name}_{time.strftime('%Y-%m-%d_%H.%M.%S', time.gmtime(now))}"
        self.qmgr.attrs["DEADQ"] = deadq
        self.qmgr.attrs["CONNAUTH"] = IDPWOS_DEFAULT
        self.stamp_definition(self.qmgr, created=True)
        self.save(self.qmgr)
        objs = system_default_objects()
        for obj in objs:
            self.add_object(obj)
        sec = self.security
        for rule in DEFAULT_RULES:
            d, t = self._date_time()
            sec.put_rule(replace(rule, altdate=d, alttime=t, userlist=list(rule.userlist)))
        if admin:
            sec.set_user(admin, None, [ADMIN_GROUP])
        if not oam:
            sec.oam = False
            self.store.append(SaveMeta("noaut", "1"))
        self.store.sync()
        return len(objs)

    def recover(self) -> dict[str, int]:
        """Rebuild state from the store after a start (or a crash): definitions, then messages."""
        self.security.oam = self.store.meta("noaut") != "1"
        for ns, _name, rec in self.store.objects():
            if ns in SECURITY_NAMESPACES:
                self.security.load(ns, rec)
                continue
            if ns in (SUB_NS, RETAINED_NS):
                self.pubsub.load(ns, rec)
                continue
            if ns == PSCHILD_NS:
                self.pubhier.load_child(rec)
                continue
            obj = MQObject.from_record(rec)
            if ns == QMGR:
                self.qmgr = obj
                continue
            self._register(obj)
        self._refresh_monitoring()
        self.uow.chsync = dict(self.store.chsync())
        # The messages are counted, not read: each queue reads its front when it is first served
        # (a start takes as long with ten million messages as with ten). So they can only come
        # back through a pager: without one, recovering would lose them.
        if self.pager is None:
            raise ValueError("recovering a queue manager's messages needs a pager (engine.ports.Pager)")
        restored = 0
        for queue, by_prio in self.store.message_counts().items():
            qs = self.queues.get(queue)
            if qs is None or qs.shared:
                self.store.append(PurgeQueue(queue))
                continue
            qs.restore(by_prio)
            restored += sum(by_prio.values())
        self._recover_prepared()
        problem = self.authority.refresh_connauth()
        if problem:
            self.log(problem)
        # Message numbers never repeat, even for nonpersistent messages lost in a crash: channels use
        # them as message keys. Start above every earlier run (time-based floor, 1000 per ms).
        self.arrivals.seq = max(self.store.max_seq(), int(self.clock.now() * 1000) * 1000)
        self.store.sync()
        return {"messages": restored, "queues": len(self.queues)}

    def _held_stored(self, qs: QueueState) -> tuple[Message, ...]:
        """The persistent messages of ``qs`` that units of work (open or prepared) and read-ahead
        hold: off the queue, their rows still stored."""
        held = [m for c in self.conns.values() for kind, q, m in c.uow if kind == "get" and q is qs]
        held += [m for u in self.uow.prepared.values() for kind, q, m in u.entries if kind == "get" and q is qs]
        held += [m for c in self.conns.values() for h in c.handles.values() if h.qstate is qs
                 for m, _sp in h.read_ahead]
        return tuple({m.seq: m for m in held if m.persistent}.values())

    def _damaged(self, seq: int, queue: str) -> None:
        """A stored message read back did not match its checksum (the pager set it aside)."""
        self.log(f"AMQ7472W: Object {queue}, type queue damaged: stored message {seq} does not match its "
                 "checksum; it was moved aside to the damaged table of qmgr.db and is not served.")

    def _unreadable(self, queue: str, why: str) -> None:
        """The store's pages holding a queue's messages could not be read (SQLite found damage)."""
        self.log(f"AMQ7472W: Object {queue}, type queue damaged: its stored messages cannot be read ({why}). "
                 "Applications get MQRC_OBJECT_DAMAGED (2101) for what is stored of it; the queue manager "
                 "goes on serving the other objects. Restore qmgr.db from a backup, or empty the queue.")

    def _recover_prepared(self) -> None:
        """Prepared units of work come back as they were: their puts counted in the depth but not
        visible, the messages they got held out of the queues."""
        rows = list(self.store.prepared())
        gets = [r[3] for r in rows if r[2] == "get" and r[3] is not None]
        stored = self.pager.load(gets) if gets and self.pager is not None else {}
        for xid, at, kind, seq, queue, md_bytes, body, expiry_at in rows:
            unit = self.uow.prepared.setdefault(xid, Prepared(xid, at, []))
            qs = self.queues.get(queue or "")
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

    # --- definitions ------------------------------------------------------------------------------
    def queue(self, name: str) -> MQObject | None:
        return self.objects[QUEUE].get(name)

    def queue_defined(self, name: str) -> MQObject:
        """A queue definition that resolution has found (2085 if it went meanwhile)."""
        obj = self.objects[QUEUE].get(name)
        if obj is None:
            raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME, detail=name)
        return obj

    @property
    def group(self) -> SharedPort:
        """The group's shared store: a member's, the structure unavailable (2345) for any other."""
        if self.shared is None:
            raise MQIError(C.MQRC_CF_NOT_AVAILABLE, detail="not a member of a queue-sharing group")
        return self.shared

    def qmgr_attr(self, key: str) -> Any:
        return self.qmgr.attrs[key]

    def cluster_queue(self, name: str) -> bool:
        cl = self.cluster
        return cl.active and cl.remote_instances(name)

    def cluster_qmgr_alias(self, name: str) -> bool:
        cl = self.cluster
        return cl.active and cl.remote_instances(name, qmgr_alias=True)

    def qsg_member(self, qmgr: str) -> bool:
        """Whether ``qmgr`` is another member of this queue manager's group. A name the member list
        does not hold is looked up in the shared store, at most every half second: a member that
        joined since the server's last refresh is known at once, as MQ's members know each other."""
        if qmgr in self.qsg_members:
            return True
        if self.shared is None or not qmgr.strip():
            return False
        now = self.clock.now()
        if now - self._members_read < 0.5:
            return False
        self._members_read = now
        members = self.shared_call(self.shared.members)
        self.qsg_members = frozenset(m for m, _state, _hb in members if m != self.name)
        return qmgr in self.qsg_members

    def cluster_route(self, qmgr: str) -> tuple[str, str] | None:
        cl = self.cluster
        channel = cl.route(qmgr) if cl.active else None
        return None if channel is None else (self.routing.cluster_xmitq(channel), channel)

    def lookup(self, ns: str, name: str) -> MQObject | None:
        if ns == QMGR:
            return self.qmgr
        return self.objects[ns].get(name)

    def stamp_definition(self, obj: MQObject, created: bool) -> None:
        d, t = self._date_time()
        if created and "CRDATE" in TABLE.attrs(obj.kind):
            obj.attrs["CRDATE"], obj.attrs["CRTIME"] = d, t
        if "ALTDATE" in TABLE.attrs(obj.kind):
            obj.attrs["ALTDATE"], obj.attrs["ALTTIME"] = d, t

    def _date_time(self) -> tuple[str, str]:
        return mq_date_time(self.clock.now())

    def _register(self, obj: MQObject) -> None:
        self.objects[obj.objtype][obj.name] = obj
        if obj.kind == "QLOCAL" and obj.name not in self.queues:
            fifo = obj["MSGDLVSQ"] == C.MQMDS_FIFO
            if obj.attrs.get("QSGDISP") == C.MQQSGD_SHARED:
                if self.shared is None:
                    raise MQIError(C.MQRC_CF_NOT_AVAILABLE, detail=f"{obj.name} is shared; not in a group")
                self.queues[obj.name] = SharedQueueState(obj.name, self.shared, fifo)
            else:
                self.queues[obj.name] = QueueState(obj.name, fifo, self.pager, self.buffers)
            self.queues[obj.name].reset_at = self.clock.now()
        if obj.kind == "QLOCAL" and obj.name in self.queues:
            self.queues[obj.name].monitored = monitoring(obj, self.qmgr) != C.MQMON_OFF

    def save(self, obj: MQObject) -> None:
        if obj.kind == "QLOCAL" and obj["DEFTYPE"] == C.MQQDT_TEMPORARY_DYNAMIC:
            return
        ns = QMGR if obj.kind == QMGR else obj.objtype
        if obj.attrs.get("QSGDISP") == C.MQQSGD_SHARED:
            self.shared_call(self.group.put_object, ns, obj.name, SHARED, obj.to_record(), False)
            return
        self.store.append(SaveObject(ns, obj.name, json.dumps(obj.to_record())))

    def add_object(self, obj: MQObject) -> None:
        self.stamp_definition(obj, created=True)
        self._register(obj)
        self.save(obj)
        self.cluster.changed()
        self.hooks.object_changed(obj, obj.objtype, obj.name)

    def _refresh_monitoring(self) -> None:
        """Whether each queue is monitored (MONQ in force: engine/status.py)."""
        for name, qs in self.queues.items():
            qs.monitored = monitoring(self.objects[QUEUE].get(name), self.qmgr) != C.MQMON_OFF

    def replace_object(self, obj: MQObject) -> None:
        """An ALTER or DEFINE REPLACE: same name, new attribute values."""
        old = self.lookup(obj.objtype if obj.kind != QMGR else QMGR, obj.name)
        self.stamp_definition(obj, created=False)
        if obj.kind == QMGR:
            self.qmgr = obj
            self._refresh_monitoring()                 # MONQ at the queue manager: every queue's
        else:
            if old is not None and old.kind != obj.kind and old.kind == "QLOCAL":
                self.queues.pop(obj.name, None)
            self._register(obj)
            qs = self.queues.get(obj.name)
            if qs is not None and qs.fifo != (obj["MSGDLVSQ"] == C.MQMDS_FIFO):
                if qs.paged:
                    # Every stored message is read back in the new layout: the store must hold
                    # exactly what the queue does (removals written), less what units of work hold.
                    self.store.sync()
                qs.reorder(obj["MSGDLVSQ"] == C.MQMDS_FIFO, self._held_stored(qs))
        self.save(obj)
        self.cluster.changed()
        self.hooks.object_changed(obj, obj.objtype, obj.name)

    def remove_object(self, obj: MQObject, purge: bool = True) -> None:
        ns = obj.objtype
        if self.security.records.table:
            self.security.delete_object_records(ns, obj.name)   # its own records go with it
        self.objects[ns].pop(obj.name, None)
        qs = self.queues.pop(obj.name, None) if obj.kind == "QLOCAL" else None
        if qs is not None and qs.shared:
            self.shared_call(self.group.delete_object, ns, obj.name, SHARED, True)
        elif qs is not None:
            qs.discard()
            self.store.append(PurgeQueue(obj.name))
        shared = obj.attrs.get("QSGDISP") == C.MQQSGD_SHARED   # its definition went with the store's
        if not shared and not (obj.kind == "QLOCAL" and obj["DEFTYPE"] == C.MQQDT_TEMPORARY_DYNAMIC):
            self.store.append(DropObject(ns, obj.name))
        self.cluster.changed()
        self.hooks.object_changed(None, ns, obj.name)

    def forget_object(self, ns: str, name: str) -> None:
        """A shared definition another member deleted (or replaced by a private one): drop it here,
        with nothing written anywhere."""
        obj = self.objects[ns].pop(name, None)
        if obj is not None and obj.kind == "QLOCAL":
            self.queues.pop(name, None)
        self.cluster.changed()
        self.hooks.object_changed(None, ns, name)

    def install_object(self, obj: MQObject) -> None:
        """A shared definition (or a group object's copy) that another member made or changed."""
        old = self.objects[obj.objtype].get(obj.name)
        if old is not None and old.kind != obj.kind and old.kind == "QLOCAL":
            self.queues.pop(obj.name, None)
        self._register(obj)
        qs = self.queues.get(obj.name)
        if qs is not None and qs.fifo != (obj["MSGDLVSQ"] == C.MQMDS_FIFO):
            qs.fifo = obj["MSGDLVSQ"] == C.MQMDS_FIFO
        self.cluster.changed()
        self.hooks.object_changed(obj, obj.objtype, obj.name)

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
            self.log(f"Shared store operation failed: {e!r}")
            raise MQIError(C.MQRC_CF_STRUC_FAILED, detail=str(e)) from None

    def in_use(self, name: str) -> bool:
        qs = self.queues.get(name)
        if qs is not None and (qs.refs or qs.uncommitted):
            return True
        return any(h.res is not None and name in h.res.path for c in self.conns.values() for h in c.handles.values())

    def clear_queue(self, name: str) -> int:
        qs = self.queues[name]
        if qs.shared:
            return self.shared_call(self.group.clear, name)
        n = qs.purge()
        self.store.append(PurgeQueue(name))
        if qs.stats is not None:
            qs.stats.purged += n
            qs.stats.depth(0)
        return n

    # --- connections ----------------------------------------------------------------------------
    def connect(self, appl_name: str = "", appl_type: int = C.MQAT_UNIX, user: str = "", *, channel: str = "",
                conname: str = "", pid: int = 0, tid: int = 0, conn_opts: int = C.MQCNO_SHARED_BINDING) -> Conn:
        """MQCONN(X): a connection, with the facts DISPLAY CONN shows of it (``channel``, ``conname``,
        ``pid``, ``tid``, ``conn_opts``: whoever connects knows them)."""
        if self.quiescing:
            raise MQIError(C.MQRC_Q_MGR_QUIESCING)
        conn = Conn(self._next_hconn, appl_name[-28:], appl_type, user[:12])
        conn.user12, conn.appl28 = pad(conn.user, 12), pad(conn.appl_name, 28)
        conn.started = self.clock.now()
        conn.conn_id = connection_id(self.name, int(self.started), conn.hconn)
        conn.channel, conn.conname, conn.pid, conn.tid, conn.conn_opts = channel, conname, pid, tid, conn_opts
        self._next_hconn += 1
        self.conns[conn.hconn] = conn
        if appl_type != C.MQAT_QMGR:            # (the queue manager's own are not counted)
            self.mqi.connected(len(self.conns))
            self.accounting.connected(conn)
            self.applications.setdefault(conn.appl_name, [0, 0])[0] += 1
        return conn

    def agent(self) -> Conn:
        """A connection of the queue manager's own writers (events, statistics, resource
        publications): its calls are not measured and raise no events. MQRC_Q_MGR_QUIESCING once
        the queue manager is ending."""
        conn = self.connect("amqzmuc0", C.MQAT_QMGR, "mqm")
        conn.unmeasured = True
        return conn

    def conn(self, hconn: int) -> Conn:
        c = self.conns.get(hconn)
        if c is None:
            raise MQIError(C.MQRC_HCONN_ERROR)
        return c

    def disconnect(self, conn: Conn, commit: bool = True) -> None:
        """MQDISC commits (distributed platforms); a broken connection backs out."""
        if self.pubsub.subscriptions:
            self.subs.end_connection_subscriptions(conn)
        for hobj in list(conn.handles):
            self.settle(conn, hobj, 0, release=True)   # messages sent ahead and not consumed go back
        if conn.shared_async:
            try:
                self.flush_shared_async(conn)
            except MQIError:
                pass
        if conn.uow or conn.uow_failed:
            try:
                self.commit(conn) if commit else self.backout(conn)
            except MQIError:
                pass  # MQDISC of a unit of work whose async put failed: backed out, as MQCMIT would
        for hobj in list(conn.handles):
            try:
                self.close(conn, hobj, C.MQCO_NONE)
            except MQIError:
                pass
        self.conns.pop(conn.hconn, None)
        if conn.appl_type != C.MQAT_QMGR:      # (the queue manager's own are not counted)
            # MQDISC; gone without it; or ended by the queue manager as it ends.
            how = DISC_NORMAL if commit else DISC_Q_MGR if self.quiescing else DISC_IMPLICIT
            self.mqi.discs[how] += 1
            self.applications.setdefault(conn.appl_name, [0, 0])[1] += 1
            if conn.acct is not None:
                self.accounting.record(conn, self.clock.now(), how)
