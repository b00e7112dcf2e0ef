"""What the agents that run beside the engine get from the process that runs them.

The channel manager and its MCAs, the command server, the repository manager and the
queue-sharing group's service and IGQ agent are each given a ``Host`` when they are made (the
server is one); none of them imports the server. Everything on it is shared with the server's own
MQI sessions: one engine, one lock that serialises it, one journal, one error log.
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

from mqlite.engine.ports import Journal

if TYPE_CHECKING:
    from mqlite.engine.qmgr import QueueManager


class ErrorLogPort(Protocol):
    def write(self, msgid: str, text: str, explanation: str = "") -> None: ...


class Host(Protocol):
    name: str                               # the queue manager's name
    qm: "QueueManager"                      # the engine; call it only holding ``lock``
    lock: threading.RLock                   # serialises the engine (re-entrant)
    store: Journal                          # the journal: ``sync(ticket)`` outside the lock
    log: ErrorLogPort                       # the queue manager's error log (AMQERR01.LOG)
    conds: dict[str, threading.Condition]   # waits for messages, by queue name (on ``lock``)

    def cond_for(self, queue: str) -> threading.Condition: ...
