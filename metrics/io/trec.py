"""TREC runs and qrels, read as trec_eval reads them. The one place that decides what is TREC.

trec_eval reads a run line as ``qid iter docno rank score tag`` and a qrels line as
``qid iter docno rel``: fields separated by any run of spaces or tabs, anything after the sixth
(run) or fourth (qrels) field ignored, blank lines and lines starting with ``#`` skipped
(trec_eval 10). This module reads files the same way, and is stricter where trec_eval would read
garbage without a word: a line with too few fields, a rank that is not a whole number, or a
score or relevance that is not a number stops the reading with an
:class:`~metrics.errors.InputError` naming the file and line. A file that looks like TREC is never
handed to the general table reader to be guessed at.

:func:`detect_trec` decides from a sample of lines whether text is a TREC run or qrels file; both
the command line (:func:`read_trec`, without pandas) and the app's reader
(:func:`metrics.io.formats.load_table`, through :func:`parse_trec`) use it.

Plain files (one space or one tab between exactly six or four fields) are parsed by
``pyarrow.csv`` on all cores; any other layout is split into fields by arrow string kernels.
"""

from __future__ import annotations

import contextlib
import math
import mmap
import os
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Literal

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from metrics.engine.arrow_calls import compute as pc
from metrics.engine.ids import value_offsets
from metrics.errors import InputError
from metrics.io.messages import READING_TEXTS
from metrics.io.source import unify_line_ends

TrecKind = Literal["run", "qrels"]

#: Fields trec_eval reads from a line; anything after them is ignored.
WIDTH: dict[str, int] = {"run": 6, "qrels": 4}
LAYOUT: dict[str, str] = {"run": "qid Q0 docid rank score tag", "qrels": "qid iter docid relevance"}
_FIX = {
    "run": "Write one result per line: qid Q0 docid rank score tag.",
    "qrels": "Write one judgment per line: qid 0 docid relevance.",
}
_SAMPLE_BYTES = 65536
_SAMPLE_LINES = 200
_NUMBER = r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf|infinity|nan)"
_NUMBER_RE = re.compile(rf"^{_NUMBER}$", re.IGNORECASE)
_NUMBER_ARROW = rf"(?i)^{_NUMBER}$"


@dataclass(frozen=True)
class TrecColumns:
    """The columns of a TREC file that evaluation needs, and what was skipped while reading.

    Attributes
    ----------
    kind:
        ``"run"`` or ``"qrels"``.
    query, item:
        Query and document ids (arrow strings).
    value:
        Score (runs) or relevance label (qrels), a float64 numpy array.
    rank:
        The rank column of a run (float64 numpy array), ``None`` for qrels.
    tag:
        The run tag of the first record (``None`` for qrels).
    tags:
        The tag of every record (arrow strings) when asked for, else ``None``.
    lines:
        The physical line (1-based) of every record, or ``None`` when record ``i`` is on line
        ``i + 1`` (no blank, comment or header line).
    extra_lines, first_extra_line:
        How many records had fields after the sixth (run) or fourth (qrels), which are ignored
        as trec_eval ignores them, and the first such line.
    comment_lines:
        How many lines starting with ``#`` were skipped.
    """

    kind: TrecKind
    query: pa.ChunkedArray
    item: pa.ChunkedArray
    value: np.ndarray
    rank: np.ndarray | None = None
    tag: str | None = None
    tags: pa.ChunkedArray | None = None
    lines: np.ndarray | None = None
    extra_lines: int = 0
    first_extra_line: int | None = None
    comment_lines: int = 0

    def __len__(self) -> int:
        return len(self.query)

    def reading_facts(self) -> tuple[tuple[str, dict[str, object]], ...]:
        """What was read differently from a plain file, as ``(code, parameters)`` pairs:
        ``trec_extra_fields`` (``n``, ``line``, ``width``, ``layout``) and
        ``trec_comment_lines`` (``n``)."""
        out: list[tuple[str, dict[str, object]]] = []
        if self.extra_lines:
            width = WIDTH[self.kind]
            params: dict[str, object] = {
                "n": self.extra_lines,
                "line": self.first_extra_line,
                "width": width,
                "layout": LAYOUT[self.kind],
            }
            out.append(("trec_extra_fields", params))
        if self.comment_lines:
            out.append(("trec_comment_lines", {"n": self.comment_lines}))
        return tuple(out)

    def notes(self) -> tuple[str, ...]:
        """What was read differently from a plain file, in plain English (empty when nothing):
        :func:`reading_facts` in the words of :data:`READING_TEXTS`."""
        return tuple(reading_text(code, params) for code, params in self.reading_facts())


