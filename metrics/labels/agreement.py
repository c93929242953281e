"""How far label sources agree on the items they judged.

Every statistic works on grades as an array of units (query, item pairs) × sources, ``NaN``
where a source gave no label, and is computed with numpy over whole arrays. An undefined
statistic (no item judged by both sources, a single grade in use) is ``NaN`` with a reason code
(:class:`~metrics.labels.messages.Statistic`), never an error.

The grades are *categories*: the distinct grades given by any source, in ascending order
(:func:`grade_categories`). Weighted κ and ordinal α read the order of the categories; interval
α reads their values.

:func:`agreement` gathers them for a :class:`~metrics.labels.sources.LabelSources`: per pair of
sources (raw agreement, Cohen's κ unweighted, linear and quadratic, the confusion matrix), over
all sources (pairwise agreement, Fleiss' κ, Krippendorff's α nominal, ordinal and interval), and
the items and queries where the sources differ most. Landis and Koch's bands are conventions, so
no statistic is worded as "fair" or "substantial" here: the numbers and the confusion matrices
are reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np
import pandas as pd

from metrics import schema as S
from metrics.errors import SettingsError
from metrics.labels.messages import Statistic, undefined
from metrics.labels.sources import LabelSources

Weights = Literal["linear", "quadratic"] | None
Level = Literal["nominal", "ordinal", "interval"]

#: The weights of Cohen's κ, by the column of :attr:`Agreement.pairs` that holds each.
KAPPA_COLUMNS: dict[str, Weights] = {
    "kappa": None,
    "kappa_linear": "linear",
    "kappa_quadratic": "quadratic",
}
#: Krippendorff's α's levels of measurement.
LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval")


def grade_categories(grades: np.ndarray) -> np.ndarray:
    """The distinct grades given (``NaN`` left out), in ascending order."""
    values = np.asarray(grades, dtype=np.float64)
    return np.unique(values[~np.isnan(values)])


def _categories(grades: np.ndarray, categories: Sequence[float] | np.ndarray | None) -> np.ndarray:
    found = grade_categories(grades)
    if categories is None:
        return found
    given = np.unique(np.asarray(categories, dtype=np.float64))
    if not np.isin(found, given).all():
        raise SettingsError("the categories must hold every grade given.")
    return given


def confusion_matrix(
    a: np.ndarray, b: np.ndarray, categories: Sequence[float] | np.ndarray | None = None
) -> np.ndarray:
    """Counts ``O[i, j]`` of the units source ``a`` graded ``categories[i]`` and source ``b``
    graded ``categories[j]``, over the units both judged.

    ``categories`` default to the grades either source gave (:func:`grade_categories`).
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    cats = _categories(np.concatenate([a, b]), categories)
    both = ~np.isnan(a) & ~np.isnan(b)
    k = len(cats)
    ia = np.searchsorted(cats, a[both])
    ib = np.searchsorted(cats, b[both])
    return np.bincount(ia * k + ib, minlength=k * k).reshape(k, k)


