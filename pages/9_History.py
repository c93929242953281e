"""History page: save the active data set's runs as a version of a project; the lead measure of
every version over time with its interval, the leaderboard, the last accepted version, two saved
versions compared, and the workspace's review links.

The numbers are the store's history table (:func:`metrics.store.history`), the same as
``python -m metrics history PROJECT`` prints.
"""

import streamlit as st

from metrics.errors import ConflictError, StoreError
from metrics.review.compare import CompareOptions
from metrics.review.verdict import overall_rows
from metrics.store import accept, projects, save_run, versions
from metrics.store.runs import last_accepted
from ui.history import compute as history_compute
from ui.history.figures import history_figure
from ui.history.share import links_panel
from ui.history.tables import history_display, leaderboard_display, versions_display
from ui.review import compute as review_compute
from ui.review.controls import verdict_box, verdict_templates
from ui.review.tables import review_display, style_review_table
from ui.shell import frame, keys, workspace
from ui.shell.i18n import t
from ui.shell.per_query_data import is_per_query

ctx = frame.page("history")
st.title(t("history.title"))
st.caption(t("history.intro"))
state = st.session_state
try:
    store = workspace.app_store()
    known = projects(store)
except StoreError as exc:
    st.warning(workspace.refusal(exc))
    st.stop()

NUMBERS = {
    t(f"history.col.{c}"): st.column_config.NumberColumn(format="%.4f")
    for c in ("mean", "ci_low", "ci_high")
}


def save_panel() -> None:
    """Save the active data set's runs (all models or some) as a version of a project."""
    dataset = ctx.dataset
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
            from dataclasses import replace

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


save_panel()
saved = state.pop(keys.HISTORY_SAVED, None)
if saved:
    st.success(t("history.saved", project=frame.escape(saved[0]), version=frame.escape(saved[1])))
known = projects(store)
if not known:
    st.info(t("history.no_projects"))
    st.code("python -m metrics save RUN --qrels QRELS --project P --version V", language="bash")
    links_panel()
    st.stop()

if state.get(keys.W_HISTORY_PROJECT) not in known:
    state[keys.W_HISTORY_PROJECT] = known[0]
left, right = st.columns(2)
project = left.selectbox(t("history.project"), known, key=keys.W_HISTORY_PROJECT)
infos = versions(store, project)
options = history_compute.lead_measures(ctx.view.measures)
if state.get(keys.W_HISTORY_MEASURE) not in options:
    state[keys.W_HISTORY_MEASURE] = options[0]
measure = right.selectbox(
    t("history.measure"), options, key=keys.W_HISTORY_MEASURE, help=t("history.measure_help")
)
table = history_compute.history_table(project, infos, [measure])

st.plotly_chart(history_figure(table, measure, t), width="stretch", key="chart_history")
st.caption(t("history.chart_caption"))
with st.expander(t("history.table"), icon=":material/table_view:"):
    history_table = st.container()
st.subheader(t("history.leaderboard"))
for where, shown, key in (
    (history_table, history_display(table, measure, t), "hist_table"),
    (st.container(), leaderboard_display(table, measure, t), "hist_leaderboard"),
):
    where.dataframe(shown, hide_index=True, width="stretch", key=key, column_config=NUMBERS)

st.subheader(t("history.versions"))
st.dataframe(versions_display(infos, t), hide_index=True, width="stretch", key="hist_versions")
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

st.subheader(t("history.compare_title"))
if len(infos) < 2:
    st.caption(t("history.compare_needs_two"))
else:
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
            from metrics.engine.settings import Settings

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

links_panel()
