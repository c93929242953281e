"""Per-segment review: each model's mean per segment value, and where the overall winner loses.

* :func:`segment_means` — segment value × model table of macro means with the number of
  queries, small segments flagged (never dropped);
* :func:`reversals` — for every measure, the segment values in which the model that is best
  overall is beaten by another model, with the paired difference, its CI and a corrected
  p-value, and a plain sentence saying so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from metrics import schema as S
from metrics.engine.evaluation import Evaluation
from metrics.review.compare import (
    CompareOptions,
    Template,
    Wording,
    compared_queries,
    count_form,
    format_p,
    model_values,
    segment_of_query,
)
from metrics.review.statistics import DEFAULT_CONFIDENCE, adjust_pvalues, compare_pairs, pair_values

#: Segments with fewer queries than this are flagged as small (their numbers are shaky).
MIN_SEGMENT_QUERIES = 20


def segment_means(
    evaluation: Evaluation,
    segments: pd.DataFrame,
    by: list[str],
    measure: str,
    models: list[str] | None = None,
    min_queries: int = MIN_SEGMENT_QUERIES,
) -> pd.DataFrame:
    """Macro mean of ``measure`` per segment value and model.

    Returns
    -------
    DataFrame
        Columns: the ``by`` columns (:data:`~metrics.review.compare.MISSING` for queries absent
        from ``segments`` or with an empty value, see
        :func:`~metrics.review.compare.segment_of_query`), ``n`` (queries in the segment with a
        value for the first model), ``small`` (``n < min_queries``), then one column per
        model; sorted by the segment values, plus a last row ``(all)`` over every query.
    """
    models = list(models or evaluation.models)
    seg = segment_of_query(segments, by, compared_queries(evaluation, models))
    table = evaluation.per_query[[S.MODEL, S.QUERY, measure]].copy()
    table[S.QUERY] = table[S.QUERY].astype(str)
    table = table[table[S.MODEL].isin(models)]
    table = table.merge(seg, on=S.QUERY, how="left")
    wide = table.pivot_table(
        index=by, columns=S.MODEL, values=measure, aggfunc="mean", observed=True, sort=True
    )
    counts = table[table[S.MODEL] == models[0]].groupby(by, observed=True)[measure].count()
    wide = wide.reindex(columns=models)
    wide.insert(0, "n", counts.reindex(wide.index).fillna(0).astype(int))
    wide.insert(1, "small", wide["n"] < min_queries)
    out = wide.reset_index()
    out.columns.name = None
    overall: dict[str, object] = {c: "(all)" for c in by}
    overall.update({"n": int(table[table[S.MODEL] == models[0]][measure].count()), "small": False})
    overall.update({m: float(table.loc[table[S.MODEL] == m, measure].mean()) for m in models})
    return pd.concat([out, pd.DataFrame([overall])], ignore_index=True)


def overall_winner(evaluation: Evaluation, measure: str, models: list[str] | None = None) -> str:
    """The model with the highest macro mean of ``measure`` over all queries."""
    models = list(models or evaluation.models)
    means = {m: np.nanmean(model_values(evaluation, m, measure).to_numpy()) for m in models}
    return max(models, key=lambda m: (means[m], -models.index(m)))


def reversals(
    evaluation: Evaluation,
    segments: pd.DataFrame,
    by: list[str],
    measures: list[str] | None = None,
    models: list[str] | None = None,
    *,
    options: CompareOptions = CompareOptions(),
    min_queries: int = MIN_SEGMENT_QUERIES,
    templates: Wording | None = None,
) -> pd.DataFrame:
    """Segment values where the overall winner of a measure is beaten by another model.

    For every measure the overall winner is found (:func:`overall_winner`); in every segment
    value, if another model has a higher mean there, the best of those is compared with the
    winner on the segment's queries (paired statistics; the corrected p-values form one family
    over the rows returned).

    Returns
    -------
    DataFrame
        Columns: ``measure``, the ``by`` columns, ``n``, ``small``, ``winner``, ``beaten_by``,
        ``winner_mean``, ``other_mean``, ``delta`` (winner − other, negative), ``ci_low``,
        ``ci_high``, ``p_adjusted``, ``significant``, ``sentence``; per measure, significant
        losses come first. ``sentence`` is :func:`reversal_sentence` worded by ``templates``
        (English by default).
    """
    models = list(models or evaluation.models)
    measures = list(measures or evaluation.measure_names)
    seg = segment_of_query(segments, by, compared_queries(evaluation, models))
    rows = []
    for measure in measures:
        winner = overall_winner(evaluation, measure, models)
        values = {m: model_values(evaluation, m, measure) for m in models}
        for key, part in seg.groupby(by, sort=True, observed=True):
            key = key if isinstance(key, tuple) else (key,)
            queries = pd.Index(part[S.QUERY])
            local = {m: v[v.index.isin(queries)] for m, v in values.items()}
            means = {
                m: float(np.nanmean(v.to_numpy())) if v.notna().any() else np.nan
                for m, v in local.items()
            }
            others = [m for m in models if m != winner and means[m] > means[winner]]
            if not others or np.isnan(means[winner]):
                continue
            best = max(others, key=lambda m: means[m])
            result = compare_pairs(
                pair_values(local[best], local[winner], options.policy),
                resamples=options.resamples,
                seed=options.seed,
                confidence=options.confidence,
            )
            rows.append(
                {
                    "measure": measure,
                    **dict(zip(by, key)),
                    "n": result.n,
                    "small": result.n < min_queries,
                    "winner": winner,
                    "beaten_by": best,
                    "winner_mean": result.mean_b,
                    "other_mean": result.mean_a,
                    "delta": result.delta,
                    "ci_low": result.ci_low,
                    "ci_high": result.ci_high,
                    "p": getattr(result, options.test),
                }
            )
    columns = [
        "measure",
        *by,
        "n",
        "small",
        "winner",
        "beaten_by",
        "winner_mean",
        "other_mean",
        "delta",
        "ci_low",
        "ci_high",
        "p_adjusted",
        "significant",
        "sentence",
    ]
    if not rows:
        return pd.DataFrame(columns=columns)
    table = pd.DataFrame(rows)
    table["p_adjusted"] = adjust_pvalues(table.pop("p").to_numpy(), options.correction)
    table["significant"] = table["p_adjusted"] < options.alpha
    table["sentence"] = [
        reversal_sentence(row, by, options.confidence, templates)
        for row in table.to_dict("records")
    ]
    order = table.assign(_clear=~table["significant"]).sort_values(
        ["measure", "_clear"],
        kind="stable",
        key=lambda c: c.map(measures.index) if c.name == "measure" else c,
    )
    return order[columns].reset_index(drop=True)


#: English wording of the reversal sentences; pass a mapping with the same keys (and the same
#: ``{placeholders}``) to :func:`reversals` or :func:`reversal_sentence` to word them in
#: another language. Numbers are formatted before they are put in.
REVERSAL_TEMPLATES: dict[str, Template] = {
    "sentence.reversal.significant": (
        "{winner} is best overall on {measure} but loses to {other} where {where}: "
        "{winner_mean} vs {other_mean} ({delta}, {confidence} CI [{ci_low}, {ci_high}], "
        "corrected {p}; the difference is significant).{small}"
    ),
    "sentence.reversal.not_significant": (
        "{winner} is best overall on {measure} but scores below {other} where {where}: "
        "{winner_mean} vs {other_mean} ({delta}, {confidence} CI [{ci_low}, {ci_high}], "
        "corrected {p}; the difference is not significant).{small}"
    ),
    "sentence.reversal.where": "{column} = {value}",
    "sentence.reversal.where_separator": ", ",
    "sentence.reversal.small": {
        "one": " Only 1 query: treat with care.",
        "other": " Only {n} queries: treat with care.",
    },
}


def reversal_sentence(
    row: Mapping[str, Any],
    by: list[str],
    confidence: float = DEFAULT_CONFIDENCE,
    templates: Wording | None = None,
) -> str:
    """The plain sentence of one :func:`reversals` row.

    Parameters
    ----------
    row:
        One row of :func:`reversals` (as a mapping: ``table.to_dict("records")``).
    by:
        The segment columns of the table.
    confidence:
        Level of the interval (shown as ``95%``).
    templates:
        Wording by key, a text or plural forms by the count (see :data:`REVERSAL_TEMPLATES`,
        and ``sentence.p.undefined`` of :data:`metrics.review.compare.HEADLINE_TEMPLATES`);
        missing keys fall back to English.
    """

    def word(key: str, n: int | None = None) -> str:
        if templates is not None and key in templates:
            return count_form(templates[key], n)
        return count_form(REVERSAL_TEMPLATES[key], n)

    where = word("sentence.reversal.where_separator").join(
        word("sentence.reversal.where").format(column=c, value=row[c]) for c in by
    )
    kind = "significant" if row["significant"] else "not_significant"
    n = int(row["n"])
    small = word("sentence.reversal.small", n).format(n=n) if row["small"] else ""
    return word(f"sentence.reversal.{kind}").format(
        winner=row["winner"],
        measure=row["measure"],
        other=row["beaten_by"],
        where=where,
        winner_mean=f"{row['winner_mean']:.3f}",
        other_mean=f"{row['other_mean']:.3f}",
        delta=f"{row['delta']:+.3f}",
        confidence=f"{confidence:.0%}",
        ci_low=f"{row['ci_low']:+.3f}",
        ci_high=f"{row['ci_high']:+.3f}",
        p=format_p(row["p_adjusted"], templates),
        small=small,
    )


__all__ = [
    "MIN_SEGMENT_QUERIES",
    "REVERSAL_TEMPLATES",
    "overall_winner",
    "reversal_sentence",
    "reversals",
    "segment_means",
    "segment_of_query",
]
