"""Every policy can be chosen in the view and survives a copied link."""

from __future__ import annotations

from metrics.engine.settings import POLICIES, Settings
from ui.shell.view import INPUT_POLICIES, MENU_POLICIES, View, from_query_params, to_query_params


def test_every_policy_with_a_menu_is_part_of_the_view():
    assert set(MENU_POLICIES) | set(INPUT_POLICIES) == set(POLICIES) - {"relevance_level"}


def test_judged_only_maximum_results_gains_and_rounding_round_trip_through_the_link():
    view = View(judged_only=True, max_results=50, gain_map="0:0,1:1,2:3", recall_rounding="lround")
    params = to_query_params(view)
    assert params["J"] == "True" and params["M"] == "50" and params["gains"] == "0:0,1:1,2:3"
    back = from_query_params(params)
    assert back == view
    assert back.settings() == Settings(
        judged_only=True, max_results=50, gain_map="0:0,1:1,2:3", recall_rounding="lround"
    )


def test_invalid_maximum_results_and_gain_maps_in_a_link_keep_the_defaults():
    back = from_query_params({"M": "0", "gains": "1:x"})
    assert back.max_results is None and back.gain_map is None


def test_non_default_policies_round_trip_through_the_link_and_reach_the_settings():
    view = View(
        score_precision="float64",
        duplicates="error",
        missing_queries="zero",
        no_relevant="leave_out",
        ndcg_relevance_level=True,
        ties="input_order",
    )
    params = to_query_params(view)
    assert params["prec"] == "float64" and params["ndcgrel"] == "True"
    back = from_query_params(params)
    assert back == view
    assert back.settings() == Settings(
        score_precision="float64",
        duplicates="error",
        missing_queries="zero",
        no_relevant="leave_out",
        ndcg_relevance_level=True,
        ties="input_order",
    )


def test_unknown_policy_values_in_a_link_keep_the_defaults():
    back = from_query_params({"dup": "sometimes", "ndcgrel": "maybe"})
    assert back.duplicates == "keep_best" and back.ndcg_relevance_level is False
