"""Level two: averaging per-query values over queries and segments."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from metrics import InputError, Settings, SettingsError, curves, evaluate
from metrics.engine.aggregation import (
    column_quartiles,
    curve_summary,
    describe,
    mean_table,
    summarize,
)


@pytest.fixture
def two_queries():
    # q1: 3 results, relevant at rank 1; 2 relevant judged. q2: 1 result, relevant.
    run = pd.DataFrame(
        {
            "query": ["q1", "q1", "q1", "q2"],
            "item": ["a", "b", "c", "x"],
            "score": [3.0, 2.0, 1.0, 1.0],
        }
    )
    qrels = pd.DataFrame(
        {"query": ["q1", "q1", "q2"], "item": ["a", "z", "x"], "relevance": [1, 1, 1]}
    )
    segments = pd.DataFrame(
        {"query": ["q1", "q2"], "kind": ["long", "short"], "traffic": [3.0, 1.0]}
    )
    return run, qrels, segments


def test_macro_average_is_the_mean_of_per_query_values(two_queries):
    run, qrels, _ = two_queries
    table = mean_table(evaluate(run, qrels, ["P@2", "R@2"]))
    assert table.loc["run", "P@2"] == pytest.approx((1 / 2 + 1 / 2) / 2)
    assert table.loc["run", "R@2"] == pytest.approx((1 / 2 + 1) / 2)


def test_micro_average_pools_counts_over_queries(two_queries):
    run, qrels, _ = two_queries
    table = mean_table(
        evaluate(run, qrels, ["P@2", "R@2", "F1@2", "RR"], Settings(averaging="micro"))
    )
    # relevant retrieved in top 2: 1 + 1 = 2; P denominators 2 + 2; R denominators 2 + 1
    assert table.loc["run", "P@2"] == pytest.approx(2 / 4)
    assert table.loc["run", "R@2"] == pytest.approx(2 / 3)
    assert table.loc["run", "F1@2"] == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert table.loc["run", "RR"] == pytest.approx(1.0)  # no pooled form: macro


def test_micro_precision_with_divide_by_returned_pools_the_returned_counts(two_queries):
    run, qrels, _ = two_queries
    table = mean_table(
        evaluate(run, qrels, ["P@2"], Settings(averaging="micro", short_lists="divide_by_returned"))
    )
    assert table.loc["run", "P@2"] == pytest.approx(2 / 3)


def test_weighted_average_uses_the_query_weight_column(two_queries):
    run, qrels, segments = two_queries
    ev = evaluate(run, qrels, ["R@2"], Settings(averaging="weighted", weight_column="traffic"))
    table = mean_table(ev, segments)
    assert table.loc["run", "R@2"] == pytest.approx((3 * 0.5 + 1 * 1.0) / 4)


def test_weighted_average_without_the_weight_column_is_a_clear_error(two_queries):
    run, qrels, segments = two_queries
    ev = evaluate(run, qrels, ["R@2"], Settings(averaging="weighted", weight_column="clicks"))
    with pytest.raises(InputError, match="the weight column 'clicks' is not among the query"):
        mean_table(ev, segments)
    with pytest.raises(SettingsError, match="averaging='weighted' needs weight_column"):
        Settings(averaging="weighted")


def test_summary_groups_by_a_segment_column_with_counts_and_quartiles(two_queries):
    run, qrels, segments = two_queries
    summary = summarize(evaluate(run, qrels, ["R@2"]), segments, by=["kind"])
    rows = summary.set_index("kind")
    assert rows.loc["long", "value"] == pytest.approx(0.5)
    assert rows.loc["short", "value"] == pytest.approx(1.0)
    assert list(rows["n"]) == [1, 1]


def test_grouping_by_an_unknown_segment_names_the_available_columns(two_queries):
    run, qrels, segments = two_queries
    with pytest.raises(InputError, match=r"no segment column 'market'.*kind, traffic"):
        summarize(evaluate(run, qrels, ["R@2"]), segments, by=["market"])


def test_describe_reports_median_quartiles_std_and_ignores_left_out_queries():
    stats = describe(np.array([0.0, 1.0, np.nan, 0.5, 0.25]))
    assert stats["n"] == 4
    assert stats["mean"] == pytest.approx(0.4375)
    assert stats["median"] == pytest.approx(0.375)
    assert stats["q1"] == pytest.approx(0.1875)
    assert stats["std"] == pytest.approx(np.std([0, 1, 0.5, 0.25], ddof=1))


def test_left_out_queries_are_not_counted_at_cutoffs_beyond_their_length(two_queries):
    run, qrels, _ = two_queries
    ev = evaluate(run, qrels, ["P@2"], Settings(short_lists="leave_out"))
    summary = summarize(ev)
    assert summary.loc[0, "n"] == 1 and summary.loc[0, "value"] == pytest.approx(0.5)


def test_curve_summary_gives_mean_and_query_count_at_every_k(two_queries):
    run, qrels, _ = two_queries
    ev = evaluate(run, qrels, ["P@1"])
    table = curve_summary(curves(ev.lists, "P", 3))
    assert list(table["k"]) == [1, 2, 3]
    assert table["mean"].tolist() == pytest.approx([1.0, 0.5, (1 / 3 + 1 / 3) / 2])
    assert table["n"].tolist() == [2, 2, 2]


#: Per-query values as curves hold them: ties (few distinct values), NaN for left-out queries,
#: and now and then an infinity or a column with no value at all.
_CURVE_VALUES = arrays(
    np.float64,
    st.tuples(st.integers(0, 30), st.integers(1, 6)),
    elements=st.sampled_from([0.0, 0.25, 1 / 3, 0.5, 1.0, 2.5, -1.0, np.nan, np.inf]),
)


@given(_CURVE_VALUES)
def test_column_quartiles_are_numpys_nanpercentile_to_the_last_bit(values):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
        expected = (
            np.nanpercentile(values, [25, 50, 75], axis=0)
            if len(values)
            else np.full((3, values.shape[1]), np.nan)
        )
    assert np.array_equal(column_quartiles(values), expected, equal_nan=True)


def test_curve_quartiles_leave_out_nan_queries_column_by_column():
    values = np.array([[1.0, np.nan], [2.0, np.nan], [3.0, 5.0], [np.nan, 7.0]])
    q1, median, q3 = column_quartiles(values)
    assert median.tolist() == [2.0, 6.0]
    assert q1.tolist() == [1.5, 5.5] and q3.tolist() == [2.5, 6.5]


def test_multiple_models_are_summarised_separately_in_order_of_appearance():
    run = pd.DataFrame(
        {
            "query": ["q"] * 4,
            "item": ["a", "b", "a", "b"],
            "score": [2.0, 1.0, 1.0, 2.0],
            "model": ["m2", "m2", "m1", "m1"],
        }
    )
    qrels = pd.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    table = mean_table(evaluate(run, qrels, ["RR"]))
    assert list(table.index) == ["m2", "m1"]
    assert table["RR"].tolist() == [1.0, 0.5]


def test_raw_precision_recall_points_are_mean_recall_and_mean_precision_at_each_k(two_queries):
    from metrics.engine.evaluation import precision_recall_table

    run, qrels, _ = two_queries
    ev = evaluate(run, qrels, ["P@1", "P@2", "P@3", "R@1", "R@2", "R@3"])
    means = mean_table(ev).loc["run"]
    table = precision_recall_table(ev.lists, 3)
    raw = table[table["kind"] == "raw"]
    assert raw["k"].tolist() == [1.0, 2.0, 3.0]
    assert raw["precision"].tolist() == pytest.approx([means[f"P@{k}"] for k in (1, 2, 3)])
    assert raw["recall"].tolist() == pytest.approx([means[f"R@{k}"] for k in (1, 2, 3)])
    given = precision_recall_table(
        ev.lists, 3, precision=curves(ev.lists, "P", 3), recall=curves(ev.lists, "R", 3)
    )
    pd.testing.assert_frame_equal(given, table)
