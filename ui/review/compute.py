"""Comparison results of the review pages, computed once per (data hash, settings, choices).

The functions ``*_of`` do the work; the wrappers keep their results in the app's one cache
(:func:`ui.shell.memo.cached`, as ``ui/shell/compute.py`` does), keyed on
:attr:`Dataset.content_hash`, the settings and the page's choices, and hand out copies that the
pages may change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pandas as pd

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
from ui.shell import labels, memo, per_query_data
from ui.shell.compute import cutoff_evaluation_of, cutoff_name, ranked_lists, settings_key
from ui.shell.i18n import t

T = TypeVar("T")

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


# --------------------------------------------------------------------------- kept tables


def _kept(dataset: Dataset, settings: Settings, what: tuple, compute: Callable[[], T]) -> T:
    """``compute()`` once per data set, settings and ``what`` (the result's name and the page's
    choices) in the data set's store (:func:`ui.shell.memo.cached`: the session's for an upload,
    the shared one for a sample), handed out as a copy that the page may change."""
    return memo.cached(dataset.content_hash, (*what, settings_key(settings)), compute, copy=True)


def _review_of(
    dataset: Dataset,
    settings: Settings,
    options: CompareOptions,
    measures: tuple[str, ...],
    k: int,
    baseline: str,
    candidates: tuple[str, ...],
    by: tuple[str, ...],
    family: str,
    min_effect: tuple[tuple[str, float], ...],
    power: float,
    rule: tuple[str, tuple[str, ...], bool],
) -> pd.DataFrame:
    evaluation = evaluation_at(dataset, settings, measures, k)
    names = tuple(cutoff_name(m, k) for m in measures)
    from metrics.review.decision import heterogeneity_table

    lead, guardrails, cross = rule
    request = ReviewRequest(
        baseline,
        candidates,
        names,
        by,
        options,
        family,
        min_effect,
        power,
        cross=cross,
        lead=lead,
        guardrails=guardrails,
    )
    segments = dataset.segments if by else None
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
    ``k``: every page reads its numbers from it (kept)."""
    choices = (
        tuple(measures),
        int(k),
        baseline,
        tuple(candidates),
        tuple(by),
        family,
        tuple(min_effect),
        float(power),
        (lead, tuple(guardrails), bool(cross)),
    )
    return _kept(
        dataset,
        settings,
        ("review", options_key(options), *choices),
        lambda: _review_of(dataset, settings, options, *choices),
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


def _delta_curve_of(
    dataset: Dataset,
    settings: Settings,
    measure: str,
    k_to: int,
    baseline: str,
    candidate: str,
    options: CompareOptions,
) -> pd.DataFrame:
    lists = ranked_lists(dataset, settings)
    evaluation = Evaluation(pd.DataFrame(), [], lists, settings, list(lists))
    return delta_curves(evaluation, baseline, candidate, measure, k_to, options=options)


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
    """Delta and bootstrap band of ``measure`` at K = k_from..k_to (kept)."""
    if per_query_data.is_per_query(dataset):
        return per_query_data.delta_curve_of(
            dataset, settings, measure, k_from, k_to, baseline, candidate, options
        )
    table = _kept(
        dataset,
        settings,
        ("delta_curve", measure, int(k_to), baseline, candidate, options_key(options)),
        lambda: _delta_curve_of(
            dataset, settings, measure, int(k_to), baseline, candidate, options
        ),
    )
    return table[table["k"] >= k_from].reset_index(drop=True)


def _query_deltas_of(
    dataset: Dataset,
    settings: Settings,
    measure: str,
    k: int,
    baseline: str,
    candidate: str,
    policy: MissingPolicy,
) -> pd.DataFrame:
    evaluation = evaluation_at(dataset, settings, (measure,), k)
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
    """:func:`metrics.review.compare.query_deltas` of ``measure`` at ``k`` (kept)."""
    choices = (measure, int(k), baseline, candidate, policy)
    return _kept(
        dataset,
        settings,
        ("query_deltas", *choices),
        lambda: _query_deltas_of(dataset, settings, *choices),
    )


def _pair_deltas_of(
    dataset: Dataset,
    settings: Settings,
    measures: tuple[str, str],
    k: int,
    baseline: str,
    candidate: str,
    policy: MissingPolicy,
) -> pd.DataFrame:
    evaluation = evaluation_at(dataset, settings, measures, k)
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
    measures at ``k`` (queries paired on both; kept)."""
    if measures[0] == measures[1]:
        one = per_query_deltas(dataset, settings, measures[0], k, baseline, candidate, policy)
        return (
            pd.DataFrame({"query": one["query"], "delta_x": one["delta"], "delta_y": one["delta"]})
            .sort_values("query", kind="stable")
            .reset_index(drop=True)
        )
    choices = ((measures[0], measures[1]), int(k), baseline, candidate, policy)
    return _kept(
        dataset,
        settings,
        ("pair_deltas", *choices),
        lambda: _pair_deltas_of(dataset, settings, *choices),
    )


def _ranking_change_of(
    dataset: Dataset, settings: Settings, k: int, baseline: str, candidate: str, p: float
) -> pd.DataFrame:
    from metrics.review.overlap import ranking_change

    lists = ranked_lists(dataset, settings)
    return ranking_change(lists[baseline], lists[candidate], dataset.run, k, p)


def ranking_changes(
    dataset: Dataset,
    settings: Settings,
    k: int,
    baseline: str,
    candidates: tuple[str, ...],
    p: float,
) -> dict[str, pd.DataFrame]:
    """Candidate -> :func:`metrics.review.overlap.ranking_change` against the baseline at ``k``
    (kept); empty for a table of per-query values (no lists to compare)."""
    if per_query_data.is_per_query(dataset):
        return {}

    def change(candidate: str) -> pd.DataFrame:
        choices = (int(k), baseline, candidate, float(p))
        return _kept(
            dataset,
            settings,
            ("ranking_change", *choices),
            lambda: _ranking_change_of(dataset, settings, *choices),
        )

    return {c: change(c) for c in candidates}


def family_words(rows: pd.DataFrame, templates: Wording | None = None) -> str:
    """The family of a table's rows, in words (``randomization test, Holm over 4 measures × 2
    candidates``; :func:`metrics.review.wording.family_caption`); empty without rows."""
    from metrics.review.wording import family_caption

    return family_caption(rows, templates)


def _segments_of(
    dataset: Dataset, settings: Settings, measure: str, k: int, by: tuple[str, ...]
) -> tuple[pd.DataFrame, int]:
    evaluation = evaluation_at(dataset, settings, (measure,), k)
    means = segment_means(evaluation, dataset.segments, list(by), evaluation.measure_names[0])
    matched = queries_in_table(dataset.segments, compared_queries(evaluation, evaluation.models))
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
    ``measure`` at ``k`` (kept)."""
    choices = (measure, int(k), tuple(by))
    return _kept(
        dataset,
        settings,
        ("segments", *choices, options_key(options)),
        lambda: _segments_of(dataset, settings, *choices),
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
    return t("review.macro_note", averaging=labels.policy_name("averaging", settings.averaging))


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
    warm-up (:func:`ui.server_start.warm_up`)."""
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
