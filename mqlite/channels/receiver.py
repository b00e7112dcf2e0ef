"""The receiving end of a message channel (RCVR, or RQSTR): puts each batch in one unit of work.

A batch's messages are put to their destinations (resolved on this queue manager, so a message can
hop on through its own remote definitions and queue-manager aliases) inside one unit of work whose
commit also writes the channel's synchronisation record: the last sequence number and the window of
message keys the sender may not have made durable yet. A message whose key is in the window is
already here and is not put again; the sender learns from the window what to remove or send again
after a failure, so each persistent message is delivered exactly once.
"""
from __future__ import annotations

import socket
import time

from mqlite.catalogue import entry
from mqlite.channels.conversation import (
    RECEIVER,
    Close,
    Confirm,
    Conversation,
    EndBatch,
    Heartbeat,
    HeartbeatReply,
    Message,
    Ping,
    PingReply,
)
from mqlite.channels.status import ChannelStatus
from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.headers import XQH_LEN, XQH_REMOTE_Q, XQH_REMOTE_QM, original_md
from mqlite.cmq.structs import MD, OD, text
from mqlite.engine.core import Conn, Handle
from mqlite.engine.deadletter import dead_letter
from mqlite.engine.host import Host
from mqlite.net import protocol as P

TRANSIENT = (C.MQRC_Q_FULL, C.MQRC_PUT_INHIBITED)

class BatchFailed(Exception):
    def __init__(self, reason: int, text: str) -> None:
        super().__init__(text)
        self.reason = reason
        self.text = text


