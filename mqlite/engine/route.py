"""Where a cluster put goes, the cluster transmission queues made from their model, and messages
moved between transmission queues (BIND_NOT_FIXED rerouting, a channel's messages moved when its
transmission queue changes): ``Routing``, the queue manager's ``qm.routing``, over ``RoutingHost``."""
from __future__ import annotations

from typing import Any, Protocol

from mqlite.cluster import wlm
from mqlite.cluster.state import SCTQ, XMIT_MODEL, XMIT_PREFIX, ClusterState, correl_of
from mqlite.cmq.errors import MQIError
from mqlite.cmq.headers import XQH_LEN, XQH_REMOTE_Q, XQH_REMOTE_QM, original_md
from mqlite.cmq.structs import MD, PMO, pad, text
from mqlite.engine.arrivals import Arrivals
from mqlite.engine.core import C, Conn, Destination, Handle
from mqlite.engine.hooks import Hooks
from mqlite.engine.ports import Journal
from mqlite.engine.queue import QueueState
from mqlite.engine.resolve import LOCAL, REMOTE, Resolved, View, resolve
from mqlite.objects.attrs import TABLE
from mqlite.objects.model import MQObject


class RoutingHost(View, Protocol):
    """What cluster routing needs of the queue manager (and name resolution: ``View``)."""
    name: str
    queues: dict[str, QueueState]
    conns: dict[int, Conn]
    store: Journal
    hooks: Hooks
    cluster: ClusterState
    arrivals: Arrivals

    def message_available(self, queue: str) -> None: ...

    def queue(self, name: str) -> MQObject | None: ...

    def add_object(self, obj: MQObject) -> None: ...

    def put_on_handle(self, conn: Conn, h: Handle, md: MD, pmo: PMO, body: bytes, owned: bool = False) -> int: ...

    def destination(self, res: Resolved | None) -> Destination: ...


