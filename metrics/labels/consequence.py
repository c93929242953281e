"""Does the label source change the conclusions? Every run under each source, compared.

Label agreement (κ) can be low while the orderings of the systems stay stable, and the other way
round, so the two are shown together. For runs and several label sources:

* every measure of every run under each source (:func:`metrics.evaluate` and
  :func:`metrics.summarize`, the same numbers as an evaluation with that source alone);
* the system orderings by each measure's mean under each source, compared pair by pair with
  Kendall's τ_b (:func:`kendall_tau_b`) and the AP correlation τ_AP (:func:`tau_ap`), which
  weighs a swap near the top more than one near the bottom, and the swapped pairs named (a τ
  says how much, the pairs say which: Voorhees's "τ ≥ 0.9 is the same ordering" depends on how
  far apart the systems are);
* Judged@K per run and source: the holes each source leaves in each run's top K;
* the review's verdict (:func:`metrics.review.verdict.review_table`, the numbers of Compare and
  ``python -m metrics compare``) of each candidate against the baseline under each source, with
  ``flip`` set where the sources' verdicts differ.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

from metrics import schema as S
from metrics.engine.aggregation import summarize
from metrics.engine.evaluation import Evaluation, evaluate, models_of
from metrics.engine.registry import (
    DEFAULT_COMPARE_MEASURES,
    DEFAULT_REVIEW_K,
    at_cutoff,
    parse_measures,
)
from metrics.engine.settings import Settings
from metrics.errors import SettingsError
from metrics.labels.messages import Statistic, undefined
from metrics.labels.sources import LabelSources
from metrics.review.compare import CompareOptions
from metrics.review.verdict import COLUMNS, ReviewRequest, overall_rows, review_table

#: The measure of the holes: the share of a run's top K that a source judged.
JUDGED = "Judged"


def _strict_order(values: np.ndarray) -> np.ndarray:
    """Positions of the systems by decreasing value, ties kept in the given order."""
    order: np.ndarray = np.argsort(-np.asarray(values, dtype=np.float64), kind="stable")
    return order


def _signs(values: np.ndarray) -> np.ndarray:
    """``sign(v_i − v_j)`` for every pair ``i < j`` (in :func:`numpy.triu_indices` order)."""
    i, j = np.triu_indices(len(values), 1)
    signs: np.ndarray = np.sign(values[i] - values[j])
    return signs


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> Statistic:
    """Kendall's τ_b between two scorings of the same systems, ties allowed.

    Over the ``n₀ = n (n − 1) / 2`` pairs, with ``n_c`` concordant and ``n_d`` discordant pairs
    and ``t_x``, ``t_y`` the pairs tied in ``x`` and in ``y``::

        τ_b = (n_c − n_d) / √((n₀ − t_x) (n₀ − t_y))

    Reference: Kendall (1945), "The treatment of ties in ranking problems"; the same number as
    ``scipy.stats.kendalltau(x, y)``.

    ``NaN`` with the reason ``one_system`` for fewer than two systems, ``all_tied`` when every
    system has the same value under one of the two.
    """
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    n = len(x)
    if n < 2:
        return undefined("one_system", n)
    sx, sy = _signs(x), _signs(y)
    untied = float(np.count_nonzero(sx)) * float(np.count_nonzero(sy))
    if untied == 0:
        return undefined("all_tied", n)
    return Statistic(float((sx * sy).sum()) / float(np.sqrt(untied)), n)


def tau_ap(reference: np.ndarray, other: np.ndarray) -> Statistic:
    """The AP correlation τ_AP of the ordering by ``other`` against the ordering by
    ``reference`` (higher values first).

    Walking down ``other``'s ordering, ``C(i)`` counts the systems above rank ``i`` that
    ``reference`` also puts above the system at rank ``i``::

        τ_AP = 2 / (n − 1) · Σ_{i=2..n} C(i) / (i − 1) − 1

    It is 1 for the same ordering and −1 for the reverse one, and a swap near the top costs
    more than one near the bottom. It is not symmetric: ``reference`` is the ordering taken
    as true. Equal values are ordered as the systems are given, in both orderings. Reference:
    Yilmaz, Aslam and Robertson (2008), "A new rank correlation coefficient for information
    retrieval", SIGIR.

    ``NaN`` with the reason ``one_system`` for fewer than two systems, ``all_tied`` when every
    system has the same value under one of the two.
    """
    reference = np.asarray(reference, dtype=np.float64)
    other = np.asarray(other, dtype=np.float64)
    n = len(reference)
    if n < 2:
        return undefined("one_system", n)
    if not np.count_nonzero(_signs(reference)) or not np.count_nonzero(_signs(other)):
        return undefined("all_tied", n)
    position = np.empty(n, dtype=np.int64)
    position[_strict_order(reference)] = np.arange(n)
    walked = position[_strict_order(other)]  # the reference position of each rank of other
    above = np.tril(walked[None, :] < walked[:, None], k=-1)  # [i, j]: j above i in both
    correct = above.sum(axis=1)[1:]
    return Statistic(2.0 / (n - 1) * float((correct / np.arange(1, n)).sum()) - 1.0, n)


def swapped_pairs(models: Sequence[str], a: np.ndarray, b: np.ndarray) -> pd.DataFrame:
    """The pairs of systems that two scorings put in opposite orders (a tie in either is no
    swap): ``model_ahead`` (ahead under ``a``), ``model_behind``, ``a_ahead``, ``a_behind``,
    ``b_ahead``, ``b_behind``; the pairs near the top of ``a``'s ordering first."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    names = np.asarray(list(models), dtype=object)
    i, j = np.triu_indices(len(a), 1)
    sa, sb = _signs(a), _signs(b)
    swapped = sa * sb < 0
    ahead = np.where(sa > 0, i, j)[swapped]
    behind = np.where(sa > 0, j, i)[swapped]
    position = np.empty(len(a), dtype=np.int64)
    position[_strict_order(a)] = np.arange(len(a))
    order = np.lexsort((position[behind], position[ahead]))
    ahead, behind = ahead[order], behind[order]
    return pd.DataFrame(
        {
            "model_ahead": names[ahead],
            "model_behind": names[behind],
            "a_ahead": a[ahead],
            "a_behind": a[behind],
            "b_ahead": b[ahead],
            "b_behind": b[behind],
        }
    )


