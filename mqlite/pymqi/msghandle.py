"""Message handles (MQCRTMH, MQDLTMH) and their properties (MQSETMP, MQINQMP, MQDLTMP), kept in
the application's process as MQ's client keeps them: a handle is a number the application puts in
MQPMO.OriginalMsgHandle/NewMsgHandle or MQGMO.MsgHandle, and MQPUT/MQGET carry its properties
(``for_put``, ``after_get``). pymqi's ``MessageHandle`` is the face; a string value comes back as
str in both faces (pymqi 1.12 and ibmmq alike)."""
from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

from mqlite.cmq import CMQC
from mqlite.cmq.structs import MD, PMO
from mqlite.props import rfh2
from mqlite.props.structs import CMHO, DMHO, DMPO, IMPO, PD, SMPO
from mqlite.props.values import (
    MD_PREFIX,
    Properties,
    PropertyError,
    check_name,
    convert,
    md_property,
    value_length,
)
from mqlite.pymqi.errors import MQMIError

_ids = itertools.count(0x10000001)
_lock = threading.Lock()


class _Handle:
    __slots__ = ("_blob", "_props", "built", "conn", "cursor", "md", "validate")

    def __init__(self, conn: Any, validate: bool) -> None:
        self._props = Properties()
        self._blob: bytes | None = None    # the folders an MQGET brought, read at first use
        self.md: MD | None = None          # the descriptor of the message last got into the handle
        self.cursor = -1                   # MQINQMP's position, for INQ_NEXT and UNDER_CURSOR
        self.validate = validate
        self.conn = conn
        self.built: tuple[int, list[bytes]] | None = None   # (props version, its MQRFH2 folders)

    @property
    def props(self) -> Properties:
        """The handle's properties. Those an MQGET brought are read from their folders when the
        application first asks (MQINQMP, ``properties.get``, a put from the handle), not at the get:
        the queue manager has already checked that they read (2421)."""
        if self._blob is not None:
            blob, self._blob = self._blob, None
            self._props = Properties(rfh2.properties_of(rfh2.RFH2_FORMAT, CMQC.MQENC_NATIVE, blob))
        return self._props

    def got(self, blob: bytes) -> None:
        """An MQGET's properties replace the handle's."""
        if blob:
            self._blob = blob
        else:
            self._blob, self._props = None, Properties()


HANDLES: dict[int, _Handle] = {}


def _handle(hmsg: int) -> _Handle:
    h = HANDLES.get(hmsg)
    if h is None:
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_HMSG_ERROR)
    return h


def check(hmsg: int) -> None:
    """A handle given to MQGET must be one this process created (2460 MQRC_HMSG_ERROR)."""
    _handle(hmsg)


def create(qmgr: Any, cmho: CMHO | None) -> int:
    """MQCRTMH. A connected queue manager, or none (a handle not tied to a connection)."""
    cmho = cmho if cmho is not None else CMHO()
    if cmho.StrucId != CMQC.MQCMHO_STRUC_ID or cmho.Options & ~(CMQC.MQCMHO_NO_VALIDATION | CMQC.MQCMHO_VALIDATE) \
            or cmho.Options & CMQC.MQCMHO_NO_VALIDATION and cmho.Options & CMQC.MQCMHO_VALIDATE:
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_CMHO_ERROR)
    if qmgr is not None and getattr(qmgr, "_transport", None) is None:
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_HCONN_ERROR)
    with _lock:
        hmsg = next(_ids)
        HANDLES[hmsg] = _Handle(qmgr, not cmho.Options & CMQC.MQCMHO_NO_VALIDATION)
    return hmsg


def delete(hmsg: int) -> None:
    """MQDLTMH."""
    with _lock:
        if HANDLES.pop(hmsg, None) is None:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_HMSG_ERROR)


def _fail(e: PropertyError) -> MQMIError:
    return MQMIError(CMQC.MQCC_FAILED, e.reason)


def set_property(hmsg: int, name: str, value: Any, ptype: int | None, smpo: SMPO | None = None) -> None:
    """MQSETMP."""
    h = _handle(hmsg)
    if smpo is not None and smpo.StrucId != CMQC.MQSMPO_STRUC_ID:
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_SMPO_ERROR)
    try:
        h.props.set(name, value, ptype, h.validate)
    except PropertyError as e:
        raise _fail(e) from None


