"""MQPUT as a client's request carries it, the MQMD and MQPMO packed: a plain put is made on the
packed descriptor, with no MQMD or MQPMO object made for it; any other goes through ``put``.
The queue manager's ``qm.plain_puts`` (mqlite.engine.qmgr binds ``put_request`` as its own)."""
from __future__ import annotations

from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import MD, PMO, chars, pad
from mqlite.engine.core import BLANK32, BLANK48, PMO_OPTIONS, PMO_OPTIONS_AT, C, Conn, Handle, put_date_time
from mqlite.engine.mqicore import CoreState
from mqlite.engine.resolve import LOCAL
from mqlite.props.rfh2 import RFH2_FORMAT


class PlainPuts:
    """MQPUT as a client's request carries it (``qm.plain_puts``)."""

    def __init__(self, qm: CoreState) -> None:
        self.qm = qm

    def put_request(self, conn: Conn, hobj: int, md: bytes, pmo: bytes, body: bytes,
                    answered: bool = True) -> tuple[int, bytes]:
        """MQPUT as a client's request carries it, the MQMD and MQPMO packed: the warning reason,
        and the MQMD and MQPMO to answer with, packed (``answered`` False: an asynchronous put, which
        nobody answers: b""). A plain put (``_plain_put``: a local queue, default context, no options
        or descriptor fields that ask for more) is made on the packed descriptor, with no MQMD or
        MQPMO object made; any other goes through ``put``."""
        h = self.qm.handle(conn, hobj)
        res, qs = h.res, h.qstate
        if (h.topic is None and h.stats is None and h.put_group is None and h.options & C.MQOO_OUTPUT
                and res is not None and res.kind == LOCAL and qs is not None and not qs.shared
                and (plain := _plain(md, pmo, self.qm.name48)) is not None):
            try:
                answer = self._plain_put(conn, h, md, pmo, body, plain, answered)
            except MQIError as e:
                self.qm.observers.put_failed(conn, h, e.reason, False)
                raise
            self.qm.observers.put_done(h, plain[3], len(body), False)
            return C.MQRC_NONE, answer
        md_, pmo_ = MD.from_bytes(md), PMO.from_bytes(pmo)
        # (Unanswered, the engine may keep md_ as the stored descriptor: nobody reads it back.)
        warning = self.qm.put(conn, hobj, md_, pmo_, body, owned=not answered)
        return warning, (md_.pack() + pmo_.pack()) if answered else b""

    def _plain_put(self, conn: Conn, h: Handle, md: bytes, pmo: bytes, body: bytes,
                   plain: tuple[int, int, int, int, bytes, bytes], answered: bool) -> bytes:
        """``_put``'s rules for a plain put (``_plain``) to a local queue, on the packed MQMD: the
        stored descriptor is the request's with the queue manager's fields written in place, the
        answer's is the request's with the output fields (MsgId, the context, ReplyToQMgr)."""
        opts, expiry, priority, persistence, msg_id, fmt = plain
        if self.qm.quiescing and opts & C.MQPMO_FAIL_IF_QUIESCING:
            raise MQIError(C.MQRC_Q_MGR_QUIESCING)
        res, qs = h.res, h.qstate
        assert res is not None and qs is not None
        opened = self.qm.first_definition(h, res)
        syncpoint = bool(opts & C.MQPMO_SYNCPOINT)
        target = self.qm.check_put(conn, res, qs, len(body), 0, syncpoint)
        persistence, priority, _ = self.qm.stored_qos(opened, target, persistence, priority, len(body), False)
        now = self.qm.clock.now()
        answer = bytearray(md)
        if opts & C.MQPMO_NEW_MSG_ID or not msg_id.strip(b"\0"):
            _MSG_ID.pack_into(answer, _MSG_ID_AT, self.qm.ids.next())
        date, time_ = put_date_time(now)
        _CONTEXT.pack_into(answer, _CONTEXT_AT, self.qm.name48, conn.user12, b"", BLANK32, conn.appl_type,
                           conn.appl28, date, time_, b"    ")
        stored = bytearray(answer)
        _VERSION.pack_into(stored, _VERSION_AT, C.MQMD_VERSION_2)
        _STORED.pack_into(stored, _STORED_AT, fmt, priority, persistence)
        _BACKOUT_REPLY_TO.pack_into(stored, _BACKOUT_AT, 0, BLANK48)
        if _CCSID.unpack_from(stored, _CCSID_AT)[0] == C.MQCCSI_Q_MGR:
            _CCSID.pack_into(stored, _CCSID_AT, self.qm.qmgr["CCSID"])       # (as _put writes it)
        self.qm.enqueue(conn, qs, self.qm.arrivals.packed(qs, bytes(stored), body,
                                                     None if expiry == C.MQEI_UNLIMITED else now + expiry / 10.0,
                                                     bool(persistence), priority), syncpoint, now)
        if not answered:
            return b""
        answer_pmo = bytearray(pmo)
        _RESOLVED.pack_into(answer_pmo, _RESOLVED_AT, pad(res.resolved_q, 48), pad(res.resolved_qm, 48))
        answer += answer_pmo
        return bytes(answer)


