"""The conventions of the learning-to-rank libraries: the no-relevant-item policy ``one``, and the
LightGBM and XGBoost profiles against the libraries' own ``eval_at`` nDCG."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics import Settings, SettingsError, evaluate
from metrics.engine.explain import explain_list
from metrics.engine.profiles import PROFILE_NAMES, own_measures, profile, profile_settings
from tests.oracles import require_oracle
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


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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


# --------------------------------------------------------------------------- the libraries

#: The cutoffs of the libraries' ``eval_at`` in these tests.
EVAL_AT = (1, 2, 3, 5, 10)


def lightgbm_means(labels, scores, sizes, ks=EVAL_AT) -> dict[int, float]:
    """LightGBM's own ``eval_at`` nDCG of ``scores`` as given: they are the initial scores of a
    booster with no tree, evaluated on its training set."""
    lgb = require_oracle("lightgbm")
    data = lgb.Dataset(
        np.zeros((len(labels), 1)),
        label=labels,
        group=sizes,
        init_score=scores,
        params={"verbose": -1, "num_threads": 1},
    )
    params = {"objective": "lambdarank", "metric": "ndcg", "eval_at": list(ks), "num_threads": 1}
    found = lgb.Booster({**params, "verbose": -1}, data).eval_train()
    return {int(name.split("@")[1]): float(value) for _, name, value, _ in found}


def xgboost_means(labels, scores, sizes, key: str, measure="nDCG", ks=EVAL_AT) -> dict[int, float]:
    """XGBoost's own values of ``measure`` at each cutoff of ``ks``, under the name the profile
    ``key`` gives it (``ndcg@10``, ``ndcg@10-``, ``pre@10``), of ``scores`` as given: the base
    margin of a booster with no tree."""
    xgb = require_oracle("xgboost")
    data = xgb.DMatrix(np.zeros((len(labels), 1)), label=labels, base_margin=scores, nthread=1)
    data.set_group(sizes)
    names = [profile(key).name_of(f"{measure}@{k}") for k in ks]
    booster = xgb.train({"objective": "rank:ndcg", "eval_metric": names, "nthread": 1}, data, 0)
    fields = booster.eval(data).split()[1:]  # "[0]  train-ndcg@1:0.5  ..."
    return {k: float(f.rsplit(":", 1)[1]) for k, f in zip(ks, fields)}


def our_means(labels, scores, sizes, key: str, ks=EVAL_AT, measure="nDCG") -> dict[int, float]:
    """The mean of ``measure`` at each cutoff of ``ks`` of our engine under the profile
    ``key``, the rows of each query in the order given."""
    query = np.repeat([f"q{i}" for i in range(len(sizes))], sizes)
    items = [f"d{i}" for i in range(len(labels))]
    run = pd.DataFrame({"query": query, "item": items, "score": np.asarray(scores, float)})
    qrels = pd.DataFrame({"query": query, "item": items, "relevance": labels})
    names = [f"{measure}@{k}" for k in ks]
    table = per_query(run, qrels, names, profile(key).settings())
    assert len(table) == len(sizes)  # every query is evaluated
    return {k: float(table[name].mean()) for k, name in zip(ks, names)}


#: Scores with many ties; 1 and 1 + 1e-9 differ in double precision only (XGBoost's
#: predictions are single precision: it ties them, LightGBM does not).
TIED_SCORES = [0.0, 0.5, 1.0, 1.0 + 1e-9, 2.0, -1.0]


@st.composite
def labelled_queries(draw, grades=(0, 1, 3)):
    """Queries of 1–12 rows with labels from 0 to one of ``grades`` (0: the query has no
    relevant item) and scores with ties."""
    sizes = draw(st.lists(st.integers(1, 12), min_size=1, max_size=5))
    labels, scores = [], []
    for n in sizes:
        top = draw(st.sampled_from(grades))
        labels += draw(st.lists(st.integers(0, top), min_size=n, max_size=n))
        scores += draw(st.lists(st.sampled_from(TIED_SCORES), min_size=n, max_size=n))
    return np.array(labels, float), np.array(scores), sizes


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=labelled_queries())
def test_the_profiles_equal_the_libraries_on_given_scores_with_ties(data):
    labels, scores, sizes = data
    found = {
        "lightgbm": lightgbm_means(labels, scores, sizes),
        "xgboost": xgboost_means(labels, scores, sizes, "xgboost"),
        "xgboost_minus": xgboost_means(labels, scores, sizes, "xgboost_minus"),
    }
    for key, theirs in found.items():
        assert our_means(labels, scores, sizes, key) == pytest.approx(theirs, abs=1e-12), key


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=labelled_queries(grades=(0, 1)))
def test_xgboost_s_pre_at_k_is_p_at_k_of_its_profile_on_short_lists(data):
    labels, scores, sizes = data  # pre@k takes binary labels only
    for key in ("xgboost", "xgboost_minus"):
        theirs = xgboost_means(labels, scores, sizes, key, "P")
        ours = our_means(labels, scores, sizes, key, measure="P")
        assert ours == pytest.approx(theirs, abs=1e-12), key


# --------------------------------------------------------------------------- trained models

#: Learning-to-rank sets in the layout of LightGBM's examples/lambdarank (README there): a small
#: generated one, and LightGBM's own ``rank.test`` of that folder.
LAMBDARANK = Path(__file__).resolve().parent / "fixtures" / "lambdarank"
GENERATED, EXAMPLE = "rank.train", "lightgbm.rank.test"
BOTH_SETS = pytest.mark.parametrize(
    "name", [GENERATED, EXAMPLE], ids=["generated", "lightgbm_example"]
)
#: The cutoffs of LightGBM's lambdarank example (``eval_at = 1,3,5``) and 10; rounds trained.
TRAIN_EVAL_AT = (1, 3, 5, 10)
ROUNDS = 20


def read_lambdarank(name: str) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Features, labels and query sizes of the file ``name`` and its ``name.query`` (libsvm
    lines ``label index:value ...``; one query's row count per line)."""
    rows = (LAMBDARANK / name).read_text(encoding="ascii").splitlines()
    sizes = [int(n) for n in (LAMBDARANK / f"{name}.query").read_text().split()]
    assert sum(sizes) == len(rows)
    labels = np.array([float(r.split()[0]) for r in rows])
    width = max(int(p.split(":")[0]) for r in rows for p in r.split()[1:])
    features = np.zeros((len(rows), width))
    for i, r in enumerate(rows):
        for pair in r.split()[1:]:
            j, value = pair.split(":")
            features[i, int(j) - 1] = float(value)
    return features, labels, sizes


