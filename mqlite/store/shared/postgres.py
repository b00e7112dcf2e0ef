"""The shared store on PostgreSQL (several hosts): transactions, ``?`` placeholders, a LISTEN/NOTIFY watcher."""
from __future__ import annotations

from typing import Any

from mqlite.engine.ports import SharedStoreError
from mqlite.store.shared.base import TABLES, SharedStore, Watcher


class _PGTx:
    def __init__(self, store: "PostgresShared", durable: bool) -> None:
        self.store = store
        self.durable = durable

    def __enter__(self) -> Any:
        self.store.lock.acquire()
        try:
            self.tx = self.store.conn.transaction()
            self.tx.__enter__()
            self.cur = _PGCursor(self.store.conn.cursor())
            if not self.durable:
                self.store._relax(self.cur)
        except BaseException:
            self.store.lock.release()
            raise
        return self.cur

    def __exit__(self, et: Any, ev: Any, tb: Any) -> None:
        try:
            self.tx.__exit__(et, ev, tb)
        finally:
            self.store.lock.release()


class _PGCursor:
    """A psycopg cursor that takes SQLite's ``?`` placeholders."""

    def __init__(self, cur: Any) -> None:
        self.cur = cur

    def execute(self, sql: str, args: Any = ()) -> None:
        self.cur.execute(sql.replace("%", "%%").replace("?", "%s"), args)

    def executemany(self, sql: str, seq: Any) -> None:
        self.cur.executemany(sql.replace("%", "%%").replace("?", "%s"), seq)

    def fetchone(self) -> Any:
        return self.cur.fetchone()

    def fetchall(self) -> Any:
        return self.cur.fetchall()

    @property
    def rowcount(self) -> int:
        return int(self.cur.rowcount)


class PostgresShared(SharedStore):
    kind = "postgresql"
    skip_locked = " FOR UPDATE SKIP LOCKED"

    def __init__(self, qsg: str, location: str) -> None:
        super().__init__(qsg, location)
        try:
            import psycopg
        except ImportError as e:  # pragma: no cover - the pg extra is part of the test install
            raise SharedStoreError("a postgresql:// shared store needs psycopg (pip install 'mqlite[pg]')") from e
        self._psycopg = psycopg
        try:
            self.conn = psycopg.connect(location, autocommit=False)
        except psycopg.Error as e:
            raise SharedStoreError(f"cannot reach {location}: {e}") from e
        self.channel = f"mqlite_qsg_{qsg.lower()}"
        with self.lock, self.conn.transaction():
            # Two members creating the tables at once would collide: one at a time.
            self.conn.execute("SELECT pg_advisory_xact_lock(774411)")
            for stmt in TABLES.format(real="DOUBLE PRECISION", int="BIGINT", blob="BYTEA",
                                       serial="BIGSERIAL PRIMARY KEY").split(";"):
                if stmt.strip():
                    self.conn.execute(stmt)
        self.conn.commit()

    def _tx(self, durable: bool = True, write: bool = True) -> _PGTx:
        return _PGTx(self, durable)

    def _relax(self, cur: Any) -> None:
        cur.execute("SET LOCAL synchronous_commit TO OFF")

    def _notify(self, cur: Any, queue: str) -> None:
        cur.execute("SELECT pg_notify(?, ?)", (self.channel, queue))

    def watcher(self) -> "Watcher":
        conn = self._psycopg.connect(self.location, autocommit=True)
        conn.execute(f"LISTEN {self.channel}")
        return _PGWatcher(conn)

    def close(self) -> None:
        with self.lock:
            self.conn.close()



class _PGWatcher(Watcher):
    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def wait(self, timeout: float) -> bool:
        got = False
        for _n in self.conn.notifies(timeout=timeout, stop_after=1):
            got = True
        return got

    def close(self) -> None:
        self.conn.close()
