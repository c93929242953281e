"""What label sources change: Kendall's τ_b against scipy's ``kendalltau`` (ties included), τ_AP on
hand-derived cases and its top-weighted property (Yilmaz, Aslam and Robertson 2008), the swapped
pairs, every run evaluated under each source as an evaluation with that source alone, Judged@K
per source and the review's verdict under each source with its flips."""

from __future__ import annotations

import importlib
import warnings
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metrics import evaluate, summarize
from metrics.errors import SettingsError
from metrics.labels.consequence import (
    VERDICT_COLUMNS,
    consequence,
    kendall_tau_b,
    swapped_pairs,
    tau_ap,
)
from metrics.labels.sources import LabelSources
from metrics.labels.study import study_labels
from metrics.review.compare import CompareOptions
from tests.oracles import require_oracle

#: Few values, so that ties are frequent.
VALUES = [0.1, 0.25, 0.5, 0.5, 0.75, 0.9]
FAST = CompareOptions(resamples=999)


def values_pairs(min_size: int = 1, max_size: int = 12):
    return st.integers(min_size, max_size).flatmap(
        lambda n: st.tuples(
            st.lists(st.sampled_from(VALUES), min_size=n, max_size=n),
            st.lists(st.sampled_from(VALUES), min_size=n, max_size=n),
        )
    )


# --------------------------------------------------------------------------- Kendall's tau_b


@pytest.mark.slow
@hsettings(max_examples=200, deadline=None)
@given(pair=values_pairs())
def test_tau_b_equals_scipy_kendalltau_with_ties(pair):
    require_oracle("scipy")
    stats = importlib.import_module("scipy.stats")
    x, y = (np.array(v) for v in pair)
    ours = kendall_tau_b(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = stats.kendalltau(x, y).statistic
    if len(x) < 2:
        assert ours.reason == "one_system"
    elif np.isnan(theirs):
        assert np.isnan(ours.value) and ours.reason == "all_tied"
    else:
        assert ours.value == pytest.approx(theirs, rel=1e-12, abs=1e-12)
        assert ours.n == len(x) and not ours.reason


# --------------------------------------------------------------------------- tau_AP


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        ("ABCD", 1.0),
        ("DCBA", -1.0),
        # C(2..4) = 0, 1, 1 -> 2/3 * (0/1 + 2/2 + 3/3) - 1 = 1/3
        ("BACD", 1 / 3),
        # C(2..4) = 1, 1, 3 -> 2/3 * (1 + 1/2 + 1) - 1 = 2/3 (Kendall's tau of one swap)
        ("ACBD", 2 / 3),
        # C(2..4) = 1, 2, 2 -> 2/3 * (1 + 1 + 2/3) - 1 = 7/9
        ("ABDC", 7 / 9),
        # C(2..4) = 0, 0, 3 -> 2/3 * (0 + 0 + 1) - 1 = -1/3
        ("CBAD", -1 / 3),
    ],
)
def test_tau_ap_by_hand(order, expected):
    reference = np.array([4.0, 3.0, 2.0, 1.0])  # A > B > C > D
    other = np.empty(4)
    other[["ABCD".index(name) for name in order]] = [4.0, 3.0, 2.0, 1.0]
    assert tau_ap(reference, other).value == pytest.approx(expected)


def test_tau_ap_of_three_systems_by_hand():
    reference = np.array([3.0, 2.0, 1.0])
    # swap at the top: C(2) = 0, C(3) = 2 -> 2/2 * (0 + 2/2) - 1 = 0
    assert tau_ap(reference, np.array([2.0, 3.0, 1.0])).value == pytest.approx(0.0)
    # swap at the bottom: C(2) = 1, C(3) = 1 -> (1 + 1/2) - 1 = 0.5
    assert tau_ap(reference, np.array([3.0, 1.0, 2.0])).value == pytest.approx(0.5)


@hsettings(max_examples=100, deadline=None)
@given(n=st.integers(3, 30))
def test_a_swap_at_the_top_costs_more_than_one_at_the_bottom(n):
    reference = np.arange(n, 0, -1, dtype=float)
    top, bottom = reference.copy(), reference.copy()
    top[[0, 1]] = top[[1, 0]]
    bottom[[-1, -2]] = bottom[[-2, -1]]
    at_top, at_bottom = tau_ap(reference, top).value, tau_ap(reference, bottom).value
    assert at_top < at_bottom < 1
    # Kendall's tau does not tell the two apart
    assert kendall_tau_b(reference, top).value == pytest.approx(
        kendall_tau_b(reference, bottom).value
    )
    assert tau_ap(reference, reference).value == pytest.approx(1.0)
    assert tau_ap(reference, reference[::-1]).value == pytest.approx(-1.0)


def test_tau_ap_is_nan_with_a_reason_for_one_system_or_no_ordering():
    assert tau_ap(np.array([1.0]), np.array([2.0])).reason == "one_system"
    tied = tau_ap(np.array([1.0, 2.0]), np.array([0.5, 0.5]))
    assert np.isnan(tied.value) and tied.reason == "all_tied"


