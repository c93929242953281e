"""bpref, infAP, interpolated precision, gm_map, counts, -J, -M, custom gains, ERR and RBP agree
with trec_eval (pytrec_eval), gdeval (ir_measures) and ranx per query, and with the hand-checked
fixture of trec_eval 9.0.8 and 10.0 outputs (measures-next reference, section 13).

pytrec_eval hangs after repeated evaluations with negative labels, so it is given the judgments
without them. That is what trec_eval makes of them for every measure checked here: a negative
label is never relevant, has no gain, is not counted in R or in bpref's N, is skipped by bpref
and removed by -J, exactly like an item absent from the judgments. Only infAP tells the two
apart (a negative label counts as pooled but unjudged); it is checked with negatives in a fresh
process.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metrics import Settings, evaluate
from metrics.engine.aggregation import mean_table
from metrics.engine.registry import parse_measure
from metrics.engine.settings import profile
from metrics.errors import MeasureError, SettingsError
from tests.oracles import require_oracle
from tests.strategies import collections, to_dicts

pytrec_eval = require_oracle("pytrec_eval")

LEVELS = [f"{p / 10:.2f}" for p in range(11)]
OURS_TO_TREC = {
    "Bpref": "bpref",
    "infAP": "infAP",
    "IPrec11": "11pt_avg",
    "NumRet": "num_ret",
    "NumRel": "num_rel",
    "NumRelRet": "num_rel_ret",
    "AP": "map",
    "nDCG": "ndcg",
    "P@5": "P_5",
    **{f"IPrec@{float(p):g}": f"iprec_at_recall_{p}" for p in LEVELS},
}
REQUEST = {
    "bpref",
    "infAP",
    "11pt_avg",
    "iprec_at_recall",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "ndcg",
    "P.5",
}


def without_negatives(qrels: pd.DataFrame) -> pd.DataFrame:
    return qrels[qrels["relevance"] >= 0]


def trec_eval_values(
    run: pd.DataFrame, qrels: pd.DataFrame, level: int = 1, judged_only: bool = False
) -> dict:
    run_d, qrels_d = to_dicts(run, without_negatives(qrels))
    qrels_d = {q: docs for q, docs in qrels_d.items() if docs}
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels_d, REQUEST, relevance_level=level, judged_docs_only_flag=judged_only
    )
    return evaluator.evaluate(run_d)


def assert_agree(ours: pd.DataFrame, expected: dict, names: dict[str, str]) -> None:
    for row in ours.to_dict("records"):
        trec = expected[row["query"]]
        for name, trec_name in names.items():
            assert row[name] == pytest.approx(trec[trec_name], abs=1e-9), (row["query"], name)


def judged_queries(run: pd.DataFrame, qrels: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Keep queries with at least one label >= 0 (pytrec_eval drops queries whose judgments
    are all negative once the negatives are removed)."""
    keep = set(qrels.loc[qrels["relevance"] >= 0, "query"])
    return run[run["query"].isin(keep)], qrels[qrels["query"].isin(keep)]


