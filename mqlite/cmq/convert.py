"""Character data conversion as MQGET with MQGMO_CONVERT does it for a message whose Format is
MQSTR: its data from the message's CodedCharSetId to the one the MQGET's MQMD asks for, by the
coded character set identifiers' Python codecs. What MQ says happens when it cannot convert:
the data is returned as it is, with MQCC_WARNING and MQRC_SOURCE_CCSID_ERROR (2111: the message's
CCSID is not one it knows), MQRC_TARGET_CCSID_ERROR (2115: the asked-for one) or
MQRC_NOT_CONVERTED (2119: the data is not valid in its CCSID). A character the target set lacks
is replaced by its substitution character, as MQ's conversion tables do (here '?', or U+FFFD in
Unicode targets).

UTF-16 (1200, 13488, 17584) is written in the byte order of the MQMD's Encoding: reversed integers
(MQENC_INTEGER_REVERSED, x86's native 546) little-endian, normal big-endian."""
from __future__ import annotations

import codecs

from mqlite.cmq import CMQC as C

# CCSID -> Python codec (the common ones on distributed and z/OS queue managers).
CODECS: dict[int, str] = {
    1208: "utf-8", 1209: "utf-8", 819: "latin-1", 367: "ascii", 437: "cp437", 850: "cp850", 852: "cp852",
    855: "cp855", 857: "cp857", 858: "cp858", 860: "cp860", 861: "cp861", 862: "cp862", 863: "cp863",
    864: "cp864", 865: "cp865", 866: "cp866", 869: "cp869", 874: "cp874", 878: "koi8_r",
    912: "iso8859-2", 813: "iso8859-7", 915: "iso8859-5", 916: "iso8859-8", 920: "iso8859-9",
    923: "iso8859-15", 1089: "iso8859-6", 1250: "cp1250", 1251: "cp1251", 1252: "cp1252", 5348: "cp1252",
    1253: "cp1253", 1254: "cp1254", 1255: "cp1255", 1256: "cp1256", 1257: "cp1257", 1258: "cp1258",
    37: "cp037", 273: "cp273", 500: "cp500", 875: "cp875", 1026: "cp1026", 1140: "cp1140",
    932: "cp932", 943: "cp932", 954: "euc_jp", 5050: "euc_jp", 1381: "gb2312", 1386: "gbk", 5488: "gb18030",
    950: "big5", 949: "cp949", 970: "euc_kr", 1363: "cp949",
}
UTF16 = {1200, 13488, 17584}


def codec_of(ccsid: int, encoding: int = C.MQENC_NATIVE) -> str | None:
    """The Python codec of a CCSID (UTF-16's byte order from ``encoding``), None if unknown."""
    if ccsid in UTF16:
        return "utf-16-le" if encoding & C.MQENC_INTEGER_REVERSED else "utf-16-be"
    name = CODECS.get(ccsid)
    if name is None:
        return None
    codecs.lookup(name)                 # (every name in the table is a codec of this Python)
    return name


def convert_string(data: bytes, source: int, source_encoding: int, target: int,
                   target_encoding: int) -> tuple[bytes, int]:
    """MQSTR data from CCSID ``source`` to ``target``: (the data, MQRC_NONE), or the data as it
    was and the reason it could not be converted."""
    src = codec_of(source, source_encoding)
    if src is None:
        return data, C.MQRC_SOURCE_CCSID_ERROR
    dst = codec_of(target, target_encoding)
    if dst is None:
        return data, C.MQRC_TARGET_CCSID_ERROR
    if src == dst:
        return data, C.MQRC_NONE
    try:
        text = data.decode(src)
    except UnicodeDecodeError:
        return data, C.MQRC_NOT_CONVERTED
    return text.encode(dst, "replace"), C.MQRC_NONE


def text_of(data: bytes, ccsid: int, encoding: int = C.MQENC_NATIVE) -> str:
    """MQSTR data read as text in its CCSID (0, the queue manager's, and an unknown one read as
    UTF-8), what is not valid in it replaced."""
    return data.decode(codec_of(ccsid or 1208, encoding) or "utf-8", "replace")


def converted_for_get(data: bytes, fmt: bytes, source: int, source_encoding: int, target: int,
                      target_encoding: int, max_length: int, qmgr_ccsid: int) -> tuple[bytes, int, int, int]:
    """MQGET's MQGMO_CONVERT rule for a message's data: (the data returned, its CCSID and Encoding,
    the reason). Only MQSTR is converted; a CCSID of 0 (MQCCSI_Q_MGR, on either side) is the
    queue manager's; data that cannot be converted, or would no longer fit the buffer it fitted
    (MQRC_CONVERTED_MSG_TOO_BIG), is returned as it was, its CCSID and Encoding the message's."""
    source, target = source or qmgr_ccsid, target or qmgr_ccsid
    if fmt != C.MQFMT_STRING or target == source:
        return data, source, source_encoding, C.MQRC_NONE
    out, why = convert_string(data, source, source_encoding, target, target_encoding)
    if why == C.MQRC_NONE and len(out) > max_length >= len(data):
        why = C.MQRC_CONVERTED_MSG_TOO_BIG
    if why != C.MQRC_NONE:
        return data, source, source_encoding, why
    return out, target, target_encoding, C.MQRC_NONE
