"""The byte layer: reading a file's bytes within bounds, before any parsing.

Every input, an uploaded file's bytes or a path on the command line, goes through
:func:`read_input`, which

- refuses paths that are not regular files (FIFOs, devices, directories) before opening them,
  so nothing blocks or reads forever;
- reads at most :data:`MAX_BYTES` (the byte budget), and decompresses gzip as a stream, checking
  the budget after every step, so memory stays near the budget whatever the compression ratio;
- looks at the first decompressed bytes before reading the rest: a file that is binary (NUL
  bytes, such as a gzip of zeros) is refused at once;
- refuses NUL bytes anywhere in a text file, naming the line (runs and judgments alike), a first
  line longer than :data:`MAX_LINE_BYTES` and a header of more than :data:`MAX_COLUMNS` columns.

Messages fit where the input came from: bytes are an upload ("Upload ..."), a path is a file on
the command line ("Give ...").
"""

from __future__ import annotations

import codecs
import gzip
import mmap
import os
import re
import stat
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal, TypeVar

from metrics.errors import InputError

#: Largest decompressed size read (bytes).
MAX_BYTES = 2 * 1024**3
#: Longest first line (a header or a record) of a text table (bytes).
MAX_LINE_BYTES = 1024**2
#: Most columns a text table may have.
MAX_COLUMNS = 10_000
#: Bytes looked at before the rest is read or decompressed.
HEAD_BYTES = 65_536

_GZIP = b"\x1f\x8b"
_LEADING = re.compile(rb"(?:\xef\xbb\xbf)?[\r\n]*")
_INPUT_STEP = 1 << 20  # compressed bytes fed to the inflater per step
_OUTPUT_STEP = 1 << 21  # largest decompressed piece produced per step
_BINARY_HEADS = (b"PAR1", b"PK\x03\x04", codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)

#: Formats that are never read, by their first bytes: the error code (catalog key), the message
#: and the fix (English; the app shows the session's language through the code).
UNREAD_FORMATS: dict[bytes, tuple[str, str, str]] = {
    b"\xd0\xcf\x11\xe0": (
        "old_excel",
        "This is an old Excel (.xls) or other OLE file.",
        "Save it as .xlsx or CSV.",
    ),
    b"\x28\xb5\x2f\xfd": ("zstd", "The file is zstd-compressed.", "Decompress it or use gzip."),
    b"BZh": ("bzip2", "The file looks bzip2-compressed.", "Decompress it or use gzip."),
    b"\xfd7zXZ": ("xz", "The file is xz-compressed.", "Decompress it or use gzip."),
    b"7z\xbc\xaf\x27\x1c": ("7z", "The file is a 7-Zip archive.", "Extract the table from it."),
    b"Rar!": ("rar", "The file is a RAR archive.", "Extract the table from it."),
    b"\x80\x04": (
        "pickle",
        "The file looks like a Python pickle, which is never read.",
        "Export the table as CSV or Parquet.",
    ),
    b"\x80\x05": (
        "pickle",
        "The file looks like a Python pickle, which is never read.",
        "Export the table as CSV or Parquet.",
    ),
}
#: Where a tar archive's header says ``ustar``.
_TAR_MAGIC = slice(257, 262)

Origin = Literal["upload", "path"]

FORMATS_TEXT = (
    "a CSV, TSV, Parquet, JSON Lines, Excel (.xlsx) or TREC file, optionally gzip-compressed"
)


@dataclass(frozen=True)
class RawInput:
    """The bytes of one input, decompressed and checked.

    Attributes
    ----------
    data:
        The (decompressed) bytes.
    name:
        File name for messages.
    compressed:
        Whether the input was gzip-compressed.
    origin:
        ``"upload"`` for bytes, ``"path"`` for a file read from disk.
    """

    data: bytes | bytearray
    name: str
    compressed: bool
    origin: Origin


def use_text(origin: Origin) -> str:
    """The start of a fix sentence that fits the interface: ``Upload`` or ``Give``."""
    return "Upload" if origin == "upload" else "Give"


