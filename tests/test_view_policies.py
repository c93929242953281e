"""Every policy can be chosen in the view and survives a copied link."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import fields
from pathlib import Path

from metrics.engine.settings import POLICIES, Settings
from ui.shell.view import (
    INPUT_POLICIES,
    MENU_POLICIES,
    URL_NAMES,
    View,
    from_query_params,
    to_query_params,
)

ROOT = Path(__file__).resolve().parents[1]


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


def test_the_view_holds_every_settings_field_with_the_engine_default():
    view, settings = View(), Settings()
    for f in fields(Settings):
        assert getattr(view, f.name) == getattr(settings, f.name), f.name
    assert view.settings() == settings
    assert View(gain="exponential").with_(ties="input_order").settings() == Settings(
        gain="exponential", ties="input_order"
    )


def test_a_policy_added_to_the_settings_is_a_field_of_the_view_without_an_edit_of_it():
    code = """
from dataclasses import dataclass
import metrics.engine.settings as s

@dataclass(frozen=True)
class Extended(s.Settings):
    new_policy: str = "a"

s.Settings = Extended
from ui.shell.view import URL_NAMES, View
view = View(new_policy="b")
assert view.new_policy == "b" and View().new_policy == "a", view
assert view.settings().new_policy == "b"
assert URL_NAMES["new_policy"] == "new_policy"
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_link_parameter_names_stay_those_of_links_saved_before():
    saved = (
        "data=data m=measures k=k_range rel=relevance_level gain=gain ties=ties short=short_lists "
        "avg=averaging w=weight_column prec=score_precision dup=duplicates missing=missing_queries "
        "norel=no_relevant frac=fractional_labels ndcgrel=ndcg_relevance_level J=judged_only "
        "rround=recall_rounding M=max_results gains=gain_map order=score_order "
        "orders=score_order_by_model lang=lang labels=label_source"
    )
    assert " ".join(f"{url}={field}" for field, url in URL_NAMES.items()) == saved
