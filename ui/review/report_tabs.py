"""The Report page's parts: the downloads of the document, its code and header, and the tabs of
its parts (:func:`ui.review.sections.sections` opens one): the headline figures, the segments,
the charts, and what it was computed from."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import pandas as pd
import streamlit as st

from metrics.review.stakeholder_report import left_out, provenance
from ui.review.controls import callout_box
from ui.review.figures import pairwise_matrix_figure
from ui.review.report import ReportDocument
from ui.review.tables import style_review_table
from ui.shell import frame
from ui.shell.code_panel import CodeBlock, code_panel, dataset_files
from ui.shell.commands import compare_code, compare_command
from ui.shell.i18n import t


def downloads(doc: ReportDocument) -> None:
    """The document as light HTML, interactive HTML and its tables, and the same comparison as
    a command and as Python."""
    rr, dataset, settings = doc.rr, doc.rc.dataset, doc.rc.settings
    choice, options, names = doc.rc.choice, doc.rc.options, tuple(doc.rr.names)
    d1, d2, d3 = st.columns(3)
    d1.download_button(
        t("review_report.download_html"),
        doc.light_report,
        f"report_{dataset.name}.html",
        "text/html",
        key="dl_report_html",
        type="primary",
        icon=":material/download:",
        on_click="ignore",
    )
    d2.download_button(
        t("review_report.download_interactive"),
        doc.interactive_report,
        f"report_{dataset.name}_interactive.html",
        "text/html",
        key="dl_report_interactive",
        icon=":material/insert_chart:",
        on_click="ignore",
    )
    d3.download_button(
        t("review_report.download_zip"),
        doc.tables_zip,
        f"report_{dataset.name}_tables.zip",
        "application/zip",
        key="dl_report_zip",
        icon=":material/table:",
        on_click="ignore",
    )

    st.caption(t("review_report.download_caption"))
    if not doc.per_query:  # the code recomputes from lists; a per-query table has none
        code_panel(
            "report_code",
            t("review_report.code_caption"),
            dataset_files(dataset, queries=bool(rr.by)),
            [
                CodeBlock(compare_command(settings, names, choice, options, rr.by), "bash"),
                CodeBlock(compare_code(settings, names, choice, options, rr.by)),
            ],
        )


def header(doc: ReportDocument) -> None:
    """The report's header, and what a per-query table leaves out of it."""
    dataset, choice = doc.rc.dataset, doc.rc.choice
    st.header(
        t(
            "review_report.header",
            name=frame.escape(dataset.name),
            baseline=frame.escape(choice.baseline),
            candidates=frame.escape(", ".join(choice.candidates)),
        )
    )
    if doc.per_query:
        st.info(
            t("review_report.html.left_out")
            + "\n"
            + "".join(f"\n- {frame.escape(item)}" for item in left_out(doc.inputs))
        )


def summary_tab(doc: ReportDocument) -> None:
    """The headline figures, whether there were enough queries, rankings' change, groups."""
    rr, inputs, choice, words = doc.rr, doc.inputs, doc.rc.choice, doc.rc.words
    st.subheader(t("review_report.figures"))
    st.dataframe(
        style_review_table(inputs.figures_display, rr.overall["verdict"], t),
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
    st.caption(
        t("compare.power_caption", power=f"{choice.power:.0%}", alpha=f"{choice.options.alpha:g}")
    )
    if inputs.change_display is not None:
        st.subheader(t("compare.change_title"))
        st.dataframe(inputs.change_display, hide_index=True, width="stretch", key="report_change")
    for name, table in inputs.groups:
        st.markdown(t("compare.groups_title", measure=name))
        st.dataframe(table, hide_index=True, key=f"report_groups_{name}")
    if inputs.groups:
        st.caption(t("compare.groups_caption"))
    if len(rr.pairs):
        st.subheader(t("compare.matrix_title"))
        st.plotly_chart(
            pairwise_matrix_figure(rr.review, rr.primary, t, words),
            width="stretch",
            key="report_matrix",
        )


def segments_tab(doc: ReportDocument) -> None:
    """The segments that go against the overall verdict, and every segment's row."""
    rr, found = doc.rr, doc.found
    st.subheader(t("review_report.segments", column=frame.escape(", ".join(rr.by))))
    if not len(found):
        st.success(t("segments.no_contrary", measure=rr.primary))
    for row in found.to_dict("records"):
        callout_box(row["callout"], bool(row["significant"]), row["sentence"])
    if doc.inputs.segment_display is not None:
        st.dataframe(
            style_review_table(doc.inputs.segment_display, rr.segments["verdict"], t),
            hide_index=True,
            width="stretch",
            key="report_segments",
        )


def charts_tab(doc: ReportDocument) -> None:
    """The report's charts."""
    st.subheader(t("review_report.charts"))
    chart_columns = st.columns(2)
    for i, (_title, figure) in enumerate(doc.figures):
        with chart_columns[i % 2]:
            st.plotly_chart(figure, width="stretch", key=f"report_chart_{i}")


def about_tab(doc: ReportDocument) -> None:
    """The measures used, the data's health and the settings behind every number."""
    findings = doc.findings
    st.subheader(t("review_report.glossary"))
    for name, pretty, text in doc.glossary:
        label = name if pretty == name else f"{name} · {pretty}"
        st.markdown(f"**{frame.escape(label)}**: {frame.escape(text)}")
    st.subheader(t("review_report.health"))
    if doc.per_query and findings.empty:
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
            provenance(doc.inputs),
            columns=[t("review_report.html.col.setting"), t("review_report.html.col.value")],
        ),
        hide_index=True,
        width="stretch",
        key="report_provenance",
    )


#: Tab id -> the function that lays it out.
TABS: dict[str, Callable[[ReportDocument], None]] = {
    "summary": summary_tab,
    "segments": segments_tab,
    "charts": charts_tab,
    "about": about_tab,
}


def shown_tabs(doc: ReportDocument) -> list[str]:
    """The tabs of this report: the segments' only with segment columns."""
    return [s for s in TABS if s != "segments" or doc.rr.by]
