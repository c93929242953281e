"""One comparison result, computed once and read by every review surface.

:func:`review_table` computes, for one :class:`ReviewRequest` (baseline, candidates, measures,
segment columns, test, correction, resamples, seed, correction family, the smallest difference
that matters, power), one table of paired comparisons. Each row is a (kind, reference,
candidate, measure, segment) with ``n``, means, delta, the unadjusted interval and the interval
adjusted for the row's family, the three raw p-values, the p-value of the chosen test
(``p_raw``), the corrected p-value, the family it was corrected in (code, size and words), the
verdict code (``better`` / ``worse`` / ``unclear``), the reason in words when interval and test
seem to disagree, the size of the difference against the one that matters, and how large a
difference the data could detect (minimum detectable effect, queries needed). The Compare,
Segments and Report pages, the CSV and JSON exports and ``python -m metrics compare`` all read
this table, and the headline (:mod:`metrics.review.headline`) is generated from it, so the same
comparison shows the same numbers and the same verdict everywhere.

Row kinds: ``baseline`` (a candidate against the baseline, over all queries or one segment)
and ``pairwise`` (two candidates against each other, over all queries).

Correction families (:data:`FAMILIES`), the same on every surface and named on every row:

* ``view`` (default): one family per table a reader sees — the overall table (measures ×
  candidates), the segment table (segments × measures × candidates: every measure, as the
  segment table, its exports and the headline show them) and the candidate pairs (pairs ×
  measures);
* ``measure``: the same tables, each measure its own family;
* ``all``: every row of the table in one family.

With the ``tukey`` correction the randomized Tukey HSD (:mod:`metrics.review.tukey`) tests all
pairs of models of one measure (within one segment) at once: that is its family.

Intervals: ``ci_low``/``ci_high`` are the unadjusted percentile bootstrap interval at the
chosen confidence; ``ci_adj_low``/``ci_adj_high`` hold the interval of the same family as the
corrected p-value (``ci_adj_method``): Bonferroni level ``1 − α/m`` for Holm, the
false-coverage-rate level ``1 − α R/m`` of Benjamini and Yekutieli (2005) for
Benjamini–Hochberg (``R`` significant rows of ``m``), ``1 − α`` without correction, and the
Tukey HSD's simultaneous half width for ``tukey``.

A Monte Carlo randomization p-value cannot be smaller than ``1 / (resamples + 1)``; rows at that
floor carry ``p_bound = True`` and :func:`metrics.review.wording.format_p` prints them as a
bound (``p < 0.0005``). The words of the table (p-values, families, intervals, reasons) are in
:mod:`metrics.review.wording`, the segment call-outs in :mod:`metrics.review.callouts`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from metrics.engine.evaluation import Evaluation
from metrics.engine.registry import (
    DEFAULT_REVIEW_K,
    DEFAULT_REVIEW_MEASURES,
    lead_measure,
    parse_measure,
    split_cutoff,
)
from metrics.errors import MetricsError, SettingsError
from metrics.review.compare import (
    MAX_SEGMENT_COLUMNS,
    CompareOptions,
    compared_queries,
    model_values,
    segment_of_query,
)
from metrics.review.heterogeneity import pooled_from_summary
from metrics.review.intervals import Inversion, agree_with_test
from metrics.review.power import DEFAULT_POWER, minimum_detectable_effect, queries_needed
from metrics.review.rows import ALL, COLUMNS
from metrics.review.statistics import Pairs, adjust_pvalues, compare_many, pair_values
from metrics.review.tukey import letter_display, tukey_hsd
from metrics.review.wording import family_text

Family = Literal["view", "measure", "all"]

#: Defaults shared by the app and ``python -m metrics compare``: the measures (at
#: :data:`DEFAULT_K`) and the statistics (:class:`CompareOptions` defaults: 5,000 resamples,
#: seed 0, 95% intervals, Holm, randomization test, alpha 0.05).
DEFAULT_MEASURES: tuple[str, ...] = DEFAULT_REVIEW_MEASURES
DEFAULT_K = DEFAULT_REVIEW_K

#: Correction families — every value explained.
FAMILIES: dict[str, str] = {
    "view": "one family per table: the overall table (measures × candidates), the segment "
    "table (segments × measures × candidates), the candidate pairs (pairs × measures)",
    "measure": "one family per table and measure: each measure's overall rows, segment rows "
    "and candidate pairs apart",
    "all": "every comparison of the review in one family",
}
DEFAULT_FAMILY: Family = "view"

#: Row kinds.
BASELINE_KIND = "baseline"
PAIRWISE_KIND = "pairwise"
#: Verdict codes (data codes: colours and filters key on them; display text comes from
#: catalogs).
BETTER, WORSE, UNCLEAR = "better", "worse", "unclear"
VERDICTS = (BETTER, WORSE, UNCLEAR)

#: Why a row without a clear difference may seem to have one (``reason``; words in catalogs):
#: ``correction`` — significant before the correction for its family, not after;
#: ``unadjusted`` — its unadjusted interval (at the review's confidence) excludes 0.
REASONS = ("correction", "unadjusted")
#: Tiers of evidence (``tier``), named the same on every surface: ``confirmed`` (significant
#: after correction and, when set, as large as the difference that matters), ``watch`` (not
#: confirmed, but the row's own test is below alpha before correction) and ``none`` (no
#: evidence of a difference; the minimum detectable effect says how large one could hide).
CONFIRMED, WATCH, NO_EVIDENCE = "confirmed", "watch", "none"
TIERS = (CONFIRMED, WATCH, NO_EVIDENCE)
#: The difference against the one that matters (``magnitude``): ``above`` — significant and at
#: least as large; ``below`` — significant but smaller; ``within`` — no clear difference and
#: the adjusted interval inside ``± min_effect`` (no difference that matters); empty otherwise.
MAGNITUDES = ("above", "below", "within")
#: How the adjusted interval was made (``ci_adj_method``).
INTERVAL_METHODS = ("inverted", "tukey")


def _min_effect_items(
    values: Mapping[str, float] | Sequence[tuple[str, float]],
) -> tuple[tuple[str, float], ...]:
    items = values.items() if isinstance(values, Mapping) else values
    out = []
    for name, value in items:
        value = float(value)
        if not math.isfinite(value) or value < 0:
            raise SettingsError(
                f"the smallest difference that matters must be a number of 0 or more; got "
                f"{value!r} for {name!r}."
            )
        out.append((str(name), value))
    return tuple(out)


@dataclass(frozen=True)
class ReviewRequest:
    """What one review compares, with which statistics.

    Attributes
    ----------
    baseline:
        The reference model.
    candidates:
        Models compared with it (and, when two or more, with each other).
    measures:
        Measure columns of the evaluation (e.g. ``nDCG@10``). Their order does not change any
        number or sentence.
    by:
        Segment columns (at most two), each broken down on its own; empty for no segment rows.
    cross:
        Cross the two ``by`` columns into cells instead (an opt-in view: the cells are small).
    lead:
        The measure the review decides on (:func:`metrics.review.decision.lead_measure`: the
        chosen one when computed, else ``nDCG@10``, else the first measure).
    guardrails:
        Segments a candidate must not lose (segment names such as ``country = JP``, or whole
        segment columns such as ``country``); empty: every segment.
    options:
        Missing-query policy, resamples, seed, confidence, correction, test, alpha.
    family:
        Correction family, a key of :data:`FAMILIES`.
    min_effect:
        The smallest difference that matters, per measure: ``(name, value)`` pairs where the
        name is a measure column (``nDCG@10``), a measure at every cutoff (``nDCG``) or ``*``
        (every measure). Empty: none (verdicts by significance alone).
    power:
        The power of the minimum detectable effect and of the queries needed.
    """

    baseline: str
    candidates: tuple[str, ...]
    measures: tuple[str, ...]
    by: tuple[str, ...] = ()
    options: CompareOptions = field(default_factory=CompareOptions)
    family: str = DEFAULT_FAMILY
    min_effect: tuple[tuple[str, float], ...] = ()
    power: float = DEFAULT_POWER
    cross: bool = False
    lead: str = ""
    guardrails: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise SettingsError(
                f"family must be one of {', '.join(FAMILIES)}; got {self.family!r}."
            )
        if self.baseline in self.candidates:
            raise SettingsError(
                f"the baseline {self.baseline!r} cannot also be a candidate; candidates: "
                f"{', '.join(self.candidates)}."
            )
        if len(self.by) > MAX_SEGMENT_COLUMNS:
            raise SettingsError(
                f"at most {MAX_SEGMENT_COLUMNS} segment columns; got {', '.join(self.by)}."
            )
        if not 0 < self.power < 1:
            raise SettingsError(f"power must be between 0 and 1 (e.g. 0.8); got {self.power!r}.")
        object.__setattr__(self, "min_effect", _min_effect_items(self.min_effect))
        object.__setattr__(self, "lead", lead_measure(self.measures, self.lead or None))
        object.__setattr__(self, "guardrails", tuple(self.guardrails))

    def min_effect_of(self, measure: str) -> float:
        """The smallest difference that matters for the measure column ``measure`` (``NaN``
        when none is set): its own entry, else its measure's at every cutoff, else ``*``."""
        given = dict(self.min_effect)
        if measure in given:
            return given[measure]
        base = _measure_base(measure)
        for name, value in given.items():
            if name != "*" and _measure_base(name) == base and not split_cutoff(name)[1]:
                return value
        return given.get("*", math.nan)


