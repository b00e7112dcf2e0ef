"""The console's message operations, over mqweb's MQI connection as any MQ application does them
(issue 67): browse with bodies, every MQMD field and the properties; put with MQMD fields and
properties; delete one message; move or copy messages to another queue; retry a dead-letter
queue's messages (the MQDLH read and taken off, the message put where it was going); and what the
queue manager already writes about itself: the queue statistics and the event messages, browsed so
that the monitoring tools that consume them still get them.

Each queue is opened with the caller as the alternate user when the caller acts as itself
(MQWebUser), so the OAM decides, as for the messaging REST API. A move or a retry is one unit of
work a message: got and put under syncpoint, committed together, so a failed put leaves the
message where it was."""
from __future__ import annotations

import base64
import binascii
from collections import deque
from typing import Any

from mqlite import pymqi
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.cmq.errors import reason_name
from mqlite.props import rfh2
from mqlite.props.values import Properties, PropertyError

BROWSE_LIMIT = 200            # messages a browse returns at most
BODY_LIMIT = 64 * 1024        # bytes of each body a browse returns (the length says how many there are)
EVENT_QUEUES = ["SYSTEM.ADMIN.QMGR.EVENT", "SYSTEM.ADMIN.CHANNEL.EVENT", "SYSTEM.ADMIN.PERFM.EVENT",
                "SYSTEM.ADMIN.CONFIG.EVENT", "SYSTEM.ADMIN.COMMAND.EVENT"]
STATISTICS_QUEUE = "SYSTEM.ADMIN.STATISTICS.QUEUE"
ACTIVITY_LIMIT = 300          # messages kept of each of those queues, the newest of those browsed
ACTIVITY_SCAN = 5000          # messages browsed of each at most (a queue nobody drains is not read whole)
# MQMD fields as the console shows them and takes them: (JSON name, MQMD field, kind)
MD_FIELDS = [("report", "Report", "int"), ("msgType", "MsgType", "int"), ("expiry", "Expiry", "int"),
             ("feedback", "Feedback", "int"), ("encoding", "Encoding", "int"), ("codedCharSetId", "CodedCharSetId", "int"),
             ("format", "Format", "str"), ("priority", "Priority", "int"), ("persistence", "Persistence", "int"),
             ("messageId", "MsgId", "id"), ("correlationId", "CorrelId", "id"), ("backoutCount", "BackoutCount", "int"),
             ("replyToQueue", "ReplyToQ", "str"), ("replyToQmgr", "ReplyToQMgr", "str"),
             ("userIdentifier", "UserIdentifier", "str"), ("accountingToken", "AccountingToken", "id"),
             ("applIdentityData", "ApplIdentityData", "str"), ("putApplType", "PutApplType", "int"),
             ("putApplName", "PutApplName", "str"), ("putDate", "PutDate", "str"), ("putTime", "PutTime", "str"),
             ("applOriginData", "ApplOriginData", "str"), ("groupId", "GroupId", "id"),
             ("msgSeqNumber", "MsgSeqNumber", "int"), ("offset", "Offset", "int"), ("msgFlags", "MsgFlags", "int"),
             ("originalLength", "OriginalLength", "int")]
SETTABLE = {"report", "msgType", "expiry", "feedback", "format", "priority", "persistence", "correlationId",
            "replyToQueue", "replyToQmgr", "groupId", "applIdentityData", "codedCharSetId", "encoding"}


class OpError(ValueError):
    """A request the console refuses before MQ sees it: HTTP status, MQWB id and text."""

    def __init__(self, status: int, message_id: str, text: str) -> None:
        super().__init__(text)
        self.status, self.message_id = status, message_id


def _text(raw: bytes) -> str:
    return bytes(raw).split(b"\0", 1)[0].decode("utf-8", "replace").rstrip()


def md_json(md: Any) -> dict[str, Any]:
    """Every MQMD field, ids in hex, strings without padding."""
    out: dict[str, Any] = {}
    for name, field, kind in MD_FIELDS:
        value = getattr(md, field)
        out[name] = binascii.hexlify(bytes(value)).decode() if kind == "id" else \
            _text(value) if kind == "str" else int(value)
    return out


