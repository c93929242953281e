"""Excel ``.xlsx`` workbooks read as rows of Python values, fast.

A sheet is read by python-calamine (Rust's calamine), many times faster than openpyxl, and its
values are given exactly as openpyxl's ``iter_rows(values_only=True)`` gives them in read-only,
data-only mode (what the table readers were written against): a number stored without ``.`` or
an exponent is an ``int``, other numbers ``float``; text; ``True``/``False``; an empty cell
``None``; a date-formatted number a ``datetime`` (a ``time`` below one day); a formula its saved
value; rows from row 1, each from column A to the width the sheet states (to its last cell when
it states none), none past the stated last row. Rows after the last that holds a value may be
left out (openpyxl gives them empty, or not, by the sheet's XML).

calamine holds a whole sheet in memory, as a dense grid from its first to its last cell; so the
sheet's XML is decompressed a piece at a time (whole rows, :data:`_PIECE_BYTES` or more), and
each piece is read by calamine as a small workbook of its own: memory holds one piece. Its rows
are also given as its grid's columns (:meth:`Sheet.iter_blocks`, :class:`Piece`): a column of
numbers as one float64 array, a column of text as its texts, without a Python step per row.

calamine keeps neither the text a number was stored as nor error cells, and decides by its own
rules which formats are dates; so each piece is looked through first (bytes only), and the rest
of the sheet is read by openpyxl from the first piece that calamine could read otherwise: with
error cells, ISO date cells, whole numbers stored with a fraction or an exponent (``1.0``,
``1E+3``), integers a float does not hold, cells without a value in a sheet that states no
size, empty text, rows far apart (a grid much larger than its cells). A workbook whose date
formats the two could read differently (a duration, a format openpyxl does not know, a bracket,
the 1904 date system) or whose shared strings hold an empty one, and XML written with a
namespace prefix, is read by openpyxl throughout.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import struct
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from itertools import islice
from pathlib import Path, PurePosixPath
from typing import IO, Any
from xml.etree import ElementTree

import numpy as np

#: Bytes of a sheet's XML read by calamine at a time (more where the shared strings are many:
#: each piece reads them again).
_PIECE_BYTES = 1 << 20
#: The grid a piece may span beyond its cells: cells over twice theirs plus this.
_SPARE_CELLS = 1 << 20
#: Empty rows (before a piece's first) given at a time.
_GAP_ROWS = 1 << 16
#: Bytes looked at after the start of each value and each row number, at once.
_LOOK = 24

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
_DOC_RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_EMPTY_SHEET = f'<worksheet xmlns="{_MAIN}"><sheetData/></worksheet>'.encode()
_SHEET_DATA_END = b"</sheetData>"
_SHEET_END = _SHEET_DATA_END + b"</worksheet>"
#: A zip archive's local file header, central directory entry and end record, as zipfile
#: writes them (each begins with its signature).
_LOCAL, _CENTRAL, _END = "<4s2B4HL2L2H", "<4s4B4HL2L5H2L", "<4s4H2LH"

#: Stored numbers calamine reads otherwise than openpyxl (a whole number with a fraction, 16
#: digits or more), and numbers with an exponent, looked at one by one.
_NUMBER = re.compile(rb"<v>[+-]?(?:\d{16}|[\d.]*[eE]|\d*\.0*</v>)")
_EXPONENT = re.compile(rb"<v>([+-]?[\d.]+[eE][+-]?\d+)</v>")
_ROW_NUMBER = re.compile(rb'<row r="(\d+)"')
_ERROR_OR_DATE = re.compile(rb't="[ed]"')
_ROW = re.compile(rb"<row\b([^>]*?)(?:/>|>(.*?)</row>)", re.DOTALL)
_ROW_NUMBER_ATTR = re.compile(rb'\br="(\d+)"')
_CELL = re.compile(rb"<c\b([^>]*?)(?:/>|>(.*?)</c>)", re.DOTALL)
_CELL_REF = re.compile(rb'\br="([A-Z]+)\d+"')
_FORMULA = re.compile(rb"<f\b[^>]*")
_CELL_VALUE = re.compile(rb"<v>(.*?)</v>", re.DOTALL)
_EMPTY_STRING = re.compile(rb"<si><t(?: [^>]*)?(?:/>|></t>)</si>|<si/>|<si></si>")
#: The built-in number format General.
_GENERAL = 0
_DIMENSION_TAG = re.compile(rb"<dimension [^>]*>")
_DIMENSION = re.compile(rb'<dimension ref="([A-Z]*)(\d*)(?::([A-Z]+)(\d+))?"')


class UnreadableWorkbook(ValueError):
    """A file that is not a readable ``.xlsx`` workbook (the message tells what failed)."""


def open_workbook(source: bytes | str | Path) -> Workbook:
    """The workbook in ``source`` (its bytes or its path).

    Raises
    ------
    UnreadableWorkbook
        The file is not a zip archive, or not a workbook.
    """
    try:
        return Workbook(source)
    except UnreadableWorkbook:
        raise
    except Exception as exc:
        raise UnreadableWorkbook(_detail(exc)) from None


def _detail(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


class Workbook:
    """A workbook's worksheets (chart sheets left out), in workbook order."""

    def __init__(self, source: bytes | str | Path) -> None:
        self._source = source
        self._zip = zipfile.ZipFile(self._open())
        self._parts = _Parts(self._zip)
        self._rest: dict[str, _Rest] = {}
        self._openpyxl: dict[bool, Any] = {}
        self.worksheets = [
            Sheet(self, index, title, state, path)
            for index, (title, state, path) in enumerate(self._parts.sheets)
        ]

    def _open(self) -> str | IO[bytes]:
        """The workbook's path (the readers open and close the file), or its bytes as a file."""
        if isinstance(self._source, (str, Path)):
            return str(self._source)
        return io.BytesIO(self._source)

    def openpyxl_sheet(self, position: int, formulas: bool = False) -> Any:
        """The worksheet at ``position`` as openpyxl reads it (read-only; saved values, or
        the ``formulas``)."""
        if formulas not in self._openpyxl:
            from openpyxl import load_workbook

            self._openpyxl[formulas] = load_workbook(
                self._open(), read_only=True, data_only=not formulas
            )
        return self._openpyxl[formulas].worksheets[position]

    def piece_book(self, index: int, head: bytes, rows: bytes) -> IO[bytes]:
        """The workbook with ``rows`` as the rows of its worksheet ``index`` (``head`` its XML
        before them) and every other sheet empty: its other parts written once (:class:`_Rest`),
        the sheet stored after them."""
        target = self._parts.sheets[index][2]
        if target not in self._rest:
            sheets = {path for _, _, path in self._parts.sheets}
            parts = {
                name: _EMPTY_SHEET if name in sheets else self._zip.read(name)
                for name in self._zip.namelist()
                if name != target
            }
            self._rest[target] = _Rest(parts)
        return io.BytesIO(self._rest[target].with_part(target, (head, rows, _SHEET_END)))

    def close(self) -> None:
        self._zip.close()
        for opened in self._openpyxl.values():
            opened.close()

    def __enter__(self) -> Workbook:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Rest:
    """A zip archive of some parts (stored), to which one more is added at a time: the parts'
    bytes and their central directory are written once."""

    def __init__(self, parts: dict[str, bytes]) -> None:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as book:
            for name, data in parts.items():
                book.writestr(name, data)
        whole = out.getvalue()
        *_, self._count, directory_size, self._start, _ = struct.unpack(_END, whole[-22:])
        self._parts = whole[: self._start]
        self._directory = whole[self._start : self._start + directory_size]

    def with_part(self, name: str, data: Sequence[bytes]) -> bytes:
        """The archive with a part ``name`` of the bytes in ``data`` added (stored, dated
        1980-01-01)."""
        try:
            encoded, flags = name.encode("ascii"), 0
        except UnicodeEncodeError:
            encoded, flags = name.encode("utf-8"), 0x800
        size = sum(map(len, data))
        if self._start + size >= 0xFFFFFFFF:
            raise UnreadableWorkbook("a sheet too large to read in pieces")
        crc = 0
        for chunk in data:
            crc = zlib.crc32(chunk, crc)
        fields = (flags, zipfile.ZIP_STORED, 0, 33, crc, size, size, len(encoded), 0)
        local = struct.pack(_LOCAL, b"PK\x03\x04", 20, 0, *fields)
        made = (20, 3, 20, 0)  # by zip 2.0 on Unix, for zip 2.0
        attributes = (0, 0, 0, 0o600 << 16)  # no comment, disk 0, file mode rw-------
        entry = struct.pack(_CENTRAL, b"PK\x01\x02", *made, *fields, *attributes, self._start)
        start = self._start + len(local) + len(encoded) + size
        count, directory_size = self._count + 1, len(self._directory) + len(entry) + len(encoded)
        end = struct.pack(_END, b"PK\x05\x06", 0, 0, count, count, directory_size, start, 0)
        return b"".join([self._parts, local, encoded, *data, self._directory, entry, encoded, end])


