"""Bad input at an AMQP channel, each answered as AMQP says, with the queue manager running and
other clients served: fuzzed SASL and AMQP frames (Hypothesis, bounded), a client that never
sends OPEN, a frame far over the maximum, a receiver that never settles (MAXUMSGS bounds what it
holds), a link whose queue is get-inhibited under it, and a thousand topics on one connection."""
from __future__ import annotations

import os
import socket
import struct
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from proton import Connection, Message, Transport
from proton.utils import BlockingConnection, LinkDetached

from mqlite import pymqi
from mqlite.amqp import sasl
from mqlite.cli.proc import free_port
from mqlite.testing import Harness
from tests.amqp.conftest import WAIT, Capability
from tests.helpers import wait_until

FUZZ = int(os.environ.get("MQLITE_FUZZ_EXAMPLES", "60"))


@pytest.fixture(scope="module")
def frig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    port = free_port()
    with Harness(str(tmp_path_factory.mktemp("fuzz"))) as h:
        qm = h.add("AMQPFUZZ", f"DEFINE CHANNEL(AMQP.FUZZ) CHLTYPE(AMQP) PORT({port}) LOCLADDR('127.0.0.1') "
                               "MCAUSER('app')\nALTER QMGR MAXUMSGS(100)\nDEFINE QLOCAL(FLOOD) MAXDEPTH(100000)\n"
                               "DEFINE QLOCAL(DOOMED)\nSTART SERVICE(SYSTEM.AMQP.SERVICE)\n")
        yield {"qm": qm, "port": port, "stats": {"sessions": 0, "closed": 0, "bytes": 0}}


def client(rig: dict[str, Any]) -> BlockingConnection:
    return BlockingConnection(f"amqp://127.0.0.1:{rig['port']}", allowed_mechs="ANONYMOUS", timeout=WAIT)


def session_bytes() -> bytes:
    """What a real client (Proton's engine) sends to open a connection, a session and a link and
    send one message, after the AMQP header: frames to mutate."""
    t, conn = Transport(), Connection()
    t.bind(conn)
    conn.container = "fuzzer"
    conn.open()
    ssn = conn.session()
    ssn.open()
    snd = ssn.sender("fuzz/topic")
    snd.target.address = "fuzz/topic"
    snd.open()
    t.push(sasl.AMQP_HEADER)                # (the server's header back, as if it answered)
    out = t.peek(t.pending()) or b""
    return out[len(sasl.AMQP_HEADER):]


SESSION = session_bytes()


def exchange(rig: dict[str, Any], data: bytes) -> bool:
    """Send ``data``, end our side, read until the server closes: True if it did within 20 s (a
    loaded machine's margin). The server may close first, before all of ``data`` is sent or our
    side is ended: any error of the socket but a timeout is that (it failed the test before)."""
    s = socket.create_connection(("127.0.0.1", rig["port"]), timeout=20)
    try:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        while s.recv(65536):
            pass
        return True
    except socket.timeout:
        return False
    except OSError:
        return True
    finally:
        s.close()
        rig["stats"]["sessions"] += 1
        rig["stats"]["bytes"] += len(data)


def still_serving(rig: dict[str, Any]) -> None:
    assert rig["qm"].running()
    c = client(rig)
    c.create_sender("FLOOD", options=Capability("queue")).close()
    c.close()


@settings(max_examples=FUZZ, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.binary(min_size=1, max_size=300))
def test_fuzzed_sasl_frames(frig: dict[str, Any], data: bytes) -> None:
    assert exchange(frig, sasl.SASL_HEADER + data)


@settings(max_examples=FUZZ, deadline=None, suppress_health_check=list(HealthCheck))
@given(flips=st.lists(st.tuples(st.integers(0, len(SESSION) - 1), st.integers(0, 255)), min_size=1, max_size=8))
def test_mutated_amqp_frames(frig: dict[str, Any], flips: list[tuple[int, int]]) -> None:
    frame = bytearray(SESSION)
    for at, value in flips:
        frame[at] = value
    assert exchange(frig, sasl.AMQP_HEADER + bytes(frame))


def test_after_the_fuzz_the_channel_serves(frig: dict[str, Any]) -> None:
    still_serving(frig)
    errors = open(os.path.join(frig["qm"].harness.data_dir, "qmgrs", "AMQPFUZZ", "errors", "AMQERR01.LOG")).read()
    assert "AMQ6184W" not in errors                   # no defect: every bad frame answered by the protocol


