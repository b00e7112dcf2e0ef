"""The mqweb server process and MQ's commands for it: ``strmqweb`` starts it in the background
(ready when its ports answer), ``endmqweb`` ends it, ``dspmqweb`` says whether it runs and where,
``setmqweb properties -k KEY -v VALUE`` sets MQ's server properties (web/settings.py):

- ``httpHost`` (default localhost), ``httpsPort`` (default 9443, as MQ's) and ``httpPort``
  (default -1: HTTP off until asked for, as MQ's); -1 turns a port off.
- ``keyRepository``: the key repository whose certificate HTTPS presents, a stem as SSLKEYR's
  (``<stem>.pem`` or ``<stem>.p12`` with ``<stem>.sth``: security/tls.py), and
  ``certificateLabel`` to pick one in a PKCS#12 repository. Without one, strmqweb makes a
  self-signed certificate for the host in ``<data>/web/key.pem``, as MQ ships a default one.

The server is uvicorn running web/app.py's Starlette application, one server a port in one event
loop; ``python -m mqlite.web.server`` is the process itself (``--foreground`` runs it attached)."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

from mqlite.paths import pid_alive, python_module, same_code
from mqlite.web.settings import settings, web_dir

READY_WAIT = 30.0


def pid_path() -> str:
    return os.path.join(web_dir(), "mqweb.pid")


def running_pid() -> int | None:
    try:
        with open(pid_path(), encoding="ascii") as f:
            pid = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pid if pid_alive(pid) else None


def ports() -> list[tuple[str, int]]:
    """The (scheme, port) pairs the server listens on."""
    s = settings()
    return [(scheme, int(s[key])) for scheme, key in (("https", "httpsPort"), ("http", "httpPort"))
            if int(s[key]) != -1]


def urls() -> list[str]:
    host = settings()["httpHost"]
    return [f"{scheme}://{host}:{port}/ibmmq/rest/" for scheme, port in ports()]


def key_repository() -> str:
    """The stem HTTPS takes its certificate from: keyRepository, else the default self-signed one
    (made at the first start)."""
    stem = str(settings()["keyRepository"])
    if stem:
        return stem
    stem = os.path.join(web_dir(), "key")
    if not os.path.exists(stem + ".pem"):
        _self_signed(stem + ".pem", str(settings()["httpHost"]))
    return stem


def _self_signed(path: str, host: str) -> None:
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host), x509.NameAttribute(NameOID.ORGANIZATION_NAME,
                                                                                        "mqlite mqweb")])
    alt: list[x509.GeneralName] = [x509.DNSName(host), x509.DNSName("localhost")]
    for ip in ("127.0.0.1", "::1"):
        alt.append(x509.IPAddress(ipaddress.ip_address(ip)))
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=3650))
            .add_extension(x509.SubjectAlternativeName(alt), critical=False).sign(key, hashes.SHA256()))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    os.replace(tmp, path)


def _answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def start(foreground: bool = False) -> int:
    """strmqweb: the server in the background, its pid recorded, ready when its port answers."""
    if running_pid() is not None:
        print("MQWB1118E: Server 'mqweb' is already running.")
        return 1
    s = settings()
    if not ports():
        print("MQWB1104E: No port to listen on: httpsPort and httpPort are -1 (setmqweb properties -k ...).")
        return 1
    if foreground:
        return serve()
    os.makedirs(web_dir(), exist_ok=True)
    log = open(os.path.join(web_dir(), "mqweb.log"), "ab")      # noqa: SIM115 - the child keeps it
    proc = subprocess.Popen(python_module("mqlite.web.server"), stdout=log, stderr=log,
                            stdin=subprocess.DEVNULL, start_new_session=True, env=same_code())
    log.close()
    deadline = time.monotonic() + READY_WAIT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            print(f"MQWB1106E: Failed to start the server 'mqweb' (exit code {proc.returncode}); see "
                  f"{os.path.join(web_dir(), 'mqweb.log')}.")
            return 1
        if all(_answers(str(s["httpHost"]), port) for _scheme, port in ports()):
            print("Starting server mqweb.")
            print(f"Server mqweb started with process ID {proc.pid}.")
            return 0
        time.sleep(0.05)
    proc.terminate()
    print("MQWB1106E: The server 'mqweb' did not answer on its port in time.")
    return 1


def stop() -> int:
    """endmqweb: end the server (SIGTERM, waited for)."""
    pid = running_pid()
    if pid is None:
        print("MQWB1125I: Server 'mqweb' is not running.")
        return 0
    print("Stopping server mqweb.")
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if pid_alive(pid):
        os.kill(pid, signal.SIGKILL)
    print("Server mqweb stopped.")
    return 0


def display() -> int:
    """dspmqweb: whether the server runs, and where."""
    if running_pid() is None:
        print("MQWB1125I: Server 'mqweb' is not running.")
        return 1
    print("MQWB1124I: Server 'mqweb' is running.")
    print("URLS:")
    for url in urls():
        print(f"  {url}")
    return 0


def serve() -> int:
    """The server process: a uvicorn server a port (HTTPS with the key repository's certificate,
    HTTP if asked for) in one event loop, its pid in the web directory while it runs."""
    import asyncio

    import uvicorn

    from mqlite.security import tls
    from mqlite.web.app import create_app
    from mqlite.web.guard import GuardedHTTP
    for name in ("MQSERVER", "MQCCDTURL", "MQCHLLIB", "MQCHLTAB"):
        os.environ.pop(name, None)          # mqweb reaches its queue managers by local bindings
    s = settings()
    app = create_app()
    servers = []
    for scheme, port in ports():
        # (GuardedHTTP bounds the connections without a request in progress: web/guard.py; the
        # concurrency limit, whose 503 is for everyone, counts requests rather than idle sockets)
        config = uvicorn.Config(app, host=str(s["httpHost"]), port=port, log_level="warning", access_log=False,
                                timeout_keep_alive=30, limit_concurrency=4096, lifespan="on", http=GuardedHTTP,
                                timeout_graceful_shutdown=3)      # (console streams do not end by themselves)
        config.load()
        if scheme == "https":
            config.ssl = tls.server_context(key_repository(), str(s["certificateLabel"]))
        servers.append(uvicorn.Server(config))
    os.makedirs(web_dir(), exist_ok=True)
    with open(pid_path(), "w", encoding="ascii") as f:
        f.write(str(os.getpid()))

    async def run_all() -> None:
        # (each server takes SIGTERM for itself; when one ends, all do)
        tasks = [asyncio.create_task(server.serve()) for server in servers]
        _done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for server in servers:
            server.should_exit = True
        await asyncio.gather(*pending)
    try:
        import uvloop  # (the faster event loop, as uvicorn's "auto" picks it)
        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    except ImportError:
        pass
    try:
        asyncio.run(run_all())
    finally:
        try:
            os.unlink(pid_path())
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(serve())
