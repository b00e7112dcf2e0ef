"""The ``ibmmq`` 2.x API: ``from mqlite import ibmmq`` (or ``import ibmmq`` with the opt-in below).

IBM's ``ibmmq`` package (2025) is pymqi 1.12 rewritten, with these differences, which this face
has and ``mqlite.pymqi`` does not:

- structures start at higher versions: MQMD 2, MQGMO 4, MQPMO 3, MQOD 4, MQCD 11, MQCNO 5;
- ``connect_with_options`` (and so ``connect_tcp_client`` and ``connect``) asks for
  MQCNO_HANDLE_SHARE_BLOCK unless the options name a handle-share option;
- ``PCFExecute`` converts replies (MQGMO_CONVERT), takes ``reply_queue_name``, and returns
  strings cut to their StringLength (pymqi keeps the padding);
- ``CSP.UserId``/``CSP.Password`` (a common mistake for CSPUserId/CSPPassword) raise PYIFError;
- ``to_string()`` on structures, queues and the module; ``get_name()`` on connections and queues;
  ``get_versions()``;
- ``MDE`` and ``BNO`` structures.

Code that cannot be edited (tools built on ibmmq) gets this face from a plain ``import ibmmq`` when
:data:`SHIM_PATH` is first on ``PYTHONPATH``; without it a real ibmmq installed beside mqlite is
imported as usual (docs/pymqi.md).
"""
from __future__ import annotations

import os
import re
import sys
from typing import Any, Callable
from xml.etree import ElementTree

from mqlite.cmq import CMQC, CMQCFC, CMQSTRC, CMQXC, CMQZC, headers, structs, subs
from mqlite.cmq.structs import MQStruct
from mqlite.props.structs import CMHO, DMHO, DMPO, IMPO, PD, SMPO
from mqlite.pymqi import pcf as _pcf
from mqlite.pymqi import pubsub as _pubsub
from mqlite.pymqi import qmgr as _qmgr
from mqlite.pymqi import queue as _queue
from mqlite.pymqi.errors import Error, MQMIError, PYIFError
from mqlite.pymqi.msghandle import MessageHandle
from mqlite.pymqi.pcf import (
    CFBF,
    CFBS,
    CFGR,
    CFH,
    CFIF,
    CFIL,
    CFIL64,
    CFIN,
    CFIN64,
    CFSF,
    CFSL,
    CFST,
    Filter,
)
from mqlite.pymqi.pcf import ByteString as _ByteString
from mqlite.pymqi.rfh2 import RFH2 as _RFH2

for _m, _n in ((CMQC, "CMQC"), (CMQCFC, "CMQCFC"), (CMQXC, "CMQXC"), (CMQZC, "CMQZC"), (CMQSTRC, "CMQSTRC")):
    sys.modules[f"{__name__}.{_n}"] = _m

__version__ = "2.1.0"
__cmdlevel__ = 940
__mqbuild__ = "client"

#: Put this folder first on PYTHONPATH and ``import ibmmq`` gives this face.
SHIM_PATH = os.path.join(os.path.dirname(__file__), "shim")

MQOpts = MQStruct


def to_string(v: Any, encoding: str = "utf-8") -> Any:
    """An MQCHAR value as text: decoded, cut at the first NUL, blanks stripped; anything that is
    not bytes, or does not decode, is returned as it is."""
    if isinstance(v, bytes):
        try:
            return v.split(b"\0", 1)[0].decode(encoding).strip()
        except UnicodeError:
            return v
    return v


def get_versions() -> dict[str, Any]:
    return {"module": __version__, "MQ": __cmdlevel__}


class _Strings:
    _names: tuple[str, ...]             # the MQ structure's (MQStruct's) fields, in order
    _bytes_fields: frozenset[str]
    decoded: Callable[[], dict[str, Any]]

    def to_string(self, encoding: str = "utf-8") -> "_Strings":
        """The structure's text fields as str, in place (binary ones such as MsgId stay bytes)."""
        d = self.decoded()
        for name in self._names:
            if name in self._bytes_fields and name not in _BINARY:
                value = to_string(d[name], encoding)
                if isinstance(value, str):
                    d[name] = value
        return self


_BINARY = frozenset({"AccountingToken", "ConnectionId", "ConnTag", "CorrelId", "GroupId", "MCASecurityId", "MsgId",
                     "MsgToken", "RemoteSecurityId", "SubCorrelId", "Reserved", "Reserved1", "Reserved2"})


