"""Column roles applied: a table in, the canonical run or judgments frame out.

:func:`~metrics.io.roles.guess_roles` proposes a :class:`~metrics.io.roles.RoleMapping` that a
user may edit; :func:`canonical_run` / :func:`canonical_qrels` apply it and convert the values
(text labels read as grades, ranks as scores); :func:`split_inline_labels` turns a labelled
table into a run and judgments; :func:`clean_qrels` drops unusable judgments and merges repeated
ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from metrics.engine.ids import IdCodes
from metrics.errors import InputError
from metrics.io.checks import check_table
from metrics.io.findings import DataHealth, Finding
from metrics.io.formats import LoadedTable, file_stem
from metrics.io.labels import (
    guess_label_map,
    map_labels,
    missing_label_count,
    text_label_counts,
    with_none_grade,
)
from metrics.io.roles import (
    RoleMapping,
    apply_roles,
    guess_roles,
    label_values,
    refuse_doubtful_guesses,
    score_values,
)
from metrics.schema import (
    DEFAULT_MODEL,
    ITEM,
    LABEL,
    MODEL,
    NONE_GRADE,
    QUERY,
    RANK,
    RELEVANCE,
    SCORE,
)

MappingLike = RoleMapping | Mapping[str, Any]


def _raise_errors(findings: list[Finding]) -> None:
    DataHealth(findings).raise_for_errors()


def _table_and_mapping(
    table: LoadedTable | pd.DataFrame,
    mapping: MappingLike | None,
    judged_elsewhere: bool = False,
) -> tuple[pd.DataFrame, RoleMapping, str | None, int | None, tuple[int, ...]]:
    if isinstance(table, LoadedTable):
        frame, source, first_line = table.frame, table.name, table.first_line
        skipped = table.skipped_lines
    else:
        frame, source, first_line = table, table.attrs.get("source"), table.attrs.get("first_line")
        skipped = tuple(table.attrs.get("skipped_lines", ()))
    if mapping is not None:
        roles = RoleMapping.coerce(mapping)
    else:
        guesses = guess_roles(frame, judged_elsewhere=judged_elsewhere)
        refuse_doubtful_guesses(frame, guesses, source=source)
        roles = RoleMapping.from_guesses(guesses)
    return frame, roles, source, first_line, skipped


def canonical_run(
    table: LoadedTable | pd.DataFrame,
    mapping: MappingLike | None = None,
    *,
    model_name: str | None = None,
    judged_elsewhere: bool = False,
    label_map: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Apply a role mapping to a run table and convert its values.

    Parameters
    ----------
    table:
        A loaded table (or a frame).
    mapping:
        Column roles; guessed with :func:`~metrics.io.roles.guess_roles` when ``None``.
    model_name:
        Model of a table without a model column; defaults to the file stem.
    judged_elsewhere:
        The judgments come in a file of their own: without ``mapping``, labels are guessed from
        column names only (see :func:`~metrics.io.roles.guess_roles`).
    label_map:
        Grades of labels written as text (``{"clicked": 1, "not clicked": 0}``); without it, a
        known scale is guessed (:func:`~metrics.io.labels.guess_label_map`) and recorded in
        ``attrs["label_map"]``.

    Returns
    -------
    pandas.DataFrame
        ``query``, ``item``, ``score`` (float; ``-rank`` when only a rank is given), [``rank``],
        ``model``, [``label`` (float) when mapped], then segment columns. Rows are not dropped.

    Raises
    ------
    InputError
        For missing columns and values that are not numbers (naming the line).
    """
    frame, roles, source, first_line, skipped = _table_and_mapping(table, mapping, judged_elsewhere)
    mapped = apply_roles(frame, roles, source=source)
    read_as, counts = _text_labels(mapped, LABEL, label_map, _none_cells(table, roles.label))
    _raise_errors(
        check_table(mapped, "run", source=source, first_line=first_line, skipped_lines=skipped)
    )
    out = pd.DataFrame({QUERY: mapped[QUERY], ITEM: mapped[ITEM]})
    if SCORE in mapped.columns:
        out[SCORE] = score_values(mapped[SCORE])[0]
    else:
        out[SCORE] = -score_values(mapped[RANK])[0]
    if RANK in mapped.columns:
        rank = score_values(mapped[RANK])[0]
        out[RANK] = (
            rank.astype("int64") if rank.notna().all() and np.all(rank == np.round(rank)) else rank
        )
    if MODEL in mapped.columns:
        out[MODEL] = mapped[MODEL].fillna(DEFAULT_MODEL).astype("str")
    else:
        name = model_name or (file_stem(source) if source else DEFAULT_MODEL)
        out[MODEL] = pd.Series(name, index=out.index, dtype="str")
    if LABEL in mapped.columns:
        out[LABEL] = label_values(mapped[LABEL])[0]
    for col in roles.segments:
        out[col] = mapped[col]
    out.attrs = {
        "source": source,
        "columns": mapped.attrs.get("columns", {}),
        "score_from_rank": SCORE not in mapped.columns,
        "label_map": read_as,
        "label_counts": counts,
    }
    return out


