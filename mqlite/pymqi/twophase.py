"""mqlite's two-phase units of work on a connection (not in pymqi): ``prepare``,
``resolve_prepared``, ``prepared_units`` (docs/pymqi.md), QueueManager's part."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mqlite.net import protocol as P
from mqlite.net import verbs as V
from mqlite.pymqi.errors import check_reply


class TwoPhase:
    _queues: Any
    _call: Callable[[int, bytes], bytes]         # (QueueManager's)

    def prepare(self, xid: str) -> int:
        """Phase one of a two-phase commit: the connection's unit of work is kept by the queue
        manager under ``xid`` (1-256 printable characters), past this connection and across a
        restart, until :meth:`resolve_prepared` (from any connection) or ``mqlite rsvmqtrn``
        resolves it. Returns the number of messages in it."""
        queues = list(self._queues)
        pairs = [list(p) for p in (q._end_of_unit() for q in queues) if p is not None]
        try:
            return int(self._xa({"op": "prepare", "xid": xid, "settle": pairs})["messages"])
        finally:
            for q in queues:
                q._after_end_of_unit()

    def resolve_prepared(self, commit: Sequence[str] = (), backout: Sequence[str] = (),
                         backout_prefix: str = "", mark: tuple[str, int] | None = None,
                         end_prefix: bool = False, commit_prefix: str = "") -> dict[str, Any]:
        """Phase two for prepared units, all in one transaction: commit the XIDs of ``commit`` and
        every prepared unit whose XID starts with ``commit_prefix``, back out those of ``backout``
        and any other prepared unit whose XID starts with ``backout_prefix``. With ``mark`` (name,
        batch) the units are committed only if no batch at or above ``batch`` was committed under
        ``name`` before, else backed out (outcome "duplicate"). With ``end_prefix`` the prefix
        (``backout_prefix``, else ``commit_prefix``) is closed: a later :meth:`prepare` under it
        backs its unit out and fails with MQRC_BACKED_OUT (2003). Unknown XIDs:
        MQRC_UOW_NOT_AVAILABLE (2255), nothing changed."""
        return self._xa({"op": "resolve", "commit": list(commit), "backout": list(backout),
                         "prefix": backout_prefix, "mark": list(mark) if mark else None, "end": end_prefix,
                         "commit_prefix": commit_prefix})

    def prepared_units(self) -> list[dict[str, Any]]:
        """The prepared units of work not yet resolved (XID, time, puts, gets, queues)."""
        return list(self._xa({"op": "list"})["units"])

    def _xa(self, req: dict[str, Any]) -> dict[str, Any]:
        reply = self._call(P.XA, V.Json.request(req))
        check_reply(reply)
        return V.Json.parse_reply(reply)
