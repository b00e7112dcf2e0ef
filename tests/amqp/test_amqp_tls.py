"""AMQP channels with TLS: SSLCIPH makes the channel TLS only (the queue manager's SSLKEYR and the
channel's CERTLABL), SASL PLAIN inside TLS, SASL EXTERNAL for a client whose certificate TLS
verified (it runs as CHLAUTH's SSLPEERMAP maps it), a plain client and a client without a
certificate refused, with Qpid Proton's Python client."""
from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from proton import ConnectionException, Message, SSLDomain
from proton.utils import BlockingConnection

from mqlite.cli.proc import free_port
from mqlite.testing import Harness, run_mqlite
from tests.amqp.conftest import WAIT, Capability, mq_get
from tests.server.test_tls import server_pki


@pytest.fixture(scope="module")
def tlsrig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    d = str(tmp_path_factory.mktemp("pki"))
    pki, server, ca = server_pki(d, "amqpserver", "AMQPTLS")
    port = free_port()
    h = Harness(str(tmp_path_factory.mktemp("data")), security=True)
    try:
        qm = h.add("AMQPTLS", f"ALTER QMGR SSLKEYR('{server}')\n"
                              f"DEFINE CHANNEL(AMQP.TLS) CHLTYPE(AMQP) PORT({port}) LOCLADDR('127.0.0.1') "
                              "SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(OPTIONAL)\n"
                              "SET CHLAUTH('AMQP.TLS') TYPE(SSLPEERMAP) SSLPEER('CN=alice') USERSRC(MAP) MCAUSER('app')\n"
                              "DEFINE QLOCAL(ORDERS)\nSTART SERVICE(SYSTEM.AMQP.SERVICE)\n")
        env = dict(os.environ, MQLITE_DATA=h.data_dir)
        assert run_mqlite("setmqusr", "-m", "AMQPTLS", "-u", "app", "-p", "apppw", "-g", "appgrp", env=env).returncode == 0
        for args in (("-t", "qmgr", "-p", "app", "+connect"),
                     ("-t", "queue", "-n", "ORDERS", "-p", "app", "+put", "+get")):
            assert run_mqlite("setmqaut", "-m", "AMQPTLS", *args, env=env).returncode == 0
        yield {"qm": qm, "port": port, "ca": ca, "alice": pki.repo("alice", "alice") + ".pem",
               "mallory": pki.repo("mallory", "mallory") + ".pem"}
    finally:
        h.close()


def domain(rig: dict[str, Any], cert: str | None = None) -> SSLDomain:
    ssl = SSLDomain(SSLDomain.MODE_CLIENT)
    ssl.set_trusted_ca_db(rig["ca"])
    ssl.set_peer_authentication(SSLDomain.VERIFY_PEER)          # (the test certificate names no host)
    if cert is not None:
        ssl.set_credentials(cert, cert, None)
    return ssl


def test_plain_sasl_inside_tls(tlsrig: dict[str, Any]) -> None:
    c = BlockingConnection(f"amqps://127.0.0.1:{tlsrig['port']}", ssl_domain=domain(tlsrig), user="app",
                           password="apppw", allowed_mechs="PLAIN", timeout=WAIT)
    c.create_sender("ORDERS", options=Capability("queue")).send(Message(body="sealed", durable=True))
    rcv = c.create_receiver("ORDERS", credit=5, options=Capability("queue"))
    assert rcv.receive(timeout=WAIT).body == "sealed"
    rcv.accept()
    c.close()


def test_external_runs_as_chlauth_maps_the_certificate(tlsrig: dict[str, Any]) -> None:
    c = BlockingConnection(f"amqps://127.0.0.1:{tlsrig['port']}", ssl_domain=domain(tlsrig, tlsrig["alice"]),
                           allowed_mechs="EXTERNAL", timeout=WAIT)
    c.create_sender("ORDERS", options=Capability("queue")).send(Message(body="from alice", durable=True))
    c.close()
    got = mq_get(tlsrig, "ORDERS")
    assert got is not None and got[1] == b"from alice" and got[0].UserIdentifier.strip() == b"app"


@pytest.mark.parametrize("how", ["no certificate", "unmapped certificate", "plain TCP"])
def test_refused(tlsrig: dict[str, Any], how: str) -> None:
    url = f"amqps://127.0.0.1:{tlsrig['port']}"
    with pytest.raises(ConnectionException):
        if how == "no certificate":             # (EXTERNAL is not offered without one)
            BlockingConnection(url, ssl_domain=domain(tlsrig), allowed_mechs="EXTERNAL", timeout=WAIT)
        elif how == "unmapped certificate":     # (mallory: no SSLPEERMAP, no MCAUSER: no one)
            BlockingConnection(url, ssl_domain=domain(tlsrig, tlsrig["mallory"]), allowed_mechs="EXTERNAL",
                               timeout=WAIT)
        else:
            BlockingConnection(f"amqp://127.0.0.1:{tlsrig['port']}", user="app", password="apppw",
                               allowed_mechs="PLAIN", timeout=WAIT)
    assert tlsrig["qm"].running()
    c = BlockingConnection(url, ssl_domain=domain(tlsrig), user="app", password="apppw", allowed_mechs="PLAIN",
                           timeout=WAIT)
    c.close()                                   # the channel serves the next one


def test_sslpeer_admits_only_the_certificate_it_names(tlsrig: dict[str, Any]) -> None:
    """An AMQP channel's SSLPEER (MQ 9.4 shows it on DISPLAY CHANNEL of an AMQP channel): a client
    whose certificate's distinguished name does not match is refused after the handshake, with
    AMQ9636E in the error log; one that matches is served."""
    qm = tlsrig["qm"]
    restart = "STOP CHANNEL(AMQP.TLS)\nSTART CHANNEL(AMQP.TLS)\n"       # (as MQ: it takes effect at the restart)
    qm.mqsc("ALTER CHANNEL(AMQP.TLS) CHLTYPE(AMQP) SSLPEER('CN=alice')\n" + restart, check=True)
    try:
        url = f"amqps://127.0.0.1:{tlsrig['port']}"
        with pytest.raises(ConnectionException):
            BlockingConnection(url, ssl_domain=domain(tlsrig, tlsrig["mallory"]), allowed_mechs="EXTERNAL",
                               timeout=WAIT)
        log = open(os.path.join(qm.harness.data_dir, "qmgrs", "AMQPTLS", "errors", "AMQERR01.LOG")).read()
        assert "AMQ9636E: SSL distinguished name does not match peer name, channel 'AMQP.TLS'." in log
        c = BlockingConnection(url, ssl_domain=domain(tlsrig, tlsrig["alice"]), allowed_mechs="EXTERNAL",
                               timeout=WAIT)
        c.close()
    finally:
        qm.mqsc("ALTER CHANNEL(AMQP.TLS) CHLTYPE(AMQP) SSLPEER(' ')\n" + restart, check=True)
