"""Report page: one decision document for stakeholders, downloadable as one self-contained HTML
file in the session's language.

The page opens as the document does: the headline, then the chart of the lead measure (each
candidate's difference overall and per segment); then the controls, the downloads and tabs of the
document's parts, of which only the open one is computed and drawn
(:func:`ui.review.sections.sections`); the downloads hold the whole document. The downloads are
made after the page's run, when asked for: their words are fixed in the page's language first.
"""

import functools
from dataclasses import replace
from datetime import datetime, timezone
from typing import Literal

import pandas as pd
import streamlit as st

from metrics.review.callouts import callouts
from metrics.review.decision import lead_measure
from metrics.review.headline import verdict_sentences
from metrics.review.overlap import DEFAULT_PERSISTENCE
from metrics.review.segments import MIN_SEGMENT_QUERIES
from metrics.review.stakeholder_report import (
    REPORT_TEMPLATES,
    ReportInputs,
    build_report_html,
    left_out,
    provenance,
    report_charts,
    report_zip,
    software_versions,
)
from metrics.review.verdict import (
    letter_groups,
    measure_order,
    overall_rows,
    pairwise_rows,
    segment_rows,
)
from metrics.review.wording import interval_text
from ui.review import compute as review_compute
from ui.review.controls import (
    callout_box,
    decision_of,
    guard_options,
    require_review_choice,
    segment_choice,
    segment_cross,
    verdict_box,
    verdict_templates,
    warn_unknown_data,
)
from ui.review.figures import (
    delta_curve_figure,
    lead_measure_figure,
    lead_titles,
    model_colours,
    pairwise_matrix_figure,
    win_tie_loss_figure,
)
from ui.review.lead import lead_chart
from ui.review.sections import sections
from ui.review.tables import (
    change_display,
    groups_display,
    power_display,
    review_display,
    settings_rows,
    style_review_table,
)
from ui.shell import compute, frame, keys, per_query_data
from ui.shell.findings_view import findings_frame
from ui.shell.i18n import current_language, t, templates, translate
from ui.shell.per_query_panel import measures_at
from ui.shell.plotting import PHONE_PICTURE_WIDTH, PICTURE_WIDTH, figure_pictures
from ui.tools.code_panel import CodeBlock, code_panel, dataset_files
from ui.tools.compute import compare_code, compare_command

ctx = frame.page("report")
st.title(t("review_report.title"))
dataset = ctx.require_dataset()
warn_unknown_data(ctx.view.data)
first_screen = st.container()  # the headline and the lead chart, above the controls
view, settings = ctx.view, ctx.settings
models = dataset.models
columns = dataset.segment_columns
by = segment_choice(columns)
choice = require_review_choice(
    models, view.k_range, tuple(view.measures), guard_options(dataset.segments, by)
)
options, k = choice.options, choice.k
k_from, k_to = view.k_range
if columns:
    st.multiselect(
        t("segments.by"),
        columns,
        key=keys.W_SEG_BY,
        max_selections=2,
        help=t("review_report.segment_help"),
    )
    by = tuple(st.session_state[keys.W_SEG_BY])

measures = measures_at(dataset, tuple(view.measures), k)
names = [compute.cutoff_name(m, k) for m in measures]
review = review_compute.choice_review(dataset, settings, measures, choice, by, segment_cross())
words = verdict_templates()
lang = current_language()
tr = functools.partial(translate, lang=lang)  # the downloads are made outside the page's run
overall = overall_rows(review)
pairs = pairwise_rows(review)
segments = segment_rows(review)
primary = lead_measure(
    names, choice.lead_at_k or None
)  # every chart of the report follows the measure decided on
lead_base = measures[names.index(primary)]
with first_screen:
    verdict_box(review, words)
    lead_chart(review, primary, by, words, "report_lead")
found = (
    pd.concat(
        [callouts(review, m, words, MIN_SEGMENT_QUERIES) for m in measure_order(names)],
        ignore_index=True,
    )
    if by
    else pd.DataFrame()
)

colours = model_colours(models)
per_query = per_query_data.is_per_query(dataset)
curve_ks = list(range(k_from, k_to + 1))
curve_measures = [lead_base]
missing_curves: list[tuple[str, int, int]] = []
if per_query_data.is_per_query(dataset):  # the Δ curve only where the table has several K
    curve_ks = per_query_data.cutoffs_between(dataset, (lead_base,), k_from, k_to)
    if len(curve_ks) < 2:
        missing_curves, curve_measures = [(lead_base, k_from, k_to)], []


