"""What reaches an MQTT client: the messages waiting for it on SYSTEM.MQTT.TRANSMIT.QUEUE (its
subscriptions' publications, and what applications put for its ClientIdentifier), got under
syncpoint in two alternating units of work (``Lane``) and sent at the QoS each is owed."""
from __future__ import annotations

import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Protocol

from mqlite.catalogue import entry
from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.headers import XQH, XQH_LEN
from mqlite.cmq.structs import GMO, MD, text
from mqlite.engine.core import Conn
from mqlite.mqtt import codec as K
from mqlite.mqtt import session as S
from mqlite.props import rfh2
from mqlite.server.ports import ProtocolHost

GET_SLICE = 0.5
GET_BATCH = 16                          # messages a delivery gets in one hold of the engine lock
ACK_SLICE = 0.01                        # how often a delivery waiting for acknowledgements looks for more


@dataclass
class Lane:
    """One unit of work of a client's delivery: its connection, its handle to the transmission
    queue, the messages got under it and not yet committed, their packet identifiers."""
    conn: Conn
    hobj: int
    fetched: int = 0
    exact: bool = False
    ids: list[int] = field(default_factory=list)


class Receiver(Protocol):
    """The client connection a delivery sends to (server/mqttclient.Client)."""
    srv: ProtocolHost
    client_id: str
    closed: bool
    connacked: threading.Event
    out: S.Outbound
    cond: Any
    lanes: list[Lane]
    sent: int
    last_msg: float

    def send(self, data: bytes) -> None: ...

    def close(self, publish_will: bool) -> None: ...


