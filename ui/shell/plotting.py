"""The figures' common style and output (no Streamlit): the font family and template every
plotly figure of the app uses, the margins they start from, and SVG/PNG pictures of figures
(kaleido).

Importing this module gives every figure of the app (``ui.curves.figures``' and
``ui.review.figures``', which name ``plotly_white`` too) a font family that covers Chinese and
Japanese, so that PNG and SVG exports (kaleido) and screenshots draw CJK text instead of empty
boxes. Debian's ``fonts-noto-cjk`` provides the first families of :data:`FONT_FAMILY`.
"""

from __future__ import annotations

import contextlib
import html
import math
from collections.abc import Iterable, Sequence
from unicodedata import east_asian_width

import plotly.graph_objects as go
import plotly.io as pio

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


def build_figure(traces: list[dict], layout: dict) -> go.Figure:
    """A figure built at once from plain traces and layout (several times faster than adding
    traces and updating the layout step by step, which plotly checks path by path)."""
    return go.Figure(data=traces, layout={**layout_template(), **layout})


#: Width (pixels) of the report's chart pictures, and of one laid out for a phone.
PICTURE_WIDTH, PHONE_PICTURE_WIDTH = 1000, 380


def figure_pictures(
    figures: list[go.Figure], width: int | Sequence[int] = PICTURE_WIDTH
) -> list[str | None]:
    """The figures as SVG pictures (text), made in one go: kaleido starts its headless browser
    once for all of them. Each keeps its own height (460 px when it sets none); ``width`` is
    every picture's width, or each one's. When pictures cannot be made here (no browser for
    kaleido), every entry is ``None``: the caller says so instead of failing."""
    import tempfile
    from pathlib import Path

    if not figures:
        return []
    heights = [int(f.layout.height) if f.layout.height else 460 for f in figures]
    widths = [width] * len(figures) if isinstance(width, int) else list(width)
    with tempfile.TemporaryDirectory() as folder:
        paths = [Path(folder) / f"chart_{i}.svg" for i in range(len(figures))]
        # kaleido raises several types depending on what is missing; on a busy machine it can
        # also fail a call, or leave one picture of a batch unwritten: those are made once more
        with contextlib.suppress(Exception):
            pio.write_images(figures, paths, format="svg", width=widths, height=heights)
        for fig, path, wide, height in zip(figures, paths, widths, heights):
            if not path.exists():
                with contextlib.suppress(Exception):
                    pio.write_image(fig, path, format="svg", width=wide, height=height)
        return [p.read_text(encoding="utf-8") if p.exists() else None for p in paths]


def figure_image(fig: go.Figure, fmt: str, width: int = 1100, height: int = 500) -> bytes:
    """The figure as PNG or SVG bytes (kaleido drives a headless Chromium).

    Raises
    ------
    RuntimeError
        When the image cannot be made (no browser for kaleido); the message says so.
    """
    with contextlib.suppress(Exception):  # a busy machine can fail one call: once more
        return fig.to_image(format=fmt, width=width, height=height)
    try:
        return fig.to_image(format=fmt, width=width, height=height)
    except Exception as exc:  # kaleido raises several types depending on what is missing
        raise RuntimeError(
            f"the {fmt.upper()} image could not be made ({type(exc).__name__}: "
            f"{exc}). Download the SVG or the HTML instead, or use the camera "
            f"icon of the chart."
        ) from None
