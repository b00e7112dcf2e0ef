"""The AMQP mapping and SASL frames as pure functions: a message goes to MQ's descriptor and data
and back with its body, durability, priority, time to live and application properties; SASL's
sasl-init reads back what a client wrote; PLAIN's response; what the capabilities name."""
from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st
from proton import Data, Message, symbol, ulong

from mqlite.amqp import mapping as A
from mqlite.amqp import sasl
from mqlite.cmq import CMQC as C
from mqlite.props import rfh2

NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)
VALUES = st.one_of(st.integers(-2**31, 2**31 - 1), st.text(max_size=20).filter(lambda t: "\0" not in t), st.booleans())


@given(body=st.one_of(st.text(max_size=50).filter(lambda t: "\0" not in t), st.binary(max_size=50)),
       durable=st.booleans(), priority=st.integers(0, 9), ttl=st.one_of(st.none(), st.integers(1, 10**6)),
       props=st.dictionaries(NAMES, VALUES, max_size=4))
def test_a_message_goes_to_mq_and_back(body: str | bytes, durable: bool, priority: int, ttl: int | None,
                                       props: dict) -> None:
    msg = Message(body=body, durable=durable, priority=priority, properties=props or None)
    if ttl:
        msg.ttl = ttl / 1000
    md, data = A.to_mq(msg)
    assert md.Persistence == (C.MQPER_PERSISTENT if durable else C.MQPER_NOT_PERSISTENT)
    assert md.Priority == priority and md.PutApplType == C.MQAT_AMQP
    back = A.from_mq(md, data)
    assert back.body == (body if isinstance(body, str) else bytes(body)) or (back.body == b"" and not body)
    assert back.durable == durable and back.priority == priority
    assert (back.properties or {}) == props
    if ttl:
        assert abs(back.ttl - max(ttl / 1000, 0.1)) < 0.11


def test_sasl_init_plain_and_outcome() -> None:
    def put(d: Data) -> None:
        d.put_symbol(symbol("PLAIN"))
        d.put_binary(b"\0alice\0s3cret")
    init = sasl.read_init(sasl.frame(sasl.INIT, [put]))
    assert init.mechanism == "PLAIN" and sasl.plain(init.response) == ("alice", "s3cret")
    assert sasl.plain(b"alice") is None and sasl.plain(b"\0\0pw") is None
    assert sasl.outcome(sasl.OK)[5] == 1                   # a SASL frame (type 1)
    with pytest.raises(sasl.SaslError):
        sasl.read_init(sasl.mechanisms(["PLAIN"]))           # not sasl-init
    with pytest.raises(sasl.SaslError):
        sasl.frame_size(b"\x7f\xff\xff\xff")


@pytest.mark.parametrize("caps,kind", [([], "topic"), (["queue"], "queue"), (["topic", "queue"], "topic"),
                                       (["temporary-queue"], "queue"), (["shared"], "topic")])
def test_capabilities(caps: list[str], kind: str) -> None:
    assert A.kind_of(caps) == kind
    assert A.topic_of("private:/sports") == "/sports" and A.topic_of("a/b") == "a/b"


TOPICS = st.from_regex(r"[a-z/#+]{1,20}", fullmatch=True)
POLICIES = st.sampled_from(["link-detach", "session-end", "connection-close", "never"])


@given(share=st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True), topic=TOPICS, container=NAMES, policy=POLICIES,
       timeout=st.integers(0, 100), capability=st.booleans())
def test_a_subscription_is_named_and_kept_as_mq_does_it(share: str, topic: str, container: str, policy: str,
                                                        timeout: int, capability: bool) -> None:
    """MQ's rules (amqp/mapping.subscription) against a model: shared by its share name, private
    to the container only when it outlives its link, for ever with ``never``, else the timeout."""
    linger = C.MQEI_UNLIMITED if policy == "never" else timeout * 10
    sub = A.subscription(f"share:{share}:{topic}", container, "link", capability, policy, timeout)
    assert sub == A.Sub(topic, f":share:{share}:{topic}", True, linger)
    sub = A.subscription(f"private:{topic}", container, f"{share}|global", capability, policy, timeout)
    if capability:                                   # (Qpid JMS: the link's name up to '|' is the share)
        assert sub == A.Sub(topic, f":share:{share}:{topic}", True, linger)
    else:
        assert sub == A.Sub(topic, f":private:{container}:{topic}" if linger else None, False, linger)
    assert A.subscription(topic, container, "l", False, policy, timeout).topic == topic


