"""Why do two tools give two numbers? Every differing query, with the policy that explains it.

:func:`explain` evaluates the same run and judgments under two sets of settings (two tool
profiles, :mod:`metrics.engine.profiles`), and for every query whose value differs — or that one
side scores and the other leaves out — finds the cause by switching one policy at a time from
the first side's value to the second's: a policy whose switch alone makes the query agree is its
cause. A query that no single switch explains is explained by the smallest set of switches that
does (``ties + gain``); with every differing policy switched the two sides are the same
settings, so no query stays unexplained. :func:`explain_against` does the same for values
exported from another tool (a per-query table): it searches the policy values that make our
numbers equal theirs.

The result counts the queries per cause and names the one setting that makes the most queries
agree (the answer to "what do I change so that the numbers match").
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from metrics import schema as S
from metrics.engine.evaluation import evaluate
from metrics.engine.settings import POLICIES, Settings

#: Values closer than this are the same number.
TOLERANCE = 1e-9
#: Policies a difference between tools can come from, in the order causes are tried (the
#: field names of :class:`Settings`).
CAUSES = (
    "ties",
    "score_precision",
    "score_order",
    "relevance_level",
    "ndcg_relevance_level",
    "gain",
    "gain_map",
    "missing_queries",
    "no_relevant",
    "short_lists",
    "judged_only",
    "max_results",
    "duplicates",
    "recall_rounding",
)
#: The values tried for each policy by :func:`explain_against` (besides our own).
CANDIDATES: dict[str, tuple[Any, ...]] = {
    "ties": ("item_desc", "input_order"),
    "score_precision": ("float32", "float64"),
    "ndcg_relevance_level": (False, True),
    "gain": ("linear", "exponential"),
    "missing_queries": ("skip", "zero"),
    "no_relevant": ("zero", "leave_out", "one"),
    "short_lists": ("divide_by_k", "divide_by_returned"),
    "judged_only": (False, True),
    "recall_rounding": ("trunc", "lround"),
}


@dataclass(frozen=True)
class Explanation:
    """The differences of one comparison and their causes.

    Attributes
    ----------
    measure_means:
        Measure -> (mean of side A, mean of side B) over the queries each side scores.
    queries:
        One row per differing (measure, query): ``measure``, ``query``, ``a``, ``b`` (``NaN``
        where a side leaves the query out), ``cause`` (policies joined by ``" + "``) and
        ``fixes`` (a tuple of every single policy whose switch alone makes the query agree).
    counts:
        ``cause`` -> number of differing queries it explains (every measure).
    best:
        The policy (or combination) that explains the most differing queries, ``""`` when
        nothing differs; :attr:`best_value` is its value on side B.
    """

    measure_means: dict[str, tuple[float, float]]
    queries: pd.DataFrame
    counts: dict[str, int] = field(default_factory=dict)
    best: str = ""
    best_value: object = None
    settings_a: Settings = field(default_factory=Settings)
    settings_b: Settings = field(default_factory=Settings)

    @property
    def unexplained(self) -> int:
        """Differing queries no policy accounts for (0 between two sets of settings)."""
        return int((self.queries["cause"] == "").sum()) if len(self.queries) else 0


def _values(
    run: pd.DataFrame, qrels: pd.DataFrame, measures: Sequence[str], settings: Settings
) -> pd.DataFrame:
    """Per-query values (query -> measure columns) of one model; left-out queries absent."""
    table = evaluate(run, qrels, list(measures), settings).per_query
    table = table.assign(**{S.QUERY: table[S.QUERY].astype(str)}).set_index(S.QUERY)
    return table[[c for c in table.columns if c in measures]]


def _same(x: float, y: float) -> bool:
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return abs(x - y) <= TOLERANCE


def _aligned(left: pd.DataFrame, right: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    index = left.index.union(right.index, sort=False)
    return left.reindex(index), right.reindex(index)


def _differing(a: pd.DataFrame, b: pd.DataFrame, measure: str) -> list[str]:
    x, y = _aligned(a[[measure]], b[[measure]])
    return [str(q) for q, u, v in zip(x.index, x[measure], y[measure]) if not _same(u, v)]


def explain(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    measures: Sequence[str],
    a: Settings,
    b: Settings,
) -> Explanation:
    """The differing queries between the settings ``a`` and ``b`` and the cause of each (see
    the module docstring).

    Parameters
    ----------
    run, qrels:
        One model's run and the judgments (columns as :func:`metrics.evaluate` takes them).
    measures:
        Measure names (``nDCG@10``).
    a, b:
        The two sides (e.g. ``profile("trec_eval").settings()`` and ``profile("ranx")...``).
    """
    measures = list(measures)
    side_a, side_b = _values(run, qrels, measures, a), _values(run, qrels, measures, b)
    policies = [p for p in CAUSES if getattr(a, p) != getattr(b, p)]
    switched: dict[tuple[str, ...], pd.DataFrame] = {}

    def under(combo: tuple[str, ...]) -> pd.DataFrame:
        if combo not in switched:
            changes = {p: getattr(b, p) for p in combo}
            switched[combo] = _values(run, qrels, measures, a.with_(**changes))
        return switched[combo]

    rows = []
    for measure in measures:
        for query in _differing(side_a, side_b, measure):
            want = _value(side_b, query, measure)
            fixes = [p for p in policies if _same(_value(under((p,)), query, measure), want)]
            cause = (
                fixes[0] if fixes else _smallest_combination(policies, under, query, measure, want)
            )
            rows.append(
                {
                    "measure": measure,
                    "query": query,
                    "a": _value(side_a, query, measure),
                    "b": want,
                    "cause": cause,
                    "fixes": tuple(fixes),
                }
            )
    return _summary(rows, side_a, side_b, measures, a, b)


def _value(table: pd.DataFrame, query: str, measure: str) -> float:
    if query not in table.index:
        return math.nan
    value = table.loc[query, measure]
    return float(value.iloc[0] if isinstance(value, pd.Series) else value)


def _smallest_combination(
    policies: Sequence[str], under: Any, query: str, measure: str, want: float
) -> str:
    """The fewest policies whose switch together makes ``query`` agree (``ties + gain``)."""
    for size in range(2, len(policies) + 1):
        for combo in itertools.combinations(policies, size):
            if _same(_value(under(combo), query, measure), want):
                return " + ".join(combo)
    return ""


def _summary(
    rows: list[dict[str, Any]],
    side_a: pd.DataFrame,
    side_b: pd.DataFrame,
    measures: Sequence[str],
    a: Settings,
    b: Settings,
) -> Explanation:
    queries = pd.DataFrame(rows, columns=["measure", "query", "a", "b", "cause", "fixes"])
    counts: dict[str, int] = {}
    for cause in queries["cause"]:
        counts[cause] = counts.get(cause, 0) + 1
    # the setting that makes the most queries agree: a single fix counts for every query it
    # fixes alone, a combination for the queries that need it
    fixed: dict[str, int] = {}
    for row in rows:
        for policy in row["fixes"] or (row["cause"],):
            if policy:
                fixed[policy] = fixed.get(policy, 0) + 1
    best = max(fixed, key=lambda p: (fixed[p], -len(p))) if fixed else ""
    values = {}
    for part in best.split(" + ") if best else ():
        name, _, text = part.partition("=")
        values[name] = _typed(name, text) if text else getattr(b, name)
    best_value = values if len(values) > 1 else next(iter(values.values()), None)
    means = {m: (float(side_a[m].mean()), float(side_b[m].mean())) for m in measures if m in side_a}
    return Explanation(means, queries, counts, best, best_value, a, b)


def explain_against(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    theirs: pd.DataFrame,
    ours: Settings = Settings(),
) -> Explanation:
    """Our numbers (``ours``) against a per-query table exported from another tool.

    Parameters
    ----------
    theirs:
        Columns ``query`` and one column per measure (our names, ``nDCG@10``): the other tool's
        per-query values.

    Returns
    -------
    Explanation
        Side A is ours, side B theirs. A differing query's cause is a policy value (tried from
        :data:`CANDIDATES`, one at a time, then two together) that makes our value equal theirs;
        ``""`` when none does (the other tool computes something no policy reproduces).
    """
    measures = [c for c in theirs.columns if c != S.QUERY]
    side_a = _values(run, qrels, measures, ours)
    side_b = theirs.assign(**{S.QUERY: theirs[S.QUERY].astype(str)}).set_index(S.QUERY)[measures]
    side_b = side_b.astype(np.float64)
    options = [
        (policy, value)
        for policy, values in CANDIDATES.items()
        for value in values
        if value != getattr(ours, policy)
    ]
    tried: dict[tuple[tuple[str, Any], ...], pd.DataFrame] = {}

    def under(combo: tuple[tuple[str, Any], ...]) -> pd.DataFrame:
        if combo not in tried:
            tried[combo] = _values(run, qrels, measures, ours.with_(**dict(combo)))
        return tried[combo]

    rows = []
    for measure in measures:
        for query in _differing(side_a, side_b, measure):
            want = _value(side_b, query, measure)
            fixes = [o for o in options if _same(_value(under((o,)), query, measure), want)]
            cause = _named(fixes[0]) if fixes else ""
            if not fixes:
                for pair in itertools.combinations(options, 2):
                    if pair[0][0] != pair[1][0] and _same(
                        _value(under(pair), query, measure), want
                    ):
                        cause = " + ".join(_named(o) for o in pair)
                        break
            rows.append(
                {
                    "measure": measure,
                    "query": query,
                    "a": _value(side_a, query, measure),
                    "b": want,
                    "cause": cause,
                    "fixes": tuple(_named(o) for o in fixes),
                }
            )
    theirs_settings = ours.with_(**dict(_best_options(rows)))
    return _summary(rows, side_a, side_b, measures, ours, theirs_settings)


def _named(option: tuple[str, Any]) -> str:
    return f"{option[0]}={option[1]}"


def _best_options(rows: Sequence[Mapping[str, Any]]) -> list[tuple[str, Any]]:
    """The policy values of the causes found, most frequent first, one value per policy."""
    seen: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for row in rows:
        for part in str(row["cause"]).split(" + "):
            if "=" in part:
                counts[part] = counts.get(part, 0) + 1
    for part in sorted(counts, key=lambda p: -counts[p]):
        policy, _, text = part.partition("=")
        if policy not in seen:
            seen[policy] = _typed(policy, text)
    return list(seen.items())


def _typed(policy: str, text: str) -> Any:
    for value in CANDIDATES.get(policy, ()):
        if str(value) == text:
            return value
    return text


def policy_words(cause: str) -> str:
    """A cause in words (``ties`` -> ``Tied scores``; combinations joined), for people."""
    parts = []
    for part in cause.split(" + "):
        name = part.split("=", 1)[0]
        parts.append(POLICIES[name].label if name in POLICIES else part)
    return " + ".join(parts)


__all__ = [
    "CANDIDATES",
    "CAUSES",
    "TOLERANCE",
    "Explanation",
    "explain",
    "explain_against",
    "policy_words",
]
