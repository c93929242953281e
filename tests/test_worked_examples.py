"""The worked examples of the design notes, computed by the engine and read from the sample."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from metrics import evaluate
from metrics.io.samples import load_sample


def one_list(relevant: list[int], length: int, extra_relevant: int = 0) -> tuple:
    """A single ranked list of ``length`` items, relevant at the 1-based ``relevant`` ranks, plus
    ``extra_relevant`` relevant items that were never retrieved."""
    items = [f"d{i:02d}" for i in range(1, length + 1)]
    run = pd.DataFrame({"query": "q", "item": items, "score": range(length, 0, -1)})
    judged = [items[r - 1] for r in relevant] + [f"x{i}" for i in range(extra_relevant)]
    qrels = pd.DataFrame({"query": "q", "item": judged, "relevance": 1})
    return run, qrels


def test_precision_at_5_is_three_fifths_with_relevant_items_at_ranks_1_3_4():
    run, qrels = one_list([1, 3, 4], 5)
    assert evaluate(run, qrels, ["P@5"]).per_query.loc[0, "P@5"] == pytest.approx(0.6)


def test_precision_at_10_is_0_4_when_one_of_the_next_five_is_relevant():
    run, qrels = one_list([1, 3, 4, 7], 10)
    values = evaluate(run, qrels, ["P@5", "P@10"]).per_query
    assert values.loc[0, "P@5"] == pytest.approx(0.6)
    assert values.loc[0, "P@10"] == pytest.approx(0.4)


def test_recall_at_5_is_0_3_when_ten_items_are_relevant_in_total():
    run, qrels = one_list([1, 3, 4, 7], 10, extra_relevant=6)
    assert len(qrels) == 10
    assert evaluate(run, qrels, ["R@5"]).per_query.loc[0, "R@5"] == pytest.approx(0.3)


def test_mrr_is_seven_twelfths_for_first_relevant_ranks_2_1_4():
    runs, judgments = [], []
    for query, first in (("a", 2), ("b", 1), ("c", 4)):
        run, qrels = one_list([first], 5)
        runs.append(run.assign(query=query))
        judgments.append(qrels.assign(query=query))
    values = evaluate(pd.concat(runs), pd.concat(judgments), ["RR"]).per_query
    assert values["RR"].tolist() == pytest.approx([1 / 2, 1, 1 / 4])
    assert values["RR"].mean() == pytest.approx(7 / 12)
    assert round(values["RR"].mean(), 3) == 0.583


def test_ndcg_at_4_is_0_985_for_grades_3_2_0_1():
    run = pd.DataFrame({"query": "q", "item": list("abcd"), "score": [4, 3, 2, 1]})
    qrels = pd.DataFrame({"query": "q", "item": list("abcd"), "relevance": [3, 2, 0, 1]})
    values = evaluate(run, qrels, ["DCG@4", "nDCG@4"]).per_query
    dcg = 3 + 2 / math.log2(3) + 0 + 1 / math.log2(5)
    idcg = 3 + 2 / math.log2(3) + 1 / math.log2(4)
    assert values.loc[0, "DCG@4"] == pytest.approx(dcg)
    assert round(dcg, 3) == 4.693 and round(idcg, 3) == 4.762
    assert values.loc[0, "nDCG@4"] == pytest.approx(dcg / idcg)
    assert round(values.loc[0, "nDCG@4"], 3) == 0.985


@pytest.fixture(scope="module")
def teaching() -> pd.DataFrame:
    data = load_sample("teaching")
    names = ["P@5", "P@10", "R@5", "RR", "nDCG@4"]
    return evaluate(data.run, data.qrels, names).per_query.set_index("query")


def test_the_teaching_sample_reproduces_precision_and_recall(teaching):
    row = teaching.loc["precision_recall"]
    assert (row["P@5"], row["P@10"], row["R@5"]) == pytest.approx((0.6, 0.4, 0.3))


def test_the_teaching_sample_reproduces_mrr(teaching):
    rr = teaching.loc[["mrr_first_at_2", "mrr_first_at_1", "mrr_first_at_4"], "RR"]
    assert rr.tolist() == pytest.approx([0.5, 1.0, 0.25])
    assert rr.mean() == pytest.approx(7 / 12)


def test_the_teaching_sample_reproduces_ndcg(teaching):
    dcg = 3 + 2 / math.log2(3) + 1 / math.log2(5)
    idcg = 3 + 2 / math.log2(3) + 1 / math.log2(4)
    assert teaching.loc["ndcg_graded", "nDCG@4"] == pytest.approx(dcg / idcg)
    assert round(teaching.loc["ndcg_graded", "nDCG@4"], 3) == 0.985
