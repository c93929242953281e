"""Pure plotly builders of the review pages (Compare, Segments, Report); no Streamlit.

Every user string (model names, query ids, segment values) is HTML-escaped before it reaches a
label, since plotly renders a subset of HTML in titles, ticks and hovers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ui.figures import PALETTE
from ui.safe import plotly_text

BETTER = "#1a7f37"
WORSE = "#cf222e"
NEUTRAL = "#8c959f"
#: Direction (see :func:`metrics.review.compare.comparison_table`) -> colour.
DIRECTION_COLOURS = {"better": BETTER, "worse": WORSE, "no clear difference": NEUTRAL}


def _safe(text: object) -> str:
    return plotly_text(text)


def _rgba(hex_colour: str, alpha: float) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def model_colours(models: list[str]) -> dict[str, str]:
    """Model -> colour, by position in the data set's model order (as on the Curves page)."""
    return {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(models)}


def _colour(colours: dict[str, str] | None, model: str, position: int) -> str:
    if colours and model in colours:
        return colours[model]
    return PALETTE[position % len(PALETTE)]


def _layout(fig: go.Figure, title: str, subtitle: str = "", height: int = 380) -> go.Figure:
    text = _safe(title) + (f"<br><sup>{_safe(subtitle)}</sup>" if subtitle else "")
    fig.update_layout(
        title={"text": text},
        template="plotly_white",
        height=height,
        margin={"l": 60, "r": 20, "t": 70, "b": 45},
        legend={"orientation": "h", "y": -0.2},
    )
    return fig


def delta_curve_figure(
    curves: dict[str, pd.DataFrame],
    measure: str,
    baseline: str,
    *,
    confidence: float = 0.95,
    subtitle: str = "",
    colours: dict[str, str] | None = None,
) -> go.Figure:
    """Delta (candidate − baseline) of ``measure`` at every K, with the bootstrap CI as a band.

    Parameters
    ----------
    curves:
        Candidate -> :func:`metrics.review.compare.delta_curves` table (``k``, ``delta``,
        ``ci_low``, ``ci_high``, ``mean_a``, ``mean_b``, ``n``).
    """
    fig = go.Figure()
    for i, (candidate, table) in enumerate(curves.items()):
        colour = _colour(colours, candidate, i + 1)
        name = _safe(candidate)
        k = table["k"].to_numpy()
        fig.add_trace(
            go.Scatter(
                x=np.concatenate([k, k[::-1]]),
                y=np.concatenate([table["ci_high"].to_numpy(), table["ci_low"].to_numpy()[::-1]]),
                fill="toself",
                fillcolor=_rgba(colour, 0.18),
                line={"width": 0},
                hoverinfo="skip",
                showlegend=False,
                legendgroup=name,
                name=f"{name} CI",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=k,
                y=table["delta"],
                mode="lines+markers" if len(k) <= 30 else "lines",
                name=name,
                legendgroup=name,
                line={"color": colour, "width": 2},
                marker={"size": 5},
                customdata=np.stack(
                    [
                        table["ci_low"],
                        table["ci_high"],
                        table["mean_a"],
                        table["mean_b"],
                        table["n"],
                    ],
                    axis=-1,
                ),
                hovertemplate=(
                    f"<b>{name}</b> − {_safe(baseline)}<br>{_safe(measure)}@%{{x}}: "
                    "Δ %{y:+.4f}<br>CI [%{customdata[0]:+.4f}, %{customdata[1]:+.4f}]"
                    "<br>%{customdata[3]:.4f} vs %{customdata[2]:.4f}"
                    " (%{customdata[4]} queries)<extra></extra>"
                ),
            )
        )
    fig.add_hline(y=0, line_color="#57606a", line_width=1)
    _layout(
        fig, f"{measure}: change vs {baseline} across K ({confidence:.0%} bootstrap band)", subtitle
    )
    fig.update_xaxes(title="K")
    fig.update_yaxes(title=f"Δ {_safe(measure)} (candidate − {_safe(baseline)})", zeroline=False)
    return fig


