"""A message on a local queue, and the lanes queues order messages in."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlite.cmq.packedmd import PackedMD
from mqlite.cmq.structs import MD

if TYPE_CHECKING:
    from mqlite.props.deliver import Shared

LANES = 10                    # one lane per priority (MSGDLVSQ(PRIORITY)); FIFO queues use lane 0
MD_SIZE = len(MD().pack())    # a descriptor's bytes, counted with the data against the buffers


class Message:
    __slots__ = ("seq", "_md", "body", "expiry_at", "persistent", "lane", "raw_md", "props", "shared")

    def __init__(self, seq: int, md: MD | None, body: bytes, expiry_at: float | None, persistent: bool,
                 lane: int) -> None:
        self.seq = seq
        self._md = md
        self.body = body
        self.expiry_at = expiry_at
        self.persistent = persistent
        self.lane = lane
        self.raw_md: bytes | None = None            # the descriptor packed, while that is current (packed_md; touch forgets it)
        self.props: dict[str, Any] | None = None       # its properties, read once when a selector asks
        # A publication's copies share their data, and this: each way an MQGET has returned it
        # (props.deliver), worked out for the first copy got (None: a message of its own).
        self.shared: Shared | None = None

    @classmethod
    def packed(cls, seq: int, raw: bytes, body: bytes, expiry_at: float | None, persistent: bool,
               lane: int) -> Message:
        """A message whose descriptor is kept as the packed bytes ``raw`` it came in, made an MQMD
        object only if a field is used: a publication's copy or an asynchronous put taken by a
        read-ahead get never is (two objects fewer a message to make, keep and free)."""
        msg = cls(seq, None, body, expiry_at, persistent, lane)
        msg.raw_md = raw
        return msg

    @property
    def md(self) -> MD:
        md = self._md
        if md is None:
            raw = self.raw_md
            assert raw is not None                 # packed() gave it
            md = self._md = PackedMD.of(raw)
        return md

    @md.setter
    def md(self, value: MD) -> None:
        self._md = value

    def packed_md(self) -> bytes:
        """The descriptor in MQ's layout, packed once (a backout changes it: see ``touch``)."""
        if self.raw_md is None:
            self.raw_md = self.md.pack()
        return self.raw_md

    def touch(self) -> None:
        """A field of ``md`` was changed (a backout): packed again when next needed."""
        self.raw_md = None

    @property
    def size(self) -> int:
        """What the message counts against its queue's buffer: descriptor and data."""
        return MD_SIZE + len(self.body)

    @property
    def order(self) -> tuple[int, int]:
        """Position in queue order: smaller comes first."""
        return (-self.lane, self.seq)

    def expired(self, now: float) -> bool:
        return self.expiry_at is not None and now >= self.expiry_at


def seq_of(m: Message) -> int:
    """A message's position (arrival order), the key lanes are sorted by."""
    return m.seq
