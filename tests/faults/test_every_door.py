"""A fuzz and fault suite for every door of one queue manager (issue 62), bounded in count and
time (MQLITE_FAULT_CASES a door, 200 by default; each door's run stops after 60 s): the MQI wire,
message channels' HELLO, PCF on the command queue, MQSC through runmqsc, mqweb's REST API, AMQP
and MQTT. After each door: the queue manager is running, a real client of that door is served, the
error log has gained no AMQ6184W (a defect met) and no traceback, and the queue manager's memory is
bounded. At the end the persistent messages put before the storm are all there, before and after
kill -9 and a restart. Connection storms and slowloris: tests/server/test_connection_storm.py,
tests/web/test_hardening.py; log and store damage: tests/server/test_log_damage.py."""
from __future__ import annotations

import http.client
import json
import os
import random
import socket
import struct
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import pymqi
from mqlite.cli.proc import free_port
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.net import protocol as P
from mqlite.testing import Harness, run_mqlite
from tests.faults.kit import (
    LogWatch,
    amqp_round_trip,
    case,
    healthy,
    mqtt_published,
    mutate,
    rss_kib,
    sample_requests,
    send,
    start_mqweb,
)

CASES = int(os.environ.get("MQLITE_FAULT_CASES", "200"))
SECONDS = 60.0
KEEP = 50                       # persistent messages that must come through it all
RSS_GROWTH_MB = 150             # what the queue manager may grow by across the whole suite


def _kept(i: int) -> bytes:
    return b"kept-%03d-" % i + b"k" * 500


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    h = Harness(str(tmp_path_factory.mktemp("faults")))
    try:
        amqp, mqtt_port, web = free_port(), free_port(), free_port()
        qm = h.add("FAULTQM", f"DEFINE QLOCAL(FAULT.KEEP) DEFPSIST(YES)\nDEFINE QLOCAL(FUZZ.Q)\n"
                              "DEFINE QLOCAL(FUZZ.HEALTH)\n"
                              f"DEFINE CHANNEL(AMQP.F) CHLTYPE(AMQP) PORT({amqp}) LOCLADDR('127.0.0.1')\n"
                              f"DEFINE CHANNEL(MQTT.F) CHLTYPE(MQTT) PORT({mqtt_port}) LOCLADDR('127.0.0.1')\n"
                              "START SERVICE(SYSTEM.AMQP.SERVICE)\nSTART SERVICE(SYSTEM.MQXR.SERVICE)\n")
        conn = qm.client()
        q = pymqi.Queue(conn, "FAULT.KEEP", C.MQOO_OUTPUT)
        for i in range(KEEP):
            q.put(_kept(i))
        conn.disconnect()
        env = dict(os.environ, MQLITE_DATA=h.data_dir)
        start_mqweb(env, "FAULTQM", web)
        pid = qm.pid()
        assert pid is not None
        yield {"qm": qm, "h": h, "env": env, "amqp": amqp, "mqtt": mqtt_port, "web": web,
               "rss0": rss_kib(pid) / 1024, "watch": LogWatch(qm), "rng": random.Random(62)}
        run_mqlite("endmqweb", env=env)
    finally:
        h.close()


def _after(rig: dict[str, Any], door: str, served: Any) -> None:
    """What every door's run must leave: the queue manager running and serving this door's
    client, nothing unexpected in the error log, memory bounded."""
    qm = rig["qm"]
    pid = qm.pid()
    assert pid is not None, f"the queue manager is gone after the {door} fuzz"
    served()
    text = rig["watch"].new()
    assert "AMQ6184W" not in text and "Traceback" not in text, text[-3000:]
    assert rss_kib(pid) / 1024 - rig["rss0"] < RSS_GROWTH_MB


def _cases(rig: dict[str, Any], one: Any) -> int:
    started, n = time.monotonic(), 0
    for _ in range(CASES):
        if time.monotonic() - started > SECONDS:
            break
        one(rig["rng"])
        n += 1
    return n