@hsettings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), level=st.sampled_from([1, 2]))
def test_bpref_iprec_11pt_counts_and_gm_map_equal_trec_eval_per_query(data, level):
    run, qrels = judged_queries(*data)
    if run.empty:
        return
    expected = trec_eval_values(run, qrels, level)
    names = [n for n in OURS_TO_TREC if n != "infAP"]
    ours = evaluate(run, qrels, [*names, "gmAP"], Settings(relevance_level=level)).per_query
    assert sorted(ours["query"]) == sorted(expected)
    assert_agree(ours, expected, {n: OURS_TO_TREC[n] for n in names})
    for row in ours.to_dict("records"):  # pytrec_eval gives gm_map as a log per query
        assert math.log(max(row["gmAP"], 1e-5)) == pytest.approx(
            expected[row["query"]]["gm_map"], abs=1e-9
        )


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), level=st.sampled_from([1, 2]))
def test_infap_equals_trec_eval_when_no_label_is_negative(data, level):
    run, qrels = judged_queries(*data)
    qrels = without_negatives(qrels)
    if run.empty:
        return
    expected = trec_eval_values(run, qrels, level)
    ours = evaluate(run, qrels, ["infAP"], Settings(relevance_level=level)).per_query
    assert_agree(ours, expected, {"infAP": "infAP"})


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections())
def test_judged_only_lists_equal_trec_eval_minus_j(data):
    run, qrels = judged_queries(*data)
    if run.empty:
        return
    expected = trec_eval_values(run, qrels, judged_only=True)
    names = {n: t for n, t in OURS_TO_TREC.items() if not n.startswith("IPrec")}
    ours = evaluate(run, qrels, list(names), Settings(judged_only=True)).per_query
    assert sorted(ours["query"]) == sorted(expected)
    assert_agree(ours, expected, names)


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(tie_free=True), limit=st.integers(1, 6), judged_only=st.booleans())
def test_maximum_results_equal_trec_eval_on_the_run_cut_to_its_first_n(data, limit, judged_only):
    """pytrec_eval has no -M: it is given each list cut to its first N by score (scores are
    distinct here, so the cut is unambiguous); -M applies before -J."""
    run, qrels = judged_queries(*data)
    if run.empty:
        return
    cut = (
        run.sort_values(["query", "score"], ascending=[True, False])
        .groupby("query", sort=False)
        .head(limit)
    )
    expected = trec_eval_values(cut, qrels, judged_only=judged_only)
    names = {n: t for n, t in OURS_TO_TREC.items() if not n.startswith("IPrec")}
    if not judged_only:  # infAP tells negative labels from absent ones (checked separately)
        del names["infAP"]
    settings = Settings(max_results=limit, judged_only=judged_only)
    ours = evaluate(run, qrels, list(names), settings).per_query
    assert_agree(ours, expected, names)


GAIN_MAPS = st.fixed_dictionaries(
    {0: st.integers(0, 2), 1: st.integers(0, 9), 2: st.integers(0, 20), 3: st.integers(0, 40)}
)


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), gains=GAIN_MAPS)
def test_custom_gains_equal_trec_eval_ndcg_on_relabelled_judgments(data, gains):
    """trec_eval's ndcg with pairs L=G equals ndcg on judgments relabelled L -> G (pytrec_eval
    aborts on pair parameters, so that is how ir_measures runs nDCG(gains=...))."""
    run, qrels = judged_queries(*data)
    if run.empty:
        return
    relabelled = without_negatives(qrels).assign(
        relevance=lambda t: t["relevance"].map(gains).astype(int)
    )
    expected = trec_eval_values(run, relabelled)
    gain_map = ",".join(f"{label}:{gain}" for label, gain in gains.items())
    ours = evaluate(run, qrels, ["nDCG"], Settings(gain_map=gain_map)).per_query
    assert_agree(ours, expected, {"nDCG": "ndcg"})


def test_infap_with_negative_labels_equals_trec_eval_in_a_fresh_process():
    rng = np.random.default_rng(7)
    cases = []
    for _ in range(12):
        items = [f"d{i}" for i in range(12)]
        run = {"q": {d: float(rng.integers(0, 5)) for d in items[: rng.integers(1, 12)]}}
        judged = rng.choice(items, size=rng.integers(1, 12), replace=False)
        qrels = {"q": {str(d): int(rng.choice([-1, -2, 0, 0, 1, 2])) for d in judged}}
        qrels["q"][items[-1]] = 1  # at least one label >= 0
        cases.append((run, qrels))
    code = textwrap.dedent("""
        import json, sys, pytrec_eval
        out = []
        for run, qrels in json.load(sys.stdin):
            evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"infAP", "bpref"})
            out.append(evaluator.evaluate(run))
        print(json.dumps(out))
    """)
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    for (run_d, qrels_d), expected in zip(cases, json.loads(done.stdout)):
        run = pd.DataFrame(
            [("q", d, s) for d, s in run_d["q"].items()], columns=["query", "item", "score"]
        )
        qrels = pd.DataFrame(
            [("q", d, r) for d, r in qrels_d["q"].items()], columns=["query", "item", "relevance"]
        )
        ours = evaluate(run, qrels, ["infAP", "Bpref"]).per_query
        assert ours.loc[0, "infAP"] == pytest.approx(expected["q"]["infAP"], abs=1e-9)
        assert ours.loc[0, "Bpref"] == pytest.approx(expected["q"]["bpref"], abs=1e-9)