class Sheet:
    """One worksheet: ``title``, ``sheet_state`` and the stated ``max_row``/``max_column``
    (``None`` when the sheet states no size), as openpyxl's read-only worksheet has them."""

    def __init__(self, book: Workbook, index: int, title: str, state: str, path: str) -> None:
        self._book = book
        self._index = index
        self._path = path
        self.title = title
        self.sheet_state = state
        self._stated: tuple[int, int] | bool | None = False
        #: Rows read by calamine in the last reading (the rest by openpyxl).
        self.calamine_rows = 0

    @property
    def stated(self) -> tuple[int, int] | None:
        """The (last row, last column) the sheet's ``<dimension>`` states."""
        if self._stated is False:
            with self._book._zip.open(self._path) as stream:
                head = _head(stream)
            self._stated = _stated(head)
        return self._stated if isinstance(self._stated, tuple) else None

    @property
    def max_row(self) -> int | None:
        return self.stated[0] if self.stated else None

    @property
    def max_column(self) -> int | None:
        return self.stated[1] if self.stated else None

    def iter_rows(self, values_only: bool = True) -> Iterator[tuple[Any, ...]]:
        """The sheet's rows as openpyxl's ``iter_rows(values_only=True)`` gives them."""
        if not values_only:
            raise ValueError("only values are read")
        for block in self.iter_blocks(openpyxl_rows=1):
            yield from block.iter_rows() if isinstance(block, Piece) else block

    def iter_blocks(self, openpyxl_rows: int = 4096) -> Iterator[Piece | list[tuple[Any, ...]]]:
        """The rows :meth:`iter_rows` gives, a block at a time: a :class:`Piece` for the rows
        calamine read from one piece of the sheet (its values also column by column), else a
        list of rows (empty rows between pieces; ``openpyxl_rows`` at a time where openpyxl
        reads the sheet)."""
        self.calamine_rows = 0
        stated = self.stated
        if not self._book._parts.otherwise:
            for block in self._calamine_blocks():
                if stated and self.calamine_rows + len(block) > stated[0]:
                    left = stated[0] - self.calamine_rows
                    if left > 0:
                        self.calamine_rows += left
                        yield block_part(block, 0, left)
                    return  # no row past the stated last one
                self.calamine_rows += len(block)
                yield block
        if self.calamine_rows < 0:
            return  # the whole sheet read by calamine
        sheet = self._book.openpyxl_sheet(self._index)
        rows = islice(sheet.iter_rows(values_only=True), self.calamine_rows, None)
        while block := [tuple(row) for row in islice(rows, openpyxl_rows)]:
            yield block

    def _calamine_blocks(self) -> Iterator[Piece | list[tuple[Any, ...]]]:
        """Rows from row 1 read by calamine, piece by piece, up to the first piece it could
        read otherwise than openpyxl (``calamine_rows`` is then left at the rows given);
        ``calamine_rows`` is -1 when every piece was read."""
        from python_calamine import CalamineWorkbook

        stated = self.stated
        at = 0  # rows given
        head = b""
        for rows in self._pieces():
            if rows is None or not _like_openpyxl(rows, stated is not None):
                return
            if not head:
                head, rows = rows, b""  # the first piece is the XML before the rows
                continue
            try:
                with CalamineWorkbook.from_object(
                    self._book.piece_book(self._index, head, rows)
                ) as book:
                    grid = book.get_sheet_by_index(self._index)
                    start = grid.start
                    values = grid.to_python(skip_empty_area=True) if start else []
            except Exception as exc:
                raise UnreadableWorkbook(_detail(exc)) from None
            del rows
            if not start:
                continue
            first, lead = start[0], start[1]
            empty = _shaped((), stated)
            for gap in range(at, first, _GAP_ROWS):
                yield [empty] * (min(first, gap + _GAP_ROWS) - gap)
            widths = set(map(len, values))
            if len(widths) == 1 and 0 not in widths:
                yield Piece(list(zip(*values)), len(values), lead, stated)
            elif values:  # rows of unlike widths: one by one
                yield [_shaped((None,) * lead + _values(row), stated) for row in values]
            at = first + len(values)
        self.calamine_rows = -1

    def _pieces(self) -> Iterator[bytes | None]:
        """The sheet's XML before its rows (its stated size left out: calamine would make room
        for all of it), then its rows, whole, :data:`_PIECE_BYTES` or more at a time; ``None``
        when the XML has no plain ``<sheetData>`` (a namespace prefix)."""
        size = max(_PIECE_BYTES, 2 * self._book._parts.strings_size)
        with self._book._zip.open(self._path) as stream:
            text = _head(stream)
            begin = text.find(b"<sheetData")
            end = text.find(b">", begin) + 1
            if begin < 0 or end <= 0:
                yield None
                return
            if text[end - 2 : end] == b"/>":
                return
            yield _DIMENSION_TAG.sub(b"", text[:begin]) + b"<sheetData>"
            buffer, ended = text[end:], False
            searched = 0  # no closing tag starts before
            while True:
                if not ended and (len(buffer) < size or buffer.find(b"<row", size) < 0):
                    step = stream.read(size)
                    ended = not step
                    buffer += step
                    del step
                    continue
                over = buffer.find(_SHEET_DATA_END, searched)
                searched = max(len(buffer) - len(_SHEET_DATA_END) + 1, 0)
                if over >= 0:
                    buffer, ended = buffer[:over], True
                cut = buffer.rfind(b"<row", 0, size + 1)
                if cut <= 0:
                    cut = buffer.find(b"<row", size)
                if ended and (len(buffer) <= size or cut <= 0):
                    if buffer:
                        yield buffer  # with no closing tag, calamine tells
                    return
                yield buffer[:cut]
                buffer = buffer[cut:]
                searched = max(searched - cut, 0)