@dataclass
class Rows:
    """The columns evaluation reads of a batch of a run's rows, whatever its format: ids as
    text, numbers as float64 (``NaN`` where missing); ``rank``, ``label`` and ``model``
    ``None`` when the run has none (a TREC run's chunk, or a table's batch read by
    :mod:`metrics.io.table_stream`)."""

    query: pa.ChunkedArray
    item: pa.ChunkedArray
    score: np.ndarray
    rank: np.ndarray | None = None
    label: np.ndarray | None = None
    model: pa.ChunkedArray | None = None

    def __len__(self) -> int:
        return len(self.score)


def reading_text(code: str, params: dict[str, object]) -> str:
    """One reading fact in English (see :data:`READING_TEXTS`)."""
    one, several = READING_TEXTS[code]
    return (one if params["n"] == 1 else several).format(**params)


# ====================================================================== detection
def _is_number(text: str, integer: bool = False) -> bool:
    if not _NUMBER_RE.match(text):
        return False
    if not integer:
        return True
    value = float(text)
    return math.isfinite(value) and value == int(value)


def record_kind(fields: list[str]) -> TrecKind | None:
    """``"run"`` or ``"qrels"`` when one line's whitespace-separated fields are such a record.

    A run record has at least six fields with a whole-number rank (fourth) and a numeric score
    (fifth); a qrels record at least four fields with ``Q0`` or a whole number second and a
    numeric relevance fourth. Five fields with ``Q0`` second, a whole number fourth and a
    number fifth are a run line without its tag (the run reader then says what is missing),
    not judgments.
    """
    ranked = len(fields) >= 5 and _is_number(fields[3], integer=True) and _is_number(fields[4])
    if ranked and (len(fields) >= 6 or fields[1].upper() == "Q0"):
        return "run"
    if (
        len(fields) >= 4
        and (fields[1].upper() == "Q0" or _is_number(fields[1], integer=True))
        and _is_number(fields[3])
    ):
        return "qrels"
    return None


def _is_skipped(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def detect_trec(lines: list[str]) -> tuple[TrecKind, int] | None:
    """Whether sampled lines are a TREC run or qrels file, and how many header lines it has.

    Blank and ``#`` lines are left out. A file whose lines mostly hold a comma, semicolon or pipe
    is a delimited table. Otherwise the file is TREC when, among the other sampled lines,
    at least half are records of one kind and at least half share the first record's second
    column (the ``Q0`` or
    iteration column, constant in TREC files). A first line of words only (no number) before
    such records is a header (returned as 1). A file with a few broken lines is still TREC: the
    reader then names the first broken line instead of guessing at columns.

    Parameters
    ----------
    lines:
        The first lines of the file (a partial last line should be left out).

    Returns
    -------
    (kind, header_lines) or None
    """
    kept = list(islice((ln for ln in lines if not _is_skipped(ln)), _SAMPLE_LINES))
    delimited = sum(("," in ln or ";" in ln or "|" in ln) for ln in kept)
    if not kept or delimited * 2 > len(kept):
        return None  # most lines hold a comma, semicolon or pipe: a delimited table
    data = [ln.split() for ln in kept]
    header = int(
        len(data) > 1
        and len(data[0]) >= 4
        and not any(_is_number(f) for f in data[0])
        and record_kind(data[1]) is not None
    )
    body = data[header:]
    kinds = [record_kind(f) for f in body]
    for kind in ("run", "qrels"):
        records = [f for f, k in zip(body, kinds) if k == kind]
        if len(records) * 2 < len(body):
            continue
        second = records[0][1]
        if sum(len(f) > 1 and f[1] == second for f in body) * 2 >= len(body):
            return kind, header
    return None


# ====================================================================== reading
def read_trec(path: str | Path, *, tags: bool = False) -> TrecColumns | None:
    """Read a TREC run or qrels file from a path; ``None`` when it is not one.

    gzip-compressed files are decompressed; text that is not UTF-8 is read as Latin-1.

    Parameters
    ----------
    path:
        File path.
    tags:
        Also return every record's run tag.

    Returns
    -------
    TrecColumns or None

    Raises
    ------
    InputError
        For a line of a TREC file that is not a record of its kind (file and line named), or an
        unreadable file.
    """
    path = Path(path)
    try:
        data = _map_file(path)
    except OSError as exc:
        raise InputError(
            f"Cannot read the file ({exc.strerror or exc}).",
            source=path.name,
            fix="Check that the path exists and is a readable file.",
        ) from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = zlib.decompress(data, wbits=31)
        except zlib.error:
            return None  # the general reader explains broken archives
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    data = unify_line_ends(data)
    lines = sample_lines(data)
    if lines is None:
        return None
    detected = detect_trec(lines)
    if detected is None:
        return None
    kind, header = detected
    return parse_trec(data, kind, path.name, header=header, tags=tags)


def _map_file(path: Path) -> bytes | mmap.mmap:
    """The file's bytes, memory-mapped when possible: parsed in place from the page cache, with
    neither a copy nor fresh pages to fault in (a tenth of the reading time at 10M lines)."""
    with open(path, "rb") as handle:
        try:
            if os.fstat(handle.fileno()).st_size > 0:
                return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):
            pass  # not a regular file: read it
        return handle.read()


