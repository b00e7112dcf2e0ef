"""MQPUT and MQPUT1: checks, context, logical order, transmission-queue wrapping: ``Puts``, the
queue manager's ``qm.puts``, over ``engine.mqicore.CoreState`` (the queue manager binds its
public methods as its own: mqlite.engine.qmgr)."""
from __future__ import annotations

from typing import Any

from mqlite.cluster.state import correl_of
from mqlite.cmq.errors import MQIError
from mqlite.cmq.headers import XQH_FIXED, XQH_LEN, XQH_REMOTE_QM
from mqlite.cmq.packedmd import PackedMD
from mqlite.cmq.segments import GROUP_FLAGS, SEGMENT_FLAGS
from mqlite.cmq.structs import MD, OD, PMO, chars, pad, text
from mqlite.engine.core import (BLANK32, CONTEXT_PMO, MD_HOT, STORED_OVERHEAD, C, Conn, Destination, Handle, bits,
                                put_date_time)
from mqlite.engine.message import Message
from mqlite.engine.mqicore import CoreState
from mqlite.engine.ports import NewMessage
from mqlite.engine.queue import QueueState
from mqlite.engine.report import ANY_REPORT
from mqlite.engine.resolve import CLUSTER, LOCAL, REMOTE, Resolved
from mqlite.engine.segments import check_segment
from mqlite.engine.shared import QSG_XMITQ, SharedPut, SharedQueueState
from mqlite.objects.model import QUEUE, MQObject
from mqlite.props.rfh2 import RFH2_FORMAT, RFHError
from mqlite.props.rfh2 import check as rfh2_check


