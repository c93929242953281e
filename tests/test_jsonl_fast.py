"""JSON Lines runs read through arrow's CSV parser while every line has the first one's layout.

The block reader (:mod:`metrics.cli.blocks`) reads a JSON Lines table with
:mod:`metrics.io.table_stream`, which cuts each line at its commas with ``pyarrow.csv`` as long
as every line of a block is a flat object with the keys, separators and kinds of values of the
file's first line, and reads the rest with ``pyarrow.json`` from the first row not yet given.
Either way :func:`~metrics.io.table_stream.rows_of` must give what it gives of arrow's JSON
reading alone: the same ids, the same numbers bit for bit (``-0.0`` and ``NaN`` included),
``None`` for the same reading, and the same error.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.json as pajson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics.errors import InputError
from metrics.io import table_stream
from metrics.io.roles import RoleMapping
from metrics.io.table_stream import open_stream, rows_of
from tests.test_csv_numbers import same_numbers

ROLES = RoleMapping(query="query", item="item", score="score", label="label")
COLUMNS = ["query", "item", "score", "label"]
IDS = ["query", "item"]

#: What a reading leads to: ``("rows", queries, items, scores, labels)``, ``("none",)`` when
#: ``rows_of`` refuses a batch, ``("error", name)`` when the reading fails.
Outcome = tuple[object, ...]


def outcome(batches: Iterator[pa.RecordBatch]) -> Outcome:
    """What the block reader makes of ``batches``: the rows of them all, or the first batch
    ``rows_of`` refuses, or the error that ends the reading."""
    queries: list[str | None] = []
    items: list[str | None] = []
    scores, labels = [], []
    try:
        for batch in batches:
            rows = rows_of(batch, ROLES)
            if rows is None:
                return ("none",)
            assert rows.label is not None
            queries += rows.query.to_pylist()
            items += rows.item.to_pylist()
            scores.append(rows.score)
            labels.append(rows.label)
    except (pa.ArrowException, InputError, ValueError) as exc:
        return ("error", type(exc).__name__)
    empty = np.zeros(0)
    return (
        "rows",
        queries,
        items,
        np.concatenate([empty, *scores]),
        np.concatenate([empty, *labels]),
    )


def assert_same(found: Outcome, expected: Outcome) -> None:
    assert found[0] == expected[0], (found, expected)
    if found[0] != "rows":
        assert found == expected
        return
    assert found[1] == expected[1] and found[2] == expected[2]
    assert isinstance(found[3], np.ndarray) and isinstance(expected[3], np.ndarray)
    assert isinstance(found[4], np.ndarray) and isinstance(expected[4], np.ndarray)
    assert same_numbers(found[3], expected[3]), (found[3], expected[3])
    assert same_numbers(found[4], expected[4]), (found[4], expected[4])


class Spy:
    """Counts what each reading does: the rows the fast reading gives, and the times
    ``pyarrow.json`` opens the file."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.fast_rows = 0
        self.json_opened = 0
        fast, open_json = table_stream._jsonl_fast, pajson.open_json

        def counted_fast(*args: object) -> Iterator[pa.RecordBatch | None]:
            for batch in fast(*args):  # type: ignore[arg-type]
                self.fast_rows += 0 if batch is None else len(batch)
                yield batch

        def counted_json(*args: object, **kwargs: object) -> object:
            self.json_opened += 1
            return open_json(*args, **kwargs)

        monkeypatch.setattr(table_stream, "_jsonl_fast", counted_fast)
        monkeypatch.setattr(pajson, "open_json", counted_json)


def readings(
    path: Path, monkeypatch: pytest.MonkeyPatch, text: Sequence[str] = IDS
) -> tuple[Outcome, Outcome]:
    """The outcome of the reading, and that of ``pyarrow.json`` alone."""
    packed = path.suffix == ".gz"
    found = outcome(table_stream._jsonl_reader(path, packed)(COLUMNS, text))
    with monkeypatch.context() as patch:
        patch.setattr(table_stream, "_jsonl_layout", lambda line: None)
        expected = outcome(table_stream._jsonl_reader(path, packed)(COLUMNS, text))
    return found, expected


def write(path: Path, lines: Sequence[str | bytes]) -> Path:
    data = b"".join(x if isinstance(x, bytes) else x.encode() + b"\n" for x in lines)
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    return path


def plain_line(n: int, separators: tuple[str, str] = (",", ":")) -> str:
    row = {"query": f"q{n // 10}", "item": f"d{n}", "score": 1.5 - n / 8, "label": n % 3}
    return json.dumps(row, separators=separators)


# --------------------------------------------------------------------------- generated files

