"""The few arrow compute functions the command line's evaluation calls, without importing
:mod:`pyarrow.compute` (which builds a Python wrapper for each of its hundreds of functions:
about 40 ms of a command that takes well under a second).

They are called by name through ``call_function``, the function ``pyarrow.compute`` wraps, from
pyarrow's compiled compute module. :data:`compute` is :mod:`pyarrow.compute` itself, imported
on first use, for everything else.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from metrics.engine.lazy import LazyModule

try:
    import pyarrow._compute as _kernels
except ImportError:  # pragma: no cover - a pyarrow without its compiled compute module's names
    import pyarrow.compute as _kernels

call_function = _kernels.call_function


#: :mod:`pyarrow.compute`, imported on first use.
compute: Any = LazyModule("pyarrow.compute")


def dictionary_encode(values: pa.Array | pa.ChunkedArray) -> Any:
    """As ``pyarrow.compute.dictionary_encode`` (nulls masked)."""
    return call_function("dictionary_encode", [values], _kernels.DictionaryEncodeOptions())


def run_end_encode(values: pa.Array) -> Any:
    """As ``pyarrow.compute.run_end_encode`` (int32 run ends)."""
    return call_function("run_end_encode", [values], _kernels.RunEndEncodeOptions())


def sort_indices(values: pa.Array) -> Any:
    """Positions that sort ``values`` ascending (stable), as ``pyarrow.compute.sort_indices``
    of an array."""
    return call_function("array_sort_indices", [values], _kernels.ArraySortOptions("ascending"))


def take(values: pa.Array | pa.ChunkedArray, indices: pa.Array) -> Any:
    """As ``pyarrow.compute.take`` (indices checked)."""
    return call_function("take", [values, indices], _kernels.TakeOptions())


def index_in(values: pa.Array, value_set: pa.Array) -> np.ndarray:
    """As ``pyarrow.compute.index_in``, as numpy: the position of each value in ``value_set``,
    -1 when absent."""
    found = call_function("index_in", [values], _kernels.SetLookupOptions(value_set))
    if found.null_count:
        absent = pa.Array.from_buffers(pa.int32(), 1, [None, pa.py_buffer(np.int32(-1).tobytes())])
        found = call_function("coalesce", [found, absent[0]])
    return np.frombuffer(found.buffers()[1], dtype=np.int32)[
        found.offset : found.offset + len(found)
    ].astype(np.int64)


# ----------------------------------------------------------------- what the table reader calls


def null_of(kind: pa.DataType) -> pa.Scalar:
    """A null scalar of ``kind`` (``pa.scalar(None, kind)`` without the pandas shim)."""
    return pa.nulls(1, kind)[0]


def cast(values: pa.Array | pa.ChunkedArray, target: pa.DataType, *, safe: bool = True) -> Any:
    """As ``pyarrow.compute.cast`` (``safe``: a value that does not convert exactly raises)."""
    options = _kernels.CastOptions.safe(target) if safe else _kernels.CastOptions.unsafe(target)
    return call_function("cast", [values], options)


def all_true(values: pa.Array | pa.ChunkedArray) -> bool:
    """Whether ``pyarrow.compute.all(values).as_py()`` is true (nulls skipped; false when no
    value is left)."""
    options = _kernels.ScalarAggregateOptions(skip_nulls=True, min_count=1)
    return bool(call_function("all", [values], options).as_py())


def any_true(values: pa.Array | pa.ChunkedArray) -> bool:
    """Whether ``pyarrow.compute.any(values).as_py()`` is true (nulls skipped)."""
    options = _kernels.ScalarAggregateOptions(skip_nulls=True, min_count=1)
    return bool(call_function("any", [values], options).as_py())


def matches(values: pa.Array | pa.ChunkedArray, pattern: str) -> Any:
    """As ``pyarrow.compute.match_substring_regex``."""
    return call_function("match_substring_regex", [values], _kernels.MatchSubstringOptions(pattern))


def starts_with(values: pa.Array | pa.ChunkedArray, pattern: str) -> Any:
    """As ``pyarrow.compute.starts_with``."""
    return call_function("starts_with", [values], _kernels.MatchSubstringOptions(pattern))


def ends_with(values: pa.Array | pa.ChunkedArray, pattern: str) -> Any:
    """As ``pyarrow.compute.ends_with``."""
    return call_function("ends_with", [values], _kernels.MatchSubstringOptions(pattern))


def binary_slice(values: pa.Array | pa.ChunkedArray, start: int, stop: int) -> Any:
    """As ``pyarrow.compute.binary_slice`` (bytes ``start`` to ``stop`` of each value)."""
    return call_function("binary_slice", [values], _kernels.SliceOptions(start, stop))


def is_in(values: pa.Array | pa.ChunkedArray, value_set: pa.Array) -> Any:
    """As ``pyarrow.compute.is_in`` (a null is in the set only if the set holds one)."""
    return call_function("is_in", [values], _kernels.SetLookupOptions(value_set))


def drop_null(values: pa.Array | pa.ChunkedArray) -> Any:
    """As ``pyarrow.compute.drop_null``."""
    return call_function("drop_null", [values])


def lower(values: pa.Array | pa.ChunkedArray) -> Any:
    """As ``pyarrow.compute.utf8_lower``."""
    return call_function("utf8_lower", [values])


def trimmed(values: pa.Array | pa.ChunkedArray) -> Any:
    """As ``pyarrow.compute.utf8_trim_whitespace``."""
    return call_function("utf8_trim_whitespace", [values])
