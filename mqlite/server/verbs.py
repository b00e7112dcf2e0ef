"""The MQI verbs a client or local-bindings session serves: one function per frame type, each
decoding its request, calling the engine through the session (``s._call``: under the engine lock,
then durable) and encoding the reply. ``DISPATCH`` maps frame types to them; ``s`` is a
:class:`~mqlite.server.server.Session`."""
from __future__ import annotations

import os
import socket
import struct
import time
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq.structs import GMO, MD, OD, PMO
from mqlite.engine.core import Conn
from mqlite.engine.errors import MQIError
from mqlite.net import protocol as P

WAIT_SLICE = 0.5          # a waiting MQGET checks its connection at least this often


def _open(s: Any, p: bytes) -> bytes:
    if len(p) != 4 + P.OD_LEN:
        raise P.ProtocolError("OPEN payload length")
    (options,) = P.I1.unpack_from(p)
    od = OD.from_bytes(p[4:])
    try:
        h = s._call(s.server.qm.open, od, options)
    except MQIError as e:
        return s._failed(e)
    flags = (P.OPEN_ASYNC_PUT if h.async_put else 0) | (P.OPEN_READ_AHEAD if h.read_ahead_ok else 0)
    return P.III.pack(C.MQCC_OK, 0, h.hobj) + P.I1.pack(flags) + od.pack()


def _close(s: Any, p: bytes) -> bytes:
    if len(p) != 12:
        raise P.ProtocolError("CLOSE payload length")
    hobj, options, consumed = P.III.unpack(p)
    qm = s.server.qm
    return s._answer(lambda conn: (qm.settle(conn, hobj, consumed, release=True), qm.close(conn, hobj, options)))


def _put(s: Any, p: bytes) -> bytes:
    if len(p) < 4 + P.PMO_LEN + P.MD_LEN:
        raise P.ProtocolError("PUT payload length")
    (hobj,) = P.I1.unpack_from(p)
    pmo = PMO.from_bytes(p[4:4 + P.PMO_LEN])
    md = MD.from_bytes(p[4 + P.PMO_LEN:4 + P.PMO_LEN + P.MD_LEN])
    body = p[4 + P.PMO_LEN + P.MD_LEN:]
    if s.maxmsgl is not None and len(body) > s.maxmsgl:
        return P.II.pack(C.MQCC_FAILED, C.MQRC_DATA_LENGTH_ERROR)
    try:
        warn = s._call(s.server.qm.put, hobj, md, pmo, body)
    except MQIError as e:
        return s._failed(e)
    return P.II.pack(C.MQCC_WARNING if warn else C.MQCC_OK, warn) + md.pack() + pmo.pack()


def _put_async(s: Any, p: bytes) -> None:
    if len(p) < 4 + P.PMO_LEN + P.MD_LEN:
        raise P.ProtocolError("PUT payload length")
    (hobj,) = P.I1.unpack_from(p)
    # Only the options of the MQPMO matter when no answer goes back.
    pmo = PMO.__new__(PMO)
    pmo.__dict__.update(Options=P.I1.unpack_from(p, 12)[0], ResolvedQName=b"", ResolvedQMgrName=b"")
    md = MD.from_bytes(p[4 + P.PMO_LEN:4 + P.PMO_LEN + P.MD_LEN])
    srv = s.server
    assert s.conn is not None
    with srv.lock:
        srv.qm.put_async(s.conn, hobj, md, pmo, p[4 + P.PMO_LEN + P.MD_LEN:])
    return None


def _stat(s: Any, p: bytes) -> bytes:
    return P.II.pack(C.MQCC_OK, 0) + P.encode_json(s._call(s.server.qm.stat))


