"""Writing the command line's results: trec_eval-style TSV, CSV and JSON.

The TSV writer builds every line with arrow compute kernels and writes one buffer, so millions
of per-query lines cost a fraction of a second; a few lines (the means) are formatted in Python
with the same text, without loading the kernels. Arrow arrays are made from numpy buffers
directly: ``pa.array()`` would import pandas through pyarrow's pandas shim.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np
import pyarrow as pa

from metrics import schema as S
from metrics.engine.arrow_calls import compute as pc
from metrics.engine.ids import arrow_numbers, arrow_strings
from metrics.engine.results import Results
from metrics.errors import InputError

if TYPE_CHECKING:  # imported on use: TREC files are evaluated without pandas
    import pandas as pd

#: trec_eval prints ``"%-22s\t%s\t%.4f"``: names are padded to 22 characters.
TREC_NAME_WIDTH = 22


#: Characters escaped in the TSV output, in this order (the backslash first), so that every
#: record is one line of tab-separated fields: ``\\`` for a backslash, ``\t``, ``\n``, ``\r``.
TSV_ESCAPES = (("\\", "\\\\"), ("\t", "\\t"), ("\n", "\\n"), ("\r", "\\r"))


def tsv_escaped(texts: pa.Array) -> pa.Array:
    r"""Strings with backslashes, tabs, newlines and carriage returns written as ``\\``,
    ``\t``, ``\n`` and ``\r`` (:data:`TSV_ESCAPES`); other text is unchanged.

    Examples
    --------
    >>> tsv_escaped(arrow_strings(["q\t1", "a\\b", "plain"])).to_pylist()
    ['q\\t1', 'a\\\\b', 'plain']
    """
    for raw, escaped in TSV_ESCAPES:
        texts = pc.replace_substring(texts, pattern=raw, replacement=escaped)
    return texts


def arrow_text(text: str) -> pa.Scalar:
    """One string as an arrow scalar (a literal in compute calls, without the pandas shim)."""
    return arrow_strings([text])[0]


def format_fixed(values: np.ndarray, digits: int) -> pa.Array:
    """Values as fixed-point text with ``digits`` decimals, exactly like C's ``printf("%.*f")``.

    Values are scaled and rounded as integers; the rare values within rounding error of a half
    are formatted one by one so that the text matches the correctly rounded output.

    Parameters
    ----------
    values:
        Finite numbers.
    digits:
        Decimals, 0 to 12.

    Returns
    -------
    pyarrow.Array
        One string per value.
    """
    values = np.asarray(values, dtype=np.float64)
    scale = 10**digits
    scaled = values * scale
    if (
        len(values) == 0
        or not np.isfinite(scaled).all()
        or np.abs(scaled).max() > 2**52
        or (values < 0).any()
    ):
        return arrow_strings([f"{v:.{digits}f}" for v in values.tolist()])
    ints = np.rint(scaled).astype(np.int64)
    text = arrow_numbers(ints // scale).cast(pa.string())
    if digits > 0:
        frac = pc.utf8_lpad(arrow_numbers(ints % scale).cast(pa.string()), digits, "0")
        text = pc.binary_join_element_wise(text, frac, arrow_text("."))
    near_half = np.abs(scaled - np.floor(scaled) - 0.5) < 1e-6
    if near_half.any():
        exact = [f"{v:.{digits}f}" for v in values[near_half].tolist()]
        mask = pc.cast(arrow_numbers(near_half.astype(np.uint8)), pa.bool_())
        text = pc.replace_with_mask(text, mask, arrow_strings(exact))
    return text


def fixed_texts(values: list[float], digits: int) -> list[str]:
    """The text :func:`format_fixed` gives ``values``, formatted in Python (for a few values).

    :func:`format_fixed` formats through scaled integers unless a value is negative, not finite
    or too large, and then prints ``-0.0`` as ``0``; otherwise it formats every value as Python
    does.
    """
    scale = 10**digits
    if all(math.isfinite(v * scale) and v >= 0 and abs(v * scale) <= 2**52 for v in values):
        return [f"{v + 0.0:.{digits}f}" for v in values]
    return [f"{v:.{digits}f}" for v in values]


_BLOCK_LINES = 1 << 20


def _line_blocks(
    results: Results,
    labels: list[str],
    per_query: bool,
    block_lines: int = _BLOCK_LINES,
    escape: bool = False,
) -> Iterator[tuple[pa.Array, pa.Array, pa.Array, np.ndarray, np.ndarray]]:
    """Model, measure, query and value of the output lines, in blocks of about ``block_lines``
    lines and in trec_eval's order: per query all measures (query-major), then the means under
    the query ``all``. Left-out (``NaN``) values have no line. The last item of each block is
    the index of each line's measure. With ``escape``, model names and query ids are
    :func:`tsv_escaped`."""
    label_arr = arrow_strings(labels)

    def block(
        model: str,
        query_arr: pa.Array,
        measure_idx: np.ndarray,
        query_idx: np.ndarray,
        values: np.ndarray,
    ) -> tuple[pa.Array, pa.Array, pa.Array, np.ndarray, np.ndarray]:
        name = tsv_escaped(arrow_strings([model])) if escape else arrow_strings([model])
        models = pc.take(name, arrow_numbers(np.zeros(len(values), np.int64)))
        return (
            models,
            pc.take(label_arr, arrow_numbers(measure_idx)),
            pc.take(query_arr, arrow_numbers(query_idx)),
            values,
            measure_idx,
        )

    for model, (lists, per_q, means) in results.models.items():
        query_arr = arrow_strings([str(q) for q in lists.query_ids.tolist()] + ["all"])
        if escape:
            query_arr = tsv_escaped(query_arr)
        n_q, n_m = per_q.shape
        if per_query and n_q and n_m:
            step = max(1, block_lines // n_m)
            for first in range(0, n_q, step):
                flat = per_q[first : first + step].ravel()
                keep = np.flatnonzero(~np.isnan(flat))
                yield block(model, query_arr, keep % n_m, first + keep // n_m, flat[keep])
        keep = np.flatnonzero(~np.isnan(means))
        yield block(model, query_arr, keep, np.full(len(keep), n_q), means[keep])


def _long_columns(
    results: Results, labels: list[str], per_query: bool
) -> tuple[pa.Array, pa.Array, pa.Array, np.ndarray]:
    """All output lines at once (for the small CSV and JSON outputs)."""
    blocks = list(_line_blocks(results, labels, per_query))
    return (
        pa.concat_arrays([b[0] for b in blocks]),
        pa.concat_arrays([b[1] for b in blocks]),
        pa.concat_arrays([b[2] for b in blocks]),
        np.concatenate([b[3] for b in blocks]),
    )


def _formatted(
    results: Results, values: np.ndarray, measure_idx: np.ndarray, digits: int
) -> pa.Array:
    """Values with ``digits`` decimals, counts (num_ret, ...) as whole numbers like trec_eval."""
    text = format_fixed(values, digits)
    if not any(results.counts):
        return text
    whole = np.asarray(results.counts, dtype=bool)[measure_idx]
    if not whole.any():
        return text
    mask = pc.cast(arrow_numbers(whole.astype(np.uint8)), pa.bool_())
    return pc.replace_with_mask(text, mask, format_fixed(values[whole], 0))


def write_tsv(
    results: Results, labels: list[str], per_query: bool, digits: int, out: TextIO
) -> None:
    """``MEASURE<TAB>QUERY<TAB>VALUE`` lines (``MODEL<TAB>`` first when there are several
    models), each block of lines built by arrow kernels and written as one buffer. A tab,
    newline, carriage return or backslash in a model name or query id is escaped
    (:func:`tsv_escaped`), so that each line holds one record."""
    if _line_count(results, per_query) <= PYTHON_LINES:
        out.write("".join(_python_lines(results, labels, per_query, digits)))
        return
    buffer = getattr(out, "buffer", None)
    if buffer is not None:
        out.flush()
    blocks = _line_blocks(results, labels, per_query, escape=True)
    for model, measure, query, value, measure_idx in blocks:
        if len(value) == 0:
            continue
        parts = [measure, query, _formatted(results, value, measure_idx, digits)]
        if len(results.models) > 1:
            parts.insert(0, model)
        lines = pc.binary_join_element_wise(*parts, arrow_text("\t"))
        lines = pc.binary_join_element_wise(lines, arrow_text(""), arrow_text("\n"))
        offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32)
        offsets = offsets[lines.offset : lines.offset + len(lines) + 1]
        chunk = memoryview(lines.buffers()[2])[int(offsets[0]) : int(offsets[-1])]
        if buffer is not None:
            buffer.write(chunk)
        else:
            out.write(bytes(chunk).decode("utf-8"))
    if buffer is not None:
        buffer.flush()


#: Up to this many lines, :func:`write_tsv` formats them in Python (no arrow kernels to load).
PYTHON_LINES = 20_000


def _line_count(results: Results, per_query: bool) -> int:
    """An upper bound of the lines :func:`write_tsv` writes."""
    return sum(
        values.shape[1] * (values.shape[0] * per_query + 1)
        for _, values, _ in results.models.values()
    )


def tsv_escaped_text(text: str) -> str:
    """One string as :func:`tsv_escaped` writes it."""
    for raw, escaped in TSV_ESCAPES:
        text = text.replace(raw, escaped)
    return text


def _python_lines(
    results: Results, labels: list[str], per_query: bool, digits: int
) -> Iterator[str]:
    """The lines of :func:`write_tsv`, formatted in Python: the same text, block by block as
    :func:`_line_blocks` gives them (the formatting of a block depends on all its values)."""
    counts = results.counts or [False] * len(labels)
    several = len(results.models) > 1
    for model, (lists, per_q, means) in results.models.items():
        prefix = tsv_escaped_text(model) + "\t" if several else ""
        blocks: list[list[tuple[int, str, float]]] = []  # (measure, query, value) per line
        if per_query and per_q.size:
            queries = [tsv_escaped_text(str(q)) for q in lists.query_ids.tolist()]
            blocks.append(
                [
                    (j, queries[q], v)
                    for q, row in enumerate(per_q.tolist())
                    for j, v in enumerate(row)
                    if v == v  # not NaN
                ]
            )
        blocks.append([(j, "all", v) for j, v in enumerate(means.tolist()) if v == v])
        for lines in blocks:
            texts = fixed_texts([v for _, _, v in lines], digits)
            whole = [i for i, (j, _, _) in enumerate(lines) if counts[j]]
            for i, text in zip(whole, fixed_texts([lines[i][2] for i in whole], 0)):
                texts[i] = text
            for (j, query, _), text in zip(lines, texts):
                yield f"{prefix}{labels[j]}\t{query}\t{text}\n"


def write_csv(results: Results, per_query: bool, digits: int, out: TextIO) -> None:
    """Comma-separated with a header row; text a spreadsheet would run as a formula is
    neutralised with a leading apostrophe (numbers stay numbers)."""
    import csv

    # deferred: metrics.io.export imports pandas, which TREC files are evaluated without
    from metrics.io.export import excel_safe_cell

    model, measure, query, value = _long_columns(results, results.names, per_query)
    text = format_fixed(value, digits).to_pylist()
    with_model = len(results.models) > 1
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow((["model"] if with_model else []) + ["measure", "query", "value"])
    for m, name, q, v in zip(model.to_pylist(), measure.to_pylist(), query.to_pylist(), text):
        row = [excel_safe_cell(name), excel_safe_cell(q), v]
        writer.writerow(([excel_safe_cell(m)] if with_model else []) + row)


def write_json(results: Results, per_query: bool, digits: int, out: TextIO) -> None:
    """One JSON document: settings, measures, and per model the query count, the means and
    (with ``per_query``) every query's values. Left-out values are ``null``."""
    import json  # deferred: only this output format needs it

    def number(v: float) -> float | None:
        return None if np.isnan(v) else round(float(v), digits)

    names = results.names
    doc: dict[str, Any] = {"settings": results.settings.to_dict(), "measures": names, "models": {}}
    for model, (lists, values, means) in results.models.items():
        entry: dict[str, Any] = {
            "queries": int(lists.n_queries),
            "all": {n: number(v) for n, v in zip(names, means.tolist())},
        }
        if per_query:
            entry["per_query"] = {
                str(q): {n: number(v) for n, v in zip(names, row)}
                for q, row in zip(lists.query_ids.tolist(), values.tolist())
            }
        doc["models"][model] = entry
    json.dump(doc, out, indent=1, ensure_ascii=False)
    out.write("\n")


