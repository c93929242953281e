"""The History page's panels: saving the active data set's runs as a version, and two saved
versions compared with the review's own table."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import streamlit as st

from metrics.engine.settings import Settings
from metrics.errors import ConflictError, StoreError
from metrics.review.compare import CompareOptions
from metrics.review.verdict import overall_rows
from metrics.store import RunInfo, accept, projects, save_run, versions
from metrics.store.runs import last_accepted
from ui.review import compute as review_compute
from ui.review import history_compute
from ui.review.controls import verdict_box, verdict_templates
from ui.review.tables import review_display, style_review_table
from ui.shell import frame, keys, workspace
from ui.shell.i18n import t
from ui.shell.per_query_data import is_per_query


def store_projects() -> tuple[Any, list[str]]:
    """The app's store and its projects; a refusal to open the store is shown and stops the
    page."""
    try:
        store = workspace.app_store()
        return store, projects(store)
    except StoreError as exc:
        st.warning(workspace.refusal(exc))
        st.stop()


def accept_panel(store: Any, project: str, infos: list) -> tuple[list[str], RunInfo | None]:
    """The menu of ``project``'s versions and the button that marks one accepted; returns the
    versions' names and the last accepted version."""
    names = [i.version for i in infos]
    last = last_accepted(infos)
    if last is None:
        st.caption(t("history.none_accepted"))
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    marked = c1.selectbox(
        t("history.accept_choice"),
        names,
        index=names.index(last.version) if last is not None else len(names) - 1,
        key="hist_accept_version",
    )
    if c2.button(t("history.accept"), key="btn_history_accept", icon=":material/verified:"):
        try:
            accept(store, project, marked)
        except StoreError as exc:
            st.warning(workspace.refusal(exc))
        else:
            st.rerun()
    return names, last


def save_panel(ctx: frame.PageContext, store: Any, known: list[str]) -> None:
    """Save the active data set's runs (all models or some) as a version of a project."""
    dataset, state = ctx.dataset, st.session_state
    with st.expander(t("history.save_title"), expanded=not known, icon=":material/save:"):
        if dataset is None or len(dataset.run) == 0:
            st.info(t("frame.no_dataset"))
            return
        if is_per_query(dataset):
            st.caption(t("history.save_needs_lists"))
            return
        st.caption(t("history.save_caption", name=frame.escape(dataset.name)))
        current = state.get(keys.W_HISTORY_PROJECT) or (known[0] if known else "")
        count = len(versions(store, current)) if current in known else 0
        with st.form("hist_save_form", border=False):
            project = st.text_input(t("history.project"), value=current, max_chars=200)
            version = st.text_input(
                t("history.version"), value=f"v{count + 1}", key=f"hist_version_{count}"
            )
            models = st.multiselect(t("history.models"), dataset.models, default=dataset.models)
            note = st.text_area(t("history.note"), max_chars=2000)
            accepted = st.checkbox(t("history.accept_now"))
            submitted = st.form_submit_button(t("history.save"), type="primary")
        if not submitted:
            return
        if not models:
            st.warning(t("history.no_models"))
            return
        chosen = dataset
        if len(models) < len(dataset.models):
            chosen = replace(dataset, run=dataset.run[dataset.run["model"].isin(models)])
        try:
            info = save_run(
                store,
                project.strip(),
                version.strip(),
                chosen,
                settings=ctx.settings,
                workspace=workspace.ensure_token(),
                accept=accepted,
                note=note,
            )
        except StoreError as exc:
            st.warning(workspace.refusal(exc))
            return
        state[keys.HISTORY_SAVED] = (info.project, info.version)
        state[keys.W_HISTORY_PROJECT] = info.project
        st.rerun()


def compare_versions(
    ctx: frame.PageContext, project: str, infos: list, names: list[str], last: Any, measure: str
) -> None:
    """Two saved versions of ``project`` (the last accepted one first by default) compared as
    the review compares a candidate with its baseline (refused when their judgments differ)."""
    state = st.session_state
    by_name = {i.version: i for i in infos}
    for key, default in (
        (keys.W_HISTORY_FIRST, last.version if last is not None else names[-2]),
        (
            keys.W_HISTORY_SECOND,
            names[-1] if names[-1] != getattr(last, "version", "") else names[-2],
        ),
    ):
        if state.get(key) not in names:
            state[key] = default
    a, b = st.columns(2)
    first = by_name[a.selectbox(t("history.first"), names, key=keys.W_HISTORY_FIRST)]
    second = by_name[b.selectbox(t("history.second"), names, key=keys.W_HISTORY_SECOND)]
    if first.id == second.id:
        st.info(t("history.same_version"))
    else:
        try:
            pair = history_compute.pair_dataset(project, first, second)
        except ConflictError as exc:
            st.warning(
                workspace.refusal(
                    exc,
                    first=t("history.version_label", version=first.version),
                    second=t("history.version_label", version=second.version),
                )
            )
        else:
            measures, k = history_compute.review_measures(measure, ctx.view.measures)
            baseline = history_compute.labels_of(first)[0]
            candidates = tuple(history_compute.labels_of(second))
            review = review_compute.review(
                pair,
                Settings.from_dict(dict(first.settings)),
                measures,
                k,
                baseline,
                candidates,
                CompareOptions(),
            )
            words = verdict_templates()
            st.caption(t("history.compare_caption", first=frame.escape(first.version), k=k))
            verdict_box(review, words)
            overall = overall_rows(review)
            st.dataframe(
                style_review_table(review_display(overall, t, words), list(overall["verdict"]), t),
                hide_index=True,
                width="stretch",
                key="hist_compare_table",
            )
