"""AMQP 1.0 against RabbitMQ and MQTT against Mosquitto, in the same run.

AMQP: one Qpid Proton sender (the Python client's event loop) sends N durable messages of 1 KiB
at least once (unsettled; the broker's credit is the window) to a queue: at mqlite an AMQP
channel's link with the ``queue`` capability to a local queue (each accepted once it is a
persistent message on disk), at RabbitMQ its AMQP 1.0 plugin (3.x; native in 4.x) to a durable
queue (each accepted once confirmed). The rate is N over the time from the first transfer to the
last outcome. RabbitMQ's plugin is enabled for the run when it is not (rabbitmq-plugins, as root).

MQTT: one paho-mqtt publisher sends N publications of 1 KiB at QoS 1 (up to 100 in flight, each
acknowledged: at mqlite once it is a persistent message) on one topic, and one paho-mqtt
subscriber (QoS 1) takes them; the rate is N over the time from the first publish to the last
message received. The publisher keeps at most 500 publications ahead of the subscriber
(Mosquitto drops QoS 1 messages for a subscriber with 1000 queued, its default).

Medians of the runs in messages a second. Issue 38 asks for mqlite's AMQP channel at 1x
RabbitMQ's AMQP or better, and its MQTT channel at 0.5x Mosquitto (a C broker) or better.
RabbitMQ and Mosquitto are the ones this machine runs on 127.0.0.1 (5672, 1883); the mqlite queue
manager is made for the run, with its channels on free ports.

    python bench/protocols.py [--n 5000] [--runs 3] [--only amqp|mqtt] [--json out.json]
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import socket
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import mqlite_cmd  # noqa: E402

from mqlite.cli.proc import free_port  # noqa: E402

QM = "BENCH.PROTO"
BODY = b"x" * 1024
MOSQUITTO = ("127.0.0.1", 1883)
RABBIT_AMQP = ("127.0.0.1", 5672)
RABBIT_QUEUE = "bench.amqp10"
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


def amqp_run(url: str, address: str, n: int, queue_capability: bool, user: str | None = None,
             password: str | None = None) -> float:
    """N durable transfers on one link, each unsettled until the broker's outcome."""
    from proton import Message, symbol
    from proton.handlers import MessagingHandler
    from proton.reactor import Container, LinkOption

    class QueueCapability(LinkOption):
        def apply(self, link: object) -> None:
            link.target.capabilities.put_object(symbol("queue"))    # type: ignore[attr-defined]

    class Sender(MessagingHandler):
        def __init__(self) -> None:
            super().__init__()
            self.sent = self.outcomes = self.rejected = 0
            self.t0 = self.t1 = 0.0

        def on_start(self, event: object) -> None:
            c = event.container                                     # type: ignore[attr-defined]
            kw = {"user": user, "password": password, "allowed_mechs": "PLAIN"} if user else \
                {"allowed_mechs": "ANONYMOUS"}
            conn = c.connect(url, reconnect=False, **kw)
            c.create_sender(conn, address, options=[QueueCapability()] if queue_capability else None)

        def on_sendable(self, event: object) -> None:
            s = event.sender                                        # type: ignore[attr-defined]
            self.t0 = self.t0 or time.perf_counter()
            while s.credit and self.sent < n:
                s.send(Message(body=BODY, durable=True))
                self.sent += 1

        def on_settled(self, event: object) -> None:
            self.outcomes += 1
            if self.outcomes == n:
                self.t1 = time.perf_counter()
                event.connection.close()                            # type: ignore[attr-defined]

        def on_rejected(self, event: object) -> None:
            self.rejected += 1

        def on_transport_error(self, event: object) -> None:
            raise RuntimeError(f"{url}: {event.transport.condition}")    # type: ignore[attr-defined]

    h = Sender()
    Container(h).run()
    if h.rejected or h.outcomes < n:
        raise RuntimeError(f"{url}: {h.outcomes} outcomes of {n}, {h.rejected} rejected")
    return n / (h.t1 - h.t0)


