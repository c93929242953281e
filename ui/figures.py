"""Pure plotly figure builders (no Streamlit): curves over K, per-query distributions.

Importing this module gives every figure of the app (ours and ``ui.review.figures``', which name
``plotly_white`` too) a font family that covers Chinese and Japanese, so that PNG and SVG exports
(kaleido) and screenshots draw CJK text instead of empty boxes. Debian's ``fonts-noto-cjk``
provides the first families of :data:`FONT_FAMILY`.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable
from unicodedata import east_asian_width

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from ui.palette import PALETTE
from ui.safe import plotly_text

#: Latin first, then families with Chinese and Japanese glyphs, then generic fallbacks.
FONT_FAMILY = (
    '"Open Sans", "Noto Sans", "Noto Sans CJK SC", "Noto Sans CJK JP", "Source Han Sans SC", '
    '"Source Han Sans JP", "PingFang SC", "Hiragino Sans", "Microsoft YaHei", "Yu Gothic", '
    "Arial, sans-serif"
)
#: The template every figure uses (plotly's white template with :data:`FONT_FAMILY`).
TEMPLATE = "plotly_white"


def _register_template() -> None:
    """Set :data:`FONT_FAMILY` on :data:`TEMPLATE` and make it the default template."""
    pio.templates[TEMPLATE].layout.font.family = FONT_FAMILY
    pio.templates.default = TEMPLATE


_register_template()


def layout_template() -> dict[str, str]:
    """``template=TEMPLATE`` for ``update_layout``, unless new figures already start from it
    (it is the default): copying the template into a figure again costs more than drawing
    the figure's own lines."""
    return {} if pio.templates.default == TEMPLATE else {"template": TEMPLATE}


#: Margins (pixels) that leave room for the axis titles, tick labels and a legend below the plot
#: as Streamlit draws them. Plotly grows a margin that is too small to fit them and then draws
#: the whole figure a second time; starting from the margins it would settle on saves that
#: second drawing (about half the browser's plotly work) and looks the same. Longer labels or
#: more legend rows still grow the margins as before.
SETTLED_MARGIN = {"l": 70, "r": 20}


def text_width(labels: Iterable[object]) -> int:
    """About how wide (pixels) the widest of ``labels`` (escaped plotly text) is at Streamlit's
    tick and legend size: 5.6 pixels per character, 12 per wide (Chinese or Japanese) one."""
    widths = [
        sum(12.0 if east_asian_width(c) in "WF" else 5.6 for c in html.unescape(str(label)))
        for label in labels
    ]
    return math.ceil(max(widths, default=0.0))


def label_margin(labels: Iterable[object], *, titled: bool = False) -> int:
    """A left margin (pixels) that fits the category tick ``labels``, and the axis title beside
    them when ``titled``."""
    return max(SETTLED_MARGIN["l"], text_width(labels) + (54 if titled else 22))


def _safe(text: object) -> str:
    """User text escaped for plotly's HTML-like labels."""
    return plotly_text(text)


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
        Rows of :func:`ui.compute.curve_table` (``model``, ``measure``, ``k``, ``mean``, ``n``).
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
    return _figure(
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


def _figure(traces: list[dict], layout: dict) -> go.Figure:
    """A figure built at once from plain traces and layout (several times faster than adding
    traces and updating the layout step by step, which plotly checks path by path)."""
    return go.Figure(data=traces, layout={**layout_template(), **layout})


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
    return _figure(
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


def label_figure(labels: pd.Series, *, title: str, x_label: str, y_label: str) -> go.Figure:
    """Bar chart of how many judgments carry each label value (binary or graded at a glance)."""
    counts = labels.value_counts().sort_index()
    fig = go.Figure(
        go.Bar(
            x=[f"{v:g}" for v in counts.index],
            y=counts.to_numpy(),
            marker_color=PALETTE[0],
            hovertemplate="%{x}: %{y:,}<extra></extra>",
        )
    )
    fig.update_layout(
        title={"text": _safe(title)},
        xaxis_title=_safe(x_label),
        yaxis_title=_safe(y_label),
        **layout_template(),
        height=260,
        margin={**SETTLED_MARGIN, "l": 80, "t": 50, "b": 70},
    )
    fig.update_xaxes(type="category")
    return fig


def figure_pictures(figures: list[go.Figure], width: int = 1000) -> list[str | None]:
    """The figures as SVG pictures (text), made in one go: kaleido starts its headless browser
    once for all of them. Each keeps its own height (460 px when it sets none). When pictures
    cannot be made here (no browser for kaleido), every entry is ``None``: the caller says so
    instead of failing."""
    import tempfile
    from pathlib import Path

    if not figures:
        return []
    heights = [int(f.layout.height) if f.layout.height else 460 for f in figures]
    with tempfile.TemporaryDirectory() as folder:
        paths = [Path(folder) / f"chart_{i}.svg" for i in range(len(figures))]
        try:
            pio.write_images(figures, paths, format="svg", width=width, height=heights)
        except Exception:  # kaleido raises several types depending on what is missing
            return [None] * len(figures)
        return [p.read_text(encoding="utf-8") if p.exists() else None for p in paths]


def figure_image(fig: go.Figure, fmt: str, width: int = 1100, height: int = 500) -> bytes:
    """The figure as PNG or SVG bytes (kaleido drives a headless Chromium).

    Raises
    ------
    RuntimeError
        When the image cannot be made (no browser for kaleido); the message says so.
    """
    try:
        return fig.to_image(format=fmt, width=width, height=height)
    except Exception as exc:  # kaleido raises several types depending on what is missing
        raise RuntimeError(
            f"the {fmt.upper()} image could not be made ({type(exc).__name__}: "
            f"{exc}). Download the SVG or the HTML instead, or use the camera "
            f"icon of the chart."
        ) from None