def _measure_base(name: str) -> str:
    """The measure of a column name at any cutoff, lower case (``ndcg`` for ``nDCG@10`` and
    for ``ndcg``)."""
    head = split_cutoff(name)[0]
    try:
        return parse_measure(head, for_curve=True).definition.name.lower()
    except MetricsError:  # not a measure of the registry (a per-query table's column)
        return head.lower()


def value_column(column: str) -> str:
    """The review table's column holding the values of segment column ``column``: its own name,
    or ``"<name> (segment)"`` when the name is one of :data:`COLUMNS` (``kind``, ``test``)."""
    return f"{column} (segment)" if column in COLUMNS else column


def segment_name(values: Mapping[str, object], by: Sequence[str]) -> str:
    """``country = JP`` (``query_type = nav, traffic = head`` for two columns)."""
    return ", ".join(f"{c} = {values[c]}" for c in by)


def segment_columns_of(by: Sequence[str], cross: bool) -> list[list[str]]:
    """The segment breakdowns of a review: each ``by`` column on its own, or the columns crossed
    into one breakdown (``cross``)."""
    if not by:
        return []
    return [list(by)] if cross or len(by) == 1 else [[c] for c in by]


def p_floor(n: int, resamples: int, test: str) -> float:
    """Smallest p-value the test can give: ``1 / (resamples + 1)`` for a Monte Carlo
    randomization test, ``NaN`` for exact tests (enumeration, t-test, Wilcoxon)."""
    if test != "p_randomization" or n == 0 or 2 ** min(n, 62) <= resamples:
        return math.nan
    return 1.0 / (resamples + 1)


