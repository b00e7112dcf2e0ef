"""Issue 68: the ``text`` column reads MQSTR data in its own CCSID (EBCDIC 500 and 37, Latin-1
819, UTF-16 in either byte order), where it read every body as UTF-8; an unknown CCSID is read as
UTF-8, and what a CCSID cannot hold is replaced, never an error for the whole batch."""
from __future__ import annotations

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