# ---------------------------------------------------------------------- ERR and RBP
@st.composite
def numeric_collections(draw):
    """Collections with numeric query ids and labels 0..4 (what gdeval accepts)."""
    run, qrels = draw(collections(allow_unjudged_queries=False))
    ids = {q: str(i + 1) for i, q in enumerate(sorted(set(run["query"]) | set(qrels["query"])))}
    qrels = qrels.assign(query=qrels["query"].map(ids), relevance=qrels["relevance"].clip(0, 4))
    return run.assign(query=run["query"].map(ids)), qrels


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=numeric_collections())
def test_err_equals_gdeval_of_ir_measures_per_query(data):
    ir_measures = require_oracle("ir_measures")
    run, qrels = data
    run_d, qrels_d = to_dicts(run, qrels)
    wanted = [ir_measures.ERR @ 5, ir_measures.ERR @ 20]
    expected = {
        (m.query_id, str(m.measure)): m.value
        for m in ir_measures.gdeval.iter_calc(wanted, qrels_d, run_d)
    }
    ours = evaluate(run, qrels, ["ERR@5", "ERR@20"]).per_query
    for row in ours.to_dict("records"):
        for k in (5, 20):
            want = expected.get((row["query"], f"ERR@{k}"), 0.0)  # no positive label: 0
            assert row[f"ERR@{k}"] == pytest.approx(want, abs=5.0001e-6), (row["query"], k)


@hsettings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(max_queries=6, allow_unjudged_queries=False, tie_free=True))
def test_rbp_on_binary_labels_equals_ranx(data):
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    run, qrels = data
    qrels = qrels.assign(relevance=(qrels["relevance"] >= 1).astype(int))
    positive = set(qrels.loc[qrels["relevance"] > 0, "query"])
    run, qrels = run[run["query"].isin(positive)], qrels[qrels["query"].isin(positive)]
    if run.empty:
        return
    run_d, qrels_d = to_dicts(run, qrels)
    ranx_run = Run(run_d)
    ranx_evaluate(Qrels(qrels_d), ranx_run, "rbp.80")
    expected = ranx_run.scores["rbp.80"]
    ours = evaluate(run, qrels, ["RBP"]).per_query.set_index("query")["RBP"]
    assert sorted(ours.index) == sorted(expected)
    for q, value in expected.items():
        assert ours[q] == pytest.approx(value, abs=1e-9), q


# ---------------------------------------------------------------------- the worked fixture
FIXTURE_QRELS = pd.DataFrame(
    {
        "query": "1",
        "item": list("abcdefg"),
        "relevance": [2, 0, 1, -1, 0, 1, 3],
    }
)
FIXTURE_RUN = pd.DataFrame(
    {
        "query": "1",
        "item": list("axbdcyge"),
        "score": [0.9, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3],
    }
)


def fixture(names: list[str], settings: Settings | None = None) -> dict[str, float]:
    settings = settings or Settings()
    return evaluate(FIXTURE_RUN, FIXTURE_QRELS, names, settings).per_query.iloc[0].to_dict()


