"""The app's upload limits hold for every format: rows and bytes are checked before or while a
file is read (a Parquet file's rows from its metadata, an Excel sheet's rows as they are
streamed, text as it is decompressed), the header is not counted as a row, and a file over a
limit is refused naming the limit while the server's memory stays near where it was."""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openpyxl import Workbook

from metrics.errors import InputError
from metrics.io import formats
from metrics.io.formats import load_table
from metrics.io.source import UploadLimits

ROOT = Path(__file__).resolve().parent.parent
LIMITS = UploadLimits(1024**3, 1000)


def csv_rows(n: int) -> bytes:
    return b"query,item,score\n" + b"".join(b"q%d,d%d,0.5\n" % (i // 10, i) for i in range(n))


@pytest.mark.parametrize("packed", [False, True], ids=["text", "gzip"])
def test_a_table_of_exactly_the_limits_rows_is_read_and_one_more_is_refused(packed):
    def data(n: int) -> bytes:
        return gzip.compress(csv_rows(n)) if packed else csv_rows(n)

    assert len(load_table(data(1000), "at.csv", limits=LIMITS).frame) == 1000
    unended = csv_rows(1000)[:-1]  # no line break after the last row
    assert len(load_table(unended, "at.csv", limits=LIMITS).frame) == 1000
    with pytest.raises(InputError) as caught:
        load_table(data(1001), "over.csv", limits=LIMITS)
    assert caught.value.code == "upload_too_many_rows"
    assert caught.value.params["limit"] == 1000 and caught.value.params["n"] == 1001


def parquet_bytes(rows: int, *, text: bool = False) -> bytes:
    """A Parquet file of ``rows`` rows that compresses to little (repeated values)."""
    query = pa.array(np.repeat(np.arange(rows // 100 + 1), 100)[:rows]).cast(pa.string())
    table = pa.table(
        {
            "query": query,
            "item": pa.array(np.arange(rows) % 100).cast(pa.string()),
            "score": pa.array(np.tile(np.linspace(1, 0, 100), rows // 100 + 1)[:rows]),
        }
    )
    if text:
        table = table.append_column("note", pa.array(["x" * 200] * rows))
    out = io.BytesIO()
    pq.write_table(table, out, row_group_size=100_000)
    return out.getvalue()


def test_a_parquet_file_over_the_rows_limit_is_refused_from_its_metadata():
    data = parquet_bytes(5_000_000)
    assert len(data) < 3 * 1024**2
    with pytest.raises(InputError) as caught:
        load_table(data, "five.parquet", limits=UploadLimits(1024**3, 2_000_000))
    assert caught.value.code == "upload_rows_parquet"
    assert str(caught.value).startswith(
        "five.parquet: The Parquet file has 5,000,000 rows (its metadata says so), more than "
        "the upload limit of 2,000,000; nothing else was read."
    )
    assert "RANKING_METRICS_UPLOAD_ROWS" in str(caught.value)


def test_a_parquet_file_whose_values_pass_the_bytes_limit_is_refused_while_read():
    data = parquet_bytes(300_000, text=True)  # about 64 MB of text, a small file
    with pytest.raises(InputError) as caught:
        load_table(data, "wide.parquet", limits=UploadLimits(20 * 1024**2, 10**9))
    assert caught.value.code == "upload_values_too_large"
    assert caught.value.params["budget"] == "20 MB"
    assert caught.value.params["n"] < 300_000  # refused before the last row group
    within = load_table(data[:], "wide.parquet", limits=UploadLimits(1024**3, 10**9))
    assert len(within.frame) == 300_000


def xlsx_bytes(rows: int, stated: int | None = None) -> bytes:
    """A workbook of a header and ``rows`` rows; ``stated``: the size its sheet states."""
    book = Workbook(write_only=True)
    sheet = book.create_sheet("runs")
    sheet.append(["query", "item", "score"])
    for i in range(rows):
        sheet.append([f"q{i // 10}", f"d{i}", 1.0 / (1 + i % 10)])
    out = io.BytesIO()
    book.save(out)
    if stated is None:
        return out.getvalue()
    packed, changed = zipfile.ZipFile(io.BytesIO(out.getvalue())), io.BytesIO()
    with zipfile.ZipFile(changed, "w", zipfile.ZIP_DEFLATED) as target:
        for entry in packed.infolist():
            content = packed.read(entry.filename)
            if entry.filename.startswith("xl/worksheets/"):
                text = content.decode()
                start = text.index("<sheetData")
                content = (
                    text[:start] + f'<dimension ref="A1:C{stated}"/>' + text[start:]
                ).encode()
            target.writestr(entry, content)
    return changed.getvalue()


def test_an_excel_sheet_over_the_rows_limit_is_refused_while_its_rows_are_read():
    assert len(load_table(xlsx_bytes(1000), "at.xlsx", limits=LIMITS).frame) == 1000
    with pytest.raises(InputError) as caught:
        load_table(xlsx_bytes(1200), "over.xlsx", limits=LIMITS)
    assert caught.value.code == "upload_rows_read"
    assert str(caught.value).startswith(
        "over.xlsx: The sheet 'runs' has more rows than the upload limit of 1,000: "
    )


def test_an_excel_sheet_stating_more_rows_than_excel_writes_is_refused_before_reading():
    data = xlsx_bytes(5, stated=3_000_001)
    with pytest.raises(InputError) as caught:
        load_table(data, "big.xlsx", limits=UploadLimits(1024**3, 2_000_000))
    assert caught.value.code == "upload_rows_sheet"
    assert "has 3,000,000 rows (the workbook says so)" in str(caught.value)
    # Excel states the rows it formatted too: within its own size, the rows are counted
    assert len(load_table(xlsx_bytes(5, stated=5000), "ok.xlsx", limits=LIMITS).frame) == 5


cells = st.one_of(
    st.none(),
    st.just(""),
    st.integers(-5, 5),
    st.floats(-2, 2, allow_nan=False).map(lambda x: round(x, 2)),
    st.booleans(),
    st.sampled_from(["a", "b c", " x ", "007"]),
)


@settings(max_examples=60, deadline=None)
@given(
    columns=st.lists(
        st.sampled_from(
            [
                [1, 2.5, None],
                [True, False, None],
                ["x", None, "y"],
                [None, None, None],
                [1, "a", True],
            ]
        ),
        min_size=1,
        max_size=3,
    ),
    extra=st.lists(st.lists(cells, min_size=3, max_size=3), max_size=12),
)
def test_a_sheet_read_in_chunks_is_the_sheet_read_at_once(columns, extra):
    rows = [list(r) for r in zip(*columns)] + [r[: len(columns)] for r in extra]
    book = Workbook(write_only=True)
    sheet = book.create_sheet("t")
    sheet.append([f"c{j}" for j in range(len(columns))])
    for row in rows:
        sheet.append(["" if v is None else v for v in row])
    out = io.BytesIO()
    book.save(out)
    data = out.getvalue()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(formats, "_SHEET_CHUNK", 2)
        try:
            chunked = load_table(data, "t.xlsx").frame
        except InputError:
            return  # a sheet that is not a table (too few filled rows): read neither way
    whole = load_table(data, "t.xlsx").frame
    assert list(chunked.columns) == list(whole.columns)
    for name in whole.columns:
        assert str(chunked[name].dtype) == str(whole[name].dtype), name
        assert chunked[name].tolist() == whole[name].tolist() or (
            chunked[name].isna().tolist() == whole[name].isna().tolist()
            and chunked[name].dropna().tolist() == whole[name].dropna().tolist()
        )
    for name in whole.columns:  # each column as the values of all its cells at once say
        values = [
            (None if j >= len(r) or r[j] is None or r[j] == "" else r[j])
            for r in rows
            for j in [list(whole.columns).index(name)]
        ]
        present = [v for v in values if v is not None]
        if present and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in present
        ):
            assert str(whole[name].dtype) == "float64"
        elif present and all(isinstance(v, bool) for v in present):
            assert whole[name].dtype == object


# --------------------------------------------------------------------------- in the app

_APP_UPLOAD = """
import json, sys
sys.path.insert(0, {root!r})
from tests.app_support import fresh_app, open_page


def peak_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1])


data = open({path!r}, "rb").read()
at = open_page(fresh_app(), "data")
at.radio(key="w_source").set_value("upload").run()
open("/proc/self/clear_refs", "w").write("5")  # the peak from here on
before = peak_kb()
at.file_uploader(key="up_runs").set_value([({name!r}, data, "application/octet-stream")])
at.run()
errors = " ".join(e.value for e in at.main.error).replace(chr(92), "")
print(json.dumps({{"errors": errors, "rise_mb": (peak_kb() - before) / 1024}}))
"""


def _uploaded_in_the_app(tmp_path: Path, name: str, data: bytes, env: dict[str, str]) -> dict:
    path = tmp_path / name
    path.write_bytes(data)
    script = _APP_UPLOAD.format(root=str(ROOT), path=str(path), name=name)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**__import__("os").environ, **env},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "make", "env", "words"),
    [
        (
            "five.parquet",
            lambda: parquet_bytes(5_000_000),
            {},
            "The Parquet file has 5,000,000 rows (its metadata says so), more than the upload "
            "limit of 2,000,000",
        ),
        (
            "stated.xlsx",
            lambda: xlsx_bytes(5, stated=3_000_001),
            {},
            "The sheet 'runs' has 3,000,000 rows (the workbook says so), more than the upload "
            "limit of 2,000,000",
        ),
        (
            "long.xlsx",
            lambda: xlsx_bytes(30_000),
            {"RANKING_METRICS_UPLOAD_ROWS": "20000"},
            "The sheet 'runs' has more rows than the upload limit of 20,000",
        ),
    ],
    ids=["parquet", "xlsx-stated", "xlsx-streamed"],
)
def test_the_app_refuses_a_file_over_the_rows_limit_naming_it_within_300_mb(
    tmp_path, name, make, env, words
):
    found = _uploaded_in_the_app(tmp_path, name, make(), env)
    assert words in found["errors"], found["errors"]
    assert name in found["errors"]
    assert found["rise_mb"] < 300, found