# --------------------------------------------------------------------------- per source


def evaluate_sources(
    run: pd.DataFrame,
    sources: LabelSources,
    measures: Sequence[str] | None = None,
    settings: Settings = Settings(),
    names: Sequence[str] | None = None,
) -> dict[str, Evaluation]:
    """Every model of ``run`` evaluated under each label source (or aggregate: a name of
    :meth:`LabelSources.qrels`), by name. Queries a source has no judgment for are left out
    of that source's evaluation, as an evaluation with those judgments alone leaves them."""
    chosen = list(sources.names if names is None else names)
    wanted = list(measures or DEFAULT_COMPARE_MEASURES)
    return {
        name: evaluate(run, sources.qrels(name), wanted, settings, source=name) for name in chosen
    }


@dataclass(frozen=True, eq=False)
class Consequence:
    """What the label sources change, as tables.

    Attributes
    ----------
    means:
        ``source``, ``model``, ``measure``, ``value`` (the mean under the averaging policy),
        ``n`` (queries with a value).
    orderings:
        ``measure``, ``source``, ``rank`` (1 is best), ``model``, ``value``: each source's
        ordering of the systems by each measure (ties in the order of the run's models).
    correlations:
        One row per measure and pair of sources: ``measure``, ``source_a``, ``source_b``,
        ``systems`` (with a value under both), ``tau_b``, ``tau_ap`` (``b``'s ordering against
        ``a``'s), ``tau_ap_reverse`` (``a``'s against ``b``'s), ``swaps``, ``reason`` (why
        the τ are ``NaN``, else ``""``).
    swaps:
        ``measure``, ``source_a``, ``source_b``, then the columns of :func:`swapped_pairs`.
    judged:
        ``source``, ``model``, ``k``, ``judged`` (mean Judged@K), ``holes`` (``1 −
        judged``), ``queries`` (judged by the source), ``run_queries`` (of the model).
    verdicts:
        One row per source, candidate and measure: ``source``, ``reference`` (the baseline),
        ``candidate``, ``measure``, ``n``, ``mean_a``, ``mean_b``, ``delta``, ``p_adjusted``,
        ``verdict`` (``better`` / ``worse`` / ``unclear``), ``flip`` (the sources' verdicts on
        this candidate and measure differ). Empty with fewer than two models.
    evaluations:
        The per-query evaluation under each source.
    """

    means: pd.DataFrame
    orderings: pd.DataFrame
    correlations: pd.DataFrame
    swaps: pd.DataFrame
    judged: pd.DataFrame
    verdicts: pd.DataFrame
    evaluations: Mapping[str, Evaluation] = field(default_factory=dict, repr=False)

    @property
    def flips(self) -> pd.DataFrame:
        """The verdict rows of the candidates and measures whose verdict differs by source."""
        flip = self.verdicts["flip"].to_numpy(dtype=bool)
        return self.verdicts[flip].reset_index(drop=True)


