"""Hand-built ranked lists: a small editable table that becomes a data set like any other.

The table has one row per item: ``list`` (the list's name, its query id), ``position``
(1 is the top; the editor cannot drag rows, so reorder by editing positions), ``item``,
``label`` (0/1 or a grade; empty = unjudged) and ``retrieved`` (unticked: a judged item the list
did not retrieve, which counts for recall and the ideal DCG). It lives in the browser session
(``st.session_state``) and in the link (``?list=``, see :mod:`ui.shell.handbuilt_list`), so a reload
or a shared link shows the same lists. The Learn page edits the same lists
(:func:`lists_of_table` / :func:`table_of_lists` convert).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from metrics.errors import InputError
from metrics.io.dataset import Dataset
from metrics.io.export import to_csv_bytes
from metrics.io.findings import MAX_EXAMPLES, DataHealth, Finding, typed_duplicates_finding
from metrics.io.loaders import load_dataset, load_table
from metrics.io.names import ITEM_NAMES, QUERY_NAMES
from ui.shell import keys
from ui.shell.handbuilt_list import (
    TABLE_COLUMNS,
    LinkError,
    RankedList,
    decode_lists,
    encode_lists,
    lists_of_table,
    table_of_lists,
)

LINK_PARAM = "list"
COLUMNS = TABLE_COLUMNS
MODEL_NAME = "hand_built"


def fingerprint(table: pd.DataFrame) -> str:
    """A short hash of a table's content and column names (to notice edits of an editable
    table)."""
    values = pd.util.hash_pandas_object(table.astype(str), index=False).to_numpy()
    return hashlib.sha256(values.tobytes() + repr(list(table.columns)).encode()).hexdigest()[:16]


def starter_table() -> pd.DataFrame:
    """The first hand-built list: relevant at 1, 3 and 4 of five (P@5 = 0.6)."""
    return pd.DataFrame(
        {
            "list": ["my_list"] * 5,
            "position": [1, 2, 3, 4, 5],
            "item": ["a", "b", "c", "d", "e"],
            "label": [1.0, 0.0, 1.0, 1.0, 0.0],
            "retrieved": [True] * 5,
        }
    )


def normalize(table: pd.DataFrame) -> pd.DataFrame:
    """Clean an edited table: drop empty rows, fill positions, sort each list by position.

    Rows without an item are dropped; missing positions go after the last one; a missing label
    means unjudged (NaN), negative labels become 0; a missing list name is ``my_list``; a missing
    ``retrieved`` is true. Positions are renumbered 1..n per list in the order given (ties keep
    table order); rows not retrieved follow their list's ranked rows, without a position. An
    item given twice in a list keeps its best-ranked row (a retrieved one before one not
    retrieved; the first of equal positions), as the engine keeps the best-ranked copy of a
    repeated item: :func:`duplicates` says which.
    """
    df = _sorted_rows(table)
    df = df.drop_duplicates(["list", "item"], keep="first")
    df["position"] = df.groupby(["list", "_tray"], sort=False).cumcount() + 1
    lists = pd.unique(table["list"].dropna().astype(str).str.strip()) if "list" in table else []
    order = {name: i for i, name in enumerate(lists)}
    df["_list_order"] = df["list"].map(order).fillna(len(order))
    df = df.sort_values(["_list_order", "_tray", "position"], kind="stable")
    df["position"] = pd.array(df["position"].where(df["retrieved"]), dtype="Int64")
    return df[list(COLUMNS)].reset_index(drop=True)


def _sorted_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The table's rows with an item, cleaned, in rank order within each list (the retrieved
    rows by position, then table order; then the rows not retrieved), with ``_order`` (the row
    in the table, from 0) and ``_tray``; repeated items still there."""
    df = pd.DataFrame({c: table[c] if c in table.columns else None for c in COLUMNS})
    df["_order"] = np.arange(len(df))
    df["item"] = df["item"].astype("object").where(df["item"].notna(), "")
    df["item"] = df["item"].astype(str).str.strip()
    df = df[df["item"] != ""].copy()
    df["list"] = df["list"].astype("object").where(df["list"].notna(), "my_list").astype(str)
    df["list"] = df["list"].str.strip()
    df.loc[df["list"] == "", "list"] = "my_list"
    df["label"] = pd.to_numeric(df["label"], errors="coerce").clip(lower=0).astype(float)
    df["retrieved"] = [_truth(v) for v in df["retrieved"]]
    position = pd.to_numeric(df["position"].astype("object"), errors="coerce")
    df["position"] = position.astype(float).fillna(np.inf)
    df["_tray"] = ~df["retrieved"]
    return df.sort_values(["list", "_tray", "position", "_order"], kind="stable")


