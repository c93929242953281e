"""Tool profiles: the conventions of the tools people compare our numbers with, as named bundles
of policies.

"Why does ranx say 0.61 and trec_eval 0.58?" Most such differences are definitional choices,
and every choice here is a named :class:`~metrics.engine.settings.Settings` policy. A
:class:`Profile` bundles the policies that reproduce one tool's convention (the policies it
leaves at their trec_eval default are trec_eval's), says which of our measures that tool has
under which name, and says what of the tool no policy reproduces (a known defect, a rule we do
not offer), so that a profile never guesses.

The facts come from the tools' sources and documentation (the ``source`` of each profile); the
tests check every installable tool per query on generated collections with ties, graded and
negative labels, short lists and missing queries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from metrics.engine.registry import at_cutoff, split_cutoff
from metrics.engine.settings import PROFILES as VERSIONS
from metrics.engine.settings import Settings
from metrics.engine.settings import profile as version_settings
from metrics.errors import SettingsError


@dataclass(frozen=True)
class Profile:
    """One tool's convention.

    Attributes
    ----------
    key:
        Short name (``ranx``), as the command line and the link take it.
    label:
        The tool and version family, for people (``ranx 0.3``).
    policies:
        The policies that differ from trec_eval's defaults (field -> value).
    names:
        Our measure at a cutoff (``nDCG@k``) or without one (``nDCG``) -> the tool's name
        (``ndcg_cut_{k}``, ``{k}`` for the cutoff); a measure missing here is not offered by
        the tool.
    limits:
        What of the tool no policy reproduces, in words; empty when the profile is exact for
        its measures.
    source:
        Where the facts come from.
    """

    key: str
    label: str
    policies: Mapping[str, object] = field(default_factory=dict)
    names: Mapping[str, str] = field(default_factory=dict)
    limits: tuple[str, ...] = ()
    source: str = ""

    def settings(self, base: Settings | None = None) -> Settings:
        """The settings of this profile: ``base`` (trec_eval's defaults when ``None``) with the
        profile's policies in force."""
        return (base or Settings()).with_(**dict(self.policies))

    def name_of(self, measure: str) -> str | None:
        """The tool's name for our measure column (``nDCG@10`` -> ``ndcg_cut_10``), ``None``
        when the tool lacks the measure."""
        base, cut = split_cutoff(measure)
        pattern = self.names.get(f"{base}@k" if cut else base)
        return None if pattern is None else pattern.format(k=cut)


_TREC_NAMES = {
    "P@k": "P_{k}",
    "R@k": "recall_{k}",
    "Success@k": "success_{k}",
    "RR": "recip_rank",
    "AP": "map",
    "AP@k": "map_cut_{k}",
    "nDCG": "ndcg",
    "nDCG@k": "ndcg_cut_{k}",
    "Rprec": "Rprec",
    "Bpref": "bpref",
}

#: What no policy reproduces of the learning-to-rank libraries: they know only labelled rows.
_OWN_ROWS = (
    "the ideal ordering comes from the labels of the query's own rows, and an item without a "
    "label does not exist there: give every ranked item a label and judge nothing else (a "
    "labelled table) to compare."
)
#: XGBoost's policies under both spellings of ndcg (``ndcg@k`` adds ``no_relevant = one``).
_XGBOOST = {"gain": "exponential", "ties": "input_order", "short_lists": "divide_by_returned"}
#: What no policy reproduces of XGBoost's ranking metrics (both spellings of ndcg).
_XGBOOST_LIMITS = (
    _OWN_ROWS,
    "ndcg_exp_gain=false is gain=linear here; with the exponential gain labels above 31 are "
    "refused there.",
    "map@k divides by min(R, K) where trec_eval divides by R, so AP@K is not offered; map@k "
    "and pre@k refuse graded labels.",
)
_XGBOOST_SOURCE = (
    "XGBoost's src/metric/rank_metric.cc (dmlc/xgboost): the gain 2^l − 1 (ndcg_exp_gain), "
    "the ideal DCG from the query's own labels, predictions in single precision with ties in "
    "the order of the rows, pre@k divided by min(K, n); checked against xgboost 3.2."
)
#: What no policy reproduces of the RAG tools' context precision.
_RAG_LIMITS = (
    "each retrieved chunk is relevant or not by an LLM's verdict there; here the judgments "
    "decide (an unjudged chunk is not relevant).",
    "the top K is the chunks passed in; CP without a cutoff reads the whole list.",
)

PROFILES: dict[str, Profile] = {
    p.key: p
    for p in (
        Profile(
            "trec_eval",
            "trec_eval 9 / 10",
            {},
            _TREC_NAMES,
            (),
            "trec_eval's sources (usnistgov/trec_eval): ties by document id descending, "
            "queries present in both files, -l 1.",
        ),
        Profile(
            "trec_eval_c",
            "trec_eval -c",
            {"missing_queries": "zero"},
            _TREC_NAMES,
            (),
            "trec_eval -c: judged queries missing from the run count as empty rankings.",
        ),
        Profile(
            "pytrec_eval",
            "pytrec_eval (trec_eval 9.0.8)",
            {},
            _TREC_NAMES,
            (),
            "pytrec_eval-terrier wraps trec_eval 9.0.8's C code: its conventions are trec_eval's.",
        ),
        Profile(
            "ranx",
            "ranx 0.3",
            {"ties": "input_order", "ndcg_relevance_level": True, "score_precision": "float64"},
            {
                "P@k": "precision@{k}",
                "R@k": "recall@{k}",
                "F1@k": "f1@{k}",
                "Success@k": "hit_rate@{k}",
                "RR": "mrr",
                "RR@k": "mrr@{k}",
                "AP": "map",
                "AP@k": "map@{k}",
                "nDCG": "ndcg",
                "nDCG@k": "ndcg@{k}",
                "DCG@k": "dcg@{k}",
                "Rprec": "r-precision",
                "Bpref": "bpref",
            },
            (
                "a document listed twice keeps its last line's score (here the best-ranked "
                "copy is kept); refuse such files to compare.",
                "queries missing from the run raise an error unless make_comparable=True, which "
                "scores them 0 (our missing_queries=zero).",
            ),
            "ranx's sources (AmenRa/ranx, metrics/*.py): ties by insertion order, labels below "
            "the relevance level have no gain in nDCG, scores as float64.",
        ),
        Profile(
            "ir_measures",
            "ir_measures 0.4 (pytrec_eval provider)",
            {"missing_queries": "zero"},
            {
                "P@k": "P@{k}",
                "R@k": "R@{k}",
                "Success@k": "Success@{k}",
                "RR": "RR",
                "AP": "AP",
                "AP@k": "AP@{k}",
                "nDCG": "nDCG",
                "nDCG@k": "nDCG@{k}",
                "Rprec": "Rprec",
                "Bpref": "Bpref",
            },
            (
                "RR@k comes from the msmarco provider, which breaks ties by document id "
                "ascending: no tie policy here does so (use RR without a cutoff, or a run "
                "without tied scores).",
            ),
            "ir_measures' documentation and providers (terrierteam/ir_measures): the "
            "pytrec_eval provider is trec_eval; queries missing from the run score 0.",
        ),
        Profile(
            "sklearn",
            "scikit-learn ndcg_score",
            {"ties": "input_order"},
            {"nDCG@k": "ndcg_score(k={k})", "DCG@k": "dcg_score(k={k})"},
            (
                "tied scores are averaged over their orderings (ignore_ties=False); here one "
                "tie policy orders them: runs without tied scores give the same numbers.",
                "the ideal ordering is built from the labels passed in (the retrieved items "
                "only), not from every judgment: judge exactly the retrieved items to compare.",
            ),
            "scikit-learn's sklearn/metrics/_ranking.py: linear gain, log2 discount.",
        ),
        Profile(
            "torchmetrics",
            "torchmetrics retrieval (adaptive_k=True, empty_target_action='skip')",
            {"short_lists": "divide_by_returned", "no_relevant": "leave_out"},
            {
                "P@k": "RetrievalPrecision(top_k={k})",
                "R@k": "RetrievalRecall(top_k={k})",
                "RR": "RetrievalMRR()",
                "AP": "RetrievalMAP()",
                "nDCG@k": "RetrievalNormalizedDCG(top_k={k})",
                "Success@k": "RetrievalHitRate(top_k={k})",
            },
            (
                "recall and nDCG see only the items passed in: relevant items that were not "
                "retrieved do not count (judge exactly the retrieved items to compare).",
                "empty_target_action='pos' (score 1) has no policy here; 'neg' is "
                "no_relevant=zero, 'skip' is leave_out.",
            ),
            "torchmetrics' documentation (Lightning-AI/torchmetrics, retrieval/*.py).",
        ),
        Profile(
            "evidently",
            "Evidently (recsys metrics)",
            {"short_lists": "divide_by_returned", "no_relevant": "leave_out"},
            {"P@k": "PrecisionTopKMetric(k={k})", "R@k": "RecallTopKMetric(k={k})"},
            (
                "tied scores get a floored average rank, so P@1 can exceed 1 (a known defect): "
                "runs without tied scores give the same numbers.",
            ),
            "Evidently's recsys metrics documentation (evidentlyai/evidently).",
        ),
        Profile(
            "recbole",
            "RecBole",
            {},
            {"P@k": "precision@{k}", "R@k": "recall@{k}", "nDCG@k": "ndcg@{k}", "RR@k": "mrr@{k}"},
            (
                "MAP@K divides by min(R, K), where trec_eval's map_cut divides by R: no policy "
                "here does so, so AP@K is not offered for RecBole.",
            ),
            "RecBole's evaluator (RUCAIBox/RecBole, recbole/evaluator/metrics.py).",
        ),
        Profile(
            "lightgbm",
            "LightGBM (metric ndcg, eval_at)",
            {
                "gain": "exponential",
                "ties": "input_order",
                "score_precision": "float64",
                "no_relevant": "one",
            },
            {"nDCG@k": "ndcg@{k}"},
            (
                _OWN_ROWS,
                "labels are whole numbers from 0 to 30 there; a label_gain other than 2^l − 1 "
                "is the gain_map policy here (0:0,1:1,2:3,3:7 is the default).",
                "map@k divides by min(R, K) where trec_eval divides by R: AP@K is not offered "
                "for LightGBM.",
            ),
            "LightGBM's src/metric/rank_metric.hpp and dcg_calculator.cpp (microsoft/LightGBM): "
            "label_gain 2^l − 1 by default, the ideal DCG from the query's own labels, a query "
            "whose labels are all 0 scores 1, ties in the stable order of the rows, scores in "
            "double precision; checked against lightgbm 4.7's eval_at.",
        ),
        Profile(
            "xgboost",
            "XGBoost (eval_metric ndcg@k)",
            {**_XGBOOST, "no_relevant": "one"},
            {"nDCG@k": "ndcg@{k}", "nDCG": "ndcg", "P@k": "pre@{k}"},
            _XGBOOST_LIMITS,
            _XGBOOST_SOURCE + " A query without relevant items scores 1 for ndcg.",
        ),
        Profile(
            "xgboost_minus",
            "XGBoost (eval_metric ndcg@k-)",
            _XGBOOST,
            {"nDCG@k": "ndcg@{k}-", "nDCG": "ndcg-", "P@k": "pre@{k}-"},
            _XGBOOST_LIMITS,
            _XGBOOST_SOURCE + " The metric name with a trailing '-' (ndcg@k-) scores a query "
            "without relevant items 0, as trec_eval.",
        ),
        Profile(
            "ragas",
            "ragas context precision",
            {"ties": "input_order", "score_precision": "float64"},
            {"CP": "context_precision", "CP@k": "context_precision (first {k} contexts)"},
            _RAG_LIMITS
            + (
                "versions that add 1e-10 to the denominator score a perfect ranking "
                "0.9999999999 (fixed in ragas PR #2930).",
            ),
            "ragas' context precision (explodinggradients/ragas): the sum of P@k at each "
            "relevant retrieved context over the relevant contexts retrieved, in the order the "
            "contexts were passed; 0 without one.",
        ),
        Profile(
            "deepeval",
            "DeepEval ContextualPrecisionMetric",
            {"ties": "input_order", "score_precision": "float64"},
            {
                "CP": "ContextualPrecisionMetric",
                "CP@k": "ContextualPrecisionMetric (first {k} nodes)",
            },
            _RAG_LIMITS + ("strict_mode makes every score below 1 a 0 there.",),
            "DeepEval's contextual precision (confident-ai/deepeval): the same sum over the "
            "relevant retrieval-context nodes retrieved, in the order passed; 0 without one.",
        ),
    )
}


def profile(key: str) -> Profile:
    """The profile named ``key``.

    Raises
    ------
    SettingsError
        For an unknown name, listing the known ones.
    """
    if key not in PROFILES:
        raise SettingsError(f"no tool profile {key!r}; profiles: {', '.join(PROFILES)}.")
    return PROFILES[key]


#: Every name ``--profile`` takes: the trec_eval versions, then the tools' conventions.
PROFILE_NAMES: tuple[str, ...] = (*VERSIONS, *PROFILES)


def profile_settings(name: str, **changes: Any) -> Settings:
    """The settings of a trec_eval version (``trec_eval10``) or of a tool's convention
    (``lightgbm``), with ``changes`` on top.

    Raises
    ------
    SettingsError
        For an unknown name, listing the known ones.
    """
    if name in VERSIONS:
        return version_settings(name, **changes)
    if name not in PROFILES:
        raise SettingsError(f"no profile {name!r}; profiles: {', '.join(PROFILE_NAMES)}.")
    return PROFILES[name].settings().with_(**changes)


def own_measures(keys: Sequence[str], measures: Sequence[str], k: int) -> list[str]:
    """``measures``, and the measures at cutoff ``k`` of each profile in ``keys`` that has none
    of them (ragas and DeepEval have context precision only), so that every tool is compared
    on a measure it has."""
    out = list(measures)
    for key in keys:
        tool = profile(key)
        if any(tool.name_of(m) for m in out):
            continue
        for name in tool.names:
            if name.endswith("@k"):
                shown = at_cutoff(name[: -len("@k")], k)
                out += [] if shown in out else [shown]
    return out


__all__ = ["PROFILES", "PROFILE_NAMES", "Profile", "own_measures", "profile", "profile_settings"]