def measure_order(names: Sequence[str]) -> list[str]:
    """Measure columns in one order whatever order they were chosen in (by name, then cutoff):
    the headline lists them so, so that its wording never depends on the menu's order."""

    def key(name: str) -> tuple[str, float, str]:
        base, cut = split_cutoff(name)
        try:
            k = float(cut) if cut else -1.0
        except ValueError:
            k = math.inf
        return (base.lower(), k, name)

    return sorted(dict.fromkeys(names), key=key)


# --------------------------------------------------------------------------- families


def _family_key(row: Mapping[str, object], family: str, correction: str) -> tuple[object, ...]:
    if correction == "tukey":
        return ("tukey", row["measure"], row["segment"])
    if family == "all":
        return ("all",)
    if row["kind"] == PAIRWISE_KIND:
        scope = "pairwise"
    elif row["segment"] == ALL:
        scope = "overall"
    else:
        scope = "segments"
    return (scope, row["measure"]) if family == "measure" else (scope,)


def _family_code(key: tuple[object, ...], rows: pd.DataFrame, models: int) -> str:
    """The family's code with its counts. Only the comparisons that were tested count: a row
    without a p-value (no paired query) is not in the correction.

    ``overall:4x2`` (measures × candidates), ``segments:5x4x2`` (segments × measures ×
    candidates), ``pairwise:3x4`` (candidate pairs × measures); restricted to the row's own
    measure: ``overall-measure:2``, ``segments-measure:5x2``, ``pairwise-measure:3``;
    ``all:58``; ``tukey:3`` (all pairs of 3 models, the row's measure and segment).
    """
    tested = rows[rows["p_raw"].notna()]
    n_measures = tested["measure"].nunique()
    n_candidates = tested["candidate"].nunique()
    n_segments = tested["segment"].nunique()
    n_pairs = tested[["reference", "candidate"]].drop_duplicates().shape[0]
    scope, one_measure = key[0], len(key) > 1
    if scope == "tukey":
        return f"tukey:{models}"
    if scope == "all":
        return f"all:{len(tested)}"
    if scope == "overall":
        return (
            f"overall-measure:{n_candidates}"
            if one_measure
            else (f"overall:{n_measures}x{n_candidates}")
        )
    if scope == "segments":
        return (
            f"segments-measure:{n_segments}x{n_candidates}"
            if one_measure
            else (f"segments:{n_segments}x{n_measures}x{n_candidates}")
        )
    return f"pairwise-measure:{n_pairs}" if one_measure else f"pairwise:{n_pairs}x{n_measures}"


