"""Comparison results of the review pages, computed once per (data hash, settings, choices).

The pure functions (``*_of``) do the work and are tested without a server; the cached wrappers
key on :attr:`Dataset.content_hash`, the settings and the page's choices, and take the data set
as an unhashed ``_dataset`` argument (see ``ui/shell/compute.py``).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from metrics.engine.evaluation import Evaluation
from metrics.engine.registry import lead_measure
from metrics.engine.settings import Settings
from metrics.io.dataset import Dataset
from metrics.review.compare import (
    CompareOptions,
    Wording,
    compared_queries,
    delta_curves,
    queries_in_table,
    query_deltas,
)
from metrics.review.overlap import DEFAULT_PERSISTENCE
from metrics.review.power import DEFAULT_POWER
from metrics.review.segments import segment_means
from metrics.review.statistics import DEFAULT_RESAMPLES, MissingPolicy
from metrics.review.verdict import DEFAULT_FAMILY, DEFAULT_K, ReviewRequest, review_table
from ui.shell import frame, per_query_data
from ui.shell.compute import cutoff_evaluation_of, cutoff_name, ranked_lists, settings_key
from ui.shell.i18n import t

#: Resample counts offered on the pages (the CLI accepts any); the default is the CLI's.
RESAMPLE_CHOICES = tuple(sorted({1_000, 2_000, DEFAULT_RESAMPLES, 10_000}))


def options_key(options: CompareOptions) -> tuple:
    """A hashable key of the comparison options."""
    return (
        options.policy,
        options.resamples,
        options.seed,
        options.confidence,
        options.correction,
        options.test,
        options.alpha,
    )


def evaluation_at(
    dataset: Dataset, settings: Settings, measures: tuple[str, ...], k: int
) -> Evaluation:
    """Per-query values of ``measures`` at cutoff ``k`` for every model (ranked lists cached)."""
    if per_query_data.is_per_query(dataset):
        return per_query_data.evaluation_at(dataset, settings, tuple(measures), k)
    return cutoff_evaluation_of(ranked_lists(dataset, settings), settings, tuple(measures), (k,))


# --------------------------------------------------------------------------- cached tables


@st.cache_data(max_entries=32, ttl=600, show_spinner=False)
def _review(
    content_hash: str,
    key: tuple,
    measures: tuple[str, ...],
    k: int,
    baseline: str,
    candidates: tuple[str, ...],
    by: tuple[str, ...],
    okey: tuple,
    family: str,
    min_effect: tuple[tuple[str, float], ...],
    power: float,
    rule: tuple[str, tuple[str, ...], bool],
    _dataset: Dataset,
    _settings: Settings,
    _options: CompareOptions,
) -> pd.DataFrame:
    evaluation = evaluation_at(_dataset, _settings, measures, k)
    names = tuple(cutoff_name(m, k) for m in measures)
    from metrics.review.decision import heterogeneity_table

    lead, guardrails, cross = rule
    request = ReviewRequest(
        baseline,
        candidates,
        names,
        by,
        _options,
        family,
        min_effect,
        power,
        cross=cross,
        lead=lead,
        guardrails=guardrails,
    )
    segments = _dataset.segments if by else None
    table = review_table(evaluation, request, segments)
    # the heterogeneity tests travel with the table, for the decision every page shows
    table.attrs["heterogeneity"] = heterogeneity_table(evaluation, request, segments).to_dict(
        "records"
    )
    table.attrs["lead"] = request.lead
    table.attrs["guardrails"] = list(request.guardrails)
    return table


def review(
    dataset: Dataset,
    settings: Settings,
    measures: tuple[str, ...],
    k: int,
    baseline: str,
    candidates: tuple[str, ...],
    options: CompareOptions,
    by: tuple[str, ...] = (),
    family: str = DEFAULT_FAMILY,
    min_effect: tuple[tuple[str, float], ...] = (),
    power: float = DEFAULT_POWER,
    *,
    lead: str = "",
    guardrails: tuple[str, ...] = (),
    cross: bool = False,
) -> pd.DataFrame:
    """The one review table (:func:`metrics.review.verdict.review_table`) of ``measures`` at
    ``k``: every page reads its numbers from it (cached)."""
    return _review(
        dataset.content_hash,
        settings_key(settings),
        tuple(measures),
        int(k),
        baseline,
        tuple(candidates),
        tuple(by),
        options_key(options),
        family,
        tuple(min_effect),
        float(power),
        (lead, tuple(guardrails), bool(cross)),
        dataset,
        settings,
        options,
    )


def choice_review(
    dataset: Dataset,
    settings: Settings,
    measures: tuple[str, ...],
    choice: Any,
    by: tuple[str, ...],
    cross: bool = False,
) -> pd.DataFrame:
    """:func:`review` of the review controls' choice (:class:`ui.review.controls.ReviewChoice`):
    the one table of Compare, Segments and the Report, under the choice's decision rule."""
    return review(
        dataset,
        settings,
        measures,
        choice.k,
        choice.baseline,
        choice.candidates,
        choice.options,
        by,
        choice.family,
        min_effect=choice.min_effect,
        power=choice.power,
        lead=choice.lead_at_k,
        guardrails=choice.guardrails,
        cross=cross,
    )


