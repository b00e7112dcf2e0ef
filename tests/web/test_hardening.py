"""mqweb under hostile input (issue 62): limits checked before the body is read, a time limit on
each request's header and a bound on idle connections, MQ's 400/404/413 for malformed input and
never a traceback, and no cross-site login. Each case failed before: a 256 MiB POST was read whole
before credentials were checked; 1,050 connections that sent nothing made every client get 503;
deeply nested JSON, a 5,000-digit number, a lone surrogate in a command and a non-ASCII queue name
answered 500 with a traceback; POST /login took a text/plain body without the CSRF header."""
from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite.cli.proc import free_port
from mqlite.testing import Harness, run_mqlite
from tests.web.conftest import call, web_user

IDLE = 64


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    h = Harness(str(tmp_path_factory.mktemp("webhard")), channel="APP.SVRCONN")
    try:
        qm = h.add("HARDQM", "DEFINE QLOCAL(HARD.Q)\n")
        port = free_port()
        env = dict(os.environ, MQLITE_DATA=h.data_dir, MQLITE_WEB_HEADER_WAIT="2", MQLITE_WEB_IDLE=str(IDLE))
        for key, value in (("httpHost", "127.0.0.1"), ("httpPort", str(port)), ("httpsPort", "-1"),
                           ("authFailDelay", "0.2")):
            assert run_mqlite("setmqweb", "properties", "-k", key, "-v", value, env=env).returncode == 0
        web_user(env, "HARDQM", "admin", "passw0rd", "MQWebAdminGroup", "MQWebUserGroup")
        r = run_mqlite("strmqweb", env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        yield {"qm": qm, "base": f"http://127.0.0.1:{port}/ibmmq/rest", "port": port, "env": env}
        assert run_mqlite("endmqweb", env=env).returncode == 0
    finally:
        h.close()


def _raw(port: int, request: bytes, wait: float = 10) -> bytes:
    """One request written as given; what the server answers before it closes or ``wait`` ends."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        s.sendall(request)
        out = b""
        try:
            while b"\r\n\r\n" not in out:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
        except TimeoutError:
            pass
        return out


def test_a_huge_body_is_refused_before_it_is_read(web) -> None:
    """An unauthenticated POST announcing 256 MiB is answered at once (413), its body not read; one
    sent in chunks past 4 MiB is refused once it passes them."""
    started = time.monotonic()
    head = (f"POST /ibmmq/rest/v2/messaging/qmgr/HARDQM/queue/HARD.Q/message HTTP/1.1\r\nHost: x\r\n"
            f"ibm-mq-rest-csrf-token: x\r\nContent-Type: text/plain\r\nContent-Length: {256 << 20}\r\n\r\n").encode()
    answer = _raw(web["port"], head + b"x" * 1000)
    assert answer.startswith(b"HTTP/1.1 413") and time.monotonic() - started < 5
    chunk = b"x" * (1 << 20)
    body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(5)) + b"0\r\n\r\n"
    head = (b"POST /ibmmq/rest/v2/messaging/qmgr/HARDQM/queue/HARD.Q/message HTTP/1.1\r\nHost: x\r\n"
            b"Authorization: Basic YWRtaW46cGFzc3cwcmQ=\r\nibm-mq-rest-csrf-token: x\r\n"
            b"Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n")
    assert _raw(web["port"], head + body).startswith(b"HTTP/1.1 413")
    # without credentials, a small body is refused for them (not read first)
    status, _h, err = call(web["base"] + "/v2/messaging/qmgr/HARDQM/queue/HARD.Q/message", "POST", raw=b"x",
                           headers={"Content-Type": "text/plain"}, auth=None)
    assert status == 401 and err["error"][0]["messageId"] == "MQWB0103E"


def test_connections_that_send_nothing_keep_no_client_out(web) -> None:
    """Four times IDLE connections that send nothing, and one that sends its header a byte at a
    time: a real request is answered at once, the slow header's connection is closed after the
    header wait, and the idle ones no later."""
    socks = [socket.create_connection(("127.0.0.1", web["port"]), timeout=10) for _ in range(4 * IDLE)]
    try:
        slow = socket.create_connection(("127.0.0.1", web["port"]), timeout=10)
        slow.sendall(b"GET /ibmmq/rest/v1/admin/installation HTTP/1.1\r\n")
        started = time.monotonic()
        status, _h, body = call(web["base"] + "/v1/admin/installation")
        assert status == 200 and body["installation"][0]["name"] and time.monotonic() - started < 5
        slow.sendall(b"Host: x\r\n")
        time.sleep(1)
        slow.sendall(b"X-Slow: 1\r\n")
        slow.settimeout(10)
        assert slow.recv(100) == b""                         # closed: the header took over 2 s
        assert time.monotonic() - started < 8
        slow.close()
        for s in socks:                                      # every one that sent nothing is closed too
            s.settimeout(10)
            assert s.recv(100) == b""
    finally:
        for s in socks:
            s.close()


@pytest.mark.parametrize("body", [
    b"[" * 100_000 + b"]" * 100_000,
    b'{"type": "runCommand", "parameters": {"command": "DISPLAY QLOCAL(' + b"9" * 5000 + b')", "n": ' + b"9" * 5000
    + b"}}",
    b'{"type": "runCommand", "parameters": {"command": "DISPLAY QLOCAL(\\ud800)"}}',
    b'{"type": "runCommand", "parameters": {"command": "DISPLAY QLOCAL(\\ud800)", "\\udfff": 1}}',
    b"\xff\xfe not UTF-8",
], ids=["nested", "5000-digits", "lone-surrogate", "surrogate-key", "not-utf8"])
def test_a_malformed_mqsc_body_is_400_mqwb2004e(web, body) -> None:
    status, _h, err = call(web["base"] + "/v2/admin/action/qmgr/HARDQM/mqsc", "POST", raw=body)
    assert status == 400 and err["error"][0]["messageId"] == "MQWB2004E"


@pytest.mark.parametrize("name", ["CAFÉ.Q", "Q" * 49, "A;B"])
def test_a_queue_name_mq_could_not_have_is_not_found(web, name) -> None:
    from urllib.parse import quote
    for url in (f"/v2/messaging/qmgr/HARDQM/queue/{quote(name)}/message",
                f"/v2/messaging/qmgr/HARDQM/queue/{quote(name)}/messagelist"):
        status, _h, err = call(web["base"] + url)
        assert status == 404 and err["error"][0]["messageId"] == "MQWB0300E", (url, err)
    console = web["base"].replace("/rest", "/console/api/messages/HARDQM/") + quote(name)
    status, _h, err = call(console)
    assert status == 404 and err["error"][0]["messageId"] == "MQWB0300E"


def test_login_takes_json_or_the_csrf_header_not_a_cross_site_form(web) -> None:
    form = b'{"username": "admin", "password": "passw0rd"}'
    status, _h, err = call(web["base"] + "/v1/login", "POST", raw=form, headers={"Content-Type": "text/plain"},
                           auth=None, csrf=False)
    assert status == 403 and err["error"][0]["messageId"] == "MQWB0100E"
    status, headers, _b = call(web["base"] + "/v1/login", "POST", raw=form, auth=None, csrf=False)
    assert status == 204 and "ltpatoken2" in headers.get("set-cookie", "").lower()
    status, headers, _b = call(web["base"] + "/v1/login", "POST", raw=form, headers={"Content-Type": "text/plain"},
                               auth=None, csrf=True)
    assert status == 204