def _put1(s: Any, p: bytes) -> bytes:
    base = P.OD_LEN + P.PMO_LEN + P.MD_LEN
    if len(p) < base:
        raise P.ProtocolError("PUT1 payload length")
    od = OD.from_bytes(p[:P.OD_LEN])
    pmo = PMO.from_bytes(p[P.OD_LEN:P.OD_LEN + P.PMO_LEN])
    md = MD.from_bytes(p[P.OD_LEN + P.PMO_LEN:base])
    if s.maxmsgl is not None and len(p) - base > s.maxmsgl:
        return P.II.pack(C.MQCC_FAILED, C.MQRC_DATA_LENGTH_ERROR)
    try:
        warn = s._call(s.server.qm.put1, od, md, pmo, p[base:])
    except MQIError as e:
        return s._failed(e)
    return P.II.pack(C.MQCC_WARNING if warn else C.MQCC_OK, warn) + od.pack() + md.pack() + pmo.pack()


def _waiting(s: Any, hobj: int, gmo: GMO, attempt: Any) -> tuple[Any, int]:
    """Run ``attempt`` under the lock, waiting for a message as MQGMO_WAIT asks; (result, ticket)."""
    srv = s.server
    conn = s.conn
    assert conn is not None
    wait = gmo.Options & C.MQGMO_WAIT
    deadline = None
    if wait and gmo.WaitInterval != C.MQWI_UNLIMITED:
        deadline = time.monotonic() + gmo.WaitInterval / 1000.0
    with srv.lock:
        while True:
            try:
                result = attempt(conn)
                break
            except MQIError as e:
                if e.reason != C.MQRC_NO_MSG_AVAILABLE or not wait:
                    raise
                if srv.qm.quiescing:
                    raise MQIError(C.MQRC_Q_MGR_QUIESCING if gmo.Options & C.MQGMO_FAIL_IF_QUIESCING
                                   else C.MQRC_NO_MSG_AVAILABLE) from None
                remaining = WAIT_SLICE if deadline is None else deadline - time.monotonic()
                if remaining <= 0:
                    raise
                qname = srv.qm.wait_queue(conn, hobj)
                if qname is None:
                    raise
                srv.cond_for(qname).wait(min(remaining, WAIT_SLICE))
                if s.closed or _peer_gone(s):
                    raise ConnectionError("client went away during MQGET wait") from None
        return result, conn.ticket


def _get(s: Any, p: bytes) -> bytes:
    if len(p) != 8 + P.GMO_LEN + P.MD_LEN:
        raise P.ProtocolError("GET payload length")
    hobj, maxlen = P.II.unpack_from(p)
    gmo = GMO.from_bytes(p[8:8 + P.GMO_LEN])
    md = MD.from_bytes(p[8 + P.GMO_LEN:])
    qm = s.server.qm
    try:
        r, ticket = _waiting(s, hobj, gmo, lambda conn: qm.get(conn, hobj, md, gmo, maxlen))
    except MQIError as e:
        return s._failed(e)
    if ticket:
        s.server.store.sync(ticket)
    return P.III.pack(r.comp, r.reason, r.data_length) + r.gmo.pack() + r.md.pack() + r.body


def _get_batch(s: Any, p: bytes) -> bytes:
    """Read-ahead: acknowledge consumed messages, then send up to max_msgs messages in one frame.

    With max_msgs 0 the messages the client still holds are released back to the queue."""
    if len(p) != 20 + P.GMO_LEN:
        raise P.ProtocolError("GET_BATCH payload length")
    hobj, acked, max_msgs, max_bytes, flags = struct.unpack_from("<iiiii", p)
    gmo = GMO.from_bytes(p[20:])
    speculative = bool(flags & P.BATCH_SPECULATIVE)
    syncpoint = bool(flags & P.BATCH_SYNCPOINT)
    qm = s.server.qm
    if max_msgs <= 0:
        s._call(lambda conn: qm.settle(conn, hobj, acked, release=True))
        return P.III.pack(C.MQCC_OK, 0, 0)
    try:
        batch, ticket = _waiting(s, hobj, gmo, lambda conn: qm.get_batch(conn, hobj, acked, max_msgs,
                                                                        max_bytes, gmo, speculative, syncpoint))
    except MQIError as e:
        return s._failed(e)
    if ticket:
        s.server.store.sync(ticket)
    parts = [P.III.pack(C.MQCC_OK, 0, len(batch))]
    for md, body, ahead in batch:
        parts.append(md)
        parts.append(P.II.pack(len(body), 1 if ahead else 0))
        parts.append(body)
    return b"".join(parts)


