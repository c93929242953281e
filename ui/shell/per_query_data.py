"""Per-query results (``model, query, measure columns``) on the app's pages: the pure pieces.

A :class:`~metrics.io.per_query.PerQueryDataset` has no ranked lists, so its curves exist only
at the cutoffs that were computed, and pages that need the lists (Learn, the drill-down of
Compare) say they are not available. The functions here take the place of the list-based ones
of :mod:`ui.shell.compute` and :mod:`ui.review.compute` for such data.
"""

from __future__ import annotations

from typing import TypeGuard

import numpy as np
import pandas as pd

from metrics import schema as S
from metrics.engine.aggregation import curve_summary
from metrics.engine.evaluation import Evaluation
from metrics.engine.registry import parse_measure
from metrics.engine.settings import Settings
from metrics.errors import InputError, MeasureError
from metrics.io.per_query import PerQueryDataset


def is_per_query(dataset: object) -> TypeGuard[PerQueryDataset]:
    """True for a data set of per-query values (no ranked lists)."""
    return isinstance(dataset, PerQueryDataset)


def column_name(family: str, k: int | None) -> str:
    """``nDCG`` at 10 -> ``nDCG@10``; a measure without cutoffs keeps its name."""
    try:
        return parse_measure(family, k=k).name
    except MeasureError:  # a measure without cutoffs (Rprec)
        return parse_measure(family).name


def family_of(measure: str) -> str:
    """``P``, ``p@10`` or ``precision`` -> ``P``."""
    try:
        return parse_measure(measure, for_curve=True).definition.name
    except MeasureError:
        return family_of(measure)


def available_at(dataset: PerQueryDataset, measures: tuple[str, ...], k: int) -> list[str]:
    """Columns of ``measures`` at ``k`` that the table has (a measure computed without a cutoff,
    like ``AP`` or ``RR``, stands for itself when it has no column at ``k``)."""
    out = []
    for family in measures:
        name = column_name(family, k)
        if dataset.available(name):
            out.append(name)
        elif dataset.available(family):
            out.append(parse_measure(family).name)
    return list(dict.fromkeys(out))


def split_at(
    dataset: PerQueryDataset, measures: tuple[str, ...], k: int
) -> tuple[list[str], list[str]]:
    """``measures`` (families such as ``P``) split into those the table has a column for at
    ``k`` and the columns it lacks (``R@10``), each in the given order."""
    present, missing = [], []
    for family in measures:
        name = column_name(family, k)
        if dataset.available(name):
            present.append(family)
        else:
            missing.append(name)
    return present, missing


def macro_settings(settings: Settings) -> Settings:
    """Pooled (micro) averages need ranked lists: per-query tables average by macro."""
    return settings.with_(averaging="macro") if settings.averaging == "micro" else settings


def evaluation_at(
    dataset: PerQueryDataset, settings: Settings, measures: tuple[str, ...], k: int
) -> Evaluation:
    """Per-query values of ``measures`` at ``k`` from the table.

    Raises
    ------
    InputError
        When none of the measures was computed at ``k``.
    """
    names = available_at(dataset, measures, k)
    if not names:
        raise InputError(
            f"the per-query table has no column for {', '.join(measures)} at K = {k}.",
            source=dataset.name,
            fix=f"choose among: {', '.join(dataset.measure_names)}.",
        )
    return dataset.evaluation(names, macro_settings(settings))


def cutoffs_between(
    dataset: PerQueryDataset, measures: tuple[str, ...], k_from: int, k_to: int
) -> list[int]:
    """The K from ``k_from`` to ``k_to`` at which the table has any of ``measures``."""
    ks = {k for m in measures for k in dataset.cutoffs(family_of(m)) if k_from <= k <= k_to}
    return sorted(ks)


def curves_of(dataset: PerQueryDataset, measure: str, k_to: int) -> dict[str, np.ndarray]:
    """Per model, values of ``measure`` at K = 1..k_to, shape ``(n_queries, k_to)``; ``NaN``
    at every K the table does not have."""
    ks = [k for k in dataset.cutoffs(family_of(measure)) if k <= k_to]
    out = {}
    for model, part in dataset.per_query.groupby(S.MODEL, sort=False):
        values = np.full((len(part), k_to), np.nan)
        for k in ks:
            values[:, k - 1] = part[column_name(measure, k)].to_numpy(dtype=np.float64)
        out[str(model)] = values
    return out


def curve_table_of(
    dataset: PerQueryDataset, measures: tuple[str, ...], k_from: int, k_to: int
) -> pd.DataFrame:
    """Mean, quartiles and n at the computed K within ``[k_from, k_to]``, with a ``measure``
    column: the same layout as :func:`ui.shell.compute.curve_table`."""
    frames = []
    for measure in measures:
        ks = [k for k in dataset.cutoffs(family_of(measure)) if k <= k_to]
        if not ks:
            continue
        summary = curve_summary(curves_of(dataset, measure, k_to))
        summary = summary[summary["k"].isin(ks) & (summary["k"] >= k_from)]
        summary.insert(1, "measure", measure)
        frames.append(summary)
    if not frames:
        return pd.DataFrame(columns=[S.MODEL, "measure", "k", "mean", "q1", "median", "q3", "n"])
    return pd.concat(frames, ignore_index=True)


def cutoff_evaluation_of(
    dataset: PerQueryDataset, settings: Settings, measures: tuple[str, ...], ks: tuple[int, ...]
) -> Evaluation | None:
    """Per-query values of every measure at every cutoff of ``ks`` the table has."""
    names = [column_name(m, k) for m in measures for k in ks]
    names = [n for n in dict.fromkeys(names) if dataset.available(n)]
    return dataset.evaluation(names, macro_settings(settings)) if names else None


def delta_curve_of(
    dataset: PerQueryDataset,
    settings: Settings,
    measure: str,
    k_from: int,
    k_to: int,
    baseline: str,
    candidate: str,
    options,
) -> pd.DataFrame:
    """Delta and confidence band at each computed K (the rows of the comparison table)."""
    from metrics.review.compare import comparison_table

    ks = [k for k in dataset.cutoffs(family_of(measure)) if k_from <= k <= k_to]
    rows = []
    for k in ks:
        evaluation = dataset.evaluation([column_name(measure, k)], macro_settings(settings))
        table = comparison_table(evaluation, baseline, [candidate], options=options)
        row = table.iloc[0]
        rows.append(
            {
                "k": k,
                "mean_a": row["mean_a"],
                "mean_b": row["mean_b"],
                "delta": row["delta"],
                "ci_low": row["ci_low"],
                "ci_high": row["ci_high"],
                "n": row["n"],
            }
        )
    return pd.DataFrame(rows, columns=["k", "mean_a", "mean_b", "delta", "ci_low", "ci_high", "n"])
