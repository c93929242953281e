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
import mmap
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
from metrics.engine.ids import arrow_numbers, arrow_strings, numpy_of, value_offsets
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
from metrics.io.trec import Rows, _let_go
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
            yield from _after(text_batches(columns), given)

    return read, read_numbers


def _after(batches: Iterator[pa.RecordBatch], given: int) -> Iterator[pa.RecordBatch]:
    """The rows of ``batches`` from row ``given`` on (those before it were given by a reading
    that stopped there)."""
    for batch in batches:
        if given < len(batch):
            yield batch.slice(given) if given else batch
        given = max(given - len(batch), 0)


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
    """The batches of a JSON Lines file: read by ``pyarrow.csv`` while every line has the
    layout of the first one (:func:`_jsonl_layout`, :func:`_jsonl_batch`), else by
    ``pyarrow.json``, from the first row not yet given.

    arrow's JSON parser took 0.25 CPU s for a 1M-row run, its CSV parser 0.08 s for the same
    bytes (each line cut at its commas, every piece as bytes). A block whose lines do not all
    have that layout (or that the CSV parser refuses) ends the fast reading: from its first
    row on, the file is read by ``pyarrow.json`` (from the start, the rows given skipped, so
    that arrow infers its types from the same first block and fails where it fails). The
    fast reading cuts its blocks where arrow's JSON reader cuts them, and gives the columns
    arrow's JSON types: either reading leads to the same :func:`rows_of`, batch by batch."""

    def json_batches(columns: Sequence[str]) -> Iterator[pa.RecordBatch]:
        import pyarrow.json as pajson

        # one thread: arrow's JSON reader on several took 1.6 times the CPU time, for the
        # same rows, on two processors
        options = pajson.ReadOptions(block_size=BATCH_BYTES, use_threads=False)
        with _opened(path, packed) as stream, _broken_gzip(path, packed):
            for batch in pajson.open_json(stream, read_options=options):
                if any(c not in batch.schema.names for c in columns):
                    raise InputError("a column is missing from some lines.")
                yield batch.select(list(columns))

    def read(columns: Sequence[str], text: Sequence[str]) -> Iterator[pa.RecordBatch]:
        given = 0
        for batch in _jsonl_fast(path, packed, columns, text):
            if batch is None:
                break
            yield batch
            given += len(batch)
        else:
            return
        yield from _after(json_batches(columns), given)

    return read


#: One member of a JSON Lines object as the fast reading takes it: a plain key, a colon, and
#: a string without backslash, quote, control or comma, or a JSON number; spaces around them,
#: then the comma or brace after it. Groups: key, text, number, fraction, exponent, end.
_MEMBER = re.compile(
    rb' *"([^"\\\x00-\x1f,]*)" *: *'
    rb'(?:"([^"\\\x00-\x1f,]*)"|(-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?))'
    rb" *([,}])"
)
#: How the fast reading reads a member's values: as text (a JSON string), as an integer
#: (a JSON number without fraction or exponent), as a floating point number.
_TEXT, _INT, _FLOAT = "text", "int", "float"


@dataclass(frozen=True)
class _JsonLayout:
    """The layout of a JSON Lines file's first line: its keys in order, the kind of each value
    (``_TEXT``, ``_INT``, ``_FLOAT``), and the bytes around each value in its piece of the
    line cut at the commas (``heads``: before, ``tails``: after)."""

    keys: tuple[str, ...]
    kinds: tuple[str, ...]
    heads: tuple[bytes, ...]
    tails: tuple[bytes, ...]

    def reads(self, columns: Sequence[str], text: Sequence[str]) -> bool:
        """Whether it gives the ``columns`` as arrow's JSON reader would for :func:`rows_of`:
        each a key, and those read as ids (``text``) strings (a number there is read as
        arrow types it: an integer becomes an id, a fraction none)."""
        kind = dict(zip(self.keys, self.kinds))
        return all(c in kind for c in columns) and all(kind.get(c) == _TEXT for c in text)