@functools.cache
def report_figures() -> tuple[tuple[str, object], ...]:
    """The report's charts after the first screen's (title, figure), each of the lead measure,
    made when first asked for in this run: by the Charts tab or a download."""
    figures = []
    for measure in curve_measures:
        curves = {
            c: review_compute.delta_curve(
                dataset, settings, measure, k_from, k_to, choice.baseline, c, options
            )
            for c in choice.candidates
        }
        title = tr("review_report.delta_title", measure=primary, baseline=choice.baseline)
        figures.append(
            (
                title,
                delta_curve_figure(
                    curves,
                    measure,
                    choice.baseline,
                    confidence=options.confidence,
                    colours=colours,
                    tr=tr,
                ),
            )
        )
    lead_overall = overall[overall["measure"] == primary]
    figures.append((tr("review_report.wtl_title"), win_tie_loss_figure(lead_overall, tr)))
    return tuple(figures)


@functools.cache
def lead_figures() -> tuple[object, object]:
    """The first screen's chart of the lead measure, for a wide screen and for a phone."""
    wide = lead_measure_figure(review, primary, by, tr=tr, templates=words, titled=False)
    phone = lead_measure_figure(
        review, primary, by, tr=tr, templates=words, titled=False, narrow=True
    )
    return wide, phone


decision = decision_of(review, words)
lead_title, lead_note = lead_titles(review, primary, by, tr, words)
findings = findings_frame(compute.health(dataset, settings), lang)
findings["severity"] = [t(f"health.severity.{s}") for s in findings["severity"]]
glossary = [
    (name, frame.measure_pretty(m), frame.measure_text(m, "description"))
    for name, m in zip(names, measures)
]
changes = review_compute.ranking_changes(
    dataset, settings, k, choice.baseline, choice.candidates, DEFAULT_PERSISTENCE
)
inputs = ReportInputs(
    dataset_name=dataset.name,
    content_hash=dataset.content_hash,
    models=list(models),
    baseline=choice.baseline,
    measures=names,
    ks=curve_ks,
    n_queries=int(dataset.run["query"].nunique()),
    settings=settings,
    options=options,
    review=review,
    family=choice.family,
    description=frame.dataset_description(dataset),
    verdict=verdict_sentences(review, words),
    headline=list(decision.headline) if decision is not None else [],
    recommendations=[
        (candidate, tr(f"decision.recommendation.{code}"))
        for candidate, code in (decision.recommendations if decision is not None else {}).items()
    ],
    lead_measure=primary,
    lead_title=lead_title,
    lead_note=lead_note,
    figures_display=review_display(overall, t, words),
    pairwise_display=review_display(pairs, t, words) if len(pairs) else None,
    segment_display=(
        review_display(segments, t, words, segment=True, compact=True) if len(segments) else None
    ),
    callout_sentences=[(r["callout"], r["sentence"]) for r in found.to_dict("records")],
    family_texts={
        "overall": review_compute.family_words(overall, words),
        "pairwise": review_compute.family_words(pairs, words),
        "segments": review_compute.family_words(segments, words),
    },
    glossary=glossary,
    segment_by=list(by),
    findings=findings,
    figures=[],  # made on demand: report_figures()
    generated_at=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    extra_provenance={
        t("review.lead"): primary,
        t("review.guardrails"): ", ".join(choice.guardrails) or t("review.guardrails_all"),
        t("segments.cross"): t("review_report.html.yes")
        if segment_cross()
        else t("review_report.html.no"),
        t("review_report.prov.software"): software_versions()["Software"],
    },
    settings_rows=settings_rows(
        settings, options, choice.family, t, min_effect=choice.min_effect, power=choice.power
    ),
    words=templates(REPORT_TEMPLATES, lang),
    lang=lang,
    per_query=per_query,
    missing_curves=missing_curves,
    power_display=power_display(overall, t),
    groups=[(name, groups_display(letter_groups(review, name), t)) for name in measure_order(names)]
    if len(choice.candidates) > 1
    else [],
    interval_texts={
        "overall": interval_text(overall, words),
        "segments": interval_text(segments, words),
    },
    min_effect=choice.min_effect,
    power=choice.power,
    change_display=change_display(changes, t) if changes else None,
    change_k=k,
)


def with_figures() -> ReportInputs:
    """The report's inputs with its charts."""
    return replace(inputs, figures=list(report_figures()), lead_figures=lead_figures())


def light_report() -> bytes:
    """The report with its charts as pictures (made when asked for: a few seconds); the lead
    chart's phone layout as a picture of a phone's width."""
    full = with_figures()
    charts = report_charts(full)
    widths = [PICTURE_WIDTH, PHONE_PICTURE_WIDTH] + [PICTURE_WIDTH] * (len(charts) - 2)
    return build_report_html(full, figure_pictures(charts, widths)).encode("utf-8")


d1, d2, d3 = st.columns(3)
d1.download_button(
    t("review_report.download_html"),
    light_report,
    f"report_{dataset.name}.html",
    "text/html",
    key="dl_report_html",
    type="primary",
    icon=":material/download:",
    on_click="ignore",
)
d2.download_button(
    t("review_report.download_interactive"),
    lambda: build_report_html(with_figures()).encode("utf-8"),
    f"report_{dataset.name}_interactive.html",
    "text/html",
    key="dl_report_interactive",
    icon=":material/insert_chart:",
    on_click="ignore",
)
d3.download_button(
    t("review_report.download_zip"),
    lambda: report_zip(with_figures()),
    f"report_{dataset.name}_tables.zip",
    "application/zip",
    key="dl_report_zip",
    icon=":material/table:",
    on_click="ignore",
)

