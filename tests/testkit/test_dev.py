"""``mqlite dev`` from a clean environment, as a new user runs it: IBM's developer objects and
users, the passwords from the environment (or generated and printed once), each channel's
refusals as IBM's developer image gives them, a second run, and ``--foreground`` as a service's
entry point (ready when its port accepts)."""
from __future__ import annotations

import base64
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.cli.proc import free_port

C = pymqi.CMQC


def mqlite_dev(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """``mqlite dev``; without the console unless ``--web-port`` is given."""
    web = () if "--web-port" in args else ("--web-port", "0")
    return subprocess.run([sys.executable, "-m", "mqlite.cli.main", "dev", "--secrets", "/nonexistent", *web, *args],
                          env=env, capture_output=True, text=True, timeout=60)


def reason(fn: Any) -> int:
    try:
        fn()
    except pymqi.MQMIError as e:
        return e.reason
    return 0


@pytest.fixture
def clean(tmp_path: Any) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQ")}
    env["MQLITE_DATA"] = str(tmp_path)
    yield env
    subprocess.run([sys.executable, "-m", "mqlite.cli.main", "endmqm", "-i", "QM1"], env=env, capture_output=True)
    subprocess.run([sys.executable, "-m", "mqlite.cli.main", "endmqweb"], env=env, capture_output=True)


def test_mqlite_dev_is_the_developer_image(clean: dict[str, str]) -> None:
    port = free_port()
    r = mqlite_dev({**clean, "MQ_APP_PASSWORD": "apppassw0rd", "MQ_ADMIN_PASSWORD": "adminpassw0rd"},
                   "--port", str(port))
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"127.0.0.1({port})" in r.stdout and "DEV.APP.SVRCONN" in r.stdout and "generated" not in r.stdout
    where = f"127.0.0.1({port})"
    app = pymqi.connect("QM1", "DEV.APP.SVRCONN", where, "app", "apppassw0rd")
    q = pymqi.Queue(app, "DEV.QUEUE.1", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    q.put(b"hello")
    assert q.get() == b"hello"
    q.close()
    t = pymqi.Topic(app, topic_name="DEV.BASE.TOPIC")              # app may publish on 'dev/'
    t.open(open_opts=C.MQOO_OUTPUT)
    t.pub(b"news")
    t.close()
    assert reason(lambda: pymqi.Queue(app, "SYSTEM.DEFAULT.LOCAL.QUEUE", C.MQOO_OUTPUT)) == C.MQRC_NOT_AUTHORIZED
    app.disconnect()
    admin = pymqi.connect("QM1", "DEV.ADMIN.SVRCONN", where, "admin", "adminpassw0rd")
    deadq = pymqi.PCFExecute(admin).MQCMD_INQUIRE_Q_MGR()[0][C.MQCA_DEAD_LETTER_Q_NAME]
    assert deadq.strip() == b"DEV.DEAD.LETTER.QUEUE"
    admin.disconnect()
    # As IBM's image refuses: a wrong password, the administrator on the application channel, the
    # application on the administration channel, a client without a password.
    for channel, user, secret in (("DEV.APP.SVRCONN", "app", "wrongpassword"),
                                  ("DEV.APP.SVRCONN", "admin", "adminpassw0rd"),
                                  ("DEV.ADMIN.SVRCONN", "app", "apppassw0rd"),
                                  ("DEV.APP.SVRCONN", None, None)):
        assert reason(lambda: pymqi.connect("QM1", channel, where, user, secret)) == C.MQRC_NOT_AUTHORIZED, (channel, user)
    # A second run: running already, nothing made again, a new password taken from the environment.
    r = mqlite_dev({**clean, "MQ_APP_PASSWORD": "newpassw0rd"}, "--port", str(port))
    assert r.returncode == 0 and "generated" not in r.stdout
    pymqi.connect("QM1", "DEV.APP.SVRCONN", where, "app", "newpassw0rd").disconnect()


def test_passwords_are_generated_and_printed_once(clean: dict[str, str]) -> None:
    port = free_port()
    r = mqlite_dev(clean, "--port", str(port))
    assert r.returncode == 0, r.stderr
    found = dict(re.findall(r"Password of (\w+) \(generated; printed this once\): (\S+)", r.stdout))
    assert set(found) == {"app", "admin"}
    pymqi.connect("QM1", "DEV.APP.SVRCONN", f"127.0.0.1({port})", "app", found["app"]).disconnect()
    again = mqlite_dev(clean, "--port", str(port))
    assert again.returncode == 0 and "generated" not in again.stdout
    short = mqlite_dev({**clean, "MQ_APP_PASSWORD": "short"}, "--port", str(port))
    assert short.returncode == 20 and "at least 8 characters" in short.stderr


def test_foreground_is_a_service_entry_point(clean: dict[str, str]) -> None:
    port = free_port()
    p = subprocess.Popen([sys.executable, "-m", "mqlite.cli.main", "dev", "--secrets", "/nonexistent",
                          "--port", str(port), "--web-port", "0", "--foreground"],
                         env={**clean, "MQ_APP_PASSWORD": "apppassw0rd", "MQ_ADMIN_PASSWORD": "adminpassw0rd"},
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("the port never accepted")
        pymqi.connect("QM1", "DEV.APP.SVRCONN", f"127.0.0.1({port})", "app", "apppassw0rd").disconnect()
        assert p.poll() is None                                      # it is the queue manager, still running
        p.send_signal(signal.SIGTERM)
        assert p.wait(30) == 0
    finally:
        if p.poll() is None:
            p.kill()


def test_the_console_comes_up_for_admin_and_app(clean: dict[str, str]) -> None:
    """As IBM's image: mqweb on HTTPS, the administrative REST API for admin, the messaging REST
    API for app (MQWebUser), neither without a password."""
    port, web = free_port(), free_port()
    r = mqlite_dev({**clean, "MQ_APP_PASSWORD": "apppassw0rd", "MQ_ADMIN_PASSWORD": "adminpassw0rd"},
                   "--port", str(port), "--web-port", str(web))
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"https://localhost:{web}/ibmmq/console/" in r.stdout, r.stdout
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE      # mqweb's own certificate

    def call(path: str, user: str | None, secret: str = "", body: bytes | None = None) -> tuple[int, bytes]:
        req = urllib.request.Request(f"https://127.0.0.1:{web}/ibmmq/rest/{path}", data=body,
                                     method="POST" if body is not None else "GET")
        if user is not None:
            req.add_header("Authorization", "Basic " + base64.b64encode(f"{user}:{secret}".encode()).decode())
        req.add_header("ibm-mq-rest-csrf-token", "x")
        req.add_header("Content-Type", "text/plain;charset=utf-8")
        try:
            with urllib.request.urlopen(req, context=context, timeout=10) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()
    status, body = call("v1/admin/qmgr/QM1", "admin", "adminpassw0rd")
    assert status == 200 and json.loads(body)["qmgr"][0]["name"] == "QM1"
    assert call("v3/messaging/qmgr/QM1/queue/DEV.QUEUE.1/message", "app", "apppassw0rd", b"by rest")[0] == 201
    app = pymqi.connect("QM1", "DEV.APP.SVRCONN", f"127.0.0.1({port})", "app", "apppassw0rd")
    assert pymqi.Queue(app, "DEV.QUEUE.1", C.MQOO_INPUT_SHARED).get() == b"by rest"
    app.disconnect()
    assert call("v1/admin/qmgr/QM1", None)[0] == 401
