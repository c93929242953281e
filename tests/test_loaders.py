"""Reading files: formats, compression, encodings, delimiters, headers, and their errors."""

from __future__ import annotations

import gzip
import io
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from metrics.errors import InputError
from metrics.io.canonical import canonical_qrels, canonical_run
from metrics.io.loaders import load_dataset, load_table
from metrics.io.trec import detect_trec, read_trec

SAMPLES = Path(__file__).resolve().parent.parent / "sample_data"


def test_comma_separated_csv_with_header_is_detected():
    t = load_table(b"query,item,score\nq1,d1,0.5\nq1,d2,0.25\n", "run.csv")
    assert t.format == "csv" and t.header
    assert list(t.frame.columns) == ["query", "item", "score"]
    assert t.frame["score"].tolist() == [0.5, 0.25]


def test_semicolon_delimited_csv_is_detected_with_decimal_commas():
    t = load_table(b"query;item;score\nq1;d1;0,5\nq1;d2;1,25\n", "run.txt")
    assert t.format == "semicolon"
    assert t.frame["score"].tolist() == [0.5, 1.25]


def test_pipe_delimited_text_is_detected():
    t = load_table(b"query|item|score\nq1|d1|3\n", "run.psv")
    assert t.format == "pipe" and t.frame.loc[0, "item"] == "d1"


def test_tab_separated_text_is_detected_whatever_the_extension():
    t = load_table(b"query\titem\tscore\nq1\td1\t3\n", "run.csv")
    assert t.format == "tsv" and t.frame.shape == (1, 3)


def test_whitespace_separated_table_with_header_is_detected():
    t = load_table(b"query  item   score\nq1  d1   3.5\nq2 d2 1\n", "run.txt")
    assert t.format == "whitespace"
    assert t.frame["score"].tolist() == [3.5, 1.0]


def test_headerless_csv_gets_numbered_column_names():
    t = load_table(b"q1,d1,0.5\nq1,d2,0.3\n", "run.csv")
    assert not t.header and t.first_line == 1
    assert list(t.frame.columns) == ["column_1", "column_2", "column_3"]
    assert t.frame.shape == (2, 3)


def test_utf8_byte_order_mark_is_removed_from_the_first_column_name():
    t = load_table(b"\xef\xbb\xbfquery,item,score\nq1,d1,1\n", "run.csv")
    assert t.encoding == "utf-8-sig" and t.frame.columns[0] == "query"


def test_latin1_text_falls_back_to_latin1():
    t = load_table("query,item,score\nqué,d1,1\n".encode("latin-1"), "run.csv")
    assert t.encoding == "latin-1" and t.frame.loc[0, "query"] == "qué"


def test_utf16_text_with_byte_order_mark_is_read():
    t = load_table("query,item,score\nq1,d1,1\n".encode("utf-16"), "run.csv")
    assert t.frame.loc[0, "item"] == "d1"


def test_crlf_line_ends_are_fine():
    t = load_table(b"query,item,score\r\nq1,d1,1\r\nq1,d2,2\r\n", "run.csv")
    assert t.frame["item"].tolist() == ["d1", "d2"]
    assert t.frame["score"].tolist() == [1, 2]


def test_ids_with_leading_zeros_stay_strings_in_any_column():
    t = load_table(b"q,doc,score\n007,0012,1.5\n8,0013,2\n", "run.csv")
    assert t.frame["q"].tolist() == ["007", "8"]
    assert t.frame["doc"].tolist() == ["0012", "0013"]


def test_numeric_query_ids_are_read_as_strings():
    t = load_table(b"qid,docid,score\n1,2,0.5\n10,3,0.2\n", "run.csv")
    assert t.frame["qid"].tolist() == ["1", "10"]
    run = canonical_run(t)
    assert run["query"].tolist() == ["1", "10"] and run["item"].tolist() == ["2", "3"]


def test_trec_run_is_detected_by_shape_without_extension():
    t = load_table(b"301 Q0 FT-1 1 12.5 bm25\n301 Q0 FT-2 2 11 bm25\n", "upload")
    assert t.format == "trec_run" and t.kind == "run"
    assert list(t.frame.columns) == ["query", "item", "rank", "score", "model"]
    assert t.frame["query"].tolist() == ["301", "301"]
    assert t.frame["rank"].tolist() == [1, 2] and t.frame["score"].tolist() == [12.5, 11.0]


