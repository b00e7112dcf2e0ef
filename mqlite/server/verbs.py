"""The MQI verbs a client or local-bindings session serves: one function per frame type, each
decoding its request, calling the engine through the session (``s.call``: under the engine lock,
then durable) and encoding the reply. ``DISPATCH`` maps frame types to them; ``s`` is the
session (server/ports.py ``SessionPort``: server/session.py's ``Session``)."""
from __future__ import annotations

import os
import time
from typing import Any

from mqlite.admin import dump
from mqlite.cluster import routelog
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import GMO
from mqlite.engine.core import INPUT_OPTS, Conn
from mqlite.engine.events import Issuer
from mqlite.engine.mqistats import handle_type
from mqlite.engine.statistics import get_wait_ended
from mqlite.mqsc.commands import pcf_equivalent
from mqlite.net import protocol as P
from mqlite.net import verbs as V
from mqlite.server.dispatch import WouldBlock
from mqlite.server.ports import SessionPort
from mqlite.server.secops import secop
from mqlite.server.waits import WAITS

WAIT_SLICE = 0.5          # a waiting MQGET checks its connection at least this often


def counted(s: SessionPort, fn: Any, ok: str, failed: str, index: Any = None) -> Any:
    """``fn`` (an engine call an application made) with its outcome told to the queue manager's
    observers (``qm.observers.call``: the MQI statistics and the connection's accounting), under
    the engine lock the call runs under; ``index(conn)``: the entry of a list by object type."""
    observe = s.server.qm.observers.call

    def call(conn: Conn, *args: Any) -> Any:
        # (both taken before the call: an MQCLOSE ends the handle the index reads, an MQDISC the accounting)
        where = index(conn) if index is not None else None
        acct = conn.acct
        try:
            result = fn(conn, *args)
        except MQIError:
            observe(ok, failed, False, where, acct)
            raise
        observe(ok, failed, True, where, acct)
        return result
    return call


def _open(s: SessionPort, p: bytes) -> bytes:
    options, od = V.Open.parse_request(p)
    try:
        h = s.call(counted(s, s.server.qm.open, "opens", "open_fails", lambda _c: od.ObjectType), od, options)
    except MQIError as e:
        return s.failed(e)
    flags = (P.OPEN_ASYNC_PUT if h.async_put else 0) | (P.OPEN_READ_AHEAD if h.read_ahead_ok else 0) | _holds(h)
    return V.Open.reply(h.hobj, flags, od)


def _holds(h: Any) -> int:
    """OPEN_HOLD when gets on the handle can be held (GET_BATCH with BATCH_HOLD): input from a local
    queue of this queue manager, with no selector."""
    qs = h.qstate
    return P.OPEN_HOLD if h.options & INPUT_OPTS and qs is not None and not qs.shared and h.selector is None else 0


def _sub(s: SessionPort, p: bytes) -> bytes:
    hobj, sd = V.Sub.parse_request(p)
    try:
        h, qh = s.call(counted(s, s.server.qm.subscribe, "subs_dur" if sd.Options & C.MQSO_DURABLE else "subs_ndur",
                                "sub_fails"), sd, hobj)
    except MQIError as e:
        return s.failed(e)
    queue = s.conn.handles.get(qh) if s.conn is not None else None
    flags = (P.OPEN_READ_AHEAD if queue.read_ahead_ok else 0) | _holds(queue) if queue is not None else 0
    return V.Sub.reply(h.hobj, qh, flags, sd)


def _subrq(s: SessionPort, p: bytes) -> bytes:
    hsub, action = V.SubRq.parse_request(p)
    if action != C.MQSR_ACTION_PUBLICATION:
        return V.status(C.MQCC_FAILED, C.MQRC_OPTIONS_ERROR)
    try:
        count = s.call(counted(s, s.server.qm.request_publications, "subrqs", "subrq_fails"), hsub)
    except MQIError as e:
        return s.failed(e)
    return V.SubRq.reply(count)


def _close(s: SessionPort, p: bytes) -> bytes:
    hobj, options, consumed = V.Close.parse_request(p)
    qm = s.server.qm

    def close(conn: Conn) -> None:
        qm.settle(conn, hobj, consumed, release=True)
        qm.close(conn, hobj, options)
    return s.answer(counted(s, close, "closes", "close_fails", lambda conn: handle_type(conn.handles.get(hobj))))


