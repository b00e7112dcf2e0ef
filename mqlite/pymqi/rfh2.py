"""pymqi's ``RFH2`` class: an MQRFH2 as a structure whose fields grow with its folders (``psc`` and
``pscLength`` for a ``<psc>`` folder), and ``put_rfh2``/``get_rfh2``'s chain handling. The header
layout and byte-order rules are mqlite.props.rfh2's; this is the application-facing shape."""
from __future__ import annotations

import struct
from typing import Any
from xml.etree import ElementTree

from mqlite.cmq import CMQC
from mqlite.pymqi.errors import PYIFError

_FIXED = [("StrucId", CMQC.MQRFH_STRUC_ID, "4s"), ("Version", CMQC.MQRFH_VERSION_2, "i"),
          ("StrucLength", 0, "i"), ("Encoding", CMQC.MQENC_NATIVE, "i"),
          ("CodedCharSetId", CMQC.MQCCSI_Q_MGR, "i"), ("Format", CMQC.MQFMT_NONE, "8s"), ("Flags", 0, "i"),
          ("NameValueCCSID", CMQC.MQCCSI_Q_MGR, "i")]
# pymqi's list: an RFH2 packed for one of these encodings is big-endian (and stays so).
BIG_ENDIAN_ENCODINGS = (CMQC.MQENC_FLOAT_S390, CMQC.MQENC_INTEGER_NORMAL | CMQC.MQENC_DECIMAL_NORMAL,
                        CMQC.MQENC_INTEGER_NORMAL | CMQC.MQENC_FLOAT_IEEE_NORMAL,
                        CMQC.MQENC_DECIMAL_NORMAL | CMQC.MQENC_FLOAT_IEEE_NORMAL,
                        CMQC.MQENC_INTEGER_NORMAL | CMQC.MQENC_DECIMAL_NORMAL | CMQC.MQENC_FLOAT_IEEE_NORMAL,
                        CMQC.MQENC_INTEGER_NORMAL | CMQC.MQENC_DECIMAL_NORMAL | CMQC.MQENC_FLOAT_S390)


def folder_name(folder: bytes) -> str:
    """The folder's root element; a folder that is not well-formed XML is refused, as pymqi does."""
    text = folder.split(b"\0", 1)[0].rstrip(b" ")
    try:
        return ElementTree.fromstring(text).tag
    except ElementTree.ParseError as e:
        raise PYIFError(f"RFH2 - XML Folder not well formed. Exception: {e}") from None