def _jsonl_layout(line: bytes) -> _JsonLayout | None:
    """The layout of a first line that is a flat object of plain members (:data:`_MEMBER`),
    each key once, nothing before its brace or after it; ``None`` for any other line."""
    if not line.startswith(b"{"):
        return None
    keys: list[str] = []
    kinds: list[str] = []
    spans: list[tuple[int, int]] = []
    at, end = 1, b","
    while end == b",":
        member = _MEMBER.match(line, at)
        if member is None:
            return None
        try:
            keys.append(member.group(1).decode("utf-8"))
        except UnicodeDecodeError:
            return None
        if member.group(2) is not None:
            kinds.append(_TEXT)
            spans.append(member.span(2))
        else:
            kinds.append(_INT if member.group(4) is member.group(5) is None else _FLOAT)
            spans.append(member.span(3))
        at, end = member.end(), member.group(6)
    if at != len(line) or len(set(keys)) != len(keys):
        return None
    heads, tails, start = [], [], 0
    for piece, (first, last) in zip(line.split(b","), spans):  # no comma in a key or value
        heads.append(line[start:first])
        tails.append(line[last : start + len(piece)])
        start += len(piece) + 1
    return _JsonLayout(tuple(keys), tuple(kinds), tuple(heads), tuple(tails))


def _jsonl_fast(
    path: Path, packed: bool, columns: Sequence[str], text: Sequence[str]
) -> Iterator[pa.RecordBatch | None]:
    """The batches of ``columns`` (those of ``text`` read as ids) while every line of a block
    has the layout of the file's first line (:func:`_jsonl_batch`), read by ``pyarrow.csv``;
    ``None`` for the first block that does not (or the first line, when it has no layout that
    reads them), and nothing after it.

    The blocks are whole lines, cut where arrow's JSON reader cuts them (:func:`_line_blocks`),
    one at a time (arrow's CSV stream reader reads several blocks ahead). A block holding a
    carriage return is not read: lines end at line feeds only."""
    layout = None
    with _broken_gzip(path, packed):
        for source, start, end in _line_blocks(path, packed):
            if layout is None:
                line = source.find(b"\n", start, end)
                layout = _jsonl_layout(bytes(source[start : line if line >= 0 else end]))
                if layout is None or not layout.reads(columns, text):
                    break
            batch = None
            if source.find(b"\r", start, end) < 0:
                block = pa.py_buffer(source).slice(start, end - start)
                batch = _jsonl_batch(_pieces(block, len(layout.keys)), layout, columns)
            if batch is None:
                break
            yield batch
        else:
            if layout is not None:
                return
    yield None  # arrow's JSON reader reads the rest (an empty file: it fails)


def _line_blocks(path: Path, packed: bool) -> Iterator[tuple[bytearray | mmap.mmap, int, int]]:
    """The file's bytes (decompressed when ``packed``) in blocks of whole lines, as arrow's
    JSON reader cuts them: read :data:`BATCH_BYTES` at a time, each block up to the last line
    feed of what was read, the rest carried into the next one (a read without a line feed
    ends them with an empty block; the last block may lack its line end). Each block as the
    bytes that hold it, where it starts and where it ends: a plain file's are mapped to
    memory (read in place, not copied)."""
    if packed:
        with open_gzip(path) as stream:
            yield from _read_blocks(stream)
        return
    with open(path, "rb") as handle:
        try:
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (ValueError, OSError):  # an empty file, or one that cannot be mapped
            yield from _read_blocks(handle)
            return
    start, size = 0, len(mapped)  # unmapped once the last block is freed
    for window in range(0, size - BATCH_BYTES + 1, BATCH_BYTES):  # every whole read
        cut = mapped.rfind(b"\n", window, window + BATCH_BYTES) + 1
        yield mapped, start, max(cut, start)
        if not cut:
            return
        _let_go(mapped, start, cut)  # the block's pages, once read (the cache keeps them)
        start = cut
    if start < size:
        yield mapped, start, size


