"""A table of per-query values (as ``--per-query-out`` writes it, or any tool with ``model, query,
measure columns``) opens as a data set: Compare and Segments show what metrics.review says for
it, Curves shows the computed K, and the pages that need ranked lists say they are not available."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from metrics.engine.evaluation import evaluate
from metrics.engine.settings import Settings
from metrics.errors import InputError
from metrics.io.per_query import looks_like_per_query, per_query_dataset
from metrics.io.samples import load_sample
from metrics.review.compare import CompareOptions, comparison_table
from tests.app_support import APP, open_tab
from ui.shell import per_query_data
from ui.shell.compute import cutoff_table_of
from ui.shell.i18n import catalog

MEASURES = ["P@5", "P@10", "R@10", "RR@10", "nDCG@5", "nDCG@10", "AP"]


@pytest.fixture(scope="module")
def web_search():
    data = load_sample("web_search")
    evaluation = evaluate(data.run, data.qrels, MEASURES)
    table = evaluation.per_query.merge(data.segments, on="query", how="left")
    return per_query_dataset(table, "web_search_per_query.parquet"), evaluation, data


def page_failures(at: AppTest) -> list[str]:
    """Error boxes of a page that failed (an input it could not show, or an unexpected error), in
    any language; the pages' own error call-outs (a worse segment) are not failures."""
    starts = [
        catalog(lang)[key].split("{")[0]
        for lang in ("en", "zh", "ja")
        for key in ("frame.input_error", "frame.unexpected_error", "frame.measure_error")
    ]
    return [e.value for e in at.error if any(e.value.startswith(s) for s in starts)]


def open_with(
    dataset, page: str, lang: str | None = None, k_range: str | None = None, **state
) -> AppTest:
    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["data"] = "per_query"
    if lang:
        at.query_params["lang"] = lang
    if k_range:
        at.query_params["k"] = k_range
    at.session_state["per_query_dataset"] = dataset
    for key, value in state.items():
        at.session_state[key] = value
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not page_failures(at)
    return at


def test_a_per_query_table_is_recognised_by_its_columns(web_search):
    dataset, _, _ = web_search
    assert looks_like_per_query(dataset.per_query)
    assert not looks_like_per_query(load_sample("web_search").run)
    assert dataset.models == ["lexical", "dense", "hybrid"]
    assert dataset.segment_columns == ["query_type", "traffic"]
    assert dataset.cutoffs("nDCG") == [5, 10]
    assert dataset.measure_names == MEASURES


def test_trec_eval_column_names_are_read_as_measures():
    table = pd.DataFrame({"runid": ["a", "a"], "qid": ["1", "2"], "ndcg_cut_10": [0.5, 1.0]})
    dataset = per_query_dataset(table, "t.csv")
    assert dataset.measure_names == ["nDCG@10"]
    assert dataset.models == ["a"]


def test_a_repeated_model_and_query_is_refused_with_the_line():
    table = pd.DataFrame({"model": ["a", "a"], "query": ["1", "1"], "P@10": [0.5, 1.0]})
    with pytest.raises(InputError, match="model 'a' has query '1' twice") as caught:
        per_query_dataset(table, "t.csv")
    assert caught.value.line == 3


def test_a_table_without_measure_columns_is_refused():
    table = pd.DataFrame({"model": ["a"], "query": ["1"], "value": [0.5]})
    with pytest.raises(InputError, match="no column is named after a measure"):
        per_query_dataset(table, "t.csv")


def test_curves_exist_only_at_the_computed_cutoffs(web_search):
    dataset, evaluation, _ = web_search
    table = per_query_data.curve_table_of(dataset, ("P", "nDCG", "R"), 1, 20)
    assert sorted(set(table[table["measure"] == "nDCG"]["k"])) == [5, 10]
    means = evaluation.per_query.groupby("model")["P@5"].mean()
    got = table[(table["measure"] == "P") & (table["k"] == 5)].set_index("model")["mean"]
    np.testing.assert_allclose(got.sort_index(), means.sort_index())


def test_compare_page_shows_the_comparison_of_the_per_query_values(web_search):
    dataset, evaluation, _ = web_search
    at = open_with(dataset, "4_Compare")
    shown = at.dataframe[0].value.set_index(["candidate", "measure"])
    expected = comparison_table(
        evaluation,
        "lexical",
        measures=["P@10", "R@10", "RR@10", "nDCG@10"],
        options=CompareOptions(resamples=2_000),
    ).set_index(["candidate", "measure"])
    assert sorted(shown.index) == sorted(expected.index)
    assert len(shown) == 2 * 4
    for column, engine_column in (
        ("queries", "n"),
        ("reference mean", "mean_a"),
        ("candidate mean", "mean_b"),
        ("Δ", "delta"),
    ):
        np.testing.assert_allclose(
            shown[column].astype(float), expected.loc[shown.index, engine_column].astype(float)
        )
    open_tab(at, "compare", "queries")
    texts = [i.value for i in at.info]
    assert any("per-query values only" in x for x in texts)  # no drill-down into lists


