"""Segments page: every model per segment, the delta vs the baseline, and where it points the
other way."""

import streamlit as st

from metrics.review.callouts import callouts
from metrics.review.decision import lead_measure
from metrics.review.segments import MIN_SEGMENT_QUERIES
from metrics.review.verdict import overall_rows, segment_rows
from metrics.review.wording import interval_text
from ui.review import compute as review_compute
from ui.review.controls import (
    callout_box,
    decision_of,
    guard_options,
    require_review_choice,
    segment_choice,
    verdict_box,
    verdict_templates,
    warn_unknown_data,
)
from ui.review.figures import segment_heatmap_figure
from ui.review.lead import lead_chart
from ui.review.tables import CSV_DIGITS, export_csv, export_json, segment_display
from ui.shell import compute, frame, keys
from ui.shell.i18n import t
from ui.shell.pages_registry import page_def
from ui.shell.per_query_data import is_per_query
from ui.shell.per_query_panel import measures_at
from ui.tools.code_panel import CodeBlock, code_panel, dataset_files
from ui.tools.compute import compare_code, compare_command

ctx = frame.page("segments")
st.title(t("segments.title"))
dataset = ctx.require_dataset()
warn_unknown_data(ctx.view.data)
view, settings = ctx.view, ctx.settings
models = dataset.models
columns = dataset.segment_columns
if not columns:
    st.info(t("segments.no_segments"))
    st.stop()
chosen_by = segment_choice(columns)
choice = require_review_choice(
    models, view.k_range, tuple(view.measures), guard_options(dataset.segments, chosen_by)
)
options, k = choice.options, choice.k
c1, c2 = st.columns([2, 1])
by = c1.multiselect(t("segments.by"), columns, key=keys.W_SEG_BY, max_selections=2)
measures = measures_at(dataset, tuple(view.measures), k)
if settings.averaging != "macro":
    st.caption(review_compute.macro_note(settings))
if st.session_state.get(keys.W_SEG_MEASURE) not in measures:  # open on the review's lead measure
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
name = compute.cutoff_name(measure, k)
words = verdict_templates()

# One table for every surface: the same corrected p in the call-out, the table, the forest plot,
# the CSV, the Compare page and the report.
review = review_compute.choice_review(dataset, settings, measures, choice, tuple(by), cross)
rows = segment_rows(review, name)
overall = overall_rows(review)
overall = overall[overall["measure"] == name]
verdict_box(review, words)

st.subheader(t("segments.callouts_title"))
found = callouts(review, name, words, MIN_SEGMENT_QUERIES)
if len(found) == 0:
    st.success(t("segments.no_contrary", measure=name))
for row in found.to_dict("records"):
    callout_box(row["callout"], bool(row["significant"]), row["sentence"])

# each segment column on its own (crossing two is the opt-in view)
breakdowns = [list(by)] if cross or len(by) == 1 else [[c] for c in by]
for part in breakdowns:
    means, matched = review_compute.segment_results(
        dataset, settings, measure, k, tuple(part), options
    )
    part_rows = rows[rows["segment_column"] == " × ".join(part)]
    st.subheader(t("segments.table_title", measure=f"{name} · {' × '.join(part)}"))
    if not matched:
        st.warning(t("segments.no_query_matched", missing=t("review.segment_missing")))
    small = int(means["small"].sum())
    if small:
        st.warning(t("segments.small_warning", n=small, min=MIN_SEGMENT_QUERIES))
    table = segment_display(
        means, part_rows, overall, part, list(models), list(choice.candidates), t, words, pooled
    )
    number_columns = {
        c: st.column_config.NumberColumn(c, format="%.4f")
        for c in table.columns
        if c in models or c.startswith("Δ ") or c.startswith(t("review.col.pooled_of", model=""))
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
d1, d2 = st.columns(2)
d1.download_button(
    t("review.download_csv"),
    export_csv(segment_rows(review), decision_of(review, words)),
    "segments.csv",
    "text/csv",
    key="dl_seg_csv",
    on_click="ignore",
)
d2.download_button(
    t("review.download_json"),
    export_json(segment_rows(review), decision_of(review, words)),
    "segments.json",
    "application/json",
    key="dl_seg_json",
    on_click="ignore",
)
st.caption(t("review.export_caption", digits=CSV_DIGITS))
if not is_per_query(dataset):  # the code recomputes from lists; a per-query table has none
    code_measures = tuple(compute.cutoff_name(m, k) for m in measures)
    code_by = tuple(by)
    code_panel(
        "seg_code",
        t("segments.code_caption"),
        dataset_files(dataset, queries=True),
        [
            CodeBlock(compare_command(settings, code_measures, choice, options, code_by), "bash"),
            CodeBlock(
                compare_code(settings, code_measures, choice, options, code_by, segments_only=True)
            ),
        ],
    )

lead_chart(review, name, list(by), words, key="seg_lead")
heat_means, _ = review_compute.segment_results(dataset, settings, measure, k, tuple(by), options)
st.plotly_chart(
    segment_heatmap_figure(heat_means, list(by), models, name, tr=t),
    width="stretch",
    key="seg_heatmap",
)

st.subheader(t("segments.open_title"))
values = [v for v in rows["segment"].drop_duplicates()] if len(by) == 1 else []
if values:
    if st.session_state.get(keys.W_SEG_OPEN) not in values:
        st.session_state[keys.W_SEG_OPEN] = values[0]
    chosen = st.selectbox(
        t("segments.open_choose"), values, key=keys.W_SEG_OPEN, help=t("segments.open_help")
    )
    value = str(rows.loc[rows["segment"] == chosen, by[0]].iloc[0])
    params = {k_: v for k_, v in st.query_params.to_dict().items() if k_ not in ("q",)}
    params["qseg"] = f"{by[0]}={value}"
    params["qm"] = measure
    st.page_link(
        str(frame.ROOT / page_def("compare").path),
        label=t("segments.open_link", segment=frame.escape(chosen)),
        icon=":material/compare_arrows:",
        query_params=params,
    )
else:
    st.caption(t("segments.open_one_column"))