def sample_lines(data: bytes | bytearray | mmap.mmap) -> list[str] | None:
    """The complete lines of the first 64 KB as text, or ``None`` for binary content."""
    head = data[:_SAMPLE_BYTES]
    if b"\x00" in head:
        return None
    text = head.decode("utf-8", errors="replace")
    lines = text.split("\n")
    if len(data) > _SAMPLE_BYTES and len(lines) > 1:
        lines = lines[:-1]
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def parse_trec(
    data: bytes | bytearray | mmap.mmap,
    kind: TrecKind,
    source: str,
    *,
    header: int = 0,
    tags: bool = False,
) -> TrecColumns:
    """Parse the bytes of a TREC file of a known kind, as trec_eval reads it.

    Parameters
    ----------
    data:
        The file's bytes (UTF-8; other bytes are read as Latin-1).
    kind:
        ``"run"`` or ``"qrels"`` (see :func:`detect_trec`).
    source:
        File name, for messages.
    header:
        Lines of header before the first record (0 or 1).
    tags:
        Also return every record's run tag.

    Returns
    -------
    TrecColumns

    Raises
    ------
    InputError
        For the first line that is not a record of its kind, naming the file, line and column.
    """
    if not header:
        plain = _read_plain(data, kind, tags)
        if plain is not None:
            return plain
    return _read_fields(data, kind, source, header, tags)


_PLAIN_FIELD = r"[^\s#]\S*"
_PLAIN_NUMBER = r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)"
_PLAIN = {
    (kind, d): re.compile(
        "^"
        + d.join(
            [_PLAIN_FIELD, r"\S+", r"\S+", r"[+-]?\d+", _PLAIN_NUMBER, r"\S+"]
            if kind == "run"
            else [_PLAIN_FIELD, r"\S+", r"\S+", _PLAIN_NUMBER]
        )
        + "$"
    )
    for kind in ("run", "qrels")
    for d in (" ", "\t")
}


def _plain_delimiter(data: bytes | bytearray | mmap.mmap, kind: TrecKind) -> str | None:
    """``" "`` or ``"\\t"`` when the sampled lines are exactly ``WIDTH`` fields split by it.

    Whole-file checks are byte searches: the other delimiter, a carriage return or a ``#``
    anywhere sends the file to the general field splitter, which handles them as trec_eval does.
    """
    delimiter = _sample_delimiter(sample_lines(data), kind)
    if delimiter is None or not _plain_bytes(data, delimiter):
        return None
    return delimiter


def _sample_delimiter(lines: list[str] | None, kind: TrecKind) -> str | None:
    """The delimiter of sampled lines that are all exactly ``WIDTH`` plain fields."""
    if not lines:
        return None
    while lines and not lines[-1]:
        lines.pop()
    if not lines:
        return None
    delimiter = "\t" if "\t" in lines[0] else " "
    pattern = _PLAIN[kind, delimiter].match
    if not all(map(pattern, lines)):
        return None
    return delimiter


