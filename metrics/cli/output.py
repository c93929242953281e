"""Writing the command line's results: trec_eval-style TSV, CSV and JSON.

The TSV writer builds every line with arrow compute kernels and writes one buffer, so millions
of per-query lines cost a fraction of a second. Arrow arrays are made from numpy buffers directly:
``pa.array()`` would import pandas through pyarrow's pandas shim.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.engine.ranking import arrow_numbers
from metrics.engine.settings import Settings

#: trec_eval prints ``"%-22s\t%s\t%.4f"``: names are padded to 22 characters.
TREC_NAME_WIDTH = 22


def arrow_strings(texts: list[str]) -> pa.Array:
    """Python strings as an arrow string array (built from buffers)."""
    encoded = [t.encode("utf-8") for t in texts]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return pa.Array.from_buffers(
        pa.string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    )


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


class QueryLists(Protocol):
    """What the writers read of a model's lists: :class:`RankedLists`, or only its query ids
    (the Spark engine)."""

    @property
    def query_ids(self) -> np.ndarray: ...

    @property
    def n_queries(self) -> int: ...


@dataclass
class Results:
    """Values of one run of the command: per model, the lists, per-query values and means."""

    names: list[str]
    settings: Settings
    models: dict[str, tuple[QueryLists, np.ndarray, np.ndarray]] = field(default_factory=dict)
    #: Per measure, whether it is a count printed without decimals (trec_eval's num_ret, ...).
    counts: list[bool] = field(default_factory=list)


_BLOCK_LINES = 1 << 20


def _line_blocks(
    results: Results, labels: list[str], per_query: bool, block_lines: int = _BLOCK_LINES
) -> Iterator[tuple[pa.Array, pa.Array, pa.Array, np.ndarray, np.ndarray]]:
    """Model, measure, query and value of the output lines, in blocks of about ``block_lines``
    lines and in trec_eval's order: per query all measures (query-major), then the means under
    the query ``all``. Left-out (``NaN``) values have no line. The last item of each block is
    the index of each line's measure."""
    label_arr = arrow_strings(labels)

    def block(
        model: str,
        query_arr: pa.Array,
        measure_idx: np.ndarray,
        query_idx: np.ndarray,
        values: np.ndarray,
    ) -> tuple[pa.Array, pa.Array, pa.Array, np.ndarray, np.ndarray]:
        models = pc.take(arrow_strings([model]), arrow_numbers(np.zeros(len(values), np.int64)))
        return (
            models,
            pc.take(label_arr, arrow_numbers(measure_idx)),
            pc.take(query_arr, arrow_numbers(query_idx)),
            values,
            measure_idx,
        )

    for model, (lists, per_q, means) in results.models.items():
        query_arr = arrow_strings([str(q) for q in lists.query_ids.tolist()] + ["all"])
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
    models), each block of lines built by arrow kernels and written as one buffer."""
    buffer = getattr(out, "buffer", None)
    if buffer is not None:
        out.flush()
    for model, measure, query, value, measure_idx in _line_blocks(results, labels, per_query):
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


def write_csv(results: Results, per_query: bool, digits: int, out: TextIO) -> None:
    """Comma-separated with a header row; text a spreadsheet would run as a formula is
    neutralised with a leading apostrophe (numbers stay numbers)."""
    import csv

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
