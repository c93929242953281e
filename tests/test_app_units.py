"""Pure helpers of the app: hand-built lists, worked formulas, figures, cutoffs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from metrics import Settings
from metrics.engine.explain import EXPLAINED, explain_list, list_frames
from ui.curves.figures import curve_figure, distribution_figure
from ui.learn.evaluate import RankedList, compare_orderings, evaluate_list
from ui.shell import handbuilt as hb
from ui.shell.compute import cutoffs_within
from ui.shell.plotting import SETTLED_MARGIN, label_margin, text_width


def test_standard_cutoffs_inside_the_range_and_the_end_when_none_fits():
    assert cutoffs_within(1, 20) == [1, 3, 5, 10, 20]
    assert cutoffs_within(6, 9) == [9]


def test_hand_built_positions_reorder_each_list_drop_empty_rows_and_keep_unjudged_labels():
    table = pd.DataFrame(
        {
            "list": ["x", "x", "x", None],
            "position": [3, 1, None, 1],
            "item": ["c", "a", "z", "  "],
            "label": [1, None, 2, 1],
        }
    )
    out = hb.normalize(table)
    assert list(out["item"]) == ["a", "c", "z"]
    assert list(out["position"]) == [1, 2, 3]
    assert out["label"].isna().tolist() == [True, False, False]  # empty label: unjudged
    assert list(out["label"])[1:] == [1.0, 2.0]


def test_hand_built_csv_reads_back_as_the_same_data_set():
    table = hb.starter_table()
    from metrics.io.loaders import load_dataset, load_table

    again = load_dataset([load_table(hb.csv_of(table), "again.csv")])
    direct = hb.to_dataset(table)
    assert list(again.run["item"]) == list(direct.run["item"])
    assert list(again.qrels["relevance"]) == list(direct.qrels["relevance"])


def test_hand_built_csv_neutralises_formula_like_items():
    table = pd.DataFrame({"list": ["l"], "position": [1], "item": ["=HYPERLINK(1)"], "label": [1]})
    assert "'=HYPERLINK(1)" in hb.csv_of(table).decode()


@pytest.mark.parametrize("seed", range(25))
def test_explained_values_equal_the_engine_values_on_random_lists(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    labels = rng.integers(0, 4, n).astype(float)
    labels[rng.random(n) < 0.2] = np.nan
    extra = [(f"x{i}", float(v)) for i, v in enumerate(rng.integers(0, 4, rng.integers(0, 4)))]
    k = int(rng.integers(1, 14))
    settings = Settings(
        relevance_level=int(rng.integers(1, 3)),
        gain=["linear", "exponential"][seed % 2],
        short_lists=["divide_by_k", "divide_by_returned"][seed % 2],
    )
    rl = RankedList("r", tuple(f"d{i}" for i in range(n)), tuple(labels), tuple(extra))
    engine = evaluate_list(rl, k, settings)
    ex = explain_list(list(rl.items), list(labels), k, settings, [v for _, v in extra])
    for m in EXPLAINED:
        assert ex.pieces[m].value == pytest.approx(engine[m], nan_ok=True), m


def test_swapping_two_items_inside_the_top_k_leaves_precision_alone():
    rl = RankedList("r", ("a", "b", "c", "d"), (0.0, 1.0, 0.0, 1.0))
    table = compare_orderings(rl, rl.swapped(1, 2), 3, Settings()).set_index("measure")
    assert not table.loc["P@3", "changed"] and table.loc["RR@3", "changed"]
    assert table.loc["RR@3", "A"] == 0.5 and table.loc["RR@3", "B"] == 1.0


def test_unjudged_items_get_no_judgment_row():
    run, qrels = list_frames(["a", "b"], [1.0, float("nan")])
    assert list(qrels["item"]) == ["a"] and len(run) == 2


def test_curve_hover_shows_exact_value_and_number_of_queries_and_escapes_names():
    table = pd.DataFrame(
        {
            "model": ["<b>m</b>"] * 2,
            "measure": ["P", "P"],
            "k": [1, 2],
            "mean": [0.5, 0.25],
            "n": [300, 299],
        }
    )
    fig = curve_figure(table, "P", title="t", x_label="K", y_label="y", queries_label="queries")
    trace = fig.data[0]
    assert trace.name == "&lt;b&gt;m&lt;/b&gt;"
    assert "%{y:.4f}" in trace.hovertemplate and "queries: %{customdata[0]}" in trace.hovertemplate
    assert trace.customdata[:, 0].tolist() == [300, 299]


def test_distribution_boxes_carry_quartiles_of_the_non_missing_values():
    fig = distribution_figure(
        {"a": np.array([0.1, np.nan, 0.3, 0.5, 0.9])},
        "P@10",
        kind="box",
        title="t",
        y_label="queries",
    )
    box = fig.data[0]
    assert (box.q1[0], box.median[0], box.q3[0]) == pytest.approx((0.25, 0.4, 0.6))
    assert (box.lowerfence[0], box.upperfence[0], box.mean[0]) == pytest.approx((0.1, 0.9, 0.45))


def test_distribution_box_hover_names_its_statistics_in_the_given_words():
    labels = {
        "max": "最大",
        "q3": "第 3 四分位",
        "median": "中央値",
        "mean": "平均",
        "q1": "第 1 四分位",
    }
    fig = distribution_figure(
        {"a": np.array([0.1, 0.3, 0.5, 0.9])},
        "P@10",
        kind="box",
        title="t",
        y_label="queries",
        stat_labels={**labels, "min": "最小"},
    )
    box, hover = fig.data
    assert box.hoverinfo == "skip"
    assert "中央値: 0.4000" in hover.hovertemplate and "最小: 0.1000" in hover.hovertemplate


@pytest.mark.parametrize("kind", ["box", "histogram"])
def test_a_measure_between_0_and_1_is_drawn_from_0_to_1(kind):
    """Hand-built lists: P@10 of 0.3 and 0.4, or all 0; plotly's own range went down to -0.5."""
    for values in (np.array([0.3, 0.4, 0.3]), np.zeros(3)):
        fig = distribution_figure({"a": values}, "P@10", kind=kind, title="t", y_label="q")
        axis = fig.layout.yaxis if kind == "box" else fig.layout.xaxis
        assert tuple(axis.range) == (0, 1)


