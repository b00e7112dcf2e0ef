"""Asynchronous consume: MQCB and MQCTL for the pymqi and ibmmq faces (``Queue.cb``,
``QueueManager.cb``, ``QueueManager.ctl``), as IBM's client does it (docs/pymqi.md).

The rules are pure functions (``control``, ``register``, ``call_state``); ``Dispatcher`` runs them
for one connection. While the connection is started, the callbacks run one at a time on a thread
of the client's (MQOP_START) or the caller's (MQOP_START_WAIT), and the connection is theirs:
another thread's MQI call is MQRC_HCONN_ASYNC_ACTIVE, except MQCTL STOP or SUSPEND and MQDISC.
Messages come from the queue manager by CONSUME (server/consume.py): one request for every
consumer of the connection, answered as soon as any has a message. A consumer whose gets
read-ahead can serve (destructive, no selection by identifiers, whole messages) gets up to
``CREDIT`` messages at a time, held for it by the queue manager until the callback has returned
(acknowledged with the next request; given back if the connection ends first), or under
syncpoint in its unit of work; the next batch is asked for while it works through this one. Any
other consumer gets one message per request, by an MQGET the queue manager makes for it.
"""
from __future__ import annotations

import sys
import threading
import time
import traceback
from collections import deque
from typing import Any, Callable, Protocol

from mqlite.cmq import CMQC as C
from mqlite.cmq.structs import CBC, CBD, CTLO, GMO, MD
from mqlite.net import protocol as P
from mqlite.net import verbs as V
from mqlite.net.client import Transport, TransportError
from mqlite.pymqi.cbrules import STARTED, STOPPED, SUSPENDED, batched, call_state, control, register
from mqlite.pymqi.errors import MQMIError, PYIFError, failure


class Connection(Protocol):
    """The connection (pymqi/qmgr.py's QueueManager) as its callbacks use it."""
    _transport: Transport | None
    _recon: Any
    _dirty: bool

    def get_name(self) -> str: ...

CREDIT = 256                  # messages a read-ahead consumer may hold
CREDIT_BYTES = 1 << 20
BIG = 104857600               # a consumer with MQCBD_FULL_MSG_LENGTH takes messages up to 100 MB
RETRY = 1.0                   # seconds before a consumer suspended for a passing condition tries again
_BROWSING = C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
_MD_NEW, _CBC_NEW = MD.__new__, CBC.__new__      # (delivery makes both per message: no __init__)
_CBC_DEFAULTS = CBC().__dict__.copy()


# --- one connection's callbacks ---------------------------------------------------------------
class Callback:
    """A registered callback: a message consumer on a handle, or the connection's event handler."""

    def __init__(self, obj: Any, hobj: int, cbd: CBD, md: MD, gmo: GMO, suspended: bool) -> None:
        self.obj = obj                  # the Queue (None: the event handler)
        self.hobj = hobj
        self.fn: Callable[..., Any] = cbd.CallbackFunction
        self.area = cbd.CallbackArea
        self.options = cbd.Options
        self.max_len = cbd.MaxMsgLength
        self.md = md.copy()
        self.gmo = gmo.copy()
        self.suspended = suspended
        self.paused_until = 0.0         # suspended for a passing condition (MQCS_SUSPENDED_TEMPORARY)
        self.quiesced = False           # MQCLOSE(MQCO_QUIESCE) refused while it held messages
        self.batch = obj is not None and batched(md, gmo, cbd.MaxMsgLength)
        self.ahead = obj._consumer_buffer() if obj is not None else None
        self.singles: deque[tuple[int, int, int, bytes, bytes]] = deque()   # (comp, reason, length, MQMD, data)
        wait = gmo.WaitInterval if gmo.Options & C.MQGMO_WAIT else C.MQWI_UNLIMITED
        self.wait = None if wait == C.MQWI_UNLIMITED or wait < 0 else wait / 1000.0
        self.since = time.monotonic()   # the last message or 2033: its wait interval counts from here

    def active(self, now: float) -> bool:
        """Registered, not suspended, and with messages to come (a quiesced handle's are the
        ones it holds)."""
        return not self.suspended and now >= self.paused_until and (not self.quiesced or self.held() > 0)

    def held(self) -> int:
        return len(self.ahead.buffer) if self.batch and self.ahead is not None else len(self.singles)


