"""Text that cannot lie: bidirectional control characters in user values made visible.

A right-to-left override (U+202E) or isolate (U+2066..U+2069) inside an id or a segment value
reorders the text displayed after it, so a sentence such as "hybrid loses on <segment> by 0.12"
can show its numbers reversed ("Trojan Source"). Every such character is replaced by a visible
marker ``[U+202E]``: the value stays unique and readable, and nothing around it moves.

:func:`~metrics.io.loaders.load_dataset` applies :func:`visible_frame` to every table it builds,
so every page, chart, report and export shows the neutralised values; the display helpers apply
:func:`visible` again where text comes from elsewhere (file names, messages).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from metrics.engine.lazy import LazyModule

if TYPE_CHECKING:
    import pandas as pd
else:  # imported on first use: the command line reads tables in blocks without it
    pd = LazyModule("pandas")

#: Bidirectional formatting characters (embeddings, overrides, isolates, marks).
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")


def _marker(match: re.Match[str]) -> str:
    return f"[U+{ord(match.group(0)):04X}]"


def visible(text: object) -> str:
    """``text`` as a string with every bidirectional control shown as ``[U+XXXX]``.

    Examples
    --------
    >>> visible("abc\u202edef")
    'abc[U+202E]def'
    """
    return _BIDI.sub(_marker, str(text))


def has_bidi(text: str) -> bool:
    """Whether ``text`` holds a bidirectional control character."""
    return _BIDI.search(text) is not None


def _text_has_bidi(values: pd.Series) -> bool:
    """Whether any cell of a text column holds a bidirectional control: a scan of the column's
    UTF-8 bytes (no per-cell work), or of each cell when the column mixes types."""
    try:
        if hasattr(values.array, "__arrow_array__"):
            arrow = values.array.__arrow_array__()  # no copy
        else:
            arrow = pa.array(
                values.to_numpy(dtype=object), type=pa.large_string(), from_pandas=True
            )
        if isinstance(arrow, pa.Array):
            arrow = pa.chunked_array([arrow])
    except (pa.ArrowException, TypeError, ValueError):
        return any(isinstance(v, str) and _BIDI.search(v) is not None for v in values)
    if not (pa.types.is_string(arrow.type) or pa.types.is_large_string(arrow.type)):
        return any(isinstance(v, str) and _BIDI.search(v) is not None for v in values)
    seen: set[tuple[int, int]] = set()
    for chunk in arrow.chunks:
        data = chunk.buffers()[2]
        if data is None or (data.address, data.size) in seen:
            continue  # slices of one column share their buffer: scan it once
        seen.add((data.address, data.size))
        if utf8_has_bidi(data):
            return True
    return False


def utf8_has_bidi(raw: bytes | pa.Buffer) -> bool:
    """Whether UTF-8 bytes (any buffer, read in place) hold a bidirectional control
    (vectorised over the bytes; ASCII text, the usual case, is seen as such in one pass)."""
    b = np.frombuffer(raw, dtype=np.uint8)
    if len(b) < 2 or b.max() < 0x80:
        return False
    if np.any((b[:-1] == 0xD8) & (b[1:] == 0x9C)):  # U+061C
        return True
    if len(b) < 3:
        return False
    lead = np.flatnonzero((b[:-2] == 0xE2) & ((b[1:-1] == 0x80) | (b[1:-1] == 0x81)))
    second, third = b[lead + 1], b[lead + 2]
    general = (second == 0x80) & (
        (third == 0x8E) | (third == 0x8F) | ((third >= 0xAA) & (third <= 0xAE))
    )  # U+200E, U+200F, U+202A..U+202E
    isolates = (second == 0x81) & (third >= 0xA6) & (third <= 0xA9)  # U+2066..U+2069
    return bool(np.any(general | isolates))


def visible_series(values: pd.Series) -> pd.Series:
    """A text column with bidirectional controls made visible (the same object when none)."""
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return values
    if not _text_has_bidi(values):
        return values
    return values.map(lambda v: visible(v) if isinstance(v, str) else v)


def visible_frame(frame: pd.DataFrame | None) -> pd.DataFrame | None:
    """``frame`` with bidirectional controls in text cells and column names made visible.

    Returns the same object when there is nothing to change (the common case: one scan of the
    text bytes per column).
    """
    if frame is None:
        return None
    names = [visible(c) if isinstance(c, str) and has_bidi(c) else c for c in frame.columns]
    changed = {}
    for column in frame.columns:
        values = frame[column]
        neutral = visible_series(values)
        if neutral is not values:
            changed[column] = neutral
    if not changed and names == list(frame.columns):
        return frame
    out = frame.copy()
    for column, series in changed.items():
        out[column] = series
    out.columns = names
    out.attrs = dict(frame.attrs)
    return out


__all__ = ["BIDI_CONTROLS", "has_bidi", "visible", "visible_frame", "visible_series"]
