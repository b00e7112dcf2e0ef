"""Read-ahead for one open queue (MQ's DEFREADA(YES) on a client connection): nonpersistent
messages the queue manager sends ahead in batches, held here and handed to plain MQGETs; the
next batch is asked for while the application works through this one, and messages held but not
consumed are given back (at MQCLOSE, a change of syncpoint mode, a get read-ahead cannot serve, or
the end of a unit of work) so they stay on the queue in order."""
from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from mqlite.cmq import CMQC
from mqlite.cmq.segments import statuses
from mqlite.cmq.structs import GMO, MD
from mqlite.net import protocol as P
from mqlite.net import verbs as V
from mqlite.net.client import TransportError
from mqlite.net.protocol import II
from mqlite.pymqi.errors import MQMIError, check_reply

if TYPE_CHECKING:
    from mqlite.pymqi.qmgr import QueueManager

PLAIN = statuses(0)           # what MQGET says of a message in no group and not a segment
_CONVERT_AT, _CONVERT = MD.field_struct("CodedCharSetId", "Format")


class Reconnected(Exception):
    """The connection broke and was made again (reconnect.py) while a get waited for a batch:
    the handle is a new one and nothing is held; the get starts again."""


class ServerGet(Exception):
    """The next message held needs what only the queue manager's MQGET does (MQGMO_CONVERT of
    data in another CCSID): the caller gives the held messages back and gets it from there."""


def converts(md_bytes: bytes, target: int, qmgr_ccsid: int) -> bool:
    """Whether MQGMO_CONVERT to CCSID ``target`` (0: the queue manager's) would change this held
    message: MQSTR data in another CCSID."""
    ccsid, fmt = _CONVERT.unpack_from(md_bytes, _CONVERT_AT)
    return fmt == CMQC.MQFMT_STRING and (ccsid or qmgr_ccsid) != (target or qmgr_ccsid)
BATCH_MSGS = 512
BATCH_BYTES = 1 << 20
_NO_WAIT_GMO = GMO()


