"""The queue handle: MQOPEN, MQPUT, MQGET with read-ahead, MQINQ/MQSET, MQCLOSE, and mqlite's
position and bulk-browse extensions."""
from __future__ import annotations

from typing import Any, NamedTuple

from mqlite.cmq import CMQC, structs
from mqlite.cmq.segments import statuses
from mqlite.cmq.structs import GMO, MD, OD, PMO
from mqlite.net import protocol as P
from mqlite.net import verbs as V
from mqlite.pymqi import msghandle
from mqlite.pymqi.errors import MQMIError, PYIFError, check_reply
from mqlite.pymqi.qmgr import QueueManager, _inquire, ensure_bytes
from mqlite.pymqi.readahead import PLAIN, ReadAhead, Reconnected, ServerGet, converts
from mqlite.pymqi.rfh2 import RFH2, pack_chain, unpack_chain

MQ_MAX_MSG = 104857600    # 100 MB: the largest MAXMSGL MQ allows (mqlite's own name; MQ has no constant for it)


class StreamMark(NamedTuple):
    """The answer to :meth:`Queue.stream_mark` (mqlite's extension)."""
    end: int
    count: int
    held: int


_NOT_READ_AHEAD = (CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_BROWSE_NEXT | CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR
                   | CMQC.MQGMO_MSG_UNDER_CURSOR | CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT
                   | CMQC.MQGMO_LOGICAL_ORDER | CMQC.MQGMO_ALL_MSGS_AVAILABLE | CMQC.MQGMO_COMPLETE_MSG
                   | CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE
                   | CMQC.MQGMO_LOCK | CMQC.MQGMO_UNLOCK | CMQC.MQGMO_MARK_SKIP_BACKOUT
                   | CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2 | CMQC.MQGMO_NO_PROPERTIES | CMQC.MQGMO_PROPERTIES_IN_HANDLE
                   | CMQC.MQGMO_PROPERTIES_COMPATIBILITY)
_MSG_FLAGS_AT, _MSG_FLAGS = MD.field_struct("MsgFlags")
_CONVERT = CMQC.MQGMO_CONVERT
_DEFAULT_PMO = PMO().pack()          # the MQPMO a put given none sends (Queue.put)
_DEFAULT_MD = MD().pack()            # and the MQMD, held packed (MD.held): nobody reads its answer
_NO_ID = MD().MsgId                  # MQMI_NONE as a new MD holds it (one object: compared by identity first)
_SYNCPOINT, _ACCEPT_TRUNCATED, _GMO_V2 = CMQC.MQGMO_SYNCPOINT, CMQC.MQGMO_ACCEPT_TRUNCATED_MSG, CMQC.MQGMO_VERSION_2


def is_async_put(options: int, queue_default: bool) -> bool:
    """MQPMO_ASYNC_RESPONSE, or the queue's DEFPRESP(ASYNC) unless MQPMO_SYNC_RESPONSE."""
    return bool(options & CMQC.MQPMO_ASYNC_RESPONSE or (queue_default and not options & CMQC.MQPMO_SYNC_RESPONSE))


def async_put_request(hobj: int, pmo_: PMO, md_: MD, body: bytes, new_id: Any) -> bytes:
    """An asynchronous put's request: no answer comes, so the identifiers it asks for are made
    here (``new_id()``) and set in the MQMD, as MQ's clients do."""
    opts = pmo_.Options
    if opts & CMQC.MQPMO_NEW_MSG_ID or md_.MsgId.strip(b"\0") == b"":
        md_.MsgId = new_id()
    if opts & CMQC.MQPMO_NEW_CORREL_ID:
        md_.CorrelId = new_id()
    pmo_.Options = opts & ~(CMQC.MQPMO_NEW_MSG_ID | CMQC.MQPMO_NEW_CORREL_ID)
    try:
        return V.Put.request(hobj, pmo_, md_, body)
    finally:
        pmo_.Options = opts


