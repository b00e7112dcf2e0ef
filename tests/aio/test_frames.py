"""The asyncio face's frame reader against a simple model: however the bytes of a stream of answers
and heartbeats are cut up, each answer goes to its call in order, each heartbeat is answered once,
and an answer to a call that was cancelled goes to the call's ``late`` handler."""
from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite.aio.wire import Wire
from mqlite.net import protocol as P


class FakeTransport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.written: list[bytes] = []
        self.closed = False

    def write(self, data: Any) -> None:
        self.written.append(bytes(data))

    def close(self) -> None:
        self.closed = True


frames = st.lists(st.one_of(st.binary(max_size=300).map(lambda b: ("answer", b)), st.just(("heartbeat", b""))),
                  max_size=30)


@settings(max_examples=150, deadline=None)
@given(frames, st.lists(st.integers(min_value=1, max_value=64), min_size=1, max_size=20),
       st.sets(st.integers(min_value=0, max_value=29)))
def test_answers_reach_their_calls_however_the_bytes_are_cut(stream: list[tuple[str, bytes]], cuts: list[int],
                                                             cancelled: set[int]) -> None:
    async def main() -> None:
        wire = Wire()
        transport = FakeTransport()
        wire.connection_made(transport)
        answers = [payload for kind, payload in stream if kind == "answer"]
        late: list[tuple[int, bytes | None]] = []
        futures = []
        for i in range(len(answers)):
            fut = wire.post(P.GET, b"", lambda reply, i=i: late.append((i, reply)))
            if i in cancelled:
                fut.cancel()
            futures.append(fut)
        data = b"".join(P.frame(P.GET | P.REPLY if kind == "answer" else P.HEARTBEAT, payload)
                        for kind, payload in stream)
        pos, turn = 0, 0
        while pos < len(data):
            step = cuts[turn % len(cuts)]
            wire.data_received(data[pos:pos + step])
            pos += step
            turn += 1
        for i, (fut, payload) in enumerate(zip(futures, answers)):
            if i in cancelled:
                assert fut.cancelled()
            else:
                assert fut.result() == payload
        assert late == [(i, answers[i]) for i in range(len(answers)) if i in cancelled]
        heartbeats = sum(1 for kind, _ in stream if kind == "heartbeat")
        requests = len(answers)
        assert transport.written.count(P.frame(P.HEARTBEAT | P.REPLY, b"")) == heartbeats
        assert len(transport.written) == requests + heartbeats
        assert wire.error is None and not wire.pending
    asyncio.run(main())


def test_an_answer_nobody_asked_for_breaks_the_connection() -> None:
    async def main() -> None:
        wire = Wire()
        transport = FakeTransport()
        wire.connection_made(transport)
        fut = wire.post(P.OPEN, b"")
        wire.data_received(P.frame(P.PUT | P.REPLY, b"\0" * 8))   # the wrong type
        assert wire.error is not None and wire.error.reason == 2009 and transport.closed
        assert fut.exception() is wire.error
        wire.data_received(P.frame(P.HEARTBEAT, b""))              # after the break: nothing more
    asyncio.run(main())
