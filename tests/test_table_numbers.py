"""Numbers read from a table's text in blocks: plain numbers are cast as they stand, anything
else goes through trimming and the words for a missing value (``metrics.io.table_stream``); both
ways give the same numbers, bit for bit, or the same refusal."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from metrics.io.table_stream import _numbers, _text_numbers
from metrics.schema import LABEL_NULL_WORDS, NULL_WORDS

TOKENS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-(10**20), 10**20).map(str),
    st.sampled_from(
        [
            "nan",
            "NaN",
            "-nan",
            "inf",
            "-Inf",
            "Infinity",
            "+1",
            ".5",
            "5.",
            "1e400",
            "-0",
            "none",
            "None",
            "NA",
            "n/a",
            "-",
            "?",
            "null",
            "x",
            "1,5",
            "0x10",
            "１",
        ]
    ),
    st.builds(lambda pad, n: f"{pad}{n}{pad}", st.sampled_from([" ", "\t"]), st.integers(0, 9)),
)
COLUMNS = st.lists(st.one_of(st.none(), TOKENS), max_size=30)


def _as_array(found: pa.Array | None) -> np.ndarray | None:
    if found is None:
        return None
    out: np.ndarray = found.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
    return out


@given(COLUMNS, st.sampled_from([NULL_WORDS, LABEL_NULL_WORDS]))
def test_plain_numbers_read_as_the_text_reading_reads_them(values, nulls):
    column = pa.array(values, pa.string())
    fast = _numbers(column, nulls)
    slow = _as_array(_text_numbers(column, nulls))
    if slow is None:
        assert fast is None
    else:
        assert fast is not None
        np.testing.assert_array_equal(fast, slow)  # NaN where NaN, -0.0 and inf alike
        assert np.array_equal(np.signbit(fast), np.signbit(slow))


def test_the_words_for_a_missing_value_and_padded_numbers_still_read():
    column = pa.array([" 1.5", "NA", None, "none", "2"], pa.string())
    assert _numbers(column, LABEL_NULL_WORDS) is None  # "none" is a grade in a label column
    np.testing.assert_array_equal(
        _numbers(column, NULL_WORDS), np.array([1.5, np.nan, np.nan, np.nan, 2.0])
    )
