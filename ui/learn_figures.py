"""The Learn page's curve: each measure of one list over K, the ideal ordering dashed, and a
line at the chosen K (pure: a plotly figure from tables)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from ui.figures import PALETTE, _safe


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
    fig = go.Figure()
    columns = [c for c in values.columns if c != "k"]
    ideal_name = _safe(ideal_label)
    for i, col in enumerate(columns):
        color = PALETTE[i % len(PALETTE)]
        name = _safe(col)
        fig.add_trace(
            go.Scatter(
                x=values["k"],
                y=values[col],
                mode="lines+markers",
                name=name,
                legendgroup=name,
                line={"color": color},
                hovertemplate=f"{name}@%{{x}} = %{{y:.3f}}<extra></extra>",
            )
        )
        if ideal is not None and col in ideal.columns:
            fig.add_trace(
                go.Scatter(
                    x=ideal["k"],
                    y=ideal[col],
                    mode="lines",
                    name=f"{name} ({_safe(ideal_label)})",
                    legendgroup=name,
                    line={"color": color, "dash": "dot", "width": 1.5},
                    hovertemplate=f"{name}@%{{x}} ({ideal_name}) = %{{y:.3f}}<extra></extra>",
                )
            )
    fig.add_vline(
        x=k,
        line={"color": "#D55E00", "width": 2, "dash": "dash"},
        annotation_text=_safe(k_label),
        annotation_position="top",
    )
    fig.update_layout(
        title={"text": _safe(title)},
        xaxis_title=_safe(x_label),
        yaxis_title=_safe(y_label),
        template="plotly_white",
        height=height,
        margin={"l": 50, "r": 20, "t": 60, "b": 40},
        legend={"orientation": "h", "y": -0.2},
    )
    fig.update_yaxes(range=[0, 1.08])
    fig.update_xaxes(dtick=1 if len(values) <= 20 else None)
    return fig
