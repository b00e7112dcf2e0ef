"""The asyncio face against real queue managers: puts and gets over a client channel and local
bindings, persistence x syncpoint, waits, ``async for`` read-ahead and its bounds, units of work,
subscriptions, and cancellation, which must leave every message either handed over or on its queue."""
from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import time
from typing import Any

import pytest

from mqlite import aio
from mqlite.cmq import CMQC as C

N = 20


def run(coro: Any, limit: float = 60.0) -> Any:
    return asyncio.run(asyncio.wait_for(coro, limit))


async def client(qm: Any) -> aio.Connection:
    conn: aio.Connection = await qm.aio_connect()
    return conn


async def connect(qm: Any, transport: str) -> aio.Connection:
    return await (client(qm) if transport == "client" else aio.connect(qm.name))


def pymqi_get(qm: Any, queue: str, wait_ms: int = 2000) -> bytes | None:
    """One message through the pymqi face (another consumer), or None when none came."""
    from mqlite import pymqi
    qmgr = qm.connect()
    try:
        q = pymqi.Queue(qmgr, queue, C.MQOO_INPUT_SHARED)
        gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=wait_ms)
        try:
            return bytes(q.get(None, pymqi.MD(), gmo))
        except pymqi.MQMIError as e:
            assert e.reason == C.MQRC_NO_MSG_AVAILABLE
            return None
        finally:
            q.close()
    finally:
        qmgr.disconnect()


@pytest.mark.parametrize("transport", ["client", "bindings"])
@pytest.mark.parametrize("persistent", [False, True])
@pytest.mark.parametrize("syncpoint", [False, True])
def test_put_get_in_order(mq_qmgr: Any, transport: str, persistent: bool, syncpoint: bool) -> None:
    mq_qmgr.mqsc("DEFINE QLOCAL(AIO.Q)")

    async def main() -> None:
        async with await connect(mq_qmgr, transport) as conn:
            q = await conn.open("AIO.Q")
            ids = []
            for i in range(N):
                md = await q.put(b"m%d" % i, aio.MD(Persistence=int(persistent)), syncpoint=syncpoint)
                ids.append(md.MsgId)
            if syncpoint:
                assert await asyncio.to_thread(pymqi_get, mq_qmgr, "AIO.Q", 0) is None   # not before MQCMIT
                await conn.commit()
            assert mq_qmgr.depth("AIO.Q") == N
            got = [await q.get(wait=1, syncpoint=syncpoint) for _ in range(N)]
            assert [m.body for m in got] == [b"m%d" % i for i in range(N)]
            assert [m.md.MsgId for m in got] == ids
            assert {m.md.Persistence for m in got} == {int(persistent)}
            if syncpoint:
                await conn.backout()                        # the gets undone: all back, in order
                assert mq_qmgr.depth("AIO.Q") == N
                again = [await q.get(wait=1, syncpoint=True) for _ in range(N)]
                assert [m.md.BackoutCount for m in again] == [1] * N
                await conn.commit()
            with pytest.raises(aio.MQMIError) as e:
                await q.get(wait=0)
            assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE
    run(main())
    assert mq_qmgr.depth("AIO.Q") == 0


def test_wait_ends_in_time_and_a_put_wakes_it(mq_qmgr: Any) -> None:
    mq_qmgr.mqsc("DEFINE QLOCAL(AIO.W)")

    async def main() -> None:
        async with await client(mq_qmgr) as conn, await client(mq_qmgr) as other:
            q = await conn.open("AIO.W")
            t = time.monotonic()
            with pytest.raises(aio.MQMIError) as e:
                await q.get(wait=0.3)
            assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE and 0.28 <= time.monotonic() - t < 2
            waiting = asyncio.create_task(q.get())
            await asyncio.sleep(0.2)
            assert not waiting.done()
            await other.put1("AIO.W", b"wake")
            assert (await asyncio.wait_for(waiting, 5)).body == b"wake"
    run(main())