@given(reply_to=st.from_regex(r"[A-Z][A-Z0-9.]{0,47}", fullmatch=True))
def test_reply_to_is_the_reply_to_queue_and_back(reply_to: str) -> None:
    md, data = A.to_mq(Message(body="q", reply_to=reply_to))
    assert md.ReplyToQ.rstrip(b" \0") == reply_to.encode()
    assert A.from_mq(md, data).reply_to == reply_to


@pytest.mark.parametrize("field", ["id", "correlation_id"])
@pytest.mark.parametrize("value", [uuid.uuid4(), ulong(7)])
def test_a_uuid_or_ulong_identifier_is_rejected_as_mq_rejects_it(field: str, value: object) -> None:
    msg = Message(body="x")
    setattr(msg, field, value)
    with pytest.raises(A.Unmappable):
        A.to_mq(msg)
    ok = Message(body="x")
    setattr(ok, field, "order-17")                     # (a string is mapped: the CorrelId's bytes)
    A.to_mq(ok)


@pytest.mark.parametrize("outcome,failed,count,bothresh,expected", [
    ("accepted", False, 5, 1, A.CONSUME),
    ("released", False, 0, 1, A.REQUEUE),           # not processed: never counted, never poison
    ("modified", False, 3, 2, A.REQUEUE),
    ("modified", True, 0, 0, A.RETRY),
    ("modified", True, 0, 2, A.RETRY),
    ("modified", True, 1, 2, A.POISON),             # raised to BOTHRESH
    ("rejected", False, 0, 0, A.POISON),            # bad: not delivered again, whatever the count
    ("unsettled", False, 0, 0, A.RETRY),            # the link went without an outcome
    ("unsettled", False, 4, 5, A.POISON),
])
def test_a_delivery_outcome_decides_its_message_alone(outcome: str, failed: bool, count: int, bothresh: int,
                                                       expected: str) -> None:
    assert A.disposition(outcome, failed, count, bothresh) == expected


AMQP_VALUES = st.recursive(
    st.one_of(st.integers(-2**63, 2**63 - 1), st.booleans(), st.floats(allow_nan=False),
              st.text(max_size=10).filter(lambda t: "\0" not in t), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=5).filter(lambda t: "\0" not in t), inner, max_size=4)),
    max_leaves=10)


@given(body=st.one_of(st.dictionaries(st.text(max_size=5).filter(lambda t: "\0" not in t), AMQP_VALUES, max_size=4),
                      st.lists(AMQP_VALUES, max_size=4), st.integers(-2**63, 2**63 - 1), st.booleans(),
                      st.floats(allow_nan=False), st.uuids()),
       sequence=st.booleans())
def test_a_structured_body_reaches_an_amqp_receiver_as_it_was_sent(body: object, sequence: bool) -> None:
    """A map, list, number, boolean or uuid amqp-value (or a list as an amqp-sequence) is kept
    AMQP-encoded (MQFMT_NONE), not as its Python text, and comes back the same."""
    msg = Message(body=body)
    msg.inferred = sequence and isinstance(body, list)
    md, data = A.to_mq(msg)
    split = rfh2.split(md.Format, md.Encoding, md.CodedCharSetId, data)
    assert split.format == C.MQFMT_NONE and repr(body).encode() not in split.data
    back = A.from_mq(md, data)
    assert back.body == body and bool(back.inferred) == (sequence and isinstance(body, list))


