"""A project's history: the lead measure of each saved version with its interval, the
leaderboard, and two saved versions side by side.

:func:`history` is the one table behind the History page and ``python -m metrics history``: for
every version (oldest first) and each of its models, the mean of the measure over its queries
and the percentile bootstrap interval of that mean (the review's defaults: 5,000 resamples,
seed 0, 95 %), each version scored against its own judgments with the settings it was saved
with; the last accepted version is marked. :func:`versions_dataset` puts saved versions in one
data set for the review, and refuses versions whose judgments differ
(:func:`require_same_judgments`): their numbers would answer different questions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from metrics.engine.evaluation import evaluate
from metrics.engine.registry import DEFAULT_REVIEW_K, parse_measures
from metrics.errors import ConflictError
from metrics.io.dataset import Dataset
from metrics.review.statistics import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    bootstrap_ci,
)
from metrics.schema import ITEM, MODEL, QUERY, RANK, SCORE
from metrics.store.messages import store_error
from metrics.store.runs import (
    RunInfo,
    SavedRun,
    last_accepted,
    load_run,
    version_info,
    versions,
)
from metrics.store.store import Store

#: The measure a project's history follows unless told otherwise.
DEFAULT_LEAD_MEASURE = f"nDCG@{DEFAULT_REVIEW_K}"
#: The columns of :func:`history`.
HISTORY_COLUMNS = (
    "project",
    "version",
    "model",
    "saved",
    "accepted",
    "measure",
    "mean",
    "ci_low",
    "ci_high",
    "queries",
    "judgments_hash",
    "note",
)
#: The columns of a saved run that a comparison reads (segment columns come from its query
#: table).
RUN_COLUMNS = (QUERY, ITEM, SCORE, RANK, MODEL)


def saved_label(version: str, model: str, models: Sequence[str]) -> str:
    """The name of a saved model beside others: the version alone for a one-model version,
    ``version/model`` otherwise.

    Examples
    --------
    >>> saved_label("v3", "run", ["run"]), saved_label("v3", "dense", ["lexical", "dense"])
    ('v3', 'v3/dense')
    """
    return version if len(models) == 1 else f"{version}/{model}"


def labelled_run(saved: SavedRun) -> pd.DataFrame:
    """The run of a saved version with its models named by :func:`saved_label` (the columns
    of :data:`RUN_COLUMNS` it has)."""
    run = saved.dataset.run
    frame = run[[c for c in RUN_COLUMNS if c in run.columns]].copy()
    models = list(saved.info.models)
    frame[MODEL] = frame[MODEL].map({m: saved_label(saved.info.version, m, models) for m in models})
    return frame


def require_same_judgments(first: str, first_hash: str, second: str, second_hash: str) -> None:
    """Refuse to compare two runs scored against different judgments (``first`` and ``second``
    name them in the message).

    Raises
    ------
    ConflictError
        ``judgments_differ``.
    """
    if first_hash != second_hash:
        raise store_error(
            ConflictError,
            "judgments_differ",
            first=first,
            second=second,
            first_hash=first_hash[:12],
            second_hash=second_hash[:12],
        )


def history(
    store: Store,
    project: str,
    measures: Sequence[str] = (DEFAULT_LEAD_MEASURE,),
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> pd.DataFrame:
    """One row per version, model and measure (:data:`HISTORY_COLUMNS`), oldest version
    first: the mean over the queries, its bootstrap interval, the queries it is over, and
    ``accepted`` true for the last version accepted.

    Raises
    ------
    NotFoundError
        For a project without versions.
    MeasureError
        For an unknown measure.
    """
    names = [spec.name for spec in parse_measures(list(measures))]
    found = versions(store, project)
    accepted = last_accepted(found)
    last = None if accepted is None else accepted.id
    rows = []
    for info in found:
        saved = load_run(store, project, info.version)
        per_query = evaluate(
            saved.dataset.run, saved.dataset.qrels, names, saved.settings
        ).per_query
        for model in info.models:
            of_model = per_query[per_query[MODEL] == model]
            for name in names:
                values = of_model[name].to_numpy(dtype=np.float64)
                values = values[~np.isnan(values)]
                low, high = bootstrap_ci(values, resamples, seed, confidence)
                rows.append(_row(info, model, name, values, float(low), float(high), last))
    return pd.DataFrame(rows, columns=list(HISTORY_COLUMNS))


def _row(
    info: RunInfo,
    model: str,
    measure: str,
    values: np.ndarray,
    low: float,
    high: float,
    accepted: str | None,
) -> tuple[object, ...]:
    return (
        info.project,
        info.version,
        model,
        info.saved_text,
        info.id == accepted,
        measure,
        float(values.mean()) if len(values) else float("nan"),
        low,
        high,
        len(values),
        info.judgments_hash,
        info.note,
    )


def leaderboard(table: pd.DataFrame, measure: str | None = None) -> pd.DataFrame:
    """The rows of a :func:`history` table for ``measure`` (its first by default), best mean
    first (the earlier version first on a tie), ranked from 1."""
    if not len(table):
        return table.assign(rank=pd.Series(dtype=np.int64))
    chosen = measure or str(table["measure"].iloc[0])
    rows = table[table["measure"] == chosen]
    rows = rows.sort_values(["mean", "saved"], ascending=[False, True], kind="stable")
    rows = rows.reset_index(drop=True)
    return rows.assign(rank=np.arange(1, len(rows) + 1))


def versions_dataset(store: Store, project: str, chosen: Sequence[str]) -> Dataset:
    """Saved versions of ``project`` (names, or ``accepted``) in one data set, for the review:
    their runs with models named by :func:`saved_label`, their shared judgments, and the query
    table of the first.

    Raises
    ------
    ConflictError
        ``judgments_differ`` when two of them were scored against different judgments.
    NotFoundError
        For an unknown project or version.
    """
    found = [version_info(store, project, name) for name in chosen]
    infos = list({info.id: info for info in found}.values())  # a version named twice, once
    for info in infos[1:]:
        require_same_judgments(
            infos[0].label, infos[0].judgments_hash, info.label, info.judgments_hash
        )
    saved = [load_run(store, project, info.version) for info in infos]
    run = pd.concat([labelled_run(s) for s in saved], ignore_index=True)
    first = saved[0].dataset
    if first.segments is not None:
        run = run.merge(first.segments, on=QUERY, how="left")
    versions_text = ", ".join(info.version for info in infos)
    return Dataset(f"{project}: {versions_text}", run, first.qrels, first.segments)


__all__ = [
    "DEFAULT_LEAD_MEASURE",
    "HISTORY_COLUMNS",
    "RUN_COLUMNS",
    "history",
    "labelled_run",
    "leaderboard",
    "require_same_judgments",
    "saved_label",
    "versions_dataset",
]