class Puts:
    """MQPUT and MQPUT1 (the queue manager's ``qm.puts``): the checks, the context, the stored
    descriptor, transmission-queue wrapping; the message then joins its queue through
    ``qm.arrivals``."""

    def __init__(self, qm: CoreState) -> None:
        self.qm = qm
        self.fixed, self.chosen, self.topic = FixedQueue(self), ChosenQueue(self, qm), Topic(qm)

    # --- MQPUT ------------------------------------------------------------------------------------
    def put(self, conn: Conn, hobj: int, md: MD, pmo: PMO, body: bytes, owned: bool = False) -> int:
        """MQPUT. Returns a warning reason (MQRC_NONE normally); md and pmo are updated.

        ``owned``: the caller hands the descriptor over and wants no output fields (an
        asynchronous put), so the engine stores it instead of a copy.
        """
        h = self.qm.handle(conn, hobj)
        if h.dest is None:
            raise MQIError(C.MQRC_NOT_OPEN_FOR_OUTPUT)
        return h.dest.put(conn, h, md, pmo, body, owned, False)

    def destination(self, res: Resolved | None) -> Destination:
        """Where a handle opened for output puts (MQOPEN chooses it once): the resolution's queue
        (fixed), the workload algorithm's choice at each put (a cluster queue not bound on open),
        or, with no queue resolved, the topic opened."""
        return self.topic if res is None else self.chosen if res.kind == CLUSTER else self.fixed

    def put_watched(self, conn: Conn, h: Handle, md: MD, pmo: PMO, body: bytes, owned: bool, put1: bool) -> int:
        """MQPUT or MQPUT1 to a queue, its outcome told to what watches it (``qm.observers``:
        statistics, accounting, events)."""
        try:
            warning = self.put_on_handle(conn, h, md, pmo, body, owned)
        except MQIError as e:
            self.qm.observers.put_failed(conn, h, e.reason, put1)
            raise
        self.qm.observers.put_done(h, md.Persistence, len(body), put1)
        return warning

    def put1(self, conn: Conn, od: OD, md: MD, pmo: PMO, body: bytes) -> int:
        if od.ObjectType == C.MQOT_Q:
            target = self.qm.queue(text(od.ObjectName))
            if target is not None and target.kind == "QMODEL" and not text(od.ObjectQMgrName):
                raise MQIError(C.MQRC_Q_TYPE_ERROR)
        options = C.MQOO_OUTPUT | (pmo.Options & C.MQPMO_FAIL_IF_QUIESCING and C.MQOO_FAIL_IF_QUIESCING)
        if pmo.Options & C.MQPMO_SET_ALL_CONTEXT:
            options |= C.MQOO_SET_ALL_CONTEXT
        elif pmo.Options & C.MQPMO_SET_IDENTITY_CONTEXT:
            options |= C.MQOO_SET_IDENTITY_CONTEXT
        if pmo.Options & C.MQPMO_ALTERNATE_USER_AUTHORITY:      # the checks are the MQOD AlternateUserId's
            options |= C.MQOO_ALTERNATE_USER_AUTHORITY
        h = self.qm.open(conn, od, options)
        try:
            assert h.dest is not None
            return h.dest.put(conn, h, md, pmo, body, False, True)
        finally:
            self.qm.close(conn, h.hobj)

    def put_on_handle(self, conn: Conn, h: Handle, md: MD, pmo: PMO, body: bytes, owned: bool = False) -> int:
        opts = pmo.Options
        if opts & C.MQPMO_SYNCPOINT and opts & C.MQPMO_NO_SYNCPOINT:
            raise MQIError(C.MQRC_OPTIONS_ERROR)
        if bits(opts & CONTEXT_PMO) > 1:
            raise MQIError(C.MQRC_OPTIONS_ERROR)
        if opts & C.MQPMO_SET_ALL_CONTEXT and not h.options & C.MQOO_SET_ALL_CONTEXT:
            raise MQIError(C.MQRC_NOT_OPEN_FOR_SET_ALL)
        if opts & C.MQPMO_SET_IDENTITY_CONTEXT and not h.options & (C.MQOO_SET_IDENTITY_CONTEXT | C.MQOO_SET_ALL_CONTEXT):
            raise MQIError(C.MQRC_NOT_OPEN_FOR_SET_IDENT)
        if self.qm.quiescing and opts & C.MQPMO_FAIL_IF_QUIESCING:
            raise MQIError(C.MQRC_Q_MGR_QUIESCING)
        if md.Persistence not in (0, 1, 2):
            raise MQIError(C.MQRC_PERSISTENCE_ERROR)
        if md.Priority < -1:
            raise MQIError(C.MQRC_PRIORITY_ERROR)
        if md.Expiry <= 0 and md.Expiry != C.MQEI_UNLIMITED:
            raise MQIError(C.MQRC_EXPIRY_ERROR)
        if (md.MsgType == C.MQMT_REQUEST or md.Report & ANY_REPORT) and not text(md.ReplyToQ):
            raise MQIError(C.MQRC_MISSING_REPLY_TO_Q)
        assert h.dest is not None
        res, qs, reroutable = h.dest.target(h, md, opts)
        opened = self.qm.first_definition(h, res)
        syncpoint = bool(opts & C.MQPMO_SYNCPOINT)
        header_len = XQH_LEN if res.kind == REMOTE else 0
        segmentable = md.MsgFlags & C.MQMF_SEGMENTATION_ALLOWED and not qs.shared
        target = self.check_put(conn, res, qs, len(body), header_len, syncpoint, segmentable)
        persistence, priority, warning = self.stored_qos(opened, target, md.Persistence, md.Priority, len(body),
                                                          qs.shared)
        now = self.qm.clock.now()
        # Message descriptor as stored.
        msg_md = md if owned else md.copy()
        d = msg_md.__dict__
        d["Version"] = C.MQMD_VERSION_2
        d["Persistence"] = persistence
        d["Priority"] = priority
        d["BackoutCount"] = 0
        new_id = opts & C.MQPMO_NEW_MSG_ID or not d["MsgId"].strip(b"\0")
        if new_id:
            d["MsgId"] = self.qm.ids.next()
        if opts & C.MQPMO_NEW_CORREL_ID:
            d["CorrelId"] = self.qm.ids.next()
        _blank_pad(d, _FORMAT)          # a Format left as NULs comes back as MQFMT_NONE, eight blanks
        if d["CodedCharSetId"] == C.MQCCSI_Q_MGR:
            d["CodedCharSetId"] = self.qm.qmgr["CCSID"]      # MQ writes its own CCSID in the message's MQMD
        if d["Format"] == RFH2_FORMAT and not (d["Offset"] and d["MsgFlags"] & SEGMENT_FLAGS):
            try:
                rfh2_check(RFH2_FORMAT, d["Encoding"], body)
            except RFHError as e:
                raise MQIError(e.reason) from None
        self.set_context(conn, d, opts, now)
        self.fill_reply_to(d)
        flags = d["MsgFlags"]
        in_order = opts & C.MQPMO_LOGICAL_ORDER
        logical = self.qm.segments.logical_put(h, msg_md, len(body)) if in_order else None
        if flags or d["Offset"]:
            check_segment(msg_md, body, qs.shared)
            if flags & _NEEDS_GROUP_ID and d["GroupId"].strip(b"\0") == b"":
                d["GroupId"] = self.qm.ids.next()
        expiry_at = None if msg_md.Expiry == C.MQEI_UNLIMITED else now + msg_md.Expiry / 10.0
        if segmentable and len(body) > min(self.qm.qmgr["MAXMSGL"], target["MAXMSGL"] - header_len):
            self.qm.segments.put(conn, h, res, qs, target, msg_md, body, header_len, expiry_at, bool(persistence),
                               priority, syncpoint, reroutable, bool(new_id), now)
        else:
            if res.kind == REMOTE:
                stored_md, stored_body = self.xmit_wrap(res, msg_md, body)
            else:
                stored_md, stored_body = msg_md, body
            msg = self.qm.arrivals.message(qs, stored_md, stored_body, expiry_at, bool(persistence), priority)
            if reroutable and res.kind == REMOTE:
                self.qm.cluster.not_fixed.add(msg.seq)
            self.enqueue(conn, qs, msg, syncpoint, now)
        if in_order:
            h.put_group = logical            # the handle's logical state moves once the put succeeded
        elif h.put_group is not None and not warning:
            # Put outside logical order while a logical message or group is unfinished: done, warned.
            warning = C.MQRC_INCOMPLETE_MSG if h.put_group[2] is not None else C.MQRC_INCOMPLETE_GROUP
        if owned:
            return warning
        # Output fields, as MQ returns them.
        out = md.__dict__                 # the stored values are already in their packed form
        for f in _OUTPUT_FIELDS:
            out[f] = d[f]
        p = pmo.__dict__
        p["ResolvedQName"] = pad(res.resolved_q, 48)
        p["ResolvedQMgrName"] = pad(res.resolved_qm, 48)
        return warning

    def put_packed(self, conn: Conn, hobj: int, md: bytes, body: bytes, syncpoint: bool) -> None:
        """MQPUT with MQPMO_SET_ALL_CONTEXT of a descriptor that is already complete and packed
        (a channel's receiver): the same checks as MQPUT, without decoding the descriptor. A
        destination that is not a local queue, and a message too big for it that allows
        segmentation, take the full path; every refusal is told to the observers, as MQPUT's."""
        h = self.qm.handle(conn, hobj)
        res, qs = h.res, h.qstate
        full_path = res is None or qs is None or res.kind != LOCAL or not h.options & C.MQOO_OUTPUT or qs.shared
        if not full_path:
            assert res is not None and qs is not None
            expiry, priority, persistence = MD_HOT.unpack_from(md)
            try:
                target = self.check_put(conn, res, qs, len(body), 0, syncpoint)
                if persistence and target["DEFTYPE"] == C.MQQDT_TEMPORARY_DYNAMIC:
                    raise MQIError(C.MQRC_PERSISTENT_NOT_ALLOWED)
                if persistence == C.MQPER_PERSISTENT:
                    self.need_room(len(body))
            except MQIError as e:
                full_path = e.reason in _TOO_BIG and bool(PackedMD.of(md).peek("MsgFlags")
                                                          & C.MQMF_SEGMENTATION_ALLOWED)
                if not full_path:
                    self.qm.observers.put_failed(conn, h, e.reason, False)
                    raise
        if full_path:
            pmo = PMO(Options=(C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT) | C.MQPMO_SET_ALL_CONTEXT)
            self.put(conn, hobj, MD.from_bytes(md), pmo, body, owned=True)
            return
        assert qs is not None
        now = self.qm.clock.now()
        expiry_at = None if expiry == C.MQEI_UNLIMITED else now + expiry / 10.0
        msg = self.qm.arrivals.packed(qs, md, body, expiry_at, persistence == C.MQPER_PERSISTENT, max(0, min(priority, 9)))
        self.enqueue(conn, qs, msg, syncpoint, now)
        self.qm.observers.put_done(h, persistence, len(body), False)

    def check_put(self, conn: Conn, res: Resolved, qs: QueueState, body_len: int, header_len: int,
                  syncpoint: bool, segmentable: bool = False) -> MQObject:
        """The checks an MQPUT makes at the time of the put; returns the target queue's definition.
        Every definition on the path must allow puts; ``header_len`` is the MQXQH a transmission
        queue adds; a message the queue manager may segment is not refused for its length."""
        # (Every put and every publication's copy comes here: the attribute dictionaries are read
        # directly.)
        queues = self.qm.objects[QUEUE]
        for n in res.path:
            d = queues.get(n)
            if d is not None and d.attrs["PUT"] == C.MQQA_PUT_INHIBITED:
                raise MQIError(C.MQRC_PUT_INHIBITED)
        target = queues.get(res.queue)
        if target is None or qs is not self.qm.queues.get(res.queue):
            raise MQIError(C.MQRC_Q_DELETED)
        attrs, qmgr = target.attrs, self.qm.qmgr.attrs
        if not segmentable:
            if body_len > qmgr["MAXMSGL"]:
                raise MQIError(C.MQRC_MSG_TOO_BIG_FOR_Q_MGR)
            if body_len + header_len > attrs["MAXMSGL"]:
                raise MQIError(C.MQRC_MSG_TOO_BIG_FOR_Q)
        if syncpoint and len(conn.uow) >= qmgr["MAXUMSGS"]:
            raise MQIError(C.MQRC_SYNCPOINT_LIMIT_REACHED)
        if qs.shared:
            # Outside syncpoint the store checks MAXDEPTH in the put's own transaction.
            assert isinstance(qs, SharedQueueState)
            if syncpoint and self.qm.shared_call(qs.recent_depth, self.qm.clock.now()) >= attrs["MAXDEPTH"]:
                raise MQIError(C.MQRC_Q_FULL)
        elif qs.depth >= attrs["MAXDEPTH"]:
            raise MQIError(C.MQRC_Q_FULL)
        return target

    def stored_qos(self, opened: MQObject, target: MQObject, persistence: int, priority: int, body_len: int,
                    shared: bool) -> tuple[int, int, int]:
        """A put's Persistence and Priority as stored, and the warning reason: AS_Q_DEF takes the
        opened definition's DEFPSIST and DEFPRTY; a priority above 9 is stored as 9 with
        MQRC_PRIORITY_EXCEEDS_MAXIMUM. A persistent message is refused on a temporary dynamic queue,
        and when the store has no room for it (a shared queue's store checks its own)."""
        warning = C.MQRC_NONE
        if persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
            persistence = opened["DEFPSIST"]
        if priority == C.MQPRI_PRIORITY_AS_Q_DEF:
            priority = opened["DEFPRTY"]
        elif priority > 9:
            priority = 9
            warning = C.MQRC_PRIORITY_EXCEEDS_MAXIMUM
        if persistence and target["DEFTYPE"] == C.MQQDT_TEMPORARY_DYNAMIC:
            raise MQIError(C.MQRC_PERSISTENT_NOT_ALLOWED)
        if persistence and not shared:
            self.need_room(body_len)
        return persistence, priority, warning

    def need_room(self, body_len: int) -> None:
        """A persistent message is accepted only if the store has room to write it: else MQ's
        answer for a full log, with nothing changed."""
        if not self.qm.store.room(body_len + STORED_OVERHEAD):
            raise MQIError(C.MQRC_RESOURCE_PROBLEM, detail="the queue manager's disk is full")

    def enqueue(self, conn: Conn, qs: QueueState, msg: Message, syncpoint: bool, now: float) -> None:
        """A put message: into the unit of work, or onto the queue (engine/arrivals.py); a shared
        queue's to the group's store."""
        if qs.shared:
            assert isinstance(qs, SharedQueueState)
            qs.last_put = now
            new = self._shared_message(qs, msg)
            if syncpoint:
                if not conn.uow:
                    conn.uow_since = now
                conn.uow.append(("sput", qs, SharedPut(new)))
                conn.shared_uow = True
                qs.uncommitted += 1
            elif conn.async_now:
                # Asynchronous puts to shared queues are written together, one transaction per
                # burst (flush_shared_async: when the burst ends or before the connection's next call).
                conn.shared_async.append(new)
                qs.enq += 1
            else:
                target = self.qm.queue(qs.name)
                self.qm.shared_call(qs.port.put, [new], {qs.name: target["MAXDEPTH"] if target else 0})
                qs.enq += 1
                self.qm.message_available(qs.name)
            return
        if syncpoint:
            self.qm.arrivals.hold(conn, qs, msg, now)
        else:
            self.qm.arrivals.arrive(conn, qs, msg, now)

    def _shared_message(self, qs: QueueState, msg: Message) -> NewMessage:
        md = msg.md
        flags = md.MsgFlags
        target = text(msg.body[XQH_REMOTE_QM]) if qs.name == QSG_XMITQ and len(msg.body) >= XQH_LEN else ""
        return NewMessage(qs.name, md.Priority, msg.packed_md(), msg.body, msg.expiry_at, msg.persistent,
                          md.MsgId, md.CorrelId, md.GroupId, md.MsgSeqNumber,
                          not flags & (C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP) or md.MsgSeqNumber == 1,
                          target)

    def set_context(self, conn: Conn, d: dict[str, Any], opts: int, now: float) -> None:
        """The context fields of a message descriptor (``d`` is its field dictionary)."""
        if opts & C.MQPMO_SET_ALL_CONTEXT:
            _blank_pad(d, _CONTEXT_CHARS)
            return
        if opts & C.MQPMO_NO_CONTEXT:
            d.update(_NO_CONTEXT)
            return
        if opts & C.MQPMO_SET_IDENTITY_CONTEXT:
            _blank_pad(d, _IDENTITY_CHARS)
        else:
            d["UserIdentifier"] = conn.user12
            d["AccountingToken"] = b""
            d["ApplIdentityData"] = BLANK32
        d["PutApplType"] = conn.appl_type
        d["PutApplName"] = conn.appl28
        d["PutDate"], d["PutTime"] = put_date_time(now)
        d["ApplOriginData"] = b"    "

    def fill_reply_to(self, d: dict[str, Any]) -> None:
        """ReplyToQMgr: blank becomes the queue manager the reply is routed to (MQ's rule).

        Both names are stored blank-padded; a NUL ends a name, as in MQ's character fields.
        """
        rq = chars(d["ReplyToQ"])
        d["ReplyToQ"] = rq.ljust(48, b" ")[:48]
        rqm = chars(d["ReplyToQMgr"])
        if rqm:
            d["ReplyToQMgr"] = rqm.ljust(48, b" ")[:48]
            return
        obj = self.qm.queue(rq.decode("ascii", "replace")) if rq else None
        if obj is not None and obj.kind == "QREMOTE" and obj["RQMNAME"]:
            d["ReplyToQMgr"] = pad(obj["RQMNAME"], 48)
            if obj["RNAME"]:
                d["ReplyToQ"] = pad(obj["RNAME"], 48)
        else:
            d["ReplyToQMgr"] = self.qm.name48

    def xmit_wrap(self, res: Resolved, md: MD, body: bytes) -> tuple[MD, bytes]:
        """A message for a remote queue: MQXQH (with the original descriptor, MQMD version 1) in
        front of the data; the message's own descriptor says MQXMIT."""
        header = XQH_FIXED.pack(C.MQXQH_STRUC_ID, C.MQXQH_VERSION_1, pad(res.remote_q, 48),
                                pad(res.remote_qm, 48))
        packed = md.pack()
        outer = md.copy()
        outer.__dict__["Format"] = C.MQFMT_XMIT_Q_HEADER
        if res.channel:
            outer.__dict__["CorrelId"] = correl_of(res.channel)
            self.qm.hooks.channel_wanted(res.channel)
        elif (served := self.qm.hooks.xmitq_correl(res.queue, res.remote_qm)) is not None:
            outer.__dict__["CorrelId"] = served
        return outer, header + packed[:C.MQMD_LENGTH_1] + body


