"""The Segments page's parts: its controls (segment columns, measure, crossing, pooled means),
the call-outs, one table per segment column, the downloads and code, and the link that opens a
segment's queries in Compare."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from metrics.review.callouts import callouts
from metrics.review.compare import MAX_SEGMENT_COLUMNS
from metrics.review.decision import lead_measure
from metrics.review.segments import MIN_SEGMENT_QUERIES
from metrics.review.verdict import overall_rows, segment_rows
from metrics.review.wording import interval_text
from ui.review import compute as review_compute
from ui.review.context import ReviewContext
from ui.review.controls import callout_box, keep_choice, table_downloads
from ui.review.tables import CSV_DIGITS, segment_display
from ui.shell import compute, frame, keys
from ui.shell.code_panel import CodeBlock, code_panel, dataset_files
from ui.shell.commands import compare_code, compare_command
from ui.shell.i18n import t
from ui.shell.pages_registry import page_def
from ui.shell.per_query_data import is_per_query


@dataclass(frozen=True)
class SegmentChoice:
    """What the Segments page's own controls selected."""

    measures: tuple[str, ...]
    #: The segment columns (one or two).
    by: tuple[str, ...]
    #: The measure shown, without K, and at K (``nDCG@10``).
    measure: str
    name: str
    cross: bool
    pooled: bool


def segment_controls(rc: ReviewContext) -> SegmentChoice:
    """The segment columns and the measure in one row (the measure opens on the review's lead
    measure), then crossing two columns and the pooled means; stops the page without a column."""
    columns, k, choice = rc.dataset.segment_columns, rc.k, rc.choice
    c1, c2 = st.columns([2, 1])
    by = c1.multiselect(
        t("segments.by"), columns, key=keys.W_SEG_BY, max_selections=MAX_SEGMENT_COLUMNS
    )
    measures = rc.measures()
    if rc.settings.averaging != "macro":
        st.caption(review_compute.macro_note(rc.settings))
    if st.session_state.get(keys.W_SEG_MEASURE) not in measures:  # the review's lead measure
        cutoffs = [compute.cutoff_name(m, k) for m in measures]
        lead = lead_measure(cutoffs, choice.lead_at_k or None)
        st.session_state[keys.W_SEG_MEASURE] = measures[cutoffs.index(lead)]
    measure = c2.selectbox(
        t("compare.measure"),
        list(measures),
        key=keys.W_SEG_MEASURE,
        format_func=lambda m: compute.cutoff_name(m, k),
    )
    if not by:
        st.info(t("segments.choose_by"))
        st.stop()
    cross = len(by) == 2 and c1.toggle(
        t("segments.cross"), key=keys.W_SEG_CROSS, help=t("segments.cross_help")
    )
    pooled = c1.toggle(t("segments.pooled"), key=keys.W_SEG_POOLED, help=t("segments.pooled_help"))
    return SegmentChoice(
        measures, tuple(by), measure, compute.cutoff_name(measure, k), bool(cross), pooled
    )


def segment_callouts(review: pd.DataFrame, sc: SegmentChoice, rc: ReviewContext) -> None:
    """The segments that point the other way on the measure shown."""
    st.subheader(t("segments.callouts_title"))
    found = callouts(review, sc.name, rc.words, MIN_SEGMENT_QUERIES)
    if len(found) == 0:
        st.success(t("segments.no_contrary", measure=sc.name))
    for row in found.to_dict("records"):
        callout_box(row["callout"], bool(row["significant"]), row["sentence"])


def segment_tables(review: pd.DataFrame, sc: SegmentChoice, rc: ReviewContext) -> None:
    """Every model per segment with the difference from the baseline: one table per segment
    column (crossing two is the opt-in view), then how to read them."""
    dataset, choice, words, models = rc.dataset, rc.choice, rc.words, rc.models
    rows = segment_rows(review, sc.name)
    overall = overall_rows(review)
    overall = overall[overall["measure"] == sc.name]
    breakdowns = [list(sc.by)] if sc.cross or len(sc.by) == 1 else [[c] for c in sc.by]
    for part in breakdowns:
        means, matched = review_compute.segment_results(
            dataset, rc.settings, sc.measure, rc.k, tuple(part), rc.options
        )
        part_rows = rows[rows["segment_column"] == " × ".join(part)]
        st.subheader(t("segments.table_title", measure=f"{sc.name} · {' × '.join(part)}"))
        if not matched:
            st.warning(t("segments.no_query_matched", missing=t("review.segment_missing")))
        small = int(means["small"].sum())
        if small:
            st.warning(t("segments.small_warning", n=small, min=MIN_SEGMENT_QUERIES))
        table = segment_display(
            means, part_rows, overall, part, models, list(choice.candidates), t, words, sc.pooled
        )
        number_columns = {
            c: st.column_config.NumberColumn(c, format="%.4f")
            for c in table.columns
            if c in models
            or c.startswith("Δ ")
            or c.startswith(t("review.col.pooled_of", model=""))
        }
        st.dataframe(
            table,
            hide_index=True,
            width="stretch",
            column_config=number_columns,
            key=f"seg_table_{'_'.join(part)}",
        )
    st.caption(
        t(
            "segments.table_caption",
            baseline=frame.escape(choice.baseline),
            interval=frame.escape(interval_text(rows, words)),
            family=frame.escape(review_compute.family_words(rows, words)),
        )
    )


def segment_downloads(review: pd.DataFrame, sc: SegmentChoice, rc: ReviewContext) -> None:
    """The segment rows as CSV and JSON, and the same breakdown as a command and as Python."""
    words, choice, options, settings = rc.words, rc.choice, rc.options, rc.settings
    table_downloads(segment_rows(review), review, "segments", "seg", words)
    st.caption(t("review.export_caption", digits=CSV_DIGITS))
    if not is_per_query(rc.dataset):  # the code recomputes from lists; a per-query table has none
        code_measures = tuple(compute.cutoff_name(m, rc.k) for m in sc.measures)
        code_by = sc.by
        code_panel(
            "seg_code",
            t("segments.code_caption"),
            dataset_files(rc.dataset, queries=True),
            [
                CodeBlock(
                    compare_command(settings, code_measures, choice, options, code_by), "bash"
                ),
                CodeBlock(
                    compare_code(
                        settings, code_measures, choice, options, code_by, segments_only=True
                    )
                ),
            ],
        )


def open_in_compare(review: pd.DataFrame, sc: SegmentChoice) -> None:
    """A segment of the one segment column, and the link that opens its queries in Compare's
    drill-down (with the measure shown)."""
    st.subheader(t("segments.open_title"))
    rows = segment_rows(review, sc.name)
    by = sc.by
    values = [v for v in rows["segment"].drop_duplicates()] if len(by) == 1 else []
    if not values:
        st.caption(t("segments.open_one_column"))
        return
    keep_choice(keys.W_SEG_OPEN, values, values[0])
    chosen = st.selectbox(
        t("segments.open_choose"), values, key=keys.W_SEG_OPEN, help=t("segments.open_help")
    )
    value = str(rows.loc[rows["segment"] == chosen, by[0]].iloc[0])
    params = {k_: v for k_, v in st.query_params.to_dict().items() if k_ not in ("q",)}
    params["qseg"] = f"{by[0]}={value}"
    params["qm"] = sc.measure
    st.page_link(
        str(frame.ROOT / page_def("compare").path),
        label=t("segments.open_link", segment=frame.escape(chosen)),
        icon=":material/compare_arrows:",
        query_params=params,
    )
