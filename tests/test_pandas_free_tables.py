"""Tables read block by block without pandas, by the same rules as the whole reading.

Importing pandas costs about a quarter of a CPU second, as much as the rest of a 1M-row CSV
evaluation beyond reading the same rows as TREC files. The block reader therefore reads the
first rows of CSV, TSV, JSON Lines and Parquet runs as arrow columns: the text is typed by the
whole reading's own functions (``_typed_columns``), and role guessing reads the values through
:meth:`metrics.io.evidence.Table.of_arrow`, which must hold exactly what
:meth:`~metrics.io.evidence.Table.of` holds for the pandas frame the whole reading builds of
the same columns: the same codes, counts, numbers, flags and label words, so the same roles.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from benchmarks.formats import write_formats
from benchmarks.generate import generate
from metrics.io.evidence import Table, _factorized
from metrics.io.formats import (
    TextColumns,
    _arrow_to_pandas,
    _frame_of,
    load_head,
    load_table,
)
from metrics.io.roles import guess_roles
from metrics.io.table_stream import open_stream
from tests.role_tables import RoleTable, role_tables

REPO = Path(__file__).resolve().parent.parent


def assert_same_values(arrow: Table, frame: Table) -> None:
    """Two tables of values hold the same columns, codes, counts and numbers."""
    assert list(arrow.columns) == list(frame.columns)
    assert arrow.rows == frame.rows
    for name, a in arrow.columns.items():
        b = frame.columns[name]
        assert np.array_equal(a.codes, b.codes), name
        assert a.distinct == b.distinct, name
        assert (a.numbers is None) == (b.numbers is None), name
        if a.numbers is not None:
            assert np.array_equal(a.numbers, b.numbers, equal_nan=True), name
        assert (a.flags, a.text_labels) == (b.flags, b.text_labels), name


# --------------------------------------------------------------------------- arrow columns

FLOATS = st.one_of(
    st.none(),
    st.sampled_from([0.0, -0.0, float("nan"), float("inf"), -float("inf"), 1.0, 2.5]),
    st.floats(allow_nan=True, width=64),
)
WORDS = st.one_of(
    st.none(),
    st.sampled_from(["relevant", "not relevant", "none", "", "q1", "007", "NaN", "True"]),
    st.text(max_size=4),
)


@st.composite
def arrow_tables(draw) -> pa.Table:
    """Tables of every kind of column a reader gives: integers (some past 2**53), floats with
    ``NaN``, ``-0.0`` and infinities, true/false values, text and label words, each with or
    without missing values, and columns of nothing but missing values."""
    n = draw(st.integers(0, 30))
    columns: dict[str, pa.Array] = {}
    for i in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["int", "float", "float32", "bool", "text", "null"]))
        if kind == "int":
            ints = st.integers(-(2**60), 2**60) | st.integers(-3, 3)
            cells = draw(st.lists(st.none() | ints, min_size=n, max_size=n))
            array = pa.array(cells, pa.int64())
        elif kind in ("float", "float32"):
            cells = draw(st.lists(FLOATS, min_size=n, max_size=n))
            array = pa.array(cells, pa.float64())
            if kind == "float32":
                array = array.cast(pa.float32(), safe=False)
        elif kind == "bool":
            cells = draw(st.lists(st.none() | st.booleans(), min_size=n, max_size=n))
            array = pa.array(cells, pa.bool_())
        elif kind == "text":
            array = pa.array(draw(st.lists(WORDS, min_size=n, max_size=n)), pa.string())
        else:
            array = pa.nulls(n)
        columns[f"c{i}_{kind}"] = array
    return pa.table(columns)


@given(arrow_tables())
@settings(max_examples=300, deadline=None)
def test_arrow_values_are_the_values_of_the_pandas_frame(table):
    of_arrow = Table.of_arrow(table)
    assert_same_values(of_arrow, Table.of(_arrow_to_pandas(table)))
    columns = {name: table.column(name) for name in table.column_names}
    assert_same_values(of_arrow, Table.of(_frame_of(columns, table.num_rows)))


@given(st.lists(st.integers(-5, 5) | st.integers(-(2**62), 2**62), max_size=40))
@example([0, -0, 3, 3, 0])
def test_codes_are_numbered_in_the_order_they_first_appear_as_pandas_numbers_them(values):
    codes, k = _factorized(np.array(values, dtype=np.int64))
    expected, uniques = pd.factorize(np.array(values, dtype=np.int64))
    assert codes.tolist() == expected.tolist()
    assert k == len(uniques)


# --------------------------------------------------------------------------- first rows

CELLS = st.one_of(
    st.sampled_from(["", "none", "NA", "nan", "007", "-01", "1,5", " 2 ", "3.0", "1e3", "x"]),
    st.integers(-10, 10).map(str),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
)


@st.composite
def delimited_texts(draw) -> bytes:
    """CSV, TSV and semicolon text with a header, of numbers, words for missing values,
    leading zeros, decimal commas and text."""
    delimiter = draw(st.sampled_from([",", "\t", ";"]))
    names = draw(
        st.lists(
            st.sampled_from(["query", "item", "score", "label", "rank", "model", "x", "qid"]),
            min_size=2,
            max_size=5,
            unique=True,
        )
    )
    rows = draw(
        st.lists(st.lists(CELLS, min_size=len(names), max_size=len(names)), min_size=1, max_size=25)
    )
    lines = [delimiter.join(names)] + [delimiter.join(r).replace('"', "") for r in rows]
    return ("\n".join(lines) + "\n").encode()


def _first_rows(head: bytes, name: str = "run.csv") -> tuple[Table, Table] | None:
    """The values of ``head`` as the block reader and as the whole reading take them (``None``
    when both refuse it, or the block reader reads it as the whole reading does)."""
    try:
        whole = load_table(head, name)
    except Exception:
        whole = None
    try:
        found = load_head(head, name)
    except Exception:
        found = None
    assert (whole is None) == (found is None)
    if whole is None or not isinstance(found, TextColumns):
        return None
    table = pa.Table.from_arrays(list(found.columns.values()), names=list(found.columns))
    assert (found.format, found.header) == (whole.format, whole.header)
    assert found.skipped_lines == whole.skipped_lines
    return Table.of_arrow(table), Table.of(whole.frame)


@given(delimited_texts())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(b"query,item,score\nq1,d1,\nq1,d2,none\n")
@example(b"query;item;score\nq1;d1;1,5\nq1;d2;2\n")
def test_first_rows_of_text_hold_the_whole_readings_values(head):
    found = _first_rows(head)
    if found is not None:
        assert_same_values(*found)


JSON_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.integers(-(2**60), 2**60),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["q1", "007", "relevant", "", "none", "2.5"]),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.sampled_from(["a", "b"]), st.integers(0, 3), max_size=1),
)


@st.composite
def json_lines(draw) -> bytes:
    """JSON Lines whose keys hold one kind of value each (or any kind, which arrow refuses and
    the whole reading reads record by record), some keys missing from some lines."""
    keys = draw(
        st.lists(
            st.sampled_from(["query", "item", "score", "label", "x"]),
            min_size=1,
            max_size=4,
            unique=True,
        )
    )
    kinds = {k: draw(st.sampled_from(["same"] * 5 + ["any"])) for k in keys}
    first = {k: draw(JSON_VALUES) for k in keys}
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        record = {}
        for k in keys:
            if draw(st.integers(0, 5)) == 0:
                continue
            value = draw(JSON_VALUES)
            if kinds[k] == "same" and value is not None and type(value) is not type(first[k]):
                value = first[k]
            record[k] = value
        lines.append(json.dumps(record))
    return ("\n".join(lines) + "\n").encode()


@given(json_lines())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(b'{"query": "q1", "item": "d1", "label": true}\n{"query": "q1", "item": "d2"}\n')
@example(b'{"query": 1, "item": "d1", "score": [1]}\n{"query": 2, "item": "d2", "score": null}\n')
def test_first_rows_of_json_lines_hold_the_whole_readings_values(head):
    found = _first_rows(head, "run.jsonl")
    if found is not None:
        assert_same_values(*found)


def _role_text(table: RoleTable) -> bytes:
    return table.frame.to_csv(index=False).encode()


@given(role_tables(max_queries=12))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_roles_guessed_from_arrow_are_the_roles_guessed_from_the_frame(table):
    found = _first_rows(_role_text(table))
    assert found is not None
    arrow, frame = found
    assert_same_values(arrow, frame)
    for elsewhere in (False, True):
        assert guess_roles(arrow, judged_elsewhere=elsewhere) == guess_roles(
            frame, judged_elsewhere=elsewhere
        )


@given(role_tables(max_queries=12))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_parquet_first_rows_hold_the_whole_readings_values(tmp_path_factory, table):
    path = tmp_path_factory.mktemp("parquet") / "run.parquet"
    pq.write_table(pa.Table.from_pandas(table.frame, preserve_index=False), path)
    stream = open_stream(path)
    assert stream is not None
    assert_same_values(stream.sample.values, Table.of(load_table(path).frame))


# --------------------------------------------------------------------------- the command line

#: Modules the block reader of CSV, TSV and Parquet does without: pandas, and the Python
#: wrappers of arrow's compute functions (about 25 ms to import).
NOT_IMPORTED = ("pandas", "pyarrow.compute")
RUN_AND_CHECK = (
    "import io, sys; from metrics.cli.evaluate import main; out = io.StringIO(); "
    "main(sys.argv[1:], out, io.StringIO()); "
    f"print(any(m in sys.modules for m in {NOT_IMPORTED!r})); print(out.getvalue(), end='')"
)


def _evaluated(*paths: Path, whole_mb: str) -> tuple[bool, str]:
    env = dict(os.environ, RANKING_METRICS_WHOLE_MB=whole_mb)
    result = subprocess.run(
        [sys.executable, "-c", RUN_AND_CHECK, *map(str, paths), "-m", "ndcg_cut_10", "-m", "P_5"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=300,
        check=True,
    )
    imported, _, output = result.stdout.partition("\n")
    return imported == "True", output


def test_csv_gzip_parquet_and_json_lines_runs_are_read_in_blocks_without_pandas(tmp_path):
    run, qrels = generate(60, depth=20, directory=tmp_path)
    files = write_formats(run, qrels, tmp_path, formats=("csv", "csv.gz", "parquet", "jsonl"))
    judgments = files["csv"][0]
    _, expected = _evaluated(judgments, files["csv"][1], whole_mb="64")
    assert expected.strip()
    for name in ("csv", "csv.gz", "parquet", "jsonl"):
        imported, output = _evaluated(judgments, files[name][1], whole_mb="0")
        assert not imported, name
        assert output == expected, name
    imported, output = _evaluated(files["labelled.csv.gz"][1], whole_mb="0")
    assert not imported
    assert output == expected


def test_a_gzip_tsv_run_is_read_in_blocks_without_pandas(tmp_path):
    run, qrels = generate(30, depth=10, directory=tmp_path)
    files = write_formats(run, qrels, tmp_path, formats=("csv",))
    text = pd.read_csv(files["csv"][1], dtype=str).to_csv(sep="\t", index=False)
    tsv = tmp_path / "run.tsv.gz"
    with gzip.open(tsv, "wt") as handle:
        handle.write(text)
    imported, output = _evaluated(files["csv"][0], tsv, whole_mb="0")
    _, expected = _evaluated(files["csv"][0], files["csv"][1], whole_mb="64")
    assert not imported
    assert output == expected
