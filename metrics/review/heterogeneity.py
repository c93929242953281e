"""Is a candidate's effect the same in every segment? One test per segment column.

Testing every segment × measure cell and correcting over all of them leaves small segments no
chance. The review asks one question per segment column and candidate first, on the lead
measure: does the paired difference ``d_i`` depend on the segment of query ``i``?

* **statistic**: the between-segment sum of squares of the segment means of ``d``,
  ``T = Σ_s n_s (d̄_s − d̄)²`` (one-way ANOVA's numerator);
* **null distribution**: the segment labels permuted across queries, each query keeping its
  own paired difference (the labels are exchangeable when the effect is the same everywhere);
  ``p = (1 + #{T* ≥ T}) / (B + 1)``;
* the p-values of the columns of one candidate are corrected with Holm.

**Partial pooling** (empirical Bayes): each segment's mean difference is drawn toward the
overall one with weight ``w_s = n_s / (n_s + σ² / τ²)``, ``σ²`` the pooled within-segment
variance and ``τ²`` the between-segment variance by the method of moments,
``τ² = max(0, (T − (k − 1) σ²) / (n − Σ n_s² / n))``; small or noisy segments move most.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Largest number of matrix entries drawn at once.
_MAX_ENTRIES = 4_000_000


def _between(sums: np.ndarray, sizes: np.ndarray, total: float, n: int) -> np.ndarray:
    """``Σ_s n_s (d̄_s − d̄)²`` from the segment sums (last axis: segments)."""
    out: np.ndarray = (sums**2 / sizes).sum(axis=-1) - total**2 / n
    return out


@dataclass(frozen=True)
class Heterogeneity:
    """The test of one segment column: statistic, permutation p-value, segments, queries."""

    statistic: float
    p_value: float
    segments: int
    n: int


def heterogeneity_test(
    diff: np.ndarray, labels: np.ndarray, resamples: int = 5_000, seed: int = 0
) -> Heterogeneity:
    """The permutation test of "the same effect in every segment" (see the module docstring).

    ``NaN`` p-value with fewer than two segments or three queries.
    """
    diff = np.asarray(diff, dtype=np.float64)
    codes, uniques = _codes(labels)
    n, k = len(diff), len(uniques)
    if k < 2 or n < 3:
        return Heterogeneity(math.nan, math.nan, k, n)
    sizes = np.bincount(codes, minlength=k).astype(np.float64)
    onehot = np.zeros((n, k))
    onehot[np.arange(n), codes] = 1.0
    total = float(diff.sum())
    observed = float(_between(diff @ onehot, sizes, total, n))
    threshold = observed - 1e-12 * max(1.0, abs(observed))
    rng = np.random.default_rng(seed)
    hits, done = 0, 0
    chunk = max(1, _MAX_ENTRIES // n)
    while done < resamples:
        size = min(chunk, resamples - done)
        shuffled = rng.permuted(np.broadcast_to(diff, (size, n)), axis=1)
        hits += int(np.count_nonzero(_between(shuffled @ onehot, sizes, total, n) >= threshold))
        done += size
    return Heterogeneity(observed, (hits + 1) / (resamples + 1), k, n)


def _codes(labels: np.ndarray) -> tuple[np.ndarray, list[str]]:
    text = np.asarray(labels).astype(str)
    uniques, codes = np.unique(text, return_inverse=True)
    return codes.astype(np.int64), [str(u) for u in uniques]


def pooled_means(diff: np.ndarray, labels: np.ndarray) -> dict[str, tuple[float, float]]:
    """Segment -> (raw mean difference, partially pooled mean difference)."""
    diff = np.asarray(diff, dtype=np.float64)
    codes, uniques = _codes(labels)
    k = len(uniques)
    sizes = np.bincount(codes, minlength=k).astype(np.float64)
    means = np.bincount(codes, weights=diff, minlength=k) / np.maximum(sizes, 1)
    squares = np.bincount(codes, weights=(diff - means[codes]) ** 2, minlength=k)
    spreads = np.sqrt(squares / np.maximum(sizes - 1, 1))
    pooled = pooled_from_summary(sizes, means, spreads)
    return {u: (float(means[i]), float(pooled[i])) for i, u in enumerate(uniques)}


def pooled_from_summary(sizes: np.ndarray, means: np.ndarray, spreads: np.ndarray) -> np.ndarray:
    """Partially pooled segment means from each segment's size ``n_s``, mean difference
    ``d̄_s`` and sample standard deviation ``s_s`` (see the module docstring; the overall mean
    is the size-weighted mean of the segments', ``σ² = Σ (n_s − 1) s_s² / (n − k)``)."""
    sizes = np.asarray(sizes, dtype=np.float64)
    means = np.asarray(means, dtype=np.float64)
    spreads = np.nan_to_num(np.asarray(spreads, dtype=np.float64))
    n, k = float(sizes.sum()), len(sizes)
    if k == 0 or n == 0:
        return means.copy()
    overall = float((sizes * means).sum() / n)
    within = float(((sizes - 1).clip(min=0) * spreads**2).sum()) / max(n - k, 1)
    between = float((sizes * (means - overall) ** 2).sum())
    spread = n - float((sizes**2).sum()) / n
    tau2 = max(0.0, (between - (k - 1) * within) / spread) if spread > 0 else 0.0
    if tau2 == 0.0:
        weights = np.zeros(k)
    elif within == 0.0:
        weights = np.ones(k)
    else:
        weights = sizes / (sizes + within / tau2)
    out: np.ndarray = overall + weights * (means - overall)
    return out


__all__ = ["Heterogeneity", "heterogeneity_test", "pooled_from_summary", "pooled_means"]