def lambdarank_set(name: str, with_empty: bool) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """The set of ``read_lambdarank(name)`` with queries whose labels are all 0 if
    ``with_empty`` (when the file has none, every seventh query from the fourth gets only
    label 0), without them if not."""
    features, labels, sizes = read_lambdarank(name)
    starts = np.cumsum([0, *sizes])
    if with_empty and count_empty(labels, sizes) == 0:
        for q in range(3, len(sizes), 7):
            labels[starts[q] : starts[q + 1]] = 0
    keep = [
        q for q in range(len(sizes)) if with_empty or labels[starts[q] : starts[q + 1]].max() > 0
    ]
    rows_kept = np.concatenate([np.arange(starts[q], starts[q + 1]) for q in keep])
    return features[rows_kept], labels[rows_kept], [sizes[q] for q in keep]


def test_lightgbm_reads_the_lambdarank_files_as_these_tests_do():
    lgb = require_oracle("lightgbm")
    for name in (GENERATED, EXAMPLE):
        # LightGBM finds NAME.query beside NAME by itself
        data = lgb.Dataset(str(LAMBDARANK / name), params={"verbose": -1}).construct()
        _, labels, sizes = read_lambdarank(name)
        np.testing.assert_array_equal(data.get_label(), labels)
        assert list(data.get_group()) == sizes, name


def tied_queries(scores, sizes) -> int:
    """How many queries hold two rows with the same score."""
    chunks = np.split(np.asarray(scores), np.cumsum(sizes)[:-1])
    return sum(len(np.unique(chunk)) < len(chunk) for chunk in chunks)


def compare_rounds(predict, record, labels, sizes, keys, rounds=None) -> tuple[int, int]:
    """Our means under each profile of ``keys`` from the predictions after a number of
    rounds (``predict(done)``; every round unless ``rounds`` says which) against the values the
    library recorded while training; returns how many of the rounds compared had tied
    predictions within a query and how many had none."""
    trained = len(record[profile(keys[0]).name_of(f"nDCG@{TRAIN_EVAL_AT[0]}")])
    with_ties = without = 0
    for done in rounds or range(1, trained + 1):
        scores = predict(done)
        tied = tied_queries(scores, sizes) > 0
        with_ties, without = with_ties + tied, without + (not tied)
        for key in keys:
            names = {k: profile(key).name_of(f"nDCG@{k}") for k in TRAIN_EVAL_AT}
            theirs = {k: record[name][done - 1] for k, name in names.items()}
            ours = our_means(labels, scores, sizes, key, TRAIN_EVAL_AT)
            assert ours == pytest.approx(theirs, abs=1e-12), (key, done)
    return with_ties, without


def count_empty(labels, sizes) -> int:
    """Queries whose labels are all 0."""
    return sum(chunk.max() == 0 for chunk in np.split(labels, np.cumsum(sizes)[:-1]))


