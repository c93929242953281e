"""The declarative measure registry.

Each measure is declared once: its name in ir_measures notation, aliases (trec_eval and common
spellings), whether it takes a cutoff, its parameters, a LaTeX formula and a one-line description.
Menus, help text, formulas and name parsing all come from :data:`MEASURES`.

Names parse as ``NAME``, ``NAME@K``, ``NAME(param=value,...)@K``, or the trec_eval spellings
``NAME_K`` / ``NAME.K`` (``P_10``, ``ndcg_cut_10``, ``map_cut.5``). Case is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from metrics.engine import measures as m
from metrics.engine.ranking import RankedLists
from metrics.errors import MeasureError

Kernel = Callable[..., np.ndarray]
#: ``pooled(lists, ks, rows)``: the value over the queries ``rows`` (all when ``None``) from
#: counts pooled over them, one per cutoff in ``ks``.
PooledKernel = Callable[[RankedLists, np.ndarray, "np.ndarray | None"], np.ndarray]
Aggregate = Literal["mean", "sum", "geometric"]


@dataclass(frozen=True)
class Param:
    """A measure parameter: name, type, default, allowed values (if a choice) and help."""

    name: str
    kind: type
    default: object
    help: str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
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
        Pooled kernel for micro averaging (counts summed over queries), or ``None``: the measure
        has no pooled form and micro averaging falls back to the mean of per-query values.
    trec_eval:
        trec_eval measure name with ``{k}`` for the cutoff, when trec_eval has it.
    trec_eval_full:
        trec_eval name without a cutoff (``map``), or with the parameters as ``{name}`` fields
        (``iprec_at_recall_{recall:.2f}``).
    pitfall:
        When the measure misleads.
    params:
        Parameters (``NAME(param=value)``).
    curve_default:
        Drawn by ``--curves`` and shown first in menus.
    aggregate:
        How per-query values become one number whatever the averaging policy: ``"mean"`` (the
        averaging policy decides), ``"sum"`` (counts, as trec_eval sums num_ret) or
        ``"geometric"`` (trec_eval's gm_map: exp of the mean log, values floored at 1e-5).
    ir_measures:
        ir_measures' name, with ``{k}`` and parameter fields, when it has the measure.
    cutoff_param:
        A parameter written after ``@`` instead of a cutoff (``IPrec@0.3``: recall 0.3).
    unit_interval:
        Every per-query value lies in [0, 1] (a share, a probability, a normalised gain);
        ``False`` for counts and DCG. Charts draw such a measure on a 0 to 1 axis.
    """

    name: str
    pretty: str
    cutoff: Literal["required", "optional", "none"]
    aliases: tuple[str, ...]
    latex: str
    description: str
    uses_relevance_level: bool
    kernel: Kernel
    micro: PooledKernel | None = None
    trec_eval: str | None = None
    trec_eval_full: str | None = None
    pitfall: str = ""
    params: tuple[Param, ...] = ()
    curve_default: bool = False
    aggregate: Aggregate = "mean"
    ir_measures: str | None = None
    cutoff_param: str | None = None
    unit_interval: bool = True


