"""Confidence intervals that agree with their test: each one is the test inverted.

A row's interval at level ``1 − α'`` is the set of shifts ``δ`` that the row's own test, applied
to the shifted differences ``d_i − δ``, does not reject at ``α'`` (Lehmann & Romano, *Testing
Statistical Hypotheses*, ch. 3.5). So the interval excludes 0 exactly when the test rejects
``mean = 0`` at ``α'``: an interval and a verdict can never contradict each other.

* **randomization test** (sign flips, the review's default): for one sign vector ``s`` with
  ``a = Σ s_i d_i`` and ``b = Σ s_i``, the flipped mean of the shifted differences is at least
  the observed one, ``|a − δ b| ≥ n |d̄ − δ|``, exactly on an interval around ``d̄``: with
  ``c = a − d̄ b``, from ``d̄ − |c| / (n − sgn(c) b)`` to ``d̄ + |c| / (n + sgn(c) b)``
  (the whole line for ``s = ±1``). The p-value at ``δ`` counts the intervals that hold ``δ``,
  so the set where ``p(δ) ≥ α'`` runs from the ``k``-th smallest lower end to the ``k``-th
  largest upper end, ``k`` the fewest hits that keep ``p ≥ α'``. The sign vectors are those of
  :func:`metrics.review.statistics.randomization_pvalues` (same seed, same chunks);
* **paired t-test**: ``d̄ ± t_{1−α'/2, n−1} · s_d / √n``, the interval of
  ``scipy.stats.ttest_rel(...).confidence_interval``;
* **Wilcoxon signed-rank test**: the shifts found by bisection on
  :func:`~metrics.review.statistics.wilcoxon_pvalue` of ``d − δ`` (its p-value falls as ``δ``
  moves away from the Hodges–Lehmann estimate), a Hodges–Lehmann-type interval.

At ``δ = 0`` these are the row's own p-value; a row's effective level ``α'`` comes from its
correction (:func:`metrics.review.verdict.row_level`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from metrics.review.distributions import t_ppf

#: The tests whose intervals are inverted here (the review's ``test`` option).
TESTS = ("p_randomization", "p_ttest", "p_wilcoxon")


@dataclass(frozen=True)
class Inversion:
    """One row's test, ready to be inverted at any level.

    Attributes
    ----------
    test:
        The test (a key of :data:`TESTS`).
    diff:
        The per-query differences.
    lows, highs:
        Randomization test only: the lower ends of the sign vectors' intervals in ascending
        order and the upper ends in descending order.
    offset:
        Randomization test only: ``1`` for the Monte Carlo estimate ``(hits + 1) / (R + 1)``,
        ``0`` for the exact enumeration ``hits / 2**n``.
    pvalue:
        Wilcoxon test only: its p-value of a set of differences.
    """

    test: str
    diff: np.ndarray = field(repr=False)
    lows: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)
    highs: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)
    offset: int = 0
    pvalue: Callable[[np.ndarray], float] | None = field(default=None, repr=False)

    def interval(self, alpha: float) -> tuple[float, float]:
        """The shifts the test does not reject at ``alpha``: ``(low, high)``; ``NaN`` without
        pairs (or, for the t-test, with fewer than two)."""
        n = len(self.diff)
        if n == 0 or math.isnan(alpha):
            return math.nan, math.nan
        if self.test == "p_ttest":
            return _t_interval(self.diff, alpha)
        if self.test == "p_wilcoxon" and self.pvalue is not None:
            return _wilcoxon_interval(self.diff, alpha, self.pvalue)
        return _count_interval(self.lows, self.highs, self.offset, alpha)


def _count_interval(
    lows: np.ndarray, highs: np.ndarray, offset: int, alpha: float
) -> tuple[float, float]:
    total = len(lows)
    # p(δ) = (hits + offset) / (total + offset) ≥ alpha  ⟺  hits ≥ k
    k = math.ceil(alpha * (total + offset) - offset - 1e-9)
    if k <= 0:
        return -math.inf, math.inf
    k = min(k, total)
    return float(lows[k - 1]), float(highs[k - 1])


def _t_interval(diff: np.ndarray, alpha: float) -> tuple[float, float]:
    n = len(diff)
    if n < 2:
        return math.nan, math.nan
    mean = float(diff.mean())
    half = t_ppf(1.0 - alpha / 2.0, n - 1) * float(diff.std(ddof=1)) / math.sqrt(n)
    return mean - half, mean + half


def _wilcoxon_interval(
    diff: np.ndarray, alpha: float, wilcoxon_pvalue: Callable[[np.ndarray], float]
) -> tuple[float, float]:
    walsh = (diff[:, None] + diff[None, :]) / 2.0 if len(diff) <= 2000 else diff
    centre = float(np.median(walsh))
    spread = float(np.ptp(diff)) or 1.0

    def accepted(shift: float) -> bool:
        return wilcoxon_pvalue(diff - shift) >= alpha

    if not accepted(centre):
        # Zero differences are dropped, so the test can reject at its own centre and accept the
        # shifts just beside it: start halfway to the nearest Walsh average on either side (the
        # p-value changes only there; the test rounds differences to 12 decimals).
        steps = np.unique(np.round(walsh - centre, 12))
        nearest = [*steps[steps > 0][:1], *steps[steps < 0][-1:]]
        beside = [centre + float(step) / 2.0 for step in nearest]
        start = next((shift for shift in beside if accepted(shift)), None)
        if start is None:
            return centre, centre
        centre = start
    ends = []
    for sign in (-1.0, 1.0):
        inside, outside = centre, centre + sign * 2.0 * spread
        while accepted(outside):  # a test that cannot reject at this level
            if abs(outside - centre) > 1e6 * spread:
                return -math.inf, math.inf
            outside = centre + 2.0 * (outside - centre)
        for _ in range(60):
            middle = (inside + outside) / 2.0
            if accepted(middle):
                inside = middle
            else:
                outside = middle
        ends.append(inside)
    return ends[0], ends[1]


def sign_interval_ends(
    sums: np.ndarray, signs: np.ndarray, diffs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each sign vector's interval of shifts at which it counts as at least as extreme.

    Parameters
    ----------
    sums:
        ``a = s · d`` for each sign vector (rows) and comparison (columns).
    signs:
        ``b = Σ s_i`` of each sign vector.
    diffs:
        The differences, shape ``(n, r)``.

    Returns
    -------
    (lows, highs)
        Arrays of the shape of ``sums``.
    """
    n = diffs.shape[0]
    mean = diffs.mean(axis=0)
    b = signs[:, None]
    c = sums - mean[None, :] * b
    direction = np.where(c >= 0, 1.0, -1.0)
    size = np.abs(c)
    below = n - direction * b
    above = n + direction * b
    # every sign the same (b = ±n): the flipped mean is ±the observed one, for every shift
    same = np.abs(b) > n - 0.5
    lows = np.where(same, -np.inf, mean - size / np.where(below > 0.5, below, 1.0))
    highs = np.where(same, np.inf, mean + size / np.where(above > 0.5, above, 1.0))
    return lows, highs