class Delivery:
    """Calling the application's functions, one at a time, as ibmmq calls them (the Dispatcher's
    half that builds the MQCBC, MQMD and MQGMO of each call)."""

    qmgr: Connection
    events: Callback | None
    conn_area: Any
    in_callback: bool
    generation: int
    ahead_sent: bool
    _ask_ahead: Callable[[], None]              # (the Dispatcher's)

    def told(self, comp: int, reason: int, delay: int) -> None:
        """The event handler told about the connection (reconnecting, reconnected, failed)."""
        handler = self.events
        if handler is None or handler.suspended:
            return
        cbc = CBC(CallType=C.MQCBCT_EVENT_CALL, Hobj=C.MQHO_NONE, CallbackArea=handler.area,
                  ConnectionArea=self.conn_area, CompCode=comp, Reason=reason, State=call_state(reason),
                  ReconnectDelay=delay)
        self._call(handler, MD(), GMO(), None, cbc)

    def _deliver(self, cb: Callback) -> None:
        md = _MD_NEW(MD)
        gmo = cb.gmo.copy()
        cbc = _CBC_NEW(CBC)
        d = cbc.__dict__
        d.update(_CBC_DEFAULTS)
        d["Hobj"], d["CallbackArea"], d["ConnectionArea"] = cb.hobj, cb.area, self.conn_area
        if cb.batch:
            ra = cb.ahead
            assert ra is not None
            md_bytes, body, ahead = ra.buffer.popleft()
            ra.consumed += ahead
            ra.in_unit += 1
            d["CallType"] = C.MQCBCT_MSG_REMOVED
            length = len(body)
        else:
            comp, reason, length, md_bytes, body = cb.singles.popleft()
            removed = not gmo.Options & _BROWSING and reason != C.MQRC_TRUNCATED_MSG_FAILED
            d["CallType"] = C.MQCBCT_MSG_REMOVED if removed else C.MQCBCT_MSG_NOT_REMOVED
            d["CompCode"], d["Reason"], d["State"] = comp, reason, call_state(reason)
            if reason == C.MQRC_TRUNCATED_MSG_FAILED:
                cb.suspended = True
                self.generation += 1
        md.hold(md_bytes)
        gmo.__dict__["ReturnedLength"] = len(body)
        d["DataLength"], d["BufferLength"] = length, len(body)
        if cb.quiesced and not cb.held():
            d["Flags"] = C.MQCBCF_READA_BUFFER_EMPTY
        self._call(cb, md, gmo, body, cbc)
        if cb.wait is not None:
            cb.since = time.monotonic()
        if cb.batch and not self.ahead_sent and cb.held() < CREDIT // 2:
            self._ask_ahead()

    def _event(self, cb: Callback, comp: int, reason: int, state: int | None = None) -> None:
        cbc = CBC(CallType=C.MQCBCT_EVENT_CALL, Hobj=cb.hobj, CallbackArea=cb.area, ConnectionArea=self.conn_area,
                  CompCode=comp, Reason=reason, State=call_state(reason) if state is None else state)
        self._call(cb, MD(), GMO(), None, cbc)

    def _control_call(self, cb: Callback, call_type: int, reason: int = 0, hobj: int | None = None) -> None:
        cbc = CBC(CallType=call_type, Hobj=cb.hobj if hobj is None else hobj, CallbackArea=cb.area,
                  ConnectionArea=self.conn_area, Reason=reason,
                  CompCode=C.MQCC_FAILED if reason else C.MQCC_OK,
                  State=C.MQCS_STOPPED if call_type == C.MQCBCT_STOP_CALL else C.MQCS_NONE)
        self._call(cb, MD(), GMO(), None, cbc)

    def _call(self, cb: Callback, md: MD, gmo: GMO, msg: bytes | None, cbc: CBC) -> None:
        """The application's function, as ibmmq calls it; the areas it changes are kept. A
        function that raises: the traceback on stderr and the event handler told
        MQRC_CALLBACK_ROUTINE_ERROR (the message it was given counts as consumed)."""
        queue = cb.obj
        qmgr = self.qmgr if queue is None else queue.get_queue_manager()
        outer = self.in_callback
        self.in_callback = True
        try:
            cb.fn(queue_manager=qmgr, queue=queue, md=md, gmo=gmo, msg=msg, cbc=cbc)
        except Exception:
            traceback.print_exc(file=sys.stderr)
            handler = self.events
            if handler is not None and handler is not cb:
                self._event(handler, C.MQCC_FAILED, C.MQRC_CALLBACK_ROUTINE_ERROR, C.MQCS_NONE)
        finally:
            self.in_callback = outer
        cb.area = cbc.CallbackArea
        self.conn_area = cbc.ConnectionArea


