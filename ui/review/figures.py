"""Pure plotly builders of the review pages (Compare, Segments, Report); no Streamlit.

Every user string (model names, query ids, segment values) is HTML-escaped before it reaches a
label, since plotly renders a subset of HTML in titles, ticks and hovers. Every other word
comes from the catalogs through ``tr`` (``ui.shell.i18n.translate`` in a language; English by
default), so titles, axes, legends and hovers are in the session's language.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from metrics.review.compare import Wording
from metrics.review.rows import ALL
from metrics.review.verdict import BASELINE_KIND, COLUMNS, UNCLEAR, pairwise_rows, value_column
from metrics.review.verdict import BETTER as BETTER_CODE
from metrics.review.verdict import WORSE as WORSE_CODE
from metrics.review.wording import family_text, interval_text, row_p
from ui.shell.i18n import translate
from ui.shell.palette import PALETTE
from ui.shell.plotting import SETTLED_MARGIN, label_margin, layout_template
from ui.shell.safe import plotly_text

Translate = Callable[..., str]
#: English words (tests, scripts); pages pass ``ui.shell.i18n.t``.
ENGLISH: Translate = partial(translate, lang="en")

BETTER = "#1a7f37"
WORSE = "#cf222e"
NEUTRAL = "#8c959f"
#: Direction (see :func:`metrics.review.compare.comparison_table`) -> colour.
DIRECTION_COLOURS = {BETTER_CODE: BETTER, WORSE_CODE: WORSE, UNCLEAR: NEUTRAL}
#: Queries where two measures move in opposite directions (not a better/worse colour).
OPPOSITE = "#E69F00"


def _safe(text: object) -> str:
    return plotly_text(text)


def _query_data(queries: pd.Series) -> np.ndarray:
    """A point's ``customdata`` for its query: the id as it is (what a click on the point
    selects, :func:`clicked_queries`), then the id escaped for the hover."""
    out = np.empty((len(queries), 2), dtype=object)
    for i, query in enumerate(queries):
        out[i] = (query, _safe(query))
    return out


def clicked_queries(event: Mapping[str, Any] | None, queries: Sequence[str]) -> list[str]:
    """The queries of the points a chart's selection ``event`` names, in its order: each point of
    :func:`query_scatter_figure` and :func:`disagreement_figure` carries its query id first in
    its ``customdata``; ids not among ``queries`` are left out."""
    points = event.get("selection", {}).get("points", []) if event else []
    known = {str(q): q for q in queries}
    out = []
    for point in points:
        data = point.get("customdata")
        if isinstance(data, (list, tuple)) and data and str(data[0]) in known:
            out.append(known[str(data[0])])
    return out


#: Stands for a hover template's field while catalog words around it are escaped.
_FIELD = "\ue000"


def _hover_words(tr: Translate, key: str, **fields: str) -> str:
    """The catalog words ``key`` around plotly hover fields (``n="%{x}"``): the words escaped,
    the fields kept as fields (escaped, ``%{x}`` would show as it is)."""
    names = list(fields)
    text = _safe(tr(key, **{name: f"{_FIELD}{i}{_FIELD}" for i, name in enumerate(names)}))
    for i, name in enumerate(names):
        text = text.replace(f"{_FIELD}{i}{_FIELD}", fields[name])
    return text


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


def _layout(
    fig: go.Figure,
    title: str,
    subtitle: str = "",
    height: int = 380,
    margin: dict[str, int] | None = None,
) -> go.Figure:
    """Title, size and margins; the default margins leave room for a legend below the plot (see
    :data:`ui.shell.plotting.SETTLED_MARGIN`), ``margin`` overrides some of them."""
    text = _safe(title) + (f"<br><sup>{_safe(subtitle)}</sup>" if subtitle else "")
    fig.update_layout(
        title={"text": text},
        **layout_template(),  # plotly_white, unless every new figure starts from it already
        height=height,
        margin={**SETTLED_MARGIN, "t": 70, "b": 90, **(margin or {})},
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
    tr: Translate = ENGLISH,
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
                name=f"{name} {_safe(tr('review.fig.ci'))}",
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
                    "Δ %{y:+.4f}<br>"
                    + _safe(tr("review.fig.ci"))
                    + " [%{customdata[0]:+.4f}, %{customdata[1]:+.4f}]"
                    "<br>%{customdata[2]:.4f} → %{customdata[3]:.4f} ("
                    + _hover_words(tr, "review.fig.queries_n", n="%{customdata[4]}")
                    + ")<extra></extra>"
                ),
            )
        )
    fig.add_hline(y=0, line_color="#57606a", line_width=1)
    _layout(
        fig,
        tr(
            "review.fig.delta_title",
            measure=measure,
            baseline=baseline,
            confidence=f"{confidence:.0%}",
        ),
        subtitle,
        margin={"l": 82},
    )
    fig.update_xaxes(title=_safe(tr("review.fig.k_axis")))
    fig.update_yaxes(
        title=_safe(tr("review.fig.delta_axis", measure=measure, baseline=baseline)),
        zeroline=False,
    )
    return fig


def ranking_change_figure(
    changes: dict[str, pd.DataFrame],
    k: int,
    p: float,
    baseline: str,
    colours: dict[str, str] | None = None,
    tr: Translate = ENGLISH,
) -> go.Figure:
    """How much each candidate's lists differ from the baseline's: the share of queries by
    rank-biased overlap (:func:`metrics.review.overlap.ranking_change`), one line per candidate
    (1 = the same top K in the same order)."""
    fig = go.Figure()
    edges = np.linspace(0, 1, 21)
    centres = (edges[:-1] + edges[1:]) / 2
    for i, (candidate, table) in enumerate(changes.items()):
        values = table["rbo"].to_numpy(dtype=np.float64)
        counts, _ = np.histogram(values[~np.isnan(values)], bins=edges)
        share = counts / max(int(counts.sum()), 1)
        fig.add_trace(
            go.Scatter(
                x=centres,
                y=share,
                mode="lines+markers",
                name=_safe(candidate),
                line={"color": _colour(colours, candidate, i + 1), "shape": "hvh"},
                hovertemplate=_safe(candidate)
                + "<br>RBO %{x:.2f}<br>"
                + _safe(tr("review.fig.change_share"))
                + " %{y:.0%}<extra></extra>",
            )
        )
    _layout(
        fig,
        tr("review.fig.change_title", baseline=baseline, k=k),
        tr("review.fig.change_subtitle", p=f"{p:g}"),
        margin={"t": 100, "l": 82},  # room for "100%" ticks and the axis title
    )
    fig.update_xaxes(title=_safe(tr("review.fig.change_x", k=k)), range=[0, 1])
    fig.update_yaxes(title=_safe(tr("review.fig.change_y")), tickformat=".0%", rangemode="tozero")
    return fig


def win_tie_loss_figure(table: pd.DataFrame, tr: Translate = ENGLISH) -> go.Figure:
    """Stacked horizontal bars: queries where each candidate is better / tied / worse.

    ``table`` holds candidate-vs-baseline rows of the review table (one bar per candidate ×
    measure; the baseline is ``reference`` or ``baseline``).
    """
    labels = [f"{_safe(c)} · {_safe(m)}" for c, m in zip(table["candidate"], table["measure"])]
    fig = go.Figure()
    for column, code, colour in (
        ("wins", "better", BETTER),
        ("ties", "tied", NEUTRAL),
        ("losses", "worse", WORSE),
    ):
        name = _safe(tr(f"review.fig.wtl_{code}"))
        fig.add_trace(
            go.Bar(
                y=labels,
                x=table[column],
                name=name,
                orientation="h",
                marker_color=colour,
                text=table[column],
                textposition="inside",
                hovertemplate="%{y}<br>"
                + name
                + ": "
                + _hover_words(tr, "review.fig.queries_n", n="%{x}")
                + "<extra></extra>",
            )
        )
    reference = "reference" if "reference" in table.columns else "baseline"
    baseline = str(table[reference].iloc[0]) if len(table) else ""
    _layout(
        fig,
        tr("review.fig.wtl_title", baseline=baseline),
        height=max(300, 130 + 40 * len(labels)),
        margin={"l": label_margin(labels), "t": 90, "b": 67},
    )
    fig.update_layout(
        barmode="stack",
        legend={"orientation": "h", "y": 1.02, "x": 0, "yanchor": "bottom", "traceorder": "normal"},
    )
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(title=_safe(tr("review.fig.queries")))
    return fig


def query_scatter_figure(
    deltas: pd.DataFrame,
    baseline: str,
    candidate: str,
    measure: str,
    selected: str | None = None,
    tr: Translate = ENGLISH,
) -> go.Figure:
    """Per-query values: baseline on x, candidate on y; above the diagonal the candidate wins.

    ``deltas`` is :func:`metrics.review.compare.query_deltas`. Points carry the query id first
    in their ``customdata`` (for selection); ``selected`` is ringed.
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
                name=_safe(tr(f"review.fig.{name}")),
                marker={"color": colour, "size": 7, "opacity": 0.7},
                customdata=_query_data(part["query"]),
                hovertemplate=(
                    _safe(tr("review.fig.query"))
                    + f" %{{customdata[1]}}<br>{_safe(baseline)}: %{{x:.3f}}<br>"
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
                name=_safe(tr("review.fig.selected")),
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
            name=_safe(tr("review.fig.equal")),
            line={"color": "#57606a", "dash": "dash", "width": 1},
            hoverinfo="skip",
        )
    )
    _layout(
        fig,
        tr("review.fig.scatter_title", measure=measure, candidate=candidate, baseline=baseline),
        tr("review.fig.scatter_subtitle"),
        height=440,
        margin={"l": 76, "b": 96},
    )
    fig.update_xaxes(
        title=_safe(tr("review.fig.as_baseline", model=baseline)), range=[-0.03, top + 0.03]
    )
    fig.update_yaxes(
        title=_safe(tr("review.fig.as_candidate", model=candidate)), range=[-0.03, top + 0.03]
    )
    return fig