MEASURES: dict[str, MeasureDef] = {
    d.name: d
    for d in (
        MeasureDef(
            name="P",
            pretty="Precision",
            cutoff="required",
            aliases=("precision", "prec", "P"),
            latex=r"P@K = \frac{|\{\text{relevant in top } K\}|}{K}",
            description="Share of the top K results that are relevant.",
            uses_relevance_level=True,
            kernel=m.precision,
            micro=m.precision_pooled,
            trec_eval="P_{k}",
            ir_measures="P@{k}",
            pitfall="Ignores order inside the top K, and caps below 1 when fewer than K relevant "
            "items exist.",
            curve_default=True,
        ),
        MeasureDef(
            name="R",
            pretty="Recall",
            cutoff="required",
            aliases=("recall", "rec"),
            latex=r"R@K = \frac{|\{\text{relevant in top } K\}|}{|\{\text{relevant judged}\}|}",
            description="Share of all relevant items (retrieved or not) found in the top K.",
            uses_relevance_level=True,
            kernel=m.recall,
            micro=m.recall_pooled,
            trec_eval="recall_{k}",
            ir_measures="R@{k}",
            pitfall="Never falls as K grows; relevant items the candidate pool never contained cap "
            "it below 1.",
            curve_default=True,
        ),
        MeasureDef(
            name="F1",
            pretty="F1",
            cutoff="required",
            aliases=("f1", "f", "f-measure"),
            latex=r"F_1@K = \frac{2 \cdot P@K \cdot R@K}{P@K + R@K}",
            description="Harmonic mean of P@K and R@K (0 when both are 0).",
            uses_relevance_level=True,
            kernel=m.f1,
            micro=m.f1_pooled,
            pitfall="Mixes two questions into one number; report P and R beside it.",
        ),
        MeasureDef(
            name="Success",
            pretty="Success (hit rate)",
            cutoff="required",
            aliases=("success", "hit", "hits", "hitrate", "hit_rate"),
            latex=r"Success@K = \mathbb{1}[\exists\, i \le K: rel_i \ge L]",
            description="1 if at least one relevant item is in the top K, else 0.",
            uses_relevance_level=True,
            kernel=m.success,
            micro=m.success_pooled,
            trec_eval="success_{k}",
            ir_measures="Success@{k}",
            pitfall="Says nothing about how many relevant items were found or where.",
        ),
        MeasureDef(
            name="RR",
            pretty="Reciprocal rank",
            cutoff="optional",
            aliases=("mrr", "recip_rank", "reciprocal_rank", "rr"),
            latex=r"RR = \frac{1}{\operatorname{rank}_{\text{first relevant}}}",
            description="How early the first relevant item appears; averaged over queries it is "
            "MRR.",
            uses_relevance_level=True,
            kernel=m.reciprocal_rank,
            micro=None,
            trec_eval_full="recip_rank",
            pitfall="Only the first relevant item counts; later ones add nothing.",
            curve_default=False,
        ),
        MeasureDef(
            name="AP",
            pretty="Average precision",
            cutoff="optional",
            aliases=("map", "ap", "map_cut", "average_precision"),
            latex=r"AP@K = \frac{1}{|\{\text{relevant judged}\}|}\sum_{i \le K,\, rel_i \ge L} P@i",
            description="Mean of the precision at each relevant item's rank; averaged it is MAP.",
            uses_relevance_level=True,
            kernel=m.average_precision,
            micro=None,
            trec_eval="map_cut_{k}",
            trec_eval_full="map",
            pitfall="Divides by all relevant items, so AP@K stays low when many are judged "
            "relevant.",
            curve_default=True,
        ),
        MeasureDef(
            name="CP",
            pretty="Context precision",
            cutoff="optional",
            aliases=("cp", "context_precision", "contextual_precision"),
            latex=r"CP@K = \frac{1}{|\{i \le K: rel_i \ge L\}|}\sum_{i \le K,\, rel_i \ge L} P@i",
            description="AP over the relevant items retrieved in the top K (ragas' context "
            "precision, DeepEval's contextual precision): how high the retrieved relevant items "
            "rank.",
            uses_relevance_level=True,
            kernel=m.context_precision,
            micro=None,
            pitfall="Divides by the relevant items retrieved, not by all relevant items: missing "
            "a relevant item costs nothing, so it equals AP@K only when every relevant item is "
            "in the top K.",
        ),
        MeasureDef(
            name="nDCG",
            pretty="nDCG",
            cutoff="optional",
            aliases=("ndcg", "ndcg_cut", "n_dcg"),
            latex=r"nDCG@K = \frac{\sum_{i=1}^{K} g(rel_i)/\log_2(i+1)}{\sum_{i=1}^{K} g(rel^{*}_i)"
            r"/\log_2(i+1)}",
            description="Graded gain discounted by rank, relative to the best possible ordering.",
            uses_relevance_level=False,
            kernel=m.ndcg,
            micro=None,
            trec_eval="ndcg_cut_{k}",
            trec_eval_full="ndcg",
            pitfall="The ideal ordering uses every judged item of the query: unjudged items "
            "count as 0.",
            curve_default=True,
        ),
        MeasureDef(
            name="DCG",
            pretty="DCG",
            cutoff="optional",
            aliases=("dcg",),
            latex=r"DCG@K = \sum_{i=1}^{K} \frac{g(rel_i)}{\log_2(i+1)}",
            description="Graded gain discounted by rank, not normalised.",
            uses_relevance_level=False,
            kernel=m.dcg,
            micro=None,
            pitfall="Not comparable across queries with different numbers of relevant items.",
            unit_interval=False,
        ),
        MeasureDef(
            name="Rprec",
            pretty="R-precision",
            cutoff="none",
            aliases=("rprec", "r-prec", "r_prec", "rprecision"),
            latex=r"Rprec = P@R,\quad R = |\{\text{relevant judged}\}|",
            description="Precision at rank R, where R is the number of relevant items.",
            uses_relevance_level=True,
            kernel=m.r_precision,
            micro=None,
            trec_eval_full="Rprec",
            pitfall="The cutoff differs per query.",
        ),
        MeasureDef(
            name="Judged",
            pretty="Judged",
            cutoff="required",
            aliases=("judged", "judged_at"),
            latex=r"Judged@K = \frac{|\{i \le K: rel_i \ge 0\}|}{K}",
            description="Share of the top K that has a judgment (a negative label means in the "
            "pool but "
            "unjudged, as trec_eval): low values mean the other measures guess.",
            uses_relevance_level=False,
            kernel=m.judged,
            micro=None,
            pitfall="Unjudged items count as non-relevant everywhere else. It equals 1 − "
            "trec_eval 10's unj@K when the list has K items or more; ir_measures' Judged@K "
            "differs (it divides by min(K, n) and counts negative labels as judged).",
        ),
        MeasureDef(
            name="wP",
            pretty="Position-weighted precision",
            cutoff="required",
            aliases=("wp", "weighted_p", "weighted_precision"),
            latex=r"wP@K = \frac{\sum_{i=1}^{K} w_i \cdot \mathbb{1}[rel_i \ge L]}{\sum_{i=1}^{K} "
            r"w_i}",
            description="Precision where higher positions weigh more (weights by a decay or "
            "given).",
            uses_relevance_level=True,
            kernel=m.weighted_precision,
            micro=None,
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
        MeasureDef(
            name="Bpref",
            pretty="Binary preference",
            cutoff="none",
            aliases=("bpref",),
            latex=r"bpref = \frac{1}{R}\sum_{i:\, rel_i \ge L}\Bigl(1 - \frac{\min(n_i, R)}"
            r"{\min(N, R)}\Bigr)",
            description="How often relevant items are ranked above judged non-relevant ones, "
            "ignoring "
            "unjudged items; n_i judged non-relevant above item i, N of them in all.",
            uses_relevance_level=True,
            kernel=m.bpref,
            micro=None,
            trec_eval_full="bpref",
            ir_measures="Bpref",
            pitfall="Items without a judgment (or with a negative label) are skipped, so a run "
            "full of unjudged items can score high; ranx counts negative labels as judged.",
        ),
        MeasureDef(
            name="gmBpref",
            pretty="Bpref, geometric mean",
            cutoff="none",
            aliases=("gm_bpref", "gmbpref"),
            latex=r"gm\_bpref = \exp\Bigl(\frac{1}{Q}\sum_q \ln \max(bpref_q, 10^{-5})\Bigr)",
            description="Bpref per query, averaged geometrically: one poor query pulls the "
            "average down.",
            uses_relevance_level=True,
            kernel=m.bpref,
            micro=None,
            trec_eval_full="gm_bpref",
            pitfall="Per query it is bpref itself (pytrec_eval returns its logarithm); a query "
            "at 0 counts as 1e-5.",
            aggregate="geometric",
        ),
        MeasureDef(
            name="infAP",
            pretty="Inferred AP",
            cutoff="none",
            aliases=("infap", "inf_ap"),
            latex=r"infAP = \frac{1}{R}\sum_{k:\, rel_k \ge L}\Bigl(\frac{1}{k} + \frac{k-1}{k}"
            r"\cdot\frac{r+m+u}{k-1}\cdot\frac{r+\varepsilon}{r+m+2\varepsilon}\Bigr)",
            description="AP estimated from sampled judgments: pooled but unjudged items (negative "
            "labels) "
            "are assumed relevant as often as the judged items above them.",
            uses_relevance_level=True,
            kernel=m.infap,
            micro=None,
            trec_eval_full="infAP",
            ir_measures="infAP",
            pitfall="Only meaningful when the judgments are a random sample of the pool marked "
            "with negative labels; items not in the judgments count as non-relevant.",
        ),
        MeasureDef(
            name="IPrec",
            pretty="Interpolated precision at recall",
            cutoff="none",
            aliases=("iprec", "iprec_at_recall", "interpolated_precision"),
            latex=r"IPrec@p = \max_{k \ge k_p} P@k,\quad k_p = \text{rank of the } "
            r"\lceil pR \rceil\text{-th relevant item}",
            description="The best precision at or after the rank where the list reaches recall p: "
            "one point of the precision–recall curve.",
            uses_relevance_level=True,
            kernel=m.interpolated_precision,
            micro=None,
            trec_eval_full="iprec_at_recall_{recall:.2f}",
            ir_measures="IPrec@{recall:g}",
            pitfall="0 when the list never reaches recall p, and for an empty list (trec_eval "
            "prints NaN at recall 0 there); trec_eval 9 and 10 turn p into a number of relevant "
            "items differently (the recall-rounding policy).",
            params=(Param("recall", float, None, "recall level p between 0 and 1"),),
            cutoff_param="recall",
        ),
        MeasureDef(
            name="IPrec11",
            pretty="11-point interpolated average precision",
            cutoff="none",
            aliases=("11pt_avg", "11pt", "eleven_point"),
            latex=r"11pt = \frac{1}{11}\sum_{p \in \{0, 0.1, \dots, 1\}} IPrec@p",
            description="Mean interpolated precision at recall 0, 0.1, ..., 1: the area under the "
            "interpolated precision–recall curve.",
            uses_relevance_level=True,
            kernel=m.eleven_point_average,
            micro=None,
            trec_eval_full="11pt_avg",
            pitfall="Coarse: eleven levels, whatever the number of relevant items.",
        ),
        MeasureDef(
            name="gmAP",
            pretty="AP, geometric mean (GMAP)",
            cutoff="none",
            aliases=("gm_map", "gmap"),
            latex=r"GMAP = \exp\Bigl(\frac{1}{Q}\sum_q \ln \max(AP_q, 10^{-5})\Bigr)",
            description="AP per query, averaged geometrically: rewards improving the hardest "
            "queries.",
            uses_relevance_level=True,
            kernel=m.average_precision,
            micro=None,
            trec_eval_full="gm_map",
            pitfall="Per query it is AP itself (pytrec_eval returns its logarithm); a query "
            "with AP 0 counts as 1e-5 and dominates the average.",
            aggregate="geometric",
        ),
        MeasureDef(
            name="NumRet",
            pretty="Retrieved",
            cutoff="optional",
            aliases=("num_ret", "numret"),
            latex=r"NumRet@K = \min(K, n)",
            description="How many items were retrieved (in the top K); summed over queries.",
            uses_relevance_level=False,
            kernel=m.num_ret,
            micro=None,
            trec_eval_full="num_ret",
            ir_measures="NumRet",
            pitfall="A count, not a rate: the total grows with the number of queries.",
            aggregate="sum",
            unit_interval=False,
        ),
        MeasureDef(
            name="NumRel",
            pretty="Relevant judged",
            cutoff="none",
            aliases=("num_rel", "numrel"),
            latex=r"NumRel = R = |\{\text{judged with } rel \ge L\}|",
            description="How many judged items are relevant, retrieved or not; summed over "
            "queries.",
            uses_relevance_level=True,
            kernel=m.num_rel,
            micro=None,
            trec_eval_full="num_rel",
            ir_measures="NumRel",
            pitfall="Depends only on the judgments, not on the ranking.",
            aggregate="sum",
            unit_interval=False,
        ),
        MeasureDef(
            name="NumRelRet",
            pretty="Relevant retrieved",
            cutoff="optional",
            aliases=("num_rel_ret", "numrelret"),
            latex=r"NumRelRet@K = |\{i \le K: rel_i \ge L\}|",
            description="How many relevant items were retrieved (in the top K); summed over "
            "queries.",
            uses_relevance_level=True,
            kernel=m.num_rel_ret,
            micro=None,
            trec_eval_full="num_rel_ret",
            ir_measures="NumRelRet",
            pitfall="A count: compare it with NumRel (the relevant judged) to see how much was "
            "missed.",
            aggregate="sum",
            unit_interval=False,
        ),
        MeasureDef(
            name="SetP",
            pretty="Set precision",
            cutoff="none",
            aliases=("set_p", "setp", "set_precision"),
            latex=r"SetP = \frac{|\{\text{relevant retrieved}\}|}{n}",
            description="Share of everything retrieved that is relevant: precision over the "
            "whole list, however long.",
            uses_relevance_level=True,
            kernel=m.set_precision,
            micro=None,
            trec_eval_full="set_P",
            ir_measures="SetP",
            pitfall="Not P@K at a common K: lists of different lengths are compared as they "
            "are, and a short list is not filled with non-relevant items (only the maximum "
            "results per query, trec_eval -M, cuts long ones).",
        ),
        MeasureDef(
            name="SetR",
            pretty="Set recall",
            cutoff="none",
            aliases=("set_recall", "setr", "set_r"),
            latex=r"SetR = \frac{|\{\text{relevant retrieved}\}|}{R}",
            description="Share of all relevant items found anywhere in the list.",
            uses_relevance_level=True,
            kernel=m.set_recall,
            micro=None,
            trec_eval_full="set_recall",
            ir_measures="SetR",
            pitfall="A longer list can only raise it: read it with set precision (SetP).",
        ),
        MeasureDef(
            name="SetF",
            pretty="Set F",
            cutoff="none",
            aliases=("set_f", "setf"),
            latex=r"SetF = \frac{(\beta + 1)\,SetP \cdot SetR}{\beta\,SetP + SetR}",
            description="Harmonic mean of set precision and set recall (β weighs recall "
            "against precision, as trec_eval's set_F).",
            uses_relevance_level=True,
            kernel=m.set_f,
            micro=None,
            trec_eval_full="set_F",
            ir_measures="SetF",
            pitfall="trec_eval's β enters linearly, not as the β² of the usual F-beta; 0 when no "
            "relevant item was retrieved.",
            params=(Param("beta", float, 1.0, "weight of recall against precision"),),
            cutoff_param="beta",
        ),
        MeasureDef(
            name="SetAP",
            pretty="Set average precision",
            cutoff="none",
            aliases=("set_map", "setap", "set_ap"),
            latex=r"SetAP = SetP \cdot SetR",
            description="Unranked average precision: set precision times set recall.",
            uses_relevance_level=True,
            kernel=m.set_average_precision,
            micro=None,
            trec_eval_full="set_map",
            ir_measures="SetAP",
            pitfall="Ignores the order of the list entirely.",
        ),
        MeasureDef(
            name="SetRelP",
            pretty="Relative set precision",
            cutoff="none",
            aliases=("set_relative_p", "setrelp", "set_rel_p"),
            latex=r"SetRelP = \frac{|\{\text{relevant retrieved}\}|}{\min(n, R)}",
            description="Set precision against the best a list of that length could reach.",
            uses_relevance_level=True,
            kernel=m.set_relative_precision,
            micro=None,
            trec_eval_full="set_relative_P",
            ir_measures="SetRelP",
            pitfall="0 for a query without a relevant item, whatever the list.",
        ),
        MeasureDef(
            name="ERR",
            pretty="Expected reciprocal rank",
            cutoff="optional",
            aliases=("err",),
            latex=r"ERR@K = \sum_{r=1}^{K}\frac{1}{r}\,R_r\prod_{i<r}(1-R_i),\quad "
            r"R_i = \frac{2^{g_i}-1}{2^{g_{max}}}",
            description="Cascade model: the user stops at the first satisfying item, a top grade "
            "nearly "
            "always. The maximum grade defaults to 4, fixed as in gdeval and ir_measures, so "
            "values do not move when new judgments raise a collection's largest label; a "
            "custom gain map gives 2^g − 1 directly.",
            uses_relevance_level=False,
            kernel=m.err,
            micro=None,
            ir_measures="ERR@{k}",
            pitfall="With labels 0–1 and the default maximum grade 4, a relevant item stops the "
            "user only 1 time in 16: set gmax to the scale of the judgments.",
            params=(
                Param(
                    "gmax", int, 4, "the maximum grade g_max, 1 to 50 (labels above it are refused)"
                ),
            ),
        ),
        MeasureDef(
            name="RBP",
            pretty="Rank-biased precision",
            cutoff="optional",
            aliases=("rbp", "rank_biased_precision"),
            latex=r"RBP = (1-p)\sum_{i=1}^{d} r_i\, p^{i-1}",
            description="Expected relevance per item seen by a user who goes on to the next item "
            "with "
            "probability p (Moffat & Zobel 2008).",
            uses_relevance_level=True,
            kernel=m.rbp,
            micro=None,
            ir_measures="RBP(p={p:g})",
            pitfall="Unjudged items count as non-relevant: read it with its residual (RBPResid), "
            "the most it could still gain.",
            params=(
                Param(
                    "p", float, 0.8, "persistence (ir_measures' default 0.8; trec_eval 10 uses 0.9)"
                ),
                Param(
                    "gain",
                    str,
                    "binary",
                    "binary r = 1 at or above the relevance level, or graded r = label / the "
                    "query's largest label (trec_eval 10)",
                    ("binary", "graded"),
                ),
            ),
        ),
        MeasureDef(
            name="RBPResid",
            pretty="RBP residual",
            cutoff="optional",
            aliases=("rbp_resid", "rbpresid", "rbp_residual"),
            latex=r"resid = (1-p)\sum_{i \le d,\ i \text{ unjudged}} p^{i-1} + p^{d}",
            description="How much RBP could still rise if every unjudged item, and everything "
            "past the "
            "depth d, were relevant: the true value lies in [RBP, RBP + resid].",
            uses_relevance_level=False,
            kernel=m.rbp_residual,
            micro=None,
            pitfall="trec_eval 10 reports 0 when no retrieved item is unjudged, dropping the "
            "p^d tail; here the published definition is followed.",
            params=(Param("p", float, 0.8, "persistence, as RBP's"),),
        ),
        MeasureDef(
            name="gP",
            pretty="Graded precision",
            cutoff="required",
            aliases=("gp", "graded_p", "graded_precision"),
            latex=r"gP@K = \frac{1}{K}\sum_{i \le K,\ rel_i \ge L}\frac{rel_i}{rel_{max}}",
            description="Precision where each relevant item counts by its label strength (label "
            "over the "
            "query's largest label); with binary labels it is P@K.",
            uses_relevance_level=True,
            kernel=m.graded_precision,
            micro=None,
            pitfall="Depends on the label scale of each query: a query judged only up to 1 "
            "gives its relevant items full weight.",
        ),
        MeasureDef(
            name="cwP",
            pretty="Confidence-weighted precision",
            cutoff="required",
            aliases=("cwp", "confidence_p", "confidence_weighted_precision"),
            latex=r"cwP@K = \frac{\sum_{i \le K} s_i\,\mathbb{1}[rel_i \ge L]}{\sum_{i \le K} s_i}",
            description="Precision where each item counts by the model's score (a confidence): "
            "confident "
            "mistakes cost more than hesitant ones.",
            uses_relevance_level=True,
            kernel=m.confidence_precision,
            micro=None,
            pitfall="Needs scores that are confidences (numbers ≥ 0, such as probabilities); "
            "rescaling the scores changes it.",
        ),
    )
}

#: Largest maximum grade of ERR: a grade g stops the user with probability (2^g − 1)/2^gmax,
#: which double precision holds exactly only up to gmax = 53 (from 54 on, a top grade's
#: 1 − 2^−gmax rounds to 1, and from 1024 on 2^gmax overflows).
MAX_ERR_GMAX = 50

_ALIASES: dict[str, str] = {}
for _d in MEASURES.values():
    for _a in (_d.name, *_d.aliases):
        _ALIASES[_a.lower()] = _d.name

_PATTERN = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9_\-]*?)\s*(\((?P<params>[^)]*)\))?\s*"
    r"(?:(?:@|_|\.)(?P<k>\d+(?:\.\d+)?|\.\d+))?\s*$"
)
_RANGE = re.compile(r"^(?P<head>.+?[@._])(?P<ks>\d+(?:\.\.\d+|(?:,\d+)+))$")


