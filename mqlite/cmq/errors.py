"""The one exception the engine raises for MQI failures and warnings."""
from __future__ import annotations

from mqlite.cmq import CMQC

_NAMES = {v: k for k, v in vars(CMQC).items() if k.startswith("MQRC_") and isinstance(v, int)}


def reason_name(reason: int) -> str:
    return _NAMES.get(reason, f"MQRC_{reason}")


class MQIError(Exception):
    """An MQI call's completion and reason code (MQCC_FAILED unless said otherwise)."""

    def __init__(self, reason: int, comp: int = CMQC.MQCC_FAILED, detail: str = "",
                 checked: tuple[str, str, str] | None = None, event: dict[str, object] | None = None) -> None:
        super().__init__(f"{reason_name(reason)} ({reason}){': ' + detail if detail else ''}")
        self.comp = comp
        self.reason = reason
        self.detail = detail
        # A refused authority check: (the object type, its name, the user checked), for the event.
        self.checked = checked
        # What the event this failure raises names besides the MQOD (xmitq, qtype, base, base_type).
        self.event = event or {}