def check_regular_file(path: str | Path, name: str | None = None) -> os.stat_result:
    """Refuse paths that are not regular files, without opening them.

    Parameters
    ----------
    path:
        The path given.
    name:
        Name for messages; defaults to the path's name.

    Returns
    -------
    os.stat_result

    Raises
    ------
    InputError
        For a missing path, a directory, a FIFO (named pipe), a device such as ``/dev/zero`` or a
        socket.
    """
    source = name or Path(path).name or str(path)
    try:
        info = os.stat(path)
    except OSError as exc:
        raise InputError(
            f"Cannot read the file ({exc.strerror or exc}).",
            source=source,
            fix="Check that the path exists and is a readable file.",
        ) from None
    mode = info.st_mode
    if stat.S_ISREG(mode):
        return info
    what = (
        "a directory"
        if stat.S_ISDIR(mode)
        else "a named pipe (FIFO)"
        if stat.S_ISFIFO(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    raise InputError(
        f"'{path}' is {what}, not a regular file; only files are read.",
        source=source,
        fix="Give the path of a file inside the directory."
        if stat.S_ISDIR(mode)
        else "Save the data to a file first and give its path.",
    )


def check_file(
    path: str | Path, name: str | None = None, *, budget: int = MAX_BYTES, scan: bool = True
) -> None:
    """The command line's checks on a path before a fast reader opens it: a regular file, within
    the budget, and, for text, no NUL byte anywhere (read in steps, nothing kept; not with
    ``scan=False``, for a reader that looks for NUL bytes itself).

    Raises
    ------
    InputError
        As :func:`check_regular_file`, for a file over the budget, or for a NUL byte in a text
        file (naming its line).
    """
    source = name or Path(path).name
    info = check_regular_file(path, source)
    if info.st_size > budget:
        raise _too_large(source, "path", False, budget)
    with open(path, "rb") as handle:
        head = handle.read(HEAD_BYTES)
        if not _is_text(head):
            return
        check_head(head, source, "path")
        if not scan:
            return
        chunk, read = head, len(head)
        while chunk:
            chunk = handle.read(_OUTPUT_STEP)
            nul = chunk.find(b"\x00")
            if nul >= 0:
                raise _nul_error(source, _lines_before(path, read + nul) + 1)
            read += len(chunk)
            if read > budget:
                raise _too_large(source, "path", False, budget)


def _lines_before(path: str | Path, end: int) -> int:
    """How many newlines the file has before byte ``end`` (read in steps)."""
    lines = 0
    with open(path, "rb") as handle:
        while end > 0:
            chunk = handle.read(min(_OUTPUT_STEP, end))
            if not chunk:
                break
            lines += chunk.count(b"\n")
            end -= len(chunk)
    return lines


def _too_large(source: str, origin: Origin, compressed: bool, budget: int) -> InputError:
    size = _size_text(budget)
    return InputError(
        f"The {'decompressed ' if compressed else ''}file is larger than {size}; "
        f"reading stopped at {size}.",
        source=source,
        code="too_large_decompressed" if compressed else "too_large",
        params={"size": size},
        fix="Split the file or sample it"
        + (" before uploading." if origin == "upload" else ", then give the smaller files."),
    )


def _size_text(n: int) -> str:
    for unit, size in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"


def read_input(
    data: bytes | bytearray | memoryview | str | Path,
    name: str | None = None,
    *,
    budget: int = MAX_BYTES,
    limits: UploadLimits | None = None,
) -> RawInput:
    """Read an input's bytes within the budget, decompressing gzip as a stream.

    Parameters
    ----------
    data:
        An uploaded file's bytes, or a path.
    name:
        File name for messages; defaults to the path's name (``"table"`` for bytes).
    budget:
        Largest (decompressed) size read, in bytes.
    limits:
        The app's limits on one upload (see :func:`upload_limits`), checked while gzip is
        decompressed, so that a file over them is refused before the rest is held; the
        message names the figures read so far, the limit and the setting that raises it.

    Returns
    -------
    RawInput

    Raises
    ------
    InputError
        For paths that are not regular files, inputs over the budget or the limits, broken
        gzip, binary content and text that cannot be a table (see :func:`check_text`).
    """
    if limits is not None:
        budget = min(budget, limits.bytes)
    origin: Origin
    raw: bytes | bytearray
    if isinstance(data, (bytes, bytearray)):
        raw, source, origin = data, name or "table", "upload"
    elif isinstance(data, memoryview):
        raw, source, origin = bytes(data), name or "table", "upload"
    elif isinstance(data, (str, Path)):
        source = name or Path(data).name
        raw, origin = _read_path(Path(data), source, budget), "path"
    else:
        raise InputError(
            f"Expected file bytes or a path, got {type(data).__name__}.",
            source=name,
            fix="Pass the file's bytes or its path.",
        )
    compressed = False
    for _ in range(2):  # a gzip of a gzip is read too
        if raw[:2] != _GZIP:
            break
        raw = _gunzip(raw, source, origin, budget, limits)
        compressed = True
    if limits is not None:
        text = _is_text(bytes(raw[:HEAD_BYTES]))
        lines = raw.count(b"\n") + (not raw.endswith(b"\n")) if text and raw else 0
        _check_limits(source, limits, len(raw), lines, compressed)
    if len(raw) > budget:
        raise _too_large(source, origin, compressed, budget)
    check_text(raw, source, origin)
    return RawInput(raw, source, compressed, origin)


#: The environment variables that set the app's limits on one upload: megabytes of
#: (decompressed) text, and rows.
UPLOAD_MB_VARIABLE, UPLOAD_ROWS_VARIABLE = (
    "RANKING_METRICS_UPLOAD_MB",
    "RANKING_METRICS_UPLOAD_ROWS",
)
#: The limits when the variables are not set: 50 MB of text and 2,000,000 rows.
DEFAULT_UPLOAD_MB, DEFAULT_UPLOAD_ROWS = 50, 2_000_000


@dataclass(frozen=True)
class UploadLimits:
    """The app's limits on one uploaded file, refused while it is decompressed (text), from
    its metadata and while its row groups are read (Parquet), or while its rows are read
    (Excel).

    Attributes
    ----------
    bytes:
        Largest size of its text (decompressed), in bytes; for Parquet and Excel, of the values
        written as CSV text (see :func:`metrics.io.formats.text_size`).
    rows:
        Most data rows (a header is not counted).
    """

    bytes: int
    rows: int


def upload_limits() -> UploadLimits:
    """The app's limits on one upload, from :data:`UPLOAD_MB_VARIABLE` and
    :data:`UPLOAD_ROWS_VARIABLE` as the app's process sees them (:data:`DEFAULT_UPLOAD_MB` MB
    and :data:`DEFAULT_UPLOAD_ROWS` rows when a variable is not set or not a positive whole
    number). Reading a table holds about three times its text; larger files are for the
    command line, which reads up to :data:`MAX_BYTES`."""

    def number(name: str, default: int) -> int:
        text = os.environ.get(name, "").replace("_", "").replace(",", "").strip()
        return int(text) if text.isdigit() and int(text) > 0 else default

    megabytes = number(UPLOAD_MB_VARIABLE, DEFAULT_UPLOAD_MB)
    return UploadLimits(
        min(megabytes * 1024**2, MAX_BYTES), number(UPLOAD_ROWS_VARIABLE, DEFAULT_UPLOAD_ROWS)
    )


def _check_limits(
    source: str, limits: UploadLimits, size: int, lines: int, compressed: bool
) -> None:
    """Refuse an upload once ``size`` bytes or ``lines`` lines (read so far) pass ``limits``:
    the first line may be a header, so ``lines`` hold ``lines - 1`` data rows."""
    rows = max(lines - 1, 0)
    if size <= limits.bytes and rows <= limits.rows:
        return
    over_size = size > limits.bytes
    read = f"{_size_text(size)} of {'decompressed ' if compressed else ''}text"
    params: dict[str, object] = {
        "size": _size_text(size),
        "n": rows,
        "budget": _size_text(limits.bytes),
        "limit": limits.rows,
        "variable": UPLOAD_MB_VARIABLE if over_size else UPLOAD_ROWS_VARIABLE,
    }
    fix = _limit_fix(str(params["variable"]))
    if over_size:
        raise InputError(
            f"The file holds more than the upload limit of {params['budget']}: {read} read "
            f"({rows:,} rows so far).",
            source=source,
            code="upload_too_large",
            params=params,
            fix=fix,
        )
    raise InputError(
        f"The file has more rows than the upload limit of {limits.rows:,}: {rows:,} rows read "
        f"({read} so far).",
        source=source,
        code="upload_too_many_rows",
        params=params,
        fix=fix,
    )


def _limit_fix(variable: str) -> str:
    return (
        "Split the file into smaller ones, evaluate it with the command line "
        "(python -m metrics), or start the app with a larger limit in the environment "
        f"variable {variable}."
    )


def rows_over_limit(
    source: str, limits: UploadLimits, rows: int, code: str, message: str, **params: object
) -> InputError:
    """The refusal of a table (Parquet, Excel) whose ``rows`` data rows pass the limit on rows,
    counted before its values are read (``code`` ``upload_rows_parquet``, ``upload_rows_sheet``)
    or while they are (``upload_rows_read``); ``message`` names how they were counted, with the
    limit (``{limit}``) and the rows (``{n}``)."""
    values: dict[str, object] = {
        **params,
        "n": rows,
        "limit": limits.rows,
        "variable": UPLOAD_ROWS_VARIABLE,
    }
    return InputError(
        message.format(**{**values, "n": f"{rows:,}", "limit": f"{limits.rows:,}"}),
        source=source,
        code=code,
        params=values,
        fix=_limit_fix(UPLOAD_ROWS_VARIABLE),
    )


def check_values_size(source: str, limits: UploadLimits, size: int, rows: int) -> None:
    """Refuse a table (Parquet, Excel) whose values read so far, as CSV text (``size`` bytes,
    see :func:`metrics.io.formats.text_size`), pass the limit on bytes."""
    if size <= limits.bytes:
        return
    params: dict[str, object] = {
        "size": _size_text(size),
        "n": rows,
        "budget": _size_text(limits.bytes),
        "variable": UPLOAD_MB_VARIABLE,
    }
    raise InputError(
        f"The file's values take more than the upload limit of {params['budget']} as text: "
        f"{params['size']} read ({rows:,} rows so far).",
        source=source,
        code="upload_values_too_large",
        params=params,
        fix=_limit_fix(UPLOAD_MB_VARIABLE),
    )


def _read_path(path: Path, source: str, budget: int) -> bytes:
    info = check_regular_file(path, source)
    if info.st_size > budget:
        raise _too_large(source, "path", False, budget)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(min(budget, info.st_size) + 1)  # not a budget-sized buffer
    except OSError as exc:
        raise InputError(
            f"Cannot read the file ({exc.strerror or exc}).",
            source=source,
            fix="Check that the path exists and is a readable file.",
        ) from None
    if len(raw) > budget:
        raise _too_large(source, "path", False, budget)
    return raw


def _gunzip(
    raw: bytes | bytearray,
    source: str,
    origin: Origin,
    budget: int,
    limits: UploadLimits | None = None,
) -> bytearray:
    """Decompress every gzip member within ``budget`` and ``limits`` (see :func:`_inflate`)."""
    try:
        return _inflate(raw, source, origin, budget, limits)
    except zlib.error as exc:
        raise broken_gzip(source, origin, exc) from None


class BrokenGzip(InputError):
    """A gzip file that cannot be decompressed to its end (:func:`broken_gzip`)."""


def broken_gzip(source: str, origin: Origin, exc: BaseException) -> BrokenGzip:
    """The error for a gzip file whose stream is broken (``exc`` says how)."""
    return BrokenGzip(
        f"The file starts like a gzip archive but cannot be decompressed ({exc}).",
        source=source,
        code="gzip_broken",
        params={"detail": str(exc)},
        fix="Compress it again with gzip, or "
        + ("upload the uncompressed file." if origin == "upload" else "give the plain file."),
    )


def _inflate(
    raw: bytes | bytearray,
    source: str,
    origin: Origin,
    budget: int,
    limits: UploadLimits | None = None,
) -> bytearray:
    """Decompress step by step, checking the budget and the limits (lines, for text) after each
    step, so that memory stays near them; the first :data:`HEAD_BYTES` are checked for binary
    content before the rest is decompressed. The result is the buffer it was decompressed into
    (no copy)."""
    out = bytearray()
    filled = 0
    lines = 0
    text = True
    view = memoryview(raw)
    position = 0
    inflater = zlib.decompressobj(wbits=31)
    feed: bytes | memoryview = b""
    head_checked = False
    while True:
        if not feed:
            if position >= len(view):
                break
            feed = view[position : position + _INPUT_STEP]
            position += len(feed)
        piece = inflater.decompress(feed, min(_OUTPUT_STEP, budget + 1 - filled))
        out += piece
        filled += len(piece)
        feed = inflater.unconsumed_tail
        if not head_checked and (filled >= HEAD_BYTES or inflater.eof):
            check_head(bytes(out[: min(filled, HEAD_BYTES)]), source, origin)
            text = _is_text(bytes(out[: min(filled, HEAD_BYTES)]))
            head_checked = True
        if limits is not None:
            lines += piece.count(b"\n") if text else 0
            _check_limits(source, limits, filled, lines, True)
        if filled > budget:
            raise _too_large(source, origin, True, budget)
        del piece
        if inflater.eof:
            more = bytes(view[position : position + _INPUT_STEP])
            position += len(more)
            feed = bytes(inflater.unused_data) + more
            if feed[:2] != _GZIP:
                break  # trailing bytes after the last member are ignored, as gzip does
            inflater = zlib.decompressobj(wbits=31)
    if not inflater.eof:
        raise zlib.error("the compressed data ends too early")
    return out


#: What reading a broken gzip stream raises: Python's gzip and ISA-L's igzip (a file that ends
#: too early, a bad header or checksum), and zlib's own error.
GZIP_ERRORS: tuple[type[Exception], ...] = (OSError, EOFError, zlib.error)


def open_gzip(path: str | Path) -> BinaryIO:
    """A gzip file opened to read its decompressed bytes, every member in turn: by ISA-L's igzip
    when the ``isal`` package is installed (a 1M-row CSV run decompressed in 0.035 CPU s, against
    0.084 s through zlib), else by Python's :mod:`gzip`. Both read the same bytes, and raise one
    of :data:`GZIP_ERRORS` on a broken stream."""
    igzip = _igzip()
    opener: Any = gzip.open if igzip is None else igzip.open
    opened: BinaryIO = opener(path, "rb")
    return opened


def _igzip() -> Any:
    """ISA-L's gzip module, or ``None`` without the ``isal`` package."""
    try:
        from isal import igzip
    except ImportError:
        return None
    return igzip


def _is_text(head: bytes) -> bool:
    return not head.startswith(_BINARY_HEADS) and head[:2] != _GZIP


_LONE_CR = re.compile(rb"\r(?!\n)")
_Bytes = TypeVar("_Bytes", bound=bytes | bytearray | mmap.mmap)


def unify_line_ends(data: _Bytes) -> _Bytes | bytes:
    """``data`` with each lone carriage return (the line end of old Mac files) made a newline,
    so that every reader sees the lines a text editor shows; ``data`` itself when it has none
    (searched in place, without a copy). Carriage returns before newlines stay."""
    if data.find(b"\r") < 0 or _LONE_CR.search(data) is None:  # find: a fast first look
        return data
    return _LONE_CR.sub(b"\n", bytes(data))


def refuse_unread_format(head: bytes, source: str) -> None:
    """Name a format that is never read (other compressions and archives, old Excel, pickles)
    from the first bytes, with its fix.

    Raises
    ------
    InputError
        When ``head`` starts like one of :data:`UNREAD_FORMATS` or a tar archive.
    """
    for magic, (code, message, fix) in UNREAD_FORMATS.items():
        if head.startswith(magic):
            raise InputError(message, source=source, code=code, fix=fix)
    if head[_TAR_MAGIC] == b"ustar":
        raise InputError(
            "The file is a tar archive.",
            source=source,
            code="tar",
            fix="Extract the table from it (gzip alone compresses one file).",
        )


def _looks_utf16(head: bytes) -> bool:
    """Text in UTF-16 without a byte-order mark: every other byte of the first ones is NUL."""
    sample = head[:512]
    if len(sample) < 8:
        return False
    return any(
        sample[start::2].count(0) >= 0.9 * len(sample[start::2])
        and sample[1 - start :: 2].count(0) == 0
        for start in (0, 1)
    )


def check_head(head: bytes, source: str, origin: Origin) -> None:
    """Refuse, from the first bytes and before the rest is read, formats that are never read and
    NUL bytes in what is not a known binary format: binary content when the first line holds
    one, else a damaged line."""
    if not _is_text(head):
        return
    refuse_unread_format(head, source)
    nul = head.find(b"\x00")
    if nul < 0:
        return
    if _looks_utf16(head):
        raise InputError(
            "The file looks like UTF-16 text without a byte-order mark.",
            source=source,
            code="utf16_no_bom",
            fix="Save it as UTF-8 (or as UTF-16 with a byte-order mark).",
        )
    if b"\n" not in head[:nul]:
        raise InputError(
            "The file looks binary (it contains NUL bytes), not a text table.",
            source=source,
            code="binary",
            fix=f"{use_text(origin)} {FORMATS_TEXT}.",
        )
    raise _nul_error(source, head.count(b"\n", 0, nul) + 1)


def _nul_error(source: str, line: int) -> InputError:
    return InputError(
        "The file holds a NUL byte, which no text table contains.",
        source=source,
        line=line,
        code="nul_byte",
        params={"line": line},
        fix="Remove the NUL bytes (the file may be damaged or not a text table).",
    )


def check_text(raw: bytes | bytearray, source: str, origin: Origin) -> None:
    """Checks on a whole text input: NUL bytes, the first line's length, the number of columns.

    Binary formats (gzip, Parquet, Excel, UTF-16 text) are left to their readers.

    Raises
    ------
    InputError
        For a NUL byte (naming its line), a first line over :data:`MAX_LINE_BYTES`, or a first
        line with more than :data:`MAX_COLUMNS` fields.
    """
    head = bytes(raw[:HEAD_BYTES])
    if not _is_text(head):
        return
    check_head(head, source, origin)
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise _nul_error(source, raw.count(b"\n", 0, nul) + 1)
    start = _LEADING.match(raw).end()  # type: ignore[union-attr]
    end = raw.find(b"\n", start, start + MAX_LINE_BYTES + 1)
    if end < 0 and len(raw) - start > MAX_LINE_BYTES:
        raise InputError(
            f"The first line is longer than {_size_text(MAX_LINE_BYTES)}; "
            "this is not a table the app can read.",
            source=source,
            line=raw.count(b"\n", 0, start) + 1,
            code="line_too_long",
            params={"size": _size_text(MAX_LINE_BYTES)},
            fix="Check that rows end with line breaks, or transpose the table so that "
            "records are rows.",
        )
    first = raw[start : end if end >= 0 else len(raw)]
    fields = max(first.count(d) for d in (b",", b"\t", b";", b"|")) + 1
    if fields > MAX_COLUMNS:
        raise InputError(
            f"The first line has {fields:,} columns; at most {MAX_COLUMNS:,} are read.",
            source=source,
            line=raw.count(b"\n", 0, start) + 1,
            code="too_many_columns",
            params={"n": fields, "limit": MAX_COLUMNS},
            fix="Keep the columns that matter (query, item, score or label, segments) "
            "or transpose the table so that records are rows.",
        )


def excel_formulas_without_values(raw: bytes, limit: int = 1_000_000) -> int:
    """Cells of the first sheet that hold a formula but no value saved with it.

    Such cells read as empty (nothing is ever computed from a workbook); a workbook written by a
    program other than Excel often has them. Only the first ``limit`` cells are looked at.
    """
    # deferred: the workbook reader (openpyxl's XML) is for Excel files only
    from metrics.io.workbook import formulas_without_values

    try:
        return formulas_without_values(raw, limit)
    except Exception:  # the reader reports broken workbooks
        return 0


__all__ = [
    "GZIP_ERRORS",
    "HEAD_BYTES",
    "MAX_BYTES",
    "MAX_COLUMNS",
    "MAX_LINE_BYTES",
    "UPLOAD_MB_VARIABLE",
    "UPLOAD_ROWS_VARIABLE",
    "BrokenGzip",
    "RawInput",
    "UploadLimits",
    "broken_gzip",
    "check_file",
    "check_head",
    "check_regular_file",
    "check_text",
    "check_values_size",
    "excel_formulas_without_values",
    "open_gzip",
    "read_input",
    "rows_over_limit",
    "upload_limits",
]
