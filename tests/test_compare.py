"""Comparison tables, delta curves and per-query deltas built from an evaluation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from metrics import evaluate
from metrics.io.samples import load_sample
from metrics.review.compare import (
    CompareOptions,
    biggest_movers,
    comparison_table,
    delta_curves,
    format_p,
    headline,
    model_values,
    query_deltas,
)
from metrics.review.statistics import adjust_pvalues, compare_values

FAST = CompareOptions(resamples=2_000)


@pytest.fixture(scope="module")
def web():
    data = load_sample("web_search")
    return data, evaluate(data.run, data.qrels, ["nDCG@10", "P@10", "RR"])


def toy_evaluation():
    run = pd.DataFrame(
        {
            "query": ["q1"] * 3 + ["q2"] * 3 + ["q1"] * 3 + ["q2"] * 3,
            "item": ["a", "b", "c"] * 4,
            "score": [3, 2, 1, 3, 2, 1, 1, 2, 3, 1, 2, 3],
            "model": ["base"] * 6 + ["cand"] * 6,
        }
    )
    qrels = pd.DataFrame({"query": ["q1", "q2"], "item": ["c", "a"], "relevance": [1, 1]})
    return evaluate(run, qrels, ["RR", "P@1"])


def test_toy_table_has_the_hand_computed_means_and_delta():
    # base ranks c third on q1 (RR 1/3) and a first on q2 (RR 1); cand reverses both.
    table = comparison_table(toy_evaluation(), "base", options=FAST)
    rr = table[table["measure"] == "RR"].iloc[0]
    assert (rr["candidate"], rr["n"]) == ("cand", 2)
    assert rr["mean_a"] == pytest.approx((1 / 3 + 1) / 2)
    assert rr["mean_b"] == pytest.approx((1 + 1 / 3) / 2)
    assert rr["delta"] == pytest.approx(0.0)
    assert (rr["wins"], rr["ties"], rr["losses"]) == (1, 0, 1)
    assert rr["direction"] == "unclear"


def test_table_rows_equal_the_statistics_of_each_pair(web):
    _, ev = web
    table = comparison_table(ev, "lexical", ["hybrid"], ["nDCG@10"], options=FAST)
    row = table.iloc[0]
    expected = compare_values(
        model_values(ev, "lexical", "nDCG@10"),
        model_values(ev, "hybrid", "nDCG@10"),
        resamples=2_000,
    )
    for name in (
        "n",
        "mean_a",
        "mean_b",
        "delta",
        "ci_low",
        "ci_high",
        "p_randomization",
        "p_ttest",
        "p_wilcoxon",
        "wins",
        "ties",
        "losses",
        "effect_size",
    ):
        assert row[name] == pytest.approx(getattr(expected, name)), name


def test_hybrid_is_significantly_better_than_lexical_on_ndcg_at_10(web):
    _, ev = web
    table = comparison_table(ev, "lexical", options=FAST).set_index(["candidate", "measure"])
    hybrid = table.loc[("hybrid", "nDCG@10")]
    assert hybrid["delta"] == pytest.approx(0.2440, abs=1e-4)
    assert hybrid["ci_low"] > 0.18 and hybrid["direction"] == "better"
    assert table.loc[("dense", "RR"), "direction"] == "unclear"


def test_corrected_pvalues_are_holm_over_every_row_of_the_table(web):
    _, ev = web
    table = comparison_table(ev, "lexical", options=FAST)
    assert len(table) == 6
    assert table["p_adjusted"].tolist() == pytest.approx(
        adjust_pvalues(table["p_randomization"].to_numpy(), "holm").tolist()
    )
    bh = comparison_table(
        ev, "lexical", options=CompareOptions(resamples=2_000, correction="bh", test="p_ttest")
    )
    assert bh["p_adjusted"].tolist() == pytest.approx(
        adjust_pvalues(bh["p_ttest"].to_numpy(), "bh").tolist()
    )


def test_segment_rows_compare_only_the_queries_of_each_segment(web):
    data, ev = web
    table = comparison_table(
        ev,
        "lexical",
        ["hybrid"],
        ["nDCG@10"],
        segments=data.segments,
        by=["query_type"],
        options=FAST,
    )
    assert table["query_type"].tolist() == ["informational", "navigational", "transactional"]
    assert table["n"].tolist() == [151, 70, 79]
    navigational = table.set_index("query_type").loc["navigational"]
    assert navigational["delta"] < 0 and navigational["direction"] == "worse"


def test_unknown_segment_column_is_refused_with_the_available_ones(web):
    data, ev = web
    with pytest.raises(ValueError, match="query_type, traffic"):
        comparison_table(ev, "lexical", segments=data.segments, by=["country"], options=FAST)


def test_unknown_test_name_is_refused():
    with pytest.raises(ValueError, match="p_randomization"):
        CompareOptions(test="p_magic")


def test_delta_curve_at_k_equals_the_table_interval_for_the_measure_at_that_k(web):
    _, ev = web
    curve = delta_curves(ev, "lexical", "hybrid", "nDCG", 10, options=FAST)
    row = comparison_table(ev, "lexical", ["hybrid"], ["nDCG@10"], options=FAST).iloc[0]
    at_10 = curve[curve["k"] == 10].iloc[0]
    for name in ("mean_a", "mean_b", "delta", "ci_low", "ci_high"):
        assert at_10[name] == pytest.approx(row[name], abs=1e-12), name
    assert curve["k"].tolist() == list(range(1, 11)) and (curve["n"] == 300).all()
    assert (curve["ci_low"] <= curve["delta"]).all() and (curve["delta"] <= curve["ci_high"]).all()


def test_query_deltas_are_sorted_from_biggest_gain_to_biggest_loss(web):
    _, ev = web
    deltas = query_deltas(ev, "lexical", "hybrid", "nDCG@10")
    assert len(deltas) == 300
    assert deltas["delta"].is_monotonic_decreasing
    assert deltas["delta"].tolist() == pytest.approx(
        (deltas["candidate"] - deltas["baseline"]).tolist()
    )
    gained, lost = biggest_movers(deltas, 5)
    assert len(gained) == 5 and (gained["delta"] > 0).all()
    assert lost["delta"].is_monotonic_increasing and lost["delta"].iloc[0] == deltas["delta"].min()


def test_zero_policy_counts_a_query_missing_from_the_candidate_as_zero():
    ev = toy_evaluation()
    ev.per_query = ev.per_query[
        ~((ev.per_query["model"] == "cand") & (ev.per_query["query"] == "q2"))
    ]
    inter = comparison_table(ev, "base", ["cand"], ["RR"], options=FAST).iloc[0]
    zero = comparison_table(
        ev, "base", ["cand"], ["RR"], options=CompareOptions(resamples=2_000, policy="zero")
    ).iloc[0]
    assert (inter["n"], inter["only_in_baseline"]) == (1, 1)
    assert zero["n"] == 2 and zero["mean_b"] == pytest.approx(0.5)


def test_headline_says_who_wins_by_how_much_and_how_sure(web):
    _, ev = web
    table = comparison_table(ev, "lexical", ["hybrid", "dense"], ["nDCG@10", "RR"], options=FAST)
    sentences = headline(table)
    assert sentences[0].startswith(
        "hybrid beats lexical on nDCG@10: 0.811 vs 0.567, delta +0.244 (+43.0%); 95% CI [+0.21"
    )
    assert "dense is not clearly different from lexical on RR" in sentences[3]


def test_p_values_are_written_for_people():
    assert format_p(0.0004) == "p < 0.001"
    assert format_p(0.0421) == "p = 0.042"
    assert format_p(math.nan) == "p undefined"


def test_results_are_identical_for_the_same_seed(web):
    _, ev = web
    first = comparison_table(ev, "lexical", options=CompareOptions(resamples=500, seed=7))
    again = comparison_table(ev, "lexical", options=CompareOptions(resamples=500, seed=7))
    pd.testing.assert_frame_equal(first, again)
    assert np.isfinite(first["ci_low"]).all()