def test_segments_page_shows_every_model_per_segment_for_per_query_values(web_search):
    dataset, _, _ = web_search
    at = open_with(dataset, "5_Segments")
    table = at.dataframe[0].value
    assert len(table) >= 3  # navigational, informational, transactional
    assert not [i.value for i in at.info if "has no column" in i.value]


def test_averages_of_per_query_values_need_no_ranked_lists(web_search):
    dataset, evaluation, _ = web_search
    for averaging in ("macro", "micro"):
        values = dataset.evaluation(["P@10", "nDCG@10"], Settings(averaging=averaging))
        table = cutoff_table_of(values, dataset.segments).set_index(["model", "measure"])
        means = evaluation.per_query.groupby("model")[["P@10", "nDCG@10"]].mean()
        for measure in ("P@10", "nDCG@10"):
            got = table.xs(measure, level="measure")["value"]
            np.testing.assert_allclose(got.sort_index(), means[measure].sort_index())


def test_curves_page_shows_the_table_and_distribution_at_the_computed_cutoffs(web_search):
    dataset, evaluation, _ = web_search
    at = open_with(dataset, "3_Curves")
    titles = [h.value for h in at.subheader]
    assert "Values at the computed cutoffs" in titles and "Per-query distribution" in titles
    table = at.dataframe[0].value.set_index("model")
    assert list(table.columns) == ["P@5", "P@10", "R@10", "RR@10", "nDCG@5", "nDCG@10"]
    means = evaluation.per_query.groupby("model")[["P@10", "nDCG@5"]].mean()
    for measure in ("P@10", "nDCG@5"):
        np.testing.assert_allclose(table[measure], means.loc[table.index, measure])
    # the distribution is of P at K = 10, a cutoff the table has
    assert at.selectbox(key="w_dist_k_computed").options == ["5", "10"]
    quartiles = at.dataframe[1].value.set_index("model")
    np.testing.assert_allclose(quartiles["mean"], means.loc[quartiles.index, "P@10"])
    notes = [c.value for c in at.caption]
    assert any(n.startswith("Not available: how complete the judgments are") for n in notes)
    assert any(n.startswith("Not available: precision against recall") for n in notes)


def test_curves_page_on_per_query_values_speaks_the_session_language(web_search):
    dataset, _, _ = web_search
    at = open_with(dataset, "3_Curves", lang="zh")
    titles = [h.value for h in at.subheader]
    assert "已计算截断位置上的值" in titles
    notes = [c.value for c in at.caption]
    assert any(n.startswith("不可用：标注的完整程度") for n in notes)
    assert any(n.startswith("不可用：精确率-召回率曲线") for n in notes)


def test_curves_page_names_a_measure_the_table_lacks_at_every_k(web_search):
    dataset, _, _ = web_search
    at = open_with(dataset, "3_Curves", k_range="1-5", w_dist_measure="RR")
    assert any("has no column for RR at any K from 1 to 5" in i.value for i in at.info)


def test_learn_page_says_that_per_query_values_have_no_lists(web_search):
    dataset, _, _ = web_search
    at = open_with(dataset, "2_Learn", w_learn_source="query")
    assert any("without ranked lists" in i.value for i in at.info)


def test_a_measure_not_computed_at_k_is_named_instead_of_failing(web_search):
    dataset, _, _ = web_search
    at = open_with(dataset, "4_Compare", w_review_k=3)
    assert any("has no column for" in i.value for i in at.info)


def test_report_page_builds_the_report_from_per_query_values_and_names_what_is_left_out(
    web_search,
):
    dataset, _, _ = web_search
    at = open_with(dataset, "6_Report")
    titles = [h.value for h in at.subheader]
    for title in ("Verdict", "Headline figures", "Candidates against each other"):
        assert title in titles
    assert at.get("plotly_chart")
    assert at.get("download_button")
    assert "Charts" in [h.value for h in open_tab(at, "report", "charts").subheader]
    segments = [h.value for h in open_tab(at, "report", "segments").subheader]
    assert any(title.startswith("Segments") for title in segments)
    open_tab(at, "report", "about")
    notes = [i.value for i in at.info]
    left_out = next(x for x in notes if x.startswith("This report is built from a table"))
    assert "data health checks" in left_out
    # the report charts the lead measure, nDCG@10, which the table has at K = 5 and 10
    assert "the Δ curve of" not in left_out
    assert any(x.startswith("Not checked") for x in notes)
    assert not [s.value for s in at.success if "No problems" in s.value]
    # without nDCG the first measure leads: R, which the table has at K = 10 only
    at.multiselect(key="w_measures").set_value(["R", "P"]).run()
    left_out = next(x for x in [i.value for i in at.info] if x.startswith("This report is"))
    assert "the Δ curve of R" in left_out and "the Δ curve of P" not in left_out


