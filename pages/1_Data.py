"""Data page: choose a sample, upload files or build lists by hand; see the data's health."""

import streamlit as st

from ui.data.sample_panel import sample_panel
from ui.data.upload_panel import upload_panel
from ui.shell import frame, keys, workspace
from ui.shell.findings_view import show_health, show_lists, show_preview
from ui.shell.handbuilt_panel import handbuilt_panel
from ui.shell.i18n import option_text, t
from ui.shell.per_query_panel import per_query_panel

ctx = frame.page("data")
st.title(t("data.title"))
st.caption(t("data.intro"))

source = st.radio(
    t("data.source"),
    ["sample", "upload", "handbuilt", frame.PER_QUERY],
    key=keys.W_SOURCE,
    format_func=option_text("data.source."),
    horizontal=True,
)
workspace.folder_caption()  # where the browser's workspace is kept (RANKING_METRICS_HOME)

if source == "sample":
    sample_panel()
elif source == "upload":
    uploaded = upload_panel()
elif source == frame.PER_QUERY:
    per_query_panel()
    st.stop()  # the panel shows what the table holds; it has no run or judgments to preview
else:
    handbuilt_panel()

dataset = (
    ctx.dataset
    if ctx.view.data == frame.data_choice()
    else frame.active_dataset(ctx.view.with_(data=frame.data_choice()))
)
if source == "upload" and uploaded is not None:
    dataset = uploaded  # built during this run, after the frame looked for it
if dataset is not None:
    show_lists(dataset)
    show_health(dataset, ctx.settings)
    show_preview(dataset)
else:
    st.info(t("frame.no_dataset"))
