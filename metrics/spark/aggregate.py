"""Averages from a per-query table (pandas), as the local command line computes them.

Pure pandas/numpy (no pyspark): the table is the collected result of
:func:`metrics.spark.backend.evaluate_spark`, whose ``__num:``/``__den:`` columns carry the pooled
counts of P and R that micro averaging needs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from metrics.engine.aggregation import has_micro
from metrics.engine.registry import MeasureSpec, at_cutoff
from metrics.engine.settings import Settings

NUM_PREFIX = "__num:"
DEN_PREFIX = "__den:"


def _pooled(table: pd.DataFrame, name: str) -> float:
    num = table[NUM_PREFIX + name].to_numpy(dtype=np.float64)
    den = table[DEN_PREFIX + name].to_numpy(dtype=np.float64)
    keep = ~np.isnan(den)
    total = den[keep].sum()
    return float(num[keep].sum() / total) if total > 0 else 0.0


def means_of(table: pd.DataFrame, specs: list[MeasureSpec], settings: Settings) -> np.ndarray:
    """One value per spec for the rows of ``table`` (one model): the mean of the non-``NaN``
    values, or with ``settings.averaging == 'micro'`` the pooled value of P, R, F1 and Success.

    Raises
    ------
    KeyError
        When micro averaging needs count columns that the table does not have.
    """
    values = table[[s.name for s in specs]].to_numpy(dtype=np.float64)
    with np.errstate(invalid="ignore"):
        counts = (~np.isnan(values)).sum(axis=0)
        means = np.where(counts > 0, np.nansum(values, axis=0) / np.maximum(counts, 1), np.nan)
    if settings.averaging != "micro":
        return means
    for j, spec in enumerate(specs):
        if not has_micro(spec):
            continue
        name = spec.definition.name
        if name == "Success":
            means[j] = float(values[:, j].mean()) if len(values) else np.nan
        elif name == "F1":
            p, r = _pooled(table, at_cutoff("P", spec.k)), _pooled(table, at_cutoff("R", spec.k))
            means[j] = 2 * p * r / (p + r) if p + r > 0 else 0.0
        else:
            means[j] = _pooled(table, at_cutoff(name, spec.k))
    return means
