"""Pure plotly figure builders of the Curves page (no Streamlit): curves over K, precision
against recall, per-query distributions. Their style comes from :mod:`ui.shell.plotting`."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ui.shell.palette import PALETTE
from ui.shell.plotting import SETTLED_MARGIN, build_figure, layout_template, text_width
from ui.shell.safe import plotly_text as _safe


def curve_figure(
    table: pd.DataFrame,
    measure: str,
    *,
    title: str,
    x_label: str,
    y_label: str,
    queries_label: str,
    subtitle: str = "",
) -> go.Figure:
    """One line per model of ``measure``'s mean over K.

    Parameters
    ----------
    table:
        Rows of :func:`ui.shell.compute.curve_table` (``model``, ``measure``, ``k``, ``mean``,
        ``n``).
    measure:
        Which measure's rows to draw.
    title, x_label, y_label, queries_label, subtitle:
        Texts (translated by the caller). Hover shows K, the exact mean and the number of
        queries averaged.
    """
    part = table[table["measure"] == measure]
    traces = []
    for i, (model, rows) in enumerate(part.groupby("model", sort=False)):
        name = _safe(model)
        traces.append(
            {
                "type": "scatter",
                "x": rows["k"].to_numpy(),
                "y": rows["mean"].to_numpy(),
                "mode": "lines+markers" if len(rows) <= 30 else "lines",
                "name": name,
                "line": {"color": PALETTE[i % len(PALETTE)], "width": 2},
                "marker": {"size": 5},
                "customdata": np.stack([rows["n"].to_numpy()], axis=-1),
                "hovertemplate": (
                    f"<b>{name}</b><br>{_safe(measure)}@%{{x}} = %{{y:.4f}}"
                    f"<br>{_safe(queries_label)}: %{{customdata[0]}}<extra></extra>"
                ),
            }
        )
    full_title = _safe(title) + (f"<br><sup>{_safe(subtitle)}</sup>" if subtitle else "")
    return build_figure(
        traces,
        {
            "title": {"text": full_title},
            "xaxis": {"title": {"text": _safe(x_label)}},
            "yaxis": {"title": {"text": _safe(y_label)}, "rangemode": "tozero"},
            "hovermode": "closest",
            "height": 380,
            "margin": {**SETTLED_MARGIN, "t": 70, "b": 90},
            "legend": {"orientation": "h", "y": -0.22},
        },
    )


#: The box statistics named in a box's hover, top to bottom (``stat_labels`` keys).
BOX_STATS = ("max", "q3", "median", "mean", "q1", "min")


def precision_recall_figure(
    table: pd.DataFrame,
    *,
    title: str,
    x_label: str,
    y_label: str,
    interpolated_label: str,
    raw_label: str,
) -> go.Figure:
    """Precision against recall, one colour per model: the interpolated curve as a solid line
    with markers at the 11 recall levels, the raw (mean R@K, mean P@K) points as a dotted line.

    Parameters
    ----------
    table:
        Rows of :func:`metrics.engine.evaluation.precision_recall_table`.
    title, x_label, y_label, interpolated_label, raw_label:
        Texts (translated by the caller); the two labels name the kinds of line in the legend.
    """
    traces = []
    for i, (model, rows) in enumerate(table.groupby("model", sort=False)):
        name, color = _safe(model), PALETTE[i % len(PALETTE)]
        interp = rows[rows["kind"] == "interpolated"]
        raw = rows[rows["kind"] == "raw"]
        traces.append(
            {
                "type": "scatter",
                "x": interp["recall"].to_numpy(),
                "y": interp["precision"].to_numpy(),
                "mode": "lines+markers",
                "name": f"{name} · {_safe(interpolated_label)}",
                "legendgroup": name,
                "line": {"color": color, "width": 2},
                "marker": {"size": 6},
                "hovertemplate": (
                    f"<b>{name}</b><br>{_safe(x_label)} %{{x:.1f}}: "
                    f"{_safe(y_label)} %{{y:.4f}}<extra></extra>"
                ),
            }
        )
        if len(raw):
            traces.append(
                {
                    "type": "scatter",
                    "x": raw["recall"].to_numpy(),
                    "y": raw["precision"].to_numpy(),
                    "mode": "lines",
                    "name": f"{name} · {_safe(raw_label)}",
                    "legendgroup": name,
                    "line": {"color": color, "width": 1.5, "dash": "dot"},
                    "customdata": raw["k"].to_numpy(),
                    "hovertemplate": (
                        f"<b>{name}</b><br>K = %{{customdata:.0f}}<br>{_safe(x_label)} "
                        f"%{{x:.4f}}, {_safe(y_label)} %{{y:.4f}}<extra></extra>"
                    ),
                }
            )
    return build_figure(
        traces,
        {
            "title": {"text": _safe(title)},
            "xaxis": {"title": {"text": _safe(x_label)}, "range": [0, 1.02]},
            "yaxis": {"title": {"text": _safe(y_label)}, "range": [0, 1.05]},
            "height": 420,
            "margin": {**SETTLED_MARGIN, "t": 60, "b": 110},
            "legend": {"orientation": "h", "y": -0.2},
        },
    )


def in_unit_interval(measure: str) -> bool:
    """Whether every per-query value of ``measure`` (``P@10``, ``nDCG``) lies in [0, 1]
    (:attr:`~metrics.engine.registry.MeasureDef.unit_interval`); ``False`` for a name the
    registry does not know."""
    from metrics.engine.registry import parse_measure
    from metrics.errors import MeasureError

    try:
        return parse_measure(measure).definition.unit_interval
    except MeasureError:
        return False


def distribution_figure(
    values: dict[str, np.ndarray],
    measure_at_k: str,
    *,
    kind: str,
    title: str,
    y_label: str,
    stat_labels: dict[str, str] | None = None,
) -> go.Figure:
    """Per-query values of one measure at one K, one box (or histogram) per model.

    Box statistics (quartiles, median, mean, min and max) and histogram counts are computed
    here, so the browser receives a few numbers per model, not one point per query. Histograms
    draw each model's median as a dotted vertical line. With ``stat_labels`` (names of
    :data:`BOX_STATS`, translated by the caller) a box's hover names its statistics with them,
    instead of plotly's own English names. A measure whose values lie in [0, 1] is drawn on
    exactly that range (plotly's own range pads a box of equal values to -0.5 ... 0.5).
    """
    fig = go.Figure()
    hovers: list[go.Scatter] = []
    clean = {
        m: np.asarray(v, dtype=float)[~np.isnan(np.asarray(v, dtype=float))]
        for m, v in values.items()
    }
    finite = [v for v in clean.values() if len(v)]
    lo = min((float(v.min()) for v in finite), default=0.0)
    hi = max((float(v.max()) for v in finite), default=1.0)
    edges = np.linspace(min(lo, 0.0), max(hi, 1.0) if hi <= 1 else hi, 21)
    for i, (model, v) in enumerate(clean.items()):
        color = PALETTE[i % len(PALETTE)]
        name = _safe(model)
        if not len(v):
            continue
        if kind == "histogram":
            counts, _ = np.histogram(v, bins=edges)
            fig.add_trace(
                go.Bar(
                    x=(edges[:-1] + edges[1:]) / 2,
                    y=counts,
                    name=name,
                    width=np.diff(edges),
                    opacity=0.55,
                    marker_color=color,
                    hovertemplate=f"{name}: %{{y}}<extra></extra>",
                )
            )
            fig.add_vline(x=float(np.median(v)), line_dash="dot", line_color=color)
        else:
            q1, med, q3 = np.percentile(v, [25, 50, 75])
            fig.add_trace(
                go.Box(
                    x=[name],
                    q1=[q1],
                    median=[med],
                    q3=[q3],
                    mean=[float(v.mean())],
                    lowerfence=[float(v.min())],
                    upperfence=[float(v.max())],
                    name=name,
                    marker_color=color,
                    boxmean=True,
                    hoverinfo="skip" if stat_labels else None,
                )
            )
            if stat_labels:
                stats = dict(
                    zip(BOX_STATS, (float(v.max()), q3, med, float(v.mean()), q1, float(v.min())))
                )
                lines = "<br>".join(f"{_safe(stat_labels[s])}: {stats[s]:.4f}" for s in BOX_STATS)
                hovers.append(
                    go.Scatter(
                        x=[name],
                        y=[med],
                        mode="markers",
                        marker={"size": 40, "opacity": 0, "color": color},
                        showlegend=False,
                        hovertemplate=f"<b>{name}</b><br>{lines}<extra></extra>",
                    )
                )
    fig.update_layout(
        title={"text": _safe(title)},
        **layout_template(),
        height=380,
        margin=(
            {**SETTLED_MARGIN, "t": 60, "b": 45}
            if kind == "box"
            else {**SETTLED_MARGIN, "r": text_width(map(_safe, clean)) + 66, "t": 60, "b": 67}
        ),
        showlegend=kind == "histogram",
        barmode="overlay",
    )
    for hover in hovers:
        fig.add_trace(hover)
    unit = in_unit_interval(measure_at_k) and lo >= 0 and hi <= 1
    if kind == "histogram":
        fig.update_xaxes(title=_safe(measure_at_k), range=[0, 1] if unit else None)
        fig.update_yaxes(title=_safe(y_label))
    else:
        fig.update_yaxes(title=_safe(measure_at_k), range=[0, 1] if unit else None)
    return fig
