"""Per-query metrics computed once per (data content hash, settings), shared by every page.

Caches are keyed on :attr:`metrics.io.loaders.Dataset.content_hash` and the settings; the data set
itself is passed as an ``_dataset`` argument, which Streamlit does not hash. The pure functions
(``*_of``) do the work and are tested without a server.
"""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import streamlit as st

from metrics import schema as S
from metrics.engine.aggregation import curve_summary, summarize
from metrics.engine.evaluation import Evaluation, curves, per_query_table, rank_run
from metrics.engine.ranking import RankedLists, ranking_key
from metrics.engine.registry import parse_measure
from metrics.engine.settings import Settings
from metrics.errors import InputError
from metrics.io.loaders import Dataset, load_sample
from ui import per_query_data

STANDARD_CUTOFFS = (1, 3, 5, 10, 20, 50, 100)


def settings_key(settings: Settings) -> tuple:
    """A hashable, stable key of the settings."""
    return tuple(sorted(settings.to_dict().items()))


def cutoffs_within(k_from: int, k_to: int) -> list[int]:
    """Standard cutoffs (1, 3, 5, 10, 20, 50, 100) inside ``[k_from, k_to]``; ``k_to`` if none."""
    ks = [k for k in STANDARD_CUTOFFS if k_from <= k <= k_to]
    return ks or [k_to]


def cutoff_name(measure: str, k: int) -> str:
    """``nDCG`` at 10 -> ``nDCG@10``."""
    return parse_measure(measure, k=k).name


# --------------------------------------------------------------------------- pure


def curves_of(lists: dict[str, RankedLists], measure: str, k_to: int) -> dict[str, np.ndarray]:
    """Per-query values of ``measure`` at K = 1..k_to, per model."""
    return curves(lists, parse_measure(measure, for_curve=True), k_to)


def cutoff_evaluation_of(
    lists: dict[str, RankedLists],
    settings: Settings,
    measures: tuple[str, ...],
    ks: tuple[int, ...],
) -> Evaluation:
    """Per-query values of every measure at every cutoff in ``ks``."""
    specs = [parse_measure(m, k=k) for m in measures for k in ks]
    return Evaluation(per_query_table(lists, specs), specs, lists, settings, list(lists))


def cutoff_table_of(evaluation: Evaluation, segments: pd.DataFrame | None) -> pd.DataFrame:
    """Long table: model, measure, value (under the averaging policy), median, q1, q3, n."""
    return summarize(evaluation, segments)


# --------------------------------------------------------------------------- cached


@st.cache_resource(max_entries=4, show_spinner=False)
def sample_dataset(name: str) -> Dataset:
    """A bundled sample, loaded once per server (samples are public and read-only)."""
    return load_sample(name)


@st.cache_resource(max_entries=6, show_spinner=False)
def _ranked(
    content_hash: str, key: tuple, _dataset: Dataset, _settings: Settings
) -> dict[str, RankedLists]:
    return rank_run(_dataset.run, _dataset.qrels, _settings, source=_dataset.name)


def ranked_lists(dataset: Dataset, settings: Settings) -> dict[str, RankedLists]:
    """The data set's ranked lists per model under ``settings`` (cached on the content hash).

    Lists are ranked once per :func:`metrics.engine.ranking.ranking_key` (ties, score precision,
    duplicates, missing and empty queries); a change of any other setting (relevance level,
    gain, fewer than K, averaging) reuses them, rescored.
    """
    if per_query_data.is_per_query(dataset):
        raise InputError(
            "per-query results have no ranked lists.",
            source=dataset.name,
            fix="load the run and the judgments to see the lists.",
        )
    key = ranking_key(settings)
    base = Settings(**dict(key))
    lists = _ranked(dataset.content_hash, key, dataset, base)
    if base == settings:
        return lists
    return {model: ranked.rescored(settings) for model, ranked in lists.items()}


@st.cache_data(max_entries=64, show_spinner=False)
def _curves(
    content_hash: str, key: tuple, measure: str, k_to: int, _dataset: Dataset, _settings: Settings
) -> dict[str, np.ndarray]:
    return curves_of(ranked_lists(_dataset, _settings), measure, k_to)


def measure_curves(
    dataset: Dataset, settings: Settings, measure: str, k_to: int
) -> dict[str, np.ndarray]:
    """Per-query values of ``measure`` at K = 1..k_to per model (cached)."""
    if per_query_data.is_per_query(dataset):
        return per_query_data.curves_of(dataset, measure, k_to)
    return _curves(dataset.content_hash, settings_key(settings), measure, k_to, dataset, settings)


def curve_table(
    dataset: Dataset, settings: Settings, measures: tuple[str, ...], k_from: int, k_to: int
) -> pd.DataFrame:
    """Long table of mean, quartiles and n at every K, with a ``measure`` column."""
    if per_query_data.is_per_query(dataset):
        return per_query_data.curve_table_of(dataset, tuple(measures), k_from, k_to)
    frames = []
    for measure in measures:
        summary = curve_summary(measure_curves(dataset, settings, measure, k_to))
        summary = summary[summary["k"] >= k_from]
        summary.insert(1, "measure", measure)
        frames.append(summary)
    return (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(columns=[S.MODEL, "measure", "k", "mean", "q1", "median", "q3", "n"])
    )


@st.cache_data(max_entries=32, show_spinner=False)
def _cutoff_table(
    content_hash: str,
    key: tuple,
    measures: tuple[str, ...],
    ks: tuple[int, ...],
    _dataset: Dataset,
    _settings: Settings,
) -> pd.DataFrame:
    if per_query_data.is_per_query(_dataset):
        evaluation = per_query_data.cutoff_evaluation_of(_dataset, _settings, measures, ks)
        if evaluation is None:
            return pd.DataFrame(columns=[S.MODEL, "measure", "value"])
        return cutoff_table_of(evaluation, _dataset.segments)
    evaluation = cutoff_evaluation_of(ranked_lists(_dataset, _settings), _settings, measures, ks)
    return cutoff_table_of(evaluation, _dataset.segments)


def cutoff_table(
    dataset: Dataset, settings: Settings, measures: tuple[str, ...], ks: tuple[int, ...]
) -> pd.DataFrame:
    """Averages at the cutoffs ``ks`` under the averaging policy (cached)."""
    return _cutoff_table(
        dataset.content_hash, settings_key(settings), tuple(measures), tuple(ks), dataset, settings
    )


@st.cache_data(max_entries=16, show_spinner=False)
def _query_count(content_hash: str, _dataset: Dataset) -> int:
    return int(_dataset.run[S.QUERY].nunique())


def query_count(dataset: Dataset) -> int:
    """Number of distinct queries in the run (cached)."""
    return _query_count(dataset.content_hash, dataset)


def warm(dataset: Dataset, settings: Settings) -> threading.Thread:
    """Rank a newly loaded data set in the background, so the next page finds it cached.

    The cache holds a lock per key: a page asking for the same lists meanwhile waits for this
    computation instead of repeating it.
    """

    def work() -> None:
        try:
            ranked_lists(dataset, settings)
        except Exception:  # the page that needs the lists will show the error
            pass

    thread = threading.Thread(target=work, name="rank-warmup", daemon=True)
    thread.start()
    return thread