#: Text of ids: letters, digits and unicode.
plain_texts = st.text(
    st.one_of(
        st.sampled_from("abcxyz0129-_. "),
        st.characters(codec="utf-8", categories=("L", "N", "Zs", "So")),
    ),
    max_size=6,
)
#: Text that could cut or close a line read naively, or that JSON writes with escapes.
odd_texts = st.lists(
    st.one_of(
        st.sampled_from([",", ":", "{", "}", '","', '":"', "é", "\u4e2d", "\U0001f600"]),
        st.sampled_from(['"', "\\", "\t", "\x00", "\u202e", "\x7f"]),
        st.characters(codec="utf-8", exclude_categories=("Cs",)),
    ),
    min_size=1,
    max_size=4,
).map("".join)
#: Number tokens as JSON writes them.
floats = st.one_of(
    st.floats(-1e6, 1e6, allow_nan=False).map(repr),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["-0.0", "1e5", "1E-3", "2.5e+2", "1e-400", "0.1e1", "1e23"]),
)
integers = st.one_of(
    st.integers(-1000, 1000).map(str),
    st.integers(0, 3).map(str),
    st.sampled_from(["0", "9007199254740991", "-9007199254740991"]),
)
#: Tokens JSON does not take, or arrow reads otherwise than a plain number.
odd_tokens = st.one_of(
    st.integers(-(10**25), 10**25).map(str),
    st.sampled_from(
        ["-0", "9007199254740992", "9007199254740993", "-9007199254740993", "1e400", "-1e400"]
        + ["NaN", "Infinity", "-Infinity", "01", "-01", "1.", ".5", "-.5", "+1", "1.e5", "-"]
        + ["1e", "123456789012345678901234567890", "0x10", "1_0", "null", "true", '"\\u0031"']
    ),
)
#: How a file writes a number column.
styles = st.sampled_from(["floats", "integers", "quoted floats", "quoted integers", "words"])
VALUES = {
    "floats": floats,
    "integers": integers,
    "quoted floats": floats.map(json.dumps),
    "quoted integers": integers.map(json.dumps),
    "words": st.sampled_from(['"nan"', '"NULL"', '""', '" 2 "', '"abc"', '"1,5"']),
}
#: Any value of a number column.
values = st.one_of(*VALUES.values(), odd_tokens)
#: Lines of another shape than the first.
odd_lines = st.sampled_from(
    [
        "",
        "  ",
        '{"query":"q","item":"d","score":1,"label":null}',
        '{"query":"q","item":"d","score":true,"label":1}',
        '{"query":"q","item":{"a":1},"score":1,"label":1}',
        '{"query":"q","item":"d","score":[1,2],"label":1}',
        '{"query":"q","item":"d","score":1}',
        '{"query":"q","item":"d","score":1,"label":1,"extra":2}',
        '{"item":"d","query":"q","score":1,"label":1}',
        ' {"query":"q","item":"d","score":1,"label":1}',
        '{"query":"q","item":"d","score":1,"label":1} ',
        '{"query": "q", "item": "d", "score": 1, "label": 1}',
        '{"query":"q\\"","item":"d","score":1,"label":1}',
        '{"query":"q\\u0041","item":"d","score":1,"label":1}',
        '{"query":"q","item":"d","score":1,"label":1}\r',
        '{"query":"q","item":"d","score":1,"label":1}{"query":"r","item":"e","score":2,"label":0}',
        '{"query":"q","item":"a\\",\\"item\\":\\"b","score":1,"label":1}',
        '{"query":"q","item":"d","score":1,"label":1,"label":2}',
        '{"query":1,"item":"d","score":1,"label":1}',
        '{"query":1.5,"item":"d","score":1,"label":1}',
    ]
)


