"""A client's MQPUT as its request carries it (``put_request``: the MQMD and MQPMO packed, a plain
put made on the packed descriptor) against the full path (``put`` with MQMD and MQPMO objects) as
the model: the same reason code or warning, the same answer, the same message stored, for
descriptors and put options of every kind, plain or not."""
from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import MD, PMO
from tests.conftest import Engine

QUEUES = """
DEFINE QLOCAL(Q1)
DEFINE QLOCAL(QD) DEFPRTY(4) DEFPSIST(YES)
DEFINE QALIAS(QA) TARGET(Q1)
DEFINE QLOCAL(QSMALL) MAXMSGL(20)
DEFINE QLOCAL(QFULL) MAXDEPTH(0)
DEFINE QLOCAL(QINH) PUT(DISABLED)
DEFINE QLOCAL(QM2) USAGE(XMITQ)
DEFINE QREMOTE(QR) RNAME(RQ) RQMNAME(QM2)
"""
# The queue each one opened is put to, where its messages are found.
BASE = {"Q1": "Q1", "QD": "QD", "QA": "Q1", "QSMALL": "QSMALL", "QFULL": "QFULL", "QINH": "QINH", "QR": "QM2"}

_descriptors = st.fixed_dictionaries({
    "Version": st.sampled_from([1, 2]),
    "Report": st.sampled_from([0, 0, 0, C.MQRO_COA, C.MQRO_EXCEPTION]),
    "MsgType": st.sampled_from([C.MQMT_DATAGRAM, C.MQMT_REQUEST, C.MQMT_REPLY, 65536]),
    "Expiry": st.sampled_from([C.MQEI_UNLIMITED, 0, -2, 1, 100_000]),
    "Encoding": st.sampled_from([C.MQENC_NATIVE, 273]),
    "CodedCharSetId": st.sampled_from([0, 1208]),
    "Format": st.sampled_from([b"", C.MQFMT_NONE, C.MQFMT_STRING, b"MQSTR", b"AB\0CD", C.MQFMT_RF_HEADER_2]),
    "Priority": st.integers(-2, 11),
    "Persistence": st.integers(-1, 3),
    "MsgId": st.sampled_from([b"", b"\0" * 24, b"ID1", b"X" * 24]),
    "CorrelId": st.sampled_from([b"", b"C1"]),
    "BackoutCount": st.sampled_from([0, 3]),
    "ReplyToQ": st.sampled_from([b"", b" " * 48, b"RQ", b"\0RQ", b"QR"]),
    "ReplyToQMgr": st.sampled_from([b"", b" " * 48, b"QM2", b"QM1", b"QM1\0QM2", b"QM12"]),
    "UserIdentifier": st.sampled_from([b"", b"someone"]),
    "PutApplName": st.sampled_from([b"", b"app"]),
    "GroupId": st.sampled_from([b"", b"G1"]),
    "MsgSeqNumber": st.sampled_from([1, 2]),
    "Offset": st.sampled_from([0, 0, 10]),
    "MsgFlags": st.sampled_from([0, 0, C.MQMF_SEGMENTATION_ALLOWED, C.MQMF_MSG_IN_GROUP]),
})
_OPTIONS = [C.MQPMO_SYNCPOINT, C.MQPMO_NO_SYNCPOINT, C.MQPMO_NEW_MSG_ID, C.MQPMO_NEW_CORREL_ID,
            C.MQPMO_FAIL_IF_QUIESCING, C.MQPMO_DEFAULT_CONTEXT, C.MQPMO_SET_ALL_CONTEXT, C.MQPMO_NO_CONTEXT,
            C.MQPMO_SYNC_RESPONSE, C.MQPMO_LOGICAL_ORDER]
_options = st.sets(st.sampled_from(_OPTIONS), max_size=3).map(sum)


def _engine() -> tuple[Engine, dict[str, int]]:
    e = Engine()
    e.mqsc(QUEUES)
    e.qm.ids._counter = itertools.count(1)      # the same identifiers on both engines
    opts = C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT
    return e, {name: e.open(name, opts)[0].hobj for name in BASE}


