"""Tables read as a stream of rows: what the command line's block reader
(:mod:`metrics.cli.blocks`) reads CSV, TSV, Parquet, JSON Lines and Excel files with.

:func:`open_stream` looks at a file's first rows the way :func:`~metrics.io.formats.load_table`
reads a whole file (the same format, delimiter, header and column names: the first rows are
read by it), and gives its rows in batches of arrow columns: text by ``pyarrow.csv`` (gzip
decompressed as a stream), Parquet row group by row group, JSON Lines by ``pyarrow.json``, an
Excel sheet by :mod:`metrics.io.workbook`. Memory holds one batch, not the file.

:func:`block_roles` takes the column roles the whole reading would take, when the first rows
settle them by the columns' names alone (values could point a whole table elsewhere than its
first rows); :func:`rows_of` turns a batch into the canonical columns (query, item, score, rank,
label, model) as the whole reading converts them, or gives ``None`` for a value it would read
otherwise (a text label, a score that is no number, an id that would become a number): the
file is then read whole, and explained, as before.
"""

from __future__ import annotations

import gc
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa

from metrics.engine import arrow_calls
from metrics.engine.arrow_calls import compute as pc
from metrics.engine.ids import arrow_numbers, arrow_strings, numpy_of
from metrics.errors import InputError
from metrics.io.evidence import Table
from metrics.io.formats import (
    LoadedTable,
    _as_text,
    _column_names,
    _ExcelColumns,
    _looks_like_header,
    _pandas_ready,
    _sample_lines,
    _sheet_chunks,
    _sheet_layout,
    _split_rows,
    _stripped_chunk,
    _table_sheet,
    _unique_names,
    load_head,
)
from metrics.io.labels import is_missing_label, is_number_text, normalize_label, with_none_grade
from metrics.io.names import ID_NAMES
from metrics.io.roles import SURE, Guess, RoleMapping, guess_roles
from metrics.io.source import GZIP_ERRORS, BrokenGzip, broken_gzip, open_gzip
from metrics.io.text_safety import utf8_has_bidi
from metrics.io.trec import Rows
from metrics.io.workbook import open_workbook
from metrics.schema import (
    DEFAULT_MODEL,
    ITEM,
    LABEL_NULL_WORDS,
    MODEL,
    NULL_WORDS,
    QUERY,
    normalize_name,
)

#: Bytes of a text file (decompressed) read as its first rows.
SAMPLE_BYTES = 1 << 18
#: Rows of a Parquet file or an Excel sheet read as its first rows.
SAMPLE_ROWS = 20_000
#: Bytes of text parsed into one batch (about 250,000 rows of a run table).
BATCH_BYTES = 1 << 23
#: Rows of one batch of a Parquet file.
BATCH_ROWS = 262_144

_DELIMITED = {"csv": ",", "tsv": "\t", "semicolon": ";", "pipe": "|"}
_GZIP = b"\x1f\x8b"


@dataclass(frozen=True)
class Sample:
    """A table's first rows as :func:`~metrics.io.formats.load_table` reads them.

    Attributes
    ----------
    name:
        The file's name.
    format:
        Its format, as :attr:`~metrics.io.formats.LoadedTable.format`.
    header:
        Whether its first line names the columns.
    values:
        Their values, as role guessing reads them (:class:`~metrics.io.evidence.Table`): read
        from arrow for text and Parquet, so that pandas is never imported for them.
    """

    name: str
    format: str
    header: bool
    values: Table

    @property
    def names(self) -> list[str]:
        """The column names."""
        return self.values.names

    @classmethod
    def of(cls, loaded: LoadedTable) -> Sample:
        """The sample of a table read into a pandas frame."""
        return cls(loaded.name, loaded.format, loaded.header, Table.of(loaded.frame))


#: Batches of the columns of the first argument (those of the second read as they say).
_Reader = Callable[[Sequence[str], Sequence[str]], Iterator[pa.RecordBatch]]