def _od(queue: str, user: str, qmgr: str = "") -> Any:
    od = pymqi.OD(ObjectName=queue.encode("utf-8"))
    if qmgr:
        od.ObjectQMgrName = qmgr.encode("utf-8")
    if user:
        od.AlternateUserId = user.encode("utf-8")[:12]
    return od


def _open(qm: Any, queue: str, user: str, options: int, qmgr: str = "") -> Any:
    alt = C.MQOO_ALTERNATE_USER_AUTHORITY if user else 0
    return pymqi.Queue(qm, _od(queue, user, qmgr), options | C.MQOO_FAIL_IF_QUIESCING | alt)


def _gmo(options: int, match: int = 0) -> Any:
    return pymqi.GMO(Options=options | C.MQGMO_FAIL_IF_QUIESCING | C.MQGMO_PROPERTIES_FORCE_MQRFH2,
                     MatchOptions=match, Version=C.MQGMO_VERSION_4)


def _dlh(data: bytes) -> tuple[dict[str, Any], Any, bytes] | None:
    """A dead-letter header at the front of ``data``: its fields, the structure and what follows it."""
    if len(data) < C.MQDLH_LENGTH_1 or data[:4] != C.MQDLH_STRUC_ID:
        return None
    dlh = pymqi.DLH()
    dlh.unpack(data[:C.MQDLH_LENGTH_1])
    return ({"reason": int(dlh.Reason), "reasonName": reason_name(int(dlh.Reason)),
             "destQueue": _text(dlh.DestQName), "destQmgr": _text(dlh.DestQMgrName), "format": _text(dlh.Format),
             "putApplName": _text(dlh.PutApplName), "putDate": _text(dlh.PutDate), "putTime": _text(dlh.PutTime)},
            dlh, data[C.MQDLH_LENGTH_1:])


def described(md: Any, body: bytes, position: int) -> dict[str, Any]:
    """A browsed message as the console shows it: its MQMD, its properties, its data without the
    property folders (and without the MQDLH, decoded beside it), the first BODY_LIMIT bytes."""
    props = {name: _jsonable(value) for name, (_t, value) in
             rfh2.properties_of(md.Format, md.Encoding, body).items()}
    split = rfh2.split(md.Format, md.Encoding, md.CodedCharSetId, body)
    data, fmt = split.data, _text(split.format)
    shown = md_json(md)         # (as an application reading properties with a message handle sees it)
    shown.update(format=fmt, encoding=int(split.encoding), codedCharSetId=int(split.ccsid))
    item: dict[str, Any] = {"position": position, "md": shown, "properties": props, "format": fmt}
    if fmt == "MQDEAD":
        found = _dlh(data)
        if found:
            item["dlh"], _s, data = found
            item["format"] = item["dlh"]["format"]
    item["length"] = len(data)
    item["body"] = base64.b64encode(data[:BODY_LIMIT]).decode()
    return item


