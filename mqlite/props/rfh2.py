"""MQRFH2: the header chain at the front of a message's data, its name/value folders, and the
conversion between property folders and message properties both ways.

An MQRFH2 is 36 bytes (StrucId "RFH ", Version 2, StrucLength, Encoding, CodedCharSetId, Format,
Flags, NameValueCCSID) then folders, each a length and that many bytes of XML-like text padded to
four. Its integers are in the encoding of what comes before it (the MQMD's, or the previous
header's ``Encoding``); its ``Format``/``Encoding``/``CodedCharSetId`` describe what follows.

Property folders are the ones MQ reads properties from: ``usr`` (user properties, no groups),
``jms``, ``mcd``, ``mqext``, ``mq``, ``mq_usr``, ``mqps``, the ``sib`` folders, and any folder with
``content='properties'``. Each leaf element is a property ``folder.group….name`` (a ``usr`` leaf
is the bare name); ``dt`` gives its type (absent: string) and ``xsi:nil='true'`` a null. Other
folders (an application's own, such as ``<psc>``) are kept as they are.

mqlite stores a message's properties in this form in its data: whatever carries the message
(the store, channels, shared queues) carries its properties, and the MQGET side decides, by
PROPCTL and the MQGMO options, what the application sees (``mqlite.props.deliver``).
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.props.values import INT_RANGES, Properties, PropertyError, coerce, to_text

RFH2_FORMAT = C.MQFMT_RF_HEADER_2               # b"MQHRF2  "
FIXED = C.MQRFH_STRUC_LENGTH_FIXED_2            # 36
NATIVE = C.MQENC_NATIVE
_BIG = C.MQENC_INTEGER_NORMAL | C.MQENC_DECIMAL_NORMAL | C.MQENC_FLOAT_IEEE_NORMAL   # 273
UTF8 = 1208
PROPERTY_FOLDERS = frozenset({"usr", "jms", "mcd", "mqext", "mq", "mq_usr", "mqps", "sib", "sib_usr",
                              "sib_context"})
JMS_FOLDERS = frozenset({"mcd", "jms", "usr", "mqext"})     # PROPCTL(COMPAT)'s test
_DT_TYPE = {"string": C.MQTYPE_STRING, "boolean": C.MQTYPE_BOOLEAN, "bin.hex": C.MQTYPE_BYTE_STRING,
            "i1": C.MQTYPE_INT8, "i2": C.MQTYPE_INT16, "i4": C.MQTYPE_INT32, "int": C.MQTYPE_INT32,
            "i8": C.MQTYPE_INT64, "r4": C.MQTYPE_FLOAT32, "r8": C.MQTYPE_FLOAT64}
_TYPE_DT = {C.MQTYPE_BOOLEAN: "boolean", C.MQTYPE_BYTE_STRING: "bin.hex", C.MQTYPE_INT8: "i1",
            C.MQTYPE_INT16: "i2", C.MQTYPE_INT32: "i4", C.MQTYPE_INT64: "i8", C.MQTYPE_FLOAT32: "r4",
            C.MQTYPE_FLOAT64: "r8"}
_HEAD_BE = struct.Struct(">4si i i i 8s i i".replace(" ", ""))
_HEAD_LE = struct.Struct("<4si i i i 8s i i".replace(" ", ""))
_TAG = re.compile(r"<(/?)([^\s/<>=]+)((?:\s+[^\s=<>/]+\s*=\s*(?:'[^']*'|\"[^\"]*\"))*)\s*(/?)>")
_ATTR = re.compile(r"([^\s=]+)\s*=\s*(?:'([^']*)'|\"([^\"]*)\")")
_ENTITIES = {"&lt;": "<", "&gt;": ">", "&amp;": "&", "&quot;": '"', "&apos;": "'"}
_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);")


class RFHError(Exception):
    """A header or folder that does not parse: ``reason`` is MQ's (2334 on MQPUT, 2421 on MQGET)."""

    def __init__(self, reason: int, detail: str = "") -> None:
        super().__init__(detail or str(reason))
        self.reason = reason


