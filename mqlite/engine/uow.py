"""Units of work: MQCMIT, MQBACK, channel sync records, two-phase (prepared) units.
``UnitsOfWork`` is the queue manager's ``qm.uow``; it holds the prepared units and the channel
synchronisation records, and reaches the rest through ``UowHost``. The queue manager's face
(``commit``, ``backout``, ...) calls it."""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Callable, Protocol

from mqlite.catalogue import message
from mqlite.cmq.errors import MQIError
from mqlite.engine.arrivals import Arrivals
from mqlite.engine.clock import Clock
from mqlite.engine.core import XA_END, XA_END_DAYS, C, Conn, LocalEntry, Prepared, UowEntry, local_entries
from mqlite.engine.departures import Departures
from mqlite.engine.hooks import Hooks
from mqlite.engine.message import Message
from mqlite.engine.ports import (
    DropChsync,
    Journal,
    JournalOp,
    Prepare,
    PreparedRow,
    Resolve,
    SaveChsync,
    SetBackout,
    SharedPort,
)
from mqlite.engine.queue import QueueState
from mqlite.engine.report import Reports
from mqlite.objects.model import MQObject


class UowHost(Protocol):
    """What units of work need of the queue manager."""
    store: Journal
    queues: dict[str, QueueState]
    clock: Clock
    hooks: Hooks
    shared: SharedPort | None
    arrivals: Arrivals
    departures: Departures

    def message_available(self, queue: str) -> None: ...

    @property
    def reports(self) -> Reports: ...

    def queue(self, name: str) -> MQObject | None: ...

    def log(self, text: str, explanation: str = "") -> None: ...

    def shared_call(self, fn: Callable[..., Any], *args: Any) -> Any: ...


