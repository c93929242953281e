"""Pure table builders: cutoff tables, quartiles, Excel-safe CSV.

Tables are built with the engine's column names (``model``, ``measure``, ``mean``, ...), so code
and tests can read them; :func:`translated` renames the columns for display and downloads.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from metrics.io.export import to_csv_bytes

#: Columns of :func:`quartile_table` holding values of the measure (not counts).
QUARTILE_COLUMNS = ("mean", "q1", "median", "q3", "min", "max")
#: Columns that :func:`translated` renames through ``column.<name>`` catalog keys.
TRANSLATED_COLUMNS = (
    *("query", "item", "score", "rank", "model", "relevance", "n", "measure", "k", "value", "std"),
    *QUARTILE_COLUMNS,
)


def translated(frame: pd.DataFrame, t: Callable[[str], str]) -> pd.DataFrame:
    """``frame`` with its engine column names (and index name) in the language of ``t``.

    Other columns (``P@10``, segment columns named by the user) keep their names.
    """
    names = {c: t(f"column.{c}") for c in frame.columns if c in TRANSLATED_COLUMNS}
    out = frame.rename(columns=names)
    if out.index.name in TRANSLATED_COLUMNS:
        out.index.name = t(f"column.{out.index.name}")
    return out


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """Excel-safe CSV (UTF-8 with a byte order mark), see :func:`metrics.io.export.to_csv_bytes`."""
    return to_csv_bytes(frame)


def wide_cutoff_table(long: pd.DataFrame, models: list[str]) -> pd.DataFrame:
    """Models as rows, ``measure@K`` as columns, from :func:`ui.shell.compute.cutoff_table`'s
    output."""
    if long.empty:
        return pd.DataFrame(index=pd.Index(models, name="model"))
    wide = long.pivot(index="model", columns="measure", values="value")
    order = list(pd.unique(long["measure"]))
    return wide.reindex(index=[m for m in models if m in wide.index], columns=order)


def quartile_table(values: dict[str, np.ndarray]) -> pd.DataFrame:
    """Per model: n, mean, q1, median, q3, min, max of per-query values (NaN left out)."""
    rows = []
    for model, v in values.items():
        v = np.asarray(v, dtype=float)
        v = v[~np.isnan(v)]
        if len(v):
            q1, med, q3 = np.percentile(v, [25, 50, 75])
            rows.append(
                {
                    "model": model,
                    "n": len(v),
                    "mean": v.mean(),
                    "q1": q1,
                    "median": med,
                    "q3": q3,
                    "min": v.min(),
                    "max": v.max(),
                }
            )
        else:
            rows.append({"model": model, "n": 0})
    return pd.DataFrame(rows, columns=["model", "n", "mean", "q1", "median", "q3", "min", "max"])