class Routing:
    def __init__(self, qm: RoutingHost) -> None:
        self.qm = qm
        # The instances the workload algorithm chose, by the resolution and the choice (cluster_target).
        self._cl_targets: dict[tuple[Any, ...], tuple[Resolved, QueueState, Resolved]] = {}

    def put_target(self, h: Handle, res: Resolved, md: MD, opts: int) -> tuple[Resolved, QueueState]:
        """The instance for this MQPUT on a NOT_FIXED or ON_GROUP handle (2085 when the queue has
        left every cluster: the workload algorithm finds no destination)."""
        in_group = bool(md.MsgFlags & (C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP))
        logical = bool(opts & C.MQPMO_LOGICAL_ORDER)
        if wlm.chooses_at_put(h.bind, in_group, logical, h.put_group is None) or h.group_target is None:
            target = self.cluster_target(res)
        else:
            target = h.group_target
        if h.bind == C.MQBND_BIND_ON_GROUP and in_group and logical:
            h.group_target = None if md.MsgFlags & C.MQMF_LAST_MSG_IN_GROUP else target
        return target

    def cluster_target(self, res: Resolved) -> tuple[Resolved, QueueState]:
        """Run the workload algorithm: the concrete destination of one message (or of a
        BIND_ON_OPEN handle), as a resolution to a local queue or a cluster transmission queue."""
        cl = self.qm.cluster
        cname = res.remote_qm or res.resolved_q
        d = cl.choose(cname)
        # Keyed cheaply (hashing the destination or the resolution dataclass costs more than the
        # rest of the lookup); the resolution is kept in the entry and checked by identity.
        key = (id(res), d.channel, d.local, cl.gen)
        hit = self._cl_targets.get(key)
        if hit is not None and hit[2] is res and self.qm.queues.get(hit[0].queue) is hit[1]:
            return hit[0], hit[1]
        if d.local:
            if res.remote_qm:
                # A clustered queue-manager alias hosted here: resolve through it.
                target = resolve(self.qm, res.resolved_q, res.remote_qm, C.MQOO_OUTPUT)
            else:
                target = Resolved(LOCAL, cname, cname, self.qm.name, res.path or (cname,))
        else:
            xq = self.cluster_xmitq(d.channel)
            dest_qm = res.remote_qm or d.qmgr
            target = Resolved(REMOTE, xq, res.resolved_q, dest_qm, res.path + (xq,), res.resolved_q, dest_qm,
                              d.channel)
        qs = self.qm.queues.get(target.queue)
        if qs is None:
            raise MQIError(C.MQRC_UNKNOWN_OBJECT_NAME, detail=target.queue)
        if len(self._cl_targets) > 4096:
            self._cl_targets.clear()
        self._cl_targets[key] = (target, qs, res)
        return target, qs

    def cluster_xmitq(self, channel: str) -> str:
        """The transmission queue a message for the cluster-sender ``channel`` goes on now, made
        first if it is a SYSTEM.CLUSTER.TRANSMIT.<channel> that does not exist yet."""
        name = self.qm.cluster.xmitq_now(channel)
        self.ensure_cluster_xmitq(name, channel)
        return name

    def ensure_cluster_xmitq(self, name: str, channel: str) -> None:
        """DEFCLXQ(CHANNEL): SYSTEM.CLUSTER.TRANSMIT.<channel> made from the model queue."""
        if self.qm.queue(name) is not None or not name.startswith(XMIT_PREFIX) or name == SCTQ:
            return
        model = self.qm.queue(XMIT_MODEL)
        obj = MQObject("QLOCAL", name, TABLE.defaults("QLOCAL"))
        if model is not None:
            for k, v in model.attrs.items():
                if k in obj.attrs and k not in ("CRDATE", "CRTIME", "ALTDATE", "ALTTIME"):
                    obj.attrs[k] = v
        obj.attrs.update(DEFTYPE=C.MQQDT_PERMANENT_DYNAMIC, USAGE=C.MQUS_TRANSMISSION, CLCHNAME=channel)
        self.qm.add_object(obj)

    def send_cluster(self, conn: Conn, channel: str, target: str, queue: str, body: bytes) -> None:
        """The repository manager sends a control message: onto the channel's cluster transmission
        queue, persistent, inside the connection's unit of work. ``target`` blank: whoever is at the
        other end of the channel (a manual CLUSSDR whose full repository is not known yet)."""
        xq = self.cluster_xmitq(channel)
        res = Resolved(REMOTE, xq, queue, target, (xq,), queue, target, channel)
        h = Handle(0, xq, None, C.MQOO_OUTPUT, res, self.qm.queues[xq])
        h.dest = self.qm.destination(res)
        md = MD(Persistence=C.MQPER_PERSISTENT, Format=C.MQFMT_STRING)
        self.qm.put_on_handle(conn, h, md, PMO(Options=C.MQPMO_SYNCPOINT), body, owned=True)

    def move_messages(self, conn: Conn, source: str, dest: str, correl: bytes) -> int:
        """A cluster-sender channel switches transmission queue: its messages (by CorrelId) move
        from ``source`` to ``dest``."""
        src, dst = self.qm.queues.get(source), self.qm.queues.get(dest)
        if src is None or dst is None or src is dst:
            return 0
        moving = [m for m in src if m.md.CorrelId == correl]
        for m in moving:
            new = self.qm.arrivals.relocate(conn, src, m, dst, m.md, m.body)
            if m.seq in self.qm.cluster.not_fixed:
                self.qm.cluster.not_fixed.add(new.seq)
        if moving:
            self.qm.message_available(dest)
        return len(moving)

    def reroute(self, conn: Conn, channel: str) -> int:
        """Messages put with BIND_NOT_FIXED that wait for ``channel`` (which cannot reach its queue
        manager) go through the workload algorithm again, which ranks a retrying channel below
        running ones; those it sends elsewhere move to that channel's transmission queue (or to
        the local instance). Messages bound on open or by group stay."""
        cl = self.qm.cluster
        qs = self.qm.queues.get(cl.assoc.get(channel) or cl.xmitq_for(channel))
        if qs is None or not cl.not_fixed:
            return 0
        correl = correl_of(channel)
        moved = 0
        for m in [m for m in qs if m.md.CorrelId == correl and m.seq in cl.not_fixed]:
            name = text(m.body[XQH_REMOTE_Q])
            try:
                d = cl.choose(name)
            except MQIError:
                continue
            if d.channel == channel:
                continue
            if d.local:
                dest = self.qm.queues.get(name)
                md, data = MD.from_bytes(original_md(m.packed_md(), m.body)), m.body[XQH_LEN:]
            else:
                dest = self.qm.queues.get(self.cluster_xmitq(d.channel))
                md = m.md.copy()
                md.CorrelId = correl_of(d.channel)
                data = m.body[:XQH_REMOTE_QM.start] + pad(d.qmgr, 48) + m.body[XQH_REMOTE_QM.stop:]
            if dest is None:
                continue
            cl.not_fixed.discard(m.seq)
            new = self.qm.arrivals.relocate(conn, qs, m, dest, md, data)
            self.qm.message_available(dest.name)
            if not d.local:
                cl.not_fixed.add(new.seq)
                self.qm.hooks.channel_wanted(d.channel)
            moved += 1
        return moved

    def prune_not_fixed(self) -> None:
        """Forget the NOT_FIXED marks of messages that have left the cluster transmission queues
        (sent, or expired); those inside a unit of work (a batch in flight) keep theirs."""
        cl = self.qm.cluster
        if not cl.not_fixed:
            return
        here = {m.seq for name, qs in self.qm.queues.items() if cl.is_cluster_xmitq(name) for m in qs}
        here.update(m.seq for c in self.qm.conns.values() for _op, _qs, m in c.uow)
        cl.not_fixed &= here

    def correl_ids(self, queue: str) -> set[bytes]:
        """The CorrelIds of the messages on a cluster transmission queue (which channels have work)."""
        qs = self.qm.queues.get(queue)
        return set() if qs is None else {m.md.CorrelId for m in qs}

    def has_correl(self, queue: str, correl: bytes) -> bool:
        qs = self.qm.queues.get(queue)
        return qs is not None and any(m.md.CorrelId == correl for m in qs)