class _IbmNames:
    """ibmmq names every structure's first field ``_StrucId``; ``StrucId`` still reads it (mqlite's
    shared code checks it by that name)."""

    def __getattr__(self, name: str) -> Any:
        field = "_StrucId" if name == "StrucId" else name
        if field in self.__dict__:
            return self.__dict__[field]
        held = getattr(super(), "__getattr__", None)      # an MQMD's fields held packed (MD.hold)
        if held is None:
            raise AttributeError(name)
        return held(field)


def _ibm_fields(fields: list[Any], version: int | None = None) -> list[Any]:
    """A structure's fields as ibmmq names them (``_StrucId``), with its default Version if given."""
    return [("_StrucId" if n == "StrucId" else n, version if n == "Version" and version is not None else d, c)
            for n, d, c in fields]


def _versioned(base: type[MQStruct], version: int | None = None) -> type[MQStruct]:
    """``base`` as ibmmq has it: its default Version (the layout stays the current one), its first
    field ``_StrucId``, ``to_string()``."""
    fields = _ibm_fields(base._fields, version)
    note = f" (ibmmq: version {version})" if version is not None else " (ibmmq's field names)"
    return type(base.__name__, (_IbmNames, _Strings, base), {"_fields": fields, "__module__": __name__,
                                                              "__doc__": f"{base.__doc__}{note}"})


MD = _versioned(structs.MD, CMQC.MQMD_VERSION_2)
GMO = _versioned(structs.GMO, CMQC.MQGMO_VERSION_4)
PMO = _versioned(structs.PMO, CMQC.MQPMO_VERSION_3)
OD = _versioned(structs.OD, CMQC.MQOD_VERSION_4)
# ibmmq's MQCD defaults to version 11 but has the fields of versions 12 and 13 its constants
# announce (MQCD_CURRENT_VERSION 13): SPLProtection, QuantumSafeAlgorithm, QuantumSafeRequired.
CD = _versioned(type("CD", (structs.CD,), {"_fields": structs.CD._fields + [
    ("SPLProtection", 0, "i"), ("QuantumSafeAlgorithm", 0, "i"), ("QuantumSafeRequired", 0, "i")],
    "__doc__": structs.CD.__doc__}), CMQXC.MQCD_VERSION_11)
CNO = _versioned(structs.CNO, CMQC.MQCNO_VERSION_5)
CSP = _versioned(structs.CSP, CMQC.MQCSP_VERSION_1)
SCO, STS, MDE, BNO = (_versioned(c) for c in (structs.SCO, structs.STS, structs.MDE, structs.BNO))
CBD, CBC, CTLO = (_versioned(c) for c in (structs.CBD, structs.CBC, structs.CTLO))
SD, SRO = _versioned(subs.SD), _versioned(subs.SRO)
CMHO, DMHO, DMPO, IMPO, PD, SMPO = (_versioned(c) for c in (CMHO, DMHO, DMPO, IMPO, PD, SMPO))
_MD1 = _versioned(structs.MD1)


class DLH(_IbmNames, _Strings, headers.DLH):
    """ibmmq's MQDLH, with ``get_header`` reading it from the front of a whole message."""

    _fields = _ibm_fields(headers.DLH._fields)

    def get_header(self, buf: bytes) -> "DLH":
        self.unpack(buf[:CMQC.MQDLH_LENGTH_1])
        return self


class XQH(_IbmNames, _Strings, MQStruct):
    """ibmmq's MQXQH: the four fields before the embedded MQMD (104 bytes, its get_length());
    ``get_header`` reads them from a message on a transmission queue and ``get_embedded_md`` the
    MQMD version 1 after them (without the version 2 fields, as ibmmq returns it)."""

    _fields = _ibm_fields(headers.XQH._fields)

    def get_header(self, buf: bytes) -> "XQH":
        self.unpack(buf[:self.get_length()])
        return self

    def get_embedded_md(self, buf: bytes) -> MQStruct:
        return _MD1.from_bytes(buf[self.get_length():CMQC.MQXQH_CURRENT_LENGTH])


class PYIBMMQError(PYIFError):
    """A PYIFError as ibmmq words it (raised by this face's RFH2; ``except ibmmq.PYIFError`` catches it)."""

    def __str__(self) -> str:
        return f"PYIBMMQ Error: {self.error}"


