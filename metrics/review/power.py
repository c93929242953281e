"""Were there enough queries? Minimum detectable effect and queries needed, from the observed
per-query differences.

For one comparison of ``n`` queries whose differences have the sample standard deviation
``s_d``, tested two-sided at the level ``α'`` the row's correction family gives it (``α / m``
for ``m`` comparisons, Bonferroni's level, which Holm's and Benjamini–Hochberg's first steps
share and which bounds them from below), with power ``1 − β`` (80% by default):

* **minimum detectable effect** ``MDE(n) = (t_{1−α'/2, n−1} + t_{1−β, n−1}) · s_d / √n``: the
  smallest true difference the test finds with that power (a smaller true difference is more
  likely missed than found);
* **queries needed** for a difference ``Δ``: the smallest ``n`` with ``MDE(n) ≤ |Δ|``, solved by
  iteration from the normal approximation ``n ≈ ((z_{1−α'/2} + z_{1−β}) · s_d / Δ)²``.

This is the paired t approximation of the topic-set-size design (Sakai, "Topic set size
design", Information Retrieval Journal 19, 2016), which estimates the variance from existing
runs exactly so. The randomization test that decides by default has about the t-test's power
on such data (Smucker, Allan and Carterette, CIKM 2007); the tests check the formula against a
simulation of the randomization test. The power at the observed difference ("post-hoc power")
is not reported: it is a function of the p-value and tells nothing new.
"""

from __future__ import annotations

import math

from metrics.review.distributions import norm_ppf, t_ppf

#: Power of the minimum detectable effect and of the queries needed, by default.
DEFAULT_POWER = 0.8
#: Most queries the sample-size answer reports (beyond it: "more than").
MAX_QUERIES = 10_000_000


def _multiplier(alpha: float, power: float, df: float) -> float:
    return t_ppf(1.0 - alpha / 2.0, df) + t_ppf(power, df)


def minimum_detectable_effect(
    sd: float, n: int, alpha: float, power: float = DEFAULT_POWER
) -> float:
    """``(t_{1−α/2, n−1} + t_{power, n−1}) · sd / √n``: the smallest difference a two-sided
    paired test at level ``alpha`` detects with probability ``power`` among ``n`` queries whose
    differences spread by ``sd``. ``NaN`` with fewer than two queries; 0 when ``sd`` is 0.

    Examples
    --------
    >>> round(minimum_detectable_effect(0.2, 50, 0.05), 4)
    0.0809
    """
    if n < 2 or math.isnan(sd):
        return math.nan
    if sd == 0.0:
        return 0.0
    return _multiplier(alpha, power, n - 1) * sd / math.sqrt(n)


def queries_needed(sd: float, delta: float, alpha: float, power: float = DEFAULT_POWER) -> float:
    """The fewest queries for which a true difference ``delta`` is detected with probability
    ``power`` by a two-sided paired test at level ``alpha``, when the per-query differences
    spread by ``sd``: the smallest ``n ≥ 2`` with :func:`minimum_detectable_effect` ``≤
    |delta|``. ``NaN`` when ``delta`` is 0 or undefined or ``sd`` is undefined; ``inf`` beyond
    :data:`MAX_QUERIES`.

    Examples
    --------
    >>> queries_needed(0.2, 0.05, 0.05)
    128
    """
    if math.isnan(sd) or math.isnan(delta) or delta == 0.0:
        return math.nan
    if sd == 0.0:
        return 2
    size = abs(delta)
    z = norm_ppf(1.0 - alpha / 2.0) + norm_ppf(power)
    n = max(2, math.ceil((z * sd / size) ** 2))
    for _ in range(50):
        if n > MAX_QUERIES:
            return math.inf
        wanted = max(2, math.ceil((_multiplier(alpha, power, n - 1) * sd / size) ** 2))
        if wanted == n:
            break
        n = wanted
    # the answer is the smallest n that suffices: step down while the one below suffices too
    while n > 2 and minimum_detectable_effect(sd, n - 1, alpha, power) <= size:
        n -= 1
    while minimum_detectable_effect(sd, n, alpha, power) > size:
        n += 1
    return n


__all__ = ["DEFAULT_POWER", "MAX_QUERIES", "minimum_detectable_effect", "queries_needed"]
