"""The rows calamine reads from a piece of a sheet are turned into columns without a Python
step for each row where a column holds only numbers or only text: every column, chunk, frame,
refusal and block of an Excel file is what the rows read one at a time make of it (the
per-row path, kept as ``_sheet_chunks(by_rows=True)``), and the rows are openpyxl's."""

from __future__ import annotations

import datetime as dt
import functools
import io
import zipfile
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from metrics.errors import InputError
from metrics.io import formats, table_stream, workbook
from metrics.io.formats import load_table
from metrics.io.source import UploadLimits
from metrics.io.workbook import Piece, open_workbook
from tests.test_workbook import (
    _openpyxl_book,
    _oracle,
    _trimmed,
    _write_only_book,
    _xlsxwriter_book,
)

_TEXT = st.text(alphabet=st.sampled_from("ab Zé日本0123456789.-_\t"), min_size=0, max_size=6)
_FRACTIONS = st.floats(-1e6, 1e6, allow_nan=False, width=32).filter(lambda v: not v.is_integer())
_WHOLE = st.integers(-(10**6), 10**6)
_NAMES = st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True)
#: Cells of a column of each kind: mostly its plain values (those calamine's pieces keep as
#: columns), now and then one it reads otherwise; other values and empty cells come in
#: through the mixing of _sheets.
_KINDS: dict[str, Any] = {
    "float": st.one_of(
        _FRACTIONS,
        _FRACTIONS,
        _FRACTIONS,
        st.floats(allow_nan=False, allow_infinity=False),
        _WHOLE.map(float),
        st.sampled_from([-0.0, 0.0, 1e16, 2.5e-300]),
    ),
    "int": st.one_of(_WHOLE, _WHOLE, _WHOLE, st.integers(10**15, 10**19)),
    "text": st.one_of(
        _NAMES, _NAMES, _NAMES, _TEXT, st.sampled_from(["007", "1.0", " ", "-0", "1e3"])
    ),
    "bool": st.booleans(),
    "date": st.one_of(
        st.dates(dt.date(1900, 3, 1), dt.date(2100, 1, 1)),
        st.datetimes(dt.datetime(1900, 3, 1), dt.datetime(2100, 1, 1)).map(
            lambda d: d.replace(microsecond=0)
        ),
    ),
}
_OTHER = st.one_of(st.none(), *_KINDS.values())


@st.composite
def _sheets(draw: Any) -> list[list[Any]]:
    """A header row (or none), then rows of columns of a kind each, with blank rows."""
    kinds = draw(
        st.lists(st.sampled_from(["float", "int", "text", *_KINDS]), min_size=1, max_size=4)
    )
    rows: list[list[Any]] = []
    if draw(st.booleans()):
        rows.append([f"c{j}" for j in range(len(kinds))])
    mixed = draw(st.sampled_from([0.0, 0.0, 0.05, 0.3]))
    for _ in range(draw(st.integers(0, 40))):
        if draw(st.integers(0, 39)) == 0:
            rows.append([None] * len(kinds))  # a blank row
            continue
        row = []
        for kind in kinds:
            other = mixed and draw(st.floats(0, 1)) < mixed
            row.append(draw(_OTHER if other else _KINDS[kind]))
        rows.append(row)
    return rows


_EXAMPLES = hsettings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _dates_from_1904(rows: list[list[Any]], at: tuple[int, int]) -> bytes:
    """A workbook that counts its dates from 1904: read by openpyxl throughout."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(_openpyxl_book(rows, at))) as saved,
        zipfile.ZipFile(out, "w") as made,
    ):
        for name in saved.namelist():
            part = saved.read(name)
            if name == "xl/workbook.xml":
                part = part.replace(b"<workbookPr/>", b'<workbookPr date1904="1"/>')
            made.writestr(name, part)
    return out.getvalue()


_WRITERS = st.sampled_from([_openpyxl_book, _xlsxwriter_book, _write_only_book, _dates_from_1904])
_AT = st.tuples(st.integers(0, 2), st.integers(0, 1))
#: Bytes of a sheet's XML in a piece: a few rows, or all of them.
_PIECES = st.sampled_from([150, 400, 1500, 1 << 20])


def _same_chunk(new: tuple[str, Any, bool], old: tuple[str, Any, bool]) -> None:
    assert new[0] == old[0]
    assert new[2] == old[2]
    kind, values = new[0], new[1]
    if kind == "number":
        assert values.dtype == old[1].dtype == np.float64
        assert values.tobytes() == old[1].tobytes()  # bit for bit: -0.0 is 0.0 both ways
    elif kind == "text":
        assert values.equals(old[1])
    elif kind == "bool":
        assert values.tolist() == old[1].tolist()
    else:
        assert values == old[1]


@pytest.mark.slow
@_EXAMPLES
@given(rows=_sheets(), at=_AT, writer=_WRITERS, piece=_PIECES)
def test_a_piece_s_columns_are_its_rows_columns(monkeypatch, rows, at, writer, piece):
    """Each piece's columns hold the values of its rows (as openpyxl reads them), and its
    width is its longest row's."""
    monkeypatch.setattr(workbook, "_PIECE_BYTES", piece)
    data = writer(rows, at)
    read: list[tuple[Any, ...]] = []
    with open_workbook(data) as book:
        for block in book.worksheets[0].iter_blocks():
            if not isinstance(block, Piece):
                read += block
                continue
            block_rows = block.rows()
            read += block_rows
            assert block.width == max(len(r) for r in block_rows)
            for j in range(block.width + 2):
                values = [r[j] if j < len(r) else None for r in block_rows]
                kind, found = block.column(j)
                assert block.values(j) == values
                if kind == "number":
                    assert all(type(v) in (int, float) for v in values)
                    assert found.tobytes() == np.array(values, dtype=np.float64).tobytes()
                elif kind == "text":
                    assert list(found) == values
                    assert all(type(v) is str and v for v in values)
                elif kind == "empty":
                    assert all(v is None for v in values)
                else:
                    assert kind == "values"
                    assert found == values
    assert _trimmed(read) == _oracle(data)[0][1:]


