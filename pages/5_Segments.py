"""Segments page: every model per segment, the delta vs the baseline, and where the winner loses."""

import streamlit as st

from metrics.segment_compare import MIN_SEGMENT_QUERIES
from ui import compute, frame, review_compute
from ui.review_controls import review_controls
from ui.review_figures import model_colours, segment_delta_figure, segment_heatmap_figure
from ui.review_tables import segment_display
from ui.tables import csv_bytes

ctx = frame.page("segments")
st.title("Segments")
dataset = ctx.require_dataset()
view, settings = ctx.view, ctx.settings
models = dataset.models
columns = dataset.segment_columns
if not columns:
    st.info("This data set has no segment columns. Load a query table (a query column and "
            "columns such as query type or country) on the Data page.")
    st.stop()
if len(models) < 2:
    st.info("Segments compare models: load runs of two or more models on the Data page.")
    st.stop()

choice = review_controls(models, view.k_range)
if not choice.candidates:
    st.info("Choose at least one candidate.")
    st.stop()
options, k = choice.options, choice.k
c1, c2 = st.columns([2, 1])
st.session_state.setdefault("w_seg_by", columns[:1])
by = c1.multiselect("Segment by (one or two columns)", columns, key="w_seg_by",
                    max_selections=2)
measure = c2.selectbox("Measure", list(view.measures), key="w_seg_measure",
                       format_func=lambda m: f"{m}@{k}")
if not by:
    st.info("Choose one or two segment columns.")
    st.stop()
name = compute.cutoff_name(measure, k)

means, found = review_compute.segment_results(dataset, settings, measure, k, tuple(by), options)
deltas = review_compute.comparison(dataset, settings, (measure,), k, choice.baseline,
                                   choice.candidates, options, by=tuple(by))
overall = review_compute.comparison(dataset, settings, (measure,), k, choice.baseline,
                                    choice.candidates, options)

st.subheader("Where the overall winner loses")
rows = found[found["measure"] == name] if len(found) else found
if len(rows) == 0:
    st.success(f"The model that is best overall on {name} is best (or tied) in every segment.")
for row in rows.to_dict("records"):
    (st.error if row["significant"] else st.warning)(frame.escape(row["sentence"]))

st.subheader(f"{name} per segment")
small = int(means["small"].sum())
if small:
    st.warning(f"{small} segment(s) have fewer than {MIN_SEGMENT_QUERIES} queries (marked "
               "`small`): their numbers move a lot with a few queries. They are shown, not "
               "hidden.")
table = segment_display(means, deltas, by, choice.baseline, [choice.baseline,
                                                              *choice.candidates], overall)
number_columns = {c: st.column_config.NumberColumn(c, format="%.4f")
                  for c in table.columns if c in models or c.startswith("Δ ")}
number_columns.update({c: st.column_config.NumberColumn(c, format="%.3g")
                       for c in table.columns if c.startswith("p_adj ")})
st.dataframe(table, hide_index=True, width="stretch", column_config=number_columns,
             key="seg_table")
st.caption(f"Δ: candidate − {frame.escape(choice.baseline)} on the segment's queries, with its "
           f"{options.confidence:.0%} bootstrap interval; p_adj corrected ({options.correction})"
           f" over every segment × candidate; the last row is all queries.")
st.download_button("Download the table (CSV)", csv_bytes(table), "segments.csv", "text/csv",
                   key="dl_seg_csv")

colours = model_colours(models)
left, right = st.columns(2)
left.plotly_chart(segment_heatmap_figure(means, by, models, name), width="stretch",
                  key="seg_heatmap")
right.plotly_chart(segment_delta_figure(deltas, by, name, options.confidence, colours),
                   width="stretch", key="seg_forest")
