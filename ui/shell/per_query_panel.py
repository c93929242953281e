"""The per-query results section of the Data page: one table of per-query values opens as the
session's data set (Curves at the computed K, Compare and Segments; no ranked lists).

The uploaded file and the data set built from it stay in ``st.session_state`` of this browser
session only; nothing is written to disk.
"""

from __future__ import annotations

import streamlit as st

from metrics.errors import InputError
from metrics.io.formats import load_table
from metrics.io.per_query import PerQueryDataset, per_query_dataset
from ui.shell import keys
from ui.shell.i18n import t
from ui.shell.safe import md_escape


def per_query_panel() -> PerQueryDataset | None:
    """Upload a per-query table; returns the session's per-query data set, if any."""
    st.caption(t("perquery.intro"))
    upload = st.file_uploader(t("perquery.file"), key="up_per_query", help=t("perquery.file_help"))
    if upload is not None:
        key = (upload.name, upload.size)
        if st.session_state.get(keys.PER_QUERY_KEY) != key:
            try:
                data: PerQueryDataset | None = per_query_dataset(
                    load_table(upload.getvalue(), upload.name), upload.name
                )
            except InputError as exc:
                st.error(t("upload.error", message=md_escape(exc)))
                st.session_state.pop(keys.PER_QUERY_DATASET, None)
                return None
            st.session_state[keys.PER_QUERY_DATASET] = data
            st.session_state[keys.PER_QUERY_KEY] = key
            st.rerun()  # the sidebar shows the new data set
    data = st.session_state.get(keys.PER_QUERY_DATASET)
    if data is None:
        st.info(t("perquery.empty"))
        return None
    show_per_query(data)
    return data


def show_per_query(data: PerQueryDataset, rows: int = 20) -> None:
    """What the table holds, what the pages can show of it, and its first rows (as text)."""
    st.subheader(t("perquery.summary_title"))
    st.markdown(
        t(
            "perquery.summary",
            models=len(data.models),
            queries=f"{data.per_query['query'].nunique():,}",
            measures=len(data.measures),
        )
    )
    st.text(", ".join(data.measure_names))
    if data.segment_columns:
        st.caption(t("perquery.segments", columns=md_escape(", ".join(data.segment_columns))))
    st.info(t("perquery.no_lists"))
    st.dataframe(data.per_query.head(rows), hide_index=True, width="stretch")


def require_lists(dataset: object, key: str) -> None:
    """Stop the page with a plain message when ``dataset`` has per-query values only."""
    from ui.shell.per_query_data import is_per_query

    if is_per_query(dataset):
        st.info(t(key))
        st.stop()


def measures_at(dataset: object, measures: tuple[str, ...], k: int) -> tuple[str, ...]:
    """The ``measures`` a page can compare at ``k``: all of them for ranked lists; for a
    per-query table, those it has a column for at ``k``, with a note naming the columns it lacks.
    Stops the page with a plain message when it has none of them."""
    from ui.shell.per_query_data import column_name, is_per_query, split_at

    if not is_per_query(dataset):
        return tuple(measures)
    present, missing = split_at(dataset, tuple(measures), k)
    if not present:
        st.info(
            t(
                "perquery.not_at_k",
                measures=", ".join(column_name(m, k) for m in measures),
                k=k,
                available=", ".join(dataset.measure_names),
            )
        )
        st.stop()
    if missing:
        st.info(
            t(
                "perquery.missing_measures",
                missing=", ".join(missing),
                k=k,
                shown=", ".join(column_name(m, k) for m in present),
            )
        )
    return tuple(present)