@st.cache_data(max_entries=32, ttl=600, show_spinner=False)
def _delta_curve(
    content_hash: str,
    key: tuple,
    measure: str,
    k_to: int,
    baseline: str,
    candidate: str,
    okey: tuple,
    _dataset: Dataset,
    _settings: Settings,
    _options: CompareOptions,
) -> pd.DataFrame:
    lists = ranked_lists(_dataset, _settings)
    evaluation = Evaluation(pd.DataFrame(), [], lists, _settings, list(lists))
    return delta_curves(evaluation, baseline, candidate, measure, k_to, options=_options)


def delta_curve(
    dataset: Dataset,
    settings: Settings,
    measure: str,
    k_from: int,
    k_to: int,
    baseline: str,
    candidate: str,
    options: CompareOptions,
) -> pd.DataFrame:
    """Delta and bootstrap band of ``measure`` at K = k_from..k_to (cached)."""
    if per_query_data.is_per_query(dataset):
        return per_query_data.delta_curve_of(
            dataset, settings, measure, k_from, k_to, baseline, candidate, options
        )
    table = _delta_curve(
        dataset.content_hash,
        settings_key(settings),
        measure,
        int(k_to),
        baseline,
        candidate,
        options_key(options),
        dataset,
        settings,
        options,
    )
    return table[table["k"] >= k_from].reset_index(drop=True)


@st.cache_data(max_entries=32, ttl=600, show_spinner=False)
def _query_deltas(
    content_hash: str,
    key: tuple,
    measure: str,
    k: int,
    baseline: str,
    candidate: str,
    policy: MissingPolicy,
    _dataset: Dataset,
    _settings: Settings,
) -> pd.DataFrame:
    evaluation = evaluation_at(_dataset, _settings, (measure,), k)
    return query_deltas(evaluation, baseline, candidate, evaluation.measure_names[0], policy=policy)


def per_query_deltas(
    dataset: Dataset,
    settings: Settings,
    measure: str,
    k: int,
    baseline: str,
    candidate: str,
    policy: MissingPolicy,
) -> pd.DataFrame:
    """:func:`metrics.review.compare.query_deltas` of ``measure`` at ``k`` (cached)."""
    return _query_deltas(
        dataset.content_hash,
        settings_key(settings),
        measure,
        int(k),
        baseline,
        candidate,
        policy,
        dataset,
        settings,
    )


@st.cache_data(max_entries=32, ttl=600, show_spinner=False)
def _pair_deltas(
    content_hash: str,
    key: tuple,
    measures: tuple[str, str],
    k: int,
    baseline: str,
    candidate: str,
    policy: MissingPolicy,
    _dataset: Dataset,
    _settings: Settings,
) -> pd.DataFrame:
    evaluation = evaluation_at(_dataset, _settings, measures, k)
    x, y = (
        query_deltas(evaluation, baseline, candidate, m, policy=policy)
        for m in evaluation.measure_names[:2]
    )
    return (
        x[["query", "delta"]]
        .merge(y[["query", "delta"]], on="query", suffixes=("_x", "_y"))
        .sort_values("query", kind="stable")
        .reset_index(drop=True)
    )


def measure_pair_deltas(
    dataset: Dataset,
    settings: Settings,
    measures: tuple[str, str],
    k: int,
    baseline: str,
    candidate: str,
    policy: MissingPolicy,
) -> pd.DataFrame:
    """Per query: ``delta_x`` and ``delta_y``, the candidate − baseline difference on two
    measures at ``k`` (queries paired on both; cached)."""
    if measures[0] == measures[1]:
        one = per_query_deltas(dataset, settings, measures[0], k, baseline, candidate, policy)
        return (
            pd.DataFrame({"query": one["query"], "delta_x": one["delta"], "delta_y": one["delta"]})
            .sort_values("query", kind="stable")
            .reset_index(drop=True)
        )
    return _pair_deltas(
        dataset.content_hash,
        settings_key(settings),
        (measures[0], measures[1]),
        int(k),
        baseline,
        candidate,
        policy,
        dataset,
        settings,
    )