def segment_label(
    values: dict[str, object], by: list[str], n: int, small: bool, tr: Translate = ENGLISH
) -> str:
    """``navigational · n=70`` (``· small`` appended for small segments), escaped."""
    name = " · ".join(_safe(_value(values[c], tr)) for c in by)
    count = _safe(tr("review.fig.n", n=n))
    return f"{name} · {count}" + (f" · {_safe(tr('review.fig.small'))}" if small else "")


def _value(value: object, tr: Translate) -> str:
    """A segment value for display: ``(all)`` and ``(missing)`` translated."""
    text = str(value)
    if text == "(all)":
        return tr("review.segment_all")
    if text == "(missing)":
        return tr("review.segment_missing")
    return text


def segment_heatmap_figure(
    means: pd.DataFrame,
    by: list[str],
    models: list[str],
    measure: str,
    subtitle: str = "",
    tr: Translate = ENGLISH,
) -> go.Figure:
    """Segment × model heatmap of ``measure`` (rows of :func:`segment_means`, with ``(all)``).

    Each cell shows its value; within a row the best model is marked with a star so a
    reversal (another model best in a segment) is visible at a glance.
    """
    rows = means.to_dict("records")
    labels = [segment_label(r, by, int(r["n"]), bool(r["small"]), tr) for r in rows]
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
        tr("review.fig.heatmap_title", measure=measure),
        subtitle,
        height=max(260, 90 + 36 * len(labels)),
        margin={"l": label_margin(labels), "r": 110, "b": 45},  # the colour bar and its title
    )
    fig.update_yaxes(autorange="reversed")
    return fig