class Piece:
    """Rows of a sheet that calamine read from one piece (rows ``start`` to ``stop`` of it):
    as :meth:`Sheet.iter_rows` gives them (:meth:`rows`), or column by column
    (:meth:`column`), without a Python step for each row where a column's values are all
    numbers or all text."""

    def __init__(
        self,
        grid: list[tuple[Any, ...]],
        length: int,
        lead: int,
        stated: tuple[int, int] | None,
        start: int = 0,
        stop: int | None = None,
    ) -> None:
        self._grid = grid  # calamine's values, a tuple for each column from the first cell's
        self._length = length
        self._lead = lead  # empty columns before the first cell's
        self._stated = stated
        self.start = start
        self.stop = length if stop is None else stop
        self._read: dict[int, tuple[str, Any]] = {}

    def __len__(self) -> int:
        return self.stop - self.start

    def part(self, start: int, stop: int) -> Piece:
        """Its rows ``start`` to ``stop`` (counted from its first): itself when they are all
        of them (its columns read once)."""
        stop = min(stop, len(self))
        if start == 0 and stop == len(self):
            return self
        return Piece(
            self._grid,
            self._length,
            self._lead,
            self._stated,
            self.start + start,
            self.start + max(start, stop),
        )

    @property
    def width(self) -> int:
        """The length of its longest row."""
        if self._stated:
            return self._stated[1]
        for j in range(self._lead + len(self._grid) - 1, self._lead - 1, -1):
            if self.column(j)[0] != "empty":
                return j + 1
        return 0

    def rows(self) -> list[tuple[Any, ...]]:
        """Its rows as :meth:`Sheet.iter_rows` gives them."""
        return list(self.iter_rows())

    def iter_rows(self) -> Iterator[tuple[Any, ...]]:
        """Its rows as :meth:`Sheet.iter_rows` gives them, one at a time."""
        lead, stated = (None,) * self._lead, self._stated
        columns = [self._raw(k) for k in range(len(self._grid))]
        for row in zip(*columns):
            yield _shaped(lead + _values(row), stated)

    def column(self, j: int) -> tuple[str, Any]:
        """Column ``j``'s values (from 0): ``("number", float64 array)`` when every one is a
        number (an ``int`` or a ``float`` in the rows), ``("text", its texts)`` when every one
        is a text (not empty), ``("empty", None)`` when none has a value, else
        ``("values", the values as the rows have them)``."""
        if j not in self._read:
            self._read[j] = self._typed(j)
        return self._read[j]

    def _typed(self, j: int) -> tuple[str, Any]:
        raw = self._column(j)
        if not raw:
            return "empty", None
        kinds = set(map(type, raw))
        if kinds <= {float, int}:
            # + 0.0: -0.0 read as the int 0, like every whole number below 10**16
            return "number", np.array(raw, dtype=np.float64) + 0.0
        if kinds == {str}:
            empty = raw.count("")
            if not empty:
                return "text", raw
            if empty == len(raw):
                return "empty", None
        return "values", list(_values(raw))

    def values(self, j: int) -> list[Any]:
        """Column ``j``'s values as the rows have them."""
        raw = self._column(j)
        return [None] * len(self) if raw is None else list(_values(raw))

    def _column(self, j: int) -> tuple[Any, ...] | None:
        """calamine's values of column ``j`` (``None``: no cell there)."""
        k = j - self._lead
        if k < 0 or k >= len(self._grid) or (self._stated and j >= self._stated[1]):
            return None
        return self._raw(k)

    def _raw(self, k: int) -> tuple[Any, ...]:
        column = self._grid[k]
        return (
            column
            if self.start == 0 and self.stop == self._length
            else column[self.start : self.stop]
        )


