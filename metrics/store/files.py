"""The store's data files: tables as Parquet, named by random ids, written durably.

A table is written to a temporary name next to its final one, flushed to disk (``fsync``), then
renamed into place (``os.replace``, atomic) and its folder flushed: a file under its final name is
whole. The catalog row that names it is committed only after that, so a crash leaves at most a
file the catalog does not know (an orphan, removed by :func:`~metrics.store.upkeep.purge`), never
a row without its file. Files are ``data/<2 hex>/<32 hex>.parquet`` under the data folder: the
name is the row's random id, never a name a user gave. Nothing is pickled: Parquet holds the
values, and pandas' column types as JSON.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from metrics.errors import StoreError
from metrics.io.hashing import content_hash
from metrics.store.hashing import new_id
from metrics.store.messages import store_error

#: The data files' folder under the data folder.
DATA_FOLDER = "data"
SUFFIX = ".parquet"
_TEMPORARY = ".tmp-"
_ID = re.compile(r"^[0-9a-f]{32}$")


@dataclass(frozen=True)
class StoredFile:
    """A table written to the data folder, not yet (or already) in the catalog.

    Attributes
    ----------
    id:
        The random id: the catalog row's key and the file's name.
    name:
        The table's name within its owner (a workspace's upload, ``run``, ``qrels``, ...).
    bytes:
        The file's size.
    content_hash:
        :func:`metrics.io.hashing.content_hash` of the table, so that an unchanged table is not
        written again.
    """

    id: str
    name: str
    bytes: int
    content_hash: str


def path_of(home: Path, file_id: str) -> Path:
    """The path of the data file ``file_id``.

    Raises
    ------
    ValueError
        For an id that is not 32 hex digits (a catalog edited by hand cannot name a path
        outside the data folder).
    """
    if not _ID.match(file_id):
        raise ValueError(f"not a data file id: {file_id!r}")
    return home / DATA_FOLDER / file_id[:2] / (file_id + SUFFIX)


def _sync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _arrow_table(name: str, frame: pd.DataFrame) -> pa.Table:
    try:
        return pa.Table.from_pandas(frame, preserve_index=False)
    except (pa.ArrowException, ValueError, TypeError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise store_error(StoreError, "table_not_storable", name=name, reason=reason) from None


def write_table(
    home: Path, name: str, frame: pd.DataFrame, digest: str | None = None
) -> StoredFile:
    """Write ``frame`` durably under a new random id (see the module's notes).

    Raises
    ------
    StoreError
        ``table_not_storable`` for a table Parquet cannot hold (columns of mixed types).
    """
    table = _arrow_table(name, frame)
    file_id = new_id()
    final = path_of(home, file_id)
    folder = final.parent
    if not folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        _sync_folder(folder.parent)
    temporary = folder / f"{_TEMPORARY}{new_id()}"
    try:
        descriptor = os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            pq.write_table(table, handle, compression="zstd")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, final)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    _sync_folder(folder)
    return StoredFile(file_id, name, final.stat().st_size, digest or content_hash(frame))


def read_table(home: Path, file_id: str, owner: str) -> pd.DataFrame:
    """The table of the data file ``file_id``; ``owner`` names whose it is, for the message.

    Raises
    ------
    StoreError
        ``file_missing`` when the file is gone from the data folder.
    """
    path = path_of(home, file_id)
    try:
        return pq.read_table(path).to_pandas()
    except FileNotFoundError:
        raise store_error(
            StoreError, "file_missing", owner=owner, folder=str(home / DATA_FOLDER)
        ) from None


def remove_files(home: Path, file_ids: list[str]) -> None:
    """Remove data files (those already gone are skipped)."""
    for file_id in file_ids:
        with contextlib.suppress(FileNotFoundError):
            path_of(home, file_id).unlink()


def data_files(home: Path) -> Iterator[tuple[Path, str | None]]:
    """Every file in the data folder's id folders: its path, and its id (``None`` for a
    temporary file or any other name)."""
    root = home / DATA_FOLDER
    if not root.is_dir():
        return
    for folder in sorted(root.iterdir()):
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            stem = path.name[: -len(SUFFIX)] if path.name.endswith(SUFFIX) else ""
            yield path, stem if _ID.match(stem) and stem[:2] == folder.name else None


__all__ = [
    "DATA_FOLDER",
    "StoredFile",
    "data_files",
    "path_of",
    "read_table",
    "remove_files",
    "write_table",
]
