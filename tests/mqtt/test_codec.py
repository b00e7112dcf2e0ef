"""The MQTT codec against the specification's encodings: every packet round-trips through bytes
whatever way the bytes arrive, the 3.1.1 spec's worked byte strings decode as it says, and random
or truncated input is a ProtocolError or more-bytes-please, never anything else."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlite.mqtt import codec as K

TOPIC = st.text(alphabet=st.characters(blacklist_characters="+#\0", blacklist_categories=("Cs",)), min_size=1,
                max_size=40)
PID = st.integers(1, 65535)


def decode_all(data: bytes, chunks: list[int]) -> list[K.Packet]:
    d, out, at = K.Decoder(), [], 0
    for n in chunks + [len(data)]:
        d.feed(data[at:at + n])
        at += n
        while (p := d.next()) is not None:
            out.append(p)
    return out


@given(topic=TOPIC, payload=st.binary(max_size=300), qos=st.integers(0, 2), retain=st.booleans(), pid=PID,
       chunks=st.lists(st.integers(0, 7), max_size=20))
def test_publish_round_trips_in_any_chunking(topic: str, payload: bytes, qos: int, retain: bool, pid: int,
                                             chunks: list[int]) -> None:
    p = K.Publish(topic, payload, qos, retain, qos > 0 and retain, pid if qos else 0)
    assert decode_all(K.encode(p) * 2, chunks) == [p, p]


@given(filters=st.lists(st.tuples(TOPIC, st.integers(0, 2)), min_size=1, max_size=5), pid=PID,
       kind=st.sampled_from([K.PUBACK, K.PUBREC, K.PUBREL, K.PUBCOMP]))
def test_subscribe_unsubscribe_and_acks_round_trip(filters: list[tuple[str, int]], pid: int, kind: int) -> None:
    packets: list[K.Packet] = [K.Subscribe(pid, filters), K.Unsubscribe(pid, [f for f, _ in filters]), K.Ack(kind, pid),
                               K.Simple(K.PINGREQ), K.Simple(K.DISCONNECT)]
    assert decode_all(b"".join(K.encode(p) for p in packets), [3]) == packets


@given(cid=st.text(max_size=23).filter(lambda s: "\0" not in s), clean=st.booleans(), keepalive=st.integers(0, 65535),
       user=st.one_of(st.none(), st.text(max_size=10).filter(lambda s: "\0" not in s)),
       password=st.one_of(st.none(), st.binary(max_size=10)), will=st.booleans(),
       protocol=st.sampled_from(["MQTTV3", "MQTTV311"]))
def test_connect_round_trips(cid: str, clean: bool, keepalive: int, user: str | None, password: bytes | None,
                             will: bool, protocol: str) -> None:
    if password is not None and user is None:
        user = "u"
    c = K.Connect(cid, clean, keepalive, protocol, K.Publish("last/will", b"bye", 1, True) if will else None,
                  user, password)
    assert decode_all(K.encode(c), []) == [c]


def test_the_specifications_bytes() -> None:
    # CONNECT, MQTT 3.1.1, clean session, keep alive 60 s, client id "a" (spec 3.1.2 example shape)
    d = K.Decoder()
    d.feed(bytes([0x10, 13, 0, 4]) + b"MQTT" + bytes([4, 2, 0, 60, 0, 1]) + b"a")
    assert d.next() == K.Connect("a", True, 60, "MQTTV311")
    # the remaining length 321 is 0xC1 0x02 (spec 2.2.3)
    assert K.encode(K.Publish("t", b"x" * 318))[1:3] == bytes([0xC1, 0x02])
    assert K.connack(True, K.ACCEPTED) == bytes([0x20, 2, 1, 0])
    assert K.connack(True, K.NOT_AUTHORIZED) == bytes([0x20, 2, 0, 5])     # no session with a refusal
    assert K.suback(7, [0, 1, 0x80]) == bytes([0x90, 5, 0, 7, 0, 1, 0x80])


@pytest.mark.parametrize("data", [
    bytes([0x30, 3, 0, 1]) + b"+",                  # a wildcard in a PUBLISH topic
    bytes([0x36, 5, 0, 1]) + b"t" + bytes([0, 1]),  # QoS 3
    bytes([0x3A, 3, 0, 1]) + b"t",                  # DUP with QoS 0
    bytes([0x82, 6, 0, 1, 0, 1]) + b"t" + bytes([3]),  # requested QoS 3
    bytes([0x80, 6, 0, 1, 0, 1]) + b"t" + bytes([0]),  # SUBSCRIBE without its flags 0010
    bytes([0x82, 2, 0, 1]),                         # SUBSCRIBE with no filter
    bytes([0x10, 13, 0, 4]) + b"MQTX" + bytes([4, 2, 0, 60, 0, 1]) + b"a",   # not MQTT
    bytes([0x10, 13, 0, 4]) + b"MQTT" + bytes([4, 3, 0, 60, 0, 1]) + b"a",   # reserved flag
    bytes([0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),    # a five-byte remaining length
    bytes([0x20, 2, 0, 0]),                         # CONNACK: not a packet a server receives
    bytes([0x30, 4, 0, 2, 0xC3, 0x28]),             # a topic that is not UTF-8
])
def test_packets_that_break_the_specification(data: bytes) -> None:
    d = K.Decoder()
    d.feed(data)
    with pytest.raises(K.ProtocolError):
        d.next()


def test_a_packet_over_the_limit_is_refused_before_it_arrives() -> None:
    d = K.Decoder(max_packet=1000)
    d.feed(bytes([0x30, 0xE9, 0x07]))               # announces 1001 bytes
    with pytest.raises(K.ProtocolError):
        d.next()


@given(data=st.binary(max_size=200))
def test_random_bytes_are_packets_a_protocol_error_or_not_yet(data: bytes) -> None:
    d = K.Decoder(max_packet=4096)
    d.feed(data)
    try:
        while d.next() is not None:
            pass
    except K.ProtocolError:
        pass


@pytest.mark.parametrize("f,ok", [("a/b", True), ("a/+/c", True), ("#", True), ("a/#", True), ("+", True),
                                  ("a/#/b", False), ("a+", False), ("a/b#", False), ("", False), ("/", True)])
def test_topic_filters(f: str, ok: bool) -> None:
    assert K.valid_filter(f) is ok
