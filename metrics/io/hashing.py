"""The content hash of a data set's tables: equal tables, equal digests, a cache key.

Arrow strings and numpy numbers are hashed from their buffers (no work per cell), other columns
through pandas' hashing.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa


def content_hash(*frames: pd.DataFrame | None) -> str:
    """SHA-256 over the column names, dtypes and values of the given frames.

    Parameters
    ----------
    *frames:
        Frames (``None`` allowed) to hash, in order.

    Returns
    -------
    str
        Hex digest; equal frames give equal digests, independent of the index.
    """
    digest = hashlib.sha256()
    for frame in frames:
        if frame is None:
            digest.update(b"<none>")
            continue
        digest.update(repr([(str(c), str(t)) for c, t in frame.dtypes.items()]).encode())
        digest.update(str(len(frame)).encode())
        for column in frame.columns:
            _hash_column(digest, frame[column])
    return digest.hexdigest()


def _hash_column(digest: Any, values: pd.Series) -> None:
    """Feed one column's values to ``digest``: the bytes of arrow strings and numpy numbers
    directly (no per-cell work), other columns through pandas' hashing."""
    array = values.array
    if hasattr(array, "__arrow_array__") and not pd.api.types.is_numeric_dtype(values):
        chunked = array.__arrow_array__()
        if pa.types.is_string(chunked.type) or pa.types.is_large_string(chunked.type):
            _hash_strings(digest, chunked)
            return
    if isinstance(values.dtype, np.dtype) and values.dtype.kind in "biuf":
        digest.update(b"n")
        digest.update(np.ascontiguousarray(values.to_numpy()).tobytes())
        return
    digest.update(b"h")
    digest.update(pd.util.hash_pandas_object(values, index=False).to_numpy().tobytes())


def _hash_strings(digest: Any, strings: pa.ChunkedArray) -> None:
    """Feed arrow strings to ``digest``: their lengths, their bytes and where values are
    missing, each hashed chunk by chunk (no copy of the text; the same digest however the
    values are split into chunks)."""
    lengths, text, missing = hashlib.sha256(), hashlib.sha256(), hashlib.sha256()
    for chunk in strings.chunks:
        if len(chunk) == 0:
            continue
        _, offsets_buffer, data = chunk.buffers()
        wide = pa.types.is_large_string(chunk.type)
        offsets = np.frombuffer(offsets_buffer, dtype=np.int64 if wide else np.int32)[
            chunk.offset : chunk.offset + len(chunk) + 1
        ]
        lengths.update(np.diff(offsets).astype(np.int64).tobytes())
        if data is not None:
            text.update(memoryview(data)[int(offsets[0]) : int(offsets[-1])])
        if strings.null_count:
            missing.update(np.asarray(chunk.is_null()).tobytes())
    digest.update(b"s")
    for part in (lengths, text, missing):
        digest.update(part.digest())


__all__ = [
    "content_hash",
]