class UnitsOfWork:
    """``prepared``: units past phase one, by XID; ``chsync``: the channels' synchronisation
    records (and the XA marks kept beside them), by name."""

    def __init__(self, qm: UowHost) -> None:
        self.qm = qm
        self.prepared: dict[str, Prepared] = {}
        self.chsync: dict[str, dict[str, Any]] = {}
        self.numbered = 0           # the last transaction number given (dspmqtrn's 0,N)

    def set_chsync(self, conn: Conn, channel: str, rec: dict[str, Any]) -> None:
        """Record a channel's synchronisation state (durable once the caller syncs conn.ticket)."""
        self.chsync[channel] = rec
        conn.ticket = self.qm.store.append(SaveChsync(channel, json.dumps(rec)))

    def remove_messages(self, queue: str, seqs: list[int]) -> int:
        """Remove messages by their store numbers (an in-doubt channel batch resolved as committed)."""
        qs = self.qm.queues.get(queue)
        if qs is None:
            return 0
        wanted = set(seqs)
        gone = [m for m in qs if m.seq in wanted]
        for m in gone:
            qs.remove(m)
            qs.deq += 1
        self.qm.departures.gone_together(None, gone)
        return len(gone)

    def record(self, name: str) -> dict[str, Any]:
        """A copy of the synchronisation record ``name`` (empty when there is none)."""
        return dict(self.chsync.get(name, {}))

    def commit(self, conn: Conn, sync: tuple[str, dict[str, Any]] | None = None) -> None:
        """MQCMIT. ``sync``: a channel's (or agent's) synchronisation record, (name, record), which
        commits atomically with the unit and is kept only if the commit happens."""
        if conn.uow_failed:
            self.backout(conn)
            raise MQIError(C.MQRC_BACKED_OUT, detail="an asynchronous put in the unit of work failed")
        self._refuse_if_stalled(conn)
        ops: list[JournalOp] = [] if sync is None else [SaveChsync(sync[0], json.dumps(sync[1]))]
        touched: set[str] = set()
        if conn.shared_uow:
            self._commit_shared(conn)
        reports: list[tuple[Message, str, str]] = []
        self._commit_entries(local_entries(conn.uow), ops, touched, reports)
        if sync is not None:
            self.chsync[sync[0]] = sync[1]
        self._end_unit(conn, ops, touched)
        self._send_reports(conn, reports)

    def _refuse_if_stalled(self, conn: Conn) -> None:
        """MQCMIT or prepare of a unit with persistent work while the store cannot write: the unit
        is backed out (its puts were accepted when there was room; now none can be written)."""
        store = self.qm.store
        if store.stalled and any(m.persistent for kind, _q, m in conn.uow if kind[0] != "s"):
            self.backout(conn)
            raise MQIError(C.MQRC_BACKED_OUT, detail=f"the queue manager cannot write: {store.stalled}")

    def _send_reports(self, conn: Conn, reports: list[tuple[Message, str, str]]) -> None:
        """The COA and COD reports of a committed unit, after its journal operations (a report is
        never durable before the commit it confirms) and as durable as the commit's reply."""
        for msg, kind, queue in reports:
            self.qm.reports.send(conn, msg.md, msg.body, kind, queue=queue)

    def _end_unit(self, conn: Conn, ops: list[JournalOp], touched: set[str], detach: bool = True) -> None:
        """After a unit of work ended: the connection has none (``detach``), its journal operations
        are queued for the caller to make durable, and getters waiting on its queues are woken."""
        if detach:
            conn.uow = []
            conn.shared_uow = False
        if ops:
            conn.ticket = self.qm.store.extend(ops)
        for q in touched:
            self.qm.message_available(q)

    def _commit_entries(self, entries: list[LocalEntry], ops: list[JournalOp],
                        touched: set[str], reports: list[tuple[Message, str, str]]) -> None:
        """Make a unit's puts visible and its gets final, journalling the persistent ones; the
        reports they ask for go in ``reports`` (sent once the unit's operations are journalled)."""
        puts: dict[str, tuple[QueueState, list[Message]]] = {}
        for kind, qs, msg in entries:
            qs.uncommitted -= 1
            if kind == "put":
                if self.qm.queues.get(qs.name) is not qs:
                    continue
                puts.setdefault(qs.name, (qs, []))[1].append(msg)
                if msg.persistent:
                    ops.append(Arrivals.record(qs, msg))
                if msg.md.peek("Report") & C.MQRO_COA:
                    reports.append((msg, "coa", qs.name))
            else:
                if msg.persistent:
                    ops.append(Departures.record(msg))
                if msg.md.peek("Report") & C.MQRO_COD:
                    reports.append((msg, "cod", qs.name))
        for name, (qs, msgs) in puts.items():
            self.qm.arrivals.committed(qs, msgs)
            touched.add(name)

    def _commit_shared(self, conn: Conn) -> None:
        """The shared part of MQCMIT, first: its puts written and its gets deleted in one store
        transaction. If the store fails, the whole unit of work is backed out (2003)."""
        puts = [e for e in conn.uow if e[0] == "sput"]
        gets = [e for e in conn.uow if e[0] == "sget"]
        if not puts and not gets:
            return
        port = self.qm.shared
        assert port is not None
        try:
            self.qm.shared_call(port.commit, [e[2].new for e in puts],
                              [(e[2].row.id, e[1].name) for e in gets],
                              any(e[2].persistent for e in puts + gets))
        except MQIError as e:
            self.backout(conn)
            raise MQIError(C.MQRC_BACKED_OUT, detail=f"shared store: {e.detail or e.reason}") from None
        for _kind, qs, _m in puts:
            qs.uncommitted -= 1
            qs.enq += 1
        for name in {e[1].name for e in puts}:
            self.qm.message_available(name)

    def backout(self, conn: Conn) -> None:
        conn.uow_failed = False
        touched: set[str] = set()
        ops: list[JournalOp] = []
        shared_gets = [e[2].row.id for e in conn.uow if e[0] == "sget"] if conn.shared_uow else []
        if shared_gets and self.qm.shared is not None:
            try:
                self.qm.shared.finish([], shared_gets)
            except Exception as e:  # noqa: BLE001 - the claims come back when this member restarts
                self.qm.log(message("MQL7007E"), repr(e))
        self._backout_entries(conn.uow, ops, touched)
        self._end_unit(conn, ops, touched)

    def give_back(self, conn: Conn, msg: Message, raise_count: bool) -> bool:
        """One message the unit got, back on its queue before the unit ends (``raise_count``: its
        BackoutCount raised, as MQBACK raises it); the rest of the unit stays. False when the unit
        does not hold it."""
        uow = conn.uow
        for i in range(len(uow) - 1, -1, -1):
            if uow[i][2] is msg and uow[i][0] == "get":
                break
        else:
            return False
        _kind, qs, _m = uow.pop(i)
        ops: list[JournalOp] = []
        qs.uncommitted -= 1
        if self.qm.queues.get(qs.name) is qs:
            if raise_count:
                msg.md.BackoutCount += 1
                msg.touch()
                obj = self.qm.queue(qs.name)
                if msg.persistent and obj is not None and obj["HARDENBO"]:
                    ops.append(SetBackout(msg.seq, msg.md.BackoutCount))
            qs.insert(msg)
        self._end_unit(conn, ops, {qs.name}, detach=False)
        return True

    def discard_since(self, conn: Conn, mark: int) -> None:
        """Back out the entries the unit gained after its first ``mark`` (puts only: what one
        MQPUT added), leaving the rest of the unit as it was."""
        entries = conn.uow[mark:]
        del conn.uow[mark:]
        ops: list[JournalOp] = []
        self._backout_entries(entries, ops, set())
        assert not ops, "only puts are discarded"

    def _backout_entries(self, entries: Sequence[UowEntry], ops: list[JournalOp], touched: set[str]) -> None:
        """Discard a unit's puts and give its gets back, their BackoutCount raised (a shared
        queue's: the store has nothing of them yet, or gives its claims back: ``backout``)."""
        for e in reversed(entries):
            if e[0] == "sput":
                e[1].uncommitted -= 1
                continue
            if e[0] == "sget":
                continue
            kind, qs, msg = e
            qs.uncommitted -= 1
            if kind == "get" and self.qm.queues.get(qs.name) is qs:
                msg.md.BackoutCount += 1
                msg.touch()
                qs.insert(msg)
                touched.add(qs.name)
                obj = self.qm.queue(qs.name)
                if msg.persistent and obj is not None and obj["HARDENBO"]:
                    ops.append(SetBackout(msg.seq, msg.md.BackoutCount))

    # --- two-phase units of work (mqlite's XA-style extension) -----------------------------------
    def prepare(self, conn: Conn, xid: str) -> int:
        """Phase one: the connection's unit of work leaves the connection under ``xid`` and is kept,
        its persistent part durably, until :meth:`resolve_prepared` commits or backs it out (by
        this or any connection, an administrator's ``rsvmqtrn`` included); ending the connection or
        restarting the queue manager does not touch it. Returns the messages in the unit."""
        if not xid or len(xid) > 256 or not xid.isprintable():
            raise MQIError(C.MQRC_UOW_NOT_AVAILABLE, detail="an XID is 1 to 256 printable characters")
        if xid in self.prepared:
            raise MQIError(C.MQRC_UOW_IN_PROGRESS, detail=f"a unit of work {xid} is already prepared")
        if conn.shared_uow:
            raise MQIError(C.MQRC_FUNCTION_NOT_SUPPORTED, detail="shared-queue messages cannot be prepared")
        if conn.uow_failed:
            self.backout(conn)
            raise MQIError(C.MQRC_BACKED_OUT, detail="an asynchronous put in the unit of work failed")
        ended = next((p for p in (k[len(XA_END):] for k in self.chsync if k.startswith(XA_END))
                      if xid.startswith(p)), None)
        if ended is not None:
            # The transaction manager has already settled everything under this prefix (a Spark job
            # aborted while this task was still writing): nothing would ever resolve the unit.
            self.backout(conn)
            raise MQIError(C.MQRC_BACKED_OUT, detail=f"the units of work under {ended!r} were already resolved")
        self._refuse_if_stalled(conn)
        entries, conn.uow = local_entries(conn.uow), []     # (a unit with shared entries was refused above)
        now = self.qm.clock.now()
        self.numbered += 1
        self.prepared[xid] = Prepared(xid, now, entries, self.numbered)
        rows = [PreparedRow(kind, m.seq, qs.name, m.packed_md() if kind == "put" else None, m.body if kind == "put" else None,
                 m.expiry_at if kind == "put" else None) for kind, qs, m in entries if m.persistent]
        conn.ticket = self.qm.store.append(Prepare(xid, now, rows))
        return len(entries)

    def resolve_prepared(self, conn: Conn, commit: list[str], backout: list[str] | tuple[str, ...] = (),
                         backout_prefix: str = "", mark: tuple[str, int] | None = None,
                         end_prefix: bool = False, commit_prefix: str = "") -> dict[str, Any]:
        """Phase two, for several prepared units at once, in one store transaction: commit the XIDs
        of ``commit`` and every prepared unit whose XID starts with ``commit_prefix`` (a batch
        read's tasks), back out those of ``backout`` and every other prepared unit whose XID starts
        with ``backout_prefix`` (a writer's abandoned attempts). With ``mark`` = (name, batch) the
        commit happens only if no batch at or above ``batch`` was committed under ``name`` before
        (then the units are backed out instead: a replayed batch puts nothing twice), and the batch
        is recorded with it. With ``end_prefix`` the prefix (``backout_prefix``, else
        ``commit_prefix``) is closed, durably: a later prepare under it is backed out (2003), so a
        straggler of a finished job leaves nothing in doubt. An unknown XID is 2255 and changes
        nothing."""
        unknown = [x for x in list(commit) + list(backout) if x not in self.prepared]
        if unknown:
            raise MQIError(C.MQRC_UOW_NOT_AVAILABLE, detail=f"no prepared unit of work {unknown[0]}")
        if commit_prefix:
            named = set(commit) | set(backout)
            commit = list(commit) + [x for x in self.prepared if x.startswith(commit_prefix) and x not in named]
        outcome = "committed"
        ops: list[JournalOp] = []
        if end_prefix and (backout_prefix or commit_prefix):
            ops += self._end_prefix(backout_prefix or commit_prefix)
        if mark is not None:
            key = f"XA:{mark[0]}"
            done = self.chsync.get(key, {}).get("batch", -1)
            if done >= mark[1]:
                outcome = "duplicate"
                backout, commit = list(backout) + list(commit), []
            else:
                self.chsync[key] = {"batch": mark[1]}
                ops.append(SaveChsync(key, json.dumps(self.chsync[key])))
        if backout_prefix:
            chosen = set(commit) | set(backout)
            backout = list(backout) + [x for x in self.prepared if x.startswith(backout_prefix) and x not in chosen]
        touched: set[str] = set()
        reports: list[tuple[Message, str, str]] = []
        for xid in commit:
            self._commit_entries(self.prepared.pop(xid).entries, ops, touched, reports)
            ops.append(Resolve(xid))
        for xid in backout:
            self._backout_entries(self.prepared.pop(xid).entries, ops, touched)
            ops.append(Resolve(xid))
        self._end_unit(conn, ops, touched, detach=False)
        self._send_reports(conn, reports)
        return {"outcome": outcome, "committed": len(commit), "backed_out": len(backout)}

    def _end_prefix(self, prefix: str) -> list[JournalOp]:
        """Close an XID prefix (journal operations for it); closed prefixes are forgotten after
        XA_END_DAYS, long after any task of the job can still be running."""
        now = self.qm.clock.now()
        ops: list[JournalOp] = []
        for key in [k for k, rec in self.chsync.items() if k.startswith(XA_END)
                    and now - rec.get("at", now) > XA_END_DAYS * 86400]:
            del self.chsync[key]
            ops.append(DropChsync(key))
        self.chsync[XA_END + prefix] = {"at": now}
        ops.append(SaveChsync(XA_END + prefix, json.dumps(self.chsync[XA_END + prefix])))
        return ops

    def number_recovered(self) -> None:
        """Units recovered at a start are numbered in the order they were prepared; units
        prepared later take the numbers after them."""
        for unit in sorted(self.prepared.values(), key=lambda u: u.at):
            self.numbered += 1
            unit.number = self.numbered

    def prepared_units(self) -> list[dict[str, Any]]:
        """The units of work in doubt (prepared, not resolved), oldest first: dspmqtrn. Each has
        its transaction number (``number``: given when it was prepared, or when the queue
        manager recovered it, and never reused or changed while the queue manager runs, so the
        number an operator read names the same unit however many were resolved since)."""
        out = []
        for unit in sorted(self.prepared.values(), key=lambda u: u.number):
            out.append({"xid": unit.xid, "number": unit.number, "at": unit.at,
                        "puts": sum(1 for e in unit.entries if e[0] == "put"),
                        "gets": sum(1 for e in unit.entries if e[0] == "get"),
                        "queues": sorted({qs.name for _k, qs, _m in unit.entries})})
        return out
