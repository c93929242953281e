"""Compare's drill-down: the per-query deltas of the chosen candidate, measure and segment, and
the query a click on a chart's point chooses."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import pandas as pd
import streamlit as st

from metrics.review.compare import segment_of_query
from ui.review import compute as review_compute
from ui.review.context import ReviewContext
from ui.review.controls import DrillChoice, drill_choice, keep_choice
from ui.review.figures import clicked_queries
from ui.review.sections import open_next
from ui.shell import keys
from ui.shell.i18n import t


class DrillData(NamedTuple):
    """The drill-down's choices and the per-query deltas they select (segment applied)."""

    drill: DrillChoice
    candidate: str
    query_measure: str
    deltas: pd.DataFrame
    queries: list[str]


def segment_deltas(
    deltas: pd.DataFrame, segments: pd.DataFrame, segment: tuple[str, str] | None
) -> pd.DataFrame:
    """Per-query ``deltas`` with each query's segment values (``segments``: ``query`` and one
    column per segment column), only the queries of ``segment`` (column, value) when given."""
    if len(segments):
        # one rule for a missing segment value: absent from the query table or empty
        named = [c for c in segments.columns if c != "query"]
        deltas = deltas.merge(
            segment_of_query(segments, named, deltas["query"]), on="query", how="left"
        )
    if segment:
        column, value = segment
        deltas = deltas[deltas[column] == value].reset_index(drop=True)
    return deltas


def drill_data(rc: ReviewContext, measures: Sequence[str]) -> DrillData:
    """The drill-down's choices and their per-query deltas; stops the page when the models
    share no query."""
    choice = rc.choice
    drill = drill_choice(list(choice.candidates), list(measures), rc.dataset)
    candidate, query_measure = drill.candidate, drill.measure
    deltas = review_compute.per_query_deltas(
        rc.dataset, rc.settings, query_measure, rc.k, choice.baseline, candidate, rc.options.policy
    )
    deltas = segment_deltas(deltas, drill.segments, drill.segment)
    queries = deltas["query"].tolist()
    if not queries:
        st.info(t("compare.no_shared"))
        st.stop()
    keep_choice(keys.W_CMP_QUERY, queries, queries[0])
    return DrillData(drill, candidate, query_measure, deltas, queries)


def pick(event: Any, key: str, queries: list[str], then: str | None = None) -> None:
    """A clicked point becomes the chosen query (and the tab ``then`` opens)."""
    picked = clicked_queries(event, queries)
    if picked and picked[0] != st.session_state.get(key):
        st.session_state[key] = picked[0]
        if picked[0] != st.session_state[keys.W_CMP_QUERY]:
            st.session_state[keys.W_CMP_QUERY] = picked[0]
            if then is not None:
                open_next("compare", then)
            st.rerun()
