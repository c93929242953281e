"""Segments page: every model per segment, the delta vs the baseline, and where it points the
other way. Its parts are laid out by :mod:`ui.review.segment_parts`."""

import streamlit as st

from ui.review import compute as review_compute
from ui.review.context import review_context
from ui.review.controls import verdict_box
from ui.review.figures import segment_heatmap_figure
from ui.review.lead import lead_chart
from ui.review.segment_parts import (
    open_in_compare,
    segment_callouts,
    segment_controls,
    segment_downloads,
    segment_tables,
)
from ui.shell.i18n import t

rc = review_context("segments", "segments.title", segments_needed="segments.no_segments")
sc = segment_controls(rc)

# One table for every surface: the same corrected p in the call-out, the table, the forest plot,
# the CSV, the Compare page and the report.
review = rc.review(sc.measures, sc.by, sc.cross)
verdict_box(review, rc.words)
segment_callouts(review, sc, rc)
segment_tables(review, sc, rc)
segment_downloads(review, sc, rc)

lead_chart(review, sc.name, list(sc.by), rc.words, key="seg_lead")
heat_means, _ = review_compute.segment_results(
    rc.dataset, rc.settings, sc.measure, rc.k, sc.by, rc.options
)
st.plotly_chart(
    segment_heatmap_figure(heat_means, list(sc.by), rc.dataset.models, sc.name, tr=t),
    width="stretch",
    key="seg_heatmap",
)
open_in_compare(review, sc)
