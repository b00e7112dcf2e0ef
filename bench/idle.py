"""Idle connections beside an active client, at every door (issue 62's "must hold": 1,000 idle
connections plus one active client keep p99 within 1.5x of no idle ones on every listener).

For each door, one client makes --n round trips and the latency of each is taken: MQI (a client
connection's MQPUT and MQGET of a nonpersistent message), AMQP (a settled send and a receive on
one queue), MQTT (a QoS 1 publication and its PUBACK), REST (a message POSTed and DELETEd through
the messaging API). Then --idle TCP connections are opened to that door by another process and
left idle (connected, sending nothing: what a flood of clients that never finish their handshake
leaves; the doors keep 256 of them at most, closing the oldest), and the same round trips are
measured again, alternated with runs without them. Prints p50 and p99 per door and the ratio of
p99s (medians of --runs). Usage:

    python bench/idle.py [--n 400] [--idle 1000] [--runs 3]
"""
from __future__ import annotations

import argparse
import base64
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import _common  # noqa: F401  (puts the repository first on sys.path)

import paho.mqtt.client as mqtt  # noqa: E402
from proton import Message  # noqa: E402
from proton.reactor import LinkOption  # noqa: E402
from proton.utils import BlockingConnection  # noqa: E402

from mqlite import pymqi  # noqa: E402
from mqlite.cli.proc import free_port, run_mqlite  # noqa: E402
from mqlite.testing import Harness  # noqa: E402

HOLDER = """
import socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
socks = []
for _ in range(n):
    try:
        socks.append(socket.create_connection(("127.0.0.1", port), timeout=10))
    except OSError:
        break
print(len(socks), flush=True)
sys.stdin.read()
"""


class Queue(LinkOption):
    def apply(self, link):
        from proton import symbol
        (link.source if link.is_receiver else link.target).capabilities.put_object(symbol("queue"))


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] * 1e3


def mqi_trips(qm, n: int) -> list[float]:
    conn = qm.client()
    q = pymqi.Queue(conn, "IDLE.Q", pymqi.CMQC.MQOO_OUTPUT | pymqi.CMQC.MQOO_INPUT_SHARED)
    out = []
    for _ in range(n):
        t = time.perf_counter()
        q.put(b"x" * 100)
        q.get()
        out.append(time.perf_counter() - t)
    conn.disconnect()
    return out


def amqp_trips(port: int, n: int) -> list[float]:
    c = BlockingConnection(f"amqp://127.0.0.1:{port}", timeout=30)
    s, r = c.create_sender("IDLE.A", options=Queue()), c.create_receiver("IDLE.A", credit=10, options=Queue())
    out = []
    for _ in range(n):
        t = time.perf_counter()
        s.send(Message(body="x" * 100))
        r.receive(timeout=30)
        r.accept()
        out.append(time.perf_counter() - t)
    c.close()
    return out


def mqtt_trips(port: int, n: int) -> list[float]:
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"idle{os.getpid()}")
    c.connect("127.0.0.1", port)
    c.loop_start()
    out = []
    for _ in range(n):
        t = time.perf_counter()
        c.publish("idle/t", b"x" * 100, qos=1).wait_for_publish(30)
        out.append(time.perf_counter() - t)
    c.loop_stop()
    c.disconnect()
    return out


def rest_trips(port: int, n: int) -> list[float]:
    url = f"http://127.0.0.1:{port}/ibmmq/rest/v2/messaging/qmgr/IDLEQM/queue/IDLE.R/message"
    h = {"Authorization": "Basic " + base64.b64encode(b"admin:passw0rd").decode(), "ibm-mq-rest-csrf-token": "x",
         "Content-Type": "text/plain"}
    out = []
    for _ in range(n):
        t = time.perf_counter()
        urllib.request.urlopen(urllib.request.Request(url, data=b"x" * 100, method="POST", headers=h)).read()
        urllib.request.urlopen(urllib.request.Request(url, method="DELETE", headers=h)).read()
        out.append(time.perf_counter() - t)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--idle", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with Harness(tempfile.mkdtemp(prefix="idle-")) as h:
        amqp, mqtt_port, web = free_port(), free_port(), free_port()
        qm = h.add("IDLEQM", "DEFINE QLOCAL(IDLE.Q)\nDEFINE QLOCAL(IDLE.A)\nDEFINE QLOCAL(IDLE.R)\n"
                             f"DEFINE CHANNEL(AMQP.I) CHLTYPE(AMQP) PORT({amqp}) LOCLADDR('127.0.0.1')\n"
                             f"DEFINE CHANNEL(MQTT.I) CHLTYPE(MQTT) PORT({mqtt_port}) LOCLADDR('127.0.0.1')\n"
                             "START SERVICE(SYSTEM.AMQP.SERVICE)\nSTART SERVICE(SYSTEM.MQXR.SERVICE)\n")
        env = dict(os.environ, MQLITE_DATA=h.data_dir)
        for key, value in (("httpHost", "127.0.0.1"), ("httpPort", str(web)), ("httpsPort", "-1")):
            run_mqlite("setmqweb", "properties", "-k", key, "-v", value, env=env)
        run_mqlite("setmqusr", "-m", "IDLEQM", "-u", "admin", "-p", "passw0rd", "-g", "MQWebAdminGroup",
                   "-g", "MQWebUserGroup", env=env)
        run_mqlite("strmqweb", env=env)
        doors = {"MQI": (qm.port, lambda: mqi_trips(qm, args.n)), "AMQP": (amqp, lambda: amqp_trips(amqp, args.n)),
                 "MQTT": (mqtt_port, lambda: mqtt_trips(mqtt_port, args.n)), "REST": (web, lambda: rest_trips(web, args.n))}
        print(f"{'door':6} {'p50 ms':>8} {'p99 ms':>8} {'p50 idle':>9} {'p99 idle':>9} {'p99 ratio':>9}  held")
        try:
            for door, (port, trips) in doors.items():
                trips()                                  # (warm)
                base, loaded, held = [], [], []
                for _ in range(args.runs):
                    base.append(trips())
                    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(port), str(args.idle)],
                                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                    held.append(int(holder.stdout.readline()))
                    time.sleep(0.5)
                    loaded.append(trips())
                    holder.communicate("", timeout=60)
                p50 = statistics.median(pct(x, 0.5) for x in base)
                p99 = statistics.median(pct(x, 0.99) for x in base)
                p50i = statistics.median(pct(x, 0.5) for x in loaded)
                p99i = statistics.median(pct(x, 0.99) for x in loaded)
                print(f"{door:6} {p50:8.2f} {p99:8.2f} {p50i:9.2f} {p99i:9.2f} {p99i / p99:9.2f}  {min(held)}")
        finally:
            run_mqlite("endmqweb", env=env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