def _jsonable(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return binascii.hexlify(bytes(value)).decode()
    return value


def browse(qm: Any, queue: str, user: str, limit: int = BROWSE_LIMIT) -> list[dict[str, Any]]:
    q = _open(qm, queue, user, C.MQOO_BROWSE)
    out: list[dict[str, Any]] = []
    try:
        option = C.MQGMO_BROWSE_FIRST
        while len(out) < min(limit, BROWSE_LIMIT):
            md = pymqi.MD()
            try:
                body = q.get(None, md, _gmo(option | C.MQGMO_NO_SYNCPOINT))
            except pymqi.MQMIError as e:
                if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                    break
                raise
            option = C.MQGMO_BROWSE_NEXT
            out.append(described(md, bytes(body), len(out) + 1))
    finally:
        q.close()
    return out


def message_id(text: Any) -> bytes:
    try:
        raw = binascii.unhexlify(text) if isinstance(text, str) else b""
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 24:
        raise OpError(400, "MQWB0302E", f"The message id {text!r} is not 48 hexadecimal digits.")
    return raw


def _take(q: Any, msgid: bytes, syncpoint: bool) -> tuple[Any, bytes] | None:
    md = pymqi.MD(MsgId=msgid)
    try:
        body = q.get(None, md, _gmo(C.MQGMO_SYNCPOINT if syncpoint else C.MQGMO_NO_SYNCPOINT, C.MQMO_MATCH_MSG_ID))
    except pymqi.MQMIError as e:
        if e.reason == C.MQRC_NO_MSG_AVAILABLE:
            return None
        raise
    return md, bytes(body)


def delete(qm: Any, queue: str, user: str, msgid: str) -> bool:
    """The message with this MsgId got (destructively), outside syncpoint; False when none is there."""
    q = _open(qm, queue, user, C.MQOO_INPUT_AS_Q_DEF)
    try:
        return _take(q, message_id(msgid), False) is not None
    finally:
        q.close()


def _body(request: dict[str, Any]) -> bytes:
    text, how = request.get("body", ""), request.get("bodyEncoding", "text")
    if not isinstance(text, str) or how not in ("text", "hex", "base64"):
        raise OpError(400, "MQWB0302E", "The body must be a string, its bodyEncoding text, hex or base64.")
    try:
        return text.encode("utf-8") if how == "text" else binascii.unhexlify(text) if how == "hex" \
            else base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise OpError(400, "MQWB0302E", f"The body is not valid {how}.") from None


def put_md(fields: dict[str, Any], text: bool) -> Any:
    """An MQMD from the console's form: the fields given, MQSTR in UTF-8 for a text body."""
    md = pymqi.MD(Format=C.MQFMT_STRING if text else C.MQFMT_NONE, CodedCharSetId=1208)
    kinds = {name: (field, kind) for name, field, kind in MD_FIELDS}
    for name, value in fields.items():
        if name not in SETTABLE:
            raise OpError(400, "MQWB0302E", f"The MQMD field {name!r} cannot be set here.")
        field, kind = kinds[name]
        try:
            if kind == "int":
                setattr(md, field, int(value))
            elif kind == "id":
                raw = binascii.unhexlify(str(value)) if value else b""
                if len(raw) > 24:
                    raise ValueError
                setattr(md, field, raw.ljust(24, b"\0"))
            elif field == "Format":
                setattr(md, field, str(value).encode("ascii")[:8].ljust(8, b" "))
            else:
                setattr(md, field, str(value).encode("utf-8"))
        except (TypeError, ValueError, UnicodeEncodeError, binascii.Error):
            raise OpError(400, "MQWB0302E", f"The value {value!r} is not valid for the MQMD field {name}.") from None
    return md


def put(qm: Any, queue: str, user: str, request: dict[str, Any]) -> str:
    """MQPUT1 of the form's message, with its properties in an MQRFH2 (as MQPUT with a message
    handle writes them for a reader asking for MQRFH2); the MsgId in hex."""
    data = _body(request)
    fields, given = request.get("md") or {}, request.get("properties") or {}
    if not isinstance(fields, dict) or not isinstance(given, dict):
        raise OpError(400, "MQWB0302E", 'The "md" and "properties" of a message are objects.')
    md = put_md(fields, request.get("bodyEncoding", "text") == "text")
    props = Properties()
    for name, value in given.items():
        try:
            props.set(str(name), value)
        except (PropertyError, TypeError, ValueError):
            raise OpError(400, "MQWB0302E", f"The property {name!r} = {value!r} is not valid.") from None
    if props:
        md.Format, md.Encoding, md.CodedCharSetId, data = rfh2.join(props, md.Format, md.Encoding,
                                                                    md.CodedCharSetId, data)
    alt = C.MQPMO_ALTERNATE_USER_AUTHORITY if user else 0
    qm.put1(_od(queue, user), data, md, pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING | alt))
    return binascii.hexlify(bytes(md.MsgId)).decode()


def transfer(qm: Any, source: str, target: str, user: str, msgids: list[str] | None, copy: bool) -> dict[str, Any]:
    """Move (or copy) the messages named (all when ``msgids`` is None) from ``source`` to ``target``
    with their context as it was (MQPMO_SET_ALL_CONTEXT from the MQMD got): each a unit of work, so a put MQ refuses
    leaves that message where it was; the count done and the first refusal."""
    if source == target:
        raise OpError(400, "MQWB0302E", "The source and target queues are the same.")
    ids = None if msgids is None else [message_id(m) for m in msgids]
    src = _open(qm, source, user, C.MQOO_BROWSE | (0 if copy else C.MQOO_INPUT_AS_Q_DEF))
    dst = _open(qm, target, user, C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT)
    done, refused = 0, None
    try:
        for msgid in _ids_on(src) if ids is None else ids:
            if copy:
                got = _browsed(src, msgid)
            else:
                got = _take(src, msgid, True)
            if got is None:
                continue
            md, body = got
            try:
                dst.put(body, md, pymqi.PMO(Options=C.MQPMO_SET_ALL_CONTEXT | (0 if copy else C.MQPMO_SYNCPOINT)
                                            | C.MQPMO_FAIL_IF_QUIESCING))
            except pymqi.MQMIError as e:
                if not copy:
                    qm.backout()
                refused = {"reason": e.reason, "reasonName": reason_name(e.reason)}
                break
            if not copy:
                qm.commit()
            done += 1
    finally:
        dst.close()
        src.close()
    return {"count": done, **({"refused": refused} if refused else {})}


