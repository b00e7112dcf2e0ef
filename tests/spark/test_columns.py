"""Issue 68: the ``text`` column reads MQSTR data in its own CCSID (EBCDIC 500 and 37, Latin-1
819, UTF-16 in either byte order), where it read every body as UTF-8; an unknown CCSID is read as
UTF-8, and what a CCSID cannot hold is replaced, never an error for the whole batch."""
from __future__ import annotations

import pytest

from mqlite.cmq import CMQC as C
from mqlite.cmq.structs import MD
from mqlite.spark.read import decode_columns

TEXT = "Grüße aus Köln"


def _row(position: int, data: bytes, ccsid: int, fmt: bytes = C.MQFMT_STRING,
         encoding: int = C.MQENC_NATIVE) -> tuple[int, bytes, bytes]:
    return position, MD(Format=fmt, CodedCharSetId=ccsid, Encoding=encoding).pack(), data


def test_text_is_read_in_each_messages_ccsid() -> None:
    batch = [_row(1, TEXT.encode("cp500"), 500), _row(2, TEXT.encode("cp037"), 37),
             _row(3, TEXT.encode("latin-1"), 819), _row(4, TEXT.encode("utf-8"), 1208),
             _row(5, TEXT.encode("utf-16-le"), 1200), _row(6, TEXT.encode("utf-16-be"), 1200,
                                                            encoding=C.MQENC_INTEGER_NORMAL),
             _row(7, TEXT.encode("cp500"), 500, fmt=C.MQFMT_NONE)]
    assert decode_columns(batch, "Q", "QM", ["text"])["text"] == [TEXT] * 6 + [None]


def test_an_unknown_ccsid_or_bad_data_is_read_with_replacements() -> None:
    batch = [_row(1, b"plain", 4242), _row(2, b"ok \xff", 1208)]
    assert decode_columns(batch, "Q", "QM", ["text"])["text"] == ["plain", "ok \ufffd"]


def test_the_descriptors_other_fields_are_columns() -> None:
    md = MD(Format=C.MQFMT_STRING, MsgType=C.MQMT_REPORT, Report=C.MQRO_COA, Feedback=C.MQFB_COA,
            MsgFlags=C.MQMF_LAST_MSG_IN_GROUP, Encoding=C.MQENC_NATIVE, CodedCharSetId=500)
    cols = decode_columns([(1, md.pack(), b"x")], "Q", "QM", ["msg_type", "report", "feedback", "msg_flags",
                                                             "encoding", "ccsid"])
    assert cols == {"msg_type": [C.MQMT_REPORT], "report": [C.MQRO_COA], "feedback": [C.MQFB_COA],
                    "msg_flags": [C.MQMF_LAST_MSG_IN_GROUP], "encoding": [C.MQENC_NATIVE], "ccsid": [500]}


def test_a_string_body_is_written_in_the_rows_ccsid() -> None:
    from mqlite.spark.options import MQLiteError
    from mqlite.spark.write import _message
    data, md = _message({"body": "Grüße", "ccsid": 500, "msg_type": C.MQMT_REQUEST, "reply_to_q": "R.Q"})
    assert (data, md.CodedCharSetId, md.Format, md.MsgType) == ("Grüße".encode("cp500"), 500, C.MQFMT_STRING,
                                                                C.MQMT_REQUEST)
    data, md = _message({"body": "Grüße"})
    assert (data, md.CodedCharSetId) == ("Grüße".encode("utf-8"), 1208)
    with pytest.raises(MQLiteError, match=r"^MQRC_SOURCE_CCSID_ERROR \(2111\)"):
        _message({"body": "x", "ccsid": 4242})
