"""The engine's ports: what it needs of its stores, declared here, on the engine's side, and
implemented by ``mqlite.store`` (``store.sqlite.Store`` is a ``Journal``; ``store.shared``'s
SQLite and PostgreSQL stores are ``SharedPort``s), with the records they exchange.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol


# --- the journal's records --------------------------------------------------------------------
# One record type per operation; every writer makes them and the store dispatches on their type.
# NamedTuples: a put or a delete is on the hot path, and a tuple is the cheapest record to make.
class PutMsg(NamedTuple):
    """A persistent message became committed on ``queue``."""
    seq: int
    queue: str
    md: bytes
    body: bytes
    expiry_at: float | None


class DelMsg(NamedTuple):
    """A persistent message was removed for good."""
    seq: int


class SetBackout(NamedTuple):
    """A stored message's BackoutCount hardened (HARDENBO)."""
    seq: int
    backout: int


class PurgeQueue(NamedTuple):
    """Every persistent message of ``queue`` removed (CLEAR QLOCAL, a queue deleted)."""
    queue: str


class MoveDamaged(NamedTuple):
    """A message read back failed its checksum: set aside in the damaged table."""
    seq: int


class SaveObject(NamedTuple):
    """A definition (or a durable subscription, retained publication, authority record...)
    created or changed: its record as JSON, under namespace ``ns``."""
    ns: str
    name: str
    record: str


class DropObject(NamedTuple):
    ns: str
    name: str


class SaveMeta(NamedTuple):
    """A queue-manager value (QMID, the QSG, the cluster cache...)."""
    key: str
    value: str


class SaveChsync(NamedTuple):
    """A channel's synchronisation record (sequence number, in-doubt batch), as JSON; written in
    the same transaction as the unit of work it describes."""
    name: str
    record: str


class DropChsync(NamedTuple):
    name: str


class PreparedRow(NamedTuple):
    """One persistent message of a prepared unit: ``kind`` "put" (a message not yet visible, with
    its descriptor, data and expiry) or "get" (a stored message the unit holds)."""
    kind: str
    seq: int
    queue: str
    md: bytes | None
    body: bytes | None
    expiry_at: float | None


class Prepare(NamedTuple):
    """A unit of work past phase one of two."""
    xid: str
    at: float
    rows: list[PreparedRow]


class Resolve(NamedTuple):
    """A prepared unit resolved (its puts and deletes are journalled beside it)."""
    xid: str


JournalOp = (PutMsg | DelMsg | SetBackout | PurgeQueue | MoveDamaged | SaveObject | DropObject | SaveMeta
             | SaveChsync | DropChsync | Prepare | Resolve)


class Journal(Protocol):
    """The queue manager's own store: an ordered journal of operations made durable by ticket
    (group commit), and what recovery reads back."""
    stalled: str                    # why the last write failed, until one succeeds ("" when fine)

    def append(self, op: JournalOp) -> int: ...

    def extend(self, ops: list[JournalOp]) -> int: ...

    def room(self, nbytes: int) -> bool: ...

    @property
    def last_ticket(self) -> int: ...

    @property
    def durable_ticket(self) -> int: ...

    def sync(self, ticket: int | None = None) -> None: ...

    def objects(self) -> Iterator[tuple[str, str, dict[str, Any]]]: ...

    def messages(self, damaged: list[tuple[int, str]] | None = None
                 ) -> Iterator[tuple[int, str, bytes, bytes, float | None, int]]: ...

    def chsync(self) -> Iterator[tuple[str, dict[str, Any]]]: ...

    def prepared(self) -> Iterator[tuple[Any, ...]]: ...

    def meta(self, key: str) -> str | None: ...

    def message_counts(self) -> dict[str, dict[int, int]]: ...   # by queue and priority (recovery)

    def max_seq(self) -> int: ...


class ObjectSaver:
    """The journal as the security state sees it (``security.state.Saver``): object records saved
    and dropped."""
    __slots__ = ("journal",)

    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    def save(self, ns: str, name: str, record: str) -> None:
        self.journal.append(SaveObject(ns, name, record))

    def drop(self, ns: str, name: str) -> None:
        self.journal.append(DropObject(ns, name))


# --- queues deeper than memory ----------------------------------------------------------------
@dataclass(slots=True)
class StoredRow:
    """A message read back from the store for a paged queue (``engine.queue.QueueState``)."""
    seq: int
    md: bytes
    body: bytes
    expiry_at: float | None
    backout: int
    persistent: bool
    damaged: bool = False        # its checksum failed: the pager set it aside (and said so)