@dataclass(frozen=True)
class MeasureSpec:
    """A measure at a cutoff with parameters: what is computed and shown (``nDCG@10``)."""

    definition: MeasureDef
    k: int | None = None
    params: tuple[tuple[str, object], ...] = field(default=())

    @property
    def name(self) -> str:
        text = self.definition.name
        at = self.definition.cutoff_param
        shown = [(k, v) for k, v in self.params if k != at]
        if shown:
            text += "(" + ",".join(f"{k}={_show(v)}" for k, v in shown) + ")"
        if at is not None and at in dict(self.params):
            text = at_cutoff(text, _show(dict(self.params)[at]))
        if self.k is not None:
            text = at_cutoff(text, self.k)
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
        if d.cutoff_param is not None and self.k is None and d.trec_eval_full:
            if self.params and "{" not in d.trec_eval_full:
                return None  # the name holds no parameter: trec_eval's default only
            return d.trec_eval_full.format(**dict(self.params))
        if self.params:
            return None
        if self.k is None:
            return d.trec_eval_full
        return d.trec_eval.format(k=self.k) if d.trec_eval else None

    @property
    def aggregate(self) -> str:
        """``"mean"``, ``"sum"`` or ``"geometric"`` (see :class:`MeasureDef`)."""
        return self.definition.aggregate


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


