"""MQGET: selection, groups, browse cursors, shared queues: ``Gets``, the queue manager's
``qm.gets``, over ``engine.mqicore.CoreState`` (the queue manager binds its public methods as
its own: mqlite.engine.qmgr)."""
from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, Callable

from mqlite.cmq.convert import converted_for_get
from mqlite.cmq.errors import MQIError
from mqlite.cmq.headers import XQH_LEN, original_md
from mqlite.cmq.packedmd import md_with_format, report_and_format
from mqlite.cmq.segments import GROUP_FLAGS, SEGMENT_FLAGS, statuses
from mqlite.cmq.structs import GMO, MD, pad
from mqlite.engine.core import (
    BROWSE_GMO,
    INPUT_OPTS,
    C,
    Conn,
    GetResult,
    Handle,
    bits,
    format_report,
)
from mqlite.engine.message import Message
from mqlite.engine.mqicore import CoreState
from mqlite.engine.ports import Select
from mqlite.engine.queue import QueueState, matcher, wanted_ids
from mqlite.engine.resolve import Resolved
from mqlite.engine.segments import advance_group, group_complete, logical_message, whole_message
from mqlite.engine.shared import SharedGot, SharedQueueState
from mqlite.engine.status import note_got
from mqlite.props import rfh2
from mqlite.props.deliver import HANDLE, PROPERTY_GMO, RFH2, DeliveryError, Shared, deliver
from mqlite.props.deliver import mode as delivery_mode
from mqlite.props.rfh2 import RFH2_FORMAT, RFHError
from mqlite.props.selector import md_lookup

_WHOLE_GMO = C.MQGMO_COMPLETE_MSG | C.MQGMO_ALL_SEGMENTS_AVAILABLE


def _incomplete(h: Handle) -> int:
    """The warning for an MQGET outside logical order while the handle's logical message (2242) or
    group (2241) is unfinished; the message is returned all the same."""
    assert h.get_group is not None
    return C.MQRC_INCOMPLETE_MSG if h.get_group[2] else C.MQRC_INCOMPLETE_GROUP


def message_props(m: Message) -> dict[str, Any]:
    """A message's properties as a selector reads them, parsed from its MQRFH2 once and kept."""
    props = m.props
    if props is None:
        props = {}
        if m.md.peek("Format") == RFH2_FORMAT:
            try:
                props = rfh2.properties_of(RFH2_FORMAT, m.md.Encoding, m.body)
            except RFHError:
                pass                          # a header that does not parse has no properties to select on
        m.props = props
    return props


def _converted(md: MD, out_md: MD, body: bytes, max_length: int, comp: int, reason: int,
               qmgr_ccsid: int) -> tuple[bytes, int, int]:
    """MQGMO_CONVERT (cmq/convert.py's rule): the data in the CCSID ``md`` asks for, and the
    returned MQMD saying which it is; a warning when it stays as it was."""
    peek = out_md.peek if "_raw" in out_md.__dict__ else out_md.__getattribute__   # (kept packed: not decoded)
    data, ccsid, encoding, why = converted_for_get(body, peek("Format"), peek("CodedCharSetId"), peek("Encoding"),
                                                   md.CodedCharSetId, md.Encoding, max_length, qmgr_ccsid)
    if why != C.MQRC_NONE:
        return body, C.MQCC_WARNING, reason or why
    if data is not body:
        out_md.CodedCharSetId, out_md.Encoding = ccsid, encoding
    return data, comp, reason