def win_tie_loss_figure(table: pd.DataFrame) -> go.Figure:
    """Stacked horizontal bars: queries where each candidate is better / tied / worse.

    ``table`` is a :func:`metrics.review.compare.comparison_table` (one bar per candidate ×
    measure).
    """
    labels = [f"{_safe(c)} · {_safe(m)}" for c, m in zip(table["candidate"], table["measure"])]
    fig = go.Figure()
    for column, name, colour in (
        ("wins", "better", BETTER),
        ("ties", "tied", NEUTRAL),
        ("losses", "worse", WORSE),
    ):
        fig.add_trace(
            go.Bar(
                y=labels,
                x=table[column],
                name=name,
                orientation="h",
                marker_color=colour,
                text=table[column],
                textposition="inside",
                hovertemplate=f"%{{y}}<br>{name}: %{{x}} queries<extra></extra>",
            )
        )
    baseline = _safe(table["baseline"].iloc[0]) if len(table) else ""
    _layout(
        fig, f"Queries better, tied, worse than {baseline}", height=max(300, 130 + 40 * len(labels))
    )
    fig.update_layout(
        barmode="stack",
        legend={"orientation": "h", "y": 1.02, "x": 0, "yanchor": "bottom", "traceorder": "normal"},
        margin={"t": 90},
    )
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(title="queries")
    return fig


def query_scatter_figure(
    deltas: pd.DataFrame, baseline: str, candidate: str, measure: str, selected: str | None = None
) -> go.Figure:
    """Per-query values: baseline on x, candidate on y; above the diagonal the candidate wins.

    ``deltas`` is :func:`metrics.review.compare.query_deltas`. Points carry the query id as
    ``customdata`` (for selection); ``selected`` is ringed.
    """
    fig = go.Figure()
    groups = (
        ("gained", deltas["delta"] > 0, BETTER),
        ("same", deltas["delta"] == 0, NEUTRAL),
        ("lost", deltas["delta"] < 0, WORSE),
    )
    for name, mask, colour in groups:
        part = deltas[mask]
        fig.add_trace(
            go.Scatter(
                x=part["baseline"],
                y=part["candidate"],
                mode="markers",
                name=name,
                marker={"color": colour, "size": 7, "opacity": 0.7},
                customdata=np.array([_safe(q) for q in part["query"]], dtype=object),
                hovertemplate=(
                    f"query %{{customdata}}<br>{_safe(baseline)}: %{{x:.3f}}<br>"
                    f"{_safe(candidate)}: %{{y:.3f}}<extra></extra>"
                ),
            )
        )
    if selected is not None:
        part = deltas[deltas["query"].astype(str) == str(selected)]
        fig.add_trace(
            go.Scatter(
                x=part["baseline"],
                y=part["candidate"],
                mode="markers",
                name="selected",
                hoverinfo="skip",
                marker={
                    "size": 16,
                    "color": "rgba(0,0,0,0)",
                    "line": {"color": "#000000", "width": 2},
                },
            )
        )
    high = float(np.nanmax(deltas[["baseline", "candidate"]].to_numpy())) if len(deltas) else 1.0
    top = max(1.0, high)
    fig.add_trace(
        go.Scatter(
            x=[0, top],
            y=[0, top],
            mode="lines",
            name="equal",
            line={"color": "#57606a", "dash": "dash", "width": 1},
            hoverinfo="skip",
        )
    )
    _layout(
        fig,
        f"{measure} per query: {candidate} vs {baseline}",
        "points above the dashed line gained; click one (or choose below) to inspect it",
        height=440,
    )
    fig.update_xaxes(title=f"{_safe(baseline)} (baseline)", range=[-0.03, top + 0.03])
    fig.update_yaxes(title=f"{_safe(candidate)} (candidate)", range=[-0.03, top + 0.03])
    return fig


def segment_label(values: dict[str, object], by: list[str], n: int, small: bool) -> str:
    """``navigational · n=70`` (``· small`` appended for small segments), escaped."""
    name = " · ".join(_safe(values[c]) for c in by)
    return f"{name} · n={n}" + (" · small" if small else "")


def segment_heatmap_figure(
    means: pd.DataFrame, by: list[str], models: list[str], measure: str, subtitle: str = ""
) -> go.Figure:
    """Segment × model heatmap of ``measure`` (rows of :func:`segment_means`, with ``(all)``).

    Each cell shows its value; within a row the best model is marked with a star so a
    reversal (another model best in a segment) is visible at a glance.
    """
    rows = means.to_dict("records")
    labels = [segment_label(r, by, int(r["n"]), bool(r["small"])) for r in rows]
    z = means[models].to_numpy(dtype=np.float64)
    text = []
    for line in z:
        best = np.nanargmax(line) if np.isfinite(line).any() else -1
        text.append([f"{v:.3f}" + (" ★" if j == best else "") for j, v in enumerate(line)])
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[_safe(m) for m in models],
            y=labels,
            text=text,
            texttemplate="%{text}",
            colorscale="Blues",
            zmin=0,
            zmax=max(1.0, float(np.nanmax(z)) if z.size else 1.0),
            colorbar={"title": _safe(measure)},
            hovertemplate="%{y}<br>%{x}: %{z:.4f}<extra></extra>",
        )
    )
    _layout(
        fig,
        f"{measure} by segment and model (★ best in the row)",
        subtitle,
        height=max(260, 90 + 36 * len(labels)),
    )
    fig.update_yaxes(autorange="reversed")
    return fig