def block_part(
    block: Piece | list[tuple[Any, ...]], start: int, stop: int
) -> Piece | list[tuple[Any, ...]]:
    """Rows ``start`` to ``stop`` of a block of rows."""
    return block.part(start, stop) if isinstance(block, Piece) else block[start:stop]


def formulas_without_values(source: bytes | str | Path, limit: int = 1_000_000) -> int:
    """Cells of the first worksheet that hold a formula but no value saved with it (openpyxl
    reads them as ``None``; its array and data-table formulas are not counted), looking at the
    rows as openpyxl gives them until ``limit`` cells, empty ones included, were seen.

    Raises
    ------
    UnreadableWorkbook
        The file is not a readable workbook.
    """
    with open_workbook(source) as book:
        sheet = book.worksheets[0]
        stated = sheet.stated
        count, seen, at = 0, 0, 0
        pieces = sheet._pieces()
        if next(pieces, None) is None:
            return _openpyxl_formulas_without_values(book, limit)  # XML with a prefix
        for piece in pieces:
            for row in _ROW.finditer(piece or b""):
                number = _ROW_NUMBER_ATTR.search(row.group(1))
                number_of = int(number.group(1)) if number else at + 1
                if stated:
                    if number_of > stated[0]:
                        return count
                    seen += (number_of - at - 1) * stated[1]
                    if number_of - at > 1 and seen >= limit:
                        return count  # reached in the empty rows before this one
                at = number_of
                found, width = _row_formulas(row.group(2) or b"", stated[1] if stated else None)
                count += found
                seen += width
                if seen >= limit:
                    return count
    return count