def test_a_count_or_dcg_keeps_the_range_of_its_values():
    for name in ("DCG@10", "NumRelRet@10"):
        fig = distribution_figure(
            {"a": np.array([0.0, 2.5, 7.0])}, name, kind="box", title="t", y_label="q"
        )
        assert fig.layout.yaxis.range is None


def test_distribution_histogram_counts_every_query_once():
    values = np.array([0.0, 0.0, 0.5, 1.0, np.nan])
    fig = distribution_figure({"a": values}, "P@10", kind="histogram", title="t", y_label="queries")
    assert sum(fig.data[0].y) == 4


def test_a_curve_figure_starts_from_the_app_template_without_copying_it_twice():
    import plotly.io as pio

    from ui.curves.figures import curve_figure
    from ui.shell.plotting import FONT_FAMILY, TEMPLATE

    table = pd.DataFrame(
        {"model": ["a", "a"], "measure": ["P", "P"], "k": [1, 2], "mean": [0.5, 0.25], "n": [4, 4]}
    )
    fig = curve_figure(table, "P", title="t", x_label="K", y_label="y", queries_label="q")
    assert pio.templates.default == TEMPLATE
    assert fig.layout.template.layout.font.family == FONT_FAMILY
    assert fig.layout.template == pio.templates[TEMPLATE]


def test_precision_recall_axes_span_zero_to_one_and_raw_points_are_dotted_in_the_models_colour():
    from ui.curves.figures import precision_recall_figure
    from ui.shell.palette import PALETTE

    table = pd.DataFrame(
        {
            "model": ["m"] * 3,
            "kind": ["interpolated", "interpolated", "raw"],
            "k": [np.nan, np.nan, 1.0],
            "recall": [0.0, 1.0, 0.5],
            "precision": [1.0, 0.5, 1.0],
        }
    )
    fig = precision_recall_figure(
        table, title="PR", x_label="R", y_label="P", interpolated_label="i", raw_label="raw"
    )
    assert list(fig.layout.xaxis.range) == [0, 1.02] and list(fig.layout.yaxis.range) == [0, 1.05]
    assert fig.layout.xaxis.title.text == "R" and fig.layout.yaxis.title.text == "P"
    interpolated, raw = fig.data
    assert interpolated.name == "m · i" and raw.name == "m · raw"
    assert raw.line.dash == "dot" and raw.line.color == interpolated.line.color == PALETTE[0]


def test_label_margin_fits_the_widest_label_but_never_goes_below_the_settled_margin():
    assert label_margin(["a", "bb"]) == SETTLED_MARGIN["l"]
    assert label_margin([]) == SETTLED_MARGIN["l"]
    long = "informational · n=151"
    assert label_margin([long, "x"]) == text_width([long]) + 22 > SETTLED_MARGIN["l"]
    assert label_margin([long], titled=True) == label_margin([long]) + 32


def test_text_width_counts_a_wide_character_double_and_an_escaped_entity_once():
    assert text_width(["日本語"]) == 36
    assert text_width(["abc"]) == math.ceil(3 * 5.6)
    assert text_width(["a&amp;b"]) == text_width(["a&b"])
