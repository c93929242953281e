"""The History page's chart (pure: no Streamlit): the lead measure of every saved version over
time, with its interval, and the last accepted version marked.

Built from the store's history table (:func:`metrics.store.history`, the numbers of
``python -m metrics history``); every word comes from the catalog through ``tr``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pandas as pd
import plotly.graph_objects as go

from ui.shell.i18n import number, translate
from ui.shell.palette import PALETTE
from ui.shell.plotting import SETTLED_MARGIN, build_figure
from ui.shell.safe import plotly_text

Translate = Callable[..., str]
ENGLISH: Translate = partial(translate, lang="en")

#: The mark of the last accepted version.
ACCEPTED_COLOUR = "#9a6700"


def _interval(value: float) -> str:
    return "–" if value != value else f"{value:.4f}"


def _hover(row: pd.Series, measure: str, tr: Translate) -> str:
    return tr(
        "history.hover",
        version=plotly_text(row["version"]),
        model=plotly_text(row["model"]),
        saved=str(row["saved"])[:10],
        measure=plotly_text(measure),
        mean=_interval(float(row["mean"])),
        low=_interval(float(row["ci_low"])),
        high=_interval(float(row["ci_high"])),
        queries=number(int(row["queries"])),
    )


def series_of(table: pd.DataFrame) -> list[tuple[str | None, pd.DataFrame]]:
    """The lines of the chart: one for all versions when each has one model (named by the
    version), else one per model name (``None``: the single line)."""
    if not len(table):
        return []
    per_version = table.groupby("version", sort=False)["model"].nunique()
    if (per_version == 1).all():
        return [(None, table)]
    return [(str(m), part) for m, part in table.groupby("model", sort=False)]


def history_figure(table: pd.DataFrame, measure: str, tr: Translate = ENGLISH) -> go.Figure:
    """The mean of ``measure`` of every version (rows of :func:`metrics.store.history` for that
    measure), oldest first, at the time it was saved, with its bootstrap interval as error bars;
    the version's name beside its point; the last accepted version ringed."""
    rows = table[table["measure"] == measure].reset_index(drop=True)
    traces: list[dict] = []
    for position, (model, part) in enumerate(series_of(rows)):
        mean = part["mean"].astype(float)
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers+text",
                "name": tr("history.line", measure=plotly_text(measure))
                if model is None
                else plotly_text(model),
                "x": pd.to_datetime(part["saved"]).tolist(),
                "y": mean.tolist(),
                "text": [plotly_text(v) for v in part["version"]],
                "textposition": "top right",
                "textfont": {"size": 12},
                "error_y": {
                    "type": "data",
                    "symmetric": False,
                    "array": (part["ci_high"].astype(float) - mean).tolist(),
                    "arrayminus": (mean - part["ci_low"].astype(float)).tolist(),
                    "thickness": 1.2,
                    "width": 5,
                },
                "marker": {"size": 9, "color": PALETTE[position % len(PALETTE)]},
                "line": {"width": 1.5, "color": PALETTE[position % len(PALETTE)]},
                "hovertext": [_hover(row, measure, tr) for _, row in part.iterrows()],
                "hoverinfo": "text",
            }
        )
    accepted = rows[rows["accepted"].astype(bool)]
    if len(accepted):
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": tr("history.accepted_mark"),
                "x": pd.to_datetime(accepted["saved"]).tolist(),
                "y": accepted["mean"].astype(float).tolist(),
                "marker": {
                    "size": 20,
                    "symbol": "circle-open",
                    "color": ACCEPTED_COLOUR,
                    "line": {"width": 2.5, "color": ACCEPTED_COLOUR},
                },
                "hovertext": [_hover(row, measure, tr) for _, row in accepted.iterrows()],
                "hoverinfo": "text",
            }
        )
    layout = {
        "title": {"text": tr("history.chart_title", measure=plotly_text(measure))},
        "height": 420,
        "margin": {**SETTLED_MARGIN, "t": 70, "b": 90},
        "legend": {"orientation": "h", "y": -0.2},
        # dates as numbers (2025-01-31): plotly's month names would be English in every language
        "xaxis": {"title": {"text": tr("history.axis.saved")}, "tickformat": "%Y-%m-%d"},
        "yaxis": {"title": {"text": tr("history.axis.mean", measure=plotly_text(measure))}},
        "hovermode": "closest",
    }
    return build_figure(traces, layout)


__all__ = ["ENGLISH", "history_figure", "series_of"]
