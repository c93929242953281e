"""metrics.io.workbook gives each sheet's rows as openpyxl's iter_rows(values_only=True) does
(read-only, saved values), for workbooks written by openpyxl and by xlsxwriter: openpyxl, the
reader the table readers were written against, is the oracle."""

from __future__ import annotations

import datetime as dt
import io
import re
import zipfile
from typing import Any

import openpyxl
import pytest
import xlsxwriter
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metrics.errors import InputError
from metrics.io import workbook
from metrics.io.formats import load_table
from metrics.io.workbook import UnreadableWorkbook, formulas_without_values, open_workbook

_TEXT = st.text(
    alphabet=st.sampled_from("ab Zé日本語検索クエリ0123456789.-_"), min_size=0, max_size=8
)
_NUMBER_TEXT = st.sampled_from(["123", "007", "1.0", "1e3", " 5", "-0", "12345678901234567890"])
_DATES = st.one_of(
    st.datetimes(dt.datetime(1900, 3, 1), dt.datetime(2100, 1, 1)).map(
        lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000)
    ),
    st.dates(dt.date(1900, 3, 1), dt.date(2100, 1, 1)),
    st.times().map(lambda t: t.replace(microsecond=0)),
)
_CELLS = st.one_of(
    st.none(),
    st.integers(-(10**15), 10**15),
    st.integers(10**15, 10**19),
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(-1000, 1000).map(float),  # whole floats: 1.0
    _TEXT,
    _NUMBER_TEXT,
    st.booleans(),
    _DATES,
    st.tuples(st.just("formula"), st.one_of(st.integers(-99, 99), st.floats(-9, 9), _TEXT)),
)
_ROWS = st.lists(st.lists(_CELLS, min_size=1, max_size=4), min_size=1, max_size=6)


