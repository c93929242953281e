"""Ids and columns as arrays: query and item ids as integer codes, arrow and numpy without pandas.

The builders of :mod:`metrics.engine.ranking` accept arrow arrays, numpy arrays or lists
(:data:`ArrayLike`). Here they are read as one arrow string array per id column
(:func:`as_string_array`) or a float array (:func:`as_float_array`), and ids are encoded as
integer codes into dictionaries shared by a run and its judgments (:func:`encode_strings`,
:func:`id_codes`), so that a data set's ids are hashed once, not by every ranking.

Only numpy and pyarrow are imported here, and arrow arrays are converted to numpy and back from
their buffers (:func:`numpy_of`, :func:`arrow_numbers`): pyarrow's own conversions import pandas.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any, TypeAlias

import numpy as np
import pyarrow as pa

from metrics.engine import arrow_calls
from metrics.engine.arrow_calls import compute as pc
from metrics.errors import InputError

#: Columns the builders accept: arrow arrays, numpy arrays or lists.
ArrayLike: TypeAlias = "pa.Array | pa.ChunkedArray | np.ndarray | list[Any]"


def as_string_array(values: ArrayLike, name: str) -> pa.Array:
    """Query or item ids as one arrow string array (numbers become their text)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()
    if not isinstance(values, pa.Array):
        values = pa.array(
            np.asarray(values, dtype=object) if not isinstance(values, list) else values
        )
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    if pa.types.is_large_string(values.type):
        values = values.cast(pa.string())
    if not pa.types.is_string(values.type):
        values = values.cast(pa.string())
    if values.null_count:
        first = int(np.flatnonzero(values.is_null().to_numpy(zero_copy_only=False))[0])
        raise InputError(
            f"{values.null_count} empty {name} id(s); the first is at row {first + 1}.",
            column=name,
            fix=f"give every row a {name} id.",
        )
    return values