def _lookup(text: str) -> tuple[MeasureDef, re.Match[str]]:
    """The measure a name refers to, and the parts of the name."""
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
    return MEASURES[_ALIASES[key]], match


def _cutoff(
    d: MeasureDef, text: str, written: str | None, k: int | None, for_curve: bool
) -> tuple[int | None, dict[str, object]]:
    """The cutoff (checked against the measure's kind), or the parameter written after @."""
    if written is not None and d.cutoff_param is not None:
        return k, {d.cutoff_param: written}
    if written is not None:
        if k is not None:
            raise MeasureError(f"{text!r} already has a cutoff.")
        if not written.isdigit():
            raise MeasureError(f"{d.name}: the cutoff must be a whole number ≥ 1, got {written}.")
        k = int(written)
    if k is not None and k < 1:
        raise MeasureError(f"{d.name}: the cutoff must be a whole number ≥ 1, got {k}.")
    if d.cutoff == "none" and k is not None:
        raise MeasureError(f"{d.name} takes no cutoff; write {d.name}.")
    if for_curve and d.cutoff == "none":
        raise MeasureError(f"{d.name} has no cutoff, so it has no curve over K.")
    if for_curve:
        return None, {}
    if d.cutoff == "required" and k is None:
        raise MeasureError(f"{d.name} needs a cutoff; write {d.name}@10, for example.")
    return k, {}