class Queue:
    """An MQ queue: open, put, get, inquire, set and close, with pymqi's deferred-open rules."""

    def __init__(self, qMgr: QueueManager, qDesc: Any = None, openOpts: int | None = None) -> None:
        self.__qMgr = qMgr
        self.__qHandle: int | None = None
        self.__qDesc: OD | None = None
        self.__openOpts: int | None = None
        self.__async_put = False
        self.__read_ahead = False
        self.__ahead = ReadAhead(qMgr)  # the messages sent ahead (used when the open allows read-ahead)
        self.__resolved = b""           # ResolvedQName from MQOPEN, for gets served from read-ahead
        if qDesc is not None:
            self.__qDesc = self.__make_od(qDesc)
            if openOpts is not None:
                self.open(self.__qDesc, openOpts)

    @staticmethod
    def __make_od(qDesc: Any) -> OD:
        return qDesc if isinstance(qDesc, OD) else OD(ObjectName=ensure_bytes(qDesc))

    def open(self, qDesc: Any, openOpts: int | None = None) -> "Queue":
        """MQOPEN with ``openOpts``; without them the open waits for the first put, get, inquire
        or set (or ``with queue:``), which opens with the options it needs, as pymqi does."""
        if self.__qHandle is not None:
            raise PYIFError("The Queue is already open")
        self.__qDesc = self.__make_od(qDesc)
        if openOpts is not None:
            self.__open(openOpts)
        return self

    def __open(self, opts: int) -> None:
        assert self.__qDesc is not None
        od_ = self.__qDesc
        reply = self.__qMgr._call(P.OPEN, V.Open.request(opts, od_))
        check_reply(reply)
        self.__qHandle, flags = V.Open.parse_reply(reply, od_)
        self.__openOpts = opts
        self.__async_put = bool(flags & P.OPEN_ASYNC_PUT)
        self.__read_ahead = bool(flags & P.OPEN_READ_AHEAD)
        self.__resolved = od_.ResolvedQName
        self.__qMgr._queues.add(self)

    def __ensure_open(self, opts: int) -> int:
        if self.__qHandle is None:
            if self.__qDesc is None:
                raise PYIFError("The Queue Descriptor has not been set.")
            self.__open(opts)
        assert self.__qHandle is not None
        return self.__qHandle

    def __enter__(self) -> "Queue":
        self.__ensure_open(CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
        return self

    def __exit__(self, *exc: Any) -> None:
        """Closes the queue; an error closing it is raised only when the block raised nothing."""
        if self.__qHandle is None:
            return
        try:
            self.close()
        except Exception:
            if exc[0] is None:
                raise

    def __del__(self) -> None:
        """A Queue object that is collected while open closes its handle, as pymqi's does (a
        loop of ``Queue(qmgr, name).put(...)`` leaves no handles open)."""
        try:
            hobj = self.__qHandle
            qmgr = self.__qMgr
        except AttributeError:          # __init__ did not finish
            return
        if hobj is not None and qmgr._transport is not None:
            self.__qHandle = None
            try:
                qmgr._orphan(hobj, self.__ahead.consumed)
            except Exception:           # at interpreter exit, say: nothing more can be done
                pass

    def put(self, msg: Any, mDesc: MD | None = None, putOpts: PMO | None = None) -> None:
        hobj = self.__ensure_open(CMQC.MQOO_OUTPUT)
        md_ = mDesc if mDesc is not None else MD.held(_DEFAULT_MD)
        # No put options given, on a queue that answers puts: None stands for the default MQPMO,
        # sent packed once (_DEFAULT_PMO) and not read back (the application has no MQPMO to see).
        pmo_ = putOpts if putOpts is not None else (PMO() if self.__async_put else None)
        qmgr = self.__qMgr
        body = qmgr._body(msg, md_)
        if pmo_ is not None and (pmo_.OriginalMsgHandle or pmo_.NewMsgHandle):
            msghandle.put_with(pmo_, md_, body, lambda data: self.__put(hobj, qmgr, md_, pmo_, data))
        else:
            self.__put(hobj, qmgr, md_, pmo_, body)

    def __put(self, hobj: int, qmgr: QueueManager, md_: MD, pmo_: PMO | None, body: bytes) -> None:
        if pmo_ is not None and is_async_put(pmo_.Options, self.__async_put):
            qmgr._send(P.PUT_ASYNC, async_put_request(hobj, pmo_, md_, body, qmgr._new_id))
            return
        reply = qmgr._call(P.PUT, V.Put.request(hobj, pmo_ if pmo_ is not None else _DEFAULT_PMO, md_, body))
        check_reply(reply)
        comp, reason = V.Put.parse_reply(reply, md_, pmo_)
        if comp:
            raise MQMIError(comp, reason)

    def get(self, maxLength: int | None = None, mDesc: MD | None = None, getOpts: GMO | None = None) -> bytes:
        md_ = mDesc if mDesc is not None else MD()
        gmo_ = getOpts if getOpts is not None else GMO()
        ra = self.__ahead
        buf = ra.buffer
        if buf:
            # The common case with read-ahead, kept short: a message is held and the get is a plain
            # one in the same syncpoint mode as the batch it came from.
            g = gmo_.__dict__
            opts = g["Options"]
            d = md_.__dict__
            if "_raw" in d:                 # the MQMD of an MQPUT before, its answer not read yet
                d = md_.decoded()
            if (not opts & _NOT_READ_AHEAD and not g["MsgHandle"] and bool(opts & _SYNCPOINT) == ra.under_sync
                    and ((mid := d["MsgId"]) is _NO_ID or not mid.strip(b"\0"))
                    and ((cid := d["CorrelId"]) is _NO_ID or not cid.strip(b"\0"))
                    and (g["Version"] < _GMO_V2 or not g["MatchOptions"] & ~3)
                    and not (opts & _CONVERT and converts(buf[0][0], d["CodedCharSetId"], self.__qMgr.ccsid))):
                md_bytes, body, ahead = buf[0]
                if (len(body) <= maxLength) if maxLength is not None else (
                        len(body) <= MQ_MAX_MSG and not opts & _ACCEPT_TRUNCATED):
                    md_.hold(md_bytes)
                    flags = _MSG_FLAGS.unpack_from(md_bytes, _MSG_FLAGS_AT)[0]
                    g["ResolvedQName"] = self.__resolved
                    g["GroupStatus"], g["SegmentStatus"], g["Segmentation"] = statuses(flags) if flags else PLAIN
                    g["ReturnedLength"] = len(body)
                    assert self.__qHandle is not None
                    ra.take(self.__qHandle, ahead)
                    return body
        hobj = self.__ensure_open(CMQC.MQOO_INPUT_AS_Q_DEF)
        if maxLength is None:
            length = 0 if gmo_.Options & CMQC.MQGMO_ACCEPT_TRUNCATED_MSG else MQ_MAX_MSG
        else:
            length = maxLength
        if self.__read_ahead:
            if self.__simple_get(md_, gmo_):
                under_sync = bool(gmo_.Options & CMQC.MQGMO_SYNCPOINT)
                if under_sync != ra.under_sync:
                    ra.settle(hobj)
                    ra.under_sync = under_sync
                try:
                    return ra.get(hobj, length, md_, gmo_, self.__resolved)
                except ServerGet:
                    pass                # (given back below, then got from the queue manager)
                except Reconnected:
                    return self.get(maxLength, mDesc, getOpts)
            ra.settle(hobj)
        hmsg = gmo_.MsgHandle
        if hmsg:
            msghandle.check(hmsg)
        reply = self.__qMgr._call(P.GET, V.Get.request(hobj, length, gmo_, md_))
        check_reply(reply)
        comp, reason, data_length, body, props = V.Get.parse_reply(reply, gmo_, md_)
        if props is not None and hmsg and comp != CMQC.MQCC_FAILED and reason != CMQC.MQRC_TRUNCATED_MSG_FAILED:
            msghandle.after_get(hmsg, md_, props)
        if comp:
            raise MQMIError(comp, reason, message=body, original_length=data_length)
        return body

    @staticmethod
    def __simple_get(md_: MD, gmo_: GMO) -> bool:
        """A get that read-ahead can serve: destructive, outside syncpoint, no selection."""
        if gmo_.Options & _NOT_READ_AHEAD or gmo_.MsgHandle:
            return False
        match = gmo_.MatchOptions if gmo_.Version >= CMQC.MQGMO_VERSION_2 else (
            CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID)
        if match & CMQC.MQMO_MATCH_MSG_ID and md_.MsgId.strip(b"\0"):
            return False
        if match & CMQC.MQMO_MATCH_CORREL_ID and md_.CorrelId.strip(b"\0"):
            return False
        return not match & ~(CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID)

    def _settle(self) -> None:
        """Give back read-ahead messages not consumed, so they stay on the queue in order."""
        if self.__qHandle is not None:
            self.__ahead.settle(self.__qHandle)

    def _end_of_unit(self) -> tuple[int, int] | None:
        """At MQCMIT/MQBACK: (handle, consumed) for the read-ahead messages held under syncpoint."""
        return self.__ahead.end_of_unit(self.__qHandle)

    def _after_end_of_unit(self) -> None:
        self.__ahead.after_end_of_unit()

    def get_no_jms(self, maxLength: int | None = None, mDesc: MD | None = None, getOpts: GMO | None = None) -> bytes:
        gmo_ = getOpts if getOpts is not None else GMO()
        gmo_.Options |= CMQC.MQGMO_NO_PROPERTIES | CMQC.MQGMO_FAIL_IF_QUIESCING
        return self.get(maxLength, mDesc, gmo_)

    get_no_rfh2 = get_no_jms

    def put_rfh2(self, msg: Any, mDesc: MD | None = None, putOpts: PMO | None = None,
                 rfh2_header: list[RFH2] | None = None) -> None:
        """MQPUT of ``msg`` behind the MQRFH2 headers given (pymqi): each is packed in the encoding
        before it, the MQMD's for the first. The message must be bytes, as pymqi and ibmmq both
        insist (a str would also set the MQMD's Format to MQSTR behind the headers)."""
        if isinstance(msg, str):
            raise TypeError(f"Python 3 style string (unicode) found but not allowed here: `{msg}`. Convert to bytes.")
        md_ = mDesc if mDesc is not None else MD()
        body = self.__qMgr._body(msg, md_)
        if rfh2_header:
            body = pack_chain(rfh2_header, md_.Encoding) + body
        self.put(body, md_, putOpts)

    _rfh2 = RFH2                  # the face's RFH2 class (ibmmq's names its first field _StrucId)

    def get_rfh2(self, maxLength: int | None = None, mDesc: MD | None = None, getOpts: GMO | None = None,
                 rfh2_header: list[RFH2] | None = None) -> bytes:
        """MQGET, with the MQRFH2 headers at the front of the message parsed into ``rfh2_header``
        (a list the caller passes); returns the data after them (pymqi)."""
        md_ = mDesc if mDesc is not None else MD()
        msg = self.get(maxLength, md_, getOpts)
        if rfh2_header is None:
            return msg
        return unpack_chain(msg, md_.Format, md_.Encoding, rfh2_header, self._rfh2)

    def browse_batch(self, max_msgs: int = 1000, first: bool = False,
                     max_bytes: int = 8 << 20) -> list[tuple[bytes, bytes]]:
        """mqlite's extension (not in pymqi): browse up to ``max_msgs`` whole messages from the
        browse cursor on (``first``: from the start of the queue) in one round trip. Returns
        (packed MQMD, data) pairs, ``MD.from_bytes`` decodes a descriptor; an empty list at the end
        of the queue. The queue must be open with MQOO_BROWSE."""
        hobj = self.__ensure_open(CMQC.MQOO_BROWSE)
        reply = self.__qMgr._call(P.BROWSE_BATCH, V.BrowseBatch.request(hobj, first, max_msgs, max_bytes))
        check_reply(reply)
        return V.BrowseBatch.parse_reply(reply)

    # mqlite's extensions (not in pymqi): a queue read by position ----------------------------
    def _stream(self, op: int, opts: int, start: int = 0, end: int = 0, max_msgs: int = 0,
                max_bytes: int = 0) -> bytes:
        hobj = self.__ensure_open(opts)
        reply = self.__qMgr._call(P.STREAM, V.Stream.request(hobj, op, start, end, max_msgs, max_bytes))
        check_reply(reply)
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
        return StreamMark(*V.Stream.parse_mark_reply(self._stream(op, CMQC.MQOO_BROWSE, start, 0, max_msgs)))

    def stream_read(self, start: int, end: int, max_msgs: int = 5000,
                    max_bytes: int = 8 << 20) -> list[tuple[int, bytes, bytes]]:
        """Browse the messages with positions in [start, end) in arrival order, up to ``max_msgs``
        or ``max_bytes``: (position, packed MQMD, data) each. Continue from the last position + 1."""
        return V.Stream.parse_read_reply(self._stream(P.STREAM_READ, CMQC.MQOO_BROWSE, start, end, max_msgs, max_bytes))

    def stream_delete(self, end: int, start: int = 0, syncpoint: bool = False) -> int:
        """Remove every message with a position in [start, end): outside syncpoint, or with
        ``syncpoint`` as gets in the connection's unit of work (committed, backed out or prepared
        with it; more than MAXUMSGS: MQRC_SYNCPOINT_LIMIT_REACHED, nothing removed). The queue must
        be open for input. Returns how many were removed."""
        op = P.STREAM_DELETE_SYNCPOINT if syncpoint else P.STREAM_DELETE
        return V.Stream.parse_delete_reply(self._stream(op, CMQC.MQOO_INPUT_SHARED, start, end))

    def cb(self, **kwargs: Any) -> None:
        """MQCB on this handle (ibmmq's ``cb(operation=, cbd=, md=, gmo=)``): a message consumer
        registered, deregistered, suspended or resumed (mqlite/pymqi/consume.py)."""
        hobj = self.__ensure_open(CMQC.MQOO_INPUT_AS_Q_DEF)
        op = int(kwargs.get("operation", CMQC.MQOP_REGISTER))
        cbd, md_, gmo_ = kwargs.get("cbd"), kwargs.get("md") or MD(), kwargs.get("gmo") or GMO()
        if not isinstance(md_, MD) or not isinstance(gmo_, GMO):
            raise TypeError("md must be an instance of MD and gmo of GMO")
        dispatcher = self.__qMgr._callbacks()
        if op & CMQC.MQOP_REGISTER:
            dispatcher.check_thread()
            self.__ahead.settle(hobj)
        dispatcher.cb(self, hobj, op, cbd if cbd is not None else structs.CBD(), md_, gmo_)

    def _reopen(self) -> tuple[int, int] | None:
        """After a reconnect (reconnect.py): MQOPEN again as it was opened, its read-ahead and
        browse cursor starting again; (old handle, new) or None (not open, opened by MQSUB, or
        it cannot be opened again)."""
        old, od_, opts = self.__qHandle, self.__qDesc, self.__openOpts
        ra = self.__ahead
        ra.buffer.clear()
        ra.consumed = ra.in_unit = 0
        ra.inflight = ra.drained = False
        transport = self.__qMgr._transport
        if old is None or od_ is None or opts is None or transport is None:
            return None
        reply = transport.call(P.OPEN, V.Open.request(opts, od_))
        if V.II.unpack_from(reply)[0] == CMQC.MQCC_FAILED:
            return None
        self.__qHandle, _flags = V.Open.parse_reply(reply, od_)
        return old, self.__qHandle

    def _consumer_buffer(self) -> ReadAhead:
        """The handle's read-ahead, which a message consumer's batches are held in (so MQCMIT and
        MQCLOSE settle them as they settle a get's)."""
        return self.__ahead

    def close(self, options: int = CMQC.MQCO_NONE) -> None:
        if self.__qHandle is None:
            raise PYIFError("not open")
        dispatcher = self.__qMgr._async
        if dispatcher is not None:
            dispatcher.check_thread()
            if dispatcher.closing(self.__qHandle, options):
                raise MQMIError(CMQC.MQCC_WARNING, CMQC.MQRC_READ_AHEAD_MSGS)
        consumed = self.__ahead.release()
        check_reply(self.__qMgr._call(P.CLOSE, V.Close.request(self.__qHandle, options, consumed)))
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
        check_reply(self.__qMgr._call(P.SET, V.Set.request(hobj, [s for s, _ in pairs], [v for _, v in pairs])))

    def get_handle(self) -> int | None:
        """The object handle; None while the queue is not open (as pymqi)."""
        return self.__qHandle

    def set_handle(self, handle: int) -> None:
        self.__qHandle = handle

    def _adopt(self, handle: int, flags: int) -> None:
        """A handle the queue manager opened for the application (MQSUB's managed queue), with its
        OPEN_* flags: read-ahead as an MQOPEN of it would have."""
        self.__qHandle = handle
        self.__read_ahead = bool(flags & P.OPEN_READ_AHEAD)
        self.__async_put = bool(flags & P.OPEN_ASYNC_PUT)
        self.__openOpts = CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE
        self.__qMgr._queues.add(self)

    def get_name(self) -> str:
        return structs.text(self.__qDesc.ObjectName) if self.__qDesc is not None else ""

    def get_queue_manager(self) -> QueueManager:
        return self.__qMgr


# --- PCF administration -----------------------------------------------------------------------
