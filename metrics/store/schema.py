"""The catalog's tables, as numbered migrations from the first release on.

``schema_version`` records each migration applied (its number and when). :func:`migrate` brings
a catalog, empty or older, to :data:`SCHEMA_VERSION` in one write transaction (two servers
starting at once apply each migration once: the second waits, then finds it done), and refuses a
catalog newer than this program. A later release appends a migration to :data:`MIGRATIONS`;
migrations already released are never edited.

The SQL is read alike by SQLite and PostgreSQL. Times are seconds since 1970 (UTC), sizes bytes,
settings JSON text. Rows name one another by random ids; no file name is stored: a file's path is
made from its id (:func:`metrics.store.files.path_of`).
"""

from __future__ import annotations

from metrics.errors import StoreError
from metrics.store.backends import Backend, Transaction
from metrics.store.messages import store_error

#: ``(number, statements)`` from 1 up, without gaps.
MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (
        1,
        (
            # A workspace: one person's uploads, lists, data set and settings. Only the hash of
            # its key is kept.
            """CREATE TABLE workspaces (
                id TEXT PRIMARY KEY,
                token_hash TEXT NOT NULL UNIQUE,
                created DOUBLE PRECISION NOT NULL,
                last_used DOUBLE PRECISION NOT NULL,
                active TEXT,
                settings TEXT NOT NULL,
                bytes BIGINT NOT NULL
            )""",
            "CREATE INDEX workspaces_last_used ON workspaces (last_used)",
            # A saved version of a project: a run (one model or several) with its judgments.
            """CREATE TABLE runs (
                id TEXT PRIMARY KEY,
                project TEXT NOT NULL,
                version TEXT NOT NULL,
                saved DOUBLE PRECISION NOT NULL,
                judgments_hash TEXT NOT NULL,
                content_hash TEXT NOT NULL,
                models TEXT NOT NULL,
                queries BIGINT NOT NULL,
                settings TEXT NOT NULL,
                note TEXT NOT NULL,
                accepted DOUBLE PRECISION,
                workspace_id TEXT,
                bytes BIGINT NOT NULL,
                UNIQUE (project, version)
            )""",
            "CREATE INDEX runs_project ON runs (project, saved)",
            "CREATE INDEX runs_workspace ON runs (workspace_id)",
            # A review link: frozen data, settings and verdict of a workspace; the hash of its
            # token only.
            """CREATE TABLE snapshots (
                id TEXT PRIMARY KEY,
                token_hash TEXT NOT NULL UNIQUE,
                workspace_id TEXT NOT NULL,
                title TEXT NOT NULL,
                created DOUBLE PRECISION NOT NULL,
                expires DOUBLE PRECISION NOT NULL,
                revoked DOUBLE PRECISION,
                settings TEXT NOT NULL,
                verdict TEXT NOT NULL,
                bytes BIGINT NOT NULL
            )""",
            "CREATE INDEX snapshots_workspace ON snapshots (workspace_id)",
            # A Parquet file of a workspace, run or snapshot (its owner), under the name the
            # owner gives it; workspace_id is whose quota it counts in.
            """CREATE TABLE files (
                id TEXT PRIMARY KEY,
                owner TEXT NOT NULL,
                name TEXT NOT NULL,
                position INTEGER NOT NULL,
                bytes BIGINT NOT NULL,
                content_hash TEXT NOT NULL,
                workspace_id TEXT,
                created DOUBLE PRECISION NOT NULL,
                UNIQUE (owner, name)
            )""",
            "CREATE INDEX files_workspace ON files (workspace_id)",
        ),
    ),
)

#: The schema version this program writes.
SCHEMA_VERSION = MIGRATIONS[-1][0]

_VERSION_TABLE = """CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    applied DOUBLE PRECISION NOT NULL
)"""


def schema_version(tx: Transaction) -> int:
    """The catalog's schema version (0 for an empty catalog)."""
    return int(tx.value("SELECT COALESCE(MAX(version), 0) FROM schema_version") or 0)


def migrate(backend: Backend, now: float) -> int:
    """Apply the migrations the catalog lacks; return its schema version.

    Raises
    ------
    StoreError
        ``store_newer`` when the catalog was written by a newer program.
    """
    with backend.transaction() as tx:
        found = schema_version(tx) if backend.has_table(tx, "schema_version") else 0
    if found == SCHEMA_VERSION:
        return found
    with backend.transaction(write=True) as tx:
        tx.execute(_VERSION_TABLE)
        found = schema_version(tx)
        if found > SCHEMA_VERSION:
            raise store_error(
                StoreError, "store_newer", where=backend.where, found=found, known=SCHEMA_VERSION
            )
        for number, statements in MIGRATIONS:
            if number <= found:
                continue
            for statement in statements:
                tx.execute(statement)
            tx.execute("INSERT INTO schema_version (version, applied) VALUES (?, ?)", (number, now))
        return SCHEMA_VERSION


__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "migrate", "schema_version"]