# --------------------------------------------------------------------------- the table


@dataclass
class _Spec:
    kind: str
    reference: str
    candidate: str
    measure: str
    segment: str
    named: dict[str, str]
    queries: pd.Index | None


def _specs(
    request: ReviewRequest,
    measures: Sequence[str],
    groups: Sequence[tuple[str, dict[str, str], pd.Index | None]],
    by: Sequence[str],
) -> list[_Spec]:
    """The rows of a review: each candidate against the baseline on each measure over all
    queries and in each segment, then each pair of candidates over all queries."""
    specs = [
        _Spec(BASELINE_KIND, request.baseline, candidate, measure, segment, named, queries)
        for segment, named, queries in groups
        for candidate in request.candidates
        for measure in measures
    ]
    for i, first in enumerate(request.candidates):
        specs += [
            _Spec(PAIRWISE_KIND, first, second, measure, ALL, dict.fromkeys(by, ALL), None)
            for second in request.candidates[i + 1 :]
            for measure in measures
        ]
    return specs


def review_table(
    evaluation: Evaluation, request: ReviewRequest, segments: pd.DataFrame | None = None
) -> pd.DataFrame:
    """The one comparison table of a review (see the module docstring).

    Parameters
    ----------
    evaluation:
        Per-query values of every model (:func:`metrics.evaluate`), with the request's
        measures as columns.
    request:
        What to compare and how.
    segments:
        Query-level table holding the ``request.by`` columns (needed when ``by`` is given).

    Returns
    -------
    DataFrame
        Columns :data:`COLUMNS`, then one column per ``by`` column (the segment values,
        :data:`ALL` on rows over every query; named by :func:`value_column`). Rows: baseline
        comparisons over all queries (candidate × measure), then per segment, then the pairwise
        candidate comparisons; measures in the order of :func:`measure_order`.

    Raises
    ------
    SettingsError
        When a model or measure of the request is not in the evaluation, or segment columns are
        given without a segment table.
    """
    options = request.options
    by = list(request.by)
    _check_request(evaluation, request, segments)
    measures = measure_order(request.measures)
    models = [request.baseline, *request.candidates]
    stored = [value_column(c) for c in by]
    values = {
        (model, measure): model_values(evaluation, model, measure)
        for model in models
        for measure in measures
    }
    groups = _groups(segments, by, compared_queries(evaluation, models), request.cross)
    specs = _specs(request, measures, groups, by)

    masks: dict[tuple[str, str, str], np.ndarray] = {}

    def within(model: str, measure: str, spec: _Spec) -> pd.Series:
        """The model's values on the queries of the spec's segment (one mask per model and
        segment: every measure of a model has the same queries)."""
        series = values[(model, measure)]
        if spec.queries is None:
            return series
        key = (model, spec.segment, str(len(series)))
        if key not in masks:
            masks[key] = np.asarray(series.index.isin(spec.queries))
        return series[masks[key]]

    def pairs_of(spec: _Spec) -> Pairs:
        a = within(spec.reference, spec.measure, spec)
        b = within(spec.candidate, spec.measure, spec)
        return pair_values(a, b, options.policy)

    results, inversions = compare_many(
        [pairs_of(s) for s in specs],
        resamples=options.resamples,
        seed=options.seed,
        confidence=options.confidence,
        test=options.test,
    )
    rows = []
    for spec, result in zip(specs, results):
        data: dict[str, Any] = result.to_dict()
        for name in ("only_in_baseline", "only_in_candidate", "undefined"):
            data[name] = len(data[name])
        rows.append(
            {
                "kind": spec.kind,
                "reference": spec.reference,
                "candidate": spec.candidate,
                "measure": spec.measure,
                "segment": spec.segment,
                "segment_column": " × ".join(c for c in by if spec.named.get(c, ALL) != ALL),
                **data,
                "test": options.test,
                "p_raw": data[options.test],
            }
            | dict(zip(stored, spec.named.values()))
        )
    out = pd.DataFrame(rows)
    if out.empty:
        return pd.DataFrame(columns=COLUMNS + stored)
    out["p_floor"] = [p_floor(int(n), options.resamples, options.test) for n in out["n"]]
    tukey = _tukey(values, specs, models, request) if options.correction == "tukey" else None
    out = _correct(out, request, inversions, tukey, len(models))
    return out[COLUMNS + stored].reset_index(drop=True)


