"""The queue-manager engine: definitions, connections, handles and units of work.

Plain synchronous Python: no sockets, threads or sleeps.  The caller (the server, or a test)
serialises calls, supplies the clock, and after each call makes the journal durable up to the
connection's ``ticket`` before answering the application.  MQGET with a wait is the caller's
business too: the engine answers 2033 at once and reports which queue to wait on.
"""
from __future__ import annotations

import json
import math
import struct
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

from mqlite.cmq import CMQC
from mqlite.cmq.structs import GMO, MD, OD, PMO, PackedMD, pad, text
from mqlite.engine import wlm
from mqlite.engine.clock import Clock, IdGenerator, mq_date_time
from mqlite.engine.cluster import ClusterPending, ClusterState, correl_of
from mqlite.engine.errors import MQIError
from mqlite.engine.queue import Message, QueueState, in_position_order, matcher, stream_last, wanted_ids
from mqlite.engine.repository import QMGR as CL_QMGR
from mqlite.engine.repository import QUEUE as CL_QUEUE
from mqlite.engine.resolve import CLUSTER, LOCAL, MODEL, NEEDS_LOCAL, REMOTE, Resolved, resolve
from mqlite.engine.shared import QSG_XMITQ, SHARED, SharedGot, SharedPort, SharedPut, SharedQueueState
from mqlite.objects.attrs import QTYPE_VALUES, TABLE
from mqlite.objects.model import QMGR, QUEUE, MQObject, system_default_objects
from mqlite.objects.names import valid_name
from mqlite.store.shared import NewMessage, QueueFull, Select, SharedStoreError
from mqlite.store.sqlite import Store

C = CMQC
INPUT_OPTS = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE
ACCESS_OPTS = (INPUT_OPTS | C.MQOO_BROWSE | C.MQOO_OUTPUT | C.MQOO_INQUIRE | C.MQOO_SET
               | C.MQOO_BIND_ON_OPEN | C.MQOO_BIND_NOT_FIXED | C.MQOO_BIND_ON_GROUP)
VALID_OO = (ACCESS_OPTS | C.MQOO_SAVE_ALL_CONTEXT | C.MQOO_PASS_IDENTITY_CONTEXT | C.MQOO_PASS_ALL_CONTEXT
            | C.MQOO_SET_IDENTITY_CONTEXT | C.MQOO_SET_ALL_CONTEXT | C.MQOO_ALTERNATE_USER_AUTHORITY
            | C.MQOO_FAIL_IF_QUIESCING | C.MQOO_RESOLVE_NAMES | C.MQOO_CO_OP | C.MQOO_RESOLVE_LOCAL_Q
            | C.MQOO_NO_READ_AHEAD | C.MQOO_READ_AHEAD | C.MQOO_NO_MULTICAST)
CONTEXT_PMO = (C.MQPMO_DEFAULT_CONTEXT | C.MQPMO_NO_CONTEXT | C.MQPMO_PASS_ALL_CONTEXT
               | C.MQPMO_PASS_IDENTITY_CONTEXT | C.MQPMO_SET_ALL_CONTEXT | C.MQPMO_SET_IDENTITY_CONTEXT)
BROWSE_GMO = C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
BLANK48 = b" " * 48
XQH_FIXED = struct.Struct("@4si48s48s")   # the MQXQH fields before its embedded MQMD
_MD_HOT = struct.Struct("@16xi20xii")      # MQMD Expiry, Priority, Persistence (offsets 16, 40, 44)
BLANK32 = b" " * 32
XQH_LEN = C.MQXQH_CURRENT_LENGTH
STORED_OVERHEAD = 400               # a stored message's bytes beyond its body (descriptor, row, index)
XA_END, XA_END_DAYS = "XAEND:", 7   # channel-record keys of closed XID prefixes, kept a week
# Where the MQXQH keeps what an MCA needs: the destination names and the original Format and
# CorrelId (on a cluster transmission queue the message's own CorrelId names the channel).
REMOTE_Q, REMOTE_QM, ORIG_FORMAT = slice(8, 56), slice(56, 104), slice(104 + 32, 104 + 40)
ORIG_CORREL = slice(104 + 72, 104 + 96)


def original_md(md_bytes: bytes, body: bytes) -> bytes:
    """The packed descriptor a message had before it went on a transmission queue."""
    return md_bytes[:32] + body[ORIG_FORMAT] + md_bytes[40:72] + body[ORIG_CORREL] + md_bytes[96:]


def _bits(x: int) -> int:
    return bin(x).count("1")


_CTIME_CACHE: list[Any] = [-1, b"", b""]


def _ctime(t: float) -> tuple[bytes, bytes]:
    """MQ's date and time of a put: YYYYMMDD and HHMMSSTH (hundredths), in UTC."""
    hundredths = int(t * 100)
    cache = _CTIME_CACHE
    if cache[0] != hundredths:
        tm = time.gmtime(t)
        cache[:] = [hundredths, time.strftime("%Y%m%d", tm).encode(),
                    (time.strftime("%H%M%S", tm) + f"{hundredths % 100:02d}").encode()]
    return cache[1], cache[2]


@dataclass
class Handle:
    hobj: int
    name: str                       # the name opened (after model instantiation, the new queue)
    obj: MQObject | None            # the definition opened (None for the queue manager object)
    options: int
    res: Resolved | None
    qstate: QueueState | None       # the local queue or transmission queue at the end of the path
    input_mode: str = ""            # "S" shared, "X" exclusive
    dynamic_owner: bool = False     # this handle created a temporary dynamic queue
    browse_at: tuple[int, int] | None = None
    browse_seq: int | None = None
    put_group: tuple[bytes, int] | None = None   # (GroupId, last MsgSeqNumber) for MQPMO_LOGICAL_ORDER
    get_group: tuple[bytes, int] | None = None   # (GroupId, next MsgSeqNumber) for MQGMO_LOGICAL_ORDER
    # Messages sent ahead to the client and not yet consumed, each with whether it belongs to the
    # connection's unit of work (read-ahead under syncpoint).
    read_ahead: deque[tuple[Message, bool]] = field(default_factory=deque)
    async_put: bool = False         # DEFPRESP(ASYNC) of the queue opened
    read_ahead_ok: bool = False     # MQOO_READ_AHEAD, or DEFREADA(YES) of the queue opened
    bind: int = C.MQBND_BIND_ON_OPEN   # a cluster queue's binding (res.kind CLUSTER)
    cluster_name: str = ""          # a cluster queue (or clustered alias) opened: the name of its records
    group_target: tuple[Resolved, QueueState] | None = None   # BIND_ON_GROUP: the group's instance


@dataclass
class Conn:
    hconn: int
    appl_name: str
    appl_type: int
    user: str
    handles: dict[int, Handle] = field(default_factory=dict)
    uow: list[tuple[str, QueueState, Message]] = field(default_factory=list)
    ticket: int = 0                 # journal position the caller must make durable before replying
    next_hobj: int = 1
    put_ok: int = 0                 # asynchronous put outcomes since the last MQSTAT
    put_warn: int = 0
    put_fail: int = 0
    first_error: tuple[int, int, str] | None = None  # (comp, reason, object) of the first failed async put
    uow_failed: bool = False        # an asynchronous put inside the unit of work failed: commit backs out
    cluster_waited: bool = False    # MQOPEN already waited for a full repository's answer
    shared_uow: bool = False        # the unit of work holds shared-queue messages ("sput"/"sget" entries)
    async_now: bool = False         # inside put_async: a shared put outside syncpoint may wait in shared_async
    shared_async: list[NewMessage] = field(default_factory=list)   # written by flush_shared_async
    user12: bytes = b""             # UserIdentifier and PutApplName as they go into every MQMD
    appl28: bytes = b""


@dataclass
class Prepared:
    """A unit of work past phase one of a two-phase commit: no longer any connection's, kept (the
    persistent part durably) until it is committed or backed out by its XID."""
    xid: str
    at: float
    entries: list[tuple[str, QueueState, Message]]


@dataclass
class GetResult:
    md: MD
    body: bytes
    data_length: int
    gmo: GMO
    comp: int = C.MQCC_OK
    reason: int = C.MQRC_NONE
    seq: int = 0                    # the message's store number (channel agents record it)
    persistent: bool = False
    packed: bytes | None = None     # the descriptor already packed (when nothing in it changed)