@st.composite
def files(draw: st.DrawFn) -> list[str]:
    """A JSON Lines run: one layout (key order, separators, how each column writes its
    values, extra keys) for most lines; values and lines of another shape at random places."""
    keys = draw(st.permutations(COLUMNS + draw(st.sampled_from([[], ["extra"], ["n", "m"]]))))
    comma, colon = draw(st.sampled_from([(",", ":"), (", ", ": "), (",", ": "), (" , ", " :")]))
    ascii_only = draw(st.integers(0, 4)) == 4  # non-ASCII text as escapes
    bare_ids = draw(st.integers(0, 4)) == 4  # ids written as numbers
    score, label, other = (VALUES[draw(styles)] for _ in range(3))
    odd = draw(st.sampled_from([0, 30, 200]))  # one line or value in ... of another shape

    def value(usual: st.SearchStrategy[str]) -> str:
        return draw(values if odd and draw(st.integers(0, odd)) == 0 else usual)

    def text() -> str:
        return draw(odd_texts if odd and draw(st.integers(0, odd)) == 0 else plain_texts)

    lines = []
    for n in range(draw(st.integers(1, 80))):
        if n and odd and draw(st.integers(0, odd)) == 0:
            lines.append(draw(odd_lines))
            continue
        row = {
            "query": json.dumps(f"q{n // 9}{text()}", ensure_ascii=ascii_only)
            if not bare_ids
            else str(n // 9),
            "item": json.dumps(f"d{n}{text()}", ensure_ascii=ascii_only),
            "score": value(score),
            "label": value(label),
            "extra": json.dumps(text(), ensure_ascii=ascii_only),
            "n": str(n),
            "m": value(other),
        }
        members = [f'"{k}"{colon}{row[k]}' for k in keys]
        lines.append("{" + comma.join(members) + "}")
    return lines


@pytest.mark.slow
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=files(),
    packed=st.booleans(),
    block=st.sampled_from([512, 1024, 4096]),
    ids_as_text=st.booleans(),
)
def test_fast_reading_gives_what_pyarrow_json_gives(
    tmp_path, monkeypatch, lines, packed, block, ids_as_text
):
    path = write(tmp_path / ("run.jsonl.gz" if packed else "run.jsonl"), lines)
    monkeypatch.setattr(table_stream, "BATCH_BYTES", block)
    found, expected = readings(path, monkeypatch, IDS if ids_as_text else ())
    assert_same(found, expected)


# --------------------------------------------------------------------------- the fast path


@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": ")])
def test_plain_files_are_read_without_pyarrow_json(tmp_path, monkeypatch, packed, separators):
    path = tmp_path / ("run.jsonl.gz" if packed else "run.jsonl")
    write(path, [plain_line(n, separators) for n in range(1000)])
    monkeypatch.setattr(table_stream, "BATCH_BYTES", 4096)
    stream = open_stream(path)
    assert stream is not None and stream.format == "jsonl"
    spy = Spy(monkeypatch)
    found = outcome(stream.batches(COLUMNS, IDS, ["score", "label"]))
    assert (spy.fast_rows, spy.json_opened) == (1000, 0)
    assert found[0] == "rows" and found[2] == [f"d{n}" for n in range(1000)]
    _, expected = readings(path, monkeypatch)
    assert_same(found, expected)
    # cut where arrow's JSON reader cuts: its first block types the columns
    fast = [len(b) for b in table_stream._jsonl_reader(path, packed)(COLUMNS, IDS)]
    monkeypatch.setattr(table_stream, "_jsonl_layout", lambda line: None)
    assert fast == [len(b) for b in table_stream._jsonl_reader(path, packed)(COLUMNS, IDS)]
    assert len(fast) > 10


@pytest.mark.parametrize("packed", [False, True])
def test_a_line_of_another_shape_ends_the_fast_reading_at_its_block(tmp_path, monkeypatch, packed):
    lines = [plain_line(n) for n in range(1000)]
    lines[299] = lines[299].replace('"score":', '"score": ')
    path = write(tmp_path / ("run.jsonl.gz" if packed else "run.jsonl"), lines)
    monkeypatch.setattr(table_stream, "BATCH_BYTES", 2048)  # about 30 lines a block
    spy = Spy(monkeypatch)
    found, expected = readings(path, monkeypatch)
    assert 299 - 2048 // 40 <= spy.fast_rows <= 299 and spy.json_opened == 2
    assert found[0] == "rows" and found[2] == [f"d{n}" for n in range(1000)]  # each row once
    assert_same(found, expected)