def test_trec_run_with_tabs_or_repeated_spaces_is_detected():
    tabs = load_table(b"1\tQ0\td1\t1\t2.0\tx\n1\tQ0\td2\t2\t1.0\tx\n", "r")
    spaces = load_table(b"1  Q0 d1  1 2.0 x\n1 Q0   d2 2  1.0 x\n", "r")
    for t in (tabs, spaces):
        assert t.format == "trec_run" and t.frame["item"].tolist() == ["d1", "d2"]


def test_trec_qrels_are_detected_by_shape():
    t = load_table(b"1 0 d1 2\n1 0 d2 0\n2 0 d1 -1\n", "judgments.txt")
    assert t.format == "trec_qrels" and t.kind == "qrels"
    assert t.frame["relevance"].tolist() == [2.0, 0.0, -1.0]


def test_gzip_compressed_csv_is_detected_by_magic_bytes():
    t = load_table(gzip.compress(b"query,item,score\nq1,d1,1\n"), "run.bin")
    assert t.compressed and t.format == "csv" and t.frame.shape == (1, 3)


def test_parquet_is_read_with_pyarrow():
    buf = io.BytesIO()
    pq.write_table(pa.table({"query": ["007"], "item": ["d1"], "score": [0.5]}), buf)
    t = load_table(buf.getvalue(), "run.parquet")
    assert t.format == "parquet" and t.frame.loc[0, "query"] == "007"


def test_excel_workbook_first_sheet_is_read_and_whole_numbers_lose_their_decimal_point():
    buf = io.BytesIO()
    pd.DataFrame({"qid": [1.0, 2.0], "doc": ["007", "d2"], "score": [0.5, 1.5]}).to_excel(
        buf, index=False
    )
    t = load_table(buf.getvalue(), "run.xlsx")
    assert t.format == "excel"
    run = canonical_run(t)
    assert run["query"].tolist() == ["1", "2"] and run["item"].tolist() == ["007", "d2"]


def test_json_lines_are_read():
    t = load_table(
        b'{"query": "q1", "item": "d1", "score": 1}\n{"query": "q1", "item": "d2", "score": 2}\n',
        "run.jsonl",
    )
    assert t.format == "jsonl" and t.frame["item"].tolist() == ["d1", "d2"]


def test_dictionary_json_is_read_as_a_run_when_values_are_fractional():
    t = load_table(b'{"q1": {"d1": 1.5, "d2": 0.25}, "q2": {"d3": 3.0}}', "run.json")
    assert t.format == "json_dict" and t.kind == "run"
    assert t.frame.to_dict("list") == {
        "query": ["q1", "q1", "q2"],
        "item": ["d1", "d2", "d3"],
        "score": [1.5, 0.25, 3.0],
    }


def test_dictionary_json_is_read_as_judgments_when_named_qrels():
    t = load_table(b'{"q1": {"d1": 1.5}}', "qrels.json")
    assert t.kind == "qrels" and list(t.frame.columns) == ["query", "item", "relevance"]


def test_a_path_is_read_and_named_after_the_file(tmp_path):
    path = tmp_path / "bm25.run.gz"
    path.write_bytes(gzip.compress(b"1 Q0 d1 1 2 tag\n"))
    t = load_table(path)
    assert t.name == "bm25.run.gz" and t.stem == "bm25" and t.format == "trec_run"


# ----------------------------------------------------------------------- the same data, any format


def _trec_reference() -> tuple[pd.DataFrame, pd.DataFrame]:
    runs = [load_table(SAMPLES / "web_search" / "trec" / f"{m}.run") for m in ("lexical", "dense")]
    run = pd.concat([canonical_run(t) for t in runs], ignore_index=True)
    run = run[run["query"].isin(["1", "2", "3"])].reset_index(drop=True)
    qrels = canonical_qrels(load_table(SAMPLES / "web_search" / "trec" / "web_search.qrels"))
    qrels = qrels[qrels["query"].isin(["1", "2", "3"])].reset_index(drop=True)
    return run, qrels


