"""SYSTEM.AMQP.SERVICE: the queue manager's AMQP 1.0 channels, each a listener on its PORT whose
connections server/amqpconn.py serves (Qpid Proton's engine for AMQP, mqlite's SASL; docs/amqp.md).
START SERVICE starts every AMQP channel not stopped; STOP SERVICE ends them."""
from __future__ import annotations

import socket
import threading
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.memory import then_trim
from mqlite.objects.attrbase import PROTOCOL_CHANNELS
from mqlite.objects.attrs import TABLE
from mqlite.objects.model import MQObject
from mqlite.objects.names import generic_match
from mqlite.server.ports import ProtocolHost
from mqlite.server.protosvc import ProtocolService, accept_loop, channel_tls

AMQP_SERVICE = PROTOCOL_CHANNELS["AMQP"].service
DEFAULT_CHANNEL = "SYSTEM.DEF.AMQP"      # where DEFINE CHANNEL CHLTYPE(AMQP) takes its defaults
PURGE_WAIT = 10.0                       # seconds PURGE CHANNEL waits for a connection to end


class AMQPService(ProtocolService):
    """SYSTEM.AMQP.SERVICE of one queue manager: its running AMQP channels."""
    kind = "AMQP"

    def __init__(self, srv: ProtocolHost) -> None:
        super().__init__(srv, lambda obj: AMQPChannel(self, obj))
        self.sub_users: dict[str, int] = {}      # a durable subscription's name -> links holding it

    def ensure(self) -> None:
        """SYSTEM.AMQP.SERVICE and SYSTEM.DEF.AMQP, for a queue manager made before they were
        defined."""
        qm = self.srv.qm
        with self.srv.lock:
            if qm.lookup("CHANNEL", DEFAULT_CHANNEL) is None:
                qm.add_object(MQObject("AMQP", DEFAULT_CHANNEL, TABLE.defaults("AMQP")))
            if AMQP_SERVICE not in qm.objects["SERVICE"]:
                obj = MQObject("SERVICE", AMQP_SERVICE, TABLE.defaults("SERVICE"))
                obj.attrs.update(DESCR="Manages clients that use the AMQP protocol", SERVTYPE=C.MQSVC_TYPE_SERVER,
                                 STARTCMD="+MQ_INSTALL_PATH+/amqp/bin/startAMQPService.sh",
                                 STOPCMD="+MQ_INSTALL_PATH+/amqp/bin/endAMQPService.sh", STARTARG="-m +QMNAME+",
                                 STOPARG="-m +QMNAME+")
                qm.add_object(obj)

    def xmitq_correl(self, xmitq: str, remote_qm: str) -> bytes | None:
        return None

    def channel_status(self, pattern: str, client: str | None) -> list[dict[str, Any]]:
        """DISPLAY CHSTATUS of AMQP channels: one row a channel (CONNECTIONS), or with CLIENTID one
        row a matching connection (its container id)."""
        rows: list[dict[str, Any]] = []
        for name, ch in sorted(self.channels.items()):
            if not generic_match(pattern, name):
                continue
            if client is None:
                rows.append({"CHANNEL": name, "CHLTYPE": "AMQP", "CONNECTIONS": len(ch.connections),
                             "STATUS": "RUNNING"})
                continue
            rows += [c.status_row() for c in list(ch.connections) if generic_match(client, c.container)]
        return rows

    def purge(self, name: str, client: str) -> str | None:
        """PURGE CHANNEL CLIENTID: the matching connections ended (their unsettled messages back)
        and their clients' subscriptions removed (``:private:<container>:...``: a share is not a
        client's own)."""
        ch = self.channels.get(name)
        ended = [c for c in (list(ch.connections) if ch is not None else []) if generic_match(client, c.container)]
        for c in ended:
            c.end()
        for c in ended:
            c.done.wait(PURGE_WAIT)
        qm = self.srv.qm
        with self.srv.lock:
            for sub in list(qm.pubsub.subscriptions.values()):
                parts = sub.name.split(":", 3)
                if len(parts) == 4 and parts[1] == "private" and generic_match(client, parts[2]):
                    qm.pubsub.end_subscription(None, sub)
        return None


class AMQPChannel:
    """One running AMQP channel: its listening socket and its connections."""

    def __init__(self, service: AMQPService, obj: MQObject) -> None:
        self.service, self.srv, self.obj = service, service.srv, obj
        self.connections: set[Any] = set()
        self.tls = channel_tls(self.srv, obj)
        self.sock = socket.create_server((obj["LOCLADDR"].split("(")[0] or "", obj["PORT"]), backlog=128)
        self.closing = False

    def start(self) -> None:
        threading.Thread(target=self._accept, name=f"amqp-{self.obj.name}", daemon=True).start()

    def _accept(self) -> None:
        from mqlite.server.amqpconn import AMQPConnection  # (Qpid Proton: imported when first used)

        def serve(sock: socket.socket, peer: str) -> None:
            if len(self.connections) >= self.obj["MAXINST"]:
                sock.close()                                 # MAXINST: no more instances
                return
            conn = AMQPConnection(self, sock, peer)
            self.connections.add(conn)
            threading.Thread(target=then_trim(conn.run), name="amqp-conn", daemon=True).start()
        accept_loop(self.sock, lambda: self.closing, serve)

    def close(self) -> None:
        self.closing = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        for c in list(self.connections):
            c.end()
