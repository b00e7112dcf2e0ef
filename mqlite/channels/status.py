"""A channel's status (DISPLAY CHSTATUS) and the error that ends a channel session.

A status belongs to a channel instance while it runs (and to a STOPPED channel until START
CHANNEL). Its state changes only through ``set``, which also moves its channel manager's
generation, so that the workload algorithm knows when the channel states it decided on changed.
"""
from __future__ import annotations

import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from mqlite.cmq import CMQC as C
from mqlite.cmq import CMQCFC as F
from mqlite.engine.clock import mq_date_time
from mqlite.net import protocol as P

SENDING = ("SDR", "SVR", "CLUSSDR")
RECEIVING = ("RCVR", "RQSTR", "CLUSRCVR")
ACTIVE = ("RUNNING", "PAUSED")              # the states in which a channel instance moves messages
# Told of every state change: (the status, the state before, the state now).
Observer = Callable[["ChannelStatus", str, str], None]


def channel_event(old: str, new: str, by_user: bool, error: str) -> tuple[int, int] | None:
    """MQ's channel events (CHLEV) for a state change, as (reason, ReasonQualifier): Channel
    Started when an instance starts moving messages; when it stops, Channel Stopped By User after
    STOP CHANNEL, else Channel Stopped: OK (ended normally, DISCINT), RETRY (an error, the channel
    will retry), ERROR (an error, no retry), DISABLED (a channel that was starting stopped with
    an error: no retries left, or an error that allows none). None: no event."""
    if new == "RUNNING" and old not in ACTIVE:
        return C.MQRC_CHANNEL_STARTED, 0
    if old in ACTIVE and new not in ACTIVE:
        if by_user:
            return C.MQRC_CHANNEL_STOPPED_BY_USER, F.MQRQ_CHANNEL_STOPPED_DISABLED
        if new == "RETRYING":
            return C.MQRC_CHANNEL_STOPPED, F.MQRQ_CHANNEL_STOPPED_RETRY
        if new == "STOPPED" or error:
            return C.MQRC_CHANNEL_STOPPED, F.MQRQ_CHANNEL_STOPPED_ERROR
        return C.MQRC_CHANNEL_STOPPED, F.MQRQ_CHANNEL_STOPPED_OK
    if new == "STOPPED" and error and not by_user:
        return C.MQRC_CHANNEL_STOPPED, F.MQRQ_CHANNEL_STOPPED_DISABLED     # it stopped trying to start
    return None


class Link(Protocol):
    """A connection a listener accepted that turned out to be a channel (the server's session)."""
    sock: socket.socket
    reader: P.FrameReader | None
    peer: str                       # the partner's address, as CONNAME shows it

    def kill(self) -> None: ...


class ChannelError(Exception):
    """The channel cannot go on: the message (its id and text, mqlite/catalogue.py), what
    happened in this instance (``detail``, for the error log's explanation) and whether it stops."""

    def __init__(self, msgid: str, text: str, detail: str = "", stop: bool = False) -> None:
        super().__init__(f"{msgid}: {text}" + (f" {detail}" if detail else ""))
        self.msgid = msgid
        self.text = text
        self.detail = detail
        self.stop = stop          # True: the channel goes STOPPED instead of retrying


@dataclass(slots=True)
class BatchFigures:
    """A sending channel's batches since the last statistics interval (STATCHL): how many were
    full (BATCHSZ messages) and how many were not, the messages in them, and the network time of
    the confirmed ones (from the end of the batch sent to its confirmation, in microseconds)."""
    full: int = 0
    incomplete: int = 0
    msgs: int = 0
    net_min: int = 0
    net_max: int = 0
    net_sum: int = 0
    net_n: int = 0

    def batch(self, size: int, batchsz: int, net_us: int | None = None) -> None:
        if size >= batchsz:
            self.full += 1
        else:
            self.incomplete += 1
        self.msgs += size
        if net_us is not None:
            self.net_n += 1
            self.net_sum += net_us
            if self.net_n == 1 or net_us < self.net_min:
                self.net_min = net_us
            if net_us > self.net_max:
                self.net_max = net_us


