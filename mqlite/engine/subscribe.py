"""MQSUB in the engine: making, resuming and altering subscriptions (MQ's option rules and what
MQSO_ALTER may change), MQSUBRQ, and ending them (MQCLOSE, MQDISC). ``Subscriptions`` is the
queue manager's ``qm.subs``; the subscriptions themselves are ``PubSub``'s (mqlite.engine.pubsub),
which delivers publications to them."""
from __future__ import annotations

import json
from typing import Any

from mqlite.cmq import CMQZC as Z
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import MD, OD, pad, text
from mqlite.engine.core import C, Conn, Handle, qmgr_authority
from mqlite.engine.ports import SaveObject
from mqlite.engine.pubsub import SUB_NS, PubSub, PubSubHost
from mqlite.props.selector import SelectorError
from mqlite.pubsub import topics
from mqlite.pubsub.matching import char_pattern_valid
from mqlite.pubsub.subscription import Subscription, compiled, sub_options_valid


def pub_priority_ok(priority: int) -> bool:
    """MQSD PubPriority / DEFINE SUB PUBPRTY: 0-9, as published or as the queue's default."""
    return 0 <= priority <= 9 or priority in (C.MQPRI_PRIORITY_AS_PUBLISHED, C.MQPRI_PRIORITY_AS_Q_DEF)


def _read_ahead(options: int) -> int:
    """MQSO_READ_AHEAD/NO_READ_AHEAD as the managed queue's open options (the default: as the
    queue's DEFREADA)."""
    if options & C.MQSO_READ_AHEAD:
        return C.MQOO_READ_AHEAD
    return C.MQOO_NO_READ_AHEAD if options & C.MQSO_NO_READ_AHEAD else 0


def check_values(sd: Any) -> None:
    """An MQSD's PubPriority (2050) and SubExpiry (2013), as MQSO_CREATE and MQSO_ALTER check them."""
    if not pub_priority_ok(sd.PubPriority):
        raise MQIError(C.MQRC_PRIORITY_ERROR)
    if sd.SubExpiry <= 0 and sd.SubExpiry != C.MQEI_UNLIMITED:
        raise MQIError(C.MQRC_EXPIRY_ERROR)


def destination_options(sub_options: int) -> int:
    """The open options a subscription's provided destination is checked for (Not Authorized
    type 6's DestOpenOptions): output, and set identity context with MQSO_SET_IDENTITY_CONTEXT."""
    return C.MQOO_OUTPUT | (C.MQOO_SET_IDENTITY_CONTEXT if sub_options & C.MQSO_SET_IDENTITY_CONTEXT else 0)


