"""Context precision (ragas' context precision, DeepEval's contextual precision): AP divided by the
relevant items retrieved in the top K, against hand-derived values, a reimplementation of the
published formula, and AP@K where every relevant item is retrieved."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics import Settings, evaluate
from metrics.engine.profiles import profile
from tests.strategies import collections

CUTS = range(1, 8)


def per_query(run, qrels, measures, settings_=Settings()) -> pd.DataFrame:
    table = evaluate(run, qrels, measures, settings_).per_query
    return table.assign(query=table["query"].astype(str)).set_index("query")


def one_list(labels: list[int], missed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One query ranked in the order of ``labels``, and ``missed`` relevant items not retrieved."""
    items = [f"d{i}" for i in range(len(labels))]
    run = pd.DataFrame({"query": "q", "item": items, "score": range(len(items), 0, -1)})
    judged = list(zip(items, labels)) + [(f"m{j}", 1) for j in range(missed)]
    qrels = pd.DataFrame(
        {"query": "q", "item": [i for i, _ in judged], "relevance": [x for _, x in judged]}
    )
    return run, qrels


@pytest.mark.parametrize(
    "labels, missed, measure, want",
    [
        # relevant at ranks 1 and 3: (1/1 + 2/3) / 2 = 5/6, whether or not a third is missed
        ([1, 0, 1, 0, 0], 1, "CP@5", 5 / 6),
        ([1, 0, 1, 0, 0], 1, "AP@5", 5 / 9),  # AP divides by all three relevant items
        ([1, 0, 1, 0, 0], 0, "AP@5", 5 / 6),  # every relevant item retrieved: CP = AP
        ([1, 0, 1, 0, 0], 1, "CP@2", 1.0),  # the top 2 hold one relevant item, at rank 1
        ([0, 1, 1], 0, "CP@3", (1 / 2 + 2 / 3) / 2),  # 7/12
        ([0, 0, 2, 0], 2, "CP", 1 / 3),  # graded label 2 ≥ level 1: P@3 / 1
        ([0, 0, 0], 3, "CP@3", 0.0),  # nothing relevant retrieved
        ([1, 1, 1], 0, "CP", 1.0),  # a perfect ranking is exactly 1 (no epsilon)
    ],
)
def test_hand_derived_values(labels, missed, measure, want):
    run, qrels = one_list(labels, missed)
    assert per_query(run, qrels, [measure]).loc["q", measure] == pytest.approx(want, abs=1e-15)


def published_formula(verdicts: list[int]) -> float:
    """The formula as ragas and DeepEval write it, over the verdicts of the contexts passed in
    (1 relevant, 0 not): Σ_k (relevant among the first k / k) · v_k / Σ_k v_k."""
    relevant = sum(verdicts)
    if relevant == 0:
        return 0.0
    total = 0.0
    for k, verdict in enumerate(verdicts, start=1):
        if verdict:
            total += sum(verdicts[:k]) / k
    return total / relevant


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(allow_unjudged_queries=False, tie_free=True), level=st.sampled_from([1, 2]))
def test_context_precision_is_the_published_formula_over_the_top_k(data, level):
    run, qrels = data
    measures = [f"CP@{k}" for k in CUTS] + ["CP"]
    ours = per_query(run, qrels, measures, Settings(relevance_level=level))
    labels = {(str(q), str(i)): r for q, i, r in qrels.itertuples(index=False)}
    for query, rows in run.groupby(run["query"].astype(str)):
        ranked = rows.sort_values("score", ascending=False)["item"].astype(str)
        verdicts = [int(labels.get((query, item), 0) >= level) for item in ranked]
        for k in CUTS:
            got = ours.loc[query, f"CP@{k}"]
            assert got == pytest.approx(published_formula(verdicts[:k]), abs=1e-12), (query, k)
        assert ours.loc[query, "CP"] == pytest.approx(published_formula(verdicts), abs=1e-12)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(allow_unjudged_queries=False))
def test_context_precision_equals_ap_when_every_relevant_item_is_in_the_top_k(data):
    run, qrels = data
    measures = [f"{m}@{k}" for m in ("CP", "AP", "NumRelRet") for k in CUTS] + ["NumRel"]
    ours = per_query(run, qrels, measures)
    for k in CUTS:
        cp, ap = ours[f"CP@{k}"], ours[f"AP@{k}"]
        complete = ours[f"NumRelRet@{k}"] == ours["NumRel"]
        pd.testing.assert_series_equal(cp[complete], ap[complete], check_names=False, atol=1e-12)
        assert (cp >= ap - 1e-12).all()  # fewer items to divide by, never less


def test_the_rag_profiles_name_context_precision():
    for key, name in (("ragas", "context_precision"), ("deepeval", "ContextualPrecisionMetric")):
        assert profile(key).name_of("CP") == name
        assert profile(key).settings().ties == "input_order"
