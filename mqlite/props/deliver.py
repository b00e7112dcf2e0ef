"""What an MQGET returns of a message's properties: MQ's rules as a decision (``mode``) and its
application to the stored message (``deliver``).

The decision reads the MQGMO property option (at most one of FORCE_MQRFH2, NO_PROPERTIES,
PROPERTIES_IN_HANDLE, PROPERTIES_COMPATIBILITY; none means PROPERTIES_AS_Q_DEF), whether the
application gave a message handle, and the queue's PROPCTL:

==============================  =====================  =====================
option / PROPCTL                with a message handle  without one
==============================  =====================  =====================
FORCE_MQRFH2, PROPCTL(FORCE)    RFH2 (handle ignored)  RFH2
NO_PROPERTIES, PROPCTL(NONE)    none                   none
PROPERTIES_IN_HANDLE            HANDLE                 2460 MQRC_HMSG_ERROR
PROPERTIES_COMPATIBILITY        HANDLE                 COMPAT
PROPCTL(COMPAT) (the default)   HANDLE                 COMPAT
PROPCTL(ALL)                    HANDLE                 RFH2
PROPCTL(V6COMPAT)               HANDLE                 RFH2 (as it was put)
==============================  =====================  =====================

RFH2: the data as stored, properties in its MQRFH2 folders. HANDLE: property folders removed
from the data into the handle. NONE: property folders removed and dropped. COMPAT: as RFH2 when
the message has a property in ``mcd``, ``jms``, ``usr`` or ``mqext``, else as NONE.
"""
from __future__ import annotations

from typing import NamedTuple

from mqlite.cmq import CMQC as C
from mqlite.props.rfh2 import RFH2_FORMAT, RFHError, folders_blob, split

RFH2, HANDLE, NONE, COMPAT = "rfh2", "handle", "none", "compat"
PROPERTY_GMO = (C.MQGMO_PROPERTIES_FORCE_MQRFH2 | C.MQGMO_NO_PROPERTIES | C.MQGMO_PROPERTIES_IN_HANDLE
                | C.MQGMO_PROPERTIES_COMPATIBILITY)


class DeliveryError(Exception):
    def __init__(self, reason: int) -> None:
        super().__init__(reason)
        self.reason = reason


def mode(gmo_options: int, has_handle: bool, propctl: int) -> str:
    """How properties are returned: one of RFH2, HANDLE, NONE, COMPAT (the table above)."""
    chosen = gmo_options & PROPERTY_GMO
    if chosen:
        if chosen & (chosen - 1):
            raise DeliveryError(C.MQRC_OPTIONS_ERROR)
        if chosen == C.MQGMO_PROPERTIES_FORCE_MQRFH2:
            return RFH2
        if chosen == C.MQGMO_NO_PROPERTIES:
            return NONE
        if chosen == C.MQGMO_PROPERTIES_IN_HANDLE and not has_handle:
            raise DeliveryError(C.MQRC_HMSG_ERROR)
        return HANDLE if has_handle else COMPAT           # IN_HANDLE, or PROPERTIES_COMPATIBILITY
    if propctl == C.MQPROP_FORCE_MQRFH2:
        return RFH2
    if propctl == C.MQPROP_NONE:
        return NONE
    if has_handle:
        return HANDLE
    return COMPAT if propctl == C.MQPROP_COMPATIBILITY else RFH2


class Delivered(NamedTuple):
    format: bytes
    encoding: int
    ccsid: int
    data: bytes
    props: bytes | None       # for the handle (HANDLE mode): the property folders in one MQRFH2, else None
    reason: int                                 # MQRC_NONE, or 2421 (warning: data left as stored)


Shared = dict[str, Delivered]   # kept with a publication's copies: the answer for each mode ``how``

_SHARED: dict[tuple[str, bytes, int, int, bytes], Delivered] = {}
_SHARED_MAX, _SHARED_BYTES = 128, 16384          # at most 2 MiB kept


def deliver(how: str, fmt: bytes, encoding: int, ccsid: int, data: bytes,
            shared: Shared | None = None) -> Delivered:
    """The message as the application receives it in mode ``how``. Data with no MQRFH2 in front
    has no properties and comes back untouched (the common case costs one comparison). The
    copies of one publication share their data: ``shared``, kept with each copy, holds the answer
    for the others (as long as a copy is on a queue). Without it, equal data (one bytes object,
    its hash kept by Python) finds the answer in a small table, emptied when full."""
    if fmt != RFH2_FORMAT or how == RFH2:
        return Delivered(fmt, encoding, ccsid, data, b"" if how == HANDLE else None, C.MQRC_NONE)
    if shared is not None:
        got = shared.get(how)
        if got is None:
            got = shared[how] = _deliver(how, fmt, encoding, ccsid, data)
        return got
    if len(data) > _SHARED_BYTES:
        return _deliver(how, fmt, encoding, ccsid, data)
    key = (how, fmt, encoding, ccsid, data)
    got = _SHARED.get(key)
    if got is None:
        if len(_SHARED) >= _SHARED_MAX:
            _SHARED.clear()
        got = _SHARED[key] = _deliver(how, fmt, encoding, ccsid, data)
    return got


def _deliver(how: str, fmt: bytes, encoding: int, ccsid: int, data: bytes) -> Delivered:
    try:
        s = split(fmt, encoding, ccsid, data)
    except RFHError:
        # MQ returns the message with its header as it is and warns (2421 MQRC_RFH_FORMAT_ERROR).
        return Delivered(fmt, encoding, ccsid, data, None, C.MQRC_RFH_FORMAT_ERROR)
    if how == COMPAT and s.jms:
        return Delivered(fmt, encoding, ccsid, data, None, C.MQRC_NONE)
    blob = (s.raw if s.raw is not None else folders_blob(s.folders)) if how == HANDLE else None
    return Delivered(s.format, s.encoding, s.ccsid, s.data, blob, C.MQRC_NONE)
