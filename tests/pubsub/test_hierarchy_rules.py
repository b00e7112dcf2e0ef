"""The hierarchy's rules (mqlite.pubsub.hierarchy) without processes: control messages exchanged in
memory over random trees, then a publication followed through ``forward_targets`` and checked
against a simple model (it reaches every queue manager with a matching subscription, each once)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite.cmq import CMQCFC as F
from mqlite.pubsub import hierarchy as hier
from mqlite.pubsub.matching import topic_match

TOPICS = ["a", "a/b", "a/c", "b", "a/#", "#", "+/b"]
PUBLISHED = ["a", "a/b", "a/c", "b", "b/b", "c"]


def build(parents: list[int], subs: list[set[str]]) -> dict[str, hier.Relations]:
    """Queue managers Q0..Qn joined as ``parents`` says (Q0 the root), their control messages
    delivered until none is left."""
    names = [f"Q{i}" for i in range(len(parents) + 1)]
    rel = {n: hier.Relations() for n in names}
    own = {n: {(t, False) for t in s} for n, s in zip(names, subs)}
    queue: list[tuple[str, dict]] = []
    for i, p in enumerate(parents, start=1):
        child = names[i]
        rel[child].parent = names[p]
        queue.append((names[p], hier.message(hier.JOIN, child, proxies=own[child])))
    for _ in range(10_000):
        if not queue:
            for n in names:
                queue += rel[n].outgoing(own[n], n)
            if not queue:
                return rel
        target, msg = queue.pop(0)
        answers, problem = hier.receive(rel[target], target, hier.decode(hier.encode(msg)))
        assert not problem, problem
        queue += answers
    raise AssertionError("control messages never settled")


def reached(rel: dict[str, hier.Relations], origin: str, topic: str) -> list[str]:
    seen, todo = [origin], [(origin, "")]
    while todo and len(seen) < 100:           # bounded: a rule that sends it back would never end
        at, came_from = todo.pop()
        for nxt in hier.forward_targets(rel[at], topic, came_from):
            seen.append(nxt)
            todo.append((nxt, at))
    return seen


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_publications_reach_each_subscriber_once(data) -> None:
    n = data.draw(st.integers(1, 7))
    parents = [data.draw(st.integers(0, i)) for i in range(n)]
    subs = [data.draw(st.sets(st.sampled_from(TOPICS), max_size=2)) for _ in range(n + 1)]
    rel = build(parents, subs)
    assert all(r.parent_status == hier.ACTIVE for name, r in rel.items() if r.parent)
    for i in range(1, n + 1):                                # each knows the chain above it
        chain, j = [], i
        while j:
            j = parents[j - 1]
            chain.append(f"Q{j}")
        assert rel[f"Q{i}"].ancestors == tuple(chain)
    origin = f"Q{data.draw(st.integers(0, n))}"
    topic = data.draw(st.sampled_from(PUBLISHED))
    path = reached(rel, origin, topic)
    assert len(path) == len(set(path))                       # never twice, never back
    wanting = {f"Q{i}" for i, s in enumerate(subs) if any(topic_match(t, topic) for t in s)}
    assert wanting - {origin} <= set(path)                   # every subscriber reached


def test_a_loop_is_refused_and_a_child_that_leaves_is_forgotten() -> None:
    rel = build([0, 1], [{"a"}, set(), {"a/#"}])                # Q0 <- Q1 <- Q2
    # Q0 asking to join its grandchild Q2 is refused: Q0 is above Q2 already.
    answers, problem = hier.receive(rel["Q2"], "Q2", hier.decode(hier.encode(hier.message(hier.JOIN, "Q0"))))
    assert answers == [("Q0", hier.message(hier.REFUSE, "Q2"))] and "loop" in problem
    rel["Q0"].parent = "Q2"
    hier.receive(rel["Q0"], "Q0", hier.decode(hier.encode(answers[0][1])))
    assert rel["Q0"].parent_status == hier.REFUSED and "Q2" not in rel["Q0"].relatives()
    hier.receive(rel["Q1"], "Q1", hier.decode(hier.encode(hier.message(hier.LEAVE, "Q2"))))
    assert rel["Q1"].children == set() and "Q2" not in rel["Q1"].held
    # Only a parent or a child is listened to.
    _answers, problem = hier.receive(rel["Q0"], "Q0", hier.decode(hier.encode(hier.message(hier.PROXIES, "Q9"))))
    assert "not a parent or child" in problem


@pytest.mark.parametrize("data", [b"", b"{}", b"[1]", b'{"type": "join"}', b'{"type": "nope", "from": "X"}', b"\xff"])
def test_bad_control_messages(data: bytes) -> None:
    with pytest.raises(ValueError):
        hier.decode(data)


def test_a_parent_nothing_leads_to_is_an_error_retried(eng) -> None:
    logged: list[str] = []
    eng.qm.hooks.log = lambda text, explanation="": logged.append(text)
    conn = eng.qm.connect("amqfqpub", 0, "mqm")
    assert eng.mqsc_exec.run("ALTER QMGR PARENT(NOWHERE)").status == "ok"
    eng.qm.pubhier.round(conn)
    assert eng.qm.pubhier.status() == [("PARENT", "NOWHERE", F.MQPS_STATUS_ERROR, 0)]
    assert any(line.startswith("MQL8022E") and "NOWHERE" in line for line in logged)
    eng.clock.advance(6)
    eng.qm.pubhier.round(conn)                               # retried, still nothing: logged once
    assert sum(line.startswith("MQL8022E") for line in logged) == 1
    # Once a transmission queue named after it exists, the join is retried and goes out.
    eng.mqsc("DEFINE QLOCAL(NOWHERE) USAGE(XMITQ)")
    eng.clock.advance(6)
    eng.qm.pubhier.round(conn)
    eng.qm.commit(conn)
    assert eng.qm.pubhier.status()[0][2] == F.MQPS_STATUS_STARTING
    assert eng.qm.queues["NOWHERE"].depth == 1
    # Naming itself is a loop.
    assert eng.mqsc_exec.run("ALTER QMGR PARENT(QM1)").status == "ok"
    eng.qm.pubhier.round(conn)
    assert eng.qm.pubhier.status()[0][1:3] == ("QM1", F.MQPS_STATUS_REFUSED)
