"""The few distribution functions the review needs, without importing scipy.

The paired t-test, the normal approximation of the Wilcoxon test and the power analysis read the
normal and Student t distributions; the exact Wilcoxon test reads the null distribution of the
signed-rank statistic. ``scipy.stats`` costs about a second of CPU to import, more than a whole
comparison of a few hundred queries, so these are computed here from :mod:`math`:

* normal: ``sf(z) = erfc(z / √2) / 2``; the quantile by Acklam's rational approximation, refined
  by one Halley step (relative error below 1e-15);
* Student t with ``ν`` degrees of freedom: ``P(|T| ≥ t) = I_x(ν/2, 1/2)`` with
  ``x = ν / (ν + t²)``, the regularized incomplete beta function evaluated by its continued
  fraction (modified Lentz; Numerical Recipes §6.4); the quantile by Newton's method on it;
* Wilcoxon signed-rank: the number of subsets of ``{1, …, n}`` with each rank sum, by dynamic
  programming (exact in integers up to n = 60).

The tests check every function against scipy to 1e-12.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

_SQRT2 = math.sqrt(2.0)


def norm_sf(z: float) -> float:
    """``P(Z ≥ z)`` for a standard normal ``Z``."""
    return 0.5 * math.erfc(z / _SQRT2)


def norm_ppf(q: float) -> float:
    """The standard normal quantile: ``z`` with ``P(Z ≤ z) = q`` (``±inf`` at 0 and 1)."""
    if not 0.0 < q < 1.0:
        if q == 0.0:
            return -math.inf
        if q == 1.0:
            return math.inf
        return math.nan
    # Acklam's rational approximation (relative error 1.15e-9) ...
    a = (-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.3577518672690,
         -30.66479806614716, 2.506628277459239)  # fmt: skip
    b = (-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972,
         -13.28068155288572)  # fmt: skip
    c = (-7.784894002430293e-03, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
         4.374664141464968, 2.938163982698783)  # fmt: skip
    d = (7.784695709041462e-03, 0.3224671290700398, 2.445134137142996, 3.754408661907416)
    low = 0.02425
    if q < low:
        r = math.sqrt(-2.0 * math.log(q))
        x = (((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) / (
            (((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1.0
        )
    elif q <= 1.0 - low:
        r = q - 0.5
        s = r * r
        x = (
            (((((a[0] * s + a[1]) * s + a[2]) * s + a[3]) * s + a[4]) * s + a[5])
            * r
            / (((((b[0] * s + b[1]) * s + b[2]) * s + b[3]) * s + b[4]) * s + 1.0)
        )
    else:
        r = math.sqrt(-2.0 * math.log(1.0 - q))
        x = -(((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) / (
            (((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1.0
        )
    # ... and one Halley step on the exact cdf.
    error = 0.5 * math.erfc(-x / _SQRT2) - q
    u = error * math.sqrt(2.0 * math.pi) * math.exp(x * x / 2.0)
    return x - u / (1.0 + x * u / 2.0)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def _stirling_tail(z: float) -> float:
    """``lnΓ(z) − ((z − ½) ln z − z + ½ ln 2π)`` for ``z ≥ 10`` (error below 1e-17)."""
    w = 1.0 / (z * z)
    return (1.0 / 12 - w * (1.0 / 360 - w * (1.0 / 1260 - w / 1680))) / z


def _log_beta(a: float, b: float) -> float:
    """``ln B(a, b) = lnΓ(a) + lnΓ(b) − lnΓ(a + b)``; for a large argument from Stirling's
    series of the difference, so that no precision is lost to cancellation (a t-test of
    100,000 queries needs ``lnΓ(50,000.5) − lnΓ(50,000)``)."""
    small, big = min(a, b), max(a, b)
    if big < 10.0:
        return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    # lnΓ(big + small) − lnΓ(big), term by term
    ratio = (
        (big - 0.5) * math.log1p(small / big)
        + small * math.log(big + small)
        - small
        + _stirling_tail(big + small)
        - _stirling_tail(big)
    )
    return math.lgamma(small) - ratio


def _betainc(a: float, b: float, x: float, y: float, log_x: float, log_y: float) -> float:
    """``I_x(a, b)`` given ``x``, ``y = 1 − x`` and their logarithms, each computed without
    cancellation by the caller."""
    log_front = a * log_x + b * log_y - _log_beta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, y) / b


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function ``I_x(a, b)`` for ``a, b > 0``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    return _betainc(a, b, x, 1.0 - x, math.log(x), math.log1p(-x))


def t_sf_two_sided(t: float, df: float) -> float:
    """``P(|T| ≥ |t|)`` for Student's t with ``df`` degrees of freedom (the two-sided p-value
    of ``scipy.stats.ttest_1samp``): ``I_x(df/2, 1/2)`` with ``x = df / (df + t²)``."""
    if math.isnan(t) or df <= 0:
        return math.nan
    if math.isinf(t):
        return 0.0
    if t == 0.0:
        return 1.0
    ratio = t * t / df  # x = 1 / (1 + ratio), 1 − x = ratio / (1 + ratio)
    log_x = -math.log1p(ratio)
    log_y = math.log(ratio) + log_x
    return _betainc(df / 2.0, 0.5, 1.0 / (1.0 + ratio), ratio / (1.0 + ratio), log_x, log_y)


def t_cdf(t: float, df: float) -> float:
    """``P(T ≤ t)`` for Student's t with ``df`` degrees of freedom."""
    tail = t_sf_two_sided(t, df) / 2.0
    return 1.0 - tail if t > 0 else tail


@lru_cache(maxsize=4096)
def t_ppf(q: float, df: float) -> float:
    """The quantile of Student's t: ``t`` with ``P(T ≤ t) = q`` (remembered: the power analysis
    of a review asks for the same few levels and degrees of freedom on many rows)."""
    if not 0.0 < q < 1.0:
        return norm_ppf(q)
    if q < 0.5:
        return -t_ppf(1.0 - q, df)
    if q == 0.5:
        return 0.0
    x = norm_ppf(q)
    # Cornish-Fisher start (Abramowitz & Stegun 26.7.5), then Newton on the cdf.
    g1 = (x**3 + x) / 4.0
    g2 = (5 * x**5 + 16 * x**3 + 3 * x) / 96.0
    t = x + g1 / df + g2 / df**2 if df > 2 else x * 1.5
    log_norm = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    for _ in range(100):
        pdf = math.exp(log_norm - (df + 1) / 2 * math.log1p(t * t / df))
        step = (t_cdf(t, df) - q) / pdf
        t -= step
        if abs(step) <= 1e-14 * max(1.0, abs(t)):
            break
    return t


@lru_cache(maxsize=64)
def wilcoxon_counts(n: int) -> np.ndarray:
    """``counts[s]``: how many of the ``2**n`` sign assignments of the ranks ``1..n`` give the
    positive rank sum ``s`` (``s = 0 … n(n+1)/2``), as floats (exact up to n = 60)."""
    counts = np.zeros(n * (n + 1) // 2 + 1, dtype=np.int64)
    counts[0] = 1
    top = 0
    for rank in range(1, n + 1):
        top += rank
        counts[rank : top + 1] = counts[rank : top + 1] + counts[: top + 1 - rank]
    out: np.ndarray = counts.astype(np.float64)
    out.flags.writeable = False
    return out


__all__ = [
    "betainc",
    "norm_ppf",
    "norm_sf",
    "t_cdf",
    "t_ppf",
    "t_sf_two_sided",
    "wilcoxon_counts",
]