def _putting(s: SessionPort, body: bytes, call: Any, reply: Any, *args: Any) -> bytes:
    """MQPUT and MQPUT1: the channel's MAXMSGL, the engine call ``call(conn, *args)``, which gives
    the warning reason and what ``reply`` answers with (a warning such as 2049 comes with the
    full reply)."""
    if s.maxmsgl is not None and len(body) > s.maxmsgl:
        return V.status(C.MQCC_FAILED, C.MQRC_DATA_LENGTH_ERROR)
    try:
        warn, out = s.call(call, *args)
    except MQIError as e:
        return s.failed(e)
    return reply(C.MQCC_WARNING if warn else C.MQCC_OK, warn, out)


def _put(s: SessionPort, p: bytes) -> bytes:
    hobj, pmo, md, body = V.Put.split_request(p)       # (the engine reads the MQPMO and MQMD packed)
    return _putting(s, body, s.server.qm.put_request, V.Put.reply_packed, hobj, md, pmo, body)


ASYNC_RUN = 64        # asynchronous puts already received, made under one taking of the lock


def _put_async(s: SessionPort, p: bytes) -> None:
    """MQPUT with an asynchronous response, and the ones after it that have already arrived whole
    (up to ASYNC_RUN), under one taking of the server's lock: with two producers taking it per
    message, its handovers cost the server a third more CPU per message than one producer."""
    srv = s.server
    conn, reader = s.conn, s.reader
    assert conn is not None
    with srv.lock:
        put = srv.qm.put_async
        for n in range(1, ASYNC_RUN + 1):
            hobj, pmo, md, body = V.Put.split_request(p)      # (the engine reads the MQPMO and MQMD packed)
            put(conn, hobj, md, pmo, body)
            nxt = reader.take_buffered(P.PUT_ASYNC) if reader is not None and n < ASYNC_RUN else None
            if nxt is None:
                break
            p = nxt
            s.calls += 1
            s.bytes_in += len(p)
    return None


def _stat(s: SessionPort, p: bytes) -> bytes:
    return V.Json.reply(C.MQCC_OK, 0, s.call(counted(s, s.server.qm.stat, "stats", "stat_fails")))


def _put1(s: SessionPort, p: bytes) -> bytes:
    od, pmo, md, body = V.Put1.parse_request(p)
    return _putting(s, body, lambda conn: (s.server.qm.put1(conn, od, md, pmo, body), None),
                    lambda comp, reason, _out: V.Put1.reply(comp, reason, od, md, pmo))


def _waiting(s: SessionPort, hobj: int, gmo: GMO, attempt: Any, takes_any: Any = None) -> tuple[Any, int]:
    """Run ``attempt`` under the lock, waiting for a message as MQGMO_WAIT asks; (result, ticket).
    ``takes_any()``, asked once the call is to wait: whether the attempt takes any message there
    is (server/waits.py); without it, it does."""
    srv = s.server
    conn = s.conn
    assert conn is not None
    wait = gmo.Options & C.MQGMO_WAIT
    deadline = None
    if wait and gmo.WaitInterval != C.MQWI_UNLIMITED:
        deadline = time.monotonic() + gmo.WaitInterval / 1000.0
    watched: Any = None                   # the queue's condition, once this call has waited on it
    with srv.lock:
        try:
            while True:
                try:
                    result = attempt(conn)
                    if watched is not None and watched.waiters:
                        qs = srv.qm.queues.get(srv.qm.wait_queue(conn, hobj) or "")
                        if qs is not None and qs.visible:
                            watched.wake()      # more to take: the next waiter's turn
                    break
                except MQIError as e:
                    if e.reason != C.MQRC_NO_MSG_AVAILABLE or not wait:
                        raise
                    if srv.qm.quiescing:
                        raise MQIError(C.MQRC_Q_MGR_QUIESCING if gmo.Options & C.MQGMO_FAIL_IF_QUIESCING
                                       else C.MQRC_NO_MSG_AVAILABLE) from None
                    remaining = WAIT_SLICE if deadline is None else deadline - time.monotonic()
                    if remaining <= 0:
                        get_wait_ended(conn, hobj)
                        raise
                    qname = srv.qm.wait_queue(conn, hobj)
                    if qname is None:
                        raise
                    if s.inline:
                        raise WouldBlock from None      # the connection's own thread waits
                    cond = srv.cond_for(qname)
                    if watched is None:
                        WAITS.watch(s.sock, cond.rouse)
                        watched = cond
                        plain = takes_any is None or takes_any()
                        cond.plain += plain
                    conn.waiting = hobj                 # DISPLAY CONN: the handle is ACTIVE
                    try:
                        cond.wait(min(remaining, WAIT_SLICE))
                    finally:
                        conn.waiting = 0
                    if s.closed or _peer_gone(s):
                        raise ConnectionError("client went away during MQGET wait") from None
                    if _cancelled(s):
                        get_wait_ended(conn, hobj)
                        raise
        finally:
            if watched is not None:
                WAITS.unwatch(s.sock)
                watched.plain -= plain
        return result, conn.ticket


