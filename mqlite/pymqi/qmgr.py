"""The queue manager connection (client or local bindings), MQCONN through MQDISC, and connect()."""
from __future__ import annotations

import getpass
import itertools
import os
import sys
import threading
import weakref
from typing import Any, NoReturn

from mqlite.cmq import CMQC, structs
from mqlite.cmq.structs import CD, MD, OD, PMO, STS
from mqlite.net import ccdt
from mqlite.net import protocol as P
from mqlite.net import verbs as V
from mqlite.net.client import Transport, TransportBusy, TransportError
from mqlite.paths import QMPaths, all_qmgrs
from mqlite.pymqi import consume as _consume
from mqlite.pymqi import msghandle, reconnect
from mqlite.pymqi.twophase import TwoPhase
from mqlite.pymqi.errors import MQMIError, PYIFError, check_reply, failure
from mqlite.security import tls


def ensure_bytes(value: Any, encoding: str = "ascii") -> bytes:
    return value.encode(encoding) if isinstance(value, str) else value


_WORK = frozenset({P.PUT, P.PUT1, P.GET, P.GET_BATCH})   # calls that may be in a unit of work
CHOOSER = ccdt.Chooser()       # this process's CCDT lists (AFFINITY(PREFERRED))


def _cno_url(cno_: Any) -> str:
    """MQCNO CCDTUrl: ibmmq's ``CCDTUrl`` attribute, or pymqi's ``set_vs("CCDTUrl", ...)``."""
    if cno_ is None:
        return ""
    url = getattr(cno_, "CCDTUrl", None) or (cno_.get_vs("CCDTUrl") if hasattr(cno_, "get_vs") else b"")
    return structs.text(ensure_bytes(url or b""))


def _qmgr_from_mqserver() -> tuple[str, str] | None:
    """MQSERVER=CHANNEL/TCP/host(port): the client channel and connection name, when set."""
    value = os.environ.get("MQSERVER")
    if not value:
        return None
    parts = value.split("/", 2)
    if len(parts) != 3 or parts[1].upper() != "TCP":
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_CHANNEL_CONFIG_ERROR, detail=f"MQSERVER={value!r}")
    return parts[0].strip(), parts[2].strip()


ACCOUNTING_OPTIONS = (CMQC.MQCNO_ACCOUNTING_MQI_ENABLED | CMQC.MQCNO_ACCOUNTING_MQI_DISABLED
                      | CMQC.MQCNO_ACCOUNTING_Q_ENABLED | CMQC.MQCNO_ACCOUNTING_Q_DISABLED)


def _appl_name(given: str) -> str:
    """The application's name as MQ takes it: MQCNO's ApplName, else the MQAPPLNAME environment
    variable, else the program's name (its last 28 characters)."""
    return (given or os.environ.get("MQAPPLNAME", "").strip() or os.path.basename(sys.argv[0] or "python"))[-28:]