class RFH2:
    """An MQRFH2 header: the eight fixed fields, then ``<name>Length``/``<name>`` per folder.
    ``_fixed``, ``_error`` and ``_folder_name`` are what the ibmmq face changes (its first field is
    ``_StrucId``, its errors say PYIBMMQ, and it takes a folder's name from its first tag when the
    folder is not XML a parser accepts, as Java programs write them)."""

    _fixed = _FIXED
    _error = PYIFError
    _folder_name = staticmethod(folder_name)

    def __init__(self, **kw: Any) -> None:
        self._fields: list[tuple[str, str]] = [(n, c) for n, _d, c in self._fixed]
        self._values: dict[str, Any] = {n: d for n, d, _c in self._fixed}
        self._big = False        # the byte order it was unpacked in, or packed for (pymqi keeps it)
        for k, v in kw.items():
            self[k] = v

    # pymqi's MQOpts conveniences
    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __setitem__(self, name: str, value: Any) -> None:
        if name not in self._values:
            raise KeyError(name)
        if isinstance(value, str) and dict(self._fields)[name].endswith("s"):
            value = value.encode("ascii")
        self._values[name] = value

    def __getattr__(self, name: str) -> Any:
        values = self.__dict__.get("_values")
        if values is not None and name in values:
            return values[name]
        raise AttributeError(name)

    def get(self) -> dict[str, Any]:
        return {n: self._values[n] for n, _c in self._fields}

    def set(self, **kw: Any) -> None:
        for k, v in kw.items():
            self[k] = v

    def _struct(self, big: bool) -> struct.Struct:
        return struct.Struct((">" if big else "<") + "".join(c for _n, c in self._fields))

    def get_length(self) -> int:
        return self._struct(False).size

    def get_folders(self) -> list[str]:
        return [n[:-6] for n, _c in self._fields[len(self._fixed):] if n.endswith("Length")]

    def add_folder(self, folder_data: bytes) -> None:
        """Add an XML folder, padded with blanks to a multiple of four; StrucLength follows."""
        if not isinstance(folder_data, (bytes, bytearray)):
            raise TypeError("folder_data must be bytes")
        name = self._folder_name(bytes(folder_data))
        data = bytes(folder_data) + b" " * ((-len(folder_data)) % 4)
        self._fields += [(name + "Length", "i"), (name, f"{len(data)}s")]
        self._values[name + "Length"] = len(data)
        self._values[name] = data
        self._values["StrucLength"] = self.get_length()

    def pack(self, encoding: int | None = None) -> bytes:
        if encoding in BIG_ENDIAN_ENCODINGS:
            self._big = True
        return self._struct(self._big).pack(*(self._values[n] for n, _c in self._fields))

    def unpack(self, buff: bytes, encoding: int | None = None) -> RFH2:
        if not isinstance(buff, (bytes, bytearray)):
            raise TypeError("buff must be bytes")
        if buff[0:4] != CMQC.MQRFH_STRUC_ID:
            raise self._error(f"RFH2 - {self._fixed[0][0]} not MQRFH_STRUC_ID. Value: {buff[0:4]!r}")
        if len(buff) < 36:
            raise self._error(f"RFH2 - Buffer too short. Should be 36+ bytes instead of {len(buff)}")
        if encoding is None:
            big = buff[4:5] == b"\x00"        # a little-endian Version 2 starts with 0x02
        else:
            big = encoding in BIG_ENDIAN_ENCODINGS
        self.__init__()                        # type: ignore[misc]
        self._big = big
        values = struct.unpack((">" if big else "<") + "".join(c for _n, _d, c in self._fixed), buff[:36])
        self._values.update(zip((n for n, _d, _c in self._fixed), values, strict=True))
        length = self._values["StrucLength"]
        if length < 0:
            raise self._error('RFH2 - "StrucLength" is negative. Check numeric encoding.')
        if len(buff) > 36 and length > len(buff):
            raise self._error(f"RFH2 - Buffer too short. Expected: {length} Buffer Length: {len(buff)}")
        s = bytes(buff[36:length])
        order = ">i" if big else "<i"
        while s:
            (n,) = struct.unpack(order, s[:4])
            data = s[4:4 + n]
            name = self._folder_name(data)
            self._fields += [(name + "Length", "i"), (name, f"{n}s")]
            self._values[name + "Length"] = n
            self._values[name] = data.split(b"\0", 1)[0]
            s = s[4 + n:]
        return self

    def __repr__(self) -> str:
        return f"RFH2({self.get()!r})"


def pack_chain(rfh2_list: list[RFH2], encoding: int | None) -> bytes:
    """put_rfh2's data: each header packed in the encoding before it (the MQMD's for the first)."""
    out = []
    for h in rfh2_list:
        out.append(h.pack(encoding))
        encoding = h["Encoding"]
    return b"".join(out)


def unpack_chain(msg: bytes, fmt: bytes, encoding: int, into: list[RFH2], cls: type[RFH2] = RFH2) -> bytes:
    """get_rfh2: the headers at the front of ``msg`` (while the format says MQHRF2) into ``into``
    (as ``cls``: the face's RFH2); returns the data after them."""
    while fmt == CMQC.MQFMT_RF_HEADER_2 and msg[:4] == CMQC.MQRFH_STRUC_ID:
        h = cls().unpack(msg, encoding)
        into.append(h)
        msg = msg[h["StrucLength"]:]
        fmt, encoding = h["Format"], h["Encoding"]
    return msg
