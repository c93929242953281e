"""Workspaces: what one person loaded and chose, kept across reloads and server restarts.

A workspace is opened by its key alone (:func:`create_workspace` returns it once; the catalog
keeps its SHA-256). Its state (:class:`WorkspaceState`) is the uploaded tables and hand-built
lists (as tables, by the names the app gives them), the active data set and the settings (JSON).
:func:`save_workspace` replaces the state: a table whose values did not change keeps its file,
a changed one gets a new file and the old one is removed after the commit.

A workspace is private: no function lists workspaces, and an unknown or malformed key is refused
with the same message, which never repeats the key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from metrics.errors import NotFoundError
from metrics.io.hashing import content_hash
from metrics.store.backends import Transaction
from metrics.store.files import StoredFile
from metrics.store.hashing import is_token, new_id, new_token, token_hash
from metrics.store.messages import store_error
from metrics.store.store import Store, check_name, to_json


@dataclass(frozen=True)
class WorkspaceState:
    """What a workspace keeps.

    Attributes
    ----------
    tables:
        Uploaded tables and hand-built lists, by name (any text; the names are kept in the
        catalog, never used as file names). Their index is not kept.
    active:
        The active data set (a sample's name, or a name of ``tables``), or ``None``.
    settings:
        The settings and choices of the pages, as JSON (text keys; text, numbers, booleans,
        ``None``, lists and objects).
    """

    tables: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    active: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class WorkspaceInfo:
    """A workspace's facts (never its key).

    Attributes
    ----------
    id:
        Its random id in the catalog (not a key: it opens nothing).
    created, last_used:
        Seconds since 1970.
    tables:
        The names of its tables, in order.
    bytes, quota:
        What it holds (tables, versions saved from it, review links) and may hold (``None``: no
        limit).
    """

    id: str
    created: float
    last_used: float
    tables: tuple[str, ...]
    bytes: int
    quota: int | None


def workspace_id(tx: Transaction, token: str) -> str:
    """The id of the workspace whose key is ``token``.

    Raises
    ------
    NotFoundError
        ``workspace_unknown`` for a key no workspace has, or one of the wrong form.
    """
    found = (
        tx.value("SELECT id FROM workspaces WHERE token_hash = ?", (token_hash(token),))
        if (is_token(token))
        else None
    )
    if found is None:
        raise store_error(NotFoundError, "workspace_unknown")
    return str(found)


def create_workspace(store: Store) -> str:
    """A new empty workspace; returns its key (shown once: the store keeps only its hash)."""
    token = new_token()
    now = store.clock()
    with store.write() as tx:
        tx.execute(
            "INSERT INTO workspaces (id, token_hash, created, last_used, active, settings, bytes)"
            " VALUES (?, ?, ?, ?, NULL, '{}', 2)",
            (new_id(), token_hash(token), now, now),
        )
    return token


def _info(store: Store, tx: Transaction, ident: str) -> WorkspaceInfo:
    created, last_used = tx.one(
        "SELECT created, last_used FROM workspaces WHERE id = ?", (ident,)
    ) or (
        0.0,
        0.0,
    )
    return WorkspaceInfo(
        ident,
        float(created),
        float(last_used),
        tuple(row.name for row in store.files_of(tx, ident)),
        store.workspace_bytes(tx, ident),
        store.config.workspace_quota,
    )


def workspace_info(store: Store, token: str) -> WorkspaceInfo:
    """The facts of the workspace whose key is ``token``."""
    with store.read() as tx:
        return _info(store, tx, workspace_id(tx, token))


class _Replaced(Exception):
    """A file the save meant to keep was replaced by another save meanwhile."""


def save_workspace(store: Store, token: str, state: WorkspaceState) -> WorkspaceInfo:
    """Replace the workspace's state with ``state``.

    Raises
    ------
    NotFoundError
        For an unknown key.
    QuotaError
        When the new state takes the workspace or the store past its quota (nothing changes).
    StoreError
        For a table Parquet cannot hold, settings JSON cannot, or a name that is not one.
    """
    for name in state.tables:
        check_name(name, "table")
    if state.active is not None:
        check_name(state.active, "data set")
    settings = to_json(state.settings, "workspace settings")
    digests = {name: content_hash(frame) for name, frame in state.tables.items()}
    for _ in range(3):  # another save of the same workspace may replace a file meant to be kept
        try:
            return _save_once(store, token, state, settings, digests)
        except _Replaced:
            continue
    return _save_once(store, token, state, settings, digests, reuse=False)


def _save_once(
    store: Store,
    token: str,
    state: WorkspaceState,
    settings: str,
    digests: Mapping[str, str],
    *,
    reuse: bool = True,
) -> WorkspaceInfo:
    with store.read() as tx:
        ident = workspace_id(tx, token)
        current = {row.name: row for row in store.files_of(tx, ident)} if reuse else {}
    kept = [
        StoredFile(row.id, name, row.bytes, row.content_hash)
        for name, row in current.items()
        if name in digests and digests[name] == row.content_hash
    ]
    kept_names = {f.name for f in kept}
    new_tables = {n: f for n, f in state.tables.items() if n not in kept_names}
    with store.saving(new_tables, kept=kept, digests=digests) as save:
        tx = save.tx
        workspace_id(tx, token)  # not deleted meanwhile
        before = store.workspace_bytes(tx, ident)
        rows = {row.id: row for row in store.files_of(tx, ident)}
        if any(f.id not in rows for f in kept):
            raise _Replaced
        dropped = [i for i in rows if i not in {f.id for f in kept}]
        for file_id in dropped:
            tx.execute("DELETE FROM files WHERE id = ?", (file_id,))
        for file_id in (f.id for f in kept):
            tx.execute("DELETE FROM files WHERE id = ?", (file_id,))
        save.obsolete += dropped
        store.add_files(save, ident, ident, list(state.tables))
        tx.execute(
            "UPDATE workspaces SET active = ?, settings = ?, bytes = ?, last_used = ? WHERE id = ?",
            (state.active, settings, len(settings.encode("utf-8")), save.now, ident),
        )
        store.check_quotas(tx, ident, store.workspace_bytes(tx, ident) - before)
        return _info(store, tx, ident)
    raise AssertionError("unreachable")  # pragma: no cover


def load_workspace(store: Store, token: str) -> WorkspaceState:
    """The state last saved in the workspace whose key is ``token`` (and its use noted, for
    the retention of idle workspaces).

    Raises
    ------
    NotFoundError
        For an unknown key.
    StoreError
        ``file_missing`` when a table's file was removed from the data folder by hand.
    """
    with store.write() as tx:
        ident = workspace_id(tx, token)
        tx.execute("UPDATE workspaces SET last_used = ? WHERE id = ?", (store.clock(), ident))
        active, settings = tx.one(
            "SELECT active, settings FROM workspaces WHERE id = ?", (ident,)
        ) or (
            None,
            "{}",
        )
        files = store.files_of(tx, ident)
    tables = store.read_tables(files, "the workspace")
    return WorkspaceState(tables, None if active is None else str(active), json.loads(settings))


def delete_workspace(store: Store, token: str) -> None:
    """Delete the workspace whose key is ``token``: its tables and review links, with their
    files. Versions saved from it stay in their projects (they no longer count in its quota).

    Raises
    ------
    NotFoundError
        For an unknown key.
    """
    with store.write() as tx:
        ident = workspace_id(tx, token)
        obsolete = remove_workspace(store, tx, ident)
    store.remove(obsolete)


def remove_workspace(store: Store, tx: Transaction, ident: str) -> list[str]:
    """Delete the workspace ``ident``'s rows in ``tx``; return the ids of the files to remove
    once it has committed."""
    snapshots = [
        str(row[0])
        for row in tx.execute("SELECT id FROM snapshots WHERE workspace_id = ?", (ident,))
    ]
    obsolete = store.delete_owners(tx, "snapshots", snapshots)
    tx.execute("UPDATE runs SET workspace_id = NULL WHERE workspace_id = ?", (ident,))
    tx.execute("UPDATE files SET workspace_id = NULL WHERE workspace_id = ?", (ident,))
    obsolete += store.delete_owners(tx, "workspaces", [ident])
    return obsolete


__all__ = [
    "WorkspaceInfo",
    "WorkspaceState",
    "create_workspace",
    "delete_workspace",
    "load_workspace",
    "remove_workspace",
    "save_workspace",
    "workspace_id",
    "workspace_info",
]
