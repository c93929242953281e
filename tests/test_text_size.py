"""How much text the command line counts in a table file (``table_text_size``): what decides
whether a table too large to read in blocks may be read whole, and what its refusal names."""

from __future__ import annotations

import gzip
import io

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from metrics.cli.blocks import table_text_size


def _table(rows: int) -> pa.Table:
    """Ids that grow longer down the table, as a run's query and item ids do."""
    return pa.table(
        {
            "query": [str(i // 100) for i in range(rows)],
            "item": [f"doc-{i * 7919 % 1_000_003}" for i in range(rows)],
            "score": [round(i % 1000 / 7, 4) for i in range(rows)],  # 8 characters or so
        }
    )


def _csv_bytes(table: pa.Table) -> int:
    out = io.BytesIO()
    pacsv.write_csv(table, out, pacsv.WriteOptions(quoting_style="none"))
    return len(out.getvalue())


@pytest.mark.parametrize("row_group", [20_000, 1_000_000])
def test_parquet_counts_about_the_text_of_the_same_rows_as_csv(tmp_path, row_group):
    """From its first and last row groups' first rows, within a tenth of the CSV."""
    table = _table(300_000)
    path = tmp_path / "run.parquet"
    pq.write_table(table, path, row_group_size=row_group)
    counted, csv = table_text_size(str(path)), _csv_bytes(table)
    assert counted is not None
    assert abs(counted - csv) < csv / 10, (counted, csv)


def test_gzip_counts_its_text_and_trec_files_are_left_out(tmp_path):
    table = _table(5_000)
    text = io.BytesIO()
    pacsv.write_csv(table, text, pacsv.WriteOptions(quoting_style="none"))
    packed = tmp_path / "run.csv.gz"
    packed.write_bytes(gzip.compress(text.getvalue()))
    assert table_text_size(str(packed)) == len(text.getvalue())
    trec = tmp_path / "run.txt"
    trec.write_text("".join(f"q1 Q0 d{i} {i + 1} {10 - i / 10} run\n" for i in range(50)))
    assert table_text_size(str(trec)) is None


def test_an_empty_parquet_file_holds_no_text(tmp_path):
    path = tmp_path / "empty.parquet"
    pq.write_table(_table(0), path)
    assert table_text_size(str(path)) == 0
