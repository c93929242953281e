"""One comparison result, computed once and read by every review surface.

:func:`review_table` computes, for one :class:`ReviewRequest` (baseline, candidates, measures,
segment columns, test, correction, resamples, seed, correction family), one table of paired
comparisons. Each row is a (kind, reference, candidate, measure, segment) with ``n``, means,
delta, CI, the three raw p-values, the p-value of the chosen test (``p_raw``), the corrected
p-value, the family it was corrected in (code, size and words) and the verdict code
(``better`` / ``worse`` / ``unclear``). The Compare and Segments pages, the CSV and JSON
exports, ``python -m metrics compare`` and the HTML report all read this table, so the same
comparison shows the same numbers everywhere.

Row kinds: ``baseline`` (a candidate against the baseline, over all queries or one segment)
and ``pairwise`` (two candidates against each other, over all queries).

Correction families (:data:`FAMILIES`):

* ``view`` (default): one family per view — the overall table (measures × candidates), the
  segment table of each measure (segments × candidates) and the candidate matrix
  (pairs × measures);
* ``all``: every row of the table in one family.

A Monte Carlo randomization p-value cannot be smaller than ``1 / (resamples + 1)``; rows at that
floor carry ``p_bound = True`` and :func:`format_p` prints them as a bound (``p < 0.0005``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from metrics.engine.evaluation import Evaluation
from metrics.engine.registry import DEFAULT_REVIEW_K, DEFAULT_REVIEW_MEASURES
from metrics.errors import SettingsError
from metrics.review.compare import (
    CompareOptions,
    Template,
    Wording,
    compared_queries,
    count_form,
    model_values,
    segment_of_query,
)
from metrics.review.statistics import PairedResult, adjust_pvalues, compare_pairs, pair_values

Family = Literal["view", "all"]

#: Defaults shared by the app and ``python -m metrics compare``: the measures (at
#: :data:`DEFAULT_K`) and the statistics (:class:`CompareOptions` defaults: 5,000 resamples,
#: seed 0, 95% intervals, Holm, randomization test, alpha 0.05).
DEFAULT_MEASURES: tuple[str, ...] = DEFAULT_REVIEW_MEASURES
DEFAULT_K = DEFAULT_REVIEW_K

#: Correction families — every value explained.
FAMILIES: dict[str, str] = {
    "view": "one family per view: the overall table, each measure's segment table, the "
    "candidate matrix",
    "all": "every comparison of the review in one family",
}
DEFAULT_FAMILY: Family = "view"

#: Segment value of the rows over all queries.
ALL = "(all)"
#: Row kinds.
BASELINE_KIND = "baseline"
PAIRWISE_KIND = "pairwise"
#: Verdict codes (data codes: colours and filters key on them; display text comes from
#: catalogs).
BETTER, WORSE, UNCLEAR = "better", "worse", "unclear"
VERDICTS = (BETTER, WORSE, UNCLEAR)

#: Short test names used in sentences.
TEST_NAMES: dict[str, str] = {
    "p_randomization": "randomization test",
    "p_ttest": "t-test",
    "p_wilcoxon": "Wilcoxon test",
}

COLUMNS = [
    "kind",
    "reference",
    "candidate",
    "measure",
    "segment",
    "n",
    "mean_a",
    "mean_b",
    "delta",
    "relative_delta",
    "ci_low",
    "ci_high",
    "p_randomization",
    "p_ttest",
    "p_wilcoxon",
    "test",
    "p_raw",
    "p_floor",
    "p_adjusted",
    "p_bound",
    "correction",
    "family",
    "family_size",
    "family_text",
    "alpha",
    "significant",
    "verdict",
    "wins",
    "ties",
    "losses",
    "effect_size",
    "only_in_baseline",
    "only_in_candidate",
    "undefined",
]


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
        Measure columns of the evaluation (e.g. ``nDCG@10``); the first is the primary one of
        the verdict sentences.
    by:
        Segment columns (one or two, combined); empty for no segment rows.
    options:
        Missing-query policy, resamples, seed, confidence, correction, test, alpha.
    family:
        Correction family, a key of :data:`FAMILIES`.
    """

    baseline: str
    candidates: tuple[str, ...]
    measures: tuple[str, ...]
    by: tuple[str, ...] = ()
    options: CompareOptions = field(default_factory=CompareOptions)
    family: str = DEFAULT_FAMILY

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
        if len(self.by) > 2:
            raise SettingsError(f"at most two segment columns; got {', '.join(self.by)}.")