@pytest.mark.parametrize("how", ["cancel", "timeout"])
@pytest.mark.parametrize("persistent", [False, True])
@pytest.mark.parametrize("syncpoint", [False, True])
def test_cancelled_get_takes_nothing(mq_qmgr: Any, how: str, persistent: bool, syncpoint: bool) -> None:
    """A waiting get cancelled (or timed out by asyncio): the queue manager stops waiting at once,
    so the next message goes to another consumer, and the connection goes on working."""
    mq_qmgr.mqsc("DEFINE QLOCAL(AIO.C)")

    async def main() -> None:
        async with await client(mq_qmgr) as conn:
            q = await conn.open("AIO.C")
            if how == "cancel":
                task = asyncio.create_task(q.get(syncpoint=syncpoint))
                await asyncio.sleep(0.1)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
            else:
                with pytest.raises(asyncio.TimeoutError):
                    await asyncio.wait_for(q.get(syncpoint=syncpoint), 0.1)
            await conn.put1("AIO.C", b"for-the-other", aio.MD(Persistence=int(persistent)))
            assert await asyncio.to_thread(pymqi_get, mq_qmgr, "AIO.C") == b"for-the-other"
            await q.put(b"still-works")
            assert (await q.get(wait=1)).body == b"still-works"
    run(main())
    assert mq_qmgr.depth("AIO.C") == 0


@pytest.mark.parametrize("persistent", [False, True])
@pytest.mark.parametrize("syncpoint", [False, True])
def test_cancel_racing_delivery_loses_nothing(mq_qmgr: Any, persistent: bool, syncpoint: bool) -> None:
    """Cancel as the message arrives, many times: each message is either the task's or on the queue."""
    mq_qmgr.mqsc("DEFINE QLOCAL(AIO.R)")
    rounds = 40
    rng = random.Random(7)

    async def main() -> tuple[int, int]:
        got = 0
        async with await client(mq_qmgr) as conn, await client(mq_qmgr) as producer:
            q = await conn.open("AIO.R")
            for i in range(rounds):
                task = asyncio.create_task(q.get(syncpoint=syncpoint))
                await asyncio.sleep(0.002)
                put = asyncio.create_task(producer.put1("AIO.R", b"r%d" % i, aio.MD(Persistence=int(persistent))))
                await asyncio.sleep(rng.choice([0, 0, 0.0002, 0.0005, 0.001, 0.002, 0.005]))
                task.cancel()
                await put
                try:
                    await task
                    got += 1
                except asyncio.CancelledError:
                    pass
                if syncpoint:
                    await conn.commit()
            return got, mq_qmgr.depth("AIO.R")
    got, depth = run(main())
    assert got + depth == rounds
    assert 0 < depth and 0 < got         # both happened: cancelled before delivery, and delivered


def test_async_for_read_ahead_is_bounded_and_given_back(mq_qmgr: Any) -> None:
    mq_qmgr.mqsc("DEFINE QLOCAL(AIO.F)")
    total = 500

    async def main() -> None:
        async with await client(mq_qmgr) as conn:
            q = await conn.open("AIO.F")
            for i in range(total):
                await q.put(b"f%03d" % i)
            seen = []
            async with contextlib.aclosing(q.messages(read_ahead=32)) as messages:
                async for m in messages:
                    seen.append(m.body)
                    if len(seen) == 1:
                        # backpressure: no more than a read-ahead batch is off the queue
                        assert mq_qmgr.depth("AIO.F") >= total - 32
                    if len(seen) == 100:
                        break
            assert seen == [b"f%03d" % i for i in range(100)]
            assert mq_qmgr.depth("AIO.F") == total - 100     # the ones held went back
            rest = [m.body async for m in q.messages(wait=0.2)]
            assert rest == [b"f%03d" % i for i in range(100, total)]
    run(main())


