"""Channels of one queue manager: the channel initiator, the statuses and the operator commands.

The channel initiator is always on (no trigger monitor): when a message arrives on a transmission
queue whose sender channel is inactive, the channel starts; it ends again after DISCINT idle.
A STOPPED channel stays stopped, across restarts too, until START CHANNEL.

The engine says a message waits (``Hooks.available``, ``Hooks.channel_wanted``) with its lock held;
the manager only notes the channel then, and its initiator thread starts the sending MCA. The
sending MCA is ``channels.sender``; the receiving end, ``channels.receiver``.
"""
from __future__ import annotations

import collections
import os
import queue
import ssl
import threading
from collections.abc import Callable
from typing import Any, Protocol

from mqlite.catalogue import entry, message
from mqlite.channels.limits import LIMIT_NAMES, MAX_CHANNELS, ChannelLimits, instances, refusal
from mqlite.channels.receiver import Receiver
from mqlite.channels.sender import SenderMCA, connect_channel, released
from mqlite.channels.status import (
    RECEIVING,
    SENDING,
    ChannelError,
    ChannelStatus,
    Link,
    StatusTable,
    channel_event,
)
from mqlite.cmq import CMQC as C
from mqlite.cmq.CMQCFC import MQCHLA_ENABLED
from mqlite.cmq.CMQXC import MQSCA_REQUIRED
from mqlite.engine.host import Host
from mqlite.net import protocol as P
from mqlite.objects.attrbase import PROTOCOL_CHANNELS
from mqlite.objects.model import MQObject
from mqlite.objects.names import generic_match
from mqlite.security import chlauth, tls

PING_TIMEOUT = 10.0     # seconds a PING CHANNEL waits for the partner's echo
SLOT_RETRY = 1.0        # how often a sender waiting in STARTING for an active slot looks again
MAX_REACHED = "Maximum number of channels reached."


NO_TELEMETRY = message("MQL0014E", kinds=' and '.join(PROTOCOL_CHANNELS))


class Telemetry(Protocol):
    """A protocol service's part in channel commands: the MQTT channels' (server/mqxr.py), the
    AMQP channels' (server/amqpsvc.py)."""
    service: str                 # its SERVICE object: SYSTEM.MQXR.SERVICE, SYSTEM.AMQP.SERVICE

    def start(self) -> str | None: ...

    def status(self) -> dict[str, Any] | None: ...

    def purge(self, name: str, client: str) -> str | None: ...

    def start_channel(self, name: str) -> str | None: ...

    def stop_channel(self, name: str) -> str | None: ...

    def channel_status(self, pattern: str, client: str | None) -> list[dict[str, Any]]: ...

    def ensure(self) -> None: ...

    def stop(self) -> str | None: ...

    def xmitq_correl(self, xmitq: str, remote_qm: str) -> bytes | None: ...


