"""CONSUME: the queue manager's side of asynchronous consume (MQCB/MQCTL, mqlite/pymqi/consume.py).

One request carries an entry per started consumer of the connection: a read-ahead batch (a
GET_BATCH request: messages held for the client until it acknowledges them, or taken under its
unit of work) or, where read-ahead cannot serve (a selector, a match on identifiers, browse, a
shared queue, a message length), one MQGET without a wait. Every entry is tried under one taking
of the engine lock; when none has anything the request waits on all their queues at once (the
queues' conditions tell this wait too: server/waits.py) and is answered as soon as any has a
message, its wait ends, the client sends CANCEL (MQCTL STOP or SUSPEND from another thread) or the
connection ends. So messages go to the client as they arrive, never by a polling loop, and no
consumer is answered with more than the messages it asked for (its credit)."""
from __future__ import annotations

import time

from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.engine.core import Conn
from mqlite.net import protocol as P
from mqlite.net import verbs as V
from mqlite.server.ports import SessionPort
from mqlite.server.verbs import WAIT_SLICE, _cancelled, _peer_gone
from mqlite.server.waits import WAITS, QueueCondition


def _attempt(s: SessionPort, conn: Conn, kind: int, payload: bytes, first: bool) -> bytes:
    """One entry, engine lock held: its reply, or b"" when it found nothing."""
    qm = s.server.qm
    if kind == P.CONSUME_BATCH:
        hobj, acked, max_msgs, max_bytes, flags, gmo = V.GetBatch.parse_request(payload)
        try:
            batch = qm.get_batch(conn, hobj, acked if first else 0, max_msgs, max_bytes, gmo,
                                 bool(flags & P.BATCH_SPECULATIVE), bool(flags & P.BATCH_SYNCPOINT),
                                 bool(flags & P.BATCH_HOLD))
        except MQIError as e:
            if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                return b""
            return V.status(e.comp, e.reason)
        return V.GetBatch.reply(batch, len(batch)) if batch else b""
    if kind == P.CONSUME_GET:
        hobj, maxlen, gmo, md = V.Get.parse_request(payload)
        gmo.Options &= ~C.MQGMO_WAIT
        try:
            r = qm.get(conn, hobj, md, gmo, maxlen)
        except MQIError as e:
            if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                return b""
            return V.status(e.comp, e.reason)
        return V.Get.reply(r.comp, r.reason, r.data_length, r.gmo, r.md, r.body, r.props)
    raise P.ProtocolError(f"CONSUME entry kind {kind}")


def _quiescing(kind: int, payload: bytes) -> bool:
    """Whether the entry's get asks to fail while the queue manager is quiescing."""
    off = V.BATCH_REQ.size if kind == P.CONSUME_BATCH else 8
    gmo_options = P.I1.unpack_from(payload, off + 8)[0]        # MQGMO: StrucId, Version, Options
    return bool(gmo_options & C.MQGMO_FAIL_IF_QUIESCING)


def consume(s: SessionPort, p: bytes) -> bytes:
    wait_ms, entries = V.Consume.parse_request(p)
    srv = s.server
    conn = s.conn
    assert conn is not None
    deadline = None if wait_ms < 0 else time.monotonic() + wait_ms / 1000.0
    waiter: QueueCondition | None = None
    conds: list[tuple[str, QueueCondition]] = []
    answers: list[bytes] = []
    with srv.lock:
        try:
            first = True
            while True:
                answers = [_attempt(s, conn, kind, payload, first) for kind, payload in entries]
                first = False
                if any(answers) or wait_ms == 0:
                    for qname, cond in conds:
                        qs = srv.qm.queues.get(qname)
                        if cond.waiters and qs is not None and qs.visible:
                            cond.wake()     # more to take: the next waiter's turn
                    break
                if srv.qm.quiescing and any(_quiescing(k, pl) for k, pl in entries):
                    answers = [V.status(C.MQCC_FAILED, C.MQRC_Q_MGR_QUIESCING) if _quiescing(k, pl) else b""
                               for k, pl in entries]
                    break
                remaining = WAIT_SLICE if deadline is None else deadline - time.monotonic()
                if remaining <= 0:
                    break
                if waiter is None:
                    waiter = QueueCondition(srv.lock)
                    for kind, payload in entries:
                        watched = srv.qm.wait_queue(conn, P.I1.unpack_from(payload)[0])
                        if watched is not None:
                            cond = srv.cond_for(watched)
                            cond.listeners.append(waiter)
                            conds.append((watched, cond))
                    WAITS.watch(s.sock, waiter.rouse)
                waiter.wait(min(remaining, WAIT_SLICE))
                if s.closed or _peer_gone(s):
                    raise ConnectionError("client went away during an asynchronous consume")
                if _cancelled(s):
                    break
        finally:
            if waiter is not None:
                WAITS.unwatch(s.sock)
                for _qname, cond in conds:
                    cond.listeners.remove(waiter)
        if conn.ticket > s.due:
            s.due = conn.ticket
    return V.Consume.reply(answers)
