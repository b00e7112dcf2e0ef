"""The sending MCA of a message channel (SDR, SVR with a CONNAME, CLUSSDR), and the channel handshake.

Exactly once for a batch of persistent messages:
  1. the sender gets the batch from its transmission queue under syncpoint and sends it, each
     message with its key (its number on the sending queue manager, never reused), then asks for
     confirmation;
  2. the receiver puts the batch in one unit of work whose commit also records the batch's keys in
     the channel's window, and confirms;
  3. the sender commits (the messages leave the transmission queue) without forcing its log; with
     later batches it tells the receiver which of its commits have become durable, and the
     receiver drops those batches from its window.
When the sender reconnects (after a broken connection, or a crash that lost commits it had not
forced), the receiver sends the keys in its window: the sender commits or backs out the batch it
was waiting on accordingly and removes any other message the receiver already has. So a message is
neither lost nor delivered twice, with one forced write per batch (the receiver's) instead of two.
"""
from __future__ import annotations

import os
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from mqlite.catalogue import entry
from mqlite.channels.conversation import SENDER, Close, Confirm, Conversation, EndBatch, Heartbeat, next_seq
from mqlite.channels.status import ChannelError, ChannelStatus
from mqlite.cluster.state import correl_of
from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.headers import XQH_LEN, XQH_REMOTE_Q, XQH_REMOTE_QM, original_md
from mqlite.cmq.structs import GMO, MD, OD
from mqlite.cmq.structs import text as text_of
from mqlite.engine.core import Conn
from mqlite.engine.deadletter import dead_letter
from mqlite.engine.host import Host
from mqlite.net import protocol as P
from mqlite.net.client import TransportError, parse_conname
from mqlite.objects.model import MQObject
from mqlite.security import tls

CONFIRM_TIMEOUT = 60.0


class SenderOwner(Protocol):
    """What a sending MCA needs of the channel manager that started it (engine lock held for the
    dictionaries and ``want``)."""
    senders: dict[str, "SenderMCA"]
    status: dict[str, ChannelStatus]

    def new_status(self, name: str, kind: str, state: str, **fields: Any) -> ChannelStatus: ...

    def set_stopped(self, name: str, stopped: bool) -> None: ...

    def want(self, name: str) -> None: ...


@contextmanager
def released(lock: Any) -> Iterator[None]:
    """Let go of ``lock`` (a re-entrant lock this thread may hold, at any depth) for the body, and take
    it back at the same depth after; the way threading.Condition.wait does it."""
    if not lock._is_owned():
        yield
        return
    state = lock._release_save()
    try:
        yield
    finally:
        lock._acquire_restore(state)


def close_quietly(sock: socket.socket) -> None:
    try:
        sock.close()
    except OSError:
        pass