def _encode(frame: pd.DataFrame, fmt: str) -> bytes:
    if fmt in ("csv", "tsv", "semicolon", "pipe"):
        sep = {"csv": ",", "tsv": "\t", "semicolon": ";", "pipe": "|"}[fmt]
        return frame.to_csv(index=False, sep=sep).encode()
    if fmt == "csv.gz":
        return gzip.compress(frame.to_csv(index=False).encode())
    if fmt == "crlf_bom":
        return b"\xef\xbb\xbf" + frame.to_csv(index=False, lineterminator="\r\n").encode()
    if fmt == "parquet":
        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
        return buf.getvalue()
    if fmt == "xlsx":
        buf = io.BytesIO()
        frame.to_excel(buf, index=False)
        return buf.getvalue()
    if fmt == "jsonl":
        return frame.to_json(orient="records", lines=True).encode()
    if fmt == "json_dict":
        out: dict = {}
        for q, i, v in frame.itertuples(index=False):
            out.setdefault(q, {})[i] = v
        return json.dumps(out).encode()
    raise AssertionError(fmt)


EXT = {
    "csv": "csv",
    "tsv": "tsv",
    "semicolon": "txt",
    "pipe": "psv",
    "csv.gz": "csv.gz",
    "crlf_bom": "csv",
    "parquet": "parquet",
    "xlsx": "xlsx",
    "jsonl": "jsonl",
    "json_dict": "json",
}
FORMATS = ["csv", "tsv", "semicolon", "pipe", "csv.gz", "crlf_bom", "parquet", "xlsx", "jsonl"]


@pytest.mark.parametrize("fmt", FORMATS + ["json_dict"])
def test_every_format_yields_the_same_canonical_frames_as_the_trec_files(fmt):
    run, qrels = _trec_reference()
    for model, part in run.groupby("model", sort=False):
        cols = (
            ["query", "item", "score"] if fmt == "json_dict" else ["query", "item", "rank", "score"]
        )
        table = load_table(_encode(part[cols], fmt), f"{model}.{EXT[fmt]}", kind="run")
        got = canonical_run(table)
        expected = part[cols + ["model"]].reset_index(drop=True)
        pd.testing.assert_frame_equal(got[cols + ["model"]], expected, check_dtype=False)
        assert got["query"].map(type).eq(str).all()
    table = load_table(_encode(qrels, fmt), f"qrels.{EXT[fmt]}", kind="qrels")
    pd.testing.assert_frame_equal(canonical_qrels(table), qrels, check_dtype=False)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_gives_the_same_metric_values_as_the_trec_files(fmt):
    evaluate = pytest.importorskip("metrics.engine.evaluation").evaluate
    run, qrels = _trec_reference()
    tables = [
        load_table(_encode(part[["query", "item", "score"]], fmt), f"{model}.{EXT[fmt]}")
        for model, part in run.groupby("model", sort=False)
    ]
    data = load_dataset(tables, load_table(_encode(qrels, fmt), f"qrels.{EXT[fmt]}"))
    measures = ["P@10", "nDCG@10", "AP", "RR"]
    expected = evaluate(run, qrels, measures).per_query
    got = evaluate(data.run, data.qrels, measures).per_query
    pd.testing.assert_frame_equal(
        got.reset_index(drop=True), expected.reset_index(drop=True), check_dtype=False
    )


# ----------------------------------------------------------------------- errors name file and line


def _raises(data: bytes, message: str, name: str = "bad.csv") -> InputError:
    with pytest.raises(InputError, match=re.escape(message)) as info:
        load_table(data, name)
    return info.value


def test_empty_file_is_refused():
    _raises(
        b"  \n",
        "bad.csv: The file is empty. Fix: Choose a file with a header row and at "
        "least one data row.",
    )


def test_binary_file_is_refused():
    _raises(
        b"abc\x00\x01\x02",
        "bad.csv: The file looks binary (it contains NUL bytes), not a text table.",
    )


def test_row_with_too_many_values_is_reported_with_its_line():
    err = _raises(
        b"query,item,score\nq1,d1,1\nq1,d2,2,9\n",
        "bad.csv, line 3: Expected 3 values separated by commas, found 4. Fix: Quote "
        "values that contain the separator",
    )
    assert err.line == 3 and err.source == "bad.csv"


