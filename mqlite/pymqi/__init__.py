"""A pymqi-compatible API: ``from mqlite import pymqi`` and application code runs unchanged.

It speaks mqlite's wire protocol instead of calling IBM's C client, so there is nothing to
install beyond this package.  Names, defaults, structures and errors follow pymqi 1.12; the
ibmmq conveniences that do not conflict (str accepted in structure fields, ``inquire`` of a
list of selectors) are accepted too.
"""
from __future__ import annotations

import getpass
import itertools
import os
import struct
import sys
import weakref
from collections import deque
from typing import Any, NamedTuple

from mqlite.cmq import CMQC, CMQCFC, CMQXC, pcf, structs
from mqlite.cmq.structs import MQStruct
from mqlite.net import protocol as P
from mqlite.net.client import Transport, TransportError
from mqlite.paths import QMPaths, all_qmgrs

# The constant modules are importable as mqlite.pymqi.CMQC etc. and are real source files.
for _m, _n in ((CMQC, "CMQC"), (CMQCFC, "CMQCFC"), (CMQXC, "CMQXC")):
    sys.modules[f"{__name__}.{_n}"] = _m

__version__ = "1.12.11"
__mqlevels__ = ("5.0", "5.1", "5.2", "5.3", "6.0", "7.0", "7.1", "7.5", "8.0.0", "9.0.0", "9.1.0", "9.2.0",
                "9.3.0", "9.4.0")
__mqbuild__ = "client"

MQ_MAX_MSG = CMQC.MQ_MAX_MSG_LENGTH
_II = struct.Struct("<ii")
_III = struct.Struct("<iii")
_I = struct.Struct("<i")


# --- errors -----------------------------------------------------------------------------------
def _names(mod: Any, prefix: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for k, v in vars(mod).items():
        if k.startswith(prefix) and isinstance(v, int) and v not in out:
            out[v] = k
    return out


class Error(Exception):
    """Base class of every pymqi exception."""


class MQMIError(Error):
    """An MQI call failed or warned: ``comp`` and ``reason`` are MQ's completion and reason codes."""

    _rc_names = {**_names(CMQC, "MQRC_"), **_names(CMQCFC, "MQRCCF_")}
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
        name = self._rc_names.get(self.reason)
        if name is None:
            return f"{prefix}: Error code {self.reason} not defined"
        return f"{prefix}: {name}"

    error_as_string = errorAsString


class StreamMark(NamedTuple):
    """The answer to :meth:`Queue.stream_mark` (mqlite's extension)."""
    end: int
    count: int
    held: int


class PYIFError(Error):
    """A mistake on the Python side (not connected, already open, ...)."""

    def __init__(self, e: Any) -> None:
        super().__init__(e)
        self.error = e

    def __str__(self) -> str:
        return f"PYMQI Error: {self.error}"


# --- structures -------------------------------------------------------------------------------
MQOpts = MQStruct
MD, OD, PMO, GMO, CD, SCO, CNO, CSP, XQH, DLH, STS = (
    structs.MD, structs.OD, structs.PMO, structs.GMO, structs.CD, structs.SCO, structs.CNO, structs.CSP,
    structs.XQH, structs.DLH, structs.STS)
md, od, pmo, gmo, cd, sco, cno, csp = MD, OD, PMO, GMO, CD, SCO, CNO, CSP


def ensure_bytes(value: Any, encoding: str = "ascii") -> bytes:
    return value.encode(encoding) if isinstance(value, str) else value


def _fail(e: TransportError) -> MQMIError:
    return MQMIError(CMQC.MQCC_FAILED, e.reason, detail=e.detail)


def _check(reply: bytes) -> tuple[int, int]:
    comp, reason = _II.unpack_from(reply)
    if comp == CMQC.MQCC_FAILED:
        raise MQMIError(comp, reason)
    return comp, reason


def _qmgr_from_mqserver() -> tuple[str, str] | None:
    """MQSERVER=CHANNEL/TCP/host(port): the client channel and connection name, when set."""
    value = os.environ.get("MQSERVER")
    if not value:
        return None
    parts = value.split("/", 2)
    if len(parts) != 3 or parts[1].upper() != "TCP":
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_CHANNEL_CONFIG_ERROR, detail=f"MQSERVER={value!r}")
    return parts[0].strip(), parts[2].strip()