def randomization_inversions(
    diffs: np.ndarray, lows: list[np.ndarray], highs: list[np.ndarray], exact: bool
) -> list[Inversion]:
    """The randomization test of every column of ``diffs`` ready to invert, from the ends of
    every sign vector's interval (:func:`sign_interval_ends`, in chunks of vectors)."""
    low_all = np.sort(np.concatenate(lows), axis=0)
    high_all = -np.sort(-np.concatenate(highs), axis=0)
    offset = 0 if exact else 1
    return [
        Inversion(
            "p_randomization",
            diffs[:, j].copy(),
            np.ascontiguousarray(low_all[:, j]),
            np.ascontiguousarray(high_all[:, j]),
            offset,
        )
        for j in range(diffs.shape[1])
    ]


def agree_with_test(
    low: float, high: float, significant: bool, delta: float
) -> tuple[float, float]:
    """``(low, high)`` moved to 0 where floating point left the interval on the wrong side of
    0 for its test's decision (only at the boundary: a count of sign vectors that tie with the
    observed mean to the last bits)."""
    if math.isnan(low) or math.isnan(high):
        return low, high
    holds_zero = low <= 0.0 <= high
    if significant and holds_zero:
        if delta > 0:
            low = math.nextafter(0.0, math.inf)
        elif delta < 0:
            high = math.nextafter(0.0, -math.inf)
    elif not significant and not holds_zero:
        low, high = min(low, 0.0), max(high, 0.0)
    return low, high


__all__ = [
    "TESTS",
    "Inversion",
    "agree_with_test",
    "randomization_inversions",
    "sign_interval_ends",
]
