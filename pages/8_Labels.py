"""Labels page: the data set's label sources side by side, how far they agree, and whether the
runs' measures, orderings and verdicts hold under each."""

import streamlit as st

from ui.labels import compute as labels_compute
from ui.labels import panel, tables
from ui.labels.figures import confusion_figure
from ui.shell import frame, label_sources
from ui.shell.findings_view import finding_text
from ui.shell.i18n import current_language, t
from ui.shell.per_query_panel import require_lists
from ui.shell.safe import md_escape

ctx = frame.page("labels")
st.title(t("labels.title"))
st.caption(t("labels.intro"))
dataset = ctx.require_dataset()
require_lists(dataset, "labels.needs_lists")
if ctx.view.data == "upload":
    panel.label_columns_panel()
sources = label_sources.sources_of(ctx.view.data)
if sources is None or len(sources.names) < 2:
    st.info(t("labels.one_source"))
    st.stop()

top = st.container()  # the verdicts first, worked out at the cutoff chosen below them
k = panel.cutoff()
measures = labels_compute.measures_at(ctx.view.measures, k)
study = labels_compute.study(dataset, sources, measures, ctx.settings, k)
names = study.sources.names

panel.summary_box(top, study, ctx.settings.label_source)

st.subheader(t("labels.sources"))
st.dataframe(
    tables.sources_display(study.summary, t), hide_index=True, width="stretch", key="labels_sources"
)
lang = current_language()
for finding in study.findings:
    text = finding_text(finding, lang)
    st.warning(md_escape(f"{text.message} {text.action}".strip()))

st.subheader(t("labels.agreement"))
st.caption(t("labels.agreement_caption"))
stat = st.column_config.NumberColumn(format="%.3f")
pairs = tables.pairs_display(study.agreement, t)
st.dataframe(
    pairs,
    hide_index=True,
    width="stretch",
    key="labels_pairs",
    column_config={c: stat for c in pairs.columns[3:8]},
)
overall = tables.overall_display(study.agreement, t)
st.dataframe(
    overall,
    hide_index=True,
    key="labels_overall",
    column_config={overall.columns[1]: stat},
)
a, b = panel.pair_choice(study.sources)
st.plotly_chart(
    confusion_figure(
        tables.confusion_counts(study.agreement, a, b),
        title=t("labels.fig.confusion", a=a, b=b),
        rows_label=t("labels.fig.grade_of", source=a),
        columns_label=t("labels.fig.grade_of", source=b),
        count_label=t("labels.fig.items"),
    ),
    key="chart_labels_confusion",
    width="stretch",
)
st.caption(t("labels.confusion_caption"))

st.subheader(t("labels.disagree"))
most = 15
st.markdown(t("labels.disagree_items", n=most))
st.dataframe(
    tables.items_display(study.agreement, names, t, most),
    hide_index=True,
    width="stretch",
    key="labels_items",
)
st.markdown(t("labels.disagree_queries", n=most))
st.dataframe(
    tables.queries_display(study.agreement, t, most),
    hide_index=True,
    width="stretch",
    key="labels_queries",
    column_config={
        t(name): st.column_config.NumberColumn(format="%.2f")
        for name in ("labels.col.share", "labels.col.mean_difference_abs")
    },
)

result = study.consequence
if result is not None:
    st.subheader(t("labels.consequence"))
    st.caption(t("labels.consequence_caption", k=k))
    value = st.column_config.NumberColumn(format="%.4f")
    means = tables.means_display(result, names, t)
    st.dataframe(
        means,
        hide_index=True,
        width="stretch",
        key="labels_means",
        column_config={n: value for n in names if n in means.columns},
    )
    st.markdown(t("labels.orderings"))
    st.dataframe(
        tables.correlations_display(result, t),
        hide_index=True,
        width="stretch",
        key="labels_correlations",
        column_config={
            c: stat for c in ("τ_b", t("labels.col.tau_ap"), t("labels.col.tau_ap_reverse"))
        },
    )
    st.markdown(t("labels.holes", k=k))
    judged = tables.judged_display(result, t)
    st.dataframe(
        judged,
        hide_index=True,
        width="stretch",
        key="labels_judged",
        column_config={c: stat for c in judged.columns[2:4]},
    )
    if not result.verdicts.empty:
        st.markdown(t("labels.verdicts"))
        st.dataframe(
            tables.verdicts_display(result, t),
            hide_index=True,
            width="stretch",
            key="labels_verdicts",
            column_config={"Δ": value, t("labels.col.p_adjusted"): value},
        )
