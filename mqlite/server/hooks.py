"""What the server does with the engine's reports (``engine/hooks.py``)."""
from __future__ import annotations

from typing import Any

from mqlite.channels.manager import ChannelManager
from mqlite.engine.hooks import Hooks
from mqlite.server.errlog import ErrorLog
from mqlite.server.listener import Listener
from mqlite.server.repman import RepositoryManager
from mqlite.server.waits import QueueCondition


class ServerHooks(Hooks):
    """What the server does with the engine's reports (engine/hooks.py), engine lock held: wake
    the MQGETs waiting on a queue, note the sender channels that have work (the channel
    initiator starts them on its own thread), poke the repository manager, write the error log."""

    def __init__(self, conds: dict[str, QueueCondition], channels: ChannelManager,
                 repman: RepositoryManager, errlog: ErrorLog, listeners: dict[str, Listener]) -> None:
        self.conds = conds
        self.channels = channels
        self.repman = repman
        self.errlog = errlog
        self.listeners = listeners

    def available(self, queue: str) -> None:
        cond = self.conds.get(queue)
        if cond is not None:
            cond.wake()
        self.channels.xmitq_message(queue)

    def channel_wanted(self, channel: str) -> None:
        self.channels.want(channel)

    def object_changed(self, obj: Any, ns: str, name: str) -> None:
        self.repman.poke()

    def log(self, text: str, explanation: str = "") -> None:
        msgid, _sep, rest = text.partition(": ")      # (every line begins with its id: mqlite/catalogue.py)
        self.errlog.write(msgid, rest, explanation)

    def channel_state(self, channel: str) -> str:
        return self.channels.state(channel)

    def channel_generation(self) -> int:
        return self.channels.generation()

    def xmitq_correl(self, xmitq: str, remote_qm: str) -> bytes | None:
        for svc in self.channels.protocols.values():
            if (correl := svc.xmitq_correl(xmitq, remote_qm)) is not None:
                return correl
        return None

    def default_conname(self) -> str:
        """CONNAME of a CLUSRCVR left blank: this queue manager's first running listener."""
        for lst in self.listeners.values():
            return f"{lst.obj['IPADDR'] or '127.0.0.1'}({lst.port})"
        return ""
