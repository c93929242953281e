"""A review link opened (``?review=<token>``): the frozen review alone, read only.

``frame.run_app`` hands a run whose address carries :data:`~ui.shell.workspace_codec.
REVIEW_PARAM` to :func:`review_app` before anything else: no navigation, no page of the app, no
workspace (the browser's own is neither read nor written). The page shows the verdict as it was
frozen, the data it was computed from and its settings, and the comparison table computed again
from them (the same numbers: the data, settings and seed are the frozen ones), with the table's
downloads. A link that is unknown, expired or revoked says so, and nothing else.
"""

from __future__ import annotations

import streamlit as st

from metrics.errors import StoreError
from ui.shell import keys, workspace
from ui.shell.i18n import DEFAULT_LANGUAGE, LANGUAGES, number, t
from ui.shell.workspace_codec import REVIEW_PARAM


def review_app() -> None:
    """The whole app for a review link: one page, no menu."""
    page = st.Page(_page, title=t("shared.title"), icon=":material/visibility:", default=True)
    st.navigation([page], position="hidden").run()


def _language(wanted: str) -> None:
    """The language menu (the link's language first, or the one of ``?lang=``)."""
    state = st.session_state
    if keys.W_LANG not in state:
        asked = st.query_params.get("lang")
        state[keys.W_LANG] = asked if asked in LANGUAGES else wanted
    state[keys.LANG] = state[keys.W_LANG]  # the menu's own label in that language
    st.sidebar.selectbox(
        t("frame.language"), list(LANGUAGES), format_func=LANGUAGES.__getitem__, key=keys.W_LANG
    )


def _page() -> None:
    from ui.shell.frame import run_guarded

    run_guarded(_shared_review)


def _shared_review() -> None:
    from metrics.store import open_snapshot
    from metrics.store.store import time_text
    from ui.review.share import thaw

    link = str(st.query_params.get(REVIEW_PARAM, ""))
    try:
        snapshot = open_snapshot(workspace.app_store(), link)
    except StoreError as exc:
        _language(DEFAULT_LANGUAGE)
        st.title(t("shared.title"))
        st.error(workspace.refusal(exc), icon=":material/link_off:")
        return
    frozen = thaw(snapshot)
    _language(frozen.lang if frozen.lang in LANGUAGES else DEFAULT_LANGUAGE)
    st.title(t("shared.title"))
    info = snapshot.info
    st.caption(
        t("shared.read_only", created=time_text(info.created), expires=time_text(info.expires))
    )
    if info.title:
        st.text(info.title)
    with st.container(border=True, key="shared_verdict"):
        st.subheader(t("shared.verdict"))
        for paragraph in frozen.verdict.split("\n\n"):
            st.text(paragraph)
        st.caption(t("shared.verdict_caption"))
    _review_tables(frozen)


def _review_tables(frozen) -> None:
    """The data line, the comparison table computed again, its downloads and the settings."""
    from metrics.review.verdict import overall_rows
    from metrics.review.wording import interval_text
    from ui.review import compute as review_compute
    from ui.review.controls import verdict_templates
    from ui.review.tables import (
        export_csv,
        export_json,
        review_display,
        settings_rows,
        style_review_table,
    )

    dataset = frozen.dataset
    st.subheader(t("shared.data"))
    st.text(
        t(
            "shared.data_line",
            name=dataset.name,
            models=", ".join(dataset.models),
            queries=number(int(dataset.run["query"].nunique())),
            judged=number(len(dataset.qrels)),
        )
    )
    review = review_compute.review(
        dataset,
        frozen.settings,
        frozen.measures,
        frozen.k,
        frozen.baseline,
        frozen.candidates,
        frozen.options,
        frozen.by,
        frozen.family,
        min_effect=frozen.min_effect,
        power=frozen.power,
    )
    words = verdict_templates()
    overall = overall_rows(review)
    st.subheader(t("compare.deltas"))
    st.caption(
        t(
            "shared.table_caption",
            baseline=frozen.baseline,
            k=frozen.k,
            interval=interval_text(overall, words),
        )
    )
    st.dataframe(
        style_review_table(review_display(overall, t, words), list(overall["verdict"]), t),
        hide_index=True,
        width="stretch",
        key="shared_table",
    )
    left, right = st.columns(2)
    left.download_button(
        t("review.download_csv"),
        export_csv(review),
        "comparison.csv",
        "text/csv",
        key="dl_shared_csv",
        on_click="ignore",
    )
    right.download_button(
        t("review.download_json"),
        export_json(review),
        "comparison.json",
        "application/json",
        key="dl_shared_json",
        on_click="ignore",
    )
    st.subheader(t("shared.settings"))
    rows = settings_rows(
        frozen.settings,
        frozen.options,
        frozen.family,
        t,
        min_effect=frozen.min_effect,
        power=frozen.power,
    )
    rows = [
        (t("shared.measures"), ", ".join(frozen.measures)),
        (t("review.k"), str(frozen.k)),
        (t("review.baseline"), frozen.baseline),
        (t("review.candidates"), ", ".join(frozen.candidates)),
        (t("shared.segments"), ", ".join(frozen.by) or "—"),
        *rows,
    ]
    import pandas as pd

    st.dataframe(
        pd.DataFrame(rows, columns=[t("shared.setting"), t("shared.value")]),
        hide_index=True,
        width="stretch",
        height=36 * (len(rows) + 1) + 3,  # every row, without a scroll bar
        key="shared_settings",
    )


__all__ = ["review_app"]
