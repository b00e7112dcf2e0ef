"""mqweb's administrative REST API through a real mqweb server process and real queue managers,
with a plain HTTP client (urllib): IBM's envelopes, status codes and MQWB errors, MQSC's answers
as commandResponse items, and bad input refused with nothing changed."""
from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any

import pytest

from mqlite.testing import run_mqlite
from tests.web.conftest import AUTH, call


def mqsc(web: dict[str, Any], body: Any, **kw: Any) -> tuple[int, dict[str, str], Any]:
    return call(f"{web['base']}/v2/admin/action/qmgr/WEBQM/mqsc", "POST", body, **kw)


def test_dspmqweb_and_the_server_commands(web: dict[str, Any]) -> None:
    r = run_mqlite("dspmqweb", env=web["env"])
    assert r.returncode == 0 and "MQWB1124I: Server 'mqweb' is running." in r.stdout
    assert f"  {web['base']}/" in r.stdout and f"  {web['https']}/" in r.stdout
    r = run_mqlite("strmqweb", env=web["env"])
    assert r.returncode == 1 and "MQWB1118E" in r.stdout                      # one server a data directory
    r = run_mqlite("setmqweb", "properties", "-k", "httpPort", "-v", "99999", env=web["env"])
    assert r.returncode == 1 and "MQWB1103E" in r.stdout
    for key, value in (("authFailDelay", "-1"), ("authFailDelay", "soon"), ("ltpaExpiration", "0")):
        r = run_mqlite("setmqweb", "properties", "-k", key, "-v", value, env=web["env"])
        assert r.returncode == 1 and "MQWB1103E" in r.stdout, (key, value)
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


