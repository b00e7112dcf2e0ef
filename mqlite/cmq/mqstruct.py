"""The base of every MQ structure (``MQStruct``): a table of fields ``(name, default, struct
format)`` that gives attribute access with defaults, ``pack()``/``unpack()`` in MQ's C layout (64-bit
Linux, native byte order and alignment) and pymqi's conveniences (item access, ``set``, ``get``).
The structures themselves are in ``structs``."""
from __future__ import annotations

import operator
import struct
from typing import TYPE_CHECKING, Any, ClassVar, Self

Field = tuple[str, Any, str]


def _to_bytes(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("ascii", "replace")
    return value


class MQStruct:
    """Base for all structures; subclasses declare ``_fields``."""

    _fields: ClassVar[list[Field]] = []
    _names: ClassVar[tuple[str, ...]] = ()
    _struct: ClassVar[struct.Struct]
    _bytes_fields: ClassVar[frozenset[str]] = frozenset()
    _list_fields: ClassVar[dict[str, int]] = {}
    _getter: ClassVar[operator.itemgetter[Any]]     # the fields' values from __dict__, in order
    _defaults: ClassVar[dict[str, Any]]
    __slots__ = ("__dict__",)

    if TYPE_CHECKING:
        # The fields are made from ``_fields`` at run time: to a type checker, any attribute.
        def __getattr__(self, name: str) -> Any: ...

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if not cls.__dict__.get("_fields"):
            return
        fmt = "@"
        names: list[str] = []
        bytes_fields = set()
        list_fields = {}
        for name, _default, code in cls._fields:
            fmt += code
            names.append(name)
            if code.endswith("s"):
                bytes_fields.add(name)
            count = code[:-1]
            if code[-1] in "iqP" and count:
                list_fields[name] = int(count)
        cls._struct = struct.Struct(fmt + cls._tail_pad())
        cls._names = tuple(names)
        cls._bytes_fields = frozenset(bytes_fields)
        cls._list_fields = list_fields
        cls._getter = operator.itemgetter(*names)
        cls._defaults = {n: d for n, d, _c in cls._fields}

    @classmethod
    def layout(cls) -> struct.Struct:
        """The packed layout: one struct of every field, in order (``field_names``)."""
        return cls._struct

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return cls._names

    @classmethod
    def field_slice(cls, name: str) -> slice:
        """Where a field lies in the packed layout (native alignment, as ``pack`` lays it out)."""
        prefix = "@"
        for n, _d, code in cls._fields:
            if n == name:
                end = struct.calcsize(prefix + code)
                return slice(end - struct.calcsize("@" + code), end)
            prefix += code
        raise KeyError(name)

    @classmethod
    def field_struct(cls, *names: str, write: bool = False) -> tuple[int, struct.Struct]:
        """Where fields ``names`` (in layout order) lie in the packed layout: the first one's offset,
        and a struct that reads them there with the gaps between them skipped, or with ``write``
        writes them (adjacent fields only: ``pack_into`` would write zeros over a gap)."""
        codes = {n: c for n, _d, c in cls._fields}
        fmt, at, end = "=", -1, -1
        for n in names:
            where = cls.field_slice(n)
            if at < 0:
                at = end = where.start
            if where.start > end and write:
                raise ValueError(f"{n} does not follow the field before it")
            fmt += f"{where.start - end}x{codes[n]}" if where.start > end else codes[n]
            end = where.stop
        return at, struct.Struct(fmt)

    @classmethod
    def _tail_pad(cls) -> str:
        # C structures are padded to their widest member; struct adds no trailing padding itself.
        size = struct.calcsize("@" + "".join(c for _, _, c in cls._fields))
        widest = 8 if any(c[-1] in "qP" for _, _, c in cls._fields) else 4
        rem = size % widest
        return f"{widest - rem}x" if rem else ""

    def __init__(self, **kw: Any) -> None:
        d = self.__dict__
        if self._list_fields:
            for name, default, _code in self._fields:
                d[name] = list(default) if isinstance(default, list) else default
        else:
            d.update(self._defaults)
        if kw:
            self.set(**kw)

    # pymqi-style accessors -------------------------------------------------------------------
    def set(self, **kw: Any) -> None:
        d = self.decoded()
        for name, value in kw.items():
            if name not in d:
                raise AttributeError(f"{type(self).__name__} has no field {name!r}")
            d[name] = _to_bytes(value) if name in self._bytes_fields else value

    def get(self) -> dict[str, Any]:
        d = self.decoded()
        return {n: d[n] for n in self._names}

    def decoded(self) -> dict[str, Any]:
        """The fields, every one in ``__dict__`` (an MQMD may hold some packed still: ``MD.hold``)."""
        return self.__dict__

    def __setattr__(self, name: str, value: Any) -> None:
        # Any attribute may be assigned, as on pymqi's and ibmmq's structures (IBM's samples set
        # md.ReportOptions, which is no MQMD field); only the declared fields are packed.
        if name in self._bytes_fields:
            value = _to_bytes(value)
        self.__dict__[name] = value

    def __getitem__(self, name: str) -> Any:
        return self.decoded()[name]

    def __setitem__(self, name: str, value: Any) -> None:
        self.set(**{name: value})        # as pymqi: only a field the structure has (AttributeError)

    def get_length(self) -> int:
        return self._struct.size

    def set_vs(self, name: str, value: str | bytes | None = None, offset: int = 0, buffer_size: int = 0,
               ccsid: int = 0) -> None:
        """An MQCHARV field's string (pymqi's ``set_vs``): kept beside the structure, its length in
        ``<name>VSLength``; the wire carries the strings a verb needs (an MQOD's SelectionString)."""
        data = value.encode("utf-8") if isinstance(value, str) else (value or b"")
        self.__dict__.setdefault("_vs", {})[name] = data
        self.__dict__[name + "VSLength"] = len(data)
        self.__dict__[name + "VSCCSID"] = ccsid or (1208 if data else 0)

    def get_vs(self, name: str) -> bytes:
        return self.__dict__.get("_vs", {}).get(name, b"")

    def pack(self) -> bytes:
        d = self.__dict__
        if not self._list_fields:
            try:
                return self._struct.pack(*self._getter(d))
            except struct.error as exc:
                raise TypeError(f"{type(self).__name__}: cannot pack: {exc}") from None
        values: list[Any] = []
        for name in self._names:
            v = d[name]
            if name in self._list_fields:
                values.extend(v)
            else:
                values.append(v)
        try:
            return self._struct.pack(*values)
        except struct.error as exc:
            raise TypeError(f"{type(self).__name__}: cannot pack: {exc}") from None

    def unpack(self, buf: bytes, offset: int = 0) -> Self:
        """The fields from ``buf`` (at ``offset``: a reply's structures are read in place)."""
        if len(buf) - offset < self._struct.size:
            raise ValueError(f"{type(self).__name__}: buffer of {len(buf) - offset} bytes, need {self._struct.size}")
        values = self._struct.unpack_from(buf, offset)
        d = self.__dict__
        if not self._list_fields:
            d.update(zip(self._names, values, strict=False))
            return self
        i = 0
        for name in self._names:
            n = self._list_fields.get(name)
            if n:
                d[name] = list(values[i:i + n])
                i += n
            else:
                d[name] = values[i]
                i += 1
        return self

    @classmethod
    def from_bytes(cls, buf: bytes) -> Self:
        obj = cls.__new__(cls)
        obj.unpack(buf)
        return obj

    def copy(self) -> Self:
        obj = type(self).__new__(type(self))
        if self._list_fields:
            obj.__dict__.update({k: (list(v) if isinstance(v, list) else v) for k, v in self.__dict__.items()})
        else:
            obj.__dict__.update(self.__dict__)
        return obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MQStruct) and type(other) is type(self) and self.get() == other.get()

    def __repr__(self) -> str:
        d = self.decoded()
        inner = ", ".join(f"{n}={d[n]!r}" for n in self._names)
        return f"{type(self).__name__}({inner})"

    def __str__(self) -> str:
        d = self.decoded()
        return "\n".join(f"{n}: {d[n]!r}" for n in self._names)
