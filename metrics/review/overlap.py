"""How much did the ranking itself change? Overlap, rank-biased overlap and Kendall's τ per query.

The scores of a review say whether the candidate is better; these say how different its lists
are, whatever the judgments: a candidate can move every item and score the same, or change one
item and lose a lot. Per query, between the baseline's list ``S`` and the candidate's ``T``:

* **overlap@K** ``= |S_{:K} ∩ T_{:K}| / min(K, max(|S_{:K}|, |T_{:K}|))``: the share of the top K
  they have in common (1 for the same items in any order);
* **entered / left**: items in the candidate's top K and not in the baseline's, and the other
  way round;
* **rank-biased overlap** (Webber, Moffat and Zobel, "A similarity measure for indefinite
  rankings", ACM TOIS 28(4), 2010), with persistence ``p`` (0.9 by default: the top 10 carry
  about 86% of the weight), on the two lists to depth ``d = min(K, |S|, |T|)``. With the overlap
  ``X_i`` of the first ``i`` items and the agreement ``A_i = X_i / i``:

  - ``rbo`` (their Eq. 30, the extrapolated point estimate): ``A_d p^d + (1 − p) Σ_{i ≤ d}
    p^(i−1) A_i``;
  - ``rbo_residual``: how far the value could still move if the lists went on, the gap between
    ``RBO_max`` (every later item agrees as far as possible, ``A_i = min(1, (X_d + 2(i − d)) /
    i)``) and ``RBO_min`` (no later item agrees, ``A_i = X_d / i``): the true value lies in
    ``[rbo_min, rbo_min + rbo_residual]``;

* **Kendall's τ** on the items both full lists hold (τ-a = τ-b: ranks do not tie); ``NaN`` with
  fewer than two shared items.

Queries only one model has are left out (nothing to compare).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from metrics import schema as S
from metrics.engine.ranking import RankedLists

#: RBO's persistence by default (Webber et al.'s example; the top 10 carry 86% of the weight).
DEFAULT_PERSISTENCE = 0.9
#: Columns of :func:`ranking_change`.
COLUMNS = [
    S.QUERY,
    "overlap",
    "entered",
    "left",
    "rbo",
    "rbo_min",
    "rbo_residual",
    "kendall_tau",
    "shared",
]
#: Terms of RBO's infinite sums beyond the depth are added until ``p^i`` falls below this.
_TAIL = 1e-15


def rbo(
    first: Sequence[object], second: Sequence[object], p: float = DEFAULT_PERSISTENCE
) -> tuple[float, float, float]:
    """``(rbo, rbo_min, rbo_residual)`` of two ranked lists of distinct items, to the depth of
    the shorter (see the module docstring).

    Examples
    --------
    Webber et al.'s Fig. 5 style check, by hand: ``abcde`` against ``bacde`` agree at depth 1
    on nothing (A₁ = 0) and from depth 2 on everything:

    >>> value, low, residual = rbo("abcde", "bacde", p=0.9)
    >>> round(value, 6)
    0.9
    """
    if not 0 < p < 1:
        raise ValueError(f"the persistence p must be between 0 and 1; got {p!r}.")
    depth = min(len(first), len(second))
    if depth == 0:
        return (1.0, 1.0, 0.0) if not len(first) and not len(second) else (0.0, 0.0, 1.0)
    seen_a: set[object] = set()
    seen_b: set[object] = set()
    overlap = 0
    agreements = np.empty(depth, dtype=np.float64)
    for i in range(depth):
        a, b = first[i], second[i]
        if a == b:
            overlap += 1
        else:
            overlap += (a in seen_b) + (b in seen_a)
        seen_a.add(a)
        seen_b.add(b)
        agreements[i] = overlap / (i + 1)
    weights = (1 - p) * p ** np.arange(depth)
    head = float(weights @ agreements)
    value = head + float(agreements[-1]) * p**depth
    # beyond the depth: how many more terms before p^i is negligible
    more = math.ceil(math.log(_TAIL) / math.log(p)) + 1
    deeper = np.arange(depth + 1, depth + 1 + max(more, 1), dtype=np.float64)
    tail_weights = (1 - p) * p ** (deeper - 1)
    low = head + float(tail_weights @ (overlap / deeper))
    high = head + float(tail_weights @ np.minimum(1.0, (overlap + 2 * (deeper - depth)) / deeper))
    return value, low, high - low


def overlap_at(first: Sequence[object], second: Sequence[object], k: int) -> float:
    """``|S_{:k} ∩ T_{:k}| / min(k, max(|S_{:k}|, |T_{:k}|))`` (``NaN`` for two empty lists)."""
    a, b = list(first)[:k], list(second)[:k]
    size = min(k, max(len(a), len(b)))
    return len(set(a) & set(b)) / size if size else math.nan


def kendall_tau(first: Sequence[object], second: Sequence[object]) -> tuple[float, int]:
    """Kendall's τ between the ranks of the items both lists hold, and how many they share."""
    where = {item: i for i, item in enumerate(second)}
    shared = [(i, where[item]) for i, item in enumerate(first) if item in where]
    n = len(shared)
    if n < 2:
        return math.nan, n
    ranks = np.array(shared, dtype=np.float64)
    x, y = ranks[:, 0], ranks[:, 1]
    sign = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
    concordant = float(np.triu(sign, 1).sum())
    return concordant / (n * (n - 1) / 2), n