def _openpyxl_formulas_without_values(book: Workbook, limit: int) -> int:
    formulas = book.openpyxl_sheet(0, formulas=True)
    values = book.openpyxl_sheet(0)
    count, seen = 0, 0
    rows = zip(formulas.iter_rows(values_only=True), values.iter_rows(values_only=True))
    for formula_row, value_row in rows:
        for formula, value in zip(formula_row, value_row):
            seen += 1
            if value is None and isinstance(formula, str) and formula.startswith("="):
                count += 1
        if seen >= limit:
            break
    return count


def _row_formulas(cells: bytes, width: int | None) -> tuple[int, int]:
    """Formulas without a saved value in a row's XML, and the row's width as openpyxl gives it
    (``width``, else to its last cell)."""
    count, column = 0, 0
    for cell in _CELL.finditer(cells):
        ref = _CELL_REF.search(cell.group(1))
        column = _column(ref.group(1)) if ref else column + 1
        if width is not None and column > width:
            continue
        inner = cell.group(2)
        formula = _FORMULA.search(inner) if inner else None
        if formula is None or b'"array"' in formula.group() or b'"dataTable"' in formula.group():
            continue
        value = _CELL_VALUE.search(inner) if inner else None
        if (value is None or not value.group(1)) and b'"inlineStr"' not in cell.group(1):
            count += 1
    return count, width if width is not None else column


def _head(stream: IO[bytes]) -> bytes:
    """A sheet's XML to its ``<sheetData>`` (its first 4 MB when it has none)."""
    head = b""
    while b"<sheetData" not in head and len(head) < 1 << 22 and (step := stream.read(1 << 16)):
        head += step
    return head


def _like_openpyxl(piece: bytes, stated: bool) -> bool:
    """Whether calamine reads every value of ``piece`` as openpyxl does (see the module's
    docstring), within a grid not much larger than its cells."""
    if _ERROR_OR_DATE.search(piece):
        return False
    tags = _Tags(piece)
    if not tags.plain_numbers() and _other_number(piece):
        return False
    if tags.count(b"t/>") or tags.after_tag(b"/t>"):
        return False  # an empty text: openpyxl's "", calamine's empty cell
    cells = tags.count(b"c ") + tags.count(b"c>")
    values = tags.count(b"v>") - tags.count(b"v></v>") + tags.count(b"is>")
    if not stated and cells != values:
        return False  # cells without a value: openpyxl's rows reach them, calamine's not
    numbers = tags.row_numbers()
    if numbers is None:
        numbers = [int(n) for n in _ROW_NUMBER.findall(piece)]
        if len(numbers) != tags.count(b"row"):
            return False  # rows numbered by their place
    span = numbers[-1] - numbers[0] + 1 if numbers else 0
    return span * tags.widest() <= 2 * cells + _SPARE_CELLS


