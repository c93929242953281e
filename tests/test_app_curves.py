"""The Curves page shows the values that metrics computes, and follows the settings."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from metrics import Settings, evaluate
from metrics.engine.aggregation import mean_table
from metrics.io.samples import load_sample
from tests.app_support import fresh_app, open_page


@pytest.fixture(scope="module")
def web_search():
    return load_sample("web_search")


def cutoff_table(at):
    table = at.dataframe[0].value
    return table.set_index("model")


def test_curves_table_shows_hybrid_ndcg_at_10_computed_by_metrics(web_search):
    at = open_page(fresh_app(), "curves")
    expected = mean_table(evaluate(web_search.run, web_search.qrels, ["nDCG@10"]))
    shown = cutoff_table(at)
    assert shown.loc["hybrid", "nDCG@10"] == pytest.approx(expected.loc["hybrid", "nDCG@10"])
    assert shown.loc["hybrid", "nDCG@10"] == pytest.approx(0.81111, abs=1e-4)
    assert list(shown.index) == ["lexical", "dense", "hybrid"]


@pytest.mark.slow
def test_curves_table_uses_standard_cutoffs_inside_the_k_range():
    at = open_page(fresh_app(), "curves")
    assert [c for c in cutoff_table(at).columns if c.startswith("P@")] == [
        "P@1",
        "P@3",
        "P@5",
        "P@10",
        "P@20",
    ]
    at.sidebar.slider(key="w_k").set_value((3, 50)).run()
    assert [c for c in cutoff_table(at).columns if c.startswith("P@")] == [
        "P@3",
        "P@5",
        "P@10",
        "P@20",
        "P@50",
    ]


@pytest.mark.slow
def test_raising_the_relevance_level_lowers_precision_as_metrics_says(web_search):
    at = open_page(fresh_app(), "curves")
    at.sidebar.number_input(key="w_rel").set_value(2.0).run()
    expected = mean_table(
        evaluate(web_search.run, web_search.qrels, ["P@10"], Settings(relevance_level=2))
    )
    shown = cutoff_table(at)
    assert shown.loc["lexical", "P@10"] == pytest.approx(expected.loc["lexical", "P@10"])
    assert shown.loc["lexical", "P@10"] < 0.526


def test_choosing_measures_changes_the_charts_and_the_table():
    at = open_page(fresh_app(), "curves")
    at.sidebar.multiselect(key="w_measures").set_value(["AP"]).run()
    assert len(at.get("plotly_chart")) == 3  # one curve chart, the distribution, precision-recall
    assert [c for c in cutoff_table(at).columns] == ["AP@1", "AP@3", "AP@5", "AP@10", "AP@20"]


@pytest.mark.slow
def test_distribution_table_gives_median_and_quartiles_of_per_query_values(web_search):
    at = open_page(fresh_app(), "curves")
    at.selectbox(key="w_dist_measure").set_value("nDCG").run()
    at.number_input(key="w_dist_k").set_value(10).run()
    table = at.dataframe[1].value.set_index("model")
    per_query = evaluate(web_search.run, web_search.qrels, ["nDCG@10"]).per_query
    hybrid = per_query[per_query["model"] == "hybrid"]["nDCG@10"]
    assert table.loc["hybrid", "median"] == pytest.approx(hybrid.median())
    assert table.loc["hybrid", "first quartile"] == pytest.approx(hybrid.quantile(0.25))
    assert table.loc["hybrid", "queries"] == 300


def test_table_csv_keeps_numbers_numeric_and_neutralises_formula_text():
    import pandas as pd

    from ui.curves.tables import csv_bytes

    text = csv_bytes(pd.DataFrame({"model": ["=cmd()", "hybrid"], "value": [-0.5, 0.77]}))
    assert text.decode("utf-8-sig").splitlines() == ["model,value", "'=cmd(),-0.5", "hybrid,0.77"]


@pytest.mark.slow
def test_micro_averaging_changes_the_table_but_not_the_lines(web_search):
    at = open_page(fresh_app(), "curves")
    at.sidebar.selectbox(key="w_averaging").set_value("micro").run()
    expected = mean_table(
        evaluate(web_search.run, web_search.qrels, ["R@10"], Settings(averaging="micro"))
    )
    assert cutoff_table(at).loc["dense", "R@10"] == pytest.approx(expected.loc["dense", "R@10"])
    assert any("chosen averaging" in c.value for c in at.caption)


@pytest.mark.slow
def test_ranking_runs_once_per_data_and_settings(monkeypatch):
    import ui.shell.compute

    calls = []
    real = ui.shell.compute.rank_run

    def counting(run, qrels, settings, source="run", **options):
        calls.append(settings)
        return real(run, qrels, settings, source, **options)

    monkeypatch.setattr(ui.shell.compute, "rank_run", counting)
    at = open_page(fresh_app(), "curves")
    at.radio(key="w_dist_kind").set_value("histogram").run()
    at.selectbox(key="w_dist_measure").set_value("R").run()
    open_page(at, "learn")
    open_page(at, "curves")
    assert len(calls) == 1
    at.sidebar.selectbox(key="w_short_lists").set_value("divide_by_returned").run()
    at.sidebar.selectbox(key="w_averaging").set_value("micro").run()
    at.sidebar.selectbox(key="w_gain").set_value("exponential").run()
    at.sidebar.number_input(key="w_rel").set_value(2.0).run()
    assert len(calls) == 1  # settings that keep the lists reuse them, rescored
    at.sidebar.selectbox(key="w_ties").set_value("input_order").run()
    assert len(calls) == 2 and calls[-1].ties == "input_order"


@pytest.mark.slow
def test_a_failed_png_export_shows_a_message_not_a_traceback(monkeypatch):
    import ui.curves.downloads

    def broken(fig, fmt, width=1100, height=500):
        raise RuntimeError("the PNG image could not be made (no browser).")

    monkeypatch.setattr(ui.curves.downloads, "figure_image", broken)
    at = open_page(fresh_app(), "curves")
    at.button(key="btn_curves_prepare").click().run()
    assert not at.exception
    assert "could not be made" in at.error[0].value


def test_svg_export_makes_a_download_button(monkeypatch):
    import ui.curves.downloads

    monkeypatch.setattr(
        ui.curves.downloads, "figure_image", lambda fig, fmt, width=1100, height=500: b"<svg/>"
    )
    at = open_page(fresh_app(), "curves")
    at.radio(key="w_export_curves_fmt").set_value("svg").run()
    at.button(key="btn_curves_prepare").click().run()
    assert at.session_state["export_curves_bytes"][1:] == ("svg", b"<svg/>")


def test_figure_image_turns_kaleido_failures_into_a_clear_error(monkeypatch):
    import plotly.graph_objects as go

    from ui.shell.plotting import figure_image

    fig = go.Figure()
    monkeypatch.setattr(
        go.Figure, "to_image", lambda *a, **k: (_ for _ in ()).throw(ValueError("Chrome not found"))
    )
    with pytest.raises(RuntimeError, match=r"PNG image could not be made.*Chrome not found"):
        figure_image(fig, "png")


@pytest.mark.slow
def test_fewer_than_k_policy_on_short_lists_matches_metrics():
    recs = load_sample("recommendations")
    at = fresh_app({"data": "recommendations"})
    open_page(at, "curves")
    at.sidebar.selectbox(key="w_short_lists").set_value("divide_by_returned").run()
    expected = mean_table(
        evaluate(recs.run, recs.qrels, ["P@20"], Settings(short_lists="divide_by_returned"))
    )
    default = mean_table(evaluate(recs.run, recs.qrels, ["P@20"]))
    shown = cutoff_table(at)
    assert shown.loc["candidate", "P@20"] == pytest.approx(expected.loc["candidate", "P@20"])
    assert shown.loc["candidate", "P@20"] > default.loc["candidate", "P@20"]


def test_weighted_averaging_without_a_numeric_query_column_falls_back_to_macro(web_search):
    at = open_page(fresh_app(), "curves")
    at.sidebar.selectbox(key="w_averaging").set_value("weighted").run()
    assert any("no numeric query column" in c.value for c in at.sidebar.caption)
    expected = mean_table(evaluate(web_search.run, web_search.qrels, ["P@10"]))
    assert cutoff_table(at).loc["hybrid", "P@10"] == pytest.approx(expected.loc["hybrid", "P@10"])


def test_more_settings_leave_out_queries_without_relevant_items():
    pitfalls = load_sample("web_search_pitfalls")
    at = open_page(fresh_app({"data": "web_search_pitfalls"}), "curves")
    at.sidebar.selectbox(key="w_no_relevant").set_value("leave_out").run()
    settings = Settings(no_relevant="leave_out")
    expected = mean_table(evaluate(pitfalls.run, pitfalls.qrels, ["nDCG@10"], settings))
    shown = cutoff_table(at)
    assert shown.loc["dense", "nDCG@10"] == pytest.approx(expected.loc["dense", "nDCG@10"])
    # four of the 40 queries have no relevant item: leaving them out raises the mean
    default = mean_table(evaluate(pitfalls.run, pitfalls.qrels, ["nDCG@10"]))
    assert shown.loc["dense", "nDCG@10"] > default.loc["dense", "nDCG@10"]
    assert at.query_params.get("norel") in ("leave_out", ["leave_out"])


def plotly_values(data) -> np.ndarray:
    """Numbers of a plotly trace field (plain list, or a base64 typed array)."""
    if isinstance(data, dict):
        return np.frombuffer(base64.b64decode(data["bdata"]), dtype=data["dtype"])
    return np.asarray(data, dtype=float)


def test_precision_recall_chart_shows_the_interpolated_precision_metrics_computes(web_search):
    at = open_page(fresh_app(), "curves")
    chart = json.loads(at.get("plotly_chart")[-1].proto.spec)
    traces = {trace["name"]: trace for trace in chart["data"]}
    hybrid = traces["hybrid · interpolated"]
    expected = evaluate(
        web_search.run, web_search.qrels, [f"IPrec@{p / 10:g}" for p in range(11)]
    ).per_query
    means = expected[expected["model"] == "hybrid"].iloc[:, 2:].mean().to_numpy()
    assert list(plotly_values(hybrid["x"])) == pytest.approx([p / 10 for p in range(11)])
    assert list(plotly_values(hybrid["y"])) == pytest.approx(list(means))
    assert "hybrid · raw, K = 1 ... 20" in traces


def test_judged_share_is_shown_next_to_the_measures_it_qualifies(web_search):
    at = open_page(fresh_app(), "curves")
    at.sidebar.multiselect(key="w_measures").set_value(["P", "RBP"]).run()
    judged = evaluate(web_search.run, web_search.qrels, ["Judged@10", "RBP@10", "RBPResid@10"])
    means = mean_table(judged).loc["lexical"]
    captions = [c.value for c in at.caption]
    assert any(c.startswith(f"lexical: Judged@10 = {means['Judged@10']:.2f}") for c in captions)
    rbp_line = next(c for c in captions if c.startswith("lexical: RBP@10"))
    assert f"{means['RBP@10']:.4f}" in rbp_line and f"{means['RBPResid@10']:.4f}" in rbp_line


def _handbuilt_curves(lists) -> object:
    """The Curves page of hand-built ``lists`` (a list of ``RankedList``)."""
    from ui.shell import handbuilt as hb
    from ui.shell import keys

    at = fresh_app({"data": "handbuilt"})
    at.session_state[keys.HANDBUILT_TABLE] = hb.table_of(lists)
    return open_page(at, "curves")


def test_positions_past_a_lists_end_are_not_unjudged_in_the_data_checks():
    """The notes' MRR example: three fully judged lists of five. Judged@10 is 0.50 (half of
    the ten positions hold nothing), but nothing is unjudged: no warning."""
    from ui.shell.handbuilt_list import RankedList

    lists = [
        RankedList(name, tuple(f"d{i}" for i in range(1, 6)), labels)
        for name, labels in (
            ("q1", (0.0, 1.0, 0.0, 0.0, 0.0)),
            ("q2", (1.0, 0.0, 0.0, 0.0, 0.0)),
            ("q3", (0.0, 0.0, 0.0, 1.0, 0.0)),
        )
    ]
    at = _handbuilt_curves(lists)
    line = next(c.value for c in at.caption if c.value.startswith(r"hand\_built: Judged@10"))
    assert line.startswith(r"hand\_built: Judged@10 = 0.50: the items in the top 10 are judged")
    assert "50% of the top 10 positions are past the end of a list" in line
    assert not [w for w in at.warning if "Judgments are sparse" in w.value]


def test_unjudged_items_in_short_lists_still_raise_the_warning():
    from ui.shell.handbuilt_list import RankedList

    nan = float("nan")
    lists = [RankedList("q1", ("a", "b", "c", "d"), (1.0, nan, nan, 0.0))]
    at = _handbuilt_curves(lists)
    line = next(c.value for c in at.caption if c.value.startswith(r"hand\_built: Judged@10"))
    assert "50% of the items in the top 10 have no judgment" in line
    assert [w for w in at.warning if "Judgments are sparse" in w.value]


def test_precision_recall_labels_follow_the_session_language():
    at = open_page(fresh_app(), "curves")
    at.sidebar.selectbox(key="w_lang").set_value("ja").run()
    chart = json.loads(at.get("plotly_chart")[-1].proto.spec)
    assert chart["layout"]["xaxis"]["title"]["text"] == "再現率"
    assert any(trace["name"].endswith("補間") for trace in chart["data"])


def test_a_measure_that_cannot_be_computed_on_the_data_says_why_instead_of_failing():
    at = fresh_app({"data": "teaching", "m": "cwP"})
    at.switch_page("pages/3_Curves.py")
    at.run()
    assert not at.exception
    assert any("every score must be a number ≥ 0" in e.value for e in at.error)


def test_a_measure_without_confidences_keeps_every_other_measure_on_the_page():
    """cwP on a run ranked by its rank column (no confidences): its own message in its place,
    and P and F1 keep their charts, their columns of the table and their distributions."""
    at = fresh_app({"data": "teaching", "m": "P,cwP,F1"})
    at.switch_page("pages/3_Curves.py")
    at.run()
    assert not at.exception
    assert len(at.error) == 1 and "every score must be a number ≥ 0" in at.error[0].value
    charts = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert any(title.startswith("P (Precision) by K") for title in charts)
    assert any(title.startswith("F1 by K") for title in charts)
    assert not any("cwP" in title for title in charts)
    columns = [str(c) for c in at.dataframe[0].value.columns]
    assert any(c.startswith("P@") for c in columns) and any(c.startswith("F1@") for c in columns)
    assert not any(c.startswith("cwP") for c in columns)
    assert at.selectbox(key="w_dist_measure").options == ["P", "F1"]


def test_judged_only_maximum_results_and_custom_gains_change_the_values_and_the_link():
    data = load_sample("recommendations")
    at = open_page(fresh_app({"data": "recommendations"}), "curves")
    at.sidebar.selectbox(key="w_judged_only").set_value(True).run()
    at.sidebar.number_input(key="w_max_results").set_value(5).run()
    at.sidebar.text_input(key="w_gain_map").set_value("1:3,2:9,3:20").run()
    settings = Settings(judged_only=True, max_results=5, gain_map="1:3,2:9,3:20")
    expected = mean_table(evaluate(data.run, data.qrels, ["P@10", "nDCG@10"], settings))
    shown = cutoff_table(at)
    assert shown.loc["candidate", "P@10"] == pytest.approx(expected.loc["candidate", "P@10"])
    assert shown.loc["candidate", "nDCG@10"] == pytest.approx(expected.loc["candidate", "nDCG@10"])
    default = mean_table(evaluate(data.run, data.qrels, ["P@10"]))
    assert shown.loc["candidate", "P@10"] != pytest.approx(default.loc["candidate", "P@10"])
    params = {k: at.query_params.get(k) for k in ("J", "M", "gains")}
    assert [v if isinstance(v, str) else v[0] for v in params.values()] == [
        "True",
        "5",
        "1:3,2:9,3:20",
    ]


def test_a_gain_map_that_cannot_be_read_is_named_and_not_used():
    at = open_page(fresh_app(), "curves")
    at.sidebar.text_input(key="w_gain_map").set_value("1:x").run()
    assert any("Custom gains not used: gain_map: '1:x'" in c.value for c in at.sidebar.caption)
    assert "gains" not in at.query_params
