"""The scratch log (nonpersistent messages out of memory) against a model: a dict of position ->
(queue, priority, descriptor, data, expiry). Small segments and write chunks, so that rotation,
reading records not yet written, rewinding and deleting segments, trimming a lane's front and
sorting a lane that gets an older position (or putting it in its place) all happen within a few
dozen operations."""
from __future__ import annotations

import os

import hypothesis.strategies as st
import pytest
from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from mqlite.cmq.structs import MD
from mqlite.store import scratch
from mqlite.store.scratch import ScratchLog

QUEUES = ("A", "B")
PRIOS = (0, 4, 9)
CORRELS = (b"\0" * 24, b"C1".ljust(24, b"\0"), b"C2".ljust(24, b"\0"))


@pytest.fixture(autouse=True)
def small_log(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scratch, "SEGMENT", 4096)
    monkeypatch.setattr(scratch, "WRITE_CHUNK", 1500)
    monkeypatch.setattr(scratch, "TRIM", 4)


def _md(seq: int, prio: int, correl: bytes) -> bytes:
    return MD(MsgId=b"M%08d" % seq, CorrelId=correl, Priority=prio).pack()


class ScratchMachine(RuleBasedStateMachine):
    ratio = scratch.PLACE_RATIO         # late rows put in place, or the lane sorted (the subclasses)

    def __init__(self) -> None:
        super().__init__()
        self.saved_ratio, scratch.PLACE_RATIO = scratch.PLACE_RATIO, self.ratio
        self.log = ScratchLog()
        self.model: dict[int, tuple[str, int, bytes, bytes, float | None]] = {}
        self.next = 100

    def teardown(self) -> None:
        self.log.close()
        scratch.PLACE_RATIO = self.saved_ratio

    def _lane(self, queue: str, prios: tuple[int, ...]) -> list[int]:
        return sorted(s for s, r in self.model.items() if r[0] == queue and r[1] in prios)

    @rule(queue=st.sampled_from(QUEUES), prio=st.sampled_from(PRIOS), n=st.integers(1, 6),
          size=st.integers(0, 900), correl=st.sampled_from(CORRELS), back=st.integers(0, 30),
          expiry=st.none() | st.floats(1.0, 2e9))
    def spill(self, queue: str, prio: int, n: int, size: int, correl: bytes, back: int,
              expiry: float | None) -> None:
        rows = []
        for _ in range(n):
            # Mostly new positions; sometimes an older one not in the log (a late commit, a new
            # layout that sends memory's messages out).
            seq = self.next
            self.next += 1
            if back and back < seq and seq - back not in self.model and back % 3 == 0:
                seq -= back
            body = bytes([seq % 251]) * size
            rows.append((seq, prio, _md(seq, prio, correl), body, expiry))
            self.model[seq] = (queue, prio, rows[-1][2], body, expiry)
        self.log.spill(queue, rows)

    @rule(data=st.data(), size=st.integers(0, 900))
    def spill_again(self, data: st.DataObject, size: int) -> None:
        """A position spilled while it is in the log (a new layout sends a message out again):
        the later record stays, in the same place."""
        if not self.model:
            return
        seq = data.draw(st.sampled_from(sorted(self.model)))
        queue, prio, md, _body, expiry = self.model[seq]
        body = bytes([(seq + 1) % 251]) * size
        self.model[seq] = (queue, prio, md, body, expiry)
        self.log.spill(queue, [(seq, prio, md, body, expiry)])

    @rule(queue=st.sampled_from(QUEUES), prios=st.sampled_from([(0,), (4,), (9,), PRIOS]),
          after=st.integers(0, 400), limit=st.integers(1, 10), bounded=st.booleans())
    def page(self, queue: str, prios: tuple[int, ...], after: int, limit: int, bounded: bool) -> None:
        before = after + 20 if bounded else None
        got = sorted((r for run in self.log.page(queue, prios, after, before, limit) for r in run),
                     key=lambda r: r.seq)
        for prio in prios:
            want = [s for s in self._lane(queue, (prio,)) if s > after and (before is None or s < before)][:limit]
            assert [r.seq for r in got if self.model[r.seq][1] == prio] == want
        for r in got:
            _q, _p, md, body, expiry = self.model[r.seq]
            assert (r.md, r.body, r.expiry_at, r.persistent) == (md, body, expiry, False)

    @rule(queue=st.sampled_from(QUEUES), correl=st.sampled_from(CORRELS[1:]), after=st.integers(0, 300))
    def find(self, queue: str, correl: bytes, after: int) -> None:
        runs = self.log.find(queue, PRIOS, after, 1, correl, 1000)
        got = sorted(r.seq for run in runs for r in run if r.md[MD.field_slice("CorrelId")] == correl)
        assert got == [s for s in self._lane(queue, PRIOS) if s > after and self.model[s][2][MD.field_slice("CorrelId")] == correl]

    @rule(queue=st.sampled_from(QUEUES), after=st.integers(0, 300), span=st.integers(1, 100))
    def last_below(self, queue: str, after: int, span: int) -> None:
        gone = {s for s in self.model if s % 7 == 0}
        want = [s for s in self._lane(queue, PRIOS) if after < s < after + span and s not in gone]
        assert self.log.last_below(queue, PRIOS, after, after + span, gone) == (want[-1] if want else None)

    @rule(data=st.data())
    def unspill(self, data: st.DataObject) -> None:
        if not self.model:
            return
        seq = data.draw(st.sampled_from(sorted(self.model)))
        queue, prio = self.model.pop(seq)[:2]
        self.log.unspill(queue, prio, [seq])

    @rule(queue=st.sampled_from(QUEUES), prios=st.sampled_from([(0,), (9,), PRIOS]), count=st.integers(1, 12))
    def page_in(self, queue: str, prios: tuple[int, ...], count: int) -> None:
        """What the queue does when it reads the front of a lane into memory."""
        lane = self._lane(queue, prios)
        if not lane:
            return
        upto = lane[min(count, len(lane)) - 1]
        self.log.unspill_range(queue, prios, 0, upto)
        for s in lane:
            if s <= upto:
                del self.model[s]

    @rule(queue=st.sampled_from(QUEUES))
    def unspill_queue(self, queue: str) -> None:
        self.log.unspill_queue(queue)
        self.model = {s: r for s, r in self.model.items() if r[0] != queue}

    @invariant()
    def counted(self) -> None:
        assert self.log.live == len(self.model)
        for q in QUEUES:
            want: dict[int, int] = {}
            for r in self.model.values():
                if r[0] == q:
                    want[r[1]] = want.get(r[1], 0) + 1
            assert self.log.counts(q) == want

    @invariant()
    def segments_reclaimed(self) -> None:
        # A segment with nothing on a queue is deleted (or, the current one, rewound).
        files = self.log.files()
        assert all(os.path.exists(f) for f in files)
        if not self.model:
            assert len(files) <= 1


