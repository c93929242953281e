"""History page: save the active data set's runs as a version of a project; the lead measure of
every version over time with its interval, the leaderboard, the last accepted version, two saved
versions compared, and the workspace's review links.

The numbers are the store's history table (:func:`metrics.store.history`), the same as
``python -m metrics history PROJECT`` prints.
"""

import streamlit as st

from ui.review import history_compute
from ui.review.history_figures import history_figure
from ui.review.history_panels import accept_panel, compare_versions, save_panel, store_projects
from ui.review.history_tables import history_display, leaderboard_display, versions_display
from ui.review.share import links_panel
from ui.shell import frame, keys
from ui.shell.i18n import t

ctx = frame.page("history")
st.title(t("history.title"))
st.caption(t("history.intro"))
state = st.session_state
store, known = store_projects()

NUMBERS = {
    t(f"history.col.{c}"): st.column_config.NumberColumn(format="%.4f")
    for c in ("mean", "ci_low", "ci_high")
}


save_panel(ctx, store, known)
saved = state.pop(keys.HISTORY_SAVED, None)
if saved:
    st.success(t("history.saved", project=frame.escape(saved[0]), version=frame.escape(saved[1])))
known = history_compute.project_names(store)
if not known:
    st.info(t("history.no_projects"))
    st.code("python -m metrics save RUN --qrels QRELS --project P --version V", language="bash")
    links_panel()
    st.stop()

if state.get(keys.W_HISTORY_PROJECT) not in known:
    state[keys.W_HISTORY_PROJECT] = known[0]
left, right = st.columns(2)
project = left.selectbox(t("history.project"), known, key=keys.W_HISTORY_PROJECT)
infos = history_compute.project_versions(store, project)
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
names, last = accept_panel(store, project, infos)

st.subheader(t("history.compare_title"))
if len(infos) < 2:
    st.caption(t("history.compare_needs_two"))
else:
    compare_versions(ctx, project, infos, names, last, measure)

links_panel()