def _check_request(
    evaluation: Evaluation, request: ReviewRequest, segments: pd.DataFrame | None
) -> None:
    for model in [request.baseline, *request.candidates]:
        if model not in evaluation.models:
            raise SettingsError(
                f"no model named {model!r}; models: {', '.join(evaluation.models)}."
            )
    for measure in request.measures:
        if measure not in evaluation.per_query.columns:
            raise SettingsError(
                f"no measure {measure!r} in the evaluation; measures: "
                f"{', '.join(evaluation.measure_names)}."
            )
    if request.by and segments is None:
        raise SettingsError("segment columns were given but there is no segment table.")


def _groups(
    segments: pd.DataFrame | None, by: list[str], queries: pd.Index, cross: bool = False
) -> list[tuple[str, dict[str, str], pd.Index | None]]:
    """(segment name, segment values, its queries) for all queries, then each segment of
    ``queries`` (:func:`segment_of_query`: absent and empty values are one missing segment), per
    breakdown of :func:`segment_columns_of` (the other columns' values are :data:`ALL`)."""
    groups: list[tuple[str, dict[str, str], pd.Index | None]] = [
        (ALL, dict.fromkeys(by, ALL), None)
    ]
    for columns in segment_columns_of(by, cross):
        table = segment_of_query(segments, columns, queries)
        for key, part in table.groupby(columns, sort=True, observed=True):
            key = key if isinstance(key, tuple) else (key,)
            named = dict.fromkeys(by, ALL) | dict(zip(columns, map(str, key)))
            groups.append((segment_name(named, columns), named, pd.Index(part["query"])))
    return groups


def _tukey(
    values: Mapping[tuple[str, str], pd.Series],
    specs: Sequence[_Spec],
    models: Sequence[str],
    request: ReviewRequest,
) -> dict[tuple[str, str], tuple[dict[tuple[str, str], float], float]]:
    """(measure, segment) -> ({(reference, candidate): HSD p}, simultaneous half width): the
    randomized Tukey HSD of every model of the review on the queries they all have (each
    model's missing queries scored 0 under the ``zero`` policy)."""
    options = request.options
    out = {}
    seen: set[tuple[str, str]] = set()
    for spec in specs:
        key = (spec.measure, spec.segment)
        if key in seen:
            continue
        seen.add(key)
        columns = []
        for model in models:
            series = values[(model, spec.measure)]
            if spec.queries is not None:
                series = series[series.index.isin(spec.queries)]
            columns.append(series[~series.index.duplicated()].rename(model))
        frame = pd.concat(columns, axis=1, join="outer" if options.policy == "zero" else "inner")
        frame = frame.fillna(0.0) if options.policy == "zero" else frame
        frame = frame.dropna()
        result = tukey_hsd(frame.to_numpy(dtype=np.float64), options.resamples, options.seed)
        p = {
            (first, second): float(result.pvalues[i, j])
            for i, first in enumerate(models)
            for j, second in enumerate(models)
            if i != j
        }
        out[key] = (p, result.half_width(options.alpha) if len(frame) else math.nan)
    return out


