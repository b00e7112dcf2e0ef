"""A publication whose copy a subscriber's queue refuses (full, put-inhibited, message too long):
PMSGDLV/NPMSGDLV (ALL, ALLDUR, ALLAVAIL) and USEDLQ decide between the dead-letter queue, a
publication that fails as a whole with 2502 and reaches nobody, and a subscriber that misses it;
in and out of syncpoint, durable and non-durable, persistent and not. Against a model of MQ's
rules (mqlite.pubsub.delivery), in the engine."""
from __future__ import annotations

import itertools

import pytest

from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.headers import DLH
from mqlite.pubsub import delivery
from tests.pubsub.test_engine_pubsub import drain, publish, sub

RULES = {"ALL": C.MQDLV_ALL, "ALLDUR": C.MQDLV_ALL_DUR, "ALLAVAIL": C.MQDLV_ALL_AVAIL}
TROUBLE = {"full": ("ALTER QLOCAL(BAD) MAXDEPTH(1)", C.MQRC_Q_FULL),
           "inhibited": ("ALTER QLOCAL(BAD) PUT(DISABLED)", C.MQRC_PUT_INHIBITED),
           "too long": ("ALTER QLOCAL(BAD) MAXMSGL(100)", C.MQRC_MSG_TOO_BIG_FOR_Q)}


def test_the_rules_as_mq_documents_them():
    assert [delivery.fails_publication(r, d) for r in (C.MQDLV_ALL, C.MQDLV_ALL_DUR, C.MQDLV_ALL_AVAIL)
            for d in (True, False)] == [True, True, True, False, False, False]
    assert delivery.dead_letter_first(C.MQUSEDLQ_YES, "DLQ")
    assert not delivery.dead_letter_first(C.MQUSEDLQ_YES, "")      # YES without a DEADQ is NO
    assert not delivery.dead_letter_first(C.MQUSEDLQ_NO, "DLQ")
    assert delivery.rule_attr(True) == "PMSGDLV" and delivery.rule_attr(False) == "NPMSGDLV"


@pytest.mark.parametrize("rule,durable,persistent,dlq,syncpoint,trouble", list(itertools.product(
    RULES, (True, False), (True, False), (True, False), (True, False), TROUBLE)))
def test_an_undeliverable_copy(eng, rule, durable, persistent, dlq, syncpoint, trouble):
    eng.mqsc(f"DEFINE TOPIC(T) TOPICSTR('t') PMSGDLV({rule}) NPMSGDLV({rule}) USEDLQ({'YES' if dlq else 'NO'})\n"
             "DEFINE QLOCAL(BAD)\nDEFINE QLOCAL(DLQ)\nALTER QMGR DEADQ(DLQ)")
    bad, _ = eng.open("BAD", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    if trouble == "full":
        eng.put(bad.hobj, b"already there")
    eng.mqsc(TROUBLE[trouble][0])
    sub(eng, "t/x", name="BADSUB" if durable else "",
        options=C.MQSO_CREATE | (C.MQSO_DURABLE if durable else 0), hobj=bad.hobj)
    _h, good, _sd = sub(eng, "t/#")
    other, _ = eng.open("Q1", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    sp = C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT
    if syncpoint:
        eng.put(other.hobj, b"same unit", pmo_options=C.MQPMO_SYNCPOINT)
    fails = not dlq and delivery.fails_publication(RULES[rule], durable)
    body = b"p" * 200
    per = C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT
    if fails:
        with pytest.raises(MQIError) as e:
            publish(eng, "t/x", body, sp, Persistence=per)
        assert e.value.reason == C.MQRC_PUBLICATION_FAILURE
    else:
        assert publish(eng, "t/x", body, sp, Persistence=per)[0] == C.MQRC_NONE
    if syncpoint:
        eng.qm.commit(eng.conn)
        assert eng.get(other.hobj, C.MQGMO_NO_WAIT).body == b"same unit"   # the rest of the unit stands
    assert [b for b, _p in drain(eng, good)] == ([] if fails else [body])
    dlq_h, _ = eng.open("DLQ", C.MQOO_INPUT_SHARED)
    dead = []
    while True:
        try:
            dead.append(eng.get(dlq_h.hobj, C.MQGMO_NO_WAIT))
        except MQIError as e:
            assert e.reason == C.MQRC_NO_MSG_AVAILABLE
            break
    if dlq:
        assert len(dead) == 1 and dead[0].md.Format == C.MQFMT_DEAD_LETTER_HEADER
        dlh = DLH().unpack(dead[0].body)
        assert dlh.Reason == TROUBLE[trouble][1] and dlh.DestQName.rstrip(b"\0 ") == b"BAD"
        assert body in dead[0].body
        assert dead[0].md.Persistence == per
    else:
        assert dead == []
    eng.mqsc("ALTER QLOCAL(BAD) PUT(ENABLED) MAXDEPTH(5000) MAXMSGL(4194304)")
    depth = 1 if trouble == "full" else 0
    for _ in range(depth):
        assert eng.get(bad.hobj, C.MQGMO_NO_WAIT).body == b"already there"
    with pytest.raises(MQIError):
        eng.get(bad.hobj, C.MQGMO_NO_WAIT)


def test_a_failed_publication_is_not_retained(eng):
    eng.mqsc("DEFINE TOPIC(T) TOPICSTR('t') PMSGDLV(ALL) USEDLQ(NO)\nDEFINE QLOCAL(BAD) PUT(DISABLED)")
    bad, _ = eng.open("BAD", C.MQOO_OUTPUT)
    sub(eng, "t", options=C.MQSO_CREATE, hobj=bad.hobj)
    with pytest.raises(MQIError) as e:
        publish(eng, "t", b"kept?", C.MQPMO_RETAIN, Persistence=C.MQPER_PERSISTENT)
    assert e.value.reason == C.MQRC_PUBLICATION_FAILURE
    assert "t" not in eng.qm.pubsub.retained
