"""Number columns of CSV and TSV runs read straight as numbers by the block reader.

The block reader (:mod:`metrics.cli.blocks`) asks :mod:`metrics.io.table_stream` for the
score, rank and label columns as numbers: ``pyarrow.csv`` then reads them as float64 without
building their text, and falls back to the text, from the first row not yet given, as soon as
a value is not a plain number. Either way :func:`~metrics.io.table_stream.rows_of` must give
exactly the rows it gives of the text: the same ids, the same numbers bit for bit (``-0.0``
and ``NaN`` included), and ``None`` for the same batches.
"""

from __future__ import annotations

import csv
import gzip
import io
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics.io import table_stream
from metrics.io.roles import RoleMapping
from metrics.io.table_stream import TableStream, open_stream, rows_of
from metrics.io.trec import Rows
from tests.test_table_numbers import TOKENS

ROLES = RoleMapping(query="query", item="item", score="score", label="label")
COLUMNS = ["query", "item", "score", "label"]
IDS = ["query", "item"]
NUMBERS = ["score", "label"]

#: Cell texts of a number column: those of the cast's own test, and white space, the empty
#: cell and words a CSV reader could take otherwise.
number_texts = st.one_of(
    TOKENS,
    st.sampled_from(
        ["", " ", "-0.0", "1e3", "1E-3", "007", "1_000", "N/A", "NULL", "12,5", "abc", "1.5x"]
        + ["\t2.5", " 3 ", "4 ", "\u00a05", "5\u2003", "-1e-400", "9007199254740993"]
    ),
)
#: Mostly plain numbers, so that many examples read straight through and some fall back.
cells = st.one_of(
    st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: f"{x:.6f}"),
    st.integers(0, 3).map(str),
    number_texts,
)


def write_csv(path: Path, rows: list[tuple[str, str, str, str]], delimiter: str = ",") -> None:
    text = io.StringIO()
    writer = csv.writer(text, delimiter=delimiter, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    data = text.getvalue().encode()
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)


def stream_of(path: Path) -> TableStream:
    stream = open_stream(path)
    assert stream is not None and stream.read_numbers is not None
    return stream


def read(stream: TableStream, numbers: list[str]) -> list[Rows | str | None]:
    """``rows_of`` of every batch (the name of the error that ends the reading, if one does)."""
    out: list[Rows | str | None] = []
    try:
        out.extend(rows_of(batch, ROLES) for batch in stream.batches(COLUMNS, IDS, numbers))
    except (pa.ArrowException, ValueError) as exc:
        out.append(type(exc).__name__)
    return out


def same_numbers(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    """Equal bit for bit, but for ``NaN``, which is equal to ``NaN`` whatever its bits."""
    if a is None or b is None:
        return a is b
    nan = np.isnan(a)
    return (
        a.dtype == b.dtype
        and np.array_equal(nan, np.isnan(b))
        and a[~nan].tobytes() == b[~nan].tobytes()
    )


def assert_same(found: list[Rows | str | None], text: list[Rows | str | None]) -> None:
    assert len(found) == len(text)
    for a, b in zip(found, text):
        if not isinstance(a, Rows) or not isinstance(b, Rows):
            assert a == b
            continue
        assert a.query.to_pylist() == b.query.to_pylist()
        assert a.item.to_pylist() == b.item.to_pylist()
        assert same_numbers(a.score, b.score), (a.score, b.score)
        assert same_numbers(a.label, b.label), (a.label, b.label)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.lists(st.tuples(cells, cells), min_size=1, max_size=60),
    delimiter=st.sampled_from([",", "\t"]),
    packed=st.booleans(),
    block=st.sampled_from([64, 256, 4096]),
)
def test_numbers_read_straight_are_the_numbers_of_their_text(
    tmp_path, monkeypatch, rows, delimiter, packed, block
):
    path = tmp_path / ("run.csv.gz" if packed else "run.csv")
    table = [("q1", "d0", "1.5", "1")]  # plain first rows: the file opens as a stream
    table += [(f"q{n // 7}", f"d{n}", score, label) for n, (score, label) in enumerate(rows, 1)]
    write_csv(path, table, delimiter)
    monkeypatch.setattr(table_stream, "BATCH_BYTES", block)
    stream = stream_of(path)
    assert_same(read(stream, NUMBERS), read(stream, []))


def test_plain_numbers_come_as_numbers_in_every_batch(tmp_path, monkeypatch):
    path = tmp_path / "run.csv"
    write_csv(path, [(f"q{n // 10}", f"d{n}", f"{n / 7:.6f}", str(n % 3)) for n in range(400)])
    monkeypatch.setattr(table_stream, "BATCH_BYTES", 1024)
    batches = list(stream_of(path).batches(COLUMNS, IDS, NUMBERS))
    assert len(batches) > 5
    assert all(b.schema.field("score").type == pa.float64() for b in batches)
    assert all(b.schema.field("label").type == pa.float64() for b in batches)
    assert all(b.schema.field("item").type == pa.string() for b in batches)


@pytest.mark.parametrize("word", ["NA", "none", "1,5", "x"])
def test_a_later_value_that_is_no_plain_number_reads_the_rest_as_text(tmp_path, monkeypatch, word):
    """The batches before the value come as numbers, those from its batch on as text, and
    together they hold every row once: the rows of the text reading."""
    path = tmp_path / "run.csv"
    table = [(f"q{n // 10}", f"d{n}", f"{n / 7:.6f}", str(n % 3)) for n in range(400)]
    table[300] = (table[300][0], table[300][1], word, table[300][3])
    write_csv(path, table)
    monkeypatch.setattr(table_stream, "BATCH_BYTES", 1024)
    stream = stream_of(path)
    batches = list(stream.batches(COLUMNS, IDS, NUMBERS))
    kinds = [b.schema.field("score").type for b in batches]
    assert kinds[0] == pa.float64() and kinds[-1] == pa.string()
    assert sum(len(b) for b in batches) == 400
    assert pa.concat_arrays([b.column("item") for b in batches]).to_pylist() == [
        f"d{n}" for n in range(400)
    ]
    assert_same(read(stream, NUMBERS), read(stream, []))


def test_labels_read_as_grades_by_words_are_never_read_as_numbers(tmp_path):
    """A label column read by a mapping of words stays text; the score is still read as a
    number."""
    from metrics.cli.blocks import LabelWords, _graded

    path = tmp_path / "run.csv"
    write_csv(path, [(f"q{n // 10}", f"d{n}", f"{n / 7:.6f}", "good") for n in range(50)])
    words = LabelWords({"good": 1.0})
    batch = next(_graded(words, stream_of(path), COLUMNS, IDS, "label", NUMBERS))
    assert batch.schema.field("score").type == pa.float64()
    assert batch.column("label").to_pylist() == [1.0] * 50