def inquire(hmsg: int, name: str, impo_options: int, want: int, max_length: int | None
            ) -> tuple[Any, int, str, int]:
    """MQINQMP: (value, type, name, data length). The value longer than ``max_length`` bytes
    gives 2469 (a warning, with the length needed)."""
    h = _handle(hmsg)
    if impo_options & CMQC.MQIMPO_INQ_PROP_UNDER_CURSOR:
        found = h.props.find("%", h.cursor - 1) if h.cursor >= 0 else None
        if found is None or found[0] != h.cursor:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)
        pos, pname, ptype, value = found
    elif name.startswith(MD_PREFIX):
        got = md_property(h.md, name[len(MD_PREFIX):]) if h.md is not None else None
        if got is None:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)
        (ptype, value), pname, pos = got, name, h.cursor
    else:
        try:
            if name != "%" and not name.endswith(".%"):
                name = check_name(name, setting=False)
                if name.startswith(MD_PREFIX):            # a JMS name standing for a descriptor field
                    return inquire(hmsg, name, impo_options, want, max_length)
        except PropertyError as e:
            raise _fail(e) from None
        after = h.cursor if impo_options & CMQC.MQIMPO_INQ_NEXT else -1
        found = h.props.find(name, after)
        if found is None:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)
        pos, pname, ptype, value = found
    if want != CMQC.MQTYPE_AS_SET and want != ptype and ptype != CMQC.MQTYPE_NULL \
            and not impo_options & CMQC.MQIMPO_CONVERT_TYPE:
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_PROPERTY_TYPE_ERROR)
    try:
        ptype, value = convert(ptype, value, want)
    except PropertyError as e:
        raise _fail(e) from None
    h.cursor = pos
    length = value_length(ptype, value)
    if max_length is not None and length > max_length and ptype in (CMQC.MQTYPE_STRING, CMQC.MQTYPE_BYTE_STRING):
        raise MQMIError(CMQC.MQCC_WARNING, CMQC.MQRC_PROPERTY_VALUE_TOO_BIG, data_length=length)
    return value, ptype, pname, length


def delete_property(hmsg: int, name: str, dmpo: DMPO | None = None) -> None:
    """MQDLTMP (with MQDMPO_DEL_PROP_UNDER_CURSOR, the property MQINQMP last returned)."""
    h = _handle(hmsg)
    try:
        if dmpo is not None and dmpo.Options & CMQC.MQDMPO_DEL_PROP_UNDER_CURSOR:
            found = h.props.find("%", h.cursor - 1) if h.cursor >= 0 else None
            if found is None:
                raise PropertyError(CMQC.MQRC_PROPERTY_NOT_AVAILABLE)
            name = found[1]
        h.props.delete(name)
    except PropertyError as e:
        raise _fail(e) from None


# --- MQPUT and MQGET --------------------------------------------------------------------------------
def for_put(pmo: PMO) -> tuple[Properties, list[bytes] | None] | None:
    """The properties an MQPUT carries: the original handle's, with the new handle's over them;
    and their MQRFH2 folders when one handle's, built once while its properties stay the same."""
    orig, new = pmo.OriginalMsgHandle, pmo.NewMsgHandle
    if not orig and not new:
        return None
    if not (orig and new and orig != new):
        h = _handle(orig or new)
        if h.built is None or h.built[0] != h.props.version:
            h.built = (h.props.version, rfh2.build_folders(h.props))
        return h.props, h.built[1]
    out = Properties()
    for hmsg in (orig, new):
        out.items.update(_handle(hmsg).props.items)
    return out, None


def put_with(pmo: PMO, md: MD, body: bytes, send: Callable[[bytes], None]) -> None:
    """An MQPUT or MQPUT1 whose MQPMO names message handles: ``send`` gets the data with their
    properties in an MQRFH2 in front (the MQMD's Format, Encoding and CCSID moved into it), and
    the application's descriptor gets its own three fields back afterwards, whatever the reply
    wrote there."""
    got = for_put(pmo)
    if got is None or not got[0]:
        send(body)
        return
    props, folders = got
    saved = (md.Format, md.Encoding, md.CodedCharSetId)
    md.Format, md.Encoding, md.CodedCharSetId, data = rfh2.join(props, md.Format, md.Encoding,
                                                                md.CodedCharSetId, body, folders)
    try:
        send(data)
    finally:
        md.Format, md.Encoding, md.CodedCharSetId = saved


