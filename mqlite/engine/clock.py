"""Injected time and identifiers, so tests can move time (expiry, later cluster record ages)."""
from __future__ import annotations

import itertools
import os
import time


def mq_date_time(t: float) -> tuple[str, str]:
    """A time as MQ displays dates and times in MQSC (ALTDATE, CLUSDATE, ...): yyyy-mm-dd, hh.mm.ss."""
    tm = time.localtime(t)
    return time.strftime("%Y-%m-%d", tm), time.strftime("%H.%M.%S", tm)


class Clock:
    """Wall-clock time in seconds since the epoch."""

    def now(self) -> float:
        return time.time()


class OffsetClock(Clock):
    """Wall-clock time plus an offset kept in a file, so several queue-manager processes share one
    clock that tests move forward (``mqlite.testing.Harness.advance_clock``)."""

    def __init__(self, path: str, recheck: float = 0.2) -> None:
        self.path = path
        self.recheck = recheck
        self._offset = 0.0
        self._checked = 0.0

    def now(self) -> float:
        t = time.time()
        if t - self._checked >= self.recheck:
            self._checked = t
            try:
                with open(self.path, encoding="ascii") as f:
                    self._offset = float(f.read().strip() or 0)
            except (OSError, ValueError):
                self._offset = 0.0
        return t + self._offset


class FakeClock(Clock):
    """A clock that moves only when told to."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.t = start

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


class IdGenerator:
    """Unique 24-byte identifiers in MQ's style: b'AMQ ' + 12 bytes of queue-manager name + 8 unique.

    The unique part is a start stamp plus a counter, so identifiers keep growing across restarts.
    """

    def __init__(self, qmgr_name: str, clock: Clock) -> None:
        self.prefix = b"AMQ " + qmgr_name.encode("ascii")[:12].ljust(12, b" ")
        start = (int(clock.now() * 1000) << 20) ^ int.from_bytes(os.urandom(2), "big")
        self._counter = itertools.count(start)

    def next(self) -> bytes:
        return self.prefix + (next(self._counter) & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "big")

    def hex_suffix(self) -> str:
        """A unique suffix for dynamic queue names."""
        return format(next(self._counter) & 0xFFFFFFFFFFFFFFFF, "016X")