def _outcome(e: Engine, hobj: int, packed: bool, md: bytes, pmo: bytes, body: bytes) -> tuple:
    try:
        if packed:
            warning, answer = e.qm.put_request(e.conn, hobj, md, pmo, body)
        else:
            md_, pmo_ = MD.from_bytes(md), PMO.from_bytes(pmo)
            warning = e.qm.put(e.conn, hobj, md_, pmo_, body)
            answer = md_.pack() + pmo_.pack()
    except MQIError as err:
        return ("failed", err.reason)
    return ("put", warning, answer)


def _stored(e: Engine, queue: str) -> list[tuple[bytes, bytes]]:
    """Every message on ``queue`` (got, so the next example starts empty): its descriptor and data."""
    e.qm.commit(e.conn)
    h = e.open(queue, C.MQOO_INPUT_SHARED)[0]
    out = []
    while True:
        try:
            got = e.get(h.hobj)
        except MQIError as err:
            assert err.reason == C.MQRC_NO_MSG_AVAILABLE
            break
        out.append((got.md.pack(), got.body))
    e.qm.close(e.conn, h.hobj)
    return out


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(list(BASE)), _descriptors, _options, st.binary(max_size=40)),
                min_size=1, max_size=4))
def test_a_put_on_the_packed_request_is_the_full_put(puts):
    model, model_h = _engine()
    packed, packed_h = _engine()
    for queue, fields, options, body in puts:
        md, pmo = MD(**fields).pack(), PMO(Options=options).pack()
        expected = _outcome(model, model_h[queue], False, md, pmo, body)
        assert _outcome(packed, packed_h[queue], True, md, pmo, body) == expected, (queue, fields, options)
    for queue in {BASE[q] for q, *_ in puts}:
        assert _stored(packed, queue) == _stored(model, queue), queue


def test_a_plain_put_is_made_on_the_packed_descriptor(eng: Engine, monkeypatch):
    """The common put takes the packed path (no MQMD object is made for it), and what it stores
    and answers is what MQ's rules give: the queue's defaults, a new MsgId, the context."""
    eng.mqsc("DEFINE QLOCAL(QD) DEFPRTY(4) DEFPSIST(YES)")
    h, _ = eng.open("QD", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    monkeypatch.setattr(MD, "from_bytes", None)          # the full path would fail on it
    warning, answer = eng.qm.put_request(eng.conn, h.hobj, MD().pack(), PMO().pack(), b"x")
    monkeypatch.undo()
    assert warning == C.MQRC_NONE
    md_out = MD.from_bytes(answer[:len(MD().pack())])
    pmo_out = PMO.from_bytes(answer[len(MD().pack()):])
    assert md_out.MsgId[:4] == b"AMQ " and md_out.Priority == C.MQPRI_PRIORITY_AS_Q_DEF
    assert md_out.ReplyToQMgr.rstrip() == b"QM1" and md_out.PutApplName.rstrip() == b"pytest"
    assert pmo_out.ResolvedQName.rstrip() == b"QD"
    got = eng.get(h.hobj)
    assert (got.md.Priority, got.md.Persistence, got.md.Version) == (4, C.MQPER_PERSISTENT, C.MQMD_VERSION_2)
    assert got.md.MsgId == md_out.MsgId and got.md.UserIdentifier.rstrip() == b"tester"
    assert got.md.Format == C.MQFMT_NONE and got.md.ReplyToQ == b" " * 48
    # The answered descriptor put again (its ReplyToQMgr now this queue manager's name, as an
    # application reusing its MQMD sends it): still the packed path.
    again = bytearray(answer[:len(MD().pack())])
    again[MD.field_slice("MsgId")] = b"\0" * 24
    monkeypatch.setattr(MD, "from_bytes", None)
    assert eng.qm.put_request(eng.conn, h.hobj, bytes(again), PMO().pack(), b"y")[0] == C.MQRC_NONE
    monkeypatch.undo()
    assert eng.get(h.hobj).md.ReplyToQMgr.rstrip() == b"QM1"
