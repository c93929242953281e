"""Excel-safe CSV: formula-looking text is neutralised, numbers stay numbers."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from metrics.io.export import excel_safe_cell, excel_safe_frame, to_csv_bytes, write_csv


@pytest.mark.parametrize(
    "text",
    [
        "=1+1",
        "+SUM(A1)",
        "-2+3",
        "@cmd",
        "\tx",
        "\rx",
        '=HYPERLINK("http://x","y")',
        "-",
        "-inf",
        "--1",
    ],
)
def test_text_beginning_with_a_formula_character_gets_an_apostrophe(text):
    assert excel_safe_cell(text) == "'" + text


@pytest.mark.parametrize("text", ["-0.5", "+3", "-1e-5", "12", ".5", "-.5"])
def test_text_that_is_exactly_a_number_is_left_alone(text):
    assert excel_safe_cell(text) == text


@pytest.mark.parametrize("value", [-0.5, -3, np.float64(-2.5), np.int64(-7), True, None])
def test_numbers_and_missing_values_are_returned_unchanged(value):
    assert excel_safe_cell(value) is value


def test_ordinary_text_is_untouched():
    assert excel_safe_cell("query 1") == "query 1"
    assert excel_safe_cell("a=b") == "a=b"


def test_numeric_columns_keep_their_dtype_and_negative_values():
    frame = pd.DataFrame({"delta": [-0.25, 0.5], "n": [3, -4]})
    safe = excel_safe_frame(frame)
    assert safe["delta"].dtype == np.float64 and safe["n"].dtype == np.int64
    assert safe["delta"].tolist() == [-0.25, 0.5]


def test_text_columns_and_headers_are_neutralised():
    frame = pd.DataFrame({"=evil": ["=cmd|' /C calc'!A0", "ok"], "x": [1, 2]})
    safe = excel_safe_frame(frame)
    assert list(safe.columns) == ["'=evil", "x"]
    assert safe.iloc[:, 0].tolist() == ["'=cmd|' /C calc'!A0", "ok"]


def test_mixed_object_column_keeps_numbers_and_neutralises_text():
    frame = pd.DataFrame({"v": pd.Series([-1.5, "@x", None], dtype=object)})
    assert excel_safe_frame(frame)["v"].tolist() == [-1.5, "'@x", None]


def test_index_is_written_and_neutralised_when_asked():
    frame = pd.DataFrame({"v": [1.0]}, index=pd.Index(["+q"], name="query"))
    safe = excel_safe_frame(frame, index=True)
    assert safe.to_dict("list") == {"query": ["'+q"], "v": [1.0]}


def test_csv_bytes_start_with_a_bom_and_read_back_numbers_as_numbers():
    frame = pd.DataFrame({"query": ["=1+2", "q2"], "delta": [-0.125, 0.25]})
    data = to_csv_bytes(frame)
    assert data.startswith(b"\xef\xbb\xbf")
    back = pd.read_csv(io.BytesIO(data), encoding="utf-8-sig")
    assert back["query"].tolist() == ["'=1+2", "q2"]
    assert back["delta"].tolist() == [-0.125, 0.25]
    assert b"\r\n-0.125" not in data and b",-0.125\r\n" in data


def test_csv_without_bom_and_with_a_float_format():
    data = to_csv_bytes(pd.DataFrame({"x": [1 / 3]}), bom=False, float_format="%.3f")
    assert data == b"x\r\n0.333\r\n"


def test_write_csv_writes_the_same_bytes(tmp_path):
    frame = pd.DataFrame({"id": ["-x"], "v": [-1]})
    target = tmp_path / "out.csv"
    write_csv(frame, str(target))
    assert target.read_bytes() == to_csv_bytes(frame)
