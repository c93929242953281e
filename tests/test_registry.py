"""Measure names: every spelling that parses, and every one that is refused with its message."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from metrics import InputError, MeasureError, evaluate, parse_measure, rank_run
from metrics.engine.registry import DEFAULT_MEASURES, MEASURES, curve_measures, parse_measures


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("P@10", "P@10"),
        ("P_10", "P@10"),
        ("p.10", "P@10"),
        ("precision@10", "P@10"),
        ("ndcg_cut_10", "nDCG@10"),
        ("NDCG@10", "nDCG@10"),
        ("ndcg", "nDCG"),
        ("MRR", "RR"),
        ("recip_rank", "RR"),
        ("map", "AP"),
        ("map_cut_5", "AP@5"),
        ("Rprec", "Rprec"),
        ("r-prec", "Rprec"),
        ("recall_100", "R@100"),
        ("success_1", "Success@1"),
        ("hit@3", "Success@3"),
        ("wP(decay=reciprocal)@5", "wP(decay=reciprocal)@5"),
        ("wP(decay=log)@5", "wP@5"),
    ],
)
def test_every_spelling_parses_to_its_canonical_name(text, canonical):
    assert parse_measure(text).name == canonical


@pytest.mark.parametrize(
    "name, trec_name",
    [
        ("P@10", "P_10"),
        ("nDCG@10", "ndcg_cut_10"),
        ("RR", "recip_rank"),
        ("AP", "map"),
        ("AP@10", "map_cut_10"),
        ("Rprec", "Rprec"),
        ("Success@10", "success_10"),
        ("R@10", "recall_10"),
        ("nDCG", "ndcg"),
        ("F1@10", None),
        ("wP@3", None),
    ],
)
def test_trec_eval_names_are_known_for_the_measures_trec_eval_has(name, trec_name):
    assert parse_measure(name).trec_eval_name == trec_name


def test_default_measures_all_parse_and_do_not_repeat():
    specs = parse_measures(list(DEFAULT_MEASURES))
    assert [s.name for s in specs] == list(DEFAULT_MEASURES)
    assert [s.name for s in parse_measures(["P@10", "P_10", "RR", "MRR"])] == ["P@10", "RR"]


def test_every_measure_declares_a_formula_a_description_and_a_pitfall():
    for d in MEASURES.values():
        assert d.latex and d.description.endswith(".") and d.pitfall, d.name
    assert "Rprec" not in [d.name for d in curve_measures()]


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "nDGC@10",
            "unknown measure 'nDGC'; known measures: P, R, F1, Success, RR, AP, CP, nDCG, DCG, "
            "Rprec, Judged, wP, Bpref, gmBpref, infAP, IPrec, IPrec11, gmAP, NumRet, NumRel, "
            "NumRelRet, SetP, SetR, SetF, SetAP, SetRelP, ERR, RBP, RBPResid, gP, cwP.",
        ),
        ("P@0", "P: the cutoff must be a whole number ≥ 1, got 0."),
        ("P@-1", "cannot read the measure name 'P@-1'; write it like P@10, nDCG@10, RR or AP."),
        ("P@ten", "cannot read the measure name 'P@ten'; write it like P@10, nDCG@10, RR or AP."),
        ("Rprec@5", "Rprec takes no cutoff; write Rprec."),
        ("P", "P needs a cutoff; write P@10, for example."),
        (
            "wP(decay=cubic)@3",
            "wP: decay must be one of log, reciprocal, geometric, user; got 'cubic'.",
        ),
        ("wP(decay=user)@3", "wP: decay=user needs weights, e.g. wP(decay=user,weights=3;2;1)@3."),
        ("wP(p=high)@3", "wP: parameter 'p' must be a float, got 'high'."),
        ("nDCG(foo=1)@3", "nDCG has no parameter 'foo' (parameters: none)."),
        ("wP(decay)@3", "wP: write parameters as name=value, got 'decay'."),
    ],
)
def test_bad_measure_names_are_refused_with_a_message_saying_how_to_write_them(text, message):
    with pytest.raises(MeasureError, match=f"^{re.escape(message)}$"):
        parse_measure(text)


def test_a_cutoff_given_twice_is_refused():
    with pytest.raises(MeasureError, match=re.escape("'P@5' already has a cutoff.")):
        parse_measure("P@5", k=10)


def test_measures_without_a_cutoff_have_no_curve():
    with pytest.raises(MeasureError, match=r"^Rprec has no cutoff, so it has no curve over K\.$"):
        parse_measure("Rprec", for_curve=True)


def test_evaluate_refuses_an_unknown_measure_before_reading_the_data():
    run = pd.DataFrame({"query": ["q"], "item": ["a"], "score": [1.0]})
    with pytest.raises(MeasureError, match=r"^unknown measure 'P10'"):
        evaluate(run, run.rename(columns={"score": "relevance"}), ["P10"])


def test_missing_columns_are_named_with_the_columns_that_exist():
    run = pd.DataFrame({"query": ["q"], "doc": ["a"], "score": [1.0]})
    qrels = pd.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    message = (
        "run, column 'item': there is no 'item' column (columns: query, doc, score). "
        "Fix: map one column to the item role."
    )
    with pytest.raises(InputError, match=f"^{re.escape(message)}$"):
        evaluate(run, qrels, ["P@1"])
    with pytest.raises(
        InputError,
        match=re.escape(
            "judgments, column 'relevance': there is no 'relevance' column (columns: query, item)"
        ),
    ):
        evaluate(qrels.rename(columns={"relevance": "score"}), qrels[["query", "item"]], ["P@1"])


def test_non_numeric_scores_are_refused_naming_the_column_and_value():
    run = pd.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "score": ["1.0", "high"]})
    qrels = pd.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    with pytest.raises(
        InputError,
        match=r"^column 'score': the score values are not all "
        r"numbers \(.*'high'\)\. Fix: make the score column "
        r"numeric\.$",
    ):
        evaluate(run, qrels, ["P@1"])


def test_curves_equal_single_cutoffs_for_every_curve_measure():
    run = pd.DataFrame({"query": ["q"] * 5, "item": list("abcde"), "score": [5, 4, 3, 2, 1]})
    qrels = pd.DataFrame({"query": ["q"] * 3, "item": ["b", "d", "z"], "relevance": [2, 1, 3]})
    lists = rank_run(run, qrels)["run"]
    for d in curve_measures():
        curve = parse_measure(d.name, for_curve=True).curve(lists, np.arange(1, 8))
        singles = [parse_measure(d.name, k=k).compute(lists)[0] for k in range(1, 8)]
        assert curve[0].tolist() == pytest.approx(singles), d.name


def test_the_documented_measures_table_is_generated_from_the_registry():
    from metrics.cli.docs_tables import MEASURES_DOC, main, measures_table

    text = MEASURES_DOC.read_text(encoding="utf-8")
    assert f"<!-- measures:start -->\n{measures_table()}\n<!-- measures:end -->" in text
    assert main(["--check"]) == 0


def test_every_public_kernel_carries_its_formula_in_its_docstring():
    import ast
    import inspect

    from metrics.engine import measures

    tree = ast.parse(inspect.getsource(measures))
    bare = [
        n.name
        for n in tree.body
        if isinstance(n, ast.FunctionDef)
        and not n.name.startswith("_")
        and not (ast.get_docstring(n) or "").strip()
    ]
    assert bare == []