def _send(port: int, data: bytes, wait: float = 2.0) -> bytes:
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=wait)
    except OSError:
        return b""
    out = b""
    try:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        while len(out) < 1 << 16 and (chunk := s.recv(65536)):
            out += chunk
    except OSError:
        pass
    finally:
        s.close()
    return out


def test_the_mqi_wire(rig) -> None:
    qm, samples = rig["qm"], sample_requests()
    assert _cases(rig, lambda rng: send(qm, case(rng, qm, samples))) > 0
    _after(rig, "wire", lambda: healthy(qm) or pytest.fail("an MQI client was not served"))


def test_message_channels_hello(rig) -> None:
    """A message channel's HELLO with mutated fields, then random frames."""
    qm = rig["qm"]
    good = {"proto": P.PROTOCOL_VERSION, "kind": "channel", "channel": "TO.FAULTQM", "from_qmgr": "OTHER",
            "qmgr": qm.name, "seq": 1}

    def one(rng: random.Random) -> None:
        fields = dict(good)
        for _ in range(rng.randint(0, 3)):
            fields[rng.choice(list(fields) + ["batch", "hbint", "maxmsgl", "tls"])] = rng.choice(
                [None, 1.5, [], {}, "x" * 300, -1, 2 ** 40, True, ""])
        data = P.frame(P.HELLO, mutate(rng, json.dumps(fields).encode()) if rng.random() < 0.5
                       else json.dumps(fields).encode())
        send(qm, data + P.frame(rng.randrange(256), rng.randbytes(rng.randint(0, 512))))
    assert _cases(rig, one) > 0
    _after(rig, "channel", lambda: healthy(qm) or pytest.fail("an MQI client was not served"))


def test_pcf_on_the_command_queue(rig) -> None:
    """Mutated PCF commands (well-formed ones of several commands, bytes changed, cut, grown) put
    to SYSTEM.ADMIN.COMMAND.QUEUE; afterwards a real PCF inquiry is answered."""
    qm = rig["qm"]
    samples = [pcf.encode(pcf.Header(command=F.MQCMD_INQUIRE_Q), [pcf.enc_str(C.MQCA_Q_NAME, b"FUZZ.*")]),
               pcf.encode(pcf.Header(command=F.MQCMD_CHANGE_Q), [pcf.enc_str(C.MQCA_Q_NAME, b"FUZZ.Q"),
                                                                 pcf.enc_int(C.MQIA_Q_TYPE, C.MQQT_LOCAL),
                                                                 pcf.enc_str(C.MQCA_Q_DESC, b"fuzzed")]),
               pcf.encode(pcf.Header(command=F.MQCMD_INQUIRE_Q_MGR), []),
               pcf.encode(pcf.Header(command=F.MQCMD_INQUIRE_CHANNEL), [pcf.enc_str(F.MQCACH_CHANNEL_NAME, b"*")]),
               pcf.encode(pcf.Header(command=F.MQCMD_ESCAPE), [pcf.enc_int(F.MQIACF_ESCAPE_TYPE, F.MQET_MQSC),
                                                              pcf.enc_str(F.MQCACF_ESCAPE_TEXT, b"DISPLAY QLOCAL(FUZZ.Q)")])]
    conn = qm.client()
    try:
        def one(rng: random.Random) -> None:
            body = mutate(rng, rng.choice(samples)) if rng.random() < 0.8 else rng.randbytes(rng.randint(0, 400))
            md = pymqi.MD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST, ReplyToQ=b"FUZZ.Q")
            conn.put1(b"SYSTEM.ADMIN.COMMAND.QUEUE", body, md)
        assert _cases(rig, one) > 0
    finally:
        conn.disconnect()

    def served() -> None:
        conn = qm.client()
        try:
            (mgr,) = pymqi.PCFExecute(conn).MQCMD_INQUIRE_Q_MGR()
            assert mgr[C.MQCA_Q_MGR_NAME].strip() == b"FAULTQM"
        finally:
            conn.disconnect()
    _after(rig, "pcf", served)


