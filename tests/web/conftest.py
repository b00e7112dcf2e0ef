"""What the mqweb tests share: a data directory with one queue manager (WEBQM) and a running
mqweb server for the module (``web``), a registry user in mqweb's groups, and one HTTP call."""
from __future__ import annotations

import base64
import json
import os
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite.cli.proc import free_port
from mqlite.testing import Harness, run_mqlite


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    h = Harness(str(tmp_path_factory.mktemp("web")), channel="APP.SVRCONN")
    try:
        qm = h.add("WEBQM", "DEFINE QLOCAL(WEB.KEPT) DESCR('kept')\n")
        port = free_port()
        env = dict(os.environ, MQLITE_DATA=h.data_dir)
        https = free_port()
        for key, value in (("httpHost", "127.0.0.1"), ("httpPort", str(port)), ("httpsPort", str(https)),
                           ("authFailDelay", "0.2")):
            r = run_mqlite("setmqweb", "properties", "-k", key, "-v", value, env=env)
            assert r.returncode == 0 and "MQWB1100I" in r.stdout
        web_user(env, "WEBQM", "admin", "passw0rd", "MQWebAdminGroup", "MQWebUserGroup")
        r = run_mqlite("strmqweb", env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        yield {"qm": qm, "base": f"http://127.0.0.1:{port}/ibmmq/rest", "env": env,
               "https": f"https://127.0.0.1:{https}/ibmmq/rest"}
        r = run_mqlite("endmqweb", env=env)
        assert r.returncode == 0 and "Server mqweb stopped." in r.stdout
    finally:
        h.close()


AUTH = "Basic " + base64.b64encode(b"admin:passw0rd").decode()


def web_user(env: dict[str, str], qmgr: str, user: str, password: str, *groups: str) -> None:
    """A user of the queue manager's registry, in groups mqweb maps to roles."""
    r = run_mqlite("setmqusr", "-m", qmgr, "-u", user, "-p", password, *[a for g in groups for a in ("-g", g)],
                   env=env)
    assert r.returncode == 0, r.stdout + r.stderr


def call(url: str, method: str = "GET", body: Any = None, headers: dict[str, str] | None = None,
         auth: str | None = AUTH, csrf: bool = True, raw: bytes | None = None) -> tuple[int, dict[str, str], Any]:
    """One request: (status, headers by lowercase name, JSON body or None)."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    h = {"Content-Type": "application/json"} | (headers or {})
    if auth:
        h["Authorization"] = auth
    if csrf:
        h["ibm-mq-rest-csrf-token"] = "anything"
    req = urllib.request.Request(url, data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            text = resp.read()
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}, json.loads(text) if text else None
    except urllib.error.HTTPError as e:
        text = e.read()
        return e.code, {k.lower(): v for k, v in e.headers.items()}, json.loads(text) if text else None
