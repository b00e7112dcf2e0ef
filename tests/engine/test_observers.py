"""Issue 64: the verbs tell their outcome to ``qm.observers`` in one place, so every way a message
is put raises what MQ raises: a channel's put (``put_packed``, a receiver's path) raises the queue
depth events an application's put does, and its refusal the Queue Full event (MQ raises them for
any put to the queue, an MCA's included)."""
from __future__ import annotations

import pytest

from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import MD
from tests.conftest import Engine

PERFM = "SYSTEM.ADMIN.PERFM.EVENT"


def _reasons(eng: Engine) -> list[int]:
    h, _ = eng.open(PERFM, C.MQOO_INPUT_SHARED)
    out = []
    while True:
        try:
            got = eng.get(h.hobj)
        except MQIError as e:
            assert e.reason == C.MQRC_NO_MSG_AVAILABLE
            return out
        assert got.md.Format == C.MQFMT_EVENT
        out.append(int.from_bytes(got.body[28:32], "little"))     # MQCFH Reason


@pytest.mark.parametrize("door", ["application", "channel"])
def test_a_put_raises_the_depth_events_whoever_puts(eng: Engine, door: str) -> None:
    eng.mqsc("ALTER QMGR PERFMEV(ENABLED)\nDEFINE QLOCAL(DEEP) MAXDEPTH(4) QDEPTHHI(50) QDPHIEV(ENABLED)")
    h, _ = eng.open("DEEP", C.MQOO_OUTPUT)

    def put() -> None:
        if door == "channel":
            eng.qm.put_packed(eng.conn, h.hobj, MD(Persistence=C.MQPER_NOT_PERSISTENT).pack(), b"m", False)
        else:
            eng.put(h.hobj, b"m")
    for _ in range(4):
        put()
    with pytest.raises(MQIError) as e:
        put()
    assert e.value.reason == C.MQRC_Q_FULL
    assert eng.qm.queues["DEEP"].depth == 4
    assert _reasons(eng) == [C.MQRC_Q_DEPTH_HIGH, C.MQRC_Q_FULL]


def test_nothing_is_raised_while_the_events_are_off(eng: Engine) -> None:
    eng.mqsc("DEFINE QLOCAL(DEEP) MAXDEPTH(2) QDEPTHHI(50) QDPHIEV(ENABLED)")
    h, _ = eng.open("DEEP", C.MQOO_OUTPUT)
    for _ in range(2):
        eng.qm.put_packed(eng.conn, h.hobj, MD().pack(), b"m", False)
    with pytest.raises(MQIError):
        eng.qm.put_packed(eng.conn, h.hobj, MD().pack(), b"m", False)
    assert _reasons(eng) == []


def test_every_refusal_of_a_channels_put_is_counted(eng: Engine) -> None:
    """A channel's put refused after its queue checks (a persistent message for a temporary dynamic
    queue, 2048) counts as a failed put in the queue's statistics, as MQPUT's refusals do."""
    eng.mqsc("ALTER QMGR STATQ(ON)\nDEFINE QMODEL(TMP.MODEL) DEFTYPE(TEMPDYN) STATQ(ON)")
    h, od = eng.open("TMP.MODEL", C.MQOO_OUTPUT, DynamicQName=b"TMP.*")
    assert h.stats is not None
    with pytest.raises(MQIError) as e:
        eng.qm.put_packed(eng.conn, h.hobj, MD(Persistence=C.MQPER_PERSISTENT).pack(), b"m", False)
    assert e.value.reason == C.MQRC_PERSISTENT_NOT_ALLOWED
    eng.qm.put_packed(eng.conn, h.hobj, MD(Persistence=C.MQPER_NOT_PERSISTENT).pack(), b"m", False)
    assert (h.stats.put_fails, h.stats.puts) == (1, [1, 0])