@dataclass(frozen=True)
class TableStream:
    """A table file read as a stream of rows.

    Attributes
    ----------
    name:
        The file's name.
    format:
        ``"csv"``, ``"tsv"``, ``"semicolon"``, ``"pipe"``, ``"parquet"``, ``"jsonl"`` or
        ``"excel"``.
    sample:
        Its first rows (roles are guessed from them).
    read:
        The batches of the given columns; those of the second argument as text, as the whole
        reading writes numbers in them (Excel).
    read_numbers:
        For text (CSV, TSV): the batches of the given columns, those of the second argument
        read straight as numbers while every value of a block is one (see
        :func:`_csv_reader`); ``None`` for the other formats.
    """

    name: str
    format: str
    sample: Sample
    read: _Reader
    read_numbers: _Reader | None = None

    def batches(
        self, columns: Sequence[str], text: Sequence[str] = (), numbers: Sequence[str] = ()
    ) -> Iterator[pa.RecordBatch]:
        """Every row of ``columns``, batch by batch. Those of ``text`` come as text; those of
        ``numbers``, which the caller reads as numbers (:func:`rows_of`), may come as float64
        holding the numbers it would read of their text."""
        if numbers and self.read_numbers is not None:
            return self.read_numbers(list(columns), list(numbers))
        return self.read(list(columns), list(text))


def open_stream(path: str | Path, name: str | None = None) -> TableStream | None:
    """A table file as a stream of rows; ``None`` for what is read whole instead: TREC files
    (read by :mod:`metrics.io.trec`), JSON arrays and objects, whitespace-separated text, text
    that is not UTF-8 or whose first lines are blank, and any file whose first rows cannot be
    read (the whole reading then explains it).

    Raises
    ------
    BrokenGzip
        For a gzip file that breaks off in its first rows; else never for the content: a
        reading that fails gives ``None``.
    """
    path = Path(path)
    name = name or path.name
    try:
        with open(path, "rb") as handle:
            magic = handle.read(4)
        if magic == b"PAR1":
            return _parquet_stream(path, name)
        if magic == b"PK\x03\x04":
            return _excel_stream(path, name)
        return _text_stream(path, name, magic[:2] == _GZIP)
    except BrokenGzip:
        raise
    except (InputError, OSError, ValueError, EOFError, pa.ArrowException):
        return None


# --------------------------------------------------------------------------- text


def _text_stream(path: Path, name: str, packed: bool) -> TableStream | None:
    with _opened(path, packed) as handle, _broken_gzip(path, packed):
        head = handle.read(SAMPLE_BYTES + 1)
    whole = len(head) <= SAMPLE_BYTES
    if not whole:
        head = head[: head.rfind(b"\n", 0, SAMPLE_BYTES) + 1]
    if head[:3] == b"\xef\xbb\xbf":
        head = head[3:]
    if not head or head[:1] in b"\r\n" or b"\x00" in head or re.search(rb"\r(?!\n)", head):
        return None
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return None
    found = load_head(head, name)
    if isinstance(found, LoadedTable):
        if found.format == "jsonl":  # keys arrow does not parse alike: the sample via pandas
            return TableStream(name, "jsonl", Sample.of(found), _jsonl_reader(path, packed))
        return None
    columns = pa.Table.from_arrays(list(found.columns.values()), names=list(found.columns))
    sample = Sample(name, found.format, found.header, Table.of_arrow(columns))
    if found.format == "jsonl":
        return TableStream(name, "jsonl", sample, _jsonl_reader(path, packed))
    delimiter = _DELIMITED.get(found.format)
    if delimiter is None:
        return None
    lines = _sample_lines(text, cut=not whole)
    rows = _split_rows(lines[:50], delimiter)
    header = _looks_like_header(rows)
    width = Counter(len(r) for r in rows).most_common(1)[0][0]
    names = _column_names(rows[0], header, width)
    if header != sample.header or not set(sample.names) <= set(names):
        return None
    read, read_numbers = _csv_reader(path, packed, delimiter, names, header)
    return TableStream(name, sample.format, sample, read, read_numbers)


