"""The messaging REST API (``/messaging/qmgr/{qmgr}/queue/{queue}/message`` and ``/messagelist``)
as MQ documents it, over mqweb's MQI connection, the queue opened with the caller as the
alternate user (MQ's default, mqRestMessagingAdoptWebUserContext): the caller's OAM authority
decides:

- POST puts the request body as a text message (MQFMT_STRING, CCSID 1208) and answers 201 with
  its ``ibm-mq-md-messageId``; the ``ibm-mq-md-correlationId``, ``-expiry`` (milliseconds or
  "unlimited"), ``-persistence`` ("persistent", "nonPersistent"), ``-replyTo`` ("queue@qmgr") and,
  in v3, ``-priority`` headers set the descriptor.
- DELETE gets the next message destructively (``messageId``, ``correlationId`` and ``wait``
  query parameters), answering 200 with the body and its ``ibm-mq-md-*`` headers, or 204 when
  there is none; GET browses the same way; a message that is not text is left on the queue (MQ
  returns only MQSTR messages here).
- GET messagelist browses a summary of the messages (no bodies): messageId, correlationId, format,
  persistence, priority, putDateTime, expiry and the reply-to queue.

In v1 and v2 a message or correlation id is 48 hex digits; v3 writes it with MQ's ``ID:`` prefix
and takes a correlation id that is an application string too (padded to 24 bytes)."""
from __future__ import annotations

import binascii
from datetime import datetime, timezone
from typing import Any

from mqlite import pymqi
from mqlite.props import rfh2
from mqlite.props.values import Properties, PropertyError
from mqlite.pymqi import CMQC

MAX_WAIT_MS = 3600 * 1000
LIST_LIMIT = 1000
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript")