def test_async_for_cancelled_gives_back(mq_qmgr: Any) -> None:
    """A task iterating with ``async for`` cancelled in its loop body: the generator is closed and
    the messages held for it go back to the queue, in order."""
    mq_qmgr.mqsc("DEFINE QLOCAL(AIO.G)")

    async def main() -> None:
        async with await client(mq_qmgr) as conn:
            q = await conn.open("AIO.G")
            for i in range(50):
                await q.put(b"g%02d" % i)
            seen: list[bytes] = []

            async def consume() -> None:
                async for m in q:
                    seen.append(m.body)
                    await asyncio.sleep(0.01 if len(seen) < 5 else 10)
            task = asyncio.create_task(consume())
            await asyncio.sleep(0.3)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            for _ in range(20):
                await asyncio.sleep(0.01)
                if mq_qmgr.depth("AIO.G") == 50 - len(seen):
                    break
            assert len(seen) == 5
            assert mq_qmgr.depth("AIO.G") == 45
            assert (await q.get(wait=1)).body == b"g05"
    run(main())


def test_unit_of_work_commits_and_backs_out(mq_qmgr: Any) -> None:
    mq_qmgr.mqsc("DEFINE QLOCAL(AIO.U)")

    async def main() -> None:
        async with await client(mq_qmgr) as conn:
            q = await conn.open("AIO.U")
            async with conn.unit_of_work():
                await q.put(b"a")
                await q.put(b"b")
                assert await asyncio.to_thread(pymqi_get, mq_qmgr, "AIO.U", 0) is None
            assert mq_qmgr.depth("AIO.U") == 2
            with pytest.raises(RuntimeError):
                async with conn.unit_of_work():
                    assert (await q.get(wait=1)).body == b"a"
                    await q.put(b"c")
                    raise RuntimeError("undo")
            assert mq_qmgr.depth("AIO.U") == 2
            msg = await q.get(wait=1)
            assert (msg.body, msg.md.BackoutCount) == (b"a", 1)

            async def unit_cancelled() -> None:
                async with conn.unit_of_work():
                    await q.get(wait=1)               # b
                    await q.put(b"d")
                    await asyncio.sleep(10)
            task = asyncio.create_task(unit_cancelled())
            await asyncio.sleep(0.2)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert mq_qmgr.depth("AIO.U") == 1               # b back, d never put
            with pytest.raises(aio.MQMIError) as e:
                async with conn.unit_of_work():
                    async with conn.unit_of_work():
                        pass
            assert e.value.reason == C.MQRC_UOW_IN_PROGRESS
    run(main())


def test_async_for_under_syncpoint_leaves_the_rest(mq_qmgr: Any) -> None:
    mq_qmgr.mqsc("DEFINE QLOCAL(AIO.S) DEFREADA(YES)")

    async def main() -> None:
        async with await client(mq_qmgr) as conn:
            q = await conn.open("AIO.S")
            for i in range(10):
                await q.put(b"s%d" % i, aio.MD(Persistence=1))
            async with conn.unit_of_work():
                async with contextlib.aclosing(q.messages()) as messages:
                    async for m in messages:
                        if m.body == b"s2":
                            break
            assert mq_qmgr.depth("AIO.S") == 7
            assert (await q.get(wait=1)).body == b"s3"
    run(main())


def test_subscriptions(mq_qmgr: Any) -> None:
    async def main() -> None:
        async with await client(mq_qmgr) as conn, await client(mq_qmgr) as pub:
            topic = await pub.open_topic("aio/prices/x")
            sub = await conn.subscribe("aio/prices/#")
            await topic.put(b"p1")
            assert (await sub.get(wait=2)).body == b"p1"
            durable = await conn.subscribe("aio/prices/#", name="AIO.DUR", durable=True)
            await durable.close()                        # stays, and collects what is published
            await topic.put(b"p2")
            assert (await sub.get(wait=2)).body == b"p2"
            await sub.close()
            again = await conn.subscribe("aio/prices/#", name="AIO.DUR", durable=True)
            assert [m.body async for m in again.messages(wait=0.3)] == [b"p2"]
            await again.close(remove=True)
        assert mq_qmgr.mqsc("DISPLAY SUB(AIO.DUR)", check=False) == []
    run(main())


