"""Pure table builders of the review pages: display tables and their colouring (no Streamlit).

Colour carries meaning only together with text: every coloured row also says ``better``,
``worse`` or ``no clear difference`` in its ``direction`` column.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

BETTER_BACKGROUND = "background-color: #dafbe1"
WORSE_BACKGROUND = "background-color: #ffebe9"
LABEL_COLOURS = {0: "#f6f8fa", 1: "#fff8c5", 2: "#d2f4d8", 3: "#a7e3b4"}
UNJUDGED = "#eaeef2"

#: Columns of the delta table shown on the Compare page, in order.
DELTA_COLUMNS = [
    "candidate",
    "measure",
    "n",
    "mean_a",
    "mean_b",
    "delta",
    "relative_delta",
    "ci_low",
    "ci_high",
    "p_adjusted",
    "direction",
    "p_randomization",
    "p_ttest",
    "p_wilcoxon",
    "wins",
    "ties",
    "losses",
    "effect_size",
]


#: The columns a stakeholder reads (the Report page).
BRIEF_COLUMNS = [
    "candidate",
    "measure",
    "n",
    "mean_a",
    "mean_b",
    "delta",
    "relative_delta",
    "ci_low",
    "ci_high",
    "p_adjusted",
    "direction",
    "wins",
    "ties",
    "losses",
]


def delta_display(
    table: pd.DataFrame, by: list[str] | None = None, *, brief: bool = False
) -> pd.DataFrame:
    """The columns of :data:`DELTA_COLUMNS` (or :data:`BRIEF_COLUMNS` when ``brief``), with the
    ``by`` columns after ``candidate``."""
    by = list(by or [])
    chosen = BRIEF_COLUMNS if brief else DELTA_COLUMNS
    columns = chosen[:1] + by + chosen[1:]
    return table[[c for c in columns if c in table.columns]].reset_index(drop=True)


def _row_colour(direction: str, width: int) -> list[str]:
    colour = {"better": BETTER_BACKGROUND, "worse": WORSE_BACKGROUND}.get(direction, "")
    return [colour] * width


def style_delta_table(display: pd.DataFrame) -> Styler:
    """Rows coloured green (significantly better) / red (significantly worse); numbers rounded.

    ``display`` is :func:`delta_display` output (it must keep the ``direction`` column).
    """
    formats = {c: "{:.4f}" for c in ("mean_a", "mean_b", "effect_size")}
    formats.update({c: "{:+.4f}" for c in ("delta", "ci_low", "ci_high")})
    formats["relative_delta"] = "{:+.1%}"
    formats.update(
        {c: "{:.4g}" for c in ("p_adjusted", "p_randomization", "p_ttest", "p_wilcoxon")}
    )
    formats = {c: f for c, f in formats.items() if c in display.columns}
    return display.style.apply(lambda row: _row_colour(row["direction"], len(row)), axis=1).format(
        formats, na_rep="—"
    )


def label_colour(label: float) -> str:
    """Background colour of an item with judgment ``label`` (grey when unjudged)."""
    if label is None or (isinstance(label, float) and np.isnan(label)):
        return UNJUDGED
    return LABEL_COLOURS.get(int(min(max(label, 0), 3)), LABEL_COLOURS[3])


def style_ranked_list(items: pd.DataFrame) -> Styler:
    """A drill-down list (:func:`metrics.review.drilldown.side_by_side`): label colours, change
    bold.

    The ``label`` cell is coloured by grade; the ``change`` cell is green for ``new in top K``
    and moves up, red for ``left top K`` and moves down.
    """

    def change_style(value: str) -> str:
        text = str(value)
        if text.startswith("new") or text.startswith("up"):
            return "color: #1a7f37; font-weight: 600"
        if text.startswith("left") or text.startswith("down"):
            return "color: #cf222e; font-weight: 600"
        return "color: #57606a"

    styler = items.style.map(lambda v: f"background-color: {label_colour(v)}", subset=["label"])
    if "change" in items.columns:
        styler = styler.map(change_style, subset=["change"])
    return styler.format({"score": "{:.4g}", "label": "{:g}"}, na_rep="unjudged")


def segment_display(
    means: pd.DataFrame,
    deltas: pd.DataFrame,
    by: list[str],
    baseline: str,
    models: list[str],
    overall: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per segment: n, small flag, each model's mean, each candidate's delta and p.

    Parameters
    ----------
    means:
        :func:`metrics.review.segments.segment_means` (with the ``(all)`` row last).
    deltas:
        Segmented :func:`metrics.review.compare.comparison_table` for one measure.
    overall:
        Unsegmented comparison table for the same measure: fills the ``(all)`` row.
    """
    out = means.copy()
    if overall is not None:
        deltas = pd.concat([deltas, overall.assign(**{c: "(all)" for c in by})], ignore_index=True)
    for candidate in [m for m in models if m != baseline]:
        part = deltas[deltas["candidate"] == candidate].set_index(by)
        index = pd.MultiIndex.from_frame(out[by]) if len(by) > 1 else pd.Index(out[by[0]])
        aligned = part.reindex(index)
        out[f"Δ {candidate}"] = aligned["delta"].to_numpy()
        out[f"CI {candidate}"] = [
            "" if np.isnan(lo) else f"[{lo:+.3f}, {hi:+.3f}]"
            for lo, hi in zip(
                aligned["ci_low"].to_numpy(dtype=float), aligned["ci_high"].to_numpy(dtype=float)
            )
        ]
        out[f"p_adj {candidate}"] = aligned["p_adjusted"].to_numpy()
        out[f"{candidate} vs {baseline}"] = aligned["direction"].fillna("").to_numpy()
    return out


__all__ = [
    "BRIEF_COLUMNS",
    "DELTA_COLUMNS",
    "delta_display",
    "label_colour",
    "segment_display",
    "style_delta_table",
    "style_ranked_list",
]