class Subscriptions:
    def __init__(self, qm: PubSubHost, ps: PubSub) -> None:
        self.qm = qm
        self.ps = ps

    # --- MQSUB -----------------------------------------------------------------------------------
    def subscribe(self, conn: Conn, sd: Any, hobj: int) -> tuple[Handle, int]:
        """MQSUB: (the subscription's handle, the destination queue's handle: ``hobj`` or the
        managed queue opened for input)."""
        opts = sd.Options
        self.ps.check_enabled()
        if not sub_options_valid(opts):
            raise MQIError(C.MQRC_OPTIONS_ERROR)
        durable = bool(opts & C.MQSO_DURABLE)
        name = sd.get_vs("SubName").decode("utf-8", "replace").strip()
        if durable and not name:
            raise MQIError(C.MQRC_SUB_NAME_ERROR)
        existing = next((s for s in self.ps.subscriptions.values() if name and s.name == name), None)
        if existing is not None:
            if not opts & (C.MQSO_RESUME | C.MQSO_ALTER):
                raise MQIError(C.MQRC_SUB_ALREADY_EXISTS)
            if self.ps.in_use(existing):
                raise MQIError(C.MQRC_SUBSCRIPTION_IN_USE)
            return self._resume(conn, existing, sd, hobj)
        if not opts & C.MQSO_CREATE:
            raise MQIError(C.MQRC_NO_SUBSCRIPTION)
        topic = self.ps.topic_string(text(sd.ObjectName), sd.get_vs("ObjectString").decode("utf-8", "replace"))
        if opts & C.MQSO_WILDCARD_CHAR and not char_pattern_valid(topic):
            raise MQIError(C.MQRC_TOPIC_STRING_ERROR)
        tree = self.ps.tree()
        admin = topics.admin_node(tree, topic)
        alt = self._alternate(conn, sd)
        self.qm.authority.authorize(conn, "TOPIC", admin.name, Z.MQZAO_SUBSCRIBE, alt)
        if topics.resolved(tree, topic, "SUB") == C.MQTA_SUB_INHIBITED:
            raise MQIError(C.MQRC_SUB_INHIBITED)
        if durable and topics.resolved(tree, topic, "DURSUB") == C.MQSUB_DURABLE_INHIBITED:
            raise MQIError(C.MQRC_DURABILITY_NOT_ALLOWED)
        selector = sd.get_vs("SelectionString").decode("utf-8", "replace").strip()
        if selector:
            try:
                compiled(selector)
            except SelectorError as e:
                raise MQIError(e.reason, detail=str(e)) from None
        check_values(sd)
        subid = self.qm.ids.next().hex()          # MQ's SubId: an identifier as a MsgId is
        correl = sd.SubCorrelId if opts & C.MQSO_SET_CORREL_ID else bytes.fromhex(subid)
        qh, queue, qmgr = self._destination(conn, opts, hobj, topics.resolved(
            tree, topic, "MDURMDL" if durable else "MNDURMDL"), subid, durable)
        if not opts & C.MQSO_MANAGED:
            self._may_deliver(conn, opts, queue, qmgr, alt=alt)
        sub = Subscription(subid, name, topic, bool(opts & C.MQSO_WILDCARD_CHAR), queue, qmgr,
                           bool(opts & C.MQSO_MANAGED), durable, correl.hex(),
                           sd.get_vs("SubUserData").decode("utf-8", "replace"), opts,
                           conn.principal.user if conn.principal is not None else conn.user,
                           0 if durable else conn.hconn, self.qm.clock.now(), selector=selector,
                           priority=sd.PubPriority)
        sub.set_expiry(sd.SubExpiry, self.qm.clock.now())
        sub.set_identity(sd)
        self.ps.subscriptions[subid] = sub
        self.ps.subscriptions_changed()
        if durable:
            self.ps.journal(conn, SaveObject(SUB_NS, subid, json.dumps(sub.record())))
        sd.SubCorrelId = correl
        h = self._sub_handle(conn, sub, opts)
        if not opts & (C.MQSO_NEW_PUBLICATIONS_ONLY | C.MQSO_PUBLICATIONS_ON_REQUEST):
            self._send_retained(conn, sub)
        return h, qh

    def _destination(self, conn: Conn, opts: int, hobj: int, model: str, subid: str,
                     durable: bool) -> tuple[int, str, str]:
        if opts & C.MQSO_MANAGED:
            prefix = "SYSTEM.MANAGED.DURABLE." if durable else "SYSTEM.MANAGED.NDURABLE."
            od = OD(ObjectName=pad(model, 48), DynamicQName=pad(prefix + subid[-16:].upper(), 48))
            with qmgr_authority(conn):          # the queue manager makes its managed queue
                qh = self.qm.open(conn, od, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE | C.MQOO_INQUIRE
                               | _read_ahead(opts))
            return qh.hobj, text(od.ObjectName), self.qm.name
        return (hobj, *self._provided_queue(conn, hobj))

    @staticmethod
    def _provided_queue(conn: Conn, hobj: int) -> tuple[str, str]:
        """The queue (and its queue manager) a provided handle names: any handle the application
        has to it (pymqi's own tests open it for input); publications go there with the queue
        manager's authority. 2019 when the handle names no queue."""
        h = conn.handles.get(hobj)
        if h is None or h.res is None:
            raise MQIError(C.MQRC_HOBJ_ERROR)
        return h.res.resolved_q, h.res.resolved_qm

    def _alternate(self, conn: Conn, sd: Any) -> str:
        """With MQSO_ALTERNATE_USER_AUTHORITY, the MQSD's AlternateUserId is the user whose
        authority the topic and a provided destination are checked for."""
        return self.qm.authority.alternate(conn, text(sd.AlternateUserId),
                                           bool(sd.Options & C.MQSO_ALTERNATE_USER_AUTHORITY))

    def _may_deliver(self, conn: Conn, opts: int, queue: str, qmgr: str, provided: bool = True,
                     alt: str = "") -> None:
        """A destination queue here needs what MQOPEN of it with ``destination_options`` would:
        ``put`` on a queue a handle provides, ``setid`` for MQSO_SET_IDENTITY_CONTEXT; 2035
        otherwise (MQSUB raises Not Authorized type 6)."""
        if qmgr != self.qm.name:
            return
        need = (Z.MQZAO_OUTPUT if provided else 0) | (
            Z.MQZAO_SET_IDENTITY_CONTEXT if opts & C.MQSO_SET_IDENTITY_CONTEXT else 0)
        if need:
            self.qm.authority.authorize(conn, "QUEUE", queue, need, alt)

    def _sub_handle(self, conn: Conn, sub: Subscription, opts: int) -> Handle:
        h = self.qm.new_handle(conn, sub.name or sub.topic, None, opts, None, None)
        h.sub = sub
        return h

    def _resume(self, conn: Conn, sub: Subscription, sd: Any, hobj: int) -> tuple[Handle, int]:
        opts = sd.Options
        user = conn.principal.user if conn.principal is not None else conn.user
        other = bool(sub.user) and user != sub.user
        if other and not sub.options & C.MQSO_ANY_USERID:
            raise MQIError(C.MQRC_IDENTITY_MISMATCH)
        admin = self.ps.admin_object(sub.topic)
        # sub creates, alters or resumes; resume only resumes what the user already owns.
        alt = self._alternate(conn, sd)
        have = self.qm.authority.authority_for(conn, "TOPIC", admin.name, alt)
        if not have & Z.MQZAO_SUBSCRIBE and (other or opts & C.MQSO_ALTER or not have & Z.MQZAO_RESUME):
            self.qm.authority.authorize(conn, "TOPIC", admin.name, Z.MQZAO_SUBSCRIBE, alt)
        dest = self._altered_destination(conn, sub, sd, hobj, alt) if opts & C.MQSO_ALTER else None
        changed = other
        if other:
            sub.set_owner(user)             # an MQSO_ANY_USERID subscription changes hands
        if opts & C.MQSO_ALTER:
            # Everything the MQSD says, once nothing in it is refused (checked above).
            sub.user_data = sd.get_vs("SubUserData").decode("utf-8", "replace")
            sub.priority = sd.PubPriority
            sub.set_expiry(sd.SubExpiry, self.qm.clock.now())
            if opts & C.MQSO_SET_CORREL_ID:
                sub.set_correl_id(sd.SubCorrelId)
            # FIXED_USERID (the default) fixes the subscription to whoever alters it.
            varuser = C.MQSO_ANY_USERID if opts & C.MQSO_ANY_USERID else C.MQSO_FIXED_USERID
            altered = C.MQSO_ANY_USERID | C.MQSO_FIXED_USERID | C.MQSO_PUBLICATIONS_ON_REQUEST
            sub.options = sub.options & ~altered | varuser | opts & C.MQSO_PUBLICATIONS_ON_REQUEST
            sub.set_owner(user)
            sub.set_identity(sd)
            if dest is not None and dest != (sub.queue, sub.qmgr):
                # Publications already delivered stay where they are (MQ leaves them to the
                # application); the next ones go to the queue this handle names.
                sub.queue, sub.qmgr = dest
            self.ps.subscriptions_changed()
            changed = True
        if changed and sub.durable:
            self.ps.journal(conn, SaveObject(SUB_NS, sub.subid, json.dumps(sub.record())))
        if sub.managed:
            with qmgr_authority(conn):
                qh = self.qm.open(conn, OD(ObjectName=pad(sub.queue, 48)),
                               C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE | C.MQOO_INQUIRE | _read_ahead(sd.Options)).hobj
        elif hobj:
            qh = hobj
        else:
            qh = self._open_destination(conn, sub, sd.Options)
        # The MQSD comes back describing the subscription (MQ's outputs of MQSO_RESUME), so that
        # an application can change what it wants in it and alter with it.
        sd.SubCorrelId = bytes.fromhex(sub.correl_id)
        sd.ObjectName = b""                 # the ObjectString alone names the whole topic
        sd.set_vs("ObjectString", sub.topic)
        sd.set_vs("SubUserData", sub.user_data)
        sd.set_vs("SelectionString", sub.selector)
        sd.PubPriority = sub.priority
        sd.SubExpiry = sub.expiry
        # ... and its durability and destination class, whatever the resuming MQSD said (an
        # application that resumes by name learns whether to delete the queue it reads).
        sd.Options = opts & ~(C.MQSO_DURABLE | C.MQSO_MANAGED) | (C.MQSO_DURABLE if sub.durable else 0) | (
            C.MQSO_MANAGED if sub.managed else 0)
        sub.resumed = self.qm.clock.now()
        return self._sub_handle(conn, sub, sd.Options), qh

    def _altered_destination(self, conn: Conn, sub: Subscription, sd: Any, hobj: int,
                             alt: str = "") -> tuple[str, str] | None:
        """MQSO_ALTER's checks, before anything changes: what MQ does not let an alteration change
        (2510, 2509, 2524, 2533), the new priority and expiry (as at MQSO_CREATE), the queue a
        provided handle names (2019 if it names none) and ``setid`` on the destination for
        MQSO_SET_IDENTITY_CONTEXT. Returns the handle's queue and its queue manager, None when the
        subscription keeps its own (managed, or no handle given)."""
        name, string = text(sd.ObjectName), sd.get_vs("ObjectString").decode("utf-8", "replace")
        topic = self.ps.topic_string(name, string) if name or string else ""
        selector = sd.get_vs("SelectionString").decode("utf-8", "replace").strip()
        reason = sub.alter_refusal(topic, sd.Options, selector)
        if reason:
            raise MQIError(reason)
        check_values(sd)
        if sub.managed:
            return None
        dest = self._provided_queue(conn, hobj) if hobj else None
        self._may_deliver(conn, sd.Options, *(dest or (sub.queue, sub.qmgr)), provided=dest is not None, alt=alt)
        return dest

    def _open_destination(self, conn: Conn, sub: Subscription, opts: int) -> int:
        """A subscription to a queue of its own (DEFINE SUB DEST, or MQSUB with a handle) resumed
        without a handle: the queue is opened for the application, for input and browse, as MQ
        does; 2522 (MQRC_INVALID_DESTINATION) when it cannot be (on another queue manager, gone,
        or not the application's to read)."""
        if sub.qmgr and sub.qmgr != self.qm.name:
            raise MQIError(C.MQRC_INVALID_DESTINATION)
        try:
            return self.qm.open(conn, OD(ObjectName=pad(sub.queue, 48)),
                             C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE | _read_ahead(opts)).hobj
        except MQIError as e:
            raise MQIError(C.MQRC_INVALID_DESTINATION, detail=f"{sub.queue}: reason {e.reason}") from None

    def _send_retained(self, conn: Conn, sub: Subscription) -> int:
        sent = 0
        for topic, (md_bytes, body, _persistent) in list(self.ps.retained.items()):
            if sub.matches(topic):
                self.ps.deliver(conn, sub, topic, MD.from_bytes(md_bytes), body, syncpoint=False, retained=True)
                sent += 1
        return sent

    def request_publications(self, conn: Conn, hsub: int) -> int:
        """MQSUBRQ(MQSR_ACTION_PUBLICATION): the retained publications now; 2437 if there are none."""
        h = self.qm.handle(conn, hsub)
        if h.sub is None:
            raise MQIError(C.MQRC_HOBJ_ERROR, detail="not a subscription's handle")
        sent = self._send_retained(conn, h.sub)
        if not sent:
            raise MQIError(C.MQRC_NO_RETAINED_MSG)
        return sent

    # --- ending subscriptions --------------------------------------------------------------------
    def close_subscription(self, conn: Conn, h: Handle, options: int) -> None:
        """MQCLOSE of a subscription handle: a non-durable subscription ends; a durable one ends
        with MQCO_REMOVE_SUB (MQCO_KEEP_SUB, the default, keeps it)."""
        sub = h.sub
        assert sub is not None
        del conn.handles[h.hobj]
        if not sub.durable or options & C.MQCO_REMOVE_SUB:
            self.ps.end_subscription(conn, sub)

    def end_connection_subscriptions(self, conn: Conn) -> None:
        """MQDISC (or a broken connection): its non-durable subscriptions end."""
        for sub in [s for s in self.ps.subscriptions.values() if s.owner == conn.hconn and not s.durable]:
            for hobj, h in list(conn.handles.items()):
                if h.sub is sub:
                    del conn.handles[hobj]
            self.ps.end_subscription(conn, sub)
