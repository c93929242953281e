"""What the readers make of a file's first bytes and line ends: old Mac line ends (lone
carriage returns) are line ends everywhere, and formats that are never read are named with
their fix instead of being called binary."""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import lzma
import tarfile

import numpy as np
import pytest

from metrics.cli.evaluate import main
from metrics.errors import InputError
from metrics.io.canonical import canonical_run
from metrics.io.formats import load_table
from metrics.io.source import read_input, unify_line_ends
from metrics.io.trec import read_trec

RUN_LINES = ["1 Q0 d1 1 3.0 t", "1 Q0 d2 2 2.0 t", "1 Q0 d3 3 1.0 t", "2 Q0 d4 1 1.0 t"]
QRELS_LINES = ["1 0 d1 1", "1 0 d2 0", "1 0 d3 2", "2 0 d4 1"]


def _cli(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main([str(a) for a in argv], out, err)
    return status, out.getvalue(), err.getvalue()


def _write(path, lines: list[str], end: str) -> None:
    path.write_bytes((end.join(lines) + end).encode())


def test_lone_carriage_returns_become_newlines_and_crlf_stays():
    assert unify_line_ends(b"a\rb\r\nc\r") == b"a\nb\r\nc\n"
    plain = b"a\r\nb\n"
    assert unify_line_ends(plain) is plain


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_a_trec_file_with_old_mac_line_ends_reads_every_line(tmp_path, kind):
    lines = RUN_LINES if kind == "run" else QRELS_LINES
    _write(tmp_path / "lf", lines, "\n")
    _write(tmp_path / "cr", lines, "\r")
    lf, cr = read_trec(tmp_path / "lf"), read_trec(tmp_path / "cr")
    assert lf is not None and cr is not None
    assert len(cr) == len(lf) == 4
    assert list(cr.query) == list(lf.query) and list(cr.item) == list(lf.item)
    np.testing.assert_array_equal(cr.value, lf.value)


def test_old_mac_line_ends_give_the_numbers_of_newline_files_on_the_command_line(tmp_path):
    _write(tmp_path / "qrels", QRELS_LINES, "\r")
    _write(tmp_path / "run", RUN_LINES, "\r")
    _write(tmp_path / "qrels_lf", QRELS_LINES, "\n")
    _write(tmp_path / "run_lf", RUN_LINES, "\n")
    measures = ("-m", "P@3", "-m", "NumRet", "-q")
    status, out, err = _cli(tmp_path / "qrels", tmp_path / "run", *measures)
    assert (status, err) == (0, "")
    assert "P@3\t1\t0.6667" in out and "NumRet\t2\t1" in out  # trec_eval on the same lines
    assert out == _cli(tmp_path / "qrels_lf", tmp_path / "run_lf", *measures)[1]


def test_an_uploaded_trec_run_with_old_mac_line_ends_keeps_every_row():
    table = load_table(("\r".join(RUN_LINES) + "\r").encode(), "cr.run")
    assert len(table.frame) == 4
    assert list(table.frame["query"].astype(str)) == ["1", "1", "1", "2"]


def test_a_bad_value_in_a_csv_with_old_mac_line_ends_names_the_line_an_editor_shows():
    text = "query,item,score\rq1,a,1\r\rq1,b,2\rq1,c,oops\r"
    with pytest.raises(InputError) as error:
        canonical_run(load_table(text.encode(), "cr.csv"))
    assert error.value.line == 5 and "'oops' at line 5" in str(error.value)


def _tar_gz() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        data = b"query,item,score\nq1,a,1\n"
        info = tarfile.TarInfo("run.csv")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


TABLE = b"query,item,score\n" + b"".join(b"q1,d%d,%d\n" % (i, i) for i in range(50))


@pytest.mark.parametrize(
    ("data", "code", "message"),
    [
        (bz2.compress(TABLE), "bzip2", "bzip2-compressed"),
        (lzma.compress(TABLE), "xz", "xz-compressed"),
        (_tar_gz(), "tar", "tar archive"),
        (TABLE.decode().encode("utf-16-le"), "utf16_no_bom", "UTF-16 text without a byte-order"),
        (TABLE.decode().encode("utf-16-be"), "utf16_no_bom", "UTF-16 text without a byte-order"),
    ],
    ids=["bzip2", "xz", "tar.gz", "utf16-le", "utf16-be"],
)
def test_formats_that_are_never_read_are_named_with_their_fix_not_called_binary(
    data, code, message
):
    with pytest.raises(InputError) as error:
        read_input(data, "upload.bin")
    assert error.value.code == code
    assert message in str(error.value) and "Fix:" in str(error.value)
    assert "NUL" not in str(error.value)


def test_utf16_with_its_byte_order_mark_is_still_read():
    table = load_table(codecs.BOM_UTF16_LE + TABLE.decode().encode("utf-16-le"), "run.csv")
    assert len(table.frame) == 50


def test_the_command_line_names_a_bzip2_file_instead_of_calling_it_binary(tmp_path):
    (tmp_path / "run.bz2").write_bytes(bz2.compress(TABLE))
    (tmp_path / "qrels").write_text("\n".join(QRELS_LINES) + "\n")
    status, _, err = _cli(tmp_path / "qrels", tmp_path / "run.bz2")
    assert status == 2
    assert "bzip2-compressed" in err and "Decompress it or use gzip" in err


def test_a_gzip_of_a_bzip2_file_is_named_from_its_decompressed_first_bytes():
    with pytest.raises(InputError) as error:
        read_input(gzip.compress(bz2.compress(TABLE)), "double.gz")
    assert error.value.code == "bzip2"


@pytest.mark.parametrize("model", ["candidate", "run", "control"])
def test_a_headerless_first_row_whose_model_is_a_role_word_stays_a_data_row(model):
    rows = f"u1,i1,0.9,{model}\nu1,i2,0.8,{model}\nu1,i1,0.2,other\nu1,i2,0.7,other\n"
    table = load_table(rows.encode(), "ab.csv")
    assert not table.header
    assert len(table.frame) == 4
    assert list(table.frame.columns) == ["column_1", "column_2", "column_3", "column_4"]


def test_a_header_of_role_words_is_still_a_header():
    table = load_table(b"query,item,score,model\nq1,a,0.9,run\nq1,b,0.8,run\n", "run.csv")
    assert table.header and list(table.frame.columns) == ["query", "item", "score", "model"]
    assert len(table.frame) == 2


def test_a_header_with_a_role_word_over_text_columns_is_still_a_header():
    table = load_table(b"user,product,clicked\nu1,p1,yes\nu2,p2,no\n", "clicks.csv")
    assert table.header and len(table.frame) == 2


def test_a_trec_run_without_its_tag_is_named_as_a_run_missing_a_field(tmp_path):
    (tmp_path / "qrels").write_text("\n".join(QRELS_LINES) + "\n")
    (tmp_path / "t5.run").write_text("1 Q0 d1 1 3.0\n1 Q0 d2 2 2.0\n")
    status, _, err = _cli(tmp_path / "qrels", tmp_path / "t5.run")
    assert status == 2
    assert "t5.run:1: A TREC run line needs 6 fields (qid Q0 docid rank score tag)" in err
    with pytest.raises(InputError, match="needs 6 fields"):
        load_table(b"1 Q0 d1 1 3.0\n1 Q0 d2 2 2.0\n", "t5.run")


def _workbook(sheets: dict[str, list[list[object]]], hidden: tuple[str, ...] = ()) -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
        if title in hidden:
            sheet.sheet_state = "hidden"
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


RUN_ROWS = [["query", "item", "score"], ["q1", "a", 0.9], ["q1", "b", 0.8]]


def test_a_workbook_whose_first_sheet_is_a_readme_reads_the_sheet_with_the_table():
    readme = [["This workbook holds the run."], ["Scores are cosine similarities."]]
    table = load_table(_workbook({"README": readme, "run": RUN_ROWS}), "run.xlsx")
    assert len(table.frame) == 2 and list(table.frame.columns) == ["query", "item", "score"]
    assert any("read sheet 2 of 2 ('run')" in note for note in table.notes)


def test_a_hidden_sheet_is_passed_over_for_the_first_visible_table():
    other = [["query", "item", "score"], ["q9", "z", 0.1], ["q9", "y", 0.2]]
    data = _workbook({"notes": [["see run"]], "old": other, "run": RUN_ROWS}, hidden=("old",))
    table = load_table(data, "run.xlsx")
    assert list(table.frame["query"]) == ["q1", "q1"]


def test_a_workbook_whose_first_sheet_holds_the_table_reads_it_and_says_so():
    table = load_table(_workbook({"run": RUN_ROWS, "README": [["notes"]]}), "run.xlsx")
    assert len(table.frame) == 2
    assert "read the first of 2 sheets ('run')" in table.notes