class _Tags:
    """Where the tags of a piece of a sheet's XML start (every ``<``), found at once: how many
    of a kind there are (as ``bytes.count`` tells, none of the names counted overlapping
    itself), and the last column a cell names."""

    def __init__(self, piece: bytes) -> None:
        self._piece = piece
        self._bytes = np.frombuffer(piece + bytes(_LOOK + 8), dtype=np.uint8)
        self._at = np.flatnonzero(self._bytes[: len(piece)] == ord("<"))
        # the two bytes after each "<" as one number, the first the low byte
        self._code = self._bytes[self._at + 1].astype(np.uint16)
        self._code |= self._bytes[self._at + 2].astype(np.uint16) << 8
        self._found: dict[bytes, Any] = {}

    def starts(self, name: bytes) -> Any:
        """Where ``<`` and ``name`` (two bytes or more) start."""
        if name in self._found:
            return self._found[name]
        if len(name) == 2:
            at = self._at[self._code == name[0] | name[1] << 8]
        else:
            at = self.starts(name[:2])
            for offset, char in enumerate(name[2:], start=3):
                at = at[self._bytes[at + offset] == char]
        self._found[name] = at
        return at

    def count(self, name: bytes) -> int:
        """How many times ``<`` and ``name`` occur."""
        if len(name) == 2 and name not in self._found:
            return int(np.count_nonzero(self._code == name[0] | name[1] << 8))
        return len(self.starts(name))

    def after_tag(self, name: bytes) -> bool:
        """Whether ``>``, ``<`` and ``name`` occur."""
        at = self.starts(name)
        return bool((self._bytes[at - 1] == ord(">")).any())  # before 0: a byte of padding

    def _ahead(self, at: Any) -> Any:
        """The :data:`_LOOK` bytes from each of ``at``, a row for each byte (a column for each
        of ``at``)."""
        every = (len(self._bytes) - _LOOK + 1, _LOOK)  # the bytes from each byte, a view
        windows = np.ndarray(every, np.uint8, self._bytes, 0, (1, 1))
        return np.ascontiguousarray(windows[at].T)

    def plain_numbers(self) -> bool:
        """Whether no value (``<v>``) begins as :data:`_NUMBER` matches: a sign or none, then
        16 digits, or digits and points and an exponent, or digits, a point, zeros and the
        value's end. ``False`` also where unsure: a run of digits and points too long to see
        its end."""
        at = self.starts(b"v>") + 3
        if not len(at):
            return True
        at = at + ((self._bytes[at] == ord("+")) | (self._bytes[at] == ord("-")))
        chars = self._ahead(at)
        digit = chars - np.uint8(ord("0")) <= 9
        number = digit | (chars == ord("."))
        if number.all(axis=0).any() or digit[:16].all(axis=0).any():
            return False
        every = np.arange(len(at))
        run = number.argmin(axis=0)  # the first byte neither a digit nor a point
        if (chars[run, every] | 0x20 == ord("e")).any():  # e or E
            return False
        digits = digit.argmin(axis=0)
        # a point after the first digits, and a zero or the point before the run's end
        point = np.flatnonzero(chars[digits, every] == ord("."))
        last = chars[run[point] - 1, point]
        point = point[(last == ord("0")) | (last == ord("."))]
        if not len(point):
            return True
        chars, digits, run = chars[:, point], digits[point], run[point]
        place = np.arange(_LOOK)[:, None]
        other = (chars != ord("0")) & (place > digits) & (place < run)  # not a zero after it
        whole = ~other.any(axis=0)
        end = at[point] + run
        for offset, char in enumerate(b"</v>"):
            whole &= self._bytes[end + offset] == char
        return not whole.any()

    def row_numbers(self) -> list[int] | None:
        """The first and last row's numbers when every row states its number (``<row r="``,
        digits and ``"``; none when there are no rows); ``None`` when one may not, or its
        digits run too long to see their end."""
        at = self.starts(b"row")
        if not len(at):
            return []
        for offset, char in enumerate(b' r="', start=4):
            if not (self._bytes[at + offset] == char).all():
                return None
        chars = self._ahead(at + 8)
        digit = chars - np.uint8(ord("0")) <= 9
        run = digit.argmin(axis=0)
        if not digit[0].all() or digit.all(axis=0).any():
            return None
        if not (chars[run, np.arange(len(at))] == ord('"')).all():
            return None
        first, last = int(at[0]) + 8, int(at[-1]) + 8
        return [int(self._piece[first : first + run[0]]), int(self._piece[last : last + run[-1]])]

    def widest(self) -> int:
        """The last column a cell names (``<c r="`` and one to three letters and a digit), at
        least 1."""
        at = self.starts(b'c r="') + 6
        first, second = self._bytes[at], self._bytes[at + 1]
        letter = first - np.uint8(ord("A")) <= 25
        if letter.all() and (second - np.uint8(ord("0")) <= 9).all():
            return max(1, int(first.max(initial=0)) - 64)  # every cell in columns A to Z
        chars = [self._bytes[at + k].astype(np.int64) for k in range(4)]
        letters = [(c >= ord("A")) & (c <= ord("Z")) for c in chars[:3]]
        digit = [(c >= ord("0")) & (c <= ord("9")) for c in chars[1:]]
        widest, column, named = 1, np.zeros(len(at), dtype=np.int64), np.ones(len(at), bool)
        for k in range(3):
            column = column * 26 + chars[k] - 64
            named = named & letters[k]
            found = column[named & digit[k]]
            if len(found):
                widest = max(widest, int(found.max()))
        return widest