class QueueManager:
    """A connection to a queue manager (MQCONN/MQCONNX)."""

    def __init__(self, name: str | bytes | None = "", disconnect_on_exit: bool = True,
                 bytes_encoding: str = "utf8", default_ccsid: int = 1208) -> None:
        self._transport: Transport | None = None
        self._name = ""
        self._qmobj: int | None = None
        self._queues: "weakref.WeakSet[Queue]" = weakref.WeakSet()
        self._ids = itertools.count(int.from_bytes(os.urandom(6), "big") << 16)
        self.disconnect_on_exit = disconnect_on_exit
        self.bytes_encoding = bytes_encoding
        self.default_ccsid = default_ccsid
        if name is not None:
            self.connect(name)

    # connection -------------------------------------------------------------------------------
    def connect(self, name: str | bytes) -> None:
        """MQCONN: a client connection when MQSERVER is set, else local bindings."""
        client = _qmgr_from_mqserver()
        if client is not None:
            self._connect_client(name, client[0], client[1], None, None, CD())
        else:
            self._connect_bindings(name)

    def connect_with_options(self, name: str | bytes, *args: Any, **kwargs: Any) -> None:
        cd_ = kwargs.get("cd")
        user, password = kwargs.get("user"), kwargs.get("password")
        csp_ = kwargs.get("csp")
        if args:  # the old positional form: (name, cd[, sco])
            cd_ = args[0]
        if user is not None and password is None:
            raise ValueError("Password must not be None if user is provided")
        if csp_ is not None:
            user = user or csp_.CSPUserId
            password = password or csp_.CSPPassword
        if cd_ is not None:
            channel = structs.text(cd_.ChannelName)
            conname = structs.text(cd_.ConnectionName)
            self._connect_client(name, channel, conname, user, password, cd_)
        else:
            self.connect(name) if user is None else self._connect_bindings(name, user, password)

    def connect_tcp_client(self, name: str | bytes, cd: CD, channel: str | bytes, conn_name: str | bytes,
                           user: Any = None, password: Any = None) -> None:
        cd.ChannelName = ensure_bytes(channel)
        cd.ConnectionName = ensure_bytes(conn_name)
        cd.ChannelType = CMQC.MQCHT_CLNTCONN
        cd.TransportType = CMQC.MQXPT_TCP
        self.connect_with_options(name, user=user, password=password, cd=cd)

    connectWithOptions = connect_with_options
    connectTCPClient = connect_tcp_client

    def _hello(self, transport: Transport, name: str, **extra: Any) -> None:
        try:
            info = transport.hello(qmgr=name, appl=os.path.basename(sys.argv[0] or "python")[-28:],
                                   appl_type=CMQC.MQAT_UNIX, user=extra.pop("user", None) or _os_user(), **extra)
        except TransportError as e:
            raise _fail(e) from None
        self._transport = transport
        self._name = info.get("qmgr", name)

    def _connect_client(self, name: Any, channel: str, conname: str, user: Any, password: Any, cd_: CD) -> None:
        if self._transport is not None:
            raise MQMIError(CMQC.MQCC_WARNING, CMQC.MQRC_ALREADY_CONNECTED)
        qname = structs.text(ensure_bytes(name or b""))
        try:
            transport = Transport.tcp(conname)
        except TransportError as e:
            raise _fail(e) from None
        # The channel definition's MaxMsgLength and HeartbeatInterval are negotiated with the
        # SVRCONN's MAXMSGL (the lower) and HBINT (the higher), as MQ's client does.
        self._hello(transport, qname, channel=channel, kind="client", user=_text(user), password=_text(password),
                    maxmsgl=int(cd_.MaxMsgLength), hbint=int(cd_.HeartbeatInterval))

    def _connect_bindings(self, name: Any, user: Any = None, password: Any = None) -> None:
        if self._transport is not None:
            raise MQMIError(CMQC.MQCC_WARNING, CMQC.MQRC_ALREADY_CONNECTED)
        qname = structs.text(ensure_bytes(name or b""))
        if not qname:
            known = all_qmgrs()
            running = [q for q in known if QMPaths.of(q).running_pid()]
            if len(running) != 1:
                raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_Q_MGR_NAME_ERROR)
            qname = running[0]
        paths = QMPaths.of(qname)
        if not paths.exists():
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_Q_MGR_NAME_ERROR)
        try:
            transport = Transport.unix(paths.socket)
        except TransportError as e:
            raise _fail(e) from None
        self._hello(transport, qname, kind="bindings", user=_text(user), password=_text(password))

    def _call(self, ftype: int, payload: bytes) -> bytes:
        if self._transport is None:
            raise PYIFError("not connected")
        try:
            return self._transport.call(ftype, payload)
        except TransportError as e:
            self._transport = None
            raise _fail(e) from None

    def _send(self, ftype: int, payload: bytes) -> None:
        if self._transport is None:
            raise PYIFError("not connected")
        try:
            self._transport.send(ftype, payload)
        except TransportError as e:
            self._transport = None
            raise _fail(e) from None

    def _new_id(self) -> bytes:
        """A message identifier made here, for asynchronous puts (MQ's clients do the same)."""
        return b"AMQ " + self._name.encode()[:12].ljust(12) + (next(self._ids) & (2 ** 64 - 1)).to_bytes(8, "big")

    def stat(self, stat_type: int = 0) -> STS:
        """MQSTAT(MQSTAT_TYPE_ASYNC_ERROR): outcomes of asynchronous puts since the last call."""
        reply = self._call(P.STAT, b"")
        _check(reply)
        info = P.decode_json(reply[8:])
        return STS(CompCode=info["comp"], Reason=info["reason"], PutSuccessCount=info["ok"],
                   PutWarningCount=info["warn"], PutFailureCount=info["fail"],
                   ObjectName=structs.pad(info["object"], 48) if info["object"] else b"")

    def disconnect(self) -> None:
        if self._transport is None:
            raise PYIFError("not connected")
        for q in list(self._queues):
            q._settle()
        try:
            self._transport.call(P.DISC, b"")
        except TransportError:
            pass
        self._transport.close()
        self._transport = None
        self._qmobj = None

    def get_handle(self) -> int:
        if self._transport is None:
            raise PYIFError("not connected")
        return int(self._transport.info.get("hconn", 0))

    getHandle = get_handle

    def get_name(self) -> str:
        return self._name

    def begin(self) -> None:
        """MQBEGIN: with no external resource managers MQ answers MQRC_NO_EXTERNAL_PARTICIPANTS."""
        if self._transport is None:
            raise PYIFError("not connected")
        raise MQMIError(CMQC.MQCC_WARNING, 2121)

    def commit(self) -> None:
        self._end_unit(P.CMIT)

    def backout(self) -> None:
        self._end_unit(P.BACK)

    # mqlite's extensions (not in pymqi): two-phase units of work -------------------------------
    def prepare(self, xid: str) -> int:
        """Phase one of a two-phase commit: the connection's unit of work is kept by the queue
        manager under ``xid`` (1-256 printable characters), past this connection and across a
        restart, until :meth:`resolve_prepared` (from any connection) or ``mqlite rsvmqtrn``
        resolves it. Returns the number of messages in it."""
        queues = list(self._queues)
        pairs = [list(p) for p in (q._end_of_unit() for q in queues) if p is not None]
        try:
            return int(self._xa({"op": "prepare", "xid": xid, "settle": pairs})["messages"])
        finally:
            for q in queues:
                q._after_end_of_unit()

    def resolve_prepared(self, commit: list[str] = (), backout: list[str] = (),  # type: ignore[assignment]
                         backout_prefix: str = "", mark: tuple[str, int] | None = None,
                         end_prefix: bool = False) -> dict[str, Any]:
        """Phase two for prepared units, all in one transaction: commit the XIDs of ``commit``, back
        out those of ``backout`` and any other prepared unit whose XID starts with
        ``backout_prefix``. With ``mark`` (name, batch) the units are committed only if no batch at
        or above ``batch`` was committed under ``name`` before, else backed out (outcome
        "duplicate"). With ``end_prefix`` the prefix is closed: a later :meth:`prepare` under it
        backs its unit out and fails with MQRC_BACKED_OUT (2003). Unknown XIDs:
        MQRC_UOW_NOT_AVAILABLE (2255), nothing changed."""
        return self._xa({"op": "resolve", "commit": list(commit), "backout": list(backout),
                         "prefix": backout_prefix, "mark": list(mark) if mark else None, "end": end_prefix})

    def prepared_units(self) -> list[dict[str, Any]]:
        """The prepared units of work not yet resolved (XID, time, puts, gets, queues)."""
        return list(self._xa({"op": "list"})["units"])

    def _xa(self, req: dict[str, Any]) -> dict[str, Any]:
        reply = self._call(P.XA, P.encode_json(req))
        _check(reply)
        return P.decode_json(reply[8:])

    def _end_unit(self, ftype: int) -> None:
        queues = list(self._queues)
        pairs = [p for p in (q._end_of_unit() for q in queues) if p is not None]
        payload = (_I.pack(len(pairs)) + b"".join(_II.pack(h, n) for h, n in pairs)) if pairs else b""
        try:
            _check(self._call(ftype, payload))
        finally:
            for q in queues:
                q._after_end_of_unit()

    def put1(self, qDesc: Any, msg: Any, mDesc: MD | None = None, putOpts: PMO | None = None) -> None:
        od_ = qDesc if isinstance(qDesc, OD) else OD(ObjectName=ensure_bytes(qDesc))
        md_ = mDesc if mDesc is not None else MD()
        pmo_ = putOpts if putOpts is not None else PMO()
        body = self._body(msg, md_)
        reply = self._call(P.PUT1, od_.pack() + pmo_.pack() + md_.pack() + body)
        comp, reason = _check(reply)
        off = 8
        od_.unpack(reply[off:off + P.OD_LEN])
        off += P.OD_LEN
        md_.unpack(reply[off:off + P.MD_LEN])
        pmo_.unpack(reply[off + P.MD_LEN:])
        if comp:
            raise MQMIError(comp, reason)

    def _body(self, msg: Any, md_: MD) -> bytes:
        if isinstance(msg, str):
            md_.Format = CMQC.MQFMT_STRING
            md_.CodedCharSetId = self.default_ccsid
            body = msg.encode(self.bytes_encoding)
        elif isinstance(msg, (bytes, bytearray, memoryview)):
            body = bytes(msg)
        else:
            raise TypeError(f"Message type is {type(msg)}. Convert to bytes.")
        # A client channel carries messages up to the MAXMSGL both ends agreed at connect time.
        limit = self._transport.info.get("maxmsgl") if self._transport is not None else None
        if limit is not None and len(body) > limit:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_DATA_LENGTH_ERROR)
        return body

    def inquire(self, attribute: int | list[int]) -> Any:
        if self._qmobj is None:
            od_ = OD(ObjectType=CMQC.MQOT_Q_MGR)
            reply = self._call(P.OPEN, _I.pack(CMQC.MQOO_INQUIRE) + od_.pack())
            _check(reply)
            self._qmobj = _III.unpack_from(reply)[2]
        return _inquire(self, self._qmobj, attribute)

    inq = inquire

    @property
    def is_connected(self) -> bool:
        if self._transport is None:
            return False
        try:
            self.inquire(CMQC.MQCA_Q_MGR_NAME)
            return True
        except (MQMIError, PYIFError):
            return False

    def __del__(self) -> None:
        if getattr(self, "disconnect_on_exit", False) and getattr(self, "_transport", None) is not None:
            try:
                self.disconnect()
            except Exception:
                pass