def test_a_frame_far_over_the_maximum_is_refused(frig: dict[str, Any]) -> None:
    huge = struct.pack(">IBBH", 1 << 30, 2, 0, 0)    # a 1 GiB frame announced
    assert exchange(frig, sasl.AMQP_HEADER + huge + b"\0" * 64)
    still_serving(frig)


def test_a_client_that_never_sends_open_is_closed(frig: dict[str, Any]) -> None:
    s = socket.create_connection(("127.0.0.1", frig["port"]), timeout=20)
    start = time.monotonic()
    s.sendall(sasl.AMQP_HEADER)
    try:
        while s.recv(4096):
            pass
    except ConnectionResetError:
        pass
    assert 9 < time.monotonic() - start < 15           # HEADER_WAIT: 10 s
    s.close()
    still_serving(frig)


def test_a_receiver_that_never_settles_holds_no_more_than_maxumsgs(frig: dict[str, Any]) -> None:
    qm = frig["qm"].bindings()
    q = pymqi.Queue(qm, "FLOOD", pymqi.CMQC.MQOO_OUTPUT)
    for i in range(300):
        q.put(b"m%d" % i, pymqi.MD(Persistence=1))
    q.close()
    qm.disconnect()
    greedy = client(frig)
    rcv = greedy.create_receiver("FLOOD", credit=1000, options=Capability("queue"))
    got = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and len(got) < 100:
        got.append(rcv.receive(timeout=WAIT))
    with pytest.raises(Exception):                    # (no more: the unit of work is at MAXUMSGS)
        rcv.receive(timeout=1.5)
    assert len(got) == 100
    other = client(frig)                             # another client is served meanwhile
    other.create_sender("FLOOD", options=Capability("queue")).send(Message(body="other", durable=True))
    other.close()
    greedy.close()                                   # unsettled: backed out, all there again
    wait_until(lambda: "CURDEPTH(301)" in frig["qm"].mqsc("DISPLAY QLOCAL(FLOOD) CURDEPTH\n").stdout,
               timeout=10, what="the unsettled messages backed out")
    frig["qm"].mqsc("CLEAR QLOCAL(FLOOD)\n")


def test_a_link_whose_queue_is_get_inhibited_is_detached_alone(frig: dict[str, Any]) -> None:
    c = client(frig)
    rcv = c.create_receiver("DOOMED", credit=10, options=Capability("queue"))
    snd = c.create_sender("FLOOD", options=Capability("queue"))
    frig["qm"].mqsc("ALTER QLOCAL(DOOMED) GET(DISABLED)\n", check=True)
    with pytest.raises(LinkDetached) as e:
        rcv.receive(timeout=WAIT)
    assert "amqp:resource-locked" in str(e.value) and "2016" in str(e.value)
    snd.send(Message(body="still here"))                # the connection and its other link go on
    c.close()
    frig["qm"].mqsc("CLEAR QLOCAL(FLOOD)\n")


def test_a_thousand_topics_on_one_connection(frig: dict[str, Any]) -> None:
    """MAXHANDS (256: two handles a subscription) bounds what one connection holds: the links past
    it are refused with amqp:resource-limit-exceeded and the rest served; with MAXHANDS raised, a
    thousand topics on one connection, every subscription gone with it."""
    def subs() -> int:
        return frig["qm"].mqsc("DISPLAY SUB(*) SUBTYPE(API)\n").stdout.count("SUBID(")
    before = subs()
    c = client(frig)
    held, refused = [], []
    for i in range(200):
        try:
            held.append(c.create_receiver(f"few/{i}", credit=1))
        except LinkDetached as e:
            refused.append(str(e))
    assert len(held) == 128 and len(refused) == 72           # (256 handles, two a subscription)
    assert all("amqp:resource-limit-exceeded" in r and "2017" in r for r in refused)
    other = client(frig)                             # (this connection has no handle left to send with)
    other.create_sender("few/7").send(Message(body="served"))
    other.close()
    assert held[7].receive(timeout=WAIT).body == "served"
    c.close()
    frig["qm"].mqsc("ALTER QMGR MAXHANDS(3000)\n", check=True)
    c = client(frig)
    links = [c.create_receiver(f"many/{i}", credit=1) for i in range(1000)]
    assert subs() == before + 1000
    c.create_sender("many/777").send(Message(body="just one"))
    assert links[777].receive(timeout=WAIT).body == "just one"
    links[777].accept()
    c.close()                                        # every link's subscription ends with it
    wait_until(lambda: subs() == before, timeout=10, what="the subscriptions to end")
    frig["qm"].mqsc("ALTER QMGR MAXHANDS(256)\n", check=True)
    still_serving(frig)