def _cancelled(s: SessionPort) -> bool:
    """Whether the client sent CANCEL during the wait (it may send nothing else while a call is in
    progress: a heartbeat's answer is passed over, anything more is a protocol error)."""
    reader = s.reader
    if reader is None or not (reader.buffered() or P.readable(s.sock, 0)):
        return False
    ftype, _ = reader.read()
    if ftype == P.CANCEL:
        return True
    if ftype == P.HEARTBEAT | P.REPLY:
        return False
    raise P.ProtocolError(f"frame type {ftype:#x} while an MQGET waits")


_PICKY = (C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR | C.MQGMO_LOGICAL_ORDER
          | C.MQGMO_ALL_MSGS_AVAILABLE | C.MQGMO_ALL_SEGMENTS_AVAILABLE | C.MQGMO_COMPLETE_MSG)
_NONE = b"\0" * 24


def _takes_any(s: SessionPort, hobj: int, gmo: GMO, md: Any) -> bool:
    """Whether this MQGET takes whatever message comes first: no browse, group or segment
    conditions, no identifiers to match, no selector."""
    h = s.conn.handles.get(hobj) if s.conn is not None else None
    return (h is not None and h.selector is None and not gmo.Options & _PICKY
            and md.MsgId == _NONE and md.CorrelId == _NONE and md.GroupId == _NONE
            and not (gmo.Version >= 2 and gmo.MatchOptions & (C.MQMO_MATCH_MSG_TOKEN | C.MQMO_MATCH_MSG_SEQ_NUMBER
                                                             | C.MQMO_MATCH_OFFSET)))


def _get(s: SessionPort, p: bytes) -> bytes:
    hobj, maxlen, gmo, md = V.Get.parse_request(p)
    qm = s.server.qm
    try:
        r, ticket = _waiting(s, hobj, gmo, lambda conn: qm.get(conn, hobj, md, gmo, maxlen),
                             lambda: _takes_any(s, hobj, gmo, md))
    except MQIError as e:
        return s.failed(e)
    s.due = max(s.due, ticket)
    return V.Get.reply(r.comp, r.reason, r.data_length, r.gmo, r.md, r.body, r.props)


def _get_batch(s: SessionPort, p: bytes) -> bytes:
    """Read-ahead: acknowledge consumed messages, then send up to max_msgs messages in one frame.

    With max_msgs 0 the messages the client still holds are released back to the queue."""
    hobj, acked, max_msgs, max_bytes, flags, gmo = V.GetBatch.parse_request(p)
    speculative = bool(flags & P.BATCH_SPECULATIVE)
    syncpoint = bool(flags & P.BATCH_SYNCPOINT)
    hold = bool(flags & P.BATCH_HOLD)
    qm = s.server.qm
    if max_msgs <= 0 or flags & P.BATCH_ACK:
        release = not flags & P.BATCH_ACK
        s.call(lambda conn: qm.settle(conn, hobj, acked, release=release))
        return V.GetBatch.reply((), 0)
    try:
        batch, ticket = _waiting(s, hobj, gmo, lambda conn: qm.get_batch(conn, hobj, acked, max_msgs, max_bytes,
                                                                        gmo, speculative, syncpoint, hold))
    except MQIError as e:
        return s.failed(e)
    s.due = max(s.due, ticket)
    return V.GetBatch.reply(batch, len(batch))


