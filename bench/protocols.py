"""MQTT against Mosquitto, in the same run: one paho-mqtt publisher sends N publications of 1 KiB at
QoS 1 (up to 100 in flight, each acknowledged: at mqlite once it is a persistent message) on one
topic, and one paho-mqtt subscriber (QoS 1) takes them; the rate is N over the time from the first
publish to the last message received. The publisher keeps at most 500 publications ahead of the
subscriber (Mosquitto drops QoS 1 messages for a subscriber with 1000 queued, its default). Medians of the runs in messages a second; issue 38 asks for
mqlite's MQTT channel at 0.5x Mosquitto (a C broker) or better.

Mosquitto is the one this machine runs on 127.0.0.1:1883; the mqlite queue manager is made for the
run, with an MQTT channel on a free port.

    python bench/protocols.py [--n 5000] [--runs 3] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import mqlite_cmd  # noqa: E402

from mqlite.cli.proc import free_port  # noqa: E402

QM = "BENCH.MQTT"
BODY = b"x" * 1024
MOSQUITTO = ("127.0.0.1", 1883)
AHEAD = 500


def mqtt_run(port: int, n: int, tag: str) -> float:
    import paho.mqtt.client as mqtt
    done = threading.Event()
    got = [0]
    topic = f"bench/{tag}/{time.monotonic_ns()}"

    ahead = threading.Condition()

    def received(_c: object, _u: object, _m: object) -> None:
        got[0] += 1
        if got[0] % 100 == 0:
            with ahead:
                ahead.notify_all()
        if got[0] == n:
            done.set()
    sub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"bsub{os.getpid()}{tag}")
    sub.on_message = received
    subscribed = threading.Event()
    sub.on_subscribe = lambda *_a: subscribed.set()
    sub.connect(*("127.0.0.1", port))
    sub.loop_start()
    sub.subscribe(topic, 1)
    assert subscribed.wait(10)
    pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"bpub{os.getpid()}{tag}")
    pub.max_inflight_messages_set(100)
    pub.max_queued_messages_set(0)
    pub.connect("127.0.0.1", port)
    pub.loop_start()
    t0 = time.perf_counter()
    for i in range(n):
        if i - got[0] > AHEAD:
            with ahead:
                ahead.wait_for(lambda: i - got[0] <= AHEAD, 30)
        pub.publish(topic, BODY, 1)
    assert done.wait(300), f"{tag}: {got[0]} of {n} arrived"
    rate = n / (time.perf_counter() - t0)
    for c in (pub, sub):
        c.disconnect()
        c.loop_stop()
    return rate


def mosquitto_ready() -> bool:
    try:
        with socket.create_connection(MOSQUITTO, timeout=1):
            return True
    except OSError:
        return False


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", help="write the medians here")
    args = ap.parse_args()
    os.environ["MQLITE_DATA"] = tempfile.mkdtemp(prefix="mqlite-bench-")
    os.environ["MQSNOAUT"] = "yes"
    port = free_port()
    mqlite_cmd("crtmqm", "-p", str(free_port()), QM)
    mqlite_cmd("strmqm", QM)
    mqlite_cmd("runmqsc", QM, stdin=f"DEFINE CHANNEL(BENCH.MQTT) CHLTYPE(MQTT) PORT({port}) LOCLADDR('127.0.0.1')\n"
                                    "START SERVICE(SYSTEM.MQXR.SERVICE)\n")
    rates: dict[str, list[float]] = {"mqlite": [], "mosquitto": []}
    try:
        for run in range(args.runs):
            order = ("mqlite", "mosquitto") if run % 2 == 0 else ("mosquitto", "mqlite")
            for who in order:
                if who == "mosquitto" and not mosquitto_ready():
                    continue
                rates[who].append(mqtt_run(port if who == "mqlite" else MOSQUITTO[1], args.n, f"{who}{run}"))
    finally:
        mqlite_cmd("endmqm", "-i", QM)
    results = {who: statistics.median(r) for who, r in rates.items() if r}
    print(f"{'MQTT QoS 1, 1 KiB':18} {'msgs/s':>10}")
    for who, r in results.items():
        print(f"{who:18} {r:10.0f}")
    if "mosquitto" in results:
        print(f"mqlite / Mosquitto: {results['mqlite'] / results['mosquitto']:.2f}x")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
