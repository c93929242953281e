"""The chart of the lead measure on a review page: its title, the chart laid out for a wide
screen and for a phone (each shown only there), and what its bars are."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import streamlit as st

from ui.review.figures import lead_measure_figure, lead_titles
from ui.shell import frame
from ui.shell.frame import PHONE_HIDDEN, PHONE_ONLY
from ui.shell.i18n import Message, t


def lead_chart(
    review: pd.DataFrame,
    measure: str,
    by: Sequence[str],
    words: Mapping[str, Message],
    key: str,
) -> None:
    """The lead measure's chart (:func:`ui.review.figures.lead_measure_figure`) of the review
    table under its title, which wraps on a phone as the chart's own title would not; on a
    phone each label sits above its point."""
    title, note = lead_titles(review, measure, by, t, words)
    st.subheader(frame.escape(title))
    for place, narrow in ((PHONE_HIDDEN, False), (PHONE_ONLY, True)):
        with st.container(key=f"{place}_{key}"):
            figure = lead_measure_figure(
                review, measure, by, tr=t, templates=words, titled=False, narrow=narrow
            )
            config = {"displayModeBar": False} if narrow else {}  # over the legend on a phone
            st.plotly_chart(figure, width="stretch", key=f"{key}_{place}", config=config)
    st.caption(frame.escape(note))
