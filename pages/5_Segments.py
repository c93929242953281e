"""Segments page: every model per segment, the delta vs the baseline, and where the winner loses."""

import streamlit as st

from metrics.review.segments import MIN_SEGMENT_QUERIES, reversal_sentence
from ui import compute, frame
from ui.i18n import sentence_templates, t
from ui.per_query_panel import require_columns
from ui.review import compute as review_compute
from ui.review.controls import require_review_choice
from ui.review.figures import model_colours, segment_delta_figure, segment_heatmap_figure
from ui.review.tables import segment_display
from ui.tables import csv_bytes

ctx = frame.page("segments")
st.title(t("segments.title"))
dataset = ctx.require_dataset()
view, settings = ctx.view, ctx.settings
models = dataset.models
columns = dataset.segment_columns
if not columns:
    st.info(t("segments.no_segments"))
    st.stop()
choice = require_review_choice(models, view.k_range)
options, k = choice.options, choice.k
c1, c2 = st.columns([2, 1])
st.session_state.setdefault("w_seg_by", columns[:1])
by = c1.multiselect(t("segments.by"), columns, key="w_seg_by", max_selections=2)
measure = c2.selectbox(
    t("compare.measure"), list(view.measures), key="w_seg_measure", format_func=lambda m: f"{m}@{k}"
)
if not by:
    st.info(t("segments.choose_by"))
    st.stop()
require_columns(dataset, (measure,), k)
name = compute.cutoff_name(measure, k)

means, found = review_compute.segment_results(dataset, settings, measure, k, tuple(by), options)
deltas = review_compute.comparison(
    dataset, settings, (measure,), k, choice.baseline, choice.candidates, options, by=tuple(by)
)
overall = review_compute.comparison(
    dataset, settings, (measure,), k, choice.baseline, choice.candidates, options
)

st.subheader(t("segments.reversals_title"))
rows = found[found["measure"] == name] if len(found) else found
if len(rows) == 0:
    st.success(t("segments.no_reversal", measure=name))
wording = sentence_templates()
for row in rows.to_dict("records"):
    sentence = reversal_sentence(row, by, options.confidence, wording)
    (st.error if row["significant"] else st.warning)(frame.escape(sentence))

st.subheader(t("segments.table_title", measure=name))
small = int(means["small"].sum())
if small:
    st.warning(t("segments.small_warning", n=small, min=MIN_SEGMENT_QUERIES))
table = segment_display(
    means, deltas, by, choice.baseline, [choice.baseline, *choice.candidates], overall
)
number_columns = {
    c: st.column_config.NumberColumn(c, format="%.4f")
    for c in table.columns
    if c in models or c.startswith("Δ ")
}
number_columns.update(
    {
        c: st.column_config.NumberColumn(c, format="%.3g")
        for c in table.columns
        if c.startswith("p_adj ")
    }
)
st.dataframe(table, hide_index=True, width="stretch", column_config=number_columns, key="seg_table")
st.caption(
    t(
        "segments.caption",
        baseline=frame.escape(choice.baseline),
        confidence=f"{options.confidence:.0%}",
        correction=options.correction,
    )
)
st.download_button(
    t("review.download_csv"), csv_bytes(table), "segments.csv", "text/csv", key="dl_seg_csv"
)

colours = model_colours(models)
left, right = st.columns(2)
left.plotly_chart(
    segment_heatmap_figure(means, by, models, name), width="stretch", key="seg_heatmap"
)
right.plotly_chart(
    segment_delta_figure(deltas, by, name, options.confidence, colours),
    width="stretch",
    key="seg_forest",
)
