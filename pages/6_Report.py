"""Report page: one page for stakeholders, downloadable as one self-contained HTML file."""

from datetime import datetime, timezone

import pandas as pd
import streamlit as st

from metrics.review.compare import headline
from metrics.review.segments import reversal_sentence
from metrics.review.stakeholder_report import (
    ReportInputs,
    build_report_html,
    provenance,
    report_zip,
    software_versions,
)
from ui import compute, frame
from ui.figures import curve_figure
from ui.findings_view import findings_frame, findings_table
from ui.i18n import current_language, sentence_templates, t
from ui.review import compute as review_compute
from ui.review.controls import require_review_choice
from ui.review.figures import (
    delta_curve_figure,
    model_colours,
    segment_heatmap_figure,
    win_tie_loss_figure,
)
from ui.review.tables import delta_display, style_delta_table

ctx = frame.page("report")
st.title(t("review_report.title"))
dataset = ctx.require_dataset()
view, settings = ctx.view, ctx.settings
models = dataset.models
choice = require_review_choice(models, view.k_range)
options, k = choice.options, choice.k
k_from, k_to = view.k_range
segment_choices = ["", *dataset.segment_columns]
if st.session_state.get("w_report_segment") not in segment_choices:
    st.session_state["w_report_segment"] = segment_choices[min(1, len(segment_choices) - 1)]
segment = st.selectbox(
    t("review_report.segment"),
    segment_choices,
    key="w_report_segment",
    format_func=lambda c: c or t("review_report.no_segment"),
)
by = [segment] if segment else []

measures = tuple(view.measures)
table = review_compute.comparison(
    dataset, settings, measures, k, choice.baseline, choice.candidates, options
)
# The HTML report is in English; the page shows the same sentences in the session language.
sentences = headline(table, options.confidence)
wording = sentence_templates()
segment_table = None
reversal_sentences: list[str] = []
reversal_rows: list[dict[str, object]] = []
heatmaps: list[tuple[str, object]] = []
if by:
    segment_table = review_compute.comparison(
        dataset, settings, measures, k, choice.baseline, choice.candidates, options, by=tuple(by)
    )
    for measure in measures:
        means, found = review_compute.segment_results(
            dataset, settings, measure, k, tuple(by), options
        )
        reversal_sentences += list(found["sentence"]) if len(found) else []
        reversal_rows += found.to_dict("records") if len(found) else []
        heatmaps.append(
            (
                f"{compute.cutoff_name(measure, k)} by {segment}",
                segment_heatmap_figure(means, by, models, compute.cutoff_name(measure, k)),
            )
        )

colours = model_colours(models)
curve_table = compute.curve_table(dataset, settings, measures, k_from, k_to)
figures = []
for measure in measures:
    curve_title = t("review_report.curve_title", measure=measure)
    figures.append(
        (
            curve_title,
            curve_figure(
                curve_table,
                measure,
                title=curve_title,
                x_label="K",
                y_label=t("review_report.curve_y", measure=measure),
                queries_label=t("curves.queries"),
                subtitle=t("review_report.curve_subtitle", averaging=settings.averaging),
            ),
        )
    )
    curves = {
        c: review_compute.delta_curve(
            dataset, settings, measure, k_from, k_to, choice.baseline, c, options
        )
        for c in choice.candidates
    }
    figures.append(
        (
            f"{measure}: change vs {choice.baseline}",
            delta_curve_figure(
                curves, measure, choice.baseline, confidence=options.confidence, colours=colours
            ),
        )
    )
figures.append(("Queries better, tied, worse", win_tie_loss_figure(table)))
figures += heatmaps[:2]

inputs = ReportInputs(
    dataset_name=dataset.name,
    content_hash=dataset.content_hash,
    models=list(models),
    baseline=choice.baseline,
    measures=list(table["measure"].unique()),
    ks=list(range(k_from, k_to + 1)),
    n_queries=int(dataset.run["query"].nunique()),
    settings=settings,
    options=options,
    comparison=table,
    headline=sentences,
    description=dataset.description,
    segment_by=by,
    segment_table=segment_table,
    reversal_sentences=reversal_sentences,
    findings=findings_frame(dataset.health, current_language()),
    figures=figures,
    generated_at=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    extra_provenance=software_versions(),
)

d1, d2 = st.columns(2)
d1.download_button(
    t("review_report.download_html"),
    lambda: build_report_html(inputs).encode("utf-8"),
    f"report_{dataset.name}.html",
    "text/html",
    key="dl_report_html",
    type="primary",
    icon=":material/download:",
)
d2.download_button(
    t("review_report.download_zip"),
    lambda: report_zip(inputs),
    f"report_{dataset.name}_tables.zip",
    "application/zip",
    key="dl_report_zip",
    icon=":material/table:",
)

st.header(
    t(
        "review_report.header",
        name=frame.escape(dataset.name),
        baseline=frame.escape(choice.baseline),
        candidates=frame.escape(", ".join(choice.candidates)),
    )
)
st.subheader(t("compare.headline"))
for sentence in headline(table, options.confidence, wording):
    st.markdown(f"- {frame.escape(sentence)}")
st.dataframe(
    style_delta_table(delta_display(table, brief=True)),
    hide_index=True,
    width="stretch",
    key="report_table",
)

if by:
    st.subheader(t("review_report.segments", column=frame.escape(segment)))
    if not reversal_rows:
        st.success(t("review_report.all_best"))
    for row in reversal_rows:
        sentence = reversal_sentence(row, by, options.confidence, wording)
        (st.error if row["significant"] else st.warning)(frame.escape(sentence))
    st.dataframe(
        style_delta_table(delta_display(segment_table, by, brief=True)),
        hide_index=True,
        width="stretch",
        key="report_segments",
    )

st.subheader(t("review_report.charts"))
columns = st.columns(2)
for i, (_title, figure) in enumerate(figures):
    with columns[i % 2]:
        st.plotly_chart(figure, width="stretch", key=f"report_chart_{i}")

st.subheader(t("review_report.health"))
findings = findings_table(dataset.health, current_language())
if findings.empty:
    st.success(t("review_report.no_problems"))
else:
    st.dataframe(
        findings,
        hide_index=True,
        width="stretch",
        key="report_findings",
    )

st.subheader(t("review_report.provenance"))
st.dataframe(
    pd.DataFrame(provenance(inputs), columns=["setting", "value"]),
    hide_index=True,
    width="stretch",
    key="report_provenance",
)
