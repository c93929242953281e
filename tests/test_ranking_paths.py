"""The ranking's two paths give the same lists: the one for files laid out as TREC files usually
are (each query's rows together, already in order) and the general one that sorts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metrics.engine import ranking
from metrics.engine.settings import Settings
from tests.strategies import collections

FAST = hsettings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FIELDS = ("query_ids", "offsets", "labels", "row_index", "ideal_offsets", "ideal_labels", "scores")
SETTINGS = [
    Settings(),
    Settings(ties="input_order"),
    Settings(score_precision="float64"),
    Settings(missing_queries="zero"),
    Settings(no_relevant="leave_out", relevance_level=2),
    Settings(max_results=3),
    Settings(judged_only=True, missing_queries="zero"),
]


def in_file_order(run: pd.DataFrame, qrels: pd.DataFrame, ties: str) -> tuple:
    """The run as TREC files hold it: queries in blocks (in their order of appearance), each by
    descending score, ties by descending item bytes (or in input order); judgments in blocks."""
    run = run.assign(
        block=run["query"].map({q: i for i, q in enumerate(pd.unique(run["query"]))}),
        key=run["score"].astype(np.float32).astype(np.float64),
        item_bytes=run["item"].map(lambda s: s.encode()),
    )
    by = ["block", "key"] + (["item_bytes"] if ties == "item_desc" else [])
    run = run.sort_values(by, ascending=[True, False, False][: len(by)], kind="stable")
    qrels = qrels.sort_values(
        "query", key=lambda c: c.map({q: i for i, q in enumerate(pd.unique(c))}), kind="stable"
    )
    return run.reset_index(drop=True), qrels.reset_index(drop=True)


def both_paths(run: pd.DataFrame, qrels: pd.DataFrame, settings: Settings) -> tuple:
    args = (
        pa.array(run["query"]),
        pa.array(run["item"]),
        run["score"].to_numpy(),
        pa.array(qrels["query"]),
        pa.array(qrels["item"]),
        qrels["relevance"].to_numpy(dtype=np.float64),
        settings,
    )
    grouped = ranking._rank_grouped(*ranking._read_columns(*args, "run"), settings)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ranking, "_rank_grouped", lambda *a, **k: None)
        general = ranking.rank_lists(*args)
    return grouped, general


@FAST
@given(data=collections(), which=st.integers(0, len(SETTINGS) - 1))
def test_lists_of_a_run_in_file_order_are_those_the_general_path_sorts_out(data, which):
    settings = SETTINGS[which]
    run, qrels = in_file_order(*data, settings.ties)
    grouped, general = both_paths(run, qrels, settings)
    assert grouped is not None, "a run in file order takes the grouped path"
    for name in FIELDS:
        a, b = getattr(grouped, name), getattr(general, name)
        assert a.dtype == b.dtype and a.shape == b.shape, name
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), name
    assert grouped.notes == general.notes


@FAST
@given(data=collections())
def test_the_grouped_path_declines_what_it_does_not_rank(data):
    """A query in two places, a rising score or an item twice in a query: not the grouped
    path (the general path ranks these)."""
    run, qrels = in_file_order(*data, "item_desc")
    split = pd.concat([run, run.iloc[:1]], ignore_index=True)  # first query again at the end
    twice = pd.concat([run.iloc[:1], run], ignore_index=True)  # first row repeated
    for bad in (split, twice):
        assert both_paths(bad, qrels, Settings())[0] is None
    if len(run) > 1 and run["query"][0] == run["query"][1] and run["score"][0] > run["score"][1]:
        rising = run.copy()
        rising.loc[[0, 1]] = run.loc[[1, 0]].to_numpy()
        assert both_paths(rising, qrels, Settings())[0] is None


def test_a_judgment_repeated_for_a_query_missing_from_the_run_takes_the_general_path():
    run = pd.DataFrame({"query": ["q1", "q1"], "item": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame(
        {"query": ["q1", "q2", "q2"], "item": ["a", "c", "c"], "relevance": [1, 0, 2]}
    )
    grouped, general = both_paths(run, qrels, Settings(missing_queries="zero"))
    assert grouped is None
    assert general.ideal_labels.tolist() == [1.0, 2.0]  # q2 keeps its highest label


def test_a_query_has_the_same_values_whatever_queries_come_before_it():
    """Each query's sums start at its first item (as trec_eval adds them), so its values do not
    change in the last bits with the size of the lists ranked before it."""
    from metrics import evaluate

    rng = np.random.default_rng(5)
    items = [f"d{i}" for i in range(1000)]
    big = pd.DataFrame({"query": "a", "item": items, "score": np.arange(1000.0, 0, -1)})
    small = pd.DataFrame({"query": "b", "item": items[:30], "score": np.arange(30.0, 0, -1)})
    qrels = pd.concat(
        [
            pd.DataFrame({"query": "a", "item": items, "relevance": rng.integers(0, 4, 1000)}),
            pd.DataFrame({"query": "b", "item": items[:30], "relevance": rng.integers(0, 4, 30)}),
        ]
    )
    names = [f"{m}@{k}" for m in ("AP", "nDCG") for k in range(1, 31)] + ["AP", "nDCG"]
    alone = evaluate(small, qrels, names).per_query.set_index("query").loc["b", names]
    after = evaluate(pd.concat([big, small]), qrels, names).per_query.set_index("query")
    assert alone.to_numpy().tobytes() == after.loc["b", names].to_numpy().tobytes()
