"""Pure table builders: cutoff tables, quartiles, Excel-safe CSV."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

from metrics.io.export import to_csv_bytes


def fingerprint(table: pd.DataFrame) -> str:
    """A short hash of a table's content and column names (to notice edits of an editable
    table)."""
    values = pd.util.hash_pandas_object(table.astype(str), index=False).to_numpy()
    return hashlib.sha256(values.tobytes() + repr(list(table.columns)).encode()).hexdigest()[:16]


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """Excel-safe CSV (UTF-8 with a byte order mark), see :func:`metrics.io.export.to_csv_bytes`."""
    return to_csv_bytes(frame)


def wide_cutoff_table(long: pd.DataFrame, models: list[str]) -> pd.DataFrame:
    """Models as rows, ``measure@K`` as columns, from :func:`ui.compute.cutoff_table`'s output."""
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
