"""What the protocol services share (SYSTEM.MQXR.SERVICE for MQTT channels, server/mqxr.py;
SYSTEM.AMQP.SERVICE for AMQP ones, server/amqpsvc.py): the service's start time and its running
channels by name. START SERVICE starts every channel of the type that STOP CHANNEL did not stop;
START CHANNEL needs the service running; STOP SERVICE ends them all."""
from __future__ import annotations

import os
import socket
import ssl
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from mqlite.catalogue import entry, message
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import CMQXC
from mqlite.objects.attrbase import PROTOCOL_CHANNELS
from mqlite.objects.model import MQObject
from mqlite.security import tls
from mqlite.server.ports import ProtocolHost


class Listening(Protocol):
    """One running channel: its listener and the connections it serves."""

    def start(self) -> None: ...

    def close(self) -> None: ...


def channel_tls(srv: ProtocolHost, obj: MQObject) -> ssl.SSLContext | None:
    """An MQTT or AMQP channel with SSLCIPH is TLS only: its certificate from the channel's SSLKEYR
    (an MQTT channel's; a stem, as the queue manager's: ``<stem>.pem``, or ``<stem>.p12`` with
    ``<stem>.sth``), else the queue manager's, labelled the channel's CERTLABL (an AMQP
    channel's), else the queue manager's; SSLCAUTH(REQUIRED) asks every client for a
    certificate that chains to the repository's CAs, OPTIONAL verifies one if sent, NEVER asks
    for none."""
    if not obj["SSLCIPH"].strip():
        return None
    tls.spec(obj["SSLCIPH"])                     # (an unknown CipherSpec: TLSConfigError)
    stem = obj.attrs.get("SSLKEYR") or srv.qm.qmgr["SSLKEYR"]
    if not stem:
        raise tls.TLSConfigError("MQRC_KEY_REPOSITORY_ERROR", "neither the channel nor the queue manager has SSLKEYR")
    ctx = tls.server_context(stem, obj.attrs.get("CERTLABL") or srv.qm.qmgr["CERTLABL"]
                             or f"ibmwebspheremq{srv.name.lower()}")
    ctx.verify_mode = {CMQXC.MQSCA_REQUIRED: ssl.CERT_REQUIRED, CMQXC.MQSCA_NEVER_REQUIRED: ssl.CERT_NONE}.get(
        obj["SSLCAUTH"], ssl.CERT_OPTIONAL)
    return ctx


def start_tls(srv: ProtocolHost, obj: MQObject, ctx: ssl.SSLContext | None, sock: socket.socket, peer: str,
              kind: str) -> ssl.SSLSocket | None:
    """The TLS handshake of a TLS channel's connection, and what it agreed against SSLCIPH; None
    (MQ's AMQ9633E, AMQ9637E, AMQ9665E or AMQ9631E logged, a Channel SSL Error event put) when
    either fails."""
    assert ctx is not None
    try:
        tls_sock = ctx.wrap_socket(sock, server_side=True)
    except (ssl.SSLError, OSError) as e:
        handshake_failed(srv, e, peer, obj.name)
        return None
    version, cipher = tls_sock.version(), (tls_sock.cipher() or ("",))[0]
    if not tls.agreed(obj["SSLCIPH"], version, cipher):
        srv.log.write(*entry("AMQ9631E", channel=obj.name),
                      f"The CipherSpec agreed with {peer} ({cipher} {version}) is not {kind} channel's {obj['SSLCIPH']}.")
        with srv.lock:
            srv.qm.events.ssl_error(F.MQRQ_SSL_CIPHER_SPEC_ERROR, obj.name, peer.split("(")[0])
        tls_sock.close()
        return None
    sslpeer = obj.attrs.get("SSLPEER", "")
    if sslpeer and not tls.dn_match(sslpeer, tls.subject_dn(tls_sock.getpeercert())):
        # (an AMQP channel's SSLPEER: the client's certificate's distinguished name must match it)
        srv.log.write(*entry("AMQ9636E", channel=obj.name),
                      f"The distinguished name '{tls.subject_dn(tls_sock.getpeercert())}' of {peer} does not "
                      f"match SSLPEER '{sslpeer}'.")
        with srv.lock:
            srv.qm.events.ssl_error(F.MQRQ_SSL_PEER_NAME_ERROR, obj.name, peer.split("(")[0])
        tls_sock.close()
        return None
    return tls_sock


