"""An evaluation records the settings its lists were ranked with.

A run without a score column is ranked by its rank column (ties ``rank``), and each model by its
own score order: :attr:`Evaluation.settings` says so, and each model's lists were ranked with
``evaluation.settings.for_model(model)``, so that evaluating again under the recorded settings
gives the same numbers.
"""

from __future__ import annotations

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from pandas.testing import assert_frame_equal

from metrics import Settings, evaluate
from metrics.engine.evaluation import rank_run

MEASURES = ["P@2", "RR", "nDCG@3", "AP"]


def _run(with_score: bool) -> pd.DataFrame:
    """Two models, two queries; model b's scores are distances (lower is better)."""
    rows = []
    for model, scores in (("a", [3.0, 2.0, 1.0]), ("b", [0.1, 0.2, 0.3])):
        for query in ("q1", "q2"):
            for rank, (item, score) in enumerate(zip("xyz", scores), start=1):
                rows.append(
                    {"model": model, "query": query, "item": item, "score": score, "rank": rank}
                )
    run = pd.DataFrame(rows)
    return run if with_score else run.drop(columns="score")


QRELS = pd.DataFrame({"query": ["q1", "q1", "q2"], "item": ["y", "z", "x"], "relevance": [1, 2, 1]})


def test_a_run_without_scores_is_recorded_as_ranked_by_its_rank_column():
    evaluation = evaluate(_run(with_score=False), QRELS, MEASURES, Settings())
    assert evaluation.settings.ties == "rank"
    for model, lists in evaluation.lists.items():
        assert lists.settings == evaluation.settings.for_model(model)


def test_rank_run_ranks_each_model_with_its_own_resolved_settings():
    chosen = Settings(score_order_by_model=(("b", "ascending"),))
    lists = rank_run(_run(with_score=False), QRELS, chosen)
    assert lists["a"].settings == Settings(ties="rank")
    assert lists["b"].settings == Settings(ties="rank", score_order="ascending")


@settings(max_examples=30, deadline=None)
@given(
    with_score=st.booleans(),
    ties=st.sampled_from(["item_desc", "input_order", "rank"]),
    order_b=st.sampled_from([None, "ascending", "descending"]),
    level=st.sampled_from([1.0, 2.0]),
)
def test_the_recorded_settings_are_those_each_model_was_ranked_with(
    with_score, ties, order_b, level
):
    orders = () if order_b is None else (("b", order_b),)
    chosen = Settings(ties=ties, score_order_by_model=orders, relevance_level=level)
    evaluation = evaluate(_run(with_score), QRELS, MEASURES, chosen)
    for model, lists in evaluation.lists.items():
        assert lists.settings == evaluation.settings.for_model(model)
    assert evaluation.settings.ties == (ties if with_score else "rank")
    again = evaluate(_run(with_score), QRELS, MEASURES, evaluation.settings)
    assert again.settings == evaluation.settings
    assert_frame_equal(again.per_query, evaluation.per_query)
