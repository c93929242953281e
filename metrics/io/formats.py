"""Reading one table from bytes or a path: compression, format, encoding, delimiter and header.

Supported layouts, detected from the content (the file name is only a hint):

- delimited text: comma, tab, semicolon, pipe, or runs of whitespace; with or without a header;
- TREC runs ``qid Q0 docid rank score tag`` and TREC qrels ``qid iter docid rel``, detected and
  read by :mod:`metrics.io.trec` as trec_eval reads them;
- Parquet (read with pyarrow), Excel ``.xlsx`` (read by :mod:`metrics.io.workbook`, first sheet);
- JSON Lines, a JSON array of records, and the ``{query: {item: value}}`` dictionary layout of
  pytrec_eval and ranx;
- any of the above gzip-compressed.

Nothing read is ever evaluated or unpickled. Every failure is an :class:`~metrics.errors.InputError`
naming the file, the line when known, and the fix.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from metrics.engine import arrow_calls
from metrics.engine.arrow_calls import compute as pc
from metrics.engine.ids import arrow_numbers, arrow_strings, numpy_of, valid_of, value_offsets
from metrics.engine.lazy import LazyModule
from metrics.errors import InputError, file_line
from metrics.io.names import ID_NAMES, KNOWN_NAMES
from metrics.io.source import (
    HEAD_BYTES,
    MAX_BYTES,
    UploadLimits,
    check_values_size,
    excel_formulas_without_values,
    read_input,
    refuse_unread_format,
    rows_over_limit,
    unify_line_ends,
)
from metrics.io.trec import TrecKind, detect_trec, parse_trec
from metrics.io.workbook import Piece, block_part, open_workbook
from metrics.schema import (
    ITEM,
    MODEL,
    NONE_GRADE,
    NULL_WORDS,
    QUERY,
    RANK,
    RELEVANCE,
    SCORE,
    normalize_name,
)

if TYPE_CHECKING:
    import pandas as pd
else:  # imported on first use: the command line reads tables in blocks without it
    pd = LazyModule("pandas")

Kind = Literal["run", "qrels", "table"]

SUPPORTED = (
    "CSV, TSV, semicolon- or pipe-delimited text, Parquet, JSON Lines, Excel (.xlsx), "
    "TREC run or qrels files, or {query: {item: score}} JSON, optionally gzip-compressed"
)


_NUMBER = re.compile(
    r"^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|nan)$", re.IGNORECASE
)
_EXTENSIONS = (
    ".gz",
    ".gzip",
    ".csv",
    ".tsv",
    ".tab",
    ".txt",
    ".psv",
    ".dat",
    ".run",
    ".qrels",
    ".qrel",
    ".trec",
    ".parquet",
    ".pq",
    ".jsonl",
    ".ndjson",
    ".json",
    ".xlsx",
)


@dataclass
class LoadedTable:
    """A table read from one file, before column roles are applied.

    Attributes
    ----------
    name:
        File name (used in messages and, without its extensions, as a model name).
    frame:
        The table. Text columns have the ``str`` dtype; identifier-like columns are never
        converted to numbers.
    format:
        ``"csv"``, ``"tsv"``, ``"semicolon"``, ``"pipe"``, ``"whitespace"``, ``"trec_run"``,
        ``"trec_qrels"``, ``"parquet"``, ``"excel"``, ``"jsonl"``, ``"json_records"`` or
        ``"json_dict"``.
    kind:
        ``"run"`` or ``"qrels"`` when the layout says so (TREC, dictionary JSON), else ``"table"``.
    compressed:
        Whether the bytes were gzip-compressed.
    encoding:
        Text encoding used (``None`` for binary formats).
    header:
        Whether the first line was a header.
    first_line:
        Line (or spreadsheet row) number of the first data row, for messages; ``None`` when
        rows have no line numbers (Parquet, dictionary JSON).
    skipped_lines:
        Ascending line numbers at or after ``first_line`` that hold no row (blank lines), so
        that :meth:`line_of` counts every physical line.
    notes:
        Plain-English remarks on what was detected.
    reading:
        What was read differently from a plain file, as ``(code, parameters)`` pairs (TREC
        files: text after the last field, comment lines), for the data health findings.
    none_cells:
        Per column read as numbers, the rows (0-based) that held the word ``none``, read as
        missing: should the column turn out to hold labels, ``none`` is a grade there.
    """

    name: str
    frame: pd.DataFrame
    format: str
    kind: Kind = "table"
    compressed: bool = False
    encoding: str | None = None
    header: bool = True
    first_line: int | None = 2
    notes: tuple[str, ...] = ()
    skipped_lines: tuple[int, ...] = ()
    reading: tuple[tuple[str, dict[str, object]], ...] = ()
    none_cells: Mapping[str, np.ndarray] = field(default_factory=dict)

    @property
    def stem(self) -> str:
        """The file name without directories and known extensions (``"bm25.run.gz"`` →
        ``"bm25"``)."""
        return file_stem(self.name)

    def line_of(self, position: int) -> int | None:
        """File line of the data row at 0-based ``position`` (``None`` if rows have no lines)."""
        return file_line(self.first_line, position, self.skipped_lines)


def file_stem(name: str) -> str:
    """Strip directories and known extensions from a file name.

    Parameters
    ----------
    name:
        A file name or path.

    Returns
    -------
    str
        The stem, or the name itself when nothing is left.
    """
    base = Path(str(name)).name
    stem = base
    changed = True
    while changed:
        changed = False
        for ext in _EXTENSIONS:
            if stem.lower().endswith(ext) and len(stem) > len(ext):
                stem = stem[: -len(ext)]
                changed = True
    return stem or base


def load_table(
    data: bytes | str | Path,
    name: str | None = None,
    *,
    kind: Kind | None = None,
    budget: int = MAX_BYTES,
    limits: UploadLimits | None = None,
) -> LoadedTable:
    """Read a table from bytes or a file path, detecting its format from the content.

    Parameters
    ----------
    data:
        The file's bytes, or a path (``str`` or :class:`~pathlib.Path`) to read.
    name:
        File name for messages and model naming; defaults to the path's name.
    kind:
        Force ``"run"`` or ``"qrels"`` for layouts that cannot tell (dictionary JSON).
    budget:
        Largest (decompressed) size read.
    limits:
        The app's limits on one upload (:func:`~metrics.io.source.upload_limits`), refused
        while the file is decompressed (see :func:`~metrics.io.source.read_input`).

    Returns
    -------
    LoadedTable

    Raises
    ------
    InputError
        When the bytes are not a readable table; the message names the line when known.
    """
    loaded = read_input(data, name, budget=budget, limits=limits)
    source, compressed = loaded.name, loaded.compressed
    held = _Held(loaded.data)
    del loaded  # the readers let the text go once it is parsed
    table = _dispatch(held, source, kind, limits)
    table.compressed = compressed
    if compressed:
        table.notes = ("gzip-compressed",) + table.notes
    return table


def load_head(head: bytes, name: str) -> LoadedTable | TextColumns:
    """The first rows of a file (``head``: whole lines of its text, decompressed) read as
    :func:`load_table` reads them, but delimited text and JSON Lines as their typed arrow
    columns: their roles are guessed without pandas
    (:meth:`~metrics.io.evidence.Table.of_arrow`).

    Raises
    ------
    InputError
        As :func:`load_table`.
    """
    loaded = read_input(head, name)
    return _dispatch(_Held(loaded.data), loaded.name, None, text_columns=True)


class _Held:
    """The bytes being read, held in one place so that a reader can let them go once it has
    parsed them (a table's columns are built while the text is no longer needed)."""

    def __init__(self, data: bytes | bytearray) -> None:
        self.data: bytes | bytearray = data

    def release(self) -> None:
        self.data = b""


_ONLY_SPACE = re.compile(rb"[\s]*\Z")
_LEADING_SPACE = re.compile(rb"\s*")


@overload
def _dispatch(
    held: _Held, source: str, kind: Kind | None, limits: UploadLimits | None = None
) -> LoadedTable: ...


@overload
def _dispatch(
    held: _Held,
    source: str,
    kind: Kind | None,
    limits: UploadLimits | None = None,
    *,
    text_columns: bool,
) -> LoadedTable | TextColumns: ...


def _dispatch(
    held: _Held,
    source: str,
    kind: Kind | None,
    limits: UploadLimits | None = None,
    *,
    text_columns: bool = False,
) -> LoadedTable | TextColumns:
    """The table in ``held``'s bytes, of the format they hold; delimited text as its columns
    (:class:`TextColumns`) with ``text_columns``."""
    raw = held.data
    if _ONLY_SPACE.match(raw):
        raise InputError(
            "The file is empty.",
            source=source,
            fix="Choose a file with a header row and at least one data row.",
            code="empty_file",
        )
    if raw[:4] == b"PAR1":
        return _read_parquet(bytes(raw), source, limits)
    if raw[:4] == b"PK\x03\x04":
        return _read_excel(bytes(raw), source, limits)
    refuse_unread_format(bytes(raw[:HEAD_BYTES]), source)
    encoding, utf8 = _decode(raw, source)
    held.data = utf8  # the input itself is let go where the UTF-8 text is a copy of it
    del raw
    unified = unify_line_ends(utf8)
    if unified is not utf8:
        held.data = utf8 = bytes(unified)
    del unified
    start = _LEADING_SPACE.match(utf8).end()  # type: ignore[union-attr]
    if utf8[start : start + 1] in (b"{", b"["):
        text = bytes(utf8).decode("utf-8")
        held.release()
        del utf8
        read = _read_json(text, source, kind, text_columns=text_columns)
        if isinstance(read, TextColumns):
            return read
        table = read
    else:
        del utf8
        found = _text_columns(held, source) if text_columns else _read_text(held, source)
        if isinstance(found, TextColumns):
            return found
        table = found
    table.encoding = encoding
    return table


#: Bytes decoded at a time when checking that a text is UTF-8 (nothing decoded is kept).
_DECODE_STEP = 1 << 20


def _is_utf8(data: bytes | bytearray) -> bool:
    """Whether ``data`` is valid UTF-8, checked in steps without keeping the decoded text."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for start in range(0, len(view), _DECODE_STEP):
            decoder.decode(view[start : start + _DECODE_STEP])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _decode(raw: bytes | bytearray, source: str) -> tuple[str, bytes | bytearray]:
    """The encoding, and the text as UTF-8 bytes without a byte-order mark for the fast
    parsers: the input itself when it is UTF-8 without a mark, else a copy."""
    utf8: bytes | bytearray
    if raw[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        try:
            text = bytes(raw).decode("utf-16")
        except UnicodeDecodeError:
            raise InputError(
                "The file has a UTF-16 byte-order mark but is not valid UTF-16.",
                source=source,
                fix="Save it as UTF-8.",
                code="utf16_invalid",
            ) from None
        encoding, utf8 = "utf-16", text.encode("utf-8")
    else:
        bom = raw[:3] == codecs.BOM_UTF8
        body = bytes(raw[3:]) if bom else raw  # a copy: the readers search it as bytes
        encoding = "utf-8-sig" if bom else "utf-8"
        if _is_utf8(body):
            utf8 = body
        else:
            encoding, utf8 = "latin-1", bytes(body).decode("latin-1").encode("utf-8")
    if b"\x00" in bytes(utf8[:65536]):
        raise InputError(
            "The file looks binary (it contains NUL bytes), not a text table.",
            source=source,
            fix=f"Use {SUPPORTED}.",
            code="binary",
        )
    return encoding, utf8


# --------------------------------------------------------------------------- binary formats


def _read_parquet(raw: bytes, source: str, limits: UploadLimits | None = None) -> LoadedTable:
    """A Parquet file, read one row group at a time: within ``limits``, its rows are counted
    from its metadata before anything else is read, and the text its values make is counted
    as each row group is read."""
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(pa.BufferReader(raw))
        rows = parquet.metadata.num_rows
        if limits is not None and rows > limits.rows:
            raise rows_over_limit(
                source,
                limits,
                rows,
                "upload_rows_parquet",
                "The Parquet file has {n} rows (its metadata says so), more than the upload "
                "limit of {limit}; nothing else was read.",
            )
        groups, size, read = [], 0, 0
        for group in range(parquet.num_row_groups):
            groups.append(parquet.read_row_group(group))
            if limits is not None:
                size += text_size(groups[-1])
                read += groups[-1].num_rows
                check_values_size(source, limits, size, read)
        table = pa.concat_tables(groups) if groups else parquet.schema_arrow.empty_table()
        del groups
        frame = _arrow_to_pandas(table)
    except InputError:
        raise
    except (pa.ArrowException, OSError, ValueError, TypeError, KeyError) as exc:
        raise InputError(
            f"The Parquet file cannot be read ({_short(exc)}).",
            source=source,
            fix="Write it again with pyarrow or pandas, or export CSV.",
            code="parquet_unreadable",
            params={"detail": _short(exc)},
        ) from None
    return LoadedTable(source, frame, "parquet", first_line=None, encoding=None)


#: Characters a number is counted as in :func:`text_size` (a score such as ``0.123456``).
_NUMBER_CHARACTERS = 8


def text_size(table: pa.Table | pa.RecordBatch) -> int:
    """About how many bytes ``table``'s values take written as CSV: the bytes of its text
    cells, :data:`_NUMBER_CHARACTERS` per other cell, and a separator per cell (what the
    upload limit on bytes counts for Parquet and Excel)."""
    size: int = table.num_rows * table.num_columns
    for column in table.columns:
        chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
        for chunk in chunks:
            if pa.types.is_dictionary(chunk.type):
                chunk = chunk.dictionary_decode()
            if pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type):
                size += _text_bytes(chunk)
            else:
                size += _NUMBER_CHARACTERS * len(chunk)
    return size


def _text_bytes(chunk: pa.Array) -> int:
    """The bytes of a string array's values (nulls hold none), from its offsets."""
    if not len(chunk):
        return 0
    lengths = np.diff(value_offsets(chunk))
    return int(lengths[valid_of(chunk)].sum()) if chunk.null_count else int(lengths.sum())


def _arrow_to_pandas(table: pa.Table) -> pd.DataFrame:
    ready = _pandas_ready(table)
    frame = ready.to_pandas() if ready.num_columns else pd.DataFrame()
    frame.columns = _unique_names([str(c) for c in frame.columns])
    return frame


def _pandas_ready(table: pa.Table) -> pa.Table:
    """``table``'s columns as a frame holds them: dictionaries decoded, nested and binary values
    as their text, dates and times as text, decimals as floats."""
    columns = {}
    for name, col in zip(table.column_names, table.columns):
        t = col.type
        if pa.types.is_dictionary(t):
            col = col.cast(t.value_type)
            t = col.type
        if pa.types.is_nested(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
            col = pa.chunked_array(
                [pa.array([None if v is None else str(v) for v in col.to_pylist()], pa.string())]
            )
        elif pa.types.is_large_string(t):
            col = col.cast(pa.string())
        elif pa.types.is_temporal(t) or pa.types.is_decimal(t):
            col = col.cast(pa.string()) if not pa.types.is_decimal(t) else col.cast(pa.float64())
        columns[str(name)] = col
    return pa.Table.from_arrays(list(columns.values()), names=list(columns))


def _read_excel(raw: bytes, source: str, limits: UploadLimits | None = None) -> LoadedTable:
    """The first sheet that holds a table, streamed: its rows are read one at a time and
    kept as compact columns; within ``limits``, its data rows and the text its values make
    are counted as they are read (and a sheet whose stated size passes the rows limit beyond
    what Excel itself writes is refused before any is read)."""
    with _excel_errors(source):
        book = open_workbook(raw)
    try:
        with _excel_errors(source):
            sheet = _table_sheet(book.worksheets)
        if not sheet.head:
            raise InputError(
                f"The first sheet ('{sheet.title}') is empty.",
                source=source,
                fix="Put the table in the first sheet, starting with a header row.",
                code="excel_empty",
                params={"sheet": sheet.title},
            )
        layout = _sheet_layout(sheet)
        _stated_rows(sheet, layout, source, limits)
        columns = _ExcelColumns(layout.width)
        with _excel_errors(source):
            for rows in _sheet_chunks(sheet.sheet, layout.header, _SHEET_CHUNK):
                columns.add(rows)
                if limits is not None:
                    if columns.rows > limits.rows:
                        raise rows_over_limit(
                            source,
                            limits,
                            columns.rows,
                            "upload_rows_read",
                            "The sheet '{sheet}' has more rows than the upload limit of "
                            "{limit}: {n} rows read so far.",
                            sheet=sheet.title,
                        )
                    check_values_size(source, limits, columns.size, columns.rows)
    finally:
        book.close()
    frame = _drop_empty_unnamed(columns.frame(layout.names))
    notes = _sheet_notes(sheet)
    if columns.gaps:
        uncached = excel_formulas_without_values(raw)
        if uncached:
            notes += (f"{uncached:,} cells hold a formula without a saved value and read as empty",)
    return LoadedTable(
        source,
        frame,
        "excel",
        header=layout.header,
        first_line=2 if layout.header else 1,
        notes=notes,
    )


@contextmanager
def _excel_errors(source: str) -> Iterator[None]:
    """Broken workbooks (their readers raise many unrelated types on them) as one input
    error."""
    try:
        yield
    except InputError:
        raise
    except Exception as exc:
        raise InputError(
            f"The file is a zip archive but not a readable Excel workbook ({_short(exc)}).",
            source=source,
            fix="Save it from Excel as .xlsx, or export CSV.",
            code="excel_unreadable",
            params={"detail": _short(exc)},
        ) from None


@dataclass
class _Sheet:
    """The sheet a workbook's table is read from: its title, place and the workbook's number
    of sheets, the sheet itself and its first filled rows (enough to tell its layout)."""

    title: str
    position: int
    sheets: int
    sheet: Any
    head: list[tuple[Any, ...]]


@dataclass(frozen=True)
class _Layout:
    """How a sheet's rows read: their width, whether the first is a header, column names."""

    width: int
    header: bool
    names: list[str]


#: Filled rows looked at to choose a sheet and to tell its layout.
_HEAD_ROWS = 50
#: Rows of a sheet turned into compact columns at a time.
_SHEET_CHUNK = 65_536
#: The most rows Excel writes in a sheet: a workbook stating more was written by a program.
_EXCEL_MAX_ROWS = 1_048_576


def _filled_rows(sheet: Any) -> Iterator[tuple[Any, ...]]:
    """A worksheet's rows that hold at least one value, one at a time."""
    for row in sheet.iter_rows(values_only=True):
        if _filled(row):
            yield tuple(row)


def _filled(row: tuple[Any, ...]) -> bool:
    """Whether a row holds a value (white space is none)."""
    return any(v is not None and str(v).strip() != "" for v in row)


def _head_rows(sheet: Any) -> list[tuple[Any, ...]]:
    return list(islice(_filled_rows(sheet), _HEAD_ROWS))


def _looks_like_table(rows: list[tuple[Any, ...]]) -> bool:
    """Two rows or more, most of them with three values or more (query, item, score)."""
    widths = [sum(v is not None and str(v).strip() != "" for v in r) for r in rows[:50]]
    return len(widths) >= 2 and sum(w >= 3 for w in widths) * 2 > len(widths)


def _table_sheet(worksheets: list[Any]) -> _Sheet:
    """The first visible sheet that looks like a table, from its first rows; the first sheet
    when none does."""
    first = worksheets[0]
    head = _head_rows(first)
    if _looks_like_table(head):
        return _Sheet(first.title, 0, len(worksheets), first, head)
    for position, sheet in enumerate(worksheets[1:], start=1):
        if getattr(sheet, "sheet_state", "visible") != "visible":
            continue
        candidate = _head_rows(sheet)
        if _looks_like_table(candidate):
            return _Sheet(sheet.title, position, len(worksheets), sheet, candidate)
    return _Sheet(first.title, 0, len(worksheets), first, head)


def _sheet_layout(sheet: _Sheet) -> _Layout:
    width = max(len(r) for r in sheet.head)
    text_rows = [[_cell_text(v) for v in r] + [""] * (width - len(r)) for r in sheet.head]
    header = _looks_like_header(text_rows)
    return _Layout(width, header, _column_names(text_rows[0], header, width))


def _stated_rows(sheet: _Sheet, layout: _Layout, source: str, limits: UploadLimits | None) -> None:
    """Refuse, before its rows are read, a sheet whose stated size passes the limit on rows
    and what Excel writes (only a program writes more rows than Excel, and then the rows it
    filled; a size Excel states may count rows that are only formatted)."""
    stated = getattr(sheet.sheet, "max_row", None)
    if limits is None or not isinstance(stated, int) or stated <= _EXCEL_MAX_ROWS:
        return
    rows = stated - int(layout.header)
    if rows > limits.rows:
        raise rows_over_limit(
            source,
            limits,
            rows,
            "upload_rows_sheet",
            "The sheet '{sheet}' has {n} rows (the workbook says so), more than the upload "
            "limit of {limit}; nothing else was read.",
            sheet=sheet.title,
        )


def _sheet_chunks(sheet: Any, header: bool, size: int, by_rows: bool = False) -> Iterator[_Chunk]:
    """The filled rows of a worksheet (the first left out when it is a ``header``), in chunks
    of ``size``: the rows calamine read kept as its columns where every row of a piece holds a
    value (else, and ``by_rows``, row by row)."""
    if by_rows:
        rows = _filled_rows(sheet)
        if header:
            next(rows, None)
        while chunk := list(islice(rows, size)):
            yield _Chunk([chunk])
        return
    parts: list[Piece | list[tuple[Any, ...]]] = []
    count = 0
    for block in _filled_blocks(sheet, header):
        at = 0
        while at < len(block):
            taken = block_part(block, at, at + size - count)
            parts.append(taken)
            count += len(taken)
            at += len(taken)
            if count == size:
                yield _Chunk(parts)
                parts, count = [], 0
    if count:
        yield _Chunk(parts)


def _filled_blocks(sheet: Any, header: bool) -> Iterator[Piece | list[tuple[Any, ...]]]:
    """The filled rows of a worksheet (the first left out when it is a ``header``): pieces
    whose every row holds a value, and lists of rows."""
    for block in sheet.iter_blocks():
        if isinstance(block, Piece):
            while header and len(block):
                header = not _filled(block.part(0, 1).rows()[0])
                block = block.part(1, len(block))
            if not len(block):
                continue
            if _every_row_filled(block):
                yield block
                continue
            block = block.rows()
        rows = [row for row in block if _filled(row)]
        if header and rows:
            rows, header = rows[1:], False
        if rows:
            yield rows


def _every_row_filled(piece: Piece) -> bool:
    """Whether a column holds a value in every row of ``piece``: numbers, or text other than
    white space (the columns of numbers looked at first: their values need no look)."""
    texts = []
    for j in range(piece.width):
        kind, values = piece.column(j)
        if kind == "number":
            return True
        if kind == "text":
            texts.append(values)
    return any(all(map(str.strip, values)) for values in texts)


class _Chunk:
    """Filled rows of a sheet, read column by column: pieces and lists of rows."""

    def __init__(self, parts: list[Piece | list[tuple[Any, ...]]]) -> None:
        self._parts = parts
        self.rows = sum(len(part) for part in parts)
        self.width = max(
            part.width if isinstance(part, Piece) else max((len(r) for r in part), default=0)
            for part in parts
        )

    @property
    def by_rows(self) -> bool:
        """Whether some of its rows were read one by one (openpyxl's, if it read the sheet)."""
        return any(isinstance(part, list) for part in self._parts)

    def column(self, j: int) -> tuple[str, Any, bool]:
        """Column ``j`` as :func:`_excel_chunk` reads its values, and whether one is empty."""
        found: list[tuple[str, Any]] = [
            part.column(j) if isinstance(part, Piece) else ("rows", None) for part in self._parts
        ]
        kinds = {kind for kind, _ in found}
        if kinds == {"number"}:
            return "number", np.concatenate([values for _, values in found]), False
        if kinds == {"text"}:
            return (
                "text",
                arrow_strings(list(chain.from_iterable(v for _, v in found))),
                False,
            )
        if kinds == {"empty"}:
            return "empty", self.rows, self.rows > 0
        values: list[Any] = []
        for part, (kind, found_values) in zip(self._parts, found):
            if isinstance(part, list):
                values += [r[j] if j < len(r) else None for r in part]
            elif kind == "values":
                values += found_values
            else:
                values += part.values(j)
        kind, chunk = _excel_chunk(values)
        return kind, chunk, any(v is None for v in values)


def _sheet_notes(sheet: _Sheet) -> tuple[str, ...]:
    if sheet.sheets <= 1:
        return ()
    if sheet.position == 0:
        return (f"read the first of {sheet.sheets} sheets ('{sheet.title}')",)
    return (
        f"read sheet {sheet.position + 1} of {sheet.sheets} ('{sheet.title}'), the first that "
        "holds a table of three or more columns",
    )


class _ExcelColumns:
    """A sheet's values as compact columns, built chunk by chunk: each chunk of a column is
    numbers (float64, NaN where empty), true/false values, text, or empty; :meth:`frame`
    makes each column what :func:`_excel_column` makes of all its values at once."""

    def __init__(self, width: int) -> None:
        self.chunks: list[list[tuple[str, Any]]] = [[] for _ in range(width)]
        self.rows = 0
        self.size = 0
        self.gaps = False  # an empty cell within the rows

    def add(self, rows: _Chunk) -> None:
        width = max(len(self.chunks), rows.width)
        while len(self.chunks) < width:  # a row wider than the first ones: a new column
            self.chunks.append([("empty", n) for _, n in self._lengths()])
        for j in range(width):
            kind, chunk, gaps = rows.column(j)
            self.gaps = self.gaps or gaps
            self.chunks[j].append((kind, chunk))
            cells = rows.rows if kind != "text" else 0
            self.size += rows.rows + _NUMBER_CHARACTERS * cells
            if kind == "text":
                self.size += _text_bytes(chunk)
        self.rows += rows.rows

    def _lengths(self) -> list[tuple[str, int]]:
        return [(kind, _chunk_length(kind, chunk)) for kind, chunk in self.chunks[0]]

    def _names(self, names: list[str]) -> list[str]:
        """The columns' names: ``names``, then ``column_<n>`` for columns past them."""
        return names + _unique_names(
            [f"column_{j + 1}" for j in range(len(names), len(self.chunks))]
        )

    def frame(self, names: list[str]) -> pd.DataFrame:
        columns = {name: _excel_merged(self.chunks[j]) for j, name in enumerate(self._names(names))}
        return pd.DataFrame(columns, index=pd.RangeIndex(self.rows))

    def arrow(self, names: list[str]) -> pa.Table | None:
        """The columns as arrow, that ``to_pandas`` turns into :meth:`frame` (its columns of
        numbers and of text: ``None`` when a column holds true/false values, which the frame
        holds as Python objects, or two columns have one name)."""
        columns: dict[str, pa.ChunkedArray] = {}
        for j, name in enumerate(self._names(names)):
            chunks = self.chunks[j]
            kind = _merged_kind(chunks)
            if kind == "bool" or name in columns:
                return None
            columns[name] = (
                pa.chunked_array([arrow_numbers(_merged_numbers(chunks))])
                if kind == "number"
                else _merged_text(chunks)
            )
        return pa.Table.from_arrays(list(columns.values()), names=list(columns))


def _chunk_length(kind: str, chunk: Any) -> int:
    return int(chunk) if kind == "empty" else len(chunk)


def _excel_chunk(values: list[object]) -> tuple[str, Any]:
    """One chunk of a column: ``("number", float64 array)``, ``("bool", object array)``,
    ``("text", arrow strings)`` or ``("empty", its length)``, as :func:`_excel_column` reads
    the values."""
    present = [v for v in values if v is not None and v != ""]
    if not present:
        return "empty", len(values)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return "number", np.array(
            [np.nan if v is None or v == "" else v for v in values], dtype="float64"
        )
    if all(isinstance(v, bool) for v in present):
        return "bool", np.array(values, dtype=object)
    return "text", pa.array(
        [None if v is None or v == "" else _cell_text(v) for v in values], pa.string()
    )


def _excel_merged(chunks: list[tuple[str, Any]]) -> pd.Series:
    """A column of chunks as :func:`_excel_column` reads all its values at once."""
    kind = _merged_kind(chunks)
    if kind == "number":
        return pd.Series(_merged_numbers(chunks), dtype="float64")
    if kind == "bool":
        return pd.Series(
            np.concatenate(
                [np.full(c, None, dtype=object) if k == "empty" else c for k, c in chunks]
            ),
            dtype="object",
        )
    return _strings(_merged_text(chunks))


def _merged_kind(chunks: list[tuple[str, Any]]) -> str:
    """What a column of chunks holds: ``"number"`` or ``"bool"`` (and empty chunks), else
    ``"text"``."""
    kinds = {kind for kind, _ in chunks} - {"empty"}
    return kinds.pop() if kinds in ({"number"}, {"bool"}) else "text"


def _merged_numbers(chunks: list[tuple[str, Any]]) -> np.ndarray:
    """A column of chunks of numbers (``NaN`` for the empty ones)."""
    return np.concatenate(
        [np.full(c, np.nan) if k == "empty" else c for k, c in chunks] or [np.zeros(0)]
    )


def _merged_text(chunks: list[tuple[str, Any]]) -> pa.ChunkedArray:
    """A column of chunks as text."""
    return pa.chunked_array([_as_text(kind, chunk) for kind, chunk in chunks], type=pa.string())


def _as_text(kind: str, chunk: Any) -> pa.Array:
    """A chunk as the text :func:`_cell_text` writes of its values."""
    if kind == "text":
        return chunk
    if kind == "empty":
        return pa.nulls(int(chunk), pa.string())
    return pa.array(
        [None if v is None or v != v else _cell_text(v) for v in chunk.tolist()], pa.string()
    )


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if hasattr(value, "isoformat"):
        return value.isoformat()  # type: ignore[no-any-return]
    return str(value)


def _excel_column(values: list[object]) -> pd.Series:
    """A column of cell values: numbers when every value is one, true/false values when
    every value is one, else text (empty cells missing)."""
    kind, chunk = _excel_chunk(values)
    return _excel_merged([(kind, chunk)])


# --------------------------------------------------------------------------- JSON


def _read_json(
    text: str, source: str, kind: Kind | None, *, text_columns: bool = False
) -> LoadedTable | TextColumns:
    """A JSON table: JSON Lines (as :class:`TextColumns` with ``text_columns``), an array of
    records, or an object of queries."""
    stripped = text.strip()
    try:
        obj = json.loads(stripped)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data" and stripped.startswith("{"):
            return _jsonl_columns(text, source) if text_columns else _read_jsonl(text, source)
        raise InputError(
            f"Invalid JSON: {exc.msg} (column {exc.colno}).",
            source=source,
            line=exc.lineno,
            fix="Repair the JSON, or export the table as CSV.",
            code="json_invalid",
            params={"detail": exc.msg, "line": exc.lineno, "column": exc.colno},
        ) from None
    except RecursionError:
        raise InputError(
            "The JSON is nested too deeply to be a table.",
            source=source,
            fix="Use JSON Lines (one object per line) or {query: {item: score}}.",
            code="json_too_deep",
        ) from None
    if isinstance(obj, dict):
        return _json_object_table(obj, source, kind)
    if isinstance(obj, list):
        return _json_array_table(obj, source)
    raise InputError(
        "The JSON is a single value, not a table.",
        source=source,
        fix="Use JSON Lines (one object per line) or {query: {item: score}}.",
        code="json_not_table",
    )


def _json_object_table(obj: dict[str, Any], source: str, kind: Kind | None) -> LoadedTable:
    """A JSON object: ``{query: {item: score}}``, a column-oriented table
    ``{"col": [values...]}``, or one JSON Lines record."""
    if obj and all(isinstance(v, dict) for v in obj.values()):
        return _read_json_dict(obj, source, kind)
    if obj and all(isinstance(v, list) for v in obj.values()):
        lengths = {len(v) for v in obj.values()}
        if len(lengths) != 1:
            raise InputError(
                "The JSON object's lists have different lengths.",
                source=source,
                fix="Give every column the same number of values.",
                code="json_ragged_columns",
            )
        return _records_table(pd.DataFrame(obj), source, "json_records")
    return _records_table(pd.DataFrame([obj]), source, "jsonl")


def _json_array_table(obj: list[Any], source: str) -> LoadedTable:
    """A JSON array of records, one object per row."""
    if not obj:
        raise InputError(
            "The JSON array is empty.",
            source=source,
            fix='Give one object per row: [{"query": ..., "item": ...}, ...].',
            code="json_empty_array",
        )
    if not all(isinstance(r, dict) for r in obj):
        raise InputError(
            "The JSON array must hold objects (one per row).",
            source=source,
            fix='Give one object per row: [{"query": ..., "item": ...}, ...].',
            code="json_not_records",
        )
    return _records_table(pd.DataFrame.from_records(obj), source, "json_records")


def _jsonl_table(text: str) -> pa.Table:
    """JSON Lines parsed by arrow (one type per key), or an arrow or value error."""
    import pyarrow.json as pajson

    data = text.encode("utf-8")
    return pajson.read_json(
        io.BytesIO(data),
        read_options=pajson.ReadOptions(block_size=max(1 << 20, min(len(data) + 1, 1 << 26))),
    )


def _jsonl_columns(text: str, source: str) -> TextColumns | LoadedTable:
    """The first rows of JSON Lines as arrow columns, as a frame holds them (the frame
    :func:`_read_jsonl` builds of the same arrow table differs from them in nothing role
    guessing reads); what arrow does not parse, or repeated keys, as :func:`_read_jsonl` reads
    it."""
    try:
        table = _pandas_ready(_jsonl_table(text))
    except (pa.ArrowException, ValueError, TypeError):
        return _read_jsonl(text, source)
    if _unique_names(table.column_names) != table.column_names:
        return _read_jsonl(text, source)
    columns = dict(zip(table.column_names, table.columns))
    skipped = _blank_lines(text, 1, whitespace=True)
    return TextColumns(source, columns, table.num_rows, "jsonl", True, 1, (), skipped, {})


def _read_jsonl(text: str, source: str) -> LoadedTable:
    try:
        frame = _arrow_to_pandas(_jsonl_table(text))
        loaded = _records_table(frame, source, "jsonl")
    except (pa.ArrowException, ValueError, TypeError):
        loaded = None
    if loaded is not None:
        loaded.skipped_lines = _blank_lines(text, 1, whitespace=True)
        return loaded
    records = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise InputError(
                f"Invalid JSON on this line ({getattr(exc, 'msg', 'too deep')}).",
                source=source,
                line=number,
                fix="Give exactly one JSON object per line.",
                code="jsonl_invalid",
                params={"line": number, "detail": getattr(exc, "msg", "too deep")},
            ) from None
        if not isinstance(record, dict):
            raise InputError(
                "This line is not a JSON object.",
                source=source,
                line=number,
                fix="Give exactly one JSON object per line.",
                code="jsonl_not_object",
                params={"line": number},
            )
        records.append(record)
    loaded = _records_table(pd.DataFrame.from_records(records), source, "jsonl")
    loaded.skipped_lines = _blank_lines(text, 1, whitespace=True)
    return loaded


def _records_table(frame: pd.DataFrame, source: str, fmt: str) -> LoadedTable:
    frame.columns = _unique_names([str(c) for c in frame.columns])
    for name in frame.columns:
        col = frame[name]
        if col.dtype == object:
            present = col.dropna()
            if (
                len(present)
                and all(isinstance(v, str) for v in present.head(1000))
                and present.map(type).eq(str).all()
            ):
                frame[name] = col.astype("str")
            elif len(present) and present.map(lambda v: isinstance(v, (dict, list))).any():
                frame[name] = col.map(lambda v: v if v is None else json.dumps(v)).astype("str")
    return LoadedTable(
        source, frame.reset_index(drop=True), fmt, first_line=1 if fmt == "jsonl" else None
    )


_EMPTY_LINE = re.compile(rb"\n(?=\r?\n)")
_WHITESPACE_LINE = re.compile(rb"\n(?=[ \t\r\f\v]*\n)")


def _blank_lines(
    text: str | bytes | bytearray, first_line: int, *, whitespace: bool
) -> tuple[int, ...]:
    """Lines at or after ``first_line`` that the parser skips: empty ones, or whitespace-only
    ones when ``whitespace`` (the whitespace and JSON Lines readers skip those too)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    pattern = _WHITESPACE_LINE if whitespace else _EMPTY_LINE
    found = []
    end = data.find(b"\n")
    head = bytes(data if end < 0 else data[:end])
    if first_line <= 1 and (not head.strip() if whitespace else head in (b"", b"\r")):
        found.append(1)
    line, last = 1, 0
    for match in pattern.finditer(data):
        line += data.count(b"\n", last, match.start())
        last = match.start()
        if line + 1 >= first_line:
            found.append(line + 1)
    return tuple(found)


def _read_json_dict(obj: dict[str, Any], source: str, kind: Kind | None) -> LoadedTable:
    inner = list(obj.values())
    lengths = np.fromiter((len(d) for d in inner), dtype=np.int64, count=len(inner))
    queries = np.repeat(np.array([str(q) for q in obj], dtype=object), lengths)
    items = [str(i) for i in chain.from_iterable(inner)]
    raw_values = list(chain.from_iterable(d.values() for d in inner))
    is_number = np.fromiter(
        ((isinstance(v, (int, float)) and not isinstance(v, bool)) for v in raw_values),
        dtype=bool,
        count=len(raw_values),
    )
    if not is_number.all():
        bad = int(np.argmin(is_number))
        raise InputError(
            f"The value for query '{queries[bad]}', item '{items[bad]}' is "
            f"{raw_values[bad]!r}, not a number.",
            source=source,
            fix="Every inner value must be a number: {query: {item: score}}.",
            code="json_dict_value",
            params={
                "query": str(queries[bad]),
                "item": str(items[bad]),
                "value": repr(raw_values[bad]),
            },
        )
    values = np.asarray(raw_values, dtype="float64")
    if kind is None:
        hint = source.lower()
        integral = bool(len(values)) and bool(
            np.all(np.isfinite(values) & (values == np.round(values)))
        )
        labelled = any(w in hint for w in ("qrel", "judg", "label", "truth", "gold"))
        kind = "qrels" if labelled or (integral and len(np.unique(values)) <= 10) else "run"
    value_col = RELEVANCE if kind == "qrels" else SCORE
    frame = pd.DataFrame(
        {
            QUERY: pd.array(queries, dtype="str"),
            ITEM: pd.array(items, dtype="str"),
            value_col: values,
        }
    )
    note = "values read as relevance labels" if kind == "qrels" else "values read as scores"
    return LoadedTable(source, frame, "json_dict", kind=kind, first_line=None, notes=(note,))


# --------------------------------------------------------------------------- text tables


_LEADING_BREAKS = re.compile(rb"[\r\n]*")


def _sample_lines(head: str, limit: int = 200, *, cut: bool = False) -> list[str]:
    """The first non-blank lines of ``head``, the start of the text (``cut``: the text goes on,
    so the last line may be cut in the middle and is left out)."""
    lines = head.splitlines()
    if cut and lines:
        lines = lines[:-1]
    return [ln for ln in lines if ln.strip()][:limit]


#: Bytes of a text table read to detect its layout (TREC, delimiter, header).
_SNIFF_BYTES = 131072


def _read_text(held: _Held, source: str) -> LoadedTable:
    """A delimited or TREC text table from UTF-8 bytes, parsed by arrow into columns (no Python
    object per row); the bytes are let go once parsed."""
    found = _text_columns(held, source)
    return found if isinstance(found, LoadedTable) else found.loaded()


@dataclass
class TextColumns:
    """A delimited text's (or JSON Lines') columns, typed as :func:`load_table` types them,
    before they become a pandas frame (:meth:`loaded`); the other attributes as
    :class:`LoadedTable`'s."""

    name: str
    columns: dict[str, pa.ChunkedArray]
    rows: int
    format: str
    header: bool
    first_line: int
    notes: tuple[str, ...]
    skipped_lines: tuple[int, ...]
    none_cells: dict[str, np.ndarray]

    def loaded(self) -> LoadedTable:
        """The table as :func:`load_table` gives it (the columns are let go as converted)."""
        frame = _frame_of(self.columns, self.rows)
        return LoadedTable(
            self.name,
            frame,
            self.format,
            header=self.header,
            first_line=self.first_line,
            notes=self.notes,
            skipped_lines=self.skipped_lines,
            none_cells={c: rows for c, rows in self.none_cells.items() if c in frame.columns},
        )


def _text_columns(held: _Held, source: str) -> TextColumns | LoadedTable:
    """A delimited text's typed columns (:func:`_read_text`), or a TREC file read as a table."""
    utf8 = held.data
    whole = len(utf8) <= _SNIFF_BYTES
    text = bytes(utf8[:_SNIFF_BYTES]).decode("utf-8", "ignore")  # the head, for sniffing
    lines = _sample_lines(text, cut=not whole)
    if not lines:
        raise InputError(
            "The file has no rows.",
            source=source,
            fix="Choose a file with a header row and at least one data row.",
            code="no_rows_text",
        )
    leading_blank = _LEADING_BREAKS.match(utf8).end()  # type: ignore[union-attr]
    blank_lines = bytes(utf8[:leading_blank]).count(b"\n")
    trec = detect_trec(text.split("\n") if whole else text.split("\n")[:-1])
    if trec is not None:
        del utf8
        return _read_trec(held, source, *trec)
    delimiter = _sniff_delimiter(lines)
    if delimiter is None:
        raise InputError(
            "Found only one column: no comma, tab, semicolon or pipe separates the values.",
            source=source,
            line=blank_lines + 1,
            fix="Save the table as CSV with a header row such as query,item,score.",
            code="one_column",
            params={"line": blank_lines + 1},
        )
    rows = _split_rows(lines[:50], delimiter)
    header = _looks_like_header(rows)
    width = Counter(len(r) for r in rows).most_common(1)[0][0]
    names = _column_names(rows[0], header, width)
    first_line = blank_lines + (2 if header else 1)
    table = _parse_delimited(utf8, delimiter, names, header, source, blank_lines)
    skipped = _blank_lines(utf8, first_line, whitespace=delimiter == " ")
    if delimiter != " " and _spans_lines(utf8, table.num_rows, first_line, skipped):
        decoded = bytes(utf8).decode("utf-8")
        skipped = tuple(sorted(set(skipped) | set(_continuation_lines(decoded, delimiter))))
        del decoded
    del utf8
    held.release()  # parsed: the columns are built without the text
    parsed = [table]
    del table
    none_cells: dict[str, np.ndarray] = {}
    rows = parsed[0].num_rows
    columns = _typed_columns(parsed, delimiter, none_cells)
    for name in _empty_unnamed(list(columns), lambda c: _all_missing(columns[c])):
        del columns[name]
    fmt = {",": "csv", "\t": "tsv", ";": "semicolon", "|": "pipe", " ": "whitespace"}[delimiter]
    notes = (
        f"{_DELIMITER_NAMES.get(delimiter, 'whitespace')}-separated",
        "header row" if header else "no header row: columns named column_1, column_2, ...",
    )
    return TextColumns(source, columns, rows, fmt, header, first_line, notes, skipped, none_cells)


_DELIMITER_NAMES = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe", " ": "whitespace"}
#: The separator as the translated messages show it (a tab as a word every language reads).
_SEPARATOR_SHOWN = {",": "','", "\t": "Tab", ";": "';'", "|": "'|'"}


def _read_trec(held: _Held, source: str, kind: TrecKind, header: int) -> LoadedTable:
    """A TREC file through :func:`metrics.io.trec.parse_trec`, as a table with canonical names
    (the bytes are let go once split into fields, each column once it is in the frame)."""
    utf8 = held.data
    held.release()
    columns = parse_trec(
        utf8,
        kind,
        source,
        header=header,
        tags=True,
    )
    del utf8
    parts: dict[str, pd.Series | np.ndarray] = {
        QUERY: _strings(columns.query),
        ITEM: _strings(columns.item),
    }
    if kind == "run":
        rank = columns.rank if columns.rank is not None else np.zeros(len(columns))
        parts[RANK] = rank.astype("int64")
        parts[SCORE] = columns.value
        parts[MODEL] = _strings(columns.tags)
        note = "TREC run (qid Q0 docid rank score tag)"
    else:
        parts[RELEVANCE] = columns.value
        note = "TREC qrels (qid iter docid rel)"
    notes, reading, lines = (note, *columns.notes()), columns.reading_facts(), columns.lines
    del columns  # its arrow text shares its characters with the frame's columns
    frame = pd.DataFrame(parts, copy=False)
    del parts
    first_line = 1
    skipped: tuple[int, ...] = ()
    if lines is not None and len(lines):
        first_line = int(lines[0])
        every = np.arange(first_line, int(lines[-1]) + 1)
        skipped = tuple(int(x) for x in np.setdiff1d(every, lines, assume_unique=True))
    return LoadedTable(
        source,
        frame,
        f"trec_{kind}",
        kind=kind,
        header=bool(header),
        first_line=first_line,
        notes=notes,
        skipped_lines=skipped,
        reading=reading,
    )


def _strings(column: pa.ChunkedArray | None) -> pd.Series:
    """Arrow text as a pandas ``str`` column: as ``large_string``, which pandas keeps without
    copying the characters (see :func:`_frame_of`)."""
    if column is None:
        return pd.Series([], dtype="str")
    if pa.types.is_string(column.type):
        column = column.cast(pa.large_string())
    return column.to_pandas().astype("str")


def _split_rows(lines: list[str], delimiter: str) -> list[list[str]]:
    if delimiter == " ":
        return [ln.split() for ln in lines]
    try:
        return [[f.strip() for f in row] for row in csv.reader(lines, delimiter=delimiter)]
    except csv.Error:
        return [[f.strip() for f in ln.split(delimiter)] for ln in lines]


def _sniff_delimiter(lines: list[str]) -> str | None:
    best: tuple[float, int] | None = None
    choice = None
    sample = lines[:100]
    for delimiter in (",", "\t", ";", "|", " "):
        if delimiter == " " and choice is not None:
            break
        counts = [len(r) for r in _split_rows(sample, delimiter)]
        modal, freq = Counter(counts).most_common(1)[0]
        if modal < 2:
            continue
        key = (freq / len(counts), modal)
        if best is None or key > best:
            best, choice = key, delimiter
    return choice


def _is_number(value: str) -> bool:
    return bool(_NUMBER.match(value.strip()))


def _looks_like_header(rows: list[list[str]]) -> bool:
    """A first row is a header unless it looks like data: numbers in the columns that hold
    numbers below it decide first (a data row whose model is called ``candidate`` or ``run``
    stays data), then a cell naming a role (``query``, ``score``, ...), then any text where
    the columns hold numbers."""
    first, rest = rows[0], rows[1:]
    if not rest:
        return True
    numeric_cols = []
    for j in range(len(first)):
        values = [r[j] for r in rest if j < len(r) and r[j].strip() != ""]
        if values and all(_is_number(v) for v in values):
            numeric_cols.append(j)
    filled = [first[j] for j in numeric_cols if first[j].strip() != ""]
    if filled and all(_is_number(v) for v in filled):
        return False
    if any(normalize_name(v) in KNOWN_NAMES for v in first):
        return True
    if not numeric_cols:
        return True
    return any(not _is_number(v) for v in filled)


def _column_names(first: list[str], header: bool, width: int) -> list[str]:
    names = []
    for j in range(width):
        value = first[j].strip() if header and j < len(first) else ""
        names.append(value if value else f"column_{j + 1}")
    return _unique_names(names)


def _unique_names(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        if name in seen:
            seen[name] += 1
            candidate = f"{name}_{seen[name]}"
            while candidate in seen:
                seen[name] += 1
                candidate = f"{name}_{seen[name]}"
            seen[candidate] = 1
            out.append(candidate)
        else:
            seen[name] = 1
            out.append(name)
    return out


#: Bytes arrow's CSV reader parses at a time: a few blocks are held while they are converted.
_BLOCK_BYTES = 1 << 22


def _parse_delimited(
    utf8: bytes | bytearray,
    delimiter: str,
    names: list[str],
    header: bool,
    source: str,
    blank_lines: int,
) -> pa.Table:
    start = _LEADING_BREAKS.match(utf8).end()  # type: ignore[union-attr]
    buf = memoryview(utf8)[start:]
    if delimiter == " ":
        return _parse_whitespace(
            bytes(buf), names, header, source, bytes(utf8[:start]).count(b"\n")
        )
    try:
        return pacsv.read_csv(
            pa.BufferReader(pa.py_buffer(buf)),
            read_options=pacsv.ReadOptions(
                column_names=names,
                skip_rows=1 if header else 0,
                block_size=_BLOCK_BYTES,
                use_threads=False,  # one block at a time: parallel blocks hold more memory
            ),
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter,
                ignore_empty_lines=True,
                quote_char='"' if delimiter != " " else False,
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={n: pa.string() for n in names},
                strings_can_be_null=True,
                null_values=[""],
                quoted_strings_can_be_null=True,
            ),
        )
    except (pa.ArrowException, ValueError) as exc:
        line, found = _find_ragged_line(
            bytes(utf8).decode("utf-8", "replace"),
            delimiter,
            len(names),
            blank_lines,
            header,
        )
        if line is not None:
            raise InputError(
                f"Expected {len(names)} values separated by "
                f"{_DELIMITER_NAMES.get(delimiter, repr(delimiter))}s, found {found}.",
                source=source,
                line=line,
                fix="Quote values that contain the separator, and give every row "
                "the same number of values.",
                code="ragged_row",
                params={
                    "line": line,
                    "expected": len(names),
                    "found": found,
                    "separator": _SEPARATOR_SHOWN.get(delimiter, delimiter),
                },
            ) from None
        raise InputError(
            f"The table cannot be parsed ({_short(exc)}).",
            source=source,
            fix="Check the quoting, or export the table again as CSV.",
            code="table_unparsable",
            params={"detail": _short(exc)},
        ) from None


def _parse_whitespace(
    buf: bytes, names: list[str], header: bool, source: str, stripped: int = 0
) -> pa.Table:
    try:
        frame = pd.read_csv(
            io.BytesIO(buf),
            sep=r"\s+",
            header=None,
            names=names,
            dtype=str,
            skiprows=1 if header else 0,
            engine="c",
            keep_default_na=False,
            na_values=[""],
            skip_blank_lines=True,
        )
    except (pd.errors.ParserError, ValueError, UnicodeDecodeError) as exc:
        match = re.search(r"line (\d+)", str(exc))
        line = int(match.group(1)) + stripped if match else None
        raise InputError(
            f"Expected {len(names)} whitespace-separated values on every line.",
            source=source,
            line=line,
            fix="Give every row the same number of values, or save the table as CSV.",
            code="whitespace_ragged" if line is not None else "whitespace_ragged_anywhere",
            params={"expected": len(names), "line": line},
        ) from None
    return pa.Table.from_pandas(
        frame.astype(object).where(frame.notna(), None),
        preserve_index=False,
        schema=pa.schema([(n, pa.string()) for n in names]),
    )


def _spans_lines(
    data: bytes | bytearray, rows: int, first_line: int, skipped: tuple[int, ...]
) -> bool:
    """Whether some rows span several lines (a quoted value holding a line break): the file
    has more lines from the first data row on than rows and blank lines."""
    lines = data.count(b"\n") + (0 if bytes(data[-1:]) == b"\n" else 1)
    return lines - first_line + 1 - len(skipped) > rows


def _records(text: str, delimiter: str) -> Iterator[tuple[int, int, list[str]]]:
    """Each record of a delimited text with the first and last lines it is on (1-based, as an
    editor counts); a quoted value may hold line breaks, so a record may span several lines."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    previous = 0
    for row in reader:
        yield previous + 1, reader.line_num, row
        previous = reader.line_num


def _continuation_lines(text: str, delimiter: str) -> list[int]:
    """The lines that continue a record begun on an earlier line (error path and files with
    such records only)."""
    found: list[int] = []
    try:
        for start, end, _ in _records(text, delimiter):
            found.extend(range(start + 1, end + 1))
    except csv.Error:
        pass  # the lines found so far
    return found


def _find_ragged_line(
    text: str, delimiter: str, width: int, blank_lines: int, header: bool
) -> tuple[int | None, int]:
    """Locate the first row with the wrong number of fields (error path only), naming the line
    it starts on as an editor counts lines (a quoted value may hold line breaks)."""
    if delimiter != " ":
        start = blank_lines + (1 if header else 0)
        try:
            for number, _, fields in _records(text, delimiter):
                if number <= start or not fields:
                    continue  # the header, and empty lines, which the reader skips
                if len(fields) != width:
                    return number, len(fields)
        except csv.Error:
            pass  # fall back to reading line by line
    lines = text.split("\n")
    start = blank_lines + (1 if header else 0)
    for number, line in enumerate(lines[start:], start=start + 1):
        line = line.removesuffix("\r")
        if not line:
            continue  # the reader skips empty lines; whitespace-only ones are rows
        try:
            fields = (
                next(csv.reader([line], delimiter=delimiter))
                if delimiter != " "
                else line.split(" ")
            )
        except (csv.Error, StopIteration):
            return number, 0
        if len(fields) != width:
            return number, len(fields)
    return None, 0


def _infer_types(
    table: pa.Table | list[pa.Table],
    delimiter: str,
    none_cells: dict[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """:func:`_typed_columns` as a pandas frame."""
    rows = table[0].num_rows if isinstance(table, list) else table.num_rows
    return _frame_of(_typed_columns(table, delimiter, none_cells), rows)


def _typed_columns(
    table: pa.Table | list[pa.Table],
    delimiter: str,
    none_cells: dict[str, np.ndarray] | None = None,
) -> dict[str, pa.ChunkedArray]:
    """Strip strings; convert fully numeric, non-identifier columns to numbers. A table passed
    in a list is taken out of it, so that each column is let go once converted. The rows of a
    converted column that held ``none`` (read as missing; a grade in labels) go into
    ``none_cells``."""
    nulls = arrow_strings(NULL_WORDS)
    if isinstance(table, list):
        table = table.pop()
    names, parts = table.column_names, table.columns
    del table
    columns = {}
    for name in names:
        columns[name] = _typed_column(name, parts.pop(0), nulls, delimiter, none_cells)
    return columns


def _none_rows(col: pa.ChunkedArray) -> np.ndarray:
    """The rows of a text column that hold the word ``none`` (any case)."""
    found = pc.fill_null(pc.equal(arrow_calls.lower(col), arrow_strings([NONE_GRADE])[0]), False)
    return np.flatnonzero(found.to_numpy(zero_copy_only=False))


def _typed_column(
    name: str,
    col: pa.ChunkedArray,
    nulls: pa.Array,
    delimiter: str,
    none_cells: dict[str, np.ndarray] | None = None,
) -> pa.ChunkedArray:
    """One column stripped, and converted to numbers when it is fully numeric and no
    identifier (the text it was read as is let go on return); the rows of a converted column
    that held ``none`` go into ``none_cells``."""
    col = _stripped(col)
    if normalize_name(name) in ID_NAMES or col.null_count == len(col):
        return col
    if _leading_zeros(col):
        return col  # leading zeros: an identifier such as "007"
    converted = _plain_numbers(col)
    if converted is not None:
        return converted
    if not _numbers_in(_sample(col), nulls, delimiter):
        return col  # text in the first values: the column as a whole is no number either
    numeric_src = _without_null_words(col, nulls)
    if numeric_src.null_count == len(numeric_src):
        return col
    converted = _try_cast(numeric_src)
    decimal_commas = r"^[+-]?\d*,\d+$|^[+-]?\d+$"
    if (
        converted is None
        and delimiter == ";"
        and arrow_calls.all_true(arrow_calls.matches(numeric_src, decimal_commas))
    ):
        converted = _try_cast(pc.replace_substring(numeric_src, ",", "."))
    if converted is None:
        return col
    if none_cells is not None:
        rows = _none_rows(col)
        if len(rows):
            none_cells[name] = rows
    return converted


def _frame_of(columns: dict[str, pa.ChunkedArray], rows: int) -> pd.DataFrame:
    """A pandas frame of arrow columns, converted one at a time and each let go once
    converted, so the table is never held twice. Text goes to pandas as ``large_string``,
    which pandas keeps as it is: the cast shares the characters and only widens the offsets
    (from ``string``, pandas would copy the characters too)."""
    out: dict[str, pd.Series] = {}
    for name in list(columns):
        column = columns.pop(name)
        if pa.types.is_string(column.type):
            column = column.cast(pa.large_string())
        out[name] = column.to_pandas()
        del column
    return pd.DataFrame(out, index=pd.RangeIndex(rows), copy=False)


def _without_null_words(col: pa.ChunkedArray, nulls: pa.Array) -> pa.ChunkedArray:
    """``col`` with the words for a missing value (``na``, ``null``, ...) made missing."""
    return arrow_calls.call_function(
        "if_else",
        [arrow_calls.is_in(arrow_calls.lower(col), nulls), arrow_calls.null_of(pa.string()), col],
    )


def _numbers_in(sample: pa.ChunkedArray, nulls: pa.Array, delimiter: str) -> bool:
    """Whether the first values of a text column could all be numbers (or missing-value
    words), so that converting the whole column is worth trying."""
    values = _without_null_words(sample, nulls)
    if values.null_count == len(values):
        return True
    if _casts(arrow_calls.drop_null(values), pa.float64()):
        return True
    decimal_commas = r"^[+-]?\d*,\d+$|^[+-]?\d+$"
    return delimiter == ";" and arrow_calls.all_true(
        arrow_calls.matches(arrow_calls.drop_null(values), decimal_commas)
    )


def _leading_zeros(col: pa.ChunkedArray) -> bool:
    """Whether a value starts with a zero followed by a digit (``007``, ``-01``); only values
    whose first character is ``0``, ``+`` or ``-`` are matched against the pattern."""
    for chunk in col.chunks:
        first = _first_bytes(chunk)
        if first is None:
            if arrow_calls.any_true(arrow_calls.matches(chunk, r"^[+-]?0\d")):
                return True
            continue
        positions, heads = first
        maybe = positions[(heads == ord("0")) | (heads == ord("+")) | (heads == ord("-"))]
        del positions, heads
        if len(maybe) and arrow_calls.any_true(
            arrow_calls.matches(arrow_calls.take(chunk, arrow_numbers(maybe)), r"^[+-]?0\d")
        ):
            return True
    return False


def _first_bytes(chunk: pa.Array) -> tuple[np.ndarray, np.ndarray] | None:
    """Positions of a string chunk's non-empty values and their first bytes (``None`` for
    other types)."""
    if not pa.types.is_string(chunk.type):
        return None
    if len(chunk) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint8)
    _, offsets_buffer, data_buffer = chunk.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int32)[
        chunk.offset : chunk.offset + len(chunk) + 1
    ]
    filled = offsets[1:] > offsets[:-1]
    if chunk.null_count:
        filled &= valid_of(chunk)
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else None
    if data is None or not filled.any():
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint8)
    if filled.all():  # every value has a first byte: no positions to list
        heads = data[offsets[:-1]]
        return np.arange(len(heads)), heads
    positions = np.flatnonzero(filled)
    return positions, data[offsets[:-1][positions]]


def _plain_numbers(col: pa.ChunkedArray) -> pa.ChunkedArray | None:
    """A column every value of which converts to a number as it is, converted; ``None`` when
    a value needs the general rules (words for missing values, decimal commas, text).

    Missing-value words that convert ("nan") become NaN, which is what the general rules make
    of them; a column with no number at all is left to those rules (it stays text)."""
    converted = _try_cast(col)
    if converted is None or converted.null_count == len(converted):
        return None
    if pa.types.is_floating(converted.type) and np.isnan(numpy_of(converted)).all():
        return None
    return converted


def _stripped(col: pa.ChunkedArray) -> pa.ChunkedArray:
    """Strings without surrounding white space, empty ones missing.

    A chunk in which no string is empty or starts or ends with a byte that may be white space
    (an ASCII space or control character, or any byte of a non-ASCII character) is already
    so and is kept as it is, without trimming every value."""
    return pa.chunked_array([_stripped_chunk(c) for c in col.chunks], type=col.type)


def _stripped_chunk(chunk: pa.Array) -> pa.Array:
    if pa.types.is_string(chunk.type) and len(chunk):
        _, offsets_buffer, data_buffer = chunk.buffers()
        offsets = np.frombuffer(offsets_buffer, dtype=np.int32)[
            chunk.offset : chunk.offset + len(chunk) + 1
        ]
        starts, ends = offsets[:-1], offsets[1:]
        if chunk.null_count:  # only the values present (the usual case needs no mask)
            valid = valid_of(chunk)
            if not valid.any():
                return chunk
            starts, ends = starts[valid], ends[valid]
        if (ends > starts).all():  # no empty value
            data = np.frombuffer(data_buffer, dtype=np.uint8)
            if not (_edge(data[starts]) or _edge(data[ends - 1])):
                return chunk
    trimmed = arrow_calls.trimmed(chunk)
    empty = arrow_calls.call_function("equal", [trimmed, arrow_strings([""])[0]])
    return arrow_calls.call_function("if_else", [empty, arrow_calls.null_of(pa.string()), trimmed])


def _edge(heads: np.ndarray) -> bool:
    """Whether a byte (first or last of a value) may be white space or part of a non-ASCII
    character: outside the printable ASCII range ``!`` (33) to DEL (127). Unsigned bytes wrap
    around, so ``byte - 33`` is below 95 exactly for that range."""
    return bool(((heads - np.uint8(33)) >= 95).any())


def _try_cast(col: pa.ChunkedArray) -> pa.ChunkedArray | None:
    for target in (pa.int64(), pa.float64()):
        if not _casts(_sample(col), target):
            continue  # a cast fails when one value fails: the whole column would fail too
        try:
            return arrow_calls.cast(col, target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
    return None


def _sample(col: pa.ChunkedArray, size: int = 1024) -> pa.ChunkedArray:
    """The first non-missing values of a column (a cheap check before converting it all)."""
    present = arrow_calls.drop_null(col.slice(0, size * 4))
    return present.slice(0, size)


def _casts(col: pa.ChunkedArray, target: pa.DataType) -> bool:
    try:
        arrow_calls.cast(col, target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return False
    return True


def _drop_empty_unnamed(frame: pd.DataFrame) -> pd.DataFrame:
    drop = _empty_unnamed(list(frame.columns), lambda c: bool(frame[c].isna().all()))
    return frame.drop(columns=drop) if drop else frame


def _empty_unnamed(names: list[str], all_missing: Callable[[str], bool]) -> list[str]:
    """The columns a table leaves out: named by the reader (``column_3``: no header, or an empty
    name) and without a value (``all_missing``), unless every column is."""
    drop = [c for c in names if re.fullmatch(r"column_\d+", str(c)) and all_missing(c)]
    return drop if len(drop) < len(names) else []


def _all_missing(column: pa.ChunkedArray) -> bool:
    """Whether every value of an arrow column is missing (null, or ``NaN`` as pandas has it)."""
    if column.null_count == len(column):
        return True
    if pa.types.is_floating(column.type):
        return bool(np.isnan(numpy_of(column)).all())
    return False


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:160]