def _browse_batch(s: SessionPort, p: bytes) -> bytes:
    """Browse up to max_msgs messages in one frame (mqlite's extension, for bulk readers)."""
    hobj, first, max_msgs, max_bytes = V.BrowseBatch.parse_request(p)
    qm = s.server.qm
    try:
        batch = s.call(lambda conn: qm.browse_batch(conn, hobj, bool(first), max(0, max_msgs), max_bytes))
    except MQIError as e:
        return s.failed(e)
    return V.BrowseBatch.reply(batch)


def _stream(s: SessionPort, p: bytes) -> bytes:
    """A queue read by position: mark (the end of the next range), read a range, delete a range
    (outside or inside the unit of work)."""
    hobj, op, start, end, max_msgs, max_bytes = V.Stream.parse_request(p)
    qm = s.server.qm
    try:
        if op in (P.STREAM_MARK, P.STREAM_MARK_COMMITTED):
            mark = s.call(qm.streams.mark, hobj, start, max_msgs, op == P.STREAM_MARK_COMMITTED)
            return V.Stream.mark_reply(*mark)
        if op in (P.STREAM_DELETE, P.STREAM_DELETE_SYNCPOINT):
            return V.Stream.delete_reply(s.call(qm.streams.delete, hobj, start, end, op == P.STREAM_DELETE_SYNCPOINT))
        if op != P.STREAM_READ:
            raise P.ProtocolError(f"STREAM operation {op}")
        batch = s.call(qm.streams.read, hobj, start, end, max(1, max_msgs), max_bytes)
    except MQIError as e:
        return s.failed(e)
    return V.Stream.read_reply(batch)


def _xa(s: SessionPort, p: bytes) -> bytes:
    """Two-phase units of work: {"op": "prepare", "xid", "settle": [[hobj, consumed], ...]},
    {"op": "resolve", "commit": [...], "backout": [...], "prefix", "mark": [name, batch], "end",
    "commit_prefix"} or
    {"op": "list"}; the reply is the completion and reason codes, then a JSON answer."""
    req = V.Json.parse_request(p)
    if not isinstance(req, dict):
        raise P.ProtocolError("XA request")
    qm = s.server.qm
    op = req.get("op")

    def prepare(conn: Conn) -> int:
        for hobj, consumed in req.get("settle") or []:
            qm.settle(conn, int(hobj), int(consumed), release=True)
        return qm.prepare(conn, str(req.get("xid", "")))
    try:
        if op == "prepare":
            answer: Any = {"messages": s.call(prepare)}
        elif op == "resolve":
            mark = req.get("mark")
            answer = s.call(qm.resolve_prepared, [str(x) for x in req.get("commit") or []],
                             [str(x) for x in req.get("backout") or []], str(req.get("prefix") or ""),
                             (str(mark[0]), int(mark[1])) if mark else None, bool(req.get("end")),
                             str(req.get("commit_prefix") or ""))
        elif op == "list":
            answer = {"units": s.call(lambda conn: qm.prepared_units())}
        else:
            raise P.ProtocolError(f"unknown XA operation {op!r}")
    except MQIError as e:
        return V.Json.reply(e.comp, e.reason, {"detail": e.detail or ""})
    except (TypeError, ValueError, IndexError) as e:
        raise P.ProtocolError(f"XA request: {e}") from None
    return V.Json.reply(C.MQCC_OK, 0, answer)


def _peer_gone(s: SessionPort) -> bool:
    if s.reader is not None and s.reader.buffered():
        return False
    return P.peer_closed(s.sock)


def _inq(s: SessionPort, p: bytes) -> bytes:
    hobj, selectors = V.Inq.parse_request(p)
    try:
        values, reason = s.call(counted(s, s.server.qm.inquire_reason, "inqs", "inq_fails",
                                         lambda conn: handle_type(conn.handles.get(hobj))), hobj, selectors)
    except MQIError as e:
        return s.failed(e)
    return V.Inq.reply(values, reason)


def _set(s: SessionPort, p: bytes) -> bytes:
    hobj, selectors, values = V.Set.parse_request(p)
    return s.answer(counted(s, s.server.qm.set, "sets", "set_fails", lambda conn: handle_type(conn.handles.get(hobj))),
                     hobj, selectors, values)