class Delivery:
    """One client's delivering thread (``run``)."""

    def __init__(self, client: Receiver) -> None:
        self.client = client
        # The request of every get: this client's messages, under syncpoint (one MQMD and MQGMO,
        # the get writing only the MQGMO's output fields).
        self.md = MD(CorrelId=S.client_key(client.client_id))
        self.gmo = GMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_NO_WAIT | C.MQGMO_PROPERTIES_FORCE_MQRFH2
                       | C.MQGMO_FAIL_IF_QUIESCING, MatchOptions=C.MQMO_MATCH_CORREL_ID)
        self.heads: dict[tuple[bytes, int, int, bytes], tuple[bytes, dict[str, Any]]] = {}

    def run(self) -> None:
        """Get what waits for this client under syncpoint and send each at the QoS it is owed,
        filling one lane (unit of work) up to WINDOW messages while the other's are acknowledged;
        a lane whose messages are all acknowledged (QoS 0 at once) is committed. A connection
        that ends first leaves its lanes' units of work to be backed out: the messages wait again,
        their backout count telling the next delivery they are duplicates. A commit is made
        durable before going on only when it took a QoS 2 message (exactly once); otherwise a
        commit lost with the queue manager means a message sent again, which QoS 1 allows."""
        c = self.client
        srv = c.srv
        filling = 0
        c.connacked.wait()
        try:
            while not c.closed:
                lane = c.lanes[filling]
                idle = all(not ln.fetched for ln in c.lanes)
                room = min(GET_BATCH, S.WINDOW - lane.fetched)
                got = self._get(lane, room, wait=idle) if room > 0 else []
                if got:
                    packets = []
                    for md, body in got:
                        lane.fetched += 1
                        qos, pid, packet = self._publication(md, body)
                        packets.append(packet)
                        lane.exact |= qos == 2
                        if qos:
                            lane.ids.append(pid)
                    c.send(b"".join(packets))       # (one write for what one get brought)
                    continue
                for ln in c.lanes:
                    with c.cond:
                        done = ln.fetched and not any(pid in c.out.pending for pid in ln.ids)
                    if done and not c.closed:
                        self._commit(ln)
                other = c.lanes[1 - filling]
                if lane.fetched >= S.WINDOW and not other.fetched:
                    filling = 1 - filling           # this one is full: the other takes over
                    continue
                if any(ln.fetched for ln in c.lanes):
                    with c.cond:
                        if c.out.pending and not c.closed:
                            c.cond.wait(ACK_SLICE)   # an acknowledgement, or more to send meanwhile
        except (ConnectionError, OSError):
            c.close(publish_will=True)
        except Exception:
            srv.log.write(*entry("AMQ6184W", qmgr=srv.name),
                          f"Unexpected error delivering to MQTT client {c.client_id}.\n{traceback.format_exc()}")
            c.close(publish_will=True)

    def _commit(self, lane: Lane) -> None:
        c = self.client
        with c.srv.lock:
            c.srv.qm.commit(lane.conn)
            ticket = lane.conn.ticket
        if lane.exact:
            c.srv.store.sync(ticket)
        lane.fetched, lane.exact, lane.ids = 0, False, []

    def _get(self, lane: Lane, most: int, wait: bool) -> list[tuple[MD, bytes]]:
        """Up to ``most`` messages for this client in one hold of the engine lock (waiting a
        slice of a second for the first when ``wait``)."""
        c = self.client
        srv = c.srv
        deadline = time.monotonic() + GET_SLICE
        out: list[tuple[MD, bytes]] = []
        md, gmo = self.md, self.gmo
        with srv.lock:
            limit = srv.qm.qmgr["MAXMSGL"] + 65536
            qs = srv.qm.queues.get(S.TRANSMIT_QUEUE)
            while not c.closed and len(out) < most:
                if qs is None or qs.visible:    # (none to take: no MQGET to fail with 2033)
                    try:
                        r = srv.qm.get(lane.conn, lane.hobj, md, gmo, limit)
                        out.append((r.md, r.body))
                        continue
                    except MQIError as e:
                        if e.reason != C.MQRC_NO_MSG_AVAILABLE:
                            raise
                remaining = deadline - time.monotonic()
                if out or not wait or remaining <= 0:
                    break
                srv.cond_for(S.TRANSMIT_QUEUE).wait(remaining)
        return out

    def _publication(self, md: MD, body: bytes) -> tuple[int, int, bytes]:
        """A message from the transmission queue as the PUBLISH that carries it to the client:
        its QoS, packet identifier (0 for QoS 0) and bytes."""
        c = self.client
        peek = md.peek                          # (the descriptor as the get left it: packed, mostly)
        again = peek("BackoutCount") > 0        # (the message on the queue: sent before)
        fmt, enc, ccsid, persistent = (peek("Format"), peek("Encoding"), peek("CodedCharSetId"),
                                       peek("Persistence") == C.MQPER_PERSISTENT)
        xqh = None
        if fmt == C.MQFMT_XMIT_Q_HEADER and len(body) >= XQH_LEN:
            # Put by an application for ObjectQMgrName = this ClientIdentifier: the MQTT topic is
            # the queue name it gave; at least once if persistent, at most once if not.
            xqh = XQH.from_bytes(body)
            inner, body = xqh.MsgDesc, body[XQH_LEN:]
            fmt, enc, ccsid, persistent = (inner.Format, inner.Encoding, inner.CodedCharSetId,
                                           inner.Persistence == C.MQPER_PERSISTENT)
        props, data = self._properties(fmt, enc, ccsid, body)
        if xqh is not None:
            topic = text(xqh.RemoteQName)
            qos = 1 if persistent else 0
        else:
            topic = str(props.get("mqps.Top") or "")
            published = props.get(S.PUBLISHED_QOS)
            qos = S.delivered_qos(S.qos_of(str(props.get("mqps.Sud") or "")), persistent,
                                  published if isinstance(published, int) else None)
        with c.cond:
            pid = c.out.next_id() if qos else 0
            if qos:
                c.out.pending[pid] = qos
        packet = K.Publish(topic, data, qos, bool(props.get("mqps.Ret")), qos > 0 and again, pid)
        c.sent += 1
        c.last_msg = time.time()
        return qos, pid, K.encode(packet)

    def _properties(self, fmt: bytes, enc: int, ccsid: int, body: bytes) -> tuple[dict[str, Any], bytes]:
        """A message's properties and its data without them. The MQRFH2 chain in front (a
        publication's: its topic, the subscription's user data, the publisher's QoS) is read once
        for all the messages that carry the same one, as one topic's publications do."""
        end = rfh2.chain_length(fmt, enc, body) if fmt == rfh2.RFH2_FORMAT else 0
        if end <= 0:                            # (none, or one that does not read: split says why)
            return _read_properties(fmt, enc, ccsid, body)
        key = (fmt, enc, ccsid, body[:end])
        known = self.heads.get(key)
        if known is None:
            if len(self.heads) >= HEADS:
                self.heads.clear()
            props, prefix = _read_properties(fmt, enc, ccsid, key[3])
            known = self.heads[key] = (prefix, props)
        return known[1], known[0] + body[end:]


HEADS = 256                             # MQRFH2 chains a delivery keeps read


def _read_properties(fmt: bytes, enc: int, ccsid: int, body: bytes) -> tuple[dict[str, Any], bytes]:
    part = rfh2.split(fmt, enc, ccsid, body)
    found: dict[str, tuple[int, Any]] = {}
    for folder in part.folders:
        rfh2.folder_properties(folder, found)
    return {k: v for k, (_t, v) in found.items()}, part.data
