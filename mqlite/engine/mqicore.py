"""The queue manager as its MQI core's parts read it: ``CoreState``, the Protocol of the state
``QueueManager.__init__`` sets and of the methods the parts (registry, connections, opens, puts,
plain puts, gets) reach each other by, which are the queue manager's by the same names. Nothing
here runs."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from mqlite.cluster.state import ClusterState
    from mqlite.cmq.structs import MD, OD, PMO
    from mqlite.engine.accounting import Accounting
    from mqlite.engine.arrivals import Arrivals
    from mqlite.engine.authority import Authority
    from mqlite.engine.batch import Batches
    from mqlite.engine.clock import Clock, IdGenerator
    from mqlite.engine.departures import Departures
    from mqlite.engine.core import Conn, Destination, Handle
    from mqlite.engine.message import Message
    from mqlite.engine.events import Events
    from mqlite.engine.hooks import Hooks
    from mqlite.engine.inquire import Inquiry
    from mqlite.engine.mqistats import MQICounts
    from mqlite.engine.observers import Observers
    from mqlite.engine.ports import Journal, Pager, SharedPort
    from mqlite.engine.pubadmin import PubAdmin
    from mqlite.engine.pubcluster import ClusterTopics
    from mqlite.engine.pubhier import Hierarchy
    from mqlite.engine.pubsub import PubSub
    from mqlite.engine.queue import QueueState
    from mqlite.engine.report import Reports
    from mqlite.engine.resolve import Resolved
    from mqlite.engine.route import Routing
    from mqlite.engine.segments import Segments
    from mqlite.engine.stream import Streams
    from mqlite.engine.subscribe import Subscriptions
    from mqlite.engine.trigger import Triggers
    from mqlite.engine.uow import UnitsOfWork
    from mqlite.objects.model import MQObject
    from mqlite.security.state import SecurityState

T = TypeVar("T")


class CoreState(Protocol):
    """What the MQI core's parts share (set in ``QueueManager.__init__``)."""

    name: str
    qmgr_name: str
    name48: bytes
    qmgr: MQObject
    objects: dict[str, dict[str, MQObject]]
    group_objects: dict[tuple[str, str], MQObject]
    queues: dict[str, QueueState]
    conns: dict[int, Conn]
    arrivals: Arrivals
    departures: Departures
    quiescing: bool
    store: Journal
    pager: Pager | None
    buffers: tuple[int, int]
    clock: Clock
    started: float
    ids: IdGenerator
    hooks: Hooks
    cluster: ClusterState
    shared: SharedPort | None
    qsg_members: frozenset[str]
    security: SecurityState
    # the parts
    authority: Authority
    routing: Routing
    batches: Batches
    uow: UnitsOfWork
    inquiry: Inquiry
    streams: Streams
    reports: Reports
    events: Events
    mqi: MQICounts
    observers: Observers
    accounting: Accounting
    applications: dict[str, list[int]]
    watched: set[str]
    triggers: Triggers
    segments: Segments
    pubsub: PubSub
    subs: Subscriptions
    pubhier: Hierarchy
    pubcluster: ClusterTopics
    pubadmin: PubAdmin

    # The methods the parts reach each other by (the queue manager's, bound to its parts), and
    # what name resolution asks of it (engine.resolve.View).
    def log(self, text: str, explanation: str = "") -> None: ...
    def message_available(self, queue: str) -> None: ...
    def queue(self, name: str) -> MQObject | None: ...
    def queue_defined(self, name: str) -> MQObject: ...
    @property
    def group(self) -> SharedPort: ...
    def lookup(self, ns: str, name: str) -> MQObject | None: ...
    def add_object(self, obj: MQObject) -> None: ...
    def remove_object(self, obj: MQObject, purge: bool = True) -> None: ...
    def shared_call(self, fn: Callable[..., T], *args: Any) -> T: ...
    def open(self, conn: Conn, od: OD, options: int) -> Handle: ...
    def handle(self, conn: Conn, hobj: int) -> Handle: ...
    def close(self, conn: Conn, hobj: int, options: int = 0) -> None: ...
    def first_definition(self, h: Handle, res: Resolved) -> MQObject: ...
    def destination(self, res: Resolved | None) -> Destination: ...
    def put(self, conn: Conn, hobj: int, md: MD, pmo: PMO, body: bytes, owned: bool = False) -> int: ...
    def check_put(self, conn: Conn, res: Resolved, qs: QueueState, body_len: int, header_len: int,
                  syncpoint: bool, segmentable: bool = False) -> MQObject: ...
    def stored_qos(self, opened: MQObject, target: MQObject, persistence: int, priority: int, body_len: int,
                   shared: bool) -> tuple[int, int, int]: ...
    def enqueue(self, conn: Conn, qs: QueueState, msg: Message, syncpoint: bool, now: float) -> None: ...
    def settle(self, conn: Conn, hobj: int, acked: int, release: bool = True) -> None: ...
    def flush_shared_async(self, conn: Conn) -> None: ...
    def commit(self, conn: Conn, sync: tuple[str, dict[str, Any]] | None = None) -> None: ...
    def backout(self, conn: Conn) -> None: ...
    def qmgr_attr(self, key: str) -> Any: ...
    def cluster_queue(self, name: str) -> bool: ...
    def cluster_qmgr_alias(self, name: str) -> bool: ...
    def cluster_route(self, qmgr: str) -> tuple[str, str] | None: ...
    def qsg_member(self, qmgr: str) -> bool: ...