class MessageError(ValueError):
    """A request the messaging API refuses: the HTTP status, MQ's message id and text."""

    def __init__(self, status: int, message_id: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message_id = message_id


def _bad_header(name: str, value: str) -> MessageError:
    return MessageError(400, "MQWB0302E",
                        f"The {name} request header cannot be set as {value} is not a valid request header value.")


def parse_id(value: str, version: str, name: str, correlation: bool) -> bytes:
    """A message or correlation id from a header or query parameter: 48 hex digits (v3 with an
    ``ID:`` prefix; a v3 correlation id may be an application string, up to 24 bytes)."""
    text = value.strip()
    if version == "v3":
        if text.startswith("ID:"):
            text = text[3:]
        elif correlation:
            raw = text.encode("utf-8")
            if len(raw) > 24:
                raise _bad_header(name, value)
            return raw.ljust(24, b"\0")
    if len(text) != 48:
        raise _bad_header(name, value)
    try:
        return binascii.unhexlify(text)
    except binascii.Error:
        raise _bad_header(name, value) from None


def format_id(raw: bytes, version: str) -> str:
    text = bytes(raw).hex()
    return "ID:" + text if version == "v3" else text


def put_descriptor(headers: Any, version: str) -> Any:
    """The MQMD a POST's headers ask for."""
    md = pymqi.MD(Format=CMQC.MQFMT_STRING, CodedCharSetId=1208, Persistence=CMQC.MQPER_NOT_PERSISTENT)
    correl = headers.get("ibm-mq-md-correlationid")
    if correl:
        md.CorrelId = parse_id(correl, version, "ibm-mq-md-correlationId", True)
    persistence = headers.get("ibm-mq-md-persistence")
    if persistence is not None:
        word = persistence.strip().lower()
        if word not in ("persistent", "nonpersistent"):
            raise _bad_header("ibm-mq-md-persistence", persistence)
        md.Persistence = CMQC.MQPER_PERSISTENT if word == "persistent" else CMQC.MQPER_NOT_PERSISTENT
    expiry = headers.get("ibm-mq-md-expiry")
    if expiry is not None and expiry.strip().lower() != "unlimited":
        try:
            ms = int(expiry)
        except ValueError:
            raise _bad_header("ibm-mq-md-expiry", expiry) from None
        if not 0 < ms <= 2**31 * 100 - 1:
            raise _bad_header("ibm-mq-md-expiry", expiry)
        md.Expiry = max(1, ms // 100)
    reply = headers.get("ibm-mq-md-replyto")
    if reply:
        queue, _, qmgr = reply.partition("@")
        if not queue or len(queue) > 48 or len(qmgr) > 48:
            raise _bad_header("ibm-mq-md-replyTo", reply)
        md.ReplyToQ, md.ReplyToQMgr = queue.encode(), qmgr.encode()
    priority = headers.get("ibm-mq-md-priority")
    if priority is not None:
        if version != "v3" or not priority.strip().isdigit() or not 0 <= int(priority) <= 9:
            raise _bad_header("ibm-mq-md-priority", priority)
        md.Priority = int(priority)
    return md


# ibm-mq-usr (REST API v3): user properties as ``name;value;type``, comma-separated, a string
# value in double quotes (IBM's HTTP bridge syntax); the types MQ's properties have.
USR_TYPES = {"string": str, "boolean": bool, "i1": int, "i2": int, "i4": int, "i8": int, "r4": float, "r8": float}
_INT_BITS = {"i1": 8, "i2": 16, "i4": 32, "i8": 64}
_USR_PTYPE = {"string": CMQC.MQTYPE_STRING, "boolean": CMQC.MQTYPE_BOOLEAN, "i1": CMQC.MQTYPE_INT8,
              "i2": CMQC.MQTYPE_INT16, "i4": CMQC.MQTYPE_INT32, "i8": CMQC.MQTYPE_INT64,
              "r4": CMQC.MQTYPE_FLOAT32, "r8": CMQC.MQTYPE_FLOAT64}
_USR_NAME = {ptype: kind for kind, ptype in _USR_PTYPE.items()}


def user_properties(values: list[str], version: str) -> Properties | None:
    """The ibm-mq-usr headers of a POST as message properties (None without one). In v1 and v2,
    which have no user properties, the header is refused rather than dropped (MQWB0302E), as is
    an item that is not ``name;value;type`` with one of MQ's types and a value of that type."""
    if not values:
        return None
    if version != "v3":
        raise MessageError(400, "MQWB0302E", f"The ibm-mq-usr request header cannot be set in REST API {version}: "
                                             "user properties need v3.")
    props = Properties()
    for header in values:
        for item in _split_items(header):
            parts = _split_items(item, ";")
            if len(parts) != 3 or parts[2].strip().lower() not in USR_TYPES or not parts[0].strip():
                raise _bad_header("ibm-mq-usr", item)
            name, raw, kind = parts[0].strip(), parts[1].strip(), parts[2].strip().lower()
            try:
                props.set(name, _usr_value(raw, kind), _USR_PTYPE[kind])
            except (ValueError, PropertyError):
                raise _bad_header("ibm-mq-usr", item) from None
    return props


def _usr_value(raw: str, kind: str) -> Any:
    if kind == "string":
        if len(raw) < 2 or raw[0] != '"' or raw[-1] != '"':
            raise ValueError(raw)
        return raw[1:-1].replace('\\"', '"')
    if kind == "boolean":
        if raw.lower() not in ("true", "false"):
            raise ValueError(raw)
        return raw.lower() == "true"
    if kind in _INT_BITS:
        value = int(raw)
        bits = _INT_BITS[kind]
        if not -(1 << (bits - 1)) <= value < 1 << (bits - 1):
            raise ValueError(raw)
        return value
    return float(raw)


def _split_items(text: str, sep: str = ",") -> list[str]:
    """``text`` split at ``sep`` outside double quotes."""
    out, cur, quoted, escaped = [], "", False, False
    for ch in text:
        if ch == sep and not quoted:
            out.append(cur)
            cur = ""
            continue
        if ch == '"' and not escaped:
            quoted = not quoted
        escaped = ch == "\\" and not escaped
        cur += ch
    out.append(cur)
    return [x for x in out if x.strip()] if sep == "," else out


def usr_header(props: dict[str, tuple[int, Any]]) -> str:
    """A message's user properties as ibm-mq-usr's value (the usr folder's; MQ's own are not)."""
    items = []
    for name, (ptype, value) in props.items():
        kind = _USR_NAME.get(ptype)
        if "." in name or kind is None:
            continue
        if kind == "string":
            text = '"' + str(value).replace('"', '\\"') + '"'
        else:
            text = ("true" if value else "false") if kind == "boolean" else repr(value)
        items.append(f"{name};{text};{kind}")
    return ",".join(items)


def get_headers(md: Any, version: str) -> dict[str, str]:
    """The ``ibm-mq-md-*`` headers of a got or browsed message."""
    out = {"ibm-mq-md-messageId": format_id(md.MsgId, version),
           "ibm-mq-md-persistence": "persistent" if md.Persistence == CMQC.MQPER_PERSISTENT else "nonPersistent",
           "ibm-mq-md-expiry": "unlimited" if md.Expiry == CMQC.MQEI_UNLIMITED else str(md.Expiry * 100)}
    if bytes(md.CorrelId).strip(b"\0"):
        out["ibm-mq-md-correlationId"] = format_id(md.CorrelId, version)
    queue = bytes(md.ReplyToQ).rstrip(b"\0 ").decode("utf-8", "replace")
    if queue:
        qmgr = bytes(md.ReplyToQMgr).rstrip(b"\0 ").decode("utf-8", "replace")
        out["ibm-mq-md-replyTo"] = f"{queue}@{qmgr}" if qmgr else queue
    if version == "v3":
        out["ibm-mq-md-priority"] = str(md.Priority)
    return out


def _od(queue: str, user: str) -> Any:
    """The queue's descriptor, with the caller as the alternate user whose authority is checked."""
    return pymqi.OD(ObjectName=queue.encode("utf-8"), AlternateUserId=user.encode("utf-8")[:12]) if user else queue


def _alt(user: str) -> int:
    return CMQC.MQOO_ALTERNATE_USER_AUTHORITY if user else 0


def topic_od(topic: str, user: str) -> Any:
    """The descriptor of a topic string (``/messaging/qmgr/{qmgr}/topic/{topicString}/message``)."""
    od = pymqi.OD(Version=CMQC.MQOD_VERSION_4, ObjectType=CMQC.MQOT_TOPIC)
    od.set_vs("ObjectString", topic.encode("utf-8"))
    if user:
        od.AlternateUserId = user.encode("utf-8")[:12]
    return od


def put(qm: Any, queue: str, body: bytes, content_type: str, headers: Any, version: str, user: str = "",
        topic: bool = False) -> bytes:
    """POST: the message put (``topic``: published on the topic string ``queue``); its MsgId."""
    kind = content_type.split(";")[0].strip().lower()
    if kind and not any(kind.startswith(t) for t in TEXT_TYPES):
        raise MessageError(415, "MQWB0306E", "The media type is unsupported for this type of request.")
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        raise MessageError(400, "MQWB0305E", "The character set is not acceptable for the request.") from None
    md = put_descriptor(headers, version)
    props = user_properties(headers.getlist("ibm-mq-usr") if hasattr(headers, "getlist") else
                            [headers["ibm-mq-usr"]] if headers.get("ibm-mq-usr") else [], version)
    if props:
        # With user properties the message is a JMS TextMessage (IBM): an MQRFH2 with the mcd
        # folder saying so and the properties in usr, the text behind it.
        props.set("mcd.Msd", "jms_text", validate=False)
        md.Format, md.Encoding, md.CodedCharSetId, body = rfh2.join(props, md.Format, md.Encoding,
                                                                    md.CodedCharSetId, body)
    qm.put1(topic_od(queue, user) if topic else _od(queue, user), body, md, pymqi.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_FAIL_IF_QUIESCING
                                                  | (CMQC.MQPMO_ALTERNATE_USER_AUTHORITY if user else 0)))
    return bytes(md.MsgId)


def _gmo(options: int, wait_ms: int) -> Any:
    """A get's options; properties come in an MQRFH2 (a JMS TextMessage's are read from it)."""
    return pymqi.GMO(Options=options | CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING
                     | CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2 | (CMQC.MQGMO_WAIT if wait_ms else 0),
                     WaitInterval=wait_ms, Version=CMQC.MQGMO_VERSION_4)


def take(qm: Any, queue: str, query: Any, version: str, destructive: bool,
         user: str = "") -> tuple[bytes, dict[str, str]] | None:
    """DELETE (``destructive``) or GET of the next message the query matches: its body and
    headers, None when there is none. The message is browsed first, and one that is not text
    stays on the queue (MQ returns only MQSTR messages here); a destructive get then takes that
    message by its MsgId."""
    wait = query.get("wait", "0")
    if not wait.isdigit() or int(wait) > MAX_WAIT_MS:
        raise MessageError(400, "MQWB0302E", f"The wait query parameter cannot be set as {wait} is not valid.")
    want, match = pymqi.MD(), 0
    if query.get("messageId"):
        want.MsgId = parse_id(query["messageId"], version, "messageId", False)
        match |= CMQC.MQMO_MATCH_MSG_ID
    if query.get("correlationId"):
        want.CorrelId = parse_id(query["correlationId"], version, "correlationId", True)
        match |= CMQC.MQMO_MATCH_CORREL_ID
    options = CMQC.MQOO_BROWSE | (CMQC.MQOO_INPUT_AS_Q_DEF if destructive else 0) | CMQC.MQOO_FAIL_IF_QUIESCING \
        | _alt(user)
    q = qm.handles.get(qm, _od(queue, user), (queue, user, options), options)
    try:
        for _attempt in range(3):          # (another getter may take the browsed message first)
            md = pymqi.MD(MsgId=want.MsgId, CorrelId=want.CorrelId)
            gmo = _gmo(CMQC.MQGMO_BROWSE_FIRST, int(wait))
            gmo.MatchOptions = match
            try:
                body = q.get(None, md, gmo)
            except pymqi.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return None
                raise
            text, heads = _text_message(md, bytes(body), version)
            if not destructive:
                return text, heads
            taken = pymqi.MD(MsgId=md.MsgId)
            gmo = _gmo(0, 0)
            gmo.MatchOptions = CMQC.MQMO_MATCH_MSG_ID
            try:
                body = q.get(None, taken, gmo)
            except pymqi.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    continue
                raise
            return _text_message(taken, bytes(body), version)
        return None
    except pymqi.MQMIError:
        qm.handles.drop(q)                 # (a handle that failed is not kept: the queue may be gone)
        raise


def _text_message(md: Any, body: bytes, version: str) -> tuple[bytes, dict[str, str]]:
    """A message's text and headers: MQSTR, or a JMS TextMessage (MQSTR behind an MQRFH2, whose
    user properties v3 returns as ibm-mq-usr); any other is refused (MQ returns only text)."""
    split = rfh2.split(md.Format, md.Encoding, md.CodedCharSetId, body)
    if split.format.strip() != CMQC.MQFMT_STRING.strip():
        raise MessageError(400, "MQWB0307E", "The message cannot be returned: its format is not MQSTR; "
                                             "it was left on the queue.")
    heads = get_headers(md, version)
    if version == "v3":
        usr = usr_header(rfh2.properties_of(md.Format, md.Encoding, body))
        if usr:
            heads["ibm-mq-usr"] = usr
    return split.data, heads


def message_list(qm: Any, queue: str, query: Any, version: str, user: str = "") -> list[dict[str, Any]]:
    """GET messagelist: each message's summary, browsed (``limit``, at most 1000 by default)."""
    limit = query.get("limit", str(LIST_LIMIT))
    if not limit.isdigit():
        raise MessageError(400, "MQWB0302E", f"The limit query parameter cannot be set as {limit} is not valid.")
    q = pymqi.Queue(qm, _od(queue, user), CMQC.MQOO_BROWSE | CMQC.MQOO_FAIL_IF_QUIESCING | _alt(user))
    out: list[dict[str, Any]] = []
    try:
        option = CMQC.MQGMO_BROWSE_FIRST
        while len(out) < int(limit):
            md = pymqi.MD()
            try:
                q.get(None, md, _gmo(option, 0))
            except pymqi.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    break
                raise
            option = CMQC.MQGMO_BROWSE_NEXT
            out.append(summary(md, version))
    finally:
        q.close()
    return out


def summary(md: Any, version: str) -> dict[str, Any]:
    heads = get_headers(md, version)
    item: dict[str, Any] = {"messageId": heads["ibm-mq-md-messageId"],
                            "format": md.Format.decode("ascii", "replace").strip(),
                            "persistence": heads["ibm-mq-md-persistence"], "priority": md.Priority,
                            "expiry": heads["ibm-mq-md-expiry"]}
    if "ibm-mq-md-correlationId" in heads:
        item["correlationId"] = heads["ibm-mq-md-correlationId"]
    if "ibm-mq-md-replyTo" in heads:
        item["replyTo"] = heads["ibm-mq-md-replyTo"]
    stamp = (bytes(md.PutDate) + bytes(md.PutTime)).decode("ascii", "replace")
    try:
        put_at = datetime.strptime(stamp[:14], "%Y%m%d%H%M%S").replace(tzinfo=timezone.utc)
        item["putDateTime"] = put_at.strftime("%Y-%m-%dT%H:%M:%S") + f".{stamp[14:16]}0Z"
    except ValueError:
        pass
    return item