def _none_cells(table: LoadedTable | pd.DataFrame, column: str | None) -> np.ndarray | None:
    """The rows of ``column`` that held ``none`` where the reader read the column as numbers
    (:attr:`~metrics.io.formats.LoadedTable.none_cells`)."""
    if column is None or not isinstance(table, LoadedTable):
        return None
    return table.none_cells.get(column)


def label_words(table: LoadedTable, column: str) -> tuple[dict[str, int], int]:
    """The text labels of a table's column with how many rows hold each (a ``none`` the reader
    read as missing in a column of numbers included), and how many rows have no label (an
    empty cell, ``NA``): those items are unjudged, unlike a ``none``, which is a grade."""
    values = table.frame[column]
    counts = text_label_counts(values)
    missing = missing_label_count(values)
    none_rows = _none_cells(table, column)
    if none_rows is not None and len(none_rows):
        counts = {NONE_GRADE: len(none_rows), **counts}
        missing -= len(none_rows)
    return counts, missing


def _text_labels(
    mapped: pd.DataFrame,
    role: str,
    label_map: Mapping[str, float] | None,
    none_rows: np.ndarray | None = None,
) -> tuple[dict[str, float] | None, dict[str, int]]:
    """Replace the text labels of ``mapped[role]`` by their grades in place: by ``label_map``,
    else by the guess of a known scale (:mod:`metrics.io.labels`); a ``none`` either leaves
    out is grade 0. Returns the mapping used (``None`` when the labels are numbers, or text of
    no known scale: validation then names them) and how many rows hold each text label.
    ``none_rows``: the rows that held ``none`` in a column read as numbers, given back their
    word so that they are read as a grade too."""
    if role not in mapped.columns:
        return None, {}
    if none_rows is not None and len(none_rows):
        restored = mapped[role].astype(object)
        restored.iloc[none_rows] = NONE_GRADE
        mapped[role] = restored
    counts = text_label_counts(mapped[role])
    if not counts:
        return None, {}
    texts = list(counts)
    guess = guess_label_map(texts) if label_map is None else with_none_grade(label_map, texts)
    if guess is None:
        return None, counts
    mapped[role] = map_labels(mapped[role], guess)
    return guess, counts