def _openpyxl_book(rows: list[list[Any]], at: tuple[int, int]) -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "run"
    book.create_sheet("hidden").sheet_state = "hidden"
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            if isinstance(value, tuple):
                value = f"={value[1]!r}+0" if not isinstance(value[1], str) else "=1+1"
            if value is not None:
                cell = sheet.cell(row=at[0] + i + 1, column=at[1] + j + 1, value=value)
                if isinstance(value, (dt.date, dt.time)):
                    cell.number_format = "yyyy-mm-dd hh:mm:ss"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _xlsxwriter_book(rows: list[list[Any]], at: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    book = xlsxwriter.Workbook(out, {"in_memory": True})
    sheet = book.add_worksheet("run")
    book.add_worksheet("other").hide()
    dates = book.add_format({"num_format": "yyyy-mm-dd hh:mm:ss"})
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            r, c = at[0] + i, at[1] + j
            if isinstance(value, tuple):
                sheet.write_formula(r, c, "=1+1", None, value[1])
            elif isinstance(value, str):
                sheet.write_string(r, c, value)
            elif isinstance(value, (dt.date, dt.time)):
                sheet.write_datetime(r, c, value, dates)
            elif value is not None:
                sheet.write(r, c, value)
    book.close()
    return out.getvalue()


def _write_only_book(rows: list[list[Any]], at: tuple[int, int]) -> bytes:
    """openpyxl's write-only workbook: rows without a stated size (as large files are)."""
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("run")
    for _ in range(at[0]):
        sheet.append([])
    for row in rows:
        cells = [
            (f"={v[1]!r}+0" if not isinstance(v[1], str) else "=1+1") if isinstance(v, tuple) else v
            for v in row
        ]
        sheet.append([None] * at[1] + cells)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _oracle(data: bytes) -> list[list[tuple[Any, ...]]]:
    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        return [[_about(s), *_trimmed(s.iter_rows(values_only=True))] for s in book.worksheets]
    finally:
        book.close()


def _read(data: bytes) -> list[list[tuple[Any, ...]]]:
    with open_workbook(data) as book:
        return [[_about(s), *_trimmed(s.iter_rows())] for s in book.worksheets]


_EXAMPLES = hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: Where the cells start (empty rows and columns before them), and who writes the workbook.
_AT = st.tuples(st.integers(0, 3), st.integers(0, 2))
_WRITERS = st.sampled_from([_openpyxl_book, _xlsxwriter_book, _write_only_book])


def _about(sheet: Any) -> tuple[Any, ...]:
    """What the table readers ask of a sheet besides its rows: its place in the workbook's
    list, title, state and stated size."""
    return (sheet.title, sheet.sheet_state, sheet.max_row, sheet.max_column)


def _trimmed(rows: Any) -> list[tuple[Any, ...]]:
    """The rows as typed values, those after the last that holds one left out."""
    found = [tuple((type(v).__name__, v) for v in row) for row in rows]
    while found and all(v is None for _, v in found[-1]):
        found.pop()
    return found


@pytest.mark.slow
@_EXAMPLES
@given(rows=_ROWS, at=_AT, writer=_WRITERS)
def test_every_sheet_reads_as_openpyxl_reads_it_row_for_row(rows, at, writer):
    data = writer(rows, at)
    assert _read(data) == _oracle(data)


def _plain_rows(n: int) -> list[list[Any]]:
    return [
        [f"q{i % 7}", f"文書{i}", i * 0.25, i, i % 3 == 0, dt.datetime(2024, 1, 1 + i % 28)]
        for i in range(n)
    ]


@pytest.mark.parametrize("writer", [_openpyxl_book, _xlsxwriter_book])
def test_plain_values_are_read_by_calamine_alone(writer):
    """Text, ints, fractions, true/false values and dates: no row is left to openpyxl."""
    data = writer(_plain_rows(40), (0, 0))
    with open_workbook(data) as book:
        sheet = book.worksheets[0]
        rows = _trimmed(sheet.iter_rows())
        assert sheet.calamine_rows == -1
    assert rows == _oracle(data)[0][1:]
    assert rows[1][3] == ("int", 1)


def test_from_a_piece_calamine_reads_otherwise_openpyxl_reads_the_rest(monkeypatch):
    """Pieces of a few rows: those before the piece with an error cell are read by calamine,
    the rest by openpyxl, and together they are the sheet's rows."""
    monkeypatch.setattr(workbook, "_PIECE_BYTES", 200)
    rows = _plain_rows(60)
    out = io.BytesIO()
    book = xlsxwriter.Workbook(out, {"in_memory": True})
    sheet = book.add_worksheet("run")
    for i, row in enumerate(rows):
        for j, value in enumerate(row[:4]):
            sheet.write(i, j, value)
    sheet.write_formula(45, 1, "=1/0", None, "#DIV/0!")
    book.close()
    data = out.getvalue()
    with open_workbook(data) as opened:
        read = _trimmed(opened.worksheets[0].iter_rows())
        assert 0 < opened.worksheets[0].calamine_rows <= 45
    assert read == _oracle(data)[0][1:]
    assert read[45][1] == ("str", "#DIV/0!")


@pytest.mark.parametrize(
    ("cells", "why"),
    [
        ({"A1": 1, "C700000": 2}, "rows far apart: a grid far larger than its cells"),
        ({"A1": 1.5, "B1": "x", "A2": "=1/0"}, "an error cell"),
    ],
)
def test_what_calamine_would_read_otherwise_is_read_by_openpyxl(cells, why):
    book = openpyxl.Workbook()
    for ref, value in cells.items():
        book.active[ref] = value
    out = io.BytesIO()
    book.save(out)
    data = out.getvalue()
    if "=1/0" in cells.values():  # openpyxl saves no value: write the error as Excel does
        data = _with_error_value(data)
    with open_workbook(data) as opened:
        read = _trimmed(opened.worksheets[0].iter_rows())
        assert opened.worksheets[0].calamine_rows == 0, why
    assert read == _oracle(data)[0][1:]
    assert (("str", "#DIV/0!") if "=1/0" in cells.values() else ("int", 2)) in read[-1]


def _with_error_value(data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as saved, zipfile.ZipFile(out, "w") as made:
        for name in saved.namelist():
            part = saved.read(name)
            if name == "xl/worksheets/sheet1.xml":
                part = part.replace(b"<f>1/0</f><v></v>", b"<f>1/0</f><v>#DIV/0!</v>")
                part = part.replace(b'<c r="A2">', b'<c r="A2" t="e">')
            made.writestr(name, part)
    return out.getvalue()


def test_a_broken_workbook_is_one_input_error_naming_the_file():
    data = _xlsxwriter_book([["query", "item", "score"], ["1", "a", 1.0]], (0, 0))
    cut = data[: len(data) // 2]
    with pytest.raises(UnreadableWorkbook):
        open_workbook(cut)
    with pytest.raises(InputError) as caught:
        load_table(cut, "broken.xlsx")
    assert "broken.xlsx" in str(caught.value)


def _openpyxl_formulas_without_values(data: bytes, limit: int) -> int:
    """The count as openpyxl's rows give it: a formula (read with formulas) whose saved value
    (read with values) is missing, until ``limit`` cells were seen."""
    formulas = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=False)
    values = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    count, seen = 0, 0
    rows = zip(
        formulas.worksheets[0].iter_rows(values_only=True),
        values.worksheets[0].iter_rows(values_only=True),
    )
    for formula_row, value_row in rows:
        for formula, value in zip(formula_row, value_row):
            seen += 1
            if value is None and isinstance(formula, str) and formula.startswith("="):
                count += 1
        if seen >= limit:
            break
    formulas.close()
    values.close()
    return count


@pytest.mark.slow
@_EXAMPLES
@given(
    rows=_ROWS,
    at=_AT,
    writer=_WRITERS,
    limit=st.one_of(st.integers(1, 30), st.just(1_000_000)),
)
def test_formulas_without_saved_values_are_counted_as_openpyxl_reads_them(rows, at, writer, limit):
    data = writer(rows, at)
    assert formulas_without_values(data, limit) == _openpyxl_formulas_without_values(data, limit)


def _counted_like_openpyxl(piece: bytes, stated: bool) -> bool:
    """The test of a piece written with ``bytes.count`` and regular expressions: the oracle
    of the tags counted at once."""
    if b't="e"' in piece or b't="d"' in piece or workbook._other_number(piece):
        return False
    if b"<t/>" in piece or b"></t>" in piece:
        return False
    cells = piece.count(b"<c ") + piece.count(b"<c>")
    values = piece.count(b"<v>") - piece.count(b"<v></v>") + piece.count(b"<is>")
    if not stated and cells != values:
        return False
    numbers = re.findall(rb'<row r="(\d+)"', piece)
    if len(numbers) != piece.count(b"<row"):
        return False
    span = int(numbers[-1]) - int(numbers[0]) + 1 if numbers else 0
    return span * _widest(piece) <= 2 * cells + workbook._SPARE_CELLS


def _widest(piece: bytes) -> int:
    """The last column a cell names, found by regular expressions."""
    wide = {workbook._column(c) for c in re.findall(rb'<c r="([A-Z]{2,3})\d', piece)}
    narrow = {c[0] - 64 for c in re.findall(rb'<c r="([A-Z])\d', piece)}
    return max(wide | narrow | {1})


#: Bits of a sheet's XML, well formed or not, in any order.
_XML = st.sampled_from(
    [
        b'<row r="1">',
        b'<row r="1048576">',
        b'<row r="12345678901234567890123456789">',
        b'<row r="7>',
        b'<row r="">',
        b'<row  r="3">',
        b"<row>",
        b"</row>",
        b'<c r="A1">',
        b'<c r="Z9">',
        b'<c r="AB12">',
        b'<c r="XFD3">',
        b'<c r="ABCD1">',
        b'<c r="B',
        b"<c>",
        b'<c r="C2" t="s">',
        b'<c r="C2" t="e">',
        b"</c>",
        b"<v>1</v>",
        b"<v>2.5</v>",
        b"<v>1.0</v>",
        b"<v>1E3</v>",
        b"<v></v>",
        b"<v>",
        b"</v>",
        b"<is><t>x</t></is>",
        b"<t/>",
        b"<t></t>",
        b"></t>",
        b"<f>1+1</f>",
        b"<",
        b">",
        b"c ",
        b'r="',
        b"7",
    ]
)
#: Values as a sheet may store them, or not: digits, points, signs, exponents.
_VALUES = st.builds(
    lambda text, end: b"<v>" + text + end,
    st.lists(st.sampled_from(b"0000123456789..++--eE<"), max_size=30).map(bytes),
    st.sampled_from([b"</v>", b"</v", b"", b"<v>"]),
)


@given(
    parts=st.lists(st.one_of(_XML, _VALUES), max_size=30),
    stated=st.booleans(),
    spare=st.integers(0, 40),
)
def test_tags_counted_at_once_decide_as_counted_one_by_one(parts, stated, spare):
    piece = b"".join(parts)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(workbook, "_SPARE_CELLS", spare)
        assert workbook._like_openpyxl(piece, stated) == _counted_like_openpyxl(piece, stated)
    tags = workbook._Tags(piece)
    assert tags.widest() == _widest(piece)
    if tags.plain_numbers():
        assert workbook._NUMBER.search(piece) is None
    found = re.findall(rb'<row r="(\d+)"', piece)
    numbers = tags.row_numbers()
    if numbers is not None:
        assert len(found) == piece.count(b"<row")
        assert numbers == ([int(found[0]), int(found[-1])] if found else [])


def test_plain_values_and_rows_are_told_at_once():
    """Values and row numbers no regular expression needs to look at."""
    piece = b'<row r="8"><c r="A8"><v>29.85</v></c><c r="B8"><v>-7</v></c></row>'
    piece += b'<row r="1000"><c r="A1000"><v>0.5</v></c><c r="B1000"><v>1E-3</v></c></row>'
    tags = workbook._Tags(piece)
    assert tags.row_numbers() == [8, 1000]
    assert not tags.plain_numbers()  # an exponent
    tags = workbook._Tags(piece.replace(b"1E-3", b"12"))
    assert tags.plain_numbers()


@given(
    parts=st.dictionaries(
        st.text(st.sampled_from("ab/é日.xml"), min_size=1, max_size=12),
        st.binary(max_size=40),
        max_size=4,
    ),
    name=st.text(st.sampled_from("xl/sheté日.xml"), min_size=1, max_size=12),
    data=st.lists(st.binary(max_size=60), max_size=4),
)
def test_a_part_added_to_the_rest_is_read_back_by_zipfile(parts, name, data):
    parts.pop(name, None)
    archive = zipfile.ZipFile(io.BytesIO(workbook._Rest(parts).with_part(name, data)))
    assert archive.testzip() is None  # every part's CRC
    assert {info.filename: archive.read(info) for info in archive.infolist()} == {
        **parts,
        name: b"".join(data),
    }


def test_the_general_format_is_a_date_to_neither_reader():
    """Why openpyxl's date rules are left unimported for styles of the format General."""
    from openpyxl.styles.numbers import BUILTIN_FORMATS, is_date_format, is_timedelta_format

    code = BUILTIN_FORMATS[workbook._GENERAL]
    assert code == "General"
    assert not is_date_format(code) and not is_timedelta_format(code) and "[" not in code
    assert not workbook._calamine_date(code)


@pytest.mark.parametrize(
    ("cells", "imported"), [([1, "a", 2.5], False), ([1, "a", dt.date(2024, 1, 2)], True)]
)
def test_openpyxl_is_imported_only_for_formats_other_than_general(tmp_path, cells, imported):
    import subprocess
    import sys

    path = tmp_path / "book.xlsx"
    path.write_bytes(_xlsxwriter_book([cells], (0, 0)))
    code = (
        "import sys\nfrom metrics.io.workbook import open_workbook\n"
        f"book = open_workbook({str(path)!r})\nprint(list(book.worksheets[0].iter_rows()))\n"
        "print('openpyxl' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == str(imported)