def connect_channel(qmgr: str, chl: MQObject, ping: bool = False, extra: dict[str, Any] | None = None,
                    qmobj: MQObject | None = None) -> tuple[socket.socket, P.FrameReader, dict[str, Any]]:
    """Open a channel connection to the partner named by CONNAME (tried in order) and handshake;
    over TLS when the channel has an SSLCIPH (the key repository is ``qmobj``'s SSLKEYR)."""
    last: Exception | None = None
    context = None
    if chl.get("SSLCIPH"):
        stem = qmobj["SSLKEYR"] if qmobj is not None else ""
        label = (qmobj["CERTLABL"] if qmobj is not None else "") or f"ibmwebspheremq{qmgr.lower()}"
        try:
            context = tls.client_context(chl["SSLCIPH"], stem, label)
        except tls.TLSConfigError as e:
            raise ChannelError(*entry("AMQ9657E", channel=chl.name), e.text, stop=True) from None
    try:
        addrs = parse_conname(chl["CONNAME"])
    except TransportError as e:
        raise ChannelError(*entry("AMQ9214E", name=chl.name, detail=e.detail), stop=True) from None
    for host, port in addrs:
        try:
            sock = socket.create_connection((host, port), timeout=10)
            break
        except OSError as e:
            last = e
    else:
        raise ConnectionError(f"remote host not available: {last}")
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if context is not None:
        try:
            sock = context.wrap_socket(sock)
        except (ssl.SSLError, OSError) as e:
            sock.close()
            raise ChannelError(*entry("AMQ9665E", channel=chl.name), f"The TLS handshake failed: {e}") from None
    reader = P.FrameReader(sock)
    hello = {"proto": P.PROTOCOL_VERSION, "kind": "channel", "channel": chl.name, "from_qmgr": qmgr,
             "sslciph": chl.get("SSLCIPH", ""),
             "batchsz": chl["BATCHSZ"], "maxmsgl": chl["MAXMSGL"], "hbint": chl["HBINT"], "ping": ping,
             "seqwrap": chl["SEQWRAP"],
             **(extra or {})}
    try:
        P.send_frame(sock, P.HELLO, P.encode_json(hello))
        ftype, payload = reader.read()
    except (OSError, ConnectionError, P.ProtocolError) as e:
        sock.close()
        raise ConnectionError(f"handshake failed: {e}") from None
    try:
        info = P.checked(P.decode_json(payload), "channel handshake answer", msgid="str", text="str", detail="str",
                         qmgr="str",
                         seq="int", committed="ints", batchsz="int", maxmsgl="int")
    except P.ProtocolError:
        sock.close()
        raise
    if ftype == P.ERROR:
        sock.close()
        raise ChannelError(info.get("msgid", "AMQ9999E"), info.get("text", f"refused, reason {info.get('reason')}"),
                           str(info.get("detail") or ""))
    if ftype != P.HELLO_OK:
        sock.close()
        raise P.ProtocolError(f"unexpected frame {ftype:#x} in channel handshake")
    sock.settimeout(None)
    return sock, reader, info


