"""Several models at once: the randomized Tukey HSD test and the compact letter display.

**Randomized Tukey HSD** (Carterette, "Multiple testing in statistical analysis of systems-based
information retrieval experiments", ACM TOIS 30(1), 2012; Sakai, "Laboratory Experiments in
Information Retrieval", 2018). For scores ``X[q, s]`` of ``s`` models on the same ``n``
queries, the null hypothesis is that the models are exchangeable within each query:

1. ``D(s, t) = |mean X[·, s] − mean X[·, t]|`` for every pair of models;
2. each resample permutes every query's row across the models independently and records the
   range of the permuted model means, ``max_s mean X*[·, s] − min_s mean X*[·, s]``;
3. ``p(s, t) = (1 + #{range ≥ D(s, t)}) / (B + 1)`` for ``B`` resamples, or the exact share
   when all ``(s!)^n`` permutations are fewer than ``B`` (then every one is counted once).

One maximum over the whole family, so the family-wise error over all pairs is controlled at
once. With two models it is the paired randomization test. The simultaneous interval of a pair
is ``D ± c`` with ``c`` the ``1 − α`` quantile of the range distribution.

**Compact letter display** (Piepho, "An algorithm for a letter-based representation of
all-pairwise comparisons", J. Computational and Graphical Statistics 13(2), 2004,
insert-and-absorb): letters such that two models share a letter exactly when they are not
significantly different; ``a`` marks the group holding the best mean.
"""

from __future__ import annotations

import itertools
import math
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from metrics.review.statistics import DEFAULT_RESAMPLES, DEFAULT_SEED

#: Largest number of entries of one permuted block (bounds memory at about 100 MB).
_MAX_ENTRIES = 4_000_000


@dataclass(frozen=True)
class TukeyResult:
    """The randomized Tukey HSD of ``s`` models.

    Attributes
    ----------
    means:
        Mean of each model over the ``n`` queries, shape ``(s,)``.
    pvalues:
        ``p(s, t)`` for every pair, shape ``(s, s)`` (1 on the diagonal).
    ranges:
        The range of the permuted model means in each resample (every permutation when exact).
    exact:
        Whether every permutation was counted.
    """

    means: np.ndarray
    pvalues: np.ndarray
    ranges: np.ndarray
    exact: bool

    def half_width(self, alpha: float) -> float:
        """``c``: the ``1 − alpha`` quantile of the permuted ranges (the simultaneous interval of
        every pair is its difference ``± c``)."""
        if len(self.ranges) == 0:
            return math.nan
        return float(np.quantile(self.ranges, 1.0 - alpha))


def _ranges(values: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """Range of the model means of ``values`` (``n × s``) under the permutations ``orders``
    (``B × n × s``, each query's row reordered)."""
    n = values.shape[0]
    permuted = np.take_along_axis(values[None, :, :], orders, axis=2)
    means = permuted.sum(axis=1) / n
    out: np.ndarray = means.max(axis=1) - means.min(axis=1)
    return out


def tukey_hsd(
    values: np.ndarray, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> TukeyResult:
    """The randomized Tukey HSD of the models in the columns of ``values`` (``n`` queries ×
    ``s`` models, no missing value); see the module docstring.

    Examples
    --------
    Two queries and two models: four permutations, ranges 0.5, 0, 0, 0.5 (hand-computed), so
    the observed difference of 0.5 is reached in half of them:

    >>> r = tukey_hsd(np.array([[0.0, 0.5], [0.5, 1.0]]))
    >>> r.pvalues[0, 1], r.exact
    (np.float64(0.5), True)
    """
    values = np.asarray(values, dtype=np.float64)
    n, s = values.shape
    means = values.mean(axis=0) if n else np.full(s, np.nan)
    pvalues = np.ones((s, s))
    if n == 0 or s < 2:
        return TukeyResult(means, np.full((s, s), np.nan), np.empty(0), False)
    observed = np.abs(means[:, None] - means[None, :])
    threshold = observed - 1e-12 * np.maximum(1.0, observed)
    per_query = math.factorial(s)
    exact = n * math.log(per_query) <= math.log(max(resamples, 1))
    if exact:
        perms = np.array(list(itertools.permutations(range(s))))
        chunks = []
        combos = itertools.product(range(per_query), repeat=n)
        size = max(1, _MAX_ENTRIES // (n * s))
        while True:
            block = list(itertools.islice(combos, size))
            if not block:
                break
            chunks.append(_ranges(values, perms[np.array(block)]))
        ranges = np.concatenate(chunks)
        hits = (ranges[None, None, :] >= threshold[:, :, None]).sum(axis=2)
        pvalues = hits / len(ranges)
    else:
        rng = np.random.default_rng(seed)
        parts = []
        size = max(1, _MAX_ENTRIES // (n * s))
        for start in range(0, resamples, size):
            count = min(size, resamples - start)
            orders = np.argsort(rng.random((count, n, s)), axis=2)
            parts.append(_ranges(values, orders))
        ranges = np.concatenate(parts)
        sorted_ranges = np.sort(ranges)
        below = np.searchsorted(sorted_ranges, threshold.ravel(), side="left").reshape(s, s)
        pvalues = (len(ranges) - below + 1) / (len(ranges) + 1)
    np.fill_diagonal(pvalues, 1.0)
    return TukeyResult(means, np.minimum(pvalues, 1.0), ranges, exact)


def letter_display(
    models: Sequence[str], means: Mapping[str, float], different: set[frozenset[str]]
) -> dict[str, str]:
    """Letters of the compact letter display (insert-and-absorb, Piepho 2004).

    Parameters
    ----------
    models:
        The models.
    means:
        Each model's mean (the group of the best mean gets ``a``).
    different:
        The pairs found significantly different.

    Returns
    -------
    dict
        Model -> its letters (``"a"``, ``"ab"``, ...): two models share a letter exactly when
        they are not significantly different.

    Examples
    --------
    >>> letter_display(["x", "y", "z"], {"x": 0.5, "y": 0.4, "z": 0.1}, {frozenset("xz")})
    {'x': 'a', 'y': 'ab', 'z': 'b'}
    """
    columns: list[set[str]] = [set(models)]
    for pair in sorted(different, key=sorted):
        if len(pair) != 2:
            continue
        first, second = sorted(pair)
        grown: list[set[str]] = []
        for column in columns:
            if first in column and second in column:
                grown += [column - {first}, column - {second}]
            else:
                grown.append(column)
        # absorb: a column inside another says nothing more
        unique = [c for i, c in enumerate(grown) if c and c not in grown[:i]]
        columns = [c for c in unique if not any(c < other for other in unique)]

    def best(column: set[str]) -> tuple[float, str]:
        top = max(column, key=lambda m: (means.get(m, -math.inf), m))
        return (-means.get(top, -math.inf), top)

    columns.sort(key=best)
    names = _letters(len(columns))
    return {
        model: "".join(names[i] for i, column in enumerate(columns) if model in column)
        for model in models
    }


def _letters(count: int) -> list[str]:
    """``a`` … ``z``, then ``aa``, ``ab``, …"""
    out = list(string.ascii_lowercase[:count])
    for first, second in itertools.product(string.ascii_lowercase, repeat=2):
        if len(out) >= count:
            break
        out.append(first + second)
    return out


__all__ = ["TukeyResult", "letter_display", "tukey_hsd"]
