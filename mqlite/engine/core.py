"""What the engine's modules share: the handle, connection and unit-of-work records, option masks
and small helpers (the MQXQH layout is ``cmq.structs``'s)."""
from __future__ import annotations

import struct
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Protocol, Union

from mqlite.cmq import CMQC
from mqlite.cmq.structs import GMO, MD, PMO
from mqlite.engine.message import Message
from mqlite.engine.ports import NewMessage
from mqlite.engine.queue import QueueState
from mqlite.engine.resolve import Resolved
from mqlite.engine.shared import SharedGot, SharedPut, SharedQueueState
from mqlite.objects.model import MQObject
from mqlite.security.users import Principal

C = CMQC
INPUT_OPTS = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE
ACCESS_OPTS = (INPUT_OPTS | C.MQOO_BROWSE | C.MQOO_OUTPUT | C.MQOO_INQUIRE | C.MQOO_SET
               | C.MQOO_BIND_ON_OPEN | C.MQOO_BIND_NOT_FIXED | C.MQOO_BIND_ON_GROUP)
VALID_OO = (ACCESS_OPTS | C.MQOO_SAVE_ALL_CONTEXT | C.MQOO_PASS_IDENTITY_CONTEXT | C.MQOO_PASS_ALL_CONTEXT
            | C.MQOO_SET_IDENTITY_CONTEXT | C.MQOO_SET_ALL_CONTEXT | C.MQOO_ALTERNATE_USER_AUTHORITY
            | C.MQOO_FAIL_IF_QUIESCING | C.MQOO_RESOLVE_NAMES | C.MQOO_CO_OP | C.MQOO_RESOLVE_LOCAL_Q
            | C.MQOO_NO_READ_AHEAD | C.MQOO_READ_AHEAD | C.MQOO_NO_MULTICAST)
CONTEXT_PMO = (C.MQPMO_DEFAULT_CONTEXT | C.MQPMO_NO_CONTEXT | C.MQPMO_PASS_ALL_CONTEXT
               | C.MQPMO_PASS_IDENTITY_CONTEXT | C.MQPMO_SET_ALL_CONTEXT | C.MQPMO_SET_IDENTITY_CONTEXT)
BROWSE_GMO = C.MQGMO_BROWSE_FIRST | C.MQGMO_BROWSE_NEXT | C.MQGMO_BROWSE_MSG_UNDER_CURSOR
BLANK48 = b" " * 48
MD_HOT = struct.Struct("@16xi20xii")      # MQMD Expiry, Priority, Persistence (offsets 16, 40, 44)
PMO_OPTIONS_AT, PMO_OPTIONS = PMO.field_struct("Options")    # a packed MQPMO's Options (plainput, batch)
BLANK32 = b" " * 32
STORED_OVERHEAD = 400               # a stored message's bytes beyond its body (descriptor, row, index)
XA_END, XA_END_DAYS = "XAEND:", 7   # channel-record keys of closed XID prefixes, kept a week
def bits(x: int) -> int:
    return bin(x).count("1")


CTIME_CACHE: list[Any] = [-1, b"", b""]


def format_report(md: MD) -> tuple[bytes, int]:
    """A descriptor's Format and Report (what MQGET decides on for every message), read without
    decoding one that is kept packed (``PackedMD.peek``)."""
    d = md.__dict__
    if "_raw" in d:
        return md.peek("Format"), md.peek("Report")
    return d["Format"], d["Report"]


def put_date_time(t: float) -> tuple[bytes, bytes]:
    """MQ's date and time of a put: YYYYMMDD and HHMMSSTH (hundredths), in UTC."""
    hundredths = int(t * 100)
    cache = CTIME_CACHE
    if cache[0] != hundredths:
        tm = time.gmtime(t)
        cache[:] = [hundredths, time.strftime("%Y%m%d", tm).encode(),
                    (time.strftime("%H%M%S", tm) + f"{hundredths % 100:02d}").encode()]
    return cache[1], cache[2]


