"""What the fault suite (tests/faults/) and bench/faults.py share: the MQI wire's fuzz cases (a
HELLO mutated, random bytes, deep JSON, a field of the wrong type, a valid HELLO then a mutated or
random request frame, a frame cut short), sending one, a health check, a process's resident size,
and the error log's new lines."""
from __future__ import annotations

import json
import os
import random
import socket
import struct
import time

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.cmq.structs import GMO, MD, OD, PMO
from mqlite.net import protocol as P
from mqlite.testing import run_mqlite


def hello(qm, channel: str) -> dict:
    return {"proto": P.PROTOCOL_VERSION, "kind": "client", "qmgr": qm.name, "channel": channel,
            "appl": "fuzz", "appl_type": C.MQAT_UNIX, "user": "fuzz"}


def sample_requests() -> list[tuple[int, bytes]]:
    """Well-formed request payloads to mutate."""
    od = OD(ObjectName=b"FUZZ.Q").pack()
    md, pmo, gmo = MD().pack(), PMO().pack(), GMO().pack()
    return [
        (P.OPEN, P.I1.pack(C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE | C.MQOO_BROWSE) + od),
        (P.PUT, P.I1.pack(1) + pmo + md + b"fuzz body"),
        (P.PUT1, od + pmo + md + b"fuzz body"),
        (P.GET, P.II.pack(1, 1000) + gmo + md),
        (P.INQ, P.I1.pack(1) + P.encode_values([C.MQIA_CURRENT_Q_DEPTH])),
        (P.CLOSE, P.III.pack(1, 0, 0)),
        (P.CMIT, b""), (P.BACK, b""), (P.STAT, P.I1.pack(0)),
        (P.STREAM, P.STREAM_REQ.pack(1, P.STREAM_MARK, 0, 0, 10, 1 << 20)),
        (P.XA, P.encode_json({"op": "prepare", "xid": "fuzz/1", "settle": []})),
        (P.XA, P.encode_json({"op": "resolve", "commit": ["x"], "backout": [], "prefix": "", "mark": ["a", 1]})),
        (P.GET_BATCH, P.III.pack(1, 0, 10) + gmo + md),
        (P.BROWSE_BATCH, P.III.pack(1, 10, 1 << 20)),
    ]


def mutate(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        op = rng.random()
        if op < 0.5 and b:
            b[rng.randrange(len(b))] = rng.randrange(256)
        elif op < 0.7 and b:
            del b[rng.randrange(len(b)):]
        elif op < 0.85:
            b[rng.randrange(len(b) + 1):rng.randrange(len(b) + 1)] = rng.randbytes(rng.randint(1, 64))
        elif len(b) >= 4:
            at = rng.randrange(len(b) - 3)
            b[at:at + 4] = struct.pack("<i", rng.choice([-1, 0, 1, 2**31 - 1, -2**31, 48, 100000]))
    return bytes(b)


def case(rng: random.Random, qm, samples: list[tuple[int, bytes]]) -> bytes:
    kind = rng.randrange(7)
    good = json.dumps(hello(qm, "APP.SVRCONN")).encode()
    if kind == 0:
        return P.frame(P.HELLO, mutate(rng, good))
    if kind == 1:
        return rng.randbytes(rng.randint(1, 512))
    if kind == 2:
        depth = rng.randint(1000, 200000)
        return P.frame(P.HELLO, b"[" * depth + b"]" * depth)
    if kind == 3:
        bad = dict(hello(qm, "APP.SVRCONN"))
        bad[rng.choice(list(bad))] = rng.choice([None, 1.5, [], {}, "x" * 300, -1, True, ""])
        return P.frame(P.HELLO, json.dumps(bad).encode())
    head = P.frame(P.HELLO, good)
    ftype, payload = rng.choice(samples)
    if kind == 4:
        return head + P.frame(ftype, mutate(rng, payload))
    if kind == 5:
        return head + P.frame(rng.randrange(256), rng.randbytes(rng.randint(0, 2048)))
    frame = P.frame(ftype, payload)
    return head + frame[:rng.randrange(len(frame))]         # cut short


def send(qm, data: bytes) -> None:
    try:
        s = socket.create_connection(("127.0.0.1", qm.port), timeout=2)
    except OSError:
        return
    try:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        while s.recv(65536):
            pass
    except OSError:
        pass
    finally:
        s.close()


def healthy(qm) -> bool:
    start = time.monotonic()
    try:
        conn = qm.client()
        q = pymqi.Queue(conn, "FUZZ.HEALTH", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        q.put(b"ok")
        ok = q.get() == b"ok"
        conn.disconnect()
        return ok and time.monotonic() - start < 5
    except pymqi.MQMIError:
        return False


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


class LogWatch:
    """What the error log gained since the last look, across one rotation (AMQERR01 -> 02)."""

    def __init__(self, qm) -> None:
        self.dir = os.path.join(qm.harness.data_dir, "qmgrs", qm.name, "errors")
        self.off = self._size()

    def _size(self) -> int:
        try:
            return os.path.getsize(os.path.join(self.dir, "AMQERR01.LOG"))
        except OSError:
            return 0

    def _read(self, name: str, start: int = 0) -> str:
        try:
            with open(os.path.join(self.dir, name), "rb") as f:
                f.seek(start)
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def new(self) -> str:
        size = self._size()
        text = (self._read("AMQERR02.LOG", self.off) if size < self.off else "") + \
            self._read("AMQERR01.LOG", 0 if size < self.off else self.off)
        self.off = size
        return text


def amqp_round_trip(port: int, queue: str, body: str) -> None:
    """A real AMQP client (Proton) sends ``body`` to ``queue`` and receives it back."""
    from proton import Message
    from proton.utils import BlockingConnection

    from tests.amqp.conftest import Capability
    c = BlockingConnection(f"amqp://127.0.0.1:{port}", timeout=10)
    try:
        c.create_sender(queue, options=Capability("queue")).send(Message(body=body))
        r = c.create_receiver(queue, credit=1, options=Capability("queue"))
        assert r.receive(timeout=10).body == body
        r.accept()
    finally:
        c.close()


def mqtt_published(port: int, client_id: str, topic: str) -> None:
    """A real MQTT client (paho) connects and has a QoS 1 publication acknowledged."""
    import paho.mqtt.client as mqtt
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id)
    c.connect("127.0.0.1", port)
    c.loop_start()
    try:
        info = c.publish(topic, b"ok", qos=1)
        info.wait_for_publish(10)
        assert info.is_published()
    finally:
        c.loop_stop()
        c.disconnect()


def start_mqweb(env: dict, qmgr: str, port: int) -> None:
    """mqweb on loopback ``port`` (HTTP only, no delay after a wrong password) for the data
    directory of ``env``, with a user admin/passw0rd of ``qmgr`` in MQWebAdmin and MQWebUser."""
    for key, value in (("httpHost", "127.0.0.1"), ("httpPort", str(port)), ("httpsPort", "-1"),
                       ("authFailDelay", "0")):
        assert run_mqlite("setmqweb", "properties", "-k", key, "-v", value, env=env).returncode == 0
    assert run_mqlite("setmqusr", "-m", qmgr, "-u", "admin", "-p", "passw0rd", "-g", "MQWebAdminGroup",
                      "-g", "MQWebUserGroup", env=env).returncode == 0
    assert run_mqlite("strmqweb", env=env).returncode == 0

