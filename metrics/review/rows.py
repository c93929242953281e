"""The comparison row: the one schema of every review table.

Every surface that shows or exports a comparison — the Compare, Segments and Report pages, the
HTML report, the CSV and JSON exports, ``python -m metrics compare`` — reads rows with the columns
of :data:`COLUMNS` (built by :func:`metrics.review.verdict.review_table`), or a named view of
them. The views are written here, next to the schema, and checked against it by the tests, so a
column is added or renamed in one place.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

#: Segment value of the rows over all queries.
ALL = "(all)"

#: The columns of a comparison row, in order (see "How the review decides" in docs/review.md).
COLUMNS: list[str] = [
    "kind",
    "reference",
    "candidate",
    "measure",
    "segment",
    "segment_column",
    "n",
    "mean_a",
    "mean_b",
    "delta",
    "delta_pooled",
    "relative_delta",
    "ci_low",
    "ci_high",
    "ci_adj_low",
    "ci_adj_high",
    "ci_adj_level",
    "ci_adj_method",
    "p_randomization",
    "p_ttest",
    "p_wilcoxon",
    "test",
    "p_raw",
    "p_floor",
    "p_adjusted",
    "p_bound",
    "correction",
    "family",
    "family_size",
    "family_text",
    "alpha",
    "significant",
    "verdict",
    "tier",
    "reason",
    "min_effect",
    "magnitude",
    "wins",
    "ties",
    "losses",
    "effect_size",
    "sd",
    "power",
    "power_alpha",
    "mde",
    "queries_needed",
    "only_in_baseline",
    "only_in_candidate",
    "undefined",
]

#: The columns of :data:`COLUMNS` that a test table holds.
_TEST_WORDS = (
    "candidate measure n mean_a mean_b delta relative_delta ci_low ci_high "
    "p_randomization p_ttest p_wilcoxon p_adjusted significant wins ties losses "
    "effect_size only_in_baseline only_in_candidate undefined"
)
_TEST_PART = frozenset(_TEST_WORDS.split())
#: The columns of one candidate-against-baseline test table
#: (:func:`metrics.review.compare.comparison_table`): the test part of a row, with the
#: baseline under ``baseline`` and a ``direction`` of ``better`` / ``worse`` / ``unclear``.
TEST_COLUMNS: list[str] = ["baseline"]
for _column in COLUMNS:
    if _column in _TEST_PART:
        TEST_COLUMNS.append(_column)
        if _column == "significant":
            TEST_COLUMNS.append("direction")

#: The columns a stakeholder reads (the report's summary table): who, what, how much, how sure.
SUMMARY_VIEW: list[str] = [
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
    "verdict",
    "wins",
    "ties",
    "losses",
]


def view(table: pd.DataFrame, columns: Sequence[str], by: Sequence[str] = ()) -> pd.DataFrame:
    """The ``columns`` of ``table`` that it has, in order, with the ``by`` (segment) columns
    right after ``candidate``."""
    chosen = list(columns)
    at = chosen.index("candidate") + 1 if "candidate" in chosen else 0
    ordered = [*chosen[:at], *by, *chosen[at:]]
    return table[[c for c in ordered if c in table.columns]]


__all__ = ["ALL", "COLUMNS", "SUMMARY_VIEW", "TEST_COLUMNS", "view"]
