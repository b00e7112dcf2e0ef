"""The intra-group queuing agent: delivers what SYSTEM.QSG.TRANSMIT.QUEUE holds for this member.

One agent per queue manager, started with it and ended with it.  It is an MQI application of the
queue manager (MQAT_QMGR): each message is put to its destination with MQPUT and full name
resolution, so a message for a queue that is not here hops on (another member through IGQ, or a
channel).

A batch: read up to ``BATCH`` messages for this member from the shared store; put the persistent
ones inside one local unit of work, the nonpersistent ones outside syncpoint; commit locally,
recording the batch's message ids in the same transaction (a synchronisation record, as a channel
keeps); make that durable; delete the batch from the shared store in the transaction that reads the
next one.  After a failure between the last two steps the restarted member reads those messages
again, finds their ids in its record and deletes them instead of delivering them twice.  Messages
are not claimed while they are delivered: only this member's agent takes messages addressed to it.

Undeliverable messages go to the dead-letter queue behind an MQDLH.  When that is impossible,
nonpersistent messages are discarded and persistent ones stay on the shared transmission queue and
are tried again every ``RETRY`` seconds until they are delivered.
"""
from __future__ import annotations

import queue
import threading
import time
from typing import Any, Callable

from mqlite.catalogue import entry
from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.headers import XQH_LEN, XQH_REMOTE_Q, XQH_REMOTE_QM, original_md
from mqlite.cmq.structs import MD, OD, text
from mqlite.engine.core import Conn, Handle
from mqlite.engine.deadletter import dead_letter
from mqlite.engine.host import Host
from mqlite.engine.shared import QSG_XMITQ
from mqlite.store.shared import Row, SharedStore, open_shared

BATCH = 250
RETRY = 5.0
SYNC_KEY = "SYSTEM.QSG.IGQ"


