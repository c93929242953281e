"""The review's charts: the lead measure's chart (overall and per segment, tiers of evidence) and
every chart's words from the catalogs in the three languages."""

from __future__ import annotations

import json
from collections import Counter
from functools import partial
from itertools import pairwise

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import Settings, evaluate
from metrics.io.samples import load_sample
from metrics.review.compare import CompareOptions, delta_curves, query_deltas
from metrics.review.segments import segment_means
from metrics.review.verdict import ReviewRequest, overall_rows, review_table, segment_rows
from metrics.review.wording import VERDICT_TEMPLATES
from tests.chart_words import figure_texts, latin_words
from ui.review import figures
from ui.review.figures import (
    BETTER,
    NEUTRAL,
    WATCH_COLOUR,
    WATCH_SYMBOL,
    WORSE,
    lead_measure_figure,
    lead_titles,
)
from ui.shell.i18n import templates, translate

MEASURE = "nDCG@10"


def _row(candidate: str, values: dict[str, str], *, measure: str = MEASURE, **numbers) -> dict:
    """One candidate-vs-baseline row of a review table, with the columns the chart reads."""
    segment = ", ".join(f"{c} = {v}" for c, v in values.items() if v != "(all)") or "(all)"
    tier = numbers.get("tier", "none")
    delta = numbers.get("delta", 0.1)
    return {
        "kind": "baseline",
        "reference": "base",
        "candidate": candidate,
        "measure": measure,
        "segment": segment,
        "n": numbers.get("n", 20),
        "delta": delta,
        "ci_adj_low": numbers.get("low", delta - 0.05),
        "ci_adj_high": numbers.get("high", delta + 0.05),
        "ci_adj_level": 0.95,
        "ci_adj_method": "tukey",
        "p_adjusted": numbers.get("p", 0.2),
        "p_bound": False,
        "significant": tier == "confirmed",
        "tier": tier,
        "wins": numbers.get("wins", 12),
        "losses": numbers.get("losses", 6),
        "min_effect": numbers.get("min_effect", np.nan),
        **values,
    }


def _points(fig) -> list[dict]:
    """Every point of the chart: its trace's name, x, y, interval ends, symbol, fill, size."""
    out = []
    for trace in fig.data:
        error = trace.error_x
        sizes = trace.marker.size
        for i, (x, y) in enumerate(zip(trace.x, trace.y)):
            out.append(
                {
                    "name": trace.customdata[i][0],
                    "x": float(x),
                    "y": float(y),
                    "low": float(x) - float(error.arrayminus[i]),
                    "high": float(x) + float(error.array[i]),
                    "symbol": trace.marker.symbol,
                    "colour": trace.marker.line.color,
                    "filled": trace.marker.color != "white",
                    "size": sizes[i] if isinstance(sizes, (list, tuple)) else sizes,
                    "legend": trace.name,
                }
            )
    return out


def _expected_class(row: dict) -> tuple[str, str, bool]:
    """(symbol, colour, filled): confirmed by direction, watch, no evidence."""
    if row["tier"] == "confirmed":
        return ("circle", BETTER if row["delta"] > 0 else WORSE, True)
    if row["tier"] == "watch":
        return (WATCH_SYMBOL, WATCH_COLOUR, True)
    return ("circle", NEUTRAL, False)


# --------------------------------------------------------------------------- the lead chart


