"""Validation report and preview of a data set (Streamlit)."""

from __future__ import annotations

import streamlit as st

from metrics.io.loaders import Dataset
from ui.figures import label_figure
from ui.i18n import t


def show_report(dataset: Dataset) -> None:
    """Every finding as a card: what was found, examples, what happens or how to fix it.

    Errors never get here (they stop loading with a message). Texts are shown with ``st.text``,
    since examples carry ids from the user's files.
    """
    st.subheader(t("report.title"))
    report = dataset.report.sorted()
    warnings = len(report.warnings)
    if warnings:
        st.warning(t("report.n_warnings", n=warnings))
    else:
        st.success(t("report.no_warnings"))
    columns = st.columns(2)
    for i, finding in enumerate(report.findings):
        with columns[i % 2].container(border=True):
            icon = {"error": ":material/error:", "warning": ":material/warning:"}.get(
                finding.severity, ":material/info:"
            )
            st.markdown(f"{icon} **{t(f'report.severity.{finding.severity}')}**")
            st.text(finding.message)
            if finding.examples:
                st.caption(t("report.col.examples"))
                st.text("; ".join(finding.examples))
            if finding.action:
                st.caption(t("report.col.action"))
                st.text(finding.action)


def show_preview(dataset: Dataset, rows: int = 20) -> None:
    """First rows of the run and of the judgments, as text cells."""
    st.subheader(t("preview.title"))
    c1, c2 = st.columns([3, 2])
    c1.caption(t("preview.run", rows=f"{len(dataset.run):,}"))
    c1.dataframe(dataset.run.head(rows), hide_index=True, width="stretch")
    c2.caption(t("preview.qrels", rows=f"{len(dataset.qrels):,}"))
    c2.dataframe(dataset.qrels.head(rows), hide_index=True, width="stretch")
    c2.plotly_chart(
        label_figure(
            dataset.qrels["relevance"],
            title=t("preview.labels"),
            x_label=t("preview.label"),
            y_label=t("preview.judgments"),
        ),
        width="stretch",
        key="chart_labels",
    )
