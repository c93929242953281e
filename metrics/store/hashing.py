"""Keys, their hashes, and the hash that says two runs were judged alike.

A workspace's key is :func:`new_token` (256 random bits); the catalog keeps only
:func:`token_hash` of it, so that a copy of the catalog opens no workspace. A review link's token
is derived from the workspace's key and the link's id (:func:`link_token`): whoever holds the
workspace can show its links again, while the catalog holds only their hashes too.

:func:`judgments_hash` is the hash of the judgments a run was scored against, computed from their
sorted rows (the same judgments in another order or file format give the same hash): two saved
versions are compared only when theirs are equal.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

import numpy as np
import pandas as pd
import pyarrow as pa

from metrics.schema import ITEM, QUERY, RELEVANCE

#: Random bytes of a workspace key (256 bits; ``secrets.token_urlsafe`` writes them in 43
#: characters).
TOKEN_BYTES = 32
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{43}$")
#: The version of :func:`judgments_hash`'s layout, part of every hash it returns.
_JUDGMENTS_LAYOUT = b"ranking-metrics judgments v1\n"


def new_token() -> str:
    """A new unguessable key (URL-safe text of :data:`TOKEN_BYTES` random bytes)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def is_token(value: object) -> bool:
    """Whether ``value`` has the form of a key or link token (43 URL-safe characters)."""
    return isinstance(value, str) and bool(_TOKEN.match(value))


def token_hash(token: str) -> str:
    """The SHA-256 of a key, as the catalog keeps it (hex)."""
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def link_token(workspace_token: str, snapshot_id: str) -> str:
    """The token of the review link ``snapshot_id`` of the workspace whose key is
    ``workspace_token``: HMAC-SHA256 of the id keyed by the workspace's key, in 43 URL-safe
    characters."""
    mac = hmac.new(
        workspace_token.encode("ascii"), b"review link " + snapshot_id.encode(), "sha256"
    )
    return base64.urlsafe_b64encode(mac.digest()).rstrip(b"=").decode("ascii")


def new_id() -> str:
    """A random id of a catalog row and of a data file's name (128 bits, hex)."""
    return secrets.token_hex(16)


def _feed_strings(digest: hashlib._Hash, values: pd.Series) -> None:
    """The lengths, then the UTF-8 bytes of ``values`` (missing values as empty text)."""
    array = pa.array(values.fillna("").astype(str).to_numpy(dtype=object), type=pa.large_string())
    _, offsets, data = array.buffers()
    ends = np.frombuffer(offsets, dtype="<i8")[array.offset : array.offset + len(array) + 1]
    digest.update(np.diff(ends).astype("<i8").tobytes())
    if data is not None:
        digest.update(memoryview(data)[int(ends[0]) : int(ends[-1])])


def judgments_hash(qrels: pd.DataFrame) -> str:
    """The hash of judgments (``query``, ``item``, ``relevance``): SHA-256 over the rows sorted
    by query and item, a repeated judgment once with its highest label.

    Ids are compared as text and labels as numbers (``1`` and ``1.0`` are one label), so that
    the same judgments read from TREC, CSV or Parquet give the same hash.

    Examples
    --------
    >>> a = pd.DataFrame({"query": ["2", "1"], "item": ["b", "a"], "relevance": [1, 0.0]})
    >>> judgments_hash(a) == judgments_hash(a.iloc[::-1]) != judgments_hash(a.head(1))
    True
    """
    frame = pd.DataFrame(
        {
            QUERY: qrels[QUERY].astype(str).to_numpy(dtype=object),
            ITEM: qrels[ITEM].astype(str).to_numpy(dtype=object),
            RELEVANCE: pd.to_numeric(qrels[RELEVANCE], errors="coerce").astype(np.float64),
        }
    )
    frame = frame.sort_values([QUERY, ITEM, RELEVANCE], kind="stable")
    frame = frame.drop_duplicates([QUERY, ITEM], keep="last")
    digest = hashlib.sha256(_JUDGMENTS_LAYOUT)
    digest.update(np.int64(len(frame)).astype("<i8").tobytes())
    _feed_strings(digest, frame[QUERY])
    _feed_strings(digest, frame[ITEM])
    labels = frame[RELEVANCE].to_numpy(dtype=np.float64) + 0.0  # -0.0 as 0.0
    digest.update(labels.astype("<f8").tobytes())
    return digest.hexdigest()


__all__ = [
    "TOKEN_BYTES",
    "is_token",
    "judgments_hash",
    "link_token",
    "new_id",
    "new_token",
    "token_hash",
]
