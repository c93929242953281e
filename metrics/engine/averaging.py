"""One number from per-query values, per measure: numpy only, shared by the library and the CLI.

The measure's declared aggregate comes first (counts are summed; gm_map and gm_bpref are
geometric); otherwise the averaging policy decides: ``macro`` mean, ``micro`` pooled counts
(from the registry's ``micro`` kernel; a measure without one is averaged macro), ``weighted``
mean, or ``geometric`` mean. ``NaN`` (left-out) queries are skipped.
"""

from __future__ import annotations

import numpy as np

from metrics.engine.ranking import RankedLists
from metrics.engine.registry import MeasureSpec
from metrics.engine.settings import GEO_MEAN_FLOOR, Settings
from metrics.errors import MeasureError


def has_micro(spec: MeasureSpec) -> bool:
    """Whether micro averaging pools counts for this measure (it has a pooled kernel and K)."""
    return spec.definition.micro is not None and spec.k is not None


def micro_value(spec: MeasureSpec, lists: RankedLists, rows: np.ndarray | None = None) -> float:
    """Pooled value of the measure over the queries ``rows`` (all when ``None``).

    Raises
    ------
    MeasureError
        For measures that have no pooled form (use macro).
    """
    micro = spec.definition.micro
    if micro is None or spec.k is None:  # as has_micro(spec), spelt out for the type checker
        raise MeasureError(f"{spec.name} has no pooled (micro) form.")
    return float(micro(lists, np.array([spec.k]), rows)[0])


def geometric_mean(values: np.ndarray, weights: np.ndarray | None = None) -> float:
    """exp of the mean of ln(max(value, 1e-5)), trec_eval's gm_map rule."""
    logs = np.log(np.maximum(values, GEO_MEAN_FLOOR))
    if weights is not None:
        return float(np.exp(np.average(logs, weights=weights))) if weights.sum() > 0 else np.nan
    return float(np.exp(logs.mean()))


def average(
    spec: MeasureSpec,
    values: np.ndarray,
    settings: Settings,
    lists: RankedLists | None = None,
    rows: np.ndarray | None = None,
    weights: np.ndarray | None = None,
) -> float:
    """The one number of ``values`` (per query) for ``spec`` under ``settings``.

    ``lists`` and ``rows`` (positions of the values' queries in ``lists``) are needed for micro
    averaging; ``weights`` (one per value) for weighted averaging.
    """
    values = np.asarray(values, dtype=np.float64)
    keep = ~np.isnan(values)
    v = values[keep]
    w = None if weights is None else np.asarray(weights, dtype=np.float64)[keep]
    if spec.aggregate == "sum":
        return float(v.sum())
    if len(v) == 0:
        return np.nan
    if spec.aggregate == "geometric" or settings.averaging == "geometric":
        return geometric_mean(v, w if settings.averaging == "weighted" else None)
    if settings.averaging == "micro" and has_micro(spec) and lists is not None:
        return micro_value(spec, lists, rows)
    if w is not None:
        return float(np.average(v, weights=w)) if w.sum() > 0 else np.nan
    return float(v.mean())


def plain_means(
    specs: list[MeasureSpec], values: np.ndarray, settings: Settings
) -> np.ndarray | None:
    """Every column's mean at once, the same numbers as :func:`average` gives one by one, when
    that is all it would do: macro averaging of measures averaged by their mean, and no value
    left out. ``None`` otherwise."""
    if (
        settings.averaging != "macro"
        or len(values) == 0
        or any(spec.aggregate != "mean" for spec in specs)
        or np.isnan(values).any()
    ):
        return None
    # a column's values summed in one pass along it, as ``values[:, j].mean()`` sums them
    columns = values if values.flags.f_contiguous else np.asfortranarray(values)
    means: np.ndarray = columns.mean(axis=0)
    return means
