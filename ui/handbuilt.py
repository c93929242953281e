"""Hand-built ranked lists: a small editable table that becomes a data set like any other.

The table has one row per ranked item: ``list`` (the list's name, its query id), ``position``
(1 is the top; the editor cannot drag rows, so reorder by editing positions), ``item`` and
``label`` (0/1 or a grade). It lives only in the browser session (``st.session_state``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from metrics.io.export import to_csv_bytes
from metrics.io.loaders import Dataset, load_dataset, load_table
from ui.tables import fingerprint

TABLE_KEY = "handbuilt_table"
_DATASET_KEY = "handbuilt_dataset"
COLUMNS = ("list", "position", "item", "label")
MODEL_NAME = "hand_built"


def starter_table() -> pd.DataFrame:
    """The first hand-built list: relevant at 1, 3 and 4 of five (P@5 = 0.6)."""
    return pd.DataFrame(
        {
            "list": ["my_list"] * 5,
            "position": [1, 2, 3, 4, 5],
            "item": ["a", "b", "c", "d", "e"],
            "label": [1.0, 0.0, 1.0, 1.0, 0.0],
        }
    )


def normalize(table: pd.DataFrame) -> pd.DataFrame:
    """Clean an edited table: drop empty rows, fill positions, sort each list by position.

    Rows without an item are dropped; missing positions go after the last one; missing labels
    are 0; a missing list name is ``my_list``. Positions are renumbered 1..n per list in the
    order given (ties keep table order).
    """
    df = pd.DataFrame({c: table[c] if c in table.columns else None for c in COLUMNS})
    df["item"] = df["item"].astype("object").where(df["item"].notna(), "")
    df["item"] = df["item"].astype(str).str.strip()
    df = df[df["item"] != ""].copy()
    df["list"] = df["list"].astype("object").where(df["list"].notna(), "my_list").astype(str)
    df.loc[df["list"].str.strip() == "", "list"] = "my_list"
    df["label"] = pd.to_numeric(df["label"], errors="coerce").fillna(0.0).clip(lower=0)
    position = pd.to_numeric(df["position"], errors="coerce")
    df["position"] = position.fillna(np.inf)
    df["_order"] = np.arange(len(df))
    df = df.sort_values(["list", "position", "_order"], kind="stable")
    df["position"] = df.groupby("list", sort=False).cumcount() + 1
    lists = pd.unique(table["list"].dropna().astype(str)) if "list" in table.columns else []
    order = {name: i for i, name in enumerate(lists)}
    df["_list_order"] = df["list"].map(order).fillna(len(order))
    df = df.sort_values(["_list_order", "position"], kind="stable")
    return df[list(COLUMNS)].reset_index(drop=True)


def csv_of(table: pd.DataFrame) -> bytes:
    """The lists as CSV (``query,item,rank,label``), readable by
    :func:`metrics.io.loaders.load_table`."""
    df = normalize(table)
    out = pd.DataFrame(
        {
            "query": df["list"],
            "item": df["item"],
            "rank": df["position"],
            "label": df["label"].map(lambda v: f"{v:g}"),
        }
    )
    return to_csv_bytes(out, bom=False)


def to_dataset(table: pd.DataFrame, name: str = "hand-built lists") -> Dataset:
    """Build a :class:`Dataset` from the lists, through the ordinary loaders.

    Raises
    ------
    metrics.errors.InputError
        When the table has no row with an item.
    """
    df = normalize(table)
    csv = (
        pd.DataFrame(
            {"query": df["list"], "item": df["item"], "rank": df["position"], "label": df["label"]}
        )
        .to_csv(index=False)
        .encode("utf-8")
    )
    loaded = load_table(csv, f"{MODEL_NAME}.csv")
    return load_dataset(
        [loaded],
        name=name,
        mappings={
            loaded.name: {"query": "query", "item": "item", "rank": "rank", "label": "label"}
        },
        k_max=int(df["position"].max()) if len(df) else 1,
    )


def session_table() -> pd.DataFrame:
    """The session's hand-built table (the starter list on first use)."""
    import streamlit as st

    if TABLE_KEY not in st.session_state:
        st.session_state[TABLE_KEY] = starter_table()
    return st.session_state[TABLE_KEY]


def session_dataset() -> Dataset | None:
    """The session's hand-built lists as a data set (rebuilt only when the table changed)."""
    import streamlit as st

    from metrics.errors import InputError

    table = session_table()
    key = fingerprint(table)
    cached = st.session_state.get(_DATASET_KEY)
    if cached is not None and cached[0] == key:
        return cached[1]
    try:
        dataset = to_dataset(table)
    except InputError:
        dataset = None
    st.session_state[_DATASET_KEY] = (key, dataset)
    return dataset
