"""Chart downloads: PNG or SVG made on request (kaleido), HTML always available."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ui.shell import keys
from ui.shell.i18n import t
from ui.shell.plotting import figure_image


def figure_downloads(figures: dict[str, go.Figure], key: str) -> None:
    """Pick a chart and a format; the image is made only when asked (it takes a few seconds)."""
    if not figures:
        return
    c1, c2, c3 = st.columns([2, 1, 2])
    name = c1.selectbox(t("export.chart"), list(figures), key=keys.export_chart(key))
    fmt = c2.radio(
        t("export.format"),
        ["png", "svg", "html"],
        key=keys.export_format(key),
        horizontal=True,
        format_func=str.upper,
    )
    fig = figures[name]
    filename = "".join(ch if ch.isalnum() or ch in "@-_" else "_" for ch in name)
    if fmt == "html":
        c3.download_button(
            t("export.download", fmt="HTML"),
            fig.to_html(include_plotlyjs="cdn").encode("utf-8"),
            f"{filename}.html",
            "text/html",
            key=f"dl_{key}_html",
            on_click="ignore",
        )
        return
    made_key = keys.export_bytes(key)
    if c3.button(t("export.prepare", fmt=fmt.upper()), key=f"btn_{key}_prepare"):
        with st.spinner(t("export.preparing")):
            try:
                st.session_state[made_key] = (name, fmt, figure_image(fig, fmt))
            except RuntimeError as exc:
                st.session_state.pop(made_key, None)
                st.error(t("export.failed", message=str(exc)))
    made = st.session_state.get(made_key)
    if made and made[0] == name and made[1] == fmt:
        mime = "image/png" if fmt == "png" else "image/svg+xml"
        c3.download_button(
            t("export.download", fmt=fmt.upper()),
            made[2],
            f"{filename}.{fmt}",
            mime,
            key=f"dl_{key}_{fmt}",
            on_click="ignore",
        )