def segment_delta_figure(
    table: pd.DataFrame,
    by: list[str],
    measure: str,
    confidence: float = 0.95,
    colours: dict[str, str] | None = None,
    tr: Translate = ENGLISH,
    templates: Wording | None = None,
) -> go.Figure:
    """Forest plot: delta vs baseline per segment with the interval of its correction family
    (the one that agrees with the verdict), one colour per candidate.

    ``table`` holds the segment rows of the review table
    (:func:`metrics.review.verdict.segment_rows`); filled markers are significant after
    correction, hollow ones are not; the hover gives the same corrected p (and its family) as
    the call-out and the table, and the unadjusted interval beside the adjusted one.
    ``confidence`` is the level of the unadjusted interval.
    """
    part = table[table["measure"] == measure]
    stored = [value_column(c) for c in by]
    if stored != list(by):
        part = part.drop(columns=[c for c in by if c in COLUMNS]).rename(
            columns=dict(zip(stored, by))
        )
    segments = part[by].drop_duplicates().reset_index(drop=True)
    counts = part.drop_duplicates(by).set_index(by)["n"] if len(part) else pd.Series(dtype=int)
    labels = []
    for r in segments.to_dict("records"):
        key = tuple(r[c] for c in by) if len(by) > 1 else r[by[0]]
        count = _safe(tr("review.fig.n", n=int(counts.loc[key])))
        labels.append(" · ".join(_safe(_value(r[c], tr)) for c in by) + f" · {count}")
    position = {tuple(r): i for i, r in enumerate(segments.itertuples(index=False))}
    candidates = list(pd.unique(part["candidate"]))
    width = 0.5 / max(len(candidates), 1)
    fig = go.Figure()
    for i, candidate in enumerate(candidates):
        rows = part[part["candidate"] == candidate]
        colour = _colour(colours, candidate, i + 1)
        offset = (i - (len(candidates) - 1) / 2) * width
        places = [position[tuple(r)] for r in rows[by].itertuples(index=False)]
        p_text = [_safe(row_p(r, templates)) for r in rows.to_dict("records")]
        fig.add_trace(
            go.Scatter(
                x=rows["delta"],
                y=[p + offset for p in places],
                mode="markers",
                name=_safe(candidate),
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": rows["ci_adj_high"] - rows["delta"],
                    "arrayminus": rows["delta"] - rows["ci_adj_low"],
                    "color": colour,
                },
                marker={
                    "color": [colour if s else "white" for s in rows["significant"]],
                    "line": {"color": colour, "width": 2},
                    "size": 10,
                },
                customdata=np.stack(
                    [
                        rows["ci_adj_low"],
                        rows["ci_adj_high"],
                        np.array(p_text, dtype=object),
                        np.array([labels[p] for p in places], dtype=object),
                        np.array(
                            [_safe(tr(f"review.verdict.{v}")) for v in rows["verdict"]],
                            dtype=object,
                        ),
                        rows["ci_low"],
                        rows["ci_high"],
                    ],
                    axis=-1,
                ),
                hovertemplate=(
                    f"<b>{_safe(candidate)}</b> %{{customdata[3]}}<br>Δ %{{x:+.4f}}<br>"
                    + _safe(tr("review.fig.ci_adj"))
                    + " [%{customdata[0]:+.4f}, %{customdata[1]:+.4f}]<br>"
                    + _safe(tr("review.fig.ci_unadjusted", confidence=f"{confidence:.0%}"))
                    + " [%{customdata[5]:+.4f}, %{customdata[6]:+.4f}]<br>"
                    + _safe(tr("review.fig.corrected"))
                    + " %{customdata[2]}<br>%{customdata[4]}<extra></extra>"
                ),
            )
        )
    fig.add_vline(x=0, line_color="#57606a", line_width=1)
    baseline = str(part["reference"].iloc[0]) if len(part) else ""
    _layout(
        fig,
        tr("review.fig.forest_title", measure=measure, baseline=baseline),
        tr("review.fig.forest_subtitle", interval=interval_text(part, templates)),
        height=max(340, 150 + 46 * len(labels)),
        margin={"l": label_margin(labels), "t": 100, "b": 67},
    )
    fig.update_layout(
        legend={"orientation": "h", "y": 1.0, "x": 1, "yanchor": "bottom", "xanchor": "right"},
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


#: Tiers of evidence of the review table's ``tier`` column (data codes; words in catalogs).
CONFIRMED, WATCH, NO_EVIDENCE = "confirmed", "watch", "none"
#: The colour and marker of a watch item: neither the green nor the red of a confirmed one.
WATCH_COLOUR = "#9a6700"
WATCH_SYMBOL = "diamond"
#: Point class of the lead chart -> (marker symbol, colour, filled), in legend order.
LEAD_CLASSES: dict[str, tuple[str, str, bool]] = {
    "better": ("circle", BETTER, True),
    "worse": ("circle", WORSE, True),
    WATCH: (WATCH_SYMBOL, WATCH_COLOUR, True),
    NO_EVIDENCE: ("circle", NEUTRAL, False),
}


def tier_of(row: Mapping[str, Any]) -> str:
    """The tier of a review row: its ``tier``, else (a table without the column) ``confirmed``
    when significant and ``none`` otherwise."""
    tier = row.get("tier")
    if isinstance(tier, str) and tier:
        return tier
    return CONFIRMED if bool(row.get("significant")) else NO_EVIDENCE


def lead_class(row: Mapping[str, Any]) -> str:
    """The point class of a row in the lead chart (:data:`LEAD_CLASSES`): a confirmed row by its
    direction, a watch item, or no evidence."""
    tier = tier_of(row)
    if tier == CONFIRMED:
        return "better" if float(row["delta"]) > 0 else "worse"
    return WATCH if tier == WATCH else NO_EVIDENCE


def _segment_columns(row: Mapping[str, Any], by: Sequence[str]) -> list[str]:
    """The segment columns a segment row breaks down by: those of ``by`` whose value is not
    ``(all)`` (a row of one column of several analysed each on its own has the others at
    ``(all)``)."""
    return [c for c in by if str(row.get(value_column(c), ALL)) != ALL]


@dataclass(frozen=True)
class _Line:
    """One line of the lead chart: a point (``row``), a group's heading (no ``row``) or the
    gap between two candidates (no ``label``)."""

    label: str
    row: dict[str, Any] | None = None
    overall: bool = False
    name: str = ""


def _breakdowns(part: pd.DataFrame, by: Sequence[str]) -> list[tuple[str, ...]]:
    """The segment breakdowns of the rows, in order: each segment column analysed on its own,
    or the crossed columns."""
    found = (tuple(_segment_columns(r, by)) for r in part.to_dict("records") if r["segment"] != ALL)
    return list(dict.fromkeys(found))


def _lead_lines(part: pd.DataFrame, by: Sequence[str], tr: Translate) -> list[_Line]:
    """The lines of the lead chart, top to bottom: per candidate its overall row, then its
    segments, under a heading per segment column (or crossed columns) when there are several
    (the title names a single one); a gap between candidates."""
    headed = len(_breakdowns(part, by)) > 1
    lines: list[_Line] = []
    for candidate in pd.unique(part["candidate"]):
        rows = part[part["candidate"] == candidate].to_dict("records")
        if lines:
            lines.append(_Line(""))
        groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for row in rows:
            if row["segment"] == ALL:
                n = _safe(tr("review.fig.n", n=int(row["n"])))
                everything = _safe(tr("review.fig.lead.all"))
                name = f"{_safe(candidate)} · {everything}"
                lines.append(_Line(f"<b>{name}</b> · {n}" + _watch(row, tr), row, True, name))
            else:
                groups.setdefault(tuple(_segment_columns(row, by)), []).append(row)
        for columns, members in groups.items():
            if columns and headed:
                heading = " × ".join(_safe(c) for c in columns)
                lines.append(_Line(f'<i style="color:{NEUTRAL}">{heading}</i>'))
            for row in members:
                value = " · ".join(_safe(_value(row[value_column(c)], tr)) for c in columns)
                n = _safe(tr("review.fig.n", n=int(row["n"])))
                label = f"{value} · {n}" + _watch(row, tr)
                lines.append(_Line(label, row, False, f"{_safe(candidate)} · {value}"))
    return lines


def _watch(row: Mapping[str, Any], tr: Translate) -> str:
    """`` · watch`` in the watch colour after the label of a watch item, else nothing."""
    if tier_of(row) != WATCH:
        return ""
    return f' · <b style="color:{WATCH_COLOUR}">{_safe(tr("review.fig.lead.watch"))}</b>'


def _places(lines: Sequence[_Line]) -> list[float]:
    """The y of each line (down from 0): one step per line, half a step for a gap."""
    places, y = [], 0.0
    for line in lines:
        places.append(y)
        y += 1.0 if line.label else 0.5
    return places


def lead_measure_figure(
    table: pd.DataFrame,
    measure: str,
    by: Sequence[str] = (),
    *,
    tr: Translate = ENGLISH,
    templates: Wording | None = None,
    titled: bool = True,
    narrow: bool = False,
) -> go.Figure:
    """The review's lead measure in one chart: for each candidate, the overall Δ against the
    baseline with its adjusted interval (``ci_adj_low``, ``ci_adj_high``: the one that agrees
    with the corrected test), then each segment's Δ with its interval, grouped by segment
    column.

    Confirmed rows (tier ``confirmed``) are filled circles coloured by their direction, watch
    items (tier ``watch``) amber diamonds with the word "watch" beside their label, rows without
    evidence hollow grey circles; the overall rows are the larger points, on a light band; a
    line marks zero and, when the review sets a smallest difference that matters for
    ``measure``, a grey band the differences smaller than it. The hover gives the interval, the
    corrected p, the tier and the queries better and worse. Every word comes from ``tr`` and
    ``templates`` (the catalogs), every name is escaped.

    Parameters
    ----------
    table:
        The review table (:func:`metrics.review.verdict.review_table`), or its candidate-vs-
        baseline rows; only the rows of ``measure`` are drawn. Without a ``tier`` column a
        significant row counts as confirmed.
    measure:
        The lead measure (:func:`metrics.review.decision.lead_measure`), as in the table
        (``nDCG@10``).
    by:
        The review's segment columns (their values in :func:`value_column` columns).
    titled:
        Whether the figure carries its title (:func:`lead_titles`; the report and the page
        write it above instead, where it wraps on a phone).
    narrow:
        Laid out for a phone: each label above its point instead of beside the axis, so that
        the plot keeps the width.
    """
    part = _lead_rows(table, measure)
    lines = _lead_lines(part, by, tr)
    places = _places(lines)
    points = [(places[i], line) for i, line in enumerate(lines) if line.row is not None]
    baseline = str(part["reference"].iloc[0]) if len(part) else ""
    tiers = {t: _safe(tr(f"review.fig.lead.tier.{t}")) for t in (CONFIRMED, WATCH, NO_EVIDENCE)}
    fig = go.Figure()
    for code, (symbol, colour, filled) in LEAD_CLASSES.items():
        mine = [(y, line) for y, line in points if lead_class(line.row or {}) == code]
        if not mine:
            continue
        rows = [line.row or {} for _, line in mine]
        delta = np.array([float(r["delta"]) for r in rows])
        low = np.array([float(r["ci_adj_low"]) for r in rows])
        high = np.array([float(r["ci_adj_high"]) for r in rows])
        queries = [
            tr(
                "review.fig.lead.queries",
                wins=int(r["wins"]),
                losses=int(r["losses"]),
                n=int(r["n"]),
            )
            for r in rows
        ]
        fig.add_trace(
            go.Scatter(
                x=delta,
                y=[y for y, _ in mine],
                mode="markers",
                name=_safe(tr(f"review.fig.lead.class.{code}")),
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": np.nan_to_num(high - delta),
                    "arrayminus": np.nan_to_num(delta - low),
                    "color": colour,
                    "thickness": 2,
                    "width": 4,
                },
                marker={
                    "symbol": symbol,
                    "color": colour if filled else "white",
                    "line": {"color": colour, "width": 2},
                    "size": [14 if line.overall else 10 for _, line in mine],
                },
                customdata=np.stack(
                    [
                        np.array([line.name for _, line in mine], dtype=object),
                        low,
                        high,
                        np.array([_safe(row_p(r, templates)) for r in rows], dtype=object),
                        np.array([tiers.get(tier_of(r), "") for r in rows], dtype=object),
                        np.array([_safe(q) for q in queries], dtype=object),
                    ],
                    axis=-1,
                ),
                hovertemplate=(
                    f"<b>%{{customdata[0]}}</b> − {_safe(baseline)}<br>Δ %{{x:+.4f}}<br>"
                    + _safe(tr("review.fig.ci_adj"))
                    + " [%{customdata[1]:+.4f}, %{customdata[2]:+.4f}]<br>"
                    + _safe(tr("review.fig.corrected"))
                    + " %{customdata[3]}<br>%{customdata[4]}<br>%{customdata[5]}<extra></extra>"
                ),
            )
        )
    effect = _min_effect(part)
    if effect:
        fig.add_vrect(x0=-effect, x1=effect, fillcolor=NEUTRAL, opacity=0.15, line_width=0)
    for y, line in points:
        if line.overall:
            top = y - (0.9 if narrow else 0.5)  # on a phone the band holds the label above
            fig.add_hrect(y0=top, y1=y + 0.5, fillcolor="#f6f8fa", line_width=0, layer="below")
    fig.add_vline(x=0, line_color="#57606a", line_width=1)
    title, subtitle = lead_titles(table, measure, by, tr, templates)
    depth = places[-1] + 1 if places else 1.0
    step = 44 if narrow else 24  # pixels per line; on a phone a label sits above its point
    _layout(
        fig,
        title if titled else "",
        subtitle if titled else "",
        height=max(260, int((140 if titled else 100) + step * depth)),
        margin={
            "l": 12 if narrow else label_margin([line.label for line in lines]),
            # room for the legend above the plot and the axis title below, so that plotly need
            # not grow the margins it was given
            "t": 100 if titled else 44,
            "b": 70,
            "r": 12 if narrow else 24,
        },
    )
    fig.update_layout(
        legend={"orientation": "h", "y": 1.0, "x": 0, "yanchor": "bottom", "xanchor": "left"},
    )
    fig.update_xaxes(
        title=_safe(tr("review.fig.delta_axis", measure=measure, baseline=baseline)),
        zeroline=False,
    )
    labelled = [(y, line.label) for y, line in zip(places, lines) if line.label]
    fig.update_yaxes(
        tickvals=[y for y, _ in labelled],
        ticktext=[label for _, label in labelled],
        showticklabels=not narrow,
        range=[depth - 0.5, -0.5 - (0.5 if narrow else 0)],
        zeroline=False,
        showgrid=False,
    )
    for y, label in labelled if narrow else ():
        fig.add_annotation(
            x=0, xref="paper", xanchor="left", y=y, yref="y", yshift=14, text=label, showarrow=False
        )
    return fig


