"""The queue-manager engine's face: ``QueueManager``, the MQI verbs by their names and the state
every part reads. Concepts with state of their own are parts it constructs in ``__init__``, each
in its own module with a Protocol of what it needs (docs/design.md, "The engine as parts"):
``pubsub``, ``subs``, ``pubadmin``, ``pubhier``, ``pubcluster``, ``uow``, ``segments``,
``reports``, ``authority``, ``inquiry``, ``streams``, ``routing``, ``batches``. The MQI core is
made of parts too, over the records of ``engine.core``: ``registry`` (creation, recovery, the
object registry), ``connections`` (MQCONN/MQDISC), ``opens`` (MQOPEN/MQCLOSE and the handles),
``puts`` and ``plain_puts`` (MQPUT/MQPUT1), ``gets`` (MQGET). Their public methods are the queue
manager's by the same names (bound in ``__init__``: the face adds no call), which is how the
parts and the rest of mqlite reach them; ``engine.mqicore.CoreState`` says what they read.

Plain synchronous Python: no sockets, threads or sleeps.  The caller (the server, or a test)
serialises calls, supplies the clock, and after each call makes the journal durable up to the
connection's ``ticket`` before answering the application.  MQGET with a wait is the caller's
business too: the engine answers 2033 at once and reports which queue to wait on.
"""
from __future__ import annotations

import builtins
from typing import Any

from mqlite.cluster.state import ClusterState
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import GMO, MD, pad, text
from mqlite.engine.arrivals import Arrivals
from mqlite.engine.accounting import Accounting
from mqlite.engine.authority import Authority
from mqlite.engine.batch import Batches
from mqlite.engine.clock import Clock, IdGenerator
from mqlite.engine.core import Conn, Handle
from mqlite.engine.connections import Connections
from mqlite.engine.definitions import Registry
from mqlite.engine.departures import Departures
from mqlite.engine.events import Events
from mqlite.engine.get import Gets
from mqlite.engine.hooks import Hooks
from mqlite.engine.inquire import Inquiry
from mqlite.engine.message import Message
from mqlite.engine.mqistats import MQICounts
from mqlite.engine.observers import Observers
from mqlite.engine.open import Opens
from mqlite.engine.ports import Journal, ObjectSaver, Pager
from mqlite.engine.put import Puts
from mqlite.engine.pubadmin import PubAdmin
from mqlite.engine.pubcluster import ClusterTopics
from mqlite.engine.pubhier import Hierarchy
from mqlite.engine.pubsub import PubSub
from mqlite.engine.plainput import PlainPuts
from mqlite.engine.queue import DEFAULT_BUFFERS, QueueState
from mqlite.engine.report import Reports
from mqlite.engine.route import Routing
from mqlite.engine.segments import Segments
from mqlite.engine.shared import SharedPort
from mqlite.engine.stream import Streams
from mqlite.engine.subscribe import Subscriptions, destination_options
from mqlite.engine.trigger import Triggers
from mqlite.engine.uow import UnitsOfWork
from mqlite.objects.attrs import TABLE
from mqlite.objects.model import QMGR, QUEUE, MQObject
from mqlite.security.state import SecurityState

__all__ = ["QueueManager"]