@dataclass
class ChannelStatus:
    name: str
    chltype: str
    state: str = "INACTIVE"
    substate: str = ""
    conname: str = ""
    rqmname: str = ""
    xmitq: str = ""
    msgs: int = 0
    bytes: int = 0                # message data sent or received (channel statistics' Bytes)
    batches: int = 0
    curseqno: int = 0
    lstseqno: int = 0
    lstluwid: str = ""
    indoubt: bool = False
    short_left: int = 0
    long_left: int = 0
    started: float = field(default_factory=time.time)
    last_msg: float = 0.0
    error: str = ""               # the AMQ message of the error that ended the instance, if one did
    by_user: bool = False         # STOP CHANNEL is ending it
    figures: BatchFigures = field(default_factory=BatchFigures)   # taken by each statistics interval

    # Shared by the statuses of one channel manager: grows whenever any of them changes state.
    changes: list[int] = field(default_factory=lambda: [0], repr=False, compare=False)
    # Shared too: told of each change (the channel manager's, for channel events).
    observers: list[Observer] = field(default_factory=list, repr=False, compare=False)

    def set(self, state: str, substate: str | None = None) -> None:
        """Change the state (and the substate, when given): the only way the state changes."""
        if state != self.state:
            self.changes[0] += 1
            old, self.state = self.state, state
            for observe in self.observers:
                observe(self, old, state)
        if substate is not None:
            self.substate = substate

    def display(self) -> dict[str, Any]:
        started = mq_date_time(self.started)
        last = mq_date_time(self.last_msg) if self.last_msg else ("", "")
        return {"CHANNEL": self.name, "CHLTYPE": self.chltype, "CONNAME": self.conname, "CURRENT": None,
                "RQMNAME": self.rqmname, "STATUS": self.state, "SUBSTATE": self.substate or " ",
                "XMITQ": self.xmitq, "MSGS": self.msgs, "BATCHES": self.batches, "CURSEQNO": self.curseqno,
                "LSTSEQNO": self.lstseqno, "LSTLUWID": self.lstluwid or "0000000000000000",
                "INDOUBT": "YES" if self.indoubt else "NO", "SHORTRTS": self.short_left,
                "LONGRTS": self.long_left, "MCASTAT": "RUNNING" if self.state == "RUNNING" else "STOPPED",
                "CHSTADA": started[0], "CHSTATI": started[1], "LSTMSGDA": last[0], "LSTMSGTI": last[1]}


class StatusTable(dict[str, ChannelStatus]):
    """A channel manager's statuses by channel. A channel with no status is INACTIVE, so adding or
    removing one is a state change as much as ``ChannelStatus.set``: both move the shared counter
    that the workload algorithm reads (``changes``)."""

    def __init__(self) -> None:
        super().__init__()
        self.changes = [0]
        self.observers: list[Observer] = []

    def __setitem__(self, name: str, status: ChannelStatus) -> None:
        replaced = self.get(name)
        super().__setitem__(name, status)
        self.changes[0] += 1
        if replaced is not None and replaced is not status:
            replaced.set("INACTIVE")        # (STOP CHANNEL's STOPPED status replaces a running one)
        self._told(status, "INACTIVE", status.state)

    def __delitem__(self, name: str) -> None:
        status = self[name]
        super().__delitem__(name)
        self.changes[0] += 1
        self._told(status, status.state, "INACTIVE")

    def pop(self, name: str, *default: Any) -> Any:  # type: ignore[override]
        status = self.get(name)
        if status is not None:
            self.changes[0] += 1
        out = super().pop(name, *default)
        if status is not None:
            self._told(status, status.state, "INACTIVE")
        return out

    def _told(self, status: ChannelStatus, old: str, new: str) -> None:
        if old != new:
            for observe in self.observers:
                observe(status, old, new)