def _read_blocks(stream: BinaryIO) -> Iterator[tuple[bytearray, int, int]]:
    """The blocks of :func:`_line_blocks` read from a stream, carried over in a copy."""
    block = bytearray()
    while True:
        start, wanted = len(block), BATCH_BYTES
        while wanted > 0 and (step := stream.read(wanted)):
            block += step
            wanted -= len(step)
        if wanted > 0:  # the end
            if block:
                yield block, 0, len(block)
            return
        cut = block.rfind(b"\n", start) + 1
        yield block, 0, cut
        if not cut:
            return
        block = block[cut:]


def _pieces(block: pa.Buffer, width: int) -> pa.RecordBatch | None:
    """The lines of ``block`` cut at their commas by ``pyarrow.csv``, each piece as bytes:
    ``None`` when a line has not ``width`` pieces (a blank line has one)."""
    import pyarrow.csv as pacsv

    names = [str(j) for j in range(width)]
    try:
        table = pacsv.read_csv(
            pa.BufferReader(block),
            read_options=pacsv.ReadOptions(
                column_names=names, block_size=block.size + 1, use_threads=False
            ),
            parse_options=pacsv.ParseOptions(
                delimiter=",",
                quote_char=False,
                double_quote=False,
                escape_char=False,
                newlines_in_values=False,
                ignore_empty_lines=False,
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.binary()), check_utf8=False
            ),
        )
    except pa.ArrowInvalid:
        return None
    return table.combine_chunks().to_batches()[0] if table.num_rows else None


_DIGITS = np.uint8(10)
_QUOTE, _BACKSLASH, _CONTROL = 34, 92, 32
_MINUS, _ZERO, _DOT, _LOWER_E = 45, 48, 46, 101
#: Integers below this size are read exactly as float64 (so that :func:`rows_of` reads them
#: as it reads them from int64); a larger one may be rounded to it.
_EXACT = float(1 << 53)


def _jsonl_batch(
    block: pa.RecordBatch | None, layout: _JsonLayout, columns: Sequence[str]
) -> pa.RecordBatch | None:
    """The ``columns`` of a block of lines cut at their commas, when every line has the
    ``layout``: ``None`` otherwise.

    Why a line that passes is the JSON object it seems, read as arrow's JSON reader reads
    it: the CSV parser (no quoting) gives each line cut at every comma, so a line has as many
    pieces as the first one, in order. Each piece is the head, a value and the tail of the
    first line's piece (the heads hold the brace, the keys, the colons and the spaces; the
    tails the spaces, the closing quote and the brace), each at least as long as both. A text
    value holds no quote, backslash or control byte, so the quotes around it close one JSON
    string, with no escape, whose text are its bytes (and a comma in it would have made one
    more piece); a number value is one JSON number as written (sign, no leading zero, digits
    around the point, last byte a digit: the JSON grammar once the cast to float64 took it).
    The line is then the first one with other values: a flat object of the same keys, in the
    same order, each once; nothing more in it (no blank line, nesting, ``null``, ``true``,
    escape, space before the brace or after it).

    The values, in arrow's JSON types: text as the JSON reader gives it (the same bytes:
    arrow's JSON reader checks no more UTF-8 than this view does); numbers parsed by the
    arrow function that parses the JSON reader's doubles. A floating point column (the first
    line's value has a point or an exponent) is double in arrow's types, its first line being
    in arrow's first block; a number too large for a double (arrow fails) ends the fast
    reading. An integer column is int64 in arrow's types unless arrow's first block holds a
    fraction, and the fast reading's first block is arrow's (:func:`_line_blocks`): it takes
    integers only, below 2**53 (read exactly, also where :func:`rows_of` casts int64 to
    float64) and no ``-0`` (0 as int64, -0.0 as a double); anything else ends the fast
    reading, and arrow then types it as it would have (and fails where it fails). Numbers in
    the columns read as ids (``text``) are not read here: arrow's JSON reader types them
    (:meth:`_JsonLayout.reads`)."""
    if block is None:
        return None
    out: dict[str, pa.Array] = {}
    for j, (key, kind, head, tail) in enumerate(
        zip(layout.keys, layout.kinds, layout.heads, layout.tails)
    ):
        pieces = block.column(j)
        if pieces.null_count or len(pieces) == 0:
            return None
        if not arrow_calls.all_true(arrow_calls.starts_with(pieces, head.decode())):
            return None
        if tail and not arrow_calls.all_true(arrow_calls.ends_with(pieces, tail.decode())):
            return None
        # an explicit end: arrow's default one fails ("Negative buffer resize")
        values = arrow_calls.binary_slice(pieces, len(head), -len(tail) if tail else 1 << 31)
        if _size(values) != _size(pieces) - len(pieces) * (len(head) + len(tail)):
            return None  # a piece shorter than its head and tail (their bytes overlap)
        read = _jsonl_text(values) if kind == _TEXT else _jsonl_numbers(values, kind == _INT)
        if read is None:
            return None
        if key in columns:
            out[key] = read
    return pa.RecordBatch.from_arrays([out[c] for c in columns], names=list(columns))


