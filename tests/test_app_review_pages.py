"""The Compare, Segments and Report pages show the one review table of metrics.review.verdict."""

from __future__ import annotations

import re

import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from metrics.engine.evaluation import evaluate
from metrics.io.samples import load_sample
from metrics.review.compare import CompareOptions
from metrics.review.drilldown import side_by_side
from metrics.review.verdict import ReviewRequest, overall_rows, review_table, segment_rows
from metrics.review.wording import row_p
from tests.app_support import APP, ROOT, fresh_app, open_page, open_tab, tables_with

#: What the pages use unless the statistics options are changed (the CLI's defaults too).
PAGE_OPTIONS = CompareOptions()


@pytest.fixture(scope="module")
def web_search():
    data = load_sample("web_search")
    ev = evaluate(data.run, data.qrels, ["P@10", "R@10", "RR@10", "nDCG@10"])
    return data, ev


def page_review(ev, data, baseline="lexical", candidates=("dense", "hybrid"), options=None):
    """The shared table the pages compute with their defaults (segments of the first column)."""
    request = ReviewRequest(
        baseline,
        candidates,
        ("P@10", "R@10", "RR@10", "nDCG@10"),
        ("query_type",),
        options or PAGE_OPTIONS,
    )
    return review_table(ev, request, data.segments)


