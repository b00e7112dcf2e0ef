"""amqsbcg (and amqsbcgc): IBM's browse sample that dumps each message of a queue — its MQMD
field by field, its properties (PropOption 1), a dead-letter header, then the data in hex and
characters sixteen bytes a line — in the layout of MQ 9.4's amqsbcg0.c, which is what people
paste into support tickets.

    amqsbcg QName [QMgrName [PropOption]]      PropOption 0 as the queue's PROPCTL, 1 in a message
                                               handle (printed), 2 none, 3 forced MQRFH2, 4 compat

The layout follows the C sample byte for byte: its fields and spacing, the page breaks it makes
every 60 lines, and the character column as the C library's locale gives it (in a UTF-8 locale a
multibyte character is shown whole and the column is widened by the locale's MB_CUR_MAX, 6 in
glibc's UTF-8 locales; otherwise bytes that are not printable ASCII show as dots).
"""
from __future__ import annotations

import locale
import sys
from typing import Any

from mqlite.cmq import CMQC as C

CHARS_PER_LINE = 16
BUFFERLENGTH = 65536
DLH_LENGTH = 172
_GMO_FOR_PROPS = {0: 0, 1: C.MQGMO_PROPERTIES_IN_HANDLE, 2: C.MQGMO_NO_PROPERTIES, 3: C.MQGMO_PROPERTIES_FORCE_MQRFH2,
                  4: C.MQGMO_PROPERTIES_COMPATIBILITY}


def _mb_cur_max() -> int:
    """MB_CUR_MAX of the locale the environment names (glibc: 6 in a UTF-8 locale, 1 in C)."""
    try:
        locale.setlocale(locale.LC_CTYPE, "")
        codeset = locale.nl_langinfo(locale.CODESET)
    except (locale.Error, AttributeError):
        return 1
    return 6 if codeset.upper().replace("-", "") == "UTF8" else 1


def _mblen(data: bytes, at: int, mbcsmax: int) -> int:
    """mblen() of the character at ``at``: its length in bytes, or -1 when it is not one."""
    if mbcsmax == 1:
        return 1
    for n in range(1, 5):
        try:
            data[at:at + n].decode("utf-8")
            return n
        except UnicodeDecodeError:
            continue
    return -1


def _field(value: Any, length: int) -> bytes:
    """``%.*s``: at most ``length`` bytes, up to the first NUL."""
    raw = value if isinstance(value, bytes) else str(value).encode()
    return raw[:length].split(b"\0", 1)[0]


def _hex(value: bytes) -> bytes:
    return value.hex().upper().encode()


def print_md(out: bytearray, md: Any) -> None:
    f = _field
    out += b"\n****Message descriptor****\n"
    out += b"\n  StrucId  : '" + f(md.StrucId, 4) + b"'" + b"  Version : %d" % md.Version
    out += b"\n  Report   : %d" % md.Report + b"  MsgType : %d" % md.MsgType
    out += b"\n  Expiry   : %d" % md.Expiry + b"  Feedback : %d" % md.Feedback
    out += b"\n  Encoding : %d" % md.Encoding + b"  CodedCharSetId : %d" % md.CodedCharSetId
    out += b"\n  Format : '" + f(md.Format, 8) + b"'"
    out += b"\n  Priority : %d" % md.Priority + b"  Persistence : %d" % md.Persistence
    out += b"\n  MsgId : X'" + _hex(md.MsgId) + b"'"
    out += b"\n  CorrelId : X'" + _hex(md.CorrelId) + b"'"
    out += b"\n  BackoutCount : %d" % md.BackoutCount
    out += b"\n  ReplyToQ       : '" + f(md.ReplyToQ, 48) + b"'"
    out += b"\n  ReplyToQMgr    : '" + f(md.ReplyToQMgr, 48) + b"'"
    out += b"\n  ** Identity Context"
    out += b"\n  UserIdentifier : '" + f(md.UserIdentifier, 12) + b"'"
    out += b"\n  AccountingToken : \n   X'" + _hex(md.AccountingToken) + b"'"
    out += b"\n  ApplIdentityData : '" + f(md.ApplIdentityData, 32) + b"'"
    out += b"\n  ** Origin Context"
    out += b"\n  PutApplType    : '%d'" % md.PutApplType
    out += b"\n  PutApplName    : '" + f(md.PutApplName, 28) + b"'"
    out += b"\n  PutDate  : '" + f(md.PutDate, 8) + b"'" + b"    PutTime  : '" + f(md.PutTime, 8) + b"'"
    out += b"\n  ApplOriginData : '" + f(md.ApplOriginData, 4) + b"'\n"
    out += b"\n  GroupId : X'" + _hex(md.GroupId) + b"'"
    out += b"\n  MsgSeqNumber   : '%d'" % md.MsgSeqNumber
    out += b"\n  Offset         : '%d'" % md.Offset
    out += b"\n  MsgFlags       : '%d'" % md.MsgFlags
    out += b"\n  OriginalLength : '%d'" % md.OriginalLength