def after_get(hmsg: int, md: MD, blob: bytes) -> None:
    """Fill the MQGET's message handle: the properties the reply carried, and the descriptor."""
    h = _handle(hmsg)
    h.got(blob)
    h.md = md.copy()
    h.cursor = -1


class MessageHandle:
    """pymqi's and ibmmq's message handle: ``properties.set/get/dlt`` and ``dlt()``."""

    class _Properties:
        def __init__(self, owner: MessageHandle) -> None:
            self._owner = owner
            self.default_value_length = 64

        def __getitem__(self, name: str | bytes) -> Any:
            value = self.get(name)
            if value is None:
                raise KeyError(f"No such property [{name!r}]")
            return value

        def __setitem__(self, name: str | bytes, value: Any) -> None:
            self.set(name, value)

        def get(self, name: str | bytes, default: Any = None, max_value_length: int | None = None,
                impo_options: int = CMQC.MQIMPO_INQ_FIRST, impo: IMPO | None = None, pd: Any = None,
                property_type: int = CMQC.MQTYPE_AS_SET) -> Any:
            if impo is not None:
                if not isinstance(impo, IMPO):
                    raise TypeError("impo must be an instance of IMPO")
                impo_options = impo.Options
            sname = _name(name)
            limit = max_value_length or self.default_value_length
            try:
                value, ptype, pname, _length = inquire(self._owner.msg_handle, sname, impo_options,
                                                       property_type, limit)
            except MQMIError as e:
                if e.reason == CMQC.MQRC_PROPERTY_NOT_AVAILABLE and default is not None:
                    return default
                raise
            if impo is not None:
                impo.ReturnedName = pname
            if isinstance(pd, PD):
                pd.Support = CMQC.MQPD_SUPPORT_OPTIONAL
            if "%" in sname:
                return value, pname
            return value

        def set(self, name: str | bytes, value: Any, property_type: int = CMQC.MQTYPE_STRING,
                value_length: int = CMQC.MQVL_NULL_TERMINATED, pd: PD | None = None,
                smpo: SMPO | None = None) -> None:
            if property_type == CMQC.MQTYPE_STRING and isinstance(value, (bytes, bytearray)) and value_length >= 0 or property_type == CMQC.MQTYPE_BYTE_STRING and value_length >= 0:
                value = bytes(value)[:value_length]
            set_property(self._owner.msg_handle, _name(name), value, property_type, smpo)

        def dlt(self, name: str | bytes, dmpo: DMPO | None = None) -> None:
            delete_property(self._owner.msg_handle, _name(name), dmpo)

        def __iter__(self) -> Any:
            h = _handle(self._owner.msg_handle)
            return iter([n for n, _t, _v in h.props])

    def __init__(self, qmgr: Any = None, cmho: CMHO | None = None, dup_handle: int | None = None) -> None:
        self.conn_handle = qmgr.get_handle() if getattr(qmgr, "_transport", None) is not None else CMQC.MQHO_NONE
        self.duplicated = dup_handle is not None
        self.msg_handle = dup_handle if dup_handle is not None else create(qmgr, cmho)
        self.properties = self._Properties(self)

    def get_handle(self) -> int:
        return self.msg_handle

    def get_queue_manager(self) -> int:
        return self.conn_handle

    def dlt(self, dmho: DMHO | None = None) -> None:
        if self.duplicated:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_HMSG_ERROR)
        if dmho is not None and dmho.StrucId != CMQC.MQDMHO_STRUC_ID:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_DMHO_ERROR)
        delete(self.msg_handle)
        self.msg_handle = CMQC.MQHM_NONE

    def get_all_properties(self) -> dict[str, Any]:
        """Every property: name → value (pymqi for z/OS and ibmmq have this convenience)."""
        return _handle(self.msg_handle).props.values()


def _name(name: str | bytes) -> str:
    return name.decode("utf-8") if isinstance(name, (bytes, bytearray)) else name