def test_report_page_on_per_query_values_speaks_the_session_language(web_search):
    dataset, _, _ = web_search
    at = open_with(dataset, "6_Report", lang="ja")
    assert any(
        x.startswith("このレポートはクエリごとの指標値の表から") for x in [i.value for i in at.info]
    )
    open_tab(at, "report", "about")
    notes = [i.value for i in at.info]
    assert any(x.startswith("このレポートはクエリごとの指標値の表から") for x in notes)
    assert any(x.startswith("チェックしていません") for x in notes)


def test_exported_report_on_per_query_values_says_what_is_left_out(web_search):
    from metrics.engine.settings import Settings
    from metrics.review.stakeholder_report import (
        REPORT_TEMPLATES,
        ReportInputs,
        build_report_html,
    )
    from metrics.review.verdict import ReviewRequest, review_table
    from ui.shell.i18n import templates

    dataset, _, _ = web_search
    options = CompareOptions(resamples=200)
    measures = ("P@10", "nDCG@10")
    review = review_table(
        dataset.evaluation(list(measures)),
        ReviewRequest("lexical", ("dense", "hybrid"), measures, ("query_type",), options),
        dataset.segments,
    )

    def page(lang: str) -> str:
        return build_report_html(
            ReportInputs(
                dataset_name=dataset.name,
                content_hash=dataset.content_hash,
                models=dataset.models,
                baseline="lexical",
                measures=list(measures),
                ks=[5, 10],
                n_queries=300,
                settings=Settings(),
                options=options,
                review=review,
                segment_by=["query_type"],
                words=templates(REPORT_TEMPLATES, lang),
                lang=lang,
                per_query=True,
                missing_curves=[("R", 1, 20)],
            )
        )

    english = page("en")
    note = english[english.index('id="left-out"') :]
    note = note[: note.index("</div>")]
    assert "the data health checks of the runs and judgments" in note
    assert "the Δ curve of R: the table has it at fewer than two K from 1 to 20" in note
    assert english.index("Executive summary") < english.index('id="left-out"')
    assert english.index('id="left-out"') < english.index("Headline figures")
    assert "Segment findings" in english
    assert "Not checked: the data health checks read the runs and judgments" in english
    assert "No problems were found in the data." not in english
    chinese = page("zh")
    assert "以下内容需要排序列表和标注，或者表中没有记录，因此未包含" in chinese
    assert "R 的 Δ 曲线" in chinese


@pytest.fixture(scope="module")
def two_measures(web_search):
    """The web search values with two of the default measures only (P@10 and nDCG@10)."""
    _, evaluation, data = web_search
    table = evaluation.per_query[["model", "query", "P@10", "nDCG@10"]]
    table = table.merge(data.segments, on="query", how="left")
    return per_query_dataset(table, "two_measures.csv"), evaluation


@pytest.mark.parametrize("page", ["4_Compare", "5_Segments", "6_Report"])
def test_a_table_with_some_of_the_measures_is_compared_on_those_it_has(two_measures, page):
    dataset, _ = two_measures
    at = open_with(dataset, page, w_seg_by=["query_type"])
    notes = [i.value for i in at.info]
    assert (
        "The per-query table has no column for R@10, RR@10 at K = 10: "
        "this page compares P@10, nDCG@10." in notes
    )
    assert at.dataframe  # the page goes on to its tables


def test_compare_page_shows_the_measures_a_partial_table_has(two_measures):
    dataset, evaluation = two_measures
    at = open_with(dataset, "4_Compare")
    shown = at.dataframe[0].value.set_index(["candidate", "measure"])
    assert sorted(set(shown.index.get_level_values("measure"))) == ["P@10", "nDCG@10"]
    expected = comparison_table(
        evaluation, "lexical", measures=["P@10", "nDCG@10"], options=CompareOptions()
    ).set_index(["candidate", "measure"])
    np.testing.assert_allclose(
        shown["Δ"].astype(float), expected.loc[shown.index, "delta"].astype(float)
    )


def test_the_measures_a_table_lacks_are_named_in_the_session_language(two_measures):
    dataset, _ = two_measures
    at = open_with(dataset, "4_Compare", lang="zh")
    notes = [i.value for i in at.info]
    assert "逐查询表中没有 R@10, RR@10 在截断位置 K = 10 的列：本页比较 P@10, nDCG@10。" in notes
    assert not [x for x in notes if "no measure" in x or "evaluation" in x]