def open_review(page: str, query_params: dict[str, str] | None = None) -> AppTest:
    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=180)
    for key, value in (query_params or {}).items():
        at.query_params[key] = value
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown_text(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [e.value for e in at.error]
    parts += [w.value for w in at.warning] + [s.value for s in at.success]
    parts += [i.value for i in at.info] + [c.value for c in at.caption]
    text = "\n".join(parts).replace("&#95;", "_").replace("&#91;", "[").replace("&lt;", "<")
    return re.sub(r"\\(.)", r"\1", text)  # Markdown escapes shown as the characters they stand for


# --------------------------------------------------------------------------- compare


def test_compare_table_shows_the_shared_review_table_with_readable_columns(web_search):
    data, ev = web_search
    at = open_review("4_Compare")
    shown = at.dataframe[0].value.set_index(["candidate", "measure"])
    expected = overall_rows(page_review(ev, data)).set_index(["candidate", "measure"])
    assert list(shown.index) == list(expected.index)
    assert list(shown.columns)[:4] == ["queries", "reference mean", "candidate mean", "Δ"]
    assert shown["Δ"].tolist() == pytest.approx(expected["delta"].tolist())
    assert shown["corrected p"].tolist() == [row_p(r) for r in expected.to_dict("records")]
    assert shown.loc[("hybrid", "nDCG@10"), "Δ"] == pytest.approx(0.2440, abs=1e-4)
    assert shown.loc[("hybrid", "nDCG@10"), "verdict"] == "better"
    assert shown.loc[("hybrid", "nDCG@10"), "corrected p"] == "p < 0.002"  # floor, as a bound
    full = tables_with(at, "p t-test (exact)")[0].set_index(["candidate", "measure"])
    assert full["p t-test (exact)"].tolist() == pytest.approx(expected["p_ttest"].tolist())
    assert set(full["correction family"]) == {
        "randomization test, Holm over 4 measures × 2 candidates"
    }


def test_on_a_phone_compare_shows_delta_p_and_the_verdict_first():
    """A second table, shown on narrow screens only (frame.PHONE_ONLY), names each row in one
    column and gives Δ, the corrected p and the verdict next; the wide table keeps its order."""
    from ui.shell.frame import PHONE_HIDDEN, PHONE_ONLY

    at = open_review("4_Compare")
    wide, phone = at.dataframe[0].value, at.dataframe[1].value
    assert list(phone.columns)[:4] == ["candidate · measure", "Δ", "corrected p", "verdict"]
    assert phone["candidate · measure"].tolist() == [
        f"{c} · {m}" for c, m in zip(wide["candidate"], wide["measure"])
    ]
    assert phone["Δ"].tolist() == wide["Δ"].tolist()
    assert phone["verdict"].tolist() == wide["verdict"].tolist()
    assert set(phone.columns) - {"candidate · measure"} == set(wide.columns) - {
        "candidate",
        "measure",
    }
    css = "\n".join(str(h.proto.body) for h in at.get("html"))
    assert f'[class*="st-key-{PHONE_HIDDEN}"] {{ display: none !important; }}' in css
    assert f'[class*="st-key-{PHONE_ONLY}"] {{ display: none !important; }}' in css


def test_compare_verdict_box_says_hybrid_is_better_on_all_measures_and_ahead_of_dense():
    at = open_review("4_Compare")
    text = shown_text(at)
    assert (
        "hybrid against lexical, over all 300 queries: better on nDCG@10 (+0.244), P@10 (+0.227), "
        "R@10 (+0.102) and RR@10 (+0.143), each p < 0.002." in text
    )
    assert "Where query_type = navigational: worse on nDCG@10 (-0.138), P@10 (-0.136)" in text
    assert (
        "hybrid is ahead of the baseline and of every other candidate on nDCG@10, P@10, R@10 "
        "and RR@10." in text
    )


@pytest.mark.slow
def test_compare_with_hybrid_as_baseline_shows_lexical_worse():
    at = open_review("4_Compare")
    at.selectbox(key="w_review_baseline").set_value("hybrid").run()
    shown = at.dataframe[0].value.set_index(["candidate", "measure"])
    assert shown.loc[("lexical", "nDCG@10"), "verdict"] == "worse"
    assert shown.loc[("lexical", "nDCG@10"), "Δ"] == pytest.approx(-0.2440, abs=1e-4)


@pytest.mark.slow
def test_compare_drill_down_shows_both_top_lists_with_their_moves(web_search):
    data, ev = web_search
    at = open_review("4_Compare", {"ctab": "queries"})
    at.selectbox(key="w_cmp_candidate").set_value("hybrid").run()
    at.selectbox(key="w_cmp_query_measure").set_value("nDCG").run()
    at.selectbox(key="w_cmp_query").set_value("109").run()
    left, right = tables_with(at, "rank", "item")[-2:]
    expected_a, expected_b = side_by_side(
        ev.lists["lexical"], ev.lists["hybrid"], data.run, "109", 10
    )
    assert left["item"].tolist() == expected_a["item"].tolist()
    assert right["item"].tolist() == expected_b["item"].tolist()
    assert right["change"].tolist()[:4] == ["new in top K"] * 3 + ["same rank"]
    assert "left top K" in left["change"].tolist()
    assert expected_b["change"].tolist()[:4] == ["new"] * 3 + ["same"]  # codes in the data
    assert "Segments of this query: query_type = " in shown_text(at)
    assert at.query_params["q"] == "109" and at.query_params["qm"] == "nDCG"


def test_a_link_with_a_query_and_a_measure_reopens_that_query():
    at = open_review("4_Compare", {"q": "109", "qm": "nDCG", "qc": "hybrid"})
    assert at.selectbox(key="w_cmp_query").value == "109"
    assert at.selectbox(key="w_cmp_query_measure").value == "nDCG"
    assert at.selectbox(key="w_cmp_candidate").value == "hybrid"


def test_a_segment_link_limits_the_drill_down_to_that_segments_queries(web_search):
    data, _ = web_search
    at = open_review("4_Compare", {"qseg": "query_type=navigational"})
    gained, lost = tables_with(at, "query", "Δ")[:2]
    assert set(gained["query_type"]) | set(lost["query_type"]) == {"navigational"}
    navigational = set(data.segments.loc[data.segments["query_type"] == "navigational", "query"])
    assert at.selectbox(key="w_cmp_query").value in {str(q) for q in navigational}


def test_compare_lists_the_queries_that_gained_and_lost_most_with_their_segments():
    at = open_review("4_Compare", {"ctab": "queries"})
    at.selectbox(key="w_cmp_candidate").set_value("hybrid").run()
    gained, lost = tables_with(at, "query", "Δ")[:2]
    assert len(gained) == 10 and (gained["Δ"] > 0).all() and gained["Δ"].is_monotonic_decreasing
    assert len(lost) == 10 and (lost["Δ"] < 0).all() and lost["Δ"].is_monotonic_increasing
    assert {"query_type", "traffic"} <= set(gained.columns)


def test_compare_lists_the_queries_where_ndcg_and_precision_disagree():
    at = open_review("4_Compare", {"ctab": "disagree"})
    opposite = tables_with(at, "Δ nDCG@10", "Δ P@10")[0]
    assert list(opposite.columns) == ["query", "Δ nDCG@10", "Δ P@10"]
    assert len(opposite) > 0
    assert ((opposite["Δ nDCG@10"] * opposite["Δ P@10"]) < 0).all()


def test_compare_follows_the_k_the_correction_and_its_family(web_search):
    data, _ = web_search
    at = open_review("4_Compare")
    at.number_input(key="w_review_k").set_value(5).run()
    at.selectbox(key="w_review_correction").set_value("bh").run()
    at.selectbox(key="w_review_family").set_value("all").run()
    full = tables_with(at, "p t-test (exact)")[0].set_index(["candidate", "measure"])
    request = ReviewRequest(
        "lexical",
        ("dense", "hybrid"),
        ("P@5", "R@5", "RR@5", "nDCG@5"),
        ("query_type",),
        CompareOptions(correction="bh"),
        family="all",
    )
    ev = evaluate(data.run, data.qrels, ["P@5", "R@5", "RR@5", "nDCG@5"])
    expected = overall_rows(review_table(ev, request, data.segments))
    assert full["corrected p"].tolist() == [row_p(r) for r in expected.to_dict("records")]
    assert set(full["correction family"]) == {
        "randomization test, Benjamini–Hochberg over all 36 comparisons"
    }
    assert at.query_params["fam"] == "all"


# --------------------------------------------------------------------------- segments


def test_segments_call_out_gives_the_same_corrected_p_as_the_table():
    at = open_review("5_Segments")
    at.selectbox(key="w_seg_measure").set_value("nDCG").run()
    assert not at.error  # findings are not drawn as application errors
    lines = shown_text(at).splitlines()
    hybrid = [line for line in lines if "hybrid is better than lexical overall on nDCG@10" in line]
    assert hybrid and hybrid[0].startswith(":material/trending_down: **Worse** · ")
    assert "significantly worse where query_type = navigational: 0.801 vs 0.939" in hybrid[0]
    table = at.dataframe[0].value.set_index("query_type")
    assert table.loc["navigational", "corrected p hybrid"] in hybrid[0]
    assert "Holm over 3 segments × 4 measures × 2 candidates)" in hybrid[0]


@pytest.mark.slow
def test_segments_table_gives_each_models_mean_and_the_delta_per_segment(web_search):
    _, ev = web_search
    at = open_review("5_Segments")
    at.selectbox(key="w_seg_measure").set_value("nDCG").run()
    table = at.dataframe[0].value.set_index("query_type")
    assert list(table.index) == ["informational", "navigational", "transactional", "(all queries)"]
    assert table["queries"].tolist() == ["151", "70", "79", "300"]
    assert table.loc["navigational", "lexical"] == pytest.approx(0.939147, abs=1e-6)
    assert table.loc["navigational", "hybrid vs baseline"] == "worse"
    assert table.loc["(all queries)", "hybrid vs baseline"] == "better"
    overall = ev.per_query.groupby("model")["nDCG@10"].mean()
    assert table.loc["(all queries)", "Δ hybrid"] == pytest.approx(
        overall["hybrid"] - overall["lexical"]
    )


@pytest.mark.slow
def test_two_segment_columns_are_broken_down_each_on_its_own():
    at = open_review("5_Segments")
    at.multiselect(key="w_seg_by").set_value(["query_type", "traffic"]).run()
    first, second = at.dataframe[0].value, at.dataframe[1].value
    assert first.columns[0] == "query_type" and second.columns[0] == "traffic"
    # every query type once, then every traffic level once, each with the row over all queries
    assert first["query_type"].iloc[:-1].is_unique and second["traffic"].iloc[:-1].is_unique
    assert first["queries"].iloc[-1] == second["queries"].iloc[-1] == "300"


def test_small_segments_are_flagged_not_hidden():
    at = open_review("5_Segments")
    at.multiselect(key="w_seg_by").set_value(["query_type", "traffic"]).run()
    at.toggle(key="w_seg_cross").set_value(True).run()  # the crossed cells: an opt-in view
    table = at.dataframe[0].value
    assert len(table) == 10
    assert table["queries"].str.endswith(" (small)").sum() == 3
    assert any("3 segments have fewer than 20 queries" in w.value for w in at.warning)


def test_segments_page_runs_on_the_recommendations_sample():
    at = open_review("5_Segments", {"data": "recommendations"})
    table = at.dataframe[0].value
    assert table["queries"].iloc[-1] == "2000"


def test_segments_page_offers_to_open_a_segments_queries_in_compare():
    at = open_review("5_Segments")
    links = [str(p.proto).replace("\\", "") for p in at.get("page_link")]
    assert any(
        "Open the queries of query_type = informational in Compare" in p
        and "qseg=query_type%3Dinformational" in p
        for p in links
    ), links


# --------------------------------------------------------------------------- report


def test_report_page_shows_verdict_figures_glossary_segments_health_and_provenance(web_search):
    data, _ = web_search
    at = open_review("6_Report")
    text = shown_text(at)
    assert "hybrid against lexical, over all 300 queries: better on nDCG@10 (+0.244)" in text
    buttons = {b.key: b.label for b in at.get("download_button")}
    open_tab(at, "report", "segments")
    assert "significantly worse where query_type = navigational" in shown_text(at)
    open_tab(at, "report", "about")
    assert "**P@10 · Precision**: Share of the top K results that are relevant." in shown_text(at)
    provenance = tables_with(at, "setting")[-1].set_index("setting")["value"]
    assert provenance["Content hash (SHA-256)"] == data.content_hash
    assert provenance["Baseline"] == "lexical"
    assert provenance["Random seed"] == "0"
    assert provenance["Correction family"].startswith("Per table (overall")
    assert provenance["Power"] == "80%" and provenance["Smallest difference that matters"] == "none"
    findings = tables_with(at, "severity")[-1]
    assert "severity" in findings.columns and len(findings) == len(data.health.findings)
    assert set(buttons) == {"dl_report_html", "dl_report_interactive", "dl_report_zip"} | {
        f"dl_report_code_{name}" for name in ("run", "qrels", "queries")
    }
    assert "light, to mail" in buttons["dl_report_html"]


def test_the_three_pages_show_the_same_corrected_p_for_hybrid_on_navigational_queries():
    compare = open_review("4_Compare", {"m": "nDCG"})
    segments = open_review("5_Segments", {"m": "nDCG"})
    report = open_review("6_Report", {"m": "nDCG", "rtab": "segments"})
    on_segments = segments.dataframe[0].value.set_index("query_type")
    p = on_segments.loc["navigational", "corrected p hybrid"]
    report_rows = tables_with(report, "segment", "corrected p")[0]
    row = report_rows[
        (report_rows["segment"] == "query_type = navigational")
        & (report_rows["candidate"] == "hybrid")
    ]
    assert row["corrected p"].tolist() == [p]
    assert f"Where query_type = navigational: worse on nDCG@10 (-0.138, {p})" in shown_text(compare)


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


def test_a_link_naming_an_unknown_data_set_says_so():
    at = open_review("4_Compare", {"data": "no_such_data"})
    warnings = [w.value for w in at.warning]
    assert any("no\\_such\\_data" in w or "no_such_data" in w for w in warnings), warnings
    assert any("showing 'web" in w for w in warnings)


def test_switching_the_data_set_resets_choices_that_no_longer_exist():
    at = open_review("4_Compare", {"ctab": "queries"})
    at.selectbox(key="w_cmp_candidate").set_value("hybrid").run()
    at.selectbox(key="w_cmp_query").set_value("109").run()
    at.session_state["w_sample"] = "recommendations"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="w_review_baseline").value == "baseline"
    assert at.selectbox(key="w_cmp_candidate").value == "candidate"
    assert (
        at.selectbox(key="w_cmp_query").value != "109"
        or "109" in at.selectbox(key="w_cmp_query").options
    )
    open_tab(at, "compare", "summary")
    assert len(at.dataframe[0].value) == 4  # the four sidebar measures for one candidate