def segment_delta_figure(
    table: pd.DataFrame,
    by: list[str],
    measure: str,
    confidence: float = 0.95,
    colours: dict[str, str] | None = None,
) -> go.Figure:
    """Forest plot: delta vs baseline with its CI per segment, one colour per candidate.

    ``table`` is a segmented :func:`metrics.review.compare.comparison_table`; filled markers are
    significant after correction, hollow ones are not. Candidates are drawn side by side within
    a segment's row so that their intervals do not hide each other.
    """
    part = table[table["measure"] == measure]
    segments = part[by].drop_duplicates().reset_index(drop=True)
    counts = part.drop_duplicates(by).set_index(by)["n"] if len(part) else pd.Series(dtype=int)
    labels = []
    for r in segments.to_dict("records"):
        key = tuple(r[c] for c in by) if len(by) > 1 else r[by[0]]
        labels.append(" · ".join(_safe(r[c]) for c in by) + f" · n={int(counts.loc[key])}")
    position = {tuple(r): i for i, r in enumerate(segments.itertuples(index=False))}
    candidates = list(pd.unique(part["candidate"]))
    width = 0.5 / max(len(candidates), 1)
    fig = go.Figure()
    for i, candidate in enumerate(candidates):
        rows = part[part["candidate"] == candidate]
        colour = _colour(colours, candidate, i + 1)
        offset = (i - (len(candidates) - 1) / 2) * width
        y = [position[tuple(r)] + offset for r in rows[by].itertuples(index=False)]
        fig.add_trace(
            go.Scatter(
                x=rows["delta"],
                y=y,
                mode="markers",
                name=_safe(candidate),
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": rows["ci_high"] - rows["delta"],
                    "arrayminus": rows["delta"] - rows["ci_low"],
                    "color": colour,
                },
                marker={
                    "color": [colour if s else "white" for s in rows["significant"]],
                    "line": {"color": colour, "width": 2},
                    "size": 10,
                },
                customdata=np.stack(
                    [
                        rows["ci_low"],
                        rows["ci_high"],
                        rows["p_adjusted"],
                        np.array([labels[round(v - offset)] for v in y], dtype=object),
                    ],
                    axis=-1,
                ),
                hovertemplate=(
                    f"<b>{_safe(candidate)}</b> %{{customdata[3]}}<br>Δ %{{x:+.4f}}<br>"
                    f"CI [%{{customdata[0]:+.4f}}, %{{customdata[1]:+.4f}}]<br>"
                    "corrected p %{customdata[2]:.3g}<extra></extra>"
                ),
            )
        )
    fig.add_vline(x=0, line_color="#57606a", line_width=1)
    baseline = _safe(part["baseline"].iloc[0]) if len(part) else ""
    _layout(
        fig,
        f"{measure}: change vs {baseline} per segment ({confidence:.0%} CI)",
        "filled: significant after correction; hollow: not significant",
        height=max(340, 150 + 46 * len(labels)),
    )
    fig.update_layout(
        legend={"orientation": "h", "y": 1.0, "x": 1, "yanchor": "bottom", "xanchor": "right"},
        margin={"t": 100},
    )
    fig.update_xaxes(title=f"Δ {_safe(measure)}")
    fig.update_yaxes(
        tickvals=list(range(len(labels))),
        ticktext=labels,
        autorange="reversed",
        zeroline=False,
        showgrid=False,
    )
    return fig


__all__ = [
    "BETTER",
    "DIRECTION_COLOURS",
    "NEUTRAL",
    "WORSE",
    "delta_curve_figure",
    "model_colours",
    "query_scatter_figure",
    "segment_delta_figure",
    "segment_heatmap_figure",
    "segment_label",
    "win_tie_loss_figure",
]
