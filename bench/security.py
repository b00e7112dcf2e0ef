"""Security's cost (issue 19): the same client workload against a queue manager with security off
(created with MQSNOAUT, CHLAUTH(DISABLED), no CONNAUTH) and one secured as IBM's developer image
is (CHLAUTH rules, CONNAUTH with CHCKCLNT(REQUIRED) and ADOPTCTX(YES), authority records for the
application's user), and over a TLS client channel (ANY_TLS13, a certificate made here).

Workloads, each over one client connection: --n synchronous nonpersistent 1 KiB puts to one open
handle, then --n gets; and --conns connect/disconnect cycles (CONNAUTH checks a scrypt hash, on
purpose slow). Prints medians of --runs runs; the target is secured put/get within 10% of open.
RabbitMQ over TLS is not set up on this machine: the TLS rate stands beside mqlite's plain one.

    python bench/security.py [--n 20000] [--conns 50] [--runs 3] [--json out.json]
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import mqlite_cmd  # noqa: E402

from mqlite.cli.proc import free_port, run_mqlite

BODY = b"x" * 1024


def make_repo(d: str) -> tuple[str, str]:
    """A server key repository and a client trust repository (PEM stems)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    pem = serialization.Encoding.PEM
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "BENCH")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    server, client = os.path.join(d, "server"), os.path.join(d, "client")
    with open(server + ".pem", "wb") as f:
        f.write(key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
                + cert.public_bytes(pem))
    with open(client + ".pem", "wb") as f:
        f.write(cert.public_bytes(pem))
    return server, client


def setup(d: str) -> dict[str, tuple[str, int]]:
    os.environ["MQLITE_DATA"] = os.path.join(d, "data")
    server, _client = make_repo(d)
    out = {}
    for name, secure in (("BENCH.OPEN", False), ("BENCH.SEC", True)):
        port = free_port()
        env = None if secure else {**os.environ, "MQSNOAUT": "yes"}
        mqlite_cmd("crtmqm", "-p", str(port), name, env=env)
        mqlite_cmd("strmqm", name)
        mqsc = "DEFINE QLOCAL(DEV.QUEUE.1) MAXDEPTH(1000000)\nDEFINE CHANNEL(DEV.APP.SVRCONN) CHLTYPE(SVRCONN)\n"
        if secure:
            mqsc += f"""ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) AUTHTYPE(IDPWOS) ADOPTCTX(YES)
REFRESH SECURITY TYPE(CONNAUTH)
SET CHLAUTH('DEV.APP.SVRCONN') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) CHCKCLNT(REQUIRED)
SET CHLAUTH('DEV.TLS.SVRCONN') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) CHCKCLNT(REQUIRED)
SET AUTHREC OBJTYPE(QMGR) GROUP('mqclient') AUTHADD(CONNECT,INQ)
SET AUTHREC PROFILE('DEV.**') OBJTYPE(QUEUE) GROUP('mqclient') AUTHADD(BROWSE,GET,INQ,PUT)
ALTER QMGR SSLKEYR('{server}')
REFRESH SECURITY TYPE(SSL)
DEFINE CHANNEL(DEV.TLS.SVRCONN) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS13) SSLCAUTH(OPTIONAL)
"""
        else:
            mqsc += "ALTER QMGR CHLAUTH(DISABLED) CONNAUTH(' ')\nREFRESH SECURITY TYPE(CONNAUTH)\n"
        if secure:
            # The user and its group first: an authority record must name a group the system knows.
            mqlite_cmd("setmqusr", "-m", name, "-u", "app", "--password-stdin", "-g", "mqclient", stdin="passw0rd\n")
        mqlite_cmd("runmqsc", name, stdin=mqsc)
        out[name] = ("127.0.0.1", port)
    return out


def connect(pymqi, name: str, port: int, channel: str, secure: bool, tls_repo: str = ""):
    cd = pymqi.CD(ChannelName=channel.encode(), ConnectionName=f"127.0.0.1({port})".encode())
    kw = {"user": "app", "password": "passw0rd"} if secure else {}
    if tls_repo:
        cd.SSLCipherSpec = b"ANY_TLS13"
        kw["sco"] = pymqi.SCO(KeyRepository=tls_repo.encode())
    qm = pymqi.QueueManager(None)
    qm.connect_with_options(name, cd=cd, **kw)
    return qm


def putget(pymqi, C, qm, n: int) -> tuple[float, float]:
    q = pymqi.Queue(qm, "DEV.QUEUE.1", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    md, pmo = pymqi.MD(), pymqi.PMO()
    t = time.perf_counter()
    for _ in range(n):
        q.put(BODY, md, pmo)
        md.MsgId = md.CorrelId = b""
    put_rate = n / (time.perf_counter() - t)
    gmo = pymqi.GMO(Options=C.MQGMO_NO_WAIT)
    t = time.perf_counter()
    for _ in range(n):
        q.get(None, pymqi.MD(), gmo)
    get_rate = n / (time.perf_counter() - t)
    q.close()
    return put_rate, get_rate


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--conns", type=int, default=50)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    d = tempfile.mkdtemp(prefix="mqlite-bench-sec-")
    ports = setup(d)
    from mqlite import pymqi
    from mqlite.cmq import CMQC as C
    client_repo = os.path.join(d, "client")
    cases = [("open", "BENCH.OPEN", "DEV.APP.SVRCONN", False, ""),
             ("secured", "BENCH.SEC", "DEV.APP.SVRCONN", True, ""),
             ("secured+TLS", "BENCH.SEC", "DEV.TLS.SVRCONN", True, client_repo)]
    results: dict[str, dict[str, list[float]]] = {c[0]: {"put": [], "get": [], "connect": []} for c in cases}
    try:
        for _run in range(args.runs):
            for label, name, channel, secure, repo in cases:     # alternating, so drift hits all alike
                port = ports[name][1]
                qm = connect(pymqi, name, port, channel, secure, repo)
                p, g = putget(pymqi, C, qm, args.n)
                qm.disconnect()
                t = time.perf_counter()
                for _ in range(args.conns):
                    connect(pymqi, name, port, channel, secure, repo).disconnect()
                results[label]["connect"].append(args.conns / (time.perf_counter() - t))
                results[label]["put"].append(p)
                results[label]["get"].append(g)
    finally:
        for name in ports:
            run_mqlite("endmqm", "-i", name)
    summary = {label: {k: statistics.median(v) for k, v in r.items()} for label, r in results.items()}
    print(f"{'case':<14}{'puts/s':>10}{'gets/s':>10}{'connects/s':>12}")
    for label, s in summary.items():
        print(f"{label:<14}{s['put']:>10,.0f}{s['get']:>10,.0f}{s['connect']:>12,.1f}")
    o, s = summary["open"], summary["secured"]
    print(f"secured/open: put {s['put'] / o['put']:.2f}, get {s['get'] / o['get']:.2f} (target >= 0.90)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"n": args.n, "runs": args.runs, "summary": summary, "all": results}, f, indent=1)


if __name__ == "__main__":
    main()