def _size(values: pa.Array) -> int:
    """The bytes of a binary array's values, in all."""
    offsets = value_offsets(values)
    return int(offsets[-1] - offsets[0])


def _value_bytes(values: pa.Array, offsets: np.ndarray) -> np.ndarray:
    """The bytes of a binary array's values, one after the other."""
    data = values.buffers()[2]
    if data is None:
        return np.zeros(0, dtype=np.uint8)
    found: np.ndarray = np.frombuffer(data, dtype=np.uint8)[offsets[0] : offsets[-1]]
    return found


def _jsonl_text(values: pa.Array) -> pa.Array | None:
    """Values cut from inside a JSON string's quotes as its text; ``None`` when one holds a
    quote, a backslash or a control byte."""
    data = _value_bytes(values, value_offsets(values))
    if ((data < _CONTROL) | (data == _QUOTE) | (data == _BACKSLASH)).any():
        return None
    return values.view(pa.string())


def _jsonl_numbers(values: pa.Array, integers: bool) -> pa.Array | None:
    """JSON numbers in arrow's JSON types, float64 or ``integers`` as int64 (see
    :func:`_jsonl_batch`); ``None`` for a value that is not one, and for one the JSON reader
    could read otherwise."""
    try:
        read: pa.Array = arrow_calls.cast(values.view(pa.string()), pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    # the cast took each: not empty, a sign, digits with a point or not, an exponent, or a
    # word (nan, inf); JSON takes no "+", no point without a digit on either side, no digit
    # after a leading zero
    offsets = value_offsets(values)
    data = _value_bytes(values, offsets)
    starts, ends = offsets[:-1] - offsets[0], offsets[1:] - offsets[0]
    first = starts + (data[starts] == _MINUS)  # within the value: the cast took no lone "-"
    lead = data[first]
    if not ((lead - _ZERO < _DIGITS).all() and (data[ends - 1] - _ZERO < _DIGITS).all()):
        return None
    zeros = np.flatnonzero(lead == _ZERO)
    after = first[zeros] + 1
    if (data[after[after < ends[zeros]]] - _ZERO < _DIGITS).any():
        return None
    numbers = numpy_of(read)
    if integers:
        if (data == _DOT).any() or ((data | 32) == _LOWER_E).any():
            return None  # a fraction or an exponent: arrow may type the column double
        if (np.abs(numbers) >= _EXACT).any() or (np.signbit(numbers) & (numbers == 0)).any():
            return None  # -0: 0 as an integer, -0.0 as a double
        integral: pa.Array = arrow_calls.cast(read, pa.int64())
        return integral
    if ((data[:-1] == _DOT) & ((data[1:] | 32) == _LOWER_E)).any() or np.isinf(numbers).any():
        return None  # a point before the exponent; a number too large for a double
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
