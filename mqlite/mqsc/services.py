"""What MQSC needs of the queue-manager server beyond the engine: listeners and channels
(``Services``; the server is one), and ``NoServices`` for MQSC run on an engine alone (tests, tools).
"""
from __future__ import annotations

from typing import Any, Protocol

from mqlite.catalogue import message
from mqlite.objects.model import MQObject


class Services(Protocol):
    """What the server offers MQSC beyond the engine (listeners now; channels later)."""

    def start_listener(self, obj: MQObject) -> str | None: ...

    def stop_listener(self, name: str) -> str | None: ...

    def listener_status(self, name: str) -> dict[str, Any] | None: ...

    def start_channel(self, name: str) -> str | None: ...

    def stop_channel(self, name: str, mode: str, status: str) -> str | None: ...

    def ping_channel(self, name: str) -> str | None: ...

    def reset_channel(self, name: str, seqnum: int) -> str | None: ...

    def resolve_channel(self, name: str, action: str) -> str | None: ...

    def channel_status(self, pattern: str, client: str | None = None) -> list[dict[str, Any]]: ...

    def purge_channel(self, name: str, client: str) -> str | None: ...

    def refresh_ssl(self) -> None: ...

    def stop_connection(self, hconn: int) -> str | None: ...

    def start_service(self, obj: MQObject) -> str | None: ...

    def stop_service(self, obj: MQObject) -> str | None: ...

    def service_status(self, name: str) -> dict[str, Any] | None: ...

    def write_statistics(self) -> int: ...


class NoServices:
    """Used when MQSC runs without a server (engine tests): listeners only change state here."""

    def __init__(self) -> None:
        self.running: dict[str, MQObject] = {}

    def start_listener(self, obj: MQObject) -> str | None:
        self.running[obj.name] = obj
        return None

    def stop_listener(self, name: str) -> str | None:
        if self.running.pop(name, None) is None:
            return message("MQL0003E")
        return None

    def listener_status(self, name: str) -> dict[str, Any] | None:
        obj = self.running.get(name)
        return None if obj is None else {"PORT": obj["PORT"], "STATUS": "RUNNING", "STARTED": 0.0}

    def _no_channels(self, *args: Any) -> str:
        return message("MQL0008E")

    start_channel = stop_channel = ping_channel = reset_channel = resolve_channel = purge_channel = _no_channels

    def channel_status(self, pattern: str, client: str | None = None) -> list[dict[str, Any]]:
        return []

    def refresh_ssl(self) -> None:
        return None

    def stop_connection(self, hconn: int) -> str | None:
        return message("MQL0021E")

    def start_service(self, obj: MQObject) -> str | None:
        return message("MQL0027E")

    stop_service = start_service

    def service_status(self, name: str) -> dict[str, Any] | None:
        return None

    def write_statistics(self) -> int:
        return 0                        # the statistics interval is the server's (server/monitor.py)