def rabbit_amqp10() -> bool:
    """RabbitMQ's AMQP 1.0 (its plugin enabled here if need be) and a durable, empty queue."""
    import subprocess
    try:
        with socket.create_connection(RABBIT_AMQP, timeout=1):
            pass
    except OSError:
        return False
    plugins = subprocess.run(["rabbitmq-plugins", "list", "-e", "rabbitmq_amqp1_0"], capture_output=True, text=True)
    # (the listing repeats the pattern in its header: an enabled plugin is a line "[E*] name")
    if plugins.returncode == 0 and not re.search(r"^\s*\[[Ee]\*?\]\s+rabbitmq_amqp1_0\b", plugins.stdout, re.M):
        if subprocess.run(["rabbitmq-plugins", "enable", "rabbitmq_amqp1_0"], capture_output=True).returncode:
            print("RabbitMQ's AMQP 1.0 plugin could not be enabled (not root?)", file=sys.stderr)
            return False
    deadline = time.monotonic() + 30
    while not _speaks_amqp10():                 # the plugin takes a moment to start
        if time.monotonic() > deadline:
            print("RabbitMQ's AMQP 1.0 plugin did not start", file=sys.stderr)
            return False
        time.sleep(0.5)
    import pika
    c = pika.BlockingConnection(pika.ConnectionParameters(*RABBIT_AMQP))
    ch = c.channel()
    ch.queue_declare(RABBIT_QUEUE, durable=True)
    ch.queue_purge(RABBIT_QUEUE)
    c.close()
    return True


def _speaks_amqp10() -> bool:
    """Whether RabbitMQ answers AMQP 1.0's SASL protocol header with its own."""
    try:
        with socket.create_connection(RABBIT_AMQP, timeout=2) as sock:
            sock.sendall(b"AMQP\x03\x01\x00\x00")
            return sock.recv(8) == b"AMQP\x03\x01\x00\x00"
    except OSError:
        return False


def mosquitto_ready() -> bool:
    try:
        with socket.create_connection(MOSQUITTO, timeout=1):
            return True
    except OSError:
        return False


def medians(runs: int, peers: dict[str, object]) -> dict[str, float]:
    """Each of ``peers`` (name -> a run giving a rate, or None when it is not here) ``runs`` times,
    the order alternating; their medians."""
    rates: dict[str, list[float]] = {who: [] for who, fn in peers.items() if fn is not None}
    for run in range(runs):
        order = list(rates) if run % 2 == 0 else list(reversed(rates))
        for who in order:
            rates[who].append(peers[who]())                         # type: ignore[operator]
    return {who: statistics.median(r) for who, r in rates.items()}


def report(title: str, results: dict[str, float], peer: str) -> None:
    print(f"{title:24} {'msgs/s':>10}")
    for who, r in results.items():
        print(f"{who:24} {r:10.0f}")
    if peer in results:
        print(f"mqlite / {peer}: {results['mqlite'] / results[peer]:.2f}x")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", choices=("amqp", "mqtt"))
    ap.add_argument("--json", help="write the medians here")
    args = ap.parse_args()
    os.environ["MQLITE_DATA"] = tempfile.mkdtemp(prefix="mqlite-bench-")
    os.environ["MQSNOAUT"] = "yes"
    mqtt_port, amqp_port = free_port(), free_port()
    mqlite_cmd("crtmqm", "-p", str(free_port()), QM)
    mqlite_cmd("strmqm", QM)
    mqlite_cmd("runmqsc", QM, stdin=f"DEFINE CHANNEL(BENCH.MQTT) CHLTYPE(MQTT) PORT({mqtt_port}) LOCLADDR('127.0.0.1')\n"
                                    f"DEFINE CHANNEL(BENCH.AMQP) CHLTYPE(AMQP) PORT({amqp_port}) LOCLADDR('127.0.0.1') "
                                    "MCAUSER('bench')\n"
                                    "DEFINE QLOCAL(BENCH.AMQP) MAXDEPTH(999999999)\n"
                                    "START SERVICE(SYSTEM.MQXR.SERVICE)\nSTART SERVICE(SYSTEM.AMQP.SERVICE)\n")
    results: dict[str, dict[str, float]] = {}
    try:
        if args.only != "mqtt":
            rabbit = rabbit_amqp10()
            results["amqp"] = medians(args.runs, {
                "mqlite": lambda: amqp_run(f"amqp://127.0.0.1:{amqp_port}", "BENCH.AMQP", args.n, True),
                "RabbitMQ": (lambda: amqp_run("amqp://127.0.0.1:5672", f"/amq/queue/{RABBIT_QUEUE}", args.n, False,
                                              "guest", "guest")) if rabbit else None})
            report("AMQP durable, 1 KiB", results["amqp"], "RabbitMQ")
        if args.only != "amqp":
            mosquitto = mosquitto_ready()
            runs = itertools.count()                # (client ids short enough for MQTT 3.1's 23 characters)
            results["mqtt"] = medians(args.runs, {
                "mqlite": lambda: mqtt_run(mqtt_port, args.n, f"q{next(runs)}"),
                "Mosquitto": (lambda: mqtt_run(MOSQUITTO[1], args.n, f"m{next(runs)}")) if mosquitto else None})
            report("MQTT QoS 1, 1 KiB", results["mqtt"], "Mosquitto")
    finally:
        mqlite_cmd("endmqm", "-i", QM)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
