"""Every measure trec_eval has is checked per query against pytrec_eval (trec_eval's C code)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metrics import Settings, evaluate, rank_run
from metrics.engine.registry import parse_measure
from tests.oracles import require_oracle
from tests.strategies import collections, to_dicts

pytrec_eval = require_oracle("pytrec_eval")

CUTOFFS = (1, 2, 3, 5, 10, 20)
OURS_TO_TREC = {
    **{f"P@{k}": f"P_{k}" for k in CUTOFFS},
    **{f"R@{k}": f"recall_{k}" for k in CUTOFFS},
    **{f"nDCG@{k}": f"ndcg_cut_{k}" for k in CUTOFFS},
    **{f"AP@{k}": f"map_cut_{k}" for k in CUTOFFS},
    **{f"Success@{k}": f"success_{k}" for k in CUTOFFS},
    "nDCG": "ndcg",
    "RR": "recip_rank",
    "AP": "map",
    "Rprec": "Rprec",
}
TREC_REQUEST = {
    "P." + ",".join(map(str, CUTOFFS)),
    "recall." + ",".join(map(str, CUTOFFS)),
    "ndcg_cut." + ",".join(map(str, CUTOFFS)),
    "map_cut." + ",".join(map(str, CUTOFFS)),
    "success." + ",".join(map(str, CUTOFFS)),
    "ndcg",
    "recip_rank",
    "map",
    "Rprec",
}


def trec_eval_per_query(run: pd.DataFrame, qrels: pd.DataFrame, level: int = 1) -> dict:
    """pytrec_eval's per-query values.

    pytrec_eval corrupts its state after repeated evaluations with negative labels (it hangs a
    few calls later), so negatives are given to it as 0, which is what trec_eval makes of them
    (judged, not relevant, no gain); ``test_negative_labels_are_judged_non_relevant_in_trec_eval``
    checks that equivalence in a fresh process.
    """
    run_d, qrels_d = to_dicts(run, qrels)
    qrels_d = {q: {d: max(r, 0) for d, r in docs.items()} for q, docs in qrels_d.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_d, TREC_REQUEST, relevance_level=level)
    return evaluator.evaluate(run_d)


def assert_same_as_trec_eval(run: pd.DataFrame, qrels: pd.DataFrame, level: int) -> None:
    expected = trec_eval_per_query(run, qrels, level)
    f1 = [f"F1@{k}" for k in CUTOFFS]
    ours = evaluate(run, qrels, [*OURS_TO_TREC, *f1], Settings(relevance_level=level)).per_query
    assert sorted(ours["query"]) == sorted(expected), "evaluated queries differ"
    for row in ours.to_dict("records"):
        trec = expected[row["query"]]
        for k in CUTOFFS:  # trec_eval has no F1@K: the harmonic mean of its P_k and recall_k
            p, r = trec[f"P_{k}"], trec[f"recall_{k}"]
            want = 2 * p * r / (p + r) if p + r > 0 else 0.0
            assert row[f"F1@{k}"] == pytest.approx(want, abs=1e-9), (row["query"], k)
    for row in ours.itertuples(index=False):
        values = row._asdict()
        for name, trec_name in OURS_TO_TREC.items():
            got = getattr(row, row._fields[list(ours.columns).index(name)])
            want = expected[row.query][trec_name]
            assert got == pytest.approx(want, abs=1e-9), (row.query, name, got, want, values)


@pytest.mark.slow
@hsettings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), level=st.sampled_from([1, 1, 2]))
def test_every_measure_equals_trec_eval_per_query_on_generated_collections(data, level):
    run, qrels = data
    assert_same_as_trec_eval(run, qrels, level)


def test_ties_break_by_item_id_descending_like_trec_eval():
    run = pd.DataFrame({"query": ["q"] * 3, "item": ["d1", "d2", "d10"], "score": [1.0] * 3})
    qrels = pd.DataFrame({"query": ["q"], "item": ["d10"], "relevance": [1]})
    ours = evaluate(run, qrels, ["RR", "P@1"]).per_query
    # byte order descending: d2 > d10 > d1, so the relevant d10 is second
    assert ours.loc[0, "RR"] == 0.5
    assert ours.loc[0, "RR"] == trec_eval_per_query(run, qrels)["q"]["recip_rank"]


def test_input_order_tie_policy_keeps_row_order_among_equal_scores():
    run = pd.DataFrame({"query": ["q"] * 3, "item": ["d1", "d2", "d10"], "score": [1.0] * 3})
    qrels = pd.DataFrame({"query": ["q"], "item": ["d1"], "relevance": [1]})
    assert evaluate(run, qrels, ["RR"], Settings(ties="input_order")).per_query.loc[0, "RR"] == 1.0
    assert evaluate(run, qrels, ["RR"]).per_query.loc[0, "RR"] == pytest.approx(1 / 3)


def test_rank_tie_policy_uses_the_rank_column_and_ignores_scores():
    run = pd.DataFrame(
        {"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0], "rank": [3, 2, 1]}
    )
    qrels = pd.DataFrame({"query": ["q"], "item": ["c"], "relevance": [1]})
    assert evaluate(run, qrels, ["RR"], Settings(ties="rank")).per_query.loc[0, "RR"] == 1.0
    assert evaluate(run, qrels, ["RR"]).per_query.loc[0, "RR"] == pytest.approx(1 / 3)


def test_presorted_input_in_any_query_order_gives_the_same_values_as_shuffled_input():
    rng = np.random.default_rng(3)
    rows = []
    for q in ["q10", "q2", "q1"]:
        scores = np.sort(rng.random(30))[::-1]
        rows += [(q, f"d{i}", s) for i, s in enumerate(scores)]
    run = pd.DataFrame(rows, columns=["query", "item", "score"])
    qrels = pd.DataFrame(
        {
            "query": [r[0] for r in rows[::3]],
            "item": [r[1] for r in rows[::3]],
            "relevance": rng.integers(0, 3, len(rows[::3])),
        }
    )
    names = ["P@5", "nDCG@10", "AP", "RR"]
    a = evaluate(run, qrels, names).per_query
    b = evaluate(run.sample(frac=1, random_state=1), qrels, names).per_query
    pd.testing.assert_frame_equal(a, b)
    assert list(a["query"]) == ["q1", "q10", "q2"]


@pytest.mark.slow
@hsettings(max_examples=60, deadline=None)
@given(data=collections(allow_unjudged_queries=False))
def test_judged_queries_missing_from_the_run_score_zero_with_complete_policy(data):
    run, qrels = data
    extra = pd.DataFrame({"query": ["only-judged"], "item": ["x"], "relevance": [2]})
    qrels = pd.concat([qrels, extra], ignore_index=True)
    skip = evaluate(run, qrels, ["P@5", "AP", "nDCG@10"]).per_query
    zero = evaluate(
        run, qrels, ["P@5", "AP", "nDCG@10"], Settings(missing_queries="zero")
    ).per_query
    assert "only-judged" not in set(skip["query"])
    missing = zero[zero["query"] == "only-judged"]
    assert len(missing) == 1 and (missing[["P@5", "AP", "nDCG@10"]].to_numpy() == 0).all()
    assert len(zero) == len(skip) + 1


def test_queries_without_relevant_items_are_zero_by_default_and_can_be_left_out():
    run = pd.DataFrame({"query": ["a", "a", "b"], "item": ["x", "y", "z"], "score": [2, 1, 1]})
    qrels = pd.DataFrame({"query": ["a", "b"], "item": ["x", "z"], "relevance": [1, 0]})
    default = evaluate(run, qrels, ["P@1", "RR"]).per_query
    assert default.set_index("query").loc["b", "RR"] == 0
    left = rank_run(run, qrels, Settings(no_relevant="leave_out"))["run"]
    assert list(left.query_ids) == ["a"]
    assert left.notes.left_out_without_relevant == ("b",)


def test_relevance_level_does_not_change_ndcg_unless_asked():
    run = pd.DataFrame({"query": ["q"] * 2, "item": ["a", "b"], "score": [2, 1]})
    qrels = pd.DataFrame({"query": ["q"] * 2, "item": ["a", "b"], "relevance": [1, 2]})
    level2 = evaluate(run, qrels, ["nDCG@2", "P@1"], Settings(relevance_level=2)).per_query
    default = evaluate(run, qrels, ["nDCG@2", "P@1"]).per_query
    assert level2.loc[0, "nDCG@2"] == default.loc[0, "nDCG@2"]
    assert level2.loc[0, "P@1"] == 0 and default.loc[0, "P@1"] == 1
    filtered = evaluate(
        run, qrels, ["nDCG@2"], Settings(relevance_level=2, ndcg_relevance_level=True)
    ).per_query
    assert filtered.loc[0, "nDCG@2"] == pytest.approx(
        (2 / np.log2(3)) / 2
    )  # only b (rank 2) gains; ideal puts it first


def test_micro_kernels_and_curves_agree_with_single_cutoffs():
    run = pd.DataFrame({"query": ["q"] * 4, "item": list("abcd"), "score": [4, 3, 2, 1]})
    qrels = pd.DataFrame({"query": ["q"] * 2, "item": ["b", "d"], "relevance": [1, 3]})
    lists = rank_run(run, qrels)["run"]
    for name in ["P", "R", "nDCG", "AP", "RR", "Success", "F1", "DCG", "Judged", "wP"]:
        spec = parse_measure(name, for_curve=True)
        curve = spec.curve(lists, np.arange(1, 7))
        for k in range(1, 7):
            assert curve[0, k - 1] == pytest.approx(parse_measure(name, k=k).compute(lists)[0])


def test_negative_labels_are_judged_non_relevant_in_trec_eval():
    """One fresh pytrec_eval process with negative labels gives what labels of 0 give."""
    code = textwrap.dedent("""
        import json, sys, pytrec_eval
        qrels = {"q": {"a": -1, "b": 2, "c": -3, "d": 1}, "r": {"a": -1}}
        run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0, "e": 0.5}, "r": {"a": 1.0}}
        measures = {"P.1,3", "ndcg", "ndcg_cut.2", "map", "recip_rank", "Rprec", "recall.3"}
        print(json.dumps(pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)))
    """)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    expected = json.loads(out.stdout)
    run = pd.DataFrame(
        {
            "query": ["q"] * 5 + ["r"],
            "item": list("abcde") + ["a"],
            "score": [4.0, 3.0, 2.0, 1.0, 0.5, 1.0],
        }
    )
    qrels = pd.DataFrame(
        {"query": ["q"] * 4 + ["r"], "item": list("abcd") + ["a"], "relevance": [-1, 2, -3, 1, -1]}
    )
    names = {
        "P@1": "P_1",
        "P@3": "P_3",
        "nDCG": "ndcg",
        "nDCG@2": "ndcg_cut_2",
        "AP": "map",
        "RR": "recip_rank",
        "Rprec": "Rprec",
        "R@3": "recall_3",
    }
    ours = evaluate(run, qrels, list(names)).per_query.set_index("query")
    for q in ("q", "r"):
        for name, trec_name in names.items():
            assert ours.loc[q, name] == pytest.approx(expected[q][trec_name], abs=1e-12)
    assert ours.loc["q", "nDCG@2"] == pytest.approx((2 / np.log2(3)) / (2 + 1 / np.log2(3)))


def test_scores_equal_in_single_precision_tie_like_trec_eval():
    """trec_eval keeps scores as C floats: 1.0 and 1.0 + 1e-9 tie and break by item id."""
    run = pd.DataFrame({"query": ["q"] * 2, "item": ["a", "b"], "score": [1.0 + 1e-9, 1.0]})
    qrels = pd.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    trec = trec_eval_per_query(run, qrels)["q"]["recip_rank"]
    assert trec == 0.5  # b sorts first: a tie broken by item id descending
    assert evaluate(run, qrels, ["RR"]).per_query.loc[0, "RR"] == trec
    exact = evaluate(run, qrels, ["RR"], Settings(score_precision="float64")).per_query
    assert exact.loc[0, "RR"] == 1.0