def value_column(column: str) -> str:
    """The review table's column holding the values of segment column ``column``: its own name,
    or ``"<name> (segment)"`` when the name is one of :data:`COLUMNS` (``kind``, ``test``)."""
    return f"{column} (segment)" if column in COLUMNS else column


def segment_name(values: Mapping[str, object], by: Sequence[str]) -> str:
    """``country = JP`` (``query_type = nav, traffic = head`` for two columns)."""
    return ", ".join(f"{c} = {values[c]}" for c in by)


def _row(
    kind: str,
    reference: str,
    candidate: str,
    measure: str,
    segment: str,
    result: PairedResult,
    test: str,
) -> dict[str, object]:
    data: dict[str, Any] = result.to_dict()
    for name in ("only_in_baseline", "only_in_candidate", "undefined"):
        data[name] = len(data[name])
    return {
        "kind": kind,
        "reference": reference,
        "candidate": candidate,
        "measure": measure,
        "segment": segment,
        **data,
        "test": test,
        "p_raw": data[test],
    }


def p_floor(n: int, resamples: int, test: str) -> float:
    """Smallest p-value the test can give: ``1 / (resamples + 1)`` for a Monte Carlo
    randomization test, ``NaN`` for exact tests (enumeration, t-test, Wilcoxon)."""
    if test != "p_randomization" or n == 0 or 2 ** min(n, 62) <= resamples:
        return math.nan
    return 1.0 / (resamples + 1)


def _family_key(row: Mapping[str, object], family: str) -> tuple[object, ...]:
    if family == "all":
        return ("all",)
    if row["kind"] == PAIRWISE_KIND:
        return ("pairwise",)
    if row["segment"] == ALL:
        return ("overall",)
    return ("segments", row["measure"])