@dataclass
class Header:
    """One MQRFH2 of a chain, its integers' byte order remembered so it is rebuilt the same way."""
    big_endian: bool
    encoding: int
    ccsid: int
    format: bytes
    flags: int = 0
    name_value_ccsid: int = UTF8
    folders: list[bytes] = field(default_factory=list)

    def pack(self) -> bytes:
        order = ">" if self.big_endian else "<"
        parts = []
        for f in self.folders:
            pad = (-len(f)) % 4
            parts.append(struct.pack(order + "i", len(f) + pad) + f + b" " * pad)
        data = b"".join(parts)
        head = (_HEAD_BE if self.big_endian else _HEAD_LE).pack(
            C.MQRFH_STRUC_ID, C.MQRFH_VERSION_2, FIXED + len(data), self.encoding, self.ccsid,
            self.format, self.flags, self.name_value_ccsid)
        return head + data


def big_endian(encoding: int) -> bool:
    return encoding & C.MQENC_INTEGER_MASK == C.MQENC_INTEGER_NORMAL


def parse_chain(fmt: bytes, encoding: int, body: bytes, reason: int = C.MQRC_RFH_ERROR
                ) -> tuple[list[Header], int, bytes, int, int]:
    """The MQRFH2 headers at the front of ``body`` when ``fmt`` says one is there: (headers, offset
    of what follows, its format, encoding and CCSID). A header whose fields or lengths are wrong
    raises RFHError(reason): MQ's 2334 MQRC_RFH_ERROR for a put."""
    headers: list[Header] = []
    off = 0
    ccsid = 0
    while fmt == RFH2_FORMAT:
        if len(body) - off < FIXED:
            raise RFHError(reason, "MQRFH2 longer than the message")
        be = big_endian(encoding)
        sid, version, length, enc, ccsid, nxt, flags, nvccsid = (_HEAD_BE if be else _HEAD_LE).unpack_from(body, off)
        if sid != C.MQRFH_STRUC_ID or version != C.MQRFH_VERSION_2:
            raise RFHError(reason, "StrucId or Version")
        if length < FIXED or off + length > len(body) or length % 4:
            raise RFHError(reason, "StrucLength")
        folders = []
        pos, end = off + FIXED, off + length
        order = ">i" if be else "<i"
        while pos < end:
            if pos + 4 > end:
                raise RFHError(reason, "NameValueLength")
            (n,) = struct.unpack_from(order, body, pos)
            if n < 0 or pos + 4 + n > end:
                raise RFHError(reason, "NameValueLength")
            folders.append(body[pos + 4:pos + 4 + n])
            pos += 4 + n
        headers.append(Header(be, enc, ccsid, nxt, flags, nvccsid, folders))
        off, fmt, encoding = end, nxt, enc
    return headers, off, fmt, encoding, ccsid


def chain_length(fmt: bytes, encoding: int, body: bytes) -> int:
    """Where the MQRFH2 headers at the front of ``body`` end, read from their StrucLength and
    Format fields alone (no folder is parsed); -1 when they do not read (``parse_chain`` says why)."""
    off = 0
    while fmt == RFH2_FORMAT:
        if len(body) - off < FIXED:
            return -1
        sid, version, length, encoding, _c, fmt, _f, _n = (
            _HEAD_BE if big_endian(encoding) else _HEAD_LE).unpack_from(body, off)
        if sid != C.MQRFH_STRUC_ID or version != C.MQRFH_VERSION_2 or length < FIXED or off + length > len(body):
            return -1
        off += length
    return off