class FixedQueue:
    """A queue whose instance MQOPEN fixed: a local queue, an alias, a remote queue through its
    transmission queue, a cluster queue bound on open."""

    def __init__(self, puts: Puts) -> None:
        self.puts = puts

    def put(self, conn: Conn, h: Handle, md: MD, pmo: PMO, body: bytes, owned: bool, put1: bool) -> int:
        return self.puts.put_watched(conn, h, md, pmo, body, owned, put1)

    def target(self, h: Handle, md: MD, opts: int) -> tuple[Resolved, QueueState, bool]:
        assert h.res is not None and h.qstate is not None
        return h.res, h.qstate, False


class ChosenQueue:
    """A cluster queue whose instance the workload algorithm chooses at each put (BIND_NOT_FIXED;
    BIND_ON_GROUP at each group's first message): such a message may be rerouted later unless it
    belongs to a group kept together."""

    def __init__(self, puts: Puts, qm: CoreState) -> None:
        self.puts, self.qm = puts, qm

    def put(self, conn: Conn, h: Handle, md: MD, pmo: PMO, body: bytes, owned: bool, put1: bool) -> int:
        return self.puts.put_watched(conn, h, md, pmo, body, owned, put1)

    def target(self, h: Handle, md: MD, opts: int) -> tuple[Resolved, QueueState, bool]:
        assert h.res is not None
        res, qs = self.qm.routing.put_target(h, h.res, md, opts)
        return res, qs, h.bind != C.MQBND_BIND_ON_GROUP or not opts & C.MQPMO_LOGICAL_ORDER