def test_single_column_text_is_refused_with_the_fix():
    _raises(
        b"hello\nworld\n",
        "bad.csv, line 1: Found only one column: no comma, tab, semicolon "
        "or pipe separates the values. Fix: Save the table as CSV with a "
        "header row such as query,item,score.",
    )


def test_broken_gzip_is_refused():
    _raises(
        b"\x1f\x8b\x08\x00garbage",
        "bad.csv: The file starts like a gzip archive but cannot be decompressed",
    )


def test_trec_run_with_a_bad_score_names_the_line_and_column():
    err = _raises(
        b"1 Q0 d1 1 2.0 x\n1 Q0 d2 2 1.0 x\n1 Q0 d3 3 1e x\n",
        "run.trec, line 3, column 'score': The score '1e' is not a number.",
        name="run.trec",
    )
    assert err.line == 3 and err.column == "score"


def test_zip_that_is_not_a_workbook_is_refused():
    _raises(
        b"PK\x03\x04not really a zip",
        "bad.csv: The file is a zip archive but not a readable Excel workbook",
    )


def test_old_excel_format_is_refused_with_the_fix():
    _raises(
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1rest",
        "This is an old Excel (.xls) or other OLE file. Fix: Save it as .xlsx or CSV.",
    )


def test_pickles_are_never_read():
    _raises(b"\x80\x04\x95rest", "The file looks like a Python pickle, which is never read.")


def test_invalid_json_names_the_line():
    err = _raises(b'[{"query": "q1"},\n {"query": }]', "bad.csv, line 2: Invalid JSON")
    assert err.line == 2


def test_dictionary_json_with_a_text_value_names_query_and_item():
    _raises(
        b'{"q1": {"d1": "high"}}', "The value for query 'q1', item 'd1' is 'high', not a number."
    )


def test_missing_path_is_reported():
    with pytest.raises(InputError, match=re.escape("nope.csv: Cannot read the file")):
        load_table(Path("/nonexistent/nope.csv"))


@pytest.mark.slow
def test_one_million_rows_load_as_strings_and_floats():
    n = 1_000_000
    body = "\n".join(f"{i % 5000},d{i},{(i % 97) / 97:.4f}" for i in range(n))
    t = load_table(("qid,docid,score\n" + body + "\n").encode(), "big.csv")
    assert len(t.frame) == n
    assert t.frame["score"].dtype == np.float64 and t.frame["qid"].dtype == "str"
    assert (
        t.frame["qid"].iloc[-1] == str((n - 1) % 5000) and t.frame["docid"].iloc[-1] == f"d{n - 1}"
    )


# --------------------------------------------------------------------------- physical line numbers


def _error(data: bytes, name: str = "run.csv") -> InputError:
    with pytest.raises(InputError) as caught:
        canonical_run(load_table(data, name))
    return caught.value


def test_a_bad_score_after_blank_lines_names_its_physical_line():
    error = _error(b"query,item,score\nq1,a,1\n\nq1,b,2\n\nq1,c,oops\n")
    assert error.line == 6 and "'oops' at line 6" in str(error)


def test_a_bad_score_after_blank_lines_in_a_crlf_file_names_its_physical_line():
    error = _error(b"query,item,score\r\nq1,a,1\r\n\r\nq1,b,2\r\n\r\nq1,c,oops\r\n")
    assert error.line == 6


def test_blank_lines_before_the_header_and_before_the_first_row_are_counted():
    error = _error(b"\n\nquery,item,score\n\nq1,a,1\nq1,c,oops\n")
    assert error.line == 6


def test_a_bad_label_of_a_tab_separated_judgments_file_names_its_physical_line():
    with pytest.raises(InputError) as caught:
        canonical_qrels(
            load_table(b"query\titem\tlabel\nq1\ta\t1\n\n\nq1\tb\tyes-ish\n", "qrels.tsv")
        )
    assert caught.value.line == 5


def test_a_bad_score_of_a_whitespace_table_after_a_whitespace_only_line_names_its_line():
    assert _error(b"query item score\nq1 a 1\n   \nq1 b bad\n", "run.txt").line == 4


