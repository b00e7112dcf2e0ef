"""The shared store of a queue-sharing group, as the engine and the QSG service see it: the face
of ``base`` (records, the abstract store), ``sqlite`` and ``postgres``, and :func:`open_shared`."""
from __future__ import annotations

from mqlite.store.shared.base import COLS, NewMessage, QueueFull, Row, Select, SharedStore, SharedStoreError, Watcher
from mqlite.store.shared.postgres import PostgresShared
from mqlite.store.shared.sqlite import SQLiteShared

__all__ = ["COLS", "NewMessage", "PostgresShared", "QueueFull", "Row", "SQLiteShared", "Select", "SharedStore",
           "SharedStoreError", "Watcher", "open_shared"]


def open_shared(qsg: str, location: str) -> SharedStore:
    """The shared store at ``location``: a postgresql:// URL, or a SQLite file path."""
    if location.startswith(("postgresql://", "postgres://")):
        return PostgresShared(qsg, location)
    return SQLiteShared(qsg, location)