def _with_properties(how: str, out_md: MD, body: bytes,
                     shared: Shared | None = None) -> tuple[bytes, bytes | None, int, int]:
    """The data as the application receives it, the properties for its handle (an MQRFH2 of
    property folders, or None when no handle asked), and the completion (2421 warns).
    ``shared``: what a publication's copies share (Message.shared)."""
    if how == RFH2 or (how != HANDLE and out_md.peek("Format") != RFH2_FORMAT):
        return body, None, C.MQCC_OK, C.MQRC_NONE
    d = out_md.decoded()
    got = deliver(how, d["Format"], d["Encoding"], d["CodedCharSetId"], body, shared)
    d["Format"], d["Encoding"], d["CodedCharSetId"] = got.format, got.encoding, got.ccsid
    if got.reason:
        return got.data, got.props, C.MQCC_WARNING, got.reason
    return got.data, got.props, C.MQCC_OK, C.MQRC_NONE


class Gets:
    """MQGET (``qm.gets``): selection, browse cursors, groups, properties, the message handed out through ``qm.departures``."""

    def __init__(self, qm: CoreState) -> None:
        self.qm = qm

    # --- MQGET ------------------------------------------------------------------------------------
    def drain(self, conn: Conn, hobj: int, gmo: GMO, limit: int) -> Iterator[GetResult]:
        """MQGET after MQGET until the queue has nothing (2033) or ``limit`` were taken: how the
        queue manager's own agents read their queues."""
        for _ in range(limit):
            try:
                yield self.get(conn, hobj, MD(), gmo, 100 * 1024 * 1024)
            except MQIError as e:
                if e.reason != C.MQRC_NO_MSG_AVAILABLE:
                    raise
                return

    def get(self, conn: Conn, hobj: int, md: MD, gmo: GMO, max_length: int) -> GetResult:
        h = self.qm.handle(conn, hobj)
        try:
            r = self._get(conn, h, md, gmo, max_length)
        except MQIError as e:
            self.qm.observers.get_failed(conn, h, e.reason, gmo.Options)
            raise
        self.qm.observers.got(h)
        return r

    def _get(self, conn: Conn, h: Handle, md: MD, gmo: GMO, max_length: int) -> GetResult:
        opts = gmo.Options
        browse = opts & BROWSE_GMO
        if bits(opts & BROWSE_GMO) > 1 or (browse and opts & C.MQGMO_MSG_UNDER_CURSOR):
            raise MQIError(C.MQRC_OPTIONS_ERROR)
        if opts & C.MQGMO_SYNCPOINT and opts & (C.MQGMO_NO_SYNCPOINT | C.MQGMO_SYNCPOINT_IF_PERSISTENT):
            raise MQIError(C.MQRC_OPTIONS_ERROR)
        if browse and opts & (C.MQGMO_SYNCPOINT | C.MQGMO_SYNCPOINT_IF_PERSISTENT):
            raise MQIError(C.MQRC_OPTIONS_ERROR)
        if opts & C.MQGMO_WAIT and (gmo.WaitInterval < 0 and gmo.WaitInterval != C.MQWI_UNLIMITED):
            raise MQIError(C.MQRC_WAIT_INTERVAL_ERROR)
        if max_length < 0:
            raise MQIError(C.MQRC_BUFFER_LENGTH_ERROR)
        if browse or opts & C.MQGMO_BROWSE_MSG_UNDER_CURSOR:
            if not h.options & C.MQOO_BROWSE:
                raise MQIError(C.MQRC_NOT_OPEN_FOR_BROWSE)
        elif not h.options & INPUT_OPTS:
            raise MQIError(C.MQRC_NOT_OPEN_FOR_INPUT)
        if self.qm.quiescing and opts & C.MQGMO_FAIL_IF_QUIESCING:
            raise MQIError(C.MQRC_Q_MGR_QUIESCING)
        res = h.res
        qs = h.qstate
        if res is None or qs is None:
            raise MQIError(C.MQRC_HOBJ_ERROR)
        if qs is not self.qm.queues.get(res.queue):
            raise MQIError(C.MQRC_Q_DELETED)
        self.check_get_allowed(res)
        match_opts = gmo.MatchOptions if gmo.Version >= C.MQGMO_VERSION_2 else (
            C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID)
        if match_opts & ~0x3F:
            raise MQIError(C.MQRC_MATCH_OPTIONS_ERROR)
        # Properties need a decision only when the get names an option or a handle, or (below) when
        # the message has an MQRFH2: the common get skips it.
        how = self.property_mode(h, gmo) if opts & PROPERTY_GMO or gmo.MsgHandle not in (0, -1) else None
        if qs.shared:
            return self._shared_get(conn, h, qs, res, md, gmo, match_opts, max_length, how)
        now = self.qm.clock.now()
        msg = self._select(h, qs, md, opts, match_opts, now)
        if msg is None:
            raise MQIError(C.MQRC_NO_MSG_AVAILABLE)
        if opts & C.MQGMO_COMPLETE_MSG and msg.md.MsgFlags & SEGMENT_FLAGS:
            return self._get_complete(conn, h, qs, res, msg, gmo, max_length, how, now)
        out_md = msg.md.copy()
        if msg.expiry_at is not None:
            out_md.Expiry = max(1, math.ceil((msg.expiry_at - now) * 10))
        fmt, report = format_report(msg.md)
        if how == HANDLE or fmt == RFH2_FORMAT:
            body, props, comp, reason = _with_properties(how or self.property_mode(h, gmo), out_md, msg.body,
                                                         msg.shared)
        else:
            body, props, comp, reason = msg.body, None, C.MQCC_OK, C.MQRC_NONE
        if opts & C.MQGMO_CONVERT:
            body, comp, reason = _converted(md, out_md, body, max_length, comp, reason, self.qm.qmgr["CCSID"])
        packed = msg.packed_md() if msg.expiry_at is None and body is msg.body else None
        length = len(body)
        truncated = length > max_length
        if truncated and not opts & C.MQGMO_ACCEPT_TRUNCATED_MSG:
            # The message stays where it is (and a browse cursor does not move), as MQ does.
            out = GetResult(out_md, body[:max_length], length, gmo, C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_FAILED)
            self._fill_gmo(gmo, res, out_md, max_length)
            if h.stats is not None:
                h.stats.get_failed(bool(browse or opts & C.MQGMO_BROWSE_MSG_UNDER_CURSOR))
            return out
        if truncated:
            comp, reason = C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED
        if browse or opts & C.MQGMO_BROWSE_MSG_UNDER_CURSOR:
            h.browse_at, h.browse_seq = msg.order, msg.seq
            if h.stats is not None:
                h.stats.browsed(msg.persistent, length)
        else:
            qs.remove(msg)
            qs.deq += 1
            qs.last_get = now
            if qs.monitored:
                note_got(qs, (msg,), now)
            if h.stats is not None:         # statistics (engine/statistics.py)
                h.stats.got_message(msg, length, qs.depth, now)
            if h.browse_seq == msg.seq:
                h.browse_seq = None
            syncpoint = opts & C.MQGMO_SYNCPOINT or (opts & C.MQGMO_SYNCPOINT_IF_PERSISTENT and msg.persistent)
            if syncpoint:
                if len(conn.uow) >= self.qm.qmgr["MAXUMSGS"]:
                    qs.insert(msg)
                    raise MQIError(C.MQRC_SYNCPOINT_LIMIT_REACHED)
                self.qm.departures.held(conn, qs, msg, now)
            else:
                self.qm.departures.gone(conn, msg)
            if report & C.MQRO_COD and not syncpoint:
                self.qm.reports.send(conn, msg.md, msg.body, "cod", queue=qs.name)
            if opts & C.MQGMO_LOGICAL_ORDER:
                m = msg.md
                advance_group(h, m.MsgFlags, m.GroupId, m.MsgSeqNumber, m.Offset, len(msg.body))
            elif h.get_group is not None and not comp:
                comp, reason = C.MQCC_WARNING, _incomplete(h)
        self._fill_gmo(gmo, res, out_md, min(length, max_length))
        return GetResult(out_md, body[:max_length], length, gmo, comp, reason, msg.seq, msg.persistent,
                         packed, props)

    def _get_complete(self, conn: Conn, h: Handle, qs: QueueState, res: Resolved, first: Message, gmo: GMO,
                      max_length: int, how: str | None, now: float) -> GetResult:
        """MQGMO_COMPLETE_MSG of a segmented message: its segments reassembled, taken together."""
        opts = gmo.Options
        parts, out_md, data, warn = logical_message(qs, first)
        if first.expiry_at is not None:
            out_md.Expiry = max(1, math.ceil((first.expiry_at - now) * 10))
        body, props, comp, reason = _with_properties(how or self.property_mode(h, gmo), out_md, data)
        length = len(body)
        if length > max_length and not opts & C.MQGMO_ACCEPT_TRUNCATED_MSG:
            self._fill_gmo(gmo, res, out_md, max_length)
            return GetResult(out_md, body[:max_length], length, gmo, C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_FAILED)
        if length > max_length:
            comp, reason = C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED
        elif warn and not reason:
            comp, reason = C.MQCC_WARNING, warn
        if opts & (BROWSE_GMO | C.MQGMO_BROWSE_MSG_UNDER_CURSOR):
            h.browse_at, h.browse_seq = first.order, first.seq
        else:
            syncpoint = opts & C.MQGMO_SYNCPOINT or (opts & C.MQGMO_SYNCPOINT_IF_PERSISTENT and first.persistent)
            if syncpoint and len(conn.uow) + len(parts) > self.qm.qmgr["MAXUMSGS"]:
                raise MQIError(C.MQRC_SYNCPOINT_LIMIT_REACHED)
            for m in parts:
                qs.remove(m)
                if h.browse_seq == m.seq:
                    h.browse_seq = None
            if syncpoint:
                self.qm.departures.held_together(conn, qs, parts, now)
            else:
                self.qm.departures.gone_together(conn, parts)
            qs.deq += len(parts)
            qs.last_get = now
            if qs.monitored:
                note_got(qs, parts, now)
            if first.md.peek("Report") & C.MQRO_COD and not syncpoint:
                self.qm.reports.send(conn, out_md, data, "cod", queue=qs.name)   # one report for the whole message
            if opts & C.MQGMO_LOGICAL_ORDER:
                advance_group(h, out_md.MsgFlags, out_md.GroupId, out_md.MsgSeqNumber, 0, length)
            elif h.get_group is not None and not comp:
                comp, reason = C.MQCC_WARNING, _incomplete(h)
        self._fill_gmo(gmo, res, out_md, min(length, max_length))
        return GetResult(out_md, body[:max_length], length, gmo, comp, reason, first.seq, first.persistent,
                         props=props)

    def delivered(self, how: str, m: Message, md_bytes: bytes) -> tuple[bytes, bytes]:
        """A message of a batch (read-ahead, bulk browse) as the application receives it."""
        if how == RFH2:
            return md_bytes, m.body
        _report, encoding, ccsid, fmt = report_and_format(md_bytes)
        return self.properties_out(how, md_bytes, fmt, encoding, ccsid, m.body, m.shared)

    @staticmethod
    def properties_out(how: str, md_bytes: bytes, fmt: bytes, encoding: int, ccsid: int,
                       body: bytes, shared: Shared | None = None) -> tuple[bytes, bytes]:
        """A packed MQMD and its data as an MQGET returning properties ``how`` gives them, the
        descriptor's Format, Encoding and CCSID already read (``shared``: see Message.shared)."""
        if how == RFH2 or fmt != RFH2_FORMAT:
            return md_bytes, body
        got = deliver(how, fmt, encoding, ccsid, body, shared)
        return md_with_format(md_bytes, got.format, got.encoding, got.ccsid), got.data

    def property_mode(self, h: Handle, gmo: GMO) -> str:
        """How this MQGET returns properties (mqlite.props.deliver): by the MQGMO option, the
        message handle, and PROPCTL of the queue the application opened."""
        has_handle = gmo.MsgHandle not in (0, -1)        # any MQGMO version: pymqi's default is 1
        obj = self.qm.queue(h.res.path[0]) if h.res is not None and h.res.path else None   # as ALTERed now
        propctl = obj.attrs.get("PROPCTL", 0) if obj is not None else 0
        try:
            return delivery_mode(gmo.Options, has_handle, propctl)
        except DeliveryError as e:
            raise MQIError(e.reason) from None

    def _shared_get(self, conn: Conn, h: Handle, qs: QueueState, res: Resolved, md: MD, gmo: GMO,
                    match_opts: int, max_length: int, how: str | None) -> GetResult:
        """MQGET from a shared queue: the store finds, and claims or removes, the message in one
        transaction, so two members never get the same one."""
        opts = gmo.Options
        browse = bool(opts & (BROWSE_GMO | C.MQGMO_BROWSE_MSG_UNDER_CURSOR))
        sel = Select()
        if opts & (C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_BROWSE_MSG_UNDER_CURSOR):
            if h.browse_seq is None:
                raise MQIError(C.MQRC_NO_MSG_UNDER_CURSOR)
            sel.id = h.browse_seq
        else:
            sel.msgid, sel.correlid, sel.groupid, sel.seqno = wanted_ids(md, match_opts)
            if opts & C.MQGMO_LOGICAL_ORDER:
                if h.get_group is not None:
                    sel.groupid, sel.seqno = h.get_group[:2]
                else:
                    sel.first_of_group = True
            if opts & C.MQGMO_BROWSE_NEXT and h.browse_at is not None:
                sel.after = h.browse_at
        in_uow = not browse and bool(opts & (C.MQGMO_SYNCPOINT | C.MQGMO_SYNCPOINT_IF_PERSISTENT))
        if in_uow and len(conn.uow) >= self.qm.qmgr["MAXUMSGS"]:
            raise MQIError(C.MQRC_SYNCPOINT_LIMIT_REACHED)
        mode = "browse" if browse else ("claim" if in_uow else "delete")
        owner = f"{self.qm.name}/{conn.hconn}"
        limit = None if opts & C.MQGMO_ACCEPT_TRUNCATED_MSG else max_length
        now = self.qm.clock.now()
        assert isinstance(qs, SharedQueueState)
        port = qs.port
        row, _taken = self.qm.shared_call(port.take, qs.name, qs.fifo, sel, now, mode, owner, limit)
        if row is None:
            if sel.id is not None:
                raise MQIError(C.MQRC_NO_MSG_UNDER_CURSOR)
            raise MQIError(C.MQRC_NO_MSG_AVAILABLE)
        out_md = MD.from_bytes(row.md)
        out_md.BackoutCount = row.backout
        if row.expiry_at is not None:
            out_md.Expiry = max(1, math.ceil((row.expiry_at - now) * 10))
        if len(row.body) > max_length and not opts & C.MQGMO_ACCEPT_TRUNCATED_MSG:
            # Too long and not accepted truncated: not taken (the store left it), the cursor stays (2080).
            # The store judged the message as stored, so this does too (with properties the data an
            # application receives is shorter: the length it is told is then enough, never too little).
            self._fill_gmo(gmo, res, out_md, max_length)
            return GetResult(out_md, row.body[:max_length], len(row.body), gmo, C.MQCC_WARNING,
                             C.MQRC_TRUNCATED_MSG_FAILED)
        body, props, comp, reason = _with_properties(how or self.property_mode(h, gmo), out_md, row.body)
        if opts & C.MQGMO_CONVERT:
            body, comp, reason = _converted(md, out_md, body, max_length, comp, reason, self.qm.qmgr["CCSID"])
        length = len(body)
        if length > max_length:
            comp, reason = C.MQCC_WARNING, C.MQRC_TRUNCATED_MSG_ACCEPTED
        if browse:
            h.browse_at, h.browse_seq = (0 if qs.fifo else row.prio, row.id), row.id
        else:
            if h.browse_seq == row.id:
                h.browse_seq = None
            if in_uow and opts & C.MQGMO_SYNCPOINT_IF_PERSISTENT and not row.persistent:
                self.qm.shared_call(port.finish, [(row.id, qs.name)], [])
            elif in_uow:
                if not conn.uow:
                    conn.uow_since = self.qm.clock.now()
                conn.uow.append(("sget", qs, SharedGot(row)))
                conn.shared_uow = True
            qs.deq += 1
            qs.last_get = now
            if opts & C.MQGMO_LOGICAL_ORDER:
                advance_group(h, out_md.MsgFlags, out_md.GroupId, out_md.MsgSeqNumber, 0, 0)
        self._fill_gmo(gmo, res, out_md, min(length, max_length))
        return GetResult(out_md, body[:max_length], length, gmo, comp, reason, row.id, row.persistent,
                         props=props)

    def _select(self, h: Handle, qs: QueueState, md: MD, opts: int, match_opts: int, now: float) -> Message | None:
        expired = self.discard_expired
        if opts & (C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_BROWSE_MSG_UNDER_CURSOR):
            if h.browse_seq is None:
                raise MQIError(C.MQRC_NO_MSG_UNDER_CURSOR)
            seq = h.browse_seq
            m = qs.find(now, expired, lambda m: m.seq == seq)
            if m is None:
                raise MQIError(C.MQRC_NO_MSG_UNDER_CURSOR)
            if opts & C.MQGMO_COMPLETE_MSG and m.md.MsgFlags & SEGMENT_FLAGS:
                if m.md.Offset:
                    raise MQIError(C.MQRC_INVALID_MSG_UNDER_CURSOR)    # not a logical message's start
                if whole_message(qs, m) is None:
                    raise MQIError(C.MQRC_NO_MSG_AVAILABLE)
            return m
        wanted = wanted_ids(md, match_opts)
        match = matcher(md, match_opts, wanted)
        ids = wanted[:3] if match is not None else None
        if h.selector is not None and not opts & (C.MQGMO_LOGICAL_ORDER | C.MQGMO_ALL_MSGS_AVAILABLE
                                                  | C.MQGMO_BROWSE_NEXT | _WHOLE_GMO) and match is None:
            return self._select_by_selector(h, qs, now, bool(opts & BROWSE_GMO))
        if h.selector is not None:
            match = self.with_selector(h, match)
        if opts & _WHOLE_GMO and not opts & C.MQGMO_LOGICAL_ORDER:
            match = self._whole_matcher(qs, match, bool(opts & C.MQGMO_COMPLETE_MSG))
        if opts & C.MQGMO_LOGICAL_ORDER:
            match = self._group_matcher(h, qs, match, opts, now)
        if opts & C.MQGMO_BROWSE_NEXT and h.browse_at is not None:
            return qs.find(now, expired, match, start=h.browse_at)
        if match is None and not (opts & C.MQGMO_ALL_MSGS_AVAILABLE):
            first = qs.first_fast()
            if first is not None and first.expiry_at is None:
                return first
        if opts & C.MQGMO_ALL_MSGS_AVAILABLE and not opts & C.MQGMO_LOGICAL_ORDER:
            base = match

            def match(m: Message) -> bool:
                return (base is None or base(m)) and group_complete(qs, m)
        return qs.find(now, expired, match, ids=ids)

    def _whole_matcher(self, qs: QueueState, base: Callable[[Message], bool] | None,
                       start: bool) -> Callable[[Message], bool]:
        """MQGMO_ALL_SEGMENTS_AVAILABLE (and COMPLETE_MSG, which also wants a logical message's
        start): a segment only when its whole logical message is on the queue."""
        def match(m: Message) -> bool:
            if base is not None and not base(m):
                return False
            if not m.md.MsgFlags & SEGMENT_FLAGS:
                return True
            return not (start and m.md.Offset) and whole_message(qs, m) is not None
        return match

    @staticmethod
    def with_selector(h: Handle, base: Callable[[Message], bool] | None) -> Callable[[Message], bool]:
        sel = h.selector
        assert sel is not None

        def match(m: Message) -> bool:
            return (base is None or base(m)) and sel(md_lookup(m.md, message_props(m))) is True
        return match

    def _select_by_selector(self, h: Handle, qs: QueueState, now: float, browse: bool) -> Message | None:
        """The first message the handle's selector picks. Properties never change, so the messages
        a scan passed over stay unpicked: the next get resumes after them unless a message has
        arrived before that point since (``QueueState.nothing_before``)."""
        start = None
        if h.scanned is not None and not browse:
            order, since = h.scanned
            if qs.nothing_before(order, since):
                start = order
        inserts = qs.inserts
        m = qs.find(now, self.discard_expired, self.with_selector(h, None), start=start)
        if m is not None and not browse:
            h.scanned = ((m.order[0], m.order[1] - 1), inserts)   # before the one taken: all passed over
        return m

    def _group_matcher(self, h: Handle, qs: QueueState, base: Callable[[Message], bool] | None,
                       opts: int, now: float) -> Callable[[Message], bool]:
        need_segments = opts & _WHOLE_GMO
        if h.get_group is not None:
            gid, nxt, offset = h.get_group
            return lambda m: (m.md.GroupId == gid and m.md.MsgSeqNumber == nxt and m.md.Offset == offset
                              and (base is None or base(m))
                              and not (need_segments and whole_message(qs, m) is None))
        need_all = opts & C.MQGMO_ALL_MSGS_AVAILABLE

        def first_of_group(m: Message) -> bool:
            if base is not None and not base(m):
                return False
            flags = m.md.MsgFlags
            if not flags & (GROUP_FLAGS | SEGMENT_FLAGS):
                return True
            if m.md.Offset or (flags & GROUP_FLAGS and m.md.MsgSeqNumber != 1):
                return False
            if need_all:
                return group_complete(qs, m)
            return not need_segments or whole_message(qs, m) is not None
        return first_of_group

    def _fill_gmo(self, gmo: GMO, res: Resolved, md: MD, returned: int) -> None:
        g = gmo.__dict__
        g["ResolvedQName"] = pad(res.queue, 48)
        g["GroupStatus"], g["SegmentStatus"], g["Segmentation"] = statuses(md.peek("MsgFlags"))
        g["ReturnedLength"] = returned

    def check_get_allowed(self, res: Resolved) -> None:
        """GET(DISABLED) on any definition along the resolution path stops an MQGET (2016)."""
        for n in res.path:
            d = self.qm.queue(n)
            if d is not None and d["GET"] == C.MQQA_GET_INHIBITED:
                raise MQIError(C.MQRC_GET_INHIBITED)

    def discard_expired(self, msg: Message) -> None:
        self.qm.departures.gone(None, msg)
        if msg.md.peek("Report") & C.MQRO_EXPIRATION:
            md, data = msg.md, msg.body
            if md.peek("Format") == C.MQFMT_XMIT_Q_HEADER and len(data) >= XQH_LEN:
                # Expired on its way: the report is about the application's message, not its MQXQH.
                md, data = MD.from_bytes(original_md(msg.packed_md(), data)), data[XQH_LEN:]
            self.qm.reports.send(None, md, data, "expiry")

    def wait_queue(self, conn: Conn, hobj: int) -> str | None:
        """The queue a waiting MQGET on this handle waits for."""
        h = conn.handles.get(hobj)
        return h.qstate.name if h is not None and h.qstate is not None else None