def print_dlh(out: bytearray, data: bytes) -> int:
    """The dead-letter header at the front of ``data``, if it is a plausible one: its length."""
    from mqlite.cmq.headers import DLH
    from mqlite.pymqi.errors import RC_NAMES
    if len(data) < DLH_LENGTH or data[:4] != C.MQDLH_STRUC_ID:
        return 0
    d = DLH.from_bytes(data[:DLH_LENGTH])
    f = _field
    out += b"\n"
    out += b"\n****Dead Letter Header****\n"
    out += b"\n  StrucId  : '" + f(d.StrucId, 4) + b"'" + b"  Version : %d" % d.Version
    out += b"\n  Reason   : %d [" % d.Reason + RC_NAMES.get(d.Reason, "UNKNOWN RC").encode() + b"]"
    out += b"\n  DestQName      : '" + f(d.DestQName, 48) + b"'"
    out += b"\n  DestQMgrName   : '" + f(d.DestQMgrName, 48) + b"'"
    out += b"\n  Encoding : %d" % d.Encoding + b"  CodedCharSetId : %d" % d.CodedCharSetId
    out += b"\n  Format : '" + f(d.Format, 8) + b"'"
    out += b"\n  PutApplType    : '%d'" % d.PutApplType
    out += b"\n  PutApplName    : '" + f(d.PutApplName, 28) + b"'"
    out += b"\n  PutDate  : '" + f(d.PutDate, 8) + b"'" + b"    PutTime  : '" + f(d.PutTime, 8) + b"'"
    return DLH_LENGTH


def print_properties(out: bytearray, hmsg: int) -> None:
    """Each property of the message handle (MQINQMP with "%", next by next), as the sample prints them."""
    import struct

    from mqlite.pymqi import MQMIError
    from mqlite.pymqi.msghandle import inquire
    out += b"\n \n****Message properties****\n"
    options = C.MQIMPO_CONVERT_VALUE
    n = 0
    while True:
        try:
            value, ptype, name, _length = inquire(hmsg, "%", options, C.MQTYPE_AS_SET, None)
        except MQMIError as e:
            if e.reason == C.MQRC_PROPERTY_NOT_AVAILABLE:
                if n == 0:
                    out += b"\n  None\n"
            else:
                out += b"\n MQINQMP failed with CompCode:%d Reason:%d" % (e.comp, e.reason)
            return
        n += 1
        out += b"\n  " + name.encode() + b" : "
        if ptype == C.MQTYPE_BOOLEAN:
            out += b"TRUE" if value else b"FALSE"
        elif ptype == C.MQTYPE_BYTE_STRING:
            out += b"X'" + _hex(bytes(value)) + b"'"
        elif ptype == C.MQTYPE_FLOAT32:
            out += b"%.12g" % struct.unpack("<f", struct.pack("<f", value))[0]
        elif ptype == C.MQTYPE_FLOAT64:
            out += b"%.18g" % value
        elif ptype == C.MQTYPE_INT8:
            out += b"%u" % (value & 0xFF)
        elif ptype in (C.MQTYPE_INT16, C.MQTYPE_INT32, C.MQTYPE_INT64):
            out += b"%d" % value
        elif ptype == C.MQTYPE_NULL:
            out += b"NULL"
        elif ptype == C.MQTYPE_STRING:
            out += b"'" + (value.encode() if isinstance(value, str) else bytes(value)) + b"'"
        else:
            out += b"<unrecognized data type>\n"
        options = C.MQIMPO_CONVERT_VALUE | C.MQIMPO_INQ_NEXT


def dump(out: bytearray, data: bytes, offset: int, length: int, mbcsmax: int, lines: int) -> int:
    """The data, sixteen bytes a line (offset, hex in pairs, characters); the page count goes on."""
    ch = overrun = 0
    while True:
        text = bytearray()
        count = 0
        out += b"\n%08X: " % ch
        while overrun > 0:                           # an MBCS character that ran past the last line
            out += b"  "
            text += b" "
            count += 1
            if overrun % 2:
                out += b" "
            overrun -= 1
        while count < CHARS_PER_LINE and ch < length:
            at = ch + offset
            n = max(1, _mblen(data, at, mbcsmax))
            if n > 1:
                for _ in range(n):
                    if count % 2 == 0 and count < CHARS_PER_LINE:
                        out += b" "
                    out += b"%02X" % data[at]
                    text.append(data[at])
                    count += 1
                    ch += 1
                    at += 1
            else:
                if count % 2 == 0:
                    out += b" "
                out += b"%02X" % data[at]
                text.append(data[at] if 0x20 <= data[at] < 0x7F else 0x2E)
                count += 1
                ch += 1
        if count > CHARS_PER_LINE:
            overrun = count - CHARS_PER_LINE
        while count < CHARS_PER_LINE:
            if count % 2 == 0:
                out += b" "
            out += b"  "
            text += b" "
            count += 1
        out += b" " * max(0, (mbcsmax - overrun - 1) * 2)
        out += b" '" + bytes(text) + b"'"
        lines += 1
        if lines >= 60:
            lines = 0
            out += b"\n "
        if ch >= length:
            return lines