@st.composite
def lead_tables(draw) -> tuple[pd.DataFrame, list[str]]:
    """A review table of one to three candidates, zero to two segment columns (each on its own,
    or crossed), a second measure and pairwise rows the chart must leave out."""
    candidates = draw(
        st.lists(st.sampled_from(["hybrid", "dense", "a<b>"]), min_size=1, max_size=3, unique=True)
    )
    by = ["device", "tenure"][: draw(st.integers(0, 2))]
    values = {
        c: draw(st.lists(st.sampled_from(["a", "b", "new", "(missing)"]), min_size=1, max_size=3))
        for c in by
    }
    values = {c: list(dict.fromkeys(v)) for c, v in values.items()}
    crossed = len(by) == 2 and draw(st.booleans())
    cells: list[dict[str, str]] = [dict.fromkeys(by, "(all)")]
    if crossed:
        cells += [{by[0]: a, by[1]: b} for a in values[by[0]] for b in values[by[1]]]
    else:
        cells += [dict.fromkeys(by, "(all)") | {c: v} for c in by for v in values[c]]
    unit = st.floats(-1, 1, allow_nan=False).filter(lambda v: abs(v) > 1e-6)
    width = st.floats(0, 0.5, allow_nan=False)
    rows = []
    for candidate in candidates:
        for cell in cells:
            delta = draw(unit)
            rows.append(
                _row(
                    candidate,
                    cell,
                    delta=delta,
                    low=delta - draw(width),
                    high=delta + draw(width),
                    tier=draw(st.sampled_from(["confirmed", "watch", "none"])),
                    n=draw(st.integers(1, 500)),
                )
            )
            rows.append(_row(candidate, cell, measure="P@10", delta=9.0, tier="confirmed"))
    pairwise = _row(candidates[0], dict.fromkeys(by, "(all)"), delta=7.0, tier="confirmed")
    rows.append(pairwise | {"kind": "pairwise"})
    return pd.DataFrame(rows), by


@settings(max_examples=40, deadline=None)
@given(lead_tables())
def test_every_row_of_the_lead_measure_is_one_point_with_its_interval_and_its_tiers_mark(drawn):
    table, by = drawn
    fig = lead_measure_figure(table, MEASURE, by)
    wanted = table[(table["kind"] == "baseline") & (table["measure"] == MEASURE)]
    points = _points(fig)
    drawn_points = Counter(
        (round(p["x"], 9), round(p["low"], 9), round(p["high"], 9), p["symbol"], p["colour"])
        + (p["filled"],)
        for p in points
    )
    expected = Counter(
        (round(r["delta"], 9), round(r["ci_adj_low"], 9), round(r["ci_adj_high"], 9))
        + _expected_class(r)
        for r in wanted.to_dict("records")
    )
    assert drawn_points == expected
    # each candidate's overall row is its top point and its largest
    for candidate in pd.unique(wanted["candidate"]):
        mine = [p for p in points if p["name"].startswith(figures.plotly_text(candidate) + " · ")]
        top = min(mine, key=lambda p: p["y"])
        assert all(p["size"] < top["size"] for p in mine if p is not top)
    # the candidates follow each other, each block below the previous one
    blocks = [
        [p["y"] for p in points if p["name"].startswith(figures.plotly_text(c) + " · ")]
        for c in pd.unique(wanted["candidate"])
    ]
    assert all(max(a) < min(b) for a, b in pairwise(blocks))
    labels = list(fig.layout.yaxis.ticktext)
    assert sum("watch" in label for label in labels) == (wanted["tier"] == "watch").sum()


def test_segments_are_grouped_under_their_column_each_on_its_own():
    all_ = "(all)"
    table = pd.DataFrame(
        [
            _row("hybrid", {"device": all_, "tenure": all_}, delta=0.05, tier="confirmed"),
            _row("hybrid", {"device": "phone", "tenure": all_}, delta=0.1, tier="confirmed"),
            _row("hybrid", {"device": "tablet", "tenure": all_}, delta=-0.3, tier="watch"),
            _row("hybrid", {"device": all_, "tenure": "new"}, delta=0.2, tier="none"),
        ]
    )
    fig = lead_measure_figure(table, MEASURE, ["device", "tenure"])
    labels = [label.split(" · ")[0] for label in fig.layout.yaxis.ticktext]
    assert labels == [
        "<b>hybrid",
        '<i style="color:#8c959f">device</i>',
        "phone",
        "tablet",
        '<i style="color:#8c959f">tenure</i>',
        "new",
    ]
    tablet = next(label for label in fig.layout.yaxis.ticktext if label.startswith("tablet"))
    assert tablet.endswith(f'<b style="color:{WATCH_COLOUR}">watch</b>')
    legend = [trace.name for trace in fig.data]
    assert legend == ["confirmed better", "watch: not confirmed yet", "no evidence of a difference"]