def message_call(web: dict[str, Any], method: str, version: str = "v2", queue: str = "WEB.MSG", query: str = "",
                 body: bytes | None = None, headers: dict[str, str] | None = None,
                 csrf: bool = True) -> tuple[int, dict[str, str], bytes]:
    url = f"{web['base']}/{version}/messaging/qmgr/WEBQM/queue/{queue}/message" + (f"?{query}" if query else "")
    h = {"Authorization": AUTH} | ({"ibm-mq-rest-csrf-token": "x"} if csrf else {}) | (headers or {})
    req = urllib.request.Request(url, data=body, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def test_messaging_put_browse_get_as_mq_documents(web: dict[str, Any]) -> None:
    """POST puts a text message (201, its MsgId as 48 hex digits, the ibm-mq-md-* headers in its
    descriptor: a pymqi application sees them); GET browses it, DELETE takes it (200, the body and
    its headers; v3 writes ids with ID:); then 204; a pymqi application's message comes out too."""
    from mqlite import pymqi
    from mqlite.pymqi import CMQC
    mqsc(web, {"type": "runCommand", "parameters": {"command": "DEFINE QLOCAL(WEB.MSG) REPLACE"}})
    correl = "ab" * 24
    status, headers, _b = message_call(web, "POST", body="héllo REST".encode(), headers={
        "Content-Type": "text/plain;charset=utf-8", "ibm-mq-md-persistence": "persistent",
        "ibm-mq-md-correlationId": correl, "ibm-mq-md-expiry": "600000", "ibm-mq-md-replyTo": "REPLY.Q@QMX"})
    assert status == 201 and len(headers["ibm-mq-md-messageid"]) == 48
    msgid = headers["ibm-mq-md-messageid"]
    c = web["qm"].client()
    try:
        md = pymqi.MD()
        body = pymqi.Queue(c, "WEB.MSG", CMQC.MQOO_BROWSE).get(
            None, md, pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
        assert body == "héllo REST".encode() and md.MsgId.hex() == msgid and md.CorrelId.hex() == correl
        assert md.Format == CMQC.MQFMT_STRING and md.CodedCharSetId == 1208
        assert md.Persistence == CMQC.MQPER_PERSISTENT and 0 < md.Expiry <= 6000
        assert md.ReplyToQ.strip() == b"REPLY.Q" and md.ReplyToQMgr.strip() == b"QMX"
        status, headers, body = message_call(web, "GET", "v3")
        assert status == 200 and body == "héllo REST".encode()
        assert headers["ibm-mq-md-messageid"] == "ID:" + msgid and headers["ibm-mq-md-priority"] == "0"
        assert headers["content-type"].startswith("text/plain")
        status, headers, body = message_call(web, "DELETE", query=f"correlationId={correl}")
        assert status == 200 and body == "héllo REST".encode() and headers["ibm-mq-md-messageid"] == msgid
        assert headers["ibm-mq-md-persistence"] == "persistent" and headers["ibm-mq-md-replyto"] == "REPLY.Q@QMX"
        assert headers["ibm-mq-md-correlationid"] == correl and int(headers["ibm-mq-md-expiry"]) <= 600000
        assert message_call(web, "DELETE")[0] == 204
        pymqi.Queue(c, "WEB.MSG").put(b"from pymqi", pymqi.MD(Format=CMQC.MQFMT_STRING))
        status, _h, listed = call(f"{web['base']}/v2/messaging/qmgr/WEBQM/queue/WEB.MSG/messagelist")
        assert status == 200 and [m["format"] for m in listed] == ["MQSTR"] and "putDateTime" in listed[0]
        status, _h, body = message_call(web, "DELETE", query="wait=2000")
        assert status == 200 and body == b"from pymqi"
    finally:
        c.disconnect()


def test_messaging_refusals(web: dict[str, Any]) -> None:
    """A message that is not text stays on the queue (400 MQWB0307E); bad headers are 400
    MQWB0302E; an unknown queue is 404 with MQ's reason; no CSRF header is 403; media types MQ
    does not take are 415; nothing is put by a refused request."""
    from mqlite import pymqi
    from mqlite.pymqi import CMQC
    mqsc(web, {"type": "runCommand", "parameters": {"command": "DEFINE QLOCAL(WEB.REFUSE) REPLACE"}})
    c = web["qm"].client()
    try:
        pymqi.Queue(c, "WEB.REFUSE").put(b"\x00\x01binary", pymqi.MD(Format=CMQC.MQFMT_NONE))
        status, _h, body = message_call(web, "DELETE", queue="WEB.REFUSE")
        assert status == 400 and json.loads(body)["error"][0]["messageId"] == "MQWB0307E"
        for headers in ({"ibm-mq-md-persistence": "sometimes"}, {"ibm-mq-md-correlationId": "zz"},
                        {"ibm-mq-md-expiry": "soon"}, {"ibm-mq-md-priority": "5"},       # priority: v3 only
                        {"ibm-mq-usr": "colour;\"blue\";string"}):                   # so are user properties
            status, _h, body = message_call(web, "POST", queue="WEB.REFUSE", body=b"x",
                                            headers={"Content-Type": "text/plain"} | headers)
            assert status == 400 and json.loads(body)["error"][0]["messageId"] == "MQWB0302E", headers
        status, _h, body = message_call(web, "POST", queue="WEB.REFUSE", body=b"x", csrf=False)
        assert status == 403 and json.loads(body)["error"][0]["messageId"] == "MQWB0100E"
        status, _h, body = message_call(web, "POST", queue="WEB.REFUSE", body=b"x",
                                        headers={"Content-Type": "image/png"})
        assert status == 415
        status, _h, body = message_call(web, "POST", queue="NO.SUCH.Q", body=b"x",
                                        headers={"Content-Type": "text/plain"})
        error = json.loads(body)["error"][0]
        assert status == 404 and (error["completionCode"], error["reasonCode"]) == (2, 2085)
        depth = pymqi.Queue(c, "WEB.REFUSE", CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
        assert depth == 1                                   # only the binary message, left where it was
    finally:
        c.disconnect()


def test_messaging_user_properties_are_kept(web: dict[str, Any]) -> None:
    """v3's ibm-mq-usr header (it was dropped): the message is a JMS TextMessage whose usr folder
    an MQI application reads, and GET and DELETE give the properties back in the same header; a
    header MQ's syntax or types do not allow is 400 MQWB0302E with nothing put."""
    from mqlite import pymqi
    from mqlite.pymqi import CMQC
    mqsc(web, {"type": "runCommand", "parameters": {"command": "DEFINE QLOCAL(WEB.USR) REPLACE"}})
    usr = 'colour;"blue, green";string,count;42;i4,ok;true;boolean,ratio;0.5;r8'
    status, _h, _b = message_call(web, "POST", "v3", queue="WEB.USR", body=b"with properties",
                                  headers={"Content-Type": "text/plain", "ibm-mq-usr": usr})
    assert status == 201
    for bad in ("colour;blue;string", "count;x;i4", "count;1;i9", "tiny;300;i1", "onlyname"):
        status, _h, body = message_call(web, "POST", "v3", queue="WEB.USR", body=b"x",
                                        headers={"Content-Type": "text/plain", "ibm-mq-usr": bad})
        assert status == 400 and json.loads(body)["error"][0]["messageId"] == "MQWB0302E", bad
    c = web["qm"].client()
    try:
        q = pymqi.Queue(c, "WEB.USR", CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE)
        assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 1
        md = pymqi.MD()
        raw = q.get(None, md, pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))    # PROPCTL(COMPAT): the RFH2
        assert md.Format == CMQC.MQFMT_RF_HEADER_2 and raw.endswith(b"with properties")
        assert b"<colour>blue, green</colour>" in raw and b"<Msd>jms_text</Msd>" in raw
        q.close()
    finally:
        c.disconnect()
    status, headers, body = message_call(web, "GET", "v3", queue="WEB.USR")
    assert status == 200 and body == b"with properties" and headers["ibm-mq-usr"] == usr
    status, headers, body = message_call(web, "DELETE", "v2", queue="WEB.USR")
    assert status == 200 and body == b"with properties" and "ibm-mq-usr" not in headers


def test_https_with_the_default_certificate_and_a_key_repository(web: dict[str, Any]) -> None:
    """HTTPS (MQ's default) presents the self-signed certificate strmqweb made when no key
    repository is set: a client that trusts it is answered; one that trusts nothing refuses it."""
    import ssl
    pem = os.path.join(web["env"]["MQLITE_DATA"], "web", "key.pem")
    assert os.path.exists(pem) and os.stat(pem).st_mode & 0o077 == 0
    trusting = ssl.create_default_context(cafile=pem)
    req = urllib.request.Request(f"{web['https']}/v1/admin/qmgr", headers={"Authorization": AUTH})
    with urllib.request.urlopen(req, timeout=30, context=trusting) as resp:
        assert resp.status == 200 and json.loads(resp.read()) == {"qmgr": [{"name": "WEBQM", "state": "running"}]}
    with pytest.raises(urllib.error.URLError) as e:
        urllib.request.urlopen(req, timeout=30, context=ssl.create_default_context())
    assert "CERTIFICATE_VERIFY_FAILED" in str(e.value)


def test_publish_on_a_topic_reaches_its_subscribers(web: dict[str, Any]) -> None:
    """POST .../topic/{topicString}/message publishes (201, a MsgId); an administrative
    subscription's queue gets the publication, with the descriptor the headers asked for."""
    mqsc(web, {"type": "runCommand", "parameters": {"command": "DEFINE QLOCAL(WEB.NEWS) REPLACE"}})
    mqsc(web, {"type": "runCommand", "parameters": {
        "command": "DEFINE SUB(WEB.NEWS.SUB) TOPICSTR('web/news/today') DEST(WEB.NEWS) REPLACE"}})
    url = f"{web['base']}/v2/messaging/qmgr/WEBQM/topic/web/news/today/message"
    status, headers, answer = call(url, "POST", raw=b"extra!", headers={
        "Content-Type": "text/plain;charset=utf-8", "ibm-mq-md-persistence": "persistent"})
    assert status == 201 and len(headers["ibm-mq-md-messageid"]) == 48, answer["error"][0]["reasonCode"]
    status, headers, body = message_call(web, "DELETE", queue="WEB.NEWS")
    assert status == 200 and body == b"extra!" and headers["ibm-mq-md-persistence"] == "persistent"
    # No subscriber: still published (201), nothing anywhere; GET on a topic is not a resource (405).
    status, _h, _b = call(f"{web['base']}/v2/messaging/qmgr/WEBQM/topic/nobody/listens/message", "POST",
                          raw=b"x", headers={"Content-Type": "text/plain"})
    assert status == 201
    status, _h, body = call(url, "GET")
    assert status == 405 and body["error"][0]["messageId"] == "MQWB2005E"
    status, _h, body = call(f"{web['base']}/v2/admin/nothing/here")
    assert status == 404 and body["error"][0]["messageId"] == "MQWB0006E"


def test_kept_handles_close_when_idle_and_before_a_change(web: dict[str, Any]) -> None:
    """mqweb keeps a queue open between gets while they keep coming; unused for half a second
    it closes it (IPPROCS back to 0), and a DELETE through mqweb right after a get is not held up."""
    import time
    for name in ("WEB.GONE", "WEB.KEEP"):
        mqsc(web, {"type": "runCommand", "parameters": {"command": f"DEFINE QLOCAL({name}) REPLACE"}})

    def got_one(name: str) -> None:
        message_call(web, "POST", queue=name, body=b"m", headers={"Content-Type": "text/plain"})
        assert message_call(web, "DELETE", queue=name)[0] == 200

    def ipprocs() -> int:
        _s, _h, body = mqsc(web, {"type": "runCommandJSON", "command": "display", "qualifier": "qstatus",
                                  "name": "WEB.KEEP", "responseParameters": ["ipprocs"]})
        return int(body["commandResponse"][0]["parameters"]["ipprocs"])
    got_one("WEB.KEEP")
    assert ipprocs() == 1
    time.sleep(1.2)
    assert ipprocs() == 0
    got_one("WEB.GONE")
    _s, _h, body = mqsc(web, {"type": "runCommand", "parameters": {"command": "DELETE QLOCAL(WEB.GONE)"}})
    assert body["overallCompletionCode"] == 0, body


def test_a_slow_client_is_408_and_others_are_served_meanwhile(web: dict[str, Any]) -> None:
    """A client that announces a body and stops sending is answered 408 with MQ's error body after
    ten seconds, nothing run; another client is answered at once meanwhile."""
    import socket
    import time
    host, port = web["base"].split("//")[1].split("/")[0].split(":")
    slow = socket.create_connection((host, int(port)), timeout=30)
    body = b'{"type": "runCommand", "parameters": {"command": "DELETE QLOCAL(WEB.KEPT)"}}'
    slow.sendall(b"POST /ibmmq/rest/v2/admin/action/qmgr/WEBQM/mqsc HTTP/1.1\r\nHost: x\r\n"
                 b"Authorization: " + AUTH.encode() + b"\r\nibm-mq-rest-csrf-token: x\r\n"
                 b"Content-Type: application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n"
                 + body[:20])
    started = time.monotonic()
    status, _h, _b = call(f"{web['base']}/v1/admin/qmgr/WEBQM")
    assert status == 200 and time.monotonic() - started < 5
    answer = b""
    while b"MQWB0002E" not in answer:            # (head and body may come in separate segments)
        chunk = slow.recv(65536)
        if not chunk:
            break
        answer += chunk
    slow.close()
    assert answer.startswith(b"HTTP/1.1 408") and b"MQWB0002E" in answer
    assert 9 < time.monotonic() - started < 20
    _s, _h, after = mqsc(web, {"type": "runCommandJSON", "command": "display", "qualifier": "qlocal",
                               "name": "WEB.KEPT", "responseParameters": ["descr"]})
    assert after["commandResponse"][0]["parameters"]["queue"] == "WEB.KEPT"        # not deleted
