"""Comparison tables built from an :class:`~metrics.engine.evaluation.Evaluation`.

A *baseline* model is compared with one or more *candidates* on each measure (and, optionally,
within each value of one or two segment columns), using the paired statistics of
:mod:`metrics.review.statistics`:

* :func:`comparison_table` — one row per candidate × measure (× segment): means, delta, CI,
  p-values, corrected p-value, wins/ties/losses, effect size;
* :func:`delta_curves` — delta and CI at every K (one set of sign vectors for all K);
* :func:`query_deltas` — per-query values of baseline and candidate (scatter, biggest movers);
* :func:`headline` — the table in plain sentences.

Means here are macro means over the *paired* queries (the per-query values the tests use).
The family of a multiple-testing correction is every row of one table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from metrics import schema as S
from metrics.engine.evaluation import Evaluation, curves
from metrics.engine.registry import parse_measure
from metrics.errors import SettingsError
from metrics.io.messages import Template, plural_form
from metrics.review.rows import TEST_COLUMNS as COLUMNS
from metrics.review.statistics import (
    CORRECTIONS,
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MISSING_POLICIES,
    Correction,
    MissingPolicy,
    adjust_pvalues,
    check_resamples,
    compare_pairs,
    pair_values,
    test_intervals,
)

#: Wordings by key, as the ``templates`` arguments of the sentence functions take them: each
#: one text, or plural forms by the count ``n`` (a :data:`~metrics.io.messages.Template`,
#: ``{"one": "1 query", "other": "{n} queries"}``; see :func:`count_form`).
Wording = Mapping[str, Template]


def count_form(message: Template, n: int | None = None) -> str:
    """The form of ``message`` for the count ``n``: a message of plural forms gives ``"one"``
    for 1 and ``"other"`` otherwise (English; the Chinese and Japanese catalogs write one plain
    text, its own only form), as :func:`metrics.io.messages.plural_form` does for the
    catalogs."""
    if isinstance(message, str):
        return message
    return plural_form(message, "en", {"n": n})


#: Which p-value the correction and the "significant" flag use, by default.
DEFAULT_TEST = "p_randomization"
TESTS: dict[str, str] = {
    "p_randomization": "paired randomization (sign-flip) test",
    "p_ttest": "paired t-test",
    "p_wilcoxon": "Wilcoxon signed-rank test",
}
DEFAULT_ALPHA = 0.05
#: The most segment columns a review breaks down by (each on its own, or crossed into cells).
MAX_SEGMENT_COLUMNS = 2


@dataclass(frozen=True)
class CompareOptions:
    """Choices of one comparison (for provenance and reports).

    Attributes
    ----------
    policy:
        Queries scored by one model only: ``"intersection"`` or ``"zero"``.
    resamples:
        Bootstrap and randomization resamples.
    seed:
        Random seed (results are deterministic given it).
    confidence:
        Level of the bootstrap interval.
    correction:
        ``"holm"``, ``"bh"`` or ``"none"``.
    test:
        The p-value that is corrected and flags significance (a key of :data:`TESTS`).
    alpha:
        Significance level for the corrected p-value.
    """

    policy: MissingPolicy = "intersection"
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    confidence: float = DEFAULT_CONFIDENCE
    correction: Correction = "holm"
    test: str = DEFAULT_TEST
    alpha: float = DEFAULT_ALPHA

    def __post_init__(self) -> None:
        if self.test not in TESTS:
            raise SettingsError(f"test must be one of {', '.join(TESTS)}; got {self.test!r}.")
        check_resamples(int(self.resamples))

    def describe(self) -> list[tuple[str, str]]:
        """(label, value explained) pairs, for display and reports."""
        return [
            ("Queries in one model only", f"{self.policy}: {MISSING_POLICIES[self.policy]}"),
            (
                "Confidence interval",
                f"{self.confidence:.0%}: the shifts the significance test does not reject "
                "(it excludes 0 exactly when the test rejects)",
            ),
            (
                "Significance test",
                f"{TESTS[self.test]} ({self.resamples:,} resamples where random), two-sided",
            ),
            ("Multiple testing", CORRECTIONS[self.correction]),
            ("Significance level", f"corrected p < {self.alpha:g}"),
            ("Random seed", str(self.seed)),
        ]


def model_values(
    evaluation: Evaluation, model: str, measure: str, rows: pd.Index | None = None
) -> pd.Series:
    """Per-query values of one model and measure, indexed by query id.

    ``rows`` (query ids) restricts the result, e.g. to one segment.
    """
    table = evaluation.per_query
    if model not in evaluation.models:
        raise SettingsError(f"no model named {model!r}; models: {', '.join(evaluation.models)}.")
    part = table.loc[table[S.MODEL] == model, [S.QUERY, measure]]
    series = pd.Series(
        part[measure].to_numpy(dtype=np.float64), index=part[S.QUERY].astype(str).to_numpy()
    )
    if rows is not None:
        series = series[series.index.isin(rows)]
    return series


#: Direction codes of :func:`comparison_table` (data codes; display text comes from catalogs).
DIRECTIONS = ("better", "worse", "unclear")


def _direction(delta: float, significant: bool) -> str:
    if not significant or math.isnan(delta) or delta == 0:
        return "unclear"
    return "better" if delta > 0 else "worse"


#: Segment value of a query with no value in a segment column: a query absent from the query
#: table and a query whose value is empty are both missing.
MISSING = "(missing)"


def segment_of_query(
    segments: pd.DataFrame, by: list[str], queries: Sequence[object] | pd.Index | None = None
) -> pd.DataFrame:
    """Query id (as text) and the ``by`` columns as text, :data:`MISSING` where a query has no
    value.

    The one rule of a missing segment value, read by every segment table, test and export: with
    ``queries`` (the queries that are compared, e.g. those of the run), the result has one row
    per query of ``queries`` (first occurrence order) and those absent from ``segments`` are
    :data:`MISSING` in every column, as are empty values; queries of ``segments`` outside
    ``queries`` are left out. Without ``queries``, the rows of ``segments``.
    """
    absent = [c for c in by if c not in segments.columns]
    if absent:
        raise SettingsError(
            f"no segment column {absent[0]!r}; columns: "
            f"{', '.join(c for c in segments.columns if c != S.QUERY)}."
        )
    table = segments[[S.QUERY, *by]].copy()
    table[S.QUERY] = table[S.QUERY].astype(str)
    table = table.drop_duplicates(S.QUERY)
    if queries is not None:
        ids = pd.Series(pd.unique(pd.Series(list(queries), dtype=object).astype(str)))
        table = pd.DataFrame({S.QUERY: ids}).merge(table, on=S.QUERY, how="left")
    for c in by:
        table[c] = table[c].astype(object).where(table[c].notna(), MISSING).astype(str)
    return table.reset_index(drop=True)


def queries_in_table(segments: pd.DataFrame, queries: Sequence[object] | pd.Index) -> int:
    """How many of ``queries`` (ids compared as text) are in the query table ``segments``: 0
    when the table's ids match none of them (every query's segment is then :data:`MISSING`)."""
    ids = pd.Index(pd.unique(pd.Series(list(queries), dtype=object).astype(str)))
    return int(ids.isin(segments[S.QUERY].astype(str)).sum())


def compared_queries(evaluation: Evaluation, models: Sequence[str]) -> pd.Index:
    """Query ids (as text) that at least one of ``models`` has a row for, in first occurrence
    order: the queries a segment table of these models covers."""
    table = evaluation.per_query
    part = table.loc[table[S.MODEL].isin(list(models)), S.QUERY].astype(str)
    return pd.Index(pd.unique(part))


def _segment_groups(
    segments: pd.DataFrame | None, by: list[str], queries: pd.Index
) -> list[tuple[tuple[object, ...], pd.Index]]:
    if not by:
        return [((), None)]
    if segments is None:
        raise SettingsError("segment columns were given but there is no segment table.")
    groups = []
    table = segment_of_query(segments, by, queries)
    for key, part in table.groupby(by, sort=True, observed=True):
        key = key if isinstance(key, tuple) else (key,)
        groups.append((key, pd.Index(part[S.QUERY])))
    return groups


def comparison_table(
    evaluation: Evaluation,
    baseline: str,
    candidates: list[str] | None = None,
    measures: list[str] | None = None,
    *,
    segments: pd.DataFrame | None = None,
    by: list[str] | None = None,
    options: CompareOptions = CompareOptions(),
) -> pd.DataFrame:
    """Paired comparison of each candidate with the baseline, per measure (and segment).

    Parameters
    ----------
    evaluation:
        Per-query values of every model (:func:`metrics.evaluate`).
    baseline:
        The reference model.
    candidates:
        Models compared with it; every other model when ``None``.
    measures:
        Measure names (columns of ``evaluation.per_query``); all when ``None``.
    segments, by:
        Query-level table and one or two of its columns: one row per segment value of the
        compared queries (:data:`MISSING` for those absent from the table or with an empty
        value, see :func:`segment_of_query`).
    options:
        Missing-query policy, resamples, seed, confidence, correction, test, alpha.

    Returns
    -------
    DataFrame
        Columns :data:`COLUMNS` (the ``by`` columns after ``candidate``); ``p_adjusted`` is
        ``options.test`` corrected over all rows; ``direction`` is ``better``/``worse`` when the
        corrected p-value is below ``alpha``, ``unclear`` otherwise; the
        ``only_in_*`` and ``undefined`` columns count queries left out of the pairs.
    """
    by = list(by or [])
    candidates = [m for m in (candidates or evaluation.models) if m != baseline]
    measures = list(measures or evaluation.measure_names)
    values = {
        (model, measure): model_values(evaluation, model, measure)
        for model in [baseline, *candidates]
        for measure in measures
    }
    rows = []
    compared = compared_queries(evaluation, [baseline, *candidates])
    for key, queries in _segment_groups(segments, by, compared):
        for candidate in candidates:
            for measure in measures:
                a, b = values[(baseline, measure)], values[(candidate, measure)]
                if queries is not None:
                    a, b = a[a.index.isin(queries)], b[b.index.isin(queries)]
                pairs = pair_values(a, b, options.policy)
                result = compare_pairs(
                    pairs,
                    resamples=options.resamples,
                    seed=options.seed,
                    confidence=options.confidence,
                )
                row: dict[str, Any] = {
                    "baseline": baseline,
                    "candidate": candidate,
                    **dict(zip(by, key)),
                    "measure": measure,
                    **result.to_dict(),
                }
                for name in ("only_in_baseline", "only_in_candidate", "undefined"):
                    row[name] = len(row[name])
                rows.append(row)
    columns = COLUMNS[:2] + by + COLUMNS[2:]
    table = pd.DataFrame(rows, columns=columns)
    table["p_adjusted"] = (
        adjust_pvalues(table[options.test].to_numpy(dtype=np.float64), options.correction)
        if len(table)
        else []
    )
    table["significant"] = table["p_adjusted"] < options.alpha
    table["direction"] = [_direction(d, s) for d, s in zip(table["delta"], table["significant"])]
    return table


def delta_curves(
    evaluation: Evaluation,
    baseline: str,
    candidate: str,
    measure: str,
    k_max: int,
    *,
    options: CompareOptions = CompareOptions(),
) -> pd.DataFrame:
    """Mean of each model, delta and its interval at every K = 1..k_max.

    The interval is the review's test inverted (one set of sign vectors for every K), so the
    band at K equals the interval of :func:`comparison_table` for the measure at that K (same
    seed).

    Returns
    -------
    DataFrame
        Columns ``k``, ``mean_a``, ``mean_b``, ``delta``, ``ci_low``, ``ci_high``, ``n``.
    """
    spec = parse_measure(measure, for_curve=True)
    per_k = curves({m: evaluation.lists[m] for m in (baseline, candidate)}, spec, k_max)
    # One pairing for every surface: pair_values on each query's row number (+1, so that a
    # query scored 0 under the "zero" policy reads as "no row"); a query undefined at any K
    # is undefined.
    rows = {}
    for model in (baseline, candidate):
        values = np.asarray(per_k[model], dtype=np.float64).reshape(-1, k_max)
        position = np.arange(1, len(values) + 1, dtype=np.float64)
        position[np.isnan(values).any(axis=1)] = np.nan
        ids = evaluation.lists[model].query_ids.astype(str)
        rows[model] = (values, pd.Series(position, index=ids))
    pairs = pair_values(rows[baseline][1], rows[candidate][1], options.policy)

    def gather(model: str, position: np.ndarray) -> np.ndarray:
        values = rows[model][0]
        out = np.zeros((len(position), k_max))
        present = position > 0
        out[present] = values[position[present].astype(np.int64) - 1]
        return out

    va, vb = gather(baseline, pairs.a), gather(candidate, pairs.b)
    diff = vb - va
    n = len(diff)
    if n:
        low, high = test_intervals(
            diff, options.test, options.resamples, options.seed, options.confidence
        )
        mean_a, mean_b = va.mean(axis=0), vb.mean(axis=0)
    else:
        low = high = mean_a = mean_b = np.full(k_max, np.nan)
    return pd.DataFrame(
        {
            "k": np.arange(1, k_max + 1),
            "mean_a": mean_a,
            "mean_b": mean_b,
            "delta": mean_b - mean_a,
            "ci_low": low,
            "ci_high": high,
            "n": n,
        }
    )


def query_deltas(
    evaluation: Evaluation,
    baseline: str,
    candidate: str,
    measure: str,
    *,
    policy: MissingPolicy = "intersection",
) -> pd.DataFrame:
    """Per-query values of baseline and candidate and their difference, biggest gains first.

    Returns
    -------
    DataFrame
        Columns ``query``, ``baseline``, ``candidate``, ``delta``, sorted by ``delta``
        descending (ties by query id).
    """
    pairs = pair_values(
        model_values(evaluation, baseline, measure),
        model_values(evaluation, candidate, measure),
        policy,
    )
    table = pd.DataFrame(
        {
            S.QUERY: pairs.queries.astype(str),
            "baseline": pairs.a,
            "candidate": pairs.b,
            "delta": pairs.diff,
        }
    )
    return table.sort_values(
        ["delta", S.QUERY], ascending=[False, True], kind="stable"
    ).reset_index(drop=True)


def biggest_movers(deltas: pd.DataFrame, count: int = 10) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ``count`` queries that gained most and lost most (only strict gains/losses)."""
    gained = deltas[deltas["delta"] > 0].head(count)
    lost = deltas[deltas["delta"] < 0].sort_values(["delta", S.QUERY], kind="stable").head(count)
    return gained.reset_index(drop=True), lost.reset_index(drop=True)


