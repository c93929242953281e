"""The conventions of the learning-to-rank libraries: the no-relevant-item policy ``one``, and the
LightGBM and XGBoost profiles against the libraries' own ``eval_at`` nDCG."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics import Settings, evaluate
from metrics.engine.explain import explain_list
from tests.strategies import collections

#: Measures whose values the policy ``one`` must leave alone.
OTHERS = ["P@3", "R@3", "RR", "AP", "DCG@3", "Success@3"]


def per_query(run, qrels, measures, settings_) -> pd.DataFrame:
    table = evaluate(run, qrels, measures, settings_).per_query
    return table.assign(query=table["query"].astype(str)).set_index("query")


def without_gain(qrels: pd.DataFrame) -> set[str]:
    """Queries whose judgments give no item a gain (labels are whole numbers; gain = label,
    negative labels 0): their ideal DCG is 0."""
    best = qrels.groupby(qrels["query"].astype(str))["relevance"].max()
    return set(best.index[best <= 0])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(), k=st.integers(1, 6), gain=st.sampled_from(["linear", "exponential"]))
def test_one_scores_ndcg_1_where_no_item_has_a_gain_and_changes_nothing_else(data, k, gain):
    run, qrels = data
    measures = [f"nDCG@{k}", "nDCG", *OTHERS]
    zero = per_query(run, qrels, measures, Settings(gain=gain))
    one = per_query(run, qrels, measures, Settings(gain=gain, no_relevant="one"))
    assert list(one.index) == list(zero.index)
    empty = without_gain(qrels)
    for query in zero.index:
        for measure in (f"nDCG@{k}", "nDCG"):
            want = 1.0 if query in empty else zero.loc[query, measure]
            assert one.loc[query, measure] == pytest.approx(want, abs=1e-12), (query, measure)
    pd.testing.assert_frame_equal(one[OTHERS], zero[OTHERS])


@pytest.mark.parametrize(
    "labels, unretrieved, want",
    [
        ([0, 0, float("nan")], [0], 1.0),  # nothing with a gain, retrieved or not
        ([0, 1, 0], [], 1 / math.log2(3)),  # a relevant item: the usual nDCG
        ([0, 0], [2], 0.0),  # the relevant item was not retrieved
    ],
)
def test_the_worked_explanation_gives_the_one_policy_s_ndcg(labels, unretrieved, want):
    chosen = Settings(no_relevant="one")
    items = [f"d{i}" for i in range(len(labels))]
    piece = explain_list(items, labels, 3, chosen, unretrieved).pieces["nDCG"]
    assert piece.value == pytest.approx(want)
    run = pd.DataFrame({"query": "q", "item": items, "score": np.arange(len(items), 0, -1.0)})
    judged = [(i, x) for i, x in zip(items, labels) if x == x] + [
        (f"u{j}", x) for j, x in enumerate(unretrieved)
    ]
    qrels = pd.DataFrame(
        {"query": "q", "item": [i for i, _ in judged], "relevance": [x for _, x in judged]}
    )
    assert per_query(run, qrels, ["nDCG@3"], chosen).loc["q", "nDCG@3"] == pytest.approx(want)
