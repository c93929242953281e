"""Paired comparison of two models on the same queries: how much better, and how sure.

For one measure, each query gives a pair (baseline value ``a``, candidate value ``b``) and a
difference ``d = b - a``. From the ``n`` differences:

* **delta** ``mean(d) = mean(b) - mean(a)``, and relative delta ``delta / mean(a)``;
* **bootstrap CI**: resample the *queries* with replacement ``R`` times, take ``mean(d*)`` each
  time; the 2.5th and 97.5th percentiles are the 95% interval (percentile method). All resamples
  are drawn as one matrix of counts (chunked to bound memory), so 10k queries × 10k resamples is
  one matrix product per chunk;
* **randomization test** (paired, sign-flip): under "no difference" each ``d_i`` is as likely to be
  ``-d_i``; the two-sided p-value is the share of sign assignments with ``|mean(±d)| ≥ |mean(d)|``
  — exact by enumeration when ``2**n`` is small, Monte Carlo ``(hits + 1) / (R + 1)`` otherwise;
* **paired t-test** (:func:`scipy.stats.ttest_rel`) and **Wilcoxon signed-rank**
  (:func:`scipy.stats.wilcoxon`, zero differences dropped);
* **wins / ties / losses**: queries where the candidate is higher / equal / lower;
* **effect size**: paired Cohen's d, ``mean(d) / sd(d)``.

Across many tests (measures × segments × candidates) p-values are corrected with
:func:`adjust_pvalues` (Holm by default, Benjamini–Hochberg as an option).

Everything is deterministic given ``seed``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats as _scipy_stats

from metrics.errors import SettingsError

MissingPolicy = Literal["intersection", "zero"]
Correction = Literal["holm", "bh", "none"]

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
}

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
    n = len(diff)
    if n == 0:
        return math.nan
    observed = abs(diff.mean())
    threshold = observed - 1e-12 * max(1.0, observed)
    if 2 ** min(n, 62) <= resamples:
        means = np.abs(_all_sign_vectors(n) @ diff) / n
        return float(np.mean(means >= threshold))
    rng = np.random.default_rng(seed)
    total, hits = float(diff.sum()), 0
    for size in _chunks(resamples, n):
        bits = np.unpackbits(
            rng.integers(0, 256, size=(size, (n + 7) // 8), dtype=np.uint8), axis=1, count=n
        )
        means = np.abs(2 * (bits.astype(np.float64) @ diff) - total) / n
        hits += int(np.count_nonzero(means >= threshold))
    return (hits + 1) / (resamples + 1)


def ttest_pvalue(diff: np.ndarray) -> float:
    """Two-sided p-value of the paired t-test (``scipy.stats.ttest_rel``).

    When all differences are equal the statistic is undefined: ``1.0`` if they are all zero,
    ``0.0`` otherwise. ``NaN`` with fewer than two pairs.
    """
    diff = np.asarray(diff, dtype=np.float64)
    if len(diff) < 2:
        return math.nan
    if np.ptp(diff) <= TIE_TOLERANCE:
        return 1.0 if abs(diff[0]) <= TIE_TOLERANCE else 0.0
    return float(_scipy_stats.ttest_1samp(diff, 0.0).pvalue)


def wilcoxon_pvalue(diff: np.ndarray) -> float:
    """Two-sided p-value of the Wilcoxon signed-rank test (zero differences dropped).

    Differences are rounded to 12 decimals first: differences within :data:`TIE_TOLERANCE` of
    zero are ties (as in :func:`win_tie_loss`), and differences equal but for the last bits of
    floating point share their rank, so that the p-value does not depend on the order in which
    the per-query values were summed (the local engine and Spark sum in different groups).
    ``1.0`` when every difference is zero; ``NaN`` without pairs.
    """
    diff = np.asarray(diff, dtype=np.float64)
    if len(diff) == 0:
        return math.nan
    if np.all(np.abs(diff) <= TIE_TOLERANCE):
        return 1.0
    diff = np.where(np.abs(diff) <= TIE_TOLERANCE, 0.0, np.round(diff, 12))
    return float(_scipy_stats.wilcoxon(diff, zero_method="wilcox").pvalue)


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
    """Everything known about one candidate-vs-baseline difference on one measure."""

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
    only_in_baseline: tuple[str, ...] = field(default=(), repr=False)
    only_in_candidate: tuple[str, ...] = field(default=(), repr=False)
    undefined: tuple[str, ...] = field(default=(), repr=False)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def compare_pairs(
    pairs: Pairs,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PairedResult:
    """All statistics of :mod:`metrics.review.statistics` for one set of pairs."""
    d = pairs.diff
    n = pairs.n
    mean_a = float(pairs.a.mean()) if n else math.nan
    mean_b = float(pairs.b.mean()) if n else math.nan
    delta = mean_b - mean_a
    low, high = bootstrap_ci(d, resamples, seed, confidence) if n else (math.nan, math.nan)
    wins, ties, losses = win_tie_loss(d)
    return PairedResult(
        n=n,
        mean_a=mean_a,
        mean_b=mean_b,
        delta=delta,
        relative_delta=delta / mean_a if n and mean_a != 0 else math.nan,
        ci_low=float(low),
        ci_high=float(high),
        p_randomization=randomization_pvalue(d, resamples, seed),
        p_ttest=ttest_pvalue(d),
        p_wilcoxon=wilcoxon_pvalue(d),
        wins=wins,
        ties=ties,
        losses=losses,
        effect_size=cohens_d(d),
        only_in_baseline=pairs.only_in_baseline,
        only_in_candidate=pairs.only_in_candidate,
        undefined=pairs.undefined,
    )


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
    if method not in CORRECTIONS:
        raise SettingsError(f"correction must be one of {', '.join(CORRECTIONS)}; got {method!r}.")
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
    "PairedResult",
    "Pairs",
    "adjust_pvalues",
    "bootstrap_ci",
    "bootstrap_means",
    "check_resamples",
    "cohens_d",
    "compare_pairs",
    "compare_values",
    "pair_values",
    "randomization_pvalue",
    "ttest_pvalue",
    "wilcoxon_pvalue",
    "win_tie_loss",
]
