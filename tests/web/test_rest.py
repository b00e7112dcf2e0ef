"""mqweb's administrative REST API through a real mqweb server process and real queue managers,
with a plain HTTP client (urllib): IBM's envelopes, status codes and MQWB errors, MQSC's answers
as commandResponse items, and bad input refused with nothing changed."""
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
        assert run_mqlite("setmqweb", "properties", "-k", "httpHost", "-v", "127.0.0.1", env=env).returncode == 0
        r = run_mqlite("setmqweb", "properties", "-k", "httpPort", "-v", str(port), env=env)
        assert r.returncode == 0 and "MQWB1100I" in r.stdout
        r = run_mqlite("strmqweb", env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        yield {"qm": qm, "base": f"http://127.0.0.1:{port}/ibmmq/rest", "env": env}
        r = run_mqlite("endmqweb", env=env)
        assert r.returncode == 0 and "Server mqweb stopped." in r.stdout
    finally:
        h.close()


AUTH = "Basic " + base64.b64encode(b"admin:passw0rd").decode()


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


def mqsc(web: dict[str, Any], body: Any, **kw: Any) -> tuple[int, dict[str, str], Any]:
    return call(f"{web['base']}/v2/admin/action/qmgr/WEBQM/mqsc", "POST", body, **kw)


def test_dspmqweb_and_the_server_commands(web: dict[str, Any]) -> None:
    r = run_mqlite("dspmqweb", env=web["env"])
    assert r.returncode == 0 and "MQWB1124I: Server 'mqweb' is running." in r.stdout
    assert f"  {web['base']}/" in r.stdout
    r = run_mqlite("strmqweb", env=web["env"])
    assert r.returncode == 1 and "MQWB1118E" in r.stdout                      # one server a data directory
    r = run_mqlite("setmqweb", "properties", "-k", "httpPort", "-v", "99999", env=web["env"])
    assert r.returncode == 1 and "MQWB1103E" in r.stdout
    r = run_mqlite("setmqweb", "properties", "-k", "nosuch", "-v", "1", env=web["env"])
    assert r.returncode == 1 and "MQWB1104E" in r.stdout


def test_installation_and_queue_managers(web: dict[str, Any]) -> None:
    status, _h, body = call(f"{web['base']}/v1/admin/installation")
    assert status == 200 and body["installation"][0]["name"] == "Installation1"
    assert body["installation"][0]["maximumCommandLevel"] >= 940
    status, _h, body = call(f"{web['base']}/v1/admin/qmgr")
    assert status == 200 and {"name": "WEBQM", "state": "running"} in body["qmgr"]
    status, _h, body = call(f"{web['base']}/v2/admin/qmgr/WEBQM")
    assert status == 200 and body == {"qmgr": [{"name": "WEBQM", "state": "running"}]}
    status, _h, body = call(f"{web['base']}/v2/admin/qmgr/NOSUCH")
    assert status == 404 and body["error"][0]["messageId"] == "MQWB0009E"
    assert set(body["error"][0]) >= {"type", "messageId", "message", "explanation", "action"}


def test_run_command_returns_mqsc_text(web: dict[str, Any]) -> None:
    status, _h, body = mqsc(web, {"type": "runCommand", "parameters": {"command": "DEFINE QLOCAL(WEB.TEXT)"}})
    assert status == 200 and body == {"commandResponse": [{"completionCode": 0, "reasonCode": 0,
                                                           "text": ["AMQ8006I: IBM MQ queue created."]}],
                                      "overallCompletionCode": 0, "overallReasonCode": 0}
    status, _h, body = mqsc(web, {"type": "runCommand", "parameters": {"command": "DISPLAY QLOCAL(WEB.TEXT) CURDEPTH"}})
    assert status == 200 and body["commandResponse"][0]["text"][0] == "AMQ8409I: Display Queue details."
    assert any("CURDEPTH(0)" in line for line in body["commandResponse"][0]["text"])
    # MQ refusing the command is still HTTP 200: the codes say so.
    status, _h, body = mqsc(web, {"type": "runCommand", "parameters": {"command": "DEFINE QLOCAL(WEB.TEXT)"}})
    assert status == 200 and body["overallCompletionCode"] == 2 and body["overallReasonCode"] == 3008
    assert body["commandResponse"] == [{"completionCode": 2, "reasonCode": 4001,
                                        "text": ["AMQ8150E: IBM MQ object already exists."]}]


def test_run_command_json_object_lifecycle(web: dict[str, Any]) -> None:
    """define, display (lowercase keys, numbers as numbers, a list as an array), alter, delete:
    each as IBM's runCommandJSON answers; a display of nothing is the item's 2085."""
    q = {"type": "runCommandJSON", "qualifier": "qlocal", "name": "WEB.JSON"}
    status, _h, body = mqsc(web, q | {"command": "define", "parameters": {"descr": "it's web", "maxdepth": 77}})
    assert status == 200 and body["commandResponse"] == [
        {"completionCode": 0, "reasonCode": 0, "message": ["AMQ8006I: IBM MQ queue created."]}]
    status, _h, body = mqsc(web, q | {"command": "display", "responseParameters": ["descr", "maxdepth", "curdepth"]})
    assert body["commandResponse"] == [{"completionCode": 0, "reasonCode": 0, "parameters": {
        "queue": "WEB.JSON", "type": "QLOCAL", "descr": "it's web", "maxdepth": 77, "curdepth": 0}}]
    mqsc(web, q | {"command": "alter", "parameters": {"descr": "altered"}})
    status, _h, body = mqsc(web, q | {"command": "display"})
    params = body["commandResponse"][0]["parameters"]
    assert params["descr"] == "altered" and params["defpsist"] == "NO" and "altdate" in params
    status, _h, body = mqsc(web, {"type": "runCommandJSON", "command": "define", "qualifier": "namelist",
                                  "name": "WEB.NL", "parameters": {"names": ["WEB.JSON", "WEB.KEPT"]}})
    assert body["overallCompletionCode"] == 0
    status, _h, body = mqsc(web, {"type": "runCommandJSON", "command": "display", "qualifier": "namelist",
                                  "name": "WEB.NL", "responseParameters": ["names"]})
    assert body["commandResponse"][0]["parameters"]["names"] == ["WEB.JSON", "WEB.KEPT"]
    status, _h, body = mqsc(web, {"type": "runCommandJSON", "command": "display", "qualifier": "qmgr",
                                  "responseParameters": ["qmname", "maxmsgl"]})
    assert body["commandResponse"][0]["parameters"]["qmname"] == "WEBQM"
    assert isinstance(body["commandResponse"][0]["parameters"]["maxmsgl"], int)
    status, _h, body = mqsc(web, {"type": "runCommandJSON", "command": "display", "qualifier": "queue",
                                  "name": "WEB.*", "responseParameters": ["curdepth"]})
    assert [i["parameters"]["queue"] for i in body["commandResponse"]] == ["WEB.JSON", "WEB.KEPT"] + (
        ["WEB.TEXT"] if len(body["commandResponse"]) == 3 else [])
    mqsc(web, q | {"command": "delete"})
    status, _h, body = mqsc(web, q | {"command": "display"})
    assert status == 200 and (body["overallCompletionCode"], body["overallReasonCode"]) == (2, 3008)
    assert body["commandResponse"] == [{"completionCode": 2, "reasonCode": 2085,
                                        "message": ["AMQ8147E: IBM MQ object WEB.JSON not found."]}]


@pytest.mark.parametrize("case,status,message_id", [
    ("no credentials", 401, "MQWB0103E"),
    ("no csrf header", 403, "MQWB0100E"),
    ("malformed json", 400, "MQWB2004E"),
    ("json not an object", 400, "MQWB2004E"),
    ("unknown type", 400, "MQWB1104E"),
    ("unknown qualifier", 400, "MQWB1104E"),
    ("mqsc injection in the name", 400, "MQWB1104E"),
    ("injection in a key", 400, "MQWB1104E"),
    ("a second command in runCommand", 400, "MQWB1104E"),
    ("missing name", 400, "MQWB1102E"),
    ("name for the queue manager", 400, "MQWB1104E"),
    ("oversized body", 413, "MQWB0306E"),
    ("unknown api version", 404, "MQWB0006E"),
    ("unknown queue manager", 404, "MQWB0009E"),
])
def test_bad_requests_are_refused_and_change_nothing(web: dict[str, Any], case: str, status: int,
                                                     message_id: str) -> None:
    define = {"type": "runCommandJSON", "command": "delete", "qualifier": "qlocal", "name": "WEB.KEPT"}
    url = f"{web['base']}/v2/admin/action/qmgr/WEBQM/mqsc"
    kw: dict[str, Any] = {}
    body: Any = define
    if case == "no credentials":
        kw["auth"] = None
    elif case == "no csrf header":
        kw["csrf"] = False
    elif case == "malformed json":
        kw["raw"] = b'{"type": "runCommand", '
    elif case == "json not an object":
        body = ["DELETE QLOCAL(WEB.KEPT)"]
    elif case == "unknown type":
        body = {"type": "runEverything", "parameters": {"command": "DELETE QLOCAL(WEB.KEPT)"}}
    elif case == "unknown qualifier":
        body = define | {"qualifier": "everything"}
    elif case == "mqsc injection in the name":
        body = define | {"command": "display", "name": "X) DELETE QLOCAL(WEB.KEPT"}
    elif case == "injection in a key":
        body = define | {"command": "alter", "parameters": {"descr) PUT(DISABLED": "x"}}
    elif case == "a second command in runCommand":
        body = {"type": "runCommand", "parameters": {"command": "DISPLAY QMGR\nDELETE QLOCAL(WEB.KEPT)"}}
    elif case == "missing name":
        body = {k: v for k, v in define.items() if k != "name"}
    elif case == "name for the queue manager":
        body = define | {"qualifier": "qmgr", "command": "alter"}
    elif case == "oversized body":
        body = define | {"parameters": {"descr": "x" * (5 * 1024 * 1024)}}
    elif case == "unknown api version":
        url = url.replace("/v2/", "/v9/")
    elif case == "unknown queue manager":
        url = url.replace("/WEBQM/", "/NOSUCH/")
    got, headers, answer = call(url, "POST", body, **kw)
    assert got == status and answer["error"][0]["messageId"] == message_id
    if status == 401:
        assert headers.get("www-authenticate", "").startswith("Basic")
    # Nothing changed: the queue is still there.
    _s, _h, after = mqsc(web, {"type": "runCommandJSON", "command": "display", "qualifier": "qlocal",
                               "name": "WEB.KEPT", "responseParameters": ["descr", "put"]})
    assert after["commandResponse"][0]["parameters"] == {"queue": "WEB.KEPT", "type": "QLOCAL",
                                                         "descr": "kept", "put": "ENABLED"}


def test_a_stopped_queue_manager_is_503_and_back_when_started(web: dict[str, Any]) -> None:
    qm = web["qm"]
    qm.stop()
    try:
        status, _h, body = mqsc(web, {"type": "runCommand", "parameters": {"command": "DISPLAY QMGR"}})
        assert status == 503 and body["error"][0]["messageId"] == "MQWB0008E"
        status, _h, body = call(f"{web['base']}/v1/admin/qmgr/WEBQM")
        assert body == {"qmgr": [{"name": "WEBQM", "state": "ended"}]}
    finally:
        qm.start()
    status, _h, body = mqsc(web, {"type": "runCommand", "parameters": {"command": "DISPLAY QMGR QMNAME"}})
    assert status == 200 and body["overallCompletionCode"] == 0
    assert os.path.exists(os.path.join(web["env"]["MQLITE_DATA"], "web", "mqweb.pid"))
