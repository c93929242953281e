"""The words of the review table: p-values, correction families, intervals, reasons, sizes.

:data:`VERDICT_TEMPLATES` holds the English wording of every sentence part the review prints
(the headline's sentences, :mod:`metrics.review.headline`, and the segment call-outs,
:mod:`metrics.review.callouts`, take theirs from it too); a mapping with the same keys words them
in another language. The functions here read the rows of
:func:`metrics.review.verdict.review_table` and compute nothing: every number is formatted before
it is put in a sentence, so every language shows it the same way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from metrics.review.compare import Template, Wording, count_form
from metrics.review.rows import ALL


def family_restricts_measure(code: str) -> bool:
    """Whether the family of ``code`` holds only its row's measure (``*-measure``, ``tukey``)."""
    scope = code.split(":", 1)[0]
    return scope.endswith("-measure") or scope == "tukey"


#: English wording of the p-values, families, intervals, reasons and sentences of the review
#: (the headline's in :mod:`metrics.review.headline`); pass a mapping with the same keys (and
#: ``{placeholders}``) to word them in another language. Numbers are formatted before they are
#: put in, so every language shows them the same way.
VERDICT_TEMPLATES: dict[str, Template] = {
    "sentence.p.value": "p = {value}",
    "sentence.p.below": "p < {value}",
    "sentence.p.undefined": "p undefined",
    "sentence.family.text": "{test}, {correction} over {family}",
    "sentence.family.none": "{test}, no correction",
    "sentence.family.empty": "{test}, no comparison with a p-value to correct",
    "sentence.family.tukey": "randomized Tukey HSD over all pairs of {models}{scope}",
    "sentence.family.overall": "{measures} × {candidates}",
    "sentence.family.overall_measure": "{candidates}",
    "sentence.family.segments": "{segments} × {measures} × {candidates}",
    "sentence.family.segments_measure": "{segments} × {candidates}",
    "sentence.family.pairwise": "{pairs} × {measures}",
    "sentence.family.pairwise_measure": "{pairs}",
    "sentence.family.all": {"one": "1 comparison", "other": "all {n} comparisons"},
    "sentence.family.of_measure": " ({measure})",
    "sentence.family.of_measure_segment": " ({measure}, {segment})",
    "sentence.family.each_measure": ", within each measure",
    "sentence.family.each_measure_segment": ", within each measure and segment",
    "sentence.family.count.measures": {"one": "1 measure", "other": "{n} measures"},
    "sentence.family.count.candidates": {"one": "1 candidate", "other": "{n} candidates"},
    "sentence.family.count.segments": {"one": "1 segment", "other": "{n} segments"},
    "sentence.family.count.pairs": {"one": "1 candidate pair", "other": "{n} candidate pairs"},
    "sentence.family.count.models": {"one": "1 model", "other": "{n} models"},
    "sentence.test.p_randomization": "randomization test",
    "sentence.test.p_ttest": "t-test",
    "sentence.test.p_wilcoxon": "Wilcoxon test",
    "sentence.correction.holm": "Holm",
    "sentence.correction.bh": "Benjamini–Hochberg",
    "sentence.interval.inverted": "{level} intervals of each row's own test at its corrected "
    "level: they exclude 0 exactly when the row is significant",
    "sentence.interval.tukey": "{level} simultaneous intervals of the Tukey HSD",
    "sentence.interval.mixed": "intervals of each row's own test at its corrected level: they "
    "exclude 0 exactly when the row is significant",
    "sentence.reason.correction": "significant before the correction for its family (raw "
    "{p_raw}), not after",
    "sentence.reason.unadjusted": "the unadjusted interval excludes 0; the interval adjusted "
    "for the family does not",
    "sentence.magnitude.above": "at least the {min_effect} that matters",
    "sentence.magnitude.below": "smaller than the {min_effect} that matters",
    "sentence.magnitude.within": "within ±{min_effect}: no difference that matters",
    "sentence.verdict.item": "{measure} ({delta}, {p})",
    "sentence.verdict.item_note": "{measure} ({delta}, {p}; {note})",
    "sentence.verdict.item_delta": "{measure} ({delta})",
    "sentence.verdict.items_same_p": "{items}, each {p}",
    "sentence.verdict.unclear_note": "{measure} ({note})",
    "sentence.verdict.part_better": "better on {items}",
    "sentence.verdict.part_worse": "worse on {items}",
    "sentence.verdict.part_unclear": "no clear difference on {items}",
    "sentence.verdict.part_watch": "to watch, not confirmed after the correction: {items}",
    "sentence.verdict.item_watch": "{measure} ({delta}, raw {p_raw})",
    "sentence.verdict.part_separator": "; ",
    "sentence.verdict.list_separator": ", ",
    "sentence.verdict.list_last": " and ",
    "sentence.verdict.overall": {
        "one": "{candidate} against {baseline}, over 1 query: {parts}.",
        "other": "{candidate} against {baseline}, over all {n} queries: {parts}.",
    },
    "sentence.verdict.none": {
        "one": "{candidate} is not clearly different from {baseline} on any measure over 1 query.",
        "other": "{candidate} is not clearly different from {baseline} on any measure over all "
        "{n} queries.",
    },
    "sentence.verdict.no_shared": "{candidate} and {baseline} share no query.",
    "sentence.verdict.segment": "Where {where}: {parts}.",
    "sentence.verdict.elsewhere": {
        "one": "In the other segment, no clear difference.",
        "other": "In the other {n} segments, no clear difference.",
    },
    "sentence.verdict.no_segment": {
        "one": "The one segment shows no clear difference after correction.",
        "other": "No segment differs clearly after correction ({n} segments).",
    },
    "sentence.verdict.power": {
        "one": "With 1 query, differences smaller than about {items} would likely go "
        "unnoticed ({power} power).",
        "other": "With {n} queries, differences smaller than about {items} would likely go "
        "unnoticed ({power} power).",
    },
    "sentence.verdict.power_item": "{mde} on {measure}",
    "sentence.verdict.needed": "Queries needed to detect the difference that matters "
    "({power} power): {items}.",
    "sentence.verdict.needed_item": "{queries} for {min_effect} on {measure}",
    "sentence.verdict.pair": "{candidate} against {reference}: {parts}.",
    "sentence.verdict.ahead": "{candidate} is ahead of the baseline and of every other "
    "candidate on {measures}.",
    "sentence.verdict.no_leader": "No candidate is clearly ahead of all the others on any measure.",
    "sentence.verdict.no_winner": "No candidate is clearly better than {baseline} on any measure.",
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


def word(templates: Wording | None, key: str, n: int | None = None) -> str:
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
        return word(templates, "sentence.p.undefined")
    if bound:
        return word(templates, "sentence.p.below").format(value=_round_up(float(p)))
    if p < 0.001:
        return word(templates, "sentence.p.below").format(value="0.001")
    return word(templates, "sentence.p.value").format(value=f"{p:.3f}")


def row_p(row: Mapping[str, Any], templates: Wording | None = None) -> str:
    """The corrected p-value of a :func:`review_table` row, as :func:`format_p` words it."""
    return format_p(float(row["p_adjusted"]), bool(row["p_bound"]), templates)


#: Family scope -> (its wording, the names of its counts in order).
_FAMILY_COUNTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "overall": ("sentence.family.overall", ("measures", "candidates")),
    "overall-measure": ("sentence.family.overall_measure", ("candidates",)),
    "segments": ("sentence.family.segments", ("segments", "measures", "candidates")),
    "segments-measure": ("sentence.family.segments_measure", ("segments", "candidates")),
    "pairwise": ("sentence.family.pairwise", ("pairs", "measures")),
    "pairwise-measure": ("sentence.family.pairwise_measure", ("pairs",)),
}


