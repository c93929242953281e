"""TREC runs evaluated in blocks of queries: one chunk of the run in memory at a time.

:func:`evaluate_blocks` reads each run in chunks of whole lines
(:func:`metrics.io.trec.plain_chunks`). The queries of a chunk (all but its last, which may go on
in the next chunk and is carried over) are ranked with their judgments and scored, and only
their per-query values are kept, written straight into one table in evaluation order. Memory
holds the judgments, one chunk of the run ranked and the table of values, instead of the whole
run ranked: at 10 million lines that is a third of the memory, and the numbers are the same,
since each query's values depend only on its own rows.

Input this path does not handle gives ``None``, and the command line reads the files whole as
before (the same numbers and messages, more memory): a run that is not plain TREC, a query
whose rows are in two places of the run, an item twice in a query, micro averaging, or any
error (which the whole reading then reports, with its line).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa

from metrics.cli.output import arrow_strings
from metrics.engine import arrow_calls
from metrics.engine.ranking import (
    RankedLists,
    RankingNotes,
    _numpy_of,
    arrow_numbers,
    group_rows,
    rank_lists,
    runs_of,
)
from metrics.engine.registry import MeasureSpec
from metrics.engine.results import compute_matrix
from metrics.engine.settings import Settings
from metrics.errors import MetricsError
from metrics.io.direction import RankAgreement, run_direction_counts
from metrics.io.findings import MAX_EXAMPLES
from metrics.io.trec import CHUNK_BYTES, TrecColumns, plain_chunks


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
        codes = _numpy_of(arrow_calls.dictionary_encode(heads).indices)
        if len(codes) and np.bincount(codes).max() > 1:  # a query in two places: group them
            order = _numpy_of(arrow_calls.sort_indices(query)).astype(np.int64)
            query = arrow_calls.take(query, arrow_numbers(order))
            item = arrow_calls.take(item, arrow_numbers(order))
            value = value[order]
            starts, heads = runs_of(query)
        self.query, self.item, self.value = query, item, value
        self.heads, self.starts = heads, starts
        self.lengths = np.diff(np.append(starts, len(query)))
        by_bytes = _numpy_of(arrow_calls.sort_indices(heads)).astype(np.int64)
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
        for block, heads, starts in _query_blocks(run_path, chunk_bytes):
            ids = heads.to_pylist()
            if seen_ids.intersection(ids) or len(set(ids)) < len(ids):
                raise _Whole  # a query's rows are in more than one place
            seen_ids.update(ids)
            at = arrow_calls.index_in(heads, judged.heads)
            at = at[at >= 0]
            seen[at] = True
            jq, ji, jrel = judged.of(at)
            lists = rank_lists(
                block.query, block.item, block.value, jq, ji, jrel, ranking, run_rank=block.rank
            )
            values.add(lists, specs, at)
            notes.append(lists.notes)
            if block.rank is not None and len(block.value):
                found = run_direction_counts(starts, block.rank, block.value)
                ascending += found.ascending
                descending += found.descending
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
    return BlockResult(judged.ids[values.written], values.kept(), merged, ranks)


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
    run_path: str, chunk_bytes: int
) -> Iterator[tuple[TrecColumns, pa.Array, np.ndarray]]:
    """The run's rows in blocks of whole queries, with the query of each run of rows and the
    row where each run starts: each chunk's rows, its last query carried over to the next chunk
    (where it may go on)."""
    carried: TrecColumns | None = None
    heads = arrow_strings([])
    for chunk in plain_chunks(run_path, "run", chunk_bytes):
        if chunk is None:
            raise _Whole
        if carried is not None:
            chunk = _joined(carried, chunk)
        query = chunk.query.combine_chunks()
        chunk = replace(chunk, query=pa.chunked_array([query]))
        starts, heads = runs_of(query)
        last = int(starts[-1]) if len(starts) else 0
        if last:
            yield _rows(chunk, 0, last), heads.slice(0, len(heads) - 1), starts[:-1]
        carried = _rows(chunk, last, len(chunk))
        heads = heads.slice(len(heads) - 1)
    if carried is not None and len(carried):
        yield carried, heads, np.zeros(1, dtype=np.int64)


def _rows(columns: TrecColumns, start: int, stop: int) -> TrecColumns:
    rank = columns.rank[start:stop] if columns.rank is not None else None
    return TrecColumns(
        columns.kind,
        columns.query.slice(start, stop - start),
        columns.item.slice(start, stop - start),
        columns.value[start:stop],
        rank,
    )


def _joined(first: TrecColumns, then: TrecColumns) -> TrecColumns:
    rank = (
        np.concatenate((first.rank, then.rank))
        if first.rank is not None and then.rank is not None
        else None
    )
    return TrecColumns(
        first.kind,
        pa.chunked_array(first.query.chunks + then.query.chunks, type=pa.string()),
        pa.chunked_array(first.item.chunks + then.item.chunks, type=pa.string()),
        np.concatenate((first.value, then.value)),
        rank,
    )


class _Values:
    """The per-query values of every judged query that is evaluated, one row per judged query
    in ascending byte order of the ids, column by column."""

    def __init__(self, judged: Judgments, n_columns: int) -> None:
        self.judged = judged
        self.n_columns = n_columns
        self.table: np.ndarray | None = None
        self.written = np.zeros(len(judged.ids), dtype=bool)

    def add(self, lists: RankedLists, specs: list[MeasureSpec], judged: np.ndarray) -> None:
        """The rows of the values of ``specs`` for the evaluated queries of ``lists``, ranked
        with the judged queries ``judged`` (positions in the judgments' query ids)."""
        ids = lists.query_ids
        if not len(ids):
            return
        if self.table is None and len(ids) == len(self.judged.ids):
            # every judged query, in the same order: the whole table
            self.table = compute_matrix(lists, specs)
            self.written[:] = True
            return
        if self.table is None:
            self.table = np.empty((len(self.judged.ids), self.n_columns), order="F")
        if len(ids) == len(judged):  # all evaluated: their rows in ascending byte order
            rows = np.sort(self.judged.row[judged])
        else:
            found = arrow_calls.index_in(arrow_strings(ids.tolist()), self.judged.heads)
            rows = self.judged.row[found]
        if len(rows) and rows[-1] - rows[0] + 1 == len(rows) and (np.diff(rows) == 1).all():
            # consecutive rows (the usual case: a sorted run): the values are written straight
            # into that slice of the table
            compute_matrix(lists, specs, out=self.table[rows[0] : rows[-1] + 1])
            self.written[rows[0] : rows[-1] + 1] = True
            return
        self.table[rows] = compute_matrix(lists, specs)
        self.written[rows] = True

    def kept(self) -> np.ndarray:
        """The table of the rows written, moved up in place (no second table)."""
        table, keep = self.table, self.written
        assert table is not None
        n, m = len(keep), int(keep.sum())
        if m == n:
            return table
        flat = table.reshape(-1, order="F")
        for j in range(table.shape[1]):
            flat[j * m : (j + 1) * m] = flat[j * n : (j + 1) * n][keep]
        kept: np.ndarray = flat[: m * table.shape[1]].reshape((m, table.shape[1]), order="F")
        return kept


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