CORRELATION_COLUMNS = [
    "measure",
    "source_a",
    "source_b",
    "systems",
    "tau_b",
    "tau_ap",
    "tau_ap_reverse",
    "swaps",
    "reason",
]
SWAP_COLUMNS = [
    "measure",
    "source_a",
    "source_b",
    "model_ahead",
    "model_behind",
    "a_ahead",
    "a_behind",
    "b_ahead",
    "b_behind",
]
#: The review row's columns (:data:`metrics.review.verdict.COLUMNS`) a verdict under each
#: source keeps, between ``source`` and ``flip``.
_VERDICT_WORDS = "reference candidate measure n mean_a mean_b delta p_adjusted verdict"
_VERDICT_PART = frozenset(_VERDICT_WORDS.split())
VERDICT_COLUMNS = ["source", *[c for c in COLUMNS if c in _VERDICT_PART], "flip"]


def _means(evaluations: Mapping[str, Evaluation]) -> pd.DataFrame:
    frames = [
        summarize(ev)[[S.MODEL, "measure", "value", "n"]].assign(source=name)
        for name, ev in evaluations.items()
    ]
    columns = ["source", S.MODEL, "measure", "value", "n"]
    if not frames:
        return pd.DataFrame(columns=columns)
    return pd.concat(frames, ignore_index=True)[columns]


def _value_matrix(
    means: pd.DataFrame, measure: str, names: Sequence[str], models: list[str]
) -> np.ndarray:
    """The means of one measure as an array of models × sources (``NaN``: no value)."""
    part = means[means["measure"] == measure]
    wide = part.pivot(index=S.MODEL, columns="source", values="value")
    values: np.ndarray = wide.reindex(index=models, columns=list(names)).to_numpy(np.float64)
    return values