def _folder_name(folder: bytes) -> str:
    """ibmmq's rule: the root element, or when the folder is not XML the parser accepts (a Java
    program's ``<colour xsi:nil='true'>``), the name after its first ``<``."""
    try:
        return ElementTree.fromstring(folder.split(b"\0", 1)[0].rstrip(b" ")).tag
    except ElementTree.ParseError as e:
        matched = re.match(rb"^<(\S+)", folder)
        if matched is None:
            raise PYIBMMQError(f"RFH2 - XML Folder not well formed. Data {folder!r} Exception: {e}") from None
        return matched[1].decode("utf-8", "replace").split(">")[0]


class RFH2(_RFH2):
    """ibmmq's RFH2: its first field is ``_StrucId``, its errors say PYIBMMQ, folders as it reads them."""

    _fixed = [("_StrucId" if n == "StrucId" else n, d, c) for n, d, c in _RFH2._fixed]
    _error = PYIBMMQError
    _folder_name = staticmethod(_folder_name)


class ByteString(_ByteString):
    """ibmmq's ByteString: a wrapper with ``.value`` (str is encoded as UTF-8); a PCF command
    carries it as MQCFBS."""

    def __new__(cls, value: bytes | str = b"") -> "ByteString":
        return super().__new__(cls, value.encode("utf-8") if isinstance(value, str) else value)

    @property
    def value(self) -> bytes:
        return bytes(self)


md, gmo, pmo, od, cd, sco = MD, GMO, PMO, OD, CD, SCO

_SHARE = CMQC.MQCNO_HANDLE_SHARE_BLOCK | CMQC.MQCNO_HANDLE_SHARE_NO_BLOCK


class QueueManager(_qmgr.QueueManager):
    """ibmmq's QueueManager: handle sharing by default, ``get_name()``, ``to_string()``."""

    def connect_with_options(self, name: str | bytes, *args: Any, **kwargs: Any) -> "QueueManager":
        csp = kwargs.get("csp")
        if csp is not None:
            for wrong, right in (("UserId", "CSPUserId"), ("Password", "CSPPassword")):
                if wrong in csp.__dict__:
                    raise PYIFError(f"{wrong} field in CSP class is called {right}")
        cno = kwargs.get("cno")
        if cno is not None:
            if not cno.Options & _SHARE:
                cno.Options |= CMQC.MQCNO_HANDLE_SHARE_BLOCK
        elif not int(kwargs.get("opts") or 0) & _SHARE:
            kwargs["opts"] = int(kwargs.get("opts") or 0) | CMQC.MQCNO_HANDLE_SHARE_BLOCK
        kwargs.pop("bno", None)             # uniform-cluster balancing: nothing to balance here
        if kwargs.pop("token", None) is not None:
            # MQCSP_AUTH_ID_TOKEN needs a queue manager that accepts tokens; mqlite's do not.
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_CSP_ERROR)
        super().connect_with_options(name, *args, **kwargs)
        return self

    connectWithOptions = connect_with_options

    def connect_tcp_client(self, name: str | bytes, cd: Any, channel: str | bytes, conn_name: str | bytes,
                           user: Any = None, password: Any = None, cno: Any = None, csp: Any = None,
                           sco: Any = None, bno: Any = None) -> "QueueManager":
        more = {k: v for k, v in (("cno", cno), ("csp", csp), ("sco", sco)) if v is not None}
        super().connect_tcp_client(name, cd, channel, conn_name, user, password, **more)
        return self

    connectTCPClient = connect_tcp_client

    def get_name(self) -> str:
        if self._transport is None:
            raise PYIFError("not connected")
        return self._name

    to_string = staticmethod(to_string)


class Queue(_queue.Queue):
    """ibmmq's Queue (the name comes back with ``get_name()``, text with ``to_string()``)."""

    _rfh2 = RFH2

    to_string = staticmethod(to_string)


class Topic(_pubsub.Topic):
    """ibmmq's Topic (publish with ``pub``)."""

    def pub_rfh2(self, msg: Any, *opts: Any) -> None:
        """ibmmq 2.x takes a str too: behind MQRFH2 headers, encoded in the queue manager's
        bytes_encoding (the MQMD is left as given); with no headers, as ``pub`` takes it (MQSTR)."""
        if isinstance(msg, str):
            if len(opts) < 3 or opts[2] is None:
                return self.pub(msg, *opts[:2])
            msg = msg.encode(self._bytes_encoding)
        super().pub_rfh2(msg, *opts)
        return None


