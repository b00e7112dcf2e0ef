"""MQGMO_CONVERT through the client faces (issue 68): pymqi and the asyncio face, with and without
read-ahead. A message held by read-ahead that would convert is given back and got by the queue
manager's MQGET (which converts: tests/engine/test_convert.py), so messages keep their order and a
queue whose messages are already in the CCSID asked for keeps read-ahead's speed."""
from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from mqlite import aio, pymqi
from mqlite.pymqi import CMQC as C
from mqlite.testing import Harness

TEXTS = ["Grüße", "aus", "Köln", "und", "Zürich"]


@pytest.fixture(scope="module")
def qm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    h = Harness(str(tmp_path_factory.mktemp("convert")), channel="APP.SVRCONN")
    try:
        yield h.add("CVQM", "DEFINE QLOCAL(PLAIN.Q) DEFREADA(NO)\nDEFINE QLOCAL(AHEAD.Q) DEFREADA(YES)\n")
    finally:
        h.close()


def fill(qm: Any, queue: str) -> None:
    """Every other message in CCSID 500 (EBCDIC), the rest in UTF-8."""
    c = qm.client()
    q = pymqi.Queue(c, queue, C.MQOO_OUTPUT)
    for i, t in enumerate(TEXTS):
        ccsid = 500 if i % 2 == 0 else 1208
        q.put(t.encode("cp500" if ccsid == 500 else "utf-8"), pymqi.MD(Format=C.MQFMT_STRING, CodedCharSetId=ccsid))
    c.disconnect()


@pytest.mark.parametrize("queue", ["PLAIN.Q", "AHEAD.Q"])
def test_pymqi_gets_text_in_the_ccsid_it_asks_for_in_order(qm: Any, queue: str) -> None:
    fill(qm, queue)
    c = qm.client()
    q = pymqi.Queue(c, queue, C.MQOO_INPUT_SHARED)
    got = []
    for _ in TEXTS:
        md = pymqi.MD(CodedCharSetId=1208)
        body = q.get(None, md, pymqi.GMO(Options=C.MQGMO_CONVERT | C.MQGMO_NO_SYNCPOINT))
        got.append((body.decode("utf-8"), md.CodedCharSetId))
    assert got == [(t, 1208) for t in TEXTS]
    with pytest.raises(pymqi.MQMIError) as e:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_CONVERT | C.MQGMO_NO_SYNCPOINT))
    assert e.value.reason == C.MQRC_NO_MSG_AVAILABLE
    c.disconnect()


def test_pymqi_without_convert_gets_the_data_as_put(qm: Any) -> None:
    fill(qm, "AHEAD.Q")
    c = qm.client()
    q = pymqi.Queue(c, "AHEAD.Q", C.MQOO_INPUT_SHARED)
    md = pymqi.MD()
    assert q.get(None, md) == TEXTS[0].encode("cp500") and md.CodedCharSetId == 500
    for _ in TEXTS[1:]:
        q.get()
    c.disconnect()


def test_a_warning_comes_with_the_data_unconverted(qm: Any) -> None:
    c = qm.client()
    q = pymqi.Queue(c, "PLAIN.Q", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_INQUIRE)
    q.put(b"abc", pymqi.MD(Format=C.MQFMT_STRING, CodedCharSetId=500))
    md = pymqi.MD(CodedCharSetId=4242)
    with pytest.raises(pymqi.MQMIError) as e:
        q.get(None, md, pymqi.GMO(Options=C.MQGMO_CONVERT))
    assert (e.value.comp, e.value.reason, md.CodedCharSetId) == (C.MQCC_WARNING, C.MQRC_TARGET_CCSID_ERROR, 500)
    assert q.inquire(C.MQIA_CURRENT_Q_DEPTH) == 0
    c.disconnect()


def test_the_asyncio_face_converts_held_messages_too(qm: Any) -> None:
    fill(qm, "AHEAD.Q")

    async def main() -> list[tuple[str, int]]:
        conn = await aio.connect(qm.name, "APP.SVRCONN", f"127.0.0.1({qm.port})")
        q = await conn.open("AHEAD.Q")
        out = []
        for _ in TEXTS:
            m = await q.get(wait=5, gmo=pymqi.GMO(Options=C.MQGMO_CONVERT))
            out.append((m.body.decode("utf-8"), m.md.CodedCharSetId))
        await conn.close()
        return out
    assert asyncio.run(main()) == [(t, 1208) for t in TEXTS]