def test_worked_fixture_reproduces_trec_eval_9_and_10_and_the_oracles():
    got = fixture(
        [
            "AP",
            "Bpref",
            "infAP",
            "IPrec11",
            "nDCG",
            "nDCG@5",
            "RBP(p=0.9,gain=graded)",
            "RBP(gain=graded)",
            "RBPResid(p=0.9)",
            "ERR@5",
            "ERR@10",
            "Judged@5",
            "NumRet",
            "NumRel",
            "NumRelRet",
        ]
    )
    assert got["AP"] == pytest.approx((1 / 2 + 2 / 5 + 3 / 7) / 4)
    assert got["Bpref"] == pytest.approx(0.5)
    assert got["infAP"] == pytest.approx(0.380952, abs=1e-5)
    assert got["IPrec11"] == pytest.approx(0.331169, abs=1e-6)
    assert got["nDCG"] == pytest.approx(0.510100, abs=1e-6)
    assert got["nDCG@5"] == pytest.approx(0.317516, abs=1e-6)
    assert got["RBP(gain=graded,p=0.9)"] == pytest.approx(0.135014, abs=1e-6)
    assert got["RBP(gain=graded)"] == pytest.approx(0.186402, abs=1e-6)
    assert got["RBPResid(p=0.9)"] == pytest.approx(0.9**8 + 0.1 * (1 + 0.9**3 + 0.9**5))
    assert got["ERR@5"] == pytest.approx(0.10391, abs=5e-6)
    assert got["ERR@10"] == pytest.approx(0.15151, abs=5e-6)
    assert got["Judged@5"] == pytest.approx(1 - 0.4)  # trec_eval 10: unj_5 = 0.4
    assert (got["NumRet"], got["NumRel"], got["NumRelRet"]) == (8, 4, 3)


def test_interpolated_precision_levels_follow_trec_eval_9_or_10_rounding():
    names = [f"IPrec@{p / 10:g}" for p in range(11)]
    nine = [round(fixture(names)[n], 4) for n in names]
    ten = [round(fixture(names, profile("trec_eval10"))[n], 4) for n in names]
    assert nine == [0.5, 0.5, 0.5, 0.4286, 0.4286, 0.4286, 0.4286, 0.4286, 0, 0, 0]
    assert ten == [0.5, 0.5, 0.5, 0.5, 0.4286, 0.4286, 0.4286, 0.4286, 0.4286, 0, 0]
    assert fixture(["IPrec11"], profile("trec_eval10"))["IPrec11"] == pytest.approx(
        0.376623, abs=1e-6
    )


def test_custom_gains_on_the_fixture_equal_trec_eval_ndcg_pairs():
    got = fixture(["nDCG"], Settings(gain_map="1:3,2:9,3:20"))
    assert got["nDCG"] == pytest.approx(0.474373, abs=1e-6)


def test_judged_only_and_maximum_results_on_the_fixture():
    judged = fixture(["AP", "infAP", "NumRet", "Judged@5"], Settings(judged_only=True))
    assert judged["AP"] == pytest.approx(0.6042, abs=1e-4)
    assert judged["infAP"] == pytest.approx(0.6042, abs=1e-4)
    assert judged["NumRet"] == 5 and judged["Judged@5"] == 1.0
    cut = fixture(["AP", "Bpref", "NumRet", "NumRel"], Settings(max_results=3))
    assert (cut["AP"], cut["Bpref"], cut["NumRet"], cut["NumRel"]) == (0.125, 0.25, 3, 4)


def test_a_negative_label_is_unjudged_for_judged_at_k_but_judged_non_relevant_elsewhere():
    run = pd.DataFrame({"query": "q", "item": ["a", "b", "c", "d"], "score": [4, 3, 2, 1]})
    qrels = pd.DataFrame({"query": "q", "item": ["a", "b", "c"], "relevance": [-1, 1, 0]})
    got = evaluate(run, qrels, ["Judged@4", "P@2", "AP", "nDCG@2", "NumRel"]).per_query.iloc[0]
    assert got["Judged@4"] == 0.5  # b and c are judged; a (negative) and d (absent) are not
    assert got["P@2"] == 0.5 and got["AP"] == 0.5 and got["NumRel"] == 1
    assert got["nDCG@2"] == pytest.approx(1 / math.log2(3))