def items_of(lists: RankedLists, run: pd.DataFrame) -> dict[str, list[str]]:
    """Query id -> its ranked item ids (as text), from one model's lists and the run they were
    ranked from."""
    items = run[S.ITEM].astype(str).to_numpy()[lists.row_index]
    out = {}
    for q, query in enumerate(lists.query_ids.astype(str)):
        out[str(query)] = list(items[int(lists.offsets[q]) : int(lists.offsets[q + 1])])
    return out


def ranking_change(
    baseline: RankedLists,
    candidate: RankedLists,
    run: pd.DataFrame,
    k: int,
    p: float = DEFAULT_PERSISTENCE,
) -> pd.DataFrame:
    """Per query both models rank: overlap@k, entered, left, RBO at depth k (with its lower
    bound and residual) and Kendall's τ on the shared items (columns :data:`COLUMNS`)."""
    a, b = items_of(baseline, run), items_of(candidate, run)
    rows = []
    for query in (q for q in a if q in b):
        first, second = a[query], b[query]
        top_a, top_b = set(first[:k]), set(second[:k])
        value, low, residual = rbo(first[:k], second[:k], p)
        tau, shared = kendall_tau(first, second)
        rows.append(
            {
                S.QUERY: query,
                "overlap": overlap_at(first, second, k),
                "entered": len(top_b - top_a),
                "left": len(top_a - top_b),
                "rbo": value,
                "rbo_min": low,
                "rbo_residual": residual,
                "kendall_tau": tau,
                "shared": shared,
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def summary(changes: pd.DataFrame) -> dict[str, float]:
    """Means (and the median RBO) of a :func:`ranking_change` table."""
    if changes.empty:
        return {"queries": 0}
    return {
        "queries": len(changes),
        "overlap": float(changes["overlap"].mean()),
        "rbo": float(changes["rbo"].mean()),
        "rbo_median": float(changes["rbo"].median()),
        "rbo_residual": float(changes["rbo_residual"].mean()),
        "kendall_tau": float(changes["kendall_tau"].mean()),
        "entered": float(changes["entered"].mean()),
        "left": float(changes["left"].mean()),
        "unchanged": int((changes["overlap"] == 1).sum()),
    }


__all__ = [
    "COLUMNS",
    "DEFAULT_PERSISTENCE",
    "items_of",
    "kendall_tau",
    "overlap_at",
    "ranking_change",
    "rbo",
    "summary",
]
