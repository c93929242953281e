"""The declarative measure registry.

Each measure is declared once: its name in ir_measures notation, aliases (trec_eval and common
spellings), whether it takes a cutoff, its parameters, a LaTeX formula and a one-line description.
Menus, help text, formulas and name parsing all come from :data:`MEASURES`.

Names parse as ``NAME``, ``NAME@K``, ``NAME(param=value,...)@K``, or the trec_eval spellings
``NAME_K`` / ``NAME.K`` (``P_10``, ``ndcg_cut_10``, ``map_cut.5``). Case is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from metrics.engine import measures as m
from metrics.engine.ranking import RankedLists
from metrics.errors import MeasureError

Kernel = Callable[..., np.ndarray]
MicroKernel = Callable[[RankedLists, np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Param:
    """A measure parameter: name, type, default, allowed values (if a choice) and help."""

    name: str
    kind: type
    default: object
    help: str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class MeasureDef:
    """Declaration of one measure.

    Attributes
    ----------
    name:
        Canonical ir_measures-style name (``P``, ``nDCG``, ``RR``).
    pretty:
        Human name (``Precision``).
    cutoff:
        ``"required"`` (only meaningful at a K), ``"optional"`` or ``"none"``.
    aliases:
        Other spellings, matched case-insensitively.
    latex:
        Formula, KaTeX-compatible. ``K`` is the cutoff.
    description:
        One line: what question the measure answers.
    uses_relevance_level:
        Binary measures threshold labels at the relevance level.
    kernel:
        ``kernel(lists, ks_or_None, **params)`` per-query values.
    micro:
        Numerator/denominator kernel for pooled averaging, or ``None`` (macro only).
    trec_eval:
        trec_eval measure name with ``{k}`` for the cutoff, when trec_eval has it.
    pitfall:
        When the measure misleads.
    """

    name: str
    pretty: str
    cutoff: Literal["required", "optional", "none"]
    aliases: tuple[str, ...]
    latex: str
    description: str
    uses_relevance_level: bool
    kernel: Kernel
    micro: MicroKernel | None = None
    trec_eval: str | None = None
    trec_eval_full: str | None = None
    pitfall: str = ""
    params: tuple[Param, ...] = ()
    curve_default: bool = False


MEASURES: dict[str, MeasureDef] = {
    d.name: d
    for d in (
        MeasureDef(
            "P",
            "Precision",
            "required",
            ("precision", "prec", "P"),
            r"P@K = \frac{|\{\text{relevant in top } K\}|}{K}",
            "Share of the top K results that are relevant.",
            True,
            m.precision,
            m.precision_micro,
            trec_eval="P_{k}",
            pitfall="Ignores order inside the top K, and caps below 1 when fewer than K relevant "
            "items exist.",
            curve_default=True,
        ),
        MeasureDef(
            "R",
            "Recall",
            "required",
            ("recall", "rec"),
            r"R@K = \frac{|\{\text{relevant in top } K\}|}{|\{\text{relevant judged}\}|}",
            "Share of all relevant items (retrieved or not) found in the top K.",
            True,
            m.recall,
            m.recall_micro,
            trec_eval="recall_{k}",
            pitfall="Grows with K by construction; relevant items the candidate pool never "
            "contained cap it below 1.",
            curve_default=True,
        ),
        MeasureDef(
            "F1",
            "F1",
            "required",
            ("f1", "f", "f-measure"),
            r"F_1@K = \frac{2 \cdot P@K \cdot R@K}{P@K + R@K}",
            "Harmonic mean of P@K and R@K (0 when both are 0).",
            True,
            m.f1,
            None,
            pitfall="Mixes two questions into one number; report P and R beside it.",
        ),
        MeasureDef(
            "Success",
            "Success (hit rate)",
            "required",
            ("success", "hit", "hits", "hitrate", "hit_rate"),
            r"Success@K = \mathbb{1}[\exists\, i \le K: rel_i \ge L]",
            "1 if at least one relevant item is in the top K, else 0.",
            True,
            m.success,
            m.success_micro,
            trec_eval="success_{k}",
            pitfall="Says nothing about how many relevant items were found or where.",
        ),
        MeasureDef(
            "RR",
            "Reciprocal rank",
            "optional",
            ("mrr", "recip_rank", "reciprocal_rank", "rr"),
            r"RR = \frac{1}{\operatorname{rank}_{\text{first relevant}}}",
            "How early the first relevant item appears; averaged over queries it is MRR.",
            True,
            m.reciprocal_rank,
            None,
            trec_eval_full="recip_rank",
            pitfall="Only the first relevant item counts; later ones add nothing.",
            curve_default=False,
        ),
        MeasureDef(
            "AP",
            "Average precision",
            "optional",
            ("map", "ap", "map_cut", "average_precision"),
            r"AP@K = \frac{1}{|\{\text{relevant judged}\}|}\sum_{i \le K,\, rel_i \ge L} P@i",
            "Mean of the precision at each relevant item's rank; averaged it is MAP.",
            True,
            m.average_precision,
            None,
            trec_eval="map_cut_{k}",
            trec_eval_full="map",
            pitfall="Divides by all relevant items, so AP@K stays low when many are judged "
            "relevant.",
            curve_default=True,
        ),
        MeasureDef(
            "nDCG",
            "nDCG",
            "optional",
            ("ndcg", "ndcg_cut", "n_dcg"),
            r"nDCG@K = \frac{\sum_{i=1}^{K} g(rel_i)/\log_2(i+1)}{\sum_{i=1}^{K} g(rel^{*}_i)"
            r"/\log_2(i+1)}",
            "Graded gain discounted by rank, relative to the best possible ordering.",
            False,
            m.ndcg,
            None,
            trec_eval="ndcg_cut_{k}",
            trec_eval_full="ndcg",
            pitfall="The ideal ordering uses every judged item of the query: unjudged items "
            "count as 0.",
            curve_default=True,
        ),
        MeasureDef(
            "DCG",
            "DCG",
            "optional",
            ("dcg",),
            r"DCG@K = \sum_{i=1}^{K} \frac{g(rel_i)}{\log_2(i+1)}",
            "Graded gain discounted by rank, not normalised.",
            False,
            m.dcg,
            None,
            pitfall="Not comparable across queries with different numbers of relevant items.",
        ),
        MeasureDef(
            "Rprec",
            "R-precision",
            "none",
            ("rprec", "r-prec", "r_prec", "rprecision"),
            r"Rprec = P@R,\quad R = |\{\text{relevant judged}\}|",
            "Precision at rank R, where R is the number of relevant items.",
            True,
            m.r_precision,
            None,
            trec_eval_full="Rprec",
            pitfall="The cutoff differs per query.",
        ),
        MeasureDef(
            "Judged",
            "Judged",
            "required",
            ("judged", "judged_at"),
            r"Judged@K = \frac{|\{\text{judged in top } K\}|}{K}",
            "Share of the top K that has any judgment: low values mean the other measures guess.",
            False,
            m.judged,
            None,
            pitfall="Unjudged items count as non-relevant everywhere else.",
        ),
        MeasureDef(
            "wP",
            "Position-weighted precision",
            "required",
            ("wp", "weighted_p", "weighted_precision"),
            r"wP@K = \frac{\sum_{i=1}^{K} w_i \cdot \mathbb{1}[rel_i \ge L]}{\sum_{i=1}^{K} w_i}",
            "Precision where higher positions weigh more (weights by a decay or given).",
            True,
            m.weighted_precision,
            None,
            pitfall="The weights are a modelling choice: report them.",
            params=(
                Param(
                    "decay",
                    str,
                    "log",
                    "weights of ranks: log 1/log2(i+1), reciprocal 1/i, geometric p^(i-1), or user",
                    ("log", "reciprocal", "geometric", "user"),
                ),
                Param("p", float, 0.9, "persistence of the geometric decay"),
                Param("weights", tuple, (), "user weights of ranks 1, 2, ..., separated by ;"),
            ),
        ),
    )
}

_ALIASES: dict[str, str] = {}
for _d in MEASURES.values():
    for _a in (_d.name, *_d.aliases):
        _ALIASES[_a.lower()] = _d.name

_PATTERN = re.compile(
    r"^\s*(?P<name>[A-Za-z][A-Za-z0-9_\-]*?)\s*(\((?P<params>[^)]*)\))?\s*"
    r"(?:(?:@|_|\.)(?P<k>\d+))?\s*$"
)


@dataclass(frozen=True)
class MeasureSpec:
    """A measure at a cutoff with parameters: what is computed and shown (``nDCG@10``)."""

    definition: MeasureDef
    k: int | None = None
    params: tuple[tuple[str, object], ...] = field(default=())

    @property
    def name(self) -> str:
        text = self.definition.name
        if self.params:
            text += "(" + ",".join(f"{k}={_show(v)}" for k, v in self.params) + ")"
        if self.k is not None:
            text += f"@{self.k}"
        return text

    def __str__(self) -> str:
        return self.name

    def kernel_args(self) -> dict[str, object]:
        return dict(self.params)

    def compute(self, lists: RankedLists) -> np.ndarray:
        """Per-query values, shape ``(n_queries,)``."""
        if self.k is None:
            return self.definition.kernel(lists, None, **self.kernel_args())
        return self.definition.kernel(lists, np.array([self.k]), **self.kernel_args())[:, 0]

    def curve(self, lists: RankedLists, ks: np.ndarray) -> np.ndarray:
        """Per-query values at every cutoff in ``ks``, shape ``(n_queries, len(ks))``."""
        if self.definition.cutoff == "none":
            raise MeasureError(f"{self.definition.name} has no cutoff, so it has no curve over K.")
        return self.definition.kernel(lists, np.asarray(ks, dtype=np.int64), **self.kernel_args())

    def at(self, k: int | None) -> MeasureSpec:
        return parse_measure(self.definition.name, k=k, params=self.params)

    @property
    def trec_eval_name(self) -> str | None:
        d = self.definition
        if self.params:
            return None
        if self.k is None:
            return d.trec_eval_full
        return d.trec_eval.format(k=self.k) if d.trec_eval else None


def _show(value: object) -> str:
    if isinstance(value, tuple):
        return ";".join(f"{v:g}" for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _convert(d: MeasureDef, key: str, raw: object) -> object:
    params = {p.name: p for p in d.params}
    if key not in params:
        known = ", ".join(params) or "none"
        raise MeasureError(f"{d.name} has no parameter '{key}' (parameters: {known}).")
    p = params[key]
    try:
        if p.kind is tuple:
            weights: tuple[float, ...] = (
                raw
                if isinstance(raw, tuple)
                else tuple(float(x) for x in str(raw).split(";") if x.strip())
            )
            if not weights or any(x < 0 for x in weights):
                raise ValueError
            value: object = weights
        else:
            value = p.kind(raw)
    except (TypeError, ValueError):
        raise MeasureError(
            f"{d.name}: parameter '{key}' must be a {p.kind.__name__}"
            f"{' of non-negative numbers separated by ;' if p.kind is tuple else ''}"
            f", got {raw!r}."
        ) from None
    if p.choices and value not in p.choices:
        raise MeasureError(f"{d.name}: {key} must be one of {', '.join(p.choices)}; got {raw!r}.")
    return value


def parse_measure(
    text: str,
    k: int | None = None,
    params: tuple[tuple[str, object], ...] | dict[str, object] | None = None,
    for_curve: bool = False,
) -> MeasureSpec:
    """Parse a measure name such as ``P@10``, ``ndcg_cut_10``, ``MRR`` or ``wP(decay=log)@5``.

    With ``for_curve=True`` the cutoff is dropped: the spec is read at every K of a curve.

    Raises
    ------
    MeasureError
        Unknown name, a cutoff where none is allowed, a missing required cutoff, or bad params.
    """
    match = _PATTERN.match(str(text))
    if not match:
        raise MeasureError(
            f"cannot read the measure name {text!r}; write it like P@10, nDCG@10, RR or AP."
        )
    raw_name = match["name"]
    key = raw_name.lower()
    if key not in _ALIASES and key.endswith("_cut"):
        key = key[: -len("_cut")]
    if key not in _ALIASES:
        known = ", ".join(MEASURES)
        raise MeasureError(f"unknown measure {raw_name!r}; known measures: {known}.")
    d = MEASURES[_ALIASES[key]]
    if match["k"] is not None:
        if k is not None:
            raise MeasureError(f"{text!r} already has a cutoff.")
        k = int(match["k"])
    if k is not None and k < 1:
        raise MeasureError(f"{d.name}: the cutoff must be a whole number ≥ 1, got {k}.")
    if d.cutoff == "none" and k is not None:
        raise MeasureError(f"{d.name} takes no cutoff; write {d.name}.")
    if for_curve and d.cutoff == "none":
        raise MeasureError(f"{d.name} has no cutoff, so it has no curve over K.")
    if for_curve:
        k = None
    elif d.cutoff == "required" and k is None:
        raise MeasureError(f"{d.name} needs a cutoff; write {d.name}@10, for example.")
    given: dict[str, object] = {}
    if isinstance(params, dict):
        given.update(params)
    elif params:
        given.update(dict(params))
    if match["params"]:
        for part in match["params"].split(","):
            if not part.strip():
                continue
            if "=" not in part:
                raise MeasureError(f"{d.name}: write parameters as name=value, got {part!r}.")
            name, value = (s.strip() for s in part.split("=", 1))
            given[name] = value
    converted = tuple(sorted((name, _convert(d, name, value)) for name, value in given.items()))
    defaults = {p.name: p.default for p in d.params}
    converted = tuple((n, v) for n, v in converted if defaults.get(n) != v)
    if dict(converted).get("decay", "") == "user" and "weights" not in dict(converted):
        raise MeasureError(
            f"{d.name}: decay=user needs weights, e.g. wP(decay=user,weights=3;2;1)@3."
        )
    return MeasureSpec(d, k, converted)


def parse_measures(names: list[str] | tuple[str, ...]) -> list[MeasureSpec]:
    """Parse several names, keeping order and dropping repeats."""
    seen: dict[str, MeasureSpec] = {}
    for text in names:
        spec = parse_measure(text)
        seen.setdefault(spec.name, spec)
    return list(seen.values())


def curve_measures() -> list[MeasureDef]:
    """Measures that have a value at every K (for menus of curves)."""
    return [d for d in MEASURES.values() if d.cutoff != "none"]


#: The default measures, one definition each, for every place that needs one:
#: what ``evaluate`` and ``python -m metrics`` compute without ``-m`` ...
DEFAULT_MEASURES: tuple[str, ...] = (
    "P@5",
    "P@10",
    "R@10",
    "R@100",
    "nDCG@10",
    "nDCG",
    "RR",
    "AP",
    "Rprec",
    "Success@10",
)
#: ... what ``python -m metrics compare`` compares without ``-m`` ...
DEFAULT_COMPARE_MEASURES: tuple[str, ...] = ("nDCG@10", "P@10", "RR", "AP")
#: ... and the curves the app draws first (names without a cutoff: drawn over every K; the
#: command line's ``--curves`` uses the measures flagged ``curve_default`` instead).
DEFAULT_CURVE_MEASURES: tuple[str, ...] = ("P", "R", "RR", "nDCG")
