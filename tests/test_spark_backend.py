"""The Spark backend computes exactly the local engine's per-query values, for every measure of
the registry and every policy of ``POLICIES`` (both read at run time, so new ones are covered)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics import schema as S
from metrics.engine.aggregation import summarize
from metrics.engine.evaluation import evaluate
from metrics.engine.settings import Settings
from metrics.errors import InputError
from metrics.io.samples import SAMPLES, load_sample
from tests.spark_support import all_measure_names, generated_collection, policy_settings

pytestmark = pytest.mark.spark

MEASURES = all_measure_names()
#: cwP weighs items by their scores and refuses negative ones, which the generated collection
#: has; it is compared on the samples with non-negative scores instead.
MEASURES_ANY_SCORES = [m for m in MEASURES if not m.startswith("cwP")]


def _sorted(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    out = frame[columns].copy()
    for name in (S.MODEL, S.QUERY):
        out[name] = out[name].astype(str)
    return out.sort_values([S.MODEL, S.QUERY]).reset_index(drop=True)


def _assert_same_per_query(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    columns = list(expected.columns)
    assert len(got) == len(expected)
    pd.testing.assert_frame_equal(
        _sorted(got, columns), _sorted(expected, columns), check_dtype=False, rtol=1e-12, atol=1e-12
    )


@pytest.fixture(scope="module")
def collection(spark):
    run, qrels, queries = generated_collection(seed=7)
    queries["w"] = np.arange(len(queries)) % 4 + 1.0
    return (
        (run, qrels, queries),
        (spark.createDataFrame(run), spark.createDataFrame(qrels), spark.createDataFrame(queries)),
    )


def _label(settings: Settings) -> str:
    changed = [f"{k}={v}" for k, v in settings.to_dict().items() if v != getattr(Settings(), k)]
    return ",".join(changed) or "defaults"


@pytest.mark.parametrize("settings", policy_settings(), ids=_label)
def test_per_query_values_equal_the_local_engines_for_every_measure_under_each_policy(
    collection, settings
):
    from metrics.spark.backend import evaluate_spark

    (run, qrels, _), (s_run, s_qrels, _) = collection
    got = evaluate_spark(s_run, s_qrels, MEASURES_ANY_SCORES, settings).toPandas()
    expected = evaluate(run, qrels, MEASURES_ANY_SCORES, settings).per_query
    assert len(expected) > 40  # the collection does exercise many queries and models
    _assert_same_per_query(got, expected)


@pytest.mark.parametrize("name", list(SAMPLES))
def test_per_query_values_equal_the_local_engines_on_the_samples(spark, name):
    from metrics.spark.backend import evaluate_spark

    data = load_sample(name)
    measures = ["P@1", "P@5", "R@10", "nDCG@10", "nDCG", "AP", "RR", "Rprec", "Success@3"]
    if (data.run["score"] >= 0).all():
        measures.append("cwP@5")
    got = evaluate_spark(
        spark.createDataFrame(data.run), spark.createDataFrame(data.qrels), measures
    ).toPandas()
    _assert_same_per_query(got, evaluate(data.run, data.qrels, measures).per_query)


def test_query_metadata_columns_come_after_the_query(collection):
    from metrics.spark.backend import evaluate_spark

    (_, _, queries), (s_run, s_qrels, s_queries) = collection
    got = evaluate_spark(s_run, s_qrels, ["P@3"], queries=s_queries).toPandas()
    assert list(got.columns) == [S.MODEL, S.QUERY, "traffic", "topic", "w", "P@3"]
    expected = queries.set_index(S.QUERY)["topic"]
    assert (got["topic"] == got[S.QUERY].map(expected)).all()


@pytest.mark.parametrize("averaging", ["macro", "micro"])
def test_means_medians_and_pooled_averages_from_the_per_query_table_equal_summarize(
    collection, averaging
):
    from metrics.spark.backend import evaluate_spark, summarize_spark

    (run, qrels, _), (s_run, s_qrels, _) = collection
    measures = ["P@3", "P@10", "R@10", "F1@3", "Success@3", "nDCG@5", "AP"]
    settings = Settings(averaging=averaging, short_lists="leave_out")
    per_query = evaluate_spark(s_run, s_qrels, measures, settings)
    got = summarize_spark(per_query, measures, settings).toPandas()
    expected = summarize(evaluate(run, qrels, measures, settings))
    merged = expected.merge(got, on=[S.MODEL, "measure"], suffixes=("", "_spark"))
    assert len(merged) == len(expected) == 3 * len(measures)
    for column in ("value", "mean", "median", "n"):
        np.testing.assert_allclose(merged[f"{column}_spark"], merged[column], rtol=1e-12)
    if averaging == "micro":  # pooled values do differ from the means here
        assert (merged["value"] - merged["mean"]).abs().max() > 1e-3


def test_repeated_items_are_refused_with_the_local_engines_message_when_duplicates_is_error(
    collection,
):
    from metrics.spark.backend import evaluate_spark

    (run, qrels, _), (s_run, s_qrels, _) = collection
    settings = Settings(duplicates="error")
    with pytest.raises(InputError) as local:
        evaluate(run, qrels, ["P@3"], settings)
    with pytest.raises(InputError) as distributed:
        evaluate_spark(s_run, s_qrels, ["P@3"], settings)
    assert str(distributed.value) == str(local.value)


def test_a_run_without_a_score_column_is_ranked_by_its_rank_column(spark, collection):
    from metrics.spark.backend import evaluate_spark

    (run, qrels, _), _ = collection
    run = run.drop(columns=[S.SCORE])
    got = evaluate_spark(spark.createDataFrame(run), spark.createDataFrame(qrels), ["AP", "P@3"])
    _assert_same_per_query(got.toPandas(), evaluate(run, qrels, ["AP", "P@3"]).per_query)


def test_a_run_without_a_query_column_is_refused_before_any_work(spark):
    from metrics.spark.backend import evaluate_spark

    run = spark.createDataFrame(pd.DataFrame({"q": ["a"], "item": ["x"], "score": [1.0]}))
    qrels = spark.createDataFrame(pd.DataFrame({"query": ["a"], "item": ["x"], "relevance": [1]}))
    with pytest.raises(InputError, match="there is no 'query' column"):
        evaluate_spark(run, qrels, ["P@1"])


def test_each_task_restores_the_input_order_that_tied_scores_fall_back_on(collection):
    """Rows reach a task in shuffle order; the row number taken before the shuffle puts them
    back, so ``ties='input_order'`` and ``ties='rank'`` see the input order."""
    from metrics.spark.backend import ROW, bucket_values

    (run, qrels, _q), _ = collection
    numbered = run.assign(**{ROW: np.arange(len(run))})
    shuffled = numbered.sample(frac=1.0, random_state=3)
    for ties in ("input_order", "rank"):
        settings = Settings(ties=ties)
        got = bucket_values(shuffled, qrels, ["m0", "m1", "m2"], _specs(), settings)
        expected = evaluate(run, qrels, [s.name for s in _specs()], settings).per_query
        _assert_same_per_query(got, expected)
    unsorted = bucket_values(
        shuffled.drop(columns=[ROW]),
        qrels,
        ["m0", "m1", "m2"],
        _specs(),
        Settings(ties="input_order"),
    )
    expected = evaluate(run, qrels, ["AP"], Settings(ties="input_order")).per_query
    assert not np.allclose(  # the order does matter on this collection
        _sorted(unsorted, list(expected.columns))["AP"],
        _sorted(expected, ["model", "query", "AP"])["AP"],
    )


def _specs():
    from metrics.engine.registry import parse_measures

    return parse_measures(["AP", "P@3", "nDCG@5"])