@dataclass(frozen=True)
class Duplicate:
    """An item typed more than once in one list of the hand-built table.

    Attributes
    ----------
    list, item:
        Where.
    copies:
        How many rows hold it.
    rank:
        The rank of the row kept, the best-ranked one (see :func:`normalize`); ``None`` when
        that row is not retrieved. The other rows are left out.
    """

    list: str
    item: str
    copies: int
    rank: int | None


def duplicates(table: pd.DataFrame) -> list[Duplicate]:
    """Every item typed more than once in a list of ``table``, with the rank of the row
    :func:`normalize` keeps, in the order the items first appear in the table."""
    df = _sorted_rows(table)
    repeated = df[df.duplicated(["list", "item"], keep=False)]
    if repeated.empty:
        return []
    clean = normalize(table).set_index(["list", "item"])["position"]
    out = []
    for (name, item), group in repeated.groupby(["list", "item"], sort=False):
        rank = clean.get((name, item))
        kept = None if rank is None or rank is pd.NA else int(rank)
        out.append((int(group["_order"].min()), Duplicate(str(name), str(item), len(group), kept)))
    return [d for _, d in sorted(out, key=lambda pair: pair[0])]


def _truth(value: object) -> bool:
    """``retrieved`` cell as a bool: empty means retrieved; 0/false/no mean not retrieved."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return True
    if isinstance(value, str):
        return value.strip().lower() not in ("0", "false", "no", "n", "f")
    return bool(value)


def lists_of(table: pd.DataFrame) -> list[RankedList]:
    """The table's lists in the shared model (:class:`ui.shell.handbuilt_list.RankedList`)."""
    return lists_of_table(normalize(table))


def table_of(lists: list[RankedList]) -> pd.DataFrame:
    """The lists as the Data page's table."""
    return table_of_lists(lists)


def csv_of(table: pd.DataFrame) -> bytes:
    """The lists as CSV (``query,item,rank,label``), read back by :func:`table_from_csv`.

    An item not retrieved has an empty rank; an unjudged item has an empty label.
    """
    df = normalize(table)
    out = pd.DataFrame(
        {
            "query": df["list"],
            "item": df["item"],
            "rank": df["position"].map(lambda v: "" if v is pd.NA else str(int(v))),
            "label": df["label"].map(lambda v: "" if v != v else f"{v:g}"),
        }
    )
    return to_csv_bytes(out, bom=False)


def table_from_csv(data: bytes, name: str = "lists.csv") -> pd.DataFrame:
    """Hand-built lists read from a CSV written by :func:`csv_of` (or any table with a query
    or list column, an item column, and optional rank/position and label columns).

    Raises
    ------
    metrics.errors.InputError
        When the file cannot be read or lacks an item column.
    """
    loaded = load_table(data, name)
    df = loaded.frame
    cols = {str(c).strip().lower(): c for c in df.columns}

    def pick(*names: str) -> str | None:
        return next((cols[n] for n in names if n in cols), None)

    item = pick(*ITEM_NAMES)
    if item is None:
        raise InputError(
            "the file has no item column.",
            source=name,
            fix="use the columns query, item, rank, label (as 'Download as CSV' writes them).",
        )
    lst, rank, label = pick("query", "list", *QUERY_NAMES), pick("rank", "position"), pick("label")
    items = df[item].astype(str).map(_unprotect)
    ranks = pd.to_numeric(df[rank], errors="coerce") if rank else pd.Series(range(1, len(df) + 1))
    table = pd.DataFrame(
        {
            "list": df[lst].astype(str).map(_unprotect) if lst else "my_list",
            "position": ranks.to_numpy(),
            "item": items.to_numpy(),
            "label": pd.to_numeric(df[label], errors="coerce").to_numpy() if label else 0.0,
            "retrieved": ranks.notna().to_numpy(),
        }
    )
    out = normalize(table)
    if out.empty:
        raise InputError("the file has no list with an item.", source=name)
    return out


def _unprotect(text: str) -> str:
    """Undo the quote that CSV export puts before formula-like text (``'=x`` → ``=x``)."""
    return text[1:] if len(text) > 1 and text[0] == "'" and text[1] in "=+-@" else text


