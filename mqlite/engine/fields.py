"""A field of a status display, declared once for both of its forms: the MQSC keyword DISPLAY
shows and the PCF parameter an inquiry answers (``engine.connections``, ``engine.status``)."""
from __future__ import annotations

from collections.abc import Callable
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


def enum(words: dict[int, str], default: str = "") -> Callable[[int], str]:
    return lambda value: words.get(value, default or str(value))


@dataclass(frozen=True)
class Field:
    """One thing a status display shows."""
    keyword: str                                  # MQSC's (DISPLAY CONN, DISPLAY QSTATUS, ...)
    selector: int                                 # the PCF inquiry's parameter
    width: int = 0                                # a string's length in PCF (0: numbers; -1: as long as it is)
    word: Callable[[Any], str] | None = None      # the value's MQSC form (None: as it is)

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