def _given_params(
    d: MeasureDef,
    written: str | None,
    params: tuple[tuple[str, object], ...] | dict[str, object] | None,
) -> dict[str, object]:
    """Parameters passed as an argument, then those written in the name (which win)."""
    given: dict[str, object] = dict(params or {})
    for part in (written or "").split(","):
        if not part.strip():
            continue
        if "=" not in part:
            raise MeasureError(f"{d.name}: write parameters as name=value, got {part!r}.")
        name, value = (s.strip() for s in part.split("=", 1))
        given[name] = value
    return given


def _checked_params(d: MeasureDef, given: dict[str, object]) -> tuple[tuple[str, object], ...]:
    """Converted parameters, defaults left out, with the checks that involve several of them."""
    converted = tuple(sorted((name, _convert(d, name, value)) for name, value in given.items()))
    defaults = {p.name: p.default for p in d.params}
    converted = tuple((n, v) for n, v in converted if defaults.get(n) != v)
    values = dict(converted)
    if values.get("decay", "") == "user" and "weights" not in values:
        raise MeasureError(
            f"{d.name}: decay=user needs weights, e.g. wP(decay=user,weights=3;2;1)@3."
        )
    missing = [p.name for p in d.params if p.default is None and p.name not in values]
    if missing:
        raise MeasureError(
            f"{d.name} needs {missing[0]}; write {d.name}@0.5, for example."
            if missing[0] == d.cutoff_param
            else f"{d.name} needs the parameter {missing[0]}."
        )
    recall, persistence, gmax = values.get("recall"), values.get("p"), values.get("gmax")
    if isinstance(recall, float) and not 0.0 <= recall <= 1.0:
        raise MeasureError(f"{d.name}: the recall level must be between 0 and 1, got {recall:g}.")
    if isinstance(persistence, float) and not 0.0 < persistence < 1.0:
        raise MeasureError(f"{d.name}: p must be between 0 and 1 (exclusive), got {persistence:g}.")
    if isinstance(gmax, int) and not 1 <= gmax <= MAX_ERR_GMAX:
        raise MeasureError(
            f"{d.name}: gmax must be a whole number from 1 to {MAX_ERR_GMAX}, got {gmax}; "
            "write the largest label of the judgments' scale, e.g. ERR(gmax=3)."
        )
    return converted