def _lead_rows(table: pd.DataFrame, measure: str) -> pd.DataFrame:
    """The candidate-vs-baseline rows of ``measure``."""
    return table[(table["kind"] == BASELINE_KIND) & (table["measure"] == measure)]


def _min_effect(part: pd.DataFrame) -> float:
    """The smallest difference that matters of the rows (0 when none is set)."""
    if "min_effect" not in part.columns or not len(part):
        return 0.0
    values = part["min_effect"].to_numpy(dtype=np.float64)
    values = values[np.isfinite(values) & (values > 0)]
    return float(values[0]) if len(values) else 0.0


def lead_titles(
    table: pd.DataFrame,
    measure: str,
    by: Sequence[str] = (),
    tr: Translate = ENGLISH,
    templates: Wording | None = None,
) -> tuple[str, str]:
    """The title of :func:`lead_measure_figure` and the note of what its bars and band are,
    in words."""
    part = _lead_rows(table, measure)
    baseline = str(part["reference"].iloc[0]) if len(part) else ""
    breakdowns = [" × ".join(columns) for columns in _breakdowns(part, by)]
    columns = tr("review.fig.lead.columns_separator").join(breakdowns)
    key = "review.fig.lead.title" if breakdowns else "review.fig.lead.title_overall"
    notes = [tr("review.fig.lead.bars", interval=interval_text(part, templates))]
    effect = _min_effect(part)
    if effect:
        notes.append(tr("review.fig.lead.band", effect=f"{effect:g}"))
    title = tr(key, measure=measure, baseline=baseline, columns=columns)
    return title, tr("review.fig.lead.separator").join(notes)


