"""Client certificates a queue manager refuses (issue 62): expired, not yet valid, self-signed and
from an issuer it does not trust. The client gets 2059 (MQRC_Q_MGR_NOT_AVAILABLE), as
docs/security.md says and MQ's client does (it got 2009); the queue manager logs MQ's AMQ9633E
(Bad SSL certificate, with why) once per refusal at every door: the MQI listener, an AMQP channel
and an MQTT channel (it logged AMQ9665E, and the MQTT channel each refusal twice)."""
from __future__ import annotations

import datetime
import os
import socket
import ssl
import time
from collections.abc import Iterator
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from mqlite import pymqi
from mqlite.cli.proc import free_port
from mqlite.paths import QMPaths
from mqlite.pymqi import CMQC
from mqlite.testing import Harness
from tests.server.test_tls import PEM, PKI, _name

DAY = datetime.timedelta(days=1)


def _client_repo(pki: PKI, stem: str, kind: str) -> str:
    """A client's PEM repository: its key and a certificate of ``kind``, then the queue manager's
    CA (so that the client trusts the server: only its own certificate is wrong)."""
    now = datetime.datetime.now(datetime.UTC)
    key = ec.generate_private_key(ec.SECP256R1())
    issuer_name, issuer_key = pki.ca_name, pki.ca_key
    before, after = now - DAY, now + 30 * DAY
    if kind == "expired":
        before, after = now - 30 * DAY, now - DAY
    elif kind == "not-yet-valid":
        before, after = now + DAY, now + 30 * DAY
    elif kind == "self-signed":
        issuer_name, issuer_key = _name("mallory"), key
    elif kind == "untrusted":
        other = PKI(pki.dir)
        issuer_name, issuer_key = other.ca_name, other.ca_key
    cert = (x509.CertificateBuilder().subject_name(_name("mallory")).issuer_name(issuer_name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(before).not_valid_after(after)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(issuer_key, hashes.SHA256()))
    path = os.path.join(pki.dir, stem)
    with open(path + ".pem", "wb") as f:
        f.write(key.private_bytes(PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        f.write(cert.public_bytes(PEM) + pki.ca.public_bytes(PEM))
    return path


KINDS = ("expired", "not-yet-valid", "self-signed", "untrusted")


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    d = str(tmp_path_factory.mktemp("pki"))
    pki = PKI(d)
    server = pki.repo("qm", "QMREF")
    amqp, mqtt = free_port(), free_port()
    with Harness(str(tmp_path_factory.mktemp("data"))) as h:
        qm = h.add("QMREF", f"""ALTER QMGR SSLKEYR('{server}') CERTLABL('')
REFRESH SECURITY TYPE(SSL)
DEFINE CHANNEL(TLS.SVRCONN) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(OPTIONAL)
DEFINE CHANNEL(AMQP.TLS) CHLTYPE(AMQP) PORT({amqp}) LOCLADDR('127.0.0.1') SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(REQUIRED)
DEFINE CHANNEL(MQTT.TLS) CHLTYPE(MQTT) PORT({mqtt}) LOCLADDR('127.0.0.1') SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(REQUIRED)
START SERVICE(SYSTEM.AMQP.SERVICE)
START SERVICE(SYSTEM.MQXR.SERVICE)
""")
        yield {"qm": qm, "pki": pki, "ports": {"amqp": amqp, "mqtt": mqtt},
               "repos": {k: _client_repo(pki, k, k) for k in KINDS}}


def _log(qm: Any) -> str:
    d = os.path.join(QMPaths.of(qm.name).root, "errors")
    return "".join(open(os.path.join(d, f), encoding="utf-8").read() for f in sorted(os.listdir(d)))


def _refusals_after(qm: Any, seen: int) -> int:
    """How many AMQ9633E the log holds once a new one has come (the client can see its refusal
    before the queue manager has written it), and a moment more for a second one."""
    deadline = time.monotonic() + 10
    while _log(qm).count("AMQ9633E") == seen and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    return _log(qm).count("AMQ9633E")


@pytest.mark.parametrize("kind", KINDS)
def test_an_mqi_client_with_a_bad_certificate_gets_2059_and_the_log_amq9633e(rig, kind) -> None:
    qm = rig["qm"]
    seen = _log(qm).count("AMQ9633E")
    cd = pymqi.CD(ChannelName=b"TLS.SVRCONN", ConnectionName=qm.conname.encode(),
                  SSLCipherSpec=b"ANY_TLS12_OR_HIGHER")
    sco = pymqi.SCO(KeyRepository=rig["repos"][kind].encode())
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.QueueManager(None).connect_with_options(qm.name, cd=cd, sco=sco)
    assert e.value.reason == CMQC.MQRC_Q_MGR_NOT_AVAILABLE
    assert _refusals_after(qm, seen) == seen + 1
    log = _log(qm)
    assert "Bad SSL certificate for channel" in log and "AMQ9665E" not in log
    assert qm.running()


def _tls_client(rig: dict[str, Any], kind: str) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=None)
    ctx.check_hostname = False
    ctx.load_verify_locations(cadata=rig["pki"].ca.public_bytes(PEM).decode())
    ctx.load_cert_chain(rig["repos"][kind] + ".pem")
    return ctx


@pytest.mark.parametrize("door", ["amqp", "mqtt"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_protocol_channel_refuses_a_bad_certificate_with_amq9633e_logged_once(rig, door, kind) -> None:
    qm = rig["qm"]
    seen = _log(qm).count("AMQ9633E")
    ctx = _tls_client(rig, kind)
    with socket.create_connection(("127.0.0.1", rig["ports"][door]), timeout=10) as raw:
        try:
            with ctx.wrap_socket(raw) as s:
                s.sendall(b"AMQP\x03\x01\x00\x00" if door == "amqp" else b"\x10\x00")
                assert s.recv(64) == b""           # (TLS 1.3: the refusal comes after the client's handshake)
        except (ssl.SSLError, ConnectionError):
            pass
    assert _refusals_after(qm, seen) == seen + 1
    assert f"channel '{'AMQP.TLS' if door == 'amqp' else 'MQTT.TLS'}'" in _log(qm)
