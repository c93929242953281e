"""The History page's cached computations: a project's history table and two saved versions
as one data set (both read from the store, :mod:`metrics.store`).

The history is computed once per project, set of versions (their ids and acceptances) and
measures (5,000 bootstrap resamples per version and model); a version saved or accepted since
makes a new key. Both are kept in the session's store of the app's one cache
(:mod:`ui.shell.memo`), with its time to live and byte budget.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import pandas as pd

from metrics.engine.registry import DEFAULT_REVIEW_K, cutoff_name, parse_measure
from metrics.io.dataset import Dataset
from metrics.store import (
    DEFAULT_LEAD_MEASURE,
    RunInfo,
    Store,
    history,
    projects,
    versions,
    versions_dataset,
)
from metrics.store.history import saved_label
from ui.shell import memo, workspace

T = TypeVar("T")


def _where() -> str:
    """The store's place, so that two stores (a test's) never share an entry."""
    store = workspace.app_store()
    return f"{store.config.where}|{store.home}"


def _kept(what: tuple, compute: Callable[[], T], copy: bool) -> T:
    """``compute()`` once per store and ``what`` in the session's store
    (:func:`ui.shell.memo.cached`); with ``copy``, a copy that the page may change."""
    return memo.cached(_where(), what, compute, memo.session_store(), copy=copy)


def project_names(store: Store) -> list[str]:
    """The projects saved in ``store`` (:func:`metrics.store.projects`)."""
    return projects(store)


def project_versions(store: Store, project: str) -> list[RunInfo]:
    """The saved versions of ``project``, oldest first (:func:`metrics.store.versions`)."""
    return versions(store, project)


def history_table(project: str, infos: Sequence[RunInfo], measures: Sequence[str]) -> pd.DataFrame:
    """:func:`metrics.store.history` of ``project`` (whose versions are ``infos``)."""
    key = tuple((i.id, i.accepted) for i in infos)
    return _kept(
        ("history", project, key, tuple(measures)),
        lambda: history(workspace.app_store(), project, list(measures)),
        copy=True,
    )


def pair_dataset(project: str, first: RunInfo, second: RunInfo) -> Dataset:
    """The two versions in one data set (:func:`metrics.store.versions_dataset`).

    Raises
    ------
    ConflictError
        When they were scored against different judgments.
    """
    return _kept(
        ("pair", project, (first.id, second.id), first.version, second.version),
        lambda: versions_dataset(workspace.app_store(), project, [first.version, second.version]),
        copy=False,  # a data set is read-only
    )


def labels_of(info: RunInfo) -> list[str]:
    """The names a version's models have in :func:`pair_dataset`."""
    return [saved_label(info.version, m, info.models) for m in info.models]


def lead_measures(measures: Sequence[str]) -> list[str]:
    """The measures the history can follow: the store's lead measure first, then the page's
    measures at the review's K."""
    return list(
        dict.fromkeys([DEFAULT_LEAD_MEASURE, *(cutoff_name(m, DEFAULT_REVIEW_K) for m in measures)])
    )


def review_measures(lead: str, measures: Sequence[str]) -> tuple[tuple[str, ...], int]:
    """The measures (without K) and the K two versions are compared on: the lead measure's
    first, then the page's."""
    spec = parse_measure(lead)
    return tuple(dict.fromkeys([spec.definition.name, *measures])), spec.k or DEFAULT_REVIEW_K


__all__ = ["history_table", "labels_of", "lead_measures", "pair_dataset", "review_measures"]
