"""Message groups and segments in MQPUT and MQGET (docs/segments.md): logical order, the queue
manager's segmentation at MQPUT, whether a logical message or a group is all on the queue, and a
logical message reassembled for MQGMO_COMPLETE_MSG. What needs no state is a function here;
``Segments`` (the queue manager's ``qm.segments``) puts segments, through ``SegmentsHost``. The
rules themselves are pure, in ``mqlite.cmq.segments``."""
from __future__ import annotations

from typing import Any, Protocol

from mqlite.cluster.state import ClusterState
from mqlite.cmq.errors import MQIError
from mqlite.cmq.headers import XQH_LEN, XQH_ORIG_FORMAT, original_md
from mqlite.cmq.packedmd import PackedMD
from mqlite.cmq.segments import (
    GROUP_FLAGS,
    KNOWN_FLAGS,
    MAX_OFFSET,
    SEGMENT_FLAGS,
    UTF8,
    TooSmall,
    cut,
    piece_flags,
    reassembled_flags,
    whole,
)
from mqlite.cmq.structs import MD
from mqlite.engine.arrivals import Arrivals
from mqlite.engine.clock import IdGenerator
from mqlite.engine.core import C, Conn, Handle
from mqlite.engine.hooks import Hooks
from mqlite.engine.message import Message
from mqlite.engine.ports import Journal
from mqlite.engine.queue import QueueState
from mqlite.engine.report import Reports
from mqlite.engine.resolve import REMOTE, Resolved
from mqlite.objects.model import MQObject
from mqlite.props.rfh2 import RFH2_FORMAT, RFHError, parse_chain

# MQPMO_LOGICAL_ORDER's state on a handle: (GroupId, MsgSeqNumber, the next segment's Offset or
# None between logical messages, the group flags of the logical message under way).
PutState = tuple[bytes, int, "int | None", int]


def _after_chain(md: MD, body: bytes) -> tuple[int, bytes, int, int]:
    """(length of the MQRFH2 chain in front, and the Format, Encoding, CCSID of what follows it)."""
    d = md.decoded()
    if d["Format"] != RFH2_FORMAT:
        return 0, d["Format"], d["Encoding"], d["CodedCharSetId"]
    try:
        _h, off, fmt, enc, ccsid = parse_chain(RFH2_FORMAT, d["Encoding"], body)
    except RFHError:
        return 0, d["Format"], d["Encoding"], d["CodedCharSetId"]
    return off, fmt, enc, ccsid


def _piece(m: Message) -> tuple[int, int, bool, Message]:
    """A message as one piece of its logical message: (Offset, length, last?, the message). A
    report on a segment is itself a segment of the reports on that message, as long as the segment
    it reports on (its OriginalLength), whatever data it carries."""
    md = m.md
    flags = md.MsgFlags
    length = len(m.body)
    if md.MsgType == C.MQMT_REPORT and md.OriginalLength != C.MQOL_UNDEFINED:
        length = md.OriginalLength
    return md.Offset, length, not flags & C.MQMF_SEGMENT or bool(flags & C.MQMF_LAST_SEGMENT), m


class SegmentsHost(Protocol):
    """What putting segments needs of the queue manager."""
    qmgr: MQObject
    ids: IdGenerator
    store: Journal
    hooks: Hooks
    cluster: ClusterState
    arrivals: Arrivals

    def message_available(self, queue: str) -> None: ...

    def xmit_wrap(self, res: Resolved, md: MD, body: bytes) -> tuple[MD, bytes]: ...

    def enqueue(self, conn: Conn, qs: QueueState, msg: Message, syncpoint: bool, now: float) -> None: ...

    @property
    def reports(self) -> Reports: ...