class Receiver:
    def __init__(self, host: Host, sock: socket.socket, reader: P.FrameReader, name: str,
                 partner: str, status: ChannelStatus, key: str = "", seqwrap: int = 999_999_999) -> None:
        self.srv = host
        self.qm = host.qm
        self.sock = sock
        self.reader = reader
        self.name = name
        self.key = key or name        # the channel instance: a CLUSRCVR has one per sending queue manager
        self.partner = partner
        self.status = status
        self.chl = self.qm.lookup("CHANNEL", name)
        self.conn: Conn | None = None
        self.handles: dict[tuple[bytes, bytes], Handle] = {}
        self.conversation = Conversation(RECEIVER, seqwrap)

    # --- the session ------------------------------------------------------------------------
    def serve(self) -> None:
        srv = self.srv
        with srv.lock:
            self.conn = self.qm.connect(self.name[:28], C.MQAT_QMGR, "")
        hb = max(self.chl["HBINT"], 1) if self.chl is not None else 300
        self.sock.settimeout(hb * 2 + 30)     # a sender that says nothing for this long is gone
        batch: list[tuple[int, bytes, bytes]] = []
        conv, reader, sock = self.conversation, self.reader, self.sock
        try:
            while True:
                ev = conv.event_of(*reader.read())
                if isinstance(ev, Message):
                    if ev.seq is None:
                        self._fast(ev.md, ev.body)
                        if not reader.buffered():
                            self._close_handles()
                    else:
                        batch.append((ev.seq, ev.md, ev.body))
                elif isinstance(ev, EndBatch):
                    sock.sendall(conv.send(self._end_batch(batch, ev)))
                    batch = []
                    if not reader.buffered():
                        self._close_handles()
                elif isinstance(ev, Heartbeat):
                    sock.sendall(conv.send(HeartbeatReply()))
                elif isinstance(ev, Ping):
                    sock.sendall(conv.send(PingReply(ev.data)))
                elif isinstance(ev, Close):
                    return
                else:
                    raise P.ProtocolError(f"{ev!r} on channel {self.name}")
        finally:
            with srv.lock:
                if self.conn is not None:
                    self.qm.disconnect(self.conn, commit=False)   # a partial batch is backed out
                    self.conn = None

    def _close_handles(self) -> None:
        """Nothing more is waiting: close the queues opened for delivery, so that they do not
        stay in use (DELETE QLOCAL) while the channel is idle."""
        if not self.handles:
            return
        with self.srv.lock:
            for h in self.handles.values():
                if self.conn is not None and h.hobj in self.conn.handles:
                    self.qm.close(self.conn, h.hobj)
        self.handles.clear()

    # --- batches ------------------------------------------------------------------------------
    def _end_batch(self, batch: list[tuple[int, bytes, bytes]], end: EndBatch) -> Confirm:
        """Put the batch in one unit of work and commit it with the channel's record; the
        confirmation to send (the conversation has checked the batch's numbers and keys)."""
        srv, qm, conn = self.srv, self.qm, self.conn
        assert conn is not None
        keys = end.keys
        rec = qm.uow.record(self.key)
        durable = set(end.durable)
        window = [w for w in rec.get("window", []) if w["luwid"] not in durable]
        already = {k for w in window for k in w["keys"]}
        try:
            for (_seq, md, body), key in zip(batch, keys, strict=False):
                if key not in already:          # a message sent again after a failure: it is here
                    self._deliver(md, body, syncpoint=True)
        except BatchFailed as e:
            with srv.lock:
                qm.backout(conn)
            srv.log.write(*entry("AMQ9544E"),
                          f"Channel '{self.name}': {e.text} The batch was backed out; the messages stay on the sending queue manager's "
                          "transmission queue and the sender stops.")
            return Confirm(False, reason=e.reason, text=e.text)
        last, luwid = end.last, end.luwid
        window.append({"luwid": luwid, "first": end.first, "last": last, "keys": keys})
        rec.update(seq=last, luwid=luwid, partner=self.partner, window=window)
        with srv.lock:
            qm.commit(conn, sync=(self.key, rec))
            ticket = conn.ticket
        if ticket:
            srv.store.sync(ticket)
        st = self.status
        st.msgs += len(batch)
        st.bytes += sum(len(body) for _seq, _md, body in batch)
        st.batches += 1
        st.curseqno = st.lstseqno = last
        st.lstluwid = luwid
        st.last_msg = time.time()
        return Confirm(True, last=last, luwid=luwid)

    def _fast(self, md: bytes, body: bytes) -> None:
        st = self.status                  # a fast message is a message received (MSGS), batch or not
        st.msgs += 1
        st.bytes += len(body)
        st.last_msg = time.time()
        try:
            self._deliver(md, body, syncpoint=False)
        except BatchFailed as e:
            # Fast nonpersistent messages that cannot be delivered anywhere are discarded, as in MQ.
            self.srv.log.write(*entry("AMQ9599W", name=self.name), e.text)

    def _deliver(self, md_bytes: bytes, body: bytes, syncpoint: bool) -> None:
        """Put one message to its destination, retrying transient failures, else dead-letter it.

        The descriptor stays packed (the original's, with its own Format from the MQXQH back)."""
        data = body[XQH_LEN:]
        raw_q, raw_qm = body[XQH_REMOTE_Q], body[XQH_REMOTE_QM]
        md_bytes = original_md(md_bytes, body)
        chl = self.chl
        retries = chl["MRRTY"] if chl is not None else 10
        interval = (chl["MRTMR"] if chl is not None else 1000) / 1000.0
        while True:
            with self.srv.lock:
                try:
                    h = self._handle(raw_q, raw_qm)
                    self.qm.put_packed(self.conn, h.hobj, md_bytes, data, syncpoint)  # type: ignore[arg-type]
                    return
                except MQIError as e:
                    reason = e.reason
            if reason in TRANSIENT and retries > 0:
                retries -= 1
                self.status.set("PAUSED", "MSGRETRY")
                time.sleep(interval)
                self.status.set("RUNNING", "RECEIVE")
                continue
            self._dead_letter(MD.from_bytes(md_bytes), data, text(raw_q), text(raw_qm), reason, syncpoint)
            return

    def _handle(self, q: bytes, qm: bytes) -> Handle:
        h = self.handles.get((q, qm))
        if h is not None and h.hobj in self.conn.handles:  # type: ignore[union-attr]
            return h
        od = OD(ObjectName=q, ObjectQMgrName=qm)
        h = self.qm.open(self.conn, od, C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT)  # type: ignore[arg-type]
        self.handles[(q, qm)] = h
        return h

    def _dead_letter(self, md: MD, data: bytes, dest_q: str, dest_qm: str, reason: int, syncpoint: bool) -> None:
        """MQ's rule: USEDLQ(YES) and a DEADQ -> the dead-letter queue behind an MQDLH; else the batch fails."""
        use_dlq = self.chl is None or self.chl["USEDLQ"] == 2
        with self.srv.lock:
            why = dead_letter(self.qm, self.conn, self._handle, md, data, dest_q, dest_qm, reason,  # type: ignore[arg-type]
                              syncpoint, use_dlq, f"channel '{self.name}'")
        if why:
            raise BatchFailed(reason, why)