def _ids_on(q: Any) -> list[bytes]:
    ids: list[bytes] = []
    option = C.MQGMO_BROWSE_FIRST
    while True:
        md = pymqi.MD()
        gmo = _gmo(option | C.MQGMO_NO_SYNCPOINT | C.MQGMO_ACCEPT_TRUNCATED_MSG)
        try:
            q.get(0, md, gmo)
        except pymqi.MQMIError as e:
            if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                return ids
            if e.reason != C.MQRC_TRUNCATED_MSG_ACCEPTED:
                raise
        ids.append(bytes(md.MsgId))
        option = C.MQGMO_BROWSE_NEXT


def _browsed(q: Any, msgid: bytes) -> tuple[Any, bytes] | None:
    md = pymqi.MD(MsgId=msgid)
    try:
        body = q.get(None, md, _gmo(C.MQGMO_BROWSE_FIRST | C.MQGMO_NO_SYNCPOINT, C.MQMO_MATCH_MSG_ID))
    except pymqi.MQMIError as e:
        if e.reason == C.MQRC_NO_MSG_AVAILABLE:
            return None
        raise
    return md, bytes(body)


def retry(qm: Any, dlq: str, user: str, msgids: list[str]) -> list[dict[str, Any]]:
    """Each dead-letter message put where its MQDLH says it was going, without the MQDLH (the
    MQMD's Format, Encoding and CCSID taken back from it), its context kept; got and put in one
    unit of work, so a put MQ refuses again leaves it on the dead-letter queue. One result each."""
    src = _open(qm, dlq, user, C.MQOO_INPUT_AS_Q_DEF)
    results: list[dict[str, Any]] = []
    try:
        for text in msgids:
            got = _take(src, message_id(text), True)
            if got is None:
                results.append({"messageId": text, "done": False, "reasonName": "MQRC_NO_MSG_AVAILABLE",
                                "reason": C.MQRC_NO_MSG_AVAILABLE})
                continue
            md, body = got
            split = rfh2.split(md.Format, md.Encoding, md.CodedCharSetId, body)
            found = _dlh(split.data) if _text(split.format) == "MQDEAD" else None
            if found is None:
                qm.backout()
                results.append({"messageId": text, "done": False, "reason": 0,
                                "reasonName": "the message has no dead-letter header"})
                continue
            fields, dlh, rest = found
            md.Format, md.Encoding, md.CodedCharSetId = dlh.Format, dlh.Encoding, dlh.CodedCharSetId
            if split.folders:                      # (its properties travel on with it, in an MQRFH2)
                rest = rfh2.Header(False, md.Encoding, md.CodedCharSetId, md.Format, 0, rfh2.UTF8,
                                   split.folders).pack() + rest
                md.Format, md.Encoding, md.CodedCharSetId = rfh2.RFH2_FORMAT, rfh2.NATIVE, rfh2.UTF8
            alt = C.MQPMO_ALTERNATE_USER_AUTHORITY if user else 0
            try:
                qm.put1(_od(fields["destQueue"], user, fields["destQmgr"]), rest, md,
                        pymqi.PMO(Options=C.MQPMO_SYNCPOINT | C.MQPMO_SET_ALL_CONTEXT | C.MQPMO_FAIL_IF_QUIESCING | alt))
            except pymqi.MQMIError as e:
                qm.backout()
                results.append({"messageId": text, "done": False, "reason": e.reason, "reasonName": reason_name(e.reason)})
                continue
            qm.commit()
            results.append({"messageId": text, "done": True, "queue": fields["destQueue"]})
    finally:
        src.close()
    return results