class Segments:
    def __init__(self, qm: SegmentsHost) -> None:
        self.qm = qm

    def logical_put(self, h: Handle, md: MD, length: int) -> PutState | None:
        """MQPMO_LOGICAL_ORDER: GroupId, MsgSeqNumber and Offset as the queue manager sets them;
        returns the handle's state after this put (the caller keeps it once the put succeeds)."""
        flags = md.MsgFlags
        grouped = flags & GROUP_FLAGS
        segment = flags & SEGMENT_FLAGS
        state = h.put_group
        if state is not None and state[2] is not None:
            # A logical message is unfinished: only its next segment, in the same group state.
            gid, seq, offset, was = state[0], state[1], state[2], state[3]
            if not segment or grouped != was:
                raise MQIError(C.MQRC_INCOMPLETE_MSG)
        elif state is not None:
            gid, seq, offset = state[0], state[1] + 1, 0
            if not grouped:
                raise MQIError(C.MQRC_INCOMPLETE_GROUP)
        elif grouped or segment:
            gid, seq, offset = self.qm.ids.next(), 1, 0
        else:
            return None
        md.GroupId, md.MsgSeqNumber, md.Offset = gid, seq, offset
        if segment and not flags & C.MQMF_LAST_SEGMENT:
            return gid, seq, offset + length, grouped
        if grouped and not flags & C.MQMF_LAST_MSG_IN_GROUP:
            return gid, seq, None, grouped
        return None

    def cut(self, md: MD, body: bytes, limit: int, too_big: int, new_ids: bool) -> list[tuple[MD, bytes]]:
        """The segments the queue manager cuts a message into to fit ``limit``: an MQRFH2 chain in
        front stays whole in the first; the later ones describe the data after it; UTF-8 text is
        not cut inside a character. ``too_big``: the reason when it cannot be cut (2030/2031)."""
        head, fmt, enc, ccsid = _after_chain(md, body) if md.Offset == 0 else (0, md.Format, md.Encoding,
                                                                               md.CodedCharSetId)
        utf8 = fmt == C.MQFMT_STRING and (ccsid == UTF8 or (ccsid == 0 and self.qm.qmgr["CCSID"] == UTF8))
        try:
            pieces = cut(body, limit, head, utf8)
        except TooSmall:
            raise MQIError(too_big) from None
        out = []
        offset = md.Offset
        for i, piece in enumerate(pieces):
            seg = md.copy()
            d = seg.__dict__
            d["Offset"] = offset
            d["MsgFlags"] = piece_flags(md.MsgFlags, i == len(pieces) - 1)
            if i:
                d["Format"], d["Encoding"], d["CodedCharSetId"] = fmt, enc, ccsid
                if new_ids:
                    d["MsgId"] = self.qm.ids.next()
            out.append((seg, piece))
            offset += len(piece)
        return out

    def for_channel(self, md_bytes: bytes, body: bytes, limit: int) -> list[tuple[bytes, bytes]] | None:
        """A transmission-queue message (packed MQMD; MQXQH and data) whose data is longer than a
        channel's MAXMSGL, as the segments the sending MCA sends instead, each with its MQXQH;
        None when the message does not allow segmentation or cannot be cut that small."""
        orig = MD.from_bytes(original_md(md_bytes, body))
        if not orig.MsgFlags & C.MQMF_SEGMENTATION_ALLOWED:
            return None
        try:
            pieces = self.cut(orig, body[XQH_LEN:], limit, C.MQRC_MSG_TOO_BIG_FOR_CHANNEL, False)
        except MQIError:
            return None
        # Each segment's descriptor is the original's with its own Format and CorrelId in the
        # MQXQH, and the transmission queue's (MQXMIT, the cluster channel's CorrelId) outside.
        outer = PackedMD.of(md_bytes)
        xmit_format, xmit_correl = outer.peek("Format"), outer.peek("CorrelId")
        xqh = body[:XQH_LEN]
        out = []
        for seg, piece in pieces:
            d = seg.__dict__
            header = xqh[:XQH_ORIG_FORMAT.start] + d["Format"] + xqh[XQH_ORIG_FORMAT.stop:]
            d["Format"], d["CorrelId"] = xmit_format, xmit_correl
            out.append((seg.pack(), header + piece))
        return out

    def put(self, conn: Conn, h: Handle, res: Resolved, qs: QueueState, target: Any, md: MD, body: bytes,
                      header_len: int, expiry_at: float | None, persistent: bool, priority: int, syncpoint: bool,
                      reroutable: bool, new_ids: bool, now: float) -> None:
        """MQPUT of a message the queue manager segments: the segments, each wrapped in an MQXQH
        for a remote queue, put in the unit of work or made visible together."""
        qmgr_max, queue_max = self.qm.qmgr["MAXMSGL"], target["MAXMSGL"] - header_len
        too_big = C.MQRC_MSG_TOO_BIG_FOR_Q_MGR if qmgr_max < queue_max else C.MQRC_MSG_TOO_BIG_FOR_Q
        pieces = self.cut(md, body, min(qmgr_max, queue_max), too_big, new_ids)
        if syncpoint and len(conn.uow) + len(pieces) > self.qm.qmgr["MAXUMSGS"]:
            raise MQIError(C.MQRC_SYNCPOINT_LIMIT_REACHED)
        msgs = []
        for seg, piece in pieces:
            if res.kind == REMOTE:
                seg, piece = self.qm.xmit_wrap(res, seg, piece)
            msg = self.qm.arrivals.message(qs, seg, piece, expiry_at, persistent, priority)
            if reroutable and res.kind == REMOTE:
                self.qm.cluster.not_fixed.add(msg.seq)
            msgs.append(msg)
        if syncpoint:
            for msg in msgs:
                self.qm.enqueue(conn, qs, msg, True, now)
            return
        self.qm.arrivals.arrive_together(conn, qs, msgs, now)      # visible together, one journal write


