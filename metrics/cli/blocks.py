"""Runs evaluated in blocks of queries: one chunk of the run in memory at a time.

:func:`evaluate_blocks` reads each TREC run in chunks of whole lines
(:func:`metrics.io.trec.plain_chunks`); :func:`evaluate_tables` reads CSV, TSV, Parquet, JSON
Lines and Excel runs (plain or gzip) in batches of rows (:mod:`metrics.io.table_stream`), with
their judgments in a file of their own (a table or TREC judgments) or in the run's label column.
The queries of a chunk (all but its last, which may go on in the next chunk and is carried
over) are ranked with their judgments and scored, and only their per-query values are kept.
Memory holds the judgments, one chunk of the run ranked and the table of values, instead of the
whole run ranked: at 10 million lines that is a third of the memory, and the numbers are the
same, since each query's values depend only on its own rows.

Input this path does not handle gives ``None``, and the command line reads the files whole as
before (the same numbers and messages, more memory): a run that is not plain TREC or a table
whose roles its column names settle, a query whose rows are in two places of the run, an item
twice in a query, micro averaging, or any error (which the whole reading then reports, with
its line). A table too large to be read whole within the memory rule is refused instead, with
its size and the fix (:func:`whole_reading_refusal`).
"""

from __future__ import annotations

import os
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from metrics.engine import arrow_calls
from metrics.engine.ids import arrow_numbers, arrow_strings, numpy_of, runs_of
from metrics.engine.ranking import RankedLists, RankingNotes, group_rows, rank_lists
from metrics.engine.registry import MeasureSpec
from metrics.engine.results import compute_matrix
from metrics.engine.settings import Settings
from metrics.errors import InputError, MetricsError
from metrics.io.direction import RankAgreement, rank_disagreements, run_direction_counts
from metrics.io.findings import MAX_EXAMPLES
from metrics.io.reading_notes import judgments_warnings, label_warnings, notes_warnings
from metrics.io.source import (
    GZIP_ERRORS,
    BrokenGzip,
    _size_text,
    broken_gzip,
    check_file,
    open_gzip,
)
from metrics.io.trec import (
    CHUNK_BYTES,
    Rows,
    TrecColumns,
    detect_trec,
    plain_chunks,
    read_trec,
    sample_lines,
)

if TYPE_CHECKING:  # imported on use: TREC files are evaluated without pandas
    import pandas as pd

    from metrics.io.roles import RoleMapping
    from metrics.io.table_stream import TableStream


class _Whole(Exception):
    """This input is read whole instead."""


@dataclass
class BlockResult:
    """Per run: the evaluated query ids (evaluation order), their values (queries x measures,
    column by column) and what the ranking noted."""

    query_ids: np.ndarray
    values: np.ndarray
    notes: RankingNotes
    ranks: RankAgreement | None = None


class Judgments:
    """The judgments grouped by query, and each judged query's row in the table of values
    (ascending byte order of the ids)."""

    def __init__(self, qrels: TrecColumns) -> None:
        query = qrels.query.combine_chunks()
        item = qrels.item.combine_chunks()
        value = qrels.value
        starts, heads = runs_of(query)
        codes = numpy_of(arrow_calls.dictionary_encode(heads).indices)
        if len(codes) and np.bincount(codes).max() > 1:  # a query in two places: group them
            order = numpy_of(arrow_calls.sort_indices(query)).astype(np.int64)
            query = arrow_calls.take(query, arrow_numbers(order))
            item = arrow_calls.take(item, arrow_numbers(order))
            value = value[order]
            starts, heads = runs_of(query)
        self.query, self.item, self.value = query, item, value
        self.heads, self.starts = heads, starts
        self.lengths = np.diff(np.append(starts, len(query)))
        by_bytes = numpy_of(arrow_calls.sort_indices(heads)).astype(np.int64)
        self.row = np.empty(len(heads), dtype=np.int64)  # table row of each judged query
        self.row[by_bytes] = np.arange(len(heads))
        self.ids = np.array(heads.to_pylist(), dtype=object)[by_bytes]

    def of(self, heads: np.ndarray) -> tuple[pa.Array, pa.Array, np.ndarray]:
        """Query, item and label of the judgments of the judged queries ``heads`` (positions
        in :attr:`heads`)."""
        rows = group_rows(self.starts[heads], self.lengths[heads])
        taken = arrow_numbers(rows)
        return (
            arrow_calls.take(self.query, taken),
            arrow_calls.take(self.item, taken),
            self.value[rows],
        )


def evaluate_blocks(
    judged: Judgments,
    run_path: str,
    specs: list[MeasureSpec],
    settings: Settings,
    chunk_bytes: int = CHUNK_BYTES,
) -> BlockResult | None:
    """The per-query values of ``specs`` for the run at ``run_path`` against the judgments,
    computed block by block; ``None`` when the run is to be read whole instead (see the module
    docstring)."""
    if settings.averaging == "micro":
        return None
    ranking = settings.with_(duplicates="keep_best")  # a repeat makes the run read whole
    try:
        values = _Values(judged, len(specs))
        seen = np.zeros(len(judged.ids), dtype=bool)
        seen_ids: set[str] = set()
        notes: list[RankingNotes] = []
        ascending = descending = 0  # lists whose scores go up / down with the rank column
        chunks = _trec_rows(plain_chunks(run_path, "run", chunk_bytes))
        for block, heads, starts in _query_blocks(chunks):
            ids = heads.to_pylist()
            if seen_ids.intersection(ids) or len(set(ids)) < len(ids):
                raise _Whole  # a query's rows are in more than one place
            seen_ids.update(ids)
            at = arrow_calls.index_in(heads, judged.heads)
            at = at[at >= 0]
            seen[at] = True
            jq, ji, jrel = judged.of(at)
            lists = rank_lists(
                block.query, block.item, block.score, jq, ji, jrel, ranking, run_rank=block.rank
            )
            values.add(lists, specs, at)
            notes.append(lists.notes)
            if block.rank is not None and len(block.score):
                found = run_direction_counts(starts, block.rank, block.score)
                ascending += found.ascending
                descending += found.descending
            # this block's rows and ranked lists are let go before the next chunk is read,
            # so that their memory serves it
            del block, lists, jq, ji, jrel
        missing = np.flatnonzero(~seen)
        if len(missing):  # judged queries the run does not have: noted, or scored 0 (-c)
            jq, ji, jrel = judged.of(missing)
            empty = arrow_strings([])
            lists = rank_lists(empty, empty, np.zeros(0), jq, ji, jrel, ranking)
            values.add(lists, specs, missing)
            notes.append(lists.notes)
    except (_Whole, MetricsError):
        return None
    merged = _merged(notes, settings)
    if merged.dropped_duplicates or values.table is None:
        return None
    ranks = RankAgreement(ascending, descending) if ascending + descending else None
    return BlockResult(values.ids(), values.kept(), merged, ranks)