class QueueManager(_consume.CallbackFace, TwoPhase):
    """A connection to a queue manager (MQCONN/MQCONNX); ``cb`` and ``ctl`` (asynchronous
    consume) from consume.py."""

    def __init__(self, name: str | bytes | None = "", disconnect_on_exit: bool = True,
                 bytes_encoding: str = "utf8", default_ccsid: int = 1208) -> None:
        self._transport: Transport | None = None
        self._name = ""
        self._qmobj: int | None = None
        self._queues: weakref.WeakSet[Any] = weakref.WeakSet()   # the open Queue objects (queue.py)
        self._orphans: list[tuple[int, int]] = []   # handles of Queue objects collected mid-call: closed next
        self._connect_args: tuple[str, tuple[Any, ...], dict[str, Any]] | None = None   # for ``with qmgr:``
        self._ids = itertools.count(int.from_bytes(os.urandom(6), "big") << 16)
        self._cno: tuple[int, str] = (0, "")    # connect_with_options' MQCNO_ACCOUNTING_* and ApplName
        self._async: _consume.Dispatcher | None = None   # MQCB/MQCTL's, once a callback is registered
        self._recon: reconnect.Reconnector | None = None   # a reconnectable client connection's way back
        self._subs: weakref.WeakSet[Any] = weakref.WeakSet()   # the open Subscription objects (pubsub.py)
        self._dirty = False               # an MQPUT or MQGET since the last MQCMIT or MQBACK
        self._unit_broken = False         # ... and the connection broke since: MQCMIT answers MQRC_BACKED_OUT
        self.disconnect_on_exit = disconnect_on_exit
        self.bytes_encoding = bytes_encoding
        self.default_ccsid = default_ccsid
        self.ccsid = 1208                 # the queue manager's, once connected (its HELLO says)
        if name is not None:
            self.connect(name)

    # connection -------------------------------------------------------------------------------
    def connect(self, name: str | bytes) -> "QueueManager":
        """MQCONN: a client connection when MQSERVER is set, else local bindings."""
        self._connect_args = ("connect", (name,), {})
        self._connect_by_name(name)
        return self

    def _connect_by_name(self, name: str | bytes, user: Any = None, password: Any = None, sco_: Any = None,
                         cno_url: str = "", options: int = 0) -> None:
        """MQ's order after an explicit MQCD: the MQCNO's CCDT URL, MQSERVER, MQCCDTURL or
        MQCHLLIB/MQCHLTAB; with none of them, local bindings (mqlite serves both)."""
        client = None if cno_url else _qmgr_from_mqserver()
        url = cno_url or ("" if client else ccdt.location("", os.environ))
        if client is not None:
            self._connect_client(name, client[0], client[1], user, password, CD(), sco_, options=options)
        elif url:
            self._connect_ccdt(url, name, user, password, sco_, options)
        else:
            self._connect_bindings(name, user, password)

    def _connect_ccdt(self, url: str, name: Any, user: Any, password: Any, sco_: Any, options: int = 0) -> None:
        """A client connection through the definitions of the CCDT at ``url`` that apply to
        ``name``, tried in MQ's order (net/ccdt.py); each definition's CONNAME list in turn."""
        qname = structs.text(ensure_bytes(name or b""))
        try:
            defs, wanted = ccdt.applicable(ccdt.read(url), qname)
        except ccdt.CCDTError as e:
            raise MQMIError(CMQC.MQCC_FAILED, e.reason, detail=str(e)) from None
        if not defs:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_Q_MGR_NAME_ERROR,
                            detail=f"no client-connection channel for queue manager {qname!r} in {url}")
        last: MQMIError | None = None
        for d in CHOOSER.plan(url, qname, defs):
            cd_ = CD(ChannelName=ensure_bytes(d.name), ConnectionName=ensure_bytes(d.conname),
                     SSLCipherSpec=ensure_bytes(d.cipher), MaxMsgLength=d.maxmsgl, HeartbeatInterval=d.hbint,
                     DefReconnect=d.reconnect)
            try:
                self._connect_client(wanted, d.name, d.conname, user, password, cd_, sco_, d.cert_label, options)
                return
            except MQMIError as e:
                # Another queue manager answered where ``wanted`` was asked for: MQ goes on to the
                # next definition and, when none is left, says the queue manager is not available.
                last = MQMIError(e.comp, CMQC.MQRC_Q_MGR_NOT_AVAILABLE) if e.reason == CMQC.MQRC_Q_MGR_NAME_ERROR \
                    else e
                CHOOSER.failed(url, qname, d)
        assert last is not None
        raise last

    def connect_with_options(self, name: str | bytes, *args: Any, **kwargs: Any) -> "QueueManager":
        """MQCONNX. Keywords: ``user``, ``password``, ``cd``, ``sco``, ``csp``, ``cno``, ``opts`` (MQCNO
        options); the old positional form is ``(name, cd[, sco])``. With MQCNO_HANDLE_SHARE_BLOCK or
        _NO_BLOCK an object that is connected already makes a new connection, as MQ gives a new
        shared handle (the previous connection is ended); without them that is MQRC_ALREADY_CONNECTED."""
        cd_ = kwargs.get("cd")
        user, password = kwargs.get("user"), kwargs.get("password")
        csp_ = kwargs.get("csp")
        cno_ = kwargs.get("cno")
        sco_ = kwargs.get("sco")
        if args:  # the old positional form: (name, cd[, sco])
            cd_ = args[0]
            sco_ = args[1] if len(args) > 1 else sco_
        if not user:
            user = password = None             # as pymqi: an empty user is no credentials at all
        elif password is None:
            raise ValueError("Password must not be None if user is provided")
        options = int(cno_.Options if cno_ is not None else kwargs.get("opts") or CMQC.MQCNO_NONE)
        if csp_ is not None:
            user = user or csp_.CSPUserId
            password = password or csp_.CSPPassword
        # The accounting asked for (heeded under ACCTCONO(ENABLED)), the name given (MQCNO version 7).
        self._cno = (options & ACCOUNTING_OPTIONS, structs.text(cno_.ApplName) if cno_ and cno_.Version >= 7 else "")
        share = options & (CMQC.MQCNO_HANDLE_SHARE_BLOCK | CMQC.MQCNO_HANDLE_SHARE_NO_BLOCK)
        if share and self._transport is not None:
            self._end_connection()
        self._connect_args = ("connect_with_options", (name, *args), dict(kwargs))
        if cd_ is not None:
            channel = structs.text(cd_.ChannelName)
            conname = structs.text(cd_.ConnectionName)
            self._connect_client(name, channel, conname, user, password, cd_, sco_, options=options)
        else:
            self._connect_by_name(name, user, password, sco_, _cno_url(cno_), options)
        assert self._transport is not None
        self._transport.no_block = bool(options & CMQC.MQCNO_HANDLE_SHARE_NO_BLOCK)
        return self

    def connect_tcp_client(self, name: str | bytes, cd: CD, channel: str | bytes, conn_name: str | bytes,
                           user: Any = None, password: Any = None, **more: Any) -> "QueueManager":
        cd.ChannelName = ensure_bytes(channel)
        cd.ConnectionName = ensure_bytes(conn_name)
        cd.ChannelType = CMQC.MQCHT_CLNTCONN
        cd.TransportType = CMQC.MQXPT_TCP
        return self.connect_with_options(name, user=user, password=password, cd=cd, **more)

    def __enter__(self) -> "QueueManager":
        """``with qmgr:`` connects again, as it was connected before, when it was disconnected."""
        if self._transport is None and self._connect_args is not None:
            how, args, kwargs = self._connect_args
            getattr(self, how)(*args, **kwargs)
        return self

    def __exit__(self, *exc: Any) -> None:
        """Closes the queue-manager object handle and disconnects; an error doing so is raised
        only when the block itself raised nothing."""
        try:
            if self._transport is not None:
                self.disconnect()
        except Exception:
            if exc[0] is None:
                raise

    connectWithOptions = connect_with_options
    connectTCPClient = connect_tcp_client

    def _hello(self, transport: Transport, name: str, **extra: Any) -> None:
        try:
            info = transport.hello(**hello_fields(name, self._cno[1], self._cno[0], extra.pop("user", None)), **extra)
        except TransportError as e:
            raise failure(e) from None
        self._transport = transport
        self._name = info.get("qmgr", name)
        self.ccsid = int(info.get("ccsid", 1208))     # the queue manager's (MQGMO_CONVERT's MQCCSI_Q_MGR)

    def _connect_client(self, name: Any, channel: str, conname: str, user: Any, password: Any, cd_: CD,
                        sco_: Any = None, cert_label: str = "", options: int = 0) -> None:
        if self._transport is not None:
            raise MQMIError(CMQC.MQCC_WARNING, CMQC.MQRC_ALREADY_CONNECTED)
        qname = structs.text(ensure_bytes(name or b""))
        ciph = structs.text(cd_.SSLCipherSpec)
        context = None
        if ciph:
            # TLS: the key repository from SCO KeyRepository, else MQSSLKEYR; CertificateLabel
            # (or MQCERTLABL) picks the client's certificate.
            keyrepo = (structs.text(sco_.KeyRepository) if sco_ is not None else "") or os.environ.get("MQSSLKEYR", "")
            label = ((structs.text(sco_.CertificateLabel) if sco_ is not None else "") or cert_label
                     or os.environ.get("MQCERTLABL", ""))
            try:
                context = tls.client_context(ciph, keyrepo, label)
            except tls.TLSConfigError as e:
                raise MQMIError(CMQC.MQCC_FAILED, getattr(CMQC, e.reason_name)) from None
        # Reconnection as the connection asked for it (MQCNO), else as the channel definition's
        # DefReconnect or mqclient.ini say (reconnect.mode): the queue manager shows it (DISPLAY
        # CONN CONNOPTS). MaxMsgLength and HeartbeatInterval are negotiated with the SVRCONN's.
        ini_default, timeout, delays = reconnect.settings()
        how = reconnect.mode(options, int(getattr(cd_, "DefReconnect", 0)), ini_default)
        transport = reconnect.first_answer(conname, lambda t: self._hello(
            t, qname, channel=channel, kind="client", user=_text(user), password=_text(password),
            maxmsgl=int(cd_.MaxMsgLength), hbint=int(cd_.HeartbeatInterval), sslciph=ciph, reconnect=how), context)
        if how and self._recon is None:
            self._recon = reconnect.Reconnector(self, how, str(transport.info.get("qmid") or ""), timeout, delays)
        transport.probe = bool(how)

    def _connect_bindings(self, name: Any, user: Any = None, password: Any = None) -> None:
        if self._transport is not None:
            raise MQMIError(CMQC.MQCC_WARNING, CMQC.MQRC_ALREADY_CONNECTED)
        qname = bindings_qmgr(structs.text(ensure_bytes(name or b"")))
        paths = QMPaths.of(qname)
        try:
            transport = Transport.unix(paths.socket)
        except TransportError as e:
            raise failure(e) from None
        self._hello(transport, qname, kind="bindings", user=_text(user), password=_text(password))

    def _call(self, ftype: int, payload: bytes) -> bytes:
        if self._transport is None:
            self._not_connected()
        if self._async is not None:
            self._async.check_thread()
        if ftype in _WORK:
            self._dirty = True
        try:
            if self._orphans:
                self._close_orphans()
            return self._transport.call(ftype, payload)
        except TransportBusy:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_CALL_IN_PROGRESS) from None
        except TransportError as e:
            self._transport = None
            if self._recon is None:
                raise failure(e) from None
            return self._recon.redo(ftype, payload, e)

    def _lost(self, e: TransportError) -> None:
        """The connection broke outside a call of ``_call`` (a batch read ahead): 2009, or made
        again when it is reconnectable."""
        self._transport = None
        if self._recon is None:
            raise failure(e) from None
        self._recon.again(e)

    def _not_connected(self) -> NoReturn:
        if self._recon is not None and self._recon.failed:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_RECONNECT_FAILED)
        raise PYIFError("not connected")

    def _orphan(self, hobj: int, consumed: int) -> None:
        """A Queue object was collected with its handle open (``Queue.__del__``): close the handle
        now, or, if this thread is inside a call on the connection, with the next call."""
        self._orphans.append((hobj, consumed))
        transport = self._transport
        if transport is not None and transport.lock.acquire(blocking=False):
            transport.lock.release()
            try:
                self._close_orphans()
            except TransportBusy:
                pass                        # another thread got there first: the next call closes it
            except TransportError:
                self._transport = None      # the next call reports the broken connection

    def _close_orphans(self) -> None:
        """MQCLOSE the orphaned handles; one stays noted until its close has been sent (a
        NO_BLOCK connection busy in another thread raises TransportBusy, and the close waits)."""
        while self._orphans:
            assert self._transport is not None
            hobj, consumed = self._orphans[-1]
            self._transport.call(P.CLOSE, V.Close.request(hobj, CMQC.MQCO_NONE, consumed))
            self._orphans.pop()

    def _send(self, ftype: int, payload: bytes) -> None:
        if self._transport is None:
            self._not_connected()
        if self._async is not None:
            self._async.check_thread()
        self._dirty = True
        try:
            self._transport.send(ftype, payload)
        except TransportError as e:
            self._transport = None
            if self._recon is None:
                raise failure(e) from None
            self._recon.redo(ftype, payload, e)

    def _new_id(self) -> bytes:
        return new_msg_id(self._name, self._ids)

    def stat(self, stat_type: int = 0) -> STS:
        """MQSTAT(MQSTAT_TYPE_ASYNC_ERROR): outcomes of asynchronous puts since the last call."""
        reply = self._call(P.STAT, b"")
        check_reply(reply)
        info = V.Json.parse_reply(reply)
        return STS(CompCode=info["comp"], Reason=info["reason"], PutSuccessCount=info["ok"],
                   PutWarningCount=info["warn"], PutFailureCount=info["fail"],
                   ObjectName=structs.pad(info["object"], 48) if info["object"] else b"")

    def disconnect(self) -> None:
        if self._transport is None:
            raise PYIFError("not connected")
        self._end_connection()

    def _end_connection(self) -> None:
        assert self._transport is not None
        if self._async is not None:
            self._async.stop()
            self._async = None
        for q in list(self._queues):
            q._settle()
        self._orphans.clear()
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

    def _end_unit(self, ftype: int) -> None:
        queues = list(self._queues)
        pairs = [p for p in (q._end_of_unit() for q in queues) if p is not None]
        broken = self._unit_broken
        try:
            # A unit the broken connection had work in was backed out by the queue manager: the
            # MQCMIT after reconnecting backs out what was done since too, and says so.
            check_reply(self._call(P.BACK if broken else ftype, V.EndUnit.request(pairs)))
        finally:
            for q in queues:
                q._after_end_of_unit()
            self._dirty = self._unit_broken = False
        if broken and ftype == P.CMIT:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_BACKED_OUT)

    def put1(self, qDesc: Any, msg: Any, mDesc: MD | None = None, putOpts: PMO | None = None) -> None:
        od_ = qDesc if isinstance(qDesc, OD) else OD(ObjectName=ensure_bytes(qDesc))
        md_ = mDesc if mDesc is not None else MD()
        pmo_ = putOpts if putOpts is not None else PMO()
        body = self._body(msg, md_)

        def send(data: bytes) -> None:
            reply = self._call(P.PUT1, V.Put1.request(od_, pmo_, md_, data))
            check_reply(reply)
            comp, reason = V.Put1.parse_reply(reply, od_, md_, pmo_)
            if comp:
                raise MQMIError(comp, reason)
        if pmo_.OriginalMsgHandle or pmo_.NewMsgHandle:
            msghandle.put_with(pmo_, md_, body, send)
        else:
            send(body)

    def _body(self, msg: Any, md_: MD) -> bytes:
        return message_body(msg, md_, self._transport.info if self._transport is not None else {},
                            self.bytes_encoding, self.default_ccsid)

    def inquire(self, attribute: int | list[int]) -> Any:
        if self._qmobj is None:
            od_ = OD(ObjectType=CMQC.MQOT_Q_MGR)
            reply = self._call(P.OPEN, V.Open.request(CMQC.MQOO_INQUIRE, od_))
            check_reply(reply)
            self._qmobj = V.Open.parse_reply(reply, od_)[0]
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


