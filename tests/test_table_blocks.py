"""Every table format is read as TREC files are: CSV and TSV (plain and gzip), Parquet, JSON
Lines and Excel runs are evaluated block by block (metrics/cli/blocks.py), with their judgments
in a file of their own or in the run's label column, and every format gives the numbers of the
TREC files, bit for bit, as the whole reading does; memory holds a block, not the file; tables
that cannot be read in blocks and are too large to be read whole are refused, naming their
size and the fix."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from benchmarks.formats import FORMATS, read_trec_tables, write_formats
from benchmarks.generate import generate
from metrics.cli import blocks, evaluate
from metrics.engine.settings import Settings
from metrics.io import table_stream
from tests.peak_support import peak_of

ROOT = Path(__file__).resolve().parent.parent
TEXT_FORMATS = ("csv", "csv.gz", "parquet", "jsonl", "labelled.csv.gz")


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, tuple[Path, Path]]:
    """300 queries x 30 results in every format, and the TREC files they were written from
    (``"trec"``)."""
    folder = tmp_path_factory.mktemp("formats")
    run, qrels = generate(300, depth=30, directory=folder)
    out = write_formats(run, qrels, folder)
    out["trec"] = (qrels, run)
    return out


def args_of(files: dict, fmt: str) -> list[str]:
    qrels, run = files[fmt]
    return [str(run)] if fmt.startswith("labelled") else [str(qrels), str(run)]


def output(args: list[str], blocks_on: bool = True) -> tuple[str, str]:
    """The command line's output; tables of any size read in blocks (``blocks_on``), else
    every file read whole."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RANKING_METRICS_WHOLE_MB", "0")  # no table is small enough to read whole
        if not blocks_on:
            patch.setattr(evaluate, "_in_blocks", lambda *a, **k: None)
        status = evaluate.main(args, out, err)
    assert status == 0, err.getvalue()
    return out.getvalue(), err.getvalue()


FLAGS = [
    ["-q", "--curves", "20", "--digits", "12"],
    ["-q", "-c", "-m", "Rprec", "-m", "bpref", "-m", "num_rel", "-m", "P@5", "--names", "trec"],
    ["-q", "-l", "2", "-m", "nDCG@10", "-m", "AP", "-m", "RR"],
]


@pytest.mark.parametrize("fmt", [*TEXT_FORMATS, "xlsx"])
@pytest.mark.parametrize("flags", FLAGS, ids=range(len(FLAGS)))
def test_every_format_prints_the_numbers_of_the_trec_files(files, fmt, flags):
    trec, _ = output(args_of(files, "trec") + flags)
    by_blocks, _ = output(args_of(files, fmt) + flags)
    assert by_blocks == trec
    if fmt != "xlsx" or flags is FLAGS[0]:  # the whole reading of a workbook is slow
        assert output(args_of(files, fmt) + flags, blocks_on=False)[0] == trec


@pytest.mark.parametrize("fmt", [*TEXT_FORMATS, "xlsx"])
def test_every_format_is_read_in_blocks_and_small_blocks_give_the_same_values(files, fmt):
    qrels, run = files[fmt]
    given = None if fmt.startswith("labelled") else str(qrels)
    specs = evaluate.requested_measures(["P@5", "nDCG@10", "Rprec"], None)
    settings = Settings(missing_queries="zero")
    whole = blocks.evaluate_tables(given, [str(run)], specs, settings)
    with pytest.MonkeyPatch.context() as patch:  # blocks of a few hundred rows
        patch.setattr(table_stream, "BATCH_BYTES", 1 << 12)
        patch.setattr(table_stream, "BATCH_ROWS", 400)
        small = blocks.evaluate_tables(given, [str(run)], specs, settings)
    (found, _), (again, _) = next(iter(whole.models.values())), next(iter(small.models.values()))
    assert len(found.query_ids) == 300
    assert found.query_ids.tolist() == again.query_ids.tolist()
    assert found.values.tobytes("F") == again.values.tobytes("F")
    assert found.notes == again.notes


def test_several_models_in_one_table_are_those_of_their_own_files(files, tmp_path):
    """A table with a model column, its rows sorted by query (each query's rows of every model
    together), gives each model the values of its own run file."""
    qrels, run = files["trec"]
    table, _ = read_trec_tables(run, qrels)
    other = table.set_column(
        2, "score", pa.array([f"{1 - float(s) / 30:.6f}" for s in table["score"].to_pylist()])
    )
    both = pa.concat_tables(
        [
            table.append_column("model", pa.array(["first"] * len(table))),
            other.append_column("model", pa.array(["second"] * len(other))),
        ]
    )
    order = np.argsort(np.array(both["query"].to_pylist(), dtype=object), kind="stable")
    both = both.take(pa.array(order))
    pq.write_table(both, tmp_path / "models.parquet", row_group_size=1000)
    (tmp_path / "first.txt").write_text(run.read_text())
    second = "".join(
        f"{q} Q0 {i} {n + 1} {s} second\n"
        for n, (q, i, s) in enumerate(
            zip(*(other[c].to_pylist() for c in ("query", "item", "score")))
        )
    )
    (tmp_path / "second.txt").write_text(second)
    flags = ["-q", "-m", "P@10", "-m", "AP", "--format", "json", "--digits", "12"]
    tables = output([str(qrels), str(tmp_path / "models.parquet"), *flags])[0]
    trec = output([str(qrels), str(tmp_path / "first.txt"), str(tmp_path / "second.txt"), *flags])[
        0
    ]
    assert tables == trec
    given = str(qrels)
    read = blocks.evaluate_tables(
        (blocks.Judgments(blocks.read_judgments(given)), []),
        [str(tmp_path / "models.parquet")],
        evaluate.requested_measures(["P@10"], None),
        Settings(),
    )
    assert list(read.models) == ["first", "second"]