def test_rbp_residual_counts_unjudged_items_and_the_tail_past_the_depth():
    run = pd.DataFrame({"query": "q", "item": list("abcd"), "score": [4, 3, 2, 1]})
    qrels = pd.DataFrame({"query": "q", "item": ["a", "c"], "relevance": [1, 0]})
    got = evaluate(run, qrels, ["RBP@3", "RBPResid@3", "RBP", "RBPResid"]).per_query.iloc[0]
    p = 0.8
    assert got["RBP@3"] == pytest.approx(1 - p)
    assert got["RBPResid@3"] == pytest.approx((1 - p) * p + p**3)  # b unjudged, tail past 3
    assert got["RBPResid"] == pytest.approx((1 - p) * (p + p**3) + p**4)
    all_judged = evaluate(run, qrels.assign(item=["a", "b"]), ["RBPResid@2"]).per_query
    assert all_judged.loc[0, "RBPResid@2"] == pytest.approx(p**2)  # trec_eval 10 would say 0


def test_graded_precision_weights_relevant_items_by_their_label():
    run = pd.DataFrame({"query": "q", "item": list("abcde"), "score": [5, 4, 3, 2, 1]})
    qrels = pd.DataFrame({"query": "q", "item": list("abcde"), "relevance": [3, 0, 1, 2, 0]})
    got = evaluate(run, qrels, ["gP@5", "P@5", "gP@1"]).per_query.iloc[0]
    assert got["gP@5"] == pytest.approx((1 + 1 / 3 + 2 / 3) / 5)  # 0.4 against P@5 = 0.6
    assert got["P@5"] == pytest.approx(0.6) and got["gP@1"] == 1.0
    binary = evaluate(run, qrels.assign(relevance=[1, 0, 1, 1, 0]), ["gP@5", "P@5"]).per_query
    assert binary.loc[0, "gP@5"] == binary.loc[0, "P@5"]


def test_confidence_weighted_precision_weights_items_by_the_model_score():
    run = pd.DataFrame({"query": "q", "item": list("abcde"), "score": [0.9, 0.8, 0.6, 0.4, 0.3]})
    qrels = pd.DataFrame({"query": "q", "item": list("abcde"), "relevance": [1, 0, 1, 1, 0]})
    got = evaluate(run, qrels, ["cwP@5", "cwP@2"]).per_query.iloc[0]
    assert got["cwP@5"] == pytest.approx((0.9 + 0.6 + 0.4) / 3.0)
    assert got["cwP@2"] == pytest.approx(0.9 / 1.7)
    with pytest.raises(MeasureError, match="every score must be a number ≥ 0"):
        evaluate(run.assign(score=[1, 0, -1, -2, -3]), qrels, ["cwP@5"])


def test_counts_are_summed_and_gm_map_is_a_geometric_mean_floored_at_1e5():
    run = pd.DataFrame({"query": ["a", "a", "b"], "item": ["x", "y", "z"], "score": [2, 1, 1]})
    qrels = pd.DataFrame({"query": ["a", "b"], "item": ["y", "w"], "relevance": [1, 1]})
    means = mean_table(evaluate(run, qrels, ["NumRet", "NumRelRet", "gmAP", "AP"])).iloc[0]
    assert means["NumRet"] == 3 and means["NumRelRet"] == 1
    assert means["AP"] == pytest.approx(0.25)
    assert means["gmAP"] == pytest.approx(math.sqrt(0.5 * 1e-5))
    geometric = mean_table(evaluate(run, qrels, ["AP"], Settings(averaging="geometric")))
    assert geometric.iloc[0]["AP"] == pytest.approx(math.sqrt(0.5 * 1e-5))


