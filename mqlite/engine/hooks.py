"""How the engine talks to the program running it.

The engine reports what happened (a message became visible on a queue, a message waits for a
cluster-sender channel, a definition changed, a line for the error log) and asks the little it
cannot know itself (channel states, for the workload algorithm; this queue manager's own CONNAME).
It does so through one ``Hooks`` object, ``QueueManager.hooks``. Every method is called with the
engine lock held and must return at once: record, notify a condition, queue a request; never start
a thread, touch a socket or wait. The defaults do nothing, so an engine on its own (a test, a tool)
needs none; the server supplies its own (``server.server.ServerHooks``).
"""
from __future__ import annotations

from typing import Any


class Hooks:
    def available(self, queue: str) -> None:
        """A message became visible on ``queue`` (put outside syncpoint, committed, backed out)."""

    def channel_wanted(self, channel: str) -> None:
        """A message waits on a cluster transmission queue for the cluster-sender ``channel``."""

    def object_changed(self, obj: Any, ns: str, name: str) -> None:
        """A definition was created, altered or deleted (``obj`` is None when deleted)."""

    def log(self, text: str, explanation: str = "") -> None:
        """An error-log entry: a message as mqlite/catalogue.py makes it (``AMQnnnnS: text``), and
        what happened in this instance."""

    def channel_state(self, channel: str) -> str:
        """A channel's status as DISPLAY CHSTATUS shows it (INACTIVE when it has none)."""
        return "INACTIVE"

    def channel_generation(self) -> int:
        """A number that grows whenever any channel's state changes (lets the workload
        algorithm keep its answers until then)."""
        return 0

    def xmitq_correl(self, xmitq: str, remote_qm: str) -> bytes | None:
        """The CorrelId a message for ``remote_qm`` gets on transmission queue ``xmitq`` when a
        part of the program serves that queue by correlation id, as a cluster-sender channel
        serves SYSTEM.CLUSTER.TRANSMIT.QUEUE (MQ Telemetry's SYSTEM.MQTT.TRANSMIT.QUEUE: the
        ClientIdentifier's key); None keeps the message's own."""
        return None

    def default_conname(self) -> str:
        """The CONNAME a CLUSRCVR left blank advertises: this queue manager's first listener."""
        return ""