# ====================================================================== per-query table
#: Suffixes of ``--per-query-out`` and the format each writes.
PER_QUERY_FORMATS = {".parquet": "Parquet", ".csv": "CSV"}


def check_per_query_path(path: str) -> None:
    """Refuse a ``--per-query-out`` path that cannot be written, before anything is computed:
    a suffix other than ``.parquet`` or ``.csv``, a folder, a folder that does not exist.

    Raises
    ------
    InputError
        Naming the path, the reason and the fix.
    """
    target = Path(path)
    if target.suffix.lower() not in PER_QUERY_FORMATS:
        ending = f"ends in {target.suffix!r}" if target.suffix else "has no suffix"
        raise InputError(
            "--per-query-out writes Parquet (.parquet) or CSV (.csv), chosen by the suffix; "
            f"this path {ending}.",
            source=path,
            fix="end the file name in .parquet (the app opens it) or .csv.",
        )
    if target.is_dir():
        raise InputError(
            "--per-query-out names a folder.", source=path, fix="give a file name in the folder."
        )
    if not target.parent.is_dir():
        state = "is not a folder" if target.parent.exists() else "does not exist"
        raise InputError(
            f"cannot write the per-query table: the folder {str(target.parent)!r} {state}.",
            source=path,
            fix="create the folder first, or write to an existing one.",
        )


def write_per_query(table: pd.DataFrame, path: str) -> None:
    """Write a per-query table (model, query, one column per measure) as Parquet or, for a
    ``.csv`` path, as CSV that is safe to open in a spreadsheet (text that would run as a
    formula starts with an apostrophe, :func:`metrics.io.export.excel_safe_cell`).

    Raises
    ------
    InputError
        When the path cannot be used or the file cannot be written (the reason named).
    """
    import pyarrow.parquet as pq

    # deferred: metrics.io.export imports pandas, which TREC files are evaluated without
    from metrics.io.export import write_csv as write_safe_csv

    check_per_query_path(path)
    table = table.copy()
    for name in (S.MODEL, S.QUERY):
        table[name] = table[name].astype(str)
    try:
        if Path(path).suffix.lower() == ".csv":
            write_safe_csv(table, path)
        else:
            pq.write_table(pa.Table.from_pandas(table, preserve_index=False), path)
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise InputError(
            f"cannot write the per-query table ({reason}).",
            source=path,
            fix="choose a path in a folder you can write to, on a disk with free space.",
        ) from None