# --- folders ⇄ properties -----------------------------------------------------------------------
def _unescape(text: str) -> str:
    if "&" not in text:
        return text

    def one(m: re.Match[str]) -> str:
        e = m.group(0)
        if e in _ENTITIES:
            return _ENTITIES[e]
        return chr(int(e[3:-1], 16) if e[2] == "x" else int(e[2:-1]))
    return _ENTITY.sub(one, text)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _decode(folder: bytes) -> str:
    try:
        return folder.rstrip(b" \0").decode("utf-8")
    except UnicodeDecodeError:
        raise RFHError(C.MQRC_RFH_FORMAT_ERROR, "folder is not UTF-8") from None


def property_folder(folder: bytes) -> str | None:
    """The folder's name when it holds properties (a folder MQ reads them from, or one marked
    ``content='properties'``), else None (an application's own folder)."""
    m = _TAG.match(folder.decode("utf-8", "replace").lstrip())
    if m is None:
        return None
    name = m.group(2)
    if name in PROPERTY_FOLDERS or any(k == "content" and (a or b) == "properties"
                                       for k, a, b in _ATTR.findall(m.group(3))):
        return name
    return None


def _typed(dt: str | None, nil: bool, text: str) -> tuple[int, Any]:
    if nil:
        return C.MQTYPE_NULL, None
    ptype = _DT_TYPE.get(dt or "string")
    if ptype is None:
        raise RFHError(C.MQRC_RFH_FORMAT_ERROR, f"dt={dt!r}")
    try:
        if ptype == C.MQTYPE_STRING:
            return ptype, text
        if ptype == C.MQTYPE_BOOLEAN:
            t = text.strip().lower()
            if t not in ("1", "0", "true", "false"):
                raise ValueError(text)
            return ptype, t in ("1", "true")
        if ptype == C.MQTYPE_BYTE_STRING:
            return ptype, bytes.fromhex(text.strip())
        if ptype in INT_RANGES:
            return ptype, coerce(int(text.strip()), ptype)
        return ptype, coerce(float(text.strip()), ptype)
    except (ValueError, PropertyError):
        raise RFHError(C.MQRC_RFH_FORMAT_ERROR, f"value {text!r} is not {dt}") from None


_FLAT = re.compile(r"<([A-Za-z_$][\w$]*)(?: dt='([\w.]+)')?>([^<]*)</\1>")
_FLAT_ALL = re.compile(r"(?:<([A-Za-z_$][\w$]*)(?: dt='[\w.]+')?>[^<]*</\1>)*\Z")
_ROOT = re.compile(r"\s*<([A-Za-z_$][\w$]*)(?: content='properties')?>(.*)</\1>\s*\Z", re.DOTALL)


def _flat(text: str) -> tuple[str, str] | None:
    """(folder, its inside) when the folder is leaf after leaf (what ``build_folders`` writes for
    a folder without groups), else None."""
    root = _ROOT.match(text)
    if root is None or _FLAT_ALL.match(root.group(2)) is None:
        return None
    return root.group(1), root.group(2)


def checked_property_folder(folder: bytes) -> str | None:
    """``property_folder`` and, for a property folder, ``check_folder`` in one reading: the common
    folder (a known name, leaf after leaf, UTF-8) is decoded and matched once."""
    try:
        root = _ROOT.match(folder.rstrip(b" \0").decode("utf-8"))
    except UnicodeDecodeError:
        root = None
    if root is not None and root.group(1) in PROPERTY_FOLDERS and _FLAT_ALL.match(root.group(2)) is not None:
        return root.group(1)
    name = property_folder(folder)
    if name is not None:
        check_folder(folder)
    return name


def check_folder(folder: bytes) -> None:
    """A property folder reads (RFHError 2421 if not), without building its properties."""
    if _flat(_decode(folder)) is None:
        folder_properties(folder, {})


