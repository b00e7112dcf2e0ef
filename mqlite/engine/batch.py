"""Asynchronous put, read-ahead and channel batches, bulk browse, MQSTAT: ``Batches``, the queue
manager's ``qm.batches``, over ``BatchesHost``; the queue manager's ``put_async``, ``stat``,
``get_batch``, ``browse_batch`` and ``settle`` call it."""
from __future__ import annotations

import math
from typing import Any, Callable, Protocol

from mqlite.cmq.errors import MQIError
from mqlite.cmq.packedmd import report_and_format
from mqlite.cmq.structs import GMO, MD
from mqlite.engine.clock import Clock
from mqlite.engine.core import INPUT_OPTS, PMO_OPTIONS, PMO_OPTIONS_AT, C, Conn, GetResult, Handle
from mqlite.engine.departures import Departures
from mqlite.engine.hooks import Hooks
from mqlite.engine.message import Message
from mqlite.engine.ports import Journal, SharedPort
from mqlite.engine.queue import QueueState
from mqlite.engine.report import Reports
from mqlite.engine.resolve import Resolved
from mqlite.engine.status import note_got
from mqlite.objects.model import MQObject
from mqlite.props.deliver import RFH2, Shared
from mqlite.props.rfh2 import RFH2_FORMAT

_BROWSE_GMO = GMO()         # a bulk browse returns properties as a plain MQGET would (PROPCTL)


class BatchesHost(Protocol):
    """What batches of puts and gets need of the queue manager."""
    qmgr: MQObject
    queues: dict[str, QueueState]
    store: Journal
    clock: Clock
    hooks: Hooks
    departures: Departures
    quiescing: bool
    shared: SharedPort | None

    def message_available(self, queue: str) -> None: ...

    @property
    def reports(self) -> Reports: ...

    def queue(self, name: str) -> MQObject | None: ...

    def handle(self, conn: Conn, hobj: int) -> Handle: ...

    def put_request(self, conn: Conn, hobj: int, md: bytes, pmo: bytes, body: bytes,
                    answered: bool = True) -> tuple[int, bytes]: ...

    def get(self, conn: Conn, hobj: int, md: MD, gmo: GMO, max_length: int) -> GetResult: ...

    def shared_call(self, fn: Callable[..., Any], *args: Any) -> Any: ...

    def check_get_allowed(self, res: Resolved) -> None: ...

    def property_mode(self, h: Handle, gmo: GMO) -> str: ...

    def discard_expired(self, msg: Message) -> None: ...

    def delivered(self, how: str, m: Message, md_bytes: bytes) -> tuple[bytes, bytes]: ...

    def properties_out(self, how: str, md_bytes: bytes, fmt: bytes, encoding: int, ccsid: int,
                       body: bytes, shared: Shared | None = None) -> tuple[bytes, bytes]: ...

    def with_selector(self, h: Handle, base: Callable[[Message], bool] | None) -> Callable[[Message], bool]: ...


