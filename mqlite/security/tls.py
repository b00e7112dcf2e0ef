"""TLS for channels with Python's ``ssl``: MQ's CipherSpec names, key repositories, and the checks
a channel makes once the handshake is done.

A key repository (SSLKEYR on the queue manager, SCO KeyRepository or MQSSLKEYR on a client) is, as
in MQ, a *stem*: mqlite reads ``<stem>.pem`` (the private key, its certificate and any CA
certificates, PEM) or ``<stem>.p12`` (PKCS#12, its password in ``<stem>.sth`` as plain text) in
place of MQ's CMS ``<stem>.kdb``. Every certificate in the repository is trusted as an issuer. In a
PKCS#12 repository CERTLABL picks the certificate by its friendly name (MQ's default label
``ibmwebspheremq<qmgr in lower case>`` is tried when none is set); a PEM repository holds one.

CipherSpecs: a specific name (TLS 1.3's ``TLS_AES_128_GCM_SHA256``, TLS 1.2's
``ECDHE_RSA_AES_256_GCM_SHA384``, ...) must be what the handshake agrees, and the two ends must
name the same one; the alias CipherSpecs (ANY, ANY_TLS12, ANY_TLS12_OR_HIGHER, ANY_TLS13,
ANY_TLS13_OR_HIGHER) accept any suite of those protocol versions.
"""
from __future__ import annotations

import os
import ssl
import tempfile
from dataclasses import dataclass

from mqlite.catalogue import entry, text
from mqlite.cmq import CMQCFC as F
from mqlite.security.chlauth import dn_match

TLS12, TLS13 = ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3


@dataclass(frozen=True)
class CipherSpec:
    name: str
    low: ssl.TLSVersion
    high: ssl.TLSVersion
    openssl: str = ""            # the suite's OpenSSL name; "" for an alias


_SPECIFIC = [
    CipherSpec("TLS_AES_128_GCM_SHA256", TLS13, TLS13, "TLS_AES_128_GCM_SHA256"),
    CipherSpec("TLS_AES_256_GCM_SHA384", TLS13, TLS13, "TLS_AES_256_GCM_SHA384"),
    CipherSpec("TLS_CHACHA20_POLY1305_SHA256", TLS13, TLS13, "TLS_CHACHA20_POLY1305_SHA256"),
    CipherSpec("ECDHE_RSA_AES_128_GCM_SHA256", TLS12, TLS12, "ECDHE-RSA-AES128-GCM-SHA256"),
    CipherSpec("ECDHE_RSA_AES_256_GCM_SHA384", TLS12, TLS12, "ECDHE-RSA-AES256-GCM-SHA384"),
    CipherSpec("ECDHE_RSA_AES_128_CBC_SHA256", TLS12, TLS12, "ECDHE-RSA-AES128-SHA256"),
    CipherSpec("ECDHE_RSA_AES_256_CBC_SHA384", TLS12, TLS12, "ECDHE-RSA-AES256-SHA384"),
    CipherSpec("ECDHE_ECDSA_AES_128_GCM_SHA256", TLS12, TLS12, "ECDHE-ECDSA-AES128-GCM-SHA256"),
    CipherSpec("ECDHE_ECDSA_AES_256_GCM_SHA384", TLS12, TLS12, "ECDHE-ECDSA-AES256-GCM-SHA384"),
    CipherSpec("ECDHE_RSA_CHACHA20_POLY1305_SHA256", TLS12, TLS12, "ECDHE-RSA-CHACHA20-POLY1305"),
    CipherSpec("TLS_RSA_WITH_AES_128_GCM_SHA256", TLS12, TLS12, "AES128-GCM-SHA256"),
    CipherSpec("TLS_RSA_WITH_AES_256_GCM_SHA384", TLS12, TLS12, "AES256-GCM-SHA384"),
    CipherSpec("TLS_RSA_WITH_AES_128_CBC_SHA256", TLS12, TLS12, "AES128-SHA256"),
    CipherSpec("TLS_RSA_WITH_AES_256_CBC_SHA256", TLS12, TLS12, "AES256-SHA256"),
]
_ALIASES = [
    CipherSpec("ANY", TLS12, TLS13), CipherSpec("ANY_TLS12", TLS12, TLS12),
    CipherSpec("ANY_TLS12_OR_HIGHER", TLS12, TLS13), CipherSpec("ANY_TLS13", TLS13, TLS13),
    CipherSpec("ANY_TLS13_OR_HIGHER", TLS13, TLS13),
]
CIPHERSPECS = {c.name: c for c in _SPECIFIC + _ALIASES}
_VERSIONS = {"TLSv1.2": TLS12, "TLSv1.3": TLS13}


class TLSConfigError(Exception):
    """A key repository or CipherSpec that cannot be used (MQ: 2381, 2393, 2400)."""

    def __init__(self, reason_name: str, text: str) -> None:
        super().__init__(text)
        self.reason_name = reason_name
        self.text = text