def test_a_single_segment_column_is_named_in_the_title_not_in_a_heading():
    table = pd.DataFrame(
        [
            _row("hybrid", {"device": "(all)"}, delta=0.05),
            _row("hybrid", {"device": "phone"}, delta=0.1),
            _row("dense", {"device": "(all)"}, delta=0.05),
            _row("dense", {"device": "phone"}, delta=0.1),
        ]
    )
    fig = lead_measure_figure(table, MEASURE, ["device"])
    assert [label.split(" · ")[0] for label in fig.layout.yaxis.ticktext] == [
        "<b>hybrid",
        "phone",
        "<b>dense",
        "phone",
    ]
    assert lead_titles(table, MEASURE, ["device"])[0] == (
        "nDCG@10: change vs base, over all queries and by device"
    )
    two = lead_titles(table.assign(tenure="(all)"), MEASURE, ["device", "tenure"])[0]
    assert two.endswith("by device")  # only the breakdowns the rows hold
    crossed = table.assign(tenure="new")
    crossed.loc[crossed["device"] == "(all)", "tenure"] = "(all)"
    assert lead_titles(crossed, MEASURE, ["device", "tenure"])[0].endswith("by device × tenure")


def test_without_a_tier_column_a_significant_row_is_confirmed_and_the_others_show_no_evidence():
    table = pd.DataFrame(
        [_row("hybrid", {}, delta=-0.2, tier="confirmed"), _row("dense", {}, delta=0.3)]
    ).drop(columns="tier")
    marks = {p["name"].split(" · ")[0]: p for p in _points(lead_measure_figure(table, MEASURE))}
    assert (marks["hybrid"]["colour"], marks["hybrid"]["filled"]) == (WORSE, True)
    assert (marks["dense"]["colour"], marks["dense"]["filled"]) == (NEUTRAL, False)


def test_a_line_marks_zero_and_a_band_the_difference_that_matters():
    table = pd.DataFrame([_row("hybrid", {}, delta=0.01, tier="none", min_effect=0.02)])
    fig = lead_measure_figure(table, MEASURE)
    shapes = [(s.type, s.x0, s.x1) for s in fig.layout.shapes]
    assert ("line", 0, 0) in shapes and ("rect", -0.02, 0.02) in shapes
    title, note = lead_titles(table, MEASURE)
    assert title == "nDCG@10: change vs base"
    assert "±0.02" in note and fig.layout.title.text.startswith(title)
    untitled = lead_measure_figure(table, MEASURE, titled=False)
    assert not untitled.layout.title.text


def test_on_a_phone_the_labels_sit_above_their_points_and_the_plot_keeps_the_width():
    table = pd.DataFrame(
        [
            _row("hybrid", {"device": "(all)"}, delta=0.1),
            _row("hybrid", {"device": "phone"}, delta=0.2),
        ]
    )
    wide = lead_measure_figure(table, MEASURE, ["device"])
    narrow = lead_measure_figure(table, MEASURE, ["device"], narrow=True)
    assert narrow.layout.yaxis.showticklabels is False and narrow.layout.margin.l <= 12
    assert [a.text for a in narrow.layout.annotations] == list(wide.layout.yaxis.ticktext)
    assert wide.layout.margin.l > 100


# --------------------------------------------------------------------------- words of every chart