def _shaped(row: tuple[Any, ...], stated: tuple[int, int] | None) -> tuple[Any, ...]:
    """A row of the stated width (cells past it left out), or to its last value."""
    if stated:
        width = stated[1]
        return row[:width] if len(row) >= width else row + (None,) * (width - len(row))
    if not row or row[-1] is not None:
        return row
    end = len(row)
    while end and row[end - 1] is None:
        end -= 1
    return row[:end] if end < len(row) else row


def _values(row: Sequence[Any]) -> tuple[Any, ...]:
    """calamine's values as openpyxl's: ``""`` is an empty cell, a whole number below 10**16
    an ``int`` (it was stored without a fraction or an exponent: the others are read by
    openpyxl), a date a ``datetime`` at midnight."""
    return tuple(
        [
            (v or None)
            if (t := type(v)) is str
            else (int(v) if v.is_integer() and -1e16 < v < 1e16 else v)
            if t is float
            else (dt.datetime(v.year, v.month, v.day) if t is dt.date else v)
            for v in row
        ]
    )


def _stated(head: bytes) -> tuple[int, int] | None:
    """The (last row, last column) the sheet's ``<dimension>`` states, as openpyxl reads it."""
    sheet_data = head.find(b"<sheetData")
    found = _DIMENSION.search(head, 0, sheet_data if sheet_data >= 0 else len(head))
    if found is None:
        return None
    letters, digits = (found.group(3), found.group(4)) if found.group(3) else found.group(1, 2)
    if not letters or not digits:
        return None
    return int(digits), _column(letters)


def _other_number(text: bytes) -> bool:
    """A number stored as calamine reads otherwise than openpyxl: a whole number with a
    fraction or an exponent below 10**16 (openpyxl: a float, here an int), or an integer
    that a float does not hold exactly (openpyxl: the exact int)."""
    if _NUMBER.search(text) is None:
        return False
    for match in _NUMBER.finditer(text):
        stored = match.group()
        if stored.endswith(b"</v>"):
            return True
        if stored[-1:] not in b"eE" and int(stored[3:]) != int(float(stored[3:])):
            return True
    for number in _EXPONENT.findall(text):
        try:
            value = float(number)
        except ValueError:
            continue
        if value.is_integer() and abs(value) < 1e16:
            return True
    return False


def _column(letters: bytes) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + letter - 64
    return number


# --------------------------------------------------------------------------- the parts