def _count(templates: Wording | None, name: str, value: str) -> str:
    return word(templates, f"sentence.family.count.{name}", int(value)).format(n=value)


def family_text(
    row: Mapping[str, object], templates: Wording | None = None, *, each: bool = False
) -> str:
    """``randomization test, Holm over 4 measures × 2 candidates`` for one row (each count in
    its plural form: ``1 segment × 2 candidates``).

    A family restricted to the row's own measure names it (``… over 5 segments × 1 candidate
    (nDCG@10)``); with ``each`` (the caption of a table of several measures) it says ``…,
    within each measure`` instead, so that a caption never names a measure its table does not
    restrict to.
    """
    test = word(templates, f"sentence.test.{row['test']}")
    if row["correction"] == "none":
        return word(templates, "sentence.family.none").format(test=test)
    if row.get("family_size", 1) == 0:
        return word(templates, "sentence.family.empty").format(test=test)
    family = str(row["family"])
    scope_code, _, counts_text = family.partition(":")
    counts = counts_text.split("x")
    segment = str(row.get("segment", ALL))
    if scope_code == "tukey":
        if each:
            scope = word(
                templates,
                "sentence.family.each_measure"
                if segment == ALL
                else "sentence.family.each_measure_segment",
            )
        elif segment == ALL:
            scope = word(templates, "sentence.family.of_measure").format(measure=row["measure"])
        else:
            scope = word(templates, "sentence.family.of_measure_segment").format(
                measure=row["measure"], segment=segment
            )
        return word(templates, "sentence.family.tukey").format(
            models=_count(templates, "models", counts[0]), scope=scope
        )
    if scope_code in _FAMILY_COUNTS:
        key, names = _FAMILY_COUNTS[scope_code]
        words = word(templates, key).format(
            **{name: _count(templates, name, value) for name, value in zip(names, counts)}
        )
    else:
        words = word(templates, "sentence.family.all", int(counts[0])).format(n=counts[0])
    if family_restricts_measure(family):
        words += (
            word(templates, "sentence.family.each_measure")
            if each
            else word(templates, "sentence.family.of_measure").format(measure=row["measure"])
        )
    return word(templates, "sentence.family.text").format(
        test=test,
        correction=word(templates, f"sentence.correction.{row['correction']}"),
        family=words,
    )