@hsettings(max_examples=150, deadline=None)
@given(pair=values_pairs(min_size=2))
def test_the_swapped_pairs_are_the_discordant_pairs(pair):
    a, b = (np.array(v) for v in pair)
    models = [f"m{i}" for i in range(len(a))]
    found = swapped_pairs(models, a, b)
    expected = {
        (models[i], models[j]) if a[i] > a[j] else (models[j], models[i])
        for i, j in combinations(range(len(a)), 2)
        if (a[i] - a[j]) * (b[i] - b[j]) < 0
    }
    assert set(zip(found["model_ahead"], found["model_behind"])) == expected
    assert len(found) == len(expected)
    assert (found["a_ahead"] > found["a_behind"]).all()
    assert (found["b_ahead"] < found["b_behind"]).all()
    concordant = sum((a[i] - a[j]) * (b[i] - b[j]) > 0 for i, j in combinations(range(len(a)), 2))
    tau = kendall_tau_b(a, b)
    assume(not tau.reason)
    untied_a = sum(a[i] != a[j] for i, j in combinations(range(len(a)), 2))
    untied_b = sum(b[i] != b[j] for i, j in combinations(range(len(a)), 2))
    assert tau.value == pytest.approx((concordant - len(found)) / np.sqrt(untied_a * untied_b))


# --------------------------------------------------------------------------- runs under sources


def _flip_data(queries: int = 30):
    """Two models and two sources that disagree on which item is relevant: the annotators judge
    the baseline's first item relevant, the judge the candidate's, and the judge leaves one item
    of each list unjudged."""
    ids = [f"q{i:02d}" for i in range(queries)]
    run = pd.DataFrame(
        {
            "query": np.repeat(ids, 4),
            "item": np.tile(["a", "b", "c", "d"], queries),
            "score": np.tile([4.0, 3.0, 2.0, 1.0], queries),
            "model": "base",
        }
    )
    candidate = run.assign(model="cand", item=np.tile(["b", "a", "c", "d"], queries))
    run = pd.concat([run, candidate], ignore_index=True)
    table = pd.DataFrame(
        {
            "query": np.repeat(ids, 4),
            "item": np.tile(["a", "b", "c", "d"], queries),
            "annotators": np.tile([1.0, 0.0, 0.0, 0.0], queries),
            "judge": np.tile([0.0, 1.0, 0.0, np.nan], queries),
        }
    )
    return run, LabelSources(table)


def test_every_run_under_each_source_is_an_evaluation_with_that_source_alone():
    run, sources = _flip_data()
    found = consequence(run, sources, ["P@1", "nDCG@3"], options=FAST, k=4)
    for name in sources.names:
        alone = summarize(evaluate(run, sources.qrels(name), ["P@1", "nDCG@3"]))
        ours = found.means[found.means["source"] == name].drop(columns="source")
        merged = alone.merge(ours, on=["model", "measure"], suffixes=("", "_ours"))
        assert len(merged) == 4
        assert np.allclose(merged["value"], merged["value_ours"])
    judged = found.judged.set_index(["source", "model"])
    assert judged.loc[("annotators", "base"), "judged"] == 1.0
    assert judged.loc[("judge", "cand"), "holes"] == pytest.approx(0.25)
    assert judged.loc[("judge", "cand"), "queries"] == 30
    assert (found.judged["k"] == 4).all()


def test_a_verdict_that_flips_with_the_source_is_named():
    run, sources = _flip_data()
    found = consequence(run, sources, ["P@1"], options=FAST)
    assert list(found.verdicts.columns) == VERDICT_COLUMNS
    verdicts = found.verdicts.set_index("source")["verdict"]
    assert verdicts["annotators"] == "worse" and verdicts["judge"] == "better"
    assert found.verdicts["flip"].all() and len(found.flips) == 2
    row = found.correlations.iloc[0]
    assert (row["tau_b"], row["tau_ap"], row["tau_ap_reverse"], row["swaps"]) == (-1, -1, -1, 1)
    swap = found.swaps.iloc[0]
    assert (swap["model_ahead"], swap["model_behind"]) == ("base", "cand")
    order = found.orderings[found.orderings["source"] == "judge"]
    assert list(order["model"]) == ["cand", "base"] and list(order["rank"]) == [1, 2]


def test_the_same_verdict_under_every_source_is_no_flip():
    run, sources = _flip_data()
    table = sources.table.assign(judge=sources.table["annotators"])
    found = consequence(run, LabelSources(table), ["P@1", "P@3"], options=FAST)
    assert not found.verdicts["flip"].any() and found.flips.empty
    assert (found.correlations["tau_b"].fillna(1.0) == 1.0).all()


def test_one_model_has_no_ordering_and_no_verdict():
    run, sources = _flip_data()
    found = consequence(run[run["model"] == "base"], sources, ["P@1"], options=FAST)
    assert found.verdicts.empty and list(found.verdicts.columns) == VERDICT_COLUMNS
    assert found.correlations["reason"].tolist() == ["one_system"]
    assert np.isnan(found.correlations["tau_b"][0]) and found.swaps.empty


def test_models_tied_under_a_source_have_no_correlation():
    run, sources = _flip_data()
    found = consequence(run, sources, ["P@3"], options=FAST)  # every list holds a and b
    assert found.correlations["reason"].tolist() == ["all_tied"]


def test_the_study_needs_two_sources_and_adds_an_aggregate():
    run, sources = _flip_data(10)
    study = study_labels(sources, run, ["P@1"], options=FAST, aggregate="max")
    assert study.sources.names == ("annotators", "judge", "max")
    assert set(study.consequence.means["source"]) == {"annotators", "judge", "max"}
    assert len(study.agreement.pairs) == 1  # the aggregate is not in the agreement
    assert study.summary["source"].tolist() == ["annotators", "judge", "max"]
    alone = study_labels(sources)
    assert alone.consequence is None and alone.agreement.pairs["n"][0] == 30
    with pytest.raises(SettingsError, match="at least two"):
        study_labels(LabelSources(sources.table[["query", "item", "judge"]]))
    with pytest.raises(SettingsError, match="label aggregate"):
        study_labels(sources, aggregate="mode")
    with pytest.raises(SettingsError, match="not a model"):
        consequence(run, sources, ["P@1"], baseline="nope", options=FAST)
