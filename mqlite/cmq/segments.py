"""Message segmentation's rules as MQ defines them (docs/segments.md), as pure functions: how the
queue manager cuts data into segments, the flags each segment gets, whether a logical message's
segments are all there, and what MQGET says it returned."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from mqlite.cmq import CMQC as C

MIN_SEGMENT = 16                     # the smallest segment the queue manager makes
MAX_OFFSET = 999_999_999             # Offset's range; a segment may not carry the data past it
SEGMENT_FLAGS = C.MQMF_SEGMENT | C.MQMF_LAST_SEGMENT
GROUP_FLAGS = C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP
KNOWN_FLAGS = SEGMENT_FLAGS | GROUP_FLAGS | C.MQMF_SEGMENTATION_ALLOWED
UTF8 = 1208

T = TypeVar("T")


class TooSmall(Exception):
    """The data cannot be cut into segments that fit (the limit is under 16 bytes, or the headers
    that must stay in the first segment do not fit in one)."""


def statuses(flags: int) -> tuple[int, int, int]:
    """MQGMO's GroupStatus, SegmentStatus and Segmentation for a message with these MsgFlags."""
    group = (C.MQGS_LAST_MSG_IN_GROUP if flags & C.MQMF_LAST_MSG_IN_GROUP
             else C.MQGS_MSG_IN_GROUP if flags & C.MQMF_MSG_IN_GROUP else C.MQGS_NOT_IN_GROUP)
    segment = (C.MQSS_LAST_SEGMENT if flags & C.MQMF_LAST_SEGMENT
               else C.MQSS_SEGMENT if flags & C.MQMF_SEGMENT else C.MQSS_NOT_A_SEGMENT)
    return group, segment, C.MQSEG_ALLOWED if flags & C.MQMF_SEGMENTATION_ALLOWED else C.MQSEG_INHIBITED


def cut(data: bytes, limit: int, head: int = 0, utf8: bool = False) -> list[bytes]:
    """``data`` in as few pieces of at most ``limit`` bytes as it takes. The first ``head`` bytes
    (an MQRFH2 chain) stay together in the first piece; ``utf8`` text is not cut inside a
    character. Raises TooSmall when no such cut exists."""
    if limit < MIN_SEGMENT or head > limit:
        raise TooSmall(f"segments of {limit} bytes cannot hold {max(head, MIN_SEGMENT)}")
    pieces = []
    start, n = 0, len(data)
    while n - start > limit:
        end = start + limit
        if utf8:
            while end > start + 1 and data[end] & 0xC0 == 0x80:     # a continuation byte: back off
                end -= 1
        pieces.append(data[start:end])
        start = end
    pieces.append(data[start:])
    return pieces


def piece_flags(flags: int, last: bool) -> int:
    """MsgFlags of a piece the queue manager cut: MQMF_LAST_SEGMENT on the last piece only when
    what was cut was a whole message or a last segment; MQMF_SEGMENT on every other."""
    ends = not flags & C.MQMF_SEGMENT or bool(flags & C.MQMF_LAST_SEGMENT)
    return (flags & ~SEGMENT_FLAGS) | (C.MQMF_LAST_SEGMENT if last and ends else C.MQMF_SEGMENT)


def whole(segments: Sequence[tuple[int, int, bool, T]]) -> list[T] | None:
    """The segments of one logical message, given as (Offset, length, last?, item), in Offset order
    when they make it whole (contiguous from 0, ending in the last segment); else None."""
    want = 0
    out: list[T] = []
    for offset, length, last, item in sorted(segments, key=lambda s: s[0]):
        if offset != want:
            return None
        out.append(item)
        if last:
            return out
        want = offset + length
    return None


def reassembled_flags(flags: int) -> int:
    """MsgFlags of a logical message returned whole: it is its own only (so last) segment."""
    return (flags & ~C.MQMF_SEGMENT) | C.MQMF_LAST_SEGMENT if flags & SEGMENT_FLAGS else flags