class _Parts:
    """Where a workbook's worksheets are (title, state, path), how many bytes its shared
    strings take, and whether calamine and openpyxl could read its date formats otherwise."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        book_path = _office_document(archive)
        book = ElementTree.fromstring(archive.read(book_path))
        rels = _relations(archive, book_path)
        names = set(archive.namelist())
        self.sheets: list[tuple[str, str, str]] = []
        for sheet in book.iter(f"{{{_MAIN}}}sheet"):
            kind, target = rels.get(sheet.get(f"{{{_DOC_RELS}}}id", ""), ("", ""))
            if kind.endswith("/worksheet") and target in names:
                state = sheet.get("state", "visible")
                self.sheets.append((sheet.get("name", ""), state, target))
        if not self.sheets:
            raise UnreadableWorkbook("no worksheet")
        strings = [t for kind, t in rels.values() if kind.endswith("/sharedStrings")]
        strings = [t for t in strings if t in names]
        self.strings_size = archive.getinfo(strings[0]).file_size if strings else 0
        empty = bool(strings) and _has_empty_string(archive, strings[0])
        properties = book.find(f"{{{_MAIN}}}workbookPr")
        date1904 = properties is not None and properties.get("date1904", "") in ("1", "true")
        styles = [t for kind, t in rels.values() if kind.endswith("/styles") and t in names]
        self.dates_differ = date1904 or (bool(styles) and _dates_differ(archive, styles[0]))
        #: Whether calamine could read a value otherwise anywhere (an empty shared string:
        #: openpyxl's "", calamine's empty cell; or dates).
        self.otherwise = empty or self.dates_differ


def _has_empty_string(archive: zipfile.ZipFile, path: str) -> bool:
    """Whether the shared strings hold an empty one."""
    tail = b""
    with archive.open(path) as stream:
        while step := stream.read(1 << 20):
            if _EMPTY_STRING.search(tail + step):
                return True
            tail = step[-64:]
    return False


def _office_document(archive: zipfile.ZipFile) -> str:
    root = ElementTree.fromstring(archive.read("_rels/.rels"))
    for rel in root.iter(f"{{{_RELS}}}Relationship"):
        if rel.get("Type", "").endswith("/officeDocument"):
            return rel.get("Target", "").lstrip("/")
    raise UnreadableWorkbook("no workbook part")


def _relations(archive: zipfile.ZipFile, part: str) -> dict[str, tuple[str, str]]:
    """A part's relations: id → (type, path of the target in the archive)."""
    where = PurePosixPath(part)
    rels_path = str(where.parent / "_rels" / f"{where.name}.rels")
    if rels_path not in archive.namelist():
        return {}
    root = ElementTree.fromstring(archive.read(rels_path))
    found = {}
    for rel in root.iter(f"{{{_RELS}}}Relationship"):
        target = rel.get("Target", "")
        path = target.lstrip("/") if target.startswith("/") else _joined(where.parent, target)
        found[rel.get("Id", "")] = (rel.get("Type", ""), path)
    return found


def _joined(folder: PurePosixPath, target: str) -> str:
    parts: list[str] = []
    for piece in (*folder.parts, *target.split("/")):
        if piece == "..":
            if parts:
                parts.pop()
        elif piece not in ("", "."):
            parts.append(piece)
    return "/".join(parts)


def _dates_differ(archive: zipfile.ZipFile, styles_path: str) -> bool:
    """Whether a cell style's number format is a date to one of calamine and openpyxl but not
    to the other, or a duration, or has brackets (the two read those otherwise). openpyxl's
    rules are imported only for a style other than the built-in General (format 0, a date to
    neither)."""
    root = ElementTree.fromstring(archive.read(styles_path))
    codes = {
        int(f.get("numFmtId", "0")): f.get("formatCode", "")
        for f in root.iter(f"{{{_MAIN}}}numFmt")
    }
    xfs = root.find(f"{{{_MAIN}}}cellXfs")
    for xf in xfs.iter(f"{{{_MAIN}}}xf") if xfs is not None else ():
        number = int(xf.get("numFmtId", "0"))
        if number == _GENERAL and number not in codes:
            continue
        from openpyxl.styles.numbers import BUILTIN_FORMATS, is_date_format, is_timedelta_format

        code = codes.get(number, BUILTIN_FORMATS.get(number))
        if code is None:
            return True  # a format openpyxl does not know (calamine may know it)
        if is_timedelta_format(code) or "[" in code:
            return True
        if bool(is_date_format(code)) != _calamine_date(code):
            return True
    return False


def _calamine_date(code: str) -> bool:
    """calamine's rule for a date format (its ``is_custom_date_format``, brackets aside)."""
    escaped = quoted = am_pm = False
    for char in code:
        if escaped:
            escaped = False
        elif char in "_\\":
            escaped = True
        elif quoted:
            quoted = char != '"'
        elif char == '"':
            quoted = True
        elif char == ";":
            return False
        elif am_pm and char in "pm/PM":
            return True
        elif char in "aA":
            am_pm = True
        elif not am_pm and char in "dmhysDMHYS":
            return True
    return False


__all__ = [
    "Piece",
    "Sheet",
    "UnreadableWorkbook",
    "Workbook",
    "block_part",
    "formulas_without_values",
    "open_workbook",
]
