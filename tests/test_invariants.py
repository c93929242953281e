"""Properties every measure must keep, and the policies' values worked out by hand."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metrics import InputError, Settings, evaluate, rank_run, summarize
from metrics.engine.registry import parse_measure
from tests.strategies import collections

CUTOFFS = (1, 2, 3, 5, 10, 20)
BOUNDED = [
    f"{m}@{k}" for m in ("P", "R", "F1", "Success", "nDCG", "AP", "Judged", "wP") for k in CUTOFFS
] + ["RR", "AP", "nDCG", "Rprec"]
FAST = hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def by_query(
    run: pd.DataFrame, qrels: pd.DataFrame, names: list[str], settings: Settings = Settings()
) -> pd.DataFrame:
    return evaluate(run, qrels, names, settings).per_query.set_index("query")[names].sort_index()


@FAST
@given(data=collections(), gain=st.sampled_from(["linear", "exponential"]))
def test_every_bounded_measure_lies_between_zero_and_one(data, gain):
    run, qrels = data
    values = by_query(run, qrels, BOUNDED, Settings(gain=gain)).to_numpy()
    assert ((values >= 0) & (values <= 1 + 1e-12)).all()


@pytest.mark.slow
@FAST
@given(data=collections())
def test_dcg_is_never_negative_and_bounded_by_the_ideal(data):
    run, qrels = data
    lists = rank_run(run, qrels)["run"]
    dcg = parse_measure("DCG@10").compute(lists)
    assert (dcg >= 0).all()
    assert (dcg <= lists.ideal_at(np.array([10]))[:, 0] + 1e-9).all()


@FAST
@given(labels=st.lists(st.integers(-1, 3), min_size=1, max_size=12).filter(lambda ls: max(ls) >= 1))
def test_a_perfect_ranking_scores_one(labels):
    items = [f"d{i}" for i in range(len(labels))]
    qrels = pd.DataFrame({"query": "q", "item": items, "relevance": labels})
    order = np.argsort(-np.asarray(labels), kind="stable")
    run = pd.DataFrame(
        {
            "query": "q",
            "item": [items[i] for i in order],
            "score": np.arange(len(items), 0, -1, dtype=float),
        }
    )
    values = by_query(run, qrels, ["nDCG", "nDCG@5", "AP", "RR", "Rprec"])
    assert values.to_numpy() == pytest.approx(np.ones((1, 5)))
    exp = by_query(run, qrels, ["nDCG", "nDCG@5"], Settings(gain="exponential"))
    assert exp.to_numpy() == pytest.approx(np.ones((1, 2)))


@pytest.mark.slow
@FAST
@given(data=collections())
def test_recall_never_decreases_as_k_grows(data):
    run, qrels = data
    lists = rank_run(run, qrels)["run"]
    curve = parse_measure("R", for_curve=True).curve(lists, np.arange(1, 31))
    assert (np.diff(curve, axis=1) >= -1e-12).all()


@pytest.mark.slow
@FAST
@given(data=collections(), seed=st.integers(0, 2**31 - 1))
def test_the_order_of_rows_and_queries_does_not_matter(data, seed):
    run, qrels = data
    names = ["P@3", "R@5", "nDCG@5", "AP", "RR", "Rprec"]
    shuffled_run = run.sample(frac=1, random_state=seed).reset_index(drop=True)
    shuffled_qrels = qrels.sample(frac=1, random_state=seed + 1).reset_index(drop=True)
    pd.testing.assert_frame_equal(
        by_query(run, qrels, names), by_query(shuffled_run, shuffled_qrels, names)
    )


@pytest.mark.slow
@FAST
@given(data=collections(), shift=st.sampled_from([-100.0, -0.5, 7.5, 1024.0]))
def test_shifting_every_score_by_a_constant_changes_nothing(data, shift):
    run, qrels = data
    names = ["P@3", "nDCG@5", "AP", "RR"]
    pd.testing.assert_frame_equal(
        by_query(run, qrels, names), by_query(run.assign(score=run["score"] + shift), qrels, names)
    )


@pytest.mark.slow
@FAST
@given(
    data=collections(allow_unjudged_queries=False),
    short=st.sampled_from(["divide_by_k", "divide_by_returned"]),
)
def test_micro_averages_are_pooled_counts(data, short):
    run, qrels = data
    settings = Settings(averaging="micro", short_lists=short)
    ev = evaluate(run, qrels, ["P@5", "R@5"], settings)
    lists = ev.lists["run"]
    hits = lists.at(lists.cum_relevant, np.array([5]))[:, 0]
    shown = (
        np.minimum(5, lists.n_returned)
        if short == "divide_by_returned"
        else np.full(lists.n_queries, 5)
    )
    summary = summarize(ev).set_index("measure")["value"]
    assert summary["P@5"] == pytest.approx(hits.sum() / shown.sum())
    total_relevant = lists.num_rel.sum()
    assert summary["R@5"] == pytest.approx(hits.sum() / total_relevant if total_relevant else 0)


# ---------------------------------------------------------------- policies worked by hand
SHORT_RUN = pd.DataFrame(
    {
        "query": ["short"] * 3 + ["long"] * 5,
        "item": ["a", "b", "c", "a", "b", "c", "d", "e"],
        "score": [3, 2, 1, 5, 4, 3, 2, 1],
    }
)
SHORT_QRELS = pd.DataFrame(
    {"query": ["short", "short", "long"], "item": ["a", "c", "e"], "relevance": [1, 1, 1]}
)


def test_short_lists_divide_by_k_by_default():
    values = by_query(SHORT_RUN, SHORT_QRELS, ["P@5", "wP(decay=reciprocal)@5"])
    assert values.loc["short", "P@5"] == pytest.approx(2 / 5)
    assert values.loc["long", "P@5"] == pytest.approx(1 / 5)
    weights = 1 / np.arange(1, 6)
    assert values.loc["short", "wP(decay=reciprocal)@5"] == pytest.approx(
        (1 + 1 / 3) / weights.sum()
    )


def test_short_lists_can_divide_by_the_number_returned():
    settings = Settings(short_lists="divide_by_returned")
    values = by_query(SHORT_RUN, SHORT_QRELS, ["P@5", "wP(decay=reciprocal)@5"], settings)
    assert values.loc["short", "P@5"] == pytest.approx(2 / 3)
    assert values.loc["long", "P@5"] == pytest.approx(1 / 5)
    assert values.loc["short", "wP(decay=reciprocal)@5"] == pytest.approx(
        (1 + 1 / 3) / (1 + 1 / 2 + 1 / 3)
    )


def test_short_lists_can_be_left_out_of_the_average_at_that_k():
    ev = evaluate(SHORT_RUN, SHORT_QRELS, ["P@5", "P@3"], Settings(short_lists="leave_out"))
    values = ev.per_query.set_index("query")
    assert np.isnan(values.loc["short", "P@5"])
    assert values.loc["short", "P@3"] == pytest.approx(2 / 3)
    means = summarize(ev).set_index("measure")["value"]
    assert means["P@5"] == pytest.approx(1 / 5)  # only "long" counts
    assert means["P@3"] == pytest.approx((2 / 3 + 0) / 2)


def test_position_weighted_precision_by_hand():
    run = pd.DataFrame({"query": "q", "item": list("abcd"), "score": [4, 3, 2, 1]})
    qrels = pd.DataFrame({"query": "q", "item": ["a", "c"], "relevance": [1, 2]})
    names = ["wP@3", "wP(decay=geometric,p=0.5)@3", "wP(decay=user,weights=3;2;1)@3"]
    values = by_query(run, qrels, names).iloc[0]
    log_w = 1 / np.log2(np.arange(2, 5))
    assert values["wP@3"] == pytest.approx((log_w[0] + log_w[2]) / log_w.sum())
    assert values["wP(decay=geometric,p=0.5)@3"] == pytest.approx((1 + 0.25) / 1.75)
    assert values["wP(decay=user,weights=3;2;1)@3"] == pytest.approx((3 + 1) / 6)


def test_judged_at_k_by_hand():
    run = pd.DataFrame(
        {
            "query": ["q"] * 4 + ["r"] * 2,
            "item": list("abcd") + ["x", "y"],
            "score": [4, 3, 2, 1, 2, 1],
        }
    )
    qrels = pd.DataFrame(
        {"query": ["q", "q", "r"], "item": ["a", "c", "y"], "relevance": [0, 1, 2]}
    )
    names = ["Judged@2", "Judged@4", "Judged@10"]
    values = by_query(run, qrels, names)
    assert values.loc["q"].tolist() == pytest.approx([1 / 2, 2 / 4, 2 / 10])
    assert values.loc["r"].tolist() == pytest.approx([1 / 2, 1 / 4, 1 / 10])
    returned = by_query(run, qrels, names, Settings(short_lists="divide_by_returned"))
    assert returned.loc["q"].tolist() == pytest.approx([1 / 2, 2 / 4, 2 / 4])
    assert returned.loc["r"].tolist() == pytest.approx([1 / 2, 1 / 2, 1 / 2])


DUP_RUN = pd.DataFrame({"query": "q", "item": ["a", "b", "a", "c"], "score": [4, 3, 2, 1]})
DUP_QRELS = pd.DataFrame({"query": "q", "item": ["a", "c"], "relevance": [1, 1]})


def test_duplicates_keep_the_best_ranked_copy_and_report_how_many_were_dropped():
    lists = rank_run(DUP_RUN, DUP_QRELS, Settings(duplicates="keep_best"))["run"]
    assert lists.notes.dropped_duplicates == 1
    assert lists.notes.duplicate_examples == ("q / a",)
    assert lists.n_returned.tolist() == [3]
    assert DUP_RUN["item"].iloc[lists.row_index].tolist() == ["a", "b", "c"]
    values = by_query(DUP_RUN, DUP_QRELS, ["P@3", "RR"])
    assert values.iloc[0].tolist() == pytest.approx([2 / 3, 1.0])


def test_duplicates_can_be_refused_with_a_message_naming_the_item():
    message = (
        "run: 1 duplicate item(s) within a query, e.g. q / a. Fix: remove the repeated "
        "rows, or choose duplicates='keep_best'."
    )
    with pytest.raises(InputError, match=f"^{re.escape(message)}$"):
        evaluate(DUP_RUN, DUP_QRELS, ["P@3"], Settings(duplicates="error"))
