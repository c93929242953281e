"""Paired comparison of two models on the same queries: how much better, and how sure.

For one measure, each query gives a pair (baseline value ``a``, candidate value ``b``) and a
difference ``d = b - a``. From the ``n`` differences:

* **delta** ``mean(d) = mean(b) - mean(a)``, and relative delta ``delta / mean(a)``;
* **confidence interval**: the chosen test inverted (:mod:`metrics.review.intervals`): the
  shifts ``δ`` for which the test of ``d − δ`` does not reject, so an interval excludes 0
  exactly when its test rejects. Bootstrap means (:func:`bootstrap_means`) resample the
  *queries* with replacement, for the percentile interval of :func:`bootstrap_ci`;
* **randomization test** (paired, sign-flip): under "no difference" each ``d_i`` is as likely to be
  ``-d_i``; the two-sided p-value is the share of sign assignments with ``|mean(±d)| ≥ |mean(d)|``
  — exact by enumeration when ``2**n`` is small, Monte Carlo ``(hits + 1) / (R + 1)`` otherwise;
* **paired t-test** (the two-sided p-value of :func:`scipy.stats.ttest_rel`) and **Wilcoxon
  signed-rank** (that of :func:`scipy.stats.wilcoxon` with its default ``method="auto"``, zero
  differences dropped), computed from :mod:`metrics.review.distributions` without importing
  scipy;
* **wins / ties / losses**: queries where the candidate is higher / equal / lower;
* **effect size**: paired Cohen's d, ``mean(d) / sd(d)``.

Across many tests (measures × segments × candidates) p-values are corrected with
:func:`adjust_pvalues` (Holm by default, Benjamini–Hochberg as an option).

Everything is deterministic given ``seed``. :func:`compare_many` computes many comparisons at
once: every comparison of ``n`` pairs reads the same sign-flip matrix (drawn once per ``seed``
and ``n`` in chunks and applied to all of them as one matrix product), so a review of dozens of
rows costs about what one row costs. The draws are those :func:`randomization_pvalue` makes for
one comparison, so the numbers do not depend on how many rows are computed together.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from metrics.errors import SettingsError
from metrics.review.distributions import norm_sf, t_sf_two_sided, wilcoxon_counts
from metrics.review.intervals import (
    Inversion,
    agree_with_test,
    randomization_inversions,
    sign_interval_ends,
)

MissingPolicy = Literal["intersection", "zero"]
Correction = Literal["holm", "bh", "none", "tukey"]

#: Queries scored by only one of the two models — every value explained (for menus and help).
MISSING_POLICIES: dict[MissingPolicy, str] = {
    "intersection": "compare only the queries both models were evaluated on (the others are "
    "listed)",
    "zero": "a query missing from one model counts as 0 for that model",
}

#: Multiple-testing corrections — every value explained.
CORRECTIONS: dict[Correction, str] = {
    "holm": "Holm–Bonferroni: controls the chance of any false positive (family-wise error)",
    "bh": "Benjamini–Hochberg: controls the expected share of false positives (false discovery "
    "rate); less strict",
    "none": "no correction: each p-value on its own",
    "tukey": "randomized Tukey HSD: all pairs of models of one measure tested at once (one "
    "maximum over the family), for three or more models",
}
#: Corrections that adjust a list of p-values (:func:`adjust_pvalues`); ``tukey`` is a test of
#: its own (:mod:`metrics.review.tukey`).
P_CORRECTIONS = ("holm", "bh", "none")

#: Resamples of the bootstrap and the randomization test, the same in the app and the CLI.
DEFAULT_RESAMPLES = 5_000
#: Most resamples a comparison takes (the app offers up to 10,000). Time grows with them, and the
#: exact randomization test enumerates all 2**n sign vectors whenever 2**n is at most the number
#: of resamples, so an unbounded number would exhaust the memory.
MAX_RESAMPLES = 100_000
DEFAULT_SEED = 0
DEFAULT_CONFIDENCE = 0.95
#: Differences smaller than this count as ties.
TIE_TOLERANCE = 1e-12
#: Largest number of entries of one resampling matrix (bounds memory at about 160 MB).
_MAX_MATRIX_ENTRIES = 4_000_000


def check_resamples(resamples: int, name: str = "resamples") -> int:
    """``resamples`` when it is a number of resamples a comparison takes (1 to
    :data:`MAX_RESAMPLES`); ``name`` is how the message calls it (``--resamples``).

    Raises
    ------
    SettingsError
        Outside that range.

    Examples
    --------
    >>> check_resamples(2_000)
    2000
    """
    if not 1 <= resamples <= MAX_RESAMPLES:
        raise SettingsError(
            f"{name} must be between 1 and {MAX_RESAMPLES:,}, got {resamples:,}. Fix: "
            f"{DEFAULT_RESAMPLES:,} (the default, as in the app) gives p-values down to "
            f"{1 / (DEFAULT_RESAMPLES + 1):.1g}."
        )
    return resamples


# --------------------------------------------------------------------------- pairing


@dataclass(frozen=True)
class Pairs:
    """Baseline and candidate values aligned on the same queries.

    Attributes
    ----------
    queries:
        Query ids of the pairs, in order.
    a, b:
        Baseline and candidate values (``d = b - a``).
    only_in_baseline, only_in_candidate:
        Queries evaluated for one model only (dropped under ``intersection``, scored 0 for the
        other model under ``zero``).
    undefined:
        Queries dropped because a value is undefined (``NaN``, e.g. a left-out query).
    policy:
        The missing-query policy used.
    """

    queries: np.ndarray
    a: np.ndarray
    b: np.ndarray
    only_in_baseline: tuple[str, ...] = ()
    only_in_candidate: tuple[str, ...] = ()
    undefined: tuple[str, ...] = ()
    policy: str = "intersection"

    @property
    def n(self) -> int:
        return len(self.queries)

    @property
    def diff(self) -> np.ndarray:
        diff: np.ndarray = self.b - self.a
        return diff


def _as_series(values: pd.Series | dict[str, float]) -> pd.Series:
    series = values if isinstance(values, pd.Series) else pd.Series(values)
    series = pd.to_numeric(series, errors="coerce").astype(np.float64)
    series.index = series.index.astype(str)
    return series[~series.index.duplicated(keep="first")]


def pair_values(
    baseline: pd.Series | dict[str, float],
    candidate: pd.Series | dict[str, float],
    policy: MissingPolicy = "intersection",
) -> Pairs:
    """Align two models' per-query values on query id.

    Parameters
    ----------
    baseline, candidate:
        Per-query values indexed by query id.
    policy:
        ``"intersection"`` keeps queries both models have; ``"zero"`` scores a query missing
        from one model as 0 for it. Queries with an undefined value (``NaN``) are dropped in
        both cases and listed.

    Returns
    -------
    Pairs
    """
    if policy not in MISSING_POLICIES:
        raise SettingsError(
            f"missing-query policy must be one of {', '.join(MISSING_POLICIES)}; got {policy!r}."
        )
    a, b = _as_series(baseline), _as_series(candidate)
    only_a = a.index.difference(b.index)
    only_b = b.index.difference(a.index)
    if policy == "intersection":
        index = a.index.intersection(b.index, sort=False)
        a, b = a.reindex(index), b.reindex(index)
    else:
        index = a.index.append(only_b)
        a, b = a.reindex(index, fill_value=0.0), b.reindex(index, fill_value=0.0)
    defined = a.notna().to_numpy() & b.notna().to_numpy()
    return Pairs(
        queries=index[defined].to_numpy(dtype=object),
        a=a.to_numpy()[defined],
        b=b.to_numpy()[defined],
        only_in_baseline=tuple(map(str, only_a)),
        only_in_candidate=tuple(map(str, only_b)),
        undefined=tuple(map(str, index[~defined])),
        policy=policy,
    )


# --------------------------------------------------------------------------- resampling


def _chunks(total: int, width: int) -> list[int]:
    size = max(1, _MAX_MATRIX_ENTRIES // max(width, 1))
    return [min(size, total - start) for start in range(0, total, size)]


def bootstrap_means(
    diff: np.ndarray, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> np.ndarray:
    """Means of ``resamples`` bootstrap resamples of the rows of ``diff``.

    Parameters
    ----------
    diff:
        Per-query differences, shape ``(n,)`` or ``(n, k)`` (e.g. one column per cutoff; the
        same resampled queries are used for every column).
    resamples:
        Number of bootstrap resamples ``R``.
    seed:
        Seed of the random generator.

    Returns
    -------
    ndarray
        Shape ``(R,)`` or ``(R, k)``.

    Notes
    -----
    Each chunk draws an ``(r, n)`` matrix of row indices. For 1-D input the means are taken over
    the gathered values; for 2-D input the indices become counts per row (one ``bincount``) and
    the means are ``counts @ diff / n``, one matrix product for every column at once.
    """
    diff = np.asarray(diff, dtype=np.float64)
    n = diff.shape[0]
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, *diff.shape[1:]))
    if n == 0:
        out.fill(np.nan)
        return out
    start = 0
    index_type = np.int32 if n < 2**31 else np.int64
    for size in _chunks(resamples, n):
        rows = rng.integers(0, n, size=(size, n), dtype=index_type)
        if diff.ndim == 1:
            out[start : start + size] = diff[rows].mean(axis=1)
        else:
            flat = rows.astype(np.int64) + (np.arange(size, dtype=np.int64) * n)[:, None]
            counts = np.bincount(flat.ravel(), minlength=size * n).reshape(size, n)
            out[start : start + size] = counts.astype(np.float64) @ diff / n
        start += size
    return out


def bootstrap_ci(
    diff: np.ndarray,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of the mean of ``diff`` (per column when 2-D).

    Returns
    -------
    (low, high)
        Floats (as 0-d arrays) for 1-D input, arrays of shape ``(k,)`` for ``(n, k)`` input;
        ``NaN`` when there are no rows.
    """
    if not 0 < confidence < 1:
        raise SettingsError(f"confidence must be between 0 and 1; got {confidence!r}.")
    means = bootstrap_means(diff, resamples, seed)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail], axis=0)
    return low, high


