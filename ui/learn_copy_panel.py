"""The editable ordering B of the Learn page (Streamlit); the pure part is :mod:`ui.learn_copy`."""

from __future__ import annotations

import hashlib

import pandas as pd
import streamlit as st

from ui import learn_copy as lc
from ui.i18n import t
from ui.learn import RankedList
from ui.safe import md_escape

COPY_KEY = "learn_copy_table"
_ORIGIN_KEY = "learn_copy_origin"
_VALID_KEY = "learn_copy_valid"
_BASE_KEY = "learn_copy_base"
_SEEN_KEY = "learn_copy_seen"
_NONCE_KEY = "learn_copy_nonce"


def _origin(source: str, rl: RankedList) -> str:
    content = repr((source, rl.name, rl.items, rl.labels, rl.unretrieved)).encode()
    return hashlib.sha256(content).hexdigest()[:16]


def _replace(table: pd.DataFrame) -> None:
    st.session_state[COPY_KEY] = table
    st.rerun()


def _editor_frame(table: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, bool]]:
    """The table with the three columns; a column that is not numeric is shown as text."""
    df = pd.DataFrame(
        {
            c: table[c] if c in table.columns else pd.Series([None] * len(table), dtype="object")
            for c in lc.COLUMNS
        }
    )
    numeric = {}
    for c in ("position", "label"):
        numeric[c] = pd.api.types.is_numeric_dtype(df[c])
        if not numeric[c]:
            df[c] = df[c].map(lambda v: None if lc._blank(v) else str(v)).astype("object")
    df["item"] = df["item"].map(lambda v: None if lc._blank(v) else str(v)).astype("object")
    return df.reset_index(drop=True), numeric


def _problem_text(p: lc.CopyProblem) -> str:
    rows = " & ".join(str(r) for r in p.rows)
    return t(f"learn.copy.bad.{p.kind}", rows=rows, value=md_escape(p.value))


def copy_panel(chosen: RankedList, source: str) -> RankedList:
    """Show the editable copy of ``chosen`` with its swap and reset actions.

    Returns the copy as a ranked list, or the last valid copy (with a warning naming the bad
    rows) when the edited table cannot be evaluated. The table is ``st.session_state
    ["learn_copy_table"]``: code and tests may replace it, the editor follows.
    """
    state = st.session_state
    origin = _origin(source, chosen)
    if state.get(_ORIGIN_KEY) != origin or COPY_KEY not in state:
        state[COPY_KEY] = lc.copy_table(chosen)
        state[_ORIGIN_KEY] = origin
        state[_VALID_KEY] = chosen
    table = pd.DataFrame(state[COPY_KEY])
    fp = lc.fingerprint(table)
    if state.get(_SEEN_KEY) != fp or _BASE_KEY not in state:
        state[_NONCE_KEY] = state.get(_NONCE_KEY, 0) + 1
        state[_BASE_KEY] = _editor_frame(table)
    base, numeric = state[_BASE_KEY]

    def number_column(name: str, **kwargs):
        if numeric[name]:
            return st.column_config.NumberColumn(t(f"learn.copy.col.{name}"), **kwargs)
        return st.column_config.TextColumn(t(f"learn.copy.col.{name}"))

    st.caption(t("learn.copy.help"))
    edited = st.data_editor(
        base,
        key=f"learn_copy_editor_{state[_NONCE_KEY]}",
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        column_config={
            "position": number_column(
                "position", min_value=1, step=1, format="%d", help=t("learn.copy.col.position_help")
            ),
            "item": st.column_config.TextColumn(t("learn.copy.col.item")),
            "label": number_column("label", min_value=0, help=t("learn.copy.col.label_help")),
        },
    )
    edited = pd.DataFrame(edited).reset_index(drop=True)
    if lc.fingerprint(edited) not in (lc.fingerprint(base), fp):
        state[COPY_KEY] = edited
        state[_SEEN_KEY] = lc.fingerprint(edited)
        st.rerun()  # the comparison below reads the edited copy
    state[_SEEN_KEY] = fp

    problems = lc.check_copy(table)
    if problems:
        st.warning("\n\n".join([t("learn.copy.bad"), *map(_problem_text, problems)]))
        copy = state.get(_VALID_KEY, chosen)
    else:
        copy = lc.list_of_copy(table, chosen)
        state[_VALID_KEY] = copy
    st.text(t("learn.copy.order", items=" › ".join(copy.items)))

    n = max(len(copy.items), 1)
    for key in ("w_learn_swap_a", "w_learn_swap_b"):
        if key in state and not 1 <= int(state[key]) <= n:
            state[key] = min(max(int(state[key]), 1), n)
    s1, s2 = st.columns(2)
    i = s1.number_input(t("learn.swap_a"), 1, n, value=1, key="w_learn_swap_a")
    j = s2.number_input(t("learn.swap_b"), 1, n, value=min(2, n), key="w_learn_swap_b")
    b1, b2 = st.columns(2)
    if b1.button(t("learn.copy.swap"), key="btn_learn_swap", help=t("learn.copy.swap_help")):
        _replace(lc.swap_in(copy, int(i), int(j)))
    if b2.button(
        t("learn.copy.reset"), key="btn_learn_copy_reset", help=t("learn.copy.reset_help")
    ):
        _replace(lc.copy_table(chosen))
    return copy
