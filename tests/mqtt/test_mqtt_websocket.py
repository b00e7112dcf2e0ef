"""MQTT over WebSockets, as an MQTT channel with PROTOCOL(HTTP) serves it: paho-mqtt's websockets
transport and its TCP one on the same port, a channel that takes only one of them refusing the
other, and the frame rules (RFC 6455, MQTT 3.1.1 section 6) as property tests of the decoder."""
from __future__ import annotations

import base64
import os
import socket
import struct
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlite.cli.proc import free_port
from mqlite.mqtt import codec as K
from mqlite.mqtt import websocket as W
from mqlite.testing import Harness
from tests.mqtt.test_mqtt_channel import Client


@pytest.fixture(scope="module")
def wsrig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    both, web, tcp = free_port(), free_port(), free_port()
    with Harness(str(tmp_path_factory.mktemp("ws"))) as h:
        qm = h.add("MQTTWS", f"DEFINE CHANNEL(MQTT.BOTH) CHLTYPE(MQTT) PORT({both}) LOCLADDR('127.0.0.1')\n"
                             f"DEFINE CHANNEL(MQTT.WEB) CHLTYPE(MQTT) PORT({web}) LOCLADDR('127.0.0.1') PROTOCOL(HTTP)\n"
                             f"DEFINE CHANNEL(MQTT.TCP) CHLTYPE(MQTT) PORT({tcp}) LOCLADDR('127.0.0.1') "
                             "PROTOCOL(MQTTV311)\nSTART SERVICE(SYSTEM.MQXR.SERVICE)\n")
        yield {"qm": qm, "both": both, "web": web, "tcp": tcp}


def test_websocket_and_tcp_clients_on_one_channel(wsrig: dict[str, Any]) -> None:
    browser = Client(wsrig["both"], "ws.browser", transport="websockets")
    assert browser.rc == 0 and browser.subscribe("dash/#", 1) == [1]
    device = Client(wsrig["both"], "tcp.device")
    device.publish("dash/temp", b"21.5", 1)
    (m,) = browser.take(1)
    assert (m.topic, m.payload, m.qos) == ("dash/temp", b"21.5", 1)
    big = os.urandom(200_000)                           # (a 64-bit frame length, many TCP reads)
    browser.publish("dash/blob", big, 1)
    (m,) = browser.take(1)
    assert m.payload == big
    for c in (browser, device):
        c.close()
    shown = wsrig["qm"].mqsc("DISPLAY CHSTATUS(MQTT.BOTH) CLIENTID('*')\n").stdout
    assert "ws.browser" not in shown


def _raw(port: int, data: bytes) -> bytes:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        s.sendall(data)
        out = b""
        while chunk := s.recv(4096):
            out += chunk
        return out
    except (ConnectionResetError, socket.timeout):
        return b""
    finally:
        s.close()


def _upgrade(protocols: str = "mqtt") -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (f"GET /mqtt HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {protocols}\r\n\r\n").encode()


def test_each_channel_takes_what_its_protocol_says(wsrig: dict[str, Any]) -> None:
    assert _raw(wsrig["tcp"], _upgrade()).startswith(b"HTTP/1.1 400")          # PROTOCOL(MQTTV311): no HTTP
    assert _raw(wsrig["web"], K.encode(K.Connect("tcp.refused", True, 60, "MQTTV311"))) == b""   # HTTP only
    assert _raw(wsrig["web"], _upgrade("chat")).startswith(b"HTTP/1.1 400")   # no mqtt subprotocol
    web = Client(wsrig["web"], "web.only", transport="websockets")
    assert web.rc == 0
    web.close()
    assert wsrig["qm"].running()


def masked(opcode: int, payload: bytes, fin: bool = True, mask: bytes = b"\x01\x02\x03\x04") -> bytes:
    n = len(payload)
    head = bytes([(0x80 if fin else 0) | opcode])
    head += bytes([0x80 | n]) if n < 126 else (bytes([0x80 | 126]) + struct.pack(">H", n) if n < 65536
                                               else bytes([0x80 | 127]) + struct.pack(">Q", n))
    key = (mask * (n // 4 + 1))[:n]
    return head + mask + bytes(a ^ b for a, b in zip(payload, key))


@given(messages=st.lists(st.binary(max_size=300), min_size=1, max_size=5), cut=st.integers(1, 50),
       split=st.integers(1, 4), mask=st.binary(min_size=4, max_size=4))
def test_frames_decode_whatever_the_chunking_and_fragmenting(messages: list[bytes], cut: int, split: int,
                                                            mask: bytes) -> None:
    """Binary messages, each sent in ``split`` fragments with a ping between, masked with any key
    and fed ``cut`` bytes at a time, come out whole and in order, the ping beside them."""
    stream = b""
    for m in messages:
        parts = [m[i * len(m) // split:(i + 1) * len(m) // split] for i in range(split)]
        for i, p in enumerate(parts):
            stream += masked(W.BINARY if i == 0 else W.CONTINUATION, p, fin=i == split - 1, mask=mask)
            if i == 0:
                stream += masked(W.PING, b"hb", mask=mask)
    d = W.FrameDecoder(1 << 20)
    got = []
    for i in range(0, len(stream), cut):
        d.feed(stream[i:i + cut])
        got += list(d.frames())
    assert [p for op, p in got if op == W.BINARY] == messages
    assert [p for op, p in got if op == W.PING] == [b"hb"] * len(messages)


@pytest.mark.parametrize("bad", [
    masked(W.TEXT, b"not binary"),                               # MQTT-6.0.0-1
    bytes([0x82, 3]) + b"abc",                                   # not masked
    bytes([0x82, 0x80 | 127]) + struct.pack(">Q", 1 << 40),      # a terabyte announced
    masked(W.PING, b"x", fin=False),                             # a fragmented control frame
    masked(W.CONTINUATION, b"nothing to continue"),
    bytes([0xC2, 0x80]) + b"\0\0\0\0",                           # a reserved bit
])
def test_bad_frames_are_refused(bad: bytes) -> None:
    d = W.FrameDecoder(1 << 20)
    d.feed(bad)
    with pytest.raises(W.WebSocketError):
        list(d.frames())


def test_the_handshake_answers_as_rfc_6455_says() -> None:
    # (RFC 6455 section 1.3's example key and accept value)
    assert W.accept_key("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
    answer = W.handshake(_upgrade("mqttv3.1, mqtt"))
    assert answer.startswith(b"HTTP/1.1 101") and b"Sec-WebSocket-Protocol: mqttv3.1\r\n" in answer
    for bad in (b"POST / HTTP/1.1\r\n\r\n", _upgrade().replace(b"Upgrade: websocket", b"Upgrade: h2c"),
                _upgrade().replace(b"Sec-WebSocket-Key: ", b"Sec-WebSocket-Key: short")):
        with pytest.raises(W.WebSocketError):
            W.handshake(bad)