SHAPES = {
    "comma in text": '{"query":"q","item":"a,b","score":1.5,"label":1}',
    "member in text": '{"query":"q","item":"a\\",\\"score\\":\\"2","score":1.5,"label":1}',
    "escape": '{"query":"q","item":"a\\\\","score":1.5,"label":1}',
    "unicode escape": '{"query":"q","item":"\\u00e9","score":1.5,"label":1}',
    "nested object": '{"query":"q","item":"d","score":{"v":1},"label":1}',
    "null": '{"query":"q","item":"d","score":null,"label":1}',
    "true": '{"query":"q","item":"d","score":1.5,"label":true}',
    "extra key": '{"query":"q","item":"d","score":1.5,"label":1,"x":1}',
    "missing key": '{"query":"q","item":"d","score":1.5}',
    "other order": '{"item":"d","query":"q","score":1.5,"label":1}',
    "other separators": '{"query": "q", "item": "d", "score": 1.5, "label": 1}',
    "space before brace": ' {"query":"q","item":"d","score":1.5,"label":1}',
    "space after brace": '{"query":"q","item":"d","score":1.5,"label":1} ',
    "blank line": "",
    "crlf": b'{"query":"q","item":"d","score":1.5,"label":1}\r\n',
    "lone cr": b'{"query":"q","item":"d","score":1.5,"label":1}\r{"query":"q","item":"e",'
    b'"score":1.5,"label":1}\n',
    "tab in text": '{"query":"q","item":"a\tb","score":1.5,"label":1}',
    "two objects": '{"query":"q","item":"d","score":1.5,"label":1}{"query":"q","item":"e",'
    '"score":1,"label":1}',
    "text score": '{"query":"q","item":"d","score":"1.5","label":1}',
    "number id": '{"query":7,"item":"d","score":1.5,"label":1}',
    "integer -0": '{"query":"q","item":"d","score":1.5,"label":-0}',
    "fraction label": '{"query":"q","item":"d","score":1.5,"label":0.5}',
    "huge label": '{"query":"q","item":"d","score":1.5,"label":9007199254740993}',
    "overflow": '{"query":"q","item":"d","score":1e400,"label":1}',
    "nan": '{"query":"q","item":"d","score":NaN,"label":1}',
    "leading zero": '{"query":"q","item":"d","score":01.5,"label":1}',
    "point without digits": '{"query":"q","item":"d","score":1.,"label":1}',
    "point before exponent": '{"query":"q","item":"d","score":1.e5,"label":1}',
    "no digit before point": '{"query":"q","item":"d","score":-.5,"label":1}',
    "plus": '{"query":"q","item":"d","score":+1.5,"label":1}',
    "empty value": '{"query":"q","item":"d","score":,"label":1}',
    "empty text": '{"query":"q","item":"","score":1.5,"label":1}',
    "short piece": '{"query":"q","item":"d","score":1.5,"label":}',
    "duplicate key": '{"query":"q","item":"d","score":1.5,"score":1}',
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_line_of_another_shape_is_read_by_pyarrow_json(tmp_path, monkeypatch, shape):
    lines: list[str | bytes] = [plain_line(n) for n in range(8)]
    lines[5] = SHAPES[shape]
    path = write(tmp_path / "run.jsonl", lines)
    spy = Spy(monkeypatch)
    found, expected = readings(path, monkeypatch)
    assert_same(found, expected)
    if shape != "empty text":  # the one line of this layout
        assert spy.fast_rows == 0 and spy.json_opened == 2
    else:
        assert spy.fast_rows == 8 and spy.json_opened == 1


def test_text_that_is_not_utf8_is_given_as_arrow_s_json_reader_gives_it(tmp_path, monkeypatch):
    lines: list[str | bytes] = [plain_line(n) for n in range(8)]
    lines[5] = b'{"query":"q","item":"d\xff","score":1.5,"label":1}\n'
    path = write(tmp_path / "run.jsonl", lines)
    spy = Spy(monkeypatch)
    found, expected = readings(path, monkeypatch)
    assert spy.fast_rows == 8  # the same bytes: arrow's JSON reader does not check them either
    assert_same(found, expected)


@pytest.mark.parametrize("packed", [False, True])
def test_an_empty_file_is_read_by_pyarrow_json(tmp_path, monkeypatch, packed):
    path = write(tmp_path / ("run.jsonl.gz" if packed else "run.jsonl"), [])
    found, expected = readings(path, monkeypatch)
    assert found == expected == ("error", "ArrowInvalid")


def test_a_byte_order_mark_is_read_by_pyarrow_json(tmp_path, monkeypatch):
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + "".join(plain_line(n) + "\n" for n in range(8)).encode())
    spy = Spy(monkeypatch)
    found, expected = readings(path, monkeypatch)
    assert spy.fast_rows == 0
    assert_same(found, expected)


@pytest.mark.parametrize(
    ("line", "heads", "tails"),
    [
        ('{"q":"a","s":1.5,"l":2}', [b'{"q":"', b'"s":', b'"l":'], [b'"', b"", b"}"]),
        ('{"q": "a", "s": 1e5, "l": -3}', [b'{"q": "', b' "s": ', b' "l": '], [b'"', b"", b"}"]),
        ('{"q":"a,b"}', None, None),  # a comma in a value: the line is not cut as its members
        ('{"q":"a","q":"b"}', None, None),
        ('{"q":null}', None, None),
        ('{"q":"a"} ', None, None),
        ('{"q":"a"}\r', None, None),
        ("{}", None, None),
    ],
)
def test_the_layout_of_the_first_line(line, heads, tails):
    layout = table_stream._jsonl_layout(line.encode())
    if heads is None:
        assert layout is None
        return
    assert layout is not None
    assert layout.keys == ("q", "s", "l") and layout.kinds == ("text", "float", "int")
    assert (list(layout.heads), list(layout.tails)) == (heads, tails)