def raw_agreement(a: np.ndarray, b: np.ndarray) -> Statistic:
    """The share ``p_o`` of the units both sources judged that they gave the same grade.

    ``NaN`` (``no_overlap``) when no unit was judged by both.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    both = ~np.isnan(a) & ~np.isnan(b)
    n = int(both.sum())
    if not n:
        return undefined("no_overlap")
    return Statistic(float(np.mean(a[both] == b[both])), n)


def disagreement_weights(k: int, weights: Weights = None) -> np.ndarray:
    """The disagreement weights ``w[i, j]`` of ``k`` ordered categories: ``1`` off the diagonal
    (unweighted), ``|i − j|`` (linear) or ``(i − j)²`` (quadratic); ``0`` on the diagonal."""
    idx = np.arange(k)
    gap: np.ndarray = np.abs(idx[:, None] - idx[None, :]).astype(np.float64)
    if weights is None:
        unweighted: np.ndarray = (gap > 0).astype(np.float64)
        return unweighted
    if weights == "linear":
        return gap
    if weights == "quadratic":
        squared: np.ndarray = np.square(gap)
        return squared
    raise SettingsError(f"the weights must be linear, quadratic or none; got {weights!r}.")


def cohen_kappa(
    a: np.ndarray,
    b: np.ndarray,
    weights: Weights = None,
    categories: Sequence[float] | np.ndarray | None = None,
) -> Statistic:
    """Cohen's κ of two sources on the units both judged, unweighted or weighted.

    With ``O`` the confusion matrix (:func:`confusion_matrix`), ``n`` its total, ``E[i, j] =
    r_i c_j / n`` the counts expected from its row and column sums and ``w`` the disagreement
    weights (:func:`disagreement_weights`)::

        κ_w = 1 − Σ w_ij O_ij / Σ w_ij E_ij

    which for the unweighted ``w`` is ``(p_o − p_e) / (1 − p_e)``. References: Cohen (1960),
    "A coefficient of agreement for nominal scales"; Cohen (1968), "Weighted kappa"; the same
    numbers as ``sklearn.metrics.cohen_kappa_score(a, b, labels=categories, weights=...)``.

    ``NaN`` with the reason ``no_overlap`` when no unit was judged by both, ``one_category``
    when both gave one and the same grade to every unit (``Σ w E = 0``: agreement by chance
    is certain).
    """
    o = confusion_matrix(a, b, categories).astype(np.float64)
    n = float(o.sum())
    if not n:
        return undefined("no_overlap")
    expected = np.outer(o.sum(axis=1), o.sum(axis=0)) / n
    w = disagreement_weights(len(o), weights)
    chance = float((w * expected).sum())
    if chance == 0:
        return undefined("one_category", int(n))
    return Statistic(1.0 - float((w * o).sum()) / chance, int(n))


def value_counts(grades: np.ndarray, categories: np.ndarray) -> np.ndarray:
    """``counts[u, c]``: how many sources gave unit ``u`` the grade ``categories[c]``."""
    grades = np.asarray(grades, dtype=np.float64)
    units, k = grades.shape[0], len(categories)
    row, col = np.nonzero(~np.isnan(grades))
    codes = np.searchsorted(categories, grades[row, col])
    return np.bincount(row * k + codes, minlength=units * k).reshape(units, k)


def fleiss_kappa(
    grades: np.ndarray, categories: Sequence[float] | np.ndarray | None = None
) -> Statistic:
    """Fleiss' κ of all sources, on the units every source judged.

    With ``N`` such units, ``r`` sources, ``n_uj`` the sources that gave unit ``u`` category
    ``j``, ``p_j = Σ_u n_uj / (N r)`` and ``P_u = (Σ_j n_uj² − r) / (r (r − 1))``::

        κ = (P̄ − P̄_e) / (1 − P̄_e),   P̄ = mean_u P_u,   P̄_e = Σ_j p_j²

    Reference: Fleiss (1971), "Measuring nominal scale agreement among many raters"; the same
    number as ``statsmodels.stats.inter_rater.fleiss_kappa``.

    ``NaN`` with the reason ``one_source`` for fewer than two sources, ``no_complete_item``
    when no unit was judged by all, ``one_category`` when those units have one grade only.
    """
    grades = np.asarray(grades, dtype=np.float64)
    r = grades.shape[1] if grades.ndim == 2 else 0
    if r < 2:
        return undefined("one_source")
    complete = grades[~np.isnan(grades).any(axis=1)]
    if not len(complete):
        return undefined("no_complete_item")
    counts = value_counts(complete, _categories(grades, categories)).astype(np.float64)
    totals = counts.sum(axis=0)
    if np.count_nonzero(totals) < 2:
        return undefined("one_category", len(complete))
    p = totals / totals.sum()
    per_unit = ((counts**2).sum(axis=1) - r) / (r * (r - 1))
    chance = float((p**2).sum())
    return Statistic((float(per_unit.mean()) - chance) / (1.0 - chance), len(complete))


def alpha_distances(categories: np.ndarray, counts: np.ndarray, level: Level) -> np.ndarray:
    """Krippendorff's squared distances ``δ²[c, k]`` between categories: nominal ``[c ≠ k]``,
    interval ``(v_c − v_k)²``, ordinal ``(Σ_{g=c..k} n_g − (n_c + n_k) / 2)²`` with ``n_g`` the
    pairable values of category ``g`` (``counts``)."""
    cats = np.asarray(categories, dtype=np.float64)
    gap: np.ndarray = cats[:, None] - cats[None, :]
    if level == "nominal":
        nominal: np.ndarray = (gap != 0).astype(np.float64)
        return nominal
    if level == "interval":
        interval: np.ndarray = np.square(gap)
        return interval
    if level == "ordinal":
        idx = np.arange(len(cats))
        low, high = np.minimum.outer(idx, idx), np.maximum.outer(idx, idx)
        through = np.concatenate([[0.0], np.cumsum(counts)])
        rank_gap: np.ndarray = through[high + 1] - through[low] - (counts[low] + counts[high]) / 2
        ordinal: np.ndarray = np.square(rank_gap)
        return ordinal
    raise SettingsError(f"the level must be one of {', '.join(LEVELS)}; got {level!r}.")


def krippendorff_alpha(
    grades: np.ndarray,
    level: Level = "ordinal",
    categories: Sequence[float] | np.ndarray | None = None,
) -> Statistic:
    """Krippendorff's α of all sources, missing labels allowed.

    Only the units with two labels or more (*pairable*) count. With ``n_uc`` the labels
    ``c`` of unit ``u`` and ``m_u`` its labels, the coincidences are ``o_ck = Σ_u (n_uc n_uk −
    [c = k] n_uc) / (m_u − 1)``, ``n_c = Σ_k o_ck``, ``n = Σ_c n_c``; with the distances
    ``δ²`` of the level (:func:`alpha_distances`)::

        α = 1 − D_o / D_e,   D_o = Σ o_ck δ²_ck,   D_e = Σ_{c,k} n_c (n_k − [c = k]) δ²_ck / (n − 1)

    Reference: Krippendorff (2011), "Computing Krippendorff's alpha-reliability"; the same
    number as the ``krippendorff`` package's ``alpha(reliability_data=grades.T,
    level_of_measurement=level)``.

    ``NaN`` with the reason ``no_overlap`` when no unit has two labels, ``one_category`` when
    the pairable labels are all one grade (``D_e = 0``).
    """
    grades = np.asarray(grades, dtype=np.float64)
    cats = _categories(grades, categories)
    counts = value_counts(grades, cats).astype(np.float64)
    labels = counts.sum(axis=1)
    pairable = labels >= 2
    if not pairable.any():
        return undefined("no_overlap")
    c = counts[pairable]
    scaled = c / (labels[pairable] - 1)[:, None]
    coincidences = scaled.T @ c - np.diag(scaled.sum(axis=0))
    n_c = coincidences.sum(axis=0)
    n = float(n_c.sum())
    delta = alpha_distances(cats, n_c, level)
    expected = (np.outer(n_c, n_c) - np.diag(n_c)) / (n - 1)
    chance = float((expected * delta).sum())
    if chance == 0:
        return undefined("one_category", int(pairable.sum()))
    return Statistic(1.0 - float((coincidences * delta).sum()) / chance, int(pairable.sum()))


def pairwise_agreement(grades: np.ndarray) -> Statistic:
    """The share of agreeing pairs of labels over the units with two labels or more: ``Σ_u Σ_c
    n_uc (n_uc − 1) / Σ_u m_u (m_u − 1)`` (raw agreement, for any number of sources)."""
    grades = np.asarray(grades, dtype=np.float64)
    counts = value_counts(grades, grade_categories(grades)).astype(np.float64)
    labels = counts.sum(axis=1)
    pairable = labels >= 2
    if not pairable.any():
        return undefined("no_overlap")
    agreeing = float((counts[pairable] * (counts[pairable] - 1)).sum())
    pairs = float((labels[pairable] * (labels[pairable] - 1)).sum())
    return Statistic(agreeing / pairs, int(pairable.sum()))


# --------------------------------------------------------------------------- the tables


@dataclass(frozen=True, eq=False)
class Agreement:
    """The agreement of label sources, as tables.

    Attributes
    ----------
    pairs:
        One row per pair of sources: ``source_a``, ``source_b``, ``n`` (units both judged),
        ``agreement`` (raw), ``kappa``, ``kappa_linear``, ``kappa_quadratic`` (Cohen's),
        ``mean_difference`` (mean grade of ``b`` minus that of ``a``), ``reason`` (why the κ
        are ``NaN``, else ``""``).
    overall:
        ``statistic`` (``agreement``, ``fleiss_kappa``, ``alpha_nominal``, ``alpha_ordinal``,
        ``alpha_interval``), ``value``, ``n`` (units it counts), ``reason``.
    confusion:
        ``source_a``, ``source_b``, ``grade_a``, ``grade_b``, ``count``: every cell of every
        pair's confusion matrix (zeros too).
    items:
        The units at least two sources judged: ``query``, ``item``, ``difference`` (highest
        minus lowest grade), ``judged`` (sources that judged it), then each source's grade;
        the largest difference first, ties in the order of the input.
    queries:
        ``query``, ``items`` (judged by two sources or more), ``disagreements`` (of them, with
        a difference), ``share`` (of disagreements), ``mean_difference``, ``max_difference``;
        the largest mean difference first, then the largest share, ties in the order of the
        input.
    categories:
        The grades given, in ascending order.
    """

    pairs: pd.DataFrame
    overall: pd.DataFrame
    confusion: pd.DataFrame
    items: pd.DataFrame
    queries: pd.DataFrame
    categories: tuple[float, ...]

    def confusion_matrix(self, a: str, b: str) -> pd.DataFrame:
        """The confusion matrix of sources ``a`` (rows, ``grade_a``) and ``b`` (columns,
        ``grade_b``), over every grade given."""
        names = set(self.pairs["source_a"]) | set(self.pairs["source_b"])
        if a == b or a not in names or b not in names:
            raise SettingsError(f"no pair of sources {a!r} and {b!r}.")
        cells = self.confusion
        part = cells[(cells["source_a"] == a) & (cells["source_b"] == b)]
        if part.empty:
            part = cells[(cells["source_a"] == b) & (cells["source_b"] == a)].rename(
                columns={"grade_a": "grade_b", "grade_b": "grade_a"}
            )
        cats = list(self.categories)
        table = part.pivot(index="grade_a", columns="grade_b", values="count")
        return table.reindex(index=cats, columns=cats, fill_value=0).rename_axis(
            index="grade_a", columns="grade_b"
        )


PAIR_COLUMNS = [
    "source_a",
    "source_b",
    "n",
    "agreement",
    *KAPPA_COLUMNS,
    "mean_difference",
    "reason",
]


def _pair_row(a: str, b: str, x: np.ndarray, y: np.ndarray, cats: np.ndarray) -> dict[str, object]:
    raw = raw_agreement(x, y)
    kappas = {column: cohen_kappa(x, y, w, cats) for column, w in KAPPA_COLUMNS.items()}
    both = ~np.isnan(x) & ~np.isnan(y)
    return {
        "source_a": a,
        "source_b": b,
        "n": raw.n,
        "agreement": raw.value,
        **{column: k.value for column, k in kappas.items()},
        "mean_difference": float(np.mean(y[both] - x[both])) if raw.n else float("nan"),
        "reason": kappas["kappa"].reason,
    }


def _confusion_rows(a: str, b: str, x: np.ndarray, y: np.ndarray, cats: np.ndarray) -> pd.DataFrame:
    counts = confusion_matrix(x, y, cats)
    k = len(cats)
    return pd.DataFrame(
        {
            "source_a": a,
            "source_b": b,
            "grade_a": np.repeat(cats, k),
            "grade_b": np.tile(cats, k),
            "count": counts.reshape(-1).astype(np.int64),
        }
    )


def _items(table: pd.DataFrame, grades: np.ndarray, names: Sequence[str]) -> pd.DataFrame:
    judged = (~np.isnan(grades)).sum(axis=1)
    keep = judged >= 2
    part = grades[keep]
    difference = np.nanmax(part, axis=1) - np.nanmin(part, axis=1) if len(part) else np.zeros(0)
    out = pd.DataFrame(
        {
            S.QUERY: table[S.QUERY].to_numpy()[keep],
            S.ITEM: table[S.ITEM].to_numpy()[keep],
            "difference": difference,
            "judged": judged[keep].astype(np.int64),
        }
    )
    for j, name in enumerate(names):
        out[name] = part[:, j]
    return out


def _largest_first(items: pd.DataFrame) -> pd.DataFrame:
    order = np.argsort(-items["difference"].to_numpy(dtype=np.float64), kind="stable")
    return items.iloc[order].reset_index(drop=True)


def _queries(items: pd.DataFrame) -> pd.DataFrame:
    columns = ["items", "disagreements", "share", "mean_difference", "max_difference"]
    if items.empty:
        return pd.DataFrame(columns=[S.QUERY, *columns])
    grouped = items.assign(disagree=items["difference"] > 0).groupby(S.QUERY, sort=False)
    out = pd.DataFrame(
        {
            "items": grouped.size(),
            "disagreements": grouped["disagree"].sum().astype(np.int64),
            "mean_difference": grouped["difference"].mean(),
            "max_difference": grouped["difference"].max(),
        }
    )
    out["share"] = out["disagreements"] / out["items"]
    out = out.reset_index()[[S.QUERY, *columns]]
    return out.sort_values(
        ["mean_difference", "share"], ascending=False, kind="stable"
    ).reset_index(drop=True)


def agreement(sources: LabelSources, names: Sequence[str] | None = None) -> Agreement:
    """The agreement of label sources (all of them, or those of ``names``), as the tables of
    :class:`Agreement`."""
    names = list(sources.names if names is None else names)
    unknown = [n for n in names if n not in sources.names]
    if unknown:
        raise SettingsError(f"{unknown[0]!r} is not a label source ({', '.join(sources.names)}).")
    grades = sources.grades(names)
    cats = grade_categories(grades)
    pairs, confusion = [], []
    for (i, a), (j, b) in combinations(enumerate(names), 2):
        pairs.append(_pair_row(a, b, grades[:, i], grades[:, j], cats))
        confusion.append(_confusion_rows(a, b, grades[:, i], grades[:, j], cats))
    overall = {
        "agreement": pairwise_agreement(grades),
        "fleiss_kappa": fleiss_kappa(grades, cats),
        **{f"alpha_{level}": krippendorff_alpha(grades, level, cats) for level in LEVELS},
    }
    items = _items(sources.table, grades, names)
    confusion_columns = ["source_a", "source_b", "grade_a", "grade_b", "count"]
    return Agreement(
        pairs=pd.DataFrame(pairs, columns=PAIR_COLUMNS),
        overall=pd.DataFrame(
            [
                {"statistic": k, "value": s.value, "n": s.n, "reason": s.reason}
                for k, s in overall.items()
            ],
            columns=["statistic", "value", "n", "reason"],
        ),
        confusion=(
            pd.concat(confusion, ignore_index=True)
            if confusion
            else pd.DataFrame(columns=confusion_columns)
        ),
        items=_largest_first(items),
        queries=_queries(items),
        categories=tuple(float(c) for c in cats),
    )


__all__ = [
    "KAPPA_COLUMNS",
    "LEVELS",
    "PAIR_COLUMNS",
    "Agreement",
    "agreement",
    "alpha_distances",
    "cohen_kappa",
    "confusion_matrix",
    "disagreement_weights",
    "fleiss_kappa",
    "grade_categories",
    "krippendorff_alpha",
    "pairwise_agreement",
    "raw_agreement",
    "value_counts",
]