def _correct(
    out: pd.DataFrame,
    request: ReviewRequest,
    inversions: Sequence[Inversion],
    tukey: Mapping[tuple[str, str], tuple[dict[tuple[str, str], float], float]] | None,
    n_models: int,
) -> pd.DataFrame:
    """Corrected p-values, families, intervals, significance, verdicts, reasons, magnitudes and
    power of the raw rows."""
    options = request.options
    alpha = options.alpha
    records = out.to_dict("records")
    keys = [_family_key(r, request.family, options.correction) for r in records]
    out["correction"] = options.correction
    adjusted = np.full(len(out), np.nan)
    size = np.zeros(len(out), dtype=int)
    codes = [""] * len(out)
    where_of: dict[tuple[object, ...], np.ndarray] = {}
    for key in dict.fromkeys(keys):
        where = np.flatnonzero([k == key for k in keys])
        where_of[key] = where
        part = out.iloc[where]
        p = part["p_raw"].to_numpy(dtype=np.float64)
        tested = ~np.isnan(p)
        if tukey is not None:
            hsd, _ = tukey[(str(key[1]), str(key[2]))]
            adjusted[where] = [
                hsd.get((r, c), math.nan) if ok else math.nan
                for r, c, ok in zip(part["reference"], part["candidate"], tested)
            ]
        else:
            adjusted[where] = adjust_pvalues(p, options.correction)
        size[where] = int(np.count_nonzero(tested))
        code = _family_code(key, part, n_models)
        for i in where:
            codes[i] = code
    out["p_adjusted"] = adjusted
    out["family"] = codes
    out["family_size"] = size
    out["family_text"] = [family_text(r) for r in out.to_dict("records")]
    # A corrected p computed from raw p-values at the floor is an upper bound, never exact.
    floor = out["p_floor"].to_numpy(dtype=np.float64)
    at_floor = ~np.isnan(floor) & (out["p_raw"].to_numpy(dtype=np.float64) <= floor * (1 + 1e-9))
    out["p_bound"] = at_floor & (options.correction != "tukey")
    out["alpha"] = alpha
    out["significant"] = out["p_adjusted"] < alpha
    out["verdict"] = [verdict_code(d, s) for d, s in zip(out["delta"], out["significant"])]
    _adjusted_intervals(out, where_of, inversions, tukey, request)
    out["min_effect"] = [request.min_effect_of(str(m)) for m in out["measure"]]
    out["reason"] = [_reason(r) for r in out.to_dict("records")]
    out["magnitude"] = [_magnitude(r) for r in out.to_dict("records")]
    out["tier"] = [_tier(r) for r in out.to_dict("records")]
    out["delta_pooled"] = _pooled(out)
    out["power"] = request.power
    out["power_alpha"] = [
        alpha / max(1, int(s)) if options.correction != "none" else alpha for s in size
    ]
    out["mde"] = [
        minimum_detectable_effect(float(sd), int(n), float(a), request.power)
        for sd, n, a in zip(out["sd"], out["n"], out["power_alpha"])
    ]
    out["queries_needed"] = [
        queries_needed(
            float(sd), float(e) if not math.isnan(e) else float(d), float(a), request.power
        )
        for sd, e, d, a in zip(out["sd"], out["min_effect"], out["delta"], out["power_alpha"])
    ]
    return out


def row_level(alpha: float, p_raw: float, p_adjusted: float) -> float:
    """The level at which a row's own test decides, given its correction: ``α · p / p_adj``.

    The corrected p-value is the raw one times the row's multiplicity factor (``m`` for
    Bonferroni, ``m − i + 1`` at Holm's ``i``-th step, ``m / rank`` for Benjamini–Hochberg,
    each made monotone), so ``p_adj < α`` exactly when ``p < α · p / p_adj``: the interval of
    the test inverted at this level excludes 0 exactly when the corrected test rejects.

    >>> row_level(0.05, 0.01, 0.04), row_level(0.05, 0.2, 1.0), row_level(0.05, 0.03, 0.03)
    (0.0125, 0.010000000000000002, 0.05)
    """
    if math.isnan(p_raw) or math.isnan(p_adjusted) or p_adjusted <= 0 or p_raw <= 0:
        return alpha
    return alpha * min(1.0, p_raw / p_adjusted)