def at_cutoff(name: str, k: object) -> str:
    """The one spelling of a measure at a cutoff: ``nDCG`` at 10 → ``nDCG@10`` (ir_measures'
    notation, and the column names of every table and export)."""
    return f"{name}@{k}"


def split_cutoff(name: str) -> tuple[str, str]:
    """A name written by :func:`at_cutoff` read back: its measure and what follows ``@``
    (``""`` without one). The one reading of ``name@k`` for column names and tools' names.

    >>> split_cutoff("nDCG@10"), split_cutoff("RR"), split_cutoff("IPrec@0.3")
    (('nDCG', '10'), ('RR', ''), ('IPrec', '0.3'))
    """
    base, _, cut = name.partition("@")
    return base, cut


def cutoff_of(name: str) -> int | None:
    """The cutoff of a column name (``nDCG@10`` → 10); ``None`` without one, or for a
    parameter written after ``@`` (``IPrec@0.3``).

    >>> cutoff_of("P@5"), cutoff_of("AP"), cutoff_of("IPrec@0.3")
    (5, None, None)
    """
    cut = split_cutoff(name)[1]
    return int(cut) if cut.isdigit() else None


def cutoff_name(measure: str, k: int) -> str:
    """The canonical name of ``measure`` (any accepted spelling) at cutoff ``k``:
    ``ndcg_cut`` at 10 → ``nDCG@10``."""
    return parse_measure(measure, k=k).name


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
    d, match = _lookup(text)
    k, from_cutoff = _cutoff(d, text, match["k"], k, for_curve)
    given = _given_params(d, match["params"], params)
    given.update(from_cutoff)
    return MeasureSpec(d, k, _checked_params(d, given))