def amqsbcg(argv: list[str], client: bool = False, program: str = "amqsbcg") -> int:
    from mqlite import pymqi
    from mqlite.cli.samples import _connect
    out = bytearray(b"\nAMQSBCG0 - starts here\n**********************\n ")
    code = _browse(out, argv, client, program, pymqi, _connect)
    out += b"\n"
    sys.stdout.buffer.write(bytes(out))
    sys.stdout.buffer.flush()
    return code


def _browse(out: bytearray, argv: list[str], client: bool, program: str, pymqi: Any, connect: Any) -> int:
    usage = b"\n  Usage: %s QName [ QMgrName ] [ PropOption ]\n" % program.encode()
    if not argv:
        out += b"Required parameter missing - queue name\n" + usage
        return 4
    prop = 0
    if len(argv) > 2:
        try:
            prop = int(argv[2])
        except ValueError:
            prop = 0
        if not 0 <= prop <= 4:
            out += b'PropOption "%d" invalid - specify 0-4\n' % prop + usage
            return 4
    sys.stdout.buffer.write(bytes(out))           # (before a password prompt)
    sys.stdout.buffer.flush()
    out.clear()
    try:
        qm = connect(argv[1] if len(argv) > 1 else "", client)
    except pymqi.MQMIError as e:
        out += b"\n MQCONNX failed with CompCode:%d, Reason:%d" % (e.comp, e.reason)
        return int(e.comp)
    code = 0
    stats: list[int] = []
    handle = None
    q = None
    try:
        out += b"\n MQOPEN - '" + argv[0].encode() + b"'"
        try:
            q = pymqi.Queue(qm, argv[0], C.MQOO_BROWSE)
        except pymqi.MQMIError as e:
            out += b"\n MQOPEN failed with CompCode:%d, Reason:%d" % (e.comp, e.reason)
            return int(e.comp)
        gmo = pymqi.GMO(Version=C.MQGMO_VERSION_2, MatchOptions=C.MQMO_NONE,
                        Options=C.MQGMO_NO_WAIT | C.MQGMO_ACCEPT_TRUNCATED_MSG | C.MQGMO_BROWSE_NEXT
                        | _GMO_FOR_PROPS[prop])
        if prop == 1:
            out += b"\n MQCRTMH"
            handle = pymqi.MessageHandle(qm)
            gmo.Version, gmo.MsgHandle = C.MQGMO_VERSION_4, handle.msg_handle
        out += b"\n "
        mbcsmax = _mb_cur_max()
        j = 0
        while True:
            j += 1
            lines = 29 if j == 1 else 22
            if j > 1:
                out += b"\n "
            md = pymqi.MD(Version=C.MQMD_VERSION_2)
            comp, reason = C.MQCC_OK, C.MQRC_NONE
            try:
                data = q.get(BUFFERLENGTH, md, gmo)
                length = len(data)
            except pymqi.MQMIError as e:
                if e.comp == C.MQCC_FAILED:
                    if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                        out += b"\n \n \n No more messages "
                    else:
                        out += b"\n MQGET %d, failed with CompCode:%d Reason:%d" % (j, e.comp, e.reason)
                        code = int(e.comp)
                    break
                comp, reason = e.comp, e.reason
                data = getattr(e, "message", b"") or b""
                length = int(getattr(e, "original_length", len(data)))
            out += b"\n \n MQGET of message number %d, CompCode:%d Reason:%d" % (j, comp, reason)
            stats.append(length)
            print_md(out, md)
            if prop == 1 and handle is not None:
                print_properties(out, handle.msg_handle)
            offset = 0
            if bytes(md.Format)[:8] == C.MQFMT_DEAD_LETTER_HEADER:
                offset = print_dlh(out, data)
                length -= offset
            out += b"\n \n****   Message      ****\n "
            shown = min(length, BUFFERLENGTH - offset, len(data) - offset)
            out += b"\n length - %d of %d bytes\n " % (shown, length)
            dump(out, data, offset, shown, mbcsmax, lines)
    finally:
        if stats:
            out += (b"\n\n****   Summary      ****\n %d messages browsed.\n Smallest message %d bytes.\n "
                    b"Largest message %d bytes.\n Average message %d bytes.\n"
                    % (len(stats), min(stats), max(stats), sum(stats) // len(stats)))
        if handle is not None:
            out += b"\n MQDLTMH"
            handle.dlt()
        if q is not None:
            out += b"\n MQCLOSE"
            q.close()
        out += b"\n MQDISC"
        qm.disconnect()
    return code


def amqsbcg_main() -> None:
    sys.exit(amqsbcg(sys.argv[1:], program=sys.argv[0]))


def amqsbcgc_main() -> None:
    sys.exit(amqsbcg(sys.argv[1:], client=True, program=sys.argv[0]))