class ReadAhead:
    """The messages sent ahead for one handle, and the batch asked for next."""

    __slots__ = ("qmgr", "buffer", "consumed", "inflight", "drained", "under_sync", "per_unit", "in_unit")

    def __init__(self, qmgr: QueueManager) -> None:
        self.qmgr = qmgr
        self.buffer: deque[tuple[bytes, bytes, bool]] = deque()   # (MD bytes, body, read ahead)
        self.consumed = 0             # read-ahead messages consumed and not yet acknowledged
        self.inflight = False         # a batch request sent ahead, reply not read yet
        self.drained = False          # the last batch sent ahead found the queue empty
        self.under_sync = False       # the messages held were taken under syncpoint
        self.per_unit = 32            # messages the application consumed in its last unit of work
        self.in_unit = 0              # ... and in this one so far

    def _request(self, hobj: int, gmo_: GMO, max_msgs: int, speculative: bool = False) -> bytes:
        flags = (P.BATCH_SPECULATIVE if speculative else 0) | (P.BATCH_SYNCPOINT if self.under_sync else 0)
        payload = V.GetBatch.request(hobj, self.consumed, max_msgs, BATCH_BYTES, flags, gmo_)
        self.consumed = 0
        return payload

    def _fill(self, reply: bytes) -> None:
        """Add a read-ahead batch to the buffer (also the consumer of batches requested ahead)."""
        self.inflight = False
        comp, reason = II.unpack_from(reply)
        if comp == CMQC.MQCC_FAILED:
            self.drained = True
            return
        batch = V.GetBatch.parse_reply(reply)
        self.buffer.extend(batch)
        if not batch:
            self.drained = True

    def get(self, hobj: int, length: int, md_: MD, gmo_: GMO, resolved: bytes) -> bytes:
        """MQGET served from the messages held (asking for a batch, with the get's wait, when
        none is)."""
        buf = self.buffer
        qmgr = self.qmgr
        if not buf and self.inflight:
            assert qmgr._transport is not None
            try:
                qmgr._transport.collect()
            except TransportError as e:
                qmgr._lost(e)
                raise Reconnected from None
        if not buf:
            self.drained = False
            reply = qmgr._call(P.GET_BATCH, self._request(hobj, gmo_, self._batch_size()))
            check_reply(reply)
            self._fill(reply)
            self.drained = False
        md_bytes, body, ahead = buf[0]
        if gmo_.Options & CMQC.MQGMO_CONVERT and converts(md_bytes, md_.CodedCharSetId, qmgr.ccsid):
            raise ServerGet
        d = gmo_.__dict__
        md_.hold(md_bytes)
        d["ResolvedQName"] = resolved
        flags = md_.peek("MsgFlags")
        d["GroupStatus"], d["SegmentStatus"], d["Segmentation"] = statuses(flags) if flags else PLAIN
        if len(body) > length:
            d["ReturnedLength"] = length
            if not gmo_.Options & CMQC.MQGMO_ACCEPT_TRUNCATED_MSG:
                raise MQMIError(CMQC.MQCC_WARNING, CMQC.MQRC_TRUNCATED_MSG_FAILED, message=body[:length],
                                original_length=len(body))
            self.take(hobj, ahead)
            raise MQMIError(CMQC.MQCC_WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, message=body[:length],
                            original_length=len(body))
        d["ReturnedLength"] = len(body)
        self.take(hobj, ahead)
        return body

    def _batch_size(self) -> int:
        """How many to ask for: a full batch, or under syncpoint what the unit of work still wants
        by the last unit's size (messages taken ahead and not consumed go back with the MQCMIT).
        A unit already past that size asks for as many again as it has taken: a handle's first
        unit of 200, say, reaches it in a few batches, not 168 one-message round trips after the
        first guess of 32."""
        if not self.under_sync:
            return BATCH_MSGS
        left = self.per_unit - self.in_unit
        return min(BATCH_MSGS, left if left > 0 else max(1, self.in_unit))

    def take(self, hobj: int, ahead: bool) -> None:
        """The first message held is the application's."""
        buf = self.buffer
        buf.popleft()
        self.consumed += ahead
        self.in_unit += 1
        # What _ask_ahead needs, at its least (a batch is at most BATCH_MSGS): most gets find a
        # batch asked for already, or the queue found empty, and stop here.
        if (len(buf) < BATCH_MSGS and not self.inflight and not self.drained) or self.under_sync:
            self._ask_ahead(hobj)

    def _ask_ahead(self, hobj: int) -> None:
        if self.under_sync and self.in_unit == self.per_unit:
            # The unit has taken what the last one did: it most likely ends here, and MQCMIT
            # would only give a batch asked for now back. A get past it asks for its batch itself
            # (as many again), and the gets after that ask ahead again.
            return
        buf = self.buffer
        want = self._batch_size()
        # Outside syncpoint, as soon as the batch held is less than a full one: the queue manager
        # makes the next while the application works through nearly all of this one (asked at half,
        # the application waited for most of every batch: the two sides ran in turn, not together).
        # Under syncpoint at half of what the unit still wants, which MQCMIT may give back.
        below = want // 2 if self.under_sync else want
        if (len(buf) < below or (self.under_sync and not buf and want > 1)) and not self.inflight and not self.drained:
            self.inflight = True
            assert self.qmgr._transport is not None
            try:
                self.qmgr._transport.post(P.GET_BATCH, self._request(hobj, _NO_WAIT_GMO, want, True), self._fill)
            except TransportError:
                self.inflight = False       # (closed: the next call finds the connection broken)

    def collect(self) -> None:
        """Wait for the batch asked for ahead, if one is (a connection that broke meanwhile is
        made again, when it may be, with nothing held)."""
        if self.inflight and self.qmgr._transport is not None:
            try:
                self.qmgr._transport.collect()
            except TransportError as e:
                self.qmgr._lost(e)

    def settle(self, hobj: int) -> None:
        """Give back read-ahead messages not consumed, so they stay on the queue in order."""
        self.collect()
        if not self.buffer and not self.consumed:
            return
        self.buffer.clear()
        self.drained = False
        check_reply(self.qmgr._call(P.GET_BATCH, self._request(hobj, _NO_WAIT_GMO, 0)))

    def release(self) -> int:
        """At MQCLOSE: the messages held dropped; how many were consumed and not acknowledged."""
        self.collect()
        consumed = self.consumed
        self.buffer.clear()
        self.consumed = 0
        return consumed

    def end_of_unit(self, hobj: int | None) -> tuple[int, int] | None:
        """At MQCMIT/MQBACK: (handle, consumed) for the read-ahead messages held under syncpoint,
        which the queue manager gives back before ending the unit of work."""
        if self.in_unit:
            self.per_unit = self.in_unit
            self.in_unit = 0
        if hobj is None or not self.under_sync or (not self.buffer and not self.consumed and not self.inflight):
            return None
        consumed = self.consumed
        self.consumed = 0
        self.buffer.clear()
        self.drained = False
        return hobj, consumed

    def after_end_of_unit(self) -> None:
        if self.under_sync:
            self.buffer.clear()       # a batch requested ahead was given back with the rest
            self.inflight = False