#: English wording of :func:`headline` and :func:`format_p`; pass a mapping with the same keys
#: (and the same ``{placeholders}``) to word the sentences in another language. Numbers are
#: formatted before they are put in, so every language shows them the same way.
HEADLINE_TEMPLATES: dict[str, str] = {
    "sentence.headline.better": (
        "{candidate} beats {baseline} on {measure}: {mean_b} vs {mean_a}, delta {delta}"
        "{relative}; {confidence} CI [{ci_low}, {ci_high}]; corrected {p} ({sure}; {wins} "
        "queries better, {losses} worse, {ties} tied)."
    ),
    "sentence.headline.worse": (
        "{candidate} is worse than {baseline} on {measure}: {mean_b} vs {mean_a}, delta "
        "{delta}{relative}; {confidence} CI [{ci_low}, {ci_high}]; corrected {p} ({sure}; "
        "{wins} queries better, {losses} worse, {ties} tied)."
    ),
    "sentence.headline.unclear": (
        "{candidate} is not clearly different from {baseline} on {measure}: {mean_b} vs "
        "{mean_a}, delta {delta}{relative}; {confidence} CI [{ci_low}, {ci_high}]; corrected "
        "{p} ({sure}; {wins} queries better, {losses} worse, {ties} tied)."
    ),
    "sentence.headline.relative": " ({value})",
    "sentence.headline.clear": "clear",
    "sentence.headline.not_significant": "not significant",
    "sentence.headline.no_shared": "{candidate} and {baseline} share no query on {measure}.",
    "sentence.p.undefined": "p undefined",
}