def spec(name: str) -> CipherSpec:
    found = CIPHERSPECS.get(name.strip().upper())
    if found is None:
        raise TLSConfigError("MQRC_UNSUPPORTED_CIPHER_SUITE", f"CipherSpec {name!r} is not one mqlite knows.")
    return found


def _limit(ctx: ssl.SSLContext, cs: CipherSpec) -> None:
    ctx.minimum_version, ctx.maximum_version = cs.low, cs.high
    if cs.openssl and cs.high == TLS12:
        ctx.set_ciphers(cs.openssl)
    elif cs.openssl:
        # TLS 1.3 suites cannot be narrowed through ``ssl``; the agreed one is checked after the
        # handshake (agreed()).
        pass


def _load(ctx: ssl.SSLContext, stem: str, label: str) -> None:
    """Load the key repository ``stem`` into ``ctx`` (its key and certificate, and its
    certificates as trusted issuers)."""
    pem, p12 = stem + ".pem", stem + ".p12"
    if os.path.exists(pem):
        try:
            ctx.load_verify_locations(cafile=pem)
            with open(pem, "rb") as f:
                has_key = b"PRIVATE KEY" in f.read()
            if has_key:
                ctx.load_cert_chain(pem)
        except (ssl.SSLError, OSError, ValueError) as e:
            raise TLSConfigError("MQRC_KEY_REPOSITORY_ERROR", f"Key repository {pem} cannot be used: {e}") from None
        return
    if os.path.exists(p12):
        _load_p12(ctx, p12, stem + ".sth", label)
        return
    raise TLSConfigError("MQRC_KEY_REPOSITORY_ERROR", f"Key repository {stem} (.pem or .p12) not found.")