def test_a_table_the_blocks_do_not_read_is_read_whole_with_the_same_numbers(files, tmp_path):
    qrels, run = files["csv"]
    lines = run.read_text().splitlines(keepends=True)
    shuffled = tmp_path / "shuffled.csv"  # a query's rows in two places
    shuffled.write_text(lines[0] + "".join(lines[1::2] + lines[2::2]))
    renamed = tmp_path / "renamed.csv"  # a column whose role only its values tell
    renamed.write_text("query,item,v\n" + "".join(lines[1:]))
    specs = evaluate.requested_measures(["P@5"], None)
    for path, why in ((shuffled, "more than one place"), (renamed, "column names")):
        with pytest.raises(blocks._Table, match=why):
            blocks.evaluate_tables(str(qrels), [str(path)], specs, Settings())
    trec = output(args_of(files, "trec") + ["-q", "-m", "P@5"])[0]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RANKING_METRICS_WHOLE_MB", "16")
        out, err = io.StringIO(), io.StringIO()
        assert evaluate.main([str(qrels), str(shuffled), "-q", "-m", "P@5"], out, err) == 0
    assert out.getvalue() == trec


def test_a_small_table_is_read_whole_and_checked_in_full(files, monkeypatch):
    """Tables of up to RANKING_METRICS_WHOLE_MB of text are read whole: every check of the
    data's health runs (the tie warning, which the block reading does not give)."""
    qrels, run = files["csv"]
    lines = run.read_text().splitlines()
    rows = [",".join([*line.split(",")[:2], '"1.0"']) for line in lines[1:]]  # all tied
    run.with_name("tied.csv").write_text("\n".join([lines[0], *rows]) + "\n")
    tied = [str(qrels), str(run.with_name("tied.csv")), "-m", "P@5"]
    out, err = io.StringIO(), io.StringIO()
    assert evaluate.main(tied, out, err) == 0
    assert "tied scores" in err.getvalue()
    assert "tied scores" not in output(tied)[1]  # read in blocks


def test_a_table_too_large_to_read_whole_is_refused_naming_its_size_and_the_fix(
    files, tmp_path, monkeypatch
):
    qrels, run = files["csv.gz"]
    lines = gzip.decompress(run.read_bytes()).decode().splitlines(keepends=True)
    shuffled = tmp_path / "shuffled.csv.gz"
    shuffled.write_bytes(gzip.compress((lines[0] + "".join(lines[1::2] + lines[2::2])).encode()))
    monkeypatch.setenv("RANKING_METRICS_WHOLE_MB", "0")
    out, err = io.StringIO(), io.StringIO()
    assert evaluate.main([str(qrels), str(shuffled), "-m", "P@5"], out, err) == 2
    message = err.getvalue()
    assert message.startswith("error: qrels_run_9000.csv.gz, shuffled.csv.gz: ")
    assert (
        "of table text cannot be read block by block (the rows of a query are in more than "
        in message
    )
    assert "keep each query's rows together (sorted by query)" in message
    assert "RANKING_METRICS_WHOLE_MB" in message
    monkeypatch.setenv("RANKING_METRICS_WHOLE_MB", "16")  # read whole within the limit
    assert evaluate.main([str(qrels), str(shuffled), "-m", "P@5"], out, err) == 0


_EVALUATE = """
evaluate.load_inputs = None  # the whole reading is not called
status = evaluate.main(sys.argv[1:] + ["--curves", "100", "--quiet"], io.StringIO(), io.StringIO())
"""


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["trec", *TEXT_FORMATS, "xlsx"])
def test_reading_in_blocks_holds_less_than_three_times_the_text(tmp_path_factory, fmt):
    """On a few MB of each format (1,000 queries x 100 results; 500 for Excel, slow to write),
    the peak of Python's and arrow's allocations in a fresh interpreter, reading in blocks,
    stays under three times the text (for Parquet and Excel, the same rows as CSV) and 16 MB:
    a block, the judgments and the values."""
    folder = tmp_path_factory.mktemp("peak")
    run, qrels = generate(500 if fmt == "xlsx" else 1000, depth=100, directory=folder)
    made = write_formats(run, qrels, folder, formats=(fmt,) if fmt in FORMATS else ("csv",))
    made["trec"] = (qrels, run)
    csv_text = sum(p.stat().st_size for p in write_formats(run, qrels, folder, ("csv",))["csv"])
    status, peak = peak_of(_EVALUATE, args_of(made, fmt))
    assert status == 0
    assert csv_text > (1_500_000 if fmt == "xlsx" else 3_000_000)
    assert peak < 3 * csv_text + 16 * 1024**2, (
        f"{peak / 2**20:.1f} MB for {csv_text / 2**20:.1f} MB"
    )
