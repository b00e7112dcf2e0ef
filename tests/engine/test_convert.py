"""MQGET with MQGMO_CONVERT (issue 68: messages in CCSID 500 or 819 came out as they were put):
an MQSTR message's data in the CCSID the MQGET's MQMD asks for, and MQ's warnings when it cannot
be, the data then as it was (cmq/convert.py). Through the engine here; through the client faces,
with and without read-ahead, in tests/pymqi/test_convert.py."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqlite.cmq import CMQC as C
from mqlite.cmq.convert import CODECS, UTF16, codec_of, convert_string
from tests.conftest import Engine

TEXT = "Grüße aus Köln"


@pytest.fixture
def q(eng: Engine) -> tuple[Engine, int]:
    eng.mqsc("DEFINE QLOCAL(Q)")
    h, _ = eng.open("Q", C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    return eng, h.hobj


def put_text(eng: Engine, hobj: int, data: bytes, ccsid: int, fmt: bytes = C.MQFMT_STRING, **md: int) -> None:
    eng.put(hobj, data, Format=fmt, CodedCharSetId=ccsid, **md)


@pytest.mark.parametrize("source", [500, 37, 819, 1252, 850, 1208])
def test_mqstr_data_comes_in_the_ccsid_asked_for(q: tuple[Engine, int], source: int) -> None:
    eng, hobj = q
    put_text(eng, hobj, TEXT.encode(CODECS[source]), source)
    got = eng.get(hobj, C.MQGMO_CONVERT, CodedCharSetId=1208)
    assert (got.body, got.md.CodedCharSetId, got.comp, got.reason) == (TEXT.encode("utf-8"), 1208, 0, 0)


def test_the_queue_managers_ccsid_is_the_target_for_mqccsi_q_mgr_and_no_convert_changes_nothing(
        q: tuple[Engine, int]) -> None:
    eng, hobj = q
    for _ in range(2):
        put_text(eng, hobj, TEXT.encode("cp500"), 500)
    got = eng.get(hobj, C.MQGMO_CONVERT)                        # MQMD CodedCharSetId MQCCSI_Q_MGR (0)
    assert (got.body, got.md.CodedCharSetId) == (TEXT.encode("utf-8"), eng.qm.qmgr["CCSID"])
    got = eng.get(hobj, 0, CodedCharSetId=1208)                 # no MQGMO_CONVERT: as put
    assert (got.body, got.md.CodedCharSetId) == (TEXT.encode("cp500"), 500)


def test_only_mqstr_is_converted(q: tuple[Engine, int]) -> None:
    eng, hobj = q
    put_text(eng, hobj, TEXT.encode("cp500"), 500, fmt=C.MQFMT_NONE)
    got = eng.get(hobj, C.MQGMO_CONVERT, CodedCharSetId=1208)
    assert (got.body, got.md.CodedCharSetId, got.reason) == (TEXT.encode("cp500"), 500, 0)


@pytest.mark.parametrize("source,target,data,reason", [
    (4242, 1208, b"abc", C.MQRC_SOURCE_CCSID_ERROR),
    (500, 4242, b"abc", C.MQRC_TARGET_CCSID_ERROR),
    (1208, 500, b"\xff\xfe broken", C.MQRC_NOT_CONVERTED)])
def test_what_cannot_be_converted_comes_as_it_was_with_mqs_warning(q: tuple[Engine, int], source: int, target: int,
                                                                    data: bytes, reason: int) -> None:
    eng, hobj = q
    put_text(eng, hobj, data, source)
    got = eng.get(hobj, C.MQGMO_CONVERT, CodedCharSetId=target)
    assert (got.body, got.md.CodedCharSetId, got.comp, got.reason) == (data, source, C.MQCC_WARNING, reason)
    assert eng.qm.queues["Q"].depth == 0                          # (got: a warning, not a failure)


def test_data_that_no_longer_fits_after_conversion_comes_unconverted(q: tuple[Engine, int]) -> None:
    eng, hobj = q
    data = "ÄÖÜ".encode("latin-1")                                # 3 bytes; 6 in UTF-8
    put_text(eng, hobj, data, 819)
    got = eng.get(hobj, C.MQGMO_CONVERT, max_length=4, CodedCharSetId=1208)
    assert (got.body, got.md.CodedCharSetId, got.comp, got.reason) == (
        data, 819, C.MQCC_WARNING, C.MQRC_CONVERTED_MSG_TOO_BIG)


def test_utf16_follows_the_encodings_byte_order(q: tuple[Engine, int]) -> None:
    eng, hobj = q
    put_text(eng, hobj, TEXT.encode("utf-8"), 1208)
    put_text(eng, hobj, TEXT.encode("utf-8"), 1208)
    little = eng.get(hobj, C.MQGMO_CONVERT, CodedCharSetId=1200, Encoding=C.MQENC_NATIVE)
    big = eng.get(hobj, C.MQGMO_CONVERT, CodedCharSetId=1200, Encoding=C.MQENC_INTEGER_NORMAL)
    assert little.body == TEXT.encode("utf-16-le") and big.body == TEXT.encode("utf-16-be")
    assert (little.md.Encoding, big.md.Encoding) == (C.MQENC_NATIVE, C.MQENC_INTEGER_NORMAL)


def test_a_character_the_target_lacks_is_substituted(q: tuple[Engine, int]) -> None:
    eng, hobj = q
    put_text(eng, hobj, "price: 5 €".encode("utf-8"), 1208)
    got = eng.get(hobj, C.MQGMO_CONVERT, CodedCharSetId=819)
    assert (got.body, got.md.CodedCharSetId, got.reason) == (b"price: 5 ?", 819, 0)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40), st.sampled_from(sorted(CODECS) + sorted(UTF16)),
       st.sampled_from(sorted(CODECS) + sorted(UTF16)), st.sampled_from([C.MQENC_NATIVE, C.MQENC_INTEGER_NORMAL]))
def test_text_both_sets_hold_comes_through_unchanged(text: str, source: int, target: int, encoding: int) -> None:
    """Against the model (Python's codecs): text representable in both CCSIDs converts to
    exactly its target encoding, and back."""
    src, dst = codec_of(source, encoding), codec_of(target, encoding)
    assert src is not None and dst is not None
    try:
        data, want = text.encode(src), text.encode(dst)
    except UnicodeEncodeError:
        return
    assert convert_string(data, source, encoding, target, encoding) == (want, C.MQRC_NONE)
    assert convert_string(want, target, encoding, source, encoding) == (data, C.MQRC_NONE)