def canonical_qrels(
    table: LoadedTable | pd.DataFrame,
    mapping: MappingLike | None = None,
    *,
    label_map: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Apply a role mapping to a judgments table and convert labels to floats.

    Parameters
    ----------
    table:
        A loaded judgments table (or a frame).
    mapping:
        Column roles (``query``, ``item``, ``label``); guessed when ``None``.
    label_map:
        Grades of labels written as text, as :func:`canonical_run`'s.

    Returns
    -------
    pandas.DataFrame
        ``query``, ``item``, ``relevance`` (float). Duplicates and missing labels are kept for
        :func:`~metrics.io.checks.validate` to report; :func:`clean_qrels` removes them.

    Raises
    ------
    InputError
        For missing columns and labels that are not numbers (naming the line).
    """
    frame, roles, source, first_line, skipped = _table_and_mapping(table, mapping)
    if roles.label is None and roles.score is not None:
        roles = roles.with_(label=roles.score, score=None)
    mapped = apply_roles(
        frame, roles.with_(segments=(), rank=None, model=None, score=None), source=source
    )
    read_as, counts = _text_labels(mapped, LABEL, label_map, _none_cells(table, roles.label))
    _raise_errors(
        check_table(mapped, "qrels", source=source, first_line=first_line, skipped_lines=skipped)
    )
    out = pd.DataFrame(
        {QUERY: mapped[QUERY], ITEM: mapped[ITEM], RELEVANCE: label_values(mapped[LABEL])[0]}
    )
    out.attrs = {
        "source": source,
        "columns": {RELEVANCE: mapped.attrs["columns"].get(LABEL)},
        "label_map": read_as,
        "label_counts": counts,
    }
    return out


def clean_qrels(qrels: pd.DataFrame) -> pd.DataFrame:
    """Drop judgments without ids or label and keep the highest label of repeated ones."""
    return clean_qrels_kept(qrels)[0]


def clean_qrels_kept(
    qrels: pd.DataFrame, ids: IdCodes | None = None
) -> tuple[pd.DataFrame, np.ndarray | None]:
    """:func:`clean_qrels`, and the mask of the rows kept when the judgments had no repeated
    ones (``None`` when they had: rows were merged). ``ids``, the encoded ids of ``qrels``,
    find the repeated ones without hashing the ids again."""
    keep = qrels[QUERY].notna() & qrels[ITEM].notna() & qrels[RELEVANCE].notna()
    keep &= (qrels[QUERY] != "") & (qrels[ITEM] != "")
    q = qrels.loc[keep, [QUERY, ITEM, RELEVANCE]]
    kept = keep.to_numpy(dtype=bool)
    if ids is not None and len(ids.qrels_query) == len(qrels):
        pairs = ids.qrels_query[kept] * np.int64(max(len(ids.items), 1)) + ids.qrels_item[kept]
        repeated = bool(pd.Series(pairs).duplicated().any())
    else:
        repeated = bool(q.duplicated([QUERY, ITEM]).any())
    if repeated:
        q = q.groupby([QUERY, ITEM], sort=False, as_index=False)[RELEVANCE].max()
        return q.reset_index(drop=True), None
    return q.reset_index(drop=True), kept


def split_inline_labels(run: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split a labelled run into a run and judgments.

    Every row becomes a judgment (repeated judgments keep the highest label). Rows without a
    score are judgment-only: items that were judged but not retrieved.

    Parameters
    ----------
    run:
        Canonical run with a numeric ``label`` column.

    Returns
    -------
    (run, qrels)
        The run without ``label`` (rows with a score only) and the judgments.
    """
    if LABEL not in run.columns:
        raise InputError(
            "The table has no label column to split off.",
            column=LABEL,
            fix="Map the column holding relevance labels or clicks to the label role.",
        )
    labels = label_values(run[LABEL])[0]
    qrels = clean_qrels(pd.DataFrame({QUERY: run[QUERY], ITEM: run[ITEM], RELEVANCE: labels}))
    ranked = run[run[SCORE].notna()].drop(columns=[LABEL])
    ranked.attrs = dict(run.attrs)
    return ranked.reset_index(drop=True), qrels


__all__ = [
    "MappingLike",
    "canonical_qrels",
    "canonical_run",
    "clean_qrels",
    "clean_qrels_kept",
    "label_words",
    "split_inline_labels",
]
