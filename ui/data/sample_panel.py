"""The Data page's sample choice: the bundled samples and what each one is."""

from __future__ import annotations

import streamlit as st

from metrics.io.samples import sample_names
from ui.shell import keys
from ui.shell.i18n import t


def sample_panel() -> None:
    """The menu of the bundled samples (``w_sample``) and the chosen one's description."""
    name = st.selectbox(t("data.sample"), sample_names(), key=keys.W_SAMPLE)
    st.caption(t(f"sample.{name}.description"))
