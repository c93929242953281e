"""The store: workspaces that survive a reload, saved runs and their history, review links.

A catalog of metadata (SQLite in the data folder by default, PostgreSQL for a team's servers)
and Parquet files written by the product under the data folder (:mod:`metrics.store.config`
says where). Typical use::

    from metrics.store import open_store, save_run, history

    with open_store() as store:                       # RANKING_METRICS_HOME / RANKING_METRICS_DB
        save_run(store, "search", "v12", dataset, accept=True)
        history(store, "search")                      # the lead measure of every version

The parts: :mod:`~metrics.store.store` (the catalog's transactions, files and quotas),
:mod:`~metrics.store.workspaces` (a person's state, by an unguessable key),
:mod:`~metrics.store.runs` (versions of a project), :mod:`~metrics.store.history` (their
numbers), :mod:`~metrics.store.snapshots` (read-only review links),
:mod:`~metrics.store.upkeep` (purge and check). ``docs/store.md`` describes the store and its
security model.
"""

from __future__ import annotations

from metrics.store.config import StoreConfig
from metrics.store.history import (
    DEFAULT_LEAD_MEASURE,
    HISTORY_COLUMNS,
    history,
    leaderboard,
    require_same_judgments,
    versions_dataset,
)
from metrics.store.runs import (
    ACCEPTED,
    RunInfo,
    SavedRun,
    accept,
    accepted_version,
    delete_run,
    load_run,
    projects,
    save_run,
    version_info,
    versions,
)
from metrics.store.snapshots import (
    Snapshot,
    SnapshotInfo,
    create_snapshot,
    delete_snapshot,
    open_snapshot,
    revoke_snapshot,
    snapshot_link,
    snapshots,
)
from metrics.store.store import Store, open_store
from metrics.store.upkeep import PurgeReport, check, purge
from metrics.store.workspaces import (
    WorkspaceInfo,
    WorkspaceState,
    create_workspace,
    delete_workspace,
    load_workspace,
    save_workspace,
    workspace_info,
)

__all__ = [
    "ACCEPTED",
    "DEFAULT_LEAD_MEASURE",
    "HISTORY_COLUMNS",
    "PurgeReport",
    "RunInfo",
    "SavedRun",
    "Snapshot",
    "SnapshotInfo",
    "Store",
    "StoreConfig",
    "WorkspaceInfo",
    "WorkspaceState",
    "accept",
    "accepted_version",
    "check",
    "create_snapshot",
    "create_workspace",
    "delete_run",
    "delete_snapshot",
    "delete_workspace",
    "history",
    "leaderboard",
    "load_run",
    "load_workspace",
    "open_snapshot",
    "open_store",
    "projects",
    "purge",
    "require_same_judgments",
    "revoke_snapshot",
    "save_run",
    "save_workspace",
    "snapshot_link",
    "snapshots",
    "version_info",
    "versions",
    "versions_dataset",
    "workspace_info",
]