@pytest.mark.slow
@_EXAMPLES
@given(
    rows=_sheets(),
    at=_AT,
    writer=_WRITERS,
    piece=_PIECES,
    size=st.integers(1, 9),
    header=st.booleans(),
)
def test_chunks_read_by_columns_are_the_chunks_read_row_by_row(
    monkeypatch, rows, at, writer, piece, size, header
):
    monkeypatch.setattr(workbook, "_PIECE_BYTES", piece)
    data = writer(rows, at)
    with open_workbook(data) as book:
        sheet = book.worksheets[0]
        old = list(formats._sheet_chunks(sheet, header, size, by_rows=True))
        new = list(formats._sheet_chunks(sheet, header, size))
        assert [(c.rows, c.width) for c in new] == [(c.rows, c.width) for c in old]
        for new_chunk, old_chunk in zip(new, old):
            for j in range(old_chunk.width + 1):
                _same_chunk(new_chunk.column(j), old_chunk.column(j))


def _row_by_row(monkeypatch: pytest.MonkeyPatch) -> None:
    by_rows = functools.partial(formats._sheet_chunks, by_rows=True)
    monkeypatch.setattr(formats, "_sheet_chunks", by_rows)
    monkeypatch.setattr(table_stream, "_sheet_chunks", by_rows)


def _loaded(data: bytes, limits: UploadLimits | None) -> Any:
    try:
        table = load_table(data, "t.xlsx", limits=limits)
    except InputError as exc:
        return str(exc), exc.code, exc.params
    return table


@pytest.mark.slow
@_EXAMPLES
@given(
    rows=_sheets(),
    writer=_WRITERS,
    piece=_PIECES,
    chunk=st.sampled_from([2, 5, 65_536]),
    limit=st.sampled_from([3, 10, 10**6]),
)
def test_a_workbook_reads_as_it_reads_row_by_row(monkeypatch, rows, writer, piece, chunk, limit):
    """The whole reading: the frame, its notes and header, and the refusal at the rows
    limit, the same either way."""
    monkeypatch.setattr(workbook, "_PIECE_BYTES", piece)
    monkeypatch.setattr(formats, "_SHEET_CHUNK", chunk)
    data = writer(rows, (0, 0))
    limits = UploadLimits(1024**3, limit)
    new = _loaded(data, limits)
    with monkeypatch.context() as patch:
        _row_by_row(patch)
        old = _loaded(data, limits)
    if isinstance(old, tuple):
        assert new == old
        return
    assert (new.header, new.first_line, new.notes) == (old.header, old.first_line, old.notes)
    assert list(new.frame.dtypes.astype(str)) == list(old.frame.dtypes.astype(str))
    pd.testing.assert_frame_equal(new.frame, old.frame, check_exact=True)


@pytest.mark.slow
@_EXAMPLES
@given(rows=_sheets(), writer=_WRITERS, piece=_PIECES, text=st.booleans())
def test_an_excel_stream_s_batches_are_those_read_row_by_row(
    monkeypatch, tmp_path_factory, rows, writer, piece, text
):
    monkeypatch.setattr(workbook, "_PIECE_BYTES", piece)
    monkeypatch.setattr(table_stream, "BATCH_ROWS", 12)
    path = tmp_path_factory.mktemp("book") / "t.xlsx"
    path.write_bytes(writer([["query", "item", "score"], *rows], (0, 0)))

    def batches() -> Any:
        stream = table_stream.open_stream(path)
        if stream is None:
            return None
        names = stream.sample.names
        frame = stream.sample.values
        read = [b.to_pydict() for b in stream.batches(names, names[:1] if text else ())]
        return names, stream.sample.header, {n: frame.columns[n].numeric for n in names}, read

    new = batches()
    with monkeypatch.context() as patch:
        _row_by_row(patch)
        old = batches()
    assert repr(new) == repr(old)


