"""Issue 64: where an MQPUT goes is chosen once, at MQOPEN, and held on the handle
(``Handle.dest``): the queue MQOPEN fixed (local, alias, remote through its transmission queue, a
cluster queue bound on open), the workload algorithm's choice at each put (a cluster queue bound
not fixed or on group), or a topic. Every put through the handle goes there."""
from __future__ import annotations

import pytest

from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.engine.resolve import CLUSTER, LOCAL, Resolved
from tests.conftest import Engine

OBJECTS = """
DEFINE QLOCAL(Q1)
DEFINE QALIAS(QA) TARGET(Q1)
DEFINE QLOCAL(QM2) USAGE(XMITQ)
DEFINE QREMOTE(QR) RNAME(RQ) RQMNAME(QM2)
DEFINE TOPIC(T1) TOPICSTR('a/b')
"""


def test_each_kind_of_destination_is_chosen_at_open_and_its_puts_go_there(eng: Engine) -> None:
    eng.mqsc(OBJECTS)
    puts = eng.qm.puts
    local, _ = eng.open("Q1", C.MQOO_OUTPUT)
    alias, _ = eng.open("QA", C.MQOO_OUTPUT)
    remote, _ = eng.open("QR", C.MQOO_OUTPUT)
    topic, _ = eng.open("T1", C.MQOO_OUTPUT, ObjectType=C.MQOT_TOPIC)
    assert local.dest is alias.dest is remote.dest is puts.fixed
    assert topic.dest is puts.topic
    eng.put(local.hobj, b"one")
    eng.put(alias.hobj, b"two")
    eng.put(remote.hobj, b"three")
    md, pmo = eng.put(topic.hobj, b"nobody subscribed")
    assert [eng.qm.queues[q].depth for q in ("Q1", "QM2")] == [2, 1]
    # The remote queue's message carries its MQXQH: the destination wrapped it once.
    got = eng.get(eng.open("QM2", C.MQOO_INPUT_SHARED)[0].hobj)
    assert got.md.Format == C.MQFMT_XMIT_Q_HEADER and got.body.startswith(C.MQXQH_STRUC_ID)


def test_a_handle_not_opened_for_output_has_no_destination(eng: Engine) -> None:
    eng.mqsc(OBJECTS)
    h, _ = eng.open("Q1", C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    assert h.dest is None
    with pytest.raises(MQIError) as e:
        eng.put(h.hobj)
    assert e.value.reason == C.MQRC_NOT_OPEN_FOR_OUTPUT
    assert eng.qm.queues["Q1"].depth == 0


def test_a_cluster_queue_not_bound_on_open_is_chosen_at_each_put(eng: Engine) -> None:
    puts = eng.qm.puts
    assert puts.destination(Resolved(CLUSTER, "", "CQ", "", ())) is puts.chosen
    assert puts.destination(Resolved(LOCAL, "Q1", "Q1", "QM1", ("Q1",))) is puts.fixed
    assert puts.destination(None) is puts.topic
    # A topic's destination has no single queue to name.
    eng.mqsc(OBJECTS)
    h, _ = eng.open("T1", C.MQOO_OUTPUT, ObjectType=C.MQOT_TOPIC)
    with pytest.raises(MQIError) as e:
        puts.topic.target(h, None, 0)           # type: ignore[arg-type]
    assert e.value.reason == C.MQRC_OBJECT_TYPE_ERROR