def test_a_row_with_too_many_values_after_a_blank_line_names_its_physical_line():
    error = _error(b"query,item,score\nq1,a,1\n\n\nq1,b,2,3\n")
    assert error.line == 5 and "found 4" in str(error)


def test_a_whitespace_only_line_in_a_csv_is_reported_as_a_row_with_its_line():
    error = _error(b"query,item,score\nq1,a,1\n   \nq1,b,2\n")
    assert error.line == 3 and "found 1" in str(error)


def test_a_bad_rank_of_a_trec_run_after_a_blank_line_names_its_physical_line():
    error = _error(b"q1 Q0 a 1 3.0 m\n\nq1 Q0 b 2 2.0 m\nq1 Q0 c x 1.0 m\n", "bm25.run")
    assert (error.line, error.column) == (4, "rank")


def test_a_bad_score_of_a_crlf_trec_run_after_a_blank_line_names_its_physical_line():
    error = _error(b"q1 Q0 a 1 3.0 m\r\n\r\nq1  Q0 b 2 2.0 m\r\nq1 Q0 c 3 zz m\r\n", "bm25.run")
    assert (error.line, error.column) == (4, "score")


def test_a_trec_run_line_with_a_missing_field_after_a_blank_line_is_refused_with_its_line():
    error = _error(b"q1 Q0 a 1 3.0 m\nq1 Q0 b 2 2.0 m\n\nq1 Q0 c 3 1.0\n", "bm25.run")
    assert str(error) == (
        "bm25.run, line 4: A TREC run line needs 6 fields (qid Q0 docid rank score tag); "
        "this one has 5. Fix: Write one result per line: qid Q0 docid rank score tag."
    )


def test_text_after_the_sixth_field_of_a_trec_run_is_ignored_like_trec_eval_and_noted_once():
    t = load_table(b"q1  Q0 a 1 3.0 m\nq1 Q0 b 2 2.0 m\n\nq1 Q0 c 3 1.0 m x y\n", "bm25.run")
    assert t.format == "trec_run" and t.frame["item"].tolist() == ["a", "b", "c"]
    assert t.frame["model"].tolist() == ["m", "m", "m"]
    assert t.notes == (
        "TREC run (qid Q0 docid rank score tag)",
        "1 line has text after field 6 (line 4); as trec_eval does, only the "
        "first 6 fields (qid Q0 docid rank score tag) are read.",
    )


def test_a_bad_relevance_of_trec_qrels_after_blank_lines_names_its_physical_line():
    with pytest.raises(InputError) as caught:
        load_table(b"q1 0 a 1\n\n\nq1 0 b high\nq1 0 c 0\n", "qrels.txt")
    assert caught.value.line == 4


def test_a_bad_value_of_json_lines_after_a_blank_line_names_its_physical_line():
    data = b'{"query":"q1","item":"a","score":1}\n\n{"query":"q1","item":"b","score":"bad"}\n'
    assert _error(data, "run.jsonl").line == 3


MULTI_LINE = b'query,item,score,note\nq1,a,1,"two\nlines"\nq1,b,2,"three\nmore\nlines"\nq1,c,3,ok\n'


def test_a_bad_score_after_quoted_values_with_line_breaks_names_its_physical_line():
    error = _error(MULTI_LINE + b"q2,d,x,bad\n")
    assert error.line == 8 and "'x' at line 8" in str(error)


def test_a_ragged_row_after_quoted_values_with_line_breaks_names_its_physical_line():
    error = _error(MULTI_LINE + b"q2,d,1,bad,extra\n")
    assert error.line == 8 and "found 5" in str(error)


def test_quoted_line_breaks_blank_lines_and_crlf_together_keep_editor_line_numbers():
    data = MULTI_LINE.replace(b"\n", b"\r\n") + b"\r\n" + b"q2,d,oops,x\r\n"
    table = load_table(data, "run.csv")
    assert table.frame["note"].tolist()[:2] == ["two\r\nlines", "three\r\nmore\r\nlines"]
    assert [table.line_of(i) for i in range(4)] == [2, 4, 7, 9]
    assert _error(data).line == 9