# --- what the queue manager writes about itself ---------------------------------------------------
def _newest(qm: Any, queue: str, user: str) -> list[tuple[Any, bytes]]:
    """The last ACTIVITY_LIMIT of the first ACTIVITY_SCAN messages on ``queue``, browsed."""
    try:
        q = _open(qm, queue, user, C.MQOO_BROWSE)
    except pymqi.MQMIError:
        return []
    out: deque[tuple[Any, bytes]] = deque(maxlen=ACTIVITY_LIMIT)
    try:
        option = C.MQGMO_BROWSE_FIRST
        for _ in range(ACTIVITY_SCAN):
            md = pymqi.MD()
            try:
                body = q.get(None, md, pymqi.GMO(Options=option | C.MQGMO_NO_SYNCPOINT))
            except pymqi.MQMIError:
                break
            option = C.MQGMO_BROWSE_NEXT
            out.append((md, bytes(body)))
    finally:
        q.close()
    return list(out)


def _stamp(date: Any, time: Any) -> str:
    """A PCF date and time (yyyy-mm-dd, hh.mm.ss) as ISO 8601."""
    d, t = _text(date), _text(time).replace(".", ":")
    return f"{d}T{t}" if d else ""


def put_stamp(md: Any) -> str:
    """The MQMD's PutDate and PutTime (yyyymmdd, hhmmssth) as ISO 8601."""
    d, t = _text(md.PutDate), _text(md.PutTime)
    return f"{d[:4]}-{d[4:6]}-{d[6:8]}T{t[:2]}:{t[2:4]}:{t[4:6]}" if len(d) == 8 and len(t) >= 6 else ""


def statistics(qm: Any, user: str) -> list[dict[str, Any]]:
    """Each queue's puts and gets in each statistics interval (STATQ), from the statistics messages."""
    out = []
    for _md, body in _newest(qm, STATISTICS_QUEUE, user):
        try:
            msg = pcf.decode(body, any_type=True)
        except pcf.PCFError:
            continue
        if msg.header.command != F.MQCMD_STATISTICS_Q:
            continue
        start = _stamp(msg.first(F.MQCAMO_START_DATE, b""), msg.first(F.MQCAMO_START_TIME, b""))
        end = _stamp(msg.first(F.MQCAMO_END_DATE, b""), msg.first(F.MQCAMO_END_TIME, b""))
        for ptype, sel, group in msg.params:
            if ptype != F.MQCFT_GROUP or sel != F.MQGACF_Q_STATISTICS_DATA:
                continue
            values = {s: v for _t, s, v in group}
            out.append({"queue": _text(values.get(C.MQCA_Q_NAME, b"")), "start": start, "end": end,
                        "puts": sum(values.get(F.MQIAMO_PUTS, [0, 0])), "gets": sum(values.get(F.MQIAMO_GETS, [0, 0])),
                        "maxDepth": values.get(F.MQIAMO_Q_MAX_DEPTH, 0)})
    return out


_PARAM_NAMES = {v: k for k, v in list(vars(C).items()) + list(vars(F).items())
                if isinstance(v, int) and k.startswith(("MQCA_", "MQCACF_", "MQCACH_", "MQIA_", "MQIACF_", "MQIACH_"))}


def events(qm: Any, user: str) -> list[dict[str, Any]]:
    """The event messages on the event queues, newest last: when, which queue, the reason's name
    and the parameters that name what it was about."""
    out: list[dict[str, Any]] = []
    for queue in EVENT_QUEUES:
        for md, body in _newest(qm, queue, user):
            try:
                msg = pcf.decode(body, any_type=True)
            except pcf.PCFError:
                continue
            about: dict[str, Any] = {}
            for _t, sel, value in msg.params:
                if isinstance(value, (bytes, bytearray)) and sel in _PARAM_NAMES:
                    about[_PARAM_NAMES[sel]] = _text(bytes(value))
                elif isinstance(value, int) and sel in _PARAM_NAMES:
                    about[_PARAM_NAMES[sel]] = value
            out.append({"queue": queue, "time": put_stamp(md),
                        "reason": msg.header.reason, "reasonName": reason_name(msg.header.reason), "about": about})
    out.sort(key=lambda e: str(e["time"]))
    return out
