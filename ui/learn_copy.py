"""The editable second ordering of the Learn page: a copy of the chosen list as a small table.

The copy has one row per item: ``position`` (rows are ordered by it, ties keep table order,
an empty position goes last), ``item`` (text, once per list) and ``label`` (a number of 0 or
more; empty means unjudged). Items judged but not retrieved by the chosen list stay judged in
the copy unless the copy ranks them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ui.learn import RankedList
from ui.tables import fingerprint

COLUMNS = ("position", "item", "label")


@dataclass(frozen=True)
class CopyProblem:
    """One bad row of the copy: ``kind`` is ``empty_item``, ``label``, ``position`` or
    ``duplicate``; ``rows`` are 1-based row numbers as shown in the editor."""

    kind: str
    rows: tuple[int, ...]
    value: str = ""


def copy_table(rl: RankedList) -> pd.DataFrame:
    """The chosen list as an editable table: positions 1..n, items, labels."""
    return pd.DataFrame(
        {
            "position": np.arange(1, len(rl.items) + 1, dtype="int64"),
            "item": pd.Series(rl.items, dtype="object"),
            "label": np.asarray(rl.labels, dtype=float),
        }
    )


def _blank(value: object) -> bool:
    return (
        value is None
        or (isinstance(value, float) and np.isnan(value))
        or value is pd.NA
        or (isinstance(value, str) and not value.strip())
    )


def _number(value: object) -> float | None:
    """``value`` as a float, NaN when blank, ``None`` when it is not a number."""
    if _blank(value):
        return float("nan")
    if isinstance(value, bool):
        return None
    if not isinstance(value, (str, int, float, np.number)):
        return None
    try:
        return float(value.strip()) if isinstance(value, str) else float(value)
    except ValueError:
        return None


def _rows(table: pd.DataFrame) -> list[tuple[int, object, object, object]]:
    """``(row number, position, item, label)`` of the rows that are not entirely blank."""
    cols = {c: (list(table[c]) if c in table.columns else [None] * len(table)) for c in COLUMNS}
    out = []
    for i, (p, it, lab) in enumerate(zip(cols["position"], cols["item"], cols["label"])):
        if not (_blank(p) and _blank(it) and _blank(lab)):
            out.append((i + 1, p, it, lab))
    return out


def check_copy(table: pd.DataFrame) -> list[CopyProblem]:
    """The bad rows of an edited copy (empty list when it can be evaluated).

    Entirely blank rows (a row just added in the editor) are ignored.
    """
    problems: list[CopyProblem] = []
    seen: dict[str, int] = {}
    for row, position, item, label in _rows(table):
        if _blank(item):
            problems.append(CopyProblem("empty_item", (row,)))
        else:
            name = str(item).strip()
            if name in seen:
                problems.append(CopyProblem("duplicate", (seen[name], row), name))
            else:
                seen[name] = row
        value = _number(label)
        if value is None or value < 0:
            problems.append(CopyProblem("label", (row,), str(label)))
        pos = _number(position)
        if pos is None or np.isinf(pos):
            problems.append(CopyProblem("position", (row,), str(position)))
    return sorted(problems, key=lambda p: p.rows[-1])


def list_of_copy(table: pd.DataFrame, original: RankedList) -> RankedList:
    """The copy as a ranked list, ordered by position (ties and blanks keep table order).

    The table must have passed :func:`check_copy`. Judged-but-unretrieved items of
    ``original`` stay, except those the copy now ranks.
    """
    rows = _rows(table)
    keyed = []
    for order, (_, position, item, label) in enumerate(rows):
        pos = _number(position)
        keyed.append(
            (
                np.inf if pos is None or np.isnan(pos) else pos,
                order,
                str(item).strip(),
                _number(label),
            )
        )
    keyed.sort(key=lambda r: (r[0], r[1]))
    items = tuple(r[2] for r in keyed)
    ranked = set(items)
    return replace(
        original,
        name=f"{original.name} (B)",
        items=items,
        labels=tuple(float("nan") if r[3] is None else r[3] for r in keyed),
        unretrieved=tuple(u for u in original.unretrieved if u[0] not in ranked),
    )


def swap_in(rl: RankedList, i: int, j: int) -> pd.DataFrame:
    """The copy table of ``rl`` with ranks ``i`` and ``j`` (1-based) exchanged."""
    n = len(rl.items)
    if not (1 <= i <= n and 1 <= j <= n):
        return copy_table(rl)
    return copy_table(rl.swapped(i, j))


__all__ = [
    "COLUMNS",
    "CopyProblem",
    "check_copy",
    "copy_table",
    "fingerprint",
    "list_of_copy",
    "swap_in",
]