def test_line_numbers_of_a_file_without_blank_lines_are_unchanged():
    table = load_table(b"query,item,score\nq1,a,1\nq1,b,2\n", "run.csv")
    assert table.skipped_lines == () and [table.line_of(i) for i in range(2)] == [2, 3]


# ----------------------------------------------------------------------- TREC as trec_eval reads it
def test_a_bad_line_after_comment_and_blank_lines_of_trec_qrels_names_its_physical_line():
    data = b"# judged\n1 0 d1 2\n\n   # indented\n1 0 d2 x\n"
    assert str(_error(data, "q.txt")) == (
        "q.txt, line 5, column 'relevance': The relevance 'x' is not a number. "
        "Fix: Write one judgment per line: qid 0 docid relevance."
    )


def test_trec_qrels_with_comment_lines_are_read_and_the_comments_noted():
    t = load_table(b"# judged in 2024\n1 0 d1 2\n\n# more\n1 0 d2 0\n", "q.txt")
    assert t.format == "trec_qrels" and t.frame["item"].tolist() == ["d1", "d2"]
    assert t.notes == (
        "TREC qrels (qid iter docid rel)",
        "2 comment lines starting with '#' were skipped.",
    )
    assert [t.line_of(0), t.line_of(1)] == [2, 5]


def test_a_trec_run_with_a_header_line_of_words_skips_it():
    t = load_table(b"qid iter docno rank score tag\n1 Q0 d1 1 2.0 x\n1 Q0 d2 2 1.0 x\n", "r")
    assert t.format == "trec_run" and t.header and t.frame["item"].tolist() == ["d1", "d2"]


def test_a_broken_first_line_of_a_trec_run_is_named_not_taken_for_a_header():
    data = b"1 Q0 d1 one 2.0 x\n1 Q0 d2 2 1.0 x\n1 Q0 d3 3 0.5 x\n"
    assert str(_error(data, "r.run")) == (
        "r.run, line 1, column 'rank': The rank 'one' is not a whole number. "
        "Fix: Write one result per line: qid Q0 docid rank score tag."
    )


def test_the_command_line_reader_and_the_table_reader_read_trec_files_alike(tmp_path):
    data = b"# run\n301\tQ0\tA 1\t  2.5\tSTANDARD more junk\n\n301 Q0 B 2 1.5 STANDARD\n"
    path = tmp_path / "x.run"
    path.write_bytes(data)
    fast = read_trec(path)
    table = load_table(data, "x.run")
    assert fast is not None and fast.kind == "run" and table.format == "trec_run"
    assert fast.query.to_pylist() == table.frame["query"].tolist() == ["301", "301"]
    assert fast.item.to_pylist() == table.frame["item"].tolist() == ["A", "B"]
    assert fast.value.tolist() == table.frame["score"].tolist() == [2.5, 1.5]
    assert (
        fast.notes()
        == table.notes[1:]
        == (
            "1 line has text after field 6 (line 2); as trec_eval does, only the "
            "first 6 fields (qid Q0 docid rank score tag) are read.",
            "1 comment line starting with '#' was skipped.",
        )
    )


def test_formats_has_no_trec_detection_of_its_own():
    import metrics.io.formats as formats

    assert formats.detect_trec is detect_trec
    assert not hasattr(formats, "_detect_trec")


def test_text_after_the_fourth_field_of_trec_qrels_is_ignored_and_noted():
    t = load_table(b"1 0 d1 2 judged by A\n1 0 d2 0\n", "qrels.txt")
    assert t.format == "trec_qrels" and t.frame["relevance"].tolist() == [2.0, 0.0]
    assert t.notes[1] == (
        "1 line has text after field 4 (line 1); as trec_eval does, only the "
        "first 4 fields (qid iter docid relevance) are read."
    )


def test_a_gzip_compressed_trec_run_is_read_by_the_command_line_reader(tmp_path):
    path = tmp_path / "r.run.gz"
    path.write_bytes(gzip.compress(b"1 Q0 d1 1 2.0 x\n1 Q0 d2 2 1.0 x\n"))
    columns = read_trec(path)
    assert columns is not None and columns.item.to_pylist() == ["d1", "d2"]