# A unit of work's entries, as the journal's records are typed: a put or get of a local queue holds
# the message; a shared queue's holds what the group's store writes at MQCMIT (engine/shared.py).
LocalEntry = tuple[Literal["put", "get"], QueueState, Message]
SharedEntry = Union[tuple[Literal["sput"], SharedQueueState, SharedPut],
                    tuple[Literal["sget"], SharedQueueState, SharedGot]]
UowEntry = Union[LocalEntry, SharedEntry]


def local_entries(entries: list[UowEntry]) -> list[LocalEntry]:
    """A unit's entries of local queues, in order (a shared queue's are the group store's)."""
    return [e for e in entries if e[0] == "put" or e[0] == "get"]


class Recorder(Protocol):
    """A handle's statistics or accounting (``Handle.stats``): what it is told of the handle's use."""

    def opened(self, now: float) -> None: ...

    def closed(self, now: float) -> None: ...

    def put(self, persistent: bool, length: int, depth: int, put1: bool) -> None: ...

    def put_failed(self, put1: bool) -> None: ...

    def got_message(self, msg: Any, length: int, depth: int, now: float) -> None: ...

    def browsed(self, persistent: bool, length: int) -> None: ...

    def get_failed(self, browse: bool) -> None: ...

    def inquired(self) -> None: ...

    def altered(self) -> None: ...


class Destination(Protocol):
    """Where an MQPUT through a handle goes, chosen once at MQOPEN (``Puts.destination``): a queue
    whose instance MQOPEN fixed, a cluster queue whose instance each put chooses, or a topic."""

    def put(self, conn: Conn, h: Handle, md: MD, pmo: PMO, body: bytes, owned: bool, put1: bool) -> int: ...

    def target(self, h: Handle, md: MD, opts: int) -> tuple[Resolved, QueueState, bool]:
        """The resolution and queue this message joins, and whether a channel may later send it
        elsewhere (BIND_NOT_FIXED: MQ reroutes such messages when their channel fails)."""
        ...


@dataclass
class Handle:
    hobj: int
    name: str                       # the name opened (after model instantiation, the new queue)
    obj: MQObject | None            # the definition opened (None for the queue manager object)
    options: int
    res: Resolved | None
    qstate: QueueState | None       # the local queue or transmission queue at the end of the path
    input_mode: str = ""            # "S" shared, "X" exclusive
    dynamic_owner: bool = False     # this handle's MQOPEN created its dynamic queue
    browse_at: tuple[int, int] | None = None
    browse_seq: int | None = None
    # MQPMO_LOGICAL_ORDER: (GroupId, MsgSeqNumber, next segment's Offset or None, group flags)
    put_group: tuple[bytes, int, int | None, int] | None = None
    get_group: tuple[bytes, int, int] | None = None   # MQGMO_LOGICAL_ORDER: the next (GroupId, MsgSeqNumber, Offset)
    # Messages sent ahead to the client and not yet consumed, each with whether it belongs to the
    # connection's unit of work (read-ahead under syncpoint).
    # Messages sent ahead and not yet acknowledged: (message, True under syncpoint, False read ahead,
    # None held outside syncpoint for a get that may be given back: engine/batch.py's ``hold``).
    read_ahead: deque[tuple[Message, bool | None]] = field(default_factory=deque)
    async_put: bool = False         # DEFPRESP(ASYNC) of the queue opened
    read_ahead_ok: bool = False     # MQOO_READ_AHEAD, or DEFREADA(YES) of the queue opened
    bind: int = C.MQBND_BIND_ON_OPEN   # a cluster queue's binding (res.kind CLUSTER)
    cluster_name: str = ""          # a cluster queue (or clustered alias) opened: the name of its records
    group_target: tuple[Resolved, QueueState] | None = None   # BIND_ON_GROUP: the group's instance
    selector: Callable[[Callable[[str], Any]], Any] | None = None   # the MQOD's SelectionString, compiled
    # A selecting handle's scan: messages before this position did not match, while the queue's
    # insert count is still the second number (nothing arrived before them since).
    scanned: tuple[tuple[int, int], int] | None = None
    topic: str | None = None        # a topic opened for publishing: its topic string
    sub: Any = None                 # a subscription's handle (MQSUB): its engine.pubsub.Subscription
    stats: Recorder | None = None   # its statistics and accounting, kept from MQOPEN (engine/observers.py)
    dest: Destination | None = None  # opened for output: where its puts go (engine/put.py)