class Batches:
    def __init__(self, qm: BatchesHost) -> None:
        self.qm = qm

    # --- asynchronous put, read-ahead and MQSTAT -------------------------------------------------
    def put_async(self, conn: Conn, hobj: int, md: bytes, pmo: bytes, body: bytes) -> None:
        """MQPUT with an asynchronous response, its MQMD and MQPMO packed as the request carries
        them (``put_request``: a plain put is made on the bytes): no answer now; the outcome is
        counted for MQSTAT."""
        try:
            conn.async_now = True
            try:
                warn, _ = self.qm.put_request(conn, hobj, md, pmo, body, answered=False)
            finally:
                conn.async_now = False
        except MQIError as e:
            conn.put_fail += 1
            if conn.first_error is None:
                h = conn.handles.get(hobj)
                conn.first_error = (e.comp, e.reason, h.name if h else "")
            if PMO_OPTIONS.unpack_from(pmo, PMO_OPTIONS_AT)[0] & C.MQPMO_SYNCPOINT:
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
        if not msgs or self.qm.shared is None:
            return
        limits = {}
        for m in msgs:
            d = self.qm.queue(m.queue)
            limits[m.queue] = d["MAXDEPTH"] if d is not None else 0
        try:
            self.qm.shared_call(self.qm.shared.put, msgs, limits)
        except MQIError:
            ok = 0
            for m in msgs:
                try:
                    self.qm.shared_call(self.qm.shared.put, [m], limits)
                    ok += 1
                except MQIError as e:
                    conn.put_fail += 1
                    conn.put_ok -= 1
                    if conn.first_error is None:
                        conn.first_error = (e.comp, e.reason, m.queue)
        for q in {m.queue for m in msgs}:
            self.qm.message_available(q)

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
                  gmo: GMO, speculative: bool = False, syncpoint: bool = False,
                  hold: bool = False) -> list[tuple[bytes, bytes, bool]]:
        """Read-ahead: acknowledge ``acked`` consumed messages, then send up to ``max_msgs`` more.

        Outside syncpoint only nonpersistent messages are read ahead, as in MQ. A persistent
        message ends the batch; when it is first, it is got the ordinary way (its removal
        journalled) and sent alone, flagged as not read ahead, but only when the application is
        waiting for it: a ``speculative`` request (sent ahead while the client still holds
        messages) never takes one, since the client may close without it.

        Under ``syncpoint`` (mqlite's extension, on queues with read-ahead) every message may be
        sent ahead: each joins the connection's unit of work, so nothing is final before MQCMIT,
        and the ones the client has not consumed go back (uncounted) before the commit or backout.
        With ``hold`` (the asyncio face's gets, which a cancelled task may give back) persistent
        messages are held too, outside syncpoint as well: their removal is journalled, and COD
        sent, when the client acknowledges them (``settle``); until then they are the handle's,
        and go back to the queue with a release, a broken connection or a restart.

        Raises 2033 when the queue has nothing to get (a speculative request gets an empty batch).
        """
        h = self.qm.handle(conn, hobj)
        self.settle(conn, hobj, acked, release=False)
        if max_msgs <= 0:
            return []
        if not h.options & INPUT_OPTS:
            raise MQIError(C.MQRC_NOT_OPEN_FOR_INPUT)
        res, qs = h.res, h.qstate
        if res is None or qs is None or qs is not self.qm.queues.get(res.queue):
            raise MQIError(C.MQRC_Q_DELETED)
        if qs.shared or h.selector is not None:
            raise MQIError(C.MQRC_OPTIONS_ERROR, detail="no read-ahead on a shared queue or with a selector")
        self.qm.check_get_allowed(res)
        if self.qm.quiescing and gmo.Options & C.MQGMO_FAIL_IF_QUIESCING:
            raise MQIError(C.MQRC_Q_MGR_QUIESCING)
        how = self.qm.property_mode(h, gmo)
        now = self.qm.clock.now()
        out: list[tuple[bytes, bytes, bool]] = []
        held = h.read_ahead
        size = 0
        if syncpoint:
            room = self.qm.qmgr["MAXUMSGS"] - len(conn.uow)
            if room <= 0:
                raise MQIError(C.MQRC_SYNCPOINT_LIMIT_REACHED)
            max_msgs = min(max_msgs, room)
        got: list[Message] = []             # for QTIME, when the queue is monitored
        while len(out) < max_msgs and size < max_bytes:
            m = qs.first_fast()
            if m is None:
                break
            if m.expiry_at is not None and now >= m.expiry_at:
                qs.remove(m)
                self.qm.discard_expired(m)
                continue
            md = m.raw_md if m.expiry_at is None and m.raw_md is not None else out_md(m, now)
            report, enc, ccsid, fmt = report_and_format(md)
            cod = report & C.MQRO_COD
            if (m.persistent or cod) and not syncpoint and not hold:
                # Taken as a plain MQGET would take it (not ahead): made final, and confirmed (COD).
                if not out and not speculative:
                    qs.remove(m)
                    got.append(m)
                    self.qm.departures.gone(conn, m)
                    out.append((*self.qm.delivered(how, m, md), False))
                    if cod:
                        self.qm.reports.send(conn, m.md, m.body, "cod", queue=qs.name)
                break
            qs.remove(m)
            got.append(m)
            held.append((m, True if syncpoint else (None if hold else False)))
            if syncpoint:
                self.qm.departures.held(conn, qs, m, now)
            if fmt == RFH2_FORMAT and how != RFH2:
                out.append((*self.qm.properties_out(how, md, fmt, enc, ccsid, m.body, m.shared), True))
            else:
                out.append((md, m.body, True))
            size += len(m.body) + 400
        qs.deq += len(out)
        if not out:
            if speculative and qs.visible:
                return out
            raise MQIError(C.MQRC_NO_MSG_AVAILABLE)
        qs.last_get = now
        if qs.monitored:
            note_got(qs, got, now)
        if h.stats is not None:             # read ahead: counted when handed over (engine/statistics.py)
            got_message, depth = h.stats.got_message, qs.depth
            for m in got:
                got_message(m, len(m.body), depth, now)
        return out

    def take_nonpersistent(self, conn: Conn, hobj: int, max_msgs: int) -> list[tuple[bytes, bytes]]:
        """Remove up to ``max_msgs`` nonpersistent messages from the head of the handle's queue,
        outside syncpoint, stopping at the first persistent one: a sending channel's fast messages.
        One call for the run, with the checks an MQGET makes (GET inhibited, expiry)."""
        h = self.qm.handle(conn, hobj)
        res, qs = h.res, h.qstate
        if res is None or qs is None or qs is not self.qm.queues.get(res.queue) or not h.options & INPUT_OPTS \
                or qs.shared:
            raise MQIError(C.MQRC_HOBJ_ERROR)
        self.qm.check_get_allowed(res)
        now = self.qm.clock.now()
        out: list[tuple[bytes, bytes]] = []
        while len(out) < max_msgs:
            m = qs.first_fast()
            if m is None or m.persistent:
                break
            qs.remove(m)
            if m.expiry_at is not None and now >= m.expiry_at:
                self.qm.discard_expired(m)
                continue
            out.append((out_md(m, now), m.body))
            if qs.monitored:
                note_got(qs, (m,), now)
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
        h = self.qm.handle(conn, hobj)
        qs = h.qstate
        if h.options & C.MQOO_BROWSE and h.res is not None and qs is not None and not qs.shared \
                and qs is self.qm.queues.get(h.res.queue):
            # A local queue: walk its lanes from the cursor (what the MQGET loop below does, without
            # building an MQGMO and a descriptor copy per message).
            self.qm.check_get_allowed(h.res)
            how = self.qm.property_mode(h, _BROWSE_GMO)
            picked = self.qm.with_selector(h, None) if h.selector is not None else None
            now = self.qm.clock.now()
            last = None
            for m in qs.after(None if first else h.browse_at):
                if m.expired(now):
                    continue          # left for a get to discard, as a browse does
                if picked is not None and not picked(m):
                    continue
                out.append(self.qm.delivered(how, m, out_md(m, now)))
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
                r = self.qm.get(conn, hobj, MD(), gmo, 1 << 30)
            except MQIError as e:
                if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                    break
                raise
            out.append((r.packed if r.packed is not None else r.md.pack(), r.body))
            size += len(r.body)
            option = C.MQGMO_BROWSE_NEXT
        return out

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
            m, sp = held.popleft()
            if sp is None and (m.persistent or m.md.Report & C.MQRO_COD):
                # Held outside syncpoint (``hold``): taken now, as an MQGET would have taken it.
                # (A message read ahead, False, is nonpersistent without COD: nothing to do.)
                self.qm.departures.gone(conn, m)
                if m.md.Report & C.MQRO_COD and h.qstate is not None:
                    self.qm.reports.send(conn, m.md, m.body, "cod", queue=h.qstate.name)
        if not release or not held:
            return
        back = list(held)
        held.clear()
        qs = h.qstate
        in_uow = {id(m) for m, sp in back if sp}
        if in_uow:
            conn.uow = [e for e in conn.uow if id(e[2]) not in in_uow]
        if qs is not None and qs is self.qm.queues.get(qs.name):
            for m, sp in back:
                if sp:
                    qs.uncommitted -= 1
                qs.insert(m)
                qs.deq -= 1
            self.qm.message_available(qs.name)


def out_md(m: Message, now: float) -> bytes:
    """The packed descriptor a getter receives (Expiry counted down)."""
    if m.expiry_at is None:
        return m.packed_md()
    md = m.md.copy()
    md.Expiry = max(1, math.ceil((m.expiry_at - now) * 10))
    return md.pack()
