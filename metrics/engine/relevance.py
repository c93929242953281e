"""The relevance predicate: the one place that says which labels are relevant and judged.

trec_eval counts a judgment as relevant when its label is at or above the relevance level
(``-l``, default 1); a negative label marks an item as in the pool but unjudged, so it is never
relevant, whatever the level. Everything that decides relevance — the engine, the data checks,
the Spark engine, the Learn page — asks these functions, which work alike on numbers, numpy
arrays, pandas Series and Spark columns (only ``>=``, ``<`` and ``&`` are used). A missing label
(NaN) is neither judged nor relevant.
"""

from __future__ import annotations

from typing import Any, TypeVar

Labels = TypeVar("Labels", bound=Any)


def relevant(labels: Labels, level: float) -> Labels:
    """``label ≥ level`` and ``label ≥ 0``: relevant for binary measures (trec_eval's
    ``rel >= relevance_level``, with negative labels never relevant)."""
    return (labels >= level) & (labels >= 0)  # type: ignore[no-any-return]


def judged(labels: Labels) -> Labels:
    """``label ≥ 0``: in the judgments (a negative label is "in the pool, unjudged")."""
    return labels >= 0  # type: ignore[no-any-return]


def judged_nonrelevant(labels: Labels, level: float) -> Labels:
    """``0 ≤ label < level``: judged and below the relevance level (bpref's non-relevant)."""
    return (labels >= 0) & (labels < level)  # type: ignore[no-any-return]


def is_relevant(label: float, level: float) -> bool:
    """:func:`relevant` for one label (``False`` for a missing one)."""
    return bool(label == label and label >= level and label >= 0)
