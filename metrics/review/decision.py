"""The decision of a review: the rule it follows, the tier of each row, and the recommendation.

A review decides on one **lead measure**
(:func:`metrics.engine.registry.lead_measure`: the one the user chose, else ``nDCG@10`` when the
review computes it, else the review's first measure). The headline, the report's first chart
and the Segments page all follow it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

# --------------------------------------------------------------------------- the decision
import numpy as np
import pandas as pd

from metrics.engine.registry import lead_measure
from metrics.review.compare import Wording, count_form, model_values, segment_of_query
from metrics.review.heterogeneity import heterogeneity_test
from metrics.review.rows import ALL
from metrics.review.statistics import adjust_pvalues, pair_values
from metrics.review.verdict import (
    BASELINE_KIND,
    CONFIRMED,
    PAIRWISE_KIND,
    WATCH,
    ReviewRequest,
    segment_columns_of,
)

if TYPE_CHECKING:
    from metrics.engine.evaluation import Evaluation

#: Recommendations, per candidate.
SHIP, DO_NOT_SHIP, CANNOT_TELL = "ship", "do_not_ship", "cannot_tell"
RECOMMENDATIONS = (SHIP, DO_NOT_SHIP, CANNOT_TELL)
#: Watch items shown per candidate in the headline (the table has every row).
MAX_WATCH = 2

#: The English words of the decision (catalog keys ``decision.*``).
DECISION_TEMPLATES: dict[str, Any] = {
    "decision.ship": "Ship {candidate}: {measure} {delta} ({relative}), {better} of {n} queries "
    "better, {worse} worse.",
    "decision.do_not_ship": "Do not ship {candidate}: {measure} {delta} ({relative}), "
    "{better} of {n} queries better, {worse} worse.",
    "decision.no_gain": "Do not ship {candidate} for {measure}: {delta}, within the {effect} "
    "that matters.",
    "decision.cannot_tell": "Cannot tell yet whether {candidate} is better: {measure} {delta}, "
    "{better} of {n} queries better, {worse} worse.",
    "decision.do_not_ship_segment": "Do not ship {candidate} as it is: {measure} {delta} "
    "({relative}) overall, {better} of {n} queries better, {worse} worse.",
    "decision.cannot_tell_segment": "Cannot tell yet for {candidate}: {measure} {delta} "
    "({relative}) overall, {better} of {n} queries better, {worse} worse.",
    "decision.watch_loss": "Watch {segment}: {measure} {a} → {b}, {worse} of {n} queries worse",
    "decision.watch_gain": "Largest gain in {segment}: {measure} {a} → {b}, {better} of {n} "
    "queries better",
    "decision.confirmed_loss": "Worse in {segment}: {measure} {a} → {b}, {worse} of {n} "
    "queries worse",
    "decision.watch_measure": "Watch {measure}: {delta}, {worse} of {n} queries worse",
    "decision.settle": {
        "one": "about 1 more query there would settle it",
        "other": "about {count} more queries there would settle it",
    },
    "decision.uneven": "Its effect differs across {column}",
    "decision.enough": "{n} queries could show a change of {mde} or more; a smaller one would "
    "likely go unnoticed.",
    "decision.pick": "Pick {best}: ahead of {other} on {measure} ({delta}).",
    "decision.ahead": "{best} is ahead of {other} on {measure} ({delta}).",
    "decision.tie": "{first} and {second} cannot be told apart on {measure}.",
    "decision.none": "No candidate to decide on.",
    "decision.clause_separator": "; ",
    "decision.full_stop": ".",
    "decision.recommendation.ship": "ship",
    "decision.recommendation.do_not_ship": "do not ship",
    "decision.recommendation.cannot_tell": "cannot tell yet",
}


def _w(templates: Wording | None, key: str, n: int | None = None) -> str:

    if templates is not None and key in templates:
        return count_form(templates[key], n)
    return count_form(DECISION_TEMPLATES[key], n)


@dataclass(frozen=True)
class Decision:
    """What a review recommends, and why, in at most three sentences per candidate.

    Attributes
    ----------
    lead:
        The measure decided on.
    recommendations:
        Candidate -> :data:`RECOMMENDATIONS` code.
    headline:
        The sentences, in order (each candidate's, then the choice between candidates).
    watch:
        Index labels of the review table's rows named as watch items or losses.
    heterogeneity:
        One row per candidate and segment column: statistic, p, Holm-corrected p, segments,
        ``uneven`` (the corrected p below alpha).
    by_candidate, closing:
        The same sentences, per candidate and the closing one (which to pick).
    """

    lead: str
    recommendations: dict[str, str] = field(default_factory=dict)
    headline: list[str] = field(default_factory=list)
    watch: list[int] = field(default_factory=list)
    heterogeneity: Any = None
    by_candidate: dict[str, list[str]] = field(default_factory=dict)
    closing: list[str] = field(default_factory=list)

    def text(self) -> str:
        return " ".join(self.headline)


def heterogeneity_table(
    evaluation: Evaluation,
    request: ReviewRequest,
    segments: pd.DataFrame | None,
) -> pd.DataFrame:
    """One heterogeneity test (:mod:`metrics.review.heterogeneity`) per candidate and segment
    breakdown on the lead measure, Holm-corrected across the breakdowns of a candidate."""

    columns = ["candidate", "column", "statistic", "p_value", "p_adjusted", "segments", "n",
               "uneven"]  # fmt: skip
    rows: list[dict[str, object]] = []
    options = request.options
    breakdowns = segment_columns_of(list(request.by), request.cross)
    if segments is None or not breakdowns or not request.lead:
        return pd.DataFrame(columns=columns)
    base = model_values(evaluation, request.baseline, request.lead)
    for candidate in request.candidates:
        pairs = pair_values(base, model_values(evaluation, candidate, request.lead), options.policy)
        found = []
        for by in breakdowns:
            table = segment_of_query(segments, by, pairs.queries)
            labels = table[by].astype(str).agg(" × ".join, axis=1).to_numpy()
            result = heterogeneity_test(pairs.b - pairs.a, labels, options.resamples, options.seed)
            found.append((" × ".join(by), result))
        p = np.array([r.p_value for _, r in found], dtype=np.float64)
        adjusted = adjust_pvalues(p, "holm") if len(p) else p
        for (name, result), p_adj in zip(found, adjusted):
            rows.append(
                {
                    "candidate": candidate,
                    "column": name,
                    "statistic": result.statistic,
                    "p_value": result.p_value,
                    "p_adjusted": float(p_adj),
                    "segments": result.segments,
                    "n": result.n,
                    "uneven": bool(p_adj < options.alpha),
                }
            )
    return pd.DataFrame(rows, columns=columns)


def _number(value: float) -> str:
    return f"{value:.2f}"


def _signed(value: float) -> str:
    return f"{value:+.2f}".replace("-", "−")


def _relative(row: Mapping[str, Any]) -> str:
    rel = float(row["relative_delta"])
    return "—" if math.isnan(rel) else f"{rel * 100:+.0f}%".replace("-", "−")


def _guarded(segment_row: Mapping[str, Any], guardrails: tuple[str, ...]) -> bool:
    if not guardrails:
        return True
    column = str(segment_row.get("segment_column", ""))
    return str(segment_row["segment"]) in guardrails or column in guardrails


def _segment_clause(key: str, row: Mapping[str, Any], templates: Wording | None) -> str:
    return _w(templates, key).format(
        segment=row["segment"],
        measure=row["measure"],
        a=_number(float(row["mean_a"])),
        b=_number(float(row["mean_b"])),
        better=int(row["wins"]),
        worse=int(row["losses"]),
        n=int(row["n"]),
    )


def _settle(row: Mapping[str, Any], templates: Wording | None) -> str:
    needed = float(row["queries_needed"])
    if math.isnan(needed) or math.isinf(needed):
        return ""
    more = max(1, math.ceil(needed) - int(row["n"]))
    return _w(templates, "decision.settle", more).format(count=more)


def _against(
    lead: pd.DataFrame, overall: Mapping[str, Any], request: ReviewRequest
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The lead measure's segment rows with evidence (confirmed or watch) that move against the
    candidate (losses; gains too when it is confirmed worse overall), largest first, and all
    segment rows with evidence."""

    rows = lead[(lead["segment"] != ALL) & lead["tier"].isin([CONFIRMED, WATCH])]
    worse_overall = overall["tier"] == CONFIRMED and float(overall["delta"]) < 0
    against = rows[rows["delta"] > 0] if worse_overall else rows[rows["delta"] < 0]
    order = against["delta"].abs().sort_values(ascending=False, kind="stable").index
    return against.loc[order], rows


def _recommendation(
    overall: Mapping[str, Any], against: pd.DataFrame, request: ReviewRequest
) -> tuple[str, str]:
    """The recommendation code and the key of its first sentence."""

    confirmed = overall["tier"] == CONFIRMED
    delta = float(overall["delta"])
    guarded = [r for _, r in against.iterrows() if _guarded(r, request.guardrails)]
    if confirmed and delta < 0:
        return DO_NOT_SHIP, "decision.do_not_ship"
    if any(r["tier"] == CONFIRMED for r in guarded):
        return DO_NOT_SHIP, "decision.do_not_ship_segment"
    if confirmed and guarded:
        return CANNOT_TELL, "decision.cannot_tell_segment"
    if confirmed:
        return SHIP, "decision.ship"
    if overall["magnitude"] == "within":
        return DO_NOT_SHIP, "decision.no_gain"
    return CANNOT_TELL, "decision.cannot_tell"


def _clauses(
    mine: pd.DataFrame,
    overall: Mapping[str, Any],
    against: pd.DataFrame,
    evidence: pd.DataFrame,
    uneven: list[str],
    templates: Wording | None,
) -> tuple[list[str], list[int]]:
    """What to watch: segments against the overall direction (with what would settle a watch
    item), else the largest gain, else a measure moving the other way, else an uneven column."""

    clauses: list[str] = []
    named: list[int] = []
    for i in list(against.index)[:MAX_WATCH]:
        row = against.loc[i]
        if row["tier"] == CONFIRMED:
            clauses.append(_segment_clause("decision.confirmed_loss", row, templates))
        else:
            settle = _settle(row, templates)
            clause = _segment_clause("decision.watch_loss", row, templates)
            separator = _w(templates, "decision.clause_separator")
            clauses.append(f"{clause}{separator}{settle}" if settle else clause)
        named.append(int(i))
    direction = 1.0 if float(overall["delta"]) >= 0 else -1.0
    if not clauses:
        gains = evidence[evidence["delta"] * direction > 0]
        large = gains[gains["delta"].abs() >= 2 * abs(float(overall["delta"]))]
        if len(large):
            top = large["delta"].abs().idxmax()
            clauses.append(_segment_clause("decision.watch_gain", large.loc[top], templates))
            named.append(int(top))
    if not clauses:
        others = mine[(mine["segment"] == ALL) & (mine["measure"] != overall["measure"])]
        opposite = others[
            others["tier"].isin([CONFIRMED, WATCH]) & (others["delta"] * direction < 0)
        ]
        if len(opposite):
            row = opposite.loc[opposite["delta"].abs().idxmax()]
            clauses.append(
                _w(templates, "decision.watch_measure").format(
                    measure=row["measure"], delta=_signed(float(row["delta"])),
                    worse=int(row["losses"]), n=int(row["n"]),
                )
            )  # fmt: skip
    if not clauses and uneven:
        clauses.append(_w(templates, "decision.uneven").format(column=uneven[0]))
    return clauses, named


def _candidate(
    table: pd.DataFrame,
    request: ReviewRequest,
    candidate: str,
    uneven: list[str],
    templates: Wording | None,
) -> tuple[str, list[str], list[int]]:
    """The recommendation, sentences and named rows of one candidate."""

    mine = table[(table["kind"] == BASELINE_KIND) & (table["candidate"] == candidate)]
    lead = mine[mine["measure"] == request.lead]
    overall_rows = lead[lead["segment"] == ALL]
    if overall_rows.empty or int(overall_rows.iloc[0]["n"]) == 0:
        return CANNOT_TELL, [], []
    overall = overall_rows.iloc[0]
    against, evidence = _against(lead, overall, request)
    code, key = _recommendation(overall, against, request)
    first = _w(templates, key).format(
        candidate=candidate,
        measure=request.lead,
        delta=_signed(float(overall["delta"])),
        relative=_relative(overall),
        better=int(overall["wins"]),
        worse=int(overall["losses"]),
        n=int(overall["n"]),
        effect=_number(float(overall["min_effect"])),
    )
    clauses, named = _clauses(mine, overall, against, evidence, uneven, templates)
    sentences = [first]
    if clauses:
        separator = _w(templates, "decision.clause_separator")
        sentences.append(separator.join(clauses) + _w(templates, "decision.full_stop"))
    if overall["tier"] != CONFIRMED and code == CANNOT_TELL:
        mde = _number(float(overall["mde"]))
        sentences.append(_w(templates, "decision.enough").format(n=int(overall["n"]), mde=mde))
    return code, sentences[:3], named


def _choice(
    table: pd.DataFrame, request: ReviewRequest, codes: dict[str, str], templates: Wording | None
) -> str:
    """Which candidate to pick: the shippable one with the largest gain, if ahead of every other
    candidate on the lead measure (without a shippable one: which is ahead all the same); or
    which candidates cannot be told apart."""

    pairs = table[(table["kind"] == PAIRWISE_KIND) & (table["measure"] == request.lead)]
    overall = table[
        (table["kind"] == BASELINE_KIND)
        & (table["measure"] == request.lead)
        & (table["segment"] == ALL)
    ].set_index("candidate")
    shippable = [c for c in request.candidates if codes.get(c) == SHIP and c in overall.index]
    pool = shippable or [c for c in request.candidates if c in overall.index]
    if pairs.empty or not pool:
        return ""
    best = max(pool, key=lambda c: float(overall.loc[c, "delta"]))
    mine = pairs[(pairs["reference"] == best) | (pairs["candidate"] == best)]
    for _, row in mine.iterrows():
        other = str(row["candidate"] if row["reference"] == best else row["reference"])
        if not bool(row["significant"]):
            return _w(templates, "decision.tie").format(
                first=best, second=other, measure=request.lead
            )
    others = [
        str(r["candidate"] if r["reference"] == best else r["reference"])
        for _, r in mine.iterrows()
    ]
    gap = min((abs(float(r["delta"])) for _, r in mine.iterrows()), default=math.nan)
    key = "decision.pick" if shippable else "decision.ahead"
    return _w(templates, key).format(
        best=best, other=", ".join(others), measure=request.lead, delta=_signed(gap)
    )


def decide(
    table: pd.DataFrame,
    request: ReviewRequest,
    heterogeneity: pd.DataFrame | None = None,
    templates: Wording | None = None,
) -> Decision:
    """The decision of a review table (:func:`metrics.review.verdict.review_table`) under the
    request's rule: the lead measure, the smallest difference that matters, the guard-rail
    segments and the level.

    Per candidate, on the lead measure over all queries:

    * **do not ship** when it is confirmed worse, or confirmed worse in a guard-rail segment
      (every segment when none is named), or its difference lies within the smallest one that
      matters;
    * **ship** when it is confirmed better and no guard-rail segment is a watch item or a
      confirmed loss against it;
    * **cannot tell yet** otherwise, with what would settle it.

    The headline gives, per candidate, at most three sentences: the recommendation with the
    overall effect, what to watch (segments moving against the overall direction, or the
    largest gain, with the queries needed to settle it), and, when nothing is confirmed,
    whether there were enough queries; with two or more candidates, one sentence on which to
    pick.
    """
    if table.empty or not request.candidates:
        return Decision(request.lead, headline=[_w(templates, "decision.none")])
    codes: dict[str, str] = {}
    headline: list[str] = []
    watch: list[int] = []
    by_candidate: dict[str, list[str]] = {}
    for candidate in request.candidates:
        uneven: list[str] = []
        if heterogeneity is not None and len(heterogeneity):
            mine = heterogeneity[
                (heterogeneity["candidate"] == candidate) & heterogeneity["uneven"]
            ]
            uneven = [str(c) for c in mine["column"]]
        code, sentences, named = _candidate(table, request, candidate, uneven, templates)
        codes[candidate] = code
        headline += sentences
        by_candidate[candidate] = sentences
        watch += named
    choice = _choice(table, request, codes, templates) if len(request.candidates) > 1 else ""
    if choice:
        headline.append(choice)
    closing = [choice] if choice else []
    return Decision(request.lead, codes, headline, watch, heterogeneity, by_candidate, closing)


__all__ = [
    "DECISION_TEMPLATES",
    "RECOMMENDATIONS",
    "Decision",
    "decide",
    "heterogeneity_table",
    "lead_measure",
]
