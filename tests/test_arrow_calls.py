"""The arrow compute calls the command line makes without importing ``pyarrow.compute``
(metrics/engine/arrow_calls.py) give what ``pyarrow.compute``'s own wrappers give, on text and
numbers with nulls, empty arrays and values that do not convert."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.engine import arrow_calls
from metrics.engine.ids import arrow_strings, numpy_of, valid_of, value_offsets

TEXT = st.lists(
    st.none()
    | st.sampled_from(["", " 7 ", "007", "-01", "1e3", "NaN", "None", "x", "2.5", "ÄB"])
    | st.text(max_size=5),
    max_size=20,
)


def same(a: object, b: object) -> bool:
    """Equal values (``NaN`` equal to ``NaN``), nulls in the same places, the same type."""
    if not isinstance(a, pa.Array | pa.ChunkedArray):
        return a == b
    assert isinstance(b, pa.Array | pa.ChunkedArray)
    if a.type != b.type or len(a) != len(b):
        return False
    if pa.types.is_floating(a.type):
        left, right = a.to_pylist(), b.to_pylist()
        return all(x == y or (x != x and y != y) for x, y in zip(left, right))
    return a.equals(b)


@given(TEXT, st.integers(0, 3))
@settings(max_examples=200, deadline=None)
def test_text_calls_are_pyarrow_computes(values, offset):
    array = pa.array(values, pa.string()).slice(min(offset, len(values)))
    chunked = pa.chunked_array([array], type=pa.string())
    assert same(arrow_calls.lower(array), pc.utf8_lower(array))
    assert same(arrow_calls.trimmed(array), pc.utf8_trim_whitespace(array))
    assert same(arrow_calls.drop_null(chunked), pc.drop_null(chunked))
    words = arrow_strings(["none", "nan", ""])
    assert same(arrow_calls.is_in(array, words), pc.is_in(array, value_set=words))
    for pattern in (r"^[+-]?0\d", r"^[+-]?\d*,\d+$|^[+-]?\d+$"):
        found = arrow_calls.matches(chunked, pattern)
        assert same(found, pc.match_substring_regex(chunked, pattern))
        assert arrow_calls.any_true(found) is bool(pc.any(found).as_py())
        assert arrow_calls.all_true(found) is bool(pc.all(found).as_py())
    for target in (pa.int64(), pa.float64()):
        try:
            expected = pc.cast(chunked, target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
            try:
                arrow_calls.cast(chunked, target)
            except type(error):
                continue
            raise AssertionError("cast converted what pyarrow.compute refuses") from None
        assert same(arrow_calls.cast(chunked, target), expected)
    assert valid_of(array).tolist() == array.is_valid().to_pylist()


@given(TEXT, st.integers(0, 3), st.text(max_size=3), st.integers(0, 4), st.integers(-4, 6))
@settings(max_examples=200, deadline=None)
def test_piece_calls_are_pyarrow_computes(values, offset, pattern, start, stop):
    """The calls the JSON Lines reader makes on each piece of a line, as bytes and as text."""
    for kind in (pa.binary(), pa.string()):
        array = pa.array(values, pa.string()).cast(kind).slice(min(offset, len(values)))
        assert same(arrow_calls.starts_with(array, pattern), pc.starts_with(array, pattern))
        assert same(arrow_calls.ends_with(array, pattern), pc.ends_with(array, pattern))
        if kind == pa.binary():
            found = arrow_calls.binary_slice(array, start, stop)
            assert same(found, pc.binary_slice(array, start, stop))


@given(st.lists(st.none() | st.integers(-(2**62), 2**62), max_size=20), st.integers(0, 3))
@settings(max_examples=200, deadline=None)
def test_numbers_with_nulls_read_as_to_numpy_reads_them(values, offset):
    array = pa.array(values, pa.int64()).slice(min(offset, len(values)))
    expected = array.to_numpy(zero_copy_only=False)
    assert np.array_equal(numpy_of(array), expected.astype(np.float64), equal_nan=True)
    unsafe = arrow_calls.cast(array, pa.float64(), safe=False)
    assert same(unsafe, pc.cast(array, pa.float64(), safe=False))
    assert arrow_calls.null_of(pa.string()).equals(pa.scalar(None, pa.string()))


@given(st.lists(st.sampled_from(["", "d12", "q 7", "ÄB", "日本", "\x00"]) | st.text(max_size=6)))
def test_strings_built_from_buffers_are_pyarrows_strings(texts):
    built = arrow_strings(texts)
    built.validate(full=True)
    assert built.equals(pa.array(texts, pa.string()))


@given(TEXT, st.integers(0, 3), st.sampled_from(["string", "large_string", "binary"]))
@settings(max_examples=100, deadline=None)
def test_value_offsets_are_arrows_own(values, offset, kind):
    array = pa.array(values, pa.string()).cast(getattr(pa, kind)())
    array = array.slice(min(offset, len(values)))
    offsets = value_offsets(array)
    data = array.buffers()[2].to_pybytes() if array.buffers()[2] is not None else b""
    assert len(offsets) == len(array) + 1
    for value, start, end in zip(array.to_pylist(), offsets[:-1], offsets[1:]):
        expected = b"" if value is None else value if isinstance(value, bytes) else value.encode()
        assert data[start:end] == expected