class Dispatcher(Delivery):
    """MQCTL and the callbacks of one connection (``QueueManager._async``)."""

    def __init__(self, qmgr: Connection) -> None:
        self.qmgr = qmgr
        self.consumers: dict[int, Callback] = {}
        self.events: Callback | None = None
        self.state = STOPPED
        self.conn_area: Any = 0
        self.owner: int | None = None       # the thread running the callbacks while started
        self.in_callback = False
        self.waiting = False                # a CONSUME that may wait is on the wire
        self.wait_mode = False              # MQOP_START_WAIT: the loop runs on MQCTL's caller
        self.thread: threading.Thread | None = None
        self.generation = 0                 # bumped when the callbacks or their states change
        self.lock = threading.Condition()
        self.ahead_sent = False              # a CONSUME without a wait asked ahead, reply not read

    # --- MQCB ------------------------------------------------------------------------------------
    def cb(self, obj: Any, hobj: int, op: int, cbd: CBD, md: MD, gmo: GMO) -> None:
        self.check_thread()
        self.generation += 1
        if not isinstance(cbd, CBD) and op & C.MQOP_REGISTER:
            raise TypeError("cbd must be an instance of CBD")
        key = hobj if obj is not None else None
        old = self.consumers.get(hobj) if key is not None else self.events
        reg, susp, reason = register(old is not None, bool(old and old.suspended), op)
        if reason:
            raise MQMIError(C.MQCC_FAILED, reason)
        if op & C.MQOP_REGISTER:
            ctype = cbd.CallbackType
            if ctype not in (C.MQCBT_MESSAGE_CONSUMER, C.MQCBT_EVENT_HANDLER) or \
                    (ctype == C.MQCBT_MESSAGE_CONSUMER) != (obj is not None):
                raise MQMIError(C.MQCC_FAILED, C.MQRC_CALLBACK_TYPE_ERROR)
            if not callable(cbd.CallbackFunction):
                raise MQMIError(C.MQCC_FAILED, C.MQRC_CALLBACK_ROUTINE_ERROR)
            if cbd.MaxMsgLength < C.MQCBD_FULL_MSG_LENGTH:
                raise MQMIError(C.MQCC_FAILED, C.MQRC_MAX_MSG_LENGTH_ERROR)
            new = Callback(obj, hobj, cbd, md, gmo, susp)
            if old is not None and old.ahead is not None:
                self._give_back(old)
            if key is None:
                self.events = new
            else:
                self.consumers[hobj] = new
            if old is None and new.options & C.MQCBDO_REGISTER_CALL:
                self._control_call(new, C.MQCBCT_REGISTER_CALL)
            if self.state == STARTED and new.obj is not None and new.options & C.MQCBDO_START_CALL and old is None:
                self._control_call(new, C.MQCBCT_START_CALL)
        elif op == C.MQOP_DEREGISTER:
            assert old is not None
            self.deregister(old, hobj)
        else:
            assert old is not None
            old.suspended = susp
            if not susp:
                old.since = time.monotonic()
            with self.lock:
                self.lock.notify_all()

    def deregister(self, cb: Callback, hobj: int) -> None:
        """The callback is gone (MQCB DEREGISTER, MQCLOSE of its handle, MQDISC): messages it
        held go back to the queue, and it is told last, if it asked to be."""
        if cb.obj is None:
            self.events = None
        else:
            self.consumers.pop(cb.hobj, None)
            self._give_back(cb)
        if cb.options & C.MQCBDO_DEREGISTER_CALL:
            self._control_call(cb, C.MQCBCT_DEREGISTER_CALL, hobj=hobj)

    def closing(self, hobj: int, options: int) -> bool:
        """MQCLOSE of a handle with a consumer: True when it must wait (MQCO_QUIESCE while the
        consumer still holds messages: MQRC_READ_AHEAD_MSGS; they are delivered, the last with
        MQCBCF_READA_BUFFER_EMPTY). Otherwise the consumer is deregistered."""
        cb = self.consumers.get(hobj)
        if cb is None:
            return False
        self.generation += 1
        if options & C.MQCO_QUIESCE and cb.held():
            cb.quiesced = True
            return True
        self.deregister(cb, C.MQHO_UNUSABLE_HOBJ)
        return False

    # --- MQCTL -----------------------------------------------------------------------------------
    def ctl(self, op: int, ctlo: CTLO | None) -> None:
        me = threading.get_ident()
        inside = self.owner == me
        if op not in (C.MQOP_STOP, C.MQOP_SUSPEND):
            self.check_thread()
        if ctlo is not None and not isinstance(ctlo, CTLO):
            raise TypeError("ctlo must be an instance of CTLO")
        now = time.monotonic()
        active = sum(1 for c in self.consumers.values() if c.active(now))
        state, reason = control(self.state, op, inside, active)
        if reason:
            raise MQMIError(C.MQCC_FAILED, reason)
        if ctlo is not None and op in (C.MQOP_START, C.MQOP_START_WAIT):
            self.conn_area = ctlo.ConnectionArea
        before, self.state = self.state, state
        self.generation += 1
        if op == C.MQOP_START and before == STOPPED:
            if inside:
                return                      # (a STOP issued by this callback is cancelled)
            self.thread = threading.Thread(target=self._run, name=f"mqlite-consume-{self.qmgr.get_name()}",
                                           daemon=True)
            with self.lock:
                self.owner = -1             # taken: the thread says which it is when it runs
            self.thread.start()
            return
        if op == C.MQOP_START_WAIT:
            self.wait_mode = True
            try:
                self._run()
            finally:
                self.wait_mode = False
            if self.state == SUSPENDED:
                raise MQMIError(C.MQCC_WARNING, C.MQRC_CONNECTION_SUSPENDED)
            if self.stop_reason:
                raise MQMIError(C.MQCC_FAILED, self.stop_reason)
            return
        with self.lock:
            self.lock.notify_all()
        if op in (C.MQOP_STOP, C.MQOP_SUSPEND) and not inside:
            self._interrupt()
            if op == C.MQOP_STOP:
                self._join()
            else:
                with self.lock:                 # the callback in progress, if any, finishes first
                    while self.in_callback or self.waiting:
                        self.lock.wait(0.05)

    stop_reason = 0

    def stop(self) -> None:
        """MQDISC: stop first (from any thread), then every callback is deregistered."""
        if self.state != STOPPED:
            self.state = STOPPED
            if self.owner != threading.get_ident():
                self._interrupt()
                self._join()
        for cb in list(self.consumers.values()):
            self.deregister(cb, C.MQHO_UNUSABLE_HOBJ)
        if self.events is not None:
            self.deregister(self.events, C.MQHO_UNUSABLE_HOBJ)

    def remap(self, handles: dict[int, int]) -> None:
        """After a reconnect: the consumers' new handles; what they held is gone with the old
        connection (the queue manager gave it back)."""
        moved = {}
        for cb in self.consumers.values():
            cb.hobj = handles.get(cb.hobj, cb.hobj)
            cb.singles.clear()
            cb.since = time.monotonic()
            moved[cb.hobj] = cb
        self.consumers = moved
        self.ahead_sent = False
        self.generation += 1

    def _interrupt(self) -> None:
        transport = self.qmgr._transport
        with self.lock:
            if self.waiting and transport is not None:
                transport.cancel()

    def _join(self) -> None:
        t = self.thread
        if t is not None and t is not threading.current_thread():
            t.join()
        self.thread = None

    def check_thread(self) -> None:
        """Any MQI call but MQCTL STOP/SUSPEND and MQDISC: only the callbacks' own while started."""
        if self.owner is not None and self.owner != threading.get_ident() and self.state == STARTED:
            raise MQMIError(C.MQCC_FAILED, C.MQRC_HCONN_ASYNC_ACTIVE)

    # --- the loop ---------------------------------------------------------------------------------
    def _run(self) -> None:
        with self.lock:
            self.owner = threading.get_ident()
        self.stop_reason = 0
        try:
            for cb in list(self.consumers.values()):
                if cb.options & C.MQCBDO_START_CALL:
                    self._control_call(cb, C.MQCBCT_START_CALL)
            if self.state == STOPPED and self.wait_mode:
                self.stop_reason = C.MQRC_CONNECTION_STOPPED
            while self.state != STOPPED:
                if self.state == SUSPENDED:
                    if self.wait_mode:
                        return
                    with self.lock:
                        while self.state == SUSPENDED:
                            self.lock.wait()
                    continue
                now = time.monotonic()
                live = [c for c in self.consumers.values() if c.active(now)]
                if not live:
                    if self.wait_mode:
                        self.stop_reason = C.MQRC_NO_CALLBACKS_ACTIVE
                        self.state = STOPPED
                        return
                    paused = [c.paused_until for c in self.consumers.values() if not c.suspended and not c.quiesced]
                    with self.lock:
                        if self.state == STARTED:
                            self.lock.wait(max(0.0, min(paused) - now) if paused else None)
                    continue
                try:
                    self._round(live, now)
                except TransportError as e:
                    recon = self.qmgr._recon
                    if recon is None:
                        raise
                    self.ahead_sent = False
                    recon.again(e)          # (the consumers' handles remapped: the loop goes on)
        except TransportError as e:
            self._broken(failure(e).reason)
        except MQMIError as e:              # reconnecting failed (MQRC_RECONNECT_FAILED)
            self._broken(e.reason)
        finally:
            for cb in list(self.consumers.values()):
                self._give_back(cb)
            if self.state == STOPPED or self.stop_reason:
                for cb in list(self.consumers.values()):
                    if cb.options & C.MQCBDO_STOP_CALL:
                        self._control_call(cb, C.MQCBCT_STOP_CALL, reason=self.stop_reason)
            with self.lock:
                self.owner = None
                self.lock.notify_all()

    def _round(self, live: list[Callback], now: float) -> None:
        """A pass: each consumer holding a message is given one (alone, it goes on while it holds
        messages); when none holds any, the queue manager is asked for more."""
        gen = self.generation
        delivered = False
        for cb in live:
            while cb.held() and self.state is STARTED and self.generation == gen:
                self._deliver(cb)
                delivered = True
                if len(live) > 1:
                    break
        if not delivered and self.state is STARTED and self.generation == gen:
            self._fetch(live, now)

    def _entry(self, cb: Callback, ahead: bool) -> tuple[int, bytes] | None:
        if cb.quiesced:
            return None
        if cb.batch:
            ra = cb.ahead
            assert ra is not None
            ra.under_sync = bool(cb.gmo.Options & C.MQGMO_SYNCPOINT)
            want = ra._batch_size() if ra.under_sync else CREDIT - len(ra.buffer)
            if want <= 0 or (ahead and len(ra.buffer) >= want // 2):
                return None
            flags = (P.BATCH_SYNCPOINT if ra.under_sync else P.BATCH_HOLD) | (P.BATCH_SPECULATIVE if ahead else 0)
            gmo = cb.gmo.copy()
            gmo.Options &= ~C.MQGMO_WAIT
            payload = V.GetBatch.request(cb.hobj, ra.consumed, want, CREDIT_BYTES, flags, gmo)
            ra.consumed = 0
            return P.CONSUME_BATCH, payload
        if ahead or cb.singles:
            return None
        gmo = cb.gmo.copy()
        gmo.Options &= ~C.MQGMO_WAIT
        return P.CONSUME_GET, V.Get.request(cb.hobj, cb.max_len if cb.max_len >= 0 else BIG, gmo, cb.md.copy())

    def _fetch(self, live: list[Callback], now: float) -> None:
        """Ask the queue manager for messages for every consumer, waiting until one has some or
        the first consumer's wait interval ends (MQRC_NO_MSG_AVAILABLE to those whose has)."""
        transport = self.qmgr._transport
        if transport is None:
            raise TransportError(C.MQRC_CONNECTION_BROKEN, "not connected")
        if self.ahead_sent:
            transport.collect()
            if any(c.held() for c in live):
                return
        entries = [(cb, e) for cb in live if (e := self._entry(cb, False)) is not None]
        waits = [cb.since + cb.wait - now for cb in live if cb.wait is not None]
        wait_ms = -1 if not waits else max(0, int(min(waits) * 1000))
        payload = V.Consume.request(wait_ms, [e for _, e in entries])
        with self.lock:
            if self.state != STARTED:
                return
            self.waiting = True
        if any(c.gmo.Options & C.MQGMO_SYNCPOINT for c, _e in entries):
            self.qmgr._dirty = True
        try:
            reply = transport.call(P.CONSUME, payload)
        finally:
            with self.lock:
                self.waiting = False
                self.lock.notify_all()
        self._fill([cb for cb, _ in entries], reply)
        later = time.monotonic()
        for cb in live:
            if cb.wait is not None and not cb.held() and later >= cb.since + cb.wait and cb.active(later):
                cb.since = later
                self._event(cb, C.MQCC_FAILED, C.MQRC_NO_MSG_AVAILABLE)

    def _ask_ahead(self) -> None:
        """Read-ahead consumers running low: their next batches asked for now, without a wait,
        and read with the next request."""
        if self.ahead_sent or self.state != STARTED:
            return
        now = time.monotonic()
        entries = [(cb, e) for cb in self.consumers.values() if cb.batch and cb.active(now)
                   and (e := self._entry(cb, True)) is not None]
        if not entries or self.qmgr._transport is None:
            return
        cbs = [cb for cb, _ in entries]
        self.ahead_sent = True

        def filled(reply: bytes) -> None:
            self.ahead_sent = False
            self._fill(cbs, reply)
        self.qmgr._transport.post(P.CONSUME, V.Consume.request(0, [e for _, e in entries]), filled)

    def _fill(self, cbs: list[Callback], reply: bytes) -> None:
        for cb, answer in zip(cbs, V.Consume.parse_reply(reply)):
            if not answer:
                continue
            comp, reason = P.II.unpack_from(answer)
            if len(answer) == 8 and comp == C.MQCC_FAILED:
                self._failed(cb, reason)
            elif cb.batch:
                assert cb.ahead is not None
                cb.ahead.buffer.extend(V.GetBatch.parse_reply(answer))
            else:
                comp, reason, length = P.III.unpack_from(answer)
                off = 12 + P.GMO_LEN
                md_bytes = answer[off:off + P.MD_LEN]
                (n,) = P.I1.unpack_from(answer, off + P.MD_LEN)
                body = answer[off + P.MD_LEN + 4 + max(n, 0):]
                cb.singles.append((comp, reason, length, md_bytes, body))
                if cb.gmo.Options & C.MQGMO_BROWSE_FIRST:
                    cb.gmo.Options = cb.gmo.Options & ~C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT

    def _failed(self, cb: Callback, reason: int) -> None:
        self.generation += 1
        if reason == C.MQRC_OPTIONS_ERROR and cb.batch:
            cb.batch = False                # a shared queue or a selector: got one at a time instead
            return
        state = call_state(reason)
        if state == C.MQCS_STOPPED:
            self._broken(reason)
            return
        if state == C.MQCS_SUSPENDED_TEMPORARY:
            cb.paused_until = time.monotonic() + RETRY
        elif state != C.MQCS_NONE:
            cb.suspended = True
        self._event(cb, C.MQCC_FAILED, reason, state)

    def _broken(self, reason: int) -> None:
        """The connection or queue manager ends: the event handler is told (each consumer when
        there is none), and consuming stops."""
        self.stop_reason = reason
        self.state = STOPPED
        targets = [self.events] if self.events is not None else list(self.consumers.values())
        for cb in targets:
            if cb is not None and not cb.suspended:
                self._event(cb, C.MQCC_FAILED, reason, C.MQCS_STOPPED)

    def _give_back(self, cb: Callback) -> None:
        """Messages a consumer holds and has not been given go back to the queue in order (its
        handle's read-ahead is settled: the consumed ones acknowledged)."""
        ra = cb.ahead
        if ra is None or self.qmgr._transport is None or cb.obj.get_handle() is None:
            return
        try:
            if self.ahead_sent:
                self.qmgr._transport.collect()
            ra.settle(cb.hobj)
        except (TransportError, MQMIError):
            pass
        cb.singles.clear()


class CallbackFace:
    """ibmmq's ``cb`` and ``ctl`` on the connection (pymqi has none): QueueManager's part."""

    _transport: Transport | None
    _async: Dispatcher | None
    _recon: Any
    _dirty: bool
    get_name: Callable[[], str]                 # (QueueManager's: with these it is a Connection)

    def cb(self, **kwargs: Any) -> None:
        """MQCB on the connection: ``cb(operation=, cbd=)`` registers (or deregisters, suspends,
        resumes) the event handler (MQCBT_EVENT_HANDLER); message consumers are registered with
        ``Queue.cb``."""
        self._callbacks().cb(None, C.MQHO_NONE, int(kwargs.get("operation", C.MQOP_REGISTER)),
                             kwargs.get("cbd") or CBD(), MD(), GMO())

    def ctl(self, operation: int, ctlo: Any = None) -> None:
        """MQCTL: MQOP_START (the callbacks run on a thread of the client's), MQOP_START_WAIT (on
        this one, until they stop), MQOP_STOP, MQOP_SUSPEND, MQOP_RESUME."""
        self._callbacks().ctl(operation, ctlo)

    def _told(self, comp: int, reason: int, delay: int) -> None:
        """Reconnection's news for the event handler (reconnect.py)."""
        if self._async is not None:
            self._async.told(comp, reason, delay)

    def _callbacks(self) -> Dispatcher:
        if self._transport is None:
            raise PYIFError("not connected")
        if self._async is None:
            self._async = Dispatcher(self)
        return self._async

