"""The asyncio face over TLS: persistent puts answered after their fsync, held gets acknowledged,
a waiting get cancelled (CANCEL read from the TLS stream), and a CipherSpec mismatch answered
with 2393 as pymqi's is."""
from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest

from mqlite import aio
from mqlite.cmq import CMQC as C
from tests.server.test_tls import PKI


@pytest.mark.mq_fresh
def test_tls_persistent_held_gets_and_cancel(mq_qmgr: Any, tmp_path: Any) -> None:
    pki = PKI(str(tmp_path))
    server = pki.repo("qm", "QMTLS")
    trust = pki.repo("trust", None)
    mq_qmgr.mqsc(f"ALTER QMGR SSLKEYR('{server}')\nREFRESH SECURITY TYPE(SSL)\nDEFINE QLOCAL(TLS.AQ)\n"
                 "DEFINE CHANNEL(TLS.SVRCONN) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(OPTIONAL)\n"
                 "DEFINE CHANNEL(TLS13.SVRCONN) CHLTYPE(SVRCONN) SSLCIPH(TLS_AES_256_GCM_SHA384) SSLCAUTH(OPTIONAL)")

    async def main() -> None:
        conn = await aio.connect(mq_qmgr.name, "TLS.SVRCONN", mq_qmgr.conname, cipher="ANY_TLS12_OR_HIGHER",
                                 key_repository=trust)
        async with conn:
            q = await conn.open("TLS.AQ")
            for n in range(20):
                await q.put(b"secret %d" % n, aio.MD(Persistence=C.MQPER_PERSISTENT))
            got = [(await q.get(wait=1)).body for _ in range(10)]
            got += [m.body async for m in q.messages(wait=0.2)]
            assert got == [b"secret %d" % n for n in range(20)]
            task = asyncio.create_task(q.get())
            await asyncio.sleep(0.2)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await conn.put1("TLS.AQ", b"after the cancel")
            assert (await q.get(wait=1)).body == b"after the cancel"
        with pytest.raises(aio.MQMIError) as e:
            await aio.connect(mq_qmgr.name, "TLS13.SVRCONN", mq_qmgr.conname, cipher="TLS_AES_128_GCM_SHA256",
                              key_repository=trust)
        assert e.value.reason == C.MQRC_SSL_INITIALIZATION_ERROR
        with pytest.raises(aio.MQMIError) as e:
            await aio.connect(mq_qmgr.name, "TLS.SVRCONN", mq_qmgr.conname, cipher="ANY_TLS12_OR_HIGHER",
                              key_repository=os.path.join(str(tmp_path), "missing"))
        assert e.value.reason == C.MQRC_KEY_REPOSITORY_ERROR
    asyncio.run(asyncio.wait_for(main(), 60))
    assert mq_qmgr.depth("TLS.AQ") == 0
