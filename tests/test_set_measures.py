"""trec_eval's unranked set measures (set_P, set_recall, set_F, set_map, set_relative_P) are
accepted under trec_eval's names and equal trec_eval (pytrec_eval) per query."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metrics import Settings, evaluate
from metrics.engine.registry import parse_measure
from tests.oracles import require_oracle
from tests.strategies import collections, to_dicts

pytrec_eval = require_oracle("pytrec_eval")

OURS_TO_TREC = {
    "SetP": "set_P",
    "SetR": "set_recall",
    "SetF": "set_F",
    "SetAP": "set_map",
    "SetRelP": "set_relative_P",
}


def trec_eval_values(run, qrels, request, level=1, judged_only=False) -> dict:
    run_d, qrels_d = to_dicts(run, qrels[qrels["relevance"] >= 0])
    qrels_d = {q: docs for q, docs in qrels_d.items() if docs}
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels_d, request, relevance_level=level, judged_docs_only_flag=judged_only
    )
    return evaluator.evaluate(run_d)


def judged(run, qrels):
    keep = set(qrels.loc[qrels["relevance"] >= 0, "query"])
    return run[run["query"].isin(keep)], qrels[qrels["query"].isin(keep)]


@pytest.mark.parametrize(
    "trec_name, ours",
    [
        ("set_P", "SetP"),
        ("set_recall", "SetR"),
        ("set_F", "SetF"),
        ("set_map", "SetAP"),
        ("set_relative_P", "SetRelP"),
        ("set_F.0.5", "SetF@0.5"),
    ],
)
def test_trec_eval_set_measure_names_are_accepted(trec_name, ours):
    assert parse_measure(trec_name).name == ours


def test_set_measures_give_trec_eval_names_back():
    assert parse_measure("set_P").trec_eval_name == "set_P"
    assert parse_measure("SetF").trec_eval_name == "set_F"
    assert parse_measure("SetF@0.5").trec_eval_name is None


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), level=st.sampled_from([1, 2]), judged_only=st.booleans())
def test_set_measures_equal_trec_eval_per_query(data, level, judged_only):
    run, qrels = judged(*data)
    if run.empty:
        return
    expected = trec_eval_values(run, qrels, set(OURS_TO_TREC.values()), level, judged_only)
    ours = evaluate(
        run, qrels, list(OURS_TO_TREC), Settings(relevance_level=level, judged_only=judged_only)
    ).per_query
    assert sorted(ours["query"]) == sorted(expected)
    for row in ours.to_dict("records"):
        for name, trec_name in OURS_TO_TREC.items():
            want = expected[row["query"]][trec_name]
            assert row[name] == pytest.approx(want, abs=1e-9), (row["query"], name)


@hsettings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), beta=st.sampled_from([0.5, 2.0, 3.0]))
def test_set_f_with_a_beta_equals_trec_eval(data, beta):
    run, qrels = judged(*data)
    if run.empty:
        return
    expected = trec_eval_values(run, qrels, {f"set_F.{beta}"})
    ours = evaluate(run, qrels, [f"set_F.{beta}"]).per_query
    for row in ours.to_dict("records"):
        want = expected[row["query"]]["set_F"]
        assert row[f"SetF@{beta:g}"] == pytest.approx(want, abs=1e-9)


@hsettings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(tie_free=True), limit=st.integers(1, 5))
def test_set_precision_under_a_maximum_of_results_is_trec_eval_minus_m(data, limit):
    """pytrec_eval has no -M: it is given each list cut to its first ``limit`` by score."""
    run, qrels = judged(*data)
    if run.empty:
        return
    cut = (
        run.sort_values(["query", "score"], ascending=[True, False])
        .groupby("query", sort=False)
        .head(limit)
    )
    expected = trec_eval_values(cut, qrels, {"set_P", "set_recall"})
    ours = evaluate(run, qrels, ["set_P", "set_recall"], Settings(max_results=limit)).per_query
    for row in ours.to_dict("records"):
        assert row["SetP"] == pytest.approx(expected[row["query"]]["set_P"], abs=1e-9)
        assert row["SetR"] == pytest.approx(expected[row["query"]]["set_recall"], abs=1e-9)


def test_the_command_line_takes_trec_eval_set_names(tmp_path):
    import io

    from metrics.cli.evaluate import main

    qrels = tmp_path / "q.txt"
    qrels.write_text("q 0 a 1\nq 0 b 0\nq 0 c 1\n")
    run = tmp_path / "r.run"
    run.write_text("q Q0 a 1 3 r\nq Q0 b 2 2 r\nq Q0 x 3 1 r\n")
    out, err = io.StringIO(), io.StringIO()
    status = main(
        [str(qrels), str(run), "-m", "set_P", "-m", "set_recall", "-m", "set_F", "--names", "trec"],
        out,
        err,
    )
    assert status == 0, err.getvalue()
    lines = {
        name.strip(): value
        for name, _, value in (x.split("\t") for x in out.getvalue().splitlines())
    }
    assert lines == {"set_P": "0.3333", "set_recall": "0.5000", "set_F": "0.4000"}
