"""Per-query kernels: each reads a :class:`~metrics.engine.ranking.RankedLists` at cutoffs ``ks``.

A kernel returns an array of shape ``(n_queries, len(ks))`` (column ``j`` is the value at
``K = ks[j]``), or shape ``(n_queries,)`` when called with ``ks=None`` (no cutoff). Micro kernels
return the numerator and denominator that pooled (micro) averaging sums over queries.
"""

from __future__ import annotations

import numpy as np

from metrics.engine.ranking import RankedLists


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num, den = np.broadcast_arrays(num, den)
    out = np.zeros(num.shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _per_query(values: np.ndarray, ndim_cutoff: bool) -> np.ndarray:
    return values if ndim_cutoff else values[:, 0]


def precision_denominator(lists: RankedLists, ks: np.ndarray) -> np.ndarray:
    """What P@K divides by under the fewer-than-K policy (``NaN`` = leave the query out)."""
    k = np.broadcast_to(ks[None, :].astype(np.float64), (lists.n_queries, len(ks)))
    n = lists.n_returned[:, None].astype(np.float64)
    policy = lists.settings.short_lists
    if policy == "divide_by_returned":
        return np.minimum(k, n)
    if policy == "leave_out":
        return np.where(n >= k, k, np.nan)
    return k


def _with_leave_out(values: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(den), np.nan, values)


def relevant_retrieved(lists: RankedLists, ks: np.ndarray) -> np.ndarray:
    return lists.at(lists.cum_relevant, ks)


def precision(lists: RankedLists, ks: np.ndarray) -> np.ndarray:
    den = precision_denominator(lists, ks)
    return _with_leave_out(_safe_div(relevant_retrieved(lists, ks), np.nan_to_num(den)), den)


def precision_micro(lists: RankedLists, ks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    den = precision_denominator(lists, ks)
    return _with_leave_out(relevant_retrieved(lists, ks), den), den


def recall(lists: RankedLists, ks: np.ndarray) -> np.ndarray:
    return _safe_div(relevant_retrieved(lists, ks), lists.num_rel[:, None])


def recall_micro(lists: RankedLists, ks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    num = relevant_retrieved(lists, ks)
    return num, np.broadcast_to(lists.num_rel[:, None], num.shape).astype(np.float64)


def f1(lists: RankedLists, ks: np.ndarray) -> np.ndarray:
    p, r = precision(lists, ks), recall(lists, ks)
    return _with_leave_out(_safe_div(2 * np.nan_to_num(p) * r, np.nan_to_num(p) + r), p)


def success(lists: RankedLists, ks: np.ndarray) -> np.ndarray:
    return (relevant_retrieved(lists, ks) > 0).astype(np.float64)


def success_micro(lists: RankedLists, ks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    hit = success(lists, ks)
    return hit, np.ones_like(hit)


def reciprocal_rank(lists: RankedLists, ks: np.ndarray | None) -> np.ndarray:
    first = lists.first_relevant_rank
    if ks is None:
        return np.where(np.isfinite(first), 1.0 / first, 0.0)
    first = first[:, None]
    return np.where(first <= ks[None, :], 1.0 / first, 0.0)


def average_precision(lists: RankedLists, ks: np.ndarray | None) -> np.ndarray:
    if ks is None:
        return _safe_div(lists.at_end(lists.cum_precision_at_relevant), lists.num_rel)
    return _safe_div(lists.at(lists.cum_precision_at_relevant, ks), lists.num_rel[:, None])


def dcg(lists: RankedLists, ks: np.ndarray | None) -> np.ndarray:
    if ks is None:
        return lists.at_end(lists.cum_dcg)
    return lists.at(lists.cum_dcg, ks)


def ndcg(lists: RankedLists, ks: np.ndarray | None) -> np.ndarray:
    if ks is None:
        return _safe_div(lists.at_end(lists.cum_dcg), lists.ideal_total())
    return _safe_div(lists.at(lists.cum_dcg, ks), lists.ideal_at(ks))


def r_precision(lists: RankedLists, ks: np.ndarray | None = None) -> np.ndarray:
    """Precision at rank R, R = number of relevant judged items (0 when R = 0)."""
    r = lists.num_rel.astype(np.int64)
    take = np.minimum(r, lists.n_returned)
    index = np.maximum(lists.offsets[:-1] + take - 1, 0)
    hits = np.where(take > 0, lists.cum_relevant[index] if len(lists.cum_relevant) else 0.0, 0.0)
    return _safe_div(hits, r)


def judged(lists: RankedLists, ks: np.ndarray) -> np.ndarray:
    """Share of the top K that has a judgment: P@K with every judged item counted (as in
    ir_measures' Judged@k); the denominator follows the fewer-than-K policy like P@K."""
    den = precision_denominator(lists, ks)
    return _with_leave_out(_safe_div(lists.at(lists.cum_judged, ks), np.nan_to_num(den)), den)


def position_weights(
    decay: str, n: int, p: float = 0.9, weights: tuple[float, ...] = ()
) -> np.ndarray:
    """Weight of ranks 1..n: ``log`` 1/log2(i+1), ``reciprocal`` 1/i, ``geometric`` p^(i-1),
    ``user`` the given weights (ranks beyond them weigh 0)."""
    i = np.arange(1, n + 1, dtype=np.float64)
    if decay == "log":
        return 1.0 / np.log2(i + 1.0)
    if decay == "reciprocal":
        return 1.0 / i
    if decay == "geometric":
        return p ** (i - 1.0)
    w = np.zeros(n)
    given = np.asarray(weights, dtype=np.float64)[:n]
    w[: len(given)] = given
    return w


def weighted_precision(
    lists: RankedLists,
    ks: np.ndarray,
    decay: str = "log",
    p: float = 0.9,
    weights: tuple[float, ...] = (),
) -> np.ndarray:
    """Position-weighted P@K: sum of w_i·rel_i over the top K / sum of w_i over ranks 1..K.

    Missing positions of a short list count as non-relevant (the weights of ranks 1..K are
    always in the denominator), mirroring P@K's default.
    """
    k_max = int(max(ks.max(), 1))
    w = position_weights(decay, max(k_max, int(lists.n_returned.max(initial=0))), p, weights)
    row_w = w[lists.position] if len(lists.position) else np.zeros(0)
    num = lists.at(lists.within_query_cumsum(np.where(lists.relevant, row_w, 0.0)), ks)
    cum_w = np.cumsum(w[:k_max])
    den = np.broadcast_to(cum_w[ks - 1][None, :], num.shape)
    if lists.settings.short_lists == "divide_by_returned":
        take = np.minimum(ks[None, :], lists.n_returned[:, None])
        den = np.where(take > 0, np.concatenate(([0.0], cum_w))[take], 0.0)
    out = _safe_div(num, den)
    if lists.settings.short_lists == "leave_out":
        out = np.where(lists.n_returned[:, None] >= ks[None, :], out, np.nan)
    return out