def _csv_reader(
    path: Path, packed: bool, delimiter: str, names: list[str], header: bool
) -> tuple[_Reader, _Reader]:
    """The batches of a delimited text file: every column as text, and with some read
    straight as numbers.

    Read as numbers, a column skips its text: ``pyarrow.csv`` trims spaces and tabs and reads
    the number with the parser of the cast from text that :func:`rows_of` applies, and an
    empty value is missing, as in the text. A value it does not read as a number (a word for
    a missing value, a decimal comma, text) ends that reading: the file is read again as
    text, from the first row not yet given, and :func:`rows_of` applies its rules to the
    text, as it would have without this step."""

    def text_batches(
        columns: Sequence[str], numbers: Sequence[str] = ()
    ) -> Iterator[pa.RecordBatch]:
        import pyarrow.csv as pacsv

        types = {n: pa.float64() if n in numbers else pa.string() for n in columns}
        with _opened(path, packed) as stream, _broken_gzip(path, packed):
            yield from pacsv.open_csv(
                stream,
                read_options=pacsv.ReadOptions(
                    column_names=names,
                    skip_rows=1 if header else 0,
                    block_size=BATCH_BYTES,
                    use_threads=False,
                ),
                parse_options=pacsv.ParseOptions(
                    delimiter=delimiter, quote_char='"', ignore_empty_lines=True
                ),
                convert_options=pacsv.ConvertOptions(
                    column_types=types,
                    include_columns=list(columns),
                    strings_can_be_null=True,
                    null_values=[""],
                    quoted_strings_can_be_null=True,
                ),
            )

    def read(columns: Sequence[str], text: Sequence[str]) -> Iterator[pa.RecordBatch]:
        return text_batches(columns)

    def read_numbers(columns: Sequence[str], numbers: Sequence[str]) -> Iterator[pa.RecordBatch]:
        given = 0
        try:
            for batch in text_batches(columns, numbers):
                yield batch
                given += len(batch)
        except pa.ArrowInvalid:  # a value that is no plain number: the rest read as text
            for batch in text_batches(columns):
                if given < len(batch):
                    yield batch.slice(given) if given else batch
                given = max(given - len(batch), 0)

    return read, read_numbers


def _opened(path: Path, packed: bool) -> BinaryIO:
    """The file's bytes, decompressed when ``packed`` (gzip)."""
    opened: BinaryIO = open_gzip(path) if packed else pa.input_stream(str(path))
    return opened


@contextmanager
def _broken_gzip(path: Path, packed: bool) -> Iterator[None]:
    """A gzip stream (``packed``) that breaks off while it is read: the error that names the
    file and the fix, as the whole reading gives it (readers of blocks let it through)."""
    try:
        yield
    except GZIP_ERRORS as exc:
        if not packed:
            raise
        raise broken_gzip(path.name, "path", exc) from None


def _jsonl_reader(
    path: Path, packed: bool
) -> Callable[[Sequence[str], Sequence[str]], Iterator[pa.RecordBatch]]:
    def read(columns: Sequence[str], text: Sequence[str]) -> Iterator[pa.RecordBatch]:
        import pyarrow.json as pajson

        # one thread: arrow's JSON reader on several took 1.6 times the CPU time, for the
        # same rows, on two processors
        options = pajson.ReadOptions(block_size=BATCH_BYTES, use_threads=False)
        with _opened(path, packed) as stream, _broken_gzip(path, packed):
            for batch in pajson.open_json(stream, read_options=options):
                if any(c not in batch.schema.names for c in columns):
                    raise InputError("a column is missing from some lines.")
                yield batch.select(list(columns))

    return read


# --------------------------------------------------------------------------- Parquet


def _parquet_stream(path: Path, name: str) -> TableStream | None:
    """A Parquet file read row group by row group, on one thread: arrow's pool of threads
    gained nothing on two processors and cost CPU time (reading a 1M-row run's batches in a
    fresh process: 0.135 CPU s, 0.045 s on one thread)."""
    import pyarrow.parquet as pq

    parquet = pq.ParquetFile(str(path))
    first = next(parquet.iter_batches(batch_size=SAMPLE_ROWS, use_threads=False), None)
    if first is None:
        return None
    table = _pandas_ready(pa.Table.from_batches([first]))
    if _unique_names(table.column_names) != [str(c) for c in first.schema.names]:
        return None  # repeated column names: named apart in the frame
    sample = Sample(name, "parquet", True, Table.of_arrow(table))

    def read(columns: Sequence[str], text: Sequence[str]) -> Iterator[pa.RecordBatch]:
        yield from pq.ParquetFile(str(path)).iter_batches(
            batch_size=BATCH_ROWS, columns=list(columns), use_threads=False
        )

    return TableStream(name, "parquet", sample, read)


# --------------------------------------------------------------------------- Excel


