"""Level two: per-query values become one number per model and measure (or per segment).

Averaging follows :attr:`Settings.averaging`:

* ``macro`` — mean of per-query values (trec_eval's ``all``); ``NaN`` (left-out) queries skipped;
* ``micro`` — pooled counts over queries for the measures whose registry entry has a pooled
  kernel (P, R, F1, Success); other measures fall back to macro;
* ``weighted`` — mean weighted by a query-level column of ``segments``;
* ``geometric`` — trec_eval's gm_map rule (values floored at 1e-5).

Counts (NumRet, NumRel, NumRelRet) are summed and gm_map/gm_bpref are geometric whatever the
policy (the registry's ``aggregate``); see :mod:`metrics.engine.averaging`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from metrics import schema as S
from metrics.engine.averaging import average, has_micro, micro_value
from metrics.engine.evaluation import Evaluation
from metrics.engine.settings import Settings
from metrics.errors import InputError

STATS = ("mean", "median", "q1", "q3", "std", "n")

__all__ = [
    "STATS",
    "column_quartiles",
    "curve_summary",
    "describe",
    "has_micro",
    "mean_table",
    "micro_value",
    "summarize",
]


def describe(values: np.ndarray, weights: np.ndarray | None = None) -> dict[str, float]:
    """Mean, median, quartiles, sample std and n of the non-NaN values."""
    values = np.asarray(values, dtype=np.float64)
    keep = ~np.isnan(values)
    v = values[keep]
    if len(v) == 0:
        return {s: (0 if s == "n" else np.nan) for s in STATS}
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64)[keep]
        mean = float(np.average(v, weights=w)) if w.sum() > 0 else np.nan
    else:
        mean = float(v.mean())
    q1, median, q3 = np.percentile(v, [25, 50, 75])
    return {
        "mean": mean,
        "median": float(median),
        "q1": float(q1),
        "q3": float(q3),
        "std": float(v.std(ddof=1)) if len(v) > 1 else 0.0,
        "n": len(v),
    }


def _weights_for(
    per_query: pd.DataFrame, segments: pd.DataFrame | None, settings: Settings
) -> np.ndarray | None:
    if settings.averaging != "weighted":
        return None
    column = settings.weight_column
    if segments is None or column not in segments.columns:
        raise InputError(
            f"the weight column '{column}' is not among the query columns.",
            column=column,
            fix="choose a numeric query-level column, or macro.",
        )
    weights = pd.to_numeric(segments.set_index(S.QUERY)[column], errors="coerce")
    out: np.ndarray = per_query[S.QUERY].map(weights).to_numpy(dtype=np.float64)
    if np.isnan(out).any() or (out < 0).any():
        raise InputError(
            f"the weight column '{column}' has missing or negative values.",
            column=column,
            fix="give every query a non-negative weight.",
        )
    return out


def summarize(
    evaluation: Evaluation, segments: pd.DataFrame | None = None, by: list[str] | None = None
) -> pd.DataFrame:
    """One row per model (and segment value), one column block per measure statistic.

    Parameters
    ----------
    evaluation:
        Result of :func:`metrics.evaluate`.
    segments:
        Query-level table (``query`` plus segment/weight columns), for ``by`` and weights.
    by:
        Segment columns to group by (each a query-level column of ``segments``).

    Returns
    -------
    DataFrame
        Columns ``model``, the ``by`` columns, ``measure``, ``value`` (the average under the
        averaging policy), ``mean``, ``median``, ``q1``, ``q3``, ``std``, ``n``.
    """
    settings = evaluation.settings
    table = evaluation.per_query
    by = list(by or [])
    if by:
        if segments is None:
            raise InputError(
                "grouping needs a query-level segment table.",
                column=by[0],
                fix="load query metadata or choose no segment.",
            )
        missing = [c for c in by if c not in segments.columns]
        if missing:
            raise InputError(
                f"no segment column '{missing[0]}'.",
                column=missing[0],
                fix=f"choose one of: {', '.join(c for c in segments.columns if c != S.QUERY)}.",
            )
        seg = segments.drop_duplicates(S.QUERY).set_index(S.QUERY)[by]
        table = table.join(seg, on=S.QUERY)
        for c in by:
            table[c] = table[c].astype(object).where(table[c].notna(), "(missing)").astype(str)
    weights = _weights_for(table, segments, settings)
    rows = []
    group_cols = [S.MODEL, *by]
    positions = {model: pd.Index(evaluation.lists[model].query_ids) for model in evaluation.lists}
    for key, part in table.groupby(group_cols, sort=False, observed=True):
        key = key if isinstance(key, tuple) else (key,)
        model = key[0]
        # Per-query values read from a table have no ranked lists: pooled (micro) averages need
        # them, so such values are averaged per query.
        lists = evaluation.lists.get(model)
        w = None if weights is None else weights[part.index.to_numpy()]
        for spec in evaluation.measures:
            stats = describe(part[spec.name].to_numpy(), w)
            idx = (
                positions[model].get_indexer(part[S.QUERY])
                if lists is not None and settings.averaging == "micro" and has_micro(spec)
                else None
            )
            value = average(spec, part[spec.name].to_numpy(), settings, lists, idx, w)
            rows.append(
                {**dict(zip(group_cols, key)), "measure": spec.name, "value": value, **stats}
            )
    return pd.DataFrame(rows, columns=[*group_cols, "measure", "value", *STATS])


def mean_table(evaluation: Evaluation, segments: pd.DataFrame | None = None) -> pd.DataFrame:
    """Models × measures table of averages (under the averaging policy)."""
    summary = summarize(evaluation, segments)
    wide = summary.pivot(index=S.MODEL, columns="measure", values="value")
    return wide.reindex(index=evaluation.models, columns=evaluation.measure_names)


#: The quartiles of :func:`column_quartiles`, as fractions.
QUARTILES = (0.25, 0.5, 0.75)


def column_quartiles(values: np.ndarray) -> np.ndarray:
    """Q1, median and Q3 of each column of ``values`` (rows x columns), NaN left out ->
    ``(3, columns)``; NaN for a column with no value.

    The numbers of ``np.nanpercentile(values, [25, 50, 75], axis=0)`` (linear interpolation,
    numpy's own formula), from one sort of the transposed array: several times faster on a
    curve of 5,000 queries x 100 cutoffs, where numpy partitions each quartile in turn.
    """
    n_rows, n_cols = values.shape
    out = np.full((3, n_cols), np.nan)
    if n_rows == 0:
        return out
    ordered = np.sort(values.T, axis=1)  # NaN sorts last
    counts = n_rows - np.count_nonzero(np.isnan(values), axis=0)
    cols = np.flatnonzero(counts)
    n = counts[cols]
    for i, quantile in enumerate(QUARTILES):
        virtual = (n - 1) * quantile
        previous = np.floor(virtual)
        low = previous.astype(np.intp)
        high = np.minimum(low + 1, n - 1)  # one value: both are it
        gamma = virtual - previous
        a, b = ordered[cols, low], ordered[cols, high]
        with np.errstate(invalid="ignore"):  # inf - inf, as numpy
            diff = b - a
            lerp = np.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma)
        out[i, cols] = lerp
    return out


def curve_summary(curves: dict[str, np.ndarray], ks: np.ndarray | None = None) -> pd.DataFrame:
    """Long table of the macro mean, n and quartiles at every K of per-query curves.

    ``curves`` maps model to an array ``(n_queries, k_max)`` (see :func:`metrics.curves`).
    """
    frames = []
    for model, values in curves.items():
        k = np.arange(1, values.shape[1] + 1) if ks is None else np.asarray(ks)
        with np.errstate(all="ignore"):
            n = (~np.isnan(values)).sum(axis=0)
            mean = np.where(n > 0, np.nansum(values, axis=0) / np.maximum(n, 1), np.nan)
        q = (
            column_quartiles(values)
            if values.shape[0] and np.isfinite(values).any()
            else np.full((3, values.shape[1]), np.nan)
        )
        frames.append(
            pd.DataFrame(
                {
                    S.MODEL: model,
                    "k": k,
                    "mean": mean,
                    "q1": q[0],
                    "median": q[1],
                    "q3": q[2],
                    "n": n,
                }
            )
        )
    return (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(columns=[S.MODEL, "k", "mean", "q1", "median", "q3", "n"])
    )