def test_micro_averaging_pools_f1_from_pooled_precision_and_recall():
    run = pd.DataFrame({"query": ["a", "a", "b", "b"], "item": list("wxyz"), "score": [2, 1, 2, 1]})
    qrels = pd.DataFrame(
        {"query": ["a", "b", "b"], "item": ["w", "y", "q"], "relevance": [1, 1, 1]}
    )
    micro = mean_table(evaluate(run, qrels, ["F1@2"], Settings(averaging="micro"))).iloc[0]
    p, r = 2 / 4, 2 / 3
    assert micro["F1@2"] == pytest.approx(2 * p * r / (p + r))


def test_err_refuses_labels_above_its_maximum_grade_and_takes_another():
    run = pd.DataFrame({"query": "q", "item": ["a"], "score": [1.0]})
    qrels = pd.DataFrame({"query": "q", "item": ["a"], "relevance": [5]})
    with pytest.raises(MeasureError, match=r"write ERR\(gmax=5\)"):
        evaluate(run, qrels, ["ERR@1"])
    got = evaluate(run, qrels, ["ERR(gmax=5)@1"]).per_query.loc[0, "ERR(gmax=5)@1"]
    assert got == pytest.approx(31 / 32)


def test_err_takes_the_largest_maximum_grade_with_a_top_grade_stopping_almost_surely():
    run = pd.DataFrame({"query": "q", "item": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query": "q", "item": ["a", "b"], "relevance": [50, 1]})
    got = evaluate(run, qrels, ["ERR(gmax=50)@2"]).per_query.loc[0, "ERR(gmax=50)@2"]
    top = 1 - 2.0**-50
    assert got == pytest.approx(top + (1 - top) * (1 / 2.0**50) / 2, rel=1e-15)


@pytest.mark.parametrize(
    "text, message",
    [
        ("1:x", "gain_map: '1:x' is not label:gain"),
        ("-1:5", "gain_map: '-1:5' is not label:gain"),
        ("1:2,1:3", "gain_map: label 1 is given twice."),
    ],
)
def test_bad_gain_maps_are_refused_with_a_message(text, message):
    with pytest.raises(SettingsError, match=message.replace("(", r"\(")):
        Settings(gain_map=text)


def test_gains_less_than_one_apart_keep_their_order_in_the_ideal_list():
    """trec_eval compares gains as whole numbers and scores ndcg.1=0.5,2=0.7 as 0 everywhere;
    here the ideal list is sorted exactly."""
    run = pd.DataFrame({"query": "q", "item": ["a", "b"], "score": [2, 1]})
    qrels = pd.DataFrame({"query": "q", "item": ["a", "b"], "relevance": [2, 1]})
    got = evaluate(run, qrels, ["nDCG"], Settings(gain_map="1:0.5,2:0.7")).per_query
    assert got.loc[0, "nDCG"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    "text, canonical, trec_name",
    [
        ("iprec_at_recall_0.30", "IPrec@0.3", "iprec_at_recall_0.30"),
        ("IPrec@0.125", "IPrec@0.125", "iprec_at_recall_0.12"),
        ("11pt_avg", "IPrec11", "11pt_avg"),
        ("gm_map", "gmAP", "gm_map"),
        ("gm_bpref", "gmBpref", "gm_bpref"),
        ("bpref", "Bpref", "bpref"),
        ("infAP", "infAP", "infAP"),
        ("num_rel_ret", "NumRelRet", "num_rel_ret"),
        ("NumRet@10", "NumRet@10", None),
        ("ERR@10", "ERR@10", None),
        ("RBP(p=0.9)", "RBP(p=0.9)", None),
    ],
)
def test_new_measure_names_parse_and_carry_trec_eval_names(text, canonical, trec_name):
    spec = parse_measure(text)
    assert spec.name == canonical and spec.trec_eval_name == trec_name


@pytest.mark.parametrize(
    "text, message",
    [
        ("IPrec", "IPrec needs recall; write IPrec@0.5, for example."),
        ("IPrec@1.5", "IPrec: the recall level must be between 0 and 1, got 1.5."),
        ("RBP(p=1)", "RBP: p must be between 0 and 1 (exclusive), got 1."),
        ("P@0.5", "P: the cutoff must be a whole number ≥ 1, got 0.5."),
        ("Bpref@10", "Bpref takes no cutoff; write Bpref."),
        (
            "ERR(gmax=0)",
            "ERR: gmax must be a whole number from 1 to 50, got 0; write the largest label of "
            "the judgments' scale, e.g. ERR(gmax=3).",
        ),
        (
            "ERR(gmax=1024)@10",
            "ERR: gmax must be a whole number from 1 to 50, got 1024; write the largest label "
            "of the judgments' scale, e.g. ERR(gmax=3).",
        ),
    ],
)
def test_bad_new_measure_names_are_refused_with_a_message(text, message):
    with pytest.raises(MeasureError, match=f"^{message.replace('(', '[(]').replace(')', '[)]')}$"):
        parse_measure(text)


RATES = ["Bpref", "infAP", "IPrec@0.5", "IPrec11", "ERR@5", "RBP", "gP@3", "Judged@5"]


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), judged_only=st.booleans())
def test_rates_stay_within_0_and_1_and_rbp_plus_its_residual_never_exceeds_1(data, judged_only):
    run, qrels = data
    settings = Settings(judged_only=judged_only)
    table = evaluate(run, qrels, [*RATES, "RBPResid", "RBPResid@3", "NumRet"], settings)
    values = table.per_query
    for name in RATES:
        assert ((values[name] >= 0) & (values[name] <= 1 + 1e-12)).all(), name
    assert (values["RBP"] + values["RBPResid"] <= 1 + 1e-12).all()
    if judged_only:  # nothing unjudged is left: only the tail past the depth remains
        depth = np.minimum(values["NumRet"], 3)
        np.testing.assert_allclose(values["RBPResid@3"], 0.8**depth)
        assert (values["Judged@5"] * 5 == np.minimum(values["NumRet"], 5)).all()


