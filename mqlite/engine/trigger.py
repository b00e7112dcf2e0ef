"""Triggering: a trigger message (MQTM) on a queue's initiation queue when MQ's trigger conditions
hold, for a trigger monitor (``mqlite runmqtrm``) to start the application the queue's PROCESS
names.

MQ's conditions, each a line of ``trigger_due``: the queue is a local queue with TRIGGER and a
TRIGTYPE other than NONE; GET is enabled; INITQ names a local queue that some application (the
trigger monitor) has open for input; PROCESS names a process definition; there are messages of
TRIGMPRI or higher priority; and by TRIGTYPE:

- FIRST: no application has the queue open for input, and no trigger message is outstanding for
  it. One is outstanding from when it is written until an application opens the queue for input,
  or until TRIGINT (the queue manager's) has passed, when the next message triggers again.
  An application that closes the queue while such messages remain makes the condition hold again
  (MQ's trigger on MQCLOSE).
- EVERY: every time messages arrive (a put outside syncpoint, or a commit).
- DEPTH: TRIGDPTH such messages or more; the queue manager then sets NOTRIGGER on the queue, as
  MQ does, and the application sets TRIGGER again when it has dealt with them.

A trigger message is put to the initiation queue by the queue manager, outside syncpoint, with
MQ's MQTM layout; one that cannot be put is lost (as MQ's), and never fails the application's
operation."""
from __future__ import annotations

import struct
from typing import Any

from mqlite.cmq import CMQC as C
from mqlite.cmq.errors import MQIError
from mqlite.cmq.structs import MD, OD, PMO, pad

TM_LEN = 684


def pack_mqtm(qname: str, process: Any, trigdata: str) -> bytes:
    """MQTM, version 1: StrucId, Version, QName, ProcessName, TriggerData, ApplType, ApplId,
    EnvData, UserData (684 bytes, native integers)."""
    strings: tuple[str, str, str] = (process["APPLICID"], process["ENVRDATA"], process["USERDATA"])
    return (b"TM  " + struct.pack("=i", C.MQTM_VERSION_1) + pad(qname, 48) + pad(process.name, 48)
            + pad(trigdata, 64) + struct.pack("=i", int(process["APPLTYPE"])) + pad(strings[0], 256)
            + pad(strings[1], 128) + pad(strings[2], 128))


def unpack_mqtm(data: bytes) -> dict[str, Any]:
    """The fields of an MQTM (what a trigger monitor reads)."""
    if len(data) < TM_LEN or data[:4] != b"TM  ":
        raise ValueError("not an MQTM")
    def text(a: int, b: int) -> str:
        return data[a:b].decode(errors="replace").rstrip(" \0")
    return {"QName": text(8, 56), "ProcessName": text(56, 104), "TriggerData": text(104, 168),
            "ApplType": struct.unpack_from("=i", data, 168)[0], "ApplId": text(172, 428),
            "EnvData": text(428, 556), "UserData": text(556, 684)}


def mqtmc2(tm: dict[str, Any], qmgr: str) -> str:
    """MQTMC2, the character form a trigger monitor passes to the application: StrucId 'TMC ',
    Version '   2', the MQTM's strings, ApplType as four characters, and the queue manager's name."""
    def field(value: Any, width: int) -> str:
        return str(value)[:width].ljust(width)
    return ("TMC " + "   2" + field(tm["QName"], 48) + field(tm["ProcessName"], 48) + field(tm["TriggerData"], 64)
            + str(tm["ApplType"]).rjust(4) + field(tm["ApplId"], 256) + field(tm["EnvData"], 128)
            + field(tm["UserData"], 128) + field(qmgr, 48))


def eligible_depth(qs: Any, min_priority: int) -> int:
    """Messages on the queue of ``min_priority`` or higher (all of them for 0)."""
    if min_priority <= 0:
        return int(qs.visible)
    return sum(1 for m in qs if m.md.peek("Priority") >= min_priority)


def trigger_due(qdef: Any, qs: Any, initq: Any, initq_state: Any, process: Any, now: float, trigint: int) -> bool:
    """MQ's trigger conditions for ``qdef`` (its QueueState ``qs``) at ``now``."""
    if qdef is None or qdef.kind != "QLOCAL" or not qdef["TRIGGER"] or qdef["TRIGTYPE"] == C.MQTT_NONE:
        return False
    if qdef["GET"] != C.MQQA_GET_ALLOWED:
        return False
    if initq is None or initq.kind != "QLOCAL" or initq_state is None:
        return False
    if not (initq_state.input_shared or initq_state.input_exclusive):
        return False                          # no trigger monitor has the initiation queue open
    if process is None:
        return False
    depth = eligible_depth(qs, qdef["TRIGMPRI"])
    if depth < 1:
        return False
    kind = qdef["TRIGTYPE"]
    if kind == C.MQTT_EVERY:
        return True
    if kind == C.MQTT_DEPTH:
        return bool(depth >= qdef["TRIGDPTH"])
    # FIRST
    if qs.input_shared or qs.input_exclusive:
        return False
    return bool(qs.trig_sent is None or now - qs.trig_sent >= trigint)


class Triggers:
    """The queue manager's trigger messages: ``available`` after messages arrive on a queue,
    ``closed`` after an application closes one it had open for input."""

    def __init__(self, qm: Any) -> None:
        self.qm = qm
        self.agent: Any = None

    def available(self, queue: str) -> None:
        qm = self.qm
        qs = qm.queues.get(queue)
        if qs is None or qs.shared:
            return
        qdef = qm.queue(queue)
        if qdef is None or not qdef.attrs.get("TRIGGER"):
            return                                # the common case: one lookup and out
        initq_name = qdef["INITQ"]
        initq = qm.queue(initq_name) if initq_name else None
        process = qm.lookup("PROCESS", qdef["PROCESS"]) if qdef["PROCESS"] else None
        now = qm.clock.now()
        if not trigger_due(qdef, qs, initq, qm.queues.get(initq_name), process, now, qm.qmgr["TRIGINT"]):
            return
        if not self._put(initq_name, pack_mqtm(queue, process, qdef["TRIGDATA"])):
            return
        if qdef["TRIGTYPE"] == C.MQTT_FIRST:
            qs.trig_sent = now
        elif qdef["TRIGTYPE"] == C.MQTT_DEPTH:
            qdef.attrs["TRIGGER"] = 0             # MQ sets NOTRIGGER after a depth trigger
            qm.save(qdef)

    def closed(self, qs: Any) -> None:
        """The last handle open for input on ``qs`` closed and messages remain: a FIRST queue's
        conditions are looked at again (MQ's trigger on MQCLOSE)."""
        qdef = self.qm.queue(qs.name)
        if qdef is not None and qdef.attrs.get("TRIGGER") and qdef["TRIGTYPE"] == C.MQTT_FIRST:
            qs.trig_sent = None
            self.available(qs.name)

    def _put(self, initq: str, tm: bytes) -> bool:
        qm = self.qm
        md = MD(Format=C.MQFMT_TRIGGER, MsgType=C.MQMT_DATAGRAM, Persistence=C.MQPER_NOT_PERSISTENT)
        try:
            if self.agent is None:
                self.agent = qm.connect("runmqtrm", C.MQAT_QMGR, "mqm")
                self.agent.unmeasured = True
            qm.put1(self.agent, OD(ObjectName=pad(initq, 48)), md, PMO(Options=C.MQPMO_NO_SYNCPOINT), tm)
        except MQIError:
            return False
        return True
