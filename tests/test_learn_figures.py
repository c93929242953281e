"""The Learn page's curve figure: what it draws, and that plotly accepts every property."""

import math

import pandas as pd
import plotly.graph_objects as go

from ui.learn_figures import learn_curve_figure


def _figure(k: int = 3) -> go.Figure:
    values = pd.DataFrame(
        {"k": [1, 2, 3, 4], "P": [1.0, 0.5, 2 / 3, 0.5], "nDCG": [1.0, 0.6, 0.8, float("nan")]}
    )
    ideal = pd.DataFrame({"k": [1, 2, 3, 4], "P": [1.0, 1.0, 1.0, 0.75]})
    return learn_curve_figure(
        values,
        ideal,
        k,
        title="<b>list</b>",
        x_label="K",
        y_label="value",
        ideal_label="ideal",
        k_label=f"K = {k}",
    )


def test_the_learn_curve_passes_plotly_validation_unchanged():
    fig = _figure()
    validated = go.Figure(fig.to_dict())  # raises on any property plotly does not know
    assert validated.to_dict()["data"] == fig.to_dict()["data"]


def test_each_measure_has_its_curve_and_the_ideal_is_dashed_in_the_same_colour():
    data = _figure().to_dict()["data"]
    assert [trace["name"] for trace in data] == ["P", "P (ideal)", "nDCG"]
    assert data[1]["line"]["dash"] == "dot"
    assert data[1]["line"]["color"] == data[0]["line"]["color"]
    assert data[0]["y"][2] == 2 / 3


def test_a_missing_value_is_a_gap_not_a_number():
    nDCG = _figure().to_dict()["data"][2]["y"]
    assert nDCG[3] is None and not any(isinstance(v, float) and math.isnan(v) for v in nDCG)


def test_the_chosen_k_is_marked_by_a_vertical_line_with_its_label():
    layout = _figure(k=2).to_dict()["layout"]
    (line,) = layout["shapes"]
    assert line["x0"] == line["x1"] == 2 and line["yref"] == "y domain"
    assert layout["annotations"][0]["text"] == "K = 2"


def test_the_template_is_sent_expanded_and_the_title_escaped():
    layout = _figure().to_dict()["layout"]
    assert isinstance(layout["template"], dict) and "layout" in layout["template"]
    assert layout["title"]["text"] == "&lt;b&gt;list&lt;/b&gt;"