def _text(v: Any) -> str | None:
    if v is None:
        return None
    return v.decode() if isinstance(v, bytes) else str(v)


def _os_user() -> str:
    try:
        return getpass.getuser()[:12]
    except Exception:
        return ""


def _inquire(qmgr: QueueManager, hobj: int, attribute: int | list[int]) -> Any:
    selectors = attribute if isinstance(attribute, (list, tuple)) else [attribute]
    payload = _II.pack(hobj, len(selectors)) + struct.pack(f"<{len(selectors)}i", *selectors)
    reply = qmgr._call(P.INQ, payload)
    _check(reply)
    values, _ = P.decode_values(reply, 8)
    if isinstance(attribute, (list, tuple)):
        return dict(zip(selectors, values, strict=False))
    return values[0]


_NOT_READ_AHEAD = (CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_BROWSE_NEXT | CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR
                   | CMQC.MQGMO_MSG_UNDER_CURSOR | CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT
                   | CMQC.MQGMO_LOGICAL_ORDER | CMQC.MQGMO_ALL_MSGS_AVAILABLE | CMQC.MQGMO_COMPLETE_MSG
                   | CMQC.MQGMO_LOCK | CMQC.MQGMO_UNLOCK | CMQC.MQGMO_MARK_SKIP_BACKOUT)
_READ_AHEAD_MSGS = 512
_READ_AHEAD_BYTES = 1 << 20
_NO_WAIT_GMO = GMO()
_MD_NAMES, _MD_STRUCT = MD._names, MD._struct