@dataclass
class Conn:
    hconn: int
    appl_name: str
    appl_type: int
    user: str
    handles: dict[int, Handle] = field(default_factory=dict)
    uow: list[UowEntry] = field(default_factory=list)
    ticket: int = 0                 # journal position the caller must make durable before replying
    next_hobj: int = 1
    put_ok: int = 0                 # asynchronous put outcomes since the last MQSTAT
    put_warn: int = 0
    put_fail: int = 0
    first_error: tuple[int, int, str] | None = None  # (comp, reason, object) of the first failed async put
    uow_failed: bool = False        # an asynchronous put inside the unit of work failed: commit backs out
    cluster_waited: bool = False    # MQOPEN already waited for a full repository's answer
    shared_uow: bool = False        # the unit of work holds shared-queue messages ("sput"/"sget" entries)
    async_now: bool = False         # inside put_async: a shared put outside syncpoint may wait in shared_async
    shared_async: list[NewMessage] = field(default_factory=list)   # written by flush_shared_async
    user12: bytes = b""             # UserIdentifier and PutApplName as they go into every MQMD
    appl28: bytes = b""
    principal: Principal | None = None   # whom authority is checked for (None: the queue manager's own)
    auth_cache: dict[tuple[str, str], int] = field(default_factory=dict)
    auth_version: int = -1
    # Who it is, as DISPLAY CONN shows it (engine/connections.py): given by whoever connects.
    conn_id: bytes = b""            # MQ's 24-byte ConnectionId
    started: float = 0.0
    channel: str = ""               # the SVRCONN of a client connection
    conname: str = ""               # the client's address
    pid: int = 0                    # the application's process (bindings), or its channel agent's (client)
    tid: int = 0
    conn_opts: int = C.MQCNO_SHARED_BINDING
    uow_since: float | None = None  # when the unit of work began (its first MQPUT or MQGET under syncpoint)
    waiting: int = 0                # the handle an MQGET waits on (0: none)
    unmeasured: bool = False        # the statistics writer itself: its puts are not in the statistics
    acct: Any = None                # its accounting while accounted (engine/accounting.py's ConnAccount)
    acct_level: int = C.MQMON_NONE  # the ACCTQ its queues with ACCTQ(QMGR) take (NONE: not accounted)


@contextmanager
def qmgr_authority(conn: Conn) -> Iterator[None]:
    """Calls made with the queue manager's own authority on the connection's behalf (a
    publication's copies, managed queues, messages to other queue managers' agents): no authority
    checks inside, the connection's principal back afterwards."""
    saved = conn.principal
    conn.principal = None
    try:
        yield
    finally:
        conn.principal = saved


@dataclass
class Prepared:
    """A unit of work past phase one of a two-phase commit: no longer any connection's, kept (the
    persistent part durably) until it is committed or backed out by its XID."""
    xid: str
    at: float
    entries: list[LocalEntry]
    number: int = 0                 # its transaction number (dspmqtrn's 0,N: engine/uow.py)


@dataclass
class GetResult:
    md: MD
    body: bytes
    data_length: int
    gmo: GMO
    comp: int = C.MQCC_OK
    reason: int = C.MQRC_NONE
    seq: int = 0                    # the message's store number (channel agents record it)
    persistent: bool = False
    packed: bytes | None = None     # the descriptor already packed (when nothing in it changed)
    props: bytes | None = None      # for the MQGET's message handle: an MQRFH2 of property folders
