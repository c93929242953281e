"""Worked explanations of one ranked list: per-position table and formulas with numbers.

Pure and small: given the labels of a list in rank order, the labels of judged items that were
not retrieved, a cutoff K and the settings, :func:`explain_list` returns the rank-by-rank table
(gain, discount 1/log2(i+1), contribution, running DCG), the ideal ordering with its IDCG, and
each measure's numerator and denominator. The app shows these next to the values computed by
:func:`metrics.evaluate`, and tests check that both agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from metrics.engine import relevance
from metrics.engine.measures import ndcg_without_gain, position_weights
from metrics.engine.ranking import gain_of
from metrics.engine.settings import Settings

#: Measures explained, in display order; each is evaluated at K (``P@K`` ...).
EXPLAINED = ("P", "R", "F1", "Success", "RR", "AP", "nDCG")
#: The other measures with a cutoff that :func:`explain_list` works out too, with their
#: default parameters (``cwP`` only for a list with scores, ``ERR`` only without a gain map).
EXPLAINED_MORE = (
    "Judged",
    "CP",
    "DCG",
    "wP",
    "cwP",
    "gP",
    "NumRet",
    "NumRelRet",
    "RBP",
    "RBPResid",
    "ERR",
)


@dataclass(frozen=True)
class Piece:
    """A measure's value as a substituted formula.

    Attributes
    ----------
    name:
        ``P@5``.
    numerator, denominator:
        The two numbers the value divides (``None`` when the formula is not a fraction).
    text:
        The substitution without the result, e.g. ``3/5`` or ``(1/1 + 2/3)/10``.
    value:
        The value computed here (the app shows :func:`metrics.evaluate`'s, which must agree).
    decimals:
        How many decimals to show.
    detail:
        The numbers the formula weighs by, in notation (``w = 1.000, 0.631, 0.500``: the
        position weights of wP; ``s = 0.9, 0.7``: the confidences of cwP), or ``""``.
    """

    name: str
    numerator: float | None
    denominator: float | None
    text: str
    value: float
    decimals: int
    detail: str = ""

    def formula(self, value: float | None = None) -> str:
        """``P@5 = 3/5 = 0.60`` (with ``value`` instead of :attr:`value` when given)."""
        v = self.value if value is None else value
        shown = (
            "—" if v is None or (isinstance(v, float) and np.isnan(v)) else f"{v:.{self.decimals}f}"
        )
        if self.text == shown:
            return f"{self.name} = {shown}"
        return f"{self.name} = {self.text} = {shown}"


@dataclass(frozen=True)
class ListExplanation:
    """Everything needed to explain one list at one K."""

    k: int
    positions: pd.DataFrame
    ideal: pd.DataFrame
    pieces: dict[str, Piece]
    n_relevant: int
    dcg: float
    idcg: float


def _num(x: float) -> str:
    return f"{x:g}" if float(x).is_integer() else f"{x:.3f}"


def _sum(terms: Sequence[str]) -> str:
    """``a + b + c``, or ``0`` for no term."""
    return " + ".join(terms) if terms else "0"


def _ratio(numerator: Sequence[str], denominator: str) -> str:
    """``(a + b)/d``; ``a/d`` for one term and ``0`` for none."""
    if not numerator:
        return "0"
    top = numerator[0] if len(numerator) == 1 else f"({_sum(numerator)})"
    return f"{top}/{denominator}"


def explain_list(
    items: list[str],
    labels: list[float],
    k: int,
    settings: Settings = Settings(),
    unretrieved_labels: Sequence[float] = (),
    scores: Sequence[float] | None = None,
) -> ListExplanation:
    """Explain P, R, F1, Success, RR, AP and nDCG at ``k`` for one list.

    Parameters
    ----------
    items, labels:
        The list in rank order (``labels`` may hold NaN for unjudged items).
    k:
        The cutoff.
    settings:
        Relevance level, gain and the fewer-than-K policy are used.
    unretrieved_labels:
        Labels of judged items that are not in the list (they count for recall and the ideal).
    scores:
        The model's scores of the list, in rank order, if it has some: cwP weighs items by
        them (a list without scores has no cwP piece).

    The pieces of :data:`EXPLAINED_MORE` (Judged@K, CP@K, DCG@K, wP@K, cwP@K, gP@K, NumRet@K,
    NumRelRet@K, RBP@K, RBPResid@K, ERR@K) are there too, with the default parameters.
    """
    labels_arr = np.asarray(labels, dtype=float)
    n = len(labels_arr)
    level = settings.relevance_level
    relevant = relevance.relevant(np.nan_to_num(labels_arr, nan=-1.0), level)
    extra = np.asarray(list(unretrieved_labels), dtype=float)
    n_relevant = int(relevant.sum() + relevance.relevant(extra, level).sum())
    rank = np.arange(1, n + 1)
    discount = 1.0 / np.log2(rank + 1)
    gain = gain_of(labels_arr, settings)
    contribution = np.where(rank <= k, gain * discount, 0.0)
    positions = pd.DataFrame(
        {
            "rank": rank,
            "item": [str(i) for i in items],
            "label": labels_arr,
            "relevant": relevant,
            "gain": gain,
            "discount": discount,
            "contribution": contribution,
            "running_dcg": np.cumsum(contribution),
        }
    )
    judged = np.concatenate([labels_arr[~np.isnan(labels_arr)], extra])
    ideal_gain = np.maximum(np.sort(gain_of(judged, settings))[::-1][:k], 0.0)
    ideal_rank = np.arange(1, len(ideal_gain) + 1)
    ideal_contrib = ideal_gain / np.log2(ideal_rank + 1)
    ideal = pd.DataFrame(
        {
            "rank": ideal_rank,
            "gain": ideal_gain,
            "discount": 1.0 / np.log2(ideal_rank + 1),
            "contribution": ideal_contrib,
            "running_idcg": np.cumsum(ideal_contrib),
        }
    )
    dcg = float(contribution.sum())
    idcg = float(ideal_contrib.sum())

    hits = int(relevant[:k].sum())
    returned = min(k, n)
    pieces: dict[str, Piece] = {}
    if settings.short_lists == "divide_by_returned":
        p_den = returned
    else:
        p_den = k
    p = hits / p_den if p_den else 0.0
    if settings.short_lists == "leave_out" and n < k:
        p = float("nan")
    pieces["P"] = Piece(f"P@{k}", hits, p_den, f"{hits}/{p_den}", p, 2)
    r = hits / n_relevant if n_relevant else 0.0
    pieces["R"] = Piece(f"R@{k}", hits, n_relevant, f"{hits}/{n_relevant}", r, 2)
    if np.isnan(p):
        f1 = float("nan")
    else:
        f1 = 2 * p * r / (p + r) if p + r > 0 else 0.0
    f1_text = f"2·{p:.2f}·{r:.2f} / ({p:.2f} + {r:.2f})" if p + r > 0 else "0"
    pieces["F1"] = Piece(f"F1@{k}", None, None, f1_text, f1, 2)
    pieces["Success"] = Piece(
        f"Success@{k}", None, None, "1" if hits else "0", 1.0 if hits else 0.0, 0
    )
    first = np.flatnonzero(relevant[:k])
    if len(first):
        rr = 1.0 / (first[0] + 1)
        pieces["RR"] = Piece(f"RR@{k}", 1, int(first[0] + 1), f"1/{first[0] + 1}", rr, 3)
    else:
        pieces["RR"] = Piece(f"RR@{k}", 0, None, "0", 0.0, 3)
    rel_ranks = np.flatnonzero(relevant[:k]) + 1
    terms = [f"{j + 1}/{r_}" for j, r_ in enumerate(rel_ranks)]
    ap_sum = float(sum((j + 1) / r_ for j, r_ in enumerate(rel_ranks)))
    ap = ap_sum / n_relevant if n_relevant else 0.0
    ap_text = f"({' + '.join(terms)})/{n_relevant}" if terms and n_relevant else "0"
    pieces["AP"] = Piece(f"AP@{k}", ap_sum, n_relevant, ap_text, ap, 3)
    ndcg = dcg / idcg if idcg > 0 else ndcg_without_gain(settings)
    pieces["nDCG"] = Piece(
        f"nDCG@{k}", dcg, idcg, f"{dcg:.3f}/{idcg:.3f}" if idcg > 0 else f"{ndcg:g}", ndcg, 3
    )
    pieces |= _more_pieces(labels_arr, relevant, gain, k, p_den, settings, extra, scores)
    return ListExplanation(k, positions, ideal, pieces, n_relevant, dcg, idcg)


def _more_pieces(
    labels: np.ndarray,
    relevant: np.ndarray,
    gain: np.ndarray,
    k: int,
    p_den: int,
    settings: Settings,
    extra: np.ndarray,
    scores: Sequence[float] | None,
) -> dict[str, Piece]:
    """The pieces of :data:`EXPLAINED_MORE` (see :func:`explain_list`); ``p_den`` is what
    P@K divides by under the fewer-than-K policy."""
    n = len(labels)
    top = min(k, n)
    short_out = settings.short_lists == "leave_out" and n < k
    nan = float("nan")
    ranks = np.flatnonzero(relevant[:k]) + 1
    pieces: dict[str, Piece] = {}

    judged = int(relevance.judged(np.nan_to_num(labels[:k], nan=-1.0)).sum())
    judged_value = nan if short_out else judged / p_den if p_den else 0.0
    pieces["Judged"] = Piece(f"Judged@{k}", judged, p_den, f"{judged}/{p_den}", judged_value, 2)

    cp_terms = [f"{j + 1}/{r}" for j, r in enumerate(ranks)]
    cp_sum = float(sum((j + 1) / r for j, r in enumerate(ranks)))
    cp = cp_sum / len(ranks) if len(ranks) else 0.0
    pieces["CP"] = Piece(f"CP@{k}", cp_sum, len(ranks), _ratio(cp_terms, str(len(ranks))), cp, 3)

    discount = 1.0 / np.log2(np.arange(1, top + 1) + 1.0)
    dcg_terms = [f"{_num(g)}·{d:.3f}" for g, d in zip(gain[:top], discount) if g != 0]
    dcg = float(np.sum(gain[:top] * discount))
    pieces["DCG"] = Piece(f"DCG@{k}", dcg, None, _sum(dcg_terms), dcg, 3)

    w = position_weights("log", max(k, n))
    w_den_ranks = top if settings.short_lists == "divide_by_returned" else k
    w_den = float(w[:w_den_ranks].sum())
    w_num = float(w[ranks - 1].sum())
    wp = nan if short_out else w_num / w_den if w_den > 0 else 0.0
    pieces["wP"] = Piece(
        f"wP@{k}",
        w_num,
        w_den,
        _ratio([f"{w[r - 1]:.3f}" for r in ranks], f"{w_den:.3f}"),
        wp,
        3,
        "w = " + ", ".join(f"{x:.3f}" for x in w[:w_den_ranks]),
    )

    if scores is not None:
        s = np.asarray(scores, dtype=float)[:top]
        s_num = float(s[ranks - 1].sum())
        s_den = float(s.sum())
        cwp = s_num / s_den if s_den > 0 else 0.0
        pieces["cwP"] = Piece(
            f"cwP@{k}",
            s_num,
            s_den,
            _ratio([f"{x:g}" for x in s[ranks - 1]], f"{s_den:g}"),
            cwp,
            3,
            "s = " + ", ".join(f"{x:g}" for x in s),
        )

    judged_labels = np.concatenate([labels[~np.isnan(labels)], extra])
    top_label = max(float(judged_labels.max()) if len(judged_labels) else 0.0, 0.0)
    strengths = [labels[r - 1] for r in ranks]
    gp_num = float(sum(x / top_label for x in strengths)) if top_label > 0 else 0.0
    gp = nan if short_out else gp_num / p_den if p_den else 0.0
    gp_terms = [f"{_num(x)}/{_num(top_label)}" for x in strengths] if top_label > 0 else []
    pieces["gP"] = Piece(f"gP@{k}", gp_num, p_den, _ratio(gp_terms, str(p_den)), gp, 3)

    pieces["NumRet"] = Piece(f"NumRet@{k}", None, None, f"min({k}, {n})", float(top), 0)
    hits = len(ranks)
    pieces["NumRelRet"] = Piece(f"NumRelRet@{k}", None, None, str(hits), float(hits), 0)

    p = 0.8  # RBP's default persistence
    rbp_terms = [f"{p:g}^{r - 1}" for r in ranks]
    rbp = (1 - p) * float(sum(p ** (r - 1) for r in ranks))
    rbp_text = f"{1 - p:g}·({_sum(rbp_terms)})" if rbp_terms else "0"
    pieces["RBP"] = Piece(f"RBP@{k}", None, None, rbp_text, rbp, 3)
    unjudged = [
        i + 1 for i in range(top) if not relevance.judged(np.nan_to_num(labels[i], nan=-1.0))
    ]
    resid = (1 - p) * float(sum(p ** (i - 1) for i in unjudged)) + p**top
    resid_terms = [f"{1 - p:g}·({_sum([f'{p:g}^{i - 1}' for i in unjudged])})"] if unjudged else []
    pieces["RBPResid"] = Piece(
        f"RBPResid@{k}", None, None, _sum([*resid_terms, f"{p:g}^{top}"]), resid, 3
    )

    gmax = 4  # ERR's default largest grade (a gain map gives its own stopping chances)
    if settings.gain_map is not None:
        return pieces
    grades = np.maximum(np.nan_to_num(labels[:top], nan=0.0), 0.0)
    stop = (np.exp2(grades) - 1.0) / 2.0**gmax
    reach = np.concatenate(([1.0], np.cumprod(1.0 - stop)[:-1]))
    terms = stop * reach / np.arange(1, top + 1)
    err_terms = [f"{x:.3f}" for x in terms if x > 0]
    pieces["ERR"] = Piece(
        f"ERR@{k}",
        None,
        None,
        _sum(err_terms),
        float(terms.sum()),
        3,
        "R = " + ", ".join(f"{x:.3f}" for x in stop),
    )
    return pieces


def list_frames(
    items: list[str],
    labels: list[float],
    unretrieved: Sequence[tuple[str, float]] = (),
    query: str = "list",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run (rank order as scores) and judgments for one list, for :func:`metrics.evaluate`.

    Unjudged items (NaN labels) get no judgment row.
    """
    n = len(items)
    run = pd.DataFrame(
        {
            "query": [query] * n,
            "item": [str(i) for i in items],
            "score": np.arange(n, 0, -1, dtype=float),
        }
    )
    judged = [(str(i), float(l)) for i, l in zip(items, labels) if not np.isnan(float(l))]
    judged += [(str(i), float(l)) for i, l in unretrieved]
    qrels = pd.DataFrame(
        {
            "query": [query] * len(judged),
            "item": [i for i, _ in judged],
            "relevance": [l for _, l in judged],
        }
    )
    return run, qrels


__all__ = [
    "EXPLAINED",
    "EXPLAINED_MORE",
    "ListExplanation",
    "Piece",
    "explain_list",
    "gain_of",
    "list_frames",
]