class PlacingMachine(ScratchMachine):
    ratio = 0                           # every late row put in its place


class SortingMachine(ScratchMachine):
    ratio = 10**9                       # every late row appended and its lane sorted


TestScratchLog = ScratchMachine.TestCase
TestScratchLog.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)
TestScratchLogPlacing = PlacingMachine.TestCase
TestScratchLogPlacing.settings = settings(max_examples=100, stateful_step_count=40, deadline=None)
TestScratchLogSorting = SortingMachine.TestCase
TestScratchLogSorting.settings = settings(max_examples=100, stateful_step_count=40, deadline=None)


def test_a_drained_log_keeps_no_segment_but_the_current_one_and_reads_unwritten_records() -> None:
    log = ScratchLog()
    try:
        big = b"y" * 3000
        log.spill("Q", [(i, 0, _md(i, 0, CORRELS[0]), big, None) for i in range(1, 40)])
        assert len(log.files()) >= 20                      # 16 MiB segments are patched to 4 KiB here
        (run,) = log.page("Q", (0,), 0, None, 100)
        assert [r.seq for r in run] == list(range(1, 40)) and all(r.body == big for r in run)
        log.unspill_range("Q", (0,), 0, 39)
        assert log.live == 0 and len(log.files()) == 1 and log.counts("Q") == {}
    finally:
        log.close()


def test_a_burst_is_written_in_large_writes_and_read_back_a_page_per_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """What makes the spill cheap (issue 33: the SQLite scratch file halved the get rate): 20,000
    1 KiB messages are about 28 MB, written in writes of 512 records (IOV_MAX pieces) or 1 MiB,
    and read back with one read per page of contiguous records — not a statement per message."""
    monkeypatch.setattr(scratch, "SEGMENT", 16 << 20)
    monkeypatch.setattr(scratch, "WRITE_CHUNK", 1 << 20)
    calls = {"pwritev": 0, "pread": 0}
    for name in calls:
        real = getattr(os, name)

        def counted(*a: object, _real: object = real, _name: str = name) -> object:
            calls[_name] += 1
            return _real(*a)  # type: ignore[operator]
        monkeypatch.setattr(os, name, counted)
    log = ScratchLog()
    try:
        body = b"z" * 1024
        for seq in range(1, 20001):
            log.spill("Q", [(seq, 0, _md(seq, 0, CORRELS[0]), body, None)])
        assert calls["pwritev"] <= 45
        after, pages = 0, 0
        while log.live:
            (run,) = log.page("Q", (0,), after, None, 256)
            assert [r.seq for r in run] == list(range(after + 1, after + 1 + len(run)))
            log.unspill_range("Q", (0,), after, run[-1].seq)
            after, pages = run[-1].seq, pages + 1
        assert pages == 79 and calls["pread"] <= pages + 2     # a page may straddle two segments
    finally:
        log.close()


def test_a_short_write_of_records_is_finished_not_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a disk filling up, ``pwritev`` writes what fits and says so. Records written after a
    short write used to start where the short one ended, every offset after it wrong; the rest
    of the write is made first (and a write that takes nothing fails with ENOSPC)."""
    real = os.pwritev
    calls = {"n": 0}

    def filling(fd: int, parts: list[bytes], at: int) -> int:
        calls["n"] += 1
        if calls["n"] % 2:                                         # every other write: a third of it fits
            data = b"".join(parts)
            return os.pwrite(fd, data[:max(1, len(data) // 3)], at)
        return real(fd, parts, at)
    monkeypatch.setattr(os, "pwritev", filling)
    log = ScratchLog()
    try:
        bodies = {seq: bytes([seq % 251]) * (100 + seq % 700) for seq in range(1, 3001)}
        for seq in range(1, 3001):
            log.spill("Q", [(seq, 0, _md(seq, 0, CORRELS[0]), bodies[seq], None)])
        (run,) = log.page("Q", (0,), 0, None, 5000)
        assert [(r.seq, r.body) for r in run] == sorted(bodies.items())
        assert calls["n"] >= 2
    finally:
        log.close()

    def full(fd: int, parts: list[bytes], at: int) -> int:
        return 0
    monkeypatch.setattr(os, "pwritev", full)
    log = ScratchLog()
    try:
        with pytest.raises(OSError):
            for seq in range(1, 3001):
                log.spill("Q", [(seq, 0, _md(seq, 0, CORRELS[0]), b"z" * 1024, None)])
            log.page("Q", (0,), 0, None, 10)                       # (a read flushes what waits)
    finally:
        log.close()