def folder_properties(folder: bytes, into: dict[str, tuple[int, Any]]) -> None:
    """Add the properties of one property folder to ``into`` (name → (type, value))."""
    text = _decode(folder)
    flat = _flat(text)
    if flat is not None:
        top, inner = flat
        for name, dt, value in _FLAT.findall(inner):
            if "&" in value:
                value = _unescape(value)
            into[name if top == "usr" else f"{top}.{name}"] = (C.MQTYPE_STRING, value) if not dt else \
                _typed(dt, False, value)
        return
    stack: list[str] = []
    leaf: tuple[str, str | None, bool, int] | None = None     # name, dt, nil, text start
    pos = 0
    for m in _TAG.finditer(text):
        between = text[pos:m.start()]
        pos = m.end()
        closing, name, attrs, empty = m.group(1), m.group(2), m.group(3), m.group(4)
        if closing:
            if not stack or stack[-1] != name:
                raise RFHError(C.MQRC_RFH_FORMAT_ERROR, f"</{name}> does not close")
            if leaf is not None and leaf[0] == name:
                _add(into, stack, leaf[1], leaf[2], _unescape(text[leaf[3]:m.start()]))
                leaf = None
            elif between.strip():
                raise RFHError(C.MQRC_RFH_FORMAT_ERROR, "mixed content")
            stack.pop()
            continue
        if between.strip() and stack:
            raise RFHError(C.MQRC_RFH_FORMAT_ERROR, "text beside an element")
        a = {k: (x or y) for k, x, y in _ATTR.findall(attrs)}
        dt, nil = a.get("dt"), a.get("xsi:nil") == "true"
        if empty:
            if stack:
                _add(into, stack + [name], dt, nil, "")
            continue
        leaf = (name, dt, nil, m.end()) if stack else None
        stack.append(name)
    if stack or text[pos:].strip():
        raise RFHError(C.MQRC_RFH_FORMAT_ERROR, "folder not closed")


def _add(into: dict[str, tuple[int, Any]], path: list[str], dt: str | None, nil: bool, text: str) -> None:
    name = path[-1] if path[0] == "usr" and len(path) == 2 else ".".join(path)
    into[name] = _typed(dt, nil, text)


