"""Fast path for plain TREC files: read runs and qrels straight into arrow columns.

trec_eval's own files are one record per line, fields separated by one space (or one tab):
``qid Q0 docid rank score tag`` for runs and ``qid iter docid rel`` for judgments. Such files are
parsed by ``pyarrow.csv`` in a fraction of a second per million lines, without pandas. Anything
else — several spaces, a header, gzip, a bad value — returns ``None`` so that the caller falls back
to :func:`metrics.formats.load_table`, which reads every layout and names the failing line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

TrecKind = Literal["run", "qrels"]

_NUMBER = r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)"
_RUN_LINE = re.compile(rf"^\S+(?P<d>[ \t])\S+(?P=d)\S+(?P=d)[+-]?\d+(?P=d){_NUMBER}(?P=d)\S+$")
_QRELS_LINE = re.compile(rf"^\S+(?P<d>[ \t])\S+(?P=d)\S+(?P=d){_NUMBER}$")
_SAMPLE_BYTES = 65536


@dataclass(frozen=True)
class TrecColumns:
    """The columns of a TREC file that evaluation needs.

    Attributes
    ----------
    kind:
        ``"run"`` or ``"qrels"``.
    query, item:
        Query and document ids (arrow strings).
    value:
        Score (runs) or relevance label (qrels), a float64 numpy array.
    rank:
        The rank column of a run (float64 numpy array), ``None`` for qrels.
    tag:
        The run tag of the first line (``None`` for qrels).
    """

    kind: TrecKind
    query: pa.ChunkedArray
    item: pa.ChunkedArray
    value: np.ndarray
    rank: np.ndarray | None = None
    tag: str | None = None

    def __len__(self) -> int:
        return len(self.query)


def sniff_trec(path: str | Path) -> tuple[TrecKind, str, str | None] | None:
    """Whether a file is a plain TREC run or qrels, from its first lines.

    Returns
    -------
    (kind, delimiter, tag) or None
        ``tag`` is the run tag of the first line (``None`` for qrels).
        ``None`` when the file is not a plain, single-delimiter TREC file.
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(_SAMPLE_BYTES)
    except OSError:
        return None
    if not head or head[:2] == b"\x1f\x8b" or head[:3] == b"\xef\xbb\xbf":
        return None
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = text.split("\n")
    if len(head) == _SAMPLE_BYTES:
        lines = lines[:-1]
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    if not lines or not lines[-1]:
        lines = lines[:-1] if lines else lines
    if not lines or any(not ln for ln in lines):
        return None
    for kind, pattern in (("run", _RUN_LINE), ("qrels", _QRELS_LINE)):
        first = pattern.match(lines[0])
        if first is None:
            continue
        delimiter = first["d"]
        if all((m := pattern.match(ln)) is not None and m["d"] == delimiter for ln in lines):
            tag = lines[0].split(delimiter)[-1] if kind == "run" else None
            return kind, delimiter, tag  # type: ignore[return-value]
    return None


def read_trec(path: str | Path) -> TrecColumns | None:
    """Read a plain TREC run or qrels file; ``None`` when it needs the general reader.

    Parameters
    ----------
    path:
        File path.

    Returns
    -------
    TrecColumns or None
    """
    sniffed = sniff_trec(path)
    if sniffed is None:
        return None
    kind, delimiter, first_tag = sniffed
    if kind == "run":
        names = ["query", "q0", "item", "rank", "value", "tag"]
        types = {"query": pa.string(), "item": pa.string(), "rank": pa.float64(),
                 "value": pa.float64()}
    else:
        names = ["query", "iter", "item", "value"]
        types = {"query": pa.string(), "item": pa.string(), "value": pa.float64()}
    try:
        table = pacsv.read_csv(
            str(path),
            read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 24),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False,
                                             double_quote=False, ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(
                column_types=types, include_columns=list(types), strings_can_be_null=False,
                null_values=[], quoted_strings_can_be_null=False))
    except (pa.ArrowException, OSError, ValueError):
        return None
    for name in ("value", "rank"):
        if name in table.column_names and table[name].null_count:
            return None
    if kind == "run":
        return TrecColumns("run", table["query"], table["item"], float_column(table["value"]),
                           float_column(table["rank"]), first_tag)
    return TrecColumns("qrels", table["query"], table["item"], float_column(table["value"]))


def float_column(column: pa.ChunkedArray) -> np.ndarray:
    """A float64 arrow column without nulls as a numpy array.

    Read from the arrow buffer directly: ``to_numpy()`` would import pandas (a third of a
    second) through pyarrow's pandas shim.
    """
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if len(array) == 0:
        return np.zeros(0)
    data = np.frombuffer(array.buffers()[1], dtype=np.float64)
    return data[array.offset:array.offset + len(array)]
