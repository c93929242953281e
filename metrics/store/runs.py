"""Saved runs: versions of a project, each a run (one model or several) with its judgments.

:func:`save_run` keeps a loaded data set (its run, judgments and query table) under a project
and a version, with the time, the settings it is scored with and :func:`judgments_hash` of its
judgments. A project's versions (:func:`versions`) are its history; :func:`accept` marks one
accepted, and the last one accepted is the project's baseline (:func:`accepted_version`,
``--against accepted``).

Projects are shared by everyone who uses the store (a team's history of one ranking model); a
version saved from a workspace counts in that workspace's quota while the workspace exists.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from metrics.engine.settings import Settings
from metrics.errors import ConflictError, NotFoundError, StoreError
from metrics.io.dataset import Dataset
from metrics.schema import QUERY
from metrics.store.backends import Row, Transaction
from metrics.store.hashing import judgments_hash, new_id
from metrics.store.messages import store_error
from metrics.store.store import Store, check_name, time_text, to_json
from metrics.store.workspaces import workspace_id

#: The name that stands for a project's last accepted version.
ACCEPTED = "accepted"
#: Longest note of a version.
MAX_NOTE = 2000
#: The tables of a saved run, by the names its files have in the catalog.
RUN_TABLE, QRELS_TABLE, SEGMENTS_TABLE = "run", "qrels", "segments"

_COLUMNS = (
    "id, project, version, saved, judgments_hash, content_hash, models, queries, settings, "
    "note, accepted, bytes"
)


@dataclass(frozen=True)
class RunInfo:
    """A saved version's facts.

    Attributes
    ----------
    id:
        Its random id in the catalog.
    project, version:
        Its names.
    saved:
        When it was saved (seconds since 1970; given, or the time of the save).
    judgments_hash:
        :func:`~metrics.store.hashing.judgments_hash` of its judgments.
    content_hash:
        :attr:`Dataset.content_hash` of the data saved.
    models:
        The models of its run, in order.
    queries:
        Queries of its run.
    settings:
        :meth:`Settings.to_dict` of the settings it is scored with.
    note:
        Free text given with it.
    accepted:
        When it was last marked accepted (``None``: never).
    bytes:
        What its files and settings take.
    """

    id: str
    project: str
    version: str
    saved: float
    judgments_hash: str
    content_hash: str
    models: tuple[str, ...]
    queries: int
    settings: Mapping[str, Any]
    note: str
    accepted: float | None
    bytes: int

    @property
    def label(self) -> str:
        """``version 'V' of project 'P'``, for messages."""
        return f"version '{self.version}' of project '{self.project}'"

    @property
    def saved_text(self) -> str:
        """:attr:`saved` as ISO 8601 (UTC)."""
        return time_text(self.saved)


@dataclass(frozen=True)
class SavedRun:
    """A saved version read back: its facts, its data set and its settings."""

    info: RunInfo
    dataset: Dataset
    settings: Settings


def _run_info(row: Row) -> RunInfo:
    ident, project, version, saved, jhash, chash, models, queries, settings, note, acc, size = row
    return RunInfo(
        str(ident),
        str(project),
        str(version),
        float(saved),
        str(jhash),
        str(chash),
        tuple(json.loads(models)),
        int(queries),
        json.loads(settings),
        str(note),
        None if acc is None else float(acc),
        int(size),
    )


def _listing(names: list[str], shown: int = 10) -> str:
    return ", ".join(names[:shown]) + (", ..." if len(names) > shown else "") if names else "none"


def _versions(tx: Transaction, project: str) -> list[RunInfo]:
    rows = tx.execute(
        f"SELECT {_COLUMNS} FROM runs WHERE project = ? ORDER BY saved, version", (project,)
    )
    return [_run_info(row) for row in rows]


def _project_versions(tx: Transaction, project: str) -> list[RunInfo]:
    found = _versions(tx, project)
    if not found:
        projects = [str(row[0]) for row in tx.execute("SELECT DISTINCT project FROM runs")]
        raise store_error(
            NotFoundError, "project_unknown", project=project, projects=_listing(sorted(projects))
        )
    return found


def last_accepted(found: Sequence[RunInfo]) -> RunInfo | None:
    """The version of ``found`` accepted last (the later saved one when two were accepted at
    once), or ``None``."""
    accepted = [info for info in found if info.accepted is not None]
    return max(accepted, key=lambda i: (i.accepted, i.saved, i.version)) if accepted else None


def _find(tx: Transaction, project: str, version: str) -> RunInfo:
    """The version ``version`` of ``project`` (:data:`ACCEPTED`: the last accepted one)."""
    found = _project_versions(tx, project)
    names = [info.version for info in found]
    if version == ACCEPTED:
        last = last_accepted(found)
        if last is None:
            raise store_error(
                NotFoundError, "no_accepted", project=project, versions=_listing(names)
            )
        return last
    for info in found:
        if info.version == version:
            return info
    raise store_error(
        NotFoundError, "version_unknown", project=project, version=version, versions=_listing(names)
    )


def save_run(
    store: Store,
    project: str,
    version: str,
    data: Dataset,
    *,
    settings: Settings | None = None,
    workspace: str | None = None,
    accept: bool = False,
    note: str = "",
    saved: float | None = None,
) -> RunInfo:
    """Save ``data`` (its run, judgments and query table) as ``version`` of ``project``.

    Parameters
    ----------
    settings:
        The settings its numbers are computed with (trec_eval's defaults when ``None``).
    workspace:
        The key of the workspace it is saved from (it counts in that workspace's quota).
    accept:
        Mark it accepted at once.
    note:
        Free text kept with it.
    saved:
        Its date (seconds since 1970), for runs saved after the fact; now by default.

    Raises
    ------
    ConflictError
        ``version_exists`` when the project has the version already.
    QuotaError
        When it takes the workspace or the store past its quota (nothing is saved).
    StoreError
        For a name that is not one (``accepted`` names the accepted version and cannot be
        one), a note too long.
    """
    check_name(project, "project")
    check_name(version, "version")
    if version == ACCEPTED:
        raise store_error(StoreError, "reserved_version", version=version)
    if len(note) > MAX_NOTE:
        raise store_error(StoreError, "note_size", size=len(note), most=MAX_NOTE)
    settings_json = to_json((settings or Settings()).to_dict(), "run settings")
    models = json.dumps(list(data.models))
    tables = {RUN_TABLE: data.run, QRELS_TABLE: data.qrels}
    if data.segments is not None:
        tables[SEGMENTS_TABLE] = data.segments
    with store.read() as tx:
        _refuse_existing(tx, project, version)
        if workspace is not None:
            workspace_id(tx, workspace)
    hashed = judgments_hash(data.qrels)
    queries = int(data.run[QUERY].nunique())
    ident = new_id()
    document_bytes = len(settings_json.encode()) + len(note.encode()) + len(models.encode())
    with store.saving(tables) as save:
        tx = save.tx
        owner = None if workspace is None else workspace_id(tx, workspace)
        _refuse_existing(tx, project, version)
        tx.execute(
            f"INSERT INTO runs ({_COLUMNS}, workspace_id) VALUES "
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                ident,
                project,
                version,
                save.now if saved is None else float(saved),
                hashed,
                data.content_hash,
                models,
                queries,
                settings_json,
                note,
                save.now if accept else None,
                document_bytes,
                owner,
            ),
        )
        store.add_files(save, ident, owner, list(tables))
        store.check_quotas(tx, owner, document_bytes + sum(f.bytes for f in save.files))
        info = _find(tx, project, version)
    return info


def _refuse_existing(tx: Transaction, project: str, version: str) -> None:
    saved = tx.value("SELECT saved FROM runs WHERE project = ? AND version = ?", (project, version))
    if saved is not None:
        raise store_error(
            ConflictError,
            "version_exists",
            project=project,
            version=version,
            saved=time_text(float(saved)),
        )


def projects(store: Store) -> list[str]:
    """The projects of the store, sorted."""
    with store.read() as tx:
        return sorted(str(row[0]) for row in tx.execute("SELECT DISTINCT project FROM runs"))


def versions(store: Store, project: str) -> list[RunInfo]:
    """The versions of ``project``, oldest first.

    Raises
    ------
    NotFoundError
        ``project_unknown`` for a project without versions.
    """
    with store.read() as tx:
        return _project_versions(tx, project)


def version_info(store: Store, project: str, version: str) -> RunInfo:
    """The facts of ``version`` of ``project`` (:data:`ACCEPTED`: its last accepted version).

    Raises
    ------
    NotFoundError
        ``project_unknown``, ``version_unknown`` or ``no_accepted``.
    """
    with store.read() as tx:
        return _find(tx, project, version)


def accepted_version(store: Store, project: str) -> RunInfo:
    """The last version of ``project`` marked accepted.

    Raises
    ------
    NotFoundError
        ``no_accepted`` when none was.
    """
    return version_info(store, project, ACCEPTED)


def accept(store: Store, project: str, version: str) -> RunInfo:
    """Mark ``version`` of ``project`` accepted (the last one accepted is the baseline)."""
    with store.write() as tx:
        info = _find(tx, project, version)
        tx.execute("UPDATE runs SET accepted = ? WHERE id = ?", (store.clock(), info.id))
        return _find(tx, project, info.version)


def load_run(store: Store, project: str, version: str) -> SavedRun:
    """``version`` of ``project`` (or :data:`ACCEPTED`) read back.

    Raises
    ------
    NotFoundError
        For an unknown project or version.
    StoreError
        ``file_missing`` when its files were removed from the data folder by hand.
    """
    with store.read() as tx:
        info = _find(tx, project, version)
        files = store.files_of(tx, info.id)
    tables = store.read_tables(files, info.label)
    dataset = Dataset(
        f"{project} {info.version}",
        tables[RUN_TABLE],
        tables[QRELS_TABLE],
        tables.get(SEGMENTS_TABLE),
    )
    return SavedRun(info, dataset, Settings.from_dict(dict(info.settings)))


def delete_run(store: Store, project: str, version: str) -> None:
    """Delete ``version`` of ``project`` and its files."""
    store.delete("runs", lambda tx: _find(tx, project, version).id)


__all__ = [
    "ACCEPTED",
    "MAX_NOTE",
    "RunInfo",
    "SavedRun",
    "accept",
    "accepted_version",
    "delete_run",
    "last_accepted",
    "load_run",
    "projects",
    "save_run",
    "version_info",
    "versions",
]
