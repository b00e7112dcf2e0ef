"""The command server: PCF (and MQSC in escape PCF) arriving on SYSTEM.ADMIN.COMMAND.QUEUE.

The agent that feeds the administration package (``mqlite.admin``): it gets each request under
the engine's lock, hands it to ``admin.dispatch`` (the command table, authority, the handlers) and
puts MQ's response messages on the request's ReplyToQ/ReplyToQMgr — an MQCFH of type
MQCFT_RESPONSE per object, MQCFC_LAST on the last one, CompCode and Reason (MQRC_* or MQRCCF_*).
"""
from __future__ import annotations

import threading

from mqlite.admin.context import Admin
from mqlite.admin.dispatch import Reply, dispatch
from mqlite.catalogue import entry
from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.cmq import pcf
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import GMO, MD, OD, PMO, pad, text
from mqlite.engine.host import Host
from mqlite.mqsc.commands import Executor

COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"
REPLY_BATCH = 32                    # replies put under one hold of the queue manager's lock


class CommandServer(threading.Thread):
    def __init__(self, srv: Host, executor: Executor) -> None:
        super().__init__(name="command-server", daemon=True)
        self.srv = srv
        self.qm = srv.qm
        self.admin = Admin(srv.qm, executor)
        self.stop_event = threading.Event()

    # --- the loop ----------------------------------------------------------------------------
    def run(self) -> None:
        srv, qm = self.srv, self.qm
        with srv.lock:
            self.conn = qm.connect("amqpcsea", C.MQAT_QMGR, "mqm")
            try:
                self.hobj = qm.open(self.conn, OD(ObjectName=COMMAND_QUEUE.encode()), C.MQOO_INPUT_SHARED).hobj
            except MQIError as e:
                srv.log.write(*entry("MQL0010E", command_queue=COMMAND_QUEUE, reason=e.reason))
                return
        while not self.stop_event.is_set():
            with srv.lock:
                try:
                    r = qm.get(self.conn, self.hobj, MD(), GMO(), 100 * 1024 * 1024)
                except MQIError as e:
                    if e.reason == C.MQRC_NO_MSG_AVAILABLE:
                        srv.cond_for(COMMAND_QUEUE).wait(0.5)
                        continue
                    srv.log.write(*entry("MQL0011E", reason=e.reason))
                    self.stop_event.wait(1)
                    continue
                ticket = self.conn.ticket
            if ticket:
                srv.store.sync(ticket)
            self.serve(r.md, r.body)

    def stop(self) -> None:
        self.stop_event.set()

    def serve(self, md: MD, body: bytes) -> None:
        with self.srv.lock:
            command, replies = dispatch(self.admin, md, body, self.srv.log.write)
        self.reply(md, command, replies)

    def reply(self, req: MD, command: int, replies: list[Reply]) -> None:
        """The replies, put to the reply queue opened once, REPLY_BATCH at a time with the queue
        manager's lock let go between batches: the requester reads the first while the rest are
        put (a 1,000-object inquiry's first answer came only after all of them, each put1 resolving
        the queue's name again)."""
        rq = text(req.ReplyToQ)
        if not rq:
            return
        srv, qm = self.srv, self.qm
        correl = req.CorrelId if req.Report & C.MQRO_PASS_CORREL_ID else req.MsgId
        od = OD(ObjectName=pad(rq, 48), ObjectQMgrName=req.ReplyToQMgr)
        with srv.lock:
            try:
                hobj = qm.open(self.conn, od, C.MQOO_OUTPUT).hobj
            except MQIError as e:
                srv.log.write(*entry("MQL0013W", rq=rq, reason=e.reason))
                return
        pmo = PMO(Options=C.MQPMO_NO_SYNCPOINT)
        try:
            for start in range(0, len(replies), REPLY_BATCH):
                with srv.lock:
                    for i, (comp, reason, params) in enumerate(replies[start:start + REPLY_BATCH], start + 1):
                        header = pcf.Header(type=F.MQCFT_RESPONSE, command=command, msg_seq_number=i,
                                            control=F.MQCFC_LAST if i == len(replies) else F.MQCFC_NOT_LAST,
                                            comp_code=comp, reason=reason)
                        md = MD(MsgType=C.MQMT_REPLY, Format=C.MQFMT_ADMIN, CorrelId=correl, Persistence=req.Persistence,
                                Priority=req.Priority if req.Priority >= 0 else -1,
                                Expiry=req.Expiry if req.Report & C.MQRO_PASS_DISCARD_AND_EXPIRY else -1)
                        try:
                            qm.put(self.conn, hobj, md, pmo, pcf.encode(header, params))
                        except MQIError as e:
                            srv.log.write(*entry("MQL0013W", rq=rq, reason=e.reason))
                            return
                    ticket = self.conn.ticket
                if ticket:
                    srv.store.sync(ticket)
        finally:
            with srv.lock:
                try:
                    qm.close(self.conn, hobj)
                except MQIError:
                    pass                        # (a temporary reply queue its owner closed: gone with it)
