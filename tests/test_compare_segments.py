"""Per-segment means and the segments where the overall winner loses."""

from __future__ import annotations

import pandas as pd
import pytest

from metrics import evaluate
from metrics.io.loaders import load_sample
from metrics.review.compare import CompareOptions
from metrics.review.segments import overall_winner, reversals, segment_means

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
    assert navigational["winner_mean"] == pytest.approx(0.7535, abs=1e-4)
    assert navigational["other_mean"] == pytest.approx(0.8850, abs=1e-4)
    assert navigational["ci_high"] < 0 and navigational["significant"]
    assert navigational["sentence"].startswith(
        "hybrid is best overall on nDCG@10 but loses to lexical where query_type = navigational:"
        " 0.754 vs 0.885"
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