def read_judgments(path: str, chunk_bytes: int = CHUNK_BYTES) -> TrecColumns | None:
    """A plain TREC qrels file read chunk by chunk (less memory at once than a whole reading);
    ``None`` when it is not plain (read it whole then)."""
    chunks = []
    for chunk in plain_chunks(path, "qrels", chunk_bytes):
        if chunk is None:
            return None
        chunks.append(chunk)
    if not chunks:
        return None
    return TrecColumns(
        "qrels",
        pa.chunked_array([c for chunk in chunks for c in chunk.query.chunks], type=pa.string()),
        pa.chunked_array([c for chunk in chunks for c in chunk.item.chunks], type=pa.string()),
        np.concatenate([chunk.value for chunk in chunks]),
    )


def _query_blocks(
    chunks: Iterator[Rows | None],
) -> Iterator[tuple[Rows, pa.Array, np.ndarray]]:
    """The rows of ``chunks`` in blocks of whole queries, with the query of each run of rows
    (rows of one query and one model) and the row where each run starts: each chunk's rows,
    its last run carried over to the next chunk (where it may go on). A ``None`` chunk sends
    the run to the whole reading."""
    carried: Rows | None = None
    heads = arrow_strings([])
    for chunk in chunks:
        if chunk is None:
            raise _Whole
        if carried is not None:
            chunk = _joined(carried, chunk)
        query = chunk.query.combine_chunks()
        chunk = replace(chunk, query=pa.chunked_array([query]))
        starts, heads = _runs(chunk)
        cut = _last_query(heads)
        last = int(starts[cut]) if len(starts) else 0
        carried = _rows(chunk, last, len(chunk))
        if last:
            block = _rows(chunk, 0, last)
            del chunk  # the block and the carried rows hold what is needed of it
            yield block, heads.slice(0, cut), starts[:cut]
            del block
        heads = heads.slice(cut)
    if carried is not None and len(carried):
        starts, heads = _runs(carried)
        yield carried, heads, starts


def _last_query(heads: pa.Array) -> int:
    """Where the runs of the last query start (its rows of each model, one after another)."""
    if len(heads) < 2:
        return 0
    other = np.flatnonzero(arrow_calls.index_in(heads, heads.slice(len(heads) - 1)) < 0)
    return int(other[-1]) + 1 if len(other) else 0


def _runs(rows: Rows) -> tuple[np.ndarray, pa.Array]:
    """Where each run of rows of one query (and one model) starts, and its query."""
    query = rows.query.chunk(0)
    starts, heads = runs_of(query)
    if rows.model is None or not len(starts):
        return starts, heads
    model_starts, _ = runs_of(rows.model.combine_chunks())
    starts = np.union1d(starts, model_starts)
    return starts, arrow_calls.take(query, arrow_numbers(starts))


def _rows(rows: Rows, start: int, stop: int) -> Rows:
    def part(values: np.ndarray | None) -> np.ndarray | None:
        return None if values is None else values[start:stop]

    return Rows(
        rows.query.slice(start, stop - start),
        rows.item.slice(start, stop - start),
        rows.score[start:stop],
        part(rows.rank),
        part(rows.label),
        None if rows.model is None else rows.model.slice(start, stop - start),
    )