def test_many_consumers_on_one_loop(mq_qmgr: Any) -> None:
    """80 tasks, each with its own connection (MaxChannels is 100), waiting on one queue: every
    message once."""
    mq_qmgr.mqsc("DEFINE QLOCAL(AIO.M)")
    consumers, total = 80, 1000

    async def main() -> list[bytes]:
        conns = await asyncio.gather(*(client(mq_qmgr) for _ in range(consumers)))
        got: list[bytes] = []
        done = asyncio.Event()

        async def consume(conn: aio.Connection) -> None:
            q = await conn.open("AIO.M")
            while True:
                m = await q.get()
                got.append(m.body)
                if len(got) == total:
                    done.set()
        tasks = [asyncio.create_task(consume(c)) for c in conns]
        await asyncio.sleep(0.3)
        async with await client(mq_qmgr) as producer:
            q = await producer.open("AIO.M", C.MQOO_OUTPUT)
            for i in range(total):
                await q.put(b"%04d" % i)
        await asyncio.wait_for(done.wait(), 30)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*(c.close() for c in conns))
        return got
    got = run(main())
    assert sorted(got) == [b"%04d" % i for i in range(total)]
    assert mq_qmgr.depth("AIO.M") == 0


def test_async_put_backpressure(mq_qmgr: Any) -> None:
    """Asynchronous puts to a queue manager that stops reading wait on the socket's buffer: the
    task blocks instead of the process buffering without end; all arrive when it reads again."""
    mq_qmgr.mqsc("DEFINE QLOCAL(AIO.B) DEFPRESP(ASYNC) MAXDEPTH(100000)")
    body = b"x" * 65536
    total = 400                                   # 26 MB: far beyond the socket buffers

    async def main() -> None:
        async with await client(mq_qmgr) as conn:
            q = await conn.open("AIO.B", C.MQOO_OUTPUT)
            sent = 0

            async def produce() -> None:
                nonlocal sent
                for _ in range(total):
                    await q.put(body)
                    sent += 1
            pid = mq_qmgr.qm.pid()
            os.kill(pid, signal.SIGSTOP)
            try:
                task = asyncio.create_task(produce())
                await asyncio.sleep(1.0)
                assert not task.done() and sent < total
                transport = conn._wire.transport
                assert transport is not None and transport.get_write_buffer_size() < 2 * 1024 * 1024
            finally:
                os.kill(pid, signal.SIGCONT)
            await asyncio.wait_for(task, 30)
            await asyncio.sleep(0.2)
    run(main())
    for _ in range(50):
        if mq_qmgr.depth("AIO.B") == total:
            break
        time.sleep(0.1)
    assert mq_qmgr.depth("AIO.B") == total


def test_selector_queue_is_read_with_plain_gets(mq_qmgr: Any) -> None:
    """A selector: no held gets (OPEN_HOLD not given); a cancelled wait still ends on the queue
    manager at once."""
    mq_qmgr.mqsc("DEFINE QLOCAL(AIO.SEL)")

    async def main() -> None:
        async with await client(mq_qmgr) as conn:
            od = aio.OD(ObjectName=b"AIO.SEL", Version=4)
            od.set_vs("SelectionString", b"JMSPriority > 4")
            q = await conn.open(od, C.MQOO_INPUT_SHARED)
            assert not q.holds
            task = asyncio.create_task(q.get())
            await asyncio.sleep(0.1)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await conn.put1("AIO.SEL", b"low", aio.MD(Priority=1))
            await conn.put1("AIO.SEL", b"high", aio.MD(Priority=9))
            assert (await q.get(wait=1)).body == b"high"
            assert await asyncio.to_thread(pymqi_get, mq_qmgr, "AIO.SEL") == b"low"
    run(main())


