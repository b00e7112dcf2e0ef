"""MQOPEN and MQCLOSE: name resolution, model queues, handles: ``Opens``, the queue manager's
``qm.opens``, over ``engine.mqicore.CoreState`` (the queue manager binds its public methods as
its own: mqlite.engine.qmgr)."""
from __future__ import annotations

from typing import Any

from mqlite.cluster import wlm
from mqlite.cluster.repository import QMGR as CL_QMGR
from mqlite.cluster.repository import QUEUE as CL_QUEUE
from mqlite.cluster.state import ClusterPending
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import CMQZC as Z
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import OD, pad, text
from mqlite.engine.accounting import Recorders
from mqlite.engine.core import (
    ACCESS_OPTS,
    BLANK48,
    INPUT_OPTS,
    VALID_OO,
    C,
    Conn,
    Handle,
    bits,
)
from mqlite.engine.events import QMGR_EVENTS
from mqlite.engine.mqicore import CoreState
from mqlite.engine.queue import QueueState
from mqlite.engine.resolve import CLUSTER, LOCAL, MODEL, REMOTE, Resolved, resolve
from mqlite.engine.statistics import QueueStats, queue_statistics_on
from mqlite.objects.attrs import TABLE
from mqlite.objects.model import MQObject
from mqlite.objects.names import valid_name
from mqlite.props.selector import SelectorError, compile_selector