def _template(templates: Wording | None, key: str, defaults: Wording) -> str:
    """``templates[key]`` when given, the English default otherwise (one text)."""
    if templates is not None and key in templates:
        return count_form(templates[key])
    return count_form(defaults[key])


def format_p(p: float, templates: Wording | None = None) -> str:
    """A p-value for people: ``p < 0.001`` or ``p = 0.042`` (``p undefined`` when NaN).

    ``templates`` may word the undefined case (key ``sentence.p.undefined``).
    """
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return _template(templates, "sentence.p.undefined", HEADLINE_TEMPLATES)
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def headline(
    table: pd.DataFrame,
    confidence: float = DEFAULT_CONFIDENCE,
    templates: Wording | None = None,
) -> list[str]:
    """One plain sentence per row of a :func:`comparison_table` (without segment columns).

    Parameters
    ----------
    table:
        A :func:`comparison_table`.
    confidence:
        Level of the intervals in the table (shown as ``95%``).
    templates:
        Wording by key (see :data:`HEADLINE_TEMPLATES`); missing keys fall back to English.

    Examples
    --------
    ``"hybrid beats lexical on nDCG@10: 0.773 vs 0.540, delta +0.233 (+43.3%); 95% CI
    [+0.20, +0.27]; corrected p < 0.001 (clear; 228 queries better, 65 worse, 7 tied)."``
    """

    def word(key: str) -> str:
        return _template(templates, key, HEADLINE_TEMPLATES)

    sentences = []
    for row in table.itertuples(index=False):
        names = {"candidate": row.candidate, "baseline": row.baseline, "measure": row.measure}
        if row.n == 0:
            sentences.append(word("sentence.headline.no_shared").format(**names))
            continue
        kind = {"better": "better", "worse": "worse"}.get(row.direction, "unclear")
        relative = (
            ""
            if math.isnan(row.relative_delta)
            else word("sentence.headline.relative").format(value=f"{row.relative_delta:+.1%}")
        )
        sure = word(
            "sentence.headline.clear" if row.significant else "sentence.headline.not_significant"
        )
        sentences.append(
            word(f"sentence.headline.{kind}").format(
                **names,
                mean_b=f"{row.mean_b:.3f}",
                mean_a=f"{row.mean_a:.3f}",
                delta=f"{row.delta:+.3f}",
                relative=relative,
                confidence=f"{confidence:.0%}",
                ci_low=f"{row.ci_low:+.3f}",
                ci_high=f"{row.ci_high:+.3f}",
                p=format_p(row.p_adjusted, templates),
                sure=sure,
                wins=row.wins,
                losses=row.losses,
                ties=row.ties,
            )
        )
    return sentences


__all__ = [
    "COLUMNS",
    "DEFAULT_ALPHA",
    "DEFAULT_TEST",
    "DIRECTIONS",
    "HEADLINE_TEMPLATES",
    "MISSING",
    "TESTS",
    "CompareOptions",
    "Template",
    "Wording",
    "biggest_movers",
    "compared_queries",
    "comparison_table",
    "count_form",
    "delta_curves",
    "format_p",
    "headline",
    "model_values",
    "queries_in_table",
    "query_deltas",
    "segment_of_query",
]