class SenderMCA(threading.Thread):
    """The sending MCA of an SDR (or SVR with CONNAME) channel."""

    def __init__(self, host: Host, owner: SenderOwner, chl: MQObject) -> None:
        super().__init__(name=f"mca-{chl.name}", daemon=True)
        self.mgr = owner
        self.srv = host
        self.qm = host.qm
        self.chl = chl
        self.name_ = chl.name
        self.cluster = chl.kind == "CLUSSDR"
        # A cluster-sender channel takes its messages by CorrelId from the cluster transmission
        # queue it is associated with (settled when it starts); other senders from their XMITQ.
        self.xmitq = host.qm.cluster.xmitq_for(chl.name) if self.cluster else chl["XMITQ"]
        self.correl = correl_of(chl.name) if self.cluster else b""
        self.stop_event = threading.Event()
        self.force, self.final = False, "INACTIVE"
        self.sock: socket.socket | None = None
        self.status = owner.new_status(chl.name, chl.kind, "INITIALIZING", xmitq=self.xmitq, conname=chl["CONNAME"])
        owner.status[chl.name] = self.status
        self.conn: Conn | None = None
        self.hobj = 0
        self.outstanding: list[int] = []                    # keys of the batch awaiting confirmation
        self._md = MD(CorrelId=self.correl)                 # reused: matched on by cluster senders only
        self.maxmsgl = chl["MAXMSGL"]
        self.dlq_handles: dict[bytes, Any] = {}                # the sending end's dead-letter queue
        match = C.MQMO_MATCH_CORREL_ID if self.cluster else C.MQMO_NONE
        self._gmo_fast = GMO(Options=C.MQGMO_SYNCPOINT_IF_PERSISTENT, MatchOptions=match)
        self._gmo_batch = GMO(Options=C.MQGMO_SYNCPOINT, MatchOptions=match)
        self.pending: deque[tuple[str, int]] = deque()      # (LUWID, journal ticket) not yet reported durable

    def request_stop(self, force: bool, final: str) -> None:
        self.final = final
        self.force = force
        self.stop_event.set()
        if force and self.sock is not None:
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        with self.srv.lock:
            cond = self.srv.conds.get(self.xmitq)
            if cond is not None:
                cond.notify_all()

    # --- lifecycle ----------------------------------------------------------------------------
    def run(self) -> None:
        st, chl = self.status, self.chl
        short_left, long_left = chl["SHORTRTY"], chl["LONGRTY"]
        final = "INACTIVE"
        try:
            with self.srv.lock:
                self.conn = self.qm.connect(self.name_[:28], C.MQAT_QMGR, "")
                if self.cluster:
                    self._associate()
                # Cluster transmission queues are shared by the channels they serve.
                access = C.MQOO_INPUT_SHARED if self.cluster else C.MQOO_INPUT_EXCLUSIVE
                h = self.qm.open(self.conn, OD(ObjectName=self.xmitq.encode()), access | C.MQOO_BROWSE)
                self.hobj = h.hobj
        except MQIError as e:
            self.srv.log.write(*entry("AMQ9999E", channel=self.name_, host=self.chl["CONNAME"]),
                               f"Its transmission queue {self.xmitq} could not be opened: reason {e.reason}. "
                               "The channel is stopped.")
            self._finish("STOPPED")
            return
        try:
            while not self.stop_event.is_set():
                try:
                    st.set("BINDING", "NAMESERVER")
                    idle = self._session()
                    short_left, long_left = chl["SHORTRTY"], chl["LONGRTY"]
                    if idle:
                        final = "INACTIVE"
                        break
                except ChannelError as e:
                    st.error = e.msgid
                    self.srv.log.write(e.msgid, e.text, (f"{e.detail} " if e.detail else "") + f"Channel '{self.name_}' "
                                       + ("stopped." if e.stop else "will retry."))
                    if e.stop:
                        final = "STOPPED"
                        break
                except (OSError, ConnectionError, P.ProtocolError) as e:
                    if self.stop_event.is_set():
                        break
                    st.error = "AMQ9202E"
                    self.srv.log.write(*entry("AMQ9202E", host=self.chl["CONNAME"]),
                                       f"Channel '{self.name_}': {e}. Retrying.")
                if self.stop_event.is_set():
                    break
                if short_left > 0:
                    short_left -= 1
                    wait = chl["SHORTTMR"]
                elif long_left > 0:
                    long_left -= 1
                    wait = chl["LONGTMR"]
                else:
                    final = "STOPPED"
                    break
                st.set("RETRYING", "")
                st.short_left, st.long_left = short_left, long_left
                self.stop_event.wait(max(wait, 0.05))
            if self.stop_event.is_set():
                final = self.final
        finally:
            self._finish(final)

    def _associate(self) -> None:
        """A cluster-sender channel starts with nothing in flight: if its transmission queue is to
        change (DEFCLXQ, CLCHNAME), its waiting messages move to the new queue now."""
        qm, cl = self.qm, self.qm.cluster
        new = cl.xmitq_for(self.name_)
        qm.routing.ensure_cluster_xmitq(new, self.name_)
        old = cl.assoc.get(self.name_)
        assert self.conn is not None
        if old != new:
            moved = qm.routing.move_messages(self.conn, old, new, self.correl) if old else 0
            rec = dict(qm.uow.record(self.name_), xmitq=new)
            qm.set_chsync(self.conn, self.name_, rec)
            cl.associate(self.name_, new)
            if old:
                self.srv.log.write(*entry("AMQ7341I", name=self.name_, new=new),
                                   f"It was {old}; {moved} message(s) moved.")
        self.xmitq = self.status.xmitq = new

    def _finish(self, final: str) -> None:
        with self.srv.lock:
            if self.conn is not None:
                self.qm.disconnect(self.conn, commit=False)
                self.conn = None
            if self.mgr.senders.get(self.name_) is self:
                del self.mgr.senders[self.name_]
            if final == "STOPPED":
                self.status.set("STOPPED", "")
            elif self.mgr.status.get(self.name_) is self.status:
                del self.mgr.status[self.name_]
        if final == "STOPPED":
            self.mgr.set_stopped(self.name_, True)
        if self.sock is not None:
            close_quietly(self.sock)
        # Work may have arrived while the channel was ending: the initiator starts it again.
        if final == "INACTIVE" and not self.stop_event.is_set():
            with self.srv.lock:
                qs = self.qm.queues.get(self.xmitq)
                if qs is not None and qs.visible and (not self.cluster or self.qm.routing.has_correl(self.xmitq, self.correl)):
                    self.mgr.want(self.name_)

    # --- one connection -----------------------------------------------------------------------
    def _session(self) -> bool:
        """Connect, settle what the receiver already has, then send batches. True: ended idle (DISCINT)."""
        qm, srv, st, chl = self.qm, self.srv, self.status, self.chl
        rec = qm.uow.record(self.name_)
        conn = self.conn
        assert conn is not None
        st.set("STARTING", "NETCONNECT")
        # A TO.+QMNAME+ channel only introduces this queue manager to whichever full repository
        # answers; it starts each connection afresh (its messages are idempotent publications).
        sock, reader, info = connect_channel(srv.qm.name, chl, qmobj=srv.qm.qmgr, extra={"seq": int(rec.get("seq", 0)),
                                                              "reset": bool(rec.get("reset"))
                                                              or "+QMNAME+" in self.name_})
        self.sock = sock
        try:
            st.rqmname = info.get("qmgr") or ""
            committed = set(info.get("committed") or [])
            with srv.lock:
                if self.outstanding:
                    # The batch whose confirmation never came: the receiver's window says its fate.
                    done = set(self.outstanding) <= committed
                    self._settle(conn, done, info.get("seq") or 0)
                    self.outstanding = []
                elif conn.uow:
                    qm.backout(conn)
                # After a crash, commits not yet forced are lost: those messages are back on the
                # transmission queue although the receiver has them. Remove them now.
                removed = qm.remove_messages(self.xmitq, sorted(committed))
                new = dict(qm.uow.record(self.name_), seq=info.get("seq") or 0)
                new.pop("reset", None)
                qm.set_chsync(conn, self.name_, new)
                ticket = conn.ticket
            srv.store.sync(ticket)
            self.pending.clear()
            if removed:
                srv.log.write(*entry("AMQ9510I", name=self.name_, rqmname=st.rqmname), f"{removed} message(s) the partner had already committed were "
                              "removed from the transmission queue.")
            batchsz = max(1, info.get("batchsz") or chl["BATCHSZ"])
            self.maxmsgl = info.get("maxmsgl") or chl["MAXMSGL"]
            st.error = ""
            st.set("RUNNING", "MQGET")
            st.curseqno = st.lstseqno = info.get("seq") or 0
            return self._send_batches(sock, reader, Conversation(SENDER, chl["SEQWRAP"]), batchsz)
        finally:
            self.sock = None
            close_quietly(sock)

    def _settle(self, conn: Conn, commit: bool, seq: int) -> None:
        """End the batch's unit of work; its sequence number and LUWID go with the commit."""
        rec = self.qm.uow.record(self.name_)
        if commit:
            rec["seq"] = seq
            self.qm.commit(conn, sync=(self.name_, rec))
        else:
            self.qm.backout(conn)

    def _send_batches(self, sock: socket.socket, reader: P.FrameReader, conv: Conversation, batchsz: int) -> bool:
        """Batches until stopped or idle for DISCINT (True); the conversation (``conv``) makes the
        frames and holds the rules of their order, this loop the policy: what goes in a batch and
        when, heartbeats, and the engine calls."""
        qm, srv, st, chl = self.qm, self.srv, self.status, self.chl
        conn = self.conn
        assert conn is not None
        xmitq = self.xmitq
        fast_np = chl["NPMSPEED"] == C.MQNPMS_FAST
        seqwrap = chl["SEQWRAP"]
        discint = 1 if "+QMNAME+" in self.name_ else chl["DISCINT"]
        hbint = max(chl["HBINT"], 1)
        batchint = chl["BATCHINT"] / 1000.0
        idle_since = time.monotonic()
        last_beat = time.monotonic()
        while not self.stop_event.is_set():
            # Fast messages get no confirmation: take none for a connection the partner has
            # already closed (a stopped receiver, say); the channel retries instead.
            if P.peer_closed(sock):
                raise ConnectionError("the partner closed the connection")
            frames: list[bytes] = []
            keys: list[int] = []
            seq = int(qm.uow.record(self.name_).get("seq", 0))
            batch_deadline = None
            with srv.lock:
                while len(keys) < batchsz and len(frames) < 4 * batchsz and not self.stop_event.is_set():
                    if fast_np and not self.cluster:
                        # A run of fast nonpersistent messages at the head: one engine call for all.
                        run = qm.batches.take_nonpersistent(conn, self.hobj, 4 * batchsz - len(frames))
                        for md, body in run:
                            st.bytes += len(body)
                            if len(body) - XQH_LEN > self.maxmsgl:
                                frames.extend(conv.send_message(None, m, b) for m, b in self._fit(conn, md, body, False))
                                continue
                            frames.append(conv.send_message(None, md, body))
                        if run:
                            if batch_deadline is None:
                                batch_deadline = time.monotonic() + batchint
                            continue
                    msg = self._next(conn, fast_np)
                    if msg is None:
                        if frames and (batch_deadline is None or time.monotonic() >= batch_deadline):
                            break
                        if frames:
                            srv.cond_for(xmitq).wait(max(0.0, batch_deadline - time.monotonic()))
                            continue
                        break
                    md, body, in_batch, key = msg
                    st.bytes += len(body)
                    if len(body) - XQH_LEN > self.maxmsgl:
                        # Longer than the channel takes: its segments, all under the message's one key
                        # (they commit together); the last is sent below. Or the dead-letter queue.
                        pieces = self._fit(conn, md, body, in_batch)
                        if not pieces:
                            continue
                        for pmd, pbody in pieces[:-1]:
                            if in_batch:
                                seq = next_seq(seq, seqwrap)
                                keys.append(key)
                            frames.append(conv.send_message(seq if in_batch else None, pmd, pbody))
                        md, body = pieces[-1]
                    if in_batch:
                        seq = next_seq(seq, seqwrap)
                        keys.append(key)
                    frames.append(conv.send_message(seq if in_batch else None, md, body))
                    if batch_deadline is None:
                        batch_deadline = time.monotonic() + batchint
                if not frames:
                    now = time.monotonic()
                    if discint and now - idle_since >= discint:
                        sock.sendall(conv.send(Close()))
                        return True
                    st.substate = "MQGET"
                    srv.cond_for(xmitq).wait(min(0.5, hbint))
            if not frames:
                if self.pending:
                    # Idle: make this channel's own commits durable, so the window can shrink (only
                    # up to its last ticket: a forced write of everyone else's journal is not ours).
                    srv.store.sync(self.pending[-1][1])
                if time.monotonic() - last_beat >= hbint:
                    st.substate = "HEARTBEAT"
                    sock.sendall(conv.send(Heartbeat()))
                    sock.settimeout(CONFIRM_TIMEOUT)
                    conv.receive_frame(*reader.read())      # only the heartbeat's reply is in turn
                    sock.settimeout(None)
                    conv.next_event()
                    last_beat = time.monotonic()
                continue
            idle_since = last_beat = time.monotonic()
            st.msgs += len(frames) - len(keys)
            if not keys:
                st.substate = "SEND"
                sock.sendall(b"".join(frames))
                st.figures.batch(len(frames), batchsz)      # fast messages: a batch with no confirmation
                continue
            st.figures.batch(len(frames), batchsz, self._batch(sock, reader, conv, conn, frames, keys))
        if not self.force:
            try:
                sock.sendall(conv.send(Close()))
            except OSError:
                pass
        return False

    def _next(self, conn: Conn, fast_np: bool) -> tuple[bytes, bytes, bool, int] | None:
        """The next message on the transmission queue: (packed MQMD, body, in the batch?, key).

        Persistent messages (and, with NPMSPEED(NORMAL), all) are got under the batch's syncpoint;
        fast nonpersistent ones are got outside it and travel outside the batch.
        """
        qm = self.qm
        qs = qm.queues.get(self.xmitq)
        if qs is None:
            raise ChannelError(*entry("AMQ9999E", channel=self.name_, host=self.chl["CONNAME"]),
                               f"Transmission queue {self.xmitq} was deleted.", stop=True)
        if qs.first_fast() is None:
            return None
        try:
            r = qm.get(conn, self.hobj, self._md, self._gmo_fast if fast_np else self._gmo_batch, 110 * 1024 * 1024)
        except MQIError as e:
            if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                return None
            raise ChannelError(*entry("AMQ9999E", channel=self.name_, host=self.chl["CONNAME"]),
                               f"It could not get from its transmission queue: reason {e.reason}.", stop=True) from None
        in_batch = not fast_np or r.md.Persistence == C.MQPER_PERSISTENT
        return r.packed or r.md.pack(), r.body, in_batch, r.seq

    def _fit(self, conn: Conn, md_bytes: bytes, body: bytes, in_batch: bool) -> list[tuple[bytes, bytes]]:
        """A message longer than the channel's MAXMSGL: the segments the MCA sends instead when it
        allows segmentation (docs/segments.md), else none (it went to the dead-letter queue)."""
        pieces = self.qm.segments.for_channel(md_bytes, body, self.maxmsgl)
        if pieces is None:
            self._too_big(conn, md_bytes, body, in_batch)
            return []
        return pieces

    def _too_big(self, conn: Conn, md_bytes: bytes, body: bytes, in_batch: bool) -> None:
        """A message longer than the channel's MAXMSGL: the sending end's dead-letter queue, reason
        MQRC_MSG_TOO_BIG_FOR_CHANNEL, inside the batch's unit of work; without one the channel stops."""
        md = MD.from_bytes(original_md(md_bytes, body))
        handles = self.dlq_handles

        def handle(q: bytes, _qm: bytes) -> Any:
            if q not in handles or handles[q].hobj not in conn.handles:
                handles[q] = self.qm.open(conn, OD(ObjectName=q), C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT)
            return handles[q]
        with self.srv.lock:
            why = dead_letter(self.qm, conn, handle, md, body[XQH_LEN:], text_of(body[XQH_REMOTE_Q]),
                              text_of(body[XQH_REMOTE_QM]), C.MQRC_MSG_TOO_BIG_FOR_CHANNEL, in_batch,
                              self.chl["USEDLQ"] == 2, f"channel '{self.name_}'")
        if why:
            raise ChannelError(*entry("AMQ9544E"), f"Channel '{self.name_}': a message of {len(body) - XQH_LEN} bytes is "
                               f"longer than the channel's MAXMSGL {self.maxmsgl}. {why}", stop=True)

    def _durable_batches(self) -> list[str]:
        """LUWIDs of committed batches whose commit has reached disk since they were last reported."""
        out = []
        durable = self.srv.store.durable_ticket
        while self.pending and self.pending[0][1] <= durable:
            out.append(self.pending.popleft()[0])
        return out

    def _batch(self, sock: socket.socket, reader: P.FrameReader, conv: Conversation, conn: Conn, frames: list[bytes],
               keys: list[int]) -> int:
        """Send a batch and its end, wait for the confirmation, commit (not forced): its NetTime (µs)."""
        srv, st = self.srv, self.status
        luwid = os.urandom(8).hex().upper()
        if len(self.pending) >= 16:
            srv.store.sync(self.pending[-1][1])     # keep the receiver's window small
        first, last, _n = conv.batch_bounds()
        end = conv.send(EndBatch(last, first, luwid, keys, self._durable_batches()))
        self.outstanding = keys
        st.indoubt = True
        st.substate = "SEND"
        sock.sendall(b"".join(frames) + end)
        sent = time.perf_counter()
        st.substate = "ENDBATCH"
        sock.settimeout(CONFIRM_TIMEOUT)
        conv.receive_frame(*reader.read())          # only the confirmation is in turn
        net = int((time.perf_counter() - sent) * 1_000_000)
        sock.settimeout(None)
        reply = conv.next_event()
        assert isinstance(reply, Confirm)
        with srv.lock:
            self._settle(conn, reply.ok, last)
            ticket = conn.ticket
        self.outstanding = []
        st.indoubt = False
        if not reply.ok:
            raise ChannelError(*entry("AMQ9544E"), f"Channel '{self.name_}': the receiving queue manager could not put the "
                               f"batch (reason {reply.reason}): {reply.text}", stop=True)
        self.pending.append((luwid, ticket))
        st.msgs += len(keys)
        st.batches += 1
        st.curseqno = st.lstseqno = last
        st.lstluwid = luwid
        st.last_msg = time.time()
        return net
