"""The Learn page's curve: each measure of one list over K, the ideal ordering dashed, and a
line at the chosen K (pure: a plotly figure from tables).

The figure is redrawn on every list change, so it is built from plain dictionaries and handed to
plotly without its per-property validation (which costs more than the rest of a redraw); the
property names are plotly's own, and the tests check the figure plotly builds from them.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from ui.figures import PALETTE, _safe


@cache
def _template(name: str = "plotly_white") -> dict[str, Any]:
    """A named plotly template as the dictionary plotly.js reads (expanded once)."""
    expanded: dict[str, Any] = pio.templates[name].to_plotly_json()
    return expanded


def _numbers(values: pd.Series) -> list[float | None]:
    return [None if v != v else float(v) for v in values]


def learn_curve_figure(
    values: pd.DataFrame,
    ideal: pd.DataFrame | None,
    k: int,
    *,
    title: str,
    x_label: str,
    y_label: str,
    ideal_label: str,
    k_label: str,
    height: int = 360,
) -> go.Figure:
    """Curves of one list (``k`` column, one column per measure), the ideal ordering's curves
    (same columns, dashed, same colours) and a vertical line at ``k``."""
    columns = [c for c in values.columns if c != "k"]
    ideal_name = _safe(ideal_label)
    xs = [int(x) for x in values["k"]]
    traces: list[dict[str, Any]] = []
    for i, col in enumerate(columns):
        color = PALETTE[i % len(PALETTE)]
        name = _safe(col)
        traces.append(
            {
                "type": "scatter",
                "x": xs,
                "y": _numbers(values[col]),
                "mode": "lines+markers",
                "name": name,
                "legendgroup": name,
                "line": {"color": color},
                "hovertemplate": f"{name}@%{{x}} = %{{y:.3f}}<extra></extra>",
            }
        )
        if ideal is not None and col in ideal.columns:
            traces.append(
                {
                    "type": "scatter",
                    "x": [int(x) for x in ideal["k"]],
                    "y": _numbers(ideal[col]),
                    "mode": "lines",
                    "name": f"{name} ({ideal_name})",
                    "legendgroup": name,
                    "line": {"color": color, "dash": "dot", "width": 1.5},
                    "hovertemplate": f"{name}@%{{x}} ({ideal_name}) = %{{y:.3f}}<extra></extra>",
                }
            )
    cut_line = {
        "type": "line",
        "xref": "x",
        "yref": "y domain",
        "x0": k,
        "x1": k,
        "y0": 0,
        "y1": 1,
        "line": {"color": "#D55E00", "width": 2, "dash": "dash"},
    }
    cut_text = {
        "text": _safe(k_label),
        "xref": "x",
        "yref": "y domain",
        "x": k,
        "y": 1,
        "yanchor": "bottom",
        "showarrow": False,
    }
    layout: dict[str, Any] = {
        "template": _template(),
        "title": {"text": _safe(title)},
        "xaxis": {"title": {"text": _safe(x_label)}, "dtick": 1 if len(values) <= 20 else None},
        "yaxis": {"title": {"text": _safe(y_label)}, "range": [0, 1.08]},
        "height": height,
        "margin": {"l": 50, "r": 20, "t": 60, "b": 40},
        "legend": {"orientation": "h", "y": -0.2},
        "shapes": [cut_line],
        "annotations": [cut_text],
    }
    return go.Figure({"data": traces, "layout": layout}, _validate=False)