def _plain_bytes(
    data: bytes | bytearray | mmap.mmap, delimiter: str, end: int | None = None, start: int = 0
) -> bool:
    """No byte (from ``start`` to ``end``) that the ``pyarrow.csv`` reader would read otherwise
    than trec_eval: the other delimiter, a carriage return or a ``#``."""
    other = b" " if delimiter == "\t" else b"\t"
    end = len(data) if end is None else end
    return all(data.find(byte, start, end) < 0 for byte in (other, b"\r", b"#"))


#: Bytes of a file read at a time by :func:`plain_chunks` (about 250,000 lines of a run): small
#: pieces keep the memory low and let freed memory serve the next piece.
CHUNK_BYTES = 1 << 23


def plain_chunks(
    path: str | Path, kind: TrecKind, chunk_bytes: int = CHUNK_BYTES
) -> Iterator[TrecColumns | None]:
    """A plain TREC file of ``kind`` (one space or one tab between exactly ``WIDTH`` fields, as
    :func:`parse_trec` reads with ``pyarrow.csv``), read in chunks of whole lines, each parsed
    on its own: memory holds one chunk, not the file.

    The file is memory-mapped (:func:`_map_file`) and each chunk parsed where it lies in the
    page cache, without a copy; its pages are let go once it is parsed, so the process holds
    one chunk of the file's pages at a time.

    Yields ``None`` (and stops) as soon as the file is anything else: compressed, not of
    ``kind``, with a header, another layout, a NUL byte, a line ``pyarrow.csv`` refuses. Read
    such a file whole with :func:`read_trec`, which reads or explains it; the records of the
    chunks are the same as :func:`read_trec`'s (lines are not numbered).
    """
    chunk_bytes = max(chunk_bytes, 2 * _SAMPLE_BYTES)  # the first chunk holds the sample
    data = _map_file(Path(path))
    try:
        if data[:2] == b"\x1f\x8b" or data[:3] == b"\xef\xbb\xbf":
            yield None
            return
        lines = sample_lines(data)
        delimiter = _sample_delimiter(list(lines or []), kind)
        if delimiter is None or detect_trec(lines or []) != (kind, 0):
            yield None
            return
        start, size = 0, len(data)
        while start < size:
            end = min(start + chunk_bytes, size)
            if end - start == chunk_bytes:  # the last line may go on: read it with the next chunk
                end = data.rfind(b"\n", start, end) + 1
            plain = (
                end > start
                and _plain_bytes(data, delimiter, end, start)
                and data.find(b"\x00", start, end) < 0
            )
            columns = None
            if plain:
                chunk = memoryview(data)[start:end]  # no copy
                columns = _plain_table(chunk, kind, delimiter, False, False, _ascii(chunk))
                del chunk
                _let_go(data, start, end)
            yield columns
            if columns is None:
                return
            start = end
    finally:
        if isinstance(data, mmap.mmap):
            with contextlib.suppress(BufferError):  # a view still held: closed when let go
                data.close()


def _ascii(chunk: memoryview) -> bool:
    """Whether every byte of ``chunk`` is ASCII (read in place, not copied)."""
    return not len(chunk) or int(np.frombuffer(chunk, dtype=np.uint8).max()) < 0x80


#: The most of a file the kernel maps at one fault: a huge page (a chunk's first page can map
#: the last ones of the chunks before it, when the page cache holds the file in large pieces).
_MAPPED_AT_ONCE = 1 << 21