_MQSC_WORDS = ["DEFINE", "ALTER", "DISPLAY", "DELETE", "CLEAR", "START", "STOP", "QLOCAL", "QALIAS", "CHANNEL",
               "TOPIC", "SUB", "QMGR", "CHSTATUS", "FUZZ.Q", "FUZZ.X", "(", ")", "'", "*", "WHERE", "EQ", "LK",
               "DESCR", "MAXDEPTH", "TARGET", "ALL", "+", "-", "REPLACE", "PURGE", "TYPE", ",", "9" * 30, "\t", "é"]


def test_mqsc_through_runmqsc(rig) -> None:
    """Lines of MQSC words in random order, and some random text, in one runmqsc: each answered
    (AMQ8405I and the like), none a traceback; FAULT.KEEP is not among the names, so it is never
    touched."""
    qm, rng = rig["qm"], rig["rng"]
    lines = []
    for _ in range(CASES):
        if rng.random() < 0.8:
            lines.append(" ".join(rng.choice(_MQSC_WORDS) for _ in range(rng.randint(1, 12))))
        else:
            lines.append("".join(chr(rng.choice([rng.randint(32, 126), rng.randint(160, 0x2FFF)]))
                                 for _ in range(rng.randint(1, 80))))
    out = qm.mqsc("\n".join(lines) + "\n")
    assert "Traceback" not in out.stdout + out.stderr and "MQSC commands read" in out.stdout

    def served() -> None:
        assert "QUEUE(FAULT.KEEP)" in qm.mqsc("DISPLAY QLOCAL(FAULT.KEEP)\n").stdout
    _after(rig, "mqsc", served)


_PATHS = ["/ibmmq/rest/{v}/admin/qmgr", "/ibmmq/rest/{v}/admin/qmgr/FAULTQM", "/ibmmq/rest/{v}/admin/installation",
          "/ibmmq/rest/{v}/admin/action/qmgr/FAULTQM/mqsc", "/ibmmq/rest/{v}/admin/qmgr/FAULTQM/queue",
          "/ibmmq/rest/{v}/admin/qmgr/FAULTQM/queue/FUZZ.Q", "/ibmmq/rest/{v}/admin/qmgr/FAULTQM/channel",
          "/ibmmq/rest/{v}/messaging/qmgr/FAULTQM/queue/FUZZ.Q/message",
          "/ibmmq/rest/{v}/messaging/qmgr/FAULTQM/queue/FUZZ.Q/messagelist",
          "/ibmmq/rest/{v}/messaging/qmgr/FAULTQM/topic/fuzz/t/message", "/ibmmq/rest/{v}/login",
          "/ibmmq/console/api/snapshot", "/ibmmq/console/api/messages/FAULTQM/FUZZ.Q",
          "/ibmmq/console/api/objects/FAULTQM/queue", "/ibmmq/console/api/activity/FAULTQM",
          "/ibmmq/console/api/schema", "/ibmmq/console/api/whoami"]
_JSON = [{"type": "runCommandJSON", "command": "display", "qualifier": "qlocal", "name": "FUZZ.*"},
         {"type": "runCommand", "parameters": {"command": "DISPLAY QLOCAL(FUZZ.Q)"}},
         {"name": "FUZZ.Q", "general": {"description": "fuzzed"}}, {"username": "admin", "password": "passw0rd"}]


def _json_value(rng: random.Random, depth: int = 0) -> Any:
    makers = [lambda: None, lambda: True, lambda: rng.randint(-2 ** 70, 2 ** 70), rng.random,
              lambda: "".join(chr(rng.randint(1, 0x10FFFF)) for _ in range(rng.randint(0, 20))),
              lambda: "x" * rng.randint(0, 5000)]
    if depth < 4:
        makers += [lambda: [_json_value(rng, depth + 1) for _ in range(rng.randint(0, 4))],
                   lambda: {str(rng.randint(0, 9)): _json_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}]
    return rng.choice(makers)()


