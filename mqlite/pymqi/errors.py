"""pymqi's exceptions, and how a reply's completion and reason codes become one."""
from __future__ import annotations

from typing import Any

from mqlite.cmq import CMQC, CMQCFC
from mqlite.net.client import TransportError
from mqlite.net.protocol import II


def _names(mod: Any, prefix: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for k, v in vars(mod).items():
        if k.startswith(prefix) and isinstance(v, int) and v not in out:
            out[v] = k
    return out


RC_NAMES = {**_names(CMQC, "MQRC_"), **_names(CMQCFC, "MQRCCF_")}     # a reason code's name


class Error(Exception):
    """Base class of every pymqi exception."""


class MQMIError(Error):
    """An MQI call failed or warned: ``comp`` and ``reason`` are MQ's completion and reason codes."""

    comp = CMQC.MQCC_OK
    reason = CMQC.MQRC_NONE

    def __init__(self, comp: int, reason: int, **kw: Any) -> None:
        super().__init__(comp, reason)
        self.comp = comp
        self.reason = reason
        for k, v in kw.items():
            setattr(self, k, v)

    def __str__(self) -> str:
        return "MQI Error. Comp: %d, Reason %d: %s" % (self.comp, self.reason, self.errorAsString())

    def errorAsString(self) -> str:
        if self.comp == CMQC.MQCC_OK:
            return "OK"
        prefix = "WARNING" if self.comp == CMQC.MQCC_WARNING else "FAILED"
        name = RC_NAMES.get(self.reason)
        if name is None:
            return f"{prefix}: Error code {self.reason} not defined"
        return f"{prefix}: {name}"

    error_as_string = errorAsString

    def get(self, k: str) -> Any:
        """An attribute the error was given (ibmmq's accessor; MQINQMP's ``value``, for one)."""
        return getattr(self, k)


class PYIFError(Error):
    """A mistake on the Python side (not connected, already open, ...)."""

    def __init__(self, e: Any) -> None:
        super().__init__(e)
        self.error = e

    def __str__(self) -> str:
        return f"PYMQI Error: {self.error}"


def failure(e: TransportError) -> MQMIError:
    """The MQI error for a connection that could not be made or broke (2009, 2538, ...)."""
    return MQMIError(CMQC.MQCC_FAILED, e.reason, detail=e.detail)


def check_reply(reply: bytes) -> tuple[int, int]:
    """The completion and reason codes a reply starts with; MQMIError when the call failed."""
    comp, reason = II.unpack_from(reply)
    if comp == CMQC.MQCC_FAILED:
        raise MQMIError(comp, reason)
    return comp, reason
