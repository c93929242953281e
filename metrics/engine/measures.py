"""Per-query kernels: each reads a :class:`~metrics.engine.ranking.RankedLists` at cutoffs ``ks``.

A kernel returns an array of shape ``(n_queries, len(ks))`` (column ``j`` is the value at
``K = ks[j]``), or shape ``(n_queries,)`` when called with ``ks=None`` (no cutoff). Micro kernels
return the numerator and denominator that pooled (micro) averaging sums over queries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from metrics.engine.ranking import RankedLists, gain_of
from metrics.engine.settings import Settings
from metrics.errors import MeasureError

#: A micro kernel: per-query numerators and denominators at the cutoffs ``ks``.
MicroKernel = Callable[[RankedLists, np.ndarray], tuple[np.ndarray, np.ndarray]]


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` where ``den > 0``, else 0 (broadcast, float64)."""
    num, den = np.asarray(num), np.asarray(den)
    positive = den > 0
    out = np.empty(np.broadcast_shapes(num.shape, den.shape), dtype=np.float64)
    if positive.all():
        np.divide(num, den, out=out)
        return out
    out[...] = 0.0
    np.divide(num, den, out=out, where=positive)
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
    """Relevant items in the top K, ``Σ_{i ≤ K} rel_i`` (trec_eval's ``num_rel_ret`` at a
    cutoff), shape ``(queries, len(ks))``."""
    return lists.at(lists.cum_relevant, ks)


def precision(lists: RankedLists, ks: np.ndarray) -> np.ndarray:
    """P@K ``= Σ_{i ≤ K} rel_i / K`` (trec_eval ``P_K``: divides by K even when fewer than K
    were returned); under the fewer-than-K policy ``divide_by_returned`` the denominator is
    ``min(K, n)``, and ``leave_out`` makes such a query ``NaN`` at that K."""
    if lists.settings.short_lists == "divide_by_k" and len(ks) and ks.min() >= 1:
        return _safe_div(relevant_retrieved(lists, ks), ks[None, :].astype(np.float64))
    den = precision_denominator(lists, ks)
    return _with_leave_out(_safe_div(relevant_retrieved(lists, ks), np.nan_to_num(den)), den)


