"""Keeping the store tidy: :func:`purge` and :func:`check`.

:func:`purge` deletes what the store no longer keeps: workspaces unused for
:attr:`~metrics.store.config.StoreConfig.retention_days` (with their tables and review links),
expired and revoked review links, and files of the data folder no catalog row names (left by a
save that was interrupted, or by a deletion interrupted after its commit) once they are older
than :attr:`~metrics.store.config.StoreConfig.orphan_grace`, so that a save in progress, which
writes its files before its rows, keeps them. The app calls it now and then; it is safe to run
while others save.

:func:`check` lists what is wrong (a catalog row whose file is missing, files no row names) and
changes nothing.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from dataclasses import dataclass

from metrics.store.files import data_files
from metrics.store.store import Store
from metrics.store.workspaces import remove_workspace

LOG = logging.getLogger("metrics.store")


@dataclass(frozen=True)
class PurgeReport:
    """What :func:`purge` deleted: workspaces, review links, files unknown to the catalog, and
    the bytes of those files."""

    workspaces: int = 0
    snapshots: int = 0
    orphans: int = 0
    orphan_bytes: int = 0


def purge(store: Store, now: float | None = None) -> PurgeReport:
    """Delete idle workspaces, expired and revoked review links, and orphan files (see the
    module's notes). ``now`` is the time the catalog's are judged at (the store's clock by
    default); files are judged by their modification times, on the system's clock."""
    now = store.clock() if now is None else now
    retention = store.config.retention_days
    with store.write() as tx:
        idle = (
            [
                str(row[0])
                for row in tx.execute(
                    "SELECT id FROM workspaces WHERE last_used < ?", (now - retention * 86400,)
                )
            ]
            if retention
            else []
        )
        obsolete: list[str] = []
        for ident in idle:
            obsolete += remove_workspace(store, tx, ident)
        ended = [
            str(row[0])
            for row in tx.execute(
                "SELECT id FROM snapshots WHERE expires <= ? OR revoked IS NOT NULL", (now,)
            )
        ]
        obsolete += store.delete_owners(tx, "snapshots", ended)
    store.remove(obsolete)
    orphans, orphan_bytes = _remove_orphans(store, time.time())
    report = PurgeReport(len(idle), len(ended), orphans, orphan_bytes)
    if report != PurgeReport():
        LOG.info(
            "purged %d idle workspaces, %d review links, %d orphan files (%d bytes)",
            report.workspaces,
            report.snapshots,
            report.orphans,
            report.orphan_bytes,
        )
    return report


def _known_ids(store: Store) -> set[str]:
    with store.read() as tx:
        return {str(row[0]) for row in tx.execute("SELECT id FROM files")}


def _remove_orphans(store: Store, now: float) -> tuple[int, int]:
    """Remove files of the data folder the catalog does not name, older than the grace."""
    # The files are listed before the catalog is read: a file whose row commits in between is
    # then known, and a file written after the listing is not looked at.
    found = list(data_files(store.home))
    known = _known_ids(store)
    count = size = 0
    for path, file_id in found:
        if file_id is not None and file_id in known:
            continue
        with contextlib.suppress(FileNotFoundError):
            stat = path.stat()
            if now - stat.st_mtime < store.config.orphan_grace:
                continue
            os.unlink(path)
            count += 1
            size += stat.st_size
    return count, size


def check(store: Store) -> list[str]:
    """What is wrong with the store, one line each (empty when nothing is): catalog rows
    whose file is missing, and files no row names (the latter are expected for a moment while
    a save runs)."""
    files = list(data_files(store.home))
    on_disk = {file_id for _, file_id in files if file_id is not None}
    with store.read() as tx:
        rows = tx.execute("SELECT id, owner, name FROM files ORDER BY owner, position")
    known = {str(row[0]) for row in rows}
    problems = [
        f"missing file {file_id} of table '{name}' of {owner}"
        for file_id, owner, name in rows
        if str(file_id) not in on_disk
    ]
    problems += [
        f"file unknown to the catalog: {path.name}"
        for path, file_id in files
        if file_id is None or file_id not in known
    ]
    return problems


__all__ = ["PurgeReport", "check", "purge"]