st.caption(t("review_report.download_caption"))
if not per_query:  # the code recomputes from lists; a per-query table has none
    code_panel(
        "report_code",
        t("review_report.code_caption"),
        dataset_files(dataset, queries=bool(by)),
        [
            CodeBlock(compare_command(settings, tuple(names), choice, options, by), "bash"),
            CodeBlock(compare_code(settings, tuple(names), choice, options, by)),
        ],
    )

st.header(
    t(
        "review_report.header",
        name=frame.escape(dataset.name),
        baseline=frame.escape(choice.baseline),
        candidates=frame.escape(", ".join(choice.candidates)),
    )
)
if per_query:
    st.info(
        t("review_report.html.left_out")
        + "\n"
        + "".join(f"\n- {frame.escape(item)}" for item in left_out(inputs))
    )


# --------------------------------------------------------------------------- the open tab only


def summary_section() -> None:
    """The headline figures, whether there were enough queries, rankings' change, groups."""
    st.subheader(t("review_report.figures"))
    st.dataframe(
        style_review_table(inputs.figures_display, overall["verdict"], t),
        hide_index=True,
        width="stretch",
        key="report_table",
    )
    st.caption(
        t(
            "review_report.family_caption",
            interval=frame.escape(inputs.interval_texts["overall"]),
            family=frame.escape(inputs.family_texts["overall"]),
        )
    )
    st.subheader(t("compare.power_title"))
    st.dataframe(inputs.power_display, hide_index=True, width="stretch", key="report_power")
    st.caption(t("compare.power_caption", power=f"{choice.power:.0%}", alpha=f"{options.alpha:g}"))
    if inputs.change_display is not None:
        st.subheader(t("compare.change_title"))
        st.dataframe(inputs.change_display, hide_index=True, width="stretch", key="report_change")
    for name, table in inputs.groups:
        st.markdown(t("compare.groups_title", measure=name))
        st.dataframe(table, hide_index=True, key=f"report_groups_{name}")
    if inputs.groups:
        st.caption(t("compare.groups_caption"))
    if len(pairs):
        st.subheader(t("compare.matrix_title"))
        st.plotly_chart(
            pairwise_matrix_figure(review, primary, t, words), width="stretch", key="report_matrix"
        )


def segments_section() -> None:
    """The segments that go against the overall verdict, and every segment's row."""
    st.subheader(t("review_report.segments", column=frame.escape(", ".join(by))))
    if not len(found):
        st.success(t("segments.no_contrary", measure=primary))
    for row in found.to_dict("records"):
        callout_box(row["callout"], bool(row["significant"]), row["sentence"])
    if inputs.segment_display is not None:
        st.dataframe(
            style_review_table(inputs.segment_display, segments["verdict"], t),
            hide_index=True,
            width="stretch",
            key="report_segments",
        )


def charts_section() -> None:
    """The report's charts."""
    st.subheader(t("review_report.charts"))
    chart_columns = st.columns(2)
    for i, (_title, figure) in enumerate(report_figures()):
        with chart_columns[i % 2]:
            st.plotly_chart(figure, width="stretch", key=f"report_chart_{i}")


def about_section() -> None:
    """The measures used, the data's health and the settings behind every number."""
    st.subheader(t("review_report.glossary"))
    for name, pretty, text in glossary:
        label = name if pretty == name else f"{name} · {pretty}"
        st.markdown(f"**{frame.escape(label)}**: {frame.escape(text)}")
    st.subheader(t("review_report.health"))
    if per_query and findings.empty:
        st.info(t("review_report.html.health_per_query"))
    elif findings.empty:
        st.success(t("review_report.no_problems"))
    else:
        widths: dict[str, Literal["small", "medium", "large"]] = {
            "severity": "small",
            "message": "large",
            "count": "small",
        }
        widths |= {"examples": "medium", "action": "medium"}
        st.dataframe(
            findings[list(widths)].rename(columns=lambda c: t(f"health.col.{c}")),
            hide_index=True,
            width="stretch",
            column_config={
                t(f"health.col.{c}"): st.column_config.Column(width=w) for c, w in widths.items()
            },
            key="report_findings",
        )

    st.subheader(t("review_report.provenance"))
    st.dataframe(
        pd.DataFrame(
            provenance(inputs),
            columns=[t("review_report.html.col.setting"), t("review_report.html.col.value")],
        ),
        hide_index=True,
        width="stretch",
        key="report_provenance",
    )


SECTIONS = {
    "summary": summary_section,
    "segments": segments_section,
    "charts": charts_section,
    "about": about_section,
}
section = sections("report", [s for s in SECTIONS if s != "segments" or by])
with section.body:
    SECTIONS[section.id]()