@pytest.fixture(scope="module")
def sample():
    """The sample's review at K = 10 with both segment columns, and what the charts need."""
    data = load_sample("web_search")
    ev = evaluate(data.run, data.qrels, ["nDCG@10", "P@10"], Settings())
    curve_ev = evaluate(data.run, data.qrels, ["nDCG@5", "nDCG@10"], Settings())
    options = CompareOptions(resamples=200)
    by = ("query_type", "traffic")
    request = ReviewRequest("lexical", ("hybrid", "dense"), ("nDCG@10", "P@10"), by, options)
    review = review_table(ev, request, data.segments)
    names = {*data.models, "nDCG@10", "P@10", "nDCG", *by}
    names |= {str(v) for c in by for v in data.segments[c].unique()}
    return data, ev, curve_ev, options, by, review, names


def _all_charts(sample, lang: str) -> dict[str, object]:
    """Every chart of the review pages and the report, in ``lang``."""
    data, ev, curve_ev, options, by, review, _ = sample
    tr = partial(translate, lang=lang)
    words = templates(VERDICT_TEMPLATES, lang)
    curve = delta_curves(curve_ev, "lexical", "hybrid", "nDCG", 10, options=options)
    deltas = query_deltas(ev, "lexical", "hybrid", "nDCG@10")
    pair = deltas[["query"]].assign(delta_x=deltas["delta"], delta_y=-deltas["delta"])
    means = segment_means(ev, data.segments, ["query_type"], "nDCG@10")
    return {
        "lead": lead_measure_figure(review, MEASURE, by, tr=tr, templates=words),
        "lead_phone": lead_measure_figure(review, MEASURE, by, tr=tr, templates=words, narrow=True),
        "delta_curve": figures.delta_curve_figure({"hybrid": curve}, "nDCG", "lexical", tr=tr),
        "ranking_change": figures.ranking_change_figure(
            {"hybrid": pd.DataFrame({"rbo": [0.1, 0.5, 0.9]})}, 10, 0.9, "lexical", tr=tr
        ),
        "wins": figures.win_tie_loss_figure(overall_rows(review), tr),
        "scatter": figures.query_scatter_figure(
            deltas, "lexical", "hybrid", "nDCG@10", str(deltas["query"].iloc[0]), tr
        ),
        "heatmap": figures.segment_heatmap_figure(
            means, ["query_type"], data.models, "nDCG@10", tr=tr
        ),
        "forest": figures.segment_delta_figure(
            segment_rows(review), list(by), "nDCG@10", tr=tr, templates=words
        ),
        "matrix": figures.pairwise_matrix_figure(review, "nDCG@10", tr, words),
        "disagree": figures.disagreement_figure(
            pair, "nDCG@10", "P@10", str(pair["query"].iloc[0]), tr
        ),
    }


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_every_word_in_every_review_chart_comes_from_the_catalog(sample, lang):
    """No Latin letters in a Chinese or Japanese chart but the names of models, measures,
    segment columns and values: titles, axes, legends, hovers, labels, annotations."""
    names = sample[-1]
    for name, fig in _all_charts(sample, lang).items():
        texts = figure_texts(json.loads(fig.to_json()))
        assert texts, name
        assert latin_words(texts, names) == [], name


def test_the_english_charts_are_checked_by_the_same_rule():
    """The rule finds English: the same chart in English has words left over."""
    table = pd.DataFrame([_row("hybrid", {"device": "(all)"}), _row("hybrid", {"device": "a"})])
    fig = lead_measure_figure(table, MEASURE, ["device"])
    names = {"hybrid", "base", "device", "a", MEASURE}
    assert "queries" in latin_words(figure_texts(json.loads(fig.to_json())), names)
    zh = lead_measure_figure(
        table,
        MEASURE,
        ["device"],
        tr=partial(translate, lang="zh"),
        templates=templates(VERDICT_TEMPLATES, "zh"),
    )
    assert latin_words(figure_texts(json.loads(zh.to_json())), names) == []