class Queue:
    """An MQ queue: open, put, get, inquire, set and close, with pymqi's deferred-open rules."""

    def __init__(self, qMgr: QueueManager, qDesc: Any = None, openOpts: int | None = None) -> None:
        self.__qMgr = qMgr
        self.__qHandle: int | None = None
        self.__qDesc: OD | None = None
        self.__openOpts: int | None = None
        self.__async_put = False
        self.__read_ahead = False
        self.__buffer: deque[tuple[bytes, bytes, bool]] = deque()   # (MD bytes, body, read ahead)
        self.__consumed = 0             # read-ahead messages consumed and not yet acknowledged
        self.__inflight = False         # a batch request sent ahead, reply not read yet
        self.__drained = False          # the last batch sent ahead found the queue empty
        self.__under_sync = False       # the messages held were taken under syncpoint
        self.__resolved = b""           # ResolvedQName from MQOPEN, for gets served from read-ahead
        self.__per_unit = 32            # messages the application consumed in its last unit of work
        self.__in_unit = 0              # ... and in this one so far
        if qDesc is not None:
            self.__qDesc = self.__make_od(qDesc)
            if openOpts is not None:
                self.open(self.__qDesc, openOpts)

    @staticmethod
    def __make_od(qDesc: Any) -> OD:
        return qDesc if isinstance(qDesc, OD) else OD(ObjectName=ensure_bytes(qDesc))

    def open(self, qDesc: Any, openOpts: int | None = None) -> None:
        if self.__qHandle is not None:
            raise PYIFError("The Queue is already open")
        od_ = self.__make_od(qDesc)
        self.__qDesc = od_
        opts = CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT if openOpts is None else openOpts
        reply = self.__qMgr._call(P.OPEN, _I.pack(opts) + od_.pack())
        _check(reply)
        self.__qHandle, flags = _II.unpack_from(reply, 8)
        od_.unpack(reply[16:16 + P.OD_LEN])
        self.__openOpts = opts
        self.__async_put = bool(flags & P.OPEN_ASYNC_PUT)
        self.__read_ahead = bool(flags & P.OPEN_READ_AHEAD)
        self.__resolved = od_.ResolvedQName
        self.__qMgr._queues.add(self)

    def __ensure_open(self, opts: int) -> int:
        if self.__qHandle is None:
            if self.__qDesc is None:
                raise PYIFError("The Queue Descriptor has not been set.")
            self.open(self.__qDesc, opts)
        assert self.__qHandle is not None
        return self.__qHandle

    def put(self, msg: Any, mDesc: MD | None = None, putOpts: PMO | None = None) -> None:
        hobj = self.__ensure_open(CMQC.MQOO_OUTPUT)
        md_ = mDesc if mDesc is not None else MD()
        pmo_ = putOpts if putOpts is not None else PMO()
        qmgr = self.__qMgr
        body = qmgr._body(msg, md_)
        opts = pmo_.Options
        if opts & CMQC.MQPMO_ASYNC_RESPONSE or (self.__async_put and not opts & CMQC.MQPMO_SYNC_RESPONSE):
            # Asynchronous put: identifiers are made here and the call returns without an answer.
            if opts & CMQC.MQPMO_NEW_MSG_ID or md_.MsgId.strip(b"\0") == b"":
                md_.MsgId = qmgr._new_id()
            if opts & CMQC.MQPMO_NEW_CORREL_ID:
                md_.CorrelId = qmgr._new_id()
            pmo_.Options = opts & ~(CMQC.MQPMO_NEW_MSG_ID | CMQC.MQPMO_NEW_CORREL_ID)
            try:
                qmgr._send(P.PUT_ASYNC, _I.pack(hobj) + pmo_.pack() + md_.pack() + body)
            finally:
                pmo_.Options = opts
            return
        reply = qmgr._call(P.PUT, _I.pack(hobj) + pmo_.pack() + md_.pack() + body)
        comp, reason = _check(reply)
        md_.unpack(reply[8:8 + P.MD_LEN])
        pmo_.unpack(reply[8 + P.MD_LEN:])
        if comp:
            raise MQMIError(comp, reason)

    def get(self, maxLength: int | None = None, mDesc: MD | None = None, getOpts: GMO | None = None) -> bytes:
        md_ = mDesc if mDesc is not None else MD()
        gmo_ = getOpts if getOpts is not None else GMO()
        buf = self.__buffer
        if buf:
            # The common case with read-ahead, kept short: a message is held and the get is a plain
            # one in the same syncpoint mode as the batch it came from.
            opts = gmo_.Options
            d = md_.__dict__
            if (not opts & _NOT_READ_AHEAD and bool(opts & CMQC.MQGMO_SYNCPOINT) == self.__under_sync
                    and not d["MsgId"].strip(b"\0") and not d["CorrelId"].strip(b"\0")
                    and (gmo_.Version < CMQC.MQGMO_VERSION_2 or not gmo_.MatchOptions & ~3)):
                md_bytes, body, ahead = buf[0]
                limit = MQ_MAX_MSG if maxLength is None else maxLength
                if len(body) <= limit and not (maxLength is None and opts & CMQC.MQGMO_ACCEPT_TRUNCATED_MSG):
                    d.update(zip(_MD_NAMES, _MD_STRUCT.unpack(md_bytes), strict=False))
                    g = gmo_.__dict__
                    g["ResolvedQName"] = self.__resolved
                    g["GroupStatus"] = CMQC.MQGS_NOT_IN_GROUP
                    g["SegmentStatus"] = CMQC.MQSS_NOT_A_SEGMENT
                    g["ReturnedLength"] = len(body)
                    assert self.__qHandle is not None
                    self.__take(self.__qHandle, ahead)
                    return body
        hobj = self.__ensure_open(CMQC.MQOO_INPUT_AS_Q_DEF)
        if maxLength is None:
            length = 0 if gmo_.Options & CMQC.MQGMO_ACCEPT_TRUNCATED_MSG else MQ_MAX_MSG
        else:
            length = maxLength
        if self.__read_ahead:
            if self.__simple_get(md_, gmo_):
                under_sync = bool(gmo_.Options & CMQC.MQGMO_SYNCPOINT)
                if under_sync != self.__under_sync:
                    self._settle()
                    self.__under_sync = under_sync
                return self.__get_ahead(hobj, length, md_, gmo_)
            self._settle()
        reply = self.__qMgr._call(P.GET, _II.pack(hobj, length) + gmo_.pack() + md_.pack())
        comp, reason = _check(reply)
        data_length = _III.unpack_from(reply)[2]
        gmo_.unpack(reply[12:12 + P.GMO_LEN])
        md_.unpack(reply[12 + P.GMO_LEN:12 + P.GMO_LEN + P.MD_LEN])
        body = reply[12 + P.GMO_LEN + P.MD_LEN:]
        if comp:
            raise MQMIError(comp, reason, message=body, original_length=data_length)
        return body

    @staticmethod
    def __simple_get(md_: MD, gmo_: GMO) -> bool:
        """A get that read-ahead can serve: destructive, outside syncpoint, no selection."""
        if gmo_.Options & _NOT_READ_AHEAD:
            return False
        match = gmo_.MatchOptions if gmo_.Version >= CMQC.MQGMO_VERSION_2 else (
            CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID)
        if match & CMQC.MQMO_MATCH_MSG_ID and md_.MsgId.strip(b"\0"):
            return False
        if match & CMQC.MQMO_MATCH_CORREL_ID and md_.CorrelId.strip(b"\0"):
            return False
        return not match & ~(CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID)

    def __request(self, hobj: int, gmo_: GMO, max_msgs: int, speculative: bool = False) -> bytes:
        flags = (P.BATCH_SPECULATIVE if speculative else 0) | (P.BATCH_SYNCPOINT if self.__under_sync else 0)
        payload = struct.pack("<iiiii", hobj, self.__consumed, max_msgs, _READ_AHEAD_BYTES, flags) + gmo_.pack()
        self.__consumed = 0
        return payload

    def __fill(self, reply: bytes) -> None:
        """Add a read-ahead batch to the buffer (also the consumer of batches requested ahead)."""
        self.__inflight = False
        comp, reason = _II.unpack_from(reply)
        if comp == CMQC.MQCC_FAILED:
            self.__drained = True
            return
        count = _III.unpack_from(reply)[2]
        append = self.__buffer.append
        unpack = _II.unpack_from
        off = 12
        mdlen = P.MD_LEN
        for _ in range(count):
            end = off + mdlen
            n, ahead = unpack(reply, end)
            start = end + 8
            append((reply[off:end], reply[start:start + n], ahead == 1))
            off = start + n
        if not count:
            self.__drained = True

    def __get_ahead(self, hobj: int, length: int, md_: MD, gmo_: GMO) -> bytes:
        buf = self.__buffer
        qmgr = self.__qMgr
        if not buf and self.__inflight:
            assert qmgr._transport is not None
            qmgr._transport.collect()
        if not buf:
            # Nothing held: ask now, with the application's wait options.
            self.__drained = False
            reply = qmgr._call(P.GET_BATCH, self.__request(hobj, gmo_, self.__batch_size()))
            _check(reply)
            self.__fill(reply)
            self.__drained = False
        md_bytes, body, ahead = buf[0]
        d = gmo_.__dict__
        md_.unpack(md_bytes)
        d["ResolvedQName"] = self.__resolved
        d["GroupStatus"] = CMQC.MQGS_NOT_IN_GROUP
        d["SegmentStatus"] = CMQC.MQSS_NOT_A_SEGMENT
        if len(body) > length:
            d["ReturnedLength"] = length
            if not gmo_.Options & CMQC.MQGMO_ACCEPT_TRUNCATED_MSG:
                raise MQMIError(CMQC.MQCC_WARNING, CMQC.MQRC_TRUNCATED_MSG_FAILED, message=body[:length],
                                original_length=len(body))
            self.__take(hobj, ahead)
            raise MQMIError(CMQC.MQCC_WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, message=body[:length],
                            original_length=len(body))
        d["ReturnedLength"] = len(body)
        self.__take(hobj, ahead)
        return body

    def __batch_size(self) -> int:
        """How many to ask for: a full batch, or under syncpoint what the unit of work still wants
        (messages taken ahead but not consumed by MQCMIT go back, which costs a round trip each)."""
        if not self.__under_sync:
            return _READ_AHEAD_MSGS
        return max(1, min(_READ_AHEAD_MSGS, self.__per_unit - self.__in_unit))

    def __take(self, hobj: int, ahead: bool) -> None:
        buf = self.__buffer
        buf.popleft()
        self.__consumed += ahead
        self.__in_unit += 1
        want = self.__batch_size()
        if (len(buf) < want // 2 or (self.__under_sync and not buf and want > 1)) and not self.__inflight \
                and not self.__drained:
            # Ask for the next batch while the application works through this one.
            self.__inflight = True
            assert self.__qMgr._transport is not None
            self.__qMgr._transport.post(P.GET_BATCH, self.__request(hobj, _NO_WAIT_GMO, want, True), self.__fill)

    def _settle(self) -> None:
        """Give back read-ahead messages not consumed, so they stay on the queue in order."""
        if self.__qHandle is None:
            return
        if self.__inflight and self.__qMgr._transport is not None:
            self.__qMgr._transport.collect()
        if not self.__buffer and not self.__consumed:
            return
        self.__buffer.clear()
        self.__drained = False
        _check(self.__qMgr._call(P.GET_BATCH, self.__request(self.__qHandle, _NO_WAIT_GMO, 0)))

    def _end_of_unit(self) -> tuple[int, int] | None:
        """At MQCMIT/MQBACK: (handle, consumed) for the read-ahead messages held under syncpoint,
        which the queue manager gives back before ending the unit of work."""
        if self.__in_unit:
            self.__per_unit = self.__in_unit
            self.__in_unit = 0
        if self.__qHandle is None or not self.__under_sync or (not self.__buffer and not self.__consumed
                                                                 and not self.__inflight):
            return None
        consumed = self.__consumed
        self.__consumed = 0
        self.__buffer.clear()
        self.__drained = False
        return self.__qHandle, consumed

    def _after_end_of_unit(self) -> None:
        if self.__under_sync:
            self.__buffer.clear()       # a batch requested ahead was given back with the rest
            self.__inflight = False

    def get_no_jms(self, maxLength: int | None = None, mDesc: MD | None = None, getOpts: GMO | None = None) -> bytes:
        gmo_ = getOpts if getOpts is not None else GMO()
        gmo_.Options |= CMQC.MQGMO_NO_PROPERTIES | CMQC.MQGMO_FAIL_IF_QUIESCING
        return self.get(maxLength, mDesc, gmo_)

    get_no_rfh2 = get_no_jms

    def browse_batch(self, max_msgs: int = 1000, first: bool = False,
                     max_bytes: int = 8 << 20) -> list[tuple[bytes, bytes]]:
        """mqlite's extension (not in pymqi): browse up to ``max_msgs`` whole messages from the
        browse cursor on (``first``: from the start of the queue) in one round trip. Returns
        (packed MQMD, data) pairs, ``MD.from_bytes`` decodes a descriptor; an empty list at the end
        of the queue. The queue must be open with MQOO_BROWSE."""
        hobj = self.__ensure_open(CMQC.MQOO_BROWSE)
        reply = self.__qMgr._call(P.BROWSE_BATCH, struct.pack("<iiii", hobj, int(first), max_msgs, max_bytes))
        comp, reason = _II.unpack_from(reply)
        if comp == CMQC.MQCC_FAILED:
            raise MQMIError(comp, reason)
        count = _III.unpack_from(reply)[2]
        out = []
        off, mdlen = 12, P.MD_LEN
        for _ in range(count):
            end = off + mdlen
            n = _II.unpack_from(reply, end)[0]
            start = end + 8
            out.append((reply[off:end], reply[start:start + n]))
            off = start + n
        return out

    # mqlite's extensions (not in pymqi): a queue read by position ----------------------------
    def _stream(self, op: int, opts: int, start: int = 0, end: int = 0, max_msgs: int = 0,
                max_bytes: int = 0) -> bytes:
        hobj = self.__ensure_open(opts)
        reply = self.__qMgr._call(P.STREAM, P.STREAM_REQ.pack(hobj, op, start, end, max_msgs, max_bytes))
        _check(reply)
        return reply

    def stream_mark(self, start: int, max_msgs: int = 0, committed: bool = False) -> StreamMark:
        """(end, count, held): the end position of the next range to read from ``start`` — past
        the last message no open or prepared unit of work can still precede (with ``committed``,
        past the last committed message: a snapshot), or past the ``max_msgs``-th message (when
        positive) — how many messages it holds (-1, not counted, without a limit), and how many
        committed messages wait beyond it behind a unit of work (0 with ``committed``); end is
        ``start`` when there is nothing new. Positions grow with every message that arrives; the
        queue must be open with MQOO_BROWSE."""
        op = P.STREAM_MARK_COMMITTED if committed else P.STREAM_MARK
        return StreamMark(*struct.unpack_from("<qqq", self._stream(op, CMQC.MQOO_BROWSE, start, 0, max_msgs), 12))

    def stream_read(self, start: int, end: int, max_msgs: int = 5000,
                    max_bytes: int = 8 << 20) -> list[tuple[int, bytes, bytes]]:
        """Browse the messages with positions in [start, end) in arrival order, up to ``max_msgs``
        or ``max_bytes``: (position, packed MQMD, data) each. Continue from the last position + 1."""
        reply = self._stream(P.STREAM_READ, CMQC.MQOO_BROWSE, start, end, max_msgs, max_bytes)
        count = _III.unpack_from(reply)[2]
        out = []
        off, mdlen = 12, P.MD_LEN
        for _ in range(count):
            pos = struct.unpack_from("<q", reply, off)[0]
            off += 8
            md_end = off + mdlen
            n = _II.unpack_from(reply, md_end)[0]
            body = md_end + 8
            out.append((pos, reply[off:md_end], reply[body:body + n]))
            off = body + n
        return out

    def stream_delete(self, end: int, start: int = 0) -> int:
        """Remove every message with a position in [start, end) (outside syncpoint); the queue must
        be open for input. Returns how many were removed."""
        return int(struct.unpack_from("<q", self._stream(P.STREAM_DELETE, CMQC.MQOO_INPUT_SHARED, start, end),
                                      12)[0])

    def close(self, options: int = CMQC.MQCO_NONE) -> None:
        if self.__qHandle is None:
            raise PYIFError("not open")
        if self.__inflight and self.__qMgr._transport is not None:
            self.__qMgr._transport.collect()
        consumed = self.__consumed
        self.__buffer.clear()
        self.__consumed = 0
        _check(self.__qMgr._call(P.CLOSE, _III.pack(self.__qHandle, options, consumed)))
        self.__qHandle = None
        self.__openOpts = None
        self.__qMgr._queues.discard(self)

    def inquire(self, attribute: int | list[int]) -> Any:
        hobj = self.__ensure_open(CMQC.MQOO_INQUIRE)
        return _inquire(self.__qMgr, hobj, attribute)

    inq = inquire

    def set(self, attribute: int | dict[int, Any], arg: Any = None) -> None:
        hobj = self.__ensure_open(CMQC.MQOO_SET)
        pairs = list(attribute.items()) if isinstance(attribute, dict) else [(attribute, arg)]
        payload = (_I.pack(hobj) + P.encode_values([s for s, _ in pairs])
                   + P.encode_values([v for _, v in pairs]))
        _check(self.__qMgr._call(P.SET, payload))

    def get_handle(self) -> int:
        if self.__qHandle is None:
            raise PYIFError("not open")
        return self.__qHandle

    def set_handle(self, handle: int) -> None:
        self.__qHandle = handle

    def get_name(self) -> str:
        return structs.text(self.__qDesc.ObjectName) if self.__qDesc is not None else ""

    def get_queue_manager(self) -> QueueManager:
        return self.__qMgr


# --- PCF administration -----------------------------------------------------------------------
class CFH(MQStruct):
    """MQCFH: the header of a PCF message."""

    _fields = [("Type", CMQCFC.MQCFT_COMMAND, "i"), ("StrucLength", CMQCFC.MQCFH_STRUC_LENGTH, "i"),
               ("Version", CMQCFC.MQCFH_VERSION_1, "i"), ("Command", CMQCFC.MQCMD_NONE, "i"),
               ("MsgSeqNumber", 1, "i"), ("Control", CMQCFC.MQCFC_LAST, "i"), ("CompCode", CMQC.MQCC_OK, "i"),
               ("Reason", CMQC.MQRC_NONE, "i"), ("ParameterCount", 0, "i")]


class Filter:
    """A filter for an inquire: ``Filter(CMQC.MQIA_CURRENT_Q_DEPTH).greater(10)``."""

    def __init__(self, selector: int) -> None:
        self.selector = selector
        self.operator = 0
        self.value: Any = None

    def _set(self, operator: int, value: Any) -> "Filter":
        self.operator, self.value = operator, value
        return self

    def less(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_LESS, v)
    def equal(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_EQUAL, v)
    def greater(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_GREATER, v)
    def not_less(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_NOT_LESS, v)
    def not_equal(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_NOT_EQUAL, v)
    def not_greater(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_NOT_GREATER, v)
    def like(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_LIKE, v)
    def not_like(self, v: Any) -> "Filter": return self._set(CMQCFC.MQCFOP_NOT_LIKE, v)

    def pack(self) -> bytes:
        if isinstance(self.value, int):
            return pcf.enc_int_filter(self.selector, self.operator, self.value)
        return pcf.enc_str_filter(self.selector, self.operator, ensure_bytes(self.value))


class _CFParam:
    """A prebuilt PCF parameter, as pymqi's CF* classes: ``CFST(Parameter=..., String=b'...')``."""

    _defaults: dict[str, Any] = {}

    def __init__(self, **kw: Any) -> None:
        for k, v in {**self._defaults, **kw}.items():
            setattr(self, k, v)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={getattr(self, k)!r}' for k in self._defaults)})"


class CFIN(_CFParam):
    _defaults = {"Parameter": 0, "Value": 0}

    def pack(self) -> bytes:
        return pcf.enc_int(self.Parameter, self.Value)


class CFIN64(_CFParam):
    _defaults = {"Parameter": 0, "Value": 0}

    def pack(self) -> bytes:
        return pcf.enc_int64(self.Parameter, self.Value)


class CFIL(_CFParam):
    _defaults = {"Parameter": 0, "Values": []}

    def pack(self) -> bytes:
        return pcf.enc_int_list(self.Parameter, list(self.Values))


class CFIL64(_CFParam):
    _defaults = {"Parameter": 0, "Values": []}

    def pack(self) -> bytes:
        return pcf.enc_int64_list(self.Parameter, list(self.Values))


class CFST(_CFParam):
    _defaults = {"Parameter": 0, "String": b"", "CodedCharSetId": 0}

    def pack(self) -> bytes:
        return pcf.enc_str(self.Parameter, ensure_bytes(self.String, "utf8"), self.CodedCharSetId)


class CFSL(_CFParam):
    _defaults = {"Parameter": 0, "Strings": [], "CodedCharSetId": 0}

    def pack(self) -> bytes:
        return pcf.enc_str_list(self.Parameter, [ensure_bytes(v, "utf8") for v in self.Strings], self.CodedCharSetId)


class CFBS(_CFParam):
    _defaults = {"Parameter": 0, "String": b""}

    def pack(self) -> bytes:
        return pcf.enc_bytes(self.Parameter, bytes(self.String))


class CFIF(_CFParam):
    _defaults = {"Parameter": 0, "Operator": CMQCFC.MQCFOP_EQUAL, "FilterValue": 0}

    def pack(self) -> bytes:
        return pcf.enc_int_filter(self.Parameter, self.Operator, self.FilterValue)


class CFSF(_CFParam):
    _defaults = {"Parameter": 0, "Operator": CMQCFC.MQCFOP_EQUAL, "FilterValue": b"", "CodedCharSetId": 0}

    def pack(self) -> bytes:
        return pcf.enc_str_filter(self.Parameter, self.Operator, ensure_bytes(self.FilterValue, "utf8"),
                                  self.CodedCharSetId)


class ByteString(bytes):
    """Marks a bytes value that goes into a PCF command as MQCFBS (not as a string)."""


_ATTRS_SELECTORS = {v for k, v in vars(CMQCFC).items() if k.startswith("MQIACF_") and k.endswith("_ATTRS")}


def _pcf_param(selector: int, value: Any) -> bytes:
    if isinstance(value, ByteString):
        return pcf.enc_bytes(selector, bytes(value))
    if isinstance(value, (bytes, str)):
        return pcf.enc_str(selector, ensure_bytes(value, "utf8"))
    if isinstance(value, int):
        return pcf.enc_int_list(selector, [value]) if selector in _ATTRS_SELECTORS else pcf.enc_int(selector, value)
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, int) for v in value):
            return pcf.enc_int_list(selector, list(value))
        return pcf.enc_str_list(selector, [ensure_bytes(v, "utf8") for v in value])
    raise TypeError(f"PCF parameter {selector}: cannot encode {type(value).__name__}")