def _let_go(data: bytes | bytearray | mmap.mmap, start: int, end: int) -> None:
    """Drop the pages of a memory-mapped file before ``end`` from the process (the page cache
    keeps them): a chunk's pages are not held once it is parsed. The chunk is from ``start``;
    pages up to :data:`_MAPPED_AT_ONCE` before it, which its first faults may have mapped again,
    are dropped with it."""
    if isinstance(data, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
        first = max(start - _MAPPED_AT_ONCE, 0)
        first -= first % mmap.PAGESIZE
        with contextlib.suppress(OSError, ValueError):
            data.madvise(mmap.MADV_DONTNEED, first, end - first)


def _read_plain(
    data: bytes | bytearray | mmap.mmap, kind: TrecKind, tags: bool
) -> TrecColumns | None:
    """The ``pyarrow.csv`` reader for plain files; ``None`` when any line is not plain."""
    delimiter = _plain_delimiter(data, kind)
    if delimiter is None:
        return None
    return _plain_table(data, kind, delimiter, tags)


def _plain_table(
    data: bytes | bytearray | mmap.mmap | memoryview,
    kind: TrecKind,
    delimiter: str,
    tags: bool,
    threads: bool = True,
    known_ascii: bool = False,
) -> TrecColumns | None:
    """Plain TREC lines read by ``pyarrow.csv``; ``None`` when one is not plain after all.

    Ranks are read as integers (a quarter of the reading time less than as numbers); a file
    whose ranks are not all integers (``3.0``) is read again with number ranks.
    """
    table = _csv_table(data, kind, delimiter, tags, pa.int64(), threads, known_ascii)
    if table is None and kind == "run":
        table = _csv_table(data, kind, delimiter, tags, pa.float64(), threads, known_ascii)
    if table is None:
        return None
    value = float_column(table["value"])
    if table["value"].null_count:
        return None
    rank = None
    if kind == "run":
        if table["rank"].null_count:
            return None
        ranks = table["rank"].combine_chunks()
        if pa.types.is_integer(ranks.type):
            rank = np.frombuffer(ranks.buffers()[1], dtype=np.int64)[
                ranks.offset : ranks.offset + len(ranks)
            ].astype(np.float64)
        else:
            rank = float_column(ranks)
        if not _whole(rank).all():
            return None
    first_tag = None
    if kind == "run" and len(table):
        first_tag = _first_line(data).decode("utf-8", "replace").split(delimiter)[5]
    return TrecColumns(
        kind,
        table["query"],
        table["item"],
        value,
        rank,
        first_tag,
        table["tag"] if tags and kind == "run" else None,
    )


def _first_line(data: bytes | bytearray | mmap.mmap | memoryview) -> bytes:
    """The first line of ``data`` (of a memoryview: of the bytes it shows), found without
    copying the rest."""
    probe = 1 << 12
    while True:
        head = bytes(data[:probe])
        end = head.find(b"\n")
        if end >= 0 or len(head) == len(data):
            return head[: end if end >= 0 else len(head)]
        probe *= 16


def _csv_table(
    data: bytes | bytearray | mmap.mmap | memoryview,
    kind: TrecKind,
    delimiter: str,
    tags: bool,
    rank_type: pa.DataType,
    threads: bool = True,
    known_ascii: bool = False,
) -> pa.Table | None:
    """The columns evaluation reads of plain TREC lines (``None`` when ``pyarrow.csv`` refuses
    them); text known to be ASCII is not checked again for UTF-8."""
    if kind == "run":
        names = ["query", "q0", "item", "rank", "value", "tag"]
        types = {"query": pa.string(), "item": pa.string(), "rank": rank_type}
        types["value"] = pa.float64()
        if tags:
            types["tag"] = pa.string()
    else:
        names = ["query", "iter", "item", "value"]
        types = {"query": pa.string(), "item": pa.string(), "value": pa.float64()}
    try:
        return pacsv.read_csv(
            pa.py_buffer(data),
            read_options=pacsv.ReadOptions(
                column_names=names, block_size=1 << 23, use_threads=threads
            ),
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter, quote_char=False, double_quote=False, ignore_empty_lines=False
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=types,
                include_columns=list(types),
                strings_can_be_null=False,
                null_values=[],
                quoted_strings_can_be_null=False,
                check_utf8=not known_ascii,
            ),
        )
    except (pa.ArrowException, ValueError):
        return None


def _whole(values: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        whole: np.ndarray = np.isfinite(values) & (values == np.floor(values))
    return whole


def _line_array(data: bytes | bytearray | mmap.mmap) -> pa.Array:
    """Every physical line of ``data`` (with its line ending) as one arrow string array."""
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    n = len(ends) + (0 if data[-1:] == b"\n" else 1)
    offsets = np.empty(n + 1, dtype=np.int64)
    offsets[0] = 0
    offsets[1 : len(ends) + 1] = ends + 1
    offsets[-1] = len(data)
    if len(data) < 2**31 - 1:
        return pa.StringArray.from_buffers(
            n, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data)
        )
    return pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data))


