"""The Learn page's curve: each measure of one list over K, the ideal ordering dotted, and a
line at the chosen K (pure: an SVG picture from tables).

The curve is redrawn on every list change; a small SVG (drawn by the browser in a few
milliseconds) keeps that redraw quick, where a plotly chart costs more than the rest of the
page. Every text in it is escaped; each point has its value as a tooltip.
"""

from __future__ import annotations

import unicodedata
from html import escape

import pandas as pd

from metrics.engine.registry import at_cutoff
from ui.shell.palette import PALETTE

#: Drawing area of the picture (SVG units; it is scaled to the page's width).
WIDTH, HEIGHT = 900, 380
LEFT, RIGHT, TOP, BOTTOM = 58, 34, 58, 84
Y_MAX = 1.08
CUT_COLOUR = "#D55E00"
GRID_COLOUR = "#E5E5E5"
TEXT_COLOUR = "#31333F"


def _numbers(values: pd.Series) -> list[float | None]:
    return [None if v != v else float(v) for v in values]


def _x(k: float, top: int) -> float:
    span = max(top - 1, 1)
    return LEFT + (k - 1) / span * (WIDTH - LEFT - RIGHT) if top > 1 else (WIDTH + LEFT) / 2


def _y(value: float) -> float:
    return TOP + (1 - value / Y_MAX) * (HEIGHT - TOP - BOTTOM)


def _paths(xs: list[int], ys: list[float | None], top: int) -> list[str]:
    """The ``d`` of each unbroken run of values (a missing value is a gap)."""
    runs: list[list[str]] = [[]]
    for x, y in zip(xs, ys):
        if y is None:
            runs.append([])
            continue
        runs[-1].append(f"{'M' if not runs[-1] else 'L'}{_x(x, top):.1f},{_y(y):.1f}")
    return [" ".join(run) for run in runs if run]


def _series(
    name: str, xs: list[int], ys: list[float | None], colour: str, top: int, *, dotted: bool
) -> list[str]:
    style = 'stroke-dasharray="3 4" stroke-width="1.5"' if dotted else 'stroke-width="2"'
    parts = [f'<path d="{d}" fill="none" stroke="{colour}" {style}/>' for d in _paths(xs, ys, top)]
    if not dotted:
        for x, y in zip(xs, ys):
            if y is not None:
                parts.append(
                    f'<circle cx="{_x(x, top):.1f}" cy="{_y(y):.1f}" r="4" fill="{colour}">'
                    f"<title>{at_cutoff(escape(name), x)} = {y:.3f}</title></circle>"
                )
    return parts


def _axes(top: int, x_label: str, y_label: str) -> list[str]:
    parts = []
    for tick in (0, 0.2, 0.4, 0.6, 0.8, 1.0):
        y = _y(tick)
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="{GRID_COLOUR}"/>'
            f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{tick:g}</text>'
        )
    step = 1 if top <= 20 else max(1, round(top / 10))
    for k in range(1, top + 1, step):
        x = _x(k, top)
        parts.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{HEIGHT - BOTTOM}" '
            f'stroke="{GRID_COLOUR}"/>'
            f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 18}" text-anchor="middle">{k}</text>'
        )
    middle = (TOP + HEIGHT - BOTTOM) / 2
    parts.append(
        f'<text x="{(LEFT + WIDTH - RIGHT) / 2:.1f}" y="{HEIGHT - BOTTOM + 38}" '
        f'text-anchor="middle">{escape(x_label)}</text>'
        f'<text x="16" y="{middle:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {middle:.1f})">{escape(y_label)}</text>'
    )
    return parts


def _legend(entries: list[tuple[str, str, bool]]) -> list[str]:
    parts, x, y = [], float(LEFT), HEIGHT - 16
    for name, colour, dotted in entries:
        dash = ' stroke-dasharray="3 4"' if dotted else ""
        parts.append(
            f'<line x1="{x:.1f}" x2="{x + 24:.1f}" y1="{y - 4}" y2="{y - 4}" stroke="{colour}" '
            f'stroke-width="2"{dash}/><text x="{x + 30:.1f}" y="{y}">{escape(name)}</text>'
        )
        x += 42 + sum(14 if unicodedata.east_asian_width(c) in "WF" else 7.5 for c in name)
    return parts


def learn_curve_svg(
    values: pd.DataFrame,
    ideal: pd.DataFrame | None,
    k: int,
    *,
    title: str,
    x_label: str,
    y_label: str,
    ideal_label: str,
    k_label: str,
) -> str:
    """Curves of one list (``k`` column, one column per measure), the ideal ordering's curves
    (same columns, dotted, same colours) and a vertical line at ``k``, as an SVG picture."""
    columns = [c for c in values.columns if c != "k"]
    xs = [int(x) for x in values["k"]]
    top = max([*xs, k, 1])
    body = _axes(top, x_label, y_label)
    legend: list[tuple[str, str, bool]] = []
    for i, col in enumerate(columns):
        colour = PALETTE[i % len(PALETTE)]
        name = str(col)
        if ideal is not None and col in ideal.columns:
            ideal_xs = [int(x) for x in ideal["k"]]
            body += _series(name, ideal_xs, _numbers(ideal[col]), colour, top, dotted=True)
        body += _series(name, xs, _numbers(values[col]), colour, top, dotted=False)
        legend.append((name, colour, False))
        if ideal is not None and col in ideal.columns:
            legend.append((f"{name} ({ideal_label})", colour, True))
    cut = _x(k, top)
    body.append(
        f'<line class="cut" x1="{cut:.1f}" x2="{cut:.1f}" y1="{TOP}" y2="{HEIGHT - BOTTOM}" '
        f'stroke="{CUT_COLOUR}" stroke-width="2" stroke-dasharray="6 4"/>'
        f'<text x="{cut:.1f}" y="{TOP - 6}" text-anchor="middle" fill="{CUT_COLOUR}">'
        f"{escape(k_label)}</text>"
    )
    return (
        f'<svg class="learn-curve" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg" '
        f'font-family="Source Sans Pro, sans-serif" font-size="13" fill="{TEXT_COLOUR}">'
        f'<text x="{LEFT}" y="24" font-size="16" font-weight="600">{escape(title)}</text>'
        + "".join(body)
        + "".join(_legend(legend))
        + "</svg>"
    )