def _joined(first: Rows, then: Rows) -> Rows:
    def both(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
        return np.concatenate((a, b)) if a is not None and b is not None else None

    def text(a: pa.ChunkedArray | None, b: pa.ChunkedArray | None) -> pa.ChunkedArray | None:
        if a is None or b is None:
            return None
        return pa.chunked_array(a.chunks + b.chunks, type=pa.string())

    query, item = text(first.query, then.query), text(first.item, then.item)
    assert query is not None and item is not None
    return Rows(
        query,
        item,
        np.concatenate((first.score, then.score)),
        both(first.rank, then.rank),
        both(first.label, then.label),
        text(first.model, then.model),
    )


def _trec_rows(chunks: Iterator[TrecColumns | None]) -> Iterator[Rows | None]:
    """A TREC run's chunks as rows (no copy)."""
    for chunk in chunks:
        yield None if chunk is None else Rows(chunk.query, chunk.item, chunk.value, chunk.rank)


class _Values:
    """The per-query values of every judged query that is evaluated, column by column: each
    block's rows written one after another as they come (straight into the table), put in
    ascending byte order of the ids once at the end (:meth:`kept`)."""

    def __init__(self, judged: Judgments, n_columns: int) -> None:
        self.judged = judged
        self.n_columns = n_columns
        self.table: np.ndarray | None = None
        self.filled = 0
        #: Each block's judged query rows (ascending byte order of the ids), as written.
        self.rows: list[np.ndarray] = []

    def add(self, lists: RankedLists, specs: list[MeasureSpec], judged: np.ndarray) -> None:
        """The rows of the values of ``specs`` for the evaluated queries of ``lists``, ranked
        with the judged queries ``judged`` (positions in the judgments' query ids)."""
        ids = lists.query_ids
        if not len(ids):
            return
        if len(ids) == len(judged):  # all evaluated: in ascending byte order
            rows = np.sort(self.judged.row[judged])
        else:
            found = arrow_calls.index_in(arrow_strings(ids.tolist()), self.judged.heads)
            rows = self.judged.row[found]
        if self.table is None and len(rows) == len(self.judged.ids):
            # every judged query at once: the whole table
            self.table = compute_matrix(lists, specs)
        else:
            if self.table is None:
                self.table = np.empty((len(self.judged.ids), self.n_columns), order="F")
            end = self.filled + len(rows)
            compute_matrix(lists, specs, out=self.table[self.filled : end])
        self.filled += len(rows)
        self.rows.append(rows)

    def ids(self) -> np.ndarray:
        """The ids of the rows written, in ascending byte order."""
        rows = np.concatenate(self.rows) if self.rows else np.zeros(0, dtype=np.int64)
        ids: np.ndarray = self.judged.ids[np.sort(rows)]
        return ids

    def kept(self) -> np.ndarray:
        """The rows written, in ascending byte order of their ids, in place (no second table):
        column by column, each put in order through a copy of one column."""
        table = self.table
        assert table is not None
        rows = np.concatenate(self.rows)
        kept: np.ndarray = table[: len(rows)]
        if len(rows) > 1 and not (rows[1:] > rows[:-1]).all():
            _put_in_order(kept, np.argsort(rows, kind="stable"))
        return kept


def _put_in_order(table: np.ndarray, order: np.ndarray) -> None:
    """``table``'s rows put in ``order`` in place (the row ``order[i]`` becomes row ``i``),
    column by column through a copy of one column: far fewer cache misses than writing each
    block's rows where they belong, and no second table."""
    for j in range(table.shape[1]):
        table[:, j] = table[order, j]


def _merged(notes: list[RankingNotes], settings: Settings) -> RankingNotes:
    """The notes of all blocks as one ranking of the whole run would give them (query ids in
    ascending byte order)."""

    def ids(name: str) -> tuple[str, ...]:
        return tuple(sorted((q for n in notes for q in getattr(n, name)), key=str.encode))

    conflicts = sorted((e for n in notes for e in n.conflict_examples), key=lambda e: e[0].encode())
    return RankingNotes(
        dropped_duplicates=sum(n.dropped_duplicates for n in notes),
        repeated_judgments=sum(n.repeated_judgments for n in notes),
        conflicting_judgments=sum(n.conflicting_judgments for n in notes),
        conflict_examples=tuple(conflicts[:MAX_EXAMPLES]),
        run_queries_without_judgments=ids("run_queries_without_judgments"),
        judged_queries_missing_from_run=ids("judged_queries_missing_from_run"),
        queries_without_relevant=ids("queries_without_relevant"),
        left_out_without_relevant=ids("left_out_without_relevant"),
        missing_scored_zero=settings.missing_queries == "zero",
    )


# ====================================================================== tables


#: Why a TREC run the chunked reader does not read is not read in blocks, and the fix.
_TREC_NOT_PLAIN = (
    "a TREC file other than plain text: compressed, or with comment lines, carriage returns or "
    "another layout",
    "Give the TREC files uncompressed, one record per line with its fields separated by one "
    "space or tab, and they are read block by block",
)


class _Table(Exception):
    """This table is read whole instead; ``reason`` says why (for a refusal's message), ``fix``
    how to have it read in blocks (the refusal's usual fix when ``None``)."""

    def __init__(self, reason: str, fix: str | None = None) -> None:
        super().__init__(reason)
        self.reason, self.fix = reason, fix


@dataclass
class TableBlocks:
    """The block reading of runs: per model, its values and the file it came from; the
    warnings on the judgments' labels and the judgments' file name."""

    models: dict[str, tuple[BlockResult, str]]
    label_warnings: list[str]
    judgments_source: str


def _label_warnings(qrels: TrecColumns, source: str, settings: Settings) -> list[str]:
    return label_warnings(qrels.query, qrels.item, qrels.value, source, settings)


class _Model:
    """One model's values and notes, block by block, and the queries its run holds: written
    into one table of the judged queries when the judgments are known before the run
    (``judged``), else kept block by block and put in order at the end."""

    def __init__(self, judged: Judgments | None, n_columns: int) -> None:
        self.table = None if judged is None else _Values(judged, n_columns)
        self.ids: list[np.ndarray] = []
        self.values: list[np.ndarray] = []
        self.notes: list[RankingNotes] = []
        self.queries: set[str] = set()
        self.ascending = self.descending = 0

    def add(self, lists: RankedLists, specs: list[MeasureSpec], judged: np.ndarray) -> None:
        """The values of ``lists``, ranked with the judged queries ``judged`` (positions in the
        judgments' query ids, when known before the run)."""
        self.notes.append(lists.notes)
        if not len(lists.query_ids):
            return
        if self.table is not None:
            self.table.add(lists, specs, judged)
            return
        self.ids.append(lists.query_ids)
        self.values.append(compute_matrix(lists, specs))

    def result(self, n_columns: int, settings: Settings) -> BlockResult:
        """The values in evaluation order (ascending byte order of the query ids)."""
        notes = _merged(self.notes, settings)
        ranks = RankAgreement(self.ascending, self.descending)
        agreement = ranks if self.ascending + self.descending else None
        if self.table is not None:
            if self.table.table is None:
                return BlockResult(np.zeros(0, dtype=object), np.zeros((0, n_columns)), notes)
            return BlockResult(self.table.ids(), self.table.kept(), notes, agreement)
        ids = np.concatenate(self.ids) if self.ids else np.zeros(0, dtype=object)
        order = numpy_of(arrow_calls.sort_indices(arrow_strings(ids.tolist())))
        values = np.empty((len(ids), n_columns), order="F")
        start = 0
        while self.values:  # each block's values one after another, each let go once copied
            block = self.values.pop(0)
            values[start : start + len(block)] = block
            start += len(block)
        _put_in_order(values, order)
        return BlockResult(ids[order], values, notes, agreement)


def evaluate_tables(
    qrels: tuple[Judgments, list[str]] | str | None,
    run_paths: list[str],
    specs: list[MeasureSpec],
    settings: Settings,
    words: LabelWords | None = None,
    segments: RunSegments | None = None,
) -> TableBlocks:
    """The per-query values of ``specs`` for the table runs at ``run_paths``, block by block:
    against the judgments ``qrels`` (TREC judgments already grouped, with the warnings on their
    labels; or the path of a judgments table), or, without, against the labels of the one run
    table; label words read by the mapping of ``words`` (``--label-map``), the segment columns
    of ``segments`` taken from the runs.

    Raises
    ------
    _Table
        When the files are read whole instead (why, for :func:`whole_reading_refusal`).
    """
    # deferred: tables are read with pyarrow.csv (TREC files without)
    from metrics.io.table_stream import open_stream

    if settings.averaging == "micro":
        raise _Table("micro averaging pools every query's counts")
    streams = [open_stream(path) for path in run_paths]
    source, warnings = Path(run_paths[0]).name, []
    judged = None
    if isinstance(qrels, str):
        source = Path(qrels).name
        read = _table_judgments(qrels, words)
        warnings = _label_warnings(read, source, settings)
        judged = Judgments(read)
        del read  # the judgments hold what they need of it
    elif qrels is not None:
        judged, warnings = qrels
    elif len(run_paths) > 1:
        raise _Table("several runs carry their own labels")
    reading = _TableReading(judged, specs, settings, words, segments)
    for path, stream in zip(run_paths, streams):
        if stream is None and table_text_size(path) is None:
            raise _Table(*_TREC_NOT_PLAIN)
        if stream is None:
            raise _Table("it is not a table read in blocks (CSV, TSV, Parquet, JSON Lines, Excel)")
        reading.read(stream)
    if judged is None:  # the labels the run carries are its judgments
        carried = reading.carried()
        warnings = _label_warnings(carried, source, settings)
        reading.judged = Judgments(carried)
        del carried
    return TableBlocks(reading.results(), warnings, source)


class _TableReading:
    """The block reading of table runs: each model's values and notes, and the labels the
    runs carry (their judgments, when no judgments file is given)."""

    def __init__(
        self,
        judged: Judgments | None,
        specs: list[MeasureSpec],
        settings: Settings,
        words: LabelWords | None = None,
        segments: RunSegments | None = None,
    ):
        self.judged, self.specs, self.settings, self.words = judged, specs, settings, words
        self.segments = segments
        self.models: dict[str, tuple[_Model, str]] = {}
        self.labels: list[tuple[pa.Array, pa.Array, np.ndarray]] = []

    def read(self, stream: TableStream) -> None:
        """Every block of one run table."""
        # deferred: tables are read with pyarrow.csv (TREC files without)
        from metrics.io.formats import file_stem
        from metrics.io.table_stream import block_roles, rows_of

        segments = self.segments
        kept = () if segments is None else segments.columns
        roles = block_roles(stream.sample, judged_elsewhere=self.judged is not None, segments=kept)
        if roles is None:
            raise _Table("its column names do not settle every role")
        wanted = list(roles.columns().values())
        ids = [c for c in (roles.query, roles.item, roles.model) if c is not None]
        if segments is not None:
            wanted += segments.wanted(stream, wanted)
        numbers = [c for c in (roles.score, roles.rank, roles.label) if c is not None]
        batches = _graded(self.words, stream, wanted, ids, roles.label, numbers)
        if segments is None:
            chunks = (_read_as_rows(rows_of(b, roles)) for b in batches)
        else:
            chunks = (_read_as_rows(r) for r in segments.tallied(batches, roles, stream))
        fixed = None if roles.model is not None else file_stem(stream.name)
        mine: set[str] = set()
        seen: set[str] = set()
        try:
            for block, heads, _ in _query_blocks(chunks):
                labels = _labelled(block) if block.label is not None else None
                found = _table_block(block, heads, self.judged, fixed, seen, self.settings, labels)
                self._add(found, mine, stream.name)
                if self.judged is None and labels is not None:
                    self.labels.append(labels)
        except _Whole as exc:
            raise _Table("the rows of a query are in more than one place") from exc
        except BrokenGzip:
            raise  # the whole reading would say the same
        except (MetricsError, pa.ArrowException) as exc:
            raise _Table("a value does not read as the table's first rows do") from exc

    def _add(
        self,
        found: dict[str, tuple[RankedLists, RankAgreement, list[str]]],
        mine: set[str],
        name: str,
    ) -> None:
        """The values of one block's lists, model by model (``mine``: this run's models)."""
        for model, (lists, counts, held) in found.items():
            if model not in mine and model in self.models:
                raise _Table("two runs have a model of the same name")
            mine.add(model)
            state = self.models.setdefault(model, (_Model(self.judged, len(self.specs)), name))[0]
            state.add(lists, self.specs, self._judged_at(held))
            state.queries.update(held)
            state.ascending += counts.ascending
            state.descending += counts.descending

    def _judged_at(self, queries: list[str]) -> np.ndarray:
        """Positions of the judged ones of ``queries`` in the judgments' query ids (known
        judgments only)."""
        if self.judged is None:
            return np.zeros(0, dtype=np.int64)
        at = arrow_calls.index_in(arrow_strings(queries), self.judged.heads)
        return at[at >= 0]

    def carried(self) -> TrecColumns:
        """The labels the runs carry, as judgments (this reading lets go of them)."""
        labels, self.labels = self.labels, []
        if not labels:
            raise _Table("the run's label column holds no label")
        return TrecColumns(
            "qrels",
            pa.chunked_array([q for q, _, _ in labels], type=pa.string()),
            pa.chunked_array([i for _, i, _ in labels], type=pa.string()),
            np.concatenate([v for _, _, v in labels]),
        )

    def results(self) -> dict[str, tuple[BlockResult, str]]:
        """Per model its values in evaluation order, the judged queries its run does not hold
        added (see :func:`_missing`), and its file.

        The judgments are let go, and their memory given back, before the values are put in
        order, which holds them twice for a moment (the judgments the runs carried are no
        longer needed then)."""
        judged = self.judged
        assert judged is not None
        for model, (state, _) in self.models.items():
            _missing(state, judged, model, self.specs, self.settings)
        self.judged = judged = None
        pa.default_memory_pool().release_unused()  # arrow's allocator keeps freed memory a while
        out: dict[str, tuple[BlockResult, str]] = {}
        for model, (state, name) in self.models.items():
            result = state.result(len(self.specs), self.settings.for_model(model))
            if result.notes.dropped_duplicates:
                raise _Table("an item is listed twice in a query")
            if not len(result.query_ids):
                raise _Table("no query of a run is judged")  # the whole reading explains it
            out[model] = (result, name)
        if not out:
            raise _Table("it holds no rows")
        return out


def _read_as_rows(rows: Rows | None) -> Rows:
    if rows is None:
        raise _Table("a value is not a number or an id as the whole reading reads it")
    return rows


def _labelled(block: Rows) -> tuple[pa.Array, pa.Array, np.ndarray]:
    """Query, item and label of the rows of ``block`` that have a label."""
    assert block.label is not None
    judgment = ~np.isnan(block.label)
    if judgment.all():  # a judgments table: every row
        return block.query.combine_chunks(), block.item.combine_chunks(), block.label
    rows = np.flatnonzero(judgment)
    return _taken(block.query, rows), _taken(block.item, rows), block.label[judgment]


def _taken(values: pa.ChunkedArray, rows: np.ndarray) -> pa.Array:
    """The values at ``rows`` (ascending positions) as one array: no copy when they are all."""
    if len(rows) == len(values):
        return values.combine_chunks()
    return arrow_calls.take(values, arrow_numbers(rows)).combine_chunks()


def _table_judgments(path: str, words: LabelWords | None = None) -> TrecColumns:
    """A judgments table read in batches: query, item and label of the rows with a label
    (words read by the mapping of ``words``)."""
    # deferred: tables are read with pyarrow.csv (TREC files without)
    from metrics.io.table_stream import block_roles, open_stream, rows_of

    stream = open_stream(path)
    roles = None
    if stream is not None:
        roles = block_roles(stream.sample, judged_elsewhere=True, qrels=True)
    if stream is None or roles is None or roles.label is None:
        raise _Table("the judgments are not a table whose column names settle every role")
    assert roles.query is not None and roles.item is not None
    read = roles.with_(score=roles.label, label=None)  # the labels read as a run's numbers
    parts = []
    try:
        ids = [roles.query, roles.item]
        labels = [roles.label]
        for batch in _graded(words, stream, [*ids, roles.label], ids, roles.label, labels):
            rows = rows_of(batch, read)
            if rows is None:
                raise _Table("a label of the judgments reads otherwise")
            parts.append(_labelled(replace(rows, label=rows.score)))
    except pa.ArrowException as exc:
        raise _Table("the judgments cannot be read in blocks") from exc
    return TrecColumns(
        "qrels",
        pa.chunked_array([q for q, _, _ in parts], type=pa.string()),
        pa.chunked_array([i for _, i, _ in parts], type=pa.string()),
        np.concatenate([v for _, _, v in parts]) if parts else np.zeros(0),
    )


def _table_block(
    block: Rows,
    heads: pa.Array,
    judged: Judgments | None,
    fixed: str | None,
    seen: set[str],
    settings: Settings,
    labels: tuple[pa.Array, pa.Array, np.ndarray] | None = None,
) -> dict[str, tuple[RankedLists, RankAgreement, list[str]]]:
    """Each model's lists of one block of whole queries, ranked with their judgments (those
    of ``judged``, else ``labels``: the block's labelled rows, see :func:`_labelled`), how its
    scores go with its ranks, and the queries its rows hold."""
    queries = set(heads.to_pylist())
    if seen.intersection(queries):
        raise _Whole  # a query's rows are in more than one place
    seen.update(queries)
    if block.model is not None:
        model_of = block.model.combine_chunks()
        models = dict.fromkeys(model_of.unique().to_pylist())
    else:
        model_of, models = None, {fixed: None}
    out = {}
    for model in models:
        rows = np.arange(len(block)) if model_of is None else _rows_of_model(model_of, model)
        rows = rows[~np.isnan(block.score[rows])]  # rows without a score only judge
        query, item = _taken(block.query, rows), _taken(block.item, rows)
        m_starts, m_heads = runs_of(query)
        if len(set(m_heads.to_pylist())) < len(m_heads):
            raise _Whole  # a model's rows of one query are in two places of the block
        if judged is not None:
            at = arrow_calls.index_in(m_heads, judged.heads)
            jq, ji, jrel = judged.of(at[at >= 0])
        else:
            assert labels is not None
            label_query, label_item, label_value = labels
            keep = arrow_calls.index_in(label_query, m_heads) >= 0
            kept = arrow_numbers(np.flatnonzero(keep))
            jq = arrow_calls.take(label_query, kept)
            ji = arrow_calls.take(label_item, kept)
            jrel = label_value[keep]
        rank = block.rank[rows] if block.rank is not None else None
        lists = rank_lists(
            query,
            item,
            block.score[rows],
            jq,
            ji,
            jrel,
            settings.for_model(str(model)).with_(duplicates="keep_best"),
            run_rank=rank,
        )
        counts = (
            run_direction_counts(m_starts, rank, block.score[rows])
            if rank is not None and len(rows)
            else RankAgreement(0, 0)
        )
        out[str(model)] = (lists, counts, m_heads.to_pylist())
    return out


def _rows_of_model(models: pa.Array, model: object) -> np.ndarray:
    found = arrow_calls.call_function("equal", [models, pa.scalar(model, pa.string())])
    return np.flatnonzero(found.to_numpy(zero_copy_only=False))


def _missing(
    state: _Model, judged: Judgments, model: str, specs: list[MeasureSpec], settings: Settings
) -> None:
    """Add the judged queries the model's run does not hold: noted, or scored as empty lists
    (``missing_queries="zero"``), as one ranking of the whole run does."""
    held = arrow_strings(sorted(state.queries, key=str.encode))
    missing = np.flatnonzero(arrow_calls.index_in(judged.heads, held) < 0)
    if not len(missing):
        return
    jq, ji, jrel = judged.of(missing)
    empty = arrow_strings([])
    ranking = settings.for_model(model).with_(duplicates="keep_best")
    state.add(rank_lists(empty, empty, np.zeros(0), jq, ji, jrel, ranking), specs, missing)


# ====================================================================== the command line's use

#: Megabytes of table text (decompressed, or as CSV for Parquet and Excel) above which tables
#: that cannot be read block by block are refused: reading tables whole holds about 12 times
#: their text, which stays within 3 times their text and 300 MB up to here. The environment
#: variable :data:`WHOLE_MB_VARIABLE` sets another limit (a machine with the memory for more).
WHOLE_TABLE_MB = 16
WHOLE_MB_VARIABLE = "RANKING_METRICS_WHOLE_MB"


def whole_table_bytes() -> int:
    """The limit on tables read whole, in bytes (:data:`WHOLE_TABLE_MB`, or the whole number
    of megabytes of :data:`WHOLE_MB_VARIABLE`)."""
    text = os.environ.get(WHOLE_MB_VARIABLE, "").replace("_", "").strip()
    return (int(text) if text.isascii() and text.isdigit() else WHOLE_TABLE_MB) * 1024**2


def in_blocks(
    qrels_path: str | None,
    run_paths: list[str],
    specs: list[MeasureSpec],
    settings: Settings,
    model_name: Callable[[str, Mapping[str, object]], str],
    label_map: Mapping[str, float] | None = None,
    segments: RunSegments | None = None,
    *,
    trec_as_tables: bool = False,
) -> tuple[list[str], list[str], dict[str, BlockResult]] | None:
    """Notes, warnings and per model the values of the runs evaluated block by block: TREC
    runs (:func:`evaluate_blocks`, each model named by ``model_name`` from its path and the
    names taken), and tables of more than :func:`whole_table_bytes` of text
    (:func:`evaluate_tables`; label words read by ``label_map``, ``--label-map``; the segment
    columns of ``segments`` taken from table runs); ``None`` when the files are to be read
    whole instead (smaller tables are, and checked in full: ties, short lists, ...).
    ``trec_as_tables``: the caller's whole reading takes TREC files as tables (compare, the
    Python API), so their text counts as tables' does against the limit.

    Raises
    ------
    InputError
        For a NUL byte in a TREC file, and for tables that cannot be read block by block and
        are too large to be read whole (:func:`whole_reading_refusal`).
    """
    qrels = _trec_judgments(qrels_path, run_paths)
    if qrels is not None and qrels.kind != "qrels":
        return None  # the whole reading explains it
    paths = [p for p in [qrels_path, *run_paths] if p]
    if settings.averaging == "micro":  # pooled counts: every list at once
        refusal = whole_reading_refusal(
            paths, "micro averaging pools every query's counts", trec_as_tables=trec_as_tables
        )
        if refusal is not None:
            raise refusal
        return None
    given: tuple[Judgments, list[str]] | str | None = qrels_path
    notes: list[str] = []
    if qrels is not None:
        assert qrels_path is not None
        source = Path(qrels_path).name
        notes = [f"{source}: {note}" for note in qrels.notes()]
        given = (Judgments(qrels), _label_warnings(qrels, source, settings))
        del qrels  # the judgments hold what they need of it
        models: dict[str, tuple[BlockResult, str]] = {}
        for path in run_paths:
            model = model_name(path, models)
            found = evaluate_blocks(given[0], path, specs, settings.for_model(model))
            if found is None:
                break
            models[model] = (found, Path(path).name)
        else:
            return notes, *_worded(TableBlocks(models, given[1], source), settings)
    if _text_size(paths, trec_as_tables) <= whole_table_bytes():
        return None  # read whole, and checked in full
    words = None if label_map is None else LabelWords(label_map)
    try:
        tables = evaluate_tables(given, run_paths, specs, settings, words, segments)
    except _Table as why:
        refusal = whole_reading_refusal(paths, why.reason, why.fix, trec_as_tables=trec_as_tables)
        if refusal is not None:
            raise refusal from None
        return None
    notes += [] if words is None else words.notes()
    return notes, *_worded(tables, settings, judgments_file=qrels_path is not None)


class LabelWords:
    """Label words read by a label mapping (``--label-map``) block by block: each batch's label
    column read as grades (:func:`~metrics.io.table_stream.mapped_labels`), and the words of
    each table's label column counted for the note the whole reading gives on them."""

    def __init__(self, label_map: Mapping[str, float]) -> None:
        self.label_map = dict(label_map)
        self.counts: dict[tuple[str, str], Counter[str]] = {}

    def graded(
        self, batches: Iterator[pa.RecordBatch], column: str, source: str
    ) -> Iterator[pa.RecordBatch]:
        """``batches`` with their label ``column`` read as grades (a column of numbers).

        Raises
        ------
        _Table
            For a label the mapping does not name (the whole reading explains it).
        """
        from metrics.io.table_stream import mapped_labels  # deferred: it imports pandas

        pc = arrow_calls.compute

        counts = self.counts.setdefault((source, column), Counter())
        for batch in batches:
            at = batch.schema.get_field_index(column)
            values = batch.column(at)
            grades = mapped_labels(values, self.label_map)
            if grades is None:
                raise _Table("a label is a word --label-map does not grade")
            if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
                found = pc.value_counts(pc.utf8_trim_whitespace(values))
                for word, n in zip(found.field(0).to_pylist(), found.field(1).to_pylist()):
                    if word is not None:
                        counts[word] += n
            yield batch.set_column(at, column, pa.array(grades, pa.float64()))

    def notes(self) -> list[str]:
        """The note the whole reading gives on each table whose labels were words: the grades
        each word was read as, with the rows holding it."""
        # deferred: label words are read with pandas
        from metrics.io.findings import Finding
        from metrics.io.labels import (
            is_missing_label,
            is_number_text,
            mapping_text,
            normalize_label,
            with_none_grade,
        )
        from metrics.io.reading_notes import finding_text
        from metrics.schema import NONE_GRADE

        out = []
        for (source, column), counts in self.counts.items():
            words = {
                w: n for w, n in counts.items() if not is_missing_label(w) and not is_number_text(w)
            }
            if not words:
                continue
            numbers = any(is_number_text(w) for w in counts)
            if numbers and {normalize_label(w) for w in words} == {NONE_GRADE}:
                words = {NONE_GRADE: sum(words.values())}  # numbers and none: read as numbers
            used = with_none_grade(self.label_map, words)
            params = {"column": column, "mapping": mapping_text(used, words), "n": len(used)}
            finding = Finding(
                "text_labels", "info", params, len(used), source=source, column=column
            )
            out.append(finding_text(finding))
        return out


class RunSegments:
    """Segment columns (``compare --by``) taken from table runs read block by block, as the
    whole reading takes them (:func:`metrics.io.loaders.load_dataset`): per query the value of
    its rows, the same in every row of the query; a column of a run is a segment when the whole
    reading would guess it one (:func:`~metrics.io.roles.proposed_segments`), its values read
    as the whole reading reads that column (CSV and TSV runs); the first run holding a query's
    value gives it.

    A column that varies within a query, has an empty cell, is no segment of any run, or is
    read from another format sends the runs to the whole reading (:class:`_Table`)."""

    def __init__(self, columns: Sequence[str]) -> None:
        self.columns = tuple(columns)
        #: per run: its delimiter, the columns it holds and per batch each query's least and
        #: greatest value of each
        self.runs: list[tuple[str, list[str], list[pa.Table]]] = []

    def wanted(self, stream: TableStream, taken: list[str]) -> list[str]:
        """The segment columns to read from ``stream`` besides the ``taken`` ones."""
        from metrics.io.table_stream import _DELIMITED  # deferred: it imports pandas

        delimiter = _DELIMITED.get(stream.format)
        if delimiter is None:
            raise self._refused("--by takes segment columns from CSV and TSV runs only")
        held = [c for c in self.columns if c in stream.sample.names]
        for column in held:
            if column in taken:
                raise self._refused(f"--by {column} is a column of a run's lists")
        self.runs.append((delimiter, held, []))
        return held

    def tallied(
        self, batches: Iterator[pa.RecordBatch], roles: RoleMapping, stream: TableStream
    ) -> Iterator[Rows | None]:
        """The rows of ``batches``, each query's segment values noted on the way."""
        # deferred: tables are read with pyarrow.csv (TREC files without)
        from metrics.io.formats import _stripped
        from metrics.io.table_stream import rows_of

        _, held, found = self.runs[-1]
        for batch in batches:
            rows = rows_of(batch, roles)
            if rows is not None:
                columns = {"q": rows.query}
                for column in held:
                    values = _stripped(pa.chunked_array([batch.column(column)]))
                    if values.null_count:
                        raise self._refused(f"--by {column} has an empty cell")
                    columns[column] = values
                aggregates = [(c, f) for c in held for f in ("min", "max")]
                table = pa.table(columns).group_by("q", use_threads=False).aggregate(aggregates)
                found.append(table)
            yield rows

    @staticmethod
    def _refused(reason: str) -> _Table:
        return _Table(reason, SEGMENTS_IN_RUNS_WHOLE.fix)

    def table(self, paths: list[str]) -> pd.DataFrame | None:
        """The segment table (:meth:`frame`) once the runs are read; ``None`` when they are to
        be read whole instead (``paths`` within the limit on tables read whole).

        Raises
        ------
        InputError
            The refusal of ``paths`` past that limit (:func:`whole_reading_refusal`).
        """
        try:
            return self.frame()
        except _Table as why:
            refusal = whole_reading_refusal(paths, why.reason, why.fix)
            if refusal is not None:
                raise refusal from None
            return None

    def frame(self) -> pd.DataFrame:
        """The segment table (``query`` plus the columns), as the whole reading builds it.

        Raises
        ------
        _Table
            As the class docstring says.
        """
        # deferred: the segment table is built with pandas
        import pandas as pd

        # deferred: they import pandas
        from metrics.io.formats import _typed_column
        from metrics.io.roles import proposed_segments
        from metrics.io.text_safety import visible_frame
        from metrics.schema import NULL_WORDS, QUERY

        nulls = pa.array(NULL_WORDS, pa.string())
        parts = []
        for delimiter, held, tables in self.runs:
            if not tables:
                continue
            merged = pa.concat_tables(tables)
            aggregates = [(f"{c}_{f}", f) for c in held for f in ("min", "max")]
            merged = merged.group_by("q", use_threads=False).aggregate(aggregates)
            merged = merged.filter(arrow_calls.compute.is_valid(merged.column("q")))
            part = {QUERY: merged.column("q").to_pandas()}
            for column in held:
                low = merged.column(f"{column}_min_min")
                if not arrow_calls.compute.all(
                    arrow_calls.compute.equal(low, merged.column(f"{column}_max_max"))
                ).as_py():
                    raise self._refused(f"--by {column} varies within a query")
                typed = _typed_column(column, low, nulls, delimiter)
                if typed.null_count:
                    raise self._refused(f"--by {column} has a missing value")
                part[column] = typed.to_pandas()
            frame = pd.DataFrame(part)
            proposed = proposed_segments(frame)
            parts.append(frame[[QUERY, *(c for c in held if c in proposed)]])
        if not parts or any(all(c not in p.columns for p in parts) for c in self.columns):
            raise self._refused("--by names a column that is no segment column of the runs")
        run = pd.concat(parts, ignore_index=True)  # a run without a column: its queries empty
        first = run.groupby(QUERY, sort=False, as_index=False)[list(self.columns)].first()
        segments = visible_frame(first.reset_index(drop=True))
        assert segments is not None
        return segments


def _graded(
    words: LabelWords | None,
    stream: TableStream,
    columns: list[str],
    text: list[str],
    label: str | None,
    numbers: Sequence[str] = (),
) -> Iterator[pa.RecordBatch]:
    """The batches of ``columns`` of ``stream`` (those of ``text`` as text, those of
    ``numbers`` read as numbers where the format can), the ``label`` column read as grades
    when label words are read by a mapping (``words``: read as text)."""
    if words is None or label is None:
        return stream.batches(columns, text, numbers)
    numbers = [c for c in numbers if c != label]
    return words.graded(stream.batches(columns, [*text, label], numbers), label, stream.name)


def _trec_judgments(qrels_path: str | None, run_paths: list[str]) -> TrecColumns | None:
    """The judgments when they are a TREC file (``None`` otherwise), once every file is checked
    as the whole reading checks it (a NUL byte in the judgments is reported first)."""
    if qrels_path is not None:
        check_file(qrels_path, scan=False)  # the chunked reader refuses NUL bytes (then: whole)
    try:
        for path in run_paths:
            check_file(path, scan=False)
    except InputError:
        if qrels_path is not None:
            check_file(qrels_path)
        raise
    if qrels_path is None:
        return None
    qrels = read_judgments(qrels_path)
    if qrels is None:  # not plain: read whole, once checked for NUL bytes
        check_file(qrels_path)
        qrels = read_trec(qrels_path)
    return qrels


def _worded(
    read: TableBlocks, settings: Settings, judgments_file: bool = True
) -> tuple[list[str], dict[str, BlockResult]]:
    """The warnings of a block reading, as the TREC reading words them: the judgments' labels
    and repeats (once, from a judgments file), then per run what its ranking noted and scores
    that go with its ranks the other way; and the values per model."""
    source, warnings = read.judgments_source, list(read.label_warnings)
    for n, (model, (found, name)) in enumerate(read.models.items()):
        if n == 0 and judgments_file:  # the judgments' repeats, noted once
            warnings += judgments_warnings(found.notes, source)
        warnings += notes_warnings(found.notes, name, settings)
        if found.ranks is not None:  # scores that go with the ranks the other way
            warnings += [
                f"{name}: {d.message}" for d in rank_disagreements({model: found.ranks}, settings)
            ]
    return warnings, {model: found for model, (found, _) in read.models.items()}


def whole_reading_refusal(
    paths: list[str], reason: str, fix: str | None = None, *, trec_as_tables: bool = False
) -> InputError | None:
    """The refusal of tables that cannot be read block by block (``reason``) and whose text
    (:func:`table_text_size`) passes :func:`whole_table_bytes`, before they are read; ``None``
    when they are read whole. TREC files are left out: read whole by their own reader, they
    hold about three times their text; with ``trec_as_tables`` (an option whose reading takes
    every file as a table, TREC files too) they are counted as tables. ``fix``: how to have
    them read block by block (by default: name the columns, keep each query's rows together,
    write numbers as numbers)."""
    total, limit = _text_size(paths, trec_as_tables), whole_table_bytes()
    if total <= limit:
        return None
    names = ", ".join(Path(p).name for p in paths if table_text_size(p, trec=trec_as_tables))
    return InputError(
        f"{_size_text(total)} of table text cannot be read block by block ({reason}); read "
        f"whole it would take about {_size_text(12 * total)} of memory, past the limit of "
        f"{_size_text(limit)} of text for tables read whole.",
        source=names,
        code="table_too_large_whole",
        params={"size": _size_text(total), "reason": reason, "limit": _size_text(limit)},
        fix=f"{fix or _IN_BLOCKS}; or split them; or allow more with the environment variable "
        f"{WHOLE_MB_VARIABLE} (megabytes).",
    )


#: How tables are read block by block (the fix of :func:`whole_reading_refusal`).
_IN_BLOCKS = (
    "Name the columns query, item, score (or rank) and label (and model, for several models), "
    "keep each query's rows together (sorted by query) and write numbers as numbers, and the "
    "tables are read block by block"
)


@dataclass(frozen=True)
class KeptWhole:
    """An option that has its inputs read whole: why (the refusal's reason, naming the option)
    and how to have them read block by block instead (its fix)."""

    reason: str
    fix: str


#: ``--label-source`` / ``--label-column``: every label source is read whole.
LABEL_SOURCES_WHOLE = KeptWhole(
    "--label-source and --label-column read every label source whole",
    "Give the judgments of one label source as a file of their own (labels as numbers), "
    "without --label-source and --label-column, and the tables are read block by block",
)
#: ``compare --against``: the saved version and the runs are read whole together.
AGAINST_WHOLE = KeptWhole(
    "--against reads the runs whole beside the saved version",
    "Compare the run files themselves (QRELS BASELINE_RUN RUN), and the tables are read "
    "block by block",
)
#: ``compare --by`` without ``--queries``: the segment columns are taken from the runs read whole.
SEGMENTS_IN_RUNS_WHOLE = KeptWhole(
    "--by takes its segment columns from the runs, read whole",
    "Give the segment columns in a query table (a query column and one column per segment) "
    "with --queries, and the runs are read block by block",
)
#: Runs whose models only the whole reading names (two runs of one name).
MODEL_NAMES_WHOLE = KeptWhole(
    "two runs have the same model name, told apart by their files on the whole reading",
    "Give each run a name of its own (its file name, or its TREC tag), and the tables are "
    "read block by block",
)


def refuse_whole_reading(paths: Sequence[str | None], kept: KeptWhole) -> None:
    """Refuse the files ``paths`` (``None``: no file) that an option has read whole, when they
    are past the limit (:func:`whole_reading_refusal`), before anything is read; each is checked
    first as the whole reading checks it (a missing file is named as such).

    Raises
    ------
    InputError
        For a file that is not a readable regular file, and for the refusal.
    """
    given = [p for p in paths if p]
    for path in given:
        check_file(path, scan=False)
    refusal = whole_reading_refusal(given, kept.reason, kept.fix, trec_as_tables=True)
    if refusal is not None:
        raise refusal


def _text_size(paths: list[str], trec: bool = False) -> int:
    """The text of the tables among ``paths`` (:func:`table_text_size`; TREC files left out
    unless ``trec``)."""
    return sum(table_text_size(path, trec=trec) or 0 for path in paths)


#: Rows of a Parquet row group whose text stands for its rows' (:func:`table_text_size`).
_SIZE_SAMPLE_ROWS = 8_192


def table_text_size(path: str, *, trec: bool = False) -> int | None:
    """About how many bytes of text a table file holds (decompressed; for Parquet and Excel,
    as CSV: from the first rows of its row groups, and from the size of the sheets' XML);
    ``None`` for a TREC file, or its text with ``trec``.

    Raises
    ------
    BrokenGzip
        For a gzip file that breaks off in the first rows it looks at.
    """
    with open(path, "rb") as handle:
        head = handle.read(4)
        size = os.fstat(handle.fileno()).st_size
        if head[:2] == b"\x1f\x8b" and size >= 4:
            handle.seek(-4, os.SEEK_END)
            size = max(size, int.from_bytes(handle.read(4), "little"))  # gzip's size field
    if head == b"PAR1":  # as CSV: the text of the first rows of the first and last row groups
        import pyarrow.parquet as pq  # deferred: pyarrow.parquet, for Parquet files only

        # deferred: tables are read with pyarrow.csv (TREC files without)
        from metrics.io.formats import text_size

        parquet = pq.ParquetFile(path)
        rows = parquet.metadata.num_rows
        groups = sorted({0, parquet.num_row_groups - 1}) if rows else []
        read = [
            next(parquet.iter_batches(_SIZE_SAMPLE_ROWS, [g], use_threads=False), None)
            for g in groups
        ]
        sample = [batch for batch in read if batch is not None and batch.num_rows]
        if not sample:
            return 0
        text = sum(text_size(batch) for batch in sample)
        return int(text * rows // sum(batch.num_rows for batch in sample))
    if head == b"PK\x03\x04":
        with zipfile.ZipFile(path) as book:  # a sheet's XML holds about 6 times its text
            return sum(i.file_size for i in book.infolist() if "worksheets" in i.filename) // 6
    try:
        with open_gzip(path) if head[:2] == b"\x1f\x8b" else open(path, "rb") as handle:
            lines = sample_lines(handle.read(1 << 16))
    except GZIP_ERRORS as exc:
        raise broken_gzip(Path(path).name, "path", exc) from None
    return None if not trec and lines is not None and detect_trec(lines) is not None else size
