"""One query, two models: both ranked lists side by side, with what moved, entered and left.

Items are read back from the run through :attr:`RankedLists.row_index` (the position of each
ranked item in the run the lists were built from), so ids and scores are the run's own.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from metrics import schema as S
from metrics.engine.ranking import RankedLists

#: Change codes of an item of the candidate's top K, relative to the baseline's top K (data
#: codes; the words come from the catalogs): ``new`` (not in the baseline's top K), ``left``
#: (in the baseline's top K, not in the candidate's), ``up`` / ``down`` (by ``moved`` ranks),
#: ``same``.
ENTERED = "new"
LEFT = "left"
SAME = "same"
UP = "up"
DOWN = "down"


def ranked_items(
    lists: RankedLists, run: pd.DataFrame, query: str, k: int | None = None
) -> pd.DataFrame:
    """The ranked list of one query, top ``k`` (all when ``None``).

    Parameters
    ----------
    lists:
        One model's ranked lists (``Evaluation.lists[model]``).
    run:
        The run table the lists were ranked from (``row_index`` points into it).
    query:
        Query id.

    Returns
    -------
    DataFrame
        Columns ``rank`` (1-based), ``item``, ``score`` (when the run has one), ``label``
        (``NaN`` where unjudged). Empty when the model has no list for the query.
    """
    ids = lists.query_ids.astype(str)
    where = np.flatnonzero(ids == str(query))
    columns = ["rank", S.ITEM, S.SCORE, "label"]
    if not len(where):
        return pd.DataFrame(columns=columns)
    q = int(where[0])
    start, end = int(lists.offsets[q]), int(lists.offsets[q + 1])
    if k is not None:
        end = min(end, start + int(k))
    rows = lists.row_index[start:end]
    out = pd.DataFrame(
        {
            "rank": np.arange(1, end - start + 1),
            S.ITEM: run[S.ITEM].iloc[rows].astype(str).to_numpy(),
            S.SCORE: (
                run[S.SCORE].iloc[rows].to_numpy(dtype=np.float64)
                if S.SCORE in run.columns
                else np.full(end - start, np.nan)
            ),
            "label": lists.labels[start:end],
        }
    )
    return out


def _move(
    rank_in_baseline: int | None, rank_in_candidate: int | None, missing: str
) -> tuple[str, int]:
    if rank_in_baseline is None or rank_in_candidate is None:
        return missing, 0
    moved = int(rank_in_baseline) - int(rank_in_candidate)
    if moved == 0:
        return SAME, 0
    return (UP, moved) if moved > 0 else (DOWN, -moved)


def side_by_side(
    baseline: RankedLists, candidate: RankedLists, run: pd.DataFrame, query: str, k: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Top ``k`` of both models for ``query``, each item with its change.

    Returns
    -------
    (baseline_top, candidate_top)
        :func:`ranked_items` frames plus ``change`` (a code) and ``moved`` (ranks). In the
        candidate's list: ``new`` (not in the baseline's top K), ``up`` / ``down`` by ``moved``
        ranks, ``same``. In the baseline's list: ``left`` for items the candidate no longer
        shows in its top K, otherwise the same moves seen from the candidate.
    """
    a = ranked_items(baseline, run, query, k)
    b = ranked_items(candidate, run, query, k)
    rank_a = dict(zip(a[S.ITEM], a["rank"]))
    rank_b = dict(zip(b[S.ITEM], b["rank"]))
    moves_b = [_move(rank_a.get(item), r, ENTERED) for r, item in zip(b["rank"], b[S.ITEM])]
    moves_a = [_move(r, rank_b.get(item), LEFT) for r, item in zip(a["rank"], a[S.ITEM])]
    b["change"] = [m[0] for m in moves_b]
    b["moved"] = [m[1] for m in moves_b]
    a["change"] = [m[0] for m in moves_a]
    a["moved"] = [m[1] for m in moves_a]
    return a, b


__all__ = ["DOWN", "ENTERED", "LEFT", "SAME", "UP", "ranked_items", "side_by_side"]