@given(mid=st.one_of(st.text(min_size=1, max_size=30).filter(lambda t: "\0" not in t), st.binary(min_size=1, max_size=30)),
       cid=st.one_of(st.none(), st.text(min_size=1, max_size=60).filter(lambda t: "\0" not in t)),
       subject=st.one_of(st.none(), st.text(min_size=1, max_size=20).filter(lambda t: "\0" not in t)),
       ctype=st.one_of(st.none(), st.sampled_from(["application/json", "text/plain"])),
       created=st.one_of(st.none(), st.integers(1, 2**40)))
def test_an_amqp_messages_properties_come_back_as_sent(mid: str | bytes, cid: str | None, subject: str | None,
                                                       ctype: str | None, created: int | None) -> None:
    msg = Message(body="x", id=mid, user_id=b"someone", subject=subject, correlation_id=cid)
    if ctype:
        msg.content_type = ctype
    if created:
        msg.creation_time = created / 1000
    md, data = A.to_mq(msg)
    back = A.from_mq(md, data)
    assert bytes(back.id) == mid if isinstance(mid, bytes) else back.id == mid
    assert bytes(back.user_id) == b"someone" and back.subject == subject
    assert (back.correlation_id == cid) if cid else back.correlation_id is None
    assert (back.content_type == ctype) if ctype else not A.pn_message_get_content_type(back._msg)
    assert back.creation_time == msg.creation_time        # (to the millisecond, as Proton keeps it)


def test_an_mqi_messages_properties_are_made_from_its_mqmd() -> None:
    """MQ's table for outgoing messages: MsgId as the message-id, UserIdentifier as the user-id,
    CorrelId as the correlation-id (binary), PutDate and PutTime as the creation-time."""
    from mqlite.cmq.structs import MD
    md = MD(Format=C.MQFMT_STRING, PutApplType=C.MQAT_UNIX, MsgId=b"M" * 24, CorrelId=b"C" * 24, Priority=4,
            UserIdentifier=b"app", PutDate=b"20261206", PutTime=b"02450012")
    back = A.from_mq(md, b"hello")
    assert back.body == "hello" and bytes(back.id) == b"M" * 24 and bytes(back.user_id) == b"app"
    assert bytes(back.correlation_id) == b"C" * 24
    assert back.creation_time == 1796525100.12


@given(body=st.one_of(st.none(), st.text(max_size=50), st.binary(max_size=50), st.integers(0, 2**31),
                      st.lists(st.integers(0, 9), max_size=3)),
       durable=st.booleans(), priority=st.integers(0, 255), ttl=st.integers(0, 10**7),
       reply_to=st.one_of(st.none(), st.text(max_size=60).filter(lambda t: "\0" not in t)),
       extra=st.sampled_from([None, "id", "correlation_id", "user_id", "subject", "content_type", "creation_time",
                              "properties"]))
def test_the_c_api_path_maps_a_message_as_to_mq_does(body: object, durable: bool, priority: int, ttl: int,
                                                     reply_to: str | None, extra: str | None) -> None:
    """``plain_to_mq`` (the server's path, on Proton's C API) against ``to_mq`` as the model: the
    same MQMD and data wherever it answers, and an answer for every message with nothing that
    becomes a property and a body of bytes, text or nothing."""
    from cproton_ffi import ffi
    from cproton_ffi import lib as pn
    msg = Message(body=body, durable=durable, priority=priority, reply_to=reply_to)
    msg.ttl = ttl / 1000
    values = {"id": "m1", "correlation_id": b"c1", "user_id": b"u", "subject": "s", "content_type": "text/plain",
              "creation_time": 12.5, "properties": {"k": 1}}
    if extra is not None:
        setattr(msg, extra, values[extra])
    encoded = bytearray(msg.encode())
    m = ffi.gc(pn.pn_message(), pn.pn_message_free)
    got = A.plain_to_mq(m, encoded)
    decoded = Message()
    decoded.decode(bytes(encoded))
    md, data = A.to_mq(decoded)
    if extra is None and (body is None or isinstance(body, (str, bytes))):
        assert got is not None
    if got is not None:
        assert (got[0].pack(), got[1]) == (md.pack(), data)
