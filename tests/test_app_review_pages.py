"""The Compare, Segments and Report pages show what metrics.review.compare and
metrics.review.statistics say."""

from __future__ import annotations

import re

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from metrics.engine.evaluation import evaluate
from metrics.io.loaders import load_sample
from metrics.review.compare import CompareOptions, comparison_table
from metrics.review.drilldown import side_by_side
from tests.app_support import APP

#: What the pages use unless the statistics options are changed.
PAGE_OPTIONS = CompareOptions(resamples=2_000)


@pytest.fixture(scope="module")
def web_search():
    data = load_sample("web_search")
    ev = evaluate(data.run, data.qrels, ["P@10", "R@10", "RR@10", "nDCG@10"])
    return data, ev


def open_review(page: str, query_params: dict[str, str] | None = None) -> AppTest:
    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in (query_params or {}).items():
        at.query_params[key] = value
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown_text(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [e.value for e in at.error]
    parts += [w.value for w in at.warning] + [s.value for s in at.success]
    text = "\n".join(parts).replace("&#95;", "_").replace("&#91;", "[")
    return re.sub(r"\\(.)", r"\1", text)  # Markdown escapes shown as the characters they stand for


# --------------------------------------------------------------------------- compare


@pytest.mark.slow
def test_compare_delta_table_equals_metrics_statistics_output(web_search):
    _, ev = web_search
    at = open_review("4_Compare")
    shown = at.dataframe[0].value.set_index(["candidate", "measure"])
    expected = comparison_table(ev, "lexical", options=PAGE_OPTIONS).set_index(
        ["candidate", "measure"]
    )
    assert list(shown.index) == list(expected.index)
    for column in (
        "n",
        "mean_a",
        "mean_b",
        "delta",
        "ci_low",
        "ci_high",
        "p_adjusted",
        "p_randomization",
        "p_ttest",
        "p_wilcoxon",
        "wins",
        "ties",
        "losses",
    ):
        assert shown[column].tolist() == pytest.approx(expected[column].tolist()), column
    assert shown.loc[("hybrid", "nDCG@10"), "delta"] == pytest.approx(0.2334, abs=1e-4)
    assert shown.loc[("hybrid", "nDCG@10"), "direction"] == "better"


@pytest.mark.slow
def test_compare_headline_says_hybrid_beats_lexical_on_ndcg():
    at = open_review("4_Compare")
    assert "hybrid beats lexical on nDCG@10: 0.773 vs 0.540, delta +0.233" in shown_text(at)


@pytest.mark.slow
def test_compare_with_hybrid_as_baseline_shows_lexical_worse():
    at = open_review("4_Compare")
    at.selectbox(key="w_review_baseline").set_value("hybrid").run()
    shown = at.dataframe[0].value.set_index(["candidate", "measure"])
    assert shown.loc[("lexical", "nDCG@10"), "direction"] == "worse"
    assert shown.loc[("lexical", "nDCG@10"), "delta"] == pytest.approx(-0.2334, abs=1e-4)


@pytest.mark.slow
def test_compare_drill_down_shows_both_top_lists_with_their_moves(web_search):
    data, ev = web_search
    at = open_review("4_Compare")
    at.selectbox(key="w_cmp_candidate").set_value("hybrid").run()
    at.selectbox(key="w_cmp_query_measure").set_value("nDCG").run()
    at.selectbox(key="w_cmp_query").set_value("109").run()
    left, right = at.dataframe[3].value, at.dataframe[4].value
    expected_a, expected_b = side_by_side(
        ev.lists["lexical"], ev.lists["hybrid"], data.run, "109", 10
    )
    assert left["item"].tolist() == expected_a["item"].tolist()
    assert right["item"].tolist() == expected_b["item"].tolist()
    assert right["change"].tolist()[:4] == ["new in top K"] * 3 + ["same rank"]
    assert "left top K" in left["change"].tolist()


@pytest.mark.slow
def test_compare_lists_the_queries_that_gained_and_lost_most():
    at = open_review("4_Compare")
    at.selectbox(key="w_cmp_candidate").set_value("hybrid").run()
    gained, lost = at.dataframe[1].value, at.dataframe[2].value
    assert len(gained) == 10 and (gained["delta"] > 0).all()
    assert gained["delta"].is_monotonic_decreasing
    assert len(lost) == 10 and (lost["delta"] < 0).all() and lost["delta"].is_monotonic_increasing


@pytest.mark.slow
def test_compare_follows_the_k_and_the_correction_choice(web_search):
    data, _ = web_search
    at = open_review("4_Compare")
    at.number_input(key="w_review_k").set_value(5).run()
    at.selectbox(key="w_review_correction").set_value("bh").run()
    shown = at.dataframe[0].value.set_index(["candidate", "measure"])
    expected = comparison_table(
        evaluate(data.run, data.qrels, ["P@5", "R@5", "RR@5", "nDCG@5"]),
        "lexical",
        options=CompareOptions(resamples=2_000, correction="bh"),
    ).set_index(["candidate", "measure"])
    assert shown["p_adjusted"].tolist() == pytest.approx(expected["p_adjusted"].tolist())
    assert ("hybrid", "nDCG@5") in shown.index


# --------------------------------------------------------------------------- segments


@pytest.mark.slow
def test_segments_page_says_hybrid_loses_to_lexical_on_navigational_queries():
    at = open_review("5_Segments")
    at.selectbox(key="w_seg_measure").set_value("nDCG").run()
    errors = [re.sub(r"\\(.)", r"\1", e.value) for e in at.error]
    assert any(
        e.startswith(
            "hybrid is best overall on nDCG@10 but loses to lexical where "
            "query_type = navigational: 0.754 vs 0.885"
        )
        for e in errors
    ), errors


@pytest.mark.slow
def test_segments_table_gives_each_models_mean_and_the_delta_per_segment(web_search):
    _, ev = web_search
    at = open_review("5_Segments")
    at.selectbox(key="w_seg_measure").set_value("nDCG").run()
    table = at.dataframe[0].value.set_index("query_type")
    assert list(table.index) == ["informational", "navigational", "transactional", "(all)"]
    assert table["n"].tolist() == [151, 70, 79, 300]
    assert table.loc["navigational", "lexical"] == pytest.approx(0.884989, abs=1e-6)
    assert table.loc["navigational", "hybrid vs lexical"] == "worse"
    assert table.loc["(all)", "hybrid vs lexical"] == "better"
    overall = ev.per_query.groupby("model")["nDCG@10"].mean()
    assert table.loc["(all)", "Δ hybrid"] == pytest.approx(overall["hybrid"] - overall["lexical"])


@pytest.mark.slow
def test_small_segments_are_flagged_not_hidden():
    at = open_review("5_Segments")
    at.multiselect(key="w_seg_by").set_value(["query_type", "traffic"]).run()
    table = at.dataframe[0].value
    assert len(table) == 10
    assert table["small"].sum() == 3
    assert any("3 segment(s) have fewer than 20 queries" in w.value for w in at.warning)


def test_segments_page_runs_on_the_recommendations_sample():
    at = open_review("5_Segments", {"data": "recommendations"})
    table = at.dataframe[0].value
    assert table["n"].iloc[-1] == 2000


# --------------------------------------------------------------------------- report


@pytest.mark.slow
def test_report_page_shows_headline_segments_health_and_provenance(web_search):
    data, _ = web_search
    at = open_review("6_Report")
    text = shown_text(at)
    assert "hybrid beats lexical on nDCG@10" in text
    assert "but loses to lexical where query_type = navigational" in text
    provenance = at.dataframe[-1].value.set_index("setting")["value"]
    assert provenance["Content hash (SHA-256)"] == data.content_hash
    assert provenance["Baseline"] == "lexical"
    assert provenance["Random seed"] == "0"
    findings = at.dataframe[-2].value
    assert "severity" in findings.columns and len(findings) == len(data.health.findings)
    assert len(at.get("download_button")) == 2


def test_pages_explain_that_one_model_cannot_be_compared():
    at = open_review("4_Compare", {"data": "teaching"})
    models = load_sample("teaching").models
    if len(models) < 2:
        assert any("at least two models" in i.value for i in at.info)
    else:
        assert len(at.dataframe) >= 1


# --------------------------------------------------------------------------- links


@pytest.mark.slow
def test_a_link_reopens_the_same_comparison():
    at = open_review(
        "4_Compare", {"base": "hybrid", "cand": "lexical", "at": "5", "seed": "3", "corr": "bh"}
    )
    assert at.selectbox(key="w_review_baseline").value == "hybrid"
    assert at.multiselect(key="w_review_candidates").value == ["lexical"]
    shown = at.dataframe[0].value
    assert shown["measure"].str.endswith("@5").all() and set(shown["candidate"]) == {"lexical"}
    assert at.selectbox(key="w_review_correction").value == "bh"


@pytest.mark.slow
def test_the_choices_are_written_into_the_link():
    at = open_review("5_Segments")
    at.number_input(key="w_review_k").set_value(20).run()
    assert at.query_params["at"] == "20"
    assert at.query_params["base"] == "lexical"
    assert at.query_params["cand"] == "dense,hybrid"


@pytest.mark.slow
def test_a_link_with_unknown_models_and_bad_numbers_keeps_the_defaults():
    at = open_review("4_Compare", {"base": "bm25", "cand": "x,y", "at": "-3", "boot": "7"})
    assert at.selectbox(key="w_review_baseline").value == "lexical"
    assert at.multiselect(key="w_review_candidates").value == ["dense", "hybrid"]
    assert at.number_input(key="w_review_k").value == 10