def family_caption(rows: pd.DataFrame, templates: Wording | None = None) -> str:
    """The family of a table's ``rows`` in words, for its caption: the one family text when all
    rows share it; a family restricted to each row's measure (or segment) is said to hold
    "within each measure" when the table has several, so that the caption names no measure it
    does not restrict to; several different families are listed. Empty without rows."""
    if not len(rows):
        return ""
    records = rows.to_dict("records")
    several = rows["measure"].nunique() > 1 or (
        str(records[0]["family"]).startswith("tukey") and rows["segment"].nunique() > 1
    )
    texts = list(dict.fromkeys(family_text(r, templates, each=several) for r in records))
    return "; ".join(texts)


def interval_text(rows: pd.DataFrame, templates: Wording | None = None) -> str:
    """How the adjusted intervals of ``rows`` were made, in words (``98.75% intervals at the
    Bonferroni level of the family``); rows of families of different levels are said to hold
    the level of their own family. Empty without rows."""
    if not len(rows):
        return ""
    method = str(rows["ci_adj_method"].iloc[0])
    levels = rows["ci_adj_level"].dropna().unique()
    if len(levels) != 1:
        return word(templates, "sentence.interval.mixed")
    level = f"{float(levels[0]) * 100:.2f}".rstrip("0").rstrip(".") + "%"
    return word(templates, f"sentence.interval.{method}").format(level=level)


def reason_text(row: Mapping[str, Any], templates: Wording | None = None) -> str:
    """The :data:`REASONS` code of a row in words (empty when there is none)."""
    codes = [c for c in str(row.get("reason") or "").split(",") if c]
    if not codes:
        return ""
    values = {"p_raw": format_p(float(row["p_raw"]), False, templates), "p": row_p(row, templates)}
    return "; ".join(word(templates, f"sentence.reason.{code}").format(**values) for code in codes)


def magnitude_text(row: Mapping[str, Any], templates: Wording | None = None) -> str:
    """The :data:`MAGNITUDES` code of a row in words (empty when there is none)."""
    code = str(row.get("magnitude") or "")
    if not code:
        return ""
    return word(templates, f"sentence.magnitude.{code}").format(
        min_effect=f"{float(row['min_effect']):g}"
    )


def p_with_family(row: Mapping[str, object], templates: Wording | None = None) -> str:
    """``p = 0.137 (randomization test, Holm over 5 segments × 2 candidates (nDCG@10))``."""
    return f"{row_p(row, templates)} ({family_text(row, templates)})"


__all__ = [
    "VERDICT_TEMPLATES",
    "family_caption",
    "family_restricts_measure",
    "family_text",
    "format_p",
    "interval_text",
    "magnitude_text",
    "p_with_family",
    "reason_text",
    "row_p",
    "word",
]