def build_folders(props: Properties) -> list[bytes]:
    """Property folders for ``props``, one per top-level folder, groups nested, in set order."""
    trees: dict[str, dict[str, Any]] = {}
    for name, ptype, value in props:
        parts = name.split(".")
        if len(parts) == 1:
            parts = ["usr", name]
        node = trees.setdefault(parts[0], {})
        for p in parts[1:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = (ptype, value)
    out = []
    for top, tree in trees.items():
        attr = "" if top in PROPERTY_FOLDERS else " content='properties'"
        out.append(f"<{top}{attr}>{_elements(tree)}</{top}>".encode("utf-8", "surrogateescape"))
    return out


def _elements(tree: dict[str, Any]) -> str:
    parts = []
    for name, v in tree.items():
        if isinstance(v, dict):
            parts.append(f"<{name}>{_elements(v)}</{name}>")
            continue
        ptype, value = v
        if ptype == C.MQTYPE_NULL:
            parts.append(f"<{name} xsi:nil='true'></{name}>")
            continue
        dt = _TYPE_DT.get(ptype)
        text = ("1" if value else "0") if ptype == C.MQTYPE_BOOLEAN else to_text(ptype, value)
        attr = f" dt='{dt}'" if dt else ""
        parts.append(f"<{name}{attr}>{_escape(text)}</{name}>")
    return "".join(parts)


# --- whole messages ---------------------------------------------------------------------------------
@dataclass
class Split:
    """A message with its property folders taken out: the data an application sees without them."""
    format: bytes
    encoding: int
    ccsid: int
    data: bytes
    jms: bool            # a property folder PROPCTL(COMPAT) looks for was there
    folders: list[bytes] = field(default_factory=list)    # the property folders, as they were
    raw: bytes | None = None     # the message's own MQRFH2 when it held them all (native order): reused


def split(fmt: bytes, encoding: int, ccsid: int, body: bytes) -> Split:
    """Remove the property folders from the MQRFH2 chain at the front of ``body``; a header left
    with no folders is removed too, its Format/Encoding/CCSID passed to what precedes it. Each
    property folder is checked to read (2421), not built into properties: MQGET hands the folders
    on to the message handle as they are (``properties_of`` builds them)."""
    headers, off, fmt2, enc2, ccsid2 = parse_chain(fmt, encoding, body, C.MQRC_RFH_FORMAT_ERROR)
    kept: list[Header] = []
    taken: list[bytes] = []
    jms = False
    for h in headers:
        rest = []
        for f in h.folders:
            name = checked_property_folder(f)
            if name is None:
                rest.append(f)
                continue
            taken.append(f)
            jms = jms or name in JMS_FOLDERS
        if rest:
            h.folders = rest
            kept.append(h)
    if not taken:
        return Split(fmt, encoding, ccsid, body, False)
    # Rebuild from the back: each kept header describes what follows it, and its integers are in
    # the order the encoding before it names.
    tail = body[off:]
    nfmt, nenc, nccsid = fmt2, enc2, ccsid2
    for h in reversed(kept):
        h.format, h.encoding, h.ccsid = nfmt, nenc, nccsid
        tail = h.pack() + tail
        nfmt, nenc, nccsid = RFH2_FORMAT, (_BIG if h.big_endian else NATIVE), UTF8
    if not kept:
        # One native header of property folders only (what a handle's put makes): the handle gets
        # it as it is instead of a copy built again.
        raw = body[:off] if len(headers) == 1 and not headers[0].big_endian else None
        return Split(fmt2, enc2, ccsid2, tail, jms, taken, raw)
    out_enc = encoding if kept[0].big_endian == big_endian(encoding) else nenc
    return Split(RFH2_FORMAT, out_enc, ccsid, tail, jms, taken)


def join(props: Properties, fmt: bytes, encoding: int, ccsid: int, body: bytes,
         folders: list[bytes] | None = None) -> tuple[bytes, int, int, bytes]:
    """The message data with ``props`` in an MQRFH2 in front (native encoding, UTF-8 folders):
    (format, encoding, ccsid, data) for the MQMD. No properties: the message as it is.
    ``folders``: ``build_folders(props)`` already made (a handle put from again and again)."""
    if not props:
        return fmt, encoding, ccsid, body
    fmt = fmt.split(b"\0", 1)[0][:8].ljust(8, b" ")       # NULs read as MQFMT_NONE, as MQPUT reads them
    head = Header(False, encoding, ccsid, fmt, 0, UTF8, folders if folders is not None else build_folders(props))
    return RFH2_FORMAT, NATIVE, UTF8, head.pack() + body


def folders_blob(folders: list[bytes]) -> bytes:
    """Property folders as they travel to a message handle: one MQRFH2 (native encoding)."""
    return Header(False, NATIVE, UTF8, C.MQFMT_NONE, 0, UTF8, folders).pack() if folders else b""


def properties_of(fmt: bytes, encoding: int, body: bytes) -> dict[str, tuple[int, Any]]:
    """The properties a message's data carries, without changing it (what a selector reads)."""
    if fmt != RFH2_FORMAT:
        return {}
    headers, _off, _f, _e, _c = parse_chain(fmt, encoding, body, C.MQRC_RFH_FORMAT_ERROR)
    props: dict[str, tuple[int, Any]] = {}
    for h in headers:
        for f in h.folders:
            if property_folder(f) is not None:
                folder_properties(f, props)
    return props


def check(fmt: bytes, encoding: int, body: bytes) -> None:
    """MQPUT's check of a message that says it starts with an MQRFH2 (2334 when it does not)."""
    if fmt == RFH2_FORMAT:
        parse_chain(fmt, encoding, body, C.MQRC_RFH_ERROR)


__all__ = ["RFH2_FORMAT", "Header", "RFHError", "Split", "build_folders", "chain_length", "check", "folder_properties",
           "folders_blob", "join", "parse_chain", "properties_of", "property_folder", "split"]