def message_body(msg: Any, md_: MD, info: dict[str, Any], encoding: str = "utf8", ccsid: int = 1208) -> bytes:
    """A message's data as both faces send it: a str encoded, MQSTR in ``ccsid``; and within the
    MAXMSGL both ends agreed at connect time (``info``, the HELLO's answer), else 2010."""
    if isinstance(msg, str):
        md_.Format = CMQC.MQFMT_STRING
        md_.CodedCharSetId = ccsid
        body = msg.encode(encoding)
    elif isinstance(msg, (bytes, bytearray, memoryview)):
        body = bytes(msg)
    else:
        raise TypeError(f"Message type is {type(msg)}. Convert to bytes.")
    limit = info.get("maxmsgl")
    if limit is not None and len(body) > limit:
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_DATA_LENGTH_ERROR)
    return body


def new_msg_id(qmgr: str, ids: Any) -> bytes:
    """A message identifier made by the client, for asynchronous puts (MQ's clients do the same):
    "AMQ ", the queue manager's name, and the connection's next number from ``ids``."""
    return b"AMQ " + qmgr.encode()[:12].ljust(12) + (next(ids) & (2 ** 64 - 1)).to_bytes(8, "big")


def bindings_qmgr(name: str) -> str:
    """The queue manager a local-bindings connection is for: the one named, or with no name the one
    running here (2058 when it does not exist, or when none or several run)."""
    if not name:
        running = [q for q in all_qmgrs() if QMPaths.of(q).running_pid()]
        if len(running) != 1:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_Q_MGR_NAME_ERROR)
        name = running[0]
    if not QMPaths.of(name).exists():
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_Q_MGR_NAME_ERROR)
    return name


def hello_fields(qmgr: str, appl: str, accounting: int, user: str | None) -> dict[str, Any]:
    """What a connection says of itself in its HELLO, for both faces."""
    return {"qmgr": qmgr, "appl": _appl_name(appl), "accounting": accounting, "appl_type": CMQC.MQAT_UNIX,
            "user": user or _os_user(), "os_user": _os_user(), "tid": threading.get_native_id()}


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
    reply = qmgr._call(P.INQ, V.Inq.request(hobj, selectors))
    comp, reason = check_reply(reply)
    if comp:        # MQRC_SELECTOR_NOT_FOR_TYPE: pymqi and ibmmq raise warnings too
        raise MQMIError(comp, reason)
    values = V.Inq.parse_reply(reply)
    if isinstance(attribute, (list, tuple)):
        return dict(zip(selectors, values, strict=False))
    return values[0]


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
