"""A field of a status display, declared once for both of its forms: the MQSC keyword DISPLAY
shows and the PCF parameter an inquiry answers (``engine.connections``, ``engine.status``)."""
from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq.structs import pad


def flags(prefix: str, names: tuple[str, ...]) -> Callable[[int], str]:
    """A bit-mask's MQSC form: the names of the bits set, comma-separated."""
    bits = [(getattr(C, n), n) for n in names]

    def word(value: int) -> str:
        return ",".join(n for b, n in bits if value & b) or f"{prefix}NONE"
    return word


def hex_upper(value: Any) -> str:
    """A byte string as DISPLAY shows it: hexadecimal, upper case."""
    return bytes(value).hex().upper()


class enum:
    """An enumeration's MQSC form: the word for each number (else ``default``, or the number),
    and back (``value_of``: the number a word stands for, None for no word)."""

    def __init__(self, words: dict[int, str], default: str = "") -> None:
        self.words = words
        self.default = default

    def __call__(self, value: int) -> str:
        return self.words.get(value, self.default or str(value))

    def value_of(self, word: str) -> int | None:
        return next((v for v, w in self.words.items() if w == word), None)


@dataclass(frozen=True)
class Field:
    """One thing a status display shows."""
    keyword: str                                  # MQSC's (DISPLAY CONN, DISPLAY QSTATUS, ...)
    selector: int                                 # the PCF inquiry's parameter
    width: int = 0                                # a string's length in PCF (0: numbers; -1: as long as it is)
    word: Callable[[Any], str] | None = None      # the value's MQSC form (None: as it is)
    binary: bool = False                          # a byte string (MQBACF_*), which DISPLAY shows in hex

    def pcf_value(self, value: Any) -> Any:
        """The value as PCF carries it: a string padded to its length, the number, or a list of
        numbers."""
        if isinstance(value, bytes):
            return value
        if self.width == 0:
            return [int(v) for v in value] if isinstance(value, (list, tuple)) else int(value)
        text = str(value)
        return pad(text, self.width) if self.width > 0 else text.encode()

    def mqsc(self, value: Any) -> str:
        return self.word(value) if self.word is not None else str(value)

    def value_of(self, word: str) -> Any:
        """What a DISPLAY's word (a WHERE's value) is in PCF: a number for a number or an
        enumeration's word (None when it is neither), text for a string."""
        if isinstance(self.word, enum):
            return self.word.value_of(word.upper())
        if self.word is not None or self.width == 0:
            return int(word) if word.lstrip("-").isdigit() else None
        return word


def mqsc_items(fields: Iterable[Field], row: dict[str, Any], shown: Collection[str] | None = None) -> list[str]:
    """A status row as DISPLAY's KEY(value) items, those ``shown`` (None: all) that the row has;
    a blank value is KEY( ), as runmqsc shows it."""
    return [f"{f.keyword}({f.mqsc(row[f.keyword]) or ' '})" for f in fields
            if f.keyword in row and (shown is None or f.keyword in shown)]

