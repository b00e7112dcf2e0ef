"""The shared store of a queue-sharing group, as the engine and the QSG service see it: the face
of ``base`` (the abstract store), ``sqlite`` and ``postgres``, :func:`open_shared`, and the records
of the port they implement (``engine.ports``)."""
from __future__ import annotations

from mqlite.engine.ports import NewMessage, QueueFull, Row, Select, SharedStoreError
from mqlite.store.shared.base import COLS, SharedStore, Watcher
from mqlite.store.shared.postgres import PostgresShared
from mqlite.store.shared.sqlite import SQLiteShared

__all__ = ["COLS", "NewMessage", "PostgresShared", "QueueFull", "Row", "SQLiteShared", "Select", "SharedStore",
           "SharedStoreError", "Watcher", "open_shared"]


def open_shared(qsg: str, location: str) -> SharedStore:
    """The shared store at ``location``: a postgresql:// URL, or a SQLite file path."""
    if location.startswith(("postgresql://", "postgres://")):
        return PostgresShared(qsg, location)
    return SQLiteShared(qsg, location)