# A plain put (``_plain``, ``PlainPuts._plain_put``): the fields it reads and writes in place.
_RESOLVED_AT, _RESOLVED = PMO.field_struct("ResolvedQName", "ResolvedQMgrName", write=True)
_PLAIN_AT, _PLAIN = MD.field_struct("Report", "MsgType", "Expiry", "Format", "Priority", "Persistence", "MsgId",
                            "ReplyToQ", "ReplyToQMgr", "Offset", "MsgFlags")
_MSG_ID_AT, _MSG_ID = MD.field_struct("MsgId", write=True)
_CONTEXT_AT, _CONTEXT = MD.field_struct("ReplyToQMgr", "UserIdentifier", "AccountingToken", "ApplIdentityData",
                                "PutApplType", "PutApplName", "PutDate", "PutTime", "ApplOriginData", write=True)
_VERSION_AT, _VERSION = MD.field_struct("Version", write=True)
_CCSID_AT, _CCSID = MD.field_struct("CodedCharSetId", write=True)
_STORED_AT, _STORED = MD.field_struct("Format", "Priority", "Persistence", write=True)
_BACKOUT_AT, _BACKOUT_REPLY_TO = MD.field_struct("BackoutCount", "ReplyToQ", write=True)
_PLAIN_PMO = (C.MQPMO_SYNCPOINT | C.MQPMO_NO_SYNCPOINT | C.MQPMO_NEW_MSG_ID | C.MQPMO_FAIL_IF_QUIESCING
              | C.MQPMO_DEFAULT_CONTEXT | C.MQPMO_SYNC_RESPONSE)
_BOTH_SYNC = C.MQPMO_SYNCPOINT | C.MQPMO_NO_SYNCPOINT


def _plain(md: bytes, pmo: bytes, own: bytes) -> tuple[int, int, int, int, bytes, bytes] | None:
    """A put that asks for nothing but what every put does, from its packed MQMD and MQPMO: no
    put options but syncpoint, a new MsgId, fail-if-quiescing and default context; no report, no
    reply-to queue and no reply-to queue manager but this one, ``own`` (so none to resolve: the
    name an earlier MQPUT answered in a descriptor put again, as applications reuse theirs), and
    no request; a datagram's or reply's fields all valid
    (a field MQPUT refuses or warns about takes the full path, which answers it); no segment or
    group; no MQRFH2 to check. Its options, Expiry, Priority, Persistence, MsgId and Format (a
    NUL ends it, blanks fill it, as ``_blank_pad``), or None."""
    (opts,) = PMO_OPTIONS.unpack_from(pmo, PMO_OPTIONS_AT)
    if opts & ~_PLAIN_PMO or opts & _BOTH_SYNC == _BOTH_SYNC:
        return None
    (report, msg_type, expiry, fmt, priority, persistence, msg_id, reply_q, reply_qm, offset,
     flags) = _PLAIN.unpack_from(md, _PLAIN_AT)
    if (report or offset or flags or msg_type == C.MQMT_REQUEST or not -1 <= priority <= 9
            or not 0 <= persistence <= 2 or (expiry <= 0 and expiry != C.MQEI_UNLIMITED)
            or reply_q.strip(b" \0") or (reply_qm.strip(b" \0") and chars(reply_qm) != chars(own))):
        return None
    if b"\0" in fmt:
        fmt = fmt.split(b"\0", 1)[0].ljust(8, b" ")
    if fmt == RFH2_FORMAT:
        return None
    return opts, expiry, priority, persistence, msg_id, fmt