def test_a_latin_1_trec_run_is_read_with_its_accented_ids(tmp_path):
    path = tmp_path / "r.run"
    path.write_bytes("1 Q0 caf\xe9 1 2.0 x\n1 Q0 d2 2 1.0 x\n".encode("latin-1"))
    columns = read_trec(path)
    assert columns is not None and columns.item.to_pylist() == ["café", "d2"]


def test_an_empty_file_is_not_a_trec_file_for_the_command_line_reader(tmp_path):
    (tmp_path / "empty.run").write_bytes(b"")
    assert read_trec(tmp_path / "empty.run") is None


def test_a_memory_mapped_trec_file_with_a_broken_line_is_named_like_a_read_one(tmp_path):
    path = tmp_path / "r.run"
    path.write_bytes(b"1 Q0 d1 1 2.0 x\n1  Q0 d2 2 x x\n")
    with pytest.raises(InputError) as caught:
        read_trec(path)
    assert str(caught.value) == str(_error(path.read_bytes(), "r.run"))


# ----------------------------------------------------- work started before validation ends


def _tables(run: bytes, qrels: bytes):
    return [load_table(run, "run.csv")], load_table(qrels, "qrels.csv")


def test_on_built_gets_the_returned_data_set_before_validation_fills_its_health():
    runs, qrels = _tables(
        b"query,item,score\nq1,d1,2\nq1,d2,1\nq2,d1,1\n", b"query,item,label\nq1,d1,1\n"
    )
    seen = []
    dataset = load_dataset(
        runs, qrels, on_built=lambda d: seen.append((d, d.content_hash, list(d.health.codes())))
    )
    ((built, built_hash, codes_then),) = seen
    assert built is dataset and built_hash == dataset.content_hash
    assert codes_then == [] and "short_lists" in dataset.health.codes()
    plain = load_dataset(runs, qrels)
    assert plain.content_hash == dataset.content_hash
    assert plain.health.codes() == dataset.health.codes()


def test_input_that_validation_refuses_still_raises_after_on_built_started_work():
    runs, qrels = _tables(b"query,item,score\nq1,d1,2\n", b"query,item,label\nq9,d1,1\n")
    seen = []
    with pytest.raises(InputError, match="No query appears in both"):
        load_dataset(runs, qrels, on_built=seen.append)
    assert len(seen) == 1


def test_on_built_is_not_called_when_no_usable_row_is_left():
    runs, qrels = _tables(b"query,item,score\nq1,d1,\n", b"query,item,label\nq1,d1,1\n")
    seen = []
    with pytest.raises(InputError):
        load_dataset(runs, qrels, on_built=seen.append)
    assert seen == []


def test_the_content_hash_of_text_ids_does_not_depend_on_how_arrow_split_them_into_chunks():
    from metrics.io.hashing import content_hash

    def frame(*chunks: list) -> pd.DataFrame:
        column = pa.chunked_array([pa.array(c, pa.string()) for c in chunks])
        return pd.DataFrame({"query": pd.arrays.ArrowExtensionArray(column)})

    ids = ["q1", "q22", "", "q333", None, "q1"]
    whole = frame(ids)
    assert content_hash(frame(ids[:2], ids[2:5], ids[5:])) == content_hash(whole)
    assert content_hash(frame(["q12", "q2", "", "q333", None, "q1"])) != content_hash(whole)
    assert content_hash(frame(["q1", "q22", None, "q333", "", "q1"])) != content_hash(whole)


def test_runs_of_files_with_one_stem_or_one_name_keep_their_own_model_names():
    qrels = load_table(b"query,item,relevance\nq1,a,1\n", "q.csv")
    run = b"query,item,score\nq1,a,1\nq1,b,2\n"
    stems = load_dataset([load_table(run, "bm25.csv"), load_table(run, "bm25.tsv")], qrels)
    assert stems.models == ["bm25.csv", "bm25.tsv"]
    names = load_dataset([load_table(run, "run.csv"), load_table(run, "run.csv")], qrels)
    assert names.models == ["run.csv", "run.csv (2)"]
    distinct = load_dataset([load_table(run, "a.csv"), load_table(run, "b.csv")], qrels)
    assert distinct.models == ["a", "b"]