class ChannelManager:
    def __init__(self, host: Host) -> None:
        self.srv = host
        self.status = StatusTable()
        self.status.observers.append(self._observe)
        self._events: collections.deque[Any] = collections.deque()    # channel events to write
        self.senders: dict[str, SenderMCA] = {}
        self.receivers: dict[str, Link] = {}
        self._wanted: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._asked: set[str] = set()             # channels noted and not yet looked at by the initiator
        self._initiator: threading.Thread | None = None
        self._for_slot: set[str] = set()          # senders waiting in STARTING for an active slot
        # A channel instance (client conversation, receiver, sender) is counted against the limits
        # and taken under this lock, so two arriving together cannot both take the last slot.
        self.admission = threading.Lock()
        self.closing = False
        self.limits = ChannelLimits()             # qm.ini's CHANNELS stanza (channels.limits)
        self.clients: Callable[[], int] = lambda: 0   # client conversations running (the server's count)
        self.protocols: dict[str, Telemetry] = {}   # channel type (MQTT, AMQP) -> the service running them

    def new_status(self, name: str, kind: str, state: str = "INACTIVE", **fields: Any) -> ChannelStatus:
        return ChannelStatus(name, kind, state, changes=self.status.changes, observers=self.status.observers,
                             **fields)

    def _observe(self, st: ChannelStatus, old: str, new: str) -> None:
        """A channel's state changed (in any thread, any lock held or not): its channel event, if
        it has one, is noted and written by the initiator's thread under the engine lock."""
        event = channel_event(old, new, st.by_user, st.error)
        if event is not None:
            self._events.append((event, st.name.split("@")[0], st.chltype, st.xmitq, st.conname, st.error))
            self._wanted.put("")

    def _slot_event(self, reason: int, chl: MQObject) -> None:
        """Channel Not Activated (a sender waits for an active slot: MaxActiveChannels) or
        Channel Activated (it got one), written with the other channel events."""
        self._events.append(((reason, 0), chl.name, chl.kind, chl.get("XMITQ", ""), chl["CONNAME"], ""))
        self._wanted.put("")

    def _write_events(self) -> None:
        """The channel events noted since the last call (engine lock held)."""
        while self._events:
            (reason, qualifier), name, chltype, xmitq, conname, error = self._events.popleft()
            self.srv.qm.events.channel(reason, qualifier, name, xmitq if chltype in SENDING + ("CLUSRCVR",) else "",
                                       conname, error)

    def generation(self) -> int:
        """Grows whenever a channel's state changes (the workload algorithm reads it)."""
        return self.status.changes[0]

    def channel(self, name: str) -> MQObject | None:
        """A channel definition: defined here, or an auto-defined cluster-sender channel."""
        qm = self.srv.qm
        return qm.lookup("CHANNEL", name) or qm.cluster.auto_channel(name)

    def state(self, name: str) -> str:
        st = self.status.get(name)
        return "INACTIVE" if st is None else st.state

    def room(self, already_current: bool = False) -> int | None:
        """Why one more channel instance may not become active now (MaxChannels or
        MaxActiveChannels reached), or None. ``already_current``: a sender waiting in STARTING,
        which needs only an active slot."""
        current, active = instances((st.state for st in list(self.status.values())), self.clients())
        return refusal(self.limits, current - 1 if already_current else current, active)

    def limit_reached(self, name: str, why: int) -> None:
        self.srv.log.write("AMQ9513E", MAX_REACHED,
                           f"Channel '{name}' could not start: {LIMIT_NAMES[why]} reached (MaxChannels "
                           f"{self.limits.max_channels}, MaxActiveChannels {self.limits.max_active} in qm.ini's "
                           "CHANNELS stanza).")

    # --- the channel initiator ----------------------------------------------------------------
    def startup(self) -> None:
        """At queue-manager start: stopped channels stay stopped; channels with work start."""
        self._initiator = threading.Thread(target=self._initiate, name="chinit", daemon=True)
        self._initiator.start()
        for svc in self.protocols.values():
            svc.ensure()
        qm = self.srv.qm
        with self.srv.lock:
            for name, rec in qm.uow.chsync.items():
                chl = self.channel(name)
                if chl is not None and rec.get("stopped"):
                    self.status[name] = self.new_status(name, chl.kind, "STOPPED", xmitq=chl.get("XMITQ", ""))
                if rec.get("xmitq"):
                    qm.cluster.associate(name, rec["xmitq"])
            for chl in list(qm.objects["CHANNEL"].values()):
                if chl.kind in ("SDR", "SVR") and chl["CONNAME"] and chl.name not in self.status:
                    qs = qm.queues.get(chl["XMITQ"])
                    if qs is not None and qs.depth:
                        self.want(chl.name)
            # Cluster transmission queues: a channel for every CorrelId waiting there.
            for name in sorted(qm.cluster.channels_with_work()):
                self.want(name)

    def want(self, name: str) -> None:
        """Note that a sender channel has work (engine lock held): the initiator starts it if it is
        inactive. Nothing is started here, so the engine's callers may note channels too."""
        if name in self.senders or name in self._asked:
            return
        st = self.status.get(name)
        if st is not None and st.state != "INACTIVE":
            return
        self._asked.add(name)
        self._wanted.put(name)

    def xmitq_message(self, queue: str) -> None:
        """A message became visible on ``queue`` (engine lock held): note the channels it serves."""
        qm = self.srv.qm
        obj = qm.queue(queue)
        if obj is None or obj["USAGE"] != C.MQUS_TRANSMISSION:
            return
        for chl in qm.objects["CHANNEL"].values():
            if chl.kind in ("SDR", "SVR") and chl["XMITQ"] == queue and chl["CONNAME"]:
                self.want(chl.name)

    def _initiate(self) -> None:
        """The channel initiator's thread: start each noted channel that is still inactive, and
        look again every SLOT_RETRY at the senders waiting for an active slot."""
        while True:
            try:
                names = [self._wanted.get(timeout=SLOT_RETRY if self._for_slot else None)]
            except queue.Empty:
                names = sorted(self._for_slot)
            if None in names:
                return
            with self.srv.lock:
                self._write_events()
                for name in names:
                    if not name:
                        continue                # only woken for channel events
                    self._asked.discard(name)
                    if self.closing or name in self.senders:
                        continue
                    st = self.status.get(name)
                    if st is not None and st.state != ("STARTING" if name in self._for_slot else "INACTIVE"):
                        self._for_slot.discard(name)
                        continue
                    chl = self.channel(name)
                    if chl is not None and chl.kind in SENDING and chl["CONNAME"]:
                        self._start_sender(chl)

    def _start_sender(self, chl: MQObject) -> str | None:
        """Start the sending MCA if the channel limits allow (engine lock held). Over
        MaxChannels it does not start (the AMQ9513E text is the answer); over MaxActiveChannels
        it waits in STARTING for a slot."""
        waiting = chl.name in self._for_slot
        with self.admission:
            why = self.room(already_current=waiting)
            if why is None:
                mca = SenderMCA(self.srv, self, chl)        # its status takes the slot
            elif not waiting and why != MAX_CHANNELS:
                self._for_slot.add(chl.name)
                self.status[chl.name] = self.new_status(chl.name, chl.kind, "STARTING", xmitq=chl.get("XMITQ", ""),
                                                        conname=chl["CONNAME"])
        if why is not None:
            if not waiting:
                self.limit_reached(chl.name, why)
                if why != MAX_CHANNELS:
                    self._slot_event(C.MQRC_CHANNEL_NOT_ACTIVATED, chl)     # it waits for an active slot
            return message("AMQ9513E") if why == MAX_CHANNELS and not waiting else None
        if waiting:
            self._slot_event(C.MQRC_CHANNEL_ACTIVATED, chl)                 # the slot it waited for
        self._for_slot.discard(chl.name)
        self.senders[chl.name] = mca
        mca.start()
        return None

    # --- operator commands (MQSC) -------------------------------------------------------------
    def start_channel(self, name: str) -> str | None:
        chl = self.channel(name)
        if chl is None:
            return message("AMQ8227E", name=name)
        self.set_stopped(name, False)
        st = self.status.get(name)
        if chl.kind in PROTOCOL_CHANNELS:
            if st is not None and st.state == "STOPPED":
                del self.status[name]
            svc = self.protocols.get(chl.kind)
            return svc.start_channel(name) if svc is not None else NO_TELEMETRY
        if chl.kind in RECEIVING and chl.kind != "RQSTR" or chl.kind == "SVRCONN":
            # (a receiving end, or a SVRCONN, waits for its partner: START lets it in again)
            if st is not None and st.state == "STOPPED":
                del self.status[name]
            return None
        if chl.kind not in SENDING:
            return message("MQL0005E", name=name, kind=chl.kind)
        if not chl["CONNAME"]:
            return message("MQL0006E", name=name)
        if name in self.senders:
            return None
        if st is not None and st.state == "STOPPED":
            del self.status[name]
        return self._start_sender(chl)

    def stop_channel(self, name: str, mode: str = "QUIESCE", status: str = "STOPPED") -> str | None:
        chl = self.channel(name)
        if chl is None:
            return message("AMQ8147E", name=name)
        mca = self.senders.get(name)
        stopped = status == "STOPPED"
        if chl.kind in PROTOCOL_CHANNELS:
            svc = self.protocols.get(chl.kind)
            err = svc.stop_channel(name) if svc is not None else NO_TELEMETRY
            if err is None and stopped:
                self.set_stopped(name, True)
                self.status[name] = self.new_status(name, chl.kind, "STOPPED")
            return err
        self._for_slot.discard(name)
        for key, st in list(self.status.items()):
            if key == name or key.startswith(name + "@"):
                st.by_user = True               # its end is reported as Channel Stopped By User
        if mca is not None:
            mca.request_stop(force=(mode == "FORCE"), final=status)
        sessions = [s for k, s in list(self.receivers.items()) if k == name or k.startswith(name + "@")]
        for sess in sessions:
            sess.kill()
        if mca is None and not sessions and name not in self.status and not stopped:
            return message("AMQ9533E", name=name)
        if stopped:
            self.set_stopped(name, True)
            self.status[name] = self.new_status(name, chl.kind, "STOPPED", xmitq=chl.get("XMITQ", ""))
        elif mca is None:
            self.status.pop(name, None)
        return None

    def set_stopped(self, name: str, stopped: bool) -> None:
        qm = self.srv.qm
        with self.srv.lock:
            rec = qm.uow.record(name)
            if bool(rec.get("stopped")) == stopped:
                return
            rec["stopped"] = stopped
            ticket = self._save_chsync(name, rec)
        self.srv.store.sync(ticket)

    def _save_chsync(self, name: str, rec: dict[str, Any]) -> Any:
        """Write a channel's synchronisation record as the queue manager (engine lock held);
        return the store ticket to wait on once the lock is let go."""
        qm = self.srv.qm
        conn = qm.connect("chsync", C.MQAT_QMGR)
        qm.set_chsync(conn, name, rec)
        ticket = conn.ticket
        qm.disconnect(conn)
        return ticket

    def ping_channel(self, name: str) -> str | None:
        chl = self.channel(name)
        if chl is None:
            return message("AMQ8147E", name=name)
        if chl.kind not in SENDING or not chl["CONNAME"]:
            return message("MQL0009E", name=name, kind=chl.kind)
        if name in self.senders:
            return message("AMQ9514E", name=name)
        with released(self.srv.lock):     # (the partner may be slow or silent: the queue manager goes on)
            return ping(self.srv.qm, chl)

    def reset_channel(self, name: str, seqnum: int) -> str | None:
        qm = self.srv.qm
        chl = self.channel(name)
        if chl is None:
            return message("AMQ8147E", name=name)
        if name in self.senders or name in self.receivers:
            return message("AMQ9514E", name=name)
        with self.srv.lock:
            rec = qm.uow.record(name)
            rec["seq"] = seqnum - 1 if seqnum > 0 else 0
            rec["luwid"] = ""
            rec["window"] = []
            rec.pop("partner", None)
            if chl.kind in SENDING:
                rec["reset"] = True
            ticket = self._save_chsync(name, rec)
        self.srv.store.sync(ticket)
        return None

    def resolve_channel(self, name: str, action: str) -> str | None:
        """No batch stays in doubt here once the sender is gone: the receiver's window settles it
        at the next connection. While a sender is running it owns its batch."""
        chl = self.channel(name)
        if chl is None:
            return message("AMQ8147E", name=name)
        if name in self.senders:
            return message("AMQ9514E", name=name)
        return None

    def channel_status(self, pattern: str, client: str | None = None) -> list[dict[str, Any]]:
        """DISPLAY CHSTATUS: message channels' statuses and the MQTT channels' (with ``client``,
        DISPLAY CHSTATUS CLIENTID: only the matching MQTT clients')."""
        out = []
        for key in sorted(self.status) if client is None else ():
            if generic_match(pattern, self.status[key].name):
                out.append(self.status[key].display())
        return out + [row for svc in self.protocols.values() for row in svc.channel_status(pattern, client)]

    def shutdown(self) -> None:
        for svc in self.protocols.values():
            svc.stop()
        with self.srv.lock:
            self.closing = True
        self._wanted.put(None)
        for mca in list(self.senders.values()):
            mca.request_stop(force=True, final="INACTIVE")
        for mca in list(self.senders.values()):
            mca.join(5)

    # --- the receiving end ---------------------------------------------------------------------
    def accept(self, session: Link, req: dict[str, Any]) -> None:
        """A channel connection arrived on a listener: check it, answer, and serve it."""
        srv = self.srv
        qm = srv.qm
        P.checked(req, "channel HELLO", from_qmgr="str", sslciph="str", seq="int", batchsz="int", ping="bool",
                  reset="bool", seqwrap="int")
        # The sender's sequence numbers wrap where its SEQWRAP says (the batches are checked by it).
        seqwrap = req.get("seqwrap") or 999_999_999
        if not 100 <= seqwrap <= 999_999_999:
            raise ChannelError(*entry("AMQ9504E", channel=str(req.get("channel") or "")),
                               f"SEQWRAP {seqwrap} is outside 100..999999999.")
        name = str(req.get("channel") or "")
        if "+QMNAME+" in name:
            # A manual CLUSSDR named TO.+QMNAME+: the name it reaches is the one with ours in it.
            name = name.replace("+QMNAME+", qm.name)[:20]
        partner = str(req.get("from_qmgr") or "")
        chl = qm.lookup("CHANNEL", name)
        if chl is None:
            raise ChannelError(*entry("AMQ9519E", channel=name))
        if chl.kind not in RECEIVING:
            raise ChannelError(*entry("AMQ9547E"), f"Channel '{name}' is not a receiving channel here.")
        mismatch = tls.check_channel(name, chl["SSLCIPH"], chl.get("SSLCAUTH") == MQSCA_REQUIRED,
                                     chl["SSLPEER"], session.sock, str(req.get("sslciph") or ""))
        if mismatch is not None:
            with self.srv.lock:
                qm.events.ssl_error(tls.SSL_QUALIFIERS[mismatch[1]], name, str(getattr(session, "peer", "")).split("(")[0],
                                    peer=tls.peer_dn(session.sock))
            raise ChannelError(mismatch[1], mismatch[2])
        if qm.qmgr["CHLAUTH"] == MQCHLA_ENABLED:
            # CHLAUTH for message channels: BLOCKADDR, then QMGRMAP/ADDRESSMAP (NOACCESS refuses).
            cert = session.sock.getpeercert() if isinstance(session.sock, ssl.SSLSocket) else None
            who = chlauth.Partner(name, False, str(getattr(session, "peer", "")).split("(")[0], qmgr=partner,
                                  sslpeer=tls.subject_dn(cert), sslcerti=tls.issuer_dn(cert))
            d = chlauth.decide(qm.security.rules, who, chl.get("MCAUSER", ""), qm.security.is_admin)
            if not d.allowed:
                with self.srv.lock:
                    qm.events.channel_blocked(chlauth.blocked_qualifier(d), name, who.address, rqmgr=partner)
                raise ChannelError(*entry(d.msgid), f"Channel '{name}' was blocked from queue manager {partner}: {d.why}.")
        st = self.status.get(name)
        if st is not None and st.state == "STOPPED":
            raise ChannelError(*entry("AMQ9528E", name=name))
        # A cluster-receiver channel runs one instance per sending queue manager, each with its own
        # sequence numbers: the instance key is "CHANNEL@QMGR" ('@' is never in a channel name).
        key = f"{name}@{partner}" if chl.kind == "CLUSRCVR" else name
        if key in self.receivers:
            raise ChannelError(*entry("AMQ9514E", name=name))
        want = str(req.get("qmgr") or "")
        if want and want != qm.name:
            raise ChannelError(*entry("AMQ9520E", name=name, name2=qm.name, want=want))
        if req.get("ping"):
            P.send_frame(session.sock, P.HELLO_OK, P.encode_json({"qmgr": qm.name, "proto": P.PROTOCOL_VERSION}))
            Receiver(self.srv, session.sock, session.reader or P.FrameReader(session.sock), name, partner,
                     self.new_status(name, chl.kind), seqwrap=seqwrap).serve()
            return
        rec = qm.uow.record(key)
        if rec.get("partner") and partner and rec["partner"] != partner and not req.get("reset"):
            raise ChannelError(*entry("AMQ9535E", name=name, partner=rec['partner'], partner2=partner))
        mine_seq = int(rec.get("seq", 0))
        window = list(rec.get("window", []))
        their_seq = req.get("seq") or 0
        if req.get("reset"):
            mine_seq, window = their_seq, []
        elif their_seq != mine_seq and not (window and window[0]["first"] - 1 <= their_seq < mine_seq
                                            and window[-1]["last"] == mine_seq):
            # A sender may lag only by batches whose commit it had not made durable (in the window).
            raise ChannelError(*entry("AMQ9526E", name=name, their_seq=their_seq, mine_seq=mine_seq))
        if req.get("reset") or rec.get("partner") != partner:
            new = dict(rec, seq=mine_seq, partner=partner, window=window)
            with srv.lock:
                ticket = self._save_chsync(key, new)
            srv.store.sync(ticket)
        mine_luwid = str(rec.get("luwid", ""))
        status = self.new_status(name, chl.kind, "RUNNING", substate="RECEIVE", conname=session.peer,
                                 rqmname=partner, curseqno=mine_seq, lstseqno=mine_seq, lstluwid=mine_luwid)
        with self.admission:
            if self.room() is not None:
                raise ChannelError("AMQ9513E", MAX_REACHED)
            self.status[key] = status
        self.receivers[key] = session
        try:
            P.send_frame(session.sock, P.HELLO_OK, P.encode_json({
                "qmgr": qm.name, "proto": P.PROTOCOL_VERSION, "seq": mine_seq, "channel": name,
                "committed": [k for w in window for k in w["keys"]],
                "batchsz": min(req.get("batchsz") or 50, chl["BATCHSZ"]),
                "maxmsgl": min(req.get("maxmsgl") or 4194304, chl["MAXMSGL"] or 104857600)}))
            Receiver(self.srv, session.sock, session.reader or P.FrameReader(session.sock), name, partner,
                     status, key, seqwrap).serve()
        finally:
            self.receivers.pop(key, None)
            if self.status.get(key) is status:
                del self.status[key]


def ping(qm: Any, chl: MQObject) -> str | None:
    """PING CHANNEL's exchange with the partner: None, or why it failed."""
    name = chl.name
    try:
        sock, reader, _info = connect_channel(qm.name, chl, ping=True, qmobj=qm.qmgr)
        try:
            sock.settimeout(PING_TIMEOUT)
            data = os.urandom(16)
            P.send_frame(sock, P.CH_PING, data)
            ftype, echo = reader.read()
            P.send_frame(sock, P.CH_CLOSE, b"")
        finally:
            sock.close()
    except ChannelError as e:
        return f"{e.msgid}: {e.text}" + (f" {e.detail}" if e.detail else "")
    except (OSError, ConnectionError, P.ProtocolError) as e:
        return message("AMQ9202E", host=chl["CONNAME"]) + f" Channel '{name}': {e}."
    if ftype != P.CH_PING | P.REPLY or echo != data:
        return message("AMQ9504E", channel=name)
    return None