def _browse_batch(s: Any, p: bytes) -> bytes:
    """Browse up to max_msgs messages in one frame (mqlite's extension, for bulk readers)."""
    if len(p) != 16:
        raise P.ProtocolError("BROWSE_BATCH payload length")
    hobj, first, max_msgs, max_bytes = struct.unpack_from("<iiii", p)
    qm = s.server.qm
    try:
        batch = s._call(lambda conn: qm.browse_batch(conn, hobj, bool(first), max(0, max_msgs), max_bytes))
    except MQIError as e:
        return s._failed(e)
    parts = [P.III.pack(C.MQCC_OK, 0, len(batch))]
    for md, body in batch:
        parts.append(md)
        parts.append(P.II.pack(len(body), 0))
        parts.append(body)
    return b"".join(parts)


def _stream(s: Any, p: bytes) -> bytes:
    """A queue read by position: mark (the end of the next range), read a range, delete below."""
    if len(p) != P.STREAM_REQ.size:
        raise P.ProtocolError("STREAM payload length")
    hobj, op, start, end, max_msgs, max_bytes = P.STREAM_REQ.unpack(p)
    qm = s.server.qm
    try:
        if op in (P.STREAM_MARK, P.STREAM_MARK_COMMITTED):
            mark = s._call(qm.stream_mark, hobj, start, max_msgs, op == P.STREAM_MARK_COMMITTED)
            return P.III.pack(C.MQCC_OK, 0, 1) + struct.pack("<qqq", *mark)
        if op == P.STREAM_DELETE:
            return P.III.pack(C.MQCC_OK, 0, 1) + struct.pack("<q", s._call(qm.stream_delete, hobj, start, end))
        if op != P.STREAM_READ:
            raise P.ProtocolError(f"STREAM operation {op}")
        batch = s._call(qm.stream_read, hobj, start, end, max(1, max_msgs), max_bytes)
    except MQIError as e:
        return s._failed(e)
    parts = [P.III.pack(C.MQCC_OK, 0, len(batch))]
    for seq, md, body in batch:
        parts.append(struct.pack("<q", seq))
        parts.append(md)
        parts.append(P.II.pack(len(body), 0))
        parts.append(body)
    return b"".join(parts)


def _xa(s: Any, p: bytes) -> bytes:
    """Two-phase units of work: {"op": "prepare", "xid", "settle": [[hobj, consumed], ...]},
    {"op": "resolve", "commit": [...], "backout": [...], "prefix", "mark": [name, batch], "end"} or
    {"op": "list"}; the reply is the completion and reason codes, then a JSON answer."""
    req = P.decode_json(p)
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
            answer: Any = {"messages": s._call(prepare)}
        elif op == "resolve":
            mark = req.get("mark")
            answer = s._call(qm.resolve_prepared, [str(x) for x in req.get("commit") or []],
                             [str(x) for x in req.get("backout") or []], str(req.get("prefix") or ""),
                             (str(mark[0]), int(mark[1])) if mark else None, bool(req.get("end")))
        elif op == "list":
            answer = {"units": s._call(lambda conn: qm.prepared_units())}
        else:
            raise P.ProtocolError(f"unknown XA operation {op!r}")
    except MQIError as e:
        return s._failed(e) + P.encode_json({"detail": e.detail or ""})
    except (TypeError, ValueError, IndexError) as e:
        raise P.ProtocolError(f"XA request: {e}") from None
    return P.II.pack(C.MQCC_OK, 0) + P.encode_json(answer)


