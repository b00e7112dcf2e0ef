"""The shared store's queue semantics against a simple model (hypothesis), on SQLite."""
from __future__ import annotations

import os
import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite.store.shared import NewMessage, QueueFull, Select, SQLiteShared

OPS = st.lists(st.one_of(
    st.tuples(st.just("put"), st.integers(0, 9), st.sampled_from([b"A", b"B", b"C"])),
    st.tuples(st.just("get"), st.none(), st.sampled_from([None, b"A", b"B"])),
    st.tuples(st.just("claim"), st.none(), st.none()),
    st.tuples(st.just("commit"), st.none(), st.none()),
    st.tuples(st.just("backout"), st.none(), st.none()),
), max_size=40)


def _msg(prio: int, correl: bytes, n: int) -> NewMessage:
    return NewMessage("Q", prio, b"md", b"body%d" % n, None, True, b"%024d" % n, correl.ljust(24, b"\0"),
                      b"\0" * 24, 1, True)


@settings(max_examples=60, deadline=None)
@given(ops=OPS, fifo=st.booleans())
def test_order_matching_claims_and_depth_follow_the_model(ops: list, fifo: bool) -> None:
    with tempfile.TemporaryDirectory() as d:
        store = SQLiteShared("TST", os.path.join(d, "s.db"))
        model: list[tuple[int, int, bytes, int]] = []      # (prio, id, correl, backout) visible
        claimed: list[tuple[int, int, bytes, int]] = []
        n = 0
        try:
            for op, prio, arg in ops:
                if op == "put":
                    n += 1
                    try:
                        store.put([_msg(prio, arg, n)], {"Q": 6})
                    except QueueFull:
                        assert len(model) + len(claimed) >= 6
                        continue
                    rid = max(r.id for r in store.rows("Q"))
                    model.append((prio, rid, arg, 0))
                elif op in ("get", "claim"):
                    want = [m for m in model if arg is None or m[2] == arg]
                    want.sort(key=(lambda m: m[1]) if fifo else (lambda m: (-m[0], m[1])))
                    sel = Select(correlid=arg.ljust(24, b"\0") if arg else None)
                    row, taken = store.take("Q", fifo, sel, 0.0, "delete" if op == "get" else "claim", "me")
                    if not want:
                        assert row is None
                        continue
                    assert taken and row is not None and row.id == want[0][1] and row.backout == want[0][3]
                    model.remove(want[0])
                    if op == "claim":
                        claimed.append(want[0])
                elif op == "commit":
                    store.finish([(m[1], "Q") for m in claimed], [])
                    claimed = []
                else:
                    store.finish([], [m[1] for m in claimed])
                    model.extend((p, i, c, b + 1) for p, i, c, b in claimed)
                    claimed = []
                assert store.depth("Q") == len(model) + len(claimed)
        finally:
            store.close()


def test_members_putting_at_once_to_a_fresh_shared_queue_on_postgresql() -> None:
    """Two members' first puts to a queue with no depth row yet, and their group-version bumps, at
    the same moment, 25 times over: none fails (an update-then-insert raced on READ COMMITTED and
    one member's put failed with 2373), and the counts add up."""
    import dataclasses
    import random
    import string
    import threading

    from mqlite.store.shared import open_shared
    from tests.conftest import require_pg
    url = require_pg()
    qsg = "R" + "".join(random.choices(string.ascii_uppercase, k=3))
    members = [open_shared(qsg, url), open_shared(qsg, url)]
    errors: list[BaseException] = []

    def first_put(n: int, queue: str, gate: threading.Barrier) -> None:
        try:
            gate.wait(5)
            members[n].put([dataclasses.replace(_msg(0, b"A", n), queue=queue)], {queue: 5000})
            members[n].put_object("QUEUE", f"{queue}.M{n}", "GROUP", {"n": n}, True)
        except BaseException as e:  # noqa: BLE001 - collected and asserted below
            errors.append(e)
    try:
        for i in range(25):
            gate = threading.Barrier(2)
            threads = [threading.Thread(target=first_put, args=(n, f"FRESH.{i}", gate)) for n in (0, 1)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
        assert errors == []
        assert [members[0].depth(f"FRESH.{i}") for i in range(25)] == [2] * 25
        assert members[1].object_version() == 50
    finally:
        members[0].drop_group()
        for m in members:
            m.close()
