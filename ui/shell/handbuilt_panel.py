"""The hand-built lists editor of the Data page (Streamlit)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics.errors import InputError
from ui.shell import handbuilt as hb
from ui.shell import keys
from ui.shell.i18n import option_text, t
from ui.shell.safe import md_escape


def handbuilt_panel() -> None:
    """Edit the session's lists in a table; the result is stored as ``handbuilt_table``.

    Code (buttons, tests) may replace ``st.session_state[keys.HANDBUILT_TABLE]`` at any time: the
    editor notices the change and restarts from it.
    """
    table = hb.session_table()
    if hb.link_error():
        st.error(t(f"hand.link.bad.{hb.link_error()}"))
    fp = hb.fingerprint(table)
    if st.session_state.get(keys.HANDBUILT_SEEN) != fp:
        st.session_state[keys.HANDBUILT_NONCE] = st.session_state.get(keys.HANDBUILT_NONCE, 0) + 1
        st.session_state[keys.HANDBUILT_BASE] = table
    base = st.session_state[keys.HANDBUILT_BASE]
    scale = st.radio(
        t("hand.scale"),
        ["binary", "graded"],
        key=keys.W_HAND_SCALE,
        horizontal=True,
        format_func=option_text("hand.scale."),
    )
    st.caption(t("hand.help"))
    edited = st.data_editor(
        base,
        key=keys.hand_editor(st.session_state[keys.HANDBUILT_NONCE]),
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        column_config={
            "list": st.column_config.TextColumn(
                t("hand.col.list"), required=True, default="my_list", help=t("hand.col.list_help")
            ),
            "position": st.column_config.NumberColumn(
                t("hand.col.position"), min_value=1, step=1, help=t("hand.col.position_help")
            ),
            "item": st.column_config.TextColumn(t("hand.col.item"), required=True),
            "label": st.column_config.NumberColumn(
                t("hand.col.label"),
                min_value=0,
                max_value=1 if scale == "binary" else 10,
                step=1 if scale == "binary" else 0.5,
                default=0,
                help=t("hand.col.label_help"),
            ),
            "retrieved": st.column_config.CheckboxColumn(
                t("hand.col.retrieved"), default=True, help=t("hand.col.retrieved_help")
            ),
        },
    )
    edited = pd.DataFrame(edited)
    if hb.fingerprint(edited) != fp:
        st.session_state[keys.HANDBUILT_TABLE] = edited
        st.session_state[keys.HANDBUILT_SEEN] = hb.fingerprint(edited)
        st.rerun()  # the sidebar and the report show the edited lists
    st.session_state[keys.HANDBUILT_SEEN] = fp
    duplicates_note(edited)
    hb.sync_link()
    c1, c2, c3, c4 = st.columns(4)
    if c1.button(t("hand.sort"), key="btn_hand_sort", help=t("hand.sort_help")):
        _replace(hb.normalize(edited))
    if c2.button(t("hand.add_list"), key="btn_hand_add"):
        _replace(_with_new_list(hb.normalize(edited)))
    if c3.button(t("hand.reset"), key="btn_hand_reset"):
        _replace(hb.starter_table())
    c4.download_button(
        t("hand.download"),
        hb.csv_of(edited),
        f"{t('file.hand_built_lists')}.csv",
        "text/csv",
        key="dl_hand",
        on_click="ignore",
    )
    csv_import("up_hand_csv")


def duplicate_text(d: hb.Duplicate) -> str:
    """What became of an item typed more than once in a list, in the session's language: the
    list holds it once, at the rank of its best-ranked row."""
    kept = (
        t("hand.duplicate.kept", rank=d.rank)
        if d.rank is not None
        else t("hand.duplicate.kept_tray")
    )
    said = t("hand.duplicate", item=md_escape(d.item), list=md_escape(d.list), n=d.copies)
    return said + " " + kept


def duplicates_note(table: pd.DataFrame | None = None) -> None:
    """A note under the lists naming each item typed more than once in a list (of ``table``,
    the session's lists by default), what was kept and why."""
    for d in hb.duplicates(hb.session_table() if table is None else table):
        st.warning(duplicate_text(d), icon=":material/content_copy:")


def csv_import(key: str, after=None) -> None:
    """A CSV uploader that replaces the hand-built lists with the file's lists (then calls
    ``after``, if given)."""
    upload = st.file_uploader(t("hand.import"), type=["csv", "txt", "tsv"], key=key)
    if upload is None:
        return
    marker = (upload.name, upload.size)
    if st.session_state.get(keys.imported(key)) == marker:
        return
    try:
        table = hb.table_from_csv(upload.getvalue(), upload.name)
    except InputError as exc:
        st.error(t("hand.import_bad", problem=md_escape(str(exc))))
        return
    st.session_state[keys.imported(key)] = marker
    if after is not None:
        after()
    _replace(table)


def _replace(table: pd.DataFrame) -> None:
    st.session_state[keys.HANDBUILT_TABLE] = table
    st.rerun()


def _with_new_list(table: pd.DataFrame) -> pd.DataFrame:
    names = set(table["list"]) if len(table) else set()
    i = 2
    while f"list_{i}" in names:
        i += 1
    new = pd.DataFrame(
        {
            "list": [f"list_{i}"] * 3,
            "position": [1, 2, 3],
            "item": ["x", "y", "z"],
            "label": [0.0, 1.0, 0.0],
            "retrieved": [True] * 3,
        }
    )
    return pd.concat([table, new], ignore_index=True)
