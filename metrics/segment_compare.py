"""Per-segment review: each model's mean per segment value, and where the overall winner loses.

* :func:`segment_means` — segment value × model table of macro means with the number of
  queries, small segments flagged (never dropped);
* :func:`reversals` — for every measure, the segment values in which the model that is best
  overall is beaten by another model, with the paired difference, its CI and a corrected
  p-value, and a plain sentence saying so.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import schema as S
from .compare import CompareOptions, format_p, model_values, segment_of_query
from .evaluation import Evaluation
from .statistics import adjust_pvalues, compare_pairs, pair_values

#: Segments with fewer queries than this are flagged as small (their numbers are shaky).
MIN_SEGMENT_QUERIES = 20


def segment_means(evaluation: Evaluation, segments: pd.DataFrame, by: list[str], measure: str,
                  models: list[str] | None = None,
                  min_queries: int = MIN_SEGMENT_QUERIES) -> pd.DataFrame:
    """Macro mean of ``measure`` per segment value and model.

    Returns
    -------
    DataFrame
        Columns: the ``by`` columns, ``n`` (queries in the segment with a value for the first
        model), ``small`` (``n < min_queries``), then one column per model; sorted by the
        segment values, plus a last row ``(all)`` over every query.
    """
    models = list(models or evaluation.models)
    seg = segment_of_query(segments, by)
    table = evaluation.per_query[[S.MODEL, S.QUERY, measure]].copy()
    table[S.QUERY] = table[S.QUERY].astype(str)
    table = table.merge(seg, on=S.QUERY, how="left")
    for c in by:
        table[c] = table[c].fillna("(missing)")
    table = table[table[S.MODEL].isin(models)]
    wide = table.pivot_table(index=by, columns=S.MODEL, values=measure, aggfunc="mean",
                             observed=True, sort=True)
    counts = table[table[S.MODEL] == models[0]].groupby(by, observed=True)[measure].count()
    wide = wide.reindex(columns=models)
    wide.insert(0, "n", counts.reindex(wide.index).fillna(0).astype(int))
    wide.insert(1, "small", wide["n"] < min_queries)
    out = wide.reset_index()
    out.columns.name = None
    overall = {c: "(all)" for c in by}
    overall.update({"n": int(table[table[S.MODEL] == models[0]][measure].count()),
                    "small": False})
    overall.update({m: float(table.loc[table[S.MODEL] == m, measure].mean()) for m in models})
    return pd.concat([out, pd.DataFrame([overall])], ignore_index=True)


def overall_winner(evaluation: Evaluation, measure: str, models: list[str] | None = None) -> str:
    """The model with the highest macro mean of ``measure`` over all queries."""
    models = list(models or evaluation.models)
    means = {m: np.nanmean(model_values(evaluation, m, measure).to_numpy()) for m in models}
    return max(models, key=lambda m: (means[m], -models.index(m)))


def reversals(evaluation: Evaluation, segments: pd.DataFrame, by: list[str],
              measures: list[str] | None = None, models: list[str] | None = None, *,
              options: CompareOptions = CompareOptions(),
              min_queries: int = MIN_SEGMENT_QUERIES) -> pd.DataFrame:
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
        losses come first.
    """
    models = list(models or evaluation.models)
    measures = list(measures or evaluation.measure_names)
    seg = segment_of_query(segments, by)
    rows = []
    for measure in measures:
        winner = overall_winner(evaluation, measure, models)
        values = {m: model_values(evaluation, m, measure) for m in models}
        for key, part in seg.groupby(by, sort=True, observed=True):
            key = key if isinstance(key, tuple) else (key,)
            queries = pd.Index(part[S.QUERY])
            local = {m: v[v.index.isin(queries)] for m, v in values.items()}
            means = {m: float(np.nanmean(v.to_numpy())) if v.notna().any() else np.nan
                     for m, v in local.items()}
            others = [m for m in models if m != winner and means[m] > means[winner]]
            if not others or np.isnan(means[winner]):
                continue
            best = max(others, key=lambda m: means[m])
            result = compare_pairs(pair_values(local[best], local[winner], options.policy),
                                   resamples=options.resamples, seed=options.seed,
                                   confidence=options.confidence)
            rows.append({"measure": measure, **dict(zip(by, key)), "n": result.n,
                         "small": result.n < min_queries, "winner": winner, "beaten_by": best,
                         "winner_mean": result.mean_b, "other_mean": result.mean_a,
                         "delta": result.delta, "ci_low": result.ci_low,
                         "ci_high": result.ci_high, "p": getattr(result, options.test)})
    columns = ["measure", *by, "n", "small", "winner", "beaten_by", "winner_mean",
               "other_mean", "delta", "ci_low", "ci_high", "p_adjusted", "significant",
               "sentence"]
    if not rows:
        return pd.DataFrame(columns=columns)
    table = pd.DataFrame(rows)
    table["p_adjusted"] = adjust_pvalues(table.pop("p").to_numpy(), options.correction)
    table["significant"] = table["p_adjusted"] < options.alpha
    table["sentence"] = [_sentence(row, by, options) for row in table.to_dict("records")]
    order = table.assign(_clear=~table["significant"]).sort_values(
        ["measure", "_clear"], kind="stable", key=lambda c: c.map(measures.index)
        if c.name == "measure" else c)
    return order[columns].reset_index(drop=True)


def _sentence(row: dict, by: list[str], options: CompareOptions) -> str:
    where = ", ".join(f"{c} = {row[c]}" for c in by)
    if row["significant"]:
        verb, certainty = "loses to", "the difference is significant"
    else:
        verb, certainty = "scores below", "the difference is not significant"
    small = f" Only {row['n']} queries: treat with care." if row["small"] else ""
    return (f"{row['winner']} is best overall on {row['measure']} but {verb} "
            f"{row['beaten_by']} where {where}: {row['winner_mean']:.3f} vs "
            f"{row['other_mean']:.3f} ({row['delta']:+.3f}, {options.confidence:.0%} CI "
            f"[{row['ci_low']:+.3f}, {row['ci_high']:+.3f}], corrected "
            f"{format_p(row['p_adjusted'])}; {certainty}).{small}")


__all__ = ["MIN_SEGMENT_QUERIES", "overall_winner", "reversals", "segment_means",
           "segment_of_query"]
