"""Report page: one page for stakeholders, downloadable as one self-contained HTML file."""

from datetime import datetime, timezone

import pandas as pd
import streamlit as st

from metrics.compare import headline
from metrics.report import (ReportInputs, build_report_html, provenance, report_zip,
                            software_versions)
from ui import compute, frame, review_compute
from ui.figures import curve_figure
from ui.review_controls import review_controls
from ui.review_figures import (delta_curve_figure, model_colours, segment_heatmap_figure,
                               win_tie_loss_figure)
from ui.review_tables import delta_display, style_delta_table

NO_SEGMENT = "(none)"

ctx = frame.page("report")
st.title("Report")
dataset = ctx.require_dataset()
view, settings = ctx.view, ctx.settings
models = dataset.models
if len(models) < 2:
    st.info("A report compares models: load runs of two or more models on the Data page.")
    st.stop()

choice = review_controls(models, view.k_range)
if not choice.candidates:
    st.info("Choose at least one candidate.")
    st.stop()
options, k = choice.options, choice.k
k_from, k_to = view.k_range
segment_choices = [NO_SEGMENT, *dataset.segment_columns]
if st.session_state.get("w_report_segment") not in segment_choices:
    st.session_state["w_report_segment"] = segment_choices[min(1, len(segment_choices) - 1)]
segment = st.selectbox("Segment column of the report", segment_choices, key="w_report_segment")
by = [] if segment == NO_SEGMENT else [segment]

measures = tuple(view.measures)
table = review_compute.comparison(dataset, settings, measures, k, choice.baseline,
                                  choice.candidates, options)
sentences = headline(table, options.confidence)
segment_table, reversal_sentences, heatmaps = None, [], []
if by:
    segment_table = review_compute.comparison(dataset, settings, measures, k, choice.baseline,
                                              choice.candidates, options, by=tuple(by))
    for measure in measures:
        means, found = review_compute.segment_results(dataset, settings, measure, k,
                                                      tuple(by), options)
        reversal_sentences += list(found["sentence"]) if len(found) else []
        heatmaps.append((f"{compute.cutoff_name(measure, k)} by {segment}",
                         segment_heatmap_figure(means, by, models,
                                                compute.cutoff_name(measure, k))))

colours = model_colours(models)
curve_table = compute.curve_table(dataset, settings, measures, k_from, k_to)
figures = []
for measure in measures:
    figures.append((f"{measure} across K", curve_figure(
        curve_table, measure, title=f"{measure} across K", x_label="K",
        y_label=f"mean {measure}", queries_label="queries",
        subtitle=f"{settings.averaging} mean per K (curves are macro means)")))
    curves = {c: review_compute.delta_curve(dataset, settings, measure, k_from, k_to,
                                            choice.baseline, c, options)
              for c in choice.candidates}
    figures.append((f"{measure}: change vs {choice.baseline}",
                    delta_curve_figure(curves, measure, choice.baseline,
                                       confidence=options.confidence, colours=colours)))
figures.append(("Queries better, tied, worse", win_tie_loss_figure(table)))
figures += heatmaps[:2]

inputs = ReportInputs(
    dataset_name=dataset.name, content_hash=dataset.content_hash, models=list(models),
    baseline=choice.baseline, measures=list(table["measure"].unique()),
    ks=list(range(k_from, k_to + 1)), n_queries=int(dataset.run["query"].nunique()),
    settings=settings, options=options, comparison=table, headline=sentences,
    description=dataset.description, segment_by=by, segment_table=segment_table,
    reversal_sentences=reversal_sentences, findings=dataset.report.to_frame(),
    figures=figures,
    generated_at=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    extra_provenance=software_versions())

d1, d2 = st.columns(2)
d1.download_button("Download the report (HTML, works offline)",
                   lambda: build_report_html(inputs).encode("utf-8"),
                   f"report_{dataset.name}.html", "text/html", key="dl_report_html",
                   type="primary", icon=":material/download:")
d2.download_button("Download the tables (CSV, zip)", lambda: report_zip(inputs),
                   f"report_{dataset.name}_tables.zip", "application/zip",
                   key="dl_report_zip", icon=":material/table:")

st.header(f"{frame.escape(dataset.name)}: {frame.escape(choice.baseline)} against "
          f"{frame.escape(', '.join(choice.candidates))}")
st.subheader("Headline")
for sentence in sentences:
    st.markdown(f"- {frame.escape(sentence)}")
st.dataframe(style_delta_table(delta_display(table, brief=True)), hide_index=True, width="stretch",
             key="report_table")

if by:
    st.subheader(f"Segments: {frame.escape(segment)}")
    if not reversal_sentences:
        st.success("The overall winner is best in every segment.")
    for sentence in reversal_sentences:
        (st.error if "loses to" in sentence else st.warning)(frame.escape(sentence))
    st.dataframe(style_delta_table(delta_display(segment_table, by, brief=True)), hide_index=True,
                 width="stretch", key="report_segments")

st.subheader("Charts")
columns = st.columns(2)
for i, (title, figure) in enumerate(figures):
    with columns[i % 2]:
        st.plotly_chart(figure, width="stretch", key=f"report_chart_{i}")

st.subheader("Data health")
findings = dataset.report.to_frame()
if findings.empty:
    st.success("No problems were found in the data.")
else:
    st.dataframe(findings[["severity", "message", "count", "examples", "action"]],
                 hide_index=True, width="stretch", key="report_findings")

st.subheader("Settings and provenance")
st.dataframe(pd.DataFrame(provenance(inputs), columns=["setting", "value"]), hide_index=True,
             width="stretch", key="report_provenance")