def _all_sign_vectors(n: int) -> np.ndarray:
    codes = np.arange(2**n, dtype=np.uint32)[:, None]
    bits = (codes >> np.arange(n, dtype=np.uint32)) & 1
    return bits.astype(np.float64) * 2 - 1


def _sign_bits(n: int, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """The sign vectors of the Monte Carlo randomization test as 0/1 rows (1 = ``+``), in
    chunks: the draws every column of every review reads for ``n`` pairs and ``seed``."""
    rng = np.random.default_rng(seed)
    for size in _chunks(resamples, n):
        yield np.unpackbits(
            rng.integers(0, 256, size=(size, (n + 7) // 8), dtype=np.uint8), axis=1, count=n
        ).astype(np.float64)


def _is_exact(n: int, resamples: int) -> bool:
    return bool(2 ** min(n, 62) <= resamples)


def randomization_pvalues(
    diffs: np.ndarray, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> np.ndarray:
    """Two-sided p-values of the paired randomization (sign-flip) test of ``mean = 0`` for each
    column of ``diffs`` (shape ``(n, r)``: ``r`` comparisons of ``n`` pairs each).

    Exact (all ``2**n`` sign vectors) when ``2**n <= resamples``; otherwise Monte Carlo with the
    ``(hits + 1) / (resamples + 1)`` estimate, which is never 0. Every column reads the same
    sign vectors (one matrix drawn from ``seed``, in chunks), as :func:`randomization_pvalue`
    draws them for one column.
    """
    pvalues, _ = randomization_test(diffs, resamples, seed, invert=False)
    return pvalues


def randomization_test(
    diffs: np.ndarray,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    invert: bool = True,
) -> tuple[np.ndarray, list[Inversion]]:
    """:func:`randomization_pvalues` and, with ``invert``, each column's test ready to be
    inverted into an interval (:class:`~metrics.review.intervals.Inversion`), from one pass over
    the same sign vectors."""
    diffs = np.asarray(diffs, dtype=np.float64)
    n, r = diffs.shape
    if n == 0:
        return np.full(r, np.nan), [Inversion("p_randomization", np.empty(0))] * r
    observed = np.abs(diffs.mean(axis=0))
    threshold = observed - 1e-12 * np.maximum(1.0, observed)
    exact = _is_exact(n, resamples)
    lows: list[np.ndarray] = []
    highs: list[np.ndarray] = []

    def keep_ends(sums: np.ndarray, signs: np.ndarray) -> None:
        if invert:
            low, high = sign_interval_ends(sums, signs, diffs)
            lows.append(low)
            highs.append(high)

    if exact:
        vectors = _all_sign_vectors(n)
        sums = vectors @ diffs
        out: np.ndarray = np.mean(np.abs(sums) / n >= threshold, axis=0)
        keep_ends(sums, vectors.sum(axis=1))
    else:
        total = diffs.sum(axis=0)
        hits = np.zeros(r, dtype=np.int64)
        for bits in _sign_bits(n, resamples, seed):
            sums = 2 * (bits @ diffs) - total
            hits += np.count_nonzero(np.abs(sums) / n >= threshold, axis=0)
            keep_ends(sums, 2.0 * bits.sum(axis=1) - n)
        out = (hits + 1) / (resamples + 1)
    if not invert:
        return out, []
    return out, randomization_inversions(diffs, lows, highs, exact)


def randomization_pvalue(
    diff: np.ndarray, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> float:
    """Two-sided p-value of the paired randomization (sign-flip) test of ``mean(diff) = 0``.

    Exact (all ``2**n`` sign vectors) when ``2**n <= resamples``; otherwise Monte Carlo with the
    ``(hits + 1) / (resamples + 1)`` estimate, which is never 0.

    Returns
    -------
    float
        ``NaN`` without pairs.
    """
    diff = np.asarray(diff, dtype=np.float64)
    return float(randomization_pvalues(diff[:, None], resamples, seed)[0])


def ttest_pvalue(diff: np.ndarray) -> float:
    """Two-sided p-value of the paired t-test (that of ``scipy.stats.ttest_rel``):
    ``t = mean(d) / (sd(d) / √n)`` against Student's t with ``n − 1`` degrees of freedom.

    When all differences are equal the statistic is undefined: ``1.0`` if they are all zero,
    ``0.0`` otherwise. ``NaN`` with fewer than two pairs.
    """
    diff = np.asarray(diff, dtype=np.float64)
    n = len(diff)
    if n < 2:
        return math.nan
    if np.ptp(diff) <= TIE_TOLERANCE:
        return 1.0 if abs(diff[0]) <= TIE_TOLERANCE else 0.0
    mean = float(diff.mean())
    sd = float(diff.std(ddof=1))
    if sd == 0.0:
        return 1.0 if mean == 0.0 else 0.0
    return t_sf_two_sided(mean / (sd / math.sqrt(n)), n - 1)


#: Largest number of pairs for which the Wilcoxon test is exact (as scipy's ``method="auto"``):
#: the exact null distribution without ties or zeros; with them, every sign assignment up to
#: :data:`WILCOXON_ENUMERATED` pairs; the normal approximation otherwise.
WILCOXON_EXACT = 50
WILCOXON_ENUMERATED = 13


def _average_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks of ``values`` (1 = smallest, ties share their average rank) and the sizes of the
    groups of tied values."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    upper = np.cumsum(counts)
    average = upper - (counts - 1) / 2.0
    return average[inverse], counts


def wilcoxon_method(diff: np.ndarray) -> str:
    """Which form of the Wilcoxon test :func:`wilcoxon_pvalue` uses for ``diff``: ``exact``
    (null distribution of the rank sum, no ties or zeros, at most 50 pairs), ``enumerated``
    (every sign assignment, with ties or zeros, at most 13 pairs) or ``normal`` (normal
    approximation with the tie correction, no continuity correction), as scipy's
    ``method="auto"`` decides."""
    d = _wilcoxon_input(np.asarray(diff, dtype=np.float64))
    nonzero = d[d != 0]
    if len(d) > WILCOXON_EXACT:
        return "normal"
    ties = len(np.unique(np.abs(nonzero))) < len(nonzero)
    if not ties and len(nonzero) == len(d):
        return "exact"
    return "enumerated" if len(d) <= WILCOXON_ENUMERATED else "normal"


def _wilcoxon_input(diff: np.ndarray) -> np.ndarray:
    return np.where(np.abs(diff) <= TIE_TOLERANCE, 0.0, np.round(diff, 12))


def wilcoxon_pvalue(diff: np.ndarray) -> float:
    """Two-sided p-value of the Wilcoxon signed-rank test (zero differences dropped), equal to
    ``scipy.stats.wilcoxon(d, zero_method="wilcox")`` (its ``method="auto"``).

    With ``W⁺`` the sum of the ranks of ``|d|`` (average ranks for ties) over positive
    differences and ``m`` nonzero differences of ``N``:

    * ``N ≤ 50`` without ties or zeros: exact, ``p = 2 min(P(W ≥ ⌊W⁺⌋), P(W ≤ ⌈W⁺⌉))`` under
      the null distribution of the rank sum (:func:`~metrics.review.distributions.wilcoxon_counts`);
    * ``N ≤ 13`` with ties or zeros: every sign assignment of the ``m`` ranks counted, the same
      ``2 min(·, ·)``;
    * otherwise the normal approximation ``z = (W⁺ − m(m+1)/4) / σ``,
      ``σ² = (m(m+1)(2m+1) − Σ(t³ − t)/2) / 24`` over the groups of ``t`` tied values, without
      continuity correction; ``p = 2 P(Z ≥ |z|)``.

    Differences are rounded to 12 decimals first: differences within :data:`TIE_TOLERANCE` of
    zero are ties (as in :func:`win_tie_loss`), and differences equal but for the last bits of
    floating point share their rank, so that the p-value does not depend on the order in which
    the per-query values were summed (the local engine and Spark sum in different groups).
    ``1.0`` when every difference is zero; ``NaN`` without pairs.
    """
    diff = np.asarray(diff, dtype=np.float64)
    size = len(diff)
    if size == 0:
        return math.nan
    if np.all(np.abs(diff) <= TIE_TOLERANCE):
        return 1.0
    d = _wilcoxon_input(diff)
    nonzero = d[d != 0]
    m = len(nonzero)
    ranks, ties = _average_ranks(np.abs(nonzero))
    positive = nonzero > 0
    w_plus = float(ranks[positive].sum())
    tied = bool((ties > 1).any())
    if size <= WILCOXON_EXACT and not tied and m == size:
        counts = wilcoxon_counts(m)
        total = 2.0**m
        low = math.ceil(w_plus - 1e-9)
        high = math.floor(w_plus + 1e-9)
        p = 2.0 * min(float(counts[high:].sum()), float(counts[: low + 1].sum())) / total
        return min(p, 1.0)
    if size <= WILCOXON_ENUMERATED:
        # rank sums in half ranks are whole numbers: count every sign assignment exactly
        doubled = np.rint(2.0 * ranks).astype(np.int64)
        sums = np.zeros(int(doubled.sum()) + 1, dtype=np.int64)
        sums[0] = 1
        for value in doubled:
            sums[value:] = sums[value:] + sums[: len(sums) - value]
        observed = round(2.0 * w_plus)
        total = float(sums.sum())
        p = 2.0 * min(float(sums[: observed + 1].sum()), float(sums[observed:].sum())) / total
        return min(p, 1.0)
    mean = m * (m + 1) / 4.0
    variance = (m * (m + 1) * (2 * m + 1) - float((ties**3 - ties).sum()) / 2.0) / 24.0
    z = (w_plus - mean) / math.sqrt(variance)
    return min(2.0 * norm_sf(abs(z)), 1.0)


def win_tie_loss(diff: np.ndarray) -> tuple[int, int, int]:
    """Numbers of queries where the candidate is higher, equal (within 1e-12), lower."""
    diff = np.asarray(diff, dtype=np.float64)
    wins = int(np.count_nonzero(diff > TIE_TOLERANCE))
    losses = int(np.count_nonzero(diff < -TIE_TOLERANCE))
    return wins, len(diff) - wins - losses, losses


def cohens_d(diff: np.ndarray) -> float:
    """Paired Cohen's d: ``mean(d) / sd(d)`` (sample sd); 0 when all differences are 0."""
    diff = np.asarray(diff, dtype=np.float64)
    if len(diff) < 2:
        return math.nan
    sd = diff.std(ddof=1)
    if sd <= TIE_TOLERANCE:
        return 0.0 if abs(diff.mean()) <= TIE_TOLERANCE else math.copysign(math.inf, diff.mean())
    return float(diff.mean() / sd)


# --------------------------------------------------------------------------- one comparison


@dataclass(frozen=True)
class PairedResult:
    """Everything known about one candidate-vs-baseline difference on one measure.

    ``sd`` is the sample standard deviation of the per-query differences (``ddof = 1``), the
    spread the power analysis reads; ``effect_size`` is ``delta / sd`` (paired Cohen's d).
    """

    n: int
    mean_a: float
    mean_b: float
    delta: float
    relative_delta: float
    ci_low: float
    ci_high: float
    p_randomization: float
    p_ttest: float
    p_wilcoxon: float
    wins: int
    ties: int
    losses: int
    effect_size: float
    sd: float = math.nan
    only_in_baseline: tuple[str, ...] = field(default=(), repr=False)
    only_in_candidate: tuple[str, ...] = field(default=(), repr=False)
    undefined: tuple[str, ...] = field(default=(), repr=False)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def compare_many(
    pairs: Sequence[Pairs],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    test: str = "p_randomization",
) -> tuple[list[PairedResult], list[Inversion]]:
    """All statistics of :mod:`metrics.review.statistics` for many sets of pairs at once.

    The sets with the same number of pairs ``n`` share one sign-flip matrix (drawn from
    ``seed`` as for a single comparison), applied to all their differences in one matrix product
    per chunk; the t-test and the Wilcoxon test need no resampling. The interval of each set is
    ``test`` inverted (:mod:`metrics.review.intervals`) at ``confidence``, so it excludes 0
    exactly when that test's p-value is below ``1 − confidence``.

    Returns
    -------
    (results, inversions)
        One :class:`PairedResult` per set, in order, and each set's test ready to be inverted at
        another level (the interval of a family's corrected level).
    """
    if not 0 < confidence < 1:
        raise SettingsError(f"confidence must be between 0 and 1; got {confidence!r}.")
    diffs = [p.diff for p in pairs]
    inversions: list[Inversion] = [Inversion(test, d, pvalue=wilcoxon_pvalue) for d in diffs]
    p_random = np.full(len(pairs), np.nan)
    by_size: dict[int, list[int]] = {}
    for i, d in enumerate(diffs):
        by_size.setdefault(len(d), []).append(i)
    for n, members in by_size.items():
        if n == 0:
            continue
        stacked = np.column_stack([diffs[i] for i in members])
        invert = test == "p_randomization"
        p_random[members], tests = randomization_test(stacked, resamples, seed, invert=invert)
        for i, inversion in zip(members, tests):
            inversions[i] = inversion
    level = 1.0 - confidence
    results = []
    for i, pair in enumerate(pairs):
        d, n = diffs[i], pair.n
        mean_a = float(pair.a.mean()) if n else math.nan
        mean_b = float(pair.b.mean()) if n else math.nan
        delta = mean_b - mean_a
        p = {
            "p_randomization": float(p_random[i]),
            "p_ttest": ttest_pvalue(d),
            "p_wilcoxon": wilcoxon_pvalue(d),
        }
        low, high = inversions[i].interval(level)
        low, high = agree_with_test(low, high, p[test] < level, delta)
        wins, ties, losses = win_tie_loss(d)
        results.append(
            PairedResult(
                n=n,
                mean_a=mean_a,
                mean_b=mean_b,
                delta=delta,
                relative_delta=delta / mean_a if n and mean_a != 0 else math.nan,
                ci_low=low,
                ci_high=high,
                **p,
                wins=wins,
                ties=ties,
                losses=losses,
                effect_size=cohens_d(d),
                sd=float(d.std(ddof=1)) if n >= 2 else math.nan,
                only_in_baseline=pair.only_in_baseline,
                only_in_candidate=pair.only_in_candidate,
                undefined=pair.undefined,
            )
        )
    return results, inversions


def test_intervals(
    diffs: np.ndarray,
    test: str = "p_randomization",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> tuple[np.ndarray, np.ndarray]:
    """The interval of each column of ``diffs`` (shape ``(n, k)``) at ``confidence``: ``test``
    inverted, the interval :func:`compare_many` gives one comparison of that column (same draws
    for every column)."""
    diffs = np.asarray(diffs, dtype=np.float64)
    columns = [
        Pairs(np.arange(len(diffs)).astype(object), np.zeros(len(diffs)), diffs[:, j])
        for j in range(diffs.shape[1])
    ]
    results, _ = compare_many(
        columns, resamples=resamples, seed=seed, confidence=confidence, test=test
    )
    return np.array([r.ci_low for r in results]), np.array([r.ci_high for r in results])


def compare_pairs(
    pairs: Pairs,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PairedResult:
    """All statistics of :mod:`metrics.review.statistics` for one set of pairs."""
    results, _ = compare_many([pairs], resamples=resamples, seed=seed, confidence=confidence)
    return results[0]


def compare_values(
    baseline: pd.Series | dict[str, float],
    candidate: pd.Series | dict[str, float],
    *,
    policy: MissingPolicy = "intersection",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PairedResult:
    """Compare per-query values (indexed by query id) of a baseline and a candidate.

    Examples
    --------
    >>> r = compare_values({"q1": 0.2, "q2": 0.5, "q3": 0.1}, {"q1": 0.4, "q2": 0.5, "q3": 0.3})
    >>> round(r.delta, 3), (r.wins, r.ties, r.losses), r.p_randomization
    (0.133, (2, 1, 0), 0.5)
    """
    return compare_pairs(
        pair_values(baseline, candidate, policy),
        resamples=resamples,
        seed=seed,
        confidence=confidence,
    )


# --------------------------------------------------------------------------- many tests


def adjust_pvalues(pvalues: np.ndarray | list[float], method: Correction = "holm") -> np.ndarray:
    """Correct a family of p-values for multiple testing.

    Parameters
    ----------
    pvalues:
        Raw p-values; ``NaN`` entries are ignored (and stay ``NaN``), ``m`` counts the others.
    method:
        ``"holm"``: with ``p_(1) ≤ … ≤ p_(m)``, ``p̃_(i) = max_{j ≤ i} min(1, (m - j + 1) p_(j))``.
        ``"bh"``: ``p̃_(i) = min_{j ≥ i} min(1, m p_(j) / j)``. ``"none"``: unchanged.

    Returns
    -------
    ndarray
        Adjusted p-values in the input order.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(4).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bh").round(4).tolist()
    [0.03, 0.04, 0.04]
    """
    if method not in P_CORRECTIONS:
        raise SettingsError(
            f"correction must be one of {', '.join(P_CORRECTIONS)}; got {method!r}"
            + (
                " (the Tukey HSD is a test of its own: metrics.review.tukey)."
                if method == "tukey"
                else "."
            )
        )
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    m = len(valid)
    if m == 0:
        return out
    if method == "none":
        out[valid] = p[valid]
        return out
    order = valid[np.argsort(p[valid], kind="stable")]
    ranked = p[order]
    i = np.arange(1, m + 1)
    if method == "holm":
        adjusted = np.maximum.accumulate(np.minimum(1.0, (m - i + 1) * ranked))
    else:
        adjusted = np.minimum.accumulate(np.minimum(1.0, m * ranked / i)[::-1])[::-1]
    out[order] = adjusted
    return out


__all__ = [
    "CORRECTIONS",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "MAX_RESAMPLES",
    "MISSING_POLICIES",
    "P_CORRECTIONS",
    "PairedResult",
    "Pairs",
    "adjust_pvalues",
    "bootstrap_ci",
    "bootstrap_means",
    "check_resamples",
    "cohens_d",
    "compare_many",
    "compare_pairs",
    "compare_values",
    "pair_values",
    "randomization_pvalue",
    "randomization_pvalues",
    "ttest_pvalue",
    "wilcoxon_method",
    "wilcoxon_pvalue",
    "win_tie_loss",
]