def check_segment(md: MD, body: bytes, shared: bool) -> None:
    """MQPUT's checks of MsgFlags and Offset (2249, 2251, 2253; 2365 for a shared queue)."""
    flags = md.MsgFlags
    if flags & C.MQMF_REJECT_UNSUP_MASK & ~KNOWN_FLAGS:
        raise MQIError(C.MQRC_MSG_FLAGS_ERROR)
    offset = md.Offset
    if not 0 <= offset <= MAX_OFFSET:
        raise MQIError(C.MQRC_OFFSET_ERROR)
    if not flags & SEGMENT_FLAGS:
        return
    if shared:
        raise MQIError(C.MQRC_SEGMENTS_NOT_SUPPORTED)
    if offset + len(body) > MAX_OFFSET:
        raise MQIError(C.MQRC_OFFSET_ERROR)
    if (not flags & C.MQMF_LAST_SEGMENT and md.MsgType != C.MQMT_REPORT
            and len(body) - (_after_chain(md, body)[0] if not offset else 0) == 0):
        raise MQIError(C.MQRC_SEGMENT_LENGTH_ZERO)


def whole_message(qs: QueueState, m: Message) -> list[Message] | None:
    """The segments of ``m``'s logical message in Offset order, if all are on the queue."""
    md = m.md
    if not md.MsgFlags & SEGMENT_FLAGS:
        return [m]
    seq = md.MsgSeqNumber
    return whole([_piece(x) for x in qs.of_group(md.GroupId) if x.md.MsgSeqNumber == seq])

def group_complete(qs: QueueState, m: Message) -> bool:
    """MQGMO_ALL_MSGS_AVAILABLE: every logical message of ``m``'s group, each with all its
    segments, is on the queue (a message in no group: its own segments)."""
    if not m.md.MsgFlags & GROUP_FLAGS:
        return whole_message(qs, m) is not None
    by_seq: dict[int, list[Any]] = {}
    last = None
    for x in qs.of_group(m.md.GroupId):
        n = x.md.MsgSeqNumber
        by_seq.setdefault(n, []).append(_piece(x))
        if x.md.MsgFlags & C.MQMF_LAST_MSG_IN_GROUP:
            last = n
    return last is not None and all(n in by_seq and whole(by_seq[n]) is not None for n in range(1, last + 1))


def logical_message(qs: QueueState, first: Message) -> tuple[list[Message], MD, bytes, int]:
    """MQGMO_COMPLETE_MSG: the segments taken, the descriptor and data returned, and a warning
    (2243/2244: a segment in another CCSID or encoding ends the reassembly before it)."""
    parts = whole_message(qs, first) or [first]
    _head, _fmt, enc, ccsid = _after_chain(first.md, first.body)
    reason = C.MQRC_NONE
    for i, p in enumerate(parts[1:], 1):
        if p.md.CodedCharSetId != ccsid or p.md.Encoding != enc:
            reason = C.MQRC_INCONSISTENT_CCSIDS if p.md.CodedCharSetId != ccsid else C.MQRC_INCONSISTENT_ENCODINGS
            parts = parts[:i]
            break
    md = first.md.copy()
    flags = md.MsgFlags
    md.MsgFlags = reassembled_flags(flags) if not reason else (flags & ~SEGMENT_FLAGS) | C.MQMF_SEGMENT
    return parts, md, b"".join(p.body for p in parts), reason


def advance_group(h: Handle, flags: int, gid: bytes, seq: int, offset: int, length: int) -> None:
    """MQGMO_LOGICAL_ORDER: what the next get of this handle must take."""
    if flags & C.MQMF_SEGMENT and not flags & C.MQMF_LAST_SEGMENT:
        h.get_group = (gid, seq, offset + length)
    elif flags & C.MQMF_MSG_IN_GROUP and not flags & C.MQMF_LAST_MSG_IN_GROUP:
        h.get_group = (gid, seq + 1, 0)
    else:
        h.get_group = None