class QueueManager:
    """One queue manager's state and MQI behaviour."""

    def __init__(self, name: str, store: Journal, clock: Clock | None = None, pager: Pager | None = None,
                 buffers: tuple[int, int] = DEFAULT_BUFFERS) -> None:
        self.name = name
        self.qmgr_name = name
        self.store = store
        # Queues deeper than memory: where their messages beyond the buffers are read from, and the
        # buffers (bytes of nonpersistent, persistent messages a queue holds in memory; qm.ini's
        # TuningParameters DefaultQBufferSize and DefaultPQBufferSize). No pager: all in memory.
        self.pager = pager
        self.buffers = buffers
        self.clock = clock or Clock()
        self.started = self.clock.now()
        self.ids = IdGenerator(name, self.clock)
        self.objects: dict[str, dict[str, MQObject]] = {QUEUE: {}, "CHANNEL": {}, "NAMELIST": {}, "LISTENER": {},
                                                        "AUTHINFO": {}, "TOPIC": {}, "PROCESS": {}, "SERVICE": {},
                                                        "COMMINFO": {}}
        self.security = SecurityState(ObjectSaver(store))    # CHLAUTH rules, authority records, users
        self.queues: dict[str, QueueState] = {}
        self.qmgr = MQObject(QMGR, name, TABLE.defaults(QMGR))
        self.conns: dict[int, Conn] = {}
        self._core()
        self.arrivals = Arrivals(self)                # where a message joins a queue (engine/arrivals.py)
        self.departures = Departures(self)            # where it leaves one (engine/departures.py)
        self.quiescing = False
        self.name48 = pad(name, 48)
        self.hooks = Hooks()                           # what the engine reports (engine/hooks.py)
        self.cluster = ClusterState(self)
        self.shared: SharedPort | None = None          # the group's shared store, for a QSG member
        self.qsg_members: frozenset[str] = frozenset()   # the other members (kept up to date by the server)
        self.group_objects: dict[tuple[str, str], MQObject] = {}   # QSGDISP(GROUP) definitions, by (ns, name)
        self.authority = Authority(self, self.security)
        self.routing = Routing(self)             # cluster puts, cluster transmission queues, moves
        self.batches = Batches(self)             # asynchronous put, read-ahead, bulk browse, MQSTAT
        self.uow = UnitsOfWork(self)             # MQCMIT, MQBACK, prepared units, sync records
        self.inquiry = Inquiry(self)             # MQINQ, MQSET
        self.streams = Streams(self)             # queues read by position
        self.reports = Reports(self)
        self.events = Events(self)
        self.security.observer = self.events.security_changed   # authority and CHLAUTH records' CONFIGEV
        self.mqi = MQICounts()              # the MQI calls of this statistics interval (engine/mqistats.py)
        self.accounting = Accounting(self)  # each application's calls (ACCTMQI, ACCTQ: engine/accounting.py)
        self.observers = Observers(self)    # what the verbs' outcomes are told to (engine/observers.py)
        self.applications: dict[str, list[int]] = {}   # by application name: [connections made, ended] so far
        # Queues whose figures resource-usage subscribers read ("*": every queue, for STATMQI).
        self.watched: builtins.set[str] = builtins.set()
        self.triggers = Triggers(self)
        self.segments = Segments(self)
        # Publish/subscribe, as parts that hold their own state (engine/pubsub.py and beside it).
        self.pubsub = PubSub(self)
        self.subs = Subscriptions(self, self.pubsub)
        self.pubhier = Hierarchy(self, self.pubsub)
        self.pubcluster = ClusterTopics(self, self.pubsub, self.pubhier)
        self.pubadmin = PubAdmin(self, self.pubsub, self.pubhier)
        self.pubsub.relays += [self.pubcluster, self.pubhier]

    def _core(self) -> None:
        """The MQI core's parts, and their public methods as the queue manager's."""
        r = self.registry = Registry(self)
        if self.pager is not None:
            self.pager.on_damaged, self.pager.on_unreadable = r.damaged, r.unreadable
        self.create, self.recover, self.queue, self.queue_defined = r.create, r.recover, r.queue, r.queue_defined
        self.qmgr_attr, self.cluster_queue, self.cluster_qmgr_alias = r.qmgr_attr, r.cluster_queue, r.cluster_qmgr_alias
        self.qsg_member, self.cluster_route, self.lookup = r.qsg_member, r.cluster_route, r.lookup
        self.stamp_definition, self.save, self.add_object = r.stamp_definition, r.save, r.add_object
        self.replace_object, self.remove_object, self.forget_object = r.replace_object, r.remove_object, r.forget_object
        self.install_object, self.shared_call, self.in_use, self.clear_queue = (
            r.install_object, r.shared_call, r.in_use, r.clear_queue)
        c = self.connections = Connections(self)
        self.connect, self.agent, self.conn, self.disconnect = c.connect, c.agent, c.conn, c.disconnect
        o = self.opens = Opens(self)
        self.open, self.close, self.handle, self.new_handle = o.open, o.close, o.handle, o.new_handle
        self.resolve, self.first_definition = o.resolve, o.first_definition
        self.instantiate_model = o.instantiate_model
        p = self.puts = Puts(self)
        self.put, self.put1, self.put_on_handle, self.put_packed = p.put, p.put1, p.put_on_handle, p.put_packed
        self.check_put, self.stored_qos, self.need_room = p.check_put, p.stored_qos, p.need_room
        self.destination = p.destination
        self.enqueue, self.set_context, self.fill_reply_to, self.xmit_wrap = (
            p.enqueue, p.set_context, p.fill_reply_to, p.xmit_wrap)
        self.plain_puts = PlainPuts(self)
        self.put_request = self.plain_puts.put_request
        g = self.gets = Gets(self)
        self.get, self.drain, self.wait_queue, self.delivered = g.get, g.drain, g.wait_queue, g.delivered
        self.properties_out, self.property_mode, self.with_selector = g.properties_out, g.property_mode, g.with_selector
        self.check_get_allowed, self.discard_expired = g.check_get_allowed, g.discard_expired

    @property
    def group(self) -> SharedPort:
        """The group's shared store: a member's, the structure unavailable (2345) for any other."""
        if self.shared is None:
            raise MQIError(C.MQRC_CF_NOT_AVAILABLE, detail="not a member of a queue-sharing group")
        return self.shared

    def log(self, text: str, explanation: str = "") -> None:
        self.hooks.log(text, explanation)

    def message_available(self, queue: str) -> None:
        """Messages became visible on ``queue``: its trigger conditions (engine/trigger.py), then
        the program running the engine is told (waiting getters, channels)."""
        self.triggers.available(queue)
        self.hooks.available(queue)

    def report(self, conn: Conn | None, md: MD, data: bytes, kind: str, feedback: int = C.MQFB_NONE,
               queue: str | None = None) -> None:
        """A report message, if ``md`` asks for one (engine/report.py)."""
        self.reports.send(conn, md, data, kind, feedback, queue)

    # --- MQI verbs served by the parts ------------------------------------------------------------
    def put_async(self, conn: Conn, hobj: int, md: bytes, pmo: bytes, body: bytes) -> None:
        """MQPUT with an asynchronous response, MQMD and MQPMO packed (engine/batch.py)."""
        self.batches.put_async(conn, hobj, md, pmo, body)

    def flush_shared_async(self, conn: Conn) -> None:
        """Shared-queue puts of an asynchronous burst, written (engine/batch.py)."""
        self.batches.flush_shared_async(conn)

    def stat(self, conn: Conn) -> dict[str, Any]:
        """MQSTAT (engine/batch.py)."""
        return self.batches.stat(conn)

    def get_batch(self, conn: Conn, hobj: int, acked: int, max_msgs: int, max_bytes: int,
                  gmo: GMO, speculative: bool = False, syncpoint: bool = False,
                  hold: bool = False) -> list[tuple[bytes, bytes, bool]]:
        """Read-ahead: messages sent ahead to a client (engine/batch.py)."""
        return self.batches.get_batch(conn, hobj, acked, max_msgs, max_bytes, gmo, speculative, syncpoint, hold)

    def browse_batch(self, conn: Conn, hobj: int, first: bool, max_msgs: int, max_bytes: int) -> list[tuple[bytes, bytes]]:
        """A bulk browse (engine/batch.py)."""
        return self.batches.browse_batch(conn, hobj, first, max_msgs, max_bytes)

    def settle(self, conn: Conn, hobj: int, acked: int, release: bool = True) -> None:
        """Messages sent ahead: those consumed taken, the rest given back (engine/batch.py)."""
        self.batches.settle(conn, hobj, acked, release)

    def inquire(self, conn: Conn, hobj: int, selectors: list[int]) -> list[int | bytes]:
        """MQINQ (engine/inquire.py)."""
        return self.inquiry.inquire(conn, hobj, selectors)

    def inquire_reason(self, conn: Conn, hobj: int, selectors: list[int]) -> tuple[list[int | bytes], int]:
        """MQINQ with its reason (a warning for a selector of another type of queue)."""
        return self.inquiry.inquire_reason(conn, hobj, selectors)

    def set(self, conn: Conn, hobj: int, selectors: list[int], values: list[Any]) -> None:
        """MQSET (engine/inquire.py)."""
        self.inquiry.set(conn, hobj, selectors, values)

    def commit(self, conn: Conn, sync: tuple[str, dict[str, Any]] | None = None) -> None:
        """MQCMIT (engine/uow.py); ``sync``: a channel's synchronisation record committed with it."""
        self.uow.commit(conn, sync)

    def backout(self, conn: Conn) -> None:
        """MQBACK (engine/uow.py)."""
        self.uow.backout(conn)

    def give_back(self, conn: Conn, msg: Message, raise_count: bool) -> bool:
        """One get of the unit of work undone, the rest kept (engine/uow.py)."""
        return self.uow.give_back(conn, msg, raise_count)

    def backout_since(self, conn: Conn, mark: int) -> None:
        """Take back what the unit of work gained since it held ``mark`` entries (a publication's
        copies that failed as a whole, inside the publisher's unit of work)."""
        self.uow.discard_since(conn, mark)

    def prepare(self, conn: Conn, xid: str) -> int:
        """Phase one of two (engine/uow.py)."""
        return self.uow.prepare(conn, xid)

    def resolve_prepared(self, conn: Conn, commit: list[str], backout: list[str] | tuple[str, ...] = (),
                         backout_prefix: str = "", mark: tuple[str, int] | None = None,
                         end_prefix: bool = False, commit_prefix: str = "") -> dict[str, Any]:
        """Phase two (engine/uow.py)."""
        return self.uow.resolve_prepared(conn, commit, backout, backout_prefix, mark, end_prefix, commit_prefix)

    def prepared_units(self) -> list[dict[str, Any]]:
        """The units in doubt: dspmqtrn (engine/uow.py)."""
        return self.uow.prepared_units()

    def set_chsync(self, conn: Conn, channel: str, rec: dict[str, Any]) -> None:
        """A channel's synchronisation record (engine/uow.py)."""
        self.uow.set_chsync(conn, channel, rec)

    def remove_messages(self, queue: str, seqs: list[int]) -> int:
        """An in-doubt channel batch resolved as committed (engine/uow.py)."""
        return self.uow.remove_messages(queue, seqs)

    def correl_ids(self, queue: str) -> builtins.set[bytes]:     # (``set`` here is MQSET)
        """The CorrelIds on a cluster transmission queue (the cluster state's Host asks)."""
        return self.routing.correl_ids(queue)

    def subscribe(self, conn: Conn, sd: Any, hobj: int) -> tuple[Handle, int]:
        """MQSUB (engine/subscribe.py); a refused authority check raises Not Authorized: type 5
        for the topic, type 6 for the destination queue a handle provides."""
        try:
            return self.subs.subscribe(conn, sd, hobj)
        except MQIError as e:
            if e.checked is not None and e.checked[0] == "TOPIC":
                self.events.not_authorized(F.MQRQ_SUB_NOT_AUTHORIZED, conn, options=sd.Options, user=e.checked[2],
                                           topic=self._sub_topic(sd), admin_topics=[e.checked[1]])
            elif e.checked is not None and e.checked[0] == "QUEUE":
                self.events.not_authorized(F.MQRQ_SUB_DEST_NOT_AUTHORIZED, conn, options=sd.Options,
                                           user=e.checked[2], topic=self._sub_topic(sd), qname=e.checked[1],
                                           dest_options=destination_options(sd.Options))
            raise

    def _sub_topic(self, sd: Any) -> str:
        """The topic string an MQSD is about: the named subscription's, else the one it names."""
        name = sd.get_vs("SubName").decode("utf-8", "replace").strip()
        sub = next((s for s in self.pubsub.subscriptions.values() if name and s.name == name), None)
        if sub is not None:
            return sub.topic
        string = str(sd.get_vs("ObjectString").decode("utf-8", "replace"))
        try:
            return self.pubsub.topic_string(text(sd.ObjectName), string)
        except MQIError:
            return string

    def request_publications(self, conn: Conn, hsub: int) -> int:
        """MQSUBRQ (engine/subscribe.py)."""
        return self.subs.request_publications(conn, hsub)
