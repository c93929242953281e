"""The data-input layer: files in, canonical run and judgments frames out.

Typical use::

    run = load_table("bm25.run")                     # any supported format, detected
    qrels = load_table("qrels.txt")
    data = load_dataset([run], qrels, k_max=10)      # roles guessed, validated
    data.run, data.qrels, data.segments, data.health, data.content_hash

Steps, each usable on its own: :func:`load_table` reads bytes (:mod:`metrics.io.formats`);
:func:`~metrics.io.roles.guess_roles` proposes a :class:`~metrics.io.roles.RoleMapping` that a
user may edit; :func:`canonical_run` / :func:`canonical_qrels` apply it;
:func:`split_inline_labels` turns a labelled table into a run and judgments;
:func:`~metrics.io.checks.validate` reports problems.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd
import pyarrow as pa

from metrics.engine.ids import IdCodes, id_codes
from metrics.engine.settings import Settings
from metrics.errors import InputError
from metrics.io.checks import (
    GENERIC_TIME_NAMES,
    LABEL_TIME_NAMES,
    RANKING_TIME_NAMES,
    _segment_findings,
    check_table,
    time_split_findings,
    validate,
)
from metrics.io.direction import lower_is_better_name
from metrics.io.findings import DataHealth, Finding, score_order_by_name_finding
from metrics.io.formats import LoadedTable, file_stem, load_table
from metrics.io.labels import (
    guess_label_map,
    map_labels,
    mapping_text,
    missing_label_count,
    text_label_counts,
    with_none_grade,
)
from metrics.io.roles import (
    ROLES,
    Guess,
    RoleMapping,
    apply_roles,
    guess_query_table,
    guess_roles,
    label_values,
    proposed_segments,
    refuse_doubtful_guesses,
    score_values,
)
from metrics.io.text_safety import visible, visible_frame
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
    normalize_name,
)

#: The samples in a source checkout: the top-level ``sample_data/`` folder.
CHECKOUT_SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"

MappingLike = RoleMapping | Mapping[str, Any]


def content_hash(*frames: pd.DataFrame | None) -> str:
    """SHA-256 over the column names, dtypes and values of the given frames.

    Parameters
    ----------
    *frames:
        Frames (``None`` allowed) to hash, in order.

    Returns
    -------
    str
        Hex digest; equal frames give equal digests, independent of the index.
    """
    digest = hashlib.sha256()
    for frame in frames:
        if frame is None:
            digest.update(b"<none>")
            continue
        digest.update(repr([(str(c), str(t)) for c, t in frame.dtypes.items()]).encode())
        digest.update(str(len(frame)).encode())
        for column in frame.columns:
            _hash_column(digest, frame[column])
    return digest.hexdigest()


def _hash_column(digest: Any, values: pd.Series) -> None:
    """Feed one column's values to ``digest``: the bytes of arrow strings and numpy numbers
    directly (no per-cell work), other columns through pandas' hashing."""
    array = values.array
    if hasattr(array, "__arrow_array__") and not pd.api.types.is_numeric_dtype(values):
        chunked = array.__arrow_array__()
        if pa.types.is_string(chunked.type) or pa.types.is_large_string(chunked.type):
            _hash_strings(digest, chunked)
            return
    if isinstance(values.dtype, np.dtype) and values.dtype.kind in "biuf":
        digest.update(b"n")
        digest.update(np.ascontiguousarray(values.to_numpy()).tobytes())
        return
    digest.update(b"h")
    digest.update(pd.util.hash_pandas_object(values, index=False).to_numpy().tobytes())


def _hash_strings(digest: Any, strings: pa.ChunkedArray) -> None:
    """Feed arrow strings to ``digest``: their lengths, their bytes and where values are
    missing, each hashed chunk by chunk (no copy of the text; the same digest however the
    values are split into chunks)."""
    lengths, text, missing = hashlib.sha256(), hashlib.sha256(), hashlib.sha256()
    for chunk in strings.chunks:
        if len(chunk) == 0:
            continue
        _, offsets_buffer, data = chunk.buffers()
        wide = pa.types.is_large_string(chunk.type)
        offsets = np.frombuffer(offsets_buffer, dtype=np.int64 if wide else np.int32)[
            chunk.offset : chunk.offset + len(chunk) + 1
        ]
        lengths.update(np.diff(offsets).astype(np.int64).tobytes())
        if data is not None:
            text.update(memoryview(data)[int(offsets[0]) : int(offsets[-1])])
        if strings.null_count:
            missing.update(np.asarray(chunk.is_null()).tobytes())
    digest.update(b"s")
    for part in (lengths, text, missing):
        digest.update(part.digest())