def to_dataset(table: pd.DataFrame, name: str = "hand-built lists") -> Dataset:
    """Build a :class:`Dataset` from the lists, through the ordinary loaders.

    Raises
    ------
    metrics.errors.InputError
        When the table has no row with an item.
    """
    df = normalize(table)
    csv = csv_of(df)
    ranked = df["position"].dropna()
    loaded = load_table(csv, f"{MODEL_NAME}.csv")
    dataset = load_dataset(
        [loaded],
        name=name,
        mappings={
            loaded.name: {"query": "query", "item": "item", "rank": "rank", "label": "label"}
        },
        k_max=int(ranked.max()) if len(ranked) else 1,
    )
    # lists built by hand are ranked by their positions by nature: the remark that the
    # (made-up) run file has ranks but no scores tells the builder nothing
    kept = [f for f in dataset.health.findings if f.code != "score_from_rank"]
    return replace(dataset, health=DataHealth(duplicates_findings(table) + kept))


def duplicates_findings(table: pd.DataFrame) -> list[Finding]:
    """The data's health on items typed more than once in a list (see :func:`duplicates`):
    what was kept (the best-ranked row) and why (a list holds an item once)."""
    found = duplicates(table)
    if not found:
        return []
    examples = tuple(
        {"query": d.list, "item": d.item}
        if d.rank is None
        else {"query": d.list, "item": d.item, "rank": d.rank}
        for d in found[:MAX_EXAMPLES]
    )
    return [typed_duplicates_finding(len(found), examples)]


def session_table() -> pd.DataFrame:
    """The session's hand-built table: from the link (``?list=``) on first use, else the starter
    list. A link that cannot be read leaves the starter list and a message (see
    :func:`link_error`)."""
    import streamlit as st

    if keys.HANDBUILT_TABLE not in st.session_state:
        table = starter_table()
        text = st.query_params.get(LINK_PARAM)
        if text:
            try:
                table = table_of_lists(decode_lists(text)[0])
            except LinkError as exc:
                st.session_state[keys.HANDBUILT_LINK_ERROR] = exc.kind
        st.session_state[keys.HANDBUILT_TABLE] = table
    return st.session_state[keys.HANDBUILT_TABLE]


def session_lists() -> list[RankedList]:
    """The session's hand-built lists in the shared model (worked out once per table)."""
    import streamlit as st

    table = session_table()
    cached = st.session_state.get(keys.HANDBUILT_LISTS)
    if cached is None or cached[0] is not table:
        cached = (table, lists_of(table))
        st.session_state[keys.HANDBUILT_LISTS] = cached
    return cached[1]


def as_read_back(lists: list[RankedList]) -> list[RankedList]:
    """``lists`` as :func:`lists_of` reads them back from their table, for lists that are
    already clean (the session's lists edited by :class:`~ui.shell.handbuilt_list.RankedList`'s
    operations): no scores, unjudged items of the tray dropped, the default K of a table."""
    return [
        RankedList(
            rl.name,
            rl.items,
            rl.labels,
            tuple((item, label) for item, label in rl.unretrieved if label == label),
            default_k=max(1, min(5, len(rl.items))),
        )
        for rl in lists
    ]


def store_edited_lists(lists: list[RankedList]) -> None:
    """Make ``lists`` the session's hand-built lists: the session's own lists with one changed
    by :class:`~ui.shell.handbuilt_list.RankedList`'s operations, so already clean; the table is
    not read again (:func:`normalize` costs more than the rest of a Learn redraw)."""
    import streamlit as st

    table = table_of(lists)
    st.session_state[keys.HANDBUILT_TABLE] = table
    st.session_state[keys.HANDBUILT_LISTS] = (table, as_read_back(lists))


def link_error() -> str | None:
    """The kind of problem of the list link this session was opened with (or ``None``)."""
    import streamlit as st

    return st.session_state.get(keys.HANDBUILT_LINK_ERROR)


def link_of(table: pd.DataFrame, k: int | None = None) -> str:
    """The ``?list=`` text of the table's lists."""
    return encode_lists(lists_of(table), k)


def sync_link(k: int | None = None) -> None:
    """Write the session's hand-built lists into the link (``?list=``)."""
    import streamlit as st

    try:
        text = encode_lists(session_lists(), k)
    except (InputError, ValueError):
        return
    if st.query_params.get(LINK_PARAM) != text:
        st.query_params[LINK_PARAM] = text


def session_dataset() -> Dataset | None:
    """The session's hand-built lists as a data set (rebuilt only when the table changed)."""
    import streamlit as st

    table = session_table()
    key = fingerprint(table)
    cached = st.session_state.get(keys.HANDBUILT_DATASET)
    if cached is not None and cached[0] == key:
        return cached[1]
    try:
        dataset = to_dataset(table)
    except InputError:
        dataset = None
    st.session_state[keys.HANDBUILT_DATASET] = (key, dataset)
    return dataset