class QueueManager:
    """One queue manager's state and MQI behaviour."""

    def __init__(self, name: str, store: Store, clock: Clock | None = None) -> None:
        self.name = name
        self.qmgr_name = name
        self.store = store
        self.clock = clock or Clock()
        self.ids = IdGenerator(name, self.clock)
        self.objects: dict[str, dict[str, MQObject]] = {QUEUE: {}, "CHANNEL": {}, "NAMELIST": {}, "LISTENER": {}}
        self.queues: dict[str, QueueState] = {}
        self.qmgr = MQObject(QMGR, name, TABLE.defaults(QMGR))
        self.conns: dict[int, Conn] = {}
        self.chsync: dict[str, dict[str, Any]] = {}   # channel synchronisation records
        self._next_hconn = 1
        self._seq = 0
        self.quiescing = False
        self.name48 = pad(name, 48)
        self.on_available: Callable[[str], None] = lambda q: None
        self.on_object_changed: Callable[[MQObject | None, str, str], None] = lambda o, ns, n: None
        self.log: Callable[[str], None] = lambda s: None
        self.cluster = ClusterState(self)
        self.shared: SharedPort | None = None          # the group's shared store, for a QSG member
        self.qsg_members: frozenset[str] = frozenset()   # the other members (kept up to date by the server)
        self.group_objects: dict[tuple[str, str], MQObject] = {}   # QSGDISP(GROUP) definitions, by (ns, name)
        self._cl_targets: dict[tuple[Any, ...], tuple[Resolved, QueueState, Resolved]] = {}
        self.prepared: dict[str, Prepared] = {}        # two-phase units of work past phase one, by XID

    # --- creation and recovery ------------------------------------------------------------------
    def create(self, deadq: str = "", qmid: str | None = None) -> int:
        """Lay down the system objects of a new queue manager (crtmqm). Returns how many."""
        now = self.clock.now()
        self.qmgr.attrs["QMID"] = qmid or f"{self.name}_{time.strftime('%Y-%m-%d_%H.%M.%S', time.gmtime(now))}"
        self.qmgr.attrs["DEADQ"] = deadq
        self._stamp(self.qmgr, created=False)
        self.save(self.qmgr)
        objs = system_default_objects()
        for obj in objs:
            self.add_object(obj)
        self.store.sync()
        return len(objs)

    def recover(self) -> dict[str, int]:
        """Rebuild state from the store after a start (or a crash): definitions, then messages."""
        for ns, _name, rec in self.store.objects():
            obj = MQObject.from_record(rec)
            if ns == QMGR:
                self.qmgr = obj
                continue
            self._register(obj)
        self.chsync = dict(self.store.chsync())
        restored = 0
        damaged: list[tuple[int, str]] = []
        for seq, queue, md_bytes, body, expiry_at, backout in self.store.messages(damaged):
            qs = self.queues.get(queue)
            if qs is None:
                self.store.append(("del", seq))
                continue
            md = MD.from_bytes(md_bytes)
            md.BackoutCount = max(md.BackoutCount, backout)
            qs.insert(Message(seq, md, body, expiry_at, True, qs.lane_for(md.Priority)))
            restored += 1
        for seq, queue in damaged:
            self.log(f"AMQ7472W: Object {queue}, type queue damaged: stored message {seq} does not match its "
                     "checksum; it was moved aside to the damaged table of qmgr.db and is not served.")
        self._recover_prepared()
        # Message numbers never repeat, even for nonpersistent messages lost in a crash: channels use
        # them as message keys. Start above every earlier run (time-based floor, 1000 per ms).
        self._seq = max(self.store.max_seq(), int(self.clock.now() * 1000) * 1000)
        self.store.sync()
        return {"messages": restored, "queues": len(self.queues), "damaged": len(damaged)}

    def _recover_prepared(self) -> None:
        """Prepared units of work come back as they were: their puts counted in the depth but not
        visible, the messages they got held out of the queues."""
        held: dict[str, dict[int, Message]] = {}
        for xid, at, kind, seq, queue, md_bytes, body, expiry_at in self.store.prepared():
            unit = self.prepared.setdefault(xid, Prepared(xid, at, []))
            qs = self.queues.get(queue or "")
            if qs is None or seq is None:
                continue
            if kind == "put":
                md = MD.from_bytes(md_bytes or b"")
                unit.entries.append(("put", qs, Message(seq, md, body or b"", expiry_at, True,
                                                        qs.lane_for(md.Priority))))
                qs.uncommitted += 1
            elif kind == "get":
                if queue not in held:
                    held[queue] = {m.seq: m for m in qs}    # type: ignore[index]
                msg = held[queue].get(seq)                  # type: ignore[index]
                if msg is not None:
                    qs.remove(msg)
                    qs.uncommitted += 1
                    unit.entries.append(("get", qs, msg))

    # --- definitions ------------------------------------------------------------------------------
    def queue(self, name: str) -> MQObject | None:
        return self.objects[QUEUE].get(name)

    def qmgr_attr(self, key: str) -> Any:
        return self.qmgr.attrs[key]

    def cluster_queue(self, name: str) -> bool:
        cl = self.cluster
        return cl.active and cl.remote_instances(name)

    def cluster_qmgr_alias(self, name: str) -> bool:
        cl = self.cluster
        return cl.active and cl.remote_instances(name, qmgr_alias=True)

    def qsg_member(self, qmgr: str) -> bool:
        return qmgr in self.qsg_members

    def cluster_route(self, qmgr: str) -> tuple[str, str] | None:
        cl = self.cluster
        channel = cl.route(qmgr) if cl.active else None
        return None if channel is None else (cl.xmitq_now(channel), channel)

    def lookup(self, ns: str, name: str) -> MQObject | None:
        if ns == QMGR:
            return self.qmgr
        return self.objects[ns].get(name)

    def _stamp(self, obj: MQObject, created: bool) -> None:
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
                self.queues[obj.name] = QueueState(obj.name, fifo=fifo)

    def save(self, obj: MQObject) -> None:
        if obj.kind == "QLOCAL" and obj["DEFTYPE"] == C.MQQDT_TEMPORARY_DYNAMIC:
            return
        ns = QMGR if obj.kind == QMGR else obj.objtype
        if obj.attrs.get("QSGDISP") == C.MQQSGD_SHARED:
            self._shared_call(self.shared.put_object, ns, obj.name, SHARED, obj.to_record(), False)  # type: ignore[union-attr]
            return
        self.store.append(("obj", ns, obj.name, json.dumps(obj.to_record())))

    def add_object(self, obj: MQObject) -> None:
        self._stamp(obj, created=True)
        self._register(obj)
        self.save(obj)
        self.cluster.changed()
        self.on_object_changed(obj, obj.objtype, obj.name)

    def replace_object(self, obj: MQObject) -> None:
        """An ALTER or DEFINE REPLACE: same name, new attribute values."""
        old = self.lookup(obj.objtype if obj.kind != QMGR else QMGR, obj.name)
        self._stamp(obj, created=False)
        if obj.kind == QMGR:
            self.qmgr = obj
        else:
            if old is not None and old.kind != obj.kind and old.kind == "QLOCAL":
                self.queues.pop(obj.name, None)
            self._register(obj)
            qs = self.queues.get(obj.name)
            if qs is not None and qs.fifo != (obj["MSGDLVSQ"] == C.MQMDS_FIFO):
                qs.reorder(obj["MSGDLVSQ"] == C.MQMDS_FIFO)
        self.save(obj)
        self.cluster.changed()
        self.on_object_changed(obj, obj.objtype, obj.name)

    def remove_object(self, obj: MQObject, purge: bool = True) -> None:
        ns = obj.objtype
        self.objects[ns].pop(obj.name, None)
        qs = self.queues.pop(obj.name, None) if obj.kind == "QLOCAL" else None
        if qs is not None and qs.shared:
            self._shared_call(self.shared.delete_object, ns, obj.name, SHARED, True)  # type: ignore[union-attr]
        elif qs is not None:
            self.store.append(("purge", obj.name))
        shared = obj.attrs.get("QSGDISP") == C.MQQSGD_SHARED   # its definition went with the store's
        if not shared and not (obj.kind == "QLOCAL" and obj["DEFTYPE"] == C.MQQDT_TEMPORARY_DYNAMIC):
            self.store.append(("objdel", ns, obj.name))
        self.cluster.changed()
        self.on_object_changed(None, ns, obj.name)

    def forget_object(self, ns: str, name: str) -> None:
        """A shared definition another member deleted (or replaced by a private one): drop it here,
        with nothing written anywhere."""
        obj = self.objects[ns].pop(name, None)
        if obj is not None and obj.kind == "QLOCAL":
            self.queues.pop(name, None)
        self.cluster.changed()
        self.on_object_changed(None, ns, name)

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
        self.on_object_changed(obj, obj.objtype, obj.name)

    def _shared_call(self, fn: Callable[..., Any], *args: Any) -> Any:
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
            return self._shared_call(self.shared.clear, name)  # type: ignore[union-attr,no-any-return]
        msgs = qs.purge()
        self.store.append(("purge", name))
        return len(msgs)

    # --- connections ----------------------------------------------------------------------------
    def connect(self, appl_name: str = "", appl_type: int = C.MQAT_UNIX, user: str = "") -> Conn:
        if self.quiescing:
            raise MQIError(C.MQRC_Q_MGR_QUIESCING)
        conn = Conn(self._next_hconn, appl_name[-28:], appl_type, user[:12])
        conn.user12, conn.appl28 = pad(conn.user, 12), pad(conn.appl_name, 28)
        self._next_hconn += 1
        self.conns[conn.hconn] = conn
        return conn

    def conn(self, hconn: int) -> Conn:
        c = self.conns.get(hconn)
        if c is None:
            raise MQIError(C.MQRC_HCONN_ERROR)
        return c

    def disconnect(self, conn: Conn, commit: bool = True) -> None:
        """MQDISC commits (distributed platforms); a broken connection backs out."""
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

    # --- MQOPEN -----------------------------------------------------------------------------------
    def open(self, conn: Conn, od: OD, options: int) -> Handle:
        self._check_open_options(options)
        if len(conn.handles) >= self.qmgr["MAXHANDS"] and conn.appl_type != C.MQAT_QMGR:   # agents keep handles
            raise MQIError(C.MQRC_HANDLE_NOT_AVAILABLE, detail=f"MAXHANDS({self.qmgr['MAXHANDS']}) handles are open")
        otype = od.ObjectType
        name = text(od.ObjectName)
        qmname = text(od.ObjectQMgrName)
        if otype == C.MQOT_Q_MGR:
            if qmname and qmname != self.name:
                raise MQIError(C.MQRC_UNKNOWN_OBJECT_Q_MGR)
            if name and name != self.name:
                raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
            if options & ~(C.MQOO_INQUIRE | C.MQOO_ALTERNATE_USER_AUTHORITY | C.MQOO_FAIL_IF_QUIESCING):
                raise MQIError(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
            od.ObjectName = pad(self.name, 48)
            return self._new_handle(conn, self.name, None, options, None, None)
        if otype == C.MQOT_NAMELIST:
            nl = self.objects["NAMELIST"].get(name)
            if nl is None:
                raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
            if options & ~(C.MQOO_INQUIRE | C.MQOO_ALTERNATE_USER_AUTHORITY | C.MQOO_FAIL_IF_QUIESCING):
                raise MQIError(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
            return self._new_handle(conn, name, nl, options, None, None)
        if otype != C.MQOT_Q:
            raise MQIError(C.MQRC_OBJECT_TYPE_ERROR)
        if not name or not valid_name(name):
            raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
        res = self._resolve(conn, name, qmname, options)
        obj = self.queue(res.path[0]) if res.path else None
        if res.kind == CLUSTER:
            return self._open_cluster(conn, od, options, res, obj)
        if options & C.MQOO_OUTPUT and res.kind == LOCAL and conn.appl_type != C.MQAT_QMGR \
                and self.cluster.is_cluster_xmitq(res.queue):
            # Only the queue manager puts to a cluster transmission queue (with the channel's CorrelId).
            raise MQIError(C.MQRC_XMIT_Q_USAGE_ERROR, detail=f"{res.queue} is a cluster transmission queue")
        dynamic_owner = False
        if res.kind == MODEL:
            created = self._instantiate_model(conn, od, self.queue(res.queue))  # type: ignore[arg-type]
            dynamic_owner = created["DEFTYPE"] == C.MQQDT_TEMPORARY_DYNAMIC
            res = Resolved(LOCAL, created.name, created.name, self.name, (created.name,))
            obj = created
            name = created.name
        qs = self.queues.get(res.queue)
        if qs is None:  # the definition vanished between resolve and here (cannot happen single-threaded)
            raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
        input_mode = ""
        if options & INPUT_OPTS:
            input_mode = self._input_mode(obj, self.queue(res.queue), options)  # type: ignore[arg-type]
            if input_mode == "X" and (qs.input_exclusive or qs.input_shared):
                raise MQIError(C.MQRC_OBJECT_IN_USE)
            if input_mode == "S" and qs.input_exclusive:
                raise MQIError(C.MQRC_OBJECT_IN_USE)
        h = self._new_handle(conn, name, obj, options, res, qs)
        h.input_mode = input_mode
        h.dynamic_owner = dynamic_owner
        first = self.queue(res.path[0])
        if first is not None:
            h.async_put = first["DEFPRESP"] == C.MQPRT_ASYNC_RESPONSE
            readahead = first.attrs.get("DEFREADA", C.MQREADA_NO)
            h.read_ahead_ok = bool(options & INPUT_OPTS) and not qs.shared and readahead != C.MQREADA_DISABLED and (
                bool(options & C.MQOO_READ_AHEAD) or (readahead == C.MQREADA_YES
                                                      and not options & C.MQOO_NO_READ_AHEAD))
        if input_mode == "X":
            qs.input_exclusive += 1
        elif input_mode == "S":
            qs.input_shared += 1
        if options & C.MQOO_OUTPUT:
            qs.output += 1
        self._hold_path(res.path, 1)
        od.ResolvedQName = pad(res.queue if (options & C.MQOO_RESOLVE_LOCAL_Q and res.kind == REMOTE)
                               else res.resolved_q, 48)
        od.ResolvedQMgrName = pad(self.name if (options & C.MQOO_RESOLVE_LOCAL_Q and res.kind == REMOTE)
                                  else res.resolved_qm, 48)
        return h

    def _resolve(self, conn: Conn, name: str, qmname: str, options: int) -> Resolved:
        """Name resolution, with the cluster's part: the first use of a name that is not defined
        here subscribes to it at the full repositories; while none has answered, the caller may
        wait for the answer (ClusterPending), after which an unknown name is 2085, or 2189 when no
        full repository answered at all."""
        cl = self.cluster
        if not cl.active:
            return resolve(self, name, qmname, options)
        remote_qm = bool(qmname) and qmname != self.name
        if remote_qm:
            # A queue manager not known here may be a cluster queue manager or a clustered
            # queue-manager alias: subscribe to both (the alias is a queue record of that name).
            kind, what = CL_QUEUE, qmname
            answered = True
            if self.queue(qmname) is None and not cl.route(qmname):
                answered = cl.interest(CL_QMGR, qmname) & cl.interest(CL_QUEUE, qmname)
        else:
            kind, what = CL_QUEUE, name
            local = self.queue(name)
            if local is not None and local.kind == "QALIAS" and (local["TARGET"] == name
                                                                   or self.queue(local["TARGET"]) is None):
                what = local["TARGET"]       # an alias whose base may be a cluster queue elsewhere
                local = None if what == name else self.queue(what)
            answered = True
            if qmname != self.name and (local is None or cl.clusters_of(local)):
                # An unknown name, or a cluster queue hosted here too (its other instances count for
                # CLWLUSEQ(ANY) and put-disabled local instances): register interest.
                answered = cl.interest(kind, what)
        try:
            return resolve(self, name, qmname, options)
        except MQIError as e:
            unknown = e.reason in (C.MQRC_UNKNOWN_OBJECT_NAME, C.MQRC_UNKNOWN_REMOTE_Q_MGR,
                                   C.MQRC_UNKNOWN_ALIAS_BASE_Q)
            if not unknown or answered or (not remote_qm and options & NEEDS_LOCAL):
                raise
            if not conn.cluster_waited:
                raise ClusterPending(kind, what) from None
            if not cl.repo.any_answered(kind, what):
                raise MQIError(C.MQRC_CLUSTER_RESOLUTION_ERROR, detail=f"no full repository answered for {what}") \
                    from None
            raise

    def _open_cluster(self, conn: Conn, od: OD, options: int, res: Resolved, obj: MQObject | None) -> Handle:
        """MQOPEN of a cluster queue (or clustered queue-manager alias) for output or inquire:
        BIND_ON_OPEN chooses the instance now; NOT_FIXED and ON_GROUP at MQPUT."""
        cluster_name = res.remote_qm or res.resolved_q
        first = obj if obj is not None else self.cluster.definition(cluster_name)
        bind = wlm.binding(options, first["DEFBIND"])
        if bind == C.MQBND_BIND_ON_OPEN and options & C.MQOO_OUTPUT:
            target, qs = self._cluster_target(res)
            h = self._new_handle(conn, text(od.ObjectName), obj, options, target, qs)
            qs.output += 1
            od.ResolvedQName = pad(target.resolved_q, 48)
            od.ResolvedQMgrName = pad(target.resolved_qm, 48)
        else:
            h = self._new_handle(conn, text(od.ObjectName), obj, options, res, None)
            od.ResolvedQName = pad(res.resolved_q, 48)
            od.ResolvedQMgrName = BLANK48
        assert h.res is not None
        self._hold_path(h.res.path, 1)
        h.bind = bind
        h.cluster_name = cluster_name
        h.async_put = first["DEFPRESP"] == C.MQPRT_ASYNC_RESPONSE
        return h

    def _hold_path(self, path: tuple[str, ...], delta: int) -> None:
        """An open handle keeps every local queue on its resolution path in use (or lets go)."""
        for n in path:
            q = self.queues.get(n)
            if q is not None:
                q.refs += delta

    def _first_definition(self, h: Handle, res: Resolved) -> MQObject:
        """The first definition on the path, whose DEFPSIST and DEFPRTY apply: a cluster queue with
        no definition here takes them from its cluster records."""
        if h.obj is None and h.cluster_name:
            return self.cluster.definition(h.cluster_name)
        opened = self.queue(res.path[0])
        if opened is None:
            raise MQIError(C.MQRC_Q_DELETED)
        return opened

    def _cluster_target(self, res: Resolved) -> tuple[Resolved, QueueState]:
        """Run the workload algorithm: the concrete destination of one message (or of a
        BIND_ON_OPEN handle), as a resolution to a local queue or a cluster transmission queue."""
        cl = self.cluster
        cname = res.remote_qm or res.resolved_q
        d = cl.choose(cname)
        # Keyed cheaply (hashing the destination or the resolution dataclass costs more than the
        # rest of the lookup); the resolution is kept in the entry and checked by identity.
        key = (id(res), d.channel, d.local, cl.gen)
        hit = self._cl_targets.get(key)
        if hit is not None and hit[2] is res and self.queues.get(hit[0].queue) is hit[1]:
            return hit[0], hit[1]
        if d.local:
            if res.remote_qm:
                # A clustered queue-manager alias hosted here: resolve through it.
                target = resolve(self, res.resolved_q, res.remote_qm, C.MQOO_OUTPUT)
            else:
                target = Resolved(LOCAL, cname, cname, self.name, res.path or (cname,))
        else:
            xq = cl.xmitq_now(d.channel)
            dest_qm = res.remote_qm or d.qmgr
            target = Resolved(REMOTE, xq, res.resolved_q, dest_qm, res.path + (xq,), res.resolved_q, dest_qm,
                              d.channel)
        qs = self.queues.get(target.queue)
        if qs is None:
            raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME, detail=target.queue)
        if len(self._cl_targets) > 4096:
            self._cl_targets.clear()
        self._cl_targets[key] = (target, qs, res)
        return target, qs

    def _check_open_options(self, options: int) -> None:
        if options & ~VALID_OO:
            raise MQIError(C.MQRC_OPTIONS_ERROR, detail="unknown option")
        if not options & ACCESS_OPTS:
            raise MQIError(C.MQRC_OPTIONS_ERROR, detail="no access option")
        if _bits(options & INPUT_OPTS) > 1:
            raise MQIError(C.MQRC_OPTIONS_ERROR, detail="more than one input option")
        if _bits(options & (C.MQOO_BIND_ON_OPEN | C.MQOO_BIND_NOT_FIXED | C.MQOO_BIND_ON_GROUP)) > 1:
            raise MQIError(C.MQRC_OPTIONS_ERROR, detail="more than one bind option")
        if _bits(options & (C.MQOO_READ_AHEAD | C.MQOO_NO_READ_AHEAD)) > 1:
            raise MQIError(C.MQRC_OPTIONS_ERROR, detail="more than one read-ahead option")
        if options & C.MQOO_SAVE_ALL_CONTEXT and not options & INPUT_OPTS:
            raise MQIError(C.MQRC_OPTIONS_ERROR, detail="SAVE_ALL_CONTEXT needs input")
        ctx = (C.MQOO_PASS_IDENTITY_CONTEXT | C.MQOO_PASS_ALL_CONTEXT | C.MQOO_SET_IDENTITY_CONTEXT
               | C.MQOO_SET_ALL_CONTEXT)
        if options & ctx and not options & C.MQOO_OUTPUT:
            raise MQIError(C.MQRC_OPTIONS_ERROR, detail="context options need output")
        if options & C.MQOO_CO_OP and not options & C.MQOO_BROWSE:
            raise MQIError(C.MQRC_OPTIONS_ERROR, detail="CO_OP needs browse")

    def _input_mode(self, opened: MQObject | None, base: MQObject, options: int) -> str:
        if options & C.MQOO_INPUT_EXCLUSIVE:
            return "X"
        if not base["SHARE"]:
            return "X"
        if options & C.MQOO_INPUT_SHARED:
            return "S"
        return "S" if base["DEFSOPT"] == C.MQOO_INPUT_SHARED else "X"

    def _instantiate_model(self, conn: Conn, od: OD, model: MQObject) -> MQObject:
        dyn = text(od.DynamicQName) or "AMQ.*"
        if "*" in dyn:
            if dyn.index("*") != len(dyn) - 1:
                raise MQIError(C.MQRC_DYNAMIC_Q_NAME_ERROR)
            stem = dyn[:-1]
            name = (stem + self.ids.hex_suffix())[:48]
        else:
            name = dyn
        if not valid_name(name):
            raise MQIError(C.MQRC_DYNAMIC_Q_NAME_ERROR)
        if self.queue(name) is not None:
            raise MQIError(C.MQRC_OBJECT_ALREADY_EXISTS)
        obj = MQObject("QLOCAL", name, TABLE.defaults("QLOCAL"))
        for key, value in model.attrs.items():
            if key in obj.attrs and key not in ("CRDATE", "CRTIME", "ALTDATE", "ALTTIME"):
                obj.attrs[key] = value
        obj.attrs["DEFTYPE"] = model["DEFTYPE"]
        self.add_object(obj)
        od.ObjectName = pad(name, 48)
        return obj

    def _new_handle(self, conn: Conn, name: str, obj: MQObject | None, options: int,
                    res: Resolved | None, qs: QueueState | None) -> Handle:
        hobj = conn.next_hobj
        conn.next_hobj += 1
        h = Handle(hobj, name, obj, options, res, qs)
        conn.handles[hobj] = h
        return h

    def handle(self, conn: Conn, hobj: int) -> Handle:
        h = conn.handles.get(hobj)
        if h is None:
            raise MQIError(C.MQRC_HOBJ_ERROR)
        return h

    # --- MQCLOSE ----------------------------------------------------------------------------------
    def close(self, conn: Conn, hobj: int, options: int = C.MQCO_NONE) -> None:
        h = self.handle(conn, hobj)
        if options & ~(C.MQCO_DELETE | C.MQCO_DELETE_PURGE | C.MQCO_KEEP_SUB | C.MQCO_REMOVE_SUB | C.MQCO_QUIESCE):
            raise MQIError(C.MQRC_OPTIONS_ERROR)
        delete = options & (C.MQCO_DELETE | C.MQCO_DELETE_PURGE)
        obj = self.queue(h.name) if h.res is not None else None
        is_dynamic = obj is not None and obj.kind == "QLOCAL" and obj["DEFTYPE"] in (
            C.MQQDT_PERMANENT_DYNAMIC, C.MQQDT_TEMPORARY_DYNAMIC)
        if delete and not is_dynamic:
            raise MQIError(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        qs = h.qstate
        if delete and qs is not None:
            others = any(o is not h and o.res is not None and h.name in o.res.path
                         for c in self.conns.values() for o in c.handles.values())
            if others:
                raise MQIError(C.MQRC_OBJECT_IN_USE)
            if options & C.MQCO_DELETE and not options & C.MQCO_DELETE_PURGE and qs.depth:
                raise MQIError(C.MQRC_Q_NOT_EMPTY)
        self.settle(conn, hobj, 0, release=True)
        self._release(h)
        del conn.handles[hobj]
        if obj is not None and (delete or (h.dynamic_owner and obj["DEFTYPE"] == C.MQQDT_TEMPORARY_DYNAMIC)):
            # Messages of a deleted queue still inside this connection's unit of work go with it.
            conn.uow = [e for e in conn.uow if e[1] is not qs]
            if qs is not None:
                qs.uncommitted = 0
            self.remove_object(obj)

    def _release(self, h: Handle) -> None:
        if h.res is not None:
            self._hold_path(h.res.path, -1)
        qs = h.qstate
        if qs is None:
            return
        if h.input_mode == "X":
            qs.input_exclusive -= 1
        elif h.input_mode == "S":
            qs.input_shared -= 1
        if h.options & C.MQOO_OUTPUT:
            qs.output -= 1

    # --- MQPUT ------------------------------------------------------------------------------------
    def put(self, conn: Conn, hobj: int, md: MD, pmo: PMO, body: bytes, owned: bool = False) -> int:
        """MQPUT. Returns a warning reason (MQRC_NONE normally); md and pmo are updated.

        ``owned``: the caller hands the descriptor over and wants no output fields (an
        asynchronous put), so the engine stores it instead of a copy.
        """
        h = self.handle(conn, hobj)
        if not h.options & C.MQOO_OUTPUT:
            raise MQIError(C.MQRC_NOT_OPEN_FOR_OUTPUT)
        return self._put(conn, h, md, pmo, body, owned)

    def put1(self, conn: Conn, od: OD, md: MD, pmo: PMO, body: bytes) -> int:
        if od.ObjectType == C.MQOT_Q:
            target = self.queue(text(od.ObjectName))
            if target is not None and target.kind == "QMODEL" and not text(od.ObjectQMgrName):
                raise MQIError(C.MQRC_Q_TYPE_ERROR)
        options = C.MQOO_OUTPUT | (pmo.Options & C.MQPMO_FAIL_IF_QUIESCING and C.MQOO_FAIL_IF_QUIESCING)
        if pmo.Options & C.MQPMO_SET_ALL_CONTEXT:
            options |= C.MQOO_SET_ALL_CONTEXT
        elif pmo.Options & C.MQPMO_SET_IDENTITY_CONTEXT:
            options |= C.MQOO_SET_IDENTITY_CONTEXT
        h = self.open(conn, od, options)
        try:
            return self._put(conn, h, md, pmo, body)
        finally:
            self.close(conn, h.hobj)

    def _put(self, conn: Conn, h: Handle, md: MD, pmo: PMO, body: bytes, owned: bool = False) -> int:
        opts = pmo.Options
        if opts & C.MQPMO_SYNCPOINT and opts & C.MQPMO_NO_SYNCPOINT:
            raise MQIError(C.MQRC_OPTIONS_ERROR)
        if _bits(opts & CONTEXT_PMO) > 1:
            raise MQIError(C.MQRC_OPTIONS_ERROR)
        if opts & C.MQPMO_SET_ALL_CONTEXT and not h.options & C.MQOO_SET_ALL_CONTEXT:
            raise MQIError(C.MQRC_NOT_OPEN_FOR_SET_ALL)
        if opts & C.MQPMO_SET_IDENTITY_CONTEXT and not h.options & (C.MQOO_SET_IDENTITY_CONTEXT | C.MQOO_SET_ALL_CONTEXT):
            raise MQIError(C.MQRC_NOT_OPEN_FOR_SET_IDENT)
        if self.quiescing and opts & C.MQPMO_FAIL_IF_QUIESCING:
            raise MQIError(C.MQRC_Q_MGR_QUIESCING)
        warning = C.MQRC_NONE
        if md.Persistence not in (0, 1, 2):
            raise MQIError(C.MQRC_PERSISTENCE_ERROR)
        if md.Priority < -1:
            raise MQIError(C.MQRC_PRIORITY_ERROR)
        if md.Expiry <= 0 and md.Expiry != C.MQEI_UNLIMITED:
            raise MQIError(C.MQRC_EXPIRY_ERROR)
        if md.MsgType == C.MQMT_REQUEST and not text(md.ReplyToQ):
            raise MQIError(C.MQRC_MISSING_REPLY_TO_Q)
        res = h.res
        assert res is not None
        reroutable = False
        if res.kind == CLUSTER:
            reroutable = h.bind != C.MQBND_BIND_ON_GROUP or not opts & C.MQPMO_LOGICAL_ORDER
            res, qs = self._cluster_put_target(h, res, md, opts)
        else:
            qs = h.qstate  # type: ignore[assignment]
        opened = self._first_definition(h, res)
        syncpoint = bool(opts & C.MQPMO_SYNCPOINT)
        target = self._check_put(conn, res, qs, len(body), XQH_LEN if res.kind == REMOTE else 0, syncpoint)
        persistence = md.Persistence
        if persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
            persistence = opened["DEFPSIST"]
        priority = md.Priority
        if priority == C.MQPRI_PRIORITY_AS_Q_DEF:
            priority = opened["DEFPRTY"]
        elif priority > 9:
            priority = 9
            warning = C.MQRC_PRIORITY_EXCEEDS_MAXIMUM
        if persistence and target["DEFTYPE"] == C.MQQDT_TEMPORARY_DYNAMIC:
            raise MQIError(C.MQRC_PERSISTENT_NOT_ALLOWED)
        if persistence and not qs.shared:
            self._need_room(len(body))
        now = self.clock.now()
        # Message descriptor as stored.
        msg_md = md if owned else md.copy()
        d = msg_md.__dict__
        d["Version"] = C.MQMD_VERSION_2
        d["Persistence"] = persistence
        d["Priority"] = priority
        d["BackoutCount"] = 0
        if opts & C.MQPMO_NEW_MSG_ID or not d["MsgId"].strip(b"\0"):
            d["MsgId"] = self.ids.next()
        if opts & C.MQPMO_NEW_CORREL_ID:
            d["CorrelId"] = self.ids.next()
        self._set_context(conn, d, opts, now)
        self._reply_to(d)
        if opts & C.MQPMO_LOGICAL_ORDER:
            self._logical_put(h, msg_md)
        elif msg_md.MsgFlags & (C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP):
            if msg_md.GroupId.strip(b"\0") == b"":
                msg_md.GroupId = self.ids.next()
        expiry_at = None if msg_md.Expiry == C.MQEI_UNLIMITED else now + msg_md.Expiry / 10.0
        if res.kind == REMOTE:
            stored_md, stored_body = self._xmit_wrap(res, msg_md, body)
        else:
            stored_md, stored_body = msg_md, body
        self._seq += 1
        msg = Message(self._seq, stored_md, stored_body, expiry_at, bool(persistence), qs.lane_for(priority))
        if reroutable and res.kind == REMOTE:
            self.cluster.not_fixed.add(msg.seq)
        self._enqueue(conn, qs, msg, syncpoint, now)
        if owned:
            return warning
        # Output fields, as MQ returns them.
        md.MsgId = msg_md.MsgId
        md.CorrelId = msg_md.CorrelId
        md.GroupId, md.MsgSeqNumber = msg_md.GroupId, msg_md.MsgSeqNumber
        for f in ("UserIdentifier", "AccountingToken", "ApplIdentityData", "PutApplType", "PutApplName",
                  "PutDate", "PutTime", "ApplOriginData", "ReplyToQMgr"):
            setattr(md, f, getattr(msg_md, f))
        pmo.ResolvedQName = pad(res.resolved_q, 48)
        pmo.ResolvedQMgrName = pad(res.resolved_qm, 48)
        return warning

    def _cluster_put_target(self, h: Handle, res: Resolved, md: MD, opts: int) -> tuple[Resolved, QueueState]:
        """The instance for this MQPUT on a NOT_FIXED or ON_GROUP handle (2085 when the queue has
        left every cluster: the workload algorithm finds no destination)."""
        in_group = bool(md.MsgFlags & (C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP))
        logical = bool(opts & C.MQPMO_LOGICAL_ORDER)
        if wlm.chooses_at_put(h.bind, in_group, logical, h.put_group is None) or h.group_target is None:
            target = self._cluster_target(res)
        else:
            target = h.group_target
        if h.bind == C.MQBND_BIND_ON_GROUP and in_group and logical:
            h.group_target = None if md.MsgFlags & C.MQMF_LAST_MSG_IN_GROUP else target
        return target

    def send_cluster(self, conn: Conn, channel: str, target: str, queue: str, body: bytes) -> None:
        """The repository manager sends a control message: onto the channel's cluster transmission
        queue, persistent, inside the connection's unit of work. ``target`` blank: whoever is at the
        other end of the channel (a manual CLUSSDR whose full repository is not known yet)."""
        xq = self.cluster.xmitq_now(channel)
        res = Resolved(REMOTE, xq, queue, target, (xq,), queue, target, channel)
        h = Handle(0, xq, None, C.MQOO_OUTPUT, res, self.queues[xq])
        md = MD(Persistence=C.MQPER_PERSISTENT, Format=C.MQFMT_STRING)
        self._put(conn, h, md, PMO(Options=C.MQPMO_SYNCPOINT), body, owned=True)

    def _relocate(self, conn: Conn, src: QueueState, m: Message, dst: QueueState, md: MD, body: bytes) -> Message:
        """Move a visible message to another queue in one step (a new store number; persistent
        ones through the journal: the old record deleted, the new one written)."""
        src.remove(m)
        self._seq += 1
        new = Message(self._seq, md, body, m.expiry_at, m.persistent, dst.lane_for(md.Priority))
        dst.insert(new)
        if m.persistent:
            self.store.append(("del", m.seq))
            conn.ticket = self.store.append(("put", new.seq, dst.name, new.packed_md(), new.body, new.expiry_at))
        return new

    def move_messages(self, conn: Conn, source: str, dest: str, correl: bytes) -> int:
        """A cluster-sender channel switches transmission queue: its messages (by CorrelId) move
        from ``source`` to ``dest``."""
        src, dst = self.queues.get(source), self.queues.get(dest)
        if src is None or dst is None or src is dst:
            return 0
        moving = [m for m in src if m.md.CorrelId == correl]
        for m in moving:
            new = self._relocate(conn, src, m, dst, m.md, m.body)
            if m.seq in self.cluster.not_fixed:
                self.cluster.not_fixed.add(new.seq)
        if moving:
            self.on_available(dest)
        return len(moving)

    def reroute(self, conn: Conn, channel: str) -> int:
        """Messages put with BIND_NOT_FIXED that wait for ``channel`` (which cannot reach its queue
        manager) go through the workload algorithm again, which ranks a retrying channel below
        running ones; those it sends elsewhere move to that channel's transmission queue (or to
        the local instance). Messages bound on open or by group stay."""
        cl = self.cluster
        qs = self.queues.get(cl.assoc.get(channel) or cl.xmitq_for(channel))
        if qs is None or not cl.not_fixed:
            return 0
        correl = correl_of(channel)
        moved = 0
        for m in [m for m in qs if m.md.CorrelId == correl and m.seq in cl.not_fixed]:
            name = text(m.body[REMOTE_Q])
            try:
                d = cl.choose(name)
            except MQIError:
                continue
            if d.channel == channel:
                continue
            if d.local:
                dest = self.queues.get(name)
                md, data = MD.from_bytes(original_md(m.packed_md(), m.body)), m.body[XQH_LEN:]
            else:
                dest = self.queues.get(cl.xmitq_now(d.channel))
                md = m.md.copy()
                md.CorrelId = correl_of(d.channel)
                data = m.body[:REMOTE_QM.start] + pad(d.qmgr, 48) + m.body[REMOTE_QM.stop:]
            if dest is None:
                continue
            cl.not_fixed.discard(m.seq)
            new = self._relocate(conn, qs, m, dest, md, data)
            self.on_available(dest.name)
            if not d.local:
                cl.not_fixed.add(new.seq)
                cl.wake_channel(d.channel)
            moved += 1
        return moved

    def prune_not_fixed(self) -> None:
        """Forget the NOT_FIXED marks of messages that have left the cluster transmission queues
        (sent, or expired); those inside a unit of work (a batch in flight) keep theirs."""
        cl = self.cluster
        if not cl.not_fixed:
            return
        here = {m.seq for name, qs in self.queues.items() if cl.is_cluster_xmitq(name) for m in qs}
        here.update(m.seq for c in self.conns.values() for _op, _qs, m in c.uow)
        cl.not_fixed &= here

    def correl_ids(self, queue: str) -> set[bytes]:
        """The CorrelIds of the messages on a cluster transmission queue (which channels have work)."""
        qs = self.queues.get(queue)
        return set() if qs is None else {m.md.CorrelId for m in qs}

    def has_correl(self, queue: str, correl: bytes) -> bool:
        qs = self.queues.get(queue)
        return qs is not None and any(m.md.CorrelId == correl for m in qs)

    def put_packed(self, conn: Conn, hobj: int, md: bytes, body: bytes, syncpoint: bool) -> None:
        """MQPUT with MQPMO_SET_ALL_CONTEXT of a descriptor that is already complete and packed
        (a channel's receiver): the same checks as MQPUT, without decoding the descriptor. A
        destination that is not a local queue takes the full path."""
        h = self.handle(conn, hobj)
        res, qs = h.res, h.qstate
        if res is None or qs is None or res.kind != LOCAL or not h.options & C.MQOO_OUTPUT or qs.shared:
            pmo = PMO(Options=(C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT) | C.MQPMO_SET_ALL_CONTEXT)
            self.put(conn, hobj, MD.from_bytes(md), pmo, body, owned=True)
            return
        target = self._check_put(conn, res, qs, len(body), 0, syncpoint)
        expiry, priority, persistence = _MD_HOT.unpack_from(md)
        if persistence and target["DEFTYPE"] == C.MQQDT_TEMPORARY_DYNAMIC:
            raise MQIError(C.MQRC_PERSISTENT_NOT_ALLOWED)
        if persistence == C.MQPER_PERSISTENT:
            self._need_room(len(body))
        now = self.clock.now()
        expiry_at = None if expiry == C.MQEI_UNLIMITED else now + expiry / 10.0
        self._seq += 1
        msg = Message(self._seq, PackedMD.of(md), body, expiry_at, persistence == C.MQPER_PERSISTENT,
                      qs.lane_for(max(0, min(priority, 9))))
        msg._packed = md
        self._enqueue(conn, qs, msg, syncpoint, now)

    def _check_put(self, conn: Conn, res: Resolved, qs: QueueState, body_len: int, header_len: int,
                   syncpoint: bool) -> MQObject:
        """The checks an MQPUT makes at the time of the put; returns the target queue's definition.
        Every definition on the path must allow puts; ``header_len`` is the MQXQH a transmission
        queue adds."""
        for n in res.path:
            d = self.queue(n)
            if d is not None and d["PUT"] == C.MQQA_PUT_INHIBITED:
                raise MQIError(C.MQRC_PUT_INHIBITED)
        target = self.queue(res.queue)
        if target is None or qs is not self.queues.get(res.queue):
            raise MQIError(C.MQRC_Q_DELETED)
        if body_len > self.qmgr["MAXMSGL"]:
            raise MQIError(C.MQRC_MSG_TOO_BIG_FOR_Q_MGR)
        if body_len + header_len > target["MAXMSGL"]:
            raise MQIError(C.MQRC_MSG_TOO_BIG_FOR_Q)
        if syncpoint and len(conn.uow) >= self.qmgr["MAXUMSGS"]:
            raise MQIError(C.MQRC_SYNCPOINT_LIMIT_REACHED)
        if qs.shared:
            # Outside syncpoint the store checks MAXDEPTH in the put's own transaction.
            if syncpoint and self._shared_call(qs.recent_depth, self.clock.now()) >= target["MAXDEPTH"]:  # type: ignore[attr-defined]
                raise MQIError(C.MQRC_Q_FULL)
        elif qs.depth >= target["MAXDEPTH"]:
            raise MQIError(C.MQRC_Q_FULL)
        return target

    def _need_room(self, body_len: int) -> None:
        """A persistent message is accepted only if the store has room to write it: else MQ's
        answer for a full log, with nothing changed."""
        if not self.store.room(body_len + STORED_OVERHEAD):
            raise MQIError(C.MQRC_RESOURCE_PROBLEM, detail="the queue manager's disk is full")

    def _refuse_if_stalled(self, conn: Conn) -> None:
        """MQCMIT or prepare of a unit with persistent work while the store cannot write: the unit
        is backed out (its puts were accepted when there was room; now none can be written)."""
        if self.store.stalled and any(m.persistent for kind, _q, m in conn.uow if kind[0] != "s"):
            self.backout(conn)
            raise MQIError(C.MQRC_BACKED_OUT, detail=f"the queue manager cannot write: {self.store.stalled}")

    def _enqueue(self, conn: Conn, qs: QueueState, msg: Message, syncpoint: bool, now: float) -> None:
        """A put message: into the unit of work, or onto the queue (and waiting getters woken)."""
        qs.last_put = now
        if qs.shared:
            new = self._shared_message(qs, msg)
            if syncpoint:
                conn.uow.append(("sput", qs, SharedPut(new)))   # type: ignore[arg-type]
                conn.shared_uow = True
                qs.uncommitted += 1
            elif conn.async_now:
                # Asynchronous puts to shared queues are written together, one transaction per
                # burst (flush_shared_async: when the burst ends or before the connection's next call).
                conn.shared_async.append(new)
                qs.enq += 1
            else:
                target = self.queue(qs.name)
                self._shared_call(qs.port.put, [new], {qs.name: target["MAXDEPTH"] if target else 0})  # type: ignore[attr-defined]
                qs.enq += 1
                self.on_available(qs.name)
            return
        if syncpoint:
            conn.uow.append(("put", qs, msg))
            qs.uncommitted += 1
        else:
            self._commit_put(conn, qs, msg)
            self.on_available(qs.name)

    def _shared_message(self, qs: QueueState, msg: Message) -> NewMessage:
        md = msg.md
        flags = md.MsgFlags
        target = text(msg.body[REMOTE_QM]) if qs.name == QSG_XMITQ and len(msg.body) >= XQH_LEN else ""
        return NewMessage(qs.name, md.Priority, msg.packed_md(), msg.body, msg.expiry_at, msg.persistent,
                          md.MsgId, md.CorrelId, md.GroupId, md.MsgSeqNumber,
                          not flags & (C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP) or md.MsgSeqNumber == 1,
                          target)

    def _commit_put(self, conn: Conn, qs: QueueState, msg: Message) -> None:
        qs.insert(msg)
        qs.enq += 1
        if msg.persistent:
            conn.ticket = self.store.append(("put", msg.seq, qs.name, msg.packed_md(), msg.body, msg.expiry_at))

    def _set_context(self, conn: Conn, d: dict[str, Any], opts: int, now: float) -> None:
        """The context fields of a message descriptor (``d`` is its field dictionary)."""
        if opts & C.MQPMO_SET_ALL_CONTEXT:
            return
        if opts & C.MQPMO_NO_CONTEXT:
            d.update(UserIdentifier=b"", AccountingToken=b"", ApplIdentityData=b"", PutApplType=C.MQAT_NO_CONTEXT,
                     PutApplName=b"", PutDate=b"", PutTime=b"", ApplOriginData=b"")
            return
        if not opts & C.MQPMO_SET_IDENTITY_CONTEXT:
            d["UserIdentifier"] = conn.user12
            d["AccountingToken"] = b""
            d["ApplIdentityData"] = BLANK32
        d["PutApplType"] = conn.appl_type
        d["PutApplName"] = conn.appl28
        d["PutDate"], d["PutTime"] = _ctime(now)
        d["ApplOriginData"] = b"    "

    def _reply_to(self, d: dict[str, Any]) -> None:
        """ReplyToQMgr: blank becomes the queue manager the reply is routed to (MQ's rule).

        Both names are stored blank-padded; a NUL ends a name, as in MQ's character fields.
        """
        rq = d["ReplyToQ"].split(b"\0", 1)[0].rstrip(b" ")
        d["ReplyToQ"] = rq.ljust(48, b" ")[:48]
        rqm = d["ReplyToQMgr"].split(b"\0", 1)[0].rstrip(b" ")
        if rqm:
            d["ReplyToQMgr"] = rqm.ljust(48, b" ")[:48]
            return
        obj = self.queue(rq.decode("ascii", "replace")) if rq else None
        if obj is not None and obj.kind == "QREMOTE" and obj["RQMNAME"]:
            d["ReplyToQMgr"] = pad(obj["RQMNAME"], 48)
            if obj["RNAME"]:
                d["ReplyToQ"] = pad(obj["RNAME"], 48)
        else:
            d["ReplyToQMgr"] = self.name48

    def _logical_put(self, h: Handle, md: MD) -> None:
        in_group = md.MsgFlags & (C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP)
        if not in_group:
            if h.put_group is not None:
                raise MQIError(C.MQRC_INCOMPLETE_GROUP)
            return
        if h.put_group is None:
            gid = self.ids.next()
            seq = 1
        else:
            gid, last = h.put_group
            seq = last + 1
        md.GroupId = gid
        md.MsgSeqNumber = seq
        md.Offset = 0
        h.put_group = None if md.MsgFlags & C.MQMF_LAST_MSG_IN_GROUP else (gid, seq)

    def _xmit_wrap(self, res: Resolved, md: MD, body: bytes) -> tuple[MD, bytes]:
        """A message for a remote queue: MQXQH (with the original descriptor, MQMD version 1) in
        front of the data; the message's own descriptor says MQXMIT."""
        header = XQH_FIXED.pack(C.MQXQH_STRUC_ID, C.MQXQH_VERSION_1, pad(res.remote_q, 48),
                                pad(res.remote_qm, 48))
        packed = md.pack()
        outer = md.copy()
        outer.__dict__["Format"] = C.MQFMT_XMIT_Q_HEADER
        if res.channel:
            outer.__dict__["CorrelId"] = correl_of(res.channel)
            self.cluster.wake_channel(res.channel)
        return outer, header + packed[:C.MQMD_LENGTH_1] + body

    # --- MQGET ------------------------------------------------------------------------------------
    def get(self, conn: Conn, hobj: int, md: MD, gmo: GMO, max_length: int) -> GetResult:
        h = self.handle(conn, hobj)
        opts = gmo.Options
        browse = opts & BROWSE_GMO
        if _bits(opts & BROWSE_GMO) > 1 or (browse and opts & C.MQGMO_MSG_UNDER_CURSOR):
            raise MQIError(C.MQRC_OPTIONS_ERROR)
        if opts & C.MQGMO_SYNCPOINT and opts & (C.MQGMO_NO_SYNCPOINT | C.MQGMO_SYNCPOINT_IF_PERSISTENT):
            raise MQIError(C.MQRC_OPTIONS_ERROR)
        if browse and opts & (C.MQGMO_SYNCPOINT | C.MQGMO_SYNCPOINT_IF_PERSISTENT):
            raise MQIError(C.MQRC_OPTIONS_ERROR)
        if opts & C.MQGMO_WAIT and (gmo.WaitInterval < 0 and gmo.WaitInterval != C.MQWI_UNLIMITED):
            raise MQIError(C.MQRC_WAIT_INTERVAL_ERROR)
        if max_length < 0:
            raise MQIError(C.MQRC_BUFFER_LENGTH_ERROR)
        if browse or opts & C.MQGMO_BROWSE_MSG_UNDER_CURSOR:
            if not h.options & C.MQOO_BROWSE:
                raise MQIError(C.MQRC_NOT_OPEN_FOR_BROWSE)
        elif not h.options & INPUT_OPTS:
            raise MQIError(C.MQRC_NOT_OPEN_FOR_INPUT)
        if self.quiescing and opts & C.MQGMO_FAIL_IF_QUIESCING:
            raise MQIError(C.MQRC_Q_MGR_QUIESCING)
        res = h.res
        qs = h.qstate
        if res is None or qs is None:
            raise MQIError(C.MQRC_HOBJ_ERROR)
        if qs is not self.queues.get(res.queue):
            raise MQIError(C.MQRC_Q_DELETED)
        self._check_get_allowed(res)
        match_opts = gmo.MatchOptions if gmo.Version >= C.MQGMO_VERSION_2 else (
            C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID)
        if match_opts & ~0x3F:
            raise MQIError(C.MQRC_MATCH_OPTIONS_ERROR)
        if qs.shared:
            return self._shared_get(conn, h, qs, res, md, gmo, match_opts, max_length)
        now = self.clock.now()
        msg = self._select(h, qs, md, opts, match_opts, now)
        if msg is None:
            raise MQIError(C.MQRC_NO_MSG_AVAILABLE)
        length = len(msg.body)
        out_md = msg.md.copy()
        if msg.expiry_at is not None:
            out_md.Expiry = max(1, math.ceil((msg.expiry_at - now) * 10))
        comp, reason = C.MQCC_OK, C.MQRC_NONE
        truncated = length > max_length
        if truncated and not opts & C.MQGMO_ACCEPT_TRUNCATED_MSG:
            # The message stays where it is (and a browse cursor does not move), as MQ does.
            out = GetResult(out_md, msg.body[:max_length], length, gmo, C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_FAILED)
            self._fill_gmo(gmo, res, out_md, max_length)
            return out
        if truncated:
            comp, reason = C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED
        if browse or opts & C.MQGMO_BROWSE_MSG_UNDER_CURSOR:
            h.browse_at, h.browse_seq = msg.order, msg.seq
        else:
            qs.remove(msg)
            qs.deq += 1
            qs.last_get = now
            if h.browse_seq == msg.seq:
                h.browse_seq = None
            syncpoint = opts & C.MQGMO_SYNCPOINT or (opts & C.MQGMO_SYNCPOINT_IF_PERSISTENT and msg.persistent)
            if syncpoint:
                if len(conn.uow) >= self.qmgr["MAXUMSGS"]:
                    qs.insert(msg)
                    raise MQIError(C.MQRC_SYNCPOINT_LIMIT_REACHED)
                conn.uow.append(("get", qs, msg))
                qs.uncommitted += 1
            elif msg.persistent:
                conn.ticket = self.store.append(("del", msg.seq))
            if opts & C.MQGMO_LOGICAL_ORDER:
                self._advance_group(h, msg)
        self._fill_gmo(gmo, res, out_md, min(length, max_length))
        return GetResult(out_md, msg.body[:max_length], length, gmo, comp, reason, msg.seq, msg.persistent,
                         msg.packed_md() if msg.expiry_at is None else None)

    def _shared_get(self, conn: Conn, h: Handle, qs: QueueState, res: Resolved, md: MD, gmo: GMO,
                    match_opts: int, max_length: int) -> GetResult:
        """MQGET from a shared queue: the store finds, and claims or removes, the message in one
        transaction, so two members never get the same one."""
        opts = gmo.Options
        browse = bool(opts & (BROWSE_GMO | C.MQGMO_BROWSE_MSG_UNDER_CURSOR))
        sel = Select()
        if opts & (C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_BROWSE_MSG_UNDER_CURSOR):
            if h.browse_seq is None:
                raise MQIError(C.MQRC_NO_MSG_UNDER_CURSOR)
            sel.id = h.browse_seq
        else:
            sel.msgid, sel.correlid, sel.groupid, sel.seqno = wanted_ids(md, match_opts)
            if opts & C.MQGMO_LOGICAL_ORDER:
                if h.get_group is not None:
                    sel.groupid, sel.seqno = h.get_group
                else:
                    sel.first_of_group = True
            if opts & C.MQGMO_BROWSE_NEXT and h.browse_at is not None:
                sel.after = h.browse_at
        in_uow = not browse and bool(opts & (C.MQGMO_SYNCPOINT | C.MQGMO_SYNCPOINT_IF_PERSISTENT))
        if in_uow and len(conn.uow) >= self.qmgr["MAXUMSGS"]:
            raise MQIError(C.MQRC_SYNCPOINT_LIMIT_REACHED)
        mode = "browse" if browse else ("claim" if in_uow else "delete")
        owner = f"{self.name}/{conn.hconn}"
        limit = None if opts & C.MQGMO_ACCEPT_TRUNCATED_MSG else max_length
        now = self.clock.now()
        port = qs.port  # type: ignore[attr-defined]
        row, _taken = self._shared_call(port.take, qs.name, qs.fifo, sel, now, mode, owner, limit)
        if row is None:
            if sel.id is not None:
                raise MQIError(C.MQRC_NO_MSG_UNDER_CURSOR)
            raise MQIError(C.MQRC_NO_MSG_AVAILABLE)
        out_md = MD.from_bytes(row.md)
        out_md.BackoutCount = row.backout
        if row.expiry_at is not None:
            out_md.Expiry = max(1, math.ceil((row.expiry_at - now) * 10))
        length = len(row.body)
        if length > max_length and not opts & C.MQGMO_ACCEPT_TRUNCATED_MSG:
            # Too long and not accepted truncated: not taken (the store left it), the cursor stays (2080).
            self._fill_gmo(gmo, res, out_md, max_length)
            return GetResult(out_md, row.body[:max_length], length, gmo, C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_FAILED)
        comp, reason = (C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED) if length > max_length else (C.MQCC_OK, 0)
        if browse:
            h.browse_at, h.browse_seq = (0 if qs.fifo else row.prio, row.id), row.id
        else:
            if h.browse_seq == row.id:
                h.browse_seq = None
            if in_uow and opts & C.MQGMO_SYNCPOINT_IF_PERSISTENT and not row.persistent:
                self._shared_call(port.finish, [(row.id, qs.name)], [])
            elif in_uow:
                conn.uow.append(("sget", qs, SharedGot(row)))  # type: ignore[arg-type]
                conn.shared_uow = True
            qs.deq += 1
            qs.last_get = now
            if opts & C.MQGMO_LOGICAL_ORDER:
                self._advance_group(h, Message(row.id, out_md, b"", None, row.persistent, 0))
        self._fill_gmo(gmo, res, out_md, min(length, max_length))
        return GetResult(out_md, row.body[:max_length], length, gmo, comp, reason, row.id, row.persistent)

    def _select(self, h: Handle, qs: QueueState, md: MD, opts: int, match_opts: int, now: float) -> Message | None:
        expired = self._discard_expired
        if opts & (C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_BROWSE_MSG_UNDER_CURSOR):
            if h.browse_seq is None:
                raise MQIError(C.MQRC_NO_MSG_UNDER_CURSOR)
            seq = h.browse_seq
            m = qs.find(now, expired, lambda m: m.seq == seq)
            if m is None:
                raise MQIError(C.MQRC_NO_MSG_UNDER_CURSOR)
            return m
        match = matcher(md, match_opts)
        if opts & C.MQGMO_LOGICAL_ORDER:
            match = self._group_matcher(h, qs, match, opts, now)
        if opts & C.MQGMO_BROWSE_NEXT and h.browse_at is not None:
            return qs.find(now, expired, match, start=h.browse_at)
        if match is None and not (opts & C.MQGMO_ALL_MSGS_AVAILABLE):
            first = qs.first_fast()
            if first is not None and first.expiry_at is None:
                return first
        if opts & C.MQGMO_ALL_MSGS_AVAILABLE and not opts & C.MQGMO_LOGICAL_ORDER:
            base = match

            def match(m: Message) -> bool:
                return (base is None or base(m)) and self._group_complete(qs, m)
        return qs.find(now, expired, match)

    def _group_matcher(self, h: Handle, qs: QueueState, base: Callable[[Message], bool] | None,
                       opts: int, now: float) -> Callable[[Message], bool]:
        grouped = C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP
        if h.get_group is not None:
            gid, nxt = h.get_group
            return lambda m: m.md.GroupId == gid and m.md.MsgSeqNumber == nxt and (base is None or base(m))
        need_all = opts & C.MQGMO_ALL_MSGS_AVAILABLE

        def first_of_group(m: Message) -> bool:
            if base is not None and not base(m):
                return False
            if not m.md.MsgFlags & grouped:
                return True
            if m.md.MsgSeqNumber != 1:
                return False
            return not need_all or self._group_complete(qs, m)
        return first_of_group

    def _group_complete(self, qs: QueueState, m: Message) -> bool:
        if not m.md.MsgFlags & (C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP):
            return True
        gid = m.md.GroupId
        seqs = set()
        last = None
        for x in qs:
            if x.md.GroupId == gid:
                seqs.add(x.md.MsgSeqNumber)
                if x.md.MsgFlags & C.MQMF_LAST_MSG_IN_GROUP:
                    last = x.md.MsgSeqNumber
        return last is not None and seqs >= set(range(1, last + 1))

    def _advance_group(self, h: Handle, msg: Message) -> None:
        flags = msg.md.MsgFlags
        if flags & C.MQMF_LAST_MSG_IN_GROUP or not flags & C.MQMF_MSG_IN_GROUP:
            h.get_group = None
        else:
            h.get_group = (msg.md.GroupId, msg.md.MsgSeqNumber + 1)

    def _fill_gmo(self, gmo: GMO, res: Resolved, md: MD, returned: int) -> None:
        gmo.ResolvedQName = pad(res.queue, 48)
        flags = md.MsgFlags
        if flags & C.MQMF_LAST_MSG_IN_GROUP:
            gmo.GroupStatus = C.MQGS_LAST_MSG_IN_GROUP
        elif flags & C.MQMF_MSG_IN_GROUP:
            gmo.GroupStatus = C.MQGS_MSG_IN_GROUP
        else:
            gmo.GroupStatus = C.MQGS_NOT_IN_GROUP
        gmo.SegmentStatus = C.MQSS_NOT_A_SEGMENT
        gmo.ReturnedLength = returned

    def _check_get_allowed(self, res: Resolved) -> None:
        """GET(DISABLED) on any definition along the resolution path stops an MQGET (2016)."""
        for n in res.path:
            d = self.queue(n)
            if d is not None and d["GET"] == C.MQQA_GET_INHIBITED:
                raise MQIError(C.MQRC_GET_INHIBITED)

    def _discard_expired(self, msg: Message) -> None:
        if msg.persistent:
            self.store.append(("del", msg.seq))

    def wait_queue(self, conn: Conn, hobj: int) -> str | None:
        """The queue a waiting MQGET on this handle waits for."""
        h = conn.handles.get(hobj)
        return h.qstate.name if h is not None and h.qstate is not None else None

    # --- asynchronous put, read-ahead and MQSTAT -------------------------------------------------
    def put_async(self, conn: Conn, hobj: int, md: MD, pmo: PMO, body: bytes) -> None:
        """MQPUT with an asynchronous response: no answer now; the outcome is counted for MQSTAT."""
        try:
            conn.async_now = True
            try:
                warn = self.put(conn, hobj, md, pmo, body, owned=True)
            finally:
                conn.async_now = False
        except MQIError as e:
            conn.put_fail += 1
            if conn.first_error is None:
                h = conn.handles.get(hobj)
                conn.first_error = (e.comp, e.reason, h.name if h else "")
            if pmo.Options & C.MQPMO_SYNCPOINT:
                conn.uow_failed = True
            return
        if warn:
            conn.put_warn += 1
        else:
            conn.put_ok += 1

    def flush_shared_async(self, conn: Conn) -> None:
        """Write the connection's pending asynchronous shared puts; failures count for MQSTAT as
        each put's own would have (a batch that would overfill a queue is retried one by one)."""
        msgs, conn.shared_async = conn.shared_async, []
        if not msgs or self.shared is None:
            return
        limits = {}
        for m in msgs:
            d = self.queue(m.queue)
            limits[m.queue] = d["MAXDEPTH"] if d is not None else 0
        try:
            self._shared_call(self.shared.put, msgs, limits)
        except MQIError:
            ok = 0
            for m in msgs:
                try:
                    self._shared_call(self.shared.put, [m], limits)
                    ok += 1
                except MQIError as e:
                    conn.put_fail += 1
                    conn.put_ok -= 1
                    if conn.first_error is None:
                        conn.first_error = (e.comp, e.reason, m.queue)
        for q in {m.queue for m in msgs}:
            self.on_available(q)

    def stat(self, conn: Conn) -> dict[str, Any]:
        """MQSTAT(MQSTAT_TYPE_ASYNC_ERROR): the asynchronous put outcomes since the last call."""
        comp, reason, obj = conn.first_error or (C.MQCC_OK, C.MQRC_NONE, "")
        if conn.put_fail:
            comp = C.MQCC_FAILED
        elif conn.put_warn and comp == C.MQCC_OK:
            comp = C.MQCC_WARNING
        out = {"comp": comp, "reason": reason, "ok": conn.put_ok, "warn": conn.put_warn, "fail": conn.put_fail,
               "object": obj}
        conn.put_ok = conn.put_warn = conn.put_fail = 0
        conn.first_error = None
        return out

    def get_batch(self, conn: Conn, hobj: int, acked: int, max_msgs: int, max_bytes: int,
                  gmo: GMO, speculative: bool = False, syncpoint: bool = False) -> list[tuple[bytes, bytes, bool]]:
        """Read-ahead: acknowledge ``acked`` consumed messages, then send up to ``max_msgs`` more.

        Outside syncpoint only nonpersistent messages are read ahead, as in MQ. A persistent
        message ends the batch; when it is first, it is got the ordinary way (its removal
        journalled) and sent alone, flagged as not read ahead, but only when the application is
        waiting for it: a ``speculative`` request (sent ahead while the client still holds
        messages) never takes one, since the client may close without it.

        Under ``syncpoint`` (mqlite's extension, on queues with read-ahead) every message may be
        sent ahead: each joins the connection's unit of work, so nothing is final before MQCMIT,
        and the ones the client has not consumed go back (uncounted) before the commit or backout.
        Raises 2033 when the queue has nothing to get (a speculative request gets an empty batch).
        """
        h = self.handle(conn, hobj)
        self.settle(conn, hobj, acked, release=False)
        if max_msgs <= 0:
            return []
        if not h.options & INPUT_OPTS:
            raise MQIError(C.MQRC_NOT_OPEN_FOR_INPUT)
        res, qs = h.res, h.qstate
        if res is None or qs is None or qs is not self.queues.get(res.queue):
            raise MQIError(C.MQRC_Q_DELETED)
        if qs.shared:
            raise MQIError(C.MQRC_OPTIONS_ERROR, detail="no read-ahead on a shared queue")
        self._check_get_allowed(res)
        if self.quiescing and gmo.Options & C.MQGMO_FAIL_IF_QUIESCING:
            raise MQIError(C.MQRC_Q_MGR_QUIESCING)
        now = self.clock.now()
        out: list[tuple[bytes, bytes, bool]] = []
        held = h.read_ahead
        size = 0
        if syncpoint:
            room = self.qmgr["MAXUMSGS"] - len(conn.uow)
            if room <= 0:
                raise MQIError(C.MQRC_SYNCPOINT_LIMIT_REACHED)
            max_msgs = min(max_msgs, room)
        uow = conn.uow
        while len(out) < max_msgs and size < max_bytes:
            m = qs.first_fast()
            if m is None:
                break
            if m.expiry_at is not None and now >= m.expiry_at:
                qs.remove(m)
                self._discard_expired(m)
                continue
            if m.persistent and not syncpoint:
                if not out and not speculative:
                    qs.remove(m)
                    conn.ticket = self.store.append(("del", m.seq))
                    out.append((self._out_md(m, now), m.body, False))
                break
            qs.remove(m)
            held.append((m, syncpoint))
            if syncpoint:
                uow.append(("get", qs, m))
                qs.uncommitted += 1
            md = m._packed if m.expiry_at is None and m._packed is not None else self._out_md(m, now)
            out.append((md, m.body, True))
            size += len(m.body) + 400
        qs.deq += len(out)
        if not out:
            if speculative and qs.visible:
                return out
            raise MQIError(C.MQRC_NO_MSG_AVAILABLE)
        qs.last_get = now
        return out

    def take_nonpersistent(self, conn: Conn, hobj: int, max_msgs: int) -> list[tuple[bytes, bytes]]:
        """Remove up to ``max_msgs`` nonpersistent messages from the head of the handle's queue,
        outside syncpoint, stopping at the first persistent one: a sending channel's fast messages.
        One call for the run, with the checks an MQGET makes (GET inhibited, expiry)."""
        h = self.handle(conn, hobj)
        res, qs = h.res, h.qstate
        if res is None or qs is None or qs is not self.queues.get(res.queue) or not h.options & INPUT_OPTS \
                or qs.shared:
            raise MQIError(C.MQRC_HOBJ_ERROR)
        self._check_get_allowed(res)
        now = self.clock.now()
        out: list[tuple[bytes, bytes]] = []
        while len(out) < max_msgs:
            m = qs.first_fast()
            if m is None or m.persistent:
                break
            qs.remove(m)
            if m.expiry_at is not None and now >= m.expiry_at:
                self._discard_expired(m)
                continue
            out.append((self._out_md(m, now), m.body))
        qs.deq += len(out)
        if out:
            qs.last_get = now
        return out

    def browse_batch(self, conn: Conn, hobj: int, first: bool, max_msgs: int,
                     max_bytes: int) -> list[tuple[bytes, bytes]]:
        """Browse up to ``max_msgs`` messages (or ``max_bytes`` of data) from the handle's browse
        cursor on, as that many MQGET(BROWSE_FIRST/BROWSE_NEXT) calls would, in one call: a reader
        that copies a queue (the Spark data source) pays one round trip per batch. Messages are
        whole (no truncation); an empty list when the cursor is at the end."""
        out: list[tuple[bytes, bytes]] = []
        size = 0
        h = self.handle(conn, hobj)
        qs = h.qstate
        if h.options & C.MQOO_BROWSE and h.res is not None and qs is not None and not qs.shared \
                and qs is self.queues.get(h.res.queue):
            # A local queue: walk its lanes from the cursor (what the MQGET loop below does, without
            # building an MQGMO and a descriptor copy per message).
            self._check_get_allowed(h.res)
            now = self.clock.now()
            last = None
            for m in qs.after(None if first else h.browse_at):
                if m.expired(now):
                    continue          # left for a get to discard, as a browse does
                out.append((self._out_md(m, now), m.body))
                last = m
                size += len(m.body)
                if len(out) >= max_msgs or size >= max_bytes:
                    break
            if last is not None:
                h.browse_at, h.browse_seq = last.order, last.seq
            return out
        option = C.MQGMO_BROWSE_FIRST if first else C.MQGMO_BROWSE_NEXT
        while len(out) < max_msgs and size < max_bytes:
            gmo = GMO(Options=option | C.MQGMO_NO_WAIT)
            try:
                r = self.get(conn, hobj, MD(), gmo, 1 << 30)
            except MQIError as e:
                if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                    break
                raise
            out.append((r.packed if r.packed is not None else r.md.pack(), r.body))
            size += len(r.body)
            option = C.MQGMO_BROWSE_NEXT
        return out

    @staticmethod
    def _out_md(m: Message, now: float) -> bytes:
        """The packed descriptor a getter receives (Expiry counted down)."""
        if m.expiry_at is None:
            return m.packed_md()
        md = m.md.copy()
        md.Expiry = max(1, math.ceil((m.expiry_at - now) * 10))
        return md.pack()

    def settle(self, conn: Conn, hobj: int, acked: int, release: bool = True) -> None:
        """The client consumed ``acked`` more read-ahead messages (the oldest ones it holds).

        With ``release`` the messages it holds but did not consume go back to their places on the
        queue (close, a broken connection, a commit or backout, or a get read-ahead cannot serve);
        one taken under syncpoint leaves the unit of work without counting as backed out.
        """
        h = conn.handles.get(hobj)
        if h is None or not h.read_ahead:
            return
        held = h.read_ahead
        for _ in range(min(acked, len(held))):
            held.popleft()
        if not release or not held:
            return
        back = list(held)
        held.clear()
        qs = h.qstate
        in_uow = {id(m) for m, sp in back if sp}
        if in_uow:
            conn.uow = [e for e in conn.uow if id(e[2]) not in in_uow]
        if qs is not None and qs is self.queues.get(qs.name):
            for m, sp in back:
                if sp:
                    qs.uncommitted -= 1
                qs.insert(m)
                qs.deq -= 1
            self.on_available(qs.name)

    # --- units of work ----------------------------------------------------------------------------
    def set_chsync(self, conn: Conn, channel: str, rec: dict[str, Any]) -> None:
        """Record a channel's synchronisation state (durable once the caller syncs conn.ticket)."""
        self.chsync[channel] = rec
        conn.ticket = self.store.append(("chsync", channel, json.dumps(rec)))

    def remove_messages(self, queue: str, seqs: list[int]) -> int:
        """Remove messages by their store numbers (an in-doubt channel batch resolved as committed)."""
        qs = self.queues.get(queue)
        if qs is None:
            return 0
        wanted = set(seqs)
        gone = [m for m in qs if m.seq in wanted]
        for m in gone:
            qs.remove(m)
            qs.deq += 1
        if gone:
            self.store.extend([("del", m.seq) for m in gone if m.persistent])
        return len(gone)

    def commit(self, conn: Conn, extra: list[tuple[Any, ...]] | None = None) -> None:
        """MQCMIT. ``extra`` journal operations (a channel's sync record) commit atomically with it."""
        if conn.uow_failed:
            self.backout(conn)
            raise MQIError(C.MQRC_BACKED_OUT, detail="an asynchronous put in the unit of work failed")
        self._refuse_if_stalled(conn)
        ops: list[tuple[Any, ...]] = list(extra or ())
        touched: set[str] = set()
        if conn.shared_uow:
            self._commit_shared(conn)
        self._commit_entries(conn.uow, ops, touched)
        self._end_unit(conn, ops, touched)

    def _end_unit(self, conn: Conn, ops: list[tuple[Any, ...]], touched: set[str], detach: bool = True) -> None:
        """After a unit of work ended: the connection has none (``detach``), its journal operations
        are queued for the caller to make durable, and getters waiting on its queues are woken."""
        if detach:
            conn.uow = []
            conn.shared_uow = False
        if ops:
            conn.ticket = self.store.extend(ops)
        for q in touched:
            self.on_available(q)

    def _commit_entries(self, entries: list[tuple[str, QueueState, Message]], ops: list[tuple[Any, ...]],
                        touched: set[str]) -> None:
        """Make a unit's puts visible and its gets final, journalling the persistent ones."""
        puts: dict[str, tuple[QueueState, list[Message]]] = {}
        for kind, qs, msg in entries:
            if kind[0] == "s":
                continue
            qs.uncommitted -= 1
            if kind == "put":
                if self.queues.get(qs.name) is not qs:
                    continue
                puts.setdefault(qs.name, (qs, []))[1].append(msg)
                if msg.persistent:
                    ops.append(("put", msg.seq, qs.name, msg.packed_md(), msg.body, msg.expiry_at))
            elif msg.persistent:
                ops.append(("del", msg.seq))
        for name, (qs, msgs) in puts.items():
            if len(msgs) == 1:
                qs.insert(msgs[0])
            else:
                qs.insert_many(msgs)
            qs.enq += len(msgs)
            touched.add(name)

    def _commit_shared(self, conn: Conn) -> None:
        """The shared part of MQCMIT, first: its puts written and its gets deleted in one store
        transaction. If the store fails, the whole unit of work is backed out (2003)."""
        puts = [e for e in conn.uow if e[0] == "sput"]
        gets = [e for e in conn.uow if e[0] == "sget"]
        if not puts and not gets:
            return
        port = self.shared
        assert port is not None
        try:
            self._shared_call(port.commit, [e[2].new for e in puts],  # type: ignore[attr-defined]
                              [(e[2].row.id, e[1].name) for e in gets],  # type: ignore[attr-defined]
                              any(e[2].persistent for e in puts + gets))
        except MQIError as e:
            self.backout(conn)
            raise MQIError(C.MQRC_BACKED_OUT, detail=f"shared store: {e.detail or e.reason}") from None
        for _kind, qs, _m in puts:
            qs.uncommitted -= 1
            qs.enq += 1
        for name in {e[1].name for e in puts}:
            self.on_available(name)

    def backout(self, conn: Conn) -> None:
        conn.uow_failed = False
        touched: set[str] = set()
        ops: list[tuple[Any, ...]] = []
        shared_gets = [e[2].row.id for e in conn.uow if e[0] == "sget"] if conn.shared_uow else []  # type: ignore[attr-defined]
        if shared_gets and self.shared is not None:
            try:
                self.shared.finish([], shared_gets)
            except Exception as e:  # noqa: BLE001 - the claims come back when this member restarts
                self.log(f"Shared store backout failed: {e!r}")
        self._backout_entries(conn.uow, ops, touched)
        self._end_unit(conn, ops, touched)

    def _backout_entries(self, entries: list[tuple[str, QueueState, Message]], ops: list[tuple[Any, ...]],
                         touched: set[str]) -> None:
        """Discard a unit's puts and give its gets back, their BackoutCount raised."""
        for kind, qs, msg in reversed(entries):
            if kind[0] == "s":
                if kind == "sput":
                    qs.uncommitted -= 1
                continue
            qs.uncommitted -= 1
            if kind == "get" and self.queues.get(qs.name) is qs:
                msg.md.BackoutCount += 1
                msg.touch()
                qs.insert(msg)
                touched.add(qs.name)
                obj = self.queue(qs.name)
                if msg.persistent and obj is not None and obj["HARDENBO"]:
                    ops.append(("bo", msg.seq, msg.md.BackoutCount))

    # --- two-phase units of work (mqlite's XA-style extension) -----------------------------------
    def prepare(self, conn: Conn, xid: str) -> int:
        """Phase one: the connection's unit of work leaves the connection under ``xid`` and is kept,
        its persistent part durably, until :meth:`resolve_prepared` commits or backs it out (by
        this or any connection, an administrator's ``rsvmqtrn`` included); ending the connection or
        restarting the queue manager does not touch it. Returns the messages in the unit."""
        if not xid or len(xid) > 256 or not xid.isprintable():
            raise MQIError(C.MQRC_UOW_NOT_AVAILABLE, detail="an XID is 1 to 256 printable characters")
        if xid in self.prepared:
            raise MQIError(C.MQRC_UOW_IN_PROGRESS, detail=f"a unit of work {xid} is already prepared")
        if conn.shared_uow:
            raise MQIError(C.MQRC_FUNCTION_NOT_SUPPORTED, detail="shared-queue messages cannot be prepared")
        if conn.uow_failed:
            self.backout(conn)
            raise MQIError(C.MQRC_BACKED_OUT, detail="an asynchronous put in the unit of work failed")
        ended = next((p for p in (k[len(XA_END):] for k in self.chsync if k.startswith(XA_END))
                      if xid.startswith(p)), None)
        if ended is not None:
            # The transaction manager has already settled everything under this prefix (a Spark job
            # aborted while this task was still writing): nothing would ever resolve the unit.
            self.backout(conn)
            raise MQIError(C.MQRC_BACKED_OUT, detail=f"the units of work under {ended!r} were already resolved")
        self._refuse_if_stalled(conn)
        entries, conn.uow = conn.uow, []
        now = self.clock.now()
        self.prepared[xid] = Prepared(xid, now, entries)
        rows = [(kind, m.seq, qs.name, m.packed_md() if kind == "put" else None, m.body if kind == "put" else None,
                 m.expiry_at if kind == "put" else None) for kind, qs, m in entries if m.persistent]
        conn.ticket = self.store.append(("prep", xid, now, rows))
        return len(entries)

    def resolve_prepared(self, conn: Conn, commit: list[str], backout: list[str] = (),  # type: ignore[assignment]
                         backout_prefix: str = "", mark: tuple[str, int] | None = None,
                         end_prefix: bool = False) -> dict[str, Any]:
        """Phase two, for several prepared units at once, in one store transaction: commit the XIDs
        of ``commit``, back out those of ``backout`` and every other prepared unit whose XID starts
        with ``backout_prefix`` (a writer's abandoned attempts). With ``mark`` = (name, batch) the
        commit happens only if no batch at or above ``batch`` was committed under ``name`` before
        (then the units are backed out instead: a replayed batch puts nothing twice), and the batch
        is recorded with it. With ``end_prefix`` the prefix is closed, durably: a later prepare
        under it is backed out (2003), so a straggler of a finished job leaves nothing in doubt.
        An unknown XID is 2255 and changes nothing."""
        unknown = [x for x in list(commit) + list(backout) if x not in self.prepared]
        if unknown:
            raise MQIError(C.MQRC_UOW_NOT_AVAILABLE, detail=f"no prepared unit of work {unknown[0]}")
        outcome = "committed"
        ops: list[tuple[Any, ...]] = []
        if end_prefix and backout_prefix:
            ops += self._end_prefix(backout_prefix)
        if mark is not None:
            key = f"XA:{mark[0]}"
            done = self.chsync.get(key, {}).get("batch", -1)
            if done >= mark[1]:
                outcome = "duplicate"
                backout, commit = list(backout) + list(commit), []
            else:
                self.chsync[key] = {"batch": mark[1]}
                ops.append(("chsync", key, json.dumps(self.chsync[key])))
        if backout_prefix:
            chosen = set(commit) | set(backout)
            backout = list(backout) + [x for x in self.prepared if x.startswith(backout_prefix) and x not in chosen]
        touched: set[str] = set()
        for xid in commit:
            self._commit_entries(self.prepared.pop(xid).entries, ops, touched)
            ops.append(("xdone", xid))
        for xid in backout:
            self._backout_entries(self.prepared.pop(xid).entries, ops, touched)
            ops.append(("xdone", xid))
        self._end_unit(conn, ops, touched, detach=False)
        return {"outcome": outcome, "committed": len(commit), "backed_out": len(backout)}

    def _end_prefix(self, prefix: str) -> list[tuple[Any, ...]]:
        """Close an XID prefix (journal operations for it); closed prefixes are forgotten after
        XA_END_DAYS, long after any task of the job can still be running."""
        now = self.clock.now()
        ops: list[tuple[Any, ...]] = []
        for key in [k for k, rec in self.chsync.items() if k.startswith(XA_END)
                    and now - rec.get("at", now) > XA_END_DAYS * 86400]:
            del self.chsync[key]
            ops.append(("chsyncdel", key))
        self.chsync[XA_END + prefix] = {"at": now}
        ops.append(("chsync", XA_END + prefix, json.dumps(self.chsync[XA_END + prefix])))
        return ops

    def prepared_units(self) -> list[dict[str, Any]]:
        """The units of work in doubt (prepared, not resolved), oldest first: dspmqtrn."""
        out = []
        for unit in sorted(self.prepared.values(), key=lambda u: u.at):
            out.append({"xid": unit.xid, "at": unit.at, "puts": sum(1 for e in unit.entries if e[0] == "put"),
                        "gets": sum(1 for e in unit.entries if e[0] == "get"),
                        "queues": sorted({qs.name for _k, qs, _m in unit.entries})})
        return out

    # --- streams: a queue read by position (mqlite's extension, for the Spark source) ------------
    def _stream_queue(self, conn: Conn, hobj: int, need: int, reason: int) -> QueueState:
        h = self.handle(conn, hobj)
        if not h.options & need:
            raise MQIError(reason)
        qs = h.qstate
        if h.res is None or qs is None or qs.shared or qs is not self.queues.get(h.res.queue):
            raise MQIError(C.MQRC_FUNCTION_NOT_SUPPORTED, detail="a stream reads a local queue of this queue manager")
        self._check_get_allowed(h.res)
        return qs

    def stable_position(self, qs: QueueState) -> int:
        """No message below this position can still appear on the queue: the lowest position of a
        put in an open or prepared unit of work, else the next position to be given out."""
        low = self._seq + 1
        for entries in [c.uow for c in self.conns.values()] + [u.entries for u in self.prepared.values()]:
            for kind, q, m in entries:
                if q is qs and kind == "put" and m.seq < low:
                    low = m.seq
        return low

    def stream_mark(self, conn: Conn, hobj: int, start: int, max_msgs: int,
                    committed: bool = False) -> tuple[int, int, int]:
        """The end of the next range to read from ``start``, the messages in it, and how many
        committed messages lie beyond it only because an open or prepared unit of work holds a
        lower position (a stream cannot pass them without risking a gap; the reader says so).
        The range ends past the last message that is stable — with ``committed``, past the last
        committed one (a batch read: a snapshot, no offsets to keep) — or past the ``max_msgs``-th
        (when positive); ``start`` when there is nothing new. Without a limit the count is not
        taken (-1)."""
        qs = self._stream_queue(conn, hobj, C.MQOO_BROWSE, C.MQRC_NOT_OPEN_FOR_BROWSE)
        limit = self._seq + 1 if committed else self.stable_position(qs)
        held = 0 if limit > self._seq else sum(1 for _m in in_position_order(qs, max(start, limit), self._seq + 1))
        if max_msgs <= 0:
            last = max((m.seq for m in (stream_last(lane, limit) for lane in qs.lanes) if m is not None),
                       default=None)
            return (start, 0, held) if last is None or last < start else (last + 1, -1, held)
        end, n = start, 0
        for m in in_position_order(qs, start, limit):
            end, n = m.seq + 1, n + 1
            if n >= max_msgs:
                break
        return end, n, held

    def stream_read(self, conn: Conn, hobj: int, start: int, end: int, max_msgs: int,
                    max_bytes: int) -> list[tuple[int, bytes, bytes]]:
        """Browse the messages whose positions are in [start, end), in position (arrival) order,
        up to ``max_msgs`` or ``max_bytes``: (position, packed MQMD, data) each. Read again, a
        range gives the same messages unless something removed them."""
        qs = self._stream_queue(conn, hobj, C.MQOO_BROWSE, C.MQRC_NOT_OPEN_FOR_BROWSE)
        now = self.clock.now()
        out: list[tuple[int, bytes, bytes]] = []
        size = 0
        for m in in_position_order(qs, start, end):
            out.append((m.seq, self._out_md(m, now), m.body))
            size += len(m.body)
            if len(out) >= max_msgs or size >= max_bytes:
                break
        return out

    def stream_delete(self, conn: Conn, hobj: int, start: int, end: int) -> int:
        """Remove every message whose position is in [start, end) (a stream reader's commit: start
        0), outside any unit of work; durable once the caller syncs ``conn.ticket``."""
        qs = self._stream_queue(conn, hobj, INPUT_OPTS, C.MQRC_NOT_OPEN_FOR_INPUT)
        ops: list[tuple[Any, ...]] = []
        gone: list[Message] = []
        for i, lane in enumerate(qs.lanes):
            if not lane or lane[0].seq >= end or lane[-1].seq < start:
                continue
            if lane[0].seq >= start:
                while lane and lane[0].seq < end:       # the usual case: the front of the lane
                    gone.append(lane.popleft())
            else:
                kept = deque(m for m in lane if not start <= m.seq < end)
                gone.extend(m for m in lane if start <= m.seq < end)
                qs.lanes[i] = kept
        for m in gone:
            if m.persistent:
                ops.append(("del", m.seq))
        qs.visible -= len(gone)
        qs.deq += len(gone)
        if ops:
            conn.ticket = self.store.extend(ops)
        if gone:
            qs.last_get = self.clock.now()
        return len(gone)

    # --- MQINQ / MQSET ----------------------------------------------------------------------------
    def inquire(self, conn: Conn, hobj: int, selectors: list[int]) -> list[int | bytes]:
        h = self.handle(conn, hobj)
        if not h.options & C.MQOO_INQUIRE:
            raise MQIError(C.MQRC_NOT_OPEN_FOR_INQUIRE)
        obj = self._handle_object(h)
        out: list[int | bytes] = []
        for sel in selectors:
            out.append(self._inq_one(h, obj, sel))
        return out

    def _inq_one(self, h: Handle, obj: MQObject, sel: int) -> int | bytes:
        if obj.kind == QMGR:
            if sel == C.MQCA_Q_MGR_NAME:
                return pad(self.name, 48)
        else:
            if sel in (C.MQCA_Q_NAME, C.MQCA_NAMELIST_NAME):
                return pad(obj.name, 48)
            if sel == C.MQIA_Q_TYPE and h.cluster_name and h.obj is None:
                return C.MQQT_CLUSTER
            if sel == C.MQIA_Q_TYPE and obj.kind in QTYPE_VALUES:
                return QTYPE_VALUES[obj.kind]
            qs = self.queues.get(obj.name) if obj.kind == "QLOCAL" else None
            if qs is not None:
                if sel == C.MQIA_CURRENT_Q_DEPTH:
                    return qs.depth
                if sel == C.MQIA_OPEN_INPUT_COUNT:
                    return qs.input_shared + qs.input_exclusive
                if sel == C.MQIA_OPEN_OUTPUT_COUNT:
                    return qs.output
        attr = TABLE.by_selector(obj.kind, sel)
        if attr is None:
            raise MQIError(C.MQRC_SELECTOR_ERROR if not self._selector_known(sel) else C.MQRC_SELECTOR_NOT_FOR_TYPE)
        value = obj.attrs[attr.name]
        if attr.kind == "list":
            return b"".join(pad(v, 48) for v in value)
        if isinstance(value, str):
            length = attr.length or {"CRDATE": 12, "ALTDATE": 12, "CRTIME": 8, "ALTTIME": 8}.get(attr.name, 48)
            return pad(value, length)
        return value

    @staticmethod
    def _selector_known(sel: int) -> bool:
        return any(sel in TABLE.selectors[k] for k in TABLE.selectors)

    def set(self, conn: Conn, hobj: int, selectors: list[int], values: list[Any]) -> None:
        h = self.handle(conn, hobj)
        if not h.options & C.MQOO_SET:
            raise MQIError(C.MQRC_NOT_OPEN_FOR_SET)
        obj = self._handle_object(h)
        changes = {}
        for sel, value in zip(selectors, values, strict=False):
            attr = TABLE.by_selector(obj.kind, sel)
            if attr is None or not attr.mqset:
                raise MQIError(C.MQRC_SELECTOR_ERROR)
            if attr.kind == "str":
                value = text(value) if isinstance(value, (bytes, str)) else value
                if not isinstance(value, str) or len(value) > attr.length:
                    raise MQIError(C.MQRC_CHAR_ATTR_LENGTH_ERROR)
            elif attr.kind == "enum" and value not in attr.values.values():
                raise MQIError(C.MQRC_INHIBIT_VALUE_ERROR if attr.name in ("PUT", "GET") else C.MQRC_SELECTOR_ERROR)
            elif attr.kind == "int" and not (isinstance(value, int) and attr.lo <= value <= attr.hi):
                raise MQIError(C.MQRC_SELECTOR_ERROR)
            elif attr.kind == "flag":
                if value not in (0, 1):
                    raise MQIError(C.MQRC_SELECTOR_ERROR)
            changes[attr.name] = value
        new = obj.copy()
        new.attrs.update(changes)
        self.replace_object(new)
        conn.ticket = self.store.last_ticket

    def _handle_object(self, h: Handle) -> MQObject:
        """The definition a handle refers to, as it is now (MQSET or ALTER may have replaced it)."""
        if h.res is None:
            if h.obj is None:
                return self.qmgr
            current = self.objects["NAMELIST"].get(h.name)
        elif h.obj is None and h.cluster_name:
            return self.cluster.definition(h.cluster_name)
        else:
            current = self.queue(h.res.path[0])
        if current is None:
            raise MQIError(C.MQRC_Q_DELETED)
        return current