@dataclass(frozen=True, eq=False)
class Dataset:
    """Canonical, validated input of an evaluation.

    Attributes
    ----------
    name:
        Display name.
    run:
        ``query``, ``item``, ``score``, [``rank``], ``model``, then segment columns.
    qrels:
        ``query``, ``item``, ``relevance`` (one row per judged item).
    segments:
        One row per query: ``query`` and the segment columns; ``None`` without segments.
    health:
        Warnings and remarks found while loading (errors raise instead).
    description:
        What the data set is, in English (for samples; the app shows the catalog's
        ``sample.<name>.description``).
    content_hash:
        SHA-256 of the three frames, computed once; a cache key.
    ids:
        The query and item ids of ``run`` and ``qrels`` as integer codes, encoded once so that
        rankings do not hash them again (``None``: each ranking encodes them).
    run_sources:
        The models of each run file, by file name (empty when not loaded from files).
    query_table_columns:
        The columns of the query table read as segment columns (empty without one).
    query_columns:
        The run tables' columns read as the query id (``query`` for TREC files).
    """

    name: str
    run: pd.DataFrame
    qrels: pd.DataFrame
    segments: pd.DataFrame | None = None
    health: DataHealth = field(default_factory=DataHealth)
    description: str = ""
    ids: IdCodes | None = field(default=None, repr=False)
    run_sources: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    query_table_columns: tuple[str, ...] = ()
    query_columns: tuple[str, ...] = ()
    content_hash: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "content_hash", content_hash(self.run, self.qrels, self.segments))

    @property
    def models(self) -> list[str]:
        """Model names in order of first appearance."""
        return list(self._models)

    @cached_property
    def _models(self) -> tuple[str, ...]:
        """The model names, found once (the pages ask often; each look reads every run row)."""
        return tuple(pd.unique(self.run[MODEL]))

    @property
    def segment_columns(self) -> list[str]:
        """Names of the segment columns."""
        return [] if self.segments is None else [c for c in self.segments.columns if c != QUERY]

    @property
    def proposed_segments(self) -> list[str]:
        """The segment columns worth segmenting by: 2 to 50 values over the queries."""
        return proposed_segments(self.segments)

    @cached_property
    def lists(self) -> ListSummary:
        """How the rows group into ranked lists: queries, lists per model, median length."""
        return list_summary(self.run)


@dataclass(frozen=True)
class ListSummary:
    """What the rows of a run make: a sanity check of the query column at a glance (``2
    queries, median list length 840`` reads as wrong).

    Attributes
    ----------
    queries:
        Distinct query ids.
    lists:
        Ranked lists (queries with at least one row) per model, in model order.
    median_length:
        The median number of rows of a list, over every model's lists.
    """

    queries: int
    lists: dict[str, int]
    median_length: float

    @property
    def length(self) -> int | float:
        """The median length as shown (whole when it is)."""
        value = self.median_length
        return int(value) if float(value).is_integer() else round(value, 1)

    @property
    def same_lists(self) -> int | None:
        """The number of lists when every model has as many, else ``None``."""
        counts = set(self.lists.values())
        return counts.pop() if len(counts) == 1 else None

    @property
    def text(self) -> str:
        """In plain English (the command lines' note)."""
        queries = f"{self.queries:,} quer{'y' if self.queries == 1 else 'ies'}"
        same = self.same_lists
        if same is not None:
            per_model = f"{same:,} list{'' if same == 1 else 's'} per model"
        else:
            per_model = "lists per model: " + ", ".join(f"{m} {n:,}" for m, n in self.lists.items())
        return f"{queries}, {per_model}, median list length {self.length}"


