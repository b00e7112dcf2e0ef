"""The telemetry (MQXR) service: SYSTEM.MQXR.SERVICE runs the queue manager's MQTT channels, each a
listener on its PORT serving MQTT 3.1 and 3.1.1 clients (mqlite/mqtt: the codec and MQ's rules;
server/mqttclient.py: one client's connection; server/mqttdelivery.py: what reaches it).

Threads: one accepting per channel, one reading per client, one delivering per client. Every
engine call is made under the server's lock."""
from __future__ import annotations

import socket
import threading
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.memory import then_trim
from mqlite.mqtt import session as S
from mqlite.objects.attrbase import PROTOCOL_CHANNELS
from mqlite.objects.attrs import TABLE
from mqlite.objects.model import MQObject
from mqlite.objects.names import generic_match
from mqlite.server.mqttclient import Client, discard_session
from mqlite.server.ports import ProtocolHost
from mqlite.server.protosvc import ProtocolService, accept_loop, channel_tls

TELEMETRY = PROTOCOL_CHANNELS["MQTT"].service


class MQXR(ProtocolService):
    """SYSTEM.MQXR.SERVICE of one queue manager: its running MQTT channels."""
    kind = "MQTT"

    def __init__(self, srv: ProtocolHost) -> None:
        super().__init__(srv, lambda obj: Channel(self, obj))

    def prepare(self) -> None:
        """The transmission queue, made if it is missing (as MQ's sample configuration does)."""
        qm = self.srv.qm
        if qm.queue(S.TRANSMIT_QUEUE) is None:
            obj = MQObject("QLOCAL", S.TRANSMIT_QUEUE, TABLE.defaults("QLOCAL"))
            obj.attrs.update(USAGE=C.MQUS_TRANSMISSION, MAXDEPTH=100000, DESCR="IBM MQ Telemetry transmit queue")
            qm.add_object(obj)

    def xmitq_correl(self, xmitq: str, remote_qm: str) -> bytes | None:
        """A message an application puts for ObjectQMgrName = a ClientIdentifier (through a queue
        manager alias to SYSTEM.MQTT.TRANSMIT.QUEUE, or its DEFXMITQ) waits there under the
        client's key, where the client's delivery looks (engine hook, engine lock held)."""
        return S.client_key(remote_qm) if xmitq == S.TRANSMIT_QUEUE else None

    def ensure(self) -> None:
        """SYSTEM.MQXR.SERVICE, for a queue manager made before crtmqm defined it."""
        qm = self.srv.qm
        with self.srv.lock:
            if TELEMETRY not in qm.objects["SERVICE"]:
                qm.add_object(service_object())

    def channel_status(self, pattern: str, client: str | None) -> list[dict[str, Any]]:
        """DISPLAY CHSTATUS of MQTT channels: one row a channel (CONNECTIONS), or with CLIENTID one
        row a matching client."""
        rows: list[dict[str, Any]] = []
        for name, ch in sorted(self.channels.items()):
            if not generic_match(pattern, name):
                continue
            if client is None:
                rows.append({"CHANNEL": name, "CHLTYPE": "MQTT", "CONNECTIONS": len(ch.clients), "STATUS": "RUNNING"})
                continue
            for cid, c in sorted(ch.clients.items()):
                if generic_match(client, cid):
                    rows.append(c.status_row())
        return rows

    def purge(self, name: str, client: str) -> str | None:
        """PURGE CHANNEL CLIENTID: the client's connection ended and its session (subscriptions and
        the messages waiting for it) discarded."""
        ch = self.channels.get(name)
        live = ch.clients.get(client) if ch is not None else None
        if live is not None:
            live.close(publish_will=False)
            live.join()
        discard_session(self.srv, client)
        return None


def service_object() -> MQObject:
    """SYSTEM.MQXR.SERVICE as crtmqm defines it: a SERVER service the queue manager runs itself,
    CONTROL(MANUAL) until ALTER SERVICE CONTROL(QMGR) has it start with the queue manager."""
    obj = MQObject("SERVICE", TELEMETRY, TABLE.defaults("SERVICE"))
    obj.attrs.update(DESCR="Manages clients that use MQ Telemetry (MQTT)", SERVTYPE=C.MQSVC_TYPE_SERVER,
                     STARTCMD="+MQ_INSTALL_PATH+/mqxr/bin/runMQXRService.sh", STOPCMD="+MQ_INSTALL_PATH+/mqxr/bin/"
                     "endMQXRService.sh", STARTARG="-m +QMNAME+ -d \"+MQ_Q_MGR_DATA_PATH+\" -g \"+MQ_DATA_PATH+\"",
                     STOPARG="-m +QMNAME+")
    return obj


class Channel:
    """One running MQTT channel: its listening socket and its clients by ClientIdentifier."""

    def __init__(self, service: MQXR, obj: MQObject) -> None:
        self.service, self.srv, self.obj = service, service.srv, obj
        self.clients: dict[str, Client] = {}
        self.tls = channel_tls(self.srv, obj)
        self.sock = socket.create_server((obj["LOCLADDR"].split("(")[0] or "", obj["PORT"]),
                                         backlog=min(obj["BACKLOG"] or 4096, 4096), reuse_port=False)
        self.closing = False

    def start(self) -> None:
        threading.Thread(target=self._accept, name=f"mqtt-{self.obj.name}", daemon=True).start()

    def _accept(self) -> None:
        accept_loop(self.sock, lambda: self.closing, lambda sock, peer: threading.Thread(
            target=then_trim(Client(self, sock, peer).run), name="mqtt-client", daemon=True).start())

    def close(self) -> None:
        self.closing = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)        # (wakes the accepting thread)
        except OSError:
            pass
        self.sock.close()
        for c in list(self.clients.values()):
            c.close(publish_will=True)