def precision_micro(lists: RankedLists, ks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P@K's numerator and denominator per query, for micro averaging (``Σ num / Σ den``)."""
    den = precision_denominator(lists, ks)
    return _with_leave_out(relevant_retrieved(lists, ks), den), den


def recall(lists: RankedLists, ks: np.ndarray) -> np.ndarray:
    """R@K ``= Σ_{i ≤ K} rel_i / R``, R the relevant judged items retrieved or not (trec_eval
    ``recall_K``; 0 when R = 0)."""
    return _safe_div(relevant_retrieved(lists, ks), lists.num_rel[:, None])


def recall_micro(lists: RankedLists, ks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R@K's numerator and denominator per query, for micro averaging."""
    num = relevant_retrieved(lists, ks)
    return num, np.broadcast_to(lists.num_rel[:, None], num.shape).astype(np.float64)


def f1(lists: RankedLists, ks: np.ndarray) -> np.ndarray:
    """F1@K ``= 2 P R / (P + R)`` of P@K and R@K, 0 when both are 0 (trec_eval has no cutoff
    form: its ``set_F`` is F over the whole list)."""
    p, r = precision(lists, ks), recall(lists, ks)
    return _with_leave_out(_safe_div(2 * np.nan_to_num(p) * r, np.nan_to_num(p) + r), p)


def success(lists: RankedLists, ks: np.ndarray) -> np.ndarray:
    """Success@K ``= 1 if Σ_{i ≤ K} rel_i > 0 else 0`` (trec_eval ``success_K``)."""
    return (relevant_retrieved(lists, ks) > 0).astype(np.float64)


def success_micro(lists: RankedLists, ks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Success@K's hits and one per query, for micro averaging."""
    hit = success(lists, ks)
    return hit, np.ones_like(hit)


def reciprocal_rank(lists: RankedLists, ks: np.ndarray | None) -> np.ndarray:
    """RR ``= 1 / rank of the first relevant item`` (0 without one; trec_eval ``recip_rank``,
    no cutoff); RR@K is 0 when the first relevant item is below K."""
    first = lists.first_relevant_rank
    if ks is None:
        return np.where(np.isfinite(first), 1.0 / first, 0.0)
    first = first[:, None]
    return np.where(first <= ks[None, :], 1.0 / first, 0.0)


def average_precision(lists: RankedLists, ks: np.ndarray | None) -> np.ndarray:
    """AP ``= Σ_{relevant i} P@i / R`` over the relevant retrieved items, R all relevant
    judged items (trec_eval ``map``); AP@K sums over ranks ≤ K and still divides by R
    (``map_cut_K``)."""
    if ks is None:
        return _safe_div(lists.at_end(lists.cum_precision_at_relevant), lists.num_rel)
    return _safe_div(lists.at(lists.cum_precision_at_relevant, ks), lists.num_rel[:, None])


def context_precision(lists: RankedLists, ks: np.ndarray | None) -> np.ndarray:
    """CP@K ``= Σ_{relevant i ≤ K} P@i / Σ_{i ≤ K} rel_i``: AP's sum divided by the relevant
    items retrieved in the top K instead of all relevant judged items (ragas' context
    precision, DeepEval's contextual precision); 0 when none is retrieved. Without a cutoff:
    the whole list."""
    if ks is None:
        found = lists.at_end(lists.cum_precision_at_relevant)
        return _safe_div(found, lists.at_end(lists.cum_relevant))
    found = lists.at(lists.cum_precision_at_relevant, ks)
    return _safe_div(found, lists.at(lists.cum_relevant, ks))


def dcg(lists: RankedLists, ks: np.ndarray | None) -> np.ndarray:
    """DCG@K ``= Σ_{i ≤ K} g_i / log2(i + 1)``, the gain ``g`` of each label by the gain
    policy (``r`` as trec_eval, or ``2^r − 1``; a gain map replaces both); no cutoff: the whole
    list (trec_eval computes it inside ``ndcg`` and does not print it)."""
    if ks is None:
        return lists.at_end(lists.cum_dcg)
    return _owned(lists.at(lists.cum_dcg, ks))


def ndcg_without_gain(settings: Settings) -> float:
    """nDCG of a query whose ideal DCG is 0 (no judged item has a gain): 1 under the
    no-relevant-item policy ``one`` (LightGBM, XGBoost's ``ndcg``), else 0 (trec_eval)."""
    return 1.0 if settings.no_relevant == "one" else 0.0


def ndcg(lists: RankedLists, ks: np.ndarray | None) -> np.ndarray:
    """nDCG@K ``= DCG@K / IDCG@K``, IDCG@K the DCG of all judged items sorted by gain and cut
    at K (trec_eval ``ndcg_cut_K``); without a cutoff the ideal list is not cut (trec_eval
    ``ndcg``). When IDCG is 0: :func:`ndcg_without_gain` (0, or 1 under ``one``)."""
    if ks is None:
        dcg, ideal = lists.at_end(lists.cum_dcg), lists.ideal_total()
    else:
        dcg, ideal = lists.at(lists.cum_dcg, ks), lists.ideal_at(ks)
    values = _safe_div(dcg, ideal)
    empty = ndcg_without_gain(lists.settings)
    if empty:
        values[np.broadcast_to(ideal <= 0, values.shape)] = empty
    return values


def r_precision(lists: RankedLists, ks: np.ndarray | None = None) -> np.ndarray:
    """Precision at rank R, R = number of relevant judged items (0 when R = 0)."""
    r = lists.num_rel.astype(np.int64)
    take = np.minimum(r, lists.n_returned)
    index = np.maximum(lists.offsets[:-1] + take - 1, 0)
    hits = np.where(take > 0, lists.cum_relevant[index] if len(lists.cum_relevant) else 0.0, 0.0)
    return _safe_div(hits, r)


def judged(lists: RankedLists, ks: np.ndarray) -> np.ndarray:
    """Share of the top K that has a judgment: an item in the judgments with a label ≥ 0 (a
    negative label means "in the pool but unjudged", as trec_eval). The denominator follows the
    fewer-than-K policy like P@K (K by default, as 1 − trec_eval 10's unj@K)."""
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


# ====================================================================== pooled (micro) values
def pooled_ratio(
    lists: RankedLists, ks: np.ndarray, rows: np.ndarray | None, kernel: MicroKernel
) -> np.ndarray:
    """Sum of a micro kernel's numerators over sum of its denominators, per cutoff, over the
    queries ``rows`` (all when ``None``); left-out queries (``NaN``) are skipped."""
    num, den = kernel(lists, ks)
    if rows is not None:
        num, den = num[rows], den[rows]
    keep = ~np.isnan(den)
    total = np.where(keep, den, 0.0).sum(axis=0)
    hits = np.where(keep, num, 0.0).sum(axis=0)
    return _safe_div(hits, total)


def precision_pooled(
    lists: RankedLists, ks: np.ndarray, rows: np.ndarray | None = None
) -> np.ndarray:
    """Micro P@K: relevant retrieved over the denominators, summed over the queries."""
    return pooled_ratio(lists, ks, rows, precision_micro)


def recall_pooled(lists: RankedLists, ks: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """Micro R@K: relevant retrieved over all relevant items, summed over the queries."""
    return pooled_ratio(lists, ks, rows, recall_micro)


def f1_pooled(lists: RankedLists, ks: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """Harmonic mean of pooled precision and pooled recall."""
    p, r = precision_pooled(lists, ks, rows), recall_pooled(lists, ks, rows)
    return _safe_div(2 * p * r, p + r)


def success_pooled(
    lists: RankedLists, ks: np.ndarray, rows: np.ndarray | None = None
) -> np.ndarray:
    """Micro Success@K: the share of queries with a relevant item in the top K."""
    return pooled_ratio(lists, ks, rows, success_micro)


# ====================================================================== helpers
def _exclusive_cumsum(lists: RankedLists, values: np.ndarray) -> np.ndarray:
    """Within-query sum of the values ranked above each item."""
    above: np.ndarray = lists.within_query_cumsum(values) - values
    return above


def _owned(values: np.ndarray) -> np.ndarray:
    """``values``, copied when it is a read-only view of the lists' cached sums."""
    return values if values.flags.writeable else values.copy()


def _at(lists: RankedLists, cumulative: np.ndarray, ks: np.ndarray | None) -> np.ndarray:
    return lists.at_end(cumulative) if ks is None else _owned(lists.at(cumulative, ks))


def _suffix_max(lists: RankedLists, values: np.ndarray) -> np.ndarray:
    # Reversed, queries come in descending order: adding 2·(n_queries − q) makes every later
    # query's values larger than any earlier one's, so a running maximum never crosses a query.
    shift = 2.0 * (lists.n_queries - lists.query_of_row).astype(np.float64)
    running = np.maximum.accumulate((values + shift)[::-1])[::-1]
    return running - shift


# ====================================================================== judged-based measures
def bpref(lists: RankedLists, ks: np.ndarray | None = None) -> np.ndarray:
    """trec_eval's bpref (m_bpref.c, with the 2005 correction): each relevant retrieved item
    scores 1 − min(n, R)/min(N, R), n judged non-relevant items above it, N all judged
    non-relevant items of the query; summed and divided by R. Unjudged items are skipped."""
    r = lists.num_rel
    n_total = lists.num_judged_nonrelevant
    above = _exclusive_cumsum(lists, lists.judged_nonrelevant.astype(np.float64))
    q = lists.query_of_row
    den = np.minimum(n_total, r)[q]
    term = np.where(above > 0, 1.0 - _safe_div(np.minimum(above, r[q]), den), 1.0)
    total = lists.within_query_cumsum(np.where(lists.relevant, term, 0.0))
    return _safe_div(_at(lists, total, ks), r if ks is None else r[:, None])


INFAP_EPSILON = 1e-5


def infap(lists: RankedLists, ks: np.ndarray | None = None) -> np.ndarray:
    """Inferred AP (Yilmaz & Aslam 2006) as trec_eval m_infap.c computes it."""
    rel = lists.relevant.astype(np.float64)
    r = _exclusive_cumsum(lists, rel)
    m = _exclusive_cumsum(lists, lists.judged_nonrelevant.astype(np.float64))
    u = _exclusive_cumsum(lists, lists.pooled_unjudged.astype(np.float64))
    k = lists.position + 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / k + ((k - 1.0) / k) * ((r + m + u) / (k - 1.0)) * (
            (r + INFAP_EPSILON) / (r + m + 2.0 * INFAP_EPSILON)
        )
    term = np.where(k == 1.0, 1.0, term)
    total = lists.within_query_cumsum(np.where(lists.relevant, term, 0.0))
    num_rel = lists.num_rel
    return _safe_div(_at(lists, total, ks), num_rel if ks is None else num_rel[:, None])


# ====================================================================== interpolated precision
RECALL_LEVELS = tuple(i / 10 for i in range(11))


def relevant_needed(num_rel: np.ndarray, level: float, rounding: str) -> np.ndarray:
    """Relevant items needed to reach recall ``level``: trunc(p·R + 0.9) (trec_eval 9.0.8) or
    round(p·R) with halves away from zero (trec_eval 10.0)."""
    target = level * num_rel
    if rounding == "lround":
        return np.floor(target + 0.5)
    return np.trunc(target + 0.9)


def interpolated_precision(
    lists: RankedLists, ks: np.ndarray | None = None, recall: float = 0.0
) -> np.ndarray:
    """trec_eval's iprec_at_recall: the highest precision at or below the rank where the list
    reaches ``recall``; 0 when it never does (also 0 for an empty list)."""
    out = interpolated_precisions(lists, (recall,))[:, 0]
    return out if ks is None else np.repeat(out[:, None], len(ks), axis=1)


def interpolated_precisions(lists: RankedLists, levels: Sequence[float]) -> np.ndarray:
    """:func:`interpolated_precision` at every recall level of ``levels`` (queries × levels);
    the best precision from each rank on is computed once for all levels."""
    n = lists.n_returned
    r = lists.num_rel
    found = lists.at_end(lists.cum_relevant)
    best = _suffix_max(lists, _safe_div(lists.cum_relevant, lists.position + 1.0))
    rel_rows = np.flatnonzero(lists.relevant)
    first_rel = np.concatenate(([0], np.cumsum(found)[:-1])).astype(np.int64)
    out = np.zeros((lists.n_queries, len(levels)))
    for column, level in enumerate(levels):
        needed = relevant_needed(r, level, lists.settings.recall_rounding).astype(np.int64)
        row = np.where(
            needed > 0,
            rel_rows[np.clip(first_rel + needed - 1, 0, max(len(rel_rows) - 1, 0))]
            if len(rel_rows)
            else 0,
            lists.offsets[:-1],
        )
        ok = (needed <= found) & (n > 0)
        if len(best):
            out[ok, column] = best[np.minimum(row[ok], len(best) - 1)]
    return out


def eleven_point_average(lists: RankedLists, ks: np.ndarray | None = None) -> np.ndarray:
    """trec_eval's 11pt_avg: mean interpolated precision at recall 0, 0.1, ..., 1."""
    mean: np.ndarray = interpolated_precisions(lists, RECALL_LEVELS).mean(axis=1)
    return mean


# ====================================================================== counts
def num_ret(lists: RankedLists, ks: np.ndarray | None = None) -> np.ndarray:
    """Items retrieved (in the top K)."""
    n = lists.n_returned.astype(np.float64)
    return n if ks is None else np.minimum(n[:, None], ks[None, :].astype(np.float64))


def num_rel(lists: RankedLists, ks: np.ndarray | None = None) -> np.ndarray:
    """Judged items at or above the relevance level, retrieved or not."""
    return lists.num_rel.astype(np.float64)


def num_rel_ret(lists: RankedLists, ks: np.ndarray | None = None) -> np.ndarray:
    """Relevant items retrieved (in the top K)."""
    return _at(lists, lists.cum_relevant, ks)


# ====================================================================== unranked sets
def _set_counts(lists: RankedLists) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Relevant retrieved, retrieved and relevant judged of each whole list (trec_eval's
    ``res_rels``: the retrieved set is the list, cut to ``max_results`` when set)."""
    rel_ret = lists.at_end(lists.cum_relevant).astype(np.float64)
    return rel_ret, lists.n_returned.astype(np.float64), lists.num_rel.astype(np.float64)


def set_precision(lists: RankedLists, ks: np.ndarray | None = None) -> np.ndarray:
    """trec_eval's set_P: relevant retrieved / retrieved over the whole list (0 when empty)."""
    rel_ret, ret, _ = _set_counts(lists)
    return _safe_div(rel_ret, ret)


def set_recall(lists: RankedLists, ks: np.ndarray | None = None) -> np.ndarray:
    """trec_eval's set_recall: relevant retrieved / relevant judged (0 without a relevant)."""
    rel_ret, _, rel = _set_counts(lists)
    return _safe_div(rel_ret, rel)


def set_f(lists: RankedLists, ks: np.ndarray | None = None, beta: float = 1.0) -> np.ndarray:
    """trec_eval's set_F: (β + 1)·P·R / (β·P + R) of the set precision and recall, 0 when no
    relevant item was retrieved (trec_eval's β weighs recall against precision linearly)."""
    rel_ret, ret, rel = _set_counts(lists)
    p, r = _safe_div(rel_ret, ret), _safe_div(rel_ret, rel)
    return np.where(rel_ret > 0, _safe_div((beta + 1.0) * p * r, beta * p + r), 0.0)


def set_average_precision(lists: RankedLists, ks: np.ndarray | None = None) -> np.ndarray:
    """trec_eval's set_map: relevant retrieved² / (retrieved · relevant judged)."""
    rel_ret, ret, rel = _set_counts(lists)
    return _safe_div(rel_ret * rel_ret, ret * rel)


def set_relative_precision(lists: RankedLists, ks: np.ndarray | None = None) -> np.ndarray:
    """trec_eval's set_relative_P: relevant retrieved / min(retrieved, relevant judged)."""
    rel_ret, ret, rel = _set_counts(lists)
    return _safe_div(rel_ret, np.minimum(ret, rel))


# ====================================================================== user models
def err(lists: RankedLists, ks: np.ndarray | None = None, gmax: int = 4) -> np.ndarray:
    """Expected reciprocal rank (Chapelle et al. 2009): the user stops at rank r with
    probability R = (2^g − 1)/2^gmax; labels ≤ 0 and unjudged items have g = 0. Under a custom
    gain map the map gives 2^g − 1 directly: R = gain/2^gmax."""
    if lists.settings.gain_map is not None:
        gains = gain_of(lists.labels, lists.settings)
        if len(gains) and (gains.max() > 2.0**gmax or gains.min() < 0):
            raise MeasureError(
                f"ERR: with gmax={gmax} every custom gain must lie between 0 and {2**gmax:g} "
                f"(2^gmax); write ERR(gmax=...) with a larger maximum grade."
            )
        stop = np.minimum(gains / 2.0**gmax, np.nextafter(1.0, 0.0))
    else:
        grades = np.maximum(np.nan_to_num(lists.labels, nan=0.0), 0.0)
        if len(grades) and grades.max() > gmax:
            raise MeasureError(
                f"ERR: a label of {grades.max():g} is above the maximum grade {gmax}; "
                f"write ERR(gmax={int(np.ceil(grades.max()))}) or relabel the judgments."
            )
        stop = (np.exp2(grades) - 1.0) / 2.0**gmax
    reach = np.exp(_exclusive_cumsum(lists, np.log1p(-stop)))
    total = lists.within_query_cumsum(stop * reach / (lists.position + 1.0))
    return _at(lists, total, ks)


def _rbp_gain(lists: RankedLists, gain: str) -> np.ndarray:
    if gain == "graded":
        top = lists.max_label[lists.query_of_row]
        value = np.maximum(np.nan_to_num(lists.labels, nan=0.0), 0.0)
        return _safe_div(np.minimum(value, top), top)
    return lists.relevant.astype(np.float64)


def rbp(
    lists: RankedLists, ks: np.ndarray | None = None, p: float = 0.8, gain: str = "binary"
) -> np.ndarray:
    """Rank-biased precision (Moffat & Zobel 2008): (1 − p) Σ r_i p^(i−1) over the top K."""
    weight = (1.0 - p) * p ** lists.position.astype(np.float64)
    return _at(lists, lists.within_query_cumsum(weight * _rbp_gain(lists, gain)), ks)


def rbp_residual(lists: RankedLists, ks: np.ndarray | None = None, p: float = 0.8) -> np.ndarray:
    """RBP's residual: what RBP would gain if every unjudged item in the top d = min(K, n) and
    everything past d were relevant, (1 − p) Σ_{unjudged i ≤ d} p^(i−1) + p^d."""
    weight = (1.0 - p) * p ** lists.position.astype(np.float64)
    unjudged = _at(lists, lists.within_query_cumsum(np.where(lists.judged, 0.0, weight)), ks)
    n = lists.n_returned.astype(np.float64)
    depth = n if ks is None else np.minimum(n[:, None], ks[None, :].astype(np.float64))
    return unjudged + p**depth


# ====================================================================== weighted precision
def graded_precision(lists: RankedLists, ks: np.ndarray) -> np.ndarray:
    """P@K with each relevant item weighted by its label over the query's largest label, so a
    top-grade item counts 1 and weaker ones less; with binary labels it equals P@K."""
    top = lists.max_label[lists.query_of_row]
    strength = _safe_div(np.nan_to_num(lists.labels, nan=0.0), top)
    num = lists.at(lists.within_query_cumsum(np.where(lists.relevant, strength, 0.0)), ks)
    den = precision_denominator(lists, ks)
    return _with_leave_out(_safe_div(num, np.nan_to_num(den)), den)


def confidence_precision(lists: RankedLists, ks: np.ndarray) -> np.ndarray:
    """P@K with each item weighted by the model's score: Σ s_i·rel_i / Σ s_i over the top K.

    Raises
    ------
    MeasureError
        When the lists have no scores, a score is negative, or lower scores are better (a
        distance is no confidence).
    """
    if lists.scores is None:
        raise MeasureError("cwP needs scores; the run was ranked by its rank column.")
    if lists.settings.score_order == "ascending":
        raise MeasureError(
            "cwP weighs items by their scores as confidences (higher is more confident), but "
            "these scores are ranked lowest first (score order: lower is better)."
        )
    scores = lists.scores
    if len(scores) and (np.isnan(scores).any() or scores.min() < 0):
        raise MeasureError(
            "cwP weighs items by their scores, so every score must be a number ≥ 0 "
            "(a confidence or probability)."
        )
    num = lists.at(lists.within_query_cumsum(np.where(lists.relevant, scores, 0.0)), ks)
    den = lists.at(lists.within_query_cumsum(scores), ks)
    return _safe_div(num, den)