#: Largest K that a cutoff range such as ``P@1..1000`` may reach (bounded, so that a typo
#: cannot ask for millions of measures).
MAX_RANGE_K = 1000


def expand_measure_names(names: list[str] | tuple[str, ...]) -> list[str]:
    """Expand cutoff ranges and lists: ``P@1..3`` -> P@1, P@2, P@3; ``P.5,10`` -> P.5, P.10.

    Raises
    ------
    MeasureError
        For an empty or reversed range.
    """
    out: list[str] = []
    for name in names:
        match = _RANGE.match(str(name).strip())
        if match is None:
            out.append(name)
            continue
        head, ks = match["head"], match["ks"]
        if ".." in ks:
            low, high = (int(x) for x in ks.split(".."))
            if low < 1 or high < low:
                raise MeasureError(
                    f"{name!r}: a cutoff range runs from 1 or more upwards, like P@1..100."
                )
            if high > MAX_RANGE_K:
                raise MeasureError(
                    f"{name!r}: a cutoff range ends at K = {MAX_RANGE_K:,} at most "
                    f"(asked for {high:,})."
                )
            cutoffs: range | list[int] = range(low, high + 1)
        else:
            cutoffs = [int(x) for x in ks.split(",")]
        out += [f"{head}{k}" for k in cutoffs]
    return out