class Pager(Protocol):
    """Where a queue's messages beyond its buffers are: persistent ones are the journal's own rows
    (read back including operations not yet written), nonpersistent ones are spilled to a scratch
    area that a restart discards. Called with the engine lock held; nothing here waits for a
    write to become durable."""
    on_damaged: Callable[[int, str], None]       # a message failed its checksum (seq, queue)
    on_unreadable: Callable[[str, str], None]    # a queue's stored part cannot be read (queue, why)

    def page(self, queue: str, prios: tuple[int, ...], after: int, before: int | None,
             limit: int) -> list[StoredRow]:
        """Up to ``limit`` messages of ``queue`` with one of ``prios`` and positions above
        ``after`` (and below ``before``), in position order."""
        ...

    def find(self, queue: str, prios: tuple[int, ...], after: int,
             ids: tuple[bytes | None, bytes | None, bytes | None], limit: int) -> list[StoredRow]:
        """Like ``page``, only messages whose MsgId, CorrelId and GroupId are those given (None:
        any), found through the store's indexes. May return others (the caller matches again)."""
        ...

    def last_below(self, queue: str, prios: tuple[int, ...], after: int, before: int,
                   gone: set[int]) -> int | None: ...

    def load(self, seqs: list[int]) -> dict[int, tuple[str, StoredRow]]:
        """Stored persistent messages by position: (queue, row)."""
        ...

    def counts(self, queue: str) -> dict[int, int]:
        """How many messages the store holds for ``queue``, by priority."""
        ...

    def spill(self, queue: str, rows: list[tuple[int, int, bytes, bytes, float | None]]) -> None:
        """Nonpersistent messages (seq, priority, md, body, expiry) leave memory."""
        ...

    def unspill(self, queue: str, prio: int, seqs: list[int]) -> None: ...

    def unspill_range(self, queue: str, prios: tuple[int, ...], after: int, upto: int) -> None: ...

    def unspill_queue(self, queue: str) -> None: ...


# --- the queue-sharing group's shared store ---------------------------------------------------
@dataclass
class Row:
    """A shared message as the engine sees it."""
    id: int
    queue: str
    prio: int
    md: bytes
    body: bytes
    expiry_at: float | None
    persistent: bool
    backout: int


@dataclass
class NewMessage:
    queue: str
    prio: int
    md: bytes
    body: bytes
    expiry_at: float | None
    persistent: bool
    msgid: bytes
    correlid: bytes
    groupid: bytes
    seqno: int
    first: bool          # not in a group, or the first message of one (MQGMO_LOGICAL_ORDER starts here)
    target: str = ""     # on SYSTEM.QSG.TRANSMIT.QUEUE: the queue manager the message is for


@dataclass
class Select:
    """Which message an MQGET wants (None: any)."""
    msgid: bytes | None = None
    correlid: bytes | None = None
    groupid: bytes | None = None
    seqno: int | None = None
    first_of_group: bool = False
    id: int | None = None                      # exactly this message (under the browse cursor)
    after: tuple[int, int] | None = None       # strictly after this (prio, id) position


class QueueFull(Exception):
    def __init__(self, queue: str) -> None:
        super().__init__(queue)
        self.queue = queue


class SharedStoreError(Exception):
    """The shared store cannot be reached or refused an operation."""


class SharedPort(Protocol):
    qsg: str

    def depth(self, queue: str) -> int: ...

    def members(self) -> list[tuple[str, str, float]]: ...

    def put(self, msgs: list[NewMessage], maxdepth: dict[str, int]) -> None: ...

    def take(self, queue: str, fifo: bool, sel: Select, now: float, mode: str, owner: str = "",
             max_len: int | None = None) -> tuple[Row | None, bool]: ...

    def finish(self, delete: list[tuple[int, str]], release: list[int], durable: bool = True) -> None: ...

    def commit(self, msgs: list[NewMessage], delete: list[tuple[int, str]], durable: bool = True) -> None: ...

    def clear(self, queue: str) -> int: ...

    def put_object(self, ns: str, name: str, disp: str, rec: dict[str, Any], create: bool) -> bool: ...

    def delete_object(self, ns: str, name: str, disp: str, purge_queue: bool) -> None: ...
