"""nDCG and DCG agree with ranx per query: linear gain with ranx ``ndcg``/``dcg``, exponential with
``ndcg_burges``/``dcg_burges``.

ranx breaks ties by insertion order and refuses queries missing on either side, so the
collections are tie-free and every query is both judged and retrieved. ranx also gives labels
below the relevance level no gain; with level 1 and our ``ndcg_relevance_level`` both agree.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings

from metrics import Settings, evaluate
from tests.oracles import require_oracle
from tests.strategies import collections, to_dicts

ranx = require_oracle("ranx")

CUTOFFS = (1, 3, 5, 10)


def ranx_per_query(run, qrels, metrics: list[str]) -> dict[str, dict[str, float]]:
    run_d, qrels_d = to_dicts(run, qrels)
    shared = sorted(set(run_d) & set(qrels_d))
    result = ranx.evaluate(
        ranx.Qrels({q: qrels_d[q] for q in shared}),
        ranx.Run({q: run_d[q] for q in shared}),
        metrics,
        return_mean=False,
    )
    return {m: dict(zip(shared, result[m])) for m in metrics}


@pytest.mark.slow
@pytest.mark.parametrize("gain, ranx_name", [("linear", "ndcg"), ("exponential", "ndcg_burges")])
def test_ndcg_of_a_hand_made_list_equals_ranx(gain, ranx_name):
    import pandas as pd

    run = pd.DataFrame({"query": "q", "item": list("abcde"), "score": [5, 4, 3, 2, 1]})
    qrels = pd.DataFrame({"query": "q", "item": list("bcdx"), "relevance": [3, 1, 2, 1]})
    expected = ranx_per_query(run, qrels, [f"{ranx_name}@3", ranx_name])
    ours = evaluate(run, qrels, ["nDCG@3", "nDCG"], Settings(gain=gain)).per_query
    assert ours.loc[0, "nDCG@3"] == pytest.approx(expected[f"{ranx_name}@3"]["q"], abs=1e-9)
    assert ours.loc[0, "nDCG"] == pytest.approx(expected[ranx_name]["q"], abs=1e-9)
    assert 0 < ours.loc[0, "nDCG@3"] < 1


@pytest.mark.slow
@hsettings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(allow_unjudged_queries=False, tie_free=True))
def test_ndcg_equals_ranx_per_query_on_tie_free_collections(data):
    run, qrels = data
    names = [f"nDCG@{k}" for k in CUTOFFS] + ["nDCG"]
    for gain, ranx_name in (("linear", "ndcg"), ("exponential", "ndcg_burges")):
        metrics = [f"{ranx_name}@{k}" for k in CUTOFFS] + [ranx_name]
        expected = ranx_per_query(run, qrels, metrics)
        settings = Settings(gain=gain, ndcg_relevance_level=True)
        ours = evaluate(run, qrels, names, settings).per_query.set_index("query")
        assert sorted(ours.index) == sorted(expected[ranx_name])
        for name, metric in zip(names, metrics):
            for query, want in expected[metric].items():
                got = ours.loc[query, name]
                assert got == pytest.approx(want, abs=1e-9), (gain, query, name, got, want)


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=collections(allow_unjudged_queries=False, tie_free=True))
def test_dcg_equals_ranx_dcg_and_dcg_burges_per_query(data):
    run, qrels = data
    names = [f"DCG@{k}" for k in CUTOFFS]
    for gain, ranx_name in (("linear", "dcg"), ("exponential", "dcg_burges")):
        metrics = [f"{ranx_name}@{k}" for k in CUTOFFS]
        expected = ranx_per_query(run, qrels, metrics)
        settings = Settings(gain=gain, ndcg_relevance_level=True)
        ours = evaluate(run, qrels, names, settings).per_query.set_index("query")
        for name, metric in zip(names, metrics):
            for query, want in expected[metric].items():
                got = ours.loc[query, name]
                assert got == pytest.approx(want, abs=1e-9), (gain, query, name, got, want)
