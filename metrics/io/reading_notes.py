"""The notes and warnings of reading a data set, worded as the command lines print them
(``note: ...``, ``warning: ...`` on standard error): the findings of the data's health, what the
ranking of the lists dropped or left out, and the sanity line of a query column.

The local command lines and the Spark engine (which finds the same things with Spark) word them
here, so that both print the same text.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from metrics.engine.ranking import RankingNotes
from metrics.engine.settings import Settings
from metrics.io.findings import (
    DataHealth,
    Finding,
    conflict_examples,
    duplicate_judgments_finding,
    fractional_labels_finding,
    negative_labels_finding,
)
from metrics.schema import QUERY, normalize_name

if TYPE_CHECKING:  # imported on use: TREC files are evaluated without pandas
    from metrics.io.dataset import Dataset


def lists_notes(data: Dataset, run_paths: list[str]) -> list[str]:
    """The sanity line of a data set whose query column was not named ``query``: queries, lists
    per model and the median list length, so that a wrong query column shows at a glance
    (``2 queries, ..., median list length 840``)."""
    if all(normalize_name(c) == QUERY for c in data.query_columns):
        return []
    columns = ", ".join(f"'{c}'" for c in data.query_columns)
    names = ", ".join(Path(p).name for p in run_paths)
    return [f"{names}: query column {columns}: {data.lists.text}."]


#: Data-health findings of severity ``info`` that the command lines print as notes: what the
#: TREC reader skipped (text after a line's last field, ``#`` comment lines).
NOTE_CODES = frozenset({"trec_extra_fields", "trec_comment_lines", "text_labels"})


def finding_text(finding: Finding) -> str:
    return f"{finding.source + ': ' if finding.source else ''}{finding.message}" + (
        f" (e.g. {'; '.join(finding.examples)})" if finding.examples else ""
    )


def health_warnings(health: DataHealth) -> list[str]:
    """The warnings of a loaded data set's health, one line each, as the command lines print
    them (the file first when the finding names one, then up to five examples)."""
    return [finding_text(f) for f in health.warnings]


def health_notes(health: DataHealth) -> list[str]:
    """The notes of a loaded data set's health the command lines print (:data:`NOTE_CODES`)."""
    return [finding_text(f) for f in health.findings if f.code in NOTE_CODES]


def notes_warnings(
    r: RankingNotes,
    source: str,
    settings: Settings,
    counts: Mapping[str, int] | None = None,
) -> list[str]:
    """Plain-English warnings from :class:`~metrics.engine.ranking.RankingNotes`.

    ``counts`` gives the number of queries of a note (by field name) when its tuple holds only
    the first ids (as ``--engine spark`` collects them); by default the tuple's length.
    """
    out = []
    counts = counts or {}

    def examples(name: str, values: tuple[str, ...]) -> str:
        n = counts.get(name, len(values))
        return ", ".join(values[:5]) + (", ..." if n > 5 else "")

    if r.dropped_duplicates:
        out.append(
            f"{source}: dropped {r.dropped_duplicates} repeated item(s) within a query, "
            f"keeping the best-ranked copy (e.g. {'; '.join(r.duplicate_examples)})."
        )
    name = "run_queries_without_judgments"
    if r.run_queries_without_judgments:
        n = counts.get(name, len(r.run_queries_without_judgments))
        out.append(
            f"{source}: {n} quer{'y has' if n == 1 else 'ies have'} no judgments and "
            f"{'is' if n == 1 else 'are'} not evaluated "
            f"({examples(name, r.run_queries_without_judgments)})."
        )
    name = "judged_queries_missing_from_run"
    if r.judged_queries_missing_from_run and settings.missing_queries == "skip":
        n = counts.get(name, len(r.judged_queries_missing_from_run))
        out.append(
            f"{source}: {n} judged quer{'y is' if n == 1 else 'ies are'} missing from the "
            f"run and skipped; --complete scores them 0 "
            f"({examples(name, r.judged_queries_missing_from_run)})."
        )
    name = "left_out_without_relevant"
    if r.left_out_without_relevant:
        n = counts.get(name, len(r.left_out_without_relevant))
        out.append(
            f"{source}: {n} quer{'y' if n == 1 else 'ies'} without a relevant item "
            f"left out ({examples(name, r.left_out_without_relevant)})."
        )
    return out


def judgments_warnings(r: RankingNotes, source: str) -> list[str]:
    """The warning on judgments that repeat a judged (query, item), found while ranking (the
    TREC readers' judgments: tables have it in their data's health), worded as the data's health
    words it: how many, the items whose labels disagree, their labels and the one kept."""
    if not r.repeated_judgments:
        return []
    examples = conflict_examples(r.conflict_examples)
    found = duplicate_judgments_finding(
        r.repeated_judgments, examples, r.conflicting_judgments, source
    )
    return [finding_text(found)]


def label_warnings(
    query: pa.ChunkedArray,
    item: pa.ChunkedArray,
    values: np.ndarray,
    source: str,
    settings: Settings,
) -> list[str]:
    """The warnings on judgments' labels read as columns (TREC judgments, and the judgments of
    tables read block by block) that the loader gives tables: negative labels, and labels that
    are not whole numbers (read as the fractional-labels policy says)."""
    negative = values < 0
    fractional = np.isfinite(values) & (values != np.trunc(values))
    if not negative.any() and not fractional.any():
        return []

    def examples(mask: np.ndarray) -> tuple[dict[str, object], ...]:
        rows = np.flatnonzero(mask)[:5]
        return tuple(
            {
                "query": query[int(i)].as_py(),
                "item": item[int(i)].as_py(),
                "value": f"{values[i]:g}",
            }
            for i in rows
        )

    found = []
    if negative.any():
        found.append(negative_labels_finding(int(negative.sum()), examples(negative), "relevance"))
    if fractional.any():
        found.append(
            fractional_labels_finding(
                int(fractional.sum()), examples(fractional), "relevance", settings
            )
        )
    return [f"{source}: {finding_text(f)}" for f in found]