class Topic:
    """A topic opened for publishing: a put is a publication (engine/pubsub.py)."""

    def __init__(self, qm: CoreState) -> None:
        self.qm = qm

    def put(self, conn: Conn, h: Handle, md: MD, pmo: PMO, body: bytes, owned: bool, put1: bool) -> int:
        return self.qm.pubsub.publish(conn, h, md, pmo, body)

    def target(self, h: Handle, md: MD, opts: int) -> tuple[Resolved, QueueState, bool]:
        raise MQIError(C.MQRC_OBJECT_TYPE_ERROR, detail="a topic's publications have no single queue")


_FORMAT = (("Format", 8),)
_OUTPUT_FIELDS = ("MsgId", "CorrelId", "GroupId", "MsgSeqNumber", "Offset", "UserIdentifier", "AccountingToken",
                  "ApplIdentityData", "PutApplType", "PutApplName", "PutDate", "PutTime", "ApplOriginData",
                  "ReplyToQMgr")
_TOO_BIG = (C.MQRC_MSG_TOO_BIG_FOR_Q, C.MQRC_MSG_TOO_BIG_FOR_Q_MGR)
_NEEDS_GROUP_ID = GROUP_FLAGS | SEGMENT_FLAGS | C.MQMF_SEGMENTATION_ALLOWED   # a GroupId is made when none
_IDENTITY_CHARS = (("UserIdentifier", 12), ("ApplIdentityData", 32))
_CONTEXT_CHARS = _IDENTITY_CHARS + (("PutApplName", 28), ("PutDate", 8), ("PutTime", 8), ("ApplOriginData", 4))


# MQPMO_NO_CONTEXT: blanks in the character fields, nulls in the byte one (MQ's documented values).
_NO_CONTEXT = {**{name: b" " * n for name, n in _CONTEXT_CHARS}, "AccountingToken": b"",
               "PutApplType": C.MQAT_NO_CONTEXT}


def _blank_pad(d: dict[str, Any], fields: tuple[tuple[str, int], ...]) -> None:
    """Character fields an application set: a NUL ends the value and blanks fill the field, as
    MQ stores its character fields."""
    for name, n in fields:
        v = d[name]
        if len(v) != n or b"\0" in v:
            d[name] = v.split(b"\0", 1)[0][:n].ljust(n, b" ")