def _adjusted_intervals(
    out: pd.DataFrame,
    where_of: Mapping[tuple[object, ...], np.ndarray],
    inversions: Sequence[Inversion],
    tukey: Mapping[tuple[str, str], tuple[dict[tuple[str, str], float], float]] | None,
    request: ReviewRequest,
) -> None:
    """``ci_adj_low``, ``ci_adj_high``, ``ci_adj_level`` and ``ci_adj_method`` of every row:
    the row's test inverted at the level its correction gives it (:func:`row_level`), or the
    Tukey HSD's simultaneous half width; either way the interval excludes 0 exactly when the
    row is significant."""
    alpha, correction = request.options.alpha, request.options.correction
    low = np.full(len(out), np.nan)
    high = np.full(len(out), np.nan)
    level = np.full(len(out), np.nan)
    significant = out["significant"].to_numpy(dtype=bool)
    delta = out["delta"].to_numpy(dtype=np.float64)
    p_raw = out["p_raw"].to_numpy(dtype=np.float64)
    p_adjusted = out["p_adjusted"].to_numpy(dtype=np.float64)
    for key, where in where_of.items():
        for i in where:
            if out["n"].iloc[i] == 0:
                continue
            if correction == "tukey":
                _, half = tukey[(str(key[1]), str(key[2]))] if tukey else ({}, math.nan)
                low[i], high[i], level[i] = delta[i] - half, delta[i] + half, 1 - alpha
            else:
                tail = row_level(alpha, p_raw[i], p_adjusted[i])
                low[i], high[i] = inversions[i].interval(tail)
                level[i] = 1 - tail
            low[i], high[i] = agree_with_test(low[i], high[i], significant[i], delta[i])
    out["ci_adj_low"] = low
    out["ci_adj_high"] = high
    out["ci_adj_level"] = level
    out["ci_adj_method"] = "tukey" if correction == "tukey" else "inverted"


def _excludes_zero(low: float, high: float) -> bool:
    return not (math.isnan(low) or math.isnan(high)) and (low > 0 or high < 0)


def _reason(row: Mapping[str, Any]) -> str:
    """The :data:`REASONS` code of a row without a clear difference (empty otherwise):
    ``correction`` when its raw p was below alpha, else ``unadjusted`` when its unadjusted
    interval (at the review's confidence, which may differ from ``1 − alpha``) excludes 0.
    Intervals agree with their tests, so no other disagreement can arise."""
    if row["n"] == 0 or math.isnan(float(row["p_adjusted"])) or row["verdict"] != UNCLEAR:
        return ""
    if float(row["p_raw"]) < float(row["alpha"]) and row["correction"] != "none":
        return "correction"
    if _excludes_zero(float(row["ci_low"]), float(row["ci_high"])):
        return "unadjusted"
    return ""


def _pooled(out: pd.DataFrame) -> np.ndarray:
    """Each segment row's partially pooled difference (:mod:`metrics.review.heterogeneity`),
    within its candidate, measure and segment column; ``NaN`` on other rows."""
    pooled = np.full(len(out), np.nan)
    part = out[(out["kind"] == BASELINE_KIND) & (out["segment"] != ALL) & (out["n"] > 0)]
    keys = ["candidate", "measure", "segment_column"]
    for _, group in part.groupby(keys, sort=False):
        where = out.index.get_indexer(group.index)
        pooled[where] = pooled_from_summary(
            group["n"].to_numpy(dtype=np.float64),
            group["delta"].to_numpy(dtype=np.float64),
            group["sd"].to_numpy(dtype=np.float64),
        )
    return pooled


def _tier(row: Mapping[str, Any]) -> str:
    """The :data:`TIERS` code of a row: ``confirmed`` when significant after its family's
    correction (and, when set, at least the smallest difference that matters); ``watch`` when
    not, but its own test's raw p is below alpha (so, with no difference anywhere, a row is a
    watch item at most at the rate alpha); ``none`` otherwise."""
    if row["n"] == 0 or math.isnan(float(row["p_raw"])):
        return NO_EVIDENCE
    if row["verdict"] != UNCLEAR:
        return CONFIRMED if row["magnitude"] != "below" else NO_EVIDENCE
    return WATCH if float(row["p_raw"]) < float(row["alpha"]) else NO_EVIDENCE


