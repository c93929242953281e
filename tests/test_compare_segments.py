"""Per-segment means and the segments where the overall winner loses."""

from __future__ import annotations

import pandas as pd
import pytest

from metrics import evaluate
from metrics.engine.evaluation import Evaluation
from metrics.io.samples import load_sample
from metrics.review.compare import MISSING, CompareOptions, compared_queries, queries_in_table
from metrics.review.segments import overall_winner, reversal_sentence, reversals, segment_means
from metrics.review.verdict import ReviewRequest, review_table, segment_rows

FAST = CompareOptions(resamples=2_000)


@pytest.fixture(scope="module")
def web():
    data = load_sample("web_search")
    return data, evaluate(data.run, data.qrels, ["nDCG@10", "P@10", "RR"])


def test_hybrid_is_the_overall_winner_on_ndcg_at_10(web):
    _, ev = web
    assert overall_winner(ev, "nDCG@10") == "hybrid"


def test_hybrid_loses_to_lexical_on_navigational_queries(web):
    data, ev = web
    table = reversals(ev, data.segments, ["query_type"], ["nDCG@10"], options=FAST)
    navigational = table[table["query_type"] == "navigational"].iloc[0]
    assert (navigational["winner"], navigational["beaten_by"]) == ("hybrid", "lexical")
    assert navigational["winner_mean"] == pytest.approx(0.8015, abs=1e-4)
    assert navigational["other_mean"] == pytest.approx(0.9391, abs=1e-4)
    assert navigational["ci_high"] < 0 and navigational["significant"]
    assert navigational["sentence"].startswith(
        "hybrid is best overall on nDCG@10 but loses to lexical where query_type = navigational:"
        " 0.801 vs 0.939"
    )


def test_a_segment_where_the_winner_is_only_slightly_below_is_not_called_a_loss(web):
    data, ev = web
    table = reversals(ev, data.segments, ["query_type"], ["nDCG@10"], options=FAST)
    informational = table[table["query_type"] == "informational"].iloc[0]
    assert informational["beaten_by"] == "dense" and not informational["significant"]
    assert "scores below dense" in informational["sentence"]
    assert "not significant" in informational["sentence"]


def test_segment_means_give_n_and_every_model_per_segment_and_overall(web):
    data, ev = web
    table = segment_means(ev, data.segments, ["query_type"], "nDCG@10")
    assert list(table.columns) == ["query_type", "n", "small", "lexical", "dense", "hybrid"]
    assert table["query_type"].tolist() == [
        "informational",
        "navigational",
        "transactional",
        "(all)",
    ]
    assert table["n"].tolist() == [151, 70, 79, 300]
    nav = table.set_index("query_type").loc["navigational"]
    assert nav["lexical"] > nav["hybrid"] > nav["dense"]
    overall = table.set_index("query_type").loc["(all)"]
    assert overall["hybrid"] == pytest.approx(
        ev.per_query.groupby("model")["nDCG@10"].mean()["hybrid"]
    )


def test_small_segments_are_flagged_and_kept(web):
    data, ev = web
    table = segment_means(ev, data.segments, ["query_type", "traffic"], "nDCG@10")
    small = table[table["small"]]
    assert set(zip(small["query_type"], small["traffic"])) == {
        ("navigational", "head"),
        ("transactional", "head"),
        ("transactional", "torso"),
    }
    assert len(table) == 10  # nine segment pairs and the overall row


def test_reversal_in_a_small_segment_says_to_treat_it_with_care(web):
    data, ev = web
    table = reversals(ev, data.segments, ["query_type", "traffic"], ["nDCG@10"], options=FAST)
    row = table[(table["query_type"] == "navigational") & (table["traffic"] == "head")].iloc[0]
    assert row["small"] and row["n"] == 11
    assert row["sentence"].endswith("Only 11 queries: treat with care.")


def test_no_reversal_gives_an_empty_table_with_the_columns():
    run = pd.DataFrame(
        {
            "query": ["q1", "q1", "q2", "q2"] * 2,
            "item": ["a", "b"] * 4,
            "score": [2, 1] * 2 + [1, 2] * 2,
            "model": ["good"] * 4 + ["bad"] * 4,
        }
    )
    qrels = pd.DataFrame({"query": ["q1", "q2"], "item": ["a", "a"], "relevance": [1, 1]})
    segments = pd.DataFrame({"query": ["q1", "q2"], "kind": ["x", "y"]})
    table = reversals(evaluate(run, qrels, ["RR"]), segments, ["kind"], options=FAST)
    assert table.empty and "sentence" in table.columns