def list_summary(run: pd.DataFrame) -> ListSummary:
    """The :class:`ListSummary` of a canonical run (``query``, ``model`` columns)."""
    query, queries = pd.factorize(run[QUERY])
    model, models = pd.factorize(run[MODEL])
    if not len(run):
        return ListSummary(0, {}, 0.0)
    pairs = model.astype(np.int64) * np.int64(len(queries)) + query
    codes, uniques = pd.factorize(pairs)
    sizes = np.bincount(codes, minlength=len(uniques))
    per_model = np.bincount(uniques // max(len(queries), 1), minlength=len(models))
    return ListSummary(
        len(queries),
        {str(m): int(n) for m, n in zip(models, per_model)},
        float(np.median(sizes)),
    )


# --------------------------------------------------------------------------- canonical frames


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
    return _clean_qrels(qrels)[0]


def _clean_qrels(
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


# --------------------------------------------------------------------------- data sets


def _as_table(value: LoadedTable | str | Path) -> LoadedTable:
    return value if isinstance(value, LoadedTable) else load_table(value)


def _rename_colliding_models(parts: list[tuple[pd.DataFrame, str, str]]) -> None:
    """Models named alike in several run files are told apart by their files: a file's one
    model takes the file's label, several become ``label/model``. A label is the file's stem,
    its name when stems repeat (``bm25.csv``, ``bm25.tsv``), and the name numbered when names
    repeat too (``run.csv``, ``run.csv (2)``)."""
    if len(parts) < 2:
        return
    seen: dict[str, int] = {}
    for frame, _, _ in parts:
        for m in pd.unique(frame[MODEL]):
            seen[m] = seen.get(m, 0) + 1
    labels = _file_labels([(stem, name) for _, stem, name in parts])
    for (frame, _, _), label in zip(parts, labels):
        models = pd.unique(frame[MODEL])
        if any(seen[m] > 1 for m in models):
            frame[MODEL] = label if len(models) == 1 else label + "/" + frame[MODEL]


def _file_labels(files: list[tuple[str, str]]) -> list[str]:
    """One distinct label per ``(stem, name)`` of the run files (see
    :func:`_rename_colliding_models`)."""
    stems = Counter(stem for stem, _ in files)
    labels = [stem if stems[stem] == 1 else name for stem, name in files]
    counts = Counter(labels)
    taken: Counter[str] = Counter()
    out = []
    for label in labels:
        taken[label] += 1
        first = counts[label] == 1 or taken[label] == 1
        out.append(label if first else f"{label} ({taken[label]})")
    return out


def load_dataset(
    runs: Sequence[LoadedTable | str | Path] | LoadedTable | str | Path,
    judgments: LoadedTable | str | Path | None = None,
    queries: LoadedTable | str | Path | None = None,
    *,
    mappings: Mapping[str, MappingLike] | None = None,
    name: str = "dataset",
    description: str = "",
    k_max: int = 10,
    relevance_level: float = 1,
    settings: Settings | None = None,
    on_built: Callable[[Dataset], object] | None = None,
    label_map: Mapping[str, float] | None = None,
    label_maps: Mapping[str, Mapping[str, float]] | None = None,
) -> Dataset:
    """Build a validated :class:`Dataset` from run files, judgments and query metadata.

    Parameters
    ----------
    runs:
        One or more run tables (one file per model, or one file with a model column). A table
        with a label column carries its own judgments.
    judgments:
        A separate judgments table, if any.
    queries:
        A query-metadata table: a query column and segment columns, joined on the query id.
    mappings:
        Column roles per table name; guessed for tables not listed.
    name, description:
        For display.
    k_max:
        Largest cutoff to be evaluated (lists shorter than this are reported).
    relevance_level:
        Labels at or above it are relevant (for the report).
    settings:
        The policies in force, so that the report says what they do (trec_eval's defaults
        when ``None``).
    on_built:
        Called with the data set as soon as its rows are cleaned, while it is still being
        validated, so that a caller can start work on it (ranking) on another thread. The data
        set it gets is the one returned, its health filled in once validation ends; when
        validation refuses the input, nothing is returned and that work is to be dropped.
    label_map, label_maps:
        Grades of labels written as text (``{"relevant": 1, "not relevant": 0}``): for every
        table, and per table name (which wins). A table without one has the labels of a known
        scale guessed (:func:`~metrics.io.labels.guess_label_map`); the grades used are a
        remark of the data's health (``text_labels``), and text labels of no known scale are
        refused naming the column, the values and the fix.

    Returns
    -------
    Dataset

    Raises
    ------
    InputError
        When the input cannot be evaluated: unreadable files, missing columns, values that are
        not numbers, no judgments, or no query shared by run and judgments.
    """
    mappings = dict(mappings or {})
    grades = {**({} if label_map is None else {"": dict(label_map)}), **dict(label_maps or {})}
    run_tables = _run_tables(runs)
    timed: list[tuple[LoadedTable, pd.DataFrame]] = []  # tables with a time column
    run, inline_qrels, extra, sources = _canonical_runs(
        run_tables, mappings, judgments is not None, settings or Settings(), grades, timed
    )
    judgments_table = _as_table(judgments) if judgments is not None else None
    qrels_all = _judgments(
        inline_qrels, judgments_table, mappings, run_tables[0].name, grades, extra, timed
    )
    query_columns = tuple(run.attrs.get("query_columns", ()))
    segments, seg_findings, read_segments = _segments(run, queries, mappings)
    run, qrels_all = (
        cast(pd.DataFrame, visible_frame(run)),
        cast(pd.DataFrame, visible_frame(qrels_all)),
    )
    segments = visible_frame(segments)
    ids = id_codes(run[QUERY], run[ITEM], qrels_all[QUERY], qrels_all[ITEM])
    try:
        cleaned: _Cleaned | None = _cleaned(run, qrels_all, segments, ids)
    except Exception:  # input that validation refuses; else raised again once it passed
        cleaned = None
    health = DataHealth()

    def dataset(done: _Cleaned) -> Dataset:
        return Dataset(
            visible(name),
            *done[:2],
            segments,
            health,
            description,
            done[2],
            run_sources=sources,
            query_table_columns=read_segments,
            query_columns=query_columns,
        )

    early = None
    if on_built is not None and cleaned is not None and len(cleaned[0]) and len(cleaned[1]):
        early = dataset(cleaned)
        on_built(early)
    found = validate(
        run, qrels_all, k_max=k_max, relevance_level=relevance_level, settings=settings, ids=ids
    )
    found.raise_for_errors()
    read = run_tables + ([judgments_table] if judgments_table is not None else [])
    health.findings.extend(
        found.findings
        + seg_findings
        + extra
        + _reading_findings(read)
        + _time_findings(timed, relevance_level)
    )
    if cleaned is None:
        cleaned = _cleaned(run, qrels_all, segments, ids)
    _require_usable_rows(cleaned[0], cleaned[1], health, run_tables)
    return early if early is not None else dataset(cleaned)


_Cleaned = tuple[pd.DataFrame, pd.DataFrame, IdCodes | None]


def _cleaned(
    run: pd.DataFrame, qrels: pd.DataFrame, segments: pd.DataFrame | None, ids: IdCodes | None
) -> _Cleaned:
    """Stage 4: the run and judgments without unusable rows, and their id codes."""
    run, run_kept = _clean_run(run, segments)
    qrels, qrels_kept = _clean_qrels(qrels, ids)
    if ids is not None and qrels_kept is not None:
        ids = replace(
            ids,
            run_query=ids.run_query[run_kept],
            run_item=ids.run_item[run_kept],
            qrels_query=ids.qrels_query[qrels_kept],
            qrels_item=ids.qrels_item[qrels_kept],
        )
    elif ids is not None:
        ids = id_codes(run[QUERY], run[ITEM], qrels[QUERY], qrels[ITEM])
    return run, qrels, ids


def _run_tables(
    runs: Sequence[LoadedTable | str | Path] | LoadedTable | str | Path,
) -> list[LoadedTable]:
    """Stage 1: the run inputs as loaded tables (at least one)."""
    tables = [
        _as_table(r) for r in ([runs] if isinstance(runs, (LoadedTable, str, Path)) else list(runs))
    ]
    if not tables:
        raise InputError("No run was given.", fix="Load at least one run file.")
    return tables


def _canonical_runs(
    run_tables: list[LoadedTable],
    mappings: dict[str, MappingLike],
    judged_elsewhere: bool,
    settings: Settings,
    grades: Mapping[str, Mapping[str, float]] | None = None,
    timed: list[tuple[LoadedTable, pd.DataFrame]] | None = None,
) -> tuple[pd.DataFrame, list[pd.DataFrame], list[Finding], dict[str, tuple[str, ...]]]:
    """Stage 2: every run table in canonical columns, concatenated with unique model names;
    judgments carried by labelled runs split off; remarks on what was done (a score column
    named like a distance while ``settings`` rank the highest score first); the models of each
    table. With ``judged_elsewhere`` (a judgments file is given) a run's labels are guessed
    from column names only. ``grades``: the label mappings by table name (``""``: every
    table). Each table with a time column is added to ``timed`` with its canonical rows (row
    for row), for :func:`_time_findings`."""
    extra: list[Finding] = []
    parts: list[tuple[pd.DataFrame, str, str]] = []
    inline_qrels: list[pd.DataFrame] = []
    ranked_only: list[str] = []  # run files with ranks and no scores
    for table in run_tables:
        part = canonical_run(
            table,
            mappings.get(table.name),
            judged_elsewhere=judged_elsewhere,
            label_map=_grades_of(grades, table.name),
        )
        extra += _text_labels_findings(part, LABEL, table.name)
        extra += _unlabelled_rows(part, table.name)
        if timed is not None and _time_columns(table, part) != (None, None):
            timed.append((table, part))
        if LABEL in part.columns:
            judged_only = int(part[SCORE].isna().sum())
            if judged_only == len(part):
                raise _unusable(
                    table,
                    f"none of its {len(part):,} rows has a score or a rank",
                    "Map the column with the model's scores (or ranks) to the score role; "
                    "rows without one are read as judgments only.",
                    "no_scores",
                    {"n": len(part)},
                )
            if judged_only:
                extra.append(
                    Finding(
                        "judgment_only_rows",
                        "info",
                        {"n": judged_only},
                        judged_only,
                        source=table.name,
                    )
                )
            part, q = split_inline_labels(part)
            inline_qrels.append(q)
        if part.attrs.get("score_from_rank"):
            ranked_only.append(table.name)
        parts.append((part, table.stem, table.name))
    if ranked_only:  # one remark naming every such file, not one unnamed remark per file
        extra.append(
            Finding(
                "score_from_rank",
                "info",
                {"n": len(ranked_only), "files": ", ".join(ranked_only)},
                len(ranked_only),
                variant="files",
                source=ranked_only[0] if len(ranked_only) == 1 else None,
            )
        )
    _rename_colliding_models(parts)
    sources = {name: tuple(visible(m) for m in pd.unique(p[MODEL])) for p, _, name in parts}
    for part, _, name in parts:
        extra += _score_named_lower_is_better(part, sources[name], name, settings)
    read_as = tuple(dict.fromkeys(str(p.attrs.get("columns", {}).get(QUERY)) for p, _, _ in parts))
    run = pd.concat([p for p, _, _ in parts], ignore_index=True) if len(parts) > 1 else parts[0][0]
    run.attrs["query_columns"] = read_as
    return run, inline_qrels, extra, sources


def _grades_of(
    grades: Mapping[str, Mapping[str, float]] | None, name: str
) -> Mapping[str, float] | None:
    """The label mapping of table ``name``: its own, else the one for every table."""
    if not grades:
        return None
    return grades.get(name, grades.get(""))


def _text_labels_findings(part: pd.DataFrame, role: str, source: str) -> list[Finding]:
    """The remark that a table's labels were text, read by a mapping (its grades)."""
    used = part.attrs.get("label_map")
    if not used:
        return []
    column = str(part.attrs.get("columns", {}).get(role) or role)
    return [
        Finding(
            "text_labels",
            "info",
            {
                "column": column,
                "mapping": mapping_text(used, part.attrs.get("label_counts")),
                "n": len(used),
            },
            len(used),
            source=source,
            column=column,
        )
    ]


def _unlabelled_rows(part: pd.DataFrame, source: str) -> list[Finding]:
    """The warning on a labelled run's rows without a label (an empty cell, ``NA``): their
    items are unjudged, unlike a label 0 (or ``none``), which is judged not relevant."""
    if LABEL not in part.columns:
        return []
    missing = part[LABEL].isna().to_numpy()
    if not missing.any():
        return []
    n = int(missing.sum())
    column = str(part.attrs.get("columns", {}).get(LABEL) or LABEL)
    examples = tuple(
        {"query": str(q), "item": str(i)}
        for q, i in zip(part[QUERY][missing].head(5), part[ITEM][missing].head(5))
    )
    return [
        Finding(
            "missing_labels",
            "warning",
            {"n": n},
            n,
            examples,
            variant="inline",
            source=source,
            column=column,
        )
    ]


def _score_named_lower_is_better(
    part: pd.DataFrame, models: tuple[str, ...], source: str, settings: Settings
) -> list[Finding]:
    """The remark on a run table without ranks whose score column is named like a distance,
    cost or loss while some of its models rank the highest score first (where the table has
    ranks, the validation compares the scores with them instead)."""
    column = part.attrs.get("columns", {}).get(SCORE)
    if column is None or RANK in part.columns or not lower_is_better_name(column):
        return []
    highest_first = [m for m in models if settings.score_order_of(m) == "descending"]
    if not highest_first:
        return []
    return [score_order_by_name_finding(str(column), highest_first, source)]


def _judgments(
    inline_qrels: list[pd.DataFrame],
    judgments: LoadedTable | str | Path | None,
    mappings: dict[str, MappingLike],
    run_source: str,
    grades: Mapping[str, Mapping[str, float]] | None = None,
    extra: list[Finding] | None = None,
    timed: list[tuple[LoadedTable, pd.DataFrame]] | None = None,
) -> pd.DataFrame:
    """Stage 3: the judgments file (if any) and the judgments carried by the runs, together
    (the grades of text labels used are added to ``extra``; a judgments file with a time
    column is added to ``timed``, as in :func:`_canonical_runs`)."""
    qrels_parts = (
        [clean_qrels(pd.concat(inline_qrels, ignore_index=True))]
        if len(inline_qrels) > 1
        else list(inline_qrels)
    )
    if judgments is not None:
        jt = _as_table(judgments)
        part = canonical_qrels(jt, mappings.get(jt.name), label_map=_grades_of(grades, jt.name))
        if timed is not None and _time_columns(jt, part) != (None, None):
            timed.append((jt, part))
        if extra is not None:
            extra += _text_labels_findings(part, RELEVANCE, jt.name)
        qrels_parts.insert(0, part)
    if not qrels_parts:
        raise InputError(
            "There are no judgments: the run has no label column and no judgments file was given.",
            source=run_source,
            fix="Add a judgments (qrels) file, or map a label column of the run.",
            code="no_judgments",
        )
    return pd.concat(qrels_parts, ignore_index=True) if len(qrels_parts) > 1 else qrels_parts[0]


def _time_columns(table: LoadedTable, part: pd.DataFrame) -> tuple[str | None, str | None]:
    """The columns of ``table`` (read as ``part``, row for row) that give the time its lists
    were made and the time its labels were observed, by name (:data:`RANKING_TIME_NAMES`,
    :data:`LABEL_TIME_NAMES`; a generic name such as ``timestamp`` is a run's ranking time or a
    judgments table's label time, and says nothing in a run that carries its labels); columns
    read for a role are not times."""
    frame = table.frame
    if len(frame) != len(part):
        return None, None
    used = {str(c) for c in part.attrs.get("columns", {}).values() if c}
    names = {normalize_name(c): str(c) for c in frame.columns if str(c) not in used}
    is_run = SCORE in part.columns
    labelled = LABEL in part.columns or RELEVANCE in part.columns
    ranking = [*RANKING_TIME_NAMES, *(GENERIC_TIME_NAMES if is_run and not labelled else ())]
    label = [*LABEL_TIME_NAMES, *(GENERIC_TIME_NAMES if not is_run else ())]
    found_ranking = next((names[n] for n in ranking if n in names), None) if is_run else None
    found_label = next((names[n] for n in label if n in names), None) if labelled else None
    return found_ranking, found_label


def _time_findings(
    timed: list[tuple[LoadedTable, pd.DataFrame]], relevance_level: float
) -> list[Finding]:
    """Leakage across time (:func:`~metrics.io.checks.time_split_findings`) when a run gives
    the time its lists were made and the judgments the time of their labels."""
    rankings, labels = [], []
    ranking_column = label_column = ""
    for table, part in timed:
        ranked_at, judged_at = _time_columns(table, part)
        times = table.frame.reset_index(drop=True)
        if ranked_at is not None:
            ranking_column = ranking_column or ranked_at
            rankings.append(
                pd.DataFrame(
                    {
                        QUERY: part[QUERY].to_numpy(),
                        MODEL: part[MODEL].to_numpy(),
                        "time": times[ranked_at].to_numpy(),
                    }
                )
            )
        if judged_at is not None:
            label_column = label_column or judged_at
            grade = LABEL if LABEL in part.columns else RELEVANCE
            labels.append(
                pd.DataFrame(
                    {
                        QUERY: part[QUERY].to_numpy(),
                        ITEM: part[ITEM].to_numpy(),
                        RELEVANCE: part[grade].to_numpy(),
                        "time": times[judged_at].to_numpy(),
                    }
                )
            )
    if not rankings or not labels:
        return []
    return time_split_findings(
        pd.concat(rankings, ignore_index=True),
        pd.concat(labels, ignore_index=True),
        relevance_level,
        ranking_column,
        label_column,
    )


def _unusable(
    table: LoadedTable, reason: str, fix: str, code: str, params: dict[str, object]
) -> InputError:
    """The error of a data set with nothing to evaluate; ``code`` and ``params`` (with
    ``excel``: whether the table is a workbook) word it in other languages."""
    notes = [n for n in table.notes if "formula" in n]
    excel = table.format == "excel"
    # the reader's note "1,234 cells hold a formula without a saved value ...", as a number
    formulas = [int(m.group(1).replace(",", "")) for n in notes if (m := _FORMULAS.match(n))]
    return InputError(
        f"Nothing can be evaluated: {reason}." + "".join(f" Note: {n}." for n in notes),
        source=table.name,
        fix=fix + (" " + EXCEL_FIX if excel else ""),
        code=code,
        params={**params, "excel": excel, "formula_cells": sum(formulas)},
    )


_FORMULAS = re.compile(r"([\d,]+) cells hold a formula")


#: What to do about a workbook whose cells read as empty.
EXCEL_FIX = (
    "In Excel, formulas are read from the values Excel saved with them (open the workbook in "
    "Excel and save it again, or paste the values), and merged cells keep their value only in "
    "the first cell (unmerge and fill them)."
)


def _require_usable_rows(
    run: pd.DataFrame, qrels: pd.DataFrame, health: DataHealth, tables: list[LoadedTable]
) -> None:
    """Stage 5: refuse a data set left without rows (or judgments) once unusable rows are
    dropped, saying what was dropped and why."""
    if len(run) and len(qrels):
        return
    warnings = [f for f in health.findings if f.severity == "warning"]
    dropped = [f.message for f in warnings]
    what = "rows in the run" if not len(run) else "judgments"
    reason = f"no usable {what} are left once unusable ones are dropped" + (
        ". Dropped: " + " ".join(d.rstrip(".") + "." for d in dropped).rstrip(".")
        if dropped
        else ""
    )
    table = tables[0]
    raise _unusable(
        table,
        reason,
        "Fill in the query id, item id and score (or rank) of every result, and a label for "
        "every judgment.",
        "no_run_rows_left" if not len(run) else "no_judgments_left",
        {"dropped": warnings},
    )


def _reading_findings(tables: list[LoadedTable]) -> list[Finding]:
    """What the TREC reader skipped (text after the last field, comment lines), once per file."""
    return [
        Finding(code, "info", params, int(str(params.get("n", 0))), source=table.name)
        for table in tables
        for code, params in table.reading
    ]


def _query_table_roles(qt: LoadedTable, run: pd.DataFrame) -> RoleMapping:
    """The query column of a query table, guessed from names and from the run's query ids
    (:func:`~metrics.io.roles.guess_query_table`), and every other column as a segment.

    Raises
    ------
    InputError
        Without a column that can be the query id, or when two could be.
    """
    guesses = guess_query_table(qt.frame, run[QUERY].dropna())
    if QUERY not in guesses:
        raise InputError(
            "The query table has no query column.",
            source=qt.name,
            fix="Name the query id column 'query' (or qid, user_id, ...).",
            code="query_table_without_query",
        )
    refuse_doubtful_guesses(qt.frame, guesses, source=qt.name)
    query_col = guesses[QUERY].column
    return RoleMapping(
        query=query_col,
        segments=tuple(str(c) for c in qt.frame.columns if str(c) != query_col),
    )


def _segments(
    run: pd.DataFrame, queries: LoadedTable | str | Path | None, mappings: dict[str, MappingLike]
) -> tuple[pd.DataFrame | None, list[Finding], tuple[str, ...]]:
    """The segment table (inline segments of the run and the query table's), the findings on
    it, and the query table's columns read as segments."""
    inline = [c for c in run.columns if c not in ROLES]
    frames = []
    if inline:
        frames.append(run.groupby(QUERY, sort=False, as_index=False)[inline].first())
    findings: list[Finding] = []
    read: tuple[str, ...] = ()
    if queries is not None:
        qt = _as_table(queries)
        mapping = mappings.get(qt.name)
        roles = RoleMapping.coerce(mapping) if mapping is not None else None
        if roles is None:
            roles = _query_table_roles(qt, run)
        read = roles.segments
        meta = apply_roles(
            qt.frame, RoleMapping(query=roles.query, segments=roles.segments), source=qt.name
        )
        meta = meta[meta[QUERY].notna()]
        findings += _segment_findings(meta)
        meta = meta.groupby(QUERY, sort=False, as_index=False).first()
        findings += _metadata_coverage(run, meta, qt.name)
        if frames:
            base = frames[0]
            meta = base.drop(
                columns=[c for c in base.columns if c in meta.columns and c != QUERY]
            ).merge(meta, on=QUERY, how="outer", sort=False)
            frames = []
        frames.append(meta)
    if not frames:
        return None, findings, read
    return frames[0].reset_index(drop=True), findings, read


def query_segments(
    queries: LoadedTable | str | Path, query_ids: Sequence[str] | pd.Series
) -> pd.DataFrame | None:
    """The segment table (``query`` plus segment columns) of a query metadata table, built as
    :func:`load_dataset` builds it for a run whose queries are ``query_ids`` and which has no
    segment columns of its own: what per-query values computed elsewhere (``--engine spark``)
    are segmented by.

    Raises
    ------
    InputError
        When the table cannot be read or has no query column.
    """
    run = pd.DataFrame({QUERY: pd.Series(list(query_ids), dtype=object)})
    segments, _, _ = _segments(run, queries, {})
    return visible_frame(segments) if segments is not None else None


def _metadata_coverage(run: pd.DataFrame, meta: pd.DataFrame, source: str) -> list[Finding]:
    """Run queries absent from the query table (warning) and the other way round (info)."""
    ids = run[QUERY][run[QUERY].notna()].astype("str")
    run_queries = pd.Index(pd.unique(ids[ids.str.strip() != ""]))
    meta_queries = pd.Index(pd.unique(meta[QUERY].astype("str")))
    findings: list[Finding] = []
    unknown = run_queries.difference(meta_queries, sort=False)
    if len(unknown):
        findings.append(
            Finding(
                "queries_missing_metadata",
                "warning",
                {"n": len(unknown), "total": len(run_queries)},
                len(unknown),
                tuple({"id": str(q)} for q in unknown[:5]),
                source=source,
                column=QUERY,
            )
        )
    unused = meta_queries.difference(run_queries, sort=False)
    if len(unused):
        findings.append(
            Finding(
                "metadata_queries_not_in_run",
                "info",
                {"n": len(unused), "total": len(meta_queries)},
                len(unused),
                tuple({"id": str(q)} for q in unused[:5]),
                source=source,
                column=QUERY,
            )
        )
    return findings


def _clean_run(run: pd.DataFrame, segments: pd.DataFrame | None) -> tuple[pd.DataFrame, np.ndarray]:
    """The rows with ids and a score, core columns first, then the segments by query; and the
    mask of the rows kept."""
    keep = run[QUERY].notna() & run[ITEM].notna() & run[SCORE].notna()
    keep &= (run[QUERY] != "") & (run[ITEM] != "")
    core = [c for c in (QUERY, ITEM, SCORE, RANK, MODEL) if c in run.columns]
    out = run.loc[keep, core].reset_index(drop=True)
    if segments is not None:
        indexed = segments.set_index(QUERY)
        for col in indexed.columns:
            out[col] = out[QUERY].map(indexed[col])
    return out, keep.to_numpy(dtype=bool)


# --------------------------------------------------------------------------- samples


@dataclass(frozen=True)
class Sample:
    """Files and description of one bundled sample data set."""

    name: str
    description: str
    runs: tuple[str, ...]
    judgments: str | None = None
    queries: str | None = None
    k_max: int = 10
    #: The judgment files of several label sources, each named after its file (the first is
    #: ``judgments``, the data set's judgments unless the ``label_source`` policy says
    #: otherwise; :func:`metrics.labels.sources.sample_sources` reads them).
    label_sources: tuple[str, ...] = ()


SAMPLES: dict[str, Sample] = {
    s.name: s
    for s in (
        Sample(
            "web_search",
            "Web search: 300 queries x 50 results from three models (lexical, dense, "
            "hybrid), graded 0-3, with query_type and traffic segments. Hybrid is best on "
            "average but loses to lexical on navigational queries. Clean data for a demo: "
            "the data checks find nothing to warn about.",
            ("web_search/run.csv",),
            "web_search/qrels.csv",
            "web_search/queries.csv",
        ),
        Sample(
            "recommendations",
            "Recommendations: 2,000 users x up to 20 candidates, binary clicks as labels, "
            "models baseline and candidate (one file each), segments tenure and activity.",
            ("recommendations/baseline.csv", "recommendations/candidate.csv"),
        ),
        Sample(
            "teaching",
            "Teaching: the worked examples of the metric notes as small named lists "
            "(P@5 = 0.6, P@10 = 0.4, R@5 = 0.3, MRR = 0.583, nDCG@4 = 0.985).",
            ("teaching/teaching.csv",),
            k_max=5,
        ),
        Sample(
            "web_search_pitfalls",
            "Teaching: a small web search (40 queries x up to 20 results, lexical and dense) "
            "with the pitfalls of real data on purpose: tied scores, lists cut short, queries "
            "with nothing relevant, relevant documents no model retrieved, and judgments of "
            "the top 5 only. The data's health names each one.",
            ("web_search_pitfalls/run.csv",),
            "web_search_pitfalls/qrels.csv",
            "web_search_pitfalls/queries.csv",
        ),
        Sample(
            "rag_evidence",
            "RAG evidence ranking: 50 questions, the top 10 chunks of two retrievers (bm25 "
            "and embedding), graded 0-3 by annotators (each retriever's top 7) and by an LLM "
            "judge (every chunk retrieved, with its model, prompt hash, scale and date). The "
            "two label sources agree only moderately (Cohen's kappa 0.49), yet both put "
            "embedding ahead of bm25: open the Labels page.",
            ("rag_evidence/bm25.csv", "rag_evidence/embedding.csv"),
            "rag_evidence/annotators.csv",
            "rag_evidence/questions.csv",
            label_sources=("rag_evidence/annotators.csv", "rag_evidence/llm_judge.csv"),
        ),
    )
}


def sample_directory() -> Path:
    """Where the bundled samples are.

    Installed, ``sample_data/`` is the package ``metrics.sample_data`` (see ``pyproject.toml``)
    and is found through :mod:`importlib.resources`; in a source checkout, where no such package
    exists, it is the top-level ``sample_data/`` folder.
    """
    try:
        installed = importlib.resources.files("metrics.sample_data")
    except ModuleNotFoundError:
        return CHECKOUT_SAMPLE_DIR
    return Path(str(installed))


def sample_names() -> list[str]:
    """Names of the bundled samples."""
    return list(SAMPLES)


def load_sample(name: str, *, directory: str | Path | None = None) -> Dataset:
    """Open a bundled sample data set by name.

    Parameters
    ----------
    name:
        One of :func:`sample_names`.
    directory:
        Where the sample files are (defaults to :func:`sample_directory`).

    Returns
    -------
    Dataset
    """
    if name not in SAMPLES:
        raise InputError(
            f"There is no sample named '{name}'.", fix=f"Choose one of: {', '.join(SAMPLES)}."
        )
    spec = SAMPLES[name]
    base = Path(directory) if directory is not None else sample_directory()
    runs = [load_table(base / r, r) for r in spec.runs]
    judgments = load_table(base / spec.judgments, spec.judgments) if spec.judgments else None
    queries = load_table(base / spec.queries, spec.queries) if spec.queries else None
    return load_dataset(
        runs, judgments, queries, name=name, description=spec.description, k_max=spec.k_max
    )


__all__ = [
    "SAMPLES",
    "DataHealth",
    "Dataset",
    "Finding",
    "Guess",
    "ListSummary",
    "LoadedTable",
    "RoleMapping",
    "Sample",
    "canonical_qrels",
    "canonical_run",
    "clean_qrels",
    "content_hash",
    "guess_roles",
    "label_words",
    "list_summary",
    "load_dataset",
    "load_sample",
    "load_table",
    "sample_directory",
    "sample_names",
    "split_inline_labels",
    "validate",
]
