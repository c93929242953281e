"""The rows of a TREC run and qrels written in every table format the command line reads.

:func:`write_formats` writes the run (``query,item,score``) and the judgments
(``query,item,label``) of two TREC files as CSV, gzip CSV, Parquet, JSON Lines and Excel, and
the run with its labels in one table (``query,item,score,label``: every judged row carries its
label, the judged items the run did not retrieve are rows without a score) as gzip CSV. Scores
are written as the TREC files hold them, so every format gives the same numbers.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

#: The formats written, by name: the run's and the judgments' file names.
FORMATS = ("csv", "csv.gz", "parquet", "jsonl", "xlsx")


def read_trec_tables(run: Path, qrels: Path) -> tuple[pa.Table, pa.Table]:
    """The run (``query, item, score``, scores as written) and judgments (``query, item,
    label``) of plain TREC files."""
    read = pacsv.ReadOptions(column_names=["query", "q0", "item", "rank", "score", "tag"])
    text = {name: pa.string() for name in ("query", "item", "score")}
    run_table = pacsv.read_csv(
        run,
        read_options=read,
        parse_options=pacsv.ParseOptions(delimiter=" "),
        convert_options=pacsv.ConvertOptions(column_types=text),
    ).select(["query", "item", "score"])
    judged = pacsv.read_csv(
        qrels,
        read_options=pacsv.ReadOptions(column_names=["query", "iter", "item", "label"]),
        parse_options=pacsv.ParseOptions(delimiter=" "),
        convert_options=pacsv.ConvertOptions(
            column_types={"query": pa.string(), "item": pa.string(), "label": pa.int64()}
        ),
    ).select(["query", "item", "label"])
    return run_table, judged


def _typed(table: pa.Table) -> pa.Table:
    """Scores as numbers (parsed from their text: the same doubles the TREC reader reads)."""
    if "score" not in table.column_names:
        return table
    at = table.column_names.index("score")
    return table.set_column(at, "score", table["score"].cast(pa.float64()))


def _csv(table: pa.Table, path: Path, packed: bool = False) -> None:
    out = pa.BufferOutputStream()
    pacsv.write_csv(table, out, write_options=pacsv.WriteOptions(quoting_style="needed"))
    data = out.getvalue().to_pybytes()
    path.write_bytes(gzip.compress(data, 1) if packed else data)


def _jsonl(table: pa.Table, path: Path) -> None:
    """One JSON object a line; scores written as their text (a number in JSON)."""
    columns = {name: table[name].to_pylist() for name in table.column_names}
    quoted = {"query", "item"}
    with open(path, "w", encoding="utf-8") as handle:
        for row in zip(*columns.values()):
            cells = []
            for name, value in zip(columns, row):
                if value is None:
                    text = "null"
                elif name in quoted:
                    text = '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
                else:
                    text = str(value)
                cells.append(f'"{name}":{text}')
            handle.write("{" + ",".join(cells) + "}\n")


def _xlsx(table: pa.Table, path: Path) -> None:
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    sheet = book.create_sheet("table")
    sheet.append(table.column_names)
    typed = _typed(table)
    for row in zip(*(typed[name].to_pylist() for name in typed.column_names)):
        sheet.append(list(row))
    book.save(path)


def write_formats(
    run: Path, qrels: Path, folder: Path, formats: tuple[str, ...] = FORMATS
) -> dict[str, tuple[Path, Path]]:
    """``{format: (judgments, run)}`` for each of ``formats``, written into ``folder`` (kept
    when present), and ``"labelled.csv.gz"``: the run with its labels, ``(None, table)``."""
    folder.mkdir(parents=True, exist_ok=True)
    run_table, judged = read_trec_tables(run, qrels)
    stem = run.stem
    out: dict[str, tuple[Path, Path]] = {}
    for fmt in formats:
        paths = (folder / f"qrels_{stem}.{fmt}", folder / f"{stem}.{fmt}")
        if not all(p.exists() for p in paths):
            for table, path in zip((judged, run_table), paths):
                if fmt in ("csv", "csv.gz"):
                    _csv(table, path, packed=fmt == "csv.gz")
                elif fmt == "parquet":
                    pq.write_table(_typed(table), path, row_group_size=250_000)
                elif fmt == "jsonl":
                    _jsonl(table, path)
                else:
                    _xlsx(table, path)
        out[fmt] = paths
    labelled = folder / f"{stem}.labelled.csv.gz"
    if not labelled.exists():
        _csv(labelled_table(run_table, judged), labelled, packed=True)
    out["labelled.csv.gz"] = (Path(), labelled)
    return out


def labelled_table(run_table: pa.Table, judged: pa.Table) -> pa.Table:
    """The run with its labels (``query, item, score, label``), query by query: each query's
    rows in the run's order, then its judged items the run did not retrieve (no score)."""

    def keys(table: pa.Table) -> list[str]:
        return [
            f"{q}\x00{i}" for q, i in zip(table["query"].to_pylist(), table["item"].to_pylist())
        ]

    labels = dict(zip(keys(judged), judged["label"].to_pylist()))
    label = [labels.pop(k, None) for k in keys(run_table)]
    alone: dict[str, list[tuple[str, int]]] = {}  # judged, not retrieved
    for key, value in labels.items():
        query, item = key.split("\x00")
        alone.setdefault(query, []).append((item, value))
    queries, items = run_table["query"].to_pylist(), run_table["item"].to_pylist()
    scores = run_table["score"].to_pylist()
    rows: list[tuple[str, str, str | None, int | None]] = []
    for n, query in enumerate(queries):
        rows.append((query, items[n], scores[n], label[n]))
        if n + 1 == len(queries) or queries[n + 1] != query:
            rows += [(query, item, None, value) for item, value in alone.pop(query, [])]
    for query, extra in alone.items():  # judged queries the run does not have
        rows += [(query, item, None, value) for item, value in extra]
    columns = list(zip(*rows)) if rows else [(), (), (), ()]
    return pa.table(
        {
            "query": pa.array(columns[0], pa.string()),
            "item": pa.array(columns[1], pa.string()),
            "score": pa.array(columns[2], pa.string()),
            "label": pa.array(columns[3], pa.int64()),
        }
    )