def handshake_failed(srv: ProtocolHost, e: OSError, peer: str, channel: str = "") -> None:
    """A TLS handshake that failed: MQ's message for why (security/tls.py) and, with SSLEV, a
    Channel SSL Error event (the channel "" while a client has not yet said which)."""
    srv.log.write(*tls.handshake_refusal(e, peer, channel))
    with srv.lock:
        srv.qm.events.ssl_error(F.MQRQ_SSL_HANDSHAKE_ERROR, channel, peer.split("(")[0],
                                stage=getattr(e, "reason", None) or "SSL_do_handshake",
                                code=e.errno if isinstance(e.errno, int) else 0)


def accept_loop(sock: socket.socket, closing: Callable[[], bool], serve: Callable[[socket.socket, str], None]) -> None:
    """A channel's listener: each connection (TCP_NODELAY) handed to ``serve`` with its peer as
    host(port), until the socket is closed."""
    while not closing():
        try:
            conn, addr = sock.accept()
        except OSError:
            return
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        serve(conn, f"{addr[0]}({addr[1]})")


class ProtocolService:
    """A built-in service's channels of one type (``kind``): ``listener(obj)`` makes one channel's
    listener, listening (OSError, or a refusal the service words in ``refusal``); ``prepare`` is
    what the service makes before its channels start. One of each kind is made at the server's
    start (server/protocols.py)."""
    kind = ""                           # the channels' CHLTYPE, a row of PROTOCOL_CHANNELS

    def __init__(self, srv: ProtocolHost, listener: Callable[[MQObject], Listening]) -> None:
        self.service = PROTOCOL_CHANNELS[self.kind].service     # the SERVICE object's name
        self.srv = srv
        self.listener = listener
        self.started = 0.0
        self.channels: dict[str, Any] = {}
        self.lock = threading.Lock()

    def refusal(self, obj: MQObject, e: Exception) -> str | None:
        """The words for a listener that could not be made because of ``e`` (None: not ours)."""
        if isinstance(e, tls.TLSConfigError):
            return message("AMQ9657E", channel=obj.name) + f" {e.text}"
        return None

    def prepare(self) -> None:
        """What the service makes before its channels start (engine lock held)."""

    def start(self) -> str | None:
        if self.started:
            return None
        qm = self.srv.qm
        with self.srv.lock:
            self.prepare()
            # (a SYSTEM.DEF. channel is a default definition: it runs only when START CHANNEL says)
            names = [o.name for o in qm.objects["CHANNEL"].values()
                     if o.kind == self.kind and not o.name.startswith("SYSTEM.DEF.")]
            stopped = {n for n in names if qm.uow.record(n).get("stopped")}
        self.started = time.time()
        for name in names:
            if name not in stopped:
                err = self.start_channel(name)
                if err:
                    self.srv.log.write(*entry("AMQ9212E"), f"{self.kind} channel {name} could not start: {err}")
        return None

    def stop(self) -> str | None:
        for name in list(self.channels):
            self._end(name)
        self.started = 0.0
        return None

    def status(self) -> dict[str, Any] | None:
        return {"STATUS": "RUNNING", "PID": os.getpid(), "STARTED": self.started} if self.started else None

    def start_channel(self, name: str) -> str | None:
        obj = self.srv.qm.objects["CHANNEL"].get(name)
        if obj is None:
            return message("AMQ8147E", name=name)
        if not self.started:
            return message("MQL0029E", service=self.service)
        with self.lock:
            if name in self.channels:
                return None
            try:
                ch = self.listener(obj)
            except OSError as e:
                return message("AMQ9218E", port=obj['PORT']) + f" {self.kind} channel {name}: {e}."
            except Exception as e:
                why = self.refusal(obj, e)
                if why is None:
                    raise
                return why
            self.channels[name] = ch
        ch.start()
        return None

    def stop_channel(self, name: str) -> str | None:
        if name not in self.channels:
            return message("AMQ9533E", name=name)
        self._end(name)
        return None

    def _end(self, name: str) -> None:
        with self.lock:
            ch = self.channels.pop(name, None)
        if ch is not None:
            ch.close()
