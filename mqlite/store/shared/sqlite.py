"""The shared store on a SQLite file (one host): transactions, connections, a data_version watcher."""
from __future__ import annotations

import os
import sqlite3
import time
from typing import Any

from mqlite.store.shared.base import (
    TABLES,
    SharedStore,
    Watcher,
)


class _SQLiteTx:
    def __init__(self, store: "SQLiteShared", durable: bool, write: bool) -> None:
        self.store = store
        self.durable = durable
        self.write = write

    def __enter__(self) -> sqlite3.Cursor:
        store = self.store
        store.lock.acquire()
        cur = store.db.cursor()
        try:
            if store.sync_full != self.durable:
                cur.execute("PRAGMA synchronous=" + ("FULL" if self.durable else "NORMAL"))
                store.sync_full = self.durable
            # SQLite's own busy handler sleeps 1, 2, 5, 10... ms between tries: members that take
            # turns writing would stall each other for milliseconds. Retry sooner, for up to 30 s.
            deadline = 0.0
            while True:
                try:
                    cur.execute("BEGIN IMMEDIATE" if self.write else "BEGIN")
                    break
                except sqlite3.OperationalError as e:
                    if "locked" not in str(e) and "busy" not in str(e):
                        raise
                    now = time.monotonic()
                    if not deadline:
                        deadline = now + 30.0
                    elif now > deadline:
                        raise
                    time.sleep(0.0002)
        except BaseException:
            self.store.lock.release()
            raise
        self.cur = cur
        return cur

    def __exit__(self, et: Any, ev: Any, tb: Any) -> None:
        try:
            self.cur.execute("ROLLBACK" if et is not None else "COMMIT")
        finally:
            self.store.lock.release()


class SQLiteShared(SharedStore):
    kind = "sqlite"

    def __init__(self, qsg: str, location: str) -> None:
        super().__init__(qsg, location)
        os.makedirs(os.path.dirname(os.path.abspath(location)), exist_ok=True)
        self.db = self._connect()
        self.sync_full = True
        with self.lock:
            self._ddl()
        self.db.execute("PRAGMA busy_timeout=0")     # transactions retry by themselves (_SQLiteTx)

    def _ddl(self) -> None:
        for stmt in TABLES.format(real="REAL", int="INTEGER", blob="BLOB",
                                   serial="INTEGER PRIMARY KEY AUTOINCREMENT").split(";"):
            if stmt.strip():
                self.db.execute(stmt)

    def _connect(self, busy_ms: int = 30000) -> sqlite3.Connection:
        db = sqlite3.connect(self.location, isolation_level=None, check_same_thread=False, timeout=busy_ms / 1000)
        db.execute(f"PRAGMA busy_timeout={busy_ms}")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        return db

    def _tx(self, durable: bool = True, write: bool = True) -> _SQLiteTx:
        return _SQLiteTx(self, durable, write)

    def watcher(self) -> "Watcher":
        return _SQLiteWatcher(self._connect())

    def close(self) -> None:
        with self.lock:
            self.db.close()



class _SQLiteWatcher(Watcher):
    POLL = 0.004

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.version = self._version()

    def _version(self) -> int:
        return int(self.db.execute("PRAGMA data_version").fetchone()[0])

    def wait(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            v = self._version()
            if v != self.version:
                self.version = v
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(self.POLL, left))

    def close(self) -> None:
        self.db.close()
