"""The store: a catalog (SQLite or PostgreSQL) and Parquet files in a data folder.

:class:`Store` holds what the workspaces, saved runs and review links share: the catalog's
transactions, the data files of an owner (a workspace, a run or a review link), the quotas, and
the one way a save happens (:meth:`Store.saving`):

1. the new tables are written as files, each durable under its final name before anything else;
2. one write transaction (one writer at a time) adds their catalog rows and the owner's, drops
   the rows of the files replaced, and checks the quotas against the result;
3. once it has committed, the replaced files are removed; when anything failed before, the new
   files are, and the catalog is as it was.

A process killed at any point leaves the catalog as of its last commit, with every file it
names; at worst files no row names, which :func:`~metrics.store.upkeep.purge` removes.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import pandas as pd

from metrics.errors import QuotaError, StoreError
from metrics.store.backends import Backend, PostgresBackend, SqliteBackend, Transaction
from metrics.store.config import StoreConfig
from metrics.store.files import DATA_FOLDER, StoredFile, read_table, remove_files, write_table
from metrics.store.messages import size_text, store_error
from metrics.store.schema import migrate

#: The SQLite catalog's file in the data folder.
CATALOG_FILE = "catalog.sqlite3"
#: Largest settings document (JSON) of a workspace, run or review link.
MAX_DOCUMENT_BYTES = 1024**2
#: The catalog's tables whose rows own data files.
OWNER_TABLES = ("workspaces", "runs", "snapshots")
#: Longest project, version, table or link title name.
MAX_NAME = 200
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

JSONValue = Any


def check_name(value: object, what: str) -> str:
    """``value`` when it is a usable name of a ``what`` (project, version, table): 1 to
    :data:`MAX_NAME` characters, no control character.

    Raises
    ------
    StoreError
        ``name`` otherwise.
    """
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME:
        raise store_error(StoreError, "name", what=what, value=str(value)[:60], most=MAX_NAME)
    if _CONTROL.search(value):
        raise store_error(StoreError, "name", what=what, value=value[:60], most=MAX_NAME)
    return value


def to_json(document: Mapping[str, JSONValue], what: str) -> str:
    """``document`` as compact JSON text (sorted keys).

    Raises
    ------
    StoreError
        ``not_json`` for values JSON cannot hold (``NaN``, objects), ``document_size`` above
        :data:`MAX_DOCUMENT_BYTES`.
    """
    try:
        text = json.dumps(dict(document), sort_keys=True, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise store_error(StoreError, "not_json", what=what, reason=str(exc)) from None
    size = len(text.encode("utf-8"))
    if size > MAX_DOCUMENT_BYTES:
        raise store_error(
            StoreError,
            "document_size",
            what=what,
            size=size,
            size_text=size_text(size),
            most=MAX_DOCUMENT_BYTES,
            most_text=size_text(MAX_DOCUMENT_BYTES),
        )
    return text


def time_text(seconds: float) -> str:
    """A time of the catalog (seconds since 1970) as ISO 8601 in UTC, to the second.

    Examples
    --------
    >>> time_text(0)
    '1970-01-01T00:00:00Z'
    """
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class FileRow:
    """A data file as the catalog names it: its id, its name within its owner, and size."""

    id: str
    name: str
    bytes: int
    content_hash: str


@dataclass
class Save:
    """One save in progress (:meth:`Store.saving`): its transaction, the files written for it,
    and the files to remove once it has committed."""

    tx: Transaction
    files: list[StoredFile]
    now: float
    obsolete: list[str] = field(default_factory=list)


class Store:
    """The catalog and data folder of :class:`~metrics.store.config.StoreConfig`.

    Opening one applies the catalog's migrations. A store may be shared by the threads of a
    process (each has its own connection); :meth:`close` ends the connections.

    Parameters
    ----------
    config:
        Where and what limits; :meth:`StoreConfig.from_environ` by default.
    clock:
        Seconds since 1970 (``time.time``); tests move it to expire links and workspaces.
    """

    def __init__(
        self, config: StoreConfig | None = None, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.config = config or StoreConfig.from_environ()
        self.home = self.config.home
        self.clock = clock
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        (self.home / DATA_FOLDER).mkdir(exist_ok=True, mode=0o700)
        self.backend: Backend
        if self.config.database is None:
            self.backend = SqliteBackend(self.home / CATALOG_FILE)
        else:
            self.backend = PostgresBackend(self.config.database, self.config.where)
        migrate(self.backend, self.clock())

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.backend.kind}: {self.backend.where}, data in {self.home})"

    def close(self) -> None:
        """Close the catalog's connections."""
        self.backend.close()

    def read(self) -> contextlib.AbstractContextManager[Transaction]:
        """A read transaction."""
        return self.backend.transaction()

    def write(self) -> contextlib.AbstractContextManager[Transaction]:
        """A write transaction (one writer at a time)."""
        return self.backend.transaction(write=True)

    # ------------------------------------------------------------------------------ files
    @contextlib.contextmanager
    def saving(
        self,
        tables: Mapping[str, pd.DataFrame],
        *,
        kept: Sequence[StoredFile] = (),
        digests: Mapping[str, str] | None = None,
    ) -> Iterator[Save]:
        """Write ``tables`` as files, then open the write transaction that records them (see
        the module's notes); ``kept`` are files of the owner reused as they are."""
        written: list[StoredFile] = []
        try:
            for name, frame in tables.items():
                written.append(write_table(self.home, name, frame, (digests or {}).get(name)))
            with self.write() as tx:
                save = Save(tx, [*kept, *written], self.clock())
                yield save
        except BaseException:
            remove_files(self.home, [f.id for f in written])
            raise
        remove_files(self.home, save.obsolete)

    def add_files(
        self, save: Save, owner: str, workspace_id: str | None, names: Sequence[str]
    ) -> None:
        """Record the files of ``save`` as ``owner``'s, in the order of ``names``."""
        order = {name: position for position, name in enumerate(names)}
        for stored in save.files:
            save.tx.execute(
                "INSERT INTO files (id, owner, name, position, bytes, content_hash, "
                "workspace_id, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    stored.id,
                    owner,
                    stored.name,
                    order[stored.name],
                    stored.bytes,
                    stored.content_hash,
                    workspace_id,
                    save.now,
                ),
            )

    def files_of(self, tx: Transaction, owner: str) -> list[FileRow]:
        """The files of ``owner``, in their order."""
        rows = tx.execute(
            "SELECT id, name, bytes, content_hash FROM files WHERE owner = ? ORDER BY position",
            (owner,),
        )
        return [FileRow(str(i), str(n), int(b), str(h)) for i, n, b, h in rows]

    def drop_files(self, tx: Transaction, owners: Sequence[str]) -> list[str]:
        """Delete the catalog rows of the files of ``owners``; return their ids (the files
        themselves are removed once the transaction has committed)."""
        ids: list[str] = []
        for owner in owners:
            ids += [row.id for row in self.files_of(tx, owner)]
            tx.execute("DELETE FROM files WHERE owner = ?", (owner,))
        return ids

    def delete_owners(self, tx: Transaction, table: str, owners: Sequence[str]) -> list[str]:
        """Delete the rows ``owners`` of ``table`` (:data:`OWNER_TABLES`) and the rows of their
        files; return the files' ids, to remove once the transaction has committed."""
        if table not in OWNER_TABLES:
            raise ValueError(f"not a table of owners of files: {table!r}")
        obsolete = self.drop_files(tx, owners)
        for owner in owners:
            tx.execute(f"DELETE FROM {table} WHERE id = ?", (owner,))
        return obsolete

    def delete(self, table: str, find: Callable[[Transaction], str]) -> None:
        """Delete the row of ``table`` that ``find`` names in a write transaction (raising when
        there is none), with its files."""
        with self.write() as tx:
            obsolete = self.delete_owners(tx, table, [find(tx)])
        self.remove(obsolete)

    def read_tables(self, files: Sequence[FileRow], owner: str) -> dict[str, pd.DataFrame]:
        """The tables of ``files`` by name; ``owner`` says whose, in a message."""
        return {row.name: read_table(self.home, row.id, owner) for row in files}

    def remove(self, file_ids: Sequence[str]) -> None:
        """Remove data files whose rows are gone (after the transaction's commit)."""
        remove_files(self.home, list(file_ids))

    # ----------------------------------------------------------------------------- quotas
    def workspace_bytes(self, tx: Transaction, workspace_id: str) -> int:
        """Bytes a workspace holds: its tables, the versions saved from it, its review links
        and their settings."""
        return int(
            tx.value(
                "SELECT (SELECT COALESCE(SUM(bytes), 0) FROM files WHERE workspace_id = ?)"
                " + (SELECT COALESCE(SUM(bytes), 0) FROM workspaces WHERE id = ?)"
                " + (SELECT COALESCE(SUM(bytes), 0) FROM runs WHERE workspace_id = ?)"
                " + (SELECT COALESCE(SUM(bytes), 0) FROM snapshots WHERE workspace_id = ?)",
                (workspace_id,) * 4,
            )
        )

    def store_bytes(self, tx: Transaction) -> int:
        """Bytes the whole store holds (files and settings)."""
        return int(
            tx.value(
                "SELECT (SELECT COALESCE(SUM(bytes), 0) FROM files)"
                " + (SELECT COALESCE(SUM(bytes), 0) FROM workspaces)"
                " + (SELECT COALESCE(SUM(bytes), 0) FROM runs)"
                " + (SELECT COALESCE(SUM(bytes), 0) FROM snapshots)"
            )
        )

    def check_quotas(self, tx: Transaction, workspace_id: str | None, adding: int) -> None:
        """Refuse a save that adds ``adding`` bytes (already in the catalog of ``tx``) when it
        takes the workspace or the store past its quota; a save that frees bytes always
        passes.

        Raises
        ------
        QuotaError
            ``quota_workspace`` or ``quota_store``, with the sizes.
        """
        if adding <= 0:
            return
        limits: list[tuple[str, int | None, Callable[[], int]]] = [
            ("quota_store", self.config.store_quota, lambda: self.store_bytes(tx))
        ]
        if workspace_id is not None:
            limits.insert(
                0,
                (
                    "quota_workspace",
                    self.config.workspace_quota,
                    lambda: self.workspace_bytes(tx, workspace_id),
                ),
            )
        for code, quota, used in limits:
            if quota is None:
                continue
            after = used()
            if after > quota:
                raise store_error(
                    QuotaError,
                    code,
                    adding=adding,
                    adding_text=size_text(adding),
                    after=after,
                    after_text=size_text(after),
                    quota=quota,
                    quota_text=size_text(quota),
                )


def open_store(
    config: StoreConfig | None = None, *, clock: Callable[[], float] = time.time
) -> Store:
    """The store of ``config`` (of the environment variables by default), migrated."""
    return Store(config, clock=clock)


__all__ = [
    "CATALOG_FILE",
    "MAX_DOCUMENT_BYTES",
    "MAX_NAME",
    "FileRow",
    "Save",
    "Store",
    "check_name",
    "open_store",
    "time_text",
    "to_json",
]