def _orderings(
    means: pd.DataFrame, measures: Sequence[str], names: Sequence[str], models: list[str]
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The orderings, correlations and swaps of every measure and pair of sources."""
    orderings, correlations, swaps = [], [], []
    for measure in measures:
        values = _value_matrix(means, measure, names, models)
        for s, name in enumerate(names):
            has = ~np.isnan(values[:, s])
            order = _strict_order(values[has, s])
            kept = np.asarray(models, dtype=object)[has]
            orderings.append(
                pd.DataFrame(
                    {
                        "measure": measure,
                        "source": name,
                        "rank": np.arange(1, len(order) + 1),
                        S.MODEL: kept[order],
                        "value": values[has, s][order],
                    }
                )
            )
        for (i, a), (j, b) in combinations(enumerate(names), 2):
            both = ~np.isnan(values[:, i]) & ~np.isnan(values[:, j])
            va, vb = values[both, i], values[both, j]
            kept_models = [m for m, keep in zip(models, both) if keep]
            tau = kendall_tau_b(va, vb)
            if both.sum() < 2 and len(models) >= 2:
                tau = undefined("no_value", int(both.sum()))
            pairs = swapped_pairs(kept_models, va, vb)
            correlations.append(
                {
                    "measure": measure,
                    "source_a": a,
                    "source_b": b,
                    "systems": int(both.sum()),
                    "tau_b": tau.value,
                    "tau_ap": tau_ap(va, vb).value if not tau.reason else np.nan,
                    "tau_ap_reverse": tau_ap(vb, va).value if not tau.reason else np.nan,
                    "swaps": len(pairs),
                    "reason": tau.reason,
                }
            )
            swaps.append(pairs.assign(measure=measure, source_a=a, source_b=b))
    return (
        pd.concat(orderings, ignore_index=True)
        if orderings
        else pd.DataFrame(columns=["measure", "source", "rank", S.MODEL, "value"]),
        pd.DataFrame(correlations, columns=CORRELATION_COLUMNS),
        pd.concat(swaps, ignore_index=True)[SWAP_COLUMNS]
        if swaps
        else pd.DataFrame(columns=SWAP_COLUMNS),
    )


def _judged(
    means: pd.DataFrame, judged: str, k: int, run: pd.DataFrame, models: list[str]
) -> pd.DataFrame:
    part = means[means["measure"] == judged]
    if S.MODEL in run.columns:
        run_queries = run.groupby(run[S.MODEL].astype(str), sort=False)[S.QUERY].nunique()
    else:
        run_queries = pd.Series({models[0]: run[S.QUERY].nunique()})
    return pd.DataFrame(
        {
            "source": part["source"].to_numpy(),
            S.MODEL: part[S.MODEL].to_numpy(),
            "k": k,
            "judged": part["value"].to_numpy(dtype=np.float64),
            "holes": 1.0 - part["value"].to_numpy(dtype=np.float64),
            "queries": part["n"].to_numpy(dtype=np.int64),
            "run_queries": part[S.MODEL].map(run_queries).fillna(0).to_numpy(dtype=np.int64),
        }
    )


def _verdicts(
    evaluations: Mapping[str, Evaluation],
    measures: Sequence[str],
    baseline: str,
    candidates: tuple[str, ...],
    options: CompareOptions,
) -> pd.DataFrame:
    request = ReviewRequest(baseline, candidates, tuple(measures), options=options)
    frames = [
        overall_rows(review_table(ev, request)).assign(source=name)
        for name, ev in evaluations.items()
    ]
    table = pd.concat(frames, ignore_index=True)
    kinds = table.groupby(["candidate", "measure"], sort=False)["verdict"].transform("nunique")
    table["flip"] = kinds.to_numpy() > 1
    return table[VERDICT_COLUMNS]


def _review_models(
    models: list[str], baseline: str | None, candidates: Sequence[str]
) -> tuple[str, tuple[str, ...]]:
    base = baseline or models[0]
    chosen = tuple(dict.fromkeys(candidates)) or tuple(m for m in models if m != base)
    for name in (base, *chosen):
        if name not in models:
            raise SettingsError(f"{name!r} is not a model of the runs ({', '.join(models)}).")
    if base in chosen:
        raise SettingsError(f"the baseline {base!r} cannot also be a candidate.")
    return base, chosen


def consequence(
    run: pd.DataFrame,
    sources: LabelSources,
    measures: Sequence[str] | None = None,
    settings: Settings = Settings(),
    *,
    k: int = DEFAULT_REVIEW_K,
    baseline: str | None = None,
    candidates: Sequence[str] = (),
    options: CompareOptions = CompareOptions(),
    names: Sequence[str] | None = None,
) -> Consequence:
    """What the label sources change for the runs of ``run`` (see :class:`Consequence`).

    Parameters
    ----------
    run:
        A run table as :func:`metrics.evaluate` takes it (``query``, ``item``, ``score`` or
        ``rank``, ``model``).
    sources:
        The label sources.
    measures:
        The measures compared (default: the review's, ``P@10``, ``R@10``, ``RR@10``,
        ``nDCG@10``).
    settings:
        The evaluation policies, the same under every source.
    k:
        The cutoff of Judged@K.
    baseline, candidates:
        The review's baseline (the first model by default) and candidates (every other model
        by default).
    options:
        The review's statistics (the defaults of Compare and ``python -m metrics compare``).
    names:
        The sources (or aggregates, :data:`~metrics.labels.sources.AGGREGATES`) compared; all
        sources by default.
    """
    names = list(sources.names if names is None else names)
    if k < 1:
        raise SettingsError(f"the cutoff of Judged@K must be 1 or more; got {k}.")
    wanted = [spec.name for spec in parse_measures(list(measures or DEFAULT_COMPARE_MEASURES))]
    judged = at_cutoff(JUDGED, k)
    compared = [m for m in wanted if m != judged]
    evaluations = evaluate_sources(run, sources, [*compared, judged], settings, names)
    models = models_of(run)
    means = _means(evaluations)
    orderings, correlations, swaps = _orderings(means, compared, names, models)
    base, chosen = _review_models(models, baseline, candidates)
    verdicts = (
        _verdicts(evaluations, compared, base, chosen, options)
        if chosen
        else pd.DataFrame(columns=VERDICT_COLUMNS)
    )
    return Consequence(
        means=means,
        orderings=orderings,
        correlations=correlations,
        swaps=swaps,
        judged=_judged(means, judged, k, run, models),
        verdicts=verdicts,
        evaluations=evaluations,
    )


__all__ = [
    "CORRELATION_COLUMNS",
    "JUDGED",
    "SWAP_COLUMNS",
    "VERDICT_COLUMNS",
    "Consequence",
    "consequence",
    "evaluate_sources",
    "kendall_tau_b",
    "swapped_pairs",
    "tau_ap",
]
