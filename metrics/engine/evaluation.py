"""Table-level entry points: evaluate runs (one or many models) against judgments.

:func:`rank_run` turns a run table into :class:`~metrics.engine.ranking.RankedLists` per model;
:func:`evaluate` returns per-query values for chosen measures; :func:`curves` returns per-query
values at every K. Aggregation is in :mod:`metrics.engine.aggregation`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from metrics import schema as S
from metrics.engine.ids import IdCodes, string_chunks
from metrics.engine.measures import RECALL_LEVELS, interpolated_precisions
from metrics.engine.ranking import RankedLists, rank_lists
from metrics.engine.registry import DEFAULT_MEASURES, MeasureSpec, parse_measure, parse_measures
from metrics.engine.settings import Settings
from metrics.errors import InputError


def _column(df: pd.DataFrame, name: str, source: str) -> pd.Series:
    if name not in df.columns:
        raise InputError(
            f"there is no '{name}' column (columns: {', '.join(map(str, df.columns))}).",
            source=source,
            column=name,
            fix=f"map one column to the {name} role.",
        )
    return df[name]


def models_of(run: pd.DataFrame) -> list[str]:
    """Model names in order of first appearance; one default name when there is no model column."""
    if S.MODEL not in run.columns:
        return [S.DEFAULT_MODEL]
    return [str(m) for m in pd.unique(run[S.MODEL].astype(str))]


def _column_values(values: pd.Series, rows: np.ndarray | None) -> Any:
    """A column as the ranking reads it: arrow strings without a copy when the column holds
    them (no Python string per cell), else the column itself; only ``rows`` when given."""
    arrow = string_chunks(values)
    if arrow is None:
        return values if rows is None else values.iloc[rows]
    return arrow if rows is None else arrow.take(pa.array(rows))


def run_settings(settings: Settings, columns: Iterable[object]) -> Settings:
    """The settings a run with ``columns`` is ranked with: ``settings``, with ties by the rank
    column when the run has no score column (there are no scores to order by). Each model's
    lists are ranked with ``run_settings(...).for_model(model)`` (its own score order)."""
    if S.SCORE not in columns and settings.ties != "rank":
        return settings.with_(ties="rank")
    return settings


def rank_run(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    settings: Settings = Settings(),
    source: str = "run",
    codes: IdCodes | None = None,
) -> dict[str, RankedLists]:
    """Rank each model's lists in ``run`` against ``qrels``.

    ``codes`` are the ids of ``run`` and ``qrels`` already encoded
    (:func:`~metrics.engine.ids.id_codes`), so that no ranking hashes them again.

    Each model is ranked with ``run_settings(settings, run.columns).for_model(model)``
    (:func:`run_settings`: ties by rank without a score column; the model's own score order),
    resolved once; its lists record them (:attr:`RankedLists.settings`).

    Returns a dict from model name to its :class:`RankedLists`, in order of first appearance.
    """
    _column(run, S.QUERY, source)
    _column(run, S.ITEM, source)
    for name in (S.QUERY, S.ITEM, S.RELEVANCE):
        _column(qrels, name, "judgments")
    if S.SCORE not in run.columns and S.RANK not in run.columns:
        raise InputError(
            "the run has neither a score nor a rank column.",
            source=source,
            fix="map a column to the score role (higher is better) or to rank.",
        )
    used = run_settings(settings, run.columns)
    out: dict[str, RankedLists] = {}
    if S.MODEL in run.columns:
        model_col = run[S.MODEL].astype(str)
        groups: dict[str, np.ndarray | None] = {
            name: np.flatnonzero((model_col == name).to_numpy()) for name in models_of(run)
        }
    else:
        groups = {S.DEFAULT_MODEL: None}
    if codes is not None and (len(codes.run_query), len(codes.qrels_query)) != (
        len(run),
        len(qrels),
    ):
        codes = None  # not the codes of these tables
    judged_query, judged_item, relevance = (
        _column_values(qrels[c], None) for c in (S.QUERY, S.ITEM, S.RELEVANCE)
    )
    for name, rows in groups.items():
        lists = rank_lists(
            _column_values(run[S.QUERY], rows),
            _column_values(run[S.ITEM], rows),
            _column_values(run[S.SCORE], rows) if S.SCORE in run.columns else None,
            judged_query,
            judged_item,
            relevance,
            used.for_model(name),
            run_rank=_column_values(run[S.RANK], rows) if S.RANK in run.columns else None,
            source=source if rows is None else f"{source} (model {name})",
            codes=codes if codes is None or rows is None else codes.for_rows(rows),
        )
        if rows is not None:
            lists.row_index = rows[lists.row_index]
        out[name] = lists
    return out


@dataclass
class Evaluation:
    """Per-query values of several measures for one or more models.

    Attributes
    ----------
    per_query:
        Long table: ``model``, ``query``, then one column per measure (names like ``P@10``).
    measures:
        The measures evaluated, in column order.
    lists:
        The ranked lists per model (for curves, drill-downs and micro averaging).
    settings:
        The settings used (:func:`run_settings`: ties by rank when the run has no score
        column); each model's lists were ranked with ``settings.for_model(model)``.
    """

    per_query: pd.DataFrame
    measures: list[MeasureSpec]
    lists: dict[str, RankedLists]
    settings: Settings
    models: list[str] = field(default_factory=list)

    @property
    def measure_names(self) -> list[str]:
        return [m.name for m in self.measures]


def per_query_table(lists: dict[str, RankedLists], specs: list[MeasureSpec]) -> pd.DataFrame:
    frames = []
    for model, ranked in lists.items():
        data = {S.MODEL: np.full(ranked.n_queries, model, dtype=object), S.QUERY: ranked.query_ids}
        for spec in specs:
            data[spec.name] = spec.compute(ranked)
        frames.append(pd.DataFrame(data))
    if not frames:
        return pd.DataFrame(columns=[S.MODEL, S.QUERY, *[s.name for s in specs]])
    return pd.concat(frames, ignore_index=True)


def evaluate(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    measures: list[str] | tuple[str, ...] | None = None,
    settings: Settings = Settings(),
    source: str = "run",
) -> Evaluation:
    """Evaluate a run table (optionally with a ``model`` column) against judgments.

    Parameters
    ----------
    run:
        Columns ``query``, ``item``, ``score`` (or ``rank``), optional ``model``.
    qrels:
        Columns ``query``, ``item``, ``relevance``.
    measures:
        Names such as ``["P@10", "nDCG@10", "RR"]``; ``None`` for :data:`DEFAULT_MEASURES`.
    settings:
        Definitional choices (defaults follow trec_eval).

    Examples
    --------
    >>> import pandas as pd
    >>> run = pd.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3, 2, 1]})
    >>> qrels = pd.DataFrame({"query": ["q", "q"], "item": ["a", "c"], "relevance": [1, 1]})
    >>> evaluate(run, qrels, ["P@2", "RR"]).per_query[["P@2", "RR"]].to_numpy().tolist()
    [[0.5, 1.0]]
    """
    specs = parse_measures(list(measures or DEFAULT_MEASURES))
    used = run_settings(settings, run.columns)
    lists = rank_run(run, qrels, used, source)
    return Evaluation(per_query_table(lists, specs), specs, lists, used, list(lists))


def curves(
    lists: dict[str, RankedLists], measure: str | MeasureSpec, k_max: int
) -> dict[str, np.ndarray]:
    """Per-query values of ``measure`` at K = 1..k_max for every model.

    Returns a dict from model to an array of shape ``(n_queries, k_max)``.
    """
    spec = measure if isinstance(measure, MeasureSpec) else parse_measure(measure, for_curve=True)
    ks = np.arange(1, int(k_max) + 1)
    return {model: spec.curve(ranked, ks) for model, ranked in lists.items()}


def precision_recall_table(
    lists: dict[str, RankedLists],
    k_max: int,
    *,
    precision: dict[str, np.ndarray] | None = None,
    recall: dict[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """Points of the precision–recall curve of every model, averaged over queries.

    ``interpolated`` rows: at recall 0, 0.1, ..., 1 the mean of trec_eval's iprec_at_recall (the
    best precision at or after the rank where the list reaches that recall; their mean is the
    11-point average). ``raw`` rows: at K = 1..k_max the mean R@K and the mean P@K, from
    ``precision`` and ``recall`` when given (:func:`curves` of ``P`` and ``R`` to ``k_max``,
    already computed), else computed here.

    Returns
    -------
    DataFrame
        Columns ``model``, ``kind`` (``interpolated`` or ``raw``), ``k`` (``NaN`` for
        interpolated points), ``recall``, ``precision``.
    """
    frames = []
    levels = np.array(RECALL_LEVELS)
    ks = np.arange(1, int(k_max) + 1)
    precision_at, recall_at = parse_measure("P", for_curve=True), parse_measure("R", for_curve=True)
    for model, ranked in lists.items():
        interpolated = (
            interpolated_precisions(ranked, RECALL_LEVELS).mean(axis=0)
            if ranked.n_queries
            else np.full(len(levels), np.nan)
        )
        frames.append(
            pd.DataFrame(
                {
                    S.MODEL: model,
                    "kind": "interpolated",
                    "k": np.nan,
                    "recall": levels,
                    "precision": interpolated,
                }
            )
        )
        if ranked.n_queries:
            frames.append(
                pd.DataFrame(
                    {
                        S.MODEL: model,
                        "kind": "raw",
                        "k": ks.astype(float),
                        "recall": (
                            recall[model] if recall is not None else recall_at.curve(ranked, ks)
                        ).mean(axis=0),
                        "precision": np.nanmean(
                            precision[model]
                            if precision is not None
                            else precision_at.curve(ranked, ks),
                            axis=0,
                        ),
                    }
                )
            )
    columns = [S.MODEL, "kind", "k", "recall", "precision"]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
