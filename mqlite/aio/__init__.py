"""mqlite's asyncio face: MQ from an event loop, without threads (docs/asyncio.md).

    from mqlite import aio

    async with await aio.connect("QM1", "DEV.APP.SVRCONN", "127.0.0.1(1414)") as conn:
        q = await conn.open("DEV.QUEUE.1")
        await q.put(b"hello")
        msg = await q.get(wait=5)
        async for msg in q:            # read-ahead; leave the loop to stop
            ...
        async with conn.unit_of_work():
            ...

A cancelled get leaves no message taken: the queue manager stops waiting, and a message it had
already sent goes back to the queue in its place. Errors are pymqi's ``MQMIError`` (comp, reason).
"""
from mqlite.aio.conn import Connection, Subscription, connect
from mqlite.aio.queue import FOREVER, Message, Queue
from mqlite.cmq.structs import GMO, MD, OD, PMO
from mqlite.pymqi.errors import MQMIError, PYIFError

__all__ = ["FOREVER", "GMO", "MD", "MQMIError", "OD", "PMO", "PYIFError", "Connection", "Message", "Queue",
           "Subscription", "connect"]