class Subscription(_pubsub.Subscription):
    """ibmmq's Subscription (``sub``, ``get``, ``subrq``, ``close``)."""


class PCFExecute(_pcf.PCFExecute, QueueManager):
    """ibmmq's PCFExecute: its constructor, MQGMO_CONVERT by default, strings without padding."""

    _padded = False

    def __init__(self, name: Any = None, model_queue_name: Any = b"SYSTEM.DEFAULT.MODEL.QUEUE",
                 reply_queue_name: Any = None, reply_queue_open_options: int = CMQC.MQOO_INPUT_EXCLUSIVE,
                 dynamic_queue_name: Any = b"PYMQPCF.*", command_queue_name: Any = b"SYSTEM.ADMIN.COMMAND.QUEUE",
                 command_queue: Any = None, response_wait_interval: int = 5000, command_timeout: int = 0,
                 max_length: int | None = None, convert: bool = True) -> None:
        if model_queue_name and reply_queue_name and model_queue_name != b"SYSTEM.DEFAULT.MODEL.QUEUE":
            raise PYIFError("Do not specify both a model_queue_name and a reply_queue_name")
        super().__init__(name, model_queue_name=model_queue_name, reply_queue_name=reply_queue_name,
                         reply_queue_open_options=reply_queue_open_options, dynamic_queue_name=dynamic_queue_name,
                         command_queue_name=command_queue_name, command_queue=command_queue,
                         response_wait_interval=response_wait_interval, command_timeout=command_timeout,
                         max_length=max_length, convert=convert)


def connect(queue_manager: Any, channel: Any = None, conn_info: Any = None, user: Any = None, password: Any = None,
            disconnect_on_exit: bool = True, bytes_encoding: str = "utf8", default_ccsid: int = 1208, cd: Any = None,
            cno: Any = None, csp: Any = None, sco: Any = None, bno: Any = None) -> QueueManager:
    """A client connection when channel and conn_info are given, else MQCONNX by name (MQSERVER
    or local bindings), with handle sharing."""
    qmgr = QueueManager(None, disconnect_on_exit, bytes_encoding=bytes_encoding, default_ccsid=default_ccsid)
    if channel and conn_info:
        qmgr.connect_tcp_client(queue_manager or "", cd or CD(), channel, conn_info, user, password, cno=cno,
                                csp=csp, sco=sco, bno=bno)
    elif queue_manager:
        qmgr.connect_with_options(queue_manager, user=user, password=password, cno=cno, csp=csp, sco=sco, cd=cd)
    else:
        raise TypeError(f"Invalid arguments: {[queue_manager, channel, conn_info, user, password]!r}")
    return qmgr


def is_unicode(s: Any) -> bool:
    """ibmmq's helper: a Python ``str`` (text, not bytes)."""
    return isinstance(s, str)


def ensure_strings_are_bytes(s: Any, encoding: str = "ascii") -> Any:
    """ibmmq's helper for MQI CHAR fields: text encoded, anything else as it is."""
    return s.encode(encoding) if isinstance(s, str) else s


ensure_bytes = ensure_strings_are_bytes      # ibmmq's name for it too


__all__ = ["CMQC", "CMQCFC", "CMQXC", "CMQZC", "CMQSTRC", "Error", "MQMIError", "PYIFError", "QueueManager", "Queue",
           "PCFExecute", "connect", "to_string", "get_versions", "MD", "OD", "PMO", "GMO", "CD", "SCO", "CNO", "CSP",
           "STS", "XQH", "DLH", "MDE", "BNO", "CBD", "CBC", "CTLO", "MQOpts", "CFH", "CFBF", "CFBS", "CFGR", "CFIF", "CFIL", "CFIL64", "CFIN",
           "CFIN64", "CFSF", "CFSL", "CFST", "ByteString", "Filter", "SHIM_PATH", "MessageHandle", "RFH2", "CMHO",
           "DMHO", "DMPO", "IMPO", "PD", "SMPO", "SD", "SRO", "Topic", "Subscription", "is_unicode",
           "ensure_strings_are_bytes", "ensure_bytes"]
