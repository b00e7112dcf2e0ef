"""TLS on client channels, with a CA and certificates made here (the cryptography package): MQ's
CipherSpec names, SSLCAUTH, SSLPEER, CHLAUTH SSLPEERMAP, key repositories as PEM and PKCS#12,
REFRESH SECURITY TYPE(SSL); each mismatch answered with MQ's reason code and error-log message."""
from __future__ import annotations

import datetime
import os

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID

from mqlite import pymqi
from mqlite.cmq import CMQC
from mqlite.paths import QMPaths
from mqlite.testing import Harness

PEM = serialization.Encoding.PEM


def _name(cn: str, o: str = "Acme") -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn), x509.NameAttribute(NameOID.ORGANIZATION_NAME, o)])


def _cert(subject: x509.Name, key, issuer: x509.Name, issuer_key, ca: bool = False) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    b = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
         .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
         .not_valid_after(now + datetime.timedelta(days=30))
         .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    return b.sign(issuer_key, hashes.SHA256())


class PKI:
    """A CA, and key repositories (stems) signed by it."""

    def __init__(self, d: str) -> None:
        self.dir = d
        self.ca_key = ec.generate_private_key(ec.SECP256R1())
        self.ca_name = _name("Test CA", "Acme CA")
        self.ca = _cert(self.ca_name, self.ca_key, self.ca_name, self.ca_key, ca=True)

    def repo(self, stem: str, cn: str | None, o: str = "Acme", ca=None, use_rsa: bool = False) -> str:
        """A PEM repository: the key and certificate for ``cn`` (none: only the CA), then the CA."""
        path = os.path.join(self.dir, stem)
        data = b""
        if cn is not None:
            key = rsa.generate_private_key(65537, 2048) if use_rsa else ec.generate_private_key(ec.SECP256R1())
            cert = _cert(_name(cn, o), key, self.ca_name, self.ca_key)
            data += key.private_bytes(PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
            data += cert.public_bytes(PEM)
        data += (ca or self.ca).public_bytes(PEM)
        with open(path + ".pem", "wb") as f:
            f.write(data)
        return path

    def p12(self, stem: str, cn: str, label: str, password: bytes) -> str:
        path = os.path.join(self.dir, stem)
        key = ec.generate_private_key(ec.SECP256R1())
        cert = _cert(_name(cn), key, self.ca_name, self.ca_key)
        blob = pkcs12.serialize_key_and_certificates(label.encode(), key, cert, [self.ca],
                                                     serialization.BestAvailableEncryption(password))
        with open(path + ".p12", "wb") as f:
            f.write(blob)
        with open(path + ".sth", "wb") as f:
            f.write(password)
        return path


def server_pki(d: str, stem: str, cn: str) -> tuple[PKI, str, str]:
    """A CA in ``d``, a server's repository ``stem`` for ``cn`` signed by it, and the CA's
    certificate alone as ca.pem (what a client trusts): (the PKI, the repository, ca.pem)."""
    pki = PKI(d)
    server = pki.repo(stem, cn)
    ca = os.path.join(d, "ca.pem")
    with open(ca, "wb") as f:
        f.write(pki.ca.public_bytes(PEM))
    return pki, server, ca


@pytest.fixture(scope="module")
def tlsqm(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("pki"))
    pki = PKI(d)
    server = pki.repo("qm", "QMTLS")
    with Harness(str(tmp_path_factory.mktemp("data"))) as h:
        qm = h.add("QMTLS", f"""ALTER QMGR SSLKEYR('{server}')
REFRESH SECURITY TYPE(SSL)
DEFINE QLOCAL(TLS.Q)
DEFINE CHANNEL(TLS13.SVRCONN) CHLTYPE(SVRCONN) SSLCIPH(TLS_AES_256_GCM_SHA384) SSLCAUTH(OPTIONAL)
DEFINE CHANNEL(ANY.SVRCONN) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(OPTIONAL)
DEFINE CHANNEL(TLS12.SVRCONN) CHLTYPE(SVRCONN) SSLCIPH(ECDHE_ECDSA_AES_128_GCM_SHA256) SSLCAUTH(OPTIONAL)
DEFINE CHANNEL(MUTUAL.SVRCONN) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS13) SSLCAUTH(REQUIRED) SSLPEER('CN=alice,O=Acme')
""")
        yield qm, pki


def _log(qm) -> str:
    d = os.path.join(QMPaths.of(qm.name).root, "errors")
    return "".join(open(os.path.join(d, f), encoding="utf-8").read() for f in sorted(os.listdir(d)))


def _connect(qm, channel: str, spec: str, repo: str = "", label: str = ""):
    cd = pymqi.CD(ChannelName=channel.encode(), ConnectionName=qm.conname.encode(), SSLCipherSpec=spec.encode())
    sco = pymqi.SCO(KeyRepository=repo.encode(), CertificateLabel=label.encode())
    q = pymqi.QueueManager(None)
    q.connect_with_options(qm.name, cd=cd, sco=sco)
    return q


def _reason(fn) -> int:
    with pytest.raises(pymqi.MQMIError) as e:
        fn()
    return e.value.reason


def test_put_and_get_over_tls_with_mq_cipherspec_names(tlsqm):
    qm, pki = tlsqm
    trust = pki.repo("trust", None)
    for channel, spec in (("TLS13.SVRCONN", "TLS_AES_256_GCM_SHA384"), ("ANY.SVRCONN", "ANY_TLS12_OR_HIGHER"),
                          ("TLS12.SVRCONN", "ECDHE_ECDSA_AES_128_GCM_SHA256"), ("ANY.SVRCONN", "TLS_AES_128_GCM_SHA256")):
        c = _connect(qm, channel, spec, trust)
        q = pymqi.Queue(c, "TLS.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        q.put(b"secret over " + spec.encode())
        assert q.get() == b"secret over " + spec.encode()
        q.close()
        c.disconnect()
    out = qm.mqsc("DISPLAY CHANNEL(TLS12.SVRCONN) SSLCIPH SSLCAUTH\n").stdout
    assert "SSLCIPH(ECDHE_ECDSA_AES_128_GCM_SHA256)" in out and "SSLCAUTH(OPTIONAL)" in out


def test_waiting_get_and_persistent_put_over_tls(tlsqm):
    """A persistent MQPUT outside syncpoint is answered after its fsync, and an MQGET that waits
    checks whether the client is still there: neither may use a plain socket's flags on an SSL
    socket (they broke the connection with 2009 and logged AMQ6184W)."""
    qm, pki = tlsqm
    c = _connect(qm, "ANY.SVRCONN", "ANY_TLS12_OR_HIGHER", pki.repo("trust", None))
    q = pymqi.Queue(c, "TLS.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=1200)
    assert _reason(lambda: q.get(None, pymqi.MD(), gmo)) == CMQC.MQRC_NO_MSG_AVAILABLE
    for n in range(20):
        q.put(b"persistent %d" % n, pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    assert [q.get() for _ in range(20)] == [b"persistent %d" % n for n in range(20)]
    q.close()
    c.disconnect()
    assert "AMQ6184W" not in _log(qm)


def test_each_mismatch_gets_mqs_answer(tlsqm):
    qm, pki = tlsqm
    trust = pki.repo("trust2", None)
    # CipherSpecs that do not match (AMQ9631E), TLS on a channel without one and none on one with (AMQ9639E).
    assert _reason(lambda: _connect(qm, "TLS13.SVRCONN", "TLS_AES_128_GCM_SHA256", trust)) \
        == CMQC.MQRC_SSL_INITIALIZATION_ERROR
    assert "AMQ9631E" in _log(qm)
    assert _reason(lambda: _connect(qm, "APP.SVRCONN", "ANY_TLS12_OR_HIGHER", trust)) == CMQC.MQRC_SSL_INITIALIZATION_ERROR
    assert _reason(lambda: _connect(qm, "TLS13.SVRCONN", "")) == CMQC.MQRC_SSL_INITIALIZATION_ERROR
    assert "AMQ9639E" in _log(qm)
    # SSLCAUTH(REQUIRED) without a client certificate (AMQ9637E); a certificate that SSLPEER refuses (AMQ9636E).
    assert _reason(lambda: _connect(qm, "MUTUAL.SVRCONN", "ANY_TLS13", trust)) == CMQC.MQRC_Q_MGR_NOT_AVAILABLE
    assert "AMQ9637E" in _log(qm)
    bob = pki.repo("bob", "bob")
    assert _reason(lambda: _connect(qm, "MUTUAL.SVRCONN", "ANY_TLS13", bob)) == CMQC.MQRC_Q_MGR_NOT_AVAILABLE
    assert "AMQ9636E" in _log(qm) and "CN=bob" in _log(qm)
    alice = pki.repo("alice", "alice")
    _connect(qm, "MUTUAL.SVRCONN", "ANY_TLS13", alice).disconnect()
    # The client's own problems: no repository (2381), an unknown CipherSpec (2400), a server it
    # cannot trust (2393).
    assert _reason(lambda: _connect(qm, "ANY.SVRCONN", "ANY_TLS13", "")) == CMQC.MQRC_KEY_REPOSITORY_ERROR
    assert _reason(lambda: _connect(qm, "ANY.SVRCONN", "NOT_A_CIPHERSPEC", trust)) == CMQC.MQRC_UNSUPPORTED_CIPHER_SUITE
    other = PKI(pki.dir)
    stranger = other.repo("stranger", None)
    assert _reason(lambda: _connect(qm, "ANY.SVRCONN", "ANY_TLS13", stranger)) == CMQC.MQRC_SSL_INITIALIZATION_ERROR
    assert qm.running()


def test_ssl_events(tlsqm):
    """SSLEV: Channel SSL Error with MQ's ReasonQualifier for each refusal (a CipherSpec that does
    not match, a missing client certificate, a peer name SSLPEER refuses with the name presented,
    a handshake that failed with its stage); none while SSLEV is DISABLED."""
    from mqlite.cmq import CMQCFC as F
    from tests.helpers import admin_messages, wait_until
    qm, pki = tlsqm
    trust = pki.repo("trust3", None)

    def ssl_events():
        return [(cfh[3], cfh[7], [(p, v) for _t, p, v in params])
                for cfh, params in admin_messages(qm, "SYSTEM.ADMIN.CHANNEL.EVENT")]
    ssl_events()
    assert _reason(lambda: _connect(qm, "TLS13.SVRCONN", "TLS_AES_128_GCM_SHA256", trust)) \
        == CMQC.MQRC_SSL_INITIALIZATION_ERROR
    assert ssl_events() == []                                       # SSLEV(DISABLED), MQ's default
    qm.mqsc("ALTER QMGR SSLEV(ENABLED)\n", check=True)
    try:
        assert _reason(lambda: _connect(qm, "TLS13.SVRCONN", "TLS_AES_128_GCM_SHA256", trust)) \
            == CMQC.MQRC_SSL_INITIALIZATION_ERROR
        assert _reason(lambda: _connect(qm, "MUTUAL.SVRCONN", "ANY_TLS13", trust)) == CMQC.MQRC_Q_MGR_NOT_AVAILABLE
        bob = pki.repo("bob3", "bob")
        assert _reason(lambda: _connect(qm, "MUTUAL.SVRCONN", "ANY_TLS13", bob)) == CMQC.MQRC_Q_MGR_NOT_AVAILABLE
        stranger = PKI(pki.dir).repo("stranger3", None)
        assert _reason(lambda: _connect(qm, "ANY.SVRCONN", "ANY_TLS13", stranger)) \
            == CMQC.MQRC_SSL_INITIALIZATION_ERROR
        # (The server puts an event once its side of the handshake ends: after the client has its
        # error when the client is the one that gave up, as the stranger's does.)
        got: list = []
        wait_until(lambda: got.extend(ssl_events()) or len(got) >= 4, timeout=10, what="four SSL events")
    finally:
        qm.mqsc("ALTER QMGR SSLEV(DISABLED)\n", check=True)
    assert [(cmd, reason) for cmd, reason, _p in got] == [(F.MQCMD_CHANNEL_EVENT, CMQC.MQRC_CHANNEL_SSL_ERROR)] * 4
    spec, cauth, peer, handshake = [dict(p) for _c, _r, p in got]
    assert spec[F.MQIACF_REASON_QUALIFIER] == F.MQRQ_SSL_CIPHER_SPEC_ERROR
    assert spec[F.MQCACH_CHANNEL_NAME] == "TLS13.SVRCONN" and spec[F.MQCACH_CONNECTION_NAME] == "127.0.0.1"
    assert cauth[F.MQIACF_REASON_QUALIFIER] == F.MQRQ_SSL_CLIENT_AUTH_ERROR
    assert peer[F.MQIACF_REASON_QUALIFIER] == F.MQRQ_SSL_PEER_NAME_ERROR and "CN=bob" in peer[F.MQCACH_SSL_PEER_NAME]
    assert handshake[F.MQIACF_REASON_QUALIFIER] == F.MQRQ_SSL_HANDSHAKE_ERROR
    assert F.MQCACH_CHANNEL_NAME not in handshake and handshake[F.MQCACH_SSL_HANDSHAKE_STAGE]
    assert [p for p, _v in got[3][2]] == [CMQC.MQCA_Q_MGR_NAME, F.MQIACF_REASON_QUALIFIER, F.MQCACH_CONNECTION_NAME,
                                          F.MQCACH_SSL_HANDSHAKE_STAGE, F.MQIACH_SSL_RETURN_CODE]


def test_sslpeermap_and_pkcs12_and_refresh_security_ssl(tlsqm):
    qm, pki = tlsqm
    carol = pki.p12("carol", "carol", "carolcert", b"stash-pass")
    qm.mqsc("ALTER QMGR CHLAUTH(ENABLED)\n"
            "SET CHLAUTH('ANY.SVRCONN') TYPE(SSLPEERMAP) SSLPEER('CN=carol') USERSRC(NOACCESS) ACTION(REPLACE)\n",
            check=True)
    try:
        assert _reason(lambda: _connect(qm, "ANY.SVRCONN", "ANY_TLS13", carol, "carolcert")) == CMQC.MQRC_NOT_AUTHORIZED
        assert "AMQ9777E" in _log(qm)
        assert _reason(lambda: _connect(qm, "ANY.SVRCONN", "ANY_TLS13", carol, "otherlabel")) \
            == CMQC.MQRC_KEY_REPOSITORY_ERROR
    finally:
        qm.mqsc("SET CHLAUTH('ANY.SVRCONN') TYPE(SSLPEERMAP) SSLPEER('CN=carol') ACTION(REMOVE)\n"
                "ALTER QMGR CHLAUTH(DISABLED)\n", check=True)
    _connect(qm, "ANY.SVRCONN", "ANY_TLS13", carol, "carolcert").disconnect()
    # A new queue-manager certificate from another CA: MQ reads the key repository when a channel
    # needs it, so with no TLS conversation running the next one gets the new certificate
    # without REFRESH SECURITY; while one runs, the old stays until REFRESH SECURITY TYPE(SSL).
    other = PKI(pki.dir)
    stem = other.repo("qm2", "QMTLS")
    trust, trust_other = pki.repo("trust3", None), other.repo("trust4", None)
    old_stem = qm.mqsc("DISPLAY QMGR SSLKEYR\n").stdout.split("SSLKEYR(")[1].split(")")[0]
    qm.mqsc(f"ALTER QMGR SSLKEYR('{stem}')\n", check=True)
    assert _reason(lambda: _connect(qm, "ANY.SVRCONN", "ANY_TLS13", trust)) == CMQC.MQRC_SSL_INITIALIZATION_ERROR
    held = _connect(qm, "ANY.SVRCONN", "ANY_TLS13", trust_other)       # the new one, no REFRESH
    qm.mqsc(f"ALTER QMGR SSLKEYR('{old_stem}')\n", check=True)
    _connect(qm, "ANY.SVRCONN", "ANY_TLS13", trust_other).disconnect()   # (held runs: still the new)
    qm.mqsc("REFRESH SECURITY TYPE(SSL)\n", check=True)
    _connect(qm, "ANY.SVRCONN", "ANY_TLS13", trust).disconnect()
    held.disconnect()
    qm.mqsc(f"ALTER QMGR SSLKEYR('{stem}')\n", check=True)
    qm.mqsc("REFRESH SECURITY TYPE(SSL)\n", check=True)
    assert _reason(lambda: _connect(qm, "ANY.SVRCONN", "ANY_TLS13", trust)) == CMQC.MQRC_SSL_INITIALIZATION_ERROR
    _connect(qm, "ANY.SVRCONN", "ANY_TLS13", trust_other).disconnect()


def test_message_channel_over_tls_with_mutual_authentication(tmp_path):
    pki = PKI(str(tmp_path))
    k1, k2 = pki.repo("qm1", "QM1"), pki.repo("qm2", "QM2")
    with Harness(str(tmp_path / "data")) as h:
        qm2 = h.add("QM2", f"ALTER QMGR SSLKEYR('{k2}')\nREFRESH SECURITY TYPE(SSL)\nDEFINE QLOCAL(TARGET.Q)\n"
                           "DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR) SSLCIPH(ANY_TLS13) SSLCAUTH(REQUIRED) "
                           "SSLPEER('CN=QM1')\n"
                           "DEFINE CHANNEL(BAD.TO.QM2) CHLTYPE(RCVR) SSLCIPH(TLS_AES_128_GCM_SHA256)\n")
        qm1 = h.add("QM1", f"ALTER QMGR SSLKEYR('{k1}')\nDEFINE QLOCAL(QM2) USAGE(XMITQ)\nDEFINE QLOCAL(BADX) USAGE(XMITQ)\n"
                           f"DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('{qm2.conname}') XMITQ(QM2) "
                           "SSLCIPH(ANY_TLS13) SHORTTMR(1)\n"
                           f"DEFINE CHANNEL(BAD.TO.QM2) CHLTYPE(SDR) CONNAME('{qm2.conname}') XMITQ(BADX) "
                           "SSLCIPH(TLS_AES_256_GCM_SHA384) SHORTTMR(1)\n"
                           "DEFINE QREMOTE(REMOTE.Q) RNAME(TARGET.Q) RQMNAME(QM2) XMITQ(QM2)\n"
                           "DEFINE QREMOTE(BAD.Q) RNAME(TARGET.Q) RQMNAME(QM2) XMITQ(BADX)\n")
        c1 = qm1.client()
        pymqi.Queue(c1, "REMOTE.Q").put(b"over tls", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
        pymqi.Queue(c1, "BAD.Q").put(b"never", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
        qm1.mqsc("START CHANNEL(QM1.TO.QM2)\nSTART CHANNEL(BAD.TO.QM2)\n")
        c2 = qm2.client()
        target = pymqi.Queue(c2, "TARGET.Q", CMQC.MQOO_INPUT_SHARED)
        assert target.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=15000)) == b"over tls"
        assert "AMQ9631E" in _log(qm2)
        assert _reason(lambda: target.get()) == CMQC.MQRC_NO_MSG_AVAILABLE
        out = qm2.mqsc("DISPLAY CHSTATUS(QM1.TO.QM2)\n").stdout
        assert "STATUS(RUNNING)" in out
        c1.disconnect()
        c2.disconnect()


def test_pymqi_tls_test_as_it_is_written(tmp_path):
    """pymqi's tests/test_tls.py: an RSA certificate, TLS_RSA_WITH_AES_256_CBC_SHA256, SSLPEER
    ('CN=client'), the channel's CHLAUTH records set through PCF (a USERMAP with CHCKCLNT(REQDADM)
    mapping to mqm, a BLOCKUSER of 'nobody'), SSLKEYR and CERTLABL changed through PCF, and
    connectWithOptions(qm, cd, sco, opts=MQCNO_HANDLE_SHARE_NO_BLOCK, user=..., password=...)."""
    pki = PKI(str(tmp_path))
    server = pki.repo("mqtest", "mqtest", use_rsa=True)
    client = pki.repo("client", "client", use_rsa=True)
    with Harness(str(tmp_path / "data"), security=True) as h:
        qm = h.add("MQTEST", "DEFINE CHANNEL(SSL.SVRCONN) CHLTYPE(SVRCONN) SSLCIPH(TLS_RSA_WITH_AES_256_CBC_SHA256) "
                             "SSLPEER('CN=client') SSLCAUTH(OPTIONAL)\n")
        from mqlite.testing import run_mqlite
        run_mqlite("setmqusr", "-m", "MQTEST", "-u", "app", "--password-stdin", stdin="Secret13\n")
        admin = pymqi.connect("MQTEST")
        pcf = pymqi.PCFExecute(admin)
        pcf.MQCMD_CHANGE_Q_MGR([pymqi.CFST(Parameter=CMQC.MQCA_SSL_KEY_REPOSITORY, String=server.encode()),
                                pymqi.CFST(Parameter=CMQC.MQCA_CERT_LABEL, String=b"mqtest")])
        from mqlite.cmq import CMQCFC, CMQXC
        pcf.MQCMD_SET_CHLAUTH_REC([pymqi.CFST(Parameter=CMQCFC.MQCACH_CHANNEL_NAME, String=b"SSL.SVRCONN"),
                                   pymqi.CFIN(Parameter=CMQCFC.MQIACF_CHLAUTH_TYPE, Value=CMQCFC.MQCAUT_USERMAP),
                                   pymqi.CFIN(Parameter=CMQCFC.MQIACF_ACTION, Value=CMQCFC.MQACT_REPLACE),
                                   pymqi.CFST(Parameter=CMQCFC.MQCACH_CLIENT_USER_ID, String=b"app"),
                                   pymqi.CFIN(Parameter=CMQC.MQIA_CHECK_CLIENT_BINDING,
                                              Value=CMQCFC.MQCHK_REQUIRED_ADMIN),
                                   pymqi.CFIN(Parameter=CMQCFC.MQIACH_USER_SOURCE, Value=CMQC.MQUSRC_MAP),
                                   pymqi.CFST(Parameter=CMQCFC.MQCACH_MCA_USER_ID, String=b"mqm")])
        pcf.MQCMD_SET_CHLAUTH_REC([pymqi.CFST(Parameter=CMQCFC.MQCACH_CHANNEL_NAME, String=b"SSL.SVRCONN"),
                                   pymqi.CFIN(Parameter=CMQCFC.MQIACF_CHLAUTH_TYPE, Value=CMQCFC.MQCAUT_BLOCKUSER),
                                   pymqi.CFST(Parameter=CMQCFC.MQCACH_MCA_USER_ID_LIST, String=b"nobody"),
                                   pymqi.CFIN(Parameter=CMQCFC.MQIACH_WARNING, Value=CMQC.MQWARN_NO),
                                   pymqi.CFIN(Parameter=CMQCFC.MQIACF_ACTION, Value=CMQCFC.MQACT_REPLACE)])
        pcf.disconnect()
        admin.disconnect()
        qm.mqsc("REFRESH SECURITY TYPE(SSL)\n", check=True)
        c = pymqi.QueueManager(None)
        cd = pymqi.CD(Version=CMQXC.MQCD_VERSION_7, ChannelName=b"SSL.SVRCONN", ConnectionName=qm.conname.encode(),
                      SSLCipherSpec=b"TLS_RSA_WITH_AES_256_CBC_SHA256")
        sco = pymqi.SCO(Version=CMQC.MQSCO_VERSION_5, KeyRepository=client.encode(), CertificateLabel=b"client")
        c.connectWithOptions("MQTEST", cd, sco, opts=CMQC.MQCNO_HANDLE_SHARE_NO_BLOCK, user="app", password="Secret13")
        assert c.is_connected
        c.disconnect()