class Opens:
    """MQOPEN and MQCLOSE (``qm.opens``): name resolution, cluster targets, model queues, the handles."""

    def __init__(self, qm: CoreState) -> None:
        self.qm = qm

    # --- MQOPEN -----------------------------------------------------------------------------------
    def open(self, conn: Conn, od: OD, options: int) -> Handle:
        try:
            return self._open(conn, od, options)
        except MQIError as e:
            if e.reason in QMGR_EVENTS:
                self.qm.events.mqi_failed(conn, e.reason, text(od.ObjectName), text(od.ObjectQMgrName), **e.event)
            elif e.checked is not None:
                self._open_refused(conn, od, options, e.checked)
            raise

    def _open_refused(self, conn: Conn, od: OD, options: int, checked: tuple[str, str, str]) -> None:
        """Not Authorized (type 2): the object as the MQOD named it (a queue's name, a process's,
        or a topic's string with the topic object whose authority was refused)."""
        objtype, name, user = checked
        found: dict[str, Any] = {}
        if od.ObjectType == C.MQOT_TOPIC:
            # The authority was checked on a resolved topic, so its string resolves again.
            found["topic"] = self.qm.pubsub.topic_string(text(od.ObjectName),
                                                      od.get_vs("ObjectString").decode("utf-8", "replace"))
            found["admin_topics"] = [name] if objtype == "TOPIC" else []
        elif od.ObjectType == C.MQOT_PROCESS:
            found["process"] = text(od.ObjectName)
        elif od.ObjectType == C.MQOT_Q:
            found["qname"] = text(od.ObjectName)
        self.qm.events.not_authorized(F.MQRQ_OPEN_NOT_AUTHORIZED, conn, options=options, user=user,
                                   objqmgr=text(od.ObjectQMgrName), **found)

    def _open(self, conn: Conn, od: OD, options: int) -> Handle:
        self._check_open_options(options)
        if self.qm.quiescing and options & C.MQOO_FAIL_IF_QUIESCING:
            raise MQIError(C.MQRC_Q_MGR_QUIESCING)
        if len(conn.handles) >= self.qm.qmgr["MAXHANDS"] and conn.appl_type != C.MQAT_QMGR:   # agents keep handles
            raise MQIError(C.MQRC_HANDLE_NOT_AVAILABLE, detail=f"MAXHANDS({self.qm.qmgr['MAXHANDS']}) handles are open")
        otype = od.ObjectType
        name = text(od.ObjectName)
        qmname = text(od.ObjectQMgrName)
        if otype == C.MQOT_Q_MGR:
            if qmname and qmname != self.qm.name:
                raise MQIError(C.MQRC_UNKNOWN_OBJECT_Q_MGR)
            if name and name != self.qm.name:
                raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
            if options & ~(C.MQOO_INQUIRE | C.MQOO_ALTERNATE_USER_AUTHORITY | C.MQOO_FAIL_IF_QUIESCING):
                raise MQIError(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
            self.qm.authority.authorize_open(conn, "QMGR", self.qm.name, options, text(od.AlternateUserId))
            od.ObjectName = pad(self.qm.name, 48)
            return self.new_handle(conn, self.qm.name, None, options, None, None)
        if otype == C.MQOT_NAMELIST:
            nl = self.qm.objects["NAMELIST"].get(name)
            if nl is None:
                raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
            if options & ~(C.MQOO_INQUIRE | C.MQOO_ALTERNATE_USER_AUTHORITY | C.MQOO_FAIL_IF_QUIESCING):
                raise MQIError(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
            self.qm.authority.authorize_open(conn, "NAMELIST", name, options, text(od.AlternateUserId))
            return self.new_handle(conn, name, nl, options, None, None)
        if otype == C.MQOT_TOPIC:
            return self.qm.pubsub.open_topic(conn, od, options)
        if otype != C.MQOT_Q:
            raise MQIError(C.MQRC_OBJECT_TYPE_ERROR)
        if not name or not valid_name(name):
            raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
        selection = od.get_vs("SelectionString")
        selector = None
        if selection.strip():
            try:
                selector = compile_selector(selection.decode("utf-8", "replace"))
            except SelectorError as e:
                raise MQIError(e.reason, detail=str(e)) from None
        res = self.resolve(conn, name, qmname, options)
        obj = self.qm.queue(res.path[0]) if res.path else None
        if conn.principal is not None:
            # Checked on the name opened; through ObjectQMgrName, on the transmission queue; a
            # cluster queue, on the cluster transmission queue (MQ's default).
            checked = res.path[0] if res.path else "SYSTEM.CLUSTER.TRANSMIT.QUEUE" if res.kind == CLUSTER \
                else res.queue
            self.qm.authority.authorize_open(conn, "QUEUE", checked, options, text(od.AlternateUserId))
        if res.kind == CLUSTER:
            return self._open_cluster(conn, od, options, res, obj)
        if options & C.MQOO_OUTPUT and res.kind == LOCAL and conn.appl_type != C.MQAT_QMGR \
                and self.qm.cluster.is_cluster_xmitq(res.queue):
            # Only the queue manager puts to a cluster transmission queue (with the channel's CorrelId).
            raise MQIError(C.MQRC_XMIT_Q_USAGE_ERROR, detail=f"{res.queue} is a cluster transmission queue",
                           event={"xmitq": res.queue})
        dynamic_owner = False
        if res.kind == MODEL:
            created = self.instantiate_model(conn, od, self.qm.queue_defined(res.queue))
            dynamic_owner = True
            self.qm.authority.grant_creator(conn, created.name)
            res = Resolved(LOCAL, created.name, created.name, self.qm.name, (created.name,))
            obj = created
            name = created.name
        qs = self.qm.queues.get(res.queue)
        if qs is None:  # the definition vanished between resolve and here (cannot happen single-threaded)
            raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME)
        input_mode = ""
        if options & INPUT_OPTS:
            input_mode = self._input_mode(obj, self.qm.queue_defined(res.queue), options)
            if input_mode == "X" and (qs.input_exclusive or qs.input_shared):
                raise MQIError(C.MQRC_OBJECT_IN_USE)
            if input_mode == "S" and qs.input_exclusive:
                raise MQIError(C.MQRC_OBJECT_IN_USE)
        if selector is not None and qs.shared and options & (INPUT_OPTS | C.MQOO_BROWSE):
            raise MQIError(C.MQRC_SELECTION_NOT_AVAILABLE, detail="no selectors on a shared queue")
        h = self.new_handle(conn, name, obj, options, res, qs)
        h.input_mode = input_mode
        h.dynamic_owner = dynamic_owner
        h.selector = selector
        if selector is not None:
            qs.selecting += 1
        first = self.qm.queue(res.path[0])
        if first is not None:
            h.async_put = first["DEFPRESP"] == C.MQPRT_ASYNC_RESPONSE
            readahead = first.attrs.get("DEFREADA", C.MQREADA_NO)
            h.read_ahead_ok = bool(options & INPUT_OPTS) and not qs.shared and selector is None \
                and readahead != C.MQREADA_DISABLED and (
                bool(options & C.MQOO_READ_AHEAD) or (readahead == C.MQREADA_YES
                                                      and not options & C.MQOO_NO_READ_AHEAD))
        if input_mode == "X":
            qs.input_exclusive += 1
        elif input_mode == "S":
            qs.input_shared += 1
        if input_mode:
            qs.trig_sent = None           # a FIRST trigger's application took over (engine/trigger.py)
        if options & C.MQOO_OUTPUT:
            qs.output += 1
        self._hold_path(res.path, 1)
        od.ResolvedQName = pad(res.queue if (options & C.MQOO_RESOLVE_LOCAL_Q and res.kind == REMOTE)
                               else res.resolved_q, 48)
        od.ResolvedQMgrName = pad(self.qm.name if (options & C.MQOO_RESOLVE_LOCAL_Q and res.kind == REMOTE)
                                  else res.resolved_qm, 48)
        return h

    def resolve(self, conn: Conn, name: str, qmname: str, options: int) -> Resolved:
        """Name resolution, with the cluster's part: the first use of a name that is not defined
        here subscribes to it at the full repositories; while none has answered, the caller may
        wait for the answer (ClusterPending), after which an unknown name is 2085, or 2189 when no
        full repository answered at all."""
        cl = self.qm.cluster
        if not cl.active:
            return resolve(self.qm, name, qmname, options)
        remote_qm = bool(qmname) and qmname != self.qm.name
        if remote_qm:
            # A queue manager not known here may be a cluster queue manager or a clustered
            # queue-manager alias: subscribe to both (the alias is a queue record of that name).
            kind, what = CL_QUEUE, qmname
            answered = True
            if self.qm.queue(qmname) is None and not cl.route(qmname):
                answered = cl.interest(CL_QMGR, qmname) & cl.interest(CL_QUEUE, qmname)
        else:
            kind, what = CL_QUEUE, name
            local = self.qm.queue(name)
            if local is not None and local.kind == "QALIAS" and (local["TARGET"] == name
                                                                   or self.qm.queue(local["TARGET"]) is None):
                what = local["TARGET"]       # an alias whose base may be a cluster queue elsewhere
                local = None if what == name else self.qm.queue(what)
            answered = True
            if qmname != self.qm.name and (local is None or cl.clusters_of(local)):
                # An unknown name, or a cluster queue hosted here too (its other instances count for
                # CLWLUSEQ(ANY) and put-disabled local instances): register interest.
                answered = cl.interest(kind, what)
        try:
            return resolve(self.qm, name, qmname, options)
        except MQIError as e:
            unknown = e.reason in (C.MQRC_UNKNOWN_OBJECT_NAME, C.MQRC_UNKNOWN_REMOTE_Q_MGR,
                                   C.MQRC_UNKNOWN_ALIAS_BASE_Q)
            if not unknown or answered or (not remote_qm and options & wlm.NEEDS_LOCAL):
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
        first = obj if obj is not None else self.qm.cluster.definition(cluster_name)
        bind = wlm.binding(options, first["DEFBIND"])
        if bind == C.MQBND_BIND_ON_OPEN and options & C.MQOO_OUTPUT:
            target, qs = self.qm.routing.cluster_target(res)
            h = self.new_handle(conn, text(od.ObjectName), obj, options, target, qs)
            qs.output += 1
            od.ResolvedQName = pad(target.resolved_q, 48)
            od.ResolvedQMgrName = pad(target.resolved_qm, 48)
        else:
            h = self.new_handle(conn, text(od.ObjectName), obj, options, res, None)
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
            q = self.qm.queues.get(n)
            if q is not None:
                q.refs += delta

    def first_definition(self, h: Handle, res: Resolved) -> MQObject:
        """The first definition on the path, whose DEFPSIST and DEFPRTY apply: a cluster queue with
        no definition here takes them from its cluster records."""
        if h.obj is None and h.cluster_name:
            return self.qm.cluster.definition(h.cluster_name)
        opened = self.qm.queue(res.path[0])
        if opened is None:
            raise MQIError(C.MQRC_Q_DELETED)
        return opened

    def _check_open_options(self, options: int) -> None:
        if options & ~VALID_OO:
            raise MQIError(C.MQRC_OPTIONS_ERROR, detail="unknown option")
        if not options & ACCESS_OPTS:
            raise MQIError(C.MQRC_OPTIONS_ERROR, detail="no access option")
        if bits(options & INPUT_OPTS) > 1:
            raise MQIError(C.MQRC_OPTIONS_ERROR, detail="more than one input option")
        if bits(options & (C.MQOO_BIND_ON_OPEN | C.MQOO_BIND_NOT_FIXED | C.MQOO_BIND_ON_GROUP)) > 1:
            raise MQIError(C.MQRC_OPTIONS_ERROR, detail="more than one bind option")
        if bits(options & (C.MQOO_READ_AHEAD | C.MQOO_NO_READ_AHEAD)) > 1:
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

    def instantiate_model(self, conn: Conn | None, od: OD, model: MQObject) -> MQObject:
        dyn = text(od.DynamicQName) or "AMQ.*"
        if "*" in dyn:
            if dyn.index("*") != len(dyn) - 1:
                raise MQIError(C.MQRC_DYNAMIC_Q_NAME_ERROR)
            stem = dyn[:-1]
            name = (stem + self.qm.ids.hex_suffix())[:48]
        else:
            name = dyn
        if not valid_name(name):
            raise MQIError(C.MQRC_DYNAMIC_Q_NAME_ERROR)
        if self.qm.queue(name) is not None:
            raise MQIError(C.MQRC_OBJECT_ALREADY_EXISTS)
        obj = MQObject("QLOCAL", name, TABLE.defaults("QLOCAL"))
        for key, value in model.attrs.items():
            if key in obj.attrs and key not in ("CRDATE", "CRTIME", "ALTDATE", "ALTTIME"):
                obj.attrs[key] = value
        obj.attrs["DEFTYPE"] = model["DEFTYPE"]
        self.qm.add_object(obj)
        od.ObjectName = pad(name, 48)
        return obj

    def new_handle(self, conn: Conn, name: str, obj: MQObject | None, options: int,
                   res: Resolved | None, qs: QueueState | None) -> Handle:
        hobj = conn.next_hobj
        conn.next_hobj += 1
        h = Handle(hobj, name, obj, options, res, qs)
        if options & C.MQOO_OUTPUT:
            h.dest = self.qm.destination(res)
        conn.handles[hobj] = h
        if qs is not None and not qs.shared and not conn.unmeasured:
            qmgr = self.qm.qmgr
            local = self.qm.queue(qs.name)
            reported = local is not None and qmgr["STATQ"] != C.MQMON_NONE and \
                queue_statistics_on(qmgr["STATQ"], local["STATQ"])
            # The MQI statistics take their puts and gets from the queues' figures, and so do
            # the resource-usage publications someone subscribes to (``watched``).
            if reported or qmgr["STATMQI"] == C.MQMON_ON or self.qm.watched and (
                    "*" in self.qm.watched or qs.name in self.qm.watched):
                if qs.stats is None:
                    qs.stats = QueueStats(qs.depth, qs.depth)
                h.stats = qs.stats
            # The connection's accounting (engine/accounting.py), beside the queue's figures.
            if conn.acct is not None or conn.acct_level != C.MQMON_NONE:
                account = self.qm.accounting.for_queue(conn, qs.name, local)
                if account is not None:
                    h.stats = account if h.stats is None else Recorders(h.stats, account)
            if h.stats is not None:
                h.stats.opened(self.qm.clock.now())
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
        if h.sub is not None:
            self.qm.subs.close_subscription(conn, h, options)
            return
        if options & (C.MQCO_KEEP_SUB | C.MQCO_REMOVE_SUB):
            raise MQIError(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        if h.topic is not None:
            del conn.handles[hobj]
            return
        if h.stats is not None:
            h.stats.closed(self.qm.clock.now())
        delete = options & (C.MQCO_DELETE | C.MQCO_DELETE_PURGE)
        obj = self.qm.queue(h.name) if h.res is not None else None
        is_dynamic = obj is not None and obj.kind == "QLOCAL" and obj["DEFTYPE"] in (
            C.MQQDT_PERMANENT_DYNAMIC, C.MQQDT_TEMPORARY_DYNAMIC)
        if delete and not is_dynamic:
            raise MQIError(C.MQRC_OPTION_NOT_VALID_FOR_TYPE)
        if delete and not h.dynamic_owner and obj is not None and obj["DEFTYPE"] == C.MQQDT_PERMANENT_DYNAMIC:
            self._may_delete(conn, h.name)
        qs = h.qstate
        if delete and qs is not None:
            others = any(o is not h and o.res is not None and h.name in o.res.path
                         for c in self.qm.conns.values() for o in c.handles.values())
            if others:
                raise MQIError(C.MQRC_OBJECT_IN_USE)
            if options & C.MQCO_DELETE and not options & C.MQCO_DELETE_PURGE and qs.depth:
                raise MQIError(C.MQRC_Q_NOT_EMPTY)
        self.qm.settle(conn, hobj, 0, release=True)
        self._release(h)
        del conn.handles[hobj]
        if obj is not None and (delete or (h.dynamic_owner and obj["DEFTYPE"] == C.MQQDT_TEMPORARY_DYNAMIC)):
            # Messages of a deleted queue still inside this connection's unit of work go with it.
            conn.uow = [e for e in conn.uow if e[1] is not qs]
            if qs is not None:
                qs.uncommitted = 0
            self.qm.remove_object(obj)

    def _may_delete(self, conn: Conn, name: str) -> None:
        """MQCLOSE deleting a permanent dynamic queue through a handle other than the one whose
        MQOPEN created it needs ``dlt`` on the queue: 2035 and Not Authorized (type 3) without."""
        try:
            self.qm.authority.authorize(conn, "QUEUE", name, Z.MQZAO_DELETE)
        except MQIError as e:
            if e.checked is not None:
                self.qm.events.not_authorized(F.MQRQ_CLOSE_NOT_AUTHORIZED, conn, user=e.checked[2], qname=name)
            raise

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
        if h.input_mode and not (qs.input_shared or qs.input_exclusive) and qs.visible:
            self.qm.triggers.closed(qs)      # MQ triggers again when the last getter leaves messages
        if h.options & C.MQOO_OUTPUT:
            qs.output -= 1
        if h.selector is not None:
            qs.selecting -= 1
