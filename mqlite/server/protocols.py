"""The protocol channel kinds' services, one row each: what MQSC and PCF know of a kind is its row
of ``objects.attrbase.PROTOCOL_CHANNELS``; what runs its channels is made here, one service of
each kind when the queue-manager server starts. A new protocol channel is a package of its own
(its codec and state machines, as mqlite/mqtt and mqlite/amqp), its service here, and its rows
there and in objects/attrs.py (docs/where.md)."""
from __future__ import annotations

from collections.abc import Callable

from mqlite.channels.manager import Telemetry
from mqlite.objects.attrbase import PROTOCOL_CHANNELS
from mqlite.server.amqpsvc import AMQPService
from mqlite.server.mqxr import MQXR
from mqlite.server.ports import ProtocolHost

# (each a ProtocolService, answering channel commands as channels.manager.Telemetry says)
SERVICES: dict[str, Callable[[ProtocolHost], Telemetry]] = {"MQTT": MQXR, "AMQP": AMQPService}


def protocol_services(host: ProtocolHost) -> dict[str, Telemetry]:
    """One service of each protocol channel kind, serving ``host``'s channels of that kind."""
    assert SERVICES.keys() == PROTOCOL_CHANNELS.keys(), "a protocol channel kind without its service"
    return {kind: make(host) for kind, make in SERVICES.items()}