@BOTH_SETS
@pytest.mark.parametrize("with_empty", [True, False], ids=["with_empty_queries", "without"])
def test_lightgbm_s_recorded_eval_at_equals_the_profile_on_a_trained_model(name, with_empty):
    lgb = require_oracle("lightgbm")
    features, labels, sizes = lambdarank_set(name, with_empty)
    assert (count_empty(labels, sizes) > 0) == with_empty
    params = {
        "objective": "lambdarank",
        "metric": "ndcg",
        "eval_at": list(TRAIN_EVAL_AT),
        "num_leaves": 31,
        "min_data_in_leaf": 1,
        "min_sum_hessian_in_leaf": 0,
        "learning_rate": 0.3,
        "num_threads": 1,
        "deterministic": True,
        "seed": 1,
        "verbose": -1,
    }
    found = [0, 0]
    # the first trees leave rows of a query in one leaf (ties, kept in row order); on the
    # generated set later rounds tell every row apart, on LightGBM's example (300 features) not
    # in 20 rounds: there trees with a linear model in each leaf do after a few
    for tree_params in ({}, {"linear_tree": True}):
        train = lgb.Dataset(features, label=labels, group=sizes)  # linear_tree: a new Dataset
        record: dict = {}
        booster = lgb.train(
            {**params, **tree_params},
            train,
            ROUNDS,
            valid_sets=[train],
            valid_names=["train"],
            callbacks=[lgb.record_evaluation(record)],
        )
        counts = compare_rounds(
            lambda done, b=booster: b.predict(features, num_iteration=done, raw_score=True),
            record["train"],
            labels,
            sizes,
            ["lightgbm"],
        )
        found = [found[0] + counts[0], found[1] + counts[1]]
    assert min(found) > 0, found


@BOTH_SETS
@pytest.mark.parametrize("with_empty", [True, False], ids=["with_empty_queries", "without"])
def test_xgboost_s_recorded_ndcg_equals_the_profiles_on_trained_models(name, with_empty):
    xgb = require_oracle("xgboost")
    features, labels, sizes = lambdarank_set(name, with_empty)
    assert (count_empty(labels, sizes) > 0) == with_empty
    keys = ["xgboost", "xgboost_minus"]
    metrics = [profile(key).name_of(f"nDCG@{k}") for key in keys for k in TRAIN_EVAL_AT]
    train = xgb.DMatrix(features, label=labels, qid=np.repeat(np.arange(len(sizes)), sizes))
    found = [0, 0]
    # trees tie rows of a query for many rounds; a linear model's predictions do not tie here
    # (its predictions are those of the last round: only that one is compared)
    for booster_params, rounds in (
        ({"booster": "gbtree", "max_depth": 6, "min_child_weight": 0}, None),
        ({"booster": "gblinear"}, [ROUNDS]),
    ):
        params = {"objective": "rank:ndcg", "eval_metric": metrics, "eta": 0.3, "nthread": 1}
        record: dict = {}
        booster = xgb.train(
            {**params, **booster_params, "seed": 1},
            train,
            ROUNDS,
            evals=[(train, "train")],
            evals_result=record,
            verbose_eval=False,
        )
        counts = compare_rounds(
            lambda done, b=booster: b.predict(train, iteration_range=(0, done), output_margin=True),
            record["train"],
            labels,
            sizes,
            keys,
            rounds,
        )
        found = [found[0] + counts[0], found[1] + counts[1]]
    assert min(found) > 0, found


# --------------------------------------------------------------------------- explained, named


def test_every_profile_name_evaluates_and_flags_win_over_it():
    assert PROFILE_NAMES[:2] == ("trec_eval9", "trec_eval10")
    assert profile_settings("trec_eval10") == Settings(
        score_precision="float64", recall_rounding="lround"
    )
    assert profile_settings("lightgbm", gain="linear") == profile("lightgbm").settings().with_(
        gain="linear"
    )
    with pytest.raises(SettingsError, match="no profile 'catboost'; profiles: trec_eval9, "):
        profile_settings("catboost")


def test_a_tool_without_the_chosen_measures_is_compared_on_its_own():
    assert own_measures(["trec_eval", "lightgbm"], ["P@10", "nDCG@10"], 10) == ["P@10", "nDCG@10"]
    assert own_measures(["trec_eval", "ragas"], ["P@10", "RR"], 5) == ["P@10", "RR", "CP@5"]
    assert own_measures(["deepeval"], ["CP@5"], 10) == ["CP@5"]


def test_explain_names_the_gain_and_the_empty_queries_between_trec_eval_and_lightgbm(tmp_path):
    from metrics.cli.explain import main

    run = pd.DataFrame(
        {"query": ["a", "a", "b", "b"], "item": ["x", "y", "x", "y"], "score": [2, 1, 2, 1]}
    )
    qrels = pd.DataFrame(
        {"query": ["a", "a", "b", "b"], "item": ["x", "y", "x", "y"], "relevance": [1, 2, 0, 0]}
    )
    run.to_csv(tmp_path / "run.csv", index=False)
    qrels.to_csv(tmp_path / "qrels.csv", index=False)
    files = [str(tmp_path / "qrels.csv"), str(tmp_path / "run.csv")]
    out, err = io.StringIO(), io.StringIO()
    assert (
        main([*files, "--to", "lightgbm", "-m", "nDCG@2", "--format", "json"], out=out, err=err)
        == 0
    )
    document = json.loads(out.getvalue())
    causes = {row["query"]: row["cause"] for row in document["queries"]}
    assert causes == {"a": "gain", "b": "no_relevant"}
    out, err = io.StringIO(), io.StringIO()
    assert main([*files, "--to", "ragas"], out=out, err=err) == 0
    assert "mean CP@10: " in err.getvalue()