def _magnitude(row: Mapping[str, Any]) -> str:
    """The :data:`MAGNITUDES` code of one row (empty without a smallest difference that
    matters)."""
    effect = float(row["min_effect"])
    if math.isnan(effect) or row["n"] == 0:
        return ""
    if row["verdict"] != UNCLEAR:
        return "above" if abs(float(row["delta"])) >= effect else "below"
    low, high = float(row["ci_adj_low"]), float(row["ci_adj_high"])
    if not (math.isnan(low) or math.isnan(high)) and -effect < low and high < effect:
        return "within"
    return ""


def verdict_code(delta: float, significant: bool) -> str:
    """``better`` / ``worse`` when significant after correction, ``unclear`` otherwise."""
    if not significant or delta is None or math.isnan(delta) or delta == 0:
        return UNCLEAR
    return BETTER if delta > 0 else WORSE


# --------------------------------------------------------------------------- views of the table


def overall_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Candidate-vs-baseline rows over all queries."""
    return table[(table["kind"] == BASELINE_KIND) & (table["segment"] == ALL)].reset_index(
        drop=True
    )


def segment_rows(table: pd.DataFrame, measure: str | None = None) -> pd.DataFrame:
    """Candidate-vs-baseline rows of the segments (of one measure when given)."""
    part = table[(table["kind"] == BASELINE_KIND) & (table["segment"] != ALL)]
    if measure is not None:
        part = part[part["measure"] == measure]
    return part.reset_index(drop=True)


def pairwise_rows(table: pd.DataFrame, measure: str | None = None) -> pd.DataFrame:
    """Candidate-vs-candidate rows (of one measure when given)."""
    part = table[table["kind"] == PAIRWISE_KIND]
    if measure is not None:
        part = part[part["measure"] == measure]
    return part.reset_index(drop=True)


def letter_groups(table: pd.DataFrame, measure: str) -> pd.DataFrame:
    """The compact letter display of every model of the review on ``measure`` over all queries
    (:func:`metrics.review.tukey.letter_display`): models sharing a letter are not
    significantly different after the correction (the baseline rows and the candidate pairs of
    the table decide), ``a`` for the group of the best mean.

    Returns
    -------
    DataFrame
        ``model``, ``mean`` (over the queries each row paired), ``letters``; best mean first.
    """
    rows = table[(table["segment"] == ALL) & (table["measure"] == measure)]
    means: dict[str, float] = {}
    different: set[frozenset[str]] = set()
    for row in rows.to_dict("records"):
        means.setdefault(str(row["reference"]), float(row["mean_a"]))
        means.setdefault(str(row["candidate"]), float(row["mean_b"]))
        if row["verdict"] != UNCLEAR:
            different.add(frozenset((str(row["reference"]), str(row["candidate"]))))
    models = sorted(means, key=lambda m: (-means[m] if not math.isnan(means[m]) else math.inf, m))
    letters = letter_display(models, means, different)
    return pd.DataFrame(
        {
            "model": models,
            "mean": [means[m] for m in models],
            "letters": [letters[m] for m in models],
        }
    )


__all__ = [
    "BASELINE_KIND",
    "BETTER",
    "COLUMNS",
    "CONFIRMED",
    "DEFAULT_FAMILY",
    "DEFAULT_K",
    "DEFAULT_MEASURES",
    "FAMILIES",
    "INTERVAL_METHODS",
    "MAGNITUDES",
    "NO_EVIDENCE",
    "PAIRWISE_KIND",
    "REASONS",
    "TIERS",
    "UNCLEAR",
    "VERDICTS",
    "WATCH",
    "WORSE",
    "ReviewRequest",
    "letter_groups",
    "measure_order",
    "overall_rows",
    "p_floor",
    "pairwise_rows",
    "review_table",
    "row_level",
    "segment_columns_of",
    "segment_name",
    "segment_rows",
    "value_column",
    "verdict_code",
]
