"""What watches the MQI verbs: instrumentation events (engine/events.py), queue statistics
(engine/statistics.py), application accounting (engine/accounting.py) and the MQI statistics
(engine/mqistats.py), told of each verb's outcome in one place: ``Observers``, the queue manager's
``qm.observers``. A verb reports once, when it has succeeded or failed; each observer does
nothing when it is off (no events enabled, a handle with no ``stats`` recorder, a connection not
accounted), so a put or get on an unwatched queue pays one attribute read per observer.

The per-handle observer is the handle's ``stats``: the queue's ``QueueStats``, the connection's
``QueueAccount``, or both (``Recorders``), chosen at MQOPEN; ``core.Recorder`` says what it records."""
from __future__ import annotations

from typing import Any, Protocol

from mqlite.cmq import CMQC as C
from mqlite.engine.core import BROWSE_GMO, Conn, Handle
from mqlite.engine.events import MQEVR_ENABLED, QMGR_EVENTS, Events
from mqlite.engine.mqistats import MQICounts
from mqlite.engine.resolve import Resolved
from mqlite.objects.model import MQObject


class ObserversHost(Protocol):
    qmgr: MQObject
    events: Events
    mqi: MQICounts

    def first_definition(self, h: Handle, res: Resolved) -> MQObject: ...


class Observers:
    def __init__(self, qm: ObserversHost) -> None:
        self.qm = qm

    # --- MQPUT, MQPUT1 (and a channel's put) ----------------------------------------------------
    def put_done(self, h: Handle, persistence: int, length: int, put1: bool) -> None:
        """A put through ``h`` succeeded: its statistics (``persistence`` as the put gave it:
        AS_Q_DEF is the opened definition's DEFPSIST), then the queue depth events it raises."""
        st = h.stats
        if st is not None:
            if persistence == C.MQPER_PERSISTENCE_AS_Q_DEF and h.res is not None:
                first = h.obj if h.obj is not None else self.qm.first_definition(h, h.res)
                persistence = first.attrs.get("DEFPSIST", C.MQPER_NOT_PERSISTENT)
            qs = h.qstate
            st.put(persistence == C.MQPER_PERSISTENT, length, qs.depth if qs is not None else 0, put1)
        if h.qstate is not None and self.qm.qmgr.attrs.get("PERFMEV") == MQEVR_ENABLED:
            self.qm.events.depth(h.qstate, True)

    def put_failed(self, conn: Conn, h: Handle, reason: int, put1: bool) -> None:
        """A put through ``h`` refused: a failure in its statistics, and the Queue Full event or the
        queue manager event the reason raises."""
        if h.stats is not None:
            h.stats.put_failed(put1)
        if reason == C.MQRC_Q_FULL:
            if h.qstate is not None:
                self.qm.events.depth(h.qstate, True, full=True)
        elif reason in QMGR_EVENTS:
            self.qm.events.mqi_failed(conn, reason, h.name)

    # --- MQGET ----------------------------------------------------------------------------------
    def got(self, h: Handle) -> None:
        """An MQGET through ``h`` succeeded (its statistics were told of the message as it was
        taken): the queue depth events."""
        if h.qstate is not None and self.qm.qmgr.attrs.get("PERFMEV") == MQEVR_ENABLED:
            self.qm.events.depth(h.qstate, False)

    def get_failed(self, conn: Conn, h: Handle, reason: int, options: int) -> None:
        """An MQGET through ``h`` failed: its statistics (not the 2033 of a get that waits: the
        server counts it when the wait ends) and the Get Inhibited event."""
        if h.stats is not None and (reason != C.MQRC_NO_MSG_AVAILABLE or not options & C.MQGMO_WAIT):
            h.stats.get_failed(bool(options & (BROWSE_GMO | C.MQGMO_BROWSE_MSG_UNDER_CURSOR)))
        if reason == C.MQRC_GET_INHIBITED:
            self.qm.events.mqi_failed(conn, reason, h.name)

    # --- the other verbs, as the server serves them ---------------------------------------------
    def call(self, ok: str, failed: str, succeeded: bool, where: int | None, acct: Any) -> None:
        """An MQI call served to an application: the MQI statistics' ``ok`` or ``failed`` figure
        (``where``: the entry of a list by object type), and the connection's accounting while it
        is accounted (``acct``: as it was when the call began, since MQDISC ends it)."""
        self.qm.mqi.call(ok, failed, succeeded, where)
        if acct is not None:
            acct.calls.call(ok, failed, succeeded, where)
            acct.active = True