def test_heartbeats_keep_an_idle_connection(mq_qmgr: Any) -> None:
    mq_qmgr.mqsc("DEFINE CHANNEL(AIO.HB) CHLTYPE(SVRCONN) HBINT(1)")

    async def main() -> None:
        async with await aio.connect(mq_qmgr.name, "AIO.HB", mq_qmgr.conname) as conn:
            await asyncio.sleep(3.5)                     # three heartbeats asked and answered
            assert conn.connected
            await conn.put1("SYSTEM.DEFAULT.LOCAL.QUEUE", b"alive")
            q = await conn.open("SYSTEM.DEFAULT.LOCAL.QUEUE")
            assert (await q.get(wait=1)).body == b"alive"
    run(main())


@pytest.mark.mq_fresh
def test_kill9_breaks_waits_and_keeps_held_persistent_messages(mq_qmgr: Any) -> None:
    mq_qmgr.mqsc("DEFINE QLOCAL(AIO.K) DEFPSIST(YES)\nDEFINE QLOCAL(AIO.K2) DEFPSIST(YES)")

    async def before() -> None:
        conn = await client(mq_qmgr)
        q = await conn.open("AIO.K")
        for i in range(10):
            await q.put(b"k%d" % i)
        it = q.messages(read_ahead=8)                 # kept referenced: what it holds stays held
        taken = [(await it.__anext__()).body for _ in range(3)]
        assert taken == [b"k0", b"k1", b"k2"]
        await conn.put1("AIO.K2", b"sync")            # answered after the acknowledgements' journal
        other = await client(mq_qmgr)
        waiting = asyncio.create_task((await other.open("SYSTEM.DEFAULT.LOCAL.QUEUE")).get())
        await asyncio.sleep(0.2)
        mq_qmgr.kill()
        with pytest.raises(aio.MQMIError) as e:
            await asyncio.wait_for(waiting, 5)
        assert e.value.reason == C.MQRC_CONNECTION_BROKEN
        with pytest.raises(aio.MQMIError) as e:
            await q.put(b"after")
        assert e.value.reason == C.MQRC_CONNECTION_BROKEN
        await conn.close()
        await other.close()
        del it
    run(before())
    mq_qmgr.restart()
    # the three handed over were acknowledged (their removal journalled); the ones held ahead
    # and never handed over were not, and are back after the restart
    assert mq_qmgr.depth("AIO.K") == 7


def test_str_bodies_and_maxmsgl_as_the_pymqi_face(mq_qmgr: Any) -> None:
    """A str is MQSTR in CCSID 1208, and data beyond the channel's MAXMSGL is 2010 before it is
    sent (the connection goes on), as the pymqi face answers."""
    mq_qmgr.mqsc("DEFINE QLOCAL(AIO.STR)\nDEFINE CHANNEL(AIO.SMALL) CHLTYPE(SVRCONN) MAXMSGL(4096)")

    async def main() -> None:
        async with await aio.connect(mq_qmgr.name, "AIO.SMALL", mq_qmgr.conname) as conn:
            q = await conn.open("AIO.STR")
            await q.put("héllo")
            m = await q.get(wait=1)
            assert (m.body, m.md.Format, m.md.CodedCharSetId) == ("héllo".encode(), C.MQFMT_STRING, 1208)
            with pytest.raises(aio.MQMIError) as e:
                await q.put(b"x" * 5000)
            assert e.value.reason == C.MQRC_DATA_LENGTH_ERROR
            with pytest.raises(aio.MQMIError) as e:
                await conn.put1("AIO.STR", b"x" * 5000)
            assert e.value.reason == C.MQRC_DATA_LENGTH_ERROR and conn.connected
    run(main())
    assert mq_qmgr.depth("AIO.STR") == 0