_ROUTES = [("POST", "/ibmmq/rest/v2/admin/action/qmgr/FAULTQM/mqsc"), ("POST", "/ibmmq/rest/v1/admin/qmgr/FAULTQM/queue"),
           ("PATCH", "/ibmmq/rest/v1/admin/qmgr/FAULTQM/queue/FUZZ.Q"), ("POST", "/ibmmq/rest/v1/login"),
           ("POST", "/ibmmq/rest/v2/messaging/qmgr/FAULTQM/queue/FUZZ.Q/message"),
           ("POST", "/ibmmq/console/api/messages/FAULTQM/FUZZ.Q"), ("POST", "/ibmmq/console/api/messages/FAULTQM/FUZZ.Q/move"),
           ("POST", "/ibmmq/console/api/messages/FAULTQM/FUZZ.Q/retry")]


def _answer(req: urllib.request.Request, method: str, path: str) -> None:
    """Send ``req``: any answer but a 500 that is not MQ's error body, or one with a traceback."""
    try:
        with urllib.request.urlopen(req, timeout=15) as resp:
            resp.read()
    except urllib.error.HTTPError as e:
        text = e.read()
        assert e.code != 500 or b"MQWB" in text, (method, path, text[:300])
        assert b"Traceback" not in text
    except (urllib.error.URLError, ConnectionError, UnicodeError, ValueError, http.client.HTTPException):
        pass                        # (a request the client library itself cannot send)


def test_the_rest_api(rig) -> None:
    """Random methods, versions, paths (and paths mutated), headers and bodies: every answer is an
    HTTP status with MQ's error body or a success, a 500 never a traceback; mqweb's own log gains
    none."""
    base = f"http://127.0.0.1:{rig['web']}"
    auth = "Basic YWRtaW46cGFzc3cwcmQ="

    def one(rng: random.Random) -> None:
        if rng.random() < 0.5:          # a request mqweb takes but for its body: the body is what is fuzzed
            method, path = rng.choice(_ROUTES)
            body = rng.choice([json.dumps(_json_value(rng)).encode(), mutate(rng, json.dumps(rng.choice(_JSON)).encode()),
                               b"[" * 50_000 + b"]" * 50_000, b'{"n": ' + b"7" * 6000 + b"}",
                               json.dumps({"type": "runCommand", "parameters": {"command": _json_value(rng)}}).encode(),
                               b'{"type": "runCommand", "parameters": {"command": "DISPLAY QLOCAL(\\ud800)"}}'])
            req = urllib.request.Request(base + path, data=body, method=method, headers={
                "Content-Type": "application/json", "Authorization": auth, "ibm-mq-rest-csrf-token": "x"})
            _answer(req, method, path)
            return
        path = rng.choice(_PATHS).format(v=rng.choice(["v1", "v2", "v3", "v9", ""]))
        if rng.random() < 0.3:
            path = "/" + mutate(rng, path.encode()).decode("latin-1").lstrip("/")
        path = urllib.request.quote(path, safe="/%?=&") + rng.choice(
            ["", "?attributes=*", "?status=*&filter=x", "?attributes=" + "x" * 3000, "?wait=abc", "?correlationId=zz"])
        body = rng.choice([json.dumps(rng.choice(_JSON)).encode(), json.dumps(_json_value(rng)).encode(),
                           mutate(rng, json.dumps(rng.choice(_JSON)).encode()), rng.randbytes(rng.randint(0, 300)), b"",
                           b"[" * 50_000 + b"]" * 50_000, b'{"n": ' + b"7" * 6000 + b"}"])
        headers = {"Content-Type": rng.choice(["application/json", "text/plain", "application/octet-stream", "x/y"])}
        if rng.random() < 0.8:
            headers["Authorization"] = auth
        if rng.random() < 0.7:
            headers["ibm-mq-rest-csrf-token"] = "x"
        for name in rng.sample(["ibm-mq-md-correlationId", "ibm-mq-md-expiry", "ibm-mq-md-persistence",
                                "ibm-mq-rest-gateway-qmgr", "ibm-mq-usr"], rng.randint(0, 2)):
            headers[name] = rng.choice(["", "x" * 100, "-1", "persistent", "FAULTQM", "\u00e9t\u00e9"]).encode(
                "utf-8").decode("latin-1")
        method = rng.choice(["GET", "POST", "PATCH", "DELETE", "PUT", "OPTIONS"])
        _answer(urllib.request.Request(base + path, data=body or None, method=method, headers=headers), method, path)
    assert _cases(rig, one) > 0
    log = os.path.join(rig["env"]["MQLITE_DATA"], "web", "mqweb.log")
    assert "Traceback" not in (open(log, encoding="utf-8", errors="replace").read() if os.path.exists(log) else "")

    def served() -> None:
        req = urllib.request.Request(base + "/ibmmq/rest/v1/admin/qmgr/FAULTQM", headers={"Authorization": auth})
        with urllib.request.urlopen(req, timeout=15) as resp:
            assert json.loads(resp.read())["qmgr"][0]["name"] == "FAULTQM"
    _after(rig, "rest", served)