def pairwise_matrix_figure(
    table: pd.DataFrame,
    measure: str,
    tr: Translate = ENGLISH,
    templates: Wording | None = None,
) -> go.Figure:
    """Candidates against each other on ``measure``: the cell of row A and column B is A − B,
    with its corrected p (the pairwise family of the review table) and verdict; green where
    the row candidate is significantly better, red where significantly worse, grey otherwise.
    """
    pairs = pairwise_rows(table, measure)
    candidates = list(dict.fromkeys([*pairs["reference"], *pairs["candidate"]]))
    size = len(candidates)
    z = np.full((size, size), np.nan)
    text = [["" for _ in candidates] for _ in candidates]
    sign = {BETTER_CODE: 1.0, WORSE_CODE: -1.0, UNCLEAR: 0.0}
    for r in pairs.to_dict("records"):
        i, j = candidates.index(r["candidate"]), candidates.index(r["reference"])
        p = _safe(row_p(r, templates))
        # row = candidate, column = reference: candidate − reference
        z[i, j] = sign[r["verdict"]]
        word = _safe(tr("review.verdict." + str(r["verdict"])))
        text[i][j] = f"{r['delta']:+.3f}<br>{p}<br>{word}"
        z[j, i] = -sign[r["verdict"]]
        back = {BETTER_CODE: WORSE_CODE, WORSE_CODE: BETTER_CODE}.get(r["verdict"], UNCLEAR)
        word = _safe(tr("review.verdict." + back))
        text[j][i] = f"{-r['delta']:+.3f}<br>{p}<br>{word}"
    for i in range(size):
        text[i][i] = "—"
    names = [_safe(c) for c in candidates]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=names,
            y=names,
            text=text,
            texttemplate="%{text}",
            colorscale=[[0, "#ffebe9"], [0.5, "#f6f8fa"], [1, "#dafbe1"]],
            zmin=-1,
            zmax=1,
            showscale=False,
            hovertemplate="%{y} − %{x}<br>%{text}<extra></extra>",
        )
    )
    family = ""
    if len(pairs):
        family = family_text(pairs.iloc[0].to_dict(), templates)
    _layout(
        fig,
        tr("review.fig.matrix_title", measure=measure),
        tr("review.fig.matrix_subtitle", family=family) if family else "",
        height=max(260, 120 + 80 * size),
        margin={"l": label_margin(names, titled=True), "t": 110, "b": 45},
    )
    fig.update_yaxes(autorange="reversed", title=_safe(tr("review.fig.matrix_rows")))
    fig.update_xaxes(title=_safe(tr("review.fig.matrix_columns")), side="top")
    return fig


