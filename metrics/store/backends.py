"""The catalog's database: one interface, SQLite or PostgreSQL behind it.

The store writes its SQL once, with ``?`` placeholders and types both databases read alike
(``TEXT``, ``BIGINT``, ``DOUBLE PRECISION``); a :class:`Backend` gives it transactions:

- :meth:`Backend.transaction` ``(write=True)`` runs one writer at a time over the whole catalog
  (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: a transaction-level advisory lock), so that a quota
  checked in a transaction still holds when it commits, and two sessions saving at once are put
  one after the other instead of failing;
- a transaction commits when its block ends and is rolled back when the block raises (or the
  process dies: the database drops it).

:class:`SqliteBackend` keeps the catalog in ``catalog.sqlite3`` in WAL mode (readers never wait
for the writer) with a busy timeout and full synchronous commits. :class:`PostgresBackend` needs
``psycopg`` 3, imported only when a ``postgresql://`` URL is configured. Each thread (and each
process) has its own connection.
"""

from __future__ import annotations

import abc
import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from metrics.errors import StoreError
from metrics.store.messages import store_error

#: Seconds a writer waits for another one before :class:`StoreError` ``store_busy``.
BUSY_TIMEOUT = 60.0
#: The key of PostgreSQL's advisory lock that serializes the catalog's writers.
_WRITE_LOCK = 0x52_4D_45_53  # "RMES"

Row = tuple[Any, ...]


class Transaction(abc.ABC):
    """One open transaction: statements with ``?`` placeholders."""

    @abc.abstractmethod
    def execute(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        """Run ``sql`` and return its rows (empty for a statement without rows)."""

    def one(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        """The first row of ``sql``, or ``None``."""
        rows = self.execute(sql, params)
        return rows[0] if rows else None

    def value(self, sql: str, params: Sequence[object] = ()) -> Any:
        """The first column of the first row of ``sql`` (``None`` without rows)."""
        row = self.one(sql, params)
        return None if row is None else row[0]


class Backend(abc.ABC):
    """A catalog database: transactions, and its place for messages."""

    #: ``"sqlite"`` or ``"postgresql"``.
    kind: str
    #: Where the catalog is, for messages (never a password).
    where: str

    def __init__(self) -> None:
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[tuple[int, Any]] = []

    @abc.abstractmethod
    def _connect(self) -> Any:
        """A new connection of this thread."""

    @abc.abstractmethod
    def transaction(self, *, write: bool = False) -> contextlib.AbstractContextManager[Transaction]:
        """A transaction (one writer at a time over the catalog with ``write``)."""

    @abc.abstractmethod
    def has_table(self, tx: Transaction, name: str) -> bool:
        """Whether the catalog has the table ``name``."""

    def _connection(self) -> Any:
        """This thread's connection (a new one in a forked process)."""
        pid, connection = getattr(self._local, "connection", (None, None))
        if pid != os.getpid() or connection is None or self._broken(connection):
            connection = self._connect()
            self._local.connection = (os.getpid(), connection)
            with self._lock:
                self._connections.append((os.getpid(), connection))
        return connection

    def _forget(self) -> None:
        """Drop this thread's connection (after an error that may have broken it)."""
        _, connection = getattr(self._local, "connection", (None, None))
        self._local.connection = (None, None)
        if connection is not None:
            with contextlib.suppress(Exception):
                connection.close()

    def _broken(self, connection: Any) -> bool:
        return False

    def close(self) -> None:
        """Close the connections this process opened (in every thread); those a forked process
        inherited are its parent's to close."""
        with self._lock:
            connections, self._connections = self._connections, []
        self._local = threading.local()
        for pid, connection in connections:
            if pid == os.getpid():
                with contextlib.suppress(Exception):
                    connection.close()


class _SqliteTransaction(Transaction):
    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection

    def execute(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        return self._connection.execute(sql, tuple(params)).fetchall()


class SqliteBackend(Backend):
    """The catalog in a SQLite file (WAL mode, busy timeout, full synchronous commits)."""

    kind = "sqlite"

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = Path(path)
        self.where = str(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():  # readable by its owner only
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
        )
        connection.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = FULL")
        return connection

    def has_table(self, tx: Transaction, name: str) -> bool:
        found = tx.value(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
        )
        return bool(found)

    @contextlib.contextmanager
    def transaction(self, *, write: bool = False) -> Iterator[Transaction]:
        try:
            connection = self._connection()
            connection.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        except sqlite3.OperationalError as exc:
            self._forget()
            raise self._error(exc) from None
        try:
            yield _SqliteTransaction(connection)
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                connection.execute("ROLLBACK")
            raise
        try:
            connection.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            with contextlib.suppress(sqlite3.Error):
                connection.execute("ROLLBACK")
            raise self._error(exc) from None

    def _error(self, exc: sqlite3.Error) -> StoreError:
        if "locked" in str(exc) or "busy" in str(exc):
            return store_error(StoreError, "store_busy", where=self.where, seconds=BUSY_TIMEOUT)
        return store_error(StoreError, "store_unreachable", where=self.where, reason=f"{exc}.")


class _PostgresTransaction(Transaction):
    def __init__(self, connection: Any) -> None:
        self._connection = connection

    def execute(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        cursor = self._connection.execute(sql.replace("?", "%s"), tuple(params))
        return list(cursor.fetchall()) if cursor.description is not None else []


class PostgresBackend(Backend):
    """The catalog in a PostgreSQL database (``psycopg`` 3), shared by several app servers."""

    kind = "postgresql"

    def __init__(self, url: str, where: str) -> None:
        super().__init__()
        try:
            import psycopg
        except ImportError:
            raise store_error(StoreError, "driver_missing") from None
        self._psycopg = psycopg
        self.url = url
        self.where = where

    def _connect(self) -> Any:
        try:
            return self._psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        except self._psycopg.Error as exc:
            raise self._error(exc) from None

    def has_table(self, tx: Transaction, name: str) -> bool:
        return bool(tx.value("SELECT to_regclass(?) IS NOT NULL", (name,)))

    def _broken(self, connection: Any) -> bool:
        return bool(connection.closed or connection.broken)

    @contextlib.contextmanager
    def transaction(self, *, write: bool = False) -> Iterator[Transaction]:
        connection = self._connection()
        psycopg = self._psycopg
        try:
            with connection.transaction():
                tx = _PostgresTransaction(connection)
                if write:
                    tx.execute(f"SET LOCAL lock_timeout = '{int(BUSY_TIMEOUT * 1000)}ms'")
                    tx.execute("SELECT pg_advisory_xact_lock(?)", (_WRITE_LOCK,))
                yield tx
        except (psycopg.OperationalError, psycopg.errors.LockNotAvailable) as exc:
            self._forget()
            raise self._error(exc) from None

    def _error(self, exc: Exception) -> StoreError:
        if isinstance(exc, self._psycopg.errors.LockNotAvailable):
            return store_error(StoreError, "store_busy", where=self.where, seconds=BUSY_TIMEOUT)
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return store_error(
            StoreError, "store_unreachable", where=self.where, reason=reason.rstrip(".") + "."
        )


__all__ = ["BUSY_TIMEOUT", "Backend", "PostgresBackend", "Row", "SqliteBackend", "Transaction"]