def _peer_gone(s: Any) -> bool:
    if s.reader is not None and s.reader.buffered():
        return False
    sock = s.sock
    try:
        sock.setblocking(False)
        try:
            data = sock.recv(1, socket.MSG_PEEK)
        finally:
            sock.setblocking(True)
        return data == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def _inq(s: Any, p: bytes) -> bytes:
    try:
        hobj, n = P.II.unpack_from(p)
        if n < 0 or n > 256 or len(p) != 8 + 4 * n:
            raise P.ProtocolError("INQ selector count")
        selectors = list(struct.unpack_from(f"<{n}i", p, 8))
    except struct.error as e:
        raise P.ProtocolError(f"INQ payload: {e}") from None
    try:
        values = s._call(s.server.qm.inquire, hobj, selectors)
    except MQIError as e:
        return s._failed(e)
    return P.II.pack(C.MQCC_OK, 0) + P.encode_values(values)


def _set(s: Any, p: bytes) -> bytes:
    if len(p) < 8:
        raise P.ProtocolError("SET payload length")
    (hobj,) = P.I1.unpack_from(p)
    selectors, off = P.decode_values(p, 4)
    values, _ = P.decode_values(p, off)
    if len(selectors) != len(values) or not all(isinstance(x, int) for x in selectors):
        raise P.ProtocolError("SET selectors and values")
    return s._answer(s.server.qm.set, hobj, selectors, values)


def _release_then(s: Any, p: bytes, end: Any) -> bytes:
    """MQCMIT/MQBACK: first give back read-ahead messages under syncpoint that the client did not
    consume (payload: count, then (hobj, consumed) pairs), then end the unit of work."""
    try:
        (n,) = P.I1.unpack_from(p) if p else (0,)
        pairs = [struct.unpack_from("<ii", p, 4 + 8 * i) for i in range(n)] if n else []
    except struct.error as e:
        raise P.ProtocolError(f"commit payload: {e}") from None
    if n < 0 or len(p) != (4 + 8 * n if p else 0):
        raise P.ProtocolError("commit payload length")
    qm = s.server.qm

    def run(conn: Conn) -> None:
        for hobj, consumed in pairs:
            qm.settle(conn, hobj, consumed, release=True)
        end(conn)
    return s._answer(run)


def _cmit(s: Any, p: bytes) -> bytes:
    return _release_then(s, p, s.server.qm.commit)


def _back(s: Any, p: bytes) -> bytes:
    return _release_then(s, p, s.server.qm.backout)


def _mqsc(s: Any, p: bytes) -> bytes:
    text = p.decode("utf-8", "replace")
    srv = s.server
    with srv.lock:
        result = srv.executor.run(text)
        ticket = srv.store.last_ticket
    srv.store.sync(ticket)
    if result.status != "ok":
        srv.log.write("AMQ8101S" if result.status == "error" else "AMQ8405I",
                      f"MQSC command failed: {text[:200]}", "\n".join(result.lines))
    return P.encode_json({"status": result.status, "lines": result.lines})


def _control(s: Any, p: bytes) -> bytes:
    req = P.decode_json(p)
    op = req.get("op") if isinstance(req, dict) else None
    srv = s.server
    if op == "end":
        immediate = bool(req.get("immediate"))
        s.after_reply = lambda: srv.shutdown(immediate=immediate)
        return P.encode_json({"ok": True})
    if op == "status":
        with srv.sessions_lock:
            apps = sum(1 for x in srv.sessions if x.conn is not None)
        return P.encode_json({"ok": True, "status": "Quiescing" if srv.stopping.is_set() else "Running",
                              "connections": apps, "pid": os.getpid()})
    raise P.ProtocolError(f"unknown control operation {op!r}")


DISPATCH = {P.OPEN: _open, P.CLOSE: _close, P.PUT: _put, P.PUT1: _put1, P.GET: _get, P.INQ: _inq,
            P.PUT_ASYNC: _put_async, P.GET_BATCH: _get_batch, P.STAT: _stat, P.BROWSE_BATCH: _browse_batch,
            P.STREAM: _stream, P.XA: _xa, P.SET: _set, P.CMIT: _cmit, P.BACK: _back, P.MQSC: _mqsc, P.CONTROL: _control}