def test_amqp(rig) -> None:
    """The AMQP header (plain or SASL), then random or mutated frames; a real client after."""
    port = rig["amqp"]
    open_frame = bytes.fromhex("0000001f02000000005310c0120200a1066675737365724001")

    def one(rng: random.Random) -> None:
        header = rng.choice([b"AMQP\x00\x01\x00\x00", b"AMQP\x03\x01\x00\x00", b"AMQP\x01\x01\x00\x00", b"AMQ"])
        body = rng.choice([rng.randbytes(rng.randint(0, 600)), mutate(rng, open_frame),
                           struct.pack(">I", rng.choice([0, 7, 8, 2 ** 31, 2 ** 32 - 1])) + rng.randbytes(40)])
        _send(port, header + body, wait=1.0)
    assert _cases(rig, one) > 0

    _after(rig, "amqp", lambda: amqp_round_trip(port, "FUZZ.HEALTH", "ok"))


def test_mqtt(rig) -> None:
    """A CONNECT mutated, random packets after a good CONNECT, and random bytes; paho after."""
    port = rig["mqtt"]
    connect = bytes.fromhex("101000044d5154540402003c0004667a7a31")

    def one(rng: random.Random) -> None:
        data = rng.choice([mutate(rng, connect), connect + bytes([rng.randrange(256)]) + rng.randbytes(
            rng.randint(0, 300)), rng.randbytes(rng.randint(1, 300)), connect + mutate(
            rng, bytes.fromhex("3209000366757a000168656c6c6f"))])
        _send(port, data, wait=1.0)
    assert _cases(rig, one) > 0

    _after(rig, "mqtt", lambda: mqtt_published(port, "fault-health", "fault/health"))


def test_the_persistent_messages_came_through_it_all(rig) -> None:
    """Last: every persistent message put before the fuzz is there, and still after kill -9 and a
    restart (with no damage reported)."""
    qm = rig["qm"]

    def browse() -> list[bytes]:
        conn = qm.client()
        q = pymqi.Queue(conn, "FAULT.KEEP", C.MQOO_BROWSE)
        got = []
        opts = C.MQGMO_BROWSE_FIRST
        while True:
            try:
                got.append(q.get(None, pymqi.MD(), pymqi.GMO(Options=opts | C.MQGMO_NO_WAIT)))
            except pymqi.MQMIError as e:
                assert e.reason == C.MQRC_NO_MSG_AVAILABLE
                break
            opts = C.MQGMO_BROWSE_NEXT
        conn.disconnect()
        return got
    assert browse() == [_kept(i) for i in range(KEEP)]
    qm.kill9()
    r = run_mqlite("strmqm", "FAULTQM", env=rig["env"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert browse() == [_kept(i) for i in range(KEEP)]