# --------------------------------------------------------------------------- missing segment values

SAMPLE = ROOT / "sample_data" / "web_search"


def segments_with_query_table(queries: pd.DataFrame) -> AppTest:
    """The Segments page after uploading the sample run and judgments with ``queries``."""
    at = open_review("1_Data")
    at.radio(key="w_source").set_value("upload").run()
    at.file_uploader(key="up_runs").set_value(
        [("run.csv", (SAMPLE / "run.csv").read_bytes(), "text/csv")]
    )
    at.file_uploader(key="up_judgments").set_value(
        ("qrels.csv", (SAMPLE / "qrels.csv").read_bytes(), "text/csv")
    )
    at.file_uploader(key="up_queries").set_value(
        ("queries.csv", queries.to_csv(index=False).encode(), "text/csv")
    )
    at.run()
    at.switch_page("pages/5_Segments.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.slow
def test_the_missing_segments_delta_is_the_difference_of_its_means_and_its_n_is_the_tables():
    """Queries 1–20 absent from the query table and 21–50 with an empty query type are one
    missing segment of 50 queries: in the means, the Δ, the corrected p and the exported rows."""
    queries = pd.read_csv(SAMPLE / "queries.csv")
    queries.loc[queries["query"] <= 50, "query_type"] = None
    queries = queries[queries["query"] > 20]
    at = segments_with_query_table(queries)
    table = at.dataframe[0].value.set_index("query_type")
    missing = table.loc["(missing)"]
    assert missing["queries"] == "50"
    for candidate in ("dense", "hybrid"):
        assert missing[f"Δ {candidate}"] == pytest.approx(missing[candidate] - missing["lexical"])
        assert missing[f"corrected p {candidate}"] != ""
    data = load_sample("web_search")
    segments = queries.assign(query=queries["query"].astype(str))
    request = ReviewRequest(
        "lexical", ("dense", "hybrid"), ("P@10",), ("query_type",), CompareOptions(resamples=1000)
    )
    exported = segment_rows(
        review_table(evaluate(data.run, data.qrels, ["P@10"]), request, segments)
    )
    assert set(exported.loc[exported["segment"] == "query_type = (missing)", "n"]) == {50}
    assert "Holm over 4 segments × 4 measures × 2 candidates" in shown_text(at)


@pytest.mark.slow
def test_a_query_table_matching_no_query_of_the_run_says_so_and_counts_one_segment():
    queries = pd.read_csv(SAMPLE / "queries.csv")
    at = segments_with_query_table(queries.assign(query=queries["query"] + 1000))
    assert at.dataframe[0].value["query_type"].tolist() == ["(missing)", "(all queries)"]
    assert any("No query of the run is in the query table" in w.value for w in at.warning)
    assert "Holm over 1 segment × 4 measures × 2 candidates" in shown_text(at)


@pytest.mark.parametrize("page", ["compare", "learn"])
def test_a_page_in_chinese_runs_again_with_its_menus_in_chinese(page):
    at = open_page(fresh_app({"lang": "zh"}), page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not [e for e in at.error if "error id" in e.value]


@pytest.mark.parametrize("page", ["compare", "segments"])
def test_with_micro_averaging_the_review_pages_say_they_compare_macro_means(page):
    at = open_page(fresh_app(), page)
    at.sidebar.selectbox(key="w_averaging").set_value("micro").run()
    captions = " ".join(c.value for c in at.caption)
    assert "mean of per-query values over the paired queries (macro)" in captions
    assert "micro" in captions.split("(macro)")[1]


def test_the_compare_filter_offers_the_missing_segment_of_queries_absent_from_the_table():
    queries = pd.read_csv(SAMPLE / "queries.csv", dtype=str)
    queries = queries[~queries["query"].isin([str(q) for q in range(1, 21)])]
    at = segments_with_query_table(queries)
    at.switch_page("pages/4_Compare.py")
    at.run()
    open_tab(at, "compare", "queries")
    box = next(b for b in at.selectbox if b.key == "w_cmp_segment")
    assert "query_type = (missing)" in box.options  # as shown
    box.set_value("query_type=(missing)").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["w_cmp_segment"] == "query_type=(missing)"


# --------------------------------------------------------------------------- tabs


def _open_tab_label(at: AppTest, page: str) -> str:
    return str(at.session_state[f"{page}_tabs"])


def test_compare_keeps_its_open_tab_in_the_link_across_pages_and_languages():
    at = open_review("4_Compare")
    assert "ctab" not in at.query_params  # the summary: the tab a plain link opens
    assert not tables_with_columns(at, "query", "Δ")  # only the open tab is laid out
    open_tab(at, "compare", "queries")
    assert at.query_params["ctab"] == "queries"
    assert tables_with(at, "query", "Δ")
    open_page(at, "data")
    open_page(at, "compare")
    assert _open_tab_label(at, "compare") == "Per query" and tables_with(at, "query", "Δ")
    at.session_state["w_lang"] = "ja"
    at.run()
    assert _open_tab_label(at, "compare") == "クエリごと" and tables_with(at, "query_type", "Δ")


def test_a_link_naming_a_drill_down_choice_or_a_tab_opens_that_tab():
    at = open_review("4_Compare", {"q": "109"})
    assert at.selectbox(key="w_cmp_query").value == "109"
    at = open_review("6_Report", {"rtab": "about"})
    assert "Settings and provenance" in [h.value for h in at.subheader]
    at = open_review("6_Report")
    assert "Settings and provenance" not in [h.value for h in at.subheader]


def tables_with_columns(at: AppTest, *columns: str) -> list:
    return [d.value for d in at.dataframe if set(columns) <= set(d.value.columns)]