def _release_then(s: SessionPort, p: bytes, end: Any) -> bytes:
    """MQCMIT/MQBACK: first give back read-ahead messages under syncpoint that the client did not
    consume (payload: count, then (hobj, consumed) pairs), then end the unit of work."""
    pairs = V.EndUnit.parse_request(p)
    qm = s.server.qm

    def run(conn: Conn) -> None:
        for hobj, consumed in pairs:
            qm.settle(conn, hobj, consumed, release=True)
        end(conn)
    return s.answer(run)


def _cmit(s: SessionPort, p: bytes) -> bytes:
    return _release_then(s, p, counted(s, s.server.qm.commit, "commits", "commit_fails"))


def _back(s: SessionPort, p: bytes) -> bytes:
    return _release_then(s, p, counted(s, s.server.qm.backout, "backs", ""))     # (MQ counts no failed MQBACK)


def _mqsc(s: SessionPort, p: bytes) -> bytes:
    text = p.decode("utf-8", "replace")
    srv = s.server
    with srv.lock:
        events = srv.qm.events
        with events.issued(Issuer(s.control_user, F.MQEVO_CONSOLE)):
            result = srv.executor.run(text)
            if result.status == "ok":
                command, display = pcf_equivalent(text)
                events.commanded(C.MQRC_COMMAND_MQSC, command, [pcf.enc_str(F.MQCACF_COMMAND_MQSC, text.strip())],
                                 display)
        ticket = srv.store.last_ticket
    srv.store.sync(ticket)
    if result.status != "ok":
        srv.log.write("AMQ8101S" if result.status == "error" else "AMQ8405I",
                      f"MQSC command failed: {text[:200]}", "\n".join(result.lines))
    return P.encode_json({"status": result.status, "lines": result.lines})


def _control(s: SessionPort, p: bytes) -> bytes:
    req = P.decode_json(p)
    op = req.get("op") if isinstance(req, dict) else None
    srv = s.server
    if op == "end":
        immediate, reconnect = bool(req.get("immediate")), bool(req.get("reconnect"))
        s.after_reply = lambda: srv.shutdown(immediate=immediate, reconnect=reconnect)
        return P.encode_json({"ok": True})
    if op == "status":
        with srv.sessions_lock:
            apps = sum(1 for x in srv.sessions if x.conn is not None)
        return P.encode_json({"ok": True, "status": "Quiescing" if srv.stopping.is_set() else "Running",
                              "connections": apps, "pid": os.getpid()})
    if op == "wlmrecent":            # mqweb's cluster view: the workload algorithm's latest choices
        with srv.lock:
            recent = {q: [list(c) for c in d] for q, d in srv.qm.cluster.recent.items()}
        return P.encode_json({"ok": True, "recent": recent})
    if op == "routing":              # mqlite whatif record: the workload algorithm's routing log on or off
        path = os.path.join(srv.paths.root, "routing", routelog.LOG_NAME)
        with srv.lock:
            cl = srv.qm.cluster
            cl.routing = routelog.switch(cl.routing, path if req.get("on") else None, srv.qm.name, cl.use,
                                         srv.qm.clock.now())
        return P.encode_json({"ok": True, "path": path, "on": bool(req.get("on"))})
    if op in ("setusr", "dspusr", "setaut", "dspaut", "dmpaut", "authenticate"):
        return P.encode_json(secop(srv, req))
    if op == "dmpcfg":
        opts = req.get("opts") or {}
        try:
            options = dump.Options(**{k: v for k, v in opts.items() if k in dump.Options.__dataclass_fields__})
        except TypeError:
            return P.encode_json({"ok": False, "msg": "dmpmqcfg: options not valid."})
        with srv.lock:
            lines = dump.dump(srv.qm, options, str(req.get("command") or "dmpmqcfg"))
        return P.encode_json({"ok": True, "lines": lines})
    raise P.ProtocolError(f"unknown control operation {op!r}")


DISPATCH = {P.OPEN: _open, P.CLOSE: _close, P.PUT: _put, P.PUT1: _put1, P.GET: _get, P.INQ: _inq,
            P.PUT_ASYNC: _put_async, P.GET_BATCH: _get_batch, P.STAT: _stat, P.BROWSE_BATCH: _browse_batch,
            P.STREAM: _stream, P.XA: _xa, P.SET: _set, P.CMIT: _cmit, P.BACK: _back, P.MQSC: _mqsc, P.CONTROL: _control,
            P.SUB: _sub, P.SUBRQ: _subrq}