class PCFExecute(QueueManager):
    """Sends PCF commands to the command server and returns its answers as pymqi does:
    ``pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b'APP.*'})`` is a list of dicts keyed by selector."""

    def __init__(self, name: Any = None, disconnect_on_exit: bool = True,
                 model_queue_name: bytes = b"SYSTEM.DEFAULT.MODEL.QUEUE", dynamic_queue_name: bytes = b"PYMQPCF.*",
                 command_queue_name: bytes = b"SYSTEM.ADMIN.COMMAND.QUEUE", response_wait_interval: int = 5000,
                 convert: bool = False, command_queue_qmgr: bytes = b"") -> None:
        if isinstance(name, QueueManager):
            # pymqi's form PCFExecute(qmgr): share that connection; it stays the caller's to end
            self.__dict__.update(name.__dict__)
            self.disconnect_on_exit = False
        else:
            super().__init__(name, disconnect_on_exit)
        self._command_od = OD(ObjectName=ensure_bytes(command_queue_name),
                              ObjectQMgrName=ensure_bytes(command_queue_qmgr))
        self.response_wait_interval = response_wait_interval
        self.convert = convert
        self._reply_od = OD(ObjectName=ensure_bytes(model_queue_name), DynamicQName=ensure_bytes(dynamic_queue_name))
        self._reply_queue = Queue(self, self._reply_od, CMQC.MQOO_INPUT_EXCLUSIVE)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("MQCMD_") and hasattr(CMQCFC, name):
            command = getattr(CMQCFC, name)
            return lambda args=None, filters=None, responses=None: self.run(command, args, filters, responses)
        raise AttributeError(name)

    def run(self, command: int, args: Any = None, filters: list[Filter] | None = None,
            responses: list[tuple[dict[int, Any], CFH]] | None = None) -> list[dict[int, Any]]:
        """Send one command; return the replies' parameters. With ``responses`` (ibmmq's extension) every
        reply is also appended there as ``(parameters, CFH)``, failed ones included, before any raise."""
        params: list[bytes] = []
        if isinstance(args, dict):
            params = [_pcf_param(k, v) for k, v in args.items()]
        elif isinstance(args, (list, tuple)):
            params = [a if isinstance(a, bytes) else a.pack() for a in args]
        params += [f.pack() for f in filters or []]
        header = pcf.Header(type=CMQCFC.MQCFT_COMMAND_XR, version=CMQCFC.MQCFH_VERSION_3, command=command)
        put_md = MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_REQUEST, ReplyToQ=self._reply_od.ObjectName,
                    Report=CMQC.MQRO_PASS_DISCARD_AND_EXPIRY | CMQC.MQRO_DISCARD_MSG,
                    Expiry=max(self.response_wait_interval // 100, 1) * 2)
        self.put1(OD(ObjectName=self._command_od.ObjectName, ObjectQMgrName=self._command_od.ObjectQMgrName),
                  pcf.encode(header, params), put_md, PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
        out: list[dict[int, Any]] = []
        failure = None
        while True:
            md = MD(CorrelId=put_md.MsgId)
            gmo = GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING, Version=CMQC.MQGMO_VERSION_2,
                      MatchOptions=CMQC.MQMO_MATCH_CORREL_ID, WaitInterval=self.response_wait_interval)
            values, cfh = self.unpack(self._reply_queue.get(None, md, gmo))
            if responses is not None:
                responses.append((values, cfh))
            if cfh.CompCode and failure is None:
                failure = MQMIError(cfh.CompCode, cfh.Reason, response=values)
            elif values:
                out.append(values)
            if cfh.Control == CMQCFC.MQCFC_LAST:
                break
        if failure is not None:
            raise failure
        return out

    @staticmethod
    def unpack(message: bytes) -> tuple[dict[int, Any], CFH]:
        try:
            msg = pcf.decode(message)
        except pcf.PCFError as e:
            raise PYIFError(f"not a PCF message: {e.detail}") from None
        h = msg.header
        cfh = CFH(Type=h.type, StrucLength=h.struc_length, Version=h.version, Command=h.command,
                  MsgSeqNumber=h.msg_seq_number, Control=h.control, CompCode=h.comp_code, Reason=h.reason,
                  ParameterCount=h.parameter_count)
        return {sel: value for _t, sel, value in msg.params}, cfh

    @staticmethod
    def stringify_keys(raw: dict[int, Any]) -> dict[str, Any]:
        names = {**{v: k for k, v in vars(CMQC).items() if k.startswith(("MQCA_", "MQIA_"))},
                 **{v: k for k, v in vars(CMQCFC).items() if k.startswith(("MQCA", "MQIA"))}}
        return {names.get(k, str(k)): v for k, v in raw.items()}

    stringifyKeys = stringify_keys

    def disconnect(self) -> None:
        """As pymqi's: closes the reply queue only. A connection this object made itself ends with
        ``QueueManager.disconnect(pcf)`` or when it is collected (disconnect_on_exit)."""
        try:
            self._reply_queue.close()
        except (MQMIError, PYIFError):
            pass


def connect(queue_manager: str, channel: str | None = None, conn_info: str | None = None,
            user: str | None = None, password: str | None = None, disconnect_on_exit: bool = True,
            bytes_encoding: str = "utf8", default_ccsid: int = 1208) -> QueueManager:
    """Connect as a client when channel and conn_info are given, else with local bindings."""
    if channel and conn_info:
        qmgr = QueueManager(None, disconnect_on_exit, bytes_encoding=bytes_encoding, default_ccsid=default_ccsid)
        qmgr.connect_tcp_client(queue_manager or "", CD(), channel, conn_info, user, password)
        return qmgr
    if queue_manager is not None:
        qmgr = QueueManager(None, disconnect_on_exit, bytes_encoding=bytes_encoding, default_ccsid=default_ccsid)
        if user is not None:
            qmgr.connect_with_options(queue_manager, user=user, password=password)
        else:
            qmgr.connect(queue_manager)
        return qmgr
    raise TypeError("Invalid arguments: %s" % [queue_manager, channel, conn_info, user, password])


__all__ = ["CMQC", "CMQCFC", "CMQXC", "MQMIError", "PYIFError", "Error", "QueueManager", "Queue", "connect",
           "MD", "OD", "PMO", "GMO", "CD", "SCO", "CNO", "CSP", "XQH", "DLH", "STS", "MQOpts", "ensure_bytes",
           "PCFExecute", "CFH", "Filter", "ByteString", "CFIN", "CFIN64", "CFIL", "CFIL64", "CFST", "CFSL", "CFBS",
           "CFIF", "CFSF"]