def test_a_plain_table_is_read_column_by_column(monkeypatch):
    """Text and number columns of several pieces: every filled row in pieces kept as
    columns, the header's piece included."""
    monkeypatch.setattr(workbook, "_PIECE_BYTES", 20_000)
    rows = [["query", "item", "score"]] + [[f"q{i // 9}", f"d{i}", i / 8] for i in range(3000)]
    data = _write_only_book(rows, (0, 0))
    with open_workbook(data) as book:
        sheet = book.worksheets[0]
        blocks = list(formats._filled_blocks(sheet, header=True))
        assert len(blocks) > 1
        assert all(isinstance(b, Piece) for b in blocks)
        chunks = list(formats._sheet_chunks(sheet, True, 1000))
    assert [c.rows for c in chunks] == [1000, 1000, 1000]
    kind, scores, gaps = chunks[2].column(2)
    assert (kind, gaps) == ("number", False)
    assert scores.tolist() == [i / 8 for i in range(2000, 3000)]
    kind, items, _ = chunks[0].column(1)
    assert kind == "text"
    assert items.equals(pa.array([f"d{i}" for i in range(1000)], pa.string()))


def _same_column(new: Any, old: Any) -> None:
    assert (new.name, new.distinct, new.flags, new.text_labels) == (
        old.name,
        old.distinct,
        old.flags,
        old.text_labels,
    )
    assert new.codes.tolist() == old.codes.tolist()
    if old.numbers is None:
        assert new.numbers is None
    else:
        assert new.numbers.tobytes() == old.numbers.tobytes()


@pytest.mark.slow
@_EXAMPLES
@given(rows=_sheets(), writer=_WRITERS, piece=_PIECES, names=st.booleans())
def test_an_excel_stream_s_sample_is_read_from_its_frame_without_pandas(
    monkeypatch, tmp_path_factory, rows, writer, piece, names
):
    """The first rows' values as role guessing reads them: from arrow, as from the frame that
    pandas makes of them."""
    monkeypatch.setattr(workbook, "_PIECE_BYTES", piece)
    path = tmp_path_factory.mktemp("book") / "t.xlsx"
    path.write_bytes(writer([["query", "item", "column_4"] if names else [], *rows], (0, 0)))
    with monkeypatch.context() as patch:
        patch.setattr(formats._ExcelColumns, "arrow", lambda self, names: None)
        old = table_stream.open_stream(path)
    new = table_stream.open_stream(path)
    assert (new is None) == (old is None)
    if new is None:
        return
    assert new.sample.names == old.sample.names
    assert new.sample.values.rows == old.sample.values.rows
    for name in old.sample.names:
        _same_column(new.sample.values.columns[name], old.sample.values.columns[name])


@pytest.mark.slow
def test_an_excel_run_is_read_in_blocks_without_pandas(tmp_path):
    """A workbook of text and numbers: its sample read from arrow, its batches built from
    buffers; the evaluation the same as of its CSV."""
    from benchmarks.formats import write_formats
    from benchmarks.generate import generate
    from tests.test_pandas_free_tables import _evaluated

    run, qrels = generate(30, depth=10, directory=tmp_path)
    files = write_formats(run, qrels, tmp_path, formats=("csv", "xlsx"))
    _, expected = _evaluated(files["csv"][0], files["csv"][1], whole_mb="64")
    assert expected.strip()
    imported, output = _evaluated(files["xlsx"][0], files["xlsx"][1], whole_mb="0")
    assert not imported
    assert output == expected


def test_an_excel_stream_reads_the_sheet_its_sample_came_from(tmp_path):
    """The batches come from the sheet the first rows were read from: here the second, the
    first holding no table."""
    import openpyxl

    book = openpyxl.Workbook()
    book.active.append(["notes"])
    table = book.create_sheet("run")
    rows = [["query", "item", "score"]] + [[f"q{i % 3}", f"d{i}", i / 4] for i in range(30)]
    for row in rows:
        table.append(row)
    path = tmp_path / "two.xlsx"
    book.save(path)
    stream = table_stream.open_stream(path)
    assert stream is not None
    read = pa.Table.from_batches(list(stream.batches(stream.sample.names))).to_pydict()
    assert read == {name: list(values) for name, values in zip(rows[0], zip(*rows[1:]))}


def test_a_piece_s_part_of_all_its_rows_is_the_piece_itself():
    """Its columns, read once to tell its rows filled, are not read again for its chunk."""
    piece = Piece([(1.0, 2.5), ("a", "b")], 2, 0, None)
    assert piece.part(0, 2) is piece
    assert piece.part(0, 9) is piece
    assert piece.part(1, 2) is not piece
    assert piece.part(1, 2).rows() == [(2.5, "b")]
    assert piece.part(0, 1).rows() == [(1, "a")]
