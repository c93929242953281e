"""CSV that is safe to open in a spreadsheet.

A spreadsheet treats a cell that begins with ``=``, ``+``, ``-`` or ``@`` (and, in some versions,
a tab or carriage return) as a formula. Ids and labels come from uploaded files, so a query id
such as ``=HYPERLINK("http://evil", "x")`` would run as a formula when a colleague opens the
export ("CSV injection"). Every such *text* cell is prefixed with an apostrophe, which
spreadsheets show as plain text, and bidirectional control characters are shown as ``[U+202E]``
(:mod:`metrics.io.text_safety`). Real numbers stay numbers: numeric columns are never touched,
and a text cell that is exactly a number (``-0.25``, ``+3``, ``1e-5``) is left as it is.

Typical use::

    data = to_csv_bytes(table)              # bytes for st.download_button or a file
    safe = excel_safe_frame(table)          # the neutralised frame itself
"""

from __future__ import annotations

import math
import re
from numbers import Number

import numpy as np
import pandas as pd

from metrics.io.text_safety import visible

#: Characters that make a spreadsheet read a cell as a formula.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")

_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def excel_safe_cell(value: object) -> object:
    """One cell made safe: text beginning with a formula character gets a leading apostrophe.

    Parameters
    ----------
    value:
        Any cell value.

    Returns
    -------
    object
        ``value`` unchanged unless it is text that a spreadsheet would read as a formula; numbers
        (including negative ones, and text that is exactly a number) stay as they are.

    Examples
    --------
    >>> excel_safe_cell("=1+1"), excel_safe_cell("-0.5"), excel_safe_cell(-0.5)
    ("'=1+1", '-0.5', -0.5)
    >>> excel_safe_cell("-1+2")
    "'-1+2"
    """
    if value is None or isinstance(value, (bool, np.bool_, Number)):
        return value
    if not isinstance(value, str):
        return value
    value = visible(value)
    if value.startswith(FORMULA_PREFIXES) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def _is_text_column(series: pd.Series) -> bool:
    return not (
        pd.api.types.is_numeric_dtype(series)
        or pd.api.types.is_bool_dtype(series)
        or pd.api.types.is_datetime64_any_dtype(series)
    )


def excel_safe_frame(frame: pd.DataFrame, *, index: bool = False) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells and column names are safe in a spreadsheet.

    Parameters
    ----------
    frame:
        Any table.
    index:
        When true, the index becomes the first column(s) (and is neutralised too).

    Returns
    -------
    DataFrame
        Numeric columns keep their dtype; text (and mixed) columns become ``object`` columns of
        neutralised values; column names are neutralised as text.
    """
    out = frame.reset_index() if index else frame.copy()
    out.columns = [excel_safe_cell(str(c)) for c in out.columns]
    for position in range(out.shape[1]):
        column = out.iloc[:, position]
        if _is_text_column(column):
            values = [excel_safe_cell(v) if not _is_missing(v) else v for v in column.tolist()]
            out[out.columns[position]] = pd.Series(values, index=out.index, dtype=object)
    return out


def _is_missing(value: object) -> bool:
    if value is None or value is pd.NA:
        return True
    return isinstance(value, float) and math.isnan(value)


def to_csv_bytes(
    frame: pd.DataFrame, *, index: bool = False, bom: bool = True, float_format: str | None = None
) -> bytes:
    """UTF-8 CSV of ``frame`` made safe with :func:`excel_safe_frame`.

    Parameters
    ----------
    frame:
        The table to write.
    index:
        Write the index as the first column(s).
    bom:
        Start with a UTF-8 byte-order mark so that spreadsheets detect the encoding (accents,
        CJK text).
    float_format:
        Passed to :meth:`DataFrame.to_csv` (e.g. ``"%.6g"``); full precision when ``None``.

    Returns
    -------
    bytes
    """
    safe = excel_safe_frame(frame, index=index)
    text = safe.to_csv(index=False, float_format=float_format, lineterminator="\r\n")
    data: bytes = text.encode("utf-8-sig" if bom else "utf-8")
    return data


def write_csv(frame: pd.DataFrame, path: str, **options: object) -> None:
    """Write :func:`to_csv_bytes` of ``frame`` to ``path`` (options as for that function)."""
    with open(path, "wb") as handle:
        handle.write(to_csv_bytes(frame, **options))  # type: ignore[arg-type]


__all__ = ["FORMULA_PREFIXES", "excel_safe_cell", "excel_safe_frame", "to_csv_bytes", "write_csv"]