def string_chunks(values: ArrayLike) -> pa.ChunkedArray | None:
    """Ids held as arrow strings (a pandas column backed by pyarrow, or an arrow array) as one
    chunked ``large_string`` array (no copy of the text); ``None`` for anything else (numbers,
    Python objects)."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        arrow = values
    else:
        array = getattr(values, "array", None)
        dtype = getattr(values, "dtype", None)
        to_arrow = getattr(array, "__arrow_array__", None)
        if getattr(dtype, "storage", None) != "pyarrow" or to_arrow is None:
            return None
        arrow = to_arrow()
    if isinstance(arrow, pa.Array):
        arrow = pa.chunked_array([arrow])
    if pa.types.is_string(arrow.type):
        arrow = arrow.cast(pa.large_string())
    return arrow if pa.types.is_large_string(arrow.type) else None


def encode_strings(columns: list[pa.ChunkedArray]) -> tuple[list[np.ndarray], pa.Array]:
    """Integer codes of several string columns into one dictionary they share.

    Equal strings get equal codes; a missing value gets a code of its own. Runs of equal values
    (a run's query and model columns, written query by query) are encoded once per run: only
    the first value of each run is hashed.

    Returns
    -------
    (codes, dictionary)
        One ``int32`` array per column, and the distinct values (in no particular order).
    """
    whole = pa.chunked_array(
        [chunk.cast(pa.large_string()) for column in columns for chunk in column.chunks],
        type=pa.large_string(),
    )
    n = len(whole)
    heads = np.zeros(min(n, 1), dtype=np.int64)
    if n > 1:
        changed = pc.fill_null(pc.not_equal(whole[1:], whole[:-1]), True)
        heads = np.concatenate((heads, np.flatnonzero(numpy_of(changed)) + 1))
    if len(heads) * 4 < n:
        first = pc.take(whole, arrow_numbers(heads)).combine_chunks()
        encoded = pc.dictionary_encode(first, null_encoding="encode")
        head_codes = numpy_of(encoded.indices).astype(np.int32)
        codes = np.repeat(head_codes, np.diff(np.append(heads, n)))
        dictionary = encoded.dictionary
    else:
        encoded = pc.dictionary_encode(whole, null_encoding="encode").combine_chunks()
        codes = numpy_of(encoded.indices).astype(np.int32)
        dictionary = encoded.dictionary
    bounds = np.cumsum([0, *(len(c) for c in columns)])
    return [codes[a:b] for a, b in pairwise(bounds)], dictionary


@dataclass(frozen=True)
class IdCodes:
    """The query and item ids of a run and its judgments as integer codes.

    Queries share one dictionary between run and judgments, items another, so a run row and a
    judgment are about the same item exactly when their codes are equal. Built once for a data
    set (:func:`id_codes`), they spare every ranking the work of hashing the ids again.
    """

    run_query: np.ndarray
    run_item: np.ndarray
    qrels_query: np.ndarray
    qrels_item: np.ndarray
    queries: pa.Array
    items: pa.Array

    def for_rows(self, rows: np.ndarray) -> IdCodes:
        """The codes of some run rows (one model's), with the same judgments and dictionaries."""
        return replace(self, run_query=self.run_query[rows], run_item=self.run_item[rows])


def id_codes(
    run_query: ArrayLike, run_item: ArrayLike, qrels_query: ArrayLike, qrels_item: ArrayLike
) -> IdCodes | None:
    """:class:`IdCodes` of ids held as arrow strings; ``None`` when a column is not (the
    rankings then encode the ids themselves)."""
    columns = [string_chunks(c) for c in (run_query, run_item, qrels_query, qrels_item)]
    if any(c is None for c in columns):
        return None
    rq, ri, jq, ji = (c for c in columns if c is not None)
    (run_q, qrels_q), queries = encode_strings([rq, jq])
    (run_i, qrels_i), items = encode_strings([ri, ji])
    return IdCodes(run_q, run_i, qrels_q, qrels_i, queries, items)


def as_float_array(values: ArrayLike, name: str) -> np.ndarray:
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        values = numpy_of(values)
    try:
        out = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"the {name} values are not all numbers ({exc}).",
            column=name,
            fix=f"make the {name} column numeric.",
        ) from None
    return out


def numpy_of(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A numeric arrow array as numpy, read from its buffer (with nulls: as float64, ``NaN``
    where they are).

    ``to_numpy()`` goes through pyarrow's pandas shim, which imports pandas (a third of a second
    of the command line's start-up); the buffer view does not.
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    t = values.type
    if (
        values.null_count == 0
        and (pa.types.is_integer(t) or pa.types.is_floating(t))
        and t.bit_width in (8, 16, 32, 64)
        and not pa.types.is_float16(t)
    ):
        if len(values) == 0:
            return np.zeros(0, dtype=t.to_pandas_dtype())
        data = np.frombuffer(values.buffers()[1], dtype=t.to_pandas_dtype())
        return data[values.offset : values.offset + len(values)]
    if (pa.types.is_integer(t) or pa.types.is_floating(t)) and len(values):
        # with nulls: as float64 with NaN in their place, as to_numpy() gives them
        floats = values if t == pa.float64() else arrow_calls.cast(values, pa.float64(), safe=False)
        data = np.frombuffer(floats.buffers()[1], dtype=np.float64)
        data = data[floats.offset : floats.offset + len(floats)]
        return np.where(valid_of(floats), data, np.nan)
    out: np.ndarray = values.to_numpy(zero_copy_only=False)
    return out


def valid_of(values: pa.Array) -> np.ndarray:
    """Which values of an arrow array are not null, read from its validity bitmap (numpy of
    ``is_valid()`` would import pandas through pyarrow's pandas shim)."""
    if values.null_count == 0:
        return np.ones(len(values), dtype=bool)
    if pa.types.is_null(values.type) or values.buffers()[0] is None:
        return np.zeros(len(values), dtype=bool)
    bits = np.frombuffer(values.buffers()[0], dtype=np.uint8)
    found = np.unpackbits(bits, bitorder="little")[values.offset : values.offset + len(values)]
    return found.astype(bool)


def value_offsets(values: pa.Array) -> np.ndarray:
    """Where each value of a string or binary array starts and the last one ends (``len + 1``
    offsets into its data buffer, 64-bit ones for the large types), read from its buffers."""
    large = pa.types.is_large_string(values.type) or pa.types.is_large_binary(values.type)
    offsets: np.ndarray = np.frombuffer(values.buffers()[1], dtype=np.int64 if large else np.int32)
    return offsets[values.offset : values.offset + len(values) + 1]


def arrow_numbers(values: np.ndarray) -> pa.Array:
    """A numeric numpy array as an arrow array, built from its buffer (``pa.array()`` would
    import pandas through pyarrow's pandas shim)."""
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(
        pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)]
    )


def arrow_strings(texts: Sequence[str]) -> pa.Array:
    """Python strings as an arrow string array, built from buffers (``pa.array()`` would import
    pandas through pyarrow's pandas shim): their characters encoded at once, and their
    lengths counted as characters when every one is a byte (ASCII)."""
    joined = "".join(texts)
    data = joined.encode("utf-8")
    count = len(texts)
    if len(data) == len(joined):
        lengths = np.fromiter(map(len, texts), np.int64, count)
    else:
        lengths = np.fromiter((len(t.encode("utf-8")) for t in texts), np.int64, count)
    offsets = np.zeros(count + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.Array.from_buffers(
        pa.string(), count, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


def runs_of(ids: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Where each run of equal consecutive ids starts, and the id of each run (one linear pass,
    no hashing)."""
    if len(ids) == 0:
        return np.zeros(0, dtype=np.int64), ids
    encoded = arrow_calls.run_end_encode(ids)  # run ends count from the slice's start
    ends = numpy_of(encoded.run_ends).astype(np.int64)
    starts = np.zeros(len(ends), dtype=np.int64)
    starts[1:] = ends[:-1]
    return starts, encoded.values


def dictionary_codes(values: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """``int64`` codes of ``values`` and the distinct values they index (first appearance
    order)."""
    encoded = arrow_calls.dictionary_encode(values).combine_chunks()
    codes = numpy_of(encoded.indices).astype(np.int64)
    return codes, encoded.dictionary


__all__ = [
    "ArrayLike",
    "IdCodes",
    "arrow_numbers",
    "arrow_strings",
    "as_float_array",
    "as_string_array",
    "dictionary_codes",
    "encode_strings",
    "id_codes",
    "numpy_of",
    "runs_of",
    "string_chunks",
    "valid_of",
    "value_offsets",
]