def parse_measures(names: list[str] | tuple[str, ...]) -> list[MeasureSpec]:
    """Parse several names (with ranges such as ``P@1..20`` or ``P.5,10``), keeping order and
    dropping repeats."""
    seen: dict[str, MeasureSpec] = {}
    for text in expand_measure_names(names):
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
#: ... what the review compares by default, in the app (Compare, Segments, Report) and in
#: ``python -m metrics compare`` alike: these measures at this K ...
DEFAULT_REVIEW_MEASURES: tuple[str, ...] = ("P", "R", "RR", "nDCG")
DEFAULT_REVIEW_K = 10
#: ... the measure a review decides on when the user chose none and the review computes it ...
DEFAULT_LEAD_MEASURE = "nDCG@10"
DEFAULT_COMPARE_MEASURES: tuple[str, ...] = tuple(
    f"{name}@{DEFAULT_REVIEW_K}" for name in DEFAULT_REVIEW_MEASURES
)
#: ... and the curves the app draws first (names without a cutoff: drawn over every K; the
#: command line's ``--curves`` uses the measures flagged ``curve_default`` instead).
DEFAULT_CURVE_MEASURES: tuple[str, ...] = ("P", "R", "RR", "nDCG")


def deepest_cutoff(specs: Iterable[MeasureSpec]) -> int:
    """The largest cutoff of ``specs``, :data:`DEFAULT_REVIEW_K` when none has one (RR, AP or
    nDCG over whole lists): how deep the lists are read, noted and compared.

    >>> deepest_cutoff(parse_measures(["P@5", "nDCG@20", "RR"])), deepest_cutoff([])
    (20, 10)
    """
    return max((s.k for s in specs if s.k is not None), default=DEFAULT_REVIEW_K)


def lead_measure(measures: Sequence[str], chosen: str | None = None) -> str:
    """The measure a review decides on: ``chosen`` when it is among ``measures``, else
    :data:`DEFAULT_LEAD_MEASURE` when computed, else the first measure (``""`` without any).
    The headline, the report's first chart and the Segments page all follow it.

    >>> lead_measure(["P@10", "nDCG@10"])
    'nDCG@10'
    >>> lead_measure(["P@10", "RR"]), lead_measure(["P@10", "RR"], "RR")
    ('P@10', 'RR')
    """
    if chosen and chosen in measures:
        return chosen
    if DEFAULT_LEAD_MEASURE in measures:
        return DEFAULT_LEAD_MEASURE
    return measures[0] if measures else ""