def _load_p12(ctx: ssl.SSLContext, path: str, stash: str, label: str) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.serialization import pkcs12
    try:
        password = None
        if os.path.exists(stash):
            with open(stash, "rb") as f:
                password = f.read().strip()
        with open(path, "rb") as f:
            bundle = pkcs12.load_pkcs12(f.read(), password)
    except (OSError, ValueError) as e:
        raise TLSConfigError("MQRC_KEY_REPOSITORY_ERROR", f"Key repository {path} cannot be read: {e}") from None
    enc = serialization.Encoding.PEM
    cas = b"".join(c.certificate.public_bytes(enc) for c in bundle.additional_certs)
    if bundle.cert is not None:
        cas += bundle.cert.certificate.public_bytes(enc)
    if cas:
        ctx.load_verify_locations(cadata=cas.decode("ascii"))
    if bundle.cert is None or bundle.key is None:
        return
    name = (bundle.cert.friendly_name or b"").decode("utf-8", "replace")
    if label and name and name != label:
        raise TLSConfigError("MQRC_KEY_REPOSITORY_ERROR", f"No certificate labelled {label!r} in {path}.")
    key = bundle.key.private_bytes(enc, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    with tempfile.NamedTemporaryFile("wb", suffix=".pem", delete=True) as f:
        os.chmod(f.name, 0o600)
        f.write(key + bundle.cert.certificate.public_bytes(enc))
        f.flush()
        ctx.load_cert_chain(f.name)


def client_context(cipherspec: str, keyrepo: str, label: str = "") -> ssl.SSLContext:
    """The context a client (or a sending MCA) starts TLS with: the server's certificate must
    chain to one in the repository; host names are not checked (SSLPEER does that job in MQ)."""
    cs = spec(cipherspec)
    if not keyrepo:
        raise TLSConfigError("MQRC_KEY_REPOSITORY_ERROR", "No key repository (SCO KeyRepository or MQSSLKEYR).")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_REQUIRED
    _limit(ctx, cs)
    _load(ctx, keyrepo, label)
    return ctx


def server_context(keyrepo: str, label: str = "") -> ssl.SSLContext:
    """The listener's context: its certificate from SSLKEYR; a client certificate is asked for and
    verified if sent (whether one is required is the channel's SSLCAUTH, checked after HELLO)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = TLS12
    ctx.verify_mode = ssl.CERT_OPTIONAL
    # Every TLS 1.2 suite a CipherSpec names (Python's default list leaves out RSA key exchange,
    # which TLS_RSA_WITH_* CipherSpecs use); which one a channel accepts is its SSLCIPH's business.
    ctx.set_ciphers(":".join(c.openssl for c in _SPECIFIC if c.high == TLS12))
    _load(ctx, keyrepo, label)
    return ctx


def agreed(cipherspec: str, version: str | None, cipher: str | None) -> bool:
    """Whether what the handshake agreed satisfies the channel's CipherSpec."""
    cs = CIPHERSPECS.get(cipherspec.strip().upper())
    v = _VERSIONS.get(version or "")
    if cs is None or v is None or not cs.low <= v <= cs.high:
        return False
    return not cs.openssl or cs.openssl == cipher


def same_spec(local: str, remote: str) -> bool:
    """MQ's rule that both ends name the same CipherSpec (an alias at one end accepts what the
    other's specific one agrees: checked by ``agreed``)."""
    a, b = local.strip().upper(), remote.strip().upper()
    if a == b:
        return True
    return bool(CIPHERSPECS.get(a) and not CIPHERSPECS[a].openssl) or bool(CIPHERSPECS.get(b)
                                                                          and not CIPHERSPECS[b].openssl)


def subject_dn(cert: dict | None) -> str:
    """A peer certificate's subject (from SSLSocket.getpeercert()) as an MQ-style DN string."""
    return _dn((cert or {}).get("subject", ()))


def issuer_dn(cert: dict | None) -> str:
    return _dn((cert or {}).get("issuer", ()))


_SHORT = {"commonName": "CN", "organizationName": "O", "organizationalUnitName": "OU", "countryName": "C",
          "localityName": "L", "stateOrProvinceName": "ST", "serialNumber": "SERIALNUMBER",
          "emailAddress": "E", "domainComponent": "DC", "streetAddress": "STREET", "title": "T"}


def _dn(rdns: tuple) -> str:
    parts = [f"{_SHORT.get(k, k)}={v}" for rdn in rdns for k, v in rdn]
    return ",".join(parts)


# A TLS refusal's message -> the ReasonQualifier of its Channel SSL Error event.
SSL_QUALIFIERS = {"AMQ9631E": F.MQRQ_SSL_CIPHER_SPEC_ERROR, "AMQ9639E": F.MQRQ_SSL_CIPHER_SPEC_ERROR,
                  "AMQ9641E": F.MQRQ_SSL_CIPHER_SPEC_ERROR,
                  "AMQ9637E": F.MQRQ_SSL_CLIENT_AUTH_ERROR, "AMQ9636E": F.MQRQ_SSL_PEER_NAME_ERROR}


def peer_dn(sock: object) -> str:
    """The distinguished name of the certificate the other end presented ("" for none)."""
    return subject_dn(sock.getpeercert()) if isinstance(sock, ssl.SSLSocket) else ""


def check_channel(name: str, local: str, cauth_required: bool, sslpeer: str, sock: object,
                  remote: str) -> tuple[str, str, str] | None:
    """A channel's TLS settings against its connection once the handshake is done (``sock`` an
    SSLSocket, or a plain socket): None when they agree, else (what, msgid, text), ``what`` being
    "spec" (CipherSpecs: AMQ9639E, AMQ9631E) or "peer" (certificates: AMQ9637E, AMQ9636E)."""
    on = isinstance(sock, ssl.SSLSocket)
    if not local:
        if on:
            return "spec", "AMQ9641E", text("AMQ9641E", channel=name) + " The remote end specified a CipherSpec; " \
                "the local channel definition has none."
        return None
    if not on:
        return "spec", "AMQ9639E", text("AMQ9639E", channel=name)
    assert isinstance(sock, ssl.SSLSocket)
    version, cipher = sock.version(), (sock.cipher() or ("",))[0]
    if not same_spec(local, remote) or not agreed(local, version, cipher):
        return "spec", "AMQ9631E", text("AMQ9631E", channel=name) + (f" Remote: {remote or 'none'} (agreed {cipher} "
                                                                     f"{version}); local: {local}.")
    cert = sock.getpeercert()
    if not cert and cauth_required:
        return "peer", "AMQ9637E", text("AMQ9637E", channel=name)
    if sslpeer and not dn_match(sslpeer, subject_dn(cert)):
        return "peer", "AMQ9636E", text("AMQ9636E", channel=name) + (f" The distinguished name is '{subject_dn(cert)}'; "
                                                                     f"SSLPEER is '{sslpeer}'.")
    return None


def handshake_refusal(e: BaseException, peer: str, channel: str = "") -> tuple[str, str, str]:
    """A TLS handshake this end failed, as MQ words it: (msgid, message, explanation). A
    certificate the other end presented that does not verify (expired, not yet valid, self-signed,
    from an issuer the repository does not trust) is AMQ9633E, Bad SSL certificate; no certificate
    where one is required AMQ9637E; anything else AMQ9665E, the connection closed by the other end."""
    name = channel or "????"
    if isinstance(e, ssl.SSLCertVerificationError):
        return (*entry("AMQ9633E", channel=name),
                f"A certificate presented by the remote host {peer} during the TLS handshake was not valid: "
                f"{e.verify_message or e.reason} (verification error {e.verify_code}). The channel did not start.")
    if isinstance(e, ssl.SSLError) and e.reason == "PEER_DID_NOT_RETURN_A_CERTIFICATE":
        return (*entry("AMQ9637E", channel=name),
                f"The remote host {peer} presented no certificate; the channel requires one. The channel did not start.")
    return (*entry("AMQ9665E", channel=name),
            f"The TLS handshake with {peer} failed: {e}. The channel did not start.")
