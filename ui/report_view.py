"""Validation report and preview of a data set (Streamlit)."""

from __future__ import annotations

import streamlit as st

from metrics.loaders import Dataset

from .figures import label_figure
from .i18n import t


def show_report(dataset: Dataset) -> None:
    """Warnings explained (errors never get here: they stop loading with a message)."""
    st.subheader(t("report.title"))
    report = dataset.report.sorted()
    warnings = len(report.warnings)
    if warnings:
        st.warning(t("report.n_warnings", n=warnings))
    else:
        st.success(t("report.no_warnings"))
    frame = report.to_frame()
    if len(frame):
        frame["severity"] = frame["severity"].map(lambda s: t(f"report.severity.{s}"))
        st.dataframe(frame[["severity", "message", "count", "examples", "action"]],
                     hide_index=True, width="stretch",
                     column_config={"severity": t("report.col.severity"),
                                    "message": st.column_config.TextColumn(
                                        t("report.col.message"), width="large"),
                                    "count": t("report.col.count"),
                                    "examples": t("report.col.examples"),
                                    "action": st.column_config.TextColumn(
                                        t("report.col.action"), width="large")})


def show_preview(dataset: Dataset, rows: int = 20) -> None:
    """First rows of the run and of the judgments, as text cells."""
    st.subheader(t("preview.title"))
    c1, c2 = st.columns([3, 2])
    c1.caption(t("preview.run", rows=f"{len(dataset.run):,}"))
    c1.dataframe(dataset.run.head(rows), hide_index=True, width="stretch")
    c2.caption(t("preview.qrels", rows=f"{len(dataset.qrels):,}"))
    c2.dataframe(dataset.qrels.head(rows), hide_index=True, width="stretch")
    c2.plotly_chart(label_figure(dataset.qrels["relevance"], title=t("preview.labels"),
                                 x_label=t("preview.label"), y_label=t("preview.judgments")),
                    width="stretch", key="chart_labels")