@st.cache_data(max_entries=32, ttl=600, show_spinner=False)
def _ranking_change(
    content_hash: str,
    key: tuple,
    k: int,
    baseline: str,
    candidate: str,
    p: float,
    _dataset: Dataset,
    _settings: Settings,
) -> pd.DataFrame:
    from metrics.review.overlap import ranking_change

    lists = ranked_lists(_dataset, _settings)
    return ranking_change(lists[baseline], lists[candidate], _dataset.run, k, p)


def ranking_changes(
    dataset: Dataset,
    settings: Settings,
    k: int,
    baseline: str,
    candidates: tuple[str, ...],
    p: float,
) -> dict[str, pd.DataFrame]:
    """Candidate -> :func:`metrics.review.overlap.ranking_change` against the baseline at ``k``
    (cached); empty for a table of per-query values (no lists to compare)."""
    if per_query_data.is_per_query(dataset):
        return {}
    return {
        c: _ranking_change(
            dataset.content_hash,
            settings_key(settings),
            int(k),
            baseline,
            c,
            float(p),
            dataset,
            settings,
        )
        for c in candidates
    }


def family_words(rows: pd.DataFrame, templates: Wording | None = None) -> str:
    """The family of a table's rows, in words (``randomization test, Holm over 4 measures × 2
    candidates``; :func:`metrics.review.wording.family_caption`); empty without rows."""
    from metrics.review.wording import family_caption

    return family_caption(rows, templates)


@st.cache_data(max_entries=32, ttl=600, show_spinner=False)
def _segments(
    content_hash: str,
    key: tuple,
    measure: str,
    k: int,
    by: tuple[str, ...],
    okey: tuple,
    _dataset: Dataset,
    _settings: Settings,
    _options: CompareOptions,
) -> tuple[pd.DataFrame, int]:
    evaluation = evaluation_at(_dataset, _settings, (measure,), k)
    means = segment_means(evaluation, _dataset.segments, list(by), evaluation.measure_names[0])
    matched = queries_in_table(_dataset.segments, compared_queries(evaluation, evaluation.models))
    return means, matched


def segment_results(
    dataset: Dataset,
    settings: Settings,
    measure: str,
    k: int,
    by: tuple[str, ...],
    options: CompareOptions,
) -> tuple[pd.DataFrame, int]:
    """(:func:`segment_means`, how many of the run's queries are in the query table) of
    ``measure`` at ``k`` (cached)."""
    return _segments(
        dataset.content_hash,
        settings_key(settings),
        measure,
        int(k),
        tuple(by),
        options_key(options),
        dataset,
        settings,
        options,
    )


__all__ = [
    "RESAMPLE_CHOICES",
    "default_k",
    "delta_curve",
    "evaluation_at",
    "family_words",
    "measure_pair_deltas",
    "options_key",
    "per_query_deltas",
    "review",
    "segment_results",
    "warm",
]


def macro_note(settings: Settings) -> str:
    """Why the review pages average per-query values (macro) whatever ``settings.averaging``
    says, in the session's language."""
    return t("review.macro_note", averaging=frame.policy_name("averaging", settings.averaging))


def default_k(k_range: tuple[int, int]) -> int:
    """The review's K before it is chosen: the standard cutoff, within the sidebar's range."""
    k_from, k_to = k_range
    return min(max(DEFAULT_K, k_from), k_to)


def warm(
    dataset: Dataset, settings: Settings, measures: tuple[str, ...], k_range: tuple[int, int]
) -> None:
    """Compute, into the caches every session reads, what Compare, Segments and Report show
    first for a session that changed no review choice: the review table of the first model
    against the others at :func:`default_k`, per the first segment column, with the default
    statistics (``CompareOptions()``, the family and power of
    :class:`ui.review.controls.ReviewChoice`), the rankings' change and the segment means of the
    lead measure. Called by the server's
    warm-up (``ui/shell/warm_up.py``)."""
    models = list(dataset.models)
    if len(models) < 2:
        return
    baseline, candidates = models[0], tuple(models[1:])
    by = tuple(dataset.segment_columns[:1])
    k = default_k(k_range)
    review(dataset, settings, measures, k, baseline, candidates, CompareOptions(), by)
    ranking_changes(dataset, settings, k, baseline, candidates, DEFAULT_PERSISTENCE)
    if by and measures:  # the Segments page's means of the measure it opens on, the lead one
        names = [cutoff_name(m, k) for m in measures]
        lead = measures[names.index(lead_measure(names))]
        segment_results(dataset, settings, lead, k, by, CompareOptions())
