"""Fast path for plain TREC files: read runs and qrels straight into arrow columns.

trec_eval's own files are one record per line, fields separated by one space (or one tab):
``qid Q0 docid rank score tag`` for runs and ``qid iter docid rel`` for judgments. Such files are
parsed by ``pyarrow.csv`` in a fraction of a second per million lines, without pandas. Anything
else — several spaces, a header, gzip — returns ``None`` so that the caller falls back to
:func:`metrics.io.formats.load_table`, which reads every layout. A file that starts like a TREC file
but has a broken line raises :class:`~metrics.errors.InputError` naming that line.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from metrics.errors import InputError

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


def _sample_lines(path: str | Path) -> list[str] | None:
    """The complete lines in the first 64 KB, or ``None`` for binary, gzip or BOM files."""
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
    if len(head) == _SAMPLE_BYTES and len(lines) > 1:
        lines = lines[:-1]
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _kind_of_line(line: str) -> TrecKind | None:
    """``"run"`` or ``"qrels"`` when one line has that layout (any whitespace between fields)."""
    fields = line.split()
    if len(fields) == 6 and _is_number(fields[3], integer=True) and _is_number(fields[4]):
        return "run"
    if (
        len(fields) == 4
        and _is_number(fields[3])
        and (fields[1].upper() == "Q0" or _is_number(fields[1], integer=True))
    ):
        return "qrels"
    return None


def _is_number(text: str, integer: bool = False) -> bool:
    try:
        value = float(text)
    except ValueError:
        return False
    return not integer or (math.isfinite(value) and value == int(value))


def sniff_trec(path: str | Path) -> tuple[TrecKind, str | None, str | None] | None:
    """Whether a file is a TREC run or qrels, judged by its first line.

    Returns
    -------
    (kind, delimiter, tag) or None
        ``delimiter`` is ``" "`` or ``"\\t"`` when every sampled line has exactly that layout
        (the fast reader applies), ``None`` when the file only starts like a TREC file.
        ``tag`` is the run tag of the first line (``None`` for qrels). ``None`` overall when the
        first line is not a TREC record.
    """
    lines = _sample_lines(path)
    if not lines:
        return None
    kind = _kind_of_line(lines[0])
    if kind is None:
        return None
    tag = lines[0].split()[-1] if kind == "run" else None
    pattern = _RUN_LINE if kind == "run" else _QRELS_LINE
    first = pattern.match(lines[0])
    if first is None:
        return kind, None, tag
    delimiter = first["d"]
    second = lines[0].split(delimiter)[1]
    plain = all(
        (m := pattern.match(ln)) is not None
        and m["d"] == delimiter
        and ln.split(delimiter, 2)[1] == second
        for ln in lines
    )
    return kind, delimiter if plain else None, tag


def first_bad_line(path: str | Path, kind: TrecKind) -> InputError | None:
    """The first line of a TREC file that is not a record of its kind, as an error to raise.

    Blank lines are skipped. Used only when the fast reader cannot read the file, to tell a
    broken TREC file (named line) from a valid one in another layout (``None``).
    """
    width, layout = (
        (6, "qid Q0 docid rank score tag") if kind == "run" else (4, "qid iter docid relevance")
    )
    fix = f"write one {'result' if kind == 'run' else 'judgment'} per line: {layout}."
    source = Path(path).name
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != width:
                return InputError(
                    f"a TREC {kind} line needs {width} fields separated by "
                    f"spaces; found {len(fields)}.",
                    source=source,
                    line=number,
                    fix=fix,
                )
            checks = (
                ((3, "rank", True), (4, "score", False))
                if kind == "run"
                else ((3, "relevance", False),)
            )
            for position, name, integer in checks:
                if not _is_number(fields[position], integer):
                    what = "a whole number" if integer else "a number"
                    return InputError(
                        f"the {name} '{fields[position]}' is not {what}.",
                        source=source,
                        line=number,
                        column=name,
                        fix=fix,
                    )
    return None


def read_trec(path: str | Path) -> TrecColumns | None:
    """Read a TREC run or qrels file; ``None`` when it needs the general reader.

    Plain files (one space or one tab between fields) are parsed by ``pyarrow.csv``. Files whose
    first line is a TREC record but that the fast reader cannot take are checked line by line:
    a broken line raises, a valid file in another layout (several spaces) returns ``None``.

    Parameters
    ----------
    path:
        File path.

    Returns
    -------
    TrecColumns or None

    Raises
    ------
    InputError
        For the first line that is not a TREC record, naming the file and the line.
    """
    sniffed = sniff_trec(path)
    if sniffed is None:
        return None
    kind, delimiter, first_tag = sniffed
    table = _read_plain(path, kind, delimiter) if delimiter is not None else None
    if table is None:
        error = first_bad_line(path, kind)
        if error is not None:
            raise error
        return None
    if kind == "run":
        return TrecColumns(
            "run",
            table["query"],
            table["item"],
            float_column(table["value"]),
            float_column(table["rank"]),
            first_tag,
        )
    return TrecColumns("qrels", table["query"], table["item"], float_column(table["value"]))


def _read_plain(path: str | Path, kind: TrecKind, delimiter: str) -> pa.Table | None:
    if kind == "run":
        names = ["query", "q0", "item", "rank", "value", "tag"]
        types = {
            "query": pa.string(),
            "item": pa.string(),
            "rank": pa.float64(),
            "value": pa.float64(),
        }
    else:
        names = ["query", "iter", "item", "value"]
        types = {"query": pa.string(), "item": pa.string(), "value": pa.float64()}
    try:
        table = pacsv.read_csv(
            str(path),
            read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 24),
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter, quote_char=False, double_quote=False, ignore_empty_lines=True
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=types,
                include_columns=list(types),
                strings_can_be_null=False,
                null_values=[],
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowException, OSError, ValueError):
        return None
    for name in ("value", "rank"):
        if name in table.column_names and table[name].null_count:
            return None
    return table


def float_column(column: pa.ChunkedArray) -> np.ndarray:
    """A float64 arrow column without nulls as a numpy array.

    Read from the arrow buffer directly: ``to_numpy()`` would import pandas (a third of a
    second) through pyarrow's pandas shim.
    """
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if len(array) == 0:
        return np.zeros(0)
    data = np.frombuffer(array.buffers()[1], dtype=np.float64)
    return data[array.offset : array.offset + len(array)]