def test_curves_of_the_new_measures_agree_with_single_cutoffs():
    from metrics import rank_run

    run = pd.DataFrame({"query": ["q"] * 5, "item": list("abcde"), "score": [5, 4, 3, 2, 1]})
    qrels = pd.DataFrame({"query": ["q"] * 4, "item": list("bdef"), "relevance": [1, 3, -1, 2]})
    lists = rank_run(run, qrels)["run"]
    for name in ["ERR", "RBP", "RBPResid", "gP", "cwP", "NumRet", "NumRelRet"]:
        curve = parse_measure(name, for_curve=True).curve(lists, np.arange(1, 8))
        for k in range(1, 8):
            single = parse_measure(name, k=k).compute(lists)[0]
            assert curve[0, k - 1] == pytest.approx(single), (name, k)


def test_err_under_a_custom_gain_map_reads_each_gain_as_2_to_the_grade_minus_1():
    run = pd.DataFrame({"query": "q", "item": list("abc"), "score": [3, 2, 1]})
    qrels = pd.DataFrame({"query": "q", "item": list("abc"), "relevance": [1, 0, 2]})
    default = evaluate(run, qrels, ["ERR@3"]).per_query.loc[0, "ERR@3"]
    same = evaluate(run, qrels, ["ERR@3"], Settings(gain_map="0:0,1:1,2:3")).per_query
    assert same.loc[0, "ERR@3"] == pytest.approx(default)
    custom = evaluate(run, qrels, ["ERR@3"], Settings(gain_map="1:8,2:16")).per_query
    assert custom.loc[0, "ERR@3"] == pytest.approx(0.5 + (1 - 0.5) * 1.0 / 3)
    with pytest.raises(MeasureError, match="every custom gain must lie between 0 and 16"):
        evaluate(run, qrels, ["ERR@3"], Settings(gain_map="2:17"))