def _excel_stream(path: Path, name: str) -> TableStream | None:
    """An Excel sheet read by :mod:`metrics.io.workbook`, a batch of rows at a time."""
    with open_workbook(path) as book:
        sheet = _table_sheet(book.worksheets)
        if not sheet.head:
            return None
        layout = _sheet_layout(sheet)
        first = next(_sheet_chunks(sheet.sheet, layout.header, SAMPLE_ROWS), None)
        if first is None:
            return None
        columns = _ExcelColumns(layout.width)
        columns.add(first)
    arrow = columns.arrow(layout.names)  # without pandas, but for true/false values
    evidence = Table.of(columns.frame(layout.names)) if arrow is None else Table.of_arrow(arrow)
    if len(evidence.names) != layout.width:
        return None  # rows wider than the first ones, or two columns of one name
    sample = Sample(name, "excel", layout.header, evidence)
    names, position = layout.names, sheet.position

    def read(wanted: Sequence[str], text: Sequence[str]) -> Iterator[pa.RecordBatch]:
        with open_workbook(path) as book:
            at = [names.index(c) for c in wanted]
            table = book.worksheets[position]  # the sheet _table_sheet found
            for chunk in _sheet_chunks(table, layout.header, BATCH_ROWS // 4):
                arrays = []
                for j, column in zip(at, wanted):
                    kind, values, _ = chunk.column(j)
                    arrays.append(_excel_array(kind, values, column in text))
                by_rows = chunk.by_rows
                del chunk
                if by_rows and not gc.isenabled():
                    gc.collect(0)  # openpyxl's rows, where it reads the sheet, hold cycles
                yield pa.RecordBatch.from_arrays(arrays, names=list(wanted))

    return TableStream(name, "excel", sample, read)


def _excel_array(kind: str, values: Any, as_text: bool) -> pa.Array:
    """A chunk of a sheet's column as arrow values: as the text the whole reading writes of
    them (``as_text``), else numbers, true/false values, text, or missing values."""
    if as_text or kind == "text":
        return _as_text(kind, values)
    if kind == "number":
        return arrow_numbers(values)
    if kind == "bool":
        return pa.array(values.tolist(), pa.bool_(), from_pandas=True)
    return pa.nulls(int(values), pa.float64())


# --------------------------------------------------------------------------- roles


def block_roles(
    sample: Sample,
    *,
    judged_elsewhere: bool,
    qrels: bool = False,
    segments: Sequence[str] = (),
) -> RoleMapping | None:
    """The roles of a table read block by block: those guessed from its first rows when every
    one is settled by the column's name (and an id column's name is an id's, so its values stay
    text as read); ``None`` when values would have to settle a role, since the whole table may
    say otherwise than its first rows.

    A run needs a query, an item and a score or a rank, and a label unless ``judged_elsewhere``
    (then it must have none: a run's labels beside a judgments file are read whole); judgments
    (``qrels``) need a query, an item and a label (or a column named as a score). Without a
    model column, a run's other columns must hold numbers (text could name the models), but for
    the ``segments`` columns, which the caller finds constant within each query with two values
    or more in the whole table (no model's values).
    """
    try:
        guesses = guess_roles(sample.values, judged_elsewhere=judged_elsewhere and not qrels)
    except (InputError, ValueError, KeyError):
        return None
    single = {role: g for role, g in guesses.items() if not role.startswith("segment:")}
    if not all(_named(role, g) for role, g in single.items()):
        return None
    roles = RoleMapping.coerce({role: g.column for role, g in single.items()})
    if roles.query is None or roles.item is None:
        return None
    if qrels:
        label = roles.label or roles.score
        return RoleMapping(query=roles.query, item=roles.item, label=label) if label else None
    if roles.score is None and roles.rank is None:
        return None
    if (roles.label is None) != judged_elsewhere:
        return None
    if roles.model is None:
        taken = set(roles.columns().values())
        if any(
            name not in taken and name not in segments and not column.numeric and column.distinct
            for name, column in sample.values.columns.items()
        ):
            return None
    return roles


def _named(role: str, guess: Guess) -> bool:
    sure = guess.named and not guess.unsure and guess.confidence >= SURE
    if role in (QUERY, ITEM, MODEL):
        sure = sure and normalize_name(guess.column) in ID_NAMES
    return sure


# --------------------------------------------------------------------------- rows


def rows_of(batch: pa.RecordBatch, roles: RoleMapping) -> Rows | None:
    """The canonical columns of ``batch`` (its columns named as ``roles`` say), converted as
    the whole reading converts them; ``None`` when a value would be read otherwise (see the
    module's docstring). A score missing where a rank is given is ``-rank``."""
    query = _ids(batch.column(roles.query))
    item = _ids(batch.column(roles.item))
    if query is None or item is None:
        return None
    rank = _numbers(batch.column(roles.rank), NULL_WORDS) if roles.rank else None
    if roles.score is not None:
        score = _numbers(batch.column(roles.score), NULL_WORDS)
    elif rank is not None:
        score = -rank
    else:
        return None
    label = _numbers(batch.column(roles.label), LABEL_NULL_WORDS) if roles.label else None
    model = None
    if roles.model is not None:
        model = _ids(batch.column(roles.model), missing=DEFAULT_MODEL)
        if model is None:
            return None
    if score is None or (roles.rank and rank is None) or (roles.label and label is None):
        return None
    return Rows(query, item, score, rank, label, model)


def _chunked(values: pa.Array | pa.ChunkedArray) -> pa.ChunkedArray:
    return values if isinstance(values, pa.ChunkedArray) else pa.chunked_array([values])


def _ids(values: pa.Array, missing: str | None = None) -> pa.ChunkedArray | None:
    """Ids as text (surrounding white space trimmed, empty ones missing); ``None`` for values
    the whole reading writes otherwise (numbers with a fraction, true/false values, text with
    bidirectional controls, which it makes visible)."""
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    if pa.types.is_integer(values.type) or pa.types.is_large_string(values.type):
        values = arrow_calls.cast(values, pa.string())
    elif pa.types.is_null(values.type):
        values = pa.nulls(len(values), pa.string())
    if not pa.types.is_string(values.type):
        return None
    values = _stripped_chunk(values)
    data = values.buffers()[2]
    if data is not None and utf8_has_bidi(data):
        return None
    if missing is not None:
        values = arrow_calls.call_function("coalesce", [values, arrow_strings([missing])[0]])
    return _chunked(values)


_NULLS = {words: arrow_strings(words) for words in (NULL_WORDS, LABEL_NULL_WORDS)}


def _text_numbers(values: pa.Array, nulls: tuple[str, ...]) -> pa.Array | None:
    """Text read as numbers: surrounding white space trimmed, the words ``nulls`` (any case)
    missing, the rest numbers; ``None`` when one is not. A text that reads as a number as it
    stands reads as the same number here (white space aside, none of the words is one, and
    ``nan`` is missing either way), so plain numbers may skip these steps."""
    text = _stripped_chunk(arrow_calls.cast(values, pa.string()))
    missing = arrow_calls.is_in(arrow_calls.lower(text), _NULLS[nulls])
    text = arrow_calls.call_function("if_else", [missing, arrow_calls.null_of(pa.string()), text])
    try:
        return arrow_calls.cast(text, pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


def _numbers(values: pa.Array, nulls: tuple[str, ...]) -> np.ndarray | None:
    """Numbers as float64 (missing: ``NaN``): numeric columns as they are, text that holds a
    number read as one, the words for a missing value missing; ``None`` for anything else."""
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    if pa.types.is_integer(values.type) or pa.types.is_floating(values.type):
        values = arrow_calls.cast(values, pa.float64())
    elif pa.types.is_null(values.type):
        values = pa.nulls(len(values), pa.float64())
    elif pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        try:  # plain numbers, the usual case: read as they are, without the steps below
            values = arrow_calls.cast(values, pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            found = _text_numbers(values, nulls)
            if found is None:
                return None
            values = found
    else:
        return None
    return numpy_of(values).astype(np.float64, copy=False)


def mapped_labels(values: pa.Array, label_map: Mapping[str, float]) -> np.ndarray | None:
    """A label column under a label mapping (``--label-map``) as the whole reading reads it
    (:func:`~metrics.io.labels.map_labels`): a word the mapping names is its grade (matched as
    :func:`~metrics.io.labels.normalize_label` matches, the grade as the whole reading writes
    it), a ``none`` it does not name grade 0, numbers and missing labels as they are. ``None``
    for a word the mapping does not name, and for a mapping that names a number or a missing
    label: the whole reading maps those only when the table holds a word, which one block
    cannot tell."""
    if any(is_number_text(k) or is_missing_label(normalize_label(k)) for k in label_map):
        return None
    found = _numbers(values, LABEL_NULL_WORDS)
    if found is not None:
        return found
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        return None
    encoded = pc.dictionary_encode(values)
    words = encoded.dictionary.to_pylist()
    grades = {
        normalize_label(k): float(f"{float(v):g}")
        for k, v in with_none_grade(label_map, words).items()
    }
    read = []
    for word in words:
        grade = grades.get(normalize_label(word))
        if grade is None:
            number = _numbers(arrow_strings([word]), LABEL_NULL_WORDS)
            if number is None:
                return None
            grade = float(number[0])
        read.append(grade)
    codes = numpy_of(pc.fill_null(encoded.indices, len(words)))
    out: np.ndarray = np.append(np.array(read, dtype=np.float64), np.nan)[codes]
    return out


__all__ = ["Rows", "TableStream", "block_roles", "mapped_labels", "open_stream", "rows_of"]