def _family_code(key: tuple[object, ...], rows: pd.DataFrame) -> str:
    """The family's code with its counts: ``overall:4x2`` (measures × candidates),
    ``segments:nDCG@10:5x2`` (segments × candidates), ``pairwise:3x4`` (pairs × measures),
    ``all:58``. Only the comparisons that were tested count: a row without a p-value (no
    paired query) is not in the correction."""
    tested = rows[rows["p_raw"].notna()]
    n_measures = tested["measure"].nunique()
    n_candidates = tested["candidate"].nunique()
    if key[0] == "overall":
        return f"overall:{n_measures}x{n_candidates}"
    if key[0] == "segments":
        return f"segments:{key[1]}:{tested['segment'].nunique()}x{n_candidates}"
    if key[0] == "pairwise":
        pairs = tested[["reference", "candidate"]].drop_duplicates().shape[0]
        return f"pairwise:{pairs}x{n_measures}"
    return f"all:{len(tested)}"


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
        candidate comparisons.

    Raises
    ------
    SettingsError
        When a model or measure of the request is not in the evaluation, or segment columns are
        given without a segment table.
    """
    options = request.options
    by = list(request.by)
    _check_request(evaluation, request, segments)
    stored = [value_column(c) for c in by]
    values = {
        (model, measure): model_values(evaluation, model, measure)
        for model in [request.baseline, *request.candidates]
        for measure in request.measures
    }
    groups = _groups(
        segments, by, compared_queries(evaluation, [request.baseline, *request.candidates])
    )

    def compare(
        reference: str, candidate: str, measure: str, queries: pd.Index | None
    ) -> PairedResult:
        a, b = values[(reference, measure)], values[(candidate, measure)]
        if queries is not None:
            a, b = a[a.index.isin(queries)], b[b.index.isin(queries)]
        return compare_pairs(
            pair_values(a, b, options.policy),
            resamples=options.resamples,
            seed=options.seed,
            confidence=options.confidence,
        )

    rows = []
    for segment, named, queries in groups:
        for candidate in request.candidates:
            for measure in request.measures:
                result = compare(request.baseline, candidate, measure, queries)
                row = _row(
                    BASELINE_KIND,
                    request.baseline,
                    candidate,
                    measure,
                    segment,
                    result,
                    options.test,
                )
                rows.append(row | dict(zip(stored, named.values())))
    for i, first in enumerate(request.candidates):
        for second in request.candidates[i + 1 :]:
            for measure in request.measures:
                result = compare(first, second, measure, None)
                row = _row(PAIRWISE_KIND, first, second, measure, ALL, result, options.test)
                rows.append(row | dict.fromkeys(stored, ALL))
    out = pd.DataFrame(rows, columns=[c for c in COLUMNS if c in _row_columns()] + stored)
    out["p_floor"] = [p_floor(int(n), options.resamples, options.test) for n in out["n"]]
    return _correct(out, request)[COLUMNS + stored].reset_index(drop=True)


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
    segments: pd.DataFrame | None, by: list[str], queries: pd.Index
) -> list[tuple[str, dict[str, str], pd.Index | None]]:
    """(segment name, segment values, its queries) for all queries, then each segment of
    ``queries`` (:func:`segment_of_query`: absent and empty values are one missing segment)."""
    groups: list[tuple[str, dict[str, str], pd.Index | None]] = [
        (ALL, dict.fromkeys(by, ALL), None)
    ]
    if by:
        table = segment_of_query(segments, by, queries)
        for key, part in table.groupby(by, sort=True, observed=True):
            key = key if isinstance(key, tuple) else (key,)
            named = dict(zip(by, map(str, key)))
            groups.append((segment_name(named, by), named, pd.Index(part["query"])))
    return groups


def _correct(out: pd.DataFrame, request: ReviewRequest) -> pd.DataFrame:
    """Corrected p-values, families, bounds, significance and verdicts of the raw rows."""
    options = request.options
    keys = [_family_key(r, request.family) for r in out.to_dict("records")]
    out["correction"] = options.correction
    adjusted = np.full(len(out), np.nan)
    size = np.zeros(len(out), dtype=int)
    codes = [""] * len(out)
    for key in dict.fromkeys(keys):
        where = np.flatnonzero([k == key for k in keys])
        part = out.iloc[where]
        p = part["p_raw"].to_numpy(dtype=np.float64)
        adjusted[where] = adjust_pvalues(p, options.correction)
        size[where] = int(np.count_nonzero(~np.isnan(p)))
        code = _family_code(key, part)
        for i in where:
            codes[i] = code
    out["p_adjusted"] = adjusted
    out["family"] = codes
    out["family_size"] = size
    out["family_text"] = [family_text(r) for r in out.to_dict("records")]
    # A corrected p computed from raw p-values at the floor is an upper bound, never exact.
    floor = out["p_floor"].to_numpy(dtype=np.float64)
    at_floor = ~np.isnan(floor) & (out["p_raw"].to_numpy(dtype=np.float64) <= floor * (1 + 1e-9))
    out["p_bound"] = at_floor
    out["alpha"] = options.alpha
    out["significant"] = out["p_adjusted"] < options.alpha
    out["verdict"] = [verdict_code(d, s) for d, s in zip(out["delta"], out["significant"])]
    return out


def _row_columns() -> set[str]:
    return set(COLUMNS) - {
        "p_floor",
        "p_adjusted",
        "p_bound",
        "correction",
        "family",
        "family_size",
        "family_text",
        "alpha",
        "significant",
        "verdict",
    }


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


# --------------------------------------------------------------------------- words

#: English wording of the p-values, families and verdict sentences; pass a mapping with the
#: same keys (and ``{placeholders}``) to word them in another language. Numbers are formatted
#: before they are put in, so every language shows them the same way.
VERDICT_TEMPLATES: dict[str, Template] = {
    "sentence.p.value": "p = {value}",
    "sentence.p.below": "p < {value}",
    "sentence.p.undefined": "p undefined",
    "sentence.family.text": "{test}, {correction} over {family}",
    "sentence.family.none": "{test}, no correction",
    "sentence.family.empty": "{test}, no comparison with a p-value to correct",
    "sentence.family.overall": "{measures} × {candidates}",
    "sentence.family.segments": "{segments} × {candidates} ({measure})",
    "sentence.family.pairwise": "{pairs} × {measures}",
    "sentence.family.all": {"one": "1 comparison", "other": "all {n} comparisons"},
    "sentence.family.count.measures": {"one": "1 measure", "other": "{n} measures"},
    "sentence.family.count.candidates": {"one": "1 candidate", "other": "{n} candidates"},
    "sentence.family.count.segments": {"one": "1 segment", "other": "{n} segments"},
    "sentence.family.count.pairs": {"one": "1 candidate pair", "other": "{n} candidate pairs"},
    "sentence.test.p_randomization": "randomization test",
    "sentence.test.p_ttest": "t-test",
    "sentence.test.p_wilcoxon": "Wilcoxon test",
    "sentence.correction.holm": "Holm",
    "sentence.correction.bh": "Benjamini–Hochberg",
    "sentence.verdict.all_better": {
        "one": "{candidate} is better than {baseline} on the one measure compared",
        "other": "{candidate} is better than {baseline} on all {n} measures",
    },
    "sentence.verdict.all_worse": {
        "one": "{candidate} is worse than {baseline} on the one measure compared",
        "other": "{candidate} is worse than {baseline} on all {n} measures",
    },
    "sentence.verdict.none": "{candidate} is not clearly different from {baseline} on any measure",
    "sentence.verdict.mixed": "{candidate} against {baseline}: {parts}",
    "sentence.verdict.part_better": "better on {measures}",
    "sentence.verdict.part_worse": "worse on {measures}",
    "sentence.verdict.part_unclear": "no clear difference on {measures}",
    "sentence.verdict.part_separator": "; ",
    "sentence.verdict.list_separator": ", ",
    "sentence.verdict.figure": "{measure} {delta} [{ci_low}, {ci_high}], corrected {p}",
    "sentence.verdict.first": "{summary}; {figure}.",
    "sentence.verdict.loses": {
        "one": "It loses where {where} (1 query, {delta}, corrected {p}).",
        "other": "It loses where {where} ({n} queries, {delta}, corrected {p}).",
    },
    "sentence.verdict.wins": {
        "one": "It wins where {where} (1 query, {delta}, corrected {p}).",
        "other": "It wins where {where} ({n} queries, {delta}, corrected {p}).",
    },
    "sentence.verdict.lower": {
        "one": "It scores lower where {where} (1 query, {delta}), but not significantly after "
        "correction ({p}).",
        "other": "It scores lower where {where} ({n} queries, {delta}), but not significantly "
        "after correction ({p}).",
    },
    "sentence.verdict.higher": {
        "one": "It scores higher where {where} (1 query, {delta}), but not significantly after "
        "correction ({p}).",
        "other": "It scores higher where {where} ({n} queries, {delta}), but not significantly "
        "after correction ({p}).",
    },
    "sentence.verdict.ship": "{candidate} is ahead of every other candidate on {measure} "
    "(significant after correction): the one to ship on this measure.",
    "sentence.verdict.no_leader": "No candidate is clearly ahead of the others on {measure}.",
    "sentence.verdict.no_winner": "No model is clearly ahead of {baseline} on {measure}.",
    "sentence.callout.overall_better": "{candidate} is better than {baseline} overall on "
    "{measure} ({delta}, corrected {p})",
    "sentence.callout.overall_worse": "{candidate} is worse than {baseline} overall on "
    "{measure} ({delta}, corrected {p})",
    "sentence.callout.overall_unclear": "{candidate} is not clearly different from {baseline} "
    "overall on {measure} ({delta}, corrected {p})",
    "sentence.callout.better": "{overall}, but is significantly better where {where}: {numbers}.",
    "sentence.callout.worse": "{overall}, but is significantly worse where {where}: {numbers}.",
    "sentence.callout.lower": "{overall}; it scores lower where {where}, but the difference is "
    "not significant after correction: {numbers}.",
    "sentence.callout.higher": "{overall}; it scores higher where {where}, but the difference "
    "is not significant after correction: {numbers}.",
    "sentence.callout.numbers": {
        "one": "{mean_b} vs {mean_a}, {delta} [{ci_low}, {ci_high}], 1 query, corrected {p} "
        "({family})",
        "other": "{mean_b} vs {mean_a}, {delta} [{ci_low}, {ci_high}], {n} queries, corrected "
        "{p} ({family})",
    },
    "sentence.callout.small": {
        "one": " Only 1 query: treat with care.",
        "other": " Only {n} queries: treat with care.",
    },
}


def _word(templates: Wording | None, key: str, n: int | None = None) -> str:
    """The wording of ``key`` (English when ``templates`` lacks it); a message of plural forms
    in the form of the count ``n`` (:func:`~metrics.review.compare.count_form`)."""
    if templates is not None and key in templates:
        return count_form(templates[key], n)
    return count_form(VERDICT_TEMPLATES[key], n)


def _round_up(value: float) -> str:
    """``value`` rounded up to one significant digit, as text (``0.0004998`` -> ``0.0005``)."""
    if value <= 0:
        return "0"
    exponent = math.floor(math.log10(value))
    step = 10.0**exponent
    digit = math.ceil(value / step - 1e-9)
    rounded = digit * step
    decimals = max(0, -exponent)
    return f"{rounded:.{decimals}f}"


def format_p(p: float, bound: bool = False, templates: Wording | None = None) -> str:
    """A p-value for people.

    ``bound`` (the p-value is at the floor of a resampling test, or a correction of it) gives
    ``p < 0.0005`` (the value rounded up to one significant digit). Otherwise ``p = 0.042``
    (three decimals), ``p < 0.001`` for smaller values; ``p undefined`` for ``NaN``.
    """
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return _word(templates, "sentence.p.undefined")
    if bound:
        return _word(templates, "sentence.p.below").format(value=_round_up(float(p)))
    if p < 0.001:
        return _word(templates, "sentence.p.below").format(value="0.001")
    return _word(templates, "sentence.p.value").format(value=f"{p:.3f}")


def row_p(row: Mapping[str, Any], templates: Wording | None = None) -> str:
    """The corrected p-value of a :func:`review_table` row, as :func:`format_p` words it."""
    return format_p(float(row["p_adjusted"]), bool(row["p_bound"]), templates)


def family_text(row: Mapping[str, object], templates: Wording | None = None) -> str:
    """``randomization test, Holm over 4 measures × 2 candidates`` for one row (each count in
    its plural form: ``1 segment × 2 candidates``)."""
    test = _word(templates, f"sentence.test.{row['test']}")
    if row["correction"] == "none":
        return _word(templates, "sentence.family.none").format(test=test)
    if row.get("family_size", 1) == 0:
        return _word(templates, "sentence.family.empty").format(test=test)
    family = str(row["family"])
    counts = family.rsplit(":", 1)[-1].split("x")

    def count(name: str, value: str) -> str:
        return _word(templates, f"sentence.family.count.{name}", int(value)).format(n=value)

    if family.startswith("overall"):
        words = _word(templates, "sentence.family.overall").format(
            measures=count("measures", counts[0]), candidates=count("candidates", counts[1])
        )
    elif family.startswith("segments"):
        words = _word(templates, "sentence.family.segments").format(
            segments=count("segments", counts[0]),
            candidates=count("candidates", counts[1]),
            measure=row["measure"],
        )
    elif family.startswith("pairwise"):
        words = _word(templates, "sentence.family.pairwise").format(
            pairs=count("pairs", counts[0]), measures=count("measures", counts[1])
        )
    else:
        words = _word(templates, "sentence.family.all", int(counts[0])).format(n=counts[0])
    return _word(templates, "sentence.family.text").format(
        test=test,
        correction=_word(templates, f"sentence.correction.{row['correction']}"),
        family=words,
    )


def p_with_family(row: Mapping[str, object], templates: Wording | None = None) -> str:
    """``p = 0.137 (randomization test, Holm over 5 segments × 2 candidates (nDCG@10))``."""
    return f"{row_p(row, templates)} ({family_text(row, templates)})"


def _join(items: Sequence[str], templates: Wording | None) -> str:
    return _word(templates, "sentence.verdict.list_separator").join(items)


def _figure(row: Mapping[str, object], templates: Wording | None) -> str:
    return _word(templates, "sentence.verdict.figure").format(
        measure=row["measure"],
        delta=f"{row['delta']:+.3f}",
        ci_low=f"{row['ci_low']:+.3f}",
        ci_high=f"{row['ci_high']:+.3f}",
        p=row_p(row, templates),
    )


def _segment_clause(row: Mapping[str, Any], templates: Wording | None) -> str:
    words: dict[str, Any] = {
        "where": row["segment"],
        "n": int(row["n"]),
        "delta": f"{row['delta']:+.3f}",
        "p": row_p(row, templates),
    }
    if row["verdict"] == WORSE:
        return _word(templates, "sentence.verdict.loses", words["n"]).format(**words)
    if row["verdict"] == BETTER:
        return _word(templates, "sentence.verdict.wins", words["n"]).format(**words)
    kind = "lower" if row["delta"] < 0 else "higher"
    return _word(templates, f"sentence.verdict.{kind}", words["n"]).format(**words)


def _contrary_segments(
    table: pd.DataFrame, candidate: str, measure: str, code: str
) -> list[dict[str, Any]]:
    """Segment rows of ``candidate`` on ``measure`` that point against its overall verdict:
    the opposite sign of a significant overall difference; with no clear overall difference, a
    segment that is significant, or that looks significant before the correction (raw p below
    alpha). Significant ones first, then by the size of the difference."""
    part = segment_rows(table, measure)
    part = part[(part["candidate"] == candidate) & (part["n"] > 0)]
    if code == BETTER:
        part = part[part["delta"] < 0]
    elif code == WORSE:
        part = part[part["delta"] > 0]
    else:
        part = part[part["significant"] | (part["p_raw"] < part["alpha"])]
    part = part.assign(_clear=~part["significant"], _size=-part["delta"].abs())
    records: list[dict[str, Any]] = part.sort_values(["_clear", "_size"], kind="stable").to_dict(
        "records"
    )
    return records


def candidate_verdict(
    table: pd.DataFrame, candidate: str, templates: Wording | None = None
) -> list[str]:
    """One or two plain sentences about ``candidate`` against the baseline.

    The first says on which measures it is better / worse / not clearly different (significance
    after correction decides) with the primary measure's delta, CI and corrected p; the second,
    when there are segment rows, names the segment of the primary measure that points most
    clearly against the overall verdict (only a significant one is called a loss or a win).
    """
    rows = overall_rows(table)
    rows = rows[rows["candidate"] == candidate]
    if rows.empty:
        return []
    baseline = str(rows["reference"].iloc[0])
    codes = list(rows["verdict"])
    names = {"candidate": candidate, "baseline": baseline, "n": len(rows)}
    if all(c == BETTER for c in codes):
        summary = _word(templates, "sentence.verdict.all_better", len(rows)).format(**names)
    elif all(c == WORSE for c in codes):
        summary = _word(templates, "sentence.verdict.all_worse", len(rows)).format(**names)
    elif all(c == UNCLEAR for c in codes):
        summary = _word(templates, "sentence.verdict.none").format(**names)
    else:
        parts = []
        for code in VERDICTS:
            chosen = list(rows.loc[rows["verdict"] == code, "measure"])
            if chosen:
                parts.append(
                    _word(templates, f"sentence.verdict.part_{code}").format(
                        measures=_join(chosen, templates)
                    )
                )
        summary = _word(templates, "sentence.verdict.mixed").format(
            **names, parts=_word(templates, "sentence.verdict.part_separator").join(parts)
        )
    primary = rows.iloc[0].to_dict()
    sentences = [
        _word(templates, "sentence.verdict.first").format(
            summary=summary, figure=_figure(primary, templates)
        )
    ]
    contrary = _contrary_segments(table, candidate, primary["measure"], primary["verdict"])
    if contrary:
        sentences.append(_segment_clause(contrary[0], templates))
    return sentences


def leader(table: pd.DataFrame, measure: str) -> str | None:
    """The candidate significantly better than the baseline and than every other candidate on
    ``measure`` (after correction), or ``None`` when no candidate is clearly ahead."""
    overall = overall_rows(table)
    overall = overall[overall["measure"] == measure]
    pairs = pairwise_rows(table, measure)
    for candidate in overall["candidate"]:
        row = overall[overall["candidate"] == candidate].iloc[0]
        if row["verdict"] != BETTER:
            continue
        beaten = True
        for other in overall["candidate"]:
            if other == candidate:
                continue
            ahead = (
                (pairs["reference"] == other)
                & (pairs["candidate"] == candidate)
                & (pairs["verdict"] == BETTER)
            ) | (
                (pairs["reference"] == candidate)
                & (pairs["candidate"] == other)
                & (pairs["verdict"] == WORSE)
            )
            if not ahead.any():
                beaten = False
                break
        if beaten:
            return str(candidate)
    return None


def verdict_sentences(
    table: pd.DataFrame, templates: Wording | None = None
) -> dict[str, list[str]]:
    """The verdict box: candidate -> its sentences, and ``""`` -> the closing sentence.

    The closing sentence names the candidate to ship on the primary measure only when it is
    significantly ahead of the baseline and of every other candidate; otherwise it says that no
    model (or no candidate) is clearly ahead.
    """
    overall = overall_rows(table)
    out: dict[str, list[str]] = {}
    for candidate in pd.unique(overall["candidate"]):
        out[str(candidate)] = candidate_verdict(table, str(candidate), templates)
    if overall.empty:
        return out
    measure = str(overall["measure"].iloc[0])
    baseline = str(overall["reference"].iloc[0])
    best = leader(table, measure)
    primary = overall[overall["measure"] == measure]
    if best is not None and primary["candidate"].nunique() > 1:
        out[""] = [
            _word(templates, "sentence.verdict.ship").format(candidate=best, measure=measure)
        ]
    elif not (primary["verdict"] == BETTER).any():
        out[""] = [
            _word(templates, "sentence.verdict.no_winner").format(
                baseline=baseline, measure=measure
            )
        ]
    elif primary["candidate"].nunique() > 1:
        out[""] = [_word(templates, "sentence.verdict.no_leader").format(measure=measure)]
    return out


# --------------------------------------------------------------------------- segment call-outs


def callouts(
    table: pd.DataFrame,
    measure: str,
    templates: Wording | None = None,
    min_queries: int = 20,
) -> pd.DataFrame:
    """Segments where a candidate's difference from the baseline points against its overall
    verdict on ``measure``, with one plain sentence each.

    A segment is listed when its delta has the opposite sign of a significant overall
    difference, or, while the overall difference is not significant, when it is significant or
    looks so before the correction (raw p below alpha). It is called
    better / worse only when significant after correction (the same corrected p as the segment
    table and the forest plot), otherwise "scores lower / higher, not significant".

    Returns
    -------
    DataFrame
        The :func:`review_table` rows (segments), with ``overall_verdict``, ``callout``
        (``worse``, ``better``, ``lower``, ``higher``) and ``sentence``; significant ones first.
    """
    overall = overall_rows(table)
    overall = overall[overall["measure"] == measure]
    found = []
    for row in overall.to_dict("records"):
        for seg in _contrary_segments(table, row["candidate"], measure, row["verdict"]):
            seg = {k: v for k, v in seg.items() if not k.startswith("_")}
            callout = (
                seg["verdict"]
                if seg["verdict"] != UNCLEAR
                else ("lower" if seg["delta"] < 0 else "higher")
            )
            sentence = callout_sentence(row, seg, callout, templates, min_queries)
            found.append(
                seg | {"overall_verdict": row["verdict"], "callout": callout, "sentence": sentence}
            )
    columns = [*table.columns, "overall_verdict", "callout", "sentence"]
    if not found:
        return pd.DataFrame(columns=columns)
    out = pd.DataFrame(found)
    out = out.assign(_clear=~out["significant"].astype(bool)).sort_values("_clear", kind="stable")
    return out[columns].reset_index(drop=True)


def callout_sentence(
    overall: Mapping[str, object],
    segment: Mapping[str, Any],
    kind: str,
    templates: Wording | None = None,
    min_queries: int = 20,
) -> str:
    """The sentence of one :func:`callouts` row."""
    overall_text = _word(templates, f"sentence.callout.overall_{overall['verdict']}").format(
        candidate=overall["candidate"],
        baseline=overall["reference"],
        measure=overall["measure"],
        delta=f"{overall['delta']:+.3f}",
        p=row_p(overall, templates),
    )
    numbers = _word(templates, "sentence.callout.numbers", int(segment["n"])).format(
        mean_b=f"{segment['mean_b']:.3f}",
        mean_a=f"{segment['mean_a']:.3f}",
        delta=f"{segment['delta']:+.3f}",
        ci_low=f"{segment['ci_low']:+.3f}",
        ci_high=f"{segment['ci_high']:+.3f}",
        n=int(segment["n"]),
        p=row_p(segment, templates),
        family=family_text(segment, templates),
    )
    text = _word(templates, f"sentence.callout.{kind}").format(
        overall=overall_text, where=segment["segment"], numbers=numbers
    )
    if int(segment["n"]) < min_queries:
        text += _word(templates, "sentence.callout.small", int(segment["n"])).format(
            n=int(segment["n"])
        )
    return text


__all__ = [
    "ALL",
    "BASELINE_KIND",
    "BETTER",
    "COLUMNS",
    "DEFAULT_FAMILY",
    "DEFAULT_K",
    "DEFAULT_MEASURES",
    "FAMILIES",
    "PAIRWISE_KIND",
    "UNCLEAR",
    "VERDICTS",
    "VERDICT_TEMPLATES",
    "WORSE",
    "ReviewRequest",
    "callout_sentence",
    "callouts",
    "candidate_verdict",
    "family_text",
    "format_p",
    "leader",
    "overall_rows",
    "p_floor",
    "p_with_family",
    "pairwise_rows",
    "review_table",
    "row_p",
    "segment_name",
    "segment_rows",
    "value_column",
    "verdict_code",
    "verdict_sentences",
]