def opposite_queries(pair: pd.DataFrame) -> pd.DataFrame:
    """Queries of :func:`metrics.review.compare.query_deltas`-style pair tables (``query``,
    ``delta_x``, ``delta_y``) where the two deltas have opposite signs, biggest disagreement
    first."""
    mask = np.sign(pair["delta_x"]) * np.sign(pair["delta_y"]) < 0
    part = pair[mask]
    part = part.assign(_size=-(part["delta_x"].abs() + part["delta_y"].abs()))
    return part.sort_values(["_size", "query"], kind="stable").drop(columns="_size")


def disagreement_figure(
    pair: pd.DataFrame,
    measure_x: str,
    measure_y: str,
    selected: str | None = None,
    tr: Translate = ENGLISH,
) -> go.Figure:
    """Per query: Δ on ``measure_x`` (x) against Δ on ``measure_y`` (y), candidate − baseline.

    ``pair`` has ``query``, ``delta_x``, ``delta_y``. Queries where the two measures point in
    opposite directions (upper-left and lower-right) are drawn in their own colour; points carry
    the query id first in their ``customdata`` so that a click opens the query in the drill-down.
    """
    product = np.sign(pair["delta_x"]) * np.sign(pair["delta_y"])
    groups = (
        ("opposite", product < 0, OPPOSITE, 9),
        ("same_direction", product > 0, "#0072B2", 7),
        ("one_unchanged", product == 0, NEUTRAL, 6),
    )
    fig = go.Figure()
    for name, mask, colour, size in groups:
        part = pair[mask]
        fig.add_trace(
            go.Scatter(
                x=part["delta_x"],
                y=part["delta_y"],
                mode="markers",
                name=_safe(tr(f"review.fig.{name}", n=int(mask.sum()))),
                marker={"color": colour, "size": size, "opacity": 0.75},
                customdata=_query_data(part["query"]),
                hovertemplate=(
                    _safe(tr("review.fig.query"))
                    + f" %{{customdata[1]}}<br>Δ {_safe(measure_x)}: %{{x:+.3f}}<br>"
                    f"Δ {_safe(measure_y)}: %{{y:+.3f}}<extra></extra>"
                ),
            )
        )
    if selected is not None:
        part = pair[pair["query"].astype(str) == str(selected)]
        fig.add_trace(
            go.Scatter(
                x=part["delta_x"],
                y=part["delta_y"],
                mode="markers",
                name=_safe(tr("review.fig.selected")),
                hoverinfo="skip",
                marker={
                    "size": 16,
                    "color": "rgba(0,0,0,0)",
                    "line": {"color": "#000000", "width": 2},
                },
            )
        )
    fig.add_hline(y=0, line_color="#57606a", line_width=1)
    fig.add_vline(x=0, line_color="#57606a", line_width=1)
    _layout(
        fig,
        tr("review.fig.disagree_title", x=measure_x, y=measure_y),
        tr("review.fig.disagree_subtitle"),
        height=440,
        margin={"l": 76, "b": 96},
    )
    fig.update_xaxes(title=f"Δ {_safe(measure_x)}", zeroline=False)
    fig.update_yaxes(title=f"Δ {_safe(measure_y)}", zeroline=False)
    return fig


__all__ = [
    "BETTER",
    "CONFIRMED",
    "DIRECTION_COLOURS",
    "ENGLISH",
    "LEAD_CLASSES",
    "NEUTRAL",
    "NO_EVIDENCE",
    "OPPOSITE",
    "WATCH",
    "WATCH_COLOUR",
    "WORSE",
    "delta_curve_figure",
    "disagreement_figure",
    "lead_class",
    "lead_measure_figure",
    "lead_titles",
    "model_colours",
    "opposite_queries",
    "pairwise_matrix_figure",
    "query_scatter_figure",
    "ranking_change_figure",
    "segment_delta_figure",
    "segment_heatmap_figure",
    "segment_label",
    "tier_of",
    "win_tie_loss_figure",
]
