"""Ranked lists reused under settings that do not change them give the numbers of a fresh run."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metrics import Settings, SettingsError, rank_run
from metrics.engine.ranking import ranking_key
from metrics.engine.registry import parse_measure
from tests.strategies import collections

NAMES = [
    "P@3",
    "R@5",
    "F1@2",
    "Success@1",
    "RR",
    "AP",
    "AP@3",
    "nDCG",
    "nDCG@3",
    "DCG@2",
    "Rprec",
    "Judged@4",
    "wP@3",
    "Bpref",
    "infAP",
    "IPrec@0.3",
    "ERR@3",
    "RBP@5",
    "RBPResid",
    "gP@3",
    "NumRelRet@3",
]


@pytest.mark.slow
@hsettings(max_examples=80, deadline=None)
@given(
    data=collections(),
    level=st.sampled_from([0.5, 1, 2, 3]),
    gain=st.sampled_from(["linear", "exponential"]),
    filtered=st.booleans(),
    short=st.sampled_from(["divide_by_k", "divide_by_returned", "leave_out"]),
    gain_map=st.sampled_from([None, "0:0,1:3,2:1,3:7", "1:0.5,2:0.7"]),
    rounding=st.sampled_from(["trunc", "lround"]),
)
def test_rescored_lists_equal_lists_ranked_afresh_under_the_new_settings(
    data, level, gain, filtered, short, gain_map, rounding
):
    run, qrels = data
    new = Settings(
        relevance_level=level,
        gain=gain,
        ndcg_relevance_level=filtered,
        short_lists=short,
        gain_map=gain_map,
        recall_rounding=rounding,
    )
    reused = rank_run(run, qrels)["run"].rescored(new)
    fresh = rank_run(run, qrels, new)["run"]
    for name in NAMES:
        spec = parse_measure(name)
        np.testing.assert_allclose(spec.compute(reused), spec.compute(fresh), err_msg=name)


def test_settings_that_change_the_lists_cannot_reuse_them():
    import pandas as pd

    run = pd.DataFrame({"query": ["q"], "item": ["a"], "score": [1.0]})
    qrels = pd.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    lists = rank_run(run, qrels)["run"]
    with pytest.raises(SettingsError, match="these settings change the ranked lists"):
        lists.rescored(Settings(ties="input_order"))
    with pytest.raises(SettingsError, match=r"lists \(max_results, judged_only\)"):
        lists.rescored(Settings(max_results=3, judged_only=True))
    leave_out = Settings(no_relevant="leave_out")
    assert ranking_key(leave_out) != ranking_key(leave_out.with_(relevance_level=2))
    assert ranking_key(Settings()) == ranking_key(Settings(relevance_level=2, gain="exponential"))