class IGQAgent:
    def __init__(self, srv: Host, store: SharedStore) -> None:
        self.srv = srv
        self.store = store
        self.stop_event = threading.Event()
        self.thread: threading.Thread | None = None
        self.deleter = open_shared(store.qsg, store.location)   # its own connection
        self.to_delete: queue.Queue[Any] = queue.Queue()
        self.deleted = threading.Event()
        self.deleted.set()
        self.inflight: list[int] = []        # ids of the batch being deleted
        self.delete_thread: threading.Thread | None = None
        self.refresh: Callable[[], None] | None = None   # re-read the group's definitions (QSGService)
        self.conn: Conn | None = None
        self.handles: dict[tuple[bytes, bytes], Handle] = {}
        self.parked: list[tuple[float, list[int]]] = []    # persistent messages waiting to be retried
        self.delivered = 0
        self.dead_lettered = 0
        self.discarded = 0
        self.batches = 0

    def start(self) -> None:
        srv = self.srv
        with srv.lock:
            self.conn = srv.qm.connect("IGQ agent", C.MQAT_QMGR, "")
        self.thread = threading.Thread(target=self._run, name="igq-agent", daemon=True)
        self.thread.start()
        self.delete_thread = threading.Thread(target=self._delete_loop, name="igq-delete", daemon=True)
        self.delete_thread.start()
        srv.log.write(*entry("MQL7010I", name=srv.name))

    def stop(self) -> None:
        self.stop_event.set()
        with self.srv.lock:
            cond = self.srv.cond_for(QSG_XMITQ)
            cond.notify_all()
        if self.thread is not None:
            self.thread.join(10)
        if self.delete_thread is not None:
            self.delete_thread.join(10)
        self.deleter.close()
        with self.srv.lock:
            if self.conn is not None and self.conn.hconn in self.srv.qm.conns:
                self.srv.qm.disconnect(self.conn, commit=False)
        self.srv.log.write(*entry("MQL7015I", name=self.srv.name),
                           f"Delivered {self.delivered} messages in {self.batches} batches, dead-lettered"
                           f" {self.dead_lettered}, discarded {self.discarded}.")

    # --- the loop ------------------------------------------------------------------------------------
    def _run(self) -> None:
        srv = self.srv
        # What the last run recorded as delivered may still be on SYSTEM.QSG.TRANSMIT.QUEUE (its
        # deletion was cut short): delete it before anything else. A batch record holds up to two
        # batches, and the next record written replaces it, so those ids must be gone by then or
        # the rest of them would be delivered a second time.
        leftover = [(int(i), QSG_XMITQ) for i in srv.qm.uow.record(SYNC_KEY).get("ids", ())]
        while leftover and not self.stop_event.is_set():
            try:
                self.deleter.finish(leftover, [], durable=True)
                leftover = []
            except Exception as e:  # noqa: BLE001 - the store is unreachable: wait and try again
                srv.log.write(*entry("MQL7016E"), repr(e))
                self.stop_event.wait(2.0)
        while not self.stop_event.is_set():
            try:
                self._release_due()
                limit = max(1, min(BATCH, srv.qm.qmgr["MAXUMSGS"]))   # a batch is one unit of work
                rows = self.store.read_batch(QSG_XMITQ, srv.name, limit, srv.qm.clock.now(),
                                             self.parked_ids | set(self.inflight))
            except Exception as e:  # noqa: BLE001 - the store is unreachable: wait and try again
                srv.log.write(*entry("MQL7011E"), repr(e))
                self.stop_event.wait(2.0)
                continue
            if not rows:
                with srv.lock:
                    if not self.stop_event.is_set():
                        srv.cond_for(QSG_XMITQ).wait(0.25)
                continue
            self.batches += 1
            try:
                done, durable = self._deliver(rows)
            except Exception as e:  # noqa: BLE001 - give the batch back and carry on
                srv.log.write(*entry("MQL7012E"), repr(e))
                with srv.lock:
                    if self.conn is not None:
                        srv.qm.backout(self.conn)
                self.stop_event.wait(1.0)
                continue
            # One deletion at a time: the batch record names this batch and the one being deleted.
            while not self.deleted.wait(0.5):
                if self.stop_event.is_set():
                    break        # the deleter gave up: the batch record covers both batches
            self.deleted.clear()
            self.inflight = [i for i, _q in done]
            self.to_delete.put((done, durable))
        self.to_delete.put(None)

    def _delete_loop(self) -> None:
        """Delete delivered batches from the shared store (on a connection of its own, so the next
        batch is read and delivered meanwhile)."""
        while True:
            item = self.to_delete.get()
            if item is None:
                return
            done, durable = item
            while True:
                try:
                    self.deleter.finish(done, [], durable=durable)
                    break
                except Exception as e:  # noqa: BLE001 - keep the batch until the store takes it
                    self.srv.log.write(*entry("MQL7016E"), repr(e))
                    if self.stop_event.wait(2.0):
                        return     # the batch record deletes them at the next start
            self.inflight = []
            self.deleted.set()

    @property
    def parked_ids(self) -> set[int]:
        return {i for _t, ids in self.parked for i in ids}

    def _release_due(self) -> None:
        """Persistent messages that could not be delivered are tried again after ``RETRY``."""
        now = time.monotonic()
        self.parked = [(t, ids) for t, ids in self.parked if t > now]

    def _deliver(self, rows: list[Row]) -> tuple[list[tuple[int, str]], bool]:
        """Deliver a claimed batch and make it durable here; returns what to delete from the shared
        store (and whether that deletion must be forced to disk)."""
        srv, qm, conn = self.srv, self.srv.qm, self.conn
        assert conn is not None
        done_before = set(qm.uow.record(SYNC_KEY).get("ids", ()))
        deleting = list(self.inflight)
        finished: list[int] = []
        retry: list[int] = []
        for row in rows:
            if row.id in done_before:
                finished.append(row.id)      # delivered before a failure; only its deletion was lost
                continue
            md_bytes = original_md(row.md, row.body)
            data = row.body[XQH_LEN:]
            raw_q, raw_qm = row.body[XQH_REMOTE_Q], row.body[XQH_REMOTE_QM]
            reason = self._put(raw_q, raw_qm, md_bytes, data, row.persistent)
            if reason == C.MQRC_UNKNOWN_OBJECT_NAME and self.refresh is not None:
                # Perhaps a shared or group definition this member has not noticed yet.
                self.refresh()
                reason = self._put(raw_q, raw_qm, md_bytes, data, row.persistent)
            if not reason:
                finished.append(row.id)
                self.delivered += 1
                continue
            with srv.lock:
                why = dead_letter(srv.qm, conn, self._handle, MD.from_bytes(md_bytes), data, text(raw_q),
                                  text(raw_qm), reason, row.persistent, True, "the IGQ agent")
            if not why:
                finished.append(row.id)
                self.dead_lettered += 1
            elif row.persistent:
                retry.append(row.id)
                srv.log.write(*entry("MQL7013W", retry=RETRY), why)
            else:
                finished.append(row.id)
                self.discarded += 1
                srv.log.write(*entry("MQL7014W"), why)
        persistent = {r.id for r in rows if r.persistent}
        with srv.lock:
            if persistent:
                rec = {"ids": finished + deleting}
                qm.commit(conn, sync=(SYNC_KEY, rec))
            else:
                # Nonpersistent only: nothing to record (ids never repeat, so an older record
                # cannot match a later message), nothing to force to disk.
                qm.commit(conn)
            ticket = conn.ticket
            conn.ticket = 0
        if ticket:
            srv.store.sync(ticket)
        if retry:
            self.parked.append((time.monotonic() + RETRY, retry))
        return [(i, QSG_XMITQ) for i in finished], any(i in persistent for i in finished)

    def _put(self, raw_q: bytes, raw_qm: bytes, md_bytes: bytes, data: bytes, persistent: bool) -> int:
        """Put one message to its destination; the reason code, 0 when it is there."""
        reason = 0
        with self.srv.lock:
            for _attempt in (1, 2):
                try:
                    h = self._handle(raw_q, raw_qm)
                    self.srv.qm.put_packed(self.conn, h.hobj, md_bytes, data, persistent)  # type: ignore[arg-type]
                    return 0
                except MQIError as e:
                    # A cached handle may be stale (its queue redefined): open afresh once.
                    reason = e.reason
                    if self._forget(raw_q, raw_qm) is None:
                        break
        return reason

    def _handle(self, q: bytes, qmgr: bytes) -> Handle:
        conn = self.conn
        assert conn is not None
        h = self.handles.get((q, qmgr))
        if h is not None and h.hobj in conn.handles:
            return h
        od = OD(ObjectName=q, ObjectQMgrName=qmgr)
        h = self.srv.qm.open(conn, od, C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT)
        self.handles[(q, qmgr)] = h
        return h

    def _forget(self, q: bytes, qmgr: bytes) -> Handle | None:
        h = self.handles.pop((q, qmgr), None)
        if h is not None and self.conn is not None and h.hobj in self.conn.handles:
            try:
                self.srv.qm.close(self.conn, h.hobj)
            except MQIError:
                pass
        return h