def _read_fields(
    data: bytes | bytearray | mmap.mmap, kind: TrecKind, source: str, header: int, tags: bool
) -> TrecColumns:
    """Split every line into whitespace-separated fields with arrow kernels, as trec_eval does."""
    width = WIDTH[kind]
    lines = _line_array(data)
    try:
        lines.validate(full=True)
    except pa.ArrowInvalid:
        lines = _line_array(bytes(data).decode("latin-1").encode("utf-8"))
    stripped = pc.ascii_trim_whitespace(lines)
    first, blank = _first_bytes(stripped)
    comment = first == ord("#")
    keep = ~(comment | blank)
    line_no = np.flatnonzero(keep) + 1
    rows = stripped.filter(pa.array(keep))
    if header:
        rows, line_no = rows[header:], line_no[header:]
    parts = pc.ascii_split_whitespace(rows, max_splits=width)
    counts = pc.list_value_length(parts).to_numpy(zero_copy_only=False)
    short = np.flatnonzero(counts < width)
    if len(short):
        at = int(short[0])
        raise InputError(
            f"A TREC {kind} line needs {width} fields ({LAYOUT[kind]}); "
            f"this one has {int(counts[at])}.",
            source=source,
            line=int(line_no[at]),
            fix=_FIX[kind],
            code=f"trec_fields_{kind}",
            params={"line": int(line_no[at]), "found": int(counts[at]), "width": width},
        )
    extra = np.flatnonzero(counts > width)

    def field(i: int) -> pa.Array:
        return pc.list_element(parts, i).cast(pa.string())

    if kind == "run":
        rank = _numbers(field(3), "rank", True, line_no, source, kind)
        value = _numbers(field(4), "score", False, line_no, source, kind)
    else:
        rank = None
        value = _numbers(field(3), "relevance", False, line_no, source, kind)
    consecutive = len(line_no) == 0 or (line_no[0] == 1 and line_no[-1] == len(line_no))
    tag_column = field(5) if kind == "run" else None
    return TrecColumns(
        kind,
        pa.chunked_array([field(0)]),
        pa.chunked_array([field(2)]),
        value,
        rank,
        tag_column[0].as_py() if tag_column is not None and len(tag_column) else None,
        pa.chunked_array([tag_column]) if tags and tag_column is not None else None,
        None if consecutive else line_no,
        len(extra),
        int(line_no[extra[0]]) if len(extra) else None,
        int(comment.sum()),
    )


def _first_bytes(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The first byte of every string (0 for empty ones) and which strings are empty, read from
    the arrow buffers (``pc.starts_with`` costs ten times more)."""
    offsets = value_offsets(strings)
    values = np.frombuffer(strings.buffers()[2], dtype=np.uint8) if len(strings) else None
    empty = offsets[1:] == offsets[:-1]
    first = np.zeros(len(strings), dtype=np.uint8)
    if values is not None and len(values):
        first[~empty] = values[offsets[:-1][~empty]]
    return first, empty


def _numbers(
    column: pa.Array,
    name: str,
    integer: bool,
    line_no: np.ndarray,
    source: str,
    kind: TrecKind,
) -> np.ndarray:
    """A field as float64; the first value that is not a number (or whole number) raises."""
    try:
        values = float_column(column.cast(pa.float64()))
        bad = None if not integer else np.flatnonzero(~_whole(values))
        if bad is None or not len(bad):
            return values
        at = int(bad[0])
    except pa.ArrowInvalid:
        ok = pc.match_substring_regex(column, _NUMBER_ARROW).to_numpy(zero_copy_only=False)
        bad = np.flatnonzero(~ok)
        at = int(bad[0]) if len(bad) else _first_uncastable(column)
    raise InputError(
        f"The {name} '{column[at].as_py()}' is not {'a whole number' if integer else 'a number'}.",
        source=source,
        line=int(line_no[at]),
        column=name,
        fix=_FIX[kind],
        code=f"trec_{name}",
        params={"line": int(line_no[at]), "value": str(column[at].as_py())},
    )


def _first_uncastable(column: pa.Array) -> int:
    """Position of the first value arrow cannot read as a number (the rare values our pattern
    accepts and arrow does not)."""
    for at in range(len(column)):
        try:
            column.slice(at, 1).cast(pa.float64())
        except pa.ArrowInvalid:
            return at
    return 0


def float_column(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A float64 arrow column without nulls as a numpy array.

    Read from the arrow buffer directly: ``to_numpy()`` would import pandas (a third of a
    second) through pyarrow's pandas shim.
    """
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if len(array) == 0:
        return np.zeros(0)
    data = np.frombuffer(array.buffers()[1], dtype=np.float64)
    return data[array.offset : array.offset + len(array)]
