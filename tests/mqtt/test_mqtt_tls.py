"""MQTT channels with TLS: SSLCIPH makes the channel TLS only, its certificate from the channel's
SSLKEYR (or the queue manager's), SSLCAUTH(REQUIRED) asking every client for a certificate;
real paho-mqtt clients over TLS, a plain client refused, a client without a certificate refused
where one is required, and the handshake failure reported as MQ does (AMQ9665E)."""
from __future__ import annotations

import os
import socket
import ssl
import time
from collections.abc import Iterator
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from mqlite.cli.proc import free_port
from mqlite.mqtt import codec as K
from mqlite.testing import Harness
from tests.mqtt.test_mqtt_channel import Client
from tests.server.test_tls import server_pki


@pytest.fixture(scope="module")
def tlsrig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    d = str(tmp_path_factory.mktemp("pki"))
    pki, server, ca = server_pki(d, "mqttserver", "MQTTQM")
    one, two = free_port(), free_port()
    with Harness(str(tmp_path_factory.mktemp("data"))) as h:
        qm = h.add("MQTTTLS", f"DEFINE CHANNEL(MQTT.TLS) CHLTYPE(MQTT) PORT({one}) LOCLADDR('127.0.0.1') "
                              f"SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(OPTIONAL) SSLKEYR('{server}')\n"
                              f"DEFINE CHANNEL(MQTT.MUTUAL) CHLTYPE(MQTT) PORT({two}) LOCLADDR('127.0.0.1') "
                              f"SSLCIPH(ANY_TLS13) SSLCAUTH(REQUIRED) SSLKEYR('{server}')\n"
                              "ALTER QMGR SSLEV(ENABLED)\nSTART SERVICE(SYSTEM.MQXR.SERVICE)\n")
        yield {"qm": qm, "pki": pki, "ca": ca, "tls": one, "mutual": two, "client": pki.repo("alice", "alice")}


class TLSClient(Client):
    """A paho-mqtt client that starts TLS, trusting the test CA (and presenting ``cert``)."""

    def __init__(self, port: int, client_id: str, ca: str, cert: str | None = None) -> None:
        self.ca, self.cert = ca, cert
        super().__init__(port, client_id)

    def _prepare(self, c: mqtt.Client) -> None:
        c.tls_set(ca_certs=self.ca, certfile=self.cert, keyfile=self.cert, cert_reqs=ssl.CERT_REQUIRED)
        c.tls_insecure_set(True)                       # (the test certificate names no host)


def test_publish_and_subscribe_over_tls(tlsrig: dict[str, Any]) -> None:
    sub = TLSClient(tlsrig["tls"], "tls.sub", tlsrig["ca"])
    assert sub.rc == 0 and sub.subscribe("secure/#", 1) == [1]
    pub = TLSClient(tlsrig["tls"], "tls.pub", tlsrig["ca"])
    pub.publish("secure/a", b"sealed", 1)
    (m,) = sub.take(1)
    assert (m.topic, m.payload) == ("secure/a", b"sealed")
    for c in (sub, pub):
        c.close()


def _refused(port: int, ctx: ssl.SSLContext | None) -> bool:
    """A CONNECT (over TLS with ``ctx``, or plain) that gets no CONNACK: the connection ends."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        if ctx is not None:
            s = ctx.wrap_socket(s)
        s.sendall(K.encode(K.Connect("refused", True, 60, "MQTTV311")))
        return s.recv(4) == b""
    except (ssl.SSLError, OSError):
        return True
    finally:
        s.close()


def _client_context(ca: str, cert: str | None = None) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=ca)
    ctx.check_hostname = False
    if cert is not None:
        ctx.load_cert_chain(cert)
    return ctx


def test_a_plain_client_on_a_tls_channel_is_refused(tlsrig: dict[str, Any]) -> None:
    assert _refused(tlsrig["tls"], None)
    path = os.path.join(os.environ["MQLITE_DATA"], "qmgrs", "MQTTTLS", "errors", "AMQERR01.LOG")
    deadline = time.monotonic() + 5
    while "AMQ9665E" not in open(path).read():
        assert time.monotonic() < deadline, open(path).read()[-2000:]
        time.sleep(0.05)


def test_sslcauth_required(tlsrig: dict[str, Any]) -> None:
    assert _refused(tlsrig["mutual"], _client_context(tlsrig["ca"]))          # no certificate
    ok = TLSClient(tlsrig["mutual"], "mutual.cert", tlsrig["ca"], cert=tlsrig["client"] + ".pem")
    assert ok.rc == 0
    shown = tlsrig["qm"].mqsc("DISPLAY CHSTATUS(MQTT.MUTUAL) CLIENTID('mutual.cert')\n").stdout
    assert "CLIENTID(mutual.cert)" in shown
    ok.close()
    events = tlsrig["qm"].mqsc("DISPLAY QLOCAL(SYSTEM.ADMIN.CHANNEL.EVENT) CURDEPTH\n").stdout
    assert "CURDEPTH(0)" not in events                 # Channel SSL Error events (SSLEV)