# --------------------------------------------------------------------------- missing segment values


def _partial_query_table(data):
    """Queries 1–20 absent from the query table, queries 21–50 with an empty query type."""
    table = data.segments.copy()
    number = table["query"].astype(str).astype(int)
    table.loc[number <= 50, "query_type"] = None
    return table[number > 20].reset_index(drop=True)


def _review(ev, segments, measures=("P@10",)):
    request = ReviewRequest("lexical", ("dense", "hybrid"), measures, ("query_type",), FAST)
    return review_table(ev, request, segments)


def test_absent_queries_and_empty_values_are_one_missing_segment_everywhere(web):
    data, ev = web
    segments = _partial_query_table(data)
    means = segment_means(ev, segments, ["query_type"], "P@10").set_index("query_type")
    rows = segment_rows(_review(ev, segments), "P@10").set_index(["segment", "candidate"])
    missing = means.loc[MISSING]
    assert missing["n"] == 50
    for candidate in ("dense", "hybrid"):
        row = rows.loc[(f"query_type = {MISSING}", candidate)]
        assert row["n"] == missing["n"]
        assert row["delta"] == pytest.approx(missing[candidate] - missing["lexical"])
    assert rows.loc[(f"query_type = {MISSING}", "hybrid"), "delta"] == pytest.approx(0.226)


def test_queries_absent_from_the_query_table_are_tested_and_counted_in_the_family(web):
    data, ev = web
    segments = data.segments[data.segments["query"].astype(str).astype(int) > 20]
    rows = segment_rows(_review(ev, segments), "P@10")
    missing = rows[rows["segment"] == f"query_type = {MISSING}"]
    assert missing["n"].tolist() == [20, 20] and missing["p_raw"].notna().all()
    assert set(rows["family_size"]) == {8}  # four segments × two candidates


def test_a_query_table_matching_no_query_of_the_run_leaves_one_missing_segment(web):
    data, ev = web
    segments = data.segments.assign(query=data.segments["query"].astype(str).astype(int) + 1000)
    assert queries_in_table(segments, compared_queries(ev, ev.models)) == 0
    rows = segment_rows(_review(ev, segments), "P@10")
    assert set(rows["segment"]) == {f"query_type = {MISSING}"}
    assert rows["n"].tolist() == [300, 300]
    assert rows["family_text"].iloc[0] == (
        "randomization test, Holm over 1 segment × 1 measure × 2 candidates"
    )


def test_the_family_counts_only_segments_with_a_p_value():
    per_query = pd.DataFrame(
        {
            "model": ["a"] * 6 + ["b"] * 6,
            "query": ["q1", "q2", "q3", "q4", "q5", "q6"] * 2,
            "M": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.3, 0.4, 0.5, 0.6, 0.7, float("nan")],
        }
    )
    ev = Evaluation(per_query, ["M"], {}, None, ["a", "b"])
    segments = pd.DataFrame({"query": ["q1", "q2", "q3", "q4", "q5", "q6"], "kind": list("xxyyyz")})
    request = ReviewRequest("a", ("b",), ("M",), ("kind",), FAST)
    rows = segment_rows(review_table(ev, request, segments))
    # z holds one query, undefined for b: no pair, no p-value, not in the family
    assert rows.set_index("segment").loc["kind = z", "n"] == 0
    assert rows["family"].iloc[0] == "segments:2x1x1"
    assert rows["family_text"].iloc[0] == (
        "randomization test, Holm over 2 segments × 1 measure × 1 candidate"
    )


def test_a_reversal_in_a_one_query_segment_says_one_query():
    row = {
        "measure": "M",
        "kind": "x",
        "n": 1,
        "small": True,
        "winner": "a",
        "beaten_by": "b",
        "winner_mean": 0.1,
        "other_mean": 0.9,
        "delta": -0.8,
        "ci_low": -0.8,
        "ci_high": -0.8,
        "p_adjusted": 1.0,
        "significant": False,
    }
    assert reversal_sentence(row, ["kind"]).endswith(" Only 1 query: treat with care.")
    assert reversal_sentence({**row, "n": 2}, ["kind"]).endswith(
        " Only 2 queries: treat with care."
    )
