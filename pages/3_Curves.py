"""Curves page: every selected measure across K, one line per model; table; distributions."""

import streamlit as st

from ui.curves.downloads import figure_downloads
from ui.curves.figures import curve_figure, precision_recall_figure
from ui.curves.panels import distribution, judgment_notes, measure_failures, subtitles, table_code
from ui.curves.tables import csv_bytes, translated, wide_cutoff_table
from ui.shell import compute, frame
from ui.shell.i18n import t
from ui.shell.labels import measure_pretty, measure_text

ctx = frame.page("curves")
st.title(t("curves.title"))
dataset = ctx.require_dataset()
view, settings = ctx.view, ctx.settings
k_from, k_to = view.k_range
subtitle, chart_subtitle = subtitles(dataset, settings)
st.caption(subtitle)
if settings.averaging != "macro":
    st.caption(t("curves.macro_lines"))

failed = measure_failures(dataset, settings, list(view.measures), k_to)  # said in place
measures = tuple(m for m in view.measures if m not in failed)
table = compute.curve_table(dataset, settings, measures, k_from, k_to)
figures = {}
columns = st.columns(2)
for i, measure in enumerate(view.measures):
    if measure in failed:
        with columns[i % 2]:
            st.markdown(f"**{measure} · {measure_pretty(measure)}**")
            st.error(t("frame.measure_error", message=frame.escape(failed[measure])))
        continue
    pretty = measure_pretty(measure)
    chart_title = (
        t("curves.chart_title_plain", measure=measure)
        if pretty == measure
        else t("curves.chart_title", measure=measure, pretty=pretty)
    )
    fig = curve_figure(
        table,
        measure,
        title=chart_title,
        x_label="K",
        y_label=t("curves.mean", measure=measure),
        queries_label=t("curves.queries"),
        subtitle=chart_subtitle,
    )
    figures[t("curves.export.curve", measure=measure)] = fig
    with columns[i % 2]:
        st.plotly_chart(fig, width="stretch", key=f"chart_{measure}")
        st.caption(measure_text(measure, "description"))

st.subheader(t("curves.table_title" if compute.has_lists(dataset) else "perquery.table_title"))
if not measures:
    st.stop()  # no measure these data can give: each one said why above
ks = tuple(compute.table_cutoffs(dataset, measures, k_from, k_to))
long = compute.cutoff_table(dataset, settings, measures, ks)
wide = wide_cutoff_table(long, dataset.models)
st.dataframe(
    translated(wide.reset_index(), t),
    hide_index=True,
    width="stretch",
    column_config={c: st.column_config.NumberColumn(c, format="%.4f") for c in wide.columns},
)
st.download_button(
    t("curves.download_csv"),
    csv_bytes(translated(long, t)),
    f"{t('file.curves_table')}.csv",
    "text/csv",
    key="dl_curves_csv",
    on_click="ignore",
)
if compute.has_lists(dataset):  # the code recomputes from lists; a per-query table has none
    table_code(dataset, settings, tuple(wide.columns))

judgment_notes(dataset, settings, ks, measures)

st.subheader(t("curves.dist_title"))
figures |= distribution(dataset, settings, measures, (k_from, k_to))

st.subheader(t("curves.pr_title"))
if not compute.has_lists(dataset):
    st.caption(t("perquery.no_lists_pr"))
else:
    pr = compute.precision_recall(dataset, settings, k_to)
    pr_fig = precision_recall_figure(
        pr,
        title=t("curves.pr_title"),
        x_label=t("curves.pr_recall"),
        y_label=t("curves.pr_precision"),
        interpolated_label=t("curves.pr_interpolated"),
        raw_label=t("curves.pr_raw", k=k_to),
    )
    figures[t("curves.export.precision_recall")] = pr_fig
    st.plotly_chart(pr_fig, width="stretch", key="chart_precision_recall")
    st.caption(t("curves.pr_caption", k=k_to))

st.subheader(t("curves.export_title"))
figure_downloads(figures, key="curves")
